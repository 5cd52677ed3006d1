//! The JSON API's answers: records ([`crate::wire`]'s form) in their envelopes, pages,
//! feed pages and stream events, the directory's answers, and answers kept for
//! idempotency keys.
//!
//! The answers that carry records (an item, a page, a write's and a batch's answer, feed
//! pages and stream events) are written straight into one buffer: their envelopes as byte
//! strings, each record by [`RecordJson::write`]. Their shapes are the ones the `dto`
//! types document in the OpenAPI document. Every other answer is a serde-derived `dto`
//! rendered by serde_json.

use actix_web::http::{header, StatusCode};
use actix_web::HttpResponse;
use serde::Serialize;

use super::dto::{self, MemberState};
use crate::actors::directory::Answer;
use crate::core::conditional::etag;
use crate::core::deliveries::Attempt;
use crate::model::kept::KeptAnswer;
use crate::model::webhook::{Position, Webhook};
use crate::model::{
    Account, Caller, FeedPage, Invitation, Item, Kind, Member, Outcome, Page, RateLimit, Record,
    Role, SpaceInfo, Token, Touched,
};
use crate::wire::{self, RecordJson, Stamp};

/// The buffer an answer with records is written into, sized for a record's envelope (so
/// rendering one does not grow it several times).
fn buffer() -> Vec<u8> {
    Vec::with_capacity(1024)
}

/// Makes room in `out` for `rest` more items the size of the one that began at `start`,
/// and a quarter more for items a little longer: an answer of many records grows once,
/// not by doubling with a copy every few records.
fn room_for_more(out: &mut Vec<u8>, start: usize, rest: usize) {
    out.reserve((out.len() - start + 1) * rest * 5 / 4 + 64);
}

/// `{"data": record, "spaceVersion": version}`.
fn one(kind: Kind, space: &str, record: &Record, version: u64) -> Vec<u8> {
    let mut out = buffer();
    out.extend_from_slice(b"{\"data\":");
    RecordJson {
        kind,
        space,
        record,
    }
    .write(&mut out);
    out.extend_from_slice(b",\"spaceVersion\":");
    wire::unsigned(&mut out, version);
    out.push(b'}');
    out
}

/// A JSON response with `status` and `body`.
fn json_body(status: StatusCode, body: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .body(body)
}

/// A JSON answer to keep with `status` and `body`.
fn json_answer(status: StatusCode, body: Vec<u8>) -> KeptAnswer {
    KeptAnswer {
        status: status.as_u16(),
        content_type: "application/json".into(),
        location: None,
        etag: None,
        body,
    }
}

/// A JSON response with `status`.
pub(crate) fn json<T: Serialize>(status: StatusCode, body: &T) -> HttpResponse {
    match to_json(body) {
        Ok(bytes) => json_body(status, bytes),
        Err(e) => actix_web::ResponseError::error_response(&super::error::ApiError::Internal(
            format!("cannot render JSON: {e}"),
        )),
    }
}

/// `body` as JSON, into an answer's [`buffer`].
fn to_json<T: Serialize>(body: &T) -> serde_json::Result<Vec<u8>> {
    let mut bytes = buffer();
    serde_json::to_writer(&mut bytes, body)?;
    Ok(bytes)
}

/// Serializes `body` as a JSON answer with `status`.
fn answer<T: Serialize>(status: StatusCode, body: &T) -> KeptAnswer {
    match to_json(body) {
        Ok(body) => json_answer(status, body),
        Err(e) => {
            log::error!("cannot render JSON: {e}");
            KeptAnswer {
                status: 500,
                content_type: "application/problem+json".into(),
                location: None,
                etag: None,
                body: Vec::new(),
            }
        }
    }
}

/// The answer to a single write: `201` with `Location` for a create, else `200`, the
/// record and `ETag`. Also how the answer kept for its idempotency key is made.
pub(crate) fn write_answer(outcome: &Outcome, space: &str) -> KeptAnswer {
    let step = &outcome.steps[0];
    let Touched { kind, record } = &step.touched[0];
    let status = if step.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut kept = json_answer(status, one(*kind, space, record, outcome.version));
    kept.etag = Some(etag(record.version).into());
    if step.created {
        kept.location = Some(format!("/api/v1/{}/{}", kind.collection(), record.id).into());
    }
    kept
}

/// The answer to a batch: `{"results": [{"status", "kind", "data"}, ...], "spaceVersion":
/// v}`.
pub(crate) fn batch_answer(outcome: &Outcome, space: &str) -> KeptAnswer {
    let results = outcome.steps.iter().map(|step| {
        let status = if step.created { 201 } else { 200 };
        (status, &step.touched[0])
    });
    json_answer(StatusCode::OK, batch(space, results, outcome.version))
}

