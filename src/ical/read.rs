//! Reading a `text/calendar` body: one [`Todo`] per `VTODO`, and the [`Changes`] of the
//! write each one asks for.

use std::borrow::Cow;
use std::collections::BTreeSet;

use calcard::common::PartialDateTime;
use calcard::icalendar::{
    ICalendar, ICalendarAction, ICalendarComponent, ICalendarComponentType, ICalendarDuration,
    ICalendarEntry, ICalendarParameterName, ICalendarParameterValue, ICalendarProperty,
    ICalendarRelated, ICalendarRelationshipType, ICalendarValue,
};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use serde_json::{json, Map, Value as Json};

use crate::model::limits::CALENDAR_KEPT_MAX_BYTES;
use crate::model::record::{Record, Value};
use crate::model::rfc3339::rfc3339_millis;
use crate::model::validate::{is_id, parse_changes};
use crate::model::vtodo::{is_important_priority, Calendar, CalendarFields, Sent};
use crate::model::wall_clock;
use crate::model::{Changes, Kind, Mode, ValidationError};

use super::Class;

/// Why a `text/calendar` body cannot be read as tasks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IcalError {
    /// Not an iCalendar object at all.
    #[error("not an iCalendar object: {0}")]
    Syntax(String),
    /// A VTODO without a `UID`.
    #[error("a VTODO has no UID")]
    NoUid,
    /// Two VTODOs with the same `UID`, or one with two.
    #[error("the UID '{0}' is given twice")]
    TwoUids(String),
    /// A property whose value taskd cannot map.
    #[error("{property} of the VTODO '{uid}' {message}")]
    BadValue {
        /// The VTODO's `UID`.
        uid: String,
        /// The property.
        property: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// What would be kept verbatim is over the bound.
    #[error("the VTODO '{0}' has more than {CALENDAR_KEPT_MAX_BYTES} bytes of properties and components taskd keeps as sent")]
    TooLarge(String),
}

/// A `DUE` or `DTSTART` as a client sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum When {
    /// `VALUE=DATE`: an all-day date.
    Day(NaiveDate),
    /// A UTC date-time, in milliseconds since the epoch.
    Utc(i64),
    /// A wall time with a `TZID`.
    Zoned(NaiveDateTime, String),
    /// A wall time with neither: taken as UTC.
    Floating(NaiveDateTime),
}

/// One `VTODO` as read, ready to become a write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Todo {
    /// The `UID`, as sent.
    pub(crate) uid: String,
    pub(super) summary: Option<String>,
    pub(super) description: Option<String>,
    pub(super) due: Option<When>,
    pub(super) start: Option<When>,
    pub(super) status: Option<Class>,
    pub(super) completed: Option<i64>,
    pub(super) priority: Option<u8>,
    pub(super) categories: Vec<String>,
    pub(super) rrule: Option<String>,
    pub(super) reminders: Vec<Json>,
    pub(super) depends_on: Vec<String>,
    /// Its first parent (docs §22: a `RELATED-TO` with `RELTYPE=PARENT` or none): the
    /// parent's `UID`, and the property as written, kept when no task has that `UID`.
    pub(super) parent: Option<(String, String)>,
    pub(super) kept: String,
}

/// What a `text/calendar` body holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parsed {
    /// Its VTODOs, in order.
    pub(crate) todos: Vec<Todo>,
    /// Its other components (`VEVENT`, `VJOURNAL`, …), which taskd skips; `VTIMEZONE`s
    /// are read with the VTODOs that name them and not counted.
    pub(crate) skipped: usize,
}

