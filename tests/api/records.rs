//! Records: every endpoint for every kind, the fields a record has, ids, date-times,
//! `sortOrder` defaults, references, `isDefault`, id arrays and field limits (docs §3).

use std::time::Duration;

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{
    assert_invalid_fields, assert_problem, default_fields, id_of, is_lowercase_uuid, is_utc_millis,
    spawn_app, TestApp, BASE_FIELDS, KINDS,
};

#[actix_web::test]
async fn every_kind_can_be_listed_created_read_patched_deleted_and_restored() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        let empty = app.get(&path).await;
        empty.expect(200);
        assert_eq!(empty.data(), &json!([]));
        assert_eq!(empty.body["nextCursor"], Value::Null);

        let created = app.post(&path, json!({"name": "first"})).await;
        created.expect(201);
        let record = created.data().clone();
        let id = id_of(&record, id_field);
        let location = created.header("location").expect("Location header");
        assert!(
            location.ends_with(&format!("/api/v1/{collection}/{id}")),
            "Location {location:?}"
        );
        assert_eq!(record["name"], "first");
        assert_eq!(record["versionUpdatedAt"], created.version());

        let item = format!("{path}/{id}");
        let read = app.get(&item).await;
        read.expect(200);
        assert_eq!(read.data(), &record);
        assert_eq!(read.version(), created.version());

        let patched = app.patch(&item, json!({"name": "second"})).await;
        patched.expect(200);
        assert_eq!(patched.data()["name"], "second");
        assert_eq!(patched.version(), created.version() + 1);
        assert_eq!(patched.data()["createdAt"], record["createdAt"]);

        let deleted = app.delete(&item).await;
        deleted.expect(200);
        assert_eq!(deleted.data()["isDeleted"], true);
        assert!(is_utc_millis(deleted.data()["deletedAt"].as_str().unwrap()));
        assert_eq!(deleted.data()["name"], "second");

        let restored = app.default_user().restore(&item).await;
        restored.expect(200);
        assert_eq!(restored.data()["isDeleted"], false);
        assert_eq!(restored.data()["deletedAt"], Value::Null);
        assert_eq!(restored.version(), created.version() + 3);

        let listed = app.get(&path).await;
        listed.expect(200);
        assert_eq!(listed.data(), &json!([restored.data()]));
        assert_eq!(listed.version(), restored.version());
    }
}

#[actix_web::test]
async fn a_new_record_has_every_field_with_its_default() {
    let app = spawn_app();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"].clone();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let object = record.as_object().expect("a record is an object");
        for field in BASE_FIELDS.iter().chain(&[id_field, "sortOrder"]) {
            assert!(
                object.contains_key(*field),
                "{collection}: no {field} in {record:#}"
            );
        }
        for (field, default) in default_fields(collection) {
            assert_eq!(
                object.get(&field),
                Some(&default),
                "{collection}.{field} in {record:#}"
            );
        }
        assert_eq!(record["spaceId"], space);
        assert_eq!(record["isDeleted"], false);
        assert_eq!(record["deletedAt"], Value::Null);
        assert_eq!(record["sortOrder"].as_f64(), Some(1.0));
        assert_eq!(record["createdAt"], record["updatedAt"]);
    }
}

#[actix_web::test]
async fn server_made_ids_are_lowercase_uuids_equal_to_the_own_id_field() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let first = app.create(collection, json!({})).await;
        let second = app.create(collection, json!({})).await;
        for record in [&first, &second] {
            let id = id_of(record, id_field);
            assert!(is_lowercase_uuid(&id), "{collection} id {id:?}");
            assert_eq!(record["id"], id);
        }
        assert_ne!(first["id"], second["id"]);
    }
}

