//! The task indexes of docs §17 and the planner that draws a page of a task listing
//! from them.
//!
//! [`TaskIndexes`] holds, beside the listing indexes of [`super::indexes::Indexes`], the tasks by
//! `dateDue`, `dateStart` and `updatedAt` (tasks whose field is null are not in them): sets
//! whose every entry carries the task's place in the default order (`sortOrder`, then id),
//! so a range comes out in that order without looking a record up. The tasks by the
//! filter key of each filterable field of §6 (`status`, `listId`, `contextId`,
//! `isBlocked`, `parentId`), by tag (`tagIds`) and by folded word of their name and notes
//! ([`search::task_words`]) are posting lists of small task handles
//! ([`super::postings`]), a byte or two a task each, which `keys` turns into places in the
//! default order. Like every structure of a [`super::Space`] they are persistent, kept in
//! step by the write that changes a task. When a space is loaded, the time indexes are
//! built in bulk and the posting lists are taken from the snapshot ([`super::image`]) or,
//! without one that fits, built in bulk too.
//!
//! [`select`] picks a page:
//! 1. Candidates: each exact filter of §6, each top-level conjunct of the filter that an
//!    index covers (`=`/`in`/`<`/`<=`/`>`/`>=` on `dateDue`, `dateStart`, `updatedAt`;
//!    `=`/`in` on `status`, `listId`, `contextId`, `isBlocked`; `has` on `tagIds`) and each
//!    word of `q` is a source. The planner counts each source up to a cap that grows with
//!    the square root of the space's size (a source whose index knows its size is not
//!    walked to count it) and takes the smallest source under it, then
//!    tests every candidate with the whole query (exact filters, filter, search, the walk's
//!    version) and sorts only as many as the page needs.
//! 2. Without a selective source, it walks an index in the order asked for: `sortOrder`,
//!    `dateDue`, `dateStart` or `updatedAt` as the first key (either direction), testing
//!    each task until the page is full; tasks whose key is null come last, in id order.
//! 3. Otherwise it scans: every task of the collection is tested and the page is sorted out
//!    of the matches. That is the case for `orderBy` whose first key is `name`, `status`,
//!    `createdAt`, `durationEstimate`, `isImportant` or `versionUpdatedAt` with no selective
//!    source.
//!
//! A collection of at most [`SCAN_BELOW`] tasks skips step 1: walking or scanning it costs
//! no more than counting the sources would.

use std::cmp::Ordering;
use std::ops::Bound::{self, Excluded, Included, Unbounded};
use std::sync::Arc;

use std::collections::HashMap;

use imbl::{OrdMap, OrdSet, Vector};
use itertools::Itertools;

use super::collection::Collection;
use super::image::{Changed, Restored, TaskImage};
use super::indexes::{packed_map, packed_set, OrderKey};
use super::list::ListQuery;
use super::postings::{Handle, Terms};
use crate::model::kind::Kind;
use crate::model::query::{
    self, search, Constraint, Filter, Literal, OrderBy, Position, Scalar, Search, SortKey,
    SortValue, TaskField,
};
use crate::model::record::{Id, Record, Records};
use crate::threads::beside;

/// A collection of at most this many records is scanned: counting index ranges would cost
/// about as much.
pub const SCAN_BELOW: usize = 2_000;

/// Tasks by a date-time field: its value in milliseconds, then the task's default place.
type TimeIndex = OrdSet<(i64, OrderKey)>;

/// How a listing may find its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// From the indexes of this module where they help (the server's way).
    Indexes,
    /// Without them: the default order walks the listing index, any other order sorts
    /// every match. For measuring what the indexes gain.
    Scan,
}

/// The §17 indexes of the task collection.
#[derive(Debug, Clone)]
pub(super) struct TaskIndexes {
    /// `dateDue`, `dateStart` and `updatedAt`, each with its tasks.
    times: [(TaskField, TimeIndex); 3],
    /// The `tagIds` field.
    tag_field: TaskField,
    /// The `name` and `notesMarkdown` fields, whose words the word index holds.
    name_field: TaskField,
    notes_field: TaskField,
    /// The filterable fields of docs §6 (`status`, `listId`, `contextId`, `isBlocked`,
    /// `parentId`) by position, each with its tasks by the field's filter key
    /// ([`crate::model::kind::Field::filter_key`]), deleted tasks included: what the exact
    /// filters and `=`/`in` read.
    fields: Vec<(usize, Terms)>,
    /// Each task's handle in the posting lists of `fields`, `tags` and `words`, by id.
    handles: OrdMap<Id, Handle>,
    /// Each handle's task, by its place in the default order (`None`: handed out to a task
    /// that is gone).
    keys: Vector<Option<OrderKey>>,
    /// Tasks by tag id.
    tags: Terms,
    /// Tasks by folded word of their name and notes.
    words: Terms,
}

/// The smallest key of the default order, below every record's.
fn min_key() -> OrderKey {
    OrderKey {
        // The smallest f64 in `total_cmp` order: a negative NaN with every bit set.
        sort_order: f64::from_bits(u64::MAX),
        id: Id::from(""),
    }
}

