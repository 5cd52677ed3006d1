//! What a task keeps for calendar clients (docs §20), and the two rules a write of a task
//! applies to it: `completedAt` and the `PRIORITY` that stands behind `isImportant`.
//!
//! A task has two fields for this at the end of its table: `completedAt`, a read-only
//! date-time of the JSON API, and `calendar`, a hidden field (no response shows it, no request
//! names it) holding a [`Calendar`]: what of a client's VTODO has no task field of its own.
//! The VTODO mapping itself is `crate::ical`; [`Space`](super::space::Space) calls
//! [`CalendarFields::settle`] while it plans a write, after the time fields are settled.
//!
//! A VTODO may name a parent `UID` that no task of the space has yet (docs §22: sync
//! clients upload in any order). Its task keeps that `RELATED-TO` line first among its
//! kept lines, with `parentId` null: it *waits* for that `UID`
//! ([`CalendarFields::waiting`]). The [`Objects`] index holds the waiting tasks by the
//! `UID` they wait for, derived from the records like its other entries, so no file
//! stores it; the write that creates a task with that `UID` links them (`model::tree`).

use std::borrow::Cow;
use std::sync::Arc;

use arcstr::ArcStr;
use imbl::OrdSet;
use percent_encoding::percent_decode_str;
use serde::{Deserialize, Serialize};

use super::deps::is_finished_status;
use super::kind::{FieldType, Kind};
use super::record::{Id, Record, Records, Value};
use super::space::Changes;

/// What a task keeps of the VTODO a calendar client sent, beyond its mapped fields. Part of
/// the on-disk format (`store::codec`): a change of shape needs a new format version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Calendar {
    /// The `UID` exactly as the client sent it (`None`: the task's `todoId` is its UID).
    /// Shared with the space's index of `UID`s ([`Objects`]), which keys the task by it.
    pub uid: Option<ArcStr>,
    /// The object name the client stored it under, exactly as sent (`None`:
    /// `<todoId>.ics`).
    pub object: Option<Box<str>>,
    /// `PRIORITY` as sent, 0 to 9 (`None`: not sent). [`CalendarFields::settle`] keeps it
    /// in step with `isImportant`, which is true exactly when it is 1 to 4.
    pub priority: Option<u8>,
    /// The `CATEGORIES` values without the id shape of docs §3, as sent (the id-shaped
    /// ones are the task's `tagIds`).
    pub categories: Box<[Box<str>]>,
    /// Every other property and component of the VTODO, as iCalendar content lines (the
    /// calendar module writes and reads them), at most
    /// [`CALENDAR_KEPT_MAX_BYTES`](super::limits::CALENDAR_KEPT_MAX_BYTES). A parent
    /// `RELATED-TO` no task had when the VTODO was written comes first (see
    /// [`CalendarFields::waiting`]).
    pub kept: Box<str>,
}

// A task's calendar data is one allocation of 64 bytes (80 while the `UID` was a
// `Box<str>` and the categories a `Vec`).
const _: () = assert!(std::mem::size_of::<Calendar>() == 64);

/// A calendar object kept as a CalDAV client `PUT` it (docs §27): `GET` answers it octet
/// for octet, with the task's `ETag`, while no other write has changed the task. Part of
/// the on-disk format (`store::codec`, from format 8).
///
/// The object replaces the copies a [`Calendar`] holds of what the task has no field for:
/// `calendar.categories` is empty and `calendar.kept` holds at most the parent `RELATED-TO`
/// line the task waits for (see [`CalendarFields::waiting`]); the rest is read from `text`
/// when the object is rendered anew (`crate::ical`), so a task holds its client's words
/// once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    /// The `UID`, object name and `PRIORITY` the task keeps, as for any VTODO.
    pub calendar: Calendar,
    /// The object exactly as sent, at most
    /// [`CALENDAR_KEPT_MAX_BYTES`](super::limits::CALENDAR_KEPT_MAX_BYTES).
    pub text: Box<str>,
    /// The space version of the write that stored it: the task's object is `text` while
    /// the task's `version` is this one. 0 (no record's version) when that write changed
    /// the task from what it was sent (a completion that rolled a repeating task).
    pub version: u64,
}

