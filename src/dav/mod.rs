//! The CalDAV front (CONTRACT §20, RFC 4791), beside the JSON API and sharing its
//! application state: so far discovery, the part every client does first.
//!
//! Request flow: `/.well-known/caldav` sends a client to `/dav/`; [`DavCaller`] takes the
//! token from HTTP Basic (the password; the user name is not checked) or `Bearer`, and a
//! refusal asks for Basic; `PROPFIND` on `/dav/` or on the caller's principal
//! `/dav/principals/<userId>/` answers the properties a client asks for
//! ([`xml::requested`]) in a `207 Multi-Status` ([`xml::multistatus`]): who the caller is
//! (`current-user-principal`) and where its calendars live (`calendar-home-set`,
//! `/dav/calendars/<userId>/`); `PROPFIND` of that home lists one calendar collection per
//! list of each space the caller reaches, `<spaceId>.<listId>`, and one per space for its
//! tasks without a list, `<spaceId>` ([`calendars`]). Failures are [`DavError`], rendered
//! as DAV clients expect (plain statuses, not problem+json).

#![deny(unreachable_pub)]

mod xml;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError};
use base64::Engine;
use futures_util::future::{ready, Ready};

use crate::http::AppState;
use crate::model::access::{self, Action};
use crate::model::{Caller, Kind};
use xml::{Prop, PropValue, Requested};

/// The `DAV` header: the classes and the calendar access taskd speaks.
const DAV_CLASSES: &str = "1, 3, calendar-access";
/// The methods the discovery resources answer.
const ALLOW: &str = "OPTIONS, PROPFIND";

/// Why a CalDAV request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DavError {
    /// No known, live token: `401` asking for Basic.
    #[error("authentication required")]
    Unauthorized,
    /// Not a resource of the caller.
    #[error("not found")]
    NotFound,
    /// A method the resource does not answer.
    #[error("method not allowed")]
    MethodNotAllowed,
    /// A body or header that cannot be read: why.
    #[error("{0}")]
    BadRequest(String),
}

impl ResponseError for DavError {
    fn status_code(&self) -> StatusCode {
        match self {
            DavError::Unauthorized => StatusCode::UNAUTHORIZED,
            DavError::NotFound => StatusCode::NOT_FOUND,
            DavError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            DavError::BadRequest(_) => StatusCode::BAD_REQUEST,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        match self {
            DavError::Unauthorized => {
                response.insert_header((header::WWW_AUTHENTICATE, r#"Basic realm="taskd""#));
            }
            DavError::MethodNotAllowed => {
                response.insert_header((header::ALLOW, ALLOW));
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

/// `OPTIONS`: the DAV classes and the methods.
async fn options() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("DAV", DAV_CLASSES))
        .insert_header((header::ALLOW, ALLOW))
        .finish()
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

/// `PROPFIND` on `/dav/` or on the caller's principal (another user's is `404`): the
/// properties asked for (all of them for an empty body or `allprop`), with `Depth` 0
/// or 1 alike, since neither resource lists members yet. `207 Multi-Status`.
async fn propfind(
    req: HttpRequest,
    DavCaller(caller): DavCaller,
    body: web::Bytes,
) -> Result<HttpResponse, DavError> {
    let path = req.path().to_owned();
    if path != "/dav/" && path != principal(&caller.account.id) {
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
    let found = props
        .into_iter()
        .map(|prop| {
            let value = discovery_prop(&caller, &path, &prop);
            (prop, value)
        })
        .collect::<xml::Found>();
    Ok(multi_status(&[(path, found)]))
}

/// One calendar collection as `PROPFIND` shows it.
struct CalendarInfo {
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
            path: format!("{}{space}/", calendar_home(user)),
            name: space_name,
            version,
            writable,
        });
        for list in lists.values().filter(|l| !l.is_deleted()) {
            calendars.push(CalendarInfo {
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
    let asked = asked(
        &body,
        &[
            (xml::DAV, "current-user-principal"),
            (xml::DAV, "resourcetype"),
            (xml::DAV, "displayname"),
            (xml::CALENDARSERVER, "getctag"),
            (xml::CALDAV, "supported-calendar-component-set"),
            (xml::DAV, "current-user-privilege-set"),
        ],
    )?;
    let answer = |value: &dyn Fn(&Prop) -> Option<PropValue>| -> xml::Found {
        asked.iter().map(|p| (p.clone(), value(p))).collect()
    };
    let mut responses = vec![(path, answer(&|p| home_prop(&caller, p)))];
    if with_members(&req) {
        for calendar in calendars(&app, &caller).await {
            let found = answer(&|p| calendar_prop(&caller, &calendar, p));
            responses.push((calendar.path, found));
        }
    }
    Ok(multi_status(&responses))
}

/// The properties a `PROPFIND` body asks for; `all` for an empty body or `allprop`.
fn asked(body: &[u8], all: &[(&str, &str)]) -> Result<Vec<Prop>, DavError> {
    Ok(match xml::requested(body).map_err(DavError::BadRequest)? {
        Requested::Props(props) => props,
        Requested::All => all.iter().map(|(ns, name)| Prop::new(ns, name)).collect(),
    })
}

/// A `207 Multi-Status` answer.
fn multi_status(responses: &[(String, xml::Found)]) -> HttpResponse {
    HttpResponse::build(StatusCode::MULTI_STATUS)
        .content_type("application/xml; charset=utf-8")
        .body(xml::multistatus(responses))
}

/// `/.well-known/caldav` (any method): `301` to `/dav/` (RFC 6764).
async fn well_known() -> HttpResponse {
    HttpResponse::MovedPermanently()
        .insert_header((header::LOCATION, HeaderValue::from_static("/dav/")))
        .finish()
}

/// Any other method on a discovery resource.
async fn not_allowed() -> Result<HttpResponse, DavError> {
    Err(DavError::MethodNotAllowed)
}

/// Registers the CalDAV routes.
pub(crate) fn configure(cfg: &mut ServiceConfig) {
    let propfind_method = Method::from_bytes(b"PROPFIND").expect("a method name");
    cfg.service(web::resource("/.well-known/caldav").to(well_known));
    for path in ["/dav/", "/dav/principals/{userId}/"] {
        cfg.service(
            web::resource(path)
                .route(web::method(Method::OPTIONS).to(options))
                .route(web::method(propfind_method.clone()).to(propfind))
                .default_service(web::to(not_allowed)),
        );
    }
    cfg.service(
        web::resource("/dav/calendars/{userId}/")
            .route(web::method(Method::OPTIONS).to(options))
            .route(web::method(propfind_method).to(propfind_home))
            .default_service(web::to(not_allowed)),
    );
}
