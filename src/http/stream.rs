//! `GET /api/v1/changes/stream` (docs §12, bounded per client by §9a): the change
//! feed as server-sent events, first the backlog after `since` (or `Last-Event-ID`), then
//! each write as it commits (in `fsync` durability, once it is durable).
//!
//! Each stream is a task on the worker that pages through the feed, then subscribes to
//! its space's actor, and queues events in its [`Outbox`], which the response body takes
//! from. A write's events are rendered once and the bytes shared by every stream of the
//! space. The backlog waits for the client to take what is queued; live events cannot
//! wait, so a stream whose unsent events pass [`MAX_UNSENT`] when the next write comes is
//! ended: the unsent events are dropped, `event: overflow` is queued in their place, and
//! the connection closes after it (the client resumes with `Last-Event-ID` and misses
//! nothing). One write's events are queued whole however big, so a client that reads gets
//! every write live. The task also
//! ends when the client goes (the body is dropped), when the space's actor drops a stream
//! that cannot keep up, when shutdown begins (the stream ends cleanly), or at once when its
//! reader loses access ([`Streams::end`]: removed from the space, the space deleted, the
//! token revoked), or at its scoped token's `expiresAt` ([`expiry`], docs §21).

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use tokio::sync::{mpsc, oneshot, Notify};

use super::error::ApiError;
use super::extract::{space_of, Params};
use super::openapi::problems::*;
use super::{dto, render};
use crate::actors::space::{Committed, Subscribe};
use crate::core::Core;
use crate::edge::budget::{self, Budget};
use crate::metrics::METRICS;
use crate::model::access::Action;
use crate::model::{Caller, Scope};

pub(crate) use crate::model::limits::MAX_STREAMS;
use crate::model::limits::MAX_STREAMS_PER_TOKEN;
/// The most streams one user has open at once (§9a).
pub(crate) use crate::model::limits::MAX_STREAMS_PER_USER;
/// Unsent bytes beyond which a stream is ended (§9a).
pub(crate) const MAX_UNSENT: usize = 4 << 20;
/// How often a stream with nothing to say sends a comment.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Feed page size while a stream catches up.
const BACKLOG_PAGE: usize = 1000;
/// Changes waiting from the space; the task takes them at once.
const BUFFER: usize = 64;
/// The event that ends a stream whose client does not keep up.
const OVERFLOW: &[u8] = b"event: overflow\ndata: {}\n\n";

/// How many streams are open, in all and per user; shared by every worker.
#[derive(Debug, Default)]
pub(crate) struct Streams(Arc<Mutex<Open>>);

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_user: HashMap<Box<str>, usize>,
    /// Streams by the budget of their token, for the tokens that have one (docs §25).
    by_budget: HashMap<u64, usize>,
    /// Every open stream by number: whose, which space, which token, and how to end it.
    streams: HashMap<u64, Reader>,
    next: u64,
}

/// Who reads an open stream, and what ends it.
#[derive(Debug)]
struct Reader {
    user: Box<str>,
    space: Box<str>,
    token: Option<Box<str>>,
    end: Arc<Notify>,
}

/// One open stream; frees its place when dropped.
pub(super) struct Slot {
    open: Arc<Mutex<Open>>,
    user: Box<str>,
    /// The key of its token's budget, when it has one.
    budget: Option<u64>,
    number: u64,
    /// Notified when the stream must end at once (its reader lost access).
    pub(super) end: Arc<Notify>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.total -= 1;
        open.streams.remove(&self.number);
        if let Some(count) = open.by_user.get_mut(&self.user) {
            *count -= 1;
            if *count == 0 {
                open.by_user.remove(&self.user);
            }
        }
        if let Some(budget) = self.budget {
            if let Some(count) = open.by_budget.get_mut(&budget) {
                *count -= 1;
                if *count == 0 {
                    open.by_budget.remove(&budget);
                }
            }
        }
        METRICS.streams_open.set(open.total as i64);
    }
}

