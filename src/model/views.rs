//! Views (docs §24): a saved task query as a record of its own kind, and a live view's
//! members as writes move tasks in and out of it.
//!
//! Request flow: `GET /api/v1/tasks?viewId=` asks the space to list as the view's
//! [`Definition`] would ([`Space::list`](super::space::Space::list)); a live stream
//! (`http::live`) takes the view's matching tasks once (its `reset`), then hands each
//! durable write's tasks to its [`Members`], which says for each whether it entered, was
//! updated in or left the view, and after which task it now stands. A view whose filter
//! compares a time field with `now` or `today` also keeps its [`Boundaries`]: for each
//! task, the next instant at which the clock alone may move it in or out.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;
use std::sync::Arc;

use chrono_tz::Tz;

use super::kind::Kind;
use super::query::filter::Relative;
use super::query::{
    time_zone, Constraint, Filter, FilterContext, FilterError, Literal, OrderBy, Scalar, Search,
    TaskField,
};
use super::record::{Id, Record};
use super::space::TaskQuery;

/// The fields of a view that make its definition, by name: a change of any of them sends
/// live streams a new `reset` and ends the view's cursors; `name` and `sortOrder` do not.
pub const DEFINITION: [&str; 4] = ["filter", "q", "orderBy", "tz"];

/// A view's query as stored: `filter`, `q`, `orderBy` and `tz`, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The filter expression (empty: every task).
    pub filter: String,
    /// The search text (empty: every task).
    pub q: String,
    /// The order.
    pub order_by: String,
    /// The time zone.
    pub tz: String,
}

impl Definition {
    /// The definition of `view`, a record of [`Kind::View`].
    pub fn of(view: &Record) -> Definition {
        let text = |name: &str| -> String {
            Kind::View
                .field_index(name)
                .and_then(|i| view.fields.get(i))
                .and_then(|v| v.as_text())
                .unwrap_or_default()
                .to_string()
        };
        let or = |text: String, default: &str| {
            if text.is_empty() {
                default.to_string()
            } else {
                text
            }
        };
        Definition {
            filter: text("filter"),
            q: text("q"),
            order_by: or(text("orderBy"), "sortOrder"),
            tz: or(text("tz"), "UTC"),
        }
    }

    /// The task query the definition stands for, read at `now`. Every part was checked
    /// when the view was written; a part that no longer reads (never, short of a damaged
    /// file) falls back to its default.
    pub fn task_query(&self, now: i64) -> TaskQuery {
        TaskQuery {
            filter: self.filter.clone(),
            search: Search::parse(&self.q).unwrap_or_default(),
            order: OrderBy::parse(&self.order_by).unwrap_or_default(),
            tz: time_zone(&self.tz).unwrap_or(chrono_tz::UTC),
            now,
        }
    }
}

/// A task query ready to tell whether a task belongs: its filter parsed at a `now`.
#[derive(Debug, Clone)]
pub struct Matcher {
    filter: Filter,
    search: Search,
}

impl Matcher {
    /// `query`'s test of a task of space `space_id`, its `now` and `today` read at `now`.
    pub fn new(space_id: &str, query: &TaskQuery, now: i64) -> Result<Matcher, FilterError> {
        let context = FilterContext {
            space_id,
            tz: query.tz,
            now_ms: now,
        };
        Ok(Matcher {
            filter: Filter::parse(&query.filter, context)?,
            search: query.search.clone(),
        })
    }

    /// Whether `task` is in the view: not deleted, matching the filter and the search.
    pub fn matches(&self, task: &Record) -> bool {
        !task.is_deleted() && self.filter.matches(task) && self.search.matches_task(task)
    }
}

/// A value that a [`Pin`] holds, hashable: a literal of `=`, `in` or `has`, or a task
/// field's value (each id of an array).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Null,
    Bool(bool),
    /// A number's bits (`-0` as `0`: they are equal).
    Number(u64),
    Text(Box<str>),
    Time(i64),
}

impl Key {
    fn number(n: f64) -> Key {
        Key::Number(if n == 0.0 {
            0f64.to_bits()
        } else {
            n.to_bits()
        })
    }

