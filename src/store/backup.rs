//! A consistent copy of a data directory that a server may be writing at the same time.
//!
//! The copy never takes the source's `LOCK` and never writes to the source. It relies on
//! what the running server guarantees: files are replaced by rename (a reader sees the old
//! or the new file whole), snapshots only move forward, and a journal segment is deleted
//! only once the snapshots on disk cover it. At any moment, then, every answered write is in
//! a snapshot file or in a segment that exists.
//!
//! The copy is taken in three passes, oldest state first:
//! 1. the journal segments that exist now: every write answered before the backup began is
//!    in one of them or already in a snapshot;
//! 2. `users.bin`, `keys.bin`, the token files, then every space file (users first, so a
//!    user the copy holds has its space file in the copy too);
//! 3. the journal segments again: new ones, and the newest ones grown since pass 1.
//!
//! A segment deleted between passes stays as pass 1 copied it. The copy is then verified by
//! the normal recovery ([`Store::recover`]); a change the server made meanwhile that leaves
//! the copy inconsistent (a segment gone between a space file and its next entries, a cut
//! frame in a segment that is no longer the newest) fails recovery, and the copy is wiped
//! and taken again, up to [`ATTEMPTS`] times. A torn last frame of the newest copied segment
//! is what an append in progress looks like; recovery cuts it off in the copy.
//!
//! The copy is built in a staging folder beside the target, `.<name>.partial`, and renamed
//! to the target only once it is verified and synced: a crash at any step leaves the
//! target as it was (missing, or empty) and at most a staging folder, which the next
//! backup to the same target removes first; a failed backup removes it at once. A folder
//! named as the target therefore always holds a whole, verified copy.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::journal::is_segment_name;
use taskd_progress::Progress;

use super::{
    create_private_dirs, is_space_name, Problem, Recovered, Store, StoreError, JOURNAL_DIR,
    KEYS_FILE, POSITION_FILE, SPACES_DIR, TOKEN_SUFFIX, USERS_FILE,
};

/// How many times a copy is taken before giving up on a source that keeps changing under it.
pub const ATTEMPTS: usize = 5;

/// How much of a file is read, written and counted at a time.
const CHUNK: usize = 1 << 20;

/// What a finished backup holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// Spaces in the copy (with a snapshot or journal entries).
    pub spaces: usize,
    /// Users in the copy.
    pub users: usize,
    /// Bytes copied.
    pub bytes: u64,
}

