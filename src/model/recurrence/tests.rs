//! Series, listings and completions against docs §18, with daylight-saving changes in
//! Europe/Paris (2026-03-29 02:00 → 03:00, 2026-10-25 03:00 → 02:00) and America/New_York
//! (2026-03-08 02:00 → 03:00, 2026-11-01 02:00 → 01:00).

use chrono::{DateTime, SecondsFormat};
use chrono_tz::America::{New_York, Santiago};
use chrono_tz::Europe::Paris;
use chrono_tz::Tz;

use super::*;

fn ms(rfc3339: &str) -> i64 {
    DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .timestamp_millis()
}

/// `at` as the zone's clocks show it, with the offset.
fn shown(tz: Tz, at: i64) -> String {
    DateTime::from_timestamp_millis(at)
        .unwrap()
        .with_timezone(&tz)
        .to_rfc3339_opts(SecondsFormat::Millis, false)
}

/// The first `n` occurrences (fewer when the series ends) of `rule` from `due`.
fn first(rule: &str, due: &str, tz: Tz, all_day: bool, n: usize) -> Vec<String> {
    let rule = Rule::parse(rule, all_day).unwrap();
    series(&rule, ms(due), tz, all_day)
        .unwrap()
        .take(n)
        .map(|o| shown(tz, o.at))
        .collect()
}

fn timed(rule: &str, due: &str, tz: Tz, n: usize) -> Vec<String> {
    first(rule, due, tz, false, n)
}

fn roll(rule: &str, due: &str, start: Option<&str>, tz: Tz, from: RecurFrom, now: &str) -> Rolled {
    complete(rule, ms(due), start.map(ms), tz, false, from, ms(now)).unwrap()
}

/// `Rolled::Next` shown in `tz`.
fn next(rolled: Rolled, tz: Tz) -> (String, Option<String>, String) {
    match rolled {
        Rolled::Next {
            due,
            start,
            recurrence,
        } => (shown(tz, due), start.map(|s| shown(tz, s)), recurrence),
        Rolled::Finished => panic!("finished"),
    }
}

// ---- Expansion -------------------------------------------------------------------------

#[test]
fn nine_oclock_stays_nine_oclock_across_both_changes_in_paris() {
    assert_eq!(
        timed("FREQ=DAILY", "2026-03-28T09:00:00+01:00", Paris, 3),
        [
            "2026-03-28T09:00:00.000+01:00",
            "2026-03-29T09:00:00.000+02:00",
            "2026-03-30T09:00:00.000+02:00",
        ]
    );
    assert_eq!(
        timed("FREQ=WEEKLY", "2026-10-18T09:00:00+02:00", Paris, 2),
        [
            "2026-10-18T09:00:00.000+02:00",
            "2026-10-25T09:00:00.000+01:00",
        ]
    );
}

#[test]
fn nine_oclock_stays_nine_oclock_across_both_changes_in_new_york() {
    assert_eq!(
        timed("FREQ=DAILY", "2026-03-07T09:00:00-05:00", New_York, 2),
        [
            "2026-03-07T09:00:00.000-05:00",
            "2026-03-08T09:00:00.000-04:00",
        ]
    );
    assert_eq!(
        timed("FREQ=DAILY", "2026-10-31T09:00:00-04:00", New_York, 2),
        [
            "2026-10-31T09:00:00.000-04:00",
            "2026-11-01T09:00:00.000-05:00",
        ]
    );
}

#[test]
fn a_skipped_wall_time_moves_forward_by_the_gap() {
    assert_eq!(
        timed("FREQ=DAILY", "2026-03-28T02:30:00+01:00", Paris, 3),
        [
            "2026-03-28T02:30:00.000+01:00",
            "2026-03-29T03:30:00.000+02:00",
            "2026-03-30T02:30:00.000+02:00",
        ]
    );
    assert_eq!(
        timed("FREQ=DAILY", "2026-03-07T02:15:00-05:00", New_York, 3),
        [
            "2026-03-07T02:15:00.000-05:00",
            "2026-03-08T03:15:00.000-04:00",
            "2026-03-09T02:15:00.000-04:00",
        ]
    );
}

#[test]
fn a_repeated_wall_time_takes_its_first_offset() {
    assert_eq!(
        timed("FREQ=DAILY", "2026-10-24T02:30:00+02:00", Paris, 3),
        [
            "2026-10-24T02:30:00.000+02:00",
            "2026-10-25T02:30:00.000+02:00",
            "2026-10-26T02:30:00.000+01:00",
        ]
    );
    assert_eq!(
        timed("FREQ=DAILY", "2026-10-31T01:30:00-04:00", New_York, 2),
        [
            "2026-10-31T01:30:00.000-04:00",
            "2026-11-01T01:30:00.000-04:00",
        ]
    );
}

