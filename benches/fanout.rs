//! Change-stream fan-out (docs §12) measured from outside: one writer, N subscribers.
//!
//! `cargo bench --bench fanout` runs the release binary (or the one `TASKD_BENCH_BIN`
//! names) once per configuration and repetition, on a new data directory each time:
//!
//! - writes only (N = 0): the server CPU of the writes themselves, subtracted below;
//! - N = 1 and N = 100 subscribers of one space, one writer at 200 writes/s;
//! - N = 1,000: a user has at most 100 streams (§9a) and a stream is of its caller's own
//!   space, so 1,000 subscribers of one space cannot be had; instead 10 users (10 spaces)
//!   with 100 subscribers each and one writer per space, run twice: at 20 writes/s per
//!   space (200 writes/s in all, the write rate of N = 100) and at 200 writes/s per space
//!   (2,000 writes/s in all, the deliveries per second that 1,000 subscribers of one
//!   200 writes/s writer would get).
//!
//! A writer PATCHes one small task with its send time in the name, paced to its rate on
//! one keep-alive connection (it waits for each answer; after a slow answer, slots missed
//! by more than a period are skipped, so the rate is at most the one asked for); the
//! writers of several spaces take turns, evenly spread over a period.
//! Subscribers are tokio tasks on two single-threaded runtimes (the two cores are shared
//! with the server) that read raw HTTP/1.1, decode the chunked body into server-sent events
//! and take, for each event, its arrival time less the send time in its name. Their
//! sockets set `TCP_NODELAY`. Each run warms up for a second, then measures for
//! `TASKD_BENCH_SECONDS` (default 10); `TASKD_BENCH_REPS` (default 3) runs each
//! configuration. Per run it prints: writes and their answer latency; events delivered
//! against expected; delivery p50/p99/max; server CPU (`utime + stime`) per delivered
//! event, also net of the writes' own CPU (the N = 0 runs' median per write); RSS per
//! subscriber (RSS with every subscriber connected after the run, less the RSS before
//! they connected, over N).

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use support::{connect, env_or, exchange, find, percentile_ms, request, Server, SseDecoder, TOKEN};

/// Before the measured window: the first writes are not counted.
const WARMUP: Duration = Duration::from_secs(1);
/// Runtimes (threads) the subscribers are spread over.
const SHARDS: usize = 2;
/// A subscriber that hears nothing for this long gives up.
const IDLE: Duration = Duration::from_secs(30);

/// One configuration: `spaces` spaces, each with `subscribers` streams and one writer at
/// `rate` writes/s.
struct Setup {
    name: &'static str,
    spaces: usize,
    subscribers: usize,
    rate: u32,
}

const SETUPS: [Setup; 5] = [
    Setup {
        name: "N=0 (writes only), 1 space, 200 w/s",
        spaces: 1,
        subscribers: 0,
        rate: 200,
    },
    Setup {
        name: "N=1, 1 space, 200 w/s",
        spaces: 1,
        subscribers: 1,
        rate: 200,
    },
    Setup {
        name: "N=100, 1 space, 200 w/s",
        spaces: 1,
        subscribers: 100,
        rate: 200,
    },
    Setup {
        name: "N=1000, 10 spaces x 100, 20 w/s each (200 w/s in all)",
        spaces: 10,
        subscribers: 100,
        rate: 20,
    },
    Setup {
        name: "N=1000, 10 spaces x 100, 200 w/s each (2,000 w/s in all)",
        spaces: 10,
        subscribers: 100,
        rate: 200,
    },
];

/// What one run measured.
struct Run {
    /// Streams that ended before their writer's last write: closed by the server, or
    /// after `event: overflow`.
    cut: usize,
    overflows: usize,
    writes: usize,
    write_latencies: Vec<Duration>,
    expected: usize,
    latencies: Vec<Duration>,
    cpu: Duration,
    rss_growth: i64,
}

