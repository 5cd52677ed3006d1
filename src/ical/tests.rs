//! The mapping of docs §20, row by row, both ways.

use std::sync::Arc;

use chrono::NaiveDate;

use crate::model::limits::CALENDAR_KEPT_MAX_BYTES;
use crate::model::record::{Record, Value};
use crate::model::recurrence::Reminder;
use crate::model::validate::parse_changes;
use crate::model::vtodo::CalendarFields;
use crate::model::{Kind, Mode};

use super::read::When;
use super::*;
use crate::model::{Command, Op, Space};

fn wrap(body: &str) -> String {
    format!("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n{body}END:VCALENDAR\r\n")
}

fn todo(lines: &str) -> String {
    wrap(&format!("BEGIN:VTODO\r\n{lines}END:VTODO\r\n"))
}

fn parse_one(lines: &str) -> Todo {
    let mut parsed = parse_calendar(&todo(lines)).unwrap();
    assert_eq!(parsed.todos.len(), 1);
    parsed.todos.remove(0)
}

/// Imports `lines` (one VTODO) as task `id` of a new space at time `now`, then returns the
/// space and the task.
fn import(space: &mut Space, id: &str, lines: &str, now: i64) -> Arc<Record> {
    let todo = parse_one(lines);
    let existing = space.get(Kind::Task, id).ok().map(|i| i.record);
    let changes = todo
        .changes(
            existing.as_deref(),
            |uid| uid.to_owned(),
            |uid| space.get(Kind::Task, uid).ok().map(|_| uid.to_owned()),
        )
        .unwrap();
    let op = match existing {
        Some(_) => Op::Update(changes),
        None => Op::Create(changes),
    };
    let command = Command {
        kind: Kind::Task,
        id: id.into(),
        op,
        if_match: None,
    };
    space.apply(&[command], now).unwrap();
    space.get(Kind::Task, id).unwrap().record
}

fn field<'a>(task: &'a Record, name: &str) -> &'a Value {
    &task.fields[Kind::Task.field_index(name).unwrap()]
}

fn export(task: &Record) -> String {
    write_calendar([task], |id| id.to_owned())
}

const PARIS_NINE: i64 = 1_893_571_200_000; // 2030-01-02T08:00:00Z, 09:00 in Paris

#[test]
fn summary_and_description_are_name_and_notes_both_ways() {
    let mut space = Space::new("s");
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nSUMMARY:Buy milk\\, eggs\r\nDESCRIPTION:two\\nlines\r\n",
        1,
    );
    assert_eq!(field(&task, "name").as_text(), Some("Buy milk, eggs"));
    assert_eq!(field(&task, "notesMarkdown").as_text(), Some("two\nlines"));
    let out = export(&task);
    assert!(out.contains("SUMMARY:Buy milk\\, eggs\r\n"), "{out}");
    assert!(out.contains("DESCRIPTION:two\\nlines\r\n"), "{out}");
}

#[test]
fn a_tzid_is_kept_as_the_time_zone_and_sent_back_with_its_vtimezone() {
    let mut space = Space::new("s");
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nDUE;TZID=Europe/Paris:20300102T090000\r\n",
        1,
    );
    assert_eq!(field(&task, "timeZone").as_text(), Some("Europe/Paris"));
    assert_eq!(field(&task, "dateDue"), &Value::Time(PARIS_NINE));
    let out = export(&task);
    assert!(
        out.contains("DUE;TZID=Europe/Paris:20300102T090000\r\n"),
        "{out}"
    );
    assert!(
        out.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n"),
        "{out}"
    );
    assert!(out.contains("TZOFFSETTO:+0200"), "{out}");
    assert!(out.contains("TZOFFSETTO:+0100"), "{out}");
    let back = parse_calendar(&out).unwrap();
    assert_eq!(
        back.todos[0].due,
        Some(When::Zoned(
            NaiveDate::from_ymd_opt(2030, 1, 2)
                .unwrap()
                .and_hms_opt(9, 0, 0)
                .unwrap(),
            "Europe/Paris".into()
        ))
    );
}

