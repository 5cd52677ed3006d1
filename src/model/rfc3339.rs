//! Date-times out (docs §3): RFC 3339 in UTC with milliseconds,
//! `2026-11-22T09:15:02.123Z`.
//!
//! Every record a response shows has two or three of them and every log line one, so the
//! common case (years 0000–9999) is computed with integer arithmetic alone (the civil date
//! of a day number, as in Howard Hinnant's `civil_from_days`) and written digit by digit
//! into a fixed buffer, with no format string and no allocation; chrono's formatter covers
//! the rest.

use std::ops::Deref;

use chrono::DateTime;

/// A formatted date-time; derefs to the text.
#[derive(Debug, Clone)]
pub enum Stamp {
    /// Years 0000–9999: always 24 ASCII bytes.
    Fixed([u8; 24]),
    /// Any other year, as chrono writes it.
    Other(String),
}

impl Deref for Stamp {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            // Only ASCII digits and separators are ever written into it.
            Stamp::Fixed(bytes) => std::str::from_utf8(bytes).unwrap_or_default(),
            Stamp::Other(text) => text,
        }
    }
}

/// 0000-01-01T00:00:00.000Z, in milliseconds since the Unix epoch.
const YEAR_0: i64 = -62_167_219_200_000;
/// 10000-01-01T00:00:00.000Z.
const YEAR_10000: i64 = 253_402_300_800_000;
const DAY_MS: i64 = 86_400_000;

/// The two digits of 0 to 99.
const PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0; 2]; 100];
    let mut n = 0;
    while n < 100 {
        pairs[n] = [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
        n += 1;
    }
    pairs
};

/// `ms` milliseconds since the Unix epoch as RFC 3339 UTC with milliseconds; `None` when
/// chrono cannot represent the instant.
pub fn rfc3339_millis(ms: i64) -> Option<Stamp> {
    if !(YEAR_0..YEAR_10000).contains(&ms) {
        let t = DateTime::from_timestamp_millis(ms)?;
        return Some(Stamp::Other(
            t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        ));
    }
    let (year, month, day) = civil(ms.div_euclid(DAY_MS));
    // Below a day: fits in 27 bits.
    let in_day = ms.rem_euclid(DAY_MS) as u32;
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, value: u32| {
        out[at..at + 2].copy_from_slice(&PAIRS[value as usize % 100]);
    };
    put(0, year / 100);
    put(2, year);
    put(5, month);
    put(8, day);
    put(11, in_day / 3_600_000);
    put(14, in_day / 60_000 % 60);
    put(17, in_day / 1000 % 60);
    put(21, in_day % 1000);
    out[20] = b'0' + (in_day % 1000 / 100) as u8;
    Some(Stamp::Fixed(out))
}

/// The proleptic Gregorian (year, month, day) of day `days` since 1970-01-01, for the days
/// of years 0 to 9999 (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms").
fn civil(days: i64) -> (u32, u32, u32) {
    // Days since 0000-03-01, in 400-year eras of 146,097 days; for years 0 to 9999 the
    // day is at least -60, so the days are shifted by one era to stay positive.
    let z = days + 719_468 + 146_097;
    let era = z / 146_097 - 1;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year as u32, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_match_chronos_rfc3339_with_millis() {
        let chrono_text = |ms| {
            DateTime::from_timestamp_millis(ms)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        };
        for ms in [
            0,
            1,
            999,
            1_795_000_000_123,
            -1,
            -62_135_596_800_000, // 0001-01-01T00:00:00.000Z
            253_402_300_799_999, // 9999-12-31T23:59:59.999Z
            253_402_300_800_000, // year 10000
            -62_167_219_200_001, // year -1
            951_782_400_000,     // 2000-02-29
        ] {
            assert_eq!(&*rfc3339_millis(ms).unwrap(), chrono_text(ms), "{ms}");
        }
        assert!(rfc3339_millis(i64::MAX).is_none());
    }

    #[test]
    fn days_of_years_0_to_9999_match_chrono() {
        let chrono_text = |ms| {
            DateTime::from_timestamp_millis(ms)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        };
        // The calendar repeats every 400 years (146,097 days): every day of the first 401
        // years, then every 97th day up to 9999, each at a time of day that walks through
        // the day's milliseconds.
        let mut ms = YEAR_0;
        let mut in_day = 0;
        while ms < YEAR_10000 {
            let at = ms + in_day;
            assert_eq!(&*rfc3339_millis(at).unwrap(), chrono_text(at), "{at}");
            in_day = (in_day + 7_654_321) % DAY_MS;
            ms += match ms < YEAR_0 + 146_500 * DAY_MS {
                true => DAY_MS,
                false => 97 * DAY_MS,
            };
        }
        for at in [YEAR_0, YEAR_0 - 1, YEAR_10000 - 1, YEAR_10000] {
            assert_eq!(&*rfc3339_millis(at).unwrap(), chrono_text(at), "{at}");
        }
    }
}
