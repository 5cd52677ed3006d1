//! Sync for real clients (docs §10–§12): conditional requests, idempotent retries,
//! the change feed, the change stream and atomic batches.

use std::collections::BTreeSet;
use std::io::{Read, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use actix_web::http::Method;
use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{
    assert_invalid_fields, assert_problem, spawn_app, spawn_app_with, Event, Events, Options,
    TestApp,
};

fn tag(record: &Value) -> String {
    format!("\"{}\"", record["versionUpdatedAt"])
}

#[actix_web::test]
async fn every_single_record_response_has_its_version_as_a_strong_etag() {
    let app = spawn_app();
    let created = app.post("/api/v1/lists", json!({"listId": "l"})).await;
    assert_eq!(created.expect(201).header("etag"), Some("\"1\""));
    let patched = app.patch("/api/v1/lists/l", json!({"name": "x"})).await;
    assert_eq!(patched.expect(200).header("etag"), Some("\"2\""));
    let deleted = app.delete("/api/v1/lists/l").await;
    assert_eq!(deleted.expect(200).header("etag"), Some("\"3\""));
    let restored = app.default_user().restore("/api/v1/lists/l").await;
    assert_eq!(restored.expect(200).header("etag"), Some("\"4\""));
    let got = app.get("/api/v1/lists/l").await;
    assert_eq!(got.expect(200).header("etag"), Some("\"4\""));
    let page = app.get("/api/v1/lists").await;
    assert_eq!(page.expect(200).header("etag"), Some("\"4\""));
}

#[actix_web::test]
async fn if_match_guards_patch_delete_and_restore() {
    let app = spawn_app();
    let list = app
        .create("lists", json!({"listId": "l", "name": "a"}))
        .await;
    let stale = tag(&list);
    app.patch("/api/v1/lists/l", json!({"name": "b"}))
        .await
        .expect(200);
    for (method, path, body) in [
        (Method::PATCH, "/api/v1/lists/l", Some(json!({"name": "c"}))),
        (Method::DELETE, "/api/v1/lists/l", None),
        (Method::POST, "/api/v1/lists/l/restore", None),
    ] {
        let reply = app
            .send_with(method, path, body.as_ref(), &[("If-Match", &stale)])
            .await;
        assert_problem(&reply, 412, "precondition_failed");
    }
    assert_eq!(
        app.space_version().await,
        2,
        "a refused write changed nothing"
    );
    let current = app.get("/api/v1/lists/l").await.data().clone();
    assert_eq!(current["name"], "b");
    let list_of_tags = format!("\"99\", W/{}, {}", tag(&current), tag(&current));
    let patched = app
        .send_with(
            Method::PATCH,
            "/api/v1/lists/l",
            Some(&json!({"name": "c"})),
            &[("If-Match", &list_of_tags)],
        )
        .await;
    patched.expect(200);
    let weak_only = format!("W/{}", tag(patched.data()));
    let reply = app
        .send_with(
            Method::DELETE,
            "/api/v1/lists/l",
            None,
            &[("If-Match", &weak_only)],
        )
        .await;
    assert_problem(&reply, 412, "precondition_failed");
    app.send_with(
        Method::DELETE,
        "/api/v1/lists/l",
        None,
        &[("If-Match", "*")],
    )
    .await
    .expect(200);
    let missing = app
        .send_with(
            Method::DELETE,
            "/api/v1/lists/nope",
            None,
            &[("If-Match", "\"1\"")],
        )
        .await;
    assert_problem(&missing, 404, "not_found");
}

#[actix_web::test]
async fn two_clients_racing_with_the_same_if_match_have_exactly_one_winner() {
    let app = spawn_app();
    let task = app.create("tasks", json!({"todoId": "t"})).await;
    let etag = tag(&task);
    let racers = (0..8).map(|i| {
        let etag = etag.clone();
        let app = &app;
        async move {
            let body = json!({"name": format!("racer {i}")});
            app.send_with(
                Method::PATCH,
                "/api/v1/tasks/t",
                Some(&body),
                &[("If-Match", &etag)],
            )
            .await
            .status
        }
    });
    let statuses = join_all(racers).await;
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 412).count(),
        7,
        "{statuses:?}"
    );
    assert_eq!(app.space_version().await, 2);
}