/// Reads a `text/calendar` body: one [`Todo`] per `VTODO` (each `UID` once).
pub(crate) fn parse_calendar(text: &str) -> Result<Parsed, IcalError> {
    let calendar = ICalendar::parse(text).map_err(|e| IcalError::Syntax(format!("{e:?}")))?;
    let root = calendar
        .components
        .first()
        .filter(|c| c.component_type == ICalendarComponentType::VCalendar)
        .ok_or_else(|| IcalError::Syntax("no VCALENDAR".into()))?;
    let mut parsed = Parsed {
        todos: Vec::new(),
        skipped: 0,
    };
    let mut uids = BTreeSet::new();
    // The rules as sent: the parser's rewrite of one would hide what the checks refuse.
    let mut rules = super::lines::rrules_of_vtodos(text).into_iter();
    for &id in &root.component_ids {
        let component = &calendar.components[id as usize];
        match component.component_type {
            ICalendarComponentType::VTodo => {
                let mut todo = read_todo(&calendar, component)?;
                if let Some(Some(sent)) = rules.next() {
                    todo.rrule = Some(sent);
                }
                if !uids.insert(todo.uid.clone()) {
                    return Err(IcalError::TwoUids(todo.uid));
                }
                parsed.todos.push(todo);
            }
            ICalendarComponentType::VTimezone => {}
            _ => parsed.skipped += 1,
        }
    }
    Ok(parsed)
}

fn first_text(entry: &ICalendarEntry) -> Option<&str> {
    entry.values.iter().find_map(|v| match v {
        ICalendarValue::Text(s) => Some(s.as_str()),
        ICalendarValue::Uri(calcard::icalendar::Uri::Location(s)) => Some(s.as_str()),
        _ => None,
    })
}

fn param<'a>(
    entry: &'a ICalendarEntry,
    name: &ICalendarParameterName,
) -> Option<&'a ICalendarParameterValue> {
    entry
        .params
        .iter()
        .find(|p| p.name == *name)
        .map(|p| &p.value)
}

fn date_time(entry: &ICalendarEntry) -> Option<&PartialDateTime> {
    entry.values.iter().find_map(|v| match v {
        ICalendarValue::PartialDateTime(dt) => Some(&**dt),
        _ => None,
    })
}

fn naive(dt: &PartialDateTime) -> Option<NaiveDateTime> {
    let date = NaiveDate::from_ymd_opt(dt.year? as i32, dt.month? as u32, dt.day? as u32)?;
    let time = NaiveTime::from_hms_opt(
        dt.hour.unwrap_or(0) as u32,
        dt.minute.unwrap_or(0) as u32,
        dt.second.unwrap_or(0).min(59) as u32,
    )?;
    Some(date.and_time(time))
}

fn is_utc(dt: &PartialDateTime) -> bool {
    dt.tz_hour == Some(0) && dt.tz_minute.unwrap_or(0) == 0
}

/// A `DUE`, `DTSTART` or `COMPLETED` as a [`When`].
fn when(entry: &ICalendarEntry) -> Option<When> {
    let dt = date_time(entry)?;
    let wall = naive(dt)?;
    if dt.hour.is_none() {
        return Some(When::Day(wall.date()));
    }
    if is_utc(dt) {
        return Some(When::Utc(wall.and_utc().timestamp_millis()));
    }
    match param(entry, &ICalendarParameterName::Tzid) {
        Some(ICalendarParameterValue::Text(tzid)) => Some(When::Zoned(wall, tzid.clone())),
        _ => Some(When::Floating(wall)),
    }
}

/// A `TRIGGER` of a `DISPLAY` alarm as a reminder of docs §18, when it is one: an
/// absolute UTC time, or whole minutes before `DUE`.
fn reminder(alarm: &ICalendarComponent) -> Option<Json> {
    let mut display = false;
    let mut trigger = None;
    for entry in &alarm.entries {
        match &entry.name {
            ICalendarProperty::Action => {
                display =
                    entry.values.first() == Some(&ICalendarValue::Action(ICalendarAction::Display))
            }
            ICalendarProperty::Trigger => trigger = Some(entry),
            ICalendarProperty::Description => {}
            _ => return None,
        }
    }
    let trigger = trigger.filter(|_| display)?;
    match trigger.values.first()? {
        ICalendarValue::PartialDateTime(dt) if is_utc(dt) && dt.hour.is_some() => {
            let ms = naive(dt)?.and_utc().timestamp_millis();
            Some(json!({"at": &*rfc3339_millis(ms)?}))
        }
        ICalendarValue::Duration(d) => {
            let related_end = matches!(
                param(trigger, &ICalendarParameterName::Related),
                Some(ICalendarParameterValue::Related(ICalendarRelated::End))
            );
            let zero = d.weeks == 0 && d.days == 0 && d.hours == 0 && d.minutes == 0;
            let whole = d.seconds == 0 && (d.neg || zero);
            let minutes = (u64::from(d.weeks) * 7 + u64::from(d.days)) * 24 * 60
                + u64::from(d.hours) * 60
                + u64::from(d.minutes);
            (related_end && whole).then(|| json!({"minutesBefore": minutes}))
        }
        _ => None,
    }
}

