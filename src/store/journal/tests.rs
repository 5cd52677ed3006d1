//! Tests of the journal: group commit, failures, rotation, compaction and recovery.

use super::segments::list_segments;
use std::collections::{HashMap, VecDeque};
use std::fs::{self};
use std::path::Path;
use std::sync::mpsc::{self};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::store::codec::Entry;
use crate::store::mirror::{Mirror, Mirrored};
use crate::store::Problem;

use super::*;
use crate::store::mirror::Pending;
use std::sync::atomic::{AtomicUsize, Ordering};

const STALL: Duration = Duration::from_secs(10);

fn reserve(space: &str, up_to: u64) -> Entry {
    Entry::Reserve {
        space: space.into(),
        up_to,
    }
}

fn write(space: &str, base: u64) -> Entry {
    Entry::Write {
        space: space.into(),
        outcome: Arc::new(crate::model::Outcome {
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

fn close(journal: &Journal) {
    let (tx, rx) = mpsc::channel();
    journal.close(Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap().unwrap();
}

fn entries(dir: &Path) -> Vec<Entry> {
    let mut all = Vec::new();
    read(dir, Tail::Cut, |e| {
        all.push(e);
        Ok(())
    })
    .unwrap();
    all
}

fn start(dir: &Path) -> Journal {
    let segments = read(dir, Tail::Cut, |_| Ok(())).unwrap();
    Journal::start(
        dir,
        Durability::Fsync,
        segments,
        Marks::default(),
        STALL,
        None,
    )
    .unwrap()
}

#[test]
fn appended_entries_read_back_in_order_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let journal = start(dir.path());
    append(&journal, &write("a", 0)).unwrap();
    append(&journal, &reserve("b", 10)).unwrap();
    drop(journal);
    let journal = start(dir.path());
    append(&journal, &write("a", 1)).unwrap();
    assert_eq!(
        entries(dir.path()),
        [write("a", 0), reserve("b", 10), write("a", 1)]
    );
}

#[test]
fn a_torn_tail_is_cut_and_damage_in_the_middle_stops_the_read() {
    let dir = tempfile::tempdir().unwrap();
    let journal = start(dir.path());
    append(&journal, &write("a", 0)).unwrap();
    append(&journal, &write("a", 1)).unwrap();
    drop(journal);
    let path = list_segments(dir.path()).unwrap()[0].path.clone();
    let whole = fs::read(&path).unwrap();
    fs::write(&path, &whole[..whole.len() - 3]).unwrap();
    assert_eq!(entries(dir.path()), [write("a", 0)]);
    let first_len = fs::read(&path).unwrap().len();
    assert!(first_len < whole.len() - 3, "the torn bytes were cut off");

    let mut bad = whole.clone();
    bad[first_len - 1] ^= 0xff;
    fs::write(&path, &bad).unwrap();
    let err = read(dir.path(), Tail::Cut, |_| Ok(())).unwrap_err();
    assert_eq!((err.path.clone(), err.offset), (path.clone(), Some(0)));
    assert!(matches!(err.problem, Problem::Corrupt(_)), "{err}");
    assert_eq!(
        fs::read(&path).unwrap(),
        bad,
        "a corrupt segment is left alone"
    );
}

#[test]
fn concurrent_appends_share_syncs_and_all_complete() {
    let dir = tempfile::tempdir().unwrap();
    let journal = start(dir.path());
    let done = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (journal, done) = (journal.clone(), Arc::clone(&done));
            std::thread::spawn(move || {
                let (tx, rx) = mpsc::channel();
                for i in 0..50 {
                    let tx = tx.clone();
                    let entry = write(&format!("s{t}"), i);
                    journal.append(&entry, false, Box::new(move |r| tx.send(r).unwrap()));
                }
                for _ in 0..50 {
                    rx.recv().unwrap().unwrap();
                    done.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(done.load(Ordering::SeqCst), 400);
    let mut per_space: HashMap<Box<str>, Vec<u64>> = HashMap::new();
    for entry in entries(dir.path()) {
        if let Entry::Write { space, outcome, .. } = entry {
            per_space.entry(space).or_default().push(outcome.base);
        }
    }
    assert_eq!(per_space.len(), 8);
    for bases in per_space.values() {
        assert_eq!(*bases, (0..50).collect::<Vec<_>>());
    }
}

/// A mirror that answers each append with the next verdict of a script, and records
/// what the journal tells it.
#[derive(Clone, Default)]
struct ScriptedMirror {
    verdicts: Arc<Mutex<VecDeque<Mirrored>>>,
    held: Arc<Mutex<Vec<(u64, u64)>>>,
    fenced: Arc<Mutex<Vec<String>>>,
}

impl Mirror for ScriptedMirror {
    fn append(&self, _: &[u8]) -> Pending {
        let (verdict, receiver) = mpsc::sync_channel(1);
        let next = self.verdicts.lock().unwrap().pop_front();
        verdict.send(next.unwrap_or(Mirrored::NotStored)).unwrap();
        Pending::new(receiver)
    }

    fn held(&self, seq: u64, _: u64, offset: u64) {
        self.held.lock().unwrap().push((seq, offset));
    }

    fn fence(&self, why: &str) {
        self.fenced.lock().unwrap().push(why.into());
    }
}

#[test]
fn a_batch_is_stored_only_when_the_mirror_holds_it_too() {
    let dir = tempfile::tempdir().unwrap();
    let mirror = ScriptedMirror::default();
    mirror.verdicts.lock().unwrap().extend([
        Mirrored::Stored(1),
        Mirrored::NotStored,
        Mirrored::Fenced,
        Mirrored::Stored(2),
    ]);
    let journal = Journal::start(
        dir.path(),
        Durability::Fsync,
        Vec::new(),
        Marks::default(),
        STALL,
        Some(Box::new(mirror.clone())),
    )
    .unwrap();
    append(&journal, &write("a", 0)).unwrap();
    let held = mirror.held.lock().unwrap().clone();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].0, 1, "held at the mirror's position");
    assert!(matches!(
        append(&journal, &write("a", 1)),
        Err(StorageError::Io(_))
    ));
    assert!(journal.health().problem().is_some(), "not stored: degraded");
    assert_eq!(
        append(&journal, &write("a", 1)),
        Err(StorageError::NotPrimary)
    );
    append(&journal, &write("a", 1)).unwrap();
    assert_eq!(journal.health().problem(), None);
    let held = mirror.held.lock().unwrap().clone();
    assert_eq!(held.len(), 2);
    assert!(
        held[1].1 > held[0].1,
        "the offset moves with what is stored"
    );
    assert!(mirror.fenced.lock().unwrap().is_empty());
    close(&journal);
    assert_eq!(entries(dir.path()), [write("a", 0), write("a", 1)]);
}

#[test]
fn covered_segments_are_deleted_and_close_deletes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let journal = start(dir.path());
    append(&journal, &write("a", 0)).unwrap();
    append(
        &journal,
        &Entry::User {
            seq: 0,
            user: crate::model::User::new("u", "t"),
            key: None,
        },
    )
    .unwrap();
    drop(journal);
    // The old segment holds a@1 and user 0; a new writer opens a second one.
    let journal = Journal::start(
        dir.path(),
        Durability::Fsync,
        read(dir.path(), Tail::Cut, |_| Ok(())).unwrap(),
        Marks::default(),
        STALL,
        None,
    )
    .unwrap();
    append(&journal, &write("b", 0)).unwrap();
    assert_eq!(list_segments(dir.path()).unwrap().len(), 2);
    journal.covered("a", 1, 0);
    append(&journal, &write("b", 1)).unwrap();
    assert_eq!(
        list_segments(dir.path()).unwrap().len(),
        2,
        "user 0 is not covered"
    );
    journal.covered_directory(1);
    append(&journal, &write("b", 2)).unwrap();
    assert_eq!(list_segments(dir.path()).unwrap().len(), 1);
    journal.covered("b", 3, 0);
    close(&journal);
    assert!(list_segments(dir.path()).unwrap().is_empty());
}