#[actix_web::test]
async fn client_ids_of_1_to_64_safe_characters_are_accepted() {
    let app = spawn_app();
    let longest = "Az09_-".repeat(11)[..64].to_string();
    for (collection, id_field) in KINDS {
        for id in ["a", "Z", "0", "_", "-", "Mixed_Case-123", longest.as_str()] {
            let created = app
                .post(&format!("/api/v1/{collection}"), json!({ id_field: id }))
                .await;
            created.expect(201);
            assert_eq!(created.data()[id_field], id);
            assert_eq!(created.data()["id"], id);
            let read = app.get(&format!("/api/v1/{collection}/{id}")).await;
            read.expect(200);
            assert_eq!(read.data()["id"], id);
        }
    }
}

#[actix_web::test]
async fn malformed_client_ids_are_400_validation_failed() {
    let app = spawn_app();
    let too_long = "a".repeat(65);
    for (collection, id_field) in KINDS {
        for id in [
            json!(""),
            json!(too_long),
            json!("a b"),
            json!("a/b"),
            json!("a.b"),
            json!("é"),
            json!("tab\t"),
            json!(5),
            json!(null),
            json!(["a"]),
        ] {
            let reply = app
                .post(&format!("/api/v1/{collection}"), json!({ id_field: id }))
                .await;
            assert_invalid_fields(&reply, &[id_field]);
        }
    }
    assert_eq!(app.space_version().await, 0);
}

#[actix_web::test]
async fn a_duplicate_id_is_409_already_exists_even_when_deleted() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let path = format!("/api/v1/{collection}");
        let original = app
            .create(collection, json!({ id_field: "dup", "name": "one" }))
            .await;
        let again = app
            .post(&path, json!({ id_field: "dup", "name": "two" }))
            .await;
        assert_problem(&again, 409, "already_exists");

        app.delete(&format!("{path}/dup")).await.expect(200);
        let version = app.space_version().await;
        let after_delete = app.post(&path, json!({ id_field: "dup" })).await;
        assert_problem(&after_delete, 409, "already_exists");
        assert_eq!(app.space_version().await, version);
        let kept = app.get(&format!("{path}/dup")).await;
        assert_eq!(kept.data()["name"], original["name"]);
        assert_eq!(kept.data()["isDeleted"], true);
    }
}

#[actix_web::test]
async fn ids_are_unique_per_kind_not_across_kinds() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({ id_field: "shared" })).await;
        assert_eq!(record["id"], "shared");
    }
    for (collection, _) in KINDS {
        app.get(&format!("/api/v1/{collection}/shared"))
            .await
            .expect(200);
    }
}

#[actix_web::test]
async fn timestamps_are_rfc3339_utc_with_milliseconds() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let record = app.create(collection, json!({})).await;
        let id = id_of(&record, id_field);
        let deleted = app.delete(&format!("/api/v1/{collection}/{id}")).await;
        let data = deleted.data();
        for field in ["createdAt", "updatedAt", "deletedAt"] {
            let text = data[field].as_str().unwrap_or_default();
            assert!(is_utc_millis(text), "{collection}.{field} = {text:?}");
        }
    }
    let task = app
        .create(
            "tasks",
            json!({"dateDue": "2026-11-22T09:15:02Z", "dateStart": "2026-11-22T09:15:02.5Z"}),
        )
        .await;
    assert_eq!(task["dateDue"], "2026-11-22T09:15:02.000Z");
    assert_eq!(task["dateStart"], "2026-11-22T09:15:02.500Z");
}

#[actix_web::test]
async fn date_times_with_an_offset_are_stored_as_the_same_instant_in_utc() {
    let app = spawn_app();
    let task = app
        .create(
            "tasks",
            json!({
                "dateDue": "2026-11-22T10:15:02.123+01:00",
                "dateStart": "2026-11-21T23:45:00-05:30",
            }),
        )
        .await;
    assert_eq!(task["dateDue"], "2026-11-22T09:15:02.123Z");
    assert_eq!(task["dateStart"], "2026-11-22T05:15:00.000Z");
    let id = id_of(&task, "todoId");
    let patched = app
        .patch(
            &format!("/api/v1/tasks/{id}"),
            json!({"dateDue": "2027-01-01T00:30:00.999+00:30"}),
        )
        .await;
    patched.expect(200);
    assert_eq!(patched.data()["dateDue"], "2027-01-01T00:00:00.999Z");
    let read = app.get(&format!("/api/v1/tasks/{id}")).await;
    assert_eq!(read.data()["dateDue"], "2027-01-01T00:00:00.999Z");
    assert_eq!(read.data()["dateStart"], "2026-11-22T05:15:00.000Z");
}

