//! The CalDAV front (CONTRACT §20, RFC 4791), beside the JSON API and sharing its
//! application state, the directory's authentication, the space actors and the mapping of
//! [`crate::ical`]: reading, writing (`PUT`, through the `.ics` import's path) and
//! deleting.
//!
//! Request flow: `/.well-known/caldav` sends a client to `/dav/`; [`DavCaller`] takes the
//! token from HTTP Basic (the password; the user name is not checked) or `Bearer`, and a
//! refusal asks for Basic; `PROPFIND` on `/`, `/dav/` or on the caller's principal
//! `/dav/principals/<userId>/` answers the properties a client asks for
//! ([`xml::requested`]) in a `207 Multi-Status` ([`xml::multistatus`]): who the caller is
//! (`current-user-principal`) and where its calendars live (`calendar-home-set`,
//! `/dav/calendars/<userId>/`); `PROPFIND` of that home lists one calendar collection per
//! list of each space the caller reaches, `<spaceId>.<listId>`, and one per space for its
//! tasks without a list, `<spaceId>` ([`calendars`]); `PROPFIND` of a calendar lists its
//! tasks' objects with their `ETag`s, `GET` of an object answers its `VTODO`
//! ([`crate::ical`]), and `PUT` of one writes its task ([`put_object`]); `REPORT` answers
//! `calendar-multiget`, `calendar-query` (with its `filter`, [`filter`]) and
//! `sync-collection` (by the space version, from the change feed, cut at a `limit` with a
//! `507` member and a token that skips nothing); `DELETE` of an object is a soft delete
//! through the space actor, like the JSON API's. Failures are [`DavError`], rendered as
//! DAV clients expect (plain statuses, not problem+json).

#![deny(unreachable_pub)]

mod filter;
mod xml;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError};
use base64::Engine;
use futures_util::future::{ready, Ready};

use crate::actors::space::Write;
use crate::http::AppState;
use crate::ical::{commands, object_name, parse_calendar, uid_of, write_calendar, Todo};
use crate::model::access::{self, Action};
use crate::model::calendar::{same_name, CalendarTasks};
use crate::model::record::{Record, Records, Value};
use crate::model::{Caller, Changes, Command, IfMatch, Kind, Op, SpaceError};
use xml::{Prop, PropValue, Requested};

/// The `DAV` header: the classes and the calendar access taskd speaks.
const DAV_CLASSES: &str = "1, 3, calendar-access";
/// The methods collections answer.
const COLLECTION: &str = "OPTIONS, PROPFIND";
/// The methods calendars answer.
const CALENDAR: &str = "OPTIONS, PROPFIND, REPORT";
/// The methods objects answer.
const OBJECT: &str = "OPTIONS, GET, PUT, DELETE";

/// Why a CalDAV request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DavError {
    /// No known, live token: `401` asking for Basic.
    #[error("authentication required")]
    Unauthorized,
    /// Not a resource of the caller.
    #[error("not found")]
    NotFound,
    /// A method the resource does not answer; those it does.
    #[error("method not allowed")]
    MethodNotAllowed(&'static str),
    /// A body or header that cannot be read: why.
    #[error("{0}")]
    BadRequest(String),
    /// A `REPORT` the resource does not support.
    #[error("unsupported report")]
    UnsupportedReport,
    /// A `sync-token` taskd did not give, or of a version not reached.
    #[error("invalid sync token")]
    InvalidSyncToken,
    /// A write the caller's role or token does not allow.
    #[error("forbidden")]
    Forbidden,
    /// An `If-Match` the object's `ETag` is not among, or an `If-None-Match: *` on an
    /// object that exists.
    #[error("precondition failed")]
    PreconditionFailed,
    /// A `PUT` of something other than one `VTODO` (`VEVENT`, …): `403` with
    /// `CALDAV:supported-calendar-component`.
    #[error("only VTODO objects are stored here")]
    UnsupportedComponent,
    /// A `PUT` whose `UID` another object of the calendar has, or that gives an existing
    /// object another `UID`: `409` with `CALDAV:no-uid-conflict`.
    #[error("the UID belongs to another object of this calendar")]
    UidConflict,
    /// The space could not take the write now (overloaded, stopping, storage): why.
    #[error("{0}")]
    Unavailable(String),
}