#[actix_web::test]
async fn if_none_match_answers_304_for_items_and_collections() {
    let app = spawn_app();
    let task = app.create("tasks", json!({"todoId": "t"})).await;
    for value in [
        tag(&task),
        "*".to_string(),
        format!("\"7\", W/{}", tag(&task)),
    ] {
        let reply = app
            .send_with(
                Method::GET,
                "/api/v1/tasks/t",
                None,
                &[("If-None-Match", &value)],
            )
            .await;
        assert_eq!(reply.status, 304, "{value}");
        assert_eq!(reply.body, Value::Null);
        assert_eq!(reply.header("etag"), Some("\"1\""));
    }
    let fresh = app
        .send_with(
            Method::GET,
            "/api/v1/tasks/t",
            None,
            &[("If-None-Match", "\"9\"")],
        )
        .await;
    fresh.expect(200);
    let path = "/api/v1/tasks?limit=1&status=x";
    let page = app
        .send_with(Method::GET, path, None, &[("If-None-Match", "\"1\"")])
        .await;
    assert_eq!((page.status, page.header("etag")), (304, Some("\"1\"")));
    app.create("lists", json!({})).await;
    let page = app
        .send_with(Method::GET, path, None, &[("If-None-Match", "\"1\"")])
        .await;
    assert_eq!((page.status, page.header("etag")), (200, Some("\"2\"")));
}

#[actix_web::test]
async fn a_retried_write_replays_its_answer_without_writing_again() {
    let app = spawn_app();
    let body = json!({"name": "once"});
    let key = [("Idempotency-Key", "create-once")];
    let first = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    first.expect(201);
    assert_eq!(first.header("idempotent-replayed"), None);
    let again = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("location"), first.header("location"));
    assert_eq!(again.header("etag"), first.header("etag"));
    assert_eq!(app.space_version().await, 1);

    let other = json!({"name": "twice"});
    let reused = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&other), &key)
        .await;
    assert_problem(&reused, 422, "idempotency_key_reused");
    let elsewhere = app
        .send_with(Method::POST, "/api/v1/lists", Some(&body), &key)
        .await;
    assert_problem(&elsewhere, 422, "idempotency_key_reused");
    let alice = app.create_user("alice").await;
    let theirs = app
        .request(Method::POST, "/api/v1/tasks")
        .insert_header(("Authorization", format!("Bearer {}", alice.token)))
        .insert_header(("Content-Type", "application/json"))
        .insert_header(key[0]);
    app.send(theirs, Some(body.to_string().into_bytes()))
        .await
        .expect(201);
    assert_eq!(app.space_version().await, 1, "keys belong to their user");

    for bad in ["", &"k".repeat(256), "caf\u{e9}"] {
        let request = app
            .authorized(Method::POST, "/api/v1/tasks")
            .insert_header(("Idempotency-Key", bad));
        let reply = app.send(request, None).await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
}

#[actix_web::test]
async fn a_4xx_answer_is_kept() {
    let app = spawn_app();
    let body = json!({"listId": "later"});
    let key = [("Idempotency-Key", "needs-a-list")];
    let first = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_problem(&first, 422, "invalid_reference");
    app.create("lists", json!({"listId": "later"})).await;
    let again = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_problem(&again, 422, "invalid_reference");
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
}