/// The content lines of `component` and everything in it, as `calcard` writes them.
fn component_text(calendar: &ICalendar, component: &ICalendarComponent) -> String {
    let mut tree = ICalendar {
        components: vec![ICalendarComponent {
            component_ids: Vec::new(),
            ..component.clone()
        }],
    };
    let mut stack = vec![(0usize, component)];
    while let Some((at, source)) = stack.pop() {
        for &child in &source.component_ids {
            let child = &calendar.components[child as usize];
            let id = tree.components.len();
            tree.components.push(ICalendarComponent {
                component_ids: Vec::new(),
                ..child.clone()
            });
            tree.components[at].component_ids.push(id as u32);
            stack.push((id, child));
        }
    }
    tree.to_string()
}

fn read_todo(calendar: &ICalendar, vtodo: &ICalendarComponent) -> Result<Todo, IcalError> {
    let uids: Vec<&str> = vtodo
        .entries
        .iter()
        .filter(|e| e.name == ICalendarProperty::Uid)
        .filter_map(first_text)
        .collect();
    let uid = match uids.as_slice() {
        [] => return Err(IcalError::NoUid),
        [uid] => uid.to_string(),
        [uid, ..] => return Err(IcalError::TwoUids(uid.to_string())),
    };
    let bad = |property: &'static str, message: &str| IcalError::BadValue {
        uid: uid.clone(),
        property,
        message: message.into(),
    };
    let mut todo = Todo {
        uid: uid.clone(),
        summary: None,
        description: None,
        due: None,
        start: None,
        status: None,
        completed: None,
        priority: None,
        categories: Vec::new(),
        rrule: None,
        reminders: Vec::new(),
        depends_on: Vec::new(),
        parent: None,
        kept: String::new(),
    };
    let mut kept = String::new();
    let mut duration = None;
    for entry in &vtodo.entries {
        read_property(&mut todo, entry, &mut duration, &mut kept, &bad)?;
    }
    // A `DTSTART` with a `DURATION` and no `DUE` is due at their sum (RFC 5545 §3.8.2.5):
    // that is the task's `dateDue` (a recurring task needs one, §18), sent back as `DUE`,
    // which says the same. A `DURATION` that implies no due taskd can hold is kept as sent.
    if let Some(entry) = duration {
        let implied = match (&todo.due, &todo.start, entry.values.first()) {
            (None, Some(start), Some(ICalendarValue::Duration(d))) => due_after(start, d),
            _ => None,
        };
        match implied {
            Some(due) => todo.due = Some(due),
            None => entry
                .write_to(&mut kept)
                .map_err(|e| IcalError::Syntax(e.to_string()))?,
        }
    }
    for &child in &vtodo.component_ids {
        let child = &calendar.components[child as usize];
        let mapped = (child.component_type == ICalendarComponentType::VAlarm)
            .then(|| reminder(child))
            .flatten();
        match mapped {
            Some(reminder) => todo.reminders.push(reminder),
            None => kept.push_str(&component_text(calendar, child)),
        }
    }
    let parent_bytes = todo.parent.as_ref().map_or(0, |(_, line)| line.len());
    if kept.len() + parent_bytes > CALENDAR_KEPT_MAX_BYTES {
        return Err(IcalError::TooLarge(uid));
    }
    todo.kept = kept;
    Ok(todo)
}

