//! The directory: who a token belongs to, and which actor owns a space.
//!
//! It is shared by every HTTP worker and read on every request, so it is two read-mostly
//! maps behind `RwLock`s rather than an actor: a request takes a read lock for a hash
//! lookup and lets go before it waits for anything. Writers are rare: a space's first use
//! (its actor starts) and user creation.
//!
//! Space actors are spread over a fixed set of arbiters (threads), chosen by a hash of the
//! space id; `Actor::start` would put them all on the calling thread.
//!
//! Each space has exactly one `Addr`, shared and never cloned for requests: actix's bounded
//! mailbox parks a sender that overfills it, and `try_send` on that same sender then fails
//! with `Full` until the actor catches up. That failure becomes a 503 instead of a queue
//! without bound (`send` would wait, see actix#515). Replies come back on a oneshot.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use actix::dev::channel;
use actix::prelude::*;
use futures_util::future::join_all;
use tokio::sync::{oneshot, Mutex};

use super::snapshot::{saved, SaveSpace, SaveUsers, SnapshotActor};
use super::space::{Bounded, Flush, SpaceActor};
use super::Unavailable;
use crate::model::user::{hash_token, new_token, TokenHash};
use crate::model::{Space, User, UsersSnapshot};
use crate::store::StoreError;

/// The most messages a space's mailbox holds before requests are refused with 503.
pub const MAILBOX_CAPACITY: usize = 4096;

/// A space that has an actor, or one loaded from disk that has not been used yet.
enum Slot {
    Idle(Box<Space>),
    Running(Addr<SpaceActor>),
}

/// Users by token hash, plus creation order for the users file.
#[derive(Default)]
struct Users {
    by_token: HashMap<TokenHash, Arc<User>>,
    in_order: Vec<Arc<User>>,
}

impl Users {
    fn add(&mut self, user: User) -> Arc<User> {
        let user = Arc::new(user);
        self.by_token.insert(user.token_hash, Arc::clone(&user));
        self.in_order.push(Arc::clone(&user));
        user
    }

    fn snapshot(&self) -> UsersSnapshot {
        UsersSnapshot {
            users: self.in_order.iter().map(|u| User::clone(u)).collect(),
        }
    }
}

/// Users, spaces and the actors behind them; shared by every HTTP worker.
pub struct Directory {
    admin_hash: TokenHash,
    users: RwLock<Users>,
    spaces: RwLock<HashMap<Box<str>, Slot>>,
    arbiters: Vec<ArbiterHandle>,
    snapshots: Addr<SnapshotActor>,
    snapshot_interval: Duration,
    mailbox_capacity: usize,
    shutting_down: AtomicBool,
    /// Serialises user creation so each users file written includes every earlier user.
    user_creation: Mutex<()>,
}

impl Directory {
    /// A directory over the loaded `users` and `spaces`. Spaces no user owns are left out.
    pub fn new(
        admin_token: &str,
        users: UsersSnapshot,
        spaces: Vec<Space>,
        arbiters: Vec<ArbiterHandle>,
        snapshots: Addr<SnapshotActor>,
        snapshot_interval: Duration,
    ) -> Directory {
        let mut directory = Users::default();
        let mut slots: HashMap<Box<str>, Slot> = HashMap::new();
        for user in users.users {
            for space in &user.spaces {
                slots.insert(
                    space.as_str().into(),
                    Slot::Idle(Box::new(Space::new(space))),
                );
            }
            directory.add(user);
        }
        for space in spaces {
            match slots.get_mut(space.id()) {
                Some(slot) => *slot = Slot::Idle(Box::new(space)),
                None => log::warn!("space {} belongs to no user; not served", space.id()),
            }
        }
        Directory {
            admin_hash: hash_token(admin_token),
            users: RwLock::new(directory),
            spaces: RwLock::new(slots),
            arbiters,
            snapshots,
            snapshot_interval,
            mailbox_capacity: MAILBOX_CAPACITY,
            shutting_down: AtomicBool::new(false),
            user_creation: Mutex::new(()),
        }
    }

    /// The same directory with space mailboxes of `capacity` messages instead of
    /// [`MAILBOX_CAPACITY`].
    pub fn with_mailbox_capacity(mut self, capacity: usize) -> Directory {
        self.mailbox_capacity = capacity;
        self
    }

