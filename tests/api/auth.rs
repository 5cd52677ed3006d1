//! Bearer tokens, the admin route, `/me`, and the isolation of one user's spaces from
//! another's (docs §2).

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, Reply, TestApp, KINDS};

/// Sends `method path` with the `Authorization` header set to `authorization` (none when
/// `None`).
async fn with_authorization(
    app: &TestApp,
    method: Method,
    path: &str,
    authorization: Option<&str>,
) -> Reply {
    let mut request = app.request(method.clone(), path);
    if let Some(value) = authorization {
        request = request.insert_header(("Authorization", value));
    }
    let body = (method != Method::GET && method != Method::DELETE).then(|| b"{}".to_vec());
    if body.is_some() {
        request = request.insert_header(("Content-Type", "application/json"));
    }
    app.send(request, body).await
}

#[actix_web::test]
async fn missing_malformed_or_unknown_tokens_are_401_with_www_authenticate_bearer() {
    let default_token = crate::helpers::DEFAULT_TOKEN.to_string();
    let authorizations = [
        None,
        Some(String::new()),
        Some("Bearer".to_string()),
        Some("Bearer ".to_string()),
        Some(default_token.clone()),
        Some(format!("Basic {default_token}")),
        Some(format!("Token {default_token}")),
        Some(format!("Bearer {default_token}x")),
        Some("Bearer not-a-token".to_string()),
    ];
    let mut routes = vec![
        (Method::GET, "/api/v1/me".to_string()),
        (Method::POST, "/api/v1/admin/users".to_string()),
    ];
    for (collection, _) in KINDS {
        routes.push((Method::GET, format!("/api/v1/{collection}")));
        routes.push((Method::POST, format!("/api/v1/{collection}")));
        routes.push((Method::GET, format!("/api/v1/{collection}/x")));
        routes.push((Method::PATCH, format!("/api/v1/{collection}/x")));
        routes.push((Method::DELETE, format!("/api/v1/{collection}/x")));
        routes.push((Method::POST, format!("/api/v1/{collection}/x/restore")));
    }
    // Every 401 counts against the address (docs §9: more than 100 in 10 s are
    // throttled), so each server takes ten routes, 90 failures.
    for routes in routes.chunks(10) {
        let app = spawn_app();
        check_401s(&app, routes, &authorizations).await;
    }
}

/// Checks that every route answers every authorization with 401 and changes nothing.
async fn check_401s(app: &TestApp, routes: &[(Method, String)], authorizations: &[Option<String>]) {
    for (method, path) in routes {
        for authorization in authorizations {
            let reply =
                with_authorization(app, method.clone(), path, authorization.as_deref()).await;
            assert_problem(&reply, 401, "unauthorized");
            assert_eq!(
                reply
                    .header("www-authenticate")
                    .map(|v| v.split(' ').next()),
                Some(Some("Bearer")),
                "{method} {path} with {authorization:?}"
            );
        }
    }
    assert_eq!(
        app.space_version().await,
        0,
        "a refused write changed the space"
    );
}

#[actix_web::test]
async fn the_admin_creates_a_user_with_its_own_default_space_and_token() {
    let app = spawn_app();
    let reply = app
        .call(
            Method::POST,
            "/api/v1/admin/users",
            &app.admin_token,
            Some(&json!({"name": "alice"})),
        )
        .await;
    reply.expect(201);
    let data = reply.data();
    assert_eq!(data["name"], "alice");
    for field in ["userId", "defaultSpaceId", "token"] {
        assert!(
            data[field].as_str().is_some_and(|s| !s.is_empty()),
            "{field} in {data:#}"
        );
    }
    let token = data["token"].as_str().unwrap();

    let me = app.user(token).get("/api/v1/me").await;
    me.expect(200);
    assert_eq!(me.data()["userId"], data["userId"]);
    assert_eq!(me.data()["name"], "alice");
    assert_eq!(me.data()["defaultSpaceId"], data["defaultSpaceId"]);
    assert_eq!(me.data()["spaceIds"], json!([data["defaultSpaceId"]]));

    let default_me = app.get("/api/v1/me").await;
    assert_ne!(default_me.data()["userId"], data["userId"]);
    assert_ne!(default_me.data()["defaultSpaceId"], data["defaultSpaceId"]);

    // Alice's space is new: version 0 and empty, whatever the default space holds.
    app.create("tasks", json!({"name": "default's"})).await;
    let listing = app.user(token).get("/api/v1/tasks").await;
    listing.expect(200);
    assert_eq!(listing.version(), 0);
    assert_eq!(listing.data(), &json!([]));

    let other = app.create_user("alice").await;
    assert_ne!(other.token, token, "two users got the same token");
    assert_ne!(other.default_space_id, data["defaultSpaceId"]);
}

