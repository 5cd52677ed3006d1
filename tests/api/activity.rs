//! Activity and undo (docs §23): entries with their changes, actor and door, cascades,
//! paging, reverts of creates, updates, deletes and batches, conflicts and `force`,
//! retention, restarts and `kill -9`, and bad input changing nothing.

use std::time::Duration;

use awc::http::Method;
use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::durability::{kill_after, write_until_killed};
use crate::helpers::{
    assert_problem, millis, spawn_app, spawn_app_with, spawn_durable, Options, TestApp,
};
use crate::{dav, spaces};

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
    for query in [
        "kind=goal",
        "limit=0",
        "limit=1001",
        "before=x",
        "since=-1",
        "since=9007199254740992",
    ] {
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

/// The entries of record `id` (its item route), newest first.
async fn of_task(app: &TestApp, id: &str) -> Vec<Value> {
    let reply = app.get(&format!("/api/v1/tasks/{id}/activity")).await;
    reply.expect(200);
    reply.body["data"].as_array().unwrap().clone()
}

/// Task `id` as the item GET shows it.
async fn task(app: &TestApp, id: &str) -> Value {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data().clone()
}

/// An RFC 3339 UTC date-time `ms` milliseconds from now.
fn from_now(ms: i64) -> String {
    let at = chrono::Utc::now() + chrono::Duration::milliseconds(ms);
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Waits up to ten seconds for task `id`'s `remindedAt` to differ from `before`.
async fn fired_after(app: &TestApp, id: &str, before: &Value) -> Value {
    let started = std::time::Instant::now();
    loop {
        let task = task(app, id).await;
        if task["remindedAt"] != *before {
            return task;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{id} never fired"
        );
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
}

#[actix_web::test]
async fn caldav_puts_and_deletes_and_ics_imports_name_their_doors() {
    let app = spawn_app();
    let (user, space) = dav::me(&app).await;
    let auth = dav::basic(&app.default_token);
    let path = format!("/dav/calendars/{user}/{space}/phone.ics");
    let vtodo = |summary: &str| {
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\n\
             UID:phone-1\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:{summary}\r\nEND:VTODO\r\n\
             END:VCALENDAR\r\n"
        )
    };
    let created = dav::put(&app, &path, &auth, &[], &vtodo("From the phone")).await;
    assert_eq!(created.status, 201, "{created:?}");
    let changed = dav::put(&app, &path, &auth, &[], &vtodo("Renamed")).await;
    assert_eq!(changed.status, 204, "{changed:?}");
    let request = app
        .request(Method::DELETE, &path)
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(request, None).await.status, 204);
    let page = activity(&app, "").await;
    let entries = page["data"].as_array().unwrap();
    let id = entries[0]["id"].as_str().unwrap().to_string();
    let rows: Vec<_> = summary(&page).into_iter().map(|r| (r.3, r.4)).collect();
    let door = |action: &str| (action.to_string(), "caldav".to_string());
    assert_eq!(rows, [door("deleted"), door("updated"), door("created")]);
    assert!(entries.iter().all(|e| e["id"] == id.as_str()));
    assert_eq!(
        entries[1]["changes"]["name"],
        json!({"from": "From the phone", "to": "Renamed"})
    );
    assert_eq!(entries[2]["changes"]["name"]["to"], "From the phone");

    let body = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\
                BEGIN:VTODO\r\nUID:milk\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\n\
                BEGIN:VTODO\r\nUID:call\r\nSUMMARY:Call\r\nEND:VTODO\r\nEND:VCALENDAR\r\n";
    let request = app
        .authorized(Method::POST, "/api/v1/calendar.ics")
        .insert_header(("Content-Type", "text/calendar"));
    let imported = app.send(request, Some(body.as_bytes().to_vec())).await;
    imported.expect(200);
    let since = entries[0]["version"].as_u64().unwrap();
    let page = activity(&app, &format!("since={since}")).await;
    let rows = summary(&page);
    assert_eq!(rows.len(), 2, "{page}");
    assert!(rows.iter().all(|r| r.3 == "created" && r.4 == "import"));
    let names: Vec<&Value> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["changes"]["name"]["to"])
        .collect();
    assert!(names.contains(&&json!("Buy milk")) && names.contains(&&json!("Call")));
    // One import is one write: naming either version undoes both.
    revert(&app, rows[1].0, "").await.expect(200);
    for row in &rows {
        let reply = app.get(&format!("/api/v1/tasks/{}", row.2)).await;
        assert_eq!(reply.data()["isDeleted"], true, "{}", row.2);
    }
}

