//! Errors: problem+json for unknown routes, wrong methods, bodies that are too large, not
//! JSON or not objects, and malformed path ids (docs §4, §7).

use actix_web::http::Method;
use actix_web::web::Bytes;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, id_of, spawn_app, TestApp, KINDS};

/// One MiB, the largest body accepted.
const MIB: usize = 1 << 20;

/// A JSON object of exactly `len` bytes whose `notesMarkdown` is too long for a task.
fn body_of_len(len: usize) -> Vec<u8> {
    let frame = br#"{"notesMarkdown":""}"#.len();
    let body = format!(r#"{{"notesMarkdown":"{}"}}"#, "x".repeat(len - frame));
    assert_eq!(body.len(), len);
    body.into_bytes()
}

/// Sends `method path` with the default token, `content_type` (none when `None`) and `body`.
async fn send_raw(
    app: &TestApp,
    method: Method,
    path: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> crate::helpers::Reply {
    let mut request = app.authorized(method, path);
    if let Some(content_type) = content_type {
        request = request.insert_header(("Content-Type", content_type));
    }
    app.send(request, Some(body.to_vec())).await
}

async fn still_healthy(app: &TestApp) {
    let reply = app.send(app.request(Method::GET, "/healthz"), None).await;
    assert_eq!(reply.status, 200);
}

#[actix_web::test]
async fn unknown_routes_are_404_not_found() {
    let app = spawn_app();
    for path in [
        "/",
        "/nope",
        "/api",
        "/api/v1",
        "/api/v2/tasks",
        "/api/v1/goals",
        "/api/v1/goals/x",
        "/api/v1/goals/x/restore",
        "/api/v1/tasks/x/y",
        "/api/v1/tasks/x/restore/again",
        "/api/v1/admin",
        "/api/v1/admin/users/x",
        "/healthz/x",
    ] {
        for method in [Method::GET, Method::POST] {
            let reply = app.send(app.authorized(method.clone(), path), None).await;
            assert_problem(&reply, 404, "not_found");
        }
    }
}

#[actix_web::test]
async fn a_known_path_with_another_method_is_405_with_an_allow_header() {
    let app = spawn_app();
    let mut cases: Vec<(Method, String, &[&str])> = vec![
        (Method::POST, "/healthz".into(), &["GET"]),
        (Method::PUT, "/healthz".into(), &["GET"]),
        (Method::POST, "/api/v1/me".into(), &["GET"]),
        (Method::DELETE, "/api/v1/me".into(), &["GET"]),
        (Method::GET, "/api/v1/admin/users".into(), &["POST"]),
        (Method::PUT, "/api/v1/admin/users".into(), &["POST"]),
    ];
    for (collection, _) in KINDS {
        let path = format!("/api/v1/{collection}");
        for method in [Method::PUT, Method::PATCH, Method::DELETE] {
            cases.push((method, path.clone(), &["GET", "POST"]));
        }
        for method in [Method::PUT, Method::POST] {
            cases.push((method, format!("{path}/x"), &["GET", "PATCH", "DELETE"]));
        }
        for method in [Method::GET, Method::PUT, Method::PATCH, Method::DELETE] {
            cases.push((method, format!("{path}/x/restore"), &["POST"]));
        }
    }
    for (method, path, allowed) in cases {
        let reply = app.send(app.authorized(method.clone(), &path), None).await;
        assert_problem(&reply, 405, "method_not_allowed");
        let allow = reply
            .header("allow")
            .unwrap_or_else(|| panic!("no Allow on {method} {path}"));
        let listed: Vec<&str> = allow.split(',').map(str::trim).collect();
        for expected in allowed {
            assert!(
                listed.contains(expected),
                "{method} {path}: Allow {allow:?}"
            );
        }
        assert!(
            !listed.contains(&method.as_str()),
            "{method} {path}: Allow {allow:?}"
        );
    }
    assert_eq!(app.space_version().await, 0);
}

#[actix_web::test]
async fn a_body_over_1_mib_is_413_payload_too_large() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let path = format!("/api/v1/{collection}");
        let item = format!("{path}/{}", id_of(&record, id_field));
        let version = app.space_version().await;
        for (method, path) in [(Method::POST, &path), (Method::PATCH, &item)] {
            let too_large = body_of_len(MIB + 1);
            let reply = send_raw(
                &app,
                method.clone(),
                path,
                Some("application/json"),
                &too_large,
            )
            .await;
            assert_problem(&reply, 413, "payload_too_large");
            // Streamed without a length, the limit holds all the same.
            let chunks: Vec<Result<Bytes, std::io::Error>> = too_large
                .chunks(64 * 1024)
                .map(|c| Ok(Bytes::copy_from_slice(c)))
                .collect();
            let streamed = app
                .authorized(method.clone(), path)
                .insert_header(("Content-Type", "application/json"))
                .send_stream(futures_util::stream::iter(chunks));
            let mut response = streamed.await.expect("streamed request");
            assert_eq!(response.status().as_u16(), 413);
            let _ = response.body().await;
            // Exactly 1 MiB is read, and then refused for what it says.
            let largest = body_of_len(MIB);
            let reply = send_raw(&app, method, path, Some("application/json"), &largest).await;
            assert_problem(&reply, 400, "validation_failed");
        }
        assert_eq!(app.space_version().await, version);
        assert_eq!(app.get(&item).await.data(), &record);
    }
    still_healthy(&app).await;
}

