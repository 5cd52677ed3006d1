//! The problem+json responses of docs §7, one component per status (`Problem400`, ...),
//! whose texts name the limits of [`crate::model::limits`], and the sets of them an
//! operation answers (`responses(Reads)`).

use std::collections::BTreeMap;

use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};

use super::texts;
use super::{header, reference};

/// The status of every problem response, each a component `Problem{status}`.
pub(super) const STATUSES: &[u16] = &[
    400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503,
];

/// A set of problem responses an operation answers besides its success: the
/// references to the components above, so the document holds each text once.
macro_rules! problem_sets {
    ($($(#[$doc:meta])* $name:ident = $statuses:expr,)*) => {$(
        $(#[$doc])*
        pub(crate) struct $name;

        impl $name {
            pub(super) const STATUSES: &'static [u16] = $statuses;
        }

        impl utoipa::IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                problem_refs(Self::STATUSES)
            }
        }
    )*};
}

problem_sets! {
    /// A read that any token's user may make (`/me`, the feed, the stream, a collection).
    Reads = &[400, 401, 404, 429, 500, 503],
    /// A read of a route only users have (spaces, members, invitations, tokens): the
    /// admin token, or a scoped one where only the primary may act, is 403.
    UserReads = &[400, 401, 403, 404, 429, 500, 503],
    /// A change to the directory without a body (a deletion, an acceptance, a new
    /// primary token): the caller's role or token, the directory's refusals and the
    /// idempotency key's (a body is read for its fingerprint: 408, 413).
    DirectoryWrites = &[400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503],
    /// A change to the directory with a JSON body: those, and 415.
    DirectoryBodyWrites = &[400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 503],
    /// Every problem: a batch of record writes, a collection's writes, and the admin's
    /// writes.
    Writes = STATUSES,
    /// A revert (docs §23): a write without a body or idempotency key, so none of 408,
    /// 412, 413, 415; 409 `conflict` with the fields written since.
    Reverts = &[400, 401, 403, 404, 409, 422, 429, 500, 503],
    /// The metrics' problems: 401 but to the admin token, 429 and 503.
    MetricsProblems = &[401, 429, 503],
}

/// The references to the problem responses of `statuses`, by status.
pub(super) fn problem_refs(statuses: &[u16]) -> BTreeMap<String, RefOr<Response>> {
    let reference = |status| RefOr::Ref(Ref::from_response_name(format!("Problem{status}")));
    statuses
        .iter()
        .map(|s| (s.to_string(), reference(s)))
        .collect()
}

/// The problem+json response of `status`, naming the codes it comes with.
pub(super) fn problem_response(status: u16) -> Response {
    let content = ContentBuilder::new().schema(Some(reference("Problem")));
    let response = ResponseBuilder::new()
        .description(texts::problem(status))
        .content("application/problem+json", content.build());
    match status {
        429 | 503 => response.header("Retry-After", header("Retry-After")),
        _ => response,
    }
    .build()
}
