//! Listing: page size, parameters, filters, order, cursors and consistent walks
//! (docs §6).

use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, As, Reply, TestApp, KINDS};

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

/// The ids of every record of a listing, walked page by page.
async fn walk(user: As<'_>, path: &str, limit: u32) -> Vec<String> {
    user.list_all(path, limit)
        .await
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect()
}

/// The `nextCursor` of a page, which must be a string.
fn cursor(reply: &Reply) -> String {
    reply.body["nextCursor"]
        .as_str()
        .unwrap_or_else(|| panic!("no nextCursor in {:#}", reply.body))
        .to_string()
}

/// Creates `count` records in `collection` at once, with ids `{prefix}{n:03}` and sort
/// orders `n`, so that they list in id order.
async fn create_many(app: &TestApp, collection: &str, id_field: &str, prefix: &str, count: usize) {
    let path = format!("/api/v1/{collection}");
    let replies = join_all((0..count).map(|n| {
        app.post(
            &path,
            json!({ id_field: format!("{prefix}{n:03}"), "sortOrder": n }),
        )
    }))
    .await;
    for reply in replies {
        reply.expect(201);
    }
}

#[actix_web::test]
async fn the_default_page_size_is_50() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        create_many(&app, collection, id_field, "r", 51).await;
        let first = app.get(&format!("/api/v1/{collection}")).await;
        first.expect(200);
        assert_eq!(ids(&first).len(), 50, "{collection}");
        let second = app
            .get(&format!("/api/v1/{collection}?cursor={}", cursor(&first)))
            .await;
        assert_eq!(ids(&second).len(), 1, "{collection}");
        assert_eq!(second.body["nextCursor"], Value::Null);
    }
}

#[actix_web::test]
async fn limit_must_be_an_integer_from_1_to_100() {
    let app = spawn_app();
    create_many(&app, "tasks", "todoId", "t", 101).await;
    let one = app.get("/api/v1/tasks?limit=1").await;
    assert_eq!(ids(&one).len(), 1);
    let hundred = app.get("/api/v1/tasks?limit=100").await;
    assert_eq!(ids(&hundred).len(), 100);
    assert!(hundred.body["nextCursor"].is_string());
    for (collection, _) in KINDS {
        for bad in [
            "0",
            "101",
            "-1",
            "abc",
            "1.5",
            "",
            "1e1",
            "100000000000000000000",
        ] {
            let reply = app.get(&format!("/api/v1/{collection}?limit={bad}")).await;
            assert_problem(&reply, 400, "invalid_parameter");
        }
    }
}

#[actix_web::test]
async fn include_deleted_is_true_or_false() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        app.create(collection, json!({ id_field: "kept" })).await;
        app.create(collection, json!({ id_field: "gone" })).await;
        app.delete(&format!("{path}/gone")).await.expect(200);
        assert_eq!(ids(&app.get(&path).await), ["kept"]);
        assert_eq!(
            ids(&app.get(&format!("{path}?includeDeleted=false")).await),
            ["kept"]
        );
        let all = app.get(&format!("{path}?includeDeleted=true")).await;
        assert_eq!(ids(&all), ["kept", "gone"]);
        for bad in ["TRUE", "True", "1", "0", "yes", "", "null"] {
            let reply = app.get(&format!("{path}?includeDeleted={bad}")).await;
            assert_problem(&reply, 400, "invalid_parameter");
        }
    }
}

