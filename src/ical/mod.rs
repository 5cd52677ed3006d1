//! Tasks as iCalendar `VTODO`s (RFC 5545) and back (docs §20): the mapping both ways,
//! pure, with no web or actor types.
//!
//! Request flow: a front hands a `text/calendar` body to [`parse_calendar`], which reads it
//! with `calcard` into one [`Todo`] per `VTODO`; [`Todo::changes`] turns one into the
//! [`Changes`](crate::model::Changes) of a write through the same validation as a JSON body
//! ([`parse_changes`](crate::model::validate::parse_changes)), plus what only a calendar client sets (`completedAt`, the kept
//! [`Calendar`](crate::model::vtodo::Calendar) data); the space applies it with its own rules. The other way,
//! [`write_calendar`] renders tasks as one `VCALENDAR`.
//!
//! What a task keeps of a VTODO beyond its fields ([`Calendar::kept`](crate::model::vtodo::Calendar::kept)) is the content lines
//! of those properties and components as `calcard` writes them: read back by the same
//! parser, they come out as they went in.
//! A task whose object a CalDAV client `PUT` keeps that object instead
//! ([`Sent`](crate::model::vtodo::Sent), docs §27): [`object_text`] answers it as sent
//! while no other write has changed the task, and [`kept_calendar`] reads those lines
//! out of it again when the task is rendered anew.
//!
//! The files: `read` parses VTODOs, `write` renders them, `commands` turns parsed VTODOs
//! into the commands of a space's write; this one holds what both directions share.

#![deny(unreachable_pub)]

use calcard::icalendar::ICalendarStatus;

mod commands;
mod lines;
mod read;
mod write;

pub(crate) use commands::commands;
pub(crate) use read::{kept_calendar, parse_calendar, IcalError, Todo};
pub(crate) use write::{object_name, object_text, uid_of, write_calendar};

/// The class of a `status` (docs §20): what `STATUS` it is sent as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    NeedsAction,
    InProcess,
    Completed,
    Cancelled,
}

impl Class {
    /// The class of a task's `status` (ASCII case-insensitive, as §15 reads statuses).
    fn of(status: Option<&str>) -> Class {
        let is = |names: [&str; 2]| {
            status.is_some_and(|s| names.iter().any(|n| s.eq_ignore_ascii_case(n)))
        };
        if is(["done", "completed"]) {
            Class::Completed
        } else if is(["cancelled", "canceled"]) {
            Class::Cancelled
        } else if is(["in-progress", "in_progress"]) {
            Class::InProcess
        } else {
            Class::NeedsAction
        }
    }

    /// The `status` a client's `STATUS` of another class sets.
    fn status(self) -> &'static str {
        match self {
            Class::NeedsAction => "open",
            Class::InProcess => "in-progress",
            Class::Completed => "done",
            Class::Cancelled => "cancelled",
        }
    }

    fn ical(self) -> ICalendarStatus {
        match self {
            Class::NeedsAction => ICalendarStatus::NeedsAction,
            Class::InProcess => ICalendarStatus::InProcess,
            Class::Completed => ICalendarStatus::Completed,
            Class::Cancelled => ICalendarStatus::Cancelled,
        }
    }

    fn from_ical(status: &ICalendarStatus) -> Class {
        match status {
            ICalendarStatus::InProcess => Class::InProcess,
            ICalendarStatus::Completed => Class::Completed,
            ICalendarStatus::Cancelled => Class::Cancelled,
            _ => Class::NeedsAction,
        }
    }
}

#[cfg(test)]
mod tests;
