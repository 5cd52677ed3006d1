//! taskd at scale, as its own process (the release binary), the way a self-hoster runs it.
//!
//! `cargo bench --bench scale` fills one space with a million tasks (batches of 100 over
//! HTTP, the load tests' body with a line of notes: `support::load_task`) next to a 1,000-task space, then reports: RSS per
//! task, pages of open tasks in the big space against the small one, POST latency into the
//! big space while it is snapshotted every second against the small one (both measured
//! with `taskd bench`), SIGTERM time, restart
//! time to the first page and RSS per task after the restart; then, on a fresh data
//! directory, as many tasks created by single `POST`s (issue 38's restart: after SIGTERM,
//! and after a `kill -9`); then, on another, 100,000 users (one space each): RSS per idle
//! space and restart time. Fills through batches run on 4 connections, as issue 38
//! measures them; single `POST`s on 64, so that the fill's fsyncs are shared.
//! `TASKD_SCALE_TASKS`, `TASKD_SCALE_SINGLE` and `TASKD_SCALE_SPACES` change the sizes (0
//! skips a part), `TASKD_BENCH_SECONDS` (default 5) the length of each measured load.

mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use support::{
    bench, connect, env_or, exchange, load_task as task, mib, request, Server, ADMIN, TOKEN,
};

const SMALL: usize = 1_000;
/// Connections of the users' creation.
const CONNECTIONS: usize = 32;
/// Connections of a fill through batches, as issue 38 measures it.
const FILL_CONNECTIONS: usize = 4;
/// Connections of a fill by single `POST`s: each waits for its fsync, so 64 share one.
const SINGLE_CONNECTIONS: usize = 64;

