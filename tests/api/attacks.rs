//! The adversarial suite (issue 37, docs §27): what one ordinary account tried in order to
//! hold the server, each answered with a clear refusal or a bounded answer. Where a case is
//! a stall for other accounts, `benches/` measures their latency (`dav_isolation`).

use actix_web::http::Method;
use base64::Engine;
use serde_json::json;

use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app, TestApp};

/// `Authorization: Basic` with `token` as the password.
fn basic(token: &str) -> String {
    let pair = format!("someone:{token}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// The default user's default calendar.
async fn calendar(app: &TestApp) -> String {
    let me = app.get("/api/v1/me").await;
    format!(
        "/dav/calendars/{}/{}/",
        me.data()["userId"].as_str().unwrap(),
        me.data()["defaultSpaceId"].as_str().unwrap()
    )
}

/// A `REPORT` of `body` on `path`.
async fn report(app: &TestApp, path: &str, body: String) -> crate::helpers::Reply {
    let request = app
        .request(Method::from_bytes(b"REPORT").unwrap(), path)
        .insert_header(("Authorization", basic(&app.default_token)))
        .insert_header(("Content-Type", "application/xml"))
        .insert_header(("Depth", "1"));
    app.send(request, Some(body.into_bytes())).await
}

/// A `calendar-multiget` of `hrefs` asking for `calendar-data`.
fn multiget(hrefs: &[String]) -> String {
    let hrefs: String = hrefs
        .iter()
        .map(|h| format!("<d:href>{h}</d:href>"))
        .collect();
    format!(
        r#"<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
        <d:prop><d:getetag/><c:calendar-data/></d:prop>{hrefs}</c:calendar-multiget>"#
    )
}

#[actix_web::test]
async fn a_multiget_answers_a_repeated_href_once_and_refuses_over_1000() {
    let app = spawn_app();
    let calendar = calendar(&app).await;
    let notes = "n".repeat(100_000);
    app.create(
        "tasks",
        json!({"todoId": "big", "name": "big", "notesMarkdown": notes}),
    )
    .await;
    // One large object named 1,500 times: one answer of it, not 1,500.
    let same = vec![format!("{calendar}big.ics"); 1_500];
    let reply = report(&app, &calendar, multiget(&same)).await;
    assert_eq!(reply.status, 207);
    let text = reply.body.as_str().unwrap();
    assert_eq!(text.matches("<d:response>").count(), 1, "one response");
    assert!(text.len() < 200_000, "{} bytes", text.len());
    // 1,001 distinct hrefs: 400, whatever they name.
    let distinct: Vec<String> = (0..1_001).map(|i| format!("{calendar}t{i}.ics")).collect();
    let refused = report(&app, &calendar, multiget(&distinct)).await;
    assert_eq!(refused.status, 400, "{refused:?}");
}

#[actix_web::test]
async fn an_xml_body_nested_past_64_elements_is_400() {
    let app = spawn_app();
    let calendar = calendar(&app).await;
    let mut body = String::from(
        r#"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><c:filter>"#,
    );
    body.push_str(&"<c:a>".repeat(52_000));
    body.push_str(&"</c:a>".repeat(52_000));
    body.push_str("</c:filter></c:calendar-query>");
    let reply = report(&app, &calendar, body).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert!(reply.body.as_str().unwrap().contains("deeper than 64"));
}

#[actix_web::test]
async fn a_boolean_takes_only_equal_and_not_equal_in_a_filter() {
    let app = spawn_app();
    for filter in [
        "isImportant%20in%20(true)",
        "isDeleted%20not%20in%20(false)",
    ] {
        let reply = app.get(&format!("/api/v1/tasks?filter={filter}")).await;
        assert_problem(&reply, 400, "invalid_filter");
    }
    app.get("/api/v1/tasks?filter=isImportant%20%3D%20true")
        .await
        .expect(200);
}

/// The rule of issue 37: a year of every second of every day (31.6 million candidates).
fn endless_rule() -> String {
    let list = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    format!(
        "FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR={};BYMINUTE={};BYSECOND={}",
        list(24),
        list(60),
        list(60)
    )
}

#[actix_web::test]
async fn a_rule_too_dear_to_expand_is_refused_at_every_door() {
    let app = spawn_app();
    let rule = endless_rule();
    let due = "2030-01-01T00:00:00.000Z";
    // JSON: create and update.
    let reply = app
        .post("/api/v1/tasks", json!({"dateDue": due, "recurrence": rule}))
        .await;
    assert_invalid_fields(&reply, &["recurrence"]);
    app.create("tasks", json!({"todoId": "t1", "dateDue": due}))
        .await;
    let reply = app
        .patch("/api/v1/tasks/t1", json!({"recurrence": rule}))
        .await;
    assert_invalid_fields(&reply, &["recurrence"]);
    // iCalendar: the .ics import and a CalDAV PUT.
    let vtodo = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:t2\r\n\
         DTSTAMP:20260101T000000Z\r\nDUE:20300101T000000Z\r\nRRULE:{rule}\r\nEND:VTODO\r\n\
         END:VCALENDAR\r\n"
    );
    let import = app
        .authorized(Method::POST, "/api/v1/calendar.ics")
        .insert_header(("Content-Type", "text/calendar"));
    let reply = app.send(import, Some(vtodo.clone().into_bytes())).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let object = format!("{}t2.ics", calendar(&app).await);
    let put = app
        .request(Method::PUT, &object)
        .insert_header(("Authorization", basic(&app.default_token)))
        .insert_header(("Content-Type", "text/calendar"));
    let reply = app.send(put, Some(vtodo.into_bytes())).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_eq!(app.space_version().await, 1, "only t1 was written");
}

#[actix_web::test]
async fn the_icalendar_doors_refuse_the_rules_the_json_api_refuses_and_keep_them_as_sent() {
    let app = spawn_app();
    let object = format!("{}t1.ics", calendar(&app).await);
    let vtodo = |rule: &str| {
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:t1\r\n\
             DTSTAMP:20260101T000000Z\r\nDUE:20300101T090000Z\r\nRRULE:{rule}\r\nEND:VTODO\r\n\
             END:VCALENDAR\r\n"
        )
    };
    for rule in [
        "FREQ=DAILY;COUNT=0",
        "FREQ=DAILY;INTERVAL=0",
        "FREQ=WEEKLY;BYDAY=MO;BYDAY=TU",
    ] {
        let json = app
            .post(
                "/api/v1/tasks",
                json!({"dateDue": "2030-01-01T09:00:00Z", "recurrence": rule}),
            )
            .await;
        assert_invalid_fields(&json, &["recurrence"]);
        let import = app
            .authorized(Method::POST, "/api/v1/calendar.ics")
            .insert_header(("Content-Type", "text/calendar"));
        let imported = app.send(import, Some(vtodo(rule).into_bytes())).await;
        assert_eq!(imported.status, 400, "import of {rule}: {imported:?}");
        let put = app
            .request(Method::PUT, &object)
            .insert_header(("Authorization", basic(&app.default_token)))
            .insert_header(("Content-Type", "text/calendar"));
        let put = app.send(put, Some(vtodo(rule).into_bytes())).await;
        assert_eq!(put.status, 400, "PUT of {rule}: {put:?}");
    }
    assert_eq!(app.space_version().await, 0, "nothing was written");
    // A rule the JSON API takes is stored as sent, its case and order kept.
    let put = app
        .request(Method::PUT, &object)
        .insert_header(("Authorization", basic(&app.default_token)))
        .insert_header(("Content-Type", "text/calendar"));
    let sent = "freq=weekly;byday=MO;interval=2";
    let put = app.send(put, Some(vtodo(sent).into_bytes())).await;
    assert_eq!(put.status, 201, "{put:?}");
    assert_eq!(app.get("/api/v1/tasks/t1").await.data()["recurrence"], sent);
}

