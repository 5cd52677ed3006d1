//! Isolation between spaces (docs §21, "§9a — one account's work cannot stall
//! another's"), measured on the release binary as its own process on 127.0.0.1.
//!
//! `cargo bench --bench isolation` starts taskd and gives user A (the default user) a
//! graph of 100 layers of 100 tasks, each naming all 100 tasks of the layer below, and a
//! task `hub` with 10,000 dependents. Then it runs `taskd bench -w mixed` for ten other
//! users B–K (made by the bench through the admin API, one space each) twice: alone
//! (the baseline), and while A attacks on 2 connections, each in a loop:
//!
//! - a batch of 100 `predecessorIds` PATCHes that make the cycle check as dear as it gets:
//!   they alternate between a task of layer 1 (every task above depends on it: a search
//!   along its dependents follows 980,000 edges) and one of layer 98 that is given layer
//!   96 and then 97 again (a search from its new predecessors follows 960,000 edges);
//! - a flip of `hub` between done and open (10,000 `isBlocked` flips, one write);
//! - a batch of 10 PATCHes of 100,000-character notes (a 1 MiB body).
//!
//! It prints B–K's GET, PATCH and POST p50 and p99 of both runs and their differences,
//! against the goals of the issue (GET p99 at most 2 ms above the baseline, POST p99 at
//! most 50 ms), and what A's requests got. `TASKD_ISOLATION_SECONDS` (default 20) sets the
//! measured length of each run, `TASKD_ISOLATION_RATE` (default 200) B–K's requests per
//! second in all (open loop: a request is timed from when it was due, so waiting counts).

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use support::{
    connect, env_or, exchange, latency, load_average, mixed_users, print_neighbours, request,
    Server, TOKEN,
};

const LAYERS: usize = 100;
const WIDTH: usize = 100;
const HUB_DEPENDENTS: usize = 10_000;
/// A's connections.
const ATTACKERS: usize = 2;
/// Notes tasks per attacker, one 100,000-character note each per notes batch.
const NOTES: usize = 10;
const USERS: usize = 10;

fn main() {
    let seconds = env_or("TASKD_ISOLATION_SECONDS", 20);
    let rate = env_or("TASKD_ISOLATION_RATE", 200);
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let started = Instant::now();
    setup(server.addr);
    println!(
        "A's space: {LAYERS} x {WIDTH} layered tasks, a hub with {HUB_DEPENDENTS} dependents, \
         made in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let loads = [load_average()];
    let baseline = mixed_users(server.addr, USERS, seconds, rate);
    let loads = [loads[0].clone(), load_average()];
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicU64::new(0));
    let attackers: Vec<_> = (0..ATTACKERS)
        .map(|a| {
            let (stop, flips, addr) = (Arc::clone(&stop), Arc::clone(&flips), server.addr);
            std::thread::spawn(move || attack(addr, a, &stop, &flips))
        })
        .collect();
    let attacked = mixed_users(server.addr, USERS, seconds, rate);
    stop.store(true, Ordering::Relaxed);
    let loads = [loads[0].clone(), loads[1].clone(), load_average()];
    let answers: Vec<Vec<(&str, u16, Duration)>> =
        attackers.into_iter().map(|t| t.join().unwrap()).collect();

    print_neighbours(USERS, rate, seconds, [&baseline, &attacked], &loads);
    let get = latency(&attacked, "get").1 - latency(&baseline, "get").1;
    let post = latency(&attacked, "post").1 - latency(&baseline, "post").1;
    println!(
        "goal GET p99 +{get:.2} ms (at most +2 ms): {}; goal POST p99 +{post:.2} ms (at most \
         +50 ms): {}",
        if get <= 2.0 { "met" } else { "MISSED" },
        if post <= 50.0 { "met" } else { "MISSED" }
    );
    println!("\nA's requests during the attacked run:");
    for kind in ["predecessors batch", "hub flip", "notes batch"] {
        let mine: Vec<&(&str, u16, Duration)> = answers
            .iter()
            .flatten()
            .filter(|(k, ..)| *k == kind)
            .collect();
        let mut statuses: Vec<u16> = mine.iter().map(|(_, s, _)| *s).collect();
        statuses.sort();
        statuses.dedup();
        let counts: Vec<String> = statuses
            .iter()
            .map(|s| format!("{s} x{}", mine.iter().filter(|(_, t, _)| t == s).count()))
            .collect();
        let mean = mine.iter().map(|(.., d)| d.as_secs_f64()).sum::<f64>() * 1e3
            / mine.len().max(1) as f64;
        println!(
            "  {kind:<20} {:>5} sent, mean {mean:>8.1} ms, {}",
            mine.len(),
            counts.join(", ")
        );
    }
}

