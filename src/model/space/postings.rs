//! Posting lists: for each term (a folded word, a tag id), the set of small task handles
//! that hold it, as a search index keeps them.
//!
//! A task of the word index holds about 20 terms, so an entry per `(term, task)` in a tree
//! costs kilobytes a task (an owned key of 40 bytes in a node half full). Here a term's
//! tasks are [`Handle`]s, small integers a collection hands out in order
//! ([`super::find`]), kept sorted: a few in an array, more in blocks of up to [`BLOCK`]
//! that keep the gaps between handles as varints, about a byte and a half a word of a task
//! (four as plain handles). Like every structure of a space they are persistent: a clone
//! is O(1) and a write copies the one block it changes and the vector's nodes on its path.

use std::cmp::Ordering;
use std::ops::Bound::{Included, Unbounded};
use std::sync::Arc;

use equivalent::{Comparable, Equivalent};
use imbl::{OrdMap, Vector};
use integer_encoding::VarInt;
use itertools::{EitherOrBoth, Itertools};

use super::super::query::search::head;

/// A task's number in its collection's posting lists, unique while the task is held.
pub(super) type Handle = u32;

/// A term's handles while there are at most this many: a sorted array, copied whole on a
/// change, smaller than the blocks.
const FEW: usize = 8;

/// The handles a block holds at most: a change decodes and encodes one block.
const BLOCK: usize = 128;

/// The handles of one term.
#[derive(Debug, Clone)]
pub(super) enum Postings {
    /// At most [`FEW`] handles, ascending.
    Few(Box<[Handle]>),
    /// More, ascending, in blocks of at most [`BLOCK`] handles, the blocks ascending: a
    /// new task's handle is the largest yet, so it joins the last block, or starts a new
    /// one when the last is full, which fills the blocks a fill writes. `len` counts the
    /// handles, so a planner counts a term's tasks in O(1).
    Many { blocks: Vector<Block>, len: usize },
}

/// Ascending handles, at least one and at most [`BLOCK`]: the first and the last, and the
/// gaps from each to the next after the first, as varints.
#[derive(Debug, Clone)]
pub(super) struct Block {
    first: Handle,
    last: Handle,
    len: u32,
    gaps: Arc<[u8]>,
}

impl Block {
    /// The block of `handles` (ascending, one to [`BLOCK`]).
    fn of(handles: &[Handle]) -> Block {
        let mut gaps = Vec::with_capacity(handles.len());
        for pair in handles.windows(2) {
            push_gap(&mut gaps, pair[1] - pair[0]);
        }
        Block {
            first: handles[0],
            last: handles[handles.len() - 1],
            len: handles.len() as u32,
            gaps: gaps.into(),
        }
    }

    /// This block (not full) with `handle`, larger than its last, added at its end. The
    /// gaps are put together on the stack and allocated once.
    fn push(&self, handle: Handle) -> Block {
        let mut gaps = [0; (BLOCK - 1) * MAX_GAP];
        let held = self.gaps.len();
        gaps[..held].copy_from_slice(&self.gaps);
        let used = (handle - self.last).encode_var(&mut gaps[held..]);
        Block {
            last: handle,
            len: self.len + 1,
            gaps: Arc::from(&gaps[..held + used]),
            ..*self
        }
    }

    /// The handles, ascending.
    fn iter(&self) -> BlockIter<'_> {
        BlockIter {
            next: Some(self.first),
            gaps: &self.gaps,
        }
    }
}

/// The bytes of a gap as a varint at most.
const MAX_GAP: usize = 5;

/// Appends `gap` to `gaps` as a varint.
fn push_gap(gaps: &mut Vec<u8>, gap: Handle) {
    let mut bytes = [0; MAX_GAP];
    let used = gap.encode_var(&mut bytes);
    gaps.extend_from_slice(&bytes[..used]);
}

/// The handles of a [`Block`], decoded as they are walked.
struct BlockIter<'a> {
    next: Option<Handle>,
    gaps: &'a [u8],
}

