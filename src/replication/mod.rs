//! Replication (docs §16): with `--nats`, every group-commit batch the
//! journal writes is also appended to the NATS JetStream stream `taskd_<cluster>`, fenced by
//! the stream's expected last sequence, and a write is answered only once both the stream
//! and the local disk hold it. One node, the holder of the lease in the key-value bucket
//! `taskd_leases`, is the primary and answers `/api/v1`; any other answers
//! `503 not_primary`.
//!
//! At start, before recovery, a node brings its data dir to the stream ([`Replicator::
//! catch_up`]): the journal is cut back to the last batch the stream acknowledged (the
//! position file, below), and every later stream message is appended to it. So a node that
//! was down, or ahead of the stream after a crash, recovers exactly the stream.
//!
//! The position file `stream.pos` holds `<stream seq> <segment> <offset>` of a batch that
//! both the stream and the disk hold; it is replaced at most every 100 ms as batches are
//! held, and within a second of the last one (through `.stream.pos.tmp`, not synced). When
//! it names an earlier batch (then, or after a power loss), the catch-up cuts the journal
//! back to it and appends the later batches from the stream again, which recovery skips as
//! already held; a torn or missing one makes the catch-up take the whole stream again.
//!
//! A standby follows the stream: each message is written to its own journal and applied
//! to its memory with the replay functions recovery uses (the [`Apply`] it is given), so it
//! snapshots and compacts its journal as a primary does, and takes the lease over, once it
//! holds the whole stream, without a restart. A node that was fenced (its memory may hold
//! less than its disk: a batch the stream took but the disk did not) restarts itself as
//! soon as it reaches the stream again, and comes back a standby from its data dir.
//!
//! All of it is the cargo feature `nats` (on by default); a build without it has the
//! flags, and `--nats` is refused at start-up ([`Replicator::start`]).

#[cfg(not(feature = "nats"))]
mod absent;
#[cfg(feature = "nats")]
pub(crate) mod fence;
#[cfg(feature = "nats")]
mod nats;
#[cfg(feature = "nats")]
mod stream;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::store::codec::Entry;
#[cfg(not(feature = "nats"))]
pub(crate) use absent::Replicator;
#[cfg(feature = "nats")]
pub(crate) use stream::Replicator;

/// What the flags ask for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The NATS servers.
    pub urls: Vec<String>,
    /// This node's name.
    pub node: String,
    /// The cluster's name: the stream is `taskd_<cluster>`, the lease key `<cluster>`.
    pub cluster: String,
    /// The primary trims stream messages older than this that no node needs.
    pub max_age: Duration,
    /// ... and the oldest ones beyond this many bytes that no node needs.
    pub max_bytes: u64,
}

/// This node's place in the cluster, shared by the journal writer (which fences it), the
/// lease keeper and the HTTP layer (which answers `/api/v1` only on the primary).
#[derive(Debug)]
pub(crate) struct NodeRole {
    node: String,
    primary: AtomicBool,
    /// The stream sequence of the last batch this node holds.
    applied: AtomicU64,
    /// The stream's last sequence, as last seen.
    last: AtomicU64,
    /// Memory may not hold what the data dir holds: the node must restart before it serves
    /// (read by the replication thread only).
    #[cfg_attr(not(feature = "nats"), allow(dead_code))]
    stale: AtomicBool,
}

impl NodeRole {
    /// Whether this node answers `/api/v1`.
    pub(crate) fn is_primary(&self) -> bool {
        self.primary.load(Ordering::SeqCst)
    }

    /// This node's name.
    pub(crate) fn node(&self) -> &str {
        &self.node
    }

    /// The stream sequence this node holds, and how far the stream is ahead of it.
    pub(crate) fn sequences(&self) -> (u64, u64) {
        let applied = self.applied.load(Ordering::SeqCst);
        let last = self.last.load(Ordering::SeqCst).max(applied);
        (applied, last - applied)
    }
}

/// Why replication could not start, or a catch-up could not bring the data dir to the
/// stream.
#[derive(Debug, thiserror::Error)]
pub enum ReplicationError {
    /// `--nats` with `snapshot` durability, whose writes never reach the journal.
    #[error(
        "--nats needs --durability fsync or write (snapshot durability keeps writes out of \
         the journal the stream carries)"
    )]
    Durability,
    /// A build without the `nats` feature.
    #[error("--nats needs a taskd built with the `nats` feature (on by default)")]
    NotBuilt,
    /// The NATS servers could not be reached, or refused the stream or the bucket.
    #[cfg(feature = "nats")]
    #[error("NATS: {0}")]
    Connect(#[source] nats::NatsError),
    /// A request to NATS failed.
    #[cfg(feature = "nats")]
    #[error("{0}")]
    Nats(#[from] nats::NatsError),
    /// The replication thread could not start.
    #[error("{0}")]
    Thread(#[from] std::io::Error),
    /// The replication thread stopped before it answered.
    #[error("the replication thread stopped")]
    Stopped,
    /// The data dir holds more of the stream than the stream has.
    #[error(
        "the data dir holds stream sequence {held} but the stream ends at {last}: not this \
         cluster's stream, or the stream was reset"
    )]
    Ahead {
        /// The sequence the position file names.
        held: u64,
        /// The stream's last sequence.
        last: u64,
    },
    /// The stream no longer holds what this data dir lacks.
    #[error(
        "the stream keeps messages {first} to {last}, and this data dir holds only up to \
         message {held}: the ones between were trimmed by the stream's limits. Start this \
         node from a backup of a node of the cluster (taskd backup), see docs/multi-node.md"
    )]
    Trimmed {
        /// The stream's first sequence.
        first: u64,
        /// Its last.
        last: u64,
        /// What the data dir holds.
        held: u64,
    },
    /// The first node of an empty stream did not get the lease in time.
    #[error("the lease of an empty stream could not be taken")]
    NoLease,
    /// The journal could not be cut back or appended to.
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
}

/// Applies the entries of one followed stream message (each with its frame's length) to this
/// node's memory, as recovery applies them; answers once they are applied, or why not.
pub(crate) type Apply =
    Box<dyn Fn(Vec<(Entry, u64)>) -> oneshot::Receiver<Result<(), String>> + Send>;
