//! Webhooks (docs §19) as values, with no web or actor types: the stored webhook and
//! its position in its space's feed, the validation of a request's body, the event type a
//! record's state makes, the address check, Standard Webhooks signing, the retry schedule
//! and `Retry-After`.
//!
//! A webhook lives in the directory (a [`super::Change`] creates, changes or deletes it, and
//! moves positions), so it is journaled, replicated and kept in the users file like a token.
//! The sender (`crate::webhooks`) decides nothing of its own: what to send, when to retry
//! and what to refuse are the functions here.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use sha2::Sha256;

use super::error::{FieldError, ValidationError};
use super::kind::Kind;
use super::record::Record;
use super::space::{Space, Touched};

/// At most this many webhooks a space (`409 limit_reached`).
pub const MAX_WEBHOOKS_PER_SPACE: usize = 10;
/// The longest `url`, in characters.
pub const MAX_URL_CHARS: usize = 2_000;
/// The longest `description`, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1_000;
/// How long a rotated-out secret goes on signing, in milliseconds.
pub const ROTATION_OVERLAP_MS: i64 = 24 * 3_600_000;
/// The delays before each retry of a delivery, in order; after the last one fails the
/// event is given up. Each is jittered by ±10 % ([`jittered`]).
pub const RETRY_SCHEDULE: [Duration; 10] = [
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_secs(120),
    Duration::from_secs(600),
    Duration::from_secs(1_800),
    Duration::from_secs(3_600),
    Duration::from_secs(3 * 3_600),
    Duration::from_secs(6 * 3_600),
    Duration::from_secs(12 * 3_600),
    Duration::from_secs(24 * 3_600),
];
/// The longest delay a `Retry-After` may ask for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 3_600);
/// The prefix of a secret's text.
const SECRET_PREFIX: &str = "whsec_";

/// A signing secret; the current one has no end, a rotated-out one signs until `until`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Secret {
    /// `whsec_` + base64 of 32 random bytes.
    pub key: Box<str>,
    /// When it stops signing, milliseconds since the epoch; `None` for the current one.
    pub until: Option<i64>,
}

/// How far a webhook's deliveries went in its space's feed: every feed item up to and
/// including `version` (and, within `version`, up to and including the record `key` names,
/// when it names one) was delivered, filtered out or given up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The space version.
    pub version: u64,
    /// The last record passed within `version`; `None` when the whole version was passed.
    pub key: Option<(Kind, Box<str>)>,
}

impl Position {
    /// Whether the feed item of `kind` and `id` at `version` comes after this position.
    pub fn before(&self, version: u64, kind: Kind, id: &str) -> bool {
        match &self.key {
            _ if version != self.version => version > self.version,
            None => false,
            Some((k, i)) => (kind, id) > (*k, &**i),
        }
    }

    /// Whether this position is at or past `other` (positions only move forward).
    pub fn at_or_past(&self, other: &Position) -> bool {
        self.rank() >= other.rank()
    }

    /// The order of positions: by version, then within a version by the record passed,
    /// a whole version last.
    fn rank(&self) -> (u64, bool, Option<(Kind, &str)>) {
        let key = self.key.as_ref().map(|(k, i)| (*k, &**i));
        (self.version, key.is_none(), key)
    }
}

/// A webhook as the directory keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    /// Its id (a UUID).
    pub id: Box<str>,
    /// The space whose changes it gets.
    pub space: Box<str>,
    /// Where they are POSTed, as sent.
    pub url: Box<str>,
    /// The event types it gets: `["*"]` or distinct known types.
    pub events: Vec<Box<str>>,
    /// A description, as sent.
    pub description: Option<Box<str>>,
    /// Whether it is delivered to.
    pub active: bool,
    /// Why it was turned off by taskd (`gone`), if it was.
    pub disabled_reason: Option<Box<str>>,
    /// Creation time, milliseconds since the epoch.
    pub created_at: i64,
    /// The space version at its creation: its events are the feed items after it.
    pub start: u64,
    /// How far its deliveries went.
    pub position: Position,
    /// Its secrets, the current one first; at most two.
    pub secrets: Vec<Secret>,
}

