//! A space: every record of the five kinds, their ordered indexes and the version counter.
//!
//! `Space` is plain data with methods; its actor (`actors::space`) calls one method per
//! message, so each method runs alone. A write is a value: [`Space::apply`] takes a
//! [`Command`] whose every choice (the new record's id, the time) was made before, checks
//! everything that can fail before it changes anything, and returns an [`Outcome`] listing
//! every record the write touched in its new state. The outcome is what the journal stores
//! and what [`Space::replay`] re-applies at start-up, so replay never decides anything again.
//! Each applied write also yields an [`Undo`], the touched records' former states, so a
//! write whose journal entry could not be stored is taken back.
//!
//! Records, indexes, the feed and the dependency graph are persistent maps and sets
//! (`imbl`): cloning a whole `Space` costs O(1) and shares every record and tree node, so
//! the actor publishes a copy for readers on other threads after its writes are durable,
//! and a [`SpaceView`] for a snapshot never stops the space. A write copies the few nodes on
//! its paths that a published copy still shares. The trees grow a node at a time, with no
//! whole-table rehash that would stall a large space, and give the ordered walk that
//! paging needs.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use imbl::{OrdMap, OrdSet};
use serde::{Deserialize, Serialize};

use super::calendar::{CalendarFields, CalendarTasks, Objects};
use super::cursor::Cursor;
use super::deps::{Budget, Graph};
use super::error::SpaceError;
use super::kind::{Field, FieldType, Kind};
use super::query::{Filter, FilterContext, OrderBy, Search};
use super::record::{Id, Record, Records, Value};
use super::recurrence::Listed;
use super::times::{OccurrenceQuery, TimeFields};
use super::validate::Changes;

mod find;

pub use find::{Plan, SCAN_BELOW};
use find::{Scope, TaskIndexes};

/// A write of at most this many commands may be light (see [`Space::is_heavy`]).
pub const LIGHT_COMMANDS: usize = 16;
/// A light write carries at most this many bytes of text.
pub const LIGHT_TEXT_BYTES: usize = 64 << 10;
/// A light write finishes or unfinishes no record with more dependents than this.
pub const LIGHT_DEPENDENTS: usize = 100;

/// A collection with at least this many records is loaded on two threads.
const PARALLEL_LOAD: usize = 50_000;

/// The set of `sorted` (ascending and distinct), with full nodes. An imbl node that is full
/// splits in the middle, so inserting in order leaves every node of a bulk build half
/// empty; inserting every other element first and then the rest fills the gaps, and the
/// set takes about half the memory.
fn packed_set<A: Ord + Clone>(sorted: Vec<A>) -> OrdSet<A> {
    let (even, odd) = halves(sorted);
    let mut set = OrdSet::new();
    for a in even.into_iter().chain(odd) {
        set.insert(a);
    }
    set
}

/// The map of `sorted` (keys ascending and distinct), with full nodes as in [`packed_set`].
fn packed_map<K: Ord + Clone, V: Clone>(sorted: Vec<(K, V)>) -> OrdMap<K, V> {
    let (even, odd) = halves(sorted);
    let mut map = OrdMap::new();
    for (k, v) in even.into_iter().chain(odd) {
        map.insert(k, v);
    }
    map
}

/// The even-numbered elements and the odd-numbered ones.
fn halves<A>(items: Vec<A>) -> (Vec<A>, Vec<A>) {
    let mut even = Vec::with_capacity(items.len().div_ceil(2));
    let mut odd = Vec::with_capacity(items.len() / 2);
    for (i, a) in items.into_iter().enumerate() {
        if i % 2 == 0 {
            even.push(a);
        } else {
            odd.push(a);
        }
    }
    (even, odd)
}

/// A record's place in listing order: `sortOrder` ascending, then id ascending.
#[derive(Debug, Clone, PartialEq)]
struct OrderKey {
    sort_order: f64,
    id: Id,
}

impl OrderKey {
    fn of(record: &Record) -> OrderKey {
        OrderKey {
            sort_order: record.sort_order,
            id: record.id.clone(),
        }
    }
}

impl Eq for OrderKey {}

impl PartialOrd for OrderKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrderKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort_order
            .total_cmp(&other.sort_order)
            .then_with(|| self.id.as_bytes().cmp(other.id.as_bytes()))
    }
}

/// Records by one field's string value, each value's records in listing order.
type FieldIndex = OrdMap<Box<str>, OrdSet<OrderKey>>;

/// The ordered indexes of one collection, kept in step with its records.
#[derive(Debug, Default, Clone)]
struct Indexes {
    /// Every record.
    all: OrdSet<OrderKey>,
    /// Records that are not deleted, for the default listing.
    active: OrdSet<OrderKey>,
    /// For each filterable field (by position), records by that field's string value.
    by_field: Vec<(usize, FieldIndex)>,
    /// For each exclusive flag (by position), the ids of records that have it set: at
    /// most one once a write completes, so clearing it elsewhere needs no scan.
    flagged: Vec<(usize, OrdSet<Id>)>,
    /// The indexes of CONTRACT §17, for tasks.
    tasks: Option<TaskIndexes>,
}

impl Indexes {
    fn new(kind: Kind) -> Indexes {
        let positions = |keep: fn(&Field) -> bool| {
            kind.fields()
                .iter()
                .enumerate()
                .filter(move |(_, f)| keep(f))
                .map(|(i, _)| i)
        };
        Indexes {
            by_field: positions(|f| f.filter)
                .map(|i| (i, OrdMap::new()))
                .collect(),
            flagged: positions(|f| f.ty == FieldType::ExclusiveFlag)
                .map(|i| (i, OrdSet::new()))
                .collect(),
            tasks: (kind == Kind::Task).then(TaskIndexes::new),
            ..Indexes::default()
        }
    }

    /// The indexes of `records`, built from sorted runs rather than one insert at a time
    /// (a bulk build is several times faster when a large space is loaded).
    fn build(kind: Kind, records: &[Arc<Record>]) -> Indexes {
        let mut keyed: Vec<(OrderKey, &Record)> =
            records.iter().map(|r| (OrderKey::of(r), &**r)).collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let parallel = records.len() >= PARALLEL_LOAD;
        let tasks = (kind == Kind::Task).then_some(&keyed);
        std::thread::scope(|scope| {
            // The task indexes of a large collection build beside the others.
            let tasks = match tasks {
                Some(keyed) if parallel => {
                    Err(scope.spawn(move || TaskIndexes::build(keyed, parallel)))
                }
                Some(keyed) => Ok(Some(TaskIndexes::build(keyed, parallel))),
                None => Ok(None),
            };
            let mut indexes = Indexes::build_listing(kind, &keyed);
            indexes.tasks = match tasks {
                Ok(tasks) => tasks,
                Err(thread) => Some(
                    thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                ),
            };
            indexes
        })
    }

    /// The listing indexes of `keyed`, the records with their keys in listing order.
    fn build_listing(kind: Kind, keyed: &[(OrderKey, &Record)]) -> Indexes {
        let mut indexes = Indexes::new(kind);
        for (field, index) in &mut indexes.by_field {
            let mut runs: BTreeMap<&str, Vec<OrderKey>> = BTreeMap::new();
            for (key, record) in keyed {
                if let Some(value) = record.fields[*field].filter_key() {
                    runs.entry(value).or_default().push(key.clone());
                }
            }
            *index = runs
                .into_iter()
                .map(|(value, keys)| (Box::<str>::from(value), packed_set(keys)))
                .collect();
        }
        for (field, ids) in &mut indexes.flagged {
            *ids = keyed
                .iter()
                .filter(|(_, r)| r.fields[*field] == Value::Bool(true))
                .map(|(_, r)| r.id.clone())
                .collect();
        }
        indexes.active = packed_set(
            keyed
                .iter()
                .filter(|(_, r)| !r.is_deleted())
                .map(|(k, _)| k.clone())
                .collect(),
        );
        indexes.all = packed_set(keyed.iter().map(|(k, _)| k.clone()).collect());
        indexes
    }

    fn add(&mut self, record: &Record) {
        let key = OrderKey::of(record);
        for (field, index) in &mut self.by_field {
            if let Some(value) = record.fields[*field].filter_key() {
                match index.get_mut(value) {
                    Some(keys) => keys.insert(key.clone()),
                    None => index.entry(value.into()).or_default().insert(key.clone()),
                };
            }
        }
        for (field, ids) in &mut self.flagged {
            if record.fields[*field] == Value::Bool(true) {
                ids.insert(record.id.clone());
            }
        }
        if !record.is_deleted() {
            self.active.insert(key.clone());
        }
        self.all.insert(key);
    }

    fn remove(&mut self, record: &Record) {
        let key = OrderKey::of(record);
        for (field, index) in &mut self.by_field {
            let Some(value) = record.fields[*field].filter_key() else {
                continue;
            };
            if let Some(keys) = index.get_mut(value) {
                keys.remove(&key);
                if keys.is_empty() {
                    index.remove(value);
                }
            }
        }
        for (_, ids) in &mut self.flagged {
            ids.remove(&record.id);
        }
        self.active.remove(&key);
        self.all.remove(&key);
    }

    /// Keys after `after` in order, from the narrowest index that covers the query.
    fn walk<'a>(
        &'a self,
        query: &'a ListQuery,
        after: Option<OrderKey>,
    ) -> Box<dyn Iterator<Item = &'a OrderKey> + 'a> {
        let set = match query.filters.first() {
            Some((field, value)) => {
                let keys = self
                    .by_field
                    .iter()
                    .find(|(f, _)| f == field)
                    .and_then(|(_, index)| index.get(value.as_str()));
                match keys {
                    Some(keys) => keys,
                    None => return Box::new(std::iter::empty()),
                }
            }
            None if query.include_deleted => &self.all,
            None => &self.active,
        };
        match after {
            Some(key) => Box::new(set.range((Bound::Excluded(key), Bound::Unbounded))),
            None => Box::new(set.iter()),
        }
    }
}

