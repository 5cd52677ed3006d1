//! Actors between the HTTP layer and the model: a [`SpaceActor`] per space, the
//! [`Spaces`] registry that finds (and starts) them, the [`Users`] that tokens belong to,
//! and the [`SnapshotActor`] that writes snapshot files and reloads spaces.

pub mod keys;
pub mod registry;
pub mod snapshot;
pub mod space;
pub mod users;

use std::fmt;

pub use keys::Keys;
pub use registry::Spaces;
pub use snapshot::SnapshotActor;
pub use space::SpaceActor;
pub use users::Users;

use crate::store::journal::StorageError;

/// Why a request could not be answered by its space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The space's mailbox is full; retry shortly.
    Busy,
    /// The space's actor has stopped.
    Stopped,
    /// The journal could not store the write (or a write this answer depended on).
    Storage(StorageError),
    /// The space panicked while handling the request; it is reloaded from disk.
    Panicked,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Busy => f.write_str("the space is overloaded; retry shortly"),
            Failure::Stopped => f.write_str("the space is not available"),
            Failure::Storage(e) => write!(f, "{e}"),
            Failure::Panicked => f.write_str("the space failed while handling the request"),
        }
    }
}
