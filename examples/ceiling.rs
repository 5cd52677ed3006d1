//! The ceiling of `benches/hotpath.sh`: a bare actix-web server answering the requests of
//! `taskd bench` with the same JSON as taskd (every field of a task) and no work beyond a
//! locked map: no access check, validation, journal, log or metrics, and each record
//! rendered once, when it is created (a read copies its bytes into the envelope).
//!
//! `cargo run --release --example ceiling -- [--bind ADDR] [--workers N]` prints
//! `ceiling listening on http://ADDR` once it listens. Routes: `GET /healthz`,
//! `GET /api/v1/tasks` (the first 100 tasks), `POST /api/v1/tasks`,
//! `GET /api/v1/tasks/{id}` and `POST /api/v1/batch` (creates only).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use actix_web::http::{header, StatusCode};
use actix_web::web::Bytes;
use actix_web::{web, App, HttpResponse, HttpServer};
use clap::Parser;
use serde::Deserialize;
use serde_json::{json, Value};

/// The allocator the `taskd` binary uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
struct Options {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: String,
    /// HTTP worker threads.
    #[arg(long, default_value_t = 2)]
    workers: usize,
}

/// A stored task: its JSON, rendered once, and its version.
struct Stored {
    json: Bytes,
    version: u64,
}

/// The tasks, by id, and the version counter.
#[derive(Default)]
struct Tasks {
    records: RwLock<HashMap<String, Arc<Stored>>>,
    version: AtomicU64,
}

impl Tasks {
    /// Stores `body` over a task's defaults (its `todoId`, or a new id), with every field
    /// a task of taskd has, so that answers are as long as taskd's; the stored record.
    fn create(&self, body: Value) -> Arc<Stored> {
        let version = self.version.fetch_add(1, Ordering::Relaxed) + 1;
        let id = body["todoId"]
            .as_str()
            .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string);
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut record = json!({
            "id": id, "todoId": id, "spaceId": "4fb52e21-080e-4d36-a15e-4a342d19d298",
            "sortOrder": version as f64, "name": null, "notesMarkdown": null, "status": null,
            "complexity": null, "listId": null, "contextId": null, "goalId": null,
            "categoryIds": [], "scheduleIds": [], "tagIds": [], "dateDue": null,
            "dateStart": null, "durationEstimate": null, "durationMs": null,
            "isImportant": false, "isTimeSensitive": false, "TodoPredecessorsAllAny": "ALL",
            "TodoPredecessorsView": false, "predecessorIds": [], "isBlocked": false,
            "createdAt": now, "updatedAt": now, "deletedAt": null, "isDeleted": false,
            "versionUpdatedAt": version,
        });
        if let (Some(record), Value::Object(body)) = (record.as_object_mut(), body) {
            record.extend(body);
        }
        let stored = Arc::new(Stored {
            json: Bytes::from(serde_json::to_vec(&record).unwrap()),
            version,
        });
        self.records
            .write()
            .unwrap()
            .insert(id, Arc::clone(&stored));
        stored
    }

    fn version(&self) -> u64 {
        self.version.load(Ordering::Relaxed)
    }
}

#[derive(Deserialize)]
struct Batch {
    operations: Vec<Operation>,
}

#[derive(Deserialize)]
struct Operation {
    body: Value,
}

/// `{"data":RECORD,"spaceVersion":N}` around a rendered record.
fn envelope(json: &[u8], version: u64) -> Vec<u8> {
    let mut body = Vec::with_capacity(json.len() + 40);
    body.extend_from_slice(b"{\"data\":");
    body.extend_from_slice(json);
    body.extend_from_slice(format!(",\"spaceVersion\":{version}}}").as_bytes());
    body
}

/// An answer carrying one record, with its `ETag`.
fn item(status: StatusCode, stored: &Stored, version: u64) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::ETAG, format!("\"{}\"", stored.version)))
        .content_type("application/json")
        .body(envelope(&stored.json, version))
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

async fn list(tasks: web::Data<Tasks>) -> HttpResponse {
    let records = tasks.records.read().unwrap();
    let mut page = b"{\"data\":[".to_vec();
    for (n, stored) in records.values().take(100).enumerate() {
        if n > 0 {
            page.push(b',');
        }
        page.extend_from_slice(&stored.json);
    }
    page.extend_from_slice(
        format!(
            "],\"spaceVersion\":{},\"nextCursor\":null}}",
            tasks.version()
        )
        .as_bytes(),
    );
    HttpResponse::Ok()
        .content_type("application/json")
        .body(page)
}

async fn get(tasks: web::Data<Tasks>, id: web::Path<String>) -> HttpResponse {
    let stored = tasks.records.read().unwrap().get(id.as_str()).cloned();
    match stored {
        Some(stored) => item(StatusCode::OK, &stored, tasks.version()),
        None => HttpResponse::NotFound()
            .content_type("application/problem+json")
            .body(r#"{"status":404,"code":"not_found"}"#),
    }
}

async fn create(tasks: web::Data<Tasks>, body: web::Json<Value>) -> HttpResponse {
    let stored = tasks.create(body.into_inner());
    item(StatusCode::CREATED, &stored, tasks.version())
}

async fn batch(tasks: web::Data<Tasks>, body: web::Json<Batch>) -> HttpResponse {
    let mut results = b"{\"results\":[".to_vec();
    for (n, op) in body.into_inner().operations.into_iter().enumerate() {
        if n > 0 {
            results.push(b',');
        }
        let stored = tasks.create(op.body);
        results.extend_from_slice(br#"{"status":201,"kind":"task","data":"#);
        results.extend_from_slice(&stored.json);
        results.push(b'}');
    }
    results.extend_from_slice(format!("],\"spaceVersion\":{}}}", tasks.version()).as_bytes());
    HttpResponse::Ok()
        .content_type("application/json")
        .body(results)
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let options = Options::parse();
    let tasks = web::Data::new(Tasks::default());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(tasks.clone())
            .app_data(web::JsonConfig::default().limit(16 << 20))
            .route("/healthz", web::get().to(healthz))
            .route("/api/v1/tasks", web::get().to(list))
            .route("/api/v1/tasks", web::post().to(create))
            .route("/api/v1/tasks/{id}", web::get().to(get))
            .route("/api/v1/batch", web::post().to(batch))
    })
    .workers(options.workers)
    .bind(&options.bind)?;
    println!("ceiling listening on http://{}", server.addrs()[0]);
    server.run().await
}