/// The records of one kind in a space.
#[derive(Debug, Clone)]
struct Collection {
    kind: Kind,
    records: Records,
    indexes: Indexes,
    /// The dependency graph, for a kind whose records have predecessors (tasks).
    graph: Option<Graph>,
    /// Where the kind keeps its time fields, when it has them (tasks).
    times: Option<TimeFields>,
    /// The records with a reminder left to fire, by when the next one is due (see
    /// [`TimeFields::next_reminder`]).
    reminders: OrdSet<(i64, Id)>,
    /// Where the kind keeps `completedAt` and its calendar data, when it has them (tasks).
    calendar: Option<CalendarFields>,
    /// The records by the names calendar clients give them (tasks; empty for the others).
    objects: Objects,
}

impl Collection {
    fn new(kind: Kind) -> Collection {
        Collection {
            kind,
            records: Records::new(),
            indexes: Indexes::new(kind),
            graph: Graph::of(kind),
            times: TimeFields::of(kind),
            reminders: OrdSet::new(),
            calendar: CalendarFields::of(kind),
            objects: Objects::default(),
        }
    }

    /// Where `record` sits among the records with a reminder to fire, if it does.
    fn reminder_key(&self, record: &Record) -> Option<(i64, Id)> {
        let at = self.times.as_ref()?.next_reminder(record)?;
        Some((at, record.id.clone()))
    }

    fn get(&self, id: &str) -> Result<&Arc<Record>, SpaceError> {
        self.records.get(id).ok_or_else(|| SpaceError::NotFound {
            kind: self.kind,
            id: id.to_string(),
        })
    }

    /// Puts `record` in place of the record with its id (or removes `id` when `None`),
    /// keeping the indexes in step; returns the record it replaced.
    fn put(&mut self, id: &str, record: Option<Arc<Record>>) -> Option<Arc<Record>> {
        let old = match record {
            Some(record) => self.records.insert(record.id.clone(), record),
            None => self.records.remove(id),
        };
        if let Some(old) = &old {
            self.indexes.remove(old);
            if let Some(key) = self.reminder_key(old) {
                self.reminders.remove(&key);
            }
        }
        let new = self.records.get(id);
        if let Some(new) = new {
            self.indexes.add(new);
            if let Some(key) = self.reminder_key(new) {
                self.reminders.insert(key);
            }
        }
        if let Some(tasks) = &mut self.indexes.tasks {
            let (old_key, new_key) = (
                old.as_deref().map(OrderKey::of),
                new.map(|r| OrderKey::of(r)),
            );
            tasks.replace(
                old.as_deref().zip(old_key.as_ref()),
                new.map(|r| &**r).zip(new_key.as_ref()),
            );
        }
        if let Some(graph) = &mut self.graph {
            graph.relink(old.as_deref(), new.map(|r| &**r), &self.records);
        }
        if let Some(fields) = &self.calendar {
            self.objects
                .replace(fields, old.as_deref(), new.map(|r| &**r));
        }
        old
    }

    /// The sort order a new record gets when none is given: 1 + the largest, or 1.
    fn next_sort_order(&self) -> f64 {
        self.indexes
            .all
            .get_max()
            .map_or(1.0, |k| k.sort_order + 1.0)
    }

    /// Whether `id` names a record that is not deleted.
    fn is_active(&self, id: &str) -> bool {
        self.records.get(id).is_some_and(|r| !r.is_deleted())
    }
}

/// A record and the space version it is reported with.
#[derive(Debug, Clone)]
pub struct Item {
    /// The record as it is after the operation.
    pub record: Arc<Record>,
    /// The space version after the operation.
    pub version: u64,
}

/// What a listing asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    /// Page size, 1 to 100.
    pub limit: usize,
    /// Whether soft-deleted records are listed too.
    pub include_deleted: bool,
    /// Exact-match filters by field position, in field-table order.
    pub filters: Vec<(usize, String)>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// The `filter`, `q`, `orderBy` and `tz` of a task listing (CONTRACT §17); `None` for
    /// the other kinds, whose listings take none of them.
    pub find: Option<TaskQuery>,
    /// Whether the planner may use the §17 indexes.
    pub plan: Plan,
}

/// The §17 parameters of a task listing.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskQuery {
    /// The decoded `filter=`, parsed by the listing against the walk's `now` (an empty
    /// text matches every task).
    pub filter: String,
    /// The `q=`.
    pub search: Search,
    /// The `orderBy=`.
    pub order: OrderBy,
    /// The `tz=` (UTC by default).
    pub tz: chrono_tz::Tz,
    /// The request's time, in milliseconds since the Unix epoch: `now` of a walk's first
    /// page (later pages take theirs from the cursor).
    pub now: i64,
}

/// One page of a listing.
#[derive(Debug, Clone)]
pub struct Page {
    /// The records, in listing order.
    pub records: Vec<Arc<Record>>,
    /// The current space version.
    pub version: u64,
    /// The cursor of the next page, if any record is left.
    pub next_cursor: Option<String>,
}

/// A write, decided completely before the space sees it: replaying it gives the same
/// result, because nothing in it is left to the model to choose.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The kind of the record it names.
    pub kind: Kind,
    /// The record it names; on create, the new record's id (the client's or a new UUID).
    pub id: Box<str>,
    /// What it does.
    pub op: Op,
    /// For an update, delete or restore: the record's current `versionUpdatedAt` must be
    /// one of these (`If-Match`), else nothing changes.
    pub if_match: Option<IfMatch>,
}

/// The versions an `If-Match` accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IfMatch {
    /// `*`: any existing record.
    Any,
    /// A list of `versionUpdatedAt` values.
    Versions(Vec<u64>),
}

/// What a [`Command`] does to the record it names.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Create the record from a validated body (its `id` is the command's).
    Create(Changes),
    /// Change fields of the record.
    Update(Changes),
    /// Soft-delete (`true`) or restore (`false`) the record.
    SetDeleted(bool),
    /// Fire the task's reminders that are due (CONTRACT §18): `remindedAt` becomes the
    /// write's time. Refused with [`SpaceError::NothingDue`] when none is.
    Remind,
}

/// One record a write touched, in its state after the write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Touched {
    /// The record's kind.
    pub kind: Kind,
    /// The record after the write.
    pub record: Arc<Record>,
}

/// What one command of a write did: every record it touched, the one it names first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Whether it created the record it names.
    pub created: bool,
    /// Every record it touched, in their new state; the named one first.
    pub touched: Vec<Touched>,
}

/// What a write did: the versions it made and every record it touched. A write of `n`
/// commands (a batch; usually one) makes versions `base + 1 ..= base + n`, one per step.
/// Journal entries hold outcomes; replaying one re-applies it exactly. Part of the journal
/// format (`store::codec`): a change of shape needs a new format version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The space version before the write.
    pub base: u64,
    /// The space version after the write.
    pub version: u64,
    /// One step per command, in order.
    pub steps: Vec<Step>,
}

impl Outcome {
    /// The record the last command named, with the version the write made.
    pub fn item(&self) -> Item {
        let step = self.steps.last().expect("a write has a step");
        Item {
            record: Arc::clone(&step.touched[0].record),
            version: self.version,
        }
    }

    /// Every record the write touched, in the order it touched them.
    pub fn touched(&self) -> impl Iterator<Item = &Touched> {
        self.steps.iter().flat_map(|s| &s.touched)
    }
}

/// One page of the change feed (CONTRACT §12).
#[derive(Debug, Clone)]
pub struct FeedPage {
    /// Every record changed after `since`, in feed order, each in its current state.
    pub changes: Vec<Touched>,
    /// The current space version.
    pub version: u64,
    /// The `versionUpdatedAt` of the last change, or `since` when there is none.
    pub next_since: u64,
    /// Whether more changes follow.
    pub has_more: bool,
}

/// A record's state before a write: its kind, id, and the record (`None`: it did not exist).
type Former = (Kind, Id, Option<Arc<Record>>);

/// How to take an applied write back: the touched records' former states.
#[derive(Debug, Clone)]
pub struct Undo {
    base: u64,
    before: Vec<Former>,
}

/// A space's state at one version, sharing records and map nodes with the space: what the
/// snapshot actor encodes while the space goes on serving.
#[derive(Debug, Clone, PartialEq)]
pub struct SpaceView {
    /// The space id.
    pub id: Box<str>,
    /// The space version.
    pub version: u64,
    /// The highest version durably reserved (see [`SpaceSnapshot::reserved`]).
    pub reserved: u64,
    /// The records of each kind, in [`Kind::ALL`] order.
    pub collections: [Records; 5],
}

impl SpaceView {
    /// Takes back the write `undo` came from (the newest one not yet taken back).
    pub fn revert(&mut self, undo: &Undo) {
        for (kind, id, before) in undo.before.iter().rev() {
            let records = &mut self.collections[kind.index()];
            match before {
                Some(record) => records.insert(id.clone(), Arc::clone(record)),
                None => records.remove(id),
            };
        }
        self.version = undo.base;
    }
}

/// A space as a snapshot file holds it: plain data, checked by [`Space::from_snapshot`].
#[derive(Debug, Clone, PartialEq)]
pub struct SpaceSnapshot {
    /// The space id.
    pub id: Box<str>,
    /// The space version.
    pub version: u64,
    /// The highest version the space may have handed out: in `write` and `snapshot`
    /// durability, versions are reserved on disk before they are used, so a space that
    /// stopped uncleanly resumes above every version a client may have seen.
    pub reserved: u64,
    /// The records of each kind.
    pub collections: Vec<(Kind, Vec<Arc<Record>>)>,
}

