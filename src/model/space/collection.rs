//! The records of one kind in a space, with their indexes and the per-kind structures
//! (dependency graph, trees of subtasks, time fields, reminders, calendar names) kept in
//! step with them.

use std::sync::Arc;

use imbl::OrdSet;

use crate::model::deps::Graph;
use crate::model::error::SpaceError;
use crate::model::kind::Kind;
use crate::model::record::{Id, Record, Records};
use crate::model::time_fields::TimeFields;
use crate::model::tree::Tree;
use crate::model::vtodo::{CalendarFields, Objects};

use super::indexes::{Indexes, OrderKey};

/// The records of one kind in a space.
#[derive(Debug, Clone)]
pub(super) struct Collection {
    pub(super) kind: Kind,
    pub(super) records: Records,
    pub(super) indexes: Indexes,
    /// The dependency graph, for a kind whose records have predecessors (tasks).
    pub(super) graph: Option<Graph>,
    /// The index of children, for a kind whose records have a parent (tasks, docs §22).
    pub(super) tree: Option<Tree>,
    /// Where the kind keeps its time fields, when it has them (tasks).
    pub(super) times: Option<TimeFields>,
    /// The records with a reminder left to fire, by when the next one is due (see
    /// [`TimeFields::next_reminder`]).
    pub(super) reminders: OrdSet<(i64, Id)>,
    /// Where the kind keeps `completedAt` and its calendar data, when it has them (tasks).
    pub(super) calendar: Option<CalendarFields>,
    /// The records by the names calendar clients give them (tasks; empty for the others).
    pub(super) objects: Objects,
}

/// Where `record` sits among the records with a reminder to fire, if it does, for a kind
/// that keeps its time fields in `times`.
pub(super) fn reminder_key(times: Option<&TimeFields>, record: &Record) -> Option<(i64, Id)> {
    let at = times?.next_reminder(record)?;
    Some((at, record.id.clone()))
}

impl Collection {
    pub(super) fn new(kind: Kind) -> Collection {
        Collection {
            kind,
            records: Records::new(),
            indexes: Indexes::new(kind),
            graph: Graph::of(kind),
            tree: Tree::of(kind),
            times: TimeFields::of(kind),
            reminders: OrdSet::new(),
            calendar: CalendarFields::of(kind),
            objects: Objects::default(),
        }
    }

    /// Where `record` sits among the records with a reminder to fire, if it does.
    pub(super) fn reminder_key(&self, record: &Record) -> Option<(i64, Id)> {
        reminder_key(self.times.as_ref(), record)
    }

    pub(super) fn get(&self, id: &str) -> Result<&Arc<Record>, SpaceError> {
        self.records.get(id).ok_or_else(|| SpaceError::NotFound {
            kind: self.kind,
            id: id.to_string(),
        })
    }

    /// Puts `record` in place of the record with its id (or removes `id` when `None`),
    /// keeping the indexes in step; returns the record it replaced.
    pub(super) fn put(&mut self, id: &str, record: Option<Arc<Record>>) -> Option<Arc<Record>> {
        let old = match &record {
            Some(record) => self.records.insert(record.id.clone(), Arc::clone(record)),
            None => self.records.remove(id),
        };
        if let Some(old) = &old {
            self.indexes.remove(old);
            if let Some(key) = self.reminder_key(old) {
                self.reminders.remove(&key);
            }
        }
        let new = record.as_ref();
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
        if let Some(tree) = &mut self.tree {
            tree.relink(old.as_deref(), new.map(|r| &**r), &self.records);
        }
        if let Some(fields) = &self.calendar {
            self.objects
                .replace(fields, old.as_deref(), new.map(|r| &**r));
        }
        old
    }

    /// The sort order a new record gets when none is given: 1 + the largest, or 1.
    pub(super) fn next_sort_order(&self) -> f64 {
        self.indexes.last().map_or(1.0, |k| k.sort_order + 1.0)
    }

    /// Whether `id` names a record that is not deleted.
    pub(super) fn is_active(&self, id: &str) -> bool {
        self.records.get(id).is_some_and(|r| !r.is_deleted())
    }
}
