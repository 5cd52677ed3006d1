//! What one account may do to others (docs §21): replays pass the checks of a new
//! request, nobody is made a member without accepting an invitation, and the limits on
//! invitations keep a user from being locked out of its own spaces.

use actix_web::http::Method;
use futures_util::future::join_all;
use serde_json::{json, Value};

use std::sync::Arc;

use crate::helpers::{
    assert_problem, is_utc_millis, spawn_app, As, NewUser, Options, Reply, TestApp,
};
use crate::spaces::{add_member, listed_space_ids, me_space_ids, new_space, put_member, sid};

/// A scoped token of `user` made with `body`; its secret.
async fn scoped(user: As<'_>, body: Value) -> String {
    let reply = user.post("/api/v1/tokens", body).await;
    reply.expect(201);
    reply.data()["token"].as_str().unwrap().to_string()
}

/// `method` on `path` with `Idempotency-Key: key` and `body`, as `user`.
async fn keyed(user: As<'_>, method: Method, path: &str, body: Option<&Value>, key: &str) -> Reply {
    user.send_with(method, path, body, &[("Idempotency-Key", key)])
        .await
}

/// Checks that `again` is `first` replayed.
#[track_caller]
fn assert_replayed(first: &Reply, again: &Reply) {
    assert_eq!(again.status, first.status, "{:#}", again.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
}

/// Checks that `reply` is the failure `status`/`code`, and no replay.
#[track_caller]
fn assert_refused(reply: &Reply, status: u16, code: &str) {
    assert_problem(reply, status, code);
    assert_eq!(
        reply.header("idempotent-replayed"),
        None,
        "{:#}",
        reply.body
    );
}

#[actix_web::test]
async fn a_replay_is_refused_to_a_token_that_could_not_make_the_request() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let elsewhere = sid(&new_space(primary, "elsewhere").await);
    let task = primary
        .create(
            "tasks",
            json!({"name": "secret", "notesMarkdown": "the notes"}),
        )
        .await;
    let path = format!("/api/v1/tasks/{}", task["todoId"].as_str().unwrap());
    let patch = json!({"name": "renamed"});
    let first = keyed(primary, Method::PATCH, &path, Some(&patch), "k-1").await;
    first.expect(200);

    // A read token of another space: a plain GET is 404, and so is the replay.
    let reader = scoped(
        primary,
        json!({"name": "r", "access": "read", "spaceIds": [elsewhere]}),
    )
    .await;
    assert_refused(&app.user(&reader).get(&path).await, 404, "not_found");
    let replay = keyed(app.user(&reader), Method::PATCH, &path, Some(&patch), "k-1").await;
    assert_refused(&replay, 404, "not_found");
    // A read token of the space itself: 403, as the write would be.
    let here = scoped(primary, json!({"name": "h", "access": "read"})).await;
    let replay = keyed(app.user(&here), Method::PATCH, &path, Some(&patch), "k-1").await;
    assert_refused(&replay, 403, "forbidden");
    // A token refused outright: 401.
    let replay = keyed(
        app.user("no-such-token"),
        Method::PATCH,
        &path,
        Some(&patch),
        "k-1",
    )
    .await;
    assert_refused(&replay, 401, "unauthorized");
    // A write token that reaches the space gets the kept answer, as the primary does.
    let writer = scoped(primary, json!({"name": "w", "access": "write"})).await;
    let replay = keyed(app.user(&writer), Method::PATCH, &path, Some(&patch), "k-1").await;
    assert_replayed(&first, &replay);
    let replay = keyed(primary, Method::PATCH, &path, Some(&patch), "k-1").await;
    assert_replayed(&first, &replay);
}

#[actix_web::test]
async fn a_replay_is_refused_to_a_removed_member_and_after_the_space_is_deleted() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (owner, as_bob) = (app.user(&alice.token), app.user(&bob.token));
    let space = sid(&new_space(owner, "team").await);
    add_member(owner, &space, &bob, "editor").await;
    let tasks = format!("/api/v1/tasks?spaceId={space}");
    let body = json!({"name": "bob's"});
    let first = keyed(as_bob, Method::POST, &tasks, Some(&body), "add-1").await;
    first.expect(201);
    assert_replayed(
        &first,
        &keyed(as_bob, Method::POST, &tasks, Some(&body), "add-1").await,
    );

    owner
        .delete(&format!("/api/v1/spaces/{space}/members/{}", bob.user_id))
        .await
        .expect(200);
    let replay = keyed(as_bob, Method::POST, &tasks, Some(&body), "add-1").await;
    assert_refused(&replay, 404, "not_found");

    // The owner's own kept answers end with the space.
    let first = keyed(owner, Method::POST, &tasks, Some(&body), "add-2").await;
    first.expect(201);
    owner
        .delete(&format!("/api/v1/spaces/{space}"))
        .await
        .expect(200);
    let replay = keyed(owner, Method::POST, &tasks, Some(&body), "add-2").await;
    assert_refused(&replay, 404, "not_found");
}

