//! `GET` and `POST /api/v1/calendar.ics` (docs §20): a space's tasks (of one list) as
//! iCalendar, and a `text/calendar` body imported as one all-or-nothing write.
//!
//! The mapping and the commands a VTODO becomes are [`crate::ical`]'s; here the body is
//! read and the commands go to the space as one write, as a batch of §12 does: one version
//! per task (two for a task that was deleted: it is restored, then written), nothing at
//! all when one fails.

use actix_web::http::header;
use actix_web::web::Data;
use actix_web::{HttpMessage, HttpRequest, HttpResponse};
use bytes::Bytes;

use super::error::ApiError;
use super::extract::{space_of, Params};
use super::openapi::problems::*;
use super::{dto, render};
use crate::core::{conditional, Core};
use crate::edge::body;
use crate::ical::{commands, parse_calendar, uid_of, write_calendar, IcalError};
use crate::model::access::Action;
use crate::model::activity::{Actor, Via};
use crate::model::limits::CALENDAR_BODY_MAX_BYTES;
use crate::model::validate::is_id;
use crate::model::{Caller, FieldError, Kind, Space, ValidationError};
use crate::threads::heavy;

/// The `text/calendar` media type of both routes.
const TEXT_CALENDAR: &str = "text/calendar; charset=utf-8";

/// The `listId` parameter: `None` when absent, a 400 when it is no id.
fn list_of(params: &Params) -> Result<Option<Box<str>>, ApiError> {
    match params.get("listId") {
        None => Ok(None),
        Some(list) if is_id(list) => Ok(Some(list.into())),
        Some(list) => Err(ApiError::InvalidParameter(format!(
            "listId must be an id (1 to 64 of A-Z a-z 0-9 _ -), not '{list}'"
        ))),
    }
}

/// Every task of a space, or of one list, as iCalendar
///
/// docs §20: `text/calendar` with one `VTODO` per task that is not deleted (of list
/// `listId` when given), and a `VTIMEZONE` for each `timeZone` their timed dates name.
/// `ETag` is the space version.
#[utoipa::path(
    get,
    path = "/api/v1/calendar.ics",
    operation_id = "exportCalendar",
    tag = "calendar",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::ListParam),
    responses(
        (status = 200, description = "The tasks as VTODOs", content_type = "text/calendar", body = String),
        Reads,
    ),
)]
pub(crate) async fn export(
    caller: Caller,
    params: Params,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let list = list_of(&params)?;
    let space = space_of(&caller, params.space_id(), None, Action::Read)?;
    let (tasks, version) = core
        .read(space, |s| {
            let view = s.view();
            (view.collections[Kind::Task.index()].clone(), view.version)
        })
        .await?;
    let text = heavy::run(&caller.account.id, move || {
        let list_at = Kind::Task
            .field_index("listId")
            .expect("tasks have a listId");
        let shown = tasks.values().filter(|t| {
            !t.is_deleted()
                && list
                    .as_deref()
                    .is_none_or(|l| t.fields[list_at].as_text() == Some(l))
        });
        write_calendar(shown.map(|t| &**t), |id| {
            tasks.get(id).map_or(id, |t| uid_of(t)).to_owned()
        })
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(TEXT_CALENDAR)
        .insert_header((header::ETAG, conditional::etag(version)))
        .body(text))
}

/// Creates or updates one task per VTODO, all or nothing
///
/// docs §20: a `text/calendar` body (at most 1 MiB) whose VTODOs create or update one
/// task each, found by `UID` (a new task's `todoId` is the `UID` when that is an id free in
/// the space, else a new UUID; with `listId`, every task is put in that list), as one
/// write under the batch rules of §12. A VTODO's parent (`RELATED-TO;RELTYPE=PARENT`, or
/// no `RELTYPE`) is its `parentId` when a task of the space or of the import has that
/// `UID`; else it is kept as sent and the task is linked by the write that later brings
/// a task with that `UID`, through any door (docs §22). Other components (`VEVENT`, …)
/// are skipped and counted. A body that is not iCalendar, a VTODO without or with two `UID`s, a value
/// taskd cannot map and a field a task refuses are 400 `validation_failed` naming the
/// VTODO; a write the space refuses names its `operationIndex`.
#[utoipa::path(
    post,
    path = "/api/v1/calendar.ics",
    operation_id = "importCalendar",
    tag = "calendar",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::ListParam),
    request_body(content = String, content_type = "text/calendar", description = "An iCalendar object"),
    responses(
        (status = 200, description = "What the import did", body = dto::CalendarImport),
        Writes,
    ),
)]
pub(crate) async fn import(
    caller: Caller,
    params: Params,
    body: CalendarBody,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let list = list_of(&params)?;
    let space = space_of(&caller, params.space_id(), None, Action::Write)?;
    let text = String::from_utf8(body.0.to_vec())
        .map_err(|_| invalid("body", "must be UTF-8 iCalendar text".into()))?;
    let parsed = heavy::run(&caller.account.id, move || parse_calendar(&text))
        .await?
        .map_err(|e: IcalError| invalid("body", e.to_string()))?;
    let skipped = parsed.skipped;
    let tasks = core.read(space, Space::calendar_tasks).await?;
    let (commands, created, updated) = heavy::run(&caller.account.id, move || {
        commands(&parsed.todos, &tasks, list.map(Some))
    })
    .await??;
    let version = match commands.is_empty() {
        true => core.version(space).await?,
        false => {
            let outcome = core
                .write(space, commands, Actor::of(&caller, Via::Import), None, drop)
                .await?
                .map_err(|(index, e)| ApiError::InOperation {
                    index,
                    error: Box::new(e.into()),
                })?;
            outcome.version
        }
    };
    Ok(render::json(
        actix_web::http::StatusCode::OK,
        &dto::CalendarImport {
            created,
            updated,
            skipped,
            space_version: version,
        },
    ))
}

/// A 400 `validation_failed` naming `field`.
fn invalid(field: &str, message: String) -> ApiError {
    ValidationError {
        errors: vec![FieldError {
            field: field.into(),
            message,
        }],
    }
    .into()
}

/// A `text/calendar` body of at most [`CALENDAR_BODY_MAX_BYTES`] (a larger one is 413;
/// another media type 415).
pub(crate) struct CalendarBody(Bytes);

impl actix_web::FromRequest for CalendarBody {
    type Error = ApiError;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let is_calendar = matches!(req.mime_type(), Ok(Some(m))
            if m.type_() == mime::TEXT && m.subtype() == "calendar");
        let declared_over = body::declared(req).is_some_and(|n| n > CALENDAR_BODY_MAX_BYTES as u64);
        let body = body::read(req, payload, CALENDAR_BODY_MAX_BYTES);
        Box::pin(async move {
            if !is_calendar && !declared_over {
                return Err(ApiError::UnsupportedMediaType);
            }
            Ok(CalendarBody(body.await?))
        })
    }
}
