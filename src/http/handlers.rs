//! Request handlers. Each extracts and checks its inputs, sends one message to a space actor
//! (or asks the users), and renders the reply. One set of handlers serves all five
//! collections; the kind comes from the path.

use super::dto::{self, Backup, HealthStatus, Me, NodeRole, PrimaryHealth};
use crate::core::Core;
use crate::threads::heavy;
use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};

use super::error::ApiError;
use super::extract::{
    kept_with_write, none_match, space_of, Admin, Collection, JsonObject, KeyClaim, Params,
    Preconditions, RecordId, Target,
};
use super::openapi::problems::*;
use super::{idempotency, render};
use crate::actors::directory::{Answer, Changed};
use crate::actors::space::{Render, WriteResult};
use crate::model::access::Action;
use crate::model::activity::{Actor, Via};
use crate::model::kept::KeptAnswer;
use crate::model::user::new_token;
use crate::model::validate::{parse_backup_target, parse_changes, parse_user_name};
use crate::model::{Account, Caller, Change, Command, DirectoryState, Mode, Op, SpaceError};

/// Liveness and storage health (no auth)
///
/// `ok`, or `degraded` with its `reason` while the journal cannot write; with `--nats` also
/// `role`, `node`, `appliedSeq` and `lagSeq` (§16).
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    tag = "service",
    responses(
        (status = 200, description = "ok", body = dto::Health),
        (
            status = 503,
            description = "degraded (JSON), or shutting down (problem+json)",
            content(
                (dto::Health = "application/json"),
                (dto::Problem = "application/problem+json"),
            ),
            headers(("Retry-After" = String, description = "Seconds to wait before trying again.")),
        ),
    ),
)]
pub(crate) async fn healthz(core: Data<Core>) -> HttpResponse {
    let gate = core.gate();
    let problem = core.storage_problem();
    let status = match &problem {
        None => StatusCode::OK,
        Some(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    let mut body = dto::Health {
        applied_seq: None,
        lag_seq: None,
        node: None,
        reason: None,
        role: None,
        status: match &problem {
            None => HealthStatus::Ok,
            Some(_) => HealthStatus::Degraded,
        },
    };
    body.reason = problem;
    let role = gate.role();
    if let Some(role) = &role {
        let (applied, lag) = role.sequences();
        body.role = Some(if role.is_primary() {
            NodeRole::Primary
        } else {
            NodeRole::Standby
        });
        body.node = Some(role.node());
        body.applied_seq = Some(applied);
        body.lag_seq = Some(lag);
    }
    render::json(status, &body)
}

/// 200 on the primary (or without --nats), 503 on a standby: the proxy's check (no auth)
///
/// What the proxy in front of a replicated pair checks (§16).
#[utoipa::path(
    get,
    path = "/healthz/primary",
    operation_id = "healthzPrimary",
    tag = "service",
    responses(
        (status = 200, description = "primary", body = dto::PrimaryHealth),
        (
            status = 503,
            description = "a standby (JSON), or shutting down (problem+json)",
            content(
                (dto::PrimaryHealth = "application/json"),
                (dto::Problem = "application/problem+json"),
            ),
            headers(("Retry-After" = String, description = "Seconds to wait before trying again.")),
        ),
    ),
)]
pub(crate) async fn healthz_primary(core: Data<Core>) -> HttpResponse {
    let gate = core.gate();
    match gate.role() {
        Some(role) if !role.is_primary() => render::json(
            StatusCode::SERVICE_UNAVAILABLE,
            &PrimaryHealth {
                node: Some(role.node()),
                status: NodeRole::Standby,
            },
        ),
        _ => render::json(
            StatusCode::OK,
            &PrimaryHealth {
                node: None,
                status: NodeRole::Primary,
            },
        ),
    }
}