#[test]
fn hourly_steps_by_wall_clock_hours_and_count_counts_wall_times() {
    // Five wall times, 00:00 to 04:00; 02:00 does not exist and lands on 03:00, which is
    // then one occurrence: four occurrences.
    assert_eq!(
        timed(
            "FREQ=HOURLY;COUNT=5",
            "2026-03-29T00:00:00+01:00",
            Paris,
            10
        ),
        [
            "2026-03-29T00:00:00.000+01:00",
            "2026-03-29T01:00:00.000+01:00",
            "2026-03-29T03:00:00.000+02:00",
            "2026-03-29T04:00:00.000+02:00",
        ]
    );
    // The repeated hour is listed once, at its first offset: 02:00 CEST to 03:00 CET is two
    // elapsed hours, one wall-clock hour.
    assert_eq!(
        timed(
            "FREQ=HOURLY;COUNT=4",
            "2026-10-25T01:00:00+02:00",
            Paris,
            10
        ),
        [
            "2026-10-25T01:00:00.000+02:00",
            "2026-10-25T02:00:00.000+02:00",
            "2026-10-25T03:00:00.000+01:00",
            "2026-10-25T04:00:00.000+01:00",
        ]
    );
    assert_eq!(
        timed(
            "FREQ=HOURLY;COUNT=3",
            "2026-11-01T00:00:00-04:00",
            New_York,
            10
        ),
        [
            "2026-11-01T00:00:00.000-04:00",
            "2026-11-01T01:00:00.000-04:00",
            "2026-11-01T02:00:00.000-05:00",
        ]
    );
    assert_eq!(
        timed(
            "FREQ=HOURLY;COUNT=3",
            "2026-03-08T01:00:00-05:00",
            New_York,
            10
        ),
        [
            "2026-03-08T01:00:00.000-05:00",
            "2026-03-08T03:00:00.000-04:00",
        ]
    );
}

#[test]
fn a_skipped_day_merges_with_the_next() {
    // Samoa skipped 2011-12-30: its 09:00 moves forward by the gap (a day) onto 12-31's.
    let apia = chrono_tz::Pacific::Apia;
    assert_eq!(
        timed("FREQ=DAILY;COUNT=4", "2011-12-29T09:00:00-10:00", apia, 10),
        [
            "2011-12-29T09:00:00.000-10:00",
            "2011-12-31T09:00:00.000+14:00",
            "2012-01-01T09:00:00.000+14:00",
        ]
    );
}

#[test]
fn a_wall_time_before_a_due_date_in_the_repeated_hour_counts_but_is_not_listed() {
    // dateDue is the second 02:00 (CET); the rule's 02:30 reads as its first offset
    // (CEST), before dateDue.
    assert_eq!(
        timed(
            "FREQ=HOURLY;BYMINUTE=0,30;COUNT=3",
            "2026-10-25T02:00:00+01:00",
            Paris,
            10
        ),
        [
            "2026-10-25T02:00:00.000+01:00",
            "2026-10-25T03:00:00.000+01:00",
        ]
    );
}

#[test]
fn occurrences_are_in_order_when_a_gap_moves_one_past_another() {
    // On 03-29, 02:30 moves to 03:30 CEST, after 03:10 CEST.
    assert_eq!(
        timed(
            "FREQ=DAILY;BYHOUR=2,3;BYMINUTE=10,30;BYSETPOS=2,3",
            "2026-03-28T02:30:00+01:00",
            Paris,
            5
        ),
        [
            "2026-03-28T02:30:00.000+01:00",
            "2026-03-28T03:10:00.000+01:00",
            "2026-03-29T03:10:00.000+02:00",
            "2026-03-29T03:30:00.000+02:00",
            "2026-03-30T02:30:00.000+02:00",
        ]
    );
}

#[test]
fn the_milliseconds_of_date_due_are_kept_on_every_occurrence() {
    assert_eq!(
        timed("FREQ=DAILY", "2026-03-28T02:30:00.123+01:00", Paris, 3),
        [
            "2026-03-28T02:30:00.123+01:00",
            "2026-03-29T03:30:00.123+02:00",
            "2026-03-30T02:30:00.123+02:00",
        ]
    );
    assert_eq!(
        timed(
            "FREQ=HOURLY;BYSECOND=5,10;COUNT=3",
            "2026-11-27T09:00:05.999Z",
            Tz::UTC,
            5
        ),
        [
            "2026-11-27T09:00:05.999+00:00",
            "2026-11-27T09:00:10.999+00:00",
            "2026-11-27T10:00:05.999+00:00",
        ]
    );
}