#[actix_web::test]
async fn task_filters_match_exactly_and_combine_with_and() {
    let app = spawn_app();
    for (collection, id_field, id) in [
        ("lists", "listId", "L1"),
        ("lists", "listId", "L2"),
        ("contexts", "contextId", "C1"),
        ("contexts", "contextId", "C2"),
    ] {
        app.create(collection, json!({ id_field: id })).await;
    }
    for (n, list, context, status) in [
        (1, json!("L1"), json!("C1"), json!("open")),
        (2, json!("L1"), json!("C2"), json!("open")),
        (3, json!("L2"), json!("C1"), json!("open")),
        (4, json!("L1"), json!("C1"), json!("done")),
        (5, json!(null), json!(null), json!(null)),
        (6, json!("L1"), json!("C1"), json!("open")),
        (7, json!("L1"), json!("C1"), json!("opened")),
        (8, json!("L1"), json!("C1"), json!("Open")),
    ] {
        app.create(
            "tasks",
            json!({
                "todoId": format!("t{n}"), "sortOrder": n,
                "listId": list, "contextId": context, "status": status,
            }),
        )
        .await;
    }
    app.delete("/api/v1/tasks/t6").await.expect(200);

    let cases: [(&str, &[&str]); 11] = [
        ("listId=L1", &["t1", "t2", "t4", "t7", "t8"]),
        ("listId=L1&contextId=C1", &["t1", "t4", "t7", "t8"]),
        ("listId=L1&contextId=C1&status=open", &["t1"]),
        ("status=open&contextId=C1&listId=L1", &["t1"]),
        ("status=open", &["t1", "t2", "t3"]),
        ("status=Open", &["t8"]),
        ("contextId=C2", &["t2"]),
        ("contextId=C1&listId=L2", &["t3"]),
        (
            "listId=L1&contextId=C1&status=open&includeDeleted=true",
            &["t1", "t6"],
        ),
        ("listId=nope", &[]),
        ("listId=L2&status=done", &[]),
    ];
    for (query, expected) in cases {
        let path = format!("/api/v1/tasks?{query}");
        assert_eq!(ids(&app.get(&path).await), expected, "{query}");
        assert_eq!(
            walk(app.default_user(), &path, 1).await,
            expected,
            "{query}, paged"
        );
    }
}

#[actix_web::test]
async fn records_are_ordered_by_sort_order_then_id_in_byte_order() {
    let app = spawn_app();
    let records: [(&str, f64); 12] = [
        ("b", 1.0),
        ("a", 1.0),
        ("B", 1.0),
        ("_", 1.0),
        ("-", 1.0),
        ("0", 1.0),
        ("z", -2.5),
        ("m", 1.5),
        ("Z", 100.0),
        ("aa", 1.0),
        ("a-", 1.0),
        ("A", 0.999),
    ];
    let mut expected = records.to_vec();
    expected.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.as_bytes().cmp(y.0.as_bytes())));
    let expected: Vec<&str> = expected.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        expected[..4],
        ["z", "A", "-", "0"],
        "the test's own expectation"
    );
    for (collection, id_field) in KINDS {
        for (id, sort_order) in records {
            app.create(collection, json!({ id_field: id, "sortOrder": sort_order }))
                .await;
        }
        let path = format!("/api/v1/{collection}");
        assert_eq!(ids(&app.get(&path).await), expected, "{collection}");
        assert_eq!(
            walk(app.default_user(), &path, 5).await,
            expected,
            "{collection}"
        );
    }
}

#[actix_web::test]
async fn an_exactly_full_last_page_has_a_null_next_cursor() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        create_many(&app, collection, id_field, "r", 4).await;
        let path = format!("/api/v1/{collection}");
        let whole = app.get(&format!("{path}?limit=4")).await;
        assert_eq!(ids(&whole).len(), 4);
        assert_eq!(whole.body["nextCursor"], Value::Null);
        let first = app.get(&format!("{path}?limit=2")).await;
        assert_eq!(ids(&first), ["r000", "r001"]);
        let second = app
            .get(&format!("{path}?limit=2&cursor={}", cursor(&first)))
            .await;
        assert_eq!(ids(&second), ["r002", "r003"]);
        assert_eq!(second.body["nextCursor"], Value::Null);
        let three = app.get(&format!("{path}?limit=3")).await;
        assert!(three.body["nextCursor"].is_string());
    }
}

#[actix_web::test]
async fn every_listing_has_a_next_cursor_field() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        let empty = app.get(&path).await;
        assert!(empty.body.as_object().unwrap().contains_key("nextCursor"));
        assert_eq!(empty.body["nextCursor"], Value::Null);
        create_many(&app, collection, id_field, "r", 3).await;
        for limit in [1, 2, 3, 50] {
            let page = app.get(&format!("{path}?limit={limit}")).await;
            let body = page.body.as_object().unwrap();
            assert!(body.contains_key("nextCursor"), "{page:?}");
            assert_eq!(body["nextCursor"].is_string(), limit < 3);
        }
    }
}

