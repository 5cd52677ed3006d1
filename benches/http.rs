//! taskd over HTTP against a bare actix-web handler over a locked map that serves the same
//! envelopes (the reference), both in this process, driven the same way in the same run.
//!
//! `cargo bench --bench http` prints requests per second, p50/p99/max latency and the
//! ratio to the reference for: GET one task, POST, PATCH, a page of 100, and a change-feed
//! page of 100; it also draws `target/bench-http.svg` (throughput and p99 against the
//! reference). `TASKD_BENCH_CONNECTIONS` (default 32) and `TASKD_BENCH_SECONDS` (default 3
//! per scenario) change the load; `TASKD_LOG` the log level (default info, as the binary).
//! taskd logs a line per request to stderr: `cargo bench --bench http 2>/dev/null`.

mod support;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use actix_web::{web, App, HttpResponse, HttpServer};
use clap::Parser;
use serde_json::{json, Value};
use taskd::config::Config;
use taskd::startup::Application;

use support::{connect, drive, exchange, percentile_ms, request};

/// The allocator the `taskd` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TOKEN: &str = "bench-token-0123456789abcdef0123456789";
const PREFILL: usize = 10_000;

/// One kind of request, as raw HTTP/1.1 bytes for taskd and for the reference.
struct Scenario {
    name: &'static str,
    request: fn(usize) -> (String, String, Option<String>),
}

/// The reference: a bare actix-web handler over a `RwLock<BTreeMap>` of JSON records that
/// answers the same envelopes as taskd for the same paths.
fn start_reference() -> SocketAddr {
    type Store = RwLock<BTreeMap<String, Arc<Value>>>;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let store = web::Data::new(Store::default());
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(store.clone())
                    .route(
                        "/api/v1/tasks",
                        web::post().to(
                            |store: web::Data<Store>, body: web::Json<Value>| async move {
                                let mut record = body.into_inner();
                                let id = record["todoId"].as_str().unwrap_or("x").to_string();
                                record["id"] = json!(id);
                                let record = Arc::new(record);
                                store.write().unwrap().insert(id, Arc::clone(&record));
                                HttpResponse::Created()
                                    .json(json!({"data": &*record, "spaceVersion": 1}))
                            },
                        ),
                    )
                    .route(
                        "/api/v1/tasks",
                        web::get().to(|store: web::Data<Store>| async move {
                            let page: Vec<Arc<Value>> =
                                store.read().unwrap().values().take(100).cloned().collect();
                            HttpResponse::Ok()
                                .json(json!({"data": page, "spaceVersion": 1, "nextCursor": null}))
                        }),
                    )
                    .route(
                        "/api/v1/tasks/{id}",
                        web::get().to(
                            |store: web::Data<Store>, id: web::Path<String>| async move {
                                let record = store.read().unwrap().get(id.as_str()).cloned();
                                HttpResponse::Ok().json(json!({"data": record, "spaceVersion": 1}))
                            },
                        ),
                    )
                    .route(
                        "/api/v1/tasks/{id}",
                        web::patch().to(
                            |store: web::Data<Store>,
                             id: web::Path<String>,
                             body: web::Json<Value>| async move {
                                let mut map = store.write().unwrap();
                                let mut record = map
                                    .get(id.as_str())
                                    .map(|r| Value::clone(r))
                                    .unwrap_or_default();
                                if let (Some(record), Some(body)) =
                                    (record.as_object_mut(), body.as_object())
                                {
                                    record.extend(body.clone());
                                }
                                let record = Arc::new(record);
                                map.insert(id.into_inner(), Arc::clone(&record));
                                HttpResponse::Ok()
                                    .json(json!({"data": &*record, "spaceVersion": 1}))
                            },
                        ),
                    )
            })
            .workers(2)
            .bind("127.0.0.1:0")
            .unwrap();
            tx.send(server.addrs()[0]).unwrap();
            server.run().await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// taskd itself, in this process, on a temporary data directory.
fn start_taskd(dir: &std::path::Path) -> SocketAddr {
    let mut config = Config::try_parse_from([
        "taskd",
        "--bind",
        "127.0.0.1:0",
        "--data-dir",
        dir.to_str().unwrap(),
        "--workers",
        "2",
    ])
    .unwrap();
    config.default_token = Some(TOKEN.into());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let app = Application::build(&config).expect("taskd starts");
            tx.send(app.local_addr()).unwrap();
            app.run().await.unwrap();
        });
    });
    rx.recv().unwrap()
}

fn task_body(i: usize) -> String {
    json!({"todoId": format!("t{i}"), "name": format!("Task {i}"), "status": "open", "tagIds": ["a", "b"]})
        .to_string()
}

