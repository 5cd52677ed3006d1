//! Bounds per client (docs §9a) measured from outside: what clients that ask and never
//! read make the server hold, as the growth of its RSS with their sockets still open.
//!
//! `cargo bench --bench bounds` runs the release binary (or the one `TASKD_BENCH_BIN`
//! names, to measure a build from before the bounds in the same session) and prints one
//! row per scenario:
//!
//! - a. three change streams that never read (receive buffer of [`RCVBUF`] bytes) while
//!   60 batches of 100 PATCHes rename 100 tasks of 100 KB notes (6,000 changes, ~600 MB of
//!   events per stream); a fourth stream reads, to show what a client that keeps up gets;
//! - b. on the same server, a's sockets still open: ten connections that each ask another
//!   user's `GET /api/v1/changes?limit=1000` over 1,000 tasks of 100 KB and never read;
//!   a and b together must grow the RSS by at most 256 MiB (§9a "answers not taken"),
//!   judged on the settled RSS and on the peak (`VmHWM`, reset before each scenario);
//! - c. on a new server: 400 batches of 9 PATCHes of 100 KB tasks (answers of ~0.86 MiB),
//!   each under a new `Idempotency-Key`, read in full: how many were refused with 429;
//! - d. on a new server: 1,000 change streams of one user: how many got 200, 429 or 503.
//!
//! Every RSS is read from `/proc/PID/status` once it has held still for a second. The
//! server of a and b is restarted after its 1,100 tasks are written, so that its RSS
//! before a is the records it holds, not the garbage that writing them left in idle
//! threads' heaps (snapshots of 100 MB: ~200 MiB that stays until those threads allocate
//! again).

mod support;

use std::io::{BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use socket2::{Domain, Protocol, Socket, Type};

use support::{binary, connect, exchange, mib, read_status, request, Server, TOKEN};

/// Characters of `notesMarkdown` of every big task: the most §3 allows (~100 KB).
const NOTE: usize = 100_000;
/// Receive buffer of a client that never reads (Linux doubles it and keeps a floor).
const RCVBUF: usize = 4096;
/// §9a: a and b together grow the RSS by at most this.
const ANSWERS_NOT_TAKEN: u64 = 256 << 20;
/// How long a scenario's RSS may take to settle.
const SETTLE: Duration = Duration::from_secs(30);

/// One row of the table.
struct Row {
    scenario: &'static str,
    /// RSS once settled before the scenario, after it (its sockets still open), and the
    /// most it reached in between.
    before: u64,
    after: u64,
    peak: u64,
    seen: String,
}

fn main() {
    println!("binary: {}", binary().display());
    let started = Instant::now();
    let mut rows = Vec::new();
    streams_and_feed(&mut rows);
    kept_answers(&mut rows);
    many_streams(&mut rows);
    println!();
    println!(
        "{:<62} {:>10} {:>9} {:>10} {:>9} {:>11}  what the clients saw",
        "scenario", "before MiB", "after MiB", "growth MiB", "peak MiB", "peak growth"
    );
    for row in &rows {
        println!(
            "{:<62} {:>10.0} {:>9.0} {:>10.0} {:>9.0} {:>11.0}  {}",
            row.scenario,
            mib(row.before),
            mib(row.after),
            mib(row.after) - mib(row.before),
            mib(row.peak),
            mib(row.peak) - mib(row.before),
            row.seen
        );
    }
    println!(
        "(all scenarios in {:.0} s)",
        started.elapsed().as_secs_f64()
    );
}

/// A connection with a small receive buffer, for a client that never reads.
fn unread(addr: SocketAddr) -> TcpStream {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).unwrap();
    // Set before connecting, so the window offered to the server is small from the start.
    socket.set_recv_buffer_size(RCVBUF).unwrap();
    socket.connect(&addr.into()).expect("connect");
    let stream: TcpStream = socket.into();
    stream.set_nodelay(true).unwrap();
    stream
}

/// Creates tasks `t0..t{count}` of [`NOTE`]-character notes in `token`'s default space,
/// ten a batch (a batch body stays under the 1 MiB limit) over four connections.
fn big_tasks(addr: SocketAddr, token: &str, count: usize) {
    let note = "n".repeat(NOTE);
    let batches = count.div_ceil(10);
    std::thread::scope(|scope| {
        for c in 0..4 {
            let note = &note;
            scope.spawn(move || {
                let mut reader = connect(addr);
                for b in (c..batches).step_by(4) {
                    let operations: Vec<Value> = (b * 10..((b + 1) * 10).min(count))
                        .map(|i| {
                            json!({"method": "POST", "path": "/api/v1/tasks",
                                   "body": {"todoId": format!("t{i}"), "notesMarkdown": note}})
                        })
                        .collect();
                    let body = json!({ "operations": operations }).to_string();
                    let (status, _) = exchange(
                        &mut reader,
                        &request(token, "POST", "/api/v1/batch", Some(&body)),
                    );
                    assert_eq!(status, 200, "batch {b}");
                }
            });
        }
    });
}

