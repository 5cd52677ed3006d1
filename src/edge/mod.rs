//! The edge: what wraps every front (the JSON API, CalDAV, the `.ics` routes, the docs and
//! metrics routes) before any of them sees a request, written once here.
//!
//! - [`front`], the one middleware: a request id, the shutdown [`Gate`] and a standby's
//!   refusal (§16), the failed-authentication [`Throttle`] per client address
//!   ([`client`], behind a trusted proxy or not), and after the route the one log line and
//!   the request metrics;
//! - [`body`]: every request body of every front is read through [`body::read_body`],
//!   within `--body-timeout-ms` (§9) and a size bound the route names;
//! - [`budget`]: each token's budget of requests (§25), charged by the fronts' caller
//!   extractors, refunded and shown in the rate-limit fields by [`front`].
//!
//! Its state, [`Edge`], is app data of its own; a front's state holds none of it. Its
//! refusals are worded by its [`Speaker`] (problem+json, for every front alike), which
//! start-up gives it: the edge imports no front.

pub(crate) mod body;
pub(crate) mod budget;
pub(crate) mod client;
pub(crate) mod throttle;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::web::Data;
use actix_web::{HttpMessage, HttpResponse};

use crate::core::Gate;
use crate::metrics::{self, METRICS, PATH as METRICS_PATH};

pub(crate) use body::BodyTimeout;
pub(crate) use budget::Budgets;
pub(crate) use client::TrustedProxies;
pub(crate) use throttle::Throttle;

/// The edge's state, registered once as app data (`web::Data<Edge>`) and shared with the
/// start-up and shutdown sequence.
#[derive(Clone)]
pub(crate) struct Edge {
    /// Shutdown, and with `--nats` this node's role.
    pub gate: Data<Gate>,
    /// The failed-authentication lockout.
    pub throttle: Data<Throttle>,
    /// The tokens' budgets (docs §25).
    pub budgets: Data<Budgets>,
    /// The proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Data<TrustedProxies>,
    /// How long a request body may take.
    pub body_timeout: BodyTimeout,
    /// How a refusal is answered and a front's error is noted.
    pub speaker: Speaker,
}

/// Why the edge refuses a request before any front sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The server is shutting down (`503`).
    ShuttingDown,
    /// This node is a standby, and the request is for the data (`503`, §16).
    NotPrimary,
    /// The client address is locked out after failed authentications, for this long
    /// (`429`, §9).
    LockedOut(Duration),
    /// The token's budget was spent, and will hold a request again in this long (`429`,
    /// §25): a conditional read let through that did not answer `304`.
    OverBudget(Duration),
}

/// What the edge needs of the fronts' wording, given by start-up so the edge imports no
/// front: how a [`Refusal`] is answered (problem+json, for every front alike) and how an
/// error a front answered with is noted once (logged, counted) after its route ran.
#[derive(Clone, Copy)]
pub(crate) struct Speaker {
    /// The answer to a refusal.
    pub refuse: fn(Refusal) -> HttpResponse,
    /// Notes the error a response was built from.
    pub note: fn(&actix_web::Error),
}

/// The edge state of the app serving `req`.
pub(crate) fn edge(req: &actix_web::HttpRequest) -> Option<&Edge> {
    req.app_data::<Data<Edge>>().map(|edge| edge.get_ref())
}

/// The request-id header: the client's, if it sent a sane one, else a new one.
pub(crate) const REQUEST_ID: &str = "x-request-id";

/// The one middleware around every request (one layer, not three: each costs every
/// request a boxed future and a body conversion). Before the route: an id for the request
/// (the client's, else a new one, echoed in `X-Request-Id`); `503 unavailable` with
/// `Retry-After` once the [`Gate`] is closed, whatever the route (`/healthz` included);
/// `429 too_many_requests` for a client address (see [`client`]) locked out by the
/// [`Throttle`], on every `/api/v1` request (and `/metrics`, which takes the admin token)
/// before its token is looked at. After it: the error a response was built from is
/// noted ([`Speaker::note`]); a `401` counts as a failure of its client address; the
/// request is counted and timed by route pattern in the metrics, and logged in one line at
/// info: client address (`-` when there is none), method, path, status, microseconds and
/// id.
pub(crate) async fn front(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id(req.headers().get(REQUEST_ID));
    let client = client::client_addr(&req);
    let throttle = edge(req.request()).map(|edge| edge.throttle.clone());
    let speaker = edge(req.request()).map(|edge| edge.speaker);
    let refused = refusal(&req, client, throttle.as_ref().map(|t| t.get_ref()));
    let mut response = match (refused, speaker) {
        (Some(refused), Some(speaker)) => req
            .into_response((speaker.refuse)(refused))
            .map_into_right_body(),
        _ => next.call(req).await?.map_into_left_body(),
    };
    let elapsed = started.elapsed();
    if let (Some(error), Some(speaker)) = (response.response().error(), speaker) {
        (speaker.note)(error);
    }
    if let Some((standing, owed)) = answer_budget(&response) {
        if let (Some(owed), Some(speaker)) = (owed, speaker) {
            let (request, _) = response.into_parts();
            response = ServiceResponse::new(request, (speaker.refuse)(owed)).map_into_right_body();
        }
        add_budget_fields(&mut response, standing);
    }
    let status = response.status();
    if status == StatusCode::UNAUTHORIZED {
        METRICS.auth_failures.inc();
        if let (Some(throttle), Some(ip)) = (throttle, client) {
            throttle.failed(ip);
        }
    }
    let request = response.request();
    let route = request
        .match_pattern()
        .unwrap_or_else(|| "unmatched".into());
    metrics::request(
        method_label(request.method()),
        route,
        status.as_u16(),
        elapsed.as_secs_f64(),
    );
    crate::logging::info(module_path!(), |line| {
        match client {
            Some(ip) => address(line, ip),
            None => line.push(b'-'),
        }
        line.push(b' ');
        line.extend_from_slice(request.method().as_str().as_bytes());
        line.push(b' ');
        line.extend_from_slice(request.path().as_bytes());
        line.push(b' ');
        line.extend_from_slice(itoa::Buffer::new().format(status.as_u16()).as_bytes());
        line.push(b' ');
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        line.extend_from_slice(itoa::Buffer::new().format(micros).as_bytes());
        line.extend_from_slice(b"us id=");
        line.extend_from_slice(id.as_bytes());
    });
    if let Ok(value) = HeaderValue::from_str(&id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), value);
    }
    Ok(response)
}

