//! Building and running the application: lock and recover the data directory, start the
//! journal and the actors, bind the HTTP server, and on SIGINT/SIGTERM stop it gracefully.

mod catch_up;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use actix::{Addr, Arbiter, SyncArbiter};
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use socket2::{Domain, Protocol, Socket, Type};
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::oneshot;

use self::catch_up::{catch_up, ListenQueues, Workers};

use crate::actors::reminders::Timer;
use crate::actors::snapshot::{answered, SaveSpace};
use crate::actors::{Directory, Keys, SnapshotActor, Spaces};
use crate::config::Config;
use crate::core::deliveries::{Deliveries, Settings as WebhookSettings};
use crate::core::{Actors, Core, Gate};
use crate::edge::{BodyTimeout, Budgets, Edge, Throttle, TrustedProxies};
use crate::http::stream::Streams;
use crate::model::user::new_token;
#[cfg(test)]
use crate::model::User;
use crate::model::{Account, Change, DirectoryState, Plan, RateLimit, Space};
use crate::replication::{self, NodeRole, ReplicationError, Replicator};
use crate::store::codec::Entry;
use crate::store::journal::{Durability, Journal, StorageError};
use crate::store::{Compaction, Lock, Pace, Recovered, Store, StoreError};

const DEFAULT_TOKEN_FILE: &str = "default.token";
const ADMIN_TOKEN_FILE: &str = "admin.token";
/// How long in-flight requests (body reads included) get after a shutdown signal (and the
/// catch-up that takes in what arrived before it: see [`catch_up`]).
const SHUTDOWN_GRACE_SECS: u64 = 10;
/// The listen backlog, as `HttpServer::bind` has it.
const LISTEN_BACKLOG: i32 = 1024;
/// How long final snapshots may take after that, when the journal holds every write
/// anyway; what is not written by then is replayed from the journal at the next start.
const FINAL_SNAPSHOT_BUDGET: Duration = Duration::from_secs(3);
/// How long the journal's final sync may take; a disk that does not answer by then is
/// stalled, and every write answered so far was stored before its answer anyway.
const FINAL_SYNC_BUDGET: Duration = Duration::from_secs(2);

