//! The search `q=` of docs §17: word prefixes in a task's `name` and `notesMarkdown`.
//!
//! A text is split into words at Unicode word boundaries (UAX #29; the pieces without a
//! letter or digit are not words), and each word is folded: decomposed (NFKD), stripped of
//! combining marks, lowercased by Unicode rules. The query is split the same way, and a task
//! matches when every query word is a prefix of some word of its name or notes.
//!
//! Folding decomposes before it lowercases, so that a compatibility character that
//! decomposes to a capital (`ℌ` to `H`) folds to a small letter too.
//!
//! A word index holds each task's [`task_words`] as posting lists, word by word in byte
//! order (`model::space::postings`): the candidates of a query word `w` are the tasks of
//! the words from `w` on while they start with `w`, and a task is a candidate of the query
//! when it is one of every query word.

use std::borrow::Cow;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

use super::super::kind::Kind;
use super::super::limits::{thousands, SEARCH_MAX_CHARS};
use super::super::record::Record;
use super::ParameterError;

/// The folded words of `text`, in order, repeats included.
pub fn words(text: &str) -> Vec<String> {
    folded_words(text).collect()
}

/// The distinct folded words of a task's name and notes, sorted: what a word index holds
/// for it. A word that folds to itself (ASCII without a capital, as most are) is borrowed
/// from the task, not copied.
pub fn task_words(task: &Record) -> Vec<Cow<'_, str>> {
    let (name, notes) = name_and_notes(task);
    let folds = |word: &str| {
        word.bytes()
            .any(|b| !b.is_ascii() || b.is_ascii_uppercase())
    };
    let mut words: Vec<Cow<str>> = (name.into_iter().chain(notes))
        .flat_map(|text| text.unicode_words())
        .map(|word| match folds(word) {
            true => Cow::Owned(fold(word)),
            false => Cow::Borrowed(word),
        })
        .filter(|word| !word.is_empty())
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// The first eight bytes of `text` as a big-endian integer, zeros past its end. Of two
/// texts, the one with the smaller head is the smaller; equal heads decide nothing. So
/// texts compared by their heads first order as their bytes do, and the bytes are
/// compared only on a tie: the lookups of a word index compare integers.
pub(crate) fn head(text: &str) -> u64 {
    let bytes = text.as_bytes();
    match bytes.first_chunk::<8>() {
        Some(first) => u64::from_be_bytes(*first),
        None => (bytes.iter().enumerate()).fold(0, |h, (i, &b)| h | u64::from(b) << (56 - 8 * i)),
    }
}

/// Calls `each` with every folded word of a task's name and notes, in order, repeats
/// included, folding into one reused buffer: what a bulk build of a word index walks,
/// without an allocation a word.
pub fn each_task_word(task: &Record, mut each: impl FnMut(&str)) {
    let (name, notes) = name_and_notes(task);
    let mut folded = String::new();
    for word in name
        .into_iter()
        .chain(notes)
        .flat_map(|t| t.unicode_words())
    {
        folded.clear();
        if word.is_ascii() {
            folded.extend(word.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            folded.push_str(&fold(word));
        }
        if !folded.is_empty() {
            each(&folded);
        }
    }
}

fn folded_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.unicode_words().map(fold).filter(|w| !w.is_empty())
}

/// NFKD, combining marks dropped, lowercased. ASCII is its own NFKD and has no combining
/// marks, so an ASCII word is only lowercased (most words are; a space's words are all
/// folded when it is loaded).
fn fold(word: &str) -> String {
    if word.is_ascii() {
        return word.to_ascii_lowercase();
    }
    let bare: String = word.nfkd().filter(|c| !is_combining_mark(*c)).collect();
    bare.to_lowercase()
}

fn name_and_notes(task: &Record) -> (Option<&str>, Option<&str>) {
    let text = |name: &str| {
        Kind::Task
            .field_index(name)
            .and_then(|i| task.fields.get(i))
            .and_then(|v| v.as_text())
    };
    (text("name"), text("notesMarkdown"))
}

/// A parsed `q=`: its distinct folded words. With no word (an empty `q`, or one of only
/// spaces and punctuation) it matches every task.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Search {
    words: Vec<String>,
}

impl Search {
    /// Reads `q`, the decoded value of the parameter; more than 500 characters is refused.
    pub fn parse(q: &str) -> Result<Search, ParameterError> {
        if q.chars().nth(SEARCH_MAX_CHARS).is_some() {
            return Err(ParameterError {
                parameter: "q",
                detail: format!(
                    "a search has at most {} characters",
                    thousands(SEARCH_MAX_CHARS)
                ),
            });
        }
        let mut words = words(q);
        words.sort();
        words.dedup();
        Ok(Search { words })
    }

