//! Request extractors: the collection and id in the path, the caller behind the bearer
//! token, query parameters and the JSON body. Each fails with an [`ApiError`], so a
//! handler's arguments are already checked when it runs. Handlers list them in the order
//! the checks should apply: route (404), token (401), path id (400), query, body.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::fmt;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures_util::future::{ready, LocalBoxFuture, Ready};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value as Json};

use super::error::ApiError;
use crate::core::{conditional, reach, Core};
use crate::edge::{body, budget};
use crate::model::access::{Action, Reason};
use crate::model::kept::{KeptAnswer, KeyUse};
use crate::model::kind::FieldType;
use crate::model::limits::{
    FEED_LIMIT_DEFAULT, FEED_LIMIT_MAX, MAX_IDS, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX,
};
use crate::model::limits::{OCCURRENCES_LIMIT_DEFAULT, OCCURRENCES_LIMIT_MAX};
use crate::model::query::{time_zone, OrderBy, ParameterError, Search};
use crate::model::recurrence::zone;
use crate::model::times::{OccurrenceQuery, When};
use crate::model::validate::{id_rule, is_id, parse_time};
use crate::model::views::DEFINITION;
use crate::model::{Caller, IfMatch, Kind, ListQuery, Plan, TaskQuery};

/// The largest request body accepted.
pub(crate) use crate::model::limits::MAX_BODY_BYTES;

/// The kind whose collection the request's path names: the routes of each collection
/// carry their kind as app data (see `http::configure`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Collection(pub Kind);

impl FromRequest for Collection {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.app_data::<Collection>()
                .copied()
                .ok_or_else(|| ApiError::NotFound(format!("no such path: {}", req.path()))),
        )
    }
}

/// The `{id}` path segment, which must be id-shaped.
#[derive(Debug, Clone)]
pub(crate) struct RecordId(pub String);

impl FromRequest for RecordId {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let id = req.match_info().get("id").unwrap_or_default();
        ready(if is_id(id) {
            Ok(RecordId(id.to_string()))
        } else {
            Err(ApiError::InvalidParameter(format!(
                "path id '{id}' {}",
                id_rule()
            )))
        })
    }
}

/// The bearer token of `req`, and the core that knows whose it is.
fn token(req: &HttpRequest) -> Result<(&str, &Core), ApiError> {
    let core = super::core(req)?;
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or(ApiError::Unauthorized)?;
    let (scheme, token) = value.split_once(' ').ok_or(ApiError::Unauthorized)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(ApiError::Unauthorized);
    }
    Ok((token, core))
}

/// The user (and token) behind the request's bearer token; 401 without a known, live one,
/// 429 when the token's budget is spent (it is charged here, [`budget::charge`]).
impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(token(req).and_then(|(token, directory)| {
            let caller = directory
                .authenticate(token)
                .ok_or(ApiError::Unauthorized)?;
            budget::charge(req, &caller).map_err(ApiError::OverBudget)?;
            Ok(caller)
        }))
    }
}

/// The caller of a route that only users have (spaces, members, tokens): as [`Caller`],
/// but `403` for the admin token, which is no user (§13).
#[derive(Debug, Clone)]
pub(crate) struct UserCaller(pub Caller);

impl FromRequest for UserCaller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            token(req).and_then(|(token, directory)| match directory.authenticate(token) {
                Some(caller) => {
                    budget::charge(req, &caller).map_err(ApiError::OverBudget)?;
                    Ok(UserCaller(caller))
                }
                None if directory.is_admin(token) => Err(ApiError::Forbidden(Reason::Admin)),
                None => Err(ApiError::Unauthorized),
            }),
        )
    }
}

/// The space a request works in: the query's `spaceId`, else the body's, else the
/// caller's default; checked for `action` ([`reach`]). 400 when query and body
/// name different spaces; 404 for a space the caller (or its token) does not reach, so
/// other users' spaces cannot even be confirmed to exist; 403 when its role or token does
/// not allow the action.
pub(crate) fn space_of<'a>(
    caller: &'a Caller,
    query: Option<&'a str>,
    body: Option<&'a str>,
    action: Action,
) -> Result<&'a str, ApiError> {
    let named = match (query, body) {
        (Some(q), Some(b)) if q != b => return Err(ApiError::SpaceConflict),
        (Some(q), _) => Some(q),
        (None, b) => b,
    };
    let space = named.unwrap_or(&caller.account.default_space);
    reach(caller, Some(space), action)?;
    Ok(space)
}

