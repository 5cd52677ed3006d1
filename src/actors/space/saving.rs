//! Saving the space's snapshot and reloading the space from disk after a panic.

use actix::prelude::*;

use tokio::sync::oneshot;

use crate::actors::snapshot::{answered, Reload, SaveSpace, SnapshotActor, SnapshotFailure};
use crate::actors::Failure;
use crate::metrics::METRICS;
use crate::store::StoreError;

use super::SpaceActor;

impl SpaceActor {
    /// Hands a snapshot of the durable state to the snapshot actor if anything changed, no
    /// save is running, and the journal has grown enough since the last one (see
    /// [`Compaction`]); `last` marks the final one at shutdown, which is always written.
    pub(super) fn save(&mut self, last: bool) -> Option<Request<SnapshotActor, SaveSpace>> {
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
    pub(super) fn saved(
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
    pub(super) fn reload(&mut self, ctx: &mut Context<Self>) {
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
