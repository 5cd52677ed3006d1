//! Every limit of the interface, in one place: the validation in [`crate::model`] and
//! [`crate::http`] checks against these, and the OpenAPI document
//! ([`crate::http::openapi`]) states them from the same constants, so the two cannot drift.
//! Messages that name a limit are built from here too.

/// The largest integer every JSON parser reads exactly (2^53 − 1): the bound of counts
/// (`durationMs`) and of `since`.
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// The most bytes a request body may have (1 MiB); more is 413.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// The shortest and longest record id, in characters of `[A-Za-z0-9_-]` (docs §3).
pub const ID_MIN_CHARS: usize = 1;
/// See [`ID_MIN_CHARS`].
pub const ID_MAX_CHARS: usize = 64;
/// The most ids an array field of a record may hold.
pub const MAX_IDS: usize = 100;

/// The longest name: of a record, a user, a space or a scoped token (characters).
pub const NAME_MAX_CHARS: usize = 1_000;
/// The longest `notesMarkdown` of a task.
pub const NOTES_MAX_CHARS: usize = 100_000;
/// The longest short label of a record: `status`, `complexity`, `icon`.
pub const LABEL_MAX_CHARS: usize = 64;
/// The longest style field of a record: `color`, `emoji`, `keyboardShortcut`.
pub const STYLE_MAX_CHARS: usize = 32;

/// The page size of a collection's listing: 1 to [`PAGE_LIMIT_MAX`], by default
/// [`PAGE_LIMIT_DEFAULT`].
pub const PAGE_LIMIT_MAX: usize = 100;
/// See [`PAGE_LIMIT_MAX`].
pub const PAGE_LIMIT_DEFAULT: usize = 50;
/// The records per page of the change feed: 1 to [`FEED_LIMIT_MAX`], by default
/// [`FEED_LIMIT_DEFAULT`].
pub const FEED_LIMIT_MAX: usize = 1_000;
/// See [`FEED_LIMIT_MAX`].
pub const FEED_LIMIT_DEFAULT: usize = 100;
/// The entries per page of the activity (docs §23): 1 to [`ACTIVITY_LIMIT_MAX`], by
/// default [`ACTIVITY_LIMIT_DEFAULT`]; a page finishes the version it started past it.
pub const ACTIVITY_LIMIT_MAX: usize = 1_000;
/// See [`ACTIVITY_LIMIT_MAX`].
pub const ACTIVITY_LIMIT_DEFAULT: usize = 100;

/// The longest `filter=` of a task listing, in characters (docs §17).
pub const FILTER_MAX_CHARS: usize = 2_000;
/// The most comparisons a filter has; `in (…)` and `not in (…)` count one each.
pub const FILTER_MAX_COMPARISONS: usize = 50;
/// The deepest a filter nests; each `(` and each `!` is one level.
pub const FILTER_MAX_DEPTH: usize = 16;
/// The longest search text `q=`, in characters.
pub const SEARCH_MAX_CHARS: usize = 500;
/// The most keys of `orderBy=`.
pub const ORDER_BY_MAX_KEYS: usize = 3;

/// The most operations a batch holds (at least one).
pub const MAX_OPERATIONS: usize = 100;

/// The longest `Idempotency-Key`, in printable ASCII characters (at least one).
pub const IDEMPOTENCY_KEY_MAX_CHARS: usize = 255;

/// The most edges the dependency checks of one request may follow in all (docs §21,
/// §9a): a batch is one request and shares one budget. Enough for any single write to a
/// graph of 10,000 tasks each naming 100 others; beyond it the request is refused with
/// `SpaceError::DependencyTooComplex` instead of holding its space for long.
pub const EDGE_BUDGET: u64 = 1_000_000;

/// The most tasks a chain of parents holds (docs §22): a root and 7 levels below it.
pub const TREE_MAX_DEPTH: usize = 8;
/// The most children that are not deleted a task may have (docs §22).
pub const TREE_MAX_CHILDREN: usize = 1_000;