#[test]
fn date_due_is_the_first_occurrence_and_counts_even_when_the_rule_skips_it() {
    // 2026-11-27 is a Friday.
    assert_eq!(
        timed(
            "FREQ=WEEKLY;BYDAY=MO;COUNT=3",
            "2026-11-27T09:00:00Z",
            Tz::UTC,
            10
        ),
        [
            "2026-11-27T09:00:00.000+00:00",
            "2026-11-30T09:00:00.000+00:00",
            "2026-12-07T09:00:00.000+00:00",
        ]
    );
    // Generated by the rule, it is counted once.
    assert_eq!(
        timed("FREQ=DAILY;COUNT=2", "2026-11-27T09:00:00Z", Tz::UTC, 10).len(),
        2
    );
}

#[test]
fn until_is_inclusive_in_each_of_its_forms() {
    let days = |rule: &str| timed(rule, "2026-11-27T09:00:00+01:00", Paris, 10).len();
    // 09:00 Paris is 08:00Z.
    assert_eq!(days("FREQ=DAILY;UNTIL=20261129T080000Z"), 3);
    assert_eq!(days("FREQ=DAILY;UNTIL=20261129T075959Z"), 2);
    // A floating UNTIL is a wall time in the task's zone.
    assert_eq!(days("FREQ=DAILY;UNTIL=20261129T090000"), 3);
    assert_eq!(days("FREQ=DAILY;UNTIL=20261129T085959"), 2);
    // An UNTIL before dateDue leaves dateDue alone.
    assert_eq!(days("FREQ=DAILY;UNTIL=20200101T000000Z"), 1);
    // All-day: a date, through that day.
    let all_day = |rule: &str| first(rule, "2026-11-27T00:00:00+01:00", Paris, true, 10);
    assert_eq!(all_day("FREQ=DAILY;UNTIL=20261129").len(), 3);
}

#[test]
fn an_all_day_series_is_days_at_midnight_in_the_zone() {
    assert_eq!(
        first(
            "FREQ=DAILY;COUNT=3",
            "2026-03-28T00:00:00+01:00",
            Paris,
            true,
            10
        ),
        [
            "2026-03-28T00:00:00.000+01:00",
            "2026-03-29T00:00:00.000+01:00",
            "2026-03-30T00:00:00.000+02:00",
        ]
    );
    assert_eq!(
        first(
            "FREQ=WEEKLY;BYDAY=SU;UNTIL=20261108",
            "2026-10-25T00:00:00-04:00",
            New_York,
            true,
            10
        ),
        [
            "2026-10-25T00:00:00.000-04:00",
            "2026-11-01T00:00:00.000-04:00",
            "2026-11-08T00:00:00.000-05:00",
        ]
    );
    // 2026-09-06: Santiago's day starts at 01:00, the end of its gap.
    assert_eq!(
        first(
            "FREQ=DAILY;COUNT=3",
            "2026-09-05T00:00:00-04:00",
            Santiago,
            true,
            10
        ),
        [
            "2026-09-05T00:00:00.000-04:00",
            "2026-09-06T01:00:00.000-03:00",
            "2026-09-07T00:00:00.000-03:00",
        ]
    );
    // An hourly rule on an all-day task: its hours of one day are one day.
    assert_eq!(
        first(
            "FREQ=HOURLY;INTERVAL=12",
            "2026-11-27T00:00:00Z",
            Tz::UTC,
            true,
            3
        ),
        [
            "2026-11-27T00:00:00.000+00:00",
            "2026-11-28T00:00:00.000+00:00",
            "2026-11-29T00:00:00.000+00:00",
        ]
    );
}

#[test]
fn a_rule_with_no_instance_within_100_years_has_no_next() {
    for rule in [
        "FREQ=YEARLY;INTERVAL=150",
        // From 2000-02-29, every hundred years: 2100, 2200, 2300 have no 29 February.
        "FREQ=YEARLY;INTERVAL=100;BYMONTH=2;BYMONTHDAY=29",
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=HOURLY;BYMONTH=4;BYMONTHDAY=31",
        // Every 24 hours from 09:00 never lands on 05:00.
        "FREQ=HOURLY;INTERVAL=24;BYHOUR=5",
    ] {
        assert_eq!(
            timed(rule, "2000-02-29T09:00:00Z", Tz::UTC, 3),
            ["2000-02-29T09:00:00.000+00:00"],
            "{rule}"
        );
        assert_eq!(
            roll(
                rule,
                "2000-02-29T09:00:00Z",
                None,
                Tz::UTC,
                RecurFrom::Due,
                "2000-03-01T00:00:00Z"
            ),
            Rolled::Finished,
            "{rule}"
        );
    }
    // 99 years on is within reach.
    assert_eq!(
        timed(
            "FREQ=YEARLY;INTERVAL=99",
            "2000-02-28T09:00:00Z",
            Tz::UTC,
            2
        ),
        [
            "2000-02-28T09:00:00.000+00:00",
            "2099-02-28T09:00:00.000+00:00",
        ]
    );
    // Leap days: four years apart, eight across 2100.
    assert_eq!(
        timed(
            "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
            "2096-02-29T09:00:00Z",
            Tz::UTC,
            2
        ),
        [
            "2096-02-29T09:00:00.000+00:00",
            "2104-02-29T09:00:00.000+00:00",
        ]
    );
}

