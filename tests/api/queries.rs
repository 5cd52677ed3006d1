//! Queries on tasks: `filter`, `q`, `orderBy` and `tz` (docs §17), over HTTP.

use chrono::{DateTime, Duration, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, Reply, TestApp};

/// `name=value` pairs as a query string, URL-encoded.
fn query(pairs: &[(&str, &str)]) -> String {
    serde_urlencoded::to_string(pairs).unwrap()
}

/// The ids of a page, in order.
fn ids(reply: &Reply) -> Vec<String> {
    reply
        .data()
        .as_array()
        .unwrap_or_else(|| panic!("no data array in {:#}", reply.body))
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect()
}

/// The ids of every task a query finds, walked 3 a page.
async fn find(app: &TestApp, pairs: &[(&str, &str)]) -> Vec<String> {
    app.default_user()
        .list_all(&format!("/api/v1/tasks?{}", query(pairs)), 3)
        .await
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect()
}

/// The ids a filter finds, in the default order.
async fn filtered(app: &TestApp, filter: &str) -> Vec<String> {
    find(app, &[("filter", filter)]).await
}

/// An RFC 3339 UTC instant with milliseconds.
fn at(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Creates tasks from `bodies`, each given `todoId` `t{n}` and `sortOrder` `n` in order.
async fn tasks(app: &TestApp, bodies: Vec<Value>) {
    for (n, mut body) in bodies.into_iter().enumerate() {
        body["todoId"] = json!(format!("t{n}"));
        body["sortOrder"] = json!(n);
        app.post("/api/v1/tasks", body).await.expect(201);
    }
}

fn strings(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[actix_web::test]
async fn every_operator_compares_as_the_field_type_says() {
    let app = spawn_app();
    tasks(
        &app,
        vec![
            json!({"name": "Buy milk", "status": "open", "durationEstimate": 10,
                   "dateDue": "2030-01-01T10:00:00Z", "isImportant": true, "tagIds": ["home"]}),
            json!({"name": "buy BREAD", "status": "done", "durationEstimate": 2.5,
                   "dateDue": "2030-01-02T10:00:00Z", "tagIds": ["home", "shop"]}),
            json!({"name": "Call Zoë", "status": "waiting", "tagIds": ["work"]}),
            json!({"status": "open", "durationEstimate": 0}),
        ],
    )
    .await;
    let cases: &[(&str, &[&str])] = &[
        (r#"status = "open""#, &["t0", "t3"]),
        (r#"status != "open""#, &["t1", "t2"]),
        (r#"name < "Call""#, &["t0"]),
        (r#"name <= "Call Zoë""#, &["t0", "t2"]),
        (r#"name > "Buy milk""#, &["t1", "t2"]),
        (r#"name >= "buy BREAD""#, &["t1"]),
        (r#"name ~ "BUY""#, &["t0", "t1"]),
        (r#"name ~ "zoË""#, &["t2"]),
        ("durationEstimate = 10", &["t0"]),
        ("durationEstimate < 10", &["t1", "t3"]),
        ("durationEstimate <= 10", &["t0", "t1", "t3"]),
        ("durationEstimate > 2.5", &["t0"]),
        ("durationEstimate >= 2.5", &["t0", "t1"]),
        ("dateDue < 2030-01-02T10:00:00Z", &["t0"]),
        ("dateDue <= 2030-01-02T10:00:00Z", &["t0", "t1"]),
        ("dateDue = 2030-01-01T11:00:00+01:00", &["t0"]),
        ("dateDue > 2030-01-01", &["t0", "t1"]),
        ("isImportant = true", &["t0"]),
        ("isImportant != true", &["t1", "t2", "t3"]),
        ("isImportant = false", &["t1", "t2", "t3"]),
        (r#"status in ("done", "waiting")"#, &["t1", "t2"]),
        (r#"status not in ("done", "waiting")"#, &["t0", "t3"]),
        ("durationEstimate in (0, 10)", &["t0", "t3"]),
        (r#"tagIds has "home""#, &["t0", "t1"]),
        (r#"tagIds has "shop""#, &["t1"]),
        (r#"!(tagIds has "home")"#, &["t2", "t3"]),
        (
            r#"status = "open" && isImportant = true || status = "waiting""#,
            &["t0", "t2"],
        ),
        (
            r#"status = "open" && (isImportant = true || status = "waiting")"#,
            &["t0"],
        ),
        (r#"!status = "open""#, &["t1", "t2"]),
        (r#"!!status = "open""#, &["t0", "t3"]),
        (r#"todoId = "t2" || id = "t3""#, &["t2", "t3"]),
        (r#"spaceId != null && name ~ "milk""#, &["t0"]),
        ("versionUpdatedAt <= 2", &["t0", "t1"]),
        ("", &["t0", "t1", "t2", "t3"]),
    ];
    for (filter, expected) in cases {
        assert_eq!(filtered(&app, filter).await, strings(expected), "{filter}");
    }
}

#[actix_web::test]
async fn nulls_match_only_equals_null_and_the_negations() {
    let app = spawn_app();
    tasks(
        &app,
        vec![
            json!({"name": "named", "dateDue": "2030-01-01T00:00:00Z", "durationEstimate": 1}),
            json!({}),
        ],
    )
    .await;
    let cases: &[(&str, &[&str])] = &[
        ("name = null", &["t1"]),
        ("name != null", &["t0"]),
        (r#"name != "named""#, &["t1"]),
        (r#"name < "zzz""#, &["t0"]),
        (r#"name >= """#, &["t0"]),
        (r#"name ~ """#, &["t0"]),
        (r#"name in ("named", "x")"#, &["t0"]),
        (r#"name not in ("named", "x")"#, &["t1"]),
        ("dateDue > 2000-01-01", &["t0"]),
        ("dateDue <= 2100-01-01", &["t0"]),
        ("dateDue = null", &["t1"]),
        ("!(dateDue < now)", &["t0", "t1"]),
        ("durationEstimate >= 0", &["t0"]),
        ("durationEstimate != 1", &["t1"]),
        ("deletedAt = null", &["t0", "t1"]),
    ];
    for (filter, expected) in cases {
        assert_eq!(filtered(&app, filter).await, strings(expected), "{filter}");
    }
}

#[actix_web::test]
async fn values_are_json_strings_and_numbers_dates_date_times_and_relative_times() {
    let app = spawn_app();
    let now = Utc::now();
    tasks(
        &app,
        vec![
            json!({"name": "é \"quoted\" \\ tab\t", "durationEstimate": 150,
                   "dateDue": at(now - Duration::minutes(30))}),
            json!({"name": "later", "dateDue": at(now + Duration::hours(5))}),
            json!({"name": "next week", "dateDue": at(now + Duration::days(8))}),
            json!({"name": "old", "dateDue": "2001-02-03T04:05:06.789Z"}),
        ],
    )
    .await;
    let cases: &[(&str, &[&str])] = &[
        (r#"name = "\u00e9 \"quoted\" \\ tab\t""#, &["t0"]),
        (r#"name = "é \"quoted\" \\ tab\u0009""#, &["t0"]),
        ("durationEstimate = 1.5e2", &["t0"]),
        ("durationEstimate = 150.0", &["t0"]),
        ("durationEstimate > -1", &["t0"]),
        ("dateDue = 2001-02-03T04:05:06.789Z", &["t3"]),
        ("dateDue = 2001-02-03T05:05:06.789+01:00", &["t3"]),
        ("dateDue > 2001-02-03 && dateDue < 2001-02-04", &["t3"]),
        ("dateDue < now", &["t0", "t3"]),
        ("dateDue < now - 29m", &["t0", "t3"]),
        ("dateDue < now-31m", &["t3"]),
        ("dateDue > now + 4h && dateDue < now+6h", &["t1"]),
        ("dateDue > now+1d", &["t2"]),
        ("dateDue > now + 1w", &["t2"]),
        ("dateDue > now+2w", &[]),
        (
            "dateDue < today + 2w && dateDue > today - 1d",
            &["t0", "t1", "t2"],
        ),
        ("dateDue < 2002-01-01T00:00:00.5Z", &["t3"]),
    ];
    for (filter, expected) in cases {
        assert_eq!(filtered(&app, filter).await, strings(expected), "{filter}");
    }
}

#[actix_web::test]
async fn each_error_names_its_position() {
    let app = spawn_app();
    let long = format!("name = \"{}\"", "x".repeat(2_000));
    let many = vec!["status = \"a\""; 51].join(" || ");
    let deep = format!("{}status = \"a\"{}", "(".repeat(17), ")".repeat(17));
    let cases: Vec<(&str, usize)> = vec![
        // Syntax: the token where the error was found; at the end, the length.
        ("status =", 8),
        ("status = \"open\" &&", 18),
        ("status \"open\"", 7),
        ("(status = \"open\"", 16),
        ("status = \"open\")", 15),
        ("status = \"open\" & name = null", 16),
        ("status == \"open\"", 8),
        ("&& status = \"open\"", 0),
        // Unknown fields and keywords.
        ("nope = 1", 0),
        ("Status = \"open\"", 0),
        ("status IN (\"a\")", 7),
        ("isImportant = TRUE", 14),
        // Bad literals.
        ("dateDue < 2030-02-30", 10),
        ("dateDue < 2030-01-01T25:00:00Z", 10),
        ("name = \"unterminated", 7),
        ("name = \"bad \\q escape\"", 7),
        ("durationEstimate = 01", 20),
        ("dateDue < now + 7y", 16),
        ("dateDue < now + d", 16),
        // Type misfits: at the value.
        ("dateDue < \"2030-01-01\"", 10),
        ("durationEstimate = \"1\"", 19),
        ("isImportant = \"true\"", 14),
        ("name = 1", 7),
        ("isImportant < true", 14),
        ("durationEstimate ~ 1", 19),
        ("name < null", 7),
        ("status in (\"a\", null)", 16),
        ("tagIds = \"home\"", 9),
        ("name has \"x\"", 9),
        ("tagIds has 1", 11),
        ("status = \"é\" && dateDue > 1", 26),
        // Limits.
        (&long, 2_000),
        // The 51st comparison; the 17th `(`.
        (&many, 800),
        (&deep, 16),
    ];
    for (filter, position) in cases {
        let reply = app
            .get(&format!("/api/v1/tasks?{}", query(&[("filter", filter)])))
            .await;
        assert_problem(&reply, 400, "invalid_filter");
        let short: String = filter.chars().take(60).collect();
        assert_eq!(
            reply.body["position"], position,
            "{short}: {:#}",
            reply.body
        );
    }
    // The other parameters are refused as parameters.
    for pairs in [
        vec![("tz", "Mars/Olympus")],
        vec![("orderBy", "priority")],
        vec![("orderBy", "name,dateDue,status,sortOrder")],
        vec![("orderBy", "name,,dateDue")],
        vec![("orderBy", "+name")],
    ] {
        let reply = app.get(&format!("/api/v1/tasks?{}", query(&pairs))).await;
        assert_problem(&reply, 400, "invalid_parameter");
        assert!(reply.body.get("position").is_none());
    }
    let long_q = "a".repeat(501);
    let reply = app
        .get(&format!("/api/v1/tasks?{}", query(&[("q", &long_q)])))
        .await;
    assert_problem(&reply, 400, "invalid_parameter");
    let ok_q = "é".repeat(500);
    app.get(&format!("/api/v1/tasks?{}", query(&[("q", &ok_q)])))
        .await
        .expect(200);
}

#[actix_web::test]
async fn the_other_collections_ignore_the_task_query_parameters() {
    let app = spawn_app();
    app.post("/api/v1/lists", json!({"listId": "l1"}))
        .await
        .expect(201);
    for collection in ["lists", "schedules", "categories", "contexts"] {
        let pairs = [
            ("filter", "((("),
            ("q", "x"),
            ("orderBy", "nope"),
            ("tz", "Mars/Olympus"),
        ];
        let reply = app
            .get(&format!("/api/v1/{collection}?{}", query(&pairs)))
            .await;
        reply.expect(200);
    }
    let lists = app.get("/api/v1/lists?q=zzz").await;
    assert_eq!(ids(&lists), ["l1"]);
}

/// 00:00 of the day `instant` falls on in `tz`.
fn start_of_day(tz: Tz, instant: DateTime<Utc>) -> DateTime<Utc> {
    let date = instant.with_timezone(&tz).date_naive();
    tz.from_local_datetime(&date.and_hms_opt(0, 0, 0).unwrap())
        .earliest()
        .unwrap()
        .with_timezone(&Utc)
}

#[actix_web::test]
async fn today_and_dates_are_read_in_the_query_time_zone() {
    let app = spawn_app();
    // Kiritimati is UTC+14, Niue UTC-11: their days start at other instants, and each
    // zone's day starts between two of the tasks.
    let zones: [Tz; 3] = [
        "Pacific/Kiritimati".parse().unwrap(),
        "Pacific/Niue".parse().unwrap(),
        chrono_tz::UTC,
    ];
    let now = Utc::now();
    let ms = Duration::milliseconds(1);
    let dues: Vec<DateTime<Utc>> = zones
        .iter()
        .flat_map(|tz| [start_of_day(*tz, now) - ms, start_of_day(*tz, now)])
        .collect();
    tasks(
        &app,
        dues.iter()
            .map(|due| json!({"dateDue": at(*due)}))
            .collect(),
    )
    .await;
    for tz in zones {
        let expected = |now: DateTime<Utc>| -> Vec<String> {
            let today = start_of_day(tz, now);
            (0..dues.len())
                .filter(|n| dues[*n] >= today)
                .map(|n| format!("t{n}"))
                .collect()
        };
        let before = Utc::now();
        let found = find(&app, &[("filter", "dateDue >= today"), ("tz", tz.name())]).await;
        // A day may end in the zone while the request runs.
        assert!(
            found == expected(before) || found == expected(Utc::now()),
            "{tz}: {found:?}"
        );
        let before = Utc::now();
        let found = find(&app, &[("filter", "dateDue < today"), ("tz", tz.name())]).await;
        let rest = |now| -> Vec<String> {
            let all: Vec<String> = (0..dues.len()).map(|n| format!("t{n}")).collect();
            let later = expected(now);
            all.into_iter().filter(|id| !later.contains(id)).collect()
        };
        assert!(
            found == rest(before) || found == rest(Utc::now()),
            "{tz}: {found:?}"
        );
    }

    // A DATE is 00:00 in `tz`; `d` is a calendar day across a change to summer time.
    let app = spawn_app();
    tasks(
        &app,
        vec![
            json!({"dateDue": "2030-03-30T22:59:59.999Z"}),
            json!({"dateDue": "2030-03-30T23:00:00Z"}),
            json!({"dateDue": "2030-03-31T22:00:00Z"}),
        ],
    )
    .await;
    let paris = [("tz", "Europe/Paris")];
    let in_paris = |filter| [("filter", filter), paris[0]];
    assert_eq!(
        find(&app, &in_paris("dateDue >= 2030-03-31")).await,
        ["t1", "t2"]
    );
    assert_eq!(filtered(&app, "dateDue >= 2030-03-31").await, ["t2"]);
    assert_eq!(find(&app, &in_paris("dateDue >= 2030-04-01")).await, ["t2"]);
    assert_eq!(
        find(&app, &in_paris("dateDue = 2030-03-30T23:00:00Z")).await,
        ["t1"]
    );
}

/// The ids of every task, in the order `keys` says.
async fn ordered(app: &TestApp, keys: &str) -> Vec<String> {
    find(app, &[("orderBy", keys)]).await
}

/// Two tasks of a listing after `cursor`.
async fn next_page(app: &TestApp, mut pairs: Vec<(&str, &str)>, cursor: &str) -> Reply {
    pairs.push(("cursor", cursor));
    app.get(&format!("/api/v1/tasks?limit=2&{}", query(&pairs)))
        .await
}

#[actix_web::test]
async fn order_by_puts_nulls_last_and_breaks_ties_by_id() {
    let app = spawn_app();
    tasks(
        &app,
        vec![
            json!({"name": "b", "dateDue": "2030-01-02T00:00:00Z", "isImportant": true}),
            json!({"name": "a", "status": "Open"}),
            json!({"name": "B", "dateDue": "2030-01-01T00:00:00Z", "durationEstimate": 3}),
            json!({"name": "b", "dateDue": "2030-01-02T00:00:00Z", "durationEstimate": 1}),
            json!({"status": "open", "isImportant": true}),
        ],
    )
    .await;
    assert_eq!(
        ordered(&app, "dateDue").await,
        ["t2", "t0", "t3", "t1", "t4"]
    );
    assert_eq!(
        ordered(&app, "-dateDue").await,
        ["t0", "t3", "t2", "t1", "t4"]
    );
    assert_eq!(ordered(&app, "name").await, ["t2", "t1", "t0", "t3", "t4"]);
    assert_eq!(ordered(&app, "-name").await, ["t0", "t3", "t1", "t2", "t4"]);
    assert_eq!(
        ordered(&app, "status").await,
        ["t1", "t4", "t0", "t2", "t3"]
    );
    assert_eq!(
        ordered(&app, "isImportant").await,
        ["t1", "t2", "t3", "t0", "t4"]
    );
    assert_eq!(
        ordered(&app, "-isImportant,-sortOrder").await,
        ["t4", "t0", "t3", "t2", "t1"]
    );
    assert_eq!(
        ordered(&app, "durationEstimate").await,
        ["t3", "t2", "t0", "t1", "t4"]
    );
    assert_eq!(
        ordered(&app, "-durationEstimate").await,
        ["t2", "t3", "t0", "t1", "t4"]
    );
    assert_eq!(
        ordered(&app, "-dateDue,durationEstimate").await,
        ["t3", "t0", "t2", "t1", "t4"]
    );
    assert_eq!(
        ordered(&app, "name,-dateDue,isImportant").await,
        ["t2", "t1", "t3", "t0", "t4"]
    );
    assert_eq!(
        ordered(&app, "-sortOrder").await,
        ["t4", "t3", "t2", "t1", "t0"]
    );
    assert_eq!(ordered(&app, "sortOrder").await, find(&app, &[]).await);
    assert_eq!(
        ordered(&app, "createdAt").await,
        ["t0", "t1", "t2", "t3", "t4"]
    );
    assert_eq!(
        ordered(&app, "-versionUpdatedAt").await,
        ["t4", "t3", "t2", "t1", "t0"]
    );
    assert_eq!(ordered(&app, "-updatedAt,name").await.len(), 5);
}

#[actix_web::test]
async fn search_finds_word_prefixes_in_names_and_notes() {
    let app = spawn_app();
    tasks(
        &app,
        vec![
            json!({"name": "Buy milk", "notesMarkdown": "at the *Café*", "status": "open"}),
            json!({"name": "Crème brûlée", "notesMarkdown": null, "status": "open"}),
            json!({"name": "homemade", "notesMarkdown": "milkshake, buy"}),
            json!({"name": null, "notesMarkdown": "ΣΟΦΙΑ"}),
        ],
    )
    .await;
    let cases: &[(&str, &[&str])] = &[
        ("mil", &["t0", "t2"]),
        ("MILK", &["t0", "t2"]),
        ("cafe", &["t0"]),
        ("creme brul", &["t1"]),
        ("buy milk", &["t0", "t2"]),
        ("milk home", &["t2"]),
        ("ilk", &[]),
        ("made", &[]),
        ("σοφ", &["t3"]),
        ("", &["t0", "t1", "t2", "t3"]),
        (" ,;!? ", &["t0", "t1", "t2", "t3"]),
    ];
    for (q, expected) in cases {
        assert_eq!(find(&app, &[("q", q)]).await, strings(expected), "{q}");
    }
    assert_eq!(
        find(&app, &[("q", "buy"), ("filter", "name ~ \"milk\"")]).await,
        ["t0"]
    );
    assert_eq!(
        find(&app, &[("q", "mil"), ("status", "open")]).await,
        ["t0"]
    );
}

#[actix_web::test]
async fn a_cursor_belongs_to_its_filter_search_order_and_time_zone() {
    let app = spawn_app();
    let bodies = (0..6)
        .map(|n| json!({"name": format!("milk {n}"), "dateDue": format!("2030-01-0{}T00:00:00Z", n + 1)}))
        .collect();
    tasks(&app, bodies).await;
    let base = [
        ("filter", "dateDue > 2029-01-01"),
        ("q", "milk"),
        ("orderBy", "-dateDue"),
        ("tz", "Europe/Paris"),
    ];
    let first = app
        .get(&format!("/api/v1/tasks?limit=2&{}", query(&base)))
        .await;
    first.expect(200);
    assert_eq!(ids(&first), ["t5", "t4"]);
    let cursor = first.body["nextCursor"].as_str().unwrap().to_string();
    let next = |pairs: Vec<(&'static str, &'static str)>| next_page(&app, pairs, &cursor);
    let same = next(base.to_vec()).await;
    same.expect(200);
    assert_eq!(ids(&same), ["t3", "t2"]);
    for i in 0..base.len() {
        let mut changed = base.to_vec();
        changed[i].1 = match changed[i].0 {
            "filter" => "dateDue > 2029-01-02",
            "q" => "mil",
            "orderBy" => "-dateDue,name",
            _ => "UTC",
        };
        assert_problem(&next(changed).await, 400, "invalid_cursor");
        let mut dropped = base.to_vec();
        dropped.remove(i);
        assert_problem(&next(dropped).await, 400, "invalid_cursor");
    }
    // The same words make the same search.
    let mut respelled = base.to_vec();
    respelled[1].1 = "MILK!";
    next(respelled).await.expect(200);
}

#[actix_web::test]
async fn a_walk_keeps_its_now_and_skips_what_was_written_after_it_began() {
    let app = spawn_app();
    let now = Utc::now();
    let mut bodies: Vec<Value> = (0..6)
        .map(|n| json!({"dateDue": at(now - Duration::hours(6 - n))}))
        .collect();
    // Due in 1.5 s: not yet due when the walk begins.
    bodies.push(json!({"dateDue": at(now + Duration::milliseconds(1_500))}));
    tasks(&app, bodies).await;
    let pairs = [("filter", "dateDue < now"), ("orderBy", "-dateDue")];
    let first = app
        .get(&format!("/api/v1/tasks?limit=2&{}", query(&pairs)))
        .await;
    assert_eq!(ids(&first), ["t5", "t4"]);
    let mut cursor = first.body["nextCursor"].as_str().unwrap().to_string();
    std::thread::sleep(std::time::Duration::from_millis(1_600));
    // Written meanwhile: a task moved ahead of the walk's position, one moved behind it,
    // a new one and a deleted one.
    app.patch(
        "/api/v1/tasks/t3",
        json!({"dateDue": at(now - Duration::hours(7))}),
    )
    .await
    .expect(200);
    app.patch(
        "/api/v1/tasks/t4",
        json!({"dateDue": at(now - Duration::hours(8))}),
    )
    .await
    .expect(200);
    app.post(
        "/api/v1/tasks",
        json!({"todoId": "new", "dateDue": at(now - Duration::hours(9))}),
    )
    .await
    .expect(201);
    app.delete("/api/v1/tasks/t1").await.expect(200);
    let mut rest = Vec::new();
    loop {
        let page = app
            .get(&format!(
                "/api/v1/tasks?limit=2&{}",
                query(&[pairs[0], pairs[1], ("cursor", &cursor)])
            ))
            .await;
        page.expect(200);
        rest.extend(ids(&page));
        match page.body["nextCursor"].as_str() {
            Some(next) => cursor = next.to_string(),
            None => break,
        }
    }
    // t1 was deleted after the walk began, t3 and t4 changed: all three left out; t6
    // became due after the walk's now.
    assert_eq!(rest, ["t2", "t0"]);
    let again = find(&app, &pairs).await;
    assert_eq!(again, ["t6", "t5", "t2", "t0", "t3", "t4", "new"]);
}

// ---- the differential test ---------------------------------------------------------------

/// A small generator with a fixed seed (xorshift), so that every run tests the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A literal of the test's own expressions.
#[derive(Debug, Clone)]
enum Lit {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    /// An instant in ms, written as a date-time, or as `now`/`today` with an offset.
    Time(TimeLit),
}

#[derive(Debug, Clone)]
enum TimeLit {
    At(i64),
    Now(i64, char),
    Today(i64, char),
}

#[derive(Debug, Clone)]
enum Expr {
    Cmp(&'static str, &'static str, Lit),
    In(&'static str, bool, Vec<Lit>),
    Has(&'static str, String),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

const MINUTE: i64 = 60_000;
const UNIT_MS: [(char, i64); 4] = [
    ('m', MINUTE),
    ('h', 60 * MINUTE),
    ('d', 1_440 * MINUTE),
    ('w', 10_080 * MINUTE),
];

fn unit_ms(unit: char) -> i64 {
    UNIT_MS.iter().find(|(u, _)| *u == unit).unwrap().1
}

impl TimeLit {
    /// The instant, for a server whose `now` is `now` (UTC).
    fn at(&self, now: i64) -> i64 {
        let day = unit_ms('d');
        match self {
            TimeLit::At(ms) => *ms,
            TimeLit::Now(n, u) => now + n * unit_ms(*u),
            TimeLit::Today(n, u) => now.div_euclid(day) * day + n * unit_ms(*u),
        }
    }

    fn text(&self) -> String {
        let offset = |n: i64, u: char| match n {
            0 => String::new(),
            n if n > 0 => format!(" + {n}{u}"),
            n => format!("-{}{u}", -n),
        };
        match self {
            TimeLit::At(ms) => at(DateTime::from_timestamp_millis(*ms).unwrap()),
            TimeLit::Now(n, u) => format!("now{}", offset(*n, *u)),
            TimeLit::Today(n, u) => format!("today{}", offset(*n, *u)),
        }
    }
}

impl Lit {
    fn text(&self) -> String {
        match self {
            Lit::Null => "null".into(),
            Lit::Bool(b) => b.to_string(),
            Lit::Num(n) => n.to_string(),
            Lit::Str(s) => serde_json::to_string(s).unwrap(),
            Lit::Time(t) => t.text(),
        }
    }
}

impl Expr {
    fn text(&self) -> String {
        match self {
            Expr::Cmp(field, op, lit) => format!("{field} {op} {}", lit.text()),
            Expr::In(field, negated, lits) => {
                let list: Vec<String> = lits.iter().map(Lit::text).collect();
                let not = if *negated { "not " } else { "" };
                format!("{field} {not}in ({})", list.join(", "))
            }
            Expr::Has(field, id) => format!("{field} has {}", serde_json::to_string(id).unwrap()),
            Expr::Not(inner) => match **inner {
                Expr::And(_) | Expr::Or(_) => format!("!({})", inner.text()),
                _ => format!("!{}", inner.text()),
            },
            Expr::And(items) => items
                .iter()
                .map(|e| match e {
                    Expr::Or(_) => format!("({})", e.text()),
                    e => e.text(),
                })
                .collect::<Vec<_>>()
                .join(" && "),
            Expr::Or(items) => items.iter().map(Expr::text).collect::<Vec<_>>().join("||"),
        }
    }

    /// Whether `task` (as the server rendered it) passes, for a server whose `now` is
    /// `now`: the rules of §17, written out plainly.
    fn eval(&self, task: &Value, now: i64) -> bool {
        match self {
            Expr::Cmp(field, op, lit) => {
                let equal = |v: &Value| equals(v, lit, now);
                let v = &task[*field];
                match *op {
                    "=" => equal(v),
                    "!=" => !equal(v),
                    "~" => match (v, lit) {
                        (Value::String(s), Lit::Str(needle)) => {
                            s.to_lowercase().contains(&needle.to_lowercase())
                        }
                        _ => false,
                    },
                    op => match order(v, lit, now) {
                        Some(o) => match op {
                            "<" => o.is_lt(),
                            "<=" => o.is_le(),
                            ">" => o.is_gt(),
                            _ => o.is_ge(),
                        },
                        None => false,
                    },
                }
            }
            Expr::In(field, negated, lits) => {
                let hit = lits.iter().any(|l| equals(&task[*field], l, now));
                hit != *negated
            }
            Expr::Has(field, id) => task[*field]
                .as_array()
                .is_some_and(|ids| ids.iter().any(|i| i == id)),
            Expr::Not(inner) => !inner.eval(task, now),
            Expr::And(items) => items.iter().all(|e| e.eval(task, now)),
            Expr::Or(items) => items.iter().any(|e| e.eval(task, now)),
        }
    }
}

fn millis_of(v: &Value) -> Option<i64> {
    DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.timestamp_millis())
}

fn equals(v: &Value, lit: &Lit, now: i64) -> bool {
    match lit {
        Lit::Null => v.is_null(),
        Lit::Bool(b) => v.as_bool() == Some(*b),
        Lit::Num(n) => v.as_f64() == Some(*n),
        Lit::Str(s) => v.as_str() == Some(s),
        Lit::Time(t) => millis_of(v) == Some(t.at(now)),
    }
}

fn order(v: &Value, lit: &Lit, now: i64) -> Option<std::cmp::Ordering> {
    match lit {
        Lit::Num(n) => v.as_f64()?.partial_cmp(n),
        Lit::Str(s) => Some(v.as_str()?.cmp(s.as_str())),
        Lit::Time(t) => Some(millis_of(v)?.cmp(&t.at(now))),
        Lit::Null | Lit::Bool(_) => None,
    }
}

const NAMES: [&str; 9] = [
    "Café",
    "cafe",
    "ÉCOLE",
    "straße",
    "日本語",
    "milk",
    "Milk run",
    "",
    "Zoë",
];
const STATUSES: [&str; 4] = ["open", "done", "Done", "waiting"];
const TAGS: [&str; 3] = ["home", "work", "x"];

struct World {
    now: i64,
}

impl World {
    fn time(&self, rng: &mut Rng) -> i64 {
        // Within 20 days of now, on whole minutes now and then so that equality hits.
        let ms = self.now + (rng.below(40 * 1_440) as i64 - 20 * 1_440) * MINUTE;
        if rng.chance(50) {
            ms - ms.rem_euclid(MINUTE)
        } else {
            ms + rng.below(MINUTE as usize) as i64
        }
    }

    fn task(&self, rng: &mut Rng) -> Value {
        let mut body = json!({});
        if rng.chance(80) {
            body["name"] = json!(rng.pick(&NAMES));
        }
        body["status"] = json!(rng.pick(&STATUSES));
        if rng.chance(60) {
            body["durationEstimate"] = json!(rng.below(8) as f64 / 2.0);
        }
        if rng.chance(70) {
            body["dateDue"] = json!(at(DateTime::from_timestamp_millis(self.time(rng)).unwrap()));
        }
        body["isImportant"] = json!(rng.chance(40));
        let tags: Vec<&str> = TAGS.iter().copied().filter(|_| rng.chance(40)).collect();
        body["tagIds"] = json!(tags);
        body
    }

    fn time_lit(&self, rng: &mut Rng) -> TimeLit {
        let (unit, _) = *rng.pick(&UNIT_MS);
        let n = rng.below(7) as i64 - 3;
        match rng.below(3) {
            0 => TimeLit::At(self.time(rng)),
            1 => TimeLit::Now(n, unit),
            _ => TimeLit::Today(n, unit),
        }
    }

    fn lit(&self, rng: &mut Rng, field: &str) -> Lit {
        if rng.chance(10) {
            return Lit::Null;
        }
        match field {
            "name" => Lit::Str(rng.pick(&NAMES).to_string()),
            "status" => Lit::Str(rng.pick(&STATUSES).to_string()),
            "durationEstimate" => Lit::Num(rng.below(8) as f64 / 2.0),
            "isImportant" => Lit::Bool(rng.chance(50)),
            _ => Lit::Time(self.time_lit(rng)),
        }
    }

    fn comparison(&self, rng: &mut Rng) -> Expr {
        let field = *rng.pick(&[
            "name",
            "status",
            "durationEstimate",
            "isImportant",
            "dateDue",
            "tagIds",
        ]);
        if field == "tagIds" {
            return Expr::Has(field, rng.pick(&TAGS).to_string());
        }
        if rng.chance(20) {
            let lits = (0..1 + rng.below(3))
                .map(|_| self.lit(rng, field))
                .filter(|l| !matches!(l, Lit::Null))
                .collect::<Vec<_>>();
            if !lits.is_empty() && field != "isImportant" {
                return Expr::In(field, rng.chance(50), lits);
            }
        }
        let lit = self.lit(rng, field);
        let ops: &[&'static str] = match (&lit, field) {
            (Lit::Null, _) | (_, "isImportant") => &["=", "!="],
            (_, "name" | "status") => &["=", "!=", "<", "<=", ">", ">=", "~"],
            _ => &["=", "!=", "<", "<=", ">", ">="],
        };
        let op = *rng.pick(ops);
        // `~` wants a part of a name, not always the whole.
        let lit = match (op, lit) {
            ("~", Lit::Str(s)) => Lit::Str(s.chars().skip(1).take(3).collect()),
            (_, lit) => lit,
        };
        Expr::Cmp(field, op, lit)
    }

    fn expr(&self, rng: &mut Rng, depth: usize) -> Expr {
        if depth == 0 || rng.chance(35) {
            return self.comparison(rng);
        }
        match rng.below(3) {
            0 => Expr::Not(Box::new(self.expr(rng, depth - 1))),
            1 => Expr::And(
                (0..2 + rng.below(2))
                    .map(|_| self.expr(rng, depth - 1))
                    .collect(),
            ),
            _ => Expr::Or(
                (0..2 + rng.below(2))
                    .map(|_| self.expr(rng, depth - 1))
                    .collect(),
            ),
        }
    }
}

#[actix_web::test]
async fn random_filters_find_what_a_plain_evaluator_finds() {
    let app = spawn_app();
    let world = World {
        now: Utc::now().timestamp_millis(),
    };
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut stored = Vec::new();
    for n in 0..300 {
        let mut body = world.task(&mut rng);
        body["todoId"] = json!(format!("t{n:03}"));
        body["sortOrder"] = json!(n);
        stored.push(app.create("tasks", body).await);
    }
    for case in 0..300 {
        let expr = world.expr(&mut rng, 3);
        let text = expr.text();
        let expect = |now: i64| -> Vec<String> {
            stored
                .iter()
                .filter(|t| expr.eval(t, now))
                .map(|t| t["id"].as_str().unwrap().to_string())
                .collect()
        };
        let before = Utc::now().timestamp_millis();
        let path = format!("/api/v1/tasks?{}", query(&[("filter", &text)]));
        let found: Vec<String> = app
            .default_user()
            .list_all(&path, 100)
            .await
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect();
        let after = Utc::now().timestamp_millis();
        // The server's now is within [before, after]; a task on the edge of a relative
        // time may go either way.
        let (early, late) = (expect(before), expect(after));
        assert!(
            found == early || found == late,
            "case {case}: {text}\nserver {found:?}\nexpected {early:?}"
        );
    }
}

#[actix_web::test]
async fn the_time_fields_of_section_18_are_filtered_as_their_types_say() {
    let app = spawn_app();
    let due = at(Utc::now() + chrono::Duration::days(2));
    tasks(
        &app,
        vec![
            json!({"dateDue": due, "recurrence": "FREQ=WEEKLY", "timeZone": "Europe/Paris"}),
            json!({"dateDue": due, "reminders": [{"minutesBefore": 30}]}),
            json!({}),
        ],
    )
    .await;
    assert_eq!(filtered(&app, "recurrence != null").await, strings(&["t0"]));
    assert_eq!(
        filtered(&app, "timeZone = \"Europe/Paris\"").await,
        strings(&["t0"])
    );
    assert_eq!(
        filtered(&app, "remindedAt = null && completedCount = 0").await,
        strings(&["t0", "t1", "t2"])
    );
    assert_eq!(
        filtered(&app, "lastCompletedAt > today").await,
        strings(&[])
    );
    for (filter, position) in [
        ("reminders = null", 12),
        ("reminders has \"x\"", 14),
        ("completedCount = \"1\"", 17),
        ("remindedAt < 1", 13),
    ] {
        let reply = app
            .get(&format!("/api/v1/tasks?{}", query(&[("filter", filter)])))
            .await;
        assert_problem(&reply, 400, "invalid_filter");
        assert_eq!(
            reply.body["position"], position,
            "{filter}: {:#}",
            reply.body
        );
    }
}

/// `completedAt` (§20) is a date-time of the filter language: compared as an instant, and
/// null while a task is unfinished.
#[actix_web::test]
async fn completed_at_is_filtered_as_a_date_time() {
    let app = spawn_app();
    tasks(&app, vec![json!({}), json!({})]).await;
    let done = app
        .patch("/api/v1/tasks/t1", json!({"status": "done"}))
        .await;
    done.expect(200);
    let completed = done.data()["completedAt"].as_str().unwrap().to_owned();
    assert_eq!(
        filtered(&app, &format!("completedAt >= {completed}")).await,
        strings(&["t1"])
    );
    assert_eq!(
        filtered(&app, &format!("completedAt > {completed}")).await,
        strings(&[])
    );
    assert_eq!(filtered(&app, "completedAt = null").await, strings(&["t0"]));
}
