//! Access tokens (docs §14): scoped tokens made, listed, used and revoked; what a
//! `read` token and a token limited to some spaces may do; expiry, `lastUsedAt`, the limit
//! of 100; the admin's replacement of a primary token; durability.

use std::path::Path;
use std::time::Duration;

use actix_web::http::Method;
use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{
    assert_invalid_fields, assert_problem, is_utc_millis, millis, spawn_app, spawn_app_with, As,
    NewUser, Options, Reply, TestApp,
};
use crate::spaces::{
    add_member, expect_all, keys, listed_space_ids, me_space_ids, new_space, record_reads,
    record_writes, sid, space_routes, version_of, Call, Stream,
};

/// The fields of a token object, sorted (docs §14).
const TOKEN_FIELDS: [&str; 8] = [
    "access",
    "createdAt",
    "expiresAt",
    "lastUsedAt",
    "name",
    "rateLimit",
    "spaceIds",
    "tokenId",
];

/// Checks that `value` is a token object without its secret, with exactly the contract's
/// fields.
#[track_caller]
fn assert_token_object(value: &Value) {
    assert_eq!(keys(value), TOKEN_FIELDS, "token object {value:#}");
    assert!(
        value["tokenId"].as_str().is_some_and(|s| !s.is_empty()),
        "{value:#}"
    );
    assert!(value["name"].is_string(), "{value:#}");
    assert!(
        value["access"] == "read" || value["access"] == "write",
        "{value:#}"
    );
    assert!(
        value["spaceIds"].is_null() || value["spaceIds"].is_array(),
        "{value:#}"
    );
    assert!(
        value["createdAt"].as_str().is_some_and(is_utc_millis),
        "{value:#}"
    );
    assert!(
        value["rateLimit"].is_null()
            || (value["rateLimit"]["perSecond"].as_u64() >= Some(1)
                && value["rateLimit"]["burst"].as_u64() >= Some(1)),
        "{value:#}"
    );
    for field in ["expiresAt", "lastUsedAt"] {
        assert!(
            value[field].is_null() || value[field].as_str().is_some_and(is_utc_millis),
            "{field} of {value:#}"
        );
    }
}

/// `value` without its `token` field.
fn without_secret(value: &Value) -> Value {
    let mut value = value.clone();
    value.as_object_mut().expect("an object").remove("token");
    value
}

/// `tokenId` of a token object.
fn tid(token: &Value) -> String {
    token["tokenId"]
        .as_str()
        .unwrap_or_else(|| panic!("no tokenId in {token:#}"))
        .to_string()
}

/// Creates a scoped token as `user` with `body`; it must succeed. Returns the object
/// without its secret, and the secret.
async fn new_token(user: As<'_>, body: Value) -> (Value, String) {
    let reply = user.post("/api/v1/tokens", body).await;
    reply.expect(201);
    let data = reply.data();
    let secret = data["token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token in {:#}", reply.body))
        .to_string();
    let object = without_secret(data);
    assert_token_object(&object);
    (object, secret)
}

/// A write token on every space, named `name`.
async fn write_token(user: As<'_>, name: &str) -> (Value, String) {
    new_token(user, json!({"name": name, "access": "write"})).await
}

/// `GET /api/v1/tokens` as `user`: the listed objects.
async fn listed_tokens(user: As<'_>) -> Vec<Value> {
    let reply = user.get("/api/v1/tokens").await;
    reply.expect(200);
    assert_eq!(keys(&reply.body), ["data"], "{:#}", reply.body);
    let tokens = reply.data().as_array().expect("a data array").clone();
    for token in &tokens {
        assert_token_object(token);
    }
    tokens
}

/// The RFC 3339 UTC date-time with milliseconds `seconds` from now.
fn in_seconds(seconds: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(seconds))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Checks a `401 unauthorized` with `WWW-Authenticate: Bearer`.
#[track_caller]
fn assert_refused(reply: &Reply) {
    assert_problem(reply, 401, "unauthorized");
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.starts_with("Bearer"),
        "WWW-Authenticate {challenge:?}"
    );
}

#[actix_web::test]
async fn a_new_token_is_201_with_its_location_and_its_secret_shown_only_there() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    assert_eq!(listed_tokens(primary).await, Vec::<Value>::new());
    let before = chrono::Utc::now().timestamp_millis();
    let reply = primary
        .post(
            "/api/v1/tokens",
            json!({"name": "laptop", "access": "write"}),
        )
        .await;
    reply.expect(201);
    assert_eq!(keys(&reply.body), ["data"]);
    let data = reply.data();
    let mut fields = TOKEN_FIELDS.to_vec();
    fields.push("token");
    fields.sort();
    assert_eq!(keys(data), fields);
    let object = without_secret(data);
    assert_token_object(&object);
    let id = tid(&object);
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v1/tokens/{id}").as_str())
    );
    assert_eq!(object["name"], "laptop");
    assert_eq!(object["access"], "write");
    assert_eq!(object["spaceIds"], Value::Null);
    assert_eq!(object["expiresAt"], Value::Null);
    assert_eq!(object["lastUsedAt"], Value::Null);
    let created = millis(&object["createdAt"]);
    assert!(
        (before - 1000..=chrono::Utc::now().timestamp_millis() + 1000).contains(&created),
        "createdAt {}",
        object["createdAt"]
    );
    let secret = data["token"].as_str().expect("the secret").to_string();
    assert!(secret.len() >= 22, "a secret of 128 bits: {secret:?}");
    assert_ne!(secret, alice.token);

    // Shown only there.
    let one = primary.get(&format!("/api/v1/tokens/{id}")).await;
    one.expect(200);
    assert_eq!(keys(&one.body), ["data"]);
    assert_eq!(one.data(), &object);
    assert_eq!(listed_tokens(primary).await, std::slice::from_ref(&object));

    // It works as alice, on every space she has.
    let me = app.user(&secret).get("/api/v1/me").await;
    me.expect(200);
    assert_eq!(me.data()["userId"], alice.user_id);
    assert_eq!(me.data()["spaceIds"], json!([alice.default_space_id]));
    let task = app.user(&secret).create("tasks", json!({})).await;
    assert_eq!(task["spaceId"], alice.default_space_id);

    // Each secret is new.
    let mut secrets = vec![secret, alice.token.clone()];
    for n in 0..10 {
        secrets.push(write_token(primary, &format!("t{n}")).await.1);
    }
    let count = secrets.len();
    secrets.sort();
    secrets.dedup();
    assert_eq!(secrets.len(), count, "two tokens share a secret");
}

