//! Subtasks (docs §22): `parentId` and its rules (`invalid_reference`, `parent_cycle`,
//! `too_deep`, `limit_reached`, `parent_deleted`), lists that follow the root, delete and
//! restore of a subtree, a repeating parent reopening its subtasks, each cascade a change
//! of its own in the write's one version, the filters and order, batches, restarts, and
//! the iCalendar doors (`RELATED-TO`).

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::dav::{basic, me, put};
use crate::helpers::{assert_invalid_fields, assert_problem, spawn_app, Reply, TestApp};

/// Every record of the feed after version `since`, as (version, id), in feed order.
async fn feed(app: &TestApp, since: u64) -> Vec<(u64, String)> {
    let reply = app
        .get(&format!("/api/v1/changes?since={since}&limit=1000"))
        .await;
    reply.expect(200);
    reply
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["record"]["versionUpdatedAt"].as_u64().unwrap(),
                c["record"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn at(version: u64, ids: &[&str]) -> Vec<(u64, String)> {
    ids.iter().map(|id| (version, id.to_string())).collect()
}

async fn task(app: &TestApp, id: &str) -> Value {
    let reply = app.get(&format!("/api/v1/tasks/{id}")).await;
    reply.expect(200);
    reply.data().clone()
}

/// Creates task `id` below `parent` (a root when `None`) with the other fields of `body`.
async fn child(app: &TestApp, id: &str, parent: Option<&str>, mut body: Value) -> Value {
    body["todoId"] = id.into();
    body["parentId"] = parent.into();
    app.create("tasks", body).await
}

/// A chain of `n` tasks `{prefix}0` (a root) <- `{prefix}1` <- ...
async fn chain(app: &TestApp, prefix: &str, n: usize) {
    for i in 0..n {
        let parent = (i > 0).then(|| format!("{prefix}{}", i - 1));
        child(app, &format!("{prefix}{i}"), parent.as_deref(), json!({})).await;
    }
}

/// The ids of a task listing at `query`, in order.
async fn listed(app: &TestApp, query: &str) -> Vec<String> {
    let reply = app.get(&format!("/api/v1/tasks?{query}")).await;
    reply.expect(200);
    reply
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["todoId"].as_str().unwrap().to_string())
        .collect()
}

#[actix_web::test]
async fn parent_id_names_an_active_task_and_never_the_task_or_its_descendants() {
    let app = spawn_app();
    let root = app.create("tasks", json!({"todoId": "root"})).await;
    assert_eq!(root["parentId"], Value::Null);
    let kid = child(&app, "kid", Some("root"), json!({})).await;
    assert_eq!(kid["parentId"], "root");
    child(&app, "grandkid", Some("kid"), json!({})).await;
    let version = app.space_version().await;

    let reply = app
        .post("/api/v1/tasks", json!({"parentId": "not an id"}))
        .await;
    assert_invalid_fields(&reply, &["parentId"]);
    let reply = app.post("/api/v1/tasks", json!({"parentId": 7})).await;
    assert_invalid_fields(&reply, &["parentId"]);
    let reply = app
        .post("/api/v1/tasks", json!({"parentId": "missing"}))
        .await;
    assert_problem(&reply, 422, "invalid_reference");
    let reply = app
        .post("/api/v1/tasks", json!({"todoId": "me", "parentId": "me"}))
        .await;
    assert_problem(&reply, 422, "parent_cycle");
    for parent in ["root", "kid", "grandkid"] {
        let reply = app
            .patch("/api/v1/tasks/root", json!({ "parentId": parent }))
            .await;
        assert_problem(&reply, 422, "parent_cycle");
    }
    let reply = app
        .patch("/api/v1/tasks/kid", json!({"parentId": "grandkid"}))
        .await;
    assert_problem(&reply, 422, "parent_cycle");
    app.create("tasks", json!({"todoId": "gone"})).await;
    app.delete("/api/v1/tasks/gone").await.expect(200);
    let version = version + 2;
    for reply in [
        app.post("/api/v1/tasks", json!({"parentId": "gone"})).await,
        app.patch("/api/v1/tasks/kid", json!({"parentId": "gone"}))
            .await,
    ] {
        assert_problem(&reply, 422, "invalid_reference");
    }
    assert_eq!(
        app.space_version().await,
        version,
        "refusals change nothing"
    );
    assert_eq!(task(&app, "root").await["parentId"], Value::Null);

    // Moving and clearing are plain updates; a parent may depend on its child.
    let moved = app
        .patch("/api/v1/tasks/grandkid", json!({"parentId": "root"}))
        .await;
    assert_eq!(moved.expect(200).data()["parentId"], "root");
    let cleared = app
        .patch("/api/v1/tasks/grandkid", json!({"parentId": null}))
        .await;
    assert_eq!(cleared.expect(200).data()["parentId"], Value::Null);
    app.patch("/api/v1/tasks/root", json!({"predecessorIds": ["kid"]}))
        .await
        .expect(200);
}

#[actix_web::test]
async fn a_chain_is_at_most_eight_tasks_long_counted_over_a_moved_subtree() {
    let app = spawn_app();
    chain(&app, "a", 8).await;
    let reply = app.post("/api/v1/tasks", json!({"parentId": "a7"})).await;
    assert_problem(&reply, 422, "too_deep");
    // b0 <- b1 <- b2 is three levels: below a4 (the fifth) it fits, below a5 it does not.
    chain(&app, "b", 3).await;
    let version = app.space_version().await;
    let reply = app
        .patch("/api/v1/tasks/b0", json!({"parentId": "a5"}))
        .await;
    assert_problem(&reply, 422, "too_deep");
    assert_eq!(app.space_version().await, version);
    app.patch("/api/v1/tasks/b0", json!({"parentId": "a4"}))
        .await
        .expect(200);
    app.patch("/api/v1/tasks/b0", json!({"parentId": null}))
        .await
        .expect(200);
    // Moving the top of the chain deeper is checked through the whole subtree.
    app.create("tasks", json!({"todoId": "top"})).await;
    let reply = app
        .patch("/api/v1/tasks/a0", json!({"parentId": "top"}))
        .await;
    assert_problem(&reply, 422, "too_deep");
    // Deleted tasks do not count.
    app.delete("/api/v1/tasks/a7").await.expect(200);
    app.patch("/api/v1/tasks/a0", json!({"parentId": "top"}))
        .await
        .expect(200);
    // Restoring a7 now would make a chain of nine.
    let reply = app.default_user().restore("/api/v1/tasks/a7").await;
    assert_problem(&reply, 422, "too_deep");
}

#[actix_web::test]
async fn a_task_has_at_most_a_thousand_children_that_are_not_deleted() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "p"})).await;
    for batch in 0..10 {
        let operations: Vec<Value> = (0..100)
            .map(|i| {
                json!({"method": "POST", "path": "/api/v1/tasks",
                       "body": {"todoId": format!("c{}", batch * 100 + i), "parentId": "p"}})
            })
            .collect();
        app.post("/api/v1/batch", json!({ "operations": operations }))
            .await
            .expect(200);
    }
    let reply = app.post("/api/v1/tasks", json!({"parentId": "p"})).await;
    assert_problem(&reply, 409, "limit_reached");
    app.create("tasks", json!({"todoId": "other"})).await;
    let reply = app
        .patch("/api/v1/tasks/other", json!({"parentId": "p"}))
        .await;
    assert_problem(&reply, 409, "limit_reached");
    // A batch counts the children after its operations before it.
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "DELETE", "path": "/api/v1/tasks/c0"},
                {"method": "PATCH", "path": "/api/v1/tasks/other", "body": {"parentId": "p"}},
                {"method": "POST", "path": "/api/v1/tasks/c0/restore"},
            ]}),
        )
        .await;
    assert_problem(&reply, 409, "limit_reached");
    assert_eq!(reply.body["operationIndex"], 2);
    assert!(!task(&app, "c0").await["isDeleted"].as_bool().unwrap());
    app.delete("/api/v1/tasks/c0").await.expect(200);
    app.patch("/api/v1/tasks/other", json!({"parentId": "p"}))
        .await
        .expect(200);
    let reply = app.default_user().restore("/api/v1/tasks/c0").await;
    assert_problem(&reply, 409, "limit_reached");
}

