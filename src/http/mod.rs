//! The HTTP layer: routes, extractors, rendering and the error mapping.
//!
//! Request flow: the one middleware, [`front`], times the request, refuses it during
//! shutdown or for a locked-out client (with [`client`] working out who sent it, behind a
//! trusted proxy or not), and counts and logs it; an extractor per input checks
//! the route, token, path id, query and body; a handler in [`handlers`] sends one typed
//! message to the space's actor through the [`Spaces`](crate::actors::Spaces) registry and
//! renders the reply with [`render`]; any failure becomes problem+json in [`error`].

pub(crate) mod batch;
pub(crate) mod calendar;
pub(crate) mod client;
pub(crate) mod dto;
pub(crate) mod error;
pub(crate) mod extract;
#[cfg(feature = "failpoints")]
pub(crate) mod failpoints;
pub(crate) mod handlers;
pub(crate) mod idempotency;
pub(crate) mod openapi;
pub(crate) mod render;
pub(crate) mod spaces;
pub(crate) mod stream;
pub(crate) mod throttle;
pub(crate) mod tokens;
pub(crate) mod webhooks;

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::{from_fn, Next};
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{HttpResponse, Route};

use crate::actors::{Directory, Keys, Spaces};
use crate::metrics::{RequestLabels, RouteLabels, METRICS};
use crate::model::access::Action;
use crate::model::times::TimeFields;
use crate::model::{Kind, Plan};
use crate::replication::NodeRole;
use crate::service::Service;
use crate::webhooks::Webhooks;
use idempotency::Guard;

pub(crate) use client::TrustedProxies;
pub(crate) use error::ApiError;
pub(crate) use throttle::Throttle;

/// Closed once shutdown begins; from then on every request gets 503 (see [`front`]), and
/// open change streams end.
#[derive(Debug)]
pub(crate) struct Gate {
    closed: AtomicBool,
    watch: tokio::sync::watch::Sender<bool>,
    /// With `--nats`: this node's role; `/api/v1` and `/dav/` are refused unless it is the
    /// primary.
    role: Option<Arc<NodeRole>>,
}

impl Default for Gate {
    fn default() -> Gate {
        Gate {
            closed: AtomicBool::new(false),
            watch: tokio::sync::watch::Sender::new(false),
            role: None,
        }
    }
}

impl Gate {
    /// A gate that lets `/api/v1` through only while `role` is the primary.
    pub(crate) fn replicated(role: Arc<NodeRole>) -> Gate {
        Gate {
            role: Some(role),
            ..Gate::default()
        }
    }

    /// This node's role, with `--nats`.
    pub(crate) fn role(&self) -> Option<&Arc<NodeRole>> {
        self.role.as_ref()
    }

    /// Refuses every request from now on, and ends the change streams.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.watch.send_replace(true);
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Changes when the gate closes.
    fn watch(&self) -> tokio::sync::watch::Receiver<bool> {
        self.watch.subscribe()
    }
}

/// Everything a request may reach, registered once as app data (`web::Data<AppState>`):
/// the actors and the service boundary behind the API, and the front's own state. Each
/// field is shared (an `Arc`) with the start-up and shutdown sequence.
#[derive(Clone)]
pub(crate) struct AppState {
    /// Users, spaces, members and tokens.
    pub directory: Data<Directory>,
    /// The space actors.
    pub spaces: Data<Spaces>,
    /// The answers kept for idempotency keys.
    pub keys: Data<Keys>,
    /// The open change streams.
    pub streams: Data<stream::Streams>,
    /// Storage health, kept answers and backups.
    pub service: Data<Service>,
    /// Shutdown, and with `--nats` this node's role.
    pub gate: Data<Gate>,
    /// The failed-authentication lockout.
    pub throttle: Data<Throttle>,
    /// The proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Data<TrustedProxies>,
    /// How long a request body may take.
    pub body_timeout: extract::BodyTimeout,
    /// How task listings find their records.
    pub plan: Plan,
    /// The webhook sender's delivery logs and positions, and its address check.
    pub webhooks: Data<Webhooks>,
}

/// The state of the app serving `req`.
fn state(req: &actix_web::HttpRequest) -> Option<&AppState> {
    req.app_data::<Data<AppState>>().map(|app| app.get_ref())
}

