//! Spaces and their members (docs §13): `/api/v1/spaces` and
//! `/api/v1/spaces/{spaceId}/members`.
//!
//! Each handler asks [`reach`] whether the caller may act on the space (404 for a
//! space it does not reach, 403 below its role or token), then makes one directory change
//! ([`handlers::change`]); what a change may not do (a default space shared, a last owner
//! removed, a limit passed) the directory refuses. None of it moves a space's version.

use super::dto;
use super::openapi::problems::*;
use crate::core::Core;
use actix_web::http::StatusCode;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use futures_util::future::join_all;

use super::error::ApiError;
use super::extract::{JsonObject, KeyClaim, UserCaller};
use super::handlers::change;
use super::render;
use super::stream::Streams;
use crate::actors::directory::Answer;
use crate::core::reach;
use crate::model::access::Action;
use crate::model::kept::KeptAnswer;
use crate::model::validate::{parse_role, parse_space_name};
use crate::model::{Caller, Change, DirectoryState, Invitation, Member, Mode, Role, SpaceInfo};

/// A path segment of the request, by name (`spaceId`, `userId`).
pub(crate) fn segment<'a>(req: &'a HttpRequest, name: &str) -> &'a str {
    req.match_info().get(name).unwrap_or_default()
}

/// The space named in the path, once `caller` may do `action` there.
fn named_space<'a>(
    req: &'a HttpRequest,
    caller: &Caller,
    action: Action,
) -> Result<&'a str, ApiError> {
    let id = segment(req, "spaceId");
    reach(caller, Some(id), action)?;
    Ok(id)
}

/// The space object of `id` for `caller`, at `version`; 404 if it is gone.
fn space_json(
    state: &DirectoryState,
    id: &str,
    caller: &Caller,
    version: u64,
) -> Result<dto::Space, ApiError> {
    let info = state
        .space(id)
        .ok_or_else(|| ApiError::NotFound(format!("space '{id}' not found")))?;
    Ok(render::space(info, caller, version))
}

/// The same answer shown and kept.
fn both(answer: KeptAnswer) -> Answer {
    Answer {
        shown: answer.clone(),
        kept: answer,
    }
}

/// Every space the caller's token reaches
///
/// Ordered by `spaceId` (byte order), no paging; a scoped token sees only the spaces it
/// reaches. 403: the admin token.
#[utoipa::path(
    get,
    path = "/api/v1/spaces",
    operation_id = "list_spaces",
    tag = "spaces",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The spaces", body = dto::SpaceList),
        UserReads,
    ),
)]
pub(crate) async fn list(
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let mut listed: Vec<(Box<str>, dto::Space)> = {
        let state = core.directory();
        caller
            .reached()
            .filter_map(|(id, _)| Some((id.into(), render::space(state.space(id)?, &caller, 0))))
            .collect()
    };
    let versions = join_all(listed.iter().map(|(id, _)| core.version(id))).await;
    for ((_, json), version) in listed.iter_mut().zip(versions) {
        json.space_version = version?;
    }
    let data: Vec<dto::Space> = listed.into_iter().map(|(_, json)| json).collect();
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}

/// Create a space, the caller its one owner
///
/// The server picks the id; the space starts at version 0. 403: a scoped or the admin
/// token. 409 limit_reached: the caller belongs to as many spaces as a user may.
#[utoipa::path(
    post,
    path = "/api/v1/spaces",
    operation_id = "create_space",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::KeyHeader),
    request_body = dto::SpaceCreate,
    responses(
        (status = 201, description = "Created", body = dto::SpaceEnvelope, headers(("Location" = String, description = "The new space's or token's path."))),
        DirectoryBodyWrites,
    ),
)]
pub(crate) async fn create(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    reach(&caller, None, Action::Account)?;
    let name = parse_space_name(body.0, Mode::Create)?.unwrap_or_default();
    let now = chrono::Utc::now().timestamp_millis();
    let info = SpaceInfo {
        id: uuid::Uuid::new_v4().to_string().into(),
        name: name.into(),
        created_at: now,
        default_of: None,
        members: [(
            caller.account.id.clone(),
            Member {
                role: Role::Owner,
                added_at: now,
            },
        )]
        .into(),
    };
    let location = format!("/api/v1/spaces/{}", info.id);
    let shown = render::space(&info, &caller, 0);
    let answer =
        move |_: &DirectoryState| both(render::data(StatusCode::CREATED, &shown, Some(location)));
    let added = info.id.clone();
    let started = core.clone();
    let then = move |_: &Change| started.add_space(&added);
    change(&req, &core, Change::SpaceCreated(info), key, answer, then).await
}

