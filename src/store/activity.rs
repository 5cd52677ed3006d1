//! The activity of every space on disk (docs §23): an append-only, checksummed log per
//! space, read newest first by cursor, pruned by retention.
//!
//! Layout: `activity/<space-id>/<first-version>.act` segments, each a run of frames in
//! the journal's layout (`store::codec`), one per write ([`Logged`]), in version order; a
//! segment is closed (synced) once it passes [`SEGMENT_BYTES`] and the next one is named by
//! the first version it will hold. `activity/<space-id>/floor` holds the version below
//! which retention dropped everything, and how many entries came before it.
//!
//! Why files of our own, not an embedded database: the log is append-only and read by
//! version ranges, exactly the journal's shape, so the journal's frames, checksums and
//! torn-tail rule serve as they are, with no second storage engine, no background
//! compaction of its own and no new dependency to audit.
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
//! - after a segment is synced and before the next is created: the full segment, which
//!   the next append closes;
//! - while the floor file is replaced: the old or the new floor (`replace_file`), both
//!   right, since the segments it drops are deleted only after it is stored; a partial
//!   temporary floor is removed at start-up (`Store::tidy`). `tests/api/activity.rs`
//!   kills taskd while it prunes at every write and plants that temporary file.
//!
//! # Memory
//! A log keeps its segments' first versions (8 bytes a segment of up to
//! [`SEGMENT_BYTES`]), its floor and its last frame's numbers: a space's history stays
//! on disk. A read loads the segments it walks, one at a time.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::model::activity::{Action, Entry, Logged, Since};
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
                let path = segment_path(&self.dir, *state.segments.last().expect("open"));
                file.sync_all()
                    .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
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

    /// The segments, floor and cutoff a read walks, taken under the lock; the files are
    /// read without it.
    fn view(&self, now: i64) -> (Vec<u64>, u64, i64) {
        let state = self.state();
        (
            state.segments.clone(),
            state.floor,
            self.retention.cutoff(now),
        )
    }

    /// Every kept write, newest first, from the segment holding versions below `before`,
    /// until `visit` returns false.
    fn walk(
        &self,
        before: Option<u64>,
        now: i64,
        mut visit: impl FnMut(Arc<Logged>) -> bool,
    ) -> Result<(), StoreError> {
        let (segments, floor, cutoff) = self.view(now);
        let start = match before {
            Some(b) => segments.partition_point(|first| *first < b),
            None => segments.len(),
        };
        for first in segments[..start].iter().rev() {
            let path = segment_path(&self.dir, *first);
            let bytes = match fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()), // pruned
                Err(e) => return Err(StoreError::new(&path, Problem::Io(e))),
            };
            let (frames, _) = codec::read_activity(&bytes);
            for logged in frames.into_iter().rev() {
                if logged.version < floor || logged.at < cutoff {
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

    /// A page of the kept entries that `query` asks for, at `now`.
    pub fn page(&self, query: &Query, now: i64) -> Result<Page, StoreError> {
        let mut page = Page::default();
        let mut finishing: Option<u64> = None;
        self.walk(query.before, now, |logged| {
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

    /// The kept write that made `version`, if any.
    pub fn write_of(&self, version: u64, now: i64) -> Result<Option<Arc<Logged>>, StoreError> {
        let mut found = None;
        self.walk(Some(version + 1), now, |logged| {
            if logged.base < version && version <= logged.version {
                found = Some(logged);
            }
            false
        })?;
        Ok(found)
    }

    /// Which records that `write` created, deleted or restored a later write deleted or
    /// restored: a walk over the writes since it, newest first.
    pub fn since(&self, write: &Logged, now: i64) -> Result<Since, StoreError> {
        let toggles = |action| matches!(action, Action::Deleted | Action::Restored);
        let wanted: HashSet<(Kind, Id)> = (write.entries.iter())
            .filter(|e| toggles(e.action) || e.action == Action::Created)
            .map(|e| (e.kind, Arc::clone(&e.id)))
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
                let record = (entry.kind, Arc::clone(&entry.id));
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
            let path = segment_path(&self.dir, state.segments.remove(0));
            fs::remove_file(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
        }
        Ok(())
    }
}

/// Whether `name` is one a log folder holds: a segment or the floor file.
pub fn is_log_name(name: &str) -> bool {
    name == FLOOR_FILE
        || name
            .strip_suffix(SUFFIX)
            .is_some_and(|n| n.len() == 20 && n.bytes().all(|b| b.is_ascii_digit()))
}

fn segment_path(dir: &Path, first: u64) -> PathBuf {
    dir.join(format!("{first:020}{SUFFIX}"))
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
    use crate::model::activity::{Action, Entry, Logged};

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
}
