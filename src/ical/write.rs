//! Writing tasks as one `VCALENDAR`: a `VTODO` per task, with the `VTIMEZONE`s and kept
//! properties it needs.

use std::borrow::Cow;

use calcard::common::PartialDateTime;
use calcard::icalendar::{
    ICalendar, ICalendarAction, ICalendarComponent, ICalendarComponentType, ICalendarDuration,
    ICalendarEntry, ICalendarParameter, ICalendarParameterName, ICalendarProperty,
    ICalendarRelated, ICalendarRelationshipType, ICalendarValue, ICalendarValueType,
};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone, Timelike};
use chrono_tz::Tz;

use crate::model::record::{Record, Value};
use crate::model::recurrence::Reminder;
use crate::model::vtodo::CalendarFields;
use crate::model::wall_clock;
use crate::model::Kind;

use super::read::kept_calendar;
use super::Class;

/// The `PRODID` of what taskd writes.
const PRODID: &str = "-//taskd//CONTRACT 20//EN";

fn utc_stamp(ms: i64) -> ICalendarValue {
    let t = DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .naive_utc();
    ICalendarValue::PartialDateTime(Box::new(PartialDateTime {
        year: Some(t.year().clamp(0, 9999) as u16),
        month: Some(t.month() as u8),
        day: Some(t.day() as u8),
        hour: Some(t.hour() as u8),
        minute: Some(t.minute() as u8),
        second: Some(t.second() as u8),
        tz_hour: Some(0),
        tz_minute: Some(0),
        tz_minus: false,
    }))
}

fn wall_value(t: NaiveDateTime, time: bool) -> ICalendarValue {
    ICalendarValue::PartialDateTime(Box::new(PartialDateTime {
        year: Some(t.year().clamp(0, 9999) as u16),
        month: Some(t.month() as u8),
        day: Some(t.day() as u8),
        hour: time.then_some(t.hour() as u8),
        minute: time.then_some(t.minute() as u8),
        second: time.then_some(t.second() as u8),
        ..PartialDateTime::default()
    }))
}

fn entry(name: ICalendarProperty, value: impl Into<ICalendarValue>) -> ICalendarEntry {
    ICalendarEntry::new(name).with_value(value)
}

fn offset_value(seconds: i32) -> ICalendarValue {
    let minutes = seconds.unsigned_abs() / 60;
    ICalendarValue::PartialDateTime(Box::new(PartialDateTime {
        tz_hour: Some((minutes / 60) as u8),
        tz_minute: Some((minutes % 60) as u8),
        tz_minus: seconds < 0,
        ..PartialDateTime::default()
    }))
}

/// The UTC offset of `tz` at `ms`, in seconds.
fn offset_at(tz: Tz, ms: i64) -> i32 {
    let t = DateTime::from_timestamp_millis(ms).unwrap_or_default();
    tz.offset_from_utc_datetime(&t.naive_utc())
        .fix()
        .local_minus_utc()
}

