//! Time (docs §18; the firing of reminders is in `reminders.rs`): the fields `timeZone`, `isAllDay`,
//! `recurrence`, `recurFrom`, `reminders` and the read-only counters, dates given as days,
//! all-day days, the roll of a completion (PATCH and batch, both `recurFrom` modes, `COUNT`
//! and the end of a series, keyed retries), the occurrences listing, and restarts.

use std::process::{Command, Stdio};

use actix_web::http::Method;
use chrono::{DateTime, Days, NaiveTime, TimeZone};
use serde_json::{json, Value};

use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app, TestApp};

/// Task `id` as the item GET shows it.
async fn task(app: &TestApp, id: &str) -> Value {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data().clone()
}

/// `PATCH /api/v1/tasks/{id}` that must succeed; the task after it.
async fn patch(app: &TestApp, id: &str, body: Value) -> Value {
    let reply = app.patch(&format!("/api/v1/tasks/{id}"), body).await;
    reply.expect(200);
    reply.data().clone()
}

/// The `dateDue`s an occurrences listing answers with, and its `hasMore`.
async fn occurrences(app: &TestApp, id: &str, query: &str) -> (Vec<String>, bool) {
    let reply = app
        .get(&format!("/api/v1/tasks/{id}/occurrences{query}"))
        .await;
    reply.expect(200);
    assert_eq!(reply.body["spaceVersion"], app.space_version().await);
    let dues = reply.data().as_array().unwrap();
    let dues = dues
        .iter()
        .map(|o| o["dateDue"].as_str().unwrap().to_string())
        .collect();
    (dues, reply.body["hasMore"].as_bool().unwrap())
}

#[actix_web::test]
async fn each_time_field_is_validated_and_keeps_its_default() {
    let app = spawn_app();
    let plain = app.create("tasks", json!({"todoId": "plain"})).await;
    assert_eq!(plain["timeZone"], Value::Null);
    assert_eq!(plain["isAllDay"], false);
    assert_eq!(plain["recurFrom"], "due");
    assert_eq!(plain["reminders"], json!([]));
    assert_eq!(plain["completedCount"], 0);
    let version = app.space_version().await;
    let due = "2030-01-07T09:00:00Z";
    for (field, bad) in [
        ("timeZone", json!("Mars/Olympus")),
        ("timeZone", json!("europe/paris")),
        ("timeZone", json!(1)),
        ("isAllDay", json!(null)),
        ("isAllDay", json!("true")),
        ("recurFrom", json!(null)),
        ("recurFrom", json!("later")),
        ("reminders", json!(null)),
        (
            "reminders",
            Value::Array(vec![json!({"minutesBefore": 1}); 11]),
        ),
        ("reminders", json!([{"minutesBefore": 525_601}])),
        ("reminders", json!([{"minutesBefore": -1}])),
        ("reminders", json!([{"at": "soon"}])),
        ("reminders", json!([{"at": due, "minutesBefore": 5}])),
        ("reminders", json!([{"every": 5}])),
        ("reminders", json!(["5"])),
        ("remindedAt", json!(null)),
        ("completedCount", json!(3)),
        ("lastCompletedAt", json!(due)),
        ("recurrence", json!(7)),
        ("recurrence", json!("FREQ=SECONDLY")),
        ("recurrence", json!("FREQ=DAILY;COUNT=0")),
        (
            "recurrence",
            json!("FREQ=DAILY;COUNT=2;UNTIL=20300201T000000Z"),
        ),
        ("recurrence", json!("FREQ=WEEKLY;BYDAY=1MO")),
        ("recurrence", json!("FREQ=DAILY;UNTIL=20300201")),
    ] {
        let reply = app
            .post("/api/v1/tasks", json!({"dateDue": due, field: bad}))
            .await;
        assert_invalid_fields(&reply, &[field]);
    }
    // A rule needs a dateDue after the write, and its UNTIL form follows isAllDay.
    let reply = app
        .post("/api/v1/tasks", json!({"recurrence": "FREQ=DAILY"}))
        .await;
    assert_invalid_fields(&reply, &["recurrence"]);
    let reply = app
        .post(
            "/api/v1/tasks",
            json!({"dateDue": due, "isAllDay": true, "recurrence": "FREQ=DAILY;UNTIL=20300201T000000Z"}),
        )
        .await;
    assert_invalid_fields(&reply, &["recurrence"]);
    // A day must start within years 0001-9999 in UTC.
    let reply = app
        .post(
            "/api/v1/tasks",
            json!({"dateDue": "0001-01-01", "timeZone": "Europe/Paris"}),
        )
        .await;
    assert_invalid_fields(&reply, &["dateDue"]);
    let reply = app
        .post(
            "/api/v1/tasks",
            json!({"dateStart": "0001-01-01T00:30:00Z", "timeZone": "Europe/Paris", "isAllDay": true}),
        )
        .await;
    assert_invalid_fields(&reply, &["dateStart"]);
    assert_eq!(app.space_version().await, version);

    let rich = app
        .create(
            "tasks",
            json!({"todoId": "rich", "dateDue": due, "timeZone": "UTC",
                   "recurrence": "freq=daily;until=20300201T000000z", "recurFrom": "completion",
                   "reminders": [{"minutesBefore": 30}, {"at": "2030-01-07T10:00:00+01:00"}]}),
        )
        .await;
    assert_eq!(rich["timeZone"], "UTC", "stored as sent");
    assert_eq!(rich["recurrence"], "freq=daily;until=20300201T000000z");
    assert_eq!(rich["recurFrom"], "completion");
    assert_eq!(
        rich["reminders"],
        json!([{"minutesBefore": 30}, {"at": "2030-01-07T09:00:00.000Z"}])
    );
    let reply = app
        .patch("/api/v1/tasks/rich", json!({"dateDue": null}))
        .await;
    assert_invalid_fields(&reply, &["recurrence"]);
    let reply = app
        .patch("/api/v1/tasks/rich", json!({"isAllDay": true}))
        .await;
    assert_invalid_fields(&reply, &["recurrence"]);
    let cleared = patch(
        &app,
        "rich",
        json!({"reminders": [], "recurrence": null, "dateDue": null, "timeZone": "US/Eastern"}),
    )
    .await;
    assert_eq!(cleared["reminders"], json!([]));
    assert_eq!(cleared["timeZone"], "US/Eastern", "aliases are accepted");
}

