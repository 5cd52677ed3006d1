//! `GET /api/v1/live` (docs §24): a live view as server-sent events. First a `reset` with
//! every task the view shows, then `enter`, `update` and `leave` as durable writes move
//! tasks in and out of it, and as the clock crosses a `now` or `today` boundary of its
//! filter.
//!
//! A live stream is a change stream (`stream`) that keeps its view's members
//! ([`Members`]): it takes a place in the same [`Streams`] registry (so it counts toward
//! the 1,000 per server, the user's 100 and a budgeted token's 20, and ends when its reader
//! loses the space or its token expires, with no `leave`), queues its events in an
//! [`Outbox`], and subscribes to its space's durable writes: all of them, or, when its
//! filter pins a field to a few values ([`Pin`]), only those whose tasks hold one of them
//! before or after (the space indexes its subscribers by pin, so a write to a space with
//! 1,000 live views wakes only the views it may concern). Each [`Committed`] (a write,
//! or a batch, or writes synced together) becomes one chunk of events, in the order the
//! writes touched their tasks, each with its operation's version and the task before it
//! in the view as the view stands after that operation.
//!
//! Time: a filter that compares a time field with `now` or `today` is read again at each
//! boundary it has. The stream keeps, for every task, the next instant at which the task's
//! match could change ([`Boundaries`], found from the parsed filter when the stream starts
//! and noted again at each write), and sets its
//! [`Alarm`](crate::actors::reminders::Alarm) on the server's one timer to the first of
//! them (`actors::reminders`). No stream sleeps on a timer of its own: when the alarm
//! rings, the stream reads again only the tasks whose instant has come, never the whole
//! view, and sets the alarm to its next boundary.

use std::convert::Infallible;
use std::fmt::Write as _;
use std::sync::Arc;

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use super::error::ApiError;
use super::extract::{space_of, Params};
use super::openapi::problems::*;

use super::dto;
use super::stream::{answer, until_ended, Outbox, Streams, KEEP_ALIVE};
use crate::actors::space::{Committed, Subscribe, Version};
use crate::core::Core;
use crate::edge::budget;
use crate::model::access::Action;
use crate::model::views::{Boundaries, Definition, Matcher, Members, Moved, Pin};
use crate::model::{Caller, Kind, Reset, Scope, SpaceError, TaskQuery};
use crate::wire::RecordJson;

/// Changes waiting from the space; the stream takes them at once.
const BUFFER: usize = 64;
/// The event that ends a stream whose view grew past the limit at a new `reset`.
const TOO_LARGE: &[u8] = b"event: error\ndata: {\"code\":\"view_too_large\"}\n\n";

/// `{"tasks": [...], "spaceVersion": v}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResetJson<'a> {
    tasks: Vec<RecordJson<'a>>,
    space_version: u64,
}

/// `{"record": {...}, "after": id | null, "spaceVersion": v}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MovedJson<'a> {
    record: RecordJson<'a>,
    after: Option<&'a str>,
    space_version: u64,
}

/// `{"todoId": id, "spaceVersion": v}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LeftJson<'a> {
    todo_id: &'a str,
    space_version: u64,
}

/// The time live views read, in milliseconds since the Unix epoch: the system clock,
/// moved by [`skew`].
fn now() -> i64 {
    chrono::Utc::now().timestamp_millis() + skew()
}

/// How far the clock of live views is ahead of the system's: 0, but for the tests of
/// `tests/failpoints` (feature `failpoints`), where `live::clock` set to `return(MS)` moves
/// it by MS milliseconds, so that a test can stand a few seconds before a midnight of any
/// zone and see a live view cross it. The server's timer keeps the system's time: a view
/// sets its alarm to its next boundary taken back by the skew.
fn skew() -> i64 {
    #[cfg(feature = "failpoints")]
    fail::fail_point!("live::clock", |ms| ms
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(0));
    0
}

