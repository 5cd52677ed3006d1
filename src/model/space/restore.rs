//! Rebuilding a space at start-up: from a snapshot file's contents, then replaying the
//! journal's outcomes over it.

use std::sync::Arc;

use crate::model::kind::Kind;
use crate::model::record::{Record, Records};
use crate::model::vtodo::Objects;
use crate::threads::beside;

use super::collection::{reminder_key, Collection};
use super::commands::Outcome;
use super::image::{Changed, Restored, TaskImage};
use super::indexes::{packed_map, Indexes};
use super::{feed_key, FeedKey, Space};
use imbl::OrdMap;

/// A collection with at least this many records is loaded on two threads.
pub(super) const PARALLEL_LOAD: usize = 50_000;

/// A load builds the task posting lists rather than apply the journal's changes to the
/// snapshot's when the journal changed more than one of this many of the tasks it holds
/// after the replay (tasks it made do not count: they are added as a build adds them).
/// Applied in bulk, a change costs about twice a task's share of a build: its words are
/// folded before and after.
const CHANGED_PER_BUILD: usize = 2;

/// A space as a snapshot file holds it: plain data, checked by [`Space::from_snapshot`].
#[derive(Debug, Clone)]
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
    /// The task posting lists, when the file has them (format 12): derived from the
    /// records, taken rather than built again if they fit them.
    pub tasks: Option<TaskImage>,
}

impl PartialEq for SpaceSnapshot {
    /// Two snapshots are equal when their state is: the posting lists are derived from
    /// the records, and another build of them may hand out other handles.
    fn eq(&self, other: &Self) -> bool {
        (self.id == other.id && self.version == other.version)
            && (self.reserved == other.reserved && self.collections == other.collections)
    }
}

impl Space {
    /// Re-applies a journaled outcome. It must follow the space's version, or jump to a
    /// reserved one (the first write after an unclean stop in `write` or `snapshot`
    /// durability); outcomes the space already holds are skipped.
    pub fn replay(&mut self, outcome: &Outcome) -> Result<(), String> {
        self.replay_noting(outcome).map(drop)
    }

    /// [`Space::replay`], giving the touched records' former states (for the write's
    /// activity, docs §23), or `None` when the space had the write already.
    pub fn replay_noting(
        &mut self,
        outcome: &Outcome,
    ) -> Result<Option<Vec<Option<Arc<Record>>>>, String> {
        if outcome.version <= self.version {
            return Ok(None);
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
        Ok(Some(before.into_iter().map(|(_, _, r)| r).collect()))
    }

    /// Rebuilds a space from a snapshot file's contents, checking that it is consistent:
    /// [`Space::load`] then [`Space::finish_load`].
    pub fn from_snapshot(snapshot: SpaceSnapshot) -> Result<Space, String> {
        let mut space = Space::load(snapshot)?;
        space.finish_load();
        Ok(space)
    }

    /// The records of a snapshot file's contents, checked, without the structures derived
    /// from them (indexes, graph, tree, reminders, calendar names, feed): the space is
    /// *loading*. Its journal is replayed over it ([`Space::replay`] then only puts records),
    /// and [`Space::finish_load`] builds the derived structures once, in bulk, rather than
    /// entry by entry. Until then the space must serve no read and decide no write.
    pub fn load(snapshot: SpaceSnapshot) -> Result<Space, String> {
        let mut space = Space::new(&snapshot.id);
        space.version = snapshot.version;
        space.reserved = snapshot.reserved.max(snapshot.version);
        let mut loading = Loading::default();
        let mut image = snapshot.tasks;
        for (kind, records) in snapshot.collections {
            let mut sorted = Vec::with_capacity(records.len());
            for record in records {
                check_record(kind, &record, snapshot.version)?;
                sorted.push((record.id.clone(), record));
            }
            // Snapshots list records by id, so this sort only checks that they are.
            sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            if let Some(twice) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(format!("{} '{}' appears twice", kind.noun(), twice[0].0));
            }
            if kind == Kind::Task {
                let ids = sorted.iter().map(|(id, _)| id.clone());
                loading.image = image.take().and_then(|image| image.resolve(ids));
            }
            space.collection_mut(kind).records = packed_map(sorted);
        }
        space.loading = Some(loading);
        Ok(space)
    }

