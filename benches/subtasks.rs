//! Subtasks at scale (docs §22, issue 40), in process on `Space` like `benches/space.rs`:
//! a space of N tasks in trees of depth 8 against a space of the same N tasks without
//! trees, built in the same run.
//!
//! Each tree is a chain of 4 tasks whose last holds 10 subtrees of 1,000 tasks, 4 levels
//! high (1 + 9 + 90 + 900), so every subtree's leaves sit 8 deep. It measures, on a
//! different subtree each round, with the space's previous state held as the actor
//! publishes it (so a write copies the paths it shares):
//!
//! - a move of a subtree of 1,000 tasks to another parent (`parentId`: the depth check
//!   walks its height) and to another list (`listId`: its 999 descendants follow), a
//!   delete of it (the subtree cascades) and its restore; goal: each under 50 ms;
//! - a write that touches no tree (a task's `name`) in both spaces: the ratio;
//! - the resident memory each space added, per task.
//!
//! `cargo bench --bench subtasks`; `TASKD_BENCH_TASKS` (default 1,000,000) and
//! `TASKD_BENCH_ROUNDS` (default 20) change the size and the rounds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::{json, Value as Json};
use taskd::model::validate::{parse_changes, Mode};
use taskd::model::{Command, Kind, Op, Space};

/// The allocator the `taskd` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tasks of one subtree that is moved, deleted and restored whole.
const SUBTREE: usize = 1_000;
/// Subtrees below each tree's chain.
const SUBTREES_PER_TREE: usize = 10;
/// The chain above the subtrees: with the subtree's 4 levels, 8 deep.
const CHAIN: usize = 4;
/// Writes that touch no tree, per space.
const PLAIN_WRITES: usize = 2_000;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident memory of this process (`VmRSS`), in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

fn command(kind: Kind, id: &str, op: Op) -> Command {
    Command {
        kind,
        id: id.into(),
        op,
        if_match: None,
    }
}

fn changes(mode: Mode, body: Json) -> taskd::model::Changes {
    parse_changes(Kind::Task, mode, body.as_object().unwrap().clone()).unwrap()
}

/// Applies one command, as the space actor does: the state before it stays published
/// (shared) while the write runs. Returns how long the write took.
fn timed(space: &mut Space, command: Command) -> Duration {
    let published = space.clone();
    let started = Instant::now();
    black_box(space.apply(std::slice::from_ref(&command), 0).unwrap());
    let took = started.elapsed();
    drop(published);
    took
}

/// The id of task `k` (0 its root) of subtree `unit` of tree `tree`, and its parent.
fn unit_task(tree: usize, unit: usize, k: usize) -> (String, String) {
    let id = |k: usize| format!("t{tree:04}-u{unit:02}-{k:03}");
    let parent = match k {
        0 => format!("t{tree:04}-c{}", CHAIN - 1),
        1..=9 => id(0),
        10..=99 => id(1 + (k - 10) / 10),
        _ => id(10 + (k - 100) / 10),
    };
    (id(k), parent)
}

/// Every task of the trees as (id, parent), parents first.
fn tasks(trees: usize) -> Vec<(String, Option<String>)> {
    let mut all = Vec::new();
    for tree in 0..trees {
        for level in 0..CHAIN {
            let parent = (level > 0).then(|| format!("t{tree:04}-c{}", level - 1));
            all.push((format!("t{tree:04}-c{level}"), parent));
        }
        for unit in 0..SUBTREES_PER_TREE {
            for k in 0..SUBTREE {
                let (id, parent) = unit_task(tree, unit, k);
                all.push((id, Some(parent)));
            }
        }
    }
    all
}

/// A space with lists `l0` and `l1` and `tasks`, all in `l0`, with their parents when
/// `trees`, else all roots.
fn build(tasks: &[(String, Option<String>)], trees: bool) -> Space {
    let mut space = Space::new("bench");
    for list in ["l0", "l1"] {
        let body = json!({"listId": list});
        let list_changes =
            parse_changes(Kind::List, Mode::Create, body.as_object().unwrap().clone()).unwrap();
        space
            .apply(&[command(Kind::List, list, Op::Create(list_changes))], 0)
            .unwrap();
    }
    for (i, (id, parent)) in tasks.iter().enumerate() {
        let parent = parent.as_ref().filter(|_| trees);
        let body = json!({"name": format!("Task number {i}"), "listId": "l0", "parentId": parent});
        let op = Op::Create(changes(Mode::Create, body));
        space.apply(&[command(Kind::Task, id, op)], 0).unwrap();
    }
    space
}