/// The field called `name` in the task table.
fn task_field(name: &str) -> TaskField {
    TaskField::by_name(name).unwrap_or(TaskField::Id)
}

impl TaskIndexes {
    pub(super) fn new() -> TaskIndexes {
        TaskIndexes {
            times: [
                (task_field("dateDue"), OrdSet::new()),
                (task_field("dateStart"), OrdSet::new()),
                (TaskField::UpdatedAt, OrdSet::new()),
            ],
            fields: (Kind::Task.fields().iter().enumerate())
                .filter(|(_, f)| f.filter)
                .map(|(at, _)| (at, Terms::default()))
                .collect(),
            tag_field: task_field("tagIds"),
            name_field: task_field("name"),
            notes_field: task_field("notesMarkdown"),
            handles: OrdMap::new(),
            keys: Vector::new(),
            tags: Terms::default(),
            words: Terms::default(),
        }
    }

    /// The indexes of `keyed`, the tasks with their keys in the default order, built from
    /// sorted runs; the word index on a thread of its own when `parallel`. Handles are
    /// handed out in the default order.
    pub(super) fn build(keyed: &[(OrderKey, &Record)], parallel: bool) -> TaskIndexes {
        let mut indexes = TaskIndexes::new();
        let tasks: Vec<(Handle, &Record)> = (0..).zip(keyed.iter().map(|(_, r)| *r)).collect();
        let lists = std::thread::scope(|scope| {
            let words = beside(scope, parallel, || gather_words(&tasks));
            indexes.build_times(keyed);
            let mut lists = indexes.gather(&tasks);
            let mut handles: Vec<(Id, Handle)> = keyed
                .iter()
                .zip(0..)
                .map(|((key, _), handle)| (key.id.clone(), handle))
                .collect();
            handles.sort_unstable();
            indexes.handles = packed_map(handles);
            indexes.keys = keyed.iter().map(|(key, _)| Some(key.clone())).collect();
            lists.push(words.value());
            lists
        });
        for (terms, sorted) in indexes.lists_mut().zip(lists) {
            *terms = Terms::build(sorted);
        }
        indexes
    }

    /// The posting lists of `tasks` (each with its handle, ascending) but the words, in
    /// [`super::TaskImage::LISTS`] order, as sorted runs.
    fn gather(&self, tasks: &[(Handle, &Record)]) -> Vec<Sorted> {
        let mut lists: Vec<Sorted> = (self.fields.iter())
            .map(|(at, _)| {
                let field = &Kind::Task.fields()[*at];
                Gathered::terms_of(tasks, |record, add| {
                    if let Some(key) = field.filter_key(&record.fields[*at]) {
                        add(key);
                    }
                })
            })
            .collect();
        let tag_field = self.tag_field;
        lists.push(Gathered::terms_of(tasks, |record, add| {
            if let Scalar::Ids(ids) = tag_field.value(record) {
                ids.iter().for_each(|tag| add(tag));
            }
        }));
        lists
    }

    /// The posting lists of `tasks` (each with its handle, ascending), the words included,
    /// in [`super::TaskImage::LISTS`] order, as sorted runs.
    fn gather_all(&self, tasks: &[(Handle, &Record)]) -> Vec<Sorted> {
        let mut lists = self.gather(tasks);
        lists.push(gather_words(tasks));
        lists
    }

    /// The posting lists in [`super::TaskImage::LISTS`] order.
    pub(super) fn lists_mut(&mut self) -> impl Iterator<Item = &mut Terms> {
        let fields = self.fields.iter_mut().map(|(_, terms)| terms);
        fields.chain([&mut self.tags, &mut self.words])
    }

    /// Adds the terms of `tasks` (none of them held, with their handles: the next ones, in
    /// order) to the posting lists, gathered in bulk as a build gathers them: for the
    /// journal's new tasks at a load, whose keys and handles the caller holds already.
    fn append_terms(&mut self, tasks: &[(Handle, &Record)]) {
        let lists = self.gather_all(tasks);
        for (terms, sorted) in self.lists_mut().zip(lists) {
            terms.append(sorted);
        }
    }

    /// Applies the changes of tasks held (each with its handle, its state before, and its
    /// state now or `None` once gone) in bulk: each term's posting list changes once, not
    /// once a task (one at a time, a change cost about 17 µs at 1,000,000 tasks).
    fn change(&mut self, changes: &mut [(Handle, &Record, Option<&Record>)]) {
        changes.sort_unstable_by_key(|(handle, ..)| *handle);
        for &(handle, before, now) in changes.iter() {
            match now {
                Some(now) if now.sort_order.total_cmp(&before.sort_order).is_ne() => {
                    self.keys.set(handle as usize, Some(OrderKey::of(now)));
                }
                Some(_) => {}
                None => {
                    self.keys.set(handle as usize, None);
                    self.handles.remove(&before.id);
                }
            }
        }
        let before: Vec<(Handle, &Record)> = changes.iter().map(|(h, was, _)| (*h, *was)).collect();
        let now: Vec<(Handle, &Record)> = (changes.iter())
            .filter_map(|(h, _, now)| Some((*h, (*now)?)))
            .collect();
        let (was, is) = (self.gather_all(&before), self.gather_all(&now));
        for ((terms, was), is) in self.lists_mut().zip(was).zip(is) {
            terms.update(was, is);
        }
    }

