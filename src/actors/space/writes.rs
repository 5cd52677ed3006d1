//! The write path: applying a write at once, handing its entry to the journal, holding
//! the replies until it is stored ([`Stored`]) or taking it back, and reserving versions
//! ahead ([`Reserved`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;

use tokio::sync::oneshot;

use crate::actors::Failure;
use crate::metrics::METRICS;
use crate::model::activity::{Actor, Logged};
use crate::model::{Command, Outcome, Space, SpaceError, Touched, Undo};
use crate::store::codec::{Entry, KeyUse};
use crate::store::journal::{Encoded, StorageError};
use crate::threads::heavy;

use super::messages::{Render, Revert, Write, WriteResult};
use super::publish::Committed;
use super::{Pending, SpaceActor, RESERVATION};

/// Stored writes that touched more records than this are freed on a blocking thread.
const FREE_OFF_THREAD: usize = 1_000;
/// How soon a reservation that could not be stored is tried again.
const RESERVE_RETRY: Duration = Duration::from_secs(1);

impl SpaceActor {
    /// Releases every held reply that has become visible, forgets the undo of every
    /// write that is stored, and sends those writes to the change streams; publishes the
    /// space for readers when no applied write is left waiting.
    pub(super) fn release(&mut self) {
        let visible = self.visible();
        let mut durable: Vec<Touched> = Vec::new();
        let mut formers = Vec::new();
        let mut stored = Vec::new();
        while self.pending.front().is_some_and(|p| p.version <= visible) {
            let pending = self.pending.pop_front().expect("checked");
            if !self.streams.is_empty() {
                durable.extend(pending.outcome.touched().cloned());
                formers.extend(pending.undo.formers());
            }
            if let Some(space) = &mut self.durable {
                if let Err(e) = space.replay(&pending.outcome) {
                    log::error!("the durable copy of space {} is off: {e}", space.id());
                    self.durable = None;
                }
            }
            self.log_activity(&pending.outcome, &pending.undo.formers());
            stored.push(pending);
        }
        if self.pending.is_empty() {
            self.durable = None;
        }
        // The undo of a stored write holds the former state of every record it touched,
        // freed when it goes: 10,000 records for one flip of isBlocked, milliseconds that
        // the other spaces of this thread would wait. So a big one goes on a blocking
        // thread.
        let records: usize = stored.iter().map(|p| p.outcome.touched().count()).sum();
        if records > FREE_OFF_THREAD {
            tokio::task::spawn_blocking(move || drop(stored));
        }
        if !durable.is_empty() {
            // A stream that cannot keep up is ended; its client resumes from its last id.
            // Each goes only to the streams it may concern (`Interests`).
            let committed = Committed::new(durable);
            let touched = committed.touched.iter().zip(&formers);
            let touched = touched.map(|(t, former)| (t.kind, former.as_deref(), &*t.record));
            self.streams.send(touched, |stream| {
                stream.try_send(Arc::clone(&committed)).is_ok()
            });
        }
        // Before the replies: a client that has its answer reads what it wrote.
        self.publish(false);
        while self.held.front().is_some_and(|h| h.version <= visible) {
            let held = self.held.pop_front().expect("checked");
            (held.release)(Ok(()));
        }
    }

    /// Appends a durable write's activity (docs §23) to the space's log: a `write(2)` of
    /// a few hundred bytes to the page cache, not synced (the log is synced before the
    /// snapshot that lets the journal go, `store::activity`), so it stays on the actor's
    /// thread where it keeps the order of the writes. A failure is logged: the activity
    /// is derived again from the journal at the next start.
    pub(super) fn log_activity(
        &mut self,
        outcome: &crate::model::Outcome,
        formers: &[Option<Arc<crate::model::Record>>],
    ) {
        let logged = Logged::derive(outcome, formers);
        let now = chrono::Utc::now().timestamp_millis();
        let appended = (self.activity.log(self.space.id())).and_then(|log| log.append(logged, now));
        if let Err(e) = appended {
            log::error!("the activity of space {} is off: {e}", self.space.id());
        }
    }

    /// Takes back every applied write above `keep` and fails every reply that showed one.
    fn take_back(&mut self, keep: u64, error: StorageError) {
        while self.pending.back().is_some_and(|p| p.version > keep) {
            let pending = self.pending.pop_back().expect("checked");
            METRICS.count_outcome(&pending.outcome, -1);
            self.space.undo(pending.undo);
        }
        while self.held.back().is_some_and(|h| h.version > keep) {
            let held = self.held.pop_back().expect("checked");
            (held.release)(Err(Failure::Storage(error.clone())));
        }
        self.epoch += 1;
        self.stored = self.stored.min(self.space.version());
        self.note_reminder();
    }

