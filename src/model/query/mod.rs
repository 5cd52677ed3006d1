//! Queries over a space's tasks (docs §17): the `filter=` language, the word-prefix
//! search `q=` and `orderBy=`, as pure values a listing applies to [`Record`]s.
//!
//! Request flow: `http` reads the query parameters and builds a [`Filter`], a [`Search`] and
//! an [`OrderBy`] from them (each refuses bad text with the problem's `detail`, the filter's
//! also with its `position`); the space walks its tasks in [`OrderBy::compare`] order, keeps
//! the ones that [`Filter::matches`] and [`Search::matches_task`], and resumes a walk after a
//! [`Position`] that the cursor carries. Nothing here reads a clock: the caller supplies `now`
//! (fixed by a walk's first page) and the time zone.
//!
//! What an index planner needs is exposed too: [`Filter::constraints`] gives the top-level
//! conjuncts that bound one field, and [`search::words`] the normalized words a word index
//! keys on.
//!
//! # Layout
//! - [`filter`]: the grammar (`winnow`), its type checks against the task fields, evaluation.
//! - [`search`]: UAX #29 words, lowercased and stripped of diacritics; prefix matching.
//! - [`order`]: the sort keys, the comparator, and a record's position for cursors.

pub mod filter;
pub mod order;
pub mod search;

pub use filter::{Constraint, Filter, FilterContext, FilterError, Literal};
pub use order::{OrderBy, OrderKey, Position, SortKey, SortValue};
pub use search::Search;

use chrono_tz::Tz;

use super::kind::{FieldType, Kind};
use super::record::{Record, Value};

/// A query parameter other than `filter` that a listing refuses (`400 invalid_parameter`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{parameter}: {detail}")]
pub struct ParameterError {
    /// The query parameter's name (`q`, `orderBy`, `tz`).
    pub parameter: &'static str,
    /// What is wrong with its value.
    pub detail: String,
}

/// The time zone a query's `tz` names: an IANA name, spelled as the database spells it
/// (`Europe/Paris`, `UTC`). An unknown name is refused.
pub fn time_zone(name: &str) -> Result<Tz, ParameterError> {
    name.parse().map_err(|_| ParameterError {
        parameter: "tz",
        detail: format!("unknown time zone {name:?}: give an IANA name such as Europe/Paris"),
    })
}

/// A field of a task that a query can name: a base field every record has, or an entry of
/// the task field table. `spaceId` is not one: it is the same for every task of a space, and
/// the filter settles it when it is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskField {
    /// `id`, also called `todoId`.
    Id,
    /// `sortOrder`.
    SortOrder,
    /// `createdAt`.
    CreatedAt,
    /// `updatedAt`.
    UpdatedAt,
    /// `deletedAt`: null unless the task is deleted.
    DeletedAt,
    /// `isDeleted`.
    IsDeleted,
    /// `versionUpdatedAt`.
    VersionUpdatedAt,
    /// The entry at this position of [`Kind::fields`] of [`Kind::Task`] (and of
    /// [`Record::fields`]).
    Field(usize),
}

/// What kind of value a field holds, as queries compare it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Text,
    Number,
    Time,
    Bool,
    Ids,
    /// An array of objects (`reminders`): no comparison fits it.
    Objects,
}

impl Type {
    /// The noun messages use for a value of this type.
    fn noun(self) -> &'static str {
        match self {
            Type::Text => "a string",
            Type::Number => "a number",
            Type::Time => "a date-time",
            Type::Bool => "a boolean",
            Type::Ids => "an array",
            Type::Objects => "an array of objects",
        }
    }
}

impl TaskField {
    /// The field a task response calls `name` (`id` and `todoId` are the same field);
    /// `None` for `spaceId` and for names no task response has.
    pub fn by_name(name: &str) -> Option<TaskField> {
        Some(match name {
            "id" | "todoId" => TaskField::Id,
            "sortOrder" => TaskField::SortOrder,
            "createdAt" => TaskField::CreatedAt,
            "updatedAt" => TaskField::UpdatedAt,
            "deletedAt" => TaskField::DeletedAt,
            "isDeleted" => TaskField::IsDeleted,
            "versionUpdatedAt" => TaskField::VersionUpdatedAt,
            _ => TaskField::Field(Kind::Task.field_index(name)?),
        })
    }

