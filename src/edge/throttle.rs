//! Failed-authentication throttling per client address (docs §9).
//!
//! More than [`MAX_FAILURES`] failed authentications (401s) from one address within
//! [`WINDOW`] block that address: every `/api/v1` and `/dav/` request from it gets `429`
//! before its token is looked at, until a whole window has passed without a failure.
//!
//! Memory is bounded under a flood of distinct addresses: a fixed table of [`SLOTS`]
//! slots, each picked by a hash of the address and holding one address at a time. A new
//! address takes over a slot from another (forgetting it), so a flood can only make the
//! throttle forget, never grow. IPv6 addresses count per /64, the block a single client
//! usually has.

use std::hash::{BuildHasher, RandomState};
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The failures an address may have within [`WINDOW`] before it is blocked.
pub(crate) const MAX_FAILURES: u32 = 100;
/// The window failures are counted in, and how long a block outlasts the last failure.
pub(crate) const WINDOW: Duration = Duration::from_secs(10);
/// The number of addresses tracked at once.
pub(crate) const SLOTS: usize = 1 << 14;
const BUCKETS: usize = WINDOW.as_secs() as usize;

/// One address's failures, per second of the window.
#[derive(Debug, Default)]
struct Slot {
    who: Option<IpAddr>,
    /// Failures in each of the last seconds, indexed by second modulo the window.
    counts: [u16; BUCKETS],
    /// The second of the newest bucket.
    newest: u64,
    /// When the last failure was, in milliseconds.
    last_failure: u64,
    blocked: bool,
}

impl Slot {
    /// Forgets the seconds that have left the window by `second`.
    fn advance(&mut self, second: u64) {
        if second >= self.newest + BUCKETS as u64 {
            self.counts = [0; BUCKETS];
        } else {
            for s in self.newest + 1..=second {
                self.counts[s as usize % BUCKETS] = 0;
            }
        }
        self.newest = self.newest.max(second);
    }
}

/// The throttle, shared by every HTTP worker.
pub(crate) struct Throttle {
    slots: Box<[Mutex<Slot>]>,
    hasher: RandomState,
    started: Instant,
}

impl Default for Throttle {
    fn default() -> Throttle {
        Throttle {
            slots: (0..SLOTS).map(|_| Mutex::default()).collect(),
            hasher: RandomState::new(),
            started: Instant::now(),
        }
    }
}

impl Throttle {
    /// How long `ip` must wait, if it is blocked now.
    pub(crate) fn blocked(&self, ip: IpAddr) -> Option<Duration> {
        self.blocked_at(ip, self.now_ms())
    }

    /// Counts a failed authentication from `ip`.
    pub(crate) fn failed(&self, ip: IpAddr) {
        self.failed_at(ip, self.now_ms())
    }

    /// [`Throttle::blocked`] at `now` milliseconds after the throttle was made.
    fn blocked_at(&self, ip: IpAddr, now: u64) -> Option<Duration> {
        let who = client(ip);
        let mut slot = self.slot(who);
        if slot.who != Some(who) || !slot.blocked {
            return None;
        }
        let since = now.saturating_sub(slot.last_failure);
        let window = WINDOW.as_millis() as u64;
        if since >= window {
            slot.blocked = false;
            return None;
        }
        Some(Duration::from_millis(window - since))
    }

    /// [`Throttle::failed`] at `now` milliseconds after the throttle was made.
    fn failed_at(&self, ip: IpAddr, now: u64) {
        let who = client(ip);
        let mut slot = self.slot(who);
        if slot.who != Some(who) {
            *slot = Slot {
                who: Some(who),
                newest: now / 1000,
                ..Slot::default()
            };
        }
        slot.advance(now / 1000);
        let bucket = &mut slot.counts[(now / 1000) as usize % BUCKETS];
        *bucket = bucket.saturating_add(1);
        slot.last_failure = now;
        let failures: u32 = slot.counts.iter().map(|c| u32::from(*c)).sum();
        slot.blocked |= failures > MAX_FAILURES;
    }

    fn slot(&self, who: IpAddr) -> std::sync::MutexGuard<'_, Slot> {
        let index = self.hasher.hash_one(who) as usize % SLOTS;
        self.slots[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }
}

/// The client an address stands for: itself, or its /64 for IPv6. An IPv4 address mapped
/// into IPv6 (a dual-stack listener's IPv4 peer) is the IPv4 address: its /64 would be one
/// block holding every IPv4 client.
fn client(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        v4 @ IpAddr::V4(_) => v4,
        IpAddr::V6(v6) => {
            let mut octets = v6.octets();
            octets[8..].fill(0);
            IpAddr::from(octets)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_100_failures_block_an_address_and_no_other() {
        let throttle = Throttle::default();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for _ in 0..MAX_FAILURES {
            throttle.failed(a);
        }
        assert_eq!(throttle.blocked(a), None, "100 failures are allowed");
        throttle.failed(a);
        let wait = throttle.blocked(a).expect("the 101st failure blocks");
        assert!(wait > Duration::from_secs(9) && wait <= WINDOW, "{wait:?}");
        assert_eq!(throttle.blocked(b), None);
    }

    #[test]
    fn a_block_lasts_until_a_whole_window_passes_without_a_failure() {
        let throttle = Throttle::default();
        let ip: IpAddr = "10.0.0.3".parse().unwrap();
        for i in 0..=u64::from(MAX_FAILURES) {
            throttle.failed_at(ip, i * 50); // 101 failures within 5 s
        }
        let last = u64::from(MAX_FAILURES) * 50;
        assert_eq!(
            throttle.blocked_at(ip, last + 4_000),
            Some(Duration::from_millis(6_000))
        );
        // Blocked requests are not failures: they do not make the block longer.
        assert!(throttle.blocked_at(ip, last + 9_999).is_some());
        assert_eq!(throttle.blocked_at(ip, last + 10_000), None);
        // The old failures have left the window: one more does not block again.
        throttle.failed_at(ip, last + 10_500);
        assert_eq!(throttle.blocked_at(ip, last + 10_600), None);
    }

    #[test]
    fn ipv6_addresses_count_per_64_block() {
        let throttle = Throttle::default();
        for i in 0..=MAX_FAILURES {
            throttle.failed(format!("2001:db8::{i:x}").parse().unwrap());
        }
        assert!(throttle
            .blocked("2001:db8::ffff".parse().unwrap())
            .is_some());
        assert!(throttle.blocked("2001:db9::1".parse().unwrap()).is_none());
    }

    #[test]
    fn ipv4_mapped_addresses_count_per_ipv4_address() {
        let throttle = Throttle::default();
        for _ in 0..=MAX_FAILURES {
            throttle.failed("::ffff:192.0.2.1".parse().unwrap());
        }
        assert!(throttle.blocked("192.0.2.1".parse().unwrap()).is_some());
        assert!(throttle
            .blocked("::ffff:192.0.2.2".parse().unwrap())
            .is_none());
    }

    #[test]
    fn a_flood_of_distinct_addresses_keeps_the_table_its_size() {
        let throttle = Throttle::default();
        for i in 0..(4 * SLOTS as u32) {
            throttle.failed(IpAddr::from(i.to_be_bytes()));
        }
        assert_eq!(throttle.slots.len(), SLOTS);
    }

    #[test]
    fn seconds_leave_the_window() {
        let mut slot = Slot {
            counts: [1; BUCKETS],
            newest: 100,
            ..Slot::default()
        };
        slot.advance(103);
        assert_eq!(slot.counts.iter().sum::<u16>(), 7);
        slot.advance(200);
        assert_eq!(slot.counts.iter().sum::<u16>(), 0);
    }
}
