//! Activity and undo (docs §23), measured against baselines of the same run:
//!
//! - **write throughput with activity on, as a ratio to off.** taskd has no switch that
//!   turns activity off, so the baseline is the write path without it, in process: each
//!   of 16 writer threads applies a task update to its own space, appends it to one
//!   journal (fsync, group commit) and waits for it, as a space actor does; "on" then
//!   derives the write's entries (`Logged::derive`) and appends them to the space's log,
//!   as `SpaceActor::log_activity` does, and its journal entries carry the write's
//!   `Meta` (time and actor) where "off" carries an empty one. Rounds alternate, off and
//!   on, and the medians are compared. HTTP is left out, so the ratio is a bound from
//!   below on what a client sees.
//! - **a page of 100 entries of one task among N entries of a space**, at two sizes, read
//!   by `Log::page` as `GET /api/v1/tasks/{id}/activity` reads it (from the task's last
//!   version, down its chain of entries): a task written evenly through the history, one
//!   written only at its start, and the unfiltered newest page as the baseline; and the
//!   same task pages by a walk of the log (no head), as before the chain, for
//!   comparison. `TASKD_BENCH_ACTIVITY=N` sets the larger size (default 10,000,000; the
//!   smaller is a tenth of it); `TASKD_BENCH_ACTIVITY_WALK=0` leaves out the walks,
//!   which take seconds a page at 10,000,000.
//! - **disk bytes per entry** of the log, its segment indexes included: of the filled
//!   logs above, and of the server's.
//! - **RSS of the server before and after filling a space's history**: the release
//!   binary, one task patched `TASKD_BENCH_ACTIVITY_WRITES` times (default 200,000) over
//!   HTTP, so the space's records do not grow while its history does.
//!
//! `cargo bench --bench activity`.

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::json;
use taskd::model::activity::{Action, Actor, Entry, FieldChange, Logged, Meta, Prev, Via};
use taskd::model::validate::{parse_changes, Mode};
use taskd::model::{Command, Kind, Op, Space, Value};
use taskd::store::activity::{Activity, Query, Retention};
use taskd::store::codec::Entry as JournalEntry;
use taskd::store::journal::{self, Durability, Journal, Marks, Tail};

use support::{env_or, mib, Server, TOKEN};

/// How long a batch may take before the journal counts its storage as stalled.
const STALL: Duration = Duration::from_secs(10);
/// Writers of the throughput rounds, each on a space of its own.
const WRITERS: usize = 16;
/// Writes each writer makes in a round.
const PER_WRITER: usize = 250;
/// Rounds of each mode.
const ROUNDS: usize = 5;

