//! Tests of the filter language: syntax, type checks, literals and evaluation.

use std::ops::Bound;

use chrono::DateTime;
use chrono_tz::Tz;

use crate::model::limits::FILTER_MAX_CHARS;
use crate::model::query::TaskField;
use crate::model::record::Record;

use super::*;
use crate::model::kind::Kind;
use crate::model::record::Value;
use chrono_tz::Europe::Paris;
use chrono_tz::UTC;

const NOW: &str = "2026-11-27T10:30:00Z";

fn ms(rfc3339: &str) -> i64 {
    DateTime::parse_from_rfc3339(rfc3339)
        .unwrap()
        .timestamp_millis()
}

fn context(tz: Tz, now: &str) -> FilterContext<'static> {
    FilterContext {
        space_id: "home",
        tz,
        now_ms: ms(now),
    }
}

fn parse(text: &str) -> Filter {
    Filter::parse(text, context(UTC, NOW)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn error(text: &str) -> FilterError {
    match Filter::parse(text, context(UTC, NOW)) {
        Ok(f) => panic!("{text} parsed: {f:?}"),
        Err(e) => e,
    }
}

/// The position of the error of `text`, checking that the detail contains `words`.
fn position(text: &str, words: &str) -> usize {
    let e = error(text);
    assert!(e.detail.contains(words), "{text}: {}", e.detail);
    e.position
}

fn set(task: &mut Record, name: &str, value: Value) {
    let i = Kind::Task.field_index(name).unwrap();
    task.fields[i] = value;
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

/// A task `t1` created at NOW − 1 day, named "Buy milk", status "open", important,
/// due at NOW + 1 hour, tagged `home` and `shop`.
fn task() -> Record {
    let mut t = Record::new(Kind::Task, "t1".into(), 3.0, ms(NOW) - 86_400_000, 7);
    set(&mut t, "name", text("Buy milk"));
    set(&mut t, "status", text("open"));
    set(&mut t, "isImportant", Value::Bool(true));
    set(&mut t, "dateDue", Value::Time(ms(NOW) + 3_600_000));
    set(&mut t, "durationMs", Value::Integer(90_000));
    set(
        &mut t,
        "tagIds",
        Value::Ids(vec!["home".into(), "shop".into()].into_boxed_slice()),
    );
    t
}

fn matches(text: &str, task: &Record) -> bool {
    parse(text).matches(task)
}

#[test]
fn an_empty_filter_matches_every_task() {
    let f = Filter::parse("", context(UTC, NOW)).unwrap();
    assert!(f.matches(&task()));
    assert_eq!(f, Filter::default());
    assert!(f.constraints().is_empty());
}

#[test]
fn each_operator_compares_as_its_type_says() {
    let t = task();
    for (text, expected) in [
        (r#"name = "Buy milk""#, true),
        (r#"name != "Buy milk""#, false),
        (r#"name < "C""#, true),
        (r#"name <= "Buy milk""#, true),
        (r#"name > "Buy milk""#, false),
        (r#"name >= "Buy""#, true),
        (r#"name ~ "MILK""#, true),
        (r#"name ~ "bread""#, false),
        ("sortOrder = 3", true),
        ("sortOrder > 2.5", true),
        ("sortOrder < 3e0", false),
        ("sortOrder >= -1", true),
        ("durationMs = 90000", true),
        ("durationMs <= 9e4", true),
        ("versionUpdatedAt = 7", true),
        ("isImportant = true", true),
        ("isImportant != false", true),
        ("isTimeSensitive = false", true),
        ("isDeleted = false", true),
        ("dateDue > now", true),
        ("dateDue > now + 2h", false),
        ("createdAt < today", true),
        ("createdAt >= 2026-11-26", true),
        ("createdAt = 2026-11-26T10:30:00Z", true),
        ("createdAt = 2026-11-26T11:30:00+01:00", true),
        ("updatedAt < 2026-11-26t10:30:00.001z", true),
        (r#"tagIds has "shop""#, true),
        (r#"tagIds has "work""#, false),
        (r#"status in ("done", "open")"#, true),
        (r#"status not in ("done", "open")"#, false),
        (r#"id = "t1""#, true),
        (r#"todoId in ("t1")"#, true),
        (r#"TodoPredecessorsAllAny = "ALL""#, true),
    ] {
        assert_eq!(matches(text, &t), expected, "{text}");
    }
}

#[test]
fn and_binds_tighter_than_or_and_not_and_parentheses_group() {
    let t = task();
    for (text, expected) in [
        (
            r#"status = "done" && isImportant = true || sortOrder = 3"#,
            true,
        ),
        (
            r#"status = "done" && (isImportant = true || sortOrder = 3)"#,
            false,
        ),
        (r#"!status = "done""#, true),
        (r#"!(status = "open" && sortOrder = 3)"#, false),
        (r#"!!(status = "open")"#, true),
        (r#"(((name ~ "milk")))"#, true),
        ("isImportant=true&&sortOrder=3||sortOrder=4", true),
    ] {
        assert_eq!(matches(text, &t), expected, "{text}");
    }
}

#[test]
fn whitespace_is_free_between_tokens_and_inside_a_relative() {
    let t = task();
    assert_eq!(
        parse("dateDue<now+7d"),
        parse(" \t dateDue \n< now + 7d \r\n")
    );
    assert_eq!(parse("dateDue<today-1w"), parse("dateDue < today -  1w"));
    assert!(matches(r#"status not   in("open")||tagIds has"home""#, &t));
}

#[test]
fn null_rules_follow_the_contract() {
    let mut t = task();
    set(&mut t, "status", Value::Null);
    for (text, expected) in [
        ("status = null", true),
        ("status != null", false),
        (r#"status != "done""#, true),
        (r#"status = "done""#, false),
        (r#"status < "z""#, false),
        (r#"status <= "z""#, false),
        (r#"status > """#, false),
        (r#"status >= """#, false),
        (r#"status ~ """#, false),
        (r#"status in ("open", "done")"#, false),
        (r#"status not in ("open", "done")"#, true),
        ("dateStart = null", true),
        ("dateStart < now", false),
        ("deletedAt = null", true),
        ("isImportant = null", false),
        ("isImportant != null", true),
    ] {
        assert_eq!(matches(text, &t), expected, "{text}");
    }
}

#[test]
fn tilde_lowercases_both_sides_by_unicode_rules() {
    let mut t = task();
    set(&mut t, "notesMarkdown", text("ÉTÉ À PARIS"));
    assert!(matches(r#"notesMarkdown ~ "été à""#, &t));
    assert!(matches(r#"notesMarkdown ~ "\u00c9t\u00c9""#, &t));
    assert!(!matches(r#"notesMarkdown ~ "ete""#, &t));
}

#[test]
fn strings_are_json_literals_with_their_escapes() {
    let mut t = task();
    set(&mut t, "name", text("a \"quoted\"\tname é 😀"));
    assert!(matches(
        r#"name = "a \"quoted\"\tname \u00e9 \ud83d\ude00""#,
        &t
    ));
    assert!(matches(r#"name < "a \\""#, &t));
}

#[test]
fn strings_compare_by_code_points() {
    let mut t = task();
    // U+FF21 (fullwidth A) is above U+00E9 (é), which is above "z".
    set(&mut t, "name", text("é"));
    assert!(matches(r#"name > "z""#, &t));
    assert!(matches(r#"name < "Ａ""#, &t));
    // UTF-16 would put U+1F600 (a surrogate pair, D83D DE00) before U+FF71.
    set(&mut t, "name", text("😀"));
    assert!(matches(r#"name > "\uff71""#, &t));
}

#[test]
fn space_id_is_settled_when_parsed() {
    let t = task();
    assert!(matches(r#"spaceId = "home""#, &t));
    assert!(!matches(r#"spaceId != "home""#, &t));
    assert!(matches(r#"spaceId not in ("work")"#, &t));
    assert!(matches(r#"spaceId ~ "OM""#, &t));
    assert_eq!(
        parse(r#"spaceId = "work""#),
        Filter {
            root: Some(Node::Const(false)),
            clock: Vec::new(),
        }
    );
}

#[test]
fn the_clock_lists_each_field_compared_with_a_relative_literal() {
    let f = parse(r#"(dateDue < today+1d || dateStart in (now, now - 90m)) && name = "now""#);
    let due = TaskField::by_name("dateDue").unwrap();
    let start = TaskField::by_name("dateStart").unwrap();
    let r = |today, amount, unit| Relative {
        today,
        amount,
        unit,
    };
    assert_eq!(
        f.clock(),
        [
            (due, r(true, 1, Unit::Day)),
            (start, r(false, 0, Unit::Minute)),
            (start, r(false, -90, Unit::Minute)),
        ]
    );
    assert!(parse("dateDue < 2026-07-01").clock().is_empty());
}

#[test]
fn dates_are_midnight_in_the_time_zone() {
    let f = |text: &str, tz: Tz| Filter::parse(text, context(tz, NOW)).unwrap();
    let mut t = task();
    set(
        &mut t,
        "dateDue",
        Value::Time(ms("2026-07-01T00:00:00+02:00")),
    );
    assert!(f("dateDue = 2026-07-01", Paris).matches(&t));
    assert!(!f("dateDue = 2026-07-01", UTC).matches(&t));
    assert!(f("dateDue < 2026-07-01", UTC).matches(&t));
}

#[test]
fn relative_times_are_bound_to_the_given_now_and_zone() {
    // 23:30 UTC on 2026-11-27 is already the 28th in Paris.
    let late = context(Paris, "2026-11-27T23:30:00Z");
    let at = |text: &str| {
        let f = Filter::parse(&format!("dateDue = {text}"), late).unwrap();
        match f.root {
            Some(Node::Test(_, Test::OneOf(values))) => match values[..] {
                [Literal::Time(ms)] => ms,
                _ => panic!("{values:?}"),
            },
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(at("now"), ms("2026-11-27T23:30:00Z"));
    assert_eq!(at("now-90m"), ms("2026-11-27T22:00:00Z"));
    assert_eq!(at("now+2h"), ms("2026-11-28T01:30:00Z"));
    assert_eq!(at("today"), ms("2026-11-28T00:00:00+01:00"));
    assert_eq!(at("today+1d"), ms("2026-11-29T00:00:00+01:00"));
    assert_eq!(at("today - 2w"), ms("2026-11-14T00:00:00+01:00"));
    assert_eq!(at("today+0d"), at("today"));
}

#[test]
fn calendar_days_keep_the_wall_time_across_dst_and_hours_do_not() {
    // Paris goes to summer time on 2026-03-29 at 02:00.
    let eve = context(Paris, "2026-03-28T09:00:00+01:00");
    let bound = |text: &str| {
        let f = Filter::parse(&format!("dateDue >= {text}"), eve).unwrap();
        match f.constraints()[..] {
            [Constraint::Range(_, Bound::Included(Literal::Time(ms)), _)] => *ms,
            ref other => panic!("{other:?}"),
        }
    };
    assert_eq!(bound("today+1d"), ms("2026-03-29T00:00:00+01:00"));
    assert_eq!(bound("today+2d"), ms("2026-03-30T00:00:00+02:00"));
    assert_eq!(bound("now+1d"), ms("2026-03-29T09:00:00+02:00"));
    assert_eq!(bound("now+1w"), ms("2026-04-04T09:00:00+02:00"));
    assert_eq!(bound("now+24h"), ms("2026-03-29T10:00:00+02:00"));
    assert_eq!(bound("now+1440m"), bound("now+24h"));
    assert_eq!(bound("today+48h"), ms("2026-03-30T01:00:00+02:00"));
}

#[test]
fn calendar_days_keep_the_wall_time_when_clocks_go_back_too() {
    // Paris returns to winter time on 2026-10-25 at 03:00.
    let eve = context(Paris, "2026-10-24T09:00:00+02:00");
    let at = |text: &str| match Filter::parse(&format!("dateDue < {text}"), eve)
        .unwrap()
        .constraints()[..]
    {
        [Constraint::Range(_, _, Bound::Excluded(Literal::Time(ms)))] => *ms,
        ref other => panic!("{other:?}"),
    };
    assert_eq!(at("now+1d"), ms("2026-10-25T09:00:00+01:00"));
    assert_eq!(at("now+24h"), ms("2026-10-25T08:00:00+01:00"));
    assert_eq!(at("today+2d"), ms("2026-10-26T00:00:00+01:00"));
    assert_eq!(at("now-1w"), ms("2026-10-17T09:00:00+02:00"));
}

#[test]
fn constraints_are_the_top_level_conjuncts_on_one_field() {
    let f = parse(
        r#"dateDue >= 2026-11-01 && (dateDue < 2026-12-01 && status in ("a", "b")) && tagIds has "x" && name ~ "y" && (isImportant = true || sortOrder = 1) && !(status = "c") && id = null"#,
    );
    let due = TaskField::by_name("dateDue").unwrap();
    let status = TaskField::by_name("status").unwrap();
    let tags = TaskField::by_name("tagIds").unwrap();
    let (nov, dec) = (
        Literal::Time(ms("2026-11-01T00:00:00Z")),
        Literal::Time(ms("2026-12-01T00:00:00Z")),
    );
    let (a, b) = (Literal::Text("a".into()), Literal::Text("b".into()));
    let values = [a, b];
    assert_eq!(
        f.constraints(),
        vec![
            Constraint::Range(due, Bound::Included(&nov), Bound::Unbounded),
            Constraint::Range(due, Bound::Unbounded, Bound::Excluded(&dec)),
            Constraint::OneOf(status, &values),
            Constraint::Has(tags, "x"),
            Constraint::OneOf(TaskField::Id, &[Literal::Null]),
        ]
    );
    assert!(parse(r#"status = "a" || status = "b""#)
        .constraints()
        .is_empty());
    assert_eq!(parse(r#"status != "a""#).constraints(), vec![]);
}

#[test]
fn syntax_errors_name_the_token_where_they_were_found() {
    for (text, words, at) in [
        ("name", "expected an operator", 4),
        ("name ", "found the end of the filter", 5),
        (r#"name == "a""#, "expected a value, found `=", 6),
        (r#"name = "a" &"#, "expected `&&`, `||` or the end", 11),
        (r#"name = "a" && "#, "expected a field name", 14),
        (r#"(name = "a""#, "expected `&&`, `||` or `)`", 11),
        (r#"name = "a")"#, "found `)`", 10),
        (r#"= "a""#, "expected a field name", 0),
        (r#"   ) "#, "expected a field name", 3),
        ("name = ", "expected a value, found the end", 7),
        ("name = TRUE", "keywords are lowercase", 7),
        (r#"status NOT IN ("a")"#, "expected an operator", 7),
        (r#"status not ("a")"#, "`in` after `not`", 11),
        (r#"status in "a""#, "expected `(`", 10),
        (r#"status in ()"#, "expected a value, found `)`", 11),
        (r#"status in ("a" "b")"#, "expected `,` or `)`", 15),
        (r#"status in ("a",)"#, "expected a value", 15),
        ("dateDue < now +", "integer with a unit", 15),
        ("dateDue < now + 7", "integer with a unit", 16),
        ("dateDue < now + 7days", "integer with a unit", 16),
        ("dateDue < now + 7 d", "integer with a unit", 16),
        ("dateDue < now + -7d", "integer with a unit", 16),
        ("dateDue < yesterday", "found `yesterday`", 10),
        ("dateDue < now 7d", "expected `&&`", 14),
        ("sortOrder < -", "expected a value, found `-`", 12),
        ("sortOrder < 01", "expected `&&`", 13),
        ("sortOrder < 1.", "expected `&&`", 13),
        ("name ! = null", "expected an operator", 5),
    ] {
        assert_eq!(position(text, words), at, "{text}");
    }
}

#[test]
fn bad_literals_are_reported_at_their_first_character() {
    for (text, words, at) in [
        (r#"name = "abc"#, "not closed", 7),
        (r#"name = "a\qb""#, "bad string literal", 7),
        ("name = \"tab\there\"", "bad string literal", 7),
        (r#"name = "\ud800""#, "bad string literal", 7),
        ("dateDue < 2026-02-30", "no such date", 10),
        ("dateDue < 2026-13-01", "no such date", 10),
        ("dateDue < 2026-01-01T25:00:00Z", "bad date-time", 10),
        ("dateDue < 2026-01-01T10:00Z", "bad date-time", 10),
        ("dateDue < 2026-01-01T10:00:00", "bad date-time", 10),
        ("dateDue < now + 99999999999999999999d", "out of range", 16),
        ("dateDue < now + 9999999999999999m", "out of range", 16),
        ("dateDue < today + 999999999w", "out of range", 18),
    ] {
        assert_eq!(position(text, words), at, "{text}");
    }
}

#[test]
fn type_misfits_are_reported_at_the_value() {
    for (text, words, at) in [
        (
            r#"dateDue < "2026-01-01""#,
            "holds a date-time, which cannot be compared with a string",
            10,
        ),
        (r#"sortOrder = "1""#, "holds a number", 12),
        (r#"isImportant = "true""#, "holds a boolean", 14),
        (
            "name = 1",
            "holds a string, which cannot be compared with a number",
            7,
        ),
        ("name = now", "with a date-time", 7),
        ("name = true", "with a boolean", 7),
        ("dateDue = 5", "with a number", 10),
        ("isImportant < true", "compared with = and != only", 14),
        ("isDeleted >= false", "compared with = and != only", 13),
        ("isImportant in (true)", "compared with = and != only", 16),
        (
            "isDeleted not in (false, true)",
            "compared with = and != only",
            18,
        ),
        (r#"sortOrder ~ "1""#, "`~` tests strings only", 12),
        ("name ~ 1", "`~` takes a string, not a number", 7),
        (r#"name has "x""#, "`has` tests an array field", 9),
        ("tagIds has 1", "takes an id string, not a number", 11),
        (r#"tagIds = "x""#, "compared with `has` only", 9),
        (r#"tagIds in ("x")"#, "compared with `has` only", 11),
        ("categoryIds = null", "compared with `has` only", 14),
        ("predecessorIds ~ \"x\"", "compared with `has` only", 17),
        ("dateDue < null", "null is compared with = and != only", 10),
        ("name ~ null", "null is compared with = and != only", 7),
        ("tagIds has null", "null is compared with = and != only", 11),
        (
            r#"status in ("a", null)"#,
            "null is compared with = and != only",
            16,
        ),
        (
            r#"status not in (1)"#,
            "cannot be compared with a number",
            15,
        ),
        (r#"spaceId = 1"#, "cannot be compared with a number", 10),
    ] {
        assert_eq!(position(text, words), at, "{text}");
    }
}

#[test]
fn an_unknown_field_is_reported_at_its_name() {
    assert_eq!(position(r#"title = "a""#, "unknown field `title`"), 0);
    assert_eq!(
        position(r#"name = "a" && Status = "b""#, "unknown field `Status`"),
        14
    );
    // A list's field is no task's field.
    assert_eq!(position("isDefault = true", "unknown field"), 0);
}

#[test]
fn positions_count_code_points_not_bytes() {
    // "é" is 2 bytes, "😀" 4 bytes (and 2 UTF-16 units): one code point each.
    assert_eq!(position(r#"name = "é😀" && bad = 1"#, "unknown field"), 15);
    assert_eq!(
        position(r#"name ~ "ÉTÉ" || dateDue < "x""#, "cannot be compared"),
        26
    );
    assert_eq!(position(r#"name = "😀😀" &&"#, "end of the filter"), 14);
    assert_eq!(position(r#"name = "😀" ×"#, "found `×`"), 11);
}

#[test]
fn any_garble_is_refused_with_a_detail_and_a_position_within_the_text() {
    let pieces = [
        "name",
        "status",
        "dateDue",
        "tagIds",
        "isImportant",
        "=",
        "!=",
        "<",
        ">=",
        "~",
        "in",
        "not",
        "has",
        "(",
        ")",
        "!",
        ",",
        "&&",
        "||",
        "&",
        "\"a\"",
        "\"",
        "1",
        "-",
        "2026-03-29",
        "T10:00:00Z",
        "now",
        "today",
        "+",
        "7d",
        "null",
        "true",
        " ",
        "é",
        "😀",
    ];
    // A fixed linear congruential sequence: the same garbles on every run.
    let mut seed: u64 = 0x5eed;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    for _ in 0..20_000 {
        let len = 1 + next(12);
        let text: String = (0..len).map(|_| pieces[next(pieces.len())]).collect();
        if let Err(e) = Filter::parse(&text, context(Paris, NOW)) {
            assert!(e.position <= text.chars().count(), "{text}: {e}");
            assert!(
                !e.detail.is_empty() && e.detail != "syntax error",
                "{text}: {e}"
            );
        }
    }
}

#[test]
fn at_most_2000_characters() {
    let pad = |n: usize, c: char| format!(r#"name = "{}""#, String::from(c).repeat(n - 9));
    let at_limit = pad(FILTER_MAX_CHARS, 'é');
    assert_eq!(at_limit.chars().count(), 2_000);
    assert!(at_limit.len() > 2_000);
    parse(&at_limit);
    let e = error(&pad(FILTER_MAX_CHARS + 1, 'a'));
    assert_eq!(e.position, 2_000);
    assert!(
        e.detail.contains("at most 2,000 characters"),
        "{}",
        e.detail
    );
}

#[test]
fn at_most_50_comparisons_and_in_counts_as_one() {
    let n = |count: usize| vec![r#"status in ("a", "b", "c")"#; count].join(" || ");
    parse(&n(50));
    let fifty_one = n(51);
    let at = fifty_one.rfind("status").unwrap();
    assert_eq!(position(&fifty_one, "at most 50 comparisons"), at);
}

#[test]
fn at_most_16_levels_each_paren_and_bang_one() {
    let nest = |levels: usize| {
        let opens: String = (0..levels)
            .map(|i| if i % 2 == 0 { "(" } else { "!" })
            .collect();
        let closes = ")".repeat(levels.div_ceil(2));
        format!("{opens}sortOrder = 3{closes}")
    };
    // Eight `!`: the comparison itself.
    assert!(parse(&nest(16)).matches(&task()));
    assert_eq!(position(&nest(17), "at most 16 levels"), 16);
    assert_eq!(position(&"!".repeat(17), "at most 16 levels"), 16);
    assert_eq!(
        position(&format!("{}x", "(".repeat(20)), "at most 16 levels"),
        16
    );
    // Siblings do not add up: only nesting counts.
    let siblings = ["(!(sortOrder = 1))"; 10].join(" && ");
    parse(&siblings);
}
