//! Views (docs §24): saved queries as records of their own kind, the task listing through
//! `?viewId=`, and live views as server-sent events.

use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{
    assert_invalid_fields, assert_problem, names, spawn_app, Event, Events, TestApp,
};

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

/// The default user's live view at `query`, opened with a `Last-Event-ID` that it must
/// ignore (every connection starts with a `reset`).
async fn open_live(app: &TestApp, query: &str) -> Events {
    let path = format!("/api/v1/live?{query}");
    let headers = [("Last-Event-ID", "12345")];
    Events::open(app, &app.default_token, &path, &headers).await
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
    let mut live = open_live(&app, "viewId=buy").await;
    let reset = live.next(1).await;
    assert_eq!(names(&reset), ["reset"]);
    assert_eq!(ids(&reset[0].data["tasks"]), ["a", "c"]);
    assert_eq!(reset[0].data["spaceVersion"], 4);
    // Enters between a and c.
    app.patch("/api/v1/tasks/b", json!({"name": "buy bread"}))
        .await
        .expect(200);
    let entered = live.next(1).await;
    assert_eq!(names(&entered), ["enter"]);
    assert_eq!(entered[0].data["record"]["todoId"], "b");
    assert_eq!(entered[0].data["after"], "a");
    assert_eq!(entered[0].data["spaceVersion"], 5);
    // A move across the order: b goes first.
    app.patch("/api/v1/tasks/b", json!({"sortOrder": 0}))
        .await
        .expect(200);
    let moved = live.next(1).await;
    assert_eq!(names(&moved), ["update"]);
    assert_eq!(moved[0].data["after"], Value::Null);
    // A write of a task outside the view says nothing; a leave names the task.
    app.create("tasks", json!({"todoId": "z", "name": "other"}))
        .await;
    app.delete("/api/v1/tasks/c").await.expect(200);
    let left = live.next(1).await;
    assert_eq!(names(&left), ["leave"]);
    assert_eq!(left[0].data, json!({"todoId": "c", "spaceVersion": 8}));
    assert!(left[0].id > moved[0].id && moved[0].id > entered[0].id && entered[0].id > reset[0].id);
}

#[actix_web::test]
async fn a_batch_sends_its_events_together_in_operation_order() {
    let app = spawn_app();
    let mut live = open_live(&app, "filter=status%20%3D%20%22open%22&orderBy=name").await;
    assert_eq!(live.next(1).await[0].data["tasks"], json!([]));
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
    assert_eq!(events[0].data["after"], Value::Null);
    assert_eq!(events[1].data["after"], Value::Null, "a stands before b");
    assert_eq!(events[1].data["spaceVersion"], 2);
    assert_eq!(events[2].data["todoId"], "b");
    assert_eq!(events[2].data["spaceVersion"], 3);
}

#[actix_web::test]
async fn a_changed_view_resets_its_streams_a_renamed_one_does_not_and_a_deleted_one_ends_them() {
    let app = spawn_app();
    tasks(&app, &[("a", "buy milk", 1.0), ("b", "call mum", 2.0)]).await;
    app.create("views", json!({"viewId": "v", "name": "V", "q": "buy"}))
        .await;
    let mut live = open_live(&app, "viewId=v").await;
    assert_eq!(ids(&live.next(1).await[0].data["tasks"]), ["a"]);
    app.patch("/api/v1/views/v", json!({"name": "W", "sortOrder": 3}))
        .await
        .expect(200);
    app.patch("/api/v1/views/v", json!({"q": "call"}))
        .await
        .expect(200);
    let reset = live.next(1).await;
    assert_eq!(names(&reset), ["reset"], "a rename sends nothing");
    assert_eq!(ids(&reset[0].data["tasks"]), ["b"]);
    app.delete("/api/v1/views/v").await.expect(200);
    assert!(live.ends().await);
    // A reconnect starts with a reset, whatever Last-Event-ID says.
    let mut again = open_live(&app, "filter=").await;
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
    let mut live = open_live(&app, "filter=dateDue%20%3C%20now").await;
    assert_eq!(live.next(1).await[0].data["tasks"], json!([]));
    let entered = live.next(1).await;
    assert_eq!(names(&entered), ["enter"]);
    assert_eq!(entered[0].data["spaceVersion"], 1);
    let late = chrono::Utc::now() - due;
    assert!(
        late < chrono::Duration::milliseconds(1_000),
        "{late:?} late"
    );
    // And leaves when its window passes (now-1m style, 2 s here through a date moved).
    let mut window = open_live(&app, "filter=dateDue%20%3E%20now-1m").await;
    assert_eq!(ids(&window.next(1).await[0].data["tasks"]), ["soon"]);
}