/// Median and max of `times`, in ms.
fn summary(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (ms(times[times.len() / 2]), ms(times[times.len() - 1]))
}

fn main() {
    let n = env("TASKD_BENCH_TASKS", 1_000_000);
    let rounds = env("TASKD_BENCH_ROUNDS", 20);
    let per_tree = CHAIN + SUBTREES_PER_TREE * SUBTREE;
    let trees = (n / per_tree).max(2);
    assert!(rounds <= trees * SUBTREES_PER_TREE, "a subtree per round");
    let all = tasks(trees);
    let n = all.len();

    let before = rss();
    let started = Instant::now();
    let mut flat = build(&all, false);
    let flat_built = started.elapsed();
    let flat_rss = rss() - before;
    let before = rss();
    let started = Instant::now();
    let mut treed = build(&all, true);
    let trees_built = started.elapsed();
    let trees_rss = rss() - before;

    // A write that touches no tree: rename a leaf, the same ids in both spaces, taking
    // turns so that the machine's load falls on both alike.
    let (mut flat_times, mut tree_times) = (Vec::new(), Vec::new());
    for i in 0..PLAIN_WRITES {
        let (id, _) = unit_task(i % trees, i % SUBTREES_PER_TREE, 100 + i % 900);
        let rename = || Op::Update(changes(Mode::Update, json!({"name": format!("r{i}")})));
        flat_times.push(timed(&mut flat, command(Kind::Task, &id, rename())));
        tree_times.push(timed(&mut treed, command(Kind::Task, &id, rename())));
    }
    let plain_flat = summary(&mut flat_times);
    let plain_trees = summary(&mut tree_times);

    // The subtree writes, each round on the subtree of another tree.
    let mut reparent = Vec::new();
    let mut relist = Vec::new();
    let mut delete = Vec::new();
    let mut restore = Vec::new();
    for round in 0..rounds {
        let (tree, unit) = (round % trees, round / trees);
        let (root, _) = unit_task(tree, unit, 0);
        let other = format!("t{:04}-c{}", (tree + 1) % trees, CHAIN - 1);
        let update = |body: Json| Op::Update(changes(Mode::Update, body));
        let op = update(json!({"parentId": other}));
        reparent.push(timed(&mut treed, command(Kind::Task, &root, op)));
        let op = update(json!({"listId": "l1"}));
        relist.push(timed(&mut treed, command(Kind::Task, &root, op)));
        let touched = treed.version();
        delete.push(timed(
            &mut treed,
            command(Kind::Task, &root, Op::SetDeleted(true)),
        ));
        let deleted = treed
            .get(Kind::Task, &unit_task(tree, unit, 999).0)
            .unwrap();
        assert!(deleted.record.is_deleted() && treed.version() == touched + 1);
        restore.push(timed(
            &mut treed,
            command(Kind::Task, &root, Op::SetDeleted(false)),
        ));
    }

    let per_task = |bytes: u64| bytes as f64 / n as f64;
    println!(
        "tasks: {n} in each space ({trees} trees of {per_tree}, depth {})",
        CHAIN + 4
    );
    println!(
        "built in {:.1} s without trees, {:.1} s with",
        flat_built.as_secs_f64(),
        trees_built.as_secs_f64()
    );
    println!(
        "memory per task: without trees {:.0} B, with trees {:.0} B, ratio {:.3}",
        per_task(flat_rss),
        per_task(trees_rss),
        trees_rss as f64 / flat_rss as f64
    );
    println!(
        "a write touching no tree (median, max over {PLAIN_WRITES}): without trees {:.4} ms, \
         {:.3} ms; with trees {:.4} ms, {:.3} ms; median ratio {:.3}",
        plain_flat.0,
        plain_flat.1,
        plain_trees.0,
        plain_trees.1,
        plain_trees.0 / plain_flat.0
    );
    for (name, times) in [
        ("move (parentId)", &mut reparent),
        ("move (listId, 999 follow)", &mut relist),
        ("delete", &mut delete),
        ("restore", &mut restore),
    ] {
        let (median, max) = summary(times);
        println!(
            "subtree of {SUBTREE}, {name} (median, max over {rounds}): {median:.2} ms, {max:.2} ms; \
             median {:.0}x a write touching no tree; goal < 50 ms: {}",
            median / plain_flat.0,
            if max < 50.0 { "met" } else { "MISSED" }
        );
    }
}