/// The member object `user` has in `space`, as the owner lists it.
async fn listed_member(owner: As<'_>, space: &str, user: &NewUser) -> Option<Value> {
    let reply = owner.get(&format!("/api/v1/spaces/{space}/members")).await;
    reply.expect(200);
    let members = reply.data().as_array().unwrap().clone();
    let ids: Vec<&str> = members
        .iter()
        .map(|m| m["userId"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "ordered by userId");
    members.into_iter().find(|m| m["userId"] == *user.user_id)
}

/// `GET /api/v1/invitations` as `user`: its listed invitations.
async fn invitations(user: As<'_>) -> Vec<Value> {
    let reply = user.get("/api/v1/invitations").await;
    reply.expect(200);
    reply.data().as_array().unwrap().clone()
}

#[actix_web::test]
async fn an_invited_user_reaches_the_space_only_once_it_accepts() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (owner, as_bob) = (app.user(&alice.token), app.user(&bob.token));
    let space = sid(&new_space(owner, "team").await);
    let path = format!("/api/v1/spaces/{space}");
    owner
        .create("tasks", json!({"name": "t", "spaceId": space}))
        .await;

    let invited = put_member(owner, &space, &bob.user_id, "viewer").await;
    invited.expect(201);
    let member = invited.data();
    assert_eq!(member["state"], "invited");
    assert_eq!(member["role"], "viewer");
    assert_eq!(member["userId"], *bob.user_id);
    assert!(member["addedAt"].as_str().is_some_and(is_utc_millis));
    assert_eq!(
        listed_member(owner, &space, &bob).await.as_ref(),
        Some(member)
    );

    // Invited is not a member: every route of the space is 404, nothing is listed.
    for route in [
        path.clone(),
        format!("{path}/members"),
        format!("/api/v1/tasks?spaceId={space}"),
        format!("/api/v1/changes?spaceId={space}"),
    ] {
        assert_problem(&as_bob.get(&route).await, 404, "not_found");
    }
    let write = as_bob
        .post("/api/v1/tasks", json!({"name": "x", "spaceId": space}))
        .await;
    assert_problem(&write, 404, "not_found");
    assert!(!listed_space_ids(as_bob).await.contains(&space));
    assert!(!me_space_ids(as_bob).await.contains(&space));
    let object = owner.get(&path).await;
    assert_eq!(
        object.data()["memberCount"],
        1,
        "invitations are not counted"
    );

    // A role change applies to the invitation.
    let changed = put_member(owner, &space, &bob.user_id, "editor").await;
    changed.expect(200);
    assert_eq!(changed.data()["state"], "invited");
    assert_eq!(changed.data()["role"], "editor");

    let pending = invitations(as_bob).await;
    assert_eq!(pending.len(), 1, "{pending:#?}");
    let invitation = &pending[0];
    assert_eq!(invitation["spaceId"], *space);
    assert_eq!(invitation["name"], "team");
    assert_eq!(invitation["role"], "editor");
    assert_eq!(invitation["invitedBy"], *alice.user_id);
    assert!(invitation["invitedAt"].as_str().is_some_and(is_utc_millis));
    assert!(invitations(owner).await.is_empty());

    let accepted = as_bob.post(&format!("{path}/accept"), json!({})).await;
    accepted.expect(200);
    let object = accepted.data();
    assert_eq!(object["spaceId"], *space);
    assert_eq!(object["role"], "editor");
    assert_eq!(object["memberCount"], 2);
    assert_eq!(object["isDefault"], false);
    assert_eq!(&as_bob.get(&path).await.data().clone(), object);
    assert!(listed_space_ids(as_bob).await.contains(&space));
    assert!(invitations(as_bob).await.is_empty());
    let member = listed_member(owner, &space, &bob).await.unwrap();
    assert_eq!(member["state"], "active");
    assert_eq!(member["role"], "editor");
    as_bob
        .post("/api/v1/tasks", json!({"name": "x", "spaceId": space}))
        .await
        .expect(201);
    // Nothing left to accept.
    let again = as_bob.post(&format!("{path}/accept"), json!({})).await;
    assert_problem(&again, 404, "not_found");
    let unknown = as_bob
        .post(
            &format!("/api/v1/spaces/{}/accept", alice.default_space_id),
            json!({}),
        )
        .await;
    assert_problem(&unknown, 404, "not_found");
}

