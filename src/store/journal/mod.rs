//! The journal: one append-only log for the whole server, in segment files
//! `journal/<seq>.log`, written by one thread with group commit.
//!
//! Space actors and user creation hand the [`Journal`] already-encoded entries. The writer
//! thread takes everything that is queued, writes it with one `write` call, syncs once
//! (`fdatasync`) when the batch needs it, and only then calls each entry's completion:
//! while one batch syncs the next one queues up, so concurrent writers share syncs.
//!
//! Per space, the entries on disk form a chain of versions. When a batch cannot be written,
//! its bytes are cut off again and every entry in it fails; the spaces take those writes
//! back. Entries of a space that were queued on top of a failed one are refused too (their
//! base no longer follows), so the chain on disk never has a hole.
//!
//! A segment is deleted once every entry in it is covered by a snapshot on disk: the
//! snapshot actor reports each space file and users file it writes ([`Journal::covered`]).
//!
//! What a crash leaves, and why start-up copes:
//! - during an append: a torn last frame in the newest segment, cut off at start-up;
//! - while a segment is created (at start or when the open one is full): nothing, or an
//!   empty newest segment, which reads as no entries; the full one was synced before;
//! - while covered segments are deleted: some of them still there (or back, after a power
//!   loss, since deletions are not synced). Every entry in them is covered by a snapshot,
//!   and replay skips what a snapshot already holds;
//! - after a failed write whose bytes could not be cut off again: the writer reopens that
//!   segment and cuts it before it writes anything more, so a torn frame is only ever at
//!   the end of the newest segment.
//!
//! The files: this one holds the [`Journal`] handle and what callers hand it; `writer` the
//! writer thread; `marks` what an entry means for compaction; `segments` the files on disk
//! and reading them back; `health` whether the journal can write.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::Duration;

use crate::store::codec::Entry;
use crate::store::mirror::Mirror;
use crate::store::{Problem, StoreError};

mod health;
mod marks;
mod segments;
mod writer;

#[cfg(test)]
pub(crate) mod fake;
#[cfg(test)]
mod tests;

pub use health::Health;
pub use marks::{Encoded, Mark, Marked, Marks};
pub use segments::{append_segment, cut_back, is_segment_name, read, Segment, Tail};
use writer::Writer;

/// A segment is closed and a new one started once it holds this many bytes.
pub const SEGMENT_BYTES: u64 = 64 << 20;
/// The most requests the writer takes into one batch.
const MAX_BATCH: usize = 4096;
/// How often a degraded journal tries its storage again when nothing is being written.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// When a write is answered (docs §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Durability {
    /// After its journal entry is synced to disk.
    Fsync,
    /// After its journal entry is handed to the operating system.
    Write,
    /// At once; only the periodic snapshots persist writes.
    Snapshot,
}

/// The flag's own spelling: `fsync`, `write` or `snapshot`.
impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = clap::ValueEnum::to_possible_value(self).expect("no variant is skipped");
        f.write_str(value.get_name())
    }
}

impl Durability {
    /// Whether space writes go through the journal.
    pub fn journals_writes(self) -> bool {
        self != Durability::Snapshot
    }

    /// Whether versions must be reserved on disk before they are handed out: a write can
    /// be answered before it is synced, so a crash could otherwise reuse its version.
    pub fn reserves_versions(self) -> bool {
        self != Durability::Fsync
    }
}

/// Why an entry was not stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// Writing or syncing failed (disk full, I/O error, no file handles).
    #[error("the journal cannot be written: {0}")]
    Io(Arc<str>),
    /// An earlier entry of the same space failed, so this one no longer follows.
    #[error("an earlier write of this space failed")]
    Superseded,
    /// The journal has stopped.
    #[error("the journal has stopped")]
    Closed,
    /// This node is no longer the primary (§16): another node appended to the stream, or
    /// its lease is lost.
    #[error("this node is not the primary")]
    NotPrimary,
}

/// Called once the entry is stored, or is known not to be.
pub type Done = Box<dyn FnOnce(Result<(), StorageError>) + Send>;

enum Request {
    Append {
        bytes: Vec<u8>,
        mark: Marked,
        sync: bool,
        done: Done,
    },
    Follow {
        bytes: Vec<u8>,
        marks: Vec<Marked>,
        seq: u64,
        done: Done,
    },
    Covered(Box<str>, u64, u64),
    CoveredDirectory(u64),
    CoveredKeys(u64),
    Flush(Done),
    Close(Done),
}

