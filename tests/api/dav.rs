//! CalDAV (docs §20) over HTTP: discovery from `/.well-known/caldav`, Basic
//! authentication with a token, `OPTIONS` and `PROPFIND` of the root, the principal and
//! the calendar home with its calendars, the reports, `GET`, `DELETE`, and `PUT` (create,
//! update, preconditions, moves between calendars, restores, refusals).

use actix_web::http::Method;
use base64::Engine;
use serde_json::json;

use crate::helpers::{spawn_app, Reply, TestApp};

fn propfind() -> Method {
    Method::from_bytes(b"PROPFIND").unwrap()
}

/// `Authorization: Basic` with any user name and `token` as the password.
pub(crate) fn basic(token: &str) -> String {
    let pair = format!("someone@example.com:{token}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

const ASK: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:current-user-principal/><c:calendar-home-set/><d:resourcetype/>
    <d:displayname/><x:unknown xmlns:x="urn:x"/></d:prop>
</d:propfind>"#;

async fn dav(app: &TestApp, method: Method, path: &str, auth: Option<&str>, body: &str) -> Reply {
    let mut request = app
        .request(method, path)
        .insert_header(("Depth", "0"))
        .insert_header(("Content-Type", "application/xml"));
    if let Some(auth) = auth {
        request = request.insert_header(("Authorization", auth));
    }
    app.send(request, Some(body.as_bytes().to_vec())).await
}

fn text(reply: &Reply) -> &str {
    reply.body.as_str().unwrap_or_default()
}

#[actix_web::test]
async fn a_client_finds_its_principal_and_calendar_home_from_the_well_known_url() {
    let app = spawn_app();
    let me = app.get("/api/v1/me").await;
    let user = me.data()["userId"].as_str().unwrap().to_owned();
    let redirect = app
        .send(app.request(propfind(), "/.well-known/caldav"), None)
        .await;
    assert_eq!(redirect.status, 301);
    assert_eq!(redirect.header("location"), Some("/dav/"));
    let auth = basic(&app.default_token);
    let root = dav(&app, propfind(), "/dav/", Some(&auth), ASK).await;
    assert_eq!(root.status, 207, "{root:?}");
    let principal = format!("/dav/principals/{user}/");
    assert!(
        text(&root).contains(&format!(
            "<d:current-user-principal><d:href>{principal}</d:href></d:current-user-principal>"
        )),
        "{}",
        text(&root)
    );
    assert!(text(&root).contains("<x:unknown xmlns:x=\"urn:x\"/>"));
    assert!(text(&root).contains("HTTP/1.1 404 Not Found"));
    let found = dav(&app, propfind(), &principal, Some(&auth), ASK).await;
    assert_eq!(found.status, 207, "{found:?}");
    let body = text(&found);
    assert!(
        body.contains(&format!(
            "<c:calendar-home-set><d:href>/dav/calendars/{user}/</d:href></c:calendar-home-set>"
        )),
        "{body}"
    );
    assert!(
        body.contains("<d:resourcetype><d:collection/><d:principal/></d:resourcetype>"),
        "{body}"
    );
    assert!(
        body.contains("<d:displayname>default</d:displayname>"),
        "{body}"
    );
    // A client given the server's root URL finds its principal there too; `/` stays the
    // JSON API's for other methods.
    let at_root = dav(&app, propfind(), "/", Some(&auth), ASK).await;
    assert_eq!(at_root.status, 207, "{at_root:?}");
    assert!(text(&at_root).contains(&principal), "{}", text(&at_root));
    assert_eq!(app.get("/").await.status, 404);
    // An empty body asks for every property.
    let all = dav(&app, propfind(), &principal, Some(&auth), "").await;
    assert!(text(&all).contains("calendar-home-set"), "{}", text(&all));
    // Bearer works too.
    let bearer = format!("Bearer {}", app.default_token);
    assert_eq!(
        dav(&app, propfind(), "/dav/", Some(&bearer), ASK)
            .await
            .status,
        207
    );
}

#[actix_web::test]
async fn without_a_valid_token_a_client_is_asked_for_basic_and_others_principals_are_not_found() {
    let app = spawn_app();
    let none = dav(&app, propfind(), "/dav/", None, ASK).await;
    assert_eq!(none.status, 401);
    assert_eq!(
        none.header("www-authenticate"),
        Some(r#"Basic realm="taskd""#)
    );
    let wrong = dav(&app, propfind(), "/dav/", Some(&basic("not-a-token")), ASK).await;
    assert_eq!(wrong.status, 401);
    let other = app.create_user("other").await;
    let path = format!("/dav/principals/{}/", other.user_id);
    let reply = dav(
        &app,
        propfind(),
        &path,
        Some(&basic(&app.default_token)),
        ASK,
    )
    .await;
    assert_eq!(reply.status, 404);
    let bad = dav(
        &app,
        propfind(),
        "/dav/",
        Some(&basic(&app.default_token)),
        "<a><b></a>",
    )
    .await;
    assert_eq!(bad.status, 400);
}

#[actix_web::test]
async fn options_names_the_dav_classes_and_other_methods_are_not_allowed() {
    let app = spawn_app();
    let options = dav(&app, Method::OPTIONS, "/dav/", None, "").await;
    assert_eq!(options.status, 200);
    assert_eq!(options.header("dav"), Some("1, 3, calendar-access"));
    let auth = basic(&app.default_token);
    let delete = dav(&app, Method::DELETE, "/dav/", Some(&auth), "").await;
    assert_eq!(delete.status, 405);
    assert_eq!(delete.header("allow"), Some("OPTIONS, PROPFIND"));
}

#[actix_web::test]
async fn the_calendar_home_lists_a_calendar_per_list_and_one_per_space() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    app.create("lists", json!({"listId": "work", "name": "Work"}))
        .await;
    app.create("lists", json!({"listId": "old", "name": "Old"}))
        .await;
    app.delete("/api/v1/lists/old").await.expect(200);
    let version = app.space_version().await;
    let home = format!("/dav/calendars/{user}/");
    let auth = basic(&app.default_token);
    let reply = dav(&app, propfind(), &home, None, "").await;
    assert_eq!(reply.status, 401);
    let mut request = app
        .request(propfind(), &home)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", auth.as_str()));
    request = request.insert_header(("Content-Type", "application/xml"));
    let listed = app.send(request, Some(Vec::new())).await;
    assert_eq!(listed.status, 207, "{listed:?}");
    let body = text(&listed);
    for expected in [
        format!("<d:href>{home}{space}/</d:href>"),
        format!("<d:href>{home}{space}.work/</d:href>"),
        "<d:displayname>Work</d:displayname>".to_owned(),
        "<d:displayname>default</d:displayname>".to_owned(),
        format!("<cs:getctag>{version}</cs:getctag>"),
        "<c:supported-calendar-component-set><c:comp name=\"VTODO\"/>".to_owned(),
        "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>".to_owned(),
        "<d:privilege><d:write/></d:privilege>".to_owned(),
    ] {
        assert!(body.contains(&expected), "{expected} not in {body}");
    }
    assert!(!body.contains(".old/"), "{body}");
    // Depth 0: the home alone.
    let alone = dav(&app, propfind(), &home, Some(&auth), "").await;
    assert!(!text(&alone).contains(".work/"), "{}", text(&alone));
    // A read token sees the calendars without write.
    let token = app
        .post("/api/v1/tokens", json!({"name": "read", "access": "read"}))
        .await;
    let read = token.data()["token"].as_str().unwrap().to_owned();
    let request = app
        .request(propfind(), &home)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", basic(&read)));
    let listed = app.send(request, Some(Vec::new())).await;
    assert!(text(&listed).contains(".work/"), "{}", text(&listed));
    assert!(!text(&listed).contains("<d:write/>"), "{}", text(&listed));
    let other = app.create_user("other").await;
    let theirs = format!("/dav/calendars/{}/", other.user_id);
    assert_eq!(
        dav(&app, propfind(), &theirs, Some(&auth), "").await.status,
        404
    );
}

#[actix_web::test]
async fn a_calendar_lists_its_tasks_objects_and_an_object_is_its_vtodo() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    app.create("lists", json!({"listId": "work", "name": "Work"}))
        .await;
    let in_work = app
        .create(
            "tasks",
            json!({"todoId": "report", "name": "Report", "listId": "work"}),
        )
        .await;
    app.create("tasks", json!({"todoId": "loose", "name": "Loose"}))
        .await;
    app.create("tasks", json!({"todoId": "gone", "listId": "work"}))
        .await;
    app.delete("/api/v1/tasks/gone").await.expect(200);
    let auth = basic(&app.default_token);
    let work = format!("/dav/calendars/{user}/{space}.work/");
    let request = app
        .request(propfind(), &work)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", auth.as_str()));
    let listed = app.send(request, Some(Vec::new())).await;
    assert_eq!(listed.status, 207, "{listed:?}");
    let body = text(&listed);
    let etag = format!("\"{}\"", in_work["versionUpdatedAt"]);
    let report = body
        .split("<d:response>")
        .find(|r| r.contains(&format!("<d:href>{work}report.ics</d:href>")))
        .unwrap_or_else(|| panic!("no report.ics in {body}"));
    let tag = etag.replace('"', "&quot;");
    assert!(
        report.contains(&format!("<d:getetag>{tag}</d:getetag>")),
        "{report}"
    );
    // Asked for all, an object answers what it has, and nothing it has not.
    assert!(!report.contains("404 Not Found"), "{report}");
    assert!(
        !body.contains("loose.ics") && !body.contains("gone.ics"),
        "{body}"
    );
    let loose = format!("/dav/calendars/{user}/{space}/");
    let request = app
        .request(propfind(), &loose)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", auth.as_str()));
    let listed = app.send(request, Some(Vec::new())).await;
    assert!(text(&listed).contains("loose.ics") && !text(&listed).contains("report.ics"));
    let request = app
        .request(Method::GET, &format!("{work}report.ics"))
        .insert_header(("Authorization", auth.as_str()));
    let object = app.send(request, None).await;
    assert_eq!(object.status, 200, "{object:?}");
    assert_eq!(object.header("etag"), Some(etag.as_str()));
    assert!(
        text(&object).contains("UID:report\r\nDTSTAMP:"),
        "{}",
        text(&object)
    );
    assert!(
        text(&object).contains("SUMMARY:Report\r\n"),
        "{}",
        text(&object)
    );
    for missing in [
        format!("{work}loose.ics"),
        format!("/dav/calendars/{user}/{space}.nolist/report.ics"),
        format!("/dav/calendars/{user}/not-a-space/report.ics"),
    ] {
        let request = app
            .request(Method::GET, &missing)
            .insert_header(("Authorization", auth.as_str()));
        assert_eq!(app.send(request, None).await.status, 404, "{missing}");
    }
    let put = dav(
        &app,
        Method::PUT,
        &format!("{work}report.ics"),
        Some(&auth),
        "",
    )
    .await;
    // An empty body is no iCalendar object.
    assert_eq!(put.status, 400, "{put:?}");
    let post = dav(
        &app,
        Method::POST,
        &format!("{work}report.ics"),
        Some(&auth),
        "",
    )
    .await;
    assert_eq!(post.status, 405);
    assert_eq!(
        post.header("allow"),
        Some("OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND")
    );
}

#[actix_web::test]
async fn a_multiget_answers_the_objects_named_and_a_query_every_object() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let a = app
        .create("tasks", json!({"todoId": "a", "name": "A & B"}))
        .await;
    app.create("tasks", json!({"todoId": "b", "name": "Bee"}))
        .await;
    let calendar = format!("/dav/calendars/{user}/{space}/");
    let auth = basic(&app.default_token);
    let report = Method::from_bytes(b"REPORT").unwrap();
    let multiget = format!(
        r#"<?xml version="1.0" encoding="utf-8" ?>
        <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
          <D:prop><D:getetag/><C:calendar-data/></D:prop>
          <D:href>{calendar}a.ics</D:href><D:href>{calendar}nope.ics</D:href>
        </C:calendar-multiget>"#
    );
    let reply = dav(&app, report.clone(), &calendar, Some(&auth), &multiget).await;
    assert_eq!(reply.status, 207, "{reply:?}");
    let body = text(&reply);
    let etag = format!("&quot;{}&quot;", a["versionUpdatedAt"]);
    assert!(
        body.contains(&format!("<d:getetag>{etag}</d:getetag>")),
        "{body}"
    );
    assert!(body.contains("SUMMARY:A &amp; B"), "{body}");
    assert!(
        body.contains(&format!(
            "<d:href>{calendar}nope.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status>"
        )),
        "{body}"
    );
    assert!(!body.contains("Bee"), "{body}");
    let query = r#"<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
          <D:prop><D:getetag/></D:prop>
          <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"/></C:comp-filter></C:filter>
        </C:calendar-query>"#;
    let reply = dav(&app, report.clone(), &calendar, Some(&auth), query).await;
    assert_eq!(reply.status, 207, "{reply:?}");
    let body = text(&reply);
    assert!(body.contains("a.ics") && body.contains("b.ics"), "{body}");
    assert!(!body.contains("calendar-data"), "{body}");
    let other = r#"<D:expand-property xmlns:D="DAV:"/>"#;
    let reply = dav(&app, report, &calendar, Some(&auth), other).await;
    assert_eq!(reply.status, 403);
    assert!(
        text(&reply).contains("supported-report"),
        "{}",
        text(&reply)
    );
}

