//! The ceiling of `benches/hotpath.sh`: a bare actix-web server answering the requests of
//! `taskd bench` with the same JSON shapes as taskd and no work beyond a locked map (no
//! access check, validation, journal, log or metrics).
//!
//! `cargo run --release --example ceiling -- [--bind ADDR] [--workers N]` prints
//! `ceiling listening on http://ADDR` once it listens. Routes: `GET /healthz`,
//! `GET /api/v1/tasks` (the first 100 tasks), `POST /api/v1/tasks`,
//! `GET /api/v1/tasks/{id}` and `POST /api/v1/batch` (creates only).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use actix_web::http::header;
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

/// The tasks, by id, and the version counter.
#[derive(Default)]
struct Tasks {
    records: RwLock<HashMap<String, Arc<Value>>>,
    version: AtomicU64,
}

impl Tasks {
    /// Stores `body` as a task (its `todoId`, or a new id); the stored record.
    fn create(&self, mut body: Value) -> Arc<Value> {
        let version = self.version.fetch_add(1, Ordering::Relaxed) + 1;
        let id = body["todoId"]
            .as_str()
            .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string);
        body["todoId"] = json!(id);
        body["versionUpdatedAt"] = json!(version);
        let record = Arc::new(body);
        self.records
            .write()
            .unwrap()
            .insert(id, Arc::clone(&record));
        record
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

/// `ETag` of a record: its version, quoted.
fn etag(record: &Value) -> String {
    format!("\"{}\"", record["versionUpdatedAt"])
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "ok"}))
}

async fn list(tasks: web::Data<Tasks>) -> HttpResponse {
    let page: Vec<Arc<Value>> = tasks
        .records
        .read()
        .unwrap()
        .values()
        .take(100)
        .cloned()
        .collect();
    HttpResponse::Ok()
        .json(json!({"data": page, "spaceVersion": tasks.version(), "nextCursor": null}))
}

async fn get(tasks: web::Data<Tasks>, id: web::Path<String>) -> HttpResponse {
    let record = tasks.records.read().unwrap().get(id.as_str()).cloned();
    match record {
        Some(record) => HttpResponse::Ok()
            .insert_header((header::ETAG, etag(&record)))
            .json(json!({"data": &*record, "spaceVersion": tasks.version()})),
        None => HttpResponse::NotFound()
            .content_type("application/problem+json")
            .body(r#"{"status":404,"code":"not_found"}"#),
    }
}

async fn create(tasks: web::Data<Tasks>, body: web::Json<Value>) -> HttpResponse {
    let record = tasks.create(body.into_inner());
    HttpResponse::Created()
        .insert_header((header::ETAG, etag(&record)))
        .json(json!({"data": &*record, "spaceVersion": tasks.version()}))
}

async fn batch(tasks: web::Data<Tasks>, body: web::Json<Batch>) -> HttpResponse {
    let results: Vec<Value> = body
        .into_inner()
        .operations
        .into_iter()
        .map(|op| json!({"status": 201, "kind": "task", "data": &*tasks.create(op.body)}))
        .collect();
    HttpResponse::Ok().json(json!({"results": results, "spaceVersion": tasks.version()}))
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