    /// The time indexes of `keyed`, the tasks with their keys in the default order.
    fn build_times(&mut self, keyed: &[(OrderKey, &Record)]) {
        self.times = times_of(self.times.clone(), keyed);
    }

    /// The indexes of `keyed` (the tasks with their keys in the default order; `records`
    /// the same tasks by id) with the posting lists of a snapshot's `image` rather than
    /// built again: the journal's writes since the snapshot, which changed the tasks of
    /// `changed` (each with its state in the snapshot), are applied to them in bulk. `None`
    /// when the image does not fit: a list missing, a handle twice, or handles spread
    /// beyond twice the tasks (a build hands them out again from zero). When `parallel`,
    /// the handles' map and the time indexes build beside the posting lists.
    pub(super) fn restore(
        keyed: &[(OrderKey, &Record)],
        records: &Records,
        image: Restored,
        changed: &Changed,
        parallel: bool,
    ) -> Option<TaskIndexes> {
        let mut indexes = TaskIndexes::new();
        let count = image.max.map_or(0, |max| max as usize + 1);
        if image.lists.len() != TaskImage::LISTS || count > 2 * image.handles.len() + 1024 {
            return None;
        }
        // Each handle's task as the snapshot held it: the record unless the journal
        // changed it. All three runs are in id order.
        let mut keys: Vec<Option<OrderKey>> = vec![None; count];
        let mut now = records.iter().peekable();
        let mut earlier = changed.iter().peekable();
        for (id, handle) in &image.handles {
            while now.next_if(|(at, _)| *at < id).is_some() {}
            while earlier.next_if(|(at, _)| *at < id).is_some() {}
            let record = match (earlier.peek(), now.peek()) {
                (Some((at, before)), _) if *at == id => before.as_deref()?,
                (_, Some((at, record))) if *at == id => &***record,
                _ => return None,
            };
            if keys[*handle as usize]
                .replace(OrderKey::of(record))
                .is_some()
            {
                return None;
            }
        }
        // The journal's changes in bulk: to the snapshot's tasks, then its new tasks, which
        // take the next handles in id order.
        let (mut moved, mut made) = (Vec::new(), Vec::new());
        let first = Handle::try_from(count).expect("below 2^32 tasks");
        // Walked beside the records (both in id order) rather than looked up in them.
        let mut held = records.iter().peekable();
        for (id, before) in changed {
            while held.next_if(|(at, _)| *at < id).is_some() {}
            let now = held.next_if(|(at, _)| *at == id).map(|(_, r)| &**r);
            match (before.as_deref(), now) {
                (Some(before), now) => {
                    let at = (image.handles).binary_search_by(|(held, _)| held.cmp(id));
                    moved.push((image.handles[at.ok()?].1, before, now));
                }
                (None, Some(now)) => made.push((first + made.len() as Handle, now)),
                (None, None) => {}
            }
        }
        // Both runs are in id order: the handles map is built once, not grown by an
        // insert a new task (at 1,000,000 tasks about 1.5 µs each).
        keys.extend(made.iter().map(|(_, now)| Some(OrderKey::of(now))));
        let new_handles = made.iter().map(|(handle, now)| (now.id.clone(), *handle));
        let handles: Vec<(Id, Handle)> = (image.handles.into_iter())
            .merge_by(new_handles, |a, b| a.0 < b.0)
            .collect();
        let times = indexes.times.clone();
        std::thread::scope(|scope| {
            let handles = beside(scope, parallel, move || packed_map(handles));
            let times = beside(scope, parallel, move || times_of(times, keyed));
            indexes.keys = keys.into_iter().collect();
            for (terms, list) in indexes.lists_mut().zip(image.lists) {
                *terms = list;
            }
            // New handles are above every held one, so the new tasks join before the
            // changes apply (`change` needs the handles' map for the tasks gone).
            indexes.append_terms(&made);
            indexes.handles = handles.value();
            indexes.change(&mut moved);
            indexes.times = times.value();
        });
        Some(indexes)
    }

    /// Each task's handle by id, and the posting lists in [`super::TaskImage::LISTS`]
    /// order: what a snapshot file saves.
    pub(super) fn image(
        &self,
    ) -> (
        impl Iterator<Item = Handle> + '_,
        impl Iterator<Item = &Terms> + '_,
    ) {
        let lists = (self.fields.iter().map(|(_, terms)| terms)).chain([&self.tags, &self.words]);
        (self.handles.values().copied(), lists)
    }

    /// How many tasks hold a handle.
    pub(super) fn task_count(&self) -> usize {
        self.handles.len()
    }

    /// How many handles have been handed out: every handle is below it.
    pub(super) fn handle_count(&self) -> usize {
        self.keys.len()
    }

