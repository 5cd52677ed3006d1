//! A fair share per token (docs §25): `--token-rate` and `--token-burst`, the bucket's
//! refill, the rate-limit fields, what costs what, the streams a token may hold, and the
//! admin token's freedom.

use std::time::{Duration, Instant};

use actix_web::http::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, Options, Reply, TestApp};

/// A server whose tokens each have `rate` requests a second and a burst of `burst`.
fn spawn_budgeted(rate: u32, burst: Option<u32>) -> TestApp {
    let mut args = vec!["--token-rate".to_string(), rate.to_string()];
    if let Some(burst) = burst {
        args.extend(["--token-burst".to_string(), burst.to_string()]);
    }
    spawn_app_with(Options {
        args,
        ..Options::default()
    })
}

/// `r` and `t` of an answer's `RateLimit` field.
fn left(reply: &Reply) -> (u64, u64) {
    let field = reply
        .header("ratelimit")
        .unwrap_or_else(|| panic!("no RateLimit in {reply:?}"));
    let value = |name: &str| {
        field
            .split(';')
            .find_map(|p| p.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {field}"))
            .parse()
            .unwrap()
    };
    assert!(field.starts_with("\"token\";"), "{field}");
    (value("r="), value("t="))
}

/// Spends the default token's bucket down to empty with cheap reads; how many it took.
async fn drain(app: &TestApp) -> usize {
    let mut spent = 0;
    loop {
        let reply = app.get("/api/v1/me").await;
        if reply.status == 429 {
            return spent;
        }
        reply.expect(200);
        spent += 1;
        assert!(spent < 1_000, "the bucket never emptied");
    }
}

#[actix_web::test]
async fn without_budgets_answers_carry_no_fields() {
    let app = spawn_app();
    let reply = app.get("/api/v1/me").await;
    reply.expect(200);
    assert_eq!(reply.header("ratelimit"), None);
    assert_eq!(reply.header("ratelimit-policy"), None);
}

#[actix_web::test]
async fn a_burst_without_a_rate_stops_start_up() {
    let dir = std::sync::Arc::new(tempfile::tempdir().unwrap());
    let options = Options {
        args: vec!["--token-burst".into(), "5".into()],
        ..Options::default()
    };
    assert!(TestApp::start(dir, options).is_err());
}

#[actix_web::test]
async fn a_bucket_starts_full_empties_and_refills_at_its_rate() {
    let app = spawn_budgeted(5, Some(10));
    let first = app.get("/api/v1/me").await;
    first.expect(200);
    assert_eq!(first.header("ratelimit-policy"), Some("\"token\";q=10;w=2"));
    assert_eq!(left(&first).0, 9);
    let spent = drain(&app).await;
    // 9 more from the burst, plus what refilled while they ran.
    assert!((9..=12).contains(&spent), "{spent}");
    let refused = app.get("/api/v1/me").await;
    assert_problem(&refused, 429, "too_many_requests");
    assert_eq!(refused.body["violatedPolicies"], json!(["token"]));
    let retry: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert_eq!(retry, 1, "one request refills in 0.2 s, rounded up");
    let (r, t) = left(&refused);
    assert_eq!(r, 0);
    assert!((1..=2).contains(&t), "10 requests at 5 a second: {t}");
    // After 0.5 s, two requests have refilled (at 5 a second).
    actix_web::rt::time::sleep(Duration::from_millis(500)).await;
    app.get("/api/v1/me").await.expect(200);
    app.get("/api/v1/me").await.expect(200);
    let started = Instant::now();
    let mut answered = 0;
    while started.elapsed() < Duration::from_secs(2) {
        if app.get("/api/v1/me").await.status == 200 {
            answered += 1;
        } else {
            actix_web::rt::time::sleep(Duration::from_millis(20)).await;
        }
    }
    // 2 s at 5 a second, give or take the one refilling as the loop began and ended.
    assert!((9..=12).contains(&answered), "{answered} in 2 s");
}

#[actix_web::test]
async fn a_refused_request_does_nothing_and_keeps_no_idempotent_answer() {
    let app = spawn_budgeted(1, Some(3));
    drain(&app).await;
    let key = [("Idempotency-Key", "k1")];
    let body = json!({"todoId": "t1"});
    let refused = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    assert_problem(&refused, 429, "too_many_requests");
    actix_web::rt::time::sleep(Duration::from_millis(2_100)).await;
    // The retry runs anew (201, not a replayed 429), and nothing was written before it.
    assert_eq!(app.get("/api/v1/tasks/t1").await.status, 404);
    let created = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    created.expect(201);
    assert_eq!(created.header("idempotent-replayed"), None);
}

#[actix_web::test]
async fn a_replay_and_a_304_cost_nothing_even_with_the_bucket_empty() {
    let app = spawn_budgeted(1, Some(4));
    let key = [("Idempotency-Key", "k1")];
    let body = json!({"todoId": "t1"});
    let created = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    created.expect(201);
    let etag = created.header("etag").unwrap().to_string();
    drain(&app).await;
    let replayed = app
        .send_with(Method::POST, "/api/v1/tasks", Some(&body), &key)
        .await;
    replayed.expect(201);
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    assert_eq!(left(&replayed).0, 0);
    let unchanged = app
        .send_with(
            Method::GET,
            "/api/v1/tasks/t1",
            None,
            &[("If-None-Match", &etag)],
        )
        .await;
    assert_eq!(unchanged.status, 304, "{unchanged:?}");
    // A conditional read that does not match is refused as any request.
    let changed = app
        .send_with(
            Method::GET,
            "/api/v1/tasks/t1",
            None,
            &[("If-None-Match", "\"other\"")],
        )
        .await;
    assert_problem(&changed, 429, "too_many_requests");
    // With requests left, a 304 gives its request back.
    actix_web::rt::time::sleep(Duration::from_millis(2_100)).await;
    let before = left(&app.get("/api/v1/me").await).0;
    for _ in 0..3 {
        let reply = app
            .send_with(
                Method::GET,
                "/api/v1/tasks/t1",
                None,
                &[("If-None-Match", &etag)],
            )
            .await;
        assert_eq!(reply.status, 304);
    }
    assert!(left(&app.get("/api/v1/me").await).0 >= before - 1);
}

#[actix_web::test]
async fn a_batch_costs_its_operations() {
    let app = spawn_budgeted(1, Some(10));
    let operations: Vec<Value> = (0..4)
        .map(|i| json!({"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": format!("t{i}")}}))
        .collect();
    let batch = app
        .post("/api/v1/batch", json!({"operations": operations}))
        .await;
    batch.expect(200);
    assert_eq!(left(&batch).0, 6, "10 less 4");
    // More operations than the bucket holds: refused, nothing written.
    let operations: Vec<Value> = (4..12)
        .map(|i| json!({"method": "POST", "path": "/api/v1/tasks", "body": {"todoId": format!("t{i}")}}))
        .collect();
    let refused = app
        .post("/api/v1/batch", json!({"operations": operations}))
        .await;
    assert_problem(&refused, 429, "too_many_requests");
    assert_eq!(app.get("/api/v1/tasks/t4").await.status, 404);
}

