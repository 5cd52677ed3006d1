//! Tests with failpoints (`cargo test --features failpoints --test failpoints`): storage
//! faults, panics and a moved clock injected into a running server (see
//! `taskd::http::failpoints`), and into a journal in this process. A default build has no failpoint, so these tests live
//! in their own binary, built only with the feature.

// The end-to-end tests' one set of helpers (tests/api), of which these tests use a part.
#[allow(dead_code, unused_imports)]
#[path = "../api/helpers/mod.rs"]
mod helpers;

mod activity;
mod clock;
mod journal;
mod panics;
mod storage;

use helpers::TestApp;

/// Sets failpoint `name` of `app` to `actions` (the `fail` crate's syntax).
pub async fn set_failpoint(app: &TestApp, name: &str, actions: &str) {
    let path = format!("/api/v1/admin/failpoints/{name}");
    let request = app
        .request(actix_web::http::Method::PUT, &path)
        .insert_header(("Authorization", format!("Bearer {}", app.admin_token)));
    app.send(request, Some(actions.as_bytes().to_vec()))
        .await
        .expect(204);
}

/// Removes failpoint `name` of `app`: it does nothing from now on.
pub async fn remove_failpoint(app: &TestApp, name: &str) {
    let path = format!("/api/v1/admin/failpoints/{name}");
    let request = app
        .request(actix_web::http::Method::DELETE, &path)
        .insert_header(("Authorization", format!("Bearer {}", app.admin_token)));
    app.send(request, None).await.expect(204);
}
