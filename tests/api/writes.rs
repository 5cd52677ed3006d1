//! Writes and the space version: what each write adds, what a failed one leaves alone,
//! PATCH semantics, soft delete and restore (docs §4, §5).

use std::time::Duration;

use actix_web::http::Method;
use serde_json::{json, Map, Value};

use crate::helpers::{
    assert_invalid_fields, assert_problem, default_fields, id_of, millis, spawn_app, Reply,
    TestApp, KINDS,
};

/// A value for every updatable field of `collection` other than the defaults, with no
/// references (so it is valid in any space).
fn non_default_fields(collection: &str) -> Map<String, Value> {
    let value = match collection {
        "tasks" => json!({
            "name": "n", "notesMarkdown": "# notes", "status": "open", "complexity": "hard",
            "goalId": "g1", "tagIds": ["t1", "t2"],
            "dateDue": "2030-01-02T03:04:05.678Z", "dateStart": "2030-01-01T00:00:00.000Z",
            "durationEstimate": 12.5, "durationMs": 60000,
            "isImportant": true, "isTimeSensitive": true,
            "TodoPredecessorsAllAny": "ANY", "TodoPredecessorsView": true,
            "timeZone": "Europe/Paris", "recurrence": "FREQ=WEEKLY", "recurFrom": "completion",
            "reminders": [{"minutesBefore": 30}, {"at": "2030-01-01T00:00:00.000Z"}],
        }),
        "lists" => json!({
            "name": "n", "color": "#ff0000", "emoji": "📋", "icon": "list",
            "isDefault": true, "keyboardShortcut": "ctrl+l",
        }),
        _ => json!({"name": "n", "color": "blue", "emoji": "⭐", "icon": "star"}),
    };
    let Value::Object(map) = value else {
        unreachable!()
    };
    map
}

/// The fields of `collection` that a request may set to null (the read-only `remindedAt`
/// and `lastCompletedAt` of a task may be null but are the server's to set).
fn nullable_fields(collection: &str) -> Vec<String> {
    default_fields(collection)
        .into_iter()
        .filter(|(field, default)| {
            default.is_null() && !["remindedAt", "lastCompletedAt"].contains(&field.as_str())
        })
        .map(|(field, _)| field)
        .collect()
}

#[actix_web::test]
async fn a_new_space_starts_at_version_0() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    for token in [app.default_token.as_str(), alice.token.as_str()] {
        for (collection, _) in KINDS {
            let reply = app.user(token).get(&format!("/api/v1/{collection}")).await;
            reply.expect(200);
            assert_eq!(reply.version(), 0, "{collection}");
        }
    }
}

/// Checks that `reply` is a successful write that brought the space to `version`, and
/// that reads of the item and its collection see that version without moving it.
async fn check_write(app: &TestApp, reply: Reply, version: u64, item: &str) {
    assert!(
        reply.status == 200 || reply.status == 201,
        "{:#?}",
        reply.body
    );
    assert_eq!(reply.version(), version, "{item}: {:#}", reply.body);
    assert_eq!(reply.data()["versionUpdatedAt"], version);
    let collection = item.rsplit_once('/').unwrap().0;
    for _ in 0..2 {
        assert_eq!(app.get(item).await.version(), version);
        assert_eq!(app.get(collection).await.version(), version);
    }
}

#[actix_web::test]
async fn every_successful_write_adds_exactly_one_and_stamps_what_it_touched() {
    let app = spawn_app();
    let mut version = 0;
    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        let created = app.post(&path, json!({})).await;
        let item = format!("{path}/{}", id_of(created.data(), id_field));
        version += 1;
        check_write(&app, created, version, &item).await;

        version += 1;
        check_write(
            &app,
            app.patch(&item, json!({"name": "x"})).await,
            version,
            &item,
        )
        .await;
        version += 1;
        check_write(&app, app.patch(&item, json!({})).await, version, &item).await;
        // An empty body counts as {}, with or without a content type.
        let empty = app.authorized(Method::PATCH, &item);
        version += 1;
        check_write(&app, app.send(empty, None).await, version, &item).await;
        let empty_json = app
            .authorized(Method::PATCH, &item)
            .insert_header(("Content-Type", "application/json"));
        version += 1;
        check_write(
            &app,
            app.send(empty_json, Some(Vec::new())).await,
            version,
            &item,
        )
        .await;
        for _ in 0..2 {
            version += 1;
            check_write(&app, app.delete(&item).await, version, &item).await;
        }
        for _ in 0..2 {
            version += 1;
            let restored = app.default_user().restore(&item).await;
            check_write(&app, restored, version, &item).await;
        }
    }
    assert_eq!(app.space_version().await, 5 * 9);
}

