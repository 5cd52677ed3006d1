//! The server's one timer: reminders (docs §18) and the time boundaries of live views
//! (§24), so that a server holding a million future reminders and thousands of live views
//! sleeps until the first instant any of them has, and a tick touches only what is due.
//!
//! # Reminders
//!
//! Each space knows which of its tasks has a reminder due next ([`Space::next_reminder`],
//! an ordered set kept in step with its records). Its actor tells the [`Timer`] whenever
//! that time changes; the registry tells it the times of the spaces loaded at start-up,
//! which have no actor yet. The [`Wheel`] keeps one entry per space, ordered by time, and
//! when the first comes due sends that space a [`Fire`]: the space actor fires each due
//! task as a write of its own ([`Op::Remind`](crate::model::Op::Remind)), journaled,
//! replicated and streamed like any other, and reports its next time as every write does.
//! So reminders that came due while taskd was stopped fire at start-up, once: a firing
//! sets `remindedAt`, and a task is due only for a reminder after it.
//!
//! The wheel sends a space a [`Fire`] at most every [`RESPITE_MS`]: a firing that fails
//! (the journal refused it) is tried again then, not in a busy loop, and a reminder still
//! fires within a second of its time. A space with more due than one batch goes on by
//! itself, a batch at a time as the previous one becomes durable (see `SpaceActor::fire`).
//! With replication only the primary fires; a standby keeps its entries and fires what is
//! due once it becomes the primary.
//!
//! # Live views
//! A live view stream keeps, in its own ordered set, the next instant at which each of its
//! tasks may enter or leave as the clock moves (`model::views::Boundaries`); the first of
//! them is the view's next boundary. The stream holds an [`Alarm`] and sets it to that
//! instant whenever it changes; the wheel keeps every set alarm in one ordered set of
//! `(instant, alarm)` beside the spaces' reminder times, and rings each alarm whose
//! instant has come (a [`Notify`] permit: the stream wakes, takes its due tasks and sets
//! the alarm again). So an idle server with 10,000 live views sleeps until the first
//! boundary of any of them, and a tick costs only the views it rings. Alarms ring on a
//! standby too (it has no live views: it serves no `/api/v1`).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Notify};

use super::space::Fire;
use super::{Failure, Spaces};
use crate::model::space::LIGHT_COMMANDS;
use crate::replication::NodeRole;

/// The most firings a space applies at a time; see `SpaceActor::fire`.
pub(crate) const FIRE_BATCH: usize = 1_000;
/// The most writes a space has waiting for their sync before it fires more: those of four
/// batches of [`FIRE_BATCH`] firings, so a burst waits for the journal every 4,000 (see
/// `SpaceActor::fire`).
pub(crate) const FIRE_WRITES: usize = 4 * FIRE_BATCH.div_ceil(LIGHT_COMMANDS);
/// The least time between two [`Fire`]s the wheel sends one space.
const RESPITE_MS: i64 = 250;
/// How often a standby looks whether it became the primary, while reminders are due.
const STANDBY_CHECK: Duration = Duration::from_secs(1);

/// What the wheel hears.
#[derive(Debug)]
enum Note {
    /// A space's next reminder is due at this time (or it has none).
    Space(Box<str>, Option<i64>),
    /// An alarm rings at this time, through this [`Notify`] (or is not set).
    Alarm(u64, Option<(i64, Arc<Notify>)>),
}

/// Tells the [`Wheel`] about the reminders of spaces and the alarms of live views; cheap
/// to clone, and a note costs a channel send.
#[derive(Debug, Clone)]
pub struct Timer {
    notes: mpsc::UnboundedSender<Note>,
    /// The id of the next [`Alarm`].
    alarms: Arc<AtomicU64>,
}

impl Timer {
    /// A timer and the wheel it tells, which [`Wheel::run`] drives.
    pub(crate) fn new() -> (Timer, Wheel) {
        let (notes, heard) = mpsc::unbounded_channel();
        let timer = Timer {
            notes,
            alarms: Arc::default(),
        };
        let wheel = Wheel {
            timer: timer.clone(),
            heard,
            spaces: HashMap::new(),
            queue: BTreeSet::new(),
            alarms: HashMap::new(),
            ringing: BTreeSet::new(),
        };
        (timer, wheel)
    }

    /// Space `space`'s next reminder is due at `next` (`None`: it has none).
    pub(crate) fn note(&self, space: &str, next: Option<i64>) {
        self.send(Note::Space(space.into(), next));
    }

    /// A new alarm on this timer, not set.
    pub(crate) fn alarm(&self) -> Alarm {
        Alarm {
            id: self.alarms.fetch_add(1, Ordering::Relaxed),
            timer: self.clone(),
            ring: Arc::new(Notify::new()),
            set: None,
        }
    }

