//! Views (docs §24): saved queries as records of their own kind, the task listing through
//! `?viewId=`, and live views as server-sent events.

use std::time::Duration;

use actix_web::http::Method;
use futures_util::StreamExt;
use serde_json::{json, Value};

use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app, TestApp};

fn ids(page: &Value) -> Vec<String> {
    page.as_array()
        .unwrap()
        .iter()
        .map(|t| t["todoId"].as_str().unwrap().to_string())
        .collect()
}

async fn tasks(app: &TestApp, named: &[(&str, &str, f64)]) {
    for (id, name, sort_order) in named {
        app.create(
            "tasks",
            json!({"todoId": id, "name": name, "sortOrder": sort_order}),
        )
        .await;
    }
}

#[actix_web::test]
async fn a_view_has_the_five_operations_with_its_defaults_soft_delete_and_restore() {
    let app = spawn_app();
    let created = app.post("/api/v1/views", json!({"name": "All"})).await;
    created.expect(201);
    let view = created.data().clone();
    let id = view["viewId"].as_str().unwrap().to_string();
    assert_eq!(view["id"], view["viewId"]);
    assert_eq!(view["filter"], Value::Null);
    assert_eq!(view["q"], Value::Null);
    assert_eq!(view["orderBy"], "sortOrder");
    assert_eq!(view["tz"], "UTC");
    assert_eq!(view["sortOrder"], 1.0);
    assert!(created.header("location").unwrap().ends_with(&id));
    let path = format!("/api/v1/views/{id}");
    let patched = app
        .patch(
            &path,
            json!({"filter": "status = \"open\"", "orderBy": "-dateDue"}),
        )
        .await;
    assert_eq!(patched.expect(200).data()["filter"], "status = \"open\"");
    assert_eq!(
        app.get(&path).await.expect(200).data()["orderBy"],
        "-dateDue"
    );
    assert_eq!(
        app.get("/api/v1/views").await.expect(200).data()[0]["viewId"],
        id.as_str()
    );
    assert_eq!(
        app.delete(&path).await.expect(200).data()["isDeleted"],
        true
    );
    assert_eq!(app.get("/api/v1/views").await.data(), &json!([]));
    assert_eq!(
        app.default_user().restore(&path).await.expect(200).data()["isDeleted"],
        false
    );
    let feed = app.get("/api/v1/changes").await;
    let kinds: Vec<&str> = feed
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["view"]);
}

#[actix_web::test]
async fn a_view_body_is_checked_when_written() {
    let app = spawn_app();
    let missing = app.post("/api/v1/views", json!({})).await;
    assert_invalid_fields(&missing, &["name"]);
    let empty = app.post("/api/v1/views", json!({"name": ""})).await;
    assert_invalid_fields(&empty, &["name"]);
    let bad = app
        .post(
            "/api/v1/views",
            json!({"name": "x", "orderBy": "colour", "tz": "Mars/Olympus", "q": "a".repeat(501)}),
        )
        .await;
    assert_invalid_fields(&bad, &["orderBy", "q", "tz"]);
    let nulls = app
        .post(
            "/api/v1/views",
            json!({"name": "x", "orderBy": null, "tz": null}),
        )
        .await;
    assert_invalid_fields(&nulls, &["orderBy", "tz"]);
    let filter = app
        .post("/api/v1/views", json!({"name": "x", "filter": "status = "}))
        .await;
    assert_problem(&filter, 400, "invalid_filter");
    assert_eq!(filter.body["position"], 9);
    app.create("views", json!({"viewId": "v", "name": "x"}))
        .await;
    let patch = app
        .patch("/api/v1/views/v", json!({"filter": "nope = 1"}))
        .await;
    assert_problem(&patch, 400, "invalid_filter");
    let parent = app
        .patch("/api/v1/views/v", json!({"filter": "parentId = null"}))
        .await;
    parent.expect(200);
    assert_eq!(
        app.space_version().await,
        2,
        "refused writes change nothing"
    );
}

