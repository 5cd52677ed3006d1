//! `PROPFIND`: of the discovery resources, the calendar home and a calendar, and the
//! `207 Multi-Status` answer that it and `REPORT` write as they make it.

use std::borrow::Cow;
use std::io;

use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};

use super::calendars::{
    calendar_home, calendar_of, calendars, principal, sync_token, CalendarInfo,
};
use super::objects::{object_segment, vtodo_text, OBJECT_TYPE};
use super::request::{DavBody, DavCaller};
use super::xml::{self, Multistatus, Prop, PropValue, Requested};
use super::DavError;
use crate::core::{conditional, Core};
use crate::ical::object_name;
use crate::model::record::{Record, Records};
use crate::model::Caller;
use crate::threads::heavy::{self, Sink};

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
pub(super) async fn propfind(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    DavBody(body): DavBody,
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
    let owner = caller.account.id.clone();
    Ok(multi_status(&owner, move |mut answer| {
        answer.response(&path, Some(&found))?;
        answer.finish(None, None)
    })
    .await)
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
pub(super) async fn propfind_home(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    DavBody(body): DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let path = req.path().to_owned();
    if path != calendar_home(&caller.account.id) {
        return Err(DavError::NotFound);
    }
    let asked = asked(&body, &COLLECTION_PROPS)?;
    let calendars = match with_members(&req) {
        true => calendars(&core, &caller).await,
        false => Vec::new(),
    };
    let owner = caller.account.id.clone();
    Ok(multi_status(&owner, move |mut answer| {
        answer.response(&path, Some(&asked.answer(|p| home_prop(&caller, p))))?;
        for calendar in &calendars {
            let found = asked.answer(|p| calendar_prop(&caller, calendar, p));
            answer.response(&calendar.path, Some(&found))?;
        }
        answer.finish(None, None)
    })
    .await)
}

/// The properties a `PROPFIND` asks for.
pub(super) struct Asked {
    pub(super) props: Vec<Prop>,
    /// Whether it asked for all (`allprop`): then a resource answers those it has only.
    pub(super) all: bool,
}

impl Asked {
    /// What a resource whose properties `value` gives answers.
    pub(super) fn answer(&self, value: impl Fn(&Prop) -> Option<PropValue>) -> xml::Found {
        self.props
            .iter()
            .map(|p| (p.clone(), value(p)))
            .filter(|(_, v)| !self.all || v.is_some())
            .collect()
    }
}

/// The properties a `PROPFIND` body asks for; `all` for an empty body or `allprop`.
pub(super) fn asked(body: &[u8], all: &[(&str, &str)]) -> Result<Asked, DavError> {
    Ok(match xml::requested(body).map_err(DavError::BadRequest)? {
        Requested::Props(props) => Asked { props, all: false },
        Requested::All => Asked {
            props: all.iter().map(|(ns, name)| Prop::new(ns, name)).collect(),
            all: true,
        },
    })
}

/// A `207 Multi-Status` answer whose body `write` makes: on the heavy pool in `owner`'s
/// turn, and sent
/// as it is written ([`heavy::stream`]), so an answer over a whole calendar is neither
/// made on an HTTP worker nor held whole. `write` ends the body ([`Multistatus::finish`]);
/// what could fail the request was checked before.
pub(super) async fn multi_status(
    owner: &str,
    write: impl for<'a> FnOnce(Multistatus<&'a mut Sink>) -> io::Result<()> + Send + 'static,
) -> HttpResponse {
    let body = heavy::stream(owner, move |sink| write(Multistatus::start(sink)?)).await;
    HttpResponse::build(StatusCode::MULTI_STATUS)
        .content_type("application/xml; charset=utf-8")
        .streaming(body)
}

/// The value of `prop` on a task's object, or `None` where it has none; `tasks` are the
/// space's, whose `UID`s its predecessors are sent by.
pub(super) fn object_prop(task: &Record, tasks: &Records, prop: &Prop) -> Option<PropValue> {
    rendered_object_prop(task, tasks, None, prop)
}

/// [`object_prop`], with the task's object text when it was rendered already. The text
/// is that of `GET` ([`vtodo_text`]), so `calendar-data` and `getcontentlength` agree
/// with it, as `getetag` agrees with its `ETag`.
pub(super) fn rendered_object_prop(
    task: &Record,
    tasks: &Records,
    text: Option<&str>,
    prop: &Prop,
) -> Option<PropValue> {
    let text = || match text {
        Some(text) => Cow::Borrowed(text),
        None => vtodo_text(task, tasks),
    };
    Some(match (prop.namespace.as_str(), prop.name.as_str()) {
        (xml::CALDAV, "calendar-data") => PropValue::Text(text().into_owned()),
        (xml::DAV, "getcontentlength") => PropValue::Text(text().len().to_string()),
        (xml::DAV, "getetag") => PropValue::Text(conditional::etag(task.version)),
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

/// What `allprop` answers of an object asked for itself.
const ONE_OBJECT_PROPS: [(&str, &str); 4] = [
    (xml::DAV, "getetag"),
    (xml::DAV, "getcontenttype"),
    (xml::DAV, "resourcetype"),
    (xml::DAV, "getcontentlength"),
];

/// `PROPFIND` of an object (docs §27), at any `Depth` (an object has no members): the
/// properties asked for (`getetag`, `getcontenttype`, `resourcetype`, empty, and
/// `getcontentlength`, the length of what `GET` answers; all four for an empty body or
/// `allprop`), the values `GET` and `REPORT` give. `207 Multi-Status`; `404` for a name
/// no task of the calendar has (or a calendar the caller does not reach).
pub(super) async fn propfind_object(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String, String)>,
    DavBody(body): DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let (user, segment, _) = path.into_inner();
    let object = object_segment(&req).to_owned();
    let (_, members) = calendar_of(&core, &caller, &user, &segment).await?;
    members.named(&object).ok_or(DavError::NotFound)?;
    let asked = asked(&body, &ONE_OBJECT_PROPS)?;
    let href = req.path().to_owned();
    let owner = caller.account.id.clone();
    Ok(multi_status(&owner, move |mut answer| {
        let task = members
            .named(&object)
            .expect("found above, in the same members");
        let found = asked.answer(|p| object_prop(task, members.records(), p));
        answer.response(&href, Some(&found))?;
        answer.finish(None, None)
    })
    .await)
}

/// `PROPFIND` of a calendar: the collection, and with `Depth: 1` (or none) each of its
/// tasks' objects (`getetag`, `getcontenttype`, `resourcetype`). `207 Multi-Status`; `404`
/// for a calendar the caller does not reach.
pub(super) async fn propfind_calendar(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String)>,
    DavBody(body): DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let (user, segment) = path.into_inner();
    let (calendar, members) = calendar_of(&core, &caller, &user, &segment).await?;
    let all = [&COLLECTION_PROPS[..], &OBJECT_PROPS[..]].concat();
    let asked = asked(&body, &all)?;
    let with_members = with_members(&req);
    let owner = caller.account.id.clone();
    Ok(multi_status(&owner, move |mut answer| {
        let found = asked.answer(|p| calendar_prop(&caller, &calendar, p));
        answer.response(&calendar.path, Some(&found))?;
        if with_members {
            for task in members.iter() {
                let href = format!("{}{}", calendar.path, object_name(task));
                let found = asked.answer(|p| object_prop(task, members.records(), p));
                answer.response(&href, Some(&found))?;
            }
        }
        answer.finish(None, None)
    })
    .await)
}
