//! Shared spaces and their members (docs §13): the space object, the routes by role,
//! visibility (404 before 403), deletion, the default space and the last owner, limits,
//! idempotent retries, and durability across a clean restart and `kill -9`.

use std::collections::BTreeMap;
use std::path::Path;
use std::pin::Pin;
use std::time::{Duration, Instant};

use actix_web::http::Method;
use futures_util::future::join_all;
use futures_util::StreamExt;
use serde_json::{json, Value};

use crate::helpers::{
    assert_invalid_fields, assert_problem, is_lowercase_uuid, is_utc_millis, millis, spawn_app,
    spawn_app_with, wait_until, As, NewUser, Options, Reply, TestApp, KINDS,
};

/// The fields of a space object, sorted (docs §13).
pub(crate) const SPACE_FIELDS: [&str; 7] = [
    "createdAt",
    "isDefault",
    "memberCount",
    "name",
    "role",
    "spaceId",
    "spaceVersion",
];

/// The fields of a member object, sorted (docs §13).
const MEMBER_FIELDS: [&str; 5] = ["addedAt", "name", "role", "state", "userId"];

/// The keys of a JSON object, sorted.
pub(crate) fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value:#}"))
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

/// Checks that `value` is a space object with exactly the contract's fields, well formed.
#[track_caller]
pub(crate) fn assert_space_object(value: &Value) {
    assert_eq!(keys(value), SPACE_FIELDS, "space object {value:#}");
    assert!(value["spaceId"].is_string(), "{value:#}");
    assert!(value["name"].is_string(), "{value:#}");
    assert!(
        ["owner", "editor", "viewer"].contains(&value["role"].as_str().unwrap_or("")),
        "{value:#}"
    );
    assert!(value["isDefault"].is_boolean(), "{value:#}");
    assert!(value["spaceVersion"].is_u64(), "{value:#}");
    assert!(
        value["memberCount"].as_u64().is_some_and(|n| n >= 1),
        "{value:#}"
    );
    assert!(
        value["createdAt"].as_str().is_some_and(is_utc_millis),
        "{value:#}"
    );
}

/// Checks that `value` is a member object with exactly the contract's fields.
#[track_caller]
fn assert_member_object(value: &Value) {
    assert_eq!(keys(value), MEMBER_FIELDS, "member object {value:#}");
    assert!(value["userId"].is_string(), "{value:#}");
    assert!(value["name"].is_string(), "{value:#}");
    assert!(
        value["addedAt"].as_str().is_some_and(is_utc_millis),
        "{value:#}"
    );
}

/// Checks that `reply` is `status` with a body of exactly `{"data": ...}`.
#[track_caller]
fn expect_data(reply: &Reply, status: u16) -> Value {
    reply.expect(status);
    assert_eq!(keys(&reply.body), ["data"], "body {:#}", reply.body);
    reply.data().clone()
}

/// `spaceId` of a space object.
pub(crate) fn sid(space: &Value) -> String {
    space["spaceId"]
        .as_str()
        .unwrap_or_else(|| panic!("no spaceId in {space:#}"))
        .to_string()
}

/// Creates a space named `name` as `user`; it must succeed. Returns the space object.
pub(crate) async fn new_space(user: As<'_>, name: &str) -> Value {
    let reply = user.post("/api/v1/spaces", json!({ "name": name })).await;
    expect_data(&reply, 201)
}

/// `PUT /api/v1/spaces/{space}/members/{user_id}` with `role`, as `owner`.
pub(crate) async fn put_member(owner: As<'_>, space: &str, user_id: &str, role: &str) -> Reply {
    owner
        .put(
            &format!("/api/v1/spaces/{space}/members/{user_id}"),
            json!({ "role": role }),
        )
        .await
}

/// Invites (201) `user` to `space` with `role`, as `owner`, and has it accept (docs
/// §21); returns its member object as the member list then shows it.
pub(crate) async fn add_member(owner: As<'_>, space: &str, user: &NewUser, role: &str) -> Value {
    let reply = put_member(owner, space, &user.user_id, role).await;
    let invited = expect_data(&reply, 201);
    assert_eq!(invited["state"], "invited", "{invited:#}");
    let accepted = owner
        .app()
        .user(&user.token)
        .post(&format!("/api/v1/spaces/{space}/accept"), json!({}))
        .await;
    expect_data(&accepted, 200);
    let members = owner.get(&format!("/api/v1/spaces/{space}/members")).await;
    let member = members
        .data()
        .as_array()
        .and_then(|all| all.iter().find(|m| m["userId"] == *user.user_id))
        .cloned()
        .unwrap_or_else(|| panic!("{} not listed: {:#}", user.user_id, members.body));
    assert_eq!(member["state"], "active", "{member:#}");
    member
}

/// The ids `GET /api/v1/spaces` lists for `user`, in order.
pub(crate) async fn listed_space_ids(user: As<'_>) -> Vec<String> {
    let reply = user.get("/api/v1/spaces").await;
    reply.expect(200);
    reply
        .data()
        .as_array()
        .unwrap_or_else(|| panic!("no data array in {:#}", reply.body))
        .iter()
        .map(sid)
        .collect()
}

/// `spaceIds` of `GET /api/v1/me` for `user`.
pub(crate) async fn me_space_ids(user: As<'_>) -> Vec<String> {
    let reply = user.get("/api/v1/me").await;
    reply.expect(200);
    reply.data()["spaceIds"]
        .as_array()
        .unwrap_or_else(|| panic!("no spaceIds in {:#}", reply.body))
        .iter()
        .map(|id| id.as_str().expect("a space id").to_string())
        .collect()
}

/// The space's version as `GET /api/v1/spaces/{space}` shows it to `user`.
pub(crate) async fn version_of(user: As<'_>, space: &str) -> u64 {
    let reply = user.get(&format!("/api/v1/spaces/{space}")).await;
    reply.expect(200);
    reply.data()["spaceVersion"]
        .as_u64()
        .unwrap_or_else(|| panic!("no spaceVersion in {:#}", reply.body))
}

/// A request of a test: method, path and body.
pub(crate) type Call = (Method, String, Option<Value>);

/// One batch operation that creates a task.
fn batch_body() -> Value {
    json!({"operations": [{"method": "POST", "path": "/api/v1/tasks", "body": {}}]})
}

/// Every record read of `space` (task `task` must exist there), the stream excepted.
pub(crate) fn record_reads(space: &str, task: &str) -> Vec<Call> {
    let mut calls: Vec<Call> = KINDS
        .iter()
        .map(|(collection, _)| {
            (
                Method::GET,
                format!("/api/v1/{collection}?spaceId={space}"),
                None,
            )
        })
        .collect();
    calls.push((
        Method::GET,
        format!("/api/v1/tasks/{task}?spaceId={space}"),
        None,
    ));
    calls.push((
        Method::GET,
        format!("/api/v1/changes?spaceId={space}"),
        None,
    ));
    calls
}

/// Every kind of record write on `space` (task `task` must exist there).
pub(crate) fn record_writes(space: &str, task: &str) -> Vec<Call> {
    let mut calls: Vec<Call> = KINDS
        .iter()
        .map(|(collection, _)| {
            (
                Method::POST,
                format!("/api/v1/{collection}?spaceId={space}"),
                Some(json!({})),
            )
        })
        .collect();
    calls.extend([
        (
            Method::POST,
            "/api/v1/tasks".to_string(),
            Some(json!({ "spaceId": space })),
        ),
        (
            Method::PATCH,
            format!("/api/v1/tasks/{task}?spaceId={space}"),
            Some(json!({"name": "changed"})),
        ),
        (
            Method::PATCH,
            format!("/api/v1/tasks/{task}"),
            Some(json!({"name": "changed", "spaceId": space})),
        ),
        (
            Method::DELETE,
            format!("/api/v1/tasks/{task}?spaceId={space}"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/tasks/{task}/restore?spaceId={space}"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/batch?spaceId={space}"),
            Some(batch_body()),
        ),
    ]);
    calls
}

/// Every route of the space itself and its members; `member` is a user id to manage.
pub(crate) fn space_routes(space: &str, member: &str) -> Vec<Call> {
    vec![
        (Method::GET, format!("/api/v1/spaces/{space}"), None),
        (
            Method::PATCH,
            format!("/api/v1/spaces/{space}"),
            Some(json!({"name": "renamed"})),
        ),
        (Method::DELETE, format!("/api/v1/spaces/{space}"), None),
        (Method::GET, format!("/api/v1/spaces/{space}/members"), None),
        (
            Method::PUT,
            format!("/api/v1/spaces/{space}/members/{member}"),
            Some(json!({"role": "viewer"})),
        ),
        (
            Method::DELETE,
            format!("/api/v1/spaces/{space}/members/{member}"),
            None,
        ),
    ]
}