#[actix_web::test]
async fn tasks_list_as_the_view_would_with_cursors_bound_to_its_definition() {
    let app = spawn_app();
    tasks(
        &app,
        &[
            ("a", "buy milk", 1.0),
            ("b", "call mum", 2.0),
            ("c", "buy bread", 3.0),
            ("d", "buy eggs", 4.0),
        ],
    )
    .await;
    app.create(
        "views",
        json!({"viewId": "buy", "name": "Shopping", "q": "buy", "orderBy": "-sortOrder"}),
    )
    .await;
    let page = app.get("/api/v1/tasks?viewId=buy&limit=2").await;
    assert_eq!(ids(page.expect(200).data()), ["d", "c"]);
    let cursor = page.body["nextCursor"].as_str().unwrap().to_string();
    // Other filters of §6 combine by AND.
    let and = app.get("/api/v1/tasks?viewId=buy&status=done").await;
    assert_eq!(and.expect(200).data(), &json!([]));
    // A rename keeps the cursor; a new definition ends it.
    app.patch(
        "/api/v1/views/buy",
        json!({"name": "Groceries", "sortOrder": 9}),
    )
    .await
    .expect(200);
    let next = app
        .get(&format!("/api/v1/tasks?viewId=buy&limit=2&cursor={cursor}"))
        .await;
    assert_eq!(ids(next.expect(200).data()), ["a"]);
    app.patch("/api/v1/views/buy", json!({"q": "bu"}))
        .await
        .expect(200);
    let stale = app
        .get(&format!("/api/v1/tasks?viewId=buy&limit=2&cursor={cursor}"))
        .await;
    assert_problem(&stale, 400, "invalid_cursor");
    let elsewhere = app
        .get(&format!(
            "/api/v1/tasks?q=buy&orderBy=-sortOrder&limit=2&cursor={cursor}"
        ))
        .await;
    assert_problem(&elsewhere, 400, "invalid_cursor");
}

#[actix_web::test]
async fn a_view_id_alone_names_an_active_view_of_the_space() {
    let app = spawn_app();
    app.create("views", json!({"viewId": "v", "name": "x"}))
        .await;
    for beside in ["filter=status%3D%22a%22", "q=x", "orderBy=name", "tz=UTC"] {
        let reply = app.get(&format!("/api/v1/tasks?viewId=v&{beside}")).await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
    let shape = app.get("/api/v1/tasks?viewId=not%20an%20id").await;
    assert_problem(&shape, 400, "invalid_parameter");
    assert_problem(
        &app.get("/api/v1/tasks?viewId=nope").await,
        404,
        "not_found",
    );
    app.delete("/api/v1/views/v").await.expect(200);
    assert_problem(&app.get("/api/v1/tasks?viewId=v").await, 404, "not_found");
    let other = app.create_user("other").await;
    let theirs = app.user(&other.token);
    theirs
        .post("/api/v1/views", json!({"viewId": "w", "name": "theirs"}))
        .await
        .expect(201);
    assert_problem(&app.get("/api/v1/tasks?viewId=w").await, 404, "not_found");
}

#[actix_web::test]
async fn views_come_after_contexts_in_a_batch_and_in_the_feed() {
    let app = spawn_app();
    let batch = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "POST", "path": "/api/v1/views", "body": {"viewId": "v", "name": "V"}},
                {"method": "POST", "path": "/api/v1/contexts", "body": {"contextId": "c"}},
                {"method": "PATCH", "path": "/api/v1/views/v", "body": {"tz": "Europe/Paris"}},
            ]}),
        )
        .await;
    batch.expect(200);
    let feed = app.get("/api/v1/changes").await;
    let kinds: Vec<&str> = feed
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["context", "view"]);
    let failing = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "POST", "path": "/api/v1/views", "body": {"viewId": "w", "name": "W", "filter": "("}},
            ]}),
        )
        .await;
    assert_problem(&failing, 400, "invalid_filter");
    assert_eq!(failing.body["operationIndex"], 0);
}

/// A live view read as raw server-sent events.
struct Live {
    stream: std::pin::Pin<
        Box<
            dyn futures_util::Stream<
                Item = Result<actix_web::web::Bytes, awc::error::PayloadError>,
            >,
        >,
    >,
    buffer: String,
}