#[actix_web::test]
async fn a_new_child_takes_its_parents_list_and_lists_follow_the_root_deleted_ones_too() {
    let app = spawn_app();
    for list in ["home", "work", "misc"] {
        app.create("lists", json!({ "listId": list })).await;
    }
    app.create("tasks", json!({"todoId": "r", "listId": "home"}))
        .await;
    let a = child(&app, "a", Some("r"), json!({})).await;
    assert_eq!(a["listId"], "home");
    let none = child(&app, "none", Some("r"), json!({"listId": null})).await;
    assert_eq!(none["listId"], Value::Null, "a null listId names no list");
    child(&app, "b", Some("a"), json!({})).await;
    child(&app, "elsewhere", Some("a"), json!({"listId": "misc"})).await;
    child(&app, "gone", Some("b"), json!({})).await;
    app.delete("/api/v1/tasks/gone").await.expect(200);
    // Setting the parent alone changes no list.
    app.create("tasks", json!({"todoId": "x", "listId": "misc"}))
        .await;
    let x = app.patch("/api/v1/tasks/x", json!({"parentId": "a"})).await;
    assert_eq!(x.expect(200).data()["listId"], "misc");

    let version = app.space_version().await;
    let etag = app
        .get("/api/v1/tasks/gone")
        .await
        .header("etag")
        .unwrap()
        .to_string();
    let moved = app
        .patch("/api/v1/tasks/r", json!({"listId": "work"}))
        .await;
    assert_eq!(moved.expect(200).version(), version + 1);
    assert_eq!(
        feed(&app, version).await,
        at(version + 1, &["a", "b", "gone", "r"])
    );
    for id in ["a", "b", "gone"] {
        let t = task(&app, id).await;
        assert_eq!(t["listId"], "work", "{id}");
        assert_eq!(t["versionUpdatedAt"], version + 1);
    }
    for id in ["none", "elsewhere", "x"] {
        assert_ne!(task(&app, id).await["listId"], "work", "{id}");
    }
    let now = app.get("/api/v1/tasks/gone").await;
    assert_ne!(now.header("etag").unwrap(), etag);

    // A batch operation moves the subtree of the task it names too.
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "PATCH", "path": "/api/v1/tasks/a", "body": {"listId": "home"}},
            ]}),
        )
        .await;
    reply.expect(200);
    assert_eq!(task(&app, "b").await["listId"], "home");
    assert_eq!(task(&app, "r").await["listId"], "work");
}