#[test]
fn a_series_ends_before_leaving_year_9999() {
    assert_eq!(
        timed("FREQ=DAILY", "9999-12-30T00:00:00Z", Tz::UTC, 5),
        [
            "9999-12-30T00:00:00.000+00:00",
            "9999-12-31T00:00:00.000+00:00",
        ]
    );
}

#[test]
fn expanding_from_near_a_later_time_lists_what_expanding_from_date_due_does() {
    let day = 86_400_000_i64;
    for (text, due, tz, all_day) in [
        ("FREQ=DAILY", "2026-01-31T02:30:00.250+01:00", Paris, false),
        (
            "FREQ=DAILY;INTERVAL=3",
            "2026-01-31T09:00:00+01:00",
            Paris,
            false,
        ),
        (
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR",
            "2026-01-30T09:00:00-05:00",
            New_York,
            false,
        ),
        (
            "FREQ=WEEKLY;WKST=SU;INTERVAL=3;BYDAY=SU,SA",
            "2026-01-30T09:00:00Z",
            Tz::UTC,
            false,
        ),
        ("FREQ=MONTHLY", "2026-01-31T09:00:00+01:00", Paris, false),
        (
            "FREQ=MONTHLY;BYDAY=-1FR",
            "2026-01-30T09:00:00+01:00",
            Paris,
            false,
        ),
        (
            "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=31,1",
            "2026-01-31T09:00:00+01:00",
            Paris,
            false,
        ),
        ("FREQ=YEARLY", "2024-02-29T09:00:00+01:00", Paris, false),
        (
            "FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO",
            "2026-01-05T09:00:00+01:00",
            Paris,
            false,
        ),
        (
            "FREQ=YEARLY;INTERVAL=3;BYMONTH=3;BYDAY=-1SU;BYHOUR=2",
            "2026-03-29T03:00:00+02:00",
            Paris,
            false,
        ),
        (
            "FREQ=HOURLY;INTERVAL=5",
            "2026-01-31T09:00:00+01:00",
            Paris,
            false,
        ),
        (
            "FREQ=HOURLY;INTERVAL=7;BYHOUR=1,2,3",
            "2026-01-31T01:00:00+01:00",
            Paris,
            false,
        ),
        (
            "FREQ=DAILY;BYHOUR=2,3;BYMINUTE=10,30;BYSETPOS=2,3",
            "2026-03-28T02:30:00+01:00",
            Paris,
            false,
        ),
        (
            "FREQ=DAILY;INTERVAL=2",
            "2026-03-28T00:00:00+01:00",
            Paris,
            true,
        ),
        (
            "FREQ=MONTHLY;BYMONTHDAY=6",
            "2026-09-06T01:00:00-03:00",
            Santiago,
            true,
        ),
        (
            "FREQ=DAILY;UNTIL=20300101T000000Z",
            "2026-01-31T09:00:00Z",
            Tz::UTC,
            false,
        ),
    ] {
        let rule = Rule::parse(text, all_day).unwrap();
        let due = ms(due);
        for skip in [day / 3, day, 40 * day, 400 * day, 1_205 * day, 4_400 * day] {
            let from = due + skip;
            let expected: Vec<i64> = series(&rule, due, tz, all_day)
                .unwrap()
                .map(|o| o.at)
                .filter(|&at| at >= from)
                .take(30)
                .collect();
            let found: Vec<i64> = series_from(&rule, due, tz, all_day, from)
                .unwrap()
                .map(|o| o.at)
                .filter(|&at| at >= from)
                .take(30)
                .collect();
            assert_eq!(found, expected, "{text} from {}", shown(tz, from));
            assert!(expected.len() == 30 || text.contains("UNTIL"), "{text}");
            if skip >= 1_205 * day && !text.contains("UNTIL") {
                // It did start later.
                let first = series_from(&rule, due, tz, all_day, from).unwrap().next();
                assert!(first.is_some_and(|o| o.at > due), "{text}");
            }
        }
    }
}