#[actix_web::test]
async fn days_are_read_in_the_zone_and_all_day_tasks_keep_their_days() {
    let app = spawn_app();
    // 2026-03-29: Paris moves from +01:00 to +02:00 at 02:00.
    let timed = app
        .create(
            "tasks",
            json!({"todoId": "timed", "timeZone": "Europe/Paris", "dateDue": "2026-03-29",
                   "dateStart": "2026-03-30"}),
        )
        .await;
    assert_eq!(timed["dateDue"], "2026-03-28T23:00:00.000Z");
    assert_eq!(timed["dateStart"], "2026-03-29T22:00:00.000Z");
    // A day is read in the zone after the write.
    let moved = patch(
        &app,
        "timed",
        json!({"timeZone": "America/New_York", "dateDue": "2026-03-29"}),
    )
    .await;
    assert_eq!(moved["dateDue"], "2026-03-29T04:00:00.000Z");
    assert_eq!(
        moved["dateStart"], "2026-03-29T22:00:00.000Z",
        "an instant stays"
    );

    let day = app
        .create(
            "tasks",
            json!({"todoId": "day", "timeZone": "Europe/Paris", "isAllDay": true,
                   "dateDue": "2026-03-29T12:00:00Z", "dateStart": "2026-03-30T01:30:00+02:00"}),
        )
        .await;
    assert_eq!(day["dateDue"], "2026-03-28T23:00:00.000Z");
    assert_eq!(day["dateStart"], "2026-03-29T22:00:00.000Z");
    // A change of zone keeps the days.
    let day = patch(&app, "day", json!({"timeZone": "America/New_York"})).await;
    assert_eq!(day["dateDue"], "2026-03-29T04:00:00.000Z");
    assert_eq!(day["dateStart"], "2026-03-30T04:00:00.000Z");
    // Setting isAllDay moves both dates to the start of their day.
    let timed = patch(
        &app,
        "timed",
        json!({"isAllDay": true, "dateDue": "2026-11-01T23:30:00-05:00"}),
    )
    .await;
    assert_eq!(
        timed["dateDue"], "2026-11-01T04:00:00.000Z",
        "midnight is still -04:00"
    );
    assert_eq!(timed["dateStart"], "2026-03-29T04:00:00.000Z");
    // An all-day daily series across the change: midnight moves from +01:00 to +02:00.
    patch(
        &app,
        "day",
        json!({"timeZone": "Europe/Paris", "dateDue": "2026-03-28", "dateStart": null,
               "recurrence": "FREQ=DAILY;UNTIL=20260330"}),
    )
    .await;
    assert_eq!(
        occurrences(&app, "day", "").await,
        (
            vec![
                "2026-03-27T23:00:00.000Z".to_string(),
                "2026-03-28T23:00:00.000Z".to_string(),
                "2026-03-29T22:00:00.000Z".to_string(),
            ],
            false
        )
    );
}