#[actix_web::test]
async fn delete_takes_the_subtree_and_restore_brings_back_what_that_write_deleted() {
    let app = spawn_app();
    chain(&app, "t", 3).await;
    child(&app, "early", Some("t1"), json!({})).await;
    app.delete("/api/v1/tasks/early").await.expect(200);
    let version = app.space_version().await;
    let deleted = app.delete("/api/v1/tasks/t0").await;
    assert_eq!(deleted.expect(200).version(), version + 1);
    assert_eq!(
        feed(&app, version).await,
        at(version + 1, &["t0", "t1", "t2"])
    );
    let deleted_at = deleted.data()["deletedAt"].clone();
    for id in ["t1", "t2"] {
        let t = task(&app, id).await;
        assert_eq!(t["isDeleted"], true);
        assert_eq!(t["deletedAt"], deleted_at);
    }
    let listed = app.get("/api/v1/tasks").await;
    assert_eq!(listed.data().as_array().unwrap().len(), 0);

    let reply = app.default_user().restore("/api/v1/tasks/t1").await;
    assert_problem(&reply, 409, "parent_deleted");
    assert_eq!(app.space_version().await, version + 1);
    let restored = app.default_user().restore("/api/v1/tasks/t0").await;
    restored.expect(200);
    assert_eq!(
        feed(&app, version + 1).await,
        at(version + 2, &["t0", "t1", "t2"])
    );
    assert_eq!(task(&app, "early").await["isDeleted"], true);

    // A repeated DELETE of a deleted root touches only it.
    app.delete("/api/v1/tasks/t2").await.expect(200);
    app.delete("/api/v1/tasks/t2").await.expect(200);
    assert_eq!(feed(&app, version + 3).await, at(version + 4, &["t2"]));
}

#[actix_web::test]
async fn a_repeating_parent_reopens_its_finished_subtasks_when_it_rolls() {
    let app = spawn_app();
    app.create(
        "tasks",
        json!({"todoId": "weekly", "dateDue": "2030-01-07T09:00:00Z",
               "recurrence": "FREQ=WEEKLY;COUNT=2"}),
    )
    .await;
    child(&app, "a", Some("weekly"), json!({"status": "done"})).await;
    child(&app, "b", Some("a"), json!({"status": "Completed"})).await;
    child(&app, "open", Some("weekly"), json!({"status": "doing"})).await;
    child(&app, "gone", Some("weekly"), json!({"status": "done"})).await;
    app.delete("/api/v1/tasks/gone").await.expect(200);
    app.create("tasks", json!({"todoId": "waits", "predecessorIds": ["b"]}))
        .await;
    assert_eq!(task(&app, "waits").await["isBlocked"], false);

    let version = app.space_version().await;
    let rolled = app
        .patch("/api/v1/tasks/weekly", json!({"status": "done"}))
        .await;
    assert_eq!(
        rolled.expect(200).data()["dateDue"],
        "2030-01-14T09:00:00.000Z"
    );
    assert_eq!(
        feed(&app, version).await,
        at(version + 1, &["a", "b", "waits", "weekly"])
    );
    for id in ["a", "b"] {
        let t = task(&app, id).await;
        assert_eq!(t["status"], Value::Null, "{id}");
        assert_eq!(t["completedAt"], Value::Null, "{id}");
    }
    assert_eq!(task(&app, "waits").await["isBlocked"], true);
    assert_eq!(task(&app, "open").await["status"], "doing");
    assert_eq!(task(&app, "gone").await["status"], "done");

    // The completion that ends the series is no roll: the subtasks stay as they are.
    app.patch("/api/v1/tasks/a", json!({"status": "done"}))
        .await
        .expect(200);
    let version = app.space_version().await;
    let ended = app
        .patch("/api/v1/tasks/weekly", json!({"status": "done"}))
        .await;
    assert_eq!(ended.expect(200).data()["status"], "done");
    assert_eq!(feed(&app, version).await, at(version + 1, &["weekly"]));
    assert_eq!(task(&app, "a").await["status"], "done");
}

