//! A second place every journal batch goes to besides the local segment: the store's own
//! trait, so the journal knows nothing of what implements it (replication does, with a
//! NATS JetStream stream, docs §16).
//!
//! The journal writer hands each batch to the mirror before it writes and syncs the same
//! bytes locally, then waits for the mirror's verdict: a batch is stored only when both
//! hold it. What the writer does with each verdict is the journal's (see `journal::store`).

use std::sync::mpsc;

/// What the mirror says of a batch handed to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mirrored {
    /// The mirror holds the batch at this position: its writes may be answered.
    Stored(u64),
    /// Another node writes the mirror now: this one answers no write any more.
    Fenced,
    /// The mirror does not hold the batch (or cannot say): its writes fail.
    NotStored,
}

/// A batch's append to the mirror, under way while the journal writes it locally.
pub struct Pending(Option<mpsc::Receiver<Mirrored>>);

impl Pending {
    /// An append whose verdict `verdict` will receive.
    pub fn new(verdict: mpsc::Receiver<Mirrored>) -> Pending {
        Pending(Some(verdict))
    }

    /// An append the mirror refused at once: this node may not write it.
    pub fn fenced() -> Pending {
        Pending(None)
    }

    /// Waits (blocking: the journal writer is a plain thread) for the mirror's verdict; a
    /// mirror that went away without one did not store the batch.
    pub fn wait(self) -> Mirrored {
        match self.0 {
            Some(verdict) => verdict.recv().unwrap_or(Mirrored::NotStored),
            None => Mirrored::Fenced,
        }
    }
}

/// Where the journal mirrors its batches.
pub trait Mirror: Send {
    /// Starts appending `batch` (whole journal frames); [`Pending::wait`] gives the verdict.
    fn append(&self, batch: &[u8]) -> Pending;

    /// Both the mirror (at position `seq`) and the local journal hold the batch that ends
    /// at `offset` of segment `segment`.
    fn held(&self, seq: u64, segment: u64, offset: u64);

    /// The mirror took a batch the local journal could not store: this node must stop
    /// writing until it has caught up with the mirror again.
    fn fence(&self, why: &str);
}
