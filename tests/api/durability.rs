//! Durability (docs §8): crashes lose no answered write, versions are never reused,
//! one process per data directory, the journal's damage rules, and the golden data
//! directories of every format version. (Storage failures and panics are injected with
//! failpoints: `tests/failpoints`.)

use std::collections::BTreeMap;
use std::io::Write as _;
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::http::Method;
use futures_util::future::join_all;
use serde_json::{json, Value};

use crate::helpers::{
    assert_problem, spawn_app_with, spawn_durable, wait_until, Options, TestApp, ADMIN_TOKEN, KINDS,
};

/// Creates tasks (with `note` as their notes) from `writers` concurrent connections until
/// the server dies; returns every answered write as (id, version).
pub(crate) async fn write_until_killed(
    app: &TestApp,
    writers: usize,
    tag: &str,
    note: &str,
) -> Vec<(String, u64)> {
    let answered = Arc::new(Mutex::new(Vec::new()));
    let loops = (0..writers).map(|w| {
        let answered = Arc::clone(&answered);
        async move {
            for i in 0.. {
                let id = format!("{tag}-{w}-{i}");
                let body =
                    json!({"todoId": id, "name": "crash test", "notesMarkdown": note}).to_string();
                let sent = app
                    .authorized(Method::POST, "/api/v1/tasks")
                    .insert_header(("Content-Type", "application/json"))
                    .send_body(body)
                    .await;
                let Ok(mut response) = sent else { return };
                let Ok(bytes) = response.body().await else {
                    return;
                };
                if response.status().as_u16() != 201 {
                    return;
                }
                let reply: Value = serde_json::from_slice(&bytes).expect("JSON reply");
                let version = reply["spaceVersion"].as_u64().expect("spaceVersion");
                answered.lock().unwrap().push((id, version));
            }
        }
    });
    join_all(loops).await;
    let answered = answered.lock().unwrap().clone();
    answered
}

/// Kills the server with SIGKILL after `delay`, from another thread.
pub(crate) fn kill_after(app: &TestApp, delay: Duration) -> std::thread::JoinHandle<()> {
    let pid = app.pid().to_string();
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let killed = Command::new("kill").args(["-9", &pid]).status().unwrap();
        assert!(killed.success());
    })
}

async fn crash_cycles_lose_no_answered_write(mode: &str) {
    let mut app = spawn_durable(mode, 200);
    let mut highest_seen = 0;
    for cycle in 0..3 {
        let killer = kill_after(&app, Duration::from_millis(400));
        let answered = write_until_killed(&app, 16, &format!("c{cycle}"), "").await;
        killer.join().unwrap();
        app.wait();
        assert!(
            answered.len() > 20,
            "only {} writes answered",
            answered.len()
        );
        app = app.restart_after_stop();
        let tasks = app.default_user().list_all("/api/v1/tasks", 100).await;
        let present: BTreeMap<&str, u64> = tasks
            .iter()
            .map(|t| {
                (
                    t["todoId"].as_str().unwrap(),
                    t["versionUpdatedAt"].as_u64().unwrap(),
                )
            })
            .collect();
        for (id, version) in &answered {
            assert_eq!(present.get(id.as_str()), Some(version), "{mode}: lost {id}");
        }
        highest_seen = highest_seen.max(answered.iter().map(|a| a.1).max().unwrap());
        let version = app.space_version().await;
        assert!(
            version >= highest_seen,
            "{mode}: version went back from {highest_seen} to {version}"
        );
        let next = app.create("tasks", json!({})).await;
        assert!(next["versionUpdatedAt"].as_u64().unwrap() > highest_seen);
    }
}

#[actix_web::test]
async fn kill_9_during_writes_loses_no_answered_write_in_fsync_mode() {
    crash_cycles_lose_no_answered_write("fsync").await;
}

#[actix_web::test]
async fn kill_9_during_writes_loses_no_answered_write_in_write_mode() {
    crash_cycles_lose_no_answered_write("write").await;
}