/// The caller and its spaces
///
/// `spaceIds`: every space the caller's token reaches (docs §13, §14), ordered as
/// `GET /api/v1/spaces`: the user's spaces for its primary token, those of its `spaceIds`
/// for a scoped one. The admin token is no user → 401.
#[utoipa::path(
    get,
    path = "/api/v1/me",
    operation_id = "me",
    tag = "users",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = dto::MeEnvelope),
        Reads,
    ),
)]
pub(crate) async fn me(caller: Caller) -> HttpResponse {
    let user = &caller.account;
    let me = Me {
        default_space_id: &user.default_space,
        name: &user.name,
        space_ids: caller.reached().map(|(id, _)| id).collect(),
        user_id: &user.id,
    };
    render::json(StatusCode::OK, &dto::Envelope { data: me })
}

/// Create a user and its default space (admin token)
///
/// The answer shows the user's token, and only this answer: a replay goes without it.
#[utoipa::path(
    post,
    path = "/api/v1/admin/users",
    operation_id = "create_user",
    tag = "users",
    security(("bearer" = [])),
    params(dto::KeyHeader),
    request_body = dto::UserCreate,
    responses(
        (status = 201, description = "The user; its token is shown only here", body = dto::CreatedUserEnvelope),
        Writes,
    ),
)]
pub(crate) async fn create_user(
    req: HttpRequest,
    _: Admin,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let name = parse_user_name(body.0)?;
    let token = new_token();
    let account = Account::new(&name, &token, chrono::Utc::now().timestamp_millis());
    let answer = {
        let account = account.clone();
        move |_: &DirectoryState| render::user_answer(StatusCode::CREATED, &account, &token)
    };
    let then = move |change: &Change| {
        if let Change::UserCreated(account) = change {
            log::info!("created user '{}' ({})", account.name, account.id);
        }
    };
    change(&req, &core, Change::UserCreated(account), key, answer, then).await
}

/// Makes one directory change and answers it (see [`Directory::change`]); a claimed
/// idempotency key goes into the change's journal entry with the answer kept for it.
pub(super) async fn change(
    req: &HttpRequest,
    core: &Core,
    change: Change,
    key: KeyClaim,
    answer: impl FnOnce(&DirectoryState) -> Answer + 'static,
    then: impl FnOnce(&Change) + 'static,
) -> Result<HttpResponse, ApiError> {
    let keyed = key.0.is_some();
    let late = key.0.clone().map(|used| {
        idempotency::settle_later(req, used, |changed: Changed| changed.ok().map(|a| a.kept))
    });
    let answer = core
        .change(change, key.0, answer, then, move |changed| {
            if let Some(settle) = late {
                settle(changed)
            }
        })
        .await??;
    if keyed {
        kept_with_write(req, answer.kept.clone());
    }
    Ok(render::kept(&answer.shown))
}

/// Copy the data directory consistently while serving (admin token)
///
/// The copy is taken on a blocking thread while the server goes on serving; the answer says
/// what it holds. 409 `already_exists`: the directory is not empty; 500: the copy failed
/// (the cause is logged).
#[utoipa::path(
    post,
    path = "/api/v1/admin/backup",
    operation_id = "backup",
    tag = "admin",
    security(("bearer" = [])),
    params(dto::KeyHeader),
    request_body = dto::BackupRequest,
    responses(
        (status = 200, description = "What the copy holds", body = dto::BackupEnvelope),
        Writes,
    ),
)]
pub(crate) async fn backup(
    _: Admin,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let to = parse_backup_target(body.0)?;
    let summary = core.backup(to.clone()).await?;
    log::info!("backed up to {}: {summary:?}", to.display());
    let data = Backup {
        bytes: summary.bytes,
        spaces: summary.spaces,
        to,
        users: summary.users,
    };
    Ok(render::json(StatusCode::OK, &dto::Envelope { data }))
}

/// `GET /api/v1/{collection}`: one page and the space's `ETag`; 304 when `If-None-Match`
/// matches it. One handler serves the five kinds, so the document generates its operation
/// and statuses from the kind table (`openapi::KindTable`).
pub(crate) async fn list(
    req: HttpRequest,
    Collection(kind): Collection,
    caller: Caller,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let query = params.list_query(kind, core.plan())?;
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let page = core.read(space, move |s| s.list(kind, &query)).await??;
    if none_match(&req, page.version) {
        return Ok(render::not_modified(page.version));
    }
    Ok(render::page(kind, space, &page))
}

