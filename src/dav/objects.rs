//! A task's calendar object: `GET`, `PUT` and `DELETE`, each write through the core's one
//! write path with the one conditional rule.

use std::borrow::Cow;

use actix_web::http::header;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};

use super::calendars::{calendar_of, Members};
use super::request::{DavBody, DavCaller};
use super::DavError;
use crate::core::{conditional, Core};
use crate::ical::{commands, object_text, parse_calendar, uid_of, Todo};
use crate::model::activity::{Actor, Via};
use crate::model::calendar::CalendarFields;
use crate::model::limits::CALENDAR_KEPT_MAX_BYTES;
use crate::model::record::{Record, Records, Value};
use crate::model::{Changes, Command, IfMatch, Kind, Op, SpaceError};
use crate::threads::heavy;

/// The media type of an object.
pub(super) const OBJECT_TYPE: &str = "text/calendar; charset=utf-8; component=VTODO";

/// `task`'s object, one `VCALENDAR` with its `VTODO`: as a client sent it while it is
/// the task's (docs §27), else rendered with its predecessors by their `UID`s in `tasks`.
/// What `GET`, `PROPFIND` and `REPORT` answer and `calendar-query` filters.
pub(super) fn vtodo_text<'a>(task: &'a Record, tasks: &Records) -> Cow<'a, str> {
    object_text(task, |id| {
        tasks.get(id).map_or(id, |t| uid_of(t)).to_owned()
    })
}

/// `GET` (and `HEAD`) of an object: its text ([`vtodo_text`]) and the task's `ETag`;
/// `404` for a name no task of the calendar has.
pub(super) async fn get_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    _: DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req);
    let (_, members) = calendar_of(&core, &caller, &user, &segment).await?;
    let task = members.named(object).ok_or(DavError::NotFound)?;
    let text = vtodo_text(task, members.records()).into_owned();
    Ok(HttpResponse::Ok()
        .content_type(OBJECT_TYPE)
        .insert_header((header::ETAG, conditional::etag(task.version)))
        .body(text))
}

/// `DELETE` of an object: its task is soft-deleted (§4) by a write of its own; `If-Match`
/// with the task's `ETag` (or `*`) makes it conditional (`412` when stale). `204`; `403`
/// for a caller who may not write in the space, `404` for a name no task of the calendar
/// has.
pub(super) async fn delete_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    _: DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req);
    let (calendar, members) = calendar_of(&core, &caller, &user, &segment).await?;
    let task = members.named(object).ok_or(DavError::NotFound)?;
    if !calendar.writable {
        return Err(DavError::Forbidden);
    }
    let command = Command {
        kind: Kind::Task,
        id: (*task.id).into(),
        op: Op::SetDeleted(true),
        if_match: if_match(&req),
    };
    match core
        .write(
            &calendar.space,
            vec![command],
            Actor::of(&caller, Via::Caldav),
            None,
            drop,
        )
        .await
    {
        Ok(Ok(_)) => Ok(HttpResponse::NoContent().finish()),
        Ok(Err((_, SpaceError::PreconditionFailed { .. }))) => Err(DavError::PreconditionFailed),
        Ok(Err((_, SpaceError::NotFound { .. }))) => Err(DavError::NotFound),
        Ok(Err((_, e))) => Err(DavError::BadRequest(e.to_string())),
        Err(e) => Err(DavError::Unavailable(e.to_string())),
    }
}

/// The object name of a request's path as the client sent it (still percent-encoded), so
/// that the name kept and the `href`s answered are byte for byte the client's.
pub(super) fn object_segment(req: &HttpRequest) -> &str {
    req.path().rsplit('/').next().unwrap_or_default()
}

/// The `If-Match` of `req`, by the one rule of every front ([`conditional::if_match`]):
/// a weak tag matches nothing.
fn if_match(req: &HttpRequest) -> Option<IfMatch> {
    conditional::if_match(
        req.headers()
            .get_all(header::IF_MATCH)
            .map(|v| v.as_bytes()),
    )
}

