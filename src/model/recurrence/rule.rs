//! A task's `recurrence` (docs §18): an RFC 5545 `RRULE` value without the `RRULE:`
//! prefix, read by a grammar of RFC 5545's `recur` (§3.3.10) and checked against the
//! contract's limits and the combinations RFC 5545 forbids.
//!
//! The text is ASCII case-insensitive and stored as sent; the only rewrite taskd makes is of
//! `COUNT` when a completion lowers it ([`Rule::with_count`]), which replaces that number in
//! place and keeps every other character. The rrule crate's own parser is not used: it reads
//! a floating `UNTIL` in the server's local zone, takes `BYDAY=XMO` as `MO`, allows empty
//! parts and panics on some non-ASCII `BYDAY` values; the grammar here refuses what RFC 5545
//! does not allow.

use std::ops::Range;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Weekday};
use rrule::{Frequency, NWeekday, RRule, Unvalidated};
use winnow::ascii::Caseless;
use winnow::combinator::{alt, cut_err, opt, separated};
use winnow::error::{ContextError, ErrMode};
use winnow::prelude::*;
use winnow::stream::{AsChar, LocatingSlice};
use winnow::token::{one_of, take_while};

use crate::model::limits::{
    thousands, RECURRENCE_CANDIDATES_MAX, RECURRENCE_COUNT_MAX, RECURRENCE_INTERVAL_MAX,
    RECURRENCE_MAX_CHARS,
};

/// How often a series repeats: the `FREQ` values the contract allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freq {
    /// `YEARLY`.
    Yearly,
    /// `MONTHLY`.
    Monthly,
    /// `WEEKLY`.
    Weekly,
    /// `DAILY`.
    Daily,
    /// `HOURLY`: by wall-clock hours of the task's zone.
    Hourly,
}

/// The `UNTIL` of a rule, in the form it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// `YYYYMMDD`: the last day of an all-day series, inclusive.
    Date(NaiveDate),
    /// `YYYYMMDDTHHMMSS`: a wall time, read in the task's zone.
    Floating(NaiveDateTime),
    /// `YYYYMMDDTHHMMSSZ`: an instant in UTC.
    Utc(NaiveDateTime),
}

/// A valid recurrence rule. Built only by [`Rule::parse`], so every value is within the
/// contract's limits and free of the combinations RFC 5545 forbids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    freq: Freq,
    interval: u16,
    count: Option<u32>,
    until: Option<Until>,
    week_start: Weekday,
    by_second: Vec<u8>,
    by_minute: Vec<u8>,
    by_hour: Vec<u8>,
    by_day: Vec<NWeekday>,
    by_month_day: Vec<i8>,
    by_year_day: Vec<i16>,
    by_week_no: Vec<i8>,
    by_month: Vec<u8>,
    by_set_pos: Vec<i32>,
    /// The text as sent.
    text: String,
    /// Where the digits of `COUNT` are in `text`, in bytes.
    count_span: Option<Range<usize>>,
}

impl Rule {
    /// Reads and checks `text`, the `recurrence` of a task that is all-day when
    /// `is_all_day` (after the write). The error is the detail a `validation_failed` shows
    /// for `recurrence`: a malformed rule, a `FREQ` other than `YEARLY`, `MONTHLY`,
    /// `WEEKLY`, `DAILY` or `HOURLY`, `COUNT` or `INTERVAL` outside 1 ..= 1,000, a part given
    /// twice, `COUNT` with `UNTIL`, an ordinal `BYDAY` outside `MONTHLY` and `YEARLY` (or with
    /// `BYWEEKNO`), `BYMONTHDAY` with `WEEKLY`, `BYYEARDAY` with `DAILY`, `WEEKLY` or
    /// `MONTHLY`, `BYWEEKNO` outside `YEARLY`, `BYSETPOS` alone, an `UNTIL` date on a timed
    /// task or an `UNTIL` date-time on an all-day one, and text over 500 characters.
    pub fn parse(text: &str, is_all_day: bool) -> Result<Rule, String> {
        if text.chars().count() > RECURRENCE_MAX_CHARS {
            return Err(format!(
                "must be an RFC 5545 RRULE value of at most {RECURRENCE_MAX_CHARS} characters"
            ));
        }
        // Cut after each `;`: the error is then where the part fails, not at the `;`.
        let parts = separated(1.., cut_err(part), ';')
            .parse(LocatingSlice::new(text))
            .map_err(|e: winnow::error::ParseError<_, _>| {
                let at = text.get(..e.offset()).map_or(0, |s| s.chars().count());
                format!(
                    "must be an RFC 5545 RRULE value without the RRULE: prefix \
                     (such as FREQ=WEEKLY;BYDAY=MO,WE); malformed at character {at}"
                )
            })?;
        let rule = assemble(parts, text)?;
        rule.check(is_all_day)?;
        // The rrule crate has checks of its own (such as the ranges of ordinals per FREQ);
        // what it refuses could not be expanded, so it is refused here.
        let probe = NaiveDate::from_ymd_opt(2000, 1, 1)
            .unwrap_or_default()
            .and_time(NaiveTime::MIN);
        rule.expander(probe, probe)
            .map_err(|e| format!("is a rule taskd cannot expand: {e}"))?;
        Ok(rule)
    }