/// Why the server could not start or stop cleanly.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The flags contradict each other.
    #[error("{0}")]
    Flags(String),
    /// A data file could not be read, verified or written.
    #[error("data file {0}")]
    Store(#[from] StoreError),
    /// The listen address could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(String, #[source] std::io::Error),
    /// SIGINT and SIGTERM could not be watched.
    #[error("cannot watch SIGINT/SIGTERM: {0}")]
    Signals(#[source] std::io::Error),
    /// The server failed while running.
    #[error("server failed: {0}")]
    Serve(#[source] std::io::Error),
    /// Final snapshots of this many spaces could not be written (in `snapshot` durability,
    /// where nothing else holds their writes).
    #[error("final snapshot failed for {0} space(s)")]
    FinalSnapshot(usize),
    /// The journal could not be synced at shutdown.
    #[error("final journal sync failed: {0}")]
    Journal(#[source] StorageError),
    /// Replication (`--nats`) could not start.
    #[error("replication: {0}")]
    Replication(#[from] ReplicationError),
}

/// How the server ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// By a signal: the process exits.
    Stopped,
    /// A node that was fenced (§16) and reaches the stream again: the process starts again
    /// on its data dir and comes back a standby; it keeps the address it listened on (a
    /// port 0 was resolved).
    Restart(SocketAddr),
}

/// A built server, bound and ready to run.
pub struct Application {
    server: Server,
    addr: SocketAddr,
    /// The server of `--metrics-bind`, if given.
    metrics: Option<Server>,
    state: State,
    arbiters: Vec<Arbiter>,
    /// The webhook sender's arbiter.
    sender: Arbiter,
    signals: Signals,
    /// The listening sockets' queues and the worker threads, for the shutdown's catch-up.
    queues: ListenQueues,
    workers: Workers,
    durability: Durability,
    /// With `--nats`: the stream and the lease.
    replicator: Option<Replicator>,
    _lock: Lock,
}

/// What start-up builds of the settings beside the data directory.
#[derive(Debug, Clone)]
struct Settings {
    /// How long a request body may take (`--body-timeout-ms`).
    body_timeout: BodyTimeout,
    /// Each token's budget (`--token-rate`, `--token-burst`), if on.
    token_budget: Option<RateLimit>,
    /// With `--nats`, this node's role.
    role: Option<Arc<NodeRole>>,
    /// The proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`).
    trusted: TrustedProxies,
    /// How task listings find their records (`--scan-queries`).
    plan: Plan,
    /// How the webhook sender behaves.
    webhooks: WebhookSettings,
}

impl Settings {
    /// The settings `config` gives, with `role` the node's role under `--nats`.
    fn of(config: &Config, role: Option<Arc<NodeRole>>) -> Result<Settings, StartError> {
        let token_budget = RateLimit::of_flags(config.token_rate, config.token_burst)
            .map_err(StartError::Flags)?;
        Ok(Settings {
            body_timeout: BodyTimeout(Duration::from_millis(config.body_timeout_ms)),
            token_budget,
            role,
            trusted: TrustedProxies::new(config.trusted_proxy.clone()),
            plan: match config.scan_queries {
                true => Plan::Scan,
                false => Plan::Indexes,
            },
            webhooks: WebhookSettings {
                allow_private: config.webhook_allow_private,
                retry_divisor: config.webhook_retry_divisor,
            },
        })
    }
}

impl Default for Settings {
    /// As `taskd` serves without flags.
    fn default() -> Settings {
        Settings {
            body_timeout: BodyTimeout::default(),
            token_budget: None,
            role: None,
            trusted: TrustedProxies::default(),
            plan: Plan::Indexes,
            webhooks: WebhookSettings::default(),
        }
    }
}

/// What the fronts and the shutdown sequence share: the core, the edge and the JSON
/// front's streams (each registered as app data of its own), and the handles the
/// shutdown saves and closes.
#[derive(Clone)]
pub struct State {
    core: web::Data<Core>,
    edge: web::Data<Edge>,
    streams: web::Data<Streams>,
    directory: web::Data<Directory>,
    spaces: web::Data<Spaces>,
    keys: web::Data<Keys>,
    deliveries: web::Data<Deliveries>,
    journal: Journal,
    snapshots: Addr<SnapshotActor>,
}

impl State {
    /// Starts the snapshot actor, the registry over `recovered` and the reminder timer;
    /// the actors run on `arbiters`. With `--nats`, the role of `settings` says whether
    /// this node is the primary: `/api/v1` is answered and reminders fire only while it
    /// is. Must run inside an actix `System`.
    fn start(
        store: &Store,
        recovered: Recovered,
        journal: Journal,
        admin_token: &str,
        arbiters: Vec<actix::ArbiterHandle>,
        compaction: Compaction,
        settings: Settings,
    ) -> State {
        let role = settings.role;
        let snapshot_store = store.clone();
        let snapshot_journal = journal.clone();
        let snapshots = SyncArbiter::start(1, move || {
            SnapshotActor::new(snapshot_store.clone(), snapshot_journal.clone())
        });
        let Recovered {
            directory,
            directory_saved,
            spaces,
            covered,
            keys,
            ..
        } = recovered;
        let owned = owned_spaces(&directory, spaces);
        // A space that got writes from the journal is snapshotted now, so the segments
        // holding them can go even if the space is never used again.
        for space in owned.iter().filter(|s| !covered.holds(s.id(), s.version())) {
            let save = snapshots.send(SaveSpace {
                view: space.view(),
                last: false,
            });
            actix_web::rt::spawn(async move {
                if let Err(e) = answered(save.await) {
                    log::error!("snapshot after recovery failed: {e}");
                }
            });
        }
        let (timer, wheel) = Timer::new();
        let spaces = web::Data::new(Spaces::new(
            owned,
            arbiters,
            journal.clone(),
            snapshots.clone(),
            store.clone(),
            compaction,
            timer,
        ));
        actix_web::rt::spawn(wheel.run(spaces.clone().into_inner(), role.clone()));
        let directory = web::Data::new(Directory::new(
            admin_token,
            directory,
            directory_saved,
            journal.clone(),
            Pace::new(compaction, Store::file_len(&store.users_path())),
        ));
        let keys = web::Data::new(Keys::new(
            keys,
            chrono::Utc::now().timestamp_millis(),
            Pace::new(compaction, Store::file_len(&store.keys_path())),
        ));
        let deliveries = web::Data::new(Deliveries::new(settings.webhooks));
        let gate = web::Data::new(role.map_or_else(Gate::default, Gate::replicated));
        let actors = Actors {
            directory: directory.clone(),
            spaces: spaces.clone(),
            keys: keys.clone(),
        };
        let core = Core::new(
            actors,
            deliveries.clone(),
            gate.clone(),
            journal.clone(),
            store.dir().to_path_buf(),
            settings.plan,
            Arc::clone(store.activity()),
        );
        let edge = Edge {
            gate,
            throttle: web::Data::new(Throttle::default()),
            budgets: web::Data::new(Budgets::new(settings.token_budget)),
            trusted_proxies: web::Data::new(settings.trusted),
            body_timeout: settings.body_timeout,
            speaker: crate::http::SPEAKER,
        };
        State {
            core: web::Data::new(core),
            edge: web::Data::new(edge),
            streams: web::Data::new(Streams::default()),
            directory,
            spaces,
            keys,
            deliveries,
            journal,
            snapshots,
        }
    }

    /// Registers the shared state and every front, side by side, in hot-path order: the
    /// JSON API (its records' routes first), CalDAV, the docs, then the `404` of a path
    /// none of them has. The edge ([`crate::edge::front`]) wraps them all.
    pub fn configure(&self, cfg: &mut web::ServiceConfig) {
        cfg.app_data(self.core.clone())
            .app_data(self.edge.clone())
            .app_data(self.streams.clone())
            .configure(crate::http::configure)
            .configure(crate::dav::configure)
            .configure(crate::http::configure_docs)
            .configure(crate::http::configure_page)
            .configure(crate::http::configure_fallback);
    }

    /// The registry of spaces.
    pub fn spaces(&self) -> &Spaces {
        &self.spaces
    }

    /// Saves the directory and the kept answers every `interval`, from now on.
    fn save_every(&self, interval: Duration) {
        let saver = self.clone();
        actix_web::rt::spawn(async move {
            let mut tick = actix_web::rt::time::interval(interval);
            loop {
                tick.tick().await;
                saver.directory.save(&saver.snapshots, false).await;
                saver.keys.save(&saver.snapshots, false).await;
            }
        });
    }

    /// Refuses every request from now on.
    pub fn close_gate(&self) {
        self.core.gate().close();
    }

    /// How a standby applies what it follows to the actors (§16): on this thread's
    /// arbiter, one stream message at a time.
    fn follower(&self) -> replication::Apply {
        let state = self.clone();
        let arbiter = Arbiter::current();
        Box::new(move |entries| {
            let (done, applied) = oneshot::channel();
            let state = state.clone();
            arbiter.spawn(async move {
                let _ = done.send(
                    crate::actors::replay(&state.spaces, &state.directory, &state.keys, entries)
                        .await,
                );
            });
            applied
        })
    }
}

impl Application {
    /// Locks and recovers (or on first start initialises) the data directory, starts the
    /// journal and the actors, and binds the server. Must run inside an actix `System`.
    pub fn build(config: &Config) -> Result<Application, StartError> {
        let store = Store::open(&config.data_dir)?.with_retention(config.activity_retention());
        let lock = store.lock()?;
        let replicator = match config.replication() {
            Some(options) => Some(replicate(&store, &options, config.durability)?),
            None => None,
        };
        let mut recovered = store.recover()?;
        // With `--nats` the first user goes through the journal, into the stream, once this
        // node leads an empty stream; a node that finds the stream begun gets it from there.
        let first_start = recovered.directory.user_count() == 0;
        if first_start && replicator.is_none() {
            bootstrap(&store, config.default_token.as_deref(), &mut recovered)?;
        }
        // Deleted spaces whose files a crash left behind (the deletion itself is durable).
        for id in recovered.directory.deleted() {
            store.remove_space(id)?;
        }
        let admin_token = admin_token(&store, config.admin_token.as_deref())?;
        let signals = Signals::watch().map_err(StartError::Signals)?;
        log::info!(
            "recovered {} user(s) and {} space(s) from {} ({} journal segment(s))",
            recovered.directory.user_count(),
            recovered.spaces.len(),
            config.data_dir.display(),
            recovered.segments.len()
        );
        let journal = Journal::start(
            &store.journal_dir(),
            config.durability,
            std::mem::take(&mut recovered.segments),
            recovered.covered.clone(),
            Duration::from_millis(config.storage_timeout_ms),
            replicator
                .clone()
                .map(|r| Box::new(r) as Box<dyn crate::store::mirror::Mirror>),
        )?;
        if let Some(replicator) = &replicator {
            replicator.contend();
            if first_start && replicator.origin() {
                replicator.wait_primary(Duration::from_secs(10))?;
                bootstrap_journaled(
                    &store,
                    config.default_token.as_deref(),
                    &journal,
                    &mut recovered,
                )?;
            }
        }

        let workers = config.worker_count();
        let arbiters: Vec<Arbiter> = (0..workers).map(|_| Arbiter::new()).collect();
        let compaction = config.compaction();
        let interval = compaction.interval;
        let settings = Settings::of(config, replicator.as_ref().map(|r| Arc::clone(r.role())))?;
        let state = State::start(
            &store,
            recovered,
            journal,
            &admin_token,
            arbiters.iter().map(Arbiter::handle).collect(),
            compaction,
            settings,
        );
        if let Some(replicator) = &replicator {
            replicator.follow_into(state.journal.clone(), state.follower());
        }
        let sender = crate::webhooks::start(
            state.core.clone().into_inner(),
            replicator.as_ref().map(|r| Arc::clone(r.role())),
        );
        state.save_every(interval);

        let metrics = config
            .metrics_bind
            .as_deref()
            .map(metrics_server)
            .transpose()?;
        let http = serve(config, &state, workers)?;
        log::info!(
            "taskd listening on http://{} with {workers} worker(s), durability {}",
            http.addr,
            config.durability
        );
        Ok(Application {
            server: http.server,
            addr: http.addr,
            metrics,
            state,
            arbiters,
            sender,
            signals,
            queues: http.queues,
            workers: http.workers,
            durability: config.durability,
            replicator,
            _lock: lock,
        })
    }

    /// The address the server listens on (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until SIGINT or SIGTERM, then takes in the requests that arrived before the
    /// signal, refuses new ones, gives in-flight ones up to 10 s, writes final snapshots
    /// (within a budget, unless nothing else holds the writes), syncs the journal and
    /// deletes the segments the snapshots cover.
    pub async fn run(self) -> Result<Exit, StartError> {
        let handle = self.server.handle();
        let state = self.state.clone();
        let (queues, workers) = (self.queues, self.workers);
        let replicator = self.replicator.clone();
        let (restarting, restart) = oneshot::channel();
        actix_web::rt::spawn(async move {
            let takeover = async {
                match &replicator {
                    Some(replicator) => replicator.restart_wanted().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = self.signals.recv() => {
                    log::info!("shutdown signal received; finishing in-flight requests");
                }
                _ = takeover => {
                    log::info!("restarting to come back as a standby");
                    let _ = restarting.send(());
                }
            }
            // Closing the gate and stopping at once would lose the requests sent before the
            // signal that are still queued, being handed to a worker or unread in their
            // socket: those are taken in first, and are in flight from then on.
            let took = catch_up(queues, &workers).await;
            log::info!("caught up with the requests sent before the signal in {took:?}");
            state.close_gate();
            handle.stop(true).await;
        });
        let metrics = self.metrics.map(|server| {
            let handle = server.handle();
            actix_web::rt::spawn(server);
            handle
        });
        self.server.await.map_err(StartError::Serve)?;
        if let Some(metrics) = metrics {
            metrics.stop(false).await;
        }
        if let Some(replicator) = &self.replicator {
            // Every answered write is in the stream: a standby may take over now, while
            // this node writes its final snapshots.
            let (done, flushed) = oneshot::channel();
            self.state.journal.flush(Box::new(move |r| {
                let _ = done.send(r);
            }));
            if let Ok(Ok(Ok(()))) = tokio::time::timeout(FINAL_SYNC_BUDGET, flushed).await {
                replicator.release().await;
            }
        }

        let state = &self.state;
        let failed = if self.durability.journals_writes() {
            match tokio::time::timeout(FINAL_SNAPSHOT_BUDGET, state.spaces.flush_all()).await {
                Ok(failed) => failed,
                Err(_) => {
                    log::warn!(
                        "final snapshots did not finish in time; the journal holds the rest"
                    );
                    0
                }
            }
        } else {
            state.spaces.flush_all().await
        };
        self.sender.stop();
        state.deliveries.flush(&state.directory).await;
        state.directory.save(&state.snapshots, true).await;
        state.keys.save(&state.snapshots, true).await;
        let (done, closed) = oneshot::channel();
        state.journal.close(Box::new(move |r| {
            let _ = done.send(r);
        }));
        let journal = match tokio::time::timeout(FINAL_SYNC_BUDGET, closed).await {
            Ok(closed) => closed.unwrap_or(Err(StorageError::Closed)),
            Err(_) => Err(StorageError::Io(
                "the storage did not answer in time".into(),
            )),
        };
        for arbiter in &self.arbiters {
            arbiter.stop();
        }
        journal.map_err(StartError::Journal)?;
        if failed > 0 && !self.durability.journals_writes() {
            return Err(StartError::FinalSnapshot(failed));
        }
        log::info!("journal synced; taskd stopped");
        Ok(match restart.await {
            Ok(()) => Exit::Restart(self.addr),
            Err(_) => Exit::Stopped,
        })
    }
}

/// The spaces of the directory's users, as recovered (a new one where none was); a
/// recovered space no user has is logged and not served.
fn owned_spaces(
    directory: &DirectoryState,
    mut spaces: std::collections::HashMap<Box<str>, Space>,
) -> Vec<Space> {
    let owned = directory
        .spaces()
        .map(|info| {
            spaces
                .remove(&info.id)
                .unwrap_or_else(|| Space::new(&info.id))
        })
        .collect();
    for id in spaces.keys() {
        log::warn!("space {id} belongs to no user; not served");
    }
    owned
}

/// The HTTP server of the API's address, running, with what the shutdown's catch-up
/// watches.
struct Http {
    server: Server,
    addr: SocketAddr,
    queues: ListenQueues,
    workers: Workers,
}

/// Binds the API's address (`--bind`) and runs its server with `workers` workers: every
/// front of `state` wrapped in the edge, and `/metrics` behind the admin token unless
/// `--metrics-bind` serves it elsewhere.
fn serve(config: &Config, state: &State, workers: usize) -> Result<Http, StartError> {
    let app_state = state.clone();
    let metrics_here = config.metrics_bind.is_none();
    let worker_threads = Workers::default();
    let registry = worker_threads.clone();
    let bind_error = |e| StartError::Bind(config.bind.clone(), e);
    let listeners = listen(&config.bind).map_err(bind_error)?;
    let queues = ListenQueues::watch(&listeners).map_err(bind_error)?;
    let mut server = HttpServer::new(move || {
        // Runs once on every worker thread.
        registry.register_current();
        App::new()
            .wrap(from_fn(crate::edge::front))
            .configure(|cfg| {
                if metrics_here {
                    crate::http::configure_metrics(cfg);
                }
                app_state.configure(cfg)
            })
    })
    .workers(workers)
    // No Nagle on accepted connections: with it, a small write (a change-stream event,
    // the tail of an answer) waits until the client has ACKed the previous segment, and
    // clients delay their ACKs (from 40 ms on Linux to 200 ms on Windows), so stream
    // events would reach a client a delayed ACK at a time. taskd hands the socket whole answers
    // and whole events, so there is little for Nagle to merge anyway.
    .tcp_nodelay(true)
    .max_connections(connections_per_worker(workers))
    .disable_signals()
    .shutdown_timeout(SHUTDOWN_GRACE_SECS)
    .client_disconnect_timeout(Duration::from_secs(1));
    for listener in listeners {
        server = server.listen(listener).map_err(bind_error)?;
    }
    let addr = server.addrs().first().copied().ok_or_else(|| {
        StartError::Bind(
            config.bind.clone(),
            std::io::ErrorKind::AddrNotAvailable.into(),
        )
    })?;
    if !config.trusted_proxy.is_empty() {
        let blocks: Vec<String> = config.trusted_proxy.iter().map(|b| b.to_string()).collect();
        log::info!(
            "client addresses taken from X-Forwarded-For of peers in {}",
            blocks.join(", ")
        );
    }
    Ok(Http {
        server: server.run(),
        addr,
        queues,
        workers: worker_threads,
    })
}

/// Listening sockets for every address `bind` resolves to, made the way `HttpServer::bind`
/// makes them (`SO_REUSEADDR`, a backlog of 1024), but kept here so the shutdown can see
/// their queues. An error only when none could be made.
fn listen(bind: &str) -> std::io::Result<Vec<TcpListener>> {
    let mut listeners = Vec::new();
    let mut error = None;
    for addr in bind.to_socket_addrs()? {
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))
            .and_then(|socket| {
                socket.set_reuse_address(true)?;
                socket.bind(&addr.into())?;
                socket.listen(LISTEN_BACKLOG)?;
                Ok(socket)
            });
        match socket {
            Ok(socket) => listeners.push(TcpListener::from(socket)),
            Err(e) => error = Some(e),
        }
    }
    match (listeners.is_empty(), error) {
        (true, Some(e)) => Err(e),
        (true, None) => Err(std::io::Error::other("the address resolves to nothing")),
        (false, _) => Ok(listeners),
    }
}

/// The server of `--metrics-bind ADDR`: `GET /metrics` alone, on one worker, without a
/// token (on the API's address it takes the admin token).
fn metrics_server(bind: &str) -> Result<Server, StartError> {
    let server = HttpServer::new(|| App::new().configure(crate::http::configure_open_metrics))
        .workers(1)
        // As the API's server (see `Application::build`): the last part of a scrape longer
        // than a segment would otherwise wait for the scraper's delayed ACK.
        .tcp_nodelay(true)
        .disable_signals()
        .bind(bind)
        .map_err(|e| StartError::Bind(bind.to_string(), e))?;
    for addr in server.addrs() {
        log::info!("metrics on http://{addr}/metrics");
    }
    Ok(server.run())
}

/// Raises the open-file limit to the hard limit, and returns how many connections each
/// of `workers` may hold so that every connection together stays below it: the rest is
/// kept for the journal, snapshots and accepting (docs §9).
fn connections_per_worker(workers: usize) -> usize {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            log::warn!("cannot raise the open-file limit: {e}");
            rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(1024, |(soft, _)| soft)
        }
    };
    let reserve = (limit / 10).clamp(64, 1024);
    let connections = limit.saturating_sub(reserve).max(workers as u64);
    log::info!("open-file limit {limit}; at most {connections} connections");
    (connections / workers as u64).max(1) as usize
}