impl ResponseError for DavError {
    fn status_code(&self) -> StatusCode {
        match self {
            DavError::Unauthorized => StatusCode::UNAUTHORIZED,
            DavError::NotFound => StatusCode::NOT_FOUND,
            DavError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            DavError::BadRequest(_) => StatusCode::BAD_REQUEST,
            DavError::UnsupportedReport
            | DavError::InvalidSyncToken
            | DavError::Forbidden
            | DavError::UnsupportedComponent => StatusCode::FORBIDDEN,
            DavError::UidConflict => StatusCode::CONFLICT,
            DavError::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            DavError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        match self {
            DavError::Unauthorized => {
                response.insert_header((header::WWW_AUTHENTICATE, r#"Basic realm="taskd""#));
            }
            DavError::MethodNotAllowed(allow) => {
                response.insert_header((header::ALLOW, *allow));
            }
            DavError::UnsupportedReport
            | DavError::InvalidSyncToken
            | DavError::UnsupportedComponent
            | DavError::UidConflict => {
                let condition = match self {
                    DavError::UnsupportedReport => "d:supported-report",
                    DavError::InvalidSyncToken => "d:valid-sync-token",
                    DavError::UnsupportedComponent => "c:supported-calendar-component",
                    _ => "c:no-uid-conflict",
                };
                return response
                    .content_type("application/xml; charset=utf-8")
                    .body(format!(
                        r#"<?xml version="1.0" encoding="utf-8"?><d:error xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><{condition}/></d:error>"#
                    ));
            }
            _ => {}
        }
        response
            .content_type("text/plain; charset=utf-8")
            .body(self.to_string())
    }
}

/// The caller of a CalDAV request: the user behind the token given as the Basic password
/// (any user name) or as `Bearer`; [`DavError::Unauthorized`] without a known, live one.
pub(crate) struct DavCaller(Caller);

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

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let caller = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(token_of)
            .zip(req.app_data::<Data<AppState>>())
            .and_then(|(token, app)| app.directory.authenticate(&token));
        ready(caller.map(DavCaller).ok_or(DavError::Unauthorized))
    }
}

/// The path of `user`'s principal.
fn principal(user: &str) -> String {
    format!("/dav/principals/{user}/")
}

/// The path of `user`'s calendar home.
fn calendar_home(user: &str) -> String {
    format!("/dav/calendars/{user}/")
}

/// A resource answering `OPTIONS` (the DAV classes and `allow`), `method` with `handler`,
/// and `405` for any other method.
fn resource<F, Args>(
    path: &str,
    allow: &'static str,
    method: Method,
    handler: F,
) -> actix_web::Resource
where
    F: actix_web::Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: actix_web::Responder + 'static,
{
    web::resource(path)
        .route(web::method(Method::OPTIONS).to(move || async move {
            HttpResponse::Ok()
                .insert_header(("DAV", DAV_CLASSES))
                .insert_header((header::ALLOW, allow))
                .finish()
        }))
        .route(web::method(method).to(handler))
        .default_service(web::to(move || async move {
            Err::<HttpResponse, _>(DavError::MethodNotAllowed(allow))
        }))
}

/// The value of `prop` on the discovery resource `path` of `caller`, or `None` where it
/// has none (a `404` in its `propstat`).
fn discovery_prop(caller: &Caller, path: &str, prop: &Prop) -> Option<PropValue> {
    let user = &*caller.account.id;
    let is_principal = path == principal(user);
    Some(match (prop.namespace.as_str(), prop.name.as_str()) {
        (xml::DAV, "current-user-principal") => PropValue::Href(principal(user)),
        (xml::DAV, "principal-URL") if is_principal => PropValue::Href(principal(user)),
        (xml::DAV, "resourcetype") if is_principal => {
            PropValue::Elements(vec![(xml::DAV, "collection"), (xml::DAV, "principal")])
        }
        (xml::DAV, "resourcetype") => PropValue::Elements(vec![(xml::DAV, "collection")]),
        (xml::DAV, "displayname") if is_principal => {
            PropValue::Text(caller.account.name.to_string())
        }
        (xml::CALDAV, "calendar-home-set") => PropValue::Href(calendar_home(user)),
        _ => return None,
    })
}

/// `PROPFIND` on `/`, `/dav/` or on the caller's principal (another user's is `404`): the
/// properties asked for (all of them for an empty body or `allprop`), with `Depth` 0
/// or 1 alike, since neither resource lists members yet. `207 Multi-Status`.
async fn propfind(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    body: web::Bytes,
) -> Result<HttpResponse, DavError> {
    let path = req.path().to_owned();
    if path != "/" && path != "/dav/" && path != principal(&caller.account.id) {
        return Err(DavError::NotFound);
    }
    let props = asked(
        &body,
        &[
            (xml::DAV, "current-user-principal"),
            (xml::DAV, "principal-URL"),
            (xml::DAV, "resourcetype"),
            (xml::DAV, "displayname"),
            (xml::CALDAV, "calendar-home-set"),
        ],
    )?;
    let found = props.answer(|p| discovery_prop(&caller, &path, p));
    Ok(multi_status(&[(path, Some(found))]))
}

/// One calendar collection as `PROPFIND` shows it.
struct CalendarInfo {
    /// Its space.
    space: String,
    /// Its path.
    path: String,
    /// Its display name: the list's name (its id when it has none), or the space's.
    name: String,
    /// The space version, its `getctag`.
    version: u64,
    /// Whether the caller may write in its space.
    writable: bool,
}

/// The calendars of `caller` (see the module doc), in space and list id order.
async fn calendars(app: &AppState, caller: &Caller) -> Vec<CalendarInfo> {
    let user = &*caller.account.id;
    let spaces: Vec<(String, String)> = {
        let directory = app.directory.read();
        caller
            .reached()
            .filter_map(|(id, _)| {
                directory
                    .space(id)
                    .map(|s| (id.to_owned(), s.name.to_string()))
            })
            .collect()
    };
    let name_at = Kind::List.field_index("name").expect("lists have a name");
    let mut calendars = Vec::new();
    for (space, space_name) in spaces {
        let writable = access::decide(caller, Some(&space), Action::Write).is_ok();
        let read = app
            .spaces
            .read(&space, |s| {
                let view = s.view();
                (view.collections[Kind::List.index()].clone(), view.version)
            })
            .await;
        // A space deleted since the directory was read has no calendars.
        let Ok((lists, version)) = read else {
            continue;
        };
        calendars.push(CalendarInfo {
            space: space.clone(),
            path: format!("{}{space}/", calendar_home(user)),
            name: space_name,
            version,
            writable,
        });
        for list in lists.values().filter(|l| !l.is_deleted()) {
            calendars.push(CalendarInfo {
                space: space.clone(),
                path: format!("{}{space}.{}/", calendar_home(user), list.id),
                name: list.fields[name_at]
                    .as_text()
                    .map_or_else(|| list.id.to_string(), str::to_owned),
                version,
                writable,
            });
        }
    }
    calendars
}

/// The value of `prop` on `calendar`, or `None` where it has none.
fn calendar_prop(caller: &Caller, calendar: &CalendarInfo, prop: &Prop) -> Option<PropValue> {
    Some(match (prop.namespace.as_str(), prop.name.as_str()) {
        (xml::DAV, "current-user-principal") => PropValue::Href(principal(&caller.account.id)),
        (xml::DAV, "resourcetype") => {
            PropValue::Elements(vec![(xml::DAV, "collection"), (xml::CALDAV, "calendar")])
        }
        (xml::DAV, "displayname") => PropValue::Text(calendar.name.clone()),
        (xml::CALENDARSERVER, "getctag") => PropValue::Text(calendar.version.to_string()),
        (xml::DAV, "sync-token") => PropValue::Text(sync_token(calendar.version)),
        (xml::DAV, "supported-report-set") => PropValue::Reports(vec![
            (xml::CALDAV, "calendar-multiget"),
            (xml::CALDAV, "calendar-query"),
            (xml::DAV, "sync-collection"),
        ]),
        (xml::CALDAV, "supported-calendar-component-set") => PropValue::Components(vec!["VTODO"]),
        (xml::DAV, "current-user-privilege-set") => {
            PropValue::Privileges(match calendar.writable {
                true => vec!["read", "write"],
                false => vec!["read"],
            })
        }
        _ => return None,
    })
}

/// The prefix of a calendar's `sync-token`; the space version follows it.
const SYNC_TOKEN: &str = "urn:taskd:sync:";

/// The `sync-token` of a calendar of a space at `version`.
fn sync_token(version: u64) -> String {
    format!("{SYNC_TOKEN}{version}")
}

/// The value of `prop` on the calendar home.
fn home_prop(caller: &Caller, prop: &Prop) -> Option<PropValue> {
    Some(match (prop.namespace.as_str(), prop.name.as_str()) {
        (xml::DAV, "current-user-principal") => PropValue::Href(principal(&caller.account.id)),
        (xml::DAV, "resourcetype") => PropValue::Elements(vec![(xml::DAV, "collection")]),
        (xml::DAV, "current-user-privilege-set") => PropValue::Privileges(vec!["read"]),
        _ => return None,
    })
}

/// Whether a `PROPFIND` reaches the members of a collection: `Depth: 0` does not, `1`
/// and `infinity` (or none) do, as far as this collection's members go.
fn with_members(req: &HttpRequest) -> bool {
    req.headers()
        .get("Depth")
        .and_then(|v| v.to_str().ok())
        .is_none_or(|depth| depth.trim() != "0")
}

/// `PROPFIND` of the caller's calendar home (another user's: `404`): the home, and with
/// `Depth: 1` each calendar collection with the properties asked for (all of them for an
/// empty body or `allprop`). `207 Multi-Status`.
async fn propfind_home(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    body: web::Bytes,
    app: Data<AppState>,
) -> Result<HttpResponse, DavError> {
    let path = req.path().to_owned();
    if path != calendar_home(&caller.account.id) {
        return Err(DavError::NotFound);
    }
    let asked = asked(&body, &COLLECTION_PROPS)?;
    let mut responses = vec![(path, Some(asked.answer(|p| home_prop(&caller, p))))];
    if with_members(&req) {
        for calendar in calendars(&app, &caller).await {
            let found = asked.answer(|p| calendar_prop(&caller, &calendar, p));
            responses.push((calendar.path, Some(found)));
        }
    }
    Ok(multi_status(&responses))
}

/// The properties a `PROPFIND` asks for.
struct Asked {
    props: Vec<Prop>,
    /// Whether it asked for all (`allprop`): then a resource answers those it has only.
    all: bool,
}

impl Asked {
    /// What a resource whose properties `value` gives answers.
    fn answer(&self, value: impl Fn(&Prop) -> Option<PropValue>) -> xml::Found {
        self.props
            .iter()
            .map(|p| (p.clone(), value(p)))
            .filter(|(_, v)| !self.all || v.is_some())
            .collect()
    }
}

/// The properties a `PROPFIND` body asks for; `all` for an empty body or `allprop`.
fn asked(body: &[u8], all: &[(&str, &str)]) -> Result<Asked, DavError> {
    Ok(match xml::requested(body).map_err(DavError::BadRequest)? {
        Requested::Props(props) => Asked { props, all: false },
        Requested::All => Asked {
            props: all.iter().map(|(ns, name)| Prop::new(ns, name)).collect(),
            all: true,
        },
    })
}

/// A `207 Multi-Status` answer.
fn multi_status(responses: &[(String, Option<xml::Found>)]) -> HttpResponse {
    multi_status_with(responses, None, None)
}

/// A `207 Multi-Status` answer ending with a collection's `sync_token`, after a `507`
/// member for the collection at `truncated` when a `limit` cut it.
fn multi_status_with(
    responses: &[(String, Option<xml::Found>)],
    truncated: Option<&str>,
    sync_token: Option<&str>,
) -> HttpResponse {
    HttpResponse::build(StatusCode::MULTI_STATUS)
        .content_type("application/xml; charset=utf-8")
        .body(xml::multistatus(responses, truncated, sync_token))
}

/// The calendar a path segment names (`<spaceId>` or `<spaceId>.<listId>`) as the caller
/// may read it, with its members; `404` for one it does not reach, a list that does not
/// exist or is deleted.
async fn calendar_of(
    app: &AppState,
    caller: &Caller,
    user: &str,
    segment: &str,
) -> Result<(CalendarInfo, Members), DavError> {
    if user != &*caller.account.id {
        return Err(DavError::NotFound);
    }
    let (space, list) = match segment.split_once('.') {
        Some((space, list)) => (space, Some(Box::<str>::from(list))),
        None => (segment, None),
    };
    access::decide(caller, Some(space), Action::Read).map_err(|_| DavError::NotFound)?;
    let writable = access::decide(caller, Some(space), Action::Write).is_ok();
    let space_name = app
        .directory
        .read()
        .space(space)
        .map(|s| s.name.to_string())
        .ok_or(DavError::NotFound)?;
    let wanted = list.clone();
    let (tasks, version, name) = app
        .spaces
        .read(space, move |s| {
            let name_at = Kind::List.field_index("name").expect("lists have a name");
            let name = match &wanted {
                None => Some(space_name),
                Some(list) => s
                    .get(Kind::List, list)
                    .ok()
                    .map(|item| item.record)
                    .filter(|l| !l.is_deleted())
                    .map(|l| {
                        l.fields[name_at]
                            .as_text()
                            .map_or_else(|| l.id.to_string(), str::to_owned)
                    }),
            };
            (s.calendar_tasks(), s.version(), name)
        })
        .await
        .map_err(|_| DavError::NotFound)?;
    let name = name.ok_or(DavError::NotFound)?;
    let calendar = CalendarInfo {
        space: space.to_owned(),
        path: format!("{}{segment}/", calendar_home(user)),
        name,
        version,
        writable,
    };
    Ok((calendar, Members { tasks, list }))
}

/// The tasks of a calendar: those of list `list` (`None`: those without a list) that are
/// not deleted, among the space's `tasks`.
struct Members {
    tasks: CalendarTasks,
    list: Option<Box<str>>,
}

impl Members {
    /// Whether `task` is one of them.
    fn contains(&self, task: &Record) -> bool {
        let list_at = Kind::Task
            .field_index("listId")
            .expect("tasks have a listId");
        !task.is_deleted() && task.fields[list_at].as_text() == self.list.as_deref()
    }

