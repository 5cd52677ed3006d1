//! The data directory: its lock, snapshot files written atomically, the journal, and
//! recovery of the whole state from them at start-up.
//!
//! Layout of the data directory:
//! - `LOCK`: held with an exclusive lock while taskd runs, so a second process refuses;
//! - `users.bin`: the directory (users, spaces, members, token hashes), as of its last
//!   snapshot;
//! - `spaces/<space-id>.bin`: one snapshot per space;
//! - `journal/<seq>.log`: every write since the snapshots (see [`journal`]);
//! - `activity/<space-id>/`: each space's activity log, derived from the journal (see
//!   [`activity`]);
//! - `default.token`, `admin.token`: the bootstrap tokens, mode 0600;
//! - `stream.pos`: with `--nats`, where the journal and its mirror, the stream, last
//!   agreed ([`POSITION_FILE`], written by replication; see [`mirror`]).
//!
//! A file is replaced by writing a temporary file `.<name>.tmp` beside it, fsyncing it,
//! renaming it over the old one and fsyncing the directory ([`replace_file`]). What a crash
//! leaves at each step, and why start-up copes:
//! - while the temporary file is written or synced: the old file, whole, and a partial
//!   temporary file. Start-up never reads a temporary file: once it holds the lock it
//!   removes every `.*.tmp` of its folders ([`Store::lock`]);
//! - after the rename, before the directory sync: the old file or the new one, each whole
//!   (both were synced); a temporary file may survive a power loss as well, and is removed.
//!
//! Start-up reads only the names it expects (`users.bin`, `keys.bin`, `<uuid>.bin` in
//! `spaces/`, `<seq>.log` in `journal/`); any other file in its folders is left alone with
//! one warning line, never decoded. Reading refuses anything it cannot fully verify and
//! never deletes or rewrites what it refused; the changes recovery makes are removing
//! temporary files and cutting off a torn journal tail. Only start-up, the tools and the
//! actors call this module.

pub mod activity;
pub mod backup;
pub mod codec;
pub mod journal;
pub mod mirror;

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::model::activity::Logged;
use crate::model::{Account, Change, DirectorySnapshot, DirectoryState, Space, SpaceView};
use activity::{Activity, Retention};
use codec::{CodecError, Entry, KeptAnswer, KeyUse, KeysSnapshot};
use journal::{Marks, Segment, Tail};

const LOCK_FILE: &str = "LOCK";
const USERS_FILE: &str = "users.bin";
const KEYS_FILE: &str = "keys.bin";
const SPACES_DIR: &str = "spaces";
const JOURNAL_DIR: &str = "journal";
/// With `--nats`: where the journal and the stream last agreed (written by replication).
pub const POSITION_FILE: &str = "stream.pos";
const SPACE_SUFFIX: &str = ".bin";
/// Token files at the top of a data directory end with this.
const TOKEN_SUFFIX: &str = ".token";
/// A temporary file is named `.<name>.tmp`, beside the file it will replace.
const TEMP_SUFFIX: &str = ".tmp";