impl Streams {
    /// Ends at once every open stream whose reader `lost` access: given its user, space and
    /// scoped token, if any.
    pub(crate) fn end(&self, lost: impl Fn(&str, &str, Option<&str>) -> bool) {
        let open = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for reader in open.streams.values() {
            if lost(&reader.user, &reader.space, reader.token.as_deref()) {
                reader.end.notify_one();
            }
        }
    }

    /// A place for a stream of `caller` on `space`, whose token spends from `budget` if it
    /// has one: `429` when the user or that token has its most open, `503` when the server
    /// has.
    pub(super) fn open(
        &self,
        caller: &Caller,
        space: &str,
        budget: Option<Budget>,
    ) -> Result<Slot, ApiError> {
        let user = &*caller.account.id;
        let mut open = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(budget) = &budget {
            if open
                .by_budget
                .get(&budget.key())
                .is_some_and(|n| *n >= MAX_STREAMS_PER_TOKEN)
            {
                budget::count_refusal(budget);
                return Err(ApiError::TooManyTokenStreams);
            }
        }
        if open
            .by_user
            .get(user)
            .is_some_and(|n| *n >= MAX_STREAMS_PER_USER)
        {
            METRICS.too_many("streams");
            return Err(ApiError::TooManyStreams);
        }
        if open.total >= MAX_STREAMS {
            return Err(ApiError::Unavailable("too many change streams are open"));
        }
        open.total += 1;
        *open.by_user.entry(user.into()).or_default() += 1;
        let budget = budget.map(|b| b.key());
        if let Some(budget) = budget {
            *open.by_budget.entry(budget).or_default() += 1;
        }
        METRICS.streams_open.set(open.total as i64);
        let end = Arc::new(Notify::new());
        let number = open.next;
        open.next += 1;
        let token = match &caller.scope {
            Scope::Primary => None,
            Scope::Scoped(token) => Some(token.token.id.clone()),
        };
        open.streams.insert(
            number,
            Reader {
                user: user.into(),
                space: space.into(),
                token,
                end: Arc::clone(&end),
            },
        );
        Ok(Slot {
            open: Arc::clone(&self.0),
            user: user.into(),
            budget,
            number,
            end,
        })
    }
}

/// What a stream has queued and its client has not taken yet.
#[derive(Default)]
pub(super) struct Outbox {
    queue: Mutex<Queue>,
    /// Something was queued, or the stream ended.
    queued: Notify,
    /// The client took a chunk.
    taken: Notify,
}

#[derive(Default)]
struct Queue {
    chunks: VecDeque<Bytes>,
    bytes: usize,
    ended: bool,
}