    /// Each of them, by `todoId`.
    fn iter(&self) -> impl Iterator<Item = &Record> {
        self.tasks
            .records()
            .values()
            .filter(|t| self.contains(t))
            .map(|t| &**t)
    }

    /// The one that is the object `name` (compared percent-decoded).
    fn named(&self, name: &str) -> Option<&Record> {
        self.tasks.named(name, |t| self.contains(t)).map(|t| &**t)
    }

    /// The space's tasks, deleted ones and those of other calendars too.
    fn records(&self) -> &Records {
        self.tasks.records()
    }
}

/// The value of `prop` on a task's object, or `None` where it has none; `tasks` are the
/// space's, whose `UID`s its predecessors are sent by.
fn object_prop(task: &Record, tasks: &Records, prop: &Prop) -> Option<PropValue> {
    rendered_object_prop(task, tasks, None, prop)
}

/// [`object_prop`], with the task's `VTODO` text when it was rendered already.
fn rendered_object_prop(
    task: &Record,
    tasks: &Records,
    text: Option<&str>,
    prop: &Prop,
) -> Option<PropValue> {
    Some(match (prop.namespace.as_str(), prop.name.as_str()) {
        (xml::CALDAV, "calendar-data") => PropValue::Text(match text {
            Some(text) => text.to_owned(),
            None => vtodo_text(task, tasks),
        }),
        (xml::DAV, "getetag") => PropValue::Text(etag(task)),
        (xml::DAV, "getcontenttype") => PropValue::Text(OBJECT_TYPE.into()),
        (xml::DAV, "resourcetype") => PropValue::Elements(Vec::new()),
        _ => return None,
    })
}

/// What `allprop` answers of a collection (the home and each calendar).
const COLLECTION_PROPS: [(&str, &str); 8] = [
    (xml::DAV, "current-user-principal"),
    (xml::DAV, "resourcetype"),
    (xml::DAV, "displayname"),
    (xml::CALENDARSERVER, "getctag"),
    (xml::DAV, "sync-token"),
    (xml::DAV, "supported-report-set"),
    (xml::CALDAV, "supported-calendar-component-set"),
    (xml::DAV, "current-user-privilege-set"),
];

/// What `allprop` answers of a calendar's objects, beside [`COLLECTION_PROPS`].
const OBJECT_PROPS: [(&str, &str); 2] = [(xml::DAV, "getetag"), (xml::DAV, "getcontenttype")];

/// The media type of an object.
const OBJECT_TYPE: &str = "text/calendar; charset=utf-8; component=VTODO";

/// A task's `ETag` (CONTRACT §10): its `versionUpdatedAt`, quoted.
fn etag(task: &Record) -> String {
    format!("\"{}\"", task.version)
}

/// `PROPFIND` of a calendar: the collection, and with `Depth: 1` (or none) each of its
/// tasks' objects (`getetag`, `getcontenttype`, `resourcetype`). `207 Multi-Status`; `404`
/// for a calendar the caller does not reach.
async fn propfind_calendar(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String)>,
    body: web::Bytes,
    app: Data<AppState>,
) -> Result<HttpResponse, DavError> {
    let (user, segment) = path.into_inner();
    let (calendar, members) = calendar_of(&app, &caller, &user, &segment).await?;
    let all = [&COLLECTION_PROPS[..], &OBJECT_PROPS[..]].concat();
    let asked = asked(&body, &all)?;
    let mut responses = vec![(
        calendar.path.clone(),
        Some(asked.answer(|p| calendar_prop(&caller, &calendar, p))),
    )];
    if with_members(&req) {
        for task in members.iter() {
            let href = format!("{}{}", calendar.path, object_name(task));
            let found = asked.answer(|p| object_prop(task, members.records(), p));
            responses.push((href, Some(found)));
        }
    }
    Ok(multi_status(&responses))
}

