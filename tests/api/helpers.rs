//! The one way these tests start `taskd`: the real binary, bound to port 0, on a temporary
//! data directory, spoken to over HTTP with `awc`. Everything a test needs to drive it lives
//! here, so no test copies start-up, shutdown or request code.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::http::header::HeaderMap;
use actix_web::http::Method;
use serde_json::{json, Value};
use tempfile::TempDir;

/// The default user's token when the test passes it in `TASKD_DEFAULT_TOKEN`.
pub const DEFAULT_TOKEN: &str = "test-default-token-5d1c0e7a9b3f4e21";
/// The admin token when the test passes it in `TASKD_ADMIN_TOKEN`.
pub const ADMIN_TOKEN: &str = "test-admin-token-c4a8f2e6d0b94713";

/// Every collection with its own id field (CONTRACT §3). Tests loop over this table instead
/// of repeating themselves per kind.
pub const KINDS: [(&str, &str); 5] = [
    ("tasks", "todoId"),
    ("lists", "listId"),
    ("schedules", "scheduleId"),
    ("categories", "categoryId"),
    ("contexts", "contextId"),
];

/// How long a server gets to print its listen line or to exit.
const START_TIMEOUT: Duration = Duration::from_secs(20);
const STOP_TIMEOUT: Duration = Duration::from_secs(40);

/// How a server is started.
#[derive(Debug, Clone)]
pub struct Options {
    /// Pass [`DEFAULT_TOKEN`] and [`ADMIN_TOKEN`] in the environment; otherwise the server
    /// generates both and the tests read them from the token files.
    pub env_tokens: bool,
    /// `--snapshot-interval-ms`.
    pub snapshot_interval_ms: u64,
    /// Configure through the environment twins (`TASKD_BIND`, ...) instead of flags.
    pub env_twins: bool,
    /// More command-line arguments.
    pub args: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            env_tokens: true,
            snapshot_interval_ms: 1000,
            env_twins: false,
            args: Vec::new(),
        }
    }
}

/// A running `taskd` process and a client for it. The process is killed on drop.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// The data directory, shared with the app a restart makes.
    pub dir: Arc<TempDir>,
    /// The `default` user's token.
    pub default_token: String,
    /// The admin token.
    pub admin_token: String,
    /// Everything the process wrote to stderr so far.
    pub log: Arc<Mutex<String>>,
    options: Options,
    child: Option<Child>,
    client: awc::Client,
}

/// A server that exited instead of starting to listen.
#[derive(Debug)]
pub struct FailedStart {
    /// How it exited.
    pub status: ExitStatus,
    /// All it wrote to stderr.
    pub stderr: String,
}

/// A response: status, headers and the body as JSON (`Null` when empty, a JSON string
/// holding the text when the body is not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    /// The value of header `name`, if present and readable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// `body.data`.
    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    /// `body.spaceVersion`, which must be there.
    pub fn version(&self) -> u64 {
        self.body["spaceVersion"]
            .as_u64()
            .unwrap_or_else(|| panic!("no spaceVersion in {self:?}"))
    }

    /// Panics with the whole reply unless the status is `status`.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Reply {
        assert_eq!(self.status, status, "unexpected reply: {:#?}", self.body);
        self
    }
}

/// A user made through the admin route.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub user_id: String,
    pub default_space_id: String,
    pub token: String,
}

/// Starts a server on a new data directory with tokens from the environment.
pub fn spawn_app() -> TestApp {
    spawn_app_with(Options::default())
}

/// Starts a server on a new data directory.
pub fn spawn_app_with(options: Options) -> TestApp {
    let dir = Arc::new(tempfile::tempdir().expect("temp dir"));
    TestApp::start(dir, options).unwrap_or_else(|f| panic!("server did not start: {f:#?}"))
}