impl Outbox {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a live chunk (one write's events, whatever their size). When the unsent bytes
    /// already pass [`MAX_UNSENT`], the unsent chunks are dropped for `event: overflow` and
    /// the stream ends instead: `false`.
    pub(super) fn push(&self, chunk: Bytes) -> bool {
        let mut queue = self.queue();
        let fits = queue.bytes <= MAX_UNSENT;
        if fits {
            queue.bytes += chunk.len();
            queue.chunks.push_back(chunk);
        } else {
            METRICS.streams_overflowed.inc();
            queue.chunks.clear();
            queue.bytes = OVERFLOW.len();
            queue.chunks.push_back(Bytes::from_static(OVERFLOW));
            queue.ended = true;
        }
        drop(queue);
        self.queued.notify_one();
        fits
    }

    /// Waits until the client has taken all but half of [`MAX_UNSENT`] (the backlog's pace).
    async fn room(&self) {
        while self.queue().bytes >= MAX_UNSENT / 2 {
            self.taken.notified().await;
        }
    }

    /// Ends the stream once the client has taken what is queued.
    pub(super) fn end(&self) {
        self.queue().ended = true;
        self.queued.notify_one();
    }

    /// The next chunk for the client: what is queued, joined up to [`JOINED_BYTES`] so that
    /// a client with several events waiting gets them in one write; `None` once the stream
    /// ended and all is taken.
    pub(super) async fn next(&self) -> Option<Bytes> {
        loop {
            {
                let mut queue = self.queue();
                if let Some(first) = queue.chunks.pop_front() {
                    let mut len = first.len();
                    let more = queue
                        .chunks
                        .iter()
                        .take_while(|next| {
                            len += next.len();
                            len <= JOINED_BYTES
                        })
                        .count();
                    let chunk = if more == 0 {
                        first
                    } else {
                        let mut joined = Vec::with_capacity(len.min(JOINED_BYTES));
                        joined.extend_from_slice(&first);
                        for next in queue.chunks.drain(..more) {
                            joined.extend_from_slice(&next);
                        }
                        Bytes::from(joined)
                    };
                    queue.bytes -= chunk.len();
                    drop(queue);
                    self.taken.notify_one();
                    return Some(chunk);
                }
                if queue.ended {
                    return None;
                }
            }
            self.queued.notified().await;
        }
    }
}

/// The most bytes of queued chunks joined into one write (see [`Outbox::next`]).
const JOINED_BYTES: usize = 64 << 10;

/// The longest a stream's expiry timer sleeps before it looks at the clock again.
const EXPIRY_CHECK: Duration = Duration::from_secs(3600);

/// Completes at `expires_at` (milliseconds since the epoch, the wall clock that
/// authentication compares it with); never for `None`. One timer per stream that has an
/// expiry, not a sweep over every stream: the timer sleeps until the expiry (at most
/// [`EXPIRY_CHECK`] at a time, so a far-off expiry does not strain the timer and a wall
/// clock set back is noticed), then ends only once the wall clock has passed it, so the
/// stream never outlives the token by more than the timer's lateness, nor ends while the
/// token would still be accepted.
pub(super) async fn expiry(expires_at: Option<i64>) {
    let Some(at) = expires_at else {
        return std::future::pending().await;
    };
    loop {
        let left = at.saturating_sub(chrono::Utc::now().timestamp_millis());
        if left <= 0 {
            return;
        }
        let left = Duration::from_millis(left.unsigned_abs()).min(EXPIRY_CHECK);
        actix_web::rt::time::sleep(left).await;
    }
}

/// The change feed, then each write as it commits (server-sent events)
///
/// The changes after `since` (or `Last-Event-ID`), then each write of the space as it
/// commits. 429: the user has [`MAX_STREAMS_PER_USER`] streams open; 503: the server has
/// [`MAX_STREAMS`].
#[utoipa::path(
    get,
    path = "/api/v1/changes/stream",
    operation_id = "changes_stream",
    tag = "sync",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::SinceParam, dto::LastEventId),
    responses(
        (
            status = 200,
            description = "An event stream; the schema is that of each event (OpenAPI 3.1 has no `itemSchema`)",
            content_type = "text/event-stream",
            body = ref("#/components/schemas/ChangeEvent"),
        ),
        Reads,
    ),
)]
pub(crate) async fn stream(
    req: HttpRequest,
    caller: Caller,
    params: Params,
    core: Data<Core>,
    streams: Data<Streams>,
) -> Result<HttpResponse, ApiError> {
    let last_event = req
        .headers()
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or("?"));
    let since = params.since(last_event)?;
    let space: Box<str> = space_of(&caller, params.space_id(), None, Action::Read)?.into();
    // The first page checks `since` against the space before the 200 is sent.
    let first = core
        .read(&space, move |s| s.changes(since, BACKLOG_PAGE))
        .await??;
    let slot = streams.open(&caller, &space, budget::charged(&req))?;
    let expires_at = match &caller.scope {
        Scope::Primary => None,
        Scope::Scoped(token) => token.token.expires_at,
    };
    let outbox = Arc::new(Outbox::default());
    let (client, mut gone) = oneshot::channel::<Infallible>();
    let mut closed = core.gate().watch();
    let events = Arc::clone(&outbox);
    actix_web::rt::spawn(async move {
        let ended = Arc::clone(&slot.end);
        let _slot = slot;
        let feed = async {
            let mut page = first;
            // The backlog, page by page, at the client's pace.
            loop {
                for change in &page.changes {
                    events.room().await;
                    events.push(render::event(&space, change).into());
                }
                if !page.has_more {
                    break;
                }
                let since = page.next_since;
                match core
                    .read(&space, move |s| s.changes(since, BACKLOG_PAGE))
                    .await
                {
                    Ok(Ok(next)) => page = next,
                    _ => return,
                }
            }
            // Then live, from where the backlog ended.
            let (changes, mut live) = mpsc::channel::<Arc<Committed>>(BUFFER);
            let subscribe = Subscribe {
                since: page.next_since,
                changes,
                pin: None,
            };
            if !matches!(core.ask(&space, subscribe).await, Ok(Ok(()))) {
                return;
            }
            let mut keep_alive = actix_web::rt::time::interval(KEEP_ALIVE);
            keep_alive.tick().await;
            loop {
                let chunk = tokio::select! {
                    change = live.recv() => match change {
                        Some(change) => change
                            .events
                            .get_or_init(|| render::events(&space, &change.touched).into())
                            .clone(),
                        None => return,
                    },
                    _ = keep_alive.tick() => Bytes::from_static(b": keep-alive\n\n"),
                    _ = closed.changed() => return,
                };
                if !events.push(chunk) {
                    return;
                }
            }
        };
        until_ended(feed, &mut gone, &ended, expires_at).await;
        events.end();
    });
    Ok(answer(outbox, client))
}