    /// Puts task `new` in place of `old` (either may be absent; both of one id), each with
    /// its key in the default order. A task keeps its handle while it is held, so only
    /// the terms that differ are touched: a write that changes neither the name, the notes
    /// nor the tags folds no word.
    pub(super) fn replace<'t>(
        &mut self,
        old: Option<(&'t Record, &OrderKey)>,
        new: Option<(&'t Record, &OrderKey)>,
    ) {
        self.replace_times(old, new);
        self.replace_postings(old, new);
    }

    /// [`TaskIndexes::replace`] in the time indexes alone.
    fn replace_times(
        &mut self,
        old: Option<(&Record, &OrderKey)>,
        new: Option<(&Record, &OrderKey)>,
    ) {
        for (field, index) in &mut self.times {
            let entry = |task: Option<(&Record, &OrderKey)>| match task {
                Some((record, key)) => match field.value(record) {
                    Scalar::Time(ms) => Some((ms, key.clone())),
                    _ => None,
                },
                None => None,
            };
            let (was, is) = (entry(old), entry(new));
            if was != is {
                if let Some(entry) = was {
                    index.remove(&entry);
                }
                if let Some(entry) = is {
                    index.insert(entry);
                }
            }
        }
    }

    /// [`TaskIndexes::replace`] in the handles and posting lists alone.
    pub(super) fn replace_postings<'t>(
        &mut self,
        old: Option<(&'t Record, &OrderKey)>,
        new: Option<(&'t Record, &OrderKey)>,
    ) {
        let handle = match (old, new) {
            (Some((_, was)), Some((_, is))) => {
                let handle = self.handles[&is.id];
                if was != is {
                    self.keys.set(handle as usize, Some(is.clone()));
                }
                handle
            }
            (None, Some((_, is))) => {
                let handle = Handle::try_from(self.keys.len()).expect("below 2^32 tasks");
                self.keys.push_back(Some(is.clone()));
                self.handles.insert(is.id.clone(), handle);
                handle
            }
            (Some((_, was)), None) => {
                let handle = self.handles.remove(&was.id).expect("a held task's handle");
                self.keys.set(handle as usize, None);
                handle
            }
            (None, None) => return,
        };
        for (at, terms) in &mut self.fields {
            let field = &Kind::Task.fields()[*at];
            let key = |task: Option<(&'t Record, &OrderKey)>| {
                task.and_then(|(record, _)| field.filter_key(&record.fields[*at]))
            };
            let (was, is) = (key(old), key(new));
            if was != is {
                if let Some(key) = was {
                    terms.remove(key, handle);
                }
                if let Some(key) = is {
                    terms.insert(key, handle);
                }
            }
        }
        let (old_tags, new_tags) = (ids_of(self.tag_field, old), ids_of(self.tag_field, new));
        if old_tags != new_tags {
            for tag in old_tags.iter().filter(|t| !new_tags.contains(t)) {
                self.tags.remove(tag, handle);
            }
            for tag in new_tags.iter().filter(|t| !old_tags.contains(t)) {
                self.tags.insert(tag, handle);
            }
        }
        let texts = [self.name_field, self.notes_field];
        let text_of = |task: Option<(&'t Record, &OrderKey)>| {
            task.map(|(record, _)| texts.map(|field| field.value(record)))
        };
        if text_of(old) != text_of(new) {
            let words = |task: Option<(&'t Record, &OrderKey)>| {
                task.map_or_else(Vec::new, |(record, _)| search::task_words(record))
            };
            let (was, is) = (words(old), words(new));
            // Both sorted: the words only one of them holds.
            for word in was.iter().filter(|w| is.binary_search(w).is_err()) {
                self.words.remove(word, handle);
            }
            for word in is.iter().filter(|w| was.binary_search(w).is_err()) {
                self.words.insert(word, handle);
            }
        }
    }

    /// The tasks of `handles`, by their places in the default order.
    fn keyed<'a>(
        &'a self,
        handles: impl Iterator<Item = Handle> + 'a,
    ) -> impl Iterator<Item = &'a OrderKey> + 'a {
        handles.filter_map(|h| self.keys.get(h as usize).and_then(Option::as_ref))
    }

    /// The tasks by the filter key of the filterable field at `position`, if it is one.
    pub(super) fn field_terms(&self, position: usize) -> Option<&Terms> {
        (self.fields.iter())
            .find(|(at, _)| *at == position)
            .map(|(_, terms)| terms)
    }

    fn time_index(&self, field: TaskField) -> Option<&TimeIndex> {
        self.times.iter().find(|(f, _)| *f == field).map(|(_, i)| i)
    }
}

/// Each posting list as its terms with their tasks' ids, and each task's handle.
#[cfg(test)]
pub(super) type ListsById = (Vec<Vec<(String, Vec<String>)>>, Vec<(Id, Handle)>);

#[cfg(test)]
impl TaskIndexes {
    /// Each posting list as its terms with their tasks' ids, sorted, and each task's
    /// handle: what a build and a restore must agree on, handles aside. Checks that every
    /// handle in a list is held by a task, and that `handles` and `keys` agree.
    pub(super) fn lists_by_id(&self) -> ListsById {
        for (id, handle) in &self.handles {
            assert_eq!(
                self.keys[*handle as usize].as_ref().map(|k| &k.id),
                Some(id)
            );
        }
        let id_of = |handle: Handle| match self.keys.get(handle as usize) {
            Some(Some(key)) => key.id.to_string(),
            _ => panic!("handle {handle} is held by no task"),
        };
        let lists = self.image().1.map(|terms| {
            let by_id = terms.iter().map(|(term, postings)| {
                (
                    term.to_string(),
                    postings.iter().map(id_of).sorted().collect(),
                )
            });
            by_id.collect()
        });
        let handles = self.handles.iter().map(|(id, h)| (id.clone(), *h));
        (lists.collect(), handles.collect())
    }
}

/// The ids an array field of `task` holds (none for no task).
fn ids_of<'t>(field: TaskField, task: Option<(&'t Record, &OrderKey)>) -> &'t [Box<str>] {
    match task.map(|(record, _)| field.value(record)) {
        Some(Scalar::Ids(ids)) => ids,
        _ => &[],
    }
}

