//! Time rules of tasks (CONTRACT §18), pure and without web, actor or disk types: time zones,
//! dates and all-day days ([`zone`]), recurrence rules ([`rule`]), their series and the
//! `/occurrences` listing ([`series`](mod@series)), the roll of a completion ([`roll`]) and reminders
//! ([`reminder`]).
//!
//! Request flow: validation reads `timeZone`, date fields, `recurrence` and `reminders`
//! with [`zone`], [`Rule::parse`] and [`Reminder`]; a space applies [`complete`] in the write
//! that finishes a recurring task; the occurrences route lists [`occurrences`]; the reminder
//! timer asks [`next_due`] when to fire.
//!
//! # Layout
//! - `zone`: IANA zones, wall time ↔ instant (a gap moves forward, a repeat takes its first
//!   offset), `YYYY-MM-DD`, all-day days.
//! - `rule`: the `recur` grammar (winnow) and the checks of RFC 5545 and the contract.
//! - `series`: expansion (the rrule crate over wall times, placed in the zone here).
//! - `roll`: `recurFrom` `due` and `completion`, `COUNT` lowering, `dateStart` distance.
//! - `reminder`: when reminders are due and whether a firing covers any.

pub mod reminder;
pub mod roll;
pub mod rule;
pub mod series;
pub mod zone;

pub use reminder::{check_reminders, due_now, next_due, Reminder};
pub use roll::{complete, RecurFrom, Rolled};
pub use rule::{Freq, Rule, Until};
pub use series::{occurrences, series, series_from, shift_start, Listed, Occurrence, Series};

#[cfg(test)]
mod tests;