/// A batch that renames tasks `t0..t{count}` to `name`: its answer holds each whole.
fn rename(count: usize, name: &str) -> String {
    let operations: Vec<Value> = (0..count)
        .map(|i| json!({"method": "PATCH", "path": format!("/api/v1/tasks/t{i}"), "body": {"name": name}}))
        .collect();
    json!({ "operations": operations }).to_string()
}

/// What is waiting on `socket`, read for up to `wait`: the bytes, and whether the server
/// closed the connection after them.
fn drain(socket: &mut TcpStream, limit: usize, wait: Duration) -> (Vec<u8>, bool) {
    socket.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0; 65536];
    while got.len() < limit {
        match socket.read(&mut buf) {
            Ok(0) => return (got, true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
            Err(_) => return (got, true),
        }
    }
    (got, false)
}

/// The `Content-Length` of the response that starts `head`.
fn content_length(head: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(head);
    text.lines().take_while(|l| !l.is_empty()).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())?
    })
}

/// Scenarios a and b, on one server.
fn streams_and_feed(rows: &mut Vec<Row>) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let reader = server.user("feed");
    big_tasks(server.addr, TOKEN, 100);
    big_tasks(server.addr, &reader, 1_000);
    // Restarted, the server holds the records as it reads them back, not the garbage that
    // writing them (snapshots of 100 MB) left in the allocator's idle heaps.
    server.stop();
    let (server, _) = Server::start(dir.path());
    let addr = server.addr;
    let since = server.version(TOKEN);

    // a. Three streams from the current version, that send their request and never read,
    // and one that reads, to see what a client that keeps up gets.
    let before_a = server.settled_rss(SETTLE);
    server.reset_peak();
    let path = format!("/api/v1/changes/stream?since={since}");
    let mut streams: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = unread(addr);
            s.write_all(&request(TOKEN, "GET", &path, None)).unwrap();
            s
        })
        .collect();
    let done = Arc::new(AtomicBool::new(false));
    let reading = {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(&request(TOKEN, "GET", &path, None)).unwrap();
        let done = Arc::clone(&done);
        std::thread::spawn(move || read_along(s, &done))
    };
    std::thread::sleep(Duration::from_millis(500)); // the streams subscribe
    let started = Instant::now();
    let mut writer = connect(addr);
    let mut answers = 0;
    for round in 0..60 {
        let body = rename(100, &format!("round {round}"));
        let (status, answer) = exchange(
            &mut writer,
            &request(TOKEN, "POST", "/api/v1/batch", Some(&body)),
        );
        assert_eq!(status, 200, "round {round}");
        answers += answer.len();
    }
    let wrote = started.elapsed();
    done.store(true, Ordering::SeqCst);
    let (read_bytes, read_overflows, read_closed) = reading.join().expect("the reader panicked");
    let after_a = server.settled_rss(SETTLE);
    let peak_a = server.peak();
    println!(
        "a: 60 batches of 100 PATCHes in {:.1} s ({:.0} MiB of answers read by the writer); \
         the stream that reads got {:.1} MiB, {read_overflows} overflow event(s), {}",
        wrote.as_secs_f64(),
        mib(answers as u64),
        mib(read_bytes as u64),
        if read_closed {
            "then was closed"
        } else {
            "still open"
        }
    );

    // b. Ten feed pages of another user's space, asked for and never read.
    server.reset_peak();
    let mut pages: Vec<TcpStream> = (0..10)
        .map(|_| {
            let mut s = unread(addr);
            s.write_all(&request(&reader, "GET", "/api/v1/changes?limit=1000", None))
                .unwrap();
            s
        })
        .collect();
    let after_b = server.settled_rss(SETTLE);
    let peak_b = server.peak();

    // Only now look at what the clients were sent.
    let mut overflowed = 0;
    let mut closed = 0;
    for s in &mut streams {
        let (got, eof) = drain(s, 1 << 20, Duration::from_secs(1));
        overflowed += usize::from(got.windows(15).any(|w| w == b"event: overflow"));
        closed += usize::from(eof);
    }
    let lengths: Vec<String> = pages
        .iter_mut()
        .map(|s| {
            let (head, _) = drain(s, 4096, Duration::from_secs(5));
            content_length(&head).map_or("?".into(), |l| format!("{:.1}", mib(l)))
        })
        .collect();
    if lengths.iter().any(|l| *l != lengths[0]) {
        println!("b: page sizes differ: {lengths:?}");
    }
    let verdict = |growth: u64| {
        if growth <= ANSWERS_NOT_TAKEN {
            "pass"
        } else {
            "FAIL"
        }
    };
    let peak = peak_a.max(peak_b);
    rows.push(Row {
        scenario: "a. 3 unread streams, 6,000 changes of 100 KB",
        before: before_a,
        after: after_a,
        peak: peak_a,
        seen: format!("{overflowed}/3 got `event: overflow`, {closed}/3 closed by the server"),
    });
    rows.push(Row {
        scenario: "b. 10 unread feed pages, limit=1000 of 100 KB (a still open)",
        before: after_a,
        after: after_b,
        peak: peak_b,
        seen: format!("page of {} MiB (Content-Length)", lengths[0]),
    });
    rows.push(Row {
        scenario: "a + b (§9a: at most 256 MiB)",
        before: before_a,
        after: after_b,
        peak,
        seen: format!(
            "growth: {}, peak growth: {}",
            verdict(after_b.saturating_sub(before_a)),
            verdict(peak.saturating_sub(before_a))
        ),
    });
    drop(streams);
    drop(pages);
    server.stop();
}