/// A `sync-collection` REPORT of `calendar` from `token`.
async fn sync(app: &TestApp, calendar: &str, token: &str) -> Reply {
    let body = format!(
        r#"<?xml version="1.0" encoding="utf-8" ?>
        <d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token>
          <d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#
    );
    let auth = basic(&app.default_token);
    let report = Method::from_bytes(b"REPORT").unwrap();
    dav(app, report, calendar, Some(&auth), &body).await
}

/// The new `sync-token` of a `sync-collection` answer.
fn token_of(reply: &Reply) -> String {
    let body = text(reply);
    body.split("<d:sync-token>")
        .nth(1)
        .and_then(|t| t.split("</d:sync-token>").next())
        .unwrap_or_else(|| panic!("no sync-token in {body}"))
        .to_owned()
}

#[actix_web::test]
async fn sync_collection_reports_json_writes_deletes_and_moves_since_a_token() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    app.create("lists", json!({"listId": "work"})).await;
    for id in ["kept", "changed", "deleted", "moved"] {
        app.create("tasks", json!({"todoId": id, "listId": "work"}))
            .await;
    }
    let calendar = format!("/dav/calendars/{user}/{space}.work/");
    let auth = basic(&app.default_token);
    let props = dav(&app, propfind(), &calendar, Some(&auth), "").await;
    let version = app.space_version().await;
    assert!(
        text(&props).contains(&format!(
            "<d:sync-token>urn:taskd:sync:{version}</d:sync-token>"
        )),
        "{}",
        text(&props)
    );
    assert!(
        text(&props).contains("<d:report><d:sync-collection/></d:report>"),
        "{}",
        text(&props)
    );
    let first = sync(&app, &calendar, "").await;
    assert_eq!(first.status, 207, "{first:?}");
    for id in ["kept", "changed", "deleted", "moved"] {
        assert!(
            text(&first).contains(&format!("{id}.ics")),
            "{}",
            text(&first)
        );
    }
    let token = token_of(&first);
    assert_eq!(token, format!("urn:taskd:sync:{version}"));
    // Nothing changed: nothing reported, the same token.
    let same = sync(&app, &calendar, &token).await;
    assert!(!text(&same).contains("<d:response>"), "{}", text(&same));
    assert_eq!(token_of(&same), token);
    app.patch("/api/v1/tasks/changed", json!({"name": "new name"}))
        .await
        .expect(200);
    app.delete("/api/v1/tasks/deleted").await.expect(200);
    app.patch("/api/v1/tasks/moved", json!({"listId": null}))
        .await
        .expect(200);
    let next = sync(&app, &calendar, &token).await;
    let body = text(&next);
    let response = |id: &str| {
        body.split("<d:response>")
            .find(|r| r.contains(&format!("{id}.ics</d:href>")))
            .map(str::to_owned)
    };
    assert!(response("kept").is_none(), "{body}");
    assert!(
        response("changed").unwrap().contains("<d:getetag>"),
        "{body}"
    );
    for gone in ["deleted", "moved"] {
        let member = response(gone).unwrap();
        assert!(
            member.contains("<d:status>HTTP/1.1 404 Not Found</d:status>"),
            "{body}"
        );
    }
    assert_eq!(
        token_of(&next),
        format!("urn:taskd:sync:{}", app.space_version().await)
    );
    for bad in [
        "urn:taskd:sync:999999",
        "http://example.com/other-server",
        "urn:taskd:sync:x",
    ] {
        let refused = sync(&app, &calendar, bad).await;
        assert_eq!(refused.status, 403, "{bad}");
        assert!(
            text(&refused).contains("valid-sync-token"),
            "{}",
            text(&refused)
        );
    }
}

