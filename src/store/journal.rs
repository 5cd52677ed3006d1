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

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::codec::{self, Entry, Frame};
use super::mirror::{Mirror, Mirrored};
use super::{Problem, StoreError};
use crate::metrics::METRICS;

/// A segment is closed and a new one started once it holds this many bytes.
pub const SEGMENT_BYTES: u64 = 64 << 20;
/// The most requests the writer takes into one batch.
const MAX_BATCH: usize = 4096;
/// How often a degraded journal tries its storage again when nothing is being written.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);
const SEGMENT_SUFFIX: &str = ".log";

/// When a write is answered (CONTRACT §8).
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

/// What an entry means for compaction: which snapshot covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// A write of `space` from version `base` to `version`.
    Write {
        /// The space.
        space: Box<str>,
        /// The version before the write.
        base: u64,
        /// The version after it.
        version: u64,
    },
    /// A reservation of versions up to `up_to` for `space`.
    Reserve {
        /// The space.
        space: Box<str>,
        /// The highest version reserved.
        up_to: u64,
    },
    /// Directory change number `seq` (a user's creation is one).
    Directory {
        /// Its position.
        seq: u64,
    },
}

/// What an entry means for compaction: its main mark, and the idempotency key use it
/// holds, which the keys file must cover too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    mark: Option<Mark>,
    key: Option<u64>,
}

/// An entry as the journal writes it: its frame and its marks.
#[derive(Debug)]
pub struct Encoded {
    bytes: Vec<u8>,
    mark: Marked,
}

impl Encoded {
    /// Encodes `entry`; any thread may, the journal's order is that of the appends.
    pub fn of(entry: &Entry) -> Result<Encoded, StorageError> {
        let mut bytes = Vec::new();
        codec::encode_entry(entry, &mut bytes)
            .map_err(|e| StorageError::Io(e.to_string().into()))?;
        Ok(Encoded {
            bytes,
            mark: Marked::of(entry),
        })
    }
}

impl Marked {
    /// The marks of `entry`.
    pub fn of(entry: &Entry) -> Marked {
        let (mark, key) = match entry {
            Entry::Write {
                space,
                outcome,
                key,
            } => (
                Some(Mark::Write {
                    space: space.clone(),
                    base: outcome.base,
                    version: outcome.version,
                }),
                key.as_ref().map(|k| k.0.seq),
            ),
            Entry::Reserve { space, up_to } => (
                Some(Mark::Reserve {
                    space: space.clone(),
                    up_to: *up_to,
                }),
                None,
            ),
            Entry::User { seq, key, .. } | Entry::Directory { seq, key, .. } => (
                Some(Mark::Directory { seq: *seq }),
                key.as_ref().map(|k| k.0.seq),
            ),
            Entry::Answer(kept) => (None, Some(kept.0.seq)),
        };
        Marked { mark, key }
    }
}

/// The highest version and reservation of each space, and the number of directory changes,
/// that some
/// set of entries holds (a segment's) or that the snapshots on disk cover.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    spaces: HashMap<Box<str>, (u64, u64)>,
    directory: u64,
    keys: u64,
}

impl Marks {
    /// Takes the marks of an entry in.
    pub fn note(&mut self, marked: &Marked) {
        if let Some(seq) = marked.key {
            self.keys = self.keys.max(seq + 1);
        }
        let (space, version, reserved) = match &marked.mark {
            Some(Mark::Write { space, version, .. }) => (space, *version, 0),
            Some(Mark::Reserve { space, up_to }) => (space, 0, *up_to),
            Some(Mark::Directory { seq }) => {
                self.directory = self.directory.max(seq + 1);
                return;
            }
            None => return,
        };
        self.space(space, version, reserved);
    }

    /// Notes that the key uses numbered below `count` are covered.
    pub fn keys(&mut self, count: u64) {
        self.keys = self.keys.max(count);
    }

    /// Notes that `space` is at least at `version` with `reserved` reserved.
    pub fn space(&mut self, space: &str, version: u64, reserved: u64) {
        match self.spaces.get_mut(space) {
            Some((v, r)) => {
                *v = (*v).max(version);
                *r = (*r).max(reserved);
            }
            None => {
                self.spaces.insert(space.into(), (version, reserved));
            }
        }
    }

    /// Notes that the first `count` directory changes are covered.
    pub fn directory(&mut self, count: u64) {
        self.directory = self.directory.max(count);
    }

