//! The problem+json responses of docs §7, one component per status (`Problem400`,
//! ...), which the operations reference: `(status = 400, response = Problem400)`; the sets
//! of them an operation answers; and their texts, which name the limits of
//! [`crate::model::limits`].

use std::collections::BTreeMap;

use utoipa::ToResponse;

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{Ref, RefOr};

use super::texts;
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
    let text = texts::problem(status);
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
