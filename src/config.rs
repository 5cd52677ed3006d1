//! Command-line flags, each with an environment twin (docs §1).

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use ipnet::IpNet;
use log::LevelFilter;

use crate::logging::LogFormat;
use crate::store::journal::Durability;
use crate::store::Compaction;

/// How the server runs. Flags win over their environment variables.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "taskd",
    version,
    about = "Self-hosted task-management API server (Task Management Service Interface v1)",
    after_help = "Environment only (tokens: 32 to 256 printable ASCII characters, no spaces):\n  \
                  TASKD_DEFAULT_TOKEN  token of the 'default' user created on first start\n  \
                  TASKD_ADMIN_TOKEN    admin token (else <data-dir>/admin.token, made on first start)"
)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, env = "TASKD_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,

    /// Data directory (created if missing); also the one the subcommands work on.
    #[arg(long, env = "TASKD_DATA_DIR", default_value = "data", global = true)]
    pub data_dir: PathBuf,

    /// How often changed spaces are checked for a snapshot, in milliseconds.
    #[arg(long, env = "TASKD_SNAPSHOT_INTERVAL_MS", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub snapshot_interval_ms: u64,

    /// A space's snapshot (or the users or keys file) is rewritten once the journal bytes
    /// written for it since the last one reach this percent of its size...
    #[arg(long, env = "TASKD_SNAPSHOT_GROWTH_PERCENT", default_value_t = 25)]
    pub snapshot_growth_percent: u64,

    /// ...and at least this many bytes.
    #[arg(long, env = "TASKD_SNAPSHOT_MIN_GROWTH_BYTES", default_value_t = 64 << 10)]
    pub snapshot_min_growth_bytes: u64,

    /// When a write is answered: fsync (after its journal entry is on disk), write (after
    /// it is handed to the OS) or snapshot (at once; periodic snapshots only).
    #[arg(long, env = "TASKD_DURABILITY", value_enum, default_value = "fsync")]
    pub durability: Durability,

    /// How long a request body may take to arrive after its headers, in milliseconds;
    /// a slower one gets 408 and its connection is closed.
    #[arg(long, env = "TASKD_BODY_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_ms: u64,

    /// Days each space's activity entries are kept (docs §23).
    #[arg(long, env = "TASKD_ACTIVITY_DAYS", default_value_t = 90)]
    pub activity_days: u32,

    /// Activity entries kept per space at most, the oldest dropped first (docs §23).
    #[arg(long, env = "TASKD_ACTIVITY_MAX", default_value_t = 1_000_000)]
    pub activity_max: u64,

    /// Requests a second each token's budget refills with (docs §25); 0 (the default)
    /// turns budgets off, for load tests and single users.
    #[arg(long, env = "TASKD_TOKEN_RATE", default_value_t = 0)]
    pub token_rate: u32,

    /// How many requests a token's budget holds when full (docs §25); 0 (the default) is
    /// `--token-rate`. Only with `--token-rate`.
    #[arg(long, env = "TASKD_TOKEN_BURST", default_value_t = 0)]
    pub token_burst: u32,

    /// How long a request waits for the journal's storage (a write or sync that does not
    /// return) before it is answered 503 storage_unavailable, in milliseconds.
    #[arg(long, env = "TASKD_STORAGE_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub storage_timeout_ms: u64,

    /// HTTP worker threads, and as many threads for space actors [default: CPU count].
    #[arg(long, env = "TASKD_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    pub workers: Option<u16>,

    /// Serve `GET /metrics` on this address instead of the API's.
    #[arg(long, env = "TASKD_METRICS_BIND")]
    pub metrics_bind: Option<String>,

    /// Proxies whose X-Forwarded-For is believed: address blocks such as 127.0.0.1/32 or
    /// 10.0.0.0/8,fd00::/8 (a bare address is a block of one). From a peer in one of them,
    /// the client address (for the failed-authentication lockout and the log) is the
    /// right-most X-Forwarded-For address that is not itself trusted [default: none, the
    /// peer is the client].
    #[arg(long, env = "TASKD_TRUSTED_PROXY", value_name = "CIDR[,CIDR...]",
          value_delimiter = ',', value_parser = address_block)]
    pub trusted_proxy: Vec<IpNet>,

    /// Let webhooks (docs §19) reach loopback, private, link-local and unspecified
    /// addresses, refused otherwise at creation and at every delivery.
    #[arg(long, env = "TASKD_WEBHOOK_ALLOW_PRIVATE",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub webhook_allow_private: bool,

    /// For tests only: divide the webhook retry schedule's delays (5 s to 24 h) by this.
    #[arg(long, env = "TASKD_WEBHOOK_RETRY_DIVISOR", hide = true, default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub webhook_retry_divisor: u32,

    /// Answer task listings without the query indexes of docs §17 (every filter,
    /// search and order scans or walks the listing order): for measuring what the indexes
    /// gain, not for serving.
    #[arg(long, env = "TASKD_SCAN_QUERIES", hide = true)]
    pub scan_queries: bool,

    /// Replicate the journal to the NATS JetStream servers at these URLs and answer only
    /// while holding the cluster's lease (§16) [default: no replication].
    #[arg(
        long,
        env = "TASKD_NATS",
        value_name = "URL[,URL...]",
        value_delimiter = ','
    )]
    pub nats: Vec<String>,

    /// This node's name in logs, leases and /healthz [default: the host name].
    #[arg(long, env = "TASKD_NODE")]
    pub node: Option<String>,

    /// The cluster's name: the stream is taskd_<cluster>, the lease key <cluster>.
    #[arg(long, env = "TASKD_CLUSTER", default_value = "taskd")]
    pub cluster: String,

    /// With --nats: the primary trims stream messages older than this many seconds, but
    /// never one a node still needs [default: 7 days].
    #[arg(long, env = "TASKD_STREAM_MAX_AGE", default_value_t = 7 * 24 * 3600,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub stream_max_age: u64,

    /// With --nats: the primary trims the oldest stream messages while the stream holds
    /// more than this many bytes, but never one a node still needs [default: 1 GiB].
    #[arg(long, env = "TASKD_STREAM_MAX_BYTES", default_value_t = 1 << 30)]
    pub stream_max_bytes: u64,

    /// Log level: off, error, warn, info, debug or trace.
    #[arg(long, env = "TASKD_LOG", default_value = "info")]
    pub log_level: LevelFilter,

    /// Log line layout: text, or json (one object a line: ts, level, target, msg).
    #[arg(long, env = "TASKD_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Token of the `default` user created on first start (`TASKD_DEFAULT_TOKEN`).
    #[arg(skip)]
    pub default_token: Option<String>,

    /// The admin token (`TASKD_ADMIN_TOKEN`).
    #[arg(skip)]
    pub admin_token: Option<String>,

    /// A tool to run instead of the server.
    #[command(subcommand)]
    pub tool: Option<Tool>,
}