#[test]
fn utc_dates_stay_utc_and_all_day_dates_are_value_date() {
    let mut space = Space::new("s");
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nDTSTART:20300102T080000Z\r\nDUE:20300103T080000Z\r\n",
        1,
    );
    assert_eq!(field(&task, "timeZone"), &Value::Null);
    assert_eq!(field(&task, "dateStart"), &Value::Time(PARIS_NINE));
    let out = export(&task);
    assert!(
        out.contains("DTSTART:20300102T080000Z\r\n") && out.contains("DUE:20300103T080000Z\r\n"),
        "{out}"
    );
    assert!(!out.contains("VTIMEZONE"), "{out}");
    let day = import(&mut space, "b", "UID:b\r\nDUE;VALUE=DATE:20300105\r\n", 1);
    assert_eq!(field(&day, "isAllDay"), &Value::Bool(true));
    assert!(
        export(&day).contains("DUE;VALUE=DATE:20300105\r\n"),
        "{}",
        export(&day)
    );
}

#[test]
fn an_unknown_tzid_is_refused() {
    let todo = parse_one("UID:a\r\nDUE;TZID=Mars/Olympus:20300102T090000\r\n");
    let err = todo.changes(None, |u| u.into(), |_| None).unwrap_err();
    assert!(err.to_string().contains("Mars/Olympus"), "{err}");
}

#[test]
fn status_classes_map_both_ways_and_only_a_change_of_class_writes_status() {
    for (status, ical) in [
        ("done", "COMPLETED"),
        ("completed", "COMPLETED"),
        ("cancelled", "CANCELLED"),
        ("canceled", "CANCELLED"),
        ("in-progress", "IN-PROCESS"),
        ("in_progress", "IN-PROCESS"),
        ("waiting", "NEEDS-ACTION"),
    ] {
        let mut space = Space::new("s");
        let body = serde_json::json!({"status": status})
            .as_object()
            .unwrap()
            .clone();
        let changes = parse_changes(Kind::Task, Mode::Create, body).unwrap();
        space
            .apply(
                &[Command {
                    kind: Kind::Task,
                    id: "a".into(),
                    op: Op::Create(changes),
                    if_match: None,
                }],
                5,
            )
            .unwrap();
        let task = space.get(Kind::Task, "a").unwrap().record;
        assert!(
            export(&task).contains(&format!("STATUS:{ical}\r\n")),
            "{status}"
        );
        // The same class coming back leaves the status as it was.
        let again = import(&mut space, "a", &format!("UID:a\r\nSTATUS:{ical}\r\n"), 6);
        assert_eq!(field(&again, "status").as_text(), Some(status));
    }
    let mut space = Space::new("s");
    for (ical, status) in [
        ("COMPLETED", "done"),
        ("CANCELLED", "cancelled"),
        ("IN-PROCESS", "in-progress"),
        ("NEEDS-ACTION", "open"),
    ] {
        let task = import(&mut space, "b", &format!("UID:b\r\nSTATUS:{ical}\r\n"), 7);
        let expected = if ical == "NEEDS-ACTION" {
            Some("open")
        } else {
            Some(status)
        };
        assert_eq!(field(&task, "status").as_text(), expected, "{ical}");
    }
}

#[test]
fn a_clients_completed_time_becomes_completed_at_and_goes_back_out() {
    let mut space = Space::new("s");
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nSTATUS:COMPLETED\r\nCOMPLETED:20300102T080000Z\r\n",
        99,
    );
    assert_eq!(field(&task, "completedAt"), &Value::Time(PARIS_NINE));
    assert!(export(&task).contains("COMPLETED:20300102T080000Z\r\n"));
    let without = import(&mut space, "b", "UID:b\r\nSTATUS:COMPLETED\r\n", 1_000);
    assert_eq!(field(&without, "completedAt"), &Value::Time(1_000));
    let reopened = import(&mut space, "a", "UID:a\r\nSTATUS:NEEDS-ACTION\r\n", 2_000);
    assert_eq!(field(&reopened, "completedAt"), &Value::Null);
    assert!(!export(&reopened).contains("COMPLETED:"));
}

