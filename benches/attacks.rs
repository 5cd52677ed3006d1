//! The stalls of the adversarial suite measured (issues 36 and 37, docs §27): each attack
//! one ordinary account can make, looped by it on 2 connections while ten other users
//! work, on the release binary as its own process on 127.0.0.1. The goal: the others' p99
//! within a few milliseconds of quiet, under 100 MB more memory per attacking request, and
//! every attack answered within a second (a stalled body: at the body timeout).
//!
//! `cargo bench --bench attacks` starts taskd and gives user A (the default user) 50,000
//! tasks in its default space, imported through `POST /api/v1/calendar.ics`, a task of
//! 101 KB and a task with the densest rule allowed (96,624 candidate instances a year).
//! It runs `taskd bench -w mixed` for ten other users B–K alone (the baseline), then once
//! during each attack, A looping it on 2 connections:
//!
//! - a `calendar-query` `REPORT` of A's calendar asking every object's data;
//! - a `sync-collection` `REPORT` from the empty token;
//! - a `calendar-multiget` naming the 101 KB object 1,500 times;
//! - a `REPORT` of 52,000 nested elements;
//! - a task given a 465-character rule of 31.5 million instances a year, then completed;
//! - the first 1,000 `occurrences` of the dense task;
//! - a `PUT` whose body stops after 10 of its 1,000 bytes.
//!
//! For each it prints B–K's GET, PATCH and POST p99 less the baseline's, the server's peak
//! RSS less its RSS before the attack, A's answers and the slowest of them, and a table of
//! all of it at the end. `TASKD_ATTACKS_SECONDS` (default 10) sets the measured length of
//! each run, `TASKD_ATTACKS_RATE` (default 200) B–K's requests per second in all (open
//! loop); `TASKD_BENCH_BIN` runs another build (an older one, for the "before");
//! `TASKD_ATTACKS=1,3` runs only the first and third attacks. A request without an answer
//! in 30 s counts as answered with status 0.

mod support;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::{
    env_or, latency, load_average, mib, mixed_users, print_neighbours, try_mixed_users, Server,
    TOKEN,
};

const TASKS: usize = 50_000;
/// VTODOs per import body (each body well under the 1 MiB bound).
const PER_IMPORT: usize = 2_000;
/// A's connections.
const ATTACKERS: usize = 2;
/// How long A waits for an answer before it counts none (status 0).
const GIVE_UP: Duration = Duration::from_secs(30);
const USERS: usize = 10;

/// What an attack works on: A's calendar and the tasks set up for it.
struct Target {
    addr: SocketAddr,
    /// The path of A's default calendar.
    calendar: String,
}

/// One attack: its name, and one round of it (one or two requests), with what the last
/// request got: its status and how many bytes.
struct Attack {
    name: &'static str,
    round: fn(&Target) -> (u16, usize),
}

const ATTACKS: [Attack; 7] = [
    Attack {
        name: "calendar-query REPORT of 50,000 tasks with their data",
        round: calendar_query,
    },
    Attack {
        name: "sync-collection REPORT from the empty token",
        round: sync_from_empty,
    },
    Attack {
        name: "calendar-multiget naming a 101 KB object 1,500 times",
        round: multiget_repeated,
    },
    Attack {
        name: "REPORT of 52,000 nested elements",
        round: nested_xml,
    },
    Attack {
        name: "a task with a 465-character rule, then completed",
        round: endless_rule,
    },
    Attack {
        name: "1,000 occurrences of the densest rule allowed",
        round: dense_occurrences,
    },
    Attack {
        name: "PUT whose body stops after 10 of 1,000 bytes",
        round: stalled_body,
    },
];

/// What one attack did to the others and the server.
struct Measured {
    name: &'static str,
    /// B–K's GET, PATCH and POST p99 less the baseline's, in ms, or why their run failed.
    moved: Result<[f64; 3], String>,
    /// The server's peak RSS during the attack less its RSS before it.
    grown: u64,
    /// A's answers by status.
    answers: BTreeMap<u16, usize>,
    slowest: Duration,
}

