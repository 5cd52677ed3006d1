//! The activity of every space on disk (docs §23): an append-only, checksummed log per
//! space, read newest first by cursor, pruned by retention, and read one record at a time
//! by following that record's own entries.
//!
//! Layout: `activity/<space-id>/<first-version>.act` segments, each a run of frames in
//! the journal's layout (`store::codec`), one per write ([`Logged`]), in version order; a
//! segment is closed (synced) once it passes [`SEGMENT_BYTES`] and the next one is named by
//! the first version it will hold. A closed segment gets an index beside it from the
//! first read that needs one (not when it closes, on the space's thread: that cost
//! writes about 5 ms of p99, benches/RESULTS.md), `<first-version>.idx`: per frame, the last version of its write and its offset
//! (12 bytes a frame, `codec::encode_activity_index`). `activity/<space-id>/floor` holds
//! the version below which retention dropped everything, and how many entries came before
//! it.
//!
//! Why files of our own, not an embedded database: the log is append-only and read by
//! version ranges, exactly the journal's shape, so the journal's frames, checksums and
//! torn-tail rule serve as they are, with no second storage engine, no background
//! compaction of its own and no new dependency to audit.
//!
//! # Reading one record
//! A record's page (`GET /api/v1/tasks/{id}/activity`) does not scan the space's history:
//! every entry names the version of the record's entry before it ([`Prev`], format 11 on),
//! which is the former state's `version`, known when the entry is derived. Every write
//! that gives a record a new version touches it, and every touched record gets an entry
//! (`Logged::derive`), so these pointers form a chain through all of a record's entries.
//! The page starts from the record's `version` in the space's state ([`Query::head`]), or
//! from the entry its `before` cursor names, and follows the chain down: each hop is a
//! binary search of the segments' first versions in memory, a guess of the row in the
//! segment's index from the version (versions run nearly one a frame) checked by a read
//! of 64 rows around it, and one read of the frame. A page of 100 entries costs about
//! 100 hops, whatever the history. The newest segment has no index (it is being written):
//! a read takes it whole, once, and finds its frames' offsets from their headers.
//!
//! The chain is only followed where it is sound, and a page goes on by a walk of the log
//! below the last entry reached where it is not: a `before` that is no entry of the
//! record, a head the log does not hold yet (a read that raced a write), an entry of
//! format 9 or 10 (`prev` unknown), or a write the log missed (an append that failed) whose
//! frame does not hold the record. It stops where the log stops: at the floor, at the
//! retention's cutoff, at `since`, and at the record's creation.
//!
//! Why a back-pointer and per-segment offsets rather than a per-record index: the
//! pointer costs 1 to 4 bytes an entry in the frame it belongs to and needs no structure
//! of its own to keep, prune or repair; the offsets are derived from a closed segment that
//! never changes again, so an index is written once, by the first read of the segment,
//! without a sync, and rebuilt from its segment whenever it is missing or wrong. A per-record index (record → versions) would
//! need a table that grows with the records and is rewritten as they are, or memory per
//! record.
//!
//! # Durability
//! Activity is derived from the journal: a write's entries are appended (not synced) once
//! its journal entry is stored, and at start-up every journal entry above a log's last
//! version is derived again (`Store::recover`). So a log can only lag the journal, never
//! lead it, and it is synced before the space's snapshot lets the journal drop the
//! entries it came from ([`Log::sync`], called by `Store::save_space`). What a `kill -9`
//! leaves, at each step:
//! - in the middle of an append: a torn last frame; [`Log::open`] cuts it off, and the
//!   write's entries are derived again from the journal;
//! - after an append and before the pruning it calls for: a write more than the maximum
//!   kept above the floor; reads do not show it (they count from the newest entry as a
//!   pruning does), and the next append prunes it;
//! - after a segment is synced, or while a reader writes its index: a closed segment
//!   with no index, or a torn one. An index is derived data, written without a
//!   sync: a reader uses one only when its header names the segment's length and its size
//!   is whole rows, and it trusts a row only when the frame it points at is sound and made
//!   the version asked for; otherwise it reads the segment whole and writes the index
//!   again. So a missing, torn, zeroed or stale index costs one read of a segment, never
//!   a wrong answer;
//! - after a segment is synced and before the next segment is created (or while it is
//!   empty): the full segment is the newest, which the next appends go on writing (its
//!   index, of a shorter segment, is not used) and close again, and a read indexes anew;
//! - while the floor file is replaced: the old or the new floor (`replace_file`), both
//!   right, since the segments it drops are deleted only after it is stored; a partial
//!   temporary floor is removed at start-up (`Store::tidy`). `tests/api/activity.rs`
//!   kills taskd while it prunes at every write and plants that temporary file.
//!
//! An index is removed before its segment (pruning, `cut_above`) and written by a reader
//! only under the log's lock while its segment is a closed one of the log, so no index
//! outlives its segment or describes a segment that is still written.
//!
//! # Memory
//! A log keeps its segments' first versions (8 bytes a segment of up to
//! [`SEGMENT_BYTES`]), its floor and its last frame's numbers: a space's history, its
//! indexes included, stays on disk. A read holds at most the newest segment, one closed
//! segment and one write at a time.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::model::activity::{Action, Entry, Logged, Prev, Since};
use crate::model::record::Id;
use crate::model::Kind;

use super::codec::{self, CodecError};
use super::{create_private_dirs, replace_file, Problem, StoreError};

/// A segment is closed once it holds this many bytes.
pub const SEGMENT_BYTES: u64 = 1 << 20;
/// The folder of the logs in a data directory.
pub const ACTIVITY_DIR: &str = "activity";
const FLOOR_FILE: &str = "floor";
const SUFFIX: &str = ".act";
const INDEX_SUFFIX: &str = ".idx";
/// The bytes first read of a frame at a known offset: most frames fit.
const FRAME_GUESS: usize = 4096;
/// The rows of an index read around the guessed row of a version.
const ROW_WINDOW: usize = 64;
const DAY_MS: i64 = 86_400_000;

/// How long and how much activity is kept (docs §23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Days an entry is kept.
    pub days: u32,
    /// Entries kept per space at most.
    pub max: u64,
}

impl Default for Retention {
    fn default() -> Retention {
        Retention {
            days: 90,
            max: 1_000_000,
        }
    }
}

impl Retention {
    /// The oldest write time kept at `now`.
    fn cutoff(&self, now: i64) -> i64 {
        now.saturating_sub(i64::from(self.days).saturating_mul(DAY_MS))
    }

    /// How far past the cutoff the oldest entry may be before a pruning: a hundredth of
    /// the days.
    fn age_slack(&self) -> i64 {
        i64::from(self.days).saturating_mul(DAY_MS / 100)
    }
}

/// The logs of every space of a data directory.
#[derive(Debug)]
pub struct Activity {
    dir: PathBuf,
    retention: Retention,
    logs: Mutex<HashMap<Box<str>, Arc<Log>>>,
}

impl Activity {
    /// The logs under `data_dir`, kept as `retention` says.
    pub fn new(data_dir: &Path, retention: Retention) -> Activity {
        Activity {
            dir: data_dir.join(ACTIVITY_DIR),
            retention,
            logs: Mutex::new(HashMap::new()),
        }
    }

    /// The log of space `space`, opened (and its torn tail cut) on first use.
    pub fn log(&self, space: &str) -> Result<Arc<Log>, StoreError> {
        let mut logs = self.logs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(log) = logs.get(space) {
            return Ok(Arc::clone(log));
        }
        let log = Arc::new(Log::open(&self.dir.join(space), self.retention)?);
        logs.insert(space.into(), Arc::clone(&log));
        Ok(log)
    }

    /// Syncs the log of space `space`, if it was opened.
    pub fn sync(&self, space: &str) -> Result<(), StoreError> {
        let log = self
            .logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(space)
            .cloned();
        log.map_or(Ok(()), |log| log.sync())
    }