/// A space: its id, version counter and the records of every kind.
#[derive(Debug, Clone)]
pub struct Space {
    id: Box<str>,
    version: u64,
    /// The highest version reserved on disk, as read at start-up (see `skip_reserved`).
    reserved: u64,
    collections: [Collection; 5],
    /// Every record by `versionUpdatedAt`, then kind, then id: the change feed's order.
    /// The records sit beside their keys, so a feed page looks nothing up.
    feed: OrdMap<FeedKey, Arc<Record>>,
}

/// A record's place in the change feed.
type FeedKey = (u64, Kind, Id);

impl Space {
    /// A new, empty space at version 0.
    pub fn new(id: &str) -> Space {
        Space {
            id: id.into(),
            version: 0,
            reserved: 0,
            collections: Kind::ALL.map(Collection::new),
            feed: OrdMap::new(),
        }
    }

    /// The space id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The current space version.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The highest version reserved on disk, as read at start-up.
    pub fn reserved(&self) -> u64 {
        self.reserved
    }

    /// Notes a reservation read from disk: versions up to `up_to` may have been seen.
    pub fn reserve(&mut self, up_to: u64) {
        self.reserved = self.reserved.max(up_to);
    }

    /// After an unclean stop: continue above every version that may have been handed out.
    pub fn skip_reserved(&mut self) {
        self.version = self.version.max(self.reserved);
        self.reserved = self.version;
    }

    fn collection(&self, kind: Kind) -> &Collection {
        &self.collections[kind.index()]
    }

    fn collection_mut(&mut self, kind: Kind) -> &mut Collection {
        &mut self.collections[kind.index()]
    }

    /// The dependency graph of `kind`, when its records have predecessors.
    pub fn graph(&self, kind: Kind) -> Option<&Graph> {
        self.collection(kind).graph.as_ref()
    }

    /// The record `id` of `kind`, deleted or not.
    pub fn get(&self, kind: Kind, id: &str) -> Result<Item, SpaceError> {
        Ok(Item {
            record: Arc::clone(self.collection(kind).get(id)?),
            version: self.version,
        })
    }

    /// The occurrences of task `id` of `kind` (deleted or not) that `query` asks for, read at
    /// `now`, whether more follow, and the space version (CONTRACT §18). A kind without
    /// time fields has no record to list.
    pub fn occurrences(
        &self,
        kind: Kind,
        id: &str,
        query: &OccurrenceQuery,
        now: i64,
    ) -> Result<(Vec<Listed>, bool, u64), SpaceError> {
        let collection = self.collection(kind);
        let record = collection.get(id)?;
        let Some(times) = &collection.times else {
            return Err(SpaceError::NotFound {
                kind,
                id: id.to_string(),
            });
        };
        let (listed, more) = times.occurrences(record, query, now)?;
        Ok((listed, more, self.version))
    }

    /// The tasks as calendar clients name them (CONTRACT §20), in O(1).
    pub fn calendar_tasks(&self) -> CalendarTasks {
        let tasks = self.collection(Kind::Task);
        CalendarTasks::new(tasks.records.clone(), tasks.objects.clone())
    }

    /// When the next reminder of the space is due to fire (CONTRACT §18); it may be past.
    pub fn next_reminder(&self) -> Option<i64> {
        self.collection(Kind::Task)
            .reminders
            .get_min()
            .map(|(at, _)| *at)
    }

