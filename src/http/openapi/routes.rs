//! The five collections' routes, generated from the kinds' field tables, and the builders
//! of operations and parameters they and the document's own route use.

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::path::PathItem;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn, PathItemBuilder,
};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{Ref, RefOr, Required, Schema};

use super::dto::{self};
use crate::model::kind::FieldType;
use crate::model::limits::{
    thousands, FILTER_MAX_CHARS, FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH, ORDER_BY_MAX_KEYS,
    PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, SEARCH_MAX_CHARS,
};
use crate::model::query::SortKey;
use crate::model::Kind;

use super::kinds::schema_name;
use super::{header, id_string, json_response, reference, string};

fn problem(status: u16) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(format!("Problem{status}")))
}

/// Statuses every collection operation may answer with (the operations derived from
/// handlers list theirs in `#[utoipa::path]`).
pub(super) const COMMON: &[u16] = &[400, 401, 404, 429, 500, 503];
/// More statuses of an operation with a body.
pub(super) const WITH_BODY: &[u16] = &[408, 413, 415];
/// Statuses of writes: roles and tokens, records, references, preconditions and
/// idempotency keys.
pub(super) const WRITES: &[u16] = &[403, 409, 412, 422];

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
pub(super) fn collection_paths(kind: Kind) -> Vec<(String, PathItem)> {
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
