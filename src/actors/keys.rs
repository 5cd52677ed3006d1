//! Idempotency keys (CONTRACT §11): for each user and key, the request that first used it
//! and the answer it got, kept for 24 hours.
//!
//! The table lives in memory behind a mutex and is taken only to claim a key and to
//! record its answer. It is durable through the journal: a keyed write carries its key
//! and answer in its own journal entry (so they are stored together or not at all), a
//! user creation in its user entry, and any other answer (a 4xx) in an entry of its own.
//! The snapshot actor writes the whole table to `keys.bin` now and then, after which the
//! journal can drop those entries.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};

use actix::Addr;

use super::snapshot::{answered, SaveKeys, SnapshotActor};
use crate::store::codec::{KeptAnswer, KeyUse, KeysSnapshot};

/// How long an answer is kept, in milliseconds.
pub const KEEP_MS: i64 = 24 * 60 * 60 * 1000;

/// A key's state.
enum Slot {
    /// The first request with the key is still running.
    Running { seq: u64 },
    /// Its answer.
    Done(Box<(KeyUse, KeptAnswer)>),
}

/// What a request with a key does.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// It is the first: run it, and record its answer with [`Keys::finish`].
    Run(KeyUse),
    /// The same request ran before: answer this again, without running it.
    Replay(KeptAnswer),
    /// The key was used for another method, path or body: `422`.
    Reused,
    /// The first request with the key is still running: `409`.
    InUse,
}

#[derive(Default)]
struct Table {
    slots: HashMap<(Box<str>, Box<str>), Slot>,
    next_seq: u64,
    /// Key uses whose answer is not recorded yet.
    running: BTreeSet<u64>,
    /// Whether anything changed since the last snapshot.
    changed: bool,
}

/// Every user's idempotency keys; shared by every HTTP worker.
#[derive(Default)]
pub struct Keys {
    table: Mutex<Table>,
}

impl Keys {
    /// The keys read at start-up (expired ones are dropped). The first [`Keys::save`]
    /// writes them all to `keys.bin`, so the journal segments they came from can go.
    pub fn new(kept: Vec<(KeyUse, KeptAnswer)>, now: i64) -> Keys {
        let mut table = Table {
            changed: !kept.is_empty(),
            ..Table::default()
        };
        for (used, answer) in kept {
            table.next_seq = table.next_seq.max(used.seq + 1);
            if now - used.at < KEEP_MS {
                let slot = (used.user.clone(), used.key.clone());
                table
                    .slots
                    .insert(slot, Slot::Done(Box::new((used, answer))));
            }
        }
        Keys {
            table: Mutex::new(table),
        }
    }

    /// Claims `key` of `user` for a request whose fingerprint is `request`, at `now`.
    pub fn claim(&self, user: &str, key: &str, request: [u8; 32], now: i64) -> Claim {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = (Box::from(user), Box::from(key));
        match table.slots.get(&slot) {
            Some(Slot::Running { .. }) => return Claim::InUse,
            Some(Slot::Done(kept)) if now - kept.0.at < KEEP_MS => {
                return if kept.0.request == request {
                    Claim::Replay(kept.1.clone())
                } else {
                    Claim::Reused
                };
            }
            _ => {}
        }
        let seq = table.next_seq;
        table.next_seq += 1;
        table.running.insert(seq);
        table.slots.insert(slot, Slot::Running { seq });
        Claim::Run(KeyUse {
            seq,
            user: user.into(),
            key: key.into(),
            request,
            at: now,
        })
    }

    /// Records the answer of a claimed key, or frees the key when there is none to keep
    /// (a 5xx: the retry runs again).
    pub fn finish(&self, used: KeyUse, answer: Option<KeptAnswer>) {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        table.running.remove(&used.seq);
        let slot = (used.user.clone(), used.key.clone());
        if matches!(table.slots.get(&slot), Some(Slot::Running { seq }) if *seq == used.seq) {
            match answer {
                Some(answer) => {
                    table
                        .slots
                        .insert(slot, Slot::Done(Box::new((used, answer))));
                    table.changed = true;
                }
                None => {
                    table.slots.remove(&slot);
                }
            }
        }
    }

    /// The table for `keys.bin` if it changed since the last call, without expired keys.
    /// It covers every key use numbered below the oldest one still running.
    fn snapshot(&self, now: i64) -> Option<KeysSnapshot> {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        if !table.changed {
            return None;
        }
        table.changed = false;
        table
            .slots
            .retain(|_, slot| !matches!(slot, Slot::Done(kept) if now - kept.0.at >= KEEP_MS));
        let covers = table.running.first().copied().unwrap_or(table.next_seq);
        let keys = table
            .slots
            .values()
            .filter_map(|slot| match slot {
                Slot::Done(kept) => Some((kept.0.clone(), kept.1.clone())),
                Slot::Running { .. } => None,
            })
            .collect();
        Some(KeysSnapshot { covers, keys })
    }

    /// Writes `keys.bin` through the snapshot actor if the table changed.
    pub async fn save(&self, snapshots: &Addr<SnapshotActor>) {
        let Some(snapshot) = self.snapshot(chrono::Utc::now().timestamp_millis()) else {
            return;
        };
        let Err(e) = answered(snapshots.send(SaveKeys(snapshot)).await) else {
            return;
        };
        log::error!("idempotency keys snapshot failed: {e}");
        self.table
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .changed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16) -> KeptAnswer {
        KeptAnswer {
            status,
            content_type: "application/json".into(),
            location: None,
            etag: None,
            body: b"{}".to_vec(),
        }
    }

    #[test]
    fn a_key_runs_once_then_replays_and_refuses_other_requests() {
        let keys = Keys::default();
        let Claim::Run(used) = keys.claim("u", "k", [1; 32], 0) else {
            panic!("first use runs")
        };
        assert_eq!(keys.claim("u", "k", [1; 32], 1), Claim::InUse);
        assert!(
            matches!(keys.claim("v", "k", [1; 32], 1), Claim::Run(_)),
            "per user"
        );
        keys.finish(used, Some(answer(201)));
        assert_eq!(keys.claim("u", "k", [1; 32], 2), Claim::Replay(answer(201)));
        assert_eq!(keys.claim("u", "k", [2; 32], 2), Claim::Reused);
        assert!(matches!(
            keys.claim("u", "k", [2; 32], KEEP_MS + 1),
            Claim::Run(_)
        ));
    }

    #[test]
    fn a_5xx_frees_the_key_and_snapshots_cover_only_finished_uses() {
        let keys = Keys::default();
        let Claim::Run(first) = keys.claim("u", "a", [1; 32], 0) else {
            panic!()
        };
        let Claim::Run(second) = keys.claim("u", "b", [1; 32], 0) else {
            panic!()
        };
        keys.finish(second, Some(answer(200)));
        let snapshot = keys.snapshot(0).unwrap();
        assert_eq!((snapshot.covers, snapshot.keys.len()), (0, 1));
        assert_eq!(keys.snapshot(0), None, "unchanged");
        keys.finish(first, None);
        assert!(matches!(keys.claim("u", "a", [1; 32], 0), Claim::Run(_)));
    }
}