#[actix_web::test]
async fn walking_every_page_returns_each_record_once_even_when_the_limit_changes() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        create_many(&app, collection, id_field, "r", 23).await;
        let expected: Vec<String> = (0..23).map(|n| format!("r{n:03}")).collect();
        let path = format!("/api/v1/{collection}");
        for limit in [1, 5, 22, 23] {
            assert_eq!(walk(app.default_user(), &path, limit).await, expected);
        }
        let mut seen = Vec::new();
        let mut next: Option<String> = None;
        for limit in [5, 7, 1, 3, 100].into_iter().cycle() {
            let url = match &next {
                Some(cursor) => format!("{path}?limit={limit}&cursor={cursor}"),
                None => format!("{path}?limit={limit}"),
            };
            let page = app.get(&url).await;
            page.expect(200);
            seen.extend(ids(&page));
            match page.body["nextCursor"].as_str() {
                Some(cursor) => next = Some(cursor.to_string()),
                None => break,
            }
        }
        assert_eq!(seen, expected, "{collection}");
    }
}

#[actix_web::test]
async fn a_garbled_cursor_is_400_invalid_cursor() {
    let app = spawn_app();
    create_many(&app, "tasks", "todoId", "t", 5).await;
    let real = cursor(&app.get("/api/v1/tasks?limit=2").await);
    let mut flipped: Vec<char> = real.chars().collect();
    let middle = flipped.len() / 2;
    flipped[middle] = if flipped[middle] == 'A' { 'B' } else { 'A' };
    let flipped: String = flipped.into_iter().collect();
    let garbled = [
        "garbage".to_string(),
        "AAAA".to_string(),
        flipped,
        real[..real.len() - 2].to_string(),
        format!("{real}AA"),
        "A".repeat(5000),
        "%FF%FE".to_string(),
    ];
    for (collection, _) in KINDS {
        for bad in &garbled {
            let reply = app
                .get(&format!("/api/v1/{collection}?limit=2&cursor={bad}"))
                .await;
            assert_problem(&reply, 400, "invalid_cursor");
        }
    }
    // The real one still works.
    app.get(&format!("/api/v1/tasks?limit=2&cursor={real}"))
        .await
        .expect(200);
}

#[actix_web::test]
async fn a_cursor_used_with_another_query_is_400_invalid_cursor() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "L1"})).await;
    app.create("lists", json!({"listId": "L2"})).await;
    for (collection, id_field) in KINDS {
        create_many(&app, collection, id_field, "r", 5).await;
    }
    for n in 0..5 {
        app.create(
            "tasks",
            json!({"listId": "L1", "status": "open", "todoId": format!("f{n}")}),
        )
        .await;
    }
    let plain = cursor(&app.get("/api/v1/tasks?limit=2").await);
    let filtered = cursor(&app.get("/api/v1/tasks?limit=2&listId=L1").await);
    let deleted = cursor(&app.get("/api/v1/tasks?limit=2&includeDeleted=true").await);
    let mismatches = [
        format!("/api/v1/tasks?cursor={plain}&listId=L1"),
        format!("/api/v1/tasks?cursor={plain}&status=open"),
        format!("/api/v1/tasks?cursor={plain}&includeDeleted=true"),
        format!("/api/v1/tasks?cursor={filtered}"),
        format!("/api/v1/tasks?cursor={filtered}&listId=L2"),
        format!("/api/v1/tasks?cursor={filtered}&listId=L1&status=open"),
        format!("/api/v1/tasks?cursor={filtered}&listId=L1&includeDeleted=true"),
        format!("/api/v1/tasks?cursor={deleted}"),
        format!("/api/v1/tasks?cursor={deleted}&includeDeleted=false"),
        format!("/api/v1/lists?cursor={plain}"),
        format!("/api/v1/schedules?cursor={plain}"),
        format!("/api/v1/categories?cursor={plain}"),
        format!("/api/v1/contexts?cursor={plain}"),
    ];
    for path in &mismatches {
        assert_problem(&app.get(path).await, 400, "invalid_cursor");
    }
    // The same query with another limit is fine, and unknown parameters do not matter.
    for path in [
        format!("/api/v1/tasks?cursor={plain}&limit=3"),
        format!("/api/v1/tasks?cursor={plain}&includeDeleted=false&foo=bar"),
        format!("/api/v1/tasks?cursor={filtered}&listId=L1&limit=1"),
        format!("/api/v1/tasks?cursor={deleted}&includeDeleted=true"),
    ] {
        app.get(&path).await.expect(200);
    }

    // A cursor belongs to its space.
    let alice = app.create_user("alice").await;
    let as_alice = app.user(&alice.token);
    create_many_as(as_alice, 3).await;
    let hers = cursor(&as_alice.get("/api/v1/tasks?limit=1").await);
    assert_problem(
        &app.get(&format!("/api/v1/tasks?limit=1&cursor={hers}"))
            .await,
        400,
        "invalid_cursor",
    );
    assert_problem(
        &as_alice
            .get(&format!("/api/v1/tasks?limit=1&cursor={plain}"))
            .await,
        400,
        "invalid_cursor",
    );
    let space = &alice.default_space_id;
    as_alice
        .get(&format!(
            "/api/v1/tasks?limit=1&cursor={hers}&spaceId={space}"
        ))
        .await
        .expect(200);
}