#[actix_web::test]
async fn a_retry_after_a_restart_replays_the_answer() {
    let mut app = spawn_app();
    let body = json!({"todoId": "once", "name": "before the crash"});
    let key = [("Idempotency-Key", "survives")];
    let first = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    first.expect(201);
    let admin_key = "admin-key";
    let user = app
        .request(Method::POST, "/api/v1/admin/users")
        .insert_header(("Authorization", format!("Bearer {}", app.admin_token)))
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("Idempotency-Key", admin_key));
    let created = app.send(user, Some(br#"{"name":"bob"}"#.to_vec())).await;
    created.expect(201);
    app.crash();
    let app = app.restart_after_stop();
    let again = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
    assert_eq!(app.space_version().await, 1);
    let user = app
        .request(Method::POST, "/api/v1/admin/users")
        .insert_header(("Authorization", format!("Bearer {}", app.admin_token)))
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("Idempotency-Key", admin_key));
    let replayed = app.send(user, Some(br#"{"name":"bob"}"#.to_vec())).await;
    assert_eq!(replayed.status, 201);
    assert_eq!(replayed.data()["userId"], created.data()["userId"]);
    assert_eq!(replayed.data().get("token"), None, "a token is never kept");
}

#[actix_web::test]
async fn keys_are_checked_after_the_route_and_the_token_and_cover_the_admin_backup() {
    let app = spawn_app();
    // A method the path lacks is 405, even with a key used before on another request.
    let wrong_method = app
        .call(
            Method::PATCH,
            "/api/v1/admin/users",
            &app.admin_token,
            Some(&json!({"name": "x"})),
        )
        .await;
    assert_problem(&wrong_method, 405, "method_not_allowed");
    app.send_with(
        Method::POST,
        "/api/v1/tasks",
        Some(&json!({})),
        &[("Idempotency-Key", "k")],
    )
    .await
    .expect(201);
    let keyed = app
        .request(Method::PATCH, "/api/v1/batch")
        .insert_header(("Authorization", format!("Bearer {}", app.default_token)))
        .insert_header(("Idempotency-Key", "k"));
    assert_eq!(app.send(keyed, None).await.status, 405);
    // No token and a malformed key: 401 first.
    let anonymous = app
        .request(Method::POST, "/api/v1/tasks")
        .insert_header(("Idempotency-Key", "x".repeat(256)));
    assert_problem(&app.send(anonymous, None).await, 401, "unauthorized");
    // The admin backup route keeps its answer like every write route.
    let target = tempfile::tempdir().unwrap();
    let to = target.path().join("copy");
    let body = json!({"to": to.to_str().unwrap()}).to_string().into_bytes();
    let backup = || {
        app.request(Method::POST, "/api/v1/admin/backup")
            .insert_header(("Authorization", format!("Bearer {}", app.admin_token)))
            .insert_header(("Content-Type", "application/json"))
            .insert_header(("Idempotency-Key", "nightly"))
    };
    let first = app.send(backup(), Some(body.clone())).await;
    assert_eq!(first.status, 200, "{:#}", first.body);
    let again = app.send(backup(), Some(body)).await;
    assert_eq!(
        again.status, 200,
        "a replay, not 409 already_exists: {:#}",
        again.body
    );
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
}

#[actix_web::test]
async fn concurrent_requests_with_one_key_write_once() {
    let app = spawn_app();
    let body = json!({"name": "racing"});
    let tries = (0..16).map(|_| {
        app.send_with(
            Method::POST,
            "/api/v1/tasks",
            Some(&body),
            &[("Idempotency-Key", "race")],
        )
    });
    let replies = join_all(tries).await;
    let ran = replies
        .iter()
        .filter(|r| r.status == 201 && r.header("idempotent-replayed").is_none())
        .count();
    assert_eq!(ran, 1);
    let created = &replies.iter().find(|r| r.status == 201).unwrap().data()["id"];
    for reply in &replies {
        match reply.status {
            201 => assert_eq!(
                &reply.data()["id"],
                created,
                "every replay is the same answer"
            ),
            409 => assert_problem(reply, 409, "idempotency_key_in_use"),
            other => panic!("unexpected {other}: {:#}", reply.body),
        }
    }
    assert_eq!(app.space_version().await, 1);
}

/// Every change of a feed walk from `since`, page by page.
async fn walk_feed(app: &TestApp, mut since: u64, limit: u32) -> (Vec<Value>, u64) {
    let mut all = Vec::new();
    loop {
        let page = app
            .get(&format!("/api/v1/changes?since={since}&limit={limit}"))
            .await;
        page.expect(200);
        all.extend(page.data().as_array().unwrap().iter().cloned());
        since = page.body["nextSince"].as_u64().unwrap();
        if page.body["hasMore"] == false {
            return (all, since);
        }
    }
}

#[actix_web::test]
async fn the_feed_lists_every_change_once_in_version_kind_id_order_tombstones_included() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "a", "isDefault": true}))
        .await;
    app.create("contexts", json!({"contextId": "c"})).await;
    app.create("tasks", json!({"todoId": "t", "listId": "a"}))
        .await;
    app.delete("/api/v1/contexts/c").await.expect(200);
    // One write touching two lists: version 5 holds both.
    app.create("lists", json!({"listId": "b", "isDefault": true}))
        .await;

    let everything = app.get("/api/v1/changes").await;
    everything.expect(200);
    let changes = everything.data().as_array().unwrap();
    let order: Vec<(u64, &str, &str)> = changes
        .iter()
        .map(|c| {
            (
                c["record"]["versionUpdatedAt"].as_u64().unwrap(),
                c["kind"].as_str().unwrap(),
                c["record"]["id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            (3, "task", "t"),
            (4, "context", "c"),
            (5, "list", "a"),
            (5, "list", "b")
        ]
    );
    assert_eq!(changes[1]["record"]["isDeleted"], true);
    assert_eq!(changes[1]["record"]["contextId"], "c");
    assert_eq!(everything.body["spaceVersion"], 5);
    assert_eq!(everything.body["nextSince"], 5);
    assert_eq!(everything.body["hasMore"], false);

    // A page never splits a version.
    let page = app.get("/api/v1/changes?since=4&limit=1").await;
    assert_eq!(page.data().as_array().unwrap().len(), 2);
    assert_eq!(page.body["hasMore"], false);
    let page = app.get("/api/v1/changes?since=0&limit=1").await;
    assert_eq!(page.data().as_array().unwrap().len(), 1);
    assert_eq!(
        (
            page.body["nextSince"].as_u64(),
            page.body["hasMore"].as_bool()
        ),
        (Some(3), Some(true))
    );
    let empty = app.get("/api/v1/changes?since=5").await;
    assert_eq!(empty.data(), &json!([]));
    assert_eq!(empty.body["nextSince"], 5);

    for bad in [
        "since=6",
        "since=-1",
        "since=1.5",
        "since=x",
        "limit=0",
        "limit=1001",
        "limit=x",
    ] {
        let reply = app.get(&format!("/api/v1/changes?{bad}")).await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
}

#[actix_web::test]
async fn a_feed_walk_with_writes_between_pages_misses_no_change() {
    let app = spawn_app();
    for i in 0..30 {
        app.create("tasks", json!({"todoId": format!("t{i}")}))
            .await;
    }
    let mut since = 0;
    let mut seen: BTreeSet<(String, u64)> = BTreeSet::new();
    for round in 0..20 {
        let page = app
            .get(&format!("/api/v1/changes?since={since}&limit=4"))
            .await;
        for change in page.data().as_array().unwrap() {
            let record = &change["record"];
            seen.insert((
                record["id"].as_str().unwrap().to_string(),
                record["versionUpdatedAt"].as_u64().unwrap(),
            ));
        }
        since = page.body["nextSince"].as_u64().unwrap();
        // Writes land between pages: an old record changes, a new one appears.
        app.patch(
            &format!("/api/v1/tasks/t{round}"),
            json!({"name": "changed"}),
        )
        .await
        .expect(200);
        app.create("tasks", json!({"todoId": format!("n{round}")}))
            .await;
    }
    let (rest, _) = walk_feed(&app, since, 7).await;
    for change in &rest {
        let record = &change["record"];
        seen.insert((
            record["id"].as_str().unwrap().to_string(),
            record["versionUpdatedAt"].as_u64().unwrap(),
        ));
    }
    // Every record's current state was seen.
    for task in app.default_user().list_all("/api/v1/tasks", 100).await {
        let current = (
            task["id"].as_str().unwrap().to_string(),
            task["versionUpdatedAt"].as_u64().unwrap(),
        );
        assert!(seen.contains(&current), "missed {current:?}");
    }
}

/// The change stream of the default user opened at `query`, with `Last-Event-ID`.
async fn changes(app: &TestApp, query: &str, last_event_id: Option<&str>) -> Events {
    let path = format!("/api/v1/changes/stream{query}");
    let headers: Vec<(&str, &str)> = last_event_id
        .map(|id| ("Last-Event-ID", id))
        .into_iter()
        .collect();
    Events::open(app, &app.default_token, &path, &headers).await
}

/// The next `n` events of a change stream, each checked to be a `change`.
async fn next_changes(events: &mut Events, n: usize) -> Vec<Event> {
    let next = events.next(n).await;
    assert!(next.iter().all(|e| e.name == "change"), "{next:?}");
    next
}

#[actix_web::test]
async fn a_stream_sends_the_backlog_then_live_writes_and_resumes_from_last_event_id() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "l"})).await;
    app.create("tasks", json!({"todoId": "t1", "listId": "l"}))
        .await;
    let mut events = changes(&app, "", None).await;
    let backlog = next_changes(&mut events, 2).await;
    assert_eq!(backlog.iter().map(|e| e.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(backlog[0].data["kind"], "list");
    assert_eq!(backlog[1].data["record"]["todoId"], "t1");

    app.create("tasks", json!({"todoId": "t2"})).await;
    app.delete("/api/v1/tasks/t1").await.expect(200);
    let live = next_changes(&mut events, 2).await;
    assert_eq!(live.iter().map(|e| e.id).collect::<Vec<_>>(), [3, 4]);
    assert_eq!(live[1].data["record"]["isDeleted"], true);
    drop(events);

    // Changes while the client was away come first when it resumes.
    app.create("contexts", json!({"contextId": "c"})).await;
    let mut resumed = changes(&app, "?since=0", Some("4")).await;
    let first = next_changes(&mut resumed, 1).await;
    assert_eq!(first[0].id, 5);
    assert_eq!(first[0].data["record"]["contextId"], "c");
    app.patch("/api/v1/tasks/t2", json!({"name": "x"}))
        .await
        .expect(200);
    assert_eq!(next_changes(&mut resumed, 1).await[0].id, 6);

    let bad = app
        .send_with(Method::GET, "/api/v1/changes/stream?since=99", None, &[])
        .await;
    assert_problem(&bad, 400, "invalid_parameter");
    let bad = app
        .send_with(
            Method::GET,
            "/api/v1/changes/stream",
            None,
            &[("Last-Event-ID", "x")],
        )
        .await;
    assert_problem(&bad, 400, "invalid_parameter");
}

#[actix_web::test]
async fn shutdown_ends_streams_cleanly() {
    let mut app = spawn_app();
    app.create("tasks", json!({})).await;
    let mut events = changes(&app, "", None).await;
    assert_eq!(next_changes(&mut events, 1).await.len(), 1);
    let pid = app.pid().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(
        next_changes(&mut events, 1).await.is_empty(),
        "the stream ended"
    );
    assert!(app.wait().success());
}

#[actix_web::test]
async fn streams_are_bounded_per_user_429_and_per_server_503() {
    let app = spawn_app_with(Options::default());
    let address = app.address.trim_start_matches("http://").to_string();
    let mut tokens = vec![app.default_token.clone()];
    for i in 0..9 {
        tokens.push(app.create_user(&format!("u{i}")).await.token);
    }
    // Ten users, 100 streams each: the server's 1000.
    let open: Vec<TcpStream> = tokens
        .iter()
        .flat_map(|token| std::iter::repeat_n(token, 100))
        .map(|token| {
            let mut stream = TcpStream::connect(&address).unwrap();
            write!(
                stream,
                "GET /api/v1/changes/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n"
            )
            .unwrap();
            stream
        })
        .collect();
    // Each stream answers 200 once it is open.
    for mut stream in &open {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
    }
    let refused = app.get("/api/v1/changes/stream").await;
    assert_problem(&refused, 429, "too_many_requests");
    assert_eq!(refused.header("retry-after"), Some("5"));
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().unwrap();
    assert!(
        text.contains("taskd_streams_open 1000"),
        "streams_open in /metrics"
    );
    assert!(text.contains("taskd_too_many_requests_total{reason=\"streams\"} 1"));
    let eleventh = app.create_user("eleventh").await;
    let refused = app
        .user(&eleventh.token)
        .get("/api/v1/changes/stream")
        .await;
    assert_problem(&refused, 503, "unavailable");
    drop(open);
    let mut reopened = 0;
    for _ in 0..100 {
        let reply = app
            .authorized(Method::GET, "/api/v1/changes/stream")
            .send()
            .await
            .unwrap();
        if reply.status().as_u16() == 200 {
            reopened += 1;
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(reopened, 1, "closed streams free their places");
}

fn operation(method: &str, path: &str, body: Value) -> Value {
    json!({"method": method, "path": path, "body": body})
}

#[actix_web::test]
async fn a_batch_applies_every_operation_in_order_as_one_write_per_operation() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "old", "isDefault": true}))
        .await;
    let batch = json!({"operations": [
        operation("POST", "/api/v1/lists", json!({"listId": "new", "isDefault": true})),
        operation("POST", "/api/v1/tasks", json!({"todoId": "t1", "listId": "new"})),
        operation("POST", "/api/v1/tasks", json!({"todoId": "t2", "listId": "new"})),
        operation("PATCH", "/api/v1/tasks/t1", json!({"status": "doing"})),
        {"method": "DELETE", "path": "/api/v1/tasks/t2"},
        {"method": "POST", "path": "/api/v1/tasks/t2/restore"},
    ]});
    let reply = app.post("/api/v1/batch", batch).await;
    reply.expect(200);
    let results = reply.body["results"].as_array().unwrap();
    let statuses: Vec<u64> = results
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, [201, 201, 201, 200, 200, 200]);
    // Each result names its record's kind, so a client can tell a task from a list.
    let kinds: Vec<&str> = results
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["list", "task", "task", "task", "task", "task"]);
    let versions: Vec<u64> = results
        .iter()
        .map(|r| r["data"]["versionUpdatedAt"].as_u64().unwrap())
        .collect();
    assert_eq!(versions, [2, 3, 4, 5, 6, 7]);
    assert_eq!(reply.body["spaceVersion"], 7);
    assert_eq!(results[3]["data"]["status"], "doing");
    let old = app.get("/api/v1/lists/old").await;
    assert_eq!(
        (
            old.data()["isDefault"].as_bool(),
            old.data()["versionUpdatedAt"].as_u64()
        ),
        (Some(false), Some(2))
    );
    let (feed, _) = walk_feed(&app, 1, 100).await;
    assert_eq!(feed.len(), 4, "old, new, t1, t2 in their final states");
}