#[actix_web::test]
async fn a_completion_rolls_the_task_until_its_series_ends() {
    let app = spawn_app();
    // Every Monday at 9 in Paris, three times, across the change to summer time.
    app.create(
        "tasks",
        json!({"todoId": "weekly", "status": "open", "timeZone": "Europe/Paris",
               "dateDue": "2030-03-25T09:00:00+01:00", "dateStart": "2030-03-25T08:00:00+01:00",
               "recurrence": "FREQ=WEEKLY;BYDAY=MO;COUNT=3"}),
    )
    .await;
    let first = patch(&app, "weekly", json!({"status": "Done"})).await;
    assert_eq!(first["dateDue"], "2030-04-01T07:00:00.000Z");
    assert_eq!(first["dateStart"], "2030-04-01T06:00:00.000Z");
    assert_eq!(first["status"], "open", "status keeps its value");
    assert_eq!(first["recurrence"], "FREQ=WEEKLY;BYDAY=MO;COUNT=2");
    assert_eq!(first["completedCount"], 1);
    assert_eq!(first["lastCompletedAt"], first["updatedAt"]);
    let second = patch(&app, "weekly", json!({"status": "COMPLETED"})).await;
    assert_eq!(second["dateDue"], "2030-04-08T07:00:00.000Z");
    assert_eq!(second["recurrence"], "FREQ=WEEKLY;BYDAY=MO;COUNT=1");
    // The series is over: the task finishes as any task does.
    let last = patch(&app, "weekly", json!({"status": "done"})).await;
    assert_eq!(last["status"], "done");
    assert_eq!(last["dateDue"], "2030-04-08T07:00:00.000Z");
    assert_eq!(last["completedCount"], 3);
    // Finishing a finished task again is a plain write.
    let again = patch(&app, "weekly", json!({"status": "Done"})).await;
    assert_eq!(again["completedCount"], 3);
    assert_eq!(again["lastCompletedAt"], last["lastCompletedAt"]);

    // UNTIL ends a series too.
    app.create(
        "tasks",
        json!({"todoId": "until", "dateDue": "2030-01-01T09:00:00Z",
               "recurrence": "FREQ=DAILY;UNTIL=20300102T090000Z"}),
    )
    .await;
    let rolled = patch(&app, "until", json!({"status": "done"})).await;
    assert_eq!(rolled["dateDue"], "2030-01-02T09:00:00.000Z");
    assert_eq!(rolled["status"], Value::Null);
    let ended = patch(&app, "until", json!({"status": "done"})).await;
    assert_eq!(ended["status"], "done");

    // Every 3 days after I finish it: re-anchored at the completion day, at 09:00 in Paris.
    app.create(
        "tasks",
        json!({"todoId": "chore", "timeZone": "Europe/Paris", "recurFrom": "completion",
               "dateDue": "2030-01-01T09:00:00+01:00", "recurrence": "FREQ=DAILY;INTERVAL=3;COUNT=4"}),
    )
    .await;
    let chore = patch(&app, "chore", json!({"status": "done"})).await;
    let paris = chrono_tz::Europe::Paris;
    let done_at = DateTime::parse_from_rfc3339(chore["lastCompletedAt"].as_str().unwrap())
        .unwrap()
        .with_timezone(&paris);
    let nine = NaiveTime::from_hms_opt(9, 0, 0).unwrap();
    let expected = paris
        .from_local_datetime(&(done_at.date_naive() + Days::new(3)).and_time(nine))
        .earliest()
        .unwrap()
        .with_timezone(&chrono::Utc)
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string();
    assert_eq!(
        chore["dateDue"],
        expected.as_str(),
        "earlier than the old dateDue"
    );
    assert_eq!(chore["recurrence"], "FREQ=DAILY;INTERVAL=3;COUNT=3");
}

