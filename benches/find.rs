//! Queries of docs §17 on a big space, as its own process (the release binary).
//!
//! `cargo bench --bench find` fills one space with a million tasks (`Task {i}`, status
//! `done` for a quarter, tags `a` and `b`): 1 % due within the coming week, 10 % due later,
//! the rest without a due date, and 0.1 % with the rare word `zanzibar` in the name. It
//! reports RSS per task with the query indexes, then requests/s and p99 of the first page
//! of 100 (with `taskd bench --page-query`) for
//! (a) no filter, (b) `filter=dateDue < now+7d && status != "done"`, (c) `q=zanzibar`,
//! (d) `orderBy=dateDue`, the restart time to the first page, and the same four pages from
//! a server started with `--scan-queries` (the indexes turned off; 4 connections instead of
//! 16), each as a ratio to (a) of its run. `TASKD_FIND_TASKS` changes the size, `TASKD_BENCH_SECONDS` (default 5) the
//! length of each measured load.

mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use support::{bench, connect, env_or, exchange, mib, request, Server, TOKEN};

const CONNECTIONS: usize = 16;
/// Connections of the run without indexes: a page of (d) sorts the whole space, seconds
/// a request, and with 16 connections `taskd bench` counted errors for it (a run of
/// 2026-11-27, whose error table was not kept).
const SCAN_CONNECTIONS: usize = 4;
const RARE: &str = "zanzibar";
const HOUR_MS: i64 = 3_600_000;

/// Task `i` of the space, due relative to `now` (milliseconds).
fn task(i: usize, now: i64) -> Value {
    let name = if i % 1_000 == 500 {
        format!("Task {i} {RARE}")
    } else {
        format!("Task {i}")
    };
    let status = if i.is_multiple_of(4) { "done" } else { "open" };
    let due = match i % 100 {
        // 1 %: within the coming week.
        1 => Some(now + HOUR_MS + (i as i64 / 100) % (6 * 24) * HOUR_MS),
        // 10 %: from a month on.
        5 | 15 | 25 | 35 | 45 | 55 | 65 | 75 | 85 | 95 => {
            Some(now + 30 * 24 * HOUR_MS + (i as i64 % 300) * 24 * HOUR_MS)
        }
        _ => None,
    };
    let due = due.map(|ms| {
        chrono::DateTime::from_timestamp_millis(ms)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    });
    json!({"todoId": format!("t{i}"), "name": name, "status": status, "tagIds": ["a", "b"],
           "dateDue": due})
}