/// One live stream's state: its view, query, members and boundaries.
struct Live {
    space: Box<str>,
    view: Option<Box<str>>,
    definition: Option<Definition>,
    query: TaskQuery,
    members: Members,
    boundaries: Boundaries,
    /// What its filter pins: it hears only the writes of tasks that hold it.
    pin: Option<Pin>,
    /// The version the members stand at: writes at or below it are in them already.
    version: u64,
    /// The id of the last event sent.
    last_id: u64,
}

impl Live {
    fn new(space: &str, view: Option<Box<str>>, start: Start) -> Live {
        let Start {
            reset,
            definition,
            boundaries,
            pin,
        } = start;
        Live {
            space: space.into(),
            view,
            definition,
            members: Members::new(reset.query.order.clone(), reset.tasks),
            query: reset.query,
            boundaries,
            pin,
            version: reset.version,
            last_id: 0,
        }
    }

    /// Starts anew from `start`, read after the view's definition changed.
    fn restart(&mut self, start: Start) {
        let view = self.view.take();
        let last_id = self.last_id;
        *self = Live {
            last_id,
            ..Live::new(&self.space, view, start)
        };
    }

    fn event(&mut self, out: &mut Vec<u8>, name: &str, data: &impl Serialize) {
        self.last_id += 1;
        let _ = write!(Sink(out), "id: {}\nevent: {name}\ndata: ", self.last_id);
        if serde_json::to_writer(&mut *out, data).is_err() {
            log::error!("cannot render a live event of space {}", self.space);
        }
        out.extend_from_slice(b"\n\n");
    }

    /// The `reset` event of the current members.
    fn reset_event(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let tasks = self.members.tasks().to_vec();
        let space = self.space.clone();
        let data = ResetJson {
            tasks: tasks
                .iter()
                .map(|record| RecordJson {
                    kind: Kind::Task,
                    space: &space,
                    record,
                })
                .collect(),
            space_version: self.version,
        };
        self.event(&mut out, "reset", &data);
        out
    }

    /// The event of one moved task, at `version`.
    fn moved(&mut self, out: &mut Vec<u8>, moved: Moved, version: u64) {
        let (name, record, after) = match moved {
            Moved::Enter(record, after) => ("enter", record, after),
            Moved::Update(record, after) => ("update", record, after),
            Moved::Leave(id) => {
                let data = LeftJson {
                    todo_id: &id,
                    space_version: version,
                };
                return self.event(out, "leave", &data);
            }
        };
        let space = self.space.clone();
        let data = MovedJson {
            record: RecordJson {
                kind: Kind::Task,
                space: &space,
                record: &record,
            },
            after: after.as_deref(),
            space_version: version,
        };
        self.event(out, name, &data);
    }

    fn matcher(&self, now: i64) -> Option<Matcher> {
        Matcher::new(&self.space, &self.query, now).ok()
    }
}

/// `fmt::Write` into a byte buffer.
struct Sink<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// What a committed write asks of a live stream besides its events.
enum Next {
    /// Go on.
    Go,
    /// The view's definition changed: start again with a new `reset`.
    Reset,
    /// The view was deleted: end the stream.
    End,
}