/// What is wrong with a file.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// It could not be read, written or synced.
    #[error("{0}")]
    Io(#[source] io::Error),
    /// Its bytes are not a valid file of its kind.
    #[error("{0}")]
    Corrupt(#[source] CodecError),
    /// A journal segment that is not the newest ends inside an entry.
    #[error("an entry is cut short, but later segments follow")]
    Torn,
    /// Its contents contradict the rest of the data directory.
    #[error("{0}")]
    Inconsistent(String),
    /// It is missing, though the rest of the data directory needs it.
    #[error("missing, but {0}; refusing to start")]
    Missing(String),
    /// Another process holds the lock.
    #[error("locked by another taskd process using this data directory; refusing to start")]
    Locked,
}

/// A file that could not be read or written, where, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {problem}", .path.display(), at_offset(.offset))]
pub struct StoreError {
    /// The file (or directory) concerned.
    pub path: PathBuf,
    /// The byte offset in it, for journal entries.
    pub offset: Option<u64>,
    /// What is wrong.
    #[source]
    pub problem: Problem,
}

/// ` at offset N` for an error about the bytes at `offset`, else nothing.
fn at_offset(offset: &Option<u64>) -> String {
    offset
        .map(|o| format!(" at offset {o}"))
        .unwrap_or_default()
}

impl StoreError {
    /// An error about the file at `path`.
    pub fn new(path: &Path, problem: Problem) -> StoreError {
        StoreError {
            path: path.to_path_buf(),
            offset: None,
            problem,
        }
    }

    /// An error about the bytes at `offset` of `path`.
    pub fn at(path: &Path, offset: u64, problem: Problem) -> StoreError {
        StoreError {
            offset: Some(offset),
            ..StoreError::new(path, problem)
        }
    }
}

/// Everything on disk, read back: users, spaces (snapshots plus journal), and what the
/// journal writer needs to go on.
pub struct Recovered {
    /// Every user, space, membership and token.
    pub directory: DirectoryState,
    /// How many directory changes `users.bin` holds; the rest came from the journal.
    pub directory_saved: u64,
    /// Every space that has a snapshot or a journal entry.
    pub spaces: HashMap<Box<str>, Space>,
    /// Every idempotency key use with its answer, from `keys.bin` and the journal (older
    /// ones included; the keys table drops what has expired).
    pub keys: Vec<Arc<(KeyUse, KeptAnswer)>>,
    /// The journal's segments, with the marks of their entries.
    pub segments: Vec<Segment>,
    /// What the snapshots on disk cover.
    pub covered: Marks,
}

/// When snapshots compact the journal: a file (a space's, the users', the keys') is
/// rewritten once the journal bytes written for it since its last rewrite reach `percent`
/// of its size, and at least `min_bytes`, checked every `interval`. So a write costs disk
/// work in proportion to what it changes, and a restart replays at most that much journal
/// on top of each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// How often the rule is checked.
    pub interval: std::time::Duration,
    /// Journal growth, in percent of the file's size, that calls for a rewrite.
    pub percent: u64,
    /// Journal growth that calls for a rewrite of a file of any size.
    pub min_bytes: u64,
}

/// What one file owes the journal under a [`Compaction`] rule: the journal bytes written for
/// it since its last rewrite, and its size then. Shared by the writers that add to it and
/// the one that rewrites the file.
#[derive(Debug)]
pub struct Pace {
    rule: Compaction,
    owed: AtomicU64,
    file_len: AtomicU64,
}

impl Pace {
    /// A file of `file_len` bytes that owes nothing yet.
    pub fn new(rule: Compaction, file_len: u64) -> Pace {
        Pace {
            rule,
            owed: AtomicU64::new(0),
            file_len: AtomicU64::new(file_len),
        }
    }

    /// How often the rule is checked.
    pub fn interval(&self) -> std::time::Duration {
        self.rule.interval
    }

    /// Notes `bytes` more of journal for the file.
    pub fn add(&self, bytes: u64) {
        self.owed.fetch_add(bytes, Ordering::Relaxed);
    }

    /// The debt a rewrite now pays, when the rule calls for one (or always, if `force`).
    pub fn due(&self, force: bool) -> Option<u64> {
        let owed = self.owed.load(Ordering::Relaxed);
        let len = self.file_len.load(Ordering::Relaxed);
        let threshold = self
            .rule
            .min_bytes
            .max(len.saturating_mul(self.rule.percent) / 100);
        (force || (owed > 0 && owed >= threshold)).then_some(owed)
    }

    /// A rewrite that paid `paid` of the debt wrote `len` bytes.
    pub fn paid(&self, paid: u64, len: u64) {
        let _ = self
            .owed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| {
                Some(o.saturating_sub(paid))
            });
        self.file_len.store(len, Ordering::Relaxed);
    }
}

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// The activity logs of the spaces (docs §23), kept as `--activity-days` and
    /// `--activity-max` say.
    activity: Arc<Activity>,
}

/// The exclusive lock on a data directory; released when dropped (or the process ends).
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