/// Creates tasks `t0..t{count}` in `token`'s default space, 100 a batch over
/// [`FILL_CONNECTIONS`] connections.
fn fill(addr: SocketAddr, token: &'static str, count: usize) {
    let batches = count.div_ceil(100);
    let threads: Vec<_> = (0..FILL_CONNECTIONS)
        .map(|c| {
            std::thread::spawn(move || {
                let mut reader = connect(addr);
                for b in (c..batches).step_by(FILL_CONNECTIONS) {
                    let operations: Vec<Value> = (b * 100..((b + 1) * 100).min(count))
                        .map(
                            |i| json!({"method": "POST", "path": "/api/v1/tasks", "body": task(i)}),
                        )
                        .collect();
                    let body = json!({ "operations": operations }).to_string();
                    let bytes = request(token, "POST", "/api/v1/batch", Some(&body));
                    let (status, _) = exchange(&mut reader, &bytes);
                    assert_eq!(status, 200, "batch {b}");
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
}

/// Creates tasks `t{from}..t{to}` in the default space, one `POST` each over
/// [`SINGLE_CONNECTIONS`] connections.
fn fill_singly(addr: SocketAddr, from: usize, to: usize) {
    let threads: Vec<_> = (0..SINGLE_CONNECTIONS)
        .map(|c| {
            std::thread::spawn(move || {
                let mut reader = connect(addr);
                for i in (from + c..to).step_by(SINGLE_CONNECTIONS) {
                    let body = task(i).to_string();
                    let bytes = request(TOKEN, "POST", "/api/v1/tasks", Some(&body));
                    assert_eq!(exchange(&mut reader, &bytes).0, 201, "task {i}");
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
}

/// Waits until a page of 100 in `token`'s space answers 200.
fn first_page(addr: SocketAddr, token: &str) {
    let bytes = request(token, "GET", "/api/v1/tasks?limit=100", None);
    while exchange(&mut connect(addr), &bytes).0 != 200 {
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn main() {
    let tasks = env_or("TASKD_SCALE_TASKS", 1_000_000);
    let singly = env_or("TASKD_SCALE_SINGLE", tasks);
    let spaces = env_or("TASKD_SCALE_SPACES", 100_000);
    let seconds = env_or("TASKD_BENCH_SECONDS", 5) as f64;
    if tasks > 0 {
        big_space(tasks, seconds);
    }
    if singly > 0 {
        single_posts(singly);
    }
    if spaces > 0 {
        many_spaces(spaces);
    }
}

/// One space of `tasks` tasks next to one of [`SMALL`].
fn big_space(tasks: usize, seconds: f64) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let bare = server.rss();
    let (status, small) = server.call(
        ADMIN,
        "POST",
        "/api/v1/admin/users",
        Some(json!({"name": "small"})),
    );
    assert_eq!(status, 201);
    let small: &'static str = small["data"]["token"].as_str().unwrap().to_string().leak();
    fill(server.addr, small, SMALL);
    let empty = server.rss();
    let started = Instant::now();
    fill(server.addr, TOKEN, tasks);
    let filled = started.elapsed();
    std::thread::sleep(Duration::from_secs(3)); // the snapshot after the last write
    let full = server.rss();
    println!(
        "{tasks} tasks in one space: filled in {:.1} s ({:.0} tasks/s); RSS {:.0} MiB -> {:.0} MiB, {:.0} bytes per task; peak RSS {:.0} MiB ({:.0} bytes per task, snapshots included)",
        filled.as_secs_f64(),
        tasks as f64 / filled.as_secs_f64(),
        mib(empty),
        mib(full),
        (full - empty) as f64 / tasks as f64,
        mib(server.peak()),
        (server.peak() - empty) as f64 / tasks as f64
    );

    // Measured by `taskd bench`, as a user would: walking the open tasks 50 a page, then
    // POSTing (every write dirties its space, so the big one is snapshotted each second).
    let duration = format!("{seconds}s");
    let run = |token: &str, workload: &str| {
        let args = [
            "-w",
            workload,
            "--prefill",
            "0",
            "-c",
            "32",
            "-d",
            &duration,
        ];
        let total = bench(server.addr, token, &args)["total"].clone();
        let ms = |p: &str| total["latencyMs"][p].as_f64().unwrap();
        (
            total["throughput"].as_f64().unwrap(),
            ms("p50"),
            ms("p99"),
            ms("max"),
        )
    };
    let (small_pages, _, small_p99, _) = run(small, "page");
    let (big_pages, _, big_p99, _) = run(TOKEN, "page");
    println!(
        "pages of 50 open tasks: {SMALL} tasks {small_pages:.0} r/s p99 {small_p99:.2} ms; {tasks} tasks {big_pages:.0} r/s p99 {big_p99:.2} ms; ratio {:.2}",
        big_pages / small_pages
    );
    let small_post = run(small, "write");
    let big_post = run(TOKEN, "write");
    println!(
        "POST: {SMALL}-task space {:.0} r/s p50 {:.2} p99 {:.2} max {:.2} ms; {tasks}-task space (snapshotted meanwhile) {:.0} r/s p50 {:.2} p99 {:.2} max {:.2} ms; p99 ratio {:.2}",
        small_post.0, small_post.1, small_post.2, small_post.3,
        big_post.0, big_post.1, big_post.2, big_post.3,
        big_post.2 / small_post.2
    );

    // Every write of the two spaces created one task: the fill's and the POSTs'.
    let held = (server.version(TOKEN) + server.version(small)) as usize;
    let server = restart(server, dir.path(), bare, held, "task");
    longest_journal(server, dir.path(), tasks);
}

/// The bytes of the files in `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// Renames tasks of the big space (batches of 100) until the journal holds almost as much
/// as the compaction rule lets it (25% of the space's file, the default) without a snapshot, kills the
/// server, and times the restart that replays it all.
fn longest_journal(server: Server, dir: &Path, tasks: usize) {
    let file = std::fs::read_dir(dir.join("spaces"))
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .max()
        .unwrap();
    let journal = dir.join("journal");
    let mut reader = connect(server.addr);
    let mut round = 0;
    while dir_bytes(&journal) < file * 24 / 100 {
        let operations: Vec<Value> = (0..100)
            .map(|i| {
                let id = (round * 100 + i) % tasks;
                json!({"method": "PATCH", "path": format!("/api/v1/tasks/t{id}"), "body": {"name": format!("renamed {round}")}})
            })
            .collect();
        let body = json!({ "operations": operations }).to_string();
        let bytes = request(TOKEN, "POST", "/api/v1/batch", Some(&body));
        assert_eq!(exchange(&mut reader, &bytes).0, 200);
        round += 1;
    }
    let replay = dir_bytes(&journal);
    server.crash();
    let started = Instant::now();
    let (server, listening) = Server::start(dir);
    first_page(server.addr, TOKEN);
    let restarted = started.elapsed();
    println!(
        "longest journal: space file {:.0} MiB, journal {:.0} MiB ({} writes); kill -9, restart: listening after {:.2} s, first page after {:.2} s",
        mib(file),
        mib(replay),
        round * 100,
        listening.as_secs_f64(),
        restarted.as_secs_f64()
    );
    server.stop();
}

/// Issue 38's restart: one space filled by `tasks` single `POST`s, then restarted after
/// SIGTERM, and again after a `kill -9` that follows more single `POST`s (a tenth of
/// `tasks`, so the journal holds them).
fn single_posts(tasks: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let bare = server.rss();
    let started = Instant::now();
    fill_singly(server.addr, 0, tasks);
    let filled = started.elapsed();
    std::thread::sleep(Duration::from_secs(3)); // the snapshot after the last write
    let full = server.rss();
    println!(
        "{tasks} tasks by single POSTs: filled in {:.1} s ({:.0} tasks/s); {:.0} bytes per task",
        filled.as_secs_f64(),
        tasks as f64 / filled.as_secs_f64(),
        (full - bare) as f64 / tasks as f64,
    );
    let server = restart(server, dir.path(), bare, tasks, "task");
    let more = tasks / 10;
    fill_singly(server.addr, tasks, tasks + more);
    let journal = dir_bytes(&dir.path().join("journal"));
    server.crash();
    let started = Instant::now();
    let (server, listening) = Server::start(dir.path());
    first_page(server.addr, TOKEN);
    println!(
        "kill -9 after {more} more single POSTs (journal {:.0} MiB): listening after {:.2} s, first page after {:.2} s",
        mib(journal),
        listening.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    server.stop();
}

/// `spaces` users, each with its own (idle) space.
fn many_spaces(spaces: usize) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let before = server.rss();
    let started = Instant::now();
    let addr = server.addr;
    let threads: Vec<_> = (0..CONNECTIONS)
        .map(|c| {
            std::thread::spawn(move || {
                let mut reader = connect(addr);
                for u in (c..spaces).step_by(CONNECTIONS) {
                    let body = json!({ "name": format!("user{u}") }).to_string();
                    let bytes = request(ADMIN, "POST", "/api/v1/admin/users", Some(&body));
                    assert_eq!(exchange(&mut reader, &bytes).0, 201);
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let created = started.elapsed();
    std::thread::sleep(Duration::from_secs(3));
    let after = server.rss();
    println!(
        "{spaces} users created in {:.1} s ({:.0}/s); RSS {:.0} MiB -> {:.0} MiB, {:.0} bytes per idle space",
        created.as_secs_f64(),
        spaces as f64 / created.as_secs_f64(),
        mib(before),
        mib(after),
        (after - before) as f64 / spaces as f64
    );
    restart(server, dir.path(), before, spaces, "space").stop();
}

/// Stops `server` with SIGTERM, starts it again on `dir` and waits for the first page;
/// prints both times and the RSS after the restart per `unit` (`count` of them) above
/// `empty`, an empty server's RSS. Returns the restarted server.
fn restart(server: Server, dir: &Path, empty: u64, count: usize, unit: &str) -> Server {
    let stopped = server.stop();
    let started = Instant::now();
    let (server, listening) = Server::start(dir);
    first_page(server.addr, TOKEN);
    let restarted = started.elapsed();
    let rss = server.rss();
    println!(
        "SIGTERM {:.2} s; restart with {count} {unit}s: listening after {:.2} s, first page after {:.2} s; RSS {:.0} MiB ({:.0} bytes per {unit} above an empty server's {:.0} MiB)",
        stopped.as_secs_f64(),
        listening.as_secs_f64(),
        restarted.as_secs_f64(),
        mib(rss),
        (rss - empty) as f64 / count as f64,
        mib(empty)
    );
    server
}