    fn send(&self, note: Note) {
        // Without a wheel (its server is stopping) nothing is left to fire or ring.
        let _ = self.notes.send(note);
    }
}

/// One live view's place on the server's [`Timer`]: set to an instant, it rings once that
/// instant has come, once; dropped, it leaves the timer. See the module documentation.
#[derive(Debug)]
pub(crate) struct Alarm {
    id: u64,
    timer: Timer,
    ring: Arc<Notify>,
    /// The instant it is set to, as last told to the wheel.
    set: Option<i64>,
}

impl Alarm {
    /// Rings at `at` (`None`: never), replacing the instant it was set to. Telling the
    /// wheel costs a channel send, and only when the instant changes.
    pub(crate) fn set(&mut self, at: Option<i64>) {
        if at != self.set {
            self.set = at;
            let ring = at.map(|at| (at, Arc::clone(&self.ring)));
            self.timer.send(Note::Alarm(self.id, ring));
        }
    }

    /// Waits until the alarm rings; it is not set afterwards. Cancel-safe: a ring that
    /// comes while nobody waits is kept for the next call.
    pub(crate) async fn rung(&mut self) {
        self.ring.notified().await;
        self.set = None;
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        if self.set.is_some() {
            self.timer.send(Note::Alarm(self.id, None));
        }
    }
}

/// What the wheel knows of one space.
#[derive(Debug, Default)]
struct Entry {
    /// When its next reminder is due, as last noted.
    next: Option<i64>,
    /// It is not fired before this time (see [`RESPITE_MS`]).
    not_before: i64,
    /// Its place in the queue, if it is queued.
    queued: Option<i64>,
}

/// Every space's next reminder, in time order; see the module documentation.
#[derive(Debug)]
pub(crate) struct Wheel {
    /// For the firings it starts, which note a deleted space.
    timer: Timer,
    heard: mpsc::UnboundedReceiver<Note>,
    spaces: HashMap<Box<str>, Entry>,
    queue: BTreeSet<(i64, Box<str>)>,
    /// Every set alarm: its instant and how to ring it.
    alarms: HashMap<u64, (i64, Arc<Notify>)>,
    /// The set alarms, in time order.
    ringing: BTreeSet<(i64, u64)>,
}

impl Wheel {
    /// Fires the reminders of `spaces` as they come due, while this node is the primary
    /// (`role`; always without replication), for as long as the runtime runs.
    pub(crate) async fn run(mut self, spaces: Arc<Spaces>, role: Option<Arc<NodeRole>>) {
        loop {
            let now = now_ms();
            self.ring_due(now);
            let primary = role.as_ref().is_none_or(|r| r.is_primary());
            let wait = match self.queue.first() {
                None => None,
                Some(_) if !primary => Some(STANDBY_CHECK),
                Some((at, _)) => Some(until(*at, now)),
            };
            if wait == Some(Duration::ZERO) {
                for space in self.take_due(now) {
                    let (spaces, timer) = (Arc::clone(&spaces), self.timer.clone());
                    actix_web::rt::spawn(async move {
                        match spaces.call(&space, Fire).await {
                            Ok(()) => {}
                            // A deleted space, or one whose actor stopped (it could not
                            // be reloaded, and says so in the log), fires nothing more.
                            Err(Failure::Gone | Failure::Stopped) => timer.note(&space, None),
                            // Busy or stalled: its entry stays, tried after the respite.
                            Err(e) => log::debug!("reminders of space {space} not fired: {e}"),
                        }
                    });
                }
                continue;
            }
            let alarm = self.ringing.first().map(|(at, _)| until(*at, now));
            let wait = wait.into_iter().chain(alarm).min();
            let note = match wait {
                Some(wait) => match tokio::time::timeout(wait, self.heard.recv()).await {
                    Ok(note) => note,
                    Err(_) => continue,
                },
                None => self.heard.recv().await,
            };
            // The wheel holds a timer itself, so the channel stays open.
            let Some(note) = note else { return };
            self.hear(note);
            // Take in everything already sent before looking at the clock again.
            while let Ok(note) = self.heard.try_recv() {
                self.hear(note);
            }
        }
    }

    /// Rings every alarm whose instant is at or before `now`, and forgets it.
    fn ring_due(&mut self, now: i64) {
        while self.ringing.first().is_some_and(|(at, _)| *at <= now) {
            let (_, id) = self.ringing.pop_first().expect("checked");
            if let Some((_, ring)) = self.alarms.remove(&id) {
                ring.notify_one();
            }
        }
    }

