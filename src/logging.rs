//! The logger: `log` macros everywhere, `fern` formatting each line, set up once by `main`.
//!
//! Lines are formatted straight into a shared buffer, and one writer thread writes the
//! buffer to stderr: at once for a line of the `log` macros (warnings, errors, events), and
//! every [`WRITE_EVERY`] for the access line of each request ([`info`]), so a request
//! neither waits on the terminal or a slow pipe nor wakes a thread for its line. When the buffer holds [`BUFFER_BYTES`] a line
//! is dropped, not waited for; the writer then reports how many were dropped. [`flush`]
//! writes out the buffer before exit.

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use clap::ValueEnum;
use log::LevelFilter;

use crate::model::time::{rfc3339_millis, Stamp};

/// How each line is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// `2026-11-22T10:00:00.000Z INFO  taskd::http: message`
    Text,
    /// One JSON object a line: `ts`, `level`, `target`, `msg`.
    Json,
}

/// The most bytes of lines the buffer holds before new ones are dropped.
const BUFFER_BYTES: usize = 4 << 20;
/// How often the writer thread writes the buffer out.
const WRITE_EVERY: Duration = Duration::from_millis(50);

/// The lines not yet written, the count of lines there was no room for, and stderr.
struct Sink {
    /// The layout of the lines.
    format: LogFormat,
    /// Whether info lines are logged (of `taskd`'s own modules).
    info: bool,
    lines: Mutex<Vec<u8>>,
    /// A line that should not wait for the next period was added.
    urgent: AtomicBool,
    /// Wakes the writer for an urgent line.
    wake: Condvar,
    dropped: AtomicU64,
    /// Held while lines are taken from the buffer and written, so they keep their order.
    out: Mutex<std::io::Stderr>,
}

impl Sink {
    /// Adds one line, or counts it dropped when the buffer is full; an `urgent` one wakes
    /// the writer.
    fn push(&self, line: &std::fmt::Arguments, urgent: bool) {
        self.push_with(|lines| drop(writeln!(lines, "{line}")), urgent);
    }

    /// Adds the line `write` appends (with its line break), or counts it dropped when the
    /// buffer is full; an `urgent` one wakes the writer.
    fn push_with(&self, write: impl FnOnce(&mut Vec<u8>), urgent: bool) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() >= BUFFER_BYTES {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        write(&mut lines);
        if urgent && !self.urgent.swap(true, Ordering::Relaxed) {
            self.wake.notify_one();
        }
    }

    /// Waits until an urgent line comes or [`WRITE_EVERY`] passes.
    fn wait(&self) {
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.urgent.load(Ordering::Relaxed) {
            let _ = self.wake.wait_timeout(lines, WRITE_EVERY);
        }
        self.urgent.store(false, Ordering::Relaxed);
    }

