//! The six record kinds and the table of fields each one has.
//!
//! Everything that differs between tasks, lists, schedules, categories, contexts and views is
//! described here as data: the collection's path segment, the own id field, and a table of
//! [`Field`]s with their [`FieldType`]. Validation, storage, rendering and paging read these
//! tables; no other module has a code path for one particular kind.

use serde::{Deserialize, Serialize};

/// A kind of record; each has its own collection under `/api/v1`. The order of the
/// variants is part of the on-disk format (`store::codec`): never reorder them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Kind {
    /// Tasks (`todoId`).
    Task,
    /// Lists (`listId`).
    List,
    /// Schedules (`scheduleId`).
    Schedule,
    /// Categories (`categoryId`).
    Category,
    /// Contexts (`contextId`).
    Context,
    /// Views (`viewId`): saved task queries (docs §24). Added in format 9, last.
    View,
}

/// How a field's value is checked, stored and defaulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A string of at most this many characters, or null.
    Text(usize),
    /// A boolean; false by default, never null.
    Flag,
    /// A boolean that at most one record of the kind in a space has set: setting it on one
    /// record clears it on every other record in the same write.
    ExclusiveFlag,
    /// A finite number ≥ 0, or null.
    NonNegative,
    /// An integer from 0 to 2^53 − 1, or null.
    Count,
    /// An RFC 3339 date-time within years 0001–9999 UTC, or a date `YYYY-MM-DD` meaning
    /// 00:00 of that day in the record's `timeZone` after the write (docs §18), or null.
    DateTime,
    /// One of the listed strings; the first is the default; never null.
    Choice(&'static [&'static str]),
    /// An id-shaped string, or null.
    Id,
    /// Null, or the id of an active record of the given kind in the same space.
    Ref(Kind),
    /// Up to [`MAX_IDS`] ids of active records of the given kind; duplicates dropped.
    Refs(Kind),
    /// Up to [`MAX_IDS`] id-shaped strings; duplicates dropped.
    Ids,
    /// Up to [`MAX_IDS`] ids of active records of the same kind that the record waits for;
    /// duplicates dropped; never closing a cycle (docs §15, `model::deps`).
    Predecessors,
    /// A boolean the space derives from the record's predecessors (`isBlocked`): read-only
    /// in a request body, false by default, never null.
    Blocked,
    /// An IANA time zone name (`timeZone`), stored as sent, or null for UTC.
    Zone,
    /// An RFC 5545 `RRULE` value (`recurrence`), or null. A request only checks that it is
    /// a string; the space checks the rule against the record's state after the write.
    Recurrence,
    /// At most [`MAX_REMINDERS`](super::limits::MAX_REMINDERS) reminders, each
    /// `{"at": <date-time>}` or `{"minutesBefore": <minutes>}`; empty by default, never null.
    Reminders,
    /// A date-time the space sets (`remindedAt`, `lastCompletedAt`): read-only in a request
    /// body, null by default.
    Stamp,
    /// An integer the space counts (`completedCount`): read-only in a request body, 0 by
    /// default, never null.
    Tally,
    /// What a task keeps of the VTODO a calendar client sent (docs §20, see
    /// [`Calendar`](super::vtodo::Calendar)), or null: hidden from the JSON API (no
    /// response shows it, no request or filter names it), written by the calendar fronts.
    Calendar,
    /// A view's name (docs §24): a string of 1 to [`NAME_MAX_CHARS`] characters, required
    /// on create, never null.
    Title,
    /// A view's `filter` (docs §17, §24): a string or null; the space parses it when it is
    /// written, so a bad one is refused with its position (`400 invalid_filter`).
    Filter,
    /// A view's `q` (docs §17): at most
    /// [`SEARCH_MAX_CHARS`](super::limits::SEARCH_MAX_CHARS) characters, or null.
    Search,
    /// A view's `orderBy` (docs §17): `"sortOrder"` by default, never null.
    Order,
    /// A view's `tz`: an IANA name as §17's `tz` takes it, `"UTC"` by default, never null.
    QueryZone,
}

impl FieldType {
    /// Whether a request body may set the field.
    pub fn is_writable(self) -> bool {
        !matches!(
            self,
            FieldType::Blocked | FieldType::Stamp | FieldType::Tally | FieldType::Calendar
        )
    }

    /// Whether the JSON API leaves the field out: responses do not show it and requests,
    /// filters and orders cannot name it.
    pub fn is_hidden(self) -> bool {
        self == FieldType::Calendar
    }
}