/// Why a backup failed.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The source is not a directory.
    #[error("{}: not a directory", .0.display())]
    NoSource(PathBuf),
    /// The source holds no users: it is not a taskd data directory.
    #[error("{}: holds no users; not a taskd data directory", .0.display())]
    NotADataDir(PathBuf),
    /// The destination is not one a backup may write (§9a): why.
    #[error("{path}: {1}", path = .0.display())]
    BadTarget(PathBuf, &'static str),
    /// A file could not be read or written.
    #[error("{path}: {1}", path = .0.display())]
    Io(PathBuf, #[source] io::Error),
    /// Every attempt left a copy that recovery refused, this the last reason.
    #[error("the copy was not consistent after {ATTEMPTS} attempts (last: {0})")]
    Unsettled(#[source] StoreError),
}

/// Copies the data directory `from` into `to` (see [`check_target`]), checks the copy by
/// recovering it, and returns what it holds together with the recovered state. Safe while
/// a server runs on `from`; `from` is never written.
pub fn backup(from: &Path, to: &Path) -> Result<(Summary, Recovered), BackupError> {
    backup_with(from, to, &Progress::hidden())
}

/// [`backup`], counting the bytes it copies on `progress`: each attempt adds the sizes of
/// the files it is about to copy to the total (journal segments twice, for the first and
/// the last pass), and advances as the bytes are written.
pub fn backup_with(
    from: &Path,
    to: &Path,
    progress: &Progress,
) -> Result<(Summary, Recovered), BackupError> {
    if !from.is_dir() {
        return Err(BackupError::NoSource(from.to_path_buf()));
    }
    check_target(from, to)?;
    let created = create_parents(to)?;
    let staging = staging_path(to);
    if staging.exists() {
        log::info!(
            "removing {} left by an interrupted backup",
            staging.display()
        );
        fs::remove_dir_all(&staging).map_err(|e| BackupError::Io(staging.clone(), e))?;
    }
    create_private_dirs(&staging).map_err(|e| BackupError::Io(staging.clone(), e))?;
    let copied = copy_verified(from, &staging, progress).and_then(|copied| {
        let dir = to.parent().filter(|p| !p.as_os_str().is_empty());
        fs::rename(&staging, to)
            .and_then(|()| File::open(dir.unwrap_or(Path::new(".")))?.sync_all())
            .map_err(|e| BackupError::Io(to.to_path_buf(), e))?;
        Ok(copied)
    });
    if copied.is_err() {
        let _ = fs::remove_dir_all(&staging);
        if let Some(created) = created {
            let _ = fs::remove_dir_all(created);
        }
    }
    copied
}

/// Checks that `to` is a target a backup of the data directory `data` may write (§9a): an
/// absolute path of printable characters, outside `data`, that does not exist or is an
/// empty directory.
pub fn check_target(data: &Path, to: &Path) -> Result<(), BackupError> {
    let bad = |why| Err(BackupError::BadTarget(to.to_path_buf(), why));
    if !to.is_absolute() {
        return bad("must be an absolute path");
    }
    if to.to_str().is_none_or(|s| s.chars().any(char::is_control)) {
        return bad("must be UTF-8 without control characters");
    }
    let data = data
        .canonicalize()
        .map_err(|e| BackupError::Io(data.to_path_buf(), e))?;
    // The longest part of `to` that exists, resolved (symbolic links and `..` included).
    let mut existing = to;
    let mut rest = Vec::new();
    let resolved = loop {
        match existing.canonicalize() {
            Ok(resolved) => break resolved,
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name);
                    existing = parent;
                }
                _ => return bad("has no existing folder above it"),
            },
        }
    };
    if rest.contains(&std::ffi::OsStr::new("..")) {
        return bad("must not go up with '..' below a folder that does not exist");
    }
    if resolved.starts_with(&data) {
        return bad("must be outside the data directory");
    }
    if !rest.is_empty() && !resolved.is_dir() {
        return bad("is below a file, not a folder");
    }
    if rest.is_empty() {
        let empty = fs::read_dir(&resolved).map(|mut entries| entries.next().is_none());
        if !matches!(empty, Ok(true)) {
            return bad("exists and is not an empty directory; choose a new one");
        }
    }
    Ok(())
}

/// Creates the missing folders above `to` (mode 0700); the topmost one it created, so a
/// failed backup can remove what it made.
fn create_parents(to: &Path) -> Result<Option<PathBuf>, BackupError> {
    let Some(parent) = to.parent() else {
        return Ok(None);
    };
    let mut topmost = None;
    let mut above = Some(parent);
    while let Some(dir) = above.filter(|d| !d.exists()) {
        topmost = Some(dir.to_path_buf());
        above = dir.parent();
    }
    create_private_dirs(parent).map_err(|e| BackupError::Io(parent.to_path_buf(), e))?;
    Ok(topmost)
}

/// Takes copies of `from` into `to` until one recovers (see the module docs), and syncs it.
fn copy_verified(
    from: &Path,
    to: &Path,
    progress: &Progress,
) -> Result<(Summary, Recovered), BackupError> {
    let mut last = None;
    for attempt in 1..=ATTEMPTS {
        let bytes = copy(from, to, progress)?;
        progress.stage("checking the copy");
        let store = Store::open(to).map_err(|e| BackupError::Io(to.to_path_buf(), io_of(e)))?;
        match store.recover() {
            Ok(recovered) => {
                if recovered.directory.user_count() == 0 {
                    return Err(BackupError::NotADataDir(from.to_path_buf()));
                }
                progress.stage("syncing the copy");
                sync_tree(to)?;
                let summary = Summary {
                    spaces: recovered.spaces.len(),
                    users: recovered.directory.user_count(),
                    bytes,
                };
                return Ok((summary, recovered));
            }
            Err(e) => {
                log::info!("backup attempt {attempt} of {ATTEMPTS} was not consistent: {e}");
                wipe(to)?;
                last = Some(e);
            }
        }
    }
    Err(BackupError::Unsettled(last.expect("at least one attempt")))
}