/// One space the caller belongs to
///
/// 404: a space the caller does not belong to or its token does not reach, whether it
/// exists or not. 403: the admin token.
#[utoipa::path(
    get,
    path = "/api/v1/spaces/{spaceId}",
    operation_id = "get_space",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath),
    responses(
        (status = 200, description = "The space", body = dto::SpaceEnvelope),
        UserReads,
    ),
)]
pub(crate) async fn get(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let id = named_space(&req, &caller, Action::Read)?;
    let version = core.version(id).await?;
    let json = space_json(&core.directory(), id, &caller, version)?;
    Ok(render::kept(&render::data(StatusCode::OK, &json, None)))
}

/// Rename a space (owner)
///
/// `{}` changes nothing and answers the space. 403: below owner, a scoped or the admin
/// token.
#[utoipa::path(
    patch,
    path = "/api/v1/spaces/{spaceId}",
    operation_id = "update_space",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath, dto::KeyHeader),
    request_body = dto::SpaceUpdate,
    responses(
        (status = 200, description = "The space", body = dto::SpaceEnvelope),
        DirectoryBodyWrites,
    ),
)]
pub(crate) async fn update(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let id = named_space(&req, &caller, Action::Manage)?;
    let name = parse_space_name(body.0, Mode::Update)?;
    let version = core.version(id).await?;
    let Some(name) = name else {
        let json = space_json(&core.directory(), id, &caller, version)?;
        return Ok(render::kept(&render::data(StatusCode::OK, &json, None)));
    };
    let renamed = Change::SpaceRenamed {
        space: id.into(),
        name: name.clone().into(),
    };
    let space: Box<str> = id.into();
    let answer = move |state: &DirectoryState| {
        // The space is there: the change that renamed it was just made.
        let json = state.space(&space).map(|info| dto::Space {
            name: name.into(),
            ..render::space(info, &caller, version)
        });
        both(render::data(StatusCode::OK, &json, None))
    };
    change(&req, &core, renamed, key, answer, |_: &Change| {}).await
}

/// Delete a space, its records, feed and streams (owner)
///
/// From then on the space is 404 for everyone and its id is never handed out again: its
/// streams end, its file is removed once the deletion is durable. 403: below owner, a
/// scoped or the admin token. 409 default_space: the caller's default space.
#[utoipa::path(
    delete,
    path = "/api/v1/spaces/{spaceId}",
    operation_id = "delete_space",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The space as it was", body = dto::SpaceEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn delete(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    core: Data<Core>,
    streams: Data<Streams>,
) -> Result<HttpResponse, ApiError> {
    let id = named_space(&req, &caller, Action::Manage)?;
    let version = core.version(id).await?;
    let space: Box<str> = id.into();
    let deleted = Change::SpaceDeleted {
        space: space.clone(),
    };
    let answer = {
        let space = space.clone();
        move |state: &DirectoryState| {
            let json = state
                .space(&space)
                .map(|info| render::space(info, &caller, version));
            both(render::data(StatusCode::OK, &json, None))
        }
    };
    let then = {
        let core = core.clone();
        move |_: &Change| {
            streams.end(|_, on, _| *on == *space);
            actix_web::rt::spawn(async move { core.remove_space(&space).await });
        }
    };
    change(&req, &core, deleted, key, answer, then).await
}

