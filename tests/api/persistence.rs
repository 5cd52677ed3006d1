//! Persistence: graceful restarts, periodic snapshots, and refusing to start on corrupt
//! data files without touching them (docs §1, §5).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::Method;
use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{id_of, spawn_app, spawn_app_with, wait_until, As, Options, TestApp, KINDS};

/// Everything a user can see in its default space: the version and every record of every
/// kind, deleted ones included.
pub(crate) async fn everything(user: As<'_>) -> Value {
    let mut state = serde_json::Map::new();
    let version = user.get("/api/v1/tasks").await.version();
    state.insert("version".into(), json!(version));
    for (collection, _) in KINDS {
        let path = format!("/api/v1/{collection}?includeDeleted=true");
        state.insert(
            collection.into(),
            Value::Array(user.list_all(&path, 7).await),
        );
    }
    Value::Object(state)
}

/// Fills the default space with records of every kind, some deleted, with references.
pub(crate) async fn fill(user: As<'_>) {
    for (collection, id_field) in KINDS {
        for n in 0..4 {
            let record = user
                .create(collection, json!({"name": format!("{collection} {n}")}))
                .await;
            if n == 3 {
                let path = format!("/api/v1/{collection}/{}", id_of(&record, id_field));
                user.delete(&path).await.expect(200);
            }
        }
    }
    user.create(
        "lists",
        json!({"listId": "L", "isDefault": true, "color": "red"}),
    )
    .await;
    user.create("contexts", json!({"contextId": "C"})).await;
    user.create("categories", json!({"categoryId": "K"})).await;
    user.create("schedules", json!({"scheduleId": "S"})).await;
    user.create(
        "tasks",
        json!({
            "todoId": "T", "listId": "L", "contextId": "C", "categoryIds": ["K"],
            "scheduleIds": ["S"], "tagIds": ["x", "y"], "dateDue": "2030-05-06T07:08:09.010Z",
            "durationMs": 9_007_199_254_740_991u64, "durationEstimate": 1.5,
            "TodoPredecessorsAllAny": "ANY", "isImportant": true, "notesMarkdown": "*hi*",
            "sortOrder": -0.25,
        }),
    )
    .await;
    user.delete("/api/v1/lists/L").await.expect(200);
    user.patch("/api/v1/tasks/T", json!({"status": "doing"}))
        .await
        .expect(200);
    // Dependencies (docs §15): a task listed (by id) before its predecessors, one of
    // them deleted after it was named, and a flip of `isBlocked` by a status.
    user.create("tasks", json!({"todoId": "Z-first", "status": "open"}))
        .await;
    user.create("tasks", json!({"todoId": "Y-gone"})).await;
    user.create(
        "tasks",
        json!({"todoId": "A-waits", "predecessorIds": ["Z-first", "Y-gone", "T"]}),
    )
    .await;
    user.delete("/api/v1/tasks/Y-gone").await.expect(200);
    user.patch("/api/v1/tasks/Z-first", json!({"status": "done"}))
        .await
        .expect(200);
    let waiting = user.get("/api/v1/tasks/A-waits").await;
    assert_eq!(waiting.data()["isBlocked"], true, "T is still being done");
}

/// The one space file of a data directory that holds a single written space.
fn only_space_file(app: &TestApp, space: &str) -> PathBuf {
    let path = app.path(&format!("spaces/{space}.bin"));
    assert!(path.exists(), "no {}", path.display());
    path
}

#[actix_web::test]
async fn a_graceful_restart_brings_back_every_record_user_token_and_version() {
    let mut app = spawn_app();
    let alice = app.create_user("alice").await;
    fill(app.default_user()).await;
    fill(app.user(&alice.token)).await;
    let mine = everything(app.default_user()).await;
    let hers = everything(app.user(&alice.token)).await;
    assert!(mine["version"].as_u64().unwrap() > 20);
    let me = app.user(&alice.token).get("/api/v1/me").await.body;

    let status = app.stop();
    assert_eq!(
        status.code(),
        Some(0),
        "SIGTERM exit: {status}\n{}",
        app.log_text()
    );

    let app = app.restart_after_stop();
    assert_eq!(everything(app.default_user()).await, mine);
    assert_eq!(everything(app.user(&alice.token)).await, hers);
    assert_eq!(app.user(&alice.token).get("/api/v1/me").await.body, me);

    // The version goes on from where it was.
    let before = mine["version"].as_u64().unwrap();
    let write = app.post("/api/v1/tasks", json!({})).await;
    write.expect(201);
    assert_eq!(write.version(), before + 1);
    assert_eq!(write.data()["sortOrder"].as_f64(), Some(8.0));
    app.default_user()
        .restore("/api/v1/lists/L")
        .await
        .expect(200);
    let bob = app.create_user("bob").await;
    app.user(&bob.token).get("/api/v1/me").await.expect(200);
}