#[actix_web::test]
async fn delete_soft_deletes_the_task_with_if_match_and_roles_checked() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let task = app.create("tasks", json!({"todoId": "bye"})).await;
    let object = format!("/dav/calendars/{user}/{space}/bye.ics");
    let token = app
        .post("/api/v1/tokens", json!({"name": "read", "access": "read"}))
        .await;
    let read = basic(token.data()["token"].as_str().unwrap());
    let delete = |auth: String, tag: Option<String>| {
        let mut request = app
            .request(Method::DELETE, &object)
            .insert_header(("Authorization", auth));
        if let Some(tag) = tag {
            request = request.insert_header(("If-Match", tag));
        }
        app.send(request, None)
    };
    assert_eq!(delete(read, None).await.status, 403);
    let auth = basic(&app.default_token);
    let stale = delete(auth.clone(), Some("\"999\"".into())).await;
    assert_eq!(stale.status, 412);
    app.get("/api/v1/tasks/bye").await.expect(200);
    let tag = format!("\"{}\"", task["versionUpdatedAt"]);
    assert_eq!(delete(auth.clone(), Some(tag)).await.status, 204);
    let gone = app.get("/api/v1/tasks/bye").await;
    gone.expect(200);
    assert_eq!(gone.data()["isDeleted"], true);
    let request = app
        .request(Method::GET, &object)
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(request, None).await.status, 404);
    assert_eq!(delete(auth.clone(), None).await.status, 404);
    // Calendars are lists, made through the JSON API.
    let mkcalendar = Method::from_bytes(b"MKCALENDAR").unwrap();
    let new = format!("/dav/calendars/{user}/{space}.new/");
    assert_eq!(
        dav(&app, mkcalendar, &new, Some(&auth), "").await.status,
        403
    );
}

/// A `VCALENDAR` with one `VTODO` of `uid` and `summary`, and `extra` content lines.
fn vtodo(uid: &str, summary: &str, extra: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:{uid}\r\n\
         DTSTAMP:20260101T000000Z\r\nSUMMARY:{summary}\r\n{extra}END:VTODO\r\nEND:VCALENDAR\r\n"
    )
}

/// A `PUT` of `body` at `path` with `auth` and the `(name, value)` headers.
pub(crate) async fn put(
    app: &TestApp,
    path: &str,
    auth: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut request = app
        .request(Method::PUT, path)
        .insert_header(("Authorization", auth))
        .insert_header(("Content-Type", "text/calendar; charset=utf-8"));
    for &(name, value) in headers {
        request = request.insert_header((name, value));
    }
    app.send(request, Some(body.as_bytes().to_vec())).await
}

/// The `(user, space)` of the default user.
pub(crate) async fn me(app: &TestApp) -> (String, String) {
    let me = app.get("/api/v1/me").await;
    (
        me.data()["userId"].as_str().unwrap().to_owned(),
        me.data()["defaultSpaceId"].as_str().unwrap().to_owned(),
    )
}

/// The task of `todoId` through the JSON API.
async fn task(app: &TestApp, id: &str) -> serde_json::Value {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data().clone()
}

/// The one task whose `name` is `name` (deleted ones too).
async fn task_named(app: &TestApp, name: &str) -> serde_json::Value {
    let all = app
        .default_user()
        .list_all("/api/v1/tasks?includeDeleted=true", 100)
        .await;
    all.into_iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no task named {name}"))
}