/// The subcommands: tools run on a data directory (`--data-dir`) instead of serving.
#[derive(Debug, Clone, Subcommand)]
pub enum Tool {
    /// Copy the data directory into a new one, consistently, while a server may be running
    /// on it (it takes no lock and changes nothing there).
    Backup {
        /// The directory to copy into; it must not exist, or be empty.
        #[arg(long)]
        to: PathBuf,
    },
    /// Write records as NDJSON, one `{"kind","spaceId","record"}` a line, as the API renders
    /// them, deleted ones included; works while a server is running.
    Export {
        /// Only this user's spaces (a user name or id) [default: every space].
        #[arg(long)]
        user: Option<String>,
        /// Write to this file [default: stdout].
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// Load an export into an existing space, all or nothing; the server must be stopped.
    /// Records keep their ids and fields; timestamps and versions are the import's.
    Import {
        /// The space to load into (the lines' spaceId is ignored).
        #[arg(long)]
        space: String,
        /// The NDJSON file an export wrote.
        file: PathBuf,
    },
    /// Load-test a running taskd (any URL; no data directory needed) and print throughput
    /// and latency percentiles per operation. Exit status: 0 when every answer was right,
    /// 1 when the run could not start, 2 when some answers were errors.
    Bench(Box<taskd_bench::Options>),
    /// GET a health URL and exit 0 on 200, else 1 (for container health checks).
    Healthcheck {
        /// The URL to check.
        #[arg(long, default_value = "http://127.0.0.1:8080/healthz")]
        url: String,
    },
}

/// The shortest and longest token accepted from the environment.
const TOKEN_CHARS: std::ops::RangeInclusive<usize> = 32..=256;

impl Config {
    /// How long and how much activity each space keeps (docs §23).
    pub fn activity_retention(&self) -> crate::store::activity::Retention {
        crate::store::activity::Retention {
            days: self.activity_days,
            max: self.activity_max,
        }
    }

