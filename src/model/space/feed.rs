//! The change feed of a space (docs §12): pages of the records changed after a version.

use std::sync::Arc;

use crate::model::error::SpaceError;
use crate::model::kind::Kind;
use crate::model::record::Id;

use super::commands::Touched;
use super::{feed_kind, feed_word, FeedKey, Space};

/// One page of the change feed (docs §12).
#[derive(Debug, Clone)]
pub struct FeedPage {
    /// Every record changed after `since`, in feed order, each in its current state.
    pub changes: Vec<Touched>,
    /// The current space version.
    pub version: u64,
    /// The `versionUpdatedAt` of the last change, or `since` when there is none.
    pub next_since: u64,
    /// Whether more changes follow.
    pub has_more: bool,
}

impl Space {
    /// Every record changed after version `since`, in feed order: at least `limit` of
    /// them, and more to finish the last version; O(limit + log n).
    pub fn changes(&self, since: u64, limit: usize) -> Result<FeedPage, SpaceError> {
        if since > self.version {
            return Err(SpaceError::SinceAhead {
                since,
                version: self.version,
            });
        }
        let from: FeedKey = (feed_word(since + 1, Kind::Task), Id::from(""));
        let mut keys = self.feed.range(from..).peekable();
        let mut changes: Vec<Touched> = Vec::with_capacity(limit.min(1024));
        while let Some(((word, _), record)) = keys.peek() {
            let same_version = (changes.last()).is_some_and(|c| c.record.version == record.version);
            if changes.len() >= limit && !same_version {
                break;
            }
            changes.push(Touched {
                kind: feed_kind(*word),
                record: Arc::clone(record),
            });
            keys.next();
        }
        Ok(FeedPage {
            next_since: changes.last().map_or(since, |c| c.record.version),
            has_more: keys.peek().is_some(),
            changes,
            version: self.version,
        })
    }
}