#[test]
fn priority_is_kept_as_sent_and_is_important_exactly_for_one_to_four() {
    let mut space = Space::new("s");
    for (p, important) in [(0, false), (1, true), (4, true), (5, false), (9, false)] {
        let task = import(
            &mut space,
            &format!("p{p}"),
            &format!("UID:p{p}\r\nPRIORITY:{p}\r\n"),
            1,
        );
        assert_eq!(field(&task, "isImportant"), &Value::Bool(important), "{p}");
        assert!(export(&task).contains(&format!("PRIORITY:{p}\r\n")), "{p}");
    }
    // A JSON write of isImportant moves the kept priority (model::vtodo has the rule).
    let update = |v: bool| {
        let body = serde_json::json!({"isImportant": v})
            .as_object()
            .unwrap()
            .clone();
        Command {
            kind: Kind::Task,
            id: "p9".into(),
            op: Op::Update(parse_changes(Kind::Task, Mode::Update, body).unwrap()),
            if_match: None,
        }
    };
    space.apply(&[update(true)], 2).unwrap();
    assert!(export(&space.get(Kind::Task, "p9").unwrap().record).contains("PRIORITY:1\r\n"));
    space.apply(&[update(false)], 3).unwrap();
    assert!(export(&space.get(Kind::Task, "p9").unwrap().record).contains("PRIORITY:0\r\n"));
}

#[test]
fn id_shaped_categories_are_tags_and_the_others_are_kept_beside_them() {
    let mut space = Space::new("s");
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nCATEGORIES:home,Errands & more,work-2\r\n",
        1,
    );
    assert_eq!(
        field(&task, "tagIds"),
        &Value::Ids(vec!["home".into(), "work-2".into()].into_boxed_slice())
    );
    assert!(
        export(&task).contains("CATEGORIES:home,work-2,Errands & more\r\n"),
        "{}",
        export(&task)
    );
    let body = serde_json::json!({"tagIds": ["x"]})
        .as_object()
        .unwrap()
        .clone();
    let update = Command {
        kind: Kind::Task,
        id: "a".into(),
        op: Op::Update(parse_changes(Kind::Task, Mode::Update, body).unwrap()),
        if_match: None,
    };
    space.apply(&[update], 2).unwrap();
    let task = space.get(Kind::Task, "a").unwrap().record;
    assert!(
        export(&task).contains("CATEGORIES:x,Errands & more\r\n"),
        "{}",
        export(&task)
    );
}

#[test]
fn rrule_is_recurrence() {
    let mut space = Space::new("s");
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nDUE:20300102T080000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE\r\n",
        1,
    );
    let rule = field(&task, "recurrence").as_text().unwrap().to_owned();
    assert!(
        rule.contains("FREQ=WEEKLY") && rule.contains("BYDAY=MO,WE"),
        "{rule}"
    );
    assert!(export(&task).contains(&format!("RRULE:{rule}\r\n")));
}