#[actix_web::test]
async fn tokens_are_listed_by_created_at_then_token_id_without_their_secrets() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let primary = app.user(&alice.token);
    // Made concurrently, so that some share a millisecond.
    let made = join_all((0..20).map(|n| {
        primary.post(
            "/api/v1/tokens",
            json!({"name": format!("t{n}"), "access": if n % 2 == 0 { "read" } else { "write" }}),
        )
    }))
    .await;
    let mut made: Vec<Value> = made
        .iter()
        .map(|reply| without_secret(reply.expect(201).data()))
        .collect();
    let listed = listed_tokens(primary).await;
    for token in &listed {
        assert!(
            token.get("token").is_none(),
            "a secret in the list: {token:#}"
        );
    }
    made.sort_by_key(|t| (millis(&t["createdAt"]), tid(t)));
    assert_eq!(listed, made, "ordered by createdAt, then tokenId");

    // Another user's tokens are not there for bob: not listed, 404 by id.
    let as_bob = app.user(&bob.token);
    assert_eq!(listed_tokens(as_bob).await, Vec::<Value>::new());
    let (bobs, bobs_secret) = write_token(as_bob, "bob's").await;
    assert_eq!(listed_tokens(as_bob).await, std::slice::from_ref(&bobs));
    let hers = tid(&listed[0]);
    assert_problem(
        &as_bob.get(&format!("/api/v1/tokens/{hers}")).await,
        404,
        "not_found",
    );
    assert_problem(
        &as_bob.delete(&format!("/api/v1/tokens/{hers}")).await,
        404,
        "not_found",
    );
    // A scoped token gets no further: 403 on every token route.
    let scoped = app.user(&bobs_secret);
    for path in [
        "/api/v1/tokens".to_string(),
        format!("/api/v1/tokens/{hers}"),
    ] {
        assert_problem(&scoped.get(&path).await, 403, "forbidden");
    }
    assert_problem(
        &scoped.delete(&format!("/api/v1/tokens/{hers}")).await,
        403,
        "forbidden",
    );
    assert_problem(
        &as_bob.get("/api/v1/tokens/no-such-token").await,
        404,
        "not_found",
    );
    assert_eq!(listed_tokens(primary).await, listed, "nothing revoked");
}