/// A request made with the admin token; 403 for a user's token, 401 for anything else.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Admin;

impl Admin {
    /// Whether `req` carries the admin token: the one place that decides it. A refusal
    /// says whether there was another token, which each extractor then answers as it must
    /// without deciding access a second time.
    fn check(req: &HttpRequest) -> Result<Admin, NotAdmin<'_>> {
        let (token, directory) = token(req).map_err(NotAdmin::NoToken)?;
        if directory.is_admin(token) {
            Ok(Admin)
        } else {
            Err(NotAdmin::Other(token, directory))
        }
    }
}

/// Why a request is not the admin's.
enum NotAdmin<'a> {
    /// No bearer token (or the directory is missing): the error to answer.
    NoToken(ApiError),
    /// Another token, perhaps a user's.
    Other(&'a str, &'a Core),
}

impl FromRequest for Admin {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Admin::check(req).map_err(|refused| match refused {
            NotAdmin::NoToken(e) => e,
            NotAdmin::Other(token, directory) if directory.authenticate(token).is_some() => {
                ApiError::Forbidden(Reason::AdminOnly)
            }
            NotAdmin::Other(..) => ApiError::Unauthorized,
        }))
    }
}

/// A request made with the admin token, as [`Admin`], but `401` for every other token, a
/// user's (primary or scoped) included: for `/metrics` on the API's address (docs
/// §21), where a `403` would only tell a caller that its token is a user's.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AdminToken;

impl FromRequest for AdminToken {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        // A user's token is not even looked up: it is refused as any unknown token is,
        // and its `lastUsedAt` does not move.
        ready(
            Admin::check(req)
                .map(|Admin| AdminToken)
                .map_err(|refused| match refused {
                    NotAdmin::NoToken(e) => e,
                    NotAdmin::Other(..) => ApiError::Unauthorized,
                }),
        )
    }
}

/// The record a request names: its kind, the caller, its id and the query, checked in
/// that order.
pub(crate) struct Target {
    /// The kind.
    pub kind: Kind,
    /// The caller.
    pub caller: Caller,
    /// The record id.
    pub id: String,
    /// The query parameters.
    pub params: Params,
}

impl FromRequest for Target {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let target = (|| {
            let Collection(kind) = Collection::from_request(req, payload).into_inner()?;
            let caller = Caller::from_request(req, payload).into_inner()?;
            let RecordId(id) = RecordId::from_request(req, payload).into_inner()?;
            let params = Params::from_request(req, payload).into_inner()?;
            Ok(Target {
                kind,
                caller,
                id,
                params,
            })
        })();
        ready(target)
    }
}

/// The query string's parameters; unknown ones are kept and ignored by handlers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params(Vec<(String, String)>);

impl FromRequest for Params {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            serde_urlencoded::from_str(req.query_string())
                .map(Params)
                .map_err(|e| ApiError::InvalidParameter(format!("malformed query string: {e}"))),
        )
    }
}

impl Params {
    /// The first value of parameter `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `spaceId` parameter.
    pub(crate) fn space_id(&self) -> Option<&str> {
        self.get("spaceId")
    }

    /// The `since` of a change feed or stream: an integer from 0 (the default); `header`
    /// (a stream's `Last-Event-ID`) replaces the parameter when present. Whether the space
    /// has reached it is checked by the space.
    pub(crate) fn since(&self, header: Option<&str>) -> Result<u64, ApiError> {
        match header.or(self.get("since")) {
            None => Ok(0),
            Some(raw) => raw.parse::<u64>().map_err(|_| {
                ApiError::InvalidParameter(format!(
                    "since must be an integer from 0 to the space version, not '{raw}'"
                ))
            }),
        }
    }

    /// The `limit` of a change feed: 1 to [`FEED_LIMIT_MAX`], by default
    /// [`FEED_LIMIT_DEFAULT`].
    pub(crate) fn feed_limit(&self) -> Result<usize, ApiError> {
        self.limit(FEED_LIMIT_DEFAULT, FEED_LIMIT_MAX)
    }