    /// Writes out every line buffered so far, using `spare` (left empty) as the next
    /// buffer.
    fn write_out(&self, spare: &mut Vec<u8>) {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::swap(
            spare,
            &mut *self.lines.lock().unwrap_or_else(PoisonError::into_inner),
        );
        let _ = out.write_all(spare);
        spare.clear();
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let _ = writeln!(
                out,
                "{} WARN  taskd::logging: {dropped} log lines dropped (the log buffer was full)",
                &*now()
            );
        }
        let _ = out.flush();
    }
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// Sends log records at `level` and above to stderr, one line each with a UTC timestamp,
/// laid out as `format` says. Chatty dependencies are held to warnings.
pub fn init(level: LevelFilter, format: LogFormat) -> Result<(), log::SetLoggerError> {
    let sink = SINK.get_or_init(|| Sink {
        format,
        info: level >= LevelFilter::Info,
        lines: Mutex::new(Vec::with_capacity(64 << 10)),
        urgent: AtomicBool::new(false),
        wake: Condvar::new(),
        dropped: AtomicU64::new(0),
        out: Mutex::new(std::io::stderr()),
    });
    fern::Dispatch::new()
        .format(move |out, message, record| {
            let ts = now();
            let ts: &str = &ts;
            match format {
                LogFormat::Text => out.finish(format_args!(
                    "{ts} {:<5} {}: {message}",
                    record.level(),
                    record.target(),
                )),
                LogFormat::Json => out.finish(format_args!(
                    "{}",
                    serde_json::json!({
                        "ts": ts,
                        "level": record.level().as_str(),
                        "target": record.target(),
                        "msg": message.to_string(),
                    })
                )),
            }
        })
        .level(level)
        .level_for("actix_server", level.min(LevelFilter::Warn))
        .level_for("mio", LevelFilter::Warn)
        // The rrule crate warns whenever an expansion gives up on a long stretch without
        // instances, which `model::recurrence` reads as the end of a series: not news.
        .level_for("rrule", LevelFilter::Error)
        .chain(fern::Output::call(move |record| {
            sink.push(record.args(), true)
        }))
        .apply()?;
    // Only the first call gets here; without the thread, `flush` still writes the lines.
    if let Err(e) = std::thread::Builder::new()
        .name("taskd-log".into())
        .spawn(move || {
            let mut spare = Vec::with_capacity(64 << 10);
            loop {
                sink.wait();
                sink.write_out(&mut spare);
            }
        })
    {
        eprintln!("taskd: no log writer thread ({e}); lines are written at exit");
    }
    Ok(())
}

/// Logs the message `write` appends at info with `target`, as `log::info!` would, for the
/// line every request logs: in the text layout `write` appends it straight into the
/// buffer, after the time and the target, without `fern`'s dispatch (a tenth of a GET's
/// work went to it) and without a format string (a sixteenth). `write` appends UTF-8 with
/// no line break; in the JSON layout the message is made apart and logged through `log`.
pub fn info(target: &'static str, write: impl FnOnce(&mut Vec<u8>)) {
    match SINK.get() {
        Some(sink) if sink.format == LogFormat::Text => {
            if sink.info {
                let ts = now();
                sink.push_with(
                    |lines| {
                        lines.extend_from_slice(ts.as_bytes());
                        lines.extend_from_slice(b" INFO  ");
                        lines.extend_from_slice(target.as_bytes());
                        lines.extend_from_slice(b": ");
                        write(lines);
                        lines.push(b'\n');
                    },
                    false,
                );
            }
        }
        _ => {
            let mut message = Vec::new();
            write(&mut message);
            log::info!(target: target, "{}", String::from_utf8_lossy(&message));
        }
    }
}

/// Writes every line buffered so far to stderr, waiting at most 5 s (a stderr nobody reads
/// must not keep the process from exiting).
pub fn flush() {
    let Some(sink) = SINK.get() else { return };
    let (done, wait) = std::sync::mpsc::sync_channel(1);
    let writer = std::thread::Builder::new()
        .name("taskd-log-flush".into())
        .spawn(move || {
            sink.write_out(&mut Vec::new());
            let _ = done.send(());
        });
    if writer.is_ok() {
        let _ = wait.recv_timeout(Duration::from_secs(5));
    }
}

thread_local! {
    /// The last stamp this thread made, and its millisecond.
    static LAST_STAMP: std::cell::RefCell<(i64, Stamp)> =
        const { std::cell::RefCell::new((i64::MIN, Stamp::Fixed([0; 24]))) };
}

/// The time now as a log line shows it: made once per millisecond and thread (no format
/// string to parse on every line: it was a quarter of a GET).
fn now() -> Stamp {
    let ms = chrono::Utc::now().timestamp_millis();
    LAST_STAMP.with_borrow_mut(|(last, stamp)| {
        if *last != ms {
            *stamp = rfc3339_millis(ms).unwrap_or(Stamp::Other(String::new()));
            *last = ms;
        }
        stamp.clone()
    })
}
