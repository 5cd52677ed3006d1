//! Limits and abuse (CONTRACT §9): stalled bodies, many connections, environment tokens,
//! failed-authentication throttling, and over-long arrays.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::Method;
use serde_json::json;

use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app_with, Options, TestApp};

/// A server with extra flags.
fn spawn_with_args(args: &[&str]) -> TestApp {
    spawn_app_with(Options {
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Options::default()
    })
}

/// Opens a connection and sends a POST whose body stops after its first bytes.
fn stalled_post(app: &TestApp, path: &str) -> TcpStream {
    let address = app.address.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("connect");
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: taskd\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"todoId\":\"stalled\"",
        app.default_token
    )
    .expect("send");
    stream
}

#[actix_web::test]
async fn a_body_that_does_not_arrive_in_time_is_408_and_the_connection_closes() {
    let app = spawn_with_args(&["--body-timeout-ms", "300"]);
    let mut stream = stalled_post(&app, "/api/v1/tasks");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .expect("the server closes the connection");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("request_timeout"), "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    app.get("/api/v1/tasks/stalled").await.expect(404);
    assert_eq!(app.space_version().await, 0, "nothing was applied");
}

#[actix_web::test]
async fn thousands_of_stalled_bodies_leave_healthz_and_reads_answering_and_sigterm_in_time() {
    let mut app = spawn_with_args(&["--body-timeout-ms", "60000"]);
    app.create("tasks", json!({"todoId": "kept"})).await;
    let stalled: Vec<TcpStream> = (0..3000)
        .map(|_| stalled_post(&app, "/api/v1/tasks"))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let health = app.send(app.request(Method::GET, "/healthz"), None).await;
    assert_eq!(health.status, 200);
    app.get("/api/v1/tasks/kept").await.expect(200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );

    app.stop_within(Duration::from_secs(15));
    drop(stalled);
    let app = app.restart_after_stop();
    app.get("/api/v1/tasks/kept").await.expect(200);
    app.get("/api/v1/tasks/stalled").await.expect(404);
}

#[test]
fn environment_tokens_outside_the_rules_stop_start_up_without_showing_them() {
    let short = "short-token-1234";
    let spaced = "a token with spaces that is long enough to pass the length";
    for (variable, value) in [
        ("TASKD_ADMIN_TOKEN", short),
        ("TASKD_DEFAULT_TOKEN", spaced),
        ("TASKD_ADMIN_TOKEN", &*"x".repeat(257)),
    ] {
        let dir = Arc::new(tempfile::tempdir().unwrap());
        let options = Options {
            env: vec![(variable.to_string(), value.to_string())],
            ..Options::default()
        };
        let failed = TestApp::start(Arc::clone(&dir), options)
            .err()
            .unwrap_or_else(|| panic!("{variable} was accepted"));
        assert!(!failed.status.success());
        assert!(failed.stderr.contains(variable), "{}", failed.stderr);
        assert!(failed.stderr.contains("32 to 256"), "{}", failed.stderr);
        assert!(!failed.stderr.contains(value), "the value was shown");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing written"
        );
    }
}

#[actix_web::test]
async fn more_than_100_failed_authentications_get_429_before_any_token_is_checked() {
    let app = spawn_with_args(&[]);
    for i in 0..100 {
        let reply = app
            .user(&format!("wrong-token-{i}"))
            .get("/api/v1/me")
            .await;
        assert_problem(&reply, 401, "unauthorized");
    }
    app.get("/api/v1/me").await.expect(200);
    let reply = app.user("wrong-token-again").get("/api/v1/me").await;
    assert_problem(&reply, 401, "unauthorized");
    for path in ["/api/v1/me", "/api/v1/tasks", "/api/v1/nowhere"] {
        let reply = app.get(path).await;
        assert_problem(&reply, 429, "too_many_requests");
        let wait: u64 = reply.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=10).contains(&wait), "Retry-After {wait}");
    }
    let health = app.send(app.request(Method::GET, "/healthz"), None).await;
    assert_eq!(health.status, 200, "only /api/v1 is throttled");
}

#[actix_web::test]
async fn over_long_arrays_are_refused_and_duplicates_still_count_once() {
    let app = spawn_with_args(&[]);
    let many: Vec<String> = (0..110_000).map(|i| format!("{i:x}")).collect();
    let body = json!({"name": "x", "tagIds": many});
    assert!(body.to_string().len() < 1 << 20);
    let reply = app.post("/api/v1/tasks", body).await;
    assert_invalid_fields(&reply, &["tagIds"]);

    let mixed = json!({"tagIds": ["a", 1, "b"], "categoryIds": [[1, 2], {"x": 1}]});
    let reply = app.post("/api/v1/tasks", mixed).await;
    assert_invalid_fields(&reply, &["categoryIds", "tagIds"]);

    let nested = json!({"name": {"deep": (0..10_000).collect::<Vec<u32>>()}, "color": "red"});
    let reply = app.post("/api/v1/lists", nested).await;
    assert_invalid_fields(&reply, &["name"]);

    let repeated = vec!["a"; 120_000];
    let task = app
        .create("tasks", json!({"tagIds": repeated, "durationMs": 5}))
        .await;
    assert_eq!(task["tagIds"], json!(["a"]));
    assert_eq!(task["durationMs"], 5);
    let hundred: Vec<String> = (0..100).map(|i| format!("t{i}")).collect();
    let task = app.create("tasks", json!({"tagIds": hundred})).await;
    assert_eq!(task["tagIds"].as_array().unwrap().len(), 100);
    assert_eq!(app.space_version().await, 2);
}