#[test]
fn a_listing_or_a_roll_far_from_date_due_does_not_expand_the_years_between() {
    let rule = Rule::parse("FREQ=HOURLY", false).unwrap();
    let due = ms("0001-01-01T00:00:00Z");
    let from = ms("9999-01-01T00:00:00Z");
    let started = std::time::Instant::now();
    let (found, more) = occurrences(
        Some(&rule),
        due,
        None,
        Paris,
        false,
        from,
        from + 3_600_000 * 3,
        10,
    );
    assert_eq!(found.len(), 3);
    assert!(!more);
    let rolled = complete("FREQ=HOURLY", due, None, Paris, false, RecurFrom::Due, from).unwrap();
    assert!(matches!(rolled, Rolled::Next { due, .. } if due > from && due <= from + 3_600_000));
    // Expanding the ten thousand years between would take minutes.
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// A small deterministic generator (xorshift), for the sweeps below.
fn pick(state: &mut u64, n: usize) -> usize {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state % n as u64) as usize
}

#[test]
fn any_text_is_read_without_panicking() {
    let pieces = [
        "FREQ=",
        "DAILY",
        "WEEKLY",
        "MONTHLY",
        ";",
        ",",
        "=",
        "BYDAY=",
        "1MO",
        "-5FR",
        "e\u{301}",
        "\u{e9}",
        "\u{df}",
        "\u{1F600}",
        "UNTIL=",
        "20261231",
        "T",
        "093000",
        "Z",
        "COUNT=",
        "99999999999",
        "BYSETPOS=",
        "-1",
        "0",
        "+",
        "RRULE:",
        " ",
        "BYMONTHDAY=",
        "31",
        "BYHOUR=",
        "24",
        "WKST=",
        "SU",
    ];
    let mut state = 0x2545_F491_4F6C_DD1D;
    for _ in 0..20_000 {
        let len = 1 + pick(&mut state, 8);
        let text: String = (0..len)
            .map(|_| pieces[pick(&mut state, pieces.len())])
            .collect();
        let _ = Rule::parse(&text, pick(&mut state, 2) == 0);
    }
}

#[test]
fn every_series_starts_at_date_due_and_strictly_increases() {
    let rules = [
        "FREQ=DAILY",
        "FREQ=HOURLY",
        "FREQ=HOURLY;INTERVAL=5;BYMINUTE=0,29,30,59",
        "FREQ=DAILY;BYHOUR=0,1,2,3;BYMINUTE=0,15,30,45",
        "FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=2,3",
        "FREQ=MONTHLY;BYDAY=-1SU,1SU;BYHOUR=1,2",
        "FREQ=YEARLY;BYMONTH=3,4,9,10,11;BYDAY=SU;BYHOUR=0,2",
        "FREQ=DAILY;BYHOUR=1,2,3;BYSETPOS=-1,1",
    ];
    let zones = [
        Paris,
        New_York,
        Santiago,
        chrono_tz::Pacific::Apia,
        // A daylight-saving change of 30 minutes.
        chrono_tz::Australia::Lord_Howe,
        Tz::UTC,
    ];
    let dues = [
        "2026-03-27T02:30:00.500Z",
        "2026-10-01T23:45:00Z",
        "2011-12-28T09:00:00Z",
        "2026-04-01T00:00:00Z",
    ];
    for rule_text in rules {
        for all_day in [false, true] {
            let rule = Rule::parse(rule_text, all_day).unwrap();
            for tz in zones {
                for due in dues {
                    let due = ms(due);
                    let found: Vec<Occurrence> =
                        series(&rule, due, tz, all_day).unwrap().take(120).collect();
                    assert_eq!(found[0].at, due);
                    for pair in found.windows(2) {
                        assert!(
                            pair[0].at < pair[1].at && pair[0].walls < pair[1].walls,
                            "{rule_text} in {tz} from {}: {} then {}",
                            shown(tz, due),
                            shown(tz, pair[0].at),
                            shown(tz, pair[1].at)
                        );
                    }
                }
            }
        }
    }
}

// ---- The occurrences listing --------------------------------------------------------------

#[test]
fn the_listing_takes_from_to_and_limit_and_says_whether_more_follow() {
    let rule = Rule::parse("FREQ=DAILY", false).unwrap();
    let due = ms("2026-11-27T09:00:00Z");
    let day = 86_400_000;
    let list = |from: i64, to: i64, limit| {
        let (found, more) = occurrences(Some(&rule), due, None, Tz::UTC, false, from, to, limit);
        (found.iter().map(|l| l.due).collect::<Vec<_>>(), more)
    };
    assert_eq!(
        list(due, due + 3 * day, 10),
        (vec![due, due + day, due + 2 * day], false)
    );
    assert_eq!(list(due, due + 3 * day, 2), (vec![due, due + day], true));
    assert_eq!(list(due, due + 2 * day, 2), (vec![due, due + day], false));
    // `from` inclusive, `to` exclusive.
    assert_eq!(
        list(due + day, due + 2 * day + 1, 10),
        (vec![due + day, due + 2 * day], false)
    );
    assert_eq!(list(due - 10 * day, due, 10), (vec![], false));
}

