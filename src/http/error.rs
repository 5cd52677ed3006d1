//! The one mapping from every failure to an HTTP status and a problem+json body
//! (RFC 9457) with a `code`.

use super::dto::{ConflictField, Problem, ProblemField};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use std::time::Duration;

use crate::actors::keys::{MAX_BYTES, MAX_KEYS};
use crate::actors::Failure;
use crate::core::service::BackupFailure;
use crate::edge::body::BodyError;
use crate::edge::budget::{retry_after, Exhausted};
use crate::edge::Refusal;
use crate::metrics::METRICS;
use crate::model::access::{Denied, Reason};
use crate::model::activity::Conflict;
use crate::model::limits::{
    MAX_BODY_BYTES, MAX_STREAMS_PER_TOKEN, MAX_STREAMS_PER_USER, STREAM_RETRY_AFTER_SECS,
};
use crate::model::query::FilterError;
use crate::model::{DirectoryError, FieldError, SpaceError, ValidationError};
use crate::threads::heavy::Lost;

/// Seconds a client is asked to wait before retrying a 503.
const RETRY_AFTER_SECS: &str = "1";

/// A failed request, as the client will see it; shown as `code: detail`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {}", self.code(), self.detail())]
pub enum ApiError {
    /// 400 invalid_json: the body is not JSON, or not an object.
    InvalidJson(String),
    /// 400 validation_failed: bad fields, each named.
    Validation(#[from] ValidationError),
    /// 400 invalid_parameter: a malformed query parameter or path id.
    InvalidParameter(String),
    /// 400 invalid_cursor: a garbled cursor or one from another query.
    InvalidCursor,
    /// 400 invalid_filter: a task listing's `filter=` that does not parse or does not fit
    /// the task fields; the problem adds its `position` (docs §17).
    InvalidFilter(FilterError),
    /// 400 space_conflict: query and body name different spaces.
    SpaceConflict,
    /// 401 unauthorized: no token, or an unknown one.
    Unauthorized,
    /// 403 forbidden: the caller's role or token does not allow it, or a user token on an
    /// admin route, or the admin token on a user's route.
    Forbidden(Reason),
    /// 404 not_found: no such record, space or route.
    NotFound(String),
    /// 405 method_not_allowed, with the methods the path allows.
    MethodNotAllowed(&'static str),
    /// 409 already_exists.
    AlreadyExists(String),
    /// 409 record_deleted.
    RecordDeleted(String),
    /// 409 conflict: a revert would set back fields written since (docs §23).
    RevertConflict(Vec<Conflict>),
    /// 409 idempotency_key_in_use: the first request with the key is still running.
    IdempotencyKeyInUse,
    /// 409 default_space: a default space cannot be shared, left or deleted.
    DefaultSpace,
    /// 409 last_owner: a space must keep an owner.
    LastOwner,
    /// 409 limit_reached: a limit of §13, §14 or §22.
    LimitReached(String),
    /// 409 parent_deleted: a restore of a task whose parent is deleted (docs §22).
    ParentDeleted(String),
    /// 412 precondition_failed: `If-Match` did not match.
    PreconditionFailed(String),
    /// 422 idempotency_key_reused: the key came with another method, path or body.
    IdempotencyKeyReused,
    /// 408 request_timeout: the body did not arrive in time; the connection is closed.
    RequestTimeout,
    /// 413 payload_too_large.
    PayloadTooLarge,
    /// 415 unsupported_media_type.
    UnsupportedMediaType,
    /// 422 invalid_reference.
    InvalidReference(String),
    /// 422 invalid_webhook_url: the URL's host resolves to an address §19 refuses.
    InvalidWebhookUrl(String),
    /// 422 dependency_cycle: predecessors that would close a cycle; the body's `cycle`
    /// lists its ids in order (docs §15).
    DependencyCycle {
        /// The detail, naming the cycle.
        detail: String,
        /// The cycle's ids in order.
        cycle: Vec<String>,
    },
    /// 422 dependency_too_complex: the request's dependency checks would follow more edges
    /// than its budget (docs §21); nothing was changed.
    DependencyTooComplex(String),
    /// 422 view_too_large: a live view's `reset` would hold more tasks than docs §24
    /// allows.
    ViewTooLarge(String),
    /// 422 parent_cycle: a `parentId` naming the task itself or a descendant (docs §22).
    ParentCycle(String),
    /// 422 too_deep: a chain of parents longer than docs §22 allows.
    TooDeep(String),
    /// 429 too_many_requests, with `Retry-After`: too many failed authentications.
    TooManyRequests(Duration),
    /// 429 too_many_requests, with `Retry-After`: a new idempotency key of a user whose
    /// kept answers are at their bound and all younger than an hour (§9a).
    TooManyKeys(Duration),
    /// 429 too_many_requests, with `Retry-After: 5`: the user has 100 streams open (§9a).
    TooManyStreams,
    /// 429 too_many_requests, with `Retry-After` and `violatedPolicies`: the token's budget
    /// is spent (docs §25).
    OverBudget(Exhausted),
    /// 429 too_many_requests, with `Retry-After: 5` and `violatedPolicies`: the token has
    /// 20 streams open while it has a budget (docs §25).
    TooManyTokenStreams,
    /// 500 internal: the cause is logged, never shown.
    Internal(String),
    /// Operation `index` of a batch failed with `error`: the problem names the index.
    InOperation {
        /// The operation's position in the batch.
        index: usize,
        /// Its error.
        #[source]
        error: Box<ApiError>,
    },
    /// 503 unavailable, with `Retry-After`: overloaded or shutting down.
    Unavailable(&'static str),
    /// 503 not_primary, with `Retry-After`: this node is a standby (§16).
    NotPrimary,
    /// 503 storage_unavailable, with `Retry-After`: the journal cannot store writes.
    StorageUnavailable(String),
    /// 503 storage_unavailable, with `Retry-After`: the journal's storage has not answered
    /// for this long; a write may still be stored once it does.
    StorageStalled(Duration),
}

impl ApiError {
    fn code(&self) -> &'static str {
        match self {
            ApiError::InvalidJson(_) => "invalid_json",
            ApiError::Validation(_) => "validation_failed",
            ApiError::InvalidParameter(_) => "invalid_parameter",
            ApiError::InvalidCursor => "invalid_cursor",
            ApiError::InvalidFilter(_) => "invalid_filter",
            ApiError::SpaceConflict => "space_conflict",
            ApiError::Unauthorized => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::AlreadyExists(_) => "already_exists",
            ApiError::RecordDeleted(_) => "record_deleted",
            ApiError::RevertConflict(_) => "conflict",
            ApiError::IdempotencyKeyInUse => "idempotency_key_in_use",
            ApiError::DefaultSpace => "default_space",
            ApiError::LastOwner => "last_owner",
            ApiError::LimitReached(_) => "limit_reached",
            ApiError::ParentDeleted(_) => "parent_deleted",
            ApiError::ParentCycle(_) => "parent_cycle",
            ApiError::TooDeep(_) => "too_deep",
            ApiError::PreconditionFailed(_) => "precondition_failed",
            ApiError::IdempotencyKeyReused => "idempotency_key_reused",
            ApiError::InOperation { error, .. } => error.code(),
            ApiError::RequestTimeout => "request_timeout",
            ApiError::PayloadTooLarge => "payload_too_large",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::InvalidReference(_) => "invalid_reference",
            ApiError::InvalidWebhookUrl(_) => "invalid_webhook_url",
            ApiError::DependencyCycle { .. } => "dependency_cycle",
            ApiError::DependencyTooComplex(_) => "dependency_too_complex",
            ApiError::ViewTooLarge(_) => "view_too_large",
            ApiError::TooManyRequests(_)
            | ApiError::TooManyKeys(_)
            | ApiError::TooManyStreams
            | ApiError::OverBudget(_)
            | ApiError::TooManyTokenStreams => "too_many_requests",
            ApiError::Internal(_) => "internal",
            ApiError::Unavailable(_) => "unavailable",
            ApiError::NotPrimary => "not_primary",
            ApiError::StorageUnavailable(_) | ApiError::StorageStalled(_) => "storage_unavailable",
        }
    }

    fn detail(&self) -> String {
        match self {
            ApiError::InvalidJson(d)
            | ApiError::InvalidParameter(d)
            | ApiError::NotFound(d)
            | ApiError::AlreadyExists(d)
            | ApiError::RecordDeleted(d)
            | ApiError::PreconditionFailed(d)
            | ApiError::LimitReached(d)
            | ApiError::ParentDeleted(d)
            | ApiError::ParentCycle(d)
            | ApiError::TooDeep(d)
            | ApiError::InvalidReference(d)
            | ApiError::InvalidWebhookUrl(d)
            | ApiError::DependencyTooComplex(d)
            | ApiError::ViewTooLarge(d)
            | ApiError::DependencyCycle { detail: d, .. } => d.clone(),
            ApiError::DefaultSpace => DirectoryError::DefaultSpace.to_string(),
            ApiError::RevertConflict(_) => {
                "records were written since that version; send force=true to undo it anyway".into()
            }
            ApiError::LastOwner => DirectoryError::LastOwner.to_string(),
            ApiError::IdempotencyKeyInUse => {
                "the first request with this Idempotency-Key is still running".into()
            }
            ApiError::IdempotencyKeyReused => {
                "this Idempotency-Key was used with another method, path or body".into()
            }
            ApiError::InOperation { index, error } => {
                format!("operation {index} failed: {}", error.detail())
            }
            ApiError::Validation(e) => format!("the request body is not valid: {e}"),
            ApiError::InvalidCursor => SpaceError::InvalidCursor.to_string(),
            ApiError::InvalidFilter(e) => format!("filter: {}", e.detail),
            ApiError::SpaceConflict => {
                "the query and the body name different spaces (spaceId)".into()
            }
            ApiError::Unauthorized => "a valid bearer token is required".into(),
            ApiError::Forbidden(reason) => match reason {
                Reason::Role => "the caller's role in this space does not allow this".into(),
                Reason::ReadOnlyToken => "this token may only read".into(),
                Reason::PrimaryTokenOnly => "only the user's primary token may do this".into(),
                Reason::AdminOnly => "this route needs the admin token".into(),
                Reason::Admin => "the admin token is not a user's token".into(),
            },
            ApiError::MethodNotAllowed(allow) => format!("this path allows {allow}"),
            ApiError::RequestTimeout => "the request body did not arrive in time".into(),
            ApiError::PayloadTooLarge => {
                format!("the request body is over {} MiB", MAX_BODY_BYTES >> 20)
            }
            ApiError::TooManyRequests(_) => {
                "too many failed authentications from this address; retry later".into()
            }
            ApiError::TooManyKeys(_) => format!(
                "this user holds {MAX_KEYS} idempotency keys or {} MiB of kept answers, all \
                 younger than an hour; retry later, or without a new key",
                MAX_BYTES >> 20
            ),
            ApiError::TooManyStreams => {
                format!("this user has {MAX_STREAMS_PER_USER} change streams open; close one")
            }
            ApiError::OverBudget(exhausted) => exhausted.to_string(),
            ApiError::TooManyTokenStreams => format!(
                "this token has {MAX_STREAMS_PER_TOKEN} streams open, the most a token with a \
                 budget may; close one"
            ),
            ApiError::UnsupportedMediaType => {
                "a request body must be sent as Content-Type: application/json".into()
            }
            ApiError::Internal(_) => "an internal error occurred; it has been logged".into(),
            ApiError::Unavailable(why) => why.to_string(),
            ApiError::NotPrimary => {
                "this node is a standby; send requests to the primary (through the proxy)".into()
            }
            ApiError::StorageUnavailable(why) => {
                format!("the write could not be stored and was not applied: {why}")
            }
            ApiError::StorageStalled(waited) => format!(
                "the storage has not answered for {} s; a write may still be stored once it \
                 does: retry it with the same Idempotency-Key to learn its outcome",
                waited.as_secs()
            ),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::InvalidJson(_)
            | ApiError::Validation(_)
            | ApiError::InvalidParameter(_)
            | ApiError::InvalidCursor
            | ApiError::InvalidFilter(_)
            | ApiError::SpaceConflict => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::AlreadyExists(_)
            | ApiError::RecordDeleted(_)
            | ApiError::RevertConflict(_)
            | ApiError::IdempotencyKeyInUse
            | ApiError::DefaultSpace
            | ApiError::LastOwner
            | ApiError::LimitReached(_)
            | ApiError::ParentDeleted(_) => StatusCode::CONFLICT,
            ApiError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            ApiError::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::InOperation { error, .. } => error.status_code(),
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::TooManyRequests(_)
            | ApiError::TooManyKeys(_)
            | ApiError::TooManyStreams
            | ApiError::OverBudget(_)
            | ApiError::TooManyTokenStreams => StatusCode::TOO_MANY_REQUESTS,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::InvalidReference(_)
            | ApiError::InvalidWebhookUrl(_)
            | ApiError::DependencyCycle { .. }
            | ApiError::DependencyTooComplex(_)
            | ApiError::ViewTooLarge(_)
            | ApiError::ParentCycle(_)
            | ApiError::TooDeep(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable(_)
            | ApiError::NotPrimary
            | ApiError::StorageUnavailable(_)
            | ApiError::StorageStalled(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let (this, operation) = match self {
            ApiError::InOperation { index, error } => (&**error, Some(*index)),
            other => (other, None),
        };
        let status = this.status_code();
        let body = Problem {
            code: this.code(),
            cycle: match this {
                ApiError::DependencyCycle { cycle, .. } => Some(cycle.clone()),
                _ => None,
            },
            detail: self.detail(),
            errors: match this {
                ApiError::Validation(e) => Some(
                    e.errors
                        .iter()
                        .map(|e| ProblemField {
                            field: e.field.clone(),
                            message: e.message.clone(),
                        })
                        .collect(),
                ),
                _ => None,
            },
            fields: match this {
                ApiError::RevertConflict(conflicts) => Some(
                    conflicts
                        .iter()
                        .map(|c| ConflictField {
                            kind: c.kind.noun(),
                            id: c.id.clone(),
                            field: c.field,
                        })
                        .collect(),
                ),
                _ => None,
            },
            operation_index: operation,
            position: match this {
                ApiError::InvalidFilter(e) => Some(e.position),
                _ => None,
            },
            status: status.as_u16(),
            title: status.canonical_reason().unwrap_or("Error"),
            kind: "about:blank",
            violated_policies: matches!(
                this,
                ApiError::OverBudget(_) | ApiError::TooManyTokenStreams
            )
            .then_some(["token"]),
        };
        let mut response = HttpResponse::build(status);
        response.content_type("application/problem+json");
        match this {
            ApiError::Unauthorized => {
                response
                    .insert_header((header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer")));
            }
            ApiError::MethodNotAllowed(allow) => {
                response.insert_header((header::ALLOW, HeaderValue::from_static(allow)));
            }
            ApiError::Unavailable(_)
            | ApiError::NotPrimary
            | ApiError::StorageUnavailable(_)
            | ApiError::StorageStalled(_) => {
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECS));
            }
            ApiError::TooManyRequests(wait) | ApiError::TooManyKeys(wait) => {
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                response.insert_header((header::RETRY_AFTER, secs.max(1)));
            }
            ApiError::TooManyStreams | ApiError::TooManyTokenStreams => {
                response.insert_header((header::RETRY_AFTER, STREAM_RETRY_AFTER_SECS));
            }
            ApiError::OverBudget(Exhausted(wait)) => {
                response.insert_header((header::RETRY_AFTER, retry_after(*wait)));
            }
            ApiError::RequestTimeout => {
                response.force_close();
            }
            _ => {}
        }
        response.body(serde_json::to_string(&body).unwrap_or_default())
    }
}

impl ApiError {
    /// Leaves what an answered error tells the operator: an internal error is logged, a
    /// `403` counted by reason. The front middleware calls it once for each response built
    /// from an error, so building a response (or a kept copy of one) has no side effects.
    pub(crate) fn note(&self) {
        match self {
            ApiError::InOperation { error, .. } => error.note(),
            ApiError::Internal(cause) => log::error!("internal error: {cause}"),
            ApiError::Forbidden(reason) => METRICS.forbidden(reason.as_str()),
            _ => {}
        }
    }
}

impl From<SpaceError> for ApiError {
    fn from(e: SpaceError) -> ApiError {
        let detail = e.to_string();
        match e {
            SpaceError::NotFound { .. } => ApiError::NotFound(detail),
            SpaceError::AlreadyExists { .. } => ApiError::AlreadyExists(detail),
            SpaceError::RecordDeleted { .. } => ApiError::RecordDeleted(detail),
            SpaceError::InvalidReference { .. } => ApiError::InvalidReference(detail),
            SpaceError::DependencyCycle { cycle, .. } => {
                ApiError::DependencyCycle { detail, cycle }
            }
            SpaceError::DependencyTooComplex { .. } => ApiError::DependencyTooComplex(detail),
            SpaceError::ViewTooLarge => ApiError::ViewTooLarge(detail),
            SpaceError::ParentCycle { .. } => ApiError::ParentCycle(detail),
            SpaceError::TooDeep { .. } => ApiError::TooDeep(detail),
            SpaceError::TooManyChildren { .. } => ApiError::LimitReached(detail),
            SpaceError::ParentDeleted { .. } => ApiError::ParentDeleted(detail),
            SpaceError::InvalidCursor => ApiError::InvalidCursor,
            SpaceError::InvalidFilter(e) => ApiError::InvalidFilter(e),
            SpaceError::PreconditionFailed { .. } => ApiError::PreconditionFailed(detail),
            SpaceError::SinceAhead { .. } | SpaceError::InvalidRange { .. } => {
                ApiError::InvalidParameter(detail)
            }
            // Firings are made by the reminder timer, never by a request.
            SpaceError::NothingDue { .. } => ApiError::Internal(detail),
            SpaceError::RevertConflict(conflicts) => ApiError::RevertConflict(conflicts),
            SpaceError::InvalidField { field, message } => ApiError::Validation(ValidationError {
                errors: vec![FieldError {
                    field: field.into(),
                    message,
                }],
            }),
        }
    }
}

impl From<Denied> for ApiError {
    fn from(denied: Denied) -> ApiError {
        match denied {
            Denied::Hidden => ApiError::NotFound("space not found".into()),
            Denied::Forbidden(reason) => ApiError::Forbidden(reason),
        }
    }
}

impl From<DirectoryError> for ApiError {
    fn from(e: DirectoryError) -> ApiError {
        match e {
            DirectoryError::NotFound(_) => ApiError::NotFound(e.to_string()),
            DirectoryError::DefaultSpace => ApiError::DefaultSpace,
            DirectoryError::LastOwner => ApiError::LastOwner,
            DirectoryError::LimitReached(what) => ApiError::LimitReached(what),
        }
    }
}

impl From<Failure> for ApiError {
    fn from(e: Failure) -> ApiError {
        match e {
            Failure::Busy => ApiError::Unavailable("the space is overloaded; retry shortly"),
            Failure::Stopped => ApiError::Unavailable("the space is not available"),
            Failure::Gone => ApiError::NotFound("space not found".into()),
            ref failure if failure.is_not_primary() => ApiError::NotPrimary,
            Failure::Storage(e) => ApiError::StorageUnavailable(e.to_string()),
            Failure::Panicked => ApiError::Internal(e.to_string()),
            Failure::Stalled(waited) => ApiError::StorageStalled(waited),
        }
    }
}

impl From<BodyError> for ApiError {
    fn from(e: BodyError) -> ApiError {
        match e {
            BodyError::TooLarge => ApiError::PayloadTooLarge,
            BodyError::TimedOut => ApiError::RequestTimeout,
            BodyError::Unreadable(_) => ApiError::InvalidJson(e.to_string()),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refused: Refusal) -> ApiError {
        match refused {
            Refusal::ShuttingDown => ApiError::Unavailable("the server is shutting down"),
            Refusal::NotPrimary => ApiError::NotPrimary,
            Refusal::LockedOut(wait) => ApiError::TooManyRequests(wait),
            Refusal::OverBudget(wait) => ApiError::OverBudget(Exhausted(wait)),
        }
    }
}

impl From<Lost> for ApiError {
    fn from(e: Lost) -> ApiError {
        ApiError::Internal(e.to_string())
    }
}

impl From<BackupFailure> for ApiError {
    fn from(e: BackupFailure) -> ApiError {
        match e {
            BackupFailure::BadTarget(why) => ApiError::InvalidParameter(why),
            BackupFailure::Failed(why) => ApiError::Internal(format!("backup failed: {why}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    async fn render(error: ApiError) -> (StatusCode, header::HeaderMap, serde_json::Value) {
        let response = error.error_response();
        let status = response.status();
        let headers = response.headers().clone();
        let body = to_bytes(response.into_body()).await.unwrap();
        (status, headers, serde_json::from_slice(&body).unwrap())
    }

    #[actix_web::test]
    async fn an_overloaded_space_is_503_with_retry_after() {
        let (status, headers, body) = render(Failure::Busy.into()).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(headers.get(header::RETRY_AFTER).unwrap(), "1");
        assert_eq!(
            headers.get(header::CONTENT_TYPE).unwrap(),
            "application/problem+json"
        );
        assert_eq!(body["code"], "unavailable");
        assert_eq!(body["status"], 503);
        assert_eq!(body["type"], "about:blank");
        assert_eq!(body["title"], "Service Unavailable");
    }

    #[actix_web::test]
    async fn an_internal_error_shows_none_of_its_cause() {
        let (status, _, body) = render(ApiError::Internal("disk on fire at /secret".into())).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["code"], "internal");
        assert!(!body.to_string().contains("secret"));
    }

    #[actix_web::test]
    async fn domain_errors_map_to_their_statuses_and_codes() {
        use crate::model::Kind;
        let cases = [
            (
                SpaceError::NotFound {
                    kind: Kind::Task,
                    id: "a".into(),
                },
                404,
                "not_found",
            ),
            (
                SpaceError::AlreadyExists {
                    kind: Kind::List,
                    id: "a".into(),
                },
                409,
                "already_exists",
            ),
            (
                SpaceError::RecordDeleted {
                    kind: Kind::List,
                    id: "a".into(),
                },
                409,
                "record_deleted",
            ),
            (
                SpaceError::InvalidReference {
                    field: "listId",
                    id: "x".into(),
                },
                422,
                "invalid_reference",
            ),
            (
                SpaceError::DependencyCycle {
                    field: "predecessorIds",
                    cycle: vec!["a".into(), "b".into()],
                },
                422,
                "dependency_cycle",
            ),
            (
                SpaceError::DependencyTooComplex {
                    field: "predecessorIds",
                    budget: 1_000_000,
                },
                422,
                "dependency_too_complex",
            ),
            (
                SpaceError::ParentCycle {
                    kind: Kind::Task,
                    id: "a".into(),
                    parent: "b".into(),
                },
                422,
                "parent_cycle",
            ),
            (
                SpaceError::TooDeep {
                    kind: Kind::Task,
                    id: "a".into(),
                    depth: 9,
                    max: 8,
                },
                422,
                "too_deep",
            ),
            (
                SpaceError::TooManyChildren {
                    kind: Kind::Task,
                    parent: "a".into(),
                    max: 1_000,
                },
                409,
                "limit_reached",
            ),
            (
                SpaceError::ParentDeleted {
                    kind: Kind::Task,
                    id: "a".into(),
                    parent: "b".into(),
                },
                409,
                "parent_deleted",
            ),
            (SpaceError::InvalidCursor, 400, "invalid_cursor"),
        ];
        for (error, status, code) in cases {
            let (got, _, body) = render(error.into()).await;
            assert_eq!((got.as_u16(), body["code"].as_str()), (status, Some(code)));
        }
    }
}
