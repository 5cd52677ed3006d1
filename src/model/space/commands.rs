//! What a write is made of: a [`Command`] and its [`Op`], the validated [`Changes`] it
//! carries, and what applying it yields ([`Outcome`], its [`Step`]s and [`Undo`]).

use std::sync::Arc;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::model::activity::Meta;
use crate::model::kind::Kind;
use crate::model::record::{Id, Record, Value};

use super::Item;

/// A validated request body.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    /// The own id asked for on create.
    pub id: Option<Box<str>>,
    /// The `spaceId` named in the body.
    pub space_id: Option<String>,
    /// A new `sortOrder`.
    pub sort_order: Option<f64>,
    /// New values by position in [`Kind::fields`], each at most once.
    pub fields: Vec<(usize, Value)>,
    /// Date fields given as a date `YYYY-MM-DD`, by position (never also in `fields`): the
    /// space sets each to 00:00 of that day in the record's `timeZone` after the write.
    pub days: Vec<(usize, NaiveDate)>,
}

/// A write, decided completely before the space sees it: replaying it gives the same
/// result, because nothing in it is left to the model to choose.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The kind of the record it names.
    pub kind: Kind,
    /// The record it names; on create, the new record's id (the client's or a new UUID).
    pub id: Box<str>,
    /// What it does.
    pub op: Op,
    /// For an update, delete or restore: the record's current `versionUpdatedAt` must be
    /// one of these (`If-Match`), else nothing changes.
    pub if_match: Option<IfMatch>,
}

/// The versions an `If-Match` accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IfMatch {
    /// `*`: any existing record.
    Any,
    /// A list of `versionUpdatedAt` values.
    Versions(Vec<u64>),
}

/// What a [`Command`] does to the record it names.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Create the record from a validated body (its `id` is the command's).
    Create(Changes),
    /// Change fields of the record.
    Update(Changes),
    /// Soft-delete (`true`) or restore (`false`) the record.
    SetDeleted(bool),
    /// Fire the task's reminders that are due (docs §18): `remindedAt` becomes the
    /// write's time. Refused with [`SpaceError::NothingDue`] when none is.
    Remind,
}

/// One record a write touched, in its state after the write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Touched {
    /// The record's kind.
    pub kind: Kind,
    /// The record after the write.
    pub record: Arc<Record>,
}

impl Touched {
    /// `record` of `kind` as a write leaves it: its light values unstored again
    /// ([`Fields::shrink`](crate::model::record::Fields::shrink)), then shared.
    pub(super) fn new(kind: Kind, mut record: Record) -> Touched {
        record.fields.shrink();
        Touched {
            kind,
            record: Arc::new(record),
        }
    }
}

/// What one command of a write did: every record it touched, the one it names first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Whether it created the record it names.
    pub created: bool,
    /// Every record it touched, in their new state; the named one first.
    pub touched: Vec<Touched>,
}

/// What a write did: the versions it made and every record it touched. A write of `n`
/// commands (a batch; usually one) makes versions `base + 1 ..= base + n`, one per step.
/// Journal entries hold outcomes; replaying one re-applies it exactly. Part of the journal
/// format (`store::codec`): a change of shape needs a new format version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The space version before the write.
    pub base: u64,
    /// The space version after the write.
    pub version: u64,
    /// One step per command, in order.
    pub steps: Vec<Step>,
    /// Its time, actor and revert (docs §23): journaled beside the outcome
    /// ([`Entry::Written`](crate::store::codec::Entry::Written)), not in it, so that the
    /// outcomes of older formats still decode.
    #[serde(skip)]
    pub meta: Meta,
}

impl Outcome {
    /// The record the last command named, with the version the write made.
    pub fn item(&self) -> Item {
        let step = self.steps.last().expect("a write has a step");
        Item {
            record: Arc::clone(&step.touched[0].record),
            version: self.version,
        }
    }

    /// Every record the write touched, in the order it touched them.
    pub fn touched(&self) -> impl Iterator<Item = &Touched> {
        self.steps.iter().flat_map(|s| &s.touched)
    }
}

/// A record's state before a write: its kind, id, and the record (`None`: it did not exist).
pub(super) type Former = (Kind, Id, Option<Arc<Record>>);

/// How to take an applied write back: the touched records' former states.
#[derive(Debug, Clone)]
pub struct Undo {
    pub(super) base: u64,
    pub(super) before: Vec<Former>,
}

impl Undo {
    /// The touched records' former states, in the outcome's order (`None`: created).
    pub fn formers(&self) -> Vec<Option<Arc<Record>>> {
        self.before.iter().map(|(_, _, r)| r.clone()).collect()
    }
}
