//! Prometheus metrics: one registry for the process, fed from the layer where each thing
//! happens (HTTP middleware, space actors, journal writer, snapshot actor) and rendered in
//! the text exposition format by `GET /metrics`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::LazyLock;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::model::{Kind, Outcome, SpaceView};

/// Where the metrics are served (on the API's address, or on `--metrics-bind`'s).
pub(crate) const PATH: &str = "/metrics";

/// Labels of one HTTP request: its method, route pattern (never the raw path) and status.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RequestLabels {
    /// `GET`, `POST`, ... (`OTHER` for an extension method).
    pub method: &'static str,
    /// The matched route pattern, e.g. `/api/v1/tasks/{id}`, or `unmatched`.
    pub route: String,
    /// The response status code.
    pub status: u16,
}

/// The route pattern of a request.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RouteLabels {
    /// As in [`RequestLabels::route`].
    pub route: String,
}

/// A record kind.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct KindLabels {
    /// `task`, `list`, ...
    pub kind: &'static str,
}

/// A user, for the figures of the users that hold the most.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct UserLabels {
    /// The user's id (or `admin`).
    pub user: String,
}

/// Why a request was answered 429 or 403.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ReasonLabels {
    /// For 429: `auth_lockout`, `idempotency_keys` or `streams`; for 403: see
    /// `model::access::Reason`.
    pub reason: &'static str,
}

/// The reasons of a 403 (see `model::access::Reason`), shown at 0 from the start.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct OutcomeLabels {
    pub outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct WebhookLabels {
    pub webhook: String,
}

const WEBHOOK_OUTCOMES: [&str; 4] = ["delivered", "failed", "given_up", "gone"];

const FORBIDDEN_REASONS: [&str; 5] = [
    "role",
    "read_only_token",
    "primary_token_only",
    "admin_token",
    "admin_only",
];

/// Every metric taskd exports.
pub(crate) struct Metrics {
    registry: Registry,
    /// `taskd_webhook_deliveries_total{outcome}`: delivery attempts (docs §19) by
    /// outcome: `delivered`, `failed`, `given_up`, `gone`.
    pub webhook_deliveries: Family<OutcomeLabels, Counter>,
    /// `taskd_webhook_pending{webhook}`: events not yet delivered, per webhook this node
    /// delivers for.
    pub webhook_pending: Family<WebhookLabels, Gauge>,
    /// `taskd_http_requests_total{method,route,status}`.
    pub requests: Family<RequestLabels, Counter>,
    /// `taskd_http_request_duration_seconds{route}`.
    pub request_seconds: Family<RouteLabels, Histogram>,
    /// `taskd_spaces_loaded`: spaces held in memory.
    pub spaces_loaded: Gauge,
    /// `taskd_records{kind}`: records held, soft-deleted ones included.
    pub records: Family<KindLabels, Gauge>,
    /// `taskd_journal_sync_seconds`: one write (and sync, when asked) of a journal batch.
    pub journal_sync_seconds: Histogram,
    /// `taskd_journal_batch_entries`: entries written together (group commit).
    pub journal_batch_entries: Histogram,
    /// `taskd_snapshot_seconds`: encoding and writing one space snapshot.
    pub snapshot_seconds: Histogram,
    /// `taskd_mailbox_rejections_total`: requests refused because a space's mailbox was full.
    pub mailbox_rejections: Counter,
    /// `taskd_auth_failures_total`: requests answered 401.
    pub auth_failures: Counter,
    /// `taskd_storage_stalls_total`: requests answered 503 because the journal's storage
    /// did not answer within `--storage-timeout-ms`.
    pub storage_stalls: Counter,
    /// `taskd_streams_open`: change streams open.
    pub streams_open: Gauge,
    /// `taskd_streams_overflowed_total`: streams ended because their client did not keep up.
    pub streams_overflowed: Counter,
    /// `taskd_too_many_requests_total{reason}`: requests answered 429, by reason.
    pub too_many_requests: Family<ReasonLabels, Counter>,
    /// `taskd_idempotency_kept_answers{user}`: kept answers of the users holding the most.
    pub kept_answers: Family<UserLabels, Gauge>,
    /// `taskd_idempotency_kept_bytes{user}`: their bytes, as stored.
    pub kept_bytes: Family<UserLabels, Gauge>,
    /// `taskd_forbidden_total{reason}`: requests answered 403, by reason.
    pub forbidden: Family<ReasonLabels, Counter>,
    /// `taskd_users`: users.
    pub users: Gauge,
    /// `taskd_spaces`: spaces (deleted ones not counted).
    pub spaces: Gauge,
    /// `taskd_memberships`: members of all spaces, summed.
    pub memberships: Gauge,
    /// `taskd_scoped_tokens`: scoped tokens not revoked (expired ones included).
    pub scoped_tokens: Gauge,
    /// `taskd_replication_primary`: 1 while this node is the primary (with `--nats`).
    pub replication_primary: Gauge,
    /// `taskd_replication_applied_seq`: the stream sequence this node holds.
    pub replication_applied: Gauge,
    /// `taskd_replication_lag`: stream messages this node does not hold yet.
    pub replication_lag: Gauge,
    /// `taskd_replication_append_seconds`: one batch appended to the stream.
    pub replication_append_seconds: Histogram,
    /// `taskd_replication_fenced_total`: times this node stopped being primary.
    pub replication_fenced: Counter,
    /// `taskd_replication_lease_changes_total`: times this node took the lease.
    pub replication_lease_changes: Counter,
}