pub use super::limits::MAX_IDS;
use super::limits::{LABEL_MAX_CHARS, NAME_MAX_CHARS, NOTES_MAX_CHARS, STYLE_MAX_CHARS};
use super::record::Value;

/// One updatable field of a kind, besides `sortOrder` which every kind has.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The JSON name of the field.
    pub name: &'static str,
    /// Its type and rules.
    pub ty: FieldType,
    /// Whether listing the collection can filter on it by exact match (booleans: `true` or
    /// `false`).
    pub filter: bool,
}

impl Field {
    /// What a listing's exact filter matches this field's `value` against: a string as it
    /// is, a boolean as `true` or `false`, and a null reference as the empty string (so
    /// `?parentId=` finds the roots, docs §22, and `?listId=` the tasks in no list); other
    /// values match no filter.
    pub fn filter_key<'v>(&self, value: &'v Value) -> Option<&'v str> {
        match (self.ty, value) {
            (FieldType::Ref(_), Value::Null) => Some(""),
            _ => value.filter_key(),
        }
    }
}

const fn field(name: &'static str, ty: FieldType) -> Field {
    Field {
        name,
        ty,
        filter: false,
    }
}

const fn filter(name: &'static str, ty: FieldType) -> Field {
    Field {
        name,
        ty,
        filter: true,
    }
}

const TASK_FIELDS: &[Field] = &[
    field("name", FieldType::Text(NAME_MAX_CHARS)),
    field("notesMarkdown", FieldType::Text(NOTES_MAX_CHARS)),
    filter("status", FieldType::Text(LABEL_MAX_CHARS)),
    field("complexity", FieldType::Text(LABEL_MAX_CHARS)),
    filter("listId", FieldType::Ref(Kind::List)),
    filter("contextId", FieldType::Ref(Kind::Context)),
    field("goalId", FieldType::Id),
    field("categoryIds", FieldType::Refs(Kind::Category)),
    field("scheduleIds", FieldType::Refs(Kind::Schedule)),
    field("tagIds", FieldType::Ids),
    field("dateDue", FieldType::DateTime),
    field("dateStart", FieldType::DateTime),
    field("durationEstimate", FieldType::NonNegative),
    field("durationMs", FieldType::Count),
    field("isImportant", FieldType::Flag),
    field("isTimeSensitive", FieldType::Flag),
    field("TodoPredecessorsAllAny", FieldType::Choice(&["ALL", "ANY"])),
    field("TodoPredecessorsView", FieldType::Flag),
    // Added in format 3: records of format 1 and 2 are read with these two at their
    // defaults (`store::codec`), so they stay last.
    field("predecessorIds", FieldType::Predecessors),
    filter("isBlocked", FieldType::Blocked),
    // Added in format 5 (docs §18): records of formats 1 to 4 are read with these at
    // their defaults (`store::codec`), so they stay last.
    field("timeZone", FieldType::Zone),
    field("isAllDay", FieldType::Flag),
    field("recurrence", FieldType::Recurrence),
    field("recurFrom", FieldType::Choice(&["due", "completion"])),
    field("reminders", FieldType::Reminders),
    field("remindedAt", FieldType::Stamp),
    field("completedCount", FieldType::Tally),
    field("lastCompletedAt", FieldType::Stamp),
    // Added in format 7 (docs §20): records of formats 1 to 6 are read with these at
    // their defaults (`store::codec`), so they stay last.
    field("completedAt", FieldType::Stamp),
    field("calendar", FieldType::Calendar),
    // Added in format 8 (docs §22): records of formats 1 to 7 are read with it null
    // (`store::codec`), so it stays last. A reference to the kind itself: the parent,
    // which makes tasks trees (`model::tree`).
    filter("parentId", FieldType::Ref(Kind::Task)),
];

const LIST_FIELDS: &[Field] = &[
    field("name", FieldType::Text(NAME_MAX_CHARS)),
    field("color", FieldType::Text(STYLE_MAX_CHARS)),
    field("emoji", FieldType::Text(STYLE_MAX_CHARS)),
    field("icon", FieldType::Text(LABEL_MAX_CHARS)),
    field("isDefault", FieldType::ExclusiveFlag),
    field("keyboardShortcut", FieldType::Text(STYLE_MAX_CHARS)),
];

/// Schedules, categories and contexts share one field table.
const GROUP_FIELDS: &[Field] = &[
    field("name", FieldType::Text(NAME_MAX_CHARS)),
    field("color", FieldType::Text(STYLE_MAX_CHARS)),
    field("emoji", FieldType::Text(STYLE_MAX_CHARS)),
    field("icon", FieldType::Text(LABEL_MAX_CHARS)),
];

