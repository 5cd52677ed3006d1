//! Task dependencies (docs §15): `predecessorIds` and its rules, `dependency_cycle`,
//! the read-only `isBlocked` with `ALL` and `ANY`, its flips touching other tasks in the
//! same write, the `isBlocked` filter, batches and restarts.

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app, Reply, TestApp};

/// `isBlocked` of task `id` as the item GET shows it.
async fn blocked(app: &TestApp, id: &str) -> bool {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data()["isBlocked"]
        .as_bool()
        .unwrap_or_else(|| panic!("isBlocked of {id} is not a boolean: {:#}", reply.body))
}

/// Every record of the feed after version `since`, as (version, kind, id).
async fn feed(app: &TestApp, since: u64) -> Vec<(u64, String, String)> {
    let reply = app
        .get(&format!("/api/v1/changes?since={since}&limit=1000"))
        .await;
    reply.expect(200);
    reply
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["record"]["versionUpdatedAt"].as_u64().unwrap(),
                c["kind"].as_str().unwrap().to_string(),
                c["record"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn task(version: u64, id: &str) -> (u64, String, String) {
    (version, "task".into(), id.into())
}

/// The ids of a listing's records.
fn ids(records: &[Value]) -> Vec<&str> {
    records.iter().map(|r| r["id"].as_str().unwrap()).collect()
}

#[track_caller]
fn assert_cycle(reply: &Reply, cycle: &[&str]) {
    assert_problem(reply, 422, "dependency_cycle");
    assert_eq!(reply.body["cycle"], json!(cycle), "{:#}", reply.body);
    let mut looped: Vec<&str> = cycle.to_vec();
    looped.push(cycle[0]);
    let detail = reply.body["detail"].as_str().unwrap();
    assert!(
        detail.contains(&looped.join(" -> ")),
        "the detail names the cycle in order: {detail}"
    );
}

#[actix_web::test]
async fn predecessor_ids_are_an_array_of_distinct_ids_kept_in_order_and_cleared_with_empty() {
    let app = spawn_app();
    for id in ["a", "b", "c"] {
        app.create("tasks", json!({ "todoId": id })).await;
    }
    let created = app
        .create(
            "tasks",
            json!({"todoId": "t", "predecessorIds": ["c", "a", "c", "b", "a"]}),
        )
        .await;
    assert_eq!(created["predecessorIds"], json!(["c", "a", "b"]));
    let plain = app.create("tasks", json!({"todoId": "plain"})).await;
    assert_eq!(plain["predecessorIds"], json!([]));
    assert_eq!(plain["isBlocked"], false);

    let patched = app
        .patch("/api/v1/tasks/t", json!({"predecessorIds": ["b"]}))
        .await;
    patched.expect(200);
    assert_eq!(patched.data()["predecessorIds"], json!(["b"]));
    let cleared = app
        .patch("/api/v1/tasks/t", json!({"predecessorIds": []}))
        .await;
    assert_eq!(cleared.data()["predecessorIds"], json!([]));
    assert_eq!(cleared.data()["isBlocked"], false);

    for bad in [
        json!(null),
        json!("a"),
        json!({"a": 1}),
        json!([1]),
        json!([null]),
        json!([["a"]]),
    ] {
        let version = app.space_version().await;
        let reply = app
            .post("/api/v1/tasks", json!({ "predecessorIds": bad }))
            .await;
        assert_invalid_fields(&reply, &["predecessorIds"]);
        let reply = app
            .patch("/api/v1/tasks/t", json!({ "predecessorIds": bad }))
            .await;
        assert_invalid_fields(&reply, &["predecessorIds"]);
        assert_eq!(app.space_version().await, version, "{bad}");
    }
}

#[actix_web::test]
async fn at_most_100_predecessors_once_duplicates_are_dropped() {
    let app = spawn_app();
    let hundred: Vec<String> = (0..100).map(|i| format!("p{i}")).collect();
    let batch: Vec<Value> = hundred
        .iter()
        .map(|id| json!({"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": id}}))
        .collect();
    app.post("/api/v1/batch", json!({ "operations": batch }))
        .await
        .expect(200);
    app.create("tasks", json!({"todoId": "p100"})).await;
    let mut with_duplicates = hundred.clone();
    with_duplicates.extend(hundred.iter().take(10).cloned());
    let created = app
        .create(
            "tasks",
            json!({"todoId": "full", "predecessorIds": with_duplicates}),
        )
        .await;
    assert_eq!(created["predecessorIds"].as_array().unwrap().len(), 100);
    let mut over = hundred.clone();
    over.push("p100".into());
    let reply = app
        .post("/api/v1/tasks", json!({ "predecessorIds": over }))
        .await;
    assert_invalid_fields(&reply, &["predecessorIds"]);
    let reply = app
        .patch("/api/v1/tasks/full", json!({ "predecessorIds": over }))
        .await;
    assert_invalid_fields(&reply, &["predecessorIds"]);
}

#[actix_web::test]
async fn predecessors_must_be_existing_tasks_that_are_not_deleted_when_set() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "a"})).await;
    app.create("tasks", json!({"todoId": "target"})).await;
    app.create("tasks", json!({"todoId": "gone"})).await;
    app.create("lists", json!({"listId": "l"})).await;
    app.delete("/api/v1/tasks/gone").await.expect(200);
    let version = app.space_version().await;
    for bad in [
        json!(["nope"]),
        json!(["a", "gone"]),
        json!(["l"]),
        json!(["a b"]),
    ] {
        let reply = app
            .post(
                "/api/v1/tasks",
                json!({"todoId": "t", "predecessorIds": bad}),
            )
            .await;
        assert_problem(&reply, 422, "invalid_reference");
        let reply = app
            .patch("/api/v1/tasks/target", json!({ "predecessorIds": bad }))
            .await;
        assert_problem(&reply, 422, "invalid_reference");
    }
    assert_eq!(app.space_version().await, version);
    // Named while active, then deleted: kept, and the task may be written and restored.
    app.create("tasks", json!({"todoId": "p"})).await;
    app.create("tasks", json!({"todoId": "t", "predecessorIds": ["p"]}))
        .await;
    app.delete("/api/v1/tasks/p").await.expect(200);
    let renamed = app.patch("/api/v1/tasks/t", json!({"name": "x"})).await;
    renamed.expect(200);
    assert_eq!(renamed.data()["predecessorIds"], json!(["p"]));
    app.delete("/api/v1/tasks/t").await.expect(200);
    let restored = app.default_user().restore("/api/v1/tasks/t").await;
    restored.expect(200);
    assert_eq!(restored.data()["predecessorIds"], json!(["p"]));
    assert_eq!(
        restored.data()["isBlocked"],
        false,
        "a deleted predecessor is finished"
    );
}

