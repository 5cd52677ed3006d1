//! Webhooks (docs §19): `/api/v1/webhooks` and its items, their secrets and delivery
//! logs. The sender that delivers them is [`crate::webhooks`].
//!
//! Every route is for the space's owner, through the primary token or a `write` token that
//! reaches the space ([`reach`] with [`Action::Webhooks`]); a webhook of a space
//! the caller does not reach is `404` as the space is. A secret is shown only in the
//! answers to a creation and a rotation: the answer kept for an idempotency key goes
//! without it.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};

use super::error::ApiError;
use super::extract::{space_of, JsonObject, KeyClaim, Params, UserCaller};
use super::handlers;
use super::openapi::problems::*;
use super::spaces::segment;
use super::{dto, render};
use crate::actors::directory::Answer;
use crate::core::reach;
use crate::core::Core;
use crate::model::access::{Action, Denied};
use crate::model::webhook::{new_secret, parse_webhook, pending, Position, Webhook};
use crate::model::{Caller, Change, DirectoryState};

/// The webhook the path names, once `caller` may manage its space's webhooks.
pub(crate) fn named(req: &HttpRequest, caller: &Caller, core: &Core) -> Result<Webhook, ApiError> {
    let id = segment(req, "webhookId");
    let not_found = || ApiError::NotFound(format!("webhook '{id}' not found"));
    let webhook = core
        .directory()
        .webhook(id)
        .cloned()
        .ok_or_else(not_found)?;
    match reach(caller, Some(&webhook.space), Action::Webhooks) {
        Err(Denied::Hidden) => Err(not_found()),
        decided => decided.map(|_| webhook).map_err(ApiError::from),
    }
}

/// [`shown`] of one webhook.
async fn shown_one(core: &Core, webhook: Webhook) -> Result<dto::Webhook, ApiError> {
    let mut shown = shown(core, vec![webhook]).await?;
    Ok(shown.remove(0))
}

/// `webhooks`, all of one space, as their objects, each with its position and pending
/// events now.
async fn shown(core: &Core, webhooks: Vec<Webhook>) -> Result<Vec<dto::Webhook>, ApiError> {
    let Some(space) = webhooks.first().map(|w| w.space.clone()) else {
        return Ok(Vec::new());
    };
    let at: Vec<(Webhook, Position)> = webhooks
        .into_iter()
        .map(|w| {
            let position = core.deliveries().position(&w);
            (w, position)
        })
        .collect();
    let counted = core
        .read(&space, move |s| {
            at.into_iter()
                .map(|(w, p)| {
                    let count = pending(s, &w, &p);
                    render::webhook(&w, &p, count, None)
                })
                .collect()
        })
        .await?;
    Ok(counted)
}

/// Makes `change` and answers `status` with `webhook`; the answer kept for the request's
/// idempotency key goes without the secret.
async fn changed(
    req: &HttpRequest,
    core: &Core,
    key: KeyClaim,
    change: Change,
    answer: (StatusCode, dto::Webhook, Option<String>),
    then: impl FnOnce(&Change) + 'static,
) -> Result<HttpResponse, ApiError> {
    let (status, webhook, location) = answer;
    let kept = dto::Webhook {
        secret: None,
        ..webhook.clone()
    };
    let answer = move |_: &DirectoryState| Answer {
        shown: render::data(status, &webhook, location.clone()),
        kept: render::data(status, &kept, location),
    };
    handlers::change(req, core, change, key, answer, then).await
}

/// Create a webhook; its secret is shown only here
///
/// The space is the query's `spaceId`, else the caller's default space. Its events are the
/// space's changes from now on. 400: a bad body. 403: not the owner, a read-only token or
/// the admin token. 404: a space the caller does not reach. 409 limit_reached: 10 webhooks
/// in the space. 422 invalid_webhook_url: the host resolves to a refused address.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks",
    operation_id = "create_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::KeyHeader),
    request_body = dto::WebhookCreate,
    responses(
        (status = 201, description = "The webhook, with its secret", body = dto::WebhookEnvelope, headers(("Location" = String, description = "The webhook's path."))),
        DirectoryBodyWrites,
    ),
)]
pub(crate) async fn create(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    params: Params,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let space = space_of(&caller, params.space_id(), None, Action::Webhooks)?;
    let fields = parse_webhook(body.0, false)?;
    let url = fields.url.expect("parse_webhook requires url on creation");
    if let Some(why) = core.deliveries().refuses(&url).await {
        return Err(ApiError::InvalidWebhookUrl(format!("url: {why}")));
    }
    let start = core.version(space).await?;
    let secret = new_secret();
    let webhook = Webhook {
        id: uuid::Uuid::new_v4().to_string().into(),
        space: space.into(),
        url,
        events: fields.events.unwrap_or_else(|| vec!["*".into()]),
        description: fields.description.flatten(),
        active: true,
        disabled_reason: None,
        created_at: chrono::Utc::now().timestamp_millis(),
        start,
        position: Position {
            version: start,
            key: None,
        },
        secrets: vec![crate::model::webhook::Secret {
            key: secret.clone(),
            until: None,
        }],
    };
    let location = format!("/api/v1/webhooks/{}", webhook.id);
    let shown = render::webhook(&webhook, &webhook.position, 0, Some(&secret));
    let change = Change::WebhookCreated(Box::new(webhook));
    let answer = (StatusCode::CREATED, shown, Some(location));
    changed(&req, &core, key, change, answer, |_: &Change| {}).await
}

