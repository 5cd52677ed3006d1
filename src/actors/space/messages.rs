//! The messages a space actor answers: reads, writes, firing, subscribing, replication,
//! and the housekeeping ones (version, forget, flush).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use actix::prelude::*;

use tokio::sync::oneshot;

use crate::actors::snapshot::SnapshotFailure;
use crate::actors::Failure;
use crate::metrics::METRICS;
use crate::model::activity::{Actor, Logged, Since};
use crate::model::views::Pin;
use crate::model::{Command, Outcome, Space, SpaceError, Touched};
use crate::store::codec::{KeptAnswer, KeyUse};

use super::publish::{Changes, Committed};
use super::SpaceActor;

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

/// A read of the space's durable state, answered at once: the state the actor publishes
/// (see [`super::publish::Shown`]), which holds every durable write and none that waits for
/// its sync. For a reader that needs only the writes it was told are durable (the webhook
/// sender), where [`Read`] would wait for the sync of writes it does not need.
pub(crate) struct ReadDurable<T>(pub Box<dyn FnOnce(&Space) -> T + Send>);

impl<T: Send + 'static> Operation for ReadDurable<T> {
    type Output = T;

    fn run(self, actor: &mut SpaceActor, _: &mut Context<SpaceActor>) -> (Self::Output, u64) {
        actor.publish(true);
        let durable = actor.shown.durable();
        ((self.0)(&durable), durable.version())
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
    /// Who makes it (docs §23); the actor stamps its time.
    pub actor: Option<Actor>,
    /// Instead of `commands`: undo this logged write (docs §23), decided on the actor so
    /// that nothing is written between the check for conflicts and the write.
    pub revert: Option<Revert>,
}

/// A revert of a logged write (docs §23).
pub struct Revert {
    /// The write to undo.
    pub logged: Arc<Logged>,
    /// Which of its records were deleted or restored since, as the log says.
    pub since: Since,
    /// The version the request named.
    pub of: u64,
    /// Undo even what was written since.
    pub force: bool,
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
    /// Only the writes of tasks that hold this, before or after (and those of other
    /// kinds): a live view's [`Pin`]; `None` for every write.
    pub pin: Option<Pin>,
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
                actor.streams.subscribe(self.changes, self.pin);
            }
        });
        (backlog, 0)
    }
}

/// What a stream entry of the space holds (docs §16).
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
                match actor.space.replay_noting(&outcome) {
                    Err(e) => return (Err(e), 0),
                    Ok(Some(formers)) => {
                        METRICS.count_outcome(&outcome, 1);
                        // A standby derives the activity from the replicated journal.
                        actor.log_activity(&outcome, &formers);
                    }
                    Ok(None) => {}
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
