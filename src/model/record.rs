//! Stored records: the base fields every kind shares, and field values typed by
//! [`FieldType`](super::kind::FieldType).
//!
//! These types are also what snapshot files hold (see `store::codec`), so changing their
//! shape changes the snapshot format and needs a new format version there.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::kind::{FieldType, Kind};
use super::recurrence::Reminder;
use super::vtodo::{Calendar, Sent};

/// A record id: one allocation per record, shared by every map and index that keys on it.
pub type Id = Arc<str>;

/// The value of one field of a record. The order of the variants is part of the on-disk
/// format (`store::codec`): never reorder them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// JSON null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A finite number.
    Number(f64),
    /// An integer ≤ 2^53 − 1.
    Integer(u64),
    /// A string.
    Text(Box<str>),
    /// A date-time, as milliseconds since the Unix epoch (UTC).
    Time(i64),
    /// An array of id strings.
    Ids(Box<[Box<str>]>),
    /// A task's reminders (docs §18), in the order sent.
    Reminders(Box<[Reminder]>),
    /// What a task keeps of a calendar client's VTODO (docs §20).
    Calendar(Box<Calendar>),
    /// What a task keeps of the calendar object a CalDAV client `PUT` (docs §27): the
    /// object as sent, beside what [`Value::Calendar`] holds.
    Sent(Box<Sent>),
}

/// A task holds 30 values, so each byte of a value is 30 of a task: arrays are boxed slices
/// (16 bytes, not a `Vec`'s 24), keeping a value at 24 bytes.
const _: () = assert!(std::mem::size_of::<Value>() == 24);

impl Value {
    /// The value a field of type `ty` has when a create request leaves it out.
    pub fn default_for(ty: FieldType) -> Value {
        match ty {
            FieldType::Flag | FieldType::ExclusiveFlag | FieldType::Blocked => Value::Bool(false),
            FieldType::Choice(options) => Value::Text(options[0].into()),
            FieldType::Refs(_) | FieldType::Ids | FieldType::Predecessors => {
                Value::Ids(Box::default())
            }
            FieldType::Reminders => Value::Reminders(Box::default()),
            FieldType::Tally => Value::Integer(0),
            FieldType::Order => Value::Text("sortOrder".into()),
            FieldType::QueryZone => Value::Text("UTC".into()),
            FieldType::Title | FieldType::Filter | FieldType::Search => Value::Null,
            FieldType::Text(_)
            | FieldType::Zone
            | FieldType::Recurrence
            | FieldType::Stamp
            | FieldType::Calendar
            | FieldType::NonNegative
            | FieldType::Count
            | FieldType::DateTime
            | FieldType::Id
            | FieldType::Ref(_) => Value::Null,
        }
    }

    /// The string this value holds, if it is one.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// What a listing filter matches this value against: a string as it is, a boolean as
    /// `true` or `false`; other values match no filter.
    pub fn filter_key(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            _ => None,
        }
    }

    /// The date-time this value holds, if it is one.
    pub fn as_time(&self) -> Option<i64> {
        match self {
            Value::Time(ms) => Some(*ms),
            _ => None,
        }
    }

    /// The bytes of text this value carries: a string's, the calendar data's kept lines,
    /// or the object a client sent.
    pub fn text_bytes(&self) -> usize {
        match self {
            Value::Text(s) => s.len(),
            Value::Calendar(kept) => kept.kept.len(),
            Value::Sent(sent) => sent.text.len(),
            _ => 0,
        }
    }

    /// The calendar data this value holds, if it holds some: of a [`Value::Sent`], what it
    /// keeps beside the object (whose kept lines and free categories are in the object).
    pub fn as_calendar(&self) -> Option<&Calendar> {
        match self {
            Value::Calendar(kept) => Some(kept),
            Value::Sent(sent) => Some(&sent.calendar),
            _ => None,
        }
    }

    /// [`Value::as_calendar`], to change it in place (a [`Value::Sent`] stays one).
    pub fn as_calendar_mut(&mut self) -> Option<&mut Calendar> {
        match self {
            Value::Calendar(kept) => Some(kept),
            Value::Sent(sent) => Some(&mut sent.calendar),
            _ => None,
        }
    }

    /// The object a CalDAV client sent, if this value holds one.
    pub fn as_sent(&self) -> Option<&Sent> {
        match self {
            Value::Sent(sent) => Some(sent),
            _ => None,
        }
    }

    /// The ids this value holds (none when it holds no array).
    pub fn as_ids(&self) -> &[Box<str>] {
        match self {
            Value::Ids(ids) => ids,
            _ => &[],
        }
    }
}

/// One record of any kind. `fields` runs parallel to [`Kind::fields`] of its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The record's id, unique per kind per space; also its own id field. Shared (not
    /// copied) by the maps and indexes that key on it.
    pub id: Id,
    /// Position in listings: ascending, ties broken by id.
    pub sort_order: f64,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Time of the last write that touched the record.
    pub updated_at: i64,
    /// Soft-deletion time; `Some` exactly when the record is deleted.
    pub deleted_at: Option<i64>,
    /// The space version of the last write that touched the record (`versionUpdatedAt`).
    pub version: u64,
    /// Values of the kind's fields, in table order.
    pub fields: Box<[Value]>,
}

impl Record {
    /// A new record of `kind` with every field at its default.
    pub fn new(kind: Kind, id: Id, sort_order: f64, now: i64, version: u64) -> Record {
        Record {
            id,
            sort_order,
            created_at: now,
            updated_at: now,
            deleted_at: None,
            version,
            fields: kind
                .fields()
                .iter()
                .map(|f| Value::default_for(f.ty))
                .collect(),
        }
    }

    /// Whether the record is soft-deleted.
    pub fn is_deleted(&self) -> bool {
        self.deleted_at.is_some()
    }

    /// Marks the record as written by the write at `version` and time `now`.
    pub fn touch(&mut self, version: u64, now: i64) {
        self.version = version;
        self.updated_at = now;
    }
}

/// The records of one kind by id: a persistent map, cloned in O(1).
pub type Records = imbl::OrdMap<Id, Arc<Record>>;