#[actix_web::test]
async fn a_write_reply_is_the_record_and_the_space_version() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let created = app.post(&format!("/api/v1/{collection}"), json!({})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(created.data(), id_field));
        let replies = [
            created,
            app.get(&item).await,
            app.patch(&item, json!({})).await,
            app.delete(&item).await,
            app.default_user().restore(&item).await,
        ];
        for reply in replies {
            let mut keys: Vec<&String> = reply.body.as_object().unwrap().keys().collect();
            keys.sort();
            assert_eq!(keys, ["data", "spaceVersion"], "{:#}", reply.body);
            assert!(reply
                .header("content-type")
                .unwrap_or_default()
                .starts_with("application/json"));
        }
    }
}

#[actix_web::test]
async fn a_write_sets_updated_at_to_its_time_and_keeps_created_at() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let before = chrono::Utc::now().timestamp_millis();
        let record = app.create(collection, json!({})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        std::thread::sleep(Duration::from_millis(5));
        let patched = app.patch(&item, json!({})).await;
        let after = chrono::Utc::now().timestamp_millis();
        let data = patched.data();
        assert_eq!(data["createdAt"], record["createdAt"]);
        let (created, updated) = (millis(&data["createdAt"]), millis(&data["updatedAt"]));
        assert!(updated > created, "{data:#}");
        assert!((before - 1000..=after + 1000).contains(&created));
        assert!((before - 1000..=after + 1000).contains(&updated));
    }
}

/// The whole visible state of the default space: its version and every record in full.
async fn snapshot(app: &TestApp) -> Vec<Value> {
    let mut state = vec![json!(app.space_version().await)];
    for (collection, _) in KINDS {
        let path = format!("/api/v1/{collection}?includeDeleted=true");
        state.extend(app.default_user().list_all(&path, 100).await);
    }
    state
}

#[actix_web::test]
async fn failed_writes_change_nothing() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "l"})).await;
    for (collection, id_field) in KINDS {
        app.create(collection, json!({ id_field: "live", "name": "live" }))
            .await;
        app.create(collection, json!({ id_field: "gone" })).await;
        app.delete(&format!("/api/v1/{collection}/gone"))
            .await
            .expect(200);
    }
    let before = snapshot(&app).await;

    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        let live = format!("{path}/live");
        let text = |method: Method, path: &str| {
            app.authorized(method, path)
                .insert_header(("Content-Type", "text/plain"))
        };
        let mut failures: Vec<(Reply, u16)> = vec![
            (app.post(&path, json!({"bogus": 1})).await, 400),
            (app.post(&path, json!({ id_field: "live" })).await, 409),
            (app.post(&path, json!({ id_field: "gone" })).await, 409),
            (
                app.post(&path, json!({"name": "x", "createdAt": "x"}))
                    .await,
                400,
            ),
            (app.patch(&live, json!({"name": "x", "id": "y"})).await, 400),
            (
                app.patch(&live, json!({"name": "x", "sortOrder": null}))
                    .await,
                400,
            ),
            (
                app.patch(&live, json!({ "name": "x", id_field: "live" }))
                    .await,
                400,
            ),
            (
                app.patch(&format!("{path}/nope"), json!({"name": "x"}))
                    .await,
                404,
            ),
            (
                app.patch(&format!("{path}/gone"), json!({"name": "x"}))
                    .await,
                409,
            ),
            (app.patch(&format!("{path}/gone"), json!({})).await, 409),
            (app.delete(&format!("{path}/nope")).await, 404),
            (
                app.default_user().restore(&format!("{path}/nope")).await,
                404,
            ),
            (
                app.send(text(Method::POST, &path), Some(b"{}".to_vec()))
                    .await,
                415,
            ),
            (
                app.send(text(Method::PATCH, &live), Some(b"{}".to_vec()))
                    .await,
                415,
            ),
            (
                app.send(
                    app.authorized(Method::PATCH, &live)
                        .insert_header(("Content-Type", "application/json")),
                    Some(b"{\"name\": ".to_vec()),
                )
                .await,
                400,
            ),
        ];
        if collection == "tasks" {
            failures.push((app.post(&path, json!({"listId": "nope"})).await, 422));
            failures.push((
                app.patch(&live, json!({"name": "x", "contextId": "l"}))
                    .await,
                422,
            ));
        }
        for (reply, status) in failures {
            assert_eq!(reply.status, status, "{collection}: {:#}", reply.body);
        }
    }
    assert_eq!(snapshot(&app).await, before);
}

#[actix_web::test]
async fn patch_sets_every_updatable_field_and_leaves_absent_ones_alone() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let mut changes = non_default_fields(collection);
        changes.insert("sortOrder".into(), json!(42.5));
        let patched = app.patch(&item, Value::Object(changes.clone())).await;
        patched.expect(200);
        for (field, value) in &changes {
            assert_eq!(&patched.data()[field], value, "{collection}.{field}");
        }
        let renamed = app.patch(&item, json!({"name": "renamed"})).await;
        renamed.expect(200);
        for (field, value) in &changes {
            if field != "name" {
                assert_eq!(
                    &renamed.data()[field],
                    value,
                    "{collection}.{field} changed"
                );
            }
        }
        assert_eq!(renamed.data()["name"], "renamed");
        assert_eq!(app.get(&item).await.data(), renamed.data());
    }
}

