//! Rebuilding a space at start-up: from a snapshot file's contents, then replaying the
//! journal's outcomes over it.

use std::sync::Arc;

use crate::model::kind::Kind;
use crate::model::record::{Record, Records};
use crate::model::vtodo::Objects;

use super::collection::Collection;
use super::commands::Outcome;
use super::indexes::{packed_map, Indexes};
use super::{feed_key, FeedKey, Space};

/// A collection with at least this many records is loaded on two threads.
pub(super) const PARALLEL_LOAD: usize = 50_000;

/// A space as a snapshot file holds it: plain data, checked by [`Space::from_snapshot`].
#[derive(Debug, Clone, PartialEq)]
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
        space.loading = Some(Loading::default());
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
            space.collection_mut(kind).records = packed_map(sorted);
        }
        Ok(space)
    }

    /// Ends the loading begun by [`Space::load`]: builds every structure derived from the
    /// records, a large collection's on two threads. Does nothing to a space that is not
    /// loading.
    pub fn finish_load(&mut self) {
        let Some(loading) = self.loading.take() else {
            return;
        };
        for collection in &mut self.collections {
            let kind = collection.kind;
            let records: Vec<Arc<Record>> = collection.records.values().cloned().collect();
            let Collection {
                records: map,
                indexes,
                ..
            } = collection;
            // Replayed records were put one at a time, into nodes a bulk build fills.
            let repack = |map: &mut Records| {
                if loading.replayed[kind.index()] {
                    let sorted = records.iter().map(|r| (r.id.clone(), Arc::clone(r)));
                    *map = packed_map(sorted.collect());
                }
            };
            if records.len() < PARALLEL_LOAD {
                repack(map);
                *indexes = Indexes::build(kind, &records);
            } else {
                std::thread::scope(|scope| {
                    scope.spawn(|| *indexes = Indexes::build(kind, &records));
                    repack(map);
                });
            }
            if let Some(graph) = &mut collection.graph {
                graph.rebuild(&collection.records);
            }
            if let Some(tree) = &mut collection.tree {
                tree.rebuild(&collection.records);
            }
            let reminders = records
                .iter()
                .filter_map(|r| collection.reminder_key(r))
                .collect();
            collection.reminders = reminders;
            if let Some(fields) = &collection.calendar {
                collection.objects = Objects::build(fields, &records);
            }
        }
        let mut feed: Vec<(FeedKey, Arc<Record>)> = self
            .collections
            .iter()
            .flat_map(|c| {
                c.records
                    .values()
                    .map(move |r| (feed_key(c.kind, r), Arc::clone(r)))
            })
            .collect();
        feed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.feed = packed_map(feed);
    }
}

/// What a loading space notes for [`Space::finish_load`].
#[derive(Debug, Clone, Default)]
pub(super) struct Loading {
    /// Whether the journal put records of each kind (in [`Kind::ALL`] order).
    pub(super) replayed: [bool; Kind::ALL.len()],
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