    /// Notes that deleted space `space` needs none of its entries any more.
    pub fn forget(&mut self, space: &str) {
        self.space(space, u64::MAX, u64::MAX);
    }

    /// Whether these marks (a snapshot's coverage) hold `space` at `version` or later.
    pub fn holds(&self, space: &str, version: u64) -> bool {
        self.spaces.get(space).is_some_and(|(v, _)| *v >= version)
    }

    /// Whether these marks (a snapshot's coverage) cover every entry `segment` holds.
    fn covers(&self, segment: &Marks) -> bool {
        self.directory >= segment.directory
            && self.keys >= segment.keys
            && segment.spaces.iter().all(|(space, (version, reserved))| {
                self.spaces
                    .get(space)
                    .is_some_and(|(v, r)| v >= version && r >= reserved)
            })
    }
}

/// A segment file and the marks of the entries in it.
#[derive(Debug)]
pub struct Segment {
    seq: u64,
    path: PathBuf,
    marks: Marks,
}

/// Whether the journal can write; shared with `/healthz` and with everything that waits
/// for the journal.
#[derive(Debug)]
pub struct Health {
    problem: Mutex<Option<String>>,
    /// When the batch being written (and synced) began; `None` between batches.
    busy_since: Mutex<Option<Instant>>,
    /// How long a batch may take before the storage counts as stalled.
    stall_after: Duration,
}

impl Health {
    /// A healthy journal whose storage counts as stalled once a batch takes `stall_after`.
    pub fn new(stall_after: Duration) -> Health {
        Health {
            problem: Mutex::new(None),
            busy_since: Mutex::new(None),
            stall_after,
        }
    }

    /// Why the journal cannot write now, if it cannot: a failed write, or one that has not
    /// returned for longer than the bound.
    pub fn problem(&self) -> Option<String> {
        let failed = self
            .problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        failed.or_else(|| {
            self.stalled().map(|waited| {
                format!(
                    "the journal's storage has not answered for {} s",
                    waited.as_secs()
                )
            })
        })
    }

    /// How long the batch in progress has been waiting for storage, if longer than the
    /// bound.
    pub fn stalled(&self) -> Option<Duration> {
        let since = *self
            .busy_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        since
            .map(|since| since.elapsed())
            .filter(|waited| *waited >= self.stall_after)
    }

    /// How long a request waits for storage before it is answered 503.
    pub fn stall_after(&self) -> Duration {
        self.stall_after
    }

    fn busy(&self, since: Option<Instant>) {
        *self
            .busy_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = since;
    }

    fn set(&self, problem: Option<String>) {
        let mut slot = self.problem.lock().unwrap_or_else(PoisonError::into_inner);
        match (&*slot, &problem) {
            (None, Some(p)) => log::error!("storage failure: {p}; writes are refused"),
            (Some(_), None) => log::warn!("storage works again; writes are accepted"),
            _ => {}
        }
        *slot = problem;
    }
}

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

/// The writer thread's state.
struct Writer {
    dir: PathBuf,
    durability: Durability,
    /// Every segment on disk, oldest first; the last one is open for appending.
    segments: VecDeque<Segment>,
    file: Option<File>,
    /// Bytes of the open segment known to be written.
    offset: u64,
    /// Per space, the version its last stored write made: the next must start there.
    chain: HashMap<Box<str>, u64>,
    /// What the snapshots on disk cover.
    covered: Marks,
    health: Arc<Health>,
    /// Where each batch is appended as well (with `--nats`: the stream).
    mirror: Option<Box<dyn Mirror>>,
}

/// One append of a batch, waiting for the batch's outcome.
struct Waiting {
    mark: Marked,
    done: Done,
}

