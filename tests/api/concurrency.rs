//! Concurrency: many writes at once to one space each get their own version, and none is
//! lost (docs §5).

use std::collections::BTreeSet;

use futures_util::future::join_all;
use serde_json::json;

use crate::helpers::{id_of, spawn_app, KINDS};

const WRITERS: u64 = 400;

#[actix_web::test]
async fn hundreds_of_parallel_creates_each_get_their_own_version() {
    let app = spawn_app();
    let replies = join_all(
        (0..WRITERS).map(|n| app.post("/api/v1/tasks", json!({"name": format!("task {n}")}))),
    )
    .await;
    let mut versions = BTreeSet::new();
    let mut ids = BTreeSet::new();
    for reply in &replies {
        reply.expect(201);
        assert_eq!(reply.data()["versionUpdatedAt"], reply.version());
        versions.insert(reply.version());
        ids.insert(id_of(reply.data(), "todoId"));
    }
    assert_eq!(versions, (1..=WRITERS).collect(), "versions given out");
    assert_eq!(ids.len() as u64, WRITERS);
    assert_eq!(app.space_version().await, WRITERS);

    let listed = app.default_user().list_all("/api/v1/tasks", 100).await;
    let listed_ids: BTreeSet<String> = listed.iter().map(|r| id_of(r, "todoId")).collect();
    assert_eq!(listed.len() as u64, WRITERS);
    assert_eq!(listed_ids, ids);
}

#[actix_web::test]
async fn parallel_patches_of_one_record_all_count() {
    let app = spawn_app();
    let task = app.create("tasks", json!({})).await;
    let path = format!("/api/v1/tasks/{}", id_of(&task, "todoId"));
    let replies = join_all((0..200).map(|n| app.patch(&path, json!({ "durationMs": n })))).await;
    let mut versions = BTreeSet::new();
    for reply in &replies {
        reply.expect(200);
        versions.insert(reply.version());
    }
    assert_eq!(versions, (2..=201).collect());
    let last = replies.iter().max_by_key(|r| r.version()).expect("replies");
    let now = app.get(&path).await;
    assert_eq!(now.version(), 201);
    assert_eq!(now.data()["versionUpdatedAt"], 201);
    // The record holds what the last write set.
    assert_eq!(now.data()["durationMs"], last.data()["durationMs"]);
}

#[actix_web::test]
async fn parallel_writes_to_every_kind_and_two_spaces_add_up_separately() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let mut writes = Vec::new();
    for (collection, _) in KINDS {
        for _ in 0..40 {
            writes.push((app.default_user(), format!("/api/v1/{collection}")));
        }
        for _ in 0..20 {
            writes.push((app.user(&alice.token), format!("/api/v1/{collection}")));
        }
    }
    let replies = join_all(writes.iter().map(|(user, path)| user.post(path, json!({})))).await;
    for reply in &replies {
        reply.expect(201);
    }
    assert_eq!(app.space_version().await, 200);
    let hers = app.user(&alice.token).get("/api/v1/tasks").await;
    assert_eq!(hers.version(), 100);
    for (collection, _) in KINDS {
        let path = format!("/api/v1/{collection}");
        assert_eq!(app.default_user().list_all(&path, 100).await.len(), 40);
        assert_eq!(app.user(&alice.token).list_all(&path, 100).await.len(), 20);
    }
}
