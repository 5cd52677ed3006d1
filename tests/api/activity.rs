//! Activity and undo (docs §23): entries with their changes, actor and door, cascades,
//! paging, reverts of creates, updates, deletes and batches, conflicts and `force`,
//! retention, restarts and `kill -9`, and bad input changing nothing.

use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, Options, TestApp};

/// The entries of `query` (a query string of `/api/v1/activity`).
async fn activity(app: &TestApp, query: &str) -> Value {
    let reply = app.get(&format!("/api/v1/activity?{query}")).await;
    reply.expect(200);
    reply.body.clone()
}

/// (version, kind, id, action, via) of each entry of a page.
fn summary(page: &Value) -> Vec<(u64, String, String, String, String)> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["version"].as_u64().unwrap(),
                e["kind"].as_str().unwrap().to_string(),
                e["id"].as_str().unwrap().to_string(),
                e["action"].as_str().unwrap().to_string(),
                e["actor"]["via"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn row(
    v: u64,
    kind: &str,
    id: &str,
    action: &str,
    via: &str,
) -> (u64, String, String, String, String) {
    (v, kind.into(), id.into(), action.into(), via.into())
}

async fn revert(app: &TestApp, version: u64, query: &str) -> crate::helpers::Reply {
    app.post(
        &format!("/api/v1/activity/{version}/revert?{query}"),
        json!({}),
    )
    .await
}

#[actix_web::test]
async fn each_write_has_entries_with_changes_actor_and_door() {
    let app = spawn_app();
    let created = app
        .create("tasks", json!({"todoId": "a", "name": "one"}))
        .await;
    let v1 = created["versionUpdatedAt"].as_u64().unwrap();
    app.patch("/api/v1/tasks/a", json!({"name": "two"}))
        .await
        .expect(200);
    app.delete("/api/v1/tasks/a").await.expect(200);
    let page = activity(&app, "").await;
    assert_eq!(
        summary(&page),
        vec![
            row(v1 + 2, "task", "a", "deleted", "api"),
            row(v1 + 1, "task", "a", "updated", "api"),
            row(v1, "task", "a", "created", "api"),
        ]
    );
    let entries = page["data"].as_array().unwrap();
    assert_eq!(entries[0]["changes"], json!({}));
    assert_eq!(
        entries[1]["changes"],
        json!({"name": {"from": "one", "to": "two"}})
    );
    assert_eq!(
        entries[2]["changes"]["name"],
        json!({"from": null, "to": "one"})
    );
    for base in [
        "id",
        "todoId",
        "spaceId",
        "createdAt",
        "updatedAt",
        "versionUpdatedAt",
    ] {
        assert!(entries[2]["changes"].get(base).is_none(), "{base}");
    }
    assert!(entries[2]["actor"]["userId"].is_string());
    assert_eq!(entries[2]["actor"]["tokenId"], Value::Null);
    assert_eq!(entries[2]["revertOf"], Value::Null);
    assert_eq!(entries[2]["at"], created["updatedAt"]);
    assert_eq!(page["hasMore"], json!(false));
    assert_eq!(page["nextBefore"], Value::Null);
    // The item route is the same with kind and id set.
    let reply = app.get("/api/v1/tasks/a/activity").await;
    reply.expect(200);
    assert_eq!(reply.body["data"].as_array().unwrap().len(), 3);
}

#[actix_web::test]
async fn a_batch_shares_its_time_and_a_revert_of_any_version_undoes_it_all() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "x", "name": "keep"}))
        .await;
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "b1"}},
                {"method": "PATCH", "path": "/api/v1/tasks/x", "body": {"name": "changed"}},
            ]}),
        )
        .await;
    reply.expect(200);
    let last = reply.version();
    let page = activity(&app, &format!("since={}", last - 2)).await;
    assert_eq!(
        summary(&page),
        vec![
            row(last, "task", "x", "updated", "batch"),
            row(last - 1, "task", "b1", "created", "batch"),
        ]
    );
    assert_eq!(page["data"][0]["at"], page["data"][1]["at"]);
    let reply = revert(&app, last - 1, "").await;
    reply.expect(200);
    let results = reply.body["results"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|r| r["data"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["b1", "x"]);
    assert!(results.iter().all(|r| r["status"] == 200));
    assert_eq!(reply.version(), last + 1);
    let x = app.get("/api/v1/tasks/x").await;
    assert_eq!(x.data()["name"], "keep");
    let b1 = app.get("/api/v1/tasks/b1").await;
    assert_eq!(b1.data()["isDeleted"], true);
    let page = activity(&app, &format!("since={last}")).await;
    assert_eq!(
        summary(&page),
        vec![
            row(last + 1, "task", "b1", "deleted", "api"),
            row(last + 1, "task", "x", "updated", "api"),
        ]
    );
    assert_eq!(page["data"][0]["revertOf"], json!(last - 1));
    // Reverting the revert redoes.
    revert(&app, last + 1, "").await.expect(200);
    let x = app.get("/api/v1/tasks/x").await;
    assert_eq!(x.data()["name"], "changed");
    assert_eq!(app.get("/api/v1/tasks/b1").await.data()["isDeleted"], false);
}

