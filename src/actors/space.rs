//! The space actor: one per space, owning its [`Space`] and handling one message at a time.
//!
//! A write runs in three steps. The actor applies the [`Command`] to the space at once (so
//! the next message sees it), hands the outcome to the journal, and holds the reply. The
//! journal's answer comes back as a [`Stored`] message; only then is the reply released.
//! Meanwhile the actor goes on with later messages, so many writes of one space share a
//! sync (group commit). A read is held behind the writes it could see, so no response
//! shows a write before it is durable (CONTRACT §8).
//!
//! In `write` and `snapshot` durability a write may be answered before it is synced, so the
//! actor first reserves a range of versions in the journal (synced); after an unclean stop
//! the space resumes above the reservation, and no version is handed out twice.
//!
//! Reads do not come to the actor. Whenever writes become durable and readers came since it
//! last did, the actor publishes the space's durable state in a [`Shown`] (an O(1) clone:
//! the space's maps are persistent and share their nodes; writes still waiting for their
//! sync are taken back in the copy), and readers on the HTTP workers' threads read that. A
//! read that finds the published state older than what an answer may have shown waits here
//! instead, as a [`Read`] message held with the writes it arrived behind.
//!
//! When the journal cannot store a write, the actor takes it back (and every later write,
//! which was built on it) and those requests get `503 storage_unavailable`. A panic while
//! handling a message answers that request `500`, and the space is reloaded from disk
//! before the next message.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use actix::prelude::*;
use arc_swap::ArcSwap;

use actix_web::web::Bytes;
use tokio::sync::{mpsc, oneshot};

use super::reminders::{Timer, FIRE_BATCH, FIRE_WRITES};
use super::snapshot::{answered, Reload, SaveSpace, SnapshotActor, SnapshotFailure};
use super::Failure;
use crate::metrics::METRICS;
use crate::model::record::Id;
use crate::model::space::LIGHT_COMMANDS;
use crate::model::{Command, Kind, Op, Outcome, Space, SpaceError, Touched, Undo};
use crate::store::codec::{Entry, KeptAnswer, KeyUse};
use crate::store::journal::{Encoded, Journal, StorageError};
use crate::store::{Pace, StoreError};

/// How many versions one reservation covers; a new one is asked for halfway through.
pub(crate) const RESERVATION: u64 = 10_000;
/// Stored writes that touched more records than this are freed on a blocking thread.
const FREE_OFF_THREAD: usize = 1_000;
/// How soon a reservation that could not be stored is tried again.
const RESERVE_RETRY: Duration = Duration::from_secs(1);

/// A write applied to the space whose journal entry is not stored yet.
struct Pending {
    version: u64,
    /// Tells this write's [`Stored`] message from one of a write taken back earlier that
    /// had the same version.
    epoch: u64,
    undo: Undo,
    /// What it did, for the change streams once it is durable.
    outcome: Arc<Outcome>,
}

/// Where a change stream gets the changes of its space: every durable change, each
/// version's records together.
pub(crate) type Changes = mpsc::Sender<Arc<Committed>>;

/// Durable changes as every change stream of the space gets them: the records, and their
/// events, rendered once by the first stream that sends them and shared by all.
pub(crate) struct Committed {
    /// The records, in feed order.
    pub touched: Vec<Touched>,
    /// Their server-sent events.
    pub events: OnceLock<Bytes>,
}

impl Committed {
    fn new(touched: Vec<Touched>) -> Arc<Committed> {
        Arc::new(Committed {
            touched,
            events: OnceLock::new(),
        })
    }
}

/// What the readers of a space see without a message to its actor: the state the actor
/// last published, holding durable writes only (CONTRACT §8), and the highest version an
/// answer of the space may have shown. Shared by the actor and the registry.
///
/// A reader may use the published state while it holds every version an answer may have
/// shown: then whatever it reads is at least as new as what any client was told, and writes
/// applied but not yet durable (no client was told of them) do not hold it up. So a space
/// that writes all the time (a burst of reminder firings, a writer that never pauses) still
/// serves its reads on the readers' threads.
///
/// A publication is not free: the next write copies the tree nodes on its paths that the
/// published copy still shares. So the actor publishes only when a reader came since it
/// last did (`wanted`); a space that is only written never pays, and the first read after
/// a quiet spell goes through the actor, which publishes then.
pub(crate) struct Shown {
    published: ArcSwap<Space>,
    answered: AtomicU64,
    wanted: AtomicBool,
}

