//! The snapshot actor: writes snapshot files on a blocking thread of its own.
//!
//! It runs in a `SyncArbiter` so that encoding and fsync never block the threads that run
//! space actors or HTTP workers; one thread, so writes to the same file happen in the order
//! they were sent and the newest snapshot always lands last.

use actix::{Actor, Handler, MailboxError, Message, SyncContext};

use crate::model::{SpaceSnapshot, UsersSnapshot};
use crate::store::{Store, StoreError};

/// Owns the data directory for writing.
pub struct SnapshotActor {
    store: Store,
}

impl SnapshotActor {
    /// An actor writing into `store`.
    pub fn new(store: Store) -> SnapshotActor {
        SnapshotActor { store }
    }
}

impl Actor for SnapshotActor {
    type Context = SyncContext<Self>;
}

/// Replace one space's file with this snapshot.
#[derive(Message)]
#[rtype(result = "Result<(), StoreError>")]
pub struct SaveSpace(pub SpaceSnapshot);

impl Handler<SaveSpace> for SnapshotActor {
    type Result = Result<(), StoreError>;

    fn handle(&mut self, msg: SaveSpace, _: &mut SyncContext<Self>) -> Self::Result {
        self.store.save_space(&msg.0)
    }
}

/// Replace the users file with this snapshot.
#[derive(Message)]
#[rtype(result = "Result<(), StoreError>")]
pub struct SaveUsers(pub UsersSnapshot);

impl Handler<SaveUsers> for SnapshotActor {
    type Result = Result<(), StoreError>;

    fn handle(&mut self, msg: SaveUsers, _: &mut SyncContext<Self>) -> Self::Result {
        self.store.save_users(&msg.0)
    }
}

/// The outcome of a save request as one message: `Ok` once the file is on disk.
pub fn saved(outcome: Result<Result<(), StoreError>, MailboxError>) -> Result<(), String> {
    match outcome {
        Ok(written) => written.map_err(|e| e.to_string()),
        Err(e) => Err(format!("snapshot actor unavailable: {e}")),
    }
}
