//! iCalendar (docs §20) over HTTP: `GET` and `POST /api/v1/calendar.ics`, the VTODO
//! mapping both ways, unknown properties round trip, all-or-nothing imports, roles, and
//! `completedAt` on the JSON API.

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app, Reply, TestApp};

/// `lines` as one VCALENDAR.
fn calendar(lines: &str) -> String {
    format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{lines}END:VCALENDAR\r\n")
}

/// `POST /api/v1/calendar.ics{query}` of `body` as `token`.
async fn import_as(app: &TestApp, token: &str, query: &str, body: &str) -> Reply {
    let request = app
        .request(Method::POST, &format!("/api/v1/calendar.ics{query}"))
        .insert_header(("Authorization", format!("Bearer {token}")))
        .insert_header(("Content-Type", "text/calendar"));
    app.send(request, Some(body.as_bytes().to_vec())).await
}

async fn import(app: &TestApp, body: &str) -> Reply {
    import_as(app, &app.default_token, "", body).await
}

/// The export of the default space (`query` after `?spaceId=…` when given), as text.
async fn export(app: &TestApp, query: &str) -> String {
    let reply = app.get(&format!("/api/v1/calendar.ics{query}")).await;
    reply.expect(200);
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/calendar")),
        "{:?}",
        reply.headers
    );
    reply.body.as_str().expect("a text body").to_owned()
}

async fn task(app: &TestApp, id: &str) -> Value {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data().clone()
}

/// The one VTODO of `text` whose UID is `uid`, as its content lines.
fn vtodo<'a>(text: &'a str, uid: &str) -> &'a str {
    text.split("BEGIN:VTODO\r\n")
        .skip(1)
        .map(|t| t.split("END:VTODO\r\n").next().unwrap())
        .find(|t| t.contains(&format!("UID:{uid}\r\n")))
        .unwrap_or_else(|| panic!("no VTODO {uid} in {text}"))
}

#[actix_web::test]
async fn a_json_task_is_exported_as_a_vtodo_with_every_mapped_field() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "first"})).await;
    app.create(
        "tasks",
        json!({
            "todoId": "t1", "name": "Pay rent", "notesMarkdown": "by *transfer*",
            "dateDue": "2030-01-02T08:00:00.000Z", "timeZone": "Europe/Paris",
            "isImportant": true, "tagIds": ["home"], "recurrence": "FREQ=MONTHLY",
            "reminders": [{"minutesBefore": 30}], "predecessorIds": ["first"],
            "status": "in-progress"
        }),
    )
    .await;
    let text = export(&app, "").await;
    assert!(text.starts_with("BEGIN:VCALENDAR\r\n"), "{text}");
    assert!(
        text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n"),
        "{text}"
    );
    let t1 = vtodo(&text, "t1");
    for line in [
        "SUMMARY:Pay rent\r\n",
        "DESCRIPTION:by *transfer*\r\n",
        "DUE;TZID=Europe/Paris:20300102T090000\r\n",
        "STATUS:IN-PROCESS\r\n",
        "PRIORITY:1\r\n",
        "CATEGORIES:home\r\n",
        "RRULE:FREQ=MONTHLY\r\n",
        "RELATED-TO;RELTYPE=DEPENDS-ON:first\r\n",
        "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT30M\r\n",
        "SEQUENCE:",
        "DTSTAMP:",
        "CREATED:",
        "LAST-MODIFIED:",
    ] {
        assert!(t1.contains(line), "{line:?} not in {t1}");
    }
}

