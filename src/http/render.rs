//! Rendering records and envelopes as JSON, straight from the stored records: every field of
//! the kind's table, absent values as `null` (arrays as `[]`), date-times as RFC 3339 UTC
//! with milliseconds.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use chrono::DateTime;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::model::{Item, Kind, Page, Record, Value};

/// A record of `kind` in space `space`, as JSON.
pub struct RecordJson<'a> {
    /// The record's kind.
    pub kind: Kind,
    /// The space it belongs to.
    pub space: &'a str,
    /// The record.
    pub record: &'a Record,
}

/// Writes milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn serialize_time<S: Serializer>(ms: i64, s: S) -> Result<S::Ok, S::Error> {
    match DateTime::from_timestamp_millis(ms) {
        Some(t) => s.collect_str(&t.format("%Y-%m-%dT%H:%M:%S%.3fZ")),
        None => s.serialize_none(),
    }
}

struct Time(i64);

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_time(self.0, s)
    }
}

/// A field value as JSON (the derived `Serialize` of `Value` is the snapshot encoding).
struct ValueJson<'a>(&'a Value);

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => s.serialize_none(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => s.serialize_f64(*n),
            Value::Integer(n) => s.serialize_u64(*n),
            Value::Text(t) => s.serialize_str(t),
            Value::Time(ms) => serialize_time(*ms, s),
            Value::Ids(ids) => s.collect_seq(ids.iter()),
        }
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
        for (field, value) in fields.iter().zip(&r.fields) {
            map.serialize_entry(field.name, &ValueJson(value))?;
        }
        map.serialize_entry("createdAt", &Time(r.created_at))?;
        map.serialize_entry("updatedAt", &Time(r.updated_at))?;
        map.serialize_entry("deletedAt", &r.deleted_at.map(Time))?;
        map.serialize_entry("isDeleted", &r.is_deleted())?;
        map.serialize_entry("versionUpdatedAt", &r.version)?;
        map.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct One<'a> {
    data: RecordJson<'a>,
    space_version: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Many<'a> {
    data: Vec<RecordJson<'a>>,
    space_version: u64,
    next_cursor: Option<&'a str>,
}

/// A JSON response with `status`.
pub fn json<T: Serialize>(status: StatusCode, body: &T) -> HttpResponse {
    match serde_json::to_vec(body) {
        Ok(bytes) => HttpResponse::build(status)
            .content_type("application/json")
            .body(bytes),
        Err(e) => actix_web::ResponseError::error_response(&super::error::ApiError::Internal(
            format!("cannot render JSON: {e}"),
        )),
    }
}

/// `{"data": record, "spaceVersion": n}` with `status`.
pub fn item(status: StatusCode, kind: Kind, space: &str, item: &Item) -> HttpResponse {
    json(
        status,
        &One {
            data: RecordJson {
                kind,
                space,
                record: &item.record,
            },
            space_version: item.version,
        },
    )
}

/// `201 Created` for a new record, with its `Location`.
pub fn created(kind: Kind, space: &str, new: &Item) -> HttpResponse {
    let mut response = item(StatusCode::CREATED, kind, space, new);
    let location = format!("/api/v1/{}/{}", kind.collection(), new.record.id);
    if let Ok(value) = header::HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// `{"data": [...], "spaceVersion": n, "nextCursor": ...}`.
pub fn page(kind: Kind, space: &str, page: &Page) -> HttpResponse {
    json(
        StatusCode::OK,
        &Many {
            data: page
                .records
                .iter()
                .map(|record| RecordJson {
                    kind,
                    space,
                    record,
                })
                .collect(),
            space_version: page.version,
            next_cursor: page.next_cursor.as_deref(),
        },
    )
}
