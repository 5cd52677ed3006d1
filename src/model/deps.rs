//! Task dependencies (docs §15): `predecessorIds`, the derived `isBlocked`, and the
//! reverse index that keeps both cheap.
//!
//! A [`Graph`] belongs to a collection whose kind has a [`FieldType::Predecessors`] field
//! (tasks). It holds the reverse edges, predecessor → dependent, of every record, deleted
//! ones included, and is kept in step by the collection on every record it puts (a write,
//! its undo, a journal replay) and rebuilt when a snapshot is loaded. With it:
//!
//! - the cycle check of a write searches from the predecessors it adds, following
//!   `predecessorIds`, for the written record, and only when some record names the written
//!   one (so nothing at all when a new task is created, which is why a long chain creates
//!   in linear time). The edges it follows come out of the request's [`Budget`] of
//!   [`EDGE_BUDGET`] (docs §21): a request that would follow more is refused, so no
//!   single request holds its space for long;
//! - a write that finishes or unfinishes a record (its `status`, a delete, a restore)
//!   recomputes `isBlocked` of its direct dependents only, and touches just those whose
//!   value flips, in the same write and version, as the list `isDefault` flip does.
//!
//! `isBlocked` is stored in the record like any field, so the journal, the feed, the
//! stream and ETags carry it without deciding anything again on replay. It depends only on
//! the record's own predecessors and gate and on whether each predecessor is finished;
//! only those three kinds of change can flip it, and each is handled here.

use std::collections::{HashMap, HashSet};

use imbl::OrdSet;
use std::ops::Bound;

use super::error::SpaceError;
use super::kind::{FieldType, Kind};
use super::record::{Id, Record, Records, Value};

/// A predecessor whose `status` is one of these (ASCII case-insensitive) is finished.
const FINISHED: [&str; 2] = ["done", "completed"];

/// Whether `status` is a finished value: `done` or `completed`, ASCII case-insensitive.
pub fn is_finished_status(status: &str) -> bool {
    FINISHED.iter().any(|f| status.eq_ignore_ascii_case(f))
}

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

    /// Whether the field at `at` is `status`, which decides whether a record is finished.
    pub fn is_status(&self, at: usize) -> bool {
        at == self.status
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
                .is_some_and(is_finished_status)
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
#[derive(Debug, Clone)]
pub struct Graph {
    fields: Fields,
    /// Every edge as (predecessor, dependent): the records that name a predecessor are a
    /// range of this set. One set of pairs rather than a set per predecessor, so an edge
    /// costs two shared ids and no node of its own.
    edges: OrdSet<(Id, Id)>,
}

pub use super::limits::EDGE_BUDGET;

/// What is left of one request's edge budget; see [`EDGE_BUDGET`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    left: u64,
}

impl Budget {
    /// A budget of `edges` edges.
    pub fn new(edges: u64) -> Budget {
        Budget { left: edges }
    }

    /// The budget of one request: [`EDGE_BUDGET`].
    pub fn request() -> Budget {
        Budget::new(EDGE_BUDGET)
    }

    /// The edges still allowed.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// Takes one edge; false, taking nothing, when none is left.
    fn spend(&mut self) -> bool {
        let had = self.left > 0;
        self.left = self.left.saturating_sub(1);
        had
    }
}

/// A cycle search that used up its request's budget before it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;

/// What a cycle search found, and how much it looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// The cycle, as [`SpaceError::DependencyCycle`] orders it, if there is one.
    pub cycle: Option<Vec<Id>>,
    /// Edges followed on the way (each one taken from the budget).
    pub edges: u64,
}

