//! The prose of the document: what the operations' parameters, the fields and the
//! problem responses mean, as data the generators insert (many name a limit of
//! [`crate::model::limits`]).

use crate::model::kind::{FieldType, Kind};
use crate::model::limits::{
    thousands, EDGE_BUDGET, FILTER_MAX_CHARS, FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH,
    MAX_BODY_BYTES, MAX_INVITATIONS_PER_INVITEE, MAX_INVITATIONS_SENT, MAX_MEMBERS,
    MAX_SPACES_PER_USER, MAX_STREAMS_PER_TOKEN, MAX_STREAMS_PER_USER, MAX_TOKENS,
    ORDER_BY_MAX_KEYS, PAGE_LIMIT_DEFAULT, RECURRENCE_COUNT_MAX, SEARCH_MAX_CHARS,
    TREE_MAX_CHILDREN, TREE_MAX_DEPTH,
};
use crate::model::query::SortKey;

/// What a query or header parameter of a collection's routes means; none for the path's
/// id.
pub(super) fn parameter(name: &str) -> Option<String> {
    let text = match name {
        "limit" => return Some(format!("Page size, default {PAGE_LIMIT_DEFAULT}.")),
        "cursor" => "`nextCursor` of the previous page.",
        "includeDeleted" => "Include soft-deleted records.",
        "If-None-Match" => "An ETag (or `*`); when it matches → 304 Not Modified, empty body.",
        "If-Match" => {
            "`*` or a list of ETags; when none is the record's → 412 precondition_failed."
        }
        "Idempotency-Key" => {
            "Printable ASCII characters: a retry with the same key and body gets the first \
             answer again (24 h)."
        }
        "filter" => return Some(filter()),
        "q" => return Some(search()),
        "orderBy" => return Some(order_by()),
        "tz" => TZ,
        _ => return None,
    };
    Some(text.to_string())
}

/// The filter of a listing by the blocked field.
pub(super) const BLOCKED: &str = "Only tasks that are (true) or are not (false) blocked; \
     another value → 400 invalid_parameter.";

/// The filter of a listing by a reference field (listId, contextId, parentId).
pub(super) const REFERENCE: &str = "Exact match; empty matches the tasks where it is null \
     (?parentId= lists the roots, docs §22). A value that is not id-shaped → 400 \
     invalid_parameter.";

/// What a response header means.
pub(super) fn header(name: &str) -> &'static str {
    match name {
        "ETag" => "The record's `versionUpdatedAt` (a collection's: the space version), quoted.",
        "Location" => "The new record's, space's or token's path.",
        "Retry-After" => "Seconds to wait before trying again.",
        _ => "",
    }
}