/// `task` as one `VCALENDAR` with its `VTODO`, its predecessors by their `UID`s in
/// `tasks`.
fn vtodo_text(task: &Record, tasks: &Records) -> String {
    write_calendar([task], |id| {
        tasks.get(id).map_or(id, |t| uid_of(t)).to_owned()
    })
}

/// `REPORT` on a calendar: `calendar-multiget` answers the objects at the `href`s it names
/// (`404` for a name no task of the calendar has), `calendar-query` the objects of the
/// calendar its `filter` matches ([`filter::matches`]), each with the properties asked for
/// (`getetag`, `calendar-data`); `sync-collection` is [`sync_collection`]. Another report
/// is `403` (RFC 3253 `supported-report`). `207 Multi-Status`.
async fn report_calendar(
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String)>,
    body: web::Bytes,
    app: Data<AppState>,
) -> Result<HttpResponse, DavError> {
    let (user, segment) = path.into_inner();
    let (calendar, members) = calendar_of(&app, &caller, &user, &segment).await?;
    let report = xml::report(&body).map_err(DavError::BadRequest)?;
    let asked = Asked {
        props: report.props,
        all: false,
    };
    let tasks = members.records();
    let found = |task: &Record| Some(asked.answer(|p| object_prop(task, tasks, p)));
    let responses: Vec<(String, Option<xml::Found>)> = match report.kind {
        xml::ReportKind::Multiget => report
            .hrefs
            .into_iter()
            .map(|href| {
                let answer = object_of(&calendar, &href)
                    .and_then(|name| members.named(name))
                    .and_then(found);
                (href, answer)
            })
            .collect(),
        // Each object is rendered once, for the filter and its `calendar-data`.
        xml::ReportKind::Query => members
            .iter()
            .filter_map(|task| {
                let text = report.filter.as_ref().map(|_| vtodo_text(task, tasks));
                if let (Some(filter), Some(text)) = (&report.filter, &text) {
                    if !filter::matches(filter, task, text) {
                        return None;
                    }
                }
                let href = format!("{}{}", calendar.path, object_name(task));
                let answer =
                    asked.answer(|p| rendered_object_prop(task, tasks, text.as_deref(), p));
                Some((href, Some(answer)))
            })
            .collect(),
        xml::ReportKind::SyncCollection => {
            let token = &report.sync_token;
            return sync_collection(&app, &calendar, members, &asked, token, report.limit).await;
        }
        xml::ReportKind::Other(_, _) => return Err(DavError::UnsupportedReport),
    };
    Ok(multi_status(&responses))
}

