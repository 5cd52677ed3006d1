//! The OpenAPI 3.1 document of the API, served at `GET /api/v1/openapi.json` (no auth) and
//! rendered by Swagger UI at `/docs`.
//!
//! Most of it is derived: [`ApiDoc`] lists the handlers, whose `#[utoipa::path]` gives each
//! operation's parameters, bodies and every status it answers, and the wire types of
//! [`super::dto`], whose `ToSchema` gives their schemas. What is here is what cannot be
//! derived:
//!
//! - the records of the five kinds, their create and update bodies, envelopes, pages and
//!   change entries, and the five collections' routes: one set of generic handlers serves
//!   every kind, so [`KindTable`] generates them from the kinds' field tables in
//!   [`crate::model::kind`] (a record's fields, their types and limits, the list filters);
//! - the problem+json responses ([`problems`]), whose texts name the limits of
//!   [`crate::model::limits`];
//! - the bearer scheme, and the route of this document itself, which Swagger UI serves
//!   ([`Service`]).
//!
//! Every response body is a named component referenced with `$ref` (`TaskEnvelope`,
//! `TaskPage`, `ChangePage`, `BatchResponse`, ...), so a generated client has one model per
//! envelope rather than one per operation; item paths name their id as the interface does
//! (`/api/v1/tasks/{todoId}`).

use std::sync::LazyLock;

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::PathItem;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItemBuilder,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, Discriminator, KnownFormat, Object, ObjectBuilder,
    OneOfBuilder, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Components, OpenApi, Ref, RefOr, Required, Schema};
use utoipa::{Modify, OpenApi as _};

use super::dto::{self, id_pattern, nullable_date_time};
use super::{batch, calendar, handlers, spaces, stream, tokens, webhooks};
use crate::model::kind::FieldType;
use crate::model::limits::{
    thousands, EDGE_BUDGET, FILTER_MAX_CHARS, FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH,
    MAX_BODY_BYTES, MAX_IDS, MAX_INVITATIONS_PER_INVITEE, MAX_INVITATIONS_SENT, MAX_MEMBERS,
    MAX_REMINDERS, MAX_SAFE_INTEGER, MAX_SPACES_PER_USER, MAX_STREAMS_PER_USER, MAX_TOKENS,
    ORDER_BY_MAX_KEYS, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, RECURRENCE_COUNT_MAX,
    RECURRENCE_MAX_CHARS, REMINDER_MINUTES_MAX, SEARCH_MAX_CHARS,
};
use crate::model::query::SortKey;
use crate::model::Kind;

/// The document, built once.
pub(crate) static DOCUMENT: LazyLock<OpenApi> = LazyLock::new(ApiDoc::openapi);

/// The document: the annotated handlers, the wire types, and the generated parts.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "taskd",
        description = "Task Management Service Interface v1: tasks, lists, schedules, categories and contexts in spaces with a version counter."
    ),
    paths(
        handlers::healthz,
        handlers::healthz_primary,
        super::metrics,
        handlers::me,
        handlers::create_user,
        tokens::reset_primary,
        handlers::backup,
        handlers::changes,
        handlers::occurrences,
        stream::stream,
        batch::batch,
        calendar::export,
        calendar::import,
        spaces::list,
        spaces::create,
        spaces::get,
        spaces::update,
        spaces::delete,
        spaces::members,
        spaces::put_member,
        spaces::remove_member,
        spaces::accept,
        spaces::invitations,
        tokens::list,
        tokens::create,
        tokens::get,
        tokens::revoke,
        webhooks::create,
        webhooks::list,
        webhooks::get,
        webhooks::update,
        webhooks::delete,
        webhooks::rotate,
        webhooks::deliveries,
    ),
    components(
        schemas(
            dto::Problem,
            dto::ProblemField,
            dto::Health,
            dto::HealthStatus,
            dto::NodeRole,
            dto::PrimaryHealth,
            dto::Me,
            dto::MeEnvelope,
            dto::CreatedUser,
            dto::CreatedUserEnvelope,
            dto::UserCreate,
            dto::Backup,
            dto::BackupEnvelope,
            dto::BackupRequest,
            dto::BatchRequest,
            dto::BatchOperation,
            dto::BatchMethod,
            dto::BatchResult,
            dto::BatchResponse,
            dto::RoleName,
            dto::AccessName,
            dto::MemberState,
            dto::Space,
            dto::SpaceEnvelope,
            dto::SpaceList,
            dto::SpaceCreate,
            dto::SpaceUpdate,
            dto::Member,
            dto::MemberEnvelope,
            dto::MemberList,
            dto::MemberPut,
            dto::Invitation,
            dto::InvitationList,
            dto::Token,
            dto::TokenEnvelope,
            dto::TokenList,
            dto::TokenCreate,
            dto::Webhook,
            dto::WebhookEnvelope,
            dto::WebhookList,
            dto::WebhookCreate,
            dto::WebhookUpdate,
            dto::Delivery,
            dto::DeliveryList,
            dto::Occurrence,
            dto::OccurrencePage,
            dto::CalendarImport,
        ),
        responses(
            problems::Problem400,
            problems::Problem401,
            problems::Problem403,
            problems::Problem404,
            problems::Problem408,
            problems::Problem409,
            problems::Problem412,
            problems::Problem413,
            problems::Problem415,
            problems::Problem422,
            problems::Problem429,
            problems::Problem500,
            problems::Problem503,
        ),
    ),
    modifiers(&Service, &KindTable),
)]
pub(crate) struct ApiDoc;

/// The problem+json responses of CONTRACT §7, one component per status (`Problem400`,
/// ...), which the operations reference: `(status = 400, response = Problem400)`.
pub(crate) mod problems {
    use std::collections::BTreeMap;

    use utoipa::openapi::response::Response;
    use utoipa::openapi::{Ref, RefOr};
    use utoipa::ToResponse;