    /// Ends the loading begun by [`Space::load`]: builds every structure derived from the
    /// records; a large space's feed, indexes and other structures on threads of their
    /// own. Does nothing to a space that is not loading.
    pub fn finish_load(&mut self) {
        let Some(mut loading) = self.loading.take() else {
            return;
        };
        let large = self
            .collections
            .iter()
            .map(|c| c.records.len())
            .sum::<usize>()
            >= PARALLEL_LOAD;
        let all: Vec<(Kind, Records)> = (self.collections.iter())
            .map(|c| (c.kind, c.records.clone()))
            .collect();
        std::thread::scope(|scope| {
            let feed = beside(scope, large, || feed_of(&all));
            for collection in &mut self.collections {
                let kind = collection.kind;
                // The image serves unless the journal changed too many of its tasks for
                // applying the changes to beat a build.
                let changed = loading.changed.values().filter(|before| before.is_some());
                let image = (kind == Kind::Task
                    && changed.count() <= collection.records.len() / CHANGED_PER_BUILD)
                    .then(|| loading.image.take())
                    .flatten();
                let by_id = collection.records.clone();
                let restore = image.map(|image| Restore {
                    image,
                    changed: &loading.changed,
                    records: &by_id,
                });
                collection.finish_load(restore, loading.replayed[kind.index()]);
            }
            self.feed = feed.value();
        });
    }
}

/// The change feed of the records of each kind.
fn feed_of(all: &[(Kind, Records)]) -> OrdMap<FeedKey, Arc<Record>> {
    let mut feed: Vec<(FeedKey, Arc<Record>)> = (all.iter())
        .flat_map(|(kind, records)| {
            (records.values()).map(move |r| (feed_key(*kind, r), Arc::clone(r)))
        })
        .collect();
    feed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    packed_map(feed)
}

impl Collection {
    /// Builds the structures derived from the records (indexes, graph, tree, reminders,
    /// calendar names), the task indexes through `restore` when it serves; first packs the
    /// records' map again when the journal put more than half of them into it (`replayed`
    /// puts, one at a time, which leave nodes half full). Below that the few half-full
    /// nodes cost less than a pack: at 1,000,000 tasks and 153,000 puts, a pack took
    /// 0.56 s of CPU to save about 4 bytes a task. A large collection's indexes build
    /// beside the rest.
    fn finish_load(&mut self, restore: Option<Restore>, replayed: usize) {
        let kind = self.kind;
        let records: Vec<Arc<Record>> = self.records.values().cloned().collect();
        let Collection {
            records: map,
            indexes,
            graph,
            tree,
            times,
            reminders,
            calendar,
            objects,
            ..
        } = self;
        let mut rest = || {
            if replayed > records.len() / 2 {
                let sorted = records.iter().map(|r| (r.id.clone(), Arc::clone(r)));
                *map = packed_map(sorted.collect());
            }
            if let Some(graph) = graph {
                graph.rebuild(map);
            }
            if let Some(tree) = tree {
                tree.rebuild(map);
            }
            *reminders = (records.iter())
                .filter_map(|r| reminder_key(times.as_ref(), r))
                .collect();
            if let Some(fields) = calendar {
                *objects = Objects::build(fields, &records);
            }
        };
        if records.len() < PARALLEL_LOAD {
            rest();
            *indexes = Indexes::build(kind, &records, restore);
        } else {
            std::thread::scope(|scope| {
                scope.spawn(|| *indexes = Indexes::build(kind, &records, restore));
                rest();
            });
        }
    }
}

/// What a loading space notes for [`Space::finish_load`].
#[derive(Debug, Clone, Default)]
pub(super) struct Loading {
    /// How many records the journal put, of each kind (in [`Kind::ALL`] order).
    pub(super) replayed: [usize; Kind::ALL.len()],
    /// The snapshot's task posting lists, when it had them and they fit its tasks.
    pub(super) image: Option<Restored>,
    /// While there is an image: the tasks the journal put, each as the snapshot held it.
    pub(super) changed: Changed,
}

/// A snapshot's task posting lists for [`Indexes::build`], with what the journal changed
/// since.
#[derive(Debug)]
pub(super) struct Restore<'a> {
    /// The lists and each snapshot task's handle.
    pub(super) image: Restored,
    /// The tasks the journal put, each as the snapshot held it.
    pub(super) changed: &'a Changed,
    /// The tasks now, by id.
    pub(super) records: &'a Records,
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