    /// The query of a task's occurrences (docs §18): `from` and `to`, each an RFC 3339
    /// date-time or a date `YYYY-MM-DD`, and `limit` (1 to [`OCCURRENCES_LIMIT_MAX`]).
    pub(crate) fn occurrence_query(&self) -> Result<OccurrenceQuery, ApiError> {
        let when = |name: &str| -> Result<Option<When>, ApiError> {
            let Some(raw) = self.get(name) else {
                return Ok(None);
            };
            let when = match zone::parse_date(raw) {
                Some(day) => Some(When::Day(day)),
                None => parse_time(raw).map(When::At),
            };
            when.map(Some).ok_or_else(|| {
                ApiError::InvalidParameter(format!(
                    "{name} must be an RFC 3339 date-time or a date YYYY-MM-DD, not '{raw}'"
                ))
            })
        };
        Ok(OccurrenceQuery {
            from: when("from")?,
            to: when("to")?,
            limit: self.limit(OCCURRENCES_LIMIT_DEFAULT, OCCURRENCES_LIMIT_MAX)?,
        })
    }

    /// The `limit` parameter: 1 to `max`, `default` when absent.
    fn limit(&self, default: usize, max: usize) -> Result<usize, ApiError> {
        match self.get("limit") {
            None => Ok(default),
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| {
                    ApiError::InvalidParameter(format!(
                        "limit must be an integer from 1 to {max}, not '{raw}'"
                    ))
                }),
        }
    }

    /// The listing query of a collection of `kind`: `limit` (see [`PAGE_LIMIT_MAX`]),
    /// `includeDeleted` (`true`/`false`), `cursor`, and the kind's filter fields; for tasks
    /// also `filter`, `q`, `orderBy` and `tz` (docs §17), which other kinds ignore as
    /// unknown parameters. The filter is parsed by the space, against the walk's `now`.
    pub(crate) fn list_query(&self, kind: Kind, plan: Plan) -> Result<ListQuery, ApiError> {
        let limit = self.limit(PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX)?;
        let include_deleted = match self.get("includeDeleted") {
            None | Some("false") => false,
            Some("true") => true,
            Some(raw) => {
                return Err(ApiError::InvalidParameter(format!(
                    "includeDeleted must be true or false, not '{raw}'"
                )))
            }
        };
        let mut filters = Vec::new();
        for (i, field) in kind.fields().iter().enumerate().filter(|(_, f)| f.filter) {
            let Some(value) = self.get(field.name) else {
                continue;
            };
            if field.ty == FieldType::Blocked && value != "true" && value != "false" {
                return Err(ApiError::InvalidParameter(format!(
                    "{} must be true or false, not '{value}'",
                    field.name
                )));
            }
            if matches!(field.ty, FieldType::Ref(_)) && !value.is_empty() && !is_id(value) {
                return Err(ApiError::InvalidParameter(format!(
                    "{} must be an id (or empty, for none), not '{value}'",
                    field.name
                )));
            }
            filters.push((i, value.to_string()));
        }
        let view = match kind {
            Kind::Task => self.view_id()?,
            _ => None,
        };
        Ok(ListQuery {
            limit,
            include_deleted,
            filters,
            cursor: self.get("cursor").map(str::to_string),
            find: (kind == Kind::Task)
                .then(|| self.task_query())
                .transpose()?,
            plan,
            view,
        })
    }

    /// The `viewId` of a task listing or a live view (docs §24): an id, alone (a `filter`,
    /// `q`, `orderBy` or `tz` beside it is `400 invalid_parameter`, as is one that is not
    /// id-shaped).
    pub(crate) fn view_id(&self) -> Result<Option<Box<str>>, ApiError> {
        let Some(id) = self.get("viewId") else {
            return Ok(None);
        };
        if !is_id(id) {
            return Err(ApiError::InvalidParameter(format!(
                "viewId must be an id, not '{id}'"
            )));
        }
        if let Some(beside) = DEFINITION.into_iter().find(|p| self.get(p).is_some()) {
            return Err(ApiError::InvalidParameter(format!(
                "{beside} cannot be given with viewId: the view's definition is the query"
            )));
        }
        Ok(Some(id.into()))
    }

    /// The §17 parameters of a task listing, `now` being the request's time.
    pub(crate) fn task_query(&self) -> Result<TaskQuery, ApiError> {
        let refused = |e: ParameterError| ApiError::InvalidParameter(e.to_string());
        Ok(TaskQuery {
            filter: self.get("filter").unwrap_or_default().to_string(),
            search: Search::parse(self.get("q").unwrap_or_default()).map_err(refused)?,
            order: match self.get("orderBy") {
                Some(text) => OrderBy::parse(text).map_err(refused)?,
                None => OrderBy::default(),
            },
            tz: match self.get("tz") {
                Some(name) => time_zone(name).map_err(refused)?,
                None => chrono_tz::UTC,
            },
            now: chrono::Utc::now().timestamp_millis(),
        })
    }
}