impl TestApp {
    /// Starts the binary on `dir`. `Err` when it exits before listening.
    pub fn start(dir: Arc<TempDir>, options: Options) -> Result<TestApp, FailedStart> {
        let mut command = Command::new(env!("CARGO_BIN_EXE_taskd"));
        for twin in [
            "TASKD_BIND",
            "TASKD_DATA_DIR",
            "TASKD_SNAPSHOT_INTERVAL_MS",
            "TASKD_WORKERS",
            "TASKD_LOG",
            "TASKD_DEFAULT_TOKEN",
            "TASKD_ADMIN_TOKEN",
            "TASKD_DURABILITY",
        ] {
            command.env_remove(twin);
        }
        let interval = options.snapshot_interval_ms.to_string();
        if options.env_twins {
            command
                .env("TASKD_BIND", "127.0.0.1:0")
                .env("TASKD_DATA_DIR", dir.path())
                .env("TASKD_SNAPSHOT_INTERVAL_MS", &interval)
                .env("TASKD_WORKERS", "2")
                .env("TASKD_LOG", "info");
        } else {
            command
                .arg("--bind")
                .arg("127.0.0.1:0")
                .arg("--data-dir")
                .arg(dir.path())
                .args(["--snapshot-interval-ms", &interval])
                .args(["--workers", "2", "--log-level", "info"]);
        }
        command
            .args(&options.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if options.env_tokens {
            command
                .env("TASKD_DEFAULT_TOKEN", DEFAULT_TOKEN)
                .env("TASKD_ADMIN_TOKEN", ADMIN_TOKEN);
        }
        let mut child = command.spawn().expect("cannot run the taskd binary");

        // The server logs a line per request: the pipe must be drained for as long as it
        // runs, or a full pipe would block it. The thread ends when the process does.
        let log = Arc::new(Mutex::new(String::new()));
        let (found, listening) = mpsc::channel();
        let stderr = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if std::env::var_os("TEST_LOG").is_some() {
                    eprintln!("{line}");
                }
                let address = listen_address(&line);
                let mut log = sink.lock().unwrap_or_else(PoisonError::into_inner);
                log.push_str(&line);
                log.push('\n');
                drop(log);
                if let Some(address) = address {
                    let _ = found.send(address);
                }
            }
        });

        let address = match listening.recv_timeout(START_TIMEOUT) {
            Ok(address) => address,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = wait_for_exit(&mut child, START_TIMEOUT);
                let stderr = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
                return Err(FailedStart { status, stderr });
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("taskd printed no listen line: {}", log.lock().unwrap());
            }
        };

        let (default_token, admin_token) = if options.env_tokens {
            (DEFAULT_TOKEN.to_string(), ADMIN_TOKEN.to_string())
        } else {
            let read = |name: &str| {
                std::fs::read_to_string(dir.path().join(name))
                    .unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
                    .trim()
                    .to_string()
            };
            (read("default.token"), read("admin.token"))
        };

        // Pooled connections are not kept: an idle keep-alive connection would hold a
        // graceful shutdown until the server's keep-alive timeout ends it.
        let client = awc::Client::builder()
            .connector(
                awc::Connector::new()
                    .limit(500)
                    .conn_keep_alive(Duration::ZERO),
            )
            .timeout(Duration::from_secs(30))
            .disable_redirects()
            .finish();
        Ok(TestApp {
            address,
            dir,
            default_token,
            admin_token,
            log,
            options,
            child: Some(child),
            client,
        })
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("server is running").id()
    }

    /// The path of `name` inside the data directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub fn stop(&mut self) -> ExitStatus {
        self.signal_and_wait("TERM")
    }

    /// Sends SIGKILL, as a crash would, and waits for the process to end.
    pub fn crash(&mut self) -> ExitStatus {
        self.signal_and_wait("KILL")
    }

    /// Waits for the process to exit by itself (after a signal sent elsewhere).
    pub fn wait(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("server is running");
        wait_for_exit(&mut child, STOP_TIMEOUT)
    }

    fn signal_and_wait(&mut self, signal: &str) -> ExitStatus {
        let mut child = self.child.take().expect("server is running");
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .expect("cannot run kill");
        assert!(sent.success(), "kill -{signal} failed");
        wait_for_exit(&mut child, STOP_TIMEOUT)
    }

    /// Stops the server (which must exit 0) and starts a new one on the same directory with
    /// the same options.
    pub fn restart(mut self) -> TestApp {
        let status = self.stop();
        assert!(
            status.success(),
            "shutdown failed: {status}\n{}",
            self.log_text()
        );
        self.restart_after_stop()
    }

    /// Starts a new server on the same directory with the same options, after
    /// [`TestApp::stop`] or [`TestApp::crash`].
    pub fn restart_after_stop(&self) -> TestApp {
        assert!(self.child.is_none(), "the server is still running");
        TestApp::start(Arc::clone(&self.dir), self.options.clone())
            .unwrap_or_else(|f| panic!("server did not restart: {f:#?}"))
    }

    /// Everything logged so far.
    pub fn log_text(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits up to 5 s for the log to satisfy `done`, and returns it.
    pub fn wait_for_log(&self, done: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let log = self.log_text();
            if done(&log) || started.elapsed() > Duration::from_secs(5) {
                return log;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A request to `path` with no headers set; send it with [`TestApp::send`].
    pub fn request(&self, method: Method, path: &str) -> awc::ClientRequest {
        self.client
            .request(method, format!("{}{path}", self.address))
    }

    /// A request to `path` with the default user's token and no other header set.
    pub fn authorized(&self, method: Method, path: &str) -> awc::ClientRequest {
        self.request(method, path)
            .insert_header(("Authorization", format!("Bearer {}", self.default_token)))
    }

    /// Sends `request` with `body` (nothing when `None`) and reads the reply.
    pub async fn send(&self, request: awc::ClientRequest, body: Option<Vec<u8>>) -> Reply {
        let sent = match body {
            Some(body) => request.send_body(body).await,
            None => request.send().await,
        };
        let mut response = sent.unwrap_or_else(|e| panic!("request failed: {e}"));
        let bytes = response
            .body()
            .limit(64 << 20)
            .await
            .expect("cannot read the response body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        Reply {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body,
        }
    }

    /// A request with `token` as bearer token and, when given, `body` as JSON.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<&Value>,
    ) -> Reply {
        let request = self
            .request(method, path)
            .insert_header(("Authorization", format!("Bearer {token}")));
        match body {
            Some(body) => {
                let request = request.insert_header(("Content-Type", "application/json"));
                self.send(request, Some(body.to_string().into_bytes()))
                    .await
            }
            None => self.send(request, None).await,
        }
    }

    /// The same requests as the default user makes, with another user's token.
    pub fn user<'a>(&'a self, token: &'a str) -> As<'a> {
        As { app: self, token }
    }

    /// Requests as the `default` user.
    pub fn default_user(&self) -> As<'_> {
        self.user(&self.default_token)
    }

    /// `GET path` as the default user.
    pub async fn get(&self, path: &str) -> Reply {
        self.default_user().get(path).await
    }

    /// `POST path` with a JSON body as the default user.
    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.default_user().post(path, body).await
    }

    /// `PATCH path` with a JSON body as the default user.
    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.default_user().patch(path, body).await
    }

    /// `DELETE path` as the default user.
    pub async fn delete(&self, path: &str) -> Reply {
        self.default_user().delete(path).await
    }

    /// Creates a record in `collection` as the default user; it must succeed. Returns `data`.
    pub async fn create(&self, collection: &str, body: Value) -> Value {
        self.default_user().create(collection, body).await
    }

    /// The default space's current version, read from a listing.
    pub async fn space_version(&self) -> u64 {
        self.get("/api/v1/tasks?limit=1")
            .await
            .expect(200)
            .version()
    }

    /// Creates a user through the admin route.
    pub async fn create_user(&self, name: &str) -> NewUser {
        let reply = self
            .call(
                Method::POST,
                "/api/v1/admin/users",
                &self.admin_token,
                Some(&json!({ "name": name })),
            )
            .await;
        reply.expect(201);
        let field = |name: &str| {
            reply.data()[name]
                .as_str()
                .unwrap_or_else(|| panic!("no {name} in {:?}", reply.body))
                .to_string()
        };
        NewUser {
            user_id: field("userId"),
            default_space_id: field("defaultSpaceId"),
            token: field("token"),
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Requests made with one user's token.
#[derive(Clone, Copy)]
pub struct As<'a> {
    app: &'a TestApp,
    token: &'a str,
}

impl As<'_> {
    pub async fn get(&self, path: &str) -> Reply {
        self.app.call(Method::GET, path, self.token, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.app
            .call(Method::POST, path, self.token, Some(&body))
            .await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.app
            .call(Method::PATCH, path, self.token, Some(&body))
            .await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.app.call(Method::DELETE, path, self.token, None).await
    }

    /// `POST {item}/restore` with no body; `path` is the item's path, with or without a
    /// query.
    pub async fn restore(&self, path: &str) -> Reply {
        let restore = match path.split_once('?') {
            Some((item, query)) => format!("{item}/restore?{query}"),
            None => format!("{path}/restore"),
        };
        self.app
            .call(Method::POST, &restore, self.token, None)
            .await
    }

    /// Creates a record in `collection`; it must succeed. Returns `data`.
    pub async fn create(&self, collection: &str, body: Value) -> Value {
        let reply = self.post(&format!("/api/v1/{collection}"), body).await;
        reply.expect(201);
        reply.data().clone()
    }

    /// Every record a listing returns, walking all pages of `limit` records. `path` may
    /// carry a query already.
    pub async fn list_all(&self, path: &str, limit: u32) -> Vec<Value> {
        let separator = if path.contains('?') { '&' } else { '?' };
        let mut records = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..10_000 {
            let mut url = format!("{path}{separator}limit={limit}");
            if let Some(cursor) = &cursor {
                url.push_str(&format!("&cursor={cursor}"));
            }
            let reply = self.get(&url).await;
            reply.expect(200);
            records.extend(reply.data().as_array().expect("data array").iter().cloned());
            match &reply.body["nextCursor"] {
                Value::String(next) => cursor = Some(next.clone()),
                Value::Null => return records,
                other => panic!("bad nextCursor {other:?}"),
            }
        }
        panic!("listing {path} did not end");
    }
}

/// Checks that `reply` is an RFC 9457 problem with `status` and `code`.
#[track_caller]
pub fn assert_problem(reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "status of {:#?}", reply.body);
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(
        content_type.starts_with("application/problem+json"),
        "content type {content_type:?} of a {status}"
    );
    let body = &reply.body;
    assert_eq!(body["code"], code, "code of {body:#}");
    assert_eq!(body["status"], status, "status field of {body:#}");
    assert!(body["type"].is_string(), "type of {body:#}");
    assert!(body["title"].is_string(), "title of {body:#}");
    assert!(body["detail"].is_string(), "detail of {body:#}");
}

