//! `GET /api/v1/live` (docs §24): a live view as server-sent events. First a `reset` with
//! every task the view shows, then `enter`, `update` and `leave` as durable writes move
//! tasks in and out of it, and as the clock crosses a `now` or `today` boundary of its
//! filter.
//!
//! A live stream is a change stream (`stream`) that keeps its view's members
//! ([`Members`]): it takes a place in the same [`Streams`] registry (so it counts toward
//! the 1,000 per server, the user's 100 and a budgeted token's 20, and ends when its reader
//! loses the space or its token expires, with no `leave`), queues its events in an
//! [`Outbox`], and subscribes to its space's durable writes. Each [`Committed`] (a write,
//! or a batch, or writes synced together) becomes one chunk of events, in the order the
//! writes touched their tasks, each with its operation's version and the task before it
//! in the view as the view stands after that operation.
//!
//! Time: a filter that names `now` or `today` is read again at each boundary it has. The
//! stream keeps, for every task, the next instant at which the task's match could change
//! ([`Boundaries`]), ordered as the reminder times of a space are, and sleeps until the
//! first: a boundary re-reads only the tasks whose instant it is, never the whole view.

use std::collections::{BTreeSet, HashMap};
use std::convert::Infallible;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use super::error::ApiError;
use super::extract::{space_of, Params};
use super::openapi::problems::*;

use super::dto;
use super::stream::{answer, until_ended, Outbox, Streams, KEEP_ALIVE};
use crate::actors::space::{Committed, Subscribe};
use crate::core::Core;
use crate::edge::budget;
use crate::model::access::Action;
use crate::model::query::{Scalar, TaskField};
use crate::model::record::{Id, Record};
use crate::model::views::{Definition, Matcher, Members, Moved};
use crate::model::wall_clock;
use crate::model::{Caller, Kind, Reset, Scope, SpaceError, TaskQuery};
use crate::wire::RecordJson;

/// Changes waiting from the space; the stream takes them at once.
const BUFFER: usize = 64;
/// The event that ends a stream whose view grew past the limit at a new `reset`.
const TOO_LARGE: &[u8] = b"event: error\ndata: {\"code\":\"view_too_large\"}\n\n";
/// The longest a stream sleeps before it looks at the clock again, boundary or not.
const CLOCK_CHECK: Duration = Duration::from_secs(3600);

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

/// The time fields of a task a filter compares with `now` or `today`: each of them may
/// cross a boundary as time passes.
fn time_fields() -> Vec<TaskField> {
    [
        "dateDue",
        "dateStart",
        "remindedAt",
        "lastCompletedAt",
        "completedAt",
    ]
    .into_iter()
    .filter_map(TaskField::by_name)
    .chain([
        TaskField::CreatedAt,
        TaskField::UpdatedAt,
        TaskField::DeletedAt,
    ])
    .collect()
}

/// For every task of a view whose filter names `now` or `today`, the next instant at which
/// its match may change; ordered by instant, like a space's reminder times.
#[derive(Debug, Default)]
struct Boundaries {
    /// The relative literals of the filter, as offsets from `now` (milliseconds) or from
    /// `today`; empty when the filter names neither (no boundary ever).
    offsets: Vec<(bool, i64)>,
    tz: Option<chrono_tz::Tz>,
    fields: Vec<TaskField>,
    queue: BTreeSet<(i64, Id)>,
    /// Each task with a boundary ahead: its instant and its state then.
    by_task: HashMap<Id, (i64, Arc<Record>)>,
}

impl Boundaries {
    fn new(query: &TaskQuery) -> Boundaries {
        Boundaries {
            offsets: relative_offsets(&query.filter),
            tz: Some(query.tz),
            fields: time_fields(),
            ..Boundaries::default()
        }
    }