/// `filter=` of the task listing: its grammar, its rules and examples (docs §17).
fn filter() -> String {
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

/// `q=` of the task listing: word-prefix search (docs §17).
fn search() -> String {
    format!(
        "Word-prefix search in `name` and `notesMarkdown`: both are split into words \
         at Unicode word boundaries, lowercased and stripped of diacritics, and a task \
         matches when every word of `q` is a prefix of one of its words (`q=mil` finds \
         \"Buy milk\", `q=cafe` finds \"Café\"). At most {SEARCH_MAX_CHARS} characters; \
         a `q` without words matches every task."
    )
}

/// `orderBy=` of the task listing: its keys and order (docs §17).
fn order_by() -> String {
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
const TZ: &str = "IANA time zone (`Europe/Paris`) in which the filter reads DATE, `today` and \
 calendar days. Unknown → 400 invalid_parameter.";

/// What a problem response of `status` means: the codes it comes with.
pub(super) fn problem(status: u16) -> String {
    match status {
        400 => "invalid_json, validation_failed, invalid_parameter, invalid_cursor, \
                space_conflict or invalid_filter (a task listing's `filter`; `position` is the \
                0-based offset, in code points, of the token where the error was found)"
            .to_string(),
        401 => "unauthorized: no or unknown token".to_string(),
        403 => "forbidden: the caller's role or token does not allow the operation: a record \
                write below editor or with a read-only token, a space or member change below \
                owner, a scoped token where only the primary token may act (spaces, members, \
                tokens), the admin token on a user's route, or a user's token on an admin route"
            .to_string(),
        404 => "not_found: no such record, space or route".to_string(),
        408 => "request_timeout: the body did not arrive in time".to_string(),
        409 => format!(
            "already_exists, record_deleted, idempotency_key_in_use, conflict (a revert would \
             set back fields written since, each named in `fields`, docs §23), default_space (a default \
             space cannot be shared, left or deleted), last_owner (a space must keep an owner), \
             parent_deleted (a restore of a task whose parent is deleted, docs §22) or \
             limit_reached ({} children that are not deleted per task, {} spaces per user, {} \
             members and invitations per space, {} live scoped tokens per user, {} pending \
             invitations sent per user, {} pending from one user to another)",
            thousands(TREE_MAX_CHILDREN),
            thousands(MAX_SPACES_PER_USER),
            thousands(MAX_MEMBERS),
            thousands(MAX_TOKENS),
            thousands(MAX_INVITATIONS_SENT),
            thousands(MAX_INVITATIONS_PER_INVITEE),
        ),
        412 => "precondition_failed: `If-Match` did not match".to_string(),
        413 => format!("payload_too_large: body over {} MiB", MAX_BODY_BYTES >> 20),
        415 => "unsupported_media_type: a body without a JSON content type".to_string(),
        422 => format!(
            "invalid_reference, parent_cycle (a parentId naming the task or a descendant, docs \
             §22), too_deep (a chain of more than {} parents and children), dependency_cycle \
             (with the cycle's ids in order in `cycle`), \
             dependency_too_complex (the request's cycle checks would follow more than {} \
             dependency edges in all; nothing changed; in a batch, `operationIndex` names the \
             operation where the budget ran out) or idempotency_key_reused",
            TREE_MAX_DEPTH,
            thousands(EDGE_BUDGET)
        ),
        429 => format!(
            "too_many_requests: too many failed authentications from the client, a new \
             idempotency key while the user's kept answers are at their bound, a change \
             stream beyond the user's {MAX_STREAMS_PER_USER}, or, with budgets on \
             (--token-rate, docs §25), the token's budget spent or a stream beyond the \
             token's {MAX_STREAMS_PER_TOKEN} (both with `violatedPolicies: [\"token\"]`). \
             With budgets on, every answer to a user's token carries `RateLimit-Policy: \
             \"token\";q=<burst>;w=<seconds to fill>` and `RateLimit: \"token\";r=<requests \
             left>;t=<seconds until full>`; a batch costs its operations, a 304 and a replayed \
             answer nothing"
        ),
        500 => "internal: a bug; the cause is in the log".to_string(),
        _ => "unavailable (overloaded or shutting down) or storage_unavailable (the disk \
              failed, or did not answer within --storage-timeout-ms)"
            .to_string(),
    }
}

/// A date field in a request body (docs §18).
pub(super) const DAY_OR_TIME: &str =
    "An RFC 3339 date-time, or a date YYYY-MM-DD meaning 00:00 of that day in the task's \
     timeZone after the write (docs §18), or null. On an all-day task both dates are stored \
     as 00:00 of their day in timeZone.";

/// What a field of a type means, where its schema says more than its type (docs §15,
/// §18, §20).
pub(super) fn field(ty: FieldType) -> Option<String> {
    let text = match ty {
        FieldType::Predecessors => format!(
            "Ids of the tasks this one waits for (docs §15): each an active task of the \
                 space when set, else 422 invalid_reference; naming itself or closing a cycle \
                 is 422 dependency_cycle; a request whose cycle checks would follow more than \
                 {} edges in all is 422 dependency_too_complex (docs §21). Duplicates \
                 dropped, order kept; [] clears.",
            thousands(EDGE_BUDGET)
        ),
        FieldType::Ref(Kind::Task) => format!(
            "The todoId of the parent task (docs §22), or null for a root: an active task of \
                 the space when set, else 422 invalid_reference; the task itself or one of its \
                 descendants is 422 parent_cycle; a chain longer than {TREE_MAX_DEPTH} tasks \
                 anywhere in the moved subtree is 422 too_deep; more than {} children that \
                 are not deleted is 409 limit_reached. A new child whose create names no \
                 listId takes its parent's; a change of listId moves every descendant that \
                 had the old one; delete and restore take the subtree; a roll of a repeating \
                 task reopens its finished subtasks. Each such change is a change of its own \
                 in the same write and version.",
            thousands(TREE_MAX_CHILDREN)
        ),
        FieldType::Zone => {
            "An IANA time zone name (Europe/Paris; aliases such as US/Eastern accepted), \
            stored as sent; null is UTC (docs §18). Dates given as YYYY-MM-DD, all-day \
            days and the recurrence are read in it."
                .to_string()
        }
        FieldType::Recurrence => format!(
            "An RFC 5545 RRULE value without the RRULE: prefix (FREQ=WEEKLY;BYDAY=MO), ASCII \
                 case-insensitive, stored as sent, or null (docs §18). FREQ YEARLY, MONTHLY, \
                 WEEKLY, DAILY or HOURLY; COUNT and INTERVAL 1 to {}; UNTIL a UTC date-time on a \
                 timed task, a date on an all-day one. Needs a dateDue after the write, the \
                 series' first occurrence. A write that sets status to done or completed \
                 (ASCII case-insensitive) on an unfinished task with a recurrence moves dateDue \
                 and dateStart to the next occurrence, keeps status, lowers COUNT and counts \
                 the completion; when the series is over the task finishes.",
            thousands(u64::from(RECURRENCE_COUNT_MAX))
        ),
        FieldType::Reminders => {
            "When to remind (docs §18): at an instant, or minutes before dateDue. [] \
            clears; never null. The server fires them: a write of its own setting \
            remindedAt and updatedAt, within 1 s of the time, once per reminder."
                .to_string()
        }
        FieldType::Stamp => {
            "Read-only (docs §18, §20): remindedAt, when a reminder of the task last \
            fired; lastCompletedAt, the time of the last completion of a recurring task; \
            completedAt, when status last became finished (null while unfinished)."
                .to_string()
        }
        FieldType::Tally => {
            "Read-only (docs §18): how often the recurring task was completed.".to_string()
        }
        FieldType::Blocked => {
            "Read-only (docs §15). With TodoPredecessorsAllAny ALL: some predecessor is \
            unfinished; with ANY: there are predecessors and none is finished. A \
            predecessor is finished when deleted or its status is done or completed (ASCII \
            case-insensitive). A write that flips it touches the task in the same version."
                .to_string()
        }
        FieldType::Title => "The view's name (docs §24): required on create.".to_string(),
        FieldType::Filter => {
            "The view's filter expression (docs §17), or null for every task; checked when \
            written: a bad one is 400 invalid_filter with its position. Part of the view's \
            definition: changing it sends live streams a new reset and ends its cursors."
                .to_string()
        }
        FieldType::Search => {
            "The view's word-prefix search over name and notes (docs §17), or null; part \
            of the view's definition."
                .to_string()
        }
        FieldType::Order => {
            "The view's order (docs §17), as orderBy takes it; default sortOrder, never \
            null; part of the view's definition."
                .to_string()
        }
        FieldType::QueryZone => {
            "The IANA time zone of the view's today and dates (docs §17); default UTC, \
            never null; part of the view's definition."
                .to_string()
        }
        _ => return None,
    };
    Some(text)
}
