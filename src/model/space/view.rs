//! The published state of a space at one version ([`SpaceView`]), for readers and the
//! snapshot actor.

use std::sync::Arc;

use crate::model::kind::Kind;
use crate::model::record::Records;

use super::commands::Undo;
use super::find::TaskIndexes;
use super::image::{PostingsOut, TaskImage};
use super::indexes::OrderKey;
use super::{Space, SpaceSnapshot};

/// A space's state at one version, sharing records and map nodes with the space: what the
/// snapshot actor encodes while the space goes on serving.
#[derive(Debug, Clone)]
pub struct SpaceView {
    /// The space id.
    pub id: Box<str>,
    /// The space version.
    pub version: u64,
    /// The highest version durably reserved (see [`SpaceSnapshot::reserved`]).
    pub reserved: u64,
    /// The records of each kind, in [`Kind::ALL`] order.
    pub collections: [Records; Kind::ALL.len()],
    /// The task indexes, kept in step with the task records: their posting lists go into
    /// the snapshot ([`SpaceView::postings`]).
    tasks: Option<Box<TaskIndexes>>,
}

impl PartialEq for SpaceView {
    /// Two views are equal when their state is (see [`SpaceSnapshot`]'s `eq`).
    fn eq(&self, other: &Self) -> bool {
        (self.id == other.id && self.version == other.version)
            && (self.reserved == other.reserved && self.collections == other.collections)
    }
}

impl SpaceView {
    /// Takes back the write `undo` came from (the newest one not yet taken back).
    pub fn revert(&mut self, undo: &Undo) {
        for (kind, id, before) in undo.before.iter().rev() {
            let records = &mut self.collections[kind.index()];
            let now = match before {
                Some(record) => records.insert(id.clone(), Arc::clone(record)),
                None => records.remove(id),
            };
            if let (Kind::Task, Some(tasks)) = (kind, &mut self.tasks) {
                let (now_key, before_key) = (
                    now.as_deref().map(OrderKey::of),
                    before.as_deref().map(OrderKey::of),
                );
                tasks.replace_postings(
                    now.as_deref().zip(now_key.as_ref()),
                    before.as_deref().zip(before_key.as_ref()),
                );
            }
        }
        self.version = undo.base;
    }

    /// The task posting lists, for the snapshot file; `None` when they do not cover the
    /// task records (a space still loading).
    pub fn postings(&self) -> Option<PostingsOut<'_>> {
        let tasks = self.tasks.as_ref()?;
        let covers = tasks.task_count() == self.collections[Kind::Task.index()].len();
        covers.then_some(PostingsOut(tasks))
    }
}

impl From<SpaceView> for SpaceSnapshot {
    /// The snapshot file's contents of `view`: its records of each kind, and the task
    /// posting lists.
    fn from(view: SpaceView) -> SpaceSnapshot {
        let tasks = view.postings().map(|postings| TaskImage::of(postings.0));
        SpaceSnapshot {
            id: view.id,
            version: view.version,
            reserved: view.reserved,
            collections: Kind::ALL
                .into_iter()
                .zip(view.collections)
                .map(|(kind, records)| (kind, records.values().cloned().collect()))
                .collect(),
            tasks,
        }
    }
}

impl Space {
    /// The whole state at the current version, in O(1): see [`SpaceView`]. Its
    /// reservation is the version; the actor raises it to what it has reserved.
    pub fn view(&self) -> SpaceView {
        SpaceView {
            id: self.id.clone(),
            version: self.version,
            reserved: self.version,
            collections: self.collections.each_ref().map(|c| c.records.clone()),
            tasks: self.collection(Kind::Task).indexes.tasks.clone(),
        }
    }
}