#[test]
fn dtstart_with_a_duration_is_due_at_their_sum_and_goes_back_out_as_due() {
    let mut space = Space::new("s");
    // A weekly series needs a dateDue (§18): DTSTART + DURATION gives it.
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nDTSTART:20300102T080000Z\r\nDURATION:PT10M\r\n\
         RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=3\r\n",
        1,
    );
    assert_eq!(
        field(&task, "dateDue"),
        &Value::Time(PARIS_NINE + 10 * 60_000)
    );
    assert_eq!(field(&task, "dateStart"), &Value::Time(PARIS_NINE));
    let out = export(&task);
    assert!(out.contains("DUE:20300102T081000Z\r\n"), "{out}");
    assert!(!out.contains("DURATION"), "{out}");
    assert!(out.contains("COUNT=3"), "{out}");
    // Weeks and days on the wall clock, in the start's zone: 09:00 in Paris plus a week
    // is 09:00 across the change to summer time (31 March), then one hour elapsed; an
    // all-day start takes whole days.
    let zoned =
        parse_one("UID:z\r\nDTSTART;TZID=Europe/Paris:20300328T090000\r\nDURATION:P1WT1H\r\n");
    let wall = NaiveDate::from_ymd_opt(2030, 4, 4)
        .unwrap()
        .and_hms_opt(10, 0, 0)
        .unwrap();
    assert_eq!(zoned.due, Some(When::Zoned(wall, "Europe/Paris".into())));
    let day = parse_one("UID:d\r\nDTSTART;VALUE=DATE:20300102\r\nDURATION:P2D\r\n");
    assert_eq!(
        day.due,
        Some(When::Day(NaiveDate::from_ymd_opt(2030, 1, 4).unwrap()))
    );
    // A DURATION that names no due taskd can hold is kept as sent: beside a DUE, or a
    // time of day added to an all-day start.
    let both =
        parse_one("UID:b\r\nDTSTART:20300102T080000Z\r\nDUE:20300103T080000Z\r\nDURATION:PT1H\r\n");
    assert!(both.kept.contains("DURATION:PT1H"), "{}", both.kept);
    let odd = parse_one("UID:o\r\nDTSTART;VALUE=DATE:20300102\r\nDURATION:PT1H\r\n");
    assert_eq!(odd.due, None);
    assert!(odd.kept.contains("DURATION:PT1H"), "{}", odd.kept);
}

#[test]
fn display_alarms_are_reminders_and_other_alarms_are_kept() {
    let mut space = Space::new("s");
    let lines = "UID:a\r\nDUE:20300102T080000Z\r\n\
        BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT15M\r\nDESCRIPTION:x\r\nEND:VALARM\r\n\
        BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;VALUE=DATE-TIME:20300101T070000Z\r\nEND:VALARM\r\n\
        BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n";
    let task = import(&mut space, "a", lines, 1);
    assert_eq!(
        field(&task, "reminders"),
        &Value::Reminders(
            vec![
                Reminder::MinutesBefore(15),
                Reminder::At(PARIS_NINE - 25 * 3_600_000)
            ]
            .into_boxed_slice()
        )
    );
    let out = export(&task);
    assert!(
        out.contains("BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:-PT15M\r\n"),
        "{out}"
    );
    assert!(
        out.contains("TRIGGER;VALUE=DATE-TIME:20300101T070000Z\r\n"),
        "{out}"
    );
    assert!(
        out.contains("BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n"),
        "{out}"
    );
}

#[test]
fn depends_on_is_predecessors_and_other_relations_are_kept() {
    let mut space = Space::new("s");
    import(&mut space, "first", "UID:first\r\n", 1);
    let task = import(
        &mut space,
        "a",
        "UID:a\r\nRELATED-TO;RELTYPE=DEPENDS-ON:first\r\nRELATED-TO;RELTYPE=PARENT:p@host\r\n",
        2,
    );
    assert_eq!(
        field(&task, "predecessorIds"),
        &Value::Ids(vec!["first".into()].into_boxed_slice())
    );
    let out = write_calendar([&*task], |id| format!("{id}@uid"));
    assert!(
        out.contains("RELATED-TO;RELTYPE=DEPENDS-ON:first@uid\r\n"),
        "{out}"
    );
    assert!(
        out.contains("RELATED-TO;RELTYPE=PARENT:p@host\r\n"),
        "{out}"
    );
}

