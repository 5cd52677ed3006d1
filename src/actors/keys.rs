//! Idempotency keys (docs §11, bounded per user by §9a): for each user and key, the
//! request that first used it and the answer it got, kept for 24 hours.
//!
//! The table lives in memory behind a mutex and is taken only to claim a key and to
//! record its answer. It is durable through the journal: a keyed write carries its key
//! and answer in its own journal entry (so they are stored together or not at all), a
//! user creation in its user entry, and any other answer (a 4xx) in an entry of its own.
//! The snapshot actor writes the whole table to `keys.bin` now and then, after which the
//! journal can drop those entries.
//!
//! Each user holds at most [`MAX_KEYS`] keys and [`MAX_BYTES`] of kept answers. A new key
//! of a user at either bound makes room by dropping the user's oldest kept answers, but
//! never one younger than [`MIN_KEEP_MS`]: while none can go, the new key is refused
//! ([`Claim::Full`], `429`) until the oldest is old enough. Retries of kept keys and
//! requests without a key are never refused.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix::Addr;

use super::snapshot::{answered, SaveKeys, SnapshotActor};
use crate::metrics::METRICS;
use crate::store::codec::{KeptAnswer, KeyUse, KeysSnapshot};
use crate::store::Pace;

pub(crate) use crate::model::limits::{KEEP_MS, MAX_KEYS, MAX_KEY_BYTES as MAX_BYTES};
/// A kept answer younger than this (1 hour) is never dropped to make room.
pub(crate) const MIN_KEEP_MS: i64 = 60 * 60 * 1000;
/// How many users `/metrics` shows the kept answers of, largest first.
const TOP_USERS: usize = 10;

/// A key's state.
enum Slot {
    /// The first request with the key is still running.
    Running { seq: u64 },
    /// Its answer.
    Done(Arc<(KeyUse, KeptAnswer)>),
}

/// What a request with a key does.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// It is the first: run it, and record its answer with [`Keys::finish`].
    Run(KeyUse),
    /// The same request ran before: answer this again, without running it.
    Replay(KeptAnswer),
    /// The key was used for another method, path or body: `422`.
    Reused,
    /// The first request with the key is still running: `409`.
    InUse,
    /// A new key, but the user is at a bound and every kept answer is younger than
    /// [`MIN_KEEP_MS`]: `429`, retry after this long.
    Full(Duration),
}

/// One user's share of the table.
#[derive(Default)]
struct Held {
    /// Its kept answers, oldest first by (first use, sequence): key and stored bytes.
    kept: BTreeMap<(i64, u64), (Box<str>, u64)>,
    /// The stored bytes of all of them.
    bytes: u64,
    /// Its keys whose request is still running.
    running: usize,
}

impl Held {
    fn is_full(&self) -> bool {
        self.kept.len() + self.running >= MAX_KEYS || self.bytes >= MAX_BYTES
    }
}

#[derive(Default)]
struct Table {
    slots: HashMap<(Box<str>, Box<str>), Slot>,
    users: HashMap<Box<str>, Held>,
    next_seq: u64,
    /// Key uses whose answer is not recorded yet.
    running: BTreeSet<u64>,
    /// Whether anything changed since the last snapshot.
    changed: bool,
}

impl Table {
    /// Records the kept answer of a key use.
    fn keep(&mut self, kept: Arc<(KeyUse, KeptAnswer)>) {
        let (used, answer) = &*kept;
        let bytes = stored_bytes(used, answer);
        let held = self.users.entry(used.user.clone()).or_default();
        held.kept
            .insert((used.at, used.seq), (used.key.clone(), bytes));
        held.bytes += bytes;
        let slot = (used.user.clone(), used.key.clone());
        self.slots.insert(slot, Slot::Done(kept));
        self.changed = true;
    }

    /// Drops the oldest kept answer of `user`, if it was first used before `before`.
    fn drop_oldest(&mut self, user: &str, before: i64) -> bool {
        let Some(held) = self.users.get_mut(user) else {
            return false;
        };
        let Some(entry) = held.kept.first_entry() else {
            return false;
        };
        if entry.key().0 >= before {
            return false;
        }
        let (key, bytes) = entry.remove();
        held.bytes -= bytes;
        if held.kept.is_empty() && held.running == 0 {
            self.users.remove(user);
        }
        self.slots.remove(&(Box::from(user), key));
        self.changed = true;
        true
    }

    /// Drops kept answers of `user` (oldest first, none younger than [`MIN_KEEP_MS`] at
    /// `now`) until it is below its bounds; else how long until the oldest may go.
    fn make_room(&mut self, user: &str, now: i64) -> Result<(), Duration> {
        while self.users.get(user).is_some_and(Held::is_full) {
            if !self.drop_oldest(user, now - MIN_KEEP_MS + 1) {
                let oldest = self.users[user].kept.keys().next().map(|(at, _)| *at);
                let wait = oldest.map_or(1000, |at| at + MIN_KEEP_MS - now);
                return Err(Duration::from_millis(wait.max(1) as u64));
            }
        }
        Ok(())
    }