#[actix_web::test]
async fn patch_null_clears_every_nullable_field() {
    let app = spawn_app();
    app.create("lists", json!({"listId": "l"})).await;
    app.create("contexts", json!({"contextId": "c"})).await;
    app.create("tasks", json!({"todoId": "parent"})).await;
    for (collection, id_field) in KINDS {
        let mut full = non_default_fields(collection);
        if collection == "tasks" {
            full.insert("listId".into(), json!("l"));
            full.insert("contextId".into(), json!("c"));
            full.insert("parentId".into(), json!("parent"));
        }
        let record = app.create(collection, Value::Object(full)).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let nullable = nullable_fields(collection);
        for field in &nullable {
            assert!(!record[field].is_null(), "{collection}.{field} was not set");
        }
        let nulls: Map<String, Value> = nullable.iter().map(|f| (f.clone(), Value::Null)).collect();
        let cleared = app.patch(&item, Value::Object(nulls)).await;
        cleared.expect(200);
        for field in &nullable {
            assert_eq!(cleared.data()[field], Value::Null, "{collection}.{field}");
        }
        assert_eq!(app.get(&item).await.data(), cleared.data());
    }
}

#[actix_web::test]
async fn patch_null_on_flags_choices_sort_order_and_arrays_is_400() {
    let app = spawn_app();
    let not_nullable: [(&str, &[&str]); 5] = [
        (
            "tasks",
            &[
                "isImportant",
                "isTimeSensitive",
                "TodoPredecessorsView",
                "TodoPredecessorsAllAny",
                "sortOrder",
                "categoryIds",
                "scheduleIds",
                "tagIds",
                "predecessorIds",
            ],
        ),
        ("lists", &["isDefault", "sortOrder"]),
        ("schedules", &["sortOrder"]),
        ("categories", &["sortOrder"]),
        ("contexts", &["sortOrder"]),
    ];
    for ((collection, fields), (_, id_field)) in not_nullable.into_iter().zip(KINDS) {
        let body = if collection == "tasks" {
            json!({"tagIds": ["t"]})
        } else {
            json!({})
        };
        let record = app.create(collection, body).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let version = app.space_version().await;
        for field in fields {
            let reply = app.patch(&item, json!({ *field: null })).await;
            assert_invalid_fields(&reply, &[field]);
            let on_create = app
                .post(&format!("/api/v1/{collection}"), json!({ *field: null }))
                .await;
            assert_invalid_fields(&on_create, &[field]);
        }
        let all: Map<String, Value> = fields
            .iter()
            .map(|f| (f.to_string(), Value::Null))
            .collect();
        assert_invalid_fields(&app.patch(&item, Value::Object(all)).await, fields);
        assert_eq!(app.space_version().await, version);
        assert_eq!(app.get(&item).await.data(), &record);
    }
    // Arrays are cleared with [].
    let task = app.create("tasks", json!({"tagIds": ["a", "b"]})).await;
    let cleared = app
        .patch(
            &format!("/api/v1/tasks/{}", id_of(&task, "todoId")),
            json!({"tagIds": []}),
        )
        .await;
    cleared.expect(200);
    assert_eq!(cleared.data()["tagIds"], json!([]));
}

#[actix_web::test]
async fn the_own_id_in_a_patch_body_is_400() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let id = id_of(&record, id_field);
        let item = format!("/api/v1/{collection}/{id}");
        for value in [json!(id), json!("other"), json!(null)] {
            let reply = app.patch(&item, json!({ id_field: value })).await;
            assert_invalid_fields(&reply, &[id_field]);
        }
        assert_eq!(app.get(&item).await.data(), &record);
    }
}

#[actix_web::test]
async fn read_only_fields_are_400_and_each_is_named() {
    let app = spawn_app();
    let read_only = [
        ("id", json!("x")),
        ("createdAt", json!("2026-01-01T00:00:00.000Z")),
        ("updatedAt", json!("2026-01-01T00:00:00.000Z")),
        ("deletedAt", json!(null)),
        ("isDeleted", json!(false)),
        ("versionUpdatedAt", json!(1)),
    ];
    let names: Vec<&str> = read_only.iter().map(|(f, _)| *f).collect();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let version = app.space_version().await;
        let all: Map<String, Value> = read_only
            .iter()
            .map(|(f, v)| (f.to_string(), v.clone()))
            .collect();
        let body = Value::Object(all);
        assert_invalid_fields(
            &app.post(&format!("/api/v1/{collection}"), body.clone())
                .await,
            &names,
        );
        assert_invalid_fields(&app.patch(&item, body).await, &names);
        for (field, value) in &read_only {
            let one = json!({ "name": "ok", *field: value });
            assert_invalid_fields(&app.patch(&item, one.clone()).await, &[field]);
            assert_invalid_fields(
                &app.post(&format!("/api/v1/{collection}"), one).await,
                &[field],
            );
        }
        assert_eq!(app.space_version().await, version);
        assert_eq!(app.get(&item).await.data(), &record);
    }
}