impl Calendar {
    /// The calendar data of a task whose object is `text`, as sent: its free categories
    /// and kept lines are dropped, since `text` holds them (see [`Sent`]), all but a
    /// leading parent `RELATED-TO` ([`CalendarFields::settle`] drops that one too unless
    /// the task waits for it). The version is set by the write that stores it.
    pub fn into_sent(self, text: &str) -> Sent {
        let waiting = leading_parent(&self.kept).map_or("", |(line, _)| line);
        Sent {
            calendar: Calendar {
                categories: Box::default(),
                kept: waiting.into(),
                ..self
            },
            text: text.into(),
            version: 0,
        }
    }
}

/// Whether `priority` makes a task important: 1 (highest) to 4 (docs §20).
pub fn is_important_priority(priority: u8) -> bool {
    (1..=4).contains(&priority)
}

/// Where a kind keeps the fields of this module: positions in its field table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalendarFields {
    parent: usize,
    status: usize,
    important: usize,
    completed_at: usize,
    calendar: usize,
}

impl CalendarFields {
    /// The calendar fields of `kind`, when it has them (tasks).
    pub fn of(kind: Kind) -> Option<CalendarFields> {
        Some(CalendarFields {
            parent: kind.field_of_type(FieldType::Ref(kind))?,
            status: kind.field_index("status")?,
            important: kind.field_index("isImportant")?,
            completed_at: kind.field_index("completedAt")?,
            calendar: kind.field_of_type(FieldType::Calendar)?,
        })
    }

    /// Position of `completedAt`.
    pub fn completed_at(&self) -> usize {
        self.completed_at
    }

    /// Position of the hidden `calendar` field.
    pub fn calendar(&self) -> usize {
        self.calendar
    }

