//! Whether the journal can write ([`Health`]): its problem and how long a batch has taken.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Whether the journal can write; shared with `/healthz` and with everything that waits
/// for the journal.
#[derive(Debug)]
pub struct Health {
    pub(super) problem: Mutex<Option<String>>,
    /// When the batch being written (and synced) began; `None` between batches.
    pub(super) busy_since: Mutex<Option<Instant>>,
    /// How long a batch may take before the storage counts as stalled.
    pub(super) stall_after: Duration,
}

impl Health {
    /// A healthy journal whose storage counts as stalled once a batch takes `stall_after`.
    pub fn new(stall_after: Duration) -> Health {
        Health {
            problem: Mutex::new(None),
            busy_since: Mutex::new(None),
            stall_after,
        }
    }

    /// Why the journal cannot write now, if it cannot: a failed write, or one that has not
    /// returned for longer than the bound.
    pub fn problem(&self) -> Option<String> {
        let failed = self
            .problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        failed.or_else(|| {
            self.stalled().map(|waited| {
                format!(
                    "the journal's storage has not answered for {} s",
                    waited.as_secs()
                )
            })
        })
    }

    /// How long the batch in progress has been waiting for storage, if longer than the
    /// bound.
    pub fn stalled(&self) -> Option<Duration> {
        let since = *self
            .busy_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        since
            .map(|since| since.elapsed())
            .filter(|waited| *waited >= self.stall_after)
    }

    /// How long a request waits for storage before it is answered 503.
    pub fn stall_after(&self) -> Duration {
        self.stall_after
    }

    pub(super) fn busy(&self, since: Option<Instant>) {
        *self
            .busy_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = since;
    }

    pub(super) fn set(&self, problem: Option<String>) {
        let mut slot = self.problem.lock().unwrap_or_else(PoisonError::into_inner);
        match (&*slot, &problem) {
            (None, Some(p)) => log::error!("storage failure: {p}; writes are refused"),
            (Some(_), None) => log::warn!("storage works again; writes are accepted"),
            _ => {}
        }
        *slot = problem;
    }
}