    /// The tasks with a reminder due at or before `now`, earliest first, at most `limit`:
    /// each is fired by a write of [`Op::Remind`].
    pub fn reminders_due(&self, now: i64, limit: usize) -> Vec<Id> {
        self.collection(Kind::Task)
            .reminders
            .iter()
            .take_while(|(at, _)| *at <= now)
            .take(limit)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// Whether applying `commands` may take long enough to hold up the other spaces of a
    /// shared thread (CONTRACT §21): a batch of more than [`LIGHT_COMMANDS`] commands,
    /// more than [`LIGHT_TEXT_BYTES`] of text, a change of the predecessors of a record
    /// that others name (a cycle search), or a change that may finish or unfinish a
    /// record with more than [`LIGHT_DEPENDENTS`] dependents (their `isBlocked` flips).
    /// A guess from what the commands name, at a cost of a few lookups; it errs on the
    /// heavy side.
    pub fn is_heavy(&self, commands: &[Command]) -> bool {
        if commands.len() > LIGHT_COMMANDS {
            return true;
        }
        let mut text = 0;
        for command in commands {
            let Some(graph) = self.graph(command.kind) else {
                continue;
            };
            let fields = graph.fields();
            let dependents = || {
                graph
                    .dependents(&command.id)
                    .nth(LIGHT_DEPENDENTS)
                    .is_some()
            };
            let named = || graph.dependents(&command.id).next().is_some();
            match &command.op {
                Op::SetDeleted(_) if dependents() => return true,
                Op::Update(changes) => {
                    for (at, value) in &changes.fields {
                        text += value.text_bytes();
                        if (*at == fields.predecessors && named())
                            || (fields.is_status(*at) && dependents())
                        {
                            return true;
                        }
                    }
                }
                Op::Create(changes) => {
                    text += changes
                        .fields
                        .iter()
                        .map(|(_, v)| v.text_bytes())
                        .sum::<usize>();
                }
                Op::SetDeleted(_) | Op::Remind => {}
            }
        }
        text > LIGHT_TEXT_BYTES
    }

    /// Applies `commands` in order at time `now`, each seeing the ones before it, as one
    /// write (a batch; usually one command): on success the space is at the outcome's
    /// version and the undo takes it back; when a command fails nothing changed, and the
    /// error says which.
    pub fn apply(
        &mut self,
        commands: &[Command],
        now: i64,
    ) -> Result<(Outcome, Undo), (usize, SpaceError)> {
        let base = self.version;
        let mut undo = Undo {
            base,
            before: Vec::new(),
        };
        let mut steps = Vec::with_capacity(commands.len());
        // One budget for the dependency checks of the whole request (CONTRACT §21).
        let mut budget = Budget::request();
        for (index, command) in commands.iter().enumerate() {
            match self.plan(command, now, &mut budget) {
                Ok(step) => {
                    self.commit(&step, &mut undo.before);
                    steps.push(step);
                }
                Err(e) => {
                    self.undo(undo);
                    return Err((index, e));
                }
            }
        }
        let outcome = Outcome {
            base,
            version: self.version,
            steps,
        };
        Ok((outcome, undo))
    }

    /// Re-applies a journaled outcome. It must follow the space's version, or jump to a
    /// reserved one (the first write after an unclean stop in `write` or `snapshot`
    /// durability); outcomes the space already holds are skipped.
    pub fn replay(&mut self, outcome: &Outcome) -> Result<(), String> {
        if outcome.version <= self.version {
            return Ok(());
        }
        let follows = outcome.base == self.version
            || (outcome.base > self.version && outcome.base <= self.reserved);
        if !follows || outcome.version != outcome.base + outcome.steps.len() as u64 {
            return Err(format!(
                "an entry of space '{}' makes versions {}..={} but the space is at version {}",
                self.id,
                outcome.base + 1,
                outcome.version,
                self.version
            ));
        }
        for touched in outcome.touched() {
            check_record(touched.kind, &touched.record, outcome.version)?;
        }
        self.version = outcome.base;
        let mut before = Vec::new();
        for step in &outcome.steps {
            self.commit(step, &mut before);
        }
        Ok(())
    }

    /// Takes back the newest write that has not been taken back yet.
    pub fn undo(&mut self, undo: Undo) {
        for (kind, id, before) in undo.before.into_iter().rev() {
            self.put(kind, &id, before);
        }
        self.version = undo.base;
    }

    /// The whole state at the current version, in O(1): see [`SpaceView`]. Its
    /// reservation is the version; the actor raises it to what it has reserved.
    pub fn view(&self) -> SpaceView {
        SpaceView {
            id: self.id.clone(),
            version: self.version,
            reserved: self.version,
            collections: self.collections.each_ref().map(|c| c.records.clone()),
        }
    }

    /// Every record changed after version `since`, in feed order: at least `limit` of
    /// them, and more to finish the last version; O(limit + log n).
    pub fn changes(&self, since: u64, limit: usize) -> Result<FeedPage, SpaceError> {
        if since > self.version {
            return Err(SpaceError::SinceAhead {
                since,
                version: self.version,
            });
        }
        let from: FeedKey = (since + 1, Kind::Task, Id::from(""));
        let mut keys = self.feed.range(from..).peekable();
        let mut changes: Vec<Touched> = Vec::with_capacity(limit.min(1024));
        while let Some(((version, kind, _), record)) = keys.peek() {
            let same_version = changes.last().is_some_and(|c| c.record.version == *version);
            if changes.len() >= limit && !same_version {
                break;
            }
            changes.push(Touched {
                kind: *kind,
                record: Arc::clone(record),
            });
            keys.next();
        }
        Ok(FeedPage {
            next_since: changes.last().map_or(since, |c| c.record.version),
            has_more: keys.peek().is_some(),
            changes,
            version: self.version,
        })
    }

    /// Decides what `command` does at the next version, without changing anything; its
    /// dependency check takes what it follows from `budget`.
    fn plan(&self, command: &Command, now: i64, budget: &mut Budget) -> Result<Step, SpaceError> {
        let Command {
            kind,
            id,
            op,
            if_match,
        } = command;
        let (kind, version) = (*kind, self.version + 1);
        let collection = self.collection(kind);
        let existing = |id: &str| -> Result<&Arc<Record>, SpaceError> {
            let current = collection.get(id)?;
            let matches = match if_match {
                None | Some(IfMatch::Any) => true,
                Some(IfMatch::Versions(versions)) => versions.contains(&current.version),
            };
            if !matches {
                return Err(SpaceError::PreconditionFailed {
                    kind,
                    id: id.to_string(),
                });
            }
            Ok(current)
        };
        let mut record = match op {
            Op::Create(changes) => {
                if collection.records.contains_key(&**id) {
                    return Err(SpaceError::AlreadyExists {
                        kind,
                        id: id.to_string(),
                    });
                }
                self.check_dependencies(kind, id, None, &changes.fields, budget)?;
                self.check_references(kind, &changes.fields)?;
                let sort_order = changes
                    .sort_order
                    .unwrap_or_else(|| collection.next_sort_order());
                Record::new(kind, Id::from(&**id), sort_order, now, version)
            }
            Op::Update(changes) => {
                let current = existing(id)?;
                if current.is_deleted() {
                    return Err(SpaceError::RecordDeleted {
                        kind,
                        id: id.to_string(),
                    });
                }
                self.check_dependencies(kind, id, Some(current), &changes.fields, budget)?;
                self.check_references(kind, &changes.fields)?;
                Record::clone(current)
            }
            Op::SetDeleted(deleted) => {
                let mut record = Record::clone(existing(id)?);
                record.deleted_at = if *deleted {
                    record.deleted_at.or(Some(now))
                } else {
                    None
                };
                record
            }
            Op::Remind => {
                let mut record = Record::clone(existing(id)?);
                let nothing = || SpaceError::NothingDue {
                    kind,
                    id: id.to_string(),
                };
                let times = collection.times.as_ref().ok_or_else(nothing)?;
                times.fire(kind, &mut record, now)?;
                record
            }
        };
        if let Op::Create(changes) | Op::Update(changes) = op {
            #[cfg(feature = "failpoints")]
            injected_panic(&self.id);
            if let Some(sort_order) = changes.sort_order {
                record.sort_order = sort_order;
            }
            for (field, value) in &changes.fields {
                record.fields[*field] = value.clone();
            }
            let before = collection.records.get(&**id).map(|r| &**r);
            if let Some(times) = &collection.times {
                times.settle(kind, before, &mut record, changes, now)?;
            }
            if let Some(calendar) = &collection.calendar {
                calendar.settle(before, &mut record, changes, now);
            }
        }
        record.touch(version, now);
        let flipped = match &collection.graph {
            Some(graph) => {
                let before = collection.records.get(&**id).map(|r| &**r);
                graph.settle(&collection.records, before, &mut record, version, now)
            }
            None => Vec::new(),
        };
        let mut touched = Vec::with_capacity(1 + flipped.len());
        touched.push(Touched {
            kind,
            record: Arc::new(record),
        });
        if let Op::Create(changes) | Op::Update(changes) = op {
            self.clear_exclusive_flags(kind, id, &changes.fields, version, now, &mut touched);
        }
        touched.extend(flipped.into_iter().map(|record| Touched {
            kind,
            record: Arc::new(record),
        }));
        Ok(Step {
            created: matches!(op, Op::Create(_)),
            touched,
        })
    }

    /// Puts every record of `step` in place and moves to the next version, noting the
    /// former states in `before`.
    fn commit(&mut self, step: &Step, before: &mut Vec<Former>) {
        for Touched { kind, record } in &step.touched {
            let old = self.put(*kind, &record.id, Some(Arc::clone(record)));
            before.push((*kind, record.id.clone(), old));
        }
        self.version += 1;
    }

    /// Puts `record` in place of record `id` of `kind` (or removes it), keeping the feed in
    /// step; returns the record it replaced.
    fn put(&mut self, kind: Kind, id: &str, record: Option<Arc<Record>>) -> Option<Arc<Record>> {
        if let Some(new) = &record {
            self.feed
                .insert((new.version, kind, new.id.clone()), Arc::clone(new));
        }
        let old = self.collection_mut(kind).put(id, record);
        if let Some(old) = &old {
            let key = (old.version, kind, old.id.clone());
            if self
                .collection(kind)
                .records
                .get(id)
                .is_none_or(|r| r.version != old.version)
            {
                self.feed.remove(&key);
            }
        }
        old
    }

    /// One page of the records of `kind` that match `query`, in its order (`sortOrder`,
    /// then id, unless a task listing's `orderBy` says otherwise). A task listing's filter
    /// is parsed here, against the `now` its walk began with; the indexes that find the
    /// page are chosen by `find` (see [`Plan`]).
    pub fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page, SpaceError> {
        let binding = self.query_binding(kind, query);
        let now = query.find.as_ref().map_or(0, |f| f.now);
        let (walk_version, now, after) = match &query.cursor {
            Some(token) => {
                let cursor = Cursor::decode(token, &binding)
                    .filter(|c| c.version <= self.version)
                    .ok_or(SpaceError::InvalidCursor)?;
                (cursor.version, cursor.now, Some(cursor.position))
            }
            None => (self.version, now, None),
        };
        let default_order = OrderBy::default();
        let order = query.find.as_ref().map_or(&default_order, |f| &f.order);
        if after.as_ref().is_some_and(|p| !order.fits(p)) {
            return Err(SpaceError::InvalidCursor);
        }
        let filter = match &query.find {
            Some(find) => Filter::parse(
                &find.filter,
                FilterContext {
                    space_id: &self.id,
                    tz: find.tz,
                    now_ms: now,
                },
            )
            .map_err(SpaceError::InvalidFilter)?,
            None => Filter::default(),
        };
        let scope = Scope {
            walk_version,
            query,
            filter: &filter,
            search: query
                .find
                .as_ref()
                .map(|f| &f.search)
                .filter(|s| !s.is_empty()),
        };
        let collection = self.collection(kind);
        let mut records: Vec<Arc<Record>> =
            find::select(collection, &scope, order, after.as_ref(), query.limit + 1)
                .into_iter()
                .cloned()
                .collect();
        let next_cursor = if records.len() > query.limit {
            records.truncate(query.limit);
            records.last().map(|last| {
                Cursor {
                    version: walk_version,
                    now,
                    position: order.position(last),
                }
                .encode(&binding)
            })
        } else {
            None
        };
        Ok(Page {
            records,
            version: self.version,
            next_cursor,
        })
    }

    /// Rebuilds a space from a snapshot file's contents, checking that it is consistent.
    /// A large collection builds its map and its indexes on two threads.
    pub fn from_snapshot(snapshot: SpaceSnapshot) -> Result<Space, String> {
        let mut space = Space::new(&snapshot.id);
        space.version = snapshot.version;
        space.reserved = snapshot.reserved.max(snapshot.version);
        for (kind, records) in snapshot.collections {
            let collection = space.collection_mut(kind);
            let fill_map = |map: &mut Records| {
                let mut sorted = Vec::with_capacity(records.len());
                for record in &records {
                    check_record(kind, record, snapshot.version)?;
                    sorted.push((record.id.clone(), Arc::clone(record)));
                }
                // Snapshots list records by id, so this sort only checks that they are.
                sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                if let Some(twice) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
                    return Err(format!("{} '{}' appears twice", kind.noun(), twice[0].0));
                }
                *map = packed_map(sorted);
                Ok(())
            };
            let Collection {
                records: map,
                indexes,
                ..
            } = collection;
            if records.len() < PARALLEL_LOAD {
                fill_map(map)?;
                *indexes = Indexes::build(kind, &records);
            } else {
                std::thread::scope(|scope| {
                    scope.spawn(|| *indexes = Indexes::build(kind, &records));
                    fill_map(map)
                })?;
            }
            if let Some(graph) = &mut collection.graph {
                graph.rebuild(&collection.records);
            }
            let reminders = records
                .iter()
                .filter_map(|r| collection.reminder_key(r))
                .collect();
            collection.reminders = reminders;
            if let Some(fields) = &collection.calendar {
                collection.objects = Objects::build(fields, &records);
            }
        }
        let mut feed: Vec<(FeedKey, Arc<Record>)> = space
            .collections
            .iter()
            .flat_map(|c| {
                c.records
                    .values()
                    .map(move |r| ((r.version, c.kind, r.id.clone()), Arc::clone(r)))
            })
            .collect();
        feed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        space.feed = packed_map(feed);
        Ok(space)
    }