impl Webhook {
    /// `lastDeliveredVersion`: the version its position passed, `None` before the first.
    pub fn last_delivered(&self) -> Option<u64> {
        (self.position.version > self.start).then_some(self.position.version)
    }

    /// Whether it gets events of `event` type.
    pub fn selects(&self, event: &str) -> bool {
        self.events.iter().any(|e| &**e == "*" || **e == *event)
    }

    /// The secrets that sign at `now`, the current one first.
    pub fn signing(&self, now: i64) -> impl Iterator<Item = &str> {
        self.secrets
            .iter()
            .filter(move |s| s.until.is_none_or(|until| until > now))
            .map(|s| &*s.key)
    }

    /// The webhook with `secret` as its current secret and the current one signing for
    /// [`ROTATION_OVERLAP_MS`] more from `now`; older ones are dropped.
    pub fn rotated(&self, secret: Box<str>, now: i64) -> Webhook {
        let previous = self
            .secrets
            .iter()
            .find(|s| s.until.is_none())
            .map(|s| Secret {
                key: s.key.clone(),
                until: Some(now + ROTATION_OVERLAP_MS),
            });
        Webhook {
            secrets: std::iter::once(Secret {
                key: secret,
                until: None,
            })
            .chain(previous)
            .collect(),
            ..self.clone()
        }
    }
}

/// The event types of each kind in [`Kind::ALL`] order: changed, then deleted.
const EVENT_TYPES: [[&str; 2]; Kind::ALL.len()] = [
    ["task.changed", "task.deleted"],
    ["list.changed", "list.deleted"],
    ["schedule.changed", "schedule.deleted"],
    ["category.changed", "category.deleted"],
    ["context.changed", "context.deleted"],
    ["view.changed", "view.deleted"],
];

/// The event type of a reminder's firing.
const TASK_REMINDER: &str = "task.reminder";

/// The event type of a feed item of `kind` in its state `record` (§19): `<kind>.deleted`
/// for a deleted record, `task.reminder` for a task whose state is a reminder firing (its
/// `remindedAt` is its `updatedAt`), `<kind>.changed` otherwise.
pub fn event_type(kind: Kind, record: &Record) -> &'static str {
    let [changed, deleted] = EVENT_TYPES[kind.index()];
    if record.is_deleted() {
        return deleted;
    }
    let reminded = kind
        .field_index("remindedAt")
        .and_then(|i| record.fields.get(i))
        .and_then(|v| v.as_time());
    if kind == Kind::Task && reminded == Some(record.updated_at) {
        TASK_REMINDER
    } else {
        changed
    }
}

/// What a webhook delivers next, from where its position is (see [`next_event`]).
#[derive(Debug, Clone)]
pub struct Next {
    /// The first item after the position that the webhook selects, with its type.
    pub event: Option<(Touched, &'static str)>,
    /// Where the position may move without a delivery: past the items before `event` (or
    /// every item scanned, when there is none) that the webhook does not select.
    pub passed: Option<Position>,
    /// The space version the scan saw.
    pub version: u64,
}

/// The feed item of `space` after `position` that `webhook` delivers next, in its current
/// state (the feed holds each record once, at its latest change), looking at most at
/// `scan` items.
pub fn next_event(space: &Space, webhook: &Webhook, position: &Position, scan: usize) -> Next {
    let since = match position.key {
        Some(_) => position.version.saturating_sub(1),
        None => position.version,
    };
    let mut next = Next {
        event: None,
        passed: None,
        version: space.version(),
    };
    let Ok(page) = space.changes(since, scan) else {
        return next;
    };
    for touched in page.changes {
        let (version, kind) = (touched.record.version, touched.kind);
        if !position.before(version, kind, &touched.record.id) {
            continue;
        }
        let event = event_type(kind, &touched.record);
        if webhook.selects(event) {
            next.event = Some((touched, event));
            return next;
        }
        next.passed = Some(Position {
            version,
            key: Some((kind, (*touched.record.id).into())),
        });
    }
    next
}

/// `pending` (§19): how many feed items of `space` after `position` `webhook` selects.
pub fn pending(space: &Space, webhook: &Webhook, position: &Position) -> u64 {
    let mut count = 0;
    let mut since = position
        .version
        .saturating_sub(u64::from(position.key.is_some()));
    loop {
        let Ok(page) = space.changes(since, 1_024) else {
            return count;
        };
        count += page
            .changes
            .iter()
            .filter(|t| position.before(t.record.version, t.kind, &t.record.id))
            .filter(|t| webhook.selects(event_type(t.kind, &t.record)))
            .count() as u64;
        if !page.has_more || page.next_since == since {
            return count;
        }
        since = page.next_since;
    }
}

/// Every event type there is, `*` aside.
pub fn event_types() -> impl Iterator<Item = &'static str> {
    EVENT_TYPES
        .into_iter()
        .flatten()
        .chain(std::iter::once(TASK_REMINDER))
}