/// A request body sent as JSON; an empty body counts as `{}`.
///
/// 408 (and the connection closed) when the body does not arrive within the
/// body timeout ([`body::read`]), 413 over [`MAX_BODY_BYTES`], 415 for a non-empty body without a JSON
/// content type (`application/json` or `*/*+json`, any parameters).
#[derive(Debug, Default)]
pub(crate) struct JsonBody(pub Bytes);

impl FromRequest for JsonBody {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let is_json = matches!(req.mime_type(), Ok(Some(m))
            if m.type_() == mime::APPLICATION
                && (m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON)));
        let body = body::read(req, payload, MAX_BODY_BYTES);
        Box::pin(async move {
            let body = body.await?;
            if body.is_empty() {
                return Ok(JsonBody(Bytes::from_static(b"{}")));
            }
            if !is_json {
                return Err(ApiError::UnsupportedMediaType);
            }
            Ok(JsonBody(body))
        })
    }
}

/// A request body that is a JSON object (see [`JsonBody`]), its values unparsed;
/// duplicate keys: the last one wins. 400 `invalid_json` for a body that is not a JSON
/// object.
#[derive(Debug, Default)]
pub(crate) struct JsonFields(pub BTreeMap<String, Box<RawValue>>);

impl FromRequest for JsonFields {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = JsonBody::from_request(req, payload);
        Box::pin(async move { parse_fields(&body.await?.0).map(JsonFields) })
    }
}

/// A JSON object's fields, unparsed.
pub(crate) fn parse_fields(body: &[u8]) -> Result<BTreeMap<String, Box<RawValue>>, ApiError> {
    match serde_json::from_slice(body) {
        Ok(fields) => Ok(fields),
        Err(e) if e.is_data() => Err(ApiError::InvalidJson(
            "the body must be a JSON object".into(),
        )),
        Err(e) => Err(ApiError::InvalidJson(format!("the body is not JSON: {e}"))),
    }
}

/// A request body that is a JSON object (see [`JsonFields`]), parsed at a bounded cost
/// ([`bounded_value`]): no value costs more than its bytes to read, however long its
/// arrays, so an over-long body is refused at about the cost of receiving it.
#[derive(Debug, Clone, Default)]
pub(crate) struct JsonObject(pub Map<String, Json>);

impl FromRequest for JsonObject {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let fields = JsonFields::from_request(req, payload);
        Box::pin(async move { bounded_object(fields.await?.0).map(JsonObject) })
    }
}

/// Parses every value of an object with [`bounded_value`].
pub(crate) fn bounded_object(
    fields: BTreeMap<String, Box<RawValue>>,
) -> Result<Map<String, Json>, ApiError> {
    fields
        .into_iter()
        .map(|(name, raw)| Ok((name, bounded_value(&raw)?)))
        .collect()
}

/// The `If-Match` of a request, read by the one rule of every front
/// ([`conditional::if_match`]): `*`, or the versions of its strong tags (a weak or
/// malformed tag matches nothing).
#[derive(Debug, Clone, Default)]
pub(crate) struct Preconditions(pub Option<IfMatch>);

impl FromRequest for Preconditions {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let values = req
            .headers()
            .get_all(header::IF_MATCH)
            .map(|v| v.as_bytes());
        ready(Ok(Preconditions(conditional::if_match(values))))
    }
}

/// Whether the `If-None-Match` of `req` matches the tag of `version` (see
/// [`conditional::none_match`]).
pub(crate) fn none_match(req: &HttpRequest, version: u64) -> bool {
    let values = req.headers().get_all(header::IF_NONE_MATCH);
    conditional::none_match(values.map(|v| v.as_bytes()), version)
}

