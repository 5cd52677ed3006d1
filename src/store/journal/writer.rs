//! The writer thread: group commit of queued entries, syncing, cutting off a failed
//! batch, rotating segments and deleting covered ones.

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Instant;

use crate::metrics::METRICS;
use crate::store::mirror::{Mirror, Mirrored};
use crate::store::{Problem, StoreError};

use super::health::Health;
use super::marks::{Mark, Marked, Marks};
use super::segments::{Segment, SEGMENT_SUFFIX};
use super::{Done, Durability, Request, StorageError, MAX_BATCH, PROBE_INTERVAL, SEGMENT_BYTES};

/// The writer thread's state.
pub(super) struct Writer {
    pub(super) dir: PathBuf,
    pub(super) durability: Durability,
    /// Every segment on disk, oldest first; the last one is open for appending.
    pub(super) segments: VecDeque<Segment>,
    pub(super) file: Option<File>,
    /// Bytes of the open segment known to be written.
    pub(super) offset: u64,
    /// Per space, the version its last stored write made: the next must start there.
    pub(super) chain: HashMap<Box<str>, u64>,
    /// What the snapshots on disk cover.
    pub(super) covered: Marks,
    pub(super) health: Arc<Health>,
    /// Where each batch is appended as well (with `--nats`: the stream).
    pub(super) mirror: Option<Box<dyn Mirror>>,
}

/// One append of a batch, waiting for the batch's outcome.
struct Waiting {
    pub(super) mark: Marked,
    pub(super) done: Done,
}

impl Writer {
    pub(super) fn run(mut self, requests: Receiver<Request>) {
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
    pub(super) fn open_segment(&mut self, seq: u64) -> Result<(), StoreError> {
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
