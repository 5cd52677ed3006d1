//! Time rules of tasks (docs §18), pure and without web, actor or disk types:
//! recurrence rules ([`rule`]), their series and the `/occurrences` listing
//! ([`series`](mod@series)), the roll of a completion ([`roll`]) and reminders ([`reminder`]).
//!
//! Request flow: validation reads `timeZone`, date fields, `recurrence` and `reminders` with
//! [`wall_clock`](super::wall_clock), [`Rule::parse`] and [`Reminder`]; a space applies
//! [`complete`] in the write that finishes a recurring task; the occurrences route lists [`occurrences`]; the reminder
//! timer asks [`next_due`] when to fire.
//!
//! Time zones, wall time ↔ instant, `YYYY-MM-DD` dates and all-day days are
//! [`wall_clock`](super::wall_clock)'s, shared with the queries of §17.
//!
//! # Layout
//! - `rule`: the `recur` grammar (winnow) and the checks of RFC 5545 and the contract.
//! - `series`: expansion (the rrule crate over wall times, placed in the zone here).
//! - `roll`: `recurFrom` `due` and `completion`, `COUNT` lowering, `dateStart` distance.
//! - `reminder`: when reminders are due and whether a firing covers any.

pub mod reminder;
pub mod roll;
pub mod rule;
pub mod series;

pub use reminder::{check_reminders, due_now, next_due, Reminder};
pub use roll::{complete, RecurFrom, Rolled};
pub use rule::{Freq, Rule, Until};
// The old path of the wall-clock module, which `http::extract` still names.
pub use super::wall_clock as zone;
pub use series::{occurrences, series, series_from, shift_start, Listed, Occurrence, Series};

#[cfg(test)]
mod tests;