impl Shown {
    /// `space` published, every write of which is durable.
    pub(crate) fn new(space: Arc<Space>) -> Shown {
        Shown {
            answered: AtomicU64::new(space.version()),
            published: ArcSwap::new(space),
            wanted: AtomicBool::new(false),
        }
    }

    /// The published space, unless an answer may have shown a version beyond it: a read
    /// that arrives then goes to the actor, which publishes again (§8).
    pub(crate) fn current(&self) -> Option<Arc<Space>> {
        if !self.wanted.load(Ordering::Relaxed) {
            self.wanted.store(true, Ordering::Relaxed);
        }
        let answered = self.answered.load(Ordering::Acquire);
        let space = self.published.load_full();
        (answered <= space.version()).then_some(space)
    }

    /// Whether a reader came since the last call, or `always`; clears the mark.
    fn wanted(&self, always: bool) -> bool {
        self.wanted.swap(false, Ordering::Relaxed) || always
    }

    /// The version of the published space.
    fn version(&self) -> u64 {
        self.published.load().version()
    }

    /// Publishes `space`, every write of which is durable.
    fn store(&self, space: Space) {
        self.published.store(Arc::new(space));
    }

    /// From now on, answers may show versions up to `version`. A space reloaded after a
    /// lost write (`snapshot` durability) moves it back.
    fn answers_up_to(&self, version: u64) {
        self.answered.store(version, Ordering::Release);
    }
}

/// A reply waiting until the version it shows is durable.
struct Held {
    version: u64,
    release: Box<dyn FnOnce(Result<(), Failure>) + Send>,
}

/// Owns one space.
pub struct SpaceActor {
    space: Space,
    /// What readers see; see [`Shown`].
    shown: Arc<Shown>,
    journal: Journal,
    snapshots: Addr<SnapshotActor>,
    /// What its snapshot file owes the journal.
    pace: Pace,
    /// The debt the snapshot being written pays.
    paying: u64,
    /// Applied writes not yet stored, oldest first.
    pending: VecDeque<Pending>,
    /// The change streams of the space.
    streams: Vec<Changes>,
    /// Replies waiting for durability, in version order.
    held: VecDeque<Held>,
    /// The highest version whose journal entry is stored.
    stored: u64,
    /// The highest version reserved on disk (`u64::MAX` in `fsync` durability).
    reserved: u64,
    /// A reservation is being written.
    reserving: bool,
    epoch: u64,
    /// Written since the last snapshot was handed off.
    dirty: bool,
    /// A snapshot is being written.
    saving: bool,
    /// The space is on a blocking thread applying a write (see [`SpaceActor::write`]);
    /// `space` is an empty stand-in meanwhile, which nothing may save or reserve for.
    /// Messages wait, but actix may still poll one timer of the actor right after
    /// `ctx.wait` (before it looks at the wait list), so the snapshot tick checks this.
    applying: bool,
    /// The space's durable state, kept while writes wait for their sync and readers want
    /// to see it (see [`SpaceActor::publish`]); `None` otherwise.
    durable: Option<Space>,
    /// Hears when the space's next reminder is due.
    timer: Timer,
    /// A firing left more reminders due (see [`SpaceActor::fire`]).
    refire: bool,
    /// The time of the next reminder the timer last heard of.
    reported: Option<i64>,
}

impl SpaceActor {
    /// An actor for `space`, published in `shown`, journaling through `journal`,
    /// snapshotting through `snapshots` as `pace` says, and telling `timer` when its next
    /// reminder is due (which the timer knows already for `space` as it is now).
    pub(crate) fn new(
        space: Space,
        shown: Arc<Shown>,
        journal: Journal,
        snapshots: Addr<SnapshotActor>,
        pace: Pace,
        timer: Timer,
    ) -> SpaceActor {
        let version = space.version();
        let reserved = if journal.durability().reserves_versions() {
            version
        } else {
            u64::MAX
        };
        SpaceActor {
            shown,
            journal,
            snapshots,
            pace,
            paying: 0,
            pending: VecDeque::new(),
            streams: Vec::new(),
            held: VecDeque::new(),
            stored: version,
            reserved,
            reserving: false,
            epoch: 0,
            dirty: false,
            saving: false,
            applying: false,
            reported: space.next_reminder(),
            durable: None,
            timer,
            refire: false,
            space,
        }
    }

    /// Tells the timer when the space's next reminder is due, if that changed.
    fn note_reminder(&mut self) {
        let next = self.space.next_reminder();
        if next != self.reported {
            self.reported = next;
            self.timer.note(self.space.id(), next);
        }
    }