#[actix_web::test]
async fn a_firing_is_reminded_by_no_user_and_its_revert_fires_again() {
    let app = spawn_app();
    app.create(
        "tasks",
        json!({"todoId": "ring", "reminders": [{"at": from_now(300)}]}),
    )
    .await;
    let fired = fired_after(&app, "ring", &Value::Null).await;
    let entries = of_task(&app, "ring").await;
    let firing = &entries[0];
    assert_eq!(firing["action"], "reminded");
    assert_eq!(
        firing["actor"],
        json!({"userId": null, "tokenId": null, "via": "reminder"})
    );
    assert_eq!(
        firing["changes"]["remindedAt"],
        json!({"from": null, "to": fired["remindedAt"]})
    );
    let version = firing["version"].as_u64().unwrap();
    let reply = revert(&app, version, "").await;
    reply.expect(200);
    assert_eq!(reply.body["results"][0]["data"]["remindedAt"], Value::Null);
    // The reminder's time has passed and it is armed again: it fires again.
    let again = fired_after(&app, "ring", &Value::Null).await;
    assert!(millis(&again["remindedAt"]) >= millis(&fired["remindedAt"]));
    let entries = of_task(&app, "ring").await;
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["reminded", "updated", "reminded", "created"]);
    assert_eq!(entries[1]["revertOf"], json!(version));
}

#[actix_web::test]
async fn a_roll_is_its_own_action_and_its_revert_brings_the_occurrence_back() {
    let app = spawn_app();
    app.create(
        "tasks",
        json!({"todoId": "weekly", "dateDue": "2030-01-07T09:00:00Z",
               "recurrence": "FREQ=WEEKLY;COUNT=3"}),
    )
    .await;
    let rolled = app
        .patch("/api/v1/tasks/weekly", json!({"status": "done"}))
        .await;
    rolled.expect(200);
    let entries = of_task(&app, "weekly").await;
    assert_eq!(entries[0]["action"], "rolled");
    assert_eq!(entries[0]["actor"]["via"], "api");
    let changes = &entries[0]["changes"];
    assert_eq!(
        changes["dateDue"],
        json!({"from": "2030-01-07T09:00:00.000Z", "to": "2030-01-14T09:00:00.000Z"})
    );
    assert_eq!(changes["completedCount"], json!({"from": 0, "to": 1}));
    assert_eq!(
        changes["recurrence"],
        json!({"from": "FREQ=WEEKLY;COUNT=3", "to": "FREQ=WEEKLY;COUNT=2"})
    );
    let version = entries[0]["version"].as_u64().unwrap();
    revert(&app, version, "").await.expect(200);
    let back = task(&app, "weekly").await;
    assert_eq!(back["dateDue"], "2030-01-07T09:00:00.000Z");
    assert_eq!(back["recurrence"], "FREQ=WEEKLY;COUNT=3");
}