#[actix_web::test]
async fn a_patch_and_a_batch_roll_from_the_values_they_set_and_a_retry_does_not_roll_again() {
    let app = spawn_app();
    app.create(
        "tasks",
        json!({"todoId": "d", "dateDue": "2030-01-01T09:00:00Z", "recurrence": "FREQ=DAILY"}),
    )
    .await;
    let rolled = patch(
        &app,
        "d",
        json!({"dateDue": "2030-06-03T09:00:00Z", "status": "done"}),
    )
    .await;
    assert_eq!(rolled["dateDue"], "2030-06-04T09:00:00.000Z");
    let rolled = patch(
        &app,
        "d",
        json!({"recurrence": "FREQ=WEEKLY", "timeZone": "Asia/Tokyo", "status": "done"}),
    )
    .await;
    assert_eq!(rolled["dateDue"], "2030-06-11T09:00:00.000Z");

    let op = json!({"method": "PATCH", "path": "/api/v1/tasks/d", "body": {"status": "done"}});
    let reply = app
        .post("/api/v1/batch", json!({"operations": [op, op]}))
        .await;
    reply.expect(200);
    let results = reply.body["results"].as_array().unwrap();
    assert_eq!(results[0]["data"]["dateDue"], "2030-06-18T09:00:00.000Z");
    assert_eq!(results[1]["data"]["dateDue"], "2030-06-25T09:00:00.000Z");
    assert_eq!(results[1]["data"]["completedCount"], 4);

    let body = json!({"status": "done"});
    let keyed = || {
        app.send_with(
            Method::PATCH,
            "/api/v1/tasks/d",
            Some(&body),
            &[("Idempotency-Key", "roll-once")],
        )
    };
    let first = keyed().await;
    first.expect(200);
    let version = app.space_version().await;
    let retry = keyed().await;
    retry.expect(200);
    assert_eq!(retry.body, first.body);
    assert_eq!(app.space_version().await, version);
    let stored = task(&app, "d").await;
    assert_eq!(stored["dateDue"], "2030-07-02T09:00:00.000Z");
    assert_eq!(stored["completedCount"], 5);
    // A create is never a completion.
    let created = app
        .create(
            "tasks",
            json!({"dateDue": "2030-01-01T09:00:00Z", "recurrence": "FREQ=DAILY", "status": "done"}),
        )
        .await;
    assert_eq!(created["dateDue"], "2030-01-01T09:00:00.000Z");
    assert_eq!(created["completedCount"], 0);
}