impl Graph {
    /// An empty graph of `kind`, when its records have predecessors.
    pub fn of(kind: Kind) -> Option<Graph> {
        Fields::of(kind).map(|fields| Graph {
            fields,
            edges: OrdSet::new(),
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

    /// Refuses `changes` to record `id` (now `current`, `None` when it is being created)
    /// when the predecessors they set name `id` itself or would close a cycle, or when
    /// finding out would take more than is `left` of the request's edge budget. Only the
    /// predecessors the record does not name already are searched from: the graph has no
    /// cycle, so the ones it keeps close none.
    pub fn check(
        &self,
        records: &Records,
        current: Option<&Record>,
        id: &str,
        changes: &[(usize, Value)],
        left: &mut Budget,
    ) -> Result<(), SpaceError> {
        let Some((_, value)) = changes.iter().find(|(f, _)| *f == self.fields.predecessors) else {
            return Ok(());
        };
        let kept = current.map_or(&[][..], |r| self.fields.predecessors(r));
        let new: Vec<&str> = value
            .as_ids()
            .iter()
            .filter(|p| !kept.contains(p))
            .map(|p| &**p)
            .collect();
        match self.find_cycle(records, id, &new, left) {
            Ok(Search { cycle: None, .. }) => Ok(()),
            Ok(Search {
                cycle: Some(cycle), ..
            }) => Err(SpaceError::DependencyCycle {
                field: "predecessorIds",
                cycle: cycle.iter().map(|id| id.to_string()).collect(),
            }),
            Err(OverBudget) => Err(SpaceError::DependencyTooComplex {
                field: "predecessorIds",
                budget: EDGE_BUDGET,
            }),
        }
    }

    /// Whether giving record `id` the new predecessors `predecessors` closes a cycle: `id`
    /// itself among them, or `id` reached by following `predecessorIds` from one of them
    /// (through any chain of records of `records`, deleted ones included). Searches
    /// breadth first from all of them at once, so the cycle found is a shortest one;
    /// returned as `[id, p, ..., d]` where `id` would name `p`, each names the next, and
    /// `d` names `id`.
    ///
    /// Every edge followed is taken from `left`; when it runs out the search stops with
    /// [`OverBudget`]. A record that no record names cannot be reached at all (a new one
    /// never is), so then nothing is searched and nothing taken.
    pub fn find_cycle(
        &self,
        records: &Records,
        id: &str,
        predecessors: &[&str],
        left: &mut Budget,
    ) -> Result<Search, OverBudget> {
        if predecessors.contains(&id) {
            return Ok(Search {
                cycle: Some(vec![Id::from(id)]),
                edges: 0,
            });
        }
        let mut edges = 0;
        if predecessors.is_empty() || self.dependents(id).next().is_none() {
            return Ok(Search { cycle: None, edges });
        }
        // Each record reached, with the index of the record that names it (`usize::MAX`
        // for the new predecessors the search starts from).
        let mut reached: Vec<(&str, usize)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for p in predecessors {
            if seen.insert(p) {
                reached.push((p, usize::MAX));
            }
        }
        let mut at = 0;
        while at < reached.len() {
            let Some(record) = records.get(reached[at].0) else {
                at += 1;
                continue;
            };
            for p in self.fields.predecessors(record) {
                if !left.spend() {
                    return Err(OverBudget);
                }
                edges += 1;
                if **p == *id {
                    // `reached[at]` names `id`; walk back to the new predecessor that
                    // leads to it, then turn the walk around.
                    let mut path = Vec::new();
                    let mut step = at;
                    while step != usize::MAX {
                        path.push(Id::from(reached[step].0));
                        step = reached[step].1;
                    }
                    path.push(Id::from(id));
                    path.reverse();
                    return Ok(Search {
                        cycle: Some(path),
                        edges,
                    });
                }
                if seen.insert(p) {
                    reached.push((p, at));
                }
            }
            at += 1;
        }
        Ok(Search { cycle: None, edges })
    }

    /// Settles `isBlocked` for a write that changes the records `changed` (each in its
    /// state after the write; the first is the one the write names, which may be new, the
    /// others the descendants its cascades changed, docs §22): sets each one's own value,
    /// and returns each other record whose value flips because one of them became finished
    /// or unfinished, flipped and touched at `version` and `now`, each once. `records` is
    /// the collection before the write.
    pub fn settle(
        &self,
        records: &Records,
        changed: &mut [Record],
        version: u64,
        now: i64,
    ) -> Vec<Record> {
        let fields = &self.fields;
        // Whether each changed record is finished after the write, by id; a write of one
        // record (nearly every write) needs no map.
        let first = changed
            .first()
            .map(|r| (r.id.clone(), fields.is_finished(r)));
        let more: HashMap<Id, bool> = match changed.len() {
            0 | 1 => HashMap::new(),
            _ => changed
                .iter()
                .map(|r| (r.id.clone(), fields.is_finished(r)))
                .collect(),
        };
        let after = |p: &str| match &first {
            Some((id, finished)) if **id == *p => Some(*finished),
            _ => more.get(p).copied(),
        };
        let finished = |p: &str| {
            after(p).unwrap_or_else(|| records.get(p).is_none_or(|r| fields.is_finished(r)))
        };
        for record in changed.iter_mut() {
            let blocked = fields.blocked(record, finished);
            record.fields.set(fields.blocked, Value::Bool(blocked));
        }
        let mut flipped = Vec::new();
        let mut seen: HashSet<&Id> = HashSet::new();
        for record in changed.iter() {
            // A new record has no dependents yet.
            let Some(before) = records.get(&record.id) else {
                continue;
            };
            if fields.is_finished(before) == fields.is_finished(record) {
                continue;
            }
            for dependent in self.dependents(&record.id) {
                if after(dependent).is_some() || !seen.insert(dependent) {
                    continue;
                }
                let Some(current) = records.get(dependent) else {
                    continue;
                };
                let blocked = fields.blocked(current, finished);
                if blocked != fields.stored_blocked(current) {
                    let mut changed = Record::clone(current);
                    changed.fields.set(fields.blocked, Value::Bool(blocked));
                    changed.touch(version, now);
                    flipped.push(changed);
                }
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
        let graph = graph_dependents;
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
        let rebuilt = Space::from_snapshot(space.view().into()).unwrap();
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
        let mut edges = 0;
        for i in 1..N {
            let (id, previous) = (format!("t{i}"), format!("t{}", i - 1));
            let mut budget = Budget::request();
            let graph = space.graph(Kind::Task).unwrap();
            let view = space.view();
            let records = &view.collections[Kind::Task.index()];
            edges += graph
                .find_cycle(records, &id, &[previous.as_str()], &mut budget)
                .unwrap()
                .edges;
            assert_eq!(budget, Budget::request());
            create(&mut space, &id, json!({ "predecessorIds": [previous] }));
        }
        assert_eq!(edges, 0, "a new task has no dependents to search");
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

    /// `layers` layers of `width` tasks `l{layer}-{i}`, each naming every task of the layer
    /// below, then `top` (no predecessors) and `tail` naming `top`: so `top` has a dependent
    /// and a search for it from layer `layers - 1` follows `(layers - 1) * width * width`
    /// edges and finds nothing.
    fn layered(layers: usize, width: usize) -> Space {
        let mut space = Space::new("s");
        for layer in 0..layers {
            let below: Vec<String> = match layer {
                0 => Vec::new(),
                _ => (0..width).map(|i| format!("l{}-{i}", layer - 1)).collect(),
            };
            for i in 0..width {
                create(
                    &mut space,
                    &format!("l{layer}-{i}"),
                    json!({ "predecessorIds": below }),
                );
            }
        }
        create(&mut space, "top", json!({}));
        create(&mut space, "tail", json!({"predecessorIds": ["top"]}));
        space
    }

    fn layer(layer: usize, width: usize) -> Vec<String> {
        (0..width).map(|i| format!("l{layer}-{i}")).collect()
    }

    #[test]
    fn a_search_takes_each_edge_it_follows_from_the_budget_and_stops_when_it_is_spent() {
        let space = layered(3, 3);
        let graph = space.graph(Kind::Task).unwrap();
        let view = space.view();
        let records = &view.collections[Kind::Task.index()];
        let top = layer(2, 3);
        let from: Vec<&str> = top.iter().map(String::as_str).collect();
        // 3 tasks of layer 2 name 3 each, so do the 3 of layer 1: 18 edges, no cycle.
        let mut budget = Budget::new(18);
        let search = graph
            .find_cycle(records, "top", &from, &mut budget)
            .unwrap();
        assert_eq!((search.cycle, search.edges, budget.left()), (None, 18, 0));
        let mut budget = Budget::new(17);
        assert_eq!(
            graph.find_cycle(records, "top", &from, &mut budget),
            Err(OverBudget)
        );
        // A task nothing names is never searched for, whatever its predecessors.
        let mut budget = Budget::new(0);
        let search = graph
            .find_cycle(records, "tail", &from, &mut budget)
            .unwrap();
        assert_eq!((search.cycle, search.edges), (None, 0));
        // A cycle found stops the search at the edge that closes it: l0-0 would name
        // l1-0, which names l0-0 (its first edge).
        let mut budget = Budget::new(100);
        let search = graph
            .find_cycle(records, "l0-0", &["l1-0"], &mut budget)
            .unwrap();
        assert_eq!(search.cycle, Some(vec![Id::from("l0-0"), Id::from("l1-0")]));
        assert_eq!((search.edges, budget.left()), (1, 99));
    }

    #[test]
    fn only_the_predecessors_a_write_adds_are_searched_from() {
        let mut space = layered(3, 3);
        update(&mut space, "top", json!({ "predecessorIds": layer(2, 3) })).unwrap();
        let graph = space.graph(Kind::Task).unwrap();
        let view = space.view();
        let records = &view.collections[Kind::Task.index()];
        let current = space.get(Kind::Task, "top").unwrap().record;
        let fields = Fields::of(Kind::Task).unwrap();
        let keep = body(Mode::Update, json!({ "predecessorIds": layer(2, 3) }));
        let mut budget = Budget::new(0);
        graph
            .check(records, Some(&current), "top", &keep.fields, &mut budget)
            .unwrap();
        // Adding l1-0 searches from it alone: its 3 edges.
        let mut more = layer(2, 3);
        more.push("l1-0".into());
        let more = body(Mode::Update, json!({ "predecessorIds": more }));
        let mut budget = Budget::new(3);
        graph
            .check(records, Some(&current), "top", &more.fields, &mut budget)
            .unwrap();
        assert_eq!(budget.left(), 0);
        let err = graph
            .check(
                records,
                Some(&current),
                "top",
                &more.fields,
                &mut Budget::new(2),
            )
            .unwrap_err();
        assert!(
            matches!(err, SpaceError::DependencyTooComplex { .. }),
            "{err:?}"
        );
        assert_eq!(fields.predecessors(&current).len(), 3);
    }

    #[test]
    fn a_batch_shares_one_budget_and_fails_whole_at_the_operation_where_it_runs_out() {
        // A search for `top` from layer 3 follows 3 * 100 * 100 = 30,000 edges; a batch
        // that sets them and clears them in turn searches at operations 0, 2, 4, ...: the
        // 34th search (operation 66) would pass 1,000,000 edges in all.
        let mut space = layered(4, 100);
        let version = space.version();
        let top = space.get(Kind::Task, "top").unwrap().record;
        let commands = |count: usize| -> Vec<Command> {
            (0..count)
                .map(|i| {
                    let predecessors = if i % 2 == 0 {
                        layer(3, 100)
                    } else {
                        Vec::new()
                    };
                    Command {
                        kind: Kind::Task,
                        id: "top".into(),
                        op: Op::Update(body(
                            Mode::Update,
                            json!({ "predecessorIds": predecessors }),
                        )),
                        if_match: None,
                    }
                })
                .collect()
        };
        let (index, err) = space.apply(&commands(100), 2_000).unwrap_err();
        assert_eq!(index, 66);
        match err {
            SpaceError::DependencyTooComplex { field, budget } => {
                assert_eq!((field, budget), ("predecessorIds", EDGE_BUDGET));
            }
            other => panic!("not over budget: {other:?}"),
        }
        assert_eq!(space.version(), version, "nothing changed");
        assert_eq!(space.get(Kind::Task, "top").unwrap().record, top);
        assert!(graph_dependents(&space, "l3-0").is_empty());
        // Without operation 66 and the one before it, it fits: 33 searches, 990,000 edges.
        let (outcome, _) = space.apply(&commands(65), 3_000).unwrap();
        assert_eq!(outcome.version, version + 65);
        assert_eq!(graph_dependents(&space, "l3-0"), ["top"]);
    }

    fn graph_dependents(space: &Space, id: &str) -> Vec<String> {
        space
            .graph(Kind::Task)
            .unwrap()
            .dependents(id)
            .map(|d| d.to_string())
            .collect()
    }
}
