//! Building and running the application: load the data directory, start the actors, bind
//! the HTTP server, and on SIGINT/SIGTERM stop it gracefully and write final snapshots.

use std::collections::HashSet;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use actix::{Arbiter, SyncArbiter};
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::actors::{Directory, SnapshotActor};
use crate::config::Config;
use crate::model::user::new_token;
use crate::model::{Space, User, UsersSnapshot};
use crate::store::{Store, StoreError};

const DEFAULT_TOKEN_FILE: &str = "default.token";
const ADMIN_TOKEN_FILE: &str = "admin.token";
/// How long in-flight requests get to finish after a shutdown signal.
const SHUTDOWN_GRACE_SECS: u64 = 30;

/// Why the server could not start or stop cleanly.
#[derive(Debug)]
pub enum StartError {
    /// A data file could not be read, verified or written.
    Store(StoreError),
    /// The listen address could not be bound.
    Bind(String, std::io::Error),
    /// SIGINT and SIGTERM could not be watched.
    Signals(std::io::Error),
    /// The server failed while running.
    Serve(std::io::Error),
    /// Final snapshots of this many spaces could not be written.
    FinalSnapshot(usize),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::Store(e) => write!(f, "data file {e}"),
            StartError::Bind(addr, e) => write!(f, "cannot listen on {addr}: {e}"),
            StartError::Signals(e) => write!(f, "cannot watch SIGINT/SIGTERM: {e}"),
            StartError::Serve(e) => write!(f, "server failed: {e}"),
            StartError::FinalSnapshot(n) => write!(f, "final snapshot failed for {n} space(s)"),
        }
    }
}

impl From<StoreError> for StartError {
    fn from(e: StoreError) -> StartError {
        StartError::Store(e)
    }
}

/// A built server, bound and ready to run.
pub struct Application {
    server: Server,
    addr: SocketAddr,
    directory: web::Data<Directory>,
    arbiters: Vec<Arbiter>,
    signals: Signals,
}

impl Application {
    /// Loads (or on first start initialises) the data directory, starts the actors and
    /// binds the server. Must run inside an actix `System`.
    pub fn build(config: &Config) -> Result<Application, StartError> {
        let store = Store::open(&config.data_dir)?;
        let mut spaces = store.load_spaces()?;
        let users = match store.load_users()? {
            Some(users) => {
                check_every_space_has_a_file(&store, &users, &spaces)?;
                users
            }
            None if spaces.is_empty() => {
                let (users, space) = bootstrap(&store, config.default_token.as_deref())?;
                spaces.push(space);
                users
            }
            None => {
                return Err(StoreError {
                    path: store.users_path(),
                    reason: "missing, but the data directory holds spaces; refusing to start"
                        .into(),
                }
                .into())
            }
        };
        let admin_token = admin_token(&store, config.admin_token.as_deref())?;
        let signals = Signals::watch().map_err(StartError::Signals)?;
        log::info!(
            "loaded {} user(s) and {} space file(s) from {}",
            users.users.len(),
            spaces.len(),
            config.data_dir.display()
        );

        let workers = config.worker_count();
        let snapshot_store = store.clone();
        let snapshots = SyncArbiter::start(1, move || SnapshotActor::new(snapshot_store.clone()));
        let arbiters: Vec<Arbiter> = (0..workers).map(|_| Arbiter::new()).collect();
        let directory = web::Data::new(Directory::new(
            &admin_token,
            users,
            spaces,
            arbiters.iter().map(Arbiter::handle).collect(),
            snapshots,
            Duration::from_millis(config.snapshot_interval_ms),
        ));

        let app_directory = directory.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(app_directory.clone())
                .wrap(from_fn(crate::http::log_request))
                .configure(crate::http::configure)
        })
        .workers(workers)
        .disable_signals()
        .shutdown_timeout(SHUTDOWN_GRACE_SECS)
        .bind(&config.bind)
        .map_err(|e| StartError::Bind(config.bind.clone(), e))?;
        let addr = server.addrs().first().copied().ok_or_else(|| {
            StartError::Bind(
                config.bind.clone(),
                std::io::ErrorKind::AddrNotAvailable.into(),
            )
        })?;
        let server = server.run();
        log::info!("taskd listening on http://{addr} with {workers} worker(s)");
        Ok(Application {
            server,
            addr,
            directory,
            arbiters,
            signals,
        })
    }

    /// The address the server listens on (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until SIGINT or SIGTERM, then refuses new requests, lets in-flight ones
    /// finish, writes the final snapshot of every changed space and stops the actors.
    pub async fn run(self) -> Result<(), StartError> {
        let handle = self.server.handle();
        let directory = self.directory.clone();
        actix_web::rt::spawn(async move {
            self.signals.recv().await;
            log::info!("shutdown signal received; finishing in-flight requests");
            directory.begin_shutdown();
            handle.stop(true).await;
        });
        self.server.await.map_err(StartError::Serve)?;
        let failed = self.directory.flush_all().await;
        for arbiter in &self.arbiters {
            arbiter.stop();
        }
        if failed > 0 {
            return Err(StartError::FinalSnapshot(failed));
        }
        log::info!("final snapshot written; taskd stopped");
        Ok(())
    }
}

/// Every user's space has had a file since the user was created, so a missing one means
/// data was lost or moved: refuse to start rather than serve it as a new, empty space.
fn check_every_space_has_a_file(
    store: &Store,
    users: &UsersSnapshot,
    spaces: &[Space],
) -> Result<(), StoreError> {
    let loaded: HashSet<&str> = spaces.iter().map(Space::id).collect();
    for user in &users.users {
        if let Some(missing) = user.spaces.iter().find(|s| !loaded.contains(s.as_str())) {
            return Err(StoreError {
                path: store.space_path(missing),
                reason: format!(
                    "missing, but user '{}' owns this space; refusing to start",
                    user.name
                ),
            });
        }
    }
    Ok(())
}

/// First start on an empty data directory: user `default` with its (empty) space file, its
/// token in `default.token`. The log names the file, never the token.
fn bootstrap(store: &Store, token: Option<&str>) -> Result<(UsersSnapshot, Space), StoreError> {
    let token = token.map_or_else(new_token, str::to_string);
    let user = User::new("default", &token);
    let space = Space::new(&user.default_space);
    let users = UsersSnapshot { users: vec![user] };
    store.write_secret(DEFAULT_TOKEN_FILE, &token)?;
    store.save_space(&space.snapshot())?;
    store.save_users(&users)?;
    log::info!(
        "first start: created user 'default'; its token is in {}",
        store.path(DEFAULT_TOKEN_FILE).display()
    );
    Ok((users, space))
}

/// The admin token: from the environment, else `admin.token`, else a new one written there.
fn admin_token(store: &Store, from_env: Option<&str>) -> Result<String, StoreError> {
    if let Some(token) = from_env {
        return Ok(token.to_string());
    }
    if let Some(token) = store.read_secret(ADMIN_TOKEN_FILE)? {
        return Ok(token);
    }
    let token = new_token();
    store.write_secret(ADMIN_TOKEN_FILE, &token)?;
    log::info!(
        "admin token written to {}",
        store.path(ADMIN_TOKEN_FILE).display()
    );
    Ok(token)
}

/// SIGINT and SIGTERM, watched from the moment the application is built, so a signal that
/// arrives right after the listen line is logged still means a clean shutdown.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    fn watch() -> std::io::Result<Signals> {
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Resolves on the first SIGINT or SIGTERM.
    async fn recv(mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}
