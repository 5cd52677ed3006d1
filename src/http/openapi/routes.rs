//! The five collections' routes, rows of a table walked for each kind, and the builder of
//! operations they and the document's own route use.

use utoipa::openapi::path::{Operation, OperationBuilder, Parameter};
use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::{ContentBuilder, HttpMethod, ObjectBuilder, OpenApi, Required};
use utoipa::openapi::{ResponseBuilder, Responses, SecurityRequirement, Type};
use utoipa::IntoParams;

use super::kinds::schema_name;
use super::problems::{problem_refs, Reads, Writes};
use super::{dto, header, id_string, json_response, of, reference, string, texts};
use crate::model::{kind::FieldType, limits, Kind};
use HttpMethod::{Delete, Get, Patch, Post};
use Param::*;

/// A parameter of a collection's routes; [`texts::parameter`] says what it means.
#[derive(Clone, Copy)]
enum Param {
    Id,
    Space,
    Limit,
    Cursor,
    IncludeDeleted,
    IfNoneMatch,
    IfMatch,
    IdempotencyKey,
    /// The listing's filters: see [`list_filters`].
    Filters,
}

/// What a route answers on success: the status, its description (`{order}` stands for
/// the kind's order), the schema by its suffix (`TaskPage`: `Page`) and the headers.
type Success = (Text, Text, Text, &'static [Text]);
type Text = &'static str;

const PAGE: Success = (
    "200",
    "A page, ordered by {order} then id",
    "Page",
    &["ETag"],
);
const CREATED: Success = ("201", "Created", "Envelope", &["ETag", "Location"]);
const RECORD: Success = ("200", "The record", "Envelope", &["ETag"]);

/// One operation of every collection: its path below the collection (`{id}`: a record's
/// id), method, id and summary (where `{noun}` and `{tag}` stand for the kind's noun and
/// collection), parameters, request body (the schema by its suffix, `TaskCreate`:
/// `Create`) and success. A GET reads: it answers [`Reads`], and 304 to `If-None-Match`;
/// the other methods write and answer every problem ([`Writes`]).
type Route = (Text, HttpMethod, Text, Text, Params, Option<Text>, Success);
type Params = &'static [Param];

/// The parameters of a listing, a create, a read of one record, and a write to one.
const LIST: Params = &[Space, Limit, Cursor, IncludeDeleted, IfNoneMatch, Filters];
const CREATE: Params = &[Space, IdempotencyKey];
const READ: Params = &[Id, Space, IfNoneMatch];
const WRITE: Params = &[Id, Space, IfMatch, IdempotencyKey];

/// The routes of every collection, a row each: the list and create, the item's get,
/// update and delete, and its restore.
#[rustfmt::skip]
const ROUTES: [Route; 6] = [
    ("", Get, "list_{tag}", "A page of {tag}", LIST, None, PAGE),
    ("", Post, "create_{noun}", "Create a {noun}", CREATE, Some("Create"), CREATED),
    ("/{id}", Get, "get_{noun}", "One {noun}, deleted or not", READ, None, RECORD),
    ("/{id}", Patch, "update_{noun}", "Change fields of a {noun}", WRITE, Some("Update"), RECORD),
    ("/{id}", Delete, "delete_{noun}", "Soft-delete a {noun}", WRITE, None, RECORD),
    ("/{id}/restore", Post, "restore_{noun}", "Restore a soft-deleted {noun}", WRITE, None, RECORD),
];

/// Adds the routes of [`ROUTES`] on the collection of `kind`; the path names the id as
/// the interface does (`{todoId}`).
pub(super) fn add_routes(openapi: &mut OpenApi, kind: Kind) {
    let id = format!("{{{}}}", kind.id_field());
    for route in &ROUTES {
        let path = format!("/api/v1/{}{}", kind.collection(), route.0);
        let operation = route_operation(kind, route);
        let (path, methods) = (path.replace("{id}", &id), vec![route.1.clone()]);
        openapi.paths.add_path_operation(path, methods, operation);
    }
    add_activity_route(openapi, kind, &id);
}

/// Adds `GET /api/v1/{collection}/{id}/activity` (docs §23): the space's activity with
/// `kind` and `id` set to the record's, so it takes the other parameters of
/// `GET /api/v1/activity`; a record that never existed is 404.
fn add_activity_route(openapi: &mut OpenApi, kind: Kind, id: &str) {
    let path = format!("/api/v1/{}/{id}/activity", kind.collection());
    let summary = format!("The activity of a {}, newest first", kind.noun());
    let operation_id = format!("list_{}_activity", kind.noun());
    let set_by_route = |p: &Parameter| p.name != "kind" && p.name != "id";
    let query = dto::ActivityParams::into_params(|| None).into_iter();
    let parameters = params(kind, Id).into_iter().chain(params(kind, Space));
    let parameters = parameters.chain(query.filter(set_by_route));
    let page = json_response("A page of entries", reference("ActivityPage"), &[]);
    let operation = operation(&operation_id, kind.collection(), &summary, Reads::STATUSES)
        .security(SecurityRequirement::new("bearer", Vec::<String>::new()))
        .parameters(Some(parameters))
        .response("200", page);
    openapi
        .paths
        .add_path_operation(path, vec![Get], operation.build());
}

/// The operation of `route` on the collection of `kind`.
fn route_operation(kind: Kind, route: &Route) -> Operation {
    let (_, method, id, summary, parameters, body, success) = route;
    let order = match kind {
        Kind::Task => "orderBy (by default sortOrder)",
        _ => "sortOrder",
    };
    let fill = |text: &str| {
        let text = text
            .replace("{noun}", kind.noun())
            .replace("{tag}", kind.collection());
        text.replace("{order}", order)
    };
    let read = *method == Get;
    let problems = if read {
        Reads::STATUSES
    } else {
        Writes::STATUSES
    };
    let summary = fill(summary);
    let mut op = operation(&fill(id), kind.collection(), &summary, problems)
        .security(SecurityRequirement::new("bearer", Vec::<String>::new()))
        .parameters(Some(parameters.iter().flat_map(|p| params(kind, *p))));
    if let Some(suffix) = body {
        let schema = ContentBuilder::new().schema(Some(reference(&schema_name(kind, suffix))));
        let body = RequestBodyBuilder::new().content("application/json", schema.build());
        op = op.request_body(Some(body.build()));
    }
    let (status, description, suffix, headers) = *success;
    let schema = reference(&schema_name(kind, suffix));
    op = op.response(status, json_response(&fill(description), schema, headers));
    if read {
        let not_modified = ResponseBuilder::new()
            .description("Not Modified: `If-None-Match` matched")
            .header("ETag", header("ETag"));
        op = op.response("304", not_modified.build());
    }
    op.build()
}

/// What `parameter` stands for on the routes of `kind`.
fn params(kind: Kind, parameter: Param) -> Vec<Parameter> {
    use ParameterIn::{Header, Path, Query};
    let described = |at, name, schema| vec![param(at, name, schema, texts::parameter(name))];
    match parameter {
        // The path parameter has the interface's name (`todoId`, `listId`, ...): the kind's
        // own id field. The server's routes call it `{id}`; the name is not seen on the wire.
        Id => described(Path, kind.id_field(), id_string()),
        Space => dto::SpaceParam::into_params(|| None),
        Limit => described(Query, "limit", page_limit()),
        Cursor => described(Query, "cursor", string()),
        IncludeDeleted => described(Query, "includeDeleted", of(Type::Boolean)),
        IfNoneMatch => described(Header, "If-None-Match", string()),
        IfMatch => described(Header, "If-Match", string()),
        IdempotencyKey => described(Header, "Idempotency-Key", dto::idempotency_key_schema()),
        Filters => list_filters(kind),
    }
}

/// `limit` of a listing.
fn page_limit() -> ObjectBuilder {
    let limit = of(Type::Integer).minimum(Some(1_usize));
    let limit = limit.maximum(Some(limits::PAGE_LIMIT_MAX));
    limit.default(Some(limits::PAGE_LIMIT_DEFAULT.into()))
}

/// The exact filters of a listing (from its kind's field table) and, for tasks, the
/// query parameters of docs §17.
fn list_filters(kind: Kind) -> Vec<Parameter> {
    let exact = kind.fields().iter().filter(|f| f.filter).map(|field| {
        let booleans = string().enum_values(Some(["true", "false"]));
        let (schema, text) = match field.ty {
            FieldType::Blocked => (booleans, texts::BLOCKED),
            FieldType::Ref(_) => (string(), texts::REFERENCE),
            _ => (string(), "Exact match."),
        };
        (field.name, schema, Some(text.to_string()))
    });
    let mut filters: Vec<_> = exact.collect();
    if kind == Kind::Task {
        let search = string().max_length(Some(limits::SEARCH_MAX_CHARS));
        let tz = string().default(Some("UTC".into()));
        let task = [
            ("filter", string()),
            ("q", search),
            ("orderBy", string()),
            ("tz", tz),
        ];
        filters.extend(task.map(|(name, schema)| (name, schema, texts::parameter(name))));
    }
    let query = |(name, schema, text)| param(ParameterIn::Query, name, schema, text);
    filters.into_iter().map(query).collect()
}

/// A parameter, required where it is in the path.
fn param(at: ParameterIn, name: &str, schema: ObjectBuilder, text: Option<String>) -> Parameter {
    let required = match at {
        ParameterIn::Path => Required::True,
        _ => Required::False,
    };
    let parameter = ParameterBuilder::new().name(name).schema(Some(schema));
    let parameter = parameter.parameter_in(at).required(required);
    parameter.description(text).build()
}

/// An operation with the problem responses of `statuses`.
pub(super) fn operation(id: &str, tag: &str, summary: &str, statuses: &[u16]) -> OperationBuilder {
    let responses = Responses::from_iter(problem_refs(statuses));
    let op = OperationBuilder::new().operation_id(Some(id)).tag(tag);
    op.summary(Some(summary)).responses(responses)
}
