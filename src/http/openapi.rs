//! The OpenAPI 3.1 document of the API, built with `utoipa` from the same tables the server
//! validates with: each kind's record, create and update schemas come from its field table
//! in [`crate::model::kind`], and the five collections get their paths from one loop over
//! [`Kind::ALL`], so the document cannot drift from the code. Served at
//! `GET /api/v1/openapi.json` (no auth) and rendered by Swagger UI at `/docs`.
//!
//! Every response body is a named component referenced with `$ref` (`TaskEnvelope`,
//! `TaskPage`, `ChangePage`, `BatchResponse`, ...), so a generated client has one model per
//! envelope rather than one per operation; item paths name their id as the interface does
//! (`/api/v1/tasks/{todoId}`). Spaces, members and scoped tokens (CONTRACT §13, §14) have
//! their own routes and components (`Space`, `Member`, `Token`, ...), built by
//! [`directory_paths`] and [`directory_schemas`].

use std::sync::LazyLock;

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItemBuilder,
};
use utoipa::openapi::request_body::{RequestBody, RequestBodyBuilder};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, Discriminator, KnownFormat, Object, ObjectBuilder,
    OneOfBuilder, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    ComponentsBuilder, InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, Ref, RefOr, Required,
    Schema,
};

use crate::model::directory::MAX_TOKEN_SPACES;
use crate::model::kind::{FieldType, MAX_IDS};
use crate::model::Kind;

/// The pattern of a record id (CONTRACT §3).
const ID_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";
/// The largest integer every JSON parser reads exactly.
const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// The document, built once.
pub static DOCUMENT: LazyLock<OpenApi> = LazyLock::new(document);

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

fn nullable(ty: Type) -> SchemaType {
    SchemaType::from_iter([ty, Type::Null])
}

fn id_string() -> ObjectBuilder {
    string().pattern(Some(ID_PATTERN))
}

fn date_time() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(nullable(Type::String))
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
}

fn ids() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(id_string())
        .max_items(Some(MAX_IDS))
}

fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(name))
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
            .pattern(Some(ID_PATTERN))
            .into(),
        FieldType::Refs(_) | FieldType::Ids => ids().into(),
        FieldType::Predecessors => ids()
            .description(Some(
                "Ids of the tasks this one waits for (CONTRACT §15): each an active task of the \
                 space when set, else 422 invalid_reference; naming itself or closing a cycle \
                 is 422 dependency_cycle; a request whose cycle checks would follow more than \
                 1,000,000 edges in all is 422 dependency_too_complex (CONTRACT §21). \
                 Duplicates dropped, order kept; [] clears.",
            ))
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
pub fn schema_name(kind: Kind, suffix: &str) -> String {
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
    for field in kind.fields() {
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
        .chain(kind.fields().iter().map(|f| f.name))
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
        body = body.property(field.name, field_schema(field.ty));
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

/// The problem+json responses of CONTRACT §7, by status.
/// A health route's 503: its own JSON (`schema`), or problem+json while shutting down.
fn health_unavailable(description: &str, schema: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(reference(schema)))
                .build(),
        )
        .content(
            "application/problem+json",
            ContentBuilder::new()
                .schema(Some(reference("Problem")))
                .build(),
        )
        .header("Retry-After", header("Retry-After"))
        .build()
}

fn problem(status: u16) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(format!("Problem{status}")))
}