    /// Applies `commands` as one write and sends its outcome (with the answer kept for
    /// its idempotency key, if any) to the journal; `reply` gets what it did, made into
    /// what the requester waits for by `output`.
    ///
    /// Most writes cost microseconds and are applied here. One that may take long
    /// ([`Space::is_heavy`]: a dependency check near its budget, `isBlocked` flips of
    /// thousands of tasks, the roll of a repeating task, a journal entry of megabytes)
    /// leaves the actor's thread, since space actors share a few arbiter threads: the space
    /// is moved to the heavy pool ([`heavy`], in the space's own turn) that applies the
    /// write and encodes its journal entry there, while `ctx.wait` holds
    /// this actor's mailbox (and its timers). Nothing else of this space runs meanwhile,
    /// so writes stay one at a time and in order, but the arbiter thread goes on with the
    /// other spaces' actors (docs §21, "§9a — one account's work cannot stall
    /// another's"). Back on the actor, the write is held, journaled and answered as any.
    pub(super) fn write<T: Send + 'static>(
        &mut self,
        write: Write,
        reply: oneshot::Sender<Result<T, Failure>>,
        output: fn(WriteResult) -> T,
        ctx: &mut Context<Self>,
    ) {
        let now = chrono::Utc::now().timestamp_millis();
        let journals = self.journal.durability().journals_writes();
        let Write {
            commands,
            key,
            actor,
            revert,
        } = write;
        let how = How {
            actor,
            revert,
            now,
            journals,
        };
        // A revert is applied on the heavy pool: what it undoes may cascade far.
        if how.revert.is_none() && !self.space.is_heavy(&commands) {
            let space = &mut self.space;
            let applied =
                catch_unwind(AssertUnwindSafe(|| apply_write(space, &commands, key, how)));
            return self.finish_write(applied, reply, output, ctx);
        }
        let id = self.space.id().to_string();
        let mut space = std::mem::replace(&mut self.space, Space::new(&id));
        self.applying = true;
        let owner = id.clone();
        let apply = async move {
            heavy::run(&owner, move || {
                let applied = catch_unwind(AssertUnwindSafe(|| {
                    apply_write(&mut space, &commands, key, how)
                }));
                (space, applied)
            })
            .await
        };
        ctx.wait(apply.into_actor(self).map(move |joined, act, ctx| {
            act.applying = false;
            let (space, applied) = match joined {
                Ok(done) => done,
                Err(e) => {
                    // Only when the pool lost the job: the space went with it.
                    log::error!(
                        "a write of space {} was cut off: {e}; reloading it",
                        act.space.id()
                    );
                    let _ = reply.send(Err(Failure::Stopped));
                    act.reload(ctx);
                    return;
                }
            };
            act.space = space;
            act.finish_write(applied, reply, output, ctx);
        }));
    }

    /// Takes in what applying a write gave: holds, journals and answers a success, answers
    /// a refusal, reloads the space after a panic.
    fn finish_write<T: Send + 'static>(
        &mut self,
        applied: std::thread::Result<Result<Applied, (usize, SpaceError)>>,
        reply: oneshot::Sender<Result<T, Failure>>,
        output: fn(WriteResult) -> T,
        ctx: &mut Context<Self>,
    ) {
        match applied {
            Ok(Ok((outcome, undo, entry))) => {
                let version = self.applied(outcome.clone(), undo, entry, ctx);
                self.answer(version, reply, output(Ok(outcome)));
            }
            Ok(Err(e)) => {
                let version = self.space.version();
                self.answer(version, reply, output(Err(e)));
            }
            Err(panic) => self.panicked(&*panic, reply, ctx),
        }
    }

    /// Takes in a write applied to the space: holds its undo until it is stored, and
    /// hands its `entry` (`None` when writes are not journaled) to the journal; the
    /// version it made.
    fn applied(
        &mut self,
        outcome: Arc<Outcome>,
        undo: Undo,
        entry: Option<Result<Encoded, StorageError>>,
        ctx: &mut Context<Self>,
    ) -> u64 {
        METRICS.count_outcome(&outcome, 1);
        let (version, epoch) = (outcome.version, self.epoch);
        self.pending.push_back(Pending {
            version,
            epoch,
            undo,
            outcome,
        });
        self.dirty = true;
        self.note_reminder();
        match entry {
            Some(entry) => {
                let addr = ctx.address();
                self.pace.add(self.journal.append_encoded(
                    entry,
                    false,
                    Box::new(move |result| {
                        addr.do_send(Stored {
                            version,
                            epoch,
                            result,
                        })
                    }),
                ));
            }
            None => {
                self.stored = version;
                self.release();
            }
        }
        self.reserve_ahead(ctx);
        version
    }

    /// Asks the journal for the next range of versions when the space is halfway through
    /// its reservation.
    fn reserve_ahead(&mut self, ctx: &mut Context<Self>) {
        let version = self.space.version();
        if self.applying
            || self.reserving
            || self.reserved == u64::MAX
            || version + RESERVATION / 2 <= self.reserved
        {
            return;
        }
        self.reserving = true;
        let up_to = version + RESERVATION;
        let addr = ctx.address();
        let entry = Entry::Reserve {
            space: self.space.id().into(),
            up_to,
        };
        self.pace.add(self.journal.append(
            &entry,
            true,
            Box::new(move |result| addr.do_send(Reserved { up_to, result })),
        ));
    }
}

