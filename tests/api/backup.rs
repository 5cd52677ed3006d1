//! Moving data: `taskd backup` while a server writes, `taskd export` and `taskd import`
//! between data directories, and `POST /api/v1/admin/backup` — each checked by starting
//! the real server on the result and comparing through the API.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, Options, TestApp, KINDS};
use crate::persistence::{everything, fill};

/// Runs the `taskd` binary with `args` and no `TASKD_*` variables from the test's
/// environment, and waits for it.
fn taskd(args: &[&str]) -> Output {
    command(args).output().expect("cannot run taskd")
}

/// `taskd import --data-dir DIR --space SPACE FILE`.
fn import(dir: &Path, space: &str, file: &Path) -> Output {
    taskd(&[
        "import",
        "--data-dir",
        path(dir),
        "--space",
        space,
        path(file),
    ])
}

fn command(args: &[&str]) -> Command {
    let mut command = without_taskd_env(Command::new(env!("CARGO_BIN_EXE_taskd")));
    command.args(args).stdin(Stdio::null());
    command
}

/// `command` without the `TASKD_*` variables of the test's environment.
fn without_taskd_env(mut command: Command) -> Command {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TASKD_") {
            command.env_remove(name);
        }
    }
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

/// The records of `state` (see [`everything`]) by collection, each reduced to what an
/// import keeps: ids, field values and deleted state, not the space's timestamps and
/// versions.
fn imported_view(state: &Value) -> Value {
    let dropped = [
        "createdAt",
        "updatedAt",
        "deletedAt",
        "versionUpdatedAt",
        "spaceId",
    ];
    let mut view = serde_json::Map::new();
    for (collection, _) in KINDS {
        let records = state[collection].as_array().expect("records");
        let mut kept: Vec<Value> = records
            .iter()
            .map(|r| {
                let mut r = r.as_object().expect("a record").clone();
                for field in dropped {
                    r.remove(field);
                }
                Value::Object(r)
            })
            .collect();
        kept.sort_by_key(|r| r["id"].as_str().map(str::to_string));
        view.insert(collection.into(), Value::Array(kept));
    }
    Value::Object(view)
}

/// The default user's default space id.
async fn default_space(app: &TestApp) -> String {
    let me = app.get("/api/v1/me").await;
    me.expect(200);
    me.data()["defaultSpaceId"]
        .as_str()
        .expect("defaultSpaceId")
        .to_string()
}

#[actix_web::test]
async fn a_backup_taken_while_a_writer_writes_holds_every_record_answered_before_it() {
    let app = spawn_app_with(Options {
        snapshot_interval_ms: 20,
        ..Options::default()
    });
    fill(app.default_user()).await;
    let before = everything(app.default_user()).await;

    let copy = Arc::new(tempfile::tempdir().unwrap());
    let mut backup = command(&[
        "backup",
        "--data-dir",
        path(app.dir.path()),
        "--to",
        path(copy.path()),
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cannot run taskd backup");
    let mut written = 0;
    while backup.try_wait().unwrap().is_none() {
        app.create("tasks", json!({"name": format!("during {written}")}))
            .await;
        written += 1;
    }
    let done = backup.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", text(&done.stderr));
    let summary = text(&done.stdout);
    assert!(
        summary.contains("1 space(s), 1 user(s)") && summary.contains("bytes"),
        "{summary}"
    );
    // Not a terminal: no progress line, only the summary.
    assert_eq!(text(&done.stderr), "");
    assert_eq!(summary.lines().count(), 1, "{summary}");
    assert!(!copy.path().join("LOCK").exists());

    // The writes never stopped, and the source still serves.
    app.create("tasks", json!({"name": "after"})).await;
    let restored = TestApp::start(copy, Options::default()).expect("a server on the copy");
    let after = everything(restored.default_user()).await;
    assert!(after["version"].as_u64() >= before["version"].as_u64());
    for (collection, _) in KINDS {
        for record in before[collection].as_array().unwrap() {
            let path = format!("/api/v1/{collection}/{}", record["id"].as_str().unwrap());
            let reply = restored.get(&path).await;
            reply.expect(200);
            assert_eq!(reply.data(), record, "{path} differs in the copy");
        }
    }
}

#[actix_web::test]
async fn an_export_imported_into_a_fresh_space_gives_back_every_record_and_deleted_state() {
    let source = spawn_app();
    fill(source.default_user()).await;
    let original = everything(source.default_user()).await;
    let file = tempfile::NamedTempFile::new().unwrap();
    let exported = taskd(&[
        "export",
        "--data-dir",
        path(source.dir.path()),
        "--user",
        "default",
        "--to",
        path(file.path()),
    ]);
    assert!(exported.status.success(), "{}", text(&exported.stderr));
    // Not a terminal: no progress line, only the summary.
    assert_eq!(text(&exported.stderr), "");
    assert!(
        text(&exported.stdout).starts_with("exported ") && exported.stdout.ends_with(b"space(s)\n"),
        "{}",
        text(&exported.stdout)
    );
    assert_eq!(text(&exported.stdout).lines().count(), 1);
    let lines = std::fs::read_to_string(file.path()).unwrap();
    let kinds: Vec<String> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].to_string())
        .collect();
    let first_task = kinds.iter().position(|k| k == "\"task\"").unwrap();
    assert!(
        kinds[first_task..].iter().all(|k| k == "\"task\""),
        "{kinds:?}"
    );

    let mut target = spawn_app();
    let space = default_space(&target).await;
    assert!(target.stop().success());
    let imported = import(target.dir.path(), &space, file.path());
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    assert_eq!(text(&imported.stderr), "");
    let summary = text(&imported.stdout);
    assert!(
        summary.starts_with("imported ") && summary.lines().count() == 1,
        "{summary}"
    );
    let target = target.restart_after_stop();
    let copy = everything(target.default_user()).await;
    assert_eq!(imported_view(&copy), imported_view(&original));

    // The space goes on above every version the import made.
    let highest = KINDS
        .iter()
        .flat_map(|(c, _)| copy[c].as_array().unwrap().clone())
        .filter_map(|r| r["versionUpdatedAt"].as_u64())
        .max()
        .unwrap();
    let next = target.create("tasks", json!({"name": "next"})).await;
    assert!(next["versionUpdatedAt"].as_u64().unwrap() > highest);
}