#[test]
fn a_task_waits_for_the_parent_uid_its_vtodo_names_as_the_parser_reads_it() {
    let fields = CalendarFields::of(Kind::Task).unwrap();
    let long = format!("{}\\,\\;x@host", "p".repeat(80));
    for line in [
        format!("RELATED-TO;RELTYPE=PARENT:{long}"),
        format!("RELATED-TO;X-N=\"a:b\":{long}"),
    ] {
        let mut space = Space::new("s");
        let lines = format!("UID:a\r\n{line}\r\nX-A:1\r\n");
        let sent = parse_one(&lines).parent().unwrap().to_owned();
        assert!(
            sent.starts_with("pppp") && sent.ends_with("x@host"),
            "{sent}"
        );
        let task = import(&mut space, "a", &lines, 1);
        assert_eq!(fields.waiting(&task), Some(sent), "{line}");
    }
}

#[test]
fn stamps_are_created_last_modified_dtstamp_and_sequence() {
    let mut space = Space::new("s");
    import(&mut space, "a", "UID:a\r\n", PARIS_NINE);
    let task = import(&mut space, "a", "UID:a\r\nSUMMARY:x\r\n", PARIS_NINE + 1000);
    let out = export(&task);
    assert!(out.contains("CREATED:20300102T080000Z\r\n"), "{out}");
    assert!(out.contains("LAST-MODIFIED:20300102T080001Z\r\n"), "{out}");
    assert!(out.contains("DTSTAMP:20300102T080001Z\r\n"), "{out}");
    assert!(out.contains("SEQUENCE:2\r\n"), "{out}");
}

#[test]
fn a_clients_uid_is_kept_as_sent() {
    let mut space = Space::new("s");
    let task = import(&mut space, "new-id", "UID:abc@host.example\r\n", 1);
    assert!(export(&task).contains("UID:abc@host.example\r\n"));
}

#[test]
fn unknown_properties_and_components_round_trip_byte_for_byte() {
    let unknown = "X-APPLE-SORT-ORDER:12345\r\n\
        PERCENT-COMPLETE:40\r\n\
        X-CUSTOM;X-PARAM=\"a:b\";LANGUAGE=de:Gr\u{fc}\u{df}e\\, Welt\r\n\
        ATTACH;FMTTYPE=text/plain:https://example.com/a.txt\r\n\
        CLASS:PRIVATE\r\n\
        BEGIN:X-THING\r\nX-INNER:1\r\nEND:X-THING\r\n";
    let mut space = Space::new("s");
    let task = import(&mut space, "a", &format!("UID:a\r\n{unknown}"), 1);
    let out = export(&task);
    for line in unknown.split_inclusive("\r\n") {
        assert!(out.contains(line), "{line:?} not in {out}");
    }
    // And again: what went out comes back the same.
    let again = import(
        &mut space,
        "a",
        out.split("BEGIN:VTODO\r\n")
            .nth(1)
            .unwrap()
            .split("END:VTODO\r\n")
            .next()
            .unwrap(),
        2,
    );
    assert_eq!(export(&again).matches("X-APPLE-SORT-ORDER").count(), 1);
    assert_eq!(fields_kept(&again), fields_kept(&task));
}

fn fields_kept(task: &Record) -> Option<Box<str>> {
    CalendarFields::of(Kind::Task)
        .unwrap()
        .kept(task)
        .map(|k| k.kept.clone())
}

#[test]
fn events_are_skipped_and_a_uid_twice_or_none_is_refused() {
    let body = wrap("BEGIN:VEVENT\r\nUID:e\r\nEND:VEVENT\r\nBEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\n");
    let parsed = parse_calendar(&body).unwrap();
    assert_eq!((parsed.todos.len(), parsed.skipped), (1, 1));
    let twice = wrap("BEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\n");
    assert_eq!(parse_calendar(&twice), Err(IcalError::TwoUids("t".into())));
    let two = todo("UID:t\r\nUID:u\r\n");
    assert_eq!(parse_calendar(&two), Err(IcalError::TwoUids("t".into())));
    assert_eq!(
        parse_calendar(&todo("SUMMARY:x\r\n")),
        Err(IcalError::NoUid)
    );
    assert!(matches!(parse_calendar("hello"), Err(IcalError::Syntax(_))));
}