impl Iterator for BlockIter<'_> {
    type Item = Handle;

    fn next(&mut self) -> Option<Handle> {
        let handle = self.next?;
        self.next = Handle::decode_var(self.gaps).map(|(gap, used)| {
            self.gaps = &self.gaps[used..];
            handle + gap
        });
        Some(handle)
    }
}

impl Postings {
    fn one(handle: Handle) -> Postings {
        Postings::Few(Box::new([handle]))
    }

    /// The postings of `sorted` (ascending handles).
    fn of(sorted: Vec<Handle>) -> Postings {
        if sorted.len() <= FEW {
            Postings::Few(sorted.into_boxed_slice())
        } else {
            Postings::Many {
                blocks: sorted.chunks(BLOCK).map(Block::of).collect(),
                len: sorted.len(),
            }
        }
    }

    /// Adds `handle` (present already: nothing changes).
    fn insert(&mut self, handle: Handle) {
        match self {
            Postings::Few(few) => {
                let Err(at) = few.binary_search(&handle) else {
                    return;
                };
                let mut handles = few.to_vec();
                handles.insert(at, handle);
                *self = Postings::of(handles);
            }
            Postings::Many { blocks, len } => {
                // A new task's handle, the largest yet: one walk to the last block.
                if let Some(last) = blocks.back_mut().filter(|last| handle > last.last) {
                    *len += 1;
                    match last.len as usize {
                        BLOCK => blocks.push_back(Block::of(&[handle])),
                        _ => *last = last.push(handle),
                    }
                    return;
                }
                let at = block_of(blocks, handle);
                let block = &blocks[at];
                let mut handles: Vec<Handle> = block.iter().collect();
                let Err(i) = handles.binary_search(&handle) else {
                    return;
                };
                *len += 1;
                handles.insert(i, handle);
                match handles.len() > BLOCK {
                    true => {
                        let (low, high) = handles.split_at(handles.len() / 2);
                        blocks[at] = Block::of(low);
                        blocks.insert(at + 1, Block::of(high));
                    }
                    false => blocks[at] = Block::of(&handles),
                }
            }
        }
    }

    /// Adds `handles` (ascending, all above the handles held) at the end: the last block
    /// is filled, then new ones.
    fn extend(&mut self, handles: &[Handle]) {
        let mut rest = handles;
        match self {
            Postings::Few(few) => {
                *self = Postings::of(few.iter().chain(handles).copied().collect())
            }
            Postings::Many { blocks, len } => {
                *len += handles.len();
                if let Some(last) = blocks.back().filter(|b| (b.len as usize) < BLOCK) {
                    let room = BLOCK - last.len as usize;
                    let (now, later) = rest.split_at(room.min(rest.len()));
                    let filled: Vec<Handle> = last.iter().chain(now.iter().copied()).collect();
                    let at = blocks.len() - 1;
                    blocks[at] = Block::of(&filled);
                    rest = later;
                }
                blocks.extend(rest.chunks(BLOCK).map(Block::of));
            }
        }
    }

    /// Removes `handle`; whether no handle is left.
    fn remove(&mut self, handle: Handle) -> bool {
        match self {
            Postings::Few(few) => {
                if let Ok(at) = few.binary_search(&handle) {
                    let mut handles = few.to_vec();
                    handles.remove(at);
                    *few = handles.into_boxed_slice();
                }
                few.is_empty()
            }
            Postings::Many { blocks, len } => {
                let at = block_of(blocks, handle);
                let block = &blocks[at];
                if (block.first..=block.last).contains(&handle) {
                    let mut handles: Vec<Handle> = block.iter().collect();
                    if let Ok(i) = handles.binary_search(&handle) {
                        *len -= 1;
                        handles.remove(i);
                        match handles.is_empty() {
                            true => {
                                blocks.remove(at);
                            }
                            false => blocks[at] = Block::of(&handles),
                        }
                    }
                }
                blocks.is_empty()
            }
        }
    }

    /// The handles, ascending.
    pub(super) fn iter(&self) -> Box<dyn Iterator<Item = Handle> + '_> {
        match self {
            Postings::Few(few) => Box::new(few.iter().copied()),
            Postings::Many { blocks, .. } => Box::new(blocks.iter().flat_map(Block::iter)),
        }
    }

    /// How many handles there are.
    pub(super) fn len(&self) -> usize {
        match self {
            Postings::Few(few) => few.len(),
            Postings::Many { len, .. } => *len,
        }
    }
}