/// A space's webhooks, without secrets
///
/// Ordered by `webhookId`. 403: not the owner, a read-only token or the admin token. 404: a
/// space the caller does not reach.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks",
    operation_id = "list_webhooks",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::SpaceParam),
    responses(
        (status = 200, description = "The webhooks", body = dto::WebhookList),
        UserReads,
    ),
)]
pub(crate) async fn list(
    UserCaller(caller): UserCaller,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let space = space_of(&caller, params.space_id(), None, Action::Webhooks)?;
    let webhooks: Vec<Webhook> = core.directory().webhooks_of(space).cloned().collect();
    let data = shown(&core, webhooks).await?;
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}

/// One webhook, without its secret
///
/// 403: not the owner of its space, a read-only token or the admin token. 404: no such
/// webhook in a space the caller reaches.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{webhookId}",
    operation_id = "get_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::WebhookIdPath),
    responses(
        (status = 200, description = "The webhook", body = dto::WebhookEnvelope),
        UserReads,
    ),
)]
pub(crate) async fn get(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let webhook = named(&req, &caller, &core)?;
    let data = shown_one(&core, webhook).await?;
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}

/// Change a webhook
///
/// `url` is checked as at creation; `events` applies to what is not yet delivered;
/// `active: false` keeps the position (changes made meanwhile are delivered after `active:
/// true`, which also clears `disabledReason`). 400: a bad body. 403, 404: as for a GET.
/// 422 invalid_webhook_url.
#[utoipa::path(
    patch,
    path = "/api/v1/webhooks/{webhookId}",
    operation_id = "update_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::WebhookIdPath, dto::KeyHeader),
    request_body = dto::WebhookUpdate,
    responses(
        (status = 200, description = "The webhook", body = dto::WebhookEnvelope),
        DirectoryBodyWrites,
    ),
)]
pub(crate) async fn update(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    named(&req, &caller, &core)?;
    let fields = parse_webhook(body.0, true)?;
    if let Some(url) = &fields.url {
        if let Some(why) = core.deliveries().refuses(url).await {
            return Err(ApiError::InvalidWebhookUrl(format!("url: {why}")));
        }
    }
    // Read and changed in one turn: a rotation at the same moment is not overwritten.
    let _editing = core.editing(segment(&req, "webhookId")).await;
    let mut webhook = named(&req, &caller, &core)?;
    if let Some(url) = fields.url {
        webhook.url = url;
    }
    if let Some(events) = fields.events {
        webhook.events = events;
    }
    if let Some(description) = fields.description {
        webhook.description = description;
    }
    if let Some(active) = fields.active {
        webhook.active = active;
        if active {
            webhook.disabled_reason = None;
        }
    }
    let data = shown_one(&core, webhook.clone()).await?;
    let change = Change::WebhookSet(Box::new(webhook));
    changed(
        &req,
        &core,
        key,
        change,
        (StatusCode::OK, data, None),
        |_: &Change| {},
    )
    .await
}

/// Delete a webhook
///
/// Its deliveries stop; the answer is the webhook as it was. 403, 404: as for a GET.
#[utoipa::path(
    delete,
    path = "/api/v1/webhooks/{webhookId}",
    operation_id = "delete_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::WebhookIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The webhook as it was", body = dto::WebhookEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn delete(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let webhook = named(&req, &caller, &core)?;
    let data = shown_one(&core, webhook.clone()).await?;
    let deleted = Change::WebhookDeleted {
        webhook: webhook.id.clone(),
    };
    let sender = core.clone();
    let then = move |_: &Change| sender.deliveries().forget(&webhook.id);
    changed(
        &req,
        &core,
        key,
        deleted,
        (StatusCode::OK, data, None),
        then,
    )
    .await
}

/// Rotate a webhook's secret; the new one is shown only here
///
/// Deliveries of the next 24 hours carry signatures of both the new and the previous
/// secret. 403, 404: as for a GET.
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{webhookId}/secret",
    operation_id = "rotate_webhook_secret",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::WebhookIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The webhook, with its new secret", body = dto::WebhookEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn rotate(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    // Read and changed in one turn: a PATCH at the same moment does not undo the rotation.
    let _editing = core.editing(segment(&req, "webhookId")).await;
    let webhook = named(&req, &caller, &core)?;
    let secret = new_secret();
    let rotated = webhook.rotated(secret.clone(), chrono::Utc::now().timestamp_millis());
    let mut data = shown_one(&core, rotated.clone()).await?;
    data.secret = Some(secret);
    let change = Change::WebhookSet(Box::new(rotated));
    changed(
        &req,
        &core,
        key,
        change,
        (StatusCode::OK, data, None),
        |_: &Change| {},
    )
    .await
}

/// A webhook's last 100 delivery attempts, newest first
///
/// Kept in memory: a restart empties it. 403, 404: as for a GET.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{webhookId}/deliveries",
    operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    security(("bearer" = [])),
    params(dto::WebhookIdPath),
    responses(
        (status = 200, description = "The attempts", body = dto::DeliveryList),
        UserReads,
    ),
)]
pub(crate) async fn deliveries(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let webhook = named(&req, &caller, &core)?;
    let data: Vec<dto::Delivery> = core
        .deliveries()
        .log(&webhook.id)
        .iter()
        .map(render::delivery_attempt)
        .collect();
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}