#[actix_web::test]
async fn naming_itself_or_closing_a_cycle_is_422_dependency_cycle_with_the_cycle_in_order() {
    let app = spawn_app();
    let reply = app
        .post(
            "/api/v1/tasks",
            json!({"todoId": "self", "predecessorIds": ["self"]}),
        )
        .await;
    assert_cycle(&reply, &["self"]);
    app.get("/api/v1/tasks/self").await.expect(404);
    app.create("tasks", json!({"todoId": "a"})).await;
    app.create("tasks", json!({"todoId": "b", "predecessorIds": ["a"]}))
        .await;
    app.create("tasks", json!({"todoId": "c", "predecessorIds": ["b"]}))
        .await;
    app.create("tasks", json!({"todoId": "x"})).await;
    let version = app.space_version().await;
    let reply = app
        .patch("/api/v1/tasks/a", json!({"predecessorIds": ["a"]}))
        .await;
    assert_cycle(&reply, &["a"]);
    // a -> c -> b -> a: a would wait for c, which waits for b, which waits for a.
    let reply = app
        .patch("/api/v1/tasks/a", json!({"predecessorIds": ["x", "c"]}))
        .await;
    assert_cycle(&reply, &["a", "c", "b"]);
    let reply = app
        .patch("/api/v1/tasks/b", json!({"predecessorIds": ["c"]}))
        .await;
    assert_cycle(&reply, &["b", "c"]);
    assert_eq!(
        app.space_version().await,
        version,
        "refusals change nothing"
    );

    // Deleted tasks still count, so a restore can never close a cycle.
    app.delete("/api/v1/tasks/b").await.expect(200);
    let reply = app
        .patch("/api/v1/tasks/a", json!({"predecessorIds": ["c"]}))
        .await;
    assert_cycle(&reply, &["a", "c", "b"]);
    app.default_user()
        .restore("/api/v1/tasks/b")
        .await
        .expect(200);
    // A chain is fine as long as it does not loop.
    app.patch("/api/v1/tasks/x", json!({"predecessorIds": ["c"]}))
        .await
        .expect(200);
}

