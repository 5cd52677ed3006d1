//! `taskd bench`: a load generator for any running taskd, in a crate of its own (the
//! server's `taskd bench` subcommand runs [`run`]); it needs no data directory and nothing
//! of the server but its HTTP API.
//!
//! # Layout
//! - this file: the flags, the setup before a run (health, users, versions, prefill) and
//!   the run from start to table;
//! - [`workload`]: operations, named workloads and mixes, requests and answer checks;
//! - [`client`]: the keep-alive HTTP/1.1 connection;
//! - [`driver`]: the connections' loops (closed and open loop), change streams, progress;
//! - [`report`]: the result as JSON, the table and the comparison with an older result;
//! - [`plot`]: the percentile curves as an SVG picture (`--report`).

pub mod client;
pub mod driver;
pub mod plot;
pub mod report;
pub mod workload;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgGroup, Args};
use serde_json::json;

use taskd_progress::Progress;

use client::{Connection, Target};
use driver::{Plan, Stop};
use report::{RunResult, Settings, Setup};
use workload::{number_after, problem_code, task_body, Ids, Mix, Space, Workload};

/// Tasks per prefill batch: the most a batch takes.
const BATCH: u64 = 100;

/// The flags of `taskd bench`.
#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("auth").required(true).args(["token", "admin_token"])))]
pub struct Options {
    /// The server's base URL (http only).
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// A user's token: the run works in that user's default space.
    #[arg(long, env = "TASKD_BENCH_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The admin token: the run makes --spaces new users (named bench-<run>-<n>) and works
    /// in their default spaces.
    #[arg(long, env = "TASKD_BENCH_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Keep-alive connections sending requests at once.
    #[arg(long, short = 'c', default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=10_000))]
    pub connections: u16,
    /// How long the measured part runs, after the warm-up (e.g. 10s, 500ms, 2m).
    #[arg(long, short = 'd', default_value = "10s", value_parser = parse_duration,
          conflicts_with = "requests")]
    pub duration: Duration,
    /// Stop after this many measured answers instead of after --duration.
    #[arg(long, short = 'n', value_parser = clap::value_parser!(u64).range(1..))]
    pub requests: Option<u64>,
    /// Send the mix this long before measuring, without recording it (warms the server's
    /// caches and allocator and opens the connections).
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// What to send: read (item GETs), write (POSTs), mixed (70% GET, 20% PATCH, 10%
    /// POST), page (filtered collection pages, following the cursor), sync (feed polls
    /// and writes, with a change stream held open per space).
    #[arg(
        long,
        short = 'w',
        value_enum,
        default_value = "mixed",
        conflicts_with = "mix"
    )]
    pub workload: Workload,
    /// A custom mix instead of --workload: OP=WEIGHT,... with OP one of get, patch, post,
    /// page, changes; weights are relative (e.g. get=70,patch=20,post=10).
    #[arg(long)]
    pub mix: Option<Mix>,
    /// Page requests ask for the first page of `/api/v1/tasks?QUERY` each time (a query
    /// string, URL-encoded, e.g. `limit=100&orderBy=dateDue`) instead of walking the open
    /// tasks 50 a page.
    #[arg(long, value_name = "QUERY")]
    pub page_query: Option<String>,
    /// Open loop: send this many requests per second in all, on a fixed schedule, and time
    /// each from its scheduled start (queueing counts); without it, closed loop: each
    /// connection sends its next request when the answer came.
    #[arg(long, short = 'r')]
    pub rate: Option<f64>,
    /// Tasks to create before the run (in batches of 100, spread over the spaces); get and
    /// patch work on these.
    #[arg(long, default_value_t = 1000)]
    pub prefill: u64,
    /// Spread the load over this many users' default spaces (needs --admin-token).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub spaces: u16,
    /// Change streams to hold open per space [default: 1 with --workload sync, else 0].
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub streams: Option<u8>,
    /// Threads of the load generator's runtime [default: CPU count].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// How long one request may take before it counts as an error (timeout) and its
    /// connection is opened anew.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Write the whole result as JSON to this file (settings, server health, counts,
    /// percentiles and percentile curves per operation, errors).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Draw the latency percentile curves of every operation as an SVG plot to this file
    /// (with --compare, the older run's too: "new" solid, "old" dashed).
    #[arg(long, value_name = "FILE.svg")]
    pub report: Option<PathBuf>,
    /// Print this run's ratios to an older --json result (new/old: throughput and each
    /// percentile, per operation).
    #[arg(long, value_name = "OLD.json")]
    pub compare: Option<PathBuf>,
}

