//! Opaque paging cursors.
//!
//! A cursor carries the space version at which its walk began, the `now` its first page
//! fixed (the instant a filter's `now` and `today` are read against, docs §17), and the
//! [`Position`] of the last record returned in the walk's order. It ends in a tag: the
//! first bytes of a SHA-256 over the query it belongs to and its own contents, so a garbled
//! cursor, or one from another space, collection, filter, search, order, time zone or
//! `includeDeleted`, fails to decode instead of paging wrongly.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::query::Position;

/// Bytes of the SHA-256 kept as the tag.
const TAG_LEN: usize = 12;
/// version (8) + now (8) before the position.
const FIXED_LEN: usize = 16;

/// Where a walk through a collection stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    /// The space version when the walk began; later pages leave out records written after it.
    pub version: u64,
    /// `now` of the walk, in milliseconds since the Unix epoch: fixed by its first page.
    pub now: i64,
    /// Where the last record returned stands in the walk's order.
    pub position: Position,
}

impl Cursor {
    /// The cursor as an opaque URL-safe token bound to `query` (a description of the query).
    pub fn encode(&self, query: &[u8]) -> String {
        let mut bytes = Vec::with_capacity(FIXED_LEN + 32 + TAG_LEN);
        bytes.extend_from_slice(&self.version.to_le_bytes());
        bytes.extend_from_slice(&self.now.to_le_bytes());
        // Serializing plain values into a Vec cannot fail.
        bincode::serialize_into(&mut bytes, &self.position).unwrap_or_default();
        let tag = tag(query, &bytes);
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Reads a token made by [`Cursor::encode`] for the same `query`; `None` if it is garbled
    /// or was made for another query.
    pub fn decode(token: &str, query: &[u8]) -> Option<Cursor> {
        let bytes = URL_SAFE_NO_PAD.decode(token).ok()?;
        if bytes.len() < FIXED_LEN + TAG_LEN {
            return None;
        }
        let (body, given) = bytes.split_at(bytes.len() - TAG_LEN);
        if tag(query, body) != given {
            return None;
        }
        let version = u64::from_le_bytes(body[..8].try_into().ok()?);
        let now = i64::from_le_bytes(body[8..16].try_into().ok()?);
        let position: Position = bincode::deserialize(&body[FIXED_LEN..]).ok()?;
        Some(Cursor {
            version,
            now,
            position,
        })
    }
}

fn tag(query: &[u8], body: &[u8]) -> [u8; TAG_LEN] {
    let mut hasher = Sha256::new();
    hasher.update((query.len() as u64).to_le_bytes());
    hasher.update(query);
    hasher.update(body);
    let digest = hasher.finalize();
    let mut tag = [0; TAG_LEN];
    tag.copy_from_slice(&digest[..TAG_LEN]);
    tag
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::query::SortValue;

    fn sample() -> Cursor {
        Cursor {
            version: 42,
            now: 1_790_000_000_000,
            position: Position {
                values: vec![SortValue::Time(-3), SortValue::Null],
                id: "task-7".into(),
            },
        }
    }

    #[test]
    fn a_cursor_round_trips_for_its_own_query() {
        let token = sample().encode(b"q1");
        assert_eq!(Cursor::decode(&token, b"q1"), Some(sample()));
    }

    #[test]
    fn a_cursor_from_another_query_is_refused() {
        let token = sample().encode(b"q1");
        assert_eq!(Cursor::decode(&token, b"q2"), None);
    }

    #[test]
    fn a_garbled_cursor_is_refused() {
        let token = sample().encode(b"q1");
        let mut chars: Vec<char> = token.chars().collect();
        chars[3] = if chars[3] == 'A' { 'B' } else { 'A' };
        let garbled: String = chars.into_iter().collect();
        assert_eq!(Cursor::decode(&garbled, b"q1"), None);
        assert_eq!(Cursor::decode("not a cursor!", b"q1"), None);
        assert_eq!(Cursor::decode("", b"q1"), None);
        assert_eq!(Cursor::decode(&token[..token.len() - 2], b"q1"), None);
    }
}
