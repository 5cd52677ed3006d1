//! The five collections' routes, rows of a table walked for each kind, and the builder of
//! operations they and the document's own route use.

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{HttpMethod, Operation, OperationBuilder};
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::{ResponseBuilder, Responses};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{OpenApi, Required};
use utoipa::IntoParams;

use super::kinds::schema_name;
use super::problems::{problem_refs, Reads, Writes};
use super::{dto, header, id_string, json_response, of, reference, string, texts};
use crate::model::kind::FieldType;
use crate::model::limits::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, SEARCH_MAX_CHARS};
use crate::model::Kind;
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

/// One operation of every collection, at `path` below it (`{id}`: a record's id):
/// `{noun}` and `{tag}` in its id and summary stand for the kind's noun and collection. A
/// GET reads: it answers [`Reads`], and 304 to `If-None-Match`; the other methods write
/// and answer every problem ([`Writes`]).
struct Route {
    path: Text,
    method: HttpMethod,
    id: Text,
    summary: Text,
    parameters: &'static [Param],
    /// The request body's schema, by its suffix (`TaskCreate`: `Create`).
    body: Option<Text>,
    success: Success,
}

/// Parameters of a write to one record.
const RECORD_WRITE: &[Param] = &[Id, Space, IfMatch, IdempotencyKey];

/// The routes of every collection: the list and create, the item's get, update and delete,
/// and its restore.
const ROUTES: [Route; 6] = [
    Route {
        path: "",
        method: HttpMethod::Get,
        id: "list_{tag}",
        summary: "A page of {tag}",
        parameters: &[Space, Limit, Cursor, IncludeDeleted, IfNoneMatch, Filters],
        body: None,
        success: PAGE,
    },
    Route {
        path: "",
        method: HttpMethod::Post,
        id: "create_{noun}",
        summary: "Create a {noun}",
        parameters: &[Space, IdempotencyKey],
        body: Some("Create"),
        success: CREATED,
    },
    Route {
        path: "/{id}",
        method: HttpMethod::Get,
        id: "get_{noun}",
        summary: "One {noun}, deleted or not",
        parameters: &[Id, Space, IfNoneMatch],
        body: None,
        success: RECORD,
    },
    Route {
        path: "/{id}",
        method: HttpMethod::Patch,
        id: "update_{noun}",
        summary: "Change fields of a {noun}",
        parameters: RECORD_WRITE,
        body: Some("Update"),
        success: RECORD,
    },
    Route {
        path: "/{id}",
        method: HttpMethod::Delete,
        id: "delete_{noun}",
        summary: "Soft-delete a {noun}",
        parameters: RECORD_WRITE,
        body: None,
        success: RECORD,
    },
    Route {
        path: "/{id}/restore",
        method: HttpMethod::Post,
        id: "restore_{noun}",
        summary: "Restore a soft-deleted {noun}",
        parameters: RECORD_WRITE,
        body: None,
        success: RECORD,
    },
];

/// Adds the routes of [`ROUTES`] on the collection of `kind`; the path names the id as
/// the interface does (`{todoId}`).
pub(super) fn add_routes(openapi: &mut OpenApi, kind: Kind) {
    let id = format!("{{{}}}", kind.id_field());
    for route in &ROUTES {
        let path = format!("/api/v1/{}{}", kind.collection(), route.path);
        let operation = route_operation(kind, route);
        let (path, methods) = (path.replace("{id}", &id), vec![route.method.clone()]);
        openapi.paths.add_path_operation(path, methods, operation);
    }
}

/// The operation of `route` on the collection of `kind`.
fn route_operation(kind: Kind, route: &Route) -> Operation {
    let order = match kind {
        Kind::Task => "orderBy (by default sortOrder)",
        _ => "sortOrder",
    };
    let fill = |text: &str| {
        let text = text.replace("{noun}", kind.noun());
        text.replace("{tag}", kind.collection())
            .replace("{order}", order)
    };
    let read = route.method == HttpMethod::Get;
    let problems = if read {
        Reads::STATUSES
    } else {
        Writes::STATUSES
    };
    let summary = fill(route.summary);
    let mut op = operation(&fill(route.id), kind.collection(), &summary, problems)
        .security(SecurityRequirement::new("bearer", Vec::<String>::new()))
        .parameters(Some(
            route.parameters.iter().flat_map(|p| parameters(kind, *p)),
        ));
    if let Some(suffix) = route.body {
        let schema = ContentBuilder::new().schema(Some(reference(&schema_name(kind, suffix))));
        let body = RequestBodyBuilder::new().content("application/json", schema.build());
        op = op.request_body(Some(body.build()));
    }
    let (status, description, suffix, headers) = route.success;
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
fn parameters(kind: Kind, parameter: Param) -> Vec<Parameter> {
    use ParameterIn::{Header, Path, Query};
    let described = |at, name, schema| vec![param(at, name, schema, texts::parameter(name))];
    let limit = || {
        of(Type::Integer)
            .minimum(Some(1_usize))
            .maximum(Some(PAGE_LIMIT_MAX))
    };
    match parameter {
        // The path parameter has the interface's name (`todoId`, `listId`, ...): the kind's
        // own id field. The server's routes call it `{id}`; the name is not seen on the wire.
        Id => described(Path, kind.id_field(), id_string()),
        Space => dto::SpaceParam::into_params(|| None),
        Limit => described(
            Query,
            "limit",
            limit().default(Some(PAGE_LIMIT_DEFAULT.into())),
        ),
        Cursor => described(Query, "cursor", string()),
        IncludeDeleted => described(Query, "includeDeleted", of(Type::Boolean)),
        IfNoneMatch => described(Header, "If-None-Match", string()),
        IfMatch => described(Header, "If-Match", string()),
        IdempotencyKey => described(Header, "Idempotency-Key", dto::idempotency_key_schema()),
        Filters => list_filters(kind),
    }
}

/// The exact filters of a listing (from its kind's field table) and, for tasks, the
/// query parameters of docs §17.
fn list_filters(kind: Kind) -> Vec<Parameter> {
    let exact = kind.fields().iter().filter(|f| f.filter).map(|field| {
        let (schema, text) = match field.ty {
            FieldType::Blocked => (
                string().enum_values(Some(["true", "false"])),
                texts::BLOCKED,
            ),
            _ => (string(), "Exact match."),
        };
        (field.name, schema, Some(text.to_string()))
    });
    let mut filters: Vec<_> = exact.collect();
    if kind == Kind::Task {
        let search = string().max_length(Some(SEARCH_MAX_CHARS));
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
