//! The time fields of a task in a write (docs §18): dates given as days, all-day
//! normalisation, the check of `recurrence` against the state after the write, and the roll
//! of a completion.
//!
//! [`Space`](super::space::Space) calls [`TimeFields::settle`] while it plans a write, after
//! the write's values are applied and before dependencies are settled, so everything it
//! decides (the roll's new `dateDue` among it) is part of the write's outcome and replay
//! never decides it again. The rules themselves are in [`recurrence`](super::recurrence).

use chrono::{Days, NaiveDate};
use chrono_tz::Tz;

use super::deps::is_finished_status;
use super::error::SpaceError;
use super::kind::Kind;
use super::limits::{FIRST_INSTANT_MS, LAST_INSTANT_MS, OCCURRENCES_SPAN_DAYS};
use super::record::{Record, Value};
use super::recurrence::{complete, next_due, occurrences, Listed, RecurFrom, Rolled, Rule};
use super::space::Changes;
use super::wall_clock;

/// One end of an occurrences listing as a request gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// An instant, in milliseconds since the Unix epoch.
    At(i64),
    /// A date `YYYY-MM-DD`: 00:00 of that day in the task's `timeZone`.
    Day(NaiveDate),
}

/// What `GET /api/v1/tasks/{todoId}/occurrences` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OccurrenceQuery {
    /// The first instant listed; the task's `dateDue` (the time of the request when it has
    /// none) when absent.
    pub from: Option<When>,
    /// The instant before which the listing ends; [`OCCURRENCES_SPAN_DAYS`] calendar days
    /// of the task's `timeZone` after `from` when absent.
    pub to: Option<When>,
    /// At most this many occurrences.
    pub limit: usize,
}

/// Where a kind keeps its time fields: positions in its field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeFields {
    status: usize,
    due: usize,
    start: usize,
    zone: usize,
    all_day: usize,
    recurrence: usize,
    recur_from: usize,
    completed_count: usize,
    last_completed_at: usize,
    reminders: usize,
    reminded_at: usize,
}

/// Whether a write sets a finished `status` on a task that was not finished: with a
/// `recurrence`, a completion.
fn finishes(fields: &TimeFields, before: &Record, record: &Record, changes: &Changes) -> bool {
    let finished = |r: &Record| {
        r.fields[fields.status]
            .as_text()
            .is_some_and(is_finished_status)
    };
    changes.fields.iter().any(|(at, _)| *at == fields.status)
        && finished(record)
        && !finished(before)
}

impl TimeFields {
    /// The time fields of `kind`, when it has them (tasks).
    pub fn of(kind: Kind) -> Option<TimeFields> {
        let at = |name: &str| kind.field_index(name);
        Some(TimeFields {
            status: at("status")?,
            due: at("dateDue")?,
            start: at("dateStart")?,
            zone: at("timeZone")?,
            all_day: at("isAllDay")?,
            recurrence: at("recurrence")?,
            recur_from: at("recurFrom")?,
            completed_count: at("completedCount")?,
            last_completed_at: at("lastCompletedAt")?,
            reminders: at("reminders")?,
            reminded_at: at("remindedAt")?,
        })
    }

    /// Whether `record` has a `recurrence`.
    pub fn repeats(&self, record: &Record) -> bool {
        !matches!(record.fields[self.recurrence], Value::Null)
    }

    /// When a reminder of `record` is next due to fire (docs §18): the earliest of its
    /// reminders due after its `remindedAt` (see [`next_due`]); `None` for a deleted or
    /// finished task, or when none is left. The time may be past: it is then due now.
    pub fn next_reminder(&self, record: &Record) -> Option<i64> {
        let Value::Reminders(reminders) = &record.fields[self.reminders] else {
            return None;
        };
        let finished = || {
            record.fields[self.status]
                .as_text()
                .is_some_and(is_finished_status)
        };
        if reminders.is_empty() || record.is_deleted() || finished() {
            return None;
        }
        next_due(reminders, self.due(record), self.reminded_at(record))
    }