impl Writer {
    fn run(mut self, requests: Receiver<Request>) {
        loop {
            let first = if self.health.problem().is_some() {
                match requests.recv_timeout(PROBE_INTERVAL) {
                    Ok(request) => request,
                    Err(RecvTimeoutError::Timeout) => {
                        self.probe();
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            } else {
                match requests.recv() {
                    Ok(request) => request,
                    Err(_) => return,
                }
            };
            let batch = std::iter::once(first).chain(requests.try_iter().take(MAX_BATCH - 1));
            self.health.busy(Some(Instant::now()));
            let close = self.write_batch(batch);
            self.health.busy(None);
            if let Some(done) = close {
                return done(self.close());
            }
        }
    }

    /// Writes one batch; returns the completion of a `Close` request among it.
    fn write_batch(&mut self, batch: impl Iterator<Item = Request>) -> Option<Done> {
        let mut bytes = Vec::new();
        let mut waiting = Vec::new();
        let mut flushes = Vec::new();
        let mut close = None;
        let mut sync = self.durability == Durability::Fsync;
        let mut chain: HashMap<Box<str>, u64> = HashMap::new();
        for request in batch {
            match request {
                Request::Append {
                    bytes: entry,
                    mark,
                    sync: needs_sync,
                    done,
                } => {
                    if let Some(Mark::Write {
                        space,
                        base,
                        version,
                    }) = &mark.mark
                    {
                        let last = chain.get(space).or_else(|| self.chain.get(space));
                        if last.is_some_and(|last| last != base) {
                            done(Err(StorageError::Superseded));
                            continue;
                        }
                        chain.insert(space.clone(), *version);
                    }
                    bytes.extend_from_slice(&entry);
                    sync |= needs_sync;
                    waiting.push(Waiting { mark, done });
                }
                Request::Follow {
                    bytes,
                    marks,
                    seq,
                    done,
                } => done(self.follow(&bytes, &marks, seq)),
                Request::Covered(space, version, reserved) => {
                    self.covered.space(&space, version, reserved)
                }
                Request::CoveredDirectory(count) => self.covered.directory(count),
                Request::CoveredKeys(count) => self.covered.keys(count),
                Request::Flush(done) => {
                    sync = true;
                    flushes.push(done);
                }
                Request::Close(done) => {
                    sync = true;
                    close = Some(done);
                }
            }
        }
        let outcome = if bytes.is_empty() && flushes.is_empty() && close.is_none() {
            Ok(()) // only coverage notes, or entries refused above
        } else {
            let started = Instant::now();
            let stored = self.store(&bytes, sync);
            METRICS
                .journal_sync_seconds
                .observe(started.elapsed().as_secs_f64());
            if !waiting.is_empty() {
                METRICS.journal_batch_entries.observe(waiting.len() as f64);
            }
            stored
        };
        match &outcome {
            Ok(()) => {
                let segment = self.segments.back_mut().expect("an open segment");
                for w in &waiting {
                    segment.marks.note(&w.mark);
                }
                self.chain.extend(chain);
            }
            Err(_) => {
                // The chain stays where the disk is: entries queued on top of these fail.
                for w in &waiting {
                    if let Some(Mark::Write { space, base, .. }) = &w.mark.mark {
                        self.chain.entry(space.clone()).or_insert(*base);
                    }
                }
            }
        }
        // Covered segments go before the answers, so a writer that saw its entry stored
        // also sees the segments that marks sent before it made redundant deleted.
        self.delete_covered(false);
        for w in waiting {
            (w.done)(outcome.clone());
        }
        for done in flushes {
            done(outcome.clone());
        }
        if outcome.is_ok() && self.offset >= SEGMENT_BYTES {
            if let Err(e) = self.rotate() {
                self.health.set(Some(e.to_string()));
            }
        }
        close
    }

    /// Writes `bytes` at the end of the open segment and syncs if asked, while the same
    /// bytes are appended to the mirror (with `--nats`, the stream); on failure of either,
    /// cuts the segment back to what was there before.
    fn store(&mut self, bytes: &[u8], sync: bool) -> Result<(), StorageError> {
        let appended = match &self.mirror {
            Some(mirror) if !bytes.is_empty() => Some(mirror.append(bytes)),
            _ => None,
        };
        let written = (|| {
            // Tests only (feature `failpoints`): `return` fails the write as a full disk
            // would, `pause` holds it until the failpoint is removed, as a sync that does
            // not return would.
            #[cfg(feature = "failpoints")]
            fail::fail_point!("journal::write", |_| Err(io::Error::other(
                "injected storage fault"
            )));
            let file = self
                .file
                .as_mut()
                .ok_or_else(|| io::Error::other("no open segment"))?;
            file.write_all(bytes)?;
            if sync {
                file.sync_data()?;
            }
            Ok::<(), io::Error>(())
        })();
        let verdict = appended.map(|pending| pending.wait());
        match (written, verdict) {
            (Ok(()), None | Some(Mirrored::Stored(_))) => {
                self.offset += bytes.len() as u64;
                if let (Some(mirror), Some(Mirrored::Stored(seq))) = (&self.mirror, verdict) {
                    let segment = self.segments.back().map_or(0, |s| s.seq);
                    mirror.held(seq, segment, self.offset);
                }
                if self.health.problem().is_some() {
                    self.health.set(None);
                }
                Ok(())
            }
            (Ok(()), Some(Mirrored::Fenced)) => {
                self.cut_back();
                Err(StorageError::NotPrimary)
            }
            (Ok(()), Some(Mirrored::NotStored)) => {
                self.cut_back();
                let problem = "the stream did not take the batch (NATS unavailable)";
                self.health.set(Some(problem.into()));
                Err(StorageError::Io(problem.into()))
            }
            (Err(e), verdict) => {
                if let (Some(mirror), Some(Mirrored::Stored(_))) = (&self.mirror, verdict) {
                    // The mirror holds what this disk could not: only a catch-up at the
                    // next start makes them agree again.
                    mirror.fence("the stream took a batch the local journal could not");
                }
                let problem = format!(
                    "{}: {e}",
                    self.segments
                        .back()
                        .map_or(&self.dir, |s| &s.path)
                        .display()
                );
                self.health.set(Some(problem.clone()));
                self.cut_back();
                Err(StorageError::Io(problem.into()))
            }
        }
    }

    /// Writes and syncs frames a standby took from the mirror (not appended to it again),
    /// notes their marks, and tells the mirror it holds them up to its position `seq`.
    fn follow(&mut self, bytes: &[u8], marks: &[Marked], seq: u64) -> Result<(), StorageError> {
        let written = self.file.as_mut().map_or_else(
            || Err(io::Error::other("no open segment")),
            |file| file.write_all(bytes).and_then(|()| file.sync_data()),
        );
        if let Err(e) = written {
            self.cut_back();
            return Err(StorageError::Io(e.to_string().into()));
        }
        self.offset += bytes.len() as u64;
        let segment = self.segments.back_mut().expect("an open segment");
        for mark in marks {
            segment.marks.note(mark);
            if let Some(Mark::Write { space, version, .. }) = &mark.mark {
                self.chain.insert(space.clone(), *version);
            }
        }
        if let Some(mirror) = &self.mirror {
            mirror.held(seq, segment.seq, self.offset);
        }
        Ok(())
    }

    /// Cuts the open segment back to the last stored byte, so a failed batch leaves no
    /// half-written frame for the next one to follow.
    fn cut_back(&mut self) {
        if let Some(file) = self.file.as_mut() {
            let cut = file
                .set_len(self.offset)
                .and_then(|()| io::Seek::seek(file, io::SeekFrom::Start(self.offset)));
            if let Err(e) = cut {
                log::error!("cannot cut the journal back after a failed write: {e}");
                // Nothing is written until the cut succeeds (`reopen`, from `probe`).
                self.file = None;
            }
        }
    }

    /// While degraded and idle: tries the storage again.
    fn probe(&mut self) {
        if self.file.is_none() {
            if let Err(e) = self.reopen() {
                self.health.set(Some(e.to_string()));
                return;
            }
        }
        let _ = self.store(&[], true);
    }

    /// Opens the newest segment again after a failed cut, and cuts it back to the last
    /// stored byte, so no entry is ever written after a torn frame.
    fn reopen(&mut self) -> Result<(), StoreError> {
        let Some(segment) = self.segments.back() else {
            return self.open_segment(1);
        };
        let file = OpenOptions::new()
            .append(true)
            .open(&segment.path)
            .and_then(|file| {
                file.set_len(self.offset)?;
                file.sync_all()?;
                Ok(file)
            })
            .map_err(|e| StoreError::new(&segment.path, Problem::Io(e)))?;
        self.file = Some(file);
        Ok(())
    }

    fn segment_path(&self, seq: u64) -> PathBuf {
        self.dir.join(format!("{seq:020}{SEGMENT_SUFFIX}"))
    }

    /// Creates segment `seq` and makes it the open one.
    fn open_segment(&mut self, seq: u64) -> Result<(), StoreError> {
        let path = self.segment_path(seq);
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .and_then(|file| File::open(&self.dir)?.sync_all().map(|()| file))
            .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
        self.file = Some(file);
        self.offset = 0;
        self.segments.push_back(Segment {
            seq,
            path,
            marks: Marks::default(),
        });
        Ok(())
    }

    /// Syncs the full segment and continues in a new one.
    fn rotate(&mut self) -> Result<(), StoreError> {
        if let (Some(file), Some(segment)) = (&self.file, self.segments.back()) {
            file.sync_all()
                .map_err(|e| StoreError::new(&segment.path, Problem::Io(e)))?;
        }
        let next = self.segments.back().map_or(1, |s| s.seq + 1);
        self.open_segment(next)
    }

    /// Deletes every segment the snapshots cover, except the open one unless `open_too`.
    fn delete_covered(&mut self, open_too: bool) {
        let open = self.segments.len().saturating_sub(1);
        let mut kept = VecDeque::with_capacity(self.segments.len());
        for (i, segment) in std::mem::take(&mut self.segments).into_iter().enumerate() {
            if (i < open || open_too) && self.covered.covers(&segment.marks) {
                match fs::remove_file(&segment.path) {
                    Ok(()) => log::debug!("deleted covered segment {}", segment.path.display()),
                    Err(e) => {
                        log::warn!("cannot delete {}: {e}", segment.path.display());
                        kept.push_back(segment);
                    }
                }
            } else {
                kept.push_back(segment);
            }
        }
        self.segments = kept;
    }

    /// Syncs and deletes every covered segment, the open one included.
    fn close(mut self) -> Result<(), StorageError> {
        self.store(&[], true)?;
        self.file = None;
        self.delete_covered(true);
        Ok(())
    }
}

/// What to do with a torn frame at the end of the newest segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Start-up: cut it off, with one warning naming the file and offset.
    Cut,
    /// While the server runs (a space reloads): the writer may be mid-append; stop there.
    Stop,
}

/// Reads every entry of every segment in `dir`, oldest first, passing each to `visit`
/// with its file and offset. A torn tail of the newest segment is handled as `tail` says;
/// any other damage, and any error `visit` returns, stops the read with the file and
/// offset named. Returns the segments with the marks of their entries.
pub fn read(
    dir: &Path,
    tail: Tail,
    mut visit: impl FnMut(Entry) -> Result<(), String>,
) -> Result<Vec<Segment>, StoreError> {
    let mut segments = list_segments(dir)?;
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter_mut().enumerate() {
        let bytes =
            fs::read(&segment.path).map_err(|e| StoreError::new(&segment.path, Problem::Io(e)))?;
        let mut offset = 0;
        while offset < bytes.len() {
            let at = |problem| StoreError::at(&segment.path, offset as u64, problem);
            match codec::read_frame(&bytes, offset) {
                Frame::Entry { entry, end } => {
                    let mark = Marked::of(&entry);
                    visit(entry).map_err(|e| at(Problem::Inconsistent(e)))?;
                    segment.marks.note(&mark);
                    offset = end;
                }
                Frame::Torn if i == last && tail == Tail::Stop => break,
                Frame::Torn if i == last => {
                    log::warn!(
                        "{}: torn entry at offset {offset} (a crash during an append); cut off",
                        segment.path.display()
                    );
                    cut(&segment.path, offset as u64)?;
                    break;
                }
                Frame::Torn => return Err(at(Problem::Torn)),
                Frame::Corrupt(e) => return Err(at(Problem::Corrupt(e))),
            }
        }
    }
    Ok(segments)
}

/// The sequence number of a segment file named `name` (`<seq>.log`, digits only).
fn segment_seq(name: &str) -> Option<u64> {
    name.strip_suffix(SEGMENT_SUFFIX)
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

/// Whether `name` is a segment file's (`<seq>.log`).
pub fn is_segment_name(name: &str) -> bool {
    segment_seq(name).is_some()
}

/// The segment files of `dir` in order, creating `dir` if it does not exist. Other names
/// are skipped (start-up warned about them).
fn list_segments(dir: &Path) -> Result<Vec<Segment>, StoreError> {
    super::create_private_dirs(dir).map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
    let mut segments = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| StoreError::new(dir, Problem::Io(e)))? {
        let entry = entry.map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
        let seq = entry.file_name().to_str().and_then(segment_seq);
        if let (Some(seq), true) = (seq, entry.file_type().is_ok_and(|t| t.is_file())) {
            segments.push(Segment {
                seq,
                path: entry.path(),
                marks: Marks::default(),
            });
        }
    }
    segments.sort_by_key(|s| s.seq);
    Ok(segments)
}

/// Cuts the journal in `dir` back to `offset` of segment `segment` (segment 0: every
/// segment goes): later segments are deleted and that one is cut. Returns the entries cut
/// off, for the log. Used by the catch-up with the stream (§16) before recovery.
pub fn cut_back(dir: &Path, segment: u64, offset: u64) -> Result<Vec<Entry>, StoreError> {
    let mut dropped = Vec::new();
    for found in list_segments(dir)?.into_iter().filter(|s| s.seq >= segment) {
        let bytes =
            fs::read(&found.path).map_err(|e| StoreError::new(&found.path, Problem::Io(e)))?;
        let keep = if found.seq == segment { offset } else { 0 } as usize;
        let mut at = keep.min(bytes.len());
        while at < bytes.len() {
            match codec::read_frame(&bytes, at) {
                Frame::Entry { entry, end } => {
                    dropped.push(entry);
                    at = end;
                }
                _ => break,
            }
        }
        if found.seq == segment {
            cut(&found.path, keep as u64)?;
        } else {
            fs::remove_file(&found.path)
                .map_err(|e| StoreError::new(&found.path, Problem::Io(e)))?;
        }
    }
    Ok(dropped)
}

/// Writes `frames` (whole entries, as the stream holds them) as a new segment after every
/// other one, synced; its number and length.
pub fn append_segment(dir: &Path, frames: &[u8]) -> Result<(u64, u64), StoreError> {
    let seq = list_segments(dir)?.last().map_or(1, |s| s.seq + 1);
    let path = dir.join(format!("{seq:020}{SEGMENT_SUFFIX}"));
    OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut file| {
            file.write_all(frames)?;
            file.sync_all()?;
            File::open(dir)?.sync_all()
        })
        .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
    Ok((seq, frames.len() as u64))
}