#[actix_web::test]
async fn is_blocked_follows_all_and_any_and_what_finishes_a_predecessor() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "p", "status": "open"}))
        .await;
    app.create("tasks", json!({"todoId": "q"})).await;
    let all = app
        .create(
            "tasks",
            json!({"todoId": "all", "predecessorIds": ["p", "q"]}),
        )
        .await;
    assert_eq!(all["isBlocked"], true);
    let any = app
        .create(
            "tasks",
            json!({"todoId": "any", "predecessorIds": ["p", "q"], "TodoPredecessorsAllAny": "ANY"}),
        )
        .await;
    assert_eq!(any["isBlocked"], true);
    let free = app
        .create(
            "tasks",
            json!({"todoId": "free", "TodoPredecessorsAllAny": "ANY"}),
        )
        .await;
    assert_eq!(free["isBlocked"], false, "no predecessors: never blocked");

    // "DONE" counts (ASCII case-insensitive); "done!" and "finished" do not.
    for (status, finished) in [
        ("done!", false),
        ("finished", false),
        ("DONE", true),
        ("in progress", false),
        ("Completed", true),
    ] {
        app.patch("/api/v1/tasks/p", json!({ "status": status }))
            .await
            .expect(200);
        assert_eq!(blocked(&app, "any").await, !finished, "status {status}");
        assert!(blocked(&app, "all").await, "q is still open");
    }
    app.patch("/api/v1/tasks/q", json!({"status": "done"}))
        .await
        .expect(200);
    assert!(!blocked(&app, "all").await);
    app.patch("/api/v1/tasks/p", json!({"status": null}))
        .await
        .expect(200);
    assert!(blocked(&app, "all").await);
    assert!(!blocked(&app, "any").await, "q is done");

    // Deleting finishes a predecessor; restoring unfinishes it.
    app.delete("/api/v1/tasks/p").await.expect(200);
    assert!(!blocked(&app, "all").await);
    app.default_user()
        .restore("/api/v1/tasks/p")
        .await
        .expect(200);
    assert!(blocked(&app, "all").await);

    // Changing the gate or the predecessors recomputes the task itself.
    let switched = app
        .patch(
            "/api/v1/tasks/all",
            json!({"TodoPredecessorsAllAny": "ANY"}),
        )
        .await;
    assert_eq!(switched.data()["isBlocked"], false);
    let narrowed = app
        .patch(
            "/api/v1/tasks/all",
            json!({"TodoPredecessorsAllAny": "ALL", "predecessorIds": ["p"]}),
        )
        .await;
    assert_eq!(narrowed.data()["isBlocked"], true);
}

