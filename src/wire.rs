//! The JSON form of records (docs §3), straight from the stored records: every field of
//! the kind's table that is not hidden, absent values as `null` (arrays as `[]`), date-times
//! as RFC 3339 UTC with milliseconds. What the JSON API answers, and what the change feed,
//! the change stream, webhook deliveries and `taskd export` carry: the fronts share it, and
//! it depends on the model only.
//!
//! # The one renderer
//! [`RecordJson::write`] and [`ValueJson::write`] append a record or a value to a byte
//! buffer, with no intermediate value and no serde: a field's `,"name":` (with `null` for a
//! field without a value) is one copy from a table made once from the kind's field table,
//! strings are escaped with a fast path over runs that need no escape, integers are
//! written through `itoa` and numbers through `zmij`; nothing is kept per record. The
//! bytes are exactly those `serde_json` writes for the same data (its escapes, `\u00XX` in
//! lowercase hex for the other control characters, its shortest float form, `null` for a
//! number that is not finite; the unit tests hold the two side by side), so an answer is
//! the same whichever way it was made.
//!
//! The answers on the hot path (an item, a page, a write's answer, a batch and a revert,
//! the feed, the change stream and webhook deliveries) append the record to the answer's
//! buffer themselves. Inside a
//! serde-derived answer a [`RecordJson`] or [`ValueJson`] serializes through the same
//! renderer, handing serde_json the bytes as a raw value (serde_json checks them once more);
//! only serde_json's serializer can take them.

use std::sync::LazyLock;