    /// Notes `task`'s next boundary after `now`, replacing the one it had.
    fn note(&mut self, task: &Arc<Record>, now: i64) {
        if let Some((at, _)) = self.by_task.remove(&task.id) {
            self.queue.remove(&(at, task.id.clone()));
        }
        if self.offsets.is_empty() || task.is_deleted() {
            return;
        }
        let tz = self.tz.unwrap_or(chrono_tz::UTC);
        let mut next: Option<i64> = None;
        for field in &self.fields {
            let Scalar::Time(value) = field.value(task) else {
                continue;
            };
            for (today, offset) in &self.offsets {
                // The instant `now` at which `now + offset` (or `today + offset`) reaches
                // the value: a millisecond later the comparison has turned.
                let at = value.saturating_sub(*offset);
                let at = if *today {
                    next_midnight(tz, at)
                } else {
                    at.saturating_add(1)
                };
                if at > now && next.is_none_or(|n| at < n) {
                    next = Some(at);
                }
            }
        }
        if let Some(at) = next {
            self.queue.insert((at, task.id.clone()));
            self.by_task.insert(task.id.clone(), (at, Arc::clone(task)));
        }
    }

    /// The first boundary, if any.
    fn first(&self) -> Option<i64> {
        self.queue.first().map(|(at, _)| *at)
    }

    /// The tasks whose boundary is at or before `now`, taken out.
    fn due(&mut self, now: i64) -> Vec<Arc<Record>> {
        let mut due = Vec::new();
        while let Some((at, id)) = self.queue.first().cloned() {
            if at > now {
                break;
            }
            self.queue.pop_first();
            if let Some((_, task)) = self.by_task.remove(&id) {
                due.push(task);
            }
        }
        due
    }
}

/// The first local midnight in `tz` at or after `at`.
fn next_midnight(tz: chrono_tz::Tz, at: i64) -> i64 {
    match wall_clock::day_of(tz, at) {
        Some(day) if day >= at => day,
        Some(day) => wall_clock::add_days(tz, day, 1).unwrap_or(i64::MAX),
        None => i64::MAX,
    }
}