/// The process's metrics.
pub(crate) static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// One route's request metrics as a thread keeps them (see [`request`]).
struct RouteMetrics {
    /// The route pattern.
    route: String,
    /// Its `taskd_http_request_duration_seconds`.
    seconds: Histogram,
    /// Its `taskd_http_requests_total` by method and status, as seen on this thread.
    counts: Vec<(&'static str, u16, Counter)>,
}

thread_local! {
    /// This thread's handles on the request metrics, by route pattern: clones that share
    /// their values with the families' own. Bounded as the label sets are: route patterns,
    /// methods (`OTHER` for the rest) and statuses.
    static REQUESTS: RefCell<BTreeMap<String, RouteMetrics>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// Counts a request of `method` on the route pattern `route` answered `status` in
/// `taskd_http_requests_total`, and its `seconds` in
/// `taskd_http_request_duration_seconds`. Through the calling thread's handles on the two
/// metrics: after its first request of a kind, a request costs one look-up in a small map
/// of the thread's, not two in the families (hashed, behind their locks).
pub(crate) fn request(method: &'static str, route: String, status: u16, seconds: f64) {
    REQUESTS.with_borrow_mut(|routes| {
        let metrics = routes
            .entry(route)
            .or_insert_with_key(|route| RouteMetrics {
                route: route.clone(),
                seconds: Histogram::clone(&METRICS.request_seconds.get_or_create(&RouteLabels {
                    route: route.clone(),
                })),
                counts: Vec::new(),
            });
        metrics.seconds.observe(seconds);
        match metrics
            .counts
            .iter()
            .find(|(m, s, _)| *m == method && *s == status)
        {
            Some((_, _, count)) => {
                count.inc();
            }
            None => {
                let labels = RequestLabels {
                    method,
                    route: metrics.route.clone(),
                    status,
                };
                let count = Counter::clone(&METRICS.requests.get_or_create(&labels));
                count.inc();
                metrics.counts.push((method, status, count));
            }
        }
    });
}

/// Histogram buckets for durations from 50 µs to about 26 s.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.000_05, 2.0, 20))
}

impl Metrics {
    /// Every metric, registered, with the labels known from the start shown at 0.
    fn new() -> Metrics {
        let mut metrics = Metrics::unregistered();
        metrics.show_known_labels();
        metrics.register();
        metrics
    }

