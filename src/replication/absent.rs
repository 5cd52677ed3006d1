//! A build without the `nats` feature: there is no replication thread, so no
//! [`Replicator`] value can exist ([`Replicator::start`] refuses `--nats`), and its methods
//! cannot be called; the compiler checks that, not a test.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{Apply, NodeRole, Options, ReplicationError};
use crate::store::journal::Journal;
use crate::store::mirror::{Mirror, Pending};

/// The handle a build with the `nats` feature has; here it has no value.
#[derive(Clone)]
pub(crate) enum Replicator {}

impl Replicator {
    /// Refuses: this build cannot replicate.
    pub(crate) fn start(_: &Options, _: &Path) -> Result<Replicator, ReplicationError> {
        Err(ReplicationError::NotBuilt)
    }

    /// See the `nats` build.
    pub(crate) fn role(&self) -> &Arc<NodeRole> {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) fn catch_up(&self, _: &Path) -> Result<(), ReplicationError> {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) fn follow_into(&self, _: Journal, _: Apply) {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) async fn restart_wanted(&self) {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) fn contend(&self) {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) fn origin(&self) -> bool {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) fn wait_primary(&self, _: Duration) -> Result<(), ReplicationError> {
        match *self {}
    }

    /// See the `nats` build.
    pub(crate) async fn release(&self) {
        match *self {}
    }
}

impl Mirror for Replicator {
    fn append(&self, _: &[u8]) -> Pending {
        match *self {}
    }

    fn held(&self, _: u64, _: u64, _: u64) {
        match *self {}
    }

    fn fence(&self, _: &str) {
        match *self {}
    }
}