/// The relative literals of `filter` as `(from today, offset in milliseconds)`: `now+7d`
/// is `(false, 7 days)`, `today-1d` `(true, -1 day)`. Days and weeks count as their
/// length in milliseconds: a boundary found a daylight-saving hour early is read again
/// and finds its task unchanged, then the next boundary follows.
fn relative_offsets(filter: &str) -> Vec<(bool, i64)> {
    let mut offsets = Vec::new();
    let chars: Vec<char> = filter.chars().collect();
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            if c == '\\' {
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if c == '"' {
            in_string = true;
            i += 1;
            continue;
        }
        let word_start = i == 0 || !(chars[i - 1].is_ascii_alphanumeric() || chars[i - 1] == '_');
        let rest: String = chars[i..].iter().take(5).collect();
        let base = if word_start && rest.starts_with("today") {
            Some((true, 5))
        } else if word_start && rest.starts_with("now") {
            Some((false, 3))
        } else {
            None
        };
        let Some((today, len)) = base else {
            i += 1;
            continue;
        };
        let mut j = i + len;
        if chars
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            i = j;
            continue;
        }
        while chars.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        let mut offset = 0;
        if let Some(sign @ ('+' | '-')) = chars.get(j).copied() {
            j += 1;
            while chars.get(j).is_some_and(|c| c.is_whitespace()) {
                j += 1;
            }
            let digits: String = chars[j..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            j += digits.len();
            let unit = match chars.get(j) {
                Some('m') => 60_000,
                Some('h') => 3_600_000,
                Some('d') => 86_400_000,
                Some('w') => 7 * 86_400_000,
                _ => 0,
            };
            let n: i64 = digits.parse().unwrap_or(0);
            offset = n.saturating_mul(unit);
            if sign == '-' {
                offset = -offset;
            }
        }
        offsets.push((today, offset));
        i = j.max(i + 1);
    }
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

/// One live stream's state: its view, query, members and boundaries.
struct Live {
    space: Box<str>,
    view: Option<Box<str>>,
    definition: Option<Definition>,
    query: TaskQuery,
    members: Members,
    boundaries: Boundaries,
    /// The version the members stand at: writes at or below it are in them already.
    version: u64,
    /// The id of the last event sent.
    last_id: u64,
}

impl Live {
    fn new(
        space: &str,
        view: Option<Box<str>>,
        reset: Reset,
        definition: Option<Definition>,
        all: &[Arc<Record>],
    ) -> Live {
        let mut live = Live {
            space: space.into(),
            view,
            definition,
            query: reset.query.clone(),
            members: Members::new(reset.query.order.clone(), Vec::new()),
            boundaries: Boundaries::default(),
            version: 0,
            last_id: 0,
        };
        live.start(reset, all);
        live
    }

    /// Starts anew from `reset`: the members, and the boundaries of every task of the space
    /// (`all`) that could cross one.
    fn start(&mut self, reset: Reset, all: &[Arc<Record>]) {
        let now = chrono::Utc::now().timestamp_millis();
        self.query = reset.query;
        self.members = Members::new(self.query.order.clone(), reset.tasks);
        self.boundaries = Boundaries::new(&self.query);
        for task in all {
            self.boundaries.note(task, now);
        }
        self.version = reset.version;
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
    let (reset, definition, all) = core
        .read_heavy(&owner, &space, move |s| {
            start(s, asked.as_deref(), query, plan)
        })
        .await??;
    let slot = streams.open(&caller, &space, budget::charged(&req))?;
    let expires_at = match &caller.scope {
        Scope::Primary => None,
        Scope::Scoped(token) => token.token.expires_at,
    };
    let live = Live::new(&space, view, reset, definition, &all);
    drop(all);
    let outbox = Arc::new(Outbox::default());
    let (client, mut gone) = oneshot::channel::<Infallible>();
    let mut closed = core.gate().watch();
    let events = Arc::clone(&outbox);
    let mut live = live;
    events.push(live.reset_event().into());
    actix_web::rt::spawn(async move {
        let ended = Arc::clone(&slot.end);
        let _slot = slot;
        let run = async {
            let (changes, mut writes) = mpsc::channel::<Arc<Committed>>(BUFFER);
            let subscribe = Subscribe {
                since: live.version,
                changes,
            };
            if !matches!(core.ask(&live.space, subscribe).await, Ok(Ok(()))) {
                return;
            }
            let mut keep_alive = actix_web::rt::time::interval(KEEP_ALIVE);
            keep_alive.tick().await;
            loop {
                let wait = match live.boundaries.first() {
                    Some(at) => {
                        let left = at - chrono::Utc::now().timestamp_millis();
                        Duration::from_millis(left.max(0) as u64).min(CLOCK_CHECK)
                    }
                    None => CLOCK_CHECK,
                };
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
                                        start(s, asked.as_deref(), query, plan)
                                    })
                                    .await;
                                match read {
                                    Ok(Ok((reset, definition, all))) => {
                                        live.definition = definition;
                                        live.start(reset, &all);
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
                    _ = actix_web::rt::time::sleep(wait) => on_clock(&mut live),
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

/// A live view's start: its reset, its view's definition (for a saved view), and the
/// tasks that may cross a time boundary.
type Start = (Reset, Option<Definition>, Vec<Arc<Record>>);

/// Reads a live view's start in space `s`: its reset, its view's definition, and the tasks
/// that may cross a time boundary (every task, when the query names `now` or `today`).
fn start(
    s: &crate::model::Space,
    view: Option<&str>,
    mut query: TaskQuery,
    plan: crate::model::Plan,
) -> Result<Start, SpaceError> {
    query.now = chrono::Utc::now().timestamp_millis();
    let definition = view.map(|id| s.view_definition(id)).transpose()?;
    let reset = s.reset(view, query, plan)?;
    let all = if relative_offsets(&reset.query.filter).is_empty() {
        Vec::new()
    } else {
        s.all_tasks()
    };
    Ok((reset, definition, all))
}

/// The events of one committed write (or batch), and what the stream does next.
fn on_write(live: &mut Live, committed: &Committed) -> (Vec<u8>, Next) {
    let now = chrono::Utc::now().timestamp_millis();
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

/// The events of the tasks whose time boundary has come.
fn on_clock(live: &mut Live) -> Vec<u8> {
    let now = chrono::Utc::now().timestamp_millis();
    // A task that a write touched since has that state here: every write notes it anew.
    let due = live.boundaries.due(now);
    if due.is_empty() {
        return Vec::new();
    }
    let Some(matcher) = live.matcher(now) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let version = live.version;
    for task in due {
        live.boundaries.note(&task, now);
        let matches = matcher.matches(&task);
        if let Some(moved) = live.members.apply(task, matches) {
            live.moved(&mut out, moved, version);
        }
    }
    out
}
