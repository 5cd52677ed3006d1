//! Stored records: the base fields every kind shares, and field values typed by
//! [`FieldType`](super::kind::FieldType).
//!
//! These types are also what snapshot files hold (see `store::codec`), so changing their
//! shape changes the snapshot format and needs a new format version there.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::kind::{FieldType, Kind};
use super::recurrence::Reminder;
use super::vtodo::{Calendar, Sent};

/// A record id: one allocation per record, shared by every map and index that keys on it,
/// behind a pointer of 8 bytes (the length sits in the allocation), where an `Arc<str>`
/// takes 16 in each of them. Serialized as a string, as `Arc<str>` was.
pub type Id = arcstr::ArcStr;

/// The value of one field of a record. The order of the variants is part of the on-disk
/// format (`store::codec`): never reorder them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// JSON null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A finite number.
    Number(f64),
    /// An integer ≤ 2^53 − 1.
    Integer(u64),
    /// A string.
    Text(Box<str>),
    /// A date-time, as milliseconds since the Unix epoch (UTC).
    Time(i64),
    /// An array of id strings.
    Ids(Box<[Box<str>]>),
    /// A task's reminders (docs §18), in the order sent.
    Reminders(Box<[Reminder]>),
    /// What a task keeps of a calendar client's VTODO (docs §20).
    Calendar(Box<Calendar>),
    /// What a task keeps of the calendar object a CalDAV client `PUT` (docs §27): the
    /// object as sent, beside what [`Value::Calendar`] holds.
    Sent(Box<Sent>),
}

/// A task stores about 15 values (see [`Fields`]), so each byte of a value is 15 of a task:
/// arrays are boxed slices (16 bytes, not a `Vec`'s 24), keeping a value at 24 bytes.
const _: () = assert!(std::mem::size_of::<Value>() == 24);

impl Value {
    /// The value a field of type `ty` has when a create request leaves it out.
    pub fn default_for(ty: FieldType) -> Value {
        match ty {
            FieldType::Flag | FieldType::ExclusiveFlag | FieldType::Blocked => Value::Bool(false),
            FieldType::Choice(options) => Value::Text(options[0].into()),
            FieldType::Refs(_) | FieldType::Ids | FieldType::Predecessors => {
                Value::Ids(Box::default())
            }
            FieldType::Reminders => Value::Reminders(Box::default()),
            FieldType::Tally => Value::Integer(0),
            FieldType::Order => Value::Text("sortOrder".into()),
            FieldType::QueryZone => Value::Text("UTC".into()),
            FieldType::Title | FieldType::Filter | FieldType::Search => Value::Null,
            FieldType::Text(_)
            | FieldType::Zone
            | FieldType::Recurrence
            | FieldType::Stamp
            | FieldType::Calendar
            | FieldType::NonNegative
            | FieldType::Count
            | FieldType::DateTime
            | FieldType::Id
            | FieldType::Ref(_) => Value::Null,
        }
    }

    /// The string this value holds, if it is one.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// What a listing filter matches this value against: a string as it is, a boolean as
    /// `true` or `false`; other values match no filter.
    pub fn filter_key(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            _ => None,
        }
    }

    /// The date-time this value holds, if it is one.
    pub fn as_time(&self) -> Option<i64> {
        match self {
            Value::Time(ms) => Some(*ms),
            _ => None,
        }
    }

    /// The bytes of text this value carries: a string's, the calendar data's kept lines,
    /// or the object a client sent.
    pub fn text_bytes(&self) -> usize {
        match self {
            Value::Text(s) => s.len(),
            Value::Calendar(kept) => kept.kept.len(),
            Value::Sent(sent) => sent.text.len(),
            _ => 0,
        }
    }

    /// The calendar data this value holds, if it holds some: of a [`Value::Sent`], what it
    /// keeps beside the object (whose kept lines and free categories are in the object).
    pub fn as_calendar(&self) -> Option<&Calendar> {
        match self {
            Value::Calendar(kept) => Some(kept),
            Value::Sent(sent) => Some(&sent.calendar),
            _ => None,
        }
    }

    /// [`Value::as_calendar`], to change it in place (a [`Value::Sent`] stays one).
    pub fn as_calendar_mut(&mut self) -> Option<&mut Calendar> {
        match self {
            Value::Calendar(kept) => Some(kept),
            Value::Sent(sent) => Some(&mut sent.calendar),
            _ => None,
        }
    }

    /// The object a CalDAV client sent, if this value holds one.
    pub fn as_sent(&self) -> Option<&Sent> {
        match self {
            Value::Sent(sent) => Some(sent),
            _ => None,
        }
    }

    /// The ids this value holds (none when it holds no array).
    pub fn as_ids(&self) -> &[Box<str>] {
        match self {
            Value::Ids(ids) => ids,
            _ => &[],
        }
    }
}