/// The posting lists of a bulk build, gathered task after task in handle order; a term is
/// allocated once, when first seen.
#[derive(Default)]
struct Gathered(HashMap<Box<str>, Vec<Handle>, foldhash::fast::RandomState>);

impl Gathered {
    /// The posting lists of the terms `each` gives for each of `tasks` (each with its
    /// handle, ascending), calling its second argument with each term.
    fn terms_of(
        tasks: &[(Handle, &Record)],
        each: impl Fn(&Record, &mut dyn FnMut(&str)),
    ) -> Sorted {
        let mut gathered = Gathered::default();
        for &(handle, record) in tasks {
            each(record, &mut |term| gathered.add(term, handle));
        }
        gathered.sorted()
    }

    /// Notes that task `handle`, the newest so far, holds `term`.
    fn add(&mut self, term: &str, handle: Handle) {
        let handles = match self.0.get_mut(term) {
            Some(handles) => handles,
            None => self.0.entry(term.into()).or_default(),
        };
        // Handles come in order, so a term a task holds twice is a repeat of the last.
        if handles.last() != Some(&handle) {
            handles.push(handle);
        }
    }

    /// The terms with their handles, terms ascending.
    fn sorted(self) -> Sorted {
        let mut sorted: Sorted = self.0.into_iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        sorted
    }
}

/// Terms with their handles, ascending: a posting list as a bulk build gathers it.
type Sorted = Vec<(Box<str>, Vec<Handle>)>;

/// The word index's posting list of `tasks` (each with its handle, ascending), as sorted
/// runs.
fn gather_words(tasks: &[(Handle, &Record)]) -> Sorted {
    Gathered::terms_of(tasks, |record, add| search::each_task_word(record, add))
}

/// The entries of a time index within the bounds, as milliseconds.
fn time_range(
    index: &TimeIndex,
    low: Bound<i64>,
    high: Bound<i64>,
) -> impl Iterator<Item = &OrderKey> {
    // Keys of one instant run from (ms, min_key()) to below (ms + 1, min_key()).
    let after = |ms: i64| {
        ms.checked_add(1)
            .map_or(Unbounded, |n| Excluded((n, min_key())))
    };
    let low = match low {
        Included(ms) => Included((ms, min_key())),
        Excluded(ms) => match ms.checked_add(1) {
            Some(n) => Included((n, min_key())),
            None => Excluded((ms, min_key())),
        },
        Unbounded => Unbounded,
    };
    let high = match high {
        Included(ms) => after(ms),
        Excluded(ms) => Excluded((ms, min_key())),
        Unbounded => Unbounded,
    };
    // `range` asserts that the bounds are in order; an empty range is empty anyway.
    let empty = match (&low, &high) {
        (Included(a) | Excluded(a), Included(b) | Excluded(b)) => a > b,
        _ => false,
    };
    let range = (!empty).then(|| index.range((low, high)));
    range.into_iter().flatten().map(|(_, k)| k)
}

/// A literal bound as milliseconds; `None` for a literal that is not a time.
fn time_bound(bound: Bound<&Literal>) -> Option<Bound<i64>> {
    Some(match bound {
        Included(Literal::Time(ms)) => Included(*ms),
        Excluded(Literal::Time(ms)) => Excluded(*ms),
        Unbounded => Unbounded,
        _ => return None,
    })
}

/// What a page keeps.
pub(super) struct Scope<'q> {
    /// The version the walk began at: newer records are left out.
    pub walk_version: u64,
    /// The listing's exact filters, `includeDeleted` and plan.
    pub query: &'q ListQuery,
    /// The `filter=`, bound.
    pub filter: &'q Filter,
    /// The `q=`, when one was given.
    pub search: Option<&'q Search>,
}

impl Scope<'_> {
    fn keeps(&self, record: &Record) -> bool {
        record.version <= self.walk_version
            && (self.query.include_deleted || !record.is_deleted())
            && self.query.filters.iter().all(|(field, value)| {
                Kind::Task.fields()[*field].filter_key(&record.fields[*field]) == Some(value)
            })
            && self.filter.matches(record)
            && self.search.is_none_or(|s| s.matches_task(record))
    }
}

/// Candidates from one index, and their number when the index knows it without a walk.
struct Source<'a> {
    keys: Box<dyn Iterator<Item = &'a OrderKey> + 'a>,
    len: Option<usize>,
}