/// A [`dto::BatchResponse`] of `results` (each a status and the record it leaves) at
/// `version`.
pub(crate) fn batch<'a>(
    space: &str,
    results: impl ExactSizeIterator<Item = (u16, &'a Touched)>,
    version: u64,
) -> Vec<u8> {
    let mut out = buffer();
    out.extend_from_slice(b"{\"results\":[");
    let count = results.len();
    for (i, (status, touched)) in results.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let start = out.len();
        out.extend_from_slice(b"{\"status\":");
        wire::unsigned(&mut out, status.into());
        out.extend_from_slice(b",\"kind\":");
        wire::string(&mut out, touched.kind.noun());
        out.extend_from_slice(b",\"data\":");
        RecordJson {
            kind: touched.kind,
            space,
            record: &touched.record,
        }
        .write(&mut out);
        out.push(b'}');
        if i == 0 {
            room_for_more(&mut out, start, count - 1);
        }
    }
    out.extend_from_slice(b"],\"spaceVersion\":");
    wire::unsigned(&mut out, version);
    out.push(b'}');
    out
}

/// The answer to a user's creation (`201`) or to a new primary token (`200`): the user,
/// with its new token shown and not kept (docs §11: tokens are stored nowhere).
pub(crate) fn user_answer(status: StatusCode, account: &Account, token: &str) -> Answer {
    let mut user = dto::CreatedUser {
        default_space_id: account.default_space.clone(),
        name: account.name.clone(),
        token: None,
        user_id: account.id.clone(),
    };
    let kept = data(status, &user, None);
    user.token = Some(token.into());
    Answer {
        shown: data(status, &user, None),
        kept,
    }
}

/// The space object (docs §13) as `caller` sees it, at `version`.
pub(crate) fn space(info: &SpaceInfo, caller: &Caller, version: u64) -> dto::Space {
    let role = info.members.get(&caller.account.id).map(|m| m.role.into());
    dto::Space {
        created_at: Stamp(info.created_at),
        is_default: info.default_of.as_deref() == Some(&*caller.account.id),
        member_count: info.members.len(),
        name: info.name.clone(),
        role,
        space_id: info.id.clone(),
        space_version: version,
    }
}

/// A member object (docs §13, §21) of an active member; `name` is the user's.
pub(crate) fn member(user: &str, name: &str, member: &Member) -> dto::Member {
    member_object(
        user,
        name,
        member.role,
        member.added_at,
        MemberState::Active,
    )
}

/// A member object (docs §21) of a user with a pending invitation: `addedAt` is the
/// time of the invitation until it is accepted.
pub(crate) fn invitee(user: &str, name: &str, invitation: &Invitation) -> dto::Member {
    member_object(
        user,
        name,
        invitation.role,
        invitation.at,
        MemberState::Invited,
    )
}

fn member_object(
    user: &str,
    name: &str,
    role: Role,
    added_at: i64,
    state: MemberState,
) -> dto::Member {
    dto::Member {
        added_at: Stamp(added_at),
        name: name.into(),
        role: role.into(),
        state,
        user_id: user.into(),
    }
}

/// An invitation as its invited user sees it (docs §21).
pub(crate) fn invitation(space: &SpaceInfo, invitation: &Invitation) -> dto::Invitation {
    dto::Invitation {
        invited_at: Stamp(invitation.at),
        invited_by: invitation.by.clone(),
        name: space.name.clone(),
        role: invitation.role.into(),
        space_id: space.id.clone(),
    }
}

/// A token object (docs §14) with its own budget, if any (docs §25), and its secret only
/// when given.
pub(crate) fn token(
    token: &Token,
    rate_limit: Option<RateLimit>,
    secret: Option<&str>,
) -> dto::Token {
    dto::Token {
        access: token.access.into(),
        created_at: Stamp(token.created_at),
        expires_at: token.expires_at.map(Stamp),
        last_used_at: token.last_used_at.map(Stamp),
        name: token.name.clone(),
        rate_limit: rate_limit.map(|l| dto::RateLimit {
            per_second: l.per_second,
            burst: l.burst,
        }),
        space_ids: token.spaces.clone(),
        token: secret.map(Box::from),
        token_id: token.id.clone(),
    }
}

/// A webhook object (docs §19) at `position` with `pending` events, with its secret
/// only when given.
pub(crate) fn webhook(
    webhook: &Webhook,
    position: &Position,
    pending: u64,
    secret: Option<&str>,
) -> dto::Webhook {
    let at = Webhook {
        position: position.clone(),
        ..webhook.clone()
    };
    dto::Webhook {
        webhook_id: webhook.id.clone(),
        space_id: webhook.space.clone(),
        url: webhook.url.clone(),
        events: webhook.events.clone(),
        description: webhook.description.clone(),
        active: webhook.active,
        created_at: Stamp(webhook.created_at),
        last_delivered_version: at.last_delivered(),
        pending,
        disabled_reason: webhook.disabled_reason.clone(),
        secret: secret.map(Box::from),
    }
}

/// A delivery attempt of a webhook's log.
pub(crate) fn delivery_attempt(attempt: &Attempt) -> dto::Delivery {
    dto::Delivery {
        webhook_message_id: attempt.webhook_message_id.clone(),
        attempt: attempt.attempt,
        at: Stamp(attempt.at),
        status: attempt.status,
        duration_ms: attempt.duration_ms,
        error: attempt.error.clone(),
    }
}