/// One record of any kind. `fields` runs parallel to [`Kind::fields`] of its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The record's id, unique per kind per space; also its own id field. Shared (not
    /// copied) by the maps and indexes that key on it.
    pub id: Id,
    /// Position in listings: ascending, ties broken by id.
    pub sort_order: f64,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Time of the last write that touched the record.
    pub updated_at: i64,
    /// Soft-deletion time ([`Record::deleted_at`]), or [`NOT_DELETED`]: 8 bytes where an
    /// `Option<i64>` takes 16, which keeps a record in mimalloc's 96-byte size class.
    /// Stored as an `Option<i64>`, as it always was.
    #[serde(with = "deletion")]
    deleted: i64,
    /// The space version of the last write that touched the record (`versionUpdatedAt`).
    pub version: u64,
    /// Values of the kind's fields, in table order.
    pub fields: Fields,
}

impl Record {
    /// A new record of `kind` with every field at its default.
    pub fn new(kind: Kind, id: Id, sort_order: f64, now: i64, version: u64) -> Record {
        Record {
            id,
            sort_order,
            created_at: now,
            updated_at: now,
            deleted: NOT_DELETED,
            version,
            fields: Fields::defaults(kind),
        }
    }

    /// Whether the record is soft-deleted.
    pub fn is_deleted(&self) -> bool {
        self.deleted != NOT_DELETED
    }

    /// Soft-deletion time; `Some` exactly when the record is deleted.
    pub fn deleted_at(&self) -> Option<i64> {
        self.is_deleted().then_some(self.deleted)
    }

    /// Deletes the record at `at` (milliseconds since the Unix epoch, not `i64::MIN`), or
    /// restores it with `None`.
    pub fn set_deleted_at(&mut self, at: Option<i64>) {
        assert_ne!(at, Some(NOT_DELETED), "a deletion time out of range");
        self.deleted = at.unwrap_or(NOT_DELETED);
    }

    /// Marks the record as written by the write at `version` and time `now`.
    pub fn touch(&mut self, version: u64, now: i64) {
        self.version = version;
        self.updated_at = now;
    }
}

// A record and the counts of its `Arc` fill mimalloc's 96-byte size class.
const _: () = assert!(std::mem::size_of::<Record>() == 80);

/// [`Record::deleted`] of a record that is not deleted: below every time a request can name.
const NOT_DELETED: i64 = i64::MIN;

/// [`Record::deleted`] as the `Option<i64>` it is on disk.
mod deletion {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::NOT_DELETED;

    pub(super) fn serialize<S: Serializer>(
        deleted: &i64,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        (*deleted != NOT_DELETED)
            .then_some(*deleted)
            .serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
        match Option::<i64>::deserialize(deserializer)? {
            Some(NOT_DELETED) => Err(serde::de::Error::custom("a deletion time out of range")),
            at => Ok(at.unwrap_or(NOT_DELETED)),
        }
    }
}

