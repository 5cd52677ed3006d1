//! What a run shows: the result as a value (written with `--json`, read back by
//! `--compare`), the table on stdout, and the ratios against an older result.

use std::fmt::Write as _;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::driver::{OpRecord, Outcome, StreamOutcome};
use super::workload::Op;
use crate::plot::Curve;

/// The version of the JSON layout; `--compare` reads this one only.
pub const FORMAT: u32 = 1;

/// A whole run, as `--json` writes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// [`FORMAT`].
    pub format: u32,
    /// The version of the taskd binary that ran the bench.
    pub taskd_version: String,
    /// The run's id: its task ids start with it, its users are named `bench-<id>-<n>`.
    pub run_id: String,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// The flags the run had.
    pub settings: Settings,
    /// The server's `/healthz` body before the run.
    pub healthz: serde_json::Value,
    /// Requests before the run: user creation, version reads, prefill batches.
    pub setup: Setup,
    /// Requests answered during the warm-up (not in the figures).
    pub warmup_requests: u64,
    /// Seconds from the end of the warm-up to the last answer.
    pub seconds: f64,
    /// Open loop: scheduled requests that were not sent by the end because the
    /// connections were that far behind (0 in closed loop).
    pub unsent: u64,
    /// Every operation together.
    pub total: OpResult,
    /// Per operation of the mix.
    pub operations: Vec<OpResult>,
    /// Wrong answers and failed exchanges, by operation, status and code.
    pub errors: Vec<ErrorCount>,
    /// The change streams held open, if any.
    pub streams: Option<StreamResult>,
}

/// The flags of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `--url`.
    pub url: String,
    /// `--workload`, or `custom` with `--mix`.
    pub workload: String,
    /// The mix the run sent.
    pub mix: String,
    /// `closed` or `open` (with `--rate`).
    pub mode: String,
    /// `--connections`.
    pub connections: usize,
    /// `--duration` in seconds, when the run was timed.
    pub duration_seconds: Option<f64>,
    /// `--requests`, when the run was counted.
    pub requests: Option<u64>,
    /// `--warmup` in seconds.
    pub warmup_seconds: f64,
    /// `--rate` in requests per second.
    pub rate: Option<f64>,
    /// `--prefill`.
    pub prefill: u64,
    /// `--spaces`.
    pub spaces: usize,
    /// Change streams held open per space.
    pub streams: usize,
    /// `--timeout` in seconds.
    pub timeout_seconds: f64,
    /// `--threads`, when given (else the CPU count).
    pub threads: Option<usize>,
}

/// The requests made before the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    /// All of them, `/healthz` included.
    pub requests: u64,
    /// Users made with the admin token.
    pub users: u64,
    /// `POST /api/v1/batch` requests of the prefill.
    pub batches: u64,
}

/// One operation's figures (or all of them together).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpResult {
    /// `get`, `patch`, `post`, `page`, `changes`, or `all`.
    pub operation: String,
    /// Right answers.
    pub ok: u64,
    /// Wrong answers and failed exchanges.
    pub errors: u64,
    /// Right answers per second.
    pub throughput: f64,
    /// Latency of the right answers, in milliseconds.
    pub latency_ms: Latency,
    /// The percentile curve, `[percentile (0 to 100), milliseconds]` points from
    /// HdrHistogram's quantile iteration (denser towards the tail), for plotting.
    pub curve: Vec<(f64, f64)>,
}

/// Latency figures in milliseconds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Latency {
    /// The mean.
    pub mean: f64,
    /// The median.
    pub p50: f64,
    /// The 90th percentile.
    pub p90: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The 99.9th percentile.
    #[serde(rename = "p99.9")]
    pub p999: f64,
    /// The slowest.
    pub max: f64,
}

/// Errors of one kind.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorCount {
    /// The operation, or `stream`.
    pub operation: String,
    /// The status (0: no answer).
    pub status: u16,
    /// The problem+json `code`, or what the bench found wrong (`bench_...`), or how the
    /// exchange failed (`timeout`, `closed`, `io`, `malformed`).
    pub code: String,
    /// How many.
    pub count: u64,
}