/// A live view as server-sent events
///
/// docs §24: `reset` first (every connection; `Last-Event-ID` is ignored), then `enter`,
/// `update` and `leave` for each durable write that changes what the view shows, and as
/// the clock crosses a `now` or `today` boundary of its filter. 400: `viewId` beside a
/// query parameter, or a bad query; 404: no such view in the space; 422 view_too_large:
/// more than 5,000 tasks; 429/503: stream limits as for the change stream.
#[utoipa::path(
    get,
    path = "/api/v1/live",
    operation_id = "liveView",
    tag = "views",
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::LiveParams),
    responses(
        (
            status = 200,
            description = "An event stream: reset, then enter, update and leave; the schema is that of each event (OpenAPI 3.1 has no `itemSchema`)",
            content_type = "text/event-stream",
            body = ref("#/components/schemas/LiveEvent"),
        ),
        Reads,
    ),
)]
pub(crate) async fn live(
    req: HttpRequest,
    caller: Caller,
    params: Params,
    core: Data<Core>,
    streams: Data<Streams>,
) -> Result<HttpResponse, ApiError> {
    let view = params.view_id()?;
    let query = params.task_query()?;
    let space: Box<str> = space_of(&caller, params.space_id(), None, Action::Read)?.into();
    let plan = core.plan();
    let asked = view.clone();
    // A start may run the view's query over the space and, for a view of `now` or
    // `today`, gather its every task: heavy work, off the HTTP workers (docs §27).
    let owner = caller.account.id.clone();
    let start = core
        .read_heavy(&owner, &space, move |s| {
            read_start(s, asked.as_deref(), query, plan)
        })
        .await??;
    let slot = streams.open(&caller, &space, budget::charged(&req))?;
    let expires_at = match &caller.scope {
        Scope::Primary => None,
        Scope::Scoped(token) => token.token.expires_at,
    };
    let mut live = Live::new(&space, view, start);
    let mut alarm = core.alarm();
    let outbox = Arc::new(Outbox::default());
    let (client, mut gone) = oneshot::channel::<Infallible>();
    let mut closed = core.gate().watch();
    let events = Arc::clone(&outbox);
    events.push(live.reset_event().into());
    actix_web::rt::spawn(async move {
        let ended = Arc::clone(&slot.end);
        let _slot = slot;
        let run = async {
            let Some(mut writes) = subscribe(&core, &live).await else {
                return;
            };
            let mut keep_alive = actix_web::rt::time::interval(KEEP_ALIVE);
            keep_alive.tick().await;
            loop {
                alarm.set(live.boundaries.first().map(|at| at - skew()));
                let chunk = tokio::select! {
                    change = writes.recv() => match change {
                        Some(change) => match on_write(&mut live, &change) {
                            (chunk, Next::Go) => chunk,
                            (chunk, Next::End) => {
                                if !chunk.is_empty() {
                                    events.push(chunk.into());
                                }
                                return;
                            }
                            (_, Next::Reset) => {
                                let asked = live.view.clone();
                                let query = live.query.clone();
                                let read = core
                                    .read_heavy(&owner, &live.space, move |s| {
                                        read_start(s, asked.as_deref(), query, plan)
                                    })
                                    .await;
                                match read {
                                    Ok(Ok(start)) => {
                                        live.restart(start);
                                        // Its pin may have changed with its filter.
                                        let Some(again) = subscribe(&core, &live).await else {
                                            return;
                                        };
                                        writes = again;
                                        live.reset_event()
                                    }
                                    Ok(Err(SpaceError::ViewTooLarge)) => {
                                        events.push(Bytes::from_static(TOO_LARGE));
                                        return;
                                    }
                                    _ => return,
                                }
                            }
                        },
                        None => return,
                    },
                    _ = alarm.rung() => {
                        // The stream hears only the writes that concern it: the space's
                        // version is asked for, for the events' `spaceVersion`.
                        let Ok(version) = core.ask(&live.space, Version).await else {
                            return;
                        };
                        on_clock(&mut live, version)
                    }
                    _ = keep_alive.tick() => b": keep-alive\n\n".to_vec(),
                    _ = closed.changed() => return,
                };
                if !chunk.is_empty() && !events.push(chunk.into()) {
                    return;
                }
            }
        };
        // The client went, its reader lost the space, or its token expired: no `leave`.
        until_ended(run, &mut gone, &ended, expires_at).await;
        events.end();
    });
    Ok(answer(outbox, client))
}