    fn of_literal(literal: &Literal) -> Key {
        match literal {
            Literal::Null => Key::Null,
            Literal::Bool(b) => Key::Bool(*b),
            Literal::Number(n) => Key::number(*n),
            Literal::Text(t) => Key::Text(t.clone()),
            Literal::Time(t) => Key::Time(*t),
        }
    }

    /// Calls `each` with the keys of a field's value: one, or each id of an array.
    fn of_value(value: Scalar<'_>, mut each: impl FnMut(&Key)) {
        match value {
            Scalar::Null => each(&Key::Null),
            Scalar::Bool(b) => each(&Key::Bool(b)),
            Scalar::Number(n) => each(&Key::number(n)),
            Scalar::Text(t) => each(&Key::Text(t.into())),
            Scalar::Time(t) => each(&Key::Time(t)),
            Scalar::Ids(ids) => ids.iter().for_each(|id| each(&Key::Text(id.clone()))),
        }
    }
}

/// What a live view's filter pins: a conjunct of its top-level AND that holds a field to
/// a few values (`=`, `in`, `has`), on a field that no `now` or `today` moves. Every task
/// the view shows holds one of them, so a write whose task held none before and holds
/// none after neither was nor is in the view: [`Interests`] need not bring it to the view.
#[derive(Debug, Clone, PartialEq)]
pub struct Pin {
    field: TaskField,
    keys: Vec<Key>,
}

impl Pin {
    /// The first pin of `matcher`'s filter, if it has one.
    pub fn of(matcher: &Matcher) -> Option<Pin> {
        let moved = |field: TaskField| matcher.filter.clock().iter().any(|(f, _)| *f == field);
        matcher
            .filter
            .constraints()
            .into_iter()
            .find_map(|constraint| match constraint {
                Constraint::OneOf(field, values) if !moved(field) => Some(Pin {
                    field,
                    keys: values.iter().map(Key::of_literal).collect(),
                }),
                Constraint::Has(field, id) => Some(Pin {
                    field,
                    keys: vec![Key::Text(id.into())],
                }),
                _ => None,
            })
    }

    /// Whether `task` holds one of the pinned values.
    pub fn holds(&self, task: &Record) -> bool {
        let mut holds = false;
        Key::of_value(self.field.value(task), |key| {
            holds |= self.keys.contains(key);
        });
        holds
    }
}

/// The subscribers of a space's durable writes, each with its [`Pin`] or none, indexed by
/// what they pin: a write reaches every subscriber without a pin (change streams, live
/// views of any other filter), and a pinned one only when one of its tasks holds a pinned
/// value before or after the write, or when it touches a record of another kind (a view's
/// own record among them). So 1,000 live views of one space, each pinned to its own
/// value, cost a write a few hash lookups and the views it concerns, not 1,000 wake-ups.
#[derive(Debug)]
pub struct Interests<T> {
    next: u64,
    subscribers: HashMap<u64, (T, Option<Pin>)>,
    /// Those without a pin, in the order they came.
    unpinned: BTreeSet<u64>,
    /// Those with a pin, by field and pinned value.
    pinned: HashMap<TaskField, HashMap<Key, Vec<u64>>>,
}

impl<T> Default for Interests<T> {
    fn default() -> Self {
        Interests {
            next: 0,
            subscribers: HashMap::new(),
            unpinned: BTreeSet::new(),
            pinned: HashMap::new(),
        }
    }
}

/// A record a write touched: its kind, its state before (`None`: created) and after.
pub type Touch<'r> = (Kind, Option<&'r Record>, &'r Record);

impl<T> Interests<T> {
    /// Whether nobody subscribes.
    pub fn is_empty(&self) -> bool {
        self.subscribers.is_empty()
    }

    /// Adds `subscriber`, pinned by `pin` or not.
    pub fn subscribe(&mut self, subscriber: T, pin: Option<Pin>) {
        let id = self.next;
        self.next += 1;
        match &pin {
            None => {
                self.unpinned.insert(id);
            }
            Some(pin) => {
                let by_key = self.pinned.entry(pin.field).or_default();
                for key in &pin.keys {
                    by_key.entry(key.clone()).or_default().push(id);
                }
            }
        }
        self.subscribers.insert(id, (subscriber, pin));
    }