#[actix_web::test]
async fn token_bodies_are_validated() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let primary = app.user(&alice.token);
    let long = "n".repeat(1001);
    let cases = [
        (json!({}), vec!["access", "name"]),
        (json!({"access": "read"}), vec!["name"]),
        (json!({"name": "x"}), vec!["access"]),
        (json!({"name": "", "access": "read"}), vec!["name"]),
        (json!({"name": long, "access": "read"}), vec!["name"]),
        (json!({"name": 5, "access": "read"}), vec!["name"]),
        (json!({"name": null, "access": "read"}), vec!["name"]),
        (json!({"name": "x", "access": "admin"}), vec!["access"]),
        (json!({"name": "x", "access": "READ"}), vec!["access"]),
        (json!({"name": "x", "access": null}), vec!["access"]),
        (json!({"name": "x", "access": true}), vec!["access"]),
        (
            json!({"name": "x", "access": "read", "spaceIds": []}),
            vec!["spaceIds"],
        ),
        (
            json!({"name": "x", "access": "read", "spaceIds": "all"}),
            vec!["spaceIds"],
        ),
        (
            json!({"name": "x", "access": "read", "spaceIds": [5]}),
            vec!["spaceIds"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": "tomorrow"}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": "2020-01-01T00:00:00Z"}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": in_seconds(-5)}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": "2099-13-01T00:00:00Z"}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": "2099-01-01"}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": "10000-01-01T00:00:00Z"}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "expiresAt": 4_102_444_800u64}),
            vec!["expiresAt"],
        ),
        (
            json!({"name": "x", "access": "read", "scope": "all"}),
            vec!["scope"],
        ),
        (
            json!({"name": "x", "access": "read", "tokenId": "mine"}),
            vec!["tokenId"],
        ),
        (
            json!({"name": "x", "access": "read", "token": "secret"}),
            vec!["token"],
        ),
        (
            json!({"name": "x", "access": "read", "createdAt": "2026-01-01T00:00:00Z"}),
            vec!["createdAt"],
        ),
        (
            json!({"name": "x", "access": "read", "lastUsedAt": null}),
            vec!["lastUsedAt"],
        ),
    ];
    for (body, fields) in &cases {
        let reply = primary.post("/api/v1/tokens", body.clone()).await;
        assert_invalid_fields(&reply, fields);
    }
    for raw in ["{", "[]"] {
        let request = app
            .request(Method::POST, "/api/v1/tokens")
            .insert_header(("Authorization", format!("Bearer {}", alice.token)))
            .insert_header(("Content-Type", "application/json"));
        let reply = app.send(request, Some(raw.as_bytes().to_vec())).await;
        assert_problem(&reply, 400, "invalid_json");
    }

    // 1 to 100 spaces of the caller's: 101 is too many, another user's space is 404.
    let mut spaces = vec![alice.default_space_id.clone()];
    for chunk in 0..4 {
        let made = join_all(
            (0..25)
                .map(|n| primary.post("/api/v1/spaces", json!({"name": format!("s{chunk}-{n}")}))),
        )
        .await;
        spaces.extend(made.iter().map(|r| sid(r.expect(201).data())));
    }
    assert_eq!(spaces.len(), 101);
    let too_many = primary
        .post(
            "/api/v1/tokens",
            json!({"name": "x", "access": "read", "spaceIds": spaces}),
        )
        .await;
    assert_invalid_fields(&too_many, &["spaceIds"]);
    let doomed = sid(&new_space(primary, "doomed").await);
    primary
        .delete(&format!("/api/v1/spaces/{doomed}"))
        .await
        .expect(200);
    for foreign in [
        vec![bob.default_space_id.clone()],
        vec![spaces[0].clone(), bob.default_space_id.clone()],
        vec![uuid::Uuid::new_v4().to_string()],
        vec![doomed.clone()],
    ] {
        let reply = primary
            .post(
                "/api/v1/tokens",
                json!({"name": "x", "access": "read", "spaceIds": foreign}),
            )
            .await;
        assert_problem(&reply, 404, "not_found");
    }
    assert_eq!(
        listed_tokens(primary).await,
        Vec::<Value>::new(),
        "a refused create made a token"
    );

    // What is accepted: 100 spaces in the order given, duplicates dropped; null; an
    // expiry with an offset, written back in UTC; 1,000 characters.
    let (hundred, _) = new_token(
        primary,
        json!({"name": "x", "access": "read", "spaceIds": spaces[1..]}),
    )
    .await;
    assert_eq!(hundred["spaceIds"], json!(spaces[1..]));
    let (deduped, _) = new_token(
        primary,
        json!({"name": "x", "access": "read",
               "spaceIds": [spaces[5], spaces[2], spaces[5], spaces[2], spaces[9]]}),
    )
    .await;
    assert_eq!(
        deduped["spaceIds"],
        json!([spaces[5], spaces[2], spaces[9]])
    );
    let (all, _) = new_token(
        primary,
        json!({"name": "x", "access": "write", "spaceIds": null, "expiresAt": null}),
    )
    .await;
    assert_eq!(
        (all["spaceIds"].clone(), all["expiresAt"].clone()),
        (Value::Null, Value::Null)
    );
    let (later, _) = new_token(
        primary,
        json!({"name": "x", "access": "read", "expiresAt": "2099-06-01T02:00:00.5+02:00"}),
    )
    .await;
    assert_eq!(later["expiresAt"], "2099-06-01T00:00:00.500Z");
    let most = "\u{e9}".repeat(1000);
    let (named, _) = new_token(primary, json!({"name": most, "access": "read"})).await;
    assert_eq!(named["name"], most.as_str());
    assert_eq!(listed_tokens(primary).await.len(), 5);
}