impl Live {
    async fn open(app: &TestApp, query: &str) -> Live {
        let request = app
            .authorized(Method::GET, &format!("/api/v1/live?{query}"))
            .insert_header(("Last-Event-ID", "12345"))
            .timeout(Duration::from_secs(60));
        let mut response = request.send().await.expect("stream opens");
        assert_eq!(response.status().as_u16(), 200);
        let content_type = response.headers().get("content-type").unwrap();
        assert_eq!(content_type, "text/event-stream");
        Live {
            stream: Box::pin(actix_web::HttpMessage::take_payload(&mut response)),
            buffer: String::new(),
        }
    }

    /// The next `n` events as (name, id, data), or fewer if the stream ends or 10 s pass.
    async fn next(&mut self, n: usize) -> Vec<(String, u64, Value)> {
        let mut events = Vec::new();
        while events.len() < n {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if block.starts_with(':') {
                    continue;
                }
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(name))
                        .map(str::to_string)
                };
                events.push((
                    field("event: ").unwrap(),
                    field("id: ").map_or(0, |id| id.parse().unwrap()),
                    serde_json::from_str(&field("data: ").unwrap()).unwrap(),
                ));
                continue;
            }
            let chunk =
                actix_web::rt::time::timeout(Duration::from_secs(10), self.stream.next()).await;
            match chunk {
                Ok(Some(Ok(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                _ => break,
            }
        }
        events
    }

    /// Whether the stream ends within 10 s with nothing more.
    async fn ends(&mut self) -> bool {
        self.next(1).await.is_empty()
    }
}

fn names(events: &[(String, u64, Value)]) -> Vec<&str> {
    events.iter().map(|(name, _, _)| name.as_str()).collect()
}

#[actix_web::test]
async fn a_live_view_resets_then_sends_enter_update_and_leave_with_positions() {
    let app = spawn_app();
    tasks(
        &app,
        &[
            ("a", "buy milk", 1.0),
            ("b", "call mum", 2.0),
            ("c", "buy eggs", 3.0),
        ],
    )
    .await;
    app.create(
        "views",
        json!({"viewId": "buy", "name": "Shopping", "q": "buy"}),
    )
    .await;
    let mut live = Live::open(&app, "viewId=buy").await;
    let reset = live.next(1).await;
    assert_eq!(names(&reset), ["reset"]);
    assert_eq!(ids(&reset[0].2["tasks"]), ["a", "c"]);
    assert_eq!(reset[0].2["spaceVersion"], 4);
    // Enters between a and c.
    app.patch("/api/v1/tasks/b", json!({"name": "buy bread"}))
        .await
        .expect(200);
    let entered = live.next(1).await;
    assert_eq!(names(&entered), ["enter"]);
    assert_eq!(entered[0].2["record"]["todoId"], "b");
    assert_eq!(entered[0].2["after"], "a");
    assert_eq!(entered[0].2["spaceVersion"], 5);
    // A move across the order: b goes first.
    app.patch("/api/v1/tasks/b", json!({"sortOrder": 0}))
        .await
        .expect(200);
    let moved = live.next(1).await;
    assert_eq!(names(&moved), ["update"]);
    assert_eq!(moved[0].2["after"], Value::Null);
    // A write of a task outside the view says nothing; a leave names the task.
    app.create("tasks", json!({"todoId": "z", "name": "other"}))
        .await;
    app.delete("/api/v1/tasks/c").await.expect(200);
    let left = live.next(1).await;
    assert_eq!(names(&left), ["leave"]);
    assert_eq!(left[0].2, json!({"todoId": "c", "spaceVersion": 8}));
    assert!(left[0].1 > moved[0].1 && moved[0].1 > entered[0].1 && entered[0].1 > reset[0].1);
}