    /// Drops every answer first used `KEEP_MS` before `now`.
    fn expire(&mut self, now: i64) {
        let users: Vec<Box<str>> = self.users.keys().cloned().collect();
        for user in users {
            while self.drop_oldest(&user, now - KEEP_MS + 1) {}
        }
    }
}

/// The bytes a kept answer takes as stored: its key and user, the request's fingerprint
/// and time, and the answer's status, headers and body.
fn stored_bytes(used: &KeyUse, answer: &KeptAnswer) -> u64 {
    let headers = answer.content_type.len()
        + answer.location.as_ref().map_or(0, |l| l.len())
        + answer.etag.as_ref().map_or(0, |e| e.len());
    (used.user.len() + used.key.len() + used.request.len() + 16 + 2 + headers + answer.body.len())
        as u64
}

/// Every user's idempotency keys; shared by every HTTP worker.
pub(crate) struct Keys {
    table: Mutex<Table>,
    /// What `keys.bin` owes the journal: the bytes of the answers kept since it was written.
    pace: Pace,
}

impl Keys {
    /// The keys read at start-up (expired ones are dropped, and each user's oldest beyond
    /// its bounds); `keys.bin` is rewritten as `pace` says.
    pub(crate) fn new(kept: Vec<Arc<(KeyUse, KeptAnswer)>>, now: i64, pace: Pace) -> Keys {
        let mut table = Table {
            changed: !kept.is_empty(),
            ..Table::default()
        };
        for kept in kept {
            table.next_seq = table.next_seq.max(kept.0.seq + 1);
            if now - kept.0.at < KEEP_MS {
                table.keep(kept);
            }
        }
        let users: Vec<Box<str>> = table.users.keys().cloned().collect();
        for user in users {
            let _ = table.make_room(&user, now);
        }
        // What the journal holds of them counts until `keys.bin` holds them.
        pace.add(table.users.values().map(|held| held.bytes).sum());
        Keys {
            table: Mutex::new(table),
            pace,
        }
    }

    /// Claims `key` of `user` for a request whose fingerprint is `request`, at `now`.
    pub(crate) fn claim(&self, user: &str, key: &str, request: [u8; 32], now: i64) -> Claim {
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
            Some(Slot::Done(kept)) => {
                let at = kept.0.at;
                while table.drop_oldest(user, at + 1) {} // expired, with any older one
            }
            None => {}
        }
        if let Err(wait) = table.make_room(user, now) {
            return Claim::Full(wait);
        }
        let seq = table.next_seq;
        table.next_seq += 1;
        table.running.insert(seq);
        table.users.entry(slot.0.clone()).or_default().running += 1;
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
    /// (a 5xx or a 401: the retry runs again).
    pub(crate) fn finish(&self, used: KeyUse, answer: Option<KeptAnswer>) {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        table.running.remove(&used.seq);
        if let Some(held) = table.users.get_mut(&used.user) {
            held.running = held.running.saturating_sub(1);
        }
        let slot = (used.user.clone(), used.key.clone());
        if matches!(table.slots.get(&slot), Some(Slot::Running { seq }) if *seq == used.seq) {
            match answer {
                Some(answer) => {
                    self.pace.add(stored_bytes(&used, &answer));
                    table.keep(Arc::new((used, answer)))
                }
                None => {
                    table.slots.remove(&slot);
                }
            }
        }
        if table
            .users
            .get(&slot.0)
            .is_some_and(|h| h.kept.is_empty() && h.running == 0)
        {
            table.users.remove(&slot.0);
        }
    }

    /// Keeps an answer a standby takes from the stream (docs §16), as recovery keeps
    /// it: key uses go on being numbered after it.
    pub(crate) fn replay(&self, kept: Arc<(KeyUse, KeptAnswer)>) {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        table.next_seq = table.next_seq.max(kept.0.seq + 1);
        self.pace.add(stored_bytes(&kept.0, &kept.1));
        table.keep(kept);
    }

