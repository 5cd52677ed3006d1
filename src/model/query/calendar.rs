//! Wall times in a query's time zone (CONTRACT §17): `today`, `YYYY-MM-DD` dates and the
//! calendar days and weeks of `now+7d`, which keep the wall time across daylight-saving
//! changes.
//!
//! A wall time that a zone shows twice (the hour repeated when clocks go back) is its
//! earlier instant; one that it skips (clocks go forward) moves forward by the length of the
//! gap, so 02:30 on the night clocks jump from 02:00 to 03:00 is 03:30. Instants are
//! milliseconds since the Unix epoch; `None` means beyond what chrono represents.

use chrono::{DateTime, Days, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeDelta, TimeZone};
use chrono_tz::Tz;

/// The instant at which the clocks of `tz` show `local`.
pub fn instant(tz: Tz, local: NaiveDateTime) -> Option<i64> {
    if let Some(t) = tz.from_local_datetime(&local).earliest() {
        return Some(t.timestamp_millis());
    }
    // In a gap: read the wall time with the offset in force before it. A day before `local`
    // is before the transition, since no offset reaches a day.
    let before = local.checked_sub_signed(TimeDelta::days(1))?;
    let offset = tz.offset_from_utc_datetime(&before).fix();
    Some(
        local
            .checked_sub_offset(offset)?
            .and_utc()
            .timestamp_millis(),
    )
}

/// What the clocks of `tz` show at the instant `ms`.
pub fn wall_time(tz: Tz, ms: i64) -> Option<NaiveDateTime> {
    Some(
        DateTime::from_timestamp_millis(ms)?
            .with_timezone(&tz)
            .naive_local(),
    )
}

/// 00:00 of `date` in `tz`.
pub fn start_of_day(tz: Tz, date: NaiveDate) -> Option<i64> {
    instant(tz, date.and_time(NaiveTime::MIN))
}

/// 00:00 of the day that contains the instant `ms`, in `tz`.
pub fn today(tz: Tz, ms: i64) -> Option<i64> {
    start_of_day(tz, wall_time(tz, ms)?.date())
}

/// The instant `days` calendar days after `ms` (before it, when negative) at the same wall
/// time in `tz`.
pub fn add_days(tz: Tz, ms: i64, days: i64) -> Option<i64> {
    let local = wall_time(tz, ms)?;
    let shift = Days::new(days.unsigned_abs());
    let moved = if days < 0 {
        local.checked_sub_days(shift)?
    } else {
        local.checked_add_days(shift)?
    };
    instant(tz, moved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Europe::Paris;

    fn ms(rfc3339: &str) -> i64 {
        DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .timestamp_millis()
    }

    fn local(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M").unwrap()
    }

    #[test]
    fn an_ordinary_wall_time_has_one_instant() {
        assert_eq!(
            instant(Paris, local("2026-07-01T12:00")),
            Some(ms("2026-07-01T10:00:00Z"))
        );
    }

    #[test]
    fn a_repeated_wall_time_is_its_earlier_instant() {
        // 2026-10-25: Paris goes back from 03:00 CEST to 02:00 CET.
        assert_eq!(
            instant(Paris, local("2026-10-25T02:30")),
            Some(ms("2026-10-25T02:30:00+02:00"))
        );
    }

    #[test]
    fn a_skipped_wall_time_moves_forward_by_the_gap() {
        // 2026-03-29: Paris jumps from 02:00 CET to 03:00 CEST.
        assert_eq!(
            instant(Paris, local("2026-03-29T02:30")),
            Some(ms("2026-03-29T03:30:00+02:00"))
        );
    }

    #[test]
    fn calendar_days_keep_the_wall_time_across_a_change() {
        let before = ms("2026-03-28T09:00:00+01:00");
        assert_eq!(
            add_days(Paris, before, 1),
            Some(ms("2026-03-29T09:00:00+02:00"))
        );
        assert_eq!(
            add_days(Paris, ms("2026-03-29T09:00:00+02:00"), -1),
            Some(before)
        );
        assert_eq!(today(Paris, before), Some(ms("2026-03-28T00:00:00+01:00")));
    }

    #[test]
    fn a_day_that_starts_in_a_gap_starts_when_the_gap_ends() {
        // 2026-09-06: Santiago de Chile jumps from 00:00 to 01:00.
        let santiago = chrono_tz::America::Santiago;
        let date = NaiveDate::from_ymd_opt(2026, 9, 6).unwrap();
        assert_eq!(
            start_of_day(santiago, date),
            Some(ms("2026-09-06T01:00:00-03:00"))
        );
    }

    #[test]
    fn instants_beyond_chrono_are_none() {
        assert_eq!(wall_time(Paris, i64::MAX), None);
        assert_eq!(add_days(Paris, 0, i64::MAX), None);
    }
}