    /// The rule's `FREQ`.
    pub fn freq(&self) -> Freq {
        self.freq
    }

    /// The rule's `COUNT`, if it has one.
    pub fn count(&self) -> Option<u32> {
        self.count
    }

    /// The rule's `UNTIL`, if it has one.
    pub fn until(&self) -> Option<Until> {
        self.until
    }

    /// The text the rule was read from, as sent.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The rule's text with its `COUNT` set to `count`, every other character as it was; the
    /// text itself when the rule has no `COUNT`.
    pub fn with_count(&self, count: u32) -> String {
        let text = self.text.as_str();
        match &self.count_span {
            Some(span) => format!("{}{count}{}", &text[..span.start], &text[span.end..]),
            None => text.to_string(),
        }
    }

    /// The rule's `INTERVAL` (1 when not given).
    pub fn interval(&self) -> u16 {
        self.interval
    }

    /// The rule without `COUNT` and `UNTIL` (which `series` applies itself, on
    /// instants) for the rrule crate, with `DTSTART` the wall time `start` written as UTC:
    /// expanded in UTC, its instances are the series' wall times, and `HOURLY` steps by
    /// wall-clock hours.
    ///
    /// The expansion begins at `resume` (`start` itself, or a later wall time a whole number
    /// of `INTERVAL` periods after it): what the rule takes from `DTSTART` when a part is not
    /// given (the day of the month, the weekday, the time of day) is still `start`'s, so the
    /// instances from `resume` on are those of the series from `start`.
    pub(super) fn expander(
        &self,
        start: NaiveDateTime,
        resume: NaiveDateTime,
    ) -> Result<rrule::RRuleSet, String> {
        let freq = match self.freq {
            Freq::Yearly => Frequency::Yearly,
            Freq::Monthly => Frequency::Monthly,
            Freq::Weekly => Frequency::Weekly,
            Freq::Daily => Frequency::Daily,
            Freq::Hourly => Frequency::Hourly,
        };
        let months: Vec<chrono::Month> = self
            .by_month
            .iter()
            .filter_map(|&m| chrono::Month::try_from(m).ok())
            .collect();
        let rule: RRule<Unvalidated> = RRule::new(freq)
            .interval(self.interval)
            .week_start(self.week_start)
            .by_second(self.by_second.clone())
            .by_minute(self.by_minute.clone())
            .by_hour(self.by_hour.clone())
            .by_weekday(self.by_day.clone())
            .by_month_day(self.by_month_day.clone())
            .by_year_day(self.by_year_day.clone())
            .by_week_no(self.by_week_no.clone())
            .by_month(&months)
            .by_set_pos(self.by_set_pos.clone());
        let start = rrule::Tz::UTC.from_utc_datetime(&start);
        let resume = rrule::Tz::UTC.from_utc_datetime(&resume);
        // `validate` fills in the parts taken from `DTSTART`; the set's own start only
        // places the first period.
        let rule = rule.validate(start).map_err(|e| e.to_string())?;
        Ok(rrule::RRuleSet::new(resume).rrule(rule).limit())
    }

    /// How many instances one period of the rule may hold before its other parts filter
    /// them: the days of the period (366 of a year, 31 of a month, 7 of a week, 1) times
    /// the times of a day its `BYHOUR`, `BYMINUTE` and `BYSECOND` make. An expansion builds a
    /// period's candidates at once, so this bounds its work and memory (docs §27).
    fn candidates_per_period(&self) -> u64 {
        let days: u64 = match self.freq {
            Freq::Yearly => 366,
            Freq::Monthly => 31,
            Freq::Weekly => 7,
            Freq::Daily | Freq::Hourly => 1,
        };
        let count = |part: usize| part.max(1) as u64;
        let hours = match self.freq {
            Freq::Hourly => 1,
            _ => count(self.by_hour.len()),
        };
        days * hours * count(self.by_minute.len()) * count(self.by_second.len())
    }