/// Whether `req` carries `If-None-Match: *` (create only).
fn if_none_match_any(req: &HttpRequest) -> bool {
    conditional::none_match_any(
        req.headers()
            .get_all(header::IF_NONE_MATCH)
            .map(|v| v.as_bytes()),
    )
}

/// `PUT` of an object: its one `VTODO` becomes a write of the space, built by the same
/// path as the `.ics` import ([`crate::ical::commands`]) so the record rules are
/// the space's. The task is found by the body's `UID` (kept as sent, as is the object
/// name of the path), by a scan of the space's tasks:
///
/// - none has it: a task is created (`todoId` = the `UID` when it is an id free in the
///   space, else a new UUID); `201`;
/// - the object at this path has it: the task is updated; `204`;
/// - a task in another calendar of the space has it: the task moves here (its `listId`
///   changes, the object takes this name) with the new content; `201`;
/// - a deleted task has it: it is restored here with the new content; `201`.
///
/// `If-None-Match: *` is `412` when this calendar has an object of that name; `If-Match`
/// is `412` unless the object at this path exists with one of the `ETag`s given (the
/// space checks the version in the write itself, so a write between the read and the
/// write is caught too).
///
/// A body of at most [`CALENDAR_KEPT_MAX_BYTES`] is kept as sent (docs §27): the answer
/// carries the task's new `ETag`, and `GET` answers those bytes until another write
/// changes the task. A larger one is kept as its meaning, as the `.ics` import keeps a
/// VTODO, and so is one whose write changed the task from what it said (a completion that
/// rolls a repeating task): then no `ETag` is answered, since a `GET` answers other bytes.
/// `403` for a caller who may not write, and with `CALDAV:supported-calendar-component`
/// for a body with no `VTODO` or with another component; `400` for a body that is not
/// iCalendar, a VTODO with two `UID`s or more than one VTODO, or a value a task refuses;
/// `409` with `CALDAV:no-uid-conflict` when another object of this calendar has the
/// `UID` or the body gives the object at this path another `UID`; `403` with a problem
/// body naming the JSON API's `code` for a write that breaks a rule of subtasks (docs
/// §22: a cycle, too deep a chain, too many children, a deleted parent). A refused write
/// changes nothing.
pub(super) async fn put_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    DavBody(body): DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req);
    let (calendar, members) = calendar_of(&core, &caller, &user, &segment).await?;
    if !calendar.writable {
        return Err(DavError::Forbidden);
    }
    let text = String::from_utf8(body.to_vec())
        .map_err(|_| DavError::BadRequest("the body must be UTF-8 iCalendar text".into()))?;
    let (text, parsed) = heavy::run(&caller.account.id, move || {
        let parsed = parse_calendar(&text);
        (text, parsed)
    })
    .await?;
    let parsed = parsed.map_err(|e| DavError::BadRequest(e.to_string()))?;
    if parsed.skipped > 0 || parsed.todos.is_empty() {
        return Err(DavError::UnsupportedComponent);
    }
    if parsed.todos.len() > 1 {
        return Err(DavError::BadRequest(
            "a calendar object resource holds one VTODO (one UID)".into(),
        ));
    }
    let if_none_match = if_none_match_any(&req);
    let if_match = if_match(&req);
    let object = object.to_owned();
    let sent = Some(text.as_str()).filter(|t| t.len() <= CALENDAR_KEPT_MAX_BYTES);
    let put = Put {
        object: &object,
        sent,
        if_none_match,
        if_match,
    };
    let (commands, existed) = put_commands(&parsed.todos[0], &members, put)?;
    match core
        .write(
            &calendar.space,
            commands,
            Actor::of(&caller, Via::Caldav),
            None,
            drop,
        )
        .await
    {
        Ok(Ok(outcome)) => {
            let task = outcome.item().record;
            let mut answer = match existed {
                true => HttpResponse::NoContent(),
                false => HttpResponse::Created(),
            };
            let fields = CalendarFields::of(Kind::Task).expect("tasks keep calendar data");
            if fields.object_as_sent(&task).is_some() {
                answer.insert_header((header::ETAG, conditional::etag(task.version)));
            }
            Ok(answer.finish())
        }
        Ok(Err((_, SpaceError::PreconditionFailed { .. }))) => Err(DavError::PreconditionFailed),
        Ok(Err((_, SpaceError::AlreadyExists { .. }))) => Err(DavError::PreconditionFailed),
        Ok(Err((_, e))) => Err(tree_rule(&e).map_or_else(
            || DavError::BadRequest(e.to_string()),
            |code| DavError::TreeRule {
                code,
                detail: e.to_string(),
            },
        )),
        Err(e) => Err(DavError::Unavailable(e.to_string())),
    }
}

