//! The CalDAV front (CONTRACT §20, RFC 4791), beside the JSON API and sharing its
//! application state: so far discovery, the part every client does first.
//!
//! Request flow: `/.well-known/caldav` sends a client to `/dav/`; [`DavCaller`] takes the
//! token from HTTP Basic (the password; the user name is not checked) or `Bearer`, and a
//! refusal asks for Basic; `PROPFIND` on `/dav/` or on the caller's principal
//! `/dav/principals/<userId>/` answers the properties a client asks for
//! ([`xml::requested`]) in a `207 Multi-Status` ([`xml::multistatus`]): who the caller is
//! (`current-user-principal`) and where its calendars live (`calendar-home-set`,
//! `/dav/calendars/<userId>/`). Failures are [`DavError`], rendered as DAV clients expect
//! (plain statuses, not problem+json).

#![deny(unreachable_pub)]

mod xml;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::web::{self, Data, ServiceConfig};
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError};
use base64::Engine;
use futures_util::future::{ready, Ready};

use crate::http::AppState;
use crate::model::Caller;
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
    let requested = xml::requested(&body).map_err(DavError::BadRequest)?;
    let props = match requested {
        Requested::Props(props) => props,
        Requested::All => [
            (xml::DAV, "current-user-principal"),
            (xml::DAV, "principal-URL"),
            (xml::DAV, "resourcetype"),
            (xml::DAV, "displayname"),
            (xml::CALDAV, "calendar-home-set"),
        ]
        .into_iter()
        .map(|(namespace, name)| Prop::new(namespace, name))
        .collect(),
    };
    let found = props
        .into_iter()
        .map(|prop| {
            let value = discovery_prop(&caller, &path, &prop);
            (prop, value)
        })
        .collect::<xml::Found>();
    Ok(HttpResponse::build(StatusCode::MULTI_STATUS)
        .content_type("application/xml; charset=utf-8")
        .body(xml::multistatus(&[(path, found)])))
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
}
