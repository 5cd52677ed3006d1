//! What the kinds' field tables give: each kind's record, bodies, envelope, page and change
//! schemas, and the schemas over all kinds.

use utoipa::openapi::schema::AdditionalProperties;
use utoipa::openapi::{ArrayBuilder, Components, Discriminator, KnownFormat, ObjectBuilder};
use utoipa::openapi::{OneOfBuilder, OpenApi, Ref, RefOr, Schema, SchemaFormat, Type};
use utoipa::Modify;

use super::dto::{id_pattern, nullable_date_time};
use super::routes::add_routes;
use super::{id_string, nullable, of, reference, string, texts};
use crate::model::{kind::FieldType, limits, Kind};

/// What the kinds' field tables give: for each kind its record, create and update
/// schemas, `TaskEnvelope`, `TaskPage` and `TaskChange`, and its six routes; and the
/// schemas over all kinds (`Record`, `Change`, `ChangePage`, `ChangeEvent`, and a live view's `LiveEvent`).
pub(super) struct KindTable;

impl Modify for KindTable {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Components::new);
        let named = |(name, schema): (String, Schema)| (name, RefOr::T(schema));
        components.schemas.extend(shared_schemas().map(named));
        for kind in Kind::ALL {
            let schemas = kind_schemas(kind).map(|(suffix, s)| (schema_name(kind, suffix), s));
            components.schemas.extend(schemas.map(named));
        }
        for kind in Kind::ALL {
            add_routes(openapi, kind);
        }
    }
}

/// Schema names of a kind: `Task`, `TaskCreate`, `TaskUpdate`, `TaskEnvelope`, `TaskPage`,
/// `TaskChange`.
pub(crate) fn schema_name(kind: Kind, suffix: &str) -> String {
    let noun = kind.noun();
    format!("{}{}{suffix}", noun[..1].to_uppercase(), &noun[1..])
}

/// The JSON schema of a field's value, with what the field means ([`texts::field`]).
fn field_schema(ty: FieldType) -> RefOr<Schema> {
    let nullable_of = |ty| of(nullable(ty));
    let read_only = |ty| of(ty).read_only(Some(true));
    let mut schema: Schema = match ty {
        FieldType::Text(max) => nullable_of(Type::String).max_length(Some(max)).into(),
        FieldType::Flag | FieldType::ExclusiveFlag => of(Type::Boolean).into(),
        FieldType::NonNegative => nullable_of(Type::Number).minimum(Some(0)).into(),
        FieldType::Count => {
            let count = nullable_of(Type::Integer).minimum(Some(0));
            count.maximum(Some(limits::MAX_SAFE_INTEGER)).into()
        }
        FieldType::DateTime => nullable_date_time().into(),
        FieldType::Choice(choices) => string().enum_values(Some(choices.iter().copied())).into(),
        FieldType::Id | FieldType::Ref(_) => {
            nullable_of(Type::String).pattern(Some(id_pattern())).into()
        }
        FieldType::Refs(_) | FieldType::Ids | FieldType::Predecessors => ArrayBuilder::new()
            .items(id_string())
            .max_items(Some(limits::MAX_IDS))
            .into(),
        FieldType::Zone => nullable_of(Type::String).into(),
        FieldType::Recurrence => nullable_of(Type::String)
            .max_length(Some(limits::RECURRENCE_MAX_CHARS))
            .into(),
        FieldType::Reminders => reminders().into(),
        FieldType::Stamp => nullable_date_time().read_only(Some(true)).into(),
        FieldType::Tally => read_only(Type::Integer).minimum(Some(0)).into(),
        // Hidden: no schema lists it (see `record_schema`); an object if one did.
        FieldType::Calendar => read_only(Type::Object).into(),
        FieldType::Blocked => read_only(Type::Boolean).into(),
        FieldType::Title => string()
            .min_length(Some(1))
            .max_length(Some(limits::NAME_MAX_CHARS))
            .into(),
        FieldType::Filter => nullable_of(Type::String)
            .max_length(Some(limits::FILTER_MAX_CHARS))
            .into(),
        FieldType::Search => nullable_of(Type::String)
            .max_length(Some(limits::SEARCH_MAX_CHARS))
            .into(),
        FieldType::Order | FieldType::QueryZone => string().into(),
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
    let closed = |name, schema: ObjectBuilder| {
        let closed = Some(AdditionalProperties::FreeForm(false));
        required([(name, schema.into())]).additional_properties(closed)
    };
    let at = string().format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)));
    let minutes = of(Type::Integer).minimum(Some(0));
    let minutes = minutes.maximum(Some(limits::REMINDER_MINUTES_MAX));
    let one = OneOfBuilder::new().item(closed("at", at));
    let one = one.item(closed("minutesBefore", minutes));
    ArrayBuilder::new()
        .items(one)
        .max_items(Some(limits::MAX_REMINDERS))
}

/// An object of `properties`, each required.
fn required<'a>(properties: impl IntoIterator<Item = (&'a str, RefOr<Schema>)>) -> ObjectBuilder {
    let add = |object: ObjectBuilder, (name, schema)| object.property(name, schema).required(name);
    properties.into_iter().fold(ObjectBuilder::new(), add)
}

/// A version counter: `spaceVersion`, `nextSince`.
fn version() -> RefOr<Schema> {
    of(Type::Integer).minimum(Some(0)).into()
}