use serde::ser::{Error as _, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::model::kind::Field;
use crate::model::recurrence::Reminder;
use crate::model::time::{rfc3339_millis, Stamp as TimeText};
use crate::model::{Kind, Record, Value};

/// A time in milliseconds since the Epoch, written as RFC 3339 UTC with milliseconds
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`), or null when out of range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp(pub i64);

impl Stamp {
    /// Appends the time as a JSON string, or `null`, to `out`.
    pub(crate) fn write(self, out: &mut Vec<u8>) {
        match rfc3339_millis(self.0) {
            // Digits and separators only: nothing to escape.
            Some(TimeText::Fixed(text)) => {
                out.reserve(text.len() + 2);
                out.push(b'"');
                out.extend_from_slice(&text);
                out.push(b'"');
            }
            Some(other) => string(out, &other),
            None => out.extend_from_slice(b"null"),
        }
    }
}

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

impl RecordJson<'_> {
    /// Appends the record's JSON object to `out`: `id`, the kind's id field, `spaceId`,
    /// `sortOrder`, the fields of [`Kind::fields`] that are not hidden in table order, then
    /// `createdAt`, `updatedAt`, `deletedAt`, `isDeleted` and `versionUpdatedAt`.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let r = self.record;
        out.extend_from_slice(b"{\"id\":");
        string(out, &r.id);
        out.extend_from_slice(b",\"");
        out.extend_from_slice(self.kind.id_field().as_bytes());
        out.extend_from_slice(b"\":");
        string(out, &r.id);
        out.extend_from_slice(b",\"spaceId\":");
        string(out, self.space);
        out.extend_from_slice(b",\"sortOrder\":");
        number(out, r.sort_order);
        for (key, value) in KEYS[self.kind.index()].iter().zip(r.fields.iter()) {
            match (key, value) {
                (None, _) => {}
                (Some(key), Value::Null) => out.extend_from_slice(key),
                (Some(key), value) => {
                    out.extend_from_slice(&key[..key.len() - NULL.len()]);
                    ValueJson(value).write(out);
                }
            }
        }
        out.extend_from_slice(b",\"createdAt\":");
        Stamp(r.created_at).write(out);
        out.extend_from_slice(b",\"updatedAt\":");
        Stamp(r.updated_at).write(out);
        out.extend_from_slice(b",\"deletedAt\":");
        match r.deleted_at() {
            Some(at) => Stamp(at).write(out),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(match r.is_deleted() {
            true => b",\"isDeleted\":true,\"versionUpdatedAt\":",
            false => b",\"isDeleted\":false,\"versionUpdatedAt\":",
        });
        unsigned(out, r.version);
        out.push(b'}');
    }
}

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        raw(s, |out| self.write(out))
    }
}

/// A field value as JSON (the derived `Serialize` of `Value` is the snapshot encoding).
pub(crate) struct ValueJson<'a>(pub &'a Value);

impl ValueJson<'_> {
    /// Appends the value's JSON to `out`: a reminder as `{"at": <date-time>}` or
    /// `{"minutesBefore": n}`, calendar data (never shown in a record: its field is hidden)
    /// as its derived form.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self.0 {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(true) => out.extend_from_slice(b"true"),
            Value::Bool(false) => out.extend_from_slice(b"false"),
            Value::Number(n) => number(out, *n),
            Value::Integer(n) => unsigned(out, *n),
            Value::Text(t) => string(out, t),
            Value::Time(ms) => Stamp(*ms).write(out),
            Value::Ids(ids) => {
                out.push(b'[');
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    string(out, id);
                }
                out.push(b']');
            }
            Value::Reminders(reminders) => {
                out.push(b'[');
                for (i, reminder) in reminders.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    match *reminder {
                        Reminder::At(ms) => {
                            out.extend_from_slice(b"{\"at\":");
                            Stamp(ms).write(out);
                        }
                        Reminder::MinutesBefore(minutes) => {
                            out.extend_from_slice(b"{\"minutesBefore\":");
                            unsigned(out, minutes.into());
                        }
                    }
                    out.push(b'}');
                }
                out.push(b']');
            }
            Value::Calendar(kept) => derived(out, kept),
            Value::Sent(sent) => derived(out, &sent.calendar),
        }
    }
}

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        raw(s, |out| self.write(out))
    }
}

/// Serializes what `write` appends to an empty buffer as a raw JSON value.
fn raw<S: Serializer>(s: S, write: impl FnOnce(&mut Vec<u8>)) -> Result<S::Ok, S::Error> {
    let mut out = Vec::with_capacity(512);
    write(&mut out);
    let text = String::from_utf8(out).map_err(S::Error::custom)?;
    RawValue::from_string(text)
        .map_err(S::Error::custom)?
        .serialize(s)
}

/// Appends the derived serde form of `value` (calendar data).
fn derived<T: Serialize>(out: &mut Vec<u8>, value: &T) {
    // Writing into a `Vec` fails only on a map with keys that are not strings, which the
    // derived forms have none of.
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

/// JSON null.
const NULL: &[u8] = b"null";

/// The bytes before the values of a kind's fields, by position in [`Kind::fields`]:
/// `,"name":null`, of which a field with a value takes all but the `null`; `None` for a
/// hidden field. The names are plain ASCII that needs no escape (the unit tests check
/// every one).
type Keys = Box<[Option<Box<[u8]>>]>;

/// Every kind's [`Keys`], by [`Kind::index`]: made once from the field tables, so that a
/// field costs one copy.
static KEYS: LazyLock<[Keys; Kind::ALL.len()]> = LazyLock::new(|| {
    Kind::ALL.map(|kind| {
        let key = |field: &Field| {
            let key = [b",\"", field.name.as_bytes(), b"\":", NULL].concat();
            (!field.ty.is_hidden()).then(|| key.into_boxed_slice())
        };
        kind.fields().iter().map(key).collect()
    })
});

/// Appends `n` as a JSON integer.
pub(crate) fn unsigned(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends `n` as serde_json writes an `f64`: its shortest form that reads back as `n`
/// (`zmij`, as serde_json uses), `null` when it is not finite.
fn number(out: &mut Vec<u8>, n: f64) {
    if n.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(n).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Appends `s` as a JSON string, escaped as serde_json escapes: `\"`, `\\`, `\b`, `\f`,
/// `\n`, `\r`, `\t`, the other control characters below U+0020 as `\u00XX` (lowercase
/// hex), every other character as it is.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    while let Some(at) = next_escape(bytes, start) {
        out.extend_from_slice(&bytes[start..at]);
        escape(out, bytes[at]);
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The position of the first byte at or after `from` that a JSON string escapes. Eight
/// bytes at a time while none does ([`needs_escape`]); fewer than eight left are checked as
/// the last eight bytes, when those are all at or after `from`.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        if needs_escape(chunk) {
            break;
        }
        at += 8;
    }
    let last = bytes.len().saturating_sub(8);
    if (from..at).contains(&last) && !needs_escape(&bytes[last..]) {
        return None;
    }
    bytes[at..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .map(|i| at + i)
}