/// Appends `ip` as its `Display` writes it: an IPv4 address octet by octet, with no format
/// string (the access line's), an IPv6 one through `Display`.
fn address(line: &mut Vec<u8>, ip: std::net::IpAddr) {
    match ip {
        std::net::IpAddr::V4(v4) => {
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    line.push(b'.');
                }
                line.extend_from_slice(itoa::Buffer::new().format(octet).as_bytes());
            }
        }
        std::net::IpAddr::V6(v6) => {
            let _ = std::io::Write::write_fmt(line, format_args!("{v6}"));
        }
    }
}

/// Gives back what `response` costs nothing of the budget its request was charged (a
/// `304`, a body refused by §9's bounds: `408`, `413`), and the rate-limit fields of
/// docs §25 to add to it; the refusal a conditional read let through owes when its answer
/// is not a `304` (see [`budget::charge`]).
fn answer_budget<B>(response: &ServiceResponse<B>) -> Option<(budget::Standing, Option<Refusal>)> {
    let request = response.request();
    let charged = request.extensions().get::<budget::Charged>().cloned()?;
    let budgets = edge(request).map(|edge| edge.budgets.clone())?;
    let status = response.status();
    let free = matches!(
        status,
        StatusCode::NOT_MODIFIED | StatusCode::REQUEST_TIMEOUT | StatusCode::PAYLOAD_TOO_LARGE
    );
    let owed = match charged.owed {
        Some(budget::Exhausted(wait)) if status != StatusCode::NOT_MODIFIED => {
            budget::count_refusal(&charged.budget);
            Some(Refusal::OverBudget(wait))
        }
        _ => None,
    };
    let standing = match (free, charged.standing) {
        (false, Some(standing)) => standing,
        (true, _) => budgets.refund(&charged.budget, charged.cost),
        (false, None) => budgets.standing(&charged.budget),
    };
    Some((standing, owed))
}

/// Adds the rate-limit fields of `standing` to `response`.
fn add_budget_fields<B>(response: &mut ServiceResponse<B>, standing: budget::Standing) {
    for (name, value) in [
        ("ratelimit-policy", standing.policy()),
        ("ratelimit", standing.fields()),
    ] {
        if let Ok(value) = HeaderValue::from_bytes(&value) {
            response
                .headers_mut()
                .insert(HeaderName::from_static(name), value);
        }
    }
}

/// The metrics label of a method: its name, or `OTHER` for an extension method (so a
/// client cannot grow the label set).
fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::TRACE => "TRACE",
        Method::CONNECT => "CONNECT",
        _ => "OTHER",
    }
}

/// Why `req` is refused before its route runs, if it is: shutdown, a standby, or a
/// locked-out client.
fn refusal(
    req: &ServiceRequest,
    client: Option<std::net::IpAddr>,
    throttle: Option<&Throttle>,
) -> Option<Refusal> {
    let gate = edge(req.request()).map(|edge| &edge.gate);
    if gate.is_some_and(|g| g.is_closed()) {
        return Some(Refusal::ShuttingDown);
    }
    let standby = gate
        .and_then(|g| g.role())
        .is_some_and(|role| !role.is_primary());
    // The CalDAV front serves the same data: a standby refuses it too.
    let served = req.path().starts_with("/api/v1") || req.path().starts_with("/dav/");
    if standby && served {
        return Some(Refusal::NotPrimary);
    }
    let (Some(throttle), Some(ip)) = (throttle, client) else {
        return None;
    };
    // `/metrics` takes the admin token on this address, so a client guessing tokens is
    // shut out there too; a scraper with the token never fails, and a `--metrics-bind`
    // server has no throttle.
    let guarded = served || req.path() == METRICS_PATH;
    let wait = throttle.blocked(ip).filter(|_| guarded)?;
    METRICS.too_many("auth_lockout");
    Some(Refusal::LockedOut(wait))
}

/// The client's request id when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`; else
/// a new one: a random prefix for this process and a counter.
fn request_id(sent: Option<&HeaderValue>) -> String {
    static PREFIX: LazyLock<String> = LazyLock::new(|| format!("{:016x}-", rand::random::<u64>()));
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let sane = |id: &&str| {
        (1..=128).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b))
    };
    match sent.and_then(|v| v.to_str().ok()).filter(sane) {
        Some(id) => id.to_string(),
        None => {
            let mut id = String::with_capacity(PREFIX.len() + 20);
            id.push_str(&PREFIX);
            id.push_str(itoa::Buffer::new().format(NEXT.fetch_add(1, Ordering::Relaxed)));
            id
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_access_lines_address_is_the_one_display_writes() {
        for ip in [
            "0.0.0.0",
            "127.0.0.1",
            "10.200.3.45",
            "255.255.255.255",
            "::1",
            "fe80::1:2",
        ] {
            let ip: std::net::IpAddr = ip.parse().unwrap();
            let mut line = Vec::new();
            address(&mut line, ip);
            assert_eq!(String::from_utf8(line).unwrap(), ip.to_string());
        }
    }
}
