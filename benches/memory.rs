//! Where a task's bytes go, and what loading a space costs, in-process (issue 38).
//!
//! `cargo bench --bench memory` creates `TASKD_BENCH_TASKS` tasks (default 200,000) with
//! the load tests' body (`support::load_task`) in one `Space`, one write each, counting
//! the heap bytes live through a counting allocator, and reports bytes per task: the whole
//! space, the records alone, and the rest (indexes, feed, handles, word lists). Then it
//! times the parts of a restart per task: the snapshot file decoded (`codec::decode_space`),
//! a space rebuilt from it (`Space::from_snapshot`), and one loaded empty with every write replayed over it
//! (`Space::load`, `Space::replay`, `Space::finish_load`), the way the journal is replayed.

mod support;

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use mimalloc::MiMalloc;
use taskd::model::validate::{parse_changes, Mode};
use taskd::model::{Command, Kind, Op, Outcome, Record, Space, SpaceSnapshot};
use taskd::store::codec;

/// The server's allocator (mimalloc), counting the bytes it has handed out and not yet taken back.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to `MiMalloc` unchanged; the counter only observes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Relaxed);
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> usize {
    LIVE.load(Relaxed)
}

fn main() {
    let n = support::env_or("TASKD_BENCH_TASKS", 200_000);
    let per = |bytes: usize| bytes as f64 / n as f64;
    let micros = |d: std::time::Duration| d.as_secs_f64() * 1e6 / n as f64;
    let empty = live();
    let started = Instant::now();
    let (space, _) = create(n);
    let created = started.elapsed();
    let written = live() - empty;
    let file = codec::encode_space(&space.view()).expect("encodes");
    let snapshot: SpaceSnapshot = space.view().into();
    drop(space);
    // The snapshot's vectors hold a pointer a record.
    let records = live() - empty - file.capacity() - n * std::mem::size_of::<Arc<Record>>();
    println!(
        "{n} tasks, one write each: {:.2} µs a task; bytes per task: {:.0} ({:.0} the records, {:.0} the rest)",
        micros(created),
        per(written),
        per(records),
        per(written - records)
    );

    drop(snapshot);
    let started = Instant::now();
    let snapshot = codec::decode_space(&file).expect("decodes");
    let decoded = started.elapsed();
    let started = Instant::now();
    let space = Space::from_snapshot(snapshot).expect("loads");
    let loaded = started.elapsed();
    let rebuilt = live() - empty - file.capacity();
    let id = space.id().to_string();
    drop(space);
    let (_, outcomes) = create(n);
    let started = Instant::now();
    let mut replayed = Space::load(SpaceSnapshot {
        id: id.into(),
        version: 0,
        reserved: 0,
        collections: Vec::new(),
        tasks: None,
    })
    .expect("loads");
    for outcome in &outcomes {
        replayed.replay(outcome).expect("replays");
    }
    replayed.finish_load();
    let replay = started.elapsed();
    println!(
        "a restart: the snapshot file ({:.0} bytes a task) decoded {:.2} µs a task ({:.2} s); the space built from it {:.2} µs a task ({:.2} s), {:.0} bytes a task after; every write replayed {:.2} µs a task ({:.2} s)",
        per(file.len()),
        micros(decoded),
        decoded.as_secs_f64(),
        micros(loaded),
        loaded.as_secs_f64(),
        per(rebuilt),
        micros(replay),
        replay.as_secs_f64(),
    );
}

/// A space with `n` tasks of the load tests' body, created one write each, and the writes'
/// outcomes.
fn create(n: usize) -> (Space, Vec<Outcome>) {
    let mut space = Space::new("bench");
    let mut outcomes = Vec::with_capacity(n);
    for i in 0..n {
        let body = support::load_task(i);
        let body = body.as_object().expect("an object").clone();
        let mut changes = parse_changes(Kind::Task, Mode::Create, body).expect("valid");
        let command = Command {
            kind: Kind::Task,
            id: changes.id.take().expect("an id"),
            op: Op::Create(changes),
            if_match: None,
        };
        let (outcome, _) = space
            .apply(std::slice::from_ref(&command), i as i64)
            .expect("created");
        outcomes.push(outcome);
    }
    (space, outcomes)
}