#[test]
fn without_a_rule_the_listing_has_at_most_date_due() {
    let due = ms("2026-11-27T09:00:00Z");
    let (found, more) = occurrences(None, due, Some(due - 1), Tz::UTC, false, due, due + 1, 5);
    assert_eq!(
        found,
        [Listed {
            due,
            start: Some(due - 1)
        }]
    );
    assert!(!more);
    assert_eq!(
        occurrences(None, due, None, Tz::UTC, false, due + 1, due + 2, 5),
        (vec![], false)
    );
}

#[test]
fn date_start_keeps_its_elapsed_distance_and_all_day_its_days() {
    let rule = Rule::parse("FREQ=DAILY", false).unwrap();
    let due = ms("2026-03-28T09:00:00+01:00");
    let start = ms("2026-03-28T07:00:00+01:00");
    let to = due + 36 * 3_600_000;
    let (found, _) = occurrences(Some(&rule), due, Some(start), Paris, false, due, to, 5);
    let starts: Vec<String> = found
        .iter()
        .map(|l| shown(Paris, l.start.unwrap()))
        .collect();
    // Two elapsed hours before 09:00 CEST is 07:00 CEST.
    assert_eq!(
        starts,
        [
            "2026-03-28T07:00:00.000+01:00",
            "2026-03-29T07:00:00.000+02:00"
        ]
    );

    let rule = Rule::parse("FREQ=DAILY", true).unwrap();
    let due = ms("2026-03-28T00:00:00+01:00");
    let start = ms("2026-03-26T00:00:00+01:00");
    let to = due + 36 * 3_600_000;
    let (found, _) = occurrences(Some(&rule), due, Some(start), Paris, true, due, to, 5);
    let starts: Vec<String> = found
        .iter()
        .map(|l| shown(Paris, l.start.unwrap()))
        .collect();
    assert_eq!(
        starts,
        [
            "2026-03-26T00:00:00.000+01:00",
            "2026-03-27T00:00:00.000+01:00"
        ]
    );
    assert_eq!(
        shift_start(start, due, ms("2026-04-01T00:00:00+02:00"), Paris, true),
        Some(ms("2026-03-30T00:00:00+02:00"))
    );
}

// ---- Completion ----------------------------------------------------------------------------

#[test]
fn recur_from_due_moves_to_the_first_occurrence_after_due_and_now_lowering_count() {
    let due = "2026-11-23T09:00:00Z";
    // Done an hour late: the next day.
    assert_eq!(
        next(
            roll(
                "FREQ=DAILY;COUNT=5",
                due,
                None,
                Tz::UTC,
                RecurFrom::Due,
                "2026-11-23T10:00:00Z"
            ),
            Tz::UTC
        ),
        (
            "2026-11-24T09:00:00.000+00:00".into(),
            None,
            "FREQ=DAILY;COUNT=4".into()
        )
    );
    // Done early: still the next occurrence after dateDue.
    assert_eq!(
        next(
            roll(
                "FREQ=DAILY;COUNT=5",
                due,
                None,
                Tz::UTC,
                RecurFrom::Due,
                "2026-11-20T10:00:00Z"
            ),
            Tz::UTC
        )
        .0,
        "2026-11-24T09:00:00.000+00:00"
    );
    // Three days late: the occurrences passed are skipped and counted.
    assert_eq!(
        next(
            roll(
                "freq=daily;count=5",
                due,
                None,
                Tz::UTC,
                RecurFrom::Due,
                "2026-11-26T10:00:00Z"
            ),
            Tz::UTC
        ),
        (
            "2026-11-27T09:00:00.000+00:00".into(),
            None,
            "freq=daily;count=1".into()
        )
    );
    // "After" is strict: done exactly at the next occurrence skips it.
    assert_eq!(
        next(
            roll(
                "FREQ=DAILY",
                due,
                None,
                Tz::UTC,
                RecurFrom::Due,
                "2026-11-24T09:00:00Z"
            ),
            Tz::UTC
        )
        .0,
        "2026-11-25T09:00:00.000+00:00"
    );
}

