//! The five collections' routes, generated from the kinds' field tables, and the builders
//! of operations and parameters they and the document's own route use.

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItemBuilder,
};
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{Ref, RefOr, Required, Schema};

use super::dto::{self};
use crate::model::kind::FieldType;
use crate::model::limits::{PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, SEARCH_MAX_CHARS};
use crate::model::Kind;

use super::kinds::schema_name;
use super::texts;
use super::{header, id_string, json_response, reference, string};

fn problem(status: u16) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(format!("Problem{status}")))
}

/// Statuses every collection operation may answer with (the operations derived from
/// handlers list theirs in `#[utoipa::path]`).
const COMMON: &[u16] = &[400, 401, 404, 429, 500, 503];
/// More statuses of an operation with a body.
const WITH_BODY: &[u16] = &[408, 413, 415];
/// Statuses of writes: roles and tokens, records, references, preconditions and
/// idempotency keys.
const WRITES: &[u16] = &[403, 409, 412, 422];

/// Where a route of a collection is: the collection, one record, or its restore.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Collection,
    Item,
    Restore,
}

/// A parameter of a collection's route.
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
}

/// What a route of a collection answers on success.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Success {
    /// 200, a page of the collection.
    Page,
    /// 201, the new record.
    Created,
    /// 200, the record.
    Record,
}

/// One operation of a collection: `{noun}` and `{tag}` in its id and summary stand for the
/// kind's noun and collection; a write answers every problem of a write with a body.
struct Route {
    at: At,
    method: HttpMethod,
    id: &'static str,
    summary: &'static str,
    write: bool,
    parameters: &'static [Param],
    /// The request body's schema, by its suffix (`TaskCreate`: `Create`).
    body: Option<&'static str>,
    success: Success,
    /// Whether it answers 304 to `If-None-Match`.
    not_modified: bool,
}

/// Parameters of a write to one record.
const RECORD_WRITE: &[Param] = &[
    Param::Id,
    Param::Space,
    Param::IfMatch,
    Param::IdempotencyKey,
];

/// The routes of every collection: the list and create, the item's get, update and delete,
/// and its restore.
const ROUTES: [Route; 6] = [
    Route {
        at: At::Collection,
        method: HttpMethod::Get,
        id: "list_{tag}",
        summary: "A page of {tag}",
        write: false,
        parameters: &[
            Param::Space,
            Param::Limit,
            Param::Cursor,
            Param::IncludeDeleted,
            Param::IfNoneMatch,
        ],
        body: None,
        success: Success::Page,
        not_modified: true,
    },
    Route {
        at: At::Collection,
        method: HttpMethod::Post,
        id: "create_{noun}",
        summary: "Create a {noun}",
        write: true,
        parameters: &[Param::Space, Param::IdempotencyKey],
        body: Some("Create"),
        success: Success::Created,
        not_modified: false,
    },
    Route {
        at: At::Item,
        method: HttpMethod::Get,
        id: "get_{noun}",
        summary: "One {noun}, deleted or not",
        write: false,
        parameters: &[Param::Id, Param::Space, Param::IfNoneMatch],
        body: None,
        success: Success::Record,
        not_modified: true,
    },
    Route {
        at: At::Item,
        method: HttpMethod::Patch,
        id: "update_{noun}",
        summary: "Change fields of a {noun}",
        write: true,
        parameters: RECORD_WRITE,
        body: Some("Update"),
        success: Success::Record,
        not_modified: false,
    },
    Route {
        at: At::Item,
        method: HttpMethod::Delete,
        id: "delete_{noun}",
        summary: "Soft-delete a {noun}",
        write: true,
        parameters: RECORD_WRITE,
        body: None,
        success: Success::Record,
        not_modified: false,
    },
    Route {
        at: At::Restore,
        method: HttpMethod::Post,
        id: "restore_{noun}",
        summary: "Restore a soft-deleted {noun}",
        write: true,
        parameters: RECORD_WRITE,
        body: None,
        success: Success::Record,
        not_modified: false,
    },
];

/// The paths of one collection, each with its routes of [`ROUTES`].
pub(super) fn collection_paths(kind: Kind) -> Vec<(String, PathItem)> {
    let base = format!("/api/v1/{}", kind.collection());
    let item = format!("{base}/{{{}}}", kind.id_field());
    let restore = format!("{item}/restore");
    [
        (At::Collection, base),
        (At::Item, item),
        (At::Restore, restore),
    ]
    .into_iter()
    .map(|(at, path)| {
        let routes = ROUTES.iter().filter(|route| route.at == at);
        let item = routes.fold(PathItemBuilder::new(), |item, route| {
            item.operation(route.method.clone(), route_operation(kind, route))
        });
        (path, item.build())
    })
    .collect()
}