/// The staging folder of a backup into `to`: `.<name>.partial` beside it.
fn staging_path(to: &Path) -> PathBuf {
    let name = to.file_name().and_then(|n| n.to_str()).unwrap_or("backup");
    to.with_file_name(format!(".{name}.partial"))
}

/// The I/O error inside a store error (the only kind `Store::open` returns).
fn io_of(e: StoreError) -> io::Error {
    match e.problem {
        Problem::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// Removes everything inside `to`, keeping the directory itself.
fn wipe(to: &Path) -> Result<(), BackupError> {
    let io = |e| BackupError::Io(to.to_path_buf(), e);
    for entry in fs::read_dir(to).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let removed = if path.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.map_err(|e| BackupError::Io(path, e))?;
    }
    Ok(())
}

/// One copy in the three passes the module describes; the bytes copied.
fn copy(from: &Path, to: &Path, progress: &Progress) -> Result<u64, BackupError> {
    for sub in [SPACES_DIR, JOURNAL_DIR] {
        let dir = to.join(sub);
        create_private_dirs(&dir).map_err(|e| BackupError::Io(dir, e))?;
    }
    // What the three passes will copy, as the files stand now (the journal twice). The
    // passes list the files again at their own moment: the order of the listings is part
    // of the consistency argument, the estimate is not.
    let journal = size_of(&files(from, to, JOURNAL_DIR, is_segment_name)?);
    let spaces = size_of(&files(from, to, SPACES_DIR, is_space_name)?);
    progress.add_to_total(2 * journal + size_of(&top_files(from, to)?) + spaces);

    // With `--nats`, the position first: the journal copied after it holds at least what
    // it names, and the copy's first start takes the rest from the stream.
    let position = (from.join(POSITION_FILE), to.join(POSITION_FILE));
    let mut bytes = copy_files(&[position], progress)?;
    bytes += copy_files(&files(from, to, JOURNAL_DIR, is_segment_name)?, progress)?;
    bytes += copy_files(&top_files(from, to)?, progress)?;
    // Listed after `users.bin` is copied, so a user the copy holds has its space file too.
    bytes += copy_files(&files(from, to, SPACES_DIR, is_space_name)?, progress)?;
    bytes += copy_files(&files(from, to, JOURNAL_DIR, is_segment_name)?, progress)?;
    Ok(bytes)
}

/// `users.bin`, `keys.bin` and the token files of `from`, each with the path of its copy.
fn top_files(from: &Path, to: &Path) -> Result<Vec<(PathBuf, PathBuf)>, BackupError> {
    let mut top = vec![USERS_FILE.to_string(), KEYS_FILE.to_string()];
    top.extend(names(from, |n| n.ends_with(TOKEN_SUFFIX))?);
    Ok(top
        .iter()
        .map(|name| (from.join(name), to.join(name)))
        .collect())
}

/// The files of the folder `sub` of `from` that `wanted` accepts, as they exist now, each
/// with the path of its copy in `to`.
fn files(
    from: &Path,
    to: &Path,
    sub: &str,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<(PathBuf, PathBuf)>, BackupError> {
    let names = names(&from.join(sub), wanted)?;
    Ok(names
        .iter()
        .map(|name| (from.join(sub).join(name), to.join(sub).join(name)))
        .collect())
}

/// The bytes the sources of `files` hold now; a file gone since it was listed counts 0.
fn size_of(files: &[(PathBuf, PathBuf)]) -> u64 {
    files
        .iter()
        .filter_map(|(from, _)| fs::metadata(from).ok())
        .map(|m| m.len())
        .sum()
}

/// Copies each `(from, to)` of `files` over its copy; the bytes copied.
fn copy_files(files: &[(PathBuf, PathBuf)], progress: &Progress) -> Result<u64, BackupError> {
    let mut bytes = 0;
    for (from, to) in files {
        bytes += copy_file(from, to, progress)?;
    }
    Ok(bytes)
}

/// The names in `dir` that `wanted` accepts, temporary files (`.name.tmp`) left out; none
/// when `dir` does not exist.
fn names(dir: &Path, wanted: impl Fn(&str) -> bool) -> Result<Vec<String>, BackupError> {
    let io = |e| BackupError::Io(dir.to_path_buf(), e);
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let name = entry.map_err(io)?.file_name();
        if let Some(name) = name.to_str() {
            if !name.starts_with('.') && wanted(name) {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Copies one file (owner-only), not synced; a source that is gone (deleted since it was
/// listed, or never written) is skipped: recovery finds out whether the copy needed it.
fn copy_file(from: &Path, to: &Path, progress: &Progress) -> Result<u64, BackupError> {
    // One open: a file replaced by rename meanwhile is read whole, old or new, as the
    // descriptor keeps the file it opened. It is read in chunks, so a large snapshot
    // neither sits in memory whole nor stalls the progress line.
    let mut source = match File::open(from) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(BackupError::Io(from.to_path_buf(), e)),
    };
    let mut target = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(to)
        .map_err(|e| BackupError::Io(to.to_path_buf(), e))?;
    let mut chunk = vec![0; CHUNK];
    let mut bytes = 0;
    loop {
        let n = match source.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(BackupError::Io(from.to_path_buf(), e)),
        };
        target
            .write_all(&chunk[..n])
            .map_err(|e| BackupError::Io(to.to_path_buf(), e))?;
        bytes += n as u64;
        progress.advance(n as u64);
    }
}

/// Syncs every file and folder of a finished copy, so it survives a crash once answered.
fn sync_tree(dir: &Path) -> Result<(), BackupError> {
    let io = |e| BackupError::Io(dir.to_path_buf(), e);
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            sync_tree(&path)?;
        } else {
            File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(|e| BackupError::Io(path, e))?;
        }
    }
    File::open(dir).and_then(|d| d.sync_all()).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DirectorySnapshot, User, UsersSnapshot};

    #[test]
    fn a_destination_that_holds_files_is_refused_and_left_alone() {
        let source = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        fs::write(to.path().join("keep"), b"x").unwrap();
        let Err(err) = backup(source.path(), to.path()) else {
            panic!("a full destination was accepted");
        };
        assert!(matches!(err, BackupError::BadTarget(..)), "{err}");
        assert_eq!(fs::read(to.path().join("keep")).unwrap(), b"x");
    }

    #[test]
    fn a_copy_recovers_to_the_same_users_and_spaces_without_the_lock() {
        let source = tempfile::tempdir().unwrap();
        let store = Store::open(source.path()).unwrap();
        let _held = store.lock().unwrap();
        let user = User::new("a", "t");
        store
            .save_space(&crate::model::Space::new(&user.default_space).view())
            .unwrap();
        store
            .save_directory(&DirectorySnapshot::from_legacy(
                UsersSnapshot {
                    users: vec![user.clone()],
                },
                0,
            ))
            .unwrap();
        let out = tempfile::tempdir().unwrap();
        let to = out.path().join("copy");
        let (summary, recovered) = backup(source.path(), &to).unwrap();
        let inside = backup(source.path(), &source.path().join("copy"));
        assert!(matches!(inside, Err(BackupError::BadTarget(..))));
        assert_eq!((summary.users, summary.spaces), (1, 1));
        assert!(summary.bytes > 0);
        assert!(recovered.directory.account(&user.id).is_some());
        assert!(!to.join("LOCK").exists());
    }

    #[test]
    fn a_staging_folder_left_by_a_crash_is_replaced_and_a_failed_backup_leaves_nothing() {
        let source = tempfile::tempdir().unwrap();
        let store = Store::open(source.path()).unwrap();
        let user = User::new("a", "t");
        store
            .save_space(&crate::model::Space::new(&user.default_space).view())
            .unwrap();
        store
            .save_directory(&DirectorySnapshot::from_legacy(
                UsersSnapshot { users: vec![user] },
                0,
            ))
            .unwrap();
        let out = tempfile::tempdir().unwrap();
        let to = out.path().join("copy");
        let staging = out.path().join(".copy.partial");
        fs::create_dir(&staging).unwrap();
        fs::write(staging.join("users.bin"), b"half a copy").unwrap();
        let (summary, _) = backup(source.path(), &to).unwrap();
        assert_eq!(summary.users, 1);
        assert!(!staging.exists());
        assert!(to.join("users.bin").exists());

        let empty = tempfile::tempdir().unwrap();
        let failed = out.path().join("failed");
        let Err(err) = backup(empty.path(), &failed) else {
            panic!("a directory without users was backed up");
        };
        assert!(matches!(err, BackupError::NotADataDir(_)), "{err}");
        assert!(!failed.exists());
        assert!(!out.path().join(".failed.partial").exists());
    }
}