/// What a client of a live view shows: the ids of its members in order, kept by placing
/// each `enter` and `update` after the task its `after` names and dropping each `leave`.
fn shown(reset: &Event, events: &[Event]) -> Vec<String> {
    let mut shown = ids(&reset.data["tasks"]);
    for event in events {
        let id = match event.name.as_str() {
            "leave" => event.data["todoId"].as_str(),
            _ => event.data["record"]["todoId"].as_str(),
        };
        let id = id.unwrap().to_string();
        shown.retain(|shown| *shown != id);
        if event.name == "leave" {
            continue;
        }
        let at = match event.data["after"].as_str() {
            None => 0,
            Some(after) => {
                1 + shown
                    .iter()
                    .position(|s| s == after)
                    .expect("after a member")
            }
        };
        shown.insert(at, id);
    }
    shown
}

#[actix_web::test]
async fn positions_stay_right_as_writes_and_batches_move_tasks_across_the_order() {
    let app = spawn_app();
    tasks(
        &app,
        &[
            ("a", "apple", 1.0),
            ("b", "banana", 2.0),
            ("c", "cherry", 3.0),
            ("d", "date", 4.0),
        ],
    )
    .await;
    let query = "filter=name%20!%3D%20%22x%22&orderBy=name";
    let mut stream = open_live(&app, query).await;
    let reset = stream.next(1).await.remove(0);
    assert_eq!(ids(&reset.data["tasks"]), ["a", "b", "c", "d"]);
    // The first goes last, the last goes between two others, one leaves and comes back.
    app.patch("/api/v1/tasks/a", json!({"name": "zucchini"}))
        .await
        .expect(200);
    app.patch("/api/v1/tasks/d", json!({"name": "blueberry"}))
        .await
        .expect(200);
    app.patch("/api/v1/tasks/c", json!({"name": "x"}))
        .await
        .expect(200);
    let events = stream.next(3).await;
    assert_eq!(names(&events), ["update", "update", "leave"]);
    assert_eq!(events[0].data["after"], "d", "zucchini after date");
    assert_eq!(events[1].data["after"], "b", "blueberry after banana");
    assert_eq!(shown(&reset, &events), ["b", "d", "a"]);
    // One batch, several events in operation order: each `after` is the view as it
    // stands after that operation.
    app.post(
        "/api/v1/batch",
        json!({"operations": [
            {"method": "PATCH", "path": "/api/v1/tasks/c", "body": {"name": "avocado"}},
            {"method": "PATCH", "path": "/api/v1/tasks/b", "body": {"name": "zz top"}},
            {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "e", "name": "aardvark"}},
            {"method": "DELETE", "path": "/api/v1/tasks/a"},
        ]}),
    )
    .await
    .expect(200);
    let batch = stream.next(4).await;
    assert_eq!(names(&batch), ["enter", "update", "enter", "leave"]);
    assert_eq!(batch[0].data["after"], Value::Null);
    assert_eq!(
        batch[1].data["after"], "a",
        "zz top after zucchini, which is still there"
    );
    assert_eq!(batch[2].data["after"], Value::Null);
    assert_eq!(batch[3].data["todoId"], "a");
    let versions: Vec<&Value> = batch.iter().map(|e| &e.data["spaceVersion"]).collect();
    assert_eq!(versions, [&json!(8), &json!(9), &json!(10), &json!(11)]);
    let ids_in_order: Vec<u64> = [&events[..], &batch[..]]
        .concat()
        .iter()
        .map(|e| e.id)
        .collect();
    assert!(
        ids_in_order.windows(2).all(|w| w[0] < w[1]),
        "{ids_in_order:?}"
    );
    // A reconnect's reset shows what the events built.
    let built = shown(&reset, &[events, batch].concat());
    assert_eq!(built, ["e", "c", "d", "b"]);
    let mut again = open_live(&app, query).await;
    let fresh = again.next(1).await;
    assert_eq!(names(&fresh), ["reset"]);
    assert_eq!(ids(&fresh[0].data["tasks"]), built);
    assert_eq!(fresh[0].data["spaceVersion"], 11);
}