#[actix_web::test]
async fn budgets_are_per_token_and_the_admin_token_has_none() {
    let app = spawn_budgeted(1, Some(3));
    let other = app.create_user("other").await;
    drain(&app).await;
    let theirs = app.user(&other.token).get("/api/v1/me").await;
    theirs.expect(200);
    assert_eq!(left(&theirs).0, 2);
    for _ in 0..10 {
        let reply = app
            .call(Method::GET, "/metrics", &app.admin_token, None)
            .await;
        reply.expect(200);
        assert_eq!(reply.header("ratelimit"), None);
    }
    let metrics = app.metrics().await;
    let text = metrics.body.as_str().unwrap().to_string();
    assert!(
        text.contains("reason=\"token_budget_primary\""),
        "{}",
        text.lines()
            .filter(|l| l.contains("too_many"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[actix_web::test]
async fn caldav_spends_from_the_same_budget() {
    let app = spawn_budgeted(1, Some(3));
    drain(&app).await;
    let propfind = app
        .authorized(Method::from_bytes(b"PROPFIND").unwrap(), "/dav/")
        .insert_header(("Depth", "0"));
    let refused = app.send(propfind, None).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.header("retry-after").is_some());
}

#[actix_web::test]
async fn a_token_with_a_budget_holds_at_most_20_streams() {
    let app = spawn_budgeted(1_000, None);
    let mut open = Vec::new();
    for _ in 0..20 {
        let response = app
            .authorized(Method::GET, "/api/v1/changes/stream")
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        open.push(response);
    }
    let refused = app.get("/api/v1/changes/stream").await;
    assert_problem(&refused, 429, "too_many_requests");
    assert_eq!(refused.body["violatedPolicies"], json!(["token"]));
    drop(open.pop());
    // The closed one's place is free again once the server sees it closed: when it next
    // writes to it, here an event of a write.
    let started = Instant::now();
    for i in 0.. {
        app.post("/api/v1/tasks", json!({"todoId": format!("t{i}")}))
            .await
            .expect(201);
        let response = app
            .authorized(Method::GET, "/api/v1/changes/stream")
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .unwrap();
        if response.status().as_u16() == 200 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never freed");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A scoped token's own budget (docs §25): checked on create, shown in the token object,
/// applied with the server's budgets off, and kept across a restart.
#[actix_web::test]
async fn a_scoped_tokens_own_budget_applies_with_budgets_off_and_survives_a_restart() {
    let app = spawn_app();
    for bad in [
        json!({"perSecond": 0, "burst": 1}),
        json!({"perSecond": 1}),
        json!({"perSecond": 1, "burst": 1, "extra": 1}),
        json!({"perSecond": 1.5, "burst": 1}),
        json!("fast"),
    ] {
        let reply = app
            .post(
                "/api/v1/tokens",
                json!({"name": "t", "access": "read", "rateLimit": bad}),
            )
            .await;
        crate::helpers::assert_invalid_fields(&reply, &["rateLimit"]);
    }
    let plain = app
        .post(
            "/api/v1/tokens",
            json!({"name": "plain", "access": "read", "rateLimit": null}),
        )
        .await;
    plain.expect(201);
    assert_eq!(plain.data()["rateLimit"], Value::Null);
    let made = app
        .post(
            "/api/v1/tokens",
            json!({"name": "capped", "access": "read",
                   "rateLimit": {"perSecond": 1, "burst": 2}}),
        )
        .await;
    made.expect(201);
    assert_eq!(
        made.data()["rateLimit"],
        json!({"perSecond": 1, "burst": 2})
    );
    let secret = made.data()["token"].as_str().unwrap().to_string();
    let id = made.data()["tokenId"].as_str().unwrap().to_string();
    let capped = app.user(&secret);
    let first = capped.get("/api/v1/me").await;
    first.expect(200);
    assert_eq!(first.header("ratelimit-policy"), Some("\"token\";q=2;w=2"));
    capped.get("/api/v1/me").await.expect(200);
    assert_problem(&capped.get("/api/v1/me").await, 429, "too_many_requests");
    // The user's primary token and the plain one have no budget.
    assert_eq!(app.get("/api/v1/me").await.header("ratelimit"), None);
    let app = app.restart();
    let shown = app.get(&format!("/api/v1/tokens/{id}")).await;
    assert_eq!(
        shown.expect(200).data()["rateLimit"],
        json!({"perSecond": 1, "burst": 2})
    );
    let after = app.user(&secret).get("/api/v1/me").await;
    after.expect(200);
    assert_eq!(left(&after).0, 1, "full again after the restart");
}

/// With the server's budgets on, a token's own may not exceed them.
#[actix_web::test]
async fn a_tokens_own_budget_may_not_exceed_the_servers() {
    let app = spawn_budgeted(10, Some(20));
    for (per_second, burst) in [(11, 5), (5, 21)] {
        let reply = app
            .post(
                "/api/v1/tokens",
                json!({"name": "t", "access": "read",
                       "rateLimit": {"perSecond": per_second, "burst": burst}}),
            )
            .await;
        crate::helpers::assert_invalid_fields(&reply, &["rateLimit"]);
    }
    let made = app
        .post(
            "/api/v1/tokens",
            json!({"name": "t", "access": "read", "rateLimit": {"perSecond": 10, "burst": 20}}),
        )
        .await;
    made.expect(201);
}