    /// What `record` keeps for calendar clients, if anything (of an object kept as sent,
    /// what it keeps beside it: see [`Sent`]).
    pub fn kept<'a>(&self, record: &'a Record) -> Option<&'a Calendar> {
        record.fields[self.calendar].as_calendar()
    }

    /// The object a client sent for `record`, kept whether or not it is still the
    /// task's object.
    pub fn sent<'a>(&self, record: &'a Record) -> Option<&'a Sent> {
        record.fields[self.calendar].as_sent()
    }

    /// `record`'s object exactly as a client sent it, while it is the task's object: no
    /// write but the one that stored it has touched the task since (docs §27).
    pub fn object_as_sent<'a>(&self, record: &'a Record) -> Option<&'a str> {
        self.sent(record)
            .filter(|s| s.version == record.version)
            .map(|s| &*s.text)
    }

    /// The `UID` of `record`: the client's, kept as sent, or its `todoId`.
    pub fn uid<'a>(&self, record: &'a Record) -> &'a str {
        self.kept(record)
            .and_then(|k| k.uid.as_deref())
            .unwrap_or(&record.id)
    }

    /// The parent `UID` `record` waits for (docs §22): the one its first kept line names
    /// when that line is a parent `RELATED-TO` (`RELTYPE=PARENT` or none) and the task has
    /// no `parentId`. A VTODO whose first parent no task had keeps that line first
    /// (`crate::ical`); a JSON write of `parentId` and the late link drop it
    /// ([`CalendarFields::settle`]).
    pub fn waiting(&self, record: &Record) -> Option<String> {
        if record.fields[self.parent] != Value::Null {
            return None;
        }
        leading_parent(&self.kept(record)?.kept).map(|(_, uid)| uid)
    }

    /// The name of `record`'s object in its calendar: the client's, kept as sent, or
    /// `<todoId>.ics`.
    pub fn object_name<'a>(&self, record: &'a Record) -> Cow<'a, str> {
        match self.kept(record).and_then(|k| k.object.as_deref()) {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Owned(format!("{}.ics", record.id)),
        }
    }

    /// Completes `record`, which a write of `changes` at space version `version` took
    /// from `before` (`None` on create), at the write's time `now`:
    ///
    /// - `completedAt` is null while `status` is unfinished (docs §15); when the write
    ///   finishes the task, it is the time the write gives it (a calendar client's
    ///   `COMPLETED`) or else `now`; a finished task that stays finished keeps it;
    /// - a write that sets `isImportant` and not the calendar data brings a kept `PRIORITY`
    ///   in step: to 1 when it becomes important with a priority outside 1 to 4, to 0 when
    ///   it stops being important with one inside;
    /// - a kept `UID` that is the `todoId`, and a kept object name that is `<todoId>.ics`,
    ///   are dropped (they say what their absence says), and so is calendar data left
    ///   empty: the common client that names objects by UUID costs no memory for them;
    /// - an object a write sends ([`Sent`]) is stamped with `version`, which makes it the
    ///   task's object, unless the write left a field other than it was sent (a
    ///   completion that rolled a repeating task to its next occurrence): then the object
    ///   is rendered anew from the task. It keeps a leading parent line only while the
    ///   task waits for that parent;
    /// - a write that sets `parentId` and not the calendar data (a JSON write, the late
    ///   link) on a task that waited for a parent drops the line it waited by: the parent
    ///   link is `parentId` now, whatever its value, and the object shows one.
    ///
    /// Called after the time fields are settled, so a roll is seen.
    pub fn settle(
        &self,
        before: Option<&Record>,
        record: &mut Record,
        changes: &Changes,
        now: i64,
        version: u64,
    ) {
        let sets = |at: usize| changes.fields.iter().any(|(f, _)| *f == at);
        let as_sent = changes
            .fields
            .iter()
            .all(|(at, value)| record.fields[*at] == *value);
        let has_parent = record.fields[self.parent] != Value::Null;
        if let (true, Value::Sent(sent)) = (sets(self.calendar), &mut record.fields[self.calendar])
        {
            sent.version = if as_sent { version } else { 0 };
            if has_parent {
                sent.calendar.kept = Box::default();
            }
        }
        if sets(self.parent)
            && !sets(self.calendar)
            && before.is_some_and(|b| self.waiting(b).is_some())
        {
            if let Some(kept) = record.fields[self.calendar].as_calendar_mut() {
                let line = leading_parent(&kept.kept).map_or(0, |(line, _)| line.len());
                kept.kept = kept.kept[line..].into();
            }
        }
        let finished = |r: &Record| {
            r.fields[self.status]
                .as_text()
                .is_some_and(is_finished_status)
        };
        if !finished(record) {
            record.fields[self.completed_at] = Value::Null;
        } else if !sets(self.completed_at) && !before.is_some_and(finished) {
            record.fields[self.completed_at] = Value::Time(now);
        }
        if sets(self.important) && !sets(self.calendar) {
            let important = record.fields[self.important] == Value::Bool(true);
            let priority = self.kept(record).and_then(|k| k.priority);
            let adjusted = match priority {
                Some(p) if important && !is_important_priority(p) => Some(1),
                Some(p) if !important && is_important_priority(p) => Some(0),
                _ => None,
            };
            if let (Some(kept), Some(p)) =
                (record.fields[self.calendar].as_calendar_mut(), adjusted)
            {
                kept.priority = Some(p);
            }
        }
        if let Some(kept) = record.fields[self.calendar].as_calendar_mut() {
            if kept.uid.as_deref() == Some(&*record.id) {
                kept.uid = None;
            }
            if kept.object.as_deref() == Some(&format!("{}.ics", record.id)) {
                kept.object = None;
            }
        }
        if let Value::Calendar(kept) = &record.fields[self.calendar] {
            if **kept == Calendar::default() {
                record.fields[self.calendar] = Value::Null;
            }
        }
    }
}

