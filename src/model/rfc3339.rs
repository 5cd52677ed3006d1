//! Date-times out (docs §3): RFC 3339 in UTC with milliseconds,
//! `2026-11-22T09:15:02.123Z`.
//!
//! Every record a response shows has two or three of them and every log line one, so the
//! common case (years 0000–9999) is written digit by digit into a fixed buffer, with no
//! format string and no allocation; chrono's formatter covers the rest.

use std::ops::Deref;

use chrono::{DateTime, Datelike, Timelike};

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

/// `ms` milliseconds since the Unix epoch as RFC 3339 UTC with milliseconds; `None` when
/// chrono cannot represent the instant.
pub fn rfc3339_millis(ms: i64) -> Option<Stamp> {
    let t = DateTime::from_timestamp_millis(ms)?;
    let Ok(year @ 0..=9999) = u32::try_from(t.year()) else {
        return Some(Stamp::Other(
            t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        ));
    };
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: u32, mut value: u32| {
        for i in (at..at + width as usize).rev() {
            out[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, t.month());
    put(8, 2, t.day());
    put(11, 2, t.hour());
    put(14, 2, t.minute());
    put(17, 2, t.second());
    put(20, 3, t.timestamp_subsec_millis());
    Some(Stamp::Fixed(out))
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
}
