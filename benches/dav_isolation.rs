//! Isolation across fronts (issue 36): a CalDAV `REPORT` over a whole 50,000-task calendar
//! of one account must not move another account's GET p99 by more than a few
//! milliseconds, measured on the release binary as its own process on 127.0.0.1.
//!
//! `cargo bench --bench dav_isolation` starts taskd and gives user A (the default user)
//! 50,000 tasks in its default space, imported through `POST /api/v1/calendar.ics`. Then
//! it runs `taskd bench -w mixed` for ten other users B–K twice: alone (the baseline), and
//! while A loops, on 2 connections, a `calendar-query` `REPORT` of its default calendar
//! asking every object's `getetag` and `calendar-data` (each answer is every VTODO of the
//! space, read to its end by A).
//!
//! It prints B–K's GET, PATCH and POST p50 and p99 of both runs and their differences,
//! how many REPORTs A got answered and how long each took. `TASKD_DAV_ISOLATION_SECONDS`
//! (default 20) sets the measured length of each run, `TASKD_DAV_ISOLATION_RATE`
//! (default 200) B–K's requests per second in all (open loop, as `taskd bench -r` runs).

mod support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::{env_or, latency, load_average, mixed_users, print_neighbours, Server, TOKEN};

const TASKS: usize = 50_000;
/// VTODOs per import body (each body well under the 1 MiB bound).
const PER_IMPORT: usize = 2_000;
/// A's connections.
const ATTACKERS: usize = 2;
const USERS: usize = 10;

fn main() {
    let seconds = env_or("TASKD_DAV_ISOLATION_SECONDS", 20);
    let rate = env_or("TASKD_DAV_ISOLATION_RATE", 200);
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let started = Instant::now();
    let calendar = setup(&server);
    println!(
        "A's calendar: {TASKS} tasks, imported in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let loads = [load_average()];
    let baseline = mixed_users(server.addr, USERS, seconds, rate);
    let loads = [loads[0].clone(), load_average()];
    let stop = Arc::new(AtomicBool::new(false));
    let attackers: Vec<_> = (0..ATTACKERS)
        .map(|_| {
            let (stop, addr, calendar) = (Arc::clone(&stop), server.addr, calendar.clone());
            std::thread::spawn(move || attack(addr, &calendar, &stop))
        })
        .collect();
    let attacked = mixed_users(server.addr, USERS, seconds, rate);
    stop.store(true, Ordering::Relaxed);
    let loads = [loads[0].clone(), loads[1].clone(), load_average()];
    let reports: Vec<(u16, usize, Duration)> = attackers
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();

    print_neighbours(USERS, rate, seconds, [&baseline, &attacked], &loads);
    let ok: Vec<&(u16, usize, Duration)> = reports.iter().filter(|r| r.0 == 207).collect();
    let mean = ok.iter().map(|r| r.2.as_secs_f64()).sum::<f64>() * 1e3 / ok.len().max(1) as f64;
    let bytes = ok.iter().map(|r| r.1).max().unwrap_or(0);
    println!(
        "A: {} REPORTs sent, {} answered 207 ({:.1} MiB each), mean {mean:.0} ms",
        reports.len(),
        ok.len(),
        bytes as f64 / (1 << 20) as f64
    );
    let get = latency(&attacked, "get").1 - latency(&baseline, "get").1;
    println!("GET p99 moved {get:+.2} ms by A's REPORTs");
}

/// Imports A's tasks; the path of A's default calendar.
fn setup(server: &Server) -> String {
    for first in (0..TASKS).step_by(PER_IMPORT) {
        let mut body = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n");
        for i in first..(first + PER_IMPORT).min(TASKS) {
            body.push_str(&format!(
                "BEGIN:VTODO\r\nUID:t{i}\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Task {i} of \
                 the calendar\r\nPRIORITY:{}\r\nDUE;VALUE=DATE:2026{:02}{:02}\r\n\
                 END:VTODO\r\n",
                i % 10,
                i % 12 + 1,
                i % 28 + 1
            ));
        }
        body.push_str("END:VCALENDAR\r\n");
        let (status, answer) = send(
            server.addr,
            "POST",
            "/api/v1/calendar.ics",
            &format!("Bearer {TOKEN}"),
            "text/calendar",
            &body,
        );
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    }
    let (status, me) = server.call(TOKEN, "GET", "/api/v1/me", None);
    assert_eq!(status, 200, "{me}");
    format!(
        "/dav/calendars/{}/{}/",
        me["data"]["userId"].as_str().unwrap(),
        me["data"]["defaultSpaceId"].as_str().unwrap()
    )
}

/// One request on its own connection (`Connection: close`), read to its end, whatever its
/// framing; its status and body (with the chunk framing of a streamed answer).
fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    auth: &str,
    content_type: &str,
    body: &str,
) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: {auth}\r\nDepth: 1\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer");
    let status = answer
        .get(9..12)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

/// A's `calendar-query` of every object with its data, in a loop until `stop`: what each
/// got (status, bytes) and how long it took.
fn attack(addr: SocketAddr, calendar: &str, stop: &AtomicBool) -> Vec<(u16, usize, Duration)> {
    let query = r#"<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter>
</c:calendar-query>"#;
    let auth = format!("Bearer {TOKEN}");
    let mut answers = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let sent = Instant::now();
        let (status, body) = send(addr, "REPORT", calendar, &auth, "application/xml", query);
        answers.push((status, body.len(), sent.elapsed()));
    }
    answers
}
