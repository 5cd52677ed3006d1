//! `POST /api/v1/batch` (docs §12): up to 100 writes to one space as one write, all
//! or nothing.
//!
//! Each operation names a write path of §4 and is validated like the request it stands
//! for; together they become one list of commands that the space applies in order, each
//! seeing the ones before it, under one version step per operation and one journal entry.

use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::value::RawValue;
use serde_json::{Map, Value as Json};

use super::error::ApiError;
use super::extract::{bounded_object, parse_fields, space_of, JsonBody, KeyClaim, Params};
use super::handlers::{send_write, OFF_WORKER_BYTES};
use super::openapi::problems::*;
use super::{dto, render};
use crate::core::Core;
use crate::edge::budget;
use crate::model::access;
use crate::model::activity::Via;
use crate::model::validate::{is_id, parse_changes};
use crate::model::{Caller, Command, FieldError, Kind, Mode, Op, ValidationError};
use crate::threads::heavy;

pub(crate) use crate::model::limits::MAX_OPERATIONS;

fn operations_rule() -> String {
    format!("must be an array of 1 to {MAX_OPERATIONS} operations")
}

/// `{"operations": [{"method", "path", "body"}]}` → `{"results": [{"status", "kind",
/// "data"}], "spaceVersion"}`: each result is what the single request would have answered,
/// with the record's `kind`. A malformed batch is 400 `validation_failed` naming
/// `operations[i].field`; an operation's own error comes with its `operationIndex`.
#[utoipa::path(
    post,
    path = "/api/v1/batch",
    operation_id = "batch",
    tag = "sync",
    summary = format!("Up to {MAX_OPERATIONS} writes to one space, all or nothing"),
    security(("bearer" = [])),
    params(dto::SpaceParam, dto::KeyHeader),
    request_body = dto::BatchRequest,
    responses(
        (status = 200, description = "Every operation's result", body = dto::BatchResponse),
        Writes,
    ),
)]
pub(crate) async fn batch(
    req: HttpRequest,
    caller: Caller,
    params: Params,
    key: KeyClaim,
    JsonBody(body): JsonBody,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    // A big batch (up to a megabyte of JSON) is read on a blocking thread; see
    // `OFF_WORKER_BYTES`.
    let big = body.len() > OFF_WORKER_BYTES;
    let operations = match big {
        true => heavy::run(&caller.account.id, move || parse_batch(&body)).await??,
        false => parse_batch(&body)?,
    };
    // A batch costs its operations (docs §25); the extractor charged the first.
    let more = u32::try_from(operations.len().saturating_sub(1)).unwrap_or(u32::MAX);
    budget::charge_more(&req, more).map_err(ApiError::OverBudget)?;
    let space = space_of(&caller, params.space_id(), None, access::Action::Write)?;
    let commands = match big {
        true => {
            let owned = space.to_string();
            heavy::run(&caller.account.id, move || commands(operations, &owned)).await??
        }
        false => commands(operations, space)?,
    };
    let answer = send_write(
        &req,
        &core,
        &caller,
        space,
        (commands, Via::Batch),
        key,
        render::batch_answer,
    )
    .await?
    .map_err(|(index, e)| ApiError::InOperation {
        index,
        error: Box::new(e.into()),
    })?;
    Ok(render::kept(&answer))
}

/// The validated commands of `operations` in space `space`, or the first operation's error
/// with its index.
fn commands(operations: Vec<Operation>, space: &str) -> Result<Vec<Command>, ApiError> {
    let mut commands = Vec::with_capacity(operations.len());
    for (index, (kind, action, body)) in operations.into_iter().enumerate() {
        let in_operation = |error: ApiError| ApiError::InOperation {
            index,
            error: Box::new(error),
        };
        commands.push(command(kind, action, body, space).map_err(in_operation)?);
    }
    Ok(commands)
}

/// What an operation does to which record, before its body is validated.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    Create,
    Update(Box<str>),
    Delete(Box<str>),
    Restore(Box<str>),
}

/// One operation: its kind, what it does, and its body.
type Operation = (Kind, Action, Map<String, Json>);