/// The object name an `href` of a multiget names in `calendar`: its last segment, when
/// the rest is the calendar's path (compared percent-decoded).
fn object_of<'a>(calendar: &CalendarInfo, href: &'a str) -> Option<&'a str> {
    let (parent, name) = href.rsplit_once('/')?;
    same_name(&format!("{parent}/"), &calendar.path).then_some(name)
}

/// `sync-collection` (RFC 6578) on `calendar`: from an empty token, every object of it;
/// from the token of version `n`, every task changed after `n`, as an object with the
/// properties asked for while it is in the calendar, else (deleted, moved to another list,
/// or never here) a `404` member; then the token of the version read. A token taskd did
/// not give, or one of a version the space has not reached, is `403` with
/// `DAV:valid-sync-token`. With a `DAV:limit` of `n` and more changes than that, the
/// answer holds the first `n` changes in version order, a `507` member for the calendar
/// (RFC 6578 §3.6), and the token of the version of the last change it holds, so the
/// next sync from it reports the rest: no change is skipped.
async fn sync_collection(
    app: &AppState,
    calendar: &CalendarInfo,
    members: Members,
    asked: &Asked,
    token: &str,
    limit: Option<usize>,
) -> Result<HttpResponse, DavError> {
    let since = match token {
        "" => None,
        token => Some(
            token
                .strip_prefix(SYNC_TOKEN)
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or(DavError::InvalidSyncToken)?,
        ),
    };
    // From an empty token: the members, read with the calendar at `calendar.version`.
    // From a token: the tasks changed since, read with the space's tasks at one version.
    let (members, changed, version) = match since {
        None => (members, Vec::new(), calendar.version),
        Some(n) => {
            let (tasks, changed, version) = app
                .spaces
                .read(&calendar.space, move |s| {
                    let changed = s.changes(n, usize::MAX).ok().map(|page| {
                        page.changes
                            .into_iter()
                            .filter(|t| t.kind == Kind::Task)
                            .map(|t| t.record)
                            .collect::<Vec<_>>()
                    });
                    (s.calendar_tasks(), changed, s.version())
                })
                .await
                .map_err(|_| DavError::NotFound)?;
            let changed = changed.ok_or(DavError::InvalidSyncToken)?;
            let members = Members {
                tasks,
                list: members.list,
            };
            (members, changed, version)
        }
    };
    let mut shown: Vec<&Record> = match since {
        None => members.iter().collect(),
        Some(_) => changed.iter().map(|t| &**t).collect(),
    };
    let mut version = version;
    let mut truncated = None;
    if let Some(limit) = limit.filter(|&n| shown.len() > n) {
        // The changes in version order, cut after the limit: the token is the version of
        // the last one answered, so the next sync starts right after it.
        shown.sort_by_key(|t| t.version);
        shown.truncate(limit);
        version = shown.last().map_or(since.unwrap_or(0), |t| t.version);
        truncated = Some(calendar.path.as_str());
    }
    let responses: Vec<(String, Option<xml::Found>)> = shown
        .iter()
        .map(|t| {
            let href = format!("{}{}", calendar.path, object_name(t));
            let found = members
                .contains(t)
                .then(|| asked.answer(|p| object_prop(t, members.records(), p)));
            (href, found)
        })
        .collect();
    Ok(multi_status_with(
        &responses,
        truncated,
        Some(&sync_token(version)),
    ))
}