#[actix_web::test]
async fn versions_never_go_backwards_across_restarts() {
    let mut app = spawn_app();
    let mut last = 0;
    for round in 0..3 {
        for _ in 0..=round {
            let reply = app.post("/api/v1/contexts", json!({})).await;
            assert_eq!(reply.version(), last + 1);
            last += 1;
        }
        app = app.restart();
        assert_eq!(app.space_version().await, last, "after restart {round}");
    }
}

#[actix_web::test]
async fn generated_tokens_keep_working_after_a_restart() {
    let app = spawn_app_with(Options {
        env_tokens: false,
        ..Options::default()
    });
    let (default_token, admin_token) = (app.default_token.clone(), app.admin_token.clone());
    let alice = app.create_user("alice").await;
    app.create("tasks", json!({"todoId": "kept"})).await;

    let app = app.restart();
    assert_eq!(app.default_token, default_token, "default.token changed");
    assert_eq!(app.admin_token, admin_token, "admin.token changed");
    app.get("/api/v1/tasks/kept").await.expect(200);
    app.user(&alice.token).get("/api/v1/me").await.expect(200);
    app.create_user("bob").await;
}

#[actix_web::test]
async fn snapshots_are_written_while_the_server_runs() {
    let mut app = spawn_app_with(Options {
        snapshot_interval_ms: 50,
        ..Options::default()
    });
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let file = app.path(&format!("spaces/{space}.bin"));
    app.create("tasks", json!({"todoId": "first"})).await;
    assert!(
        wait_until(Duration::from_secs(5), || file.exists()),
        "no snapshot within 5 s"
    );
    for n in 0..5 {
        app.create("lists", json!({ "listId": format!("l{n}") }))
            .await;
    }
    app.delete("/api/v1/tasks/first").await.expect(200);
    let state = everything(app.default_user()).await;
    std::thread::sleep(Duration::from_millis(500));

    // A crash after the next snapshot loses nothing.
    app.crash();
    let app = app.restart_after_stop();
    assert_eq!(everything(app.default_user()).await, state);
}

/// Ways to damage a file.
fn corruptions(original: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let flip = |at: usize| {
        let mut bytes = original.to_vec();
        bytes[at] ^= 0x5a;
        bytes
    };
    let mut appended = original.to_vec();
    appended.push(0);
    vec![
        ("a flipped payload byte", flip(original.len() - 3)),
        ("a flipped middle byte", flip(original.len() / 2)),
        ("a flipped magic byte", flip(0)),
        ("a flipped version byte", flip(4)),
        ("a flipped kind byte", flip(6)),
        ("half of it", original[..original.len() / 2].to_vec()),
        ("ten bytes", original[..10].to_vec()),
        ("nothing", Vec::new()),
        ("an extra byte", appended),
        ("garbage", b"this is not a snapshot file at all".to_vec()),
    ]
}

/// Checks that the server refuses to start on each corruption of `file`, names it, and
/// leaves it as it was; then that it starts again once the file is whole.
fn check_refuses_each_corruption(dir: &Arc<tempfile::TempDir>, file: &Path) {
    let original = std::fs::read(file).expect("the data file");
    for (what, bytes) in corruptions(&original) {
        std::fs::write(file, &bytes).unwrap();
        let failed = match TestApp::start(Arc::clone(dir), Options::default()) {
            Ok(_) => panic!("started with {what} in {}", file.display()),
            Err(failed) => failed,
        };
        assert!(
            failed.status.code().is_some_and(|c| c != 0),
            "{what}: exit {}",
            failed.status
        );
        let name = file.display().to_string();
        assert!(
            failed.stderr.lines().any(|l| l.contains(&name)),
            "{what}: no line names {name}:\n{}",
            failed.stderr
        );
        assert_eq!(
            std::fs::read(file).unwrap(),
            bytes,
            "{what}: the file was changed"
        );
    }
    std::fs::write(file, &original).unwrap();
}

#[actix_web::test]
async fn a_corrupt_space_file_stops_the_start_and_is_left_as_it_was() {
    let mut app = spawn_app();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    fill(app.default_user()).await;
    let state = everything(app.default_user()).await;
    assert!(app.stop().success());
    let file = only_space_file(&app, &space);
    let dir = Arc::clone(&app.dir);
    check_refuses_each_corruption(&dir, &file);

    let app = TestApp::start(dir, Options::default()).expect("start on the repaired file");
    assert_eq!(everything(app.default_user()).await, state);
}