#[actix_web::test]
async fn a_crash_in_snapshot_mode_never_reuses_a_version() {
    let mut app = spawn_durable("snapshot", 3_600_000);
    let mut last = 0;
    for _ in 0..30 {
        last = app.create("tasks", json!({"name": "x"})).await["versionUpdatedAt"]
            .as_u64()
            .unwrap();
    }
    let cursor_page = app.get("/api/v1/tasks?limit=5").await;
    let cursor = cursor_page.body["nextCursor"].as_str().unwrap().to_string();
    app.crash();
    let app = app.restart_after_stop();
    // The writes of the last interval may be gone, but their versions are not handed out
    // again, and the old cursor never pages through another history.
    let next = app.create("tasks", json!({"name": "after"})).await;
    assert!(next["versionUpdatedAt"].as_u64().unwrap() > last);
    let page = app
        .get(&format!("/api/v1/tasks?limit=5&cursor={cursor}"))
        .await;
    match page.status {
        200 => assert!(page
            .data()
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] == "x")),
        _ => assert_problem(&page, 400, "invalid_cursor"),
    }
}

#[actix_web::test]
async fn a_second_process_on_the_same_data_dir_exits_within_a_second() {
    let app = spawn_durable("fsync", 1000);
    app.create("lists", json!({"listId": "kept"})).await;
    let before = std::fs::read_dir(app.path("journal")).unwrap().count();
    let started = Instant::now();
    let second = TestApp::start(Arc::clone(&app.dir), Options::default())
        .err()
        .expect("the second process must not start");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(!second.status.success());
    assert!(second.stderr.contains("LOCK"), "{}", second.stderr);
    assert_eq!(
        std::fs::read_dir(app.path("journal")).unwrap().count(),
        before
    );
    app.get("/api/v1/lists/kept").await.expect(200);
}

#[actix_web::test]
async fn a_torn_journal_tail_is_cut_with_a_warning_and_a_corrupt_middle_stops_start_up() {
    let mut app = spawn_durable("fsync", 3_600_000);
    for i in 0..5 {
        app.create("tasks", json!({"todoId": format!("t{i}")}))
            .await;
    }
    app.crash();
    let segment = only_segment(&app.path("journal"));
    let whole = std::fs::read(&segment).unwrap();
    let mut torn = whole.clone();
    torn.extend_from_slice(&whole[..30]); // a frame's header and the start of its entry
    std::fs::write(&segment, &torn).unwrap();
    let app = app.restart_after_stop();
    let log = app.log_text();
    assert!(
        log.contains(&format!(
            "{}: torn entry at offset {}",
            segment.display(),
            whole.len()
        )),
        "{log}"
    );
    assert_eq!(
        app.default_user()
            .list_all("/api/v1/tasks", 100)
            .await
            .len(),
        5
    );
    let dir = Arc::clone(&app.dir);
    drop(app);

    let mut bad = whole.clone();
    bad[20] ^= 0xff;
    std::fs::write(&segment, &bad).unwrap();
    for newer in std::fs::read_dir(segment.parent().unwrap()).unwrap() {
        let path = newer.unwrap().path();
        if path != segment {
            std::fs::remove_file(path).unwrap();
        }
    }
    let failed = TestApp::start(dir, Options::default())
        .err()
        .expect("a corrupt journal must stop start-up");
    assert!(!failed.status.success());
    assert!(
        failed
            .stderr
            .contains(&format!("{} at offset 0", segment.display())),
        "{}",
        failed.stderr
    );
    assert_eq!(std::fs::read(&segment).unwrap(), bad, "left as it was");
}

#[actix_web::test]
async fn users_created_before_a_crash_are_journaled_and_keep_working() {
    let mut app = spawn_durable("fsync", 3_600_000);
    let mut users = Vec::new();
    for i in 0..50 {
        users.push(app.create_user(&format!("u{i}")).await);
    }
    app.user(&users[49].token)
        .create("tasks", json!({"todoId": "mine"}))
        .await;
    app.crash();
    let app = app.restart_after_stop();
    for user in &users {
        let me = app
            .user(&user.token)
            .get("/api/v1/me")
            .await
            .expect(200)
            .data()
            .clone();
        assert_eq!(me["defaultSpaceId"], user.default_space_id.as_str());
    }
    app.user(&users[49].token)
        .get("/api/v1/tasks/mine")
        .await
        .expect(200);
}

