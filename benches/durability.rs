//! The durable write path, measured: journal appends with group commit at 1, 16 and 64
//! concurrent writers (each waits for its entry before the next), the pause a snapshot
//! costs the space actor at a million tasks, and recovery time of a million tasks from a
//! snapshot and from the journal, and a change-feed page against a collection page.
//!
//! `cargo bench --bench durability`; `TASKD_BENCH_TASKS=N` changes the million.

mod support;

use std::hint::black_box;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use taskd::model::validate::{parse_changes, Mode};
use taskd::model::{Command, DirectorySnapshot, Kind, ListQuery, Op, Plan, Record, Space};
use taskd::store::codec::Entry;
use taskd::store::journal::{self, Durability, Journal, Marks, Tail};
use taskd::store::Store;

use support::{gather, percentile_ms};

/// How long a batch may take before the journal counts its storage as stalled.
const STALL: Duration = Duration::from_secs(10);

/// The allocator the `taskd` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn command(i: usize) -> Command {
    let status = ["open", "doing", "done"][i % 3];
    let body = json!({
        "todoId": format!("task-{i:08}"), "name": format!("Task number {i}"),
        "status": status, "tagIds": ["home", "errand"],
        "dateDue": "2026-12-01T09:00:00Z", "isImportant": i.is_multiple_of(7),
    });
    let mut changes =
        parse_changes(Kind::Task, Mode::Create, body.as_object().unwrap().clone()).unwrap();
    Command {
        kind: Kind::Task,
        id: changes.id.take().unwrap(),
        op: Op::Create(changes),
        if_match: None,
    }
}

/// `writers` threads append `per_writer` entries each, one at a time.
fn appends(durability: Durability, writers: usize, per_writer: usize) {
    let dir = tempfile::tempdir().unwrap();
    let segments = journal::read(dir.path(), Tail::Cut, |_| Ok(())).unwrap();
    let journal = Journal::start(
        dir.path(),
        durability,
        segments,
        Marks::default(),
        STALL,
        None,
    )
    .unwrap();
    let mut space = Space::new("bench");
    let (outcome, _) = space.apply(&[command(0)], 0).unwrap();
    let started = Instant::now();
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let (journal, mut outcome) = (journal.clone(), outcome.clone());
            std::thread::spawn(move || {
                let mut latencies = Vec::with_capacity(per_writer);
                for i in 0..per_writer as u64 {
                    // Each writer has a space of its own, whose versions follow on.
                    (outcome.base, outcome.version) = (i, i + 1);
                    let entry = Entry::Write {
                        space: format!("bench-{w}").into(),
                        outcome: Arc::new(outcome.clone()),
                        key: None,
                    };
                    let (tx, rx) = mpsc::channel();
                    let sent = Instant::now();
                    journal.append(&entry, false, Box::new(move |r| tx.send(r).unwrap()));
                    rx.recv().unwrap().unwrap();
                    latencies.push(sent.elapsed());
                }
                latencies
            })
        })
        .collect();
    let latencies = gather(threads);
    let elapsed = started.elapsed();
    println!(
        "append {durability:?} writers={writers:>2}: {:>8.0} entries/s  p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        latencies.len() as f64 / elapsed.as_secs_f64(),
        percentile_ms(&latencies, 0.5),
        percentile_ms(&latencies, 0.99),
        percentile_ms(&latencies, 1.0),
    );
}