/// The `field`s named in a `validation_failed` problem, sorted.
pub fn error_fields(reply: &Reply) -> Vec<String> {
    let mut fields: Vec<String> = reply.body["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors array in {:#}", reply.body))
        .iter()
        .map(|e| e["field"].as_str().expect("field name").to_string())
        .collect();
    fields.sort();
    fields
}

/// Checks a `400 validation_failed` that names exactly `fields`.
#[track_caller]
pub fn assert_invalid_fields(reply: &Reply, fields: &[&str]) {
    assert_problem(reply, 400, "validation_failed");
    let mut expected: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    expected.sort();
    assert_eq!(error_fields(reply), expected, "in {:#}", reply.body);
}

/// Whether `s` is an RFC 3339 UTC date-time with milliseconds: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn is_utc_millis(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    b.len() == 24
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'.'
        && digits(20..23)
        && b[23] == b'Z'
        && chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

/// Whether `s` is a UUID written lowercase with hyphens.
pub fn is_lowercase_uuid(s: &str) -> bool {
    uuid::Uuid::parse_str(s).is_ok_and(|u| u.hyphenated().to_string() == s)
}

/// The milliseconds since the epoch of an RFC 3339 date-time.
pub fn millis(s: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s.as_str().expect("a date-time string"))
        .expect("an RFC 3339 date-time")
        .timestamp_millis()
}

