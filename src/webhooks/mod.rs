//! The webhook sender (docs §19): a front like the JSON API, which reads each space's
//! change feed through the registry (as a feed page does) and moves webhooks' positions
//! through the directory (as a request changes a token).
//!
//! # How it runs
//! One arbiter (a thread of its own, so receivers never slow requests) runs a supervisor
//! and one task per active webhook. The supervisor, every [`TICK`], starts a task for each
//! active webhook of the directory, stops those whose webhook was deleted, turned off or
//! changed (a changed one starts again at once with its new settings), and on a standby
//! (§16) runs none. Every [`FLUSH`] it journals the positions acknowledged since the last
//! time, as one directory change, sets the pending gauges, and forgets what it kept of
//! webhooks that are gone.
//!
//! An idle webhook's task waits for its space's next durable write ([`Wake`]). It
//! delivers one event at a time, in feed order: it finds the first feed
//! item after its position that the webhook selects ([`next_event`]: the record as it is
//! now, so a record changed many times while the receiver was down goes once), POSTs it,
//! and on a `2xx` moves its position past it in memory; other answers are retried on the
//! schedule (or after `Retry-After`), each attempt finding the next item afresh. A webhook
//! that is behind holds only its position: the feed is the queue. Nothing waits on a
//! webhook's task but the task itself; a hanging receiver holds up only its own webhook.
//!
//! # What a crash leaves
//! Positions are journaled lazily, at most [`FLUSH`] after their acknowledgement: after a
//! `kill -9` a webhook resumes from its last journaled position and sends again the events
//! acknowledged since (receivers dedupe by `webhook-id`). The delivery log is in memory
//! only.

mod client;

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::Arbiter;
use actix_web::web::Bytes;
use rand::Rng;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::actors::space::{Committed, Subscribe};
use crate::actors::Failure;
use crate::core::deliveries::Attempt;
use crate::core::Core;
use crate::metrics::{OutcomeLabels, WebhookLabels, METRICS};
use crate::model::webhook::{
    jittered, next_event, pending, signature, Position, Webhook, RETRY_SCHEDULE,
};
use crate::model::{Change, DirectoryError, Touched};
use crate::replication::NodeRole;
use crate::wire::{self, RecordJson, Stamp};
use client::{Sender, Sent};

/// How often the supervisor looks at the directory.
const TICK: Duration = Duration::from_millis(200);
/// How often acknowledged positions are journaled (docs §19: after a crash, at most
/// the events acknowledged in the last second come again): a multiple of [`TICK`], with
/// room for the journal's sync within the second.
const FLUSH: Duration = Duration::from_millis(800);
/// How often an idle webhook looks for new events when no durable write woke it.
const POLL: Duration = Duration::from_secs(1);
/// The signals of durable writes a webhook's task holds before its space ends its stream.
const WAKE_BUFFER: usize = 64;
/// How many feed items a webhook looks at in one read.
const SCAN: usize = 32;

/// What the sender's tasks share, on its arbiter.
struct Shared {
    core: Arc<Core>,
    sender: Sender,
}

/// Starts the sender on an arbiter of its own; stop the arbiter to stop it (after a last
/// [`Core::flush_deliveries`]). With `role`, only the primary delivers.
pub(crate) fn start(core: Arc<Core>, role: Option<Arc<NodeRole>>) -> Arbiter {
    let arbiter = Arbiter::new();
    // The client is made on the arbiter's thread, where it stays.
    arbiter.spawn_fn(move || {
        let shared = Rc::new(Shared {
            sender: Sender::new(core.deliveries().settings().allow_private),
            core,
        });
        actix_web::rt::spawn(supervise(shared, role));
    });
    arbiter
}

/// A running webhook task and the settings it runs with.
struct Running {
    settings: Webhook,
    task: JoinHandle<()>,
}

/// A webhook's settings: all of it but its position.
fn settings_of(webhook: &Webhook) -> Webhook {
    Webhook {
        position: Position {
            version: 0,
            key: None,
        },
        ..webhook.clone()
    }
}

async fn supervise(shared: Rc<Shared>, role: Option<Arc<NodeRole>>) {
    let mut running: HashMap<Box<str>, Running> = HashMap::new();
    let mut gauged = HashSet::new();
    let mut tick = tokio::time::interval(TICK);
    let mut flushed = Instant::now();
    loop {
        tick.tick().await;
        let primary = role.as_ref().is_none_or(|r| r.is_primary());
        let wanted: HashMap<Box<str>, Webhook> = if primary {
            shared
                .core
                .directory()
                .webhooks()
                .filter(|w| w.active)
                .map(|w| (w.id.clone(), settings_of(w)))
                .collect()
        } else {
            HashMap::new()
        };
        running.retain(|id, run| {
            let keep = wanted.get(id) == Some(&run.settings) && !run.task.is_finished();
            if !keep {
                run.task.abort();
            }
            keep
        });
        for (id, settings) in wanted {
            if let Entry::Vacant(slot) = running.entry(id) {
                let task = actix_web::rt::spawn(deliver(Rc::clone(&shared), slot.key().clone()));
                slot.insert(Running { settings, task });
            }
        }
        if flushed.elapsed() >= FLUSH {
            flushed = Instant::now();
            shared.core.flush_deliveries().await;
            gauged = gauge_pending(&shared, primary, gauged).await;
        }
    }
}