    /// Takes in one note.
    fn hear(&mut self, note: Note) {
        let (space, next) = match note {
            Note::Space(space, next) => (space, next),
            Note::Alarm(id, set) => {
                if let Some((at, _)) = self.alarms.remove(&id) {
                    self.ringing.remove(&(at, id));
                }
                if let Some((at, ring)) = set {
                    self.ringing.insert((at, id));
                    self.alarms.insert(id, (at, ring));
                }
                return;
            }
        };
        match next {
            None => {
                if let Some(entry) = self.spaces.remove(&space) {
                    if let Some(at) = entry.queued {
                        self.queue.remove(&(at, space));
                    }
                }
            }
            next => {
                self.spaces.entry(space.clone()).or_default().next = next;
                self.requeue(space);
            }
        }
    }

    /// Puts `space` in the queue at its next time, not before its respite ends.
    fn requeue(&mut self, space: Box<str>) {
        let Some(entry) = self.spaces.get_mut(&space) else {
            return;
        };
        let at = entry.next.map(|next| next.max(entry.not_before));
        if at == entry.queued {
            return;
        }
        if let Some(old) = entry.queued.take() {
            self.queue.remove(&(old, space.clone()));
        }
        if let Some(at) = at {
            entry.queued = Some(at);
            self.queue.insert((at, space));
        }
    }

    /// Takes the spaces due at `now` off the queue, each with its respite begun.
    fn take_due(&mut self, now: i64) -> Vec<Box<str>> {
        let mut due = Vec::new();
        while let Some((at, _)) = self.queue.first() {
            if *at > now {
                break;
            }
            let (_, space) = self.queue.pop_first().expect("checked");
            if let Some(entry) = self.spaces.get_mut(&space) {
                entry.queued = None;
                entry.not_before = now.saturating_add(RESPITE_MS);
            }
            due.push(space);
        }
        due
    }
}

/// The time from `now` until `at`, zero when it is past.
fn until(at: i64, now: i64) -> Duration {
    Duration::from_millis(u64::try_from(at.saturating_sub(now)).unwrap_or(0))
}

/// The current time, in milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(wheel: &mut Wheel) {
        while let Ok(note) = wheel.heard.try_recv() {
            wheel.hear(note);
        }
    }

    #[test]
    fn spaces_come_due_in_time_order_and_a_fired_one_waits_out_its_respite() {
        let (timer, mut wheel) = Timer::new();
        timer.note("b", Some(2_000));
        timer.note("a", Some(1_000));
        timer.note("c", Some(9_000));
        heard(&mut wheel);
        assert!(wheel.take_due(999).is_empty());
        assert_eq!(
            wheel.take_due(2_000),
            vec!["a".into(), "b".into()] as Vec<Box<str>>
        );
        // Still due (its firing failed): not before the respite ends.
        timer.note("a", Some(1_000));
        heard(&mut wheel);
        assert!(wheel.take_due(2_000 + RESPITE_MS - 1).is_empty());
        assert_eq!(
            wheel.take_due(2_000 + RESPITE_MS),
            vec!["a".into()] as Vec<Box<str>>
        );
        // A later reminder is queued at its own time; none left drops the space.
        timer.note("b", Some(5_000));
        timer.note("c", None);
        heard(&mut wheel);
        assert_eq!(wheel.queue.len(), 1);
        assert_eq!(wheel.take_due(i64::MAX), vec!["b".into()] as Vec<Box<str>>);
        assert!(!wheel.spaces.contains_key("c"));
    }

    #[test]
    fn alarms_ring_in_time_order_once_and_a_dropped_one_leaves() {
        let (timer, mut wheel) = Timer::new();
        let (mut a, mut b, mut c) = (timer.alarm(), timer.alarm(), timer.alarm());
        a.set(Some(3_000));
        b.set(Some(1_000));
        c.set(Some(2_000));
        b.set(Some(5_000));
        drop(c);
        heard(&mut wheel);
        assert_eq!(wheel.ringing.len(), 2);
        wheel.ring_due(4_000);
        assert_eq!(wheel.ringing.len(), 1, "a rang, b waits for 5,000");
        assert!(wheel.alarms.contains_key(&b.id) && !wheel.alarms.contains_key(&a.id));
        wheel.ring_due(i64::MAX);
        assert!(wheel.ringing.is_empty() && wheel.alarms.is_empty());
        // Each ring left a permit that its stream takes when it next waits.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            a.rung().await;
            b.rung().await;
        });
        assert_eq!((a.set, b.set), (None, None), "a rung alarm is not set");
    }

    #[test]
    fn a_new_time_replaces_the_old_one() {
        let (timer, mut wheel) = Timer::new();
        timer.note("a", Some(5_000));
        timer.note("a", Some(7_000));
        heard(&mut wheel);
        assert_eq!(wheel.queue.len(), 1);
        assert!(wheel.take_due(6_000).is_empty());
        timer.note("a", Some(3_000));
        heard(&mut wheel);
        assert_eq!(wheel.take_due(6_000), vec!["a".into()] as Vec<Box<str>>);
        assert!(wheel.queue.is_empty());
    }
}