/// The values of a record's fields, in its kind's table order, where a *light* value takes
/// no room: `Null` anywhere, and among the first [`LIGHT_FIELDS`] fields also the field's
/// default in its kind's table (`false`, no ids, no reminders, `"ALL"`, `0`, ...),
/// `false` and an empty array of ids, what most of a task's 31 fields hold. The table is
/// the one of as many fields as the record has ([`Kind::of_field_count`]).
/// The other values are kept in order beside a mask of their positions, and a light
/// field's value is a code of two bits, so a task costs the bytes of the fields it has set.
/// Reads see every field ([`Fields::get`], indexing, [`Fields::iter`]); serde reads and
/// writes the whole sequence, the same bytes as a slice of values.
///
/// A field written in place (`fields[at] = value`) is stored whatever its value;
/// [`Fields::shrink`] makes a record's light values light again.
#[derive(Clone, Default)]
pub struct Fields {
    /// The mask of the positions with a stored value (bits 0 to 55) and the number of
    /// fields (bits 56 to 63).
    bits: u64,
    /// The light value of each unstored field among the first [`LIGHT_FIELDS`], two bits a
    /// field: an index into [`light`]'s values.
    light: u64,
    /// The stored values, by position.
    values: Box<[Value]>,
}

/// A record has at most this many fields.
const MAX_FIELDS: usize = 56;
/// The fields that may hold a light value other than `Null`.
const LIGHT_FIELDS: usize = 32;

const _: () = assert!(std::mem::size_of::<Fields>() == 32);

/// The default values of the field table of `len` fields, in table order; none when no
/// kind has a table of that length.
fn defaults_of(len: usize) -> &'static [Value] {
    static BY_LEN: std::sync::LazyLock<Vec<Vec<Value>>> = std::sync::LazyLock::new(|| {
        (0..=MAX_FIELDS)
            .map(|len| match Kind::of_field_count(len) {
                Some(kind) => (kind.fields().iter())
                    .map(|f| Value::default_for(f.ty))
                    .collect(),
                None => Vec::new(),
            })
            .collect()
    });
    BY_LEN.get(len).map_or(&[], Vec::as_slice)
}

/// Code 0 of a light field: `Null`.
const NULL: u64 = 0;
/// Code 1: the field's default in its kind's table.
const DEFAULT: u64 = 1;
/// Code 2: `false`.
const FALSE: u64 = 2;
/// Code 3: an empty array of ids.
const NO_IDS: u64 = 3;

/// The light value of code `code` (two bits) for field `at` of a record of `len` fields.
fn light(code: u64, len: usize, at: usize) -> &'static Value {
    static NULL_VALUE: Value = Value::Null;
    static FALSE_VALUE: Value = Value::Bool(false);
    static NO_IDS_VALUE: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| Value::Ids(Box::default()));
    match code {
        DEFAULT => defaults_of(len).get(at).unwrap_or(&NULL_VALUE),
        FALSE => &FALSE_VALUE,
        NO_IDS => &NO_IDS_VALUE,
        _ => &NULL_VALUE,
    }
}

/// The light value of unstored field `at` of a record of `len` fields, in light codes
/// `codes` ([`Fields::light`]).
fn light_at(codes: u64, len: usize, at: usize) -> &'static Value {
    match at < LIGHT_FIELDS {
        true => light(codes >> (2 * at) & 3, len, at),
        false => light(NULL, len, at),
    }
}

/// The code of `value` when field `at` of a record of `len` fields may hold it without
/// storing it.
fn light_code(len: usize, at: usize, value: &Value) -> Option<u64> {
    match value {
        Value::Null => Some(NULL),
        _ if at >= LIGHT_FIELDS => None,
        _ if defaults_of(len).get(at) == Some(value) => Some(DEFAULT),
        Value::Bool(false) => Some(FALSE),
        Value::Ids(ids) if ids.is_empty() => Some(NO_IDS),
        _ => None,
    }
}

impl Fields {
    /// How many fields the record has.
    pub fn len(&self) -> usize {
        (self.bits >> MAX_FIELDS) as usize
    }

