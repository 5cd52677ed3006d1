//! The JSON bodies of the API that are not records, as types: the renderers
//! ([`super::render`], the handlers, [`super::error`]) serialize these, and the OpenAPI
//! document ([`super::openapi`]) derives their schemas from the same types, so a body and
//! its description cannot drift. Records and the envelopes around them are described by
//! the kinds' field tables instead (see [`super::openapi`]), since one set of handlers
//! serves all five kinds.
//!
//! Fields are declared in the byte order of their names, the order the answers had when
//! they were built as `serde_json::Value` maps (a sorted map): the answers stay the same
//! byte for byte. A schema that takes a limit (a name's length, a list's size) is built by
//! a `schema_with` function from [`crate::model::limits`], as derive attributes only take
//! literals.

use std::path::PathBuf;

use serde::Serialize;
use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::{Ref, Schema};
use utoipa::{IntoParams, ToSchema};

use crate::model::directory::{Access, Role};
use crate::model::limits::{
    thousands, IDEMPOTENCY_KEY_MAX_CHARS, ID_MAX_CHARS, ID_MIN_CHARS, MAX_OPERATIONS,
    MAX_SAFE_INTEGER, MAX_TOKEN_SPACES, NAME_MAX_CHARS,
};
use crate::model::Kind;
use crate::wire::RecordJson;

pub(crate) use crate::wire::Stamp;

/// `{"data": ...}`: the envelope of every answer that is not a record's, a page or a
/// problem. The document names each use (`SpaceEnvelope`, `TokenList`, ...) below.
#[derive(Serialize)]
pub(crate) struct Envelope<T> {
    /// The answer.
    pub data: T,
}

/// The document's name of `{"data": ...}` around one body type; the answers themselves
/// are rendered with [`Envelope`].
macro_rules! envelope {
    ($($name:ident($inner:ty): $doc:literal;)*) => {$(
        #[doc = $doc]
        #[derive(ToSchema)]
        #[allow(dead_code)]
        pub(crate) struct $name {
            data: $inner,
        }
    )*};
}

envelope! {
    SpaceEnvelope(Space): "One space.";
    SpaceList(Vec<Space>): "Spaces, ordered by `spaceId` (byte order).";
    MemberEnvelope(Member): "One member or invitation.";
    MemberList(Vec<Member>): "The members and invitations of a space, by `userId`.";
    InvitationList(Vec<Invitation>): "The caller's pending invitations.";
    TokenEnvelope(Token): "One scoped token.";
    TokenList(Vec<Token>): "Scoped tokens, by `createdAt` then `tokenId`.";
    MeEnvelope(Me<'static>): "The caller.";
    CreatedUserEnvelope(CreatedUser): "A user and its token.";
    BackupEnvelope(Backup): "What a backup copy holds.";
    WebhookEnvelope(Webhook): "One webhook.";
    WebhookList(Vec<Webhook>): "A space's webhooks, by `webhookId`.";
    DeliveryList(Vec<Delivery>): "A webhook's last 100 delivery attempts, newest first.";
}

/// A member's role in a space.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RoleName {
    /// Everything, the space and its members included.
    Owner,
    /// Reads and writes records.
    Editor,
    /// Reads records.
    Viewer,
}

impl From<Role> for RoleName {
    fn from(role: Role) -> RoleName {
        match role {
            Role::Owner => RoleName::Owner,
            Role::Editor => RoleName::Editor,
            Role::Viewer => RoleName::Viewer,
        }
    }
}

/// What a scoped token may do in its spaces.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AccessName {
    /// Reads only.
    Read,
    /// Reads, and writes as far as the user's role allows.
    Write,
}

impl From<Access> for AccessName {
    fn from(access: Access) -> AccessName {
        match access {
            Access::Read => AccessName::Read,
            Access::Write => AccessName::Write,
        }
    }
}

/// Whether a member has accepted.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum MemberState {
    /// A member.
    Active,
    /// Invited; `invited` until the user accepts.
    Invited,
}

