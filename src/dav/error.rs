//! Why a CalDAV request failed, and how each failure is answered.

use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};

use crate::actors::Failure;
use crate::edge::body::BodyError;
use crate::edge::budget::{retry_after, Exhausted};
use crate::threads::heavy::Lost;

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
    /// A `PUT` that breaks a rule of subtasks (docs §22): `403` with a problem body that
    /// carries the `code` the JSON API gives the same refusal.
    #[error("{detail}")]
    TreeRule {
        /// The JSON API's problem code (`parent_cycle`, `too_deep`, …).
        code: &'static str,
        /// Why.
        detail: String,
    },
    /// The body did not arrive within `--body-timeout-ms` (`408`, the connection closed).
    #[error("the request body did not arrive in time")]
    RequestTimeout,
    /// A body over the bound of CalDAV bodies (`413`).
    #[error("the request body is too large")]
    PayloadTooLarge,
    /// The token's budget is spent (`429` with `Retry-After`, docs §25).
    #[error("{0}")]
    OverBudget(Exhausted),
    /// The space could not take the write now (overloaded, stopping, storage): why.
    #[error("{0}")]
    Unavailable(String),
}

impl From<BodyError> for DavError {
    fn from(e: BodyError) -> DavError {
        match e {
            BodyError::TooLarge => DavError::PayloadTooLarge,
            BodyError::TimedOut => DavError::RequestTimeout,
            BodyError::Unreadable(_) => DavError::BadRequest(e.to_string()),
        }
    }
}

impl From<Failure> for DavError {
    fn from(e: Failure) -> DavError {
        DavError::Unavailable(e.to_string())
    }
}

impl From<Lost> for DavError {
    fn from(e: Lost) -> DavError {
        DavError::Unavailable(e.to_string())
    }
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
            | DavError::UnsupportedComponent
            | DavError::TreeRule { .. } => StatusCode::FORBIDDEN,
            DavError::UidConflict => StatusCode::CONFLICT,
            DavError::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            DavError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            DavError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            DavError::OverBudget(_) => StatusCode::TOO_MANY_REQUESTS,
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
            DavError::RequestTimeout => {
                response.force_close();
            }
            DavError::OverBudget(Exhausted(wait)) => {
                response.insert_header((header::RETRY_AFTER, retry_after(*wait)));
            }
            DavError::TreeRule { code, detail } => {
                let problem = serde_json::json!({
                    "type": "about:blank", "title": "Forbidden", "status": 403,
                    "code": code, "detail": detail,
                });
                return response
                    .content_type("application/problem+json")
                    .body(problem.to_string());
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