    /// The distinct folded words of the query, sorted: each must be a prefix of a word of
    /// a matching task.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Whether the query has no word, and so matches every task.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether every query word is a prefix of some word of `name` or `notes`.
    pub fn matches(&self, name: Option<&str>, notes: Option<&str>) -> bool {
        let mut missing: Vec<&str> = self.words.iter().map(String::as_str).collect();
        for word in name.into_iter().chain(notes).flat_map(folded_words) {
            if missing.is_empty() {
                break;
            }
            missing.retain(|q| !word.starts_with(q));
        }
        missing.is_empty()
    }

    /// [`Search::matches`] on a task's `name` and `notesMarkdown`.
    pub fn matches_task(&self, task: &Record) -> bool {
        let (name, notes) = name_and_notes(task);
        self.matches(name, notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::record::Value;

    fn search(q: &str) -> Search {
        Search::parse(q).unwrap()
    }

    #[test]
    fn words_split_at_unicode_boundaries_and_fold() {
        assert_eq!(
            words("Buy milk, then BREAD!"),
            ["buy", "milk", "then", "bread"]
        );
        assert_eq!(words("Café crème brûlée"), ["cafe", "creme", "brulee"]);
        // Decomposed input folds the same as composed.
        assert_eq!(words("Cafe\u{301}"), ["cafe"]);
        // Compatibility forms: ligature, fullwidth, superscript (a word of its own).
        assert_eq!(words("ﬁle ＡＢＣ x²"), ["file", "abc", "x", "2"]);
        assert_eq!(words("ℌello"), ["hello"]);
        assert_eq!(words("ΟΔΟΣ"), ["οδος"]);
        // UAX #29 keeps apostrophes and decimal points inside words.
        assert_eq!(words("don't pay 3.50 now"), ["don't", "pay", "3.50", "now"]);
        assert_eq!(words("  ... — !! "), Vec::<String>::new());
        // Ideographs are words of one character each.
        assert_eq!(words("買牛奶"), ["買", "牛", "奶"]);
    }

    #[test]
    fn a_prefix_of_a_word_matches() {
        assert!(search("mil").matches(Some("Buy milk"), None));
        assert!(search("MILK buy").matches(Some("Buy milk"), None));
        assert!(!search("ilk").matches(Some("Buy milk"), None));
        assert!(!search("milky").matches(Some("Buy milk"), None));
    }

    #[test]
    fn diacritics_and_case_do_not_matter_on_either_side() {
        assert!(search("cafe").matches(Some("Café"), None));
        assert!(search("CAFÉ").matches(Some("cafe"), None));
        assert!(search("ecole").matches(Some("ÉCOLE"), None));
    }

    #[test]
    fn every_query_word_must_match_in_name_or_notes() {
        let (name, notes) = (Some("Buy milk"), Some("at the **corner** shop"));
        assert!(search("milk corner").matches(name, notes));
        assert!(search("sho bu").matches(name, notes));
        assert!(!search("milk bread").matches(name, notes));
        assert!(!search("milk").matches(None, notes));
        assert!(search("corn").matches(None, notes));
    }

    #[test]
    fn a_query_without_words_matches_every_task() {
        for q in ["", "   ", "?!", "—"] {
            let s = search(q);
            assert!(s.is_empty(), "{q}");
            assert!(s.matches(None, None), "{q}");
        }
        assert!(!search("a").matches(None, None));
    }

    #[test]
    fn query_words_are_distinct_and_sorted() {
        assert_eq!(search("milk Buy MILK").words(), ["buy", "milk"]);
    }

    #[test]
    fn at_most_500_characters() {
        let at_limit = "é".repeat(SEARCH_MAX_CHARS);
        assert!(Search::parse(&at_limit).is_ok());
        let e = Search::parse(&"a".repeat(SEARCH_MAX_CHARS + 1)).unwrap_err();
        assert_eq!(e.parameter, "q");
        assert!(e.detail.contains("at most 500 characters"), "{}", e.detail);
    }

    #[test]
    fn a_task_is_searched_in_its_name_and_notes() {
        let mut task = Record::new(Kind::Task, "t1".into(), 1.0, 0, 1);
        let field = |name| Kind::Task.field_index(name).unwrap();
        task.fields[field("name")] = Value::Text("Buy milk".into());
        task.fields[field("notesMarkdown")] = Value::Text("Milk from the café".into());
        task.fields[field("status")] = Value::Text("pending".into());
        assert!(search("caf mil").matches_task(&task));
        assert!(!search("pending").matches_task(&task));
        let indexed = task_words(&task);
        assert_eq!(indexed, ["buy", "cafe", "from", "milk", "the"]);
        let mut walked = Vec::new();
        each_task_word(&task, |w| walked.push(w.to_string()));
        assert_eq!(walked, ["buy", "milk", "milk", "from", "the", "cafe"]);
    }
}