/// Sets `taskd_webhook_pending` of every webhook this node delivers for (none on a
/// standby), removes the gauges in `gauged` of the others, and forgets the logs and
/// positions of webhooks that are gone (deleted, or with their space); the webhooks gauged
/// now.
async fn gauge_pending(
    shared: &Shared,
    primary: bool,
    gauged: HashSet<Box<str>>,
) -> HashSet<Box<str>> {
    let webhooks: Vec<Webhook> = shared.core.directory().webhooks().cloned().collect();
    shared
        .core
        .deliveries()
        .keep_only(|id| webhooks.iter().any(|w| *w.id == *id));
    let webhooks = if primary { webhooks } else { Vec::new() };
    let now: HashSet<Box<str>> = webhooks.iter().map(|w| w.id.clone()).collect();
    for id in gauged.difference(&now) {
        METRICS.webhook_pending.remove(&WebhookLabels {
            webhook: id.to_string(),
        });
    }
    for webhook in webhooks {
        let labels = WebhookLabels {
            webhook: webhook.id.to_string(),
        };
        let position = shared.core.deliveries().position(&webhook);
        let space = webhook.space.clone();
        let count = shared
            .core
            .read(&space, move |s| pending(s, &webhook, &position))
            .await;
        if let Ok(count) = count {
            METRICS
                .webhook_pending
                .get_or_create(&labels)
                .set(count as i64);
        }
    }
    now
}

/// The failures in a row of a webhook's current event, and the last message tried.
#[derive(Default)]
struct Streak {
    failures: usize,
    message: Option<(String, u32)>,
}

/// Delivers webhook `id`'s events until it is deleted, turned off or changed (then the
/// supervisor stops this task) or its space is deleted.
async fn deliver(shared: Rc<Shared>, id: Box<str>) {
    let mut streak = Streak::default();
    let mut wake = Wake {
        signals: None,
        seen: 0,
    };
    loop {
        let Some(webhook) = shared.core.directory().webhook(&id).cloned() else {
            return;
        };
        let position = shared.core.deliveries().position(&webhook);
        let scan = {
            let webhook = webhook.clone();
            let position = position.clone();
            shared
                .core
                .read_durable(&webhook.space.clone(), wake.seen, move |s| {
                    next_event(s, &webhook, &position, SCAN)
                })
                .await
        };
        let next = match scan {
            Ok(next) => next,
            Err(Failure::Gone) => return,
            Err(e) => {
                log::warn!("webhook {id}: its space cannot be read: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if let Some(passed) = next.passed {
            shared.core.deliveries().ack(&id, passed);
        }
        let Some((touched, event)) = next.event else {
            wake.wait(&shared.core, &webhook.space, next.version).await;
            continue;
        };
        match attempt(&shared, &webhook, &touched, event, &mut streak).await {
            Then::Next => {}
            Then::Wait(wait) => tokio::time::sleep(wait).await,
            Then::Stop => return,
        }
    }
}

/// Wakes an idle webhook's task when its space has a durable write: a change stream of the
/// space (as a client's, docs §12) whose items serve only as signals, the events being
/// read from the feed. A signal of a write the last scan saw is passed over; one of a
/// write after it wakes the task, however the write and the scan interleave, so no wake-up
/// is lost. When the task does not keep up, the space ends the stream (its buffer is full)
/// and the task scans again and starts another; [`POLL`] bounds a wait all the same.
struct Wake {
    signals: Option<mpsc::Receiver<Arc<Committed>>>,
    /// The newest version a signal told of: the next scan reads a state that holds it.
    seen: u64,
}

impl Wake {
    /// Waits for a durable write of `space` after `version` (the version the last scan
    /// saw), at most [`POLL`].
    async fn wait(&mut self, core: &Core, space: &str, version: u64) {
        if self.seen > version {
            return; // the scan read an older state (the actor was applying a long write)
        }
        if self.signals.is_none() {
            let (changes, signals) = mpsc::channel(WAKE_BUFFER);
            let subscribe = Subscribe {
                since: version,
                changes,
                pin: None,
            };
            if let Ok(Ok(())) = core.ask(space, subscribe).await {
                self.signals = Some(signals);
            }
        }
        let Some(signals) = &mut self.signals else {
            tokio::time::sleep(POLL).await;
            return;
        };
        let deadline = tokio::time::sleep(POLL);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                signal = signals.recv() => match signal {
                    None => {
                        self.signals = None;
                        return;
                    }
                    Some(write) => {
                        let newest = write.touched.iter().map(|t| t.record.version).max();
                        self.seen = self.seen.max(newest.unwrap_or(0));
                        if self.seen > version {
                            return;
                        }
                    }
                },
                _ = &mut deadline => return,
            }
        }
    }
}

