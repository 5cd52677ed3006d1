//! The one conditional-request rule of every front (§10; RFC 9110 §8.8.3, §13.1): a
//! record's entity tag is its `versionUpdatedAt` quoted, `If-Match` compares strongly (a
//! weak tag matches nothing, `*` anything that exists), `If-None-Match` weakly. The JSON API
//! and CalDAV hand the header values here and act on the answer; neither reads a tag itself.

use crate::model::IfMatch;

/// The entity tag of a record (or a space) at `version`: `"<version>"`, a strong tag.
pub(crate) fn etag(version: u64) -> String {
    // Every answer with a record carries one: no format string.
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(version);
    let mut tag = String::with_capacity(digits.len() + 2);
    tag.push('"');
    tag.push_str(digits);
    tag.push('"');
    tag
}

/// What `If-Match` header values ask for: `None` without one, [`IfMatch::Any`] for `*`, else
/// the versions of its strong tags. A weak tag, a tag of no version of taskd's and a value
/// that is no entity-tag list match nothing, so they fail the write (`412`).
pub(crate) fn if_match<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<IfMatch> {
    let mut values = values.into_iter().peekable();
    values.peek()?;
    let mut versions = Vec::new();
    for value in values {
        match tags(value) {
            Some(Tags::Any) => return Some(IfMatch::Any),
            Some(Tags::List(tags)) => versions.extend(
                tags.into_iter()
                    .filter(|t| !t.weak)
                    .filter_map(|t| t.version()),
            ),
            None => {}
        }
    }
    Some(IfMatch::Versions(versions))
}

/// Whether `If-None-Match` header values match the tag of `version` (weak comparison, as
/// RFC 9110 §13.1.2 asks; `*` matches anything that exists).
pub(crate) fn none_match<'a>(values: impl IntoIterator<Item = &'a [u8]>, version: u64) -> bool {
    values.into_iter().any(|value| match tags(value) {
        Some(Tags::Any) => true,
        Some(Tags::List(tags)) => tags.iter().any(|t| t.version() == Some(version)),
        None => false,
    })
}

/// Whether `If-None-Match` header values hold `*` (a create-only write).
pub(crate) fn none_match_any<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> bool {
    values
        .into_iter()
        .any(|value| matches!(tags(value), Some(Tags::Any)))
}

/// One entity tag of a header value.
struct Tag<'a> {
    weak: bool,
    /// What is between the quotes.
    opaque: &'a [u8],
}

impl Tag<'_> {
    /// The version a taskd tag names: its opaque part, when that is a decimal number.
    fn version(&self) -> Option<u64> {
        if self.opaque.is_empty() || !self.opaque.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(self.opaque).ok()?.parse().ok()
    }
}

/// A header value of `If-Match` or `If-None-Match`.
enum Tags<'a> {
    /// `*`.
    Any,
    /// `#entity-tag`.
    List(Vec<Tag<'a>>),
}

/// Reads a header value by RFC 9110's grammar: `"*" / #entity-tag`, where
/// `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE` and list elements are separated by commas
/// with optional whitespace (empty elements allowed, §5.6.1); `None` for anything else.
fn tags(value: &[u8]) -> Option<Tags<'_>> {
    let ows = |v: &[u8], mut at: usize| {
        while v.get(at).is_some_and(|b| *b == b' ' || *b == b'\t') {
            at += 1;
        }
        at
    };
    let start = ows(value, 0);
    let mut end = value.len();
    while end > start && matches!(value[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    let value = &value[start..end];
    if value == b"*" {
        return Some(Tags::Any);
    }
    let mut list = Vec::new();
    let mut at = 0;
    loop {
        at = ows(value, at);
        match value.get(at) {
            None => break,
            Some(b',') => {
                at += 1;
                continue;
            }
            Some(_) => {}
        }
        let weak = value[at..].starts_with(b"W/");
        if weak {
            at += 2;
        }
        if value.get(at) != Some(&b'"') {
            return None;
        }
        let opened = at + 1;
        let closed = opened + value[opened..].iter().position(|b| *b == b'"')?;
        let opaque = &value[opened..closed];
        // etagc = %x21 / %x23-7E / obs-text: no controls, spaces or quotes.
        if opaque.iter().any(|b| *b <= b' ' || *b == 0x7f) {
            return None;
        }
        list.push(Tag { weak, opaque });
        at = ows(value, closed + 1);
        match value.get(at) {
            None => break,
            Some(b',') => at += 1,
            Some(_) => return None,
        }
    }
    Some(Tags::List(list))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matched(values: &[&str]) -> Option<IfMatch> {
        if_match(values.iter().map(|v| v.as_bytes()))
    }

    fn versions(values: &[&str]) -> Vec<u64> {
        match matched(values) {
            Some(IfMatch::Versions(v)) => v,
            other => panic!("expected versions, got {other:?}"),
        }
    }

    #[test]
    fn a_record_tag_is_its_version_quoted_and_strong() {
        assert_eq!(etag(42), "\"42\"");
        assert_eq!(versions(&[&etag(42)]), [42]);
    }

    #[test]
    fn if_match_takes_strong_tags_only() {
        assert_eq!(versions(&["\"3\", W/\"4\" ,\"5\""]), [3, 5]);
        assert_eq!(versions(&["W/\"7\""]), Vec::<u64>::new());
        assert_eq!(versions(&["\"1\"", "\"2\""]), [1, 2]);
    }

    #[test]
    fn if_match_star_matches_anything_and_no_header_is_no_condition() {
        assert!(matches!(matched(&[" * "]), Some(IfMatch::Any)));
        assert!(matched(&[]).is_none());
    }

    #[test]
    fn a_value_that_is_no_tag_list_matches_nothing() {
        for bad in ["3", "\"3", "\"3\" \"4\"", "W/3", "\"a b\"", "\"x\"", "\"\""] {
            assert_eq!(versions(&[bad]), Vec::<u64>::new(), "{bad}");
        }
        assert_eq!(versions(&[",, \"8\" ,"]), [8]);
    }

    #[test]
    fn if_none_match_compares_weakly() {
        let none = |v: &str, version| none_match([v.as_bytes()], version);
        assert!(none("W/\"9\"", 9));
        assert!(none("\"9\"", 9));
        assert!(none("*", 9));
        assert!(!none("\"8\", W/\"10\"", 9));
        assert!(!none("9", 9));
        assert!(none_match_any([b"*".as_slice()]));
        assert!(!none_match_any([b"\"1\"".as_slice()]));
    }
}
