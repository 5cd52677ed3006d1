//! The CalDAV front (§20, RFC 4791), beside the JSON API: it keeps only its protocol and
//! goes through the [`Core`](crate::core::Core) for the rest (the caller's access, reads,
//! the one write path, the conditional rule, bounded heavy work), with the iCalendar
//! mapping of [`crate::ical`].
//!
//! Where each part lives:
//! - [`request`]: who the caller is ([`request::DavCaller`], the token as the Basic password
//!   or `Bearer`) and its body, read at the edge's pace and bound
//!   ([`request::DavBody`]);
//! - [`calendars`]: which calendars a caller has (one per list of each space it reaches,
//!   `<spaceId>.<listId>`, and one per space for tasks without a list, `<spaceId>`) and
//!   which tasks each holds;
//! - [`propfind`]: `PROPFIND` of the discovery resources (`/`, `/dav/`, the principal),
//!   the calendar home, a calendar and an object, answered in a `207 Multi-Status` written as it is
//!   made, off the HTTP workers;
//! - [`report`]: `REPORT` (`calendar-multiget`, `calendar-query`, `sync-collection`);
//! - [`objects`]: `GET`, `HEAD`, `PUT` and `DELETE` of a task's object, kept as a
//!   client sent it while no other write changes it (docs §27);
//! - [`xml`]: reading request bodies and writing `multistatus`; [`filter`]: the
//!   `calendar-query` filter; [`error`]: [`DavError`], rendered as DAV clients expect
//!   (plain statuses, not problem+json).
//!
//! Here: the route table. `/.well-known/caldav` sends a client to `/dav/`.

#![deny(unreachable_pub)]

mod calendars;
mod error;
mod filter;
mod objects;
mod propfind;
mod report;
mod request;
mod xml;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::Method;
use actix_web::web::{self, ServiceConfig};
use actix_web::{FromRequest, HttpResponse};

pub(crate) use error::DavError;
use objects::{delete_object, get_object, put_object};
use propfind::{propfind, propfind_calendar, propfind_home, propfind_object};
use report::report_calendar;
use request::{DavBody, DavCaller};

/// The `DAV` header: the classes and the calendar access taskd speaks.
const DAV_CLASSES: &str = "1, 3, calendar-access";

/// The methods collections answer.
const COLLECTION: &str = "OPTIONS, PROPFIND";

/// The methods calendars answer (`MKCALENDAR` is routed, but only to say `403`).
const CALENDAR: &str = "OPTIONS, PROPFIND, REPORT";

/// The methods objects answer (a missing one too: a `PUT` creates it).
const OBJECT: &str = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND";

/// A resource answering `OPTIONS` (the DAV classes and `allow`), `method` with `handler`,
/// and `405` for any other method. Every route of the front reads its body as
/// [`DavBody`] (within the body timeout), whether it uses it or not.
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
        .route(
            web::method(Method::OPTIONS).to(move |_: DavBody| async move {
                HttpResponse::Ok()
                    .insert_header(("DAV", DAV_CLASSES))
                    .insert_header((header::ALLOW, allow))
                    .finish()
            }),
        )
        .route(web::method(method).to(handler))
        .default_service(web::to(move || async move {
            Err::<HttpResponse, _>(DavError::MethodNotAllowed(allow))
        }))
}

/// `MKCALENDAR`: `403`, since calendars are the lists of the JSON API, made there.
async fn mkcalendar(DavCaller(_): DavCaller, _: DavBody) -> Result<HttpResponse, DavError> {
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
            propfind_method.clone(),
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
        .route(web::method(Method::HEAD).to(get_object))
        .route(web::put().to(put_object))
        .route(web::delete().to(delete_object))
        .route(web::method(propfind_method).to(propfind_object)),
    );
}