    /// The user whose token this is.
    pub fn authenticate(&self, token: &str) -> Option<Arc<User>> {
        let users = self.users.read().unwrap_or_else(PoisonError::into_inner);
        users.by_token.get(&hash_token(token)).cloned()
    }

    /// Whether this is the admin token.
    pub fn is_admin(&self, token: &str) -> bool {
        hash_token(token) == self.admin_hash
    }

    /// Creates a user with a new default space, saves the space's (empty) file and then the
    /// users file, and returns the user with its token (which is stored nowhere). Nothing is
    /// served if either file cannot be saved; an orphan space file is ignored at start-up.
    pub async fn create_user(&self, name: &str) -> Result<(Arc<User>, String), String> {
        let _serial = self.user_creation.lock().await;
        let token = new_token();
        let user = User::new(name, &token);
        let space = Space::new(&user.default_space);
        let mut users = self
            .users
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .snapshot();
        users.users.push(user.clone());
        self.save(SaveSpace(space.snapshot())).await?;
        self.save(SaveUsers(users)).await?;
        self.spaces
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                user.default_space.as_str().into(),
                Slot::Idle(Box::new(space)),
            );
        let user = self
            .users
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .add(user);
        Ok((user, token))
    }

    /// Has the snapshot actor write a file, and waits until it is on disk.
    async fn save<M>(&self, msg: M) -> Result<(), String>
    where
        M: Message<Result = Result<(), StoreError>> + Send + 'static,
        SnapshotActor: Handler<M>,
    {
        saved(self.snapshots.send(msg).await)
    }

    /// Sends `msg` to the actor of space `space_id` (which must exist) and waits for the
    /// reply; `Unavailable` when its mailbox is full or it has stopped.
    pub async fn call<M>(&self, space_id: &str, msg: M) -> Result<M::Result, Unavailable>
    where
        M: Message + Send + 'static,
        M::Result: Send,
        SpaceActor: Handler<Bounded<M>>,
    {
        let (reply, answer) = oneshot::channel();
        self.with_actor(space_id, |addr| addr.try_send(Bounded { msg, reply }))
            .map_err(|e| match e {
                SendError::Full(_) => Unavailable::Busy,
                SendError::Closed(_) => Unavailable::Stopped,
            })?;
        answer.await.map_err(|_| Unavailable::Stopped)
    }

    /// Runs `f` on the actor of `space_id`, starting the actor on first use.
    fn with_actor<R>(&self, space_id: &str, f: impl FnOnce(&Addr<SpaceActor>) -> R) -> R {
        {
            let spaces = self.spaces.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(Slot::Running(addr)) = spaces.get(space_id) {
                return f(addr);
            }
        }
        let mut spaces = self.spaces.write().unwrap_or_else(PoisonError::into_inner);
        let addr = match spaces.remove(space_id) {
            Some(Slot::Running(addr)) => addr, // another request started it meanwhile
            Some(Slot::Idle(space)) => self.start(*space),
            None => self.start(Space::new(space_id)),
        };
        let result = f(&addr);
        spaces.insert(space_id.into(), Slot::Running(addr));
        result
    }

    /// Starts the actor of `space` on an arbiter picked by a hash of the space id. The
    /// mailbox is made with its capacity before the actor exists, so even the first burst
    /// of requests meets the real bound (`set_mailbox_capacity` in the actor's start-up
    /// would apply only once the arbiter gets round to starting it).
    fn start(&self, space: Space) -> Addr<SpaceActor> {
        let mut hasher = DefaultHasher::new();
        space.id().hash(&mut hasher);
        let arbiter = &self.arbiters[hasher.finish() as usize % self.arbiters.len()];
        let (sender, receiver) = channel::channel(self.mailbox_capacity);
        let actor = SpaceActor::new(space, self.snapshots.clone(), self.snapshot_interval);
        arbiter.spawn_fn(move || {
            Context::with_receiver(receiver).run(actor);
        });
        Addr::new(sender)
    }

    /// From now on new requests are refused with 503.
    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
    }

    /// Whether shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    /// Writes the final snapshot of every space that changed; call after the HTTP server
    /// has stopped. Returns how many spaces could not be saved.
    pub async fn flush_all(&self) -> usize {
        let running: Vec<Addr<SpaceActor>> = self
            .spaces
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter_map(|slot| match slot {
                Slot::Running(addr) => Some(addr.clone()),
                Slot::Idle(_) => None,
            })
            .collect();
        let outcomes = join_all(running.iter().map(|addr| addr.send(Flush))).await;
        outcomes
            .into_iter()
            .filter(|outcome| match outcome {
                Ok(Ok(())) => false,
                Ok(Err(e)) => {
                    log::error!("final snapshot failed: {e}");
                    true
                }
                Err(e) => {
                    log::error!("final snapshot failed: space actor unavailable: {e}");
                    true
                }
            })
            .count()
    }
}