/// Sends every call as `user` and checks each answers `status` with `code`.
pub(crate) async fn expect_all(
    app: &TestApp,
    token: &str,
    calls: &[Call],
    status: u16,
    code: &str,
) {
    for (method, path, body) in calls {
        let reply = app.call(method.clone(), path, token, body.as_ref()).await;
        assert_eq!(reply.status, status, "{method} {path}: {:#}", reply.body);
        assert_problem(&reply, status, code);
    }
}

/// A change stream read as raw text.
pub(crate) struct Stream {
    payload: Pin<
        Box<
            dyn futures_util::Stream<
                Item = Result<actix_web::web::Bytes, awc::error::PayloadError>,
            >,
        >,
    >,
    /// Everything read so far.
    pub text: String,
}

impl Stream {
    /// Opens `GET /api/v1/changes/stream{query}` with `token`; it must answer 200.
    pub(crate) async fn open(app: &TestApp, token: &str, query: &str) -> Stream {
        let mut response = app
            .request(Method::GET, &format!("/api/v1/changes/stream{query}"))
            .insert_header(("Authorization", format!("Bearer {token}")))
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .expect("the stream opens");
        assert_eq!(response.status().as_u16(), 200, "stream{query}");
        let content_type = response.headers().get("content-type").unwrap();
        assert_eq!(content_type, "text/event-stream");
        Stream {
            payload: Box::pin(actix_web::HttpMessage::take_payload(&mut response)),
            text: String::new(),
        }
    }

    /// Reads until the text holds `needle`; false if the stream ends or 10 s pass first.
    pub(crate) async fn wait_for(&mut self, needle: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.text.contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            match actix_web::rt::time::timeout(left, self.payload.next()).await {
                Ok(Some(Ok(bytes))) => self.text.push_str(&String::from_utf8_lossy(&bytes)),
                _ => return false,
            }
        }
        true
    }

    /// Whether the response body ends (or the connection closes) within 5 s.
    pub(crate) async fn ends(&mut self) -> bool {
        self.ends_within(Duration::from_secs(5)).await
    }

    /// Whether the response body ends (or the connection closes) within `limit`.
    pub(crate) async fn ends_within(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match actix_web::rt::time::timeout(left, self.payload.next()).await {
                Ok(Some(Ok(bytes))) => self.text.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(Some(Err(_))) | Ok(None) => return true,
                Err(_) => return false,
            }
        }
    }
}

#[actix_web::test]
async fn a_new_space_is_201_with_its_location_and_the_caller_as_its_one_owner() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let as_alice = app.user(&alice.token);
    let before = chrono::Utc::now().timestamp_millis();
    let reply = as_alice
        .post("/api/v1/spaces", json!({"name": "Project X"}))
        .await;
    let space = expect_data(&reply, 201);
    assert_space_object(&space);
    let id = sid(&space);
    assert!(is_lowercase_uuid(&id), "space id {id:?}");
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v1/spaces/{id}").as_str())
    );
    assert_eq!(space["name"], "Project X");
    assert_eq!(space["role"], "owner");
    assert_eq!(space["isDefault"], false);
    assert_eq!(space["spaceVersion"], 0);
    assert_eq!(space["memberCount"], 1);
    let created = millis(&space["createdAt"]);
    assert!(
        (before - 1000..=chrono::Utc::now().timestamp_millis() + 1000).contains(&created),
        "createdAt {}",
        space["createdAt"]
    );

    let read = as_alice.get(&format!("/api/v1/spaces/{id}")).await;
    assert_eq!(expect_data(&read, 200), space);

    let members = as_alice.get(&format!("/api/v1/spaces/{id}/members")).await;
    let members = expect_data(&members, 200);
    let members = members.as_array().expect("a members array");
    assert_eq!(members.len(), 1);
    assert_member_object(&members[0]);
    assert_eq!(members[0]["userId"], alice.user_id);
    assert_eq!(members[0]["name"], "alice");
    assert_eq!(members[0]["role"], "owner");

    // The default space, as a space object: named after its user (the implementer's
    // choice), the caller's default, private.
    let default = as_alice
        .get(&format!("/api/v1/spaces/{}", alice.default_space_id))
        .await;
    let default = expect_data(&default, 200);
    assert_space_object(&default);
    assert_eq!(default["spaceId"], alice.default_space_id);
    assert_eq!(default["name"], "alice");
    assert_eq!(default["role"], "owner");
    assert_eq!(default["isDefault"], true);
    assert_eq!(default["memberCount"], 1);
    assert_eq!(default["spaceVersion"], 0);

    // The new space holds records of its own, with its own version from 0.
    let empty = as_alice.get(&format!("/api/v1/tasks?spaceId={id}")).await;
    empty.expect(200);
    assert_eq!((empty.version(), empty.data()), (0, &json!([])));
    let task = as_alice
        .post(&format!("/api/v1/tasks?spaceId={id}"), json!({"name": "t"}))
        .await;
    task.expect(201);
    assert_eq!(task.version(), 1);
    assert_eq!(task.data()["spaceId"], id.as_str());
    assert_eq!(version_of(as_alice, &id).await, 1);
    assert_eq!(version_of(as_alice, &alice.default_space_id).await, 0);
    let in_body = as_alice
        .post("/api/v1/lists", json!({"spaceId": id, "listId": "l"}))
        .await;
    in_body.expect(201);
    assert_eq!(in_body.version(), 2);

    // Another user never reaches it.
    let bob = app.create_user("bob").await;
    let as_bob = app.user(&bob.token);
    assert_eq!(
        listed_space_ids(as_bob).await,
        [bob.default_space_id.as_str()]
    );
    let hidden = as_bob.get(&format!("/api/v1/spaces/{id}")).await;
    assert_problem(&hidden, 404, "not_found");
}

#[actix_web::test]
async fn get_spaces_lists_every_space_of_the_caller_in_space_id_byte_order() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (as_alice, as_bob) = (app.user(&alice.token), app.user(&bob.token));

    let mut hers = vec![alice.default_space_id.clone()];
    for n in 0..6 {
        hers.push(sid(&new_space(as_alice, &format!("alice {n}")).await));
    }
    let mut his = vec![bob.default_space_id.clone()];
    for n in 0..3 {
        his.push(sid(&new_space(as_bob, &format!("bob {n}")).await));
    }
    hers.sort();
    his.sort();
    assert_eq!(listed_space_ids(as_alice).await, hers);
    assert_eq!(listed_space_ids(as_bob).await, his);
    assert_eq!(me_space_ids(as_alice).await, hers);

    // Each listed object is the space's own GET.
    let listed = as_alice.get("/api/v1/spaces").await;
    let listed = expect_data(&listed, 200);
    for space in listed.as_array().unwrap() {
        assert_space_object(space);
        let one = as_alice
            .get(&format!("/api/v1/spaces/{}", sid(space)))
            .await;
        assert_eq!(&expect_data(&one, 200), space);
        assert_eq!(space["isDefault"], sid(space) == alice.default_space_id);
    }

    // A space shared with alice joins her list, in order, with her role in it.
    let shared = his
        .iter()
        .find(|s| **s != bob.default_space_id)
        .unwrap()
        .clone();
    add_member(as_bob, &shared, &alice, "viewer").await;
    hers.push(shared.clone());
    hers.sort();
    assert_eq!(listed_space_ids(as_alice).await, hers);
    assert_eq!(me_space_ids(as_alice).await, hers);
    let seen = as_alice.get(&format!("/api/v1/spaces/{shared}")).await;
    let seen = expect_data(&seen, 200);
    assert_eq!(seen["role"], "viewer");
    assert_eq!(seen["isDefault"], false);
    assert_eq!(seen["memberCount"], 2);
    let by_owner = as_bob.get(&format!("/api/v1/spaces/{shared}")).await;
    let by_owner = expect_data(&by_owner, 200);
    assert_eq!(by_owner["role"], "owner");
    assert_eq!(by_owner["memberCount"], 2);
    assert_eq!(by_owner["name"], seen["name"]);
    assert_eq!(by_owner["createdAt"], seen["createdAt"]);
    assert_eq!(
        listed_space_ids(as_bob).await,
        his,
        "bob's list is unchanged"
    );
}

