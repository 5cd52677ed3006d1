//! Bounds per client (docs §9a): kept idempotency answers, feed pages and change
//! streams are bounded in bytes, a 401 is never kept, and every file is the owner's only.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use actix_web::http::Method;
use futures_util::StreamExt;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, TestApp};

/// The most characters `notesMarkdown` takes: a task of about 100 KB.
const BIG_NOTE: usize = 100_000;

/// Creates `count` tasks `t0`.. of about 100 KB each.
async fn big_tasks(app: &TestApp, count: usize) {
    let note = "n".repeat(BIG_NOTE);
    for i in 0..count {
        app.create(
            "tasks",
            json!({"todoId": format!("t{i}"), "notesMarkdown": note}),
        )
        .await;
    }
}

/// A batch renaming tasks `t0`.. `t{count-1}`: its answer holds them all, ~100 KB each.
fn rename_all(count: usize, name: &str) -> Value {
    let operations: Vec<Value> = (0..count)
        .map(|i| {
            json!({"method": "PATCH", "path": format!("/api/v1/tasks/t{i}"), "body": {"name": name}})
        })
        .collect();
    json!({ "operations": operations })
}

#[actix_web::test]
async fn a_feed_page_ends_after_4_mib_of_records_at_the_end_of_a_version() {
    let app = spawn_app();
    big_tasks(&app, 100).await;
    let mut since = 0;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = app
            .get(&format!("/api/v1/changes?since={since}&limit=1000"))
            .await
            .expect(200)
            .body
            .clone();
        let data = page["data"].as_array().unwrap();
        let bytes = serde_json::to_vec(data).unwrap().len();
        let last = data.last().unwrap()["record"]["versionUpdatedAt"]
            .as_u64()
            .unwrap();
        assert_eq!(page["nextSince"], last);
        if page["hasMore"] == true {
            assert!(
                bytes > 4 << 20 && bytes < (4 << 20) + 2 * BIG_NOTE,
                "{bytes}"
            );
        }
        seen.extend(data.iter().map(|c| c["record"]["todoId"].clone()));
        pages += 1;
        if page["hasMore"] == false {
            break;
        }
        since = last;
    }
    assert!(pages >= 3, "{pages} pages");
    assert_eq!(seen.len(), 100, "each change once");
}

#[actix_web::test]
async fn kept_answers_are_bounded_per_user_and_a_new_key_waits_while_all_are_young() {
    let app = spawn_app();
    big_tasks(&app, 100).await;
    let batch = |key: &'static str, name: &str| {
        let body = rename_all(100, name);
        let app = &app;
        async move {
            app.send_with(
                Method::POST,
                "/api/v1/batch",
                Some(&body),
                &[("Idempotency-Key", key)],
            )
            .await
        }
    };
    // Seven answers of ~10 MB each take the user to 64 MiB.
    let keys = ["k1", "k2", "k3", "k4", "k5", "k6", "k7"];
    for key in keys {
        batch(key, key).await.expect(200);
    }
    let refused = batch("k8", "k8").await;
    assert_problem(&refused, 429, "too_many_requests");
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((3500..=3600).contains(&wait), "Retry-After {wait}");
    // Retries of kept keys, requests without a key and other users are unaffected.
    let replayed = batch("k1", "k1").await;
    assert_eq!(replayed.status, 200);
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    app.patch("/api/v1/tasks/t0", json!({"name": "no key"}))
        .await
        .expect(200);
    let other = app.create_user("other").await;
    let theirs = app
        .request(Method::POST, "/api/v1/tasks")
        .insert_header(("Authorization", format!("Bearer {}", other.token)))
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("Idempotency-Key", "k8"));
    app.send(theirs, Some(b"{}".to_vec())).await.expect(201);
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().unwrap();
    assert!(
        text.contains("taskd_too_many_requests_total{reason=\"idempotency_keys\"} 1"),
        "{}",
        text.lines()
            .filter(|l| l.contains("too_many"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[actix_web::test]
async fn a_401_is_never_kept_for_an_idempotency_key() {
    let app = spawn_app();
    let as_admin = || {
        app.request(Method::POST, "/api/v1/tasks")
            .insert_header(("Authorization", format!("Bearer {}", app.admin_token)))
            .insert_header(("Content-Type", "application/json"))
            .insert_header(("Idempotency-Key", "admin-on-a-user-route"))
    };
    for _ in 0..2 {
        let reply = app.send(as_admin(), Some(b"{}".to_vec())).await;
        assert_problem(&reply, 401, "unauthorized");
        assert_eq!(reply.header("idempotent-replayed"), None);
    }
}

/// Checks that every file under `dir` is mode 0600 and every folder 0700.
fn assert_private(dir: &Path) {
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(dir), 0o700, "{}", dir.display());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_private(&path);
        } else {
            assert_eq!(mode(&path), 0o600, "{}", path.display());
        }
    }
}