#[cfg(test)]
impl Directory {
    /// A directory for in-process tests: admin token `admin-token`, `users`, snapshots into
    /// `data`, every space actor on the current thread. Must run inside an actix system.
    pub(crate) fn for_tests(users: Vec<User>, data: &std::path::Path) -> Directory {
        let store = crate::store::Store::open(data).unwrap();
        let snapshots = SyncArbiter::start(1, move || SnapshotActor::new(store.clone()));
        Directory::new(
            "admin-token",
            UsersSnapshot { users },
            Vec::new(),
            vec![Arbiter::current()],
            snapshots,
            Duration::from_millis(10),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::space::{CreateRecord, GetRecord};
    use crate::model::{Changes, Kind, SpaceError};
    use crate::store::Store;

    #[actix_web::test]
    async fn a_full_mailbox_is_refused_instead_of_queued() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "token");
        let space = user.default_space.clone();
        let directory = Directory::for_tests(vec![user], data.path()).with_mailbox_capacity(4);
        // All calls are sent before the actor (on this same thread) can run.
        let calls = (0..20).map(|i| {
            directory.call(
                &space,
                GetRecord {
                    kind: Kind::Task,
                    id: format!("t{i}"),
                },
            )
        });
        let outcomes = join_all(calls).await;
        let busy = outcomes
            .iter()
            .filter(|o| matches!(o, Err(Unavailable::Busy)))
            .count();
        let answered = outcomes
            .iter()
            .filter(|o| matches!(o, Ok(Err(SpaceError::NotFound { .. }))))
            .count();
        assert!(busy >= 10, "{busy} refused");
        assert!(answered >= 4, "{answered} answered");
        assert_eq!(busy + answered, 20);
    }

    #[actix_web::test]
    async fn writes_reach_the_snapshot_file_and_tokens_find_their_users() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "token");
        let space = user.default_space.clone();
        let directory = Directory::for_tests(vec![user], data.path());
        assert_eq!(
            directory.authenticate("token").unwrap().default_space,
            space
        );
        assert!(directory.authenticate("other").is_none());
        assert!(directory.is_admin("admin-token"));
        let created = directory
            .call(
                &space,
                CreateRecord {
                    kind: Kind::Task,
                    changes: Changes::default(),
                },
            )
            .await
            .unwrap()
            .unwrap();
        assert_eq!(created.version, 1);
        assert_eq!(directory.flush_all().await, 0);
        let saved = Store::open(data.path()).unwrap().load_spaces().unwrap();
        assert_eq!(saved.len(), 1);
        assert_eq!((saved[0].id(), saved[0].version()), (space.as_str(), 1));
    }

    #[actix_web::test]
    async fn a_created_user_is_saved_before_it_can_be_used() {
        let data = tempfile::tempdir().unwrap();
        let directory = Directory::for_tests(Vec::new(), data.path());
        let (user, token) = directory.create_user("alice").await.unwrap();
        assert_eq!(directory.authenticate(&token).unwrap().id, user.id);
        let saved = Store::open(data.path())
            .unwrap()
            .load_users()
            .unwrap()
            .unwrap();
        assert_eq!(saved.users.len(), 1);
        assert_eq!(saved.users[0].token_hash, hash_token(&token));
        let spaces = Store::open(data.path()).unwrap().load_spaces().unwrap();
        assert_eq!(spaces.len(), 1);
        assert_eq!(spaces[0].id(), user.default_space);
    }
}