    /// The `remindedAt` of `record`.
    pub fn reminded_at(&self, record: &Record) -> Option<i64> {
        record.fields[self.reminded_at].as_time()
    }

    /// Fires the reminders of `record` at `now`: `remindedAt` becomes `now`, which covers
    /// every reminder due at or before it. [`SpaceError::NothingDue`] when no reminder of
    /// the task is due by `now` (see [`TimeFields::next_reminder`]).
    pub fn fire(&self, kind: Kind, record: &mut Record, now: i64) -> Result<(), SpaceError> {
        if self.next_reminder(record).is_none_or(|at| at > now) {
            return Err(SpaceError::NothingDue {
                kind,
                id: record.id.to_string(),
            });
        }
        record.fields[self.reminded_at] = Value::Time(now);
        Ok(())
    }

    /// The zone `record` names (UTC for `null`).
    pub fn zone(&self, record: &Record) -> Tz {
        wall_clock::parse_zone(record.fields[self.zone].as_text()).unwrap_or(Tz::UTC)
    }

    /// Whether `record` is an all-day task.
    pub fn is_all_day(&self, record: &Record) -> bool {
        record.fields[self.all_day] == Value::Bool(true)
    }

    /// The `dateDue` of `record`.
    pub fn due(&self, record: &Record) -> Option<i64> {
        record.fields[self.due].as_time()
    }

    /// The `dateStart` of `record`.
    pub fn start(&self, record: &Record) -> Option<i64> {
        record.fields[self.start].as_time()
    }

    /// The rule of `record`, when it has a `recurrence` (stored rules are valid for their
    /// task: [`TimeFields::settle`] checked them).
    pub fn rule(&self, record: &Record) -> Option<Rule> {
        let text = record.fields[self.recurrence].as_text()?;
        Rule::parse(text, self.is_all_day(record)).ok()
    }

