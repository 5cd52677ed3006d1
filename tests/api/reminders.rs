//! Reminders fired by the server (docs §18): each a write of its own, within a second of
//! its time, once; re-armed by a moved `dateDue` and by a completion's roll; never for
//! deleted or finished tasks; those that came due while taskd was stopped fired once at
//! start-up, and not again after a second restart.

use std::time::Duration;

use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

use crate::helpers::{millis, spawn_app, TestApp};

/// The current time in milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// `ms` as an RFC 3339 UTC date-time with milliseconds.
fn iso(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Task `id` as the item GET shows it.
async fn task(app: &TestApp, id: &str) -> Value {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data().clone()
}

/// Waits up to `limit` for task `id`'s `remindedAt` to differ from `before`; the task then.
async fn reminded_after(app: &TestApp, id: &str, before: &Value, limit: Duration) -> Value {
    let started = std::time::Instant::now();
    loop {
        let task = task(app, id).await;
        if task["remindedAt"] != *before || started.elapsed() > limit {
            return task;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The records of the change feed after `since`.
async fn feed(app: &TestApp, since: u64) -> Vec<Value> {
    let reply = app
        .get(&format!("/api/v1/changes?since={since}&limit=1000"))
        .await;
    reply.expect(200);
    reply.data().as_array().unwrap().clone()
}

#[actix_web::test]
async fn a_reminder_fires_once_within_a_second_as_a_write_of_its_own() {
    let app = spawn_app();
    let at = now_ms() + 1_500;
    let due = at + 30 * 60_000;
    let created = app
        .create(
            "tasks",
            json!({"todoId": "call", "dateDue": iso(due),
                   "reminders": [{"minutesBefore": 30}, {"at": iso(due + 3_600_000)}]}),
        )
        .await;
    assert_eq!(created["remindedAt"], Value::Null);
    let version = app.space_version().await;
    let fired = reminded_after(&app, "call", &Value::Null, Duration::from_secs(10)).await;
    let reminded = millis(&fired["remindedAt"]);
    assert!(
        (at..at + 1_000).contains(&reminded),
        "fired at {} for a reminder due at {}",
        iso(reminded),
        iso(at)
    );
    assert_eq!(fired["updatedAt"], fired["remindedAt"]);
    assert_eq!(fired["versionUpdatedAt"], version + 1);
    assert_eq!(app.space_version().await, version + 1);
    let changes = feed(&app, version).await;
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0]["kind"], "task");
    assert_eq!(changes[0]["record"]["todoId"], "call");
    assert_eq!(changes[0]["record"]["remindedAt"], fired["remindedAt"]);

    // Once: nothing else is due for an hour.
    actix_web::rt::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(task(&app, "call").await, fired);
    assert_eq!(app.space_version().await, version + 1);
}

#[actix_web::test]
async fn a_moved_date_due_and_a_roll_rearm_and_deleted_or_finished_tasks_do_not_fire() {
    let app = spawn_app();
    let now = now_ms();
    // Fired at once: a reminder already due when it is set.
    app.create(
        "tasks",
        json!({"todoId": "moved", "dateDue": iso(now + 10 * 60_000),
               "reminders": [{"minutesBefore": 15}]}),
    )
    .await;
    let first = reminded_after(&app, "moved", &Value::Null, Duration::from_secs(10)).await;
    assert_ne!(first["remindedAt"], Value::Null);
    // dateDue a day later: the relative reminder is due again then, not now.
    let reply = app
        .patch(
            "/api/v1/tasks/moved",
            json!({"dateDue": iso(now + 86_400_000)}),
        )
        .await;
    reply.expect(200);
    // dateDue back so that the reminder is due a second from now, after the firing: it
    // fires again then. (A reminder moved to before remindedAt would not.)
    let reply = app
        .patch(
            "/api/v1/tasks/moved",
            json!({"dateDue": iso(now_ms() + 15 * 60_000 + 1_000)}),
        )
        .await;
    reply.expect(200);
    let again = reminded_after(&app, "moved", &first["remindedAt"], Duration::from_secs(10)).await;
    assert!(millis(&again["remindedAt"]) > millis(&first["remindedAt"]));

    // A daily task reminded 10 minutes before: its completion rolls dateDue to tomorrow,
    // which re-arms the reminder for then.
    let due = now_ms() + 5 * 60_000;
    app.create(
        "tasks",
        json!({"todoId": "daily", "dateDue": iso(due), "recurrence": "FREQ=DAILY",
               "reminders": [{"minutesBefore": 10}]}),
    )
    .await;
    let reminded = reminded_after(&app, "daily", &Value::Null, Duration::from_secs(10)).await;
    let rolled = app
        .patch("/api/v1/tasks/daily", json!({"status": "done"}))
        .await;
    rolled.expect(200);
    assert_eq!(millis(&rolled.data()["dateDue"]), due + 86_400_000);
    assert_eq!(rolled.data()["remindedAt"], reminded["remindedAt"]);

    // Deleted and finished tasks do not fire; a restored one fires what came due.
    let soon = iso(now_ms() + 1_000);
    for id in ["deleted", "finished"] {
        app.create("tasks", json!({"todoId": id, "reminders": [{"at": soon}]}))
            .await;
    }
    app.delete("/api/v1/tasks/deleted").await.expect(200);
    app.patch("/api/v1/tasks/finished", json!({"status": "done"}))
        .await
        .expect(200);
    let version = app.space_version().await;
    actix_web::rt::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(app.space_version().await, version, "nothing fired");
    assert_eq!(task(&app, "deleted").await["remindedAt"], Value::Null);
    assert_eq!(task(&app, "finished").await["remindedAt"], Value::Null);
    app.default_user()
        .restore("/api/v1/tasks/deleted")
        .await
        .expect(200);
    let restored = reminded_after(&app, "deleted", &Value::Null, Duration::from_secs(10)).await;
    assert_ne!(restored["remindedAt"], Value::Null);
}

#[actix_web::test]
async fn reminders_due_while_stopped_fire_once_at_start_up() {
    let app = spawn_app();
    let at = now_ms() + 4_000;
    for id in ["a", "b"] {
        app.create(
            "tasks",
            json!({"todoId": id, "reminders": [{"at": iso(at)}, {"at": iso(at + 1)}]}),
        )
        .await;
    }
    let version = app.space_version().await;
    let mut app = app;
    assert!(app.stop().success(), "{}", app.log_text());
    assert!(
        now_ms() < at,
        "the server took too long to stop for this test"
    );
    actix_web::rt::time::sleep(Duration::from_millis((at + 500 - now_ms()).max(0) as u64)).await;
    let started = now_ms();
    let app = app.restart_after_stop();
    let mut fired = Vec::new();
    for id in ["a", "b"] {
        let task = reminded_after(&app, id, &Value::Null, Duration::from_secs(10)).await;
        let reminded = millis(&task["remindedAt"]);
        assert!(
            reminded >= started,
            "fired at start-up, after both were due"
        );
        fired.push(task);
    }
    // Each task's firing is its own write, and both reminders of a task fire together.
    assert_eq!(app.space_version().await, version + 2);
    let mut app = app;
    assert!(app.stop().success());
    let app = app.restart_after_stop();
    actix_web::rt::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(app.space_version().await, version + 2, "not fired again");
    for (id, before) in ["a", "b"].into_iter().zip(&fired) {
        assert_eq!(task(&app, id).await, *before);
    }
}

/// A burst of 2,500 reminders due at once (more than the 1,000 a space fires at a time,
/// several firings to a write) fires each task once, each firing a version and a change of
/// its own, within a few seconds.
#[actix_web::test]
async fn a_burst_of_due_reminders_fires_each_task_once_with_a_version_of_its_own() {
    const TASKS: usize = 2_500;
    let app = spawn_app();
    let at = now_ms() + 2_000;
    for start in (0..TASKS).step_by(100) {
        let operations: Vec<Value> = (start..start + 100)
            .map(|i| {
                json!({"method": "POST", "path": "/api/v1/tasks",
                       "body": {"todoId": format!("t{i}"), "reminders": [{"at": iso(at)}]}})
            })
            .collect();
        app.post("/api/v1/batch", json!({ "operations": operations }))
            .await
            .expect(200);
    }
    let version = app.space_version().await;
    let started = std::time::Instant::now();
    while app.space_version().await < version + TASKS as u64 {
        assert!(started.elapsed() < Duration::from_secs(30), "not all fired");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    // Nothing more fires.
    actix_web::rt::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(app.space_version().await, version + TASKS as u64);
    let mut changes = Vec::new();
    while changes.len() < TASKS {
        let since = version + changes.len() as u64;
        let page = feed(&app, since).await;
        assert!(!page.is_empty(), "the feed ends after {since}");
        changes.extend(page);
    }
    let mut fired: Vec<String> = changes
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let record = &c["record"];
            assert_eq!(record["versionUpdatedAt"], version + 1 + n as u64, "{c}");
            assert_eq!(record["remindedAt"], record["updatedAt"], "{c}");
            assert!(millis(&record["remindedAt"]) >= at, "{c}");
            record["todoId"].as_str().unwrap().to_owned()
        })
        .collect();
    fired.sort();
    fired.dedup();
    assert_eq!(fired.len(), TASKS, "each task fired once");
}
