//! Turning a JSON request body into a validated [`Changes`] for one kind.
//!
//! Runs in the HTTP handler, before the request reaches the space actor, so the actor only
//! sees well-formed values. Checks that need the space's records (references, existence)
//! happen in [`Space`](super::space::Space).

use std::path::PathBuf;

use chrono::{DateTime, Datelike, Utc};
use serde_json::{Map, Value as Json};

use super::directory::{Access, RateLimit, Role};
use super::error::{FieldError, ValidationError};
use super::kind::{FieldType, Kind};
use super::limits::{
    ID_MAX_CHARS, ID_MIN_CHARS, MAX_IDS, MAX_REMINDERS, MAX_TOKEN_SPACES, NAME_MAX_CHARS,
    ORDER_BY_MAX_KEYS, REMINDER_MINUTES_MAX, SEARCH_MAX_CHARS,
};
use super::query::{time_zone, OrderBy, Search, SortKey};
use super::record::Value;
use super::recurrence::{check_reminders, Reminder};
use super::space::Changes;
use super::wall_clock;

pub use super::limits::MAX_SAFE_INTEGER;

/// Fields every record has that no request may set.
pub const READ_ONLY: &[&str] = &[
    "id",
    "createdAt",
    "updatedAt",
    "deletedAt",
    "isDeleted",
    "versionUpdatedAt",
];

/// Whether a request creates a record or updates one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// POST: the own id may be given.
    Create,
    /// PATCH: the own id is rejected.
    Update,
}