/// A space as the caller sees it (docs §13).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Space {
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Stamp,
    /// Whether it is the caller's default space.
    pub is_default: bool,
    #[schema(minimum = 1)]
    pub member_count: usize,
    pub name: Box<str>,
    /// The caller's role in the space.
    #[schema(required = true)]
    pub role: Option<RoleName>,
    pub space_id: Box<str>,
    #[schema(minimum = 0)]
    pub space_version: u64,
}

/// A member of a space, or a user invited to it (docs §13, §21).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Member {
    /// When the user accepted; for an invitation, when it was invited.
    #[schema(value_type = String, format = DateTime)]
    pub added_at: Stamp,
    /// The user's name.
    pub name: Box<str>,
    pub role: RoleName,
    /// `invited` until the user accepts.
    pub state: MemberState,
    pub user_id: Box<str>,
}

/// A pending invitation of the caller (docs §21).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Invitation {
    #[schema(value_type = String, format = DateTime)]
    pub invited_at: Stamp,
    /// The inviter's userId.
    pub invited_by: Box<str>,
    /// The space's name.
    pub name: Box<str>,
    pub role: RoleName,
    pub space_id: Box<str>,
}

/// A scoped token (docs §14).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Token {
    pub access: AccessName,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Stamp,
    /// When it stops working (401 from then on, and its change streams end); null: never.
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub expires_at: Option<Stamp>,
    /// The last time it was accepted, to within a minute; null: never.
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub last_used_at: Option<Stamp>,
    pub name: Box<str>,
    /// Its own budget of requests (docs §25), applied whether or not the server's budgets
    /// are on; null: the server's (none when `--token-rate` is off).
    #[schema(required = true)]
    pub rate_limit: Option<RateLimit>,
    /// The spaces it reaches; null for every space the user belongs to, now and later.
    #[schema(required = true)]
    pub space_ids: Option<Vec<Box<str>>>,
    /// The secret: only in the answer to the creation, not in a replay. A secret is
    /// stored only as a hash: shown once, and never again (not in a list or a GET).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub token: Option<Box<str>>,
    pub token_id: Box<str>,
}

/// A budget of requests (docs §25): a bucket of `burst` requests refilled at `perSecond`
/// a second.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RateLimit {
    #[schema(minimum = 1)]
    pub per_second: u32,
    #[schema(minimum = 1)]
    pub burst: u32,
}

/// The caller (`GET /api/v1/me`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Me<'a> {
    pub default_space_id: &'a str,
    pub name: &'a str,
    /// Every space the caller's token reaches, ordered as `GET /api/v1/spaces`.
    pub space_ids: Vec<&'a str>,
    pub user_id: &'a str,
}

/// A new user, or a user with a new primary token (admin routes).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreatedUser {
    pub default_space_id: Box<str>,
    pub name: Box<str>,
    /// Shown only in the first answer, not in a replay: a replayed answer is kept
    /// without it, as tokens are stored nowhere (docs §11).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub token: Option<Box<str>>,
    pub user_id: Box<str>,
}

/// What a backup copy holds.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Backup {
    #[schema(minimum = 0)]
    pub bytes: u64,
    #[schema(minimum = 0)]
    pub spaces: usize,
    #[schema(value_type = String)]
    pub to: PathBuf,
    #[schema(minimum = 0)]
    pub users: usize,
}

/// `ok` or `degraded`.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HealthStatus {
    /// The journal writes.
    Ok,
    /// The journal cannot write (`reason` says why).
    Degraded,
}

/// `primary` or `standby` (replication, §16).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum NodeRole {
    /// Takes writes.
    Primary,
    /// Follows the primary.
    Standby,
}

/// Liveness and storage health. `role`, `node`, `appliedSeq` and `lagSeq` are there with
/// --nats (replication, §16).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Health<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub applied_seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub lag_seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub node: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub role: Option<NodeRole>,
    pub status: HealthStatus,
}