    macro_rules! problems {
        ($($name:ident = $status:literal,)*) => {$(
            #[doc = concat!("The problem+json response with status ", stringify!($status), ".")]
            pub(crate) struct $name;

            impl<'s> ToResponse<'s> for $name {
                fn response() -> (&'s str, RefOr<Response>) {
                    (stringify!($name), super::problem_response($status).into())
                }
            }
        )*};
    }

    /// A set of problem responses an operation answers besides its success: the
    /// references to the components above, so the document holds each text once.
    macro_rules! problem_sets {
        ($($(#[$doc:meta])* $name:ident = [$($status:literal),*],)*) => {$(
            $(#[$doc])*
            pub(crate) struct $name;

            impl utoipa::IntoResponses for $name {
                fn responses() -> BTreeMap<String, RefOr<Response>> {
                    [$($status),*]
                        .into_iter()
                        .map(|status: u16| {
                            let name = format!("Problem{status}");
                            (status.to_string(), RefOr::Ref(Ref::from_response_name(name)))
                        })
                        .collect()
                }
            }
        )*};
    }

    problem_sets! {
        /// A read that any token's user may make (`/me`, the feed, the stream).
        Reads = [400, 401, 404, 429, 500, 503],
        /// A read of a route only users have (spaces, members, invitations, tokens): the
        /// admin token, or a scoped one where only the primary may act, is 403.
        UserReads = [400, 401, 403, 404, 429, 500, 503],
        /// A change to the directory without a body (a deletion, an acceptance, a new
        /// primary token): the caller's role or token, the directory's refusals and the
        /// idempotency key's (a body is read for its fingerprint: 408, 413).
        DirectoryWrites = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503],
        /// A change to the directory with a JSON body: those, and 415.
        DirectoryBodyWrites = [400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 503],
        /// Every problem: a batch of record writes, and the admin's writes.
        Writes = [400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503],
    }

    problems! {
        Problem400 = 400,
        Problem401 = 401,
        Problem403 = 403,
        Problem404 = 404,
        Problem408 = 408,
        Problem409 = 409,
        Problem412 = 412,
        Problem413 = 413,
        Problem415 = 415,
        Problem422 = 422,
        Problem429 = 429,
        Problem500 = 500,
        Problem503 = 503,
    }
}

/// The bearer scheme, and the route of the document itself (served by Swagger UI's
/// service, so there is no handler to annotate).
pub(crate) struct Service;

impl Modify for Service {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Components::new);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
        let document = operation(
            "openapi",
            "service",
            "This document (no auth)",
            &[&[429, 503]],
            true,
        )
        .response(
            "200",
            json_response("The OpenAPI document", ObjectBuilder::new(), &[]),
        )
        .build();
        openapi
            .paths
            .add_path_operation("/api/v1/openapi.json", vec![HttpMethod::Get], document);
    }
}

/// What the kinds' field tables give: for each kind its record, create and update
/// schemas, `TaskEnvelope`, `TaskPage` and `TaskChange`, and its five routes; and the
/// schemas over all kinds (`Record`, `Change`, `ChangePage`, `ChangeEvent`).
pub(crate) struct KindTable;

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

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

fn nullable(ty: Type) -> SchemaType {
    SchemaType::from_iter([ty, Type::Null])
}

fn id_string() -> ObjectBuilder {
    string().pattern(Some(id_pattern()))
}

fn date_time() -> ObjectBuilder {
    nullable_date_time()
}

fn ids() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(id_string())
        .max_items(Some(MAX_IDS))
}

fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(name))
}

/// The format of a date-time.
fn date_time_format() -> SchemaFormat {
    SchemaFormat::KnownFormat(KnownFormat::DateTime)
}

/// A date field in a request body: a date-time, a date `YYYY-MM-DD` (00:00 of that day in
/// the task's `timeZone` after the write), or null.
fn day_or_time() -> RefOr<Schema> {
    let schema: Schema = OneOfBuilder::new()
        .item(date_time())
        .item(string().format(Some(SchemaFormat::KnownFormat(KnownFormat::Date))))
        .description(Some(
            "An RFC 3339 date-time, or a date YYYY-MM-DD meaning 00:00 of that day in the \
             task's timeZone after the write (CONTRACT §18), or null. On an all-day task both \
             dates are stored as 00:00 of their day in timeZone.",
        ))
        .into();
    schema.into()
}

