//! `GET /api/v1/changes/stream` (CONTRACT §12): the change feed as server-sent events,
//! first the backlog after `since` (or `Last-Event-ID`), then each write as it commits
//! (in `fsync` durability, once it is durable).
//!
//! Each stream is a task on the worker that pages through the feed, then subscribes to
//! its space's actor, and writes events into a channel that is the response body. The
//! task ends when the client goes (the body is dropped), when the space's actor drops a
//! stream that cannot keep up (the client resumes with `Last-Event-ID`), or when shutdown
//! begins (the stream ends cleanly).

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use tokio::sync::mpsc;

use super::error::ApiError;
use super::extract::{Caller, Params};
use super::{render, Gate};
use crate::actors::space::{ListChanges, Subscribe};
use crate::actors::Spaces;

/// The most streams open at once.
pub const MAX_STREAMS: usize = 1000;
/// How often a stream with nothing to say sends a comment.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Feed page size while a stream catches up.
const BACKLOG_PAGE: usize = 1000;
/// Chunks a stream may have waiting for its client, and changes waiting from its space.
const BUFFER: usize = 64;

/// How many streams are open; shared by every worker.
#[derive(Debug, Default)]
pub struct Streams(Arc<AtomicUsize>);

/// One open stream; closes its place when dropped.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Streams {
    fn open(&self) -> Option<Slot> {
        let taken = self.0.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(Arc::clone(&self.0));
        (taken < MAX_STREAMS).then_some(slot)
    }
}

/// `GET /api/v1/changes/stream?since=N` → 200 `text/event-stream`. 400
/// `invalid_parameter` (`since` or `Last-Event-ID`), 401, 404, 503 when 1000 streams are
/// open.
pub async fn stream(
    req: HttpRequest,
    caller: Caller,
    params: Params,
    spaces: Data<Spaces>,
    streams: Data<Streams>,
    gate: Data<Gate>,
) -> Result<HttpResponse, ApiError> {
    let last_event = req
        .headers()
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("?"));
    let since = params.since(last_event)?;
    let space: Box<str> = caller.space(params.space_id(), None)?.into();
    // The first page checks `since` against the space before the 200 is sent.
    let first = spaces
        .call(
            &space,
            ListChanges {
                since,
                limit: BACKLOG_PAGE,
            },
        )
        .await??;
    let slot = streams
        .open()
        .ok_or(ApiError::Unavailable("too many change streams are open"))?;
    let (events, body) = mpsc::channel::<Bytes>(BUFFER);
    let mut closed = gate.watch();
    actix_web::rt::spawn(async move {
        let _slot = slot;
        let mut page = first;
        // The backlog, page by page.
        loop {
            let chunk = render::events(&space, &page.changes);
            if !chunk.is_empty() && events.send(chunk.into()).await.is_err() {
                return;
            }
            if !page.has_more {
                break;
            }
            let next = ListChanges {
                since: page.next_since,
                limit: BACKLOG_PAGE,
            };
            match spaces.call(&space, next).await {
                Ok(Ok(next)) => page = next,
                _ => return,
            }
        }
        // Then live, from where the backlog ended.
        let (changes, mut live) = mpsc::channel(BUFFER);
        let subscribe = Subscribe {
            since: page.next_since,
            changes,
        };
        if !matches!(spaces.call(&space, subscribe).await, Ok(Ok(()))) {
            return;
        }
        let mut keep_alive = actix_web::rt::time::interval(KEEP_ALIVE);
        keep_alive.tick().await;
        loop {
            let chunk: Bytes = tokio::select! {
                change = live.recv() => match change {
                    Some(changes) => render::events(&space, &changes).into(),
                    None => return,
                },
                _ = keep_alive.tick() => Bytes::from_static(b": keep-alive\n\n"),
                _ = closed.changed() => return,
                // The client went away: free the place now, not at the next keep-alive.
                _ = events.closed() => return,
            };
            if events.send(chunk).await.is_err() {
                return;
            }
        }
    });
    let body = futures_util::stream::unfold(body, |mut body| async move {
        body.recv()
            .await
            .map(|chunk| (Ok::<_, Infallible>(chunk), body))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(body))
}
