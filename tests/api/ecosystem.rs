//! Fitting the ecosystem: Prometheus metrics, request ids, the OpenAPI document and the
//! docs page.

use actix_web::http::Method;
use serde_json::json;

use openmetrics_parser::openmetrics::parse_openmetrics;
use openmetrics_parser::{MetricsExposition, OpenMetricsType, OpenMetricsValue};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, Options, TestApp};

type Exposition = MetricsExposition<OpenMetricsType, OpenMetricsValue>;

/// `GET /metrics` on the API's address of `app`, with the admin token it takes, parsed
/// with an OpenMetrics parser.
pub async fn scrape(app: &TestApp) -> Exposition {
    scrape_at(&app.address, Some(&app.admin_token)).await
}

/// `GET /metrics` at `base` with `token` (none on a `--metrics-bind` address); it must
/// answer 200 with metrics that parse.
pub async fn scrape_at(base: &str, token: Option<&str>) -> Exposition {
    let mut request = awc::Client::default().get(format!("{base}/metrics"));
    if let Some(token) = token {
        request = request.insert_header(("Authorization", format!("Bearer {token}")));
    }
    let mut response = request.send().await.expect("scrape");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers().get("content-type").unwrap();
    assert!(
        content_type
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text"),
        "{content_type:?}"
    );
    let text = String::from_utf8(response.body().await.unwrap().to_vec()).unwrap();
    parse_openmetrics(&text).unwrap_or_else(|e| panic!("metrics do not parse: {e:?}\n{text}"))
}

/// The sum of the samples of `family` whose labels include every pair of `labels` (a
/// histogram's sample counts its observations); 0 if none.
pub fn value(scrape: &Exposition, family: &str, labels: &[(&str, &str)]) -> f64 {
    let Some(family) = scrape.families.get(family) else {
        return 0.0;
    };
    family
        .iter_samples()
        .filter(|s| {
            let set = s.get_labelset().expect("labels");
            labels
                .iter()
                .all(|(k, v)| set.get_label_value(k) == Some(*v))
        })
        .map(|s| match &s.value {
            OpenMetricsValue::Counter(c) => c.value.as_f64(),
            OpenMetricsValue::Gauge(n) | OpenMetricsValue::Unknown(n) => n.as_f64(),
            OpenMetricsValue::Histogram(h) => h.count.unwrap_or(0) as f64,
            _ => 0.0,
        })
        .fold(0.0, |sum, v| sum + v)
}

#[actix_web::test]
async fn metrics_parse_and_move_with_traffic() {
    let app = spawn_app();
    let before = scrape(&app).await;
    let created = [
        ("method", "POST"),
        ("route", "/api/v1/tasks"),
        ("status", "201"),
    ];
    let tasks = [("kind", "task")];
    for i in 0..3 {
        app.default_user()
            .post("/api/v1/tasks", json!({ "name": format!("t{i}") }))
            .await
            .expect(201);
    }
    app.call(Method::GET, "/api/v1/tasks/x", "wrong-token", None)
        .await
        .expect(401);
    let after = scrape(&app).await;

    let requests = "taskd_http_requests";
    assert_eq!(
        value(&after, requests, &created) - value(&before, requests, &created),
        3.0
    );
    assert_eq!(
        value(&after, "taskd_records", &tasks) - value(&before, "taskd_records", &tasks),
        3.0
    );
    assert_eq!(
        value(&after, "taskd_auth_failures", &[]) - value(&before, "taskd_auth_failures", &[]),
        1.0
    );
    // The route label is the pattern, never the raw path.
    let got = [("route", "/api/v1/tasks/{id}"), ("status", "401")];
    assert_eq!(value(&after, requests, &got), 1.0);
    assert_eq!(
        value(&after, requests, &[("route", "/api/v1/tasks/x")]),
        0.0
    );
    assert!(value(&after, "taskd_http_request_duration_seconds", &[]) >= 4.0);
    assert!(value(&after, "taskd_journal_sync_seconds", &[]) >= 3.0);
    assert!(value(&after, "taskd_journal_batch_entries", &[]) >= 1.0);
    assert_eq!(value(&after, "taskd_spaces_loaded", &[]), 1.0);
    for name in ["taskd_snapshot_seconds", "taskd_mailbox_rejections"] {
        assert!(after.families.contains_key(name), "{name} missing");
    }
}

