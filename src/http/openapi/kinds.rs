//! What the kinds' field tables give: each kind's record, bodies, envelope, page and change
//! schemas, and the schemas over all kinds.

use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, Discriminator, KnownFormat, Object, ObjectBuilder,
    OneOfBuilder, SchemaFormat, Type,
};
use utoipa::openapi::{Components, OpenApi, Ref, RefOr, Schema};
use utoipa::Modify;

use super::dto::id_pattern;
use crate::model::kind::FieldType;
use crate::model::limits::{
    MAX_REMINDERS, MAX_SAFE_INTEGER, RECURRENCE_MAX_CHARS, REMINDER_MINUTES_MAX,
};
use crate::model::Kind;

use super::routes::collection_paths;
use super::texts;
use super::{
    date_time, date_time_format, envelope, id_string, ids, nullable, reference, string,
    version_schema,
};

/// What the kinds' field tables give: for each kind its record, create and update
/// schemas, `TaskEnvelope`, `TaskPage` and `TaskChange`, and its five routes; and the
/// schemas over all kinds (`Record`, `Change`, `ChangePage`, `ChangeEvent`).
pub(super) struct KindTable;

impl Modify for KindTable {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Components::new);
        for (name, schema) in shared_schemas() {
            components.schemas.insert(name, schema);
        }
        for kind in Kind::ALL {
            let schemas = [
                (schema_name(kind, ""), record_schema(kind).into()),
                (schema_name(kind, "Create"), body_schema(kind, true).into()),
                (schema_name(kind, "Update"), body_schema(kind, false).into()),
            ];
            for (name, schema) in schemas.into_iter().chain(kind_schemas(kind)) {
                components.schemas.insert(name, RefOr::T(schema));
            }
            for (path, item) in collection_paths(kind) {
                openapi.paths.paths.insert(path, item);
            }
        }
    }
}

/// A date field in a request body: a date-time, a date `YYYY-MM-DD` (00:00 of that day in
/// the task's `timeZone` after the write), or null.
fn day_or_time() -> RefOr<Schema> {
    let schema: Schema = OneOfBuilder::new()
        .item(date_time())
        .item(string().format(Some(SchemaFormat::KnownFormat(KnownFormat::Date))))
        .description(Some(
            "An RFC 3339 date-time, or a date YYYY-MM-DD meaning 00:00 of that day in the \
             task's timeZone after the write (docs §18), or null. On an all-day task both \
             dates are stored as 00:00 of their day in timeZone.",
        ))
        .into();
    schema.into()
}

/// The JSON schema of a field's value, with what the field means ([`texts::field`]).
fn field_schema(ty: FieldType) -> RefOr<Schema> {
    let nullable_of = |ty| ObjectBuilder::new().schema_type(nullable(ty));
    let read_only = |ty| ObjectBuilder::new().schema_type(ty).read_only(Some(true));
    let mut schema: Schema = match ty {
        FieldType::Text(max) => nullable_of(Type::String).max_length(Some(max)).into(),
        FieldType::Flag | FieldType::ExclusiveFlag => {
            ObjectBuilder::new().schema_type(Type::Boolean).into()
        }
        FieldType::NonNegative => nullable_of(Type::Number).minimum(Some(0)).into(),
        FieldType::Count => nullable_of(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(MAX_SAFE_INTEGER))
            .into(),
        FieldType::DateTime => date_time().into(),
        FieldType::Choice(choices) => string().enum_values(Some(choices.iter().copied())).into(),
        FieldType::Id | FieldType::Ref(_) => {
            nullable_of(Type::String).pattern(Some(id_pattern())).into()
        }
        FieldType::Refs(_) | FieldType::Ids | FieldType::Predecessors => ids().into(),
        FieldType::Zone => nullable_of(Type::String).into(),
        FieldType::Recurrence => nullable_of(Type::String)
            .max_length(Some(RECURRENCE_MAX_CHARS))
            .into(),
        FieldType::Reminders => reminders().into(),
        FieldType::Stamp => date_time().read_only(Some(true)).into(),
        FieldType::Tally => read_only(Type::Integer).minimum(Some(0)).into(),
        // Hidden: no schema lists it (see `record_schema`); an object if one did.
        FieldType::Calendar => read_only(Type::Object).into(),
        FieldType::Blocked => read_only(Type::Boolean).into(),
    };
    match &mut schema {
        Schema::Object(object) => object.description = texts::field(ty),
        Schema::Array(array) => array.description = texts::field(ty),
        _ => {}
    }
    schema.into()
}

/// `reminders`: at an instant, or minutes before `dateDue` (docs §18).
fn reminders() -> ArrayBuilder {
    let closed = |name: &str, schema: ObjectBuilder| {
        ObjectBuilder::new()
            .property(name, schema)
            .required(name)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
    };
    let minutes = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .maximum(Some(REMINDER_MINUTES_MAX));
    ArrayBuilder::new()
        .items(
            OneOfBuilder::new()
                .item(closed("at", string().format(Some(date_time_format()))))
                .item(closed("minutesBefore", minutes)),
        )
        .max_items(Some(MAX_REMINDERS))
}

/// Schema names of a kind: `Task`, `TaskCreate`, `TaskUpdate`, `TaskEnvelope`, `TaskPage`,
/// `TaskChange`.
pub(crate) fn schema_name(kind: Kind, suffix: &str) -> String {
    let noun = kind.noun();
    format!("{}{}{suffix}", noun[..1].to_uppercase(), &noun[1..])
}