#[actix_web::test]
async fn a_body_without_a_json_content_type_is_415() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let path = format!("/api/v1/{collection}");
        let item = format!("{path}/{}", id_of(&record, id_field));
        for content_type in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("application/octet-stream"),
            Some("multipart/form-data; boundary=x"),
        ] {
            for (method, path) in [(Method::POST, &path), (Method::PATCH, &item)] {
                let reply = send_raw(&app, method, path, content_type, br#"{"name":"x"}"#).await;
                assert_problem(&reply, 415, "unsupported_media_type");
            }
        }
        assert_eq!(app.get(&item).await.data(), &record);
    }
    assert_eq!(app.space_version().await, 5);
}

#[actix_web::test]
async fn a_json_content_type_with_a_charset_is_accepted() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        for content_type in [
            "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
            "application/json",
        ] {
            let created = send_raw(
                &app,
                Method::POST,
                &format!("/api/v1/{collection}"),
                Some(content_type),
                r#"{"name":"café"}"#.as_bytes(),
            )
            .await;
            created.expect(201);
            assert_eq!(created.data()["name"], "café");
            let item = format!("/api/v1/{collection}/{}", id_of(created.data(), id_field));
            let patched = send_raw(
                &app,
                Method::PATCH,
                &item,
                Some(content_type),
                br#"{"name":"b"}"#,
            )
            .await;
            patched.expect(200);
            assert_eq!(patched.data()["name"], "b");
        }
    }
}

#[actix_web::test]
async fn a_body_that_is_not_a_json_object_is_400_invalid_json() {
    let app = spawn_app();
    let deep = "[".repeat(200_000);
    let bodies: [&[u8]; 14] = [
        deep.as_bytes(),
        b"{",
        b"nope",
        br#"{"name":}"#,
        br#"{"name":"x"} {}"#,
        br#"{"name":"x",}"#,
        b"\xff\xfe{}",
        b"[]",
        br#"[{"name":"x"}]"#,
        br#""name""#,
        b"5",
        b"null",
        b"true",
        b" ",
    ];
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let path = format!("/api/v1/{collection}");
        let item = format!("{path}/{}", id_of(&record, id_field));
        let version = app.space_version().await;
        for body in bodies {
            for (method, path) in [(Method::POST, &path), (Method::PATCH, &item)] {
                let reply = send_raw(&app, method, path, Some("application/json"), body).await;
                assert_problem(&reply, 400, "invalid_json");
            }
        }
        assert_eq!(app.space_version().await, version);
    }
    let as_admin = app
        .request(Method::POST, "/api/v1/admin/users")
        .insert_header(("Authorization", format!("Bearer {}", app.admin_token)))
        .insert_header(("Content-Type", "application/json"));
    let user = app.send(as_admin, Some(br#"["alice"]"#.to_vec())).await;
    assert_problem(&user, 400, "invalid_json");
    still_healthy(&app).await;
}

#[actix_web::test]
async fn an_empty_body_counts_as_an_empty_object() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        let without_type = app.send(app.authorized(Method::POST, &path), None).await;
        let with_type = send_raw(&app, Method::POST, &path, Some("application/json"), b"").await;
        let as_text = send_raw(&app, Method::POST, &path, Some("text/plain"), b"").await;
        for reply in [without_type, with_type, as_text] {
            reply.expect(201);
            let record = reply.data();
            assert!(record[id_field].is_string());
            assert_eq!(record["name"], Value::Null);
            assert_eq!(record["isDeleted"], false);
        }
    }
    assert_eq!(app.space_version().await, 15);
}

#[actix_web::test]
async fn a_malformed_path_id_is_400_invalid_parameter() {
    let app = spawn_app();
    let too_long = "a".repeat(65);
    let bad_ids = [
        too_long.as_str(),
        "a%20b",
        "%C3%A9",
        "a.b",
        "a%2Fb",
        "a+b",
        "a%00",
        "%2E%2E",
    ];
    for (collection, _) in KINDS {
        let path = format!("/api/v1/{collection}");
        for id in bad_ids {
            let item = format!("{path}/{id}");
            let replies = [
                app.get(&item).await,
                app.patch(&item, json!({"name": "x"})).await,
                app.delete(&item).await,
                app.default_user().restore(&item).await,
            ];
            for reply in replies {
                assert_problem(&reply, 400, "invalid_parameter");
            }
        }
        // The longest id is fine in a path.
        let longest = "b".repeat(64);
        assert_problem(
            &app.get(&format!("{path}/{longest}")).await,
            404,
            "not_found",
        );
    }
    assert_eq!(app.space_version().await, 0);
}
