//! The server's gate: closed once shutdown begins (every request of every front is then
//! refused by the edge, and open streams end), and with `--nats` this node's role (§16).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::replication::NodeRole;

/// Closed once shutdown begins; from then on every request gets 503 (see [`crate::edge::front`]), and
/// open change streams end.
#[derive(Debug)]
pub(crate) struct Gate {
    closed: AtomicBool,
    watch: tokio::sync::watch::Sender<bool>,
    /// With `--nats`: this node's role; `/api/v1` and `/dav/` are refused unless it is the
    /// primary.
    role: Option<Arc<NodeRole>>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            closed: AtomicBool::new(false),
            watch: tokio::sync::watch::Sender::new(false),
            role: None,
        }
    }
}

impl Gate {
    /// A gate that lets `/api/v1` through only while `role` is the primary.
    pub(crate) fn replicated(role: Arc<NodeRole>) -> Gate {
        Gate {
            role: Some(role),
            ..Gate::default()
        }
    }

    /// This node's role, with `--nats`.
    pub(crate) fn role(&self) -> Option<&Arc<NodeRole>> {
        self.role.as_ref()
    }

    /// Refuses every request from now on, and ends the change streams.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.watch.send_replace(true);
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Changes when the gate closes.
    pub(crate) fn watch(&self) -> tokio::sync::watch::Receiver<bool> {
        self.watch.subscribe()
    }
}