#[actix_web::test]
async fn invitations_are_declined_withdrawn_and_answered_with_the_primary_token_only() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let (owner, as_bob, as_carol) = (
        app.user(&alice.token),
        app.user(&bob.token),
        app.user(&carol.token),
    );
    let space = sid(&new_space(owner, "team").await);
    let member = |user: &NewUser| format!("/api/v1/spaces/{space}/members/{}", user.user_id);

    // Declined by the invitee, with a key whose answer replays.
    put_member(owner, &space, &bob.user_id, "viewer")
        .await
        .expect(201);
    let first = keyed(as_bob, Method::DELETE, &member(&bob), None, "decline").await;
    first.expect(200);
    assert_eq!(first.data()["state"], "invited");
    assert!(invitations(as_bob).await.is_empty());
    assert!(listed_member(owner, &space, &bob).await.is_none());
    assert_replayed(
        &first,
        &keyed(as_bob, Method::DELETE, &member(&bob), None, "decline").await,
    );
    let accept = format!("/api/v1/spaces/{space}/accept");
    assert_problem(&as_bob.post(&accept, json!({})).await, 404, "not_found");

    // Withdrawn by the owner, with a key whose answer replays.
    put_member(owner, &space, &carol.user_id, "editor")
        .await
        .expect(201);
    let first = keyed(owner, Method::DELETE, &member(&carol), None, "withdraw").await;
    first.expect(200);
    assert_eq!(first.data()["state"], "invited");
    assert_replayed(
        &first,
        &keyed(owner, Method::DELETE, &member(&carol), None, "withdraw").await,
    );
    assert_problem(&as_carol.post(&accept, json!({})).await, 404, "not_found");
    assert!(invitations(as_carol).await.is_empty());

    // Scoped tokens and the admin token may not answer or list invitations.
    put_member(owner, &space, &carol.user_id, "editor")
        .await
        .expect(201);
    let token = scoped(as_carol, json!({"name": "s", "access": "write"})).await;
    let scoped_carol = app.user(&token);
    assert_problem(
        &scoped_carol.get("/api/v1/invitations").await,
        403,
        "forbidden",
    );
    assert_problem(
        &scoped_carol.post(&accept, json!({})).await,
        403,
        "forbidden",
    );
    let decline = scoped_carol.delete(&member(&carol)).await;
    assert_problem(&decline, 403, "forbidden");
    let admin = app.user(&app.admin_token);
    assert_problem(&admin.get("/api/v1/invitations").await, 403, "forbidden");
    assert_problem(&admin.post(&accept, json!({})).await, 403, "forbidden");
    // A scoped token for every space does not reach a space its user is invited to, and
    // reaches it once the invitation is accepted.
    let tasks = format!("/api/v1/tasks?spaceId={space}");
    assert_problem(&scoped_carol.get(&tasks).await, 404, "not_found");
    as_carol.post(&accept, json!({})).await.expect(200);
    scoped_carol.get(&tasks).await.expect(200);
}

#[actix_web::test]
async fn an_invited_owner_does_not_keep_a_space_owned_until_it_accepts() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "team").await);
    put_member(owner, &space, &bob.user_id, "owner")
        .await
        .expect(201);
    let demote = put_member(owner, &space, &alice.user_id, "editor").await;
    assert_problem(&demote, 409, "last_owner");
    let leave = owner
        .delete(&format!("/api/v1/spaces/{space}/members/{}", alice.user_id))
        .await;
    assert_problem(&leave, 409, "last_owner");
    app.user(&bob.token)
        .post(&format!("/api/v1/spaces/{space}/accept"), json!({}))
        .await
        .expect(200);
    put_member(owner, &space, &alice.user_id, "editor")
        .await
        .expect(200);
}

/// Makes `n` users named `prefix-i`.
async fn users(app: &TestApp, prefix: &str, n: usize) -> Vec<NewUser> {
    let names: Vec<String> = (0..n).map(|i| format!("{prefix}-{i}")).collect();
    join_all(names.iter().map(|name| app.create_user(name))).await
}