/// Whether this node is the primary: what the proxy checks (§16).
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct PrimaryHealth<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub node: Option<&'a str>,
    pub status: NodeRole,
}

/// One bad field of a `validation_failed` problem.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ProblemField {
    pub field: String,
    pub message: String,
}

/// A field a revert would set back that was written since (docs §23).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct ConflictField {
    pub kind: &'static str,
    pub id: String,
    pub field: &'static str,
}

/// RFC 9457 problem details with taskd's `code` (docs §7).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Problem {
    pub code: &'static str,
    /// dependency_cycle: the cycle's task ids in order, the written task first; each names
    /// the next as a predecessor, the last names the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub cycle: Option<Vec<String>>,
    #[schema(required = true)]
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub errors: Option<Vec<ProblemField>>,
    /// conflict (a revert, docs §23): each field written since the undone write.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub fields: Option<Vec<ConflictField>>,
    /// The failed operation of a batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub operation_index: Option<usize>,
    /// invalid_filter: the 0-based offset, in Unicode code points, of the first character
    /// of the token where the error was found (the filter's length at its end).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub position: Option<usize>,
    pub status: u16,
    pub title: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// too_many_requests from a budget (docs §25): `["token"]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub violated_policies: Option<[&'static str; 1]>,
}

/// `{"name"}` of a new space.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct SpaceCreate {
    #[schema(schema_with = name_schema)]
    name: String,
}

/// `{"name"}` of a renamed space; `{}` changes nothing.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct SpaceUpdate {
    #[schema(schema_with = name_schema)]
    name: Option<String>,
}

/// `{"role"}` of an invitation or a member.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct MemberPut {
    role: RoleName,
}

/// A webhook (docs §19).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Webhook {
    pub webhook_id: Box<str>,
    pub space_id: Box<str>,
    /// Where the events are POSTed, as sent.
    pub url: Box<str>,
    /// The event types it gets (`<kind>.changed`, `<kind>.deleted`, `task.reminder`), or
    /// `["*"]` for all.
    pub events: Vec<Box<str>>,
    #[schema(required = true)]
    pub description: Option<Box<str>>,
    /// Whether it is delivered to (false after a PATCH, or after its receiver answered
    /// `410`).
    pub active: bool,
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Stamp,
    /// The space version its deliveries have passed (delivered, filtered out or given
    /// up); null before the first.
    #[schema(required = true)]
    pub last_delivered_version: Option<u64>,
    /// Events not yet delivered that `events` selects, the one in flight included.
    pub pending: u64,
    /// `gone` when its receiver answered `410`; null otherwise.
    #[schema(required = true)]
    pub disabled_reason: Option<Box<str>>,
    /// The signing secret (`whsec_` + base64 of 32 bytes): only in the answer to a
    /// creation or a rotation.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub secret: Option<Box<str>>,
}

/// A new webhook.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct WebhookCreate {
    /// An absolute `http` or `https` URL of at most 2,000 characters; a host that
    /// resolves to a loopback, private, link-local or unspecified address is refused
    /// (422 `invalid_webhook_url`) unless the server allows them.
    url: String,
    /// `["*"]` (the default) or distinct event types.
    events: Option<Vec<String>>,
    /// At most 1,000 characters.
    description: Option<String>,
}

/// The fields of a webhook a PATCH may change.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct WebhookUpdate {
    url: Option<String>,
    events: Option<Vec<String>>,
    description: Option<String>,
    /// `true` clears `disabledReason`; `false` keeps the position.
    active: Option<bool>,
}

/// One delivery attempt.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Delivery {
    /// The `webhook-id` header: `<spaceId>.<kind>.<id>.<version>`.
    pub webhook_message_id: String,
    /// Its number for that message, from 1.
    pub attempt: u32,
    /// When it started.
    #[schema(value_type = String, format = DateTime)]
    pub at: Stamp,
    /// The HTTP status; null when there was no answer.
    #[schema(required = true)]
    pub status: Option<u16>,
    pub duration_ms: u64,
    /// Null on a `2xx`; else why (`given up` on the last attempt of an event).
    #[schema(required = true)]
    pub error: Option<String>,
}