    /// Whether the record has no field.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether field `at` has a stored value.
    fn stored(&self, at: usize) -> bool {
        self.bits >> at & 1 == 1
    }

    /// Where the value of field `at`, if stored, is (or would be).
    fn slot(&self, at: usize) -> usize {
        (self.bits & ((1u64 << at) - 1)).count_ones() as usize
    }

    /// The light value of unstored field `at`.
    fn light_of(&self, at: usize) -> &'static Value {
        light_at(self.light, self.len(), at)
    }

    /// The value of field `at`; `None` past the last field.
    pub fn get(&self, at: usize) -> Option<&Value> {
        (at < self.len()).then(|| match self.stored(at) {
            true => &self.values[self.slot(at)],
            false => self.light_of(at),
        })
    }

    /// Every field's value, in table order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Value> + '_ {
        let mut stored = self.values.iter();
        (0..self.len()).map(move |at| match self.stored(at) {
            true => stored.next().unwrap_or(light(NULL, 0, at)),
            false => self.light_of(at),
        })
    }

    /// Every field's value, in table order, owned.
    pub fn into_vec(self) -> Vec<Value> {
        let (len, bits, codes) = (self.len(), self.bits, self.light);
        let mut values = self.values.into_vec().into_iter();
        (0..len)
            .map(|at| match bits >> at & 1 {
                1 => values.next().unwrap_or(Value::Null),
                _ => light_at(codes, len, at).clone(),
            })
            .collect()
    }

    /// The fields of a new record of `kind`, each at its default.
    pub fn defaults(kind: Kind) -> Fields {
        static DEFAULTS: std::sync::LazyLock<Vec<Fields>> = std::sync::LazyLock::new(|| {
            (Kind::ALL.iter())
                .map(|kind| {
                    let values = kind.fields().iter().map(|f| Value::default_for(f.ty));
                    values.collect()
                })
                .collect()
        });
        DEFAULTS[kind.index()].clone()
    }

    /// The fields of `values`, every field's value in table order; at most 56. The values
    /// that are not light are moved into one allocation of their size.
    pub fn from_values(values: Vec<Value>) -> Fields {
        assert!(
            values.len() <= MAX_FIELDS,
            "a record has at most {MAX_FIELDS} fields"
        );
        let mut fields = Fields::of_len(values.len());
        for (at, value) in values.iter().enumerate() {
            fields.place(at, value);
        }
        let mut stored =
            Vec::with_capacity((fields.bits & ((1 << MAX_FIELDS) - 1)).count_ones() as usize);
        stored.extend(
            (values.into_iter().enumerate())
                .filter_map(|(at, value)| (fields.bits >> at & 1 == 1).then_some(value)),
        );
        fields.values = stored.into_boxed_slice();
        fields
    }

    /// A record of `len` fields (at most 56) whose values are all still to be placed.
    fn of_len(len: usize) -> Fields {
        Fields {
            bits: (len as u64) << MAX_FIELDS,
            ..Fields::default()
        }
    }

    /// Places `value` as field `at`, one not placed yet: notes its light code, or marks
    /// it stored (`true`: the caller puts it after the stored values before it).
    fn place(&mut self, at: usize, value: &Value) -> bool {
        match light_code(self.len(), at, value) {
            Some(code) => {
                self.set_light(at, code);
                false
            }
            None => {
                self.bits |= 1 << at;
                true
            }
        }
    }

    /// Sets each field `at` of `values` to its value, storing it unless it is light: the
    /// stored values move at most twice for them all, where writing each in place may
    /// take an allocation each.
    pub fn set_all<'a>(&mut self, values: impl IntoIterator<Item = (usize, &'a Value)>) {
        let mut stored = std::mem::take(&mut self.values).into_vec();
        for (at, value) in values {
            assert!(
                at < self.len(),
                "field {at} of a record of {} fields",
                self.len()
            );
            let slot = self.slot(at);
            match (self.stored(at), light_code(self.len(), at, value)) {
                (true, None) => stored[slot] = value.clone(),
                (true, Some(code)) => self.unstore(&mut stored, at, slot, code),
                (false, None) => self.store(&mut stored, at, slot, value.clone()),
                (false, Some(code)) => self.set_light(at, code),
            }
        }
        self.values = stored.into_boxed_slice();
    }

    /// Sets field `at` to `value`, storing it unless it is light.
    pub fn set(&mut self, at: usize, value: Value) {
        self.set_all([(at, &value)]);
    }

    /// Stops storing the stored values that are light (written in place since).
    pub fn shrink(&mut self) {
        let mut positions = (0..self.len()).filter(|at| self.stored(*at));
        let light = (self.values.iter()).any(|value| {
            let at = positions.next().unwrap_or(MAX_FIELDS);
            light_code(self.len(), at, value).is_some()
        });
        if !light {
            return;
        }
        let mut stored = std::mem::take(&mut self.values).into_vec();
        let mut slot = 0;
        for at in 0..self.len() {
            if !self.stored(at) {
                continue;
            }
            match light_code(self.len(), at, &stored[slot]) {
                Some(code) => self.unstore(&mut stored, at, slot, code),
                None => slot += 1,
            }
        }
        self.values = stored.into_boxed_slice();
    }

    /// Stores `value` for unstored field `at` at `slot` of `stored` (the values taken out
    /// of the fields while they change).
    fn store(&mut self, stored: &mut Vec<Value>, at: usize, slot: usize, value: Value) {
        stored.insert(slot, value);
        self.bits |= 1 << at;
        self.set_light(at, 0);
    }

    /// Stops storing field `at`, at `slot` of `stored`, whose value is light value `code`.
    fn unstore(&mut self, stored: &mut Vec<Value>, at: usize, slot: usize, code: u64) {
        stored.remove(slot);
        self.bits &= !(1 << at);
        self.set_light(at, code);
    }

    /// Notes `code` as the light value of unstored field `at`.
    fn set_light(&mut self, at: usize, code: u64) {
        if at < LIGHT_FIELDS {
            self.light = self.light & !(3 << (2 * at)) | code << (2 * at);
        }
    }
}

