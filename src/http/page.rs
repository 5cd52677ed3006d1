//! The page (docs §26): one HTML page, its script and its style, built into the binary with
//! `include_str!` and served as they are; the page itself talks to the JSON API only. No
//! server-side rendering, no request to any other host (the CSP says so to the browser).
//!
//! `GET /` serves the page only when `Accept` names `text/html`; any other `GET /` falls
//! through to the fallback's `404 not_found`, as before the page existed (§1).

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{self, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};

/// The page's files, from `web/` at build time: (path under `/app/`, content type, bytes).
pub(crate) const ASSETS: [(&str, &str, &str); 2] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../../web/app.js"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../../web/app.css"),
    ),
];

/// The HTML page.
const INDEX: &str = include_str!("../../web/index.html");

/// Only this origin, for everything: scripts, styles, `fetch`, images; no frames, no
/// inline script or style, no `<base>` rewrite.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; \
    frame-ancestors 'none'; form-action 'self'";

/// Mounts `GET /` (HTML only), `GET /app` and `GET /app/{file}`.
pub(crate) fn configure_page(cfg: &mut ServiceConfig) {
    cfg.service(
        web::resource("/")
            .route(web::get().to(root))
            // Not the page's: the fallback's 404, as before the page (§1).
            .default_service(web::to(super::handlers::not_found)),
    )
    .service(
        web::resource("/app")
            .route(web::get().to(index))
            .default_service(super::disallowed("GET")),
    );
    for (name, content_type, body) in ASSETS {
        cfg.service(
            web::resource(format!("/app/{name}"))
                .route(web::get().to(move || async move { file(content_type, body) }))
                .default_service(super::disallowed("GET")),
        );
    }
}

/// Whether `Accept` names `text/html` (any position in the list, any parameters, but not
/// with `q=0`, which refuses it). `*/*` alone does not count: a client that takes anything
/// keeps the JSON `404` it had before the page.
fn accepts_html(headers: &header::HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(names_html)
}

/// One item of an `Accept` list: `text/html`, with a `q` above zero.
fn names_html(item: &str) -> bool {
    let mut parts = item.split(';').map(str::trim);
    let is_html = parts
        .next()
        .is_some_and(|media| media.eq_ignore_ascii_case("text/html"));
    is_html
        && !parts.any(|p| {
            p.split_once('=').is_some_and(|(k, v)| {
                k.trim().eq_ignore_ascii_case("q") && v.trim().parse::<f32>() == Ok(0.0)
            })
        })
}

/// `GET /`: the page when `Accept` names `text/html`; otherwise `404 not_found`
/// problem+json, as for any path no route matches.
async fn root(req: HttpRequest) -> Result<HttpResponse, super::ApiError> {
    if accepts_html(req.headers()) {
        Ok(index().await)
    } else {
        super::handlers::not_found(req).await
    }
}

/// `GET /app` (and `GET /` for a browser): 200 with the page, `text/html` and the CSP.
async fn index() -> HttpResponse {
    file("text/html; charset=utf-8", INDEX)
}

/// A file of the page with its content type, the CSP and no sniffing; `no-cache`, so a
/// new binary's page is seen at the next load.
fn file(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static(content_type)))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .insert_header((
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static("no-cache")))
        .insert_header((
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::names_html;

    #[test]
    fn text_html_counts_in_any_case_with_parameters_but_not_refused() {
        assert!(names_html("text/html"));
        assert!(names_html(" Text/HTML;charset=utf-8"));
        assert!(names_html("text/html;q=0.5"));
        assert!(!names_html("text/html;q=0"));
        assert!(!names_html("text/html; q=0.0"));
        assert!(!names_html("*/*"));
        assert!(!names_html("application/xhtml+xml"));
    }
}
