//! The registry of spaces: which actor owns a space, starting it on first use.
//!
//! It is shared by every HTTP worker and read on every request, so it is a read-mostly map
//! behind an `RwLock` rather than an actor: a request takes a read lock for a hash lookup
//! and lets go before it waits for anything. Writers are rare: a space's first use (its
//! actor starts) and user creation.
//!
//! Space actors are spread over a fixed set of arbiters (threads), chosen by a hash of the
//! space id; `Actor::start` would put them all on the calling thread.
//!
//! Reads do not go to the actors: [`Spaces::read`] runs on the caller's thread over the
//! state a space's actor published (or over the loaded space of one that has no actor yet),
//! and goes through the actor only when writes of the space wait for their sync.
//!
//! Each space has exactly one `Addr`, shared and never cloned for requests: actix's bounded
//! mailbox parks a sender that overfills it, and `try_send` on that same sender then fails
//! with `Full` until the actor catches up. That failure becomes a 503 instead of a queue
//! without bound (`send` would wait, see actix#515). Replies come back on a oneshot.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, PoisonError, RwLock};

use actix::dev::channel;
use actix::prelude::*;
use futures_util::future::join_all;
use tokio::sync::oneshot;

use super::reminders::{Alarm, Timer};
use super::snapshot::{answered, RemoveSpace, SnapshotActor};
use super::space::{
    Bounded, Flush, Forget, Operation, Read, ReadDurable, Shown, SpaceActor, Version,
};
use super::{within_storage, Failure};
use crate::metrics::METRICS;
use crate::model::Space;
use crate::store::journal::Journal;
use crate::store::{Compaction, Pace, Store};

/// The most messages a space's mailbox holds before requests are refused with 503.
pub(crate) const MAILBOX_CAPACITY: usize = 4096;

/// A space that has an actor, or one loaded from disk that has not been used yet, or one
/// deleted while the server runs (a request that was let in before the deletion finds it
/// gone instead of starting it afresh).
enum Slot {
    Idle(Arc<Space>),
    Running(Addr<SpaceActor>, Arc<Shown>),
    Gone,
}

/// Every space and the actor behind it; shared by every HTTP worker.
pub struct Spaces {
    slots: RwLock<HashMap<Box<str>, Slot>>,
    arbiters: Vec<ArbiterHandle>,
    journal: Journal,
    snapshots: Addr<SnapshotActor>,
    store: Store,
    compaction: Compaction,
    mailbox_capacity: usize,
    /// Hears when each space's next reminder is due.
    timer: Timer,
}

impl Spaces {
    /// A registry over the loaded `spaces` of `store`, whose actors will run on `arbiters`
    /// and snapshot as `compaction` says; `timer` hears when their reminders are due,
    /// starting with those of the loaded spaces.
    pub fn new(
        spaces: impl IntoIterator<Item = Space>,
        arbiters: Vec<ArbiterHandle>,
        journal: Journal,
        snapshots: Addr<SnapshotActor>,
        store: Store,
        compaction: Compaction,
        timer: Timer,
    ) -> Spaces {
        let slots: HashMap<Box<str>, Slot> = spaces
            .into_iter()
            .inspect(|space| METRICS.count_space(&space.view(), 1))
            .inspect(|space| {
                if let Some(next) = space.next_reminder() {
                    timer.note(space.id(), Some(next));
                }
            })
            .map(|space| (space.id().into(), Slot::Idle(Arc::new(space))))
            .collect();
        METRICS.spaces_loaded.set(slots.len() as i64);
        Spaces {
            slots: RwLock::new(slots),
            arbiters,
            journal,
            snapshots,
            store,
            compaction,
            mailbox_capacity: MAILBOX_CAPACITY,
            timer,
        }
    }

    /// Adds a new, empty space.
    pub fn add(&self, id: &str) {
        let mut slots = self.slots.write().unwrap_or_else(PoisonError::into_inner);
        slots.insert(id.into(), Slot::Idle(Arc::new(Space::new(id))));
        METRICS.spaces_loaded.set(slots.len() as i64);
    }