/// A write route behind the idempotency-key middleware (see [`idempotency`]); only the
/// write routes have it, so a method a path lacks is a 405 whatever its key.
fn keyed(route: Route, guard: Guard) -> Route {
    route.wrap(from_fn(move |req, next| {
        idempotency::idempotency(guard, req, next)
    }))
}

/// A route answering 405 for methods a path lacks.
fn disallowed(allow: &'static str) -> Route {
    web::to(move || async move {
        Err::<actix_web::HttpResponse, _>(handlers::method_not_allowed(allow))
    })
}

/// Registers every route. Each collection is a scope with a static prefix carrying its
/// kind as app data, so a request is routed by string comparison up to its record id
/// (a pattern such as `/api/v1/{collection}` would run a regular expression for every
/// request, a quarter of a GET's instructions).
pub(crate) fn configure(cfg: &mut ServiceConfig) {
    // First: the records' routes are the hot path, and every route before them costs each
    // request a match attempt (a regular expression for one with a `{param}`).
    for kind in Kind::ALL {
        let mut scope = web::scope(&format!("/api/v1/{}", kind.collection()));
        if TimeFields::of(kind).is_some() {
            scope = scope.service(
                web::resource("/{id}/occurrences")
                    .route(web::get().to(handlers::occurrences))
                    .default_service(disallowed("GET")),
            );
        }
        cfg.service(
            scope
                .app_data(extract::Collection(kind))
                .service(
                    web::resource("")
                        .route(web::get().to(handlers::list))
                        .route(keyed(
                            web::post().to(handlers::create),
                            Guard::Records { body: true },
                        ))
                        .default_service(disallowed("GET, POST")),
                )
                .service(
                    web::resource("/{id}")
                        .route(web::get().to(handlers::get))
                        .route(keyed(
                            web::patch().to(handlers::update),
                            Guard::Records { body: true },
                        ))
                        .route(keyed(
                            web::delete().to(handlers::delete),
                            Guard::Records { body: false },
                        ))
                        .default_service(disallowed("GET, PATCH, DELETE")),
                )
                .service(
                    web::resource("/{id}/restore")
                        .route(keyed(
                            web::post().to(handlers::restore),
                            Guard::Records { body: false },
                        ))
                        .default_service(disallowed("POST")),
                )
                .default_service(web::to(handlers::not_found)),
        );
    }
    cfg.service(web::resource("/docs").route(web::get().to(|| async {
        HttpResponse::PermanentRedirect()
            .insert_header((actix_web::http::header::LOCATION, "/docs/"))
            .finish()
    })))
    .service(
        web::resource("/healthz")
            .route(web::get().to(handlers::healthz))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/healthz/primary")
            .route(web::get().to(handlers::healthz_primary))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/me")
            .route(web::get().to(handlers::me))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/admin/users")
            .route(keyed(web::post().to(handlers::create_user), Guard::Admin))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/admin/users/{userId}/token")
            .route(keyed(web::post().to(tokens::reset_primary), Guard::Admin))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/spaces")
            .route(web::get().to(spaces::list))
            .route(keyed(web::post().to(spaces::create), Guard::Account))
            .default_service(disallowed("GET, POST")),
    )
    .service(
        web::resource("/api/v1/spaces/{spaceId}")
            .route(web::get().to(spaces::get))
            .route(keyed(
                web::patch().to(spaces::update),
                Guard::Space(Action::Manage),
            ))
            .route(keyed(
                web::delete().to(spaces::delete),
                Guard::Space(Action::Manage),
            ))
            .default_service(disallowed("GET, PATCH, DELETE")),
    )
    .service(
        web::resource("/api/v1/spaces/{spaceId}/members")
            .route(web::get().to(spaces::members))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/spaces/{spaceId}/members/{userId}")
            .route(keyed(
                web::put().to(spaces::put_member),
                Guard::Space(Action::Manage),
            ))
            .route(keyed(
                web::delete().to(spaces::remove_member),
                Guard::Member,
            ))
            .default_service(disallowed("PUT, DELETE")),
    )
    .service(
        web::resource("/api/v1/spaces/{spaceId}/accept")
            .route(keyed(web::post().to(spaces::accept), Guard::Accept))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/invitations")
            .route(web::get().to(spaces::invitations))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/tokens")
            .route(web::get().to(tokens::list))
            .route(keyed(web::post().to(tokens::create), Guard::Account))
            .default_service(disallowed("GET, POST")),
    )
    .service(
        web::resource("/api/v1/tokens/{tokenId}")
            .route(web::get().to(tokens::get))
            .route(keyed(web::delete().to(tokens::revoke), Guard::Account))
            .default_service(disallowed("GET, DELETE")),
    )
    .service(
        web::resource("/api/v1/webhooks")
            .route(web::get().to(webhooks::list))
            .route(keyed(web::post().to(webhooks::create), Guard::Webhooks))
            .default_service(disallowed("GET, POST")),
    )
    .service(
        web::resource("/api/v1/webhooks/{webhookId}")
            .route(web::get().to(webhooks::get))
            .route(keyed(web::patch().to(webhooks::update), Guard::Webhooks))
            .route(keyed(web::delete().to(webhooks::delete), Guard::Webhooks))
            .default_service(disallowed("GET, PATCH, DELETE")),
    )
    .service(
        web::resource("/api/v1/webhooks/{webhookId}/secret")
            .route(keyed(web::post().to(webhooks::rotate), Guard::Webhooks))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/webhooks/{webhookId}/deliveries")
            .route(web::get().to(webhooks::deliveries))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/admin/backup")
            .route(keyed(web::post().to(handlers::backup), Guard::Admin))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/changes")
            .route(web::get().to(handlers::changes))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/changes/stream")
            .route(web::get().to(stream::stream))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/calendar.ics")
            .route(web::get().to(calendar::export))
            .route(web::post().to(calendar::import))
            .default_service(disallowed("GET, POST")),
    )
    .service(
        web::resource("/api/v1/batch")
            .route(keyed(
                web::post().to(batch::batch),
                Guard::Records { body: false },
            ))
            .default_service(disallowed("POST")),
    );
    crate::dav::configure(cfg);
    #[cfg(feature = "failpoints")]
    cfg.service(
        web::resource("/api/v1/admin/failpoints/{name}")
            .route(web::put().to(failpoints::set))
            .route(web::delete().to(failpoints::remove))
            .default_service(disallowed("PUT, DELETE")),
    );
    // Last: its pattern is a regular expression, which the API's requests then never run.
    cfg.service(
        utoipa_swagger_ui::SwaggerUi::new("/docs/{_:.*}")
            .url("/api/v1/openapi.json", openapi::DOCUMENT.clone()),
    );
    cfg.default_service(web::to(handlers::not_found));
}