/// Why a bench could not run (its answers being wrong is not this: those are counted).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A flag or a combination of flags makes no sense.
    #[error("bench: {0}")]
    Usage(String),
    /// The server could not be reached, or `/healthz` was not 200.
    #[error("bench: server not ready: {0}")]
    Unreachable(String),
    /// A setup request (users, versions, prefill) got a wrong answer.
    #[error("bench: setup failed: {0}")]
    Setup(String),
    /// A file could not be read or written.
    #[error("bench: {path}: {1}", path = .0.display())]
    File(PathBuf, String),
}

/// Reads `10s`, `500ms`, `2m`, `1.5s` or a bare number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("'{text}': expected a duration such as 10s, 500ms or 2m"))?;
    let seconds = match unit {
        "ms" => value / 1e3,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("'{text}': the units are ms, s, m and h")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

impl Options {
    /// The mix to send.
    fn mix(&self) -> Mix {
        self.mix.clone().unwrap_or_else(|| self.workload.mix())
    }

    /// The workload's name in the output: `custom` with --mix.
    fn workload_name(&self) -> &'static str {
        match self.mix {
            Some(_) => "custom",
            None => self.workload.name(),
        }
    }

    /// Streams per space.
    fn streams(&self) -> usize {
        usize::from(self.streams.unwrap_or(u8::from(
            self.mix.is_none() && self.workload == Workload::Sync,
        )))
    }

    /// Refuses flags that cannot work together.
    fn validate(&self) -> Result<(), BenchError> {
        let usage = |why: &str| Err(BenchError::Usage(why.to_string()));
        if self.spaces > 1 && self.admin_token.is_none() {
            return usage("--spaces above 1 needs --admin-token (the run makes a user per space)");
        }
        if let Some(rate) = self.rate {
            if !(rate.is_finite() && rate > 0.0) {
                return usage("--rate must be a number of requests per second above 0");
            }
        }
        if self.requests.is_none() && self.duration.is_zero() {
            return usage("--duration must be above 0");
        }
        let tasks_per_space = self.prefill / u64::from(self.spaces);
        if self.mix().ops().any(|op| op.needs_tasks()) && tasks_per_space == 0 {
            return usage("get and patch need prefilled tasks: give --prefill at least --spaces");
        }
        Ok(())
    }

    /// The settings as the result records them.
    fn settings(&self) -> Settings {
        Settings {
            url: self.url.clone(),
            workload: self.workload_name().to_string(),
            mix: self.mix().to_string(),
            mode: if self.rate.is_some() {
                "open"
            } else {
                "closed"
            }
            .to_string(),
            connections: usize::from(self.connections),
            duration_seconds: self
                .requests
                .is_none()
                .then_some(self.duration.as_secs_f64()),
            requests: self.requests,
            warmup_seconds: self.warmup.as_secs_f64(),
            rate: self.rate,
            prefill: self.prefill,
            spaces: usize::from(self.spaces),
            streams: self.streams(),
            timeout_seconds: self.timeout.as_secs_f64(),
            threads: self.threads.map(usize::from),
        }
    }
}

