//! Actors between the HTTP layer and the model: a [`SpaceActor`] per space, the
//! [`Spaces`] registry that finds (and starts) them, the [`Directory`] of users, spaces,
//! members and tokens, and the [`SnapshotActor`] that writes snapshot files and reloads
//! spaces.

pub(crate) mod directory;
pub(crate) mod keys;
pub(crate) mod registry;
pub(crate) mod reminders;
pub(crate) mod snapshot;
pub(crate) mod space;

use std::time::Duration;

pub(crate) use directory::Directory;
pub(crate) use keys::Keys;
pub(crate) use registry::Spaces;
pub(crate) use snapshot::SnapshotActor;

use std::sync::Arc;

use tokio::sync::oneshot;

use crate::metrics::METRICS;
use crate::model::Change;
use crate::store::codec::Entry;
use crate::store::journal::{Health, StorageError};
use space::{Followed, Replicated};

/// Why a request could not be answered by its space.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The space's mailbox is full; retry shortly.
    #[error("the space is overloaded; retry shortly")]
    Busy,
    /// The space's actor has stopped.
    #[error("the space is not available")]
    Stopped,
    /// The space was deleted.
    #[error("the space was deleted")]
    Gone,
    /// The journal could not store the write (or a write this answer depended on).
    #[error("{0}")]
    Storage(#[source] StorageError),
    /// The space panicked while handling the request; it is reloaded from disk.
    #[error("the space failed while handling the request")]
    Panicked,
    /// The journal's storage has not answered within the bound; a write may still be
    /// stored once it does.
    #[error("the journal's storage has not answered for {} s", .0.as_secs())]
    Stalled(Duration),
}

impl Failure {
    /// Whether the write was refused because this node is not the primary (§16).
    pub fn is_not_primary(&self) -> bool {
        matches!(self, Failure::Storage(StorageError::NotPrimary))
    }
}

/// Waits for `answer`, which depends on the journal's storage. If the storage stalls (see
/// [`Health::stalled`]) the wait ends with `Stalled` and `late` gets the answer once it
/// comes: the outcome of a write is decided by the journal, not by the request that gave
/// up waiting. A wait that is slow for another reason (a big page, a reload) goes on.
pub(crate) async fn within_storage<T: 'static>(
    health: &Health,
    mut answer: oneshot::Receiver<Result<T, Failure>>,
    late: impl FnOnce(Result<T, Failure>) + 'static,
) -> Result<T, Failure> {
    loop {
        match tokio::time::timeout(health.stall_after(), &mut answer).await {
            Ok(answered) => return answered.unwrap_or(Err(Failure::Stopped)),
            Err(_) if health.stalled().is_none() => continue,
            Err(_) => {
                METRICS.storage_stalls.inc();
                actix_web::rt::spawn(async move {
                    late(answer.await.unwrap_or(Err(Failure::Stopped)));
                });
                return Err(Failure::Stalled(health.stall_after()));
            }
        }
    }
}

/// Applies the entries of a stream message a standby follows (docs §16) to the live
/// spaces, directory and idempotency keys, in order, with the model's replay functions
/// that recovery uses; each comes with its journal frame's length.
pub(crate) async fn replay(
    spaces: &Spaces,
    directory: &Directory,
    keys: &Keys,
    entries: Vec<(Entry, u64)>,
) -> Result<(), String> {
    for (entry, bytes) in entries {
        let (space, followed, key) = match entry {
            Entry::Write {
                space,
                outcome,
                key,
            }
            | Entry::Written {
                space,
                outcome,
                key,
                ..
            } => (space, Followed::Write(outcome), key),
            Entry::Reserve { space, up_to } => (space, Followed::Reserve(up_to), None),
            Entry::Directory { seq, change, key } => {
                if directory.replay(seq, &change, bytes).await? {
                    match &change {
                        Change::UserCreated(account) => spaces.add(&account.default_space),
                        Change::SpaceCreated(info) => spaces.add(&info.id),
                        Change::SpaceDeleted { space } => spaces.delete(space).await,
                        _ => {}
                    }
                }
                if let Some(kept) = key {
                    keys.replay(Arc::from(kept));
                }
                continue;
            }
            Entry::Answer(kept) => {
                keys.replay(Arc::from(kept));
                continue;
            }
            Entry::User { .. } => return Err("a format-2 user entry in the stream".into()),
        };
        let op = Replicated {
            entry: followed,
            bytes,
        };
        spaces
            .call(&space, op)
            .await
            .map_err(|e| format!("space {space}: {e}"))??;
        if let Some(kept) = key {
            keys.replay(Arc::from(kept));
        }
    }
    Ok(())
}