/// A write applied to a space: its outcome, its undo, and its journal entry (`None` when
/// writes are not journaled).
type Applied = (Arc<Outcome>, Undo, Option<Result<Encoded, StorageError>>);

/// How a write is applied: by whom, whether it is a revert, when, and whether it is
/// journaled.
struct How {
    actor: Option<Actor>,
    revert: Option<Revert>,
    now: i64,
    journals: bool,
}

/// Applies `commands` (or the revert `how` names) to `space` at `how.now` and, when
/// `how.journals`, encodes the write's journal entry with the answer kept for its
/// idempotency key `key`; or which command failed and why.
fn apply_write(
    space: &mut Space,
    commands: &[Command],
    key: Option<(KeyUse, Render)>,
    how: How,
) -> Result<Applied, (usize, SpaceError)> {
    let How {
        actor,
        revert,
        now,
        journals,
    } = how;
    let (mut outcome, undo) = match &revert {
        None => space.apply(commands, now)?,
        Some(revert) => {
            let current = |kind, id: &str| space.get(kind, id).ok().map(|item| item.record);
            let commands = revert
                .logged
                .revert(current, &revert.since, revert.force)
                .map_err(|conflicts| (0, SpaceError::RevertConflict(conflicts)))?;
            space.apply_as_one(&commands, now)?
        }
    };
    outcome.meta.at = now;
    outcome.meta.actor = actor;
    outcome.meta.revert_of = revert.map(|r| r.of);
    let outcome = Arc::new(outcome);
    let entry = journals.then(|| {
        let key = key.map(|(used, render)| Box::new((used, render(&outcome, space.id()))));
        Encoded::of(&Entry::write(space.id().into(), Arc::clone(&outcome), key))
    });
    Ok((outcome, undo, entry))
}

/// The journal's answer for the write that made `version`.
#[derive(Message)]
#[rtype(result = "()")]
struct Stored {
    version: u64,
    epoch: u64,
    result: Result<(), StorageError>,
}

impl Handler<Stored> for SpaceActor {
    type Result = ();

    fn handle(&mut self, msg: Stored, ctx: &mut Context<Self>) {
        let live = self
            .pending
            .iter()
            .any(|p| p.version == msg.version && p.epoch == msg.epoch);
        if !live {
            return; // a write taken back already
        }
        match msg.result {
            Ok(()) => {
                self.stored = self.stored.max(msg.version);
                self.release();
            }
            Err(e) => self.take_back(msg.version - 1, e),
        }
        self.fire_more(ctx);
    }
}

/// The journal's answer for a reservation of versions up to `up_to`.
#[derive(Message)]
#[rtype(result = "()")]
struct Reserved {
    up_to: u64,
    result: Result<(), StorageError>,
}

impl Handler<Reserved> for SpaceActor {
    type Result = ();

    fn handle(&mut self, msg: Reserved, ctx: &mut Context<Self>) {
        self.reserving = false;
        match msg.result {
            Ok(()) => {
                self.reserved = self.reserved.max(msg.up_to);
                self.release();
                self.reserve_ahead(ctx);
            }
            // The writes waiting for it are in the journal already and may be stored: they
            // wait for a reservation that lands (or fail with their own entries).
            Err(_) if self.journal.durability().journals_writes() => {
                ctx.run_later(RESERVE_RETRY, |act, ctx| act.reserve_ahead(ctx));
            }
            Err(e) => self.take_back(self.reserved, e),
        }
    }
}
