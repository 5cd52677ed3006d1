//! Process control: the one way these tests start `taskd` — the real binary, bound to
//! port 0, on a temporary data directory — and stop, crash and restart it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// The default user's token when the test passes it in `TASKD_DEFAULT_TOKEN`.
pub const DEFAULT_TOKEN: &str = "test-default-token-5d1c0e7a9b3f4e21";
/// The admin token when the test passes it in `TASKD_ADMIN_TOKEN`.
pub const ADMIN_TOKEN: &str = "test-admin-token-c4a8f2e6d0b94713";

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
    /// More environment variables, set last.
    pub env: Vec<(String, String)>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            env_tokens: true,
            snapshot_interval_ms: 1000,
            env_twins: false,
            args: Vec::new(),
            env: Vec::new(),
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
    pub(super) options: Options,
    pub(super) child: Option<Child>,
    pub(super) client: awc::Client,
}

/// A server that exited instead of starting to listen.
#[derive(Debug)]
pub struct FailedStart {
    /// How it exited.
    pub status: ExitStatus,
    /// All it wrote to stderr.
    pub stderr: String,
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

/// Starts a server with `--durability mode` and the given snapshot interval.
pub fn spawn_durable(mode: &str, snapshot_interval_ms: u64) -> TestApp {
    spawn_app_with(Options {
        snapshot_interval_ms,
        args: vec!["--durability".into(), mode.into()],
        ..Options::default()
    })
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
            "TASKD_TRUSTED_PROXY",
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
        command.envs(options.env.iter().map(|(k, v)| (k, v)));
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

    /// Sends SIGTERM and checks that the process exits 0 within `limit`.
    pub fn stop_within(&mut self, limit: Duration) {
        let started = Instant::now();
        let status = self.stop();
        assert!(status.success(), "shutdown failed: {status}");
        assert!(
            started.elapsed() < limit,
            "shutdown took {:?}",
            started.elapsed()
        );
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
        self.try_restart()
            .unwrap_or_else(|f| panic!("server did not restart: {f:#?}"))
    }

    /// [`TestApp::restart_after_stop`], or how the new server exited instead.
    pub fn try_restart(&self) -> Result<TestApp, FailedStart> {
        assert!(self.child.is_none(), "the server is still running");
        TestApp::start(Arc::clone(&self.dir), self.options.clone())
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
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
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
