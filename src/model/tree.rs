//! Subtasks (docs §22): `parentId`, the index of children that keeps the rules of trees
//! cheap, and the cascades a write of a task makes to its descendants.
//!
//! A [`Tree`] belongs to a collection whose kind has a reference to its own kind (tasks'
//! `parentId`). It holds every edge, parent → child, deleted children included, and how
//! many children that are not deleted each parent has; the collection keeps both in step
//! on every record it puts (a write, its undo, a journal replay) and rebuilds them when a
//! snapshot is loaded. With it:
//!
//! - a write that sets `parentId` walks up from the new parent (at most
//!   [`TREE_MAX_DEPTH`] tasks: the chain of a task that is not deleted is never longer) to
//!   refuse a cycle and to measure the depth, down the moved task's subtree (only as far
//!   as the depth allows) for its height, and reads the parent's count of children. A
//!   write that does not set `parentId` checks nothing;
//! - a write that deletes, restores, moves to another list or rolls (docs §18) a task
//!   walks its subtree through the index, visiting each descendant once, and changes the
//!   descendants the rule names; each is a change of its own in the same write and
//!   version, like the `isBlocked` flips of `model::deps`. A write that does none of these
//!   walks nothing.
//!
//! The trees hold an invariant the rules keep: every ancestor of a task that is not deleted
//! is not deleted (a delete takes the subtree; a create, a move and a restore need a
//! parent that is not deleted). So the descendants of a deleted task are all deleted, and
//! no write can close a cycle through deleted tasks either.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

use imbl::{OrdMap, OrdSet};

use super::deps::is_finished_status;
use super::error::SpaceError;
use super::kind::{FieldType, Kind};
use super::limits::{TREE_MAX_CHILDREN, TREE_MAX_DEPTH};
use super::record::{Id, Record, Records, Value};

/// Where a kind keeps what trees read: positions in its field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeFields {
    /// `parentId`: the reference to the kind itself.
    pub parent: usize,
    /// `listId`: descendants follow their root's list.
    pub list: usize,
    /// `status`: a roll reopens finished descendants.
    pub status: usize,
}

impl TreeFields {
    /// The tree fields of `kind`, when its records reference records of their own kind.
    pub fn of(kind: Kind) -> Option<TreeFields> {
        Some(TreeFields {
            parent: kind.field_of_type(FieldType::Ref(kind))?,
            list: kind.field_index("listId")?,
            status: kind.field_index("status")?,
        })
    }

    /// The parent `record` names, if any.
    pub fn parent<'r>(&self, record: &'r Record) -> Option<&'r str> {
        record.fields[self.parent].as_text()
    }
}

/// The trees of one collection: their fields and the index of children.
#[derive(Debug, Clone)]
pub struct Tree {
    fields: TreeFields,
    /// Every edge as (parent, child), deleted children included: the children of a record
    /// are a range of this set.
    edges: OrdSet<(Id, Id)>,
    /// How many children that are not deleted each parent has (absent: none).
    active: OrdMap<Id, usize>,
}

impl Tree {
    /// An empty tree index of `kind`, when its records have a parent.
    pub fn of(kind: Kind) -> Option<Tree> {
        TreeFields::of(kind).map(|fields| Tree {
            fields,
            edges: OrdSet::new(),
            active: OrdMap::new(),
        })
    }

    /// The fields the tree reads.
    pub fn fields(&self) -> &TreeFields {
        &self.fields
    }

    /// Rebuilds the index from every record of the collection (after a snapshot is
    /// loaded).
    pub fn rebuild(&mut self, records: &Records) {
        self.edges = OrdSet::new();
        self.active = OrdMap::new();
        for record in records.values() {
            self.link(record, records);
        }
    }