/// The request-id header: the client's, if it sent a sane one, else a new one.
pub(crate) const REQUEST_ID: &str = "x-request-id";

/// The one middleware around every request (one layer, not three: each costs every
/// request a boxed future and a body conversion). Before the route: an id for the request
/// (the client's, else a new one, echoed in `X-Request-Id`); `503 unavailable` with
/// `Retry-After` once the [`Gate`] is closed, whatever the route (`/healthz` included);
/// `429 too_many_requests` for a client address (see [`client`]) locked out by the
/// [`Throttle`], on every `/api/v1` request (and `/metrics`, which takes the admin token)
/// before its token is looked at. After it: a response built from an [`ApiError`] is
/// noted ([`ApiError::note`]); a `401` counts as a failure of its client address; the
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
    let throttle = state(req.request()).map(|app| app.throttle.clone());
    let mut response = match refusal(&req, client, throttle.as_ref().map(|t| t.get_ref())) {
        Some(refused) => req.error_response(refused).map_into_right_body(),
        None => next.call(req).await?.map_into_left_body(),
    };
    let elapsed = started.elapsed();
    if let Some(error) = response.response().error() {
        if let Some(error) = error.as_error::<ApiError>() {
            error.note();
        }
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
    METRICS
        .request_seconds
        .get_or_create(&RouteLabels {
            route: route.clone(),
        })
        .observe(elapsed.as_secs_f64());
    METRICS
        .requests
        .get_or_create(&RequestLabels {
            method: method_label(request.method()),
            route,
            status: status.as_u16(),
        })
        .inc();
    let client: &dyn std::fmt::Display = match &client {
        Some(ip) => ip,
        None => &"-",
    };
    crate::logging::info(
        module_path!(),
        format_args!(
            "{client} {} {} {} {}us id={id}",
            request.method(),
            request.path(),
            status.as_u16(),
            elapsed.as_micros()
        ),
    );
    if let Ok(value) = HeaderValue::from_str(&id) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), value);
    }
    Ok(response)
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
) -> Option<ApiError> {
    let gate = state(req.request()).map(|app| &app.gate);
    if gate.is_some_and(|g| g.is_closed()) {
        return Some(ApiError::Unavailable("the server is shutting down"));
    }
    let standby = gate
        .and_then(|g| g.role())
        .is_some_and(|role| !role.is_primary());
    // The CalDAV front serves the same data: a standby refuses it too.
    let served = req.path().starts_with("/api/v1") || req.path().starts_with("/dav/");
    if standby && served {
        return Some(ApiError::NotPrimary);
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
    Some(ApiError::TooManyRequests(wait))
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
            let _ = write!(id, "{}", NEXT.fetch_add(1, Ordering::Relaxed));
            id
        }
    }
}