impl FromIterator<Value> for Fields {
    /// The fields of `values`, every field's value in table order; at most 56.
    fn from_iter<I: IntoIterator<Item = Value>>(values: I) -> Fields {
        Fields::from_values(values.into_iter().collect())
    }
}

impl std::ops::Index<usize> for Fields {
    type Output = Value;

    fn index(&self, at: usize) -> &Value {
        match self.get(at) {
            Some(value) => value,
            None => panic!("field {at} of a record of {} fields", self.len()),
        }
    }
}

impl std::ops::IndexMut<usize> for Fields {
    /// The value of field `at` to change in place; an unstored field gets its light value
    /// stored.
    fn index_mut(&mut self, at: usize) -> &mut Value {
        assert!(
            at < self.len(),
            "field {at} of a record of {} fields",
            self.len()
        );
        let slot = self.slot(at);
        if !self.stored(at) {
            let mut stored = std::mem::take(&mut self.values).into_vec();
            self.store(&mut stored, at, slot, self.light_of(at).clone());
            self.values = stored.into_boxed_slice();
        }
        &mut self.values[slot]
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Fields, D::Error> {
        deserializer.deserialize_seq(FieldsVisitor)
    }
}

/// Reads a record's values into [`Fields`]. When the format gives their number first, as
/// the codec's does, each value is placed as it is read, with no vector of every value
/// between (a start-up reads a million records this way).
struct FieldsVisitor;

impl<'de> serde::de::Visitor<'de> for FieldsVisitor {
    type Value = Fields;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a sequence of at most {MAX_FIELDS} values")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Fields, A::Error> {
        use serde::de::Error;
        let too_many = |len: usize| {
            A::Error::custom(format!("a record of {len} fields (at most {MAX_FIELDS})"))
        };
        let Some(len) = seq.size_hint() else {
            let mut values = Vec::new();
            while let Some(value) = seq.next_element()? {
                values.push(value);
                if values.len() > MAX_FIELDS {
                    return Err(too_many(values.len()));
                }
            }
            return Ok(Fields::from_values(values));
        };
        if len > MAX_FIELDS {
            return Err(too_many(len));
        }
        let mut fields = Fields::of_len(len);
        let mut stored = Vec::with_capacity(len);
        for at in 0..len {
            let value: Value =
                (seq.next_element()?).ok_or_else(|| A::Error::invalid_length(at, &self))?;
            if fields.place(at, &value) {
                stored.push(value);
            }
        }
        if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            return Err(A::Error::custom(format!(
                "more than the {len} values announced"
            )));
        }
        fields.values = stored.into_boxed_slice();
        Ok(fields)
    }
}