fn main() {
    let seconds = env_or("TASKD_BENCH_SECONDS", 10) as u64;
    let reps = env_or("TASKD_BENCH_REPS", 3);
    println!("binary: {}", support::binary().display());
    println!("warm-up 1 s, then {seconds} s measured per run, {reps} runs per setup");
    let mut table = Vec::new();
    let mut per_write = None;
    for setup in &SETUPS {
        let n = setup.spaces * setup.subscribers;
        for rep in 1..=reps {
            let run = run(setup, Duration::from_secs(seconds));
            let cpu = run.cpu.as_secs_f64() * 1e6;
            let delivered = run.latencies.len();
            let mut line = format!(
                "{} rep {rep}: {} writes (answer p50 {:.2} p99 {:.2} ms); server CPU {:.0} ms",
                setup.name,
                run.writes,
                percentile_ms(&run.write_latencies, 0.5),
                percentile_ms(&run.write_latencies, 0.99),
                cpu / 1e3,
            );
            if n == 0 {
                let each = cpu / run.writes as f64;
                line.push_str(&format!(" = {each:.1} µs per write"));
                per_write.get_or_insert_with(Vec::new).push(each);
                println!("{line}");
                continue;
            }
            let base = per_write.as_ref().map_or(0.0, |w: &Vec<f64>| median(w));
            let per_event = cpu / delivered as f64;
            let net = (cpu - base * run.writes as f64) / delivered as f64;
            let per_subscriber = run.rss_growth as f64 / n as f64 / 1024.0;
            let p50 = percentile_ms(&run.latencies, 0.5);
            let p99 = percentile_ms(&run.latencies, 0.99);
            let max = percentile_ms(&run.latencies, 1.0);
            if run.cut > 0 {
                line.push_str(&format!(
                    "; {} of {n} streams ended early ({} overflow events)",
                    run.cut, run.overflows
                ));
            }
            line.push_str(&format!(
                "; events {delivered}/{}; delivery p50 {p50:.2} p99 {p99:.2} max {max:.2} ms; \
                 {per_event:.2} µs/event ({net:.2} net of writes); RSS {:+.1} MiB = {per_subscriber:.1} KiB/subscriber",
                run.expected,
                run.rss_growth as f64 / (1024.0 * 1024.0),
            ));
            println!("{line}");
            table.push(format!(
                "{:<58} {rep:>3} {:>8} {:>9} {p50:>7.2} {p99:>7.2} {max:>8.2} {per_event:>8.2} {net:>8.2} {per_subscriber:>9.1}",
                setup.name,
                run.writes,
                format!("{:.1}%", 100.0 * delivered as f64 / run.expected as f64),
            ));
        }
    }
    println!();
    println!(
        "{:<58} {:>3} {:>8} {:>9} {:>7} {:>7} {:>8} {:>8} {:>8} {:>9}",
        "setup",
        "rep",
        "writes",
        "delivered",
        "p50 ms",
        "p99 ms",
        "max ms",
        "µs/ev",
        "net µs",
        "KiB/sub"
    );
    table.iter().for_each(|row| println!("{row}"));
    println!("goals: p99 ≤ 5 ms in every run at N=100; ≤ 2 µs server CPU per delivered event");
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// One run of `setup` on a new server, measured for `window` after [`WARMUP`].
fn run(setup: &Setup, window: Duration) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let tokens: Vec<String> = (0..setup.spaces)
        .map(|s| match s {
            0 => TOKEN.to_string(),
            s => server.user(&format!("space{s}")),
        })
        .collect();
    for token in &tokens {
        let body = json!({"todoId": "t0", "name": "start"});
        let (status, _) = server.call(token, "POST", "/api/v1/tasks", Some(body));
        assert_eq!(status, 201);
    }
    let before = server.settled_rss(Duration::from_secs(5));

    // Subscribers, spread over the shards; each counts itself ready at its first event
    // (the backlog: t0's creation).
    let epoch = Instant::now();
    let ready = Arc::new(AtomicUsize::new(0));
    let n = setup.spaces * setup.subscribers;
    let shards: Vec<_> = (0..SHARDS)
        .map(|shard| {
            let streams: Vec<String> = (shard..n)
                .step_by(SHARDS)
                .map(|i| tokens[i / setup.subscribers].clone())
                .collect();
            let ready = Arc::clone(&ready);
            let addr = server.addr;
            std::thread::spawn(move || subscribers(addr, streams, epoch, ready))
        })
        .collect();
    let waited = Instant::now();
    while ready.load(Ordering::SeqCst) < n {
        assert!(waited.elapsed() < IDLE, "subscribers did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300)); // from backlog to live

    let start = epoch.elapsed() + Duration::from_millis(50);
    let from = start + WARMUP;
    let to = from + window;
    // The writers of several spaces take turns, evenly spread over a period.
    let period = Duration::from_secs(1) / setup.rate;
    let writers: Vec<_> = tokens
        .iter()
        .enumerate()
        .map(|(s, token)| {
            let (addr, token) = (server.addr, token.clone());
            let start = start + period * s as u32 / setup.spaces as u32;
            std::thread::spawn(move || writer(addr, &token, epoch, start, period, from, to))
        })
        .collect();
    std::thread::sleep((epoch + from).saturating_duration_since(Instant::now()));
    let cpu_before = server.cpu();
    let mut writes = 0;
    let mut write_latencies = Vec::new();
    let mut expected = 0;
    for w in writers {
        let (count, latencies) = w.join().expect("a writer panicked");
        writes += count;
        expected += count * setup.subscribers;
        write_latencies.extend(latencies);
    }
    write_latencies.sort();
    let mut latencies = Vec::new();
    let mut sockets = Vec::new();
    let (mut cut, mut overflows) = (0, 0);
    for shard in shards {
        for heard in shard.join().expect("a subscriber shard panicked") {
            latencies.extend(
                heard
                    .times
                    .into_iter()
                    .filter(|(sent, _)| (from..to).contains(sent))
                    .map(|(sent, arrived)| arrived.saturating_sub(sent)),
            );
            cut += usize::from(!heard.ended);
            overflows += heard.overflows;
            sockets.push(heard.socket);
        }
    }
    latencies.sort();
    let cpu = server.cpu() - cpu_before;
    let after = server.settled_rss(Duration::from_secs(3));
    drop(sockets);
    server.stop();
    Run {
        cut,
        overflows,
        writes,
        write_latencies,
        expected,
        latencies,
        cpu,
        rss_growth: after as i64 - before as i64,
    }
}

/// One writer: PATCHes `t0` of `token`'s space every `period` from `start` to `to` (times
/// since `epoch`), its send time in nanoseconds as the name, then names it `end`. The
/// writes sent in `from..to` and their answer latencies.
fn writer(
    addr: SocketAddr,
    token: &str,
    epoch: Instant,
    start: Duration,
    period: Duration,
    from: Duration,
    to: Duration,
) -> (usize, Vec<Duration>) {
    let mut connection = connect(addr);
    let mut latencies = Vec::new();
    let mut at = start;
    while at < to {
        std::thread::sleep((epoch + at).saturating_duration_since(Instant::now()));
        let sent = epoch.elapsed();
        let body = format!(r#"{{"name":"{}"}}"#, sent.as_nanos());
        let bytes = request(token, "PATCH", "/api/v1/tasks/t0", Some(&body));
        let (status, _) = exchange(&mut connection, &bytes);
        assert_eq!(status, 200);
        let answered = epoch.elapsed();
        if (from..to).contains(&sent) {
            latencies.push(answered - sent);
        }
        // Behind by more than a period (a slow answer): the missed slots are skipped, not
        // sent in a burst, so the rate never goes above the one asked for.
        at += period;
        if answered > at + period {
            at = answered;
        }
    }
    let bytes = request(
        token,
        "PATCH",
        "/api/v1/tasks/t0",
        Some(r#"{"name":"end"}"#),
    );
    assert_eq!(exchange(&mut connection, &bytes).0, 200);
    (latencies.len(), latencies)
}

/// What one subscriber heard.
struct Heard {
    /// Send and arrival time (since the epoch) of each change event.
    times: Vec<(Duration, Duration)>,
    /// Whether it heard its writer's `end`.
    ended: bool,
    /// `event: overflow` events.
    overflows: usize,
    /// Its connection, still open.
    socket: std::net::TcpStream,
}

/// One shard of subscribers on a single-threaded runtime, a stream per token.
fn subscribers(
    addr: SocketAddr,
    tokens: Vec<String>,
    epoch: Instant,
    ready: Arc<AtomicUsize>,
) -> Vec<Heard> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let tasks: Vec<_> = tokens
            .into_iter()
            .map(|token| tokio::spawn(subscriber(addr, token, epoch, Arc::clone(&ready))))
            .collect();
        let mut heard = Vec::new();
        for task in tasks {
            heard.push(task.await.expect("a subscriber panicked"));
        }
        heard
    })
}

/// One subscriber: reads its stream until its writer's `end` (or until the server closes
/// it, or [`IDLE`]).
async fn subscriber(
    addr: SocketAddr,
    token: String,
    epoch: Instant,
    ready: Arc<AtomicUsize>,
) -> Heard {
    let mut socket = tokio::net::TcpStream::connect(addr).await.expect("connect");
    socket.set_nodelay(true).unwrap();
    socket
        .write_all(&request(&token, "GET", "/api/v1/changes/stream", None))
        .await
        .unwrap();
    let mut events = SseDecoder::default();
    let mut times = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let mut first = true;
    let mut ended = false;
    let mut overflows = 0;
    while !ended {
        let read = tokio::time::timeout(IDLE, socket.read(&mut buf)).await;
        let arrived = epoch.elapsed();
        let n = match read {
            Ok(Ok(n)) if n > 0 => n,
            _ => break,
        };
        events.push(&buf[..n], |event| {
            if event.starts_with(b"event: overflow") {
                overflows += 1;
                return;
            }
            let Some(name) = task_name(event) else {
                return;
            };
            if first {
                first = false;
                ready.fetch_add(1, Ordering::SeqCst);
            }
            match name {
                b"end" => ended = true,
                _ => {
                    if let Some(sent) = std::str::from_utf8(name)
                        .ok()
                        .and_then(|s| s.parse::<u64>().ok())
                    {
                        times.push((Duration::from_nanos(sent), arrived));
                    }
                }
            }
        });
    }
    Heard {
        times,
        ended,
        overflows,
        socket: socket.into_std().unwrap(),
    }
}

/// The task name in a change event.
fn task_name(event: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = br#""name":""#;
    let from = find(event, KEY)? + KEY.len();
    let len = find(&event[from..], b"\"")?;
    Some(&event[from..from + len])
}