#[actix_web::test]
async fn an_import_creates_tasks_by_uid_and_a_second_one_updates_them() {
    let app = spawn_app();
    let body = calendar(
        "BEGIN:VTODO\r\nUID:buy-milk\r\nSUMMARY:Buy milk\r\nPRIORITY:7\r\n\
         CATEGORIES:errands,Corner shop\r\nDUE;VALUE=DATE:20300105\r\nEND:VTODO\r\n\
         BEGIN:VTODO\r\nUID:x@client.example\r\nSUMMARY:Call\r\nSTATUS:COMPLETED\r\n\
         COMPLETED:20300101T100000Z\r\nEND:VTODO\r\n\
         BEGIN:VEVENT\r\nUID:ev\r\nSUMMARY:A meeting\r\nEND:VEVENT\r\n",
    );
    let reply = import(&app, &body).await;
    reply.expect(200);
    assert_eq!(reply.body["created"], 2);
    assert_eq!(reply.body["updated"], 0);
    assert_eq!(reply.body["skipped"], 1);
    assert_eq!(reply.version(), app.space_version().await);
    let milk = task(&app, "buy-milk").await;
    assert_eq!(milk["name"], "Buy milk");
    assert_eq!(milk["isImportant"], false);
    assert_eq!(milk["isAllDay"], true);
    assert_eq!(milk["tagIds"], json!(["errands"]));
    assert_eq!(milk["dateDue"], "2030-01-05T00:00:00.000Z");
    assert_eq!(milk["completedAt"], Value::Null);
    // A UID without the id shape gets a new todoId and is sent back as it came.
    let tasks = app
        .get("/api/v1/tasks?filter=name%20%3D%20%22Call%22")
        .await;
    let call = tasks.data()[0].clone();
    assert_ne!(call["todoId"], "x@client.example");
    assert_eq!(call["status"], "done");
    assert_eq!(call["completedAt"], "2030-01-01T10:00:00.000Z");
    let text = export(&app, "").await;
    let milk_out = vtodo(&text, "buy-milk");
    assert!(milk_out.contains("PRIORITY:7\r\n"), "{milk_out}");
    assert!(
        milk_out.contains("CATEGORIES:errands,Corner shop\r\n"),
        "{milk_out}"
    );
    assert!(
        milk_out.contains("DUE;VALUE=DATE:20300105\r\n"),
        "{milk_out}"
    );
    let call_out = vtodo(&text, "x@client.example");
    assert!(
        call_out.contains("COMPLETED:20300101T100000Z\r\n"),
        "{call_out}"
    );
    // The same UIDs again update the same tasks.
    let again = calendar(
        "BEGIN:VTODO\r\nUID:buy-milk\r\nSUMMARY:Buy oat milk\r\nPRIORITY:2\r\nEND:VTODO\r\n",
    );
    let reply = import(&app, &again).await;
    reply.expect(200);
    assert_eq!(
        (reply.body["created"].clone(), reply.body["updated"].clone()),
        (json!(0), json!(1))
    );
    let milk = task(&app, "buy-milk").await;
    assert_eq!(milk["name"], "Buy oat milk");
    assert_eq!(milk["isImportant"], true);
    assert_eq!(milk["dateDue"], Value::Null);
}

#[actix_web::test]
async fn unknown_properties_and_components_come_back_byte_for_byte() {
    let app = spawn_app();
    let unknown = "X-APPLE-SORT-ORDER:123\r\n\
        PERCENT-COMPLETE:40\r\n\
        X-CUSTOM;X-PARAM=\"a:b\":Gr\u{fc}\u{df}e\\, Welt\r\n\
        ATTACH;FMTTYPE=text/plain:https://example.com/a.txt\r\n\
        RELATED-TO;RELTYPE=PARENT:parent@client\r\n\
        BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n";
    let body = calendar(&format!(
        "BEGIN:VTODO\r\nUID:u1\r\nSUMMARY:kept\r\n{unknown}END:VTODO\r\n"
    ));
    import(&app, &body).await.expect(200);
    // A JSON write in between changes none of it.
    app.patch(
        "/api/v1/tasks/u1",
        json!({"name": "renamed", "isImportant": true}),
    )
    .await
    .expect(200);
    let text = export(&app, "").await;
    let out = vtodo(&text, "u1");
    for line in unknown.split_inclusive("\r\n") {
        assert!(out.contains(line), "{line:?} not in {out}");
    }
    assert!(
        out.contains("SUMMARY:renamed\r\n") && out.contains("PRIORITY:1\r\n"),
        "{out}"
    );
    // The JSON API shows none of it.
    let task = task(&app, "u1").await;
    assert!(task.get("calendar").is_none(), "{task}");
}

#[actix_web::test]
async fn an_import_is_all_or_nothing() {
    let app = spawn_app();
    let before = app.space_version().await;
    let body = calendar(&format!(
        "BEGIN:VTODO\r\nUID:ok\r\nSUMMARY:fine\r\nEND:VTODO\r\n\
         BEGIN:VTODO\r\nUID:bad\r\nSUMMARY:{}\r\nEND:VTODO\r\n",
        "n".repeat(1001)
    ));
    let reply = import(&app, &body).await;
    assert_invalid_fields(&reply, &["bad.name"]);
    // A predecessor the space does not have fails in the space: nothing is written either.
    let body = calendar(
        "BEGIN:VTODO\r\nUID:ok\r\nEND:VTODO\r\n\
         BEGIN:VTODO\r\nUID:late\r\nRELATED-TO;RELTYPE=DEPENDS-ON:nowhere\r\nEND:VTODO\r\n",
    );
    let reply = import(&app, &body).await;
    assert!(reply.status >= 400, "{reply:?}");
    assert_eq!(app.space_version().await, before);
    app.get("/api/v1/tasks/ok").await.expect(404);
    let twice =
        calendar("BEGIN:VTODO\r\nUID:a\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:a\r\nEND:VTODO\r\n");
    assert_invalid_fields(&import(&app, &twice).await, &["body"]);
    assert_invalid_fields(&import(&app, "not a calendar").await, &["body"]);
    assert_eq!(app.space_version().await, before);
}