/// The JSON schema of a field's value.
fn field_schema(ty: FieldType) -> RefOr<Schema> {
    let schema: Schema = match ty {
        FieldType::Text(max) => ObjectBuilder::new()
            .schema_type(nullable(Type::String))
            .max_length(Some(max))
            .into(),
        FieldType::Flag | FieldType::ExclusiveFlag => {
            ObjectBuilder::new().schema_type(Type::Boolean).into()
        }
        FieldType::NonNegative => ObjectBuilder::new()
            .schema_type(nullable(Type::Number))
            .minimum(Some(0))
            .into(),
        FieldType::Count => ObjectBuilder::new()
            .schema_type(nullable(Type::Integer))
            .minimum(Some(0))
            .maximum(Some(MAX_SAFE_INTEGER))
            .into(),
        FieldType::DateTime => date_time().into(),
        FieldType::Choice(choices) => string().enum_values(Some(choices.iter().copied())).into(),
        FieldType::Id | FieldType::Ref(_) => ObjectBuilder::new()
            .schema_type(nullable(Type::String))
            .pattern(Some(id_pattern()))
            .into(),
        FieldType::Refs(_) | FieldType::Ids => ids().into(),
        FieldType::Predecessors => ids()
            .description(Some(format!(
                "Ids of the tasks this one waits for (CONTRACT §15): each an active task of the \
                 space when set, else 422 invalid_reference; naming itself or closing a cycle \
                 is 422 dependency_cycle; a request whose cycle checks would follow more than \
                 {} edges in all is 422 dependency_too_complex (CONTRACT §21). Duplicates \
                 dropped, order kept; [] clears.",
                thousands(EDGE_BUDGET)
            )))
            .into(),
        FieldType::Zone => ObjectBuilder::new()
            .schema_type(nullable(Type::String))
            .description(Some(
                "An IANA time zone name (Europe/Paris; aliases such as US/Eastern accepted), \
                 stored as sent; null is UTC (CONTRACT §18). Dates given as YYYY-MM-DD, all-day \
                 days and the recurrence are read in it.",
            ))
            .into(),
        FieldType::Recurrence => ObjectBuilder::new()
            .schema_type(nullable(Type::String))
            .max_length(Some(RECURRENCE_MAX_CHARS))
            .description(Some(format!(
                "An RFC 5545 RRULE value without the RRULE: prefix (FREQ=WEEKLY;BYDAY=MO), ASCII \
                 case-insensitive, stored as sent, or null (CONTRACT §18). FREQ YEARLY, MONTHLY, \
                 WEEKLY, DAILY or HOURLY; COUNT and INTERVAL 1 to {}; UNTIL a UTC date-time on a \
                 timed task, a date on an all-day one. Needs a dateDue after the write, the \
                 series' first occurrence. A write that sets status to done or completed \
                 (ASCII case-insensitive) on an unfinished task with a recurrence moves dateDue \
                 and dateStart to the next occurrence, keeps status, lowers COUNT and counts \
                 the completion; when the series is over the task finishes.",
                thousands(u64::from(RECURRENCE_COUNT_MAX))
            )))
            .into(),
        FieldType::Reminders => ArrayBuilder::new()
            .items(
                OneOfBuilder::new()
                    .item(
                        ObjectBuilder::new()
                            .property("at", string().format(Some(date_time_format())))
                            .required("at")
                            .additional_properties(Some(AdditionalProperties::FreeForm(false))),
                    )
                    .item(
                        ObjectBuilder::new()
                            .property(
                                "minutesBefore",
                                ObjectBuilder::new()
                                    .schema_type(Type::Integer)
                                    .minimum(Some(0))
                                    .maximum(Some(REMINDER_MINUTES_MAX)),
                            )
                            .required("minutesBefore")
                            .additional_properties(Some(AdditionalProperties::FreeForm(false))),
                    ),
            )
            .max_items(Some(MAX_REMINDERS))
            .description(Some(
                "When to remind (CONTRACT §18): at an instant, or minutes before dateDue. [] \
                 clears; never null. The server fires them: a write of its own setting \
                 remindedAt and updatedAt, within 1 s of the time, once per reminder.",
            ))
            .into(),
        FieldType::Stamp => date_time()
            .read_only(Some(true))
            .description(Some(
                "Read-only (CONTRACT §18, §20): remindedAt, when a reminder of the task last \
                 fired; lastCompletedAt, the time of the last completion of a recurring task; \
                 completedAt, when status last became finished (null while unfinished).",
            ))
            .into(),
        FieldType::Tally => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .read_only(Some(true))
            .description(Some(
                "Read-only (CONTRACT §18): how often the recurring task was completed.",
            ))
            .into(),
        // Hidden: no schema lists it (see `record_schema`); an object if one did.
        FieldType::Calendar => ObjectBuilder::new()
            .schema_type(Type::Object)
            .read_only(Some(true))
            .into(),
        FieldType::Blocked => ObjectBuilder::new()
            .schema_type(Type::Boolean)
            .read_only(Some(true))
            .description(Some(
                "Read-only (CONTRACT §15). With TodoPredecessorsAllAny ALL: some predecessor is \
                 unfinished; with ANY: there are predecessors and none is finished. A \
                 predecessor is finished when deleted or its status is done or completed (ASCII \
                 case-insensitive). A write that flips it touches the task in the same version.",
            ))
            .into(),
    };
    schema.into()
}

/// Schema names of a kind: `Task`, `TaskCreate`, `TaskUpdate`, `TaskEnvelope`, `TaskPage`,
/// `TaskChange`.
pub(crate) fn schema_name(kind: Kind, suffix: &str) -> String {
    let noun = kind.noun();
    format!("{}{}{suffix}", noun[..1].to_uppercase(), &noun[1..])
}

/// A record as every response shows it: every field present.
fn record_schema(kind: Kind) -> Object {
    let mut record = ObjectBuilder::new()
        .property("id", id_string())
        .property(kind.id_field(), id_string())
        .property("spaceId", string())
        .property("sortOrder", ObjectBuilder::new().schema_type(Type::Number));
    for field in kind.fields().iter().filter(|f| !f.ty.is_hidden()) {
        record = record.property(field.name, field_schema(field.ty));
    }
    record = record
        .property("createdAt", date_time().schema_type(Type::String))
        .property("updatedAt", date_time().schema_type(Type::String))
        .property("deletedAt", date_time())
        .property("isDeleted", ObjectBuilder::new().schema_type(Type::Boolean))
        .property(
            "versionUpdatedAt",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1)),
        );
    let required = ["id", kind.id_field(), "spaceId", "sortOrder"]
        .into_iter()
        .chain(
            kind.fields()
                .iter()
                .filter(|f| !f.ty.is_hidden())
                .map(|f| f.name),
        )
        .chain([
            "createdAt",
            "updatedAt",
            "deletedAt",
            "isDeleted",
            "versionUpdatedAt",
        ]);
    required
        .fold(record, |r, name| r.required(name))
        .description(Some(format!("A {} (CONTRACT §3).", kind.noun())))
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

/// `{"data": <record>, "spaceVersion": n}` and friends.
fn envelope(data: impl Into<RefOr<Schema>>, more: &[(&str, Schema)]) -> Schema {
    let mut object = ObjectBuilder::new().property("data", data).required("data");
    for (name, schema) in more {
        object = object.property(*name, schema.clone()).required(*name);
    }
    object.into()
}

fn version_schema() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(0))
        .into()
}

/// A JSON response with `schema` and the given headers.
fn json_response(
    description: &str,
    schema: impl Into<RefOr<Schema>>,
    headers: &[&str],
) -> Response {
    headers
        .iter()
        .fold(
            ResponseBuilder::new().description(description).content(
                "application/json",
                ContentBuilder::new().schema(Some(schema)).build(),
            ),
            |r, name| r.header(*name, header(name)),
        )
        .build()
}