/// Runs a bench with `options`, on its own tokio runtime: prints the table to stdout
/// (and the ratios with --compare), writes --json. Returns whether every answer was
/// right.
pub fn run(options: &Options) -> Result<bool, BenchError> {
    options.validate()?;
    let old = match &options.compare {
        Some(path) => Some(read_result(path)?),
        None => None,
    };
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = options.threads {
        runtime.worker_threads(usize::from(threads));
    }
    let runtime = runtime
        .enable_all()
        .build()
        .map_err(|e| BenchError::Usage(format!("cannot start the runtime: {e}")))?;
    let result = runtime.block_on(bench(options))?;
    print!("{}", result.table());
    if let Some(old) = &old {
        print!("{}", result.compare(old));
    }
    if let Some(path) = &options.report {
        let mut curves = match &old {
            Some(old) => [result.curves("new"), old.curves("old")].concat(),
            None => result.curves(&result.started_at),
        };
        curves.retain(|c| !c.points.is_empty());
        std::fs::write(path, crate::plot::svg(&curves))
            .map_err(|e| BenchError::File(path.clone(), e.to_string()))?;
    }
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&result).expect("a result serializes");
        std::fs::write(path, text + "\n")
            .map_err(|e| BenchError::File(path.clone(), e.to_string()))?;
    }
    Ok(result.error_count() == 0)
}

/// Reads a result `--json` wrote.
fn read_result(path: &PathBuf) -> Result<RunResult, BenchError> {
    let text = std::fs::read(path).map_err(|e| BenchError::File(path.clone(), e.to_string()))?;
    let result: RunResult = serde_json::from_slice(&text)
        .map_err(|e| BenchError::File(path.clone(), format!("not a bench result: {e}")))?;
    if result.format != report::FORMAT {
        return Err(BenchError::File(
            path.clone(),
            format!(
                "result format {} (this bench reads {})",
                result.format,
                report::FORMAT
            ),
        ));
    }
    Ok(result)
}

/// Sets up, runs and measures.
async fn bench(options: &Options) -> Result<RunResult, BenchError> {
    let target = Target::parse(&options.url).map_err(BenchError::Usage)?;
    let mut setup = Setup::default();
    let mut conn = Connection::new(target.clone(), options.timeout);
    let healthz = {
        let answer = conn
            .send("GET", "/healthz", None, None)
            .await
            .map_err(|e| BenchError::Unreachable(format!("{}: {e}", options.url)))?;
        setup.requests += 1;
        let body = serde_json::from_slice(answer.body)
            .unwrap_or_else(|_| json!(String::from_utf8_lossy(answer.body)));
        if answer.status != 200 {
            return Err(BenchError::Unreachable(format!(
                "/healthz answered {}: {body}",
                answer.status
            )));
        }
        body
    };
    let ids = Ids::new();
    let tokens = match (&options.token, &options.admin_token) {
        (Some(token), _) => vec![token.clone()],
        (None, Some(admin)) => {
            let mut tokens = Vec::new();
            for n in 0..options.spaces {
                let body = json!({ "name": format!("bench-{}-{n}", ids.prefix) }).to_string();
                let answer = conn
                    .send(
                        "POST",
                        "/api/v1/admin/users",
                        Some(admin),
                        Some(body.as_bytes()),
                    )
                    .await
                    .map_err(|e| BenchError::Setup(format!("creating a user: {e}")))?;
                setup.requests += 1;
                setup.users += 1;
                let user: serde_json::Value =
                    serde_json::from_slice(answer.body).unwrap_or_default();
                match (answer.status, user["data"]["token"].as_str()) {
                    (201, Some(token)) => tokens.push(token.to_string()),
                    (status, _) => {
                        return Err(BenchError::Setup(format!(
                            "creating a user answered {status} {}",
                            problem_code(answer.body)
                        )))
                    }
                }
            }
            tokens
        }
        (None, None) => unreachable!("clap requires --token or --admin-token"),
    };
    let spaces_count = tokens.len() as u64;
    let mut spaces = Vec::new();
    for (index, token) in tokens.into_iter().enumerate() {
        let answer = conn
            .send("GET", "/api/v1/tasks?limit=1", Some(&token), None)
            .await
            .map_err(|e| BenchError::Setup(format!("reading the space version: {e}")))?;
        setup.requests += 1;
        let version = match (
            answer.status,
            number_after(answer.body, b"\"spaceVersion\":"),
        ) {
            (200, Some(version)) => version,
            (status, _) => {
                return Err(BenchError::Setup(format!(
                    "GET /api/v1/tasks answered {status} {}",
                    problem_code(answer.body)
                )))
            }
        };
        let tasks = options.prefill / spaces_count
            + u64::from((index as u64) < options.prefill % spaces_count);
        spaces.push(Space {
            token,
            index,
            tasks,
            version: AtomicU64::new(version),
        });
    }
    drop(conn);
    let spaces = Arc::new(spaces);
    prefill(&target, options, &ids, &spaces, &mut setup).await?;

    let mix = options.mix();
    let run_id = ids.prefix.clone();
    let plan = Plan {
        target,
        timeout: options.timeout,
        connections: usize::from(options.connections),
        deck: mix.deck(),
        spaces,
        ids,
        warmup: options.warmup,
        stop: match options.requests {
            Some(n) => Stop::Requests(n),
            None => Stop::After(options.duration),
        },
        rate: options.rate,
        streams: options.streams(),
        page_query: options.page_query.as_deref().map(Arc::from),
    };
    let progress = Arc::new(Progress::step("starting"));
    let started_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let outcome = driver::drive(plan, &progress).await;
    drop(progress);
    let ops: Vec<_> = mix.ops().collect();
    Ok(RunResult::new(
        run_id,
        options.settings(),
        healthz,
        setup,
        started_at,
        &ops,
        &outcome,
    ))
}