#[actix_web::test]
async fn a_flip_touches_the_other_task_in_the_same_write_version_feed_and_etag() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "p"})).await;
    let d = app
        .create("tasks", json!({"todoId": "d", "predecessorIds": ["p"]}))
        .await;
    app.create("tasks", json!({"todoId": "e", "predecessorIds": ["p"]}))
        .await;
    app.create(
        "tasks",
        json!({"todoId": "f", "predecessorIds": ["p", "d"], "TodoPredecessorsAllAny": "ANY"}),
    )
    .await;
    let v4 = app.space_version().await;
    let etag = app
        .get("/api/v1/tasks/d")
        .await
        .header("etag")
        .unwrap()
        .to_string();
    assert_eq!(etag, format!("\"{}\"", d["versionUpdatedAt"]));

    let done = app
        .patch("/api/v1/tasks/p", json!({"status": "done"}))
        .await;
    done.expect(200);
    assert_eq!(done.version(), v4 + 1, "one write, one version");
    assert_eq!(
        feed(&app, v4).await,
        [
            task(v4 + 1, "d"),
            task(v4 + 1, "e"),
            task(v4 + 1, "f"),
            task(v4 + 1, "p")
        ]
    );
    let d_now = app.get("/api/v1/tasks/d").await;
    assert_eq!(d_now.data()["isBlocked"], false);
    assert_eq!(d_now.data()["versionUpdatedAt"], v4 + 1);
    assert_eq!(d_now.data()["updatedAt"], done.data()["updatedAt"]);
    assert_ne!(d_now.header("etag").unwrap(), etag);
    let stale = app
        .send_with(
            Method::GET,
            "/api/v1/tasks/d",
            None,
            &[("If-None-Match", &etag)],
        )
        .await;
    stale.expect(200);

    // A write that flips nothing else touches only its task: renaming, or a status that
    // keeps it finished.
    app.patch(
        "/api/v1/tasks/p",
        json!({"name": "renamed", "status": "COMPLETED"}),
    )
    .await
    .expect(200);
    assert_eq!(feed(&app, v4 + 1).await, [task(v4 + 2, "p")]);
    // f (ANY) stays unblocked when d reopens, since p is finished: only d is touched.
    app.patch("/api/v1/tasks/d", json!({"status": "open"}))
        .await
        .expect(200);
    assert_eq!(feed(&app, v4 + 2).await, [task(v4 + 3, "d")]);
    // Reopening p blocks all three again (f waits for d or p); deleting p finishes it,
    // restoring it unfinishes it: each time all three flip in p's write.
    app.patch("/api/v1/tasks/p", json!({"status": "open"}))
        .await
        .expect(200);
    assert_eq!(
        feed(&app, v4 + 3).await,
        [
            task(v4 + 4, "d"),
            task(v4 + 4, "e"),
            task(v4 + 4, "f"),
            task(v4 + 4, "p")
        ]
    );
    app.delete("/api/v1/tasks/p").await.expect(200);
    assert_eq!(
        feed(&app, v4 + 4).await,
        [
            task(v4 + 5, "d"),
            task(v4 + 5, "e"),
            task(v4 + 5, "f"),
            task(v4 + 5, "p")
        ]
    );
    app.default_user()
        .restore("/api/v1/tasks/p")
        .await
        .expect(200);
    assert_eq!(
        feed(&app, v4 + 5).await,
        [
            task(v4 + 6, "d"),
            task(v4 + 6, "e"),
            task(v4 + 6, "f"),
            task(v4 + 6, "p")
        ]
    );
    assert!(blocked(&app, "d").await && blocked(&app, "e").await && blocked(&app, "f").await);
}

#[actix_web::test]
async fn is_blocked_filters_listings_with_and_and_its_own_cursor() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "l"})).await;
    app.create("tasks", json!({"todoId": "p"})).await;
    for i in 0..5 {
        app.create(
            "tasks",
            json!({"todoId": format!("b{i}"), "predecessorIds": ["p"], "listId": "l"}),
        )
        .await;
    }
    app.create("tasks", json!({"todoId": "free", "listId": "l"}))
        .await;
    let user = app.default_user();
    let blocked_ones = user.list_all("/api/v1/tasks?isBlocked=true", 2).await;
    assert_eq!(ids(&blocked_ones), ["b0", "b1", "b2", "b3", "b4"]);
    let free = user.list_all("/api/v1/tasks?isBlocked=false", 2).await;
    assert_eq!(ids(&free), ["p", "free"]);
    let both = user
        .list_all("/api/v1/tasks?isBlocked=false&listId=l", 2)
        .await;
    assert_eq!(ids(&both), ["free"]);

    for bad in ["TRUE", "1", "yes", ""] {
        let reply = app.get(&format!("/api/v1/tasks?isBlocked={bad}")).await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
    // A cursor belongs to its isBlocked value.
    let page = app.get("/api/v1/tasks?isBlocked=true&limit=2").await;
    let cursor = page.body["nextCursor"].as_str().unwrap().to_string();
    let next = app
        .get(&format!(
            "/api/v1/tasks?isBlocked=true&limit=2&cursor={cursor}"
        ))
        .await;
    assert_eq!(ids(next.data().as_array().unwrap()), ["b2", "b3"]);
    for other in ["isBlocked=false&", "", "isBlocked=true&listId=l&"] {
        let reply = app
            .get(&format!("/api/v1/tasks?{other}limit=2&cursor={cursor}"))
            .await;
        assert_problem(&reply, 400, "invalid_cursor");
    }
    // A task that flips during a walk is left out of its later pages, as any change is.
    app.patch("/api/v1/tasks/p", json!({"status": "done"}))
        .await
        .expect(200);
    let rest = app
        .get(&format!(
            "/api/v1/tasks?isBlocked=true&limit=2&cursor={cursor}"
        ))
        .await;
    assert_eq!(rest.data(), &json!([]));
    let now_free = user.list_all("/api/v1/tasks?isBlocked=false", 100).await;
    assert_eq!(now_free.len(), 7);
}

