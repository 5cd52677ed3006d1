//! Replication (docs §16) with real processes: the journal appended to a real NATS
//! JetStream stream with fencing, one primary by lease, standbys that follow it and answer
//! `503 not_primary`, nodes brought to the stream at start, and the cases S1–S8 of the
//! design notes (kill -9, SIGSTOP, a network cut, a planned stop, NATS and its stream leader
//! killed, lost acknowledgements, a late standby, split batches) through HAProxy too. Needs `nats-server` on the PATH (`.ci/run`
//! installs Debian's and sets `TASKD_REQUIRE_NATS`); without it each test says so and
//! passes.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, wait_until, Options, Reply, TestApp};

/// A JetStream-enabled `nats-server` on a free port, killed on drop.
pub(crate) struct Nats {
    child: Child,
    pub(crate) url: String,
    store: tempfile::TempDir,
}

impl Nats {
    /// Kills the server (`kill -9`) and starts it again on the same port and store after
    /// `down`.
    fn crash_and_restart(&mut self, down: Duration) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(down);
        let port = self.url.rsplit(':').next().unwrap().to_string();
        let (child, _) = spawn_nats(&self.store, &port).expect("nats-server restarts");
        self.child = child;
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `nats-server` on `port` (`-1`: a free one) with its store in `store`; the
/// process and its client URL, once it is ready.
fn spawn_nats(store: &tempfile::TempDir, port: &str) -> Option<(Child, String)> {
    let mut child = Command::new("nats-server")
        .args(["-js", "-a", "127.0.0.1", "-p", port, "-sd"])
        .arg(store.path())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut url = None;
    for line in stderr.lines() {
        let line = line.unwrap();
        if let Some(at) = line.find("Listening for client connections on ") {
            let address = &line[at + "Listening for client connections on ".len()..];
            url = Some(format!("nats://{}", address.trim()));
        }
        if line.contains("Server is ready") {
            break;
        }
    }
    Some((child, url.expect("nats-server printed its client address")))
}

/// Starts `nats-server`, or `None` when there is none here.
pub(crate) fn nats() -> Option<Nats> {
    let store = tempfile::tempdir().unwrap();
    let Some((child, url)) = spawn_nats(&store, "-1") else {
        // CI installs it and sets this, so that a missing server fails there.
        assert!(
            std::env::var_os("TASKD_REQUIRE_NATS").is_none(),
            "TASKD_REQUIRE_NATS is set but nats-server cannot be started"
        );
        eprintln!("nats-server is not installed: replication test skipped");
        return None;
    };
    Some(Nats { child, url, store })
}

/// A taskd node of cluster `test` on `nats`, named `node`, on `dir`.
fn node(nats: &Nats, name: &str, dir: Arc<tempfile::TempDir>) -> TestApp {
    node_on(&nats.url, name, dir, &[])
}

/// A taskd node of cluster `test` on the NATS servers `urls`, with more `args`.
pub(crate) fn node_on(
    urls: &str,
    name: &str,
    dir: Arc<tempfile::TempDir>,
    args: &[&str],
) -> TestApp {
    TestApp::start(dir, node_options(urls, name, args))
        .unwrap_or_else(|f| panic!("node {name} did not start: {f:#?}"))
}

/// How a node of cluster `test` named `name` is started, with more `args`.
fn node_options(urls: &str, name: &str, args: &[&str]) -> Options {
    let mut all: Vec<String> = ["--nats", urls, "--node", name, "--cluster", "test"]
        .into_iter()
        .map(String::from)
        .collect();
    all.extend(args.iter().map(|a| a.to_string()));
    Options {
        args: all,
        ..Options::default()
    }
}

async fn health(app: &TestApp, path: &str) -> (u16, Value) {
    let reply = app.send(app.request(Method::GET, path), None).await;
    (reply.status, reply.body)
}

/// Whether `app` answers that it is the primary (`false` while it does not answer at all,
/// as while it restarts).
async fn is_primary(app: &TestApp) -> bool {
    let sent = app.request(Method::GET, "/healthz/primary").send().await;
    sent.is_ok_and(|r| r.status().as_u16() == 200)
}

/// Waits until `app` says it is the primary, at most `limit`; how long it took.
pub(crate) async fn primary_within(app: &TestApp, limit: Duration) -> Duration {
    let started = Instant::now();
    while started.elapsed() < limit {
        if is_primary(app).await {
            return started.elapsed();
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("not primary within {limit:?}: {}", app.log_text());
}

/// Waits until `app` says it is the primary.
pub(crate) async fn until_primary(app: &TestApp) {
    primary_within(app, Duration::from_secs(10)).await;
}

/// Node `a` started again on `dir`, once it leads again (its old lease lapses first,
/// within 5 s).
async fn restarted(nats: &Nats, dir: Arc<tempfile::TempDir>) -> TestApp {
    let a = node(nats, "a", dir);
    let ready = wait_until(Duration::from_secs(15), || {
        a.log_text().contains("is primary")
    });
    assert!(ready, "{}", a.log_text());
    until_primary(&a).await;
    a
}

#[actix_web::test]
async fn the_primary_appends_every_write_and_a_second_node_is_a_standby_that_holds_them() {
    let Some(nats) = nats() else { return };
    let a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let user = a.default_user();
    for i in 0..20 {
        user.post("/api/v1/tasks", json!({"todoId": format!("t{i}")}))
            .await
            .expect(201);
    }
    let (status, body) = health(&a, "/healthz").await;
    assert_eq!(status, 200);
    assert_eq!(
        (body["role"].as_str(), body["node"].as_str()),
        (Some("primary"), Some("a"))
    );
    // The epoch entry, the bootstrap's changes are local; 20 writes at least in batches.
    assert!(body["appliedSeq"].as_u64().unwrap() >= 2, "{body}");
    assert_eq!(body["lagSeq"], 0);

    // A second node catches up from the stream at start, then waits: a standby.
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let (status, body) = health(&b, "/healthz").await;
    assert_eq!(
        (status, body["role"].as_str()),
        (200, Some("standby")),
        "{body}"
    );
    assert_eq!(health(&b, "/healthz/primary").await.0, 503);
    let refused = b.default_user().get("/api/v1/me").await;
    assert_problem(&refused, 503, "not_primary");
    assert_eq!(refused.header("retry-after"), Some("1"));
    // The CalDAV front serves the same data, so a standby refuses it too.
    let dav = b
        .authorized(
            actix_web::http::Method::from_bytes(b"PROPFIND").unwrap(),
            "/dav/",
        )
        .insert_header(("Depth", "0"));
    assert_problem(&b.send(dav, None).await, 503, "not_primary");
    let metrics = b.metrics().await;
    assert!(metrics
        .body
        .as_str()
        .unwrap()
        .contains("taskd_replication_primary 0"));
    // The primary's §16 metrics: role, applied sequence, lag, appends, lease changes.
    let scrape = crate::ecosystem::scrape(&a).await;
    let value = |family| crate::ecosystem::value(&scrape, family, &[]);
    assert_eq!(value("taskd_replication_primary"), 1.0);
    assert!(value("taskd_replication_applied_seq") >= 2.0);
    assert_eq!(value("taskd_replication_lag"), 0.0);
    assert!(value("taskd_replication_append_seconds") >= 20.0);
    assert_eq!(value("taskd_replication_lease_changes"), 1.0);
    assert_eq!(value("taskd_replication_fenced"), 0.0);
    // Every write of the primary is in the standby's journal: its log says so.
    let applied = body["appliedSeq"].as_u64().unwrap();
    let (_, primary) = health(&a, "/healthz").await;
    assert_eq!(applied, primary["appliedSeq"].as_u64().unwrap());
}

#[actix_web::test]
async fn a_standby_applies_the_stream_to_memory_and_snapshots_it_as_a_primary_would() {
    let Some(nats) = nats() else { return };
    let a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let few = ["--snapshot-min-growth-bytes", "1"];
    let b = node_on(&nats.url, "b", Arc::new(tempfile::tempdir().unwrap()), &few);
    let user = a.default_user();
    for i in 0..100 {
        user.post("/api/v1/tasks", json!({"todoId": format!("m{i}")}))
            .await
            .expect(201);
    }
    // The records reach b's memory (its record counts), and b writes the space's snapshot,
    // which lets its journal drop what the snapshot holds.
    let me = user.get("/api/v1/me").await;
    let space = me.data()["defaultSpaceId"].as_str().unwrap().to_string();
    let file = b.path(&format!("spaces/{space}.bin"));
    let started = Instant::now();
    loop {
        let scrape = crate::ecosystem::scrape(&b).await;
        let records = crate::ecosystem::value(&scrape, "taskd_records", &[("kind", "task")]);
        let len = std::fs::metadata(&file).map_or(0, |m| m.len());
        if records == 100.0 && len > 100 * 50 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "b holds {records} tasks, its snapshot {len} bytes"
        );
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

#[actix_web::test]
async fn a_primary_whose_append_is_refused_answers_no_write_and_restarts_from_the_stream() {
    let Some(nats) = nats() else { return };
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let mut a = node(&nats, "a", Arc::clone(&dir));
    until_primary(&a).await;
    let user = a.default_user();
    user.post("/api/v1/tasks", json!({"todoId": "kept"}))
        .await
        .expect(201);

    // Another writer appends to the stream: the next append of `a` is fenced.
    let client = async_nats::connect(&nats.url).await.unwrap();
    let js = async_nats::jetstream::new(client);
    js.publish("taskd.test.log", bytes::Bytes::new())
        .await
        .unwrap()
        .await
        .unwrap();
    let fenced = user.post("/api/v1/tasks", json!({"todoId": "lost"})).await;
    assert_problem(&fenced, 503, "not_primary");
    assert_eq!(health(&a, "/healthz/primary").await.0, 503);
    assert_problem(&user.get("/api/v1/tasks/kept").await, 503, "not_primary");
    let logged = wait_until(Duration::from_secs(5), || a.log_text().contains("fenced"));
    assert!(logged, "{}", a.log_text());

    // Restarted, it takes the stream's last entry, holds all of it, and leads again (its
    // old lease lapses first, within 5 s): the refused write is not there.
    a.crash();
    let a = restarted(&nats, dir).await;
    let user = a.default_user();
    user.get("/api/v1/tasks/kept").await.expect(200);
    assert_problem(&user.get("/api/v1/tasks/lost").await, 404, "not_found");
    user.post("/api/v1/tasks", json!({"todoId": "after"}))
        .await
        .expect(201);
}

#[actix_web::test]
async fn every_answered_write_survives_kill_9_of_the_primary_and_a_restart() {
    let Some(nats) = nats() else { return };
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let mut a = node(&nats, "a", Arc::clone(&dir));
    until_primary(&a).await;
    let killer = crate::durability::kill_after(&a, Duration::from_millis(1500));
    let answered = crate::durability::write_until_killed(&a, 8, "r", "replicated").await;
    killer.join().unwrap();
    a.wait();
    drop(a);
    let a = restarted(&nats, dir).await;
    let user = a.default_user();
    for (id, version) in &answered {
        let reply = user.get(&format!("/api/v1/tasks/{id}")).await;
        assert_eq!(
            reply.expect(200).data()["versionUpdatedAt"],
            *version,
            "{id}"
        );
    }
    assert!(!answered.is_empty());
}

#[actix_web::test]
async fn a_standby_follows_the_stream_and_takes_over_within_10_s_of_a_kill_9_with_every_answered_write(
) {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let killer = crate::durability::kill_after(&a, Duration::from_millis(1500));
    let answered = crate::durability::write_until_killed(&a, 8, "f", "failover").await;
    killer.join().unwrap();
    a.wait();
    assert!(!answered.is_empty());

    // b follows to the end, into memory, sees the lease lapse and leads, without a restart.
    let gap = primary_within(&b, Duration::from_secs(15)).await;
    eprintln!(
        "failover: b primary {gap:?} after the kill, {} answered writes",
        answered.len()
    );
    assert!(gap < Duration::from_secs(10), "{gap:?}");
    assert!(!b.log_text().contains("restarting"), "{}", b.log_text());
    let user = b.default_user();
    for (id, version) in &answered {
        let reply = user.get(&format!("/api/v1/tasks/{id}")).await;
        assert_eq!(
            reply.expect(200).data()["versionUpdatedAt"],
            *version,
            "{id}"
        );
    }
    // It writes on, above every version the old primary answered.
    let top = answered.iter().map(|(_, v)| *v).max().unwrap();
    let next = user.post("/api/v1/tasks", json!({"todoId": "after"})).await;
    assert!(next.expect(201).version() > top);
}

#[actix_web::test]
async fn a_paused_primary_is_replaced_and_once_woken_answers_no_write() {
    let Some(nats) = nats() else { return };
    let a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let user = a.default_user();
    user.post("/api/v1/tasks", json!({"todoId": "before"}))
        .await
        .expect(201);
    // An invitation is replicated like any directory change (§21): made on a, pending and
    // accepted on b.
    let bob = a.create_user("bob").await;
    let team = user.post("/api/v1/spaces", json!({"name": "team"})).await;
    let team = team.expect(201).data()["spaceId"]
        .as_str()
        .unwrap()
        .to_string();
    user.put(
        &format!("/api/v1/spaces/{team}/members/{}", bob.user_id),
        json!({"role": "editor"}),
    )
    .await
    .expect(201);
    let signal = |name: &str| {
        let sent = Command::new("kill")
            .args([name, &a.pid().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    };
    signal("-STOP");
    let gap = primary_within(&b, Duration::from_secs(15)).await;
    eprintln!("SIGSTOP: b primary {gap:?} after the pause");
    assert!(gap < Duration::from_secs(10), "{gap:?}");
    let on_b = b.default_user();
    on_b.get("/api/v1/tasks/before").await.expect(200);
    let bob_on_b = b.user(&bob.token);
    let pending = bob_on_b.get("/api/v1/invitations").await;
    assert_eq!(pending.expect(200).data()[0]["spaceId"], *team);
    bob_on_b
        .post(&format!("/api/v1/spaces/{team}/accept"), json!({}))
        .await
        .expect(200);
    bob_on_b
        .get(&format!("/api/v1/tasks?spaceId={team}"))
        .await
        .expect(200);
    on_b.post("/api/v1/tasks", json!({"todoId": "on-b"}))
        .await
        .expect(201);
    signal("-CONT");

    // Woken, the old primary finds its lease taken or its append refused: no write of it
    // is answered, and b's stream goes on without it.
    let late = user.post("/api/v1/tasks", json!({"todoId": "late"})).await;
    assert_problem(&late, 503, "not_primary");
    let logged = wait_until(Duration::from_secs(5), || a.log_text().contains("fenced"));
    assert!(logged, "{}", a.log_text());
    // Then it restarts on its data dir and follows b as a standby.
    let back = wait_until(Duration::from_secs(20), || {
        a.log_text()
            .contains("restarting to come back as a standby")
            && a.log_text().matches("taskd listening").count() == 2
    });
    assert!(back, "{}", a.log_text());
    on_b.post("/api/v1/tasks", json!({"todoId": "after-a-came-back"}))
        .await
        .expect(201);
    let (_, on_primary) = health(&b, "/healthz").await;
    let started = Instant::now();
    loop {
        let (_, standby) = health(&a, "/healthz").await;
        if standby["role"] == "standby" && standby["appliedSeq"] == on_primary["appliedSeq"] {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{standby} vs {on_primary}"
        );
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(health(&a, "/healthz/primary").await.0, 503);
    assert_problem(&on_b.get("/api/v1/tasks/late").await, 404, "not_found");
    on_b.post("/api/v1/tasks", json!({"todoId": "after"}))
        .await
        .expect(201);
}

#[actix_web::test]
async fn a_planned_stop_of_the_primary_hands_over_to_the_standby() {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let user = a.default_user();
    for i in 0..50 {
        user.post("/api/v1/tasks", json!({"todoId": format!("h{i}")}))
            .await
            .expect(201);
    }
    let term = Command::new("kill")
        .args(["-TERM", &a.pid().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let gap = primary_within(&b, Duration::from_secs(15)).await;
    eprintln!("planned handover: b primary {gap:?} after SIGTERM of a");
    assert!(gap < Duration::from_secs(5), "{gap:?}\n{}", b.log_text());
    assert!(a.wait().success());
    let on_b = b.default_user();
    for i in 0..50 {
        on_b.get(&format!("/api/v1/tasks/h{i}")).await.expect(200);
    }
}

#[actix_web::test]
async fn a_group_commit_over_the_message_limit_is_split_and_a_late_standby_takes_all_of_it() {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let user = a.default_user();
    // Batches of about 1 MB with an idempotency key: each journal entry holds the records
    // and the answer kept for the key (the records again), about 2 MB, over the 1 MiB a
    // stream message holds, so split.
    let notes = "n".repeat(99_000);
    for b in 0..3 {
        let operations: Vec<Value> = (0..10)
            .map(|i| {
                json!({"method": "POST", "path": "/api/v1/tasks",
                       "body": {"todoId": format!("big{b}-{i}"), "notesMarkdown": notes}})
            })
            .collect();
        let key = format!("big-{b}");
        user.send_with(
            Method::POST,
            "/api/v1/batch",
            Some(&json!({ "operations": operations })),
            &[("Idempotency-Key", &key)],
        )
        .await
        .expect(200);
    }
    let client = async_nats::connect(&nats.url).await.unwrap();
    let js = async_nats::jetstream::new(client);
    let stream = js.get_stream("taskd_test").await.unwrap();
    let last = stream.get_info().await.unwrap().state.last_sequence;
    let mut parts = 0;
    for seq in 1..=last {
        let message = stream.get_raw_message(seq).await.unwrap();
        parts += usize::from(message.payload.len() > 1_000_000);
    }
    assert!(parts > 0, "no group commit was split over {last} messages");

    // A standby started after it catches up, follows one more write, and takes over.
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    user.post("/api/v1/tasks", json!({"todoId": "small"}))
        .await
        .expect(201);
    a.stop();
    primary_within(&b, Duration::from_secs(15)).await;
    let on_b = b.default_user();
    for b in 0..3 {
        for i in 0..10 {
            let task = on_b.get(&format!("/api/v1/tasks/big{b}-{i}")).await;
            assert_eq!(task.expect(200).data()["notesMarkdown"], notes.as_str());
        }
    }
    on_b.get("/api/v1/tasks/small").await.expect(200);
    // The answers kept for the keys came along: a retry on the new primary is a replay.
    let operations: Vec<Value> = (0..10)
        .map(|i| {
            json!({"method": "POST", "path": "/api/v1/tasks",
                   "body": {"todoId": format!("big0-{i}"), "notesMarkdown": notes}})
        })
        .collect();
    let retry = on_b
        .send_with(
            Method::POST,
            "/api/v1/batch",
            Some(&json!({ "operations": operations })),
            &[("Idempotency-Key", "big-0")],
        )
        .await;
    retry.expect(200);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
}

#[actix_web::test]
async fn the_first_parts_of_a_batch_whose_primary_died_stop_no_standby_from_taking_over() {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let mut b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    a.default_user()
        .post("/api/v1/tasks", json!({"todoId": "before"}))
        .await
        .expect(201);
    // The first part of a split batch, as a primary that dies before appending the second
    // leaves it: a whole part's length, its one frame running past the message's end.
    let mut part = vec![0u8; (1 << 20) - 1024];
    part[..4].copy_from_slice(&2_000_000u32.to_le_bytes());
    let client = async_nats::connect(&nats.url).await.unwrap();
    let js = async_nats::jetstream::new(client);
    js.publish("taskd.test.log", part.into())
        .await
        .unwrap()
        .await
        .unwrap();
    a.crash();

    // b holds everything but those parts, which will never be whole: it takes over, and
    // its epoch entry drops them.
    let gap = primary_within(&b, Duration::from_secs(15)).await;
    assert!(gap < Duration::from_secs(10), "{gap:?}");
    let dropped = "bytes of a batch its primary never finished appending";
    assert!(b.log_text().contains(dropped), "{}", b.log_text());
    let on_b = b.default_user();
    on_b.get("/api/v1/tasks/before").await.expect(200);
    on_b.post("/api/v1/tasks", json!({"todoId": "after"}))
        .await
        .expect(201);

    // A node started later reads the parts, the epoch entry after them and the rest, and
    // holds the stream without the parts.
    let c = node(&nats, "c", Arc::new(tempfile::tempdir().unwrap()));
    until_caught_up(&b, &c).await;
    assert_eq!(health(&c, "/healthz").await.1["role"], "standby");
    assert!(c.log_text().contains(dropped), "{}", c.log_text());
    b.stop();
    primary_within(&c, Duration::from_secs(15)).await;
    let on_c = c.default_user();
    on_c.get("/api/v1/tasks/before").await.expect(200);
    on_c.get("/api/v1/tasks/after").await.expect(200);
}

/// HAProxy in front of `nodes` as `deploy/haproxy.cfg` sets it up, on a free port; killed on
/// drop. `None` when there is no haproxy here.
struct Proxy {
    child: Child,
    address: String,
    _config: tempfile::TempDir,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn proxy(nodes: &[&TestApp]) -> Option<Proxy> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let template = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/haproxy.cfg"),
    )
    .unwrap();
    // The shipped file, with this test's nodes, and its address through the environment.
    let mut config: String = template
        .lines()
        .filter(|l| !l.trim_start().starts_with("server "))
        .map(|l| format!("{l}\n"))
        .collect();
    for (i, app) in nodes.iter().enumerate() {
        let address = app.address.trim_start_matches("http://");
        config.push_str(&format!("    server n{i} {address} check\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("haproxy.cfg");
    std::fs::write(&path, config).unwrap();
    let spawned = Command::new("haproxy")
        .env("TASKD_PROXY_BIND", format!("127.0.0.1:{port}"))
        .arg("-f")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(child) = spawned else {
        assert!(
            std::env::var_os("TASKD_REQUIRE_NATS").is_none(),
            "TASKD_REQUIRE_NATS is set but haproxy cannot be started"
        );
        eprintln!("haproxy is not installed: proxy test skipped");
        return None;
    };
    Some(Proxy {
        child,
        address: format!("http://127.0.0.1:{port}"),
        _config: dir,
    })
}

#[actix_web::test]
async fn through_haproxy_writers_that_retry_503_lose_nothing_across_a_kill_9_of_the_primary() {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let Some(proxy) = proxy(&[&a, &b]) else {
        return;
    };
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(5))
        .finish();
    let token = a.default_token.clone();
    // Each writer sends tasks through the proxy, retrying a refused or lost request with its
    // key until it is answered; it records every answered write and the longest wait. The
    // primary is killed once a third of the writes are answered, so the rest span the
    // failover however fast the writes go.
    let total = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = |w: usize| {
        let (client, token, base) = (client.clone(), token.clone(), proxy.address.clone());
        let total = Arc::clone(&total);
        async move {
            let mut answered = Vec::new();
            let mut longest = Duration::ZERO;
            for i in 0..150 {
                let id = format!("p{w}-{i}");
                let started = Instant::now();
                loop {
                    let sent = client
                        .post(format!("{base}/api/v1/tasks"))
                        .insert_header(("Authorization", format!("Bearer {token}")))
                        .insert_header(("Idempotency-Key", id.clone()))
                        .send_json(&json!({ "todoId": id }))
                        .await;
                    if let Ok(mut response) = sent {
                        if response.status().as_u16() == 201 {
                            let reply: Value = response.json().await.unwrap();
                            answered.push((id.clone(), reply["spaceVersion"].as_u64().unwrap()));
                            total.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            break;
                        }
                    }
                    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
                }
                longest = longest.max(started.elapsed());
            }
            (answered, longest)
        }
    };
    let pid = a.pid().to_string();
    let answered = Arc::clone(&total);
    let killer = std::thread::spawn(move || {
        while answered.load(std::sync::atomic::Ordering::SeqCst) < 200 {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(Command::new("kill")
            .args(["-9", &pid])
            .status()
            .unwrap()
            .success());
    });
    let results = futures_util::future::join_all((0..4).map(writer)).await;
    killer.join().unwrap();
    a.wait();
    let gap = results.iter().map(|(_, longest)| *longest).max().unwrap();
    eprintln!("through haproxy: longest wait for one write across the failover {gap:?}");
    assert!(gap < Duration::from_secs(10), "{gap:?}");
    let on_b = b.default_user();
    let mut versions = std::collections::HashSet::new();
    for (answered, _) in &results {
        assert_eq!(answered.len(), 150);
        for (id, version) in answered {
            let task = on_b.get(&format!("/api/v1/tasks/{id}")).await;
            assert_eq!(
                task.expect(200).data()["versionUpdatedAt"],
                *version,
                "{id}"
            );
            assert!(
                versions.insert(*version),
                "version {version} answered twice"
            );
        }
    }
}

#[actix_web::test]
async fn while_nats_is_down_writes_wait_or_get_503_and_once_it_is_back_they_resume_losing_nothing()
{
    let Some(mut nats) = nats() else { return };
    let options = Options {
        args: vec![
            "--nats".into(),
            nats.url.clone(),
            "--node".into(),
            "a".into(),
            "--cluster".into(),
            "test".into(),
            "--storage-timeout-ms".into(),
            "1000".into(),
        ],
        ..Options::default()
    };
    let a = TestApp::start(Arc::new(tempfile::tempdir().unwrap()), options).unwrap();
    until_primary(&a).await;
    let user = a.default_user();
    user.post("/api/v1/tasks", json!({"todoId": "before"}))
        .await
        .expect(201);
    // NATS is killed 0.3 s into the writes and is back 2 s later.
    let outage = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        nats.crash_and_restart(Duration::from_secs(2));
        nats
    });
    // Writes wait or get 503 meanwhile, and resume by themselves (the node may restart to
    // lead again); each answered one stays, one answered 503 is there or not, never half.
    let started = Instant::now();
    let (mut answered, mut refused, mut after) = (Vec::new(), 0, 0);
    let (mut last_ok, mut gap) = (Instant::now(), Duration::ZERO);
    for i in 0.. {
        assert!(
            started.elapsed() < Duration::from_secs(40),
            "{}",
            a.log_text()
        );
        let id = format!("n{i}");
        let sent = a
            .request(Method::POST, "/api/v1/tasks")
            .insert_header(("Authorization", format!("Bearer {}", a.default_token)))
            .timeout(Duration::from_secs(15))
            .send_json(&json!({ "todoId": id }))
            .await;
        match sent.map(|r| r.status().as_u16()) {
            Ok(201) => {
                gap = gap.max(last_ok.elapsed());
                last_ok = Instant::now();
                answered.push(id);
                if outage.is_finished() {
                    after += 1;
                    if after >= 5 {
                        break;
                    }
                }
            }
            Ok(503) => refused += 1,
            _ => {}
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    let _nats = outage.join().unwrap();
    eprintln!(
        "NATS down 2 s: longest time without an answered write {gap:?}, {refused} refused, {} answered",
        answered.len()
    );
    until_primary(&a).await;
    let user = a.default_user();
    user.get("/api/v1/tasks/before").await.expect(200);
    for id in &answered {
        user.get(&format!("/api/v1/tasks/{id}")).await.expect(200);
    }
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Three JetStream servers in one cluster on free ports; killed on drop.
struct Cluster {
    servers: Vec<(Child, String, u16)>,
    urls: String,
    _store: tempfile::TempDir,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for (child, ..) in &mut self.servers {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts the cluster and waits until its JetStream has a meta leader; `None` without
/// nats-server. Tried three times: a port found free may be taken by another test before
/// its server binds it.
fn cluster() -> Option<Cluster> {
    if Command::new("nats-server")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(std::env::var_os("TASKD_REQUIRE_NATS").is_none());
        eprintln!("nats-server is not installed: replication test skipped");
        return None;
    }
    let cluster = (0..3).find_map(|_| try_cluster());
    assert!(cluster.is_some(), "the NATS cluster did not get ready");
    cluster
}

/// One try at [`cluster`]: `None` when it does not get ready within 20 s.
fn try_cluster() -> Option<Cluster> {
    let store = tempfile::tempdir().unwrap();
    let ports: Vec<(u16, u16, u16)> = (0..3)
        .map(|_| (free_port(), free_port(), free_port()))
        .collect();
    let routes: Vec<String> = ports
        .iter()
        .map(|(_, route, _)| format!("nats-route://127.0.0.1:{route}"))
        .collect();
    let mut servers = Vec::new();
    for (i, (client, route, http)) in ports.iter().enumerate() {
        let name = format!("n{}", i + 1);
        let config = format!(
            "server_name: {name}\nlisten: 127.0.0.1:{client}\nhttp: 127.0.0.1:{http}\n\
             jetstream {{ store_dir: \"{}/{name}\" }}\n\
             cluster {{ name: t, listen: 127.0.0.1:{route}, routes: [{}] }}\n",
            store.path().display(),
            routes.join(", ")
        );
        let path = store.path().join(format!("{name}.conf"));
        std::fs::write(&path, config).unwrap();
        let child = Command::new("nats-server")
            .arg("-c")
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        servers.push((child, name, *http));
    }
    let urls = ports
        .iter()
        .map(|(client, ..)| format!("nats://127.0.0.1:{client}"))
        .collect::<Vec<_>>()
        .join(",");
    let cluster = Cluster {
        servers,
        urls,
        _store: store,
    };
    let ready = wait_until(Duration::from_secs(20), || {
        cluster
            .servers
            .iter()
            .all(|(_, _, http)| jsz(*http).is_some_and(|j| j["meta_cluster"]["leader"].is_string()))
    });
    ready.then_some(cluster)
}

/// A server's `/jsz?streams=true`, if it answers.
fn jsz(http: u16) -> Option<Value> {
    use std::io::{Read, Write};
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", http)).ok()?;
    socket
        .write_all(b"GET /jsz?streams=true HTTP/1.0\r\nHost: x\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    socket.read_to_string(&mut text).ok()?;
    serde_json::from_str(text.split("\r\n\r\n").nth(1)?).ok()
}

/// The name of the server that leads the stream `taskd_test`.
fn stream_leader(cluster: &Cluster) -> String {
    cluster
        .servers
        .iter()
        .find_map(|(_, _, http)| {
            let j = jsz(*http)?;
            let streams = j["account_details"]
                .as_array()?
                .iter()
                .flat_map(|a| a["stream_detail"].as_array().cloned().unwrap_or_default());
            streams
                .into_iter()
                .find(|s| s["name"] == "taskd_test")
                .and_then(|s| s["cluster"]["leader"].as_str().map(str::to_string))
        })
        .expect("the stream has a leader")
}

#[actix_web::test]
async fn when_the_stream_leader_dies_writes_resume_within_seconds_losing_nothing() {
    let Some(mut cluster) = cluster() else { return };
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let a = node_on(&cluster.urls, "a", dir, &["--storage-timeout-ms", "2000"]);
    primary_within(&a, Duration::from_secs(20)).await;
    let leader = stream_leader(&cluster);
    let (victim, ..) = cluster
        .servers
        .iter_mut()
        .find(|(_, name, _)| *name == leader)
        .unwrap();
    let mut answered = Vec::new();
    let (mut refused, mut gap, mut last_ok) = (0, Duration::ZERO, Instant::now());
    let started = Instant::now();
    let mut killed = false;
    for i in 0.. {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{}",
            a.log_text()
        );
        if !killed && started.elapsed() > Duration::from_millis(300) {
            victim.kill().unwrap();
            killed = true;
        }
        let id = format!("s{i}");
        let sent = a
            .request(Method::POST, "/api/v1/tasks")
            .insert_header(("Authorization", format!("Bearer {}", a.default_token)))
            .timeout(Duration::from_secs(15))
            .send_json(&json!({ "todoId": id }))
            .await;
        match sent.map(|r| r.status().as_u16()) {
            Ok(201) => {
                gap = gap.max(last_ok.elapsed());
                last_ok = Instant::now();
                answered.push(id);
                if killed && answered.len() >= 20 && last_ok.duration_since(started) > gap {
                    break;
                }
            }
            Ok(_) => refused += 1,
            Err(_) => {}
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "stream leader {leader} killed: longest time without an answered write {gap:?}, \
         {refused} refused, {} answered",
        answered.len()
    );
    assert!(gap < Duration::from_secs(30), "{gap:?}");
    primary_within(&a, Duration::from_secs(20)).await;
    let user = a.default_user();
    for id in &answered {
        user.get(&format!("/api/v1/tasks/{id}")).await.expect(200);
    }
}

#[actix_web::test]
async fn the_primary_and_the_stream_leader_killed_at_once_the_standby_takes_over_losing_nothing() {
    let Some(mut cluster) = cluster() else { return };
    let mut a = node_on(
        &cluster.urls,
        "a",
        Arc::new(tempfile::tempdir().unwrap()),
        &[],
    );
    primary_within(&a, Duration::from_secs(20)).await;
    let b = node_on(
        &cluster.urls,
        "b",
        Arc::new(tempfile::tempdir().unwrap()),
        &[],
    );
    let leader = stream_leader(&cluster);
    let killer = crate::durability::kill_after(&a, Duration::from_millis(1000));
    let answered = crate::durability::write_until_killed(&a, 8, "s4", "both").await;
    killer.join().unwrap();
    let (victim, ..) = cluster
        .servers
        .iter_mut()
        .find(|(_, name, _)| *name == leader)
        .unwrap();
    victim.kill().unwrap();
    a.wait();
    let gap = primary_within(&b, Duration::from_secs(45)).await;
    eprintln!(
        "primary and stream leader {leader} killed: b primary {gap:?} later, {} answered writes",
        answered.len()
    );
    let user = b.default_user();
    for (id, version) in &answered {
        let reply = user.get(&format!("/api/v1/tasks/{id}")).await;
        assert_eq!(
            reply.expect(200).data()["versionUpdatedAt"],
            *version,
            "{id}"
        );
    }
    user.post("/api/v1/tasks", json!({"todoId": "after"}))
        .await
        .expect(201);
}

#[actix_web::test]
async fn a_torn_position_file_and_a_partial_temporary_one_cost_a_full_catch_up_not_a_write() {
    let Some(nats) = nats() else { return };
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let mut a = node(&nats, "a", Arc::clone(&dir));
    until_primary(&a).await;
    let user = a.default_user();
    for i in 0..20 {
        user.post("/api/v1/tasks", json!({"todoId": format!("p{i}")}))
            .await
            .expect(201);
    }
    a.crash();
    // What a crash while the position file is replaced leaves: a cut temporary file; and
    // after a power loss, a cut position file.
    std::fs::write(dir.path().join(".stream.pos.tmp"), "41 1").unwrap();
    std::fs::write(dir.path().join("stream.pos"), "41 ").unwrap();
    let a = restarted(&nats, Arc::clone(&dir)).await;
    let user = a.default_user();
    for i in 0..20 {
        user.get(&format!("/api/v1/tasks/p{i}")).await.expect(200);
    }
    assert!(!dir.path().join(".stream.pos.tmp").exists());
    assert!(
        !a.log_text().contains("not a taskd file"),
        "{}",
        a.log_text()
    );
    user.post("/api/v1/tasks", json!({"todoId": "after"}))
        .await
        .expect(201);
}

#[actix_web::test]
async fn a_catch_up_cut_short_by_a_crash_leaves_segments_the_next_start_replaces() {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    post_tasks(&a, "k", 0..20).await;
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let mut b = node(&nats, "b", Arc::clone(&dir));
    until_caught_up(&a, &b).await;
    b.crash();
    post_tasks(&a, "k", 20..40).await;
    // What a crash in the middle of a catch-up leaves after the last part its position
    // file names: a whole part written before the file was replaced (a copy of the part
    // the catch-up at b's first start wrote), and a part cut while it was written.
    let journal = dir.path().join("journal");
    let mut segments: Vec<_> = std::fs::read_dir(&journal)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    segments.sort();
    let last = segments.last().expect("a journal segment");
    let number: u64 = last.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    let bytes = std::fs::read(&segments[0]).unwrap();
    assert!(!bytes.is_empty());
    let planted = |n: u64| journal.join(format!("{n:020}.log"));
    std::fs::write(planted(number + 1), &bytes).unwrap();
    std::fs::write(planted(number + 2), &bytes[..bytes.len() * 2 / 3]).unwrap();

    // The next start cuts both, takes the rest from the stream and holds it exactly.
    let b = node(&nats, "b", dir);
    assert!(
        b.log_text()
            .contains("journal entries the stream does not hold"),
        "{}",
        b.log_text()
    );
    until_caught_up(&a, &b).await;
    a.stop();
    primary_within(&b, Duration::from_secs(15)).await;
    let user = b.default_user();
    for i in 0..40 {
        user.get(&format!("/api/v1/tasks/k{i}")).await.expect(200);
    }
    user.post("/api/v1/tasks", json!({"todoId": "after"}))
        .await
        .expect(201);
}

/// A TCP relay between a taskd node and NATS that can drop what NATS sends (its
/// acknowledgements) while still passing what the node sends, or drop both ways (a network
/// cut), and then cut every connection (the node reconnects).
struct Relay {
    url: String,
    /// Drops what NATS sends.
    deaf: Arc<std::sync::atomic::AtomicBool>,
    /// Drops what the node sends.
    mute: Arc<std::sync::atomic::AtomicBool>,
    connections: Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Relay {
    fn start(nats_url: &str) -> Relay {
        use std::sync::atomic::{AtomicBool, Ordering};
        let upstream = nats_url.trim_start_matches("nats://").to_string();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("nats://{}", listener.local_addr().unwrap());
        let (deaf, mute) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let connections = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (to_node, to_nats, all) = (
            Arc::clone(&deaf),
            Arc::clone(&mute),
            Arc::clone(&connections),
        );
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = std::net::TcpStream::connect(&upstream) else {
                    continue;
                };
                all.lock().unwrap().push(client.try_clone().unwrap());
                all.lock().unwrap().push(server.try_clone().unwrap());
                let pump = |mut from: std::net::TcpStream,
                            mut to: std::net::TcpStream,
                            drops: Arc<AtomicBool>| {
                    std::thread::spawn(move || {
                        use std::io::{Read, Write};
                        let mut buffer = [0u8; 16 << 10];
                        loop {
                            let n = match from.read(&mut buffer) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => n,
                            };
                            if drops.load(Ordering::SeqCst) {
                                continue;
                            }
                            if to.write_all(&buffer[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                };
                pump(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    Arc::clone(&to_nats),
                );
                pump(server, client, Arc::clone(&to_node));
            }
        });
        Relay {
            url,
            deaf,
            mute,
            connections,
        }
    }

    /// Drops NATS's answers for `how_long` (what the node sends still arrives), then cuts
    /// every connection.
    fn lose_answers(&self, how_long: Duration) {
        self.drop_for(how_long, false);
    }

    /// Drops everything both ways for `how_long`, then cuts every connection.
    fn cut_off(&self, how_long: Duration) {
        self.drop_for(how_long, true);
    }

    fn drop_for(&self, how_long: Duration, both: bool) {
        use std::sync::atomic::Ordering;
        self.deaf.store(true, Ordering::SeqCst);
        self.mute.store(both, Ordering::SeqCst);
        std::thread::sleep(how_long);
        for connection in self.connections.lock().unwrap().drain(..) {
            let _ = connection.shutdown(std::net::Shutdown::Both);
        }
        self.deaf.store(false, Ordering::SeqCst);
        self.mute.store(false, Ordering::SeqCst);
    }
}

#[actix_web::test]
async fn a_primary_cut_off_from_nats_is_replaced_within_10_s_and_comes_back_a_standby() {
    let Some(nats) = nats() else { return };
    let relay = Arc::new(Relay::start(&nats.url));
    let a = node_on(&relay.url, "a", Arc::new(tempfile::tempdir().unwrap()), &[]);
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let user = a.default_user();
    for i in 0..20 {
        user.post("/api/v1/tasks", json!({"todoId": format!("c{i}")}))
            .await
            .expect(201);
    }
    // a's network to NATS is cut for 8 s: its lease lapses, b takes over.
    let cutter = Arc::clone(&relay);
    let cut = std::thread::spawn(move || cutter.cut_off(Duration::from_secs(8)));
    let gap = primary_within(&b, Duration::from_secs(15)).await;
    eprintln!("network cut: b primary {gap:?} after a was cut off");
    assert!(gap < Duration::from_secs(10), "{gap:?}");
    // a fenced itself before its lease could be taken: it answers no write.
    let refused = user.post("/api/v1/tasks", json!({"todoId": "on-a"})).await;
    assert_problem(&refused, 503, "not_primary");
    let on_b = b.default_user();
    for i in 0..20 {
        on_b.get(&format!("/api/v1/tasks/c{i}")).await.expect(200);
    }
    on_b.post("/api/v1/tasks", json!({"todoId": "on-b"}))
        .await
        .expect(201);
    // Once the network is back, a restarts as a standby and follows b.
    cut.join().unwrap();
    let back = wait_until(Duration::from_secs(20), || {
        a.log_text()
            .contains("restarting to come back as a standby")
            && a.log_text().matches("taskd listening").count() == 2
    });
    assert!(back, "{}", a.log_text());
    let (_, primary) = health(&b, "/healthz").await;
    let followed = wait_until(Duration::from_secs(10), || {
        let standby = health_blocking(&a);
        standby["role"] == "standby" && standby["appliedSeq"] == primary["appliedSeq"]
    });
    assert!(followed, "{}", a.log_text());
}

#[actix_web::test]
async fn writes_whose_acknowledgement_was_lost_are_resolved_from_the_stream_alike_on_every_node() {
    let Some(nats) = nats() else { return };
    let relay = Arc::new(Relay::start(&nats.url));
    let a = node_on(&relay.url, "a", Arc::new(tempfile::tempdir().unwrap()), &[]);
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));

    // Eight writers; 0.5 s in, NATS's answers to a are dropped for 1.5 s (what it is sent
    // is stored), then a's connection is cut. Each write's answer and latency are kept.
    let dropper = Arc::clone(&relay);
    let fault = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        dropper.lose_answers(Duration::from_millis(1500));
    });
    let started = Instant::now();
    let writers = (0..8).map(|w| {
        let a = &a;
        async move {
            let mut tried = Vec::new();
            for i in 0.. {
                if started.elapsed() > Duration::from_millis(3500) {
                    break;
                }
                let id = format!("s7-{w}-{i}");
                let sent = Instant::now();
                let status = a
                    .request(Method::POST, "/api/v1/tasks")
                    .insert_header(("Authorization", format!("Bearer {}", a.default_token)))
                    .timeout(Duration::from_secs(20))
                    .send_json(&json!({ "todoId": id }))
                    .await
                    .map_or(0, |r| r.status().as_u16());
                tried.push((id, status, sent.elapsed()));
            }
            tried
        }
    });
    let tried: Vec<(String, u16, Duration)> = futures_util::future::join_all(writers)
        .await
        .into_iter()
        .flatten()
        .collect();
    fault.join().unwrap();
    assert!(
        a.log_text().contains("has no answer"),
        "no acknowledgement was lost: {}",
        a.log_text()
    );
    let across = tried
        .iter()
        .filter(|(_, status, took)| *status == 201 && *took > Duration::from_millis(1000))
        .count();

    // Both nodes hold the same stream, then each write's fate is read on a, and on b once
    // it has taken over: the same everywhere, and every answered write is there.
    until_primary(&a).await;
    let on_a = fates(&a, &tried).await;
    until_caught_up(&a, &b).await;
    let mut a = a;
    a.crash();
    primary_within(&b, Duration::from_secs(15)).await;
    let on_b = fates(&b, &tried).await;
    assert_eq!(on_a, on_b, "a write's fate differs between the nodes");
    let mut unresolved = (0, 0);
    for ((_, status, _), present) in tried.iter().zip(&on_a) {
        match (status, present) {
            (201, false) => panic!("an answered write is missing"),
            (201, true) => {}
            (_, true) => unresolved.0 += 1,
            (_, false) => unresolved.1 += 1,
        }
    }
    eprintln!(
        "lost acknowledgements: {} writes, {across} answered after waiting out the lost answers, \
         not answered 201: {} there and {} not, the same on both nodes",
        tried.len(),
        unresolved.0,
        unresolved.1
    );
    assert!(
        across > 0,
        "no write was in flight while the answers were lost"
    );
}

/// Whether each tried write is in `app`'s default space.
async fn fates(app: &TestApp, tried: &[(String, u16, Duration)]) -> Vec<bool> {
    let user = app.default_user();
    let mut present = Vec::new();
    for (id, ..) in tried {
        let status = user.get(&format!("/api/v1/tasks/{id}")).await.status;
        assert!(status == 200 || status == 404, "{id}: {status}");
        present.push(status == 200);
    }
    present
}

/// POSTs tasks `<prefix><i>` for each `i` of `ids` to `app`'s default space, each 201.
async fn post_tasks(app: &TestApp, prefix: &str, ids: std::ops::Range<usize>) {
    let user = app.default_user();
    for i in ids {
        user.post("/api/v1/tasks", json!({"todoId": format!("{prefix}{i}")}))
            .await
            .expect(201);
    }
}

/// Waits (at most 5 s) until `standby` holds the stream as far as `primary` does; the
/// primary's `/healthz`.
async fn until_caught_up(primary: &TestApp, standby: &TestApp) -> Value {
    let (_, health_of_primary) = health(primary, "/healthz").await;
    let caught_up = wait_until(Duration::from_secs(5), || {
        health_blocking(standby)["appliedSeq"] == health_of_primary["appliedSeq"]
    });
    assert!(caught_up, "the standby did not reach {health_of_primary}");
    health_of_primary
}

/// `GET /healthz` of `app`, from a plain thread (for `wait_until`).
fn health_blocking(app: &TestApp) -> Value {
    let address = app.address.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("null");
    serde_json::from_str(body).unwrap_or(Value::Null)
}

#[actix_web::test]
async fn a_node_behind_a_trimmed_stream_says_so_and_starts_from_a_backup_of_another_node() {
    let Some(nats) = nats() else { return };
    let a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let mut b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    post_tasks(&a, "k", 0..30).await;
    let primary = until_caught_up(&a, &b).await;

    // A backup of the running standby b (once its position file, replaced at most every
    // second while idle, names the end), then the stream trimmed to its last message (as
    // its limits would do, in time), then more writes.
    std::thread::sleep(Duration::from_millis(1500));
    let seed = Arc::new(tempfile::tempdir().unwrap());
    let backup = Command::new(env!("CARGO_BIN_EXE_taskd"))
        .args(["backup", "--data-dir"])
        .arg(b.dir.path())
        .arg("--to")
        .arg(seed.path())
        .output()
        .unwrap();
    assert!(backup.status.success(), "{backup:?}");
    let client = async_nats::connect(&nats.url).await.unwrap();
    let stream = async_nats::jetstream::new(client)
        .get_stream("taskd_test")
        .await
        .unwrap();
    let last = primary["appliedSeq"].as_u64().unwrap();
    stream.purge().sequence(last).await.unwrap();
    post_tasks(&a, "k", 30..40).await;

    // An empty node cannot take the stream from its start any more, and says why.
    let options = node_options(&nats.url, "c", &[]);
    let refused = TestApp::start(Arc::new(tempfile::tempdir().unwrap()), options.clone());
    let Err(refused) = refused else {
        panic!("a node started on a stream that lost its beginning")
    };
    assert!(refused.stderr.contains("trimmed"), "{}", refused.stderr);

    // Started on b's backup, it takes the rest from the stream and holds every write.
    let c = TestApp::start(seed, options).unwrap_or_else(|f| panic!("{f:#?}"));
    let (_, primary) = health(&a, "/healthz").await;
    let (_, standby) = health(&c, "/healthz").await;
    assert_eq!(standby["appliedSeq"], primary["appliedSeq"], "{standby}");
    let mut a = a;
    a.crash();
    b.crash();
    primary_within(&c, Duration::from_secs(15)).await;
    let on_c = c.default_user();
    for i in 0..40 {
        on_c.get(&format!("/api/v1/tasks/k{i}")).await.expect(200);
    }
}

#[actix_web::test]
async fn the_stream_is_trimmed_by_its_limits_but_never_past_what_a_node_needs() {
    let Some(nats) = nats() else { return };
    // Limits that would trim every message: only the nodes' positions keep any.
    let tight = ["--stream-max-bytes", "1", "--stream-max-age", "1"];
    let a = node_on(
        &nats.url,
        "a",
        Arc::new(tempfile::tempdir().unwrap()),
        &tight,
    );
    until_primary(&a).await;
    let mut b = node_on(
        &nats.url,
        "b",
        Arc::new(tempfile::tempdir().unwrap()),
        &tight,
    );
    post_tasks(&a, "r", 0..20).await;
    let primary = until_caught_up(&a, &b).await;
    // b has said where it is (every 5 s), then dies; a writes on.
    std::thread::sleep(Duration::from_secs(6));
    let b_holds = primary["appliedSeq"].as_u64().unwrap();
    b.crash();
    post_tasks(&a, "r", 20..40).await;
    let client = async_nats::connect(&nats.url).await.unwrap();
    let mut stream = async_nats::jetstream::new(client)
        .get_stream("taskd_test")
        .await
        .unwrap();
    // a trims what b holds, and nothing after it, however long b stays away.
    let started = Instant::now();
    let mut first = 0;
    while started.elapsed() < Duration::from_secs(8) {
        first = stream.info().await.unwrap().state.first_sequence;
        assert!(first <= b_holds + 1, "trimmed past b's {b_holds}: {first}");
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(first, b_holds + 1, "{}", a.log_text());
    // So b comes back and catches up from the stream.
    let b = b.restart_after_stop();
    let (_, primary) = health(&a, "/healthz").await;
    let (_, standby) = health(&b, "/healthz").await;
    assert_eq!(standby["appliedSeq"], primary["appliedSeq"], "{standby}");
    // Once b has said it holds it all again, the stream is trimmed past where b was.
    let started = Instant::now();
    while stream.info().await.unwrap().state.first_sequence <= b_holds + 1 {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{}",
            a.log_text()
        );
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A primary `a` and a standby `b`, and the answer to the creation on `a` of task `id`
/// with a reminder `seconds` from now, at the date-time given.
async fn primary_standby_and_a_reminder(
    nats: &Nats,
    id: &str,
    seconds: i64,
) -> (TestApp, TestApp, Reply, String) {
    let a = node(nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let b = node(nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let at = chrono::Utc::now() + chrono::Duration::seconds(seconds);
    let at = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let created = a
        .default_user()
        .post(
            "/api/v1/tasks",
            json!({"todoId": id, "reminders": [{"at": at}]}),
        )
        .await;
    created.expect(201);
    (a, b, created, at)
}

#[actix_web::test]
async fn a_reminder_due_after_the_primary_died_is_fired_once_by_the_standby_that_takes_over() {
    let Some(nats) = nats() else { return };
    let (mut a, b, created, at) = primary_standby_and_a_reminder(&nats, "later", 2).await;
    // Killed before the reminder is due: the standby holds the task and its reminder.
    a.crash();
    primary_within(&b, Duration::from_secs(15)).await;
    let user = b.default_user();
    let fired = wait_until_async(Duration::from_secs(10), || async {
        let reply = user.get("/api/v1/tasks/later").await;
        reply.status == 200 && reply.data()["remindedAt"] != Value::Null
    })
    .await;
    assert!(fired, "{}", b.log_text());
    let task = user.get("/api/v1/tasks/later").await;
    let task = task.data();
    assert!(crate::helpers::millis(&task["remindedAt"]) >= crate::helpers::millis(&json!(at)));
    // Fired once: the feed after the creation holds the one firing.
    let since = created.version();
    let changes = user.get(&format!("/api/v1/changes?since={since}")).await;
    let changes = changes.data().as_array().unwrap().clone();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0]["record"]["remindedAt"], task["remindedAt"]);
}

/// While the primary lives, a standby holding the same due reminder leaves it to the
/// primary; once it takes over, it holds that one firing (same `remindedAt`) and fires
/// nothing more.
#[actix_web::test]
async fn while_the_primary_lives_a_standby_never_fires_a_reminder() {
    let Some(nats) = nats() else { return };
    let (mut a, b, created, _) = primary_standby_and_a_reminder(&nats, "soon", 1).await;
    async fn reminded(node: &TestApp) -> Value {
        let reply = node.default_user().get("/api/v1/tasks/soon").await;
        reply.expect(200);
        reply.data()["remindedAt"].clone()
    }
    let fired = wait_until_async(Duration::from_secs(10), || async {
        reminded(&a).await != Value::Null
    })
    .await;
    assert!(fired, "{}", a.log_text());
    // Time for a standby that fired to have done so (the timer retries every 250 ms),
    // and for b to hold the primary's firing.
    actix_web::rt::time::sleep(Duration::from_millis(1_500)).await;
    let on_a = reminded(&a).await;
    a.crash();
    primary_within(&b, Duration::from_secs(15)).await;
    actix_web::rt::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(reminded(&b).await, on_a, "{}", b.log_text());
    let since = created.version();
    let changes = b
        .default_user()
        .get(&format!("/api/v1/changes?since={since}"))
        .await;
    let changes = changes.data().as_array().unwrap().clone();
    assert_eq!(changes.len(), 1, "{changes:?}");
}

/// Waits until `done` answers true, checking every 50 ms for up to `limit`.
async fn wait_until_async<F: std::future::Future<Output = bool>>(
    limit: Duration,
    done: impl Fn() -> F,
) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done().await {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    done().await
}

/// docs §23 with §16: a standby derives the activity from the stream as the primary did,
/// so after a handover the new primary shows the same entries (actor, time, changes,
/// cascades) and reverts a write the old one made.
#[actix_web::test]
async fn a_standby_keeps_the_same_activity_and_reverts_the_old_primarys_writes() {
    let Some(nats) = nats() else { return };
    let mut a = node(&nats, "a", Arc::new(tempfile::tempdir().unwrap()));
    until_primary(&a).await;
    let b = node(&nats, "b", Arc::new(tempfile::tempdir().unwrap()));
    let user = a.default_user();
    user.post("/api/v1/tasks", json!({"todoId": "p", "name": "one"}))
        .await
        .expect(201);
    user.post("/api/v1/tasks", json!({"todoId": "k", "parentId": "p"}))
        .await
        .expect(201);
    user.patch("/api/v1/tasks/p", json!({"name": "two"}))
        .await
        .expect(200);
    let deleted = user.delete("/api/v1/tasks/p").await;
    deleted.expect(200);
    let history = user.get("/api/v1/activity").await;
    history.expect(200);
    assert_eq!(history.body["data"].as_array().unwrap().len(), 5);
    let term = Command::new("kill")
        .args(["-TERM", &a.pid().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    primary_within(&b, Duration::from_secs(15)).await;
    assert!(a.wait().success());
    let on_b = b.default_user();
    let replicated = on_b.get("/api/v1/activity").await;
    replicated.expect(200);
    assert_eq!(replicated.body, history.body);
    let version = deleted.data()["versionUpdatedAt"].as_u64().unwrap();
    on_b.post(&format!("/api/v1/activity/{version}/revert"), json!({}))
        .await
        .expect(200);
    let p = on_b.get("/api/v1/tasks/p").await;
    assert_eq!(p.data()["isDeleted"], false);
    assert_eq!(on_b.get("/api/v1/tasks/k").await.data()["isDeleted"], false);
}
