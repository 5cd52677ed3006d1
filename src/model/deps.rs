//! Task dependencies (CONTRACT §15): `predecessorIds`, the derived `isBlocked`, and the
//! reverse index that keeps both cheap.
//!
//! A [`Graph`] belongs to a collection whose kind has a [`FieldType::Predecessors`] field
//! (tasks). It holds the reverse edges, predecessor → dependent, of every record, deleted
//! ones included, and is kept in step by the collection on every record it puts (a write,
//! its undo, a journal replay) and rebuilt when a snapshot is loaded. With it:
//!
//! - the cycle check of a write searches from the written record along its dependents for
//!   one of the new predecessors, so it visits only what depends on the record (nothing at
//!   all when a new task is created, which is why a long chain creates in linear time);
//! - a write that finishes or unfinishes a record (its `status`, a delete, a restore)
//!   recomputes `isBlocked` of its direct dependents only, and touches just those whose
//!   value flips, in the same write and version, as the list `isDefault` flip does.
//!
//! `isBlocked` is stored in the record like any field, so the journal, the feed, the
//! stream and ETags carry it without deciding anything again on replay. It depends only on
//! the record's own predecessors and gate and on whether each predecessor is finished;
//! only those three kinds of change can flip it, and each is handled here.

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::ops::Bound;

use super::error::SpaceError;
use super::kind::{FieldType, Kind};
use super::record::{Id, Record, Records, Value};

/// A predecessor whose `status` is one of these (ASCII case-insensitive) is finished.
const FINISHED: [&str; 2] = ["done", "completed"];

/// Where a kind keeps what dependencies read: positions in its field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields {
    /// `predecessorIds`.
    pub predecessors: usize,
    /// `isBlocked`.
    pub blocked: usize,
    /// `status`: a predecessor with a finished status is finished.
    status: usize,
    /// `TodoPredecessorsAllAny`: whether all predecessors or any one must be finished.
    gate: usize,
}

impl Fields {
    /// The dependency fields of `kind`, when it has predecessors.
    pub fn of(kind: Kind) -> Option<Fields> {
        let position = |ty: FieldType| kind.fields().iter().position(|f| f.ty == ty);
        Some(Fields {
            predecessors: position(FieldType::Predecessors)?,
            blocked: position(FieldType::Blocked)?,
            status: kind.field_index("status")?,
            gate: kind.field_index("TodoPredecessorsAllAny")?,
        })
    }

    /// The predecessors `record` names.
    pub fn predecessors<'r>(&self, record: &'r Record) -> &'r [Box<str>] {
        record.fields[self.predecessors].as_ids()
    }

    /// Whether `record`, as a predecessor, is finished: deleted, or done or completed.
    pub fn is_finished(&self, record: &Record) -> bool {
        record.is_deleted()
            || record.fields[self.status]
                .as_text()
                .is_some_and(|s| FINISHED.iter().any(|f| s.eq_ignore_ascii_case(f)))
    }

    /// The `isBlocked` stored in `record`.
    pub fn stored_blocked(&self, record: &Record) -> bool {
        record.fields[self.blocked] == Value::Bool(true)
    }

    /// What `isBlocked` of `record` is, given which of its predecessors are finished: with
    /// the gate `ALL`, any unfinished one blocks it; with `ANY`, it is blocked until one is
    /// finished; without predecessors it is never blocked.
    pub fn blocked(&self, record: &Record, finished: impl Fn(&str) -> bool) -> bool {
        let predecessors = self.predecessors(record);
        if predecessors.is_empty() {
            return false;
        }
        match record.fields[self.gate].as_text() {
            Some("ANY") => !predecessors.iter().any(|p| finished(p)),
            _ => !predecessors.iter().all(|p| finished(p)),
        }
    }
}

/// The dependency graph of one collection: its fields and the reverse index.
#[derive(Debug)]
pub struct Graph {
    fields: Fields,
    /// Every edge as (predecessor, dependent): the records that name a predecessor are a
    /// range of this set. One set of pairs rather than a set per predecessor, so an edge
    /// costs two shared ids and no node of its own.
    edges: BTreeSet<(Id, Id)>,
}

/// What a cycle search found, and how much it looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// The cycle, as [`SpaceError::DependencyCycle`] orders it, if there is one.
    pub cycle: Option<Vec<Id>>,
    /// Records visited on the way.
    pub visited: usize,
}