/// The `VTIMEZONE` of `tz` around the instant `ms`: its observances of that year, each
/// from the transition into it (one `STANDARD` for a zone without one that year).
fn vtimezone(calendar: &mut ICalendar, tz: Tz, ms: i64) -> u32 {
    const HOUR: i64 = 3_600_000;
    let year = DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .year();
    let start = NaiveDate::from_ymd_opt(year, 1, 1).map_or(ms, |d| {
        d.and_time(NaiveTime::MIN).and_utc().timestamp_millis()
    });
    let end = start + 366 * 24 * HOUR;
    let mut observances = Vec::new();
    let mut at = start;
    while at < end {
        let next = at + 24 * HOUR;
        if offset_at(tz, at) != offset_at(tz, next) {
            // The transition lies in (at, next]: narrow it to the second.
            let (mut lo, mut hi) = (at, next);
            while hi - lo > 1000 {
                let mid = lo + (hi - lo) / 2;
                if offset_at(tz, mid) == offset_at(tz, at) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            observances.push((hi, offset_at(tz, lo), offset_at(tz, hi)));
        }
        at = next;
    }
    let mut ids = Vec::new();
    if observances.is_empty() {
        let offset = offset_at(tz, ms);
        observances.push((start, offset, offset));
    }
    let standard = observances.iter().map(|o| o.2).min().unwrap_or(0);
    for (instant, from, to) in observances {
        let kind = match to > standard {
            true => ICalendarComponentType::Daylight,
            false => ICalendarComponentType::Standard,
        };
        let local = DateTime::from_timestamp_millis(instant + i64::from(from) * 1000)
            .unwrap_or_default()
            .naive_utc();
        let mut observance = ICalendarComponent::new(kind);
        observance
            .entries
            .push(entry(ICalendarProperty::Dtstart, wall_value(local, true)));
        observance
            .entries
            .push(entry(ICalendarProperty::Tzoffsetfrom, offset_value(from)));
        observance
            .entries
            .push(entry(ICalendarProperty::Tzoffsetto, offset_value(to)));
        ids.push(calendar.components.len() as u32);
        calendar.components.push(observance);
    }
    let mut vtimezone = ICalendarComponent::new(ICalendarComponentType::VTimezone);
    vtimezone
        .entries
        .push(entry(ICalendarProperty::Tzid, tz.name()));
    vtimezone.component_ids = ids;
    calendar.components.push(vtimezone);
    (calendar.components.len() - 1) as u32
}

/// The components of `kept` (content lines [`read_todo`] stored): its properties, and its
/// components with everything in them, moved into `calendar`.
fn kept_parts(calendar: &mut ICalendar, kept: &str) -> (Vec<ICalendarEntry>, Vec<u32>) {
    if kept.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let text = format!("BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\n{kept}END:VTODO\r\nEND:VCALENDAR\r\n");
    let Ok(parsed) = ICalendar::parse(&text) else {
        return (Vec::new(), Vec::new());
    };
    let Some(vtodo) = parsed.components.get(1) else {
        return (Vec::new(), Vec::new());
    };
    // Components keep their order; their ids move by the components already there (the
    // two wrappers dropped).
    let shift = calendar.components.len() as u32;
    let moved = |id: u32| id - 2 + shift;
    for component in &parsed.components[2..] {
        let mut component = component.clone();
        component.component_ids = component
            .component_ids
            .iter()
            .map(|&id| moved(id))
            .collect();
        calendar.components.push(component);
    }
    let children = vtodo.component_ids.iter().map(|&id| moved(id)).collect();
    (vtodo.entries.clone(), children)
}

/// The `UID` a task is sent with: the client's, kept as sent, or its `todoId`.
pub(crate) fn uid_of(task: &Record) -> &str {
    task_fields().uid(task)
}

/// The name a task's object has in its calendar: the client's, kept as sent, or
/// `<todoId>.ics`.
pub(crate) fn object_name(task: &Record) -> Cow<'_, str> {
    task_fields().object_name(task)
}

/// Where tasks keep their calendar data.
fn task_fields() -> CalendarFields {
    CalendarFields::of(Kind::Task).expect("tasks keep calendar data")
}

/// The calendar object of `task` (one `VCALENDAR` with its `VTODO`): exactly as a CalDAV
/// client sent it while no other write has changed the task (docs §27), else rendered
/// from the task ([`write_calendar`]). `uid_of` gives the `UID` of a predecessor by
/// `todoId`.
pub(crate) fn object_text(task: &Record, uid_of: impl Fn(&str) -> String) -> Cow<'_, str> {
    match task_fields().object_as_sent(task) {
        Some(text) => Cow::Borrowed(text),
        None => Cow::Owned(write_calendar([task], uid_of)),
    }
}

