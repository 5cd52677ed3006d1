//! Request handlers. Each extracts and checks its inputs, sends one message to a space actor
//! (or asks the users), and renders the reply. One set of handlers serves all five
//! collections; the kind comes from the path.

use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

use super::error::ApiError;
use super::extract::{collection_of, Admin, Caller, Collection, JsonObject, Params, RecordId};
use super::render;
use crate::actors::space::{GetRecord, ListRecords, Write};
use crate::actors::{Spaces, Users};
use crate::model::validate::{parse_changes, parse_user_name};
use crate::model::{Command, Kind, Mode, Op};
use crate::store::journal::Health;

/// `GET /healthz` → 200 `{"status":"ok"}`, or 503 `{"status":"degraded","reason":...}`
/// while the journal cannot write; no auth.
pub async fn healthz(health: Data<Health>) -> HttpResponse {
    match health.problem() {
        None => render::json(StatusCode::OK, &json!({"status": "ok"})),
        Some(reason) => render::json(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({"status": "degraded", "reason": reason}),
        ),
    }
}

/// `GET /api/v1/me` → 200 with the caller's id, name and spaces. 401.
pub async fn me(caller: Caller) -> HttpResponse {
    let user = &caller.0;
    render::json(
        StatusCode::OK,
        &json!({"data": {
            "userId": user.id,
            "name": user.name,
            "defaultSpaceId": user.default_space,
            "spaceIds": user.spaces,
        }}),
    )
}

/// `POST /api/v1/admin/users` with `{"name": "..."}` → 201 with the new user and its token,
/// shown only here. 400, 401, 403, 413, 415, 503 `storage_unavailable`.
pub async fn create_user(
    _: Admin,
    body: JsonObject,
    users: Data<Users>,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let name = parse_user_name(body.0)?;
    let (user, token) = users
        .create_user(&name, &spaces)
        .await
        .map_err(|e| ApiError::StorageUnavailable(e.to_string()))?;
    log::info!("created user '{}' ({})", user.name, user.id);
    Ok(render::json(
        StatusCode::CREATED,
        &json!({"data": {
            "userId": user.id,
            "name": user.name,
            "defaultSpaceId": user.default_space,
            "token": token,
        }}),
    ))
}

/// `GET /api/v1/{collection}` → 200 with one page. 400 (`invalid_parameter`,
/// `invalid_cursor`), 401, 404, 503.
pub async fn list(
    Collection(kind): Collection,
    caller: Caller,
    params: Params,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let query = params.list_query(kind)?;
    let space = caller.space(params.space_id(), None)?;
    let page = spaces.call(space, ListRecords { kind, query }).await??;
    Ok(render::page(kind, space, &page))
}

/// `POST /api/v1/{collection}` → 201 with the new record and `Location`. 400, 401, 404,
/// 409 `already_exists`, 413, 415, 422, 503.
pub async fn create(
    Collection(kind): Collection,
    caller: Caller,
    params: Params,
    body: JsonObject,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let mut changes = parse_changes(kind, Mode::Create, body.0)?;
    let body_space = changes.space_id.take();
    let space = caller.space(params.space_id(), body_space.as_deref())?;
    let id = changes
        .id
        .take()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string().into());
    let op = Op::Create(changes);
    let item = spaces
        .call(space, Write(Command { kind, id, op }))
        .await??;
    Ok(render::created(kind, space, &item))
}

/// `GET /api/v1/{collection}/{id}` → 200, deleted records included. 400, 401, 404, 503.
pub async fn get(
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let space = caller.space(params.space_id(), None)?;
    let item = spaces.call(space, GetRecord { kind, id }).await??;
    Ok(render::item(StatusCode::OK, kind, space, &item))
}

/// `PATCH /api/v1/{collection}/{id}` → 200. 400, 401, 404, 409 `record_deleted`, 413,
/// 415, 422, 503.
pub async fn update(
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    body: JsonObject,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let mut changes = parse_changes(kind, Mode::Update, body.0)?;
    let body_space = changes.space_id.take();
    let space = caller.space(params.space_id(), body_space.as_deref())?;
    write(kind, space, id, Op::Update(changes), &spaces).await
}

/// `DELETE /api/v1/{collection}/{id}` → 200 with the soft-deleted record. 400, 401, 404, 503.
pub async fn delete(
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let space = caller.space(params.space_id(), None)?;
    write(kind, space, id, Op::SetDeleted(true), &spaces).await
}

/// `POST /api/v1/{collection}/{id}/restore` → 200 with the restored record. 400, 401, 404, 503.
pub async fn restore(
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    spaces: Data<Spaces>,
) -> Result<HttpResponse, ApiError> {
    let space = caller.space(params.space_id(), None)?;
    write(kind, space, id, Op::SetDeleted(false), &spaces).await
}

/// Sends a write to the record `id` and renders it with 200.
async fn write(
    kind: Kind,
    space: &str,
    id: String,
    op: Op,
    spaces: &Spaces,
) -> Result<HttpResponse, ApiError> {
    let command = Command {
        kind,
        id: id.into(),
        op,
    };
    let item = spaces.call(space, Write(command)).await??;
    Ok(render::item(StatusCode::OK, kind, space, &item))
}

/// Any path no route matches → 404.
pub async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!("no such path: {}", req.path())))
}

/// A known path with a method it does not allow → 405 with `Allow`; 404 when the path names
/// an unknown collection.
pub fn method_not_allowed(req: &HttpRequest, allow: &'static str) -> ApiError {
    if req.match_info().get("collection").is_some() {
        if let Err(e) = collection_of(req) {
            return e;
        }
    }
    ApiError::MethodNotAllowed(allow)
}
