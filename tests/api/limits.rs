//! Limits and abuse (docs §9): stalled bodies, many connections, environment tokens,
//! failed-authentication throttling (behind a trusted proxy too, §9a), and over-long arrays.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::Method;
use serde_json::json;

use crate::helpers::{
    assert_invalid_fields, assert_problem, spawn_app_with, Options, Reply, TestApp,
};

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
async fn a_body_that_arrived_while_the_server_was_paused_is_read_not_408() {
    let app = spawn_with_args(&["--body-timeout-ms", "300"]);
    let address = app.address.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("connect");
    let body = r#"{"todoId":"paused"}"#;
    write!(
        stream,
        "POST /api/v1/tasks HTTP/1.1\r\nHost: taskd\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        app.default_token,
        body.len()
    )
    .expect("send");
    // The headers are read; then the process stops (a frozen VM, SIGSTOP), the body
    // arrives, and the process wakes well after its body timeout.
    std::thread::sleep(Duration::from_millis(100));
    let pid = rustix::process::Pid::from_raw(app.pid() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
    stream.write_all(body.as_bytes()).expect("send the body");
    std::thread::sleep(Duration::from_millis(1000));
    rustix::process::kill_process(pid, rustix::process::Signal::CONT).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut answer = [0u8; 4096];
    let n = stream.read(&mut answer).expect("an answer");
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    app.get("/api/v1/tasks/paused").await.expect(200);
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
    // The CalDAV front takes tokens too, so it is shut as well.
    let dav = app
        .authorized(Method::from_bytes(b"PROPFIND").unwrap(), "/dav/")
        .insert_header(("Depth", "0"));
    assert_problem(&app.send(dav, None).await, 429, "too_many_requests");
    // `/metrics` takes a token on the API's address, so it is shut too, the admin's
    // token included (§21).
    let metrics = app.metrics().await;
    assert_problem(&metrics, 429, "too_many_requests");
    assert!(metrics.header("retry-after").is_some());
    let health = app.send(app.request(Method::GET, "/healthz"), None).await;
    assert_eq!(
        health.status, 200,
        "only /api/v1, /dav/ and /metrics are throttled"
    );
}

/// `GET /api/v1/me` with `token`, as a proxy on loopback would send it for `forwarded_for`.
async fn me_forwarded_for(app: &TestApp, token: &str, forwarded_for: &str) -> Reply {
    let request = app
        .request(Method::GET, "/api/v1/me")
        .insert_header(("Authorization", format!("Bearer {token}")))
        .insert_header(("X-Forwarded-For", forwarded_for));
    app.send(request, None).await
}

/// The value of `taskd_too_many_requests_total{reason="<reason>"}`.
async fn too_many_requests(app: &TestApp, reason: &str) -> u64 {
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().expect("metrics text");
    let series = format!("taskd_too_many_requests_total{{reason=\"{reason}\"}} ");
    text.lines()
        .find_map(|line| line.strip_prefix(&series))
        .unwrap_or_else(|| panic!("no {series}in\n{text}"))
        .parse()
        .expect("a count")
}

#[actix_web::test]
async fn behind_a_trusted_proxy_a_lockout_shuts_out_the_guessing_client_only() {
    let app = spawn_with_args(&["--trusted-proxy", "127.0.0.1/32"]);
    let token = app.default_token.clone();
    assert_eq!(too_many_requests(&app, "auth_lockout").await, 0);
    for i in 0..=100 {
        let reply = me_forwarded_for(&app, &format!("wrong-token-{i}"), "203.0.113.7").await;
        assert_problem(&reply, 401, "unauthorized");
    }
    me_forwarded_for(&app, &token, "203.0.113.8")
        .await
        .expect(200);
    // The proxy's own requests (no header) are its own client.
    app.get("/api/v1/me").await.expect(200);
    // What the client wrote left of the proxy's entry does not get it out.
    for forwarded_for in ["203.0.113.7", "198.51.100.1, 203.0.113.7"] {
        let reply = me_forwarded_for(&app, &token, forwarded_for).await;
        assert_problem(&reply, 429, "too_many_requests");
        let wait: u64 = reply.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=10).contains(&wait), "Retry-After {wait}");
    }
    assert_eq!(too_many_requests(&app, "auth_lockout").await, 2);
    let logged = "203.0.113.7 GET /api/v1/me 429 ";
    let log = app.wait_for_log(|log| log.contains(logged));
    assert!(log.contains(logged), "no {logged:?} in the log:\n{log}");
    assert!(log.contains("203.0.113.8 GET /api/v1/me 200 "), "{log}");
}

#[actix_web::test]
async fn without_a_trusted_proxy_x_forwarded_for_is_ignored_and_cannot_dodge_a_lockout() {
    let app = spawn_with_args(&[]);
    for i in 0..=100 {
        let spoofed = format!("203.0.113.{i}");
        let reply = me_forwarded_for(&app, &format!("wrong-token-{i}"), &spoofed).await;
        assert_problem(&reply, 401, "unauthorized");
    }
    let token = app.default_token.clone();
    let reply = me_forwarded_for(&app, &token, "198.51.100.1").await;
    assert_problem(&reply, 429, "too_many_requests");
    assert!(reply.header("retry-after").is_some());
    let logged = "127.0.0.1 GET /api/v1/me 429 ";
    let log = app.wait_for_log(|log| log.contains(logged));
    assert!(log.contains(logged), "no {logged:?} in the log:\n{log}");
    assert!(
        !log.contains("198.51.100.1"),
        "the header was believed:\n{log}"
    );
}

#[actix_web::test]
async fn trusted_proxies_come_as_a_list_and_a_bad_one_stops_start_up_naming_it() {
    for (args, env, bad) in [
        (
            vec!["--trusted-proxy", "10.0.0.0/33"],
            vec![],
            "10.0.0.0/33",
        ),
        (
            vec![],
            vec![("TASKD_TRUSTED_PROXY", "127.0.0.1/32,nonsense")],
            "nonsense",
        ),
    ] {
        let dir = Arc::new(tempfile::tempdir().unwrap());
        let options = Options {
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Options::default()
        };
        let failed = TestApp::start(Arc::clone(&dir), options)
            .err()
            .unwrap_or_else(|| panic!("{bad} was accepted"));
        assert!(!failed.status.success());
        for expected in ["--trusted-proxy", &format!("'{bad}'"), "address block"] {
            assert!(failed.stderr.contains(expected), "{}", failed.stderr);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    let app = spawn_app_with(Options {
        env: vec![(
            "TASKD_TRUSTED_PROXY".into(),
            "192.0.2.0/24, 127.0.0.1".into(),
        )],
        ..Options::default()
    });
    let token = app.default_token.clone();
    me_forwarded_for(&app, &token, "203.0.113.9, 192.0.2.1")
        .await
        .expect(200);
    let logged = "203.0.113.9 GET /api/v1/me 200 ";
    let log = app.wait_for_log(|log| log.contains(logged));
    assert!(log.contains(logged), "no {logged:?} in the log:\n{log}");
    assert!(
        log.contains("X-Forwarded-For of peers in 192.0.2.0/24, 127.0.0.1/32"),
        "{log}"
    );
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