#[actix_web::test]
async fn space_names_are_validated_on_create_and_rename() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let as_alice = app.user(&alice.token);
    let long = "n".repeat(1001);
    let cases = [
        (json!({}), vec!["name"]),
        (json!({"name": ""}), vec!["name"]),
        (json!({"name": long}), vec!["name"]),
        (json!({"name": 5}), vec!["name"]),
        (json!({"name": null}), vec!["name"]),
        (json!({"name": ["a"]}), vec!["name"]),
        (json!({"name": "ok", "color": "red"}), vec!["color"]),
        (json!({"name": "ok", "spaceId": "mine"}), vec!["spaceId"]),
        (json!({"name": "ok", "role": "owner"}), vec!["role"]),
        (json!({"name": "ok", "isDefault": true}), vec!["isDefault"]),
        (
            json!({"name": "ok", "spaceVersion": 0}),
            vec!["spaceVersion"],
        ),
        (json!({"name": "ok", "memberCount": 1}), vec!["memberCount"]),
        (
            json!({"name": "ok", "createdAt": "2026-01-01T00:00:00.000Z"}),
            vec!["createdAt"],
        ),
    ];
    for (body, fields) in &cases {
        let reply = as_alice.post("/api/v1/spaces", body.clone()).await;
        assert_invalid_fields(&reply, fields);
    }
    for raw in ["not json", "[\"name\"]"] {
        let request = app
            .request(Method::POST, "/api/v1/spaces")
            .insert_header(("Authorization", format!("Bearer {}", alice.token)))
            .insert_header(("Content-Type", "application/json"));
        let reply = app.send(request, Some(raw.as_bytes().to_vec())).await;
        assert_problem(&reply, 400, "invalid_json");
    }
    assert_eq!(
        listed_space_ids(as_alice).await,
        [alice.default_space_id.as_str()],
        "a refused create made a space"
    );

    // 1,000 characters (not bytes) is the most.
    let most = "\u{e9}".repeat(1000);
    let space = new_space(as_alice, &most).await;
    assert_eq!(space["name"], most.as_str());
    let path = format!("/api/v1/spaces/{}", sid(&space));

    // A rename takes the same rules; null is refused, an empty body changes nothing.
    for (body, fields) in &cases[1..] {
        let reply = as_alice.patch(&path, body.clone()).await;
        assert_invalid_fields(&reply, fields);
    }
    let unchanged = as_alice.patch(&path, json!({})).await;
    assert_eq!(expect_data(&unchanged, 200), space);
    let renamed = as_alice.patch(&path, json!({"name": "Renamed"})).await;
    let renamed = expect_data(&renamed, 200);
    assert_space_object(&renamed);
    let mut expected = space.clone();
    expected["name"] = json!("Renamed");
    assert_eq!(renamed, expected, "a rename changes the name only");
    assert_eq!(expect_data(&as_alice.get(&path).await, 200), expected);
    let default = format!("/api/v1/spaces/{}", alice.default_space_id);
    let renamed = as_alice.patch(&default, json!({"name": "Home"})).await;
    assert_eq!(expect_data(&renamed, 200)["name"], "Home");
}

#[actix_web::test]
async fn roles_decide_who_reads_writes_and_manages_a_space() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let dave = app.create_user("dave").await;
    let (owner, viewer, editor) = (
        app.user(&alice.token),
        app.user(&bob.token),
        app.user(&carol.token),
    );
    let space = sid(&new_space(owner, "team").await);
    owner
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "T", "name": "original"}),
        )
        .await
        .expect(201);
    add_member(owner, &space, &bob, "viewer").await;
    add_member(owner, &space, &carol, "editor").await;

    // A viewer reads everything: records, the feed, the stream, the space and its members.
    for (method, path, body) in record_reads(&space, "T") {
        let reply = app.call(method, &path, &bob.token, body.as_ref()).await;
        assert_eq!(reply.status, 200, "viewer GET {path}: {:#}", reply.body);
    }
    let mut stream = Stream::open(&app, &bob.token, &format!("?spaceId={space}")).await;
    assert!(stream.wait_for("\"original\"").await, "{}", stream.text);
    let read = viewer.get(&format!("/api/v1/spaces/{space}")).await;
    assert_eq!(expect_data(&read, 200)["role"], "viewer");
    let members = viewer.get(&format!("/api/v1/spaces/{space}/members")).await;
    assert_eq!(expect_data(&members, 200).as_array().unwrap().len(), 3);

    // ...and writes nothing.
    let task_before = owner.get(&format!("/api/v1/tasks/T?spaceId={space}")).await;
    expect_all(
        &app,
        &bob.token,
        &record_writes(&space, "T"),
        403,
        "forbidden",
    )
    .await;
    let task_after = owner.get(&format!("/api/v1/tasks/T?spaceId={space}")).await;
    assert_eq!(
        task_after.body, task_before.body,
        "a refused write changed the task"
    );
    assert_eq!(version_of(owner, &space).await, 1);

    // Neither a viewer nor an editor manages the space or its other members.
    let manage = |member: &str| -> Vec<Call> {
        space_routes(&space, member)
            .into_iter()
            .filter(|(method, _, _)| *method != Method::GET)
            .collect()
    };
    for (token, other) in [(&bob.token, &carol.user_id), (&carol.token, &bob.user_id)] {
        expect_all(&app, token, &manage(other), 403, "forbidden").await;
        expect_all(&app, token, &manage(&alice.user_id), 403, "forbidden").await;
        // Adding someone new is managing members too.
        expect_all(&app, token, &manage(&dave.user_id)[2..3], 403, "forbidden").await;
    }
    let space_now = owner.get(&format!("/api/v1/spaces/{space}")).await;
    let space_now = expect_data(&space_now, 200);
    assert_eq!(space_now["name"], "team");
    assert_eq!(space_now["memberCount"], 3);
    let roles = owner.get(&format!("/api/v1/spaces/{space}/members")).await;
    let roles: BTreeMap<String, String> = expect_data(&roles, 200)
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["userId"].as_str().unwrap().to_string(),
                m["role"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(roles[&alice.user_id], "owner");
    assert_eq!(roles[&bob.user_id], "viewer");
    assert_eq!(roles[&carol.user_id], "editor");

    // An editor writes records, each kind of write.
    let mut version = 1;
    for (method, path, body) in record_writes(&space, "T") {
        let reply = app
            .call(method.clone(), &path, &carol.token, body.as_ref())
            .await;
        assert!(
            reply.status == 200 || reply.status == 201,
            "editor {method} {path}: {:#}",
            reply.body
        );
        version += 1;
    }
    assert_eq!(version_of(editor, &space).await, version);
    let read = editor.get(&format!("/api/v1/spaces/{space}")).await;
    assert_eq!(expect_data(&read, 200)["role"], "editor");

    // A role change takes effect on the member's next request.
    put_member(owner, &space, &bob.user_id, "editor")
        .await
        .expect(200);
    viewer
        .post(&format!("/api/v1/tasks?spaceId={space}"), json!({}))
        .await
        .expect(201);
    put_member(owner, &space, &bob.user_id, "viewer")
        .await
        .expect(200);
    let refused = viewer
        .post(&format!("/api/v1/tasks?spaceId={space}"), json!({}))
        .await;
    assert_problem(&refused, 403, "forbidden");

    // The owner may do all of it.
    let renamed = owner
        .patch(
            &format!("/api/v1/spaces/{space}"),
            json!({"name": "renamed"}),
        )
        .await;
    assert_eq!(expect_data(&renamed, 200)["name"], "renamed");
    add_member(owner, &space, &dave, "viewer").await;
    let removed = owner
        .delete(&format!("/api/v1/spaces/{space}/members/{}", dave.user_id))
        .await;
    assert_eq!(expect_data(&removed, 200)["userId"], dave.user_id);
    let deleted = owner.delete(&format!("/api/v1/spaces/{space}")).await;
    expect_data(&deleted, 200);
}