/// `GET` of an object: its task as one `VCALENDAR` with its `VTODO`, and the task's
/// `ETag`; `404` for a name no task of the calendar has.
async fn get_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    app: Data<AppState>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req);
    let (_, members) = calendar_of(&app, &caller, &user, &segment).await?;
    let task = members.named(object).ok_or(DavError::NotFound)?;
    let text = vtodo_text(task, members.records());
    Ok(HttpResponse::Ok()
        .content_type(OBJECT_TYPE)
        .insert_header((header::ETAG, etag(task)))
        .body(text))
}

/// The versions an `If-Match` header accepts (`*`: any), or `None` without one; a value
/// that is no list of taskd `ETag`s accepts none.
fn if_match(req: &HttpRequest) -> Option<IfMatch> {
    let value = req.headers().get(header::IF_MATCH)?.to_str().unwrap_or("");
    if value.trim() == "*" {
        return Some(IfMatch::Any);
    }
    let versions = value
        .split(',')
        .filter_map(|tag| {
            tag.trim()
                .trim_start_matches("W/")
                .trim_matches('"')
                .parse()
                .ok()
        })
        .collect();
    Some(IfMatch::Versions(versions))
}

/// `DELETE` of an object: its task is soft-deleted (§4) by a write of its own; `If-Match`
/// with the task's `ETag` (or `*`) makes it conditional (`412` when stale). `204`; `403`
/// for a caller who may not write in the space, `404` for a name no task of the calendar
/// has.
async fn delete_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    app: Data<AppState>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req);
    let (calendar, members) = calendar_of(&app, &caller, &user, &segment).await?;
    let task = members.named(object).ok_or(DavError::NotFound)?;
    if !calendar.writable {
        return Err(DavError::Forbidden);
    }
    let write = Write {
        commands: vec![Command {
            kind: Kind::Task,
            id: (*task.id).into(),
            op: Op::SetDeleted(true),
            if_match: if_match(&req),
        }],
        key: None,
    };
    match app.spaces.call(&calendar.space, write).await {
        Ok(Ok(_)) => Ok(HttpResponse::NoContent().finish()),
        Ok(Err((_, SpaceError::PreconditionFailed { .. }))) => Err(DavError::PreconditionFailed),
        Ok(Err((_, SpaceError::NotFound { .. }))) => Err(DavError::NotFound),
        Ok(Err((_, e))) => Err(DavError::BadRequest(e.to_string())),
        Err(e) => Err(DavError::Unavailable(e.to_string())),
    }
}