/// A new scoped token.
#[derive(ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct TokenCreate {
    #[schema(schema_with = name_schema)]
    name: String,
    access: AccessName,
    /// Spaces the user belongs to (duplicates dropped); null or absent for every space,
    /// now and later.
    #[schema(schema_with = token_spaces_schema)]
    space_ids: Option<Vec<String>>,
    /// In the future; null or absent for never.
    #[schema(value_type = Option<String>, format = DateTime)]
    expires_at: Option<String>,
    /// A budget of its own (docs §25), each value at most the server's while its budgets
    /// are on; null or absent for the server's.
    rate_limit: Option<RateLimit>,
}

/// `{"name"}` of a new user.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct UserCreate {
    #[schema(schema_with = name_schema)]
    name: String,
}

/// `{"to"}` of a backup.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub(crate) struct BackupRequest {
    /// An absolute path: a new or empty directory.
    to: String,
}

/// A write of a batch.
#[derive(ToSchema)]
#[serde(rename_all = "UPPERCASE")]
#[allow(dead_code)]
pub(crate) enum BatchMethod {
    /// A create, or a restore (`.../{id}/restore`).
    Post,
    /// An update.
    Patch,
    /// A soft delete.
    Delete,
}

/// One operation of a batch: a write path of §4 and its body.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct BatchOperation {
    method: BatchMethod,
    /// The path, e.g. `/api/v1/tasks` or `/api/v1/tasks/{todoId}`.
    path: String,
    /// The body the path takes: a create or update body of the path's kind.
    #[schema(schema_with = batch_body_schema)]
    body: Option<()>,
}

/// Writes to one space, all or nothing (`operations`: see its `maxItems`).
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct BatchRequest {
    #[schema(schema_with = operations_schema)]
    operations: Vec<BatchOperation>,
}

/// One result of a batch: the status the single request would have had, the record's
/// kind and the record. The schema of what `render::batch` writes.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct BatchResult<'a> {
    #[schema(schema_with = batch_status_schema)]
    pub status: u16,
    /// The kind of the record (the collection's noun): `task`, `list`, ...
    #[schema(schema_with = kind_schema)]
    pub kind: &'static str,
    #[schema(schema_with = record_ref)]
    pub data: RecordJson<'a>,
}

/// The answer to a batch, and to a revert: the schema of what `render::batch` writes.
#[derive(ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct BatchResponse<'a> {
    pub results: Vec<BatchResult<'a>>,
    #[schema(minimum = 0)]
    pub space_version: u64,
}

/// The query parameters of a task's occurrences (docs §18).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct OccurrenceParams {
    /// The first instant listed: an RFC 3339 date-time, or a date YYYY-MM-DD (00:00 in the
    /// task's timeZone); default the task's dateDue (the current time when it has none).
    from: Option<String>,
    /// The instant the listing stops before, in the same forms; default 365 calendar days
    /// of the task's timeZone after `from`. Before `from`: 400 invalid_parameter.
    to: Option<String>,
    /// Occurrences per answer.
    #[param(schema_with = occurrence_limit_schema)]
    limit: Option<usize>,
}

/// One occurrence of a task's series.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Occurrence {
    /// The occurrence.
    #[schema(value_type = String, format = DateTime)]
    pub date_due: Stamp,
    /// The task's dateStart at the same distance (whole days for an all-day task), or null
    /// when the task has none.
    #[schema(value_type = Option<String>, format = DateTime, required = true)]
    pub date_start: Option<Stamp>,
}

/// The occurrences of a task's series in [from, to), in order (docs §18).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OccurrencePage {
    /// At most `limit` occurrences; a task without recurrence has at most its dateDue.
    pub data: Vec<Occurrence>,
    /// The space version the listing was read at.
    pub space_version: u64,
    /// Whether more occurrences follow before `to` (list them from just after the last).
    pub has_more: bool,
}

