//! A task's `reminders` (docs §18) and when they fire.
//!
//! A reminder is due at its `at`, or at `dateDue` minus `minutesBefore` (never while
//! `dateDue` is `null`). A firing at time `now` covers every reminder due at or before
//! `now`, and a reminder fires only if it is due after the task's `remindedAt` (or that is
//! `null`): so each fires once, and a moved `dateDue` re-arms the relative ones.

use crate::model::limits::{MAX_REMINDERS, REMINDER_MINUTES_MAX};

/// One reminder of a task. Part of the on-disk format (`store::codec`, inside a record's
/// `Value::Reminders`): never reorder the variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Reminder {
    /// `{"at": <date-time>}`: at this instant, in milliseconds since the Unix epoch.
    At(i64),
    /// `{"minutesBefore": n}`: `n` minutes (0 ..= 525,600) before `dateDue`.
    MinutesBefore(u32),
}

impl Reminder {
    /// A `minutesBefore` reminder, or the detail of why `minutes` is out of range.
    pub fn minutes_before(minutes: u64) -> Result<Reminder, String> {
        u32::try_from(minutes)
            .ok()
            .filter(|&m| m <= REMINDER_MINUTES_MAX)
            .map(Reminder::MinutesBefore)
            .ok_or_else(|| {
                format!("minutesBefore must be an integer from 0 to {REMINDER_MINUTES_MAX}")
            })
    }

    /// When the reminder is due, for a task whose `dateDue` is `due_ms`; `None` for a
    /// relative one while `dateDue` is `null`.
    pub fn due_at(self, due_ms: Option<i64>) -> Option<i64> {
        match self {
            Reminder::At(at) => Some(at),
            Reminder::MinutesBefore(minutes) => {
                due_ms.map(|due| due.saturating_sub(i64::from(minutes) * 60_000))
            }
        }
    }
}

/// Checks a `reminders` array as a whole: at most [`MAX_REMINDERS`] (each one is checked as
/// it is read, see [`Reminder::minutes_before`]).
pub fn check_reminders(reminders: &[Reminder]) -> Result<(), String> {
    if reminders.len() > MAX_REMINDERS {
        return Err(format!(
            "must be an array of at most {MAX_REMINDERS} reminders, each {{\"at\": <date-time>}} \
             or {{\"minutesBefore\": <integer 0 to {REMINDER_MINUTES_MAX}>}}"
        ));
    }
    reminders.iter().try_for_each(|r| match *r {
        Reminder::MinutesBefore(m) => Reminder::minutes_before(u64::from(m)).map(drop),
        Reminder::At(_) => Ok(()),
    })
}

/// The earliest time at which one of `reminders` is due to fire, for a task whose `dateDue`
/// is `due_ms` and `remindedAt` is `reminded_at`: the earliest reminder due strictly after
/// `reminded_at` (any, when it is `None`). `None` when no reminder is left to fire. The time
/// may be in the past: the reminder is then due now (taskd was stopped, or it was just set).
pub fn next_due(
    reminders: &[Reminder],
    due_ms: Option<i64>,
    reminded_at: Option<i64>,
) -> Option<i64> {
    reminders
        .iter()
        .filter_map(|r| r.due_at(due_ms))
        .filter(|&at| reminded_at.is_none_or(|fired| at > fired))
        .min()
}

/// Whether a firing at `now_ms` has anything to cover: some reminder is due at or before
/// `now_ms` and after `reminded_at` (or `reminded_at` is `None`).
pub fn due_now(
    reminders: &[Reminder],
    due_ms: Option<i64>,
    reminded_at: Option<i64>,
    now_ms: i64,
) -> bool {
    next_due(reminders, due_ms, reminded_at).is_some_and(|at| at <= now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000;

    #[test]
    fn minutes_before_are_0_to_a_year_of_minutes() {
        assert_eq!(Reminder::minutes_before(0), Ok(Reminder::MinutesBefore(0)));
        assert_eq!(
            Reminder::minutes_before(525_600),
            Ok(Reminder::MinutesBefore(525_600))
        );
        assert!(Reminder::minutes_before(525_601).is_err());
        assert!(Reminder::minutes_before(u64::MAX).is_err());
    }

    #[test]
    fn a_task_has_at_most_ten_reminders() {
        assert!(check_reminders(&[]).is_ok());
        assert!(check_reminders(&[Reminder::At(0); 10]).is_ok());
        assert!(check_reminders(&[Reminder::At(0); 11])
            .unwrap_err()
            .contains("at most 10"));
        assert!(check_reminders(&[Reminder::MinutesBefore(525_601)]).is_err());
    }

    #[test]
    fn a_relative_reminder_is_due_before_date_due_and_never_without_it() {
        let r = Reminder::MinutesBefore(15);
        assert_eq!(r.due_at(Some(100 * MIN)), Some(85 * MIN));
        assert_eq!(r.due_at(None), None);
        assert_eq!(Reminder::At(7).due_at(None), Some(7));
        assert_eq!(next_due(&[r], None, None), None);
        assert!(!due_now(&[r], None, None, i64::MAX));
    }

    #[test]
    fn the_next_reminder_is_the_earliest_after_reminded_at() {
        let rs = [
            Reminder::At(50 * MIN),
            Reminder::MinutesBefore(30),
            Reminder::MinutesBefore(0),
        ];
        let due = Some(100 * MIN);
        assert_eq!(next_due(&rs, due, None), Some(50 * MIN));
        assert_eq!(next_due(&rs, due, Some(50 * MIN)), Some(70 * MIN));
        assert_eq!(next_due(&rs, due, Some(70 * MIN)), Some(100 * MIN));
        assert_eq!(next_due(&rs, due, Some(100 * MIN)), None);
        assert_eq!(next_due(&[], due, None), None);
    }

    #[test]
    fn a_reminder_fires_once_and_a_moved_date_due_rearms_relative_ones() {
        let rs = [Reminder::MinutesBefore(10)];
        let due = Some(100 * MIN);
        assert!(!due_now(&rs, due, None, 89 * MIN));
        assert!(due_now(&rs, due, None, 90 * MIN));
        // Fired at 90: not again.
        assert!(!due_now(&rs, due, Some(90 * MIN), 1_000 * MIN));
        // dateDue moved a day on: due again at its new time.
        let moved = Some(100 * MIN + 1_440 * MIN);
        assert!(!due_now(&rs, moved, Some(90 * MIN), 1_000 * MIN));
        assert!(due_now(&rs, moved, Some(90 * MIN), 1_530 * MIN));
    }

    #[test]
    fn reminders_that_came_due_while_stopped_fire_together() {
        let rs = [
            Reminder::At(10 * MIN),
            Reminder::At(20 * MIN),
            Reminder::At(90 * MIN),
        ];
        assert!(due_now(&rs, None, Some(5 * MIN), 60 * MIN));
        // After that one firing at 60, only the reminder after 60 is left.
        assert_eq!(next_due(&rs, None, Some(60 * MIN)), Some(90 * MIN));
        // A reminder due exactly at remindedAt has fired.
        assert_eq!(next_due(&rs, None, Some(90 * MIN)), None);
    }
}