fn main() {
    let seconds = env_or("TASKD_ATTACKS_SECONDS", 10);
    let rate = env_or("TASKD_ATTACKS_RATE", 200);
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start(dir.path());
    let started = Instant::now();
    let target = setup(&server);
    println!(
        "A's calendar: {TASKS} tasks, imported in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let before = load_average();
    let baseline = mixed_users(server.addr, USERS, seconds, rate);
    let target = Arc::new(target);
    let mut measured = Vec::new();
    let chosen = std::env::var("TASKD_ATTACKS").unwrap_or_default();
    let chosen: Vec<usize> = chosen
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let attacks = ATTACKS
        .iter()
        .enumerate()
        .filter(|(n, _)| chosen.is_empty() || chosen.contains(&(n + 1)));
    for (_, attack) in attacks {
        println!("\n== {}", attack.name);
        let loads = [before.clone(), load_average(), String::new()];
        let rss = server.rss();
        server.reset_peak();
        let stop = Arc::new(AtomicBool::new(false));
        let attackers: Vec<_> = (0..ATTACKERS)
            .map(|_| {
                let (stop, target, round) = (Arc::clone(&stop), Arc::clone(&target), attack.round);
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let sent = Instant::now();
                        let (status, _) = round(&target);
                        got.push((status, sent.elapsed()));
                    }
                    got
                })
            })
            .collect();
        let attacked = try_mixed_users(server.addr, USERS, seconds, rate);
        stop.store(true, Ordering::Relaxed);
        let got: Vec<(u16, Duration)> = attackers
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        let loads = [loads[0].clone(), loads[1].clone(), load_average()];
        let moved = match &attacked {
            Ok(attacked) => {
                print_neighbours(USERS, rate, seconds, [&baseline, attacked], &loads);
                Ok(["get", "patch", "post"]
                    .map(|op| latency(attacked, op).1 - latency(&baseline, op).1))
            }
            Err(e) => {
                println!("the other users' run failed: {e}");
                Err(e.clone())
            }
        };
        let mut answers = BTreeMap::new();
        for (status, _) in &got {
            *answers.entry(*status).or_insert(0) += 1;
        }
        measured.push(Measured {
            name: attack.name,
            moved,
            grown: server.peak().saturating_sub(rss),
            answers,
            slowest: got.iter().map(|g| g.1).max().unwrap_or_default(),
        });
    }
    println!(
        "\n| attack (A, 2 connections) | A's answers | slowest | peak RSS growth | B–K GET / PATCH / POST p99 moved |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for m in &measured {
        let answers: Vec<String> = m
            .answers
            .iter()
            .map(|(s, n)| format!("{n} × {s}"))
            .collect();
        let moved = match &m.moved {
            Ok([get, patch, post]) => format!("{get:+.2} / {patch:+.2} / {post:+.2} ms"),
            Err(e) => format!("their run failed ({e})"),
        };
        println!(
            "| {} | {} | {:.0} ms | {:.0} MiB | {moved} |",
            m.name,
            answers.join(", "),
            m.slowest.as_secs_f64() * 1e3,
            mib(m.grown),
        );
    }
}

/// Imports A's tasks and makes the big and the dense task.
fn setup(server: &Server) -> Target {
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
            "text/calendar",
            &body,
        );
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    }
    let big = serde_json::json!({
        "todoId": "big", "name": "n".repeat(1_000), "notesMarkdown": "n".repeat(100_000)
    });
    let dense = serde_json::json!({
        "todoId": "dense", "dateDue": "2030-01-01T00:00:00Z",
        "recurrence": format!("FREQ=YEARLY;BYHOUR={};BYMINUTE={}", list(24), list(11))
    });
    for task in [big, dense] {
        let (status, answer) = server.call(TOKEN, "POST", "/api/v1/tasks", Some(task));
        assert_eq!(status, 201, "{answer}");
    }
    let (status, me) = server.call(TOKEN, "GET", "/api/v1/me", None);
    assert_eq!(status, 200, "{me}");
    Target {
        addr: server.addr,
        calendar: format!(
            "/dav/calendars/{}/{}/",
            me["data"]["userId"].as_str().unwrap(),
            me["data"]["defaultSpaceId"].as_str().unwrap()
        ),
    }
}