/// Whether `s` is id-shaped: 1 to 64 of `A-Z a-z 0-9 _ -`.
pub fn is_id(s: &str) -> bool {
    (ID_MIN_CHARS..=ID_MAX_CHARS).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Validates a create or update body of `kind`, naming every bad field.
pub fn parse_changes(
    kind: Kind,
    mode: Mode,
    body: Map<String, Json>,
) -> Result<Changes, ValidationError> {
    let mut changes = Changes::default();
    let mut errors = Vec::new();
    for (name, json) in body {
        let outcome = if name == "spaceId" {
            match json {
                Json::String(s) => {
                    changes.space_id = Some(s);
                    Ok(())
                }
                _ => Err("must be a string".to_string()),
            }
        } else if name == kind.id_field() {
            match (mode, json) {
                (Mode::Update, _) => Err("is set on create only".to_string()),
                (Mode::Create, Json::String(s)) if is_id(&s) => {
                    changes.id = Some(s.into());
                    Ok(())
                }
                (Mode::Create, _) => Err(id_rule()),
            }
        } else if name == "sortOrder" {
            finite(&json)
                .map(|n| changes.sort_order = Some(n))
                .ok_or_else(|| "must be a finite number".to_string())
        } else if READ_ONLY.contains(&name.as_str()) {
            Err("is read-only".to_string())
        } else if let Some(index) = kind.field_index(&name) {
            let ty = kind.fields()[index].ty;
            let day = match (&json, ty) {
                (Json::String(s), FieldType::DateTime) => wall_clock::parse_date(s),
                _ => None,
            };
            if let Some(day) = day {
                changes.days.push((index, day));
                Ok(())
            } else if ty.is_writable() {
                parse_value(kind, ty, json).map(|v| changes.fields.push((index, v)))
            } else {
                Err("is read-only".to_string())
            }
        } else {
            Err(format!("is not a field of a {}", kind.noun()))
        };
        if let Err(message) = outcome {
            errors.push(FieldError {
                field: name,
                message,
            });
        }
    }
    if mode == Mode::Create {
        // A field that has no default (a view's `name`, docs §24) must be given.
        for (index, f) in kind.fields().iter().enumerate() {
            let given = changes.fields.iter().any(|(i, _)| *i == index);
            let named = errors.iter().any(|e| e.field == f.name);
            if f.ty == FieldType::Title && !given && !named {
                errors.push(FieldError {
                    field: f.name.into(),
                    message: "is required".into(),
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(changes)
    } else {
        Err(ValidationError { errors })
    }
}

/// Validates the body of a user creation: exactly `{"name": "<a name>"}` (see
/// [`NAME_MAX_CHARS`]).
pub fn parse_user_name(body: Map<String, Json>) -> Result<String, ValidationError> {
    only_field(body, "name", is_name, &name_rule(), "user")
}

/// Validates the body of a space's creation (`{"name"}`, required) or update (`{"name"}`
/// or `{}`): a name (see [`NAME_MAX_CHARS`]), no other field.
pub fn parse_space_name(
    body: Map<String, Json>,
    mode: Mode,
) -> Result<Option<String>, ValidationError> {
    if mode == Mode::Update && body.is_empty() {
        return Ok(None);
    }
    only_field(body, "name", is_name, &name_rule(), "space").map(Some)
}

/// Validates the body of a membership: exactly `{"role": "owner" | "editor" | "viewer"}`.
pub fn parse_role(body: Map<String, Json>) -> Result<Role, ValidationError> {
    let role = only_field(
        body,
        "role",
        |s| Role::parse(s).is_some(),
        "must be one of owner, editor, viewer",
        "membership",
    )?;
    Ok(Role::parse(&role).expect("checked"))
}

/// A scoped token's creation body, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    /// Its name.
    pub name: String,
    /// What it may do at most.
    pub access: Access,
    /// The spaces it reaches (duplicates dropped, order kept), or `None` for all.
    pub spaces: Option<Vec<Box<str>>>,
    /// When it expires, milliseconds since the epoch.
    pub expires_at: Option<i64>,
    /// Its own budget (docs §25), if given.
    pub rate_limit: Option<RateLimit>,
}

/// Validates the body of a scoped token's creation at `now`: `name` (see [`NAME_MAX_CHARS`])
/// and `access` (`read` or `write`) required; `spaceIds` 1 to [`MAX_TOKEN_SPACES`] space ids,
/// or null or absent for all; `expiresAt` a date-time after `now`, or null or absent for
/// never; no other field.
pub fn parse_token(
    body: Map<String, Json>,
    now: i64,
    ceiling: Option<RateLimit>,
) -> Result<NewToken, ValidationError> {
    let (mut name, mut access, mut spaces, mut expires_at) = (None, None, None, None);
    let mut rate_limit = None;
    let mut errors = Vec::new();
    fn push(errors: &mut Vec<FieldError>, field: &str, message: &str) {
        errors.push(FieldError {
            field: field.into(),
            message: message.into(),
        })
    }
    for (field, json) in body {
        match (field.as_str(), json) {
            ("name", Json::String(s)) if is_name(&s) => name = Some(s),
            ("name", _) => push(&mut errors, "name", &name_rule()),
            ("access", Json::String(s)) if Access::parse(&s).is_some() => {
                access = Access::parse(&s)
            }
            ("access", _) => push(&mut errors, "access", "must be read or write"),
            ("spaceIds", Json::Null) => {}
            ("spaceIds", Json::Array(items)) => {
                let mut ids: Vec<Box<str>> = Vec::new();
                let strings = items.iter().all(Json::is_string);
                for item in items.iter().filter_map(Json::as_str) {
                    if !ids.iter().any(|id| **id == *item) {
                        ids.push(item.into());
                    }
                }
                if strings && (1..=MAX_TOKEN_SPACES).contains(&ids.len()) {
                    spaces = Some(ids);
                } else {
                    push(&mut errors, "spaceIds", &space_ids_rule());
                }
            }
            ("spaceIds", _) => push(&mut errors, "spaceIds", &space_ids_rule()),
            ("expiresAt", Json::Null) => {}
            ("expiresAt", Json::String(s)) => match parse_time(&s) {
                Some(at) if at > now => expires_at = Some(at),
                Some(_) => push(&mut errors, "expiresAt", "must be in the future"),
                None => push(
                    &mut errors,
                    "expiresAt",
                    "must be an RFC 3339 date-time with an offset",
                ),
            },
            ("expiresAt", _) => push(
                &mut errors,
                "expiresAt",
                "must be an RFC 3339 date-time, or null",
            ),
            ("rateLimit", Json::Null) => {}
            ("rateLimit", json) => match parse_rate_limit(json, ceiling) {
                Ok(limit) => rate_limit = Some(limit),
                Err(message) => push(&mut errors, "rateLimit", &message),
            },
            (other, _) => push(&mut errors, other, "is not a field of a token"),
        }
    }
    if name.is_none() && !errors.iter().any(|e| e.field == "name") {
        push(&mut errors, "name", "is required");
    }
    if access.is_none() && !errors.iter().any(|e| e.field == "access") {
        push(&mut errors, "access", "is required");
    }
    match (name, access) {
        (Some(name), Some(access)) if errors.is_empty() => Ok(NewToken {
            name,
            access,
            spaces,
            expires_at,
            rate_limit,
        }),
        _ => Err(ValidationError { errors }),
    }
}

/// A token's own budget (docs §25): `{"perSecond", "burst"}`, integers of at least 1, each
/// at most `ceiling`'s (the server's, while its budgets are on).
fn parse_rate_limit(json: Json, ceiling: Option<RateLimit>) -> Result<RateLimit, String> {
    let shape = "must be {\"perSecond\": n, \"burst\": n} with integers of at least 1, or null";
    let Json::Object(fields) = json else {
        return Err(shape.into());
    };
    let value = |name: &str| {
        let n = fields.get(name).and_then(|v| match v.as_u64() {
            Some(n) => Some(n),
            // A number read as a float is an integer when it has no fraction.
            None => v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as u64),
        });
        n.filter(|n| (1..=u64::from(u32::MAX)).contains(n))
            .map(|n| n as u32)
    };
    let known = fields.keys().all(|k| k == "perSecond" || k == "burst");
    let (Some(per_second), Some(burst), true) = (value("perSecond"), value("burst"), known) else {
        return Err(shape.into());
    };
    match ceiling {
        Some(max) if per_second > max.per_second || burst > max.burst => Err(format!(
            "must not exceed the server's budget: perSecond at most {}, burst at most {}",
            max.per_second, max.burst
        )),
        _ => Ok(RateLimit { per_second, burst }),
    }
}

fn space_ids_rule() -> String {
    format!("must be an array of 1 to {MAX_TOKEN_SPACES} space ids, or null for every space")
}

/// Whether `s` is a name of a user, space or token: 1 to [`NAME_MAX_CHARS`] characters.
fn is_name(s: &str) -> bool {
    (1..=NAME_MAX_CHARS).contains(&s.chars().count())
}

fn name_rule() -> String {
    format!("must be a string of 1 to {NAME_MAX_CHARS} characters")
}

/// Validates the body of an admin backup: exactly `{"to": "<path>"}` (the path itself is
/// checked by `store::backup::check_target`).
pub fn parse_backup_target(body: Map<String, Json>) -> Result<PathBuf, ValidationError> {
    only_field(body, "to", |_| true, "must be a path", "backup request").map(PathBuf::from)
}

/// The one string field `field` of a body that must hold exactly that field, with a value
/// `valid` accepts (`rule` says what it must be); `noun` names the body in messages.
fn only_field(
    body: Map<String, Json>,
    field: &str,
    valid: fn(&str) -> bool,
    rule: &str,
    noun: &str,
) -> Result<String, ValidationError> {
    let mut value = None;
    let mut errors = Vec::new();
    for (name, json) in body {
        match json {
            Json::String(s) if name == field && valid(&s) => value = Some(s),
            _ => {
                let message = if name == field {
                    rule.to_string()
                } else {
                    format!("is not a field of a {noun}")
                };
                errors.push(FieldError {
                    field: name,
                    message,
                });
            }
        }
    }
    match value {
        Some(value) if errors.is_empty() => Ok(value),
        _ => {
            if value.is_none() && !errors.iter().any(|e| e.field == field) {
                errors.push(FieldError {
                    field: field.into(),
                    message: "is required".into(),
                });
            }
            Err(ValidationError { errors })
        }
    }
}

/// What a view's `orderBy` must be, as messages say it.
fn order_rule() -> String {
    format!(
        "must be up to {ORDER_BY_MAX_KEYS} comma-separated keys among {}, each optionally \
         prefixed by '-'",
        SortKey::ALL.map(SortKey::name).join(", ")
    )
}

/// What a view's `tz` must be, as messages say it.
fn query_zone_rule() -> String {
    "must be an IANA time zone name such as Europe/Paris".into()
}

/// What an id must be, as messages say it.
pub fn id_rule() -> String {
    format!("must be {ID_MIN_CHARS} to {ID_MAX_CHARS} characters of A-Z, a-z, 0-9, '_' and '-'")
}

/// A finite JSON number, with −0 read as 0 so that ordering by it is plain numeric order.
fn finite(json: &Json) -> Option<f64> {
    json.as_f64().filter(|n| n.is_finite()).map(|n| n + 0.0)
}

/// Checks one field's JSON value against its type, in a record of `kind`.
fn parse_value(kind: Kind, ty: FieldType, json: Json) -> Result<Value, String> {
    if json.is_null() {
        return match ty {
            FieldType::Flag | FieldType::ExclusiveFlag | FieldType::Blocked => {
                Err("must be a boolean".into())
            }
            FieldType::Choice(options) => Err(one_of(options)),
            FieldType::Reminders => Err(format!("{}; clear it with []", reminders_rule())),
            FieldType::Refs(_) | FieldType::Ids | FieldType::Predecessors => {
                Err("must be an array; clear it with []".into())
            }
            FieldType::Title => Err(name_rule()),
            FieldType::Order => Err(order_rule()),
            FieldType::QueryZone => Err(query_zone_rule()),
            _ => Ok(Value::Null),
        };
    }
    match ty {
        FieldType::Text(max) => match json {
            Json::String(s) if s.chars().count() <= max => Ok(Value::Text(s.into())),
            _ => Err(format!(
                "must be a string of at most {max} characters, or null"
            )),
        },
        FieldType::Flag | FieldType::ExclusiveFlag | FieldType::Blocked => match json {
            Json::Bool(b) => Ok(Value::Bool(b)),
            _ => Err("must be a boolean".into()),
        },
        FieldType::Zone => match json {
            Json::String(s) => wall_clock::parse_zone(Some(&s)).map(|_| Value::Text(s.into())),
            _ => Err("must be an IANA time zone name such as Europe/Paris, or null".into()),
        },
        FieldType::Recurrence => match json {
            Json::String(s) => Ok(Value::Text(s.into())),
            _ => Err("must be an RFC 5545 RRULE value without the RRULE: prefix \
                 (such as FREQ=WEEKLY;BYDAY=MO,WE), or null"
                .into()),
        },
        FieldType::Reminders => parse_reminders(json).map(|r| Value::Reminders(r.into())),
        FieldType::Title => match json {
            Json::String(s) if is_name(&s) => Ok(Value::Text(s.into())),
            _ => Err(name_rule()),
        },
        // Parsed by the space when written, against its id (docs §24): a bad filter is a
        // `400 invalid_filter` with its position, as on a query.
        FieldType::Filter => match json {
            Json::String(s) => Ok(Value::Text(s.into())),
            _ => Err("must be a filter expression (docs §17) as a string, or null".into()),
        },
        FieldType::Search => match json {
            Json::String(s) if Search::parse(&s).is_ok() => Ok(Value::Text(s.into())),
            _ => Err(format!(
                "must be a string of at most {SEARCH_MAX_CHARS} characters, or null"
            )),
        },
        FieldType::Order => match json {
            Json::String(s) if OrderBy::parse(&s).is_ok() => Ok(Value::Text(s.into())),
            _ => Err(order_rule()),
        },
        FieldType::QueryZone => match json {
            Json::String(s) if time_zone(&s).is_ok() => Ok(Value::Text(s.into())),
            _ => Err(query_zone_rule()),
        },
        FieldType::Stamp | FieldType::Tally | FieldType::Calendar => Err("is read-only".into()),
        FieldType::NonNegative => finite(&json)
            .filter(|n| *n >= 0.0)
            .map(Value::Number)
            .ok_or_else(|| "must be a finite number ≥ 0, or null".into()),
        FieldType::Count => whole_number(&json)
            .map(Value::Integer)
            .ok_or_else(|| format!("must be an integer from 0 to {MAX_SAFE_INTEGER}, or null")),
        FieldType::DateTime => json
            .as_str()
            .and_then(parse_time)
            .map(Value::Time)
            .ok_or_else(|| {
                "must be an RFC 3339 date-time with an offset, years 0001-9999 in UTC, or null"
                    .into()
            }),
        FieldType::Choice(options) => match json {
            Json::String(s) if options.contains(&s.as_str()) => Ok(Value::Text(s.into())),
            _ => Err(one_of(options)),
        },
        FieldType::Id => match json {
            Json::String(s) if is_id(&s) => Ok(Value::Text(s.into())),
            _ => Err(format!("{}, or null", id_rule())),
        },
        FieldType::Ref(target) => match json {
            // A reference to the record's own kind (a task's `parentId`, docs §22) must have
            // the id shape; any other string names no record, which the space refuses.
            Json::String(s) if target != kind || is_id(&s) => Ok(Value::Text(s.into())),
            Json::String(_) => Err(format!("{}, or null", id_rule())),
            _ => Err("must be an id string or null".into()),
        },
        FieldType::Refs(_) | FieldType::Predecessors => parse_ids(json, |_| true),
        FieldType::Ids => parse_ids(json, is_id),
    }
}

/// The value of a read-only field the space counts (`FieldType::Stamp`, `FieldType::Tally`)
/// as an export shows it, for an import that keeps it: `None` for a field of another type.
pub fn parse_kept(ty: FieldType, json: &Json) -> Option<Result<Value, String>> {
    match ty {
        FieldType::Stamp => Some(match json {
            Json::Null => Ok(Value::Null),
            Json::String(s) => parse_time(s)
                .map(Value::Time)
                .ok_or_else(|| "must be an RFC 3339 date-time, or null".into()),
            _ => Err("must be an RFC 3339 date-time, or null".into()),
        }),
        FieldType::Tally => Some(
            whole_number(json)
                .map(Value::Integer)
                .ok_or_else(|| format!("must be an integer from 0 to {MAX_SAFE_INTEGER}")),
        ),
        _ => None,
    }
}

/// What a `reminders` array must be, as messages say it.
fn reminders_rule() -> String {
    format!(
        "must be an array of at most {MAX_REMINDERS} reminders, each {{\"at\": <date-time>}} \
         or {{\"minutesBefore\": <integer 0 to {REMINDER_MINUTES_MAX}>}}"
    )
}

/// A `reminders` array: at most [`MAX_REMINDERS`] objects, each exactly `{"at": <RFC 3339
/// date-time>}` or `{"minutesBefore": <integer>}` (see [`Reminder::minutes_before`]).
fn parse_reminders(json: Json) -> Result<Vec<Reminder>, String> {
    let Json::Array(items) = json else {
        return Err(reminders_rule());
    };
    if items.len() > MAX_REMINDERS {
        return Err(reminders_rule());
    }
    let mut reminders = Vec::with_capacity(items.len());
    for item in items {
        let Json::Object(object) = item else {
            return Err(reminders_rule());
        };
        let mut entries = object.into_iter();
        let reminder = match (entries.next(), entries.next()) {
            (Some((name, value)), None) if name == "at" => value
                .as_str()
                .and_then(parse_time)
                .map(Reminder::At)
                .ok_or_else(|| {
                    "at must be an RFC 3339 date-time with an offset, years 0001-9999 in UTC"
                        .to_string()
                })?,
            (Some((name, value)), None) if name == "minutesBefore" => {
                let minutes = value.as_u64().ok_or_else(|| {
                    format!("minutesBefore must be an integer from 0 to {REMINDER_MINUTES_MAX}")
                })?;
                Reminder::minutes_before(minutes)?
            }
            _ => return Err(reminders_rule()),
        };
        reminders.push(reminder);
    }
    check_reminders(&reminders)?;
    Ok(reminders)
}

fn one_of(options: &[&str]) -> String {
    format!("must be one of {}", options.join(", "))
}

/// An integer in 0..=2^53 − 1, written either as an integer or as a float with no fraction.
fn whole_number(json: &Json) -> Option<u64> {
    if let Some(n) = json.as_u64() {
        return (n <= MAX_SAFE_INTEGER).then_some(n);
    }
    let f = json.as_f64()?;
    (f.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER as f64).contains(&f)).then_some(f as u64)
}

/// An array of strings that each pass `valid`, duplicates dropped with order kept.
fn parse_ids(json: Json, valid: fn(&str) -> bool) -> Result<Value, String> {
    let rule = || format!("must be an array of at most {MAX_IDS} distinct id strings");
    let Json::Array(items) = json else {
        return Err(rule());
    };
    let mut ids: Vec<Box<str>> = Vec::with_capacity(items.len().min(MAX_IDS));
    for item in items {
        match item {
            Json::String(s) if valid(&s) => {
                if !ids.iter().any(|id| **id == *s) {
                    if ids.len() == MAX_IDS {
                        return Err(rule());
                    }
                    ids.push(s.into());
                }
            }
            _ => return Err(rule()),
        }
    }
    Ok(Value::Ids(ids.into()))
}

/// Parses an RFC 3339 date-time with an offset into UTC milliseconds, if its UTC year is
/// within 0001–9999.
pub fn parse_time(s: &str) -> Option<i64> {
    let utc = DateTime::parse_from_rfc3339(s).ok()?.with_timezone(&Utc);
    (1..=9999)
        .contains(&utc.year())
        .then(|| utc.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: Json) -> Map<String, Json> {
        v.as_object().unwrap().clone()
    }

    fn fields_of(err: ValidationError) -> Vec<String> {
        err.errors.into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn a_valid_task_body_becomes_typed_changes() {
        let c = parse_changes(
            Kind::Task,
            Mode::Create,
            body(json!({
                "todoId": "t-1", "name": "Buy milk", "sortOrder": -0.0,
                "dateDue": "2026-11-22T10:15:02.123+01:00", "durationMs": 5.0,
                "tagIds": ["a", "b", "a"], "TodoPredecessorsAllAny": "ANY", "spaceId": "s"
            })),
        )
        .unwrap();
        assert_eq!(c.id.as_deref(), Some("t-1"));
        assert_eq!(c.space_id.as_deref(), Some("s"));
        assert!(c.sort_order.unwrap().is_sign_positive());
        let get = |name| {
            let i = Kind::Task.field_index(name).unwrap();
            c.fields.iter().find(|(j, _)| *j == i).unwrap().1.clone()
        };
        assert_eq!(get("durationMs"), Value::Integer(5));
        assert_eq!(
            get("tagIds"),
            Value::Ids(vec!["a".into(), "b".into()].into_boxed_slice())
        );
        assert_eq!(
            get("dateDue"),
            Value::Time(parse_time("2026-11-22T09:15:02.123Z").unwrap())
        );
    }

    #[test]
    fn every_bad_field_is_named() {
        let err = parse_changes(
            Kind::Task,
            Mode::Update,
            body(json!({
                "todoId": "x", "id": "x", "bogus": 1, "isImportant": null,
                "durationMs": 9007199254740992u64, "durationEstimate": -1,
                "dateDue": "22/11/2026", "name": "ok", "status": "s".repeat(65),
                "TodoPredecessorsAllAny": "SOME", "tagIds": ["bad id"], "sortOrder": null
            })),
        )
        .unwrap_err();
        let mut fields = fields_of(err);
        fields.sort();
        assert_eq!(
            fields,
            [
                "TodoPredecessorsAllAny",
                "bogus",
                "dateDue",
                "durationEstimate",
                "durationMs",
                "id",
                "isImportant",
                "sortOrder",
                "status",
                "tagIds",
                "todoId"
            ]
        );
    }

    #[test]
    fn numbers_beyond_f64_are_a_validation_error_not_bad_json() {
        let map: Map<String, Json> =
            serde_json::from_str(r#"{"sortOrder": 1e400, "durationEstimate": -1e400}"#).unwrap();
        let err = parse_changes(Kind::Task, Mode::Create, map).unwrap_err();
        assert_eq!(fields_of(err), ["durationEstimate", "sortOrder"]);
    }

    #[test]
    fn null_clears_nullable_fields_only() {
        let c = parse_changes(
            Kind::List,
            Mode::Update,
            body(json!({"name": null, "color": null})),
        )
        .unwrap();
        assert!(c.fields.iter().all(|(_, v)| *v == Value::Null));
        let err = parse_changes(
            Kind::Task,
            Mode::Update,
            body(json!({"categoryIds": null, "isDefault": true})),
        )
        .unwrap_err();
        assert_eq!(fields_of(err), ["categoryIds", "isDefault"]);
    }

    #[test]
    fn a_user_needs_a_name_and_nothing_else() {
        assert_eq!(
            parse_user_name(body(json!({"name": "alice"}))).unwrap(),
            "alice"
        );
        let fields = |v| fields_of(parse_user_name(body(v)).unwrap_err());
        assert_eq!(fields(json!({})), ["name"]);
        assert_eq!(fields(json!({"name": ""})), ["name"]);
        assert_eq!(fields(json!({"name": 5, "admin": true})), ["admin", "name"]);
    }

    #[test]
    fn space_membership_and_token_bodies_are_checked_field_by_field() {
        assert_eq!(
            parse_space_name(body(json!({"name": "Team"})), Mode::Create).unwrap(),
            Some("Team".into())
        );
        assert_eq!(
            parse_space_name(body(json!({})), Mode::Update).unwrap(),
            None
        );
        let space = |v, mode| fields_of(parse_space_name(body(v), mode).unwrap_err());
        assert_eq!(space(json!({}), Mode::Create), ["name"]);
        assert_eq!(space(json!({"name": null}), Mode::Update), ["name"]);
        assert_eq!(
            space(json!({"name": "x".repeat(1001)}), Mode::Create),
            ["name"]
        );
        assert_eq!(
            space(json!({"name": "a", "role": "owner"}), Mode::Create),
            ["role"]
        );
        assert_eq!(
            parse_role(body(json!({"role": "viewer"}))).unwrap(),
            Role::Viewer
        );
        assert_eq!(
            fields_of(parse_role(body(json!({"role": "boss"}))).unwrap_err()),
            ["role"]
        );

        let t = parse_token(
            body(
                json!({"name": "ci", "access": "read", "spaceIds": ["b", "a", "b"],
                        "expiresAt": "2030-01-01T00:00:00+01:00"}),
            ),
            0,
            None,
        )
        .unwrap();
        assert_eq!(t.spaces, Some(vec!["b".into(), "a".into()]));
        assert_eq!(t.expires_at, parse_time("2029-12-31T23:00:00Z"));
        let token = |v, now| fields_of(parse_token(body(v), now, None).unwrap_err());
        assert_eq!(token(json!({}), 0), ["name", "access"]);
        assert_eq!(
            token(json!({"name": "n", "access": "admin"}), 0),
            ["access"]
        );
        assert_eq!(
            token(json!({"name": "n", "access": "read", "spaceIds": []}), 0),
            ["spaceIds"]
        );
        assert_eq!(
            token(json!({"name": "n", "access": "read", "spaceIds": [1]}), 0),
            ["spaceIds"]
        );
        let past = json!({"name": "n", "access": "read", "expiresAt": "2020-01-01T00:00:00Z"});
        assert_eq!(
            token(past, parse_time("2021-01-01T00:00:00Z").unwrap()),
            ["expiresAt"]
        );
        assert_eq!(
            token(json!({"name": "n", "access": "read", "token": "x"}), 0),
            ["token"]
        );
    }

    #[test]
    fn a_backup_body_holds_a_target_path_and_nothing_else() {
        assert_eq!(
            parse_backup_target(body(json!({"to": "/srv/b"}))).unwrap(),
            PathBuf::from("/srv/b")
        );
        let fields = |v| fields_of(parse_backup_target(body(v)).unwrap_err());
        assert_eq!(fields(json!({})), ["to"]);
        assert_eq!(fields(json!({"to": 7})), ["to"]);
        assert_eq!(fields(json!({"to": "/b", "x": 1})), ["x"]);
    }

    #[test]
    fn ids_must_be_id_shaped() {
        assert!(is_id("abc_DEF-123"));
        assert!(is_id(&"a".repeat(64)));
        assert!(!is_id(&"a".repeat(65)));
        assert!(!is_id(""));
        assert!(!is_id("a b"));
        assert!(!is_id("é"));
        let err = parse_changes(
            Kind::Context,
            Mode::Create,
            body(json!({"contextId": "a/b"})),
        )
        .unwrap_err();
        assert_eq!(fields_of(err), ["contextId"]);
    }

    #[test]
    fn date_times_must_land_in_years_1_to_9999_utc() {
        assert!(parse_time("0001-01-01T00:00:00Z").is_some());
        assert!(parse_time("9999-12-31T23:59:59.999Z").is_some());
        assert!(parse_time("0001-01-01T00:30:00+01:00").is_none());
        assert!(parse_time("9999-12-31T23:30:00-01:00").is_none());
        assert!(parse_time("2026-11-22T09:15:02").is_none());
    }

    #[test]
    fn arrays_hold_at_most_100_distinct_ids() {
        let ids: Vec<String> = (0..101).map(|i| format!("t{i}")).collect();
        let err =
            parse_changes(Kind::Task, Mode::Create, body(json!({ "tagIds": ids }))).unwrap_err();
        assert_eq!(fields_of(err), ["tagIds"]);
        let mut repeated: Vec<String> = (0..100).map(|i| format!("t{i}")).collect();
        repeated.push("t0".into());
        assert!(parse_changes(
            Kind::Task,
            Mode::Create,
            body(json!({ "tagIds": repeated }))
        )
        .is_ok());
    }
}