/// Whether two object names (or `href`s) name the same object: equal once
/// percent-decoded, since clients encode names differently (`a@b.ics`, `a%40b.ics`).
pub fn same_name(a: &str, b: &str) -> bool {
    a == b || percent_decode_str(a).eq(percent_decode_str(b))
}

/// The first content line of `kept` (as stored, folded) and the `UID` it names, when it is
/// a parent `RELATED-TO`: `RELTYPE=PARENT` or no `RELTYPE` (docs §22). Reads the line as
/// RFC 5545 §3.1 writes it: unfolded, then `name *(";" param) ":" value`, a quoted
/// parameter value taken whole, the value unescaped as TEXT.
fn leading_parent(kept: &str) -> Option<(&str, String)> {
    // Most kept lines are not one: told apart without reading the line (a name is never
    // folded, lines fold at 75 octets).
    if !kept.get(..10)?.eq_ignore_ascii_case("RELATED-TO") {
        return None;
    }
    let mut end = 0;
    loop {
        end += kept[end..].find('\n')? + 1;
        if !matches!(kept.as_bytes().get(end), Some(b' ' | b'\t')) {
            break;
        }
    }
    let line = &kept[..end];
    let unfolded = line
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { l.get(1..).unwrap_or("") })
        .collect::<String>();
    let (name, mut rest) = unfolded.split_at(unfolded.find([';', ':'])?);
    if !name.eq_ignore_ascii_case("RELATED-TO") {
        return None;
    }
    while let Some(param) = rest.strip_prefix(';') {
        let (param_name, after) = param.split_at(param.find('=')?);
        let after = &after[1..];
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => {
                let close = quoted.find('"')?;
                (&quoted[..close], &quoted[close + 1..])
            }
            None => after.split_at(after.find([';', ':'])?),
        };
        if param_name.eq_ignore_ascii_case("RELTYPE") && !value.eq_ignore_ascii_case("PARENT") {
            return None;
        }
        rest = next;
    }
    let value = rest.strip_prefix(':')?;
    if value.is_empty() {
        return None;
    }
    let mut uid = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n' | 'N') => uid.push('\n'),
                Some(escaped) => uid.push(escaped),
                None => uid.push('\\'),
            },
            (c, false) => uid.push(c),
        }
    }
    Some((line, uid))
}

/// An object name as the [`Objects`] index keys it: percent-decoded.
fn name_key(name: &str) -> Box<[u8]> {
    percent_decode_str(name).collect()
}

/// The tasks of a space by the names calendar clients give them, kept in step with the
/// records by the space: the tasks whose `UID` is not their `todoId`, by `UID`, and those
/// whose object name is not `<todoId>.ics`, by that name percent-decoded. The others are
/// found by id, so a space written only through the JSON API, or by clients whose `UID`s
/// are ids, has no entry here. Deleted tasks stay in it (a `PUT` of their `UID` restores
/// them). Beside them, the tasks that wait for a parent (see [`CalendarFields::waiting`]),
/// by the parent's `UID`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Objects {
    uids: OrdSet<UidKey>,
    names: OrdSet<NameKey>,
    waiting: OrdSet<UidKey>,
}

/// An entry of [`Objects`] by `UID`.
type UidKey = (ArcStr, Id);
/// An entry of [`Objects`] by object name (percent-decoded).
type NameKey = (Box<[u8]>, Id);

/// The entries of a record in [`Objects`]: by `UID`, by name, by the parent it waits for.
type Keys = (Option<UidKey>, Option<NameKey>, Option<UidKey>);

impl Objects {
    /// The index entries of `record`: by `UID` and by name, where those are not its id's,
    /// and by the parent `UID` it waits for.
    fn keys(fields: &CalendarFields, record: &Record) -> Keys {
        let Some(kept) = fields.kept(record) else {
            return (None, None, None);
        };
        let uid = kept
            .uid
            .as_ref()
            .filter(|uid| ***uid != *record.id)
            .map(|uid| (uid.clone(), record.id.clone()));
        let name = kept
            .object
            .as_deref()
            .map(name_key)
            .filter(|key| **key != *format!("{}.ics", record.id).as_bytes())
            .map(|key| (key, record.id.clone()));
        let waiting = fields
            .waiting(record)
            .map(|parent| (parent.into(), record.id.clone()));
        (uid, name, waiting)
    }