#[actix_web::test]
async fn a_space_the_caller_does_not_belong_to_is_404_on_every_route() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let dave = app.create_user("dave").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "private").await);
    owner
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    let made_up = uuid::Uuid::new_v4().to_string();

    for target in [
        space.as_str(),
        made_up.as_str(),
        alice.default_space_id.as_str(),
    ] {
        let mut calls = record_reads(target, "T");
        calls.extend(record_writes(target, "T"));
        calls.extend(space_routes(target, &alice.user_id));
        calls.extend(space_routes(target, &dave.user_id));
        // Visibility before the body is looked at.
        calls.push((
            Method::PUT,
            format!("/api/v1/spaces/{target}/members/{}", dave.user_id),
            Some(json!({"role": "emperor"})),
        ));
        calls.push((
            Method::PATCH,
            format!("/api/v1/spaces/{target}"),
            Some(json!({"name": ""})),
        ));
        calls.push((
            Method::GET,
            format!("/api/v1/changes/stream?spaceId={target}"),
            None,
        ));
        expect_all(&app, &dave.token, &calls, 404, "not_found").await;
    }
    // The owner, too, gets 404 for a space that does not exist.
    let mut calls = record_reads(&made_up, "T");
    calls.extend(space_routes(&made_up, &dave.user_id));
    expect_all(&app, &alice.token, &calls, 404, "not_found").await;

    // Nothing changed.
    let now = owner.get(&format!("/api/v1/spaces/{space}")).await;
    let now = expect_data(&now, 200);
    assert_eq!(
        (now["name"].clone(), now["memberCount"].clone()),
        (json!("private"), json!(1))
    );
    assert_eq!(now["spaceVersion"], 1);
    assert_eq!(version_of(owner, &alice.default_space_id).await, 0);
    assert_eq!(
        listed_space_ids(app.user(&dave.token)).await,
        [dave.default_space_id.as_str()]
    );
}

#[actix_web::test]
async fn a_deleted_space_answers_its_state_before_then_is_gone_for_everyone() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let (space, keep) = {
        let owner = app.user(&alice.token);
        let space = sid(&new_space(owner, "doomed").await);
        let keep = sid(&new_space(owner, "kept").await);
        add_member(owner, &space, &bob, "editor").await;
        add_member(owner, &keep, &bob, "editor").await;
        for n in 0..3 {
            owner
                .post(
                    &format!("/api/v1/tasks?spaceId={space}"),
                    json!({"todoId": format!("t{n}")}),
                )
                .await
                .expect(201);
        }
        (space, keep)
    };
    // After a clean stop the space has a snapshot file, for the deletion to remove.
    let app = app.restart();
    let owner = app.user(&alice.token);
    let file = app.path(&format!("spaces/{space}.bin"));
    assert!(
        wait_until(Duration::from_secs(5), || file.exists()),
        "a snapshot wrote {}",
        file.display()
    );
    let mut stream = Stream::open(&app, &bob.token, &format!("?spaceId={space}")).await;
    assert!(stream.wait_for("\"t2\"").await, "{}", stream.text);

    let before = expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200);
    assert_eq!(before["spaceVersion"], 3);
    assert_eq!(before["memberCount"], 2);
    let deleted = owner.delete(&format!("/api/v1/spaces/{space}")).await;
    assert_eq!(expect_data(&deleted, 200), before, "the state before");

    // Gone for everyone, on every route; open streams end.
    assert!(stream.ends().await, "the stream on a deleted space ended");
    for user in [&alice, &bob] {
        let mut calls = record_reads(&space, "t0");
        calls.extend(record_writes(&space, "t0"));
        calls.extend(space_routes(&space, &bob.user_id));
        calls.extend(space_routes(&space, &alice.user_id));
        calls.push((
            Method::GET,
            format!("/api/v1/changes/stream?spaceId={space}"),
            None,
        ));
        expect_all(&app, &user.token, &calls, 404, "not_found").await;
        let as_user = app.user(&user.token);
        let mut expected = vec![user.default_space_id.clone(), keep.clone()];
        expected.sort();
        assert_eq!(listed_space_ids(as_user).await, expected);
        assert_eq!(me_space_ids(as_user).await, expected);
    }
    // The other spaces live on.
    owner
        .post(&format!("/api/v1/tasks?spaceId={keep}"), json!({}))
        .await
        .expect(201);
    let kept = expect_data(&owner.get(&format!("/api/v1/spaces/{keep}")).await, 200);
    assert_eq!(kept["memberCount"], 2);

    // Its files go once the deletion is durable; its id never comes back.
    let dir = app.dir.path().to_path_buf();
    assert!(
        wait_until(Duration::from_secs(5), || files_naming(&dir, &space)
            .is_empty()),
        "files left: {:?}",
        files_naming(&dir, &space)
    );
    for n in 0..20 {
        let new = new_space(owner, &format!("after {n}")).await;
        assert_ne!(sid(&new), space);
    }
    let gone = owner.get(&format!("/api/v1/spaces/{space}")).await;
    assert_problem(&gone, 404, "not_found");
}

/// Every file under `dir` whose name holds `id`.
fn files_naming(dir: &Path, id: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_naming(&path, id));
        } else if path.to_string_lossy().contains(id) {
            found.push(path.display().to_string());
        }
    }
    found
}

#[actix_web::test]
async fn members_are_listed_by_user_id_and_put_adds_with_201_or_changes_with_200() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "team").await);
    let mut users = Vec::new();
    for (n, role) in ["viewer", "editor", "owner", "viewer", "editor"]
        .into_iter()
        .enumerate()
    {
        let user = app.create_user(&format!("user {n}")).await;
        let member = add_member(owner, &space, &user, role).await;
        assert_member_object(&member);
        assert_eq!(member["userId"], user.user_id);
        assert_eq!(member["name"], format!("user {n}"));
        assert_eq!(member["role"], role);
        users.push((user, member));
    }
    let listed = owner.get(&format!("/api/v1/spaces/{space}/members")).await;
    let listed = expect_data(&listed, 200);
    let listed = listed.as_array().unwrap();
    let ids: Vec<&str> = listed
        .iter()
        .map(|m| m["userId"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "members ordered by userId");
    assert_eq!(listed.len(), 6);
    for (_, member) in &users {
        assert!(listed.contains(member), "{member:#} in {listed:#?}");
    }
    let space_object = expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200);
    assert_eq!(space_object["memberCount"], 6);

    // The same role again is a 200 that changes nothing; another role keeps `addedAt`.
    let (first, member) = &users[0];
    let same = put_member(owner, &space, &first.user_id, "viewer").await;
    assert_eq!(&expect_data(&same, 200), member);
    let changed = put_member(owner, &space, &first.user_id, "editor").await;
    let changed = expect_data(&changed, 200);
    assert_eq!(changed["role"], "editor");
    assert_eq!(changed["addedAt"], member["addedAt"]);
    assert_eq!(changed["name"], member["name"]);
    let seen = app
        .user(&first.token)
        .get(&format!("/api/v1/spaces/{space}"))
        .await;
    assert_eq!(expect_data(&seen, 200)["role"], "editor");
    // A second owner manages members too.
    let (co_owner, _) = &users[2];
    let by_co_owner = put_member(app.user(&co_owner.token), &space, &first.user_id, "viewer").await;
    assert_eq!(expect_data(&by_co_owner, 200)["role"], "viewer");

    // An unknown user is 404; a bad role is 400, before the user is looked up.
    let unknown = put_member(owner, &space, "no-such-user", "viewer").await;
    assert_problem(&unknown, 404, "not_found");
    let unknown = put_member(owner, &space, &uuid::Uuid::new_v4().to_string(), "viewer").await;
    assert_problem(&unknown, 404, "not_found");
    let path = format!("/api/v1/spaces/{space}/members/{}", first.user_id);
    for (body, fields) in [
        (json!({}), vec!["role"]),
        (json!({"role": "admin"}), vec!["role"]),
        (json!({"role": "Owner"}), vec!["role"]),
        (json!({"role": null}), vec!["role"]),
        (json!({"role": 1}), vec!["role"]),
        (json!({"role": "viewer", "name": "x"}), vec!["name"]),
        (
            json!({"role": "viewer", "userId": first.user_id}),
            vec!["userId"],
        ),
    ] {
        assert_invalid_fields(&owner.put(&path, body.clone()).await, &fields);
        let path = format!("/api/v1/spaces/{space}/members/no-such-user");
        assert_invalid_fields(&owner.put(&path, body).await, &fields);
    }
    let after = owner.get(&format!("/api/v1/spaces/{space}/members")).await;
    let after = expect_data(&after, 200);
    assert_eq!(after.as_array().unwrap().len(), 6);
    assert!(after
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["userId"] == first.user_id && m["role"] == "viewer"));
}