#[actix_web::test]
async fn parent_id_filters_orders_and_is_a_string_of_the_filter_language() {
    let app = spawn_app();
    chain(&app, "t", 2).await;
    child(&app, "s", Some("t0"), json!({})).await;
    app.create("tasks", json!({"todoId": "lone"})).await;
    assert_eq!(listed(&app, "parentId=t0").await, ["t1", "s"]);
    assert_eq!(listed(&app, "parentId=").await, ["t0", "lone"]);
    assert_eq!(listed(&app, "parentId=nobody").await, Vec::<String>::new());
    let reply = app.get("/api/v1/tasks?parentId=not%20an%20id").await;
    assert_problem(&reply, 400, "invalid_parameter");
    assert_eq!(
        listed(&app, "filter=parentId%20%3D%20%22t0%22").await,
        ["t1", "s"]
    );
    assert_eq!(
        listed(&app, "filter=parentId%20%3D%20null").await,
        ["t0", "lone"]
    );
    assert_eq!(
        listed(&app, "filter=parentId%20in%20(%22t0%22%2C%22t1%22)").await,
        ["t1", "s"]
    );
    // Ties go by todoId; nulls (the roots) come last.
    assert_eq!(
        listed(&app, "orderBy=parentId").await,
        ["s", "t1", "lone", "t0"]
    );
    assert_eq!(
        listed(&app, "orderBy=-parentId,sortOrder").await,
        ["t1", "s", "t0", "lone"]
    );
    // A cursor belongs to its parentId filter.
    let page = app.get("/api/v1/tasks?parentId=t0&limit=1").await;
    let cursor = page.body["nextCursor"].as_str().unwrap().to_string();
    let reply = app
        .get(&format!("/api/v1/tasks?parentId=&limit=1&cursor={cursor}"))
        .await;
    assert_problem(&reply, 400, "invalid_cursor");
}

#[actix_web::test]
async fn a_batch_builds_a_tree_in_order_and_a_refused_operation_undoes_it_all() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "home"})).await;
    let version = app.space_version().await;
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "r", "listId": "home"}},
                {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "c", "parentId": "r"}},
                {"method": "PATCH", "path": "/api/v1/tasks/r", "body": {"parentId": "c"}},
            ]}),
        )
        .await;
    assert_problem(&reply, 422, "parent_cycle");
    assert_eq!(reply.body["operationIndex"], 2);
    assert_eq!(app.space_version().await, version);
    let reply = app
        .post(
            "/api/v1/batch",
            json!({"operations": [
                {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "r", "listId": "home"}},
                {"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": "c", "parentId": "r"}},
                {"method": "DELETE", "path": "/api/v1/tasks/r"},
            ]}),
        )
        .await;
    reply.expect(200);
    assert_eq!(reply.body["results"][1]["data"]["listId"], "home");
    assert_eq!(
        feed(&app, version).await,
        at(version + 3, &["c", "r"]),
        "the delete's cascade is at the delete's version"
    );
}