    /// Deletes space `id`, whose deletion is durable: its actor stops (its change streams
    /// end, nothing of it is saved again), then its file is removed and the journal drops
    /// its entries.
    pub async fn delete(&self, id: &str) {
        let slot = {
            let mut slots = self.slots.write().unwrap_or_else(PoisonError::into_inner);
            let slot = slots.insert(id.into(), Slot::Gone);
            METRICS.spaces_loaded.set(slots.len() as i64);
            slot
        };
        match slot {
            Some(Slot::Running(addr, _)) => {
                let _ = addr.send(Forget).await;
            }
            Some(Slot::Idle(space)) => {
                METRICS.count_space(&space.view(), -1);
                self.timer.note(id, None);
            }
            Some(Slot::Gone) | None => {}
        }
        if let Err(e) = answered(self.snapshots.send(RemoveSpace(id.into())).await) {
            log::error!("file of deleted space {id} not removed: {e}");
        }
    }

    /// The version of space `space_id`, without starting its actor if it has none yet.
    pub async fn version(&self, space_id: &str) -> Result<u64, Failure> {
        match self.shown(space_id)? {
            Some(space) => Ok(space.version()),
            None => self.call(space_id, Version).await,
        }
    }

    /// Runs `read` over space `space_id` (which must exist) as every client may see it:
    /// at once on this thread, over the state its actor published, unless writes of the
    /// space wait for their sync; then on the actor, answered once they are durable
    /// (docs §8). Errors as [`Spaces::call`].
    pub async fn read<T: Send + 'static>(
        &self,
        space_id: &str,
        read: impl FnOnce(&Space) -> T + Send + 'static,
    ) -> Result<T, Failure> {
        match self.shown(space_id)? {
            Some(space) => Ok(read(&space)),
            None => self.call(space_id, Read(Box::new(read))).await,
        }
    }

    /// Runs `read` over the durable state of space `space_id` (which must exist) once it
    /// holds version `version` (a version the reader was told is durable): on this thread
    /// when the published state has it, else on the actor at once, never waiting for the
    /// sync of later writes (see [`ReadDurable`]). Errors as [`Spaces::call`].
    pub async fn read_durable<T: Send + 'static>(
        &self,
        space_id: &str,
        version: u64,
        read: impl FnOnce(&Space) -> T + Send + 'static,
    ) -> Result<T, Failure> {
        let published = {
            let slots = self.slots.read().unwrap_or_else(PoisonError::into_inner);
            match slots.get(space_id) {
                Some(Slot::Idle(space)) => Some(Arc::clone(space)),
                Some(Slot::Running(_, shown)) => shown.at_least(version),
                Some(Slot::Gone) => return Err(Failure::Gone),
                None => None,
            }
        };
        match published {
            Some(space) => Ok(read(&space)),
            None => self.call(space_id, ReadDurable(Box::new(read))).await,
        }
    }

    /// The state of space `space_id` as [`Spaces::read`] would see it, to be read on
    /// another thread (the heavy pool). Errors as [`Spaces::call`].
    pub async fn view(&self, space_id: &str) -> Result<Arc<Space>, Failure> {
        match self.shown(space_id)? {
            Some(space) => Ok(space),
            None => {
                let copy = |space: &Space| Arc::new(space.clone());
                self.call(space_id, Read(Box::new(copy))).await
            }
        }
    }

    /// The state of space `space_id` a read may use without its actor: the loaded space of
    /// one with no actor yet, or the current state its actor published; `None` when a read
    /// must go to the actor.
    fn shown(&self, space_id: &str) -> Result<Option<Arc<Space>>, Failure> {
        let slots = self.slots.read().unwrap_or_else(PoisonError::into_inner);
        match slots.get(space_id) {
            Some(Slot::Idle(space)) => Ok(Some(Arc::clone(space))),
            Some(Slot::Running(_, shown)) => Ok(shown.current()),
            Some(Slot::Gone) => Err(Failure::Gone),
            None => Ok(None),
        }
    }

    /// A new alarm on the server's one timer, for a live view's time boundaries (docs
    /// §24).
    pub(crate) fn alarm(&self) -> Alarm {
        self.timer.alarm()
    }

    /// Sends `op` to the actor of space `space_id` (which must exist) and waits for the
    /// answer; `Busy` when its mailbox is full, `Stopped` when it has stopped, `Stalled`
    /// when the journal's storage has not answered within its bound (the answer waits for
    /// it: a write, or a read behind writes).
    pub async fn call<O: Operation>(&self, space_id: &str, op: O) -> Result<O::Output, Failure> {
        self.call_or_later(space_id, op, drop).await
    }

    /// [`Spaces::call`], and when it answers `Stalled`, `late` gets the real answer once
    /// the storage gives it (a write's outcome is decided by the journal, not by the
    /// request that gave up waiting).
    pub async fn call_or_later<O: Operation>(
        &self,
        space_id: &str,
        op: O,
        late: impl FnOnce(Result<O::Output, Failure>) + 'static,
    ) -> Result<O::Output, Failure> {
        let (reply, answer) = oneshot::channel();
        self.with_actor(space_id, |addr| addr.try_send(Bounded { op, reply }))
            .ok_or(Failure::Gone)?
            .map_err(|e| match e {
                SendError::Full(_) => {
                    METRICS.mailbox_rejections.inc();
                    Failure::Busy
                }
                SendError::Closed(_) => Failure::Stopped,
            })?;
        within_storage(self.journal.health(), answer, late).await
    }

    /// Runs `f` on the actor of `space_id`, starting the actor on first use; `None` for a
    /// deleted space.
    fn with_actor<R>(&self, space_id: &str, f: impl FnOnce(&Addr<SpaceActor>) -> R) -> Option<R> {
        {
            let slots = self.slots.read().unwrap_or_else(PoisonError::into_inner);
            match slots.get(space_id) {
                Some(Slot::Running(addr, _)) => return Some(f(addr)),
                Some(Slot::Gone) => return None,
                _ => {}
            }
        }
        let mut slots = self.slots.write().unwrap_or_else(PoisonError::into_inner);
        let (addr, shown) = match slots.remove(space_id) {
            Some(Slot::Running(addr, shown)) => (addr, shown), // started meanwhile
            Some(Slot::Idle(space)) => self.start(space),
            Some(Slot::Gone) => {
                slots.insert(space_id.into(), Slot::Gone);
                return None;
            }
            None => self.start(Arc::new(Space::new(space_id))),
        };
        let result = f(&addr);
        slots.insert(space_id.into(), Slot::Running(addr, shown));
        Some(result)
    }

    /// Starts the actor of `space` on an arbiter picked by a hash of the space id. The
    /// mailbox is made with its capacity before the actor exists, so even the first burst
    /// of requests meets the real bound (`set_mailbox_capacity` in the actor's start-up
    /// would apply only once the arbiter gets round to starting it).
    fn start(&self, space: Arc<Space>) -> (Addr<SpaceActor>, Arc<Shown>) {
        let mut hasher = DefaultHasher::new();
        space.id().hash(&mut hasher);
        let arbiter = &self.arbiters[hasher.finish() as usize % self.arbiters.len()];
        let (sender, receiver) = channel::channel(self.mailbox_capacity);
        let file_len = Store::file_len(&self.store.space_path(space.id()));
        let shown = Arc::new(Shown::new(Arc::clone(&space)));
        let actor = SpaceActor::new(
            Arc::unwrap_or_clone(space),
            Arc::clone(&shown),
            self.journal.clone(),
            self.snapshots.clone(),
            Pace::new(self.compaction, file_len),
            self.timer.clone(),
            Arc::clone(self.store.activity()),
        );
        arbiter.spawn_fn(move || {
            Context::with_receiver(receiver).run(actor);
        });
        (Addr::new(sender), shown)
    }

    /// Writes the final snapshot of every running space that changed; call after the HTTP
    /// server has stopped. Returns how many spaces could not be saved.
    pub async fn flush_all(&self) -> usize {
        let running: Vec<Addr<SpaceActor>> = self
            .slots
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter_map(|slot| match slot {
                Slot::Running(addr, _) => Some(addr.clone()),
                Slot::Idle(_) | Slot::Gone => None,
            })
            .collect();
        let outcomes = join_all(running.iter().map(|addr| addr.send(Flush))).await;
        outcomes
            .into_iter()
            .filter_map(|outcome| match outcome {
                Ok(saved) => saved.err().map(|e| e.to_string()),
                Err(e) => Some(format!("space actor unavailable: {e}")),
            })
            .inspect(|e| log::error!("final snapshot failed: {e}"))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actors::space::{Write, WriteResult};
    use crate::model::validate::{parse_changes, Mode};
    use crate::model::{Command, Item, Kind, Op, SpaceError, User};
    use crate::startup::test_state;
    use crate::store::journal::{fake, Durability};
    use futures_util::FutureExt;
    use serde_json::json;

    /// Reads task `id` of space `space` through the registry.
    async fn get(
        spaces: &Spaces,
        space: &str,
        id: &str,
    ) -> Result<Result<Item, SpaceError>, Failure> {
        let id = id.to_string();
        spaces.read(space, move |s| s.get(Kind::Task, &id)).await
    }

    /// A write creating task `id`.
    fn create(id: &str) -> Write {
        let body = json!({ "todoId": id }).as_object().unwrap().clone();
        Write {
            commands: vec![Command {
                kind: Kind::Task,
                id: id.into(),
                op: Op::Create(parse_changes(Kind::Task, Mode::Create, body).unwrap()),
                if_match: None,
            }],
            key: None,
            actor: None,
            revert: None,
        }
    }

    #[actix_web::test]
    async fn reads_use_the_published_durable_state_at_once_and_never_miss_an_answered_write() {
        let data = tempfile::tempdir().unwrap();
        let state = test_state(data.path(), Vec::new());
        let (journal, mut writer) = fake::Writer::start(Durability::Fsync);
        let spaces = Arc::new(Spaces::new(
            vec![Space::new("s")],
            vec![Arbiter::current()],
            journal,
            state.spaces().snapshots.clone(),
            state.spaces().store.clone(),
            state.spaces().compaction,
            Timer::new().0,
        ));
        // Answered on the first poll: no message to an actor (none runs yet).
        let idle = get(&spaces, "s", "t1").now_or_never();
        assert!(matches!(idle, Some(Ok(Err(SpaceError::NotFound { .. })))));

        let writing = Arc::clone(&spaces);
        let mut written =
            actix_web::rt::spawn(async move { writing.call("s", create("t1")).await });
        writer.queued(1).await;
        assert_eq!(writer.settled().await, 1);
        // The write waits for its sync; nobody was told of it, so a read answers at once
        // from the durable state, without it.
        let unsynced = get(&spaces, "s", "t1").now_or_never();
        assert!(matches!(
            unsynced,
            Some(Ok(Err(SpaceError::NotFound { .. })))
        ));
        assert!((&mut written).now_or_never().is_none(), "the write waits");

        writer.answer(Ok(()));
        let version = |w: Result<WriteResult, Failure>| w.unwrap().unwrap().version;
        assert_eq!(version(written.await.unwrap()), 1);
        // Once the write is answered, every read shows it: on the first poll, from the
        // state published before the answer went out.
        let item = get(&spaces, "s", "t1")
            .now_or_never()
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!((&*item.record.id, item.version), ("t1", 1));
        assert_eq!(spaces.version("s").now_or_never().unwrap().unwrap(), 1);
    }

    #[actix_web::test]
    async fn a_full_mailbox_is_refused_instead_of_queued() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "token");
        let space = user.default_space.clone();
        let state = test_state(data.path(), vec![user]);
        let spaces = Spaces {
            mailbox_capacity: 4,
            ..Spaces::new(
                Vec::new(),
                vec![Arbiter::current()],
                state.spaces().journal.clone(),
                state.spaces().snapshots.clone(),
                state.spaces().store.clone(),
                state.spaces().compaction,
                Timer::new().0,
            )
        };
        // All calls are sent before the actor (on this same thread) can run.
        let calls = (0..20).map(|i| spaces.call(&space, create(&format!("t{i}"))));
        let outcomes = join_all(calls).await;
        let busy = outcomes
            .iter()
            .filter(|o| matches!(o, Err(Failure::Busy)))
            .count();
        let answered = outcomes.iter().filter(|o| matches!(o, Ok(Ok(_)))).count();
        assert!(busy >= 10, "{busy} refused");
        assert!(answered >= 4, "{answered} answered");
        assert_eq!(busy + answered, 20);
    }
}
