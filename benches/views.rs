//! Live views (docs §24, issue 42) measured from outside, on the release binary (or the
//! one `TASKD_BENCH_BIN` names), each run on a new data directory.
//!
//! **Writes.** Two spaces of one server hold 1,000 tasks each, task k with `status` `"sk"`.
//! On the first, 1,000 live views are open, view k showing `status = "sk"` (ten members
//! with 100 streams each: a user has at most 100); the second has none. One writer PATCHes
//! task k (k in turn) at 200 writes/s on one keep-alive connection, its send time in the
//! name, to the first space during the 1 s warm-up, then to each space by turns of 1 s
//! for `TASKD_BENCH_SECONDS` (default 20): a write to the first changes one task of one
//! view, which sends one `update`. Measured: the event's arrival less the write's answer
//! (p50, p99; a negative difference counts as 0), and the server's CPU (`utime + stime`
//! of `/proc/PID/stat`, read at each turn) per write in the turns of each space: the
//! space with no view is the baseline, measured in the same run and under the same load
//! of the machine, turn by turn. `TASKD_BENCH_REPS` (default 3) repetitions.
//! `TASKD_BENCH_VIEWS=N` opens N views instead of 1,000 (view k on task k; the writes go
//! to tasks `0..N`, so every write still makes one event): the cost of the one event
//! each write makes, whatever the number of views.
//!
//! **Idle.** 10,000 live views whose filters name `now`: a server has at most 1,000 open
//! streams (§12), so ten servers of 1,000 views (ten users of 100 views, each on its own
//! space of 100 tasks due in the coming days; view i shows `dateDue < now-{i}m`, so every
//! view has its own boundaries ahead). The servers' CPU over `TASKD_BENCH_IDLE_SECONDS`
//! (default 30) with no write, as % of one core, against the same ten servers with
//! nothing open and with 10,000 change streams (which send the same keep-alives: every
//! stream sends one at least every 15 s, docs §12). `TASKD_BENCH_IDLE_SECONDS=0` skips
//! this part.

mod support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use support::{
    connect, cpu_of, env_or, exchange, find, percentile_ms, request, Server, SseDecoder,
};

/// Tasks (and views) of the space written to.
const TASKS: usize = 1_000;
/// Writes per second.
const RATE: u32 = 200;
/// Members streaming, 100 views each.
const MEMBERS: usize = 10;
/// Streams a user may hold.
const PER_USER: usize = 100;
/// Before the measured window.
const WARMUP: Duration = Duration::from_secs(1);
/// The writes take turns between the two spaces in phases this long.
const PHASE: Duration = Duration::from_secs(1);
/// Servers of the idle part, 1,000 views each.
const IDLE_SERVERS: usize = 10;
/// A stream that hears nothing for this long gives up.
const PATIENCE: Duration = Duration::from_secs(60);

fn main() {
    let seconds = env_or("TASKD_BENCH_SECONDS", 20) as u64;
    let reps = env_or("TASKD_BENCH_REPS", 3);
    let idle = env_or("TASKD_BENCH_IDLE_SECONDS", 30) as u64;
    let views = env_or("TASKD_BENCH_VIEWS", TASKS).clamp(1, TASKS);
    println!("binary: {}", support::binary().display());
    println!("writes: {RATE} w/s, warm-up 1 s, {seconds} s measured by turns, {reps} reps");
    let window = Duration::from_secs(seconds);
    for rep in 1..=reps {
        let run = writes(views, window);
        let each = |i: usize| run.cpu[i].as_secs_f64() * 1e6 / run.writes[i] as f64;
        let (viewed, plain) = (each(0), each(1));
        println!(
            "rep {rep}: space with {views} views: {} writes, {viewed:.1} µs CPU/write; space with \
             none: {} writes, {plain:.1} µs CPU/write; ratio {:.3}, {:+.1} µs/write; events \
             {}/{} (after the answer: p50 {:.2} p99 {:.2} max {:.2} ms)",
            run.writes[0],
            run.writes[1],
            viewed / plain,
            viewed - plain,
            run.latencies.len(),
            run.writes[0],
            percentile_ms(&run.latencies, 0.5),
            percentile_ms(&run.latencies, 0.99),
            percentile_ms(&run.latencies, 1.0),
        );
    }
    println!(
        "goals: event p99 ≤ 10 ms after the answer; < 50 µs server CPU per write with 1,000 views"
    );
    let window = Duration::from_secs(idle);
    let base = idle_cpu(Idle::Nothing, window);
    let changes = idle_cpu(Idle::Changes, window);
    let views = idle_cpu(Idle::Views, window);
    println!(
        "idle {idle} s, {IDLE_SERVERS} servers: nothing open {base:.3}% of a core; 10,000 change \
         streams {changes:.3}%; 10,000 live views with `now` boundaries {views:.3}% (+{:.3} \
         points over nothing open, {:+.3} over the change streams)",
        views - base,
        views - changes,
    );
    println!("goal: 10,000 idle live views < 1% of a core");
}