/// The query parameter `spaceId`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct SpaceParam {
    /// The space; else the body's `spaceId`, else the caller's default space.
    #[param(rename = "spaceId")]
    space_id: Option<String>,
}

/// The query parameter `listId` of the calendar routes (docs §20).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct ListParam {
    /// Only this list's tasks (an export); every task put in this list (an import).
    #[param(rename = "listId")]
    list_id: Option<String>,
}

/// What an import of `text/calendar` did (docs §20).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CalendarImport {
    /// Tasks created, one per VTODO with a new `UID`.
    pub created: usize,
    /// Tasks updated, one per VTODO with a `UID` a task of the space has.
    pub updated: usize,
    /// Components that are not VTODOs (`VEVENT`, …), not imported.
    pub skipped: usize,
    /// The space version after the import.
    #[schema(minimum = 0)]
    pub space_version: u64,
}

/// The `Idempotency-Key` header of a write.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub(crate) struct KeyHeader {
    /// Printable ASCII characters: a retry with the same key and body gets the first answer
    /// again (24 h).
    #[param(rename = "Idempotency-Key", schema_with = idempotency_key_schema)]
    key: Option<String>,
}

/// `since` of the change feed and the stream.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct SinceParam {
    /// Changes after this space version (default 0).
    #[param(schema_with = since_schema)]
    since: Option<u64>,
}

/// The query of a live view (docs §24): a saved view, or a query not saved.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
#[allow(non_snake_case)]
pub(crate) struct LiveParams {
    /// A view of the space; nothing else of the query beside it (else 400).
    viewId: Option<String>,
    /// A filter expression (docs §17), for a query not saved.
    filter: Option<String>,
    /// A word-prefix search (docs §17), for a query not saved.
    q: Option<String>,
    /// The order (docs §17), for a query not saved; default sortOrder.
    orderBy: Option<String>,
    /// The IANA time zone of `today` and dates, for a query not saved; default UTC.
    tz: Option<String>,
}

/// `limit` of the change feed.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct FeedLimitParam {
    /// Records per page.
    #[param(schema_with = feed_limit_schema)]
    limit: Option<usize>,
}

/// `Last-Event-ID` of the stream.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub(crate) struct LastEventId {
    /// Replaces `since`.
    #[param(rename = "Last-Event-ID")]
    last_event_id: Option<String>,
}

/// A path parameter.
macro_rules! path_param {
    ($name:ident, $field:ident, $rename:literal, $doc:literal) => {
        #[doc = concat!("The path parameter `", $rename, "`.")]
        #[derive(IntoParams)]
        #[into_params(parameter_in = Path)]
        #[allow(dead_code)]
        pub(crate) struct $name {
            #[doc = $doc]
            #[param(rename = $rename)]
            $field: String,
        }
    };
}
path_param!(SpaceIdPath, space_id, "spaceId", "The space.");
path_param!(UserIdPath, user_id, "userId", "The user.");
path_param!(TokenIdPath, token_id, "tokenId", "The scoped token.");
path_param!(WebhookIdPath, webhook_id, "webhookId", "The webhook.");

/// The pattern of a record id (docs §3).
pub(crate) fn id_pattern() -> String {
    format!("^[A-Za-z0-9_-]{{{ID_MIN_CHARS},{ID_MAX_CHARS}}}$")
}

/// A schema of type `ty`.
pub(crate) fn of(ty: impl Into<SchemaType>) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(ty)
}

/// A name of a user, a space or a token.
pub(crate) fn name_schema() -> ObjectBuilder {
    of(Type::String)
        .description(Some(format!(
            "1 to {} characters.",
            thousands(NAME_MAX_CHARS)
        )))
        .min_length(Some(1))
        .max_length(Some(NAME_MAX_CHARS))
}

