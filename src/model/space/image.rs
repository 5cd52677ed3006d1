//! The task posting lists a snapshot file carries (format 12), so that a load takes them
//! rather than folding every task's words again.
//!
//! The posting lists ([`super::postings`]) are derived from the records: the tasks by the
//! filter key of each exact-match field, by tag and by folded word. Building them again at
//! start-up was most of a large space's restart (about 1.8 s of 3.5 at 1,000,000 tasks),
//! so a snapshot saves them as they are, with each task's handle, and a load checks and
//! keeps them. The journal's writes after the snapshot are then applied to them in bulk,
//! each term changed once ([`super::find::TaskIndexes::restore`]); a load rebuilds them
//! instead when the journal changed more than half the tasks, or when the image does not
//! fit the records (a file of another build, or handles spread far beyond the tasks).
//!
//! What is saved is exactly what a build would hold, handles aside: any set of distinct
//! handles serves, so a load keeps the writer's.

use std::sync::Arc;

use crate::model::record::{Id, Record};

use super::find::TaskIndexes;
use super::postings::{Handle, Terms, TermsImage};

/// A task collection's posting lists, as a snapshot file carries them: each task's handle
/// in the order of the snapshot's task records (by id), then the lists in the order
/// [`TaskImage::LISTS`] names.
#[derive(Debug, Clone, Default)]
pub struct TaskImage {
    handles: Vec<Handle>,
    lists: Vec<Terms>,
    /// The largest handle in `handles` and `lists`.
    max: Option<Handle>,
}

impl TaskImage {
    /// The lists an image holds, in this order: the exact-match task fields of docs §6 in
    /// table order (`status`, `listId`, `contextId`, `isBlocked`, `parentId`), the tags,
    /// the folded words of name and notes ([`crate::model::query::search`]).
    pub const LISTS: usize = 7;

    /// The image of `handles` (one a task, in the snapshot's record order) and `lists`
    /// ([`TaskImage::LISTS`] of them); whether they fit the records is checked when the
    /// space loads.
    pub fn new(handles: Vec<Handle>, lists: Vec<TermsImage>) -> TaskImage {
        let max = (lists.iter().filter_map(TermsImage::max))
            .chain(handles.iter().copied())
            .max();
        TaskImage {
            handles,
            lists: lists.into_iter().map(TermsImage::into_terms).collect(),
            max,
        }
    }

    /// The image of a collection's indexes, sharing their lists.
    pub(super) fn of(indexes: &TaskIndexes) -> TaskImage {
        let (handles, lists) = indexes.image();
        TaskImage {
            handles: handles.collect(),
            max: (indexes.handle_count().checked_sub(1)).and_then(|max| Handle::try_from(max).ok()),
            lists: lists.cloned().collect(),
        }
    }

    /// The image with each handle given to its task: `ids` are the snapshot's task
    /// records' ids in its order; `None` when their number differs from the handles'.
    pub(super) fn resolve(self, ids: impl ExactSizeIterator<Item = Id>) -> Option<Restored> {
        (ids.len() == self.handles.len()).then(|| Restored {
            handles: ids.zip(self.handles).collect(),
            lists: self.lists,
            max: self.max,
        })
    }
}

/// A [`TaskImage`] given to the snapshot's tasks, while the journal is replayed over them.
#[derive(Debug, Clone, Default)]
pub(super) struct Restored {
    /// Each task of the snapshot with its handle, by id.
    pub(super) handles: Vec<(Id, Handle)>,
    /// The lists, in [`TaskImage::LISTS`] order.
    pub(super) lists: Vec<Terms>,
    /// The largest handle.
    pub(super) max: Option<Handle>,
}

/// The posting lists of a [`super::SpaceView`]'s tasks, for a snapshot file's writer.
#[derive(Debug, Clone, Copy)]
pub struct PostingsOut<'a>(pub(super) &'a TaskIndexes);

impl<'a> PostingsOut<'a> {
    /// How many tasks there are: the number of [`PostingsOut::handles`].
    pub fn task_count(&self) -> usize {
        self.0.task_count()
    }

    /// Each task's handle, by task id: the order of the view's task records.
    pub fn handles(&self) -> impl Iterator<Item = Handle> + 'a {
        self.0.image().0
    }

    /// The lists, in [`TaskImage::LISTS`] order.
    pub fn lists(&self) -> impl Iterator<Item = ListOut<'a>> + 'a {
        self.0.image().1.map(ListOut)
    }
}

/// One posting list of a [`PostingsOut`].
#[derive(Debug, Clone, Copy)]
pub struct ListOut<'a>(&'a Terms);

impl<'a> ListOut<'a> {
    /// How many terms it has.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no term.
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// Each term, ascending, with its handles, ascending.
    pub fn terms(&self) -> impl Iterator<Item = (&'a str, impl Iterator<Item = Handle> + 'a)> {
        self.0
            .iter()
            .map(|(term, postings)| (term, postings.iter()))
    }
}

/// The snapshot states of the tasks the journal changed during a load, by id (`None`: not
/// in the snapshot).
pub(super) type Changed = std::collections::BTreeMap<Id, Option<Arc<Record>>>;