    /// The field's name in a task response (`todoId` for the id).
    pub fn name(self) -> &'static str {
        match self {
            TaskField::Id => "todoId",
            TaskField::SortOrder => "sortOrder",
            TaskField::CreatedAt => "createdAt",
            TaskField::UpdatedAt => "updatedAt",
            TaskField::DeletedAt => "deletedAt",
            TaskField::IsDeleted => "isDeleted",
            TaskField::VersionUpdatedAt => "versionUpdatedAt",
            TaskField::Field(i) => Kind::Task.fields().get(i).map_or("", |f| f.name),
        }
    }

    fn ty(self) -> Type {
        match self {
            TaskField::Id => Type::Text,
            TaskField::SortOrder | TaskField::VersionUpdatedAt => Type::Number,
            TaskField::CreatedAt | TaskField::UpdatedAt | TaskField::DeletedAt => Type::Time,
            TaskField::IsDeleted => Type::Bool,
            TaskField::Field(i) => match Kind::Task.fields().get(i).map(|f| f.ty) {
                Some(
                    FieldType::Text(_)
                    | FieldType::Choice(_)
                    | FieldType::Id
                    | FieldType::Ref(_)
                    | FieldType::Zone
                    | FieldType::Recurrence
                    | FieldType::Title
                    | FieldType::Filter
                    | FieldType::Search
                    | FieldType::Order
                    | FieldType::QueryZone,
                ) => Type::Text,
                Some(FieldType::Flag | FieldType::ExclusiveFlag | FieldType::Blocked) => Type::Bool,
                Some(FieldType::NonNegative | FieldType::Count | FieldType::Tally) => Type::Number,
                Some(FieldType::DateTime | FieldType::Stamp) => Type::Time,
                Some(FieldType::Reminders | FieldType::Calendar) => Type::Objects,
                Some(FieldType::Refs(_) | FieldType::Ids | FieldType::Predecessors) => Type::Ids,
                None => Type::Text,
            },
        }
    }

    /// The field's value in `task`, a record of [`Kind::Task`].
    pub fn value(self, task: &Record) -> Scalar<'_> {
        match self {
            TaskField::Id => Scalar::Text(&task.id),
            TaskField::SortOrder => Scalar::Number(task.sort_order),
            TaskField::CreatedAt => Scalar::Time(task.created_at),
            TaskField::UpdatedAt => Scalar::Time(task.updated_at),
            TaskField::DeletedAt => task.deleted_at().map_or(Scalar::Null, Scalar::Time),
            TaskField::IsDeleted => Scalar::Bool(task.is_deleted()),
            // Versions stay far below 2^53, where every integer is an exact f64.
            TaskField::VersionUpdatedAt => Scalar::Number(task.version as f64),
            TaskField::Field(i) => task.fields.get(i).map_or(Scalar::Null, Scalar::of),
        }
    }
}

/// A task's value of one field as queries see it: integers are numbers, date-times are
/// milliseconds since the Unix epoch (UTC).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    /// Null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number (integer fields too).
    Number(f64),
    /// A string.
    Text(&'a str),
    /// A date-time, in milliseconds since the Unix epoch.
    Time(i64),
    /// An array of ids.
    Ids(&'a [Box<str>]),
}

impl<'a> Scalar<'a> {
    fn of(value: &'a Value) -> Scalar<'a> {
        match value {
            Value::Null => Scalar::Null,
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Number(n) => Scalar::Number(*n),
            // Counts are at most 2^53 − 1 (docs §3), so the f64 is exact.
            Value::Integer(n) => Scalar::Number(*n as f64),
            Value::Text(s) => Scalar::Text(s),
            Value::Time(ms) => Scalar::Time(*ms),
            Value::Ids(ids) => Scalar::Ids(ids),
            // No comparison is allowed on such a field (`Type::Objects`).
            Value::Reminders(_) => Scalar::Null,
            // A hidden field: no filter names it.
            Value::Calendar(_) | Value::Sent(_) => Scalar::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_a_task_response_has_a_name_that_maps_back() {
        let mut names = vec![
            "id",
            "todoId",
            "sortOrder",
            "createdAt",
            "updatedAt",
            "deletedAt",
            "isDeleted",
            "versionUpdatedAt",
        ];
        names.extend(
            Kind::Task
                .fields()
                .iter()
                .filter(|f| !f.ty.is_hidden())
                .map(|f| f.name),
        );
        for name in names {
            let field = TaskField::by_name(name).unwrap_or_else(|| panic!("{name}"));
            let back = if name == "id" { "todoId" } else { name };
            assert_eq!(field.name(), back);
        }
        assert_eq!(TaskField::by_name("spaceId"), None);
        assert_eq!(TaskField::by_name("calendar"), None);
        assert_eq!(TaskField::by_name("Name"), None);
    }

    #[test]
    fn a_time_zone_is_an_iana_name() {
        assert_eq!(time_zone("Europe/Paris"), Ok(chrono_tz::Europe::Paris));
        assert_eq!(time_zone("UTC"), Ok(chrono_tz::UTC));
        assert_eq!(time_zone("Mars/Olympus").unwrap_err().parameter, "tz");
    }
}