/// A record as every response shows it: every field present.
fn record_schema(kind: Kind) -> Object {
    let fields = kind.fields().iter().filter(|f| !f.ty.is_hidden());
    let properties: Vec<(&str, RefOr<Schema>)> = [
        ("id", id_string().into()),
        (kind.id_field(), id_string().into()),
        ("spaceId", string().into()),
        (
            "sortOrder",
            ObjectBuilder::new().schema_type(Type::Number).into(),
        ),
    ]
    .into_iter()
    .chain(fields.map(|field| (field.name, field_schema(field.ty))))
    .chain([
        ("createdAt", date_time().schema_type(Type::String).into()),
        ("updatedAt", date_time().schema_type(Type::String).into()),
        ("deletedAt", date_time().into()),
        (
            "isDeleted",
            ObjectBuilder::new().schema_type(Type::Boolean).into(),
        ),
        (
            "versionUpdatedAt",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1))
                .into(),
        ),
    ])
    .collect();
    // Every property is required: a response shows every field.
    properties
        .into_iter()
        .fold(ObjectBuilder::new(), |record, (name, schema)| {
            record.property(name, schema).required(name)
        })
        .description(Some(format!("A {} (docs §3).", kind.noun())))
        .build()
}

/// A create (with the own id) or update body: every updatable field optional, nothing else.
fn body_schema(kind: Kind, create: bool) -> Object {
    let mut body = ObjectBuilder::new()
        .property("spaceId", string())
        .property("sortOrder", ObjectBuilder::new().schema_type(Type::Number))
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    if create {
        body = body.property(kind.id_field(), id_string());
    }
    for field in kind.fields().iter().filter(|f| f.ty.is_writable()) {
        let schema = match field.ty {
            FieldType::DateTime => day_or_time(),
            ty => field_schema(ty),
        };
        body = body.property(field.name, schema);
    }
    body.build()
}

/// The schemas one kind adds besides its record and bodies: `TaskEnvelope` (one record),
/// `TaskPage` (a page of the collection) and `TaskChange` (a change feed entry).
fn kind_schemas(kind: Kind) -> [(String, Schema); 3] {
    let record = || reference(&schema_name(kind, ""));
    let change = ObjectBuilder::new()
        .property("kind", string().enum_values(Some([kind.noun()])))
        .property("record", record())
        .required("kind")
        .required("record")
        .description(Some(format!("A changed {} (docs §12).", kind.noun())));
    let page = envelope(
        ArrayBuilder::new().items(record()),
        &[
            ("spaceVersion", version_schema()),
            (
                "nextCursor",
                ObjectBuilder::new()
                    .schema_type(nullable(Type::String))
                    .into(),
            ),
        ],
    );
    [
        (
            schema_name(kind, "Envelope"),
            envelope(record(), &[("spaceVersion", version_schema())]),
        ),
        (schema_name(kind, "Page"), page),
        (schema_name(kind, "Change"), change.into()),
    ]
}

/// The schemas shared by every kind, and those of the routes that are not a collection's.
fn shared_schemas() -> Vec<(String, RefOr<Schema>)> {
    // A batch result's record says nothing of its kind, so `Record` has no discriminator:
    // the own id field each kind requires (`todoId`, `listId`, ...) is what tells them
    // apart, and a record of one kind never matches another's schema (see the tests).
    let record = Kind::ALL
        .into_iter()
        .fold(OneOfBuilder::new(), |one, kind| {
            one.item(reference(&schema_name(kind, "")))
        })
        .description(Some("A record of any kind."));
    // A feed entry does carry its `kind`, beside (not inside) the record.
    let change = Kind::ALL
        .into_iter()
        .fold(OneOfBuilder::new(), |one, kind| {
            one.item(reference(&schema_name(kind, "Change")))
        })
        .discriminator(Some(Discriminator::with_mapping(
            "kind",
            Kind::ALL.map(|kind| {
                let name = schema_name(kind, "Change");
                (kind.noun(), Ref::from_schema_name(name).ref_location)
            }),
        )))
        .description(Some(
            "One change of the feed or the stream: `kind` and `record`.",
        ));
    let change_page = envelope(
        ArrayBuilder::new().items(reference("Change")),
        &[
            ("spaceVersion", version_schema()),
            ("nextSince", version_schema()),
            (
                "hasMore",
                ObjectBuilder::new().schema_type(Type::Boolean).into(),
            ),
        ],
    );
    // One server-sent event of the stream, as its fields: a change (`id` its version), or
    // `overflow` before the stream ends (the client resumes with `Last-Event-ID`).
    let change_event = ObjectBuilder::new()
        .property("event", string().enum_values(Some(["change", "overflow"])))
        .property(
            "id",
            string()
                .pattern(Some("^[0-9]+$"))
                .description(Some("The change's version (`change` events).")),
        )
        .property(
            "data",
            string()
                .content_media_type("application/json")
                .description(Some("A `Change` (`change`), or `{}` (`overflow`).")),
        )
        .required("event")
        .required("data")
        .description(Some(
            "One event of the change stream (docs §12), as its SSE fields.",
        ));
    vec![
        ("Record".to_string(), RefOr::T(record.into())),
        ("Change".to_string(), RefOr::T(change.into())),
        ("ChangePage".to_string(), RefOr::T(change_page)),
        ("ChangeEvent".to_string(), RefOr::T(change_event.into())),
    ]
}
