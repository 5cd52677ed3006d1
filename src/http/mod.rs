//! The HTTP layer: routes, extractors, rendering and the error mapping.
//!
//! Request flow: the logging middleware times the request; an extractor per input checks
//! the route, token, path id, query and body; a handler in [`handlers`] sends one typed
//! message to the space's actor through the [`Directory`](crate::actors::Directory) and
//! renders the reply with [`render`]; any failure becomes problem+json in [`error`].

pub mod error;
pub mod extract;
pub mod handlers;
pub mod render;

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web::{self, ServiceConfig};
use actix_web::{HttpRequest, Route};

pub use error::ApiError;

/// A route answering 405 (or 404 for an unknown collection) for methods a path lacks.
fn disallowed(allow: &'static str) -> Route {
    web::to(move |req: HttpRequest| async move {
        Err::<actix_web::HttpResponse, _>(handlers::method_not_allowed(&req, allow))
    })
}

/// Registers every route. The specific paths come before the generic collection routes
/// they would otherwise match.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        web::resource("/healthz")
            .route(web::get().to(handlers::healthz))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/me")
            .route(web::get().to(handlers::me))
            .default_service(disallowed("GET")),
    )
    .service(
        web::resource("/api/v1/admin/users")
            .route(web::post().to(handlers::create_user))
            .default_service(disallowed("POST")),
    )
    .service(
        web::resource("/api/v1/{collection}")
            .route(web::get().to(handlers::list))
            .route(web::post().to(handlers::create))
            .default_service(disallowed("GET, POST")),
    )
    .service(
        web::resource("/api/v1/{collection}/{id}")
            .route(web::get().to(handlers::get))
            .route(web::patch().to(handlers::update))
            .route(web::delete().to(handlers::delete))
            .default_service(disallowed("GET, PATCH, DELETE")),
    )
    .service(
        web::resource("/api/v1/{collection}/{id}/restore")
            .route(web::post().to(handlers::restore))
            .default_service(disallowed("POST")),
    )
    .default_service(web::to(handlers::not_found));
}

/// Middleware logging one line per request at info: method, path, status, microseconds.
pub async fn log_request(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.path().to_string();
    let response = next.call(req).await?;
    log::info!(
        "{method} {path} {} {}us",
        response.status().as_u16(),
        started.elapsed().as_micros()
    );
    Ok(response)
}