/// Task `l{layer}-{i}`.
fn layered(layer: usize, i: usize) -> String {
    format!("l{layer}-{i}")
}

fn layer(layer: usize) -> Vec<String> {
    (0..WIDTH).map(|i| layered(layer, i)).collect()
}

/// Sends `operations` as one batch as A; its status.
fn batch(reader: &mut std::io::BufReader<std::net::TcpStream>, operations: &[Value]) -> u16 {
    let body = json!({ "operations": operations }).to_string();
    exchange(
        reader,
        &request(TOKEN, "POST", "/api/v1/batch", Some(&body)),
    )
    .0
}

fn create(id: String, predecessors: &[String]) -> Value {
    json!({"method": "POST", "path": "/api/v1/tasks",
           "body": {"todoId": id, "status": "open", "predecessorIds": predecessors}})
}

/// A's graph: the layers, `hub` and its dependents, and the notes tasks.
fn setup(addr: SocketAddr) {
    let mut reader = connect(addr);
    for l in 0..LAYERS {
        let below = if l == 0 { Vec::new() } else { layer(l - 1) };
        let operations: Vec<Value> = (0..WIDTH).map(|i| create(layered(l, i), &below)).collect();
        assert_eq!(batch(&mut reader, &operations), 200, "layer {l}");
    }
    let hub = ["hub".to_string()];
    assert_eq!(batch(&mut reader, &[create("hub".into(), &[])]), 200);
    for b in 0..HUB_DEPENDENTS / 100 {
        let operations: Vec<Value> = (b * 100..(b + 1) * 100)
            .map(|i| create(format!("d{i}"), &hub))
            .collect();
        assert_eq!(batch(&mut reader, &operations), 200, "dependents {b}");
    }
    let notes: Vec<Value> = (0..ATTACKERS * NOTES)
        .map(|i| create(format!("n{i}"), &[]))
        .collect();
    assert_eq!(batch(&mut reader, &notes), 200);
}

/// A's attack on one connection until `stop`: the three requests of the module doc in
/// turn; what each got and how long it took.
fn attack(
    addr: SocketAddr,
    attacker: usize,
    stop: &AtomicBool,
    flips: &AtomicU64,
) -> Vec<(&'static str, u16, Duration)> {
    // Layer 1's task `low` loses and regains l0-99; layer 98's `high` gets layer 96, then
    // layer 97 again. So a whole batch leaves the graph as it was, and names no cycle.
    let (low, high) = (layered(1, attacker), layered(98, attacker));
    let mut without_last = layer(0);
    without_last.pop();
    let targets = [
        (low.clone(), without_last),
        (high.clone(), layer(96)),
        (low, layer(0)),
        (high, layer(97)),
    ];
    let predecessors: Vec<Value> = (0..100)
        .map(|i| {
            let (id, to) = &targets[i % targets.len()];
            json!({"method": "PATCH", "path": format!("/api/v1/tasks/{id}"),
                   "body": {"predecessorIds": to}})
        })
        .collect();
    let predecessors = json!({ "operations": predecessors }).to_string();
    let predecessors = request(TOKEN, "POST", "/api/v1/batch", Some(&predecessors));
    let notes = |round: usize| -> Vec<u8> {
        let letter = char::from(b'a' + (round % 26) as u8);
        let text = letter.to_string().repeat(100_000);
        let operations: Vec<Value> = (0..NOTES)
            .map(|j| {
                json!({"method": "PATCH",
                       "path": format!("/api/v1/tasks/n{}", attacker * NOTES + j),
                       "body": {"notesMarkdown": text}})
            })
            .collect();
        let body = json!({ "operations": operations }).to_string();
        assert!(body.len() <= 1 << 20, "a body within the 1 MiB limit");
        request(TOKEN, "POST", "/api/v1/batch", Some(&body))
    };
    let notes = [notes(attacker), notes(attacker + 1)];
    let mut reader = connect(addr);
    let mut answers = Vec::new();
    let mut round = 0;
    while !stop.load(Ordering::Relaxed) {
        let status = if flips.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
            "done"
        } else {
            "open"
        };
        let flip = json!({ "status": status }).to_string();
        let flip = request(TOKEN, "PATCH", "/api/v1/tasks/hub", Some(&flip));
        for (kind, bytes) in [
            ("predecessors batch", &predecessors),
            ("hub flip", &flip),
            ("notes batch", &notes[round % 2]),
        ] {
            let sent = Instant::now();
            let (status, _) = exchange(&mut reader, bytes);
            answers.push((kind, status, sent.elapsed()));
        }
        round += 1;
    }
    answers
}