#[actix_web::test]
async fn sigterm_with_a_stalled_body_exits_within_15_seconds() {
    let mut app = spawn_durable("fsync", 1000);
    app.create("tasks", json!({"todoId": "kept"})).await;
    let address = app.address.trim_start_matches("http://").to_string();
    let mut stalled = TcpStream::connect(&address).unwrap();
    write!(
        stalled,
        "POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\"",
        app.default_token
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    app.stop_within(Duration::from_secs(15));
    let app = app.restart_after_stop();
    app.get("/api/v1/tasks/kept").await.expect(200);
}

/// The entries of `expected`'s section `name`, by token; none when a format has no such
/// section.
fn section<'a>(expected: &'a Value, name: &str) -> impl Iterator<Item = (&'a String, &'a Value)> {
    expected
        .get(name)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// Starts a server on a copy of the golden data directory `tests/fixtures/<name>` and
/// checks every user's records and version against its `expected.json`.
async fn golden_data_dir_loads_exactly(name: &str) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let dir = Arc::new(tempfile::tempdir().unwrap());
    copy_dir(&fixture, dir.path());
    let app = TestApp::start(Arc::clone(&dir), Options::default())
        .unwrap_or_else(|f| panic!("the {name} fixture did not load: {f:#?}"));
    let expected: Value =
        serde_json::from_slice(&std::fs::read(fixture.join("expected.json")).unwrap()).unwrap();
    for (token, state) in expected["users"].as_object().unwrap() {
        let user = app.user(token);
        assert_eq!(
            user.get("/api/v1/me").await.expect(200).data(),
            &state["me"]
        );
        for (collection, _) in KINDS {
            let reply = user
                .get(&format!(
                    "/api/v1/{collection}?includeDeleted=true&limit=100"
                ))
                .await;
            assert_eq!(
                reply.expect(200).data(),
                &state[collection],
                "{name} {collection}"
            );
            assert_eq!(reply.version(), state["spaceVersion"].as_u64().unwrap());
        }
        // From format 9 on: views (§24); none before.
        let views = user
            .get("/api/v1/views?includeDeleted=true&limit=100")
            .await;
        let none = serde_json::json!([]);
        let expected_views = state.get("views").unwrap_or(&none);
        assert_eq!(views.expect(200).data(), expected_views, "{name} views");
        // From format 3 on: spaces shared with roles, and their members; before format 4
        // every member was active (§21), and from it on there are invitations.
        if let Some(spaces) = state.get("spaces") {
            assert_eq!(user.get("/api/v1/spaces").await.expect(200).data(), spaces);
            for (space, members) in state["members"].as_object().unwrap() {
                let mut members = members.clone();
                for member in members.as_array_mut().unwrap() {
                    if member.get("state").is_none() {
                        member["state"] = "active".into();
                    }
                }
                let path = format!("/api/v1/spaces/{space}/members");
                assert_eq!(user.get(&path).await.expect(200).data(), &members);
            }
        }
        if let Some(invitations) = state.get("invitations") {
            let listed = user.get("/api/v1/invitations").await;
            assert_eq!(listed.expect(200).data(), invitations, "{name} invitations");
        }
        if let Some(webhooks) = state.get("webhooks") {
            let listed = user.get("/api/v1/webhooks").await;
            assert_eq!(listed.expect(200).data(), webhooks, "{name} webhooks");
        }
    }
    for (token, state) in section(&expected, "scoped") {
        let scoped = app.user(token);
        assert_eq!(
            scoped.get("/api/v1/me").await.expect(200).data(),
            &state["me"]
        );
        assert_eq!(
            scoped.get("/api/v1/spaces").await.expect(200).data(),
            &state["spaces"]
        );
    }
    // From format 7 on: what tasks keep for calendar clients comes back in an export.
    for (token, calendar) in section(&expected, "calendar") {
        let exported = app.user(token).get("/api/v1/calendar.ics").await;
        assert_eq!(exported.expect(200).body, *calendar, "{name} calendar");
    }
    // From format 9 on: scoped tokens' own budgets (docs §25), in the users file and in
    // the journal, as their users list them.
    for (token, tokens) in section(&expected, "tokens") {
        let limits = |tokens: &Value| -> Vec<(Value, Value)> {
            let tokens = tokens.as_array().unwrap().iter();
            tokens
                .map(|t| (t["tokenId"].clone(), t["rateLimit"].clone()))
                .collect()
        };
        let listed = app.user(token).get("/api/v1/tokens").await;
        let listed = limits(listed.expect(200).data());
        assert_eq!(listed, limits(tokens), "{name} tokens");
    }
    // From format 9 on: CalDAV objects kept as sent, and one rendered anew, with their
    // ETags (docs §27).
    for (token, objects) in section(&expected, "objects") {
        for (path, object) in objects.as_object().unwrap() {
            let got = app.user(token).get(path).await;
            assert_eq!(got.expect(200).body, object["body"], "{name} {path}");
            assert_eq!(got.header("etag"), object["etag"].as_str(), "{name} {path}");
        }
    }
    // From format 12 on: pages of a space above `SCAN_BELOW` tasks, which read the posting
    // lists its space file carries, with the journal's writes over them.
    for (token, pages) in section(&expected, "queries") {
        for (page, ids) in pages.as_object().unwrap() {
            let reply = app.user(token).get(page).await;
            let got: Vec<&Value> = (reply.expect(200).data().as_array().unwrap().iter())
                .map(|task| &task["todoId"])
                .collect();
            assert_eq!(
                got,
                ids.as_array().unwrap().iter().collect::<Vec<_>>(),
                "{name} {page}"
            );
        }
    }
    for token in expected
        .get("refused")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let refused = app.user(token.as_str().unwrap());
        assert_problem(&refused.get("/api/v1/me").await, 401, "unauthorized");
    }
    for space in expected
        .get("deleted")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let space = space.as_str().unwrap();
        assert!(!dir.path().join(format!("spaces/{space}.bin")).exists());
        for token in expected["users"].as_object().unwrap().keys() {
            let reply = app
                .user(token)
                .get(&format!("/api/v1/spaces/{space}"))
                .await;
            assert_problem(&reply, 404, "not_found");
        }
    }
    let admin = app
        .call(
            Method::POST,
            "/api/v1/admin/users",
            ADMIN_TOKEN,
            Some(&json!({"name": "new"})),
        )
        .await;
    admin.expect(201);
}