    /// Forgets every subscriber.
    pub fn clear(&mut self) {
        *self = Interests::default();
    }

    /// Hands a write that touched `touched` to each subscriber it reaches (see the type),
    /// once, through `send`; forgets each for which `send` says `false`.
    pub fn send<'r>(
        &mut self,
        touched: impl IntoIterator<Item = Touch<'r>>,
        mut send: impl FnMut(&T) -> bool,
    ) {
        let mut reached: Vec<u64> = self.unpinned.iter().copied().collect();
        for (kind, before, after) in touched {
            if kind != Kind::Task {
                reached = self.subscribers.keys().copied().collect();
                break;
            }
            for (field, by_key) in &self.pinned {
                for state in before.into_iter().chain([after]) {
                    Key::of_value(field.value(state), |key| {
                        reached.extend(by_key.get(key).into_iter().flatten());
                    });
                }
            }
        }
        reached.sort_unstable();
        reached.dedup();
        for id in reached {
            if !send(&self.subscribers[&id].0) {
                self.remove(id);
            }
        }
    }

    fn remove(&mut self, id: u64) {
        let Some((_, pin)) = self.subscribers.remove(&id) else {
            return;
        };
        let Some(pin) = pin else {
            self.unpinned.remove(&id);
            return;
        };
        let Some(by_key) = self.pinned.get_mut(&pin.field) else {
            return;
        };
        for key in &pin.keys {
            if let Some(ids) = by_key.get_mut(key) {
                ids.retain(|i| *i != id);
                if ids.is_empty() {
                    by_key.remove(key);
                }
            }
        }
        if by_key.is_empty() {
            self.pinned.remove(&pin.field);
        }
    }
}

/// A live view's time boundaries (docs §24): for every task whose match the clock alone
/// can change, the next instant at which it may, ordered by instant as a space's reminder
/// times are. The first of them is the view's next boundary, which its stream sets on the
/// server's one timer; at a boundary the stream reads again only the tasks due then.
///
/// A task's instants come from the parsed filter ([`Filter::clock`]): for each comparison
/// of a time field with a RELATIVE literal, the two instants at which the literal, read in
/// the query's zone as the clock moves, reaches the task's value and passes it
/// ([`Relative::crossings`]). A boundary may find the task's match unchanged (a comparison
/// under `||` or `!` that does not decide, or `<=` whose turn is at the second crossing);
/// it then notes the task's next one, and none is ever missed.
#[derive(Debug)]
pub struct Boundaries {
    clock: Vec<(TaskField, Relative)>,
    tz: Tz,
    queue: BTreeSet<(i64, Id)>,
    /// Each task with a boundary ahead: its instant and its state then.
    by_task: HashMap<Id, (i64, Arc<Record>)>,
}

impl Boundaries {
    /// The (empty) boundaries of a view whose filter is `matcher`'s, read in `tz`.
    pub fn new(matcher: &Matcher, tz: Tz) -> Boundaries {
        Boundaries {
            clock: matcher.filter.clock().to_vec(),
            tz,
            queue: BTreeSet::new(),
            by_task: HashMap::new(),
        }
    }

    /// Whether the filter names `now` or `today`: else no task ever has a boundary.
    pub fn moves_with_time(&self) -> bool {
        !self.clock.is_empty()
    }

    /// Notes `task`'s next boundary after `now`, replacing the one it had (a deleted task
    /// has none).
    pub fn note(&mut self, task: &Arc<Record>, now: i64) {
        if let Some((at, _)) = self.by_task.remove(&task.id) {
            self.queue.remove(&(at, task.id.clone()));
        }
        if task.is_deleted() {
            return;
        }
        let next = self
            .clock
            .iter()
            .filter_map(|(field, relative)| match field.value(task) {
                Scalar::Time(value) => Some(relative.crossings(self.tz, value)),
                _ => None,
            })
            .flatten()
            .flatten()
            .filter(|at| *at > now)
            .min();
        if let Some(at) = next {
            self.queue.insert((at, task.id.clone()));
            self.by_task.insert(task.id.clone(), (at, Arc::clone(task)));
        }
    }

