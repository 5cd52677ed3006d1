//! Turns by key: at most so many holders of one key at once, the others waiting their turn
//! without a thread. The heavy pool gives each account its turns ([`super::heavy`]); the
//! core serializes the read-modify-write of one webhook with them (`core::Core::editing`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The keys with turns held or awaited; a key is forgotten once nobody holds or awaits one.
#[derive(Debug)]
pub(crate) struct Turns {
    /// How many holders of one key at once.
    permits: usize,
    keys: Mutex<HashMap<Box<str>, Arc<Semaphore>>>,
}

impl Turns {
    /// Turns of `permits` holders a key.
    pub(crate) fn new(permits: usize) -> Turns {
        Turns {
            permits,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Waits until `key` has a free turn, and takes it until the [`Turn`] drops.
    pub(crate) async fn take<'a>(&'a self, key: &str) -> Turn<'a> {
        let turns = {
            let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
            let turns = keys
                .entry(key.into())
                .or_insert_with(|| Arc::new(Semaphore::new(self.permits)));
            Arc::clone(turns)
        };
        let permit = turns.acquire_owned().await.ok();
        Turn {
            turns: self,
            key: key.into(),
            permit,
        }
    }

    /// Whether `key` has a turn held or awaited.
    #[cfg(test)]
    pub(crate) fn busy(&self, key: &str) -> bool {
        let keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        keys.contains_key(key)
    }
}

/// A turn of one key; the next waiting holder may go once it drops.
pub(crate) struct Turn<'a> {
    turns: &'a Turns,
    key: Box<str>,
    permit: Option<OwnedSemaphorePermit>,
}

impl Drop for Turn<'_> {
    /// Gives the turn back, and forgets the key once nobody holds or awaits a turn of it.
    fn drop(&mut self) {
        drop(self.permit.take());
        let mut keys = self
            .turns
            .keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if keys
            .get(&self.key)
            .is_some_and(|turns| Arc::strong_count(turns) == 1)
        {
            keys.remove(&self.key);
        }
    }
}