#[actix_web::test]
async fn a_batch_whose_50th_operation_fails_leaves_no_trace() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "l"})).await;
    let mut operations: Vec<Value> = (0..49)
        .map(|i| {
            operation(
                "POST",
                "/api/v1/tasks",
                json!({"todoId": format!("t{i}"), "listId": "l"}),
            )
        })
        .collect();
    operations.push(operation("POST", "/api/v1/tasks", json!({"todoId": "t0"})));
    operations.push(operation("POST", "/api/v1/tasks", json!({"todoId": "t99"})));
    let reply = app
        .post("/api/v1/batch", json!({ "operations": operations }))
        .await;
    assert_problem(&reply, 409, "already_exists");
    assert_eq!(reply.body["operationIndex"], 49);
    assert_eq!(app.space_version().await, 1);
    assert!(app
        .default_user()
        .list_all("/api/v1/tasks?includeDeleted=true", 100)
        .await
        .is_empty());
    let (feed, _) = walk_feed(&app, 0, 100).await;
    assert_eq!(feed.len(), 1);

    let invalid = json!({"operations": [
        operation("POST", "/api/v1/tasks", json!({})),
        operation("PATCH", "/api/v1/tasks/x", json!({"durationMs": -1})),
    ]});
    let reply = app.post("/api/v1/batch", invalid).await;
    assert_invalid_fields(&reply, &["durationMs"]);
    assert_eq!(reply.body["operationIndex"], 1);
    let conflict =
        json!({"operations": [operation("POST", "/api/v1/tasks", json!({"spaceId": "other"}))]});
    let reply = app.post("/api/v1/batch", conflict).await;
    assert_problem(&reply, 400, "space_conflict");
    assert_eq!(reply.body["operationIndex"], 0);
    assert_eq!(app.space_version().await, 1);
}