    /// Every metric at its start, in a registry that holds none of them yet.
    fn unregistered() -> Metrics {
        Metrics {
            registry: Registry::with_prefix("taskd"),
            webhook_deliveries: Family::default(),
            webhook_pending: Family::default(),
            requests: Family::default(),
            request_seconds: Family::new_with_constructor(seconds),
            spaces_loaded: Gauge::default(),
            records: Family::default(),
            journal_sync_seconds: seconds(),
            journal_batch_entries: Histogram::new(exponential_buckets(1.0, 2.0, 12)),
            snapshot_seconds: seconds(),
            mailbox_rejections: Counter::default(),
            auth_failures: Counter::default(),
            storage_stalls: Counter::default(),
            streams_open: Gauge::default(),
            streams_overflowed: Counter::default(),
            too_many_requests: Family::default(),
            kept_answers: Family::default(),
            kept_bytes: Family::default(),
            forbidden: Family::default(),
            users: Gauge::default(),
            spaces: Gauge::default(),
            memberships: Gauge::default(),
            scoped_tokens: Gauge::default(),
            replication_primary: Gauge::default(),
            replication_applied: Gauge::default(),
            replication_lag: Gauge::default(),
            replication_append_seconds: seconds(),
            replication_fenced: Counter::default(),
            replication_lease_changes: Counter::default(),
        }
    }

    /// Shows the label values a family is known to take at 0 from the start, so a rate or an
    /// alert over them works before the first.
    fn show_known_labels(&self) {
        for outcome in WEBHOOK_OUTCOMES {
            self.webhook_deliveries
                .get_or_create(&OutcomeLabels { outcome })
                .inc_by(0);
        }
        for reason in FORBIDDEN_REASONS {
            self.forbidden
                .get_or_create(&ReasonLabels { reason })
                .inc_by(0);
        }
        for reason in ["auth_lockout", "idempotency_keys", "streams"] {
            self.too_many_requests
                .get_or_create(&ReasonLabels { reason })
                .inc_by(0);
        }
    }

    /// Registers every metric under its name and help text, in the order `/metrics` lists
    /// them.
    fn register(&mut self) {
        let r = &mut self.registry;
        macro_rules! register {
            ($($field:ident: $name:literal, $help:expr;)*) => {
                $(r.register($name, $help, self.$field.clone());)*
            };
        }
        register! {
            requests: "http_requests",
                "HTTP requests answered, by method, route pattern and status";
            request_seconds: "http_request_duration_seconds",
                "Time from request to response, by route pattern";
            spaces_loaded: "spaces_loaded",
                "Spaces held in memory";
            records: "records",
                "Records held, soft-deleted ones included, by kind";
            journal_sync_seconds: "journal_sync_seconds",
                "Time to write (and sync) one journal batch";
            journal_batch_entries: "journal_batch_entries",
                "Entries written to the journal together";
            snapshot_seconds: "snapshot_seconds",
                "Time to encode and write one space snapshot";
            mailbox_rejections: "mailbox_rejections",
                "Requests refused because a space's mailbox was full";
            auth_failures: "auth_failures",
                "Requests answered 401 unauthorized";
            storage_stalls: "storage_stalls",
                "Requests answered 503 because the journal's storage did not answer in time";
            streams_open: "streams_open",
                "Change streams open";
            streams_overflowed: "streams_overflowed",
                "Change streams ended because their client did not take 4 MiB of events";
            too_many_requests: "too_many_requests",
                "Requests answered 429, by reason: auth_lockout, idempotency_keys, streams";
            kept_answers: "idempotency_kept_answers",
                "Answers kept for idempotency keys, for the users holding the most bytes";
            kept_bytes: "idempotency_kept_bytes",
                "Bytes of answers kept for idempotency keys, as stored, for the same users";
            forbidden: "forbidden",
                "Requests answered 403, by reason: role, read_only_token, primary_token_only, \
                 admin_token, admin_only";
            webhook_deliveries: "webhook_deliveries",
                "Webhook delivery attempts, by outcome: delivered, failed, given_up, gone";
            webhook_pending: "webhook_pending",
                "Events not yet delivered, per webhook";
            users: "users",
                "Users";
            spaces: "spaces",
                "Spaces, deleted ones not counted";
            memberships: "memberships",
                "Members of all spaces, summed";
            scoped_tokens: "scoped_tokens",
                "Scoped tokens not revoked, expired ones included";
            replication_primary: "replication_primary",
                "1 while this node is the primary (--nats)";
            replication_applied: "replication_applied_seq",
                "The stream sequence this node holds (--nats)";
            replication_lag: "replication_lag",
                "Stream messages this node does not hold yet (--nats)";
            replication_append_seconds: "replication_append_seconds",
                "Time to append one journal batch to the stream (--nats)";
            replication_fenced: "replication_fenced",
                "Times this node stopped being primary: a refused append or a lost lease";
            replication_lease_changes: "replication_lease_changes",
                "Times this node took the lease and became primary";
        }
    }