#[actix_web::test]
async fn a_read_token_reads_everything_and_writes_nothing() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let primary = app.user(&alice.token);
    let home = alice.default_space_id.clone();
    primary.create("tasks", json!({"todoId": "T"})).await;
    let mine = sid(&new_space(primary, "mine").await);
    primary
        .post(
            &format!("/api/v1/tasks?spaceId={mine}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    let theirs = sid(&new_space(app.user(&bob.token), "theirs").await);
    app.user(&bob.token)
        .post(
            &format!("/api/v1/tasks?spaceId={theirs}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    add_member(app.user(&bob.token), &theirs, &alice, "editor").await;

    let (_, secret) = new_token(primary, json!({"name": "reader", "access": "read"})).await;
    let reader = app.user(&secret);
    assert_eq!(me_space_ids(reader).await, me_space_ids(primary).await);
    // The space objects show the member's role, whatever the token's access.
    let spaces = reader.get("/api/v1/spaces").await;
    spaces.expect(200);
    assert_eq!(spaces.body, primary.get("/api/v1/spaces").await.body);
    let roles: Vec<&str> = spaces
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["role"].as_str().unwrap())
        .collect();
    assert!(roles.contains(&"editor") && roles.iter().filter(|r| **r == "owner").count() == 2);

    for space in [&home, &mine, &theirs] {
        for (method, path, body) in record_reads(space, "T") {
            let reply = app.call(method, &path, &secret, body.as_ref()).await;
            assert_eq!(reply.status, 200, "GET {path}: {:#}", reply.body);
        }
        let members = reader.get(&format!("/api/v1/spaces/{space}/members")).await;
        members.expect(200);
        let mut stream = Stream::open(&app, &secret, &format!("?spaceId={space}")).await;
        assert!(stream.wait_for("\"T\"").await, "{}", stream.text);
    }
    reader.get("/api/v1/tasks/T").await.expect(200);

    for space in [&home, &mine, &theirs] {
        let before = primary
            .get(&format!("/api/v1/tasks/T?spaceId={space}"))
            .await;
        expect_all(&app, &secret, &record_writes(space, "T"), 403, "forbidden").await;
        let after = primary
            .get(&format!("/api/v1/tasks/T?spaceId={space}"))
            .await;
        assert_eq!(after.body, before.body);
        assert_eq!(
            version_of(primary, space).await,
            1,
            "a refused write moved {space}"
        );
    }
    let default_write = reader.post("/api/v1/tasks", json!({})).await;
    assert_problem(&default_write, 403, "forbidden");
    assert_eq!(version_of(primary, &home).await, 1);

    // A write token is bounded by the member's role: the least of the two rules.
    let viewed = sid(&new_space(app.user(&bob.token), "viewed").await);
    add_member(app.user(&bob.token), &viewed, &alice, "viewer").await;
    let (_, writer) = write_token(primary, "writer").await;
    let refused = app
        .user(&writer)
        .post(&format!("/api/v1/tasks?spaceId={viewed}"), json!({}))
        .await;
    assert_problem(&refused, 403, "forbidden");
    app.user(&writer)
        .post(&format!("/api/v1/tasks?spaceId={theirs}"), json!({}))
        .await
        .expect(201);
    app.user(&writer).create("tasks", json!({})).await;
}

#[actix_web::test]
async fn a_token_limited_to_some_spaces_sees_no_other() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let primary = app.user(&alice.token);
    let home = alice.default_space_id.clone();
    primary.create("tasks", json!({"todoId": "T"})).await;
    let a = sid(&new_space(primary, "a").await);
    let c = sid(&new_space(primary, "c").await);
    primary
        .post(
            &format!("/api/v1/tasks?spaceId={c}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    let (limited, secret) = new_token(
        primary,
        json!({"name": "only a", "access": "write", "spaceIds": [a]}),
    )
    .await;
    assert_eq!(limited["spaceIds"], json!([a]));
    let (_, everywhere) = write_token(primary, "everywhere").await;
    let scoped = app.user(&secret);

    let only_a = scoped.get("/api/v1/spaces").await;
    only_a.expect(200);
    assert_eq!(only_a.data().as_array().unwrap().len(), 1);
    assert_eq!(only_a.data()[0]["spaceId"], a.as_str());
    assert_eq!(only_a.data()[0]["role"], "owner");
    assert_eq!(me_space_ids(scoped).await, [a.as_str()]);
    let me = scoped.get("/api/v1/me").await;
    assert_eq!(me.data()["userId"], alice.user_id);

    for other in [&home, &c] {
        let mut calls = record_reads(other, "T");
        calls.extend(record_writes(other, "T"));
        calls.extend(space_routes(other, &bob.user_id));
        calls.push((
            Method::GET,
            format!("/api/v1/changes/stream?spaceId={other}"),
            None,
        ));
        expect_all(&app, &secret, &calls, 404, "not_found").await;
    }
    // The default space is outside it too: no spaceId means the default space.
    let calls: Vec<Call> = vec![
        (Method::GET, "/api/v1/tasks".into(), None),
        (Method::GET, "/api/v1/tasks/T".into(), None),
        (Method::POST, "/api/v1/tasks".into(), Some(json!({}))),
        (Method::GET, "/api/v1/changes".into(), None),
        (Method::GET, "/api/v1/changes/stream".into(), None),
        (
            Method::POST,
            "/api/v1/batch".into(),
            Some(json!({"operations": [{"method": "POST", "path": "/api/v1/tasks"}]})),
        ),
    ];
    expect_all(&app, &secret, &calls, 404, "not_found").await;
    assert_eq!(version_of(primary, &home).await, 1);
    assert_eq!(version_of(primary, &c).await, 1);

    // Space a works.
    scoped
        .post(
            &format!("/api/v1/tasks?spaceId={a}"),
            json!({"todoId": "A"}),
        )
        .await
        .expect(201);
    scoped
        .get(&format!("/api/v1/tasks/A?spaceId={a}"))
        .await
        .expect(200);
    scoped.get(&format!("/api/v1/spaces/{a}")).await.expect(200);
    let mut stream = Stream::open(&app, &secret, &format!("?spaceId={a}")).await;
    assert!(stream.wait_for("\"A\"").await, "{}", stream.text);

    // A space alice reaches later: the token without spaceIds sees it, the limited one
    // does not.
    let later = sid(&new_space(primary, "later").await);
    let shared = sid(&new_space(app.user(&bob.token), "shared").await);
    add_member(app.user(&bob.token), &shared, &alice, "editor").await;
    let all = app.user(&everywhere);
    assert_eq!(listed_space_ids(all).await, listed_space_ids(primary).await);
    assert_eq!(listed_space_ids(all).await.len(), 5);
    for space in [&later, &shared] {
        all.post(&format!("/api/v1/tasks?spaceId={space}"), json!({}))
            .await
            .expect(201);
        let hidden = scoped.get(&format!("/api/v1/spaces/{space}")).await;
        assert_problem(&hidden, 404, "not_found");
    }
    assert_eq!(listed_space_ids(scoped).await, [a.as_str()]);
    // ...and loses it with the membership.
    app.user(&bob.token)
        .delete(&format!(
            "/api/v1/spaces/{shared}/members/{}",
            alice.user_id
        ))
        .await
        .expect(200);
    let gone = all.get(&format!("/api/v1/tasks?spaceId={shared}")).await;
    assert_problem(&gone, 404, "not_found");
    // Listed in spaceId order, whatever the token's order.
    let mut pair = vec![c.clone(), home.clone()];
    pair.sort();
    pair.reverse();
    let (both, both_secret) = new_token(
        primary,
        json!({"name": "two", "access": "read", "spaceIds": pair}),
    )
    .await;
    assert_eq!(both["spaceIds"], json!(pair), "the order given");
    pair.reverse();
    assert_eq!(listed_space_ids(app.user(&both_secret)).await, pair);
    assert_eq!(me_space_ids(app.user(&both_secret)).await, pair);
    // A token whose only space is deleted reaches nothing.
    primary
        .delete(&format!("/api/v1/spaces/{a}"))
        .await
        .expect(200);
    assert_eq!(listed_space_ids(scoped).await, Vec::<String>::new());
    assert_eq!(me_space_ids(scoped).await, Vec::<String>::new());
}

#[actix_web::test]
async fn only_the_primary_token_manages_spaces_members_and_tokens() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let primary = app.user(&alice.token);
    let space = sid(&new_space(primary, "team").await);
    add_member(primary, &space, &bob, "editor").await;
    let theirs = sid(&new_space(app.user(&bob.token), "theirs").await);
    add_member(app.user(&bob.token), &theirs, &alice, "editor").await;
    let (writer, writer_secret) = write_token(primary, "writer").await;
    let (_, reader_secret) = new_token(primary, json!({"name": "reader", "access": "read"})).await;
    let (_, limited_secret) = new_token(
        primary,
        json!({"name": "limited", "access": "write", "spaceIds": [space]}),
    )
    .await;
    let writer_id = tid(&writer);

    let managing = |space: &str| -> Vec<Call> {
        vec![
            (
                Method::POST,
                "/api/v1/spaces".into(),
                Some(json!({"name": "new"})),
            ),
            (
                Method::PATCH,
                format!("/api/v1/spaces/{space}"),
                Some(json!({"name": "renamed"})),
            ),
            (Method::DELETE, format!("/api/v1/spaces/{space}"), None),
            (
                Method::PUT,
                format!("/api/v1/spaces/{space}/members/{}", carol.user_id),
                Some(json!({"role": "viewer"})),
            ),
            (
                Method::PUT,
                format!("/api/v1/spaces/{space}/members/{}", bob.user_id),
                Some(json!({"role": "viewer"})),
            ),
            (
                Method::DELETE,
                format!("/api/v1/spaces/{space}/members/{}", bob.user_id),
                None,
            ),
            (Method::GET, "/api/v1/tokens".into(), None),
            (
                Method::POST,
                "/api/v1/tokens".into(),
                Some(json!({"name": "more", "access": "read"})),
            ),
            (Method::GET, format!("/api/v1/tokens/{writer_id}"), None),
            (Method::DELETE, format!("/api/v1/tokens/{writer_id}"), None),
        ]
    };
    for secret in [&writer_secret, &reader_secret, &limited_secret] {
        expect_all(&app, secret, &managing(&space), 403, "forbidden").await;
        // Leaving a space is managing members too.
        let leave = format!("/api/v1/spaces/{theirs}/members/{}", alice.user_id);
        if *secret != limited_secret {
            let reply = app.user(secret).delete(&leave).await;
            assert_problem(&reply, 403, "forbidden");
        }
        // Reading the space and its members is not.
        let scoped = app.user(secret);
        scoped.get("/api/v1/spaces").await.expect(200);
        scoped
            .get(&format!("/api/v1/spaces/{space}"))
            .await
            .expect(200);
        scoped
            .get(&format!("/api/v1/spaces/{space}/members"))
            .await
            .expect(200);
    }
    // A space the token does not reach is 404 before it is 403.
    let limited_elsewhere: Vec<Call> = managing(&theirs)
        .into_iter()
        .filter(|(_, path, _)| path.contains(&theirs))
        .collect();
    expect_all(&app, &limited_secret, &limited_elsewhere, 404, "not_found").await;

    // Nothing changed.
    let now = primary.get(&format!("/api/v1/spaces/{space}")).await;
    now.expect(200);
    assert_eq!(now.data()["name"], "team");
    assert_eq!(now.data()["memberCount"], 2);
    assert_eq!(listed_space_ids(primary).await.len(), 3);
    assert_eq!(listed_tokens(primary).await.len(), 3);
    app.user(&writer_secret).get("/api/v1/me").await.expect(200);
    let theirs_now = app
        .user(&bob.token)
        .get(&format!("/api/v1/spaces/{theirs}"))
        .await;
    assert_eq!(theirs_now.data()["memberCount"], 2);
}

#[actix_web::test]
async fn a_revoked_token_is_refused_from_the_next_request_and_is_gone() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let (first, first_secret) = write_token(primary, "first").await;
    let (second, second_secret) = write_token(primary, "second").await;
    app.user(&first_secret).get("/api/v1/me").await.expect(200);
    primary.create("tasks", json!({"todoId": "T"})).await;
    let mut stream = Stream::open(&app, &first_secret, "").await;
    assert!(stream.wait_for("\"T\"").await, "{}", stream.text);
    let mut other = Stream::open(&app, &second_secret, "").await;
    assert!(other.wait_for("\"T\"").await, "{}", other.text);
    let id = tid(&first);
    let before = primary.get(&format!("/api/v1/tokens/{id}")).await;
    before.expect(200);

    let revoked = primary.delete(&format!("/api/v1/tokens/{id}")).await;
    revoked.expect(200);
    assert_eq!(keys(&revoked.body), ["data"]);
    assert_token_object(revoked.data());
    assert_eq!(revoked.data(), before.data());

    // Its open streams end (the README's choice; the contract says "from the next request").
    assert!(stream.ends().await, "the revoked token's stream ended");
    for path in ["/api/v1/me", "/api/v1/tasks", "/api/v1/spaces"] {
        assert_refused(&app.user(&first_secret).get(path).await);
    }
    assert_refused(
        &app.user(&first_secret)
            .post("/api/v1/tasks", json!({}))
            .await,
    );
    assert_problem(
        &primary.get(&format!("/api/v1/tokens/{id}")).await,
        404,
        "not_found",
    );
    assert_problem(
        &primary.delete(&format!("/api/v1/tokens/{id}")).await,
        404,
        "not_found",
    );
    let listed = listed_tokens(primary).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["tokenId"], second["tokenId"]);
    app.user(&second_secret).get("/api/v1/me").await.expect(200);
    primary.get("/api/v1/me").await.expect(200);
    primary.create("tasks", json!({"todoId": "U"})).await;
    assert!(
        other.wait_for("\"U\"").await,
        "another token's stream goes on"
    );
    assert_eq!(app.space_version().await, 0);
}

