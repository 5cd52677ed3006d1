//! Posting lists: for each term (a folded word, a tag id), the set of small task handles
//! that hold it, as a search index keeps them.
//!
//! A task of the word index holds about 20 terms, so an entry per `(term, task)` in a tree
//! costs kilobytes a task (an owned key of 40 bytes in a node half full). Here a term's
//! tasks are [`Handle`]s, small integers a collection hands out ([`super::find`]), kept
//! in a persistent set of bit blocks: 64 handles share one 16-byte entry, so a common word
//! costs a fraction of a byte a task, and a rare one a few bytes. Like every structure of a
//! space the sets are persistent: a clone is O(1) and a write copies the few nodes it
//! changes.

use std::ops::Bound::{Included, Unbounded};

use imbl::OrdMap;

/// A task's number in its collection's posting lists, unique while the task is held.
pub(super) type Handle = u32;

/// A term's handles while there are at most this many: a sorted array, copied whole on a
/// change, smaller than the tree of blocks.
const FEW: usize = 8;

/// The handles of one term.
#[derive(Debug, Clone)]
enum Postings {
    /// At most [`FEW`] handles, ascending.
    Few(Box<[Handle]>),
    /// Handles by block of 64 (`handle / 64`), each block a mask of its handles; never an
    /// empty mask.
    Blocks(OrdMap<u32, u64>),
}

impl Postings {
    fn one(handle: Handle) -> Postings {
        Postings::Few(Box::new([handle]))
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
                *self = if handles.len() <= FEW {
                    Postings::Few(handles.into_boxed_slice())
                } else {
                    Postings::Blocks(blocks(&handles))
                };
            }
            Postings::Blocks(blocks) => {
                *blocks.entry(handle / 64).or_insert(0) |= 1 << (handle % 64);
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
            Postings::Blocks(blocks) => {
                let block = handle / 64;
                if let Some(mask) = blocks.get_mut(&block) {
                    *mask &= !(1 << (handle % 64));
                    if *mask == 0 {
                        blocks.remove(&block);
                    }
                }
                blocks.is_empty()
            }
        }
    }

    /// The handles, ascending.
    fn iter(&self) -> Box<dyn Iterator<Item = Handle> + '_> {
        match self {
            Postings::Few(few) => Box::new(few.iter().copied()),
            Postings::Blocks(blocks) => Box::new(blocks.iter().flat_map(|(block, mask)| {
                let mut rest = *mask;
                std::iter::from_fn(move || {
                    (rest != 0).then(|| {
                        let bit = rest.trailing_zeros();
                        rest &= rest - 1;
                        block * 64 + bit
                    })
                })
            })),
        }
    }
}

/// The blocks of `sorted` (ascending handles), with full tree nodes.
fn blocks(sorted: &[Handle]) -> OrdMap<u32, u64> {
    let mut masks: Vec<(u32, u64)> = Vec::new();
    for &handle in sorted {
        let (block, bit) = (handle / 64, 1u64 << (handle % 64));
        match masks.last_mut() {
            Some((last, mask)) if *last == block => *mask |= bit,
            _ => masks.push((block, bit)),
        }
    }
    super::indexes::packed_map(masks)
}

/// Terms with their posting lists, ordered by term for prefix walks.
#[derive(Debug, Clone, Default)]
pub(super) struct Terms {
    terms: OrdMap<Box<str>, Postings>,
}

impl Terms {
    /// The terms of `sorted`: `(term, handles ascending)` pairs, terms ascending and
    /// distinct, handles not empty.
    pub(super) fn build(sorted: Vec<(Box<str>, Vec<Handle>)>) -> Terms {
        let terms = sorted
            .into_iter()
            .map(|(term, handles)| {
                let postings = if handles.len() <= FEW {
                    Postings::Few(handles.into_boxed_slice())
                } else {
                    Postings::Blocks(blocks(&handles))
                };
                (term, postings)
            })
            .collect();
        Terms {
            terms: super::indexes::packed_map(terms),
        }
    }

    /// Notes that the task `handle` holds `term`.
    pub(super) fn insert(&mut self, term: &str, handle: Handle) {
        match self.terms.get_mut(term) {
            Some(postings) => postings.insert(handle),
            None => {
                self.terms.insert(term.into(), Postings::one(handle));
            }
        }
    }

    /// Notes that the task `handle` no longer holds `term`.
    pub(super) fn remove(&mut self, term: &str, handle: Handle) {
        if self
            .terms
            .get_mut(term)
            .is_some_and(|postings| postings.remove(handle))
        {
            self.terms.remove(term);
        }
    }

    /// The handles of the terms that start with `prefix` (of `prefix` alone when `whole`),
    /// term after term: a handle comes once for each of its terms that match.
    pub(super) fn starting<'a>(
        &'a self,
        prefix: &'a str,
        whole: bool,
    ) -> impl Iterator<Item = Handle> + 'a {
        self.terms
            .range::<_, str>((Included(prefix), Unbounded))
            .take_while(move |(term, _)| {
                if whole {
                    term.as_ref() == prefix
                } else {
                    term.starts_with(prefix)
                }
            })
            .flat_map(|(_, postings)| postings.iter())
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