fn token_spaces_schema() -> ArrayBuilder {
    ArrayBuilder::new()
        .description(Some(format!(
            "1 to {MAX_TOKEN_SPACES} spaces the user belongs to (duplicates dropped); null or \
             absent for every space, now and later."
        )))
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(of(Type::String))
        .min_items(Some(1))
        .max_items(Some(MAX_TOKEN_SPACES))
}

/// 1 to [`IDEMPOTENCY_KEY_MAX_CHARS`] printable ASCII characters. HTTP trims a header
/// value, so the key neither starts nor ends with a space.
pub(crate) fn idempotency_key_schema() -> ObjectBuilder {
    let inner = IDEMPOTENCY_KEY_MAX_CHARS - 2;
    of(Type::String)
        .pattern(Some(format!("^[!-~]([ -~]{{0,{inner}}}[!-~])?$")))
        .description(Some(format!(
            "1 to {IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters: a retry with the same \
             key and body gets the first answer again (24 h)."
        )))
}

fn since_schema() -> ObjectBuilder {
    of(Type::Integer)
        .minimum(Some(0))
        .maximum(Some(MAX_SAFE_INTEGER))
}

fn feed_limit_schema() -> ObjectBuilder {
    use crate::model::limits::{FEED_LIMIT_DEFAULT, FEED_LIMIT_MAX};
    of(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(FEED_LIMIT_MAX))
        .default(Some(FEED_LIMIT_DEFAULT.into()))
}

fn occurrence_limit_schema() -> ObjectBuilder {
    use crate::model::limits::{OCCURRENCES_LIMIT_DEFAULT, OCCURRENCES_LIMIT_MAX};
    of(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(OCCURRENCES_LIMIT_MAX))
        .default(Some(OCCURRENCES_LIMIT_DEFAULT.into()))
}

fn operations_schema() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(Ref::from_schema_name("BatchOperation"))
        .min_items(Some(1))
        .max_items(Some(MAX_OPERATIONS))
}

/// `anyOf` the create and update bodies of every kind, so that a generated client types
/// an operation's body (a bare object is `Record<string, never>` to openapi-typescript).
fn batch_body_schema() -> Schema {
    Kind::ALL
        .into_iter()
        .flat_map(|kind| {
            [
                super::openapi::schema_name(kind, "Create"),
                super::openapi::schema_name(kind, "Update"),
            ]
        })
        .fold(AnyOfBuilder::new(), |any, name| {
            any.item(Ref::from_schema_name(name))
        })
        .build()
        .into()
}

fn batch_status_schema() -> ObjectBuilder {
    of(Type::Integer).enum_values(Some([200, 201]))
}

fn kind_schema() -> ObjectBuilder {
    of(Type::String).enum_values(Some(Kind::ALL.map(Kind::noun)))
}

fn record_ref() -> Ref {
    Ref::from_schema_name("Record")
}

/// A date-time string, or null.
pub(crate) fn nullable_date_time() -> ObjectBuilder {
    of(SchemaType::from_iter([Type::String, Type::Null]))
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
}

/// The query parameters of a page of activity (docs §23). A record's activity route
/// (`/api/v1/tasks/{todoId}/activity`, ...) takes them but `kind` and `id`, which it sets.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct ActivityParams {
    /// Only versions below this: `nextBefore` of the previous page (default: all).
    #[param(schema_with = since_schema)]
    before: Option<u64>,
    /// Only versions above this (default 0).
    #[param(schema_with = since_schema)]
    since: Option<u64>,
    /// Entries per page; a page never splits one version's entries, so it may hold more.
    #[param(schema_with = activity_limit_schema)]
    limit: Option<usize>,
    /// Only records of this kind.
    #[param(schema_with = kind_schema)]
    kind: Option<String>,
    /// Only the record with this id.
    id: Option<String>,
    /// Only the writes of this user.
    #[param(rename = "userId")]
    user_id: Option<String>,
}