impl Store {
    /// Opens `dir`, creating it and its folders if they do not exist.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        for sub in [SPACES_DIR, JOURNAL_DIR] {
            let path = dir.join(sub);
            create_private_dirs(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
        }
        Ok(Store {
            dir: dir.to_path_buf(),
            activity: Arc::new(Activity::new(dir, Retention::default())),
        })
    }

    /// This store with its activity kept as `retention` says; call before any use.
    pub fn with_retention(mut self, retention: Retention) -> Store {
        self.activity = Arc::new(Activity::new(&self.dir, retention));
        self
    }

    /// The activity logs of the spaces.
    pub fn activity(&self) -> &Arc<Activity> {
        &self.activity
    }

    /// Takes the data directory's exclusive lock, or fails at once if another process
    /// holds it. Holding it, removes the temporary files an interrupted replacement left
    /// (one info line with the count) and warns once about each file that is not taskd's.
    pub fn lock(&self) -> Result<Lock, StoreError> {
        let path = self.path(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(StoreError::new(&path, Problem::Locked)),
            Err(TryLockError::Error(e)) => return Err(StoreError::new(&path, Problem::Io(e))),
        }
        self.tidy()?;
        Ok(Lock { _file: file })
    }

    /// Removes every temporary file of the data directory's folders and warns about each
    /// name that is neither taskd's nor hidden. Only with the lock held: a running server's
    /// temporary files are work in progress.
    fn tidy(&self) -> Result<(), StoreError> {
        let mut folders: Vec<(PathBuf, NameCheck)> = vec![
            (PathBuf::new(), is_top_name),
            (SPACES_DIR.into(), is_space_name),
            (JOURNAL_DIR.into(), journal::is_segment_name),
        ];
        // Each space's activity folder (a floor file is replaced through a temporary one).
        if let Ok(logs) = fs::read_dir(self.dir.join(activity::ACTIVITY_DIR)) {
            for log in logs
                .flatten()
                .filter(|l| l.file_type().is_ok_and(|t| t.is_dir()))
            {
                let sub = Path::new(activity::ACTIVITY_DIR).join(log.file_name());
                folders.push((sub, activity::is_log_name));
            }
        }
        let mut removed = 0;
        for (sub, known) in folders {
            let sub = sub.as_path();
            let is_top = sub.as_os_str().is_empty();
            let dir = self.dir.join(sub);
            let entries = fs::read_dir(&dir).map_err(|e| StoreError::new(&dir, Problem::Io(e)))?;
            for entry in entries {
                let entry = entry.map_err(|e| StoreError::new(&dir, Problem::Io(e)))?;
                let path = entry.path();
                let name = entry.file_name();
                let name = name.to_str().unwrap_or("");
                let is_file = entry.file_type().is_ok_and(|t| t.is_file());
                if is_file && is_temporary(name) {
                    fs::remove_file(&path).map_err(|e| StoreError::new(&path, Problem::Io(e)))?;
                    removed += 1;
                } else if !name.starts_with('.') && !(known(name) && (is_file || is_top)) {
                    log::warn!("{}: not a taskd file; left alone", path.display());
                }
            }
        }
        if removed > 0 {
            log::info!(
                "removed {removed} temporary file(s) left by an interrupted write in {}",
                self.dir.display()
            );
        }
        Ok(())
    }

    /// The data directory itself.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of `name` inside the data directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The journal's folder.
    pub fn journal_dir(&self) -> PathBuf {
        self.path(JOURNAL_DIR)
    }

    /// The path of the users file.
    pub fn users_path(&self) -> PathBuf {
        self.path(USERS_FILE)
    }

    /// The file of space `id`.
    pub fn space_path(&self, id: &str) -> PathBuf {
        self.path(SPACES_DIR).join(format!("{id}{SPACE_SUFFIX}"))
    }

    /// The size of the file at `path`; 0 when there is none.
    pub fn file_len(path: &Path) -> u64 {
        fs::metadata(path).map_or(0, |m| m.len())
    }

    /// The path of the idempotency keys file.
    pub fn keys_path(&self) -> PathBuf {
        self.path(KEYS_FILE)
    }

    /// Reads the whole state: the users file (the directory), every space file, then the
    /// journal on top. A torn journal tail is cut off; anything else wrong stops it, naming
    /// the file. Deleted spaces are left out (their files may still be there: see
    /// [`Store::remove_space`]).
    pub fn recover(&self) -> Result<Recovered, StoreError> {
        let now = chrono::Utc::now().timestamp_millis();
        let saved = self.load_directory(now)?;
        let mut spaces = self.load_spaces()?;
        let mut directory = DirectoryState::from_snapshot(saved.unwrap_or_default());
        let directory_saved = directory.applied();
        for space in directory.spaces() {
            if !spaces.contains_key(&space.id) {
                let owner = space.members.keys().next().map_or("", |u| &**u);
                return Err(StoreError::new(
                    &self.space_path(&space.id),
                    Problem::Missing(format!("user '{owner}' belongs to this space")),
                ));
            }
        }
        let saved_keys = self.load_keys()?;
        let mut covered = Marks::default();
        covered.directory(directory_saved);
        covered.keys(saved_keys.covers);
        let mut keys = saved_keys.keys;
        for space in spaces.values() {
            let view = space.view();
            covered.space(&view.id, view.version, space.reserved());
        }
        let activity = &*self.activity;
        let segments = journal::read(&self.journal_dir(), Tail::Cut, |entry| {
            replay(&mut spaces, &mut directory, &mut keys, entry, now, activity)
        })?;
        // A crash during the first start can leave the empty space of the first user
        // before `users.bin`: nothing was answered yet, so start-up begins again. (With
        // `--nats` the first user is in the journal, not yet in `users.bin`.)
        if directory.user_count() == 0 && spaces.values().any(|s| s.version() > 0) {
            return Err(StoreError::new(
                &self.users_path(),
                Problem::Missing("the data directory holds spaces".into()),
            ));
        }
        spaces.retain(|id, _| !directory.is_deleted(id));
        for space in spaces.values_mut() {
            // A log may hold writes of a journal tail that was cut since (§16).
            if self.activity.exists(space.id()) {
                (self.activity.log(space.id())).and_then(|log| log.cut_above(space.version()))?;
            }
            space.skip_reserved();
        }
        finish_loads(spaces.values_mut());
        for id in directory.deleted() {
            covered.forget(id);
        }
        Ok(Recovered {
            directory,
            directory_saved,
            spaces,
            keys,
            segments,
            covered,
        })
    }

    /// Reads one space again from its snapshot and the journal, while the server runs.
    pub fn reload_space(&self, id: &str) -> Result<Space, StoreError> {
        let mut space = match self.load_space_file(&self.space_path(id))? {
            Some(space) => space,
            None => Space::new(id),
        };
        journal::read(&self.journal_dir(), Tail::Stop, |entry| match entry {
            Entry::Write {
                space: s, outcome, ..
            } if *s == *id => space.replay(&outcome),
            Entry::Reserve { space: s, up_to } if *s == *id => {
                space.reserve(up_to);
                Ok(())
            }
            _ => Ok(()),
        })?;
        space.skip_reserved();
        space.finish_load();
        Ok(space)
    }

    /// The users file, or `None` when it does not exist; one of an older format stamps
    /// what it lacks with `now`.
    fn load_directory(&self, now: i64) -> Result<Option<DirectorySnapshot>, StoreError> {
        let path = self.users_path();
        match fs::read(&path) {
            Ok(bytes) => codec::decode_directory(&bytes, now)
                .map(Some)
                .map_err(|e| StoreError::new(&path, Problem::Corrupt(e))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::new(&path, Problem::Io(e))),
        }
    }

    /// Every space file, each checked and loading (see [`Space::load`]).
    fn load_spaces(&self) -> Result<HashMap<Box<str>, Space>, StoreError> {
        let dir = self.path(SPACES_DIR);
        let entries = fs::read_dir(&dir).map_err(|e| StoreError::new(&dir, Problem::Io(e)))?;
        let mut paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| StoreError::new(&dir, Problem::Io(e)))?;
            let is_space = entry.file_type().is_ok_and(|t| t.is_file())
                && entry.file_name().to_str().is_some_and(is_space_name);
            if is_space {
                paths.push(entry.path());
            } // else a temporary file, or not taskd's (`lock` warned about it)
        }
        // Sized once: a `Space` is kilobytes, and a map grown by doubling copied 100,000
        // of them about twice into fresh memory (a quarter of such a restart).
        let mut spaces = HashMap::with_capacity(paths.len());
        for path in paths {
            if let Some(space) = self.load_space_file(&path)? {
                spaces.insert(space.id().into(), space);
            }
        }
        Ok(spaces)
    }

    /// One space file, checked against its name and loading (see [`Space::load`]); `None`
    /// if it does not exist.
    fn load_space_file(&self, path: &Path) -> Result<Option<Space>, StoreError> {
        let bytes = match file_bytes(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::new(path, Problem::Io(e))),
        };
        let snapshot =
            codec::decode_space(&bytes).map_err(|e| StoreError::new(path, Problem::Corrupt(e)))?;
        if path != self.space_path(&snapshot.id) {
            return Err(StoreError::new(
                path,
                Problem::Inconsistent(format!("holds space '{}'", snapshot.id)),
            ));
        }
        Space::load(snapshot)
            .map(Some)
            .map_err(|e| StoreError::new(path, Problem::Inconsistent(e)))
    }

    /// The idempotency keys file, or an empty one when it does not exist.
    fn load_keys(&self) -> Result<KeysSnapshot, StoreError> {
        let path = self.path(KEYS_FILE);
        match fs::read(&path) {
            Ok(bytes) => {
                codec::decode_keys(&bytes).map_err(|e| StoreError::new(&path, Problem::Corrupt(e)))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(KeysSnapshot::default()),
            Err(e) => Err(StoreError::new(&path, Problem::Io(e))),
        }
    }

    /// Replaces the idempotency keys file; its length.
    pub fn save_keys(&self, keys: &KeysSnapshot) -> Result<u64, StoreError> {
        let path = self.path(KEYS_FILE);
        replace_file(&path, |out| {
            codec::write_keys(keys, out).map_err(io_at(&path))
        })
    }

    /// Replaces the users file with the directory; its length.
    pub fn save_directory(&self, directory: &DirectorySnapshot) -> Result<u64, StoreError> {
        let path = self.users_path();
        replace_file(&path, |out| {
            codec::write_directory(directory, out).map_err(io_at(&path))
        })
    }

    /// Removes the file of deleted space `id`, if there is one, and syncs its folder. Call
    /// only once the deletion is durable and nothing can write the file again.
    pub fn remove_space(&self, id: &str) -> Result<(), StoreError> {
        self.activity.remove(id)?;
        let path = self.space_path(id);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StoreError::new(&path, Problem::Io(e))),
        }
        let dir = self.path(SPACES_DIR);
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::new(&dir, Problem::Io(e)))
    }

    /// Replaces one space's file, encoding straight into it; its length.
    pub fn save_space(&self, view: &SpaceView) -> Result<u64, StoreError> {
        // The snapshot lets the journal drop the entries the activity came from: the
        // activity is synced first (`store::activity`).
        self.activity.sync(&view.id)?;
        let path = self.space_path(&view.id);
        replace_file(&path, |out| {
            codec::write_space(view, out).map_err(io_at(&path))
        })
    }

    /// Writes an empty file for each space of `ids` that has none. The files are written
    /// first and synced after, with one sync of the directory at the end: a sync then finds
    /// little left to flush, so 100,000 new users cost seconds, not minutes.
    pub fn ensure_space_files<'a>(
        &self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), StoreError> {
        let missing: Vec<(&str, PathBuf)> = ids
            .into_iter()
            .map(|id| (id, self.space_path(id)))
            .filter(|(_, path)| !path.exists())
            .collect();
        let mut temps = Vec::with_capacity(missing.len());
        for (id, path) in &missing {
            let bytes = codec::encode_space(&Space::new(id).view()).map_err(io_at(path))?;
            temps.push(write_temp(path, &bytes)?);
        }
        for (temp, (_, path)) in temps.iter().zip(&missing) {
            let synced = File::open(temp).and_then(|f| f.sync_all());
            synced
                .and_then(|()| fs::rename(temp, path))
                .map_err(|e| StoreError::new(path, Problem::Io(e)))?;
        }
        if missing.is_empty() {
            return Ok(());
        }
        let dir = self.path(SPACES_DIR);
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::new(&dir, Problem::Io(e)))
    }

    /// Writes a token file (`name` in the data directory), readable by the owner only.
    pub fn write_secret(&self, name: &str, token: &str) -> Result<(), StoreError> {
        write_atomic(&self.path(name), token.as_bytes())
    }

    /// Reads a token file, trimmed; `None` when it does not exist.
    pub fn read_secret(&self, name: &str) -> Result<Option<String>, StoreError> {
        let path = self.path(name);
        match fs::read_to_string(&path) {
            Ok(text) if !text.trim().is_empty() => Ok(Some(text.trim().to_string())),
            Ok(_) => Err(StoreError::new(
                &path,
                Problem::Inconsistent("token file is empty".into()),
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::new(&path, Problem::Io(e))),
        }
    }
}

