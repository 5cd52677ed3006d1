//! Failpoints set while the server runs, for the tests of `tests/failpoints` (feature
//! `failpoints` only: a default build has neither these routes nor a failpoint). The
//! failpoints are the `fail` crate's, named where they sit:
//! - `journal::write`: every journal write; `return` fails it (a full disk), `pause` holds
//!   it until the failpoint is removed (a sync that does not return);
//! - `space::write`: a write that creates or changes a record; `panic` panics it in every
//!   space, `return(ID)` in space ID only;
//! - `live::clock`: the clock of live views (docs §24); `return(MS)` moves it MS
//!   milliseconds ahead of the system's (negative: behind).
//!
//! `FAILPOINTS=name=actions;...` sets some from the start instead (see `main`).

use actix_web::web::{self, Bytes};
use actix_web::HttpResponse;

use super::error::ApiError;
use super::extract::Admin;

/// `PUT /api/v1/admin/failpoints/{name}` with the failpoint's actions as the body, in the
/// `fail` crate's syntax (`return`, `pause`, `panic`, `1*return(x)`, `50%sleep(100)`,
/// actions joined by `->`) → 204; the failpoint acts from the next time it is passed.
/// 400 `invalid_parameter` for actions the crate does not read, 401, 403.
pub(crate) async fn set(
    _: Admin,
    name: web::Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let actions = std::str::from_utf8(&body)
        .map_err(|_| ApiError::InvalidParameter("the actions must be UTF-8 text".into()))?;
    fail::cfg(name.into_inner(), actions.trim()).map_err(ApiError::InvalidParameter)?;
    Ok(HttpResponse::NoContent().finish())
}

/// `DELETE /api/v1/admin/failpoints/{name}` → 204: the failpoint does nothing from now on,
/// and a thread it holds (`pause`) goes on. 401, 403.
pub(crate) async fn remove(_: Admin, name: web::Path<String>) -> HttpResponse {
    fail::remove(name.into_inner());
    HttpResponse::NoContent().finish()
}