/// The block of `blocks` (not empty) where `handle` is or would go: the last whose first
/// handle is at most `handle`, or the first. A new task's handle, the largest yet, goes in
/// the last block, found without a search (each step of a search over the vector is a
/// walk down its tree).
fn block_of(blocks: &Vector<Block>, handle: Handle) -> usize {
    let last = blocks.len() - 1;
    if blocks.back().is_some_and(|block| block.first <= handle) {
        return last;
    }
    match blocks.binary_search_by(|block| block.first.cmp(&handle)) {
        Ok(at) => at,
        Err(at) => at.saturating_sub(1),
    }
}

/// A term as [`Terms`] keys it: its first eight bytes as one big-endian integer (zeros
/// past its end), then the term. Of two terms, the one with the smaller head is the
/// smaller, so ordering by the head first (as the derived order does) is the bytes' order;
/// a walk down the tree compares the integers, and the bytes only when those are equal,
/// so a word lookup costs a few integer comparisons rather than a call to compare bytes at
/// every step.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Term {
    head: u64,
    text: Box<str>,
}

/// A term looked up: [`Term`] without its own copy of the text, ordered the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Probe<'a> {
    head: u64,
    text: &'a str,
}

impl From<Box<str>> for Term {
    fn from(text: Box<str>) -> Term {
        Term {
            head: head(&text),
            text,
        }
    }
}

impl<'a> Probe<'a> {
    fn of(text: &'a str) -> Probe<'a> {
        Probe {
            head: head(text),
            text,
        }
    }
}

impl Term {
    fn probe(&self) -> Probe<'_> {
        Probe {
            head: self.head,
            text: &self.text,
        }
    }
}

impl Equivalent<Term> for Probe<'_> {
    fn equivalent(&self, key: &Term) -> bool {
        *self == key.probe()
    }
}

impl Comparable<Term> for Probe<'_> {
    fn compare(&self, key: &Term) -> Ordering {
        self.cmp(&key.probe())
    }
}

/// Terms with their posting lists, ordered by term for prefix walks.
#[derive(Debug, Clone, Default)]
pub(super) struct Terms {
    terms: OrdMap<Term, Postings>,
}

impl Terms {
    /// The terms of `sorted`: `(term, handles ascending)` pairs, terms ascending and
    /// distinct, handles not empty.
    pub(super) fn build(sorted: Vec<(Box<str>, Vec<Handle>)>) -> Terms {
        let terms = sorted
            .into_iter()
            .map(|(term, handles)| (Term::from(term), Postings::of(handles)))
            .collect();
        Terms {
            terms: super::indexes::packed_map(terms),
        }
    }

    /// Adds the terms of `sorted` (`(term, handles ascending)` pairs, terms ascending and
    /// distinct, handles not empty), whose handles are all above every handle held.
    pub(super) fn append(&mut self, sorted: Vec<(Box<str>, Vec<Handle>)>) {
        for (term, handles) in sorted {
            match self.terms.get_mut(&Probe::of(&term)) {
                Some(postings) => postings.extend(&handles),
                None => {
                    self.terms.insert(term.into(), Postings::of(handles));
                }
            }
        }
    }

    /// Moves handles between terms in bulk: `was` and `is` are `(term, handles
    /// ascending)` pairs, terms ascending; a handle `was` lists under a term and `is` does
    /// not leaves it, one `is` lists and `was` does not joins it. Each term changes once.
    pub(super) fn update(
        &mut self,
        was: Vec<(Box<str>, Vec<Handle>)>,
        is: Vec<(Box<str>, Vec<Handle>)>,
    ) {
        for pair in was.into_iter().merge_join_by(is, |a, b| a.0.cmp(&b.0)) {
            let (term, leave, join) = match pair {
                EitherOrBoth::Left((term, was)) => (term, was, Vec::new()),
                EitherOrBoth::Right((term, is)) => (term, Vec::new(), is),
                EitherOrBoth::Both((term, was), (_, is)) => {
                    let leave = was.iter().filter(|h| is.binary_search(h).is_err()).copied();
                    let join = is.iter().filter(|h| was.binary_search(h).is_err()).copied();
                    (term, leave.collect(), join.collect())
                }
            };
            if leave.is_empty() && join.is_empty() {
                continue;
            }
            let held = self.get(&term).map(|postings| postings.iter());
            let handles: Vec<Handle> = (held.into_iter().flatten())
                .filter(|h| leave.binary_search(h).is_err())
                .merge(join)
                .dedup()
                .collect();
            match handles.is_empty() {
                true => self.terms.remove(&Probe::of(&term)),
                false => self.terms.insert(term.into(), Postings::of(handles)),
            };
        }
    }

