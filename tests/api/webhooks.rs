//! Webhooks (docs §19): routes, roles and limits, the address check, and deliveries to
//! a real receiver on 127.0.0.1 (a small HTTP server of these tests; the server runs with
//! `--webhook-allow-private` to reach it): signatures as Standard Webhooks specifies, feed
//! order, coalescing while the receiver is down, every retry step (on the schedule divided
//! by the test-only `TASKD_WEBHOOK_RETRY_DIVISOR`), `Retry-After`, `410`, rotation, and
//! nothing lost across `kill -9`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::helpers::{assert_problem, spawn_app_with, As, Options, TestApp};
use crate::spaces::{add_member, new_space, sid};

/// What the receiver got: one POST.
#[derive(Debug, Clone)]
struct Got {
    headers: BTreeMap<String, String>,
    raw: Vec<u8>,
    body: Value,
    /// The status it answered.
    status: u16,
    at: Instant,
}

impl Got {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    /// `(version, data.id)`.
    fn change(&self) -> (u64, String) {
        (
            self.body["version"].as_u64().unwrap(),
            self.body["data"]["id"].as_str().unwrap().to_string(),
        )
    }
}

/// How the receiver answers a POST: status, headers, and how long it waits first.
#[derive(Debug, Clone)]
struct Answer {
    status: u16,
    headers: Vec<(&'static str, String)>,
    delay: Duration,
}

impl Answer {
    fn status(status: u16) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            delay: Duration::ZERO,
        }
    }
}

type Plan = Box<dyn FnMut(usize) -> Answer + Send>;

/// A receiver on 127.0.0.1: every POST is kept with the answer its plan gave (the plan is
/// called with the number of POSTs before this one).
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Got>>>,
    plan: Arc<Mutex<Plan>>,
}

impl Receiver {
    fn start(plan: impl FnMut(usize) -> Answer + Send + 'static) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let got = Arc::new(Mutex::new(Vec::new()));
        let plan: Arc<Mutex<Plan>> = Arc::new(Mutex::new(Box::new(plan)));
        let (g, p) = (Arc::clone(&got), Arc::clone(&plan));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (g, p) = (Arc::clone(&g), Arc::clone(&p));
                std::thread::spawn(move || serve(stream, &g, &p));
            }
        });
        Receiver { url, got, plan }
    }

    /// Answers from now on as `plan` says.
    fn answer(&self, plan: impl FnMut(usize) -> Answer + Send + 'static) {
        *self.plan.lock().unwrap_or_else(PoisonError::into_inner) = Box::new(plan);
    }

    fn got(&self) -> Vec<Got> {
        self.got
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The POSTs it acknowledged.
    fn acked(&self) -> Vec<Got> {
        self.got().into_iter().filter(|g| g.status < 300).collect()
    }
}

/// Serves one connection's requests until it closes.
fn serve(stream: TcpStream, got: &Mutex<Vec<Got>>, plan: &Mutex<Plan>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut headers = BTreeMap::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
            }
        }
        let len: usize = headers
            .get("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut raw = vec![0; len];
        if reader.read_exact(&mut raw).is_err() {
            return;
        }
        let answer = {
            let mut got = got.lock().unwrap_or_else(PoisonError::into_inner);
            let n = got.len();
            let answer = (plan.lock().unwrap_or_else(PoisonError::into_inner))(n);
            got.push(Got {
                body: serde_json::from_slice(&raw).unwrap_or(Value::Null),
                headers,
                raw,
                status: answer.status,
                at: Instant::now(),
            });
            answer
        };
        std::thread::sleep(answer.delay);
        let body = if answer.status == 204 { "" } else { "ok" };
        let mut out = format!("HTTP/1.1 {} X\r\n", answer.status);
        if !body.is_empty() {
            out.push_str(&format!("content-length: {}\r\n", body.len()));
        }
        for (name, value) in &answer.headers {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
        out.push_str("\r\n");
        out.push_str(body);
        if writer.write_all(out.as_bytes()).is_err() {
            return;
        }
    }
}

/// Whether one of `got`'s signatures is the Standard Webhooks signature with `secret`,
/// and its timestamp is within five minutes of now.
fn signed_with(got: &Got, secret: &str) -> bool {
    let key = BASE64
        .decode(secret.strip_prefix("whsec_").unwrap())
        .unwrap();
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
    let (id, ts) = (got.header("webhook-id"), got.header("webhook-timestamp"));
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(&got.raw);
    let expected = format!("v1,{}", BASE64.encode(mac.finalize().into_bytes()));
    let now = chrono::Utc::now().timestamp();
    let fresh = ts.parse::<i64>().is_ok_and(|t| (t - now).abs() < 300);
    fresh
        && got
            .header("webhook-signature")
            .split(' ')
            .any(|s| s == expected)
}

