//! The snapshot actor: writes snapshot files, and reads a space back from disk, on a
//! blocking thread of its own.
//!
//! It runs in a `SyncArbiter` so that encoding and fsync never block the threads that run
//! space actors or HTTP workers, at a lower priority so that it does not compete with them
//! for the cores; one thread, so one snapshot at a time, writes to the same file happen in
//! the order they were sent and the newest snapshot always lands last. Each file it writes is
//! reported to the journal, which then deletes the segments the snapshots cover.

use std::time::Instant;

use actix::{Actor, Handler, MailboxError, Message, SyncContext};

use crate::metrics::METRICS;
use crate::model::{DirectorySnapshot, Space, SpaceView};
use crate::store::codec::KeysSnapshot;
use crate::store::journal::Journal;
use crate::store::{Store, StoreError};

/// Why a request to the snapshot actor failed.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotFailure {
    /// The file could not be written or read.
    #[error("{0}")]
    Store(#[source] StoreError),
    /// The snapshot actor did not answer.
    #[error("snapshot actor unavailable: {0}")]
    Unavailable(#[source] MailboxError),
}

/// The answer of the snapshot actor to a request, as one result.
pub(crate) fn answered<T>(
    answer: Result<Result<T, StoreError>, MailboxError>,
) -> Result<T, SnapshotFailure> {
    answer
        .map_err(SnapshotFailure::Unavailable)?
        .map_err(SnapshotFailure::Store)
}

/// Owns the data directory for snapshot writing.
pub struct SnapshotActor {
    store: Store,
    journal: Journal,
}

impl SnapshotActor {
    /// An actor writing into `store` and reporting to `journal`.
    pub fn new(store: Store, journal: Journal) -> SnapshotActor {
        SnapshotActor { store, journal }
    }
}

impl Actor for SnapshotActor {
    type Context = SyncContext<Self>;

    /// Encoding a big space yields the cores to the HTTP workers, the space actors and
    /// the journal.
    fn started(&mut self, _: &mut SyncContext<Self>) {
        crate::threads::run_in_background("the snapshot thread");
    }
}

/// Replace one space's file with this view of it; answers the file's length.
#[derive(Message)]
#[rtype(result = "Result<u64, StoreError>")]
pub struct SaveSpace {
    /// The space's durable state.
    pub view: SpaceView,
    /// The final snapshot at shutdown: no journal entry of the space is needed after it,
    /// reservations included.
    pub last: bool,
}

impl Handler<SaveSpace> for SnapshotActor {
    type Result = Result<u64, StoreError>;

    fn handle(&mut self, msg: SaveSpace, _: &mut SyncContext<Self>) -> Self::Result {
        let SaveSpace { view, last } = msg;
        let started = Instant::now();
        let len = self.store.save_space(&view)?;
        METRICS
            .snapshot_seconds
            .observe(started.elapsed().as_secs_f64());
        let reserved = if last { u64::MAX } else { view.reserved };
        self.journal.covered(&view.id, view.version, reserved);
        Ok(len)
    }
}

/// Replace the users file with this snapshot of the directory; answers the file's length.
/// The spaces it adds get a file first (an empty one if they have none), so that every
/// space in `users.bin` has its file and one missing later is noticed at start-up.
#[derive(Message)]
#[rtype(result = "Result<u64, StoreError>")]
pub struct SaveDirectory {
    /// The directory.
    pub directory: DirectorySnapshot,
    /// The spaces created since the users file on disk was written.
    pub added: Vec<Box<str>>,
}

impl Handler<SaveDirectory> for SnapshotActor {
    type Result = Result<u64, StoreError>;

    fn handle(&mut self, msg: SaveDirectory, _: &mut SyncContext<Self>) -> Self::Result {
        let live = msg.added.iter().filter(|id| {
            msg.directory
                .spaces
                .binary_search_by(|s| s.id.cmp(id))
                .is_ok()
        });
        self.store.ensure_space_files(live.map(|id| &**id))?;
        let len = self.store.save_directory(&msg.directory)?;
        self.journal.covered_directory(msg.directory.applied);
        Ok(len)
    }
}

/// Remove the file of a deleted space (whose deletion is durable and whose actor has
/// stopped), then let the journal drop the space's entries.
#[derive(Message)]
#[rtype(result = "Result<(), StoreError>")]
pub struct RemoveSpace(pub Box<str>);

impl Handler<RemoveSpace> for SnapshotActor {
    type Result = Result<(), StoreError>;

    fn handle(&mut self, msg: RemoveSpace, _: &mut SyncContext<Self>) -> Self::Result {
        self.store.remove_space(&msg.0)?;
        self.journal.forget(&msg.0);
        Ok(())
    }
}

/// Replace the idempotency keys file, then let the journal drop what it covers; answers
/// the file's length.
#[derive(Message)]
#[rtype(result = "Result<u64, StoreError>")]
pub struct SaveKeys(pub KeysSnapshot);

impl Handler<SaveKeys> for SnapshotActor {
    type Result = Result<u64, StoreError>;

    fn handle(&mut self, msg: SaveKeys, _: &mut SyncContext<Self>) -> Self::Result {
        let len = self.store.save_keys(&msg.0)?;
        self.journal.covered_keys(msg.0.covers);
        Ok(len)
    }
}

/// Read a space back from its snapshot and the journal (after it panicked).
#[derive(Message)]
#[rtype(result = "Result<Space, StoreError>")]
pub struct Reload(pub String);

impl Handler<Reload> for SnapshotActor {
    type Result = Result<Space, StoreError>;

    fn handle(&mut self, msg: Reload, _: &mut SyncContext<Self>) -> Self::Result {
        self.store.reload_space(&msg.0)
    }
}
