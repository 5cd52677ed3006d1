//! The directory of users, spaces, members and tokens (docs §2, §13, §14), shared by
//! every HTTP worker: who a bearer token belongs to, and the changes to any of it.
//!
//! Read on every request, so it is a read-mostly [`DirectoryState`] behind an `RwLock`: a
//! request authenticates under a read lock and leaves with a [`Caller`] of its own. A change
//! is a journaled write like a record write: changes are made one at a time (checked,
//! journaled and synced, then applied), so they enter the journal in the order they are
//! numbered, and a change is seen by nobody before it is durable. The users file is
//! rewritten by the snapshot actor as the journal grows ([`Directory::save`]), after which
//! the journal can drop the changes it holds.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard};

use actix::Addr;
use tokio::sync::{oneshot, Mutex as Serial};

use super::snapshot::{answered, SaveDirectory, SnapshotActor};
use super::{within_storage, Failure};
use crate::metrics::METRICS;
use crate::model::user::{hash_token, TokenHash};
use crate::model::{Caller, Change, DirectoryError, DirectoryState};
use crate::store::codec::{Entry, KeptAnswer, KeyUse};
use crate::store::journal::{Journal, StorageError};
use crate::store::Pace;

/// The answer to a directory change: what the client gets, and what is kept for its
/// idempotency key (the same, but never with a secret).
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// What the client gets now.
    pub shown: KeptAnswer,
    /// What a retry with the same key gets.
    pub kept: KeptAnswer,
}

/// What a change's request gets: its answer, or why the directory refused the change.
pub(crate) type Changed = Result<Answer, DirectoryError>;

/// Every user, space, membership and token, and the admin token's hash.
pub(crate) struct Directory {
    admin_hash: TokenHash,
    state: RwLock<DirectoryState>,
    journal: Journal,
    /// Makes changes one at a time, in the order they are numbered.
    serial: Serial<()>,
    /// Writes the users file one snapshot at a time.
    saving: Serial<()>,
    /// How many changes the users file on disk holds.
    saved: AtomicU64,
    /// A token's `lastUsedAt` moved since the users file was written.
    used: AtomicBool,
    /// Spaces created since the users file was written.
    added: Mutex<Vec<Box<str>>>,
    /// What the users file owes the journal.
    pace: Pace,
}

impl Directory {
    /// The directory read at start-up (`saved` changes of it from the users file) and the
    /// admin token; the users file is rewritten as `pace` says.
    pub(crate) fn new(
        admin_token: &str,
        state: DirectoryState,
        saved: u64,
        journal: Journal,
        pace: Pace,
    ) -> Directory {
        METRICS.count_directory(state.user_count(), state.counts());
        let added = state
            .spaces()
            .map(|s| s.id.clone())
            .filter(|_| state.applied() > saved)
            .collect();
        Directory {
            admin_hash: hash_token(admin_token),
            state: RwLock::new(state),
            journal,
            serial: Serial::new(()),
            saving: Serial::new(()),
            saved: AtomicU64::new(saved),
            used: AtomicBool::new(false),
            added: Mutex::new(added),
            pace,
        }
    }

    /// The directory as it is now, for reading.
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, DirectoryState> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Who a token stands for now; `None` for an unknown, revoked or expired token.
    pub(crate) fn authenticate(&self, token: &str) -> Option<Caller> {
        let now = || chrono::Utc::now().timestamp_millis();
        let hash = cached_hash(token);
        let (caller, used) = self.read().authenticate(&hash.hash, now)?;
        hash.keep();
        if used {
            self.used.store(true, Ordering::Relaxed);
        }
        Some(caller)
    }

    /// Whether this is the admin token.
    pub(crate) fn is_admin(&self, token: &str) -> bool {
        let hash = cached_hash(token);
        let admin = hash.hash == self.admin_hash;
        if admin {
            hash.keep();
        }
        admin
    }