    /// The checks RFC 5545 and the contract make beyond the grammar.
    fn check(&self, is_all_day: bool) -> Result<(), String> {
        let ordinal_day = self.by_day.iter().any(|d| matches!(d, NWeekday::Nth(..)));
        if ordinal_day && !matches!(self.freq, Freq::Monthly | Freq::Yearly) {
            return Err(
                "may have an ordinal BYDAY (such as 1MO) only with FREQ=MONTHLY or \
                        FREQ=YEARLY"
                    .into(),
            );
        }
        let month_ordinal = |d: &NWeekday| matches!(d, NWeekday::Nth(n, _) if n.abs() > 5);
        if self.freq == Freq::Monthly && self.by_day.iter().any(month_ordinal) {
            return Err(
                "must have BYDAY ordinals from 1 to 5 or -5 to -1 with FREQ=MONTHLY".into(),
            );
        }
        if ordinal_day && !self.by_week_no.is_empty() {
            return Err("may not have an ordinal BYDAY (such as 1MO) with BYWEEKNO".into());
        }
        if !self.by_month_day.is_empty() && self.freq == Freq::Weekly {
            return Err("may not have BYMONTHDAY with FREQ=WEEKLY".into());
        }
        if !self.by_year_day.is_empty()
            && matches!(self.freq, Freq::Daily | Freq::Weekly | Freq::Monthly)
        {
            return Err("may have BYYEARDAY only with FREQ=YEARLY or FREQ=HOURLY".into());
        }
        if !self.by_week_no.is_empty() && self.freq != Freq::Yearly {
            return Err("may have BYWEEKNO only with FREQ=YEARLY".into());
        }
        let candidates = self.candidates_per_period();
        if candidates > RECURRENCE_CANDIDATES_MAX {
            return Err(format!(
                "may have at most {RECURRENCE_CANDIDATES_MAX} candidate instances in one \
                 period, not {candidates}: fewer BYHOUR, BYMINUTE or BYSECOND values, or a \
                 shorter FREQ"
            ));
        }
        let other_by = !(self.by_second.is_empty()
            && self.by_minute.is_empty()
            && self.by_hour.is_empty()
            && self.by_day.is_empty()
            && self.by_month_day.is_empty()
            && self.by_year_day.is_empty()
            && self.by_week_no.is_empty()
            && self.by_month.is_empty());
        if !self.by_set_pos.is_empty() && !other_by {
            return Err("may have BYSETPOS only with another BYxxx part".into());
        }
        match (self.until, is_all_day) {
            (Some(Until::Date(_)), false) => Err(
                "must have UNTIL as a date-time (such as 20261231T230000Z) on a task that is \
                 not all-day"
                    .into(),
            ),
            (Some(Until::Floating(_) | Until::Utc(_)), true) => {
                Err("must have UNTIL as a date (such as 20261231) on an all-day task".into())
            }
            _ => Ok(()),
        }
    }
}

/// A rule part's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    Freq,
    Until,
    Count,
    Interval,
    BySecond,
    ByMinute,
    ByHour,
    ByDay,
    ByMonthDay,
    ByYearDay,
    ByWeekNo,
    ByMonth,
    BySetPos,
    Wkst,
}

impl Name {
    fn text(self) -> &'static str {
        match self {
            Name::Freq => "FREQ",
            Name::Until => "UNTIL",
            Name::Count => "COUNT",
            Name::Interval => "INTERVAL",
            Name::BySecond => "BYSECOND",
            Name::ByMinute => "BYMINUTE",
            Name::ByHour => "BYHOUR",
            Name::ByDay => "BYDAY",
            Name::ByMonthDay => "BYMONTHDAY",
            Name::ByYearDay => "BYYEARDAY",
            Name::ByWeekNo => "BYWEEKNO",
            Name::ByMonth => "BYMONTH",
            Name::BySetPos => "BYSETPOS",
            Name::Wkst => "WKST",
        }
    }
}

/// A rule part's value as the grammar reads it; ranges are checked by [`assemble`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    /// `FREQ`: `None` for `MINUTELY` and `SECONDLY`, which RFC 5545 has and the contract
    /// does not allow.
    Freq(Option<Freq>),
    Number(u64),
    Until(Until),
    Unsigned(Vec<u64>),
    Signed(Vec<i64>),
    Days(Vec<(Option<i64>, Weekday)>),
    Weekday(Weekday),
}