#[actix_web::test]
async fn a_member_is_removed_by_an_owner_or_leaves_and_loses_the_space_at_once() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let dave = app.create_user("dave").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "team").await);
    owner
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    let bob_member = add_member(owner, &space, &bob, "viewer").await;
    let carol_member = add_member(owner, &space, &carol, "editor").await;
    let member_path = |user: &NewUser| format!("/api/v1/spaces/{space}/members/{}", user.user_id);

    // A viewer may leave.
    let left = app.user(&bob.token).delete(&member_path(&bob)).await;
    assert_eq!(expect_data(&left, 200), bob_member, "the state before");
    let mut calls = record_reads(&space, "T");
    calls.extend(space_routes(&space, &bob.user_id));
    expect_all(&app, &bob.token, &calls, 404, "not_found").await;
    assert_eq!(
        listed_space_ids(app.user(&bob.token)).await,
        [bob.default_space_id.as_str()]
    );
    assert_eq!(
        me_space_ids(app.user(&bob.token)).await,
        [bob.default_space_id.as_str()]
    );

    // An editor may not remove someone else; an owner may, and the removed member's open
    // stream on the space ends.
    add_member(owner, &space, &dave, "viewer").await;
    let refused = app.user(&carol.token).delete(&member_path(&dave)).await;
    assert_problem(&refused, 403, "forbidden");
    let mut stream = Stream::open(&app, &carol.token, &format!("?spaceId={space}")).await;
    assert!(stream.wait_for("\"T\"").await, "{}", stream.text);
    let mut other_stream = Stream::open(&app, &dave.token, &format!("?spaceId={space}")).await;
    assert!(
        other_stream.wait_for("\"T\"").await,
        "{}",
        other_stream.text
    );
    let removed = owner.delete(&member_path(&carol)).await;
    assert_eq!(expect_data(&removed, 200), carol_member, "the state before");
    assert!(
        stream.ends().await,
        "the removed member's stream ended: {}",
        stream.text
    );
    let refused = app
        .user(&carol.token)
        .post(&format!("/api/v1/tasks?spaceId={space}"), json!({}))
        .await;
    assert_problem(&refused, 404, "not_found");
    let mut calls = record_reads(&space, "T");
    calls.extend(space_routes(&space, &carol.user_id));
    expect_all(&app, &carol.token, &calls, 404, "not_found").await;

    // Another member's stream goes on.
    owner
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "after"}),
        )
        .await
        .expect(201);
    assert!(
        other_stream.wait_for("\"after\"").await,
        "{}",
        other_stream.text
    );

    // Removing one who is not a member (or no user at all) is 404.
    let again = owner.delete(&member_path(&carol)).await;
    assert_problem(&again, 404, "not_found");
    let nobody = owner
        .delete(&format!("/api/v1/spaces/{space}/members/no-such-user"))
        .await;
    assert_problem(&nobody, 404, "not_found");

    let members = owner.get(&format!("/api/v1/spaces/{space}/members")).await;
    let ids: Vec<Value> = expect_data(&members, 200)
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["userId"].clone())
        .collect();
    let mut expected = vec![json!(alice.user_id), json!(dave.user_id)];
    expected.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    assert_eq!(ids, expected);
    assert_eq!(
        version_of(owner, &space).await,
        2,
        "member changes are not writes"
    );

    // A removed member may be added again.
    let back = add_member(owner, &space, &carol, "viewer").await;
    assert_eq!(back["role"], "viewer");
    app.user(&carol.token)
        .get(&format!("/api/v1/tasks/T?spaceId={space}"))
        .await
        .expect(200);
}

#[actix_web::test]
async fn a_default_space_cannot_be_shared_left_or_deleted() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let owner = app.user(&alice.token);
    let home = alice.default_space_id.clone();
    let members_before = expect_data(
        &owner.get(&format!("/api/v1/spaces/{home}/members")).await,
        200,
    );

    for role in ["viewer", "editor", "owner"] {
        let shared = put_member(owner, &home, &bob.user_id, role).await;
        assert_problem(&shared, 409, "default_space");
    }
    // Its own user: the same role is a 200 that changes nothing, a demotion leaves no owner.
    let same = put_member(owner, &home, &alice.user_id, "owner").await;
    assert_eq!(&expect_data(&same, 200), &members_before[0]);
    for role in ["editor", "viewer"] {
        let demoted = put_member(owner, &home, &alice.user_id, role).await;
        assert_problem(&demoted, 409, "last_owner");
    }
    let left = owner
        .delete(&format!("/api/v1/spaces/{home}/members/{}", alice.user_id))
        .await;
    assert_problem(&left, 409, "default_space");
    let deleted = owner.delete(&format!("/api/v1/spaces/{home}")).await;
    assert_problem(&deleted, 409, "default_space");

    // The checks before: an unknown user is 404, a bad role 400.
    let unknown = put_member(owner, &home, "no-such-user", "viewer").await;
    assert_problem(&unknown, 404, "not_found");
    let bad = put_member(owner, &home, &bob.user_id, "boss").await;
    assert_invalid_fields(&bad, &["role"]);
    // Bob does not even see it.
    let hidden = put_member(app.user(&bob.token), &home, &bob.user_id, "owner").await;
    assert_problem(&hidden, 404, "not_found");

    assert_eq!(
        expect_data(
            &owner.get(&format!("/api/v1/spaces/{home}/members")).await,
            200
        ),
        members_before
    );
    let space = expect_data(&owner.get(&format!("/api/v1/spaces/{home}")).await, 200);
    assert_eq!(
        (space["isDefault"].clone(), space["memberCount"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(
        listed_space_ids(app.user(&bob.token)).await,
        [bob.default_space_id.as_str()]
    );
}

#[actix_web::test]
async fn a_space_always_keeps_an_owner() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let (as_alice, as_bob, as_carol) = (
        app.user(&alice.token),
        app.user(&bob.token),
        app.user(&carol.token),
    );
    let space = sid(&new_space(as_alice, "team").await);
    let member = |user: &NewUser| format!("/api/v1/spaces/{space}/members/{}", user.user_id);

    for role in ["editor", "viewer"] {
        let demoted = put_member(as_alice, &space, &alice.user_id, role).await;
        assert_problem(&demoted, 409, "last_owner");
    }
    assert_problem(&as_alice.delete(&member(&alice)).await, 409, "last_owner");
    // A last owner among other members is still the last owner.
    add_member(as_alice, &space, &carol, "editor").await;
    assert_problem(&as_alice.delete(&member(&alice)).await, 409, "last_owner");
    assert_problem(
        &put_member(as_alice, &space, &alice.user_id, "editor").await,
        409,
        "last_owner",
    );

    // With two owners, one may leave.
    add_member(as_alice, &space, &bob, "owner").await;
    let left = as_alice.delete(&member(&alice)).await;
    assert_eq!(expect_data(&left, 200)["role"], "owner");
    assert_problem(
        &as_alice.get(&format!("/api/v1/spaces/{space}")).await,
        404,
        "not_found",
    );
    // Bob is now the last one.
    assert_problem(
        &put_member(as_bob, &space, &bob.user_id, "viewer").await,
        409,
        "last_owner",
    );
    assert_problem(&as_bob.delete(&member(&bob)).await, 409, "last_owner");

    // With two owners, one may demote the other, and then not itself.
    put_member(as_bob, &space, &carol.user_id, "owner")
        .await
        .expect(200);
    let demoted = put_member(as_carol, &space, &bob.user_id, "viewer").await;
    assert_eq!(expect_data(&demoted, 200)["role"], "viewer");
    assert_problem(
        &put_member(as_carol, &space, &carol.user_id, "editor").await,
        409,
        "last_owner",
    );
    // An owner may remove another owner while one stays.
    put_member(as_carol, &space, &bob.user_id, "owner")
        .await
        .expect(200);
    let removed = as_carol.delete(&member(&bob)).await;
    assert_eq!(expect_data(&removed, 200)["role"], "owner");
    let members = expect_data(
        &as_carol
            .get(&format!("/api/v1/spaces/{space}/members"))
            .await,
        200,
    );
    assert_eq!(members.as_array().unwrap().len(), 1);
    assert_eq!(members[0]["userId"], carol.user_id);
    assert_eq!(members[0]["role"], "owner");
}

#[actix_web::test]
async fn space_and_member_changes_neither_move_the_version_nor_show_in_the_feed() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "team").await);
    assert_eq!(version_of(owner, &space).await, 0);
    owner
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    let mut stream = Stream::open(&app, &alice.token, &format!("?spaceId={space}")).await;
    assert!(stream.wait_for("\"T\"").await);

    owner
        .patch(
            &format!("/api/v1/spaces/{space}"),
            json!({"name": "renamed"}),
        )
        .await
        .expect(200);
    add_member(owner, &space, &bob, "viewer").await;
    put_member(owner, &space, &bob.user_id, "editor")
        .await
        .expect(200);
    owner
        .delete(&format!("/api/v1/spaces/{space}/members/{}", bob.user_id))
        .await
        .expect(200);
    let other = sid(&new_space(owner, "other").await);
    owner
        .delete(&format!("/api/v1/spaces/{other}"))
        .await
        .expect(200);

    assert_eq!(version_of(owner, &space).await, 1);
    let listing = owner.get(&format!("/api/v1/tasks?spaceId={space}")).await;
    assert_eq!(listing.version(), 1);
    let feed = owner.get(&format!("/api/v1/changes?spaceId={space}")).await;
    feed.expect(200);
    assert_eq!(feed.body["spaceVersion"], 1);
    assert_eq!(feed.data().as_array().unwrap().len(), 1, "{:#}", feed.body);
    assert_eq!(feed.data()[0]["record"]["todoId"], "T");
    let next = owner
        .post(
            &format!("/api/v1/tasks?spaceId={space}"),
            json!({"todoId": "U"}),
        )
        .await;
    assert_eq!(next.version(), 2);
    // The stream saw the two records and nothing between them.
    assert!(stream.wait_for("\"U\"").await);
    let events = stream.text.matches("event:").count();
    assert_eq!(events, 2, "{}", stream.text);
    assert!(stream.text.contains("id: 2"), "{}", stream.text);
}