    /// Fires the reminders due now (CONTRACT §18): each due task, up to [`FIRE_BATCH`] of
    /// them, by a command of its own (its own version and change), [`LIGHT_COMMANDS`] to
    /// a write, so a write stays light and a burst costs a journal entry per
    /// [`LIGHT_COMMANDS`] firings; journaled and answered to nobody. Should a write be
    /// refused, its tasks are fired one a write, so one task the space refuses holds no
    /// other back. When more are due, the space goes on by itself, a batch a message,
    /// while fewer than [`FIRE_WRITES`] of its writes wait for their sync
    /// ([`SpaceActor::fire_more`]): a burst of firings is clocked by the journal, and the
    /// mailbox never holds more than a few hundred of their journal answers, leaving room
    /// for requests.
    fn fire(&mut self, ctx: &mut Context<Self>) {
        if self.pending.len() >= FIRE_WRITES {
            self.refire = true;
            return;
        }
        let now = chrono::Utc::now().timestamp_millis();
        let mut due = self.space.reminders_due(now, FIRE_BATCH + 1);
        self.refire = due.len() > FIRE_BATCH;
        due.truncate(FIRE_BATCH);
        for ids in due.chunks(LIGHT_COMMANDS) {
            self.fire_write(ids.to_vec(), ctx);
        }
        self.fire_more(ctx);
    }

    /// Fires the reminders of tasks `ids` by one write; if it is refused, by one write
    /// each. A write whose journal entry fails is taken back, and its tasks fire again
    /// after the timer's respite.
    fn fire_write(&mut self, ids: Vec<Id>, ctx: &mut Context<Self>) {
        let commands = ids
            .iter()
            .map(|id| Command {
                kind: Kind::Task,
                id: id.as_ref().into(),
                op: Op::Remind,
                if_match: None,
            })
            .collect();
        let write = Write {
            commands,
            key: None,
        };
        let (reply, answer) = oneshot::channel();
        self.write(write, reply, std::convert::identity, ctx);
        if ids.len() > 1 {
            ctx.spawn(answer.into_actor(self).map(move |answer, act, ctx| {
                if let Ok(Ok(Err((at, e)))) = answer {
                    log::warn!(
                        "space {}: firing the reminders of task {} was refused ({e}); \
                         firing the other {} tasks one by one",
                        act.space.id(),
                        ids[at],
                        ids.len() - 1
                    );
                    for id in ids {
                        act.fire_write(vec![id], ctx);
                    }
                }
            }));
        }
    }

    /// Fires the next batch of due reminders (after the other messages waiting) if the
    /// last firing left more due and few of its writes wait for their sync.
    fn fire_more(&mut self, ctx: &mut Context<Self>) {
        if self.refire && self.pending.len() < FIRE_WRITES {
            self.refire = false;
            ctx.notify(FireMore);
        }
    }

    /// The highest version every client may see: stored and reserved.
    fn visible(&self) -> u64 {
        self.stored.min(self.reserved)
    }