fn problem_response(status: u16) -> Response {
    let text = match status {
        400 => {
            "invalid_json, validation_failed, invalid_parameter, invalid_cursor or space_conflict"
        }
        401 => "unauthorized: no or unknown token",
        403 => {
            "forbidden: the caller's role or token does not allow the operation: a record write \
             below editor or with a read-only token, a space or member change below owner, a \
             scoped token where only the primary token may act (spaces, members, tokens), the \
             admin token on a user's route, or a user's token on an admin route"
        }
        404 => "not_found: no such record, space or route",
        408 => "request_timeout: the body did not arrive in time",
        409 => {
            "already_exists, record_deleted, idempotency_key_in_use, default_space (a default \
             space cannot be shared, left or deleted), last_owner (a space must keep an owner) \
             or limit_reached (1,000 spaces per user, 1,000 members and invitations per space, \
             100 live scoped tokens per user, 1,000 pending invitations sent per user, 10 \
             pending from one user to another)"
        }
        412 => "precondition_failed: `If-Match` did not match",
        413 => "payload_too_large: body over 1 MiB",
        415 => "unsupported_media_type: a body without a JSON content type",
        422 => {
            "invalid_reference, dependency_cycle (with the cycle's ids in order in `cycle`), \
             dependency_too_complex (the request's cycle checks would follow more than \
             1,000,000 dependency edges in all; nothing changed; in a batch, `operationIndex` \
             names the operation where the budget ran out) or idempotency_key_reused"
        }
        429 => {
            "too_many_requests: too many failed authentications from the client, a new \
             idempotency key while the user's kept answers are at their bound, or the user's \
             101st change stream"
        }
        500 => "internal: a bug; the cause is in the log",
        _ => {
            "unavailable (overloaded or shutting down) or storage_unavailable (the disk failed, \
             or did not answer within --storage-timeout-ms)"
        }
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

/// Statuses every `/api/v1` operation may answer with.
const COMMON: &[u16] = &[400, 401, 404, 429, 500, 503];
/// More statuses of an operation with a body.
const WITH_BODY: &[u16] = &[408, 413, 415];
/// Statuses of writes: roles and tokens, records, references, preconditions and
/// idempotency keys.
const WRITES: &[u16] = &[403, 409, 412, 422];
/// Statuses of a route only users have (spaces, members, tokens): the admin token, or a
/// role or token below the operation.
const USERS_ONLY: &[u16] = &[403];
/// Statuses of a write to the directory (spaces, members, tokens): the caller's role or
/// token, the directory's refusals (`default_space`, `last_owner`, `limit_reached`) and
/// idempotency keys (a body is read for the key's fingerprint: 408, 413).
const DIRECTORY_WRITES: &[u16] = &[403, 408, 409, 413, 422];
const STATUSES: &[u16] = &[
    400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 429, 500, 503,
];

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

fn integer(min: i64, max: i64) -> ObjectBuilder {
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

/// A required JSON body of exactly one field.
fn one_field_body(name: &str, schema: ObjectBuilder) -> RequestBody {
    json_body(
        ObjectBuilder::new()
            .property(name, schema)
            .required(name)
            .additional_properties(Some(AdditionalProperties::FreeForm(false))),
    )
    .required(Some(Required::True))
    .build()
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
        "1 to 255 printable ASCII characters: a retry with the same key and body gets the first answer again (24 h).",
    )
    // HTTP trims a header value, so the key neither starts nor ends with a space.
    .schema(Some(string().pattern(Some("^[!-~]([ -~]{0,253}[!-~])?$"))))
}

fn not_modified() -> Response {
    ResponseBuilder::new()
        .description("Not Modified: `If-None-Match` matched")
        .header("ETag", header("ETag"))
        .build()
}

/// The five routes of one collection.
fn collection_paths(paths: PathsBuilder, kind: Kind) -> PathsBuilder {
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
    .parameter(query("limit", integer(1, 100), "Page size, default 50."))
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
            "A page, ordered by sortOrder then id",
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
    paths
        .path(
            base.clone(),
            PathItemBuilder::new()
                .operation(HttpMethod::Get, list.build())
                .operation(HttpMethod::Post, create.build())
                .build(),
        )
        .path(
            item_path.clone(),
            PathItemBuilder::new()
                .operation(HttpMethod::Get, get.build())
                .operation(HttpMethod::Patch, update.build())
                .operation(
                    HttpMethod::Delete,
                    deleted(format!("delete_{noun}"), format!("Soft-delete a {noun}")).build(),
                )
                .build(),
        )
        .path(
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
        )
}

/// The routes that are not a collection's.
fn other_paths(paths: PathsBuilder) -> PathsBuilder {
    let batch_body = ObjectBuilder::new()
        .property(
            "operations",
            ArrayBuilder::new()
                .min_items(Some(1))
                .max_items(Some(100))
                .items(
                    ObjectBuilder::new()
                        .property(
                            "method",
                            string().enum_values(Some(["POST", "PATCH", "DELETE"])),
                        )
                        .property("path", string())
                        .property("body", ObjectBuilder::new())
                        .required("method")
                        .required("path"),
                ),
        )
        .required("operations");
    let since = || {
        query(
            "since",
            integer(0, MAX_SAFE_INTEGER),
            "Changes after this space version (default 0).",
        )
    };
    let text = |description: &str, media: &str| {
        ResponseBuilder::new()
            .description(description)
            .content(media, ContentBuilder::new().schema(Some(string())).build())
            .build()
    };
    paths
        .path(
            "/healthz",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    OperationBuilder::new()
                        .operation_id(Some("healthz"))
                        .tag("service")
                        .summary(Some("Liveness and storage health (no auth)"))
                        .response("200", json_response("ok", reference("Health"), &[]))
                        .response(
                            "503",
                            health_unavailable(
                                "degraded (JSON), or shutting down (problem+json)",
                                "Health",
                            ),
                        )
                        .build(),
                )
                .build(),
        )
        .path(
            "/healthz/primary",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    OperationBuilder::new()
                        .operation_id(Some("healthzPrimary"))
                        .tag("service")
                        .summary(Some(
                            "200 on the primary (or without --nats), 503 on a standby: the \
                             proxy's check (no auth)",
                        ))
                        .response(
                            "200",
                            json_response("primary", reference("PrimaryHealth"), &[]),
                        )
                        .response(
                            "503",
                            health_unavailable(
                                "a standby (JSON), or shutting down (problem+json)",
                                "PrimaryHealth",
                            ),
                        )
                        .build(),
                )
                .build(),
        )
        .path(
            "/metrics",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    operation(
                        "metrics",
                        "service",
                        "Prometheus metrics (admin token; moved by --metrics-bind)",
                        &[&[401, 429, 503]],
                        false,
                    )
                    .description(Some(
                        "On the API's address only with the admin token (CONTRACT §21): \
                         401 without it, for a user's token (primary or scoped) too, since \
                         the metrics name users. A 401 counts as a failed authentication, \
                         so a client locked out by them (§9) gets 429 here as on `/api/v1`. \
                         With `--metrics-bind ADDR` it is served on that address instead, \
                         without a token, and not on this one (404).",
                    ))
                    .response(
                        "200",
                        text("OpenMetrics text", "application/openmetrics-text"),
                    )
                    .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/openapi.json",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    operation(
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
                    .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/me",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    operation("me", "users", "The caller and its spaces", &[COMMON], false)
                        .description(Some(
                            "`spaceIds`: every space the caller's token reaches (CONTRACT §13, \
                             §14), ordered as `GET /api/v1/spaces`: the user's spaces for its \
                             primary token, those of its `spaceIds` for a scoped one. The admin \
                             token is no user → 401.",
                        ))
                        .response(
                            "200",
                            json_response("The caller", reference("MeEnvelope"), &[]),
                        )
                        .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/admin/users",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Post,
                    operation(
                        "create_user",
                        "users",
                        "Create a user and its default space (admin token)",
                        &[COMMON, WITH_BODY, WRITES, &[403]],
                        false,
                    )
                    .parameter(idempotency_key())
                    .request_body(Some(one_field_body(
                        "name",
                        string().min_length(Some(1)).max_length(Some(1000)),
                    )))
                    .response(
                        "201",
                        json_response(
                            "The user; its token is shown only here",
                            reference("CreatedUserEnvelope"),
                            &[],
                        ),
                    )
                    .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/admin/backup",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Post,
                    operation(
                        "backup",
                        "admin",
                        "Copy the data directory consistently while serving (admin token)",
                        &[COMMON, WITH_BODY, WRITES, &[403]],
                        false,
                    )
                    .parameter(idempotency_key())
                    .request_body(Some(one_field_body(
                        "to",
                        string().description(Some("An absolute path: a new or empty directory.")),
                    )))
                    .response(
                        "200",
                        json_response("What the copy holds", reference("BackupEnvelope"), &[]),
                    )
                    .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/changes",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    operation(
                        "changes",
                        "sync",
                        "Every record changed after a version (the change feed)",
                        &[COMMON],
                        false,
                    )
                    .parameter(space_parameter())
                    .parameter(since())
                    .parameter(query(
                        "limit",
                        integer(1, 1000),
                        "Records per page, default 100.",
                    ))
                    .response(
                        "200",
                        json_response("A page of changes", reference("ChangePage"), &[]),
                    )
                    .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/changes/stream",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Get,
                    operation(
                        "changes_stream",
                        "sync",
                        "The change feed, then each write as it commits (server-sent events)",
                        &[COMMON],
                        false,
                    )
                    .parameter(space_parameter())
                    .parameter(since())
                    .parameter(header_parameter("Last-Event-ID", "Replaces `since`."))
                    .response(
                        "200",
                        ResponseBuilder::new()
                            .description(
                                "An event stream; the schema is that of each event (OpenAPI 3.1 \
                                 has no `itemSchema`)",
                            )
                            .content(
                                "text/event-stream",
                                ContentBuilder::new()
                                    .schema(Some(reference("ChangeEvent")))
                                    .build(),
                            )
                            .build(),
                    )
                    .build(),
                )
                .build(),
        )
        .path(
            "/api/v1/batch",
            PathItemBuilder::new()
                .operation(
                    HttpMethod::Post,
                    operation(
                        "batch",
                        "sync",
                        "Up to 100 writes to one space, all or nothing",
                        &[COMMON, WITH_BODY, WRITES],
                        false,
                    )
                    .parameter(space_parameter())
                    .parameter(idempotency_key())
                    .request_body(Some(
                        json_body(batch_body).required(Some(Required::True)).build(),
                    ))
                    .response(
                        "200",
                        json_response("Every operation's result", reference("BatchResponse"), &[]),
                    )
                    .build(),
                )
                .build(),
        )
}