/// A part-5 defect: RFC 5545's fifth-last weekday of a month was refused (docs §27).
#[actix_web::test]
async fn byday_ordinals_reach_minus_5_in_a_month_and_minus_53_in_a_year() {
    let app = spawn_app();
    for (id, rule) in [
        ("a", "FREQ=MONTHLY;BYDAY=-5TH,3SU;INTERVAL=2"),
        ("b", "FREQ=MONTHLY;BYDAY=5MO,-5TU;COUNT=1"),
        ("c", "FREQ=YEARLY;BYDAY=-53MO;COUNT=3"),
    ] {
        let reply = app
            .post(
                "/api/v1/tasks",
                json!({"todoId": id, "dateDue": "2026-01-01T09:00:00Z", "recurrence": rule}),
            )
            .await;
        reply.expect(201);
        assert_eq!(reply.data()["recurrence"], rule);
    }
    let reply = app.get("/api/v1/tasks/a/occurrences?limit=3").await;
    reply.expect(200);
    let dues: Vec<&str> = reply
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["dateDue"].as_str().unwrap())
        .collect();
    assert_eq!(
        dues,
        [
            "2026-01-01T09:00:00.000Z",
            "2026-01-18T09:00:00.000Z",
            "2026-03-15T09:00:00.000Z"
        ]
    );
    for rule in ["FREQ=MONTHLY;BYDAY=-6TH", "FREQ=YEARLY;BYDAY=-54TH"] {
        let reply = app
            .post(
                "/api/v1/tasks",
                json!({"dateDue": "2026-01-01T09:00:00Z", "recurrence": rule}),
            )
            .await;
        assert_invalid_fields(&reply, &["recurrence"]);
    }
}