fn header(name: &str) -> utoipa::openapi::header::Header {
    let description = match name {
        "ETag" => "The record's `versionUpdatedAt` (a collection's: the space version), quoted.",
        "Location" => "The new record's, space's or token's path.",
        "Retry-After" => "Seconds to wait before trying again.",
        _ => "",
    };
    HeaderBuilder::new()
        .schema(string())
        .description(Some(description))
        .build()
}

fn problem(status: u16) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(format!("Problem{status}")))
}

/// The problem+json response of `status`, naming the codes it comes with.
pub(crate) fn problem_response(status: u16) -> Response {
    let text = match status {
        400 => "invalid_json, validation_failed, invalid_parameter, invalid_cursor, \
                space_conflict or invalid_filter (a task listing's `filter`; `position` is the \
                0-based offset, in code points, of the token where the error was found)"
            .to_string(),
        401 => "unauthorized: no or unknown token".to_string(),
        403 => "forbidden: the caller's role or token does not allow the operation: a record \
                write below editor or with a read-only token, a space or member change below \
                owner, a scoped token where only the primary token may act (spaces, members, \
                tokens), the admin token on a user's route, or a user's token on an admin route"
            .to_string(),
        404 => "not_found: no such record, space or route".to_string(),
        408 => "request_timeout: the body did not arrive in time".to_string(),
        409 => format!(
            "already_exists, record_deleted, idempotency_key_in_use, default_space (a default \
             space cannot be shared, left or deleted), last_owner (a space must keep an owner) \
             or limit_reached ({} spaces per user, {} members and invitations per space, {} \
             live scoped tokens per user, {} pending invitations sent per user, {} pending \
             from one user to another)",
            thousands(MAX_SPACES_PER_USER),
            thousands(MAX_MEMBERS),
            thousands(MAX_TOKENS),
            thousands(MAX_INVITATIONS_SENT),
            thousands(MAX_INVITATIONS_PER_INVITEE),
        ),
        412 => "precondition_failed: `If-Match` did not match".to_string(),
        413 => format!("payload_too_large: body over {} MiB", MAX_BODY_BYTES >> 20),
        415 => "unsupported_media_type: a body without a JSON content type".to_string(),
        422 => format!(
            "invalid_reference, dependency_cycle (with the cycle's ids in order in `cycle`), \
             dependency_too_complex (the request's cycle checks would follow more than {} \
             dependency edges in all; nothing changed; in a batch, `operationIndex` names the \
             operation where the budget ran out) or idempotency_key_reused",
            thousands(EDGE_BUDGET)
        ),
        429 => format!(
            "too_many_requests: too many failed authentications from the client, a new \
             idempotency key while the user's kept answers are at their bound, or a change \
             stream beyond the user's {MAX_STREAMS_PER_USER}"
        ),
        500 => "internal: a bug; the cause is in the log".to_string(),
        _ => "unavailable (overloaded or shutting down) or storage_unavailable (the disk \
              failed, or did not answer within --storage-timeout-ms)"
            .to_string(),
    };
    let response = ResponseBuilder::new().description(text).content(
        "application/problem+json",
        ContentBuilder::new()
            .schema(Some(reference("Problem")))
            .build(),
    );
    match status {
        429 | 503 => response.header("Retry-After", header("Retry-After")),
        _ => response,
    }
    .build()
}

/// Statuses every collection operation may answer with (the operations derived from
/// handlers list theirs in `#[utoipa::path]`).
const COMMON: &[u16] = &[400, 401, 404, 429, 500, 503];
/// More statuses of an operation with a body.
const WITH_BODY: &[u16] = &[408, 413, 415];
/// Statuses of writes: roles and tokens, records, references, preconditions and
/// idempotency keys.
const WRITES: &[u16] = &[403, 409, 412, 422];

/// `filter`, `q`, `orderBy` and `tz` of the task listing (CONTRACT §17).
fn task_query_parameters(list: OperationBuilder) -> OperationBuilder {
    let filter = format!(
        "A filter expression (URL-encoded; at most {} characters, {FILTER_MAX_COMPARISONS} \
         comparisons, nesting depth {FILTER_MAX_DEPTH}, each `(` and `!` one level):\n\n\
         ```\n\
         expr       := or\n\
         or         := and ( \"||\" and )*\n\
         and        := unary ( \"&&\" unary )*\n\
         unary      := \"!\" unary | \"(\" expr \")\" | comparison\n\
         comparison := FIELD OP value | FIELD [\"not\"] \"in\" \"(\" value (\",\" value)* \")\" \
         | FIELD \"has\" value\n\
         OP         := \"=\" | \"!=\" | \"<\" | \"<=\" | \">\" | \">=\" | \"~\"\n\
         value      := STRING | NUMBER | \"true\" | \"false\" | \"null\" | DATE | DATETIME | RELATIVE\n\
         ```\n\n\
         FIELD is any field of a task response (`id` is `todoId`). STRING and NUMBER are JSON \
         literals; DATETIME is RFC 3339; DATE (`YYYY-MM-DD`) is 00:00 of that day in `tz`; \
         RELATIVE is `now` or `today` (00:00 of the current day in `tz`), optionally `+` or \
         `-` an integer with a unit `m`, `h`, `d` (calendar days) or `w` (`now+7d`); `now` is \
         fixed by a walk's first page. Strings compare by code points, `~` is a \
         case-insensitive substring test (strings only); booleans take `=` and `!=` only; \
         array fields (`tagIds`, `categoryIds`, `scheduleIds`, `predecessorIds`) take `has` \
         only; `null` goes with `=` and `!=` only. `a != v` is `!(a = v)`, so a null field \
         matches `status != \"done\"`; `<`, `<=`, `>`, `>=`, `~` and `in` are false on a null \
         field. An error → 400 invalid_filter with `position`.\n\n\
         Examples: overdue `dateDue < now && status != \"done\"`; due this week and not \
         done `dateDue >= today && dateDue < today+7d && status not in (\"done\", \
         \"completed\")`; tagged home `tagIds has \"home\"`; no due date `dateDue = null`; \
         `name ~ \"milk\" || notesMarkdown ~ \"milk\"`.",
        thousands(FILTER_MAX_CHARS)
    );
    let keys: Vec<&str> = SortKey::ALL.iter().map(|k| k.name()).collect();
    list.parameter(query("filter", string(), &filter))
        .parameter(query(
            "q",
            string().max_length(Some(SEARCH_MAX_CHARS)),
            &format!(
                "Word-prefix search in `name` and `notesMarkdown`: both are split into words \
                 at Unicode word boundaries, lowercased and stripped of diacritics, and a task \
                 matches when every word of `q` is a prefix of one of its words (`q=mil` finds \
                 \"Buy milk\", `q=cafe` finds \"Café\"). At most {SEARCH_MAX_CHARS} characters; \
                 a `q` without words matches every task."
            ),
        ))
        .parameter(query(
            "orderBy",
            string(),
            &format!(
                "Up to {ORDER_BY_MAX_KEYS} keys separated by commas, each optionally prefixed \
                 by `-` for descending: {}. Nulls come last in either direction, `false` \
                 before `true`, strings by code points; ties end in `todoId` ascending. \
                 Default `sortOrder`. Another key → 400 invalid_parameter. Example: \
                 `orderBy=dateDue,-isImportant`.",
                keys.join(", ")
            ),
        ))
        .parameter(query(
            "tz",
            string().default(Some("UTC".into())),
            "IANA time zone (`Europe/Paris`) in which the filter reads DATE, `today` and \
             calendar days. Unknown → 400 invalid_parameter.",
        ))
}