#[actix_web::test]
async fn the_format_1_golden_data_dir_loads_to_the_exact_records_and_versions() {
    golden_data_dir_loads_exactly("v1").await;
}

#[actix_web::test]
async fn the_format_2_golden_data_dir_with_a_journal_loads_to_the_exact_records_and_versions() {
    golden_data_dir_loads_exactly("v2").await;
}

/// Format 3 adds shared spaces, members, scoped tokens and task dependencies;
/// `tests/fixtures/generate.py` made it.
#[actix_web::test]
async fn the_format_3_golden_data_dir_loads_to_the_exact_spaces_members_tokens_and_records() {
    golden_data_dir_loads_exactly("v3").await;
}

/// Format 4 adds invitations (§21): pending ones in the users file and in the journal,
/// role changes of them, and acceptances.
#[actix_web::test]
async fn the_format_4_golden_data_dir_loads_to_the_exact_invitations_and_members() {
    golden_data_dir_loads_exactly("v4").await;
}

/// Format 5 adds the time fields of tasks (§18): zones, all-day days, rules with `COUNT`
/// lowered by completions, reminders and the completion counters, in a space file and in
/// the journal (a roll, a keyed roll, and a series that ended).
#[actix_web::test]
async fn the_format_5_golden_data_dir_loads_to_the_exact_time_fields() {
    golden_data_dir_loads_exactly("v5").await;
}

/// Format 6 adds webhooks (§19) with their secrets and positions: in the users file and in
/// the journal (a change, a rotation, a deletion, a creation).
#[actix_web::test]
async fn the_format_6_golden_data_dir_loads_to_the_exact_webhooks() {
    golden_data_dir_loads_exactly("v6").await;
}

/// Format 7 adds `completedAt` and the calendar data tasks keep (§20).
#[actix_web::test]
async fn the_format_7_golden_data_dir_loads_to_the_exact_completion_times() {
    golden_data_dir_loads_exactly("v7").await;
}