#[actix_web::test]
async fn a_now_plus_1m_boundary_moves_tasks_in_and_out_within_a_second_with_no_write() {
    let app = spawn_app();
    // Due 1 min 3 s from now: `now+1m` reaches it in 3 s.
    let due = chrono::Utc::now() + chrono::Duration::milliseconds(63_000);
    app.create(
        "tasks",
        json!({"todoId": "soon", "name": "soon", "dateDue": due.to_rfc3339()}),
    )
    .await;
    app.create("tasks", json!({"todoId": "never", "name": "never"}))
        .await;
    let mut within = open_live(&app, "filter=dateDue%20%3C%3D%20now%2B1m").await;
    let mut beyond = open_live(&app, "filter=dateDue%20%3E%20now%20%2B%201m").await;
    assert_eq!(within.next(1).await[0].data["tasks"], json!([]));
    assert_eq!(ids(&beyond.next(1).await[0].data["tasks"]), ["soon"]);
    let entered = within.next(1).await;
    let crossed = chrono::Utc::now() + chrono::Duration::minutes(1) - due;
    assert_eq!(names(&entered), ["enter"]);
    assert_eq!(entered[0].data["record"]["todoId"], "soon");
    assert_eq!(entered[0].data["after"], Value::Null);
    assert_eq!(entered[0].data["spaceVersion"], 2, "the current version");
    assert!(
        crossed >= chrono::Duration::zero() && crossed < chrono::Duration::seconds(1),
        "entered {crossed:?} after the boundary"
    );
    let left = beyond.next(1).await;
    assert_eq!(names(&left), ["leave"]);
    assert_eq!(left[0].data, json!({"todoId": "soon", "spaceVersion": 2}));
    // Past its boundaries the task moves no more; a write still moves it.
    assert!(within
        .next_within(1, Duration::from_millis(1_500))
        .await
        .is_empty());
    app.patch("/api/v1/tasks/soon", json!({"dateDue": null}))
        .await
        .expect(200);
    let out = within.next(1).await;
    assert_eq!(names(&out), ["leave"]);
    assert_eq!(out[0].data["spaceVersion"], 3);
}

/// docs §21 and §24: a live view opened with a scoped token ends at the token's
/// `expiresAt`, with no `leave`, as a change stream does.
#[actix_web::test]
async fn a_live_view_of_a_scoped_token_ends_when_the_token_expires() {
    let app = spawn_app();
    let expires = chrono::Utc::now() + chrono::Duration::seconds(2);
    let token = app
        .post(
            "/api/v1/tokens",
            json!({
                "name": "brief",
                "access": "read",
                "expiresAt": expires.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            }),
        )
        .await;
    let secret = token.expect(201).data()["token"]
        .as_str()
        .unwrap()
        .to_string();
    app.create("tasks", json!({"todoId": "a"})).await;
    let mut stream = Events::open(&app, &secret, "/api/v1/live?filter=", &[]).await;
    assert_eq!(names(&stream.next(1).await), ["reset"]);
    app.create("tasks", json!({"todoId": "b"})).await;
    assert_eq!(names(&stream.next(1).await), ["enter"]);
    assert!(stream.ends().await, "the stream ended");
    let ended = chrono::Utc::now();
    assert!(ended >= expires, "ended {:?} early", expires - ended);
    assert!(ended - expires < chrono::Duration::seconds(5));
}