/// docs §21: a stream opened with a scoped token ends at the token's `expiresAt`, as
/// it does when the token is revoked: not before (it gets the writes made until then),
/// and within a few seconds after; a stream of a token that lasts goes on.
#[actix_web::test]
async fn a_stream_of_a_scoped_token_ends_at_its_expiry() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let expiry = in_seconds(2);
    let expires_at = millis(&json!(expiry));
    let (_, brief) = new_token(
        primary,
        json!({"name": "brief", "access": "read", "expiresAt": expiry}),
    )
    .await;
    let (_, lasting) = new_token(
        primary,
        json!({"name": "lasting", "access": "read", "expiresAt": in_seconds(3600)}),
    )
    .await;
    let mut stream = Stream::open(&app, &brief, "").await;
    let mut other = Stream::open(&app, &lasting, "").await;
    primary.create("tasks", json!({"todoId": "before"})).await;
    assert!(stream.wait_for("\"before\"").await, "{}", stream.text);
    let now = || chrono::Utc::now().timestamp_millis();
    assert!(
        now() < expires_at,
        "the set-up took past the expiry: the machine is too slow for this test"
    );

    let limit = Duration::from_millis((expires_at - now()).unsigned_abs() + 5_000);
    assert!(
        stream.ends_within(limit).await,
        "the stream still runs 5 s after its token expired: {}",
        stream.text
    );
    let ended = now();
    assert!(
        ended >= expires_at,
        "the stream ended {} ms before its token expired",
        expires_at - ended
    );
    primary.create("tasks", json!({"todoId": "after"})).await;
    assert!(
        other.wait_for("\"after\"").await,
        "the lasting token's stream goes on: {}",
        other.text
    );
    assert_refused(&app.user(&brief).get("/api/v1/changes/stream").await);
}

