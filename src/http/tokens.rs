//! Scoped tokens (docs §14): `/api/v1/tokens`, and a user's new primary token from the
//! admin, `/api/v1/admin/users/{userId}/token`.
//!
//! Only a primary token manages tokens ([`reach`] with [`Action::Account`]). A
//! secret is shown once, in the answer to its creation, and stored only as a hash: the
//! answer kept for an idempotency key goes without it.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};

use super::error::ApiError;
use super::extract::{Admin, JsonObject, KeyClaim, UserCaller};
use super::handlers::change;
use super::openapi::problems::*;
use super::spaces::segment;
use super::stream::Streams;
use super::{dto, render};
use crate::actors::directory::Answer;
use crate::core::reach;
use crate::core::Core;
use crate::edge::budget;
use crate::model::access::Action;
use crate::model::user::{hash_token, new_token};
use crate::model::validate::parse_token;
use crate::model::{Change, DirectoryState, RateLimit, Token};

/// Create a scoped token; its secret is shown only here
///
/// The answer has the secret in `token`, and only this answer: a replay goes without it.
/// 403: a scoped or the admin token. 404: a space of `spaceIds` the user does not belong
/// to. 409 limit_reached: as many live scoped tokens as a user may have.
#[utoipa::path(
    post,
    path = "/api/v1/tokens",
    operation_id = "create_token",
    tag = "tokens",
    security(("bearer" = [])),
    params(dto::KeyHeader),
    request_body = dto::TokenCreate,
    responses(
        (status = 201, description = "The token, with its secret in `token` (not in a replay)", body = dto::TokenEnvelope, headers(("Location" = String, description = "The new space's or token's path."))),
        DirectoryBodyWrites,
    ),
)]
pub(crate) async fn create(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    reach(&caller, None, Action::Account)?;
    let now = chrono::Utc::now().timestamp_millis();
    let new = parse_token(body.0, now, budget::server(&req))?;
    let new_limit = new.rate_limit;
    let secret = new_token();
    let token = Token {
        id: uuid::Uuid::new_v4().to_string().into(),
        user: caller.account.id.clone(),
        name: new.name.into(),
        access: new.access,
        spaces: new.spaces,
        expires_at: new.expires_at,
        created_at: now,
        last_used_at: None,
        hash: hash_token(&secret),
    };
    let location = format!("/api/v1/tokens/{}", token.id);
    let answer = {
        let token = token.clone();
        move |_: &DirectoryState| Answer {
            shown: render::data(
                StatusCode::CREATED,
                &render::token(&token, new_limit, Some(&secret)),
                Some(location.clone()),
            ),
            kept: render::data(
                StatusCode::CREATED,
                &render::token(&token, new_limit, None),
                Some(location),
            ),
        }
    };
    let created = match new_limit {
        Some(limit) => Change::TokenCreatedLimited(token, limit),
        None => Change::TokenCreated(token),
    };
    change(&req, &core, created, key, answer, |_: &Change| {}).await
}

/// The caller's scoped tokens, without secrets
///
/// Live ones, ordered by `createdAt` then `tokenId`. 403: a scoped or the admin token.
#[utoipa::path(
    get,
    path = "/api/v1/tokens",
    operation_id = "list_tokens",
    tag = "tokens",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The tokens", body = dto::TokenList),
        UserReads,
    ),
)]
pub(crate) async fn list(
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    reach(&caller, None, Action::Account)?;
    let data: Vec<_> = core
        .directory()
        .tokens_of(&caller.account.id)
        .into_iter()
        .map(|live| render::token(&live.current(), live.rate_limit, None))
        .collect();
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}

/// The caller's token named in the path, as it is now; 404 for another's or a revoked one.
fn named_token(
    req: &HttpRequest,
    caller_id: &str,
    core: &Core,
) -> Result<(Token, Option<RateLimit>), ApiError> {
    let id = segment(req, "tokenId");
    core.directory()
        .token(caller_id, id)
        .map(|live| (live.current(), live.rate_limit))
        .ok_or_else(|| ApiError::NotFound(format!("token '{id}' not found")))
}

/// One of the caller's scoped tokens, without its secret
///
/// 404: another user's, or a revoked one. 403: a scoped or the admin token.
#[utoipa::path(
    get,
    path = "/api/v1/tokens/{tokenId}",
    operation_id = "get_token",
    tag = "tokens",
    security(("bearer" = [])),
    params(dto::TokenIdPath),
    responses(
        (status = 200, description = "The token", body = dto::TokenEnvelope),
        UserReads,
    ),
)]
pub(crate) async fn get(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    reach(&caller, None, Action::Account)?;
    let (token, limit) = named_token(&req, &caller.account.id, &core)?;
    Ok(render::kept(&render::data(
        StatusCode::OK,
        &render::token(&token, limit, None),
        None,
    )))
}

/// Revoke a scoped token
///
/// It is refused (401) from the next request on, and its streams end. 403: a scoped or the
/// admin token. 404: another user's, or a revoked one.
#[utoipa::path(
    delete,
    path = "/api/v1/tokens/{tokenId}",
    operation_id = "revoke_token",
    tag = "tokens",
    security(("bearer" = [])),
    params(dto::TokenIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The token as it was", body = dto::TokenEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn revoke(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    core: Data<Core>,
    streams: Data<Streams>,
) -> Result<HttpResponse, ApiError> {
    reach(&caller, None, Action::Account)?;
    let (token, limit) = named_token(&req, &caller.account.id, &core)?;
    let id = token.id.clone();
    let shown = render::data(StatusCode::OK, &render::token(&token, limit, None), None);
    let answer = move |_: &DirectoryState| Answer {
        shown: shown.clone(),
        kept: shown,
    };
    let then = move |_: &Change| streams.end(|_, _, used| used == Some(&*id));
    let revoked = Change::TokenRevoked {
        token: token.id.clone(),
    };
    change(&req, &core, revoked, key, answer, then).await
}

/// A new primary token for a user (admin token)
///
/// The old primary token is refused from the next request on, and the streams it opened
/// end. 403: a user's token. 404: no such user.
#[utoipa::path(
    post,
    path = "/api/v1/admin/users/{userId}/token",
    operation_id = "reset_primary_token",
    tag = "users",
    security(("bearer" = [])),
    params(dto::UserIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The user; its new token is shown only here", body = dto::CreatedUserEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn reset_primary(
    req: HttpRequest,
    _: Admin,
    key: KeyClaim,
    core: Data<Core>,
    streams: Data<Streams>,
) -> Result<HttpResponse, ApiError> {
    let user: Box<str> = segment(&req, "userId").into();
    let secret = new_token();
    let reset = Change::PrimaryReset {
        user: user.clone(),
        hash: hash_token(&secret),
    };
    let answer = {
        let user = user.clone();
        move |state: &DirectoryState| {
            let account = state
                .account(&user)
                .expect("checked before the answer is made");
            render::user_answer(StatusCode::OK, account, &secret)
        }
    };
    let then = move |_: &Change| streams.end(|reader, _, used| *reader == *user && used.is_none());
    change(&req, &core, reset, key, answer, then).await
}