/// The change streams of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StreamResult {
    /// Streams that opened.
    pub opened: u64,
    /// Change events they received.
    pub events: u64,
    /// Versions they were still behind their space's last write 2 s after the run.
    pub behind: u64,
}

/// The milliseconds of a histogram value in microseconds.
fn ms(micros: u64) -> f64 {
    micros as f64 / 1e3
}

/// The figures of `latency` with `errors`, over `seconds`.
fn op_result(name: &str, latency: &Histogram<u64>, errors: u64, seconds: f64) -> OpResult {
    let at = |q: f64| ms(latency.value_at_quantile(q));
    let curve = if latency.is_empty() {
        Vec::new()
    } else {
        latency
            .iter_quantiles(5)
            .map(|v| (v.quantile_iterated_to() * 100.0, ms(v.value_iterated_to())))
            .collect()
    };
    OpResult {
        operation: name.to_string(),
        ok: latency.len(),
        errors,
        throughput: if seconds > 0.0 {
            latency.len() as f64 / seconds
        } else {
            0.0
        },
        latency_ms: Latency {
            mean: latency.mean() / 1e3,
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            p999: at(0.999),
            max: ms(latency.max()),
        },
        curve,
    }
}

impl RunResult {
    /// The result of `outcome`, run with `settings` after `setup`.
    pub fn new(
        run_id: String,
        settings: Settings,
        healthz: serde_json::Value,
        setup: Setup,
        started_at: String,
        ops: &[Op],
        outcome: &Outcome,
    ) -> RunResult {
        let recorder = &outcome.recorder;
        let seconds = outcome.seconds;
        let record = |op: Op| -> &OpRecord { &recorder.ops[op.index()] };
        let operations: Vec<OpResult> = ops
            .iter()
            .map(|op| {
                let r = record(*op);
                op_result(op.name(), &r.latency, r.error_count(), seconds)
            })
            .collect();
        let mut errors: Vec<ErrorCount> = Op::ALL
            .iter()
            .flat_map(|op| {
                record(*op).errors.iter().map(|(f, n)| ErrorCount {
                    operation: op.name().to_string(),
                    status: f.status,
                    code: f.code.clone(),
                    count: *n,
                })
            })
            .collect();
        let streams = outcome.streams.as_ref().map(|s: &StreamOutcome| {
            errors.extend(s.errors.iter().map(|(f, n)| ErrorCount {
                operation: "stream".into(),
                status: f.status,
                code: f.code.clone(),
                count: *n,
            }));
            if s.behind > 0 {
                errors.push(ErrorCount {
                    operation: "stream".into(),
                    status: 200,
                    code: "bench_stream_behind".into(),
                    count: 1,
                });
            }
            StreamResult {
                opened: s.opened,
                events: s.events,
                behind: s.behind,
            }
        });
        let all_errors = recorder.ops.iter().map(OpRecord::error_count).sum();
        RunResult {
            format: FORMAT,
            taskd_version: env!("CARGO_PKG_VERSION").to_string(),
            run_id,
            started_at,
            settings,
            healthz,
            setup,
            warmup_requests: recorder.warmup,
            seconds,
            unsent: outcome.unsent,
            total: op_result("all", &recorder.all_latencies(), all_errors, seconds),
            operations,
            errors,
            streams,
        }
    }

    /// The percentile curve of each operation, named `run` in the plot's legend.
    pub fn curves(&self, run: &str) -> Vec<Curve> {
        self.operations
            .iter()
            .map(|op| Curve {
                run: run.to_string(),
                operation: op.operation.clone(),
                points: op.curve.clone(),
            })
            .collect()
    }

    /// Errors of every kind, streams included.
    pub fn error_count(&self) -> u64 {
        self.errors.iter().map(|e| e.count).sum()
    }

