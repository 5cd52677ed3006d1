//! A completion of a recurring task (docs §18): the write that sets a finished status
//! moves `dateDue` (and `dateStart`) to the next occurrence and lowers `COUNT`, or, when the
//! series has none, lets the task finish.

use chrono::NaiveTime;
use chrono_tz::Tz;

use super::rule::Rule;
use super::series::{series_from, shift_start};
use crate::model::wall_clock;

/// Where the next occurrence is counted from: the task's `recurFrom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecurFrom {
    /// `"due"` (the default): the series as it stands.
    #[default]
    Due,
    /// `"completion"`: the series re-anchored at the day of the completion.
    Completion,
}

impl RecurFrom {
    /// The value a `recurFrom` field names: exactly `due` or `completion`.
    pub fn parse(text: &str) -> Option<RecurFrom> {
        match text {
            "due" => Some(RecurFrom::Due),
            "completion" => Some(RecurFrom::Completion),
            _ => None,
        }
    }

    /// The field's value as it is rendered.
    pub fn as_str(self) -> &'static str {
        match self {
            RecurFrom::Due => "due",
            RecurFrom::Completion => "completion",
        }
    }
}

/// What a completion does to a recurring task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rolled {
    /// The task stays open at its next occurrence.
    Next {
        /// The new `dateDue`.
        due: i64,
        /// The new `dateStart`: the old one at the same distance, or `None` when unset.
        start: Option<i64>,
        /// The new `recurrence`: the old text with `COUNT` lowered (as sent otherwise).
        recurrence: String,
    },
    /// The series has no next occurrence: the task finishes as any task does.
    Finished,
}

/// The completion at `now_ms` of a task whose `recurrence` is `rule_text`, `dateDue`
/// `due_ms`, `dateStart` `start_ms`, zone `tz` and `isAllDay` `all_day` (all as they are
/// after the write's other fields are applied).
///
/// - [`RecurFrom::Due`]: the first occurrence of the series strictly after both `dateDue`
///   and `now_ms`; `COUNT` goes down by the occurrences passed (the wall times counted
///   before the new `dateDue`).
/// - [`RecurFrom::Completion`]: the rule re-anchored at the completion day (the day of
///   `now_ms` in `tz`, at the wall time of `dateDue`; for an all-day task, that day), and the
///   first occurrence strictly after that anchor, which may be earlier than `dateDue`;
///   `COUNT` goes down by 1.
///
/// [`Rolled::Finished`] when that occurrence does not exist: `COUNT` would reach 0, `UNTIL`
/// is passed, the rule has no instance within 100 years, or the dates would leave years
/// 0001–9999. The error is the rule's, should `rule_text` not be a valid rule for the task.
pub fn complete(
    rule_text: &str,
    due_ms: i64,
    start_ms: Option<i64>,
    tz: Tz,
    all_day: bool,
    recur_from: RecurFrom,
    now_ms: i64,
) -> Result<Rolled, String> {
    let rule = Rule::parse(rule_text, all_day)?;
    let (anchor, after) = match recur_from {
        RecurFrom::Due => (due_ms, due_ms.max(now_ms)),
        RecurFrom::Completion => {
            let day = wall_clock::wall_time(tz, now_ms).map(|t| t.date());
            let time = if all_day {
                Some(NaiveTime::MIN)
            } else {
                wall_clock::wall_time(tz, due_ms).map(|t| t.time())
            };
            let anchor = day
                .zip(time)
                .and_then(|(day, time)| wall_clock::instant(tz, day.and_time(time)));
            let Some(anchor) = anchor else {
                return Ok(Rolled::Finished);
            };
            (anchor, anchor)
        }
    };
    let Some(mut occurrences) = series_from(&rule, anchor, tz, all_day, after) else {
        return Ok(Rolled::Finished);
    };
    let Some(next) = occurrences.find(|o| o.at > after) else {
        return Ok(Rolled::Finished);
    };
    let used = match recur_from {
        RecurFrom::Due => next.walls - 1,
        RecurFrom::Completion => 1,
    };
    let recurrence = match rule.count() {
        Some(count) if count <= used => return Ok(Rolled::Finished),
        Some(count) => rule.with_count(count - used),
        None => rule_text.to_string(),
    };
    let start = match start_ms {
        None => None,
        Some(start) => match shift_start(start, due_ms, next.at, tz, all_day) {
            Some(start) => Some(start),
            None => return Ok(Rolled::Finished),
        },
    };
    Ok(Rolled::Next {
        due: next.at,
        start,
        recurrence,
    })
}