#[actix_web::test]
async fn date_times_must_fall_in_years_0001_to_9999_in_utc() {
    let app = spawn_app();
    for (given, stored) in [
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("0001-01-01T01:30:00+01:00", "0001-01-01T00:30:00.000Z"),
    ] {
        let task = app
            .create("tasks", json!({"dateDue": given, "dateStart": given}))
            .await;
        assert_eq!(task["dateDue"], stored);
        assert_eq!(task["dateStart"], stored);
    }
    let version = app.space_version().await;
    for bad in [
        json!("0001-01-01T00:30:00+01:00"),
        json!("9999-12-31T23:30:00-01:00"),
        json!("0000-06-01T00:00:00Z"),
        json!("2026-11-31"),
        json!("2026-11-22T09:15:02"),
        json!("22/11/2026"),
        json!("2026-13-01T00:00:00Z"),
        json!(""),
        json!(1_700_000_000_000u64),
        json!(true),
    ] {
        for field in ["dateDue", "dateStart"] {
            let reply = app.post("/api/v1/tasks", json!({ field: bad })).await;
            assert_invalid_fields(&reply, &[field]);
        }
    }
    assert_eq!(app.space_version().await, version);
}

#[actix_web::test]
async fn sort_order_defaults_to_one_more_than_the_largest_of_its_kind_deleted_included() {
    let app = spawn_app();
    for (collection, id_field) in KINDS {
        let sort_order = |record: &Value| record["sortOrder"].as_f64().expect("sortOrder");
        let path = format!("/api/v1/{collection}");
        // Each kind starts at 1, whatever the other kinds hold.
        assert_eq!(sort_order(&app.create(collection, json!({})).await), 1.0);
        assert_eq!(sort_order(&app.create(collection, json!({})).await), 2.0);
        let explicit = app.create(collection, json!({"sortOrder": 10.5})).await;
        assert_eq!(sort_order(&explicit), 10.5);
        let next = app.create(collection, json!({})).await;
        assert_eq!(sort_order(&next), 11.5);
        app.delete(&format!("{path}/{}", id_of(&next, id_field)))
            .await
            .expect(200);
        assert_eq!(sort_order(&app.create(collection, json!({})).await), 12.5);
        assert_eq!(
            sort_order(&app.create(collection, json!({"sortOrder": -3})).await),
            -3.0
        );
        assert_eq!(sort_order(&app.create(collection, json!({})).await), 13.5);
    }
    // Negative largest: 1 + the largest, not 1.
    let app = spawn_app();
    app.create("contexts", json!({"sortOrder": -7.25})).await;
    let next = app.create("contexts", json!({})).await;
    assert_eq!(next["sortOrder"].as_f64(), Some(-6.25));
}

#[actix_web::test]
async fn a_bad_sort_order_is_400() {
    let app = spawn_app();
    for (collection, _) in KINDS {
        for bad in [json!("1"), json!(true), json!([1]), json!({})] {
            let reply = app
                .post(&format!("/api/v1/{collection}"), json!({"sortOrder": bad}))
                .await;
            assert_invalid_fields(&reply, &["sortOrder"]);
        }
    }
}

