//! Applying a write: deciding each command's step ([`Space::apply`]), committing it, the
//! checks a step must pass, taking a write back, and telling heavy writes from light ones.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::activity::Meta;
use crate::model::deps::Budget;
use crate::model::error::SpaceError;
use crate::model::kind::{FieldType, Kind};
use crate::model::query::{Filter, FilterContext};
use crate::model::record::{Id, Record, Value};

use super::commands::{Changes, Command, Former, IfMatch, Op, Outcome, Step, Touched, Undo};
use super::Space;

/// A write of at most this many commands may be light (see [`Space::is_heavy`]).
pub const LIGHT_COMMANDS: usize = 16;
/// A light write carries at most this many bytes of text.
pub const LIGHT_TEXT_BYTES: usize = 64 << 10;
/// A light write finishes or unfinishes no record with more dependents than this.
pub const LIGHT_DEPENDENTS: usize = 100;

impl Space {
    /// Whether applying `commands` may take long enough to hold up the other spaces of a
    /// shared thread (docs §21): a batch of more than [`LIGHT_COMMANDS`] commands,
    /// more than [`LIGHT_TEXT_BYTES`] of text, a change of the predecessors of a record
    /// that others name (a cycle search), or a change that may finish or unfinish a
    /// record with more than [`LIGHT_DEPENDENTS`] dependents (their `isBlocked` flips), or
    /// a change of the `status` of a repeating task (its roll expands the rule: up to
    /// 100,000 candidate instances, docs §27). A change that may cascade (docs §22: a
    /// delete, a restore, a `listId` or `status` change) over a subtree of more than
    /// [`LIGHT_DEPENDENTS`] records is heavy too, and so is a create that more than
    /// [`LIGHT_DEPENDENTS`] tasks wait for (the late link measures each one's subtree).
    /// A guess from what the commands name, at a cost of a few lookups; it errs on the
    /// heavy side.
    pub fn is_heavy(&self, commands: &[Command]) -> bool {
        if commands.len() > LIGHT_COMMANDS {
            return true;
        }
        let mut text = 0;
        for command in commands {
            if let Some(tree) = &self.collection(command.kind).tree {
                let cascades = match &command.op {
                    Op::SetDeleted(_) => true,
                    Op::Update(changes) => changes
                        .fields
                        .iter()
                        .any(|(at, _)| *at == tree.fields().list || *at == tree.fields().status),
                    Op::Create(_) | Op::Remind => false,
                };
                if cascades && tree.has_more_descendants(&command.id, LIGHT_DEPENDENTS) {
                    return true;
                }
                if let Op::Create(changes) = &command.op {
                    if self.adopts_many(command.kind, &command.id, changes) {
                        return true;
                    }
                }
            }
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
            let collection = self.collection(command.kind);
            let repeats = || {
                let record = collection.get(&command.id);
                (collection.times.as_ref()).is_some_and(|t| record.is_ok_and(|r| t.repeats(r)))
            };
            match &command.op {
                Op::SetDeleted(_) if dependents() => return true,
                Op::Update(changes) => {
                    for (at, value) in &changes.fields {
                        text += value.text_bytes();
                        if (*at == fields.predecessors && named())
                            || (fields.is_status(*at) && (dependents() || repeats()))
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
        let mut steps = Vec::with_capacity(commands.len());
        let undo = self.commit_each(commands, now, |_, step, _| steps.push(step))?;
        let outcome = Outcome {
            base,
            version: self.version,
            steps,
            meta: Meta::default(),
        };
        Ok((outcome, undo))
    }

    /// Plans and commits `commands` in order at time `now` under one dependency budget
    /// (docs §21), handing each step to `each` once committed, with the space and the
    /// formers its commit noted; when a command fails, undoes every one before it and
    /// says which failed.
    fn commit_each(
        &mut self,
        commands: &[Command],
        now: i64,
        mut each: impl FnMut(&mut Space, Step, &[Former]),
    ) -> Result<Undo, (usize, SpaceError)> {
        let mut undo = Undo {
            base: self.version,
            before: Vec::new(),
        };
        let mut budget = Budget::request();
        for (index, command) in commands.iter().enumerate() {
            match self.plan(command, now, &mut budget) {
                Ok(step) => {
                    let start = undo.before.len();
                    self.commit(&step, &mut undo.before);
                    each(self, step, &undo.before[start..]);
                }
                Err(e) => {
                    self.undo(undo);
                    return Err((index, e));
                }
            }
        }
        Ok(undo)
    }

    /// Applies `commands` in order at time `now` as one write of one version and one step
    /// (a revert, docs §23): each sees the ones before it; a record touched by several is
    /// in the step once, in its last state, and the records the commands name come first.
    /// When a command fails nothing changed, and the error says which.
    pub fn apply_as_one(
        &mut self,
        commands: &[Command],
        now: i64,
    ) -> Result<(Outcome, Undo), (usize, SpaceError)> {
        let base = self.version;
        let mut touched: Vec<(Touched, Option<Arc<Record>>)> = Vec::new();
        let mut cascades: Vec<(Touched, Option<Arc<Record>>)> = Vec::new();
        // Where each record touched so far is: named (in `touched`) or not, and its place;
        // a batch's revert touches a record many times at most once a lookup.
        let mut places: HashMap<(Kind, Id), (bool, usize)> = HashMap::new();
        let mut undo = self.commit_each(commands, now, |space, step, formers| {
            space.version = base;
            let formers = formers.iter().map(|f| f.2.clone());
            for (at, (t, former)) in step.touched.into_iter().zip(formers).enumerate() {
                let key = (t.kind, t.record.id.clone());
                match places.get(&key) {
                    Some(&(true, i)) => touched[i].0 = t,
                    Some(&(false, i)) => cascades[i].0 = t,
                    None if at == 0 => {
                        places.insert(key, (true, touched.len()));
                        touched.push((t, former));
                    }
                    None => {
                        places.insert(key, (false, cascades.len()));
                        cascades.push((t, former));
                    }
                }
            }
        })?;
        self.version = base + 1;
        let named = touched.len() as u32;
        touched.extend(cascades);
        undo.before = touched
            .iter()
            .map(|(t, former)| (t.kind, t.record.id.clone(), former.clone()))
            .collect();
        let outcome = Outcome {
            base,
            version: base + 1,
            steps: vec![Step {
                created: false,
                touched: touched.into_iter().map(|(t, _)| t).collect(),
            }],
            meta: Meta {
                named,
                ..Meta::default()
            },
        };
        Ok((outcome, undo))
    }

    /// Whether more than [`LIGHT_DEPENDENTS`] tasks wait for the `UID` a create of record
    /// `id` with `changes` gives it: the client's `UID` it keeps, else `id`.
    fn adopts_many(&self, kind: Kind, id: &str, changes: &Changes) -> bool {
        let collection = self.collection(kind);
        let Some(fields) = &collection.calendar else {
            return false;
        };
        let kept_uid = changes.fields.iter().find_map(|(at, value)| {
            (*at == fields.calendar())
                .then(|| value.as_calendar()?.uid.as_deref())
                .flatten()
        });
        let uid = kept_uid.unwrap_or(id);
        collection
            .objects
            .waiting_for(uid)
            .nth(LIGHT_DEPENDENTS)
            .is_some()
    }

    /// Takes back the newest write that has not been taken back yet.
    pub fn undo(&mut self, undo: Undo) {
        for (kind, id, before) in undo.before.into_iter().rev() {
            self.put(kind, &id, before);
        }
        self.version = undo.base;
    }

    /// Decides what `command` does at the next version, without changing anything; its
    /// dependency check takes what it follows from `budget`. The step touches the record
    /// the command names, the descendants its cascades change (docs §22), the tasks a
    /// created task takes as children because they waited for its `UID` (the late link of
    /// docs §22, `Tree::adopt`), the records losing an exclusive flag, and the records
    /// whose `isBlocked` flips, each once. All of it is in the step, so a replay of the
    /// outcome decides nothing again.
    fn plan(&self, command: &Command, now: i64, budget: &mut Budget) -> Result<Step, SpaceError> {
        let Command { kind, id, op, .. } = command;
        let (kind, version) = (*kind, self.version + 1);
        let collection = self.collection(kind);
        let before = collection.records.get(&**id).map(|r| &**r);
        let mut record = self.start_record(command, now, budget)?;
        let mut rolled = false;
        if let Op::Create(changes) | Op::Update(changes) = op {
            #[cfg(feature = "failpoints")]
            injected_panic(&self.id);
            if let Some(sort_order) = changes.sort_order {
                record.sort_order = sort_order;
            }
            (record.fields).set_all(changes.fields.iter().map(|(field, value)| (*field, value)));
            if let (Op::Create(_), Some(tree)) = (op, &collection.tree) {
                tree.inherit_list(&collection.records, &mut record, &changes.fields);
            }
            if let Some(times) = &collection.times {
                rolled = times.settle(kind, before, &mut record, changes, now)?;
            }
            if let Some(calendar) = &collection.calendar {
                calendar.settle(before, &mut record, changes, now, version);
            }
        }
        record.touch(version, now);
        let mut changed = vec![record];
        if let (Some(tree), Some(before)) = (&collection.tree, before) {
            for mut descendant in tree.cascade(&collection.records, before, &changed[0], rolled) {
                if let Some(calendar) = &collection.calendar {
                    let was = collection.records.get(&descendant.id).map(|r| &**r);
                    calendar.settle(was, &mut descendant, &Changes::default(), now, version);
                }
                descendant.touch(version, now);
                changed.push(descendant);
            }
        }
        if let (Op::Create(_), Some(tree), Some(calendar)) =
            (op, &collection.tree, &collection.calendar)
        {
            let waiting = collection.objects.waiting_for(calendar.uid(&changed[0]));
            for mut child in tree.adopt(&collection.records, &changed[0], waiting) {
                let link = Changes {
                    fields: vec![(tree.fields().parent, Value::Text(id.clone()))],
                    ..Changes::default()
                };
                let was = collection.records.get(&child.id).map(|r| &**r);
                calendar.settle(was, &mut child, &link, now, version);
                child.touch(version, now);
                changed.push(child);
            }
        }
        let flipped = match &collection.graph {
            Some(graph) => graph.settle(&collection.records, &mut changed, version, now),
            None => Vec::new(),
        };
        let mut touched = Vec::with_capacity(changed.len() + flipped.len());
        let mut changed = changed.into_iter().map(|record| Touched::new(kind, record));
        touched.extend(changed.next());
        if let Op::Create(changes) | Op::Update(changes) = op {
            self.clear_exclusive_flags(kind, id, &changes.fields, version, now, &mut touched);
        }
        touched.extend(changed);
        touched.extend(flipped.into_iter().map(|record| Touched::new(kind, record)));
        Ok(Step {
            created: matches!(op, Op::Create(_)),
            touched,
        })
    }

    /// The record `command` starts from, checked: a new one on create (its dependencies and
    /// references checked), else the current one (if it matches `If-Match`), deleted or
    /// restored, or with its due reminders fired.
    fn start_record(
        &self,
        command: &Command,
        now: i64,
        budget: &mut Budget,
    ) -> Result<Record, SpaceError> {
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
        let record = match op {
            Op::Create(changes) => {
                if collection.records.contains_key(&**id) {
                    return Err(SpaceError::AlreadyExists {
                        kind,
                        id: id.to_string(),
                    });
                }
                self.check_dependencies(kind, id, None, &changes.fields, budget)?;
                self.check_tree(kind, id, None, &changes.fields)?;
                self.check_references(kind, &changes.fields)?;
                self.check_filters(kind, &changes.fields, now)?;
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
                self.check_tree(kind, id, Some(current), &changes.fields)?;
                self.check_references(kind, &changes.fields)?;
                self.check_filters(kind, &changes.fields, now)?;
                Record::clone(current)
            }
            Op::SetDeleted(deleted) => {
                let current = existing(id)?;
                if let (false, true, Some(tree)) =
                    (*deleted, current.is_deleted(), &collection.tree)
                {
                    tree.check_restore(kind, &collection.records, current)?;
                }
                let mut record = Record::clone(current);
                record.set_deleted_at(match *deleted {
                    true => record.deleted_at().or(Some(now)),
                    false => None,
                });
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
        Ok(record)
    }

    /// Puts every record of `step` in place and moves to the next version, noting the
    /// former states in `before`.
    pub(super) fn commit(&mut self, step: &Step, before: &mut Vec<Former>) {
        for Touched { kind, record } in &step.touched {
            let old = self.put(*kind, &record.id, Some(Arc::clone(record)));
            before.push((*kind, record.id.clone(), old));
        }
        self.version += 1;
    }

    /// Checks that every view filter the changes set parses (docs §24: `400 invalid_filter`
    /// with its position, as on a query). Its time zone changes no error, so UTC serves.
    fn check_filters(
        &self,
        kind: Kind,
        changes: &[(usize, Value)],
        now: i64,
    ) -> Result<(), SpaceError> {
        for (field, value) in changes {
            if let (FieldType::Filter, Value::Text(text)) = (kind.fields()[*field].ty, value) {
                let context = FilterContext {
                    space_id: &self.id,
                    tz: chrono_tz::UTC,
                    now_ms: now,
                };
                Filter::parse(text, context).map_err(SpaceError::InvalidFilter)?;
            }
        }
        Ok(())
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

    /// Checks that the parent the changes set to record `id` (now `current`) keeps the
    /// kind's trees within the rules of docs §22 (`model::tree`); checked before the
    /// references, so that a record naming itself is a cycle even on create.
    fn check_tree(
        &self,
        kind: Kind,
        id: &str,
        current: Option<&Record>,
        changes: &[(usize, Value)],
    ) -> Result<(), SpaceError> {
        let collection = self.collection(kind);
        match &collection.tree {
            Some(tree) => tree.check(kind, &collection.records, current, id, changes),
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
                touched.push(Touched::new(kind, record));
            }
        }
    }
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