#[actix_web::test]
async fn occurrences_are_listed_in_ranges_and_pages() {
    let app = spawn_app();
    app.create(
        "tasks",
        json!({"todoId": "five", "dateDue": "2030-01-01T09:00:00Z",
               "dateStart": "2030-01-01T08:00:00Z", "recurrence": "FREQ=DAILY;COUNT=5"}),
    )
    .await;
    let reply = app.get("/api/v1/tasks/five/occurrences").await;
    reply.expect(200);
    assert_eq!(reply.data().as_array().unwrap().len(), 5);
    assert_eq!(
        reply.data()[4],
        json!({"dateDue": "2030-01-05T09:00:00.000Z", "dateStart": "2030-01-05T08:00:00.000Z"})
    );
    assert_eq!(reply.body["hasMore"], false);
    let day = |d: u32| format!("2030-01-{d:02}T09:00:00.000Z");
    assert_eq!(
        occurrences(&app, "five", "?limit=2").await,
        (vec![day(1), day(2)], true)
    );
    assert_eq!(
        occurrences(&app, "five", "?from=2030-01-02T09:00:00.001Z&limit=2").await,
        (vec![day(3), day(4)], true)
    );
    assert_eq!(
        occurrences(&app, "five", "?from=2030-01-03&to=2030-01-04T09:00:00Z").await,
        (vec![day(3)], false)
    );
    assert_eq!(
        occurrences(&app, "five", "?from=2030-02-01").await,
        (vec![], false)
    );
    // `to` defaults to a year after `from`.
    app.create(
        "tasks",
        json!({"todoId": "daily", "dateDue": "2030-01-01T09:00:00Z", "recurrence": "FREQ=DAILY"}),
    )
    .await;
    let (dues, more) = occurrences(&app, "daily", "?limit=1000").await;
    assert_eq!((dues.len(), more), (365, false));
    assert_eq!(dues[364], "2030-12-31T09:00:00.000Z");
    // Without a rule: the dateDue alone; without a dateDue: none. Deleted tasks list too.
    app.create(
        "tasks",
        json!({"todoId": "once", "dateDue": "2030-01-01T09:00:00Z"}),
    )
    .await;
    app.create("tasks", json!({"todoId": "undated"})).await;
    app.delete("/api/v1/tasks/once").await.expect(200);
    assert_eq!(occurrences(&app, "once", "").await, (vec![day(1)], false));
    assert_eq!(occurrences(&app, "undated", "").await, (vec![], false));
    for bad in [
        "?from=soon",
        "?to=2030-13-01",
        "?from=2030-01-05&to=2030-01-04",
        "?limit=0",
        "?limit=1001",
    ] {
        let reply = app
            .get(&format!("/api/v1/tasks/five/occurrences{bad}"))
            .await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
    let reply = app.get("/api/v1/tasks/nope/occurrences").await;
    assert_problem(&reply, 404, "not_found");
    let reply = app.get("/api/v1/lists/five/occurrences").await;
    assert_problem(&reply, 404, "not_found");
}

#[actix_web::test]
async fn restarts_keep_every_time_field_and_replay_does_not_roll_again() {
    let mut app = spawn_app();
    chore_task(&app).await;
    app.create(
        "tasks",
        json!({"todoId": "weekly", "dateDue": "2030-01-07T09:00:00Z",
               "recurrence": "FREQ=WEEKLY;COUNT=3"}),
    )
    .await;
    patch(&app, "chore", json!({"status": "done"})).await;
    patch(&app, "weekly", json!({"status": "done"})).await;
    let before = [task(&app, "chore").await, task(&app, "weekly").await];
    assert_eq!(before[0]["completedCount"], 1);
    // kill -9: the journal replays the writes as they were decided.
    app.crash();
    let app = app.restart_after_stop();
    assert_eq!(
        [task(&app, "chore").await, task(&app, "weekly").await],
        before
    );
    // A graceful stop: the snapshot holds them.
    let app = app.restart();
    assert_eq!(
        [task(&app, "chore").await, task(&app, "weekly").await],
        before
    );
}

/// `taskd args` without the `TASKD_*` variables of the test's environment; it must
/// succeed.
fn taskd(args: &[&str]) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_taskd"));
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TASKD_") {
            command.env_remove(name);
        }
    }
    let out = command.args(args).stdin(Stdio::null()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[actix_web::test]
async fn an_export_imported_elsewhere_keeps_the_time_fields_and_the_counters() {
    let source = spawn_app();
    chore_task(&source).await;
    patch(&source, "chore", json!({"status": "done"})).await;
    let before = task(&source, "chore").await;
    let file = tempfile::NamedTempFile::new().unwrap();
    let file = file.path().to_str().unwrap();
    let from = source.dir.path().to_str().unwrap();
    taskd(&[
        "export",
        "--data-dir",
        from,
        "--user",
        "default",
        "--to",
        file,
    ]);

    let mut target = spawn_app();
    let me = target.get("/api/v1/me").await;
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_string();
    assert!(target.stop().success());
    let to = target.dir.path().to_str().unwrap();
    taskd(&["import", "--data-dir", to, "--space", &space, file]);
    let target = target.restart_after_stop();
    let after = task(&target, "chore").await;
    let kept = |t: &Value| {
        let mut t = t.as_object().unwrap().clone();
        for field in ["createdAt", "updatedAt", "versionUpdatedAt", "spaceId"] {
            t.remove(field);
        }
        t
    };
    assert_eq!(kept(&after), kept(&before));
    assert_eq!(after["completedCount"], 1);
}

/// Creates the all-day task `chore`, every 3 days after it is done, with a reminder.
async fn chore_task(app: &TestApp) {
    app.create(
        "tasks",
        json!({"todoId": "chore", "timeZone": "Europe/Paris", "recurFrom": "completion",
               "isAllDay": true, "dateDue": "2030-01-01", "recurrence": "FREQ=DAILY;INTERVAL=3",
               "reminders": [{"minutesBefore": 60}]}),
    )
    .await;
}
