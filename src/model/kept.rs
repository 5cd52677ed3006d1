//! Idempotent retries (docs §11) as data: a key's use and the answer kept for it. The
//! journal and the keys file store them (see `store::codec`), the keys actor holds them,
//! and the HTTP layer makes and replays them; none of that is here.

use serde::{Deserialize, Serialize};

/// One use of an idempotency key (docs §11): whose, which, for which request, when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyUse {
    /// Position in the order keys were first used, for compaction.
    pub seq: u64,
    /// The user id (or `admin`).
    pub user: Box<str>,
    /// The key.
    pub key: Box<str>,
    /// SHA-256 of the request's method, path with query, and body.
    pub request: [u8; 32],
    /// When it was first used, in milliseconds since the epoch.
    pub at: i64,
}

/// An answer kept for an idempotency key, as the client got it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptAnswer {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: Box<str>,
    /// The `Location` header, if any.
    pub location: Option<Box<str>>,
    /// The `ETag` header, if any.
    pub etag: Option<Box<str>>,
    /// The body.
    pub body: Vec<u8>,
}