    /// Replaces the entries of `old` with those of `new` (either may be absent).
    pub(crate) fn replace(
        &mut self,
        fields: &CalendarFields,
        old: Option<&Record>,
        new: Option<&Record>,
    ) {
        if let Some(old) = old {
            let (uid, name, waiting) = Objects::keys(fields, old);
            uid.map(|k| self.uids.remove(&k));
            name.map(|k| self.names.remove(&k));
            waiting.map(|k| self.waiting.remove(&k));
        }
        if let Some(new) = new {
            let (uid, name, waiting) = Objects::keys(fields, new);
            uid.map(|k| self.uids.insert(k));
            name.map(|k| self.names.insert(k));
            waiting.map(|k| self.waiting.insert(k));
        }
    }

    /// The tasks that wait for a parent whose `UID` is `uid` (deleted ones too), by
    /// `todoId`.
    pub(crate) fn waiting_for<'a>(&'a self, uid: &'a str) -> impl Iterator<Item = &'a Id> + 'a {
        let from: UidKey = (uid.into(), Id::from(""));
        self.waiting
            .range(from..)
            .take_while(move |(u, _)| **u == *uid)
            .map(|(_, id)| id)
    }

    /// How many entries it has by `UID` and by name.
    #[cfg(test)]
    pub(crate) fn len(&self) -> (usize, usize) {
        (self.uids.len(), self.names.len())
    }

    /// The index of `records`.
    pub(crate) fn build<'a>(
        fields: &CalendarFields,
        records: impl IntoIterator<Item = &'a Arc<Record>>,
    ) -> Objects {
        let mut objects = Objects::default();
        for record in records {
            objects.replace(fields, None, Some(record));
        }
        objects
    }
}

/// A space's tasks as calendar clients name them (docs §20), at one version; taken in
/// O(1) ([`Space::calendar_tasks`](super::space::Space::calendar_tasks)), since the maps are
/// persistent. Every lookup is O(log n).
#[derive(Debug, Clone)]
pub struct CalendarTasks {
    records: Records,
    objects: Objects,
    fields: CalendarFields,
}

impl CalendarTasks {
    pub(crate) fn new(records: Records, objects: Objects) -> CalendarTasks {
        CalendarTasks {
            records,
            objects,
            fields: CalendarFields::of(Kind::Task).expect("tasks keep calendar data"),
        }
    }

    /// Every task, deleted ones too, by `todoId`.
    pub fn records(&self) -> &Records {
        &self.records
    }

    /// Where tasks keep their calendar data.
    pub fn fields(&self) -> &CalendarFields {
        &self.fields
    }

    /// The task (deleted or not) whose `UID` is `uid`; the first by `todoId` should two
    /// have it.
    pub fn with_uid(&self, uid: &str) -> Option<&Arc<Record>> {
        let by_id = self.records.get(uid).filter(|r| self.fields.uid(r) == uid);
        let from: UidKey = (uid.into(), Id::from(""));
        let kept = self
            .objects
            .uids
            .range(from..)
            .take_while(|(u, _)| **u == *uid)
            .filter_map(|(_, id)| self.records.get(id))
            .find(|r| self.fields.uid(r) == uid);
        [by_id, kept]
            .into_iter()
            .flatten()
            .min_by(|a, b| a.id.cmp(&b.id))
    }