    /// Keeps the index in step when a record goes from `old` to `new` (`None`: absent);
    /// `records` is the collection after the change, to share ids with. A write that
    /// changes neither the parent nor whether the record is deleted costs one comparison.
    pub fn relink(&mut self, old: Option<&Record>, new: Option<&Record>, records: &Records) {
        let fields = self.fields;
        let same = |a: &Record, b: &Record| {
            fields.parent(a) == fields.parent(b) && a.is_deleted() == b.is_deleted()
        };
        if match (old, new) {
            (Some(a), Some(b)) => same(a, b),
            (None, None) => true,
            _ => false,
        } {
            return;
        }
        if let Some(old) = old {
            self.unlink(old);
        }
        if let Some(new) = new {
            self.link(new, records);
        }
    }

    fn link(&mut self, record: &Record, records: &Records) {
        let Some(parent) = self.fields.parent(record) else {
            return;
        };
        let parent = records
            .get(parent)
            .map_or_else(|| Id::from(parent), |p| p.id.clone());
        if !record.is_deleted() {
            *self.active.entry(parent.clone()).or_default() += 1;
        }
        self.edges.insert((parent, record.id.clone()));
    }

    fn unlink(&mut self, record: &Record) {
        let Some(parent) = self.fields.parent(record) else {
            return;
        };
        let parent = Id::from(parent);
        if !record.is_deleted() {
            if let Some(count) = self.active.get_mut(&parent) {
                *count -= 1;
                if *count == 0 {
                    self.active.remove(&parent);
                }
            }
        }
        self.edges.remove(&(parent, record.id.clone()));
    }