#[actix_web::test]
async fn unknown_fields_are_400_and_each_is_named() {
    let app = spawn_app();
    let foreign = [
        ("tasks", "isDefault"),
        ("lists", "notesMarkdown"),
        ("schedules", "keyboardShortcut"),
        ("categories", "tagIds"),
        ("contexts", "status"),
    ];
    for ((collection, id_field), (_, borrowed)) in KINDS.into_iter().zip(foreign) {
        let record = app.create(collection, json!({})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let body = json!({"bogus": 1, "Name": "x", borrowed: "x", "name": "fine"});
        let expected = ["Name", "bogus", borrowed];
        assert_invalid_fields(
            &app.post(&format!("/api/v1/{collection}"), body.clone())
                .await,
            &expected,
        );
        assert_invalid_fields(&app.patch(&item, body).await, &expected);
        assert_eq!(app.get(&item).await.data(), &record);
    }
    assert_eq!(app.space_version().await, 5);
}

#[actix_web::test]
async fn a_repeated_delete_keeps_the_first_deleted_at_but_still_counts() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let first = app.delete(&item).await;
        first.expect(200);
        std::thread::sleep(Duration::from_millis(5));
        let second = app.delete(&item).await;
        second.expect(200);
        assert_eq!(second.version(), first.version() + 1);
        assert_eq!(second.data()["deletedAt"], first.data()["deletedAt"]);
        assert_eq!(second.data()["isDeleted"], true);
        assert_eq!(second.data()["versionUpdatedAt"], second.version());
        assert!(millis(&second.data()["updatedAt"]) > millis(&first.data()["updatedAt"]));
    }
}

#[actix_web::test]
async fn a_deleted_record_reads_as_deleted_and_a_patch_is_409_record_deleted() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({"name": "kept"})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        let deleted = app.delete(&item).await;
        let read = app.get(&item).await;
        read.expect(200);
        assert_eq!(read.data()["isDeleted"], true);
        assert_eq!(read.data(), deleted.data());
        let version = app.space_version().await;
        for body in [json!({"name": "changed"}), json!({})] {
            assert_problem(&app.patch(&item, body).await, 409, "record_deleted");
        }
        assert_eq!(app.space_version().await, version);
        assert_eq!(app.get(&item).await.data(), deleted.data());
        // Left out of a default listing, there with includeDeleted.
        let listed = app.get(&format!("/api/v1/{collection}")).await;
        assert!(!listed
            .data()
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == record["id"]));
        let all = app
            .get(&format!("/api/v1/{collection}?includeDeleted=true"))
            .await;
        assert!(all
            .data()
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == record["id"]));
    }
}

#[actix_web::test]
async fn restore_undeletes_and_restoring_an_active_record_changes_nothing_but_counts() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({"name": "back"})).await;
        let item = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
        app.delete(&item).await.expect(200);
        let restored = app.default_user().restore(&item).await;
        restored.expect(200);
        assert_eq!(restored.data()["isDeleted"], false);
        assert_eq!(restored.data()["deletedAt"], Value::Null);
        assert_eq!(restored.data()["name"], "back");
        assert_eq!(restored.data()["versionUpdatedAt"], restored.version());
        app.patch(&item, json!({"name": "patched"}))
            .await
            .expect(200);

        let active = app.get(&item).await;
        let again = app.default_user().restore(&item).await;
        again.expect(200);
        assert_eq!(again.version(), active.version() + 1);
        let mut expected = active.data().clone();
        expected["versionUpdatedAt"] = json!(again.version());
        expected["updatedAt"] = again.data()["updatedAt"].clone();
        assert_eq!(again.data(), &expected);
    }
}

#[actix_web::test]
async fn unknown_ids_are_404_not_found_for_every_operation() {
    let app = spawn_app();
    for (collection, _) in KINDS {
        let item = format!("/api/v1/{collection}/missing");
        assert_problem(&app.get(&item).await, 404, "not_found");
        assert_problem(&app.patch(&item, json!({})).await, 404, "not_found");
        assert_problem(&app.delete(&item).await, 404, "not_found");
        assert_problem(&app.default_user().restore(&item).await, 404, "not_found");
    }
    assert_eq!(app.space_version().await, 0);
}
