//! The OpenAPI 3.1 document of the API, served at `GET /api/v1/openapi.json` (no auth) and
//! rendered by Swagger UI at `/docs`.
//!
//! Most of it is derived: [`ApiDoc`] lists the handlers, whose `#[utoipa::path]` gives each
//! operation's parameters, bodies and every status it answers; the wire types of
//! [`super::dto`] they name are collected from them, and their `ToSchema` gives their
//! schemas. What is here is what cannot be derived:
//!
//! - the records of the five kinds, their create and update bodies, envelopes, pages and
//!   change entries, and the five collections' routes: one set of generic handlers serves
//!   every kind, so [`KindTable`] generates them from the kinds' field tables in
//!   [`crate::model::kind`] (a record's fields, their types and limits, the list filters);
//! - the problem+json responses ([`problems`]), whose texts name the limits of
//!   [`crate::model::limits`], added by [`Service`] with the bearer scheme and the route of
//!   this document itself, which Swagger UI serves.
//!
//! Every response body is a named component referenced with `$ref` (`TaskEnvelope`,
//! `TaskPage`, `ChangePage`, `BatchResponse`, ...), so a generated client has one model per
//! envelope rather than one per operation; item paths name their id as the interface does
//! (`/api/v1/tasks/{todoId}`).
//!
//! The files: this one holds [`ApiDoc`] and the schema builders the others share; `kinds`
//! the schemas generated from the field tables; `routes` the collections' routes, rows of a
//! table; `problems` the problem responses; `texts` the prose, as data.

use std::sync::LazyLock;

use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{schema::SchemaType, Components, ContentBuilder, Header, HeaderBuilder};
use utoipa::openapi::{HttpMethod, ObjectBuilder, OpenApi, Ref, RefOr, Response};
use utoipa::openapi::{ResponseBuilder, Schema, Type};
use utoipa::{Modify, OpenApi as _};

use super::dto::{self, id_pattern, of};
use super::{activity, batch, calendar, handlers, live, spaces, stream, tokens, webhooks};

mod kinds;
pub(crate) mod problems;
mod routes;
#[cfg(test)]
mod tests;
mod texts;

pub(crate) use kinds::schema_name;
use kinds::KindTable;

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
        handlers::healthz, handlers::healthz_primary, super::metrics,
        handlers::me, handlers::create_user, tokens::reset_primary, handlers::backup,
        handlers::changes, handlers::occurrences, stream::stream, live::live, batch::batch,
        calendar::export, calendar::import,
        spaces::list, spaces::create, spaces::get, spaces::update, spaces::delete,
        spaces::members, spaces::put_member, spaces::remove_member,
        spaces::accept, spaces::invitations,
        tokens::list, tokens::create, tokens::get, tokens::revoke,
        webhooks::create, webhooks::list, webhooks::get, webhooks::update, webhooks::delete,
        webhooks::rotate, webhooks::deliveries,
        activity::list, activity::revert,
    ),
    // The schemas the handlers name are collected from them; these two are only named by
    // the hand-built schema of a batch (`dto::BatchRequest`).
    components(schemas(dto::BatchOperation, dto::BatchMethod)),
    modifiers(&Service, &KindTable),
)]
pub(crate) struct ApiDoc;

/// The bearer scheme, the problem responses ([`problems`]), and the route of the document
/// itself (served by Swagger UI's service, so there is no handler to annotate).
pub(crate) struct Service;

impl Modify for Service {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Components::new);
        let bearer = SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer));
        components.add_security_scheme("bearer", bearer);
        for &status in problems::STATUSES {
            let response = problems::problem_response(status).into();
            components
                .responses
                .insert(format!("Problem{status}"), response);
        }
        let summary = "This document (no auth)";
        let document = routes::operation("openapi", "service", summary, &[429, 503]);
        let ok = json_response("The OpenAPI document", ObjectBuilder::new().into(), &[]);
        let path = "/api/v1/openapi.json";
        let document = document.response("200", ok).build();
        let get = vec![HttpMethod::Get];
        openapi.paths.add_path_operation(path, get, document);
    }
}

fn string() -> ObjectBuilder {
    of(Type::String)
}

fn nullable(ty: Type) -> SchemaType {
    SchemaType::from_iter([ty, Type::Null])
}

fn id_string() -> ObjectBuilder {
    string().pattern(Some(id_pattern()))
}

fn reference(name: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(name))
}

/// A JSON response with `schema` and the given headers.
fn json_response(description: &str, schema: RefOr<Schema>, headers: &[&str]) -> Response {
    let content = ContentBuilder::new().schema(Some(schema)).build();
    let response = ResponseBuilder::new().content("application/json", content);
    let response = headers
        .iter()
        .fold(response, |r, name| r.header(*name, header(name)));
    response.description(description).build()
}

/// A response header, a string, with what it means.
fn header(name: &str) -> Header {
    let header = HeaderBuilder::new().schema(string());
    header.description(Some(texts::header(name))).build()
}