#[actix_web::test]
async fn is_blocked_in_a_body_is_read_only() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "t"})).await;
    for value in [json!(true), json!(false), json!(null)] {
        let reply = app
            .post("/api/v1/tasks", json!({ "isBlocked": value }))
            .await;
        assert_invalid_fields(&reply, &["isBlocked"]);
        let reply = app
            .patch(
                "/api/v1/tasks/t",
                json!({ "isBlocked": value, "name": "n" }),
            )
            .await;
        assert_invalid_fields(&reply, &["isBlocked"]);
    }
    assert_eq!(app.space_version().await, 1);
    for collection in ["lists", "contexts"] {
        let reply = app
            .post(
                &format!("/api/v1/{collection}"),
                json!({"predecessorIds": []}),
            )
            .await;
        assert_invalid_fields(&reply, &["predecessorIds"]);
    }
}

#[actix_web::test]
async fn a_batch_keeps_dependencies_right_op_by_op_or_changes_nothing() {
    let app = spawn_app();
    let op = |method: &str, path: &str, body: Value| json!({"method": method, "path": path, "body": body});
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                op("POST", "/api/v1/tasks", json!({"todoId": "a"})),
                op("POST", "/api/v1/tasks", json!({"todoId": "b", "predecessorIds": ["a"]})),
                op("PATCH", "/api/v1/tasks/a", json!({"status": "done"})),
                op("POST", "/api/v1/tasks", json!({"todoId": "c", "predecessorIds": ["b"]})),
            ]}),
        )
        .await;
    reply.expect(200);
    let results = reply.body["results"].as_array().unwrap();
    assert_eq!(results[1]["data"]["isBlocked"], true);
    assert_eq!(results[3]["data"]["isBlocked"], true);
    assert_eq!(
        feed(&app, 0).await,
        [task(3, "a"), task(3, "b"), task(4, "c")],
        "b flipped in operation 2's version"
    );
    assert!(!blocked(&app, "b").await);

    // A cycle in operation 1 undoes operation 0 too.
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                op("PATCH", "/api/v1/tasks/b", json!({"status": "done"})),
                op("PATCH", "/api/v1/tasks/a", json!({"predecessorIds": ["c"]})),
            ]}),
        )
        .await;
    assert_problem(&reply, 422, "dependency_cycle");
    assert_eq!(reply.body["operationIndex"], 1);
    assert_eq!(reply.body["cycle"], json!(["a", "c", "b"]));
    assert_eq!(app.space_version().await, 4);
    assert!(blocked(&app, "c").await, "b's status was not kept");
}

#[actix_web::test]
async fn predecessors_and_is_blocked_survive_a_restart_and_keep_flipping() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "p"})).await;
    app.create("tasks", json!({"todoId": "d", "predecessorIds": ["p"]}))
        .await;
    app.create(
        "tasks",
        json!({"todoId": "any", "predecessorIds": ["p", "d"], "TodoPredecessorsAllAny": "ANY"}),
    )
    .await;
    let before: Vec<Value> = app.default_user().list_all("/api/v1/tasks", 100).await;
    let app = app.restart();
    let after: Vec<Value> = app.default_user().list_all("/api/v1/tasks", 100).await;
    assert_eq!(after, before);
    assert!(blocked(&app, "d").await && blocked(&app, "any").await);
    // The reverse index came back too: finishing p flips both dependents.
    let version = app.space_version().await;
    app.patch("/api/v1/tasks/p", json!({"status": "done"}))
        .await
        .expect(200);
    assert_eq!(
        feed(&app, version).await,
        [
            task(version + 1, "any"),
            task(version + 1, "d"),
            task(version + 1, "p")
        ]
    );
    // And the cycle check: p cannot wait for a task that waits for it.
    let reply = app
        .patch("/api/v1/tasks/p", json!({"predecessorIds": ["any"]}))
        .await;
    assert_cycle(&reply, &["p", "any"]);

    // After kill -9 the journal replays the flips and rebuilds the reverse index from them.
    let mut app = app;
    app.crash();
    let app = app.restart_after_stop();
    assert!(!blocked(&app, "d").await && !blocked(&app, "any").await);
    let version = app.space_version().await;
    app.delete("/api/v1/tasks/d").await.expect(200);
    assert_eq!(feed(&app, version).await, [task(version + 1, "d")]);
    app.patch("/api/v1/tasks/p", json!({"status": "open"}))
        .await
        .expect(200);
    assert_eq!(
        feed(&app, version + 1).await,
        [task(version + 2, "d"), task(version + 2, "p")],
        "deleted d is finished, so `any` stays free; d's own isBlocked is kept right"
    );
    assert!(!blocked(&app, "any").await && blocked(&app, "d").await);
}