/// A server that may deliver to 127.0.0.1, with the retry schedule divided by `divisor`.
fn spawn_sender(divisor: u32) -> TestApp {
    spawn_app_with(Options {
        args: vec!["--webhook-allow-private".into()],
        env: vec![("TASKD_WEBHOOK_RETRY_DIVISOR".into(), divisor.to_string())],
        ..Options::default()
    })
}

/// Creates a webhook to `url` with `body`'s other fields as `user`; its object and secret.
async fn new_webhook(user: As<'_>, space: &str, url: &str, mut body: Value) -> (Value, String) {
    body["url"] = json!(url);
    let reply = user
        .post(&format!("/api/v1/webhooks?spaceId={space}"), body)
        .await;
    reply.expect(201);
    let webhook = reply.data().clone();
    let id = webhook["webhookId"].as_str().unwrap();
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v1/webhooks/{id}").as_str())
    );
    let secret = webhook["secret"].as_str().unwrap().to_string();
    (webhook, secret)
}

/// Waits up to `timeout` for `done`.
async fn eventually(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if done() {
            return true;
        }
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

/// Waits until webhook `id` has nothing pending and its log holds `attempts`; its object.
async fn settled(user: As<'_>, id: &str) -> Value {
    let started = Instant::now();
    loop {
        let webhook = user.get(&format!("/api/v1/webhooks/{id}")).await;
        webhook.expect(200);
        if webhook.data()["pending"] == 0 || started.elapsed() > Duration::from_secs(60) {
            return webhook.data().clone();
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
}

#[actix_web::test]
async fn each_change_is_posted_signed_in_feed_order_with_the_records_current_state() {
    let app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer::status(204));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    app.create("tasks", json!({"todoId": "before"})).await;
    let (webhook, secret) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let mut keys: Vec<&str> = webhook.as_object().unwrap().keys().map(|k| &**k).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "active",
            "createdAt",
            "description",
            "disabledReason",
            "events",
            "lastDeliveredVersion",
            "pending",
            "secret",
            "spaceId",
            "url",
            "webhookId"
        ]
    );
    assert_eq!(webhook["events"], json!(["*"]));
    assert_eq!(webhook["lastDeliveredVersion"], Value::Null);
    assert!(secret.starts_with("whsec_"));
    assert_eq!(BASE64.decode(&secret[6..]).unwrap().len(), 32);

    app.create("lists", json!({"listId": "l1", "name": "L"}))
        .await;
    app.create("tasks", json!({"todoId": "t1", "listId": "l1"}))
        .await;
    app.patch("/api/v1/tasks/t1", json!({"name": "renamed"}))
        .await
        .expect(200);
    app.delete("/api/v1/lists/l1").await.expect(200);
    let last = app.space_version().await;
    let webhook = settled(owner, &id).await;
    assert_eq!(webhook["lastDeliveredVersion"], last);
    assert!(webhook.get("secret").is_none());

    let got = receiver.got();
    // t1 changed twice before its first delivery or after: each delivery is its state then.
    let changes: Vec<(u64, String)> = got.iter().map(Got::change).collect();
    let mut sorted = changes.clone();
    sorted.sort();
    assert_eq!(changes, sorted, "feed order");
    assert!(
        changes.iter().all(|(_, id)| id != "before"),
        "only changes after creation"
    );
    let latest: HashMap<String, &Got> = got.iter().map(|g| (g.change().1, g)).collect();
    let t1 = &latest["t1"].body;
    assert_eq!(t1["type"], "task.changed");
    assert_eq!(t1["data"]["name"], "renamed");
    assert_eq!(t1["spaceId"], space);
    assert_eq!(t1["version"], t1["data"]["versionUpdatedAt"]);
    assert_eq!(t1["timestamp"], t1["data"]["updatedAt"]);
    assert_eq!(latest["l1"].body["type"], "list.deleted");
    for g in &got {
        assert!(signed_with(g, &secret), "signature of {g:#?}");
        let (version, record) = g.change();
        let kind = g.body["type"].as_str().unwrap().split('.').next().unwrap();
        assert_eq!(
            g.header("webhook-id"),
            format!("{space}.{kind}.{record}.{version}")
        );
        assert_eq!(g.header("content-type"), "application/json");
    }

    let log = owner
        .get(&format!("/api/v1/webhooks/{id}/deliveries"))
        .await;
    let log = log.data().as_array().unwrap().clone();
    assert_eq!(log.len(), got.len());
    assert_eq!(
        log[0]["webhookMessageId"],
        got.last().unwrap().header("webhook-id")
    );
    for entry in &log {
        assert_eq!(
            (entry["attempt"].clone(), entry["status"].clone()),
            (json!(1), json!(204))
        );
        assert_eq!(entry["error"], Value::Null);
    }
    // The pending gauge is set about once a second.
    let pending = format!("taskd_webhook_pending{{webhook=\"{id}\"}} 0");
    let mut text = String::new();
    for _ in 0..50 {
        text = app
            .metrics()
            .await
            .body
            .as_str()
            .unwrap_or_default()
            .to_string();
        if text.contains(&pending) {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains(&pending), "{text}");
    let delivered = format!(
        "taskd_webhook_deliveries_total{{outcome=\"delivered\"}} {}",
        got.len()
    );
    assert!(text.contains(&delivered), "{text}");
}

#[actix_web::test]
async fn a_failing_receiver_gets_every_retry_step_then_the_event_is_given_up() {
    // The schedule's 5 s .. 24 h divided by 100,000: about 1.7 s in all.
    let app = spawn_sender(100_000);
    let receiver = Receiver::start(|_| Answer::status(500));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, _) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    app.create("tasks", json!({"todoId": "t1"})).await;
    let version = app.space_version().await;
    assert!(eventually(Duration::from_secs(30), || receiver.got().len() >= 11).await);
    let webhook = settled(owner, &id).await;
    assert_eq!(
        webhook["lastDeliveredVersion"], version,
        "given up: the position moved on"
    );
    assert_eq!(
        receiver.got().len(),
        11,
        "the first attempt and ten retries"
    );
    let log = owner
        .get(&format!("/api/v1/webhooks/{id}/deliveries"))
        .await;
    let log = log.data().as_array().unwrap().clone();
    let attempts: Vec<u64> = log
        .iter()
        .rev()
        .map(|e| e["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(attempts, (1..=11).collect::<Vec<_>>());
    assert_eq!(log[0]["error"], "given up");
    assert!(log[1..]
        .iter()
        .all(|e| e["status"] == 500 && e["error"].is_string()));
    // The next event goes on, and is acknowledged.
    receiver.answer(|_| Answer::status(200));
    app.create("tasks", json!({"todoId": "t2"})).await;
    assert!(eventually(Duration::from_secs(20), || receiver.acked().len() == 1).await);
    assert_eq!(receiver.acked()[0].change().1, "t2");
}

#[actix_web::test]
async fn retry_after_replaces_the_steps_delay() {
    let app = spawn_sender(100_000);
    let receiver = Receiver::start(|n| match n {
        0 => Answer {
            status: 503,
            headers: vec![("retry-after", "2".into())],
            delay: Duration::ZERO,
        },
        _ => Answer::status(200),
    });
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    new_webhook(owner, &space, &receiver.url, json!({})).await;
    app.create("tasks", json!({"todoId": "t1"})).await;
    assert!(eventually(Duration::from_secs(20), || receiver.got().len() == 2).await);
    let got = receiver.got();
    // The scheduled step would be 50 µs; Retry-After asked for 2 s.
    assert!(
        got[1].at - got[0].at >= Duration::from_millis(1_900),
        "{:?}",
        got[1].at - got[0].at
    );
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
}

#[actix_web::test]
async fn a_record_changed_while_the_receiver_is_down_arrives_once_in_its_latest_state() {
    let app = spawn_sender(1_000);
    let receiver = Receiver::start(|_| Answer::status(502));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, _) = new_webhook(
        owner,
        &space,
        &receiver.url,
        json!({"events": ["task.changed"]}),
    )
    .await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    app.create("tasks", json!({"todoId": "t1"})).await;
    for n in 0..5 {
        app.patch("/api/v1/tasks/t1", json!({"name": format!("n{n}")}))
            .await
            .expect(200);
    }
    // Lists are not selected: they are passed over.
    app.create("lists", json!({"listId": "l1"})).await;
    assert!(eventually(Duration::from_secs(10), || receiver.got().len() >= 2).await);
    receiver.answer(|_| Answer::status(200));
    let webhook = settled(owner, &id).await;
    assert_eq!(webhook["lastDeliveredVersion"], app.space_version().await);
    let acked = receiver.acked();
    assert_eq!(acked.len(), 1, "{acked:#?}");
    assert_eq!(acked[0].body["data"]["name"], "n4");
    assert_eq!(acked[0].body["type"], "task.changed");
}

#[actix_web::test]
async fn a_410_turns_the_webhook_off_until_it_is_turned_on_again() {
    let app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer::status(410));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, _) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let path = format!("/api/v1/webhooks/{id}");
    app.create("tasks", json!({"todoId": "t1"})).await;
    let mut off = Value::Null;
    assert!(
        eventually(Duration::from_secs(10), || receiver.got().len() == 1).await,
        "one attempt"
    );
    for _ in 0..100 {
        off = owner.get(&path).await.data().clone();
        if off["active"] == false {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        (off["active"].clone(), off["disabledReason"].clone()),
        (json!(false), json!("gone"))
    );
    assert_eq!(off["pending"], 1);
    app.create("tasks", json!({"todoId": "t2"})).await;
    actix_web::rt::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.got().len(), 1, "nothing while off");
    receiver.answer(|_| Answer::status(200));
    let on = owner.patch(&path, json!({"active": true})).await;
    on.expect(200);
    assert_eq!(
        (
            on.data()["active"].clone(),
            on.data()["disabledReason"].clone()
        ),
        (json!(true), Value::Null)
    );
    settled(owner, &id).await;
    let acked: Vec<String> = receiver.acked().iter().map(|g| g.change().1).collect();
    assert_eq!(
        acked,
        ["t1", "t2"],
        "the event the 410 answered comes again"
    );
}