fn query(name: &str, schema: impl Into<RefOr<Schema>>, description: &str) -> ParameterBuilder {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .schema(Some(schema))
        .description(Some(description))
}

fn header_parameter(name: &str, description: &str) -> ParameterBuilder {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .schema(Some(string()))
        .description(Some(description))
}

fn space_parameter() -> ParameterBuilder {
    query(
        "spaceId",
        string(),
        "The space; else the body's `spaceId`, else the caller's default space.",
    )
}

fn integer(min: usize, max: usize) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(min))
        .maximum(Some(max))
}

/// An operation with the bearer requirement (unless `public`), the given success responses
/// and the problem responses of `errors`.
fn operation(
    id: &str,
    tag: &str,
    summary: &str,
    errors: &[&[u16]],
    public: bool,
) -> OperationBuilder {
    let mut op = OperationBuilder::new()
        .operation_id(Some(id))
        .tag(tag)
        .summary(Some(summary));
    if !public {
        op = op.security(SecurityRequirement::new("bearer", Vec::<String>::new()));
    }
    let mut statuses: Vec<u16> = errors.iter().flat_map(|e| e.iter().copied()).collect();
    statuses.sort_unstable();
    statuses.dedup();
    statuses.into_iter().fold(op, |op, status| {
        op.response(status.to_string(), problem(status))
    })
}

fn json_body(schema: impl Into<RefOr<Schema>>) -> RequestBodyBuilder {
    RequestBodyBuilder::new().content(
        "application/json",
        ContentBuilder::new().schema(Some(schema)).build(),
    )
}

fn if_match() -> ParameterBuilder {
    header_parameter(
        "If-Match",
        "`*` or a list of ETags; when none is the record's → 412 precondition_failed.",
    )
}

fn if_none_match() -> ParameterBuilder {
    header_parameter(
        "If-None-Match",
        "An ETag (or `*`); when it matches → 304 Not Modified, empty body.",
    )
}

fn idempotency_key() -> ParameterBuilder {
    header_parameter(
        "Idempotency-Key",
        "Printable ASCII characters: a retry with the same key and body gets the first answer \
         again (24 h).",
    )
    .schema(Some(dto::idempotency_key_schema()))
}

fn not_modified() -> Response {
    ResponseBuilder::new()
        .description("Not Modified: `If-None-Match` matched")
        .header("ETag", header("ETag"))
        .build()
}