/// A path parameter.
fn path_parameter(name: &str, description: &str) -> ParameterBuilder {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(string()))
        .description(Some(description))
}

/// The routes of spaces and members (CONTRACT §13), of scoped tokens and of a user's new
/// primary token (§14). Only users have them: the admin token → 403, except on the
/// admin's own route. They are not record writes: no `If-Match`, no space version moved.
fn directory_paths(paths: PathsBuilder) -> PathsBuilder {
    let space_id = || path_parameter("spaceId", "The space.");
    let user_id = || path_parameter("userId", "The user.");
    let token_id = || path_parameter("tokenId", "The scoped token.");
    let body = |name: &str| {
        Some(
            json_body(reference(name))
                .required(Some(Required::True))
                .build(),
        )
    };
    let space = |description: &str| json_response(description, reference("SpaceEnvelope"), &[]);
    let member = |description: &str| json_response(description, reference("MemberEnvelope"), &[]);
    let token = |description: &str| json_response(description, reference("TokenEnvelope"), &[]);
    let spaces = PathItemBuilder::new()
        .operation(
            HttpMethod::Get,
            operation(
                "list_spaces",
                "spaces",
                "Every space the caller's token reaches",
                &[COMMON, USERS_ONLY],
                false,
            )
            .description(Some(
                "Ordered by `spaceId` (byte order), no paging; a scoped token sees only the \
                 spaces it reaches. 403: the admin token.",
            ))
            .response(
                "200",
                json_response("The spaces", reference("SpaceList"), &[]),
            )
            .build(),
        )
        .operation(
            HttpMethod::Post,
            operation(
                "create_space",
                "spaces",
                "Create a space, the caller its one owner",
                &[COMMON, WITH_BODY, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "The server picks the id; the space starts at version 0. 403: a scoped or the \
                 admin token. 409 limit_reached: the caller belongs to 1,000 spaces.",
            ))
            .parameter(idempotency_key())
            .request_body(body("SpaceCreate"))
            .response(
                "201",
                json_response("Created", reference("SpaceEnvelope"), &["Location"]),
            )
            .build(),
        )
        .build();
    let one_space = PathItemBuilder::new()
        .operation(
            HttpMethod::Get,
            operation(
                "get_space",
                "spaces",
                "One space the caller belongs to",
                &[COMMON, USERS_ONLY],
                false,
            )
            .description(Some(
                "404: a space the caller does not belong to or its token does not reach, \
                 whether it exists or not. 403: the admin token.",
            ))
            .parameter(space_id())
            .response("200", space("The space"))
            .build(),
        )
        .operation(
            HttpMethod::Patch,
            operation(
                "update_space",
                "spaces",
                "Rename a space (owner)",
                &[COMMON, WITH_BODY, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "`{}` changes nothing and answers the space. 403: below owner, a scoped or the \
                 admin token.",
            ))
            .parameter(space_id())
            .parameter(idempotency_key())
            .request_body(body("SpaceUpdate"))
            .response("200", space("The space"))
            .build(),
        )
        .operation(
            HttpMethod::Delete,
            operation(
                "delete_space",
                "spaces",
                "Delete a space, its records, feed and streams (owner)",
                &[COMMON, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "From then on the space is 404 for everyone and its id is never handed out \
                 again. 403: below owner, a scoped or the admin token. 409 default_space: the \
                 caller's default space.",
            ))
            .parameter(space_id())
            .parameter(idempotency_key())
            .response("200", space("The space as it was"))
            .build(),
        )
        .build();
    let members = PathItemBuilder::new()
        .operation(
            HttpMethod::Get,
            operation(
                "list_members",
                "spaces",
                "The members of a space",
                &[COMMON, USERS_ONLY],
                false,
            )
            .description(Some(
                "Ordered by `userId`, no paging. 403: the admin token.",
            ))
            .parameter(space_id())
            .response(
                "200",
                json_response("The members", reference("MemberList"), &[]),
            )
            .build(),
        )
        .build();
    let one_member = PathItemBuilder::new()
        .operation(
            HttpMethod::Put,
            operation(
                "put_member",
                "spaces",
                "Invite a user, or change the role of a member or invitation (owner)",
                &[COMMON, WITH_BODY, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "For a user who is not a member: an invitation (201, `state` `invited`); the \
                 user reaches the space once it accepts. For a member or a pending \
                 invitation: its role changed (200). 403: below owner, a scoped or the admin \
                 token. 404: the space, or an unknown user. 409 default_space (the space is a \
                 default space), last_owner (demoting its last owner) or limit_reached (1,000 \
                 members and invitations in the space, 1,000 pending invitations sent by the \
                 caller, or 10 pending from the caller to the user).",
            ))
            .parameter(space_id())
            .parameter(user_id())
            .parameter(idempotency_key())
            .request_body(body("MemberPut"))
            .response("200", member("The member or invitation, its role changed"))
            .response("201", member("The invitation"))
            .build(),
        )
        .operation(
            HttpMethod::Delete,
            operation(
                "remove_member",
                "spaces",
                "Remove a member or withdraw an invitation (owner), or leave or decline (the \
                 user itself)",
                &[COMMON, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "Takes effect at once: the member's next request on the space is 404 and its \
                 streams on it end. 403: below owner (removing another), a scoped or the admin \
                 token. 404: the space, or no such member or invitation. 409 default_space \
                 (leaving a default space) or last_owner (removing its last owner).",
            ))
            .parameter(space_id())
            .parameter(user_id())
            .parameter(idempotency_key())
            .response("200", member("The member as it was"))
            .build(),
        )
        .build();
    let accept = PathItemBuilder::new()
        .operation(
            HttpMethod::Post,
            operation(
                "accept_invitation",
                "spaces",
                "Accept an invitation to a space (the invited user)",
                &[COMMON, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "The caller is an active member from then on, with the invitation's role. \
                 403: a scoped or the admin token. 404: no pending invitation to the space. \
                 409 limit_reached: the caller belongs to 1,000 spaces.",
            ))
            .parameter(space_id())
            .parameter(idempotency_key())
            .response("200", space("The space, as the new member sees it"))
            .build(),
        )
        .build();
    let invitations = PathItemBuilder::new()
        .operation(
            HttpMethod::Get,
            operation(
                "list_invitations",
                "spaces",
                "The caller's pending invitations",
                &[COMMON, USERS_ONLY],
                false,
            )
            .description(Some(
                "Ordered by `invitedAt`, then `spaceId`; no paging. 403: a scoped or the admin \
                 token.",
            ))
            .response(
                "200",
                json_response("The invitations", reference("InvitationList"), &[]),
            )
            .build(),
        )
        .build();
    let tokens = PathItemBuilder::new()
        .operation(
            HttpMethod::Get,
            operation(
                "list_tokens",
                "tokens",
                "The caller's scoped tokens, without secrets",
                &[COMMON, USERS_ONLY],
                false,
            )
            .description(Some(
                "Live ones, ordered by `createdAt` then `tokenId`. 403: a scoped or the admin \
                 token.",
            ))
            .response(
                "200",
                json_response("The tokens", reference("TokenList"), &[]),
            )
            .build(),
        )
        .operation(
            HttpMethod::Post,
            operation(
                "create_token",
                "tokens",
                "Create a scoped token; its secret is shown only here",
                &[COMMON, WITH_BODY, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "403: a scoped or the admin token. 404: a space of `spaceIds` the user does not \
                 belong to. 409 limit_reached: 100 live scoped tokens.",
            ))
            .parameter(idempotency_key())
            .request_body(body("TokenCreate"))
            .response(
                "201",
                json_response(
                    "The token, with its secret in `token` (not in a replay)",
                    reference("TokenEnvelope"),
                    &["Location"],
                ),
            )
            .build(),
        )
        .build();
    let one_token = PathItemBuilder::new()
        .operation(
            HttpMethod::Get,
            operation(
                "get_token",
                "tokens",
                "One of the caller's scoped tokens, without its secret",
                &[COMMON, USERS_ONLY],
                false,
            )
            .description(Some(
                "404: another user's, or a revoked one. 403: a scoped or the admin token.",
            ))
            .parameter(token_id())
            .response("200", token("The token"))
            .build(),
        )
        .operation(
            HttpMethod::Delete,
            operation(
                "revoke_token",
                "tokens",
                "Revoke a scoped token",
                &[COMMON, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "It is refused (401) from the next request on, and its streams end. 403: a \
                 scoped or the admin token. 404: another user's, or a revoked one.",
            ))
            .parameter(token_id())
            .parameter(idempotency_key())
            .response("200", token("The token as it was"))
            .build(),
        )
        .build();
    let primary = PathItemBuilder::new()
        .operation(
            HttpMethod::Post,
            operation(
                "reset_primary_token",
                "users",
                "A new primary token for a user (admin token)",
                &[COMMON, DIRECTORY_WRITES],
                false,
            )
            .description(Some(
                "The old primary token is refused from the next request on, and the streams it \
                 opened end. 403: a user's token. 404: no such user.",
            ))
            .parameter(user_id())
            .parameter(idempotency_key())
            .response(
                "200",
                json_response(
                    "The user; its new token is shown only here",
                    reference("CreatedUserEnvelope"),
                    &[],
                ),
            )
            .build(),
        )
        .build();
    paths
        .path("/api/v1/spaces", spaces)
        .path("/api/v1/spaces/{spaceId}", one_space)
        .path("/api/v1/spaces/{spaceId}/members", members)
        .path("/api/v1/spaces/{spaceId}/members/{userId}", one_member)
        .path("/api/v1/spaces/{spaceId}/accept", accept)
        .path("/api/v1/invitations", invitations)
        .path("/api/v1/tokens", tokens)
        .path("/api/v1/tokens/{tokenId}", one_token)
        .path("/api/v1/admin/users/{userId}/token", primary)
}