#[actix_web::test]
async fn an_expired_token_is_refused_but_stays_listed() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let expiry = in_seconds(2);
    let (token, secret) = new_token(
        primary,
        json!({"name": "brief", "access": "write", "expiresAt": expiry}),
    )
    .await;
    assert_eq!(token["expiresAt"], expiry.as_str());
    let (_, lasting) = new_token(
        primary,
        json!({"name": "lasting", "access": "write", "expiresAt": in_seconds(3600)}),
    )
    .await;
    app.user(&secret).get("/api/v1/me").await.expect(200);

    let deadline = millis(&json!(expiry)) + 50;
    while chrono::Utc::now().timestamp_millis() <= deadline {
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert_refused(&app.user(&secret).get("/api/v1/me").await);
    assert_refused(&app.user(&secret).post("/api/v1/tasks", json!({})).await);
    app.user(&lasting).get("/api/v1/me").await.expect(200);

    let id = tid(&token);
    let listed = listed_tokens(primary).await;
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().any(|t| t["tokenId"] == id.as_str()));
    let one = primary.get(&format!("/api/v1/tokens/{id}")).await;
    one.expect(200);
    assert_eq!(one.data()["expiresAt"], expiry.as_str());
    primary
        .delete(&format!("/api/v1/tokens/{id}"))
        .await
        .expect(200);
    assert_eq!(listed_tokens(primary).await.len(), 1);
}

#[actix_web::test]
async fn last_used_at_is_null_until_the_token_is_accepted() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let (used, secret) = write_token(primary, "used").await;
    let (unused, _) = write_token(primary, "unused").await;
    let path = format!("/api/v1/tokens/{}", tid(&used));
    assert_eq!(primary.get(&path).await.data()["lastUsedAt"], Value::Null);

    app.user(&secret).get("/api/v1/tasks").await.expect(200);
    let now = chrono::Utc::now().timestamp_millis();
    let seen = primary.get(&path).await;
    seen.expect(200);
    let last = &seen.data()["lastUsedAt"];
    assert!(
        last.as_str().is_some_and(is_utc_millis),
        "lastUsedAt {last}"
    );
    assert!(
        (millis(last) - now).abs() <= 60_000,
        "lastUsedAt {last}, now {now}"
    );
    assert!(millis(last) >= millis(&used["createdAt"]) - 60_000);
    let listed = listed_tokens(primary).await;
    let of = |token: &Value| {
        listed
            .iter()
            .find(|t| t["tokenId"] == token["tokenId"])
            .unwrap()["lastUsedAt"]
            .clone()
    };
    assert_eq!(&of(&used), last);
    assert_eq!(of(&unused), Value::Null);
}

