//! The space actor: one per space, owning its [`Space`] and handling one message at a time.
//!
//! A write runs in three steps. The actor applies the [`Command`] to the space at once (so
//! the next message sees it), hands the outcome to the journal, and holds the reply. The
//! journal's answer comes back as a [`Stored`] message; only then is the reply released.
//! Meanwhile the actor goes on with later messages, so many writes of one space share a
//! sync (group commit). A read is held behind the writes it could see, so no response
//! shows a write before it is durable (docs §8).
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
//!
//! The files: this one holds the [`SpaceActor`] and how it answers; `messages` what it is
//! sent; `writes` the write path (journal, group commit, take-back, reservations);
//! `publish` what readers and subscribers see; `firing` reminders; `saving` snapshots and
//! reloads.

use std::collections::VecDeque;
use std::sync::Arc;

use actix::prelude::*;

use tokio::sync::oneshot;

use crate::actors::reminders::Timer;
use crate::actors::snapshot::SnapshotActor;
use crate::actors::Failure;
use crate::model::views::Interests;
use crate::model::{Outcome, Space, Undo};
use crate::store::activity::Activity;
use crate::store::journal::Journal;
use crate::store::Pace;

mod firing;
mod messages;
mod publish;
mod saving;
#[cfg(test)]
mod tests;
mod writes;

pub(crate) use messages::{
    Bounded, Fire, Flush, Followed, Forget, Operation, Read, ReadDurable, Render, Replicated,
    Revert, Subscribe, Version, Write, WriteResult,
};
pub(crate) use publish::{Changes, Committed, Shown};

/// How many versions one reservation covers; a new one is asked for halfway through.
pub(crate) const RESERVATION: u64 = 10_000;

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

/// A reply waiting until the version it shows is durable.
struct Held {
    version: u64,
    release: Box<dyn FnOnce(Result<(), Failure>) + Send>,
}

/// Owns one space.
pub struct SpaceActor {
    space: Space,
    /// The activity logs (docs §23); this space's gets each durable write's entries.
    activity: Arc<Activity>,
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
    /// The change streams, live views and webhook senders of the space, by what their
    /// filters pin (docs §24).
    streams: Interests<Changes>,
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
        activity: Arc<Activity>,
    ) -> SpaceActor {
        let version = space.version();
        let reserved = if journal.durability().reserves_versions() {
            version
        } else {
            u64::MAX
        };
        SpaceActor {
            activity,
            shown,
            journal,
            snapshots,
            pace,
            paying: 0,
            pending: VecDeque::new(),
            streams: Interests::default(),
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