#[actix_web::test]
async fn an_is_blocked_flip_is_a_cascade_of_the_write_that_caused_it() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "first"})).await;
    let blocked = app
        .create(
            "tasks",
            json!({"todoId": "then", "predecessorIds": ["first"]}),
        )
        .await;
    assert_eq!(blocked["isBlocked"], true);
    let done = app
        .patch("/api/v1/tasks/first", json!({"status": "done"}))
        .await;
    done.expect(200);
    let v = done.version();
    let page = activity(&app, &format!("since={}", v - 1)).await;
    assert_eq!(
        summary(&page),
        vec![
            row(v, "task", "first", "updated", "api"),
            row(v, "task", "then", "updated", "cascade"),
        ]
    );
    let flip = &page["data"][1];
    assert_eq!(
        flip["changes"],
        json!({"isBlocked": {"from": true, "to": false}})
    );
    assert_eq!(flip["actor"]["userId"], page["data"][0]["actor"]["userId"]);
    // The revert sets status back; isBlocked follows as a cascade, never set.
    revert(&app, v, "").await.expect(200);
    assert_eq!(task(&app, "then").await["isBlocked"], true);
    let page = activity(&app, &format!("since={v}")).await;
    assert_eq!(
        summary(&page),
        vec![
            row(v + 1, "task", "first", "updated", "api"),
            row(v + 1, "task", "then", "updated", "cascade"),
        ]
    );
}

#[actix_web::test]
async fn a_revert_of_a_restore_deletes_and_a_subtree_restore_is_one_cascade() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "p"})).await;
    app.create("tasks", json!({"todoId": "k", "parentId": "p"}))
        .await;
    app.delete("/api/v1/tasks/p").await.expect(200);
    let restored = app.post("/api/v1/tasks/p/restore", json!({})).await;
    restored.expect(200);
    let v = restored.version();
    let page = activity(&app, &format!("since={}", v - 1)).await;
    assert_eq!(
        summary(&page),
        vec![
            row(v, "task", "k", "restored", "cascade"),
            row(v, "task", "p", "restored", "api"),
        ]
    );
    assert_eq!(page["data"][0]["changes"], json!({}));
    revert(&app, v, "").await.expect(200);
    assert_eq!(task(&app, "p").await["isDeleted"], true);
    assert_eq!(task(&app, "k").await["isDeleted"], true);
    // Deleted and restored since, so back as the restore left them: still a conflict on
    // isDeleted, for the subtree too, and nothing changes; force deletes them again.
    app.post("/api/v1/tasks/p/restore", json!({}))
        .await
        .expect(200);
    let before = app.space_version().await;
    let reply = revert(&app, v, "").await;
    assert_problem(&reply, 409, "conflict");
    assert_eq!(
        reply.body["fields"],
        json!([
            {"kind": "task", "id": "k", "field": "isDeleted"},
            {"kind": "task", "id": "p", "field": "isDeleted"},
        ])
    );
    assert_eq!(app.space_version().await, before);
    revert(&app, v, "force=true").await.expect(200);
    assert_eq!(task(&app, "k").await["isDeleted"], true);
}

#[actix_web::test]
async fn a_batch_conflicts_as_a_whole_and_force_undoes_it_all() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "a", "name": "a0"}))
        .await;
    app.create("tasks", json!({"todoId": "b", "name": "b0"}))
        .await;
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "PATCH", "path": "/api/v1/tasks/a", "body": {"name": "a1"}},
                {"method": "PATCH", "path": "/api/v1/tasks/b", "body": {"name": "b1"}},
            ]}),
        )
        .await;
    reply.expect(200);
    let v = reply.version();
    app.patch("/api/v1/tasks/b", json!({"name": "b2"}))
        .await
        .expect(200);
    let before = app.space_version().await;
    let reply = revert(&app, v, "").await;
    assert_problem(&reply, 409, "conflict");
    assert_eq!(
        reply.body["fields"],
        json!([{"kind": "task", "id": "b", "field": "name"}])
    );
    assert_eq!(app.space_version().await, before);
    assert_eq!(task(&app, "a").await["name"], "a1");
    let reply = revert(&app, v, "force=true").await;
    reply.expect(200);
    assert_eq!(reply.version(), before + 1);
    assert_eq!(task(&app, "a").await["name"], "a0");
    assert_eq!(task(&app, "b").await["name"], "b0");
}