/// docs §21: the metrics name users, so on the API's address only the admin token
/// reads them; every other token is 401, a user's too (not 403). On a `--metrics-bind`
/// address they stay open, and the API's address no longer serves them.
#[actix_web::test]
async fn metrics_take_the_admin_token_on_the_api_address_and_none_on_metrics_bind() {
    let app = spawn_app();
    let alice = app.create_user("alice").await;
    let primary = app.user(&alice.token);
    let scoped = primary
        .post(
            "/api/v1/tokens",
            json!({"name": "script", "access": "write"}),
        )
        .await;
    scoped.expect(201);
    let scoped_id = scoped.data()["tokenId"].as_str().unwrap().to_string();
    let scoped = scoped.data()["token"].as_str().unwrap().to_string();
    let anonymous = app.send(app.request(Method::GET, "/metrics"), None).await;
    assert_problem(&anonymous, 401, "unauthorized");
    assert_eq!(anonymous.header("www-authenticate"), Some("Bearer"));
    assert!(!anonymous.body.to_string().contains("taskd_"));
    for token in [
        "not-a-token-at-all",
        app.default_token.as_str(),
        alice.token.as_str(),
        scoped.as_str(),
    ] {
        let reply = app.call(Method::GET, "/metrics", token, None).await;
        assert_problem(&reply, 401, "unauthorized");
        assert!(!reply.body.to_string().contains("taskd_"), "{token}");
    }
    // A user's token is refused without being accepted: its lastUsedAt does not move.
    let listed = primary.get(&format!("/api/v1/tokens/{scoped_id}")).await;
    assert_eq!(listed.data()["lastUsedAt"], serde_json::Value::Null);
    let scraped = scrape(&app).await;
    assert!(value(&scraped, "taskd_users", &[]) >= 2.0);

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let apart = spawn_app_with(Options {
        args: vec!["--metrics-bind".into(), format!("127.0.0.1:{port}")],
        ..Options::default()
    });
    let other = format!("http://127.0.0.1:{port}");
    let scraped = scrape_at(&other, None).await;
    assert!(value(&scraped, "taskd_spaces_loaded", &[]) >= 1.0);
    scrape_at(&other, Some("any-token-is-ignored-here")).await;
    for token in [None, Some(apart.admin_token.as_str())] {
        let mut request = apart.request(Method::GET, "/metrics");
        if let Some(token) = token {
            request = request.insert_header(("Authorization", format!("Bearer {token}")));
        }
        assert_eq!(apart.send(request, None).await.status, 404, "{token:?}");
    }
}

#[actix_web::test]
async fn every_response_has_a_request_id_and_the_log_line_carries_it() {
    let app = spawn_app();
    let mine = app
        .send(
            app.authorized(Method::GET, "/api/v1/me")
                .insert_header(("X-Request-Id", "client-id-42")),
            None,
        )
        .await;
    assert_eq!(mine.header("x-request-id"), Some("client-id-42"));
    let fresh = app.send(app.request(Method::GET, "/healthz"), None).await;
    let fresh_id = fresh.header("x-request-id").expect("an id").to_string();
    let other = app.send(app.request(Method::GET, "/nowhere"), None).await;
    assert_ne!(other.header("x-request-id"), Some(fresh_id.as_str()));
    // Not sane: too long, or with a space; a new one is made.
    for sent in ["x".repeat(129), "two words".to_string()] {
        let reply = app
            .send(
                app.request(Method::GET, "/healthz")
                    .insert_header(("X-Request-Id", sent.as_str())),
                None,
            )
            .await;
        let id = reply.header("x-request-id").expect("an id");
        assert_ne!(id, sent);
        assert!(!id.is_empty());
    }
    let logged = |log: &str| log.contains("id=client-id-42") && log.contains(&fresh_id);
    assert!(logged(&app.wait_for_log(logged)));
}

