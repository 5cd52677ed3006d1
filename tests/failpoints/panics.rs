//! Panics set with failpoint `space::write` in a running server: a panicking space answers
//! that request 500 and is reloaded while other spaces go on writing; and the route that
//! sets failpoints takes the admin token only.

use actix_web::http::Method;
use serde_json::json;

use crate::helpers::{assert_problem, spawn_app_with, spawn_durable, Options};
use crate::{remove_failpoint, set_failpoint};

#[actix_web::test]
async fn a_panic_in_one_space_is_a_500_and_the_space_is_reloaded_while_others_write() {
    let app = spawn_durable("fsync", 1000);
    let other = app.create_user("other").await;
    app.create("lists", json!({"listId": "l1"})).await;
    let me = app.default_user().get("/api/v1/me").await;
    let space = me.expect(200).data()["defaultSpaceId"].as_str().unwrap();
    set_failpoint(&app, "space::write", &format!("return({space})")).await;
    let busy = async {
        let other = app.user(&other.token);
        for i in 0..100 {
            let reply = other
                .post("/api/v1/tasks", json!({"todoId": format!("o{i}")}))
                .await;
            reply.expect(201);
        }
    };
    let panicking = async {
        let reply = app.post("/api/v1/tasks", json!({"name": "panics"})).await;
        assert_problem(&reply, 500, "internal");
        assert!(!reply.body.to_string().contains("injected"));
    };
    futures_util::future::join(busy, panicking).await;
    remove_failpoint(&app, "space::write").await;
    assert!(app.log_text().contains("panicked"));
    app.get("/api/v1/lists/l1").await.expect(200);
    let next = app.create("tasks", json!({"todoId": "t2"})).await;
    assert_eq!(next["versionUpdatedAt"], 2);
    assert_eq!(
        app.user(&other.token)
            .list_all("/api/v1/tasks", 100)
            .await
            .len(),
        100
    );
}

#[actix_web::test]
async fn failpoints_named_in_failpoints_at_start_act_from_the_first_request() {
    let app = spawn_app_with(Options {
        env: vec![("FAILPOINTS".into(), "space::write=panic".into())],
        ..Options::default()
    });
    let other = app.create_user("other").await;
    let reply = app.post("/api/v1/tasks", json!({"todoId": "t1"})).await;
    assert_problem(&reply, 500, "internal");
    let theirs = app
        .user(&other.token)
        .post("/api/v1/tasks", json!({"todoId": "o1"}))
        .await;
    assert_problem(&theirs, 500, "internal");
    remove_failpoint(&app, "space::write").await;
    app.create("tasks", json!({"todoId": "t1"})).await;
    app.get("/api/v1/tasks/t1").await.expect(200);
}

#[actix_web::test]
async fn the_failpoint_route_takes_the_admin_token_only_and_refuses_bad_actions() {
    let app = spawn_app_with(Options::default());
    let path = "/api/v1/admin/failpoints/journal::write";
    let anonymous = app.request(Method::PUT, path);
    let reply = app.send(anonymous, Some(b"return".to_vec())).await;
    assert_problem(&reply, 401, "unauthorized");
    let user = app.authorized(Method::PUT, path);
    let reply = app.send(user, Some(b"return".to_vec())).await;
    assert_problem(&reply, 403, "forbidden");
    let user = app.authorized(Method::DELETE, path);
    assert_problem(&app.send(user, None).await, 403, "forbidden");
    let admin = app
        .request(Method::PUT, path)
        .insert_header(("Authorization", format!("Bearer {}", app.admin_token)));
    let reply = app.send(admin, Some(b"no-such-action".to_vec())).await;
    assert_problem(&reply, 400, "invalid_parameter");
    // Nothing was set by the refused requests: writes go on.
    app.create("tasks", json!({"todoId": "t1"})).await;
}
