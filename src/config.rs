//! Command-line flags, each with an environment twin (CONTRACT §1).

use std::path::PathBuf;

use clap::Parser;
use log::LevelFilter;

use crate::store::journal::Durability;

/// How the server runs. Flags win over their environment variables.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "taskd",
    version,
    about = "Self-hosted task-management API server (Task Management Service Interface v1)",
    after_help = "Environment only:\n  TASKD_DEFAULT_TOKEN  token of the 'default' user created on first start\n  \
                  TASKD_ADMIN_TOKEN    admin token (else <data-dir>/admin.token, made on first start)"
)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "TASKD_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,

    /// Data directory (created if missing).
    #[arg(long, env = "TASKD_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// How often changed spaces are written to disk, in milliseconds.
    #[arg(long, env = "TASKD_SNAPSHOT_INTERVAL_MS", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub snapshot_interval_ms: u64,

    /// When a write is answered: fsync (after its journal entry is on disk), write (after
    /// it is handed to the OS) or snapshot (at once; periodic snapshots only).
    #[arg(long, env = "TASKD_DURABILITY", value_enum, default_value = "fsync")]
    pub durability: Durability,

    /// HTTP worker threads, and as many threads for space actors [default: CPU count].
    #[arg(long, env = "TASKD_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    pub workers: Option<u16>,

    /// Log level: off, error, warn, info, debug or trace.
    #[arg(long, env = "TASKD_LOG", default_value = "info")]
    pub log_level: LevelFilter,

    /// Token of the `default` user created on first start (`TASKD_DEFAULT_TOKEN`).
    #[arg(skip)]
    pub default_token: Option<String>,

    /// The admin token (`TASKD_ADMIN_TOKEN`).
    #[arg(skip)]
    pub admin_token: Option<String>,
}

impl Config {
    /// Reads the flags and the environment; exits with usage on bad flags or `--help`.
    pub fn load() -> Config {
        let mut config = Config::parse();
        let secret = |name| {
            std::env::var(name)
                .ok()
                .filter(|v: &String| !v.trim().is_empty())
        };
        config.default_token = secret("TASKD_DEFAULT_TOKEN");
        config.admin_token = secret("TASKD_ADMIN_TOKEN");
        config
    }

    /// The number of HTTP workers (and space-actor threads).
    pub fn worker_count(&self) -> usize {
        self.workers
            .map(usize::from)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}