#[actix_web::test]
async fn json_log_lines_are_json_objects() {
    let app = spawn_app_with(Options {
        args: vec!["--log-format".into(), "json".into()],
        ..Options::default()
    });
    app.send(app.request(Method::GET, "/healthz"), None).await;
    let log = app.wait_for_log(|log| log.contains("GET /healthz 200"));
    let line = log
        .lines()
        .find(|l| l.contains("GET /healthz 200"))
        .expect("the access line");
    let parsed: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    assert_eq!(parsed["level"], "INFO");
    assert!(parsed["ts"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert!(parsed["msg"].as_str().unwrap().contains("id="));
}

#[actix_web::test]
async fn the_openapi_document_is_served_without_auth_and_describes_every_route() {
    let app = spawn_app();
    let reply = app
        .send(app.request(Method::GET, "/api/v1/openapi.json"), None)
        .await
        .expect(200)
        .body
        .clone();
    assert_eq!(reply["openapi"], "3.1.0");
    let paths = reply["paths"].as_object().expect("paths");
    let schemas = &reply["components"]["schemas"];
    // Each collection with the interface's name of its path id, and its envelopes named
    // once as components.
    for (collection, id, schema) in [
        ("tasks", "todoId", "Task"),
        ("lists", "listId", "List"),
        ("schedules", "scheduleId", "Schedule"),
        ("categories", "categoryId", "Category"),
        ("contexts", "contextId", "Context"),
    ] {
        let base = format!("/api/v1/{collection}");
        assert!(paths[&base]["get"].is_object() && paths[&base]["post"].is_object());
        let item_path = format!("{base}/{{{id}}}");
        let item = &paths[&item_path];
        let restore_path = format!("{item_path}/restore");
        let operations = [
            &item["get"],
            &item["patch"],
            &item["delete"],
            &paths[&restore_path]["post"],
        ];
        for operation in operations {
            assert!(operation.is_object(), "{item_path} or {restore_path}");
            let in_path: Vec<&str> = operation["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            assert_eq!(in_path, [id], "{item_path}");
            assert_eq!(
                json_of(&operation["responses"]["200"])["$ref"],
                format!("#/components/schemas/{schema}Envelope")
            );
        }
        assert!(!paths.contains_key(&format!("{base}/{{id}}")));
        assert_eq!(
            json_of(&paths[&base]["post"]["responses"]["201"])["$ref"],
            format!("#/components/schemas/{schema}Envelope")
        );
        assert_eq!(
            json_of(&paths[&base]["get"]["responses"]["200"])["$ref"],
            format!("#/components/schemas/{schema}Page")
        );
        let envelope = &schemas[format!("{schema}Envelope")];
        assert_eq!(
            envelope["properties"]["data"]["$ref"],
            format!("#/components/schemas/{schema}")
        );
        assert_eq!(envelope["required"], json!(["data", "spaceVersion"]));
        let page = &schemas[format!("{schema}Page")]["properties"];
        assert_eq!(
            page["data"]["items"]["$ref"],
            format!("#/components/schemas/{schema}")
        );
        assert!(page["nextCursor"].is_object());
    }
    for path in [
        "/healthz",
        "/metrics",
        "/api/v1/me",
        "/api/v1/admin/users",
        "/api/v1/admin/backup",
        "/api/v1/changes",
        "/api/v1/changes/stream",
        "/api/v1/batch",
    ] {
        assert!(paths.contains_key(path), "{path} missing");
    }
    // Headers, statuses with problem+json, security and field rules.
    let update = &paths["/api/v1/tasks/{todoId}"]["patch"];
    let headers: Vec<&str> = update["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["in"] == "header")
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(headers, ["If-Match", "Idempotency-Key"]);
    for status in [
        "400", "401", "404", "409", "412", "413", "415", "422", "429", "503",
    ] {
        assert!(update["responses"][status].is_object(), "PATCH {status}");
    }
    assert!(update["responses"]["200"]["headers"]["ETag"].is_object());
    let components = &reply["components"];
    assert_eq!(components["securitySchemes"]["bearer"]["scheme"], "bearer");
    assert!(components["responses"]["Problem503"]["headers"]["Retry-After"].is_object());
    assert!(
        components["responses"]["Problem400"]["content"]["application/problem+json"].is_object()
    );
    let task = &components["schemas"]["Task"]["properties"];
    assert_eq!(task["name"]["maxLength"], 1000);
    assert_eq!(task["name"]["type"], json!(["string", "null"]));
    assert_eq!(task["dateDue"]["format"], "date-time");
    assert_eq!(task["durationMs"]["maximum"], 9007199254740991i64);
    assert_eq!(task["tagIds"]["maxItems"], 100);
    assert_eq!(
        task["TodoPredecessorsAllAny"]["enum"],
        json!(["ALL", "ANY"])
    );
    let create = &components["schemas"]["TaskCreate"];
    assert_eq!(create["additionalProperties"], false);
    assert!(create["properties"]["todoId"]["pattern"].is_string());
    assert!(components["schemas"]["TaskUpdate"]["properties"]["todoId"].is_null());

    // The feed's and the batch's envelopes are components too; a feed entry is typed by
    // its `kind` (beside the record), a batch result's record by its own id field.
    let refs = |path: &str, method: &str, status: &str| {
        json_of(&paths[path][method]["responses"][status])["$ref"].clone()
    };
    for (path, method, status, name) in [
        ("/api/v1/changes", "get", "200", "ChangePage"),
        ("/api/v1/batch", "post", "200", "BatchResponse"),
        ("/api/v1/me", "get", "200", "MeEnvelope"),
        ("/api/v1/admin/users", "post", "201", "CreatedUserEnvelope"),
        ("/api/v1/admin/backup", "post", "200", "BackupEnvelope"),
        ("/healthz", "get", "200", "Health"),
    ] {
        assert_eq!(
            refs(path, method, status),
            format!("#/components/schemas/{name}"),
            "{method} {path}"
        );
        assert!(schemas[name].is_object(), "{name}");
    }
    assert_eq!(
        schemas["ChangePage"]["properties"]["data"]["items"]["$ref"],
        "#/components/schemas/Change"
    );
    let change = &schemas["Change"];
    assert_eq!(change["discriminator"]["propertyName"], "kind");
    let variants: Vec<&str> = change["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .map(|v| v["$ref"].as_str().unwrap())
        .collect();
    for (kind, schema) in [
        ("task", "Task"),
        ("list", "List"),
        ("schedule", "Schedule"),
        ("category", "Category"),
        ("context", "Context"),
    ] {
        let variant = format!("#/components/schemas/{schema}Change");
        assert!(variants.contains(&variant.as_str()), "{variant}");
        assert_eq!(change["discriminator"]["mapping"][kind], variant);
        let properties = &schemas[format!("{schema}Change")]["properties"];
        assert_eq!(properties["kind"]["enum"], json!([kind]));
        assert_eq!(
            properties["record"]["$ref"],
            format!("#/components/schemas/{schema}")
        );
    }
    assert_eq!(variants.len(), 6);
    let result = &schemas["BatchResult"]["properties"];
    assert_eq!(result["data"]["$ref"], "#/components/schemas/Record");
    assert_eq!(result["status"]["enum"], json!([200, 201]));
    assert_eq!(schemas["Record"]["oneOf"].as_array().map(Vec::len), Some(6));
    // A replayed user creation carries no token (docs §11).
    assert!(schemas["CreatedUser"]["properties"]["token"].is_object());
    assert!(!schemas["CreatedUser"]["required"]
        .as_array()
        .unwrap()
        .contains(&json!("token")));
}

/// The JSON schema of a response's `application/json` content.
fn json_of(response: &serde_json::Value) -> &serde_json::Value {
    &response["content"]["application/json"]["schema"]
}

#[actix_web::test]
async fn the_docs_page_renders_the_operations_in_a_headless_browser() {
    let Some(browser) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            std::process::Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    else {
        eprintln!("SKIPPED: no chromium installed (apt-get install chromium) to render /docs");
        return;
    };
    let app = spawn_app();
    let moved = app.send(app.request(Method::GET, "/docs"), None).await;
    assert_eq!(moved.status, 308);
    assert_eq!(moved.header("location"), Some("/docs/"));
    let url = format!("{}/docs/", app.address);
    let profile = tempfile::tempdir().unwrap();
    let profile_flag = format!("--user-data-dir={}", profile.path().display());
    let dom = actix_web::rt::task::spawn_blocking(move || {
        // No network beyond loopback here: the background services are turned off.
        std::process::Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                &profile_flag,
                "--virtual-time-budget=15000",
                "--dump-dom",
                &url,
            ])
            .output()
            .expect("run chromium")
    })
    .await
    .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    for operation in [
        "/api/v1/tasks/{todoId}/restore",
        "/api/v1/changes/stream",
        "/api/v1/batch",
    ] {
        assert!(
            dom.contains(operation),
            "{operation} not rendered by Swagger UI:\n{}",
            &dom[..dom.len().min(2000)]
        );
    }
}