/// The query parameter `force` of a revert (docs §23).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(crate) struct ForceParam {
    /// `true`: undo even the fields written since (no 409). Any other value → 400
    /// invalid_parameter.
    #[param(schema_with = force_schema)]
    force: Option<String>,
}

fn activity_limit_schema() -> ObjectBuilder {
    use crate::model::limits::{ACTIVITY_LIMIT_DEFAULT, ACTIVITY_LIMIT_MAX};
    of(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(ACTIVITY_LIMIT_MAX))
        .default(Some(ACTIVITY_LIMIT_DEFAULT.into()))
}

fn force_schema() -> ObjectBuilder {
    of(Type::String).enum_values(Some(["true"]))
}

/// A page of activity, newest first (docs §23).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivityPage<'a> {
    pub data: Vec<ActivityEntry<'a>>,
    /// Whether older entries match: ask again with `before=nextBefore`.
    pub has_more: bool,
    /// The page's smallest version when `hasMore`, else null.
    #[schema(required = true, minimum = 1)]
    pub next_before: Option<u64>,
}

/// One record's change at one version (docs §23).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivityEntry<'a> {
    /// What happened to the record.
    #[schema(schema_with = activity_action_schema)]
    pub action: &'static str,
    /// Who made the write; null for writes journaled before activity was kept.
    #[schema(required = true)]
    pub actor: Option<ActivityActor<'a>>,
    /// The write's time; the entries of one write (a batch too) share it.
    #[schema(value_type = String, format = DateTime)]
    pub at: Stamp,
    /// Each field whose value the change altered, by its name, as the record's GET
    /// renders it; never the base fields. A creation lists every field that is not null
    /// or `[]`, each `from` null; `deleted` and `restored` have `{}`.
    #[schema(schema_with = activity_changes_schema)]
    pub changes: std::collections::BTreeMap<&'static str, ActivityChange<'a>>,
    /// The record's id.
    pub id: &'a str,
    /// The record's kind.
    #[schema(schema_with = kind_schema)]
    pub kind: &'static str,
    /// The version a revert undid, else null.
    #[schema(required = true, minimum = 1)]
    pub revert_of: Option<u64>,
    /// The version of the write (its step, in a batch) that made the change.
    #[schema(minimum = 1)]
    pub version: u64,
}

/// Who made a write, and through which door (docs §23).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivityActor<'a> {
    /// The scoped token's id; null for a primary token.
    #[schema(required = true)]
    pub token_id: Option<&'a str>,
    /// The user's id; null for a reminder firing.
    #[schema(required = true)]
    pub user_id: Option<&'a str>,
    /// The door: `cascade` for a change another change of the same write caused (an
    /// `isBlocked` flip, a subtree's delete, restore, list or reopening).
    #[schema(schema_with = via_schema)]
    pub via: &'static str,
}

/// A field's value before and after a change, as the record's GET renders it.
#[derive(Serialize)]
pub(crate) struct ActivityChange<'a> {
    pub from: crate::wire::ValueJson<'a>,
    pub to: crate::wire::ValueJson<'a>,
}

fn activity_action_schema() -> ObjectBuilder {
    use crate::model::activity::Action;
    of(Type::String).enum_values(Some(Action::ALL.map(Action::name)))
}

fn via_schema() -> ObjectBuilder {
    use crate::model::activity::Via;
    let doors = Via::ALL.map(Via::name).into_iter().chain(["cascade"]);
    of(Type::String).enum_values(Some(doors))
}

/// `changes`: an object of `{"from", "to"}` pairs, each value any JSON a field takes.
fn activity_changes_schema() -> ObjectBuilder {
    use utoipa::openapi::schema::AdditionalProperties;
    let any = || of(SchemaType::AnyValue).description(Some("A field's value, any JSON."));
    let change = ObjectBuilder::new()
        .property("from", any())
        .property("to", any())
        .required("from")
        .required("to");
    let change: Schema = change.into();
    ObjectBuilder::new().additional_properties(Some(AdditionalProperties::RefOr(change.into())))
}