impl<'a> Source<'a> {
    fn counted(keys: impl Iterator<Item = &'a OrderKey> + 'a, len: usize) -> Source<'a> {
        Source {
            keys: Box::new(keys),
            len: Some(len),
        }
    }

    fn walked(keys: impl Iterator<Item = &'a OrderKey> + 'a) -> Source<'a> {
        Source {
            keys: Box::new(keys),
            len: None,
        }
    }
}

/// `times` (the time fields with empty indexes) indexed over `keyed`, the tasks with
/// their keys in the default order.
fn times_of(
    mut times: [(TaskField, TimeIndex); 3],
    keyed: &[(OrderKey, &Record)],
) -> [(TaskField, TimeIndex); 3] {
    for (field, index) in &mut times {
        let mut entries: Vec<(i64, OrderKey)> = keyed
            .iter()
            .filter_map(|(key, r)| match field.value(r) {
                Scalar::Time(ms) => Some((ms, key.clone())),
                _ => None,
            })
            .collect();
        entries.sort_unstable();
        *index = packed_set(entries);
    }
    times
}

/// Every source of candidates the query offers: each yields a superset of the matching
/// records (with repeats for words).
fn sources<'a>(collection: &'a Collection, scope: &Scope<'a>) -> Vec<Source<'a>> {
    let Some(tasks) = &collection.indexes.tasks else {
        return Vec::new();
    };
    // The tasks whose field at `position` has one of `keys`, counted.
    let with_keys = |position: usize, keys: &[&str]| {
        let terms = tasks.field_terms(position)?;
        let postings: Vec<_> = keys.iter().filter_map(|key| terms.get(key)).collect();
        let len = postings.iter().map(|p| p.len()).sum();
        Some(Source::counted(
            tasks.keyed(postings.into_iter().flat_map(|p| p.iter())),
            len,
        ))
    };
    let mut out: Vec<Source<'a>> = Vec::new();
    for (field, value) in &scope.query.filters {
        out.extend(with_keys(*field, &[value.as_str()]));
    }
    for constraint in scope.filter.constraints() {
        match constraint {
            Constraint::OneOf(field, values) => {
                if let Some(index) = tasks.time_index(field) {
                    let times: Option<Vec<i64>> = values
                        .iter()
                        .map(|v| match v {
                            Literal::Time(ms) => Some(*ms),
                            _ => None,
                        })
                        .collect();
                    if let Some(times) = times {
                        out.push(Source::walked(times.into_iter().flat_map(move |ms| {
                            time_range(index, Included(ms), Included(ms))
                        })));
                    }
                } else if let TaskField::Field(position) = field {
                    let keys: Option<Vec<&str>> = values
                        .iter()
                        .map(|v| match v {
                            Literal::Text(s) => Some(&**s),
                            Literal::Bool(true) => Some("true"),
                            Literal::Bool(false) => Some("false"),
                            _ => None,
                        })
                        .collect();
                    if let Some(keys) = keys {
                        out.extend(with_keys(position, &keys));
                    }
                }
            }
            Constraint::Range(field, low, high) => {
                if let (Some(index), Some(low), Some(high)) =
                    (tasks.time_index(field), time_bound(low), time_bound(high))
                {
                    out.push(Source::walked(time_range(index, low, high)));
                }
            }
            Constraint::Has(field, id) => {
                if field == tasks.tag_field {
                    out.push(Source::walked(tasks.keyed(tasks.tags.starting(id, true))));
                }
            }
        }
    }
    for word in scope.search.map_or(&[][..], |s| s.words()) {
        out.push(Source::walked(
            tasks.keyed(tasks.words.starting(word, false)),
        ));
    }
    out
}

/// The smallest source with at most `cap` entries, collected; a source is walked only as
/// far as it could still be the smallest.
fn smallest<'a>(sources: Vec<Source<'a>>, cap: usize) -> Option<Vec<Candidate<'a>>> {
    let mut best: Option<Vec<Candidate<'a>>> = None;
    for source in sources {
        let limit = best.as_ref().map_or(cap, |b| b.len().saturating_sub(1));
        if source.len.is_some_and(|len| len > limit) {
            continue;
        }
        let keys: Vec<Candidate> = source.keys.take(limit + 1).map(candidate).collect();
        if keys.len() <= limit {
            best = Some(keys);
        }
    }
    best
}

/// Visits `items` in `compare` order, sorting only as far as the visits go: the smallest
/// few are selected and sorted, then the next, more each time. Stops when `visit` says so.
fn in_order<T>(
    items: &mut [T],
    first: usize,
    compare: impl Fn(&T, &T) -> Ordering,
    mut visit: impl FnMut(&T) -> bool,
) {
    let mut start = 0;
    let mut chunk = first.max(1);
    while start < items.len() {
        let rest = &mut items[start..];
        let k = chunk.min(rest.len());
        if k < rest.len() {
            rest.select_nth_unstable_by(k, &compare);
        }
        rest[..k].sort_unstable_by(&compare);
        for item in &rest[..k] {
            if !visit(item) {
                return;
            }
        }
        start += k;
        chunk = chunk.saturating_mul(4);
    }
}

