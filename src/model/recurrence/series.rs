//! The series of a recurring task (docs §18): its rule with `DTSTART` = `dateDue`,
//! expanded in wall time of its `timeZone`, and the listing of `/occurrences`.
//!
//! The rrule crate expands the rule over wall times (written as UTC, so no daylight-saving
//! change moves them and `HOURLY` steps by wall-clock hours); this module places each wall
//! time in the zone ([`wall_clock::instant`]: a skipped one moves forward by the gap, a repeated
//! one takes its first offset), keeps the milliseconds of `dateDue`, merges wall times that
//! land on one instant into one occurrence, and applies `COUNT`, `UNTIL` and the 100-year
//! horizon itself:
//!
//! - `dateDue` is always the first occurrence and the first wall time `COUNT` counts;
//!   a wall time that lands at or before it (the repeated hour read at its first offset)
//!   is counted but not listed.
//! - `COUNT` counts wall times, not occurrences; `UNTIL` is inclusive (a date: through that
//!   day in the zone).
//! - The series ends at the first stretch of [`RECURRENCE_HORIZON_YEARS`] without a wall
//!   time, and before an occurrence beyond 9999-12-31.
//!
//! A rule without `COUNT` is expanded from shortly before the listing's `from` (or the
//! completion's time) rather than from `dateDue` ([`series_from`]), so the work of a listing
//! grows with the wall times between `from` and `to`, not with the distance from `dateDue`.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use chrono::{Datelike, Days, Months, NaiveDateTime, NaiveTime, TimeDelta, Timelike};
use chrono_tz::Tz;

use super::rule::{Freq, Rule, Until};
use crate::model::limits::{FIRST_INSTANT_MS, LAST_INSTANT_MS, RECURRENCE_HORIZON_YEARS};
use crate::model::wall_clock;

/// One occurrence of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    /// When it is due, in milliseconds since the Unix epoch.
    pub at: i64,
    /// How many of the series' wall times land at or before it, `dateDue` included: what
    /// `COUNT` has used up through this occurrence.
    pub walls: u32,
}

/// How far before its wall time (read as UTC) a wall time's instant can be: an offset is
/// under a day. An instant this far before the last wall time read comes before the
/// instant of every later one.
const REORDER_MS: i64 = 24 * 60 * 60 * 1000;
/// The same for an all-day series, whose occurrence is the start of the wall time's day: up
/// to a day earlier again.
const REORDER_ALL_DAY_MS: i64 = 2 * REORDER_MS;

/// The occurrences of a series in order, from `dateDue` on. Built by [`series`].
pub struct Series {
    tz: Tz,
    all_day: bool,
    due: i64,
    /// The milliseconds of `dateDue`, kept on every occurrence of a timed series.
    millis: u32,
    walls: rrule::RRuleSetIter,
    /// The wall time of `dateDue`, to seconds.
    start_wall: NaiveDateTime,
    count: Option<u32>,
    until: Option<Until>,
    /// The last wall time read (first: `dateDue`'s), for the horizon.
    last_wall: NaiveDateTime,
    /// Instants of the wall times read and not yet passed on, smallest first: a wall time
    /// moved forward by a gap can land after the instants of later wall times.
    pending: BinaryHeap<Reverse<i64>>,
    /// Wall times read, `dateDue`'s included.
    read: u32,
    /// Wall times passed on (listed, merged or dropped), `dateDue`'s included.
    passed: u32,
    /// No more wall times are read.
    exhausted: bool,
    /// `dateDue` has been passed on.
    started: bool,
}

/// The series of `rule` with `DTSTART` = `due_ms`, in `tz`; each occurrence a day (00:00 in
/// `tz`) when `all_day`. `None` when `due_ms` is beyond chrono or the rule cannot be
/// expanded from it.
pub fn series(rule: &Rule, due_ms: i64, tz: Tz, all_day: bool) -> Option<Series> {
    build(rule, due_ms, tz, all_day, None)
}

/// The occurrences of [`series`] from `skip_to_ms` on: every occurrence at or after it, in
/// order, maybe preceded by some before it (which the caller skips). For a rule without
/// `COUNT` the expansion starts a few days before `skip_to_ms`, a whole number of `INTERVAL`
/// periods after `dateDue`, instead of at `dateDue`, so the work does not grow with the
/// distance; [`Occurrence::walls`] and the 100-year horizon then count from there (once the
/// series is known to have a second occurrence). With `COUNT` (at most 1,000 wall times) it
/// is [`series`].
pub fn series_from(
    rule: &Rule,
    due_ms: i64,
    tz: Tz,
    all_day: bool,
    skip_to_ms: i64,
) -> Option<Series> {
    let plain = series(rule, due_ms, tz, all_day)?;
    if rule.count().is_some() {
        return Some(plain);
    }
    let resume = wall_clock::wall_time(tz, skip_to_ms)
        .and_then(|target| resume_wall(rule, plain.start_wall, target));
    let Some(resume) = resume else {
        return Some(plain);
    };
    // A rule with no instance within the horizon of dateDue has no next occurrence: the
    // jump must not find one further on.
    let mut probe = plain;
    probe.next();
    if probe.next().is_none() {
        return series(rule, due_ms, tz, all_day);
    }
    build(rule, due_ms, tz, all_day, Some(resume))
}