/// One `name=value` part, with where its value is in the text.
#[derive(Debug, Clone)]
struct Part {
    name: Name,
    value: Value,
    span: Range<usize>,
}

type Input<'a> = LocatingSlice<&'a str>;

fn part(input: &mut Input<'_>) -> ModalResult<Part> {
    let name = alt((
        Caseless("FREQ=").value(Name::Freq),
        Caseless("UNTIL=").value(Name::Until),
        Caseless("COUNT=").value(Name::Count),
        Caseless("INTERVAL=").value(Name::Interval),
        Caseless("BYSECOND=").value(Name::BySecond),
        Caseless("BYMINUTE=").value(Name::ByMinute),
        Caseless("BYHOUR=").value(Name::ByHour),
        Caseless("BYDAY=").value(Name::ByDay),
        Caseless("BYMONTHDAY=").value(Name::ByMonthDay),
        Caseless("BYYEARDAY=").value(Name::ByYearDay),
        Caseless("BYWEEKNO=").value(Name::ByWeekNo),
        Caseless("BYMONTH=").value(Name::ByMonth),
        Caseless("BYSETPOS=").value(Name::BySetPos),
        Caseless("WKST=").value(Name::Wkst),
    ))
    .parse_next(input)?;
    let (value, span) = match name {
        Name::Freq => freq.map(Value::Freq).with_span().parse_next(input)?,
        Name::Until => until.map(Value::Until).with_span().parse_next(input)?,
        Name::Count | Name::Interval => digits(1..=9)
            .map(Value::Number)
            .with_span()
            .parse_next(input)?,
        Name::BySecond | Name::ByMinute | Name::ByHour | Name::ByMonth => {
            separated(1.., digits(1..=2), ',')
                .map(Value::Unsigned)
                .with_span()
                .parse_next(input)?
        }
        Name::ByMonthDay | Name::ByYearDay | Name::ByWeekNo | Name::BySetPos => {
            separated(1.., signed(1..=3), ',')
                .map(Value::Signed)
                .with_span()
                .parse_next(input)?
        }
        Name::ByDay => separated(1.., (opt(signed(1..=2)), weekday), ',')
            .map(Value::Days)
            .with_span()
            .parse_next(input)?,
        Name::Wkst => weekday.map(Value::Weekday).with_span().parse_next(input)?,
    };
    Ok(Part { name, value, span })
}

fn freq(input: &mut Input<'_>) -> ModalResult<Option<Freq>> {
    alt((
        Caseless("YEARLY").value(Some(Freq::Yearly)),
        Caseless("MONTHLY").value(Some(Freq::Monthly)),
        Caseless("WEEKLY").value(Some(Freq::Weekly)),
        Caseless("DAILY").value(Some(Freq::Daily)),
        Caseless("HOURLY").value(Some(Freq::Hourly)),
        Caseless("MINUTELY").value(None),
        Caseless("SECONDLY").value(None),
    ))
    .parse_next(input)
}

fn weekday(input: &mut Input<'_>) -> ModalResult<Weekday> {
    alt((
        Caseless("MO").value(Weekday::Mon),
        Caseless("TU").value(Weekday::Tue),
        Caseless("WE").value(Weekday::Wed),
        Caseless("TH").value(Weekday::Thu),
        Caseless("FR").value(Weekday::Fri),
        Caseless("SA").value(Weekday::Sat),
        Caseless("SU").value(Weekday::Sun),
    ))
    .parse_next(input)
}

/// An unsigned decimal of `width` digits.
fn digits<'a>(
    width: std::ops::RangeInclusive<usize>,
) -> impl Parser<Input<'a>, u64, ErrMode<ContextError>> {
    take_while(width, AsChar::is_dec_digit).try_map(str::parse::<u64>)
}

/// A decimal of `width` digits with an optional `+` or `-`.
fn signed<'a>(
    width: std::ops::RangeInclusive<usize>,
) -> impl Parser<Input<'a>, i64, ErrMode<ContextError>> {
    (opt(one_of(['+', '-'])), digits(width)).map(|(sign, n)| {
        // At most 3 digits: always within i64.
        let n = n as i64;
        if sign == Some('-') {
            -n
        } else {
            n
        }
    })
}