#[actix_web::test]
async fn a_field_written_since_is_a_conflict_unless_forced() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "c", "name": "a"}))
        .await;
    let reply = app.patch("/api/v1/tasks/c", json!({"name": "b"})).await;
    let undone = reply.data()["versionUpdatedAt"].as_u64().unwrap();
    app.patch("/api/v1/tasks/c", json!({"name": "c"}))
        .await
        .expect(200);
    let before = app.space_version().await;
    let reply = revert(&app, undone, "").await;
    assert_problem(&reply, 409, "conflict");
    assert_eq!(
        reply.body["fields"],
        json!([{"kind": "task", "id": "c", "field": "name"}])
    );
    assert_eq!(app.space_version().await, before);
    assert_problem(
        &revert(&app, undone, "force=yes").await,
        400,
        "invalid_parameter",
    );
    revert(&app, undone, "force=true").await.expect(200);
    assert_eq!(app.get("/api/v1/tasks/c").await.data()["name"], "a");
}

#[actix_web::test]
async fn reverts_of_creates_and_deletes_and_their_conflicts() {
    let app = spawn_app();
    let created = app
        .create("lists", json!({"listId": "l", "name": "n"}))
        .await;
    let v = created["versionUpdatedAt"].as_u64().unwrap();
    revert(&app, v, "").await.expect(200);
    assert_eq!(app.get("/api/v1/lists/l").await.data()["isDeleted"], true);
    app.post("/api/v1/lists/l/restore", json!({}))
        .await
        .expect(200);
    // The created record was written since: a conflict on isDeleted.
    let reply = revert(&app, v, "").await;
    assert_problem(&reply, 409, "conflict");
    assert_eq!(reply.body["fields"][0]["field"], "isDeleted");
    let deleted = app.delete("/api/v1/lists/l").await;
    deleted.expect(200);
    let dv = deleted.data()["versionUpdatedAt"].as_u64().unwrap();
    revert(&app, dv, "").await.expect(200);
    assert_eq!(app.get("/api/v1/lists/l").await.data()["isDeleted"], false);
}

#[actix_web::test]
async fn cascades_are_entries_of_their_own_with_the_cascade_door() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "p"})).await;
    app.create("tasks", json!({"todoId": "k", "parentId": "p"}))
        .await;
    let reply = app.delete("/api/v1/tasks/p").await;
    let v = reply.data()["versionUpdatedAt"].as_u64().unwrap();
    let page = activity(&app, &format!("since={}", v - 1)).await;
    assert_eq!(
        summary(&page),
        vec![
            row(v, "task", "k", "deleted", "cascade"),
            row(v, "task", "p", "deleted", "api"),
        ]
    );
    revert(&app, v, "").await.expect(200);
    assert_eq!(app.get("/api/v1/tasks/k").await.data()["isDeleted"], false);
    assert_eq!(app.get("/api/v1/tasks/p").await.data()["isDeleted"], false);
}