#[test]
fn a_used_up_count_or_a_passed_until_finishes_the_task() {
    let due = "2026-11-23T09:00:00Z";
    let now = "2026-11-23T10:00:00Z";
    for rule in [
        "FREQ=DAILY;COUNT=1",
        "FREQ=DAILY;UNTIL=20261123T090000Z",
        "FREQ=DAILY;UNTIL=20261124T085959Z",
    ] {
        assert_eq!(
            roll(rule, due, None, Tz::UTC, RecurFrom::Due, now),
            Rolled::Finished,
            "{rule}"
        );
        assert_eq!(
            roll(rule, due, None, Tz::UTC, RecurFrom::Completion, now),
            Rolled::Finished,
            "{rule}"
        );
    }
    // COUNT=4 and four occurrences passed: nothing remains.
    assert_eq!(
        roll(
            "FREQ=DAILY;COUNT=4",
            due,
            None,
            Tz::UTC,
            RecurFrom::Due,
            "2026-11-26T10:00:00Z"
        ),
        Rolled::Finished
    );
}

#[test]
fn a_rolled_rule_describes_what_remains_of_the_series() {
    // Across the gap, with wall times merged: the rest of the old series is the new one.
    let tz = Paris;
    let text = "FREQ=HOURLY;COUNT=6";
    let due = "2026-03-29T01:00:00+01:00";
    let old = timed(text, due, tz, 10);
    let (new_due, _, new_text) = next(
        roll(
            text,
            due,
            None,
            tz,
            RecurFrom::Due,
            "2026-03-29T01:10:00+01:00",
        ),
        tz,
    );
    assert_eq!(new_due, "2026-03-29T03:00:00.000+02:00");
    assert_eq!(new_text, "FREQ=HOURLY;COUNT=4");
    assert_eq!(timed(&new_text, &new_due, tz, 10), old[1..]);
}

#[test]
fn recur_from_completion_reanchors_at_the_completion_day_and_may_move_earlier() {
    // Due 2027-02-27 09:00 every three months; completed early on 2026-11-23 at 18:00:
    // the series restarts on 2026-11-23 at 09:00, and its next is 2027-02-23.
    assert_eq!(
        next(
            roll(
                "FREQ=MONTHLY;INTERVAL=3;COUNT=10",
                "2027-02-27T09:00:00+01:00",
                Some("2027-02-26T09:00:00+01:00"),
                Paris,
                RecurFrom::Completion,
                "2026-11-23T18:00:00+01:00"
            ),
            Paris
        ),
        (
            "2027-02-23T09:00:00.000+01:00".into(),
            Some("2027-02-22T09:00:00.000+01:00".into()),
            "FREQ=MONTHLY;INTERVAL=3;COUNT=9".into()
        )
    );
    // Completed late, across a change: the completion day at dateDue's wall time, plus a
    // week.
    assert_eq!(
        next(
            roll(
                "FREQ=WEEKLY;COUNT=2",
                "2026-03-20T09:00:00+01:00",
                None,
                Paris,
                RecurFrom::Completion,
                "2026-03-29T23:00:00+02:00"
            ),
            Paris
        ),
        (
            "2026-04-05T09:00:00.000+02:00".into(),
            None,
            "FREQ=WEEKLY;COUNT=1".into()
        )
    );
}

#[test]
fn an_all_day_completion_is_counted_from_the_day_of_the_write_in_the_zone() {
    // 23:30Z on the 27th is the 28th in Paris.
    let rolled = complete(
        "FREQ=DAILY",
        ms("2026-11-20T00:00:00+01:00"),
        Some(ms("2026-11-19T00:00:00+01:00")),
        Paris,
        true,
        RecurFrom::Completion,
        ms("2026-11-27T23:30:00Z"),
    )
    .unwrap();
    assert_eq!(
        next(rolled, Paris),
        (
            "2026-11-29T00:00:00.000+01:00".into(),
            Some("2026-11-28T00:00:00.000+01:00".into()),
            "FREQ=DAILY".into()
        )
    );
    // recurFrom due, across the spring change: the day after, at its midnight.
    let rolled = complete(
        "FREQ=DAILY;UNTIL=20261231",
        ms("2026-03-28T00:00:00+01:00"),
        None,
        Paris,
        true,
        RecurFrom::Due,
        ms("2026-03-28T12:00:00+01:00"),
    )
    .unwrap();
    assert_eq!(next(rolled, Paris).0, "2026-03-29T00:00:00.000+01:00");
}

#[test]
fn date_start_keeps_its_distance_when_the_task_rolls() {
    // Two elapsed hours before dateDue, across the spring change.
    assert_eq!(
        next(
            roll(
                "FREQ=DAILY",
                "2026-03-28T09:00:00+01:00",
                Some("2026-03-28T07:00:00+01:00"),
                Paris,
                RecurFrom::Due,
                "2026-03-28T10:00:00+01:00"
            ),
            Paris
        )
        .1,
        Some("2026-03-29T07:00:00.000+02:00".into())
    );
}

