//! The JSON form of records (docs §3), straight from the stored records: every field of
//! the kind's table that is not hidden, absent values as `null` (arrays as `[]`), date-times
//! as RFC 3339 UTC with milliseconds. What the JSON API answers, and what the change feed,
//! the change stream, webhook deliveries and `taskd export` carry: the fronts share it, and
//! it depends on the model only.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::model::recurrence::Reminder;
use crate::model::time::rfc3339_millis;
use crate::model::{Kind, Record, Value};

/// A time in milliseconds since the epoch, written as RFC 3339 UTC with milliseconds
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`), or null when out of range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp(pub i64);

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match rfc3339_millis(self.0) {
            Some(stamp) => s.serialize_str(&stamp),
            None => s.serialize_none(),
        }
    }
}

/// A record of `kind` in space `space`, as JSON.
pub(crate) struct RecordJson<'a> {
    /// The record's kind.
    pub kind: Kind,
    /// The space it belongs to.
    pub space: &'a str,
    /// The record.
    pub record: &'a Record,
}

/// A field value as JSON (the derived `Serialize` of `Value` is the snapshot encoding).
pub(crate) struct ValueJson<'a>(pub &'a Value);

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => s.serialize_f64(*n),
            Value::Integer(n) => s.serialize_u64(*n),
            Value::Text(t) => s.serialize_str(t),
            Value::Time(ms) => Stamp(*ms).serialize(s),
            Value::Ids(ids) => s.collect_seq(ids.iter()),
            Value::Reminders(reminders) => s.collect_seq(reminders.iter().map(ReminderJson)),
            Value::Calendar(kept) => kept.serialize(s),
            Value::Sent(sent) => sent.calendar.serialize(s),
        }
    }
}

/// A reminder as JSON: `{"at": <date-time>}` or `{"minutesBefore": n}`.
struct ReminderJson<'a>(&'a Reminder);

impl Serialize for ReminderJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match *self.0 {
            Reminder::At(ms) => map.serialize_entry("at", &Stamp(ms))?,
            Reminder::MinutesBefore(minutes) => map.serialize_entry("minutesBefore", &minutes)?,
        }
        map.end()
    }
}

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.record;
        let fields = self.kind.fields();
        let mut map = s.serialize_map(Some(fields.len() + 10))?;
        map.serialize_entry("id", &*r.id)?;
        map.serialize_entry(self.kind.id_field(), &*r.id)?;
        map.serialize_entry("spaceId", self.space)?;
        map.serialize_entry("sortOrder", &r.sort_order)?;
        for (field, value) in fields.iter().zip(r.fields.iter()) {
            if !field.ty.is_hidden() {
                map.serialize_entry(field.name, &ValueJson(value))?;
            }
        }
        map.serialize_entry("createdAt", &Stamp(r.created_at))?;
        map.serialize_entry("updatedAt", &Stamp(r.updated_at))?;
        map.serialize_entry("deletedAt", &r.deleted_at.map(Stamp))?;
        map.serialize_entry("isDeleted", &r.is_deleted())?;
        map.serialize_entry("versionUpdatedAt", &r.version)?;
        map.end()
    }
}