/// The routes of one collection: the list and create, the item's get, update and delete,
/// and its restore.
fn collection_paths(kind: Kind) -> Vec<(String, PathItem)> {
    let base = format!("/api/v1/{}", kind.collection());
    let item_path = format!("{base}/{{{}}}", kind.id_field());
    let tag = kind.collection();
    let one = || reference(&schema_name(kind, "Envelope"));
    let item = || json_response("The record", one(), &["ETag"]);
    // The path parameter has the interface's name (`todoId`, `listId`, ...): the kind's own
    // id field. The server's routes call it `{id}`; the name is not seen on the wire.
    let id = || {
        ParameterBuilder::new()
            .name(kind.id_field())
            .parameter_in(ParameterIn::Path)
            .required(Required::True)
            .schema(Some(id_string()))
    };
    let noun = kind.noun();

    let mut list = operation(
        &format!("list_{tag}"),
        tag,
        &format!("A page of {tag}"),
        &[COMMON],
        false,
    )
    .parameter(space_parameter())
    .parameter(query(
        "limit",
        integer(1, PAGE_LIMIT_MAX).default(Some(PAGE_LIMIT_DEFAULT.into())),
        &format!("Page size, default {PAGE_LIMIT_DEFAULT}."),
    ))
    .parameter(query(
        "cursor",
        string(),
        "`nextCursor` of the previous page.",
    ))
    .parameter(query(
        "includeDeleted",
        ObjectBuilder::new().schema_type(Type::Boolean),
        "Include soft-deleted records.",
    ))
    .parameter(if_none_match())
    .response(
        "200",
        json_response(
            if kind == Kind::Task {
                "A page, ordered by orderBy (by default sortOrder) then id"
            } else {
                "A page, ordered by sortOrder then id"
            },
            reference(&schema_name(kind, "Page")),
            &["ETag"],
        ),
    )
    .response("304", not_modified());
    for field in kind.fields().iter().filter(|f| f.filter) {
        list = match field.ty {
            FieldType::Blocked => list.parameter(query(
                field.name,
                string().enum_values(Some(["true", "false"])),
                "Only tasks that are (true) or are not (false) blocked; another value → 400 \
                 invalid_parameter.",
            )),
            _ => list.parameter(query(field.name, string(), "Exact match.")),
        };
    }
    if kind == Kind::Task {
        list = task_query_parameters(list);
    }
    let create = operation(
        &format!("create_{noun}"),
        tag,
        &format!("Create a {noun}"),
        &[COMMON, WITH_BODY, WRITES],
        false,
    )
    .parameter(space_parameter())
    .parameter(idempotency_key())
    .request_body(Some(
        json_body(reference(&schema_name(kind, "Create"))).build(),
    ))
    .response(
        "201",
        json_response("Created", one(), &["ETag", "Location"]),
    );
    let get = operation(
        &format!("get_{noun}"),
        tag,
        &format!("One {noun}, deleted or not"),
        &[COMMON],
        false,
    )
    .parameter(id())
    .parameter(space_parameter())
    .parameter(if_none_match())
    .response("200", item())
    .response("304", not_modified());
    let update = operation(
        &format!("update_{noun}"),
        tag,
        &format!("Change fields of a {noun}"),
        &[COMMON, WITH_BODY, WRITES],
        false,
    )
    .parameter(id())
    .parameter(space_parameter())
    .parameter(if_match())
    .parameter(idempotency_key())
    .request_body(Some(
        json_body(reference(&schema_name(kind, "Update"))).build(),
    ))
    .response("200", item());
    let deleted = |op_id: String, summary: String| {
        operation(&op_id, tag, &summary, &[COMMON, WITH_BODY, WRITES], false)
            .parameter(id())
            .parameter(space_parameter())
            .parameter(if_match())
            .parameter(idempotency_key())
            .response("200", item())
    };
    vec![
        (
            base,
            PathItemBuilder::new()
                .operation(HttpMethod::Get, list.build())
                .operation(HttpMethod::Post, create.build())
                .build(),
        ),
        (
            item_path.clone(),
            PathItemBuilder::new()
                .operation(HttpMethod::Get, get.build())
                .operation(HttpMethod::Patch, update.build())
                .operation(
                    HttpMethod::Delete,
                    deleted(format!("delete_{noun}"), format!("Soft-delete a {noun}")).build(),
                )
                .build(),
        ),
        (
            format!("{item_path}/restore"),
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Post,
                    deleted(
                        format!("restore_{noun}"),
                        format!("Restore a soft-deleted {noun}"),
                    )
                    .build(),
                )
                .build(),
        ),
    ]
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
        .description(Some(format!("A changed {} (CONTRACT §12).", kind.noun())));
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
            "One event of the change stream (CONTRACT §12), as its SSE fields.",
        ));
    vec![
        ("Record".to_string(), RefOr::T(record.into())),
        ("Change".to_string(), RefOr::T(change.into())),
        ("ChangePage".to_string(), RefOr::T(change_page)),
        ("ChangeEvent".to_string(), RefOr::T(change_event.into())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn json() -> Value {
        serde_json::to_value(&*DOCUMENT).unwrap()
    }

    /// `Record` is a `oneOf` with no discriminator, so a record of each kind must match
    /// exactly one alternative: it lacks some field that every other kind requires.
    #[test]
    fn a_record_of_one_kind_never_matches_another_kinds_schema() {
        let document = json();
        let schemas = &document["components"]["schemas"];
        for a in Kind::ALL {
            let has = schemas[schema_name(a, "")]["properties"]
                .as_object()
                .unwrap();
            for b in Kind::ALL.into_iter().filter(|b| *b != a) {
                let required = schemas[schema_name(b, "")]["required"].as_array().unwrap();
                assert!(
                    required
                        .iter()
                        .any(|r| !has.contains_key(r.as_str().unwrap())),
                    "a {a:?} record would also match the {b:?} schema"
                );
            }
        }
    }

    /// The routes of spaces, members and tokens (CONTRACT §13, §14), each with the
    /// statuses its handler answers: 403 for the admin token (or a user's on the admin
    /// route), and on writes the idempotency key's and the directory's refusals.
    #[test]
    fn the_directory_routes_list_their_statuses() {
        let document = json();
        let paths = &document["paths"];
        let reads = ["400", "401", "403", "404", "429", "500", "503"];
        let sorted = |more: &[&'static str]| {
            let mut all = [&reads[..], more].concat();
            all.sort_unstable();
            all
        };
        let writes = sorted(&["408", "409", "413", "422"]);
        let with_body = sorted(&["408", "409", "413", "415", "422"]);
        for (path, method, success, statuses) in [
            ("/api/v1/spaces", "get", "200", &reads[..]),
            ("/api/v1/spaces", "post", "201", &with_body),
            ("/api/v1/spaces/{spaceId}", "get", "200", &reads),
            ("/api/v1/spaces/{spaceId}", "patch", "200", &with_body),
            ("/api/v1/spaces/{spaceId}", "delete", "200", &writes),
            ("/api/v1/spaces/{spaceId}/members", "get", "200", &reads),
            (
                "/api/v1/spaces/{spaceId}/members/{userId}",
                "put",
                "201",
                &with_body,
            ),
            (
                "/api/v1/spaces/{spaceId}/members/{userId}",
                "delete",
                "200",
                &writes,
            ),
            ("/api/v1/spaces/{spaceId}/accept", "post", "200", &writes),
            ("/api/v1/invitations", "get", "200", &reads),
            ("/api/v1/tokens", "get", "200", &reads),
            ("/api/v1/tokens", "post", "201", &with_body),
            ("/api/v1/tokens/{tokenId}", "get", "200", &reads),
            ("/api/v1/tokens/{tokenId}", "delete", "200", &writes),
            ("/api/v1/admin/users/{userId}/token", "post", "200", &writes),
        ] {
            let operation = &paths[path][method];
            let mut listed: Vec<&str> = operation["responses"]
                .as_object()
                .unwrap_or_else(|| panic!("{method} {path} missing"))
                .keys()
                .map(String::as_str)
                .filter(|s| *s != success && *s != "200")
                .collect();
            listed.sort_unstable();
            assert_eq!(listed, statuses, "{method} {path}");
            assert!(
                operation["responses"][success].is_object(),
                "{method} {path}"
            );
            let keyed = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|p| p["name"] == "Idempotency-Key");
            assert_eq!(keyed, method != "get", "{method} {path}");
        }
        let schemas = &document["components"]["schemas"];
        assert_eq!(schemas["SpaceCreate"]["additionalProperties"], false);
        assert_eq!(
            schemas["SpaceCreate"]["required"],
            serde_json::json!(["name"])
        );
        assert_eq!(
            schemas["TokenCreate"]["properties"]["spaceIds"]["maxItems"],
            100
        );
        let token = &schemas["Token"];
        assert!(token["properties"]["token"].is_object());
        assert!(!token["required"]
            .as_array()
            .unwrap()
            .contains(&"token".into()));
    }

    #[test]
    fn tasks_document_their_dependencies() {
        let document = json();
        let schemas = &document["components"]["schemas"];
        let task = &schemas["Task"]["properties"];
        assert_eq!(task["predecessorIds"]["type"], "array");
        assert_eq!(task["predecessorIds"]["items"]["type"], "string");
        assert_eq!(task["isBlocked"]["type"], "boolean");
        assert_eq!(task["isBlocked"]["readOnly"], true);
        for body in ["TaskCreate", "TaskUpdate"] {
            let properties = &schemas[body]["properties"];
            assert!(properties["predecessorIds"].is_object(), "{body}");
            assert!(properties.get("isBlocked").is_none(), "{body}");
        }
        let list = &document["paths"]["/api/v1/tasks"]["get"];
        let parameter = list["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "isBlocked")
            .expect("an isBlocked parameter");
        assert_eq!(
            parameter["schema"]["enum"],
            serde_json::json!(["true", "false"])
        );
        for name in ["filter", "q", "orderBy", "tz"] {
            let described = list["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .and_then(|p| p["description"].as_str())
                .unwrap_or_else(|| panic!("a {name} parameter"));
            assert!(!described.is_empty());
            let lists = &document["paths"]["/api/v1/lists"]["get"]["parameters"];
            assert!(lists.as_array().unwrap().iter().all(|p| p["name"] != name));
        }
        let bad_request = document["components"]["responses"]["Problem400"]["description"]
            .as_str()
            .unwrap();
        assert!(bad_request.contains("invalid_filter"));
        let problem = document["components"]["responses"]["Problem422"]["description"]
            .as_str()
            .unwrap();
        assert!(problem.contains("dependency_cycle"));
        assert!(problem.contains("dependency_too_complex"));
        for method in ["post", "patch"] {
            let path = if method == "post" {
                "/api/v1/tasks"
            } else {
                "/api/v1/tasks/{todoId}"
            };
            assert!(document["paths"][path][method]["responses"]["422"].is_object());
        }
    }

    #[test]
    fn every_reference_names_a_component() {
        fn walk(value: &Value, document: &Value) {
            match value {
                Value::Object(map) => {
                    if let Some(Value::String(to)) = map.get("$ref") {
                        let path = to.strip_prefix("#/").expect("a local reference");
                        let target = path.split('/').fold(document, |v, part| &v[part]);
                        assert!(target.is_object(), "{to} names nothing");
                    }
                    map.values().for_each(|v| walk(v, document));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, document)),
                _ => {}
            }
        }
        let document = json();
        walk(&document, &document);
        let mapping = &document["components"]["schemas"]["Change"]["discriminator"]["mapping"];
        for kind in Kind::ALL {
            let to = mapping[kind.noun()].as_str().unwrap();
            walk(&serde_json::json!({ "$ref": to }), &document);
        }
    }

    /// A batch operation's body is typed (`anyOf` the kinds' create and update bodies, not
    /// a bare object a generated client reads as `Record<string, never>`), and a result
    /// names its record's kind.
    #[test]
    fn a_batch_is_typed_for_generated_clients() {
        let document = json();
        let schemas = &document["components"]["schemas"];
        let body = &schemas["BatchOperation"]["properties"]["body"]["anyOf"];
        let names: Vec<&str> = body
            .as_array()
            .expect("anyOf")
            .iter()
            .map(|b| b["$ref"].as_str().unwrap())
            .collect();
        for kind in Kind::ALL {
            for suffix in ["Create", "Update"] {
                let name = format!("#/components/schemas/{}", schema_name(kind, suffix));
                assert!(names.contains(&name.as_str()), "{name}");
            }
        }
        assert_eq!(names.len(), 2 * Kind::ALL.len());
        let request = &document["paths"]["/api/v1/batch"]["post"]["requestBody"];
        assert_eq!(
            request["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/BatchRequest"
        );
        assert_eq!(request["required"], true);
        let kind = &schemas["BatchResult"]["properties"]["kind"];
        assert_eq!(kind["enum"], serde_json::json!(Kind::ALL.map(Kind::noun)));
        assert!(schemas["BatchResult"]["required"]
            .as_array()
            .unwrap()
            .contains(&"kind".into()));
    }

    /// The document states the limits the server checks, from the same constants.
    #[test]
    fn the_document_states_the_limits_of_the_limits_module() {
        use crate::model::limits::*;
        let document = json();
        let schemas = &document["components"]["schemas"];
        let parameter = |path: &str, name: &str| {
            document["paths"][path]["get"]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{path} {name}"))["schema"]
                .clone()
        };
        let page = parameter("/api/v1/tasks", "limit");
        assert_eq!(page["maximum"], PAGE_LIMIT_MAX);
        assert_eq!(page["default"], PAGE_LIMIT_DEFAULT);
        let feed = parameter("/api/v1/changes", "limit");
        assert_eq!(feed["maximum"], FEED_LIMIT_MAX);
        assert_eq!(feed["default"], FEED_LIMIT_DEFAULT);
        assert_eq!(
            parameter("/api/v1/changes", "since")["maximum"],
            MAX_SAFE_INTEGER
        );
        assert_eq!(
            schemas["BatchRequest"]["properties"]["operations"]["maxItems"],
            MAX_OPERATIONS
        );
        assert_eq!(
            schemas["TokenCreate"]["properties"]["spaceIds"]["maxItems"],
            MAX_TOKEN_SPACES
        );
        for body in ["SpaceCreate", "SpaceUpdate", "TokenCreate", "UserCreate"] {
            assert_eq!(
                schemas[body]["properties"]["name"]["maxLength"], NAME_MAX_CHARS,
                "{body}"
            );
        }
        let task = &schemas["Task"]["properties"];
        assert_eq!(task["name"]["maxLength"], NAME_MAX_CHARS);
        assert_eq!(task["notesMarkdown"]["maxLength"], NOTES_MAX_CHARS);
        assert_eq!(task["durationMs"]["maximum"], MAX_SAFE_INTEGER);
        assert_eq!(task["tagIds"]["maxItems"], MAX_IDS);
        assert_eq!(
            task["todoId"]["pattern"],
            format!("^[A-Za-z0-9_-]{{{ID_MIN_CHARS},{ID_MAX_CHARS}}}$")
        );
        let problems = &document["components"]["responses"];
        assert!(problems["Problem413"]["description"]
            .as_str()
            .unwrap()
            .contains(&format!("{} MiB", MAX_BODY_BYTES >> 20)));
        assert!(problems["Problem409"]["description"]
            .as_str()
            .unwrap()
            .contains(&format!(
                "{} spaces per user",
                thousands(MAX_SPACES_PER_USER)
            )));
    }

    /// The time fields of a task (CONTRACT §18): the counters read-only and absent from the
    /// bodies, dates as date-times or days in the bodies, and the occurrences operation.
    #[test]
    fn a_task_has_its_time_fields_and_its_occurrences() {
        let document = json();
        let schemas = &document["components"]["schemas"];
        let task = &schemas["Task"]["properties"];
        for field in ["remindedAt", "completedCount", "lastCompletedAt"] {
            assert_eq!(task[field]["readOnly"], true, "{field}");
            for body in ["TaskCreate", "TaskUpdate"] {
                assert!(
                    schemas[body]["properties"].get(field).is_none(),
                    "{body}.{field}"
                );
            }
        }
        assert_eq!(task["reminders"]["maxItems"], 10);
        assert_eq!(task["dateDue"]["format"], "date-time");
        let due = schemas["TaskUpdate"]["properties"]["dateDue"].to_string();
        assert!(
            due.contains("\"date\"") && due.contains("date-time"),
            "{due}"
        );
        let occurrences = &document["paths"]["/api/v1/tasks/{todoId}/occurrences"]["get"];
        assert!(occurrences["responses"]["200"].is_object(), "{occurrences}");
    }

    /// Webhooks (CONTRACT §19): the routes, the object with its secret only when shown,
    /// and the 422 of a refused address.
    #[test]
    fn webhooks_have_their_routes_and_objects() {
        let document = json();
        let paths = &document["paths"];
        let create = &paths["/api/v1/webhooks"]["post"];
        assert!(create["responses"]["201"].is_object(), "{create}");
        assert!(create["responses"]["422"].is_object(), "{create}");
        for (path, method) in [
            ("/api/v1/webhooks", "get"),
            ("/api/v1/webhooks/{webhookId}", "patch"),
            ("/api/v1/webhooks/{webhookId}", "delete"),
            ("/api/v1/webhooks/{webhookId}/secret", "post"),
            ("/api/v1/webhooks/{webhookId}/deliveries", "get"),
        ] {
            assert!(
                paths[path][method]["responses"]["200"].is_object(),
                "{method} {path}"
            );
        }
        let webhook = &document["components"]["schemas"]["Webhook"];
        let required = webhook["required"].to_string();
        for field in [
            "webhookId",
            "lastDeliveredVersion",
            "pending",
            "disabledReason",
        ] {
            assert!(required.contains(field), "{field} in {required}");
        }
        assert!(!required.contains("secret"), "{required}");
    }

    /// CONTRACT §20: `completedAt` is read-only, the hidden calendar data is in no schema,
    /// and the calendar path has its export and import.
    #[test]
    fn a_task_has_completed_at_and_the_calendar_routes_are_documented() {
        let document = json();
        let schemas = &document["components"]["schemas"];
        assert_eq!(
            schemas["Task"]["properties"]["completedAt"]["readOnly"],
            true
        );
        for schema in ["Task", "TaskCreate", "TaskUpdate"] {
            assert!(
                schemas[schema]["properties"].get("calendar").is_none(),
                "{schema}"
            );
        }
        let calendar = &document["paths"]["/api/v1/calendar.ics"];
        assert_eq!(calendar["get"]["operationId"], "exportCalendar");
        assert_eq!(calendar["post"]["operationId"], "importCalendar");
    }

    /// Every operation derived from a handler lists its statuses and is found in the
    /// document; none is lost between the handlers and the generated routes.
    #[test]
    fn every_route_has_its_operations() {
        let document = json();
        let paths = document["paths"].as_object().unwrap();
        // 5 collections × 3 paths, a task's occurrences, 4 of webhooks, the calendar, and the
        // other routes.
        assert_eq!(paths.len(), 15 + 1 + 4 + 1 + 19);
        for (path, item) in paths {
            for (method, operation) in item.as_object().unwrap() {
                let responses = operation["responses"].as_object().unwrap();
                assert!(
                    responses.keys().any(|s| s.starts_with('2')),
                    "{method} {path} has no success"
                );
                assert!(operation["operationId"].is_string(), "{method} {path}");
            }
        }
    }
}
