//! Domain errors: what a request got wrong, in terms of records and fields. They know
//! nothing of HTTP; `http::error` maps each one to a status and a problem code.

use super::kind::Kind;
use super::limits::{thousands, LIVE_VIEW_MAX};
use super::query::FilterError;

/// One bad field of a request body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The JSON name of the field.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// A request body whose fields break the rules; lists every bad field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid fields: {}", fields(.errors))]
pub struct ValidationError {
    /// Every bad field, in the order they were found.
    pub errors: Vec<FieldError>,
}

/// The names of the bad fields, comma-separated.
fn fields(errors: &[FieldError]) -> String {
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    fields.join(", ")
}

/// Why a space refused an operation. A refused operation changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    /// No record of this kind has this id.
    #[error("{} '{id}' not found", .kind.noun())]
    NotFound {
        /// The kind looked up.
        kind: Kind,
        /// The id looked up.
        id: String,
    },
    /// A create named an id that a record of the kind already has (deleted or not).
    #[error("{} '{id}' already exists", .kind.noun())]
    AlreadyExists {
        /// The kind created.
        kind: Kind,
        /// The id that is taken.
        id: String,
    },
    /// An update named a soft-deleted record.
    #[error("{} '{id}' is deleted; restore it before changing it", .kind.noun())]
    RecordDeleted {
        /// The kind updated.
        kind: Kind,
        /// The deleted record's id.
        id: String,
    },
    /// A reference field named a record that does not exist or is deleted.
    #[error("{field} names '{id}', which is not an active record in this space")]
    InvalidReference {
        /// The referencing field.
        field: &'static str,
        /// The id it named.
        id: String,
    },
    /// Setting predecessors would close a cycle (docs §15).
    #[error("{field} would close the cycle {} -> {}", .cycle.join(" -> "), .cycle.first().map_or("", String::as_str))]
    DependencyCycle {
        /// The field that names the predecessors.
        field: &'static str,
        /// The cycle's ids in order: the record written first, then each predecessor in
        /// turn, the last one naming the first.
        cycle: Vec<String>,
    },
    /// The dependency checks of one request would follow more edges than its budget
    /// allows (docs §21); nothing was changed.
    #[error(
        "checking {field} for cycles would follow more than {budget} dependency edges in this \
         request; nothing was changed"
    )]
    DependencyTooComplex {
        /// The field that names the predecessors.
        field: &'static str,
        /// The request's budget, in edges.
        budget: u64,
    },
    /// A `parentId` that names the record itself or one of its descendants (docs §22).
    #[error("parentId '{parent}' is {} '{id}' itself or one of its descendants: a record cannot be its own ancestor", .kind.noun())]
    ParentCycle {
        /// The kind written.
        kind: Kind,
        /// The record written.
        id: String,
        /// The parent it named.
        parent: String,
    },
    /// A write that would make a chain of parents longer than
    /// [`TREE_MAX_DEPTH`](super::limits::TREE_MAX_DEPTH) records (docs §22).
    #[error("{} '{id}' would sit in a chain of {depth} parents and children; at most {max} are allowed", .kind.noun())]
    TooDeep {
        /// The kind written.
        kind: Kind,
        /// The record written.
        id: String,
        /// How long the longest chain through it would be.
        depth: usize,
        /// The most allowed.
        max: usize,
    },
    /// A write that would give a record more children that are not deleted than
    /// [`TREE_MAX_CHILDREN`](super::limits::TREE_MAX_CHILDREN) (docs §22).
    #[error("{} '{parent}' already has {max} children that are not deleted", .kind.noun())]
    TooManyChildren {
        /// The kind written.
        kind: Kind,
        /// The parent.
        parent: String,
        /// The most allowed.
        max: usize,
    },
    /// A restore of a record whose parent is deleted (docs §22).
    #[error("{} '{id}' cannot be restored while its parent '{parent}' is deleted; restore the parent first", .kind.noun())]
    ParentDeleted {
        /// The kind restored.
        kind: Kind,
        /// The record restored.
        id: String,
        /// Its deleted parent.
        parent: String,
    },
    /// A field breaks a rule that depends on the record's state after the write (docs
    /// §18: a `recurrence` on a task without `dateDue`, an `UNTIL` of the wrong form).
    #[error("{field} {message}")]
    InvalidField {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The range of an occurrences listing is malformed or ends before it starts.
    #[error("{detail}")]
    InvalidRange {
        /// What is wrong with it.
        detail: String,
    },
    /// A paging cursor that is garbled or belongs to another query.
    #[error("cursor is malformed or belongs to another query")]
    InvalidCursor,
    /// A `filter=` of a task listing that does not parse or does not fit the task fields
    /// (docs §17).
    #[error("{0}")]
    InvalidFilter(FilterError),
    /// An `If-Match` that the record's current version does not satisfy.
    #[error("{} '{id}' has changed: its ETag matches no tag of If-Match", .kind.noun())]
    PreconditionFailed {
        /// The kind written.
        kind: Kind,
        /// The record's id.
        id: String,
    },
    /// A reminder firing (docs §18) named a task with no reminder due: deleted,
    /// finished, or its reminders fired or moved meanwhile. Only the reminder timer makes
    /// firings, so no request meets this.
    #[error("{} '{id}' has no reminder due", .kind.noun())]
    NothingDue {
        /// The kind named.
        kind: Kind,
        /// The record's id.
        id: String,
    },
    /// A live view whose `reset` would hold more tasks than [`LIVE_VIEW_MAX`] (docs §24).
    #[error(
        "the view matches more than {} tasks; narrow its filter",
        thousands(LIVE_VIEW_MAX)
    )]
    ViewTooLarge,
    /// A revert (docs §23) would set back fields written since; nothing was changed.
    #[error("records were written since that version; send force=true to undo it anyway")]
    RevertConflict(Vec<crate::model::activity::Conflict>),
    /// A change feed asked for changes after a version the space has not reached.
    #[error("since must be an integer from 0 to the space version {version}, not {since}")]
    SinceAhead {
        /// The version asked for.
        since: u64,
        /// The space's version.
        version: u64,
    },
}