/// The allocator the `taskd` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A command on task `id` of the bench: its creation, or a change of its name.
fn command(id: &str, create: bool, i: usize) -> Command {
    let body = json!({
        "todoId": id, "name": format!("Task number {i}"), "status": "open",
        "tagIds": ["home", "errand"], "dateDue": "2026-12-01T09:00:00Z",
    });
    let mut body = body.as_object().unwrap().clone();
    let mode = if create {
        Mode::Create
    } else {
        body.retain(|k, _| k == "name");
        Mode::Update
    };
    let mut changes = parse_changes(Kind::Task, mode, body).unwrap();
    changes.id = None;
    Command {
        kind: Kind::Task,
        id: id.into(),
        op: if create {
            Op::Create(changes)
        } else {
            Op::Update(changes)
        },
        if_match: None,
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// One round of [`WRITERS`] threads writing [`PER_WRITER`] updates each, with activity
/// on or off; the writes a second.
fn round(dir: &Path, activity_on: bool) -> f64 {
    let journal_dir = dir.join("journal");
    std::fs::create_dir_all(&journal_dir).unwrap();
    let segments = journal::read(&journal_dir, Tail::Cut, |_| Ok(())).unwrap();
    let journal = Journal::start(
        &journal_dir,
        Durability::Fsync,
        segments,
        Marks::default(),
        STALL,
        None,
    )
    .unwrap();
    let activity = Arc::new(Activity::new(dir, Retention::default()));
    let started = Instant::now();
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (journal, activity) = (journal.clone(), Arc::clone(&activity));
            std::thread::spawn(move || {
                let id = format!("bench-{w}-{}", u8::from(activity_on));
                let mut space = Space::new(&id);
                space.apply(&[command("t", true, 0)], now_ms()).unwrap();
                let log = activity.log(&id).unwrap();
                for i in 1..=PER_WRITER {
                    let now = now_ms();
                    let (mut outcome, undo) = space.apply(&[command("t", false, i)], now).unwrap();
                    if activity_on {
                        outcome.meta = Meta {
                            at: now,
                            actor: Some(Actor {
                                user_id: Some("user-0123456789".into()),
                                token_id: None,
                                via: Via::Api,
                            }),
                            ..Meta::default()
                        };
                    }
                    let outcome = Arc::new(outcome);
                    let entry = JournalEntry::Write {
                        space: id.as_str().into(),
                        outcome: Arc::clone(&outcome),
                        key: None,
                    };
                    let (tx, rx) = mpsc::channel();
                    journal.append(&entry, false, Box::new(move |r| tx.send(r).unwrap()));
                    rx.recv().unwrap().unwrap();
                    if activity_on {
                        let logged = Logged::derive(&outcome, &undo.formers());
                        log.append(logged, now).unwrap();
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    (WRITERS * PER_WRITER) as f64 / started.elapsed().as_secs_f64()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The throughput of the write path with activity on, as a ratio to off.
fn throughput() {
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        off.push(round(tempfile::tempdir().unwrap().path(), false));
        on.push(round(tempfile::tempdir().unwrap().path(), true));
    }
    let (off_median, on_median) = (median(off.clone()), median(on.clone()));
    println!(
        "writes, {WRITERS} writers, fsync: off {off_median:.0}/s, on {on_median:.0}/s: \
         {:.3}x (goal >= 0.9x); rounds off {off:.0?}, on {on:.0?}",
        on_median / off_median
    );
}

/// The name field's position in the task table.
fn name_field() -> u16 {
    let fields = Kind::Task.fields();
    fields.iter().position(|f| f.name == "name").unwrap() as u16
}

/// One write of one entry: task `id`'s name changed at `version`, after its entry `prev`.
fn logged(version: u64, id: &str, at: i64, field: u16, prev: Prev) -> Logged {
    Logged {
        base: version - 1,
        version,
        seq: 0,
        at,
        actor: Some(Actor {
            user_id: Some("user-0123456789".into()),
            token_id: None,
            via: Via::Api,
        }),
        revert_of: None,
        entries: vec![Entry {
            version,
            kind: Kind::Task,
            id: id.into(),
            action: Action::Updated,
            cascade: false,
            deleted: false,
            changes: vec![FieldChange {
                field,
                from: Value::Text(format!("Task number {}", version - 1).into()),
                to: Value::Text(format!("Task number {version}").into()),
            }],
            prev,
        }],
    }
}

/// A filled log: its directory, how long filling took, its bytes on disk (segments and
/// indexes), its indexes' bytes, and the last version of each of its tasks.
struct Filled {
    dir: tempfile::TempDir,
    took: Duration,
    bytes: u64,
    index_bytes: u64,
    heads: HashMap<String, u64>,
}

/// Fills a log with `n` writes of one entry each over 100,000 tasks; task `even` is
/// written every `n / 1000` writes and task `early` in the first 100 only.
fn fill(n: u64) -> Filled {
    let dir = tempfile::tempdir().unwrap();
    let keep_all = Retention {
        days: 36_500,
        max: u64::MAX,
    };
    let activity = Activity::new(dir.path(), keep_all);
    let log = activity.log("bench").unwrap();
    let (at, field) = (now_ms(), name_field());
    let every = (n / 1000).max(1);
    let mut heads = HashMap::new();
    let started = Instant::now();
    for version in 1..=n {
        let id = match version {
            v if v <= 100 => "early".to_string(),
            v if v % every == 0 => "even".to_string(),
            v => format!("task-{:05}", v % 100_000),
        };
        let prev = heads
            .insert(id.clone(), version)
            .map_or(Prev::First, Prev::At);
        log.append(logged(version, &id, at, field, prev), at)
            .unwrap();
    }
    log.sync().unwrap();
    let took = started.elapsed();
    let (mut bytes, mut index_bytes) = (0, 0);
    for file in std::fs::read_dir(dir.path().join("activity/bench")).unwrap() {
        let file = file.unwrap();
        let len = file.metadata().unwrap().len();
        bytes += len;
        if file.file_name().to_string_lossy().ends_with(".idx") {
            index_bytes += len;
        }
    }
    Filled {
        dir,
        took,
        bytes,
        index_bytes,
        heads,
    }
}

/// The median time of `runs` reads of a page of 100 entries, of a log filled in `dir`
/// (opened again, as after a restart: its files in the page cache): the newest, or task
/// `id`'s from its last version `head` (by a walk of the log when `None`).
fn page_ms(dir: &Path, id: Option<(&str, Option<u64>)>, runs: usize) -> f64 {
    let activity = Activity::new(
        dir,
        Retention {
            days: 36_500,
            max: u64::MAX,
        },
    );
    let log = activity.log("bench").unwrap();
    let query = Query {
        limit: 100,
        kind: id.map(|_| Kind::Task),
        id: id.map(|(id, _)| id.to_string()),
        head: id.and_then(|(_, head)| head),
        ..Query::default()
    };
    let times = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let page = black_box(log.page(&query, now_ms()).unwrap());
            assert_eq!(page.entries.len(), 100);
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(times)
}

/// Pages at two sizes of history, and the disk bytes per entry.
fn pages() {
    let large = env_or("TASKD_BENCH_ACTIVITY", 10_000_000) as u64;
    let walks = env_or("TASKD_BENCH_ACTIVITY_WALK", 1) != 0;
    let mut rows = Vec::new();
    for n in [large / 10, large] {
        let filled = fill(n);
        let dir = filled.dir.path();
        let head = |id: &str| Some(filled.heads[id]);
        let newest = page_ms(dir, None, 50);
        let even = page_ms(dir, Some(("even", head("even"))), 50);
        let early = page_ms(dir, Some(("early", head("early"))), 50);
        println!(
            "history of {n} entries: filled in {:.1} s, {:.1} MiB, {:.1} bytes/entry ({:.1} of \
             them the indexes'); page of 100: newest {newest:.3} ms (baseline), one task \
             written evenly {even:.3} ms ({:.2}x), one task written at the start {early:.3} ms \
             ({:.2}x) (goal < 5 ms)",
            filled.took.as_secs_f64(),
            mib(filled.bytes),
            filled.bytes as f64 / n as f64,
            filled.index_bytes as f64 / n as f64,
            even / newest,
            early / newest,
        );
        if walks {
            let even_walk = page_ms(dir, Some(("even", None)), 3);
            let early_walk = page_ms(dir, Some(("early", None)), 3);
            println!(
                "  the same pages by a walk of the log: evenly written task {even_walk:.1} ms \
                 ({:.0}x the baseline), task written at the start {early_walk:.1} ms ({:.0}x)",
                even_walk / newest,
                early_walk / newest,
            );
        }
        rows.push((n, newest, even, early));
    }
    let ((n0, newest0, even0, early0), (n1, newest1, even1, early1)) = (rows[0], rows[1]);
    println!(
        "page time from {n0} to {n1} entries ({}x): newest {:.2}x, evenly written task {:.2}x, \
         task written at the start {:.2}x",
        n1 / n0,
        newest1 / newest0,
        even1 / even0,
        early1 / early0
    );
}

/// The server's RSS before and after one task's history grows by `writes` entries; the
/// activity's and the journal's bytes on disk per write.
fn memory() {
    let writes = env_or("TASKD_BENCH_ACTIVITY_WRITES", 200_000);
    let dir = tempfile::tempdir().unwrap();
    let (server, _) = Server::start_with(dir.path(), &["--snapshot-interval-ms", "2000"]);
    let (status, _) = server.call(TOKEN, "POST", "/api/v1/tasks", Some(json!({"todoId": "t"})));
    assert_eq!(status, 201);
    let patch = |i: usize| {
        let body = json!({"name": format!("Task number {i}")}).to_string();
        support::request(TOKEN, "PATCH", "/api/v1/tasks/t", Some(&body))
    };
    // Warm-up: the server's pools and the log's first segment.
    let warm = 2_000;
    fire(&server, warm, patch);
    let before = server.settled_rss(Duration::from_secs(3));
    let started = Instant::now();
    fire(&server, writes, move |i| patch(i + warm));
    let elapsed = started.elapsed();
    let after = server.settled_rss(Duration::from_secs(3));
    let activity = du(&dir.path().join("activity"));
    println!(
        "server RSS with 1 task: {:.1} MiB after {warm} writes, {:.1} MiB after {} ({:+.1} MiB, \
         {:.3}x; goal unchanged); {} writes over HTTP took {:.1} s ({:.0}/s)",
        mib(before),
        mib(after),
        warm + writes,
        (after as f64 - before as f64) / (1 << 20) as f64,
        after as f64 / before as f64,
        writes,
        elapsed.as_secs_f64(),
        writes as f64 / elapsed.as_secs_f64(),
    );
    println!(
        "activity on disk: {:.1} MiB, {:.0} bytes per entry (a one-field update)",
        mib(activity),
        activity as f64 / (warm + writes + 1) as f64
    );
    server.stop();
}

/// Sends `count` requests `make(0..count)` over 16 connections.
fn fire(
    server: &Server,
    count: usize,
    make: impl Fn(usize) -> Vec<u8> + Send + Sync + Copy + 'static,
) {
    let connections = 16;
    let addr = server.addr;
    let threads: Vec<_> = (0..connections)
        .map(|c| {
            std::thread::spawn(move || {
                let mut reader = support::connect(addr);
                for i in (c..count).step_by(connections) {
                    let (status, _) = support::exchange(&mut reader, &make(i));
                    assert_eq!(status, 200);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

/// The bytes of the files under `dir`.
fn du(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|f| {
            let f = f.unwrap();
            if f.file_type().unwrap().is_dir() {
                du(&f.path())
            } else {
                f.metadata().unwrap().len()
            }
        })
        .sum()
}

fn main() {
    println!("load: {}", support::load_average());
    throughput();
    memory();
    pages();
}