/// Waits until `done` holds, checking every 20 ms for up to `timeout`.
pub fn wait_until(timeout: Duration, done: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// The address in a `taskd listening on http://ADDR ...` log line.
fn listen_address(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("taskd listening on http://")?;
    let address = rest.split_whitespace().next()?;
    Some(format!("http://{address}"))
}

/// Waits for `child` to exit, killing it if it takes longer than `timeout`.
fn wait_for_exit(child: &mut Child, timeout: Duration) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("cannot wait for taskd") {
            return status;
        }
        if started.elapsed() > timeout {
            let _ = child.kill();
            let status = child.wait();
            panic!("taskd did not exit within {timeout:?} (killed: {status:?})");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The base fields every record has (interface-v1 "Base record").
pub const BASE_FIELDS: [&str; 7] = [
    "id",
    "createdAt",
    "deletedAt",
    "isDeleted",
    "spaceId",
    "updatedAt",
    "versionUpdatedAt",
];

/// The updatable fields of a collection's records with the value each has when a create
/// leaves it out (CONTRACT §3), `sortOrder` excepted.
pub fn default_fields(collection: &str) -> serde_json::Map<String, Value> {
    let value = match collection {
        "tasks" => json!({
            "name": null, "notesMarkdown": null, "status": null, "complexity": null,
            "listId": null, "contextId": null, "goalId": null,
            "categoryIds": [], "scheduleIds": [], "tagIds": [],
            "dateDue": null, "dateStart": null, "durationEstimate": null, "durationMs": null,
            "isImportant": false, "isTimeSensitive": false,
            "TodoPredecessorsAllAny": "ALL", "TodoPredecessorsView": false,
        }),
        "lists" => json!({
            "name": null, "color": null, "emoji": null, "icon": null,
            "isDefault": false, "keyboardShortcut": null,
        }),
        "schedules" | "categories" | "contexts" => json!({
            "name": null, "color": null, "emoji": null, "icon": null,
        }),
        other => panic!("no collection {other}"),
    };
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// The id of a record, read from its own id field.
pub fn id_of(record: &Value, id_field: &str) -> String {
    record[id_field]
        .as_str()
        .unwrap_or_else(|| panic!("no {id_field} in {record:#}"))
        .to_string()
}
