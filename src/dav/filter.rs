//! The `filter` of a `calendar-query` REPORT (RFC 4791 §9.7) and whether a task's object
//! matches it: `comp-filter` (with `is-not-defined`, `time-range` and nested filters),
//! `prop-filter` (with `is-not-defined`, `text-match` and `time-range`).
//!
//! Properties and components are tested on the task's `VTODO` as a client would GET it
//! (rendered by [`crate::ical`] and read back with `calcard`), so every property a client
//! can see can be filtered on. Time ranges are tested on the task's own times (`DUE` is
//! `dateDue`, `DTSTART` `dateStart`, `COMPLETED` `completedAt`, `CREATED` `createdAt`),
//! with RFC 4791 §9.9's table for a `VTODO`; a recurring task (`RRULE`) matches any time
//! range, since its occurrences are not expanded: a client gets more than it asked for,
//! never less.

use calcard::common::IanaString;
use calcard::icalendar::{ICalendar, ICalendarComponent, ICalendarValue};

use crate::model::record::Record;
use crate::model::Kind;

/// A `time-range`: `start` and `end` in milliseconds since the epoch, either open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct TimeRange {
    pub(super) start: Option<i64>,
    pub(super) end: Option<i64>,
}

/// A `text-match`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct TextMatch {
    /// The text looked for.
    pub(super) text: String,
    /// `negate-condition="yes"`.
    pub(super) negate: bool,
    /// `collation="i;octet"` (else `i;ascii-casemap`, the default).
    pub(super) octet: bool,
}

/// A `prop-filter`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct PropFilter {
    pub(super) name: String,
    pub(super) is_not_defined: bool,
    pub(super) text_match: Option<TextMatch>,
    pub(super) time_range: Option<TimeRange>,
}

/// A `comp-filter`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct CompFilter {
    pub(super) name: String,
    pub(super) is_not_defined: bool,
    pub(super) time_range: Option<TimeRange>,
    pub(super) props: Vec<PropFilter>,
    pub(super) comps: Vec<CompFilter>,
}