/// Reads a stream until the server closes it, or for a second more once `done`; the bytes
/// it got, how many `event: overflow` and whether the server closed it.
fn read_along(mut socket: TcpStream, done: &AtomicBool) -> (usize, usize, bool) {
    socket
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = vec![0; 1 << 20];
    let (mut bytes, mut overflows) = (0, 0);
    let mut quiet_since = None;
    loop {
        match socket.read(&mut buf) {
            Ok(0) => return (bytes, overflows, true),
            Ok(n) => {
                bytes += n;
                // An event is never split across reads here: the overflow event is small
                // and comes alone at the end.
                overflows += buf[..n]
                    .windows(15)
                    .filter(|w| *w == b"event: overflow")
                    .count();
                quiet_since = None;
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if done.load(Ordering::SeqCst) {
                    let since = *quiet_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > Duration::from_secs(1) {
                        return (bytes, overflows, false);
                    }
                }
            }
            Err(_) => return (bytes, overflows, true),
        }
    }
}

/// Scenario c: 400 keyed batches of ~0.86 MiB answers.
fn kept_answers(rows: &mut Vec<Row>) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    big_tasks(server.addr, TOKEN, 9);
    let before = server.settled_rss(SETTLE);
    server.reset_peak();
    let mut writer = connect(server.addr);
    let (mut ok, mut refused, mut other) = (0, 0, 0);
    let mut answer_bytes = 0;
    let started = Instant::now();
    for i in 0..400 {
        let body = rename(9, &format!("c{i}"));
        let mut bytes = request(TOKEN, "POST", "/api/v1/batch", Some(&body));
        // The key goes among the headers, before the blank line that ends them.
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 2;
        bytes.splice(end..end, format!("Idempotency-Key: c-{i}\r\n").into_bytes());
        let (status, answer) = exchange(&mut writer, &bytes);
        match status {
            200 => {
                ok += 1;
                answer_bytes = answer.len();
            }
            429 => refused += 1,
            _ => other += 1,
        }
    }
    println!(
        "c: 400 keyed batches in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let after = server.settled_rss(SETTLE);
    rows.push(Row {
        scenario: "c. 400 keyed batches, answers of ~0.9 MB",
        before,
        after,
        peak: server.peak(),
        seen: format!(
            "200: {ok}, 429: {refused}, other: {other}; answer {:.2} MiB",
            mib(answer_bytes as u64)
        ),
    });
    server.stop();
}

/// Scenario d: 1,000 change streams of one user.
fn many_streams(rows: &mut Vec<Row>) {
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let before = server.settled_rss(SETTLE);
    server.reset_peak();
    let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
    let mut open = Vec::new();
    let mut first_refused = None;
    for i in 0..1_000 {
        let mut s = TcpStream::connect(server.addr).expect("connect");
        s.set_nodelay(true).unwrap();
        s.write_all(&request(TOKEN, "GET", "/api/v1/changes/stream", None))
            .unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut reader = BufReader::new(s);
        let status = read_status(&mut reader);
        *statuses.entry(status).or_default() += 1;
        if status != 200 && first_refused.is_none() {
            first_refused = Some(i + 1);
        }
        open.push(reader); // kept open, whatever the answer
    }
    let after = server.settled_rss(SETTLE);
    let mut seen: Vec<String> = statuses.iter().map(|(s, n)| format!("{s}: {n}")).collect();
    if let Some(i) = first_refused {
        seen.push(format!("first refused: #{i}"));
    }
    rows.push(Row {
        scenario: "d. 1,000 streams of one user",
        before,
        after,
        peak: server.peak(),
        seen: seen.join(", "),
    });
    drop(open);
    server.stop();
}