#[actix_web::test]
async fn trees_survive_a_restart_and_a_kill_and_keep_their_rules() {
    let app = spawn_app();
    chain(&app, "t", 7).await;
    app.create("tasks", json!({"todoId": "p"})).await;
    let before = app.default_user().list_all("/api/v1/tasks", 100).await;
    let app = app.restart();
    assert_eq!(
        app.default_user().list_all("/api/v1/tasks", 100).await,
        before
    );
    // The index of children came back: the depth and the cycle are still refused.
    let reply = app
        .post("/api/v1/tasks", json!({"todoId": "deep", "parentId": "t6"}))
        .await;
    reply.expect(201);
    let reply = app.post("/api/v1/tasks", json!({"parentId": "deep"})).await;
    assert_problem(&reply, 422, "too_deep");
    app.delete("/api/v1/tasks/t3").await.expect(200);

    let mut app = app;
    app.crash();
    let app = app.restart_after_stop();
    assert_eq!(task(&app, "deep").await["isDeleted"], true);
    let reply = app
        .patch("/api/v1/tasks/t0", json!({"parentId": "t2"}))
        .await;
    assert_problem(&reply, 422, "parent_cycle");
    let restored = app.default_user().restore("/api/v1/tasks/t3").await;
    restored.expect(200);
    assert_eq!(task(&app, "deep").await["isDeleted"], false);
}

/// `POST /api/v1/calendar.ics` of `body`.
async fn import(app: &TestApp, body: &str) -> Reply {
    let request = app
        .authorized(Method::POST, "/api/v1/calendar.ics")
        .insert_header(("Content-Type", "text/calendar"));
    app.send(request, Some(body.as_bytes().to_vec())).await
}

/// One VCALENDAR of VTODOs, each `(UID, more lines)`.
fn calendar(todos: &[(&str, &str)]) -> String {
    let mut text = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n");
    for (uid, lines) in todos {
        text.push_str(&format!(
            "BEGIN:VTODO\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\n{lines}END:VTODO\r\n"
        ));
    }
    text + "END:VCALENDAR\r\n"
}

/// The body of `GET /api/v1/calendar.ics`, unfolded.
async fn exported(app: &TestApp) -> String {
    let reply = app.get("/api/v1/calendar.ics").await;
    reply.expect(200);
    reply.body.as_str().unwrap().replace("\r\n ", "")
}

#[actix_web::test]
async fn an_ics_import_links_parents_in_any_order_and_keeps_the_other_relations() {
    let app = spawn_app();
    let body = calendar(&[
        (
            "kid",
            "RELATED-TO;RELTYPE=PARENT:root\r\nRELATED-TO;RELTYPE=PARENT:other@x\r\n\
             RELATED-TO;RELTYPE=SIBLING:sib@x\r\n",
        ),
        ("root", "RELATED-TO;RELTYPE=CHILD:kid\r\n"),
        ("bare", "RELATED-TO:root\r\n"),
        ("orphan", "RELATED-TO;RELTYPE=PARENT:later@x\r\n"),
    ]);
    let reply = import(&app, &body).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(task(&app, "kid").await["parentId"], "root");
    assert_eq!(task(&app, "bare").await["parentId"], "root");
    assert_eq!(task(&app, "root").await["parentId"], Value::Null);
    assert_eq!(task(&app, "orphan").await["parentId"], Value::Null);
    let text = exported(&app).await;
    for line in [
        "RELATED-TO;RELTYPE=PARENT:root\r\n",
        "RELATED-TO;RELTYPE=PARENT:other@x\r\n",
        "RELATED-TO;RELTYPE=SIBLING:sib@x\r\n",
        "RELATED-TO;RELTYPE=CHILD:kid\r\n",
        "RELATED-TO;RELTYPE=PARENT:later@x\r\n",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
    // A JSON write of parentId replaces the link the object shows.
    app.patch("/api/v1/tasks/bare", json!({"parentId": "kid"}))
        .await
        .expect(200);
    assert!(exported(&app)
        .await
        .contains("RELATED-TO;RELTYPE=PARENT:kid\r\n"));

    // An import that breaks a rule answers the JSON error and changes nothing.
    let version = app.space_version().await;
    let reply = import(
        &app,
        &calendar(&[("new", ""), ("root", "RELATED-TO;RELTYPE=PARENT:root\r\n")]),
    )
    .await;
    assert_problem(&reply, 422, "parent_cycle");
    assert_eq!(app.space_version().await, version);
}

#[actix_web::test]
async fn a_caldav_put_sets_the_parent_and_one_breaking_a_rule_is_403_with_the_code() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let calendar_path = format!("/dav/calendars/{user}/{space}/");
    app.create("tasks", json!({"todoId": "root", "name": "Root"}))
        .await;
    let body = calendar(&[("kid@phone", "SUMMARY:Kid\r\nRELATED-TO:root\r\n")]);
    let path = format!("{calendar_path}kid.ics");
    let created = put(&app, &path, &auth, &[("If-None-Match", "*")], &body).await;
    assert_eq!(created.status, 201, "{created:?}");
    let kid = app.get("/api/v1/tasks?parentId=root").await;
    let kid = kid.data()[0].clone();
    assert_eq!(kid["name"], "Kid");
    let get = || {
        app.request(Method::GET, &path)
            .insert_header(("Authorization", auth.as_str()))
    };
    // The object is what the client sent (docs §27) until another write changes the task;
    // then it is rendered anew, with the parent link as a PARENT relation.
    let got = app.send(get(), None).await;
    assert_eq!(got.body.as_str(), Some(body.as_str()));
    let kid_id = kid["todoId"].as_str().unwrap();
    app.patch(&format!("/api/v1/tasks/{kid_id}"), json!({"name": "Kid 2"}))
        .await
        .expect(200);
    let got = app.send(get(), None).await;
    assert!(
        got.body
            .as_str()
            .unwrap()
            .contains("RELATED-TO;RELTYPE=PARENT:root\r\n"),
        "{:?}",
        got.body
    );

    // The root named below its own child: a cycle, refused with the JSON code.
    let version = app.space_version().await;
    let body = calendar(&[(
        "root",
        "SUMMARY:Root\r\nRELATED-TO;RELTYPE=PARENT:kid@phone\r\n",
    )]);
    let refused = put(&app, &format!("{calendar_path}root.ics"), &auth, &[], &body).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(refused.body["code"], "parent_cycle", "{:?}", refused.body);
    let own = calendar(&[("self@x", "RELATED-TO:self@x\r\n")]);
    let refused = put(&app, &format!("{calendar_path}self.ics"), &auth, &[], &own).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(refused.body["code"], "parent_cycle", "{:?}", refused.body);
    assert_eq!(
        app.space_version().await,
        version,
        "refused PUTs change nothing"
    );

    // A PUT into another calendar moves the root; its subtree follows.
    app.create("lists", json!({"listId": "trips"})).await;
    let body = calendar(&[("root", "SUMMARY:Root\r\n")]);
    let moved = put(
        &app,
        &format!("/dav/calendars/{user}/{space}.trips/root.ics"),
        &auth,
        &[],
        &body,
    )
    .await;
    assert_eq!(moved.status, 201, "{moved:?}");
    let kid = task(&app, kid["todoId"].as_str().unwrap()).await;
    assert_eq!(kid["listId"], "trips");
}