#[actix_web::test]
async fn a_user_has_at_most_100_live_tokens() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let primary = app.user(&alice.token);
    // 120 at once for 100 places: exactly 100 are made.
    let made = join_all((0..120).map(|n| {
        primary.post(
            "/api/v1/tokens",
            json!({"name": format!("t{n}"), "access": "read"}),
        )
    }))
    .await;
    for reply in made.iter().filter(|r| r.status != 201) {
        assert_problem(reply, 409, "limit_reached");
    }
    let ids: Vec<String> = made
        .iter()
        .filter(|r| r.status == 201)
        .map(|r| tid(r.data()))
        .collect();
    assert_eq!(ids.len(), 100, "tokens made of 120");
    assert_eq!(listed_tokens(primary).await.len(), 100);
    let body = json!({"name": "one more", "access": "read"});
    let over = primary.post("/api/v1/tokens", body.clone()).await;
    assert_problem(&over, 409, "limit_reached");
    // The limit is per user.
    write_token(app.user(&bob.token), "bob's").await;

    // A revoked token frees a place.
    primary
        .delete(&format!("/api/v1/tokens/{}", ids[0]))
        .await
        .expect(200);
    let expiry = in_seconds(2);
    new_token(
        primary,
        json!({"name": "brief", "access": "read", "expiresAt": expiry}),
    )
    .await;
    assert_problem(
        &primary.post("/api/v1/tokens", body.clone()).await,
        409,
        "limit_reached",
    );

    // So does an expired one, which stays listed.
    let deadline = millis(&json!(expiry)) + 50;
    while chrono::Utc::now().timestamp_millis() <= deadline {
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    new_token(primary, body.clone()).await;
    assert_problem(
        &primary.post("/api/v1/tokens", body).await,
        409,
        "limit_reached",
    );
    assert_eq!(
        listed_tokens(primary).await.len(),
        101,
        "100 live and 1 expired"
    );
}

#[actix_web::test]
async fn the_admin_replaces_a_users_primary_token() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (_, scoped) = write_token(app.user(&alice.token), "scoped").await;
    let path = format!("/api/v1/admin/users/{}/token", alice.user_id);

    // Only the admin: a user's primary or scoped token is 403.
    for token in [&alice.token, &bob.token, &scoped, &app.default_token] {
        let reply = app.call(Method::POST, &path, token, None).await;
        assert_problem(&reply, 403, "forbidden");
    }
    app.user(&alice.token).get("/api/v1/me").await.expect(200);

    let mut old_stream = Stream::open(&app, &alice.token, "").await;
    let mut scoped_stream = Stream::open(&app, &scoped, "").await;
    let reply = app.call(Method::POST, &path, &app.admin_token, None).await;
    reply.expect(200);
    // The old token's streams end (the README's choice); a scoped token's stay.
    assert!(old_stream.ends().await, "the replaced token's stream ended");
    assert_eq!(keys(&reply.body), ["data"]);
    let data = reply.data();
    assert_eq!(keys(data), ["defaultSpaceId", "name", "token", "userId"]);
    assert_eq!(data["userId"], alice.user_id);
    assert_eq!(data["name"], "alice");
    assert_eq!(data["defaultSpaceId"], alice.default_space_id);
    let new = data["token"].as_str().expect("a token").to_string();
    assert_ne!(new, alice.token);
    assert!(new.len() >= 22);

    assert_refused(&app.user(&alice.token).get("/api/v1/me").await);
    let me = app.user(&new).get("/api/v1/me").await;
    me.expect(200);
    assert_eq!(me.data()["userId"], alice.user_id);
    // It is a primary token: it manages tokens and spaces.
    app.user(&new).get("/api/v1/tokens").await.expect(200);
    new_space(app.user(&new), "after").await;
    app.user(&bob.token).get("/api/v1/me").await.expect(200);
    app.user(&new)
        .create("tasks", json!({"todoId": "after"}))
        .await;
    assert!(
        scoped_stream.wait_for("\"after\"").await,
        "{}",
        scoped_stream.text
    );

    // Once more: the one before is refused in turn.
    let again = app.call(Method::POST, &path, &app.admin_token, None).await;
    again.expect(200);
    let newer = again.data()["token"].as_str().unwrap().to_string();
    assert_refused(&app.user(&new).get("/api/v1/me").await);
    app.user(&newer).get("/api/v1/me").await.expect(200);

    for unknown in ["no-such-user".to_string(), uuid::Uuid::new_v4().to_string()] {
        let reply = app
            .call(
                Method::POST,
                &format!("/api/v1/admin/users/{unknown}/token"),
                &app.admin_token,
                None,
            )
            .await;
        assert_problem(&reply, 404, "not_found");
    }
}

#[actix_web::test]
async fn a_refused_scoped_token_counts_as_a_failed_authentication() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let (token, secret) = write_token(primary, "revoked").await;
    primary
        .delete(&format!("/api/v1/tokens/{}", tid(&token)))
        .await
        .expect(200);
    for _ in 0..100 {
        assert_refused(&app.user(&secret).get("/api/v1/me").await);
    }
    primary.get("/api/v1/me").await.expect(200);
    assert_refused(&app.user(&secret).get("/api/v1/me").await);
    let locked = primary.get("/api/v1/me").await;
    assert_problem(&locked, 429, "too_many_requests");
}