/// `{"data": data}` with `status`, and `Location` when given, as an answer to keep.
pub(crate) fn data<T: Serialize>(
    status: StatusCode,
    data: &T,
    location: Option<String>,
) -> KeptAnswer {
    KeptAnswer {
        location: location.map(Box::from),
        ..answer(status, &dto::Envelope { data })
    }
}

/// The response for a kept answer.
pub(crate) fn kept(answer: &KeptAnswer) -> HttpResponse {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = HttpResponse::build(status);
    response.content_type(&*answer.content_type);
    if let Some(location) = &answer.location {
        response.insert_header((header::LOCATION, &**location));
    }
    if let Some(tag) = &answer.etag {
        response.insert_header((header::ETAG, &**tag));
    }
    response.body(answer.body.clone())
}

/// `200 {"data": record, "spaceVersion": n}` with the record's `ETag`.
pub(crate) fn item(kind: Kind, space: &str, item: &Item) -> HttpResponse {
    let mut response = json_body(StatusCode::OK, one(kind, space, &item.record, item.version));
    set_etag(&mut response, item.record.version);
    response
}

/// `304 Not Modified` with the tag that matched.
pub(crate) fn not_modified(version: u64) -> HttpResponse {
    let mut response = HttpResponse::NotModified().finish();
    set_etag(&mut response, version);
    response
}

fn set_etag(response: &mut HttpResponse, version: u64) {
    if let Ok(value) = header::HeaderValue::from_str(&etag(version)) {
        response.headers_mut().insert(header::ETAG, value);
    }
}

/// `{"data": [...], "spaceVersion": n, "nextCursor": ...}` with the space's `ETag`.
pub(crate) fn page(kind: Kind, space: &str, page: &Page) -> HttpResponse {
    let mut out = buffer();
    out.extend_from_slice(b"{\"data\":[");
    for (i, record) in page.records.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let start = out.len();
        RecordJson {
            kind,
            space,
            record,
        }
        .write(&mut out);
        if i == 0 {
            room_for_more(&mut out, start, page.records.len() - 1);
        }
    }
    out.extend_from_slice(b"],\"spaceVersion\":");
    wire::unsigned(&mut out, page.version);
    out.extend_from_slice(b",\"nextCursor\":");
    match &page.next_cursor {
        Some(cursor) => wire::string(&mut out, cursor),
        None => out.extend_from_slice(b"null"),
    }
    out.push(b'}');
    let mut response = json_body(StatusCode::OK, out);
    set_etag(&mut response, page.version);
    response
}

/// The rendered records after which a feed page ends, at the end of a version (§9a).
pub(crate) const FEED_PAGE_BYTES: usize = 4 << 20;

/// `{"data": [changes], "spaceVersion", "nextSince", "hasMore"}`. The page ends early, at
/// the end of a version, once its rendered records pass [`FEED_PAGE_BYTES`]; then
/// `nextSince` is the last rendered version and `hasMore` is true.
pub(crate) fn feed(space: &str, page: &FeedPage) -> HttpResponse {
    let mut out = Vec::from(&b"{\"data\":["[..]);
    let mut last = None;
    let mut rendered = 0;
    for change in &page.changes {
        let version = change.record.version;
        if out.len() > FEED_PAGE_BYTES && last != Some(version) {
            break;
        }
        if rendered > 0 {
            out.push(b',');
        }
        let start = out.len();
        change_json(&mut out, space, change);
        if rendered == 0 {
            let fit = FEED_PAGE_BYTES / (out.len() - start);
            room_for_more(&mut out, start, (page.changes.len() - 1).min(fit));
        }
        (last, rendered) = (Some(version), rendered + 1);
    }
    let cut = rendered < page.changes.len();
    let next_since = match (cut, last) {
        (true, Some(last)) => last,
        _ => page.next_since,
    };
    let tail = format!(
        "],\"spaceVersion\":{},\"nextSince\":{next_since},\"hasMore\":{}}}",
        page.version,
        cut || page.has_more
    );
    out.extend_from_slice(tail.as_bytes());
    HttpResponse::Ok()
        .content_type("application/json")
        .body(out)
}

/// Appends one change as the feed and the stream show it to `out`: `{"kind": ...,
/// "record": {...}}`.
fn change_json(out: &mut Vec<u8>, space: &str, change: &Touched) {
    out.extend_from_slice(b"{\"kind\":");
    wire::string(out, change.kind.noun());
    out.extend_from_slice(b",\"record\":");
    RecordJson {
        kind: change.kind,
        space,
        record: &change.record,
    }
    .write(out);
    out.push(b'}');
}

/// The server-sent event of one change: `id`, `event: change`, `data`.
pub(crate) fn event(space: &str, change: &Touched) -> Vec<u8> {
    let mut out = format!("id: {}\nevent: change\ndata: ", change.record.version).into_bytes();
    change_json(&mut out, space, change);
    out.extend_from_slice(b"\n\n");
    out
}

/// The server-sent events of `changes`, one per record, together.
pub(crate) fn events(space: &str, changes: &[Touched]) -> Vec<u8> {
    changes.iter().flat_map(|c| event(space, c)).collect()
}