    /// Sends `result` now if the version it shows is visible, else holds it until it is.
    fn answer<T: Send + 'static>(
        &mut self,
        shows: u64,
        reply: oneshot::Sender<Result<T, Failure>>,
        result: T,
    ) {
        if shows <= self.visible() {
            let _ = reply.send(Ok(result));
            return;
        }
        self.held.push_back(Held {
            version: shows,
            release: Box::new(move |outcome| {
                // The requester may be gone (client disconnected); the write still counts.
                let _ = reply.send(outcome.map(|()| result));
            }),
        });
    }

    /// Releases every held reply that has become visible, forgets the undo of every
    /// write that is stored, and sends those writes to the change streams; publishes the
    /// space for readers when no applied write is left waiting.
    fn release(&mut self) {
        let visible = self.visible();
        let mut durable: Vec<Touched> = Vec::new();
        let mut stored = Vec::new();
        while self.pending.front().is_some_and(|p| p.version <= visible) {
            let pending = self.pending.pop_front().expect("checked");
            if !self.streams.is_empty() {
                durable.extend(pending.outcome.touched().cloned());
            }
            if let Some(space) = &mut self.durable {
                if let Err(e) = space.replay(&pending.outcome) {
                    log::error!("the durable copy of space {} is off: {e}", space.id());
                    self.durable = None;
                }
            }
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
            let committed = Committed::new(durable);
            self.streams
                .retain(|stream| stream.try_send(Arc::clone(&committed)).is_ok());
        }
        // Before the replies: a client that has its answer reads what it wrote.
        self.publish(false);
        while self.held.front().is_some_and(|h| h.version <= visible) {
            let held = self.held.pop_front().expect("checked");
            (held.release)(Ok(()));
        }
    }

    /// Publishes the space's durable state for readers (see [`Shown`]) when a reader asked
    /// since the last publication, or `always`, or while a durable copy is kept, and lets
    /// answers show it.
    ///
    /// With no write waiting for its sync that is the space itself (an O(1) clone). Else
    /// it is a copy kept beside the space while writes keep coming: made once by taking
    /// the waiting writes back in a clone, then moved on by replaying each write as it
    /// becomes durable ([`SpaceActor::release`]), and dropped once none waits. So a space
    /// written without pause (a burst of reminder firings) pays one replay a write while
    /// readers look, not a rebuild per publication.
    fn publish(&mut self, always: bool) {
        if self.applying {
            return;
        }
        let visible = self.visible().min(self.space.version());
        // While a durable copy is kept (readers looked during this run of writes), every
        // durable write is published at once, so that readers never find the copy behind
        // what answers may show and go to the actor.
        let wanted = self.shown.wanted(always) || self.durable.is_some();
        if wanted && self.shown.version() != visible {
            let waiting = self
                .pending
                .iter()
                .rev()
                .take_while(|p| p.version > visible);
            if waiting.clone().next().is_none() {
                self.shown.store(self.space.clone());
            } else {
                let durable = self.durable.get_or_insert_with(|| {
                    let mut durable = self.space.clone();
                    for pending in waiting {
                        durable.undo(pending.undo.clone());
                    }
                    durable
                });
                self.shown.store(durable.clone());
            }
        }
        self.shown.answers_up_to(visible);
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
    /// thousands of tasks, a journal entry of megabytes) leaves the actor's thread, since
    /// space actors share a few arbiter threads: the space is moved to a blocking thread
    /// that applies the write and encodes its journal entry there, while `ctx.wait` holds
    /// this actor's mailbox (and its timers). Nothing else of this space runs meanwhile,
    /// so writes stay one at a time and in order, but the arbiter thread goes on with the
    /// other spaces' actors (CONTRACT §21, "§9a — one account's work cannot stall
    /// another's"). Back on the actor, the write is held, journaled and answered as any.
    fn write<T: Send + 'static>(
        &mut self,
        write: Write,
        reply: oneshot::Sender<Result<T, Failure>>,
        output: fn(WriteResult) -> T,
        ctx: &mut Context<Self>,
    ) {
        let now = chrono::Utc::now().timestamp_millis();
        let journals = self.journal.durability().journals_writes();
        let Write { commands, key } = write;
        if !self.space.is_heavy(&commands) {
            let space = &mut self.space;
            let applied = catch_unwind(AssertUnwindSafe(|| {
                apply_write(space, &commands, key, now, journals)
            }));
            return self.finish_write(applied, reply, output, ctx);
        }
        let id = self.space.id().to_string();
        let mut space = std::mem::replace(&mut self.space, Space::new(&id));
        self.applying = true;
        let apply = tokio::task::spawn_blocking(move || {
            yield_to_requests();
            let applied = catch_unwind(AssertUnwindSafe(|| {
                apply_write(&mut space, &commands, key, now, journals)
            }));
            (space, applied)
        });
        ctx.wait(apply.into_actor(self).map(move |joined, act, ctx| {
            act.applying = false;
            let (space, applied) = match joined {
                Ok(done) => done,
                Err(e) => {
                    // Only when the runtime shuts down: the space went with the task.
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

    /// After a panic while handling a message: answers it `500` and reloads the space
    /// from disk before the next message.
    fn panicked<T>(
        &mut self,
        panic: &(dyn std::any::Any + Send),
        reply: oneshot::Sender<Result<T, Failure>>,
        ctx: &mut Context<Self>,
    ) {
        let cause = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        log::error!("space {} panicked: {cause}; reloading it", self.space.id());
        let _ = reply.send(Err(Failure::Panicked));
        self.reload(ctx);
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

    /// Hands a snapshot of the durable state to the snapshot actor if anything changed, no
    /// save is running, and the journal has grown enough since the last one (see
    /// [`Compaction`]); `last` marks the final one at shutdown, which is always written.
    fn save(&mut self, last: bool) -> Option<Request<SnapshotActor, SaveSpace>> {
        // The final snapshot of a space that reserves versions always lands, so that the
        // next start needs no gap.
        let reserves = self.reserved != u64::MAX;
        if self.applying || self.saving || !(self.dirty || (last && reserves)) {
            return None;
        }
        // Without a journal, the snapshots are all that keeps the writes.
        let force = last || !self.journal.durability().journals_writes();
        self.paying = self.pace.due(force)?;
        let mut view = self.space.view();
        let visible = self.visible();
        for pending in self
            .pending
            .iter()
            .rev()
            .take_while(|p| p.version > visible)
        {
            view.revert(&pending.undo);
        }
        if !last && reserves {
            view.reserved = self.reserved.max(view.version);
        }
        self.dirty = view.version < self.space.version();
        self.saving = true;
        Some(self.snapshots.send(SaveSpace { view, last }))
    }

    /// Notes the end of a save; a failed one leaves the space dirty for the next tick.
    fn saved(
        &mut self,
        outcome: Result<Result<u64, StoreError>, MailboxError>,
    ) -> Result<(), SnapshotFailure> {
        self.saving = false;
        match answered(outcome) {
            Ok(len) => {
                self.pace.paid(self.paying, len);
                Ok(())
            }
            Err(e) => {
                log::error!("snapshot of space {} failed: {e}", self.space.id());
                self.dirty = true;
                Err(e)
            }
        }
    }

    /// After a panic: waits until the journal holds every entry sent so far, then reads
    /// the space back from disk, before any other message is handled.
    fn reload(&mut self, ctx: &mut Context<Self>) {
        let (flushed, done) = oneshot::channel();
        self.journal.flush(Box::new(move |r| {
            let _ = flushed.send(r);
        }));
        let snapshots = self.snapshots.clone();
        let id = self.space.id().to_string();
        let reload = async move {
            let _ = done.await;
            snapshots.send(Reload(id)).await
        };
        ctx.wait(
            reload
                .into_actor(self)
                .map(|reloaded, act, ctx| match answered(reloaded) {
                    Ok(space) => {
                        log::warn!(
                            "space {} reloaded from disk at version {}",
                            space.id(),
                            space.version()
                        );
                        METRICS.count_space(&act.space.view(), -1);
                        METRICS.count_space(&space.view(), 1);
                        act.space = space;
                        act.durable = None;
                        if !act.journal.durability().journals_writes() {
                            // Writes since the last snapshot are gone, as in a crash; the space
                            // resumed above its reservation, and reserves again.
                            act.pending.clear();
                            act.epoch += 1;
                            for held in act.held.drain(..) {
                                (held.release)(Err(Failure::Panicked));
                            }
                            act.stored = act.space.version();
                            act.reserved = act.space.version();
                        }
                        act.publish(true);
                        act.note_reminder();
                    }
                    Err(e) => {
                        log::error!("space {} cannot be reloaded: {e}; it stops", act.space.id());
                        ctx.stop();
                    }
                }),
        );
    }
}

impl Actor for SpaceActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(self.pace.interval(), |act, ctx| {
            if let Some(request) = act.save(false) {
                request
                    .into_actor(act)
                    .map(|outcome, act, _| {
                        let _ = act.saved(outcome);
                    })
                    .spawn(ctx);
            }
        });
    }
}

/// A write applied to a space: its outcome, its undo, and its journal entry (`None` when
/// writes are not journaled).
type Applied = (Arc<Outcome>, Undo, Option<Result<Encoded, StorageError>>);

/// Applies `commands` to `space` at `now` and, when `journals`, encodes the write's journal
/// entry with the answer kept for its idempotency key `key`; or which command failed and
/// why.
fn apply_write(
    space: &mut Space,
    commands: &[Command],
    key: Option<(KeyUse, Render)>,
    now: i64,
    journals: bool,
) -> Result<Applied, (usize, SpaceError)> {
    let (outcome, undo) = space.apply(commands, now)?;
    let outcome = Arc::new(outcome);
    let entry = journals.then(|| {
        let key = key.map(|(used, render)| Box::new((used, render(&outcome, space.id()))));
        Encoded::of(&Entry::Write {
            space: space.id().into(),
            outcome: Arc::clone(&outcome),
            key,
        })
    });
    Ok((outcome, undo, entry))
}

/// The nice value of the threads that apply writes (see [`SpaceActor::write`]): a long
/// write yields the cores to the HTTP workers and the actors, so that the requests of
/// other spaces are answered while it runs (CONTRACT §21), as the snapshot thread does.
/// A short write hardly notices: a thread that has slept is run soon after it wakes
/// whatever its nice value, and only a thread that keeps the core gets the smaller share.
const WRITE_NICE: i32 = 10;

thread_local! {
    /// Whether this thread's priority was lowered to [`WRITE_NICE`] already.
    static YIELDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Lowers the calling thread's priority to [`WRITE_NICE`], once per thread: the blocking
/// threads of the space arbiters' runtimes apply writes and nothing else.
fn yield_to_requests() {
    if YIELDING.replace(true) {
        return;
    }
    // On Linux, `setpriority(PRIO_PROCESS, 0)` sets the calling thread's nice value only.
    if let Err(e) = rustix::process::setpriority_process(None, WRITE_NICE) {
        log::warn!("cannot lower the priority of a thread applying writes: {e}");
    }
}

/// An operation a space answers; see [`Bounded`].
pub trait Operation: Send + 'static {
    /// What the requester gets back.
    type Output: Send + 'static;

    /// Runs on the actor; returns the answer and the space version it shows.
    fn run(self, actor: &mut SpaceActor, ctx: &mut Context<SpaceActor>) -> (Self::Output, u64);

    /// A write says so here, with how its answer becomes `Self::Output`: it is then
    /// applied off the actor's thread instead of [`Operation::run`] (see
    /// `SpaceActor::write`). Anything else is given back, and runs.
    fn into_write(self) -> Result<AsWrite<Self::Output>, Self>
    where
        Self: Sized,
    {
        Err(self)
    }
}

/// An operation and the channel its answer goes back on; see `Spaces::call`.
pub struct Bounded<O: Operation> {
    /// The operation.
    pub op: O,
    /// Where the answer is sent.
    pub reply: oneshot::Sender<Result<O::Output, Failure>>,
}

impl<O: Operation> Message for Bounded<O> {
    type Result = ();
}

impl<O: Operation> Handler<Bounded<O>> for SpaceActor {
    type Result = ();

    fn handle(&mut self, msg: Bounded<O>, ctx: &mut Context<Self>) {
        let Bounded { op, reply } = msg;
        let op = match op.into_write() {
            Ok((write, output)) => return self.write(write, reply, output, ctx),
            Err(op) => op,
        };
        match catch_unwind(AssertUnwindSafe(|| op.run(self, ctx))) {
            Ok((output, shows)) => self.answer(shows, reply, output),
            Err(panic) => self.panicked(&*panic, reply, ctx),
        }
    }
}

/// A read of the space that waits on the actor for the writes it arrived behind (see
/// [`Shown::current`]): it runs on the actor's space, and its answer is held until every
/// write that space holds is durable.
pub(crate) struct Read<T>(pub Box<dyn FnOnce(&Space) -> T + Send>);

impl<T: Send + 'static> Operation for Read<T> {
    type Output = T;

    fn run(self, actor: &mut SpaceActor, _: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        // The readers after this one need not come here.
        actor.publish(false);
        ((self.0)(&actor.space), actor.space.version())
    }
}

/// How the answer kept for an idempotency key is rendered from a write's outcome in a
/// space; the HTTP layer renders the response it sends with the same function.
pub(crate) type Render = fn(&Outcome, &str) -> KeptAnswer;

/// What a write answers: its outcome, or which command failed and why.
pub(crate) type WriteResult = Result<Arc<Outcome>, (usize, SpaceError)>;

/// An operation that is a write: the write, and how its answer becomes the operation's
/// output (see [`Operation::into_write`]).
pub(crate) type AsWrite<T> = (Write, fn(WriteResult) -> T);

/// Apply commands in order as one write (a batch; usually one command).
pub struct Write {
    /// The commands.
    pub commands: Vec<Command>,
    /// The idempotency key the request came with, and how its answer is rendered.
    pub key: Option<(KeyUse, Render)>,
}

impl Operation for Write {
    type Output = WriteResult;

    /// Never called: a write goes through [`Operation::into_write`].
    fn run(self, _: &mut SpaceActor, _: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        unreachable!("a write runs off the actor's thread, see SpaceActor::write")
    }

    fn into_write(self) -> Result<AsWrite<WriteResult>, Self> {
        Ok((self, std::convert::identity))
    }
}

/// Start a change stream: the durable changes after `since` now, then each durable write.
/// The next batch of a firing (see [`SpaceActor::fire_more`]).
#[derive(Message)]
#[rtype(result = "()")]
struct FireMore;

impl Handler<FireMore> for SpaceActor {
    type Result = ();

    fn handle(&mut self, _: FireMore, ctx: &mut Context<Self>) {
        self.fire(ctx);
    }
}

/// Fires the space's reminders that are due (see [`SpaceActor::fire`]); sent by the
/// reminder timer.
pub(crate) struct Fire;

impl Operation for Fire {
    type Output = ();

    fn run(self, actor: &mut SpaceActor, ctx: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        actor.fire(ctx);
        ((), 0)
    }
}

pub(crate) struct Subscribe {
    /// Changes after this version.
    pub since: u64,
    /// Where they go.
    pub changes: Changes,
}

impl Operation for Subscribe {
    type Output = Result<(), SpaceError>;

    fn run(self, actor: &mut SpaceActor, _: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        let visible = actor.visible().min(actor.space.version());
        // Records written since (not durable yet) come with their write's release.
        let backlog = actor.space.changes(self.since, usize::MAX).map(|page| {
            let durable: Vec<Touched> = page
                .changes
                .into_iter()
                .filter(|c| c.record.version <= visible)
                .collect();
            if durable.is_empty() || self.changes.try_send(Committed::new(durable)).is_ok() {
                actor.streams.push(self.changes);
            }
        });
        (backlog, 0)
    }
}

/// What a stream entry of the space holds (CONTRACT §16).
pub(crate) enum Followed {
    /// A write's outcome.
    Write(Arc<Outcome>),
    /// A reservation of versions up to this one.
    Reserve(u64),
}

/// A write or reservation of the space that a standby takes from the stream, applied as
/// recovery applies it.
pub(crate) struct Replicated {
    /// What the entry holds.
    pub entry: Followed,
    /// Its journal frame's length, which the space's next snapshot pays off.
    pub bytes: u64,
}

impl Operation for Replicated {
    type Output = Result<(), String>;

    fn run(self, actor: &mut SpaceActor, _: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        match self.entry {
            Followed::Write(outcome) => {
                let before = actor.space.version();
                if let Err(e) = actor.space.replay(&outcome) {
                    return (Err(e), 0);
                }
                if actor.space.version() > before {
                    METRICS.count_outcome(&outcome, 1);
                }
            }
            Followed::Reserve(up_to) => actor.space.reserve(up_to),
        }
        // Stored in the stream and on this node's disk already.
        let version = actor.space.version();
        actor.stored = actor.stored.max(version);
        if actor.reserved != u64::MAX {
            actor.reserved = actor.reserved.max(version).max(actor.space.reserved());
        }
        actor.pace.add(self.bytes);
        actor.dirty = true;
        actor.release();
        actor.note_reminder();
        (Ok(()), 0)
    }
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

/// Stop for good: the space was deleted. Nothing of it is saved again; its change streams
/// end and replies still held fail.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Forget;

impl Handler<Forget> for SpaceActor {
    type Result = ();

    fn handle(&mut self, _: Forget, ctx: &mut Context<Self>) {
        METRICS.count_space(&self.space.view(), -1);
        self.dirty = false;
        self.streams.clear();
        self.timer.note(self.space.id(), None);
        ctx.stop();
    }
}

/// The space's version.
pub(crate) struct Version;

impl Operation for Version {
    type Output = u64;

    fn run(self, actor: &mut SpaceActor, _: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        let version = actor.visible();
        (version, version)
    }
}

/// Write the final snapshot if the space changed, and reply once it is on disk. Sent at
/// shutdown, once no request is in flight.
#[derive(Message)]
#[rtype(result = "Result<(), SnapshotFailure>")]
pub struct Flush;

impl Handler<Flush> for SpaceActor {
    type Result = ResponseActFuture<Self, Result<(), SnapshotFailure>>;

    fn handle(&mut self, _: Flush, _: &mut Context<Self>) -> Self::Result {
        self.saving = false; // a periodic save still running is superseded by this one
        match self.save(true) {
            None => Box::pin(fut::ready(Ok(()))),
            Some(request) => Box::pin(
                request
                    .into_actor(self)
                    .map(|outcome, act, _| act.saved(outcome)),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::validate::{parse_changes, Mode};
    use crate::model::{Item, Kind, Op};
    use crate::store::journal::fake;
    use crate::store::journal::Durability;
    use crate::store::{Compaction, Store};
    use serde_json::json;

    /// A space actor over a fake journal (see [`fake::Writer`]) and a snapshot actor that
    /// writes into `dir` once an hour.
    fn start(dir: &std::path::Path) -> (Addr<SpaceActor>, fake::Writer) {
        let store = Store::open(dir).unwrap();
        let (journal, writer) = fake::Writer::start(Durability::Fsync);
        let for_snapshots = journal.clone();
        let snapshots = SyncArbiter::start(1, move || {
            SnapshotActor::new(store.clone(), for_snapshots.clone())
        });
        let hourly = Compaction {
            interval: Duration::from_secs(3600),
            percent: 100,
            min_bytes: 1 << 20,
        };
        let space = Space::new("s");
        let shown = Arc::new(Shown::new(Arc::new(space.clone())));
        let timer = super::super::reminders::Timer::new().0;
        let actor = SpaceActor::new(
            space,
            shown,
            journal,
            snapshots,
            Pace::new(hourly, 0),
            timer,
        );
        (actor.start(), writer)
    }

    /// Sends `op` to `actor`; its answer comes on the returned channel.
    fn send<O: Operation>(
        actor: &Addr<SpaceActor>,
        op: O,
    ) -> oneshot::Receiver<Result<O::Output, Failure>> {
        let (reply, answer) = oneshot::channel();
        actor.do_send(Bounded { op, reply });
        answer
    }

    /// Creates task `id`.
    fn create(
        actor: &Addr<SpaceActor>,
        id: &str,
    ) -> oneshot::Receiver<Result<WriteResult, Failure>> {
        let body = json!({ "todoId": id }).as_object().unwrap().clone();
        let command = Command {
            kind: Kind::Task,
            id: id.into(),
            op: Op::Create(parse_changes(Kind::Task, Mode::Create, body).unwrap()),
            if_match: None,
        };
        send(
            actor,
            Write {
                commands: vec![command],
                key: None,
            },
        )
    }

    /// Reads task `id` on the actor.
    fn get(
        actor: &Addr<SpaceActor>,
        id: &str,
    ) -> oneshot::Receiver<Result<Result<Item, SpaceError>, Failure>> {
        let id = id.to_string();
        send(
            actor,
            Read(Box::new(move |s: &Space| s.get(Kind::Task, &id))),
        )
    }

    fn unanswered<T>(answer: &mut oneshot::Receiver<T>) -> bool {
        matches!(answer.try_recv(), Err(oneshot::error::TryRecvError::Empty))
    }

    /// The version a write answered with.
    async fn written(answer: oneshot::Receiver<Result<WriteResult, Failure>>) -> u64 {
        answer.await.unwrap().unwrap().unwrap().version
    }

    #[actix_web::test]
    async fn writes_share_the_journal_and_are_answered_once_stored_with_reads_behind_them() {
        let dir = tempfile::tempdir().unwrap();
        let (actor, mut journal) = start(dir.path());
        let mut first = create(&actor, "t1");
        let mut second = create(&actor, "t2");
        let mut third = create(&actor, "t3");
        journal.queued(3).await;
        // Applied and queued, all three, before any is stored; a read waits behind them.
        let mut read = get(&actor, "t3");
        assert_eq!(journal.settled().await, 3);
        for answer in [&mut first, &mut second, &mut third] {
            assert!(unanswered(answer));
        }
        assert!(unanswered(&mut read));

        journal.answer(Ok(()));
        assert_eq!(written(first).await, 1);
        assert_eq!(journal.settled().await, 2);
        assert!(unanswered(&mut second) && unanswered(&mut read));

        journal.answer(Ok(()));
        journal.answer(Ok(()));
        assert_eq!(written(second).await, 2);
        assert_eq!(written(third).await, 3);
        let item = read.await.unwrap().unwrap().unwrap();
        assert_eq!((&*item.record.id, item.version), ("t3", 3));
    }

    #[actix_web::test]
    async fn a_write_the_journal_refuses_is_taken_back_with_every_write_built_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let (actor, mut journal) = start(dir.path());
        let first = create(&actor, "t1");
        let second = create(&actor, "t2");
        let third = create(&actor, "t3");
        journal.queued(3).await;
        journal.answer(Ok(()));
        journal.answer(Err(StorageError::Io("disk full".into())));
        assert_eq!(written(first).await, 1);
        for refused in [second, third] {
            assert!(matches!(
                refused.await.unwrap(),
                Err(Failure::Storage(StorageError::Io(_)))
            ));
        }
        // The third entry's late answer changes nothing: its write was taken back.
        journal.answer(Ok(()));

        assert!(get(&actor, "t1").await.unwrap().unwrap().is_ok());
        for gone in ["t2", "t3"] {
            assert!(matches!(
                get(&actor, gone).await.unwrap(),
                Ok(Err(SpaceError::NotFound { .. }))
            ));
        }
        let next = create(&actor, "t4");
        journal.queued(1).await;
        journal.answer(Ok(()));
        assert_eq!(
            written(next).await,
            2,
            "the space goes on from the stored write"
        );
        assert_eq!(send(&actor, Version).await.unwrap().unwrap(), 2);
    }
}