#[test]
fn more_than_64_kib_kept_is_refused() {
    let big = format!("UID:a\r\nX-BIG:{}\r\n", "x".repeat(CALENDAR_KEPT_MAX_BYTES));
    assert_eq!(
        parse_calendar(&todo(&big)),
        Err(IcalError::TooLarge("a".into()))
    );
}

/// Writes `text` (one VTODO) as task `id` the way a CalDAV `PUT` keeps it: as sent.
fn put_as_sent(space: &mut Space, id: &str, text: &str, now: i64) -> Arc<Record> {
    let todo = parse_calendar(text).unwrap().todos.remove(0);
    let existing = space.get(Kind::Task, id).ok().map(|i| i.record);
    let mut changes = todo
        .changes(existing.as_deref(), |uid| uid.to_owned(), |_| None)
        .unwrap();
    for (_, value) in &mut changes.fields {
        if let Value::Calendar(kept) = value {
            *value = Value::Sent(Box::new(std::mem::take(&mut **kept).into_sent(text)));
        }
    }
    let op = match existing {
        Some(_) => Op::Update(changes),
        None => Op::Create(changes),
    };
    let command = Command {
        kind: Kind::Task,
        id: id.into(),
        op,
        if_match: None,
    };
    space.apply(&[command], now).unwrap();
    space.get(Kind::Task, id).unwrap().record
}

#[test]
fn an_object_kept_as_sent_is_the_tasks_until_another_write_renders_it_anew_keeping_the_rest() {
    let mut space = Space::new("s");
    let text = todo(
        "SUMMARY:As sent\r\nUID:a@client\r\nCATEGORIES:Corner shop\r\nX-CLIENT:1\r\n\
         BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nPRIORITY:7\r\n",
    );
    let task = put_as_sent(&mut space, "a", &text, 1_000);
    assert_eq!(object_text(&task, |id| id.to_owned()), text);
    // The copies of what the object holds are not kept beside it.
    let sent = CalendarFields::of(Kind::Task).unwrap().sent(&task).unwrap();
    assert!(sent.calendar.categories.is_empty() && sent.calendar.kept.is_empty());
    assert_eq!(sent.calendar.uid.as_deref(), Some("a@client"));
    // A JSON write: the object is rendered from the task, with what the write did not
    // change read from the object as sent.
    let changes = parse_changes(
        Kind::Task,
        Mode::Update,
        serde_json::json!({"name": "Renamed", "isImportant": true})
            .as_object()
            .unwrap()
            .clone(),
    )
    .unwrap();
    let command = Command {
        kind: Kind::Task,
        id: "a".into(),
        op: Op::Update(changes),
        if_match: None,
    };
    space.apply(&[command], 2_000).unwrap();
    let task = space.get(Kind::Task, "a").unwrap().record;
    let rendered = object_text(&task, |id| id.to_owned());
    assert_ne!(rendered, text);
    for line in [
        "UID:a@client\r\n",
        "SUMMARY:Renamed\r\n",
        "PRIORITY:1\r\n",
        "CATEGORIES:Corner shop\r\n",
        "X-CLIENT:1\r\n",
        "ACTION:AUDIO\r\n",
    ] {
        assert!(rendered.contains(line), "{line} in {rendered}");
    }
    let kept = kept_calendar(&task).unwrap();
    assert_eq!(&*kept.categories, [Box::from("Corner shop")]);
    assert!(kept.kept.contains("X-CLIENT:1\r\n"), "{}", kept.kept);
    // Sent again, it is the task's object again.
    let task = put_as_sent(&mut space, "a", &text, 3_000);
    assert_eq!(object_text(&task, |id| id.to_owned()), text);
}
