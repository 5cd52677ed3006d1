//! A space: every record of the six kinds, their ordered indexes and the version counter.
//!
//! `Space` is plain data with methods; its actor (`actors::space`) calls one method per
//! message, so each method runs alone. A write is a value: [`Space::apply`] takes a
//! [`Command`] whose every choice (the new record's id, the time) was made before, checks
//! everything that can fail before it changes anything, and returns an [`Outcome`] listing
//! every record the write touched in its new state. The outcome is what the journal stores
//! and what [`Space::replay`] re-applies at start-up, so replay never decides anything again.
//! Each applied write also yields an [`Undo`], the touched records' former states, so a
//! write whose journal entry could not be stored is taken back.
//!
//! Records, indexes, the feed and the dependency graph are persistent maps and sets
//! (`imbl`): cloning a whole `Space` costs O(1) and shares every record and tree node, so
//! the actor publishes a copy for readers on other threads after its writes are durable,
//! and a [`SpaceView`] for a snapshot never stops the space. A write copies the few nodes on
//! its paths that a published copy still shares. The trees grow a node at a time, with no
//! whole-table rehash that would stall a large space, and give the ordered walk that
//! paging needs.
//!
//! The files: this one holds [`Space`] and its reads of one record; `collection` and
//! `indexes` the records of a kind and their ordered indexes; `find` the task indexes and
//! the planner of a task listing; `commands` what a write is made of and yields; `apply`
//! how a write is decided, committed and taken back; `list` and `feed` the paged reads;
//! `view` the state published to readers; `restore` loading from a snapshot and replaying
//! the journal; `image` the task posting lists a snapshot carries.

use std::sync::Arc;

use imbl::OrdMap;

use crate::model::deps::Graph;
use crate::model::error::SpaceError;
use crate::model::kind::Kind;
use crate::model::record::{Id, Record};
use crate::model::recurrence::Listed;
use crate::model::time_fields::OccurrenceQuery;
use crate::model::vtodo::CalendarTasks;

mod apply;
mod collection;
mod commands;
mod feed;
mod find;
mod image;
mod indexes;
mod list;
mod postings;
mod restore;
#[cfg(test)]
mod tests;
mod view;

pub use apply::{LIGHT_COMMANDS, LIGHT_DEPENDENTS, LIGHT_TEXT_BYTES};
use collection::Collection;
pub use commands::{Changes, Command, IfMatch, Op, Outcome, Step, Touched, Undo};
pub use feed::FeedPage;
pub use find::{Plan, SCAN_BELOW};
pub use image::{ListOut, PostingsOut, TaskImage};
pub use list::{ListQuery, Page, Reset, TaskQuery};
pub use postings::TermsImage;
pub use restore::SpaceSnapshot;
pub use view::SpaceView;

/// A record and the space version it is reported with.
#[derive(Debug, Clone)]
pub struct Item {
    /// The record as it is after the operation.
    pub record: Arc<Record>,
    /// The space version after the operation.
    pub version: u64,
}

/// A space: its id, version counter and the records of every kind.
#[derive(Debug, Clone)]
pub struct Space {
    id: Box<str>,
    version: u64,
    /// The highest version reserved on disk, as read at start-up (see `skip_reserved`).
    reserved: u64,
    collections: [Collection; Kind::ALL.len()],
    /// Every record by `versionUpdatedAt`, then kind, then id: the change feed's order.
    /// The records sit beside their keys, so a feed page looks nothing up.
    feed: OrdMap<FeedKey, Arc<Record>>,
    /// `Some` while the space is loading (see [`Space::load`]): writes put records only.
    loading: Option<restore::Loading>,
}

// Every space of every user is one `Space` once loaded, idle or not (100,000 users: 100,000
// of them), and a start-up moves each a few times: its size is a cost of every space. The
// task indexes are boxed for it (4,984 bytes while they were inline).
const _: () = assert!(std::mem::size_of::<Space>() <= 3_072);

/// A record's place in the change feed: its version and kind in one word ([`feed_key`]),
/// then its id; 16 bytes where `(u64, Kind, Id)` takes 24.
type FeedKey = (u64, Id);

/// The feed key of `record` of `kind`: the version above the kind's three bits, so the
/// keys sort by version, then kind, then id. Versions stay far below 2^61 (each write
/// adds one).
fn feed_key(kind: Kind, record: &Record) -> FeedKey {
    (feed_word(record.version, kind), record.id.clone())
}