    /// Checks that every reference the changes set names an active record.
    fn check_references(&self, kind: Kind, changes: &[(usize, Value)]) -> Result<(), SpaceError> {
        for (field, value) in changes {
            let spec = kind.fields()[*field];
            let (target, ids): (Kind, &[Box<str>]) = match (spec.ty, value) {
                (FieldType::Ref(target), Value::Text(id)) => (target, std::slice::from_ref(id)),
                (FieldType::Refs(target), Value::Ids(ids)) => (target, ids),
                (FieldType::Predecessors, Value::Ids(ids)) => (kind, ids),
                _ => continue,
            };
            let targets = self.collection(target);
            if let Some(missing) = ids.iter().find(|id| !targets.is_active(id)) {
                return Err(SpaceError::InvalidReference {
                    field: spec.name,
                    id: missing.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Checks that the predecessors the changes set to record `id` (now `current`) close no
    /// cycle, within what is left of the request's `budget` (`model::deps`); checked before
    /// the references, so that a record naming itself is a cycle even on create, where it
    /// does not exist yet.
    fn check_dependencies(
        &self,
        kind: Kind,
        id: &str,
        current: Option<&Record>,
        changes: &[(usize, Value)],
        budget: &mut Budget,
    ) -> Result<(), SpaceError> {
        let collection = self.collection(kind);
        match &collection.graph {
            Some(graph) => graph.check(&collection.records, current, id, changes, budget),
            None => Ok(()),
        }
    }

    /// When the write sets an exclusive flag on record `id`, every other record of the kind
    /// that has it loses it in the same write and is touched.
    fn clear_exclusive_flags(
        &self,
        kind: Kind,
        id: &str,
        changes: &[(usize, Value)],
        version: u64,
        now: i64,
        touched: &mut Vec<Touched>,
    ) {
        let collection = self.collection(kind);
        for (field, value) in changes {
            if kind.fields()[*field].ty != FieldType::ExclusiveFlag || *value != Value::Bool(true) {
                continue;
            }
            let holders = collection
                .indexes
                .flagged
                .iter()
                .filter(|(f, _)| f == field)
                .flat_map(|(_, ids)| ids.iter().filter(|other| ***other != *id));
            for other in holders {
                let mut record = Record::clone(&collection.records[other]);
                record.fields[*field] = Value::Bool(false);
                record.touch(version, now);
                touched.push(Touched {
                    kind,
                    record: Arc::new(record),
                });
            }
        }
    }

    /// Bytes that tie a cursor to this space, kind, exact filters, `includeDeleted` and a
    /// task listing's filter, order, time zone and search words.
    fn query_binding(&self, kind: Kind, query: &ListQuery) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(64);
        for part in [self.id.as_bytes(), kind.collection().as_bytes()] {
            bytes.extend_from_slice(&(part.len() as u32).to_le_bytes());
            bytes.extend_from_slice(part);
        }
        bytes.push(query.include_deleted as u8);
        let mut part = |text: &[u8]| {
            bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
            bytes.extend_from_slice(text);
        };
        for (field, value) in &query.filters {
            part(&(*field as u32).to_le_bytes());
            part(value.as_bytes());
        }
        if let Some(find) = &query.find {
            part(b"find");
            part(find.filter.as_bytes());
            part(find.order.to_string().as_bytes());
            part(find.tz.name().as_bytes());
            for word in find.search.words() {
                part(word.as_bytes());
            }
        }
        bytes
    }
}

/// Checks a stored record against its kind's table and the version it must not exceed.
fn check_record(kind: Kind, record: &Record, max_version: u64) -> Result<(), String> {
    if record.fields.len() != kind.fields().len() {
        return Err(format!(
            "{} '{}' has {} fields, expected {}",
            kind.noun(),
            record.id,
            record.fields.len(),
            kind.fields().len()
        ));
    }
    if record.version > max_version {
        return Err(format!(
            "{} '{}' has version {} above the space version {}",
            kind.noun(),
            record.id,
            record.version,
            max_version
        ));
    }
    Ok(())
}

/// Tests only (feature `failpoints`): failpoint `space::write` panics in the middle of a
/// write that creates or changes a record, so the end-to-end tests can check that a
/// panicking space is reloaded and others never notice. Its action `panic` (or `return`)
/// panics the writes of every space, `return(ID)` only those of space ID.
#[cfg(feature = "failpoints")]
fn injected_panic(space: &str) {
    if let Some(only) = fail::eval("space::write", |only| only) {
        if only.as_deref().is_none_or(|id| id == space) {
            panic!("injected test panic");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::validate::{parse_changes, Mode};
    use serde_json::json;

    /// Writes of one command each, as these tests make them.
    trait Writes {
        fn create(&mut self, kind: Kind, changes: Changes, now: i64) -> Result<Item, SpaceError>;
        fn update(
            &mut self,
            kind: Kind,
            id: &str,
            changes: Changes,
            now: i64,
        ) -> Result<Item, SpaceError>;
        fn set_deleted(
            &mut self,
            kind: Kind,
            id: &str,
            deleted: bool,
            now: i64,
        ) -> Result<Item, SpaceError>;
        fn snapshot(&self) -> SpaceSnapshot;
    }

    impl Writes for Space {
        fn create(&mut self, kind: Kind, changes: Changes, now: i64) -> Result<Item, SpaceError> {
            let id = changes
                .id
                .clone()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string().into());
            run(self, kind, &id, Op::Create(changes), now)
        }

        fn update(
            &mut self,
            kind: Kind,
            id: &str,
            changes: Changes,
            now: i64,
        ) -> Result<Item, SpaceError> {
            run(self, kind, id, Op::Update(changes), now)
        }

        fn set_deleted(
            &mut self,
            kind: Kind,
            id: &str,
            deleted: bool,
            now: i64,
        ) -> Result<Item, SpaceError> {
            run(self, kind, id, Op::SetDeleted(deleted), now)
        }

        fn snapshot(&self) -> SpaceSnapshot {
            let view = self.view();
            SpaceSnapshot {
                id: view.id,
                version: view.version,
                reserved: view.reserved,
                collections: Kind::ALL
                    .into_iter()
                    .zip(view.collections)
                    .map(|(kind, records)| (kind, records.values().cloned().collect()))
                    .collect(),
            }
        }
    }

    fn run(space: &mut Space, kind: Kind, id: &str, op: Op, now: i64) -> Result<Item, SpaceError> {
        let command = Command {
            kind,
            id: id.into(),
            op,
            if_match: None,
        };
        space
            .apply(&[command], now)
            .map(|(outcome, _)| outcome.item())
            .map_err(|(_, e)| e)
    }

    fn changes(kind: Kind, mode: Mode, body: serde_json::Value) -> Changes {
        parse_changes(kind, mode, body.as_object().unwrap().clone()).unwrap()
    }

    fn create(space: &mut Space, kind: Kind, body: serde_json::Value) -> Item {
        space
            .create(kind, changes(kind, Mode::Create, body), 1_000)
            .unwrap()
    }

    /// Calendar clients' names for tasks (CONTRACT §20) are found by `UID` and by object
    /// name, percent-decoded, whether the client chose them or they are the `todoId`'s; the
    /// index follows renames, moves and deletes, and a loaded snapshot finds the same.
    #[test]
    fn tasks_are_found_by_the_uids_and_object_names_clients_gave_them() {
        use super::super::calendar::Calendar;
        let fields = CalendarFields::of(Kind::Task).unwrap();
        let kept = |uid: &str, object: &str| {
            let mut changes = Changes::default();
            let calendar = Calendar {
                uid: Some(uid.into()),
                object: Some(object.into()),
                ..Calendar::default()
            };
            changes
                .fields
                .push((fields.calendar(), Value::Calendar(Box::new(calendar))));
            changes
        };
        let mut space = Space::new("s");
        create(&mut space, Kind::Task, json!({"todoId": "plain"}));
        let mut a = kept("a@host", "a%40host.ics");
        a.id = Some("a".into());
        space.create(Kind::Task, a, 1_000).unwrap();
        let mut b = kept("b", "b.ics");
        b.id = Some("b".into());
        space.create(Kind::Task, b, 1_000).unwrap();
        let everyone = |_: &Record| true;
        let found = |space: &Space, uid: &str, name: &str| {
            let tasks = space.calendar_tasks();
            (
                tasks.with_uid(uid).map(|t| t.id.to_string()),
                tasks.named(name, everyone).map(|t| t.id.to_string()),
            )
        };
        let some = |id: &str| Some(id.to_owned());
        assert_eq!(
            found(&space, "plain", "plain.ics"),
            (some("plain"), some("plain"))
        );
        assert_eq!(
            found(&space, "a@host", "a@host.ics"),
            (some("a"), some("a"))
        );
        assert_eq!(
            found(&space, "a", "a.ics"),
            (None, None),
            "a has the client's names"
        );
        assert_eq!(found(&space, "b", "b.ics"), (some("b"), some("b")));
        // A rename and a new UID leave the old ones free.
        space
            .update(Kind::Task, "a", kept("new@host", "renamed.ics"), 2_000)
            .unwrap();
        assert_eq!(found(&space, "a@host", "a@host.ics"), (None, None));
        assert_eq!(
            found(&space, "new@host", "renamed.ics"),
            (some("a"), some("a"))
        );
        // Deleted tasks keep their UID (a PUT restores them); callers choose members.
        space.set_deleted(Kind::Task, "a", true, 3_000).unwrap();
        let tasks = space.calendar_tasks();
        assert!(tasks.named("renamed.ics", |t| !t.is_deleted()).is_none());
        assert_eq!(&*tasks.with_uid("new@host").unwrap().id, "a");
        let loaded = Space::from_snapshot(space.snapshot()).unwrap();
        assert_eq!(
            found(&loaded, "new@host", "renamed.ics"),
            (some("a"), some("a"))
        );
        assert_eq!(
            found(&loaded, "plain", "plain.ics"),
            (some("plain"), some("plain"))
        );
        // The only entries are the client-chosen names that are not the todoId's.
        let objects = &loaded.collection(Kind::Task).objects;
        assert_eq!(objects.len(), (1, 1));
    }

    /// The space knows which tasks have a reminder due and when the next one is; a firing
    /// sets `remindedAt`, takes the task off until a change re-arms it, and is refused
    /// when nothing is due. Deleted and finished tasks are not listed; a loaded snapshot
    /// lists the same.
    #[test]
    fn reminders_are_listed_by_when_they_are_due_and_fire_once() {
        const MIN: i64 = 60_000;
        let mut space = Space::new("s");
        // dateDue 2030-01-01T10:00Z, reminders at 09:30 (relative) and 09:50 (absolute).
        let due = 1_893_492_000_000;
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "a", "dateDue": "2030-01-01T10:00:00Z",
                   "reminders": [{"minutesBefore": 30}, {"at": "2030-01-01T09:50:00Z"}]}),
        );
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "b", "reminders": [{"at": "2030-01-01T09:00:00Z"}]}),
        );
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "c", "status": "done",
                   "reminders": [{"at": "2030-01-01T08:00:00Z"}]}),
        );
        create(&mut space, Kind::Task, json!({"todoId": "none"}));
        assert_eq!(space.next_reminder(), Some(due - 60 * MIN));
        assert!(space.reminders_due(due - 61 * MIN, 10).is_empty());
        let ids = |v: Vec<Id>| v.iter().map(|id| id.to_string()).collect::<Vec<_>>();
        assert_eq!(ids(space.reminders_due(due, 10)), ["b", "a"]);
        assert_eq!(ids(space.reminders_due(due, 1)), ["b"]);
        let remind =
            |space: &mut Space, id: &str, now: i64| run(space, Kind::Task, id, Op::Remind, now);
        let fired = remind(&mut space, "a", due - 30 * MIN).unwrap();
        let field =
            |r: &Record, name: &str| r.fields[Kind::Task.field_index(name).unwrap()].clone();
        assert_eq!(
            field(&fired.record, "remindedAt"),
            Value::Time(due - 30 * MIN)
        );
        assert_eq!(fired.record.updated_at, due - 30 * MIN);
        // Its 09:50 reminder is left; firing again before it is refused.
        assert!(matches!(
            remind(&mut space, "a", due - 20 * MIN),
            Err(SpaceError::NothingDue { .. })
        ));
        assert!(
            remind(&mut space, "c", due).is_err(),
            "finished tasks do not fire"
        );
        assert!(remind(&mut space, "none", due).is_err());
        assert_eq!(ids(space.reminders_due(due, 10)), ["b", "a"]);
        remind(&mut space, "a", due - 10 * MIN).unwrap();
        assert_eq!(ids(space.reminders_due(i64::MAX, 10)), ["b"]);
        // A moved dateDue re-arms the relative reminder.
        space
            .update(
                Kind::Task,
                "a",
                changes(
                    Kind::Task,
                    Mode::Update,
                    json!({"dateDue": "2030-01-02T10:00:00Z"}),
                ),
                due,
            )
            .unwrap();
        assert_eq!(space.reminders_due(i64::MAX, 10).len(), 2);
        space.set_deleted(Kind::Task, "b", true, due).unwrap();
        let rebuilt = Space::from_snapshot(space.snapshot()).unwrap();
        for s in [&space, &rebuilt] {
            assert_eq!(ids(s.reminders_due(i64::MAX, 10)), ["a"]);
            assert_eq!(s.next_reminder(), Some(due + 1_440 * MIN - 30 * MIN));
        }
    }

    /// A completion's roll is decided by the write at its time and kept in the outcome:
    /// replaying the outcome later gives the same record, and an undo takes it back.
    #[test]
    fn a_completion_is_decided_once_and_replays_to_the_same_dates() {
        let mut space = Space::new("s");
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "t", "dateDue": "2030-01-01T09:00:00Z", "timeZone": "Europe/Paris",
                   "recurrence": "FREQ=DAILY;INTERVAL=3;COUNT=4", "recurFrom": "completion"}),
        );
        let before = space.clone();
        let done = Command {
            kind: Kind::Task,
            id: "t".into(),
            op: Op::Update(changes(Kind::Task, Mode::Update, json!({"status": "done"}))),
            if_match: None,
        };
        // 2026-11-27T12:00:00Z: the series starts again that day at 10:00 in Paris (09:00Z).
        let now = 1_795_780_800_000;
        let (outcome, undo) = space.apply(std::slice::from_ref(&done), now).unwrap();
        let rolled = outcome.item().record;
        let field = |name: &str| rolled.fields[Kind::Task.field_index(name).unwrap()].clone();
        assert_eq!(
            field("dateDue"),
            Value::Time(now - 3 * 3_600_000 + 3 * 86_400_000)
        );
        assert_eq!(
            field("recurrence"),
            Value::Text("FREQ=DAILY;INTERVAL=3;COUNT=3".into())
        );
        assert_eq!(field("status"), Value::Null);
        assert_eq!(field("completedCount"), Value::Integer(1));
        assert_eq!(field("lastCompletedAt"), Value::Time(now));
        let mut replayed = before.clone();
        replayed.replay(&outcome).unwrap();
        assert_eq!(replayed.get(Kind::Task, "t").unwrap().record, rolled);
        space.undo(undo);
        assert_eq!(
            space.get(Kind::Task, "t").unwrap().record,
            before.get(Kind::Task, "t").unwrap().record
        );
    }

    #[test]
    fn a_write_is_heavy_when_it_may_search_flip_or_carry_much() {
        let mut space = Space::new("s");
        create(&mut space, Kind::Task, json!({"todoId": "hub"}));
        create(&mut space, Kind::Task, json!({"todoId": "lone"}));
        for i in 0..=LIGHT_DEPENDENTS {
            let body = json!({"todoId": format!("d{i}"), "predecessorIds": ["hub"]});
            create(&mut space, Kind::Task, body);
        }
        let update = |id: &str, body: serde_json::Value| Command {
            kind: Kind::Task,
            id: id.into(),
            op: Op::Update(changes(Kind::Task, Mode::Update, body)),
            if_match: None,
        };
        let delete = |id: &str| Command {
            kind: Kind::Task,
            id: id.into(),
            op: Op::SetDeleted(true),
            if_match: None,
        };
        let light = |commands: &[Command]| !space.is_heavy(commands);
        assert!(light(&[update("lone", json!({"status": "done"}))]));
        assert!(light(&[update("d0", json!({"status": "done"}))]));
        assert!(light(&[delete("d0")]));
        assert!(light(&[update("lone", json!({"predecessorIds": ["hub"]}))]));
        assert!(light(&[update("hub", json!({"name": "renamed"}))]));
        // Flips of more than LIGHT_DEPENDENTS tasks.
        assert!(!light(&[update("hub", json!({"status": "done"}))]));
        assert!(!light(&[delete("hub")]));
        // A cycle search: something names the task.
        assert!(!light(&[update(
            "hub",
            json!({"predecessorIds": ["lone"]})
        )]));
        // Many commands, much text.
        let many: Vec<Command> = (0..=LIGHT_COMMANDS)
            .map(|_| update("lone", json!({"name": "x"})))
            .collect();
        assert!(!light(&many));
        let notes = "n".repeat(LIGHT_TEXT_BYTES / 2 + 1);
        let twice = [
            update("lone", json!({"notesMarkdown": notes})),
            update("d0", json!({"notesMarkdown": notes})),
        ];
        assert!(light(&twice[..1]));
        assert!(!light(&twice));
    }

    fn field<'a>(record: &'a Record, kind: Kind, name: &str) -> &'a Value {
        &record.fields[kind.field_index(name).unwrap()]
    }

    fn query(limit: usize) -> ListQuery {
        ListQuery {
            limit,
            include_deleted: false,
            filters: Vec::new(),
            cursor: None,
            find: None,
            plan: Plan::Indexes,
        }
    }

    /// Walks every page, returning the ids in order.
    fn walk(space: &Space, kind: Kind, mut q: ListQuery) -> Vec<String> {
        let mut ids = Vec::new();
        loop {
            let page = space.list(kind, &q).unwrap();
            ids.extend(page.records.iter().map(|r| r.id.to_string()));
            match page.next_cursor {
                Some(c) => q.cursor = Some(c),
                None => return ids,
            }
        }
    }

    #[test]
    fn every_successful_write_adds_exactly_one_to_the_version() {
        let mut space = Space::new("s");
        assert_eq!(space.version(), 0);
        let item = create(&mut space, Kind::List, json!({"listId": "a"}));
        assert_eq!((item.version, item.record.version), (1, 1));
        space
            .update(Kind::List, "a", Changes::default(), 2_000)
            .unwrap();
        space.set_deleted(Kind::List, "a", true, 3_000).unwrap();
        space.set_deleted(Kind::List, "a", true, 4_000).unwrap();
        let item = space.set_deleted(Kind::List, "a", false, 5_000).unwrap();
        let item2 = space.set_deleted(Kind::List, "a", false, 6_000).unwrap();
        assert_eq!(item.version, 5);
        assert_eq!(item2.version, 6);
        assert_eq!(item2.record.updated_at, 6_000);
        assert_eq!(space.get(Kind::List, "a").unwrap().version, 6);
    }

    #[test]
    fn failed_writes_change_nothing() {
        let mut space = Space::new("s");
        create(&mut space, Kind::Task, json!({"todoId": "t", "name": "n"}));
        let before = space.snapshot();
        let dup = space.create(
            Kind::Task,
            changes(Kind::Task, Mode::Create, json!({"todoId": "t"})),
            9,
        );
        assert!(matches!(dup, Err(SpaceError::AlreadyExists { .. })));
        let bad_ref = space.update(
            Kind::Task,
            "t",
            changes(
                Kind::Task,
                Mode::Update,
                json!({"name": "x", "listId": "nope"}),
            ),
            9,
        );
        assert_eq!(
            bad_ref.unwrap_err(),
            SpaceError::InvalidReference {
                field: "listId",
                id: "nope".into()
            }
        );
        assert!(matches!(
            space.set_deleted(Kind::Task, "missing", true, 9),
            Err(SpaceError::NotFound { .. })
        ));
        assert_eq!(space.version(), before.version);
        assert_eq!(space.snapshot().collections, before.collections);
    }

    #[test]
    fn a_deleted_record_cannot_be_patched_and_keeps_its_first_deletion_time() {
        let mut space = Space::new("s");
        create(&mut space, Kind::Context, json!({"contextId": "c"}));
        space.set_deleted(Kind::Context, "c", true, 2_000).unwrap();
        let again = space.set_deleted(Kind::Context, "c", true, 3_000).unwrap();
        assert_eq!(again.record.deleted_at, Some(2_000));
        let patch = space.update(Kind::Context, "c", Changes::default(), 4_000);
        assert!(matches!(patch, Err(SpaceError::RecordDeleted { .. })));
        let restored = space.set_deleted(Kind::Context, "c", false, 5_000).unwrap();
        assert_eq!(restored.record.deleted_at, None);
    }

    #[test]
    fn sort_order_defaults_to_one_more_than_the_largest_including_deleted() {
        let mut space = Space::new("s");
        let first = create(&mut space, Kind::Category, json!({}));
        assert_eq!(first.record.sort_order, 1.0);
        create(
            &mut space,
            Kind::Category,
            json!({"categoryId": "big", "sortOrder": 7.5}),
        );
        space.set_deleted(Kind::Category, "big", true, 2).unwrap();
        let next = create(&mut space, Kind::Category, json!({}));
        assert_eq!(next.record.sort_order, 8.5);
        let other_kind = create(&mut space, Kind::Schedule, json!({}));
        assert_eq!(other_kind.record.sort_order, 1.0);
    }

    #[test]
    fn references_must_name_active_records_and_survive_later_deletion() {
        let mut space = Space::new("s");
        create(&mut space, Kind::List, json!({"listId": "l"}));
        create(&mut space, Kind::Category, json!({"categoryId": "c"}));
        let task = create(
            &mut space,
            Kind::Task,
            json!({"todoId": "t", "listId": "l", "categoryIds": ["c", "c"]}),
        );
        assert_eq!(
            *field(&task.record, Kind::Task, "categoryIds"),
            Value::Ids(vec!["c".into()].into_boxed_slice())
        );
        space.set_deleted(Kind::List, "l", true, 2).unwrap();
        let kept = space.get(Kind::Task, "t").unwrap();
        assert_eq!(
            field(&kept.record, Kind::Task, "listId").as_text(),
            Some("l")
        );
        let err = space
            .create(
                Kind::Task,
                changes(Kind::Task, Mode::Create, json!({"listId": "l"})),
                3,
            )
            .unwrap_err();
        assert!(matches!(
            err,
            SpaceError::InvalidReference {
                field: "listId",
                ..
            }
        ));
        let err = space
            .create(
                Kind::Task,
                changes(Kind::Task, Mode::Create, json!({"scheduleIds": ["c"]})),
                3,
            )
            .unwrap_err();
        assert!(matches!(
            err,
            SpaceError::InvalidReference {
                field: "scheduleIds",
                ..
            }
        ));
    }

    #[test]
    fn setting_is_default_clears_it_on_every_other_list_and_touches_them() {
        let mut space = Space::new("s");
        create(
            &mut space,
            Kind::List,
            json!({"listId": "a", "isDefault": true}),
        );
        create(&mut space, Kind::List, json!({"listId": "b"}));
        let item = space
            .update(
                Kind::List,
                "b",
                changes(Kind::List, Mode::Update, json!({"isDefault": true})),
                5_000,
            )
            .unwrap();
        let a = space.get(Kind::List, "a").unwrap().record;
        assert_eq!(*field(&a, Kind::List, "isDefault"), Value::Bool(false));
        assert_eq!((a.version, a.updated_at), (item.version, 5_000));
        assert_eq!(
            *field(&item.record, Kind::List, "isDefault"),
            Value::Bool(true)
        );
        let created = create(
            &mut space,
            Kind::List,
            json!({"listId": "c", "isDefault": true}),
        );
        let b = space.get(Kind::List, "b").unwrap().record;
        assert_eq!(*field(&b, Kind::List, "isDefault"), Value::Bool(false));
        assert_eq!(b.version, created.version);
    }

    #[test]
    fn listing_orders_by_sort_order_then_id_and_pages_without_gaps() {
        let mut space = Space::new("s");
        for (id, sort) in [("b", 2.0), ("a", 2.0), ("c", -1.0), ("B", 2.0), ("d", 10.0)] {
            create(
                &mut space,
                Kind::Task,
                json!({"todoId": id, "sortOrder": sort}),
            );
        }
        assert_eq!(
            walk(&space, Kind::Task, query(2)),
            ["c", "B", "a", "b", "d"]
        );
        assert_eq!(walk(&space, Kind::Task, query(100)).len(), 5);
        let full = space.list(Kind::Task, &query(5)).unwrap();
        assert_eq!(full.records.len(), 5);
        assert_eq!(
            full.next_cursor, None,
            "an exactly full last page has no cursor"
        );
    }

    #[test]
    fn deleted_records_are_listed_only_when_asked() {
        let mut space = Space::new("s");
        create(&mut space, Kind::Task, json!({"todoId": "a"}));
        create(&mut space, Kind::Task, json!({"todoId": "b"}));
        space.set_deleted(Kind::Task, "a", true, 2).unwrap();
        assert_eq!(walk(&space, Kind::Task, query(10)), ["b"]);
        let all = ListQuery {
            include_deleted: true,
            ..query(1)
        };
        assert_eq!(walk(&space, Kind::Task, all), ["a", "b"]);
    }

    #[test]
    fn filters_combine_with_and_and_use_exact_matches() {
        let mut space = Space::new("s");
        create(&mut space, Kind::List, json!({"listId": "l"}));
        create(&mut space, Kind::Context, json!({"contextId": "x"}));
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "1", "listId": "l", "status": "open"}),
        );
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "2", "listId": "l", "status": "done"}),
        );
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "3", "listId": "l", "status": "open", "contextId": "x"}),
        );
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "4", "status": "open"}),
        );
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "5", "listId": "l", "status": "Open"}),
        );
        let index = |name| Kind::Task.field_index(name).unwrap();
        let filtered = |filters: Vec<(usize, String)>| {
            walk(
                &space,
                Kind::Task,
                ListQuery {
                    filters,
                    ..query(1)
                },
            )
        };
        assert_eq!(
            filtered(vec![
                (index("status"), "open".into()),
                (index("listId"), "l".into())
            ]),
            ["1", "3"]
        );
        assert_eq!(
            filtered(vec![
                (index("listId"), "l".into()),
                (index("contextId"), "x".into())
            ]),
            ["3"]
        );
        assert!(filtered(vec![(index("status"), "gone".into())]).is_empty());
    }

    #[test]
    fn a_filter_value_no_record_has_any_more_leaves_no_index_entry() {
        let mut space = Space::new("s");
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "t", "status": "open"}),
        );
        let done = changes(Kind::Task, Mode::Update, json!({"status": "done"}));
        space.update(Kind::Task, "t", done, 2).unwrap();
        let status = Kind::Task.field_index("status").unwrap();
        let index = &space.collection(Kind::Task).indexes.by_field;
        let values: Vec<&str> = index
            .iter()
            .filter(|(f, _)| *f == status)
            .flat_map(|(_, values)| values.keys().map(|v| &**v))
            .collect();
        assert_eq!(values, ["done"]);
    }

    #[test]
    fn a_walk_skips_records_written_after_it_began_and_nothing_else() {
        let mut space = Space::new("s");
        for i in 0..10 {
            create(&mut space, Kind::Task, json!({"todoId": format!("t{i}")}));
        }
        let first = space.list(Kind::Task, &query(3)).unwrap();
        let ids: Vec<&str> = first.records.iter().map(|r| &*r.id).collect();
        assert_eq!(ids, ["t0", "t1", "t2"]);
        // Move an unseen record to the front, edit another, delete one, add a new one.
        space
            .update(
                Kind::Task,
                "t5",
                changes(Kind::Task, Mode::Update, json!({"sortOrder": -5})),
                9,
            )
            .unwrap();
        space
            .update(
                Kind::Task,
                "t6",
                changes(Kind::Task, Mode::Update, json!({"name": "x"})),
                9,
            )
            .unwrap();
        space.set_deleted(Kind::Task, "t7", true, 9).unwrap();
        create(&mut space, Kind::Task, json!({"todoId": "t99"}));
        let rest = walk(
            &space,
            Kind::Task,
            ListQuery {
                cursor: first.next_cursor,
                find: None,
                plan: Plan::Indexes,
                ..query(2)
            },
        );
        assert_eq!(rest, ["t3", "t4", "t8", "t9"]);
    }

    #[test]
    fn a_cursor_only_fits_its_own_query() {
        let mut space = Space::new("s");
        for i in 0..3 {
            create(&mut space, Kind::Task, json!({"todoId": format!("t{i}")}));
            create(&mut space, Kind::List, json!({"listId": format!("l{i}")}));
        }
        let cursor = space.list(Kind::Task, &query(1)).unwrap().next_cursor;
        assert!(cursor.is_some());
        let reuse = |kind, include_deleted| {
            space.list(
                kind,
                &ListQuery {
                    include_deleted,
                    cursor: cursor.clone(),
                    find: None,
                    plan: Plan::Indexes,
                    ..query(1)
                },
            )
        };
        assert!(reuse(Kind::Task, false).is_ok());
        assert_eq!(
            reuse(Kind::List, false).unwrap_err(),
            SpaceError::InvalidCursor
        );
        assert_eq!(
            reuse(Kind::Task, true).unwrap_err(),
            SpaceError::InvalidCursor
        );
        let mut other = Space::new("other");
        create(&mut other, Kind::Task, json!({}));
        let foreign = other.list(
            Kind::Task,
            &ListQuery {
                cursor: cursor.clone(),
                find: None,
                plan: Plan::Indexes,
                ..query(1)
            },
        );
        assert_eq!(foreign.unwrap_err(), SpaceError::InvalidCursor);
    }

    /// Every id of a walk of `query`, page by page.
    fn walk_ids(space: &Space, mut query: ListQuery) -> Result<Vec<String>, SpaceError> {
        let mut ids = Vec::new();
        loop {
            let page = space.list(Kind::Task, &query)?;
            ids.extend(page.records.iter().map(|r| r.id.to_string()));
            match page.next_cursor {
                Some(cursor) => query.cursor = Some(cursor),
                None => return Ok(ids),
            }
        }
    }

    #[test]
    fn the_planner_finds_what_a_scan_finds_in_the_same_order() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let mut space = Space::new("s");
        let day = 86_400_000_i64;
        let now = 1_800_000_000_000_i64;
        let words = [
            "milk", "mild", "bread", "Café", "crème", "Ölbild", "tax", "call",
        ];
        let time = |rng: &mut rand::rngs::StdRng| {
            let ms = now + rng.gen_range(-20..20) * day / 2;
            chrono::DateTime::from_timestamp_millis(ms)
                .unwrap()
                .to_rfc3339()
        };
        for i in 0..(SCAN_BELOW + 500) {
            let name: Vec<&str> = (0..rng.gen_range(0..3))
                .map(|_| words[rng.gen_range(0..words.len())])
                .collect();
            let status = ["open", "done", "waiting"][rng.gen_range(0..3)];
            let mut body = json!({
                "todoId": format!("t{i:05}"),
                "name": name.join(" "),
                "status": status,
                "sortOrder": rng.gen_range(0..50),
                "tagIds": if rng.gen_bool(0.3) { json!(["home"]) } else { json!(["work", "x"]) },
                "isImportant": rng.gen_bool(0.5),
            });
            if rng.gen_bool(0.6) {
                body["dateDue"] = json!(time(&mut rng));
            }
            if rng.gen_bool(0.2) {
                body["dateStart"] = json!(time(&mut rng));
            }
            create(&mut space, Kind::Task, body);
            if rng.gen_bool(0.05) {
                let id = format!("t{i:05}");
                space.set_deleted(Kind::Task, &id, true, 2_000).unwrap();
            }
        }
        // Rewritten tasks leave their old index entries.
        for i in (0..SCAN_BELOW).step_by(7) {
            let body = match i % 3 {
                0 => json!({"name": words[i % words.len()], "dateDue": time(&mut rng)}),
                1 => json!({"tagIds": ["home", "new"]}),
                _ => json!({"sortOrder": rng.gen_range(0..50), "status": "open"}),
            };
            let changes = changes(Kind::Task, Mode::Update, body);
            // A deleted task is refused, and stays as it was.
            let _ = space.update(Kind::Task, &format!("t{i:05}"), changes, 3_000);
        }
        let loaded = Space::from_snapshot(space.snapshot()).unwrap();
        let queries = [
            ("", "", "sortOrder"),
            ("dateDue < now+2d && status != \"done\"", "", "sortOrder"),
            ("dateDue >= today && dateDue <= today+1w", "", "-dateDue"),
            ("dateDue = null", "", "dateDue"),
            ("", "mil", "sortOrder"),
            ("", "cafe creme", "name,-dateStart"),
            ("tagIds has \"home\"", "", "dateStart,-sortOrder"),
            (
                "status in (\"open\", \"waiting\") && updatedAt > 1970-01-02",
                "",
                "updatedAt",
            ),
            ("isImportant = true || dateStart != null", "", "-sortOrder"),
            ("", "", "-dateDue,name"),
            ("status = \"done\"", "tax", "isImportant,-dateDue"),
        ];
        for (filter, q, order) in queries {
            for include_deleted in [false, true] {
                let query = |plan| ListQuery {
                    limit: 7,
                    include_deleted,
                    filters: Vec::new(),
                    cursor: None,
                    find: Some(TaskQuery {
                        filter: filter.into(),
                        search: Search::parse(q).unwrap(),
                        order: OrderBy::parse(order).unwrap(),
                        tz: chrono_tz::UTC,
                        now,
                    }),
                    plan,
                };
                let planned = walk_ids(&space, query(Plan::Indexes)).unwrap();
                let loaded = walk_ids(&loaded, query(Plan::Indexes)).unwrap();
                assert_eq!(planned, loaded, "{filter} / {q} / {order}");
                let scanned = walk_ids(&space, query(Plan::Scan)).unwrap();
                assert_eq!(planned, scanned, "{filter} / {q} / {order}");
                let find = query(Plan::Scan).find.unwrap();
                let parsed = Filter::parse(
                    filter,
                    FilterContext {
                        space_id: "s",
                        tz: chrono_tz::UTC,
                        now_ms: now,
                    },
                )
                .unwrap();
                let tasks = &space.collection(Kind::Task).records;
                let mut expected: Vec<&Arc<Record>> = tasks
                    .values()
                    .filter(|r| include_deleted || !r.is_deleted())
                    .filter(|r| parsed.matches(r) && find.search.matches_task(r))
                    .collect();
                expected.sort_by(|a, b| find.order.compare(a, b));
                let expected: Vec<String> = expected.iter().map(|r| r.id.to_string()).collect();
                assert_eq!(planned, expected, "{filter} / {q} / {order}");
            }
        }
    }

    #[test]
    fn a_snapshot_rebuilds_the_same_space() {
        let mut space = Space::new("s");
        create(&mut space, Kind::List, json!({"listId": "l"}));
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": "t", "listId": "l", "status": "s"}),
        );
        space.set_deleted(Kind::List, "l", true, 7).unwrap();
        let rebuilt = Space::from_snapshot(space.snapshot()).unwrap();
        assert_eq!(rebuilt.version(), 3);
        assert_eq!(rebuilt.snapshot().collections, space.snapshot().collections);
        let status = ListQuery {
            filters: vec![(Kind::Task.field_index("status").unwrap(), "s".into())],
            ..query(5)
        };
        assert_eq!(walk(&rebuilt, Kind::Task, status), ["t"]);
        assert!(rebuilt
            .list(Kind::List, &query(5))
            .unwrap()
            .records
            .is_empty());
    }

    #[test]
    fn an_inconsistent_snapshot_is_refused() {
        let mut space = Space::new("s");
        create(&mut space, Kind::Task, json!({"todoId": "t"}));
        let mut snapshot = space.snapshot();
        snapshot.version = 0;
        assert!(Space::from_snapshot(snapshot)
            .unwrap_err()
            .contains("above the space version"));
        let mut snapshot = space.snapshot();
        let dup = snapshot.collections[0].1[0].clone();
        snapshot.collections[0].1.push(dup);
        assert!(Space::from_snapshot(snapshot)
            .unwrap_err()
            .contains("twice"));
    }

    fn command(kind: Kind, id: &str, op: Op) -> Command {
        Command {
            kind,
            id: id.into(),
            op,
            if_match: None,
        }
    }

    fn feed_ids(space: &Space, since: u64) -> Vec<(u64, String)> {
        let page = space.changes(since, usize::MAX).unwrap();
        page.changes
            .iter()
            .map(|c| (c.record.version, c.record.id.to_string()))
            .collect()
    }

    #[test]
    fn a_batch_applies_in_order_or_not_at_all() {
        let mut space = Space::new("s");
        let list = changes(Kind::List, Mode::Create, json!({"listId": "l"}));
        let task = changes(Kind::Task, Mode::Create, json!({"listId": "l"}));
        let ok = [
            command(Kind::List, "l", Op::Create(list.clone())),
            command(Kind::Task, "t", Op::Create(task.clone())),
            command(Kind::Task, "t", Op::SetDeleted(true)),
        ];
        let (outcome, _) = space.apply(&ok, 5).unwrap();
        assert_eq!(
            (outcome.base, outcome.version, outcome.steps.len()),
            (0, 3, 3)
        );
        assert!(outcome.steps[1].created && !outcome.steps[2].created);
        assert_eq!(feed_ids(&space, 0), [(1, "l".into()), (3, "t".into())]);

        let before = space.view();
        let failing = [
            command(Kind::List, "m", Op::Create(list)),
            command(Kind::Task, "u", Op::Create(task)),
            command(Kind::Task, "t", Op::Update(Changes::default())),
        ];
        let (index, error) = space.apply(&failing, 6).unwrap_err();
        assert_eq!(index, 2);
        assert!(matches!(error, SpaceError::RecordDeleted { .. }));
        assert_eq!(space.view(), before, "nothing of the batch is left");
        assert_eq!(feed_ids(&space, 0), [(1, "l".into()), (3, "t".into())]);
    }

    #[test]
    fn if_match_is_checked_after_existence_and_against_the_current_version() {
        let mut space = Space::new("s");
        create(&mut space, Kind::Task, json!({"todoId": "t"}));
        let guarded = |versions: Vec<u64>| Command {
            if_match: Some(IfMatch::Versions(versions)),
            ..command(Kind::Task, "t", Op::Update(Changes::default()))
        };
        let stale = space.apply(&[guarded(vec![7])], 2).unwrap_err().1;
        assert!(matches!(stale, SpaceError::PreconditionFailed { .. }));
        assert_eq!(space.version(), 1);
        space.apply(&[guarded(vec![7, 1])], 2).unwrap();
        let missing = Command {
            if_match: Some(IfMatch::Any),
            ..command(Kind::Task, "nope", Op::SetDeleted(true))
        };
        let error = space.apply(&[missing], 3).unwrap_err().1;
        assert!(matches!(error, SpaceError::NotFound { .. }));
    }

    #[test]
    fn the_feed_pages_by_version_without_splitting_one() {
        let mut space = Space::new("s");
        create(
            &mut space,
            Kind::List,
            json!({"listId": "a", "isDefault": true}),
        );
        create(&mut space, Kind::Context, json!({"contextId": "c"}));
        create(
            &mut space,
            Kind::List,
            json!({"listId": "b", "isDefault": true}),
        );
        let page = space.changes(0, 1).unwrap();
        assert_eq!(
            (page.changes.len(), page.next_since, page.has_more),
            (1, 2, true)
        );
        let page = space.changes(2, 1).unwrap();
        let ids: Vec<&str> = page.changes.iter().map(|c| &*c.record.id).collect();
        assert_eq!(ids, ["a", "b"], "version 3 touched both lists");
        assert!(!page.has_more);
        assert!(matches!(
            space.changes(4, 1),
            Err(SpaceError::SinceAhead {
                since: 4,
                version: 3
            })
        ));
        let rebuilt = Space::from_snapshot(space.snapshot()).unwrap();
        assert_eq!(feed_ids(&rebuilt, 0), feed_ids(&space, 0));
    }
}