#[actix_web::test]
async fn put_creates_a_task_keeping_uid_name_and_bytes_and_answers_its_etag() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    let path = format!("{calendar}Client%20Name-1.ics");
    let before = app.space_version().await;
    let body = vtodo(
        "abc-123@phone.example",
        "From the phone",
        "PRIORITY:2\r\nDUE;VALUE=DATE:20260301\r\nX-CLIENT-THING:kept\r\n",
    );
    let created = put(&app, &path, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(created.status, 201, "{created:?}");
    let etag = format!("\"{}\"", before + 1);
    assert_eq!(created.header("etag"), Some(etag.as_str()));
    assert_eq!(app.space_version().await, before + 1);
    // Visible in the JSON API with its fields; the UID was no id, so a UUID is its todoId.
    let made = task_named(&app, "From the phone").await;
    assert_ne!(made["todoId"], "abc-123@phone.example");
    assert_eq!(made["isImportant"], true);
    assert_eq!(made["dateDue"], "2026-03-01T00:00:00.000Z");
    assert_eq!(made["isAllDay"], true);
    assert_eq!(made["listId"], serde_json::Value::Null);
    // Read back under the same name, with the same UID and the kept property.
    let request = app
        .request(Method::GET, &path)
        .insert_header(("Authorization", auth.as_str()));
    let got = app.send(request, None).await;
    assert_eq!(got.status, 200, "{got:?}");
    assert_eq!(text(&got), body);
    assert_eq!(got.header("etag"), Some(etag.as_str()));
    let request = app
        .request(propfind(), &calendar)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", auth.as_str()));
    let listed = app.send(request, Some(Vec::new())).await;
    assert!(
        text(&listed).contains("Client%20Name-1.ics</d:href>"),
        "{}",
        text(&listed)
    );
    // A UID with the id shape and free becomes the todoId.
    let plain = format!("{calendar}plain.ics");
    let reply = put(&app, &plain, &auth, &[], &vtodo("plain-id", "Plain", "")).await;
    assert_eq!(reply.status, 201, "{reply:?}");
    assert_eq!(task(&app, "plain-id").await["name"], "Plain");
    // If-None-Match on an existing name: 412, and nothing changes.
    let version = app.space_version().await;
    let again = put(&app, &path, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(again.status, 412);
    let other_name = format!("{calendar}other.ics");
    // The same UID under another name of the calendar is a UID conflict.
    let conflict = put(&app, &other_name, &auth, &[], &body).await;
    assert_eq!(conflict.status, 409, "{conflict:?}");
    assert!(text(&conflict).contains("no-uid-conflict"));
    assert_eq!(app.space_version().await, version);
    // A name is the name it encodes: `a%40b.ics` is `a@b.ics`.
    let encoded = format!("{calendar}a%40b.ics");
    let reply = put(&app, &encoded, &auth, &[], &vtodo("a@b", "At", "")).await;
    assert_eq!(reply.status, 201);
    let request = app
        .request(Method::GET, &format!("{calendar}a@b.ics"))
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(request, None).await.status, 200);
    let again = put(
        &app,
        &format!("{calendar}a@b.ics"),
        &auth,
        &[],
        &vtodo("a@b", "At 2", ""),
    )
    .await;
    assert_eq!(again.status, 204, "{again:?}");
}

#[actix_web::test]
async fn put_updates_with_if_match_and_a_stale_one_is_412() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let made = app
        .create("tasks", json!({"todoId": "t1", "name": "JSON made"}))
        .await;
    let path = format!("/dav/calendars/{user}/{space}/t1.ics");
    let tag = format!("\"{}\"", made["versionUpdatedAt"]);
    let body = vtodo(
        "t1",
        "Renamed",
        "STATUS:COMPLETED\r\nCOMPLETED:20260105T100000Z\r\n",
    );
    let stale = put(&app, &path, &auth, &[("If-Match", "\"999\"")], &body).await;
    assert_eq!(stale.status, 412);
    assert_eq!(task(&app, "t1").await["name"], "JSON made");
    let updated = put(&app, &path, &auth, &[("If-Match", &tag)], &body).await;
    assert_eq!(updated.status, 204, "{updated:?}");
    let new_tag = format!("\"{}\"", app.space_version().await);
    assert_eq!(updated.header("etag"), Some(new_tag.as_str()));
    let now = task(&app, "t1").await;
    assert_eq!(now["name"], "Renamed");
    assert_eq!(now["status"], "done");
    assert_eq!(now["completedAt"], "2026-01-05T10:00:00.000Z");
    // The old ETag is stale now.
    let again = put(&app, &path, &auth, &[("If-Match", &tag)], &body).await;
    assert_eq!(again.status, 412);
    // If-Match on an object that does not exist: 412.
    let none = format!("/dav/calendars/{user}/{space}/none.ics");
    let missing = put(
        &app,
        &none,
        &auth,
        &[("If-Match", "*")],
        &vtodo("none", "x", ""),
    )
    .await;
    assert_eq!(missing.status, 412);
    // Unconditional PUT updates.
    let plain = put(&app, &path, &auth, &[], &vtodo("t1", "Third", "")).await;
    assert_eq!(plain.status, 204);
    let third = task(&app, "t1").await;
    assert_eq!(third["name"], "Third");
    assert_eq!(third["status"], "open");
    // Giving the object another UID is a conflict.
    let other = put(&app, &path, &auth, &[], &vtodo("t2", "Other", "")).await;
    assert_eq!(other.status, 409);
}

#[actix_web::test]
async fn put_refuses_events_two_uids_and_callers_who_may_not_write() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let path = format!("/dav/calendars/{user}/{space}/e.ics");
    let version = app.space_version().await;
    let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:e\r\n\
                 DTSTAMP:20260101T000000Z\r\nDTSTART:20260101T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let refused = put(&app, &path, &auth, &[], event).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(
        text(&refused).contains("supported-calendar-component"),
        "{}",
        text(&refused)
    );
    let two = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n\
         BEGIN:VTODO\r\nUID:a\r\nDTSTAMP:20260101T000000Z\r\nEND:VTODO\r\n\
         BEGIN:VTODO\r\nUID:b\r\nDTSTAMP:20260101T000000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n";
    assert_eq!(put(&app, &path, &auth, &[], two).await.status, 400);
    let token = app
        .post("/api/v1/tokens", json!({"name": "read", "access": "read"}))
        .await;
    let read = basic(token.data()["token"].as_str().unwrap());
    let reply = put(&app, &path, &read, &[], &vtodo("r", "Read only", "")).await;
    assert_eq!(reply.status, 403);
    // Another user reaches no calendar of this space.
    let other = app.create_user("other").await;
    let theirs = basic(&other.token);
    let reply = put(&app, &path, &theirs, &[], &vtodo("r", "Not mine", "")).await;
    assert_eq!(reply.status, 404);
    assert_eq!(app.space_version().await, version);
}

/// The `sync-collection` member of `name` in `reply`.
fn member<'a>(reply: &'a Reply, name: &str) -> Option<&'a str> {
    text(reply)
        .split("<d:response>")
        .find(|r| r.contains(&format!("{name}</d:href>")))
}