/// The schemas of spaces, members and tokens (CONTRACT §13, §14): objects, their
/// envelopes and lists, and the request bodies.
fn directory_schemas(components: ComponentsBuilder) -> ComponentsBuilder {
    let role = || string().enum_values(Some(["owner", "editor", "viewer"]));
    let access = || string().enum_values(Some(["read", "write"]));
    let name = || {
        string()
            .min_length(Some(1))
            .max_length(Some(1000))
            .description(Some("1 to 1,000 characters."))
    };
    let stamp = || date_time().schema_type(Type::String);
    let space = ObjectBuilder::new()
        .property("spaceId", string())
        .property("name", string())
        .property(
            "role",
            role().description(Some("The caller's role in the space.")),
        )
        .property(
            "isDefault",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .description(Some("Whether it is the caller's default space.")),
        )
        .property("spaceVersion", version_schema())
        .property(
            "memberCount",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1)),
        )
        .property("createdAt", stamp());
    let space = [
        "spaceId",
        "name",
        "role",
        "isDefault",
        "spaceVersion",
        "memberCount",
        "createdAt",
    ]
    .into_iter()
    .fold(space, |s, name| s.required(name))
    .description(Some("A space as the caller sees it (CONTRACT §13)."));
    let member = ["userId", "name", "role", "addedAt", "state"]
        .into_iter()
        .fold(
            ObjectBuilder::new()
                .property("userId", string())
                .property("name", string().description(Some("The user's name.")))
                .property("role", role())
                .property(
                    "addedAt",
                    stamp().description(Some(
                        "When the user accepted; for an invitation, when it was invited.",
                    )),
                )
                .property(
                    "state",
                    string()
                        .enum_values(Some(["active", "invited"]))
                        .description(Some("`invited` until the user accepts.")),
                ),
            |m, name| m.required(name),
        )
        .description(Some(
            "A member of a space, or a user invited to it (CONTRACT §13, §21).",
        ));
    let invitation = ["spaceId", "name", "role", "invitedBy", "invitedAt"]
        .into_iter()
        .fold(
            ObjectBuilder::new()
                .property("spaceId", string())
                .property("name", string().description(Some("The space's name.")))
                .property("role", role())
                .property(
                    "invitedBy",
                    string().description(Some("The inviter's userId.")),
                )
                .property("invitedAt", stamp()),
            |i, name| i.required(name),
        )
        .description(Some("A pending invitation of the caller (CONTRACT §21)."));
    let space_ids = || {
        ArrayBuilder::new()
            .schema_type(nullable(Type::Array))
            .items(string())
    };
    let token = [
        "tokenId",
        "name",
        "access",
        "spaceIds",
        "expiresAt",
        "createdAt",
        "lastUsedAt",
    ]
    .into_iter()
    .fold(
        ObjectBuilder::new()
            .property("tokenId", string())
            .property("name", string())
            .property("access", access())
            .property(
                "spaceIds",
                space_ids().description(Some(
                    "The spaces it reaches; null for every space the user belongs to, now and \
                     later.",
                )),
            )
            .property(
                "expiresAt",
                date_time().description(Some(
                    "When it stops working (401 from then on, and its change streams end); \
                     null: never.",
                )),
            )
            .property("createdAt", stamp())
            .property(
                "lastUsedAt",
                date_time().description(Some(
                    "The last time it was accepted, to within a minute; null: never.",
                )),
            )
            // A secret is stored only as a hash: shown once, in the first answer to the
            // creation, and never again (not in a replay, a list or a GET).
            .property(
                "token",
                string().description(Some(
                    "The secret: only in the answer to the creation, not in a replay.",
                )),
            ),
        |t, name| t.required(name),
    )
    .description(Some("A scoped token (CONTRACT §14)."));
    let closed =
        || ObjectBuilder::new().additional_properties(Some(AdditionalProperties::FreeForm(false)));
    let space_create = closed().property("name", name()).required("name");
    let space_update = closed().property("name", name());
    let member_put = closed().property("role", role()).required("role");
    let token_create = closed()
        .property("name", name())
        .property("access", access())
        .property(
            "spaceIds",
            space_ids()
                .min_items(Some(1))
                .max_items(Some(MAX_TOKEN_SPACES))
                .description(Some(
                    "1 to 100 spaces the user belongs to (duplicates dropped); null or absent \
                     for every space, now and later.",
                )),
        )
        .property(
            "expiresAt",
            date_time().description(Some("In the future; null or absent for never.")),
        )
        .required("name")
        .required("access");
    let list = |item: &str| envelope(ArrayBuilder::new().items(reference(item)), &[]);
    components
        .schema("Space", space)
        .schema("SpaceEnvelope", envelope(reference("Space"), &[]))
        .schema("SpaceList", list("Space"))
        .schema("SpaceCreate", space_create)
        .schema("SpaceUpdate", space_update)
        .schema("Member", member)
        .schema("MemberEnvelope", envelope(reference("Member"), &[]))
        .schema("MemberList", list("Member"))
        .schema("MemberPut", member_put)
        .schema("Invitation", invitation)
        .schema("InvitationList", list("Invitation"))
        .schema("Token", token)
        .schema("TokenEnvelope", envelope(reference("Token"), &[]))
        .schema("TokenList", list("Token"))
        .schema("TokenCreate", token_create)
}

