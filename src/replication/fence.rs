//! Fencing (docs §16): how a node judges the stream's answer to one append.
//!
//! A node appends only where it believes the stream ends (`tail`): each append carries the
//! expected last sequence `tail` and the message id `<epoch>.<tail + 1>`. NATS 2.9 checks the
//! message id before the expected sequence (`../shared/design/replication.md`), so a
//! "duplicate" answer is trusted only at `tail + 1`; anywhere else, as for a refused expected
//! sequence, another node has appended since: this node is fenced and answers no write from
//! that instant. An append whose answer was lost is resolved from the stream itself before
//! anything else is appended: it is either at `tail + 1` with this node's id, or not there.

/// How the stream answered one append.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Appended {
    /// Stored at `seq`; `duplicate` when the stream already held a message with its id.
    Stored {
        /// The stream sequence of the message.
        seq: u64,
        /// The stream answered "duplicate": it held the id already.
        duplicate: bool,
    },
    /// Refused: the stream does not end at the expected sequence.
    WrongLastSequence,
    /// No answer (a timeout, a lost connection, no quorum): the stream may hold it or not.
    Unknown,
}

/// What the node does with the batch it appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The batch is in the stream at this sequence: its writes may be answered.
    Stored(u64),
    /// Another node appended since: answer no write, fail the batch, become a standby.
    Fenced,
    /// The answer was lost: read the stream at `tail + 1` ([`resolve`]) before anything else.
    Resolve,
    /// The stream does not hold the batch: fail its writes (`503 storage_unavailable`); the
    /// node stays primary.
    NotStored,
}

/// The message id of the append after `tail` in `epoch`.
pub(crate) fn message_id(epoch: u64, tail: u64) -> String {
    format!("{epoch}.{}", tail + 1)
}

/// Judges the answer to an append made at `tail`.
pub(crate) fn judge(tail: u64, appended: &Appended) -> Verdict {
    match appended {
        Appended::Stored { seq, .. } if *seq == tail + 1 => Verdict::Stored(*seq),
        // A duplicate elsewhere: the id was stored at another place, so the stream moved on
        // under this node (a stale primary re-sending). A fresh message elsewhere cannot
        // happen with an expected sequence; treated the same.
        Appended::Stored { .. } | Appended::WrongLastSequence => Verdict::Fenced,
        Appended::Unknown => Verdict::Resolve,
    }
}

/// Resolves a lost answer from what the stream holds: `last`, its last sequence, and `id`,
/// the message id at `tail + 1` if there is one; `ours` is the id this node sent.
pub(crate) fn resolve(tail: u64, last: u64, id: Option<&str>, ours: &str) -> Verdict {
    match id {
        Some(id) if id == ours => Verdict::Stored(tail + 1),
        Some(_) => Verdict::Fenced,
        None if last > tail => Verdict::Fenced,
        None => Verdict::NotStored,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_is_stored_only_right_after_the_tail() {
        let stored = |seq, duplicate| Appended::Stored { seq, duplicate };
        assert_eq!(judge(41, &stored(42, false)), Verdict::Stored(42));
        // A retry of an append whose answer was lost: the stream has it, where expected.
        assert_eq!(judge(41, &stored(42, true)), Verdict::Stored(42));
        // The id is known at another sequence: another primary wrote since.
        assert_eq!(judge(41, &stored(40, true)), Verdict::Fenced);
        assert_eq!(judge(41, &stored(50, true)), Verdict::Fenced);
        assert_eq!(judge(41, &stored(43, false)), Verdict::Fenced);
        assert_eq!(judge(41, &Appended::WrongLastSequence), Verdict::Fenced);
        assert_eq!(judge(41, &Appended::Unknown), Verdict::Resolve);
    }

    #[test]
    fn a_lost_answer_is_read_back_from_the_stream() {
        let ours = message_id(3, 41);
        assert_eq!(ours, "3.42");
        assert_eq!(resolve(41, 42, Some("3.42"), &ours), Verdict::Stored(42));
        assert_eq!(resolve(41, 42, Some("4.42"), &ours), Verdict::Fenced);
        assert_eq!(resolve(41, 41, None, &ours), Verdict::NotStored);
        // Nothing readable at 42 but the stream is past it (purged): not ours to claim.
        assert_eq!(resolve(41, 45, None, &ours), Verdict::Fenced);
    }
}