#[actix_web::test]
async fn bad_reverts_answer_a_problem_and_change_nothing() {
    let app = spawn_app();
    let created = app.create("tasks", json!({"todoId": "a"})).await;
    let v = created["versionUpdatedAt"].as_u64().unwrap();
    let version = app.space_version().await;
    for force in ["maybe", "false", "TRUE", ""] {
        let reply = revert(&app, v, &format!("force={force}")).await;
        assert_problem(&reply, 400, "invalid_parameter");
        assert!(reply.body["detail"].as_str().unwrap().contains("force"));
    }
    for path in ["abc", "-1", "18446744073709551616"] {
        let reply = app
            .post(&format!("/api/v1/activity/{path}/revert"), json!({}))
            .await;
        assert_problem(&reply, 404, "not_found");
    }
    // A version of another space, then that space deleted.
    let other = app.post("/api/v1/spaces", json!({"name": "Other"})).await;
    other.expect(201);
    let other = other.data()["spaceId"].as_str().unwrap().to_string();
    let mut there = 0;
    while there <= version {
        let made = app
            .post(&format!("/api/v1/tasks?spaceId={other}"), json!({}))
            .await;
        made.expect(201);
        there = made.data()["versionUpdatedAt"].as_u64().unwrap();
    }
    // A version of the other space that this one never made.
    assert_problem(&revert(&app, there, "").await, 404, "not_found");
    app.delete(&format!("/api/v1/spaces/{other}"))
        .await
        .expect(200);
    let reply = revert(&app, there, &format!("spaceId={other}")).await;
    assert_problem(&reply, 404, "not_found");
    let reply = app.get(&format!("/api/v1/activity?spaceId={other}")).await;
    assert_problem(&reply, 404, "not_found");
    assert_eq!(app.space_version().await, version);
    assert_eq!(summary(&activity(&app, "").await).len(), 1);
}

#[actix_web::test]
async fn a_viewer_reads_the_activity_but_may_not_revert() {
    let app = spawn_app();
    let shared = app.post("/api/v1/spaces", json!({"name": "Shared"})).await;
    shared.expect(201);
    let space = shared.data()["spaceId"].as_str().unwrap().to_string();
    let created = app
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "a"}),
        )
        .await;
    created.expect(201);
    let v = created.data()["versionUpdatedAt"].as_u64().unwrap();
    let viewer = app.create_user("viewer").await;
    spaces::add_member(app.default_user(), &space, &viewer, "viewer").await;
    let as_viewer = app.user(&viewer.token);
    let reply = as_viewer
        .get(&format!("/api/v1/activity?spaceId={space}"))
        .await;
    reply.expect(200);
    assert_eq!(reply.body["data"][0]["id"], "a");
    let reply = as_viewer
        .post(
            &format!("/api/v1/activity/{v}/revert?spaceId={space}"),
            json!({}),
        )
        .await;
    assert_problem(&reply, 403, "forbidden");
    let task = app.get(&format!("/api/v1/tasks/a?spaceId={space}")).await;
    assert_eq!(task.data()["isDeleted"], false);
}

#[actix_web::test]
async fn retention_by_days_drops_what_is_older_than_the_cutoff() {
    // Zero days keeps nothing older than the current millisecond: the cutoff, with no wait.
    let app = spawn_app_with(Options {
        args: vec!["--activity-days".into(), "0".into()],
        ..Options::default()
    });
    let created = app.create("tasks", json!({"todoId": "old"})).await;
    let v = created["versionUpdatedAt"].as_u64().unwrap();
    actix_web::rt::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(activity(&app, "").await["data"], json!([]));
    assert_problem(&revert(&app, v, "").await, 404, "not_found");
    // What is dropped stays dropped across a restart, and new writes are kept no longer.
    let app = app.restart();
    assert_eq!(activity(&app, "").await["data"], json!([]));
    assert_eq!(task(&app, "old").await["isDeleted"], false);
}