    /// Whether space `space` has a log on disk.
    pub fn exists(&self, space: &str) -> bool {
        self.dir.join(space).is_dir()
    }

    /// Removes the log of a deleted space.
    pub fn remove(&self, space: &str) -> Result<(), StoreError> {
        self.logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(space);
        let dir = self.dir.join(space);
        match fs::remove_dir_all(&dir) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(StoreError::new(&dir, Problem::Io(e)))
            }
            _ => Ok(()),
        }
    }
}

/// What a page of activity asks for (docs §23).
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Versions below this (`None`: all).
    pub before: Option<u64>,
    /// Versions above this.
    pub since: u64,
    /// Entries per page, finishing the last version.
    pub limit: usize,
    /// Only this kind.
    pub kind: Option<Kind>,
    /// Only this record id.
    pub id: Option<String>,
    /// Only this user's writes.
    pub user_id: Option<String>,
    /// The version of the last write that touched the record `kind` and `id` name (its
    /// `version` in the space's state), when they name one: the page then follows that
    /// record's chain of entries ([`Prev`]) from there rather than walking the log.
    pub head: Option<u64>,
}

impl Query {
    fn matches(&self, logged: &Logged, entry: &Entry) -> bool {
        self.kind.is_none_or(|k| k == entry.kind)
            && self.id.as_deref().is_none_or(|id| id == &*entry.id)
            && self.user_id.as_deref().is_none_or(|user| {
                logged
                    .actor
                    .as_ref()
                    .and_then(|a| a.user_id.as_deref())
                    .is_some_and(|u| u == user)
            })
            && entry.version > self.since
            && self.before.is_none_or(|b| entry.version < b)
    }
}

/// A page of activity: each entry with the write it belongs to, newest first.
#[derive(Debug, Default)]
pub struct Page {
    /// The entries.
    pub entries: Vec<(Arc<Logged>, Entry)>,
    /// Whether older entries match.
    pub has_more: bool,
}

/// One space's log.
#[derive(Debug)]
pub struct Log {
    dir: PathBuf,
    retention: Retention,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The first version of each segment, oldest first; the last one is open.
    segments: Vec<u64>,
    /// The open segment, its length, and whether it has unsynced bytes.
    open: Option<(File, u64, bool)>,
    /// Writes below this version were dropped.
    floor: u64,
    /// Entries logged before `floor`.
    dropped: u64,
    /// The last version logged.
    last: u64,
    /// Entries logged in all, the dropped ones included.
    total: u64,
    /// The time of the oldest write kept, when known.
    oldest_at: Option<i64>,
}

