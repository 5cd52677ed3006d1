//! Idempotent retries (docs §11), as a middleware around every write route (POST,
//! PATCH, PUT and DELETE under `/api/v1`), acting on requests that carry `Idempotency-Key`.
//!
//! It checks the key, reads the body once to fingerprint the request (method, path with
//! query, body) and puts it back for the handler, then claims the key in [`Keys`]: a
//! replay answers the kept answer with `Idempotent-Replayed: true`, another request with
//! the key gets 422, one while the first runs gets 409. The first request runs with the
//! claim in its extensions; a write handler stores the claim with its write (one journal
//! entry) and leaves its answer in the extensions. Any other answer below 500 is kept
//! here, after a journal entry of its own; a 5xx frees the key, except when the storage
//! stalled under a write: that write may still be stored, so its key stays claimed (a
//! retry gets 409) until the journal decides, and then holds the write's own answer
//! ([`settle_later`]).
//!
//! A kept answer is replayed only to a request that passes the route's own checks
//! ([`Guard`]: its token, the space it names, the caller's role there and the token's
//! reach and access, docs §21), so a key never shows what the request could not see
//! without one; a request that fails them gets that failure.

use std::pin::Pin;

use actix_web::body::{to_bytes, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::{header, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures_util::Stream;
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::extract::{space_of, Admin, Params, UserCaller, MAX_BODY_BYTES};
use super::render;
use super::spaces::segment;
use crate::actors::keys::Claim;
use crate::actors::Failure;
use crate::core::{reach, Core};
use crate::edge::{body, budget};
use crate::metrics::METRICS;
use crate::model::access::Action;
use crate::model::kept::{KeptAnswer, KeyUse};
use crate::model::limits::IDEMPOTENCY_KEY_MAX_CHARS;
use crate::model::Caller;

/// The header.
pub(crate) const HEADER: &str = "idempotency-key";
/// The user keys of the admin token belong to.
const ADMIN: &str = "admin";

/// Whether `key` is a valid key: 1 to [`IDEMPOTENCY_KEY_MAX_CHARS`] printable ASCII
/// characters.
fn is_valid_key(key: &[u8]) -> bool {
    (1..=IDEMPOTENCY_KEY_MAX_CHARS).contains(&key.len())
        && key.iter().all(|b| (0x20..=0x7e).contains(b))
}

/// What a keyed route's handler checks before it acts, in terms [`reach`]
/// answers: what a replay of the route's kept answers must pass too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// The admin token.
    Admin,
    /// A user's primary token acting on its account (creating spaces, managing tokens).
    Account,
    /// The action on the space the path names.
    Space(Action),
    /// Accepting an invitation to the space the path names: once accepted, the caller is
    /// a member there with its primary token, which is what [`Action::Leave`] asks.
    Accept,
    /// Removing the member the path names: an owner's action, or the user's own (leaving
    /// or declining), which replays while the space exists.
    Member,
    /// A record write in the space the query's `spaceId` names (or the body's too, when
    /// `body` is set), else the caller's default space.
    Records {
        /// Whether the body may name the space.
        body: bool,
    },
    /// Managing webhooks (§19): of the webhook the path names, else of the space the
    /// query's `spaceId` names (else the caller's default space).
    Webhooks,
}

/// Whether the request `req` with body `body` passes `guard`: the failure it would get
/// without a key, if not.
fn admit(guard: Guard, req: &HttpRequest, body: &[u8]) -> Result<(), ApiError> {
    let user = || UserCaller::extract(req).into_inner().map(|c| c.0);
    let space = || segment(req, "spaceId");
    match guard {
        Guard::Admin => Admin::extract(req).into_inner().map(drop),
        Guard::Account => Ok(reach(&user()?, None, Action::Account).map(drop)?),
        Guard::Space(action) => Ok(reach(&user()?, Some(space()), action).map(drop)?),
        Guard::Accept => Ok(reach(&user()?, Some(space()), Action::Leave).map(drop)?),
        Guard::Member => {
            let caller = user()?;
            if segment(req, "userId") != &*caller.account.id {
                return Ok(reach(&caller, Some(space()), Action::Manage).map(drop)?);
            }
            reach(&caller, None, Action::Account)?;
            let exists = super::core(req)?.directory().space(space()).is_some();
            match exists {
                true => Ok(()),
                false => Err(ApiError::NotFound(format!("space '{}' not found", space()))),
            }
        }
        Guard::Webhooks => {
            let caller = user()?;
            if segment(req, "webhookId").is_empty() {
                let params = Params::extract(req).into_inner()?;
                return space_of(&caller, params.space_id(), None, Action::Webhooks).map(drop);
            }
            super::webhooks::named(req, &caller, super::core(req)?).map(drop)
        }
        Guard::Records { body: named } => {
            #[derive(serde::Deserialize)]
            struct Named {
                #[serde(rename = "spaceId")]
                space_id: Option<String>,
            }
            let caller = Caller::extract(req).into_inner()?;
            let params = Params::extract(req).into_inner()?;
            let in_body = serde_json::from_slice::<Named>(body)
                .ok()
                .filter(|_| named)
                .and_then(|n| n.space_id);
            space_of(
                &caller,
                params.space_id(),
                in_body.as_deref(),
                Action::Write,
            )
            .map(drop)
        }
    }
}

/// The middleware around a route that `guard` describes; see the module docs.
pub(crate) async fn idempotency(
    guard: Guard,
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(key) = req.headers().get(HEADER).map(|v| v.as_bytes().to_vec()) else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let core = super::core(req.request()).ok().cloned();
    let (Some(user), Some(core)) = (owner(&req), core) else {
        // Not authenticated: the handler answers 401 (before any check of the key), which
        // is not kept.
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    if !is_valid_key(&key) {
        let refused = ApiError::InvalidParameter(format!(
            "Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters"
        ));
        return Ok(req.error_response(refused));
    }
    let key = String::from_utf8_lossy(&key).into_owned();
    let mut payload = req.take_payload();
    let body = match body::read(req.request(), &mut payload, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(e) => return Ok(req.error_response(ApiError::from(e))),
    };
    let mut fingerprint = Sha256::new();
    for part in [
        req.method().as_str(),
        req.uri().path(),
        "?",
        req.query_string(),
    ] {
        fingerprint.update(part.as_bytes());
    }
    fingerprint.update([0]);
    fingerprint.update(&body);
    let now = chrono::Utc::now().timestamp_millis();
    let keys = core.keys();
    let used = match keys.claim(&user, &key, fingerprint.finalize().into(), now) {
        Claim::Run(used) => used,
        Claim::Replay(answer) => {
            // A replay costs nothing, even with the token's budget spent (docs §25).
            budget::free(req.request());
            if let Err(refused) = admit(guard, req.request(), &body) {
                return Ok(req.error_response(refused));
            }
            let mut response = render::kept(&answer);
            response.headers_mut().insert(
                header::HeaderName::from_static("idempotent-replayed"),
                header::HeaderValue::from_static("true"),
            );
            return Ok(req.into_response(response));
        }
        Claim::Reused => return Ok(req.error_response(ApiError::IdempotencyKeyReused)),
        Claim::InUse => return Ok(req.error_response(ApiError::IdempotencyKeyInUse)),
        Claim::Full(wait) => {
            METRICS.too_many("idempotency_keys");
            return Ok(req.error_response(ApiError::TooManyKeys(wait)));
        }
    };
    req.set_payload(replay(body));
    req.extensions_mut().insert(used.clone());
    let response = next.call(req).await?;
    keep(&core, used, response).await
}

/// Keeps the answer of the route that ran under the claimed key `used` and passes it on:
/// the answer the handler stored with its write, else the response as it is (stored in
/// the journal on its own). A `5xx`, a `401` or a refusal by the token's budget is not
/// kept (§11, §9a, §25): the key is freed,
/// unless the write stalled, whose `settle_later` settles the key.
async fn keep(
    core: &Core,
    used: KeyUse,
    response: ServiceResponse<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let keys = core.keys();
    let status = response.status();
    let error = response
        .response()
        .error()
        .and_then(|e| e.as_error::<ApiError>());
    // A request refused by its token's budget did nothing: a retry runs anew (docs §25).
    let over_budget = error.is_some_and(|e| matches!(e, ApiError::OverBudget(_)));
    if status.is_server_error() || status == StatusCode::UNAUTHORIZED || over_budget {
        let stalled = error.is_some_and(|e| matches!(e, ApiError::StorageStalled(_)));
        if !stalled {
            keys.finish(used, None); // else the handler's `settle_later` finishes it
        }
        return Ok(response.map_into_boxed_body());
    }
    let stored = response.request().extensions_mut().remove::<KeptAnswer>();
    let (request, response) = response.into_parts();
    // The head keeps the error the response was built from, for the front middleware.
    let (head, body) = response.into_parts();
    let body = to_bytes(body).await.unwrap_or_default();
    let answer = match stored {
        Some(answer) => answer,
        None => {
            let header = |name| {
                head.headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(Box::from)
            };
            let answer = KeptAnswer {
                status: status.as_u16(),
                content_type: header(header::CONTENT_TYPE).unwrap_or_default(),
                location: header(header::LOCATION),
                etag: header(header::ETAG),
                body: body.to_vec(),
            };
            // Bounded like any wait for storage; the answer is kept in memory either way.
            if let Err(e) = core.keep_answer(&used, &answer).await {
                log::error!("answer of idempotency key not stored: {e}");
            }
            answer
        }
    };
    keys.finish(used, Some(answer));
    Ok(ServiceResponse::new(
        request,
        head.set_body(body).map_into_boxed_body(),
    ))
}

/// What settles the claimed key `used` of a write whose request gave up waiting
/// for a stalled storage (the middleware leaves the key claimed after a `StorageStalled`
/// answer): once the journal decides, it records the answer `answer` makes of the write's
/// result (as it was stored with the write), or frees the key if the write failed.
pub(crate) fn settle_later<T>(
    req: &HttpRequest,
    used: KeyUse,
    answer: impl FnOnce(T) -> Option<KeptAnswer> + 'static,
) -> impl FnOnce(Result<T, Failure>) + 'static {
    let core = super::core(req).ok().cloned();
    move |late| {
        if let Some(core) = core {
            core.keys().finish(used, late.ok().and_then(answer));
        }
    }
}

/// Whose keys a request uses: its user's, or the admin's.
fn owner(req: &ServiceRequest) -> Option<String> {
    let core = super::core(req.request()).ok()?;
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    if core.is_admin(token) {
        return Some(ADMIN.into());
    }
    core.authenticate(token).map(|c| c.account.id.to_string())
}

/// A payload that yields `body` again, for the handler.
fn replay(body: Bytes) -> Payload {
    let stream: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> =
        Box::pin(futures_util::stream::once(async move { Ok(body) }));
    Payload::from(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_1_to_255_printable_ascii_characters() {
        assert!(is_valid_key(b"a"));
        assert!(is_valid_key(&[b'~'; 255]));
        assert!(is_valid_key(b"order 42/retry"));
        assert!(!is_valid_key(b""));
        assert!(!is_valid_key(&[b'a'; 256]));
        assert!(!is_valid_key(b"tab\there"));
        assert!(!is_valid_key("é".as_bytes()));
    }
}