    /// The task that is the object `name` (compared percent-decoded) among those `member`
    /// accepts; the first by `todoId` should two be.
    pub fn named(&self, name: &str, member: impl Fn(&Record) -> bool) -> Option<&Arc<Record>> {
        let key = name_key(name);
        let by_id = std::str::from_utf8(&key)
            .ok()
            .and_then(|n| n.strip_suffix(".ics"))
            .and_then(|id| self.records.get(id));
        let from: NameKey = (key.clone(), Id::from(""));
        let kept = self
            .objects
            .names
            .range(from..)
            .take_while(|(k, _)| *k == key)
            .filter_map(|(_, id)| self.records.get(id));
        by_id
            .into_iter()
            .chain(kept)
            .filter(|r| member(r) && same_name(&self.fields.object_name(r), name))
            .min_by(|a, b| a.id.cmp(&b.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> CalendarFields {
        CalendarFields::of(Kind::Task).unwrap()
    }

    fn task(status: &str, important: bool, priority: Option<u8>) -> Record {
        let f = fields();
        let mut r = Record::new(Kind::Task, Id::from("t"), 1.0, 0, 1);
        r.fields[f.status] = Value::Text(status.into());
        r.fields[f.important] = Value::Bool(important);
        if priority.is_some() {
            r.fields[f.calendar] = Value::Calendar(Box::new(Calendar {
                priority,
                ..Calendar::default()
            }));
        }
        r
    }

    fn changes(fields: Vec<(usize, Value)>) -> Changes {
        Changes {
            fields,
            ..Changes::default()
        }
    }

    /// Applies `fields` to `before` as a write at `now` would.
    fn write(before: &Record, fields: Vec<(usize, Value)>, now: i64) -> Record {
        let changes = changes(fields);
        let mut record = before.clone();
        for (at, v) in &changes.fields {
            record.fields[*at] = v.clone();
        }
        self::fields().settle(Some(before), &mut record, &changes, now, 2);
        record
    }

    #[test]
    fn a_uid_and_object_name_that_are_the_todo_ids_are_not_kept() {
        let f = fields();
        let open = task("open", false, None);
        let kept = |uid: &str, object: &str| {
            Value::Calendar(Box::new(Calendar {
                uid: Some(uid.into()),
                object: Some(object.into()),
                ..Calendar::default()
            }))
        };
        let plain = write(&open, vec![(f.calendar, kept("t", "t.ics"))], 5);
        assert_eq!(plain.fields[f.calendar], Value::Null);
        assert_eq!((f.uid(&plain), &*f.object_name(&plain)), ("t", "t.ics"));
        let named = write(&open, vec![(f.calendar, kept("t", "T.ics"))], 5);
        let expected = Calendar {
            object: Some("T.ics".into()),
            ..Calendar::default()
        };
        assert_eq!(
            named.fields[f.calendar],
            Value::Calendar(Box::new(expected))
        );
        assert_eq!((f.uid(&named), &*f.object_name(&named)), ("t", "T.ics"));
    }

    #[test]
    fn an_object_sent_is_stamped_with_its_writes_version_unless_the_write_changed_the_task() {
        let f = fields();
        let open = task("open", false, None);
        let sent = || {
            let calendar = Calendar {
                uid: Some("u@host".into()),
                ..Calendar::default()
            };
            Value::Sent(Box::new(calendar.into_sent("BEGIN:VCALENDAR…")))
        };
        let stamped = |fields: Vec<(usize, Value)>| {
            let changes = changes(fields);
            let mut record = open.clone();
            for (at, v) in &changes.fields {
                record.fields[*at] = v.clone();
            }
            f.settle(Some(&open), &mut record, &changes, 5, 7);
            f.sent(&record).map(|s| s.version)
        };
        assert_eq!(stamped(vec![(f.calendar, sent())]), Some(7));
        // A write that leaves a field other than it was sent (as a roll leaves the
        // status): never the task's object.
        let mut changes = changes(vec![
            (f.status, Value::Text("done".into())),
            (f.calendar, sent()),
        ]);
        let mut record = open.clone();
        for (at, v) in &changes.fields {
            record.fields[*at] = v.clone();
        }
        record.fields[f.status] = Value::Text("open".into());
        f.settle(Some(&open), &mut record, &changes, 5, 8);
        assert_eq!(f.sent(&record).map(|s| s.version), Some(0));
        assert_eq!(f.object_as_sent(&record), None);
        // A later write that does not send one leaves the stamp, so the task's new
        // version no longer matches it.
        changes.fields = vec![(f.important, Value::Bool(true))];
        let mut before = open.clone();
        before.fields[f.calendar] = sent();
        if let Value::Sent(sent) = &mut before.fields[f.calendar] {
            sent.version = before.version;
        }
        assert!(f.object_as_sent(&before).is_some());
        let mut later = before.clone();
        f.settle(Some(&before), &mut later, &changes, 6, 9);
        later.touch(9, 6);
        assert_eq!(f.sent(&later).map(|s| s.version), Some(before.version));
        assert_eq!(f.object_as_sent(&later), None);
    }

    #[test]
    fn a_leading_parent_line_is_read_unfolded_with_its_params_and_escapes() {
        let read = |kept: &str| leading_parent(kept).map(|(line, uid)| (line.len(), uid));
        let folded =
            "RELATED-TO;X-NOTE=\"a:b;c\";RELTYPE=parent:long-\r\n uid\\,x@host\r\nX-A:1\r\n";
        assert_eq!(
            read(folded),
            Some((folded.len() - 7, "long-uid,x@host".into()))
        );
        assert_eq!(read("related-to:p\r\n"), Some((14, "p".into())));
        for other in [
            "RELATED-TO;RELTYPE=CHILD:p\r\n",
            "RELATED-TO;RELTYPE=DEPENDS-ON:p\r\n",
            "X-A:1\r\nRELATED-TO:p\r\n",
            "RELATED-TO:\r\n",
            "RELATED-TO:p",
            "",
        ] {
            assert_eq!(read(other), None, "{other:?}");
        }
    }

    #[test]
    fn completed_at_is_the_time_a_task_became_finished_and_null_while_unfinished() {
        let f = fields();
        let open = task("open", false, None);
        let done = write(&open, vec![(f.status, Value::Text("done".into()))], 50);
        assert_eq!(done.fields[f.completed_at], Value::Time(50));
        let renamed = write(&done, vec![(f.status, Value::Text("completed".into()))], 60);
        assert_eq!(renamed.fields[f.completed_at], Value::Time(50));
        let reopened = write(&done, vec![(f.status, Value::Text("open".into()))], 70);
        assert_eq!(reopened.fields[f.completed_at], Value::Null);
    }

    #[test]
    fn a_clients_completed_time_is_kept() {
        let f = fields();
        let open = task("open", false, None);
        let done = write(
            &open,
            vec![
                (f.status, Value::Text("done".into())),
                (f.completed_at, Value::Time(7)),
            ],
            50,
        );
        assert_eq!(done.fields[f.completed_at], Value::Time(7));
    }

    #[test]
    fn a_created_finished_task_has_the_writes_time() {
        let f = fields();
        let mut record = task("done", false, None);
        let changes = changes(vec![(f.status, Value::Text("done".into()))]);
        f.settle(None, &mut record, &changes, 9, 1);
        assert_eq!(record.fields[f.completed_at], Value::Time(9));
    }

    #[test]
    fn is_important_moves_a_kept_priority_into_or_out_of_one_to_four() {
        let f = fields();
        let priority = |r: &Record| f.kept(r).and_then(|k| k.priority);
        let low = task("open", false, Some(7));
        let up = write(&low, vec![(f.important, Value::Bool(true))], 1);
        assert_eq!(priority(&up), Some(1));
        let down = write(&up, vec![(f.important, Value::Bool(false))], 2);
        assert_eq!(priority(&down), Some(0));
        let high = task("open", true, Some(3));
        let same = write(&high, vec![(f.important, Value::Bool(true))], 3);
        assert_eq!(priority(&same), Some(3));
        let none = task("open", false, None);
        let still = write(&none, vec![(f.important, Value::Bool(true))], 4);
        assert_eq!(f.kept(&still), None);
    }
}