/// `0,1,…,n-1`.
fn list(n: usize) -> String {
    (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

fn calendar_query(target: &Target) -> (u16, usize) {
    let query = r#"<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter>
</c:calendar-query>"#;
    report(target, query)
}

fn sync_from_empty(target: &Target) -> (u16, usize) {
    let query = r#"<?xml version="1.0" encoding="utf-8"?>
<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level>
  <d:prop><d:getetag/></d:prop></d:sync-collection>"#;
    report(target, query)
}

fn multiget_repeated(target: &Target) -> (u16, usize) {
    let href = format!("<d:href>{}big.ics</d:href>", target.calendar);
    let query = format!(
        r#"<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
        <d:prop><d:getetag/><c:calendar-data/></d:prop>{}</c:calendar-multiget>"#,
        href.repeat(1_500)
    );
    report(target, &query)
}

fn nested_xml(target: &Target) -> (u16, usize) {
    let depth = 52_000;
    let query = format!(
        r#"<c:calendar-query xmlns:c="urn:ietf:params:xml:ns:caldav">{}{}</c:calendar-query>"#,
        "<c:a>".repeat(depth),
        "</c:a>".repeat(depth)
    );
    report(target, &query)
}

fn endless_rule(target: &Target) -> (u16, usize) {
    let rule = format!(
        "FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR={};BYMINUTE={};BYSECOND={}",
        list(24),
        list(60),
        list(60)
    );
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let id = format!("endless-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let task =
        serde_json::json!({"todoId": id, "dateDue": "2030-01-01T00:00:00Z", "recurrence": rule});
    let created = send(
        target.addr,
        "POST",
        "/api/v1/tasks",
        "application/json",
        &task.to_string(),
    );
    if created.0 != 201 {
        return (created.0, created.1.len());
    }
    let done = serde_json::json!({"status": "done"}).to_string();
    let path = format!("/api/v1/tasks/{id}");
    let (status, body) = send(target.addr, "PATCH", &path, "application/json", &done);
    (status, body.len())
}

fn dense_occurrences(target: &Target) -> (u16, usize) {
    let path = "/api/v1/tasks/dense/occurrences?limit=1000";
    let (status, body) = send(target.addr, "GET", path, "application/json", "");
    (status, body.len())
}

fn stalled_body(target: &Target) -> (u16, usize) {
    let Ok(mut stream) = TcpStream::connect(target.addr) else {
        return (0, 0);
    };
    write!(
        stream,
        "PUT {}stalled.ics HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: text/calendar\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n\
         BEGIN:VCAL",
        target.calendar
    )
    .expect("send");
    let (status, answer) = answer(stream);
    (status, answer.len())
}

/// A `REPORT` of `body` on A's calendar.
fn report(target: &Target, body: &str) -> (u16, usize) {
    let (status, answer) = send(
        target.addr,
        "REPORT",
        &target.calendar,
        "application/xml",
        body,
    );
    (status, answer.len())
}

/// One request of A on its own connection (`Connection: close`), read to its end, whatever
/// its framing; its status and body (with the chunk framing of a streamed answer).
fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    content_type: &str,
    body: &str,
) -> (u16, Vec<u8>) {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return (0, Vec::new());
    };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {TOKEN}\r\nDepth: 1\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    answer(stream)
}

/// The answer `stream` gets, read to its end (or a reset, or [`GIVE_UP`] without a byte):
/// its status (0 when there is none) and its bytes.
fn answer(mut stream: TcpStream) -> (u16, Vec<u8>) {
    let _ = stream.set_read_timeout(Some(GIVE_UP));
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let status = answer
        .get(9..12)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}