#[actix_web::test]
async fn a_view_grown_past_5000_while_streaming_goes_on_and_resets_refuse_it() {
    let app = spawn_app();
    let batch = |from: usize, to: usize| {
        let operations: Vec<Value> = (from..to)
            .map(|i| json!({"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": format!("t{i:05}"), "name": "n"}}))
            .collect();
        json!({"operations": operations})
    };
    for from in (0..5_000).step_by(100) {
        app.post("/api/v1/batch", batch(from, from + 100))
            .await
            .expect(200);
    }
    app.create("views", json!({"viewId": "v", "name": "all", "q": "n"}))
        .await;
    let mut stream = open_live(&app, "viewId=v").await;
    let reset = stream.next(1).await;
    assert_eq!(reset[0].data["tasks"].as_array().unwrap().len(), 5_000);
    app.post("/api/v1/batch", batch(5_000, 5_002))
        .await
        .expect(200);
    assert_eq!(names(&stream.next(2).await), ["enter", "enter"]);
    for query in ["viewId=v", "filter="] {
        let refused = app.get(&format!("/api/v1/live?{query}")).await;
        assert_problem(&refused, 422, "view_too_large");
    }
    // A new definition asks for a new reset, which the limit refuses: the stream ends.
    app.patch("/api/v1/views/v", json!({"orderBy": "name"}))
        .await
        .expect(200);
    let last = stream.next(2).await;
    assert_eq!(names(&last), ["error"]);
    assert_eq!(last[0].data["code"], "view_too_large");
}

/// A view pinned to a value (`status = "a"`) hears only the writes of tasks that hold it
/// before or after (docs §24, the server's pre-check): they still enter and leave, by a
/// write or by the clock, and a new definition pins the stream anew.
#[actix_web::test]
async fn a_pinned_view_gets_every_event_of_its_tasks_and_a_new_definition_repins_it() {
    let app = spawn_app();
    let due = chrono::Utc::now() + chrono::Duration::seconds(2);
    app.create(
        "tasks",
        json!({"todoId": "soon", "status": "a", "dateDue": due.to_rfc3339()}),
    )
    .await;
    app.create("tasks", json!({"todoId": "b", "status": "b"}))
        .await;
    let filter = "status = \"a\" && dateDue < now";
    app.create(
        "views",
        json!({"viewId": "v", "name": "v", "filter": filter}),
    )
    .await;
    let mut stream = open_live(&app, "viewId=v").await;
    assert_eq!(stream.next(1).await[0].data["tasks"], json!([]));
    let entered = stream.next(1).await;
    assert_eq!(names(&entered), ["enter"], "the clock moves a pinned task");
    app.patch("/api/v1/tasks/b", json!({"name": "other"}))
        .await
        .expect(200);
    app.patch("/api/v1/tasks/soon", json!({"status": "b"}))
        .await
        .expect(200);
    let left = stream.next(1).await;
    assert_eq!(left[0].data, json!({"todoId": "soon", "spaceVersion": 5}));
    app.patch("/api/v1/views/v", json!({"filter": "status = \"b\""}))
        .await
        .expect(200);
    let reset = stream.next(1).await;
    assert_eq!(names(&reset), ["reset"]);
    assert_eq!(ids(&reset[0].data["tasks"]), ["soon", "b"]);
    app.create("tasks", json!({"todoId": "c", "status": "b"}))
        .await;
    app.patch("/api/v1/tasks/b", json!({"status": "a"}))
        .await
        .expect(200);
    let events = stream.next(2).await;
    assert_eq!(names(&events), ["enter", "leave"]);
    assert_eq!(events[0].data["record"]["todoId"], "c");
    assert_eq!(events[1].data["todoId"], "b");
}