/// The first key of `order` when it is one a task index walks in order.
fn walked_key(order: &OrderBy) -> Option<SortKey> {
    let first = order.keys().first()?.key;
    matches!(
        first,
        SortKey::SortOrder | SortKey::DateDue | SortKey::DateStart | SortKey::UpdatedAt
    )
    .then_some(first)
}

/// Up to `take` records of `collection` that `scope` keeps and that come after `after`,
/// in `order`.
pub(super) fn select<'a>(
    collection: &'a Collection,
    scope: &Scope<'_>,
    order: &OrderBy,
    after: Option<&Position>,
    take: usize,
) -> Vec<&'a Arc<Record>> {
    let default_order = *order == OrderBy::default();
    let after_key = |p: &Position| match p.values.first() {
        Some(SortValue::Number(sort_order)) => Some(OrderKey {
            sort_order: *sort_order,
            id: Id::from(&*p.id),
        }),
        _ => None,
    };
    let n = collection.records.len();
    let indexed = scope.query.plan == Plan::Indexes && collection.kind == Kind::Task;
    let walkable = indexed && walked_key(order).is_some();
    if indexed && n > SCAN_BELOW {
        // Walking costs about take × n / matches lookups, candidates about their number
        // (sorted without lookups in the default order, about 8 times cheaper each).
        let weight = if default_order { 8 } else { 1 };
        let cap = if default_order || walkable {
            ((weight * take * n) as f64).sqrt() as usize
        } else {
            n
        };
        if let Some(keys) = smallest(sources(collection, scope), cap) {
            return candidates(collection, scope, order, after, take, keys);
        }
    }
    if default_order {
        let after = after.and_then(after_key);
        return collection
            .indexes
            .walk(scope.query.include_deleted, after)
            .map(|key| &collection.records[&key.id])
            .filter(|r| scope.keeps(r))
            .take(take)
            .collect();
    }
    if walkable {
        return walk(collection, scope, order, after, take);
    }
    let every = (Unbounded, Unbounded);
    let keys = (collection.indexes).listing(scope.query.include_deleted, every, false);
    candidates(
        collection,
        scope,
        order,
        after,
        take,
        keys.map(candidate).collect(),
    )
}

/// A record that may be on a page: its key, with the key's sort order beside it as
/// [`OrderKey::sort_bits`], so that ordering candidates by key seldom fetches the key
/// (the keys lie across an index's nodes, and a selection among thousands of them spent
/// its time fetching them). Candidates compare as their keys do.
type Candidate<'a> = (u64, &'a OrderKey);

fn candidate(key: &OrderKey) -> Candidate<'_> {
    (key.sort_bits(), key)
}

/// The page out of `keys`, a superset of the matches.
fn candidates<'a>(
    collection: &'a Collection,
    scope: &Scope<'_>,
    order: &OrderBy,
    after: Option<&Position>,
    take: usize,
    mut keys: Vec<Candidate>,
) -> Vec<&'a Arc<Record>> {
    let mut out = Vec::with_capacity(take);
    let is_after = |r: &Record| after.is_none_or(|p| order.compare_to(r, p).is_gt());
    if *order == OrderBy::default() {
        let mut last: Option<&OrderKey> = None;
        in_order(
            &mut keys,
            take * 2,
            |a, b| a.cmp(b),
            |&(_, key)| {
                if last != Some(key) {
                    last = Some(key);
                    let record = &collection.records[&key.id];
                    if is_after(record) && scope.keeps(record) {
                        out.push(record);
                    }
                }
                out.len() < take
            },
        );
        return out;
    }
    keys.sort_unstable();
    keys.dedup();
    let mut records: Vec<&'a Arc<Record>> = keys
        .into_iter()
        .map(|(_, key)| &collection.records[&key.id])
        .filter(|r| is_after(r) && scope.keeps(r))
        .collect();
    in_order(
        &mut records,
        take,
        |a, b| order.compare(a, b),
        |r| {
            out.push(*r);
            out.len() < take
        },
    );
    out
}