/// The schemas one kind adds besides its record and bodies: `TaskEnvelope` (one record),
/// `TaskPage` (a page of the collection) and `TaskChange` (a change feed entry).
fn kind_schemas(components: ComponentsBuilder, kind: Kind) -> ComponentsBuilder {
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
    components
        .schema(
            schema_name(kind, "Envelope"),
            envelope(record(), &[("spaceVersion", version_schema())]),
        )
        .schema(schema_name(kind, "Page"), page)
        .schema(schema_name(kind, "Change"), change)
}

/// The schemas shared by every kind, and those of the routes that are not a collection's.
fn shared_schemas(components: ComponentsBuilder) -> ComponentsBuilder {
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
    let batch_result = ObjectBuilder::new()
        .property(
            "status",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .enum_values(Some([200, 201])),
        )
        .property("data", reference("Record"))
        .required("status")
        .required("data");
    let batch_response = ObjectBuilder::new()
        .property(
            "results",
            ArrayBuilder::new().items(reference("BatchResult")),
        )
        .property("spaceVersion", version_schema())
        .required("results")
        .required("spaceVersion");
    let user = || {
        ObjectBuilder::new()
            .property("userId", string())
            .property("name", string())
            .property("defaultSpaceId", string())
            .required("userId")
            .required("name")
            .required("defaultSpaceId")
    };
    let me = user()
        .property(
            "spaceIds",
            ArrayBuilder::new().items(string()).description(Some(
                "Every space the caller's token reaches, ordered as `GET /api/v1/spaces`.",
            )),
        )
        .required("spaceIds");
    // A replayed creation answers without the token, which is kept nowhere (CONTRACT §11).
    let created_user = user()
        .property(
            "token",
            string().description(Some("Shown only in the first answer, not in a replay.")),
        )
        .description(Some(
            "A new user, or a user with a new primary token (admin routes).",
        ));
    let count = || {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
    };
    let backup = ObjectBuilder::new()
        .property("to", string())
        .property("spaces", count())
        .property("users", count())
        .property("bytes", count())
        .required("to")
        .required("spaces")
        .required("users")
        .required("bytes");
    let health = ObjectBuilder::new()
        .property("status", string().enum_values(Some(["ok", "degraded"])))
        .property("reason", string())
        .property("role", string().enum_values(Some(["primary", "standby"])))
        .property("node", string())
        .property(
            "appliedSeq",
            ObjectBuilder::new().schema_type(Type::Integer),
        )
        .property("lagSeq", ObjectBuilder::new().schema_type(Type::Integer))
        .description(Some(
            "role, node, appliedSeq and lagSeq are there with --nats (replication, §16)",
        ))
        .required("status");
    let primary = ObjectBuilder::new()
        .property("status", string().enum_values(Some(["primary", "standby"])))
        .property("node", string())
        .required("status");
    components
        .schema("Record", record)
        .schema("Change", change)
        .schema("ChangePage", change_page)
        .schema("ChangeEvent", change_event)
        .schema("BatchResult", batch_result)
        .schema("BatchResponse", batch_response)
        .schema("Me", me)
        .schema("MeEnvelope", envelope(reference("Me"), &[]))
        .schema("CreatedUser", created_user)
        .schema(
            "CreatedUserEnvelope",
            envelope(reference("CreatedUser"), &[]),
        )
        .schema("Backup", backup)
        .schema("BackupEnvelope", envelope(reference("Backup"), &[]))
        .schema("Health", health)
        .schema("PrimaryHealth", primary)
}