#[test]
fn the_milliseconds_of_date_due_survive_a_roll() {
    assert_eq!(
        next(
            roll(
                "FREQ=DAILY",
                "2026-11-23T09:00:00.456Z",
                None,
                New_York,
                RecurFrom::Completion,
                "2026-11-25T12:00:00Z"
            ),
            Tz::UTC
        )
        .0,
        "2026-11-26T09:00:00.456+00:00"
    );
}

#[test]
fn a_rule_that_no_longer_fits_the_task_is_an_error() {
    assert!(complete(
        "FREQ=DAILY;UNTIL=20261231",
        0,
        None,
        Tz::UTC,
        false,
        RecurFrom::Due,
        0
    )
    .is_err());
    assert_eq!(RecurFrom::parse("due"), Some(RecurFrom::Due));
    assert_eq!(RecurFrom::parse("completion"), Some(RecurFrom::Completion));
    assert_eq!(RecurFrom::parse("Due"), None);
    assert_eq!(RecurFrom::default().as_str(), "due");
}

// ---- Why the rrule crate is wrapped --------------------------------------------------------

/// What the rrule crate does on its own, expanding in the zone and parsing the text itself;
/// each line is a case the wrap above handles (should the crate change, the wrap may
/// shrink).
#[test]
fn the_rrule_crate_alone_differs_from_the_contract() {
    let expand = |text: &str| -> Vec<String> {
        let set: rrule::RRuleSet = text.parse().unwrap();
        set.all(10).dates.iter().map(|d| d.to_rfc3339()).collect()
    };
    // Two wall times on one instant are two instances.
    assert_eq!(
        expand("DTSTART;TZID=Europe/Paris:20260329T010000\nRRULE:FREQ=HOURLY;COUNT=3"),
        [
            "2026-03-29T01:00:00+01:00",
            "2026-03-29T03:00:00+02:00",
            "2026-03-29T03:00:00+02:00",
        ]
    );
    // A day whose midnight is skipped is dropped, not moved forward.
    assert_eq!(
        expand("DTSTART;TZID=America/Santiago:20260905T000000\nRRULE:FREQ=DAILY;COUNT=2"),
        ["2026-09-05T00:00:00-04:00", "2026-09-07T00:00:00-03:00"]
    );
    // A DTSTART the rule does not generate is not an instance.
    assert_eq!(
        expand("DTSTART:20261127T090000Z\nRRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=1"),
        ["2026-11-30T09:00:00+00:00"]
    );
    // Its parser takes a malformed BYDAY for a weekday, and panics on some non-ASCII text.
    let lenient: Result<rrule::RRule<rrule::Unvalidated>, _> = "FREQ=MONTHLY;BYDAY=XMO".parse();
    assert!(lenient.is_ok());
    let text = "FREQ=MONTHLY;BYDAY=\u{e9}a";
    assert!(std::panic::catch_unwind(|| text.parse::<rrule::RRule<rrule::Unvalidated>>()).is_err());
    assert!(Rule::parse(text, false).is_err());
}

/// RFC 5545's ordinals: the fifth-last weekday of a month (a month may have none) and the
/// 53rd-last of a year, as python-dateutil expands them (docs §27).
#[test]
fn byday_ordinals_reach_minus_5_in_a_month_and_minus_53_in_a_year() {
    assert_eq!(
        timed(
            "FREQ=MONTHLY;BYDAY=-5TH,3SU;INTERVAL=2",
            "2026-01-01T09:00:00Z",
            Tz::UTC,
            5
        ),
        [
            "2026-01-01T09:00:00.000+00:00",
            "2026-01-18T09:00:00.000+00:00",
            "2026-03-15T09:00:00.000+00:00",
            "2026-05-17T09:00:00.000+00:00",
            "2026-07-02T09:00:00.000+00:00",
        ]
    );
    assert_eq!(
        timed(
            "FREQ=MONTHLY;BYDAY=-5MO",
            "2026-03-02T09:00:00Z",
            Tz::UTC,
            4
        ),
        [
            "2026-03-02T09:00:00.000+00:00",
            "2026-06-01T09:00:00.000+00:00",
            "2026-08-03T09:00:00.000+00:00",
            "2026-11-02T09:00:00.000+00:00",
        ]
    );
    assert_eq!(
        timed(
            "FREQ=YEARLY;BYDAY=-53MO;COUNT=3",
            "2018-01-01T09:00:00Z",
            Tz::UTC,
            5
        ),
        [
            "2018-01-01T09:00:00.000+00:00",
            "2024-01-01T09:00:00.000+00:00",
            "2029-01-01T09:00:00.000+00:00",
        ]
    );
}