/// Reads one property of a VTODO into `todo`: a `DURATION` is left in `duration` for the
/// caller, and what taskd has no field for is kept, as written, in `kept`.
fn read_property<'a>(
    todo: &mut Todo,
    entry: &'a ICalendarEntry,
    duration: &mut Option<&'a ICalendarEntry>,
    kept: &mut String,
    bad: &impl Fn(&'static str, &str) -> IcalError,
) -> Result<(), IcalError> {
    match &entry.name {
        // Written anew from the task.
        ICalendarProperty::Uid
        | ICalendarProperty::Dtstamp
        | ICalendarProperty::Created
        | ICalendarProperty::LastModified
        | ICalendarProperty::Sequence => {}
        ICalendarProperty::Summary => todo.summary = first_text(entry).map(str::to_owned),
        ICalendarProperty::Description => todo.description = first_text(entry).map(str::to_owned),
        ICalendarProperty::Due => {
            todo.due = Some(when(entry).ok_or_else(|| bad("DUE", "is not a date or date-time"))?)
        }
        ICalendarProperty::Dtstart => {
            todo.start =
                Some(when(entry).ok_or_else(|| bad("DTSTART", "is not a date or date-time"))?)
        }
        ICalendarProperty::Status => {
            todo.status = entry.values.iter().find_map(|v| match v {
                ICalendarValue::Status(s) => Some(Class::from_ical(s)),
                _ => None,
            })
        }
        ICalendarProperty::Completed => match when(entry) {
            Some(When::Utc(ms)) => todo.completed = Some(ms),
            _ => return Err(bad("COMPLETED", "must be a UTC date-time")),
        },
        ICalendarProperty::Priority => match entry.values.first() {
            Some(ICalendarValue::Integer(p @ 0..=9)) => todo.priority = Some(*p as u8),
            _ => return Err(bad("PRIORITY", "must be an integer from 0 to 9")),
        },
        ICalendarProperty::Categories => {
            for value in &entry.values {
                if let ICalendarValue::Text(s) = value {
                    todo.categories.push(s.clone());
                }
            }
        }
        ICalendarProperty::Rrule if todo.rrule.is_none() => {
            todo.rrule = entry.values.iter().find_map(|v| match v {
                ICalendarValue::RecurrenceRule(rule) => Some(rule.to_string()),
                _ => None,
            })
        }
        ICalendarProperty::RelatedTo
            if matches!(
                param(entry, &ICalendarParameterName::Reltype),
                Some(ICalendarParameterValue::Reltype(
                    ICalendarRelationshipType::DependsOn
                ))
            ) && first_text(entry).is_some() =>
        {
            todo.depends_on
                .push(first_text(entry).unwrap_or_default().to_owned())
        }
        // The first parent is the task's parentId (docs §22); the others are kept as sent.
        ICalendarProperty::RelatedTo
            if todo.parent.is_none()
                && matches!(
                    param(entry, &ICalendarParameterName::Reltype),
                    None | Some(ICalendarParameterValue::Reltype(
                        ICalendarRelationshipType::Parent
                    ))
                )
                && first_text(entry).is_some() =>
        {
            let mut line = String::new();
            entry
                .write_to(&mut line)
                .map_err(|e| IcalError::Syntax(e.to_string()))?;
            todo.parent = Some((first_text(entry).unwrap_or_default().to_owned(), line));
        }
        ICalendarProperty::Duration if duration.is_none() => *duration = Some(entry),
        _ => entry
            .write_to(kept)
            .map_err(|e| IcalError::Syntax(e.to_string()))?,
    }
    Ok(())
}

/// The due a `DTSTART` of `start` and a `DURATION` of `d` imply: weeks and days on the
/// wall clock, hours, minutes and seconds as elapsed time (RFC 5545 §3.3.6); `None` for a
/// negative duration, a time of day added to an all-day start, a `TZID` that is no IANA
/// name, or a sum out of range.
fn due_after(start: &When, d: &ICalendarDuration) -> Option<When> {
    use chrono::TimeDelta;
    if d.neg {
        return None;
    }
    let days = TimeDelta::try_days(i64::from(d.weeks) * 7 + i64::from(d.days))?;
    let exact = TimeDelta::try_seconds(
        i64::from(d.hours) * 3600 + i64::from(d.minutes) * 60 + i64::from(d.seconds),
    )?;
    Some(match start {
        When::Day(day) if exact.is_zero() => When::Day(day.checked_add_signed(days)?),
        When::Day(_) => return None,
        When::Utc(ms) => When::Utc(ms.checked_add((days + exact).num_milliseconds())?),
        When::Floating(wall) => {
            When::Floating(wall.checked_add_signed(days)?.checked_add_signed(exact)?)
        }
        When::Zoned(wall, tzid) => {
            let tz = wall_clock::parse_zone(Some(tzid)).ok()?;
            let at = wall_clock::instant(tz, wall.checked_add_signed(days)?)?;
            let due = wall_clock::wall_time(tz, at.checked_add(exact.num_milliseconds())?)?;
            When::Zoned(due, tzid.clone())
        }
    })
}

