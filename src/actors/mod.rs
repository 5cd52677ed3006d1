//! Actors between the HTTP layer and the model: a [`SpaceActor`] per space, the
//! [`Directory`] that finds users and space actors, and the [`SnapshotActor`] that writes
//! snapshot files.

pub mod directory;
pub mod snapshot;
pub mod space;

use std::fmt;

pub use directory::Directory;
pub use snapshot::SnapshotActor;
pub use space::SpaceActor;

/// Why a space could not take a request now; the client should retry later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// The space's mailbox is full.
    Busy,
    /// The space's actor has stopped (the server is shutting down).
    Stopped,
    /// The server is shutting down and takes no new requests.
    ShuttingDown,
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unavailable::Busy => "the space is overloaded; retry shortly",
            Unavailable::Stopped | Unavailable::ShuttingDown => "the server is shutting down",
        })
    }
}