/// `GET /metrics` on a `--metrics-bind` address: every metric in the OpenMetrics text
/// format Prometheus scrapes; no auth (that address is for a scraper on an internal
/// network).
#[utoipa::path(
    get,
    path = "/metrics",
    operation_id = "metrics",
    tag = "service",
    summary = "Prometheus metrics (admin token; moved by --metrics-bind)",
    description = "On the API's address only with the admin token (CONTRACT §21): 401 without it, \
        for a user's token (primary or scoped) too, since the metrics name users. A 401 counts \
        as a failed authentication, so a client locked out by them (§9) gets 429 here as on \
        `/api/v1`. With `--metrics-bind ADDR` it is served on that address instead, without a \
        token, and not on this one (404).",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text", body = String),
        (status = 401, response = openapi::problems::Problem401),
        (status = 429, response = openapi::problems::Problem429),
        (status = 503, response = openapi::problems::Problem503),
    ),
)]
pub(crate) async fn metrics() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/openmetrics-text; version=1.0.0; charset=utf-8")
        .body(METRICS.render())
}

/// `GET /metrics` on the API's address: as [`metrics`], with the admin token only, since
/// the metrics name users (CONTRACT §21). 401 without it, for a user's token too; 429 for
/// a client locked out by failed authentications (see [`refusal`]).
pub(crate) async fn admin_metrics(_: extract::AdminToken) -> HttpResponse {
    metrics().await
}

/// Registers `GET /metrics` on the API's address, behind the admin token.
pub(crate) fn configure_metrics(cfg: &mut ServiceConfig) {
    cfg.service(
        web::resource(METRICS_PATH)
            .route(web::get().to(admin_metrics))
            .default_service(disallowed("GET")),
    );
}

/// Registers `GET /metrics` open to all, for the server of `--metrics-bind` (which has no
/// directory to check a token against).
pub(crate) fn configure_open_metrics(cfg: &mut ServiceConfig) {
    cfg.service(
        web::resource(METRICS_PATH)
            .route(web::get().to(metrics))
            .default_service(disallowed("GET")),
    );
}