#[actix_web::test]
async fn a_user_with_no_name_is_400_validation_failed() {
    let app = spawn_app();
    for body in [json!({}), json!({"name": ""}), json!({"name": 5})] {
        let reply = app
            .call(
                Method::POST,
                "/api/v1/admin/users",
                &app.admin_token,
                Some(&body),
            )
            .await;
        assert_problem(&reply, 400, "validation_failed");
    }
}

#[actix_web::test]
async fn a_user_token_on_an_admin_route_is_403_forbidden() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let me = app.user(&alice.token).get("/api/v1/me").await;
    assert_eq!(me.data()["userId"], alice.user_id);
    for token in [app.default_token.as_str(), alice.token.as_str()] {
        let reply = app
            .user(token)
            .post("/api/v1/admin/users", json!({"name": "mallory"}))
            .await;
        assert_problem(&reply, 403, "forbidden");
    }
}

#[actix_web::test]
async fn me_describes_the_caller() {
    let app = spawn_app();
    let reply = app.get("/api/v1/me").await;
    reply.expect(200);
    let data = reply.data();
    assert_eq!(data["name"], "default");
    assert!(data["userId"].as_str().is_some_and(|s| !s.is_empty()));
    let space = data["defaultSpaceId"].as_str().expect("defaultSpaceId");
    assert_eq!(data["spaceIds"], json!([space]));
    let task = app.create("tasks", json!({})).await;
    assert_eq!(task["spaceId"], space);
}

#[actix_web::test]
async fn naming_ones_own_space_by_query_or_body_works() {
    let app = spawn_app();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"].clone();
    let space = space.as_str().unwrap();
    for (collection, _) in KINDS {
        let by_query = app
            .post(&format!("/api/v1/{collection}?spaceId={space}"), json!({}))
            .await;
        by_query.expect(201);
        let by_body = app
            .post(&format!("/api/v1/{collection}"), json!({"spaceId": space}))
            .await;
        by_body.expect(201);
        let both = app
            .post(
                &format!("/api/v1/{collection}?spaceId={space}"),
                json!({"spaceId": space}),
            )
            .await;
        both.expect(201);
        for reply in [by_query, by_body, both] {
            assert_eq!(reply.data()["spaceId"], space);
        }
    }
    assert_eq!(app.space_version().await, 15);
}

/// Everything the default user has, as the default user sees it.
async fn state_of_default_space(app: &TestApp, ids: &[(&str, String)]) -> Vec<Value> {
    let mut state = vec![json!(app.space_version().await)];
    for (collection, id) in ids {
        let reply = app.get(&format!("/api/v1/{collection}/{id}")).await;
        reply.expect(200);
        state.push(reply.body.clone());
    }
    state
}