/// A view's definition is `filter`, `q`, `orderBy` and `tz` (docs §24): the fields whose
/// change sends live streams a new `reset` and ends the view's cursors.
const VIEW_FIELDS: &[Field] = &[
    field("name", FieldType::Title),
    field("filter", FieldType::Filter),
    field("q", FieldType::Search),
    field("orderBy", FieldType::Order),
    field("tz", FieldType::QueryZone),
];

// A record's number of fields names its table (`Kind::of_field_count`, `record::Fields`).
const _: () = {
    let lengths = [
        TASK_FIELDS.len(),
        LIST_FIELDS.len(),
        GROUP_FIELDS.len(),
        VIEW_FIELDS.len(),
    ];
    let mut i = 0;
    while i < lengths.len() {
        let mut j = i + 1;
        while j < lengths.len() {
            assert!(lengths[i] != lengths[j], "two field tables of one length");
            j += 1;
        }
        i += 1;
    }
};

impl Kind {
    /// Every kind, in the order their collections are stored.
    pub const ALL: [Kind; 6] = [
        Kind::Task,
        Kind::List,
        Kind::Schedule,
        Kind::Category,
        Kind::Context,
        Kind::View,
    ];

    /// The kind served under the path segment `segment` (`tasks`, `lists`, ...).
    pub fn from_collection(segment: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.collection() == segment)
    }

    /// Position of the kind in [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The collection's path segment.
    pub fn collection(self) -> &'static str {
        match self {
            Kind::Task => "tasks",
            Kind::List => "lists",
            Kind::Schedule => "schedules",
            Kind::Category => "categories",
            Kind::Context => "contexts",
            Kind::View => "views",
        }
    }

    /// The record's own id field, always equal to `id`.
    pub fn id_field(self) -> &'static str {
        match self {
            Kind::Task => "todoId",
            Kind::List => "listId",
            Kind::Schedule => "scheduleId",
            Kind::Category => "categoryId",
            Kind::Context => "contextId",
            Kind::View => "viewId",
        }
    }

    /// The singular noun used in messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::List => "list",
            Kind::Schedule => "schedule",
            Kind::Category => "category",
            Kind::Context => "context",
            Kind::View => "view",
        }
    }

    /// The kind's updatable fields besides `sortOrder`, in the order records store them.
    pub fn fields(self) -> &'static [Field] {
        match self {
            Kind::Task => TASK_FIELDS,
            Kind::List => LIST_FIELDS,
            Kind::Schedule | Kind::Category | Kind::Context => GROUP_FIELDS,
            Kind::View => VIEW_FIELDS,
        }
    }

    /// A kind whose field table has `count` fields, when one has: the four tables
    /// (tasks, lists, the three groups, views) have lengths of their own, so a record's
    /// number of fields names its table.
    pub fn of_field_count(count: usize) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.fields().len() == count)
    }

    /// Position of the field the JSON API calls `name` in [`Kind::fields`]; a hidden field
    /// ([`FieldType::is_hidden`]) has no JSON name.
    pub fn field_index(self, name: &str) -> Option<usize> {
        self.fields()
            .iter()
            .position(|f| f.name == name && !f.ty.is_hidden())
    }

    /// Position of the first field of type `ty` in [`Kind::fields`].
    pub fn field_of_type(self, ty: FieldType) -> Option<usize> {
        self.fields().iter().position(|f| f.ty == ty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_collection_segment_maps_back_to_its_kind() {
        for kind in Kind::ALL {
            assert_eq!(Kind::from_collection(kind.collection()), Some(kind));
            assert_eq!(Kind::ALL[kind.index()], kind);
        }
        assert_eq!(Kind::from_collection("goals"), None);
    }

    #[test]
    fn field_names_are_unique_within_each_kind() {
        for kind in Kind::ALL {
            let fields = kind.fields();
            for (i, f) in fields.iter().enumerate().filter(|(_, f)| !f.ty.is_hidden()) {
                assert_eq!(kind.field_index(f.name), Some(i), "{:?}.{}", kind, f.name);
                assert_ne!(f.name, kind.id_field());
            }
        }
    }

    #[test]
    fn a_hidden_field_has_no_json_name() {
        let at = Kind::Task.field_of_type(FieldType::Calendar).unwrap();
        assert_eq!(Kind::Task.field_index(Kind::Task.fields()[at].name), None);
        assert!(!FieldType::Calendar.is_writable());
    }
}