/// Where the metrics are served.
const METRICS_PATH: &str = "/metrics";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, User};
    use crate::startup::test_state;
    use actix_web::http::{header, Method, StatusCode};
    use actix_web::middleware::from_fn;
    use actix_web::{test, App};

    /// Every collection answers every method with the right status before any record
    /// exists: the routes, `Allow` lists and the auth check, without a server process.
    #[actix_web::test]
    async fn the_route_table_answers_every_method_on_every_collection() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "user-token");
        let state = test_state(data.path(), vec![user]);
        let app = test::init_service(
            App::new()
                .wrap(from_fn(front))
                .configure(|cfg| state.configure(cfg)),
        )
        .await;
        let auth = ("authorization", "Bearer user-token");
        for kind in Kind::ALL {
            let base = format!("/api/v1/{}", kind.collection());
            let item = format!("{base}/x1");
            let restore = format!("{item}/restore");
            let cases = [
                (Method::GET, base.clone(), StatusCode::OK, None),
                (
                    Method::PUT,
                    base.clone(),
                    StatusCode::METHOD_NOT_ALLOWED,
                    Some("GET, POST"),
                ),
                (Method::GET, item.clone(), StatusCode::NOT_FOUND, None),
                (
                    Method::POST,
                    item.clone(),
                    StatusCode::METHOD_NOT_ALLOWED,
                    Some("GET, PATCH, DELETE"),
                ),
                (Method::POST, restore.clone(), StatusCode::NOT_FOUND, None),
                (
                    Method::GET,
                    restore,
                    StatusCode::METHOD_NOT_ALLOWED,
                    Some("POST"),
                ),
            ];
            for (method, path, status, allow) in cases {
                let req = test::TestRequest::default()
                    .method(method.clone())
                    .uri(&path)
                    .insert_header(auth)
                    .to_request();
                let res = test::call_service(&app, req).await;
                assert_eq!(res.status(), status, "{method} {path}");
                let allowed = res
                    .headers()
                    .get(header::ALLOW)
                    .map(|v| v.to_str().unwrap());
                assert_eq!(allowed, allow, "{method} {path}");
            }
            let anonymous = test::TestRequest::get().uri(&base).to_request();
            let res = test::call_service(&app, anonymous).await;
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        }
        for (method, path) in [
            (Method::GET, "/api/v1/goals"),
            (Method::PUT, "/api/v1/goals/x"),
        ] {
            let req = test::TestRequest::default()
                .method(method)
                .uri(path)
                .insert_header(auth)
                .to_request();
            assert_eq!(
                test::call_service(&app, req).await.status(),
                StatusCode::NOT_FOUND
            );
        }
    }

    #[actix_web::test]
    async fn once_shutdown_begins_new_requests_are_503_with_retry_after() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "user-token");
        let state = test_state(data.path(), vec![user]);
        let app = test::init_service(
            App::new()
                .wrap(from_fn(front))
                .configure(|cfg| state.configure(cfg)),
        )
        .await;
        let list = || {
            test::TestRequest::get()
                .uri("/api/v1/tasks")
                .insert_header(("authorization", "Bearer user-token"))
                .to_request()
        };
        assert_eq!(
            test::call_service(&app, list()).await.status(),
            StatusCode::OK
        );
        state.close_gate();
        let res = test::call_service(&app, list()).await;
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(res.headers().get(header::RETRY_AFTER).unwrap(), "1");
        let body: serde_json::Value = test::read_body_json(res).await;
        assert_eq!(body["code"], "unavailable");
    }

    /// `/metrics` on the API's address: the admin token alone (CONTRACT §21); a user's
    /// token is 401 like a wrong one, not 403 as on the admin routes.
    #[actix_web::test]
    async fn metrics_on_the_api_address_answer_the_admin_token_alone() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "user-token");
        let state = test_state(data.path(), vec![user]);
        let app = test::init_service(
            App::new()
                .wrap(from_fn(front))
                .configure(configure_metrics)
                .configure(|cfg| state.configure(cfg)),
        )
        .await;
        let scrape = |token: Option<&str>| {
            let mut req = test::TestRequest::get().uri("/metrics");
            if let Some(token) = token {
                req = req.insert_header(("authorization", format!("Bearer {token}")));
            }
            req.to_request()
        };
        for token in [None, Some("user-token"), Some("wrong-token")] {
            let res = test::call_service(&app, scrape(token)).await;
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{token:?}");
        }
        let res = test::call_service(&app, scrape(Some("admin-token"))).await;
        assert_eq!(res.status(), StatusCode::OK);
        let open = test::init_service(App::new().configure(configure_open_metrics)).await;
        let res = test::call_service(&open, scrape(None)).await;
        assert_eq!(res.status(), StatusCode::OK);
    }

    #[actix_web::test]
    async fn a_created_record_reads_back_through_the_same_app() {
        let data = tempfile::tempdir().unwrap();
        let user = User::new("u", "user-token");
        let state = test_state(data.path(), vec![user]);
        let app = test::init_service(App::new().configure(|cfg| state.configure(cfg))).await;
        let auth = ("authorization", "Bearer user-token");
        let req = test::TestRequest::post()
            .uri("/api/v1/contexts")
            .insert_header(auth)
            .set_json(serde_json::json!({"contextId": "home", "name": "Home"}))
            .to_request();
        let res = test::call_service(&app, req).await;
        assert_eq!(res.status(), StatusCode::CREATED);
        assert_eq!(
            res.headers().get(header::LOCATION).unwrap(),
            "/api/v1/contexts/home"
        );
        let req = test::TestRequest::get()
            .uri("/api/v1/contexts/home")
            .insert_header(auth)
            .to_request();
        let body: serde_json::Value = test::call_and_read_body_json(&app, req).await;
        assert_eq!(body["data"]["name"], "Home");
        assert_eq!(body["data"]["contextId"], "home");
        assert_eq!(body["spaceVersion"], 1);
    }
}