/// The one task (deleted ones too) whose `name` is `name`.
async fn named(app: &TestApp, name: &str) -> Value {
    let all = app
        .default_user()
        .list_all("/api/v1/tasks?includeDeleted=true", 100)
        .await;
    all.into_iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no task named {name}"))
}

/// How many parent `RELATED-TO` lines (`RELTYPE=PARENT` or none) `object` has, unfolded.
fn parent_lines(object: &str) -> usize {
    object
        .replace("\r\n ", "")
        .lines()
        .filter(|l| l.starts_with("RELATED-TO:") || l.starts_with("RELATED-TO;RELTYPE=PARENT:"))
        .count()
}

#[actix_web::test]
async fn a_child_put_before_its_parent_links_in_the_write_that_brings_the_parent() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let home = format!("/dav/calendars/{user}/{space}/");
    let get = |name: &str| {
        app.request(Method::GET, &format!("{home}{name}"))
            .insert_header(("Authorization", auth.as_str()))
    };
    // vdirsyncer's order: the children first, one with RELTYPE=PARENT, one without.
    let kid = calendar(&[(
        "kid@phone",
        "SUMMARY:Kid\r\nRELATED-TO;RELTYPE=PARENT:mom@phone\r\n",
    )]);
    let bare = calendar(&[("bare@phone", "SUMMARY:Bare\r\nRELATED-TO:mom@phone\r\n")]);
    for (name, body) in [("kid.ics", &kid), ("bare.ics", &bare)] {
        let reply = put(&app, &format!("{home}{name}"), &auth, &[], body).await;
        assert_eq!(reply.status, 201, "{reply:?}");
    }
    assert_eq!(named(&app, "Kid").await["parentId"], Value::Null);
    let before = app.send(get("kid.ics"), None).await;
    assert_eq!(before.body.as_str(), Some(kid.as_str()), "kept as sent");
    let version = app.space_version().await;

    let mom = calendar(&[("mom@phone", "SUMMARY:Mom\r\n")]);
    let reply = put(&app, &format!("{home}mom.ics"), &auth, &[], &mom).await;
    assert_eq!(reply.status, 201, "{reply:?}");
    let mom_id = named(&app, "Mom").await["todoId"].clone();
    let (kid, bare) = (named(&app, "Kid").await, named(&app, "Bare").await);
    assert_eq!(kid["parentId"], mom_id);
    assert_eq!(bare["parentId"], mom_id);
    // One write, one version: the parent and each linked child a change of its own.
    assert_eq!(app.space_version().await, version + 1);
    let mut changed = feed(&app, version).await;
    changed.sort();
    let mut expected = vec![
        (version + 1, mom_id.as_str().unwrap().to_string()),
        (version + 1, kid["todoId"].as_str().unwrap().to_string()),
        (version + 1, bare["todoId"].as_str().unwrap().to_string()),
    ];
    expected.sort();
    assert_eq!(changed, expected);
    // CalDAV sees the link: a new ETag, and the object rendered anew with one parent.
    let after = app.send(get("kid.ics"), None).await;
    assert_eq!(after.status, 200);
    assert_ne!(after.header("ETag"), before.header("ETag"));
    let text = after.body.as_str().unwrap();
    assert_eq!(parent_lines(text), 1, "{text}");
    assert!(
        text.contains("RELATED-TO;RELTYPE=PARENT:mom@phone\r\n"),
        "{text}"
    );
    assert!(app
        .send(get("bare.ics"), None)
        .await
        .body
        .as_str()
        .unwrap()
        .contains("RELATED-TO;RELTYPE=PARENT:mom@phone\r\n"));

    // A JSON create that yields the UID brings the parent too; so does it after a
    // restart, whose index of waiting tasks is rebuilt from the records.
    let late = calendar(&[("late@phone", "SUMMARY:Late\r\nRELATED-TO:json-root\r\n")]);
    let reply = put(&app, &format!("{home}late.ics"), &auth, &[], &late).await;
    assert_eq!(reply.status, 201, "{reply:?}");
    let app = app.restart();
    assert_eq!(named(&app, "Kid").await["parentId"], mom_id, "replayed");
    app.create("tasks", json!({"todoId": "json-root", "name": "Root"}))
        .await;
    assert_eq!(named(&app, "Late").await["parentId"], "json-root");
    let app = app.restart();
    assert_eq!(named(&app, "Late").await["parentId"], "json-root");
    assert_eq!(named(&app, "Bare").await["parentId"], mom_id);
}