    /// Drops expired keys; then the table for `keys.bin` if it changed since it was last
    /// written and the journal grew enough for it (or at all, if `last`), with the debt it
    /// pays. It covers every key use numbered below the oldest one still running. Also
    /// updates the per-user figures of `/metrics` when the table changed.
    fn snapshot(&self, now: i64, last: bool) -> Option<(KeysSnapshot, u64)> {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        table.expire(now);
        if !table.changed {
            return None;
        }
        let mut largest: Vec<(&str, usize, u64)> = table
            .users
            .iter()
            .map(|(user, held)| (&**user, held.kept.len(), held.bytes))
            .collect();
        largest.sort_unstable_by_key(|(_, _, bytes)| std::cmp::Reverse(*bytes));
        largest.truncate(TOP_USERS);
        METRICS.kept_answers(&largest);
        let paying = self.pace.due(last)?;
        table.changed = false;
        let covers = table.running.first().copied().unwrap_or(table.next_seq);
        let keys = table
            .slots
            .values()
            .filter_map(|slot| match slot {
                Slot::Done(kept) => Some(Arc::clone(kept)),
                Slot::Running { .. } => None,
            })
            .collect();
        Some((KeysSnapshot { covers, keys }, paying))
    }

    /// Writes `keys.bin` through the snapshot actor if the table changed and the journal
    /// grew enough for it (see [`crate::store::Compaction`]), or at all if `last`.
    pub(crate) async fn save(&self, snapshots: &Addr<SnapshotActor>, last: bool) {
        let now = chrono::Utc::now().timestamp_millis();
        let Some((snapshot, paying)) = self.snapshot(now, last) else {
            return;
        };
        let e = match answered(snapshots.send(SaveKeys(snapshot)).await) {
            Ok(len) => return self.pace.paid(paying, len),
            Err(e) => e,
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
    use crate::store::Compaction;

    /// An empty table whose file is rewritten whenever it changed.
    fn keys() -> Keys {
        let rule = Compaction {
            interval: Duration::from_secs(1),
            percent: 0,
            min_bytes: 0,
        };
        Keys::new(Vec::new(), 0, Pace::new(rule, 0))
    }

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
        let keys = keys();
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
        let keys = keys();
        let Claim::Run(first) = keys.claim("u", "a", [1; 32], 0) else {
            panic!()
        };
        let Claim::Run(second) = keys.claim("u", "b", [1; 32], 0) else {
            panic!()
        };
        keys.finish(second, Some(answer(200)));
        let snapshot = keys.snapshot(0, false).unwrap().0;
        assert_eq!((snapshot.covers, snapshot.keys.len()), (0, 1));
        assert!(keys.snapshot(0, false).is_none(), "unchanged");
        keys.finish(first, None);
        assert!(matches!(keys.claim("u", "a", [1; 32], 0), Claim::Run(_)));
    }

    #[test]
    fn a_user_at_its_key_bound_drops_answers_older_than_an_hour_and_else_waits() {
        let keys = keys();
        let hour = MIN_KEEP_MS;
        for i in 0..MAX_KEYS {
            let Claim::Run(used) = keys.claim("u", &format!("k{i}"), [0; 32], i as i64) else {
                panic!("key {i} refused")
            };
            keys.finish(used, Some(answer(201)));
        }
        // All younger than an hour: a new key waits until the oldest is an hour old.
        let now = 10_000;
        let Claim::Full(wait) = keys.claim("u", "new", [0; 32], now) else {
            panic!("a full user's new key ran")
        };
        assert_eq!(wait, Duration::from_millis((hour - now) as u64));
        assert_eq!(
            keys.claim("u", "k5", [0; 32], now),
            Claim::Replay(answer(201)),
            "retries of kept keys are unaffected"
        );
        assert!(matches!(
            keys.claim("v", "new", [0; 32], now),
            Claim::Run(_)
        ));
        // An hour later the oldest goes, and only it.
        assert!(matches!(
            keys.claim("u", "new", [0; 32], hour),
            Claim::Run(_)
        ));
        assert!(matches!(
            keys.claim("u", "k0", [0; 32], hour),
            Claim::Full(_)
        ));
        assert_eq!(
            keys.claim("u", "k1", [0; 32], hour),
            Claim::Replay(answer(201))
        );
    }

    #[test]
    fn a_user_at_its_byte_bound_drops_its_oldest_answers_first() {
        let keys = keys();
        let big = KeptAnswer {
            body: vec![b'x'; 1 << 20],
            ..answer(200)
        };
        for i in 0..64 {
            let Claim::Run(used) = keys.claim("u", &format!("k{i}"), [0; 32], i) else {
                panic!("key {i} refused")
            };
            keys.finish(used, Some(big.clone()));
        }
        assert!(matches!(
            keys.claim("u", "new", [0; 32], 100),
            Claim::Full(_)
        ));
        let later = MIN_KEEP_MS + 1;
        assert!(matches!(
            keys.claim("u", "new", [0; 32], later),
            Claim::Run(_)
        ));
        assert!(matches!(
            keys.claim("u", "k0", [0; 32], later),
            Claim::Run(_)
        ));
        assert_eq!(keys.claim("u", "k2", [0; 32], later), Claim::Replay(big));
    }
}