/// The operation of `route` on the collection of `kind`.
fn route_operation(kind: Kind, route: &Route) -> Operation {
    let (noun, tag) = (kind.noun(), kind.collection());
    let fill = |text: &str| text.replace("{noun}", noun).replace("{tag}", tag);
    let errors: &[&[u16]] = match route.write {
        true => &[COMMON, WITH_BODY, WRITES],
        false => &[COMMON],
    };
    let mut op = operation(&fill(route.id), tag, &fill(route.summary), errors, false);
    for parameter in route.parameters {
        op = op.parameter(collection_parameter(kind, *parameter));
    }
    if let Some(suffix) = route.body {
        let schema = ContentBuilder::new()
            .schema(Some(reference(&schema_name(kind, suffix))))
            .build();
        op = op.request_body(Some(
            RequestBodyBuilder::new()
                .content("application/json", schema)
                .build(),
        ));
    }
    let one = || reference(&schema_name(kind, "Envelope"));
    op = match route.success {
        Success::Page => {
            let order = match kind {
                Kind::Task => "A page, ordered by orderBy (by default sortOrder) then id",
                _ => "A page, ordered by sortOrder then id",
            };
            let page = reference(&schema_name(kind, "Page"));
            op.response("200", json_response(order, page, &["ETag"]))
        }
        Success::Created => op.response(
            "201",
            json_response("Created", one(), &["ETag", "Location"]),
        ),
        Success::Record => op.response("200", json_response("The record", one(), &["ETag"])),
    };
    if route.not_modified {
        let not_modified = ResponseBuilder::new()
            .description("Not Modified: `If-None-Match` matched")
            .header("ETag", header("ETag"));
        op = op.response("304", not_modified.build());
    }
    if route.success == Success::Page {
        op = list_filters(kind, op);
    }
    op.build()
}

/// The exact filters of a listing (from its kind's field table) and, for tasks, the
/// query parameters of docs §17.
fn list_filters(kind: Kind, mut list: OperationBuilder) -> OperationBuilder {
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
    match kind {
        Kind::Task => task_query_parameters(list),
        _ => list,
    }
}

/// A parameter of a collection's routes.
fn collection_parameter(kind: Kind, parameter: Param) -> ParameterBuilder {
    let header = |name: &str, description: &str| {
        ParameterBuilder::new()
            .name(name)
            .parameter_in(ParameterIn::Header)
            .required(Required::False)
            .schema(Some(string()))
            .description(Some(description))
    };
    match parameter {
        // The path parameter has the interface's name (`todoId`, `listId`, ...): the kind's
        // own id field. The server's routes call it `{id}`; the name is not seen on the wire.
        Param::Id => ParameterBuilder::new()
            .name(kind.id_field())
            .parameter_in(ParameterIn::Path)
            .required(Required::True)
            .schema(Some(id_string())),
        Param::Space => query(
            "spaceId",
            string(),
            "The space; else the body's `spaceId`, else the caller's default space.",
        ),
        Param::Limit => query(
            "limit",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1_usize))
                .maximum(Some(PAGE_LIMIT_MAX))
                .default(Some(PAGE_LIMIT_DEFAULT.into())),
            &format!("Page size, default {PAGE_LIMIT_DEFAULT}."),
        ),
        Param::Cursor => query("cursor", string(), "`nextCursor` of the previous page."),
        Param::IncludeDeleted => query(
            "includeDeleted",
            ObjectBuilder::new().schema_type(Type::Boolean),
            "Include soft-deleted records.",
        ),
        Param::IfNoneMatch => header(
            "If-None-Match",
            "An ETag (or `*`); when it matches → 304 Not Modified, empty body.",
        ),
        Param::IfMatch => header(
            "If-Match",
            "`*` or a list of ETags; when none is the record's → 412 precondition_failed.",
        ),
        Param::IdempotencyKey => header(
            "Idempotency-Key",
            "Printable ASCII characters: a retry with the same key and body gets the first \
             answer again (24 h).",
        )
        .schema(Some(dto::idempotency_key_schema())),
    }
}

/// `filter`, `q`, `orderBy` and `tz` of the task listing (docs §17).
fn task_query_parameters(list: OperationBuilder) -> OperationBuilder {
    let parameters = [
        ("filter", string(), texts::filter()),
        (
            "q",
            string().max_length(Some(SEARCH_MAX_CHARS)),
            texts::search(),
        ),
        ("orderBy", string(), texts::order_by()),
        ("tz", string().default(Some("UTC".into())), texts::TZ.into()),
    ];
    parameters
        .into_iter()
        .fold(list, |list, (name, schema, text)| {
            list.parameter(query(name, schema, &text))
        })
}

fn query(name: &str, schema: impl Into<RefOr<Schema>>, description: &str) -> ParameterBuilder {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .schema(Some(schema))
        .description(Some(description))
}

/// An operation with the bearer requirement (unless `public`), the given success responses
/// and the problem responses of `errors`.
pub(super) fn operation(
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