/// A later start for the expansion of `rule` from `start` towards `target` (wall times):
/// a whole number of `INTERVAL` periods after `start` and at least three days before
/// `target`, so that every wall time whose instant can be at or after `target`'s is
/// expanded. `None` when no such start is later than `start`.
fn resume_wall(rule: &Rule, start: NaiveDateTime, target: NaiveDateTime) -> Option<NaiveDateTime> {
    let limit = target.checked_sub_signed(TimeDelta::days(3))?;
    if limit <= start {
        return None;
    }
    let n = i64::from(rule.interval());
    let span = limit - start;
    let resume = match rule.freq() {
        Freq::Hourly => {
            let k = span.num_hours() / n;
            start.checked_add_signed(TimeDelta::hours(k * n))?
        }
        Freq::Daily => {
            let k = span.num_days() / n;
            start.checked_add_signed(TimeDelta::days(k * n))?
        }
        Freq::Weekly => {
            let k = span.num_days() / 7 / n;
            start.checked_add_signed(TimeDelta::weeks(k * n))?
        }
        Freq::Monthly | Freq::Yearly => {
            let per = if rule.freq() == Freq::Yearly {
                12 * n
            } else {
                n
            };
            // Whole months from `start` to the month before `limit`'s: a day of the month
            // clamped to a shorter month stays before `limit`.
            let months = (i64::from(limit.year()) - i64::from(start.year())) * 12
                + i64::from(limit.month())
                - i64::from(start.month())
                - 1;
            let k = months.max(0) / per;
            start.checked_add_months(Months::new(u32::try_from(k * per).ok()?))?
        }
    };
    (resume > start).then_some(resume)
}

/// The series, expanded from `resume` (a later period start, see [`resume_wall`]) when
/// given; `dateDue` is then not passed on.
fn build(
    rule: &Rule,
    due_ms: i64,
    tz: Tz,
    all_day: bool,
    resume: Option<NaiveDateTime>,
) -> Option<Series> {
    let wall = wall_clock::wall_time(tz, due_ms)?;
    let start_wall = if all_day {
        wall.date().and_time(NaiveTime::MIN)
    } else {
        wall.with_nanosecond(0)?
    };
    let set = rule
        .expander(start_wall, resume.unwrap_or(start_wall))
        .ok()?;
    Some(Series {
        tz,
        all_day,
        due: due_ms,
        millis: wall.nanosecond() / 1_000_000,
        walls: (&set).into_iter(),
        start_wall,
        count: rule.count(),
        until: rule.until(),
        last_wall: resume.unwrap_or(start_wall),
        pending: BinaryHeap::new(),
        read: 1,
        passed: u32::from(resume.is_some()),
        exhausted: false,
        started: resume.is_some(),
    })
}

impl Series {
    /// Reads the next wall time into `pending`; false when there is none.
    fn read_wall(&mut self) -> bool {
        if self.exhausted || self.count.is_some_and(|count| self.read >= count) {
            self.exhausted = true;
            return false;
        }
        let wall = loop {
            match self.walls.next() {
                None => {
                    self.exhausted = true;
                    return false;
                }
                Some(t) if t.naive_utc() <= self.start_wall => continue,
                Some(t) => break t.naive_utc(),
            }
        };
        let horizon = self
            .last_wall
            .checked_add_months(chrono::Months::new(12 * RECURRENCE_HORIZON_YEARS));
        let at = if horizon.is_none_or(|h| wall > h) {
            None
        } else if self.all_day {
            wall_clock::start_of_day(self.tz, wall.date())
        } else {
            wall.checked_add_signed(TimeDelta::milliseconds(i64::from(self.millis)))
                .and_then(|local| wall_clock::instant(self.tz, local))
        };
        let Some(at) = at else {
            self.exhausted = true;
            return false;
        };
        self.last_wall = wall;
        self.read += 1;
        self.pending.push(Reverse(at));
        true
    }

