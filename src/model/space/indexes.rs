//! The ordered indexes of a collection (listing order, exclusive flags) and the packed
//! bulk builds of persistent sets and maps. The exact-match fields of tasks are posting
//! lists of [`super::find`].

use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

use imbl::{OrdMap, OrdSet};
use itertools::Itertools;

use crate::model::kind::{FieldType, Kind};
use crate::model::record::{Id, Record, Value};
use crate::threads::beside;

use super::find::TaskIndexes;
use super::restore::{Restore, PARALLEL_LOAD};

/// The set of `sorted` (ascending and distinct), with full nodes. An imbl node that is full
/// splits in the middle, so inserting in order leaves every node of a bulk build half
/// empty; inserting every other element first and then the rest fills the gaps, and the
/// set takes about half the memory.
pub(super) fn packed_set<A: Ord + Clone>(sorted: Vec<A>) -> OrdSet<A> {
    let (even, odd) = halves(sorted);
    let mut set = OrdSet::new();
    for a in even.into_iter().chain(odd) {
        set.insert(a);
    }
    set
}

/// The map of `sorted` (keys ascending and distinct), with full nodes as in [`packed_set`].
pub(super) fn packed_map<K: Ord + Clone, V: Clone>(sorted: Vec<(K, V)>) -> OrdMap<K, V> {
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
pub(super) struct OrderKey {
    pub(super) sort_order: f64,
    pub(super) id: Id,
}

impl OrderKey {
    pub(super) fn of(record: &Record) -> OrderKey {
        OrderKey {
            sort_order: record.sort_order,
            id: record.id.clone(),
        }
    }

    /// The sort order as an integer in the same order as [`Ord`] puts the keys (IEEE 754
    /// total order): keys whose values differ compare as these do.
    pub(super) fn sort_bits(&self) -> u64 {
        let bits = self.sort_order.to_bits();
        match bits >> 63 {
            1 => !bits,
            _ => bits | 1 << 63,
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

/// The ordered indexes of one collection, kept in step with its records.
#[derive(Debug, Default, Clone)]
pub(super) struct Indexes {
    /// Records that are not deleted, for the default listing.
    pub(super) active: OrdSet<OrderKey>,
    /// Records that are deleted: with `active`, every record ([`Indexes::listing`]).
    deleted: OrdSet<OrderKey>,
    /// For each exclusive flag (by position), the ids of records that have it set: at
    /// most one once a write completes, so clearing it elsewhere needs no scan.
    pub(super) flagged: Vec<(usize, OrdSet<Id>)>,
    /// The indexes of docs §17, for tasks. Boxed: inline, they made every collection
    /// of every space 328 bytes larger, a loaded idle space 2 KB larger.
    pub(super) tasks: Option<Box<TaskIndexes>>,
}

impl Indexes {
    pub(super) fn new(kind: Kind) -> Indexes {
        Indexes {
            flagged: (kind.fields().iter().enumerate())
                .filter(|(_, f)| f.ty == FieldType::ExclusiveFlag)
                .map(|(at, _)| (at, OrdSet::new()))
                .collect(),
            tasks: (kind == Kind::Task).then(|| Box::new(TaskIndexes::new())),
            ..Indexes::default()
        }
    }

    /// The indexes of `records`, built from sorted runs rather than one insert at a time
    /// (a bulk build is several times faster when a large space is loaded).
    /// The task indexes take the posting lists of a snapshot's image through `restore`
    /// when they fit ([`TaskIndexes::restore`]).
    pub(super) fn build(kind: Kind, records: &[Arc<Record>], restore: Option<Restore>) -> Indexes {
        let mut keyed: Vec<(OrderKey, &Record)> =
            records.iter().map(|r| (OrderKey::of(r), &**r)).collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let parallel = records.len() >= PARALLEL_LOAD;
        let build_tasks = |keyed: &[(OrderKey, &Record)]| {
            let restored = restore
                .and_then(|r| TaskIndexes::restore(keyed, r.records, r.image, r.changed, parallel));
            restored.unwrap_or_else(|| TaskIndexes::build(keyed, parallel))
        };
        let tasks = (kind == Kind::Task).then_some(&keyed);
        std::thread::scope(|scope| {
            // The task indexes of a large collection build beside the others.
            let tasks = tasks.map(|keyed| beside(scope, parallel, move || build_tasks(keyed)));
            let mut indexes = Indexes::build_listing(kind, &keyed);
            indexes.tasks = tasks.map(|tasks| Box::new(tasks.value()));
            indexes
        })
    }

    /// The listing indexes of `keyed`, the records with their keys in listing order.
    pub(super) fn build_listing(kind: Kind, keyed: &[(OrderKey, &Record)]) -> Indexes {
        let mut indexes = Indexes::new(kind);
        for (field, ids) in &mut indexes.flagged {
            let mut flagged: Vec<Id> = (keyed.iter())
                .filter(|(_, r)| r.fields[*field] == Value::Bool(true))
                .map(|(_, r)| r.id.clone())
                .collect();
            flagged.sort_unstable();
            *ids = packed_set(flagged);
        }
        let (deleted, active): (Vec<_>, Vec<_>) = (keyed.iter())
            .map(|(key, record)| (key.clone(), record.is_deleted()))
            .partition(|(_, deleted)| *deleted);
        indexes.active = packed_set(active.into_iter().map(|(key, _)| key).collect());
        indexes.deleted = packed_set(deleted.into_iter().map(|(key, _)| key).collect());
        indexes
    }

    pub(super) fn add(&mut self, record: &Record) {
        let key = OrderKey::of(record);
        for (field, ids) in &mut self.flagged {
            if record.fields[*field] == Value::Bool(true) {
                ids.insert(record.id.clone());
            }
        }
        match record.is_deleted() {
            true => self.deleted.insert(key),
            false => self.active.insert(key),
        };
    }

    pub(super) fn remove(&mut self, record: &Record) {
        let key = OrderKey::of(record);
        for (_, ids) in &mut self.flagged {
            ids.remove(&record.id);
        }
        match record.is_deleted() {
            true => self.deleted.remove(&key),
            false => self.active.remove(&key),
        };
    }

    /// Keys after `after` in listing order, of deleted records too when `include_deleted`:
    /// a superset of a listing's records, which the caller tests with its filters.
    pub(super) fn walk(
        &self,
        include_deleted: bool,
        after: Option<OrderKey>,
    ) -> Box<dyn Iterator<Item = &OrderKey> + '_> {
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.listing(include_deleted, (from, Bound::Unbounded), false)
    }

    /// The keys within `range` in listing order (reversed when `descending`), of deleted
    /// records too when `include_deleted`; the bounds must be in order.
    pub(super) fn listing(
        &self,
        include_deleted: bool,
        range: (Bound<OrderKey>, Bound<OrderKey>),
        descending: bool,
    ) -> Box<dyn Iterator<Item = &OrderKey> + '_> {
        let active = self.active.range(range.clone());
        match (include_deleted, descending) {
            (false, false) => Box::new(active),
            (false, true) => Box::new(active.rev()),
            (true, false) => Box::new(active.merge(self.deleted.range(range))),
            (true, true) => {
                Box::new((active.rev()).merge_by(self.deleted.range(range).rev(), |a, b| a > b))
            }
        }
    }

    /// The last key in listing order, of deleted records too.
    pub(super) fn last(&self) -> Option<&OrderKey> {
        self.active.get_max().max(self.deleted.get_max())
    }
}