/// Format 8 adds `parentId` (§22): a tree in a space file, and in the journal a roll that
/// reopens a subtask, a move of the root's list that its subtree follows, and a subtree
/// deleted and restored.
#[actix_web::test]
async fn the_format_8_golden_data_dir_loads_to_the_exact_trees_of_subtasks() {
    golden_data_dir_loads_exactly("v8").await;
}

/// Format 9 adds scoped tokens' own budgets (§25), one in the users file and one made in
/// the journal; CalDAV objects kept as sent (§27), in a space file and in the journal, and
/// one a JSON write has changed since, rendered anew; and views (§24), in a space file,
/// and in the journal a view made, renamed, redefined, deleted and restored.
#[actix_web::test]
async fn the_format_9_golden_data_dir_loads_to_the_exact_budgets_objects_and_views() {
    golden_data_dir_loads_exactly("v9").await;
}

/// Format 10 writes a space file's records in chunks, decoded on several threads.
#[actix_web::test]
async fn the_format_10_golden_data_dir_loads_exactly() {
    golden_data_dir_loads_exactly("v10").await;
}

/// Format 11 adds the activity entries' back-pointers (§23); the rest is as in format 10.
#[actix_web::test]
async fn the_format_11_golden_data_dir_loads_exactly() {
    golden_data_dir_loads_exactly("v11").await;
}

/// Format 12 adds the task posting lists to a space file; the rest is as in format 11. Its
/// "Bulk" space holds 2,200 tasks, so its pages read those lists (words, tags, exact
/// filters) with the journal's renames, retags and new tasks over them.
#[actix_web::test]
async fn the_format_12_golden_data_dir_loads_exactly() {
    golden_data_dir_loads_exactly("v12").await;
}

/// A data directory of format 2 takes writes of format 3 (tasks with predecessors) after
/// its own journal entries, and a crash then replays both kinds of entry: the predecessors,
/// `isBlocked` and the reverse index that flips it all come back.
#[actix_web::test]
async fn a_format_2_data_dir_takes_dependencies_and_replays_them_after_a_crash() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2");
    let dir = Arc::new(tempfile::tempdir().unwrap());
    copy_dir(&fixture, dir.path());
    let mut app = TestApp::start(Arc::clone(&dir), Options::default()).expect("v2 loads");
    let token = "fixture-default-token-000000000000000";
    let user = app.user(token);
    let milk = user.get("/api/v1/tasks/milk").await;
    assert_eq!(milk.data()["predecessorIds"], json!([]));
    assert_eq!(milk.data()["isBlocked"], false);
    let after = user
        .post(
            "/api/v1/tasks",
            json!({"todoId": "after", "predecessorIds": ["milk"]}),
        )
        .await;
    after.expect(201);
    assert_eq!(after.data()["isBlocked"], true);
    app.crash();
    let app = app.restart_after_stop();
    let user = app.user(token);
    let after = user.get("/api/v1/tasks/after").await;
    assert_eq!(after.data()["predecessorIds"], json!(["milk"]));
    assert_eq!(after.data()["isBlocked"], true);
    let done = user
        .patch("/api/v1/tasks/milk", json!({"status": "done"}))
        .await;
    done.expect(200);
    let after = user.get("/api/v1/tasks/after").await;
    assert_eq!(after.data()["isBlocked"], false);
    assert_eq!(after.data()["versionUpdatedAt"], done.version());
}

/// The one journal segment in `dir`.
fn only_segment(dir: &Path) -> std::path::PathBuf {
    let segments: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    assert_eq!(segments.len(), 1, "{segments:?}");
    segments[0].clone()
}

/// Copies the files of `from` (one level of folders deep) into `to`, leaving out
/// `expected.json` and `LOCK`.
fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if name == "expected.json" || name == "LOCK" {
            continue;
        }
        if path.is_dir() {
            std::fs::create_dir_all(to.join(name)).unwrap();
            copy_dir(&path, &to.join(name));
        } else {
            std::fs::copy(&path, to.join(name)).unwrap();
        }
    }
}

