//! What a CalDAV request brings: its caller ([`DavCaller`]) and its body ([`DavBody`]).

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, Data};
use actix_web::{FromRequest, HttpRequest};
use base64::Engine;
use futures_util::future::{ready, LocalBoxFuture, Ready};

use super::DavError;
use crate::core::Core;
use crate::edge::{body, budget};
use crate::model::limits::CALENDAR_BODY_MAX_BYTES;
use crate::model::Caller;

/// The caller of a CalDAV request: the user behind the token given as the Basic password
/// (any user name) or as `Bearer`; [`DavError::Unauthorized`] without a known, live one,
/// [`DavError::OverBudget`] when its budget is spent (it is charged here, docs §25).
pub(super) struct DavCaller(pub(super) Caller);

/// The token of an `Authorization` header value, Basic or Bearer.
fn token_of(value: &str) -> Option<String> {
    let (scheme, rest) = value.split_once(' ')?;
    let rest = rest.trim();
    if scheme.eq_ignore_ascii_case("bearer") {
        return Some(rest.to_owned()).filter(|t| !t.is_empty());
    }
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(rest)
        .ok()?;
    let pair = String::from_utf8(decoded).ok()?;
    let (_, password) = pair.split_once(':')?;
    Some(password.to_owned()).filter(|t| !t.is_empty())
}

impl FromRequest for DavCaller {
    type Error = DavError;
    type Future = Ready<Result<Self, DavError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let caller = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(token_of)
            .zip(req.app_data::<Data<Core>>())
            .and_then(|(token, core)| core.authenticate(&token));
        ready(match caller {
            Some(caller) => budget::charge(req, &caller)
                .map(|()| DavCaller(caller))
                .map_err(DavError::OverBudget),
            None => Err(DavError::Unauthorized),
        })
    }
}

/// The body of a CalDAV request, read as every body is ([`body::read`]): within
/// `--body-timeout-ms` (else `408`, the connection closed) and at most
/// [`CALENDAR_BODY_MAX_BYTES`], as the `.ics` import (else `413`).
pub(super) struct DavBody(pub(super) Bytes);

impl FromRequest for DavBody {
    type Error = DavError;
    type Future = LocalBoxFuture<'static, Result<Self, DavError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = body::read(req, payload, CALENDAR_BODY_MAX_BYTES);
        Box::pin(async move { Ok(DavBody(body.await?)) })
    }
}