/// A [`When`] as a JSON date field (`YYYY-MM-DD` for a day), with the zone it names; a
/// `TZID` that is no IANA name is refused.
fn when_json(
    when: &When,
    property: &'static str,
    uid: &str,
) -> Result<(Json, Option<String>), IcalError> {
    let stamp = |ms: Option<i64>| {
        ms.and_then(rfc3339_millis)
            .map(|s| Json::String(s.to_string()))
            .ok_or_else(|| IcalError::BadValue {
                uid: uid.into(),
                property,
                message: "is out of range".into(),
            })
    };
    Ok(match when {
        When::Day(day) => (Json::String(day.format("%Y-%m-%d").to_string()), None),
        When::Utc(ms) => (stamp(Some(*ms))?, None),
        When::Floating(wall) => (stamp(Some(wall.and_utc().timestamp_millis()))?, None),
        When::Zoned(wall, tzid) => {
            let tz = wall_clock::parse_zone(Some(tzid)).map_err(|_| IcalError::BadValue {
                uid: uid.into(),
                property,
                message: format!("has the TZID '{tzid}', which is not an IANA time zone name"),
            })?;
            (stamp(wall_clock::instant(tz, *wall))?, Some(tzid.clone()))
        }
    })
}

impl Todo {
    /// The `UID`s of its `RELATED-TO;RELTYPE=DEPENDS-ON`.
    pub(crate) fn predecessors(&self) -> impl Iterator<Item = &str> {
        self.depends_on.iter().map(String::as_str)
    }

    /// The `UID` of its parent (docs §22), if it names one.
    pub(crate) fn parent(&self) -> Option<&str> {
        self.parent.as_ref().map(|(uid, _)| uid.as_str())
    }

