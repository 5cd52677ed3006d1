//! Wall times in a time zone, for both sections of the contract that read them: the queries
//! of docs §17 (`today`, `YYYY-MM-DD` dates and the calendar days and weeks of `now+7d`,
//! which keep the wall time across daylight-saving changes) and the time rules of tasks of
//! §18 (a task's `timeZone`, its `YYYY-MM-DD` dates and the days of all-day tasks).
//!
//! A wall time that a zone shows twice (the hour repeated when clocks go back) is its
//! earlier instant; one that it skips (clocks go forward) moves forward by the length of the
//! gap, so 02:30 on the night clocks jump from 02:00 to 03:00 is 03:30. Instants are
//! milliseconds since the Unix epoch; `None` means beyond what chrono represents.

use chrono::{
    DateTime, Datelike, Days, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeDelta, TimeZone,
};
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

/// 00:00 of the day that contains the instant `ms`, in `tz`: `today` of a query, the day
/// of an all-day task.
pub fn day_of(tz: Tz, ms: i64) -> Option<i64> {
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

/// The zone a `timeZone` value names: `None` (the field is `null`) is UTC. Any IANA name
/// chrono-tz knows is accepted, the backward-compatible aliases (`US/Eastern`,
/// `Asia/Calcutta`) included, spelled exactly; the caller stores the text as sent.
pub fn parse_zone(name: Option<&str>) -> Result<Tz, String> {
    match name {
        None => Ok(Tz::UTC),
        Some(name) => name
            .parse::<Tz>()
            .map_err(|_| "must be an IANA time zone name such as Europe/Paris, or null".into()),
    }
}

/// The same day of an all-day task in another zone: the day `ms` starts in `from`, as it
/// starts in `to` (a change of `timeZone` keeps the days).
pub fn rezone_day(ms: i64, from: Tz, to: Tz) -> Option<i64> {
    start_of_day(to, wall_time(from, ms)?.date())
}

/// A date field given as `YYYY-MM-DD` (exactly: four-digit year 0001–9999, two-digit month
/// and day); `None` for any other text, which the caller then reads as a date-time.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let shape = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shape {
        return None;
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    (date.year() >= 1).then_some(date)
}

/// The instant a date field given as `YYYY-MM-DD` means: 00:00 of that day in `tz`.
pub fn date_instant(text: &str, tz: Tz) -> Option<i64> {
    start_of_day(tz, parse_date(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::America::New_York;
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
    fn zone_names_are_iana_names_and_aliases_and_null_is_utc() {
        assert_eq!(parse_zone(None), Ok(Tz::UTC));
        assert_eq!(parse_zone(Some("UTC")), Ok(Tz::UTC));
        assert_eq!(parse_zone(Some("Europe/Paris")), Ok(Paris));
        assert_eq!(parse_zone(Some("US/Eastern")), Ok(Tz::US__Eastern));
        assert!(parse_zone(Some("Asia/Calcutta")).is_ok());
        assert!(parse_zone(Some("Europe/Atlantis")).is_err());
        assert!(parse_zone(Some("europe/paris")).is_err());
        assert!(parse_zone(Some("")).is_err());
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
        // 2026-11-01: New York goes back from 02:00 EDT to 01:00 EST.
        assert_eq!(
            instant(New_York, local("2026-11-01T01:30")),
            Some(ms("2026-11-01T01:30:00-04:00"))
        );
    }

    #[test]
    fn a_skipped_wall_time_moves_forward_by_the_gap() {
        // 2026-03-29: Paris jumps from 02:00 CET to 03:00 CEST.
        assert_eq!(
            instant(Paris, local("2026-03-29T02:30")),
            Some(ms("2026-03-29T03:30:00+02:00"))
        );
        // 2026-03-08: New York jumps from 02:00 EST to 03:00 EDT.
        assert_eq!(
            instant(New_York, local("2026-03-08T02:15")),
            Some(ms("2026-03-08T03:15:00-04:00"))
        );
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
    fn dates_are_exactly_yyyy_mm_dd_and_mean_midnight_in_the_zone() {
        assert_eq!(
            date_instant("2026-11-27", Paris),
            Some(ms("2026-11-27T00:00:00+01:00"))
        );
        assert_eq!(
            date_instant("2026-07-04", New_York),
            Some(ms("2026-07-04T00:00:00-04:00"))
        );
        for bad in [
            "2026-1-05",
            "2026-01-5",
            "26-01-05",
            "2026/01/05",
            "2026-02-30",
            "0000-01-01",
            "+2026-01-05",
            "2026-01-05T00:00:00Z",
            "",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        assert!(parse_date("0001-01-01").is_some());
        assert!(parse_date("9999-12-31").is_some());
    }

    #[test]
    fn an_all_day_instant_names_the_day_it_falls_on_in_the_zone() {
        // 23:30 UTC on the 27th is already the 28th in Paris, still the 27th in New York.
        let t = ms("2026-11-27T23:30:00.123Z");
        assert_eq!(day_of(Paris, t), Some(ms("2026-11-28T00:00:00+01:00")));
        assert_eq!(day_of(New_York, t), Some(ms("2026-11-27T00:00:00-05:00")));
        assert_eq!(day_of(Tz::UTC, t), Some(ms("2026-11-27T00:00:00Z")));
    }

    #[test]
    fn a_change_of_zone_keeps_the_day() {
        let paris_day = ms("2026-11-28T00:00:00+01:00");
        assert_eq!(
            rezone_day(paris_day, Paris, New_York),
            Some(ms("2026-11-28T00:00:00-05:00"))
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
        assert_eq!(day_of(Paris, before), Some(ms("2026-03-28T00:00:00+01:00")));
    }

    #[test]
    fn instants_beyond_chrono_are_none() {
        assert_eq!(wall_time(Paris, i64::MAX), None);
        assert_eq!(day_of(Paris, i64::MIN), None);
        assert_eq!(add_days(Paris, 0, i64::MAX), None);
    }
}