#[actix_web::test]
async fn after_a_rotation_deliveries_carry_the_new_and_the_previous_signature() {
    let app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer::status(200));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, old) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let rotated = owner
        .post(&format!("/api/v1/webhooks/{id}/secret"), json!({}))
        .await;
    rotated.expect(200);
    let new = rotated.data()["secret"].as_str().unwrap().to_string();
    assert_ne!(new, old);
    app.create("tasks", json!({"todoId": "t1"})).await;
    assert!(eventually(Duration::from_secs(10), || receiver.got().len() == 1).await);
    let got = &receiver.got()[0];
    assert_eq!(got.header("webhook-signature").split(' ').count(), 2);
    assert!(signed_with(got, &new) && signed_with(got, &old));
    assert!(owner
        .get(&format!("/api/v1/webhooks/{id}"))
        .await
        .data()
        .get("secret")
        .is_none());
}

#[actix_web::test]
async fn a_rotation_and_a_patch_at_the_same_moment_both_take_effect() {
    let app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer::status(200));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, _) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let mut secrets = Vec::new();
    for round in 0..12 {
        let description = format!("round {round}");
        let (rotated, patched) = futures_util::future::join(
            owner.post(&format!("/api/v1/webhooks/{id}/secret"), json!({})),
            owner.patch(
                &format!("/api/v1/webhooks/{id}"),
                json!({"description": description}),
            ),
        )
        .await;
        rotated.expect(200);
        patched.expect(200);
        secrets.push(rotated.data()["secret"].as_str().unwrap().to_string());
        let now = owner.get(&format!("/api/v1/webhooks/{id}")).await;
        assert_eq!(
            now.data()["description"],
            description.as_str(),
            "round {round}"
        );
    }
    // The last secret answered signs the next delivery (with the one before it).
    app.create("tasks", json!({"todoId": "t1"})).await;
    assert!(eventually(Duration::from_secs(10), || !receiver.got().is_empty()).await);
    let got = &receiver.got()[0];
    assert!(
        signed_with(got, secrets.last().unwrap()),
        "the newest secret signs"
    );
    assert!(
        signed_with(got, &secrets[secrets.len() - 2]),
        "and the one before it"
    );
    assert_eq!(got.header("webhook-signature").split(' ').count(), 2);
}