/// Subscribes `live` to the durable writes of its space after its version that may
/// concern it (those of the tasks that hold its pin before or after, and of other kinds);
/// `None` when the space is gone.
async fn subscribe(core: &Core, live: &Live) -> Option<mpsc::Receiver<Arc<Committed>>> {
    let (changes, writes) = mpsc::channel::<Arc<Committed>>(BUFFER);
    let subscribe = Subscribe {
        since: live.version,
        changes,
        pin: live.pin.clone(),
    };
    matches!(core.ask(&live.space, subscribe).await, Ok(Ok(()))).then_some(writes)
}

/// A live view's start, read in its space.
struct Start {
    /// Its members and the version they stand at.
    reset: Reset,
    /// Its view's definition, for a saved view.
    definition: Option<Definition>,
    /// The time boundaries of every task of the space that holds the pin, when its
    /// filter names `now` or `today`.
    boundaries: Boundaries,
    /// What its filter pins, if anything.
    pin: Option<Pin>,
}

/// Reads a live view's start in space `s`, at the current time: its reset, its view's
/// definition, and the next time boundary of every task of the space that has one (a
/// task outside the view may enter it as the clock moves).
fn read_start(
    s: &crate::model::Space,
    view: Option<&str>,
    mut query: TaskQuery,
    plan: crate::model::Plan,
) -> Result<Start, SpaceError> {
    let now = now();
    query.now = now;
    let definition = view.map(|id| s.view_definition(id)).transpose()?;
    let reset = s.reset(view, query, plan)?;
    let matcher = Matcher::new(s.id(), &reset.query, now).map_err(SpaceError::InvalidFilter)?;
    let mut boundaries = Boundaries::new(&matcher, reset.query.tz);
    let pin = Pin::of(&matcher);
    if boundaries.moves_with_time() {
        // A task that does not hold the pin never enters, whatever the time; the writes
        // that make it hold it reach the stream, which notes it then.
        let tasks = s.all_tasks().into_iter();
        for task in tasks.filter(|t| pin.as_ref().is_none_or(|p| p.holds(t))) {
            boundaries.note(&task, now);
        }
    }
    Ok(Start {
        reset,
        definition,
        boundaries,
        pin,
    })
}

/// The events of one committed write (or batch), and what the stream does next.
fn on_write(live: &mut Live, committed: &Committed) -> (Vec<u8>, Next) {
    let now = now();
    let matcher = live.matcher(now);
    let mut out = Vec::new();
    for touched in &committed.touched {
        let record = &touched.record;
        if record.version <= live.version {
            continue;
        }
        match touched.kind {
            Kind::View if live.view.as_deref() == Some(&*record.id) => {
                if record.is_deleted() {
                    return (out, Next::End);
                }
                if live.definition.as_ref() != Some(&Definition::of(record)) {
                    return (out, Next::Reset);
                }
            }
            Kind::Task => {
                let matches = matcher.as_ref().is_some_and(|m| m.matches(record));
                live.boundaries.note(record, now);
                if let Some(moved) = live.members.apply(Arc::clone(record), matches) {
                    live.moved(&mut out, moved, record.version);
                }
            }
            _ => {}
        }
    }
    if let Some(last) = committed.touched.last() {
        live.version = live.version.max(last.record.version);
    }
    (out, Next::Go)
}

/// The events of the tasks whose time boundary has come, the space at `version`.
fn on_clock(live: &mut Live, version: u64) -> Vec<u8> {
    let now = now();
    // A task that a write touched since has that state here: every write notes it anew.
    let due = live.boundaries.due(now);
    if due.is_empty() {
        return Vec::new();
    }
    let Some(matcher) = live.matcher(now) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Not below the version of the last write the stream heard (its chunk may have
    // been sent while the version was asked for).
    let version = version.max(live.version);
    for task in due {
        live.boundaries.note(&task, now);
        let matches = matcher.matches(&task);
        if let Some(moved) = live.members.apply(task, matches) {
            live.moved(&mut out, moved, version);
        }
    }
    out
}
