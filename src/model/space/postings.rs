//! Posting lists: for each term (a folded word, a tag id), the set of small task handles
//! that hold it, as a search index keeps them.
//!
//! A task of the word index holds about 20 terms, so an entry per `(term, task)` in a tree
//! costs kilobytes a task (an owned key of 40 bytes in a node half full). Here a term's
//! tasks are [`Handle`]s, small integers a collection hands out in order
//! ([`super::find`]), kept sorted: a few in an array, more in a persistent vector that a
//! new task's handle joins at the end, about 4 bytes a word of a task. Like every structure
//! of a space they are persistent: a clone is O(1) and a write copies the few nodes it
//! changes.

use std::ops::Bound::{Included, Unbounded};

use imbl::{OrdMap, Vector};

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
    /// More, ascending, in a persistent vector: a new task's handle is the largest yet, so
    /// it is pushed at the end, which fills the vector's chunks (a tree that splits full
    /// nodes in the middle would leave them half empty), at 4 bytes a handle.
    Many(Vector<Handle>),
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
            Postings::Many(sorted.into_iter().collect())
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
            Postings::Many(many) if many.last().is_some_and(|last| *last < handle) => {
                many.push_back(handle);
            }
            Postings::Many(many) => {
                if let Err(at) = many.binary_search(&handle) {
                    many.insert(at, handle);
                }
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
            Postings::Many(many) => {
                if let Ok(at) = many.binary_search(&handle) {
                    many.remove(at);
                }
                many.is_empty()
            }
        }
    }

    /// The handles, ascending.
    fn iter(&self) -> Box<dyn Iterator<Item = Handle> + '_> {
        match self {
            Postings::Few(few) => Box::new(few.iter().copied()),
            Postings::Many(many) => Box::new(many.iter().copied()),
        }
    }
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
            .map(|(term, handles)| (term, Postings::of(handles)))
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