#[actix_web::test]
async fn predecessors_in_the_same_import_are_made_first_and_each_task_takes_one_version() {
    let app = spawn_app();
    let before = app.space_version().await;
    let body = calendar(
        "BEGIN:VTODO\r\nUID:second\r\nRELATED-TO;RELTYPE=DEPENDS-ON:first\r\nEND:VTODO\r\n\
         BEGIN:VTODO\r\nUID:first\r\nEND:VTODO\r\n",
    );
    let reply = import(&app, &body).await;
    reply.expect(200);
    assert_eq!(reply.version(), before + 2);
    let second = task(&app, "second").await;
    assert_eq!(second["predecessorIds"], json!(["first"]));
    assert_eq!(second["isBlocked"], true);
    // A long chain, each VTODO before the one it depends on.
    let chain: String = (1..300)
        .map(|i| {
            format!(
                "BEGIN:VTODO\r\nUID:c{i}\r\nRELATED-TO;RELTYPE=DEPENDS-ON:c{}\r\nEND:VTODO\r\n",
                i - 1
            )
        })
        .chain(["BEGIN:VTODO\r\nUID:c0\r\nEND:VTODO\r\n".to_owned()])
        .collect();
    let reply = import(&app, &calendar(&chain)).await;
    reply.expect(200);
    assert_eq!(reply.body["created"], 300);
    assert_eq!(task(&app, "c299").await["predecessorIds"], json!(["c298"]));
}

#[actix_web::test]
async fn an_import_into_a_list_puts_the_tasks_there_and_an_export_of_a_list_shows_only_it() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "work"})).await;
    app.create("tasks", json!({"todoId": "elsewhere"})).await;
    let body = calendar("BEGIN:VTODO\r\nUID:in-work\r\nEND:VTODO\r\n");
    import_as(&app, &app.default_token, "?listId=work", &body)
        .await
        .expect(200);
    assert_eq!(task(&app, "in-work").await["listId"], "work");
    let text = export(&app, "?listId=work").await;
    assert!(
        text.contains("UID:in-work\r\n") && !text.contains("UID:elsewhere"),
        "{text}"
    );
    let bad = app.get("/api/v1/calendar.ics?listId=not%20an%20id").await;
    assert_problem(&bad, 400, "invalid_parameter");
}

#[actix_web::test]
async fn completed_at_follows_status_on_the_json_api() {
    let app = spawn_app();
    let created = app.create("tasks", json!({"todoId": "c"})).await;
    assert_eq!(created["completedAt"], Value::Null);
    let done = app
        .patch("/api/v1/tasks/c", json!({"status": "done"}))
        .await;
    done.expect(200);
    let at = done.data()["completedAt"].as_str().unwrap().to_owned();
    assert_eq!(at, done.data()["updatedAt"].as_str().unwrap());
    let reply = app
        .patch("/api/v1/tasks/c", json!({"completedAt": at}))
        .await;
    assert_invalid_fields(&reply, &["completedAt"]);
    let reopened = app
        .patch("/api/v1/tasks/c", json!({"status": "open"}))
        .await;
    assert_eq!(reopened.data()["completedAt"], Value::Null);
}

#[actix_web::test]
async fn reads_and_writes_follow_roles_and_token_access() {
    let app = spawn_app();
    let token = app
        .post("/api/v1/tokens", json!({"name": "read", "access": "read"}))
        .await;
    token.expect(201);
    let read = token.data()["token"].as_str().unwrap().to_owned();
    let body = calendar("BEGIN:VTODO\r\nUID:r\r\nEND:VTODO\r\n");
    assert_problem(&import_as(&app, &read, "", &body).await, 403, "forbidden");
    let exported = app
        .call(Method::GET, "/api/v1/calendar.ics", &read, None)
        .await;
    exported.expect(200);
    let stranger = app.create_user("stranger").await;
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/v1/calendar.ics?spaceId={space}");
    let other = app.call(Method::GET, &path, &stranger.token, None).await;
    assert_problem(&other, 404, "not_found");
    let unauthenticated = app
        .send(app.request(Method::GET, "/api/v1/calendar.ics"), None)
        .await;
    assert_problem(&unauthenticated, 401, "unauthorized");
    let json_body = app
        .send_with(Method::POST, "/api/v1/calendar.ics", Some(&json!({})), &[])
        .await;
    assert_problem(&json_body, 415, "unsupported_media_type");
}