fn problem_schema() -> Object {
    ObjectBuilder::new()
        .property("type", string())
        .property("title", string())
        .property("status", ObjectBuilder::new().schema_type(Type::Integer))
        .property("code", string())
        .property("detail", string())
        .property(
            "errors",
            ArrayBuilder::new().items(
                ObjectBuilder::new()
                    .property("field", string())
                    .property("message", string())
                    .required("field")
                    .required("message"),
            ),
        )
        .property(
            "operationIndex",
            ObjectBuilder::new().schema_type(Type::Integer),
        )
        .property(
            "cycle",
            ArrayBuilder::new().items(string()).description(Some(
                "dependency_cycle: the cycle's task ids in order, the written task first; \
                 each names the next as a predecessor, the last names the first.",
            )),
        )
        .required("type")
        .required("title")
        .required("status")
        .required("code")
        .description(Some(
            "RFC 9457 problem details with taskd's `code` (CONTRACT §7).",
        ))
        .build()
}

fn document() -> OpenApi {
    let mut components = directory_schemas(shared_schemas(ComponentsBuilder::new()))
        .schema("Problem", problem_schema())
        .security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    for status in STATUSES {
        components = components.response(format!("Problem{status}"), problem_response(*status));
    }
    let mut paths = directory_paths(other_paths(PathsBuilder::new()));
    for kind in Kind::ALL {
        components = components
            .schema(schema_name(kind, ""), record_schema(kind))
            .schema(schema_name(kind, "Create"), body_schema(kind, true))
            .schema(schema_name(kind, "Update"), body_schema(kind, false));
        components = kind_schemas(components, kind);
        paths = collection_paths(paths, kind);
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("taskd")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "Task Management Service Interface v1: tasks, lists, schedules, categories and contexts in spaces with a version counter.",
                ))
                .build(),
        )
        .paths(paths.build())
        .components(Some(components.build()))
        .build()
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
}