/// A record as every response shows it: every field present, so every one required.
fn record_schema(kind: Kind) -> Schema {
    let fields = kind.fields().iter().filter(|f| !f.ty.is_hidden());
    let fields = fields.map(|field| (field.name, field_schema(field.ty)));
    let stamp = || nullable_date_time().schema_type(Type::String).into();
    let version_updated_at = of(Type::Integer).minimum(Some(1)).into();
    let properties = [
        ("id", id_string().into()),
        (kind.id_field(), id_string().into()),
        ("spaceId", string().into()),
        ("sortOrder", of(Type::Number).into()),
    ];
    let more = [
        ("createdAt", stamp()),
        ("updatedAt", stamp()),
        ("deletedAt", nullable_date_time().into()),
        ("isDeleted", of(Type::Boolean).into()),
        ("versionUpdatedAt", version_updated_at),
    ];
    let record = required(properties.into_iter().chain(fields).chain(more));
    let text = format!("A {} (docs §3).", kind.noun());
    record.description(Some(text)).into()
}

/// A create (with the own id) or update body: every updatable field optional, nothing else.
fn body_schema(kind: Kind, create: bool) -> Schema {
    let mut body = ObjectBuilder::new()
        .property("spaceId", string())
        .property("sortOrder", of(Type::Number))
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    if create {
        body = body.property(kind.id_field(), id_string());
    }
    // A date in a body may also be a date YYYY-MM-DD: 00:00 of that day in the task's
    // `timeZone` after the write.
    let date = string().format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)));
    let day_or_time = OneOfBuilder::new().item(nullable_date_time()).item(date);
    let day_or_time: Schema = day_or_time.description(Some(texts::DAY_OR_TIME)).into();
    for field in kind.fields().iter().filter(|f| f.ty.is_writable()) {
        let schema = match field.ty {
            FieldType::DateTime => day_or_time.clone().into(),
            ty => field_schema(ty),
        };
        body = body.property(field.name, schema);
    }
    body.into()
}

/// The schemas of a kind, by their suffix: its record, create and update bodies,
/// `TaskEnvelope` (one record), `TaskPage` (a page of the collection) and `TaskChange` (a
/// change feed entry).
fn kind_schemas(kind: Kind) -> [(&'static str, Schema); 6] {
    let record = || reference(&schema_name(kind, ""));
    let records = ArrayBuilder::new().items(record()).into();
    let next_cursor = of(nullable(Type::String)).into();
    let page = [
        ("data", records),
        ("spaceVersion", version()),
        ("nextCursor", next_cursor),
    ];
    let kind_name = string().enum_values(Some([kind.noun()])).into();
    let change = required([("kind", kind_name), ("record", record())]);
    let change = change.description(Some(format!("A changed {} (docs §12).", kind.noun())));
    let envelope = required([("data", record()), ("spaceVersion", version())]);
    [
        ("", record_schema(kind)),
        ("Create", body_schema(kind, true)),
        ("Update", body_schema(kind, false)),
        ("Envelope", envelope.into()),
        ("Page", required(page).into()),
        ("Change", change.into()),
    ]
}

/// The schemas shared by every kind, and those of the routes that are not a collection's.
fn shared_schemas() -> [(String, Schema); 5] {
    let one_of = |suffix| {
        let one = OneOfBuilder::new();
        Kind::ALL.into_iter().fold(one, |one, kind| {
            one.item(reference(&schema_name(kind, suffix)))
        })
    };
    // A batch result's record says nothing of its kind, so `Record` has no discriminator:
    // the own id field each kind requires (`todoId`, `listId`, ...) is what tells them
    // apart, and a record of one kind never matches another's schema (see the tests).
    let record = one_of("").description(Some("A record of any kind."));
    // A feed entry does carry its `kind`, beside (not inside) the record.
    let mapping = Kind::ALL.map(|kind| {
        let name = schema_name(kind, "Change");
        (kind.noun(), Ref::from_schema_name(name).ref_location)
    });
    let change = one_of("Change").discriminator(Some(Discriminator::with_mapping("kind", mapping)));
    let text = "One change of the feed or the stream: `kind` and `record`.";
    let change = change.description(Some(text));
    let changes = ArrayBuilder::new().items(reference("Change")).into();
    let change_page = required([
        ("data", changes),
        ("spaceVersion", version()),
        ("nextSince", version()),
        ("hasMore", of(Type::Boolean).into()),
    ]);
    // One server-sent event of the stream, as its fields: a change (`id` its version), or
    // `overflow` before the stream ends (the client resumes with `Last-Event-ID`).
    let event = string().enum_values(Some(["change", "overflow"]));
    let id = string().pattern(Some("^[0-9]+$"));
    let id = id.description(Some("The change's version (`change` events)."));
    let data = string().content_media_type("application/json");
    let data = data.description(Some("A `Change` (`change`), or `{}` (`overflow`)."));
    let text = "One event of the change stream (docs §12), as its SSE fields.";
    let change_event = ObjectBuilder::new()
        .property("event", event)
        .property("id", id)
        .property("data", data)
        .required("event")
        .required("data")
        .description(Some(text));
    // One server-sent event of a live view (docs §24), as its fields.
    let kinds = ["reset", "enter", "update", "leave", "error"];
    let id = string().pattern(Some("^[0-9]+$"));
    let id = id.description(Some("The version the event shows."));
    let data = string().content_media_type("application/json");
    let data = data.description(Some(
        "`reset`: the view's tasks in order and `spaceVersion`; `enter`/`update`: the task \
         and `after` (the id it follows, or null); `leave`: the task's id; `error`: `code`.",
    ));
    let text = "One event of a live view (docs §24), as its SSE fields.";
    let live_event = ObjectBuilder::new()
        .property("event", string().enum_values(Some(kinds)))
        .property("id", id)
        .property("data", data)
        .required("event")
        .required("data")
        .description(Some(text));
    [
        ("Record", record.into()),
        ("Change", change.into()),
        ("ChangePage", change_page.into()),
        ("ChangeEvent", change_event.into()),
        ("LiveEvent", live_event.into()),
    ]
    .map(|(name, schema)| (name.to_string(), schema))
}