#[actix_web::test]
async fn pages_finish_the_version_they_started() {
    let app = spawn_app();
    for i in 0..3 {
        app.create("tasks", json!({"todoId": format!("t{i}")}))
            .await;
    }
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "POST", "path": "/api/v1/lists", "body": {"listId": "l1"}},
            ]}),
        )
        .await;
    reply.expect(200);
    let page = activity(&app, "limit=2").await;
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    assert_eq!(page["hasMore"], true);
    let next = page["nextBefore"].as_u64().unwrap();
    let page = activity(&app, &format!("limit=2&before={next}")).await;
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    assert_eq!(page["hasMore"], false);
    let page = activity(&app, "kind=list").await;
    assert_eq!(summary(&page).len(), 1);
    let page = activity(&app, "id=t1").await;
    assert_eq!(summary(&page)[0].2, "t1");
}

#[actix_web::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "a"})).await;
    let version = app.space_version().await;
    for query in ["kind=goal", "limit=0", "limit=1001", "before=x", "since=-1"] {
        let reply = app.get(&format!("/api/v1/activity?{query}")).await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
    assert_problem(
        &app.get("/api/v1/tasks/nope/activity").await,
        404,
        "not_found",
    );
    assert_problem(&revert(&app, 999, "").await, 404, "not_found");
    assert_problem(&revert(&app, 0, "").await, 404, "not_found");
    assert_eq!(app.space_version().await, version);
}

#[actix_web::test]
async fn retention_keeps_at_most_the_newest_entries() {
    let app = spawn_app_with(Options {
        env: vec![("TASKD_ACTIVITY_MAX".into(), "3".into())],
        ..Options::default()
    });
    for i in 0..6 {
        app.create("tasks", json!({"todoId": format!("r{i}")}))
            .await;
    }
    let page = activity(&app, "").await;
    let ids: Vec<String> = summary(&page).into_iter().map(|r| r.2).collect();
    assert_eq!(ids, ["r5", "r4", "r3"]);
    let first = app.get("/api/v1/tasks/r0").await.data()["versionUpdatedAt"]
        .as_u64()
        .unwrap();
    assert_problem(&revert(&app, first, "").await, 404, "not_found");
}

#[actix_web::test]
async fn activity_survives_a_restart_and_a_kill() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "s", "name": "a"}))
        .await;
    app.patch("/api/v1/tasks/s", json!({"name": "b"}))
        .await
        .expect(200);
    let before = summary(&activity(&app, "").await);
    let mut app = app.restart();
    assert_eq!(summary(&activity(&app, "").await), before);
    app.patch("/api/v1/tasks/s", json!({"name": "c"}))
        .await
        .expect(200);
    let before = summary(&activity(&app, "").await);
    app.crash();
    let app = app.restart_after_stop();
    assert_eq!(summary(&activity(&app, "").await), before);
    let v = before[0].0;
    revert(&app, v, "").await.expect(200);
    assert_eq!(app.get("/api/v1/tasks/s").await.data()["name"], "b");
}

#[actix_web::test]
async fn a_torn_activity_tail_is_derived_again_from_the_journal() {
    let mut app = spawn_app();
    app.create("tasks", json!({"todoId": "t", "name": "a"}))
        .await;
    let before = summary(&activity(&app, "").await);
    app.crash();
    // What a kill in the middle of an append leaves: half a frame at the end.
    let dir = app.path("activity");
    for space in std::fs::read_dir(&dir).unwrap() {
        for segment in std::fs::read_dir(space.unwrap().path()).unwrap() {
            let path = segment.unwrap().path();
            if path.extension().is_some_and(|e| e == "act") {
                let bytes = std::fs::read(&path).unwrap();
                std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
            }
        }
    }
    let app = app.restart_after_stop();
    assert_eq!(summary(&activity(&app, "").await), before);
}
