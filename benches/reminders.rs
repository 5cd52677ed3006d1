//! Reminders fired by the server (docs §18), as its own process (the release binary).
//!
//! `cargo bench --bench reminders`:
//! - 100,000 tasks whose reminders fall due in the same second, (a) in one space and (b)
//!   spread over 1,000 spaces (100 each): the time from that second until every one has
//!   fired (each firing a write of its own, so the space versions say when), and the p99
//!   of item GETs on 8 connections while they fire against the p99 of the same GETs just
//!   before (same run);
//! - (c) the CPU a server holding 1,000,000 future reminders uses while idle, over 10 s.
//!
//! `TASKD_REMINDER_TASKS` (default 100,000), `TASKD_REMINDER_IDLE_TASKS` (default
//! 1,000,000) change the sizes.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use support::{connect, drive, env_or, exchange, percentile_ms, request, Server, TOKEN};

const CONNECTIONS: usize = 8;
/// How long the GETs are measured, before and from the reminders' second.
const WINDOW: f64 = 2.0;

/// The current time in milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// `ms` as an RFC 3339 UTC date-time.
fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Creates tasks `t{from}..t{to}` in the default space of `token`, 100 a batch, each with
/// a reminder at `at`.
fn fill(addr: SocketAddr, token: &str, from: usize, to: usize, at: i64) {
    let mut reader = connect(addr);
    for start in (from..to).step_by(100) {
        let operations: Vec<Value> = (start..(start + 100).min(to))
            .map(|i| {
                json!({"method": "POST", "path": "/api/v1/tasks",
                       "body": {"todoId": format!("t{i}"), "name": format!("Task {i}"),
                                "reminders": [{"at": iso(at)}]}})
            })
            .collect();
        let body = json!({ "operations": operations }).to_string();
        let (status, _) = exchange(
            &mut reader,
            &request(token, "POST", "/api/v1/batch", Some(&body)),
        );
        assert_eq!(status, 200, "batch at t{start}");
    }
}

/// Fills `tokens`' spaces in parallel, `per_space` tasks each (the first space's spread
/// over 16 connections when it is the only one).
fn fill_all(addr: SocketAddr, tokens: &[String], per_space: usize, at: i64) {
    if tokens.len() == 1 {
        let parts = 16;
        let chunk = per_space.div_ceil(parts * 100) * 100;
        std::thread::scope(|scope| {
            for p in 0..parts {
                let token = &tokens[0];
                let (from, to) = (p * chunk, ((p + 1) * chunk).min(per_space));
                scope.spawn(move || fill(addr, token, from, to, at));
            }
        });
        return;
    }
    std::thread::scope(|scope| {
        for part in tokens.chunks(tokens.len().div_ceil(16)) {
            scope.spawn(move || {
                for token in part {
                    fill(addr, token, 0, per_space, at);
                }
            });
        }
    });
}

/// The space version of `token`'s default space.
fn version(addr: SocketAddr, token: &str) -> u64 {
    let (status, body) = exchange(
        &mut connect(addr),
        &request(token, "GET", "/api/v1/tasks?limit=1", None),
    );
    assert_eq!(status, 200);
    let page: Value = serde_json::from_slice(&body).unwrap();
    page["spaceVersion"].as_u64().unwrap()
}

/// Item GETs of the first space's tasks for [`WINDOW`] seconds; their p99 in ms.
fn gets(addr: SocketAddr, tasks: usize) -> f64 {
    let (_, latencies) = drive(addr, CONNECTIONS, WINDOW, move |i| {
        request(TOKEN, "GET", &format!("/api/v1/tasks/t{}", i % tasks), None)
    });
    percentile_ms(&latencies, 0.99)
}

/// One scenario: `tasks` reminders due in one second over `spaces` spaces. Prints and
/// returns (seconds until all fired, quiet GET p99, firing GET p99).
fn scenario(label: &str, tasks: usize, spaces: usize) -> (f64, f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let mut tokens = vec![TOKEN.to_string()];
    tokens.extend((1..spaces).map(|s| server.user(&format!("user{s}"))));
    let per_space = tasks / spaces;
    let started = Instant::now();
    // The second they fall due: far enough ahead for the fill and the quiet measurement.
    let at = now_ms() + 30_000 + (tasks as i64 / 10);
    fill_all(server.addr, &tokens, per_space, at);
    let filled = started.elapsed();
    let before: Vec<u64> = tokens.iter().map(|t| version(server.addr, t)).collect();
    let quiet = gets(server.addr, per_space);
    let lead = at - now_ms();
    assert!(
        lead > 500,
        "the fill took too long ({filled:?}): raise the lead"
    );
    std::thread::sleep(Duration::from_millis(lead as u64));
    let addr = server.addr;
    let firing = std::thread::spawn(move || gets(addr, per_space));
    for (token, before) in tokens.iter().zip(&before) {
        let target = before + per_space as u64;
        while version(server.addr, token) < target {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let all_fired = (now_ms() - at) as f64 / 1e3;
    let busy = firing.join().unwrap();
    println!(
        "{label}: {tasks} reminders over {spaces} space(s) (filled in {:.1} s): all fired {all_fired:.2} s after their second; \
         GET p99 {quiet:.2} ms quiet, {busy:.2} ms while firing ({:.2}x)",
        filled.as_secs_f64(),
        busy / quiet
    );
    server.stop();
    (all_fired, quiet, busy)
}

/// A server holding `tasks` reminders due in a day: its CPU over 10 idle seconds, as a
/// share of one core.
fn idle(tasks: usize) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    fill_all(
        server.addr,
        &[TOKEN.to_string()],
        tasks,
        now_ms() + 86_400_000,
    );
    // Let the snapshot of the fill land.
    std::thread::sleep(Duration::from_secs(5));
    let (cpu, wall) = (server.cpu(), Instant::now());
    std::thread::sleep(Duration::from_secs(10));
    let share = (server.cpu() - cpu).as_secs_f64() / wall.elapsed().as_secs_f64();
    println!(
        "(c) idle with {tasks} future reminders: {:.3} % of a core over 10 s",
        share * 100.0
    );
    server.stop();
    share
}

fn main() {
    let tasks = env_or("TASKD_REMINDER_TASKS", 100_000);
    let idle_tasks = env_or("TASKD_REMINDER_IDLE_TASKS", 1_000_000);
    let one = scenario("(a) one space", tasks, 1);
    let spread = scenario("(b) 1,000 spaces", tasks, 1_000);
    let share = idle(idle_tasks);
    println!("goals: all fired within 2 s; GET p99 while firing <= 2x quiet; idle < 1 % of a core");
    for (label, (fired, quiet, busy)) in [("(a)", one), ("(b)", spread)] {
        println!(
            "  {label} fired in {fired:.2} s ({}), p99 {:.2}x ({})",
            if fired <= 2.0 { "met" } else { "missed" },
            busy / quiet,
            if busy <= 2.0 * quiet { "met" } else { "missed" }
        );
    }
    println!(
        "  (c) idle {:.3} % ({})",
        share * 100.0,
        if share < 0.01 { "met" } else { "missed" }
    );
}