/// Whether one of the eight bytes of `chunk` is below 0x20, a `"` or a `\`: the classic
/// "has a zero byte" and "has a byte less than n" bit tricks, exact as yes-or-no answers.
fn needs_escape(chunk: &[u8]) -> bool {
    const ONES: u64 = u64::MAX / 255;
    const HIGHS: u64 = ONES * 0x80;
    let mut word = [0; 8];
    word.copy_from_slice(chunk);
    let w = u64::from_le_bytes(word);
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS != 0
}

/// Appends the escape of `byte`, one that [`next_escape`] stops at.
fn escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(byte >> 4)],
            HEX[usize::from(byte & 0xf)],
        ]),
    }
}

#[cfg(test)]
mod tests {
    use serde::ser::SerializeMap;

    use super::*;
    use crate::model::record::Fields;
    use crate::model::vtodo::Calendar;

    /// The serde rendering records had before this renderer: the oracle its bytes must
    /// equal.
    struct Oracle<'a>(RecordJson<'a>);

    struct OracleValue<'a>(&'a Value);

    impl Serialize for OracleValue<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self.0 {
                Value::Null => s.serialize_none(),
                Value::Bool(b) => s.serialize_bool(*b),
                Value::Number(n) => s.serialize_f64(*n),
                Value::Integer(n) => s.serialize_u64(*n),
                Value::Text(t) => s.serialize_str(t),
                Value::Time(ms) => Stamp(*ms).serialize(s),
                Value::Ids(ids) => s.collect_seq(ids.iter()),
                Value::Reminders(reminders) => s.collect_seq(reminders.iter().map(OracleReminder)),
                Value::Calendar(kept) => kept.serialize(s),
                Value::Sent(sent) => sent.calendar.serialize(s),
            }
        }
    }

    struct OracleReminder<'a>(&'a Reminder);

    impl Serialize for OracleReminder<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(1))?;
            match *self.0 {
                Reminder::At(ms) => map.serialize_entry("at", &Stamp(ms))?,
                Reminder::MinutesBefore(minutes) => {
                    map.serialize_entry("minutesBefore", &minutes)?
                }
            }
            map.end()
        }
    }

    impl Serialize for Oracle<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let (kind, space, r) = (self.0.kind, self.0.space, self.0.record);
            let mut map = s.serialize_map(Some(kind.fields().len() + 10))?;
            map.serialize_entry("id", &*r.id)?;
            map.serialize_entry(kind.id_field(), &*r.id)?;
            map.serialize_entry("spaceId", space)?;
            map.serialize_entry("sortOrder", &r.sort_order)?;
            for (field, value) in kind.fields().iter().zip(r.fields.iter()) {
                if !field.ty.is_hidden() {
                    map.serialize_entry(field.name, &OracleValue(value))?;
                }
            }
            map.serialize_entry("createdAt", &Stamp(r.created_at))?;
            map.serialize_entry("updatedAt", &Stamp(r.updated_at))?;
            map.serialize_entry("deletedAt", &r.deleted_at().map(Stamp))?;
            map.serialize_entry("isDeleted", &r.is_deleted())?;
            map.serialize_entry("versionUpdatedAt", &r.version)?;
            map.end()
        }
    }

    /// A small deterministic generator (xorshift64*), so a failure repeats.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        /// A string of up to 40 characters drawn from plain ASCII, every byte a JSON
        /// string escapes, 0x7f, and characters of two, three and four bytes.
        fn text(&mut self) -> Box<str> {
            const ODD: &[char] = &[
                '"',
                '\\',
                '/',
                '\u{0}',
                '\u{1}',
                '\u{8}',
                '\u{9}',
                '\u{a}',
                '\u{b}',
                '\u{c}',
                '\u{d}',
                '\u{1f}',
                '\u{7f}',
                'é',
                'ß',
                '€',
                '\u{2028}',
                '😀',
                '\u{10ffff}',
            ];
            let len = self.below(41);
            (0..len)
                .map(|_| match self.below(4) {
                    0 => ODD[self.below(ODD.len() as u64) as usize],
                    _ => char::from(b' ' + self.below(95) as u8),
                })
                .collect::<String>()
                .into()
        }

        fn float(&mut self) -> f64 {
            match self.below(6) {
                0 => f64::from_bits(self.next()),
                1 => (self.next() as i64 as f64) / 1e3,
                2 => [0.0, -0.0, 1.0, 0.1, 1e16, 1e-7, 5e-324, f64::MAX, f64::MIN]
                    [self.below(9) as usize],
                3 => self.below(1 << 53) as f64,
                4 => -(self.below(1000) as f64) * 0.25,
                _ => f64::from_bits(self.next()) * 1e-300,
            }
        }

        fn time(&mut self) -> i64 {
            match self.below(4) {
                0 => self.next() as i64,
                1 => self.below(253_402_300_800_000) as i64,
                2 => -(self.below(62_167_219_200_000 * 2) as i64),
                _ => 1_700_000_000_000 + self.below(1 << 40) as i64,
            }
        }

        fn value(&mut self) -> Value {
            match self.below(11) {
                0 => Value::Null,
                1 => Value::Bool(self.below(2) == 0),
                2 => Value::Number(self.float()),
                3 => Value::Integer(self.below(1 << 53)),
                4 | 5 => Value::Text(self.text()),
                6 => Value::Time(self.time()),
                7 => Value::Ids((0..self.below(4)).map(|_| self.text()).collect()),
                8 => Value::Reminders(
                    (0..self.below(4))
                        .map(|_| match self.below(2) {
                            0 => Reminder::At(self.time()),
                            _ => Reminder::MinutesBefore(self.below(525_601) as u32),
                        })
                        .collect(),
                ),
                9 => Value::Calendar(Box::new(Calendar {
                    uid: Some(self.text().into()),
                    object: None,
                    priority: Some(self.below(10) as u8),
                    categories: Box::new([self.text()]),
                    kept: self.text(),
                })),
                _ => Value::Integer(self.next()),
            }
        }

        fn record(&mut self, kind: Kind) -> Record {
            let mut record = Record::new(kind, self.text().into(), self.float(), 0, 0);
            record.created_at = self.time();
            record.updated_at = self.time();
            record.set_deleted_at((self.below(2) == 0).then(|| self.time()));
            record.version = self.next();
            record.fields = (0..kind.fields().len())
                .map(|_| self.value())
                .collect::<Fields>();
            record
        }
    }

    #[test]
    fn records_render_byte_for_byte_as_serde_json_renders_them() {
        let mut generate = Gen(0x9e37_79b9_7f4a_7c15);
        for round in 0..3000 {
            let kind = Kind::ALL[round % Kind::ALL.len()];
            let record = generate.record(kind);
            let space = generate.text();
            let json = RecordJson {
                kind,
                space: &space,
                record: &record,
            };
            let mut out = Vec::new();
            json.write(&mut out);
            let expected = serde_json::to_vec(&Oracle(json)).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(expected).unwrap(),
                "round {round}: {record:?}"
            );
        }
    }

    #[test]
    fn values_render_byte_for_byte_as_serde_json_renders_them() {
        let mut generate = Gen(42);
        for _ in 0..20_000 {
            let value = generate.value();
            let mut out = Vec::new();
            ValueJson(&value).write(&mut out);
            let expected = serde_json::to_vec(&OracleValue(&value)).unwrap();
            assert_eq!(out, expected, "{value:?}");
        }
        for n in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut out = Vec::new();
            ValueJson(&Value::Number(n)).write(&mut out);
            assert_eq!(out, b"null");
        }
    }

    #[test]
    fn every_byte_escapes_as_serde_json_escapes_it_at_every_offset() {
        for byte in 0..=0x7f_u8 {
            for at in 0..17 {
                let text: String = "a".repeat(at) + &char::from(byte).to_string() + "bcdefghij";
                let mut out = Vec::new();
                string(&mut out, &text);
                assert_eq!(out, serde_json::to_vec(&text).unwrap(), "{byte:#x} at {at}");
            }
        }
    }

    #[test]
    fn inside_serde_a_record_is_the_same_bytes() {
        let record = Gen(7).record(Kind::Task);
        let json = RecordJson {
            kind: Kind::Task,
            space: "s",
            record: &record,
        };
        let mut out = b"[".to_vec();
        json.write(&mut out);
        out.push(b']');
        assert_eq!(serde_json::to_vec(&[json]).unwrap(), out);
    }

    #[test]
    fn field_names_need_no_escape() {
        for kind in Kind::ALL {
            for name in kind
                .fields()
                .iter()
                .map(|f| f.name)
                .chain([kind.id_field()])
            {
                assert_eq!(serde_json::to_string(name).unwrap(), format!("\"{name}\""));
            }
        }
    }
}