/// The records of one kind by id: a persistent map, cloned in O(1).
pub type Records = imbl::OrdMap<Id, Arc<Record>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Vec<Value> {
        vec![
            Value::Text("name".into()),
            Value::Null,
            Value::Bool(false),
            Value::Null,
            Value::Ids(Box::new(["a".into()])),
            Value::Null,
        ]
    }

    #[test]
    fn fields_read_every_value_and_store_only_those_not_light() {
        let fields: Fields = values().into_iter().collect();
        assert_eq!(fields.len(), 6);
        assert_eq!(
            fields.values.len(),
            2,
            "the nulls and the false take no room"
        );
        assert_eq!(fields.iter().cloned().collect::<Vec<_>>(), values());
        assert_eq!(fields[3], Value::Null);
        assert_eq!(fields.get(6), None);
        assert_eq!(fields.clone().into_vec(), values());
    }

    #[test]
    fn a_field_written_in_place_is_stored_and_the_others_stay() {
        let mut fields: Fields = values().into_iter().collect();
        fields[3] = Value::Integer(7);
        fields[0] = Value::Null;
        let mut expected = values();
        expected[3] = Value::Integer(7);
        expected[0] = Value::Null;
        assert_eq!(fields.iter().cloned().collect::<Vec<_>>(), expected);
        assert_eq!(fields, expected.into_iter().collect::<Fields>());
    }

    /// Light values other than `Null` take no room among the first fields only; a light
    /// value written in place is stored until the fields shrink.
    #[test]
    fn light_values_take_no_room_among_the_first_fields_and_shrink_back() {
        let lights = [Value::Bool(false), Value::Ids(Box::default())];
        let mut all: Vec<Value> = (0..MAX_FIELDS).map(|at| lights[at % 2].clone()).collect();
        all[1] = Value::Integer(0);
        let mut fields: Fields = all.iter().cloned().collect();
        assert_eq!(fields.values.len(), 1 + MAX_FIELDS - LIGHT_FIELDS);
        assert_eq!(fields.iter().cloned().collect::<Vec<_>>(), all);
        assert_eq!(fields.clone().into_vec(), all);
        fields[3] = Value::Bool(true);
        fields[4] = Value::Ids(Box::default());
        fields[4 + LIGHT_FIELDS] = Value::Null;
        all[3] = Value::Bool(true);
        all[4] = Value::Ids(Box::default());
        all[4 + LIGHT_FIELDS] = Value::Null;
        assert_eq!(fields.iter().cloned().collect::<Vec<_>>(), all);
        assert_eq!(fields.values.len(), 3 + MAX_FIELDS - LIGHT_FIELDS);
        fields.shrink();
        assert_eq!(fields.values.len(), 1 + MAX_FIELDS - LIGHT_FIELDS);
        assert_eq!(fields, all.iter().cloned().collect::<Fields>());
        // Light over stored, heavy over light, light over light, heavy over heavy, and a
        // null past the light fields.
        let sets = [
            (1, Value::Ids(Box::default())),
            (2, Value::Text("x".into())),
            (5, Value::Bool(false)),
            (3, Value::Integer(9)),
            (LIGHT_FIELDS + 2, Value::Null),
        ];
        fields.set_all(sets.iter().map(|(at, value)| (*at, value)));
        for (at, value) in sets {
            all[at] = value;
        }
        assert_eq!(fields.iter().cloned().collect::<Vec<_>>(), all);
        assert_eq!(fields.values.len(), MAX_FIELDS - LIGHT_FIELDS);
        assert_eq!(fields, all.into_iter().collect::<Fields>());
    }

    /// A record of a kind's table keeps its fields' defaults (`"ALL"`, `0`, no reminders)
    /// light too; the same values in a record of no table's length are stored.
    #[test]
    fn a_kinds_defaults_take_no_room() {
        let kind = Kind::Task;
        let fields = Fields::defaults(kind);
        assert!(fields.values.is_empty(), "{fields:?}");
        let defaults: Vec<Value> = (kind.fields().iter())
            .map(|f| Value::default_for(f.ty))
            .collect();
        assert_eq!(fields.clone().into_vec(), defaults);
        let from: Fields = defaults.iter().cloned().collect();
        assert!(from.values.is_empty());
        assert_eq!(from, fields);
        let choice = (kind.fields().iter())
            .position(|f| matches!(f.ty, FieldType::Choice(_)))
            .unwrap();
        let mut written = fields.clone();
        written.set(choice, Value::Text("ANY".into()));
        assert_eq!(written.values.len(), 1);
        written.set(choice, defaults[choice].clone());
        assert!(written.values.is_empty());
        assert_eq!(written, fields);
        let mut longer = defaults.clone();
        longer.push(Value::Null);
        assert!(Kind::of_field_count(longer.len()).is_none());
        let longer: Fields = longer.into_iter().collect();
        assert!(
            !longer.values.is_empty(),
            "no table: only the usual light values"
        );
        assert_eq!(longer.get(choice), Some(&defaults[choice]));
    }

    /// The deletion time is stored as the `Option<i64>` it always was.
    #[test]
    fn a_deletion_time_is_an_option_on_disk() {
        #[derive(Serialize)]
        struct Before<'a>(&'a str, f64, i64, i64, Option<i64>, u64, Vec<Value>);
        let mut record = Record::new(Kind::List, Id::from("l"), 2.0, 7, 3);
        for at in [None, Some(0), Some(-5), Some(1_700_000_000_000)] {
            record.set_deleted_at(at);
            let before = Before("l", 2.0, 7, 7, at, 3, record.fields.clone().into_vec());
            let bytes = bincode::serialize(&record).unwrap();
            assert_eq!(bytes, bincode::serialize(&before).unwrap());
            let read: Record = bincode::deserialize(&bytes).unwrap();
            assert_eq!((read.deleted_at(), read.is_deleted()), (at, at.is_some()));
        }
        let out_of_range = Before("l", 2.0, 7, 7, Some(i64::MIN), 3, Vec::new());
        let bytes = bincode::serialize(&out_of_range).unwrap();
        assert!(bincode::deserialize::<Record>(&bytes).is_err());
    }

    #[test]
    fn fields_are_the_bytes_of_a_slice_of_values_on_disk() {
        let fields: Fields = values().into_iter().collect();
        let slice: Box<[Value]> = values().into_boxed_slice();
        let bytes = bincode::serialize(&fields).unwrap();
        assert_eq!(bytes, bincode::serialize(&slice).unwrap());
        assert_eq!(bincode::deserialize::<Fields>(&bytes).unwrap(), fields);
        let too_many = vec![Value::Null; MAX_FIELDS + 1];
        assert!(bincode::deserialize::<Fields>(&bincode::serialize(&too_many).unwrap()).is_err());
        // A format that does not give the number first reads them all, then places them.
        let json = serde_json::to_string(&fields).unwrap();
        assert_eq!(serde_json::from_str::<Fields>(&json).unwrap(), fields);
        let json = serde_json::to_string(&too_many).unwrap();
        assert!(serde_json::from_str::<Fields>(&json).is_err());
    }
}