#[actix_web::test]
async fn a_batch_sends_its_events_together_in_operation_order() {
    let app = spawn_app();
    let mut live = Live::open(&app, "filter=status%20%3D%20%22open%22&orderBy=name").await;
    assert_eq!(live.next(1).await[0].2["tasks"], json!([]));
    app.post(
        "/api/v1/batch",
        json!({"operations": [
            {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "b", "name": "b", "status": "open"}},
            {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "a", "name": "a", "status": "open"}},
            {"method": "PATCH", "path": "/api/v1/tasks/b", "body": {"status": "done"}},
        ]}),
    )
    .await
    .expect(200);
    let events = live.next(3).await;
    assert_eq!(names(&events), ["enter", "enter", "leave"]);
    assert_eq!(events[0].2["after"], Value::Null);
    assert_eq!(events[1].2["after"], Value::Null, "a stands before b");
    assert_eq!(events[1].2["spaceVersion"], 2);
    assert_eq!(events[2].2["todoId"], "b");
    assert_eq!(events[2].2["spaceVersion"], 3);
}

#[actix_web::test]
async fn a_changed_view_resets_its_streams_a_renamed_one_does_not_and_a_deleted_one_ends_them() {
    let app = spawn_app();
    tasks(&app, &[("a", "buy milk", 1.0), ("b", "call mum", 2.0)]).await;
    app.create("views", json!({"viewId": "v", "name": "V", "q": "buy"}))
        .await;
    let mut live = Live::open(&app, "viewId=v").await;
    assert_eq!(ids(&live.next(1).await[0].2["tasks"]), ["a"]);
    app.patch("/api/v1/views/v", json!({"name": "W", "sortOrder": 3}))
        .await
        .expect(200);
    app.patch("/api/v1/views/v", json!({"q": "call"}))
        .await
        .expect(200);
    let reset = live.next(1).await;
    assert_eq!(names(&reset), ["reset"], "a rename sends nothing");
    assert_eq!(ids(&reset[0].2["tasks"]), ["b"]);
    app.delete("/api/v1/views/v").await.expect(200);
    assert!(live.ends().await);
    // A reconnect starts with a reset, whatever Last-Event-ID says.
    let mut again = Live::open(&app, "filter=").await;
    assert_eq!(names(&again.next(1).await), ["reset"]);
    let gone = app.get("/api/v1/live?viewId=v").await;
    assert_problem(&gone, 404, "not_found");
    let both = app.get("/api/v1/live?viewId=v&q=x").await;
    assert_problem(&both, 400, "invalid_parameter");
}

#[actix_web::test]
async fn a_task_enters_a_live_view_when_the_clock_crosses_now() {
    let app = spawn_app();
    let due = chrono::Utc::now() + chrono::Duration::seconds(3);
    app.create(
        "tasks",
        json!({"todoId": "soon", "dateDue": due.to_rfc3339()}),
    )
    .await;
    let mut live = Live::open(&app, "filter=dateDue%20%3C%20now").await;
    assert_eq!(live.next(1).await[0].2["tasks"], json!([]));
    let entered = live.next(1).await;
    assert_eq!(names(&entered), ["enter"]);
    assert_eq!(entered[0].2["spaceVersion"], 1);
    let late = chrono::Utc::now() - due;
    assert!(
        late < chrono::Duration::milliseconds(1_000),
        "{late:?} late"
    );
    // And leaves when its window passes (now-1m style, 2 s here through a date moved).
    let mut window = Live::open(&app, "filter=dateDue%20%3E%20now-1m").await;
    assert_eq!(ids(&window.next(1).await[0].2["tasks"]), ["soon"]);
}

#[actix_web::test]
async fn a_live_view_over_5000_tasks_is_422() {
    let app = spawn_app();
    for chunk in 0..51 {
        let operations: Vec<Value> = (0..100)
            .map(|i| json!({"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": format!("t{chunk}-{i}")}}))
            .collect();
        app.post("/api/v1/batch", json!({"operations": operations}))
            .await
            .expect(200);
    }
    let reply = app.get("/api/v1/live?filter=").await;
    assert_problem(&reply, 422, "view_too_large");
    let narrow = Live::open(&app, "filter=todoId%20~%20%22t1-%22").await;
    drop(narrow);
}