#[actix_web::test]
async fn a_user_cannot_be_locked_out_by_invitations() {
    let app = spawn_app();
    let mallory = app.create_user("mallory").await;
    let victim = app.create_user("victim").await;
    let attacker = app.user(&mallory.token);
    let as_victim = app.user(&victim.token);
    // The attack of §21: the victim made a member of as many spaces as the attacker can
    // make. Only 10 invitations from one inviter to one user may be pending.
    let mut spaces = Vec::new();
    for n in 0..11 {
        spaces.push(sid(&new_space(attacker, &format!("trap {n}")).await));
    }
    for space in &spaces[..10] {
        put_member(attacker, space, &victim.user_id, "owner")
            .await
            .expect(201);
    }
    let over = put_member(attacker, &spaces[10], &victim.user_id, "viewer").await;
    assert_problem(&over, 409, "limit_reached");
    // None of them is the victim's, and its own work goes on.
    let listed = listed_space_ids(as_victim).await;
    assert_eq!(listed, std::slice::from_ref(&victim.default_space_id));
    let own = as_victim
        .post("/api/v1/spaces", json!({"name": "mine"}))
        .await;
    own.expect(201);
    assert_eq!(invitations(as_victim).await.len(), 10);
    // A declined invitation frees a place for the inviter.
    as_victim
        .delete(&format!(
            "/api/v1/spaces/{}/members/{}",
            spaces[0], victim.user_id
        ))
        .await
        .expect(200);
    put_member(attacker, &spaces[10], &victim.user_id, "viewer")
        .await
        .expect(201);
}

#[actix_web::test]
async fn a_user_has_at_most_1000_pending_invitations_it_sent() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let owner = app.user(&alice.token);
    let invitees = users(&app, "u", 100).await;
    let names: Vec<String> = (0..11).map(|n| format!("s{n}")).collect();
    let spaces: Vec<String> = join_all(names.iter().map(|name| new_space(owner, name)))
        .await
        .iter()
        .map(sid)
        .collect();
    for space in &spaces[..10] {
        for chunk in invitees.chunks(50) {
            let sent = join_all(
                chunk
                    .iter()
                    .map(|u| put_member(owner, space, &u.user_id, "viewer")),
            )
            .await;
            for reply in sent {
                reply.expect(201);
            }
        }
    }
    let extra = app.create_user("extra").await;
    let over = put_member(owner, &spaces[10], &extra.user_id, "viewer").await;
    assert_problem(&over, 409, "limit_reached");
    // An accepted invitation is no longer pending.
    app.user(&invitees[0].token)
        .post(&format!("/api/v1/spaces/{}/accept", spaces[0]), json!({}))
        .await
        .expect(200);
    put_member(owner, &spaces[10], &extra.user_id, "viewer")
        .await
        .expect(201);
}

#[actix_web::test]
async fn invitations_survive_kill_9_and_a_clean_restart() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let owner = app.user(&alice.token);
    let kept = sid(&new_space(owner, "kept").await);
    let taken = sid(&new_space(owner, "taken").await);
    put_member(owner, &kept, &bob.user_id, "editor")
        .await
        .expect(201);
    put_member(owner, &taken, &carol.user_id, "viewer")
        .await
        .expect(201);
    app.user(&carol.token)
        .post(&format!("/api/v1/spaces/{taken}/accept"), json!({}))
        .await
        .expect(200);
    let before_bob = listed_member(owner, &kept, &bob).await;
    let before_carol = listed_member(owner, &taken, &carol).await;
    let pending = invitations(app.user(&bob.token)).await;

    let mut app = app;
    for clean in [false, true] {
        if clean {
            app.stop();
        } else {
            app.crash();
        }
        app = app.restart_after_stop();
        let owner = app.user(&alice.token);
        assert_eq!(listed_member(owner, &kept, &bob).await, before_bob);
        assert_eq!(listed_member(owner, &taken, &carol).await, before_carol);
        assert_eq!(invitations(app.user(&bob.token)).await, pending);
        assert!(!listed_space_ids(app.user(&bob.token)).await.contains(&kept));
        assert!(listed_space_ids(app.user(&carol.token))
            .await
            .contains(&taken));
    }
    // A backup holds them too.
    let copy = Arc::new(tempfile::tempdir().unwrap());
    app.call(
        Method::POST,
        "/api/v1/admin/backup",
        &app.admin_token.clone(),
        Some(&json!({"to": copy.path()})),
    )
    .await
    .expect(200);
    let restored = TestApp::start(copy, Options::default()).expect("the backup loads");
    assert_eq!(invitations(restored.user(&bob.token)).await, pending);
    let owner = restored.user(&alice.token);
    assert_eq!(listed_member(owner, &kept, &bob).await, before_bob);

    app.user(&bob.token)
        .post(&format!("/api/v1/spaces/{kept}/accept"), json!({}))
        .await
        .expect(200);
}
