//! The problem+json responses of CONTRACT §7, one component per status (`Problem400`,
//! ...), which the operations reference: `(status = 400, response = Problem400)`; the sets
//! of them an operation answers; and their texts, which name the limits of
//! [`crate::model::limits`].

use std::collections::BTreeMap;

use utoipa::ToResponse;

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{Ref, RefOr};

use crate::model::limits::{
    thousands, EDGE_BUDGET, MAX_BODY_BYTES, MAX_INVITATIONS_PER_INVITEE, MAX_INVITATIONS_SENT,
    MAX_MEMBERS, MAX_SPACES_PER_USER, MAX_STREAMS_PER_USER, MAX_TOKENS,
};

use super::{header, reference};

macro_rules! problems {
    ($($name:ident = $status:literal,)*) => {$(
        #[doc = concat!("The problem+json response with status ", stringify!($status), ".")]
        pub(crate) struct $name;

        impl<'s> ToResponse<'s> for $name {
            fn response() -> (&'s str, RefOr<Response>) {
                (stringify!($name), problem_response($status).into())
            }
        }
    )*};
}

/// A set of problem responses an operation answers besides its success: the
/// references to the components above, so the document holds each text once.
macro_rules! problem_sets {
    ($($(#[$doc:meta])* $name:ident = [$($status:literal),*],)*) => {$(
        $(#[$doc])*
        pub(crate) struct $name;

        impl utoipa::IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                [$($status),*]
                    .into_iter()
                    .map(|status: u16| {
                        let name = format!("Problem{status}");
                        (status.to_string(), RefOr::Ref(Ref::from_response_name(name)))
                    })
                    .collect()
            }
        }
    )*};
}

problem_sets! {
    /// A read that any token's user may make (`/me`, the feed, the stream).
    Reads = [400, 401, 404, 429, 500, 503],
    /// A read of a route only users have (spaces, members, invitations, tokens): the
    /// admin token, or a scoped one where only the primary may act, is 403.
    UserReads = [400, 401, 403, 404, 429, 500, 503],
    /// A change to the directory without a body (a deletion, an acceptance, a new
    /// primary token): the caller's role or token, the directory's refusals and the
    /// idempotency key's (a body is read for its fingerprint: 408, 413).
    DirectoryWrites = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503],
    /// A change to the directory with a JSON body: those, and 415.
    DirectoryBodyWrites = [400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 503],
    /// Every problem: a batch of record writes, and the admin's writes.
    Writes = [400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503],
}

problems! {
    Problem400 = 400,
    Problem401 = 401,
    Problem403 = 403,
    Problem404 = 404,
    Problem408 = 408,
    Problem409 = 409,
    Problem412 = 412,
    Problem413 = 413,
    Problem415 = 415,
    Problem422 = 422,
    Problem429 = 429,
    Problem500 = 500,
    Problem503 = 503,
}

/// The problem+json response of `status`, naming the codes it comes with.
pub(super) fn problem_response(status: u16) -> Response {
    let text = match status {
        400 => "invalid_json, validation_failed, invalid_parameter, invalid_cursor, \
                space_conflict or invalid_filter (a task listing's `filter`; `position` is the \
                0-based offset, in code points, of the token where the error was found)"
            .to_string(),
        401 => "unauthorized: no or unknown token".to_string(),
        403 => "forbidden: the caller's role or token does not allow the operation: a record \
                write below editor or with a read-only token, a space or member change below \
                owner, a scoped token where only the primary token may act (spaces, members, \
                tokens), the admin token on a user's route, or a user's token on an admin route"
            .to_string(),
        404 => "not_found: no such record, space or route".to_string(),
        408 => "request_timeout: the body did not arrive in time".to_string(),
        409 => format!(
            "already_exists, record_deleted, idempotency_key_in_use, default_space (a default \
             space cannot be shared, left or deleted), last_owner (a space must keep an owner) \
             or limit_reached ({} spaces per user, {} members and invitations per space, {} \
             live scoped tokens per user, {} pending invitations sent per user, {} pending \
             from one user to another)",
            thousands(MAX_SPACES_PER_USER),
            thousands(MAX_MEMBERS),
            thousands(MAX_TOKENS),
            thousands(MAX_INVITATIONS_SENT),
            thousands(MAX_INVITATIONS_PER_INVITEE),
        ),
        412 => "precondition_failed: `If-Match` did not match".to_string(),
        413 => format!("payload_too_large: body over {} MiB", MAX_BODY_BYTES >> 20),
        415 => "unsupported_media_type: a body without a JSON content type".to_string(),
        422 => format!(
            "invalid_reference, dependency_cycle (with the cycle's ids in order in `cycle`), \
             dependency_too_complex (the request's cycle checks would follow more than {} \
             dependency edges in all; nothing changed; in a batch, `operationIndex` names the \
             operation where the budget ran out) or idempotency_key_reused",
            thousands(EDGE_BUDGET)
        ),
        429 => format!(
            "too_many_requests: too many failed authentications from the client, a new \
             idempotency key while the user's kept answers are at their bound, or a change \
             stream beyond the user's {MAX_STREAMS_PER_USER}"
        ),
        500 => "internal: a bug; the cause is in the log".to_string(),
        _ => "unavailable (overloaded or shutting down) or storage_unavailable (the disk \
              failed, or did not answer within --storage-timeout-ms)"
            .to_string(),
    };
    let response = ResponseBuilder::new().description(text).content(
        "application/problem+json",
        ContentBuilder::new()
            .schema(Some(reference("Problem")))
            .build(),
    );
    match status {
        429 | 503 => response.header("Retry-After", header("Retry-After")),
        _ => response,
    }
    .build()
}