#[actix_web::test]
async fn a_put_in_another_calendar_moves_the_task_in_either_order_with_delete() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    app.create("lists", json!({"listId": "a"})).await;
    app.create("lists", json!({"listId": "b"})).await;
    let a = format!("/dav/calendars/{user}/{space}.a/");
    let b = format!("/dav/calendars/{user}/{space}.b/");
    let uid = "move-me@client";
    let name = "move-me.ics";
    let created = put(
        &app,
        &format!("{a}{name}"),
        &auth,
        &[("If-None-Match", "*")],
        &vtodo(uid, "Mover", ""),
    )
    .await;
    assert_eq!(created.status, 201);
    let id = task_named(&app, "Mover").await["todoId"]
        .as_str()
        .unwrap()
        .to_owned();
    let token_a = token_of(&sync(&app, &a, "").await);
    // PUT in b first, then DELETE in a.
    let moved = put(
        &app,
        &format!("{b}{name}"),
        &auth,
        &[("If-None-Match", "*")],
        &vtodo(uid, "Mover 2", ""),
    )
    .await;
    assert_eq!(moved.status, 201, "{moved:?}");
    let now = task(&app, &id).await;
    assert_eq!(now["listId"], "b");
    assert_eq!(now["name"], "Mover 2");
    let changes = sync(&app, &a, &token_a).await;
    assert!(
        member(&changes, name).unwrap().contains("404 Not Found"),
        "{}",
        text(&changes)
    );
    let delete = app
        .request(Method::DELETE, &format!("{a}{name}"))
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(delete, None).await.status, 404);
    assert_eq!(task(&app, &id).await["isDeleted"], false);
    // DELETE in b first, then PUT in a: the deleted task is restored there.
    let delete = app
        .request(Method::DELETE, &format!("{b}{name}"))
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(delete, None).await.status, 204);
    assert_eq!(task(&app, &id).await["isDeleted"], true);
    let back = put(
        &app,
        &format!("{a}{name}"),
        &auth,
        &[("If-None-Match", "*")],
        &vtodo(uid, "Mover 3", ""),
    )
    .await;
    assert_eq!(back.status, 201, "{back:?}");
    let now = task(&app, &id).await;
    assert_eq!(now["isDeleted"], false);
    assert_eq!(now["listId"], "a");
    assert_eq!(now["name"], "Mover 3");
    // And to the calendar of tasks without a list.
    let loose = format!("/dav/calendars/{user}/{space}/");
    let out = put(
        &app,
        &format!("{loose}{name}"),
        &auth,
        &[],
        &vtodo(uid, "Loose", ""),
    )
    .await;
    assert_eq!(out.status, 201);
    assert_eq!(task(&app, &id).await["listId"], serde_json::Value::Null);
}

#[actix_web::test]
async fn put_of_a_deleted_tasks_uid_restores_it_and_writes_show_in_sync_both_ways() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    app.create("tasks", json!({"todoId": "old", "name": "Old"}))
        .await;
    app.delete("/api/v1/tasks/old").await.expect(200);
    let token = token_of(&sync(&app, &calendar, "").await);
    let restored = put(
        &app,
        &format!("{calendar}old.ics"),
        &auth,
        &[],
        &vtodo("old", "Back", ""),
    )
    .await;
    assert_eq!(restored.status, 201, "{restored:?}");
    let now = task(&app, "old").await;
    assert_eq!(now["isDeleted"], false);
    assert_eq!(now["name"], "Back");
    let changes = sync(&app, &calendar, &token).await;
    assert!(
        member(&changes, "old.ics").unwrap().contains("<d:getetag>"),
        "{}",
        text(&changes)
    );
    // A JSON write shows at the next sync, a CalDAV write in the feed's version.
    let token = token_of(&changes);
    app.patch("/api/v1/tasks/old", json!({"name": "JSON"}))
        .await
        .expect(200);
    let changes = sync(&app, &calendar, &token).await;
    assert!(member(&changes, "old.ics").is_some(), "{}", text(&changes));
    let request = app
        .request(Method::GET, &format!("{calendar}old.ics"))
        .insert_header(("Authorization", auth.as_str()));
    assert!(text(&app.send(request, None).await).contains("SUMMARY:JSON\r\n"));
}

/// A `calendar-query` REPORT of `calendar` asking for `getetag`, with `filter` inside
/// the `VCALENDAR` `comp-filter`.
async fn query(app: &TestApp, calendar: &str, filter: &str) -> Reply {
    let body = format!(
        r#"<?xml version="1.0" encoding="utf-8" ?>
        <c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
          <d:prop><d:getetag/></d:prop>
          <c:filter><c:comp-filter name="VCALENDAR">{filter}</c:comp-filter></c:filter>
        </c:calendar-query>"#
    );
    let auth = basic(&app.default_token);
    let report = Method::from_bytes(b"REPORT").unwrap();
    let reply = dav(app, report, calendar, Some(&auth), &body).await;
    assert_eq!(reply.status, 207, "{reply:?}");
    reply
}

/// The object names a multistatus answers, sorted.
fn names(reply: &Reply) -> Vec<String> {
    let mut names: Vec<String> = text(reply)
        .split("<d:href>")
        .skip(1)
        .filter_map(|h| h.split("</d:href>").next())
        .filter_map(|h| h.rsplit('/').next())
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

#[actix_web::test]
async fn calendar_query_applies_comp_prop_text_and_time_range_filters() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    app.create(
        "tasks",
        json!({"todoId": "january", "name": "Jan", "dateDue": "2026-01-10T12:00:00.000Z"}),
    )
    .await;
    app.create(
        "tasks",
        json!({"todoId": "finished", "name": "Done", "status": "done"}),
    )
    .await;
    let uid = put(
        &app,
        &format!("{calendar}client.ics"),
        &auth,
        &[],
        &vtodo("Some-UID@host", "Client", "DTSTART:20260301T090000Z\r\n"),
    )
    .await;
    assert_eq!(uid.status, 201);
    let all = query(&app, &calendar, r#"<c:comp-filter name="VTODO"/>"#).await;
    assert_eq!(names(&all), ["client.ics", "finished.ics", "january.ics"]);
    let events = query(&app, &calendar, r#"<c:comp-filter name="VEVENT"/>"#).await;
    assert!(names(&events).is_empty(), "{}", text(&events));
    // Uncompleted tasks, as clients ask for them.
    let open = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter></c:comp-filter>"#,
    )
    .await;
    assert_eq!(names(&open), ["client.ics", "january.ics"]);
    // A filter reads an object as `GET` answers it: the client's, as sent, has no
    // `STATUS`, so a `text-match` on it does not match (RFC 4791 §9.7.5).
    let not_done = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:prop-filter name="STATUS"><c:text-match negate-condition="yes">COMPLETED</c:text-match></c:prop-filter></c:comp-filter>"#,
    )
    .await;
    assert_eq!(names(&not_done), ["january.ics"]);
    // By UID (case-insensitive by default, exact with i;octet).
    let by_uid = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:prop-filter name="UID"><c:text-match>some-uid@HOST</c:text-match></c:prop-filter></c:comp-filter>"#,
    )
    .await;
    assert_eq!(names(&by_uid), ["client.ics"]);
    let octet = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:prop-filter name="UID"><c:text-match collation="i;octet">some-uid@HOST</c:text-match></c:prop-filter></c:comp-filter>"#,
    )
    .await;
    assert!(names(&octet).is_empty());
    // Time ranges on the VTODO and on DUE / DTSTART.
    let january = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:time-range start="20260105T000000Z" end="20260115T000000Z"/></c:comp-filter>"#,
    )
    .await;
    assert_eq!(names(&january), ["january.ics"]);
    let due = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:prop-filter name="DUE"><c:time-range start="20260101T000000Z"/></c:prop-filter></c:comp-filter>"#,
    )
    .await;
    assert_eq!(names(&due), ["january.ics"]);
    let start = query(
        &app,
        &calendar,
        r#"<c:comp-filter name="VTODO"><c:prop-filter name="DTSTART"><c:time-range start="20260201T000000Z" end="20260401T000000Z"/></c:prop-filter></c:comp-filter>"#,
    )
    .await;
    assert_eq!(names(&start), ["client.ics"]);
}

