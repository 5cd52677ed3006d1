//! Assertions and small checks shared by the tests.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::Reply;

/// Checks that `reply` is an RFC 9457 problem with `status` and `code`.
#[track_caller]
pub fn assert_problem(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "status of {:#?}", reply.body);
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(
        content_type.starts_with("application/problem+json"),
        "content type {content_type:?} of a {status}"
    );
    let body = &reply.body;
    assert_eq!(body["code"], code, "code of {body:#}");
    assert_eq!(body["status"], status, "status field of {body:#}");
    assert!(body["type"].is_string(), "type of {body:#}");
    assert!(body["title"].is_string(), "title of {body:#}");
    assert!(body["detail"].is_string(), "detail of {body:#}");
}

/// The `field`s named in a `validation_failed` problem, sorted.
pub fn error_fields(reply: &Reply) -> Vec<String> {
    let mut fields: Vec<String> = reply.body["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors array in {:#}", reply.body))
        .iter()
        .map(|e| e["field"].as_str().expect("field name").to_string())
        .collect();
    fields.sort();
    fields
}

/// Checks a `400 validation_failed` that names exactly `fields`.
#[track_caller]
pub fn assert_invalid_fields(reply: &Reply, fields: &[&str]) {
    assert_problem(reply, 400, "validation_failed");
    let mut expected: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    expected.sort();
    assert_eq!(error_fields(reply), expected, "in {:#}", reply.body);
}

/// Whether `s` is an RFC 3339 UTC date-time with milliseconds: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn is_utc_millis(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    b.len() == 24
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z'
        && chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

/// Whether `s` is a UUID written lowercase with hyphens.
pub fn is_lowercase_uuid(s: &str) -> bool {
    uuid::Uuid::parse_str(s).is_ok_and(|u| u.hyphenated().to_string() == s)
}

/// The milliseconds since the epoch of an RFC 3339 date-time.
pub fn millis(s: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s.as_str().expect("a date-time string"))
        .expect("an RFC 3339 date-time")
        .timestamp_millis()
}

/// Waits until `done` holds, checking every 20 ms for up to `timeout`.
pub fn wait_until(timeout: Duration, done: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}