#[actix_web::test]
async fn retention_by_count_holds_across_restarts_and_paging() {
    let app = spawn_app_with(Options {
        env: vec![("TASKD_ACTIVITY_MAX".into(), "4".into())],
        ..Options::default()
    });
    for i in 0..10 {
        app.create("tasks", json!({"todoId": format!("r{i}")}))
            .await;
    }
    let kept = summary(&activity(&app, "").await);
    assert_eq!(kept.len(), 4);
    assert_eq!(kept[0].2, "r9");
    let app = app.restart();
    assert_eq!(summary(&activity(&app, "").await), kept);
    // `since` and `before` below what is kept answer what is left.
    let page = activity(&app, "since=0&limit=2").await;
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    let next = page["nextBefore"].as_u64().unwrap();
    let page = activity(&app, &format!("before={next}")).await;
    assert_eq!(summary(&page), kept[2..]);
    assert_eq!(page["hasMore"], false);
}

/// Every kept entry of the default space, oldest first, walking all pages.
async fn whole_history(app: &TestApp) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut before = String::new();
    loop {
        let page = activity(app, &format!("limit=1000{before}")).await;
        entries.extend(page["data"].as_array().unwrap().iter().cloned());
        match page["nextBefore"].as_u64() {
            Some(next) => before = format!("&before={next}"),
            None => break,
        }
    }
    entries.reverse();
    entries
}

/// (todoId, versionUpdatedAt) of every task of the default space, deleted ones too, by
/// version: what the journal recovered.
async fn recovered(app: &TestApp) -> Vec<(String, u64)> {
    let all = app
        .default_user()
        .list_all("/api/v1/tasks?includeDeleted=true", 100)
        .await;
    let mut tasks: Vec<(String, u64)> = all
        .iter()
        .map(|t| {
            let id = t["todoId"].as_str().unwrap().to_string();
            (id, t["versionUpdatedAt"].as_u64().unwrap())
        })
        .collect();
    tasks.sort_by_key(|t| t.1);
    tasks
}