/// `POST /api/v1/{collection}`: the new record, `Location` and `ETag` (operation and
/// statuses: `openapi::KindTable`).
pub(crate) async fn create(
    req: HttpRequest,
    Collection(kind): Collection,
    caller: Caller,
    params: Params,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let mut changes = parse_changes(kind, Mode::Create, body.0)?;
    let body_space = changes.space_id.take();
    let space = space_of(
        &caller,
        params.space_id(),
        body_space.as_deref(),
        Action::Write,
    )?;
    let id = changes
        .id
        .take()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string().into());
    let command = Command {
        kind,
        id,
        op: Op::Create(changes),
        if_match: None,
    };
    write(&req, &caller, space, command, key, &core).await
}

/// `GET /api/v1/{collection}/{id}`: the record with `ETag`, deleted records included; 304
/// when `If-None-Match` matches (operation and statuses: `openapi::KindTable`).
pub(crate) async fn get(
    req: HttpRequest,
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let item = core.read(space, move |s| s.get(kind, &id)).await??;
    if none_match(&req, item.record.version) {
        return Ok(render::not_modified(item.record.version));
    }
    Ok(render::item(kind, space, &item))
}

/// The occurrences of a task's series
///
/// docs §18: the occurrences of the task's series in [`from`, `to`), in order, at most
/// `limit` of them, `hasMore` when more follow before `to`; deleted tasks too. Readable by
/// whoever may read the task.
#[utoipa::path(
    get,
    path = "/api/v1/tasks/{todoId}/occurrences",
    operation_id = "listTaskOccurrences",
    tag = "tasks",
    security(("bearer" = [])),
    params(
        ("todoId" = String, Path, description = "The task."),
        dto::SpaceParam,
        dto::OccurrenceParams,
    ),
    responses(
        (status = 200, description = "The occurrences", body = dto::OccurrencePage),
        Reads,
    ),
)]
pub(crate) async fn occurrences(
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let query = params.occurrence_query()?;
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let now = chrono::Utc::now().timestamp_millis();
    let (listed, has_more, space_version) = core
        .read_heavy(&caller.account.id, space, move |s| {
            s.occurrences(kind, &id, &query, now)
        })
        .await??;
    let data = listed
        .into_iter()
        .map(|o| dto::Occurrence {
            date_due: dto::Stamp(o.due),
            date_start: o.start.map(dto::Stamp),
        })
        .collect();
    let page = dto::OccurrencePage {
        data,
        space_version,
        has_more,
    };
    Ok(render::json(StatusCode::OK, &page))
}

/// `PATCH /api/v1/{collection}/{id}`: the changed record with `ETag` (operation and
/// statuses: `openapi::KindTable`).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn update(
    req: HttpRequest,
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    Preconditions(if_match): Preconditions,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let mut changes = parse_changes(kind, Mode::Update, body.0)?;
    let body_space = changes.space_id.take();
    let space = space_of(
        &caller,
        params.space_id(),
        body_space.as_deref(),
        Action::Write,
    )?;
    let command = Command {
        kind,
        id: id.into(),
        op: Op::Update(changes),
        if_match,
    };
    write(&req, &caller, space, command, key, &core).await
}

/// `DELETE /api/v1/{collection}/{id}`: the soft-deleted record and `ETag` (operation and
/// statuses: `openapi::KindTable`).
pub(crate) async fn delete(
    req: HttpRequest,
    target: Target,
    preconditions: Preconditions,
    key: KeyClaim,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    set_deleted(req, target, preconditions, key, core, true).await
}

/// `POST /api/v1/{collection}/{id}/restore`: the restored record and `ETag` (operation and
/// statuses: `openapi::KindTable`).
pub(crate) async fn restore(
    req: HttpRequest,
    target: Target,
    preconditions: Preconditions,
    key: KeyClaim,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    set_deleted(req, target, preconditions, key, core, false).await
}