    /// What `--nats`, `--node` and `--cluster` ask for; `None` without `--nats`.
    pub fn replication(&self) -> Option<crate::replication::Options> {
        if self.nats.is_empty() {
            return None;
        }
        let node = self.node.clone().unwrap_or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map(|name| name.trim().to_string())
                .unwrap_or_else(|_| "taskd".into())
        });
        Some(crate::replication::Options {
            urls: self.nats.clone(),
            node,
            cluster: self.cluster.clone(),
            max_age: std::time::Duration::from_secs(self.stream_max_age),
            max_bytes: self.stream_max_bytes,
        })
    }

    /// When snapshots compact the journal, from the snapshot flags.
    pub fn compaction(&self) -> Compaction {
        Compaction {
            interval: std::time::Duration::from_millis(self.snapshot_interval_ms),
            percent: self.snapshot_growth_percent,
            min_bytes: self.snapshot_min_growth_bytes,
        }
    }

    /// Reads the flags and the environment; exits with usage on bad flags or `--help`.
    /// A token variable that breaks the rules (docs §9) is an error that names the
    /// variable and never its value.
    pub fn load() -> Result<Config, String> {
        let mut config = Config::parse();
        config.default_token = token_from_env("TASKD_DEFAULT_TOKEN")?;
        config.admin_token = token_from_env("TASKD_ADMIN_TOKEN")?;
        Ok(config)
    }

    /// The number of HTTP workers (and space-actor threads).
    pub fn worker_count(&self) -> usize {
        self.workers
            .map(usize::from)
            .unwrap_or_else(crate::threads::cores)
    }
}

/// One `--trusted-proxy` block: `ADDRESS/PREFIX`, or a bare address for a block of one.
fn address_block(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| {
            "expected an address block such as 127.0.0.1/32, 10.0.0.0/8 or fd00::/8 \
             (an IPv4 prefix is at most 32, an IPv6 prefix at most 128)"
                .to_string()
        })
}

/// The token in environment variable `name`, if it is set: 32 to 256 printable ASCII
/// characters without spaces.
fn token_from_env(name: &str) -> Result<Option<String>, String> {
    let Some(value) = std::env::var_os(name) else {
        return Ok(None);
    };
    match value.into_string() {
        Ok(token) if is_valid_token(&token) => Ok(Some(token)),
        _ => Err(format!(
            "{name} must be {} to {} printable ASCII characters without spaces; \
             refusing to start (the value is not shown)",
            TOKEN_CHARS.start(),
            TOKEN_CHARS.end()
        )),
    }
}

/// Whether `token` may come from the environment.
fn is_valid_token(token: &str) -> bool {
    TOKEN_CHARS.contains(&token.len()) && token.bytes().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_tokens_are_32_to_256_printable_characters_without_spaces() {
        assert!(is_valid_token(&"a".repeat(32)));
        assert!(is_valid_token(&"~".repeat(256)));
        assert!(!is_valid_token(&"a".repeat(31)));
        assert!(!is_valid_token(&"a".repeat(257)));
        assert!(!is_valid_token(&format!("{} b", "a".repeat(40))));
        assert!(!is_valid_token(&format!("{}\n", "a".repeat(40))));
        assert!(!is_valid_token(&format!("{}é", "a".repeat(40))));
        assert!(!is_valid_token(""));
    }

    #[test]
    fn trusted_proxies_are_a_comma_separated_list_of_address_blocks() {
        let config = Config::try_parse_from([
            "taskd",
            "--trusted-proxy",
            "127.0.0.1/32, 10.0.0.0/8,fd00::/8",
            "--trusted-proxy",
            "192.0.2.1",
        ])
        .unwrap();
        let blocks: Vec<String> = config.trusted_proxy.iter().map(|b| b.to_string()).collect();
        assert_eq!(
            blocks,
            ["127.0.0.1/32", "10.0.0.0/8", "fd00::/8", "192.0.2.1/32"]
        );
        assert_eq!(address_block("::1").unwrap().to_string(), "::1/128");
        for bad in [
            "10.0.0.0/33",
            "::/129",
            "10.0.0/8",
            "localhost",
            "",
            "10.0.0.0/",
        ] {
            assert!(address_block(bad).is_err(), "{bad:?} accepted");
        }
    }
}