#[actix_web::test]
async fn sync_collection_with_a_limit_answers_507_and_a_token_that_skips_nothing() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let calendar = format!("/dav/calendars/{user}/{space}/");
    for i in 0..5 {
        app.create("tasks", json!({"todoId": format!("t{i}")}))
            .await;
    }
    let auth = basic(&app.default_token);
    let report = Method::from_bytes(b"REPORT").unwrap();
    let limited = |token: String| {
        let body = format!(
            r#"<d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token><d:sync-level>1</d:sync-level><d:limit><d:nresults>2</d:nresults></d:limit><d:prop><d:getetag/></d:prop></d:sync-collection>"#
        );
        let (app, report, auth, path) = (&app, report.clone(), auth.clone(), calendar.clone());
        async move { dav(app, report, &path, Some(&auth), &body).await }
    };
    let mut seen = Vec::new();
    let mut token = String::new();
    for _ in 0..10 {
        let page = limited(token.clone()).await;
        assert_eq!(page.status, 207, "{page:?}");
        let got: Vec<String> = names(&page)
            .into_iter()
            .filter(|n| n.ends_with(".ics"))
            .collect();
        let cut = text(&page).contains("HTTP/1.1 507 Insufficient Storage");
        assert!(got.len() <= 2, "{}", text(&page));
        seen.extend(got);
        token = token_of(&page);
        if !cut {
            break;
        }
        assert!(text(&page).contains(&format!("<d:href>{calendar}</d:href>")));
    }
    seen.sort();
    assert_eq!(seen, ["t0.ics", "t1.ics", "t2.ics", "t3.ics", "t4.ics"]);
    assert_eq!(
        token,
        format!("urn:taskd:sync:{}", app.space_version().await)
    );
}

#[actix_web::test]
async fn a_viewer_reads_a_shared_calendar_without_write_and_its_put_is_403() {
    let app = spawn_app();
    let team = crate::spaces::new_space(app.default_user(), "team").await;
    let space = team["spaceId"].as_str().unwrap().to_owned();
    app.create(
        "tasks",
        json!({"todoId": "shared", "name": "Shared", "spaceId": space}),
    )
    .await;
    let bob = app.create_user("bob").await;
    crate::spaces::add_member(app.default_user(), &space, &bob, "viewer").await;
    let auth = basic(&bob.token);
    let calendar = format!("/dav/calendars/{}/{space}/", bob.user_id);
    let props = dav(&app, propfind(), &calendar, Some(&auth), "").await;
    assert_eq!(props.status, 207, "{props:?}");
    let privileges = text(&props)
        .split("<d:current-user-privilege-set>")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", text(&props)));
    assert!(!privileges.contains("<d:write/>"), "{privileges}");
    let versions = format!("/api/v1/tasks/shared?spaceId={space}");
    let version = app.get(&versions).await.version();
    let object = format!("{calendar}shared.ics");
    let refused = put(&app, &object, &auth, &[], &vtodo("shared", "Changed", "")).await;
    assert_eq!(refused.status, 403);
    let new = put(
        &app,
        &format!("{calendar}new.ics"),
        &auth,
        &[("If-None-Match", "*")],
        &vtodo("new", "New", ""),
    )
    .await;
    assert_eq!(new.status, 403);
    let after = app.get(&versions).await;
    assert_eq!(after.version(), version);
    assert_eq!(after.data()["name"], "Shared");
    let request = app
        .request(Method::GET, &object)
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(request, None).await.status, 200);
}

/// A `DEPENDS-ON` names an earlier object by the client's `UID`, which need not be an id:
/// the task depends on the task of that `UID`, and its object sends the `UID` back. A
/// multiget finds objects however their `href`s are percent-encoded.
#[actix_web::test]
async fn a_depends_on_a_clients_uid_names_that_task_and_multiget_decodes_hrefs() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    let first = vtodo("first@phone.example", "First", "");
    put(
        &app,
        &format!("{calendar}first%40phone.ics"),
        &auth,
        &[],
        &first,
    )
    .await
    .expect(201);
    let then = vtodo(
        "then@phone.example",
        "Then",
        "RELATED-TO;RELTYPE=DEPENDS-ON:first@phone.example\r\n",
    );
    put(&app, &format!("{calendar}then.ics"), &auth, &[], &then)
        .await
        .expect(201);
    let (first, then) = (
        task_named(&app, "First").await,
        task_named(&app, "Then").await,
    );
    assert_eq!(then["predecessorIds"], json!([first["todoId"]]), "{then}");
    let body = format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><D:getetag/><C:calendar-data/></D:prop>
  <D:href>{calendar}first@phone.ics</D:href>
  <D:href>{calendar}then.ics</D:href>
  <D:href>{calendar}missing.ics</D:href>
  <D:href>/dav/calendars/{user}/elsewhere/then.ics</D:href>
</C:calendar-multiget>"#
    );
    let reply = dav(
        &app,
        Method::from_bytes(b"REPORT").unwrap(),
        &calendar,
        Some(&auth),
        &body,
    )
    .await;
    assert_eq!(reply.status, 207, "{reply:?}");
    let xml = text(&reply);
    assert_eq!(xml.matches("200 OK").count(), 2, "{xml}");
    assert_eq!(xml.matches("404 Not Found").count(), 2, "{xml}");
    assert!(
        xml.contains("RELATED-TO;RELTYPE=DEPENDS-ON:first@phone.example"),
        "{xml}"
    );
}