/// Renders `tasks` as one `VCALENDAR`: a `VTIMEZONE` for each zone their timed dates name,
/// and one `VTODO` per task. `uid_of` gives the `UID` of a predecessor or parent by
/// `todoId`.
pub(crate) fn write_calendar<'a>(
    tasks: impl IntoIterator<Item = &'a Record>,
    uid_of: impl Fn(&str) -> String,
) -> String {
    let mut calendar = ICalendar {
        components: vec![ICalendarComponent::new(ICalendarComponentType::VCalendar)],
    };
    calendar.components[0].entries.extend([
        entry(ICalendarProperty::Version, "2.0"),
        entry(ICalendarProperty::Prodid, PRODID),
    ]);
    let mut zones: Vec<(Tz, u32)> = Vec::new();
    let mut todos = Vec::new();
    for task in tasks {
        let (todo, zone) = vtodo(&mut calendar, task, &uid_of);
        if let Some((tz, ms)) = zone.filter(|(tz, _)| !zones.iter().any(|(z, _)| z == tz)) {
            zones.push((tz, vtimezone(&mut calendar, tz, ms)));
        }
        todos.push(todo);
    }
    let roots: Vec<u32> = zones.iter().map(|(_, id)| *id).chain(todos).collect();
    calendar.components[0].component_ids = roots;
    calendar.to_string()
}

/// The `VTODO` of `task`, added to `calendar`, and the zone its timed dates name with one
/// of them.
fn vtodo(
    calendar: &mut ICalendar,
    task: &Record,
    uid_of: &impl Fn(&str) -> String,
) -> (u32, Option<(Tz, i64)>) {
    let field = |name: &str| &task.fields[Kind::Task.field_index(name).expect("a task field")];
    let kept = kept_calendar(task);
    let kept = kept.as_deref();
    let mut todo = ICalendarComponent::new(ICalendarComponentType::VTodo);
    let e = &mut todo.entries;
    let uid = kept.and_then(|k| k.uid.as_deref()).unwrap_or(&task.id);
    e.push(entry(ICalendarProperty::Uid, uid));
    e.push(entry(
        ICalendarProperty::Dtstamp,
        utc_stamp(task.updated_at),
    ));
    e.push(entry(
        ICalendarProperty::Created,
        utc_stamp(task.created_at),
    ));
    e.push(entry(
        ICalendarProperty::LastModified,
        utc_stamp(task.updated_at),
    ));
    e.push(entry(ICalendarProperty::Sequence, task.version as i64));
    if let Some(name) = field("name").as_text() {
        e.push(entry(ICalendarProperty::Summary, name));
    }
    if let Some(notes) = field("notesMarkdown").as_text() {
        e.push(entry(ICalendarProperty::Description, notes));
    }
    let tz_name = field("timeZone").as_text();
    let tz = wall_clock::parse_zone(tz_name).unwrap_or(Tz::UTC);
    let all_day = *field("isAllDay") == Value::Bool(true);
    let mut zone = None;
    for (name, property) in [
        ("dateDue", ICalendarProperty::Due),
        ("dateStart", ICalendarProperty::Dtstart),
    ] {
        let Some(ms) = field(name).as_time() else {
            continue;
        };
        if !all_day && tz_name.is_some() {
            zone.get_or_insert((tz, ms));
        }
        e.push(date_entry(property, ms, tz, tz_name, all_day));
    }
    let class = Class::of(field("status").as_text());
    e.push(entry(ICalendarProperty::Status, class.ical()));
    if let (Class::Completed, Some(ms)) = (class, field("completedAt").as_time()) {
        e.push(entry(ICalendarProperty::Completed, utc_stamp(ms)));
    }
    let important = *field("isImportant") == Value::Bool(true);
    let priority = kept.and_then(|k| k.priority).or(important.then_some(1));
    if let Some(priority) = priority {
        e.push(entry(ICalendarProperty::Priority, i64::from(priority)));
    }
    let categories: Vec<ICalendarValue> = field("tagIds")
        .as_ids()
        .iter()
        .map(|t| &**t)
        .chain(kept.iter().flat_map(|k| k.categories.iter().map(|c| &**c)))
        .map(ICalendarValue::from)
        .collect();
    if !categories.is_empty() {
        e.push(ICalendarEntry::new(ICalendarProperty::Categories).with_values(categories));
    }
    if let Some(rule) = field("recurrence").as_text() {
        e.push(entry(ICalendarProperty::Rrule, rule));
    }
    for predecessor in field("predecessorIds").as_ids() {
        e.push(
            ICalendarEntry::new(ICalendarProperty::RelatedTo)
                .with_param(ICalendarParameter::new(
                    ICalendarParameterName::Reltype,
                    ICalendarRelationshipType::DependsOn,
                ))
                .with_value(uid_of(predecessor)),
        );
    }
    if let Some(parent) = field("parentId").as_text() {
        e.push(
            ICalendarEntry::new(ICalendarProperty::RelatedTo)
                .with_param(ICalendarParameter::new(
                    ICalendarParameterName::Reltype,
                    ICalendarRelationshipType::Parent,
                ))
                .with_value(uid_of(parent)),
        );
    }
    let mut children = Vec::new();
    if let Value::Reminders(reminders) = field("reminders") {
        for reminder in reminders {
            let name = field("name").as_text().unwrap_or("Reminder");
            let alarm = alarm(*reminder, name);
            children.push(calendar.components.len() as u32);
            calendar.components.push(alarm);
        }
    }
    let (entries, kept_children) = kept_parts(calendar, kept.map_or("", |k| &k.kept));
    todo.entries.extend(entries);
    todo.component_ids = children.into_iter().chain(kept_children).collect();
    calendar.components.push(todo);
    ((calendar.components.len() - 1) as u32, zone)
}