/// Checks the batch's shape, naming every bad `operations[i].field`. Valid JSON that is
/// not an object is a malformed batch too (docs §12 over §7's `invalid_json`).
fn parse_batch(body: &[u8]) -> Result<Vec<Operation>, ApiError> {
    let fields = match parse_fields(body) {
        Ok(fields) => fields,
        Err(_) if serde_json::from_slice::<&RawValue>(body).is_ok() => {
            let errors = vec![FieldError {
                field: "operations".into(),
                message: "the batch must be an object with an operations array".into(),
            }];
            return Err(ValidationError { errors }.into());
        }
        Err(e) => return Err(e),
    };
    let mut errors = Vec::new();
    let mut bad = |field: String, message: &str| {
        errors.push(FieldError {
            field,
            message: message.to_string(),
        })
    };
    let mut raw_operations = None;
    for (name, value) in fields {
        match name.as_str() {
            "operations" => raw_operations = Some(value),
            _ => bad(name, "unknown field"),
        }
    }
    let listed: Option<Vec<Box<RawValue>>> = raw_operations
        .as_deref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    let mut operations = Vec::new();
    match listed {
        None => bad("operations".into(), &operations_rule()),
        Some(list) if list.is_empty() || list.len() > MAX_OPERATIONS => {
            bad("operations".into(), &operations_rule())
        }
        Some(list) => {
            for (i, raw) in list.iter().enumerate() {
                match operation(raw) {
                    Ok(op) => operations.push(op),
                    Err(fields) => {
                        for (field, message) in fields {
                            bad(format!("operations[{i}].{field}"), message);
                        }
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(operations)
    } else {
        Err(ValidationError { errors }.into())
    }
}

/// One operation object, or its bad fields.
fn operation(raw: &RawValue) -> Result<Operation, Vec<(String, &'static str)>> {
    let Ok(fields) = parse_fields(raw.get().as_bytes()) else {
        return Err(vec![("method".into(), "an operation must be an object")]);
    };
    let mut errors = Vec::new();
    let (mut method, mut path, mut body) = (None, None, Map::new());
    for (name, value) in fields {
        match name.as_str() {
            "method" => method = serde_json::from_str::<String>(value.get()).ok(),
            "path" => path = serde_json::from_str::<String>(value.get()).ok(),
            "body" => match parse_fields(value.get().as_bytes()).and_then(bounded_object) {
                Ok(parsed) => body = parsed,
                Err(_) => errors.push((name, "must be a JSON object")),
            },
            _ => errors.push((name, "unknown field of an operation")),
        }
    }
    let method = method.filter(|m| ["POST", "PATCH", "DELETE"].contains(&m.as_str()));
    if method.is_none() {
        errors.push(("method".into(), "must be POST, PATCH or DELETE"));
    }
    let route = match (&method, &path) {
        (Some(method), Some(path)) => route(method, path),
        _ => None,
    };
    if route.is_none() && (method.is_some() || path.is_none()) {
        errors.push((
            "path".into(),
            "must be a write path of /api/v1 for the method, with no query",
        ));
    }
    match route {
        Some((kind, action)) if errors.is_empty() => Ok((kind, action, body)),
        _ => Err(errors),
    }
}

/// The kind and action a method and path stand for.
fn route(method: &str, path: &str) -> Option<(Kind, Action)> {
    let parts: Vec<&str> = path.strip_prefix("/api/v1/")?.split('/').collect();
    let kind = Kind::from_collection(parts[0])?;
    let id = || parts.get(1).filter(|id| is_id(id)).map(|id| Box::from(*id));
    let action = match (method, parts.len()) {
        ("POST", 1) => Action::Create,
        ("PATCH", 2) => Action::Update(id()?),
        ("DELETE", 2) => Action::Delete(id()?),
        ("POST", 3) if parts[2] == "restore" => Action::Restore(id()?),
        _ => return None,
    };
    Some((kind, action))
}

/// The command an operation stands for, its body validated as the request's would be.
fn command(
    kind: Kind,
    action: Action,
    body: Map<String, Json>,
    space: &str,
) -> Result<Command, ApiError> {
    let mode = match action {
        Action::Create => Mode::Create,
        _ => Mode::Update,
    };
    let mut changes = parse_changes(kind, mode, body)?;
    if changes.space_id.take().is_some_and(|named| named != space) {
        return Err(ApiError::SpaceConflict);
    }
    let (id, op) = match action {
        Action::Create => {
            let id = changes
                .id
                .take()
                .unwrap_or_else(|| uuid::Uuid::new_v4().to_string().into());
            (id, Op::Create(changes))
        }
        Action::Update(id) => (id, Op::Update(changes)),
        Action::Delete(id) => (id, Op::SetDeleted(true)),
        Action::Restore(id) => (id, Op::SetDeleted(false)),
    };
    Ok(Command {
        kind,
        id,
        op,
        if_match: None,
    })
}
