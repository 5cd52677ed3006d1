//! The prose of the document: what the operations' parameters, the fields and the
//! problem responses mean, as data the generators insert (many name a limit of
//! [`crate::model::limits`]).

use crate::model::limits::{
    thousands, FILTER_MAX_CHARS, FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH, ORDER_BY_MAX_KEYS,
    SEARCH_MAX_CHARS,
};
use crate::model::query::SortKey;

/// `filter=` of the task listing: its grammar, its rules and examples (CONTRACT §17).
pub(super) fn filter() -> String {
    format!(
        "A filter expression (URL-encoded; at most {} characters, {FILTER_MAX_COMPARISONS} \
         comparisons, nesting depth {FILTER_MAX_DEPTH}, each `(` and `!` one level):\n\n\
         ```\n\
         expr       := or\n\
         or         := and ( \"||\" and )*\n\
         and        := unary ( \"&&\" unary )*\n\
         unary      := \"!\" unary | \"(\" expr \")\" | comparison\n\
         comparison := FIELD OP value | FIELD [\"not\"] \"in\" \"(\" value (\",\" value)* \")\" \
         | FIELD \"has\" value\n\
         OP         := \"=\" | \"!=\" | \"<\" | \"<=\" | \">\" | \">=\" | \"~\"\n\
         value      := STRING | NUMBER | \"true\" | \"false\" | \"null\" | DATE | DATETIME | RELATIVE\n\
         ```\n\n\
         FIELD is any field of a task response (`id` is `todoId`). STRING and NUMBER are JSON \
         literals; DATETIME is RFC 3339; DATE (`YYYY-MM-DD`) is 00:00 of that day in `tz`; \
         RELATIVE is `now` or `today` (00:00 of the current day in `tz`), optionally `+` or \
         `-` an integer with a unit `m`, `h`, `d` (calendar days) or `w` (`now+7d`); `now` is \
         fixed by a walk's first page. Strings compare by code points, `~` is a \
         case-insensitive substring test (strings only); booleans take `=` and `!=` only; \
         array fields (`tagIds`, `categoryIds`, `scheduleIds`, `predecessorIds`) take `has` \
         only; `null` goes with `=` and `!=` only. `a != v` is `!(a = v)`, so a null field \
         matches `status != \"done\"`; `<`, `<=`, `>`, `>=`, `~` and `in` are false on a null \
         field. An error → 400 invalid_filter with `position`.\n\n\
         Examples: overdue `dateDue < now && status != \"done\"`; due this week and not \
         done `dateDue >= today && dateDue < today+7d && status not in (\"done\", \
         \"completed\")`; tagged home `tagIds has \"home\"`; no due date `dateDue = null`; \
         `name ~ \"milk\" || notesMarkdown ~ \"milk\"`.",
        thousands(FILTER_MAX_CHARS)
    )
}

/// `q=` of the task listing: word-prefix search (CONTRACT §17).
pub(super) fn search() -> String {
    format!(
        "Word-prefix search in `name` and `notesMarkdown`: both are split into words \
         at Unicode word boundaries, lowercased and stripped of diacritics, and a task \
         matches when every word of `q` is a prefix of one of its words (`q=mil` finds \
         \"Buy milk\", `q=cafe` finds \"Café\"). At most {SEARCH_MAX_CHARS} characters; \
         a `q` without words matches every task."
    )
}

/// `orderBy=` of the task listing: its keys and order (CONTRACT §17).
pub(super) fn order_by() -> String {
    let keys: Vec<&str> = SortKey::ALL.iter().map(|k| k.name()).collect();
    format!(
        "Up to {ORDER_BY_MAX_KEYS} keys separated by commas, each optionally prefixed \
         by `-` for descending: {}. Nulls come last in either direction, `false` \
         before `true`, strings by code points; ties end in `todoId` ascending. \
         Default `sortOrder`. Another key → 400 invalid_parameter. Example: \
         `orderBy=dateDue,-isImportant`.",
        keys.join(", ")
    )
}

/// `tz=` of the task listing.
pub(super) const TZ: &str =
    "IANA time zone (`Europe/Paris`) in which the filter reads DATE, `today` and \
 calendar days. Unknown → 400 invalid_parameter.";