/// (id, version) of each entry, each a creation by the JSON API.
fn created(history: &[Value]) -> Vec<(String, u64)> {
    history
        .iter()
        .map(|e| {
            assert_eq!(
                (&e["action"], &e["actor"]["via"]),
                (&json!("created"), &json!("api"))
            );
            (
                e["id"].as_str().unwrap().to_string(),
                e["version"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[actix_web::test]
async fn kill_9_during_writes_leaves_a_history_that_matches_the_journal() {
    let mut app = spawn_durable("fsync", 50);
    let mut answered_in_all = Vec::new();
    for cycle in 0..3 {
        // Long enough for writes to be answered on a loaded machine, short enough for the
        // kill to land among them.
        let killer = kill_after(&app, Duration::from_millis(800 + 150 * cycle));
        let answered = write_until_killed(&app, 12, &format!("k{cycle}"), "").await;
        killer.join().unwrap();
        app.wait();
        assert!(!answered.is_empty(), "no write answered before the kill");
        answered_in_all.extend(answered);
        app = app.restart_after_stop();
        // Exactly the writes the journal kept: each task's one creation at its version,
        // none lost and none extra, every answered write among them.
        let history = created(&whole_history(&app).await);
        assert_eq!(history, recovered(&app).await, "cycle {cycle}");
        for write in &answered_in_all {
            assert!(history.contains(write), "answered {write:?} missing");
        }
    }
}

#[actix_web::test]
async fn kill_9_while_retention_prunes_keeps_the_newest_entries_and_a_whole_floor() {
    const MAX: usize = 40;
    let mut app = spawn_app_with(Options {
        snapshot_interval_ms: 50,
        env: vec![("TASKD_ACTIVITY_MAX".into(), MAX.to_string())],
        ..Options::default()
    });
    for i in 0..MAX {
        app.create("tasks", json!({"todoId": format!("first-{i}")}))
            .await;
    }
    for cycle in 0..3 {
        // Every write past the maximum prunes: a new floor file, then the old segments.
        let killer = kill_after(&app, Duration::from_millis(800 + 100 * cycle));
        let answered = write_until_killed(&app, 12, &format!("p{cycle}"), "").await;
        killer.join().unwrap();
        app.wait();
        assert!(!answered.is_empty(), "no write answered before the kill");
        // What a kill inside `replace_file` leaves: a partial temporary floor.
        let logs = app.path("activity");
        for log in std::fs::read_dir(&logs).unwrap() {
            std::fs::write(log.unwrap().path().join(".floor.tmp"), [1, 2, 3]).unwrap();
        }
        app = app.restart_after_stop();
        let history = created(&whole_history(&app).await);
        let tasks = recovered(&app).await;
        assert!(tasks.len() > MAX, "{} tasks", tasks.len());
        // The newest entries, at most the maximum, at least what one pruning leaves.
        assert!(
            (MAX - MAX / 100 - 1..=MAX).contains(&history.len()),
            "{} kept",
            history.len()
        );
        assert_eq!(
            history,
            tasks[tasks.len() - history.len()..],
            "cycle {cycle}"
        );
        for log in std::fs::read_dir(&logs).unwrap() {
            let log = log.unwrap().path();
            assert!(!log.join(".floor.tmp").exists(), "{}", log.display());
            let floor = std::fs::read(log.join("floor")).unwrap();
            assert_eq!(floor.len(), 16);
        }
    }
}

/// Every entry of task `id` by its item route, `limit` a page, newest first.
async fn record_history(app: &TestApp, id: &str, limit: usize) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut before = String::new();
    loop {
        let reply = app
            .get(&format!(
                "/api/v1/tasks/{id}/activity?limit={limit}{before}"
            ))
            .await;
        reply.expect(200);
        entries.extend(reply.body["data"].as_array().unwrap().iter().cloned());
        match reply.body["nextBefore"].as_u64() {
            Some(next) => before = format!("&before={next}"),
            None => return entries,
        }
    }
}

/// Asserts that each task of `ids` reads, by its item route a few entries or a hundred a
/// page, exactly what the whole history of the space shows of it, and that its newest
/// entry is its current version; how many entries they hold in all.
async fn record_pages_match_the_history(app: &TestApp, ids: &[&str]) -> usize {
    let history = whole_history(app).await;
    let mut entries = 0;
    for id in ids {
        let mut expected: Vec<Value> = (history.iter())
            .filter(|e| e["kind"] == "task" && e["id"] == *id)
            .cloned()
            .collect();
        expected.reverse();
        for limit in [3, 100] {
            assert_eq!(
                record_history(app, id, limit).await,
                expected,
                "{id}, {limit} a page"
            );
        }
        let task = app.get(&format!("/api/v1/tasks/{id}")).await;
        assert_eq!(
            expected[0]["version"],
            task.data()["versionUpdatedAt"],
            "{id}"
        );
        entries += expected.len();
    }
    entries
}

/// The segments and the indexes of each space's activity log.
fn log_files(app: &TestApp) -> Vec<(std::path::PathBuf, &'static str)> {
    let mut files = Vec::new();
    for log in std::fs::read_dir(app.path("activity")).unwrap() {
        for file in std::fs::read_dir(log.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            match path.extension().and_then(|e| e.to_str()) {
                Some("act") => files.push((path, "act")),
                Some("idx") => files.push((path, "idx")),
                _ => {}
            }
        }
    }
    files.sort();
    files
}

/// Notes of about 20 kB, different for each `i`: an entry of two of them (from and to)
/// takes about 40 kB, so a 1 MiB segment holds some 25.
fn big_notes(i: usize) -> String {
    format!("{i} {}", "n".repeat(20_000))
}

#[actix_web::test]
async fn a_record_page_reads_its_entries_across_segments_and_after_a_restart_and_a_kill() {
    let app = spawn_app();
    let ids = ["often", "rarely", "sometimes"];
    for id in ids {
        app.create("tasks", json!({"todoId": id})).await;
    }
    // "rarely" is written at the start and at the end only.
    for i in 0..120 {
        let id = if i % 3 == 0 { "sometimes" } else { "often" };
        app.patch(
            &format!("/api/v1/tasks/{id}"),
            json!({"notesMarkdown": big_notes(i)}),
        )
        .await
        .expect(200);
    }
    app.patch("/api/v1/tasks/rarely", json!({"name": "at last"}))
        .await
        .expect(200);
    assert_eq!(record_pages_match_the_history(&app, &ids).await, 124);
    // The pages' reads indexed every closed segment.
    let files = log_files(&app);
    let segments = files.iter().filter(|(_, kind)| *kind == "act").count();
    let indexes: Vec<_> = files.iter().filter(|(_, kind)| *kind == "idx").collect();
    assert!(segments >= 3 && indexes.len() + 1 == segments, "{files:?}");
    let mut app = app.restart();
    assert_eq!(record_pages_match_the_history(&app, &ids).await, 124);
    // After a kill, with one index gone and one torn: both are rebuilt as they were.
    app.crash();
    let (gone, torn) = (&indexes[0].0, &indexes[1].0);
    let (gone_bytes, torn_bytes) = (std::fs::read(gone).unwrap(), std::fs::read(torn).unwrap());
    std::fs::remove_file(gone).unwrap();
    std::fs::write(torn, &torn_bytes[..torn_bytes.len() / 2]).unwrap();
    let app = app.restart_after_stop();
    assert_eq!(record_pages_match_the_history(&app, &ids).await, 124);
    assert!(std::fs::read(gone).unwrap() == gone_bytes);
    assert!(std::fs::read(torn).unwrap() == torn_bytes);
}

/// Patches tasks `ids` with big notes from as many writers until the server dies; how many
/// writes were answered.
async fn patch_until_killed(app: &TestApp, ids: &[&str]) -> usize {
    let loops = ids.iter().map(|id| async move {
        let mut answered = 0;
        for i in 0.. {
            let body = json!({"notesMarkdown": big_notes(i)}).to_string();
            let sent = app
                .authorized(Method::PATCH, &format!("/api/v1/tasks/{id}"))
                .insert_header(("Content-Type", "application/json"))
                .send_body(body)
                .await;
            match sent {
                Ok(response) if response.status().as_u16() == 200 => answered += 1,
                _ => return answered,
            }
        }
        answered
    });
    join_all(loops).await.into_iter().sum()
}

#[actix_web::test]
async fn kill_9_while_segments_roll_over_leaves_record_pages_that_match_the_history() {
    let mut app = spawn_durable("fsync", 50);
    let ids = ["w0", "w1", "w2", "w3"];
    for id in ids {
        app.create("tasks", json!({"todoId": id})).await;
    }
    let mut answered = 0;
    for cycle in 0..3 {
        // A segment rolls over every 25 writes or so: the kill lands among rollovers.
        let killer = kill_after(&app, Duration::from_millis(800 + 150 * cycle));
        let now = patch_until_killed(&app, &ids).await;
        killer.join().unwrap();
        app.wait();
        assert!(now > 0, "no write answered before the kill");
        answered += now;
        app = app.restart_after_stop();
        // Every answered write was synced, so each has its entry: the creations, the
        // answered patches, and any the kill cut off the answer of.
        let entries = record_pages_match_the_history(&app, &ids).await;
        assert!(
            entries >= ids.len() + answered,
            "cycle {cycle}: {entries} entries"
        );
    }
    let segments = log_files(&app).iter().filter(|(_, k)| *k == "act").count();
    assert!(segments >= 2, "{segments} segments");
}