#[actix_web::test]
async fn if_none_match_is_about_the_name_and_a_uid_another_object_has_is_a_uid_conflict() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    let body = vtodo("shared-uid", "First", "");
    let first = format!("{calendar}first.ics");
    let made = put(&app, &first, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(made.status, 201, "{made:?}");
    let version = app.space_version().await;
    // Another name with the same UID and If-None-Match: * (as a client saving a new
    // object sends it): nothing is at that name, so the precondition holds, and the UID
    // is refused with CALDAV:no-uid-conflict (RFC 4791 §5.3.2.1), as the
    // caldav-server-tester's save.no-uid-conflict probe expects.
    let second = format!("{calendar}second.ics");
    let conflict = put(&app, &second, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(conflict.status, 409, "{conflict:?}");
    assert!(
        text(&conflict).contains("<c:no-uid-conflict/>"),
        "{}",
        text(&conflict)
    );
    assert_eq!(app.space_version().await, version);
    // The name itself still answers 412.
    let again = put(&app, &first, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(again.status, 412);
    // A UID only a deleted task has is free under a new name with If-None-Match: it
    // restores the task there.
    let request = app
        .request(Method::DELETE, &first)
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(app.send(request, None).await.status, 204);
    let restored = put(&app, &second, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(restored.status, 201, "{restored:?}");
    assert_eq!(task_named(&app, "First").await["isDeleted"], false);
}

#[actix_web::test]
async fn a_vtodo_with_dtstart_and_duration_is_due_at_their_sum_so_it_may_recur() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let path = format!("/dav/calendars/{user}/{space}/weekly.ics");
    // The caldav-server-tester's save-load.todo.recurrences.count fixture: a weekly task
    // with DTSTART and DURATION and no DUE. A recurring task needs a dateDue (§18); RFC
    // 5545 §3.8.2.5 makes DTSTART + DURATION its due.
    let body = vtodo(
        "weekly",
        "Weekly task to be done three times",
        "DTSTART:20270118T065500Z\r\nDURATION:PT10M\r\nSTATUS:NEEDS-ACTION\r\n\
         RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\r\nCATEGORIES:CHORE\r\nPRIORITY:3\r\n",
    );
    let created = put(&app, &path, &auth, &[], &body).await;
    assert_eq!(created.status, 201, "{created:?}");
    let made = task(&app, "weekly").await;
    assert_eq!(made["dateStart"], "2027-01-18T06:55:00.000Z");
    assert_eq!(made["dateDue"], "2027-01-18T07:05:00.000Z");
    let rule = made["recurrence"].as_str().unwrap();
    assert!(rule.contains("COUNT=3"), "{rule}");
    // Read back as sent (docs §27), then, once a JSON write changed the task, rendered
    // with the same meaning: its DUE for the DURATION, the rule with its COUNT.
    let request = app
        .request(Method::GET, &path)
        .insert_header(("Authorization", auth.as_str()));
    assert_eq!(text(&app.send(request, None).await), body);
    app.patch("/api/v1/tasks/weekly", json!({"notesMarkdown": "Notes"}))
        .await
        .expect(200);
    let request = app
        .request(Method::GET, &path)
        .insert_header(("Authorization", auth.as_str()));
    let got = app.send(request, None).await;
    assert_eq!(got.status, 200, "{got:?}");
    let vtodo = text(&got);
    assert!(vtodo.contains("DESCRIPTION:Notes\r\n"), "{vtodo}");
    assert!(vtodo.contains("DTSTART:20270118T065500Z\r\n"), "{vtodo}");
    assert!(vtodo.contains("DUE:20270118T070500Z\r\n"), "{vtodo}");
    assert!(!vtodo.contains("DURATION"), "{vtodo}");
    assert!(vtodo.contains("COUNT=3"), "{vtodo}");
    assert!(vtodo.contains("CATEGORIES:CHORE\r\n"), "{vtodo}");
}

/// A `REPORT` of `body` on `calendar`.
async fn report(app: &TestApp, calendar: &str, body: &str) -> Reply {
    let auth = basic(&app.default_token);
    let request = app
        .request(Method::from_bytes(b"REPORT").unwrap(), calendar)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", auth.as_str()))
        .insert_header(("Content-Type", "application/xml"));
    let reply = app.send(request, Some(body.as_bytes().to_vec())).await;
    assert_eq!(reply.status, 207, "{reply:?}");
    reply
}

/// A `GET` of `path` as the default user.
async fn get_object(app: &TestApp, path: &str) -> Reply {
    let request = app
        .request(Method::GET, path)
        .insert_header(("Authorization", basic(&app.default_token)));
    app.send(request, None).await
}

/// The `getetag` of `href` in a multistatus `reply`, unescaped.
fn etag_of(reply: &Reply, href: &str) -> Option<String> {
    let member = member(reply, href)?;
    let start = member.find("<d:getetag>")? + "<d:getetag>".len();
    let end = start + member[start..].find("</d:getetag>")?;
    Some(member[start..end].replace("&quot;", "\""))
}

#[actix_web::test]
async fn a_puts_etag_is_the_one_get_propfind_and_every_report_give_until_a_json_write() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    let path = format!("{calendar}sent.ics");
    // Written as a client might, not as taskd would: its own PRODID, a folded line, an
    // X- property among the mapped ones, no STATUS.
    let body = "BEGIN:VCALENDAR\r\nPRODID:-//Some Client//EN\r\nVERSION:2.0\r\nBEGIN:VTODO\r\n\
                SUMMARY:Kept as sent\r\nX-CLIENT-ORDER:3\r\nUID:sent@client\r\n\
                DESCRIPTION:a line the client\r\n  folded\r\nDTSTAMP:20260101T000000Z\r\n\
                END:VTODO\r\nEND:VCALENDAR\r\n";
    let sync_from_empty = r#"<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#;
    let token = token_of(&report(&app, &calendar, sync_from_empty).await);
    let created = put(&app, &path, &auth, &[("If-None-Match", "*")], body).await;
    assert_eq!(created.status, 201, "{created:?}");
    let etag = created
        .header("etag")
        .expect("a PUT answers an ETag")
        .to_owned();
    // GET: the bytes as sent, with that ETag.
    let got = get_object(&app, &path).await;
    assert_eq!(text(&got), body);
    assert_eq!(got.header("etag"), Some(etag.as_str()));
    // PROPFIND of the object and of its calendar.
    let one = dav(&app, propfind(), &path, Some(&auth), "").await;
    assert_eq!(one.status, 207, "{one:?}");
    assert_eq!(etag_of(&one, "sent.ics").as_deref(), Some(etag.as_str()));
    let request = app
        .request(propfind(), &calendar)
        .insert_header(("Depth", "1"))
        .insert_header(("Authorization", auth.as_str()));
    let listed = app.send(request, Some(Vec::new())).await;
    assert_eq!(etag_of(&listed, "sent.ics").as_deref(), Some(etag.as_str()));
    // The three reports, calendar-data being the bytes as sent.
    let multiget = report(
        &app,
        &calendar,
        &format!(
            r#"<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop><D:href>{path}</D:href></C:calendar-multiget>"#
        ),
    )
    .await;
    assert_eq!(
        etag_of(&multiget, "sent.ics").as_deref(),
        Some(etag.as_str())
    );
    let data = text(&multiget).replace("&#13;", "\r");
    assert!(
        data.contains(&format!("<c:calendar-data>{body}</c:calendar-data>")),
        "{data}"
    );
    let queried = query(&app, &calendar, r#"<c:comp-filter name="VTODO"/>"#).await;
    assert_eq!(
        etag_of(&queried, "sent.ics").as_deref(),
        Some(etag.as_str())
    );
    let synced = sync(&app, &calendar, &token).await;
    assert_eq!(etag_of(&synced, "sent.ics").as_deref(), Some(etag.as_str()));
    // A JSON write renders the object anew, with a new ETag, keeping what it did not
    // change (the X- property, the UID as sent).
    let id = task_named(&app, "Kept as sent").await["todoId"]
        .as_str()
        .unwrap()
        .to_owned();
    app.patch(
        &format!("/api/v1/tasks/{id}"),
        json!({"name": "Renamed in JSON"}),
    )
    .await
    .expect(200);
    let got = get_object(&app, &path).await;
    let new_etag = got.header("etag").unwrap().to_owned();
    assert_ne!(new_etag, etag);
    let vtodo = text(&got);
    assert_ne!(vtodo, body);
    for line in [
        "SUMMARY:Renamed in JSON\r\n",
        "X-CLIENT-ORDER:3\r\n",
        "UID:sent@client\r\n",
        "DESCRIPTION:a line the client folded\r\n",
        "STATUS:NEEDS-ACTION\r\n",
    ] {
        assert!(vtodo.contains(line), "{line} in {vtodo}");
    }
    let one = dav(&app, propfind(), &path, Some(&auth), "").await;
    assert_eq!(
        etag_of(&one, "sent.ics").as_deref(),
        Some(new_etag.as_str())
    );
    // The ETag the client had is stale: a PUT or DELETE with it is 412 and changes nothing.
    let version = app.space_version().await;
    let stale = put(&app, &path, &auth, &[("If-Match", &etag)], body).await;
    assert_eq!(stale.status, 412, "{stale:?}");
    let request = app
        .request(Method::DELETE, &path)
        .insert_header(("Authorization", auth.as_str()))
        .insert_header(("If-Match", etag.as_str()));
    assert_eq!(app.send(request, None).await.status, 412);
    assert_eq!(app.space_version().await, version);
    // With the new one the client's next PUT is kept as sent again.
    let again = put(&app, &path, &auth, &[("If-Match", &new_etag)], body).await;
    assert_eq!(again.status, 204, "{again:?}");
    let got = get_object(&app, &path).await;
    assert_eq!(text(&got), body);
    assert_eq!(got.header("etag"), again.header("etag"));
}

#[actix_web::test]
async fn a_put_whose_write_rolls_a_repeating_task_or_is_over_64_kib_answers_no_etag() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let path = format!("/dav/calendars/{user}/{space}/daily.ics");
    let daily = |status: &str| {
        vtodo(
            "daily",
            "Daily",
            &format!("DUE:20260110T090000Z\r\nRRULE:FREQ=DAILY\r\nSTATUS:{status}\r\n"),
        )
    };
    let made = put(&app, &path, &auth, &[], &daily("NEEDS-ACTION")).await;
    assert_eq!(made.status, 201);
    assert!(made.header("etag").is_some());
    // Completing it rolls it to its next day: the task is not what the client sent.
    let done = put(&app, &path, &auth, &[], &daily("COMPLETED")).await;
    assert_eq!(done.status, 204, "{done:?}");
    assert_eq!(done.header("etag"), None);
    let got = get_object(&app, &path).await;
    assert!(
        !text(&got).contains("DUE:20260110T090000Z\r\n"),
        "{}",
        text(&got)
    );
    assert!(
        text(&got).contains("STATUS:NEEDS-ACTION\r\n"),
        "{}",
        text(&got)
    );
    // Over 64 KiB the object is kept as its meaning, as before docs §27.
    let big = vtodo(
        "big",
        "Big",
        &format!("DESCRIPTION:{}\r\n", "x".repeat(70_000)),
    );
    let big_path = format!("/dav/calendars/{user}/{space}/big.ics");
    let stored = put(&app, &big_path, &auth, &[], &big).await;
    assert_eq!(stored.status, 201, "{stored:?}");
    assert_eq!(stored.header("etag"), None);
    let got = get_object(&app, &big_path).await;
    assert_eq!(got.status, 200);
    assert_ne!(text(&got), big);
    assert!(text(&got).contains("SUMMARY:Big\r\n"));
}

#[actix_web::test]
async fn propfind_of_an_object_answers_depth_0_and_a_missing_one_is_404() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let made = app
        .create("tasks", json!({"todoId": "json", "name": "From JSON"}))
        .await;
    let path = format!("/dav/calendars/{user}/{space}/json.ics");
    let asked = r#"<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/><d:resourcetype/><d:getcontentlength/><d:displayname/></d:prop></d:propfind>"#;
    let found = dav(&app, propfind(), &path, Some(&auth), asked).await;
    assert_eq!(found.status, 207, "{found:?}");
    let answer = text(&found);
    let length = get_object(&app, &path).await;
    let etag = format!("&quot;{}&quot;", made["versionUpdatedAt"]);
    for part in [
        format!("<d:href>{path}</d:href>"),
        format!("<d:getetag>{etag}</d:getetag>"),
        "<d:getcontenttype>text/calendar; charset=utf-8; component=VTODO</d:getcontenttype>"
            .to_owned(),
        "<d:resourcetype></d:resourcetype>".to_owned(),
        format!(
            "<d:getcontentlength>{}</d:getcontentlength>",
            text(&length).len()
        ),
    ] {
        assert!(answer.contains(&part), "{part} in {answer}");
    }
    assert!(
        answer.contains("404"),
        "displayname is not an object's: {answer}"
    );
    // allprop (an empty body) answers the four it has.
    let all = dav(&app, propfind(), &path, Some(&auth), "").await;
    assert!(
        text(&all).contains("<d:getcontentlength>"),
        "{}",
        text(&all)
    );
    assert!(!text(&all).contains("404"), "{}", text(&all));
    let missing = format!("/dav/calendars/{user}/{space}/none.ics");
    assert_eq!(
        dav(&app, propfind(), &missing, Some(&auth), "")
            .await
            .status,
        404
    );
    assert_eq!(dav(&app, propfind(), &path, None, "").await.status, 401);
}

