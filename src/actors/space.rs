//! The space actor: one per space, owning its [`Space`] and handling one message at a time.
//!
//! Each operation is a message whose handler calls one `Space` method; the rules live in
//! the model. Requests arrive wrapped in [`Bounded`] through the directory, which uses
//! `try_send` so that a full mailbox is reported instead of queued (see `directory`).
//!
//! After a successful write the actor is dirty; every snapshot interval a dirty actor hands
//! a snapshot (records shared by `Arc`, not copied) to the snapshot actor and goes on
//! serving while it is encoded and written elsewhere. A failed write leaves it dirty so the
//! next tick tries again.

use std::time::Duration;

use actix::prelude::*;
use tokio::sync::oneshot;

use super::snapshot::{saved, SaveSpace, SnapshotActor};
use crate::model::{Changes, Item, Kind, ListQuery, Page, Space, SpaceError};

/// Owns one space.
pub struct SpaceActor {
    space: Space,
    snapshots: Addr<SnapshotActor>,
    interval: Duration,
    /// Written since the last snapshot was handed off.
    dirty: bool,
    /// A snapshot is being written.
    saving: bool,
}

impl SpaceActor {
    /// An actor for `space`, snapshotting through `snapshots` every `interval`.
    pub fn new(space: Space, snapshots: Addr<SnapshotActor>, interval: Duration) -> SpaceActor {
        SpaceActor {
            space,
            snapshots,
            interval,
            dirty: false,
            saving: false,
        }
    }

    /// Notes the outcome of a write: a successful one must reach the next snapshot.
    fn wrote<T>(&mut self, outcome: Result<T, SpaceError>) -> Result<T, SpaceError> {
        self.dirty |= outcome.is_ok();
        outcome
    }

    /// Hands a snapshot to the snapshot actor if there is anything new and no save is
    /// running; the reply clears `saving` and, on failure, marks the space dirty again.
    fn save(&mut self, ctx: &mut Context<Self>) {
        if !self.dirty || self.saving {
            return;
        }
        self.dirty = false;
        self.saving = true;
        self.snapshots
            .send(SaveSpace(self.space.snapshot()))
            .into_actor(self)
            .map(|outcome, act, _| {
                act.saving = false;
                if let Err(e) = saved(outcome) {
                    log::error!("snapshot of space {} failed: {e}", act.space.id());
                    act.dirty = true;
                }
            })
            .spawn(ctx);
    }
}

impl Actor for SpaceActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(self.interval, |act, ctx| act.save(ctx));
    }
}

fn now() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// An operation and the channel its reply goes back on; see [`super::Directory::call`].
pub struct Bounded<M: Message> {
    /// The operation.
    pub msg: M,
    /// Where the handler's result is sent.
    pub reply: oneshot::Sender<M::Result>,
}

impl<M: Message> Message for Bounded<M> {
    type Result = ();
}

/// Each request-reply operation is also accepted wrapped in [`Bounded`]: handled as
/// itself, with the result sent back on the envelope's channel.
macro_rules! bounded {
    ($($op:ty),*) => {$(
        impl Handler<Bounded<$op>> for SpaceActor {
            type Result = ();

            fn handle(&mut self, bounded: Bounded<$op>, ctx: &mut Context<Self>) {
                let result = <Self as Handler<$op>>::handle(self, bounded.msg, ctx);
                // The requester may be gone (client disconnected); a write still counts.
                let _ = bounded.reply.send(result);
            }
        }
    )*};
}

bounded!(
    GetRecord,
    CreateRecord,
    UpdateRecord,
    SetDeleted,
    ListRecords
);

/// Read one record, deleted or not.
#[derive(Message)]
#[rtype(result = "Result<Item, SpaceError>")]
pub struct GetRecord {
    /// Its kind.
    pub kind: Kind,
    /// Its id.
    pub id: String,
}

impl Handler<GetRecord> for SpaceActor {
    type Result = Result<Item, SpaceError>;

    fn handle(&mut self, msg: GetRecord, _: &mut Context<Self>) -> Self::Result {
        self.space.get(msg.kind, &msg.id)
    }
}

/// Create a record.
#[derive(Message)]
#[rtype(result = "Result<Item, SpaceError>")]
pub struct CreateRecord {
    /// Its kind.
    pub kind: Kind,
    /// The validated body.
    pub changes: Changes,
}

impl Handler<CreateRecord> for SpaceActor {
    type Result = Result<Item, SpaceError>;

    fn handle(&mut self, msg: CreateRecord, _: &mut Context<Self>) -> Self::Result {
        let outcome = self.space.create(msg.kind, msg.changes, now());
        self.wrote(outcome)
    }
}

/// Update a record.
#[derive(Message)]
#[rtype(result = "Result<Item, SpaceError>")]
pub struct UpdateRecord {
    /// Its kind.
    pub kind: Kind,
    /// Its id.
    pub id: String,
    /// The validated body.
    pub changes: Changes,
}

impl Handler<UpdateRecord> for SpaceActor {
    type Result = Result<Item, SpaceError>;

    fn handle(&mut self, msg: UpdateRecord, _: &mut Context<Self>) -> Self::Result {
        let outcome = self.space.update(msg.kind, &msg.id, msg.changes, now());
        self.wrote(outcome)
    }
}

/// Soft-delete (`deleted: true`) or restore a record.
#[derive(Message)]
#[rtype(result = "Result<Item, SpaceError>")]
pub struct SetDeleted {
    /// Its kind.
    pub kind: Kind,
    /// Its id.
    pub id: String,
    /// Delete or restore.
    pub deleted: bool,
}

impl Handler<SetDeleted> for SpaceActor {
    type Result = Result<Item, SpaceError>;

    fn handle(&mut self, msg: SetDeleted, _: &mut Context<Self>) -> Self::Result {
        let outcome = self
            .space
            .set_deleted(msg.kind, &msg.id, msg.deleted, now());
        self.wrote(outcome)
    }
}

/// One page of a collection.
#[derive(Message)]
#[rtype(result = "Result<Page, SpaceError>")]
pub struct ListRecords {
    /// The collection's kind.
    pub kind: Kind,
    /// Limit, filters and cursor.
    pub query: ListQuery,
}

impl Handler<ListRecords> for SpaceActor {
    type Result = Result<Page, SpaceError>;

    fn handle(&mut self, msg: ListRecords, _: &mut Context<Self>) -> Self::Result {
        self.space.list(msg.kind, &msg.query)
    }
}

/// Write the space's snapshot now if it has changed since the last one that landed (or a
/// save is still running), and reply once it is on disk. Sent at shutdown.
#[derive(Message)]
#[rtype(result = "Result<(), String>")]
pub struct Flush;

impl Handler<Flush> for SpaceActor {
    type Result = ResponseActFuture<Self, Result<(), String>>;

    fn handle(&mut self, _: Flush, _: &mut Context<Self>) -> Self::Result {
        if !self.dirty && !self.saving {
            return Box::pin(fut::ready(Ok(())));
        }
        self.dirty = false;
        Box::pin(
            self.snapshots
                .send(SaveSpace(self.space.snapshot()))
                .into_actor(self)
                .map(|outcome, act, _| {
                    let outcome = saved(outcome);
                    act.dirty |= outcome.is_err();
                    outcome
                }),
        )
    }
}