    /// The children of `id`, deleted ones included, in id order.
    pub fn children<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Id> + 'a {
        let from = (Id::from(id), Id::from(""));
        self.edges
            .range((Bound::Included(from), Bound::Unbounded))
            .take_while(move |(p, _)| **p == *id)
            .map(|(_, c)| c)
    }

    /// How many children of `id` are not deleted.
    pub fn active_children(&self, id: &str) -> usize {
        self.active.get(id).copied().unwrap_or(0)
    }

    /// Whether the subtree below `id` holds more than `n` records, counting at most `n + 1`.
    pub fn has_more_descendants(&self, id: &str, n: usize) -> bool {
        let mut queue: VecDeque<&Id> = self.children(id).collect();
        let mut seen = 0;
        while let Some(next) = queue.pop_front() {
            seen += 1;
            if seen > n {
                return true;
            }
            queue.extend(self.children(next));
        }
        false
    }

    /// `id` and its ancestors, nearest first, as far as they exist. At most as many steps
    /// as the collection has records, so even a damaged chain ends.
    fn chain<'a>(
        &'a self,
        records: &'a Records,
        id: &'a str,
    ) -> impl Iterator<Item = &'a Record> + 'a {
        let mut next = records.get(id);
        std::iter::from_fn(move || {
            let record = next.take()?;
            next = self.fields.parent(record).and_then(|p| records.get(p));
            Some(&**record)
        })
        .take(records.len())
    }

    /// The descendants of `id` that `descend` accepts, breadth first, each once: the walk
    /// goes below a descendant only when it accepts it.
    fn walk<'r>(
        &self,
        records: &'r Records,
        id: &str,
        descend: impl Fn(&Record) -> bool,
    ) -> Vec<&'r Arc<Record>> {
        let mut out: Vec<&Arc<Record>> = Vec::new();
        let mut queue: VecDeque<Id> = self.children(id).cloned().collect();
        while let Some(next) = queue.pop_front() {
            let Some(record) = records.get(&next) else {
                continue;
            };
            if out.len() >= records.len() || !descend(record) {
                continue;
            }
            queue.extend(self.children(&record.id).cloned());
            out.push(record);
        }
        out
    }

    /// How many levels the subtree of `root` has (the root is one), counting the records
    /// `descend` accepts and stopping once it is over `max`.
    fn height(
        &self,
        records: &Records,
        root: &str,
        max: usize,
        descend: impl Fn(&Record) -> bool,
    ) -> usize {
        let mut level: Vec<Id> = vec![Id::from(root)];
        let mut height = 0;
        while !level.is_empty() && height <= max {
            height += 1;
            level = level
                .iter()
                .flat_map(|id| self.children(id))
                .filter(|c| records.get(&**c).is_some_and(|r| descend(r)))
                .cloned()
                .collect();
        }
        height
    }

    /// Refuses `changes` to record `id` of `kind` (now `current`, `None` when it is being
    /// created) when the `parentId` they set to another parent names `id` itself or one of
    /// its descendants, would make a chain of parents longer than [`TREE_MAX_DEPTH`]
    /// anywhere in the moved subtree, or would give the parent more than
    /// [`TREE_MAX_CHILDREN`] children that are not deleted. A parent that does not exist
    /// or is deleted is left to the check of references (`invalid_reference`).
    pub fn check(
        &self,
        kind: Kind,
        records: &Records,
        current: Option<&Record>,
        id: &str,
        changes: &[(usize, Value)],
    ) -> Result<(), SpaceError> {
        let Some((_, Value::Text(parent))) = changes.iter().find(|(f, _)| *f == self.fields.parent)
        else {
            return Ok(());
        };
        if current.and_then(|c| self.fields.parent(c)) == Some(&**parent) {
            return Ok(());
        }
        let mut depth = 0;
        let above = self.chain(records, parent).skip(1).map(|r| &*r.id);
        for ancestor in std::iter::once(&**parent).chain(above) {
            if ancestor == id {
                return Err(SpaceError::ParentCycle {
                    kind,
                    id: id.to_string(),
                    parent: parent.to_string(),
                });
            }
            depth += 1;
        }
        if records.get(&**parent).is_none_or(|p| p.is_deleted()) {
            return Ok(());
        }
        let height = match current {
            Some(current) => self.height(
                records,
                &current.id,
                TREE_MAX_DEPTH.saturating_sub(depth),
                |r| !r.is_deleted(),
            ),
            None => 1,
        };
        self.fits(kind, id, parent, depth, height)
    }

    /// Refuses to restore `record` of `kind` (deleted) with the descendants deleted by the
    /// same write when its parent is deleted, or when its parent would get more than
    /// [`TREE_MAX_CHILDREN`] children that are not deleted or a chain through the restored
    /// subtree would be longer than [`TREE_MAX_DEPTH`].
    pub fn check_restore(
        &self,
        kind: Kind,
        records: &Records,
        record: &Record,
    ) -> Result<(), SpaceError> {
        let Some(parent) = self.fields.parent(record).and_then(|p| records.get(p)) else {
            return Ok(());
        };
        if parent.is_deleted() {
            return Err(SpaceError::ParentDeleted {
                kind,
                id: record.id.to_string(),
                parent: parent.id.to_string(),
            });
        }
        let depth = self.chain(records, &parent.id).count();
        let deleted_at = record.deleted_at();
        let height = self.height(
            records,
            &record.id,
            TREE_MAX_DEPTH.saturating_sub(depth),
            |r| r.deleted_at() == deleted_at,
        );
        self.fits(kind, &record.id, &parent.id, depth, height)
    }

    /// Whether a subtree `height` levels high fits below `parent`, `depth` tasks from its
    /// root, as a new child.
    fn fits(
        &self,
        kind: Kind,
        id: &str,
        parent: &str,
        depth: usize,
        height: usize,
    ) -> Result<(), SpaceError> {
        if depth + height > TREE_MAX_DEPTH {
            return Err(SpaceError::TooDeep {
                kind,
                id: id.to_string(),
                depth: depth + height,
                max: TREE_MAX_DEPTH,
            });
        }
        if self.active_children(parent) >= TREE_MAX_CHILDREN {
            return Err(SpaceError::TooManyChildren {
                kind,
                parent: parent.to_string(),
                max: TREE_MAX_CHILDREN,
            });
        }
        Ok(())
    }

    /// The late link (docs §22): the tasks of `waiting`, roots that wait for the `UID` of
    /// `parent`, a record being created, that it takes as children, each in its new state
    /// (`parentId` set, not yet touched). In `waiting`'s order, a task is taken when it is
    /// not deleted and linking it keeps the rules: it is not `parent` or one of its
    /// ancestors (a cycle), no chain through its subtree gets longer than
    /// [`TREE_MAX_DEPTH`], and `parent` gets at most [`TREE_MAX_CHILDREN`] children that
    /// are not deleted. A task left out is not refused: it stays a root and keeps waiting.
    pub fn adopt<'a>(
        &self,
        records: &Records,
        parent: &Record,
        waiting: impl Iterator<Item = &'a Id>,
    ) -> Vec<Record> {
        let above: Vec<&str> = match self.fields.parent(parent) {
            Some(grand) => self.chain(records, grand).map(|r| &*r.id).collect(),
            None => Vec::new(),
        };
        let depth = above.len() + 1;
        let mut children = self.active_children(&parent.id);
        let mut adopted = Vec::new();
        for id in waiting {
            if children >= TREE_MAX_CHILDREN {
                break;
            }
            let Some(child) = records.get(id).filter(|c| !c.is_deleted()) else {
                continue;
            };
            if child.id == parent.id || above.contains(&&*child.id) {
                continue;
            }
            let room = TREE_MAX_DEPTH.saturating_sub(depth);
            if depth + self.height(records, &child.id, room, |r| !r.is_deleted()) > TREE_MAX_DEPTH {
                continue;
            }
            let mut child = Record::clone(child);
            child.fields[self.fields.parent] = Value::Text((*parent.id).into());
            adopted.push(child);
            children += 1;
        }
        adopted
    }

    /// On create: a new child whose create names no `listId` takes its parent's.
    pub fn inherit_list(&self, records: &Records, record: &mut Record, changes: &[(usize, Value)]) {
        if changes.iter().any(|(f, _)| *f == self.fields.list) {
            return;
        }
        if let Some(parent) = self.fields.parent(record).and_then(|p| records.get(p)) {
            record.fields[self.fields.list] = parent.fields[self.fields.list].clone();
        }
    }

    /// The descendants a write taking a record from `before` to `after` changes, in their
    /// new state (not yet touched): when it deletes the record, its descendants that are
    /// not deleted, with its `deletedAt`; when it restores it, those deleted by the same
    /// write (the walk goes on only below them); when it changes the `listId`, every
    /// descendant that had the old one, deleted ones included, gets the new one; when it
    /// `rolled` a series (docs §18), every descendant that is not deleted and has a
    /// finished `status` gets `status` null. `records` is the collection before the write.
    pub fn cascade(
        &self,
        records: &Records,
        before: &Record,
        after: &Record,
        rolled: bool,
    ) -> Vec<Record> {
        let id = &*after.id;
        let with = |walked: Vec<&Arc<Record>>, change: &dyn Fn(&mut Record)| -> Vec<Record> {
            walked
                .into_iter()
                .map(|r| {
                    let mut r = Record::clone(r);
                    change(&mut r);
                    r
                })
                .collect()
        };
        match (before.deleted_at(), after.deleted_at()) {
            (None, Some(at)) => with(self.walk(records, id, |r| !r.is_deleted()), &|r| {
                r.set_deleted_at(Some(at));
            }),
            (Some(at), None) => with(
                self.walk(records, id, |r| r.deleted_at() == Some(at)),
                &|r| r.set_deleted_at(None),
            ),
            _ => {
                let list = self.fields.list;
                let old_list = &before.fields[list];
                let moved = *old_list != after.fields[list];
                if !moved && !rolled {
                    return Vec::new();
                }
                let status = self.fields.status;
                let reopens = |r: &Record| {
                    rolled
                        && !r.is_deleted()
                        && r.fields[status].as_text().is_some_and(is_finished_status)
                };
                self.walk(records, id, |r| moved || !r.is_deleted())
                    .into_iter()
                    .filter(|r| (moved && r.fields[list] == *old_list) || reopens(r))
                    .map(|r| {
                        let mut changed = Record::clone(r);
                        if moved && r.fields[list] == *old_list {
                            changed.fields[list] = after.fields[list].clone();
                        }
                        if reopens(r) {
                            changed.fields[status] = Value::Null;
                        }
                        changed
                    })
                    .collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::space::{Command, Op, Outcome, Space};
    use crate::model::validate::{parse_changes, Mode};
    use serde_json::json;

    fn write(space: &mut Space, id: &str, op: Op, now: i64) -> Result<Outcome, SpaceError> {
        let command = Command {
            kind: Kind::Task,
            id: id.into(),
            op,
            if_match: None,
        };
        space
            .apply(&[command], now)
            .map(|(outcome, _)| outcome)
            .map_err(|(_, e)| e)
    }

    fn body(mode: Mode, json: serde_json::Value) -> crate::model::Changes {
        parse_changes(Kind::Task, mode, json.as_object().unwrap().clone()).unwrap()
    }

    fn create(space: &mut Space, id: &str, json: serde_json::Value) -> Result<Outcome, SpaceError> {
        write(space, id, Op::Create(body(Mode::Create, json)), 1_000)
    }

    fn update(space: &mut Space, id: &str, json: serde_json::Value) -> Result<Outcome, SpaceError> {
        write(space, id, Op::Update(body(Mode::Update, json)), 2_000)
    }

    fn field(space: &Space, id: &str, name: &str) -> Value {
        let record = space.get(Kind::Task, id).unwrap().record;
        record.fields[Kind::Task.field_index(name).unwrap()].clone()
    }

    fn touched(outcome: &Outcome) -> Vec<String> {
        outcome.touched().map(|t| t.record.id.to_string()).collect()
    }

    /// A chain `prefix0 <- prefix1 <- ...` of `n` tasks, the first a root.
    fn chain(space: &mut Space, prefix: &str, n: usize) {
        for i in 0..n {
            let parent = (i > 0).then(|| format!("{prefix}{}", i - 1));
            create(space, &format!("{prefix}{i}"), json!({"parentId": parent})).unwrap();
        }
    }

    #[test]
    fn a_parent_that_is_the_task_or_a_descendant_is_a_cycle() {
        let mut space = Space::new("s");
        let err = create(&mut space, "a", json!({"parentId": "a"})).unwrap_err();
        assert!(matches!(err, SpaceError::ParentCycle { .. }), "{err:?}");
        chain(&mut space, "t", 3);
        for parent in ["t0", "t1", "t2"] {
            let err = update(&mut space, "t0", json!({"parentId": parent})).unwrap_err();
            assert!(matches!(err, SpaceError::ParentCycle { .. }), "{err:?}");
        }
        let err = create(&mut space, "b", json!({"parentId": "nope"})).unwrap_err();
        assert!(matches!(err, SpaceError::InvalidReference { .. }));
        assert_eq!(space.version(), 3, "refused writes changed nothing");
        // The same parent again is no move and checks nothing.
        update(&mut space, "t2", json!({"parentId": "t1"})).unwrap();
    }

    #[test]
    fn a_chain_holds_eight_tasks_counted_over_the_moved_subtree() {
        let mut space = Space::new("s");
        chain(&mut space, "a", TREE_MAX_DEPTH);
        let err = create(&mut space, "x", json!({"parentId": "a7"})).unwrap_err();
        assert!(
            matches!(err, SpaceError::TooDeep { depth: 9, .. }),
            "{err:?}"
        );
        // A subtree of 3 levels: below a5 (the 6th) it would make a chain of 9.
        chain(&mut space, "b", 3);
        let err = update(&mut space, "b0", json!({"parentId": "a5"})).unwrap_err();
        assert!(
            matches!(err, SpaceError::TooDeep { depth: 9, .. }),
            "{err:?}"
        );
        update(&mut space, "b0", json!({"parentId": "a4"})).unwrap();
        // Deleted tasks do not count: delete b2, then b0 fits one level deeper.
        update(&mut space, "b0", json!({"parentId": null})).unwrap();
        write(&mut space, "b2", Op::SetDeleted(true), 3_000).unwrap();
        update(&mut space, "b0", json!({"parentId": "a5"})).unwrap();
        // Restoring b2 would make a chain of 9.
        let err = write(&mut space, "b2", Op::SetDeleted(false), 4_000).unwrap_err();
        assert!(matches!(err, SpaceError::TooDeep { .. }), "{err:?}");
    }

    #[test]
    fn a_parent_has_at_most_a_thousand_children_that_are_not_deleted() {
        let mut space = Space::new("s");
        create(&mut space, "p", json!({})).unwrap();
        for i in 0..TREE_MAX_CHILDREN {
            create(&mut space, &format!("c{i}"), json!({"parentId": "p"})).unwrap();
        }
        let err = create(&mut space, "more", json!({"parentId": "p"})).unwrap_err();
        assert!(matches!(err, SpaceError::TooManyChildren { .. }), "{err:?}");
        create(&mut space, "more", json!({})).unwrap();
        let err = update(&mut space, "more", json!({"parentId": "p"})).unwrap_err();
        assert!(matches!(err, SpaceError::TooManyChildren { .. }), "{err:?}");
        write(&mut space, "c0", Op::SetDeleted(true), 3_000).unwrap();
        update(&mut space, "more", json!({"parentId": "p"})).unwrap();
        let err = write(&mut space, "c0", Op::SetDeleted(false), 4_000).unwrap_err();
        assert!(matches!(err, SpaceError::TooManyChildren { .. }), "{err:?}");
        let tree = Tree::of(Kind::Task).unwrap();
        let mut rebuilt = tree.clone();
        rebuilt.rebuild(&space.view().collections[0]);
        assert_eq!(rebuilt.active_children("p"), TREE_MAX_CHILDREN);
        assert_eq!(rebuilt.children("p").count(), TREE_MAX_CHILDREN + 1);
    }

    #[test]
    fn delete_and_restore_take_the_subtree_deleted_by_the_same_write() {
        let mut space = Space::new("s");
        chain(&mut space, "t", 3);
        create(&mut space, "early", json!({"parentId": "t0"})).unwrap();
        write(&mut space, "early", Op::SetDeleted(true), 1_500).unwrap();
        let deleted = write(&mut space, "t0", Op::SetDeleted(true), 2_000).unwrap();
        assert_eq!(touched(&deleted), ["t0", "t1", "t2"]);
        for t in deleted.touched() {
            assert_eq!(t.record.deleted_at(), Some(2_000));
            assert_eq!(t.record.version, deleted.version);
        }
        let err = write(&mut space, "t1", Op::SetDeleted(false), 3_000).unwrap_err();
        assert!(matches!(err, SpaceError::ParentDeleted { .. }), "{err:?}");
        let restored = write(&mut space, "t0", Op::SetDeleted(false), 3_000).unwrap();
        assert_eq!(touched(&restored), ["t0", "t1", "t2"]);
        let early = space.get(Kind::Task, "early").unwrap().record;
        assert_eq!(
            early.deleted_at(),
            Some(1_500),
            "deleted earlier: stays deleted"
        );
    }

    #[test]
    fn lists_follow_the_root_and_a_new_child_takes_its_parents_list() {
        let mut space = Space::new("s");
        for list in ["l1", "l2", "l3"] {
            let command = Command {
                kind: Kind::List,
                id: list.into(),
                op: Op::Create(
                    parse_changes(
                        Kind::List,
                        Mode::Create,
                        json!({}).as_object().unwrap().clone(),
                    )
                    .unwrap(),
                ),
                if_match: None,
            };
            space.apply(&[command], 1_000).unwrap();
        }
        create(&mut space, "r", json!({"listId": "l1"})).unwrap();
        create(&mut space, "a", json!({"parentId": "r"})).unwrap();
        assert_eq!(field(&space, "a", "listId"), Value::Text("l1".into()));
        create(&mut space, "none", json!({"parentId": "r", "listId": null})).unwrap();
        assert_eq!(field(&space, "none", "listId"), Value::Null);
        create(
            &mut space,
            "other",
            json!({"parentId": "a", "listId": "l3"}),
        )
        .unwrap();
        create(&mut space, "gone", json!({"parentId": "a"})).unwrap();
        write(&mut space, "gone", Op::SetDeleted(true), 1_500).unwrap();
        // Setting the parent alone changes no list.
        create(&mut space, "x", json!({"listId": "l3"})).unwrap();
        update(&mut space, "x", json!({"parentId": "r"})).unwrap();
        assert_eq!(field(&space, "x", "listId"), Value::Text("l3".into()));
        let moved = update(&mut space, "r", json!({"listId": "l2"})).unwrap();
        let mut ids = touched(&moved);
        ids[1..].sort();
        assert_eq!(ids, ["r", "a", "gone"]);
        assert_eq!(field(&space, "gone", "listId"), Value::Text("l2".into()));
        assert_eq!(field(&space, "other", "listId"), Value::Text("l3".into()));
    }

    #[test]
    fn a_roll_reopens_finished_descendants_and_flips_their_dependents_once() {
        let mut space = Space::new("s");
        create(
            &mut space,
            "r",
            json!({"dateDue": "2030-01-01T09:00:00Z", "recurrence": "FREQ=WEEKLY"}),
        )
        .unwrap();
        create(&mut space, "a", json!({"parentId": "r", "status": "done"})).unwrap();
        create(
            &mut space,
            "b",
            json!({"parentId": "a", "status": "COMPLETED"}),
        )
        .unwrap();
        create(
            &mut space,
            "open",
            json!({"parentId": "r", "status": "doing"}),
        )
        .unwrap();
        create(
            &mut space,
            "gone",
            json!({"parentId": "r", "status": "done"}),
        )
        .unwrap();
        write(&mut space, "gone", Op::SetDeleted(true), 1_500).unwrap();
        // w waits for a; b waits for a too (so b's flip is part of its own change).
        create(&mut space, "w", json!({"predecessorIds": ["a"]})).unwrap();
        update(&mut space, "b", json!({"predecessorIds": ["a"]})).unwrap();
        assert_eq!(field(&space, "w", "isBlocked"), Value::Bool(false));
        let rolled = update(&mut space, "r", json!({"status": "done"})).unwrap();
        assert_eq!(touched(&rolled), ["r", "a", "b", "w"]);
        assert_eq!(field(&space, "a", "status"), Value::Null);
        assert_eq!(field(&space, "a", "completedAt"), Value::Null);
        assert_eq!(field(&space, "b", "isBlocked"), Value::Bool(true));
        assert_eq!(field(&space, "w", "isBlocked"), Value::Bool(true));
        assert_eq!(field(&space, "open", "status"), Value::Text("doing".into()));
        assert_eq!(field(&space, "gone", "status"), Value::Text("done".into()));
    }

    /// Creates task `id` that waits for a parent whose `UID` is `parent`, as a VTODO naming
    /// a parent no task has leaves it (`crate::ical`).
    fn waiting(space: &mut Space, id: &str, parent: &str) {
        let mut changes = body(Mode::Create, json!({}));
        let calendar = crate::model::vtodo::Calendar {
            kept: format!("RELATED-TO;RELTYPE=PARENT:{parent}\r\nX-A:1\r\n").into(),
            ..Default::default()
        };
        let at = Kind::Task.field_of_type(FieldType::Calendar).unwrap();
        changes
            .fields
            .push((at, Value::Calendar(Box::new(calendar))));
        write(space, id, Op::Create(changes), 1_000).unwrap();
    }

    #[test]
    fn a_created_task_adopts_the_tasks_waiting_for_its_uid_as_far_as_the_rules_allow() {
        let mut space = Space::new("s");
        for i in 0..=TREE_MAX_CHILDREN {
            waiting(&mut space, &format!("w{i:04}"), "p");
        }
        waiting(&mut space, "gone", "p");
        write(&mut space, "gone", Op::SetDeleted(true), 1_500).unwrap();
        let created = create(&mut space, "p", json!({})).unwrap();
        let ids = touched(&created);
        assert_eq!(
            ids.len(),
            1 + TREE_MAX_CHILDREN,
            "the parent and 1,000 children"
        );
        assert_eq!(ids[0], "p");
        let fields = crate::model::vtodo::CalendarFields::of(Kind::Task).unwrap();
        for t in created.touched().skip(1) {
            assert_eq!(t.record.version, created.version);
            assert_eq!(
                t.record.fields[fields.calendar()]
                    .as_calendar()
                    .unwrap()
                    .kept
                    .as_ref(),
                "X-A:1\r\n",
                "the waiting line is dropped"
            );
        }
        // The 1,001st and the deleted one stay roots and keep waiting.
        let last = format!("w{TREE_MAX_CHILDREN:04}");
        for id in [last.as_str(), "gone"] {
            assert_eq!(field(&space, id, "parentId"), Value::Null);
            let record = space.get(Kind::Task, id).unwrap().record;
            assert_eq!(fields.waiting(&record).as_deref(), Some("p"));
        }
        assert_eq!(field(&space, "w0000", "parentId"), Value::Text("p".into()));

        // A chain of 7 with `deep` waiting for q below its end: q would be the 8th, and
        // `deep` with its child 10 deep; `top`, waiting for r, would close a cycle.
        chain(&mut space, "c", 7);
        waiting(&mut space, "deep", "q");
        create(&mut space, "deep-kid", json!({"parentId": "deep"})).unwrap();
        waiting(&mut space, "single", "q");
        let created = create(&mut space, "q", json!({"parentId": "c6"})).unwrap();
        assert_eq!(touched(&created), ["q"], "single is 9 deep too");
        waiting(&mut space, "top", "r");
        create(&mut space, "mid", json!({"parentId": "top"})).unwrap();
        let created = create(&mut space, "r", json!({"parentId": "mid"})).unwrap();
        assert_eq!(touched(&created), ["r"]);
        assert_eq!(field(&space, "top", "parentId"), Value::Null);
        waiting(&mut space, "short", "s");
        let created = create(&mut space, "s", json!({"parentId": "c5"})).unwrap();
        assert_eq!(touched(&created), ["s", "short"], "8 deep fits");
    }

    #[test]
    fn undo_and_a_loaded_snapshot_keep_the_index_in_step() {
        let mut space = Space::new("s");
        chain(&mut space, "t", 2);
        let before = space.clone();
        let command = Command {
            kind: Kind::Task,
            id: "t0".into(),
            op: Op::SetDeleted(true),
            if_match: None,
        };
        let (_, undo) = space.apply(&[command], 2_000).unwrap();
        space.undo(undo);
        assert_eq!(
            space.get(Kind::Task, "t1").unwrap().record,
            before.get(Kind::Task, "t1").unwrap().record
        );
        for _ in 0..TREE_MAX_DEPTH - 2 {
            let n = space.version();
            create(
                &mut space,
                &format!("t{n}"),
                json!({"parentId": format!("t{}", n - 1)}),
            )
            .unwrap();
        }
        let n = space.version();
        let err = create(
            &mut space,
            "deep",
            json!({"parentId": format!("t{}", n - 1)}),
        );
        assert!(matches!(err, Err(SpaceError::TooDeep { .. })));
    }
}
