//! The snapshot file format; the only place that uses bincode.
//!
//! A file is a 20-byte header followed by a bincode payload:
//!
//! | bytes | content |
//! | --- | --- |
//! | 0..4 | magic `TSKD` |
//! | 4..6 | format version, little-endian (`FORMAT_VERSION`) |
//! | 6 | file kind: 1 users, 2 space |
//! | 7 | reserved, 0 |
//! | 8..16 | payload length, little-endian |
//! | 16..20 | CRC-32 of the payload, little-endian |
//!
//! The payload is the bincode of `UsersSnapshot` or `SpaceSnapshot` with one pinned
//! configuration ([`options`]). Those types derive serde without `flatten`, `untagged`,
//! internal tagging or `skip_serializing_if`, which bincode cannot read back. Any change to
//! their shape needs a new `FORMAT_VERSION` and a decoder for every older one, so that every
//! release reads the files of every earlier release; `tests/fixtures` pins version 1.

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The format version this build writes.
pub const FORMAT_VERSION: u16 = 1;
const MAGIC: &[u8; 4] = b"TSKD";
const HEADER_LEN: usize = 20;

/// Which snapshot a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// The users file.
    Users = 1,
    /// One space.
    Space = 2,
}

/// The one bincode configuration, for writing and reading: little-endian, variable-length
/// integers, no trailing bytes, and reads limited to the payload's length so that a bad
/// length prefix cannot ask for an absurd allocation.
fn options(limit: u64) -> impl Options {
    bincode::DefaultOptions::new()
        .with_little_endian()
        .with_varint_encoding()
        .reject_trailing_bytes()
        .with_limit(limit)
}

/// Encodes `value` as a complete file of kind `kind`.
pub fn encode<T: Serialize>(kind: FileKind, value: &T) -> Result<Vec<u8>, String> {
    let payload = options(u64::MAX)
        .serialize(value)
        .map_err(|e| format!("cannot encode: {e}"))?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.push(kind as u8);
    bytes.push(0);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// Decodes a whole file of kind `kind`, refusing anything truncated, corrupt, of another
/// kind or of an unknown format version.
pub fn decode<T: DeserializeOwned>(kind: FileKind, bytes: &[u8]) -> Result<T, String> {
    if bytes.len() < HEADER_LEN || &bytes[..4] != MAGIC {
        return Err("not a taskd snapshot file (bad or missing header)".into());
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != FORMAT_VERSION {
        return Err(format!(
            "unknown snapshot format version {version} (this build reads {FORMAT_VERSION})"
        ));
    }
    if bytes[7] != 0 {
        return Err("bad header: reserved byte is not zero".into());
    }
    if bytes[6] != kind as u8 {
        return Err(format!(
            "holds file kind {} where {} was expected",
            bytes[6], kind as u8
        ));
    }
    let length = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != length {
        return Err(format!(
            "truncated or padded: header says {length} payload bytes, file has {}",
            payload.len()
        ));
    }
    let crc = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
    if crc32fast::hash(payload) != crc {
        return Err("checksum mismatch: the file is corrupt".into());
    }
    options(length)
        .deserialize(payload)
        .map_err(|e| format!("cannot decode payload: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{User, UsersSnapshot};

    fn sample() -> UsersSnapshot {
        UsersSnapshot {
            users: vec![User::new("alice", "token")],
        }
    }

    #[test]
    fn a_file_round_trips() {
        let users = sample();
        let bytes = encode(FileKind::Users, &users).unwrap();
        assert_eq!(
            decode::<UsersSnapshot>(FileKind::Users, &bytes).unwrap(),
            users
        );
    }

    #[test]
    fn every_single_byte_flip_is_refused() {
        let bytes = encode(FileKind::Users, &sample()).unwrap();
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            assert!(
                decode::<UsersSnapshot>(FileKind::Users, &bad).is_err(),
                "flip at byte {i} was accepted"
            );
        }
    }

    #[test]
    fn truncation_other_kinds_and_versions_are_refused() {
        let bytes = encode(FileKind::Users, &sample()).unwrap();
        for len in 0..bytes.len() {
            assert!(decode::<UsersSnapshot>(FileKind::Users, &bytes[..len]).is_err());
        }
        assert!(decode::<UsersSnapshot>(FileKind::Space, &bytes).is_err());
        let mut future = bytes.clone();
        future[4] = 2;
        let err = decode::<UsersSnapshot>(FileKind::Users, &future).unwrap_err();
        assert!(err.contains("unknown snapshot format version 2"), "{err}");
    }
}