#[actix_web::test]
async fn retried_token_changes_replay_their_answers_without_secrets() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let body = json!({"name": "once", "access": "write"});
    let key = [("Idempotency-Key", "token-once")];
    let first = primary
        .send_with(Method::POST, "/api/v1/tokens", Some(&body), &key)
        .await;
    first.expect(201);
    let secret = first.data()["token"]
        .as_str()
        .expect("the secret")
        .to_string();
    let again = primary
        .send_with(Method::POST, "/api/v1/tokens", Some(&body), &key)
        .await;
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.header("location"), first.header("location"));
    // Secrets are kept only as hashes (§2, §11): a replay cannot show it again.
    assert_eq!(again.body, json!({"data": without_secret(first.data())}));
    assert_eq!(listed_tokens(primary).await.len(), 1, "one token made");
    app.user(&secret).get("/api/v1/me").await.expect(200);

    let path = format!("/api/v1/tokens/{}", tid(first.data()));
    let key = [("Idempotency-Key", "revoke-once")];
    let first = primary.send_with(Method::DELETE, &path, None, &key).await;
    first.expect(200);
    let again = primary.send_with(Method::DELETE, &path, None, &key).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);

    let path = format!("/api/v1/admin/users/{}/token", alice.user_id);
    let admin = app.user(&app.admin_token);
    let key = [("Idempotency-Key", "replace-once")];
    let first = admin.send_with(Method::POST, &path, None, &key).await;
    first.expect(200);
    let new = first.data()["token"]
        .as_str()
        .expect("the new token")
        .to_string();
    let again = admin.send_with(Method::POST, &path, None, &key).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, json!({"data": without_secret(first.data())}));
    app.user(&new).get("/api/v1/me").await.expect(200);
}

/// Tokens in every state: a read token limited to a space, a write token on every space,
/// a revoked one, one with an expiry, and bob's replaced primary token. Returns the
/// secrets (read, write, revoked, bob's old, bob's new) and the limited space.
async fn tokens_world(app: &TestApp, alice: &NewUser, bob: &NewUser) -> (Vec<String>, String) {
    let primary = app.user(&alice.token);
    let space = sid(&new_space(primary, "scoped").await);
    let (_, read) = new_token(
        primary,
        json!({"name": "read", "access": "read", "spaceIds": [space]}),
    )
    .await;
    let (_, write) = write_token(primary, "write").await;
    new_token(
        primary,
        json!({"name": "expiring", "access": "write", "expiresAt": in_seconds(3600)}),
    )
    .await;
    app.user(&read)
        .get(&format!("/api/v1/tasks?spaceId={space}"))
        .await
        .expect(200);
    let replaced = app
        .call(
            Method::POST,
            &format!("/api/v1/admin/users/{}/token", bob.user_id),
            &app.admin_token,
            None,
        )
        .await;
    replaced.expect(200);
    let bob_new = replaced.data()["token"].as_str().unwrap().to_string();
    let (revoked, revoked_secret) = write_token(primary, "revoked").await;
    primary
        .delete(&format!("/api/v1/tokens/{}", tid(&revoked)))
        .await
        .expect(200);
    (
        vec![read, write, revoked_secret, bob.token.clone(), bob_new],
        space,
    )
}

/// The listed tokens without `lastUsedAt` (kept only to within a minute).
async fn listed_without_last_use(user: As<'_>) -> Vec<Value> {
    listed_tokens(user)
        .await
        .into_iter()
        .map(|mut t| {
            t.as_object_mut().unwrap().remove("lastUsedAt");
            t
        })
        .collect()
}

/// Checks that what [`tokens_world`] made is all still there.
async fn check_tokens(
    app: &TestApp,
    alice: &NewUser,
    secrets: &[String],
    space: &str,
    before: &[Value],
) {
    let primary = app.user(&alice.token);
    assert_eq!(listed_without_last_use(primary).await, before);
    let read = app.user(&secrets[0]);
    read.get(&format!("/api/v1/tasks?spaceId={space}"))
        .await
        .expect(200);
    assert_problem(
        &read
            .post(&format!("/api/v1/tasks?spaceId={space}"), json!({}))
            .await,
        403,
        "forbidden",
    );
    assert_problem(&read.get("/api/v1/tasks").await, 404, "not_found");
    app.user(&secrets[1]).create("tasks", json!({})).await;
    assert_refused(&app.user(&secrets[2]).get("/api/v1/me").await);
    assert_refused(&app.user(&secrets[3]).get("/api/v1/me").await);
    app.user(&secrets[4]).get("/api/v1/me").await.expect(200);
    primary.get("/api/v1/tokens").await.expect(200);
}

/// Whether any file under `dir` holds `needle`.
fn any_file_holds(dir: &Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).unwrap().flatten().any(|entry| {
        let path = entry.path();
        if path.is_dir() {
            any_file_holds(&path, needle)
        } else {
            std::fs::read(&path)
                .map(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
                .unwrap_or(false)
        }
    })
}

#[actix_web::test]
async fn tokens_revocations_and_replacements_survive_a_clean_restart() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (secrets, space) = tokens_world(&app, &alice, &bob).await;
    let before = listed_without_last_use(app.user(&alice.token)).await;
    assert_eq!(before.len(), 3);
    let app = app.restart();
    check_tokens(&app, &alice, &secrets, &space, &before).await;
    // Only hashes are stored.
    for secret in &secrets {
        assert!(
            !any_file_holds(app.dir.path(), secret.as_bytes()),
            "a secret in clear in the data directory"
        );
    }
}

#[actix_web::test]
async fn tokens_revocations_and_replacements_survive_kill_9() {
    let mut app = spawn_app_with(Options {
        snapshot_interval_ms: 60_000,
        ..Options::default()
    });
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (secrets, space) = tokens_world(&app, &alice, &bob).await;
    let before = listed_without_last_use(app.user(&alice.token)).await;
    app.crash();
    let app = app.restart_after_stop();
    check_tokens(&app, &alice, &secrets, &space, &before).await;
}