/// The most spaces a user belongs to (active memberships; invitations do not count).
pub const MAX_SPACES_PER_USER: usize = 1_000;
/// The most members a space has, pending invitations included.
pub const MAX_MEMBERS: usize = 1_000;
/// The most pending invitations a user has sent.
pub const MAX_INVITATIONS_SENT: usize = 1_000;
/// The most pending invitations one user has sent to one other user.
pub const MAX_INVITATIONS_PER_INVITEE: usize = 10;
/// The most live (neither revoked nor expired) scoped tokens a user has.
pub const MAX_TOKENS: usize = 100;
/// The most spaces a scoped token names (at least one, when it names any).
pub const MAX_TOKEN_SPACES: usize = 100;
/// The most change streams a user has open at once.
pub const MAX_STREAMS_PER_USER: usize = 100;
/// The most streams a token with a budget has open at once (docs §25).
pub const MAX_STREAMS_PER_TOKEN: usize = 20;
/// `Retry-After` (seconds) of a user's stream beyond [`MAX_STREAMS_PER_USER`].
pub const STREAM_RETRY_AFTER_SECS: &str = "5";
/// The most change streams open at once on the server.
pub const MAX_STREAMS: usize = 1_000;

/// How long an answer kept for an idempotency key is replayed, in milliseconds (24 h).
pub const KEEP_MS: i64 = 24 * 60 * 60 * 1000;
/// The most idempotency keys one user holds (kept answers and requests still running).
pub const MAX_KEYS: usize = 100_000;
/// The most bytes of kept answers one user holds, as stored (see
/// `actors::keys::stored_bytes`); one answer recorded while a user is just below may take
/// it over by that answer's size.
pub const MAX_KEY_BYTES: u64 = 64 << 20;

/// The first and the last instant a date-time field holds (0001-01-01T00:00:00.000Z and
/// 9999-12-31T23:59:59.999Z), in milliseconds since the Unix epoch; a recurring series ends
/// before it would leave them.
pub const FIRST_INSTANT_MS: i64 = -62_135_596_800_000;
/// See [`FIRST_INSTANT_MS`].
pub const LAST_INSTANT_MS: i64 = 253_402_300_799_999;

/// The longest `recurrence` rule of a task, in characters (docs §18).
pub const RECURRENCE_MAX_CHARS: usize = 500;
/// The largest `COUNT` of a recurrence rule (at least 1).
pub const RECURRENCE_COUNT_MAX: u32 = 1_000;
/// The most candidate instances one expansion of a rule may visit (docs §27): a rule
/// whose one period (a year of `FREQ=YEARLY`, …) holds more is refused.
pub const RECURRENCE_CANDIDATES_MAX: u64 = 100_000;
/// The largest `INTERVAL` of a recurrence rule (at least 1).
pub const RECURRENCE_INTERVAL_MAX: u16 = 1_000;
/// A series whose rule yields no instance for this many years after an occurrence (the
/// first one is `dateDue`) ends there: the task has no next occurrence after it.
pub const RECURRENCE_HORIZON_YEARS: u32 = 100;

/// The page size of a task's occurrences: 1 to [`OCCURRENCES_LIMIT_MAX`], by default
/// [`OCCURRENCES_LIMIT_DEFAULT`].
pub const OCCURRENCES_LIMIT_MAX: usize = 1_000;
/// See [`OCCURRENCES_LIMIT_MAX`].
pub const OCCURRENCES_LIMIT_DEFAULT: usize = 100;
/// How far the occurrences listing reaches past `from` when `to` is not given, in days.
pub const OCCURRENCES_SPAN_DAYS: i64 = 365;

/// The most reminders a task has.
pub const MAX_REMINDERS: usize = 10;
/// The most tasks a live view's `reset` holds (docs §24); beyond, `422 view_too_large`.
pub const LIVE_VIEW_MAX: usize = 5_000;
/// The largest `minutesBefore` of a reminder (a year of minutes).
pub const REMINDER_MINUTES_MAX: u32 = 525_600;

/// `n` with a comma between thousands, as the document's prose writes limits (`1,000`).
pub fn thousands(n: impl ToString) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The most bytes of a VTODO's properties and components that a task keeps verbatim
/// (docs §20: those taskd does not map).
pub const CALENDAR_KEPT_MAX_BYTES: usize = 64 << 10;
/// The largest `text/calendar` body an import takes (docs §20).
pub const CALENDAR_BODY_MAX_BYTES: usize = 1 << 20;
/// How deep a CalDAV XML body may nest, its root element being the first (docs §27).
pub const DAV_XML_DEPTH_MAX: usize = 64;
/// The most distinct hrefs a `calendar-multiget` may name (docs §27).
pub const MULTIGET_HREFS_MAX: usize = 1_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated_by_commas() {
        assert_eq!(thousands(10), "10");
        assert_eq!(thousands(100), "100");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