#[actix_web::test]
async fn retried_space_and_member_changes_replay_their_answers() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let owner = app.user(&alice.token);
    let replayed = |first: &Reply, again: &Reply| {
        assert_eq!(again.status, first.status, "{:#}", again.body);
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.body, first.body);
        assert_eq!(again.header("location"), first.header("location"));
    };

    let body = json!({"name": "once"});
    let key = [("Idempotency-Key", "space-once")];
    let first = owner
        .send_with(Method::POST, "/api/v1/spaces", Some(&body), &key)
        .await;
    first.expect(201);
    assert_eq!(first.header("idempotent-replayed"), None);
    let again = owner
        .send_with(Method::POST, "/api/v1/spaces", Some(&body), &key)
        .await;
    replayed(&first, &again);
    assert_eq!(listed_space_ids(owner).await.len(), 2, "one space made");
    let reused = owner
        .send_with(
            Method::POST,
            "/api/v1/spaces",
            Some(&json!({"name": "twice"})),
            &key,
        )
        .await;
    assert_problem(&reused, 422, "idempotency_key_reused");
    let space = sid(first.data());
    let path = format!("/api/v1/spaces/{space}");

    let key = [("Idempotency-Key", "rename-once")];
    let rename = json!({"name": "renamed"});
    let first = owner
        .send_with(Method::PATCH, &path, Some(&rename), &key)
        .await;
    first.expect(200);
    owner
        .patch(&path, json!({"name": "later"}))
        .await
        .expect(200);
    let again = owner
        .send_with(Method::PATCH, &path, Some(&rename), &key)
        .await;
    replayed(&first, &again);
    assert_eq!(
        expect_data(&owner.get(&path).await, 200)["name"],
        "later",
        "a replay writes nothing"
    );

    let member_path = format!("{path}/members/{}", bob.user_id);
    let key = [("Idempotency-Key", "add-once")];
    let role = json!({"role": "viewer"});
    let first = owner
        .send_with(Method::PUT, &member_path, Some(&role), &key)
        .await;
    first.expect(201);
    put_member(owner, &space, &bob.user_id, "editor")
        .await
        .expect(200);
    let again = owner
        .send_with(Method::PUT, &member_path, Some(&role), &key)
        .await;
    replayed(&first, &again);
    let members = expect_data(&owner.get(&format!("{path}/members")).await, 200);
    assert!(members
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["userId"] == bob.user_id && m["role"] == "editor"));

    let key = [("Idempotency-Key", "remove-once")];
    let first = owner
        .send_with(Method::DELETE, &member_path, None, &key)
        .await;
    first.expect(200);
    let again = owner
        .send_with(Method::DELETE, &member_path, None, &key)
        .await;
    replayed(&first, &again);

    let key = [("Idempotency-Key", "delete-once")];
    let first = owner.send_with(Method::DELETE, &path, None, &key).await;
    first.expect(200);
    // A retry of a request whose space is gone is 404 like any request to it (§21),
    // the deletion of the space itself included.
    let again = owner.send_with(Method::DELETE, &path, None, &key).await;
    assert_problem(&again, 404, "not_found");
    assert_eq!(again.header("idempotent-replayed"), None);
    assert_problem(&owner.get(&path).await, 404, "not_found");
}

#[actix_web::test]
async fn the_admin_token_on_space_and_token_routes_is_403_and_on_records_401() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let space = sid(&new_space(app.user(&alice.token), "team").await);
    let mut calls = space_routes(&space, &alice.user_id);
    calls.extend([
        (Method::GET, "/api/v1/spaces".to_string(), None),
        (
            Method::POST,
            "/api/v1/spaces".to_string(),
            Some(json!({"name": "admin's"})),
        ),
        (Method::GET, "/api/v1/tokens".to_string(), None),
        (
            Method::POST,
            "/api/v1/tokens".to_string(),
            Some(json!({"name": "admin's", "access": "read"})),
        ),
        (Method::GET, "/api/v1/tokens/some-token".to_string(), None),
        (
            Method::DELETE,
            "/api/v1/tokens/some-token".to_string(),
            None,
        ),
    ]);
    expect_all(&app, &app.admin_token, &calls, 403, "forbidden").await;
    let records = [
        (Method::GET, format!("/api/v1/tasks?spaceId={space}"), None),
        (
            Method::POST,
            format!("/api/v1/tasks?spaceId={space}"),
            Some(json!({})),
        ),
    ];
    for (method, path, body) in records {
        let reply = app
            .call(method, &path, &app.admin_token, body.as_ref())
            .await;
        assert_problem(&reply, 401, "unauthorized");
    }
    let owner = app.user(&alice.token);
    let now = expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200);
    assert_eq!(
        (now["name"].clone(), now["spaceVersion"].clone()),
        (json!("team"), json!(0))
    );
    assert_eq!(listed_space_ids(owner).await.len(), 2);
}

/// Users and spaces in every state a membership can be in; returns the users and the id
/// of a deleted space.
async fn shared_world(app: &TestApp) -> (Vec<NewUser>, String) {
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let (as_alice, as_bob) = (app.user(&alice.token), app.user(&bob.token));
    let one = sid(&new_space(as_alice, "one").await);
    let two = sid(&new_space(as_alice, "two").await);
    let three = sid(&new_space(as_bob, "three").await);
    let doomed = sid(&new_space(as_alice, "doomed").await);
    add_member(as_alice, &one, &bob, "editor").await;
    add_member(as_alice, &one, &carol, "viewer").await;
    as_bob
        .post(
            &format!("/api/v1/tasks?spaceId={one}"),
            json!({"todoId": "T"}),
        )
        .await
        .expect(201);
    add_member(as_alice, &two, &carol, "viewer").await;
    add_member(as_bob, &three, &alice, "owner").await;
    add_member(as_alice, &doomed, &bob, "viewer").await;
    // The last answers before the stop: a rename, a role change, a removal, a departure,
    // a deletion.
    as_alice
        .patch(&format!("/api/v1/spaces/{one}"), json!({"name": "first"}))
        .await
        .expect(200);
    put_member(as_alice, &one, &carol.user_id, "editor")
        .await
        .expect(200);
    as_alice
        .delete(&format!("/api/v1/spaces/{two}/members/{}", carol.user_id))
        .await
        .expect(200);
    as_bob
        .delete(&format!("/api/v1/spaces/{three}/members/{}", bob.user_id))
        .await
        .expect(200);
    as_alice
        .delete(&format!("/api/v1/spaces/{doomed}"))
        .await
        .expect(200);
    (vec![alice, bob, carol], doomed)
}