    /// The first boundary of any task: the view's next.
    pub fn first(&self) -> Option<i64> {
        self.queue.first().map(|(at, _)| *at)
    }

    /// The tasks whose boundary is at or before `now`, taken out (each in the state last
    /// noted), in boundary order.
    pub fn due(&mut self, now: i64) -> Vec<Arc<Record>> {
        let mut due = Vec::new();
        while self.queue.first().is_some_and(|(at, _)| *at <= now) {
            let (_, id) = self.queue.pop_first().expect("checked");
            if let Some((_, task)) = self.by_task.remove(&id) {
                due.push(task);
            }
        }
        due
    }
}

/// What a write (or the clock) did to one task of a live view.
#[derive(Debug, Clone, PartialEq)]
pub enum Moved {
    /// It matches now and did not; it stands after the task named (`None`: first).
    Enter(Arc<Record>, Option<Id>),
    /// It matched and still does, changed; it stands after the task named.
    Update(Arc<Record>, Option<Id>),
    /// It matched and no longer does.
    Leave(Id),
}

/// The tasks a live view shows, in its order.
#[derive(Debug, Clone)]
pub struct Members {
    order: OrderBy,
    /// The members, sorted by `order` (its last key is the id, so no two are equal).
    sorted: Vec<Arc<Record>>,
    /// Each member's state, by id, to find it in `sorted`.
    by_id: HashMap<Id, Arc<Record>>,
}

impl Members {
    /// A view's members: `tasks`, in `order` already (as a listing gives them).
    pub fn new(order: OrderBy, tasks: Vec<Arc<Record>>) -> Members {
        let by_id = tasks
            .iter()
            .map(|t| (t.id.clone(), Arc::clone(t)))
            .collect();
        Members {
            order,
            sorted: tasks,
            by_id,
        }
    }

    /// How many tasks the view shows.
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether the view shows no task.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// Whether the task `id` is shown.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The members, in order.
    pub fn tasks(&self) -> &[Arc<Record>] {
        &self.sorted
    }

    fn place(&self, task: &Record) -> Result<usize, usize> {
        self.sorted
            .binary_search_by(|probe| self.order.compare(probe, task).then(Ordering::Equal))
    }

    fn remove(&mut self, id: &str) -> bool {
        let Some(old) = self.by_id.remove(id) else {
            return false;
        };
        if let Ok(at) = self.place(&old) {
            self.sorted.remove(at);
        } else if let Some(at) = self.sorted.iter().position(|t| *t.id == *id) {
            self.sorted.remove(at);
        }
        true
    }

    fn insert(&mut self, task: Arc<Record>) -> Option<Id> {
        let at = self.place(&task).unwrap_or_else(|at| at);
        self.by_id.insert(task.id.clone(), Arc::clone(&task));
        self.sorted.insert(at, task);
        at.checked_sub(1)
            .map(|before| self.sorted[before].id.clone())
    }