    /// Makes `change`: checks it against the directory as it is (a refusal changes
    /// nothing and is no journal entry), renders its answer with `answer` from the
    /// directory before the change, journals it with the answer kept for the request's
    /// idempotency key, waits until it is synced, applies it, and runs `then`. It runs on
    /// a task of its own: when the storage stalls, the request is answered `Stalled` and
    /// `late` gets the outcome once the journal decides it.
    pub(crate) async fn change(
        self: Arc<Self>,
        change: Change,
        key: Option<KeyUse>,
        answer: impl FnOnce(&DirectoryState) -> Answer + 'static,
        then: impl FnOnce(&Change) + 'static,
        late: impl FnOnce(Result<Changed, Failure>) + 'static,
    ) -> Result<Changed, Failure> {
        let (done, changed) = oneshot::channel();
        let health = Arc::clone(self.journal.health());
        actix_web::rt::spawn(async move {
            let _ = done.send(self.make(change, key, answer, then).await);
        });
        within_storage(&health, changed, late).await
    }

    /// Makes a change no request asked for (the webhook sender's positions, a webhook a
    /// receiver turned off): as [`Directory::change`] with no answer and no key, waiting
    /// as long as the journal takes.
    pub(crate) async fn note(&self, change: Change) -> Result<Result<(), DirectoryError>, Failure> {
        let nothing = || KeptAnswer {
            status: 204,
            content_type: "".into(),
            location: None,
            etag: None,
            body: Vec::new(),
        };
        let answer = |_: &DirectoryState| Answer {
            shown: nothing(),
            kept: nothing(),
        };
        let changed = self.make(change, None, answer, |_: &Change| {}).await?;
        Ok(changed.map(drop))
    }

    /// [`Directory::change`], waiting as long as the journal takes.
    async fn make(
        &self,
        change: Change,
        key: Option<KeyUse>,
        answer: impl FnOnce(&DirectoryState) -> Answer,
        then: impl FnOnce(&Change),
    ) -> Result<Changed, Failure> {
        let _serial = self.serial.lock().await;
        let now = chrono::Utc::now().timestamp_millis();
        let (seq, answer) = {
            let state = self.read();
            if let Err(refused) = state.check(&change, now) {
                return Ok(Err(refused));
            }
            (state.applied(), answer(&state))
        };
        let (done, stored) = oneshot::channel();
        let entry = Entry::Directory {
            seq,
            change,
            key: key.map(|used| Box::new((used, answer.kept.clone()))),
        };
        self.pace.add(self.journal.append(
            &entry,
            true,
            Box::new(move |result| {
                let _ = done.send(result);
            }),
        ));
        stored
            .await
            .unwrap_or(Err(StorageError::Closed))
            .map_err(Failure::Storage)?;
        let Entry::Directory { change, .. } = entry else {
            unreachable!("built above")
        };
        {
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
            state.apply(&change);
            METRICS.count_directory(state.user_count(), state.counts());
        }
        if let Change::SpaceCreated(info) = &change {
            self.added_space(&info.id);
        }
        if let Change::UserCreated(account) = &change {
            self.added_space(&account.default_space);
        }
        then(&change);
        Ok(Ok(answer))
    }

    /// Applies change number `seq` that a standby takes from the stream (docs §16), as
    /// recovery applies it; `bytes` is its journal frame's length. Whether it was new (a
    /// change the directory holds already is skipped).
    pub(crate) async fn replay(
        &self,
        seq: u64,
        change: &Change,
        bytes: u64,
    ) -> Result<bool, String> {
        let _serial = self.serial.lock().await;
        {
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
            if seq < state.applied() {
                return Ok(false);
            }
            state.replay(seq, change)?;
            METRICS.count_directory(state.user_count(), state.counts());
        }
        match change {
            Change::SpaceCreated(info) => self.added_space(&info.id),
            Change::UserCreated(account) => self.added_space(&account.default_space),
            _ => {}
        }
        self.pace.add(bytes);
        Ok(true)
    }

    fn added_space(&self, id: &str) {
        self.added
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(id.into());
    }