#[actix_web::test]
async fn a_batch_of_a_megabyte_is_read_and_answered_like_a_small_one() {
    // Over 64 KiB a batch is read and answered on a blocking thread (docs §21): the
    // same answers, the same errors.
    let app = spawn_app();
    let note = |c: char| c.to_string().repeat(100_000);
    let operations: Vec<Value> = (0..10)
        .map(|i| {
            operation(
                "POST",
                "/api/v1/tasks",
                json!({"todoId": format!("n{i}"), "notesMarkdown": note('a')}),
            )
        })
        .collect();
    let reply = app
        .post("/api/v1/batch", json!({ "operations": operations }))
        .await;
    reply.expect(200);
    let results = reply.body["results"].as_array().unwrap();
    assert_eq!(results.len(), 10);
    assert_eq!(results[9]["data"]["notesMarkdown"], note('a'));
    assert_eq!(app.space_version().await, 10);

    let mut bad: Vec<Value> = (0..10)
        .map(|i| {
            operation(
                "PATCH",
                &format!("/api/v1/tasks/n{i}"),
                json!({"notesMarkdown": note('b')}),
            )
        })
        .collect();
    bad[7] = operation("PATCH", "/api/v1/tasks/n7", json!({"durationMs": -1}));
    let reply = app
        .post("/api/v1/batch", json!({ "operations": bad }))
        .await;
    assert_invalid_fields(&reply, &["durationMs"]);
    assert_eq!(reply.body["operationIndex"], 7);
    bad[7] = json!({"method": "PATCH", "path": "/api/v1/tasks/n7", "extra": 1});
    let reply = app
        .post("/api/v1/batch", json!({ "operations": bad }))
        .await;
    assert_invalid_fields(&reply, &["operations[7].extra"]);
    assert_eq!(app.space_version().await, 10);
}