/// `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ` (`T` and `Z` in either case).
fn until(input: &mut Input<'_>) -> ModalResult<Until> {
    let time = (
        one_of(['T', 't']),
        digits(2..=2),
        digits(2..=2),
        digits(2..=2),
        opt(one_of(['Z', 'z'])),
    );
    (digits(4..=4), digits(2..=2), digits(2..=2), opt(time))
        .verify_map(|(y, m, d, time)| {
            // Each is at most 4 digits: within i32 and u32.
            let date = NaiveDate::from_ymd_opt(y as i32, m as u32, d as u32).filter(|_| y >= 1)?;
            Some(match time {
                None => Until::Date(date),
                Some((_, h, mi, s, zulu)) => {
                    let at = date.and_time(NaiveTime::from_hms_opt(h as u32, mi as u32, s as u32)?);
                    if zulu.is_some() {
                        Until::Utc(at)
                    } else {
                        Until::Floating(at)
                    }
                }
            })
        })
        .parse_next(input)
}

/// The rule the parts describe, with each value's range checked; a part given twice, a
/// missing `FREQ` or `COUNT` with `UNTIL` is an error.
fn assemble(parts: Vec<Part>, text: &str) -> Result<Rule, String> {
    let mut seen: Vec<Name> = Vec::with_capacity(parts.len());
    for part in &parts {
        if seen.contains(&part.name) {
            return Err(format!("may give {} only once", part.name.text()));
        }
        seen.push(part.name);
    }
    let mut rule = Rule {
        freq: Freq::Daily,
        interval: 1,
        count: None,
        until: None,
        week_start: Weekday::Mon,
        by_second: Vec::new(),
        by_minute: Vec::new(),
        by_hour: Vec::new(),
        by_day: Vec::new(),
        by_month_day: Vec::new(),
        by_year_day: Vec::new(),
        by_week_no: Vec::new(),
        by_month: Vec::new(),
        by_set_pos: Vec::new(),
        text: text.to_string(),
        count_span: None,
    };
    let mut has_freq = false;
    for part in parts {
        has_freq |= matches!(part.value, Value::Freq(_));
        set_part(&mut rule, part)?;
    }
    if !has_freq {
        return Err("must have FREQ".into());
    }
    if rule.count.is_some() && rule.until.is_some() {
        return Err("may not have both COUNT and UNTIL".into());
    }
    Ok(rule)
}

/// Sets in `rule` what one part of its text says, checking its values' ranges.
fn set_part(rule: &mut Rule, Part { name, value, span }: Part) -> Result<(), String> {
    let label = name.text();
    match value {
        Value::Freq(freq) => {
            rule.freq =
                freq.ok_or("must have FREQ=YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY".to_string())?;
        }
        Value::Number(n) => {
            let max = match name {
                Name::Count => u64::from(RECURRENCE_COUNT_MAX),
                _ => u64::from(RECURRENCE_INTERVAL_MAX),
            };
            if !(1..=max).contains(&n) {
                return Err(format!("must have {label} from 1 to {}", thousands(max)));
            }
            if name == Name::Count {
                rule.count = Some(n as u32);
                rule.count_span = Some(span);
            } else {
                rule.interval = n as u16;
            }
        }
        Value::Until(until) => rule.until = Some(until),
        Value::Weekday(day) => rule.week_start = day,
        Value::Unsigned(values) => {
            let range = match name {
                Name::BySecond | Name::ByMinute => 0..=59,
                Name::ByHour => 0..=23,
                _ => 1..=12,
            };
            let shown = format!("{} to {}", range.start(), range.end());
            let values = in_range(&values, label, &shown, range, |&v| v)?;
            let values: Vec<u8> = values.into_iter().map(|v| v as u8).collect();
            match name {
                Name::BySecond => rule.by_second = values,
                Name::ByMinute => rule.by_minute = values,
                Name::ByHour => rule.by_hour = values,
                _ => rule.by_month = values,
            }
        }
        Value::Signed(values) => {
            let max = match name {
                Name::ByMonthDay => 31,
                Name::ByWeekNo => 53,
                _ => 366,
            };
            let shown = format!("1 to {max} or -{max} to -1");
            let values = in_range(&values, label, &shown, 1..=max, |v: &i64| v.unsigned_abs())?;
            match name {
                Name::ByMonthDay => {
                    rule.by_month_day = values.into_iter().map(|v| v as i8).collect()
                }
                Name::ByWeekNo => rule.by_week_no = values.into_iter().map(|v| v as i8).collect(),
                Name::ByYearDay => {
                    rule.by_year_day = values.into_iter().map(|v| v as i16).collect()
                }
                _ => rule.by_set_pos = values.into_iter().map(|v| v as i32).collect(),
            }
        }
        Value::Days(days) => {
            for (n, _) in &days {
                if let Some(n) = n {
                    if !(1..=53).contains(&n.unsigned_abs()) {
                        return Err(format!(
                            "must have BYDAY ordinals from 1 to 53 or -53 to -1, not {n}"
                        ));
                    }
                }
            }
            rule.by_day = days
                .into_iter()
                .map(|(n, day)| match n {
                    Some(n) => NWeekday::Nth(n as i16, day),
                    None => NWeekday::Every(day),
                })
                .collect();
        }
    }
    Ok(())
}