/// The handle every writer holds; cheap to clone.
#[derive(Clone)]
pub struct Journal {
    requests: Sender<Request>,
    health: Arc<Health>,
    durability: Durability,
}

impl Journal {
    /// Starts the writer thread on `dir`, after recovery found `segments` there and the
    /// snapshots on disk cover `covered`. Writing starts in a new segment. A batch that
    /// takes longer than `stall_after` marks the storage stalled (see [`Health`]).
    pub fn start(
        dir: &Path,
        durability: Durability,
        segments: Vec<Segment>,
        covered: Marks,
        stall_after: Duration,
        mirror: Option<Box<dyn Mirror>>,
    ) -> Result<Journal, StoreError> {
        let next = segments.last().map_or(1, |s| s.seq + 1);
        let health = Arc::new(Health::new(stall_after));
        let mut writer = Writer {
            dir: dir.to_path_buf(),
            durability,
            segments: segments.into(),
            file: None,
            offset: 0,
            chain: HashMap::new(),
            covered,
            health: Arc::clone(&health),
            mirror,
        };
        writer.open_segment(next)?;
        let (requests, receiver) = mpsc::channel();
        std::thread::Builder::new()
            .name("taskd-journal".into())
            .spawn(move || writer.run(receiver))
            .map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
        Ok(Journal {
            requests,
            health,
            durability,
        })
    }

    /// The durability the journal was started with.
    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// Whether the journal can write now; shared with `/healthz`.
    pub fn health(&self) -> &Arc<Health> {
        &self.health
    }

    /// Queues `entry`; `done` runs once it is written (and synced, in `fsync` durability or
    /// when `sync` is set), or failed. Returns the bytes it takes in the journal.
    pub fn append(&self, entry: &Entry, sync: bool, done: Done) -> u64 {
        self.append_encoded(Encoded::of(entry), sync, done)
    }

    /// [`Journal::append`] of an entry encoded beforehand, perhaps on another thread (a
    /// big entry takes milliseconds to encode; see the space actor).
    pub fn append_encoded(
        &self,
        encoded: Result<Encoded, StorageError>,
        sync: bool,
        done: Done,
    ) -> u64 {
        let Encoded { bytes, mark } = match encoded {
            Ok(encoded) => encoded,
            Err(e) => {
                done(Err(e));
                return 0;
            }
        };
        let len = bytes.len() as u64;
        let request = Request::Append {
            bytes,
            mark,
            sync,
            done,
        };
        if let Err(mpsc::SendError(Request::Append { done, .. })) = self.requests.send(request) {
            done(Err(StorageError::Closed));
        }
        len
    }

    /// A standby's append (§16): `bytes`, whole frames of stream message `seq` whose
    /// entries have `marks`, written and synced as they are (they are in the stream
    /// already); `done` runs once they are.
    pub fn follow(&self, bytes: Vec<u8>, marks: Vec<Marked>, seq: u64, done: Done) {
        let request = Request::Follow {
            bytes,
            marks,
            seq,
            done,
        };
        if let Err(mpsc::SendError(Request::Follow { done, .. })) = self.requests.send(request) {
            done(Err(StorageError::Closed));
        }
    }

    /// Notes that the snapshot on disk of `space` holds `version` and `reserved`, so
    /// segments it covers can go.
    pub fn covered(&self, space: &str, version: u64, reserved: u64) {
        let _ = self
            .requests
            .send(Request::Covered(space.into(), version, reserved));
    }

    /// Notes that the users file on disk holds the first `count` directory changes.
    pub fn covered_directory(&self, count: u64) {
        let _ = self.requests.send(Request::CoveredDirectory(count));
    }

    /// Notes that deleted space `space` needs none of its entries any more.
    pub fn forget(&self, space: &str) {
        self.covered(space, u64::MAX, u64::MAX);
    }

    /// Notes that the keys file on disk holds every key use numbered below `count`.
    pub fn covered_keys(&self, count: u64) {
        let _ = self.requests.send(Request::CoveredKeys(count));
    }

    /// `done` runs once everything queued before is written and synced.
    pub fn flush(&self, done: Done) {
        if let Err(mpsc::SendError(Request::Flush(done))) = self.requests.send(Request::Flush(done))
        {
            done(Err(StorageError::Closed));
        }
    }

    /// Syncs, deletes every segment the snapshots cover (the open one too), and stops the
    /// writer; `done` runs when it has.
    pub fn close(&self, done: Done) {
        if let Err(mpsc::SendError(Request::Close(done))) = self.requests.send(Request::Close(done))
        {
            done(Err(StorageError::Closed));
        }
    }
}
