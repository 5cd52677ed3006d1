//! The journal in this process, with failpoint `journal::write` set directly.

use std::path::Path;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use taskd::model::Outcome;
use taskd::store::codec::Entry;
use taskd::store::journal::{self, Durability, Journal, Marks, StorageError, Tail};

fn write(space: &str, base: u64) -> Entry {
    Entry::Write {
        space: space.into(),
        outcome: Arc::new(Outcome {
            base,
            version: base + 1,
            steps: Vec::new(),
            meta: Default::default(),
        }),
        key: None,
    }
}

/// Appends `entry` and waits for its outcome.
fn append(journal: &Journal, entry: &Entry) -> Result<(), StorageError> {
    let (tx, rx) = mpsc::channel();
    journal.append(entry, false, Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

fn entries(dir: &Path) -> Vec<Entry> {
    let mut all = Vec::new();
    journal::read(dir, Tail::Cut, |e| {
        all.push(e);
        Ok(())
    })
    .unwrap();
    all
}

#[test]
fn a_failed_batch_leaves_nothing_and_refuses_what_was_built_on_it() {
    // Failpoints are global to the process: the scenario holds them for this test alone.
    let scenario = fail::FailScenario::setup();
    let dir = tempfile::tempdir().unwrap();
    let segments = journal::read(dir.path(), Tail::Cut, |_| Ok(())).unwrap();
    let journal = Journal::start(
        dir.path(),
        Durability::Fsync,
        segments,
        Marks::default(),
        Duration::from_secs(10),
        None,
    )
    .unwrap();
    append(&journal, &write("a", 0)).unwrap();
    fail::cfg("journal::write", "return").unwrap();
    assert!(matches!(
        append(&journal, &write("a", 1)),
        Err(StorageError::Io(_))
    ));
    assert!(journal.health().problem().is_some());
    fail::remove("journal::write");
    assert_eq!(
        append(&journal, &write("a", 2)),
        Err(StorageError::Superseded)
    );
    append(&journal, &write("a", 1)).unwrap();
    assert_eq!(journal.health().problem(), None);
    assert_eq!(entries(dir.path()), [write("a", 0), write("a", 1)]);
    scenario.teardown();
}