/// Reads an iCalendar UTC date-time (`20260101T000000Z`) or date (`20260101`) of a
/// `time-range` attribute.
pub(super) fn parse_time(value: &str) -> Option<i64> {
    use chrono::{NaiveDate, NaiveDateTime};
    let value = value.trim();
    if let Ok(t) = NaiveDateTime::parse_from_str(value.trim_end_matches('Z'), "%Y%m%dT%H%M%S") {
        return Some(t.and_utc().timestamp_millis());
    }
    NaiveDate::parse_from_str(value, "%Y%m%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_millis())
}

/// The times of a task a time range is tested on.
#[derive(Debug, Clone, Copy, Default)]
struct Times {
    due: Option<i64>,
    start: Option<i64>,
    completed: Option<i64>,
    created: Option<i64>,
    recurring: bool,
}

impl Times {
    fn of(task: &Record) -> Times {
        let time = |name: &str| {
            Kind::Task
                .field_index(name)
                .and_then(|at| task.fields[at].as_time())
        };
        let recurring = Kind::Task
            .field_index("recurrence")
            .is_some_and(|at| task.fields[at].as_text().is_some());
        Times {
            due: time("dateDue"),
            start: time("dateStart"),
            completed: time("completedAt"),
            created: Some(task.created_at),
            recurring,
        }
    }

    /// Whether the property `name` is in `range` (RFC 4791 §9.9: start ≤ value < end).
    fn prop_in(&self, name: &str, range: &TimeRange) -> bool {
        let value = match name.to_ascii_uppercase().as_str() {
            "DUE" => self.due,
            "DTSTART" => self.start,
            "COMPLETED" => self.completed,
            "CREATED" => self.created,
            _ => return false,
        };
        self.recurring
            || value.is_some_and(|v| {
                range.start.is_none_or(|s| s <= v) && range.end.is_none_or(|e| v < e)
            })
    }

    /// Whether the `VTODO` overlaps `range` (RFC 4791 §9.9's table for `VTODO`).
    fn todo_in(&self, range: &TimeRange) -> bool {
        if self.recurring {
            return true;
        }
        let start = range.start.unwrap_or(i64::MIN);
        let end = range.end.unwrap_or(i64::MAX);
        match (self.start, self.due, self.completed, self.created) {
            (Some(s), Some(d), _, _) => (start <= s || start < d) && (end > s || end >= d),
            (Some(s), None, _, _) => start <= s && end > s,
            (None, Some(d), _, _) => start < d && end >= d,
            (None, None, Some(c), Some(cr)) => {
                (start <= cr || start <= c) && (end >= cr || end >= c)
            }
            (None, None, Some(c), None) => start <= c && end >= c,
            (None, None, None, Some(cr)) => end > cr,
            (None, None, None, None) => true,
        }
    }
}

/// Whether `task`, whose object is the iCalendar text `text`, matches `filter` (the
/// `comp-filter` of `VCALENDAR`). A text that cannot be read back matches (more, never
/// less).
pub(super) fn matches(filter: &CompFilter, task: &Record, text: &str) -> bool {
    let Ok(calendar) = ICalendar::parse(text) else {
        return true;
    };
    let times = Times::of(task);
    let Some(root) = calendar.components.first() else {
        return true;
    };
    if !filter
        .name
        .eq_ignore_ascii_case(root.component_type.as_str())
    {
        return filter.is_not_defined;
    }
    if filter.is_not_defined {
        return false;
    }
    component_matches(filter, &calendar, root, &times)
}

/// Whether `component` (of name `filter.name`) satisfies the rest of `filter`.
fn component_matches(
    filter: &CompFilter,
    calendar: &ICalendar,
    component: &ICalendarComponent,
    times: &Times,
) -> bool {
    let is_todo = component
        .component_type
        .as_str()
        .eq_ignore_ascii_case("VTODO");
    if let Some(range) = &filter.time_range {
        if is_todo && !times.todo_in(range) {
            return false;
        }
    }
    let props_match = filter
        .props
        .iter()
        .all(|p| prop_matches(p, component, times, is_todo));
    let comps_match = filter.comps.iter().all(|c| {
        let children: Vec<&ICalendarComponent> = component
            .component_ids
            .iter()
            .map(|&id| &calendar.components[id as usize])
            .filter(|child| c.name.eq_ignore_ascii_case(child.component_type.as_str()))
            .collect();
        match c.is_not_defined {
            true => children.is_empty(),
            false => children
                .iter()
                .any(|child| component_matches(c, calendar, child, times)),
        }
    });
    props_match && comps_match
}

/// Whether `component` satisfies `filter`.
fn prop_matches(
    filter: &PropFilter,
    component: &ICalendarComponent,
    times: &Times,
    is_todo: bool,
) -> bool {
    let entries: Vec<_> = component
        .entries
        .iter()
        .filter(|e| filter.name.eq_ignore_ascii_case(e.name.as_str()))
        .collect();
    if filter.is_not_defined {
        return entries.is_empty();
    }
    if entries.is_empty() {
        return false;
    }
    if let Some(range) = &filter.time_range {
        if !(is_todo && times.prop_in(&filter.name, range)) {
            return false;
        }
    }
    let Some(text_match) = &filter.text_match else {
        return true;
    };
    entries.iter().any(|entry| {
        let found = entry.values.iter().any(|value| {
            let text = match value {
                ICalendarValue::Status(status) => status.as_str(),
                value => match value.as_text() {
                    Some(text) => text,
                    None => return false,
                },
            };
            match text_match.octet {
                true => text.contains(&text_match.text),
                false => text
                    .to_ascii_lowercase()
                    .contains(&text_match.text.to_ascii_lowercase()),
            }
        });
        found != text_match.negate
    })
}
