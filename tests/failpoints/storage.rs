//! Storage faults (docs §8) set with failpoint `journal::write` in a running server: a
//! write that fails answers 503 and loses nothing answered, and its answer is not kept for
//! its key; a storage that stops answering is bounded, not a hang.

use std::time::{Duration, Instant};

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, spawn_durable, Options, TestApp};
use crate::{remove_failpoint, set_failpoint};

#[actix_web::test]
async fn a_storage_failure_answers_503_and_loses_nothing_answered() {
    let mut app = spawn_durable("fsync", 1000);
    app.create("tasks", json!({"todoId": "before"})).await;
    set_failpoint(&app, "journal::write", "return").await;

    let refused = app.post("/api/v1/tasks", json!({"todoId": "during"})).await;
    assert_problem(&refused, 503, "storage_unavailable");
    assert_eq!(refused.header("retry-after"), Some("1"));
    let health = app.send(app.request(Method::GET, "/healthz"), None).await;
    assert_eq!(health.status, 503);
    assert_eq!(health.body["status"], "degraded");
    assert!(health.body["reason"].is_string());
    let read = app.get("/api/v1/tasks/before").await.expect(200).version();
    assert_eq!(read, 1, "the refused write was taken back");
    app.get("/api/v1/tasks/during").await.expect(404);

    remove_failpoint(&app, "journal::write").await;
    let mut health = 503;
    for _ in 0..250 {
        health = app
            .send(app.request(Method::GET, "/healthz"), None)
            .await
            .status;
        if health == 200 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(health, 200, "healthz stayed degraded");
    let after = app.create("tasks", json!({"todoId": "after"})).await;
    assert_eq!(after["versionUpdatedAt"], 2);
    app.crash();
    let app = app.restart_after_stop();
    app.get("/api/v1/tasks/before").await.expect(200);
    app.get("/api/v1/tasks/after").await.expect(200);
    app.get("/api/v1/tasks/during").await.expect(404);
}

#[actix_web::test]
async fn a_5xx_answer_is_not_kept() {
    let app = spawn_app();
    set_failpoint(&app, "journal::write", "return").await;
    let key = [("Idempotency-Key", "storage-fails")];
    let failed = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&json!({})), &key)
        .await;
    assert_problem(&failed, 503, "storage_unavailable");
    remove_failpoint(&app, "journal::write").await;
    let mut retried = failed;
    for _ in 0..100 {
        retried = app
            .send_with(Method::POST, "/api/v1/tasks", Some(&json!({})), &key)
            .await;
        if retried.status != 503 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    retried.expect(201);
    assert_eq!(retried.header("idempotent-replayed"), None);
}

/// Polls `GET /healthz` until it answers `status`, for up to 10 s.
async fn wait_for_health(app: &TestApp, status: u16) -> Value {
    let started = Instant::now();
    loop {
        let health = app.send(app.request(Method::GET, "/healthz"), None).await;
        if health.status == status || started.elapsed() > Duration::from_secs(10) {
            assert_eq!(health.status, status, "{:?}", health.body);
            return health.body;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
}

#[actix_web::test]
async fn a_stalled_storage_answers_503_within_the_bound_and_the_write_keeps_its_outcome() {
    let mut app = spawn_app_with(Options {
        args: vec!["--storage-timeout-ms".into(), "500".into()],
        ..Options::default()
    });
    app.create("tasks", json!({"todoId": "before"})).await;
    let other = app.create_user("other").await;
    app.user(&other.token)
        .create("tasks", json!({"todoId": "theirs"}))
        .await;
    set_failpoint(&app, "journal::write", "pause").await;

    let key = [("Idempotency-Key", "stalled-write")];
    let body = json!({"todoId": "during"});
    let started = Instant::now();
    let stalled = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_problem(&stalled, 503, "storage_unavailable");
    assert_eq!(stalled.header("retry-after"), Some("1"));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // A read of the space waits behind the write (docs §8), within the same bound.
    assert_problem(
        &app.get("/api/v1/tasks/before").await,
        503,
        "storage_unavailable",
    );
    let health = wait_for_health(&app, 503).await;
    assert_eq!(health["status"], "degraded");
    assert!(health["reason"].as_str().unwrap().contains("not answered"));
    let retried = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_problem(&retried, 409, "idempotency_key_in_use");
    let carol = || {
        app.request(Method::POST, "/api/v1/admin/users")
            .insert_header(("Authorization", format!("Bearer {}", app.admin_token)))
            .insert_header(("Content-Type", "application/json"))
            .insert_header(("Idempotency-Key", "stalled-user"))
    };
    let user = carol();
    let stalled_user = app.send(user, Some(br#"{"name":"carol"}"#.to_vec())).await;
    assert_problem(&stalled_user, 503, "storage_unavailable");
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().unwrap().to_string();
    let stalls: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("taskd_storage_stalls_total "))
        .expect("stall counter")
        .parse()
        .unwrap();
    assert!(stalls >= 3, "{stalls}");

    remove_failpoint(&app, "journal::write").await;
    wait_for_health(&app, 200).await;
    // The key is settled once the write's answer reaches it, a moment after the disk.
    let mut replayed = retried;
    for _ in 0..250 {
        replayed = app
            .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
            .await;
        if replayed.status != 409 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    replayed.expect(201);
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    assert_eq!(replayed.data()["todoId"], "during");
    let user = carol();
    let mut replayed_user = app.send(user, Some(br#"{"name":"carol"}"#.to_vec())).await;
    for _ in 0..250 {
        if replayed_user.status != 409 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
        let user = carol();
        replayed_user = app.send(user, Some(br#"{"name":"carol"}"#.to_vec())).await;
    }
    replayed_user.expect(201);
    assert_eq!(replayed_user.header("idempotent-replayed"), Some("true"));
    assert_eq!(
        app.space_version().await,
        2,
        "the stalled write counted once"
    );

    app.crash();
    let app = app.restart_after_stop();
    app.get("/api/v1/tasks/during").await.expect(200);
    assert_eq!(app.space_version().await, 2);
}

#[actix_web::test]
async fn sigterm_with_a_stalled_storage_still_exits_within_15_seconds() {
    let mut app = spawn_app_with(Options {
        args: vec!["--storage-timeout-ms".into(), "300".into()],
        ..Options::default()
    });
    app.create("tasks", json!({"todoId": "kept"})).await;
    set_failpoint(&app, "journal::write", "pause").await;
    let stalled = app.post("/api/v1/tasks", json!({"todoId": "stuck"})).await;
    assert_problem(&stalled, 503, "storage_unavailable");
    let started = Instant::now();
    let status = app.stop();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !status.success(),
        "the final sync did not return, yet it exited 0"
    );
    assert!(app.log_text().contains("final journal sync failed"));
    let app = app.restart_after_stop();
    app.get("/api/v1/tasks/kept").await.expect(200);
}