#[actix_web::test]
async fn a_corrupt_users_file_stops_the_start_and_is_left_as_it_was() {
    let mut app = spawn_app();
    let alice = app.create_user("alice").await;
    app.create("tasks", json!({"todoId": "t"})).await;
    assert!(app.stop().success());
    let dir = Arc::clone(&app.dir);
    check_refuses_each_corruption(&dir, &app.path("users.bin"));

    let app = TestApp::start(dir, Options::default()).expect("start on the repaired file");
    app.get("/api/v1/tasks/t").await.expect(200);
    app.user(&alice.token).get("/api/v1/me").await.expect(200);
}

#[actix_web::test]
async fn a_data_dir_with_spaces_but_no_users_file_is_refused() {
    let mut app = spawn_app();
    app.create("tasks", json!({})).await;
    assert!(app.stop().success());
    let users = app.path("users.bin");
    std::fs::remove_file(&users).unwrap();
    let dir = Arc::clone(&app.dir);
    let failed = match TestApp::start(Arc::clone(&dir), Options::default()) {
        Ok(_) => panic!("started without users.bin"),
        Err(failed) => failed,
    };
    assert!(!failed.status.success());
    assert!(failed.stderr.contains("users.bin"), "{}", failed.stderr);
    assert!(!users.exists(), "a users file was made up");
    let spaces: Vec<_> = std::fs::read_dir(dir.path().join("spaces"))
        .unwrap()
        .collect();
    assert_eq!(spaces.len(), 1, "the space file was touched");
}

#[actix_web::test]
async fn a_missing_space_file_of_a_known_user_is_refused() {
    let mut app = spawn_app();
    let alice = app.create_user("alice").await;
    assert!(app.stop().success());
    let file = only_space_file(&app, &alice.default_space_id);
    std::fs::remove_file(&file).unwrap();
    let failed = match TestApp::start(Arc::clone(&app.dir), Options::default()) {
        Ok(_) => panic!("started with a space file missing"),
        Err(failed) => failed,
    };
    assert!(!failed.status.success());
    assert!(
        failed
            .stderr
            .contains(&format!("{}.bin", alice.default_space_id)),
        "{}",
        failed.stderr
    );
    assert!(!file.exists(), "a space file was made up");
}

#[actix_web::test]
async fn a_restart_without_writes_is_still_version_0() {
    let app = spawn_app();
    assert_eq!(app.space_version().await, 0);
    let app = app.restart();
    assert_eq!(app.space_version().await, 0);
    app.get("/api/v1/me").await.expect(200);
}

#[test]
fn sigterm_as_soon_as_the_server_listens_is_a_clean_exit_0() {
    // The listen line is what tells a supervisor the server is up; a SIGTERM from then on
    // must take the graceful path. Several tries, since a gap would be a matter of timing.
    for attempt in 0..5 {
        let mut app = spawn_app();
        let status = app.stop();
        assert_eq!(
            status.code(),
            Some(0),
            "attempt {attempt}: SIGTERM right after the listen line ended taskd with {status}"
        );
    }
}

#[actix_web::test]
async fn writes_acknowledged_before_a_sigterm_survive_it() {
    let mut app = spawn_app();
    app.get("/api/v1/me").await.expect(200);
    let pid = app.pid().to_string();
    let signaller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(40));
        Command::new("kill").args(["-TERM", &pid]).status()
    });
    let attempts = (0..400).map(|n| {
        let request = app
            .authorized(Method::POST, "/api/v1/tasks")
            .insert_header(("Content-Type", "application/json"))
            .send_body(json!({ "todoId": format!("t{n}") }).to_string());
        async move {
            // Refused connections are fine once the server stops accepting.
            let mut response = request.await.ok()?;
            let status = response.status().as_u16();
            let retry_after = response.headers().contains_key("retry-after");
            let body = response.body().await.ok()?;
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            Some((n, status, retry_after, body))
        }
    });
    let outcomes = join_all(attempts).await;
    assert!(signaller.join().unwrap().unwrap().success());
    let status = app.wait();
    assert_eq!(status.code(), Some(0), "{}", app.log_text());

    let mut acknowledged = Vec::new();
    for (n, status, retry_after, body) in outcomes.into_iter().flatten() {
        match status {
            201 => acknowledged.push(format!("t{n}")),
            503 => {
                assert_eq!(body["code"], "unavailable", "{body:#}");
                assert!(retry_after, "a 503 without Retry-After");
            }
            other => panic!("POST t{n} answered {other}: {body:#}"),
        }
    }
    let app = app.restart_after_stop();
    for id in &acknowledged {
        app.get(&format!("/api/v1/tasks/{id}")).await.expect(200);
    }
    // Every write the server applied is there, answered or not.
    let version = app.space_version().await;
    assert!(version >= acknowledged.len() as u64);
    let stored = app.default_user().list_all("/api/v1/tasks", 100).await;
    assert_eq!(stored.len() as u64, version);
}