impl Log {
    /// Opens (or starts) the log in `dir`, cutting off a torn last frame.
    fn open(dir: &Path, retention: Retention) -> Result<Log, StoreError> {
        create_private_dirs(dir).map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
        let mut segments = Vec::new();
        for item in fs::read_dir(dir).map_err(|e| StoreError::new(dir, Problem::Io(e)))? {
            let item = item.map_err(|e| StoreError::new(dir, Problem::Io(e)))?;
            let name = item.file_name();
            let name = name.to_string_lossy();
            if let Some(first) = name.strip_suffix(SUFFIX).and_then(|n| n.parse().ok()) {
                segments.push(first);
            }
        }
        segments.sort_unstable();
        let (floor, dropped) = read_floor(&dir.join(FLOOR_FILE))?;
        let mut state = State {
            segments,
            open: None,
            floor,
            dropped,
            last: 0,
            total: dropped,
            oldest_at: None,
        };
        // The newest segment with a whole frame tells where the log stands; a torn tail
        // (a crash in an append) is cut off, and an empty newest segment kept.
        for first in state.segments.clone().into_iter().rev() {
            let path = segment_path(dir, first);
            let bytes = fs::read(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            let (frames, end) = codec::read_activity(&bytes);
            if end < bytes.len() {
                log::warn!(
                    "{}: cutting off {} bytes of a torn activity frame",
                    path.display(),
                    bytes.len() - end
                );
                let file = OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
                file.set_len(end as u64)
                    .and_then(|()| file.sync_all())
                    .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            }
            if let Some(logged) = frames.last() {
                state.last = logged.version;
                state.total = logged.seq + logged.entries.len() as u64;
                break;
            }
        }
        state.last = state.last.max(floor.saturating_sub(1));
        if let Some(first) = state.segments.first() {
            let path = segment_path(dir, *first);
            let bytes = fs::read(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            state.oldest_at = codec::read_activity(&bytes)
                .0
                .into_iter()
                .find(|l| l.version >= floor)
                .map(|l| l.at);
        }
        Ok(Log {
            dir: dir.to_path_buf(),
            retention,
            state: Mutex::new(state),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The last version logged.
    pub fn last(&self) -> u64 {
        self.state().last
    }

    /// Appends a write's activity, unless the log has it already; not synced (see the
    /// module's doc). Then drops what retention no longer keeps.
    pub fn append(&self, mut logged: Logged, now: i64) -> Result<(), StoreError> {
        let mut state = self.state();
        if logged.version <= state.last {
            return Ok(());
        }
        logged.seq = state.total;
        let mut frame = Vec::new();
        codec::encode_activity(&logged, &mut frame)
            .map_err(|e| StoreError::new(&self.dir, Problem::Corrupt(e)))?;
        let full = state
            .open
            .as_ref()
            .is_some_and(|(_, len, _)| *len >= SEGMENT_BYTES);
        if full || state.segments.is_empty() {
            if let Some((file, _, _)) = state.open.take() {
                let first = *state.segments.last().expect("open");
                let path = segment_path(&self.dir, first);
                file.sync_all()
                    .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
                #[cfg(feature = "failpoints")]
                fail::fail_point!("activity::closed");
                // Its index is derived data, built by the first read that needs it
                // (`reindex`): building it here, on the space's thread, cost writes' p99.
            }
            state.segments.push(logged.base + 1);
        }
        let first = *state.segments.last().expect("a segment");
        if state.open.is_none() {
            let path = segment_path(&self.dir, first);
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&path)
                .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            let len = file
                .metadata()
                .map_err(|e| StoreError::new(&path, Problem::Io(e)))?
                .len();
            state.open = Some((file, len, true));
        }
        let (file, len, dirty) = state.open.as_mut().expect("opened");
        file.write_all(&frame)
            .map_err(|e| StoreError::new(&segment_path(&self.dir, first), Problem::Io(e)))?;
        *len += frame.len() as u64;
        *dirty = true;
        state.last = logged.version;
        state.total += logged.entries.len() as u64;
        state.oldest_at = state.oldest_at.or(Some(logged.at));
        self.prune(&mut state, now)
    }

    /// Drops every write above `version`: at start-up, the writes of a journal tail that
    /// was cut (a stream that never held them, §16) are not the space's.
    pub fn cut_above(&self, version: u64) -> Result<(), StoreError> {
        let mut state = self.state();
        if state.last <= version {
            return Ok(());
        }
        state.open = None;
        while let Some(first) = state.segments.last().copied() {
            let path = segment_path(&self.dir, first);
            // An index goes before the segment it describes, so none outlives its
            // segment, and the segment kept is written again.
            remove_index(&self.dir, first)?;
            if first > version {
                fs::remove_file(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
                state.segments.pop();
                continue;
            }
            let bytes = fs::read(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            let kept: Vec<Logged> = codec::read_activity(&bytes)
                .0
                .into_iter()
                .filter(|l| l.version <= version)
                .collect();
            let mut out = Vec::new();
            for logged in &kept {
                codec::encode_activity(logged, &mut out)
                    .map_err(|e| StoreError::new(&path, Problem::Corrupt(e)))?;
            }
            replace_file(&path, |file| {
                file.write_all(&out)
                    .map_err(|e| StoreError::new(&path, Problem::Io(e)))
            })?;
            if let Some(last) = kept.last() {
                state.last = last.version;
                state.total = last.seq + last.entries.len() as u64;
                return Ok(());
            }
            break;
        }
        state.last = state.floor.saturating_sub(1);
        state.total = state.dropped;
        Ok(())
    }

    /// Syncs what was appended: called before the space's snapshot lets the journal go.
    ///
    /// The sync runs on a second handle of the open segment, without the log's lock: the
    /// space's thread appends under that lock after every durable write, and an
    /// `fdatasync` on a busy disk takes hundreds of milliseconds, which it would otherwise
    /// add to every write of the space waiting behind it. An append made meanwhile marks
    /// the segment unsynced again, for the next call; a failed sync marks it so too.
    pub fn sync(&self) -> Result<(), StoreError> {
        let (file, path) = {
            let mut state = self.state();
            let first = state.segments.last().copied();
            let (Some((file, _, dirty)), Some(first)) = (state.open.as_mut(), first) else {
                return Ok(());
            };
            if !*dirty {
                return Ok(());
            }
            let path = segment_path(&self.dir, first);
            let file = file
                .try_clone()
                .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            *dirty = false;
            (file, path)
        };
        file.sync_data().map_err(|e| {
            if let Some((_, _, dirty)) = self.state().open.as_mut() {
                *dirty = true;
            }
            StoreError::new(&path, Problem::Io(e))
        })
    }

    /// Writes the index of closed segment `first` from its `bytes`. No sync: an index is
    /// derived, and a crash that leaves it missing, short or stale makes a reader rebuild
    /// it ([`Reader`]).
    fn index(&self, first: u64, bytes: &[u8]) -> Result<(), StoreError> {
        let (rows, _) = codec::activity_offsets(bytes);
        let index = codec::encode_activity_index(bytes.len() as u64, &rows);
        let path = index_path(&self.dir, first);
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&path)
            .and_then(|mut file| file.write_all(&index))
            .map_err(|e| StoreError::new(&path, Problem::Io(e)))
    }

    /// Rebuilds the index of segment `first` from its `bytes`, for a reader that found
    /// it missing or wrong: under the lock, and only while the segment is a closed one of
    /// the log, so that no index outlives its segment or describes the open one.
    fn reindex(&self, first: u64, bytes: &[u8]) {
        let state = self.state();
        let closed = state.segments.last().is_some_and(|last| *last > first)
            && state.segments.binary_search(&first).is_ok();
        if closed {
            if let Err(e) = self.index(first, bytes) {
                log::warn!("{e}; the segment is read whole meanwhile");
            }
        }
    }

    /// A reader of the log as it is now, at `now`.
    fn reader(&self, now: i64) -> Reader<'_> {
        let state = self.state();
        Reader {
            log: self,
            segments: state.segments.clone(),
            floor: state.floor,
            last: state.last,
            cutoff: self.retention.cutoff(now),
            first_seq: state.total.saturating_sub(self.retention.max),
            newest: None,
            closed: None,
            write: None,
        }
    }

    /// Every kept write, newest first, from the segment holding versions below `before`,
    /// until `visit` returns false.
    fn walk(
        &self,
        before: Option<u64>,
        now: i64,
        visit: impl FnMut(Arc<Logged>) -> bool,
    ) -> Result<(), StoreError> {
        self.reader(now).walk(before, visit)
    }

    /// A page of the kept entries that `query` asks for, at `now`: one record's by its
    /// chain when the query names it and its head, else by a walk of the log.
    pub fn page(&self, query: &Query, now: i64) -> Result<Page, StoreError> {
        let mut reader = self.reader(now);
        if let (Some(kind), Some(id), Some(head)) = (query.kind, &query.id, query.head) {
            return reader.chain(query, kind, id, head);
        }
        reader.scan(query)
    }

    /// The kept write that made `version`, if any.
    pub fn write_of(&self, version: u64, now: i64) -> Result<Option<Arc<Logged>>, StoreError> {
        self.reader(now).write_at(version)
    }

    /// Which records that `write` created, deleted or restored a later write deleted or
    /// restored: a walk over the writes since it, newest first.
    pub fn since(&self, write: &Logged, now: i64) -> Result<Since, StoreError> {
        let toggles = |action| matches!(action, Action::Deleted | Action::Restored);
        let wanted: HashSet<(Kind, Id)> = (write.entries.iter())
            .filter(|e| toggles(e.action) || e.action == Action::Created)
            .map(|e| (e.kind, e.id.clone()))
            .collect();
        let mut since = Since {
            read_to: self.last(),
            ..Since::default()
        };
        if wanted.is_empty() {
            return Ok(since);
        }
        self.walk(None, now, |later| {
            if later.version <= write.version {
                return false;
            }
            for entry in later.entries.iter().filter(|e| toggles(e.action)) {
                let record = (entry.kind, entry.id.clone());
                if wanted.contains(&record) {
                    since.toggled.insert(record);
                }
            }
            true
        })?;
        Ok(since)
    }

    /// Drops the oldest writes that retention no longer keeps: a new floor first, then
    /// the segments wholly below it.
    fn prune(&self, state: &mut State, now: i64) -> Result<(), StoreError> {
        let kept = state.total - state.dropped;
        let cutoff = self.retention.cutoff(now);
        // Pruning reads the oldest segments, on the space's thread; so a log prunes a
        // hundredth of the maximum, or of the days, at a time. Without the second, an old
        // space written all day would prune at every write, since some entry ages past
        // the cutoff between any two writes. What waits to be pruned is never read: a
        // read stops at the cutoff (`walk`).
        let slack = self.retention.max / 100;
        let age_slack = self.retention.age_slack();
        let over = kept > self.retention.max;
        if !over
            && state
                .oldest_at
                .is_none_or(|at| at >= cutoff.saturating_sub(age_slack))
        {
            return Ok(());
        }
        let target = self.retention.max.saturating_sub(slack);
        let (mut floor, mut dropped) = (state.floor, state.dropped);
        let mut oldest_at = None;
        'segments: for first in &state.segments {
            let path = segment_path(&self.dir, *first);
            let bytes = fs::read(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
            for logged in codec::read_activity(&bytes).0 {
                if logged.version < floor {
                    continue;
                }
                let left = state.total - logged.seq;
                if left <= target && logged.at >= cutoff {
                    oldest_at = Some(logged.at);
                    break 'segments;
                }
                floor = logged.version + 1;
                dropped = logged.seq + logged.entries.len() as u64;
            }
        }
        state.oldest_at = oldest_at;
        if floor == state.floor {
            return Ok(());
        }
        let floor_path = self.dir.join(FLOOR_FILE);
        replace_file(&floor_path, |out| {
            out.write_all(&floor.to_le_bytes())
                .and_then(|()| out.write_all(&dropped.to_le_bytes()))
                .map_err(|e| StoreError::new(&floor_path, Problem::Io(e)))
        })?;
        state.floor = floor;
        state.dropped = dropped;
        // A segment is wholly dropped when the next one starts at or below the floor.
        while state.segments.len() > 1 && state.segments[1] <= floor {
            let first = state.segments.remove(0);
            // The index first: a kill between the two leaves a dropped segment without
            // one, which the next pruning deletes.
            remove_index(&self.dir, first)?;
            let path = segment_path(&self.dir, first);
            fs::remove_file(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
        }
        Ok(())
    }
}

/// One read of a log: its segments, floor and last version as they were when the read
/// began (taken under the lock; the files are read without it), and what it holds of
/// them, which is bounded whatever the history: the newest segment whole (it is being
/// written, so it has no index), the files or the bytes of the closed segment it read
/// last, and the write it decoded last.
struct Reader<'a> {
    log: &'a Log,
    segments: Vec<u64>,
    floor: u64,
    last: u64,
    cutoff: i64,
    /// Writes logged after this many entries are within the maximum: between prunings
    /// every write above the floor is, but a kill after an append and before its pruning
    /// leaves one more, which a read does not show either.
    first_seq: u64,
    newest: Option<Loaded>,
    closed: Option<(u64, Closed)>,
    write: Option<Arc<Logged>>,
}

/// A segment read whole: its bytes, and each whole frame's last version and offset.
struct Loaded {
    bytes: Vec<u8>,
    rows: Vec<(u64, u32)>,
}

impl Loaded {
    fn new(bytes: Vec<u8>) -> Loaded {
        let (rows, _) = codec::activity_offsets(&bytes);
        Loaded { bytes, rows }
    }

    /// The write of this segment that made `version`, if any.
    fn find(&self, version: u64) -> Option<Logged> {
        let at = self.rows.partition_point(|(v, _)| *v < version);
        let (_, offset) = self.rows.get(at)?;
        let (logged, _) = codec::read_activity_frame(&self.bytes[*offset as usize..])?;
        (logged.base < version).then_some(logged)
    }
}

/// A closed segment as a reader holds it.
enum Closed {
    /// Its file and its index's: `rows` rows, the last of them for version `last`.
    Indexed {
        file: File,
        index: File,
        rows: usize,
        last: u64,
    },
    /// Read whole, to rebuild its index.
    Loaded(Loaded),
}

impl Closed {
    /// Segment `first` with its index, or read whole (its index rebuilt) when the index
    /// is missing or is not of this segment as it is; `None` when the segment is gone.
    fn open(log: &Log, first: u64) -> Result<Option<Closed>, StoreError> {
        let path = segment_path(&log.dir, first);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::new(&path, Problem::Io(e))),
        };
        let len = file
            .metadata()
            .map_err(|e| StoreError::new(&path, Problem::Io(e)))?
            .len();
        if let Some((index, rows)) = open_index(&log.dir, first, len) {
            let mut row = [0; codec::INDEX_ROW_LEN];
            let at = (codec::INDEX_HEADER_LEN + (rows - 1) * codec::INDEX_ROW_LEN) as u64;
            if index.read_exact_at(&mut row, at).is_ok() {
                let (last, _) = codec::read_index_row(&row);
                return Ok(Some(Closed::Indexed {
                    file,
                    index,
                    rows,
                    last,
                }));
            }
        }
        Closed::rebuild(log, first)
    }

    /// Segment `first` read whole, its index written again.
    fn rebuild(log: &Log, first: u64) -> Result<Option<Closed>, StoreError> {
        let Some(bytes) = read_segment(&log.dir, first)? else {
            return Ok(None);
        };
        log.reindex(first, &bytes);
        Ok(Some(Closed::Loaded(Loaded::new(bytes))))
    }

    /// The write of segment `first` that made `version`, if its index finds one and its
    /// frame is sound and made it; `None` otherwise, whether the index is wrong or the
    /// version is not there (the caller rebuilds and looks again).
    fn find(&self, dir: &Path, first: u64, version: u64) -> Result<Option<Logged>, StoreError> {
        let (file, index, rows, last) = match self {
            Closed::Loaded(loaded) => return Ok(loaded.find(version)),
            Closed::Indexed {
                file,
                index,
                rows,
                last,
            } => (file, index, *rows, *last),
        };
        let io = |e| StoreError::new(&index_path(dir, first), Problem::Io(e));
        let row = |at: usize| -> Result<(u64, u32), StoreError> {
            let mut bytes = [0; codec::INDEX_ROW_LEN];
            let offset = codec::INDEX_HEADER_LEN + at * codec::INDEX_ROW_LEN;
            index.read_exact_at(&mut bytes, offset as u64).map_err(io)?;
            Ok(codec::read_index_row(&bytes))
        };
        // Versions run nearly one a frame, so the row is guessed from the version and a
        // window of rows around the guess read at once; a binary search of the rest
        // when the window misses.
        let span = last.saturating_sub(first).saturating_add(1);
        let guess = (u128::from(version.saturating_sub(first)) * rows as u128 / u128::from(span))
            .min(rows as u128 - 1) as usize;
        let start = guess
            .saturating_sub(ROW_WINDOW / 2)
            .min(rows.saturating_sub(ROW_WINDOW));
        let count = ROW_WINDOW.min(rows - start);
        let mut window = vec![0; count * codec::INDEX_ROW_LEN];
        let offset = codec::INDEX_HEADER_LEN + start * codec::INDEX_ROW_LEN;
        index
            .read_exact_at(&mut window, offset as u64)
            .map_err(io)?;
        let window: Vec<(u64, u32)> = window
            .chunks_exact(codec::INDEX_ROW_LEN)
            .map(|row| codec::read_index_row(row.try_into().expect("a row")))
            .collect();
        let i = window.partition_point(|(v, _)| *v < version);
        let at = if i < count && (i > 0 || start == 0) {
            start + i
        } else {
            let (mut low, mut high) = if i == count {
                (start + count, rows)
            } else {
                (0, start)
            };
            while low < high {
                let middle = low + (high - low) / 2;
                if row(middle)?.0 < version {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            low
        };
        if at == rows {
            return Ok(None);
        }
        let (made, offset) = match window.get(at.wrapping_sub(start)) {
            Some(row) => *row,
            None => row(at)?,
        };
        let frame = read_frame_at(file, u64::from(offset))
            .map_err(|e| StoreError::new(&segment_path(dir, first), Problem::Io(e)))?;
        Ok(frame
            .and_then(|bytes| codec::read_activity_frame(&bytes))
            .map(|(logged, _)| logged)
            .filter(|logged| logged.version == made && logged.base < version))
    }
}

/// The index of segment `first` and its rows, if it is whole and made for the segment
/// as it is now (`len` bytes).
fn open_index(dir: &Path, first: u64, len: u64) -> Option<(File, usize)> {
    let index = File::open(index_path(dir, first)).ok()?;
    let size = index.metadata().ok()?.len() as usize;
    let mut header = [0; codec::INDEX_HEADER_LEN];
    index.read_exact_at(&mut header, 0).ok()?;
    let body = size.checked_sub(codec::INDEX_HEADER_LEN)?;
    let whole = body % codec::INDEX_ROW_LEN == 0 && body > 0;
    (whole && codec::read_index_header(&header) == Some(len))
        .then_some((index, body / codec::INDEX_ROW_LEN))
}

/// The frame at `offset` of a segment, if its length field is sound and the file holds
/// that much.
fn read_frame_at(file: &File, offset: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = vec![0; FRAME_GUESS];
    let mut read = 0;
    loop {
        let n = file.read_at(&mut bytes[read..], offset + read as u64)?;
        read += n;
        if n == 0 || read == bytes.len() {
            if read < codec::FRAME_HEADER_LEN {
                return Ok(None);
            }
            let Some(len) = codec::activity_frame_len(&bytes) else {
                return Ok(None);
            };
            if len <= read {
                bytes.truncate(len);
                return Ok(Some(bytes));
            }
            if n == 0 {
                return Ok(None);
            }
            bytes.resize(len, 0);
        }
    }
}

impl Reader<'_> {
    /// The oldest version the log may hold an entry of.
    fn oldest(&self) -> u64 {
        self.floor.max(self.segments.first().copied().unwrap_or(0))
    }

    /// The newest segment, read whole on first use.
    fn newest(&mut self) -> Result<Option<&Loaded>, StoreError> {
        let Some(first) = self.segments.last().copied() else {
            return Ok(None);
        };
        if self.newest.is_none() {
            let bytes = read_segment(&self.log.dir, first)?.unwrap_or_default();
            self.newest = Some(Loaded::new(bytes));
        }
        Ok(self.newest.as_ref())
    }

    /// The write that made `version`, if the log holds it above the floor (its time is
    /// not checked): one binary search of the segments in memory, and in a closed
    /// segment a few reads of its index and one of the frame.
    fn find(&mut self, version: u64) -> Result<Option<Arc<Logged>>, StoreError> {
        if version < self.floor || version > self.last {
            return Ok(None);
        }
        if let Some(write) = self.write.as_ref() {
            if write.base < version && version <= write.version {
                return Ok(Some(Arc::clone(write)));
            }
        }
        let at = self.segments.partition_point(|first| *first <= version);
        if at == 0 {
            return Ok(None);
        }
        let first = self.segments[at - 1];
        let found = if at == self.segments.len() {
            self.newest()?.and_then(|newest| newest.find(version))
        } else {
            if self.closed.as_ref().is_none_or(|(f, _)| *f != first) {
                self.closed = Closed::open(self.log, first)?.map(|closed| (first, closed));
            }
            match &self.closed {
                None => None,
                Some((_, closed)) => match closed.find(&self.log.dir, first, version)? {
                    Some(logged) => Some(logged),
                    None if matches!(closed, Closed::Loaded(_)) => None,
                    None => {
                        // The index is wrong (or the version is not there): read the
                        // segment itself, which rebuilds the index.
                        self.closed = Closed::rebuild(self.log, first)?.map(|c| (first, c));
                        match &self.closed {
                            Some((_, closed)) => closed.find(&self.log.dir, first, version)?,
                            None => None,
                        }
                    }
                },
            }
        };
        let found = found.map(Arc::new);
        if let Some(write) = &found {
            self.write = Some(Arc::clone(write));
        }
        Ok(found)
    }

    /// Whether retention keeps `logged`, found above the floor.
    fn keeps(&self, logged: &Logged) -> bool {
        logged.at >= self.cutoff && logged.seq >= self.first_seq
    }

    /// The kept write that made `version`, if any.
    fn write_at(&mut self, version: u64) -> Result<Option<Arc<Logged>>, StoreError> {
        Ok(self.find(version)?.filter(|logged| self.keeps(logged)))
    }

    /// The entry of record `id` of `kind` at `version` and its write, if the log holds it.
    fn entry(
        &mut self,
        version: u64,
        kind: Kind,
        id: &str,
    ) -> Result<Option<(Arc<Logged>, Entry)>, StoreError> {
        let Some(logged) = self.find(version)? else {
            return Ok(None);
        };
        let entry = (logged.entries.iter())
            .find(|e| e.version == version && e.kind == kind && &*e.id == id)
            .cloned();
        Ok(entry.map(|entry| (logged, entry)))
    }

    /// Every kept write, newest first, from the segment holding versions below `before`,
    /// until `visit` returns false: each segment read whole, its frames decoded newest
    /// first as far as the walk goes.
    fn walk(
        &mut self,
        before: Option<u64>,
        mut visit: impl FnMut(Arc<Logged>) -> bool,
    ) -> Result<(), StoreError> {
        let start = match before {
            Some(b) => self.segments.partition_point(|first| *first < b),
            None => self.segments.len(),
        };
        let (floor, cutoff, first_seq) = (self.floor, self.cutoff, self.first_seq);
        for at in (0..start).rev() {
            let loaded;
            let segment = if at + 1 == self.segments.len() {
                self.newest()?.expect("a segment")
            } else {
                match read_segment(&self.log.dir, self.segments[at])? {
                    Some(bytes) => {
                        loaded = Loaded::new(bytes);
                        &loaded
                    }
                    None => return Ok(()), // pruned
                }
            };
            // A frame whose last version is `before` or more may still hold versions
            // below it; the ones after it do not.
            let end = match before {
                Some(b) => segment.rows.partition_point(|(v, _)| *v < b) + 1,
                None => segment.rows.len(),
            };
            for (_, offset) in segment.rows[..end.min(segment.rows.len())].iter().rev() {
                let Some((logged, _)) =
                    codec::read_activity_frame(&segment.bytes[*offset as usize..])
                else {
                    continue;
                };
                if logged.version < floor || logged.at < cutoff || logged.seq < first_seq {
                    return Ok(());
                }
                if before.is_some_and(|b| logged.base + 1 >= b) {
                    continue;
                }
                if !visit(Arc::new(logged)) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// A page of what `query` asks for by a walk of the log.
    fn scan(&mut self, query: &Query) -> Result<Page, StoreError> {
        let mut page = Page::default();
        let mut finishing: Option<u64> = None;
        self.walk(query.before, |logged| {
            if logged.version <= query.since {
                return false;
            }
            for entry in logged.entries.iter().rev() {
                if !query.matches(&logged, entry) {
                    continue;
                }
                if let Some(v) = finishing {
                    if entry.version != v {
                        page.has_more = true;
                        return false;
                    }
                }
                if page.entries.len() >= query.limit && finishing.is_none() {
                    page.has_more = true;
                    return false;
                }
                page.entries.push((Arc::clone(&logged), entry.clone()));
                if page.entries.len() >= query.limit {
                    finishing = Some(entry.version);
                }
            }
            true
        })?;
        // Within a version: kind, then id (they were stored so; the walk reversed them).
        let mut start = 0;
        while start < page.entries.len() {
            let version = page.entries[start].1.version;
            let end = start
                + page.entries[start..]
                    .iter()
                    .take_while(|(_, e)| e.version == version)
                    .count();
            page.entries[start..end].reverse();
            start = end;
        }
        Ok(page)
    }

    /// A page of the entries of record `id` of `kind` that `query` asks for, by its chain:
    /// from its last write `head` (or from the entry at `query.before`, when it is the
    /// record's, as a page's cursor is) down the entries' [`Prev`] versions, a write read
    /// a hop. Where the chain cannot be followed (a `before` that is no entry of the
    /// record, a head the log does not hold yet, an entry of format 9 or 10, a write the log
    /// missed) the page goes on by a walk below the last entry it reached.
    fn chain(
        &mut self,
        query: &Query,
        kind: Kind,
        id: &str,
        head: u64,
    ) -> Result<Page, StoreError> {
        let mut page = Page::default();
        // Entries below `upper` are still to be read; `next` says which is the newest.
        let (mut upper, mut next) = match query.before {
            Some(before) if before <= head => match self.entry(before, kind, id)? {
                Some((_, entry)) => (before, entry.prev),
                None => return self.rest(query, before, page),
            },
            before => (before.unwrap_or(u64::MAX), Prev::At(head)),
        };
        loop {
            let version = match next {
                Prev::First => break,
                Prev::At(version) if version < upper => version,
                Prev::At(_) | Prev::Unknown => return self.rest(query, upper, page),
            };
            if version <= query.since || version < self.oldest() {
                break;
            }
            let Some((logged, entry)) = self.entry(version, kind, id)? else {
                return self.rest(query, upper, page);
            };
            if !self.keeps(&logged) {
                break;
            }
            next = entry.prev;
            if query.matches(&logged, &entry) {
                if page.entries.len() >= query.limit {
                    page.has_more = true;
                    break;
                }
                page.entries.push((logged, entry));
            }
            upper = version;
        }
        Ok(page)
    }

    /// `page` of a record's chain finished by a walk of the log below `upper`.
    fn rest(&mut self, query: &Query, upper: u64, mut page: Page) -> Result<Page, StoreError> {
        let left = query.limit - page.entries.len();
        let below = Query {
            before: Some(upper),
            limit: left.max(1),
            head: None,
            ..query.clone()
        };
        let rest = self.scan(&below)?;
        page.has_more = if left == 0 {
            !rest.entries.is_empty()
        } else {
            rest.has_more
        };
        if left > 0 {
            page.entries.extend(rest.entries);
        }
        Ok(page)
    }
}

/// Whether `name` is one a log folder holds: a segment, an index or the floor file.
pub fn is_log_name(name: &str) -> bool {
    name == FLOOR_FILE
        || [SUFFIX, INDEX_SUFFIX].into_iter().any(|suffix| {
            name.strip_suffix(suffix)
                .is_some_and(|n| n.len() == 20 && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

fn segment_path(dir: &Path, first: u64) -> PathBuf {
    dir.join(format!("{first:020}{SUFFIX}"))
}

fn index_path(dir: &Path, first: u64) -> PathBuf {
    dir.join(format!("{first:020}{INDEX_SUFFIX}"))
}

/// Removes the index of segment `first`, if it has one.
fn remove_index(dir: &Path, first: u64) -> Result<(), StoreError> {
    let path = index_path(dir, first);
    match fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(StoreError::new(&path, Problem::Io(e)))
        }
        _ => Ok(()),
    }
}

/// The whole of segment `first`; `None` when it is gone (pruned since it was listed).
fn read_segment(dir: &Path, first: u64) -> Result<Option<Vec<u8>>, StoreError> {
    let path = segment_path(dir, first);
    match fs::read(&path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::new(&path, Problem::Io(e))),
    }
}

/// The floor file: the version below which everything was dropped, and how many entries
/// that was; `(0, 0)` when there is none.
fn read_floor(path: &Path) -> Result<(u64, u64), StoreError> {
    match fs::read(path) {
        Ok(bytes) if bytes.len() == 16 => Ok((
            u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes")),
        )),
        Ok(_) => Err(StoreError::new(
            path,
            Problem::Corrupt(CodecError::Length {
                declared: 16,
                actual: 0,
            }),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((0, 0)),
        Err(e) => Err(StoreError::new(path, Problem::Io(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::activity::{Action, Actor, Entry, FieldChange, Logged, Via};
    use crate::model::record::Value;
    use crate::model::validate::{parse_changes, Mode};
    use crate::model::{Command, Op, Space};
    use serde_json::json;

    /// A write of one entry at `version`, made at `at`.
    fn write(version: u64, at: i64) -> Logged {
        Logged {
            base: version - 1,
            version,
            seq: 0,
            at,
            actor: None,
            revert_of: None,
            entries: vec![Entry {
                version,
                kind: Kind::Task,
                id: "t".into(),
                action: Action::Deleted,
                cascade: false,
                deleted: true,
                changes: Vec::new(),
                prev: Prev::At(version - 1),
            }],
        }
    }

    fn floor(dir: &Path) -> (u64, u64) {
        read_floor(&dir.join(FLOOR_FILE)).unwrap()
    }

    #[test]
    fn an_old_log_written_steadily_prunes_a_hundredth_of_its_days_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let retention = Retention {
            days: 100,
            max: u64::MAX,
        };
        let log = Log::open(dir.path(), retention).unwrap();
        // Ten writes a day for 300 days, each appended at its own time.
        let step = DAY_MS / 10;
        let (mut floors, mut last) = (0, (0, 0));
        for version in 1..=3_000 {
            let at = version as i64 * step;
            log.append(write(version, at), at).unwrap();
            let now = floor(dir.path());
            if now != last {
                floors += 1;
                last = now;
            }
        }
        // From day 101 on, a pruning comes once the oldest entry is a day (a hundredth)
        // past the cutoff, so every 1.1 days at this step: about 180 floors, not 2,000.
        assert!((170..=200).contains(&floors), "{floors} floors");
        // What is read is exactly what is not older than 100 days.
        let now = 3_000 * step;
        let page = log
            .page(
                &Query {
                    limit: 5000,
                    ..Query::default()
                },
                now,
            )
            .unwrap();
        let oldest = page.entries.last().unwrap().1.version;
        assert_eq!(oldest, 2_000);
        let mut query = Query {
            limit: 5000,
            before: Some(oldest),
            ..Query::default()
        };
        assert!(log.page(&query, now).unwrap().entries.is_empty());
        query.before = None;
        assert!(log.write_of(1_999, now).unwrap().is_none());
        assert!(log.write_of(2_000, now).unwrap().is_some());
    }

    #[test]
    fn a_log_over_its_maximum_keeps_the_newest_and_survives_a_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let retention = Retention { days: 90, max: 500 };
        let log = Log::open(dir.path(), retention).unwrap();
        for version in 1..=2_000 {
            log.append(write(version, 1_000), 1_000).unwrap();
        }
        let kept = |log: &Log| {
            let query = Query {
                limit: 1000,
                ..Query::default()
            };
            let page = log.page(&query, 1_000).unwrap();
            page.entries
                .iter()
                .map(|(_, e)| e.version)
                .collect::<Vec<_>>()
        };
        let before = kept(&log);
        assert!((495..=500).contains(&before.len()), "{}", before.len());
        assert_eq!(before[0], 2_000);
        assert_eq!(*before.last().unwrap(), 2_001 - before.len() as u64);
        drop(log);
        let log = Log::open(dir.path(), retention).unwrap();
        assert_eq!(kept(&log), before);
        assert_eq!(log.last(), 2_000);
    }

    const KEEP_ALL: Retention = Retention {
        days: 36_500,
        max: u64::MAX,
    };

    /// The records' last versions, as a space would know them, for writes made by
    /// [`update`].
    type Heads = HashMap<String, u64>;

    /// A write of one update of task `id` at `version` by user `user`, with `pad` bytes of
    /// name so that segments fill fast; its entry points at the record's last one.
    fn update(heads: &mut Heads, version: u64, id: &str, user: &str, pad: usize) -> Logged {
        let prev = heads
            .insert(id.to_string(), version)
            .map_or(Prev::First, Prev::At);
        Logged {
            base: version - 1,
            version,
            seq: 0,
            at: 1_000,
            actor: Some(Actor {
                user_id: Some(user.into()),
                token_id: None,
                via: Via::Api,
            }),
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
                    to: Value::Text("x".repeat(pad).into()),
                }],
                prev,
            }],
        }
    }

    /// (version, id) of a page's entries, and whether it has more.
    fn rows(page: &Page) -> (Vec<(u64, String)>, bool) {
        let rows = page.entries.iter();
        let rows = rows.map(|(_, e)| (e.version, e.id.to_string())).collect();
        (rows, page.has_more)
    }

    /// Pages through record `id` of a log with `query` (its head set to `head`) both by
    /// its chain and by a walk, asserting they agree page by page; every entry read.
    fn pages_agree(log: &Log, query: &Query, id: &str, head: u64, now: i64) -> Vec<u64> {
        let mut query = Query {
            kind: Some(query.kind.unwrap_or(Kind::Task)),
            id: Some(id.to_string()),
            head: Some(head),
            ..query.clone()
        };
        let mut read = Vec::new();
        loop {
            let chained = rows(&log.page(&query, now).unwrap());
            let walked = rows(
                &log.page(
                    &Query {
                        head: None,
                        ..query.clone()
                    },
                    now,
                )
                .unwrap(),
            );
            assert_eq!(chained, walked, "{id} {query:?}");
            read.extend(chained.0.iter().map(|(v, _)| *v));
            if !chained.1 {
                return read;
            }
            query.before = chained.0.last().map(|(v, _)| *v);
        }
    }

    /// Fills a log with `writes` writes of `pad` bytes over seven records, record "rare"
    /// written only at versions 1, `writes / 2` and `writes`; their heads.
    fn fill(log: &Log, writes: u64, pad: usize) -> Heads {
        let mut heads = Heads::new();
        for version in 1..=writes {
            let id = match version {
                v if v == 1 || v == writes / 2 || v == writes => "rare".to_string(),
                v => format!("t{}", v % 6),
            };
            let user = if version % 3 == 0 { "u1" } else { "u2" };
            log.append(update(&mut heads, version, &id, user, pad), 1_000)
                .unwrap();
        }
        heads
    }

    #[test]
    fn a_record_page_follows_its_chain_across_segments_as_a_walk_would_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open(dir.path(), KEEP_ALL).unwrap();
        let heads = fill(&log, 3_000, 1_000);
        let segments = log.state().segments.clone();
        assert!(segments.len() >= 3, "{segments:?}");
        for (id, head) in &heads {
            for (limit, since, user) in [
                (1, 0, None),
                (7, 1_200, None),
                (100, 0, Some("u1")),
                (1000, 0, None),
            ] {
                let query = Query {
                    limit,
                    since,
                    user_id: user.map(str::to_string),
                    ..Query::default()
                };
                let read = pages_agree(&log, &query, id, *head, 1_000);
                assert!(!read.is_empty() || user.is_some(), "{id}");
            }
        }
        // The rarely written record: three entries far apart.
        let query = Query {
            limit: 10,
            ..Query::default()
        };
        assert_eq!(
            pages_agree(&log, &query, "rare", 3_000, 1_000),
            [3_000, 1_500, 1]
        );
        // The chain reads the record's writes only: with a segment it has no entry in
        // gone, its page is whole where a walk stops at the hole.
        let hole = (1..segments.len() - 1)
            .find(|at| !(segments[*at]..segments[at + 1]).contains(&1_500))
            .unwrap();
        fs::remove_file(segment_path(dir.path(), segments[hole])).unwrap();
        let query = Query {
            limit: 10,
            kind: Some(Kind::Task),
            id: Some("rare".into()),
            head: Some(3_000),
            ..Query::default()
        };
        let chained = rows(&log.page(&query, 1_000).unwrap()).0;
        let versions: Vec<u64> = chained.iter().map(|(v, _)| *v).collect();
        assert_eq!(versions, [3_000, 1_500, 1]);
        let walked = rows(
            &log.page(
                &Query {
                    head: None,
                    ..query
                },
                1_000,
            )
            .unwrap(),
        )
        .0;
        assert!(walked.len() < 3, "{walked:?}");
    }

    /// Every write the log holds, found by version as `write_of` finds it.
    fn every_write_is_found(log: &Log, last: u64) {
        for version in 1..=last {
            let found = log.write_of(version, 1_000).unwrap().unwrap();
            assert!(
                found.base < version && version <= found.version,
                "{version}"
            );
        }
        assert!(log.write_of(last + 1, 1_000).unwrap().is_none());
    }

    #[test]
    fn a_missing_torn_zeroed_or_foreign_index_is_rebuilt_and_reads_stay_right() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open(dir.path(), KEEP_ALL).unwrap();
        fill(&log, 3_000, 1_000);
        let segments = log.state().segments.clone();
        let (first, other) = (segments[0], segments[1]);
        let index = index_path(dir.path(), first);
        assert!(
            !index.exists(),
            "a closed segment is indexed by the first read"
        );
        every_write_is_found(&log, 3_000);
        let made = fs::read(&index).unwrap();
        assert!(!index_path(dir.path(), *segments.last().unwrap()).exists());
        let damage: [(&str, &dyn Fn()); 4] = [
            ("missing", &|| fs::remove_file(&index).unwrap()),
            ("torn", &|| {
                let file = OpenOptions::new().write(true).open(&index).unwrap();
                file.set_len(made.len() as u64 / 2 + 5).unwrap();
            }),
            ("zeroed", &|| {
                let mut zeroed = made.clone();
                zeroed[codec::INDEX_HEADER_LEN..].fill(0);
                fs::write(&index, zeroed).unwrap();
            }),
            ("foreign", &|| {
                fs::copy(index_path(dir.path(), other), &index).unwrap();
            }),
        ];
        for (what, damage) in damage {
            damage();
            every_write_is_found(&log, 3_000);
            assert!(fs::read(&index).unwrap() == made, "{what}");
        }
        // A log reopened (as after a crash) rebuilds what it reads, the same way.
        for first in &segments {
            let _ = fs::remove_file(index_path(dir.path(), *first));
        }
        drop(log);
        let log = Log::open(dir.path(), KEEP_ALL).unwrap();
        every_write_is_found(&log, 3_000);
        assert!(fs::read(&index).unwrap() == made);
    }

    #[test]
    fn a_crash_at_a_segment_rollover_leaves_a_log_that_reads_right() {
        // Write until the first rollover has closed a segment; keep each step's files.
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open(dir.path(), KEEP_ALL).unwrap();
        let mut written = Heads::new();
        let mut version = 0;
        while log.state().segments.len() < 2 {
            version += 1;
            let id = format!("t{}", version % 3);
            log.append(update(&mut written, version, &id, "u", 1_000), 1_000)
                .unwrap();
        }
        let segments = log.state().segments.clone();
        let (first, next) = (segments[0], segments[1]);
        every_write_is_found(&log, version);
        drop(log);
        let full = fs::read(segment_path(dir.path(), first)).unwrap();
        let index = fs::read(index_path(dir.path(), first)).unwrap();
        // What a kill leaves at each step of the rollover: the closed segment without its
        // index (killed before or while it was written), a torn index, and the next
        // segment not made or made empty.
        let leftovers: [(&str, Option<&[u8]>, bool); 4] = [
            ("no index, no next segment", None, false),
            (
                "torn index, no next segment",
                Some(&index[..index.len() - 7]),
                false,
            ),
            ("index, no next segment", Some(&index), false),
            ("index, empty next segment", Some(&index), true),
        ];
        for (what, leftover_index, next_made) in leftovers {
            let crashed = tempfile::tempdir().unwrap();
            fs::write(segment_path(crashed.path(), first), &full).unwrap();
            if let Some(bytes) = leftover_index {
                fs::write(index_path(crashed.path(), first), bytes).unwrap();
            }
            if next_made {
                fs::write(segment_path(crashed.path(), next), b"").unwrap();
            }
            let log = Log::open(crashed.path(), KEEP_ALL).unwrap();
            assert_eq!(log.last(), version - 1, "{what}");
            every_write_is_found(&log, version - 1);
            // The write the crash lost is logged again (from the journal), and more; the
            // records' last entries are the three writes before it.
            let mut heads: Heads = (version - 3..version)
                .map(|v| (format!("t{}", v % 3), v))
                .collect();
            for v in version..version + 50 {
                let id = format!("t{}", v % 3);
                log.append(update(&mut heads, v, &id, "u", 1_000), 1_000)
                    .unwrap();
            }
            every_write_is_found(&log, version + 49);
            // The segment was written on, then closed again: its index is of it as it is.
            let segment = fs::read(segment_path(crashed.path(), first)).unwrap();
            let rows = codec::activity_offsets(&segment).0;
            let rebuilt = codec::encode_activity_index(segment.len() as u64, &rows);
            let written = fs::read(index_path(crashed.path(), first)).unwrap();
            assert!(written == rebuilt, "{what}");
            for (id, head) in &heads {
                let query = Query {
                    limit: 20,
                    ..Query::default()
                };
                pages_agree(&log, &query, id, *head, 1_000);
            }
        }
    }

    /// Copies the files of folder `from` into `to`: a golden log is read from a copy,
    /// which opening may cut and reading may index.
    fn copy_files(from: &Path, to: &Path) {
        for file in fs::read_dir(from).unwrap() {
            let file = file.unwrap();
            fs::copy(file.path(), to.join(file.file_name())).unwrap();
        }
    }

    /// The log of the golden directory `version` whose space has the most activity,
    /// copied.
    fn golden_log(version: &str) -> tempfile::TempDir {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/{version}/activity"));
        let size = |dir: &Path| -> u64 {
            let files = fs::read_dir(dir).unwrap();
            files.map(|f| f.unwrap().metadata().unwrap().len()).sum()
        };
        let spaces = fs::read_dir(fixture).unwrap().map(|d| d.unwrap().path());
        let busiest = spaces.max_by_key(|dir| size(dir)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        copy_files(&busiest, dir.path());
        dir
    }

    #[test]
    fn a_chain_into_entries_of_formats_9_and_10_goes_on_by_a_walk() {
        for version in ["v9", "v10"] {
            let dir = golden_log(version);
            let log = Log::open(dir.path(), KEEP_ALL).unwrap();
            let all = Query {
                limit: 1000,
                ..Query::default()
            };
            let old = log.page(&all, 1_000).unwrap();
            assert!(old.entries.len() >= 10, "{version}: {}", old.entries.len());
            assert!(old.entries.iter().all(|(_, e)| e.prev == Prev::Unknown));
            // Records of the old format written again in this one: their new entries
            // point at their last old ones, whose own `prev` is unknown.
            let mut heads = Heads::new();
            for (_, entry) in old.entries.iter().rev() {
                if entry.kind == Kind::Task {
                    heads.insert(entry.id.to_string(), entry.version);
                }
            }
            let tasks: Vec<String> = heads.keys().cloned().collect();
            let mut written = log.last();
            for round in 0..5 {
                for id in &tasks {
                    written += 1;
                    log.append(update(&mut heads, written, id, "u", 10 * round), 1_000)
                        .unwrap();
                }
            }
            for (id, head) in &heads {
                for limit in [1, 3, 100] {
                    let query = Query {
                        limit,
                        ..Query::default()
                    };
                    let read = pages_agree(&log, &query, id, *head, 1_000);
                    assert!(read.len() > 5, "{version} {id}: {read:?}");
                }
            }
        }
    }

    #[test]
    fn the_golden_format_11_logs_chain_every_record_as_a_walk_reads_it() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v11/activity");
        let mut chained = 0;
        for space in fs::read_dir(fixture).unwrap() {
            let dir = tempfile::tempdir().unwrap();
            copy_files(&space.unwrap().path(), dir.path());
            let log = Log::open(dir.path(), KEEP_ALL).unwrap();
            let all = Query {
                limit: 1000,
                ..Query::default()
            };
            let every = log.page(&all, 1_000).unwrap();
            let mut heads = HashMap::new();
            for (_, entry) in &every.entries {
                assert_ne!(entry.prev, Prev::Unknown);
                heads
                    .entry((entry.kind, entry.id.clone()))
                    .or_insert(entry.version);
            }
            for ((kind, id), head) in heads {
                let query = Query {
                    limit: 2,
                    kind: Some(kind),
                    ..Query::default()
                };
                chained += pages_agree(&log, &query, &id, head, 1_000).len();
            }
        }
        assert!(chained >= 20, "{chained}");
    }

    #[test]
    fn a_write_logged_but_not_yet_pruned_for_is_not_read() {
        // What a kill after an append and before its pruning leaves: one write more
        // than the maximum above the floor.
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open(dir.path(), Retention { days: 90, max: 41 }).unwrap();
        let heads = fill(&log, 41, 10);
        drop(log);
        let log = Log::open(dir.path(), Retention { days: 90, max: 40 }).unwrap();
        let all = Query {
            limit: 1000,
            ..Query::default()
        };
        let read = rows(&log.page(&all, 1_000).unwrap()).0;
        assert_eq!(read.len(), 40);
        assert_eq!(read.last().unwrap().0, 2);
        assert!(log.write_of(1, 1_000).unwrap().is_none());
        assert!(log.write_of(2, 1_000).unwrap().is_some());
        let rare = pages_agree(&log, &all, "rare", heads["rare"], 1_000);
        assert_eq!(rare, [41, 20]);
    }

    #[test]
    fn retention_cuts_a_chain_where_it_cuts_the_log() {
        // At most 500 entries kept.
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open(dir.path(), Retention { days: 90, max: 500 }).unwrap();
        let heads = fill(&log, 3_000, 1_000);
        let (floor, _) = floor(dir.path());
        assert!(floor > 2_000, "{floor}");
        for (id, head) in &heads {
            let query = Query {
                limit: 30,
                ..Query::default()
            };
            let read = pages_agree(&log, &query, id, *head, 1_000);
            assert!(read.iter().all(|v| *v >= floor), "{id}");
        }
        // Kept for 10 days, the writes of the first half made 20 days ago.
        let dir = tempfile::tempdir().unwrap();
        let retention = Retention {
            days: 10,
            max: u64::MAX,
        };
        let log = Log::open(dir.path(), retention).unwrap();
        let mut heads = Heads::new();
        let now = 20 * DAY_MS;
        for version in 1..=2_000 {
            let at = if version <= 1_000 { 0 } else { now };
            let mut write = update(&mut heads, version, &format!("t{}", version % 7), "u", 500);
            write.at = at;
            log.append(write, at).unwrap();
        }
        for (id, head) in &heads {
            let query = Query {
                limit: 100,
                ..Query::default()
            };
            let read = pages_agree(&log, &query, id, *head, now);
            assert!(read.iter().all(|v| *v > 1_000) && read.len() > 100, "{id}");
        }
    }

    /// Applies `commands` to `space` as one write and logs its activity, as the space's
    /// actor does.
    fn logged_write(space: &mut Space, log: &Log, commands: &[Command], now: i64) -> Logged {
        let (outcome, undo) = space.apply(commands, now).unwrap();
        let logged = Logged::derive(&outcome, &undo.formers());
        log.append(logged.clone(), now).unwrap();
        logged
    }

    fn task(id: &str, op: &str, body: serde_json::Value) -> Command {
        let mode = if op == "create" {
            Mode::Create
        } else {
            Mode::Update
        };
        let changes = parse_changes(Kind::Task, mode, body.as_object().unwrap().clone()).unwrap();
        Command {
            kind: Kind::Task,
            id: id.into(),
            op: match op {
                "create" => Op::Create(changes),
                "update" => Op::Update(changes),
                "delete" => Op::SetDeleted(true),
                _ => Op::SetDeleted(false),
            },
            if_match: None,
        }
    }

    #[test]
    fn every_record_a_batch_a_cascade_or_a_revert_touches_is_chained_to_its_last_entry() {
        let dir = tempfile::tempdir().unwrap();
        let log = Log::open(dir.path(), KEEP_ALL).unwrap();
        let mut space = Space::new("s");
        let now = 1_000;
        let create = |id: &str, body: serde_json::Value| {
            let mut body = body;
            body["todoId"] = json!(id);
            task(id, "create", body)
        };
        logged_write(
            &mut space,
            &log,
            &[create("p", json!({"name": "parent"}))],
            now,
        );
        logged_write(
            &mut space,
            &log,
            &[
                create("c1", json!({"parentId": "p"})),
                create("c2", json!({"parentId": "p"})),
                create("b", json!({"predecessorIds": ["p"]})),
            ],
            now,
        );
        // A batch touching c1 twice.
        let batch = logged_write(
            &mut space,
            &log,
            &[
                task("c1", "update", json!({"name": "one"})),
                task("c2", "update", json!({"name": "two"})),
                task("c1", "update", json!({"name": "three"})),
            ],
            now,
        );
        // `b`'s isBlocked flips as p is done and open again: cascades.
        logged_write(
            &mut space,
            &log,
            &[task("p", "update", json!({"status": "done"}))],
            now,
        );
        logged_write(
            &mut space,
            &log,
            &[task("p", "update", json!({"status": "open"}))],
            now,
        );
        // The subtree goes with p, and comes back with it.
        logged_write(&mut space, &log, &[task("p", "delete", json!({}))], now);
        logged_write(&mut space, &log, &[task("p", "restore", json!({}))], now);
        // A revert of the batch: one write of one version.
        let since = log.since(&batch, now).unwrap();
        let current = |kind, id: &str| space.get(kind, id).ok().map(|item| item.record);
        let commands = batch.revert(current, &since, true).unwrap();
        let (mut outcome, undo) = space.apply_as_one(&commands, now).unwrap();
        outcome.meta.revert_of = Some(batch.version);
        log.append(Logged::derive(&outcome, &undo.formers()), now)
            .unwrap();
        let all = Query {
            limit: 1000,
            ..Query::default()
        };
        let every = log.page(&all, now).unwrap();
        for id in ["p", "c1", "c2", "b"] {
            let head = space.get(Kind::Task, id).unwrap().record.version;
            let mut chain: Vec<&Entry> = (every.entries.iter())
                .map(|(_, e)| e)
                .filter(|e| &*e.id == id)
                .collect();
            chain.dedup_by_key(|e| e.version);
            assert_eq!(chain[0].version, head, "{id}");
            assert!(chain.len() >= 4, "{id}: {chain:?}");
            // Each entry points at the one before, the oldest at none: the chain misses
            // no write that touched the record.
            for pair in chain.windows(2) {
                assert_eq!(pair[0].prev, Prev::At(pair[1].version), "{id}");
            }
            assert_eq!(chain.last().unwrap().prev, Prev::First, "{id}");
            assert_eq!(chain.last().unwrap().action, Action::Created, "{id}");
            pages_agree(&log, &all, id, head, now);
        }
    }
}