/// `layers` layers of 100 tasks `l{layer}-{i}`, each naming every task of the layer below,
/// created a layer a batch; then `top` and `tail` naming `top`, so that a search for `top`
/// from layer `layers - 1` follows `(layers - 1) * 10,000` edges.
async fn layered_graph(app: &TestApp, layers: usize) {
    for layer in 0..layers {
        let below: Vec<String> = match layer {
            0 => Vec::new(),
            _ => (0..100).map(|i| format!("l{}-{i}", layer - 1)).collect(),
        };
        let operations: Vec<Value> = (0..100)
            .map(|i| {
                json!({"method": "POST", "path": "/api/v1/tasks",
                       "body": {"todoId": format!("l{layer}-{i}"), "predecessorIds": below}})
            })
            .collect();
        app.post("/api/v1/batch", json!({ "operations": operations }))
            .await
            .expect(200);
    }
    app.create("tasks", json!({"todoId": "top"})).await;
    app.create(
        "tasks",
        json!({"todoId": "tail", "predecessorIds": ["top"]}),
    )
    .await;
}

#[actix_web::test]
async fn a_batch_whose_cycle_checks_pass_a_million_edges_is_refused_whole_at_that_operation() {
    let app = spawn_app();
    layered_graph(&app, 4).await;
    let layer3: Vec<String> = (0..100).map(|i| format!("l3-{i}")).collect();
    // Operations 0, 2, 4, ... each add the 100 tasks of layer 3 to `top` (a search of
    // 3 * 10,000 edges), the odd ones clear them again: the 34th search, operation 66,
    // would pass 1,000,000 edges in all.
    let operations = |count: usize| -> Vec<Value> {
        (0..count)
            .map(|i| {
                let predecessors = if i % 2 == 0 {
                    layer3.clone()
                } else {
                    Vec::new()
                };
                json!({"method": "PATCH", "path": "/api/v1/tasks/top",
                       "body": {"predecessorIds": predecessors}})
            })
            .collect()
    };
    let version = app.space_version().await;
    let top = app
        .get("/api/v1/tasks/top")
        .await
        .expect(200)
        .data()
        .clone();
    let reply = app
        .post("/api/v1/batch", json!({ "operations": operations(100) }))
        .await;
    assert_problem(&reply, 422, "dependency_too_complex");
    assert_eq!(reply.body["operationIndex"], 66, "{:#}", reply.body);
    let detail = reply.body["detail"].as_str().unwrap();
    assert!(detail.contains("1000000"), "{detail}");
    assert_eq!(app.space_version().await, version, "nothing changed");
    assert!(feed(&app, version).await.is_empty(), "no record touched");
    assert_eq!(app.get("/api/v1/tasks/top").await.expect(200).data(), &top);

    // Each search alone is well within the budget, and so are 33 of them in one batch.
    let reply = app
        .post("/api/v1/batch", json!({ "operations": operations(66) }))
        .await;
    reply.expect(200);
    assert_eq!(app.space_version().await, version + 66);
    let patched = app
        .patch("/api/v1/tasks/top", json!({ "predecessorIds": layer3 }))
        .await;
    patched.expect(200);
    assert_eq!(patched.data()["isBlocked"], true);
}