/// Applies one journal entry to the recovered state; `now` stamps a user of format 2.
fn replay(
    spaces: &mut HashMap<Box<str>, Space>,
    directory: &mut DirectoryState,
    keys: &mut Vec<Arc<(KeyUse, KeptAnswer)>>,
    entry: Entry,
    now: i64,
    activity: &Activity,
) -> Result<(), String> {
    match entry {
        Entry::Write {
            space: id,
            outcome,
            key,
        }
        | Entry::Written {
            space: id,
            outcome,
            key,
            ..
        } => {
            let log = activity.log(&id).map_err(|e| e.to_string())?;
            let space = space_mut(spaces, id);
            if let Some(formers) = space.replay_noting(&outcome)? {
                // The activity the log lost in a crash, derived again (`store::activity`).
                if outcome.version > log.last() {
                    let logged = Logged::derive(&outcome, &formers);
                    log.append(logged, now).map_err(|e| e.to_string())?;
                }
            }
            keys.extend(key.map(Arc::from));
            Ok(())
        }
        Entry::Reserve { space: id, up_to } => {
            space_mut(spaces, id).reserve(up_to);
            Ok(())
        }
        Entry::User { seq, user, key } => {
            directory.replay(seq, &Change::UserCreated(Account::from_legacy(user, now)))?;
            keys.extend(key.map(Arc::from));
            Ok(())
        }
        Entry::Directory { seq, change, key } => {
            directory.replay(seq, &change)?;
            keys.extend(key.map(Arc::from));
            Ok(())
        }
        Entry::Answer(kept) => {
            keys.push(Arc::from(kept));
            Ok(())
        }
    }
}

