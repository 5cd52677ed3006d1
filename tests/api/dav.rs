//! CalDAV (CONTRACT §20) over HTTP, as far as it is built: discovery from
//! `/.well-known/caldav`, Basic authentication with a token, `OPTIONS` and `PROPFIND` of
//! the root, the principal and the calendar home with its calendars.

use actix_web::http::Method;
use base64::Engine;
use serde_json::json;

use crate::helpers::{spawn_app, Reply, TestApp};

fn propfind() -> Method {
    Method::from_bytes(b"PROPFIND").unwrap()
}

/// `Authorization: Basic` with any user name and `token` as the password.
fn basic(token: &str) -> String {
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
    let me = app.get("/api/v1/me").await;
    let user = me.data()["userId"].as_str().unwrap().to_owned();
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_owned();
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
    let me = app.get("/api/v1/me").await;
    let user = me.data()["userId"].as_str().unwrap().to_owned();
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_owned();
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
    assert_eq!(put.status, 405);
    assert_eq!(put.header("allow"), Some("OPTIONS, GET, DELETE"));
}

#[actix_web::test]
async fn a_multiget_answers_the_objects_named_and_a_query_every_object() {
    let app = spawn_app();
    let me = app.get("/api/v1/me").await;
    let user = me.data()["userId"].as_str().unwrap().to_owned();
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_owned();
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
    let me = app.get("/api/v1/me").await;
    let user = me.data()["userId"].as_str().unwrap().to_owned();
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_owned();
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
    let me = app.get("/api/v1/me").await;
    let user = me.data()["userId"].as_str().unwrap().to_owned();
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_owned();
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
