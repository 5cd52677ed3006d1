//! The activity log in this process, with failpoint `activity::closed` (after a full
//! segment is synced, before the next segment is made) set directly to panic: what a
//! crash in a rollover leaves on disk, since every byte before it went out by `write(2)`.
//! A closed segment's index is built by the first read that needs it.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use taskd::model::activity::{Action, Entry, FieldChange, Logged, Prev};
use taskd::model::{Kind, Value};
use taskd::store::activity::{Activity, Log, Query, Retention};

const KEEP_ALL: Retention = Retention {
    days: 36_500,
    max: u64::MAX,
};

/// Writes 1 to `n`, each an update of one of three tasks with a name of 20 kB, each
/// entry pointing at its task's entry before it; the tasks' last versions.
fn writes(n: u64) -> (Vec<Logged>, HashMap<String, u64>) {
    let mut heads = HashMap::new();
    let writes = (1..=n)
        .map(|version| {
            let id = format!("t{}", version % 3);
            let prev = heads
                .insert(id.clone(), version)
                .map_or(Prev::First, Prev::At);
            Logged {
                base: version - 1,
                version,
                seq: 0,
                at: 1_000,
                actor: None,
                revert_of: None,
                entries: vec![Entry {
                    version,
                    kind: Kind::Task,
                    id: id.into(),
                    action: Action::Updated,
                    cascade: false,
                    deleted: false,
                    changes: vec![FieldChange {
                        field: 0,
                        from: Value::Null,
                        to: Value::Text(format!("{version} {}", "x".repeat(20_000)).into()),
                    }],
                    prev,
                }],
            }
        })
        .collect();
    (writes, heads)
}

/// The names of the files of `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that every task's page by its chain is its whole history, as a walk reads it.
fn chains_match_the_walk(log: &Log, heads: &HashMap<String, u64>, writes: u64) {
    for (id, head) in heads {
        let query = Query {
            limit: 1000,
            kind: Some(Kind::Task),
            id: Some(id.clone()),
            head: Some(*head),
            ..Query::default()
        };
        let chained = log.page(&query, 1_000).unwrap();
        let walked = log
            .page(
                &Query {
                    head: None,
                    ..query
                },
                1_000,
            )
            .unwrap();
        let versions = |page: &taskd::store::activity::Page| -> Vec<u64> {
            page.entries.iter().map(|(_, e)| e.version).collect()
        };
        assert_eq!(versions(&chained), versions(&walked), "{id}");
        let own = (1..=writes)
            .filter(|v| format!("t{}", v % 3) == *id)
            .count();
        assert_eq!(chained.entries.len(), own, "{id}");
    }
}

#[test]
fn a_crash_at_each_step_of_a_segment_rollover_leaves_a_log_that_reads_right() {
    // Failpoints are global to the process: the scenario holds them for this test alone.
    let scenario = fail::FailScenario::setup();
    let (all, heads) = writes(150);
    for failpoint in ["activity::closed"] {
        let dir = tempfile::tempdir().unwrap();
        let log_dir = dir.path().join("activity/s");
        let crashed = {
            let activity = Activity::new(dir.path(), KEEP_ALL);
            let log = activity.log("s").unwrap();
            fail::cfg(failpoint, "panic").unwrap();
            let crashed = all.iter().find(|write| {
                catch_unwind(AssertUnwindSafe(|| log.append((*write).clone(), 1_000))).is_err()
            });
            fail::remove(failpoint);
            crashed.expect("a rollover").version
        };
        // One full segment, not yet indexed, and no next segment.
        assert_eq!(files(&log_dir), [format!("{:020}.act", 1)], "{failpoint}");
        // Opened again, the log ends before the write the crash took; that write is
        // appended again (start-up derives it from the journal), then the rest.
        let activity = Activity::new(dir.path(), KEEP_ALL);
        let log = activity.log("s").unwrap();
        assert_eq!(log.last(), crashed - 1, "{failpoint}");
        chains_match_the_walk(&log, &writes(crashed - 1).1, crashed - 1);
        for write in &all[crashed as usize - 1..] {
            log.append(write.clone(), 1_000).unwrap();
        }
        chains_match_the_walk(&log, &heads, 150);
        for version in 1..=150 {
            let write = log.write_of(version, 1_000).unwrap().expect("kept");
            assert_eq!(write.version, version, "{failpoint}");
        }
    }
    scenario.teardown();
}