/// What each user sees of its spaces: `/spaces`, `/me` and the members of each space.
async fn observe(app: &TestApp, users: &[NewUser]) -> Value {
    let mut seen = Vec::new();
    for user in users {
        let as_user = app.user(&user.token);
        let mut members = serde_json::Map::new();
        for space in listed_space_ids(as_user).await {
            let reply = as_user
                .get(&format!("/api/v1/spaces/{space}/members"))
                .await;
            members.insert(space, expect_data(&reply, 200));
        }
        seen.push(json!({
            "spaces": expect_data(&as_user.get("/api/v1/spaces").await, 200),
            "me": as_user.get("/api/v1/me").await.body,
            "members": members,
        }));
    }
    Value::Array(seen)
}

/// Checks that the world [`shared_world`] made is still there, the deletion included.
async fn check_world(app: &TestApp, users: &[NewUser], doomed: &str, before: &Value) {
    assert_eq!(&observe(app, users).await, before);
    let spaces = before[0]["spaces"].as_array().unwrap();
    assert_eq!(
        spaces.len(),
        4,
        "alice: default, one, two, three: {spaces:#?}"
    );
    let bobs = before[1]["spaces"].as_array().unwrap();
    assert_eq!(bobs.len(), 2, "bob: default, one: {bobs:#?}");
    for user in users {
        let gone = app
            .user(&user.token)
            .get(&format!("/api/v1/spaces/{doomed}"))
            .await;
        assert_problem(&gone, 404, "not_found");
        let gone = app
            .user(&user.token)
            .get(&format!("/api/v1/tasks?spaceId={doomed}"))
            .await;
        assert_problem(&gone, 404, "not_found");
    }
    // Roles still rule: carol is an editor of "first" now.
    let first = before[0]["spaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "first")
        .map(sid)
        .expect("space first");
    let write = app
        .user(&users[2].token)
        .post(&format!("/api/v1/tasks?spaceId={first}"), json!({}))
        .await;
    write.expect(201);
    assert_eq!(write.version(), 2, "the version goes on");
}

#[actix_web::test]
async fn spaces_members_roles_and_deletions_survive_a_clean_restart() {
    let app = spawn_app();
    let (users, doomed) = shared_world(&app).await;
    let before = observe(&app, &users).await;
    let app = app.restart();
    check_world(&app, &users, &doomed, &before).await;
    let dir = app.dir.path().to_path_buf();
    assert!(
        wait_until(Duration::from_secs(5), || files_naming(&dir, &doomed)
            .is_empty()),
        "files left: {:?}",
        files_naming(&dir, &doomed)
    );
}

#[actix_web::test]
async fn spaces_members_roles_and_deletions_survive_kill_9() {
    // No snapshot in the test's time: all of it comes back from the journal.
    let mut app = spawn_app_with(Options {
        snapshot_interval_ms: 60_000,
        ..Options::default()
    });
    let (users, doomed) = shared_world(&app).await;
    let before = observe(&app, &users).await;
    app.crash();
    let app = app.restart_after_stop();
    check_world(&app, &users, &doomed, &before).await;
}

#[actix_web::test]
async fn a_user_belongs_to_at_most_1000_spaces() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let as_alice = app.user(&alice.token);
    let started = Instant::now();
    // The default space is the first of the 1,000.
    for chunk in 0..9 {
        let made =
            join_all((0..110).map(|n| {
                as_alice.post("/api/v1/spaces", json!({"name": format!("s{chunk}-{n}")}))
            }))
            .await;
        for reply in made {
            reply.expect(201);
        }
    }
    // 20 at once for the last 9 places: exactly 9 get one.
    let last = join_all(
        (0..20).map(|n| as_alice.post("/api/v1/spaces", json!({"name": format!("last {n}")}))),
    )
    .await;
    let made = last.iter().filter(|r| r.status == 201).count();
    for reply in last.iter().filter(|r| r.status != 201) {
        assert_problem(reply, 409, "limit_reached");
    }
    assert_eq!(made, 9, "spaces made of the last 20");
    println!("999 spaces in {:?}", started.elapsed());
    let ids = listed_space_ids(as_alice).await;
    assert_eq!(ids.len(), 1000);
    let over = as_alice
        .post("/api/v1/spaces", json!({"name": "one more"}))
        .await;
    assert_problem(&over, 409, "limit_reached");
    // A default space is refused first (the implementer's order of checks).
    let private = put_member(
        app.user(&bob.token),
        &bob.default_space_id,
        &alice.user_id,
        "viewer",
    )
    .await;
    assert_problem(&private, 409, "default_space");
    // An invitation to another user's space is no membership until accepted (§21): it
    // is made, and its acceptance is refused.
    let bobs = sid(&new_space(app.user(&bob.token), "bob's").await);
    let invited = put_member(app.user(&bob.token), &bobs, &alice.user_id, "viewer").await;
    assert_eq!(expect_data(&invited, 201)["state"], "invited");
    let accept = format!("/api/v1/spaces/{bobs}/accept");
    let accepted = as_alice.post(&accept, json!({})).await;
    assert_problem(&accepted, 409, "limit_reached");
    assert_eq!(listed_space_ids(as_alice).await.len(), 1000);

    // Deleting one frees a place.
    let some = ids
        .iter()
        .find(|id| **id != alice.default_space_id)
        .unwrap();
    as_alice
        .delete(&format!("/api/v1/spaces/{some}"))
        .await
        .expect(200);
    as_alice.post(&accept, json!({})).await.expect(200);
    let over = as_alice
        .post("/api/v1/spaces", json!({"name": "one more"}))
        .await;
    assert_problem(&over, 409, "limit_reached");
}

#[actix_web::test]
async fn a_space_has_at_most_1000_members() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "crowded").await);
    let started = Instant::now();
    let mut users = Vec::new();
    for chunk in 0..10 {
        let names: Vec<String> = (0..101).map(|n| format!("u{chunk}-{n}")).collect();
        let made = join_all(names.iter().map(|name| app.create_user(name))).await;
        users.extend(made);
    }
    println!("1,000 users in {:?}", started.elapsed());
    // Alice is the first of the 1,000 members.
    for chunk in users[..990].chunks(110) {
        let added = join_all(
            chunk
                .iter()
                .map(|u| put_member(owner, &space, &u.user_id, "viewer")),
        )
        .await;
        for reply in added {
            reply.expect(201);
        }
    }
    // 20 at once for the last 9 places: exactly 9 get one.
    let racing = join_all(
        users[990..1010]
            .iter()
            .map(|u| put_member(owner, &space, &u.user_id, "viewer")),
    )
    .await;
    let added = racing.iter().filter(|r| r.status == 201).count();
    for reply in racing.iter().filter(|r| r.status != 201) {
        assert_problem(reply, 409, "limit_reached");
    }
    assert_eq!(added, 9, "members added of the last 20");
    println!("and 999 members in {:?}", started.elapsed());
    let members = expect_data(
        &owner.get(&format!("/api/v1/spaces/{space}/members")).await,
        200,
    );
    let members = members.as_array().unwrap();
    assert_eq!(members.len(), 1000);
    let last = users[990..1010]
        .iter()
        .find(|u| !members.iter().any(|m| m["userId"] == u.user_id))
        .unwrap();
    let over = put_member(owner, &space, &last.user_id, "viewer").await;
    assert_problem(&over, 409, "limit_reached");
    // Invitations count toward the 1,000, and `memberCount` counts those who accepted.
    let object = expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200);
    assert_eq!(object["memberCount"], 1);
    let invited: Vec<&NewUser> = users
        .iter()
        .filter(|u| members.iter().any(|m| m["userId"] == u.user_id))
        .collect();
    for chunk in invited.chunks(110) {
        let accept = format!("/api/v1/spaces/{space}/accept");
        let accepted = join_all(chunk.iter().map(|u| {
            let (app, accept) = (&app, &accept);
            async move { app.user(&u.token).post(accept, json!({})).await }
        }))
        .await;
        for reply in accepted {
            reply.expect(200);
        }
    }
    let object = expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200);
    assert_eq!(object["memberCount"], 1000);
    // A role change of a member is not an addition.
    put_member(owner, &space, &users[0].user_id, "editor")
        .await
        .expect(200);
    // A departure frees a place.
    app.user(&users[1].token)
        .delete(&format!(
            "/api/v1/spaces/{space}/members/{}",
            users[1].user_id
        ))
        .await
        .expect(200);
    add_member(owner, &space, last, "viewer").await;
}