    /// The changes of a write that makes a task say what this VTODO says: every mapped
    /// field set (null or empty where the VTODO has nothing), `status` only when its class
    /// changes, checked by [`parse_changes`] as a JSON body would be (a create when
    /// `existing` is `None`). `depends_on` gives the `todoId` of the task with a `UID`;
    /// a `DEPENDS-ON` no task has is refused by the space as any unknown predecessor.
    /// `parent_of` gives the `todoId` of the task with a `UID`, if one has it: the parent
    /// is `parentId`, and a parent no task has is kept as sent, with `parentId` null.
    pub(crate) fn changes(
        &self,
        existing: Option<&Record>,
        depends_on: impl Fn(&str) -> String,
        parent_of: impl Fn(&str) -> Option<String>,
    ) -> Result<Changes, ChangesError> {
        let mut body = Map::new();
        let text = |s: &Option<String>| s.clone().map_or(Json::Null, Json::String);
        body.insert("name".into(), text(&self.summary));
        body.insert("notesMarkdown".into(), text(&self.description));
        let mut zone_named = None;
        let mut timed = false;
        for (field, property, when) in [
            ("dateDue", "DUE", &self.due),
            ("dateStart", "DTSTART", &self.start),
        ] {
            let value = match when {
                Some(when) => {
                    timed |= !matches!(when, When::Day(_));
                    let (json, zone) = when_json(when, property, &self.uid)?;
                    zone_named = zone_named.or(zone);
                    json
                }
                None => Json::Null,
            };
            body.insert(field.into(), value);
        }
        let all_day = matches!(self.due, Some(When::Day(_)))
            || (self.due.is_none() && matches!(self.start, Some(When::Day(_))));
        body.insert("isAllDay".into(), Json::Bool(all_day));
        // An all-day VTODO names no zone (its dates have no TZID): the task keeps its own.
        if zone_named.is_some() || timed {
            body.insert(
                "timeZone".into(),
                zone_named.map_or(Json::Null, Json::String),
            );
        }
        let important = self.priority.is_some_and(is_important_priority);
        body.insert("isImportant".into(), Json::Bool(important));
        let (tags, free): (Vec<&String>, Vec<&String>) =
            self.categories.iter().partition(|c| is_id(c));
        body.insert("tagIds".into(), json!(tags));
        body.insert("recurrence".into(), text(&self.rrule));
        body.insert("reminders".into(), Json::Array(self.reminders.clone()));
        let predecessors: Vec<String> = self.depends_on.iter().map(|uid| depends_on(uid)).collect();
        body.insert("predecessorIds".into(), json!(predecessors));
        let parent = self
            .parent
            .as_ref()
            .map(|(uid, line)| (parent_of(uid), line));
        let parent_id = parent.as_ref().and_then(|(id, _)| id.clone());
        body.insert("parentId".into(), json!(parent_id));
        // A parent no task has yet is kept first, so it stays the first parent named.
        let waiting = match parent {
            Some((None, line)) => line.as_str(),
            _ => "",
        };
        let before = existing.map(|r| {
            let at = Kind::Task
                .field_index("status")
                .expect("tasks have a status");
            Class::of(r.fields[at].as_text())
        });
        let incoming = self.status.unwrap_or(Class::NeedsAction);
        if before.unwrap_or(Class::NeedsAction) != incoming {
            body.insert("status".into(), Json::String(incoming.status().into()));
        }
        let mode = match existing {
            Some(_) => Mode::Update,
            None => Mode::Create,
        };
        let mut changes = parse_changes(Kind::Task, mode, body)?;
        let fields = CalendarFields::of(Kind::Task).expect("tasks keep calendar data");
        if let (Class::Completed, Some(ms)) = (incoming, self.completed) {
            changes
                .fields
                .push((fields.completed_at(), Value::Time(ms)));
        }
        let kept = Calendar {
            uid: Some(self.uid.as_str().into()),
            object: existing
                .and_then(|r| fields.kept(r))
                .and_then(|k| k.object.clone()),
            priority: self.priority,
            categories: free.into_iter().map(|c| c.as_str().into()).collect(),
            kept: format!("{waiting}{}", self.kept).into(),
        };
        changes
            .fields
            .push((fields.calendar(), Value::Calendar(Box::new(kept))));
        Ok(changes)
    }
}

/// What `task` keeps for calendar clients, with its free categories and kept lines: of an
/// object kept as sent ([`Sent`]), those are read from the object again (docs §27: a
/// write by another route renders it anew keeping what it did not change), by the same
/// reading as when it was sent. `None` for a task that keeps nothing.
pub(crate) fn kept_calendar(task: &Record) -> Option<Cow<'_, Calendar>> {
    let fields = CalendarFields::of(Kind::Task).expect("tasks keep calendar data");
    match fields.sent(task) {
        Some(sent) => Some(Cow::Owned(from_sent(sent))),
        None => fields.kept(task).map(Cow::Borrowed),
    }
}

/// The calendar data of `sent` with the free categories and kept lines of its object,
/// after the parent line the task waits for, if it does (kept beside the object: the
/// object's first parent is not among its kept lines). The object was read when it was
/// stored, so it reads again; were it not to, the task keeps what it has besides.
fn from_sent(sent: &Sent) -> Calendar {
    let todo = parse_calendar(&sent.text)
        .ok()
        .and_then(|parsed| parsed.todos.into_iter().next());
    let Some(todo) = todo else {
        return sent.calendar.clone();
    };
    Calendar {
        categories: todo
            .categories
            .into_iter()
            .filter(|c| !is_id(c))
            .map(String::into_boxed_str)
            .collect(),
        kept: format!("{}{}", sent.calendar.kept, todo.kept).into(),
        ..sent.calendar.clone()
    }
}

/// Why a VTODO's changes were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ChangesError {
    /// A value taskd cannot map.
    #[error(transparent)]
    Ical(#[from] IcalError),
    /// A mapped value the task's rules refuse (too long a name, a bad rule, …).
    #[error(transparent)]
    Invalid(#[from] ValidationError),
}