/// The members of a space
///
/// Active members and pending invitations, ordered by `userId`, no paging. 403: the admin
/// token.
#[utoipa::path(
    get,
    path = "/api/v1/spaces/{spaceId}/members",
    operation_id = "list_members",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath),
    responses(
        (status = 200, description = "The members", body = dto::MemberList),
        UserReads,
    ),
)]
pub(crate) async fn members(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let id = named_space(&req, &caller, Action::Read)?;
    let state = core.directory();
    let info = state
        .space(id)
        .ok_or_else(|| ApiError::NotFound(format!("space '{id}' not found")))?;
    let mut data: Vec<(&str, dto::Member)> = info
        .members
        .iter()
        .map(|(user, m)| (&**user, render::member(user, &name_of(&state, user), m)))
        .collect();
    for (user, invitation) in state.invitations(id).into_iter().flatten() {
        data.push((
            user,
            render::invitee(user, &name_of(&state, user), invitation),
        ));
    }
    data.sort_by(|a, b| a.0.cmp(b.0));
    let data: Vec<dto::Member> = data.into_iter().map(|(_, json)| json).collect();
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}

/// The member object of `user` in `space`: an active member or an invitee.
fn member_json(state: &DirectoryState, space: &str, user: &str) -> Option<dto::Member> {
    let name = name_of(state, user);
    if let Some(member) = state.space(space)?.members.get(user) {
        return Some(render::member(user, &name, member));
    }
    let invitation = state.invitation(space, user)?;
    Some(render::invitee(user, &name, invitation))
}

/// The name of user `id`.
fn name_of(state: &DirectoryState, id: &str) -> String {
    state
        .account(id)
        .map(|a| a.name.to_string())
        .unwrap_or_default()
}

/// Invite a user, or change the role of a member or invitation (owner)
///
/// For a user who is not a member: an invitation (201, `state` `invited`); the user
/// reaches the space once it accepts. For a member or a pending invitation: its role
/// changed (200). 403: below owner, a scoped or the admin token. 404: the space, or an
/// unknown user. 409 default_space (the space is a default space), last_owner (demoting
/// its last owner) or limit_reached (the members and invitations of the space, the pending
/// invitations sent by the caller, or those from the caller to the user).
#[utoipa::path(
    put,
    path = "/api/v1/spaces/{spaceId}/members/{userId}",
    operation_id = "put_member",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath, dto::UserIdPath, dto::KeyHeader),
    request_body = dto::MemberPut,
    responses(
        (status = 200, description = "The member or invitation, its role changed", body = dto::MemberEnvelope),
        (status = 201, description = "The invitation", body = dto::MemberEnvelope),
        DirectoryBodyWrites,
    ),
)]
pub(crate) async fn put_member(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    body: JsonObject,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let id = named_space(&req, &caller, Action::Manage)?;
    let role = parse_role(body.0)?;
    let user: Box<str> = segment(&req, "userId").into();
    let at = chrono::Utc::now().timestamp_millis();
    let set = Change::RoleSet {
        space: id.into(),
        user: user.clone(),
        role,
        by: caller.account.id.clone(),
        at,
    };
    let space: Box<str> = id.into();
    let answer = move |state: &DirectoryState| {
        let name = name_of(state, &user);
        let before = state.space(&space).and_then(|s| s.members.get(&user));
        let (status, json) = match (before, state.invitation(&space, &user)) {
            (Some(m), _) => (
                StatusCode::OK,
                render::member(&user, &name, &Member { role, ..*m }),
            ),
            (None, Some(invitation)) => {
                let after = Invitation {
                    role,
                    ..invitation.clone()
                };
                (StatusCode::OK, render::invitee(&user, &name, &after))
            }
            (None, None) => {
                let invitation = Invitation {
                    role,
                    by: caller.account.id.clone(),
                    at,
                };
                (
                    StatusCode::CREATED,
                    render::invitee(&user, &name, &invitation),
                )
            }
        };
        both(render::data(status, &json, None))
    };
    change(&req, &core, set, key, answer, |_: &Change| {}).await
}