/// The object name of a request's path as the client sent it (still percent-encoded), so
/// that the name kept and the `href`s answered are byte for byte the client's.
fn object_segment(req: &HttpRequest) -> &str {
    req.path().rsplit('/').next().unwrap_or_default()
}

/// Whether a request carries `If-None-Match: *` (create only).
fn if_none_match_any(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() == "*")
}

/// `PUT` of an object: its one `VTODO` becomes a write of the space, built by the same
/// path as the `.ics` import ([`crate::http::calendar::commands`]) so the record rules are
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
/// write is caught too). No `ETag` is answered: taskd stores the meaning, not the bytes.
/// `403` for a caller who may not write, and with `CALDAV:supported-calendar-component`
/// for a body with no `VTODO` or with another component; `400` for a body that is not
/// iCalendar, a VTODO with two `UID`s or more than one VTODO, or a value a task refuses;
/// `409` with `CALDAV:no-uid-conflict` when another object of this calendar has the
/// `UID` or the body gives the object at this path another `UID`. A refused write
/// changes nothing.
async fn put_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    body: web::Bytes,
    app: Data<AppState>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req);
    let (calendar, members) = calendar_of(&app, &caller, &user, &segment).await?;
    if !calendar.writable {
        return Err(DavError::Forbidden);
    }
    let text = String::from_utf8(body.to_vec())
        .map_err(|_| DavError::BadRequest("the body must be UTF-8 iCalendar text".into()))?;
    let parsed = web::block(move || parse_calendar(&text))
        .await
        .map_err(|e| DavError::Unavailable(format!("calendar thread: {e}")))?
        .map_err(|e| DavError::BadRequest(e.to_string()))?;
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
    let (commands, existed) =
        put_commands(&parsed.todos[0], &members, &object, if_none_match, if_match)?;
    let write = Write {
        commands,
        key: None,
    };
    match app.spaces.call(&calendar.space, write).await {
        Ok(Ok(_)) if existed => Ok(HttpResponse::NoContent().finish()),
        Ok(Ok(_)) => Ok(HttpResponse::Created().finish()),
        Ok(Err((_, SpaceError::PreconditionFailed { .. }))) => Err(DavError::PreconditionFailed),
        Ok(Err((_, SpaceError::AlreadyExists { .. }))) => Err(DavError::PreconditionFailed),
        Ok(Err((_, e))) => Err(DavError::BadRequest(e.to_string())),
        Err(e) => Err(DavError::Unavailable(e.to_string())),
    }
}