/// Runs `run`, the work that fills a stream's outbox, until it ends or the stream must:
/// the client went away (`gone`: free the place now, not at the next keep-alive), its
/// reader lost access to the space (`ended`: removed, space deleted, token revoked), or
/// its token expired (`expires_at`).
pub(super) async fn until_ended(
    run: impl Future<Output = ()>,
    gone: &mut oneshot::Receiver<Infallible>,
    ended: &Notify,
    expires_at: Option<i64>,
) {
    tokio::select! {
        _ = run => {}
        _ = gone => {}
        _ = ended.notified() => {}
        _ = expiry(expires_at) => {}
    }
}

/// The answer of a server-sent stream whose events `outbox` holds; `client` is dropped
/// (which the stream's task sees as `gone`) when the client goes. The connection closes
/// after the stream ends (by overflow, shutdown or the space).
pub(super) fn answer(outbox: Arc<Outbox>, client: oneshot::Sender<Infallible>) -> HttpResponse {
    let body = futures_util::stream::unfold((outbox, client), |(outbox, client)| async move {
        let chunk = outbox.next().await?;
        Some((Ok::<_, Infallible>(chunk), (outbox, client)))
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .force_close()
        .streaming(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn the_expiry_timer_fires_once_the_wall_clock_passes_the_expiry_and_never_without_one() {
        let at = chrono::Utc::now().timestamp_millis() + 300;
        expiry(Some(at)).await;
        assert!(chrono::Utc::now().timestamp_millis() >= at);
        let past = at - 10_000;
        let quick = actix_web::rt::time::timeout(Duration::from_millis(100), expiry(Some(past)));
        assert!(quick.await.is_ok(), "a past expiry fires at once");
        let never = actix_web::rt::time::timeout(Duration::from_millis(100), expiry(None));
        assert!(never.await.is_err(), "no expiry, no end");
    }

    #[actix_web::test]
    async fn queued_chunks_go_out_joined_up_to_the_bound_in_order() {
        let outbox = Outbox::default();
        for chunk in ["a", "bb", "ccc"] {
            assert!(outbox.push(Bytes::from_static(chunk.as_bytes())));
        }
        let big = Bytes::from(vec![b'x'; JOINED_BYTES]);
        assert!(outbox.push(big.clone()));
        assert!(outbox.push(Bytes::from_static(b"d")));
        assert_eq!(outbox.next().await.unwrap(), "abbccc");
        assert_eq!(outbox.next().await.unwrap(), big);
        assert_eq!(outbox.next().await.unwrap(), "d");
        assert_eq!(outbox.queue().bytes, 0);
        outbox.end();
        assert!(outbox.next().await.is_none());
    }
}