/// The JSON API's problem code of a refusal that breaks a rule of subtasks (docs §22),
/// which a `PUT` answers with `403`; `None` for any other refusal.
fn tree_rule(e: &SpaceError) -> Option<&'static str> {
    Some(match e {
        SpaceError::ParentCycle { .. } => "parent_cycle",
        SpaceError::TooDeep { .. } => "too_deep",
        SpaceError::TooManyChildren { .. } => "limit_reached",
        SpaceError::ParentDeleted { .. } => "parent_deleted",
        SpaceError::InvalidReference {
            field: "parentId", ..
        } => "invalid_reference",
        _ => return None,
    })
}

/// What a `PUT` asks besides its VTODO.
struct Put<'a> {
    /// The object name of its path, as sent.
    object: &'a str,
    /// Its body, when it is to be kept as sent.
    sent: Option<&'a str>,
    /// Whether it carries `If-None-Match: *`.
    if_none_match: bool,
    /// Its `If-Match`.
    if_match: Option<IfMatch>,
}

/// The commands of a `PUT` of `todo` into the calendar of `members`, and whether the
/// object existed (see [`put_object`] for the preconditions and refusals). O(log n) in
/// the space's tasks.
fn put_commands(
    todo: &Todo,
    members: &Members,
    put: Put<'_>,
) -> Result<(Vec<Command>, bool), DavError> {
    let Put {
        object,
        sent,
        if_none_match,
        if_match,
    } = put;
    let uid = todo.uid.as_str();
    let at_path = members.named(object);
    let with_uid = members.tasks.with_uid(uid);
    let here = |t: &Record| at_path.is_some_and(|a| a.id == t.id);
    let in_calendar = with_uid.is_some_and(|t| members.contains(t));
    // `If-None-Match: *` is about the object at this path only (RFC 9110 §13.1.2); a UID
    // another object holds is the `no-uid-conflict` below (RFC 4791 §5.3.2.1).
    if if_none_match && at_path.is_some() {
        return Err(DavError::PreconditionFailed);
    }
    if at_path.is_some_and(|a| uid_of(a) != uid)
        || (in_calendar && !with_uid.is_some_and(|t| here(t)))
    {
        return Err(DavError::UidConflict);
    }
    if if_match.is_some() && at_path.is_none() {
        return Err(DavError::PreconditionFailed);
    }
    let list = Some(members.list.clone());
    let (mut commands, _, _) = commands(std::slice::from_ref(todo), &members.tasks, list)
        .map_err(|e| DavError::BadRequest(e.to_string()))?;
    let write = commands.last_mut().expect("one VTODO makes a write");
    write.if_match = if_match;
    if let Op::Create(changes) | Op::Update(changes) = &mut write.op {
        keep_object(changes, object, sent);
    }
    Ok((commands, at_path.is_some()))
}

/// Makes the calendar data a write of `changes` keeps name the object `name`, as the
/// client's `PUT` named it, and hold the object `sent` as sent, when there is one.
fn keep_object(changes: &mut Changes, name: &str, sent: Option<&str>) {
    for (_, value) in &mut changes.fields {
        if let Value::Calendar(kept) = value {
            kept.object = Some(name.into());
            if let Some(text) = sent {
                let calendar = std::mem::take(&mut **kept);
                *value = Value::Sent(Box::new(calendar.into_sent(text)));
            }
        }
    }
}