async fn set_deleted(
    req: HttpRequest,
    Target {
        kind,
        caller,
        id,
        params,
    }: Target,
    Preconditions(if_match): Preconditions,
    key: KeyClaim,
    core: Data<Core>,
    deleted: bool,
) -> Result<HttpResponse, ApiError> {
    let space = space_of(&caller, params.space_id(), None, Action::Write)?;
    let command = Command {
        kind,
        id: id.into(),
        op: Op::SetDeleted(deleted),
        if_match,
    };
    write(&req, &caller, space, command, key, &core).await
}

/// Sends one command as a write and answers with the record; a claimed idempotency key
/// goes into the write's journal entry with that same answer.
async fn write(
    req: &HttpRequest,
    caller: &Caller,
    space: &str,
    command: Command,
    key: KeyClaim,
    core: &Core,
) -> Result<HttpResponse, ApiError> {
    let answer = send_write(
        req,
        core,
        caller,
        space,
        (vec![command], Via::Api),
        key,
        render::write_answer,
    )
    .await?
    .map_err(|(_, e)| e)?;
    Ok(render::kept(&answer))
}

/// Bodies bigger than this are read, and their answers rendered, on a blocking thread
/// instead of the HTTP worker: a megabyte of JSON takes milliseconds either way, which the
/// other connections of the worker, other users' among them, would wait (docs §21).
pub(super) const OFF_WORKER_BYTES: usize = 64 * 1024;

/// Whether `req` came with a body bigger than [`OFF_WORKER_BYTES`].
pub(super) fn big_body(req: &HttpRequest) -> bool {
    req.headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|len| len > OFF_WORKER_BYTES)
}

/// Sends `commands` as one write of `space` and returns its answer as `render` makes it,
/// or which command failed and why. A claimed idempotency key goes into the write's
/// journal entry with that answer; when the storage stalls, the key is settled by the
/// write's outcome once the journal decides it (see [`idempotency::settle_later`]).
pub(super) async fn send_write(
    req: &HttpRequest,
    core: &Core,
    caller: &Caller,
    space: &str,
    (commands, via): (Vec<Command>, Via),
    key: KeyClaim,
    render: Render,
) -> Result<Result<KeptAnswer, (usize, SpaceError)>, ApiError> {
    let keyed = key.0.is_some();
    let late = key.0.clone().map(|used| {
        let space = space.to_string();
        idempotency::settle_later(req, used, move |written: WriteResult| {
            written.ok().map(|outcome| render(&outcome, &space))
        })
    });
    let key = key.0.map(|k| (k, render));
    let answer = core
        .write(
            space,
            commands,
            Actor::of(caller, via),
            key,
            move |written| {
                if let Some(settle) = late {
                    settle(written)
                }
            },
        )
        .await?;
    let answer = match answer {
        Ok(outcome) if big_body(req) => {
            let space = space.to_string();
            Ok(heavy::run(&caller.account.id, move || render(&outcome, &space)).await?)
        }
        other => other.map(|outcome| render(&outcome, space)),
    };
    if let (true, Ok(answer)) = (keyed, &answer) {
        kept_with_write(req, answer.clone());
    }
    Ok(answer)
}

/// Every record changed after a version (the change feed)
///
/// docs §12: the records changed after version `since`, in version order, a page at a
/// time (`nextSince`, `hasMore`).
#[utoipa::path(
    get,
    path = "/api/v1/changes",
    operation_id = "changes",
    tag = "sync",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::SinceParam, dto::FeedLimitParam),
    responses(
        (status = 200, description = "A page of changes", body = ref("#/components/schemas/ChangePage")),
        Reads,
    ),
)]
pub(crate) async fn changes(
    caller: Caller,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let since = params.since(None)?;
    let limit = params.feed_limit()?;
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let page = core.read(space, move |s| s.changes(since, limit)).await??;
    Ok(render::feed(space, &page))
}

/// Any path no route matches → 404.
pub(crate) async fn not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!("no such path: {}", req.path())))
}

/// A known path with a method it does not allow → 405 with `Allow`.
pub(crate) fn method_not_allowed(allow: &'static str) -> ApiError {
    ApiError::MethodNotAllowed(allow)
}