#[actix_web::test]
async fn another_users_space_is_404_for_every_operation_and_stays_unchanged() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut ids = Vec::new();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({"name": "mine"})).await;
        ids.push((collection, record[id_field].as_str().unwrap().to_string()));
    }
    let deleted = app.create("contexts", json!({})).await["contextId"]
        .as_str()
        .unwrap()
        .to_string();
    app.delete(&format!("/api/v1/contexts/{deleted}"))
        .await
        .expect(200);
    ids.push(("contexts", deleted.clone()));
    let before = state_of_default_space(&app, &ids).await;

    let as_alice = app.user(&alice.token);
    let q = format!("spaceId={space}");
    for (collection, id) in &ids {
        let item = format!("/api/v1/{collection}/{id}");
        let attempts = [
            as_alice.get(&format!("/api/v1/{collection}?{q}")).await,
            as_alice
                .get(&format!("/api/v1/{collection}?{q}&includeDeleted=true"))
                .await,
            as_alice.get(&format!("{item}?{q}")).await,
            as_alice
                .patch(&format!("{item}?{q}"), json!({"name": "hers"}))
                .await,
            as_alice
                .patch(&item, json!({"name": "hers", "spaceId": space}))
                .await,
            as_alice.delete(&format!("{item}?{q}")).await,
            as_alice.restore(&format!("{item}?{q}")).await,
            as_alice
                .post(&format!("/api/v1/{collection}?{q}"), json!({}))
                .await,
            as_alice
                .post(&format!("/api/v1/{collection}"), json!({"spaceId": space}))
                .await,
        ];
        for reply in &attempts {
            assert_problem(reply, 404, "not_found");
            assert!(
                !reply.body.to_string().contains("\"mine\""),
                "a 404 shows the record: {:#}",
                reply.body
            );
        }
        // Without a spaceId alice works in her own space, where the id does not exist.
        assert_problem(&as_alice.get(&item).await, 404, "not_found");
    }
    assert_eq!(
        state_of_default_space(&app, &ids).await,
        before,
        "alice changed the default space"
    );
    assert_eq!(
        app.user(&alice.token).get("/api/v1/tasks").await.version(),
        0,
        "alice's own space was written"
    );
}

#[actix_web::test]
async fn an_unknown_space_and_a_foreign_space_look_the_same() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let foreign = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let unknown = uuid::Uuid::new_v4().to_string();
    for (collection, _) in KINDS {
        let path = |space: &str| format!("/api/v1/{collection}?spaceId={space}");
        let as_alice = app.user(&alice.token);
        let pairs = [
            (
                as_alice.get(&path(&foreign)).await,
                as_alice.get(&path(&unknown)).await,
            ),
            (
                as_alice.post(&path(&foreign), json!({})).await,
                as_alice.post(&path(&unknown), json!({})).await,
            ),
        ];
        for (foreign_reply, unknown_reply) in pairs {
            assert_problem(&foreign_reply, 404, "not_found");
            assert_problem(&unknown_reply, 404, "not_found");
            assert_eq!(
                foreign_reply.header("content-type"),
                unknown_reply.header("content-type")
            );
            // Bodies may name the space asked for, and nothing else may differ.
            let neutral =
                |reply: &Reply, space: &str| reply.body.to_string().replace(space, "SPACE");
            assert_eq!(
                neutral(&foreign_reply, &foreign),
                neutral(&unknown_reply, &unknown)
            );
        }
    }
}

#[actix_web::test]
async fn a_query_space_and_a_different_body_space_are_400_space_conflict() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let id = record[id_field].as_str().unwrap();
        let before = app.space_version().await;
        for other in [alice.default_space_id.as_str(), "elsewhere"] {
            let created = app
                .post(
                    &format!("/api/v1/{collection}?spaceId={space}"),
                    json!({"spaceId": other}),
                )
                .await;
            assert_problem(&created, 400, "space_conflict");
            let patched = app
                .patch(
                    &format!("/api/v1/{collection}/{id}?spaceId={space}"),
                    json!({"spaceId": other, "name": "changed"}),
                )
                .await;
            assert_problem(&patched, 400, "space_conflict");
        }
        assert_eq!(app.space_version().await, before);
        let now = app.get(&format!("/api/v1/{collection}/{id}")).await;
        assert_eq!(now.data(), &record);
    }
}

#[actix_web::test]
async fn another_users_records_are_invisible_in_ones_own_space() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    for (collection, id_field) in KINDS {
        let hers = app.user(&alice.token).create(collection, json!({})).await;
        let id = hers[id_field].as_str().unwrap();
        assert_eq!(hers["spaceId"], alice.default_space_id);
        assert_problem(
            &app.get(&format!("/api/v1/{collection}/{id}")).await,
            404,
            "not_found",
        );
        let mine = app.get(&format!("/api/v1/{collection}")).await;
        assert_eq!(mine.data(), &json!([]));
        // The same id can be used in another space.
        let same = app.create(collection, json!({ id_field: id })).await;
        assert_eq!(same[id_field], id);
    }
}