#[actix_web::test]
async fn an_ics_import_links_a_child_imported_before_its_parent_by_an_earlier_import() {
    let app = spawn_app();
    let first = calendar(&[
        (
            "orphan",
            "SUMMARY:Orphan\r\nRELATED-TO;RELTYPE=PARENT:later@x\r\n",
        ),
        ("other", "SUMMARY:Other\r\n"),
    ]);
    import(&app, &first).await.expect(200);
    assert_eq!(task(&app, "orphan").await["parentId"], Value::Null);
    let version = app.space_version().await;
    let second = calendar(&[("later@x", "SUMMARY:Later\r\n")]);
    let reply = import(&app, &second).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let later = named(&app, "Later").await;
    assert_eq!(task(&app, "orphan").await["parentId"], later["todoId"]);
    assert_eq!(app.space_version().await, version + 1);
    let changed: Vec<String> = feed(&app, version).await.into_iter().map(|c| c.1).collect();
    assert_eq!(changed.len(), 2);
    assert!(changed.contains(&"orphan".to_string()), "{changed:?}");
    let text = exported(&app).await;
    let orphan = text
        .split("BEGIN:VTODO")
        .find(|t| t.contains("UID:orphan\r\n"))
        .unwrap();
    assert_eq!(parent_lines(orphan), 1, "{orphan}");
    assert!(orphan.contains("RELATED-TO;RELTYPE=PARENT:later@x\r\n"));
}