/// The idempotency key the request claimed (see `http::idempotency`), if any.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyClaim(pub Option<KeyUse>);

impl FromRequest for KeyClaim {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(KeyClaim(req.extensions().get::<KeyUse>().cloned())))
    }
}

/// Tells the idempotency middleware that the handler stored the key's answer with its
/// write, and what that answer is.
pub(crate) fn kept_with_write(req: &HttpRequest, answer: KeptAnswer) {
    req.extensions_mut().insert(answer);
}

/// A top-level value of a body, parsed at a cost bounded by its bytes. Every field takes
/// a scalar, a small object (a token's `rateLimit`), an array of ids or an array of small
/// objects (`reminders`), so:
/// - an object of at most [`SMALL_OBJECT_BYTES`] is parsed; a bigger one is never valid
///   and is not parsed (an empty one fails the same way);
/// - an array keeps its distinct strings and its objects in order, the way id arrays are
///   validated, and stops keeping anything once it holds more than [`MAX_IDS`] of them or
///   another value (the rest is only scanned), which fails validation with the same
///   message as the whole array would.
fn bounded_value(raw: &RawValue) -> Result<Json, ApiError> {
    let text = raw.get();
    let parsed = match text.as_bytes().first() {
        Some(b'{') if text.len() <= SMALL_OBJECT_BYTES => serde_json::from_str(text),
        Some(b'{') => Ok(Json::Object(Map::new())),
        Some(b'[') => serde_json::from_str::<BoundedArray>(text).map(|a| Json::Array(a.0)),
        _ => serde_json::from_str(text),
    };
    parsed.map_err(|e| ApiError::InvalidJson(format!("the body is not JSON: {e}")))
}

/// The longest object [`bounded_value`] reads whole.
const SMALL_OBJECT_BYTES: usize = 1024;

/// An array read by [`bounded_value`].
struct BoundedArray(Vec<Json>);

impl<'de> Deserialize<'de> for BoundedArray {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BoundedArray, D::Error> {
        deserializer.deserialize_seq(BoundedArrayVisitor)
    }
}

struct BoundedArrayVisitor;

impl<'de> Visitor<'de> for BoundedArrayVisitor {
    type Value = BoundedArray;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BoundedArray, A::Error> {
        let mut kept: Vec<Json> = Vec::new();
        let mut seen: HashSet<String> = HashSet::with_capacity(MAX_IDS + 1);
        while kept.len() <= MAX_IDS {
            match seq.next_element::<Element>()? {
                None => return Ok(BoundedArray(kept)),
                Some(Element::Text(s)) => {
                    if !seen.contains(&*s) {
                        seen.insert(s.to_string());
                        kept.push(Json::String(s.into_owned()));
                    }
                }
                Some(Element::Object(object)) => kept.push(object),
                Some(Element::Other) => {
                    kept = vec![Json::Null];
                    break;
                }
            }
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(BoundedArray(kept))
    }
}

/// An array element: a string (borrowed from the body when it has no escapes), an object,
/// or anything else (read past, not kept).
enum Element<'de> {
    Text(Cow<'de, str>),
    Object(Json),
    Other,
}

impl<'de> Deserialize<'de> for Element<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Element<'de>, D::Error> {
        struct ElementVisitor;

        impl<'de> Visitor<'de> for ElementVisitor {
            type Value = Element<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Element<'de>, E> {
                Ok(Element::Text(Cow::Borrowed(s)))
            }

            fn visit_str<E: de::Error>(self, s: &str) -> Result<Element<'de>, E> {
                Ok(Element::Text(Cow::Owned(s.to_string())))
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Element<'de>, E> {
                Ok(Element::Other)
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Element<'de>, E> {
                Ok(Element::Other)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Element<'de>, E> {
                Ok(Element::Other)
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Element<'de>, E> {
                Ok(Element::Other)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Element<'de>, E> {
                Ok(Element::Other)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Element<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Element::Other)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Element<'de>, A::Error> {
                // Numbers arrive as maps too (serde_json's `arbitrary_precision`): the
                // value's own reading tells them from objects.
                let value = Json::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(if value.is_object() {
                    Element::Object(value)
                } else {
                    Element::Other
                })
            }
        }

        deserializer.deserialize_any(ElementVisitor)
    }
}
