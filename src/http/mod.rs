//! The JSON API front: routes, extractors, rendering and the one mapping of errors to
//! problem+json.
//!
//! Request flow, once the edge ([`crate::edge`]) let a request in: an extractor per input
//! checks the route, token, path id, query and body; a handler in [`handlers`] checks
//! access and reads or writes through the [`Core`](crate::core::Core), and renders the
//! reply with [`render`]; any failure becomes problem+json in [`error`]. The front's own
//! state is the open change streams ([`stream::Streams`], app data).

mod activity;
pub(crate) mod batch;
pub(crate) mod calendar;
pub(crate) mod dto;
pub(crate) mod error;
pub(crate) mod extract;
#[cfg(feature = "failpoints")]
pub(crate) mod failpoints;
pub(crate) mod handlers;
pub(crate) mod idempotency;
pub(crate) mod live;
pub(crate) mod openapi;
pub(crate) mod page;
pub(crate) mod render;
pub(crate) mod spaces;
pub(crate) mod stream;
pub(crate) mod tokens;
pub(crate) mod webhooks;

use actix_web::middleware::from_fn;
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{HttpResponse, Route};

use crate::core::Core;
use crate::edge::Speaker;
use crate::metrics::METRICS;
use crate::model::access::Action;
use crate::model::times::TimeFields;
use crate::model::Kind;
use idempotency::Guard;

pub(crate) use error::ApiError;
pub(crate) use page::configure_page;

/// How the edge words its refusals and notes the JSON API's errors: as problem+json,
/// through [`ApiError`], for every front alike.
pub(crate) const SPEAKER: Speaker = Speaker {
    refuse: |refused| HttpResponse::from_error(ApiError::from(refused)),
    note: |error| {
        if let Some(error) = error.as_error::<ApiError>() {
            error.note();
        }
    },
};

/// The core of the app serving `req` (app data every front is given).
pub(crate) fn core(req: &actix_web::HttpRequest) -> Result<&Data<Core>, ApiError> {
    req.app_data::<Data<Core>>()
        .ok_or_else(|| ApiError::Internal("core missing from app data".into()))
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
    // request a match attempt (a regular expression for one with a `{param}`). Within a
    // collection, too, the record's own path comes before its sub-resources'.
    for kind in Kind::ALL {
        let mut scope = web::scope(&format!("/api/v1/{}", kind.collection()))
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
                web::resource("/{id}/activity")
                    .route(web::get().to(activity::of_record))
                    .default_service(disallowed("GET")),
            )
            .service(
                web::resource("/{id}/restore")
                    .route(keyed(
                        web::post().to(handlers::restore),
                        Guard::Records { body: false },
                    ))
                    .default_service(disallowed("POST")),
            );
        if TimeFields::of(kind).is_some() {
            scope = scope.service(
                web::resource("/{id}/occurrences")
                    .route(web::get().to(handlers::occurrences))
                    .default_service(disallowed("GET")),
            );
        }
        cfg.service(scope.default_service(web::to(handlers::not_found)));
    }
    cfg.service(
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
        web::resource("/api/v1/activity")
            .route(web::get().to(activity::list))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/activity/{version}/revert")
            .route(web::post().to(activity::revert))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/changes")
            .route(web::get().to(handlers::changes))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/live")
            .route(web::get().to(live::live))
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
    #[cfg(feature = "failpoints")]
    cfg.service(
        web::resource("/api/v1/admin/failpoints/{name}")
            .route(web::put().to(failpoints::set))
            .route(web::delete().to(failpoints::remove))
            .default_service(disallowed("PUT, DELETE")),
    );
}

/// Registers the API's documentation: `/docs/` (Swagger UI) and its document
/// `/api/v1/openapi.json`; mount it after the fronts, since its pattern is a regular
/// expression, which their requests then never run.
pub(crate) fn configure_docs(cfg: &mut ServiceConfig) {
    cfg.service(web::resource("/docs").route(web::get().to(|| async {
        HttpResponse::PermanentRedirect()
            .insert_header((actix_web::http::header::LOCATION, "/docs/"))
            .finish()
    })))
    .service(
        utoipa_swagger_ui::SwaggerUi::new("/docs/{_:.*}")
            .url("/api/v1/openapi.json", openapi::DOCUMENT.clone()),
    );
}

/// Answers any path no front's route matches: `404` problem+json.
pub(crate) fn configure_fallback(cfg: &mut ServiceConfig) {
    cfg.default_service(web::to(handlers::not_found));
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
    description = "On the API's address only with the admin token (docs §21): 401 without it, \
        for a user's token (primary or scoped) too, since the metrics name users. A 401 counts \
        as a failed authentication, so a client locked out by them (§9) gets 429 here as on \
        `/api/v1`. With `--metrics-bind ADDR` it is served on that address instead, without a \
        token, and not on this one (404).",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text", body = String),
        openapi::problems::MetricsProblems,
    ),
)]
pub(crate) async fn metrics() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/openmetrics-text; version=1.0.0; charset=utf-8")
        .body(METRICS.render())
}

/// `GET /metrics` on the API's address: as [`metrics`], with the admin token only, since
/// the metrics name users (docs §21). 401 without it, for a user's token too; 429 for
/// a client locked out by failed authentications (see [`refusal`]).
pub(crate) async fn admin_metrics(_: extract::AdminToken) -> HttpResponse {
    metrics().await
}

/// Registers `GET /metrics` on the API's address, behind the admin token.
pub(crate) fn configure_metrics(cfg: &mut ServiceConfig) {
    cfg.service(
        web::resource(crate::metrics::PATH)
            .route(web::get().to(admin_metrics))
            .default_service(disallowed("GET")),
    );
}

/// Registers `GET /metrics` open to all, for the server of `--metrics-bind` (which has no
/// directory to check a token against).
pub(crate) fn configure_open_metrics(cfg: &mut ServiceConfig) {
    cfg.service(
        web::resource(crate::metrics::PATH)
            .route(web::get().to(metrics))
            .default_service(disallowed("GET")),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::front;
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

    /// `/metrics` on the API's address: the admin token alone (docs §21); a user's
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
