//! The logger: `log` macros everywhere, `fern` formatting each line, set up once by `main`.
//!
//! Lines go through a bounded queue to one writer thread that writes them to stderr through
//! a buffer and flushes whenever the queue runs dry, so a request never waits on the
//! terminal or a slow pipe. When the queue is full a line is dropped, not waited for; the
//! writer then reports how many were dropped. [`flush`] drains the queue before exit.

use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::OnceLock;
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

/// Lines the queue holds before new ones are dropped.
const QUEUE_LINES: usize = 16_384;

/// What the writer thread is sent.
enum Message {
    Line(String),
    /// Write out everything before this, then answer.
    Flush(SyncSender<()>),
}

/// The queue into the writer thread, and the count of lines it had no room for.
struct Sink {
    queue: SyncSender<Message>,
    dropped: AtomicU64,
}

static SINK: OnceLock<Sink> = OnceLock::new();

/// Sends log records at `level` and above to stderr, one line each with a UTC timestamp,
/// laid out as `format` says. Chatty dependencies are held to warnings.
pub fn init(level: LevelFilter, format: LogFormat) -> Result<(), log::SetLoggerError> {
    let (queue, lines) = sync_channel(QUEUE_LINES);
    let sink = SINK.get_or_init(|| Sink {
        queue,
        dropped: AtomicU64::new(0),
    });
    // Only the first call's receiver is used; a second `init` fails at `apply` below.
    if std::thread::Builder::new()
        .name("taskd-log".into())
        .spawn(move || write_lines(lines))
        .is_err()
    {
        eprintln!("taskd: no log writer thread; logging to stderr directly");
    }
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
        .chain(fern::Output::call(move |record| {
            let line = format!("{}\n", record.args());
            match sink.queue.try_send(Message::Line(line)) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => {
                    sink.dropped.fetch_add(1, Ordering::Relaxed);
                }
                // No writer thread: write it here.
                Err(TrySendError::Disconnected(Message::Line(line))) => {
                    let _ = std::io::stderr().write_all(line.as_bytes());
                }
                Err(TrySendError::Disconnected(_)) => {}
            }
        }))
        .apply()
}

/// Writes every line queued so far to stderr, waiting at most 5 s (a stderr nobody reads
/// must not keep the process from exiting).
pub fn flush() {
    let Some(sink) = SINK.get() else { return };
    let (done, wait) = sync_channel(1);
    if sink.queue.send(Message::Flush(done)).is_ok() {
        let _ = wait.recv_timeout(Duration::from_secs(5));
    }
}

/// The writer thread: buffers lines, flushing when the queue is empty or asked to.
fn write_lines(lines: Receiver<Message>) {
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stderr());
    let mut next = lines.recv();
    while let Ok(message) = next {
        match message {
            Message::Line(line) => {
                let _ = out.write_all(line.as_bytes());
            }
            Message::Flush(done) => {
                let _ = out.flush();
                let _ = done.send(());
            }
        }
        next = match lines.try_recv() {
            Ok(message) => Ok(message),
            Err(_) => {
                report_dropped(&mut out);
                let _ = out.flush();
                lines.recv()
            }
        };
    }
    let _ = out.flush();
}

/// The time now as a log line shows it (no format string to parse on every line: it was a
/// quarter of a GET).
fn now() -> Stamp {
    let ms = chrono::Utc::now().timestamp_millis();
    rfc3339_millis(ms).unwrap_or(Stamp::Other(String::new()))
}

/// Says how many lines were dropped since the last report, if any were.
fn report_dropped(out: &mut impl Write) {
    let dropped = SINK
        .get()
        .map_or(0, |sink| sink.dropped.swap(0, Ordering::Relaxed));
    if dropped > 0 {
        let _ = writeln!(
            out,
            "{} WARN  taskd::logging: {dropped} log lines dropped (the log queue was full)",
            &*now()
        );
    }
}