/// `values` when each one's `key` is within `range`, else the error naming `label` and the
/// values allowed (`shown`).
fn in_range<T: Copy + std::fmt::Display>(
    values: &[T],
    label: &str,
    shown: &str,
    range: std::ops::RangeInclusive<u64>,
    key: impl Fn(&T) -> u64,
) -> Result<Vec<T>, String> {
    match values.iter().find(|v| !range.contains(&key(v))) {
        Some(bad) => Err(format!("must have {label} values from {shown}, not {bad}")),
        None => Ok(values.to_vec()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(text: &str) -> Result<Rule, String> {
        Rule::parse(text, false)
    }

    #[test]
    fn a_plain_rule_is_read_in_any_case() {
        let rule = timed("FREQ=WEEKLY;BYDAY=MO,WE").unwrap();
        assert_eq!(rule.freq(), Freq::Weekly);
        assert_eq!(
            rule.by_day,
            vec![NWeekday::Every(Weekday::Mon), NWeekday::Every(Weekday::Wed)]
        );
        for text in ["freq=weekly;byday=mo,we", "Freq=Weekly;ByDay=Mo,We"] {
            let same = timed(text).unwrap();
            assert_eq!((same.freq, &same.by_day), (rule.freq, &rule.by_day));
            // Stored as sent.
            assert_eq!(same.text(), text);
        }
        // RFC 5545 leaves the order of the parts free.
        assert_eq!(timed("COUNT=3;FREQ=DAILY").unwrap().count(), Some(3));
    }

    #[test]
    fn every_allowed_freq_is_read_and_the_others_are_refused() {
        for (text, freq) in [
            ("YEARLY", Freq::Yearly),
            ("MONTHLY", Freq::Monthly),
            ("WEEKLY", Freq::Weekly),
            ("DAILY", Freq::Daily),
            ("HOURLY", Freq::Hourly),
        ] {
            assert_eq!(timed(&format!("FREQ={text}")).unwrap().freq(), freq);
        }
        assert!(timed("FREQ=MINUTELY").unwrap_err().contains("FREQ=YEARLY"));
        assert!(timed("FREQ=SECONDLY").unwrap_err().contains("FREQ=YEARLY"));
        assert!(timed("FREQ=FORTNIGHTLY").unwrap_err().contains("malformed"));
        assert_eq!(timed("INTERVAL=2"), Err("must have FREQ".into()));
    }

    #[test]
    fn malformed_text_is_refused_with_its_position() {
        for bad in [
            "",
            ";",
            "FREQ=DAILY;",
            ";FREQ=DAILY",
            "FREQ=DAILY;;COUNT=2",
            "RRULE:FREQ=DAILY",
            "FREQ = DAILY",
            "FREQ=DAILY;COUNT=",
            "FREQ=DAILY;COUNT=-1",
            "FREQ=DAILY;COUNT=+1",
            "FREQ=DAILY;COUNT=1.5",
            "FREQ=WEEKLY;BYDAY=",
            "FREQ=WEEKLY;BYDAY=MONDAY",
            "FREQ=MONTHLY;BYDAY=XMO",
            "FREQ=MONTHLY;BYDAY=+MO",
            "FREQ=MONTHLY;BYDAY=éMO",
            "FREQ=WEEKLY;BYDAY=MO,",
            "FREQ=DAILY;BYHOUR=+9",
            "FREQ=DAILY;BYHOUR=009",
            "FREQ=DAILY;X-NAME=1",
            "FREQ=DAILY;UNTIL=2026123",
            "FREQ=DAILY;UNTIL=20261301",
            "FREQ=DAILY;UNTIL=20260230",
            "FREQ=DAILY;UNTIL=20261231T250000Z",
            "FREQ=DAILY;UNTIL=20261231T2300Z",
            "FREQ=DAILY;UNTIL=2026-12-31",
            "FREQ=DAILY;UNTIL=00001231T000000Z",
            "FREQ=DAILY;WKST=XX",
        ] {
            let err = timed(bad).expect_err(bad);
            assert!(err.contains("malformed at character"), "{bad}: {err}");
        }
        assert!(timed("FREQ=DAILY;;COUNT=2")
            .unwrap_err()
            .ends_with("character 11"));
        assert!(timed("RRULE:FREQ=DAILY")
            .unwrap_err()
            .ends_with("character 0"));
    }

    #[test]
    fn rules_over_500_characters_are_refused() {
        let long = format!("FREQ=DAILY;BYHOUR={}", vec!["1"; 250].join(","));
        assert!(long.chars().count() > 500);
        assert!(timed(&long).unwrap_err().contains("at most 500"));
        let just = format!("FREQ=YEARLY;BYMONTH={}", vec!["1"; 240].join(","));
        assert_eq!(just.chars().count(), 499);
        assert!(timed(&just).is_ok());
    }

    #[test]
    fn count_and_interval_are_1_to_1000() {
        assert!(timed("FREQ=DAILY;COUNT=1").is_ok());
        assert!(timed("FREQ=DAILY;COUNT=1000").is_ok());
        assert!(timed("FREQ=DAILY;INTERVAL=1000").is_ok());
        assert_eq!(
            timed("FREQ=DAILY;COUNT=0"),
            Err("must have COUNT from 1 to 1,000".into())
        );
        assert_eq!(
            timed("FREQ=DAILY;COUNT=1001"),
            Err("must have COUNT from 1 to 1,000".into())
        );
        assert_eq!(
            timed("FREQ=DAILY;INTERVAL=0"),
            Err("must have INTERVAL from 1 to 1,000".into())
        );
        assert_eq!(
            timed("FREQ=DAILY;INTERVAL=999999999"),
            Err("must have INTERVAL from 1 to 1,000".into())
        );
    }

    #[test]
    fn a_part_given_twice_is_refused() {
        assert_eq!(
            timed("FREQ=DAILY;FREQ=DAILY"),
            Err("may give FREQ only once".into())
        );
        assert_eq!(
            timed("FREQ=WEEKLY;BYDAY=MO;byday=TU"),
            Err("may give BYDAY only once".into())
        );
    }

    #[test]
    fn the_combinations_rfc_5545_forbids_are_refused() {
        assert_eq!(
            timed("FREQ=DAILY;COUNT=2;UNTIL=20261231T000000Z"),
            Err("may not have both COUNT and UNTIL".into())
        );
        for bad in [
            "FREQ=WEEKLY;BYDAY=1MO",
            "FREQ=DAILY;BYDAY=-1FR",
            "FREQ=HOURLY;BYDAY=2TU",
        ] {
            assert!(timed(bad).unwrap_err().contains("ordinal BYDAY"), "{bad}");
        }
        assert!(timed("FREQ=MONTHLY;BYDAY=1MO,-1FR").is_ok());
        assert!(timed("FREQ=YEARLY;BYDAY=20MO").is_ok());
        assert!(timed("FREQ=YEARLY;BYWEEKNO=20;BYDAY=1MO")
            .unwrap_err()
            .contains("BYWEEKNO"));
        assert!(timed("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO").is_ok());
        assert_eq!(
            timed("FREQ=WEEKLY;BYMONTHDAY=1"),
            Err("may not have BYMONTHDAY with FREQ=WEEKLY".into())
        );
        for bad in [
            "FREQ=MONTHLY;BYWEEKNO=1",
            "FREQ=WEEKLY;BYWEEKNO=1",
            "FREQ=DAILY;BYWEEKNO=1",
        ] {
            assert_eq!(
                timed(bad),
                Err("may have BYWEEKNO only with FREQ=YEARLY".into())
            );
        }
        assert!(timed("FREQ=MONTHLY;BYYEARDAY=100")
            .unwrap_err()
            .contains("BYYEARDAY"));
        assert!(timed("FREQ=YEARLY;BYYEARDAY=-1").is_ok());
        assert!(timed("FREQ=MONTHLY;BYSETPOS=1")
            .unwrap_err()
            .contains("BYSETPOS"));
        assert!(timed("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1").is_ok());
    }

    #[test]
    fn values_outside_their_ranges_are_refused() {
        assert_eq!(
            timed("FREQ=MONTHLY;BYMONTHDAY=-32"),
            Err("must have BYMONTHDAY values from 1 to 31 or -31 to -1, not -32".into())
        );
        assert_eq!(
            timed("FREQ=DAILY;BYHOUR=9,24"),
            Err("must have BYHOUR values from 0 to 23, not 24".into())
        );
        for (bad, part) in [
            ("FREQ=DAILY;BYHOUR=24", "BYHOUR"),
            ("FREQ=DAILY;BYMINUTE=60", "BYMINUTE"),
            ("FREQ=DAILY;BYSECOND=60", "BYSECOND"),
            ("FREQ=YEARLY;BYMONTH=0", "BYMONTH"),
            ("FREQ=YEARLY;BYMONTH=13", "BYMONTH"),
            ("FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY"),
            ("FREQ=MONTHLY;BYMONTHDAY=-32", "BYMONTHDAY"),
            ("FREQ=YEARLY;BYYEARDAY=367", "BYYEARDAY"),
            ("FREQ=YEARLY;BYWEEKNO=54", "BYWEEKNO"),
            ("FREQ=YEARLY;BYDAY=54MO", "BYDAY"),
            ("FREQ=YEARLY;BYDAY=0MO", "BYDAY"),
            ("FREQ=YEARLY;BYDAY=-54MO", "BYDAY"),
            ("FREQ=MONTHLY;BYDAY=6MO", "BYDAY"),
            ("FREQ=MONTHLY;BYDAY=-6MO", "BYDAY"),
        ] {
            assert!(timed(bad).unwrap_err().contains(part), "{bad}");
        }
    }

    #[test]
    fn until_is_a_date_time_on_a_timed_task_and_a_date_on_an_all_day_one() {
        let utc = timed("FREQ=DAILY;UNTIL=20261231T230000Z").unwrap();
        let at = NaiveDate::from_ymd_opt(2026, 12, 31)
            .unwrap()
            .and_hms_opt(23, 0, 0)
            .unwrap();
        assert_eq!(utc.until(), Some(Until::Utc(at)));
        assert_eq!(
            timed("freq=daily;until=20261231t230000z").unwrap().until(),
            Some(Until::Utc(at))
        );
        assert_eq!(
            timed("FREQ=DAILY;UNTIL=20261231T230000").unwrap().until(),
            Some(Until::Floating(at))
        );
        assert!(timed("FREQ=DAILY;UNTIL=20261231")
            .unwrap_err()
            .contains("date-time"));

        let day = NaiveDate::from_ymd_opt(2026, 12, 31).unwrap();
        assert_eq!(
            Rule::parse("FREQ=DAILY;UNTIL=20261231", true)
                .unwrap()
                .until(),
            Some(Until::Date(day))
        );
        for bad in [
            "FREQ=DAILY;UNTIL=20261231T230000Z",
            "FREQ=DAILY;UNTIL=20261231T230000",
        ] {
            assert!(Rule::parse(bad, true).unwrap_err().contains("a date"));
        }
    }

    #[test]
    fn byday_ordinals_are_those_of_rfc_5545() {
        for good in [
            "FREQ=MONTHLY;BYDAY=-5MO",
            "FREQ=MONTHLY;BYDAY=5MO,-5TU;COUNT=1",
            "FREQ=YEARLY;BYDAY=-53MO",
            "FREQ=YEARLY;BYDAY=53FR",
        ] {
            assert!(timed(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn lowering_count_rewrites_only_its_digits() {
        let text = "freq=Daily;Count=0010;byHour=9";
        let rule = timed(text).unwrap();
        assert_eq!(rule.count(), Some(10));
        assert_eq!(rule.text(), text);
        assert_eq!(rule.with_count(7), "freq=Daily;Count=7;byHour=9");
        let text = "FREQ=DAILY";
        assert_eq!(timed(text).unwrap().with_count(7), "FREQ=DAILY");
    }

    #[test]
    fn a_rule_whose_period_holds_over_100000_candidates_is_refused() {
        let hours: Vec<String> = (0..24).map(|h| h.to_string()).collect();
        let sixty: Vec<String> = (0..60).map(|m| m.to_string()).collect();
        // The attack of issue 37: 366 days x 24 x 60 x 60 candidates a year.
        let attack = format!(
            "FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR={};BYMINUTE={};BYSECOND={}",
            hours.join(","),
            sixty.join(","),
            sixty.join(",")
        );
        assert!(attack.len() <= 500, "inside the 500 characters");
        let refused = timed(&attack).unwrap_err();
        assert!(refused.contains("candidate instances"), "{refused}");
        // A month of every minute is 44,640: allowed; a year of them is not.
        let minutes = format!("BYHOUR={};BYMINUTE={}", hours.join(","), sixty.join(","));
        assert!(timed(&format!("FREQ=MONTHLY;{minutes}")).is_ok());
        assert!(timed(&format!("FREQ=YEARLY;{minutes}")).is_err());
        assert!(timed(&format!("FREQ=DAILY;{minutes};BYSECOND=0,30")).is_ok());
    }
}