/// With `--nats`: connects to the stream and brings the data dir to it before recovery
/// (see [`Replicator::catch_up`]). `snapshot` durability is refused: its writes never
/// reach the journal, so the stream would not hold them.
fn replicate(
    store: &Store,
    options: &replication::Options,
    durability: Durability,
) -> Result<Replicator, StartError> {
    if !durability.journals_writes() {
        return Err(ReplicationError::Durability.into());
    }
    let replicator = Replicator::start(options, store.dir())?;
    replicator.catch_up(&store.journal_dir())?;
    log::info!(
        "node {} follows stream taskd_{} at sequence {}",
        options.node,
        options.cluster,
        replicator.role().sequences().0
    );
    Ok(replicator)
}

/// First start on an empty data directory: user `default` with its (empty) space file, its
/// token in `default.token`. The log names the file, never the token.
fn bootstrap(
    store: &Store,
    token: Option<&str>,
    recovered: &mut Recovered,
) -> Result<(), StoreError> {
    let token = token.map_or_else(new_token, str::to_string);
    let account = Account::new("default", &token, chrono::Utc::now().timestamp_millis());
    let space = Space::new(&account.default_space);
    let mut directory = DirectoryState::default();
    directory.apply(&Change::UserCreated(account));
    store.write_secret(DEFAULT_TOKEN_FILE, &token)?;
    store.save_space(&space.view())?;
    store.save_directory(&directory.snapshot())?;
    log::info!(
        "first start: created user 'default'; its token is in {}",
        store.path(DEFAULT_TOKEN_FILE).display()
    );
    recovered.directory_saved = directory.applied();
    recovered.covered.directory(directory.applied());
    recovered.covered.space(space.id(), 0, 0);
    recovered.spaces.insert(space.id().into(), space);
    recovered.directory = directory;
    Ok(())
}