/// The commands of a `PUT` of `todo` as the object `object` of the calendar of
/// `members`, and whether the object existed (see [`put_object`] for the preconditions
/// and refusals). O(log n) in the space's tasks.
fn put_commands(
    todo: &Todo,
    members: &Members,
    object: &str,
    if_none_match: bool,
    if_match: Option<IfMatch>,
) -> Result<(Vec<Command>, bool), DavError> {
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
        keep_object_name(changes, object);
    }
    Ok((commands, at_path.is_some()))
}

/// Makes the calendar data a write of `changes` keeps name the object `name`, as the
/// client's `PUT` named it.
fn keep_object_name(changes: &mut Changes, name: &str) {
    for (_, value) in &mut changes.fields {
        if let Value::Calendar(kept) = value {
            kept.object = Some(name.into());
        }
    }
}

/// `MKCALENDAR`: `403`, since calendars are the lists of the JSON API, made there.
async fn mkcalendar(DavCaller(_): DavCaller) -> Result<HttpResponse, DavError> {
    Err(DavError::Forbidden)
}

/// `/.well-known/caldav` (any method): `301` to `/dav/` (RFC 6764).
async fn well_known() -> HttpResponse {
    HttpResponse::MovedPermanently()
        .insert_header((header::LOCATION, HeaderValue::from_static("/dav/")))
        .finish()
}

/// Registers the CalDAV routes.
pub(crate) fn configure(cfg: &mut ServiceConfig) {
    let propfind_method = Method::from_bytes(b"PROPFIND").expect("a method name");
    cfg.service(web::resource("/.well-known/caldav").to(well_known));
    // A client given the server's root URL asks it for the principal (the `caldav`
    // library does): `PROPFIND /` answers as `/dav/` does; other methods on `/` are not
    // the CalDAV front's (the guard leaves them to the JSON API's `404`).
    cfg.service(
        web::resource("/")
            .guard(actix_web::guard::Method(propfind_method.clone()))
            .to(propfind),
    );
    for path in ["/dav/", "/dav/principals/{userId}/"] {
        cfg.service(resource(
            path,
            COLLECTION,
            propfind_method.clone(),
            propfind,
        ));
    }
    cfg.service(resource(
        "/dav/calendars/{userId}/",
        COLLECTION,
        propfind_method.clone(),
        propfind_home,
    ));
    let report_method = Method::from_bytes(b"REPORT").expect("a method name");
    let mkcalendar_method = Method::from_bytes(b"MKCALENDAR").expect("a method name");
    cfg.service(
        resource(
            "/dav/calendars/{userId}/{calendar}/",
            CALENDAR,
            propfind_method,
            propfind_calendar,
        )
        .route(web::method(report_method).to(report_calendar))
        .route(web::method(mkcalendar_method).to(mkcalendar)),
    );
    cfg.service(
        resource(
            "/dav/calendars/{userId}/{calendar}/{object}",
            OBJECT,
            Method::GET,
            get_object,
        )
        .route(web::put().to(put_object))
        .route(web::delete().to(delete_object)),
    );
}