/// The index entries a walk in `first`'s order goes through, each with its key's value as
/// an i64, from `start` (the cursor's first value) on; `None` when no index has that order.
fn walk_entries<'a>(
    collection: &'a Collection,
    include_deleted: bool,
    first: query::OrderKey,
    start: Option<&SortValue>,
) -> Option<Box<dyn Iterator<Item = (i64, &'a OrderKey)> + 'a>> {
    let entries: Box<dyn Iterator<Item = (i64, &'a OrderKey)> + 'a> = match first.key {
        SortKey::SortOrder => {
            let value = |k: &OrderKey| k.sort_order.to_bits() as i64;
            let from = match start {
                Some(SortValue::Number(v)) => Some(*v),
                _ => None,
            };
            // Ids are made of `[A-Za-z0-9_-]`, all below `~`.
            let bound = |v: f64, id: &str| OrderKey {
                sort_order: v,
                id: Id::from(id),
            };
            let range = match (first.descending, from) {
                (_, None) => (Unbounded, Unbounded),
                (false, Some(v)) => (Included(bound(v, "")), Unbounded),
                (true, Some(v)) => (Unbounded, Included(bound(v, "~"))),
            };
            let keys = (collection.indexes).listing(include_deleted, range, first.descending);
            Box::new(keys.map(move |k| (value(k), k)))
        }
        key => {
            let index = collection
                .indexes
                .tasks
                .as_ref()
                .and_then(|t| t.time_index(key.field()))?;
            let from = match start {
                Some(SortValue::Time(ms)) => Some(*ms),
                _ => None,
            };
            let pair = |(ms, k): &'a (i64, OrderKey)| (*ms, k);
            match (first.descending, start, from) {
                // The walk is within the nulls already.
                (_, Some(SortValue::Null), _) => Box::new(std::iter::empty()),
                (false, _, None) => Box::new(index.iter().map(pair)),
                (false, _, Some(ms)) => Box::new(
                    index
                        .range((Included((ms, min_key())), Unbounded))
                        .map(pair),
                ),
                (true, _, None) => Box::new(index.iter().rev().map(pair)),
                (true, _, Some(ms)) => {
                    let high = ms
                        .checked_add(1)
                        .map_or(Unbounded, |n| Excluded((n, min_key())));
                    Box::new(index.range((Unbounded, high)).rev().map(pair))
                }
            }
        }
    };
    Some(entries)
}

/// The page walked along the index of the order's first key: runs of one value are sorted
/// by the whole order; tasks whose value is null come last.
fn walk<'a>(
    collection: &'a Collection,
    scope: &Scope<'_>,
    order: &OrderBy,
    after: Option<&Position>,
    take: usize,
) -> Vec<&'a Arc<Record>> {
    let first = order.keys()[0];
    let is_after = |r: &Record| after.is_none_or(|p| order.compare_to(r, p).is_gt());
    let keeps = |r: &&'a Arc<Record>| is_after(r) && scope.keeps(r);
    let start = after.and_then(|p| p.values.first());
    let mut out: Vec<&'a Arc<Record>> = Vec::with_capacity(take);
    let mut run: Vec<&'a Arc<Record>> = Vec::new();
    let mut run_value = None;
    let flush = |run: &mut Vec<&'a Arc<Record>>, out: &mut Vec<&'a Arc<Record>>| {
        run.sort_unstable_by(|a, b| order.compare(a, b));
        out.extend(run.drain(..).take(take - out.len()));
    };
    let Some(entries) = walk_entries(collection, scope.query.include_deleted, first, start) else {
        return Vec::new();
    };
    for (value, key) in entries {
        if run_value != Some(value) {
            flush(&mut run, &mut out);
            if out.len() == take {
                return out;
            }
            run_value = Some(value);
        }
        let record = &collection.records[&key.id];
        if keeps(&record) {
            run.push(record);
        }
    }
    flush(&mut run, &mut out);
    if out.len() == take || first.key == SortKey::SortOrder {
        return out;
    }
    // The tasks whose first key is null: in id order when it is the only key.
    let field = first.key.field();
    let nulls = collection
        .records
        .values()
        .filter(|r| field.value(r) == Scalar::Null)
        .filter(keeps);
    if order.keys().len() == 1 {
        out.extend(nulls.take(take - out.len()));
    } else {
        let mut rest: Vec<&'a Arc<Record>> = nulls.collect();
        let room = take - out.len();
        in_order(
            &mut rest,
            room,
            |a, b| order.compare(a, b),
            |r| {
                out.push(*r);
                out.len() < take
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_bits_order_keys_as_their_sort_orders() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.5,
            3e300,
            f64::INFINITY,
        ];
        let key = |v: f64| OrderKey {
            sort_order: v,
            id: Id::from("t"),
        };
        for a in values {
            for b in values {
                assert_eq!(
                    key(a).sort_bits().cmp(&key(b).sort_bits()),
                    key(a).cmp(&key(b)),
                    "{a} against {b}"
                );
            }
        }
    }

    #[test]
    fn in_order_visits_the_smallest_first_and_stops_when_told() {
        let mut items: Vec<u32> = (0..1000).rev().collect();
        let mut seen = Vec::new();
        in_order(
            &mut items,
            3,
            |a, b| a.cmp(b),
            |x| {
                seen.push(*x);
                seen.len() < 50
            },
        );
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn a_time_range_maps_bounds_of_instants() {
        let key = |id: &str| OrderKey {
            sort_order: 1.0,
            id: Id::from(id),
        };
        let index: TimeIndex = [(1, key("a")), (2, key("b")), (2, key("c")), (3, key("d"))]
            .into_iter()
            .collect();
        let ids = |low, high| -> Vec<String> {
            time_range(&index, low, high)
                .map(|k| k.id.to_string())
                .collect()
        };
        assert_eq!(ids(Included(2), Included(2)), ["b", "c"]);
        assert_eq!(ids(Excluded(1), Excluded(3)), ["b", "c"]);
        assert_eq!(ids(Unbounded, Excluded(2)), ["a"]);
        assert_eq!(ids(Excluded(2), Unbounded), ["d"]);
        assert_eq!(ids(Included(3), Excluded(1)), Vec::<String>::new());
        assert_eq!(ids(Excluded(i64::MAX), Unbounded), Vec::<String>::new());
    }
}