#[actix_web::test]
async fn a_late_link_that_would_break_a_rule_leaves_the_child_a_root_that_keeps_its_relation() {
    let app = spawn_app();
    chain(&app, "t", 7).await;
    // Two levels waiting for deep@x, which arrives as the 8th task of the chain.
    import(
        &app,
        &calendar(&[("tall", "RELATED-TO;RELTYPE=PARENT:deep@x\r\n")]),
    )
    .await
    .expect(200);
    child(&app, "tall-kid", Some("tall"), json!({})).await;
    // One waiting for cyc@x, which arrives below it.
    import(
        &app,
        &calendar(&[("top", "RELATED-TO;RELTYPE=PARENT:cyc@x\r\n")]),
    )
    .await
    .expect(200);
    let body = calendar(&[
        ("deep@x", "SUMMARY:Deep\r\nRELATED-TO;RELTYPE=PARENT:t6\r\n"),
        ("cyc@x", "SUMMARY:Cyc\r\nRELATED-TO;RELTYPE=PARENT:top\r\n"),
    ]);
    let reply = import(&app, &body).await;
    assert_eq!(reply.status, 200, "the parents arrive: {:#}", reply.body);
    assert_eq!(named(&app, "Deep").await["parentId"], "t6");
    assert_eq!(named(&app, "Cyc").await["parentId"], "top");
    assert_eq!(
        task(&app, "tall").await["parentId"],
        Value::Null,
        "too deep"
    );
    assert_eq!(task(&app, "top").await["parentId"], Value::Null, "a cycle");
    let text = exported(&app).await;
    for (uid, parent) in [("tall", "deep@x"), ("top", "cyc@x")] {
        let object = text
            .split("BEGIN:VTODO")
            .find(|t| t.contains(&format!("UID:{uid}\r\n")))
            .unwrap();
        assert!(
            object.contains(&format!("RELATED-TO;RELTYPE=PARENT:{parent}\r\n")),
            "kept as sent: {object}"
        );
    }
    // A JSON write links it where it fits, and the object shows that parent alone.
    app.patch("/api/v1/tasks/tall", json!({"parentId": "t5"}))
        .await
        .expect(200);
    let text = exported(&app).await;
    let tall = text
        .split("BEGIN:VTODO")
        .find(|t| t.contains("UID:tall\r\n"))
        .unwrap();
    assert_eq!(parent_lines(tall), 1, "{tall}");
    assert!(tall.contains("RELATED-TO;RELTYPE=PARENT:t5\r\n"), "{tall}");
}

#[actix_web::test]
async fn a_json_parent_id_replaces_a_waiting_parent_relation_in_the_object() {
    let app = spawn_app();
    let (user, space) = me(&app).await;
    let auth = basic(&app.default_token);
    let home = format!("/dav/calendars/{user}/{space}/");
    app.create("tasks", json!({"todoId": "real", "name": "Real"}))
        .await;
    let get = |name: &str| {
        app.request(Method::GET, &format!("{home}{name}"))
            .insert_header(("Authorization", auth.as_str()))
    };
    // One kept as a CalDAV client sent it, one imported.
    let sent = calendar(&[(
        "sent@phone",
        "SUMMARY:Sent\r\nRELATED-TO;RELTYPE=PARENT:ghost@phone\r\nX-KEEP:1\r\n",
    )]);
    let reply = put(&app, &format!("{home}sent.ics"), &auth, &[], &sent).await;
    assert_eq!(reply.status, 201, "{reply:?}");
    import(
        &app,
        &calendar(&[("imported", "RELATED-TO:ghost@phone\r\nX-KEEP:2\r\n")]),
    )
    .await
    .expect(200);
    // Another JSON write keeps the waiting relation in the object rendered anew.
    let sent_id = named(&app, "Sent").await["todoId"].clone();
    let sent_path = format!("/api/v1/tasks/{}", sent_id.as_str().unwrap());
    app.patch(&sent_path, json!({"notesMarkdown": "n"}))
        .await
        .expect(200);
    let text = app.send(get("sent.ics"), None).await.body;
    let text = text.as_str().unwrap();
    assert!(
        text.contains("RELATED-TO;RELTYPE=PARENT:ghost@phone\r\n"),
        "{text}"
    );
    assert!(text.contains("X-KEEP:1\r\n"), "{text}");

    app.patch(&sent_path, json!({"parentId": "real"}))
        .await
        .expect(200);
    app.patch("/api/v1/tasks/imported", json!({"parentId": "real"}))
        .await
        .expect(200);
    let text = app.send(get("sent.ics"), None).await.body;
    let text = text.as_str().unwrap();
    assert_eq!(parent_lines(text), 1, "{text}");
    assert!(
        text.contains("RELATED-TO;RELTYPE=PARENT:real\r\n"),
        "{text}"
    );
    assert!(text.contains("X-KEEP:1\r\n"), "{text}");
    let exported = exported(&app).await;
    let imported = exported
        .split("BEGIN:VTODO")
        .find(|t| t.contains("UID:imported\r\n"))
        .unwrap();
    assert_eq!(parent_lines(imported), 1, "{imported}");
    assert!(imported.contains("RELATED-TO;RELTYPE=PARENT:real\r\n"));
    assert!(imported.contains("X-KEEP:2\r\n"));

    // They wait no more: the ghost arriving links neither.
    let ghost = calendar(&[("ghost@phone", "SUMMARY:Ghost\r\n")]);
    let reply = put(&app, &format!("{home}ghost.ics"), &auth, &[], &ghost).await;
    assert_eq!(reply.status, 201, "{reply:?}");
    assert_eq!(task(&app, "imported").await["parentId"], "real");
    assert_eq!(named(&app, "Sent").await["parentId"], "real");
}