/// Creates each space's prefilled tasks in batches of [`BATCH`], over as many connections
/// as the run has, with a progress bar on a terminal; checks each batch's answer.
async fn prefill(
    target: &Target,
    options: &Options,
    ids: &Ids,
    spaces: &Arc<Vec<Space>>,
    setup: &mut Setup,
) -> Result<(), BenchError> {
    // Every batch as (space, first task, tasks).
    let batches: Vec<(usize, u64, u64)> = spaces
        .iter()
        .flat_map(|s| {
            (0..s.tasks)
                .step_by(BATCH as usize)
                .map(move |first| (s.index, first, BATCH.min(s.tasks - first)))
        })
        .collect();
    if batches.is_empty() {
        return Ok(());
    }
    let progress = Arc::new(Progress::records("prefill", Some(options.prefill)));
    let queue = Arc::new(std::sync::Mutex::new(batches));
    let workers = usize::from(options.connections).min(queue.lock().expect("fresh").len());
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, spaces, ids, progress) = (
                Arc::clone(&queue),
                Arc::clone(spaces),
                ids.clone(),
                Arc::clone(&progress),
            );
            let mut conn = Connection::new(target.clone(), options.timeout);
            tokio::spawn(async move {
                let mut sent = 0u64;
                loop {
                    let next = queue.lock().expect("not poisoned").pop();
                    let Some((s, first, count)) = next else {
                        return Ok(sent);
                    };
                    let space = &spaces[s];
                    let floor = space.version.load(Ordering::Acquire);
                    let operations: Vec<String> = (first..first + count)
                        .map(|n| {
                            format!(
                                r#"{{"method":"POST","path":"/api/v1/tasks","body":{}}}"#,
                                task_body(&ids.prefilled(s, n))
                            )
                        })
                        .collect();
                    let body = format!(r#"{{"operations":[{}]}}"#, operations.join(","));
                    let answer = conn
                        .send(
                            "POST",
                            "/api/v1/batch",
                            Some(&space.token),
                            Some(body.as_bytes()),
                        )
                        .await
                        .map_err(|e| BenchError::Setup(format!("prefill batch: {e}")))?;
                    sent += 1;
                    let version = number_after(answer.body, b"\"spaceVersion\":");
                    match (answer.status, version) {
                        (200, Some(v)) if v >= floor + count => {
                            space.version.fetch_max(v, Ordering::AcqRel);
                        }
                        (status, _) => {
                            return Err(BenchError::Setup(format!(
                                "prefill batch answered {status} {}",
                                problem_code(answer.body)
                            )))
                        }
                    }
                    progress.advance(count);
                }
            })
        })
        .collect();
    for task in tasks {
        let sent = task.await.expect("a prefill task panicked")?;
        setup.requests += sent;
        setup.batches += sent;
    }
    drop(progress);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit_or_mean_seconds() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["", "s", "-1s", "10x", "1e999s"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} accepted");
        }
    }
}