/// What `taskd args` printed on a terminal, as a person at a shell has one: `script`
/// (util-linux) runs it on a pseudo-terminal (`TERM=xterm`) and keeps all of it, escape
/// codes included; `None` without `script`.
fn on_a_terminal(args: &[&str]) -> Option<String> {
    let script = Command::new("script").arg("--version").output();
    if !script.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let line = [env!("CARGO_BIN_EXE_taskd")]
        .iter()
        .chain(args)
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let out = without_taskd_env(Command::new("script"))
        .args(["-qec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output()
        .expect("cannot run script");
    let screen = text(&out.stdout);
    assert!(out.status.success(), "{screen}");
    Some(screen)
}

/// The first line drawn on `screen` that contains `label`, then checks that the progress
/// was cleared (erase-line) right before `summary`, which nothing of it follows.
fn progress_line<'a>(screen: &'a str, label: &str, summary: &str) -> &'a str {
    let drawn = screen
        .split(['\r', '\n'])
        .find(|l| l.contains(label))
        .unwrap_or_else(|| panic!("no '{label}' line drawn:\n{screen:?}"));
    let at = screen.find(summary).expect("the summary");
    let (before, after) = screen.split_at(at);
    assert!(
        before.rfind("\x1b[2K") > before.rfind(label),
        "the last line drawn is not erased: {screen:?}"
    );
    assert!(!after.contains(label), "{screen:?}");
    drawn
}

#[actix_web::test]
async fn on_a_terminal_the_tools_draw_their_progress_then_clear_it_for_the_summary() {
    let mut app = spawn_app();
    let space = default_space(&app).await;
    assert!(app.stop().success());
    let records = 40_000;
    let file = tempfile::NamedTempFile::new().unwrap();
    let body: String = (0..records)
        .map(|i| {
            let line = json!({"kind": "task", "record": {"todoId": format!("t{i}"), "name": "n"}});
            format!("{line}\n")
        })
        .collect();
    std::fs::write(file.path(), body).unwrap();
    let dir = path(app.dir.path());
    let import = [
        "import",
        "--data-dir",
        dir,
        "--space",
        &space,
        path(file.path()),
    ];
    let Some(screen) = on_a_terminal(&import) else {
        eprintln!("SKIPPED: no script(1) (util-linux) to give the tools a terminal");
        return;
    };
    // The line is drawn as it starts (then 5 times a second), so even a short read shows.
    let summary = format!("imported {records} record(s) (0 deleted) into space {space}");
    let drawn = progress_line(&screen, "importing [", &summary);
    assert!(
        drawn.contains(" MiB") && drawn.contains("/s, ") && drawn.contains(" left"),
        "{drawn:?}"
    );

    let out = tempfile::tempdir().unwrap();
    let export = out.path().join("export.ndjson");
    let screen = on_a_terminal(&["export", "--data-dir", dir, "--to", path(&export)]).unwrap();
    let drawn = progress_line(
        &screen,
        "exporting [",
        "exported 40000 record(s) of 1 space(s)",
    );
    assert!(drawn.contains("/40,000 records, "), "{drawn:?}");

    let copy = out.path().join("copy");
    let screen = on_a_terminal(&["backup", "--data-dir", dir, "--to", path(&copy)]).unwrap();
    progress_line(&screen, "backing up ", "backed up ");
}