/// The fields of a webhook's create or PATCH body, validated; `None` for one not sent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WebhookFields {
    /// `url`.
    pub url: Option<Box<str>>,
    /// `events`.
    pub events: Option<Vec<Box<str>>>,
    /// `description` (`Some(None)`: set to null).
    pub description: Option<Option<Box<str>>>,
    /// `active` (PATCH only).
    pub active: Option<bool>,
}

/// Validates a webhook's body (§19): `url` an absolute `http` or `https` URL of at most
/// [`MAX_URL_CHARS`] characters, required on creation; `events` `["*"]` or a non-empty
/// list of distinct known types; `description` a string of at most
/// [`MAX_DESCRIPTION_CHARS`] characters or null; `active` a boolean, in a PATCH only; no
/// other field.
pub fn parse_webhook(
    body: Map<String, Json>,
    patch: bool,
) -> Result<WebhookFields, ValidationError> {
    let mut fields = WebhookFields::default();
    let mut errors = Vec::new();
    let mut push = |field: &str, message: &str| {
        errors.push(FieldError {
            field: field.into(),
            message: message.into(),
        })
    };
    for (field, json) in body {
        match (field.as_str(), json) {
            ("url", Json::String(s))
                if url_host(&s).is_some() && s.chars().count() <= MAX_URL_CHARS =>
            {
                fields.url = Some(s.into())
            }
            ("url", _) => push(
                "url",
                &format!(
                    "must be an absolute http or https URL of at most {MAX_URL_CHARS} characters"
                ),
            ),
            ("events", Json::Array(items)) => match parse_events(&items) {
                Some(events) => fields.events = Some(events),
                None => push(
                    "events",
                    "must be [\"*\"] or a non-empty list of distinct event types \
                     (<kind>.changed, <kind>.deleted, task.reminder)",
                ),
            },
            ("events", _) => push("events", "must be a list of event types"),
            ("description", Json::Null) => fields.description = Some(None),
            ("description", Json::String(s)) if s.chars().count() <= MAX_DESCRIPTION_CHARS => {
                fields.description = Some(Some(s.into()))
            }
            ("description", _) => push(
                "description",
                &format!("must be a string of at most {MAX_DESCRIPTION_CHARS} characters, or null"),
            ),
            ("active", Json::Bool(b)) if patch => fields.active = Some(b),
            ("active", _) if patch => push("active", "must be a boolean"),
            (other, _) => push(other, "is not a field of a webhook"),
        }
    }
    if !patch && fields.url.is_none() && !errors.iter().any(|e| e.field == "url") {
        errors.push(FieldError {
            field: "url".into(),
            message: "is required".into(),
        });
    }
    if errors.is_empty() {
        Ok(fields)
    } else {
        Err(ValidationError { errors })
    }
}

/// `events` as stored, or `None` when it is not `["*"]` or distinct known types.
fn parse_events(items: &[Json]) -> Option<Vec<Box<str>>> {
    let names: Vec<&str> = items.iter().map(Json::as_str).collect::<Option<_>>()?;
    let known = |n: &str| event_types().any(|t| t == n);
    let distinct = names
        .iter()
        .enumerate()
        .all(|(i, n)| !names[..i].contains(n));
    let ok = match names.as_slice() {
        [] => false,
        ["*"] => true,
        _ => distinct && names.iter().all(|n| known(n)),
    };
    ok.then(|| names.into_iter().map(Box::from).collect())
}