#[actix_web::test]
async fn every_file_taskd_writes_is_the_owners_only() {
    let app = spawn_app();
    app.create("tasks", json!({"todoId": "t"})).await;
    app.create_user("alice").await;
    let out = tempfile::tempdir().unwrap();
    let backup = out.path().join("nested/backup");
    app.call(
        Method::POST,
        "/api/v1/admin/backup",
        &app.admin_token,
        Some(&json!({ "to": backup })),
    )
    .await
    .expect(200);
    let export = out.path().join("export.ndjson");
    let exported = std::process::Command::new(env!("CARGO_BIN_EXE_taskd"))
        .args(["export", "--data-dir"])
        .arg(app.dir.path())
        .arg("--to")
        .arg(&export)
        .output()
        .unwrap();
    assert!(exported.status.success(), "{exported:?}");
    // The data directory was made by the test; what taskd made inside it is checked.
    for sub in ["spaces", "journal"] {
        assert_private(&app.path(sub));
    }
    for name in ["users.bin", "LOCK"] {
        let mode = std::fs::metadata(app.path(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
    assert_private(&out.path().join("nested"));
    let mode = std::fs::metadata(&export).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "export");
}

/// One event of a change stream: its name, id and data.
type Event = (String, u64, Value);

/// Reads events from `payload` until the stream ends or `done` says so.
async fn read_events(
    payload: &mut (impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
              + Unpin),
    done: impl Fn(&[Event]) -> bool,
) -> Vec<Event> {
    let mut buffer = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    while !done(&events) {
        let next = actix_web::rt::time::timeout(Duration::from_secs(20), payload.next()).await;
        let Ok(Some(Ok(bytes))) = next else { break };
        buffer.extend_from_slice(&bytes);
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let block: Vec<u8> = buffer.drain(..end + 2).collect();
            let block = String::from_utf8(block).unwrap();
            if block.starts_with(':') {
                continue;
            }
            let field = |name: &str| block.lines().find_map(|l| l.strip_prefix(name));
            events.push((
                field("event: ").unwrap_or("message").to_string(),
                field("id: ").map_or(0, |id| id.parse().unwrap()),
                serde_json::from_str(field("data: ").unwrap_or("null")).unwrap(),
            ));
        }
    }
    events
}

#[actix_web::test]
async fn a_stream_that_falls_4_mib_behind_ends_with_overflow_and_resumes_losing_nothing() {
    let app = spawn_app();
    big_tasks(&app, 100).await;
    let open = |last: Option<u64>| {
        let mut request = app
            .authorized(Method::GET, "/api/v1/changes/stream")
            .timeout(Duration::from_secs(120));
        if let Some(id) = last {
            request = request.insert_header(("Last-Event-ID", id.to_string()));
        }
        request.send()
    };
    let version = app.space_version().await;
    let mut response = open(Some(version)).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mut payload = actix_web::HttpMessage::take_payload(&mut response);
    // Not reading while 60 MB of events are written: past every socket buffer and 4 MiB.
    for round in 0..6 {
        app.send_with(
            Method::POST,
            "/api/v1/batch",
            Some(&rename_all(100, &format!("round {round}"))),
            &[],
        )
        .await
        .expect(200);
    }
    let first = read_events(&mut payload, |_| false).await;
    let (last, _) = first.split_last().expect("events before the end");
    assert_eq!(
        last.0, "overflow",
        "the stream ended with an overflow event"
    );
    let changes: Vec<&Event> = first.iter().filter(|e| e.0 == "change").collect();
    assert!(changes.len() < 600, "the stream was cut short");
    let resume_from = changes.last().map_or(version, |e| e.1);

    // Resumed from the last id it saw, the client ends up with every task's last change.
    let mut response = open(Some(resume_from)).await.unwrap();
    let mut payload = actix_web::HttpMessage::take_payload(&mut response);
    let end = app.space_version().await;
    let second = read_events(&mut payload, |events| {
        events.last().is_some_and(|e| e.1 >= end)
    })
    .await;
    let mut latest: BTreeMap<String, u64> = BTreeMap::new();
    for (_, id, data) in changes.into_iter().chain(second.iter()) {
        let todo = data["record"]["todoId"].as_str().unwrap().to_string();
        let entry = latest.entry(todo).or_default();
        *entry = (*entry).max(*id);
    }
    let tasks = app.default_user().list_all("/api/v1/tasks", 100).await;
    assert_eq!(tasks.len(), 100);
    for task in tasks {
        let id = task["todoId"].as_str().unwrap();
        assert_eq!(
            latest.get(id).copied(),
            task["versionUpdatedAt"].as_u64(),
            "missed the last change of {id}"
        );
    }
    let metrics = app.metrics().await;
    assert!(metrics
        .body
        .as_str()
        .unwrap()
        .contains("taskd_streams_overflowed_total 1"));
}

#[actix_web::test]
async fn a_stream_that_reads_gets_a_write_of_10_mb_live() {
    let app = spawn_app();
    big_tasks(&app, 100).await;
    let version = app.space_version().await;
    let mut response = app
        .authorized(Method::GET, "/api/v1/changes/stream")
        .insert_header(("Last-Event-ID", version.to_string()))
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .unwrap();
    let mut payload = actix_web::HttpMessage::take_payload(&mut response);
    app.send_with(
        Method::POST,
        "/api/v1/batch",
        Some(&rename_all(100, "big")),
        &[],
    )
    .await
    .expect(200);
    let events = read_events(&mut payload, |events| events.len() >= 100).await;
    assert_eq!(events.len(), 100);
    assert!(events
        .iter()
        .all(|e| e.0 == "change" && e.2["record"]["name"] == "big"));
}