/// What one writes run measured; `[viewed, plain]`: the phases of writes to the space
/// with the live views and to the space with none.
struct Writes {
    writes: [usize; 2],
    cpu: [Duration; 2],
    /// Event arrival less the write's answer, per event heard in the window.
    latencies: Vec<Duration>,
}

/// One writes run on a new server: two spaces of [`TASKS`] tasks, `views` live views open
/// on the first (view k showing task k), the writes (to tasks `0..views`) taking turns
/// between the two in phases of [`PHASE`].
fn writes(views: usize, window: Duration) -> Writes {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let owner = server.account("owner");
    // A default space cannot be shared: spaces of their own.
    let spaces = ["viewed", "plain"].map(|name| {
        let space = Some(json!({ "name": name }));
        let (status, body) = server.call(&owner.token, "POST", "/api/v1/spaces", space);
        assert_eq!(status, 201, "{body}");
        let space = body["data"]["spaceId"].as_str().unwrap().to_string();
        for from in (0..TASKS).step_by(100) {
            let operations: Vec<Value> = (from..from + 100)
                .map(|k| {
                    json!({"method": "POST", "path": "/api/v1/tasks",
                           "body": {"todoId": format!("t{k}"), "name": "x", "status": format!("s{k}")}})
                })
                .collect();
            let (status, body) = server.call(
                &owner.token,
                "POST",
                &format!("/api/v1/batch?spaceId={space}"),
                Some(json!({ "operations": operations })),
            );
            assert_eq!(status, 200, "{body}");
        }
        space
    });
    let viewed = &spaces[0];
    let members: Vec<String> = (0..views.div_ceil(PER_USER))
        .map(|m| member(&server, &owner.token, viewed, &format!("member{m}")))
        .collect();
    let epoch = Instant::now();
    let ready = Arc::new(AtomicUsize::new(0));
    let streams: Vec<(String, String)> = (0..views)
        .map(|k| {
            let filter = format!("status%20%3D%20%22s{k}%22");
            let path = format!("/api/v1/live?spaceId={viewed}&filter={filter}");
            (members[k / PER_USER].clone(), path)
        })
        .collect();
    let listeners = listen(server.addr, streams, epoch, &ready, views);

    let start = epoch.elapsed() + Duration::from_millis(50);
    let (from, to) = (start + WARMUP, start + WARMUP + window);
    let (token, addr, pid) = (owner.token.clone(), server.addr, server.pid());
    let writer = std::thread::spawn(move || {
        let times = Times {
            epoch,
            start,
            from,
            to,
        };
        writer(addr, pid, &token, &spaces, views, times)
    });
    let (answered, writes, cpu) = writer.join().expect("the writer panicked");
    let mut latencies: Vec<Duration> = listeners
        .into_iter()
        .flat_map(|shard| shard.join().expect("a listener panicked"))
        .filter_map(|(sent, arrived)| Some(arrived.saturating_sub(*answered.get(&sent)?)))
        .collect();
    latencies.sort();
    server.stop();
    Writes {
        writes,
        cpu,
        latencies,
    }
}

/// A new user made a viewer of `space`, which `owner` (a token) owns; its token.
fn member(server: &Server, owner: &str, space: &str, name: &str) -> String {
    let account = server.account(name);
    let path = format!("/api/v1/spaces/{space}/members/{}", account.user_id);
    let (status, body) = server.call(owner, "PUT", &path, Some(json!({"role": "viewer"})));
    assert_eq!(status, 201, "{body}");
    let accept = format!("/api/v1/spaces/{space}/accept");
    let (status, body) = server.call(&account.token, "POST", &accept, Some(json!({})));
    assert_eq!(status, 200, "{body}");
    account.token
}