/// Files from this size on are mapped rather than read ([`file_bytes`]).
const MAP_FROM: u64 = 1 << 20;

/// A file's bytes, mapped or read.
enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// The bytes of the file at `path`. A file of [`MAP_FROM`] bytes or more is mapped rather
/// than read: its bytes are then the page cache's own pages, not a copy in fresh memory
/// that the kernel zeroes first (at 1,000,000 tasks a quarter of a gigabyte, a tenth of
/// the restart). A smaller one is read: a mapping and its removal cost more than reading
/// a few kilobytes (100,000 small spaces spent a tenth of their start-up on them). The
/// file must not change while it is mapped: taskd's files are replaced by renaming a new
/// file over them, never written in place, and the data directory is locked.
fn file_bytes(path: &Path) -> io::Result<FileBytes> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if len < MAP_FROM {
        let mut bytes = Vec::with_capacity(len as usize);
        file.read_to_end(&mut bytes)?;
        return Ok(FileBytes::Read(bytes));
    }
    // SAFETY: the mapping is read only and the file is not changed while it is mapped
    // (above), so the bytes stay as they are for the mapping's life.
    unsafe { memmap2::Mmap::map(&file) }.map(FileBytes::Mapped)
}

/// Ends the loading of `spaces` (see [`Space::load`]), on as many threads as the machine
/// has cores: the journal has been replayed over them.
fn finish_loads<'a>(spaces: impl Iterator<Item = &'a mut Space>) {
    let threads = crate::threads::cores();
    let mut shares: Vec<Vec<&mut Space>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, space) in spaces.enumerate() {
        shares[i % threads].push(space);
    }
    std::thread::scope(|scope| {
        for share in shares {
            scope.spawn(|| share.into_iter().for_each(Space::finish_load));
        }
    });
}