#[actix_web::test]
async fn a_malformed_batch_is_400_naming_each_operation_field() {
    let app = spawn_app();
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "GET", "path": "/api/v1/tasks"},
                {"method": "POST", "path": "/api/v1/tasks?spaceId=x"},
                {"method": "PATCH", "path": "/api/v1/tasks"},
                {"method": "POST", "path": "/api/v1/goals"},
                {"method": "POST", "path": "/api/v1/tasks", "extra": 1},
                {"method": "DELETE", "path": "/api/v1/tasks/bad id"},
                {"method": "POST", "path": "/api/v1/tasks", "body": [1]},
            ]}),
        )
        .await;
    assert_invalid_fields(
        &reply,
        &[
            "operations[0].method",
            "operations[1].path",
            "operations[2].path",
            "operations[3].path",
            "operations[4].extra",
            "operations[5].path",
            "operations[6].body",
        ],
    );
    for bad in [
        json!([]),
        json!("operations"),
        json!({}),
        json!({"operations": []}),
        json!({"operations": "x"}),
        json!({"operations": [], "x": 1}),
    ] {
        let reply = app.post("/api/v1/batch", bad).await;
        assert_problem(&reply, 400, "validation_failed");
    }
    let too_many: Vec<Value> = (0..101)
        .map(|_| operation("POST", "/api/v1/lists", json!({})))
        .collect();
    let reply = app
        .post("/api/v1/batch", json!({ "operations": too_many }))
        .await;
    assert_invalid_fields(&reply, &["operations"]);
    assert_eq!(app.space_version().await, 0);
}
