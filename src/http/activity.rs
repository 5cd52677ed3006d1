//! Activity and undo (docs §23): `GET /api/v1/activity`, each kind's
//! `GET /api/v1/{kind}/{id}/activity`, and `POST /api/v1/activity/{version}/revert`.
//! The entries are read from the space's log through the core; a revert is a write.

use super::dto;
use super::error::ApiError;
use super::extract::{space_of, Collection, Params, RecordId};
use super::openapi::problems::{Reads, Reverts};
use super::render;
use crate::core::Core;
use crate::model::access::Action;
use crate::model::activity::{Actor, Via};
use crate::model::limits::{ACTIVITY_LIMIT_DEFAULT, ACTIVITY_LIMIT_MAX, MAX_SAFE_INTEGER};
use crate::model::{Caller, Kind};
use crate::store::activity::{Page, Query};
use crate::wire::{Stamp, ValueJson};
use actix_web::web::{self, Data};
use actix_web::HttpResponse;

/// The query of a page of activity from `params` (docs §23).
fn query(params: &Params) -> Result<Query, ApiError> {
    let number = |name: &str| -> Result<Option<u64>, ApiError> {
        params
            .get(name)
            .map(|raw| {
                // Versions are JSON-safe integers, as every version counter is.
                raw.parse::<u64>()
                    .ok()
                    .filter(|n| *n <= MAX_SAFE_INTEGER)
                    .ok_or_else(|| {
                        ApiError::InvalidParameter(format!(
                            "{name} must be an integer from 0 to {MAX_SAFE_INTEGER}, not '{raw}'"
                        ))
                    })
            })
            .transpose()
    };
    let limit = match params.get("limit") {
        None => ACTIVITY_LIMIT_DEFAULT,
        Some(raw) => raw
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=ACTIVITY_LIMIT_MAX).contains(n))
            .ok_or_else(|| {
                ApiError::InvalidParameter(format!(
                    "limit must be an integer from 1 to {ACTIVITY_LIMIT_MAX}, not '{raw}'"
                ))
            })?,
    };
    let kind =
        match params.get("kind") {
            None => None,
            Some(raw) => Some(Kind::ALL.into_iter().find(|k| k.noun() == raw).ok_or_else(
                || {
                    let kinds = Kind::ALL.map(Kind::noun).join(", ");
                    ApiError::InvalidParameter(format!("kind must be one of {kinds}, not '{raw}'"))
                },
            )?),
        };
    Ok(Query {
        before: number("before")?,
        since: number("since")?.unwrap_or(0),
        limit,
        kind,
        id: params.get("id").map(str::to_string),
        user_id: params.get("userId").map(str::to_string),
        head: None,
    })
}

/// A page of a space's activity
///
/// docs §23: the activity entries of the space, newest first, `limit` at a time (a page
/// finishes the version it started), filtered by `kind`, `id` and `userId`. `200`; `400
/// invalid_parameter` for a bad parameter; readable by every member and token that reaches
/// the space.
#[utoipa::path(
    get,
    path = "/api/v1/activity",
    operation_id = "list_activity",
    tag = "activity",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::ActivityParams),
    responses(
        (status = 200, description = "A page of entries, newest first", body = dto::ActivityPage),
        Reads,
    ),
)]
pub(crate) async fn list(
    caller: Caller,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let query = query(&params)?;
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let page = core.activity(&caller.account.id, space, query).await?;
    Ok(render(&page))
}

/// A page of one record's activity
///
/// docs §23: `GET /api/v1/activity` with `kind` and `id` set to the record's; `404` for a
/// record that never existed.
pub(crate) async fn of_record(
    Collection(kind): Collection,
    caller: Caller,
    RecordId(id): RecordId,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let mut query = query(&params)?;
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let named = id.clone();
    core.read(space, move |s| s.get(kind, &named).map(drop))
        .await??;
    query.kind = Some(kind);
    query.id = Some(id);
    let page = core.activity(&caller.account.id, space, query).await?;
    Ok(render(&page))
}

/// Undo a write
///
/// docs §23: undoes the write of the space that made `version` (a whole batch) as a new
/// write; `200` with every record it changed, by kind then id, as a batch answers. `409
/// conflict` with `fields` when a record was written since (unless `force=true`); `404` for
/// a version that is no kept write of the space; `400 invalid_parameter` for a `force`
/// other than `true`; editors and owners only (`403`). Other refusals of the write are
/// those of any write (`409 parent_deleted`, `422 invalid_reference`, ...).
#[utoipa::path(
    post,
    path = "/api/v1/activity/{version}/revert",
    operation_id = "revert_write",
    tag = "activity",
    security(("bearer" = [])),
    params(
        ("version" = String, Path, description = "Any version the write made (a batch's too)."),
        dto::SpaceParam,
        dto::ForceParam,
    ),
    responses(
        (status = 200, description = "Every record the revert changed, by kind then id", body = dto::BatchResponse),
        Reverts,
    ),
)]
pub(crate) async fn revert(
    caller: Caller,
    path: web::Path<String>,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let force = match params.get("force") {
        None => false,
        Some("true") => true,
        Some(raw) => {
            return Err(ApiError::InvalidParameter(format!(
                "force may only be true, not '{raw}'"
            )))
        }
    };
    let space = space_of(&caller, params.space_id(), None, Action::Write)?;
    let not_found =
        || ApiError::NotFound(format!("no kept write of this space made version {path}"));
    let version = path.parse::<u64>().map_err(|_| not_found())?;
    let actor = Actor::of(&caller, Via::Api);
    let outcome = core
        .revert(&caller.account.id, space, version, force, actor)
        .await?
        .ok_or_else(not_found)?
        .map_err(|(_, e)| ApiError::from(e))?;
    let mut touched: Vec<_> = outcome.touched().collect();
    touched.sort_by(|a, b| (a.kind, &a.record.id).cmp(&(b.kind, &b.record.id)));
    let results = touched.into_iter().map(|t| (200, t));
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(render::batch(space, results, outcome.version)))
}

/// A page as `{"data", "hasMore", "nextBefore"}`.
fn render(page: &Page) -> HttpResponse {
    let data = page
        .entries
        .iter()
        .map(|(logged, entry)| {
            let changes = entry
                .changes
                .iter()
                .map(|change| {
                    let values = dto::ActivityChange {
                        from: ValueJson(&change.from),
                        to: ValueJson(&change.to),
                    };
                    (change.name(entry.kind), values)
                })
                .collect();
            let actor = logged.actor.as_ref().map(|actor| dto::ActivityActor {
                token_id: actor.token_id.as_deref(),
                user_id: actor.user_id.as_deref(),
                via: if entry.cascade {
                    "cascade"
                } else {
                    actor.via.name()
                },
            });
            dto::ActivityEntry {
                action: entry.action.name(),
                actor,
                at: Stamp(logged.at),
                changes,
                id: &entry.id,
                kind: entry.kind.noun(),
                revert_of: logged.revert_of,
                version: entry.version,
            }
        })
        .collect();
    let next_before = page
        .has_more
        .then(|| page.entries.last().map(|(_, e)| e.version))
        .flatten();
    HttpResponse::Ok().json(dto::ActivityPage {
        data,
        has_more: page.has_more,
        next_before,
    })
}