fn main() {
    let connections: usize = std::env::var("TASKD_BENCH_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let seconds: f64 = std::env::var("TASKD_BENCH_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3.0);
    // Logging as the binary does by default (`TASKD_LOG`, else info): one line per
    // request to stderr, so run with `2>/dev/null`.
    let level = std::env::var("TASKD_LOG")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(log::LevelFilter::Info);
    taskd::logging::init(level, taskd::logging::LogFormat::Text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let taskd = start_taskd(dir.path());
    let reference = start_reference();
    // Both get the same 10,000 tasks first.
    for addr in [taskd, reference] {
        let mut reader = connect(addr);
        for i in 0..PREFILL {
            let (status, _) = exchange(
                &mut reader,
                &request(TOKEN, "POST", "/api/v1/tasks", Some(&task_body(i))),
            );
            assert_eq!(status, 201);
        }
    }
    let scenarios = [
        Scenario {
            name: "GET /tasks/{id}",
            request: |i| {
                (
                    "GET".into(),
                    format!("/api/v1/tasks/t{}", i % PREFILL),
                    None,
                )
            },
        },
        Scenario {
            name: "POST /tasks",
            request: |i| {
                (
                    "POST".into(),
                    "/api/v1/tasks".into(),
                    Some(task_body(PREFILL + i)),
                )
            },
        },
        Scenario {
            name: "PATCH /tasks/{id}",
            request: |i| {
                (
                    "PATCH".into(),
                    format!("/api/v1/tasks/t{}", i % PREFILL),
                    Some(json!({"status": "done"}).to_string()),
                )
            },
        },
        Scenario {
            name: "GET /tasks?limit=100",
            request: |_| ("GET".into(), "/api/v1/tasks?limit=100".into(), None),
        },
    ];
    println!(
        "{connections} keep-alive connections, {seconds} s per scenario, {PREFILL} tasks prefilled, 2 workers each\n"
    );
    println!(
        "{:<24} {:>10} {:>8} {:>8} {:>8} | {:>10} {:>8} | {:>6} {:>7}",
        "request",
        "taskd r/s",
        "p50 ms",
        "p99 ms",
        "max ms",
        "ref r/s",
        "ref p99",
        "r/s x",
        "p99 x"
    );
    let mut rows = Vec::new();
    let mut posted = 0usize;
    for scenario in &scenarios {
        let make = scenario.request;
        let offset = posted;
        let bytes = move |i: usize| {
            let (method, path, body) = make(i + offset);
            request(TOKEN, &method, &path, body.as_deref())
        };
        let (ours, ours_lat) = drive(taskd, connections, seconds, bytes);
        let (theirs, their_lat) = drive(reference, connections, seconds, bytes);
        posted += 10_000_000;
        let row = (
            scenario.name,
            ours,
            percentile_ms(&ours_lat, 0.5),
            percentile_ms(&ours_lat, 0.99),
            percentile_ms(&ours_lat, 1.0),
            theirs,
            percentile_ms(&their_lat, 0.99),
        );
        println!(
            "{:<24} {:>10.0} {:>8.2} {:>8.2} {:>8.2} | {:>10.0} {:>8.2} | {:>6.2} {:>7.2}",
            row.0,
            row.1,
            row.2,
            row.3,
            row.4,
            row.5,
            row.6,
            row.1 / row.5,
            row.3 / row.6
        );
        rows.push(row);
    }
    let feed = drive(taskd, connections, seconds, |i| {
        request(
            TOKEN,
            "GET",
            &format!("/api/v1/changes?since={}&limit=100", i % PREFILL),
            None,
        )
    });
    println!(
        "{:<24} {:>10.0} {:>8.2} {:>8.2} {:>8.2} | (no reference)",
        "GET /changes?limit=100",
        feed.0,
        percentile_ms(&feed.1, 0.5),
        percentile_ms(&feed.1, 0.99),
        percentile_ms(&feed.1, 1.0)
    );
    let svg = chart(&rows);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-http.svg");
    std::fs::write(&path, svg).unwrap();
    println!("\nchart: {}", path.display());
}

/// A bar chart: per request, taskd's throughput and p99 as a fraction of the reference's.
fn chart(rows: &[(&str, f64, f64, f64, f64, f64, f64)]) -> String {
    let (width, row_height) = (640.0, 56.0);
    let height = 60.0 + row_height * rows.len() as f64;
    let scale = 300.0
        / rows
            .iter()
            .map(|r| (r.3 / r.6).max(1.0))
            .fold(1.0, f64::max);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"10\" y=\"20\" font-size=\"14\">taskd relative to a bare actix-web handler (1.0 = the same)</text>\n\
         <text x=\"200\" y=\"40\" fill=\"#2b6cb0\">throughput</text><text x=\"300\" y=\"40\" fill=\"#c05621\">p99 latency</text>\n"
    );
    let x0 = 200.0;
    for (i, row) in rows.iter().enumerate() {
        let y = 50.0 + row_height * i as f64;
        let throughput = row.1 / row.5;
        let p99 = row.3 / row.6;
        svg.push_str(&format!(
            "<text x=\"10\" y=\"{:.0}\">{}</text>\n\
             <rect x=\"{x0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"18\" fill=\"#2b6cb0\"/><text x=\"{:.0}\" y=\"{:.0}\">{throughput:.2}</text>\n\
             <rect x=\"{x0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"18\" fill=\"#c05621\"/><text x=\"{:.0}\" y=\"{:.0}\">{p99:.2}</text>\n",
            y + 22.0,
            row.0.replace('{', "&#123;").replace('}', "&#125;"),
            y + 4.0,
            throughput * scale,
            x0 + throughput * scale + 4.0,
            y + 18.0,
            y + 24.0,
            p99 * scale,
            x0 + p99 * scale + 4.0,
            y + 38.0,
        ));
    }
    svg.push_str(&format!(
        "<line x1=\"{:.0}\" y1=\"45\" x2=\"{:.0}\" y2=\"{height}\" stroke=\"#555\" stroke-dasharray=\"4\"/>\n</svg>\n",
        x0 + scale,
        x0 + scale
    ));
    svg
}