/// The host of an absolute `http` or `https` URL (an IPv6 literal without its brackets),
/// or `None` when `url` is not one.
pub fn url_host(url: &str) -> Option<&str> {
    let lower = url
        .get(..8)
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let rest = if lower.starts_with("http://") {
        &url[7..]
    } else if lower.starts_with("https://") {
        &url[8..]
    } else {
        return None;
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            host.parse::<Ipv6Addr>().ok()?;
            (host, after.strip_prefix(':'))
        }
        None => match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        },
    };
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
    let port_ok = port.is_none_or(|p| p.is_empty() || p.parse::<u16>().is_ok());
    (host_ok && port_ok).then_some(host)
}

/// Why a delivery may not go to `ip` (§19), or `None` when it may: loopback, unspecified,
/// private (RFC 1918), carrier-grade NAT (100.64.0.0/10), link-local, IPv6 unique local
/// (fc00::/7), multicast, and the IPv4-mapped and IPv4-compatible IPv6 forms of these.
pub fn refused(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return refused_v4(v4);
            }
            let segments = v6.segments();
            if v6.is_unspecified() {
                Some("unspecified")
            } else if v6.is_loopback() {
                Some("loopback")
            } else if segments[..6] == [0; 6] {
                // IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks).
                refused_v4(Ipv4Addr::from(
                    ((segments[6] as u32) << 16) | segments[7] as u32,
                ))
            } else if segments[0] & 0xfe00 == 0xfc00 {
                Some("unique local")
            } else if segments[0] & 0xffc0 == 0xfe80 {
                Some("link-local")
            } else if v6.is_multicast() {
                Some("multicast")
            } else {
                None
            }
        }
    }
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if a == 0 {
        Some("unspecified")
    } else if ip.is_private() {
        Some("private")
    } else if a == 100 && b & 0xc0 == 64 {
        Some("carrier-grade NAT")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if ip.is_multicast() {
        Some("multicast")
    } else {
        None
    }
}

/// A new secret: `whsec_` + base64 of 32 random bytes.
pub fn new_secret() -> Box<str> {
    let bytes: [u8; 32] = rand::random();
    format!("{SECRET_PREFIX}{}", BASE64.encode(bytes)).into()
}