    /// The table printed after a run.
    pub fn table(&self) -> String {
        let s = &self.settings;
        let mut out = String::new();
        let length = match (s.duration_seconds, s.requests) {
            (_, Some(n)) => format!("{n} requests"),
            (Some(d), None) => format!("{d} s"),
            (None, None) => String::new(),
        };
        let mode = match s.rate {
            Some(rate) => format!("open loop at {rate} req/s"),
            None => "closed loop".to_string(),
        };
        let _ = writeln!(
            out,
            "{} {} ({}), {mode}, {} connections, {length} after {} s warm-up, {} space(s), \
             {} task(s) prefilled",
            s.url, s.workload, s.mix, s.connections, s.warmup_seconds, s.spaces, s.prefill
        );
        let _ = writeln!(
            out,
            "{:<10}{:>10}{:>8}{:>11}{:>9}{:>9}{:>9}{:>9}{:>9}{:>10}",
            "operation", "ok", "errors", "ok/s", "mean", "p50", "p90", "p99", "p99.9", "max"
        );
        for op in self.operations.iter().chain(std::iter::once(&self.total)) {
            let l = &op.latency_ms;
            let _ = writeln!(
                out,
                "{:<10}{:>10}{:>8}{:>11.1}{:>9.3}{:>9.3}{:>9.3}{:>9.3}{:>9.3}{:>10.3}",
                op.operation,
                op.ok,
                op.errors,
                op.throughput,
                l.mean,
                l.p50,
                l.p90,
                l.p99,
                l.p999,
                l.max
            );
        }
        let _ = writeln!(
            out,
            "latencies in ms; {:.2} s measured; {} warm-up and {} setup requests not counted",
            self.seconds, self.warmup_requests, self.setup.requests
        );
        if self.unsent > 0 {
            let _ = writeln!(
                out,
                "{} scheduled requests were not sent by the end: the connections were that far \
                 behind the rate",
                self.unsent
            );
        }
        if let Some(streams) = &self.streams {
            let _ = writeln!(
                out,
                "{} change stream(s): {} events; {}",
                streams.opened,
                streams.events,
                match streams.behind {
                    0 => "caught up with the last write".to_string(),
                    n => format!("{n} versions behind the last write 2 s after the run"),
                }
            );
        }
        if !self.errors.is_empty() {
            let _ = writeln!(out, "errors:");
            for e in &self.errors {
                let _ = writeln!(
                    out,
                    "  {:<9}{:>4} {:<34}{:>10}",
                    e.operation, e.status, e.code, e.count
                );
            }
        }
        out
    }

    /// Ratios new/old (this run over `old`) of throughput and each percentile, per
    /// operation both runs have.
    pub fn compare(&self, old: &RunResult) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "new/old ({} vs {}; below 1 is less throughput or faster answers)",
            self.started_at, old.started_at
        );
        let _ = writeln!(
            out,
            "{:<10}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}",
            "operation", "ok/s", "mean", "p50", "p90", "p99", "p99.9", "max"
        );
        let ratio = |new: f64, old: f64| {
            if old > 0.0 {
                format!("{:.2}", new / old)
            } else {
                "-".to_string()
            }
        };
        let pairs = self
            .operations
            .iter()
            .chain(std::iter::once(&self.total))
            .filter_map(|new| {
                old.operations
                    .iter()
                    .chain(std::iter::once(&old.total))
                    .find(|o| o.operation == new.operation)
                    .map(|o| (new, o))
            });
        for (new, old) in pairs {
            let (n, o) = (&new.latency_ms, &old.latency_ms);
            let _ = writeln!(
                out,
                "{:<10}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}",
                new.operation,
                ratio(new.throughput, old.throughput),
                ratio(n.mean, o.mean),
                ratio(n.p50, o.p50),
                ratio(n.p90, o.p90),
                ratio(n.p99, o.p99),
                ratio(n.p999, o.p999),
                ratio(n.max, o.max)
            );
        }
        out
    }
}