    /// Counts a request answered 403 for `reason`.
    pub(crate) fn forbidden(&self, reason: &'static str) {
        self.forbidden.get_or_create(&ReasonLabels { reason }).inc();
    }

    /// Shows the directory's counts.
    pub(crate) fn count_directory(
        &self,
        users: usize,
        (spaces, members, tokens): (usize, usize, usize),
    ) {
        self.users.set(users as i64);
        self.spaces.set(spaces as i64);
        self.memberships.set(members as i64);
        self.scoped_tokens.set(tokens as i64);
    }

    /// Counts the records of a space loaded (`sign` 1) or dropped (`sign` -1).
    pub(crate) fn count_space(&self, view: &SpaceView, sign: i64) {
        for kind in Kind::ALL {
            let held = view.collections[kind.index()].len() as i64;
            self.records_of(kind).inc_by(sign * held);
        }
    }

    /// Counts the records a write created (`sign` 1), or took back (`sign` -1).
    pub(crate) fn count_outcome(&self, outcome: &Outcome, sign: i64) {
        for step in outcome.steps.iter().filter(|s| s.created) {
            if let Some(named) = step.touched.first() {
                self.records_of(named.kind).inc_by(sign);
            }
        }
    }

    fn records_of(&self, kind: Kind) -> impl std::ops::Deref<Target = Gauge> + '_ {
        self.records
            .get_or_create(&KindLabels { kind: kind.noun() })
    }

    /// Counts a request answered 429 for `reason`.
    pub(crate) fn too_many(&self, reason: &'static str) {
        self.too_many_requests
            .get_or_create(&ReasonLabels { reason })
            .inc();
    }

    /// Shows the kept answers and bytes of `users` (the ones holding the most) only.
    pub(crate) fn kept_answers(&self, users: &[(&str, usize, u64)]) {
        self.kept_answers.clear();
        self.kept_bytes.clear();
        for (user, answers, bytes) in users {
            let labels = UserLabels {
                user: user.to_string(),
            };
            self.kept_answers
                .get_or_create(&labels)
                .set(*answers as i64);
            self.kept_bytes.get_or_create(&labels).set(*bytes as i64);
        }
    }

    /// Every metric in the Prometheus text exposition format.
    pub(crate) fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_handles_count_into_the_families() {
        let route = "/tests/a-threads-handles";
        let count = |status| {
            let labels = RequestLabels {
                method: "GET",
                route: route.into(),
                status,
            };
            METRICS.requests.get_or_create(&labels).get()
        };
        request("GET", route.into(), 200, 0.001);
        request("GET", route.into(), 200, 0.001);
        std::thread::spawn(move || request("GET", route.into(), 404, 0.001))
            .join()
            .unwrap();
        assert_eq!((count(200), count(404)), (2, 1));
    }
}