/// The `webhook-signature` header of a delivery (Standard Webhooks): `v1,<base64 of
/// HMAC-SHA256 over "{id}.{timestamp}.{body}">` for each of `secrets`, keyed by the bytes
/// the secret's base64 stands for, separated by spaces.
pub fn signature<'a>(
    secrets: impl IntoIterator<Item = &'a str>,
    id: &str,
    timestamp: i64,
    body: &[u8],
) -> String {
    let signed = |secret: &str| {
        let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
        let key = BASE64
            .decode(encoded)
            .unwrap_or_else(|_| secret.as_bytes().to_vec());
        let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        format!("v1,{}", BASE64.encode(mac.finalize().into_bytes()))
    };
    secrets
        .into_iter()
        .map(signed)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `delay` moved by `spread` tenths of itself, `spread` in -1..=1 (the ±10 % jitter).
pub fn jittered(delay: Duration, spread: f64) -> Duration {
    delay.mul_f64(1.0 + 0.1 * spread.clamp(-1.0, 1.0))
}

/// The delay that a `Retry-After` header's `value` asks for at `now` (seconds, or an HTTP
/// date), at most [`MAX_RETRY_AFTER`]; `None` for a value that is neither.
pub fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    let delay = if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        Duration::from_secs(value.parse().unwrap_or(u64::MAX))
    } else {
        let at = httpdate::parse_http_date(value).ok()?;
        at.duration_since(now).unwrap_or(Duration::ZERO)
    };
    Some(delay.min(MAX_RETRY_AFTER))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::Value;
    use serde_json::json;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn refused_ipv4_addresses_are_every_range_the_contract_names() {
        for (addr, why) in [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("0.0.0.0", "unspecified"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "carrier-grade NAT"),
            ("100.127.255.255", "carrier-grade NAT"),
            ("169.254.169.254", "link-local"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
        ] {
            assert_eq!(refused(ip(addr)), Some(why), "{addr}");
        }
        for addr in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "100.63.255.255",
            "192.169.0.1",
        ] {
            assert_eq!(refused(ip(addr)), None, "{addr}");
        }
    }

    #[test]
    fn refused_ipv6_addresses_include_the_mapped_and_compatible_forms_of_ipv4_ones() {
        for (addr, why) in [
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fc00::1", "unique local"),
            ("fd12:3456::1", "unique local"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private"),
            ("::ffff:169.254.1.1", "link-local"),
            ("::ffff:0.0.0.0", "unspecified"),
            ("::127.0.0.1", "loopback"),
            ("::192.168.0.1", "private"),
            ("::100.64.1.1", "carrier-grade NAT"),
        ] {
            assert_eq!(refused(ip(addr)), Some(why), "{addr}");
        }
        for addr in [
            "2001:4860:4860::8888",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "::8.8.8.8",
        ] {
            assert_eq!(refused(ip(addr)), None, "{addr}");
        }
    }

    #[test]
    fn a_signature_is_the_standard_webhooks_one() {
        // The example of the Standard Webhooks specification.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature([secret], id, 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        let rotated = signature([secret, "whsec_AAAA"], id, 1614265330, body);
        let parts: Vec<&str> = rotated.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0], "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn a_new_secret_is_32_random_bytes_in_base64_after_whsec() {
        let (a, b) = (new_secret(), new_secret());
        assert_ne!(a, b);
        let bytes = BASE64.decode(a.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(bytes.len(), 32);
    }

    #[test]
    fn a_rotation_keeps_the_previous_secret_signing_for_a_day() {
        let hook = Webhook {
            id: "w".into(),
            space: "s".into(),
            url: "https://example.com/".into(),
            events: vec!["*".into()],
            description: None,
            active: true,
            disabled_reason: None,
            created_at: 0,
            start: 0,
            position: Position {
                version: 0,
                key: None,
            },
            secrets: vec![Secret {
                key: "whsec_a".into(),
                until: None,
            }],
        };
        let once = hook.rotated("whsec_b".into(), 1_000);
        assert_eq!(
            once.signing(1_000).collect::<Vec<_>>(),
            ["whsec_b", "whsec_a"]
        );
        assert_eq!(
            once.signing(1_000 + ROTATION_OVERLAP_MS)
                .collect::<Vec<_>>(),
            ["whsec_b"]
        );
        let twice = once.rotated("whsec_c".into(), 2_000);
        assert_eq!(
            twice.signing(2_000).collect::<Vec<_>>(),
            ["whsec_c", "whsec_b"]
        );
    }

    #[test]
    fn the_schedule_is_the_contracts_with_ten_percent_jitter() {
        let secs: Vec<u64> = RETRY_SCHEDULE.iter().map(Duration::as_secs).collect();
        assert_eq!(
            secs,
            [5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400]
        );
        let d = Duration::from_secs(100);
        assert_eq!(jittered(d, -1.0), Duration::from_secs(90));
        assert_eq!(jittered(d, 1.0), Duration::from_secs(110));
        assert_eq!(jittered(d, 7.0), Duration::from_secs(110));
        assert_eq!(jittered(d, 0.0), d);
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date_at_most_a_day() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            retry_after("999999999999999999999", now),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(retry_after("90000", now), Some(MAX_RETRY_AFTER));
        // 2015-10-21T07:28:00Z is `now`; a minute later, and one in the past.
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:29:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
        assert_eq!(retry_after("", now), None);
    }

    #[test]
    fn a_position_orders_feed_items_by_version_kind_and_id() {
        let whole = Position {
            version: 5,
            key: None,
        };
        assert!(!whole.before(5, Kind::Task, "a"));
        assert!(whole.before(6, Kind::Task, "a"));
        let at = Position {
            version: 5,
            key: Some((Kind::List, "b".into())),
        };
        assert!(!at.before(5, Kind::Task, "z"));
        assert!(!at.before(5, Kind::List, "b"));
        assert!(at.before(5, Kind::List, "c"));
        assert!(at.before(5, Kind::Schedule, "a"));
        assert!(!at.before(4, Kind::Context, "z"));
        assert!(whole.at_or_past(&at));
        assert!(!at.at_or_past(&whole));
        assert!(at.at_or_past(&at));
        assert!(!at.at_or_past(&Position {
            version: 5,
            key: Some((Kind::List, "c".into()))
        }));
        assert!(at.at_or_past(&Position {
            version: 4,
            key: None
        }));
    }

    #[test]
    fn a_body_is_validated_as_the_contract_says() {
        let body = |v: Json| v.as_object().unwrap().clone();
        let ok =
            parse_webhook(body(json!({"url": "https://example.com/hook?x=1"})), false).unwrap();
        assert_eq!(ok.url.as_deref(), Some("https://example.com/hook?x=1"));
        assert!(parse_webhook(body(json!({})), false).is_err());
        assert!(parse_webhook(body(json!({})), true).is_ok());
        for url in [
            "ftp://x.com",
            "https://",
            "http//x",
            "https://a b.com/",
            "https://x.com:99999/",
        ] {
            assert!(
                parse_webhook(body(json!({ "url": url })), false).is_err(),
                "{url}"
            );
        }
        let long = format!("https://example.com/{}", "a".repeat(2_000));
        assert!(parse_webhook(body(json!({ "url": long })), false).is_err());
        for events in [
            json!([]),
            json!(["*", "task.changed"]),
            json!(["task.changed", "task.changed"]),
            json!(["task.created"]),
            json!("*"),
        ] {
            assert!(
                parse_webhook(
                    body(json!({"url": "http://x.com", "events": events})),
                    false
                )
                .is_err(),
                "{events}"
            );
        }
        let typed = parse_webhook(
            body(json!({"url": "http://[::1]:8/", "events": ["task.reminder", "list.deleted"], "description": null})),
            false,
        )
        .unwrap();
        assert_eq!(typed.events.unwrap().len(), 2);
        assert_eq!(typed.description, Some(None));
        assert!(
            parse_webhook(body(json!({"url": "http://x.com", "active": false})), false).is_err()
        );
        assert!(parse_webhook(
            body(json!({"url": "http://x.com", "description": "d".repeat(1_001)})),
            false
        )
        .is_err());
    }

    #[test]
    fn the_host_of_a_url_is_found_without_its_port_or_brackets() {
        assert_eq!(url_host("https://example.com:8443/x"), Some("example.com"));
        assert_eq!(url_host("HTTP://user:pw@example.com"), Some("example.com"));
        assert_eq!(url_host("http://[fe80::1]:80/"), Some("fe80::1"));
        assert_eq!(url_host("http://127.0.0.1?x"), Some("127.0.0.1"));
        assert_eq!(url_host("http://[nope]/"), None);
    }

    #[test]
    fn the_event_type_follows_the_records_state() {
        let mut task = Record::new(Kind::Task, "t".into(), 0.0, 10, 1);
        assert_eq!(event_type(Kind::Task, &task), "task.changed");
        let reminded = Kind::Task.field_index("remindedAt").unwrap();
        task.updated_at = 20;
        task.fields[reminded] = Value::Time(20);
        assert_eq!(event_type(Kind::Task, &task), "task.reminder");
        task.updated_at = 30;
        assert_eq!(event_type(Kind::Task, &task), "task.changed");
        task.set_deleted_at(Some(30));
        assert_eq!(event_type(Kind::Task, &task), "task.deleted");
        let list = Record::new(Kind::List, "l".into(), 0.0, 10, 1);
        assert_eq!(event_type(Kind::List, &list), "list.changed");
        assert_eq!(event_types().count(), 13);
        for kind in Kind::ALL {
            let noun = kind.noun();
            assert_eq!(
                EVENT_TYPES[kind.index()],
                [format!("{noun}.changed"), format!("{noun}.deleted")]
            );
        }
    }
}