fn main() {
    let n: usize = std::env::var("TASKD_BENCH_TASKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);

    for writers in [1, 16, 64] {
        appends(Durability::Fsync, writers, 4_000 / writers.min(8));
    }
    appends(Durability::Write, 16, 2_000);

    // A space of n tasks, its snapshot pause, and recovery.
    let mut space = Space::new("bench");
    for i in 0..n {
        space.apply(&[command(i)], 0).unwrap();
    }
    let started = Instant::now();
    let view = black_box(space.view());
    let view_pause = started.elapsed();
    // The baseline: what the pause was before, a copy of every record pointer.
    let started = Instant::now();
    let copied: Vec<Arc<Record>> = view.collections[0].values().cloned().collect();
    let copy_pause = started.elapsed();
    drop(copied);
    println!(
        "snapshot pause at {n} tasks: {:.3} ms (copying every record pointer instead: {:.1} ms, {:.0}x)",
        view_pause.as_secs_f64() * 1e3,
        copy_pause.as_secs_f64() * 1e3,
        copy_pause.as_secs_f64() / view_pause.as_secs_f64().max(1e-9)
    );

    // A feed page of 100 against a collection page of 100, in the same space.
    let pages = 2_000;
    let query = ListQuery {
        limit: 100,
        include_deleted: false,
        filters: Vec::new(),
        cursor: None,
        find: None,
        plan: Plan::Indexes,
        view: None,
    };
    // Cursors spread over the whole collection, as the feed's `since` values are.
    let mut cursors = Vec::new();
    let mut walk = query.clone();
    while let Some(next) = space.list(Kind::Task, &walk).unwrap().next_cursor {
        cursors.push(next.clone());
        walk.cursor = Some(next);
    }
    let started = Instant::now();
    for i in 0..pages as usize {
        let page = ListQuery {
            cursor: cursors.get(i * 7919 % cursors.len().max(1)).cloned(),
            ..query.clone()
        };
        black_box(space.list(Kind::Task, &page).unwrap());
    }
    let list_page = started.elapsed() / pages;
    let started = Instant::now();
    for i in 0..pages {
        let since = (i as u64 * 7919) % n as u64;
        black_box(space.changes(since, 100).unwrap());
    }
    let feed_page = started.elapsed() / pages;
    println!(
        "page of 100 at {n} tasks: feed {:.1} us, collection {:.1} us ({:.2}x)",
        feed_page.as_secs_f64() * 1e6,
        list_page.as_secs_f64() * 1e6,
        feed_page.as_secs_f64() / list_page.as_secs_f64()
    );

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.save_directory(&DirectorySnapshot::default()).unwrap();
    let started = Instant::now();
    store.save_space(&view).unwrap();
    let size = std::fs::metadata(store.space_path("bench")).unwrap().len();
    println!(
        "snapshot write (snapshot thread, not the space): {:.2} s, {} MB",
        started.elapsed().as_secs_f64(),
        size >> 20
    );
    let started = Instant::now();
    let recovered = store.recover().unwrap();
    assert_eq!(recovered.spaces["bench"].version(), n as u64);
    println!(
        "recovery of {n} tasks from a snapshot: {:.2} s",
        started.elapsed().as_secs_f64()
    );
    drop(recovered);

    // The same tasks from the journal alone.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.save_directory(&DirectorySnapshot::default()).unwrap();
    let segments = journal::read(&store.journal_dir(), Tail::Cut, |_| Ok(())).unwrap();
    let journal = Journal::start(
        &store.journal_dir(),
        Durability::Write,
        segments,
        Marks::default(),
        STALL,
        None,
    )
    .unwrap();
    let mut replayed = Space::new("bench");
    let (tx, rx) = mpsc::channel();
    for i in 0..n {
        let (outcome, _) = replayed.apply(&[command(i)], 0).unwrap();
        let tx = tx.clone();
        journal.append(
            &Entry::Write {
                space: "bench".into(),
                outcome: Arc::new(outcome),
                key: None,
            },
            false,
            Box::new(move |r| tx.send(r).unwrap()),
        );
    }
    for _ in 0..n {
        rx.recv().unwrap().unwrap();
    }
    drop(journal);
    let started = Instant::now();
    let recovered = store.recover().unwrap();
    assert_eq!(recovered.spaces["bench"].version(), n as u64);
    println!(
        "recovery of {n} tasks from the journal: {:.2} s",
        started.elapsed().as_secs_f64()
    );
}