/// The `DUE` or `DTSTART` entry of the instant `ms`: a date on an all-day task, a wall time
/// with its `TZID` when the task names a zone, else UTC.
fn date_entry(
    property: ICalendarProperty,
    ms: i64,
    tz: Tz,
    tz_name: Option<&str>,
    all_day: bool,
) -> ICalendarEntry {
    if all_day {
        let day = wall_clock::wall_time(tz, ms).unwrap_or_default();
        ICalendarEntry::new(property)
            .with_param(ICalendarParameter::new(
                ICalendarParameterName::Value,
                ICalendarValueType::Date,
            ))
            .with_value(wall_value(day, false))
    } else if let Some(tz_name) = tz_name {
        ICalendarEntry::new(property)
            .with_param(ICalendarParameter::new(
                ICalendarParameterName::Tzid,
                tz_name.to_owned(),
            ))
            .with_value(wall_value(
                wall_clock::wall_time(tz, ms).unwrap_or_default(),
                true,
            ))
    } else {
        entry(property, utc_stamp(ms))
    }
}

/// The `VALARM` of a reminder of the task `name`.
fn alarm(reminder: Reminder, name: &str) -> ICalendarComponent {
    let trigger = match reminder {
        Reminder::At(ms) => ICalendarEntry::new(ICalendarProperty::Trigger)
            .with_param(ICalendarParameter::new(
                ICalendarParameterName::Value,
                ICalendarValueType::DateTime,
            ))
            .with_value(utc_stamp(ms)),
        Reminder::MinutesBefore(minutes) => ICalendarEntry::new(ICalendarProperty::Trigger)
            .with_param(ICalendarParameter::new(
                ICalendarParameterName::Related,
                ICalendarRelated::End,
            ))
            .with_value(ICalendarDuration {
                neg: minutes > 0,
                minutes,
                ..ICalendarDuration::default()
            }),
    };
    let mut alarm = ICalendarComponent::new(ICalendarComponentType::VAlarm);
    alarm
        .entries
        .push(entry(ICalendarProperty::Action, ICalendarAction::Display));
    alarm.entries.push(trigger);
    alarm
        .entries
        .push(entry(ICalendarProperty::Description, name));
    alarm
}
