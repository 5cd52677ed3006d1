//! Space-model benchmark: creates and pages tasks in one `Space`, against a baseline measured
//! in the same run (a `Mutex<HashMap>` holding the same records), and reports ratios plus
//! the slowest single create, which shows any pause from the space growing.
//!
//! `cargo bench` runs it with 200,000 tasks; `TASKD_BENCH_TASKS=1000000 cargo bench` for a
//! million.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::json;
use taskd::model::validate::{parse_changes, Mode};
use taskd::model::{Command, Kind, ListQuery, Op, Plan, Record, Space};

fn body(i: usize) -> serde_json::Map<String, serde_json::Value> {
    json!({"todoId": format!("task-{i:08}"), "name": "Buy milk", "status": "open"})
        .as_object()
        .unwrap()
        .clone()
}

fn main() {
    let n: usize = std::env::var("TASKD_BENCH_TASKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);

    // Baseline: the same validated records into a locked HashMap.
    let baseline = Mutex::new(HashMap::new());
    let started = Instant::now();
    for i in 0..n {
        let changes = parse_changes(Kind::Task, Mode::Create, body(i)).unwrap();
        let id = changes.id.unwrap();
        let record = Record::new(Kind::Task, id.as_ref().into(), i as f64, 0, i as u64);
        baseline.lock().unwrap().insert(id, record);
    }
    let baseline_create = started.elapsed();

    let mut space = Space::new("bench");
    let mut slowest = Duration::ZERO;
    let started = Instant::now();
    for i in 0..n {
        let mut changes = parse_changes(Kind::Task, Mode::Create, body(i)).unwrap();
        let command = Command {
            kind: Kind::Task,
            id: changes.id.take().unwrap(),
            op: Op::Create(changes),
            if_match: None,
        };
        let op = Instant::now();
        black_box(space.apply(std::slice::from_ref(&command), 0).unwrap());
        slowest = slowest.max(op.elapsed());
    }
    let space_create = started.elapsed();

    // Paging: every page of 100 versus copying 100 records out of the baseline per page.
    let started = Instant::now();
    let mut query = ListQuery {
        limit: 100,
        include_deleted: false,
        filters: Vec::new(),
        cursor: None,
        find: None,
        plan: Plan::Indexes,
        view: None,
    };
    let mut listed = 0;
    loop {
        let page = space.list(Kind::Task, &query).unwrap();
        listed += page.records.len();
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
    }
    let space_pages = started.elapsed();
    assert_eq!(listed, n);
    let started = Instant::now();
    let map = baseline.lock().unwrap();
    let mut copied = 0;
    for chunk in map.values().collect::<Vec<_>>().chunks(100) {
        copied += black_box(chunk.iter().map(|r| (*r).clone()).collect::<Vec<_>>()).len();
    }
    let baseline_pages = started.elapsed();
    assert_eq!(copied, n);

    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!("tasks: {n}");
    println!(
        "create: space {:?}, baseline {:?}, ratio {:.2}",
        space_create,
        baseline_create,
        ratio(space_create, baseline_create)
    );
    println!(
        "page through all: space {:?}, baseline {:?}, ratio {:.2}",
        space_pages,
        baseline_pages,
        ratio(space_pages, baseline_pages)
    );
    println!(
        "slowest single create: {:?} ({:.1}x the mean create)",
        slowest,
        ratio(slowest, space_create / n as u32)
    );
}