#[actix_web::test]
async fn urls_resolving_to_refused_addresses_are_422_without_the_flag() {
    let app = spawn_app_with(Options::default());
    let owner = app.default_user();
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost:9/",
        "http://10.1.2.3/",
        "http://[::1]/",
        "http://[::ffff:192.168.1.1]/",
        "http://169.254.169.254/latest",
        "http://100.64.0.1/",
    ] {
        let reply = owner.post("/api/v1/webhooks", json!({ "url": url })).await;
        assert_problem(&reply, 422, "invalid_webhook_url");
    }
    for body in [
        json!({"url": "ftp://example.com/"}),
        json!({"url": "not a url"}),
        json!({}),
        json!({"url": "https://example.com/", "events": []}),
        json!({"url": "https://example.com/", "events": ["*", "task.changed"]}),
        json!({"url": "https://example.com/", "events": ["task.created"]}),
        json!({"url": "https://example.com/", "active": true}),
        json!({"url": "https://example.com/", "description": 5}),
    ] {
        let reply = owner.post("/api/v1/webhooks", body.clone()).await;
        assert_problem(&reply, 400, "validation_failed");
    }
    // A host that does not resolve is accepted: it fails at delivery.
    let reply = owner
        .post(
            "/api/v1/webhooks",
            json!({"url": "https://nowhere.invalid/x", "events": ["task.reminder"]}),
        )
        .await;
    reply.expect(201);
    let id = reply.data()["webhookId"].as_str().unwrap().to_string();
    let patched = owner
        .patch(
            &format!("/api/v1/webhooks/{id}"),
            json!({"url": "http://192.168.0.1/"}),
        )
        .await;
    assert_problem(&patched, 422, "invalid_webhook_url");
}

