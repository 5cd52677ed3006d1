//! What each journal entry means for compaction ([`Mark`], [`Marked`]), an entry encoded
//! for the writer ([`Encoded`]), and the marks a segment or the snapshots hold ([`Marks`]).

use std::collections::HashMap;

use crate::store::codec::{self, Entry};

use super::StorageError;

/// What an entry means for compaction: which snapshot covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// A write of `space` from version `base` to `version`.
    Write {
        /// The space.
        space: Box<str>,
        /// The version before the write.
        base: u64,
        /// The version after it.
        version: u64,
    },
    /// A reservation of versions up to `up_to` for `space`.
    Reserve {
        /// The space.
        space: Box<str>,
        /// The highest version reserved.
        up_to: u64,
    },
    /// Directory change number `seq` (a user's creation is one).
    Directory {
        /// Its position.
        seq: u64,
    },
}

/// What an entry means for compaction: its main mark, and the idempotency key use it
/// holds, which the keys file must cover too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    pub(super) mark: Option<Mark>,
    pub(super) key: Option<u64>,
}

/// An entry as the journal writes it: its frame and its marks.
#[derive(Debug)]
pub struct Encoded {
    pub(super) bytes: Vec<u8>,
    pub(super) mark: Marked,
}

impl Encoded {
    /// Encodes `entry`; any thread may, the journal's order is that of the appends.
    pub fn of(entry: &Entry) -> Result<Encoded, StorageError> {
        let mut bytes = Vec::new();
        codec::encode_entry(entry, &mut bytes)
            .map_err(|e| StorageError::Io(e.to_string().into()))?;
        Ok(Encoded {
            bytes,
            mark: Marked::of(entry),
        })
    }
}

impl Marked {
    /// The marks of `entry`.
    pub fn of(entry: &Entry) -> Marked {
        let (mark, key) = match entry {
            Entry::Write {
                space,
                outcome,
                key,
            }
            | Entry::Written {
                space,
                outcome,
                key,
                ..
            } => (
                Some(Mark::Write {
                    space: space.clone(),
                    base: outcome.base,
                    version: outcome.version,
                }),
                key.as_ref().map(|k| k.0.seq),
            ),
            Entry::Reserve { space, up_to } => (
                Some(Mark::Reserve {
                    space: space.clone(),
                    up_to: *up_to,
                }),
                None,
            ),
            Entry::User { seq, key, .. } | Entry::Directory { seq, key, .. } => (
                Some(Mark::Directory { seq: *seq }),
                key.as_ref().map(|k| k.0.seq),
            ),
            Entry::Answer(kept) => (None, Some(kept.0.seq)),
        };
        Marked { mark, key }
    }
}

/// The highest version and reservation of each space, and the number of directory changes,
/// that some
/// set of entries holds (a segment's) or that the snapshots on disk cover.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    pub(super) spaces: HashMap<Box<str>, (u64, u64)>,
    pub(super) directory: u64,
    pub(super) keys: u64,
}

impl Marks {
    /// Takes the marks of an entry in.
    pub fn note(&mut self, marked: &Marked) {
        if let Some(seq) = marked.key {
            self.keys = self.keys.max(seq + 1);
        }
        let (space, version, reserved) = match &marked.mark {
            Some(Mark::Write { space, version, .. }) => (space, *version, 0),
            Some(Mark::Reserve { space, up_to }) => (space, 0, *up_to),
            Some(Mark::Directory { seq }) => {
                self.directory = self.directory.max(seq + 1);
                return;
            }
            None => return,
        };
        self.space(space, version, reserved);
    }

    /// Notes that the key uses numbered below `count` are covered.
    pub fn keys(&mut self, count: u64) {
        self.keys = self.keys.max(count);
    }

    /// Notes that `space` is at least at `version` with `reserved` reserved.
    pub fn space(&mut self, space: &str, version: u64, reserved: u64) {
        match self.spaces.get_mut(space) {
            Some((v, r)) => {
                *v = (*v).max(version);
                *r = (*r).max(reserved);
            }
            None => {
                self.spaces.insert(space.into(), (version, reserved));
            }
        }
    }

    /// Notes that the first `count` directory changes are covered.
    pub fn directory(&mut self, count: u64) {
        self.directory = self.directory.max(count);
    }

    /// Notes that deleted space `space` needs none of its entries any more.
    pub fn forget(&mut self, space: &str) {
        self.space(space, u64::MAX, u64::MAX);
    }

    /// Whether these marks (a snapshot's coverage) hold `space` at `version` or later.
    pub fn holds(&self, space: &str, version: u64) -> bool {
        self.spaces.get(space).is_some_and(|(v, _)| *v >= version)
    }

    /// Whether these marks (a snapshot's coverage) cover every entry `segment` holds.
    pub(super) fn covers(&self, segment: &Marks) -> bool {
        self.directory >= segment.directory
            && self.keys >= segment.keys
            && segment.spaces.iter().all(|(space, (version, reserved))| {
                self.spaces
                    .get(space)
                    .is_some_and(|(v, r)| v >= version && r >= reserved)
            })
    }
}