    /// The exclusive bound `UNTIL` sets on instants, as the first instant past it.
    fn past_until(&self, at: i64) -> bool {
        match self.until {
            None => false,
            Some(Until::Utc(t)) => at > t.and_utc().timestamp_millis(),
            Some(Until::Floating(t)) => wall_clock::instant(self.tz, t).is_none_or(|u| at > u),
            Some(Until::Date(d)) => d
                .checked_add_days(Days::new(1))
                .and_then(|next| wall_clock::start_of_day(self.tz, next))
                .is_none_or(|end| at >= end),
        }
    }
}

impl Iterator for Series {
    type Item = Occurrence;

    fn next(&mut self) -> Option<Occurrence> {
        if !self.started {
            self.started = true;
            self.passed = 1;
            return Some(Occurrence {
                at: self.due,
                walls: 1,
            });
        }
        loop {
            // Read on until the smallest pending instant is final.
            let reorder = if self.all_day {
                REORDER_ALL_DAY_MS
            } else {
                REORDER_MS
            };
            while !self.exhausted {
                let last = self.last_wall.and_utc().timestamp_millis();
                match self.pending.peek() {
                    Some(Reverse(first)) if *first < last - reorder => break,
                    _ => {
                        self.read_wall();
                    }
                }
            }
            let Reverse(at) = self.pending.pop()?;
            self.passed += 1;
            while self.pending.peek() == Some(&Reverse(at)) {
                self.pending.pop();
                self.passed += 1;
            }
            if at <= self.due {
                continue;
            }
            if self.past_until(at) || at > LAST_INSTANT_MS {
                self.exhausted = true;
                self.pending.clear();
                return None;
            }
            return Some(Occurrence {
                at,
                walls: self.passed,
            });
        }
    }
}

/// The `dateStart` of the occurrence `new_due` of a task whose `dateDue` is `due` and
/// `dateStart` is `start`: the same distance in elapsed milliseconds, or for an all-day task
/// in whole days of `tz`. `None` when that leaves years 0001–9999.
pub fn shift_start(start: i64, due: i64, new_due: i64, tz: Tz, all_day: bool) -> Option<i64> {
    let shifted = if all_day {
        let days = (wall_clock::wall_time(tz, start)?.date()
            - wall_clock::wall_time(tz, due)?.date())
        .num_days();
        let day = wall_clock::wall_time(tz, new_due)?.date();
        let day = if days < 0 {
            day.checked_sub_days(Days::new(days.unsigned_abs()))?
        } else {
            day.checked_add_days(Days::new(days.unsigned_abs()))?
        };
        wall_clock::start_of_day(tz, day)?
    } else {
        new_due.checked_add(start.checked_sub(due)?)?
    };
    (FIRST_INSTANT_MS..=LAST_INSTANT_MS)
        .contains(&shifted)
        .then_some(shifted)
}

/// One entry of a task's occurrences listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    /// The occurrence's `dateDue`.
    pub due: i64,
    /// Its `dateStart`: the task's, at the same distance (see [`shift_start`]).
    pub start: Option<i64>,
}

/// The occurrences of a task in [`from_ms`, `to_ms`), at most `limit` of them, and whether
/// more follow within the range (`hasMore`). The task's `dateDue` is `due_ms`, its
/// `dateStart` `start_ms`; without a `rule` its only occurrence is `dateDue`. The caller
/// defaults `from` and `to` and checks `limit` against the contract. A series ends before
/// an occurrence whose `dateStart` would leave years 0001–9999.
#[allow(clippy::too_many_arguments)]
pub fn occurrences(
    rule: Option<&Rule>,
    due_ms: i64,
    start_ms: Option<i64>,
    tz: Tz,
    all_day: bool,
    from_ms: i64,
    to_ms: i64,
    limit: usize,
) -> (Vec<Listed>, bool) {
    let listed = |at: i64| -> Option<Listed> {
        Some(Listed {
            due: at,
            start: match start_ms {
                Some(start) => Some(shift_start(start, due_ms, at, tz, all_day)?),
                None => None,
            },
        })
    };
    let mut out = Vec::new();
    let all: Box<dyn Iterator<Item = i64>> = match rule {
        None => Box::new(std::iter::once(due_ms)),
        Some(rule) => match series_from(rule, due_ms, tz, all_day, from_ms) {
            Some(series) => Box::new(series.map(|o| o.at)),
            None => Box::new(std::iter::once(due_ms)),
        },
    };
    for at in all {
        if at >= to_ms {
            break;
        }
        if at < from_ms {
            continue;
        }
        let Some(entry) = listed(at) else { break };
        if out.len() == limit {
            return (out, true);
        }
        out.push(entry);
    }
    (out, false)
}
