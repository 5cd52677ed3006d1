//! `taskd bench` against the real server: each workload for about a second, its JSON
//! result against the server's own request counters in `/metrics`, and wrong answers
//! counted as errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;

use serde_json::Value;

use crate::helpers::{spawn_app, TestApp, ADMIN_TOKEN, DEFAULT_TOKEN};

/// What a bench run left: its exit code, its JSON result (`Null` when it wrote none), and
/// its stdout and stderr.
struct Run {
    code: Option<i32>,
    json: Value,
    stdout: String,
    stderr: String,
}

/// Runs `taskd bench --url URL ARGS --json FILE` against `url`; the JSON goes to a file in
/// `dir` named `name`.
fn bench_at(url: &str, dir: &std::path::Path, name: &str, args: &[&str]) -> Run {
    let json = dir.join(format!("{name}.json"));
    let output = Command::new(env!("CARGO_BIN_EXE_taskd"))
        .arg("bench")
        .args(["--url", url])
        .args(args)
        .arg("--json")
        .arg(&json)
        .env_remove("TASKD_BENCH_TOKEN")
        .env_remove("TASKD_BENCH_ADMIN_TOKEN")
        .output()
        .expect("cannot run taskd bench");
    let json = std::fs::read(&json)
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).expect("the JSON result parses"))
        .unwrap_or(Value::Null);
    Run {
        code: output.status.code(),
        json,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `taskd bench` against `app` as its default user.
fn bench(app: &TestApp, name: &str, args: &[&str]) -> Run {
    let mut all = vec!["--token", DEFAULT_TOKEN];
    all.extend_from_slice(args);
    let run = bench_at(&app.address, app.dir.path(), name, &all);
    assert_eq!(
        run.code,
        Some(0),
        "bench failed: {}\n{}",
        run.stdout,
        run.stderr
    );
    run
}

/// `taskd_http_requests_total` for `method` and `route`, every status summed.
async fn served(app: &TestApp, method: &str, route: &str) -> u64 {
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().expect("metrics text").to_string();
    let method = format!("method=\"{method}\"");
    let route = format!("route=\"{route}\"");
    text.lines()
        .filter(|l| l.starts_with("taskd_http_requests_total{"))
        .filter(|l| l.contains(&method) && l.contains(&route))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// The `ok` count of `operation` in a result.
fn ok(result: &Value, operation: &str) -> u64 {
    result["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .find(|o| o["operation"] == operation)
        .unwrap_or_else(|| panic!("no {operation} in {result:#}"))["ok"]
        .as_u64()
        .unwrap()
}

const ITEM: &str = "/api/v1/tasks/{id}";
const TASKS: &str = "/api/v1/tasks";

#[actix_web::test]
async fn bench_read_sends_item_gets_and_counts_what_the_server_counts() {
    let app = spawn_app();
    let gets = served(&app, "GET", ITEM).await;
    let run = bench(
        &app,
        "read",
        &["-w", "read", "-d", "1s", "--prefill", "250"],
    );
    let result = &run.json;
    assert_eq!(result["settings"]["mode"], "closed");
    assert_eq!(result["setup"]["batches"], 3);
    assert_eq!(result["total"]["errors"], 0);
    let got = ok(result, "get");
    assert!(got > 100, "only {got} GETs in a second");
    assert_eq!(served(&app, "GET", ITEM).await - gets, got);
    assert_eq!(served(&app, "POST", "/api/v1/batch").await, 3);
    assert_eq!(app.space_version().await, 250);
    // The curve runs from the lowest percentile to 100 at the maximum.
    let curve = result["operations"][0]["curve"].as_array().unwrap();
    assert!(curve.len() > 5, "{curve:?}");
    assert_eq!(curve.last().unwrap()[0].as_f64(), Some(100.0));
    assert_eq!(
        curve.last().unwrap()[1].as_f64(),
        result["operations"][0]["latencyMs"]["max"].as_f64()
    );
    assert_eq!(result["healthz"]["status"], "ok");
    assert!(run.stdout.contains("get "), "{}", run.stdout);
}

#[actix_web::test]
async fn bench_write_with_a_request_count_makes_exactly_that_many_tasks() {
    let app = spawn_app();
    let run = bench(
        &app,
        "write",
        &["-w", "write", "-n", "500", "--prefill", "0"],
    );
    assert_eq!(ok(&run.json, "post"), 500);
    assert_eq!(run.json["settings"]["requests"], 500);
    assert_eq!(served(&app, "POST", TASKS).await, 500);
    assert_eq!(app.space_version().await, 500);
}

#[actix_web::test]
async fn bench_mixed_counts_each_operation_and_compares_and_plots_against_an_older_run() {
    let app = spawn_app();
    let first = bench(
        &app,
        "mixed1",
        &["-w", "mixed", "-n", "400", "--prefill", "100"],
    );
    let old = app.dir.path().join("mixed1.json");
    let plot = app.dir.path().join("mixed.svg");
    let second = bench(
        &app,
        "mixed2",
        &[
            "-n",
            "400",
            "--prefill",
            "100",
            "--compare",
            old.to_str().unwrap(),
            "--report",
            plot.to_str().unwrap(),
        ],
    );
    let [get, patch, post] =
        ["get", "patch", "post"].map(|op| ok(&first.json, op) + ok(&second.json, op));
    assert_eq!(get + patch + post, 800);
    // Each connection deals the 70/20/10 deck from its own place, so the proportions hold
    // to within a deck per connection.
    assert!((540..=580).contains(&get), "{get} GETs of 800");
    assert!((140..=180).contains(&patch), "{patch} PATCHes of 800");
    assert!((60..=100).contains(&post), "{post} POSTs of 800");
    assert_eq!(served(&app, "GET", ITEM).await, get);
    assert_eq!(served(&app, "PATCH", ITEM).await, patch);
    assert_eq!(served(&app, "POST", TASKS).await, post);
    assert!(second.stdout.contains("new/old"), "{}", second.stdout);
    // The plot has a curve per operation and run, named in its legend.
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    for name in ["new: get", "new: post", "old: get", "old: patch"] {
        assert!(svg.contains(name), "{name} not in {svg}");
    }
}

#[actix_web::test]
async fn bench_page_walks_filtered_pages() {
    let app = spawn_app();
    let run = bench(
        &app,
        "page",
        &["-w", "page", "-d", "1s", "--prefill", "300"],
    );
    let pages = ok(&run.json, "page");
    assert!(pages > 20, "only {pages} pages");
    // And the one listing of the setup that reads the space's version.
    assert_eq!(served(&app, "GET", TASKS).await, pages + 1);
}

#[actix_web::test]
async fn bench_sync_polls_the_feed_and_its_stream_sees_every_write() {
    let app = spawn_app();
    let run = bench(
        &app,
        "sync",
        &["-w", "sync", "-d", "1s", "--prefill", "100"],
    );
    let result = &run.json;
    let writes = ok(result, "post") + ok(result, "patch");
    assert!(writes > 20, "only {writes} writes");
    assert_eq!(result["streams"]["opened"], 1);
    assert_eq!(result["streams"]["events"], writes);
    assert_eq!(result["streams"]["behind"], 0);
    assert_eq!(
        served(&app, "GET", "/api/v1/changes").await,
        ok(result, "changes")
    );
    assert_eq!(app.space_version().await, 100 + writes);
}

#[actix_web::test]
async fn bench_custom_mix_sends_the_operations_named() {
    let app = spawn_app();
    let run = bench(
        &app,
        "custom",
        &[
            "--mix",
            "get=1,page=1,changes=1",
            "-n",
            "300",
            "--prefill",
            "100",
        ],
    );
    assert_eq!(run.json["settings"]["workload"], "custom");
    let counts = ["get", "page", "changes"].map(|op| ok(&run.json, op));
    assert_eq!(counts.iter().sum::<u64>(), 300);
    assert!(counts.iter().all(|n| (90..=110).contains(n)), "{counts:?}");
}

#[actix_web::test]
async fn bench_open_loop_keeps_the_rate() {
    let app = spawn_app();
    let run = bench(
        &app,
        "open",
        &[
            "-w",
            "read",
            "--rate",
            "200",
            "-d",
            "1500ms",
            "-c",
            "4",
            "--prefill",
            "100",
        ],
    );
    let result = &run.json;
    assert_eq!(result["settings"]["mode"], "open");
    let sent = ok(result, "get");
    assert!(
        (290..=301).contains(&sent),
        "{sent} requests at 200/s for 1.5 s"
    );
    assert_eq!(result["unsent"], 0);
    assert_eq!(served(&app, "GET", ITEM).await, sent);
}

#[actix_web::test]
async fn bench_spaces_makes_a_user_per_space_and_prefills_them() {
    let app = spawn_app();
    let run = bench_at(
        &app.address,
        app.dir.path(),
        "spaces",
        &[
            "--admin-token",
            ADMIN_TOKEN,
            "--spaces",
            "3",
            "--prefill",
            "250",
            "-n",
            "300",
        ],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json["setup"]["users"], 3);
    assert_eq!(run.json["setup"]["batches"], 3);
    assert_eq!(served(&app, "POST", "/api/v1/admin/users").await, 3);
    assert_eq!(served(&app, "POST", "/api/v1/batch").await, 3);
    // The default user's space is left alone.
    assert_eq!(app.space_version().await, 0);
}

#[actix_web::test]
async fn bench_refuses_a_token_the_server_refuses() {
    let app = spawn_app();
    let run = bench_at(
        &app.address,
        app.dir.path(),
        "refused",
        &["--token", "not-a-token-of-this-server-at-all", "-d", "1s"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("401 unauthorized"), "{}", run.stderr);
    assert_eq!(run.json, Value::Null);
}

/// A server that answers every request at once, 200 or 201 with `spaceVersion` 1: fast
/// and wrong. Serves until the test process ends.
fn fast_wrong_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let status = if line.starts_with("POST") { 201 } else { 200 };
                    let mut length = 0;
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        if header == "\r\n" {
                            break;
                        }
                        if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:")
                        {
                            length = v.trim().parse().unwrap();
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let answer = r#"{"status":"ok","data":{},"spaceVersion":1}"#;
                    let reply = format!(
                        "HTTP/1.1 {status} OK\r\nContent-Length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if reader.get_mut().write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    address
}

#[actix_web::test]
async fn bench_counts_fast_wrong_answers_as_errors() {
    let url = fast_wrong_server();
    let dir = tempfile::tempdir().unwrap();
    let run = bench_at(
        &url,
        dir.path(),
        "wrong",
        &[
            "--token",
            DEFAULT_TOKEN,
            "-w",
            "write",
            "--prefill",
            "0",
            "-n",
            "200",
        ],
    );
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let result = &run.json;
    assert_eq!(ok(result, "post"), 0);
    assert_eq!(result["total"]["throughput"], 0.0);
    assert_eq!(result["errors"][0]["code"], "bench_version_not_increasing");
    assert_eq!(result["errors"][0]["count"], 200);
    assert!(
        run.stdout.contains("bench_version_not_increasing"),
        "{}",
        run.stdout
    );
}