    /// Notes that the task `handle` holds `term`.
    pub(super) fn insert(&mut self, term: &str, handle: Handle) {
        let probe = Probe::of(term);
        match self.terms.get_mut(&probe) {
            Some(postings) => postings.insert(handle),
            None => {
                let term = Term {
                    head: probe.head,
                    text: term.into(),
                };
                self.terms.insert(term, Postings::one(handle));
            }
        }
    }

    /// Notes that the task `handle` no longer holds `term`.
    pub(super) fn remove(&mut self, term: &str, handle: Handle) {
        let probe = Probe::of(term);
        if self
            .terms
            .get_mut(&probe)
            .is_some_and(|postings| postings.remove(handle))
        {
            self.terms.remove(&probe);
        }
    }

    /// How many terms there are.
    pub(super) fn len(&self) -> usize {
        self.terms.len()
    }

    /// Every term with its handles, terms ascending.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, &Postings)> {
        self.terms
            .iter()
            .map(|(term, postings)| (&*term.text, postings))
    }

    /// The handles of `term` alone.
    pub(super) fn get(&self, term: &str) -> Option<&Postings> {
        self.terms.get(&Probe::of(term))
    }

    /// The handles of the terms that start with `prefix` (of `prefix` alone when `whole`),
    /// term after term: a handle comes once for each of its terms that match.
    pub(super) fn starting<'a>(
        &'a self,
        prefix: &'a str,
        whole: bool,
    ) -> impl Iterator<Item = Handle> + 'a {
        let from = Probe::of(prefix);
        self.terms
            .range::<_, Probe>((Included(&from), Unbounded))
            .take_while(move |(term, _)| {
                if whole {
                    &*term.text == prefix
                } else {
                    term.text.starts_with(prefix)
                }
            })
            .flat_map(|(_, postings)| postings.iter())
    }
}

/// The terms of a posting-list index as a snapshot file lists them, checked as they come
/// (see [`super::TaskImage`]).
#[derive(Debug, Default)]
pub struct TermsImage {
    sorted: Vec<(Term, Postings)>,
    /// The largest handle of any term.
    max: Option<Handle>,
}

impl TermsImage {
    /// Adds `term`, which must follow the terms added before, with its handles as `run`:
    /// varints of the first handle and of each gap to the next, which must be at least one
    /// (the run a snapshot file keeps, see `store::codec`). That is how a [`Block`] keeps
    /// its gaps, so each block takes its part of the run as it is, not decoded into
    /// handles and encoded again.
    pub fn push(&mut self, term: &str, run: &[u8]) -> Result<(), String> {
        if self
            .sorted
            .last()
            .is_some_and(|(last, _)| *last.text >= *term)
        {
            return Err(format!("term '{term}' is out of order"));
        }
        let not_ascending = || format!("the handles of term '{term}' are not ascending");
        let mut few: Vec<Handle> = Vec::with_capacity(FEW);
        let mut blocks: Vec<Block> = Vec::new();
        // The block being read: its first and last handles, how many, and where its gaps
        // begin in `run`.
        let mut open: Option<(Handle, Handle, u32, usize)> = None;
        let (mut at, mut len) = (0, 0);
        while at < run.len() {
            let (gap, used) = (Handle::decode_var(&run[at..]))
                .ok_or_else(|| format!("the handles of term '{term}' do not decode"))?;
            at += used;
            let handle = match open {
                None => Some(gap),
                Some(_) if gap == 0 => None,
                Some((_, last, ..)) => last.checked_add(gap),
            }
            .ok_or_else(not_ascending)?;
            len += 1;
            if few.len() < FEW {
                few.push(handle);
            }
            open = match open {
                Some((first, _, n, gaps)) if (n as usize) < BLOCK => {
                    Some((first, handle, n + 1, gaps))
                }
                Some((first, last, n, gaps)) => {
                    let gaps = Arc::from(&run[gaps..at - used]);
                    blocks.push(Block {
                        first,
                        last,
                        len: n,
                        gaps,
                    });
                    Some((handle, handle, 1, at))
                }
                None => Some((handle, handle, 1, at)),
            };
        }
        let Some((first, last, n, gaps)) = open else {
            return Err(not_ascending());
        };
        blocks.push(Block {
            first,
            last,
            len: n,
            gaps: Arc::from(&run[gaps..]),
        });
        self.max = self.max.max(Some(last));
        let postings = match len <= FEW {
            true => Postings::Few(few.into_boxed_slice()),
            false => Postings::Many {
                blocks: blocks.into_iter().collect(),
                len,
            },
        };
        self.sorted.push((Box::<str>::from(term).into(), postings));
        Ok(())
    }