#[actix_web::test]
async fn tokens_are_stored_only_as_hashes() {
    let mut app = spawn_app_with(Options {
        env_tokens: false,
        ..Options::default()
    });
    let alice = app.create_user("alice").await;
    app.user(&alice.token).create("tasks", json!({})).await;
    app.create("tasks", json!({})).await;
    let default_token = app.default_token.clone();
    assert!(app.stop().success());
    let mut files = vec![app.path("users.bin")];
    for entry in std::fs::read_dir(app.path("spaces")).unwrap() {
        files.push(entry.unwrap().path());
    }
    assert_eq!(files.len(), 3);
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        for token in [&alice.token, &default_token] {
            let found = bytes.windows(token.len()).any(|w| w == token.as_bytes());
            assert!(!found, "{} holds a token in clear", file.display());
        }
    }
    // ...and still work after a restart.
    let app = app.restart_after_stop();
    app.user(&alice.token).get("/api/v1/me").await.expect(200);
}

#[actix_web::test]
async fn the_environment_twins_configure_the_server_like_the_flags() {
    let app = spawn_app_with(Options {
        env_twins: true,
        snapshot_interval_ms: 50,
        ..Options::default()
    });
    assert!(
        app.path("default.token").exists(),
        "TASKD_DATA_DIR was not used"
    );
    assert!(app.address.starts_with("http://127.0.0.1:"));
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    app.create("tasks", json!({})).await;
    let file = app.path(&format!("spaces/{space}.bin"));
    assert!(
        wait_until(Duration::from_secs(5), || file.exists()),
        "TASKD_SNAPSHOT_INTERVAL_MS=50 wrote no snapshot within 5 s"
    );
    let log = app.wait_for_log(|log| log.contains("POST /api/v1/tasks 201"));
    assert!(
        log.contains("POST /api/v1/tasks 201"),
        "TASKD_LOG=info: {log}"
    );
}

/// Above 2,000 tasks a page of a search, a tag or an exact filter comes from the posting
/// lists (docs §17). After a SIGTERM they are the ones the snapshot carries (format 12);
/// after a `kill -9`, those with the journal's writes applied in bulk. Either way the
/// pages are the ones the server gave before.
#[actix_web::test]
async fn searches_and_filters_answer_alike_from_the_posting_lists_a_snapshot_carries() {
    let app = spawn_app();
    let task = |n: usize| {
        let status = if n.is_multiple_of(3) { "done" } else { "open" };
        json!({"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": format!("t{n:05}"),
            "name": format!("milk {n} w{}", n % 13), "tagIds": [format!("tag{}", n % 5)],
            "status": status}})
    };
    for batch in 0..21 {
        let operations: Vec<Value> = (batch * 100..batch * 100 + 100).map(task).collect();
        (app.post("/api/v1/batch", json!({ "operations": operations }))
            .await)
            .expect(200);
    }
    let pages = [
        "/api/v1/tasks?q=w7&limit=100",
        "/api/v1/tasks?status=done&q=milk&limit=50",
        "/api/v1/tasks?filter=tagIds%20has%20%22tag2%22&limit=100",
        "/api/v1/tasks?filter=tagIds%20has%20%22fresh%22&limit=100",
    ];
    let before = answers(&app, &pages).await;
    assert!(before[..3]
        .iter()
        .all(|page| !page.as_array().unwrap().is_empty()));
    let mut app = app.restart();
    assert_eq!(answers(&app, &pages).await, before, "after a SIGTERM");

    // Writes the journal holds when the server is killed: renames, retags, new tasks.
    for n in (0..2_100).step_by(7) {
        let body = json!({"name": format!("kettle {n} w7"), "tagIds": ["fresh"]});
        (app.patch(&format!("/api/v1/tasks/t{n:05}"), body).await).expect(200);
    }
    for n in 2_100..2_160 {
        let created = app.post("/api/v1/tasks", task(n)["body"].clone()).await;
        created.expect(201);
    }
    let before = answers(&app, &pages).await;
    assert!(before
        .iter()
        .all(|page| !page.as_array().unwrap().is_empty()));
    app.crash();
    let app = app.restart_after_stop();
    assert_eq!(answers(&app, &pages).await, before, "after a kill -9");
}

/// The records of each of `pages`, each answered 200.
async fn answers(app: &TestApp, pages: &[&str]) -> Vec<Value> {
    let mut data = Vec::new();
    for page in pages {
        let reply = app.get(page).await;
        assert_eq!(reply.status, 200, "{page}: {}", reply.body);
        data.push(reply.body["data"].clone());
    }
    data
}