/// Remove a member or withdraw an invitation (owner), or leave or decline (the user itself)
///
/// Takes effect at once: the member's next request on the space is 404 and its streams on
/// it end. 403: below owner (removing another), a scoped or the admin token. 404: the
/// space, or no such member or invitation. 409 default_space (leaving a default space) or
/// last_owner (removing its last owner).
#[utoipa::path(
    delete,
    path = "/api/v1/spaces/{spaceId}/members/{userId}",
    operation_id = "remove_member",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath, dto::UserIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The member as it was", body = dto::MemberEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn remove_member(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    core: Data<Core>,
    streams: Data<Streams>,
) -> Result<HttpResponse, ApiError> {
    let user: Box<str> = segment(&req, "userId").into();
    let action = if *user == *caller.account.id {
        Action::Leave
    } else {
        Action::Manage
    };
    let space: Box<str> = named_space(&req, &caller, action)?.into();
    let removed = Change::MemberRemoved {
        space: space.clone(),
        user: user.clone(),
    };
    let answer = {
        let (space, user) = (space.clone(), user.clone());
        move |state: &DirectoryState| {
            let json = member_json(state, &space, &user);
            both(render::data(StatusCode::OK, &json, None))
        }
    };
    let then = move |_: &Change| streams.end(|reader, on, _| *reader == *user && *on == *space);
    change(&req, &core, removed, key, answer, then).await
}

/// Accept an invitation to a space (the invited user)
///
/// The caller is an active member from then on, with the invitation's role. 403: a scoped
/// or the admin token. 404: no pending invitation to the space. 409 limit_reached: the
/// caller belongs to as many spaces as a user may.
#[utoipa::path(
    post,
    path = "/api/v1/spaces/{spaceId}/accept",
    operation_id = "accept_invitation",
    tag = "spaces",
    security(("bearer" = [])),
    params(dto::SpaceIdPath, dto::KeyHeader),
    responses(
        (status = 200, description = "The space, as the new member sees it", body = dto::SpaceEnvelope),
        DirectoryWrites,
    ),
)]
pub(crate) async fn accept(
    req: HttpRequest,
    UserCaller(caller): UserCaller,
    key: KeyClaim,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    let id = segment(&req, "spaceId");
    reach(&caller, Some(id), Action::Accept)?;
    let version = core.version(id).await?;
    let space: Box<str> = id.into();
    let accepted = Change::Accepted {
        space: space.clone(),
        user: caller.account.id.clone(),
        at: chrono::Utc::now().timestamp_millis(),
    };
    let answer = move |state: &DirectoryState| {
        let info = state.space(&space);
        let invitation = state.invitation(&space, &caller.account.id);
        let json = match (info, invitation) {
            (Some(info), Some(invitation)) => Some(dto::Space {
                role: Some(invitation.role.into()),
                member_count: info.members.len() + 1,
                ..render::space(info, &caller, version)
            }),
            _ => None,
        };
        both(render::data(StatusCode::OK, &json, None))
    };
    change(&req, &core, accepted, key, answer, |_: &Change| {}).await
}

/// The caller's pending invitations
///
/// Ordered by `invitedAt`, then `spaceId`; no paging. 403: a scoped or the admin token.
#[utoipa::path(
    get,
    path = "/api/v1/invitations",
    operation_id = "list_invitations",
    tag = "spaces",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The invitations", body = dto::InvitationList),
        UserReads,
    ),
)]
pub(crate) async fn invitations(
    UserCaller(caller): UserCaller,
    core: Data<Core>,
) -> Result<HttpResponse, ApiError> {
    reach(&caller, None, Action::Account)?;
    let state = core.directory();
    let mut pending: Vec<(i64, &str, dto::Invitation)> = state
        .invitations_of(&caller.account.id)
        .filter_map(|(space, invitation)| {
            let info = state.space(space)?;
            Some((invitation.at, space, render::invitation(info, invitation)))
        })
        .collect();
    pending.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let data: Vec<dto::Invitation> = pending.into_iter().map(|(_, _, json)| json).collect();
    Ok(render::kept(&render::data(StatusCode::OK, &data, None)))
}