/// [`bootstrap`] with `--nats`: the `default` user is a journaled change (in the stream,
/// so every node built from it has the user), made once this node leads the empty stream.
fn bootstrap_journaled(
    store: &Store,
    token: Option<&str>,
    journal: &Journal,
    recovered: &mut Recovered,
) -> Result<(), StartError> {
    let token = token.map_or_else(new_token, str::to_string);
    let account = Account::new("default", &token, chrono::Utc::now().timestamp_millis());
    let space = Space::new(&account.default_space);
    let change = Change::UserCreated(account);
    let entry = Entry::Directory {
        seq: recovered.directory.applied(),
        change: change.clone(),
        key: None,
    };
    let (done, stored) = std::sync::mpsc::channel();
    journal.append(
        &entry,
        true,
        Box::new(move |result| {
            let _ = done.send(result);
        }),
    );
    stored
        .recv()
        .unwrap_or(Err(StorageError::Closed))
        .map_err(StartError::Journal)?;
    store.write_secret(DEFAULT_TOKEN_FILE, &token)?;
    log::info!(
        "first start: created user 'default' in the stream; its token is in {}",
        store.path(DEFAULT_TOKEN_FILE).display()
    );
    recovered.directory.apply(&change);
    recovered.spaces.insert(space.id().into(), space);
    Ok(())
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

/// The state of a server for in-process tests: a data directory in `dir` with `users`,
/// `fsync` durability, admin token `admin-token`, every space actor on the current thread.
/// Must run inside an actix system.
#[cfg(test)]
pub(crate) fn test_state(dir: &std::path::Path, users: Vec<User>) -> State {
    let store = Store::open(dir).unwrap();
    let mut recovered = store.recover().unwrap();
    for user in users {
        let account = Account::from_legacy(user, 0);
        recovered.directory.apply(&Change::UserCreated(account));
    }
    let journal = Journal::start(
        &store.journal_dir(),
        Durability::Fsync,
        std::mem::take(&mut recovered.segments),
        recovered.covered.clone(),
        Duration::from_secs(10),
        None,
    )
    .unwrap();
    State::start(
        &store,
        recovered,
        journal,
        "admin-token",
        vec![Arbiter::current()],
        Compaction {
            interval: Duration::from_millis(10),
            percent: 50,
            min_bytes: 0,
        },
        Settings::default(),
    )
}