#[actix_web::test]
async fn options_lists_every_method_a_calendar_and_an_object_take_and_head_answers_get() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar = format!("/dav/calendars/{user}/{space}/");
    let options = dav(&app, Method::OPTIONS, &calendar, Some(&auth), "").await;
    assert_eq!(options.status, 200);
    assert_eq!(options.header("allow"), Some("OPTIONS, PROPFIND, REPORT"));
    assert_eq!(options.header("dav"), Some("1, 3, calendar-access"));
    app.create("tasks", json!({"todoId": "t", "name": "T"}))
        .await;
    // A missing object takes them too: a PUT creates it.
    for object in ["t.ics", "missing.ics"] {
        let options = dav(
            &app,
            Method::OPTIONS,
            &format!("{calendar}{object}"),
            None,
            "",
        )
        .await;
        assert_eq!(options.status, 200);
        assert_eq!(
            options.header("allow"),
            Some("OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND")
        );
    }
    let request = app
        .request(Method::HEAD, &format!("{calendar}t.ics"))
        .insert_header(("Authorization", auth.as_str()));
    let head = app.send(request, None).await;
    let get = get_object(&app, &format!("{calendar}t.ics")).await;
    assert_eq!(head.status, 200);
    assert_eq!(head.header("etag"), get.header("etag"));
    assert_eq!(head.body, serde_json::Value::Null);
}