    /// The largest handle of any term.
    pub(super) fn max(&self) -> Option<Handle> {
        self.max
    }

    /// The terms, as a collection holds them.
    pub(super) fn into_terms(self) -> Terms {
        Terms {
            terms: super::indexes::packed_map(self.sorted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handles(terms: &Terms, prefix: &str, whole: bool) -> Vec<Handle> {
        terms.starting(prefix, whole).collect()
    }

    #[test]
    fn a_term_keeps_its_handles_through_inserts_and_removes() {
        let mut terms = Terms::default();
        let many: Vec<Handle> = (0..200).map(|h| h * 37 % 1000).collect();
        for &h in &many {
            terms.insert("word", h);
            terms.insert("word", h); // twice: once
        }
        let mut sorted = many.clone();
        sorted.sort_unstable();
        assert_eq!(handles(&terms, "word", true), sorted);
        for &h in &many[..195] {
            terms.remove("word", h);
        }
        let mut left = many[195..].to_vec();
        left.sort_unstable();
        assert_eq!(handles(&terms, "word", true), left);
        for &h in &many[195..] {
            terms.remove("word", h);
        }
        assert!(terms.terms.is_empty(), "a term without handles is gone");
    }

    /// Inserts and removes in any order, past many blocks, read back as a sorted set would.
    #[test]
    fn blocks_split_and_empty_as_a_sorted_set_would() {
        let mut terms = Terms::default();
        let mut set = std::collections::BTreeSet::new();
        // A walk through 0..5000 in a scattered order, with gaps of every size.
        let scattered: Vec<Handle> = (0..5000u64)
            .map(|i| (i * 2_654_435_761 % 5000) as Handle)
            .collect();
        for (i, &h) in scattered.iter().enumerate() {
            let h = h * (1 + (i as Handle % 3) * 1000);
            terms.insert("word", h);
            set.insert(h);
        }
        assert_eq!(handles(&terms, "word", true), Vec::from_iter(set.clone()));
        assert_eq!(terms.get("word").map(Postings::len), Some(set.len()));
        for &h in set.clone().iter().step_by(3) {
            terms.remove("word", h);
            set.remove(&h);
        }
        terms.remove("word", 7_777_777); // absent: nothing changes
        terms.insert("word", *set.first().unwrap()); // present: nothing changes
        assert_eq!(handles(&terms, "word", true), Vec::from_iter(set.clone()));
        assert_eq!(terms.get("word").map(Postings::len), Some(set.len()));
        for &h in &set {
            terms.remove("word", h);
        }
        assert!(terms.terms.is_empty());
    }

    /// Handles added at the end, as a fill adds them, fill their blocks.
    #[test]
    fn handles_added_in_order_fill_their_blocks() {
        let mut terms = Terms::default();
        let n = BLOCK as Handle * 10 + 3;
        (0..n).for_each(|h| terms.insert("word", h * 40));
        match terms.get("word") {
            Some(Postings::Many { blocks, len }) => {
                assert_eq!(*len, n as usize);
                assert_eq!(blocks.len(), 11);
                assert!(blocks.iter().take(10).all(|b| b.len as usize == BLOCK));
                assert!(blocks.iter().all(|b| b.gaps.len() + 1 == b.len as usize));
            }
            other => panic!("{other:?}"),
        }
        let expected: Vec<Handle> = (0..n).map(|h| h * 40).collect();
        assert_eq!(handles(&terms, "word", true), expected);
        let built = Terms::build(vec![("word".into(), expected.clone())]);
        assert_eq!(handles(&built, "word", true), expected);
    }

    /// Handles appended in bulk read back as the same handles inserted one by one, and
    /// fill their blocks.
    #[test]
    fn appended_handles_fill_blocks_and_read_as_inserts() {
        for held in [3, 9, 200] {
            let mut terms = Terms::build(vec![("word".into(), (0..held).map(|h| h * 2).collect())]);
            let mut one_by_one = terms.clone();
            let more: Vec<Handle> = (held..held + 300).map(|h| h * 2).collect();
            terms.append(vec![
                ("new".into(), vec![7, 9]),
                ("word".into(), more.clone()),
            ]);
            more.iter().for_each(|&h| one_by_one.insert("word", h));
            [7, 9].iter().for_each(|&h| one_by_one.insert("new", h));
            for term in ["word", "new"] {
                assert_eq!(
                    handles(&terms, term, true),
                    handles(&one_by_one, term, true)
                );
                let len = |terms: &Terms| terms.get(term).map(Postings::len);
                assert_eq!(len(&terms), len(&one_by_one), "{held}: {term}");
            }
            let Some(Postings::Many { blocks, .. }) = terms.get("word") else {
                panic!("{held}: blocks");
            };
            assert!(
                blocks.iter().rev().skip(1).all(|b| b.len as usize == BLOCK),
                "{held}"
            );
        }
    }

    /// Handles moved between terms in bulk end where one remove and insert at a time
    /// puts them; a term left without handles is gone.
    #[test]
    fn an_update_in_bulk_moves_handles_as_one_at_a_time_would() {
        let held: Vec<(Box<str>, Vec<Handle>)> = vec![
            ("a".into(), (0..300).collect()),
            ("b".into(), vec![1, 3, 900]),
            ("c".into(), vec![5]),
        ];
        let mut terms = Terms::build(held.clone());
        let mut one_by_one = Terms::build(held);
        let moved: Vec<Handle> = (0..300).step_by(3).collect();
        let mut into_b = moved.clone();
        into_b.extend([1, 3, 900]);
        into_b.sort_unstable();
        into_b.dedup();
        let was = vec![
            ("a".into(), moved.clone()),
            ("b".into(), vec![1, 3, 900]),
            ("c".into(), vec![5]),
        ];
        let is = vec![("b".into(), into_b), ("d".into(), vec![400])];
        terms.update(was, is);
        for &h in &moved {
            one_by_one.remove("a", h);
            one_by_one.insert("b", h);
        }
        one_by_one.remove("c", 5);
        one_by_one.insert("d", 400);
        for term in ["a", "b", "c", "d"] {
            assert_eq!(
                handles(&terms, term, true),
                handles(&one_by_one, term, true),
                "{term}"
            );
            let len = |terms: &Terms| terms.get(term).map(Postings::len);
            assert_eq!(len(&terms), len(&one_by_one), "{term}");
        }
        assert!(terms.get("c").is_none());
    }

    /// Terms keyed by their heads first still order, look up and walk by prefix as
    /// their bytes do: around the eighth byte, with shared heads, multi-byte letters and
    /// a byte of zero.
    #[test]
    fn terms_order_as_their_bytes_do() {
        let texts = [
            "",
            "a",
            "a\0",
            "a\0b",
            "ab",
            "abcdefg",
            "abcdefgh",
            "abcdefgh\0",
            "abcdefgha",
            "abcdefghb",
            "abcdefgi",
            "abcdefgé",
            "abcdefgéz",
            "zzzzzzzzzzzz",
            "~",
            "é",
            "éa",
        ];
        let mut terms = Terms::default();
        // Inserted in a scattered order, each with its place as its handle.
        for i in (0..texts.len()).map(|i| i * 7 % texts.len()) {
            terms.insert(texts[i], i as Handle);
        }
        let mut sorted = texts.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, texts, "the list is in byte order");
        let walked: Vec<&str> = terms.iter().map(|(term, _)| term).collect();
        assert_eq!(walked, texts);
        for (i, text) in texts.iter().enumerate() {
            assert_eq!(handles(&terms, text, true), [i as Handle], "{text:?}");
            let starting: Vec<Handle> = (texts.iter().enumerate())
                .filter(|(_, t)| t.starts_with(text))
                .map(|(j, _)| j as Handle)
                .collect();
            assert_eq!(handles(&terms, text, false), starting, "{text:?}");
        }
        assert!(terms.get("abcdefgj").is_none());
    }

    /// The varint run a snapshot keeps for `handles`: the first, then the gaps.
    fn run_of(handles: &[Handle]) -> Vec<u8> {
        let mut run = Vec::new();
        let mut last = 0;
        for &h in handles {
            push_gap(&mut run, h - last);
            last = h;
        }
        run
    }

    /// A run read from a snapshot makes the postings the handles would, block for block,
    /// and a run that does not hold ascending handles is refused.
    #[test]
    fn a_run_of_gaps_loads_as_its_handles_would() {
        for count in [1, 8, 9, 127, 128, 129, 300, 1000] {
            // Gaps of one byte and of several, from a start above zero.
            let held: Vec<Handle> = (0..count).map(|i| 5 + i * i * 3 + i).collect();
            let mut image = TermsImage::default();
            image.push("word", &run_of(&held)).unwrap();
            assert_eq!(image.max(), held.last().copied());
            let terms = image.into_terms();
            assert_eq!(handles(&terms, "word", true), held, "{count}");
            let built = Postings::of(held.clone());
            match (terms.get("word").unwrap(), &built) {
                (Postings::Few(a), Postings::Few(b)) => assert_eq!(a, b),
                (Postings::Many { blocks: a, len: n }, Postings::Many { blocks: b, len: m }) => {
                    assert_eq!(n, m);
                    let shape = |b: &Block| (b.first, b.last, b.len, b.gaps.to_vec());
                    assert!(a.iter().map(shape).eq(b.iter().map(shape)), "{count}");
                }
                other => panic!("{count}: {other:?}"),
            }
        }
        let refused = |run: &[u8]| TermsImage::default().push("word", run).unwrap_err();
        assert!(refused(&[]).contains("not ascending"));
        assert!(refused(&[3, 0]).contains("not ascending"), "a gap of zero");
        assert!(
            refused(&[3, 0x80]).contains("do not decode"),
            "a cut varint"
        );
        let mut over = run_of(&[Handle::MAX]);
        push_gap(&mut over, 1);
        assert!(
            refused(&over).contains("not ascending"),
            "past the largest handle"
        );
        let mut image = TermsImage::default();
        image.push("b", &[1]).unwrap();
        assert!(image.push("a", &[2]).unwrap_err().contains("out of order"));
    }

    #[test]
    fn a_prefix_walks_every_term_that_starts_with_it() {
        let built = Terms::build(vec![
            ("car".into(), vec![1, 2]),
            ("cart".into(), vec![3]),
            ("cat".into(), (10..30).collect()),
            ("dog".into(), vec![4]),
        ]);
        let mut terms = Terms::default();
        for (term, handles) in [("car", vec![1, 2]), ("cart", vec![3]), ("dog", vec![4])] {
            handles.iter().for_each(|&h| terms.insert(term, h));
        }
        (10..30).for_each(|h| terms.insert("cat", h));
        for terms in [&built, &terms] {
            assert_eq!(handles(terms, "car", false), [1, 2, 3]);
            assert_eq!(handles(terms, "car", true), [1, 2]);
            assert_eq!(handles(terms, "ca", false).len(), 23);
            assert_eq!(handles(terms, "d", false), [4]);
            assert_eq!(handles(terms, "e", false), Vec::<Handle>::new());
        }
    }
}
