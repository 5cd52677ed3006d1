//! Request bodies, for every front: each route reads its body through [`read`] (or
//! [`read_body`] once it has the payload), so no body of any front holds its connection
//! past `--body-timeout-ms` (§9, §27) or grows past the bound its route names.
//!
//! What a failure answers is the front's to say (problem+json on the JSON API, a plain
//! status on CalDAV); the reasons are [`BodyError`], the same for all.

use std::future::Future;
use std::time::Duration;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::HttpRequest;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

/// How long a request body may take to arrive once its headers are in (the [`super::Edge`]'s;
/// 10 s when absent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyTimeout(pub Duration);

impl Default for BodyTimeout {
    fn default() -> BodyTimeout {
        BodyTimeout(Duration::from_secs(10))
    }
}

/// Why a body was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BodyError {
    /// More bytes than the route takes, declared or sent (`413`).
    #[error("the request body is too large")]
    TooLarge,
    /// Not all of it arrived within the body timeout (`408`, the connection closed).
    #[error("the request body did not arrive in time")]
    TimedOut,
    /// The connection failed while it was read: why.
    #[error("the request body could not be read: {0}")]
    Unreadable(String),
}

/// How long a body is still read after its timeout passed, before the answer is 408: the
/// bytes the socket already holds when a paused process (`SIGSTOP`, a frozen VM) wakes
/// after its timeout are read, not refused.
const TIMEOUT_GRACE: Duration = Duration::from_millis(50);

/// Reads a whole request body of at most `max` bytes within `timeout`:
/// [`BodyError::TooLarge`] over the size, [`BodyError::TimedOut`] when it does not arrive in
/// time (nor within [`TIMEOUT_GRACE`] after it).
pub(crate) async fn read_body(
    mut payload: Payload,
    timeout: BodyTimeout,
    max: usize,
) -> Result<Bytes, BodyError> {
    let read = async {
        let mut body = BytesMut::new();
        while let Some(chunk) = payload.next().await {
            let chunk = chunk.map_err(|e| BodyError::Unreadable(e.to_string()))?;
            if body.len() + chunk.len() > max {
                return Err(BodyError::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.freeze())
    };
    let mut read = std::pin::pin!(read);
    match actix_web::rt::time::timeout(timeout.0, &mut read).await {
        Ok(body) => body,
        Err(_) => actix_web::rt::time::timeout(TIMEOUT_GRACE, read)
            .await
            .map_err(|_| BodyError::TimedOut)?,
    }
}

/// Reads the body of `req` as [`read_body`] does, refusing at once one whose declared
/// `Content-Length` is over `max`; what every front's body extractor calls.
pub(crate) fn read(
    req: &HttpRequest,
    payload: &mut Payload,
    max: usize,
) -> impl Future<Output = Result<Bytes, BodyError>> + 'static {
    let declared = declared(req);
    let timeout = body_timeout(req);
    let payload = payload.take();
    async move {
        if declared.is_some_and(|n| n > max as u64) {
            return Err(BodyError::TooLarge);
        }
        read_body(payload, timeout, max).await
    }
}

/// The length `req` declares for its body (`Content-Length`), if it declares one.
pub(crate) fn declared(req: &HttpRequest) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// The body timeout the app was built with.
pub(crate) fn body_timeout(req: &HttpRequest) -> BodyTimeout {
    super::edge(req).map_or_else(BodyTimeout::default, |edge| edge.body_timeout)
}