#[actix_web::test]
async fn journal_segments_are_deleted_once_snapshots_cover_them() {
    let mut app = spawn_durable("fsync", 3_600_000);
    for i in 0..20 {
        app.create("tasks", json!({"todoId": format!("t{i}")}))
            .await;
    }
    app.crash();
    let crashed = only_segment(&app.path("journal"));
    let mut app = app.restart_after_stop();
    // Recovery snapshots the space it replayed, though no request uses it.
    let journal = app.path("journal");
    let deleted = wait_until(Duration::from_secs(5), || !crashed.exists());
    assert!(deleted, "{} was kept", crashed.display());
    assert_ne!(only_segment(&journal), crashed);
    app.stop();
    let segments = std::fs::read_dir(&journal).unwrap().count();
    assert_eq!(segments, 0, "a clean stop leaves no segment behind");
    let app = app.restart_after_stop();
    assert_eq!(
        app.default_user()
            .list_all("/api/v1/tasks", 100)
            .await
            .len(),
        20
    );
    assert_eq!(app.space_version().await, 20);
}

/// How many space snapshots the server has written, from `/metrics`.
async fn snapshots_written(app: &TestApp) -> u64 {
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().unwrap().to_string();
    text.lines()
        .find_map(|l| l.strip_prefix("taskd_snapshot_seconds_count "))
        .expect("snapshot count")
        .parse()
        .unwrap()
}

#[actix_web::test]
async fn a_space_is_snapshotted_only_once_the_journal_has_grown_enough() {
    let mut app = spawn_app_with(Options {
        snapshot_interval_ms: 20,
        args: ["--snapshot-min-growth-bytes", "1000000"]
            .map(String::from)
            .to_vec(),
        ..Options::default()
    });
    for i in 0..20 {
        app.create("tasks", json!({"todoId": format!("small{i}")}))
            .await;
    }
    actix_web::rt::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        snapshots_written(&app).await,
        0,
        "20 small writes are not enough"
    );
    let note = "n".repeat(100_000);
    for i in 0..12 {
        app.create(
            "tasks",
            json!({"todoId": format!("big{i}"), "notesMarkdown": note}),
        )
        .await;
    }
    let mut written = 0;
    for _ in 0..250 {
        written = snapshots_written(&app).await;
        if written > 0 {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(written, 1, "1.2 MB of journal calls for one snapshot");
    actix_web::rt::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        snapshots_written(&app).await,
        1,
        "and no more without growth"
    );

    // A crash with journal beyond the snapshot loses nothing.
    for i in 0..20 {
        app.patch(&format!("/api/v1/tasks/small{i}"), json!({"name": "after"}))
            .await
            .expect(200);
    }
    let version = app.space_version().await;
    app.crash();
    let app = app.restart_after_stop();
    assert_eq!(app.space_version().await, version);
    let tasks = app.default_user().list_all("/api/v1/tasks", 100).await;
    assert_eq!(tasks.len(), 32);
    let renamed = tasks.iter().filter(|t| t["name"] == "after").count();
    assert_eq!(renamed, 20);
}

/// One try of the race of a request half sent when SIGTERM arrives, as a client saw it.
struct Try {
    /// The first line of the answer to the half-sent request, or why there was none.
    answer: Result<String, String>,
    /// The first line of the answer to a request on a new connection after the signal,
    /// or why there was none.
    late: Result<String, String>,
    /// How the server exited, and how long after the signal.
    exit: std::process::ExitStatus,
    took: Duration,
    log: String,
}

/// Reads the answer on `stream` to its end (a shutdown's answers are `Connection: close`)
/// and returns its first line, or why there is none.
fn first_line(stream: &mut TcpStream) -> Result<String, String> {
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut reply = Vec::new();
    let read = std::io::Read::read_to_end(stream, &mut reply);
    let text = String::from_utf8_lossy(&reply);
    match text.lines().next() {
        Some(line) if line.starts_with("HTTP/1.1 ") => Ok(line.to_string()),
        _ => Err(format!("{read:?} after {} byte(s)", reply.len())),
    }
}