impl Graph {
    /// An empty graph of `kind`, when its records have predecessors.
    pub fn of(kind: Kind) -> Option<Graph> {
        Fields::of(kind).map(|fields| Graph {
            fields,
            edges: BTreeSet::new(),
        })
    }

    /// The fields the graph reads.
    pub fn fields(&self) -> &Fields {
        &self.fields
    }

    /// Rebuilds the reverse index from every record of the collection (after a snapshot
    /// is loaded).
    pub fn rebuild(&mut self, records: &Records) {
        let fields = self.fields;
        self.edges = records
            .values()
            .flat_map(|record| {
                fields
                    .predecessors(record)
                    .iter()
                    .map(|p| (shared(records, p), record.id.clone()))
            })
            .collect();
    }

    /// Keeps the index in step when a record goes from `old` to `new` (`None`: absent);
    /// `records` is the collection after the change, to share ids with.
    pub fn relink(&mut self, old: Option<&Record>, new: Option<&Record>, records: &Records) {
        let before = old.map_or(&[][..], |r| self.fields.predecessors(r));
        let after = new.map_or(&[][..], |r| self.fields.predecessors(r));
        if before == after {
            return;
        }
        if let Some(old) = old {
            for p in before.iter().filter(|p| !after.contains(p)) {
                self.edges.remove(&(Id::from(&**p), old.id.clone()));
            }
        }
        if let Some(new) = new {
            for p in after.iter().filter(|p| !before.contains(p)) {
                self.edges.insert((shared(records, p), new.id.clone()));
            }
        }
    }

    /// The records that name `id` as a predecessor, in id order.
    pub fn dependents<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Id> + 'a {
        let from = (Id::from(id), Id::from(""));
        self.edges
            .range((Bound::Included(from), Bound::Unbounded))
            .take_while(move |(p, _)| **p == *id)
            .map(|(_, d)| d)
    }

    /// Refuses `changes` to record `id` when the predecessors they set name `id` itself or
    /// would close a cycle.
    pub fn check(&self, id: &str, changes: &[(usize, Value)]) -> Result<(), SpaceError> {
        let Some((_, value)) = changes.iter().find(|(f, _)| *f == self.fields.predecessors) else {
            return Ok(());
        };
        match self.find_cycle(id, value.as_ids()).cycle {
            None => Ok(()),
            Some(cycle) => Err(SpaceError::DependencyCycle {
                field: "predecessorIds",
                cycle: cycle.iter().map(|id| id.to_string()).collect(),
            }),
        }
    }

    /// Whether giving record `id` the predecessors `predecessors` closes a cycle: `id`
    /// itself among them, or one of them depending (through any chain of records, deleted
    /// ones included) on `id`. Searches breadth first from `id` along its dependents, so the
    /// cycle found is a shortest one; returned as `[id, p, ..., d]` where `id` would name
    /// `p`, each names the next, and `d` names `id`.
    pub fn find_cycle(&self, id: &str, predecessors: &[Box<str>]) -> Search {
        if predecessors.iter().any(|p| **p == *id) {
            return Search {
                cycle: Some(vec![Id::from(id)]),
                visited: 0,
            };
        }
        let wanted: HashSet<&str> = predecessors.iter().map(|p| &**p).collect();
        // Each visited record with the record it was reached from (which it names).
        let mut reached_from: Vec<(&Id, usize)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut queue: VecDeque<(&str, Option<usize>)> = VecDeque::from([(id, None)]);
        while let Some((at, from)) = queue.pop_front() {
            for dependent in self.dependents(at) {
                if !seen.insert(dependent) {
                    continue;
                }
                reached_from.push((dependent, from.unwrap_or(usize::MAX)));
                let index = reached_from.len() - 1;
                if wanted.contains(&**dependent) {
                    // `dependent` names `at`, which names ... which names `id`.
                    let mut cycle = vec![Id::from(id)];
                    let mut step = Some(index);
                    while let Some(i) = step.filter(|i| *i != usize::MAX) {
                        cycle.push(reached_from[i].0.clone());
                        step = Some(reached_from[i].1);
                    }
                    return Search {
                        cycle: Some(cycle),
                        visited: seen.len(),
                    };
                }
                queue.push_back((dependent, Some(index)));
            }
        }
        Search {
            cycle: None,
            visited: seen.len(),
        }
    }

    /// Settles `isBlocked` for a write that takes record `id` from `before` (`None`: it is
    /// new) to `record`: sets the record's own value, and returns each dependent whose value
    /// flips because the record became finished or unfinished, flipped and touched at
    /// `version` and `now`. `records` is the collection before the write.
    pub fn settle(
        &self,
        records: &Records,
        before: Option<&Record>,
        record: &mut Record,
        version: u64,
        now: i64,
    ) -> Vec<Record> {
        let fields = &self.fields;
        let finished = |p: &str| records.get(p).is_none_or(|r| fields.is_finished(r));
        let blocked = fields.blocked(record, finished);
        record.fields[fields.blocked] = Value::Bool(blocked);
        let Some(before) = before else {
            return Vec::new(); // a new record has no dependents yet
        };
        let now_finished = fields.is_finished(record);
        if fields.is_finished(before) == now_finished {
            return Vec::new();
        }
        let mut flipped = Vec::new();
        for dependent in self.dependents(&record.id) {
            let Some(current) = records.get(dependent) else {
                continue;
            };
            let blocked = fields.blocked(current, |p| {
                if *p == *record.id {
                    now_finished
                } else {
                    finished(p)
                }
            });
            if blocked != fields.stored_blocked(current) {
                let mut changed = Record::clone(current);
                changed.fields[fields.blocked] = Value::Bool(blocked);
                changed.touch(version, now);
                flipped.push(changed);
            }
        }
        flipped
    }
}