/// The space `id` of `spaces`, a new one if it has none yet.
fn space_mut(spaces: &mut HashMap<Box<str>, Space>, id: Box<str>) -> &mut Space {
    spaces.entry(id).or_insert_with_key(|id| Space::new(id))
}

/// Creates `dir` and the folders above it that are missing, each readable by the owner
/// only (mode 0700).
pub fn create_private_dirs(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Replaces `path` with `bytes` (mode 0600); see [`replace_file`].
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace_file(path, |out| out.write_all(bytes).map_err(io_at(path)))
}

/// An I/O error about `path`, as a store error.
fn io_at(path: &Path) -> impl Fn(io::Error) -> StoreError + '_ {
    move |e| StoreError::new(path, Problem::Io(e))
}

/// Replaces `path` with what `fill` writes (mode 0600): a temporary file beside it, fsync,
/// rename over `path`, fsync of the directory. On failure (of `fill` too) the old file is
/// untouched and the temporary file is removed; a crash leaves at most the temporary file,
/// which the next start-up removes ([`Store::lock`]).
pub fn replace_file<T, E: From<StoreError>>(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<T, E>,
) -> Result<T, E> {
    let temp = temp_path(path);
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |e| StoreError::new(path, Problem::Io(e));
    let result = (|| {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)
            .map_err(io)?;
        let mut out = BufWriter::new(file);
        let value = fill(&mut out)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        fs::rename(&temp, path).map_err(io)?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
        Ok(value)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Whether a name is one taskd keeps in some folder.
type NameCheck = fn(&str) -> bool;

/// The temporary file beside `path`: `.<name>.tmp`.
fn temp_path(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    dir.join(format!(".{name}{TEMP_SUFFIX}"))
}

/// Whether `name` is a temporary file's (`.<name>.tmp`).
fn is_temporary(name: &str) -> bool {
    name.len() > 1 + TEMP_SUFFIX.len() && name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
}

/// Whether `name` is one taskd keeps at the top of a data directory.
fn is_top_name(name: &str) -> bool {
    [
        LOCK_FILE,
        USERS_FILE,
        KEYS_FILE,
        SPACES_DIR,
        JOURNAL_DIR,
        POSITION_FILE,
        activity::ACTIVITY_DIR,
    ]
    .contains(&name)
        || name.ends_with(TOKEN_SUFFIX)
}

/// Whether `name` is a space file's: `<uuid>.bin`.
fn is_space_name(name: &str) -> bool {
    name.strip_suffix(SPACE_SUFFIX)
        .is_some_and(|id| uuid::Uuid::try_parse(id).is_ok())
}

/// Writes `bytes` to the temporary file beside `path` (owner-only, not synced); its path.
fn write_temp(path: &Path, bytes: &[u8]) -> Result<PathBuf, StoreError> {
    let temp = temp_path(path);
    let written = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temp)
        .and_then(|mut file| file.write_all(bytes));
    match written {
        Ok(()) => Ok(temp),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(StoreError::new(path, Problem::Io(e)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Command, Kind, Op, User, UsersSnapshot};
    use journal::{Durability, Journal};
    use std::sync::mpsc;

    fn create(space: &mut Space, id: &str) -> Entry {
        let command = Command {
            kind: Kind::Task,
            id: id.into(),
            op: Op::Create(Default::default()),
            if_match: None,
        };
        let (outcome, _) = space.apply(&[command], 7).unwrap();
        Entry::Write {
            space: space.id().into(),
            outcome: std::sync::Arc::new(outcome),
            key: None,
        }
    }

    fn append(journal: &Journal, entry: &Entry) {
        let (tx, rx) = mpsc::channel();
        journal.append(entry, false, Box::new(move |r| tx.send(r).unwrap()));
        rx.recv().unwrap().unwrap();
    }

    #[test]
    fn a_store_error_names_its_file_and_offset_and_chains_to_its_cause() {
        let io = io::Error::other("disk full");
        let error = StoreError::at(Path::new("journal/1.log"), 7, Problem::Io(io));
        assert_eq!(error.to_string(), "journal/1.log at offset 7: disk full");
        let problem = std::error::Error::source(&error).expect("the problem");
        let cause = problem.source().expect("the I/O error");
        assert_eq!(
            cause.downcast_ref::<io::Error>().unwrap().to_string(),
            "disk full"
        );
        let error = StoreError::new(Path::new("users.bin"), Problem::Locked);
        assert_eq!(
            error.to_string(),
            "users.bin: locked by another taskd process using this data directory; refusing \
             to start"
        );
    }

    #[test]
    fn recovery_replays_the_journal_on_top_of_the_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let user = User::new("a", "t");
        let mut space = Space::new(&user.default_space);
        let first = create(&mut space, "t1");
        store.save_space(&space.view()).unwrap();
        let users = UsersSnapshot {
            users: vec![user.clone()],
        };
        store
            .save_directory(&DirectorySnapshot::from_legacy(users, 0))
            .unwrap();
        let recovered = store.recover().unwrap();
        let journal = Journal::start(
            &store.journal_dir(),
            Durability::Fsync,
            recovered.segments,
            recovered.covered,
            std::time::Duration::from_secs(10),
            None,
        )
        .unwrap();
        append(&journal, &first); // already in the snapshot: skipped on replay
        append(&journal, &create(&mut space, "t2"));
        let second = User::new("b", "u");
        append(
            &journal,
            &Entry::User {
                seq: 1,
                user: second.clone(),
                key: None,
            },
        );
        let renamed = Change::SpaceRenamed {
            space: user.default_space.as_str().into(),
            name: "home".into(),
        };
        let directory = |seq| Entry::Directory {
            seq,
            change: renamed.clone(),
            key: None,
        };
        append(&journal, &directory(2));
        append(&journal, &directory(2)); // a repeat of a change held: skipped
        drop(journal);

        let recovered = store.recover().unwrap();
        let directory = &recovered.directory;
        assert!(directory.account(&user.id).is_some());
        assert!(directory.account(&second.id).is_some());
        assert_eq!(&*directory.space(&user.default_space).unwrap().name, "home");
        assert_eq!((directory.applied(), recovered.directory_saved), (3, 1));
        let back = &recovered.spaces[user.default_space.as_str()];
        assert_eq!(back.view(), space.view());
        assert_eq!(
            store.reload_space(&user.default_space).unwrap().view(),
            space.view()
        );
    }

    #[test]
    fn an_entry_that_does_not_follow_its_space_stops_recovery_at_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.save_directory(&DirectorySnapshot::default()).unwrap();
        let mut space = Space::new("s");
        create(&mut space, "t1");
        let journal = Journal::start(
            &store.journal_dir(),
            Durability::Fsync,
            Vec::new(),
            Marks::default(),
            std::time::Duration::from_secs(10),
            None,
        )
        .unwrap();
        append(&journal, &create(&mut space, "t2")); // version 2 without version 1
        drop(journal);
        let err = store.recover().err().expect("a gap in the journal");
        assert_eq!(err.offset, Some(0));
        assert!(matches!(err.problem, Problem::Inconsistent(_)), "{err}");
    }

    #[test]
    fn a_file_is_due_once_its_journal_reaches_the_share_of_its_size_and_the_floor() {
        let rule = Compaction {
            interval: std::time::Duration::from_secs(1),
            percent: 50,
            min_bytes: 100,
        };
        let pace = Pace::new(rule, 1000);
        assert_eq!(pace.due(false), None, "nothing owed");
        assert_eq!(pace.due(true), Some(0), "the last one is always written");
        pace.add(499);
        assert_eq!(pace.due(false), None, "below half of 1000");
        pace.add(1);
        assert_eq!(pace.due(false), Some(500));
        pace.add(20); // written while the snapshot was saved
        pace.paid(500, 10);
        assert_eq!(pace.due(false), None, "20 is below the floor of 100");
        pace.add(80);
        assert_eq!(pace.due(false), Some(100));
    }

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let held = store.lock().unwrap();
        let err = store.lock().unwrap_err();
        assert!(matches!(err.problem, Problem::Locked));
        assert_eq!(err.path, dir.path().join("LOCK"));
        drop(held);
        store.lock().unwrap();
    }
}