/// A list, context, category and schedule, each active, and one of each deleted.
struct Targets {
    active: [(&'static str, String); 4],
    deleted: [(&'static str, String); 4],
}

async fn make_targets(app: &TestApp) -> Targets {
    let kinds = [
        ("lists", "listId"),
        ("contexts", "contextId"),
        ("categories", "categoryId"),
        ("schedules", "scheduleId"),
    ];
    let mut active = Vec::new();
    let mut deleted = Vec::new();
    for (collection, id_field) in kinds {
        let live = app.create(collection, json!({})).await;
        active.push((collection, id_of(&live, id_field)));
        let gone = id_of(&app.create(collection, json!({})).await, id_field);
        app.delete(&format!("/api/v1/{collection}/{gone}"))
            .await
            .expect(200);
        deleted.push((collection, gone));
    }
    Targets {
        active: active.try_into().unwrap(),
        deleted: deleted.try_into().unwrap(),
    }
}

#[actix_web::test]
async fn task_references_must_name_active_records_else_422_invalid_reference() {
    let app = spawn_app();
    let t = make_targets(&app).await;
    let [(_, list), (_, context), (_, category), (_, schedule)] = &t.active;
    let [(_, old_list), (_, old_context), (_, old_category), (_, old_schedule)] = &t.deleted;
    // A context's id is not a list id, however it looks.
    app.create("contexts", json!({"contextId": "only-a-context"}))
        .await;
    let alice = app.create_user("alice").await;
    let hers = id_of(
        &app.user(&alice.token).create("lists", json!({})).await,
        "listId",
    );

    let task = app.create("tasks", json!({"name": "unchanged"})).await;
    let task_path = format!("/api/v1/tasks/{}", id_of(&task, "todoId"));
    let version = app.space_version().await;
    for body in [
        json!({"listId": "nope"}),
        json!({"listId": old_list}),
        json!({"listId": "only-a-context"}),
        json!({"listId": hers}),
        json!({"contextId": "nope"}),
        json!({"contextId": old_context}),
        json!({"contextId": list}),
        json!({"categoryIds": [category, "nope"]}),
        json!({"categoryIds": [old_category]}),
        json!({"categoryIds": [schedule]}),
        json!({"scheduleIds": ["nope"]}),
        json!({"scheduleIds": [schedule, old_schedule]}),
        json!({"listId": list, "contextId": context, "scheduleIds": [old_schedule]}),
    ] {
        let created = app.post("/api/v1/tasks", body.clone()).await;
        assert_problem(&created, 422, "invalid_reference");
        let patched = app.patch(&task_path, body.clone()).await;
        assert_problem(&patched, 422, "invalid_reference");
    }
    assert_eq!(app.space_version().await, version);
    assert_eq!(app.get(&task_path).await.data(), &task);
    let listing = app.get("/api/v1/tasks?includeDeleted=true").await;
    assert_eq!(listing.data().as_array().unwrap().len(), 1);

    let good = json!({
        "listId": list, "contextId": context,
        "categoryIds": [category], "scheduleIds": [schedule],
    });
    let created = app.create("tasks", good.clone()).await;
    let patched = app.patch(&task_path, good.clone()).await;
    patched.expect(200);
    for record in [&created, patched.data()] {
        for (field, value) in good.as_object().unwrap() {
            assert_eq!(&record[field], value, "{field}");
        }
    }
    // Clearing references is always allowed.
    let cleared = app
        .patch(
            &task_path,
            json!({"listId": null, "contextId": null, "categoryIds": [], "scheduleIds": []}),
        )
        .await;
    cleared.expect(200);
    assert_eq!(cleared.data()["listId"], Value::Null);
    assert_eq!(cleared.data()["categoryIds"], json!([]));
}

#[actix_web::test]
async fn a_task_keeps_a_reference_whose_target_is_deleted_later() {
    let app = spawn_app();
    let t = make_targets(&app).await;
    let [(_, list), (_, context), (_, category), (_, schedule)] = &t.active;
    let refs = json!({
        "listId": list, "contextId": context,
        "categoryIds": [category], "scheduleIds": [schedule],
    });
    let task = app.create("tasks", refs.clone()).await;
    let path = format!("/api/v1/tasks/{}", id_of(&task, "todoId"));
    for (collection, id) in &t.active {
        app.delete(&format!("/api/v1/{collection}/{id}"))
            .await
            .expect(200);
    }
    let read = app.get(&path).await;
    read.expect(200);
    for (field, value) in refs.as_object().unwrap() {
        assert_eq!(&read.data()[field], value, "{field}");
    }
    // A write that does not set the references leaves them alone...
    let renamed = app.patch(&path, json!({"name": "renamed"})).await;
    renamed.expect(200);
    for (field, value) in refs.as_object().unwrap() {
        assert_eq!(&renamed.data()[field], value, "{field}");
    }
    let by_list = app.get(&format!("/api/v1/tasks?listId={list}")).await;
    assert_eq!(by_list.data().as_array().unwrap().len(), 1);
    // ...but setting one to a deleted target is checked.
    let reset = app.patch(&path, json!({ "listId": list })).await;
    assert_problem(&reset, 422, "invalid_reference");
}

#[actix_web::test]
async fn setting_is_default_on_a_list_clears_it_on_every_other_list_in_the_same_write() {
    let app = spawn_app();
    let a = app
        .create("lists", json!({"listId": "a", "isDefault": true}))
        .await;
    assert_eq!(a["isDefault"], true);
    let c = app.create("lists", json!({"listId": "c"})).await;

    let b = app
        .post("/api/v1/lists", json!({"listId": "b", "isDefault": true}))
        .await;
    b.expect(201);
    assert_eq!(b.version(), 3, "one write, one version");
    let a_now = app.get("/api/v1/lists/a").await;
    assert_eq!(a_now.data()["isDefault"], false);
    assert_eq!(a_now.data()["versionUpdatedAt"], b.version());
    assert_eq!(a_now.data()["updatedAt"], b.data()["updatedAt"]);
    assert_eq!(app.get("/api/v1/lists/c").await.data(), &c, "c was touched");

    std::thread::sleep(Duration::from_millis(5));
    let a_again = app
        .patch("/api/v1/lists/a", json!({"isDefault": true}))
        .await;
    a_again.expect(200);
    assert_eq!(a_again.version(), 4);
    let b_now = app.get("/api/v1/lists/b").await;
    assert_eq!(b_now.data()["isDefault"], false);
    assert_eq!(b_now.data()["versionUpdatedAt"], 4);
    assert_eq!(b_now.data()["updatedAt"], a_again.data()["updatedAt"]);

    // Setting false, or setting true where it already is, touches nobody else.
    app.patch("/api/v1/lists/c", json!({"isDefault": false}))
        .await
        .expect(200);
    let a_kept = app
        .patch("/api/v1/lists/a", json!({"isDefault": true}))
        .await;
    a_kept.expect(200);
    let b_kept = app.get("/api/v1/lists/b").await;
    assert_eq!(b_kept.data()["versionUpdatedAt"], 4);
    let c_kept = app.get("/api/v1/lists/c").await;
    assert_eq!(c_kept.data()["versionUpdatedAt"], 5);

    // A deleted list is another list of the space too.
    app.patch("/api/v1/lists/b", json!({"isDefault": true}))
        .await
        .expect(200);
    app.delete("/api/v1/lists/b").await.expect(200);
    let c_default = app
        .patch("/api/v1/lists/c", json!({"isDefault": true}))
        .await;
    c_default.expect(200);
    let b_deleted = app.get("/api/v1/lists/b").await;
    assert_eq!(b_deleted.data()["isDefault"], false);
    assert_eq!(b_deleted.data()["versionUpdatedAt"], c_default.version());

    let all = app.get("/api/v1/lists?includeDeleted=true").await;
    let defaults: Vec<&Value> = all
        .data()
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["isDefault"] == true)
        .map(|l| &l["id"])
        .collect();
    assert_eq!(defaults, [&json!("c")]);
}

#[actix_web::test]
async fn id_arrays_drop_duplicates_and_keep_their_order() {
    let app = spawn_app();
    let mut categories = Vec::new();
    for id in ["k3", "k1", "k2"] {
        app.create("categories", json!({"categoryId": id})).await;
        categories.push(id);
    }
    app.create("schedules", json!({"scheduleId": "s1"})).await;
    let task = app
        .create(
            "tasks",
            json!({
                "tagIds": ["b", "a", "b", "c", "a"],
                "categoryIds": ["k2", "k3", "k2", "k1", "k3"],
                "scheduleIds": ["s1", "s1"],
            }),
        )
        .await;
    assert_eq!(task["tagIds"], json!(["b", "a", "c"]));
    assert_eq!(task["categoryIds"], json!(["k2", "k3", "k1"]));
    assert_eq!(task["scheduleIds"], json!(["s1"]));
    let patched = app
        .patch(
            &format!("/api/v1/tasks/{}", id_of(&task, "todoId")),
            json!({"tagIds": ["z", "y", "z"]}),
        )
        .await;
    assert_eq!(patched.data()["tagIds"], json!(["z", "y"]));
}

#[actix_web::test]
async fn id_arrays_hold_at_most_100_id_shaped_strings() {
    let app = spawn_app();
    let hundred: Vec<String> = (0..100).map(|i| format!("tag-{i}")).collect();
    let mut with_repeats = hundred.clone();
    with_repeats.extend(hundred.iter().take(10).cloned());
    let task = app.create("tasks", json!({ "tagIds": with_repeats })).await;
    assert_eq!(task["tagIds"], json!(hundred));

    let mut too_many = hundred.clone();
    too_many.push("tag-100".into());
    let version = app.space_version().await;
    for bad in [
        json!(too_many),
        json!(["ok", "not ok"]),
        json!(["a".repeat(65)]),
        json!([1]),
        json!("a"),
        json!([null]),
    ] {
        let reply = app.post("/api/v1/tasks", json!({ "tagIds": bad })).await;
        assert_invalid_fields(&reply, &["tagIds"]);
    }
    for field in ["categoryIds", "scheduleIds"] {
        for bad in [json!("a"), json!([1]), json!({"a": 1})] {
            let reply = app.post("/api/v1/tasks", json!({ field: bad })).await;
            assert_invalid_fields(&reply, &[field]);
        }
    }
    assert_eq!(app.space_version().await, version);
}

#[actix_web::test]
async fn text_fields_take_their_maximum_length_in_characters_and_no_more() {
    let app = spawn_app();
    let limits: &[(&str, &[(&str, usize)])] = &[
        (
            "tasks",
            &[
                ("name", 1_000),
                ("notesMarkdown", 100_000),
                ("status", 64),
                ("complexity", 64),
            ],
        ),
        (
            "lists",
            &[
                ("name", 1_000),
                ("color", 32),
                ("emoji", 32),
                ("keyboardShortcut", 32),
                ("icon", 64),
            ],
        ),
        (
            "schedules",
            &[("name", 1_000), ("color", 32), ("emoji", 32), ("icon", 64)],
        ),
        (
            "categories",
            &[("name", 1_000), ("color", 32), ("emoji", 32), ("icon", 64)],
        ),
        (
            "contexts",
            &[("name", 1_000), ("color", 32), ("emoji", 32), ("icon", 64)],
        ),
    ];
    for (collection, fields) in limits {
        for (field, max) in fields.iter() {
            // Two bytes each in UTF-8: the limit counts characters.
            let longest = "é".repeat(*max);
            let record = app.create(collection, json!({ *field: longest })).await;
            assert_eq!(record[*field], longest, "{collection}.{field}");
            let version = app.space_version().await;
            let path = format!("/api/v1/{collection}");
            let too_long = app
                .post(&path, json!({ *field: "é".repeat(max + 1) }))
                .await;
            assert_invalid_fields(&too_long, &[field]);
            let not_text = app.post(&path, json!({ *field: 5 })).await;
            assert_invalid_fields(&not_text, &[field]);
            assert_eq!(app.space_version().await, version);
        }
    }
}

#[actix_web::test]
async fn duration_ms_is_an_integer_from_0_to_2_pow_53_minus_1() {
    let app = spawn_app();
    for good in [0u64, 1, 9_007_199_254_740_991] {
        let task = app.create("tasks", json!({"durationMs": good})).await;
        assert_eq!(task["durationMs"].as_u64(), Some(good), "{task:#}");
    }
    let version = app.space_version().await;
    for bad in [
        json!(9_007_199_254_740_992u64),
        json!(u64::MAX),
        json!(-1),
        json!(1.5),
        json!(1e300),
        json!("5"),
        json!(true),
    ] {
        let reply = app.post("/api/v1/tasks", json!({"durationMs": bad})).await;
        assert_invalid_fields(&reply, &["durationMs"]);
    }
    assert_eq!(app.space_version().await, version);
}

#[actix_web::test]
async fn duration_estimate_is_a_number_of_at_least_zero() {
    let app = spawn_app();
    for good in [json!(0), json!(2.5), json!(90)] {
        let task = app.create("tasks", json!({"durationEstimate": good})).await;
        assert_eq!(task["durationEstimate"].as_f64(), good.as_f64());
    }
    for bad in [json!(-1), json!(-0.5), json!("5"), json!(false)] {
        let reply = app
            .post("/api/v1/tasks", json!({"durationEstimate": bad}))
            .await;
        assert_invalid_fields(&reply, &["durationEstimate"]);
    }
}

#[actix_web::test]
async fn flags_choices_and_goal_ids_check_their_values() {
    let app = spawn_app();
    let task = app
        .create(
            "tasks",
            json!({
                "isImportant": true, "isTimeSensitive": true, "TodoPredecessorsView": true,
                "TodoPredecessorsAllAny": "ANY", "goalId": "goal_1-A",
            }),
        )
        .await;
    for (field, value) in [
        ("isImportant", json!(true)),
        ("isTimeSensitive", json!(true)),
        ("TodoPredecessorsView", json!(true)),
        ("TodoPredecessorsAllAny", json!("ANY")),
        ("goalId", json!("goal_1-A")),
    ] {
        assert_eq!(task[field], value, "{field}");
    }
    let list = app.create("lists", json!({"isDefault": false})).await;
    assert_eq!(list["isDefault"], false);

    for (collection, field, bad) in [
        ("tasks", "isImportant", json!("true")),
        ("tasks", "isTimeSensitive", json!(1)),
        ("tasks", "TodoPredecessorsView", json!("yes")),
        ("tasks", "TodoPredecessorsAllAny", json!("SOME")),
        ("tasks", "TodoPredecessorsAllAny", json!("any")),
        ("tasks", "goalId", json!("goal 1")),
        ("tasks", "goalId", json!(7)),
        ("lists", "isDefault", json!("true")),
    ] {
        let reply = app
            .post(&format!("/api/v1/{collection}"), json!({ field: bad }))
            .await;
        assert_invalid_fields(&reply, &[field]);
    }
}

#[actix_web::test]
async fn every_bad_field_of_a_body_is_named() {
    let app = spawn_app();
    let reply = app
        .post(
            "/api/v1/tasks",
            json!({
                "name": 1, "dateDue": "soon", "durationMs": -1, "bogus": true,
                "id": "x", "isImportant": null, "status": "ok",
            }),
        )
        .await;
    assert_invalid_fields(
        &reply,
        &[
            "bogus",
            "dateDue",
            "durationMs",
            "id",
            "isImportant",
            "name",
        ],
    );
    for error in reply.body["errors"].as_array().unwrap() {
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    assert_eq!(app.space_version().await, 0);
}

#[actix_web::test]
async fn numbers_beyond_the_range_of_a_double_are_400_validation_failed() {
    let app = spawn_app();
    let raw = |body: &'static str| {
        let request = app
            .authorized(Method::POST, "/api/v1/tasks")
            .insert_header(("Content-Type", "application/json"));
        app.send(request, Some(body.as_bytes().to_vec()))
    };
    for (body, field) in [
        (r#"{"sortOrder": 1e400}"#, "sortOrder"),
        (r#"{"sortOrder": -1e400}"#, "sortOrder"),
        (r#"{"durationEstimate": 1e400}"#, "durationEstimate"),
        (r#"{"durationMs": 1e400}"#, "durationMs"),
        (r#"{"durationMs": 18446744073709551616}"#, "durationMs"),
    ] {
        assert_invalid_fields(&raw(body).await, &[field]);
    }
    assert_eq!(app.space_version().await, 0);
}