#[actix_web::test]
async fn an_import_with_a_bad_line_names_it_and_changes_nothing() {
    let mut app = spawn_app();
    app.create("lists", json!({"listId": "kept", "name": "Kept"}))
        .await;
    let space = default_space(&app).await;
    let before = everything(app.default_user()).await;
    assert!(app.stop().success());

    let file = tempfile::NamedTempFile::new().unwrap();
    let bad_value = [
        json!({"kind": "list", "record": {"listId": "a", "name": "A"}}),
        json!({"kind": "task", "record": {"todoId": "t", "listId": "a"}}),
        json!({"kind": "task", "record": {"todoId": "u", "durationMs": -1}}),
    ];
    // A dangling reference is found when the records are applied, still by its line.
    let bad_reference = [
        json!({"kind": "list", "record": {"listId": "a", "name": "A"}}),
        json!({"kind": "task", "record": {"todoId": "u", "listId": "nowhere"}}),
    ];
    for (lines, line_no, field) in [
        (&bad_value[..], 3, "durationMs"),
        (&bad_reference[..], 2, "nowhere"),
    ] {
        let body: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(file.path(), body.join("\n") + "\n").unwrap();
        let out = import(app.dir.path(), &space, file.path());
        assert_eq!(out.status.code(), Some(1));
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with("taskd: ")
                && stderr.contains(&format!("line {line_no}"))
                && stderr.contains(field),
            "{stderr}"
        );
    }
    let app = app.restart_after_stop();
    assert_eq!(everything(app.default_user()).await, before);
}

#[actix_web::test]
async fn an_import_while_a_server_holds_the_data_directory_is_refused() {
    let app = spawn_app();
    let space = default_space(&app).await;
    let file = tempfile::NamedTempFile::new().unwrap();
    let line = json!({"kind": "task", "record": {"todoId": "t"}});
    std::fs::write(file.path(), line.to_string()).unwrap();
    let out = import(app.dir.path(), &space, file.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("stop the server"), "{stderr}");
    app.get("/api/v1/tasks/t").await.expect(404);
}

#[actix_web::test]
async fn the_admin_backup_route_copies_the_data_directory_for_the_admin_only() {
    let app = spawn_app();
    fill(app.default_user()).await;
    let copy = tempfile::tempdir().unwrap();
    let to = copy.path().join("backup");
    let admin = |body: Value| {
        let token = app.admin_token.clone();
        let app = &app;
        async move {
            app.call(Method::POST, "/api/v1/admin/backup", &token, Some(&body))
                .await
        }
    };

    let reply = admin(json!({"to": to})).await;
    reply.expect(200);
    assert_eq!(reply.data()["to"], json!(to));
    assert_eq!(reply.data()["spaces"], 1);
    assert_eq!(reply.data()["users"], 1);
    assert!(reply.data()["bytes"].as_u64().unwrap() > 0);
    // The copy recovers (a backup of it runs the normal recovery).
    let again = copy.path().join("again");
    let summary = text(&taskd(&["backup", "--data-dir", path(&to), "--to", path(&again)]).stdout);
    assert!(summary.contains("1 space(s), 1 user(s)"), "{summary}");

    for bad in [json!({}), json!({"to": "/x", "more": 1}), json!({"to": 7})] {
        let reply = admin(bad).await;
        reply.expect(400);
        assert_eq!(reply.body["code"], "validation_failed");
    }
    // The target's own rules (§9a): nothing is created for a refused one.
    let inside = app.path("spaces/evil.bin");
    let tricky = copy
        .path()
        .join("..")
        .join(app.dir.path().file_name().unwrap())
        .join("spaces/x");
    let plain = copy.path().join("plain");
    std::fs::write(&plain, b"a file").unwrap();
    let through = copy.path().join("link");
    std::os::unix::fs::symlink(app.dir.path(), &through).unwrap();
    for bad in [
        json!({"to": to}),                               // not empty
        json!({"to": "relative/dir"}),                   // not absolute
        json!({"to": app.dir.path()}),                   // the data directory
        json!({"to": inside}),                           // inside it
        json!({"to": through.join("journal2")}),         // inside it, through a link
        json!({"to": tricky}),                           // inside it, through `..`
        json!({"to": copy.path().join("nul\u{0}byte")}), // not printable
        json!({"to": copy.path().join("tab\tbyte")}),
        json!({"to": plain.join("below")}), // below a file
    ] {
        let reply = admin(bad.clone()).await;
        assert_problem(&reply, 400, "invalid_parameter");
    }
    assert!(!inside.exists());
    assert!(!app.path("journal2").exists());
    // The server still starts: nothing a refused backup did is in its way.
    let mut app = app;
    app.stop();
    let app = app.restart_after_stop();
    let user = app
        .call(
            Method::POST,
            "/api/v1/admin/backup",
            &app.default_token.clone(),
            Some(&json!({"to": copy.path().join("other")})),
        )
        .await;
    user.expect(403);
    assert!(!copy.path().join("other").exists());
}