#[actix_web::test]
async fn only_the_owner_manages_webhooks_at_most_ten_a_space() {
    let app = spawn_app_with(Options::default());
    let owner = app.default_user();
    let space = sid(&new_space(owner, "Team").await);
    let (editor, viewer, stranger) = (
        app.create_user("editor").await,
        app.create_user("viewer").await,
        app.create_user("stranger").await,
    );
    add_member(owner, &space, &editor, "editor").await;
    add_member(owner, &space, &viewer, "viewer").await;
    let url = "https://nowhere.invalid/hook";
    let (webhook, _) = new_webhook(owner, &space, url, json!({"description": "d"})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let item = format!("/api/v1/webhooks/{id}");
    let list = format!("/api/v1/webhooks?spaceId={space}");
    for (user, status) in [(&editor, 403), (&viewer, 403), (&stranger, 404)] {
        let user = app.user(&user.token);
        assert_eq!(user.get(&list).await.status, status);
        assert_eq!(user.post(&list, json!({ "url": url })).await.status, status);
        assert_eq!(user.get(&item).await.status, status);
        assert_eq!(
            user.patch(&item, json!({"active": false})).await.status,
            status
        );
        assert_eq!(user.delete(&item).await.status, status);
        assert_eq!(user.get(&format!("{item}/deliveries")).await.status, status);
    }
    let admin = app.user(&app.admin_token);
    assert_eq!(admin.get(&list).await.status, 403);
    assert_eq!(admin.get(&item).await.status, 403);
    // Scoped tokens: a write token reaching the space may, a read one may not.
    let write = owner
        .post(
            "/api/v1/tokens",
            json!({"name": "w", "access": "write", "spaceIds": [space]}),
        )
        .await;
    let read = owner
        .post("/api/v1/tokens", json!({"name": "r", "access": "read"}))
        .await;
    let (write, read) = (
        write.data()["token"].as_str().unwrap().to_string(),
        read.data()["token"].as_str().unwrap().to_string(),
    );
    app.user(&write).get(&item).await.expect(200);
    assert_eq!(app.user(&read).get(&item).await.status, 403);

    let listed = owner.get(&list).await;
    assert_eq!(listed.data().as_array().unwrap().len(), 1);
    for _ in 1..10 {
        new_webhook(owner, &space, url, json!({})).await;
    }
    let over = owner.post(&list, json!({ "url": url })).await;
    assert_problem(&over, 409, "limit_reached");
    let ids: Vec<String> = owner
        .get(&list)
        .await
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["webhookId"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!((ids.len(), &ids), (10, &sorted));
    owner.delete(&item).await.expect(200);
    assert_eq!(owner.get(&item).await.status, 404);
    // A deleted space's webhooks are gone.
    let other = ids.iter().find(|i| **i != id).unwrap();
    owner
        .delete(&format!("/api/v1/spaces/{space}"))
        .await
        .expect(200);
    assert_eq!(
        owner.get(&format!("/api/v1/webhooks/{other}")).await.status,
        404
    );
}

#[actix_web::test]
async fn webhooks_and_their_positions_survive_a_restart() {
    let app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer::status(200));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, secret) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    app.create("tasks", json!({"todoId": "t1"})).await;
    let before = settled(owner, &id).await;
    let app = app.restart();
    let owner = app.default_user();
    let after = owner.get(&format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(after.data(), &before);
    app.create("tasks", json!({"todoId": "t2"})).await;
    settled(app.default_user(), &id).await;
    let acked: Vec<String> = receiver.acked().iter().map(|g| g.change().1).collect();
    assert_eq!(acked, ["t1", "t2"]);
    assert!(signed_with(receiver.got().last().unwrap(), &secret));
    let users = std::fs::read(app.path("users.bin")).unwrap();
    assert!(
        users.windows(secret.len()).any(|w| w == secret.as_bytes()),
        "the secret is in users.bin"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(app.path("users.bin"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(
        !app.log_text().contains(&secret),
        "the secret is never logged"
    );
}

#[actix_web::test]
async fn after_kill_9_during_delivery_every_change_is_seen_in_its_final_state_in_feed_order() {
    let mut app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer {
        status: 200,
        headers: Vec::new(),
        delay: Duration::from_millis(2),
    });
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, _) = new_webhook(app.default_user(), &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let mut last: HashMap<String, u64> = HashMap::new();
    let mut crashes = Vec::new();
    // 5,000 changes of 1,000 tasks, in three rounds, each ended by a kill -9.
    for round in 0..3 {
        for n in 0..1_667 {
            let todo = format!("t{}", (round * 1_667 + n) % 1_000);
            let reply = app
                .post(
                    "/api/v1/tasks",
                    json!({"todoId": todo.clone(), "name": format!("{round}.{n}")}),
                )
                .await;
            let reply = if reply.status == 409 {
                app.patch(
                    &format!("/api/v1/tasks/{todo}"),
                    json!({"name": format!("{round}.{n}")}),
                )
                .await
            } else {
                reply
            };
            assert!(reply.status == 200 || reply.status == 201, "{reply:?}");
            last.insert(todo, reply.data()["versionUpdatedAt"].as_u64().unwrap());
        }
        // Kill while deliveries are under way.
        let seen = receiver.got().len();
        eventually(Duration::from_secs(10), || receiver.got().len() > seen + 5).await;
        app.crash();
        crashes.push(Instant::now());
        app = app.restart_after_stop();
    }
    settled(app.default_user(), &id).await;
    let got = receiver.got();
    let seen: HashSet<(u64, String)> = got.iter().map(Got::change).collect();
    for (todo, version) in &last {
        assert!(
            seen.contains(&(*version, todo.clone())),
            "{todo} at {version} never arrived"
        );
    }
    // In feed order: each message, the first time it comes, comes after every earlier one.
    let mut first = Vec::new();
    let mut known = HashSet::new();
    for g in &got {
        if known.insert(g.header("webhook-id").to_string()) {
            first.push(g.change().0);
        }
    }
    assert!(first.windows(2).all(|w| w[0] < w[1]), "{first:?}");
    // What comes again after a crash was acknowledged within about a second before it
    // (the positions are journaled every 800 ms; 700 ms of slack for a busy machine).
    let mut acked: HashMap<&str, Instant> = HashMap::new();
    for g in got.iter().filter(|g| g.status < 300) {
        let id = g.header("webhook-id");
        let Some(&first) = acked.get(id) else {
            acked.insert(id, g.at);
            continue;
        };
        let crash = crashes
            .iter()
            .find(|&&c| c > first)
            .expect("a message comes again only after a crash");
        assert!(
            *crash - first < Duration::from_millis(1_500),
            "{id} was acknowledged {:?} before the crash and came again",
            *crash - first
        );
    }
}

#[actix_web::test]
async fn a_hanging_receiver_holds_up_only_its_own_webhook() {
    let app = spawn_sender(1);
    // Answers each POST after 30 s: longer than the 10 s a delivery may take.
    let hanging = Receiver::start(|_| Answer {
        status: 200,
        headers: Vec::new(),
        delay: Duration::from_secs(30),
    });
    let prompt = Receiver::start(|_| Answer::status(200));
    let owner = app.default_user();
    let home = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let other = sid(&new_space(owner, "Other").await);
    new_webhook(owner, &home, &hanging.url, json!({})).await;
    let (same_space, _) = new_webhook(owner, &home, &prompt.url, json!({})).await;
    let (other_space, _) = new_webhook(owner, &other, &prompt.url, json!({})).await;
    for n in 0..20 {
        app.create("tasks", json!({ "todoId": format!("t{n}") }))
            .await;
        owner
            .post(
                &format!("/api/v1/tasks?spaceId={other}"),
                json!({ "todoId": format!("o{n}") }),
            )
            .await
            .expect(201);
    }
    for webhook in [&same_space, &other_space] {
        let id = webhook["webhookId"].as_str().unwrap();
        assert_eq!(settled(owner, id).await["pending"], 0, "{id}");
    }
    assert_eq!(
        prompt.acked().len(),
        40,
        "every change of both spaces arrived"
    );
    assert_eq!(
        hanging.got().len(),
        1,
        "one delivery at a time: the first still hangs"
    );
}

#[actix_web::test]
async fn the_python_standardwebhooks_package_verifies_a_delivery() {
    // `.ci/run` installs the package and names its interpreter; elsewhere the test needs
    // `python3` with `standardwebhooks` installed, and skips without it.
    let python = std::env::var("TASKD_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let has = std::process::Command::new(&python)
        .args(["-c", "import standardwebhooks"])
        .status()
        .is_ok_and(|s| s.success());
    if !has {
        assert!(
            std::env::var_os("TASKD_REQUIRE_STANDARDWEBHOOKS").is_none(),
            "{python} has no standardwebhooks package"
        );
        eprintln!("skipped: {python} has no standardwebhooks package");
        return;
    }
    let app = spawn_sender(1);
    let receiver = Receiver::start(|_| Answer::status(200));
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, old) = new_webhook(owner, &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap();
    app.create("tasks", json!({"todoId": "t1", "name": "Bücher ✓"}))
        .await;
    let rotated = owner
        .post(&format!("/api/v1/webhooks/{id}/secret"), json!({}))
        .await;
    let new = rotated.data()["secret"].as_str().unwrap().to_string();
    app.create("tasks", json!({"todoId": "t2"})).await;
    assert!(eventually(Duration::from_secs(20), || receiver.got().len() >= 2).await);
    let script = "import json, sys\n\
        from standardwebhooks.webhooks import Webhook\n\
        case = json.load(sys.stdin)\n\
        body = bytes.fromhex(case['body'])\n\
        for secret in case['secrets']:\n\
        \x20   Webhook(secret).verify(body, case['headers'])\n\
        print('verified')\n";
    for (got, secrets) in receiver.got().iter().zip([vec![&old], vec![&new, &old]]) {
        let case = json!({
            "body": got.raw.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            "headers": got.headers,
            "secrets": secrets,
        });
        let mut child = std::process::Command::new(&python)
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(case.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success() && out.stdout.starts_with(b"verified"),
            "standardwebhooks refused {got:#?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[actix_web::test]
async fn with_nats_only_the_primary_delivers_and_a_standby_resumes_after_kill_9_of_it() {
    use crate::replication::{nats, node_on, primary_within, until_primary};
    let Some(nats) = nats() else { return };
    let args = ["--webhook-allow-private"];
    let mut a = node_on(
        &nats.url,
        "a",
        Arc::new(tempfile::tempdir().unwrap()),
        &args,
    );
    until_primary(&a).await;
    let b = node_on(
        &nats.url,
        "b",
        Arc::new(tempfile::tempdir().unwrap()),
        &args,
    );
    let receiver = Receiver::start(|_| Answer {
        status: 200,
        headers: Vec::new(),
        delay: Duration::from_millis(2),
    });
    let space = a.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let (webhook, secret) = new_webhook(a.default_user(), &space, &receiver.url, json!({})).await;
    let id = webhook["webhookId"].as_str().unwrap().to_string();
    let mut last: HashMap<String, u64> = HashMap::new();
    for n in 0..300 {
        let todo = format!("t{}", n % 50);
        let body = json!({"todoId": todo.clone(), "name": format!("{n}")});
        let mut reply = a.post("/api/v1/tasks", body).await;
        if reply.status == 409 {
            reply = a
                .patch(
                    &format!("/api/v1/tasks/{todo}"),
                    json!({"name": format!("{n}")}),
                )
                .await;
        }
        assert!(reply.status == 200 || reply.status == 201, "{reply:?}");
        last.insert(todo, reply.data()["versionUpdatedAt"].as_u64().unwrap());
    }
    let seen = receiver.got().len();
    eventually(Duration::from_secs(10), || receiver.got().len() > seen + 5).await;
    let standby = b
        .metrics()
        .await
        .body
        .as_str()
        .unwrap_or_default()
        .to_string();
    let none = "taskd_webhook_deliveries_total{outcome=\"delivered\"} 0";
    assert!(
        standby.contains(none),
        "the standby delivers nothing: {standby}"
    );
    a.crash();
    primary_within(&b, Duration::from_secs(15)).await;
    let user = b.default_user();
    let reply = user.post("/api/v1/tasks", json!({"todoId": "after"})).await;
    last.insert(
        "after".into(),
        reply.expect(201).data()["versionUpdatedAt"]
            .as_u64()
            .unwrap(),
    );
    let webhook = settled(user, &id).await;
    assert_eq!(webhook["pending"], 0);
    let got = receiver.got();
    assert!(got.iter().all(|g| signed_with(g, &secret)));
    let seen: HashSet<(u64, String)> = got.iter().map(Got::change).collect();
    for (todo, version) in &last {
        assert!(
            seen.contains(&(*version, todo.clone())),
            "{todo} at {version} never arrived"
        );
    }
    let mut first = Vec::new();
    let mut known = HashSet::new();
    for g in &got {
        if known.insert(g.header("webhook-id").to_string()) {
            first.push(g.change().0);
        }
    }
    assert!(first.windows(2).all(|w| w[0] < w[1]), "{first:?}");
}

#[actix_web::test]
async fn a_creation_retried_with_its_idempotency_key_answers_the_same_webhook_without_its_secret() {
    let app = spawn_app_with(Options::default());
    let body = json!({"url": "https://nowhere.invalid/hook"});
    let key = [("Idempotency-Key", "hook-1")];
    let send = || {
        app.send_with(
            actix_web::http::Method::POST,
            "/api/v1/webhooks",
            Some(&body),
            &key,
        )
    };
    let first = send().await;
    first.expect(201);
    assert!(first.data()["secret"].is_string());
    let again = send().await;
    again.expect(201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.data()["webhookId"], first.data()["webhookId"]);
    assert!(again.data().get("secret").is_none(), "{:#}", again.data());
    assert_eq!(
        app.get("/api/v1/webhooks")
            .await
            .data()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // Access is decided before a key is looked at: a webhook the caller does not reach
    // is 404, with a key as without.
    let stranger = app.create_user("stranger").await;
    let path = format!(
        "/api/v1/webhooks/{}",
        first.data()["webhookId"].as_str().unwrap()
    );
    let stranger = app.user(&stranger.token);
    let method = actix_web::http::Method::DELETE;
    let reply = stranger
        .send_with(method, &path, None, &[("Idempotency-Key", "x")])
        .await;
    assert_problem(&reply, 404, "not_found");
    assert_problem(&stranger.delete(&path).await, 404, "not_found");
}

/// Runs `program` with `args`; whether it succeeded.
fn run(program: &str, args: &[&str], dir: &std::path::Path) -> bool {
    std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Waits for webhook `id`'s first logged attempt, at most 20 s.
async fn first_attempt(user: As<'_>, id: &str) -> Value {
    for _ in 0..400 {
        let log = user.get(&format!("/api/v1/webhooks/{id}/deliveries")).await;
        if let Some(first) = log.data().as_array().and_then(|l| l.last()) {
            return first.clone();
        }
        actix_web::rt::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no attempt logged");
}

#[actix_web::test]
async fn https_deliveries_check_the_receivers_certificate_against_the_trusted_roots() {
    // A CA and a certificate it signed for 127.0.0.1, made with the openssl command, and
    // an HTTPS receiver in Python; skipped where either is missing.
    let dir = tempfile::tempdir().unwrap();
    let ext = "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n";
    std::fs::write(dir.path().join("leaf.ext"), ext).unwrap();
    let made = run(
        "openssl",
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-subj",
            "/CN=taskd test CA",
            "-days",
            "1",
        ],
        dir.path(),
    ) && run(
        "openssl",
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "leaf.key",
            "-out",
            "leaf.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
        dir.path(),
    ) && run(
        "openssl",
        &[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "leaf.pem",
            "-days",
            "1",
            "-extfile",
            "leaf.ext",
        ],
        dir.path(),
    );
    if !made {
        eprintln!("skipped: no openssl command");
        return;
    }
    let script = "import http.server, ssl, sys\n\
        class H(http.server.BaseHTTPRequestHandler):\n\
        \x20   protocol_version = 'HTTP/1.1'\n\
        \x20   def do_POST(self):\n\
        \x20       self.rfile.read(int(self.headers.get('content-length', 0)))\n\
        \x20       self.send_response(200)\n\
        \x20       self.send_header('content-length', '0')\n\
        \x20       self.end_headers()\n\
        \x20   def log_message(self, *args):\n\
        \x20       pass\n\
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)\n\
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n\
        tls.load_cert_chain('leaf.pem', 'leaf.key')\n\
        server.socket = tls.wrap_socket(server.socket, server_side=True)\n\
        print(server.server_address[1], flush=True)\n\
        server.serve_forever()\n";
    let Ok(mut receiver) = std::process::Command::new("python3")
        .args(["-c", script])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        eprintln!("skipped: no python3");
        return;
    };
    let mut port = String::new();
    BufReader::new(receiver.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("https://127.0.0.1:{}/hook", port.trim());
    let ca = dir.path().join("ca.pem").to_string_lossy().to_string();
    for (trusted, env) in [
        (true, vec![("SSL_CERT_FILE".to_string(), ca)]),
        (false, Vec::new()),
    ] {
        let app = spawn_app_with(Options {
            args: vec!["--webhook-allow-private".into()],
            env,
            ..Options::default()
        });
        let owner = app.default_user();
        let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
            .as_str()
            .unwrap()
            .to_string();
        let (webhook, _) = new_webhook(owner, &space, &url, json!({})).await;
        app.create("tasks", json!({"todoId": "t1"})).await;
        let first = first_attempt(owner, webhook["webhookId"].as_str().unwrap()).await;
        if trusted {
            assert_eq!(
                (first["status"].clone(), first["error"].clone()),
                (json!(200), Value::Null),
                "{first:#}"
            );
        } else {
            assert_eq!(first["status"], Value::Null, "{first:#}");
            let error = first["error"].as_str().unwrap().to_lowercase();
            assert!(
                error.contains("certificate") || error.contains("issuer"),
                "{error}"
            );
        }
    }
    let _ = receiver.kill();
    let _ = receiver.wait();
}

#[actix_web::test]
async fn a_firing_reminder_is_a_task_reminder_event_not_a_task_changed_one() {
    let app = spawn_sender(1);
    let (reminders, changes) = (
        Receiver::start(|_| Answer::status(200)),
        Receiver::start(|_| Answer::status(200)),
    );
    let owner = app.default_user();
    let space = app.get("/api/v1/me").await.data()["defaultSpaceId"]
        .as_str()
        .unwrap()
        .to_string();
    let only = |types: &[&str]| json!({ "events": types });
    let (r, _) = new_webhook(owner, &space, &reminders.url, only(&["task.reminder"])).await;
    let (c, _) = new_webhook(owner, &space, &changes.url, only(&["task.changed"])).await;
    let at = chrono::Utc::now() + chrono::Duration::milliseconds(1_500);
    let at = at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    app.create(
        "tasks",
        json!({"todoId": "call", "reminders": [{ "at": at }]}),
    )
    .await;
    for webhook in [&r, &c] {
        let id = webhook["webhookId"].as_str().unwrap();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            let w = owner.get(&format!("/api/v1/webhooks/{id}")).await;
            if w.data()["lastDeliveredVersion"] == 2 && w.data()["pending"] == 0 {
                break;
            }
            actix_web::rt::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let fired = reminders.acked();
    assert_eq!(fired.len(), 1, "{fired:#?}");
    assert_eq!(fired[0].body["type"], "task.reminder");
    assert_eq!(
        fired[0].body["data"]["remindedAt"],
        fired[0].body["data"]["updatedAt"]
    );
    // The creation was a change; the firing, its current state now, is not one.
    let changed = changes.acked();
    assert!(
        changed.iter().all(|g| g.body["type"] == "task.changed"),
        "{changed:#?}"
    );
    assert!(
        changed
            .iter()
            .all(|g| g.body["data"]["remindedAt"].is_null()),
        "{changed:#?}"
    );
}