/// Creates tasks `t0..t{count}`, 100 a batch over [`CONNECTIONS`] connections.
fn fill(addr: SocketAddr, count: usize) {
    let now = chrono::Utc::now().timestamp_millis();
    let batches = count.div_ceil(100);
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|c| {
            std::thread::spawn(move || {
                let mut reader = connect(addr);
                for b in (c..batches).step_by(CONNECTIONS) {
                    let operations: Vec<Value> = (b * 100..((b + 1) * 100).min(count))
                        .map(|i| json!({"method": "POST", "path": "/api/v1/tasks", "body": task(i, now)}))
                        .collect();
                    let body = json!({ "operations": operations }).to_string();
                    let bytes = request(TOKEN, "POST", "/api/v1/batch", Some(&body));
                    let (status, _) = exchange(&mut reader, &bytes);
                    assert_eq!(status, 200, "batch {b}");
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
}

/// The four pages: a name and a query string.
fn pages() -> Vec<(&'static str, String)> {
    let encoded = |pairs: &[(&str, &str)]| serde_urlencoded::to_string(pairs).unwrap();
    vec![
        ("(a) no filter", encoded(&[("limit", "100")])),
        (
            "(b) due within 7 days, not done",
            encoded(&[
                ("limit", "100"),
                ("filter", r#"dateDue < now+7d && status != "done""#),
            ]),
        ),
        (
            "(c) q=<rare word>",
            encoded(&[("limit", "100"), ("q", RARE)]),
        ),
        (
            "(d) orderBy=dateDue",
            encoded(&[("limit", "100"), ("orderBy", "dateDue")]),
        ),
    ]
}

/// Requests/s and p99 (ms) of each page, measured with `taskd bench` over `connections`.
fn measure(server: &Server, seconds: f64, connections: usize) -> Vec<(f64, f64)> {
    let duration = format!("{seconds}s");
    let connections = connections.to_string();
    pages()
        .into_iter()
        .map(|(name, query)| {
            let page = server.call(TOKEN, "GET", &format!("/api/v1/tasks?{query}"), None);
            assert_eq!(page.0, 200, "{name}: {}", page.1);
            let found = page.1["data"].as_array().map_or(0, Vec::len);
            let args = [
                "-w",
                "page",
                "--page-query",
                &query,
                "--prefill",
                "0",
                "-c",
                &connections,
                "-d",
                &duration,
                "--warmup",
                "1s",
                // A full sort of the space takes seconds a request.
                "--timeout",
                "120s",
            ];
            let total = bench(server.addr, TOKEN, &args)["total"].clone();
            let rate = total["throughput"].as_f64().unwrap();
            let p99 = total["latencyMs"]["p99"].as_f64().unwrap();
            println!("  {name:34} {found:>3} tasks a page {rate:>8.0} r/s  p99 {p99:>8.2} ms");
            (rate, p99)
        })
        .collect()
}

/// Waits until the first page of 100 answers 200.
fn first_page(server: &Server) {
    let bytes = request(TOKEN, "GET", "/api/v1/tasks?limit=100", None);
    while exchange(&mut connect(server.addr), &bytes).0 != 200 {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts the server on `dir` (with `args`) and times it to the first page.
fn restart(dir: &Path, args: &[&str]) -> (Server, Duration) {
    let started = Instant::now();
    let (server, _) = Server::start_with(dir, args);
    first_page(&server);
    (server, started.elapsed())
}

fn ratios(label: &str, figures: &[(f64, f64)]) {
    let (rate, p99) = figures[0];
    for ((name, _), (r, p)) in pages().iter().zip(figures) {
        println!(
            "  {label:8} {name:34} r/s {:>5.2}x of (a)   p99 {:>6.2}x of (a)",
            r / rate,
            p / p99
        );
    }
}

fn main() {
    let tasks = env_or("TASKD_FIND_TASKS", 1_000_000);
    let seconds = env_or("TASKD_BENCH_SECONDS", 5) as f64;
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let empty = server.settled_rss(Duration::from_secs(5));
    let started = Instant::now();
    fill(server.addr, tasks);
    let filled = started.elapsed();
    std::thread::sleep(Duration::from_secs(3)); // the snapshot after the last write
    let full = server.settled_rss(Duration::from_secs(20));
    println!(
        "{tasks} tasks in one space: filled in {:.1} s; RSS {:.0} MiB -> {:.0} MiB, {:.0} bytes per task with the query indexes",
        filled.as_secs_f64(),
        mib(empty),
        mib(full),
        (full - empty) as f64 / tasks as f64
    );
    println!("first page of 100, with the indexes:");
    let indexed = measure(&server, seconds, CONNECTIONS);
    let stopped = server.stop();
    let (server, restarted) = restart(dir.path(), &[]);
    let rss = server.settled_rss(Duration::from_secs(20));
    println!(
        "SIGTERM {:.2} s; restart to the first page {:.2} s; RSS after it {:.0} MiB ({:.0} bytes per task above the empty server)",
        stopped.as_secs_f64(),
        restarted.as_secs_f64(),
        mib(rss),
        (rss - empty) as f64 / tasks as f64
    );
    server.stop();
    let (server, scan_restarted) = restart(dir.path(), &["--scan-queries"]);
    println!(
        "first page of 100, --scan-queries, {SCAN_CONNECTIONS} connections (restart {:.2} s):",
        scan_restarted.as_secs_f64()
    );
    let scanned = measure(&server, seconds, SCAN_CONNECTIONS);
    server.stop();
    println!("ratios to (a) of the same run:");
    ratios("indexes", &indexed);
    ratios("scan", &scanned);
}
