//! The page (docs §26): `GET /` for a browser and `GET /app`, its files with their content
//! types and CSP, its weight, and no address of another host in it. The page's behaviour in
//! a real browser is tested by `tests/page/browser.py`.

use actix_web::http::Method;
use serde_json::Value;

use crate::helpers::{assert_problem, spawn_app};

/// The page's files as served: (path, content type prefix).
const FILES: [(&str, &str); 3] = [
    ("/app", "text/html"),
    ("/app/app.js", "text/javascript"),
    ("/app/app.css", "text/css"),
];

/// A body that is not JSON comes back as a JSON string holding the text.
fn text(body: &Value) -> &str {
    body.as_str().unwrap_or_else(|| panic!("not text: {body}"))
}

#[actix_web::test]
async fn root_with_accept_html_serves_the_page_with_a_strict_csp() {
    let app = spawn_app();
    let request = app
        .request(Method::GET, "/")
        .insert_header(("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"));
    let reply = app.send(request, None).await;
    reply.expect(200);
    assert!(reply
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let csp = reply.header("content-security-policy").expect("a CSP");
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe"), "{csp}");
    assert!(text(&reply.body).contains("/app/app.js"));
}

#[actix_web::test]
async fn root_without_accept_html_is_still_404_problem_json() {
    let app = spawn_app();
    for accept in [
        None,
        Some("application/json"),
        Some("*/*"),
        Some("text/html;q=0, application/json"),
    ] {
        let mut request = app.request(Method::GET, "/");
        if let Some(accept) = accept {
            request = request.insert_header(("Accept", accept));
        }
        assert_problem(&app.send(request, None).await, 404, "not_found");
    }
    // Other methods on `/` are not the page's either.
    let post = app.request(Method::POST, "/");
    assert_problem(&app.send(post, None).await, 404, "not_found");
}

#[actix_web::test]
async fn every_file_of_the_page_is_served_with_its_content_type_and_the_csp() {
    let app = spawn_app();
    for (path, content_type) in FILES {
        let reply = app.send(app.request(Method::GET, path), None).await;
        reply.expect(200);
        let served = reply.header("content-type").unwrap_or_default();
        assert!(served.starts_with(content_type), "{path}: {served}");
        assert!(reply.header("content-security-policy").is_some(), "{path}");
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    }
}

#[actix_web::test]
async fn the_page_weighs_under_200_kb_and_names_no_other_host() {
    let app = spawn_app();
    let mut total = 0;
    for (path, _) in FILES {
        let reply = app.send(app.request(Method::GET, path), None).await;
        let body = text(&reply.body).to_owned();
        total += body.len();
        for scheme in ["http://", "https://", "//cdn", "ws://", "wss://"] {
            assert!(
                !body.contains(scheme),
                "{path} names another host: {scheme}"
            );
        }
    }
    assert!(total < 200 * 1024, "{total} bytes");
}