/// One try of that race on a new server: a connection opened `settle` before the
/// request (`None`: right before it), the request's head and half its body sent, SIGTERM
/// `delay` later (kill(2) itself, not a `kill` process, so the delay is the one asked for),
/// then, well after the server has begun to drain, the rest of the body and a new request.
fn half_sent_body_across_sigterm(settle: Option<Duration>, delay: Duration, n: usize) -> Try {
    let mut app = spawn_durable("fsync", 1000);
    let address = app.address.trim_start_matches("http://").to_string();
    // The server is serving (its workers are up, its acceptor runs) before the race.
    let mut probe = TcpStream::connect(&address).unwrap();
    write!(
        probe,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    assert_eq!(first_line(&mut probe).as_deref(), Ok("HTTP/1.1 200 OK"));

    let body = json!({"todoId": format!("race-{n}"), "name": "half sent"}).to_string();
    let (first, rest) = body.split_at(body.len() / 2);
    let head = format!(
        "POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{first}",
        app.default_token,
        body.len()
    );
    let mut stream = TcpStream::connect(&address).unwrap();
    stream.set_nodelay(true).unwrap();
    if let Some(settle) = settle {
        std::thread::sleep(settle);
    }
    stream.write_all(head.as_bytes()).unwrap();
    std::thread::sleep(delay);
    let pid = rustix::process::Pid::from_raw(app.pid() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let signalled = Instant::now();

    // Past the shutdown's catch-up (at most 250 ms): the server drains while the body is
    // still being read.
    std::thread::sleep(Duration::from_millis(300));
    let late = TcpStream::connect(&address)
        .map_err(|e| format!("connect: {e}"))
        .and_then(|mut late| {
            write!(
                late,
                "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            .map_err(|e| format!("write: {e}"))?;
            first_line(&mut late)
        });
    let answer = stream
        .write_all(rest.as_bytes())
        .map_err(|e| format!("the rest of the body could not be sent: {e}"))
        .and_then(|()| first_line(&mut stream));
    let exit = app.wait();
    Try {
        answer,
        late,
        exit,
        took: signalled.elapsed(),
        log: app.log_text(),
    }
}

#[test]
fn a_request_half_sent_when_sigterm_arrives_is_still_answered() {
    // A request whose head and half its body were sent before SIGTERM is in flight
    // and gets its 201, however the signal falls against the server's accepting, handing
    // over and reading of it; a request begun after the signal is not served. Every try needs
    // its own server, so they run a few at a time (which keeps the machine busy, as the
    // window needs); TASKD_RACE_TRIES sets how many.
    let tries: usize = std::env::var("TASKD_RACE_TRIES")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(120);
    let lanes = 6;
    let ms = Duration::from_millis;
    // (how long before the request its connection was opened, how long after the half body
    // the signal comes)
    let cases = [
        (None, ms(0)),
        (None, ms(1)),
        (None, ms(5)),
        (Some(ms(30)), ms(0)),
        (Some(ms(30)), ms(1)),
        (Some(ms(30)), ms(5)),
        // The head read long before the signal: the body is read during the drain.
        (Some(ms(30)), ms(100)),
    ];
    let next = Arc::new(Mutex::new(0..tries));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let lanes: Vec<_> = (0..lanes)
        .map(|_| {
            let next = Arc::clone(&next);
            let failures = Arc::clone(&failures);
            std::thread::spawn(move || loop {
                let Some(n) = next.lock().unwrap().next() else {
                    return;
                };
                let (settle, delay) = cases[n % cases.len()];
                let t = half_sent_body_across_sigterm(settle, delay, n);
                let answered = t.answer.as_deref() == Ok("HTTP/1.1 201 Created");
                let late_refused = match &t.late {
                    Ok(line) => line.starts_with("HTTP/1.1 503"),
                    Err(_) => true,
                };
                if !answered || !late_refused || !t.exit.success() || t.took > ms(15_000) {
                    failures.lock().unwrap().push(format!(
                        "try {n} (connection opened {settle:?} before the request, SIGTERM \
                         {delay:?} after its half body): {:?}; a request after the signal: \
                         {:?}; {} {:?} after the signal\n{}",
                        t.answer, t.late, t.exit, t.took, t.log
                    ));
                }
            })
        })
        .collect();
    for lane in lanes {
        lane.join().unwrap();
    }
    let failures = failures.lock().unwrap();
    eprintln!(
        "{} of {tries} tries failed, in {:?}",
        failures.len(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