    /// Takes `task`'s new state, which `matches` the view or not; what that does to the
    /// view, if anything. An `update` is only for a change of a field other than
    /// `updatedAt` and `versionUpdatedAt` (docs §24).
    pub fn apply(&mut self, task: Arc<Record>, matches: bool) -> Option<Moved> {
        let old = self.by_id.get(&task.id).cloned();
        match (old, matches) {
            (None, false) => None,
            (None, true) => {
                let after = self.insert(Arc::clone(&task));
                Some(Moved::Enter(task, after))
            }
            (Some(_), false) => {
                self.remove(&task.id);
                Some(Moved::Leave(task.id.clone()))
            }
            (Some(old), true) => {
                let changed = old.fields != task.fields
                    || old.sort_order != task.sort_order
                    || old.created_at != task.created_at
                    || old.deleted_at() != task.deleted_at();
                self.remove(&task.id);
                let after = self.insert(Arc::clone(&task));
                changed.then_some(Moved::Update(task, after))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::Value;

    fn task(id: &str, sort_order: f64, name: &str) -> Arc<Record> {
        let mut record = Record::new(Kind::Task, Id::from(id), sort_order, 0, 1);
        let at = Kind::Task.field_index("name").unwrap();
        record.fields[at] = Value::Text(name.into());
        Arc::new(record)
    }

    #[test]
    fn a_task_enters_after_the_one_before_it_and_moves_with_its_sort_order() {
        let mut members = Members::new(OrderBy::default(), vec![task("a", 1.0, "A")]);
        let b = task("b", 2.0, "B");
        assert_eq!(
            members.apply(b.clone(), true),
            Some(Moved::Enter(b, Some("a".into())))
        );
        let first = task("b", 0.5, "B");
        assert_eq!(
            members.apply(first.clone(), true),
            Some(Moved::Update(first, None))
        );
        let ids: Vec<&str> = members.tasks().iter().map(|t| &*t.id).collect();
        assert_eq!(ids, ["b", "a"]);
        assert_eq!(
            members.apply(task("a", 1.0, "A"), false),
            Some(Moved::Leave("a".into()))
        );
        assert_eq!(members.apply(task("z", 1.0, "Z"), false), None);
        assert_eq!(members.len(), 1);
    }

    #[test]
    fn a_write_that_changes_only_the_stamps_sends_no_update() {
        let mut members = Members::new(OrderBy::default(), vec![task("a", 1.0, "A")]);
        let mut touched = Record::clone(&task("a", 1.0, "A"));
        touched.updated_at = 99;
        touched.version = 7;
        assert_eq!(members.apply(Arc::new(touched), true), None);
    }

    fn due_at(id: &str, due: i64) -> Arc<Record> {
        let mut record = Record::new(Kind::Task, Id::from(id), 1.0, 0, 1);
        let at = Kind::Task.field_index("dateDue").unwrap();
        record.fields[at] = Value::Time(due);
        Arc::new(record)
    }

    fn ms(rfc3339: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .timestamp_millis()
    }

    /// The boundaries of `filter` read in `tz`, with `tasks` noted at `now`.
    fn boundaries(filter: &str, tz: &str, now: i64, tasks: &[Arc<Record>]) -> Boundaries {
        let definition = Definition {
            filter: filter.into(),
            q: String::new(),
            order_by: "sortOrder".into(),
            tz: tz.into(),
        };
        let query = definition.task_query(now);
        let matcher = Matcher::new("s", &query, now).unwrap();
        let mut boundaries = Boundaries::new(&matcher, query.tz);
        for task in tasks {
            boundaries.note(task, now);
        }
        boundaries
    }

    #[test]
    fn a_task_due_later_crosses_now_at_its_due_time_and_is_noted_again_after() {
        let now = ms("2026-11-22T09:00:00Z");
        let due = ms("2026-11-22T09:30:00Z");
        let mut b = boundaries("dateDue < now", "UTC", now, &[due_at("a", due)]);
        assert_eq!(b.first(), Some(due));
        // At its due time `dateDue < now` has not turned yet: the second crossing has.
        let task = b.due(due).pop().unwrap();
        b.note(&task, due);
        assert_eq!(b.first(), Some(due + 1));
        b.due(due + 1);
        b.note(&task, due + 1);
        assert_eq!(
            b.first(),
            None,
            "past both crossings: the clock moves it no more"
        );
    }

    #[test]
    fn today_turns_at_the_midnight_of_the_views_zone_not_of_utc() {
        // 10:00Z on 22 November is 23:00 in Auckland (UTC+13): its day ends an hour later.
        let now = ms("2026-11-22T10:00:00Z");
        let due = ms("2026-11-22T10:30:00Z");
        let b = boundaries(
            "dateDue < today",
            "Pacific/Auckland",
            now,
            &[due_at("a", due)],
        );
        assert_eq!(b.first(), Some(ms("2026-11-22T11:00:00Z")));
        let b = boundaries("dateDue < today", "UTC", now, &[due_at("a", due)]);
        assert_eq!(b.first(), Some(ms("2026-11-23T00:00:00Z")));
    }

    #[test]
    fn calendar_days_keep_the_wall_time_across_a_daylight_saving_change() {
        // Paris moves from UTC+1 to UTC+2 on 29 March 2026: `now+1d` reaches 12:00 on the
        // 29th at 12:00 on the 28th, 23 hours before, not 24.
        let now = ms("2026-03-28T08:00:00Z");
        let due = ms("2026-03-29T12:00:00+02:00");
        let b = boundaries(
            "dateDue <= now+1d",
            "Europe/Paris",
            now,
            &[due_at("a", due)],
        );
        assert_eq!(b.first(), Some(ms("2026-03-28T12:00:00+01:00")));
    }

    #[test]
    fn only_time_fields_compared_with_the_clock_have_boundaries() {
        let now = ms("2026-11-22T09:00:00Z");
        let task = due_at("a", now + 60_000);
        let fixed = boundaries("dateDue < 2026-12-01", "UTC", now, &[Arc::clone(&task)]);
        assert!(!fixed.moves_with_time() && fixed.first().is_none());
        let other = boundaries("dateStart < now", "UTC", now, &[task]);
        assert!(other.moves_with_time() && other.first().is_none());
    }

    fn with(id: &str, field: &str, value: Value) -> Arc<Record> {
        let mut record = Record::new(Kind::Task, Id::from(id), 1.0, 0, 1);
        record.fields[Kind::Task.field_index(field).unwrap()] = value;
        Arc::new(record)
    }

    fn pin(filter: &str) -> Option<Pin> {
        let query = Definition {
            filter: filter.into(),
            q: String::new(),
            order_by: "sortOrder".into(),
            tz: "UTC".into(),
        }
        .task_query(0);
        Pin::of(&Matcher::new("s", &query, 0).unwrap())
    }

    #[test]
    fn a_view_is_pinned_by_a_top_level_equality_not_moved_by_the_clock() {
        let pinned = pin(r#"dateDue < now && status in ("a", "b")"#).unwrap();
        assert!(pinned.holds(&with("t", "status", Value::Text("b".into()))));
        assert!(!pinned.holds(&with("t", "status", Value::Text("c".into()))));
        let tags = pin(r#"tagIds has "x""#).unwrap();
        let ids = Value::Ids(vec!["w".into(), "x".into()].into());
        assert!(tags.holds(&with("t", "tagIds", ids)));
        assert!(pin(r#"status = "a" || name = "b""#).is_none());
        assert!(pin("dateDue = today").is_none(), "the clock moves it");
        assert!(pin(r#"!(status = "a")"#).is_none());
    }

    #[test]
    fn a_write_reaches_the_views_pinned_to_its_tasks_before_or_after_and_the_unpinned() {
        let mut interests = Interests::default();
        interests.subscribe("a", pin(r#"status = "a""#));
        interests.subscribe("b", pin(r#"status = "b""#));
        interests.subscribe("any", None);
        let a = with("t", "status", Value::Text("a".into()));
        let b = with("t", "status", Value::Text("b".into()));
        let c = with("t", "status", Value::Text("c".into()));
        fn reached(
            interests: &mut Interests<&'static str>,
            touched: Vec<Touch<'_>>,
        ) -> Vec<&'static str> {
            let mut reached = Vec::new();
            interests.send(touched, |s| {
                reached.push(*s);
                true
            });
            reached
        }
        let created = vec![(Kind::Task, None, &*c)];
        assert_eq!(reached(&mut interests, created), ["any"]);
        let moved = vec![(Kind::Task, Some(&*a), &*b)];
        assert_eq!(reached(&mut interests, moved), ["a", "b", "any"]);
        let view = Record::new(Kind::View, Id::from("v"), 1.0, 0, 1);
        let other = vec![(Kind::View, None, &view)];
        assert_eq!(reached(&mut interests, other).len(), 3);
        // A subscriber that refuses is forgotten.
        interests.send([(Kind::Task, None, &*a)], |s| *s != "a");
        assert_eq!(
            reached(&mut interests, vec![(Kind::Task, None, &*a)]),
            ["any"]
        );
        assert_eq!(interests.pinned.len(), 1);
    }

    #[test]
    fn a_view_reads_its_definition_with_the_defaults() {
        let view = Record::new(Kind::View, Id::from("v"), 1.0, 0, 1);
        let definition = Definition::of(&view);
        assert_eq!(definition.order_by, "sortOrder");
        assert_eq!(definition.tz, "UTC");
        let query = definition.task_query(5);
        assert_eq!(query.order, OrderBy::default());
        assert_eq!(query.now, 5);
    }
}