async fn create_many_as(user: As<'_>, count: usize) {
    for _ in 0..count {
        user.create("tasks", json!({})).await;
    }
}

#[actix_web::test]
async fn a_walk_leaves_out_what_changed_after_it_began_and_skips_nothing_unchanged() {
    for include_deleted in [false, true] {
        let app = spawn_app();
        for n in 1..=10 {
            app.create(
                "tasks",
                json!({"todoId": format!("t{n:02}"), "sortOrder": n}),
            )
            .await;
        }
        let path = format!("/api/v1/tasks?includeDeleted={include_deleted}");
        let first = app.get(&format!("{path}&limit=3")).await;
        assert_eq!(ids(&first), ["t01", "t02", "t03"]);
        let mut next = cursor(&first);

        // While the walk is under way: change records before and after its position,
        // move one already seen to the end and one not yet seen to the front, delete one,
        // and create two.
        app.patch("/api/v1/tasks/t05", json!({"name": "changed"}))
            .await
            .expect(200);
        app.post("/api/v1/tasks", json!({"todoId": "new1", "sortOrder": 4.5}))
            .await
            .expect(201);
        app.post("/api/v1/tasks", json!({"todoId": "new2", "sortOrder": 0}))
            .await
            .expect(201);
        app.delete("/api/v1/tasks/t07").await.expect(200);
        app.patch("/api/v1/tasks/t02", json!({"sortOrder": 9.5}))
            .await
            .expect(200);
        app.patch("/api/v1/tasks/t09", json!({"sortOrder": 0.5}))
            .await
            .expect(200);

        let mut rest = Vec::new();
        loop {
            let page = app.get(&format!("{path}&limit=3&cursor={next}")).await;
            page.expect(200);
            assert_eq!(page.version(), app.space_version().await);
            rest.extend(ids(&page));
            match page.body["nextCursor"].as_str() {
                Some(cursor) => next = cursor.to_string(),
                None => break,
            }
        }
        assert_eq!(
            rest,
            ["t04", "t06", "t08", "t10"],
            "includeDeleted={include_deleted}"
        );

        // A new walk catches up on the changes.
        let mut expected = vec!["new2", "t09", "t01", "t03", "t04", "new1", "t05", "t06"];
        if include_deleted {
            expected.push("t07");
        }
        expected.extend(["t08", "t02", "t10"]);
        assert_eq!(walk(app.default_user(), &path, 4).await, expected);
    }
}

#[actix_web::test]
async fn a_page_is_empty_with_a_null_cursor_when_everything_left_has_changed() {
    let app = spawn_app();
    for n in 1..=4 {
        app.create("contexts", json!({"contextId": format!("c{n}")}))
            .await;
    }
    let first = app.get("/api/v1/contexts?limit=3").await;
    assert_eq!(ids(&first), ["c1", "c2", "c3"]);
    app.patch("/api/v1/contexts/c4", json!({"name": "changed"}))
        .await
        .expect(200);
    let second = app
        .get(&format!(
            "/api/v1/contexts?limit=3&cursor={}",
            cursor(&first)
        ))
        .await;
    second.expect(200);
    assert_eq!(ids(&second), Vec::<String>::new());
    assert_eq!(second.body["nextCursor"], Value::Null);
}

#[actix_web::test]
async fn unknown_query_parameters_are_ignored() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        create_many(&app, collection, id_field, "r", 3).await;
        let path = format!("/api/v1/{collection}");
        let plain = app.get(&format!("{path}?limit=2")).await;
        let noisy = app
            .get(&format!(
                "{path}?limit=2&foo=bar&sort=desc&page=3&Limit=1&listid=x"
            ))
            .await;
        noisy.expect(200);
        assert_eq!(noisy.data(), plain.data());
        assert!(noisy.body["nextCursor"].is_string());
    }
    // Task filters mean nothing to the other collections.
    let lists = app.get("/api/v1/lists?status=open&contextId=x").await;
    assert_eq!(ids(&lists).len(), 3);
    let created = app.post("/api/v1/contexts?foo=bar", json!({})).await;
    created.expect(201);
}