#[actix_web::test]
async fn the_new_routes_answer_405_415_and_empty_bodies_as_the_others_do() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let owner = app.user(&alice.token);
    let space = sid(&new_space(owner, "team").await);
    let member = format!("/api/v1/spaces/{space}/members/{}", alice.user_id);
    let admin_route = format!("/api/v1/admin/users/{}/token", alice.user_id);
    let cases: Vec<(Method, String, &[&str])> = vec![
        (Method::PUT, "/api/v1/spaces".into(), &["GET", "POST"]),
        (Method::DELETE, "/api/v1/spaces".into(), &["GET", "POST"]),
        (
            Method::POST,
            format!("/api/v1/spaces/{space}"),
            &["GET", "PATCH", "DELETE"],
        ),
        (
            Method::PUT,
            format!("/api/v1/spaces/{space}"),
            &["GET", "PATCH", "DELETE"],
        ),
        (
            Method::POST,
            format!("/api/v1/spaces/{space}/members"),
            &["GET"],
        ),
        (Method::GET, member.clone(), &["PUT", "DELETE"]),
        (Method::PATCH, member.clone(), &["PUT", "DELETE"]),
        (Method::PATCH, "/api/v1/tokens".into(), &["GET", "POST"]),
        (Method::PATCH, "/api/v1/tokens/x".into(), &["GET", "DELETE"]),
        (Method::GET, admin_route, &["POST"]),
    ];
    for (method, path, allowed) in cases {
        let request = app
            .request(method.clone(), &path)
            .insert_header(("Authorization", format!("Bearer {}", alice.token)));
        let reply = app.send(request, None).await;
        assert_problem(&reply, 405, "method_not_allowed");
        let allow = reply.header("allow").unwrap_or_default();
        let listed: Vec<&str> = allow.split(',').map(str::trim).collect();
        for expected in allowed {
            assert!(
                listed.contains(expected),
                "{method} {path}: Allow {allow:?}"
            );
        }
    }
    for path in [
        format!("/api/v1/spaces/{space}/x"),
        format!("{member}/x"),
        "/api/v1/tokens/x/y".to_string(),
    ] {
        assert_problem(&owner.get(&path).await, 404, "not_found");
    }

    // A body that is not JSON by its type, or not JSON at all.
    let bodies = [
        (
            Method::POST,
            "/api/v1/spaces".to_string(),
            json!({"name": "x"}),
        ),
        (
            Method::PATCH,
            format!("/api/v1/spaces/{space}"),
            json!({"name": "x"}),
        ),
        (Method::PUT, member.clone(), json!({"role": "owner"})),
        (
            Method::POST,
            "/api/v1/tokens".to_string(),
            json!({"name": "x", "access": "read"}),
        ),
    ];
    for (method, path, body) in &bodies {
        let request = app
            .request(method.clone(), path)
            .insert_header(("Authorization", format!("Bearer {}", alice.token)))
            .insert_header(("Content-Type", "text/plain"));
        let reply = app.send(request, Some(body.to_string().into_bytes())).await;
        assert_problem(&reply, 415, "unsupported_media_type");
        let request = app
            .request(method.clone(), path)
            .insert_header(("Authorization", format!("Bearer {}", alice.token)))
            .insert_header(("Content-Type", "application/json"));
        let reply = app.send(request, Some(b"{\"name\":".to_vec())).await;
        assert_problem(&reply, 400, "invalid_json");
    }

    // An empty body counts as `{}`: a rename that changes nothing, a create without a name.
    let before = expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200);
    let request = app
        .request(Method::PATCH, &format!("/api/v1/spaces/{space}"))
        .insert_header(("Authorization", format!("Bearer {}", alice.token)));
    assert_eq!(expect_data(&app.send(request, None).await, 200), before);
    let request = app
        .request(Method::POST, "/api/v1/spaces")
        .insert_header(("Authorization", format!("Bearer {}", alice.token)));
    assert_invalid_fields(&app.send(request, None).await, &["name"]);
    assert_eq!(listed_space_ids(owner).await.len(), 2);
    assert_eq!(
        expect_data(&owner.get(&format!("/api/v1/spaces/{space}")).await, 200),
        before
    );
}

#[actix_web::test]
async fn racing_owners_never_leave_a_space_without_one() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let bob = app.create_user("bob").await;
    let carol = app.create_user("carol").await;
    let (as_alice, as_bob) = (app.user(&alice.token), app.user(&bob.token));
    for round in 0..10 {
        let space = sid(&new_space(as_alice, &format!("round {round}")).await);
        add_member(as_alice, &space, &bob, "owner").await;
        let member = |user: &NewUser| format!("/api/v1/spaces/{space}/members/{}", user.user_id);
        // Both leave, or each demotes the other, at once: one wins, one is the last owner.
        let (first, second) = if round % 2 == 0 {
            futures_util::future::join(
                as_alice.delete(&member(&alice)),
                as_bob.delete(&member(&bob)),
            )
            .await
        } else {
            futures_util::future::join(
                put_member(as_alice, &space, &bob.user_id, "editor"),
                put_member(as_bob, &space, &alice.user_id, "editor"),
            )
            .await
        };
        let mut statuses = [first.status, second.status];
        statuses.sort();
        let loser = if first.status == 200 { &second } else { &first };
        // A demotion that authenticates after the other one was applied finds its caller
        // an editor already: 403, not 409. Either way it changes nothing.
        match loser.status {
            403 if round % 2 == 1 => assert_problem(loser, 403, "forbidden"),
            _ => {
                assert_eq!(statuses, [200, 409], "{:#} {:#}", first.body, second.body);
                assert_problem(loser, 409, "last_owner");
            }
        }
        // Who stays owner: the one who did not leave, or the one whose demotion won.
        let alice_won = first.status == 200;
        let other = if alice_won == (round % 2 == 0) {
            &bob
        } else {
            &alice
        };
        let members = app
            .user(&other.token)
            .get(&format!("/api/v1/spaces/{space}/members"))
            .await;
        let owners: Vec<Value> = expect_data(&members, 200)
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "owner")
            .map(|m| m["userId"].clone())
            .collect();
        assert_eq!(owners, [json!(other.user_id)], "round {round}");

        // The same member added by two requests at once: one 201, one 200.
        let (one, two) = futures_util::future::join(
            put_member(app.user(&other.token), &space, &carol.user_id, "viewer"),
            put_member(app.user(&other.token), &space, &carol.user_id, "viewer"),
        )
        .await;
        let mut statuses = [one.status, two.status];
        statuses.sort();
        assert_eq!(statuses, [200, 201]);
    }
}

#[actix_web::test]
async fn metrics_count_spaces_memberships_tokens_and_403s_by_reason() {
    let app = spawn_app();
    let metric = |text: &str, name: &str| -> Option<f64> {
        text.lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    };
    let scrape = || async {
        let reply = app.metrics().await;
        reply.body.as_str().unwrap_or_default().to_string()
    };
    let before = scrape().await;
    let alice = app.create_user("alice").await;
    let owner = app.default_user();
    let space = sid(&new_space(owner, "Team").await);
    add_member(owner, &space, &alice, "viewer").await;
    let token = owner
        .post("/api/v1/tokens", json!({"name": "t", "access": "read"}))
        .await;
    token.expect(201);
    let refused = app
        .user(&alice.token)
        .post(&format!("/api/v1/tasks?spaceId={space}"), json!({}))
        .await;
    assert_problem(&refused, 403, "forbidden");
    // A refusal under an idempotency key is kept as the key's answer, and counted once.
    let keyed = app
        .user(&alice.token)
        .send_with(
            Method::POST,
            &format!("/api/v1/tasks?spaceId={space}"),
            Some(&json!({})),
            &[("Idempotency-Key", "refused-once")],
        )
        .await;
    assert_problem(&keyed, 403, "forbidden");
    let after = scrape().await;
    let grew = |name: &str| metric(&after, name).unwrap() - metric(&before, name).unwrap();
    assert_eq!(grew("taskd_users"), 1.0);
    assert_eq!(grew("taskd_spaces"), 2.0, "alice's default space and Team");
    assert_eq!(grew("taskd_memberships"), 3.0);
    assert_eq!(grew("taskd_scoped_tokens"), 1.0);
    assert_eq!(grew("taskd_forbidden_total{reason=\"role\"}"), 2.0);
    assert_eq!(
        metric(&after, "taskd_forbidden_total{reason=\"read_only_token\"}"),
        Some(0.0)
    );
}
