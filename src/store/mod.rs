//! The data directory: snapshot files written atomically and read back at start-up.
//!
//! Layout of the data directory:
//! - `users.bin`: every user and token hash (see [`codec`] for the format);
//! - `spaces/<space-id>.bin`: one file per space that has been written;
//! - `default.token`, `admin.token`: the bootstrap tokens, mode 0600.
//!
//! A file is replaced by writing a temporary file beside it, fsyncing it, renaming it over
//! the old one and fsyncing the directory, so a crash leaves either the old or the new
//! file, never a mix. Reading refuses anything it cannot fully verify and never deletes or
//! rewrites what it refused. Only the actors (start-up and the snapshot actor) call this.

pub mod codec;

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::model::{Space, SpaceSnapshot, UsersSnapshot};
use codec::FileKind;

const USERS_FILE: &str = "users.bin";
const SPACES_DIR: &str = "spaces";
const SPACE_SUFFIX: &str = ".bin";

/// A file that could not be read or written, and why.
#[derive(Debug)]
pub struct StoreError {
    /// The file (or directory) concerned.
    pub path: PathBuf,
    /// What went wrong with it.
    pub reason: String,
}

impl StoreError {
    fn new(path: &Path, reason: impl fmt::Display) -> StoreError {
        StoreError {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for StoreError {}

/// A data directory.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// Opens `dir`, creating it and its `spaces` folder if they do not exist.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let spaces = dir.join(SPACES_DIR);
        fs::create_dir_all(&spaces).map_err(|e| StoreError::new(&spaces, e))?;
        Ok(Store {
            dir: dir.to_path_buf(),
        })
    }

    /// The path of `name` inside the data directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The path of the users file.
    pub fn users_path(&self) -> PathBuf {
        self.path(USERS_FILE)
    }

    /// The users file, or `None` when the directory has never been initialised.
    pub fn load_users(&self) -> Result<Option<UsersSnapshot>, StoreError> {
        let path = self.users_path();
        match fs::read(&path) {
            Ok(bytes) => codec::decode(FileKind::Users, &bytes)
                .map(Some)
                .map_err(|e| StoreError::new(&path, e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::new(&path, e)),
        }
    }

    /// Every space file, each checked and rebuilt into a [`Space`].
    pub fn load_spaces(&self) -> Result<Vec<Space>, StoreError> {
        let dir = self.path(SPACES_DIR);
        let entries = fs::read_dir(&dir).map_err(|e| StoreError::new(&dir, e))?;
        let mut spaces = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| StoreError::new(&dir, e))?.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(SPACE_SUFFIX))
                .filter(|id| !id.starts_with('.'))
            else {
                continue; // temporary files and anything else not ours
            };
            let bytes = fs::read(&path).map_err(|e| StoreError::new(&path, e))?;
            let snapshot: SpaceSnapshot =
                codec::decode(FileKind::Space, &bytes).map_err(|e| StoreError::new(&path, e))?;
            if *snapshot.id != *id {
                return Err(StoreError::new(
                    &path,
                    format!("holds space '{}', not '{id}'", snapshot.id),
                ));
            }
            spaces.push(Space::from_snapshot(snapshot).map_err(|e| StoreError::new(&path, e))?);
        }
        Ok(spaces)
    }

    /// Replaces the users file.
    pub fn save_users(&self, users: &UsersSnapshot) -> Result<(), StoreError> {
        let path = self.users_path();
        let bytes = codec::encode(FileKind::Users, users).map_err(|e| StoreError::new(&path, e))?;
        write_atomic(&path, &bytes)
    }

    /// The file of space `id`.
    pub fn space_path(&self, id: &str) -> PathBuf {
        self.path(SPACES_DIR).join(format!("{id}{SPACE_SUFFIX}"))
    }

    /// Replaces one space's file.
    pub fn save_space(&self, space: &SpaceSnapshot) -> Result<(), StoreError> {
        let path = self.space_path(&space.id);
        let bytes = codec::encode(FileKind::Space, space).map_err(|e| StoreError::new(&path, e))?;
        write_atomic(&path, &bytes)
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
            Ok(_) => Err(StoreError::new(&path, "token file is empty")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::new(&path, e)),
        }
    }
}

/// Replaces `path` with `bytes` (mode 0600): temp file, fsync, rename, fsync directory.
/// On failure the old file is untouched and the temp file is removed.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temp = dir.join(format!(".{name}.tmp"));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        File::open(dir)?.sync_all()
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&temp);
        StoreError::new(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Changes, Kind, User};

    #[test]
    fn spaces_and_users_come_back_as_they_were_saved() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.load_users().unwrap(), None);
        let users = UsersSnapshot {
            users: vec![User::new("a", "t")],
        };
        store.save_users(&users).unwrap();
        let mut space = Space::new(&users.users[0].default_space);
        space.create(Kind::Task, Changes::default(), 5).unwrap();
        store.save_space(&space.snapshot()).unwrap();

        assert_eq!(store.load_users().unwrap(), Some(users));
        let loaded = store.load_spaces().unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].version(), 1);
        assert_eq!(
            loaded[0].snapshot().collections,
            space.snapshot().collections
        );
    }

    #[test]
    fn a_corrupt_space_file_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let path = dir.path().join("spaces/s1.bin");
        fs::write(&path, b"TSKD garbage").unwrap();
        let err = store.load_spaces().unwrap_err();
        assert_eq!(err.path, path);
        assert_eq!(fs::read(&path).unwrap(), b"TSKD garbage");
    }

    #[test]
    fn a_space_file_under_another_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.save_space(&Space::new("s1").snapshot()).unwrap();
        fs::rename(
            dir.path().join("spaces/s1.bin"),
            dir.path().join("spaces/s2.bin"),
        )
        .unwrap();
        assert!(store.load_spaces().unwrap_err().reason.contains("'s1'"));
    }

    #[test]
    fn secrets_are_private_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.write_secret("x.token", "abc").unwrap();
        let mode = fs::metadata(dir.path().join("x.token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            store.read_secret("x.token").unwrap().as_deref(),
            Some("abc")
        );
        assert_eq!(store.read_secret("y.token").unwrap(), None);
    }
}