    /// Completes the time fields of `record`, which a write of `changes` took from `before`
    /// (`None` on create), at the write's time `now`:
    ///
    /// - a date field given as `YYYY-MM-DD` is 00:00 of that day in the zone after the
    ///   write;
    /// - on an all-day task, both dates are 00:00 of their day in that zone: the day the
    ///   instant falls on, or, for a date the write leaves while it changes the zone of a
    ///   task that was all-day, the same day as before;
    /// - a `recurrence` must be a rule valid for the task after the write (`UNTIL` form
    ///   against `isAllDay`), on a task with a `dateDue`;
    /// - an update that sets a finished `status` on an unfinished task with a `recurrence`
    ///   is a completion ([`complete`]): `dateDue`, `dateStart` and `COUNT` move to the
    ///   next occurrence and `status` keeps its former value, or, when the series is over,
    ///   the task finishes; either way `completedCount` goes up by 1 and `lastCompletedAt`
    ///   is `now`.
    ///
    /// Whether the write rolled the series to its next occurrence (a completion that ends
    /// the series is no roll). A date or day whose start in the zone falls outside years
    /// 0001–9999 UTC, or a rule that does not hold, is [`SpaceError::InvalidField`] naming
    /// the field.
    pub fn settle(
        &self,
        kind: Kind,
        before: Option<&Record>,
        record: &mut Record,
        changes: &Changes,
        now: i64,
    ) -> Result<bool, SpaceError> {
        let field = |at: usize| kind.fields()[at].name;
        let invalid = |at: usize, message: &str| SpaceError::InvalidField {
            field: field(at),
            message: message.to_string(),
        };
        let in_range =
            |ms: Option<i64>| ms.filter(|ms| (FIRST_INSTANT_MS..=LAST_INSTANT_MS).contains(ms));
        let tz = self.zone(record);
        for (at, day) in &changes.days {
            let ms = in_range(wall_clock::start_of_day(tz, *day)).ok_or_else(|| {
                invalid(
                    *at,
                    "must be a date whose start in timeZone falls in years 0001-9999 in UTC",
                )
            })?;
            record.fields[*at] = Value::Time(ms);
        }
        let all_day = self.is_all_day(record);
        if all_day {
            let rezone = before
                .filter(|b| self.is_all_day(b))
                .map(|b| self.zone(b))
                .filter(|from| *from != tz);
            for at in [self.due, self.start] {
                let Some(ms) = record.fields[at].as_time() else {
                    continue;
                };
                let written = changes.fields.iter().any(|(f, _)| *f == at)
                    || changes.days.iter().any(|(f, _)| *f == at);
                let day = match rezone {
                    Some(from) if !written => wall_clock::rezone_day(ms, from, tz),
                    _ => wall_clock::day_of(tz, ms),
                };
                let day = in_range(day).ok_or_else(|| {
                    invalid(
                        at,
                        "names a day whose start in timeZone falls outside years 0001-9999 in UTC",
                    )
                })?;
                record.fields[at] = Value::Time(day);
            }
        }
        let Some(text) = record.fields[self.recurrence].as_text().map(str::to_owned) else {
            return Ok(false);
        };
        let Some(due) = self.due(record) else {
            return Err(invalid(
                self.recurrence,
                "needs a dateDue: a series starts at the task's dateDue",
            ));
        };
        Rule::parse(&text, all_day).map_err(|message| invalid(self.recurrence, &message))?;
        let Some(before) = before.filter(|b| finishes(self, b, record, changes)) else {
            return Ok(false);
        };
        let recur_from = record.fields[self.recur_from]
            .as_text()
            .and_then(RecurFrom::parse)
            .unwrap_or_default();
        let rolled = complete(&text, due, self.start(record), tz, all_day, recur_from, now)
            .map_err(|message| invalid(self.recurrence, &message))?;
        let next = matches!(rolled, Rolled::Next { .. });
        if let Rolled::Next {
            due,
            start,
            recurrence,
        } = rolled
        {
            record.fields[self.due] = Value::Time(due);
            record.fields[self.start] = start.map_or(Value::Null, Value::Time);
            record.fields[self.recurrence] = Value::Text(recurrence.into());
            record.fields[self.status] = before.fields[self.status].clone();
        }
        let count = match record.fields[self.completed_count] {
            Value::Integer(n) => n,
            _ => 0,
        };
        record.fields[self.completed_count] = Value::Integer(count + 1);
        record.fields[self.last_completed_at] = Value::Time(now);
        Ok(next)
    }

    /// The occurrences of `record`'s series that `query` asks for, read at `now`, and
    /// whether more follow before `to` (see [`occurrences`]). A task without `dateDue` has
    /// none. `from` or `to` that cannot be placed in the zone, or `to` before `from`, is
    /// [`SpaceError::InvalidRange`].
    pub fn occurrences(
        &self,
        record: &Record,
        query: &OccurrenceQuery,
        now: i64,
    ) -> Result<(Vec<Listed>, bool), SpaceError> {
        let tz = self.zone(record);
        let due = self.due(record);
        let place = |name: &str, when: When| match when {
            When::At(ms) => Ok(ms),
            When::Day(day) => {
                wall_clock::start_of_day(tz, day).ok_or_else(|| SpaceError::InvalidRange {
                    detail: format!(
                        "{name} is a date that cannot be placed in the task's timeZone"
                    ),
                })
            }
        };
        let from = match query.from {
            Some(when) => place("from", when)?,
            None => due.unwrap_or(now),
        };
        let to = match query.to {
            Some(when) => place("to", when)?,
            None => wall_clock::wall_time(tz, from)
                .and_then(|wall| wall.checked_add_days(Days::new(OCCURRENCES_SPAN_DAYS as u64)))
                .and_then(|wall| wall_clock::instant(tz, wall))
                .unwrap_or(i64::MAX),
        };
        if to < from {
            return Err(SpaceError::InvalidRange {
                detail: "to must not be before from".into(),
            });
        }
        let Some(due) = due else {
            return Ok((Vec::new(), false));
        };
        let rule = self.rule(record);
        Ok(occurrences(
            rule.as_ref(),
            due,
            self.start(record),
            tz,
            self.is_all_day(record),
            from,
            to,
            query.limit,
        ))
    }
}