    /// Rewrites the users file if the directory changed since it was last written and the
    /// journal grew enough for it (see [`crate::store::Compaction`]), or at all if `last`.
    /// The snapshot is taken between changes, so the file holds exactly the changes it
    /// counts.
    pub(crate) async fn save(&self, snapshots: &Addr<SnapshotActor>, last: bool) {
        let _saving = self.saving.lock().await;
        let saved = self.saved.load(Ordering::SeqCst);
        let used = self.used.load(Ordering::Relaxed);
        if self.read().applied() == saved && !(last && used) {
            return;
        }
        let Some(paying) = self.pace.due(last) else {
            return;
        };
        self.used.store(false, Ordering::Relaxed);
        let (directory, added) = {
            let _serial = self.serial.lock().await;
            let mut added = self.added.lock().unwrap_or_else(PoisonError::into_inner);
            (self.read().snapshot(), std::mem::take(&mut *added))
        };
        let applied = directory.applied;
        match answered(
            snapshots
                .send(SaveDirectory {
                    directory,
                    added: added.clone(),
                })
                .await,
        ) {
            Ok(len) => {
                self.saved.store(applied, Ordering::SeqCst);
                self.pace.paid(paying, len);
            }
            Err(e) => {
                log::error!("users snapshot failed: {e}");
                self.used.store(used, Ordering::Relaxed);
                self.added
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend(added);
            }
        }
    }
}

/// How many tokens each thread keeps the hash of (see [`cached_hash`]).
const CACHED_TOKENS: usize = 1024;

/// Recent tokens and their SHA-256, by a SipHash of the token under the first field's key.
type TokenHashes = (RandomState, HashMap<u64, (Box<str>, TokenHash)>);

thread_local! {
    /// This thread's [`TokenHashes`].
    static TOKEN_HASHES: std::cell::RefCell<TokenHashes> =
        std::cell::RefCell::new((RandomState::new(), HashMap::new()));
}

/// The hash of a token, from this thread's cache when it holds the token. A token's hash
/// is a function of the token alone, so nothing is evicted when a token is revoked (the
/// directory still looks the hash up on every request). A cached token is found by a
/// keyed hash and confirmed by comparing the whole token in constant time.
fn cached_hash(token: &str) -> CachedHash<'_> {
    let key = TOKEN_HASHES.with_borrow(|(keys, _)| keys.hash_one(token));
    let cached = TOKEN_HASHES.with_borrow(|(_, hashes)| {
        hashes
            .get(&key)
            .filter(|(kept, _)| same_secret(kept.as_bytes(), token.as_bytes()))
            .map(|(_, hash)| *hash)
    });
    match cached {
        Some(hash) => CachedHash { hash, new: None },
        None => CachedHash {
            hash: hash_token(token),
            new: Some((key, token)),
        },
    }
}

/// A token's hash, and the token if the cache does not hold it yet.
struct CachedHash<'a> {
    hash: TokenHash,
    new: Option<(u64, &'a str)>,
}

impl CachedHash<'_> {
    /// Caches the hash of a token that proved good (a bad one is never cached, so guessing
    /// cannot churn the cache); the cache starts afresh when full.
    fn keep(self) {
        if let Some((key, token)) = self.new {
            TOKEN_HASHES.with_borrow_mut(|(_, hashes)| {
                if hashes.len() >= CACHED_TOKENS {
                    hashes.clear();
                }
                hashes.insert(key, (token.into(), self.hash));
            });
        }
    }
}

/// Whether two secrets are equal, in time that depends on their lengths only.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_hash_is_cached_only_once_the_token_proved_good() {
        let token = "a-token-of-this-test-0123456789abcdef";
        let first = cached_hash(token);
        assert_eq!(first.hash, hash_token(token));
        assert!(first.new.is_some());
        // Not kept (a bad token): hashed again next time.
        assert!(cached_hash(token).new.is_some());
        cached_hash(token).keep();
        let cached = cached_hash(token);
        assert_eq!((cached.hash, cached.new), (hash_token(token), None));
        // Another token, even one sharing a prefix, is hashed for itself.
        let other = "a-token-of-this-test-0123456789abcdeF";
        assert_eq!(cached_hash(other).hash, hash_token(other));
    }

    #[test]
    fn secrets_compare_equal_only_when_every_byte_is() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
        assert!(same_secret(b"", b""));
    }
}