/// The first word of the feed key of a record of `kind` at `version`.
fn feed_word(version: u64, kind: Kind) -> u64 {
    const _: () = assert!(Kind::ALL.len() <= 8);
    version << 3 | kind.index() as u64
}

/// The kind of a feed key's first word.
fn feed_kind(word: u64) -> Kind {
    Kind::ALL[(word & 7) as usize]
}

impl Space {
    /// A new, empty space at version 0.
    pub fn new(id: &str) -> Space {
        Space {
            id: id.into(),
            version: 0,
            reserved: 0,
            collections: Kind::ALL.map(Collection::new),
            feed: OrdMap::new(),
            loading: None,
        }
    }

    /// The space id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The current space version.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The highest version reserved on disk, as read at start-up.
    pub fn reserved(&self) -> u64 {
        self.reserved
    }

    /// Notes a reservation read from disk: versions up to `up_to` may have been seen.
    pub fn reserve(&mut self, up_to: u64) {
        self.reserved = self.reserved.max(up_to);
    }

    /// After an unclean stop: continue above every version that may have been handed out.
    pub fn skip_reserved(&mut self) {
        self.version = self.version.max(self.reserved);
        self.reserved = self.version;
    }

    fn collection(&self, kind: Kind) -> &Collection {
        &self.collections[kind.index()]
    }

    fn collection_mut(&mut self, kind: Kind) -> &mut Collection {
        &mut self.collections[kind.index()]
    }

    /// The dependency graph of `kind`, when its records have predecessors.
    pub fn graph(&self, kind: Kind) -> Option<&Graph> {
        self.collection(kind).graph.as_ref()
    }

    /// The record `id` of `kind`, deleted or not.
    pub fn get(&self, kind: Kind, id: &str) -> Result<Item, SpaceError> {
        Ok(Item {
            record: Arc::clone(self.collection(kind).get(id)?),
            version: self.version,
        })
    }

    /// The occurrences of task `id` of `kind` (deleted or not) that `query` asks for, read at
    /// `now`, whether more follow, and the space version (docs §18). A kind without
    /// time fields has no record to list.
    pub fn occurrences(
        &self,
        kind: Kind,
        id: &str,
        query: &OccurrenceQuery,
        now: i64,
    ) -> Result<(Vec<Listed>, bool, u64), SpaceError> {
        let collection = self.collection(kind);
        let record = collection.get(id)?;
        let Some(times) = &collection.times else {
            return Err(SpaceError::NotFound {
                kind,
                id: id.to_string(),
            });
        };
        let (listed, more) = times.occurrences(record, query, now)?;
        Ok((listed, more, self.version))
    }

    /// The tasks as calendar clients name them (docs §20), in O(1).
    pub fn calendar_tasks(&self) -> CalendarTasks {
        let tasks = self.collection(Kind::Task);
        CalendarTasks::new(tasks.records.clone(), tasks.objects.clone())
    }

    /// When the next reminder of the space is due to fire (docs §18); it may be past.
    pub fn next_reminder(&self) -> Option<i64> {
        self.collection(Kind::Task)
            .reminders
            .get_min()
            .map(|(at, _)| *at)
    }

    /// The tasks with a reminder due at or before `now`, earliest first, at most `limit`:
    /// each is fired by a write of [`Op::Remind`].
    pub fn reminders_due(&self, now: i64, limit: usize) -> Vec<Id> {
        self.collection(Kind::Task)
            .reminders
            .iter()
            .take_while(|(at, _)| *at <= now)
            .take(limit)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// Puts `record` in place of record `id` of `kind` (or removes it), keeping the feed in
    /// step; returns the record it replaced.
    fn put(&mut self, kind: Kind, id: &str, record: Option<Arc<Record>>) -> Option<Arc<Record>> {
        if let Some(loading) = &mut self.loading {
            loading.replayed[kind.index()] += 1;
            let records = &mut self.collections[kind.index()].records;
            let old = match record {
                Some(record) => records.insert(record.id.clone(), record),
                None => records.remove(id),
            };
            if kind == Kind::Task && loading.image.is_some() {
                (loading.changed.entry(Id::from(id))).or_insert_with(|| old.clone());
            }
            return old;
        }
        let version = record.as_ref().map(|new| new.version);
        if let Some(new) = &record {
            self.feed.insert(feed_key(kind, new), Arc::clone(new));
        }
        let old = self.collection_mut(kind).put(id, record);
        if let Some(old) = old.as_ref().filter(|old| version != Some(old.version)) {
            self.feed.remove(&feed_key(kind, old));
        }
        old
    }
}