/// Opens `streams` (token, path) on two single-threaded runtimes, waits until each has
/// its `reset`, and returns the runtimes' threads: each gives the (send time, arrival)
/// of every `update` its streams heard, until their writer's `end`.
fn listen(
    addr: SocketAddr,
    streams: Vec<(String, String)>,
    epoch: Instant,
    ready: &Arc<AtomicUsize>,
    n: usize,
) -> Vec<std::thread::JoinHandle<Vec<(Duration, Duration)>>> {
    let mut shards: Vec<Vec<(String, String)>> = vec![Vec::new(), Vec::new()];
    for (i, stream) in streams.into_iter().enumerate() {
        shards[i % 2].push(stream);
    }
    let handles = shards
        .into_iter()
        .map(|streams| {
            let ready = Arc::clone(ready);
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async move {
                    let tasks: Vec<_> = streams
                        .into_iter()
                        .map(|(token, path)| {
                            tokio::spawn(stream(addr, token, path, epoch, Arc::clone(&ready)))
                        })
                        .collect();
                    let mut heard = Vec::new();
                    for task in tasks {
                        heard.extend(task.await.expect("a stream panicked"));
                    }
                    heard
                })
            })
        })
        .collect();
    let waited = Instant::now();
    while ready.load(Ordering::SeqCst) < n {
        assert!(waited.elapsed() < PATIENCE, "live views did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    handles
}

/// One live view: the (send time, arrival) of each `update` until an `update` named `end`
/// (or [`PATIENCE`] of silence, or the server's close).
async fn stream(
    addr: SocketAddr,
    token: String,
    path: String,
    epoch: Instant,
    ready: Arc<AtomicUsize>,
) -> Vec<(Duration, Duration)> {
    let mut socket = tokio::net::TcpStream::connect(addr).await.expect("connect");
    socket.set_nodelay(true).unwrap();
    socket
        .write_all(&request(&token, "GET", &path, None))
        .await
        .unwrap();
    let mut events = SseDecoder::default();
    let mut heard = Vec::new();
    let mut buf = vec![0; 64 * 1024];
    let mut ended = false;
    while !ended {
        let n = match tokio::time::timeout(PATIENCE, socket.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => n,
            _ => break,
        };
        let arrived = epoch.elapsed();
        events.push(&buf[..n], |event| {
            if find(event, b"event: reset").is_some() {
                ready.fetch_add(1, Ordering::SeqCst);
            } else if find(event, b"event: update").is_some() {
                match record_name(event) {
                    Some(b"end") => ended = true,
                    Some(name) => {
                        if let Some(sent) = std::str::from_utf8(name)
                            .ok()
                            .and_then(|s| s.parse::<u64>().ok())
                        {
                            heard.push((Duration::from_nanos(sent), arrived));
                        }
                    }
                    None => {}
                }
            }
        });
    }
    heard
}

/// The task name in an `update` event.
fn record_name(event: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = br#""name":""#;
    let from = find(event, KEY)? + KEY.len();
    let len = find(&event[from..], b"\"")?;
    Some(&event[from..from + len])
}

/// When the writer writes, as times since `epoch`: from `start`, measured in `from..to`.
struct Times {
    epoch: Instant,
    start: Duration,
    from: Duration,
    to: Duration,
}

/// The writer: PATCHes task k (k in `0..tasks` in turn) every 1/[`RATE`] s, its send time in nanoseconds
/// as the name, in `spaces[0]` (the viewed space) before `from`, then in `spaces[0]` and
/// `spaces[1]` by turns of [`PHASE`] until `to`; then names every task of the viewed
/// space `end` so that each view's stream ends. Returns the answer time of each write to
/// the viewed space in `from..to` by send time, and per space the writes and the server's
/// CPU (process `pid`) in its phases.
fn writer(
    addr: SocketAddr,
    pid: u32,
    token: &str,
    spaces: &[String; 2],
    tasks: usize,
    times: Times,
) -> (HashMap<Duration, Duration>, [usize; 2], [Duration; 2]) {
    let Times {
        epoch,
        start,
        from,
        to,
    } = times;
    let period = Duration::from_secs(1) / RATE;
    let mut connection = connect(addr);
    let mut answered = HashMap::new();
    let (mut writes, mut cpu) = ([0; 2], [Duration::ZERO; 2]);
    // The phase being measured, and the server's CPU when it began.
    let mut phase: Option<(u128, Duration)> = None;
    let mut at = start;
    let mut k = 0;
    let mut patch = |space: &str, k: usize, name: &str| {
        let body = json!({ "name": name }).to_string();
        let path = format!("/api/v1/tasks/t{k}?spaceId={space}");
        let (status, _) = exchange(
            &mut connection,
            &request(token, "PATCH", &path, Some(&body)),
        );
        assert_eq!(status, 200);
    };
    while at < to {
        std::thread::sleep((epoch + at).saturating_duration_since(Instant::now()));
        let sent = epoch.elapsed();
        let now_in = (sent >= from).then(|| (sent - from).as_nanos() / PHASE.as_nanos());
        if now_in != phase.map(|(p, _)| p) {
            let used = cpu_of(pid);
            if let Some((p, began)) = phase {
                cpu[(p % 2) as usize] += used - began;
            }
            phase = now_in.map(|p| (p, used));
        }
        let which = now_in.map_or(0, |p| (p % 2) as usize);
        // Nanoseconds fit in a u64 for 584 years.
        patch(&spaces[which], k, &(sent.as_nanos() as u64).to_string());
        let done = epoch.elapsed();
        if (from..to).contains(&sent) {
            writes[which] += 1;
            if which == 0 {
                answered.insert(Duration::from_nanos(sent.as_nanos() as u64), done);
            }
        }
        k = (k + 1) % tasks;
        at += period;
        if done > at + period {
            at = done;
        }
    }
    if let Some((p, began)) = phase {
        cpu[(p % 2) as usize] += cpu_of(pid) - began;
    }
    for k in 0..tasks {
        patch(&spaces[0], k, "end");
    }
    (answered, writes, cpu)
}

/// What the idle servers hold open.
#[derive(Clone, Copy, PartialEq)]
enum Idle {
    Nothing,
    /// 1,000 change streams each (§12), which send the same keep-alives as live views.
    Changes,
    /// 1,000 live views each whose filters name `now`.
    Views,
}

/// The CPU of [`IDLE_SERVERS`] servers over `window` with no write, as % of one core,
/// holding `open`.
fn idle_cpu(open: Idle, window: Duration) -> f64 {
    let dirs: Vec<_> = (0..IDLE_SERVERS)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let servers: Vec<Server> = dirs.iter().map(|d| Server::start(d.path()).0).collect();
    let now = chrono::Utc::now();
    let mut sockets = Vec::new();
    for server in &servers {
        let users: Vec<String> = (0..MEMBERS)
            .map(|u| server.user(&format!("user{u}")))
            .collect();
        for token in &users {
            let operations: Vec<Value> = (0..100)
                .map(|i| {
                    let due = now + chrono::Duration::hours(24 + i);
                    json!({"method": "POST", "path": "/api/v1/tasks",
                           "body": {"name": "x", "dateDue": due.to_rfc3339()}})
                })
                .collect();
            let (status, body) = server.call(
                token,
                "POST",
                "/api/v1/batch",
                Some(json!({ "operations": operations })),
            );
            assert_eq!(status, 200, "{body}");
        }
        for token in &users {
            for i in 0..PER_USER {
                let path = match open {
                    Idle::Nothing => continue,
                    Idle::Changes => "/api/v1/changes/stream?since=100".to_string(),
                    Idle::Views => format!("/api/v1/live?filter=dateDue%20%3C%20now-{i}m"),
                };
                let mut socket = connect(server.addr);
                let bytes = request(token, "GET", &path, None);
                std::io::Write::write_all(socket.get_mut(), &bytes).unwrap();
                assert_eq!(support::read_status(&mut socket), 200);
                sockets.push(socket);
            }
        }
    }
    // Starts and their resets done, the servers settle before the window.
    std::thread::sleep(Duration::from_secs(2));
    let before: Vec<Duration> = servers.iter().map(Server::cpu).collect();
    std::thread::sleep(window);
    let used: Duration = servers
        .iter()
        .zip(before)
        .map(|(server, before)| server.cpu() - before)
        .sum();
    drop(sockets);
    for server in servers {
        server.stop();
    }
    100.0 * used.as_secs_f64() / window.as_secs_f64()
}
