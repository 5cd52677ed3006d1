//! Users: who a bearer token belongs to, and creating users.
//!
//! Read on every request, so it is a read-mostly map behind an `RwLock`. Creating a user
//! is a journaled write (one entry, synced) like any other: O(1) disk work, not a rewrite
//! of every user. The users file is rewritten by the snapshot actor now and then
//! ([`Users::save`]), after which the journal can drop the user entries it covers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use actix::Addr;
use tokio::sync::{oneshot, Mutex};

use super::registry::Spaces;
use super::snapshot::{answered, SaveUsers, SnapshotActor};
use super::{within_storage, Failure};
use crate::model::user::{hash_token, new_token, TokenHash};
use crate::model::{User, UsersSnapshot};
use crate::store::codec::{Entry, KeptAnswer, KeyUse};
use crate::store::journal::{Journal, StorageError};
use crate::store::Pace;

/// How the answer kept for a user creation's idempotency key is rendered.
pub type RenderUser = fn(&User) -> KeptAnswer;

/// Users by token hash, plus creation order for the users file.
#[derive(Default)]
struct Known {
    by_token: HashMap<TokenHash, Arc<User>>,
    in_order: Vec<Arc<User>>,
}

/// Every user, and the admin token's hash; shared by every HTTP worker.
pub struct Users {
    admin_hash: TokenHash,
    known: RwLock<Known>,
    journal: Journal,
    /// Serialises user creation, so users enter the journal in creation order.
    creation: Mutex<()>,
    /// How many users the users file on disk holds.
    saved: AtomicUsize,
    /// What the users file owes the journal.
    pace: Pace,
}

impl Users {
    /// The users read at start-up (`saved` of them from the users file) and the admin token;
    /// the users file is rewritten as `pace` says.
    pub fn new(
        admin_token: &str,
        users: Vec<User>,
        saved: u64,
        journal: Journal,
        pace: Pace,
    ) -> Users {
        let mut known = Known::default();
        for user in users {
            known.add(user);
        }
        Users {
            admin_hash: hash_token(admin_token),
            known: RwLock::new(known),
            journal,
            creation: Mutex::new(()),
            saved: AtomicUsize::new(saved as usize),
            pace,
        }
    }

    /// The user whose token this is.
    pub fn authenticate(&self, token: &str) -> Option<Arc<User>> {
        let known = self.known.read().unwrap_or_else(PoisonError::into_inner);
        known.by_token.get(&hash_token(token)).cloned()
    }

    /// Whether this is the admin token.
    pub fn is_admin(&self, token: &str) -> bool {
        hash_token(token) == self.admin_hash
    }

    /// Creates a user with a new, empty default space in `spaces`, and returns it with its
    /// token (which is stored nowhere). The user is served only once its journal entry is
    /// synced; the entry carries the idempotency key of the request, if any, with the
    /// answer `render` makes for it. The creation runs on a task of its own: when the
    /// storage stalls, the request is answered `Stalled` and `late` gets the creation's
    /// result once the journal decides it.
    pub async fn create_user(
        self: Arc<Self>,
        name: String,
        spaces: Arc<Spaces>,
        key: Option<(KeyUse, RenderUser)>,
        late: impl FnOnce(Result<(Arc<User>, String), Failure>) + 'static,
    ) -> Result<(Arc<User>, String), Failure> {
        let (done, created) = oneshot::channel();
        let health = Arc::clone(self.journal.health());
        actix_web::rt::spawn(async move {
            let _ = done.send(self.create(&name, &spaces, key).await);
        });
        within_storage(&health, created, late).await
    }

    /// [`Users::create_user`], waiting as long as the journal takes.
    async fn create(
        &self,
        name: &str,
        spaces: &Spaces,
        key: Option<(KeyUse, RenderUser)>,
    ) -> Result<(Arc<User>, String), Failure> {
        let _serial = self.creation.lock().await;
        let token = new_token();
        let user = User::new(name, &token);
        let seq = self.count() as u64;
        let (done, stored) = oneshot::channel();
        let entry = Entry::User {
            seq,
            key: key.map(|(used, render)| Box::new((used, render(&user)))),
            user: user.clone(),
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
        spaces.add(&user.default_space);
        let user = self
            .known
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .add(user);
        Ok((user, token))
    }

    fn count(&self) -> usize {
        self.known
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .in_order
            .len()
    }

    /// Rewrites the users file if users were created since it was last written and the
    /// journal grew enough for it (see [`crate::store::Compaction`]), or at all if `last`.
    pub async fn save(&self, snapshots: &Addr<SnapshotActor>, last: bool) {
        let saved = self.saved.load(Ordering::SeqCst);
        if self.count() == saved {
            return;
        }
        let Some(paying) = self.pace.due(last) else {
            return;
        };
        let users = UsersSnapshot {
            users: (self.known.read().unwrap_or_else(PoisonError::into_inner))
                .in_order
                .iter()
                .map(|u| User::clone(u))
                .collect(),
        };
        let count = users.users.len();
        match answered(snapshots.send(SaveUsers { users, saved }).await) {
            Ok(len) => {
                self.saved.store(count, Ordering::SeqCst);
                self.pace.paid(paying, len);
            }
            Err(e) => log::error!("users snapshot failed: {e}"),
        }
    }
}

impl Known {
    fn add(&mut self, user: User) -> Arc<User> {
        let user = Arc::new(user);
        self.by_token.insert(user.token_hash, Arc::clone(&user));
        self.in_order.push(Arc::clone(&user));
        user
    }
}
