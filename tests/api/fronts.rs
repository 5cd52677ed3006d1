//! What every front shares through the core and the edge, checked once for the JSON API
//! and CalDAV alike: one conditional rule (RFC 9110: a weak tag matches nothing in
//! `If-Match`) and one body discipline (a body that does not arrive within
//! `--body-timeout-ms` is `408`, the connection closed, on every route).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use actix_web::http::Method;
use base64::Engine;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with, Options, TestApp};

/// `Authorization: Basic` with `token` as the password, as CalDAV clients send it.
fn basic(token: &str) -> String {
    let pair = format!("someone:{token}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// A `VCALENDAR` with one `VTODO` of `uid` named `summary`.
fn vtodo(uid: &str, summary: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nSUMMARY:{summary}\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    )
}

/// The `(user, space)` of the default user.
async fn me(app: &TestApp) -> (String, String) {
    let me = app.get("/api/v1/me").await;
    (
        me.data()["userId"].as_str().unwrap().to_owned(),
        me.data()["defaultSpaceId"].as_str().unwrap().to_owned(),
    )
}

/// The task `t1`'s `versionUpdatedAt`.
async fn version_of_t1(app: &TestApp) -> u64 {
    app.get("/api/v1/tasks/t1").await.expect(200).data()["versionUpdatedAt"]
        .as_u64()
        .unwrap()
}

#[actix_web::test]
async fn if_match_with_a_weak_tag_matches_nothing_on_every_front() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    app.create("tasks", json!({"todoId": "t1", "name": "one"}))
        .await;
    let object = format!("/dav/calendars/{user}/{space}/t1.ics");

    // Each front, each write: the weak tag of the current version is refused, and the
    // refused write changes nothing.
    let v = version_of_t1(&app).await;
    let weak = format!("W/\"{v}\"");
    let patch = app
        .send_with(
            Method::PATCH,
            "/api/v1/tasks/t1",
            Some(&json!({"name": "json"})),
            &[("If-Match", &weak)],
        )
        .await;
    assert_eq!(patch.status, 412, "JSON PATCH: {patch:?}");
    let delete = app
        .send_with(
            Method::DELETE,
            "/api/v1/tasks/t1",
            None,
            &[("If-Match", &weak)],
        )
        .await;
    assert_eq!(delete.status, 412, "JSON DELETE: {delete:?}");
    let put = app
        .request(Method::PUT, &object)
        .insert_header(("Authorization", auth.as_str()))
        .insert_header(("Content-Type", "text/calendar"))
        .insert_header(("If-Match", weak.as_str()));
    let put = app.send(put, Some(vtodo("t1", "dav").into_bytes())).await;
    assert_eq!(put.status, 412, "CalDAV PUT: {put:?}");
    let dav_delete = app
        .request(Method::DELETE, &object)
        .insert_header(("Authorization", auth.as_str()))
        .insert_header(("If-Match", weak.as_str()));
    let dav_delete = app.send(dav_delete, None).await;
    assert_eq!(dav_delete.status, 412, "CalDAV DELETE: {dav_delete:?}");
    assert_eq!(
        version_of_t1(&app).await,
        v,
        "no refused write changed the task"
    );
    assert_eq!(app.get("/api/v1/tasks/t1").await.data()["name"], "one");

    // The strong tag of the same version matches on both fronts.
    let strong = format!("\"{v}\"");
    let put = app
        .request(Method::PUT, &object)
        .insert_header(("Authorization", auth.as_str()))
        .insert_header(("Content-Type", "text/calendar"))
        .insert_header(("If-Match", strong.as_str()));
    let put = app.send(put, Some(vtodo("t1", "dav").into_bytes())).await;
    assert_eq!(put.status, 204, "CalDAV PUT: {put:?}");
    let strong = format!("\"{}\"", version_of_t1(&app).await);
    app.send_with(
        Method::PATCH,
        "/api/v1/tasks/t1",
        Some(&json!({"name": "json"})),
        &[("If-Match", &strong)],
    )
    .await
    .expect(200);
}

/// Sends `method path` with headers announcing a 100-byte body, sends 10 bytes of it and
/// stops; returns what the server answered and how long it took to close the connection.
fn stalled(
    address: &str,
    method: &str,
    path: &str,
    auth: &str,
    content_type: &str,
) -> (String, Duration) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: taskd\r\nAuthorization: {auth}\r\n\
         Content-Type: {content_type}\r\nDepth: 1\r\nContent-Length: 100\r\n\r\n<?xml ver"
    )
    .expect("send");
    let started = Instant::now();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

#[actix_web::test]
async fn a_stalled_body_is_408_on_every_caldav_method() {
    let app = spawn_app_with(Options {
        args: vec!["--body-timeout-ms".into(), "300".into()],
        ..Options::default()
    });
    let (user, space) = me(&app).await;
    app.create("tasks", json!({"todoId": "t1", "name": "one"}))
        .await;
    let version = app.space_version().await;
    let auth = basic(&app.default_token);
    let home = format!("/dav/calendars/{user}/");
    let calendar = format!("{home}{space}/");
    let object = format!("{calendar}t1.ics");
    let cases = [
        ("OPTIONS", "/dav/".to_owned()),
        ("PROPFIND", "/".to_owned()),
        ("PROPFIND", "/dav/".to_owned()),
        ("PROPFIND", format!("/dav/principals/{user}/")),
        ("PROPFIND", home),
        ("PROPFIND", calendar.clone()),
        ("REPORT", calendar.clone()),
        ("MKCALENDAR", calendar),
        ("GET", object.clone()),
        ("PUT", object.clone()),
        ("DELETE", object),
    ];
    // All at once: each connection is held by its own stalled body, none by another's.
    let address = app.address.trim_start_matches("http://").to_owned();
    let answers: Vec<_> = cases
        .iter()
        .map(|(method, path)| {
            let (address, auth) = (address.clone(), auth.clone());
            let (method, path) = (method.to_string(), path.clone());
            thread::spawn(move || stalled(&address, &method, &path, &auth, "application/xml"))
        })
        .collect();
    for ((method, path), answer) in cases.iter().zip(answers) {
        let (answer, took) = answer.join().unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 408"),
            "{method} {path}: {answer}"
        );
        assert!(took < Duration::from_secs(3), "{method} {path}: {took:?}");
    }
    // The .ics import of the JSON front reads its body the same way.
    let bearer = format!("Bearer {}", app.default_token);
    let (answer, took) = stalled(
        &address,
        "POST",
        "/api/v1/calendar.ics",
        &bearer,
        "text/calendar",
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "import: {answer}");
    assert!(took < Duration::from_secs(3), "import: {took:?}");
    assert_eq!(app.space_version().await, version, "nothing was written");
    assert_eq!(app.get("/api/v1/tasks/t1").await.data()["name"], "one");
}