/// Cuts `path` to `len` bytes, durably.
fn cut(path: &Path, len: u64) -> Result<(), StoreError> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|file| {
            file.set_len(len)?;
            file.sync_all()
        })
        .map_err(|e| StoreError::new(path, Problem::Io(e)))
}

/// A journal whose writer is a test: what a space actor queues waits until the test
/// answers it, so the actor's group commit and take-back can be driven step by step.
#[cfg(test)]
pub(crate) mod fake {
    use super::*;

    /// The test's end of a fake journal.
    pub(crate) struct Writer {
        requests: Receiver<Request>,
        /// Appends queued and not answered yet, oldest first.
        queued: VecDeque<Done>,
    }

    impl Writer {
        /// A journal of `durability` whose requests come to the returned writer.
        pub(crate) fn start(durability: Durability) -> (Journal, Writer) {
            let (requests, receiver) = mpsc::channel();
            let journal = Journal {
                requests,
                health: Arc::new(Health::new(Duration::from_secs(60))),
                durability,
            };
            let writer = Writer {
                requests: receiver,
                queued: VecDeque::new(),
            };
            (journal, writer)
        }

        /// Waits (yielding to the test's runtime, up to 5 s) until `count` appends are
        /// queued and not yet answered; flushes are answered at once.
        pub(crate) async fn queued(&mut self, count: usize) {
            let deadline = Instant::now() + Duration::from_secs(5);
            while self.queued.len() < count {
                assert!(Instant::now() < deadline, "{count} appends never came");
                match self.requests.try_recv() {
                    Ok(Request::Append { done, .. }) => self.queued.push_back(done),
                    Ok(Request::Flush(done)) => done(Ok(())),
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
                }
            }
        }

        /// How many appends were queued and not answered, once nothing new comes within
        /// 50 ms.
        pub(crate) async fn settled(&mut self) -> usize {
            let mut seen = self.queued.len();
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                while let Ok(request) = self.requests.try_recv() {
                    match request {
                        Request::Append { done, .. } => self.queued.push_back(done),
                        Request::Flush(done) => done(Ok(())),
                        _ => {}
                    }
                }
                if self.queued.len() == seen {
                    return seen;
                }
                seen = self.queued.len();
            }
        }

        /// Answers the oldest queued append with `result`.
        pub(crate) fn answer(&mut self, result: Result<(), StorageError>) {
            let done = self.queued.pop_front().expect("an append is queued");
            done(result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::mirror::Pending;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

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
}