/// The collection's own shared id for `id` when it holds that record, else a new one.
fn shared(records: &Records, id: &str) -> Id {
    records
        .get(id)
        .map_or_else(|| Id::from(id), |record| record.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::space::{Command, Op, Outcome, Space};
    use crate::model::validate::{parse_changes, Mode};
    use serde_json::json;

    fn write(space: &mut Space, id: &str, op: Op) -> Result<Outcome, SpaceError> {
        let command = Command {
            kind: Kind::Task,
            id: id.into(),
            op,
            if_match: None,
        };
        space
            .apply(&[command], 1_000)
            .map(|(outcome, _)| outcome)
            .map_err(|(_, e)| e)
    }

    fn body(mode: Mode, json: serde_json::Value) -> crate::model::Changes {
        parse_changes(Kind::Task, mode, json.as_object().unwrap().clone()).unwrap()
    }

    fn create(space: &mut Space, id: &str, json: serde_json::Value) -> Outcome {
        write(space, id, Op::Create(body(Mode::Create, json))).unwrap()
    }

    fn update(space: &mut Space, id: &str, json: serde_json::Value) -> Result<Outcome, SpaceError> {
        write(space, id, Op::Update(body(Mode::Update, json)))
    }

    fn blocked(space: &Space, id: &str) -> bool {
        let fields = Fields::of(Kind::Task).unwrap();
        fields.stored_blocked(&space.get(Kind::Task, id).unwrap().record)
    }

    /// The ids an outcome touched, the named record first.
    fn touched(outcome: &Outcome) -> Vec<String> {
        outcome.touched().map(|t| t.record.id.to_string()).collect()
    }

    fn cycle(err: SpaceError) -> Vec<String> {
        match err {
            SpaceError::DependencyCycle { cycle, .. } => cycle,
            other => panic!("not a cycle: {other:?}"),
        }
    }

    #[test]
    fn naming_itself_or_closing_a_cycle_is_refused_with_the_cycle_in_order() {
        let mut space = Space::new("s");
        let err = write(
            &mut space,
            "a",
            Op::Create(body(Mode::Create, json!({"predecessorIds": ["a"]}))),
        )
        .unwrap_err();
        assert_eq!(cycle(err), ["a"]);
        create(&mut space, "a", json!({}));
        create(&mut space, "b", json!({"predecessorIds": ["a"]}));
        create(&mut space, "c", json!({"predecessorIds": ["b"]}));
        create(&mut space, "x", json!({}));
        assert_eq!(
            cycle(update(&mut space, "a", json!({"predecessorIds": ["a"]})).unwrap_err()),
            ["a"]
        );
        // a would name c; c names b; b names a.
        let err = update(&mut space, "a", json!({"predecessorIds": ["x", "c"]})).unwrap_err();
        assert_eq!(cycle(err.clone()), ["a", "c", "b"]);
        assert!(err.to_string().contains("a -> c -> b -> a"), "{err}");
        // A deleted record in the loop still closes it: a restore must never make one.
        write(&mut space, "b", Op::SetDeleted(true)).unwrap();
        let err = update(&mut space, "a", json!({"predecessorIds": ["c"]})).unwrap_err();
        assert_eq!(cycle(err), ["a", "c", "b"]);
        assert_eq!(space.version(), 5, "refused writes changed nothing");
        update(&mut space, "c", json!({"predecessorIds": ["x"]})).unwrap();
        update(&mut space, "a", json!({"predecessorIds": ["c"]})).unwrap();
    }

    #[test]
    fn all_blocks_on_any_unfinished_predecessor_and_any_until_one_is_finished() {
        let mut space = Space::new("s");
        create(&mut space, "p", json!({"status": "open"}));
        create(&mut space, "q", json!({"status": "DONE"}));
        create(&mut space, "all", json!({"predecessorIds": ["p", "q"]}));
        create(
            &mut space,
            "any",
            json!({"predecessorIds": ["p", "q"], "TodoPredecessorsAllAny": "ANY"}),
        );
        create(
            &mut space,
            "none",
            json!({"predecessorIds": [], "TodoPredecessorsAllAny": "ANY"}),
        );
        assert!(blocked(&space, "all"));
        assert!(!blocked(&space, "any"));
        assert!(!blocked(&space, "none"));
        // q reopened: ANY is now blocked too; touched in the same write.
        let outcome = update(&mut space, "q", json!({"status": "doing"})).unwrap();
        assert_eq!(touched(&outcome), ["q", "any"]);
        assert!(blocked(&space, "any"));
        // p completed (any case): ANY unblocks, ALL still waits for q.
        let outcome = update(&mut space, "p", json!({"status": "Completed"})).unwrap();
        assert_eq!(touched(&outcome), ["p", "any"]);
        assert!(blocked(&space, "all") && !blocked(&space, "any"));
        // Switching the gate of `all` to ANY recomputes it on the record itself.
        let outcome = update(&mut space, "all", json!({"TodoPredecessorsAllAny": "ANY"})).unwrap();
        assert_eq!(touched(&outcome), ["all"]);
        assert!(!blocked(&space, "all"));
    }

    #[test]
    fn delete_and_restore_finish_and_unfinish_a_predecessor() {
        let mut space = Space::new("s");
        create(&mut space, "p", json!({}));
        create(&mut space, "d", json!({"predecessorIds": ["p"]}));
        assert!(blocked(&space, "d"));
        let deleted = write(&mut space, "p", Op::SetDeleted(true)).unwrap();
        assert_eq!(touched(&deleted), ["p", "d"]);
        assert!(!blocked(&space, "d"));
        let d = space.get(Kind::Task, "d").unwrap().record;
        assert_eq!(d.version, deleted.version);
        // A repeated delete changes nothing about p being finished: only p is touched.
        let again = write(&mut space, "p", Op::SetDeleted(true)).unwrap();
        assert_eq!(touched(&again), ["p"]);
        let restored = write(&mut space, "p", Op::SetDeleted(false)).unwrap();
        assert_eq!(touched(&restored), ["p", "d"]);
        assert!(blocked(&space, "d"));
        // A deleted dependent is kept right too, and restoring it keeps its value.
        write(&mut space, "d", Op::SetDeleted(true)).unwrap();
        let done = update(&mut space, "p", json!({"status": "done"})).unwrap();
        assert_eq!(touched(&done), ["p", "d"]);
        write(&mut space, "p", Op::SetDeleted(true)).unwrap();
        let restored = write(&mut space, "d", Op::SetDeleted(false)).unwrap();
        assert_eq!(touched(&restored), ["d"]);
        assert!(!blocked(&space, "d"));
    }

    #[test]
    fn the_reverse_index_follows_writes_undo_and_snapshots() {
        let mut space = Space::new("s");
        create(&mut space, "a", json!({}));
        create(&mut space, "b", json!({}));
        create(&mut space, "t", json!({"predecessorIds": ["a"]}));
        let graph = |space: &Space, id: &str| -> Vec<String> {
            space
                .graph(Kind::Task)
                .unwrap()
                .dependents(id)
                .map(|d| d.to_string())
                .collect()
        };
        assert_eq!(graph(&space, "a"), ["t"]);
        update(&mut space, "t", json!({"predecessorIds": ["b"]})).unwrap();
        assert!(graph(&space, "a").is_empty());
        assert_eq!(graph(&space, "b"), ["t"]);
        // A batch that fails halfway leaves the index as it was.
        let commands = [
            Command {
                kind: Kind::Task,
                id: "t".into(),
                op: Op::Update(body(Mode::Update, json!({"predecessorIds": ["a", "b"]}))),
                if_match: None,
            },
            Command {
                kind: Kind::Task,
                id: "missing".into(),
                op: Op::SetDeleted(true),
                if_match: None,
            },
        ];
        assert!(space.apply(&commands, 2).is_err());
        assert!(graph(&space, "a").is_empty());
        // Cleared with [], and rebuilt the same from a snapshot.
        create(&mut space, "u", json!({"predecessorIds": ["a", "b"]}));
        update(&mut space, "t", json!({"predecessorIds": []})).unwrap();
        assert_eq!(graph(&space, "b"), ["u"]);
        let view = space.view();
        let rebuilt = Space::from_snapshot(crate::model::SpaceSnapshot {
            id: view.id,
            version: view.version,
            reserved: view.reserved,
            collections: Kind::ALL
                .into_iter()
                .zip(view.collections)
                .map(|(kind, records)| (kind, records.values().cloned().collect()))
                .collect(),
        })
        .unwrap();
        assert_eq!(graph(&rebuilt, "a"), ["u"]);
        assert_eq!(graph(&rebuilt, "b"), ["u"]);
    }

    #[test]
    fn a_journal_replay_rebuilds_the_reverse_index() {
        let mut space = Space::new("s");
        let outcomes = [
            create(&mut space, "a", json!({})),
            create(&mut space, "b", json!({"predecessorIds": ["a"]})),
            update(&mut space, "a", json!({"status": "done"})).unwrap(),
        ];
        let mut replayed = Space::new("s");
        for outcome in &outcomes {
            replayed.replay(outcome).unwrap();
        }
        let dependents: Vec<&Id> = replayed
            .graph(Kind::Task)
            .unwrap()
            .dependents("a")
            .collect();
        assert_eq!(dependents, [&Id::from("b")]);
        assert!(!blocked(&replayed, "b"));
        let reopened = update(&mut replayed, "a", json!({"status": "open"})).unwrap();
        assert_eq!(touched(&reopened), ["a", "b"]);
    }

    #[test]
    fn a_chain_of_10_000_creates_without_searching_and_finishing_its_head_touches_one() {
        const N: usize = 10_000;
        let mut space = Space::new("s");
        create(&mut space, "t0", json!({}));
        let mut visited = 0;
        for i in 1..N {
            let (id, previous) = (format!("t{i}"), format!("t{}", i - 1));
            let predecessors = [Box::from(previous.as_str())];
            visited += space
                .graph(Kind::Task)
                .unwrap()
                .find_cycle(&id, &predecessors)
                .visited;
            create(&mut space, &id, json!({ "predecessorIds": [previous] }));
        }
        assert_eq!(visited, 0, "a new task has no dependents to search");
        assert!(blocked(&space, "t1") && blocked(&space, &format!("t{}", N - 1)));
        let finished = update(&mut space, "t0", json!({"status": "done"})).unwrap();
        assert_eq!(touched(&finished), ["t0", "t1"]);
        assert!(!blocked(&space, "t1") && blocked(&space, "t2"));
        // Closing the loop at the far end is found, with the whole chain in order.
        let last = format!("t{}", N - 1);
        let err = update(&mut space, "t0", json!({ "predecessorIds": [last] })).unwrap_err();
        let cycle = cycle(err);
        assert_eq!(cycle.len(), N);
        assert_eq!(
            (cycle[0].as_str(), cycle[1].as_str()),
            ("t0", last.as_str())
        );
        assert_eq!(cycle[N - 1], "t1");
    }
}
