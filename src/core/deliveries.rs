//! What the webhook sender ([`crate::webhooks`]) and the JSON API share (§19): the
//! delivery logs, the positions acknowledged but not yet journaled, and the rule of which
//! addresses a delivery may go to. The sender writes them; the API shows them.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};

use crate::actors::Directory;
use crate::model::webhook::{refused, url_host, Position, Webhook};
use crate::model::Change;

/// How many attempts a webhook's delivery log keeps.
const LOG_LEN: usize = 100;

/// How the sender behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Settings {
    /// Deliveries may go to loopback, private, link-local and unspecified addresses
    /// (`--webhook-allow-private`).
    pub allow_private: bool,
    /// The retry schedule's delays are divided by this: for tests only
    /// (`TASKD_WEBHOOK_RETRY_DIVISOR`), 1 when serving.
    pub retry_divisor: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            allow_private: false,
            retry_divisor: 1,
        }
    }
}

/// One attempt of the delivery log (`GET /api/v1/webhooks/{id}/deliveries`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attempt {
    /// `webhook-id` of the attempt.
    pub webhook_message_id: String,
    /// Its number for that message, from 1.
    pub attempt: u32,
    /// Its start, milliseconds since the epoch.
    pub at: i64,
    /// The HTTP status, if there was an answer.
    pub status: Option<u16>,
    /// How long it took.
    pub duration_ms: u64,
    /// `null` on a `2xx`, else why it failed (`given up` on the last one).
    pub error: Option<String>,
}

/// What the sender shares with the JSON API: the delivery logs and the positions
/// acknowledged but not yet journaled. Cheap to share (`web::Data`).
#[derive(Debug, Default)]
pub(crate) struct Deliveries {
    settings: Settings,
    logs: Mutex<HashMap<Box<str>, VecDeque<Attempt>>>,
    acked: Mutex<HashMap<Box<str>, Position>>,
}

impl Deliveries {
    /// The shared state of a sender with `settings`.
    pub(crate) fn new(settings: Settings) -> Deliveries {
        Deliveries {
            settings,
            ..Deliveries::default()
        }
    }

    /// Why `url` may not be a webhook's (its host resolves to a refused address), or
    /// `None` when it may.
    pub(crate) async fn refuses(&self, url: &str) -> Option<String> {
        check_url(url, self.settings.allow_private).await
    }

    /// How the sender behaves.
    pub(crate) fn settings(&self) -> Settings {
        self.settings
    }

    /// Webhook `id`'s delivery log, newest first.
    pub(crate) fn log(&self, id: &str) -> Vec<Attempt> {
        let logs = self.logs.lock().unwrap_or_else(PoisonError::into_inner);
        logs.get(id)
            .map(|l| l.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    /// Where `webhook` is: its journaled position, or the one acknowledged since.
    pub(crate) fn position(&self, webhook: &Webhook) -> Position {
        let acked = self.acked.lock().unwrap_or_else(PoisonError::into_inner);
        match acked.get(&webhook.id) {
            Some(p) if p.at_or_past(&webhook.position) => p.clone(),
            _ => webhook.position.clone(),
        }
    }

    /// Forgets a deleted webhook's log and position.
    pub(crate) fn forget(&self, id: &str) {
        self.keep_only(|kept| kept != id);
    }

    /// Forgets the logs and positions of the webhooks `keep` says no to.
    pub(crate) fn keep_only(&self, keep: impl Fn(&str) -> bool) {
        self.logs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|id, _| keep(id));
        self.acked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|id, _| keep(id));
    }

    /// Adds `attempt` to webhook `id`'s log, forgetting its oldest past [`LOG_LEN`].
    pub(crate) fn note(&self, id: &str, attempt: Attempt) {
        let mut logs = self.logs.lock().unwrap_or_else(PoisonError::into_inner);
        let log = logs.entry(id.into()).or_default();
        if log.len() == LOG_LEN {
            log.pop_front();
        }
        log.push_back(attempt);
    }

    /// Notes that webhook `id` is acknowledged up to `position`.
    pub(crate) fn ack(&self, id: &str, position: Position) {
        let mut acked = self.acked.lock().unwrap_or_else(PoisonError::into_inner);
        let moved = acked.get(id).is_none_or(|p| !p.at_or_past(&position));
        if moved {
            acked.insert(id.into(), position);
        }
    }

    /// Journals the positions acknowledged since they were last journaled, as one
    /// directory change; what could not be journaled is tried again next time.
    pub(crate) async fn flush(&self, directory: &Directory) {
        let moved: Vec<(Box<str>, Position)> = {
            let acked = self.acked.lock().unwrap_or_else(PoisonError::into_inner);
            let state = directory.read();
            acked
                .iter()
                .filter(|(id, p)| state.webhook(id).is_some_and(|w| !w.position.at_or_past(p)))
                .map(|(id, p)| (id.clone(), p.clone()))
                .collect()
        };
        if moved.is_empty() {
            return;
        }
        match directory.note(Change::WebhookPositions(moved)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => log::warn!("webhook positions not journaled: {e}"),
            Err(e) => log::warn!("webhook positions not journaled: {e}"),
        }
    }
}

/// Why a delivery may not go to a host with `addrs` (§19: a name with any refused address
/// is refused), or `None` when it may.
pub(crate) fn checked(
    addrs: impl IntoIterator<Item = IpAddr>,
    allow_private: bool,
) -> Option<String> {
    if allow_private {
        return None;
    }
    addrs
        .into_iter()
        .find_map(|ip| refused(ip).map(|why| format!("refused address {ip} ({why})")))
}

/// Whether `url`'s host resolves to an address §19 refuses (for a creation or a PATCH of
/// `url`): why, or `None` (a host that does not resolve is accepted: it fails at delivery).
async fn check_url(url: &str, allow_private: bool) -> Option<String> {
    if allow_private {
        return None;
    }
    let host = url_host(url)?;
    match host.parse::<IpAddr>() {
        Ok(ip) => checked([ip], false),
        Err(_) => {
            let addrs = tokio::net::lookup_host((host, 443)).await.ok()?;
            checked(addrs.map(|a| a.ip()), false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_with_any_refused_address_is_refused() {
        let public: IpAddr = "93.184.215.14".parse().unwrap();
        let private: IpAddr = "10.0.0.8".parse().unwrap();
        assert_eq!(checked([public], false), None);
        assert_eq!(
            checked([public, private], false).as_deref(),
            Some("refused address 10.0.0.8 (private)")
        );
        assert_eq!(checked([public, private], true), None);
    }

    #[actix_web::test]
    async fn an_address_literal_url_is_checked_without_a_lookup() {
        assert!(check_url("http://127.0.0.1:9/x", false).await.is_some());
        assert!(check_url("http://[::ffff:192.168.0.1]/", false)
            .await
            .is_some());
        assert_eq!(check_url("http://127.0.0.1:9/x", true).await, None);
        assert_eq!(check_url("https://93.184.215.14/", false).await, None);
    }
}