/// What a webhook's task does after an attempt.
enum Then {
    /// The next event (the position moved on).
    Next,
    /// The next attempt, after this long.
    Wait(Duration),
    /// Nothing: the webhook is turned off.
    Stop,
}

/// Signs and POSTs the event of `touched` to `webhook` (docs §19), numbering the attempt
/// in `streak`; the delivery log's entry of the attempt and what came of it.
async fn send(
    shared: &Shared,
    webhook: &Webhook,
    touched: &Touched,
    event: &str,
    streak: &mut Streak,
) -> (Attempt, Sent) {
    let record = &touched.record;
    let message_id = format!(
        "{}.{}.{}.{}",
        webhook.space,
        touched.kind.noun(),
        record.id,
        record.version
    );
    let number = match &streak.message {
        Some((m, n)) if *m == message_id => n + 1,
        _ => 1,
    };
    streak.message = Some((message_id.clone(), number));
    let body = Bytes::from(delivery(event, &webhook.space, touched));
    let now = chrono::Utc::now();
    let signed = signature(
        webhook.signing(now.timestamp_millis()),
        &message_id,
        now.timestamp(),
        &body,
    );
    let headers = [
        ("webhook-id", message_id.clone()),
        ("webhook-timestamp", now.timestamp().to_string()),
        ("webhook-signature", signed),
    ];
    let started = Instant::now();
    let sent = shared.sender.post(&webhook.url, &headers, body).await;
    let entry = Attempt {
        webhook_message_id: message_id,
        attempt: number,
        at: now.timestamp_millis(),
        status: None,
        duration_ms: started.elapsed().as_millis() as u64,
        error: None,
    };
    (entry, sent)
}

/// Makes one attempt to deliver `touched` to `webhook`.
async fn attempt(
    shared: &Shared,
    webhook: &Webhook,
    touched: &Touched,
    event: &str,
    streak: &mut Streak,
) -> Then {
    let (mut entry, sent) = send(shared, webhook, touched, event, streak).await;
    let record = &touched.record;
    let passed = Position {
        version: record.version,
        key: Some((touched.kind, (*record.id).into())),
    };
    let (then, outcome) = match sent {
        Sent::Status(status @ 200..=299, _) => {
            entry.status = Some(status);
            *streak = Streak::default();
            shared.core.deliveries().ack(&webhook.id, passed);
            (Then::Next, "delivered")
        }
        Sent::Status(410, _) => {
            entry.status = Some(410);
            entry.error = Some("410 Gone: the webhook is turned off".into());
            let gone = Change::WebhookGone {
                webhook: webhook.id.clone(),
            };
            let _editing = shared.core.editing(&webhook.id).await;
            match shared.core.note(gone).await {
                Ok(Ok(())) | Ok(Err(DirectoryError::NotFound(_))) => {}
                Ok(Err(e)) => log::warn!("webhook {}: not turned off after a 410: {e}", webhook.id),
                Err(e) => log::warn!("webhook {}: not turned off after a 410: {e}", webhook.id),
            }
            (Then::Stop, "gone")
        }
        failed => {
            let (status, asked) = match failed {
                Sent::Status(status, asked) => (Some(status), asked),
                Sent::Failed(why) => {
                    entry.error = Some(why);
                    (None, None)
                }
            };
            entry.status = status;
            if entry.error.is_none() {
                entry.error = status.map(|s| format!("HTTP {s}"));
            }
            match RETRY_SCHEDULE.get(streak.failures) {
                Some(step) => {
                    streak.failures += 1;
                    let divisor = shared.core.deliveries().settings().retry_divisor.max(1);
                    let scheduled =
                        jittered(*step / divisor, rand::thread_rng().gen_range(-1.0..=1.0));
                    (Then::Wait(asked.unwrap_or(scheduled)), "failed")
                }
                None => {
                    entry.error = Some("given up".into());
                    *streak = Streak::default();
                    shared.core.deliveries().ack(&webhook.id, passed);
                    (Then::Next, "given_up")
                }
            }
        }
    };
    METRICS
        .webhook_deliveries
        .get_or_create(&OutcomeLabels { outcome })
        .inc();
    shared.core.deliveries().note(&webhook.id, entry);
    then
}

/// A webhook delivery's body (docs §19): `{"type", "spaceId", "version" (the record's
/// `versionUpdatedAt`), "timestamp" (its `updatedAt`), "data": <record>}`.
fn delivery(event: &str, space: &str, change: &Touched) -> Vec<u8> {
    let record = &change.record;
    let mut out = Vec::with_capacity(1024);
    out.extend_from_slice(b"{\"type\":");
    wire::string(&mut out, event);
    out.extend_from_slice(b",\"spaceId\":");
    wire::string(&mut out, space);
    out.extend_from_slice(b",\"version\":");
    wire::unsigned(&mut out, record.version);
    out.extend_from_slice(b",\"timestamp\":");
    Stamp(record.updated_at).write(&mut out);
    out.extend_from_slice(b",\"data\":");
    RecordJson {
        kind: change.kind,
        space,
        record,
    }
    .write(&mut out);
    out.push(b'}');
    out
}
