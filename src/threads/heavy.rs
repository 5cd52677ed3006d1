//! The one mechanism for heavy work (§21, §27): work that grows with what a space holds or
//! with a request's body (rendering a big answer, parsing an iCalendar body, a CalDAV
//! report over a whole calendar) runs on the heavy pool, never on an HTTP worker, whose
//! other connections (other users' among them) would wait, nor on a space actor's thread.
//!
//! - [`run`] runs a closure there and hands back its result;
//! - [`stream`] runs a closure that writes an answer there and streams what it writes as
//!   it is written: the answer is never held whole, and a client that stops reading stops
//!   the work (the channel between them holds [`CHUNKS`] chunks of [`CHUNK_BYTES`]).
//!
//! The pool has one thread per core, each in the background ([`crate::threads`]): heavy
//! work takes at most the machine's cores, waits in line beyond that, and when the cores
//! are contended the HTTP workers (nice 0) get them first, so one account's reports cannot
//! starve another's requests of CPU. And one account's heavy work runs one piece at a time
//! ([`PER_OWNER`]):
//! its other pieces wait for their turn without holding a thread, so an account with many
//! connections still takes one core at the most, and others' heavy work is not queued
//! behind all of its own.

use std::io;
use std::sync::mpsc as queue;
use std::sync::{LazyLock, Mutex, PoisonError};

use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use tokio::sync::{mpsc, oneshot};

use super::turns::Turns;

/// How many bytes the writer gathers before it hands a chunk to the answer.
pub(crate) const CHUNK_BYTES: usize = 32 * 1024;
/// How many chunks may wait for the client before the writer waits too.
pub(crate) const CHUNKS: usize = 4;
/// How many pieces of one owner's heavy work run at once.
pub(crate) const PER_OWNER: usize = 1;

/// Why heavy work gave no result.
#[derive(Debug, thiserror::Error)]
#[error("the heavy work gave no result: {0}")]
pub(crate) struct Lost(&'static str);

/// A piece of heavy work.
type Job = Box<dyn FnOnce() + Send>;

/// The queue of the pool's threads, started on first use.
static POOL: LazyLock<Mutex<queue::Sender<Job>>> = LazyLock::new(|| {
    let (jobs, waiting) = queue::channel::<Job>();
    let waiting = std::sync::Arc::new(Mutex::new(waiting));
    let threads = super::cores();
    for n in 0..threads {
        let waiting = std::sync::Arc::clone(&waiting);
        let spawned = std::thread::Builder::new()
            .name(format!("heavy-{n}"))
            .spawn(move || {
                crate::threads::run_in_background("a heavy-work thread");
                loop {
                    let job = waiting
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .recv();
                    let Ok(job) = job else { return };
                    // A panicking job loses its own answer only (its sender is dropped).
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            });
        if let Err(e) = spawned {
            log::error!("heavy-work thread not started: {e}");
        }
    }
    Mutex::new(jobs)
});

/// The owners' turns of heavy work, [`PER_OWNER`] each.
static TURNS: LazyLock<Turns> = LazyLock::new(|| Turns::new(PER_OWNER));

/// Queues `job` on the pool.
fn spawn(job: Job) {
    let jobs = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    if jobs.send(job).is_err() {
        log::error!("the heavy-work pool is gone");
    }
}

/// Runs `work` on the heavy pool in `owner`'s turn (an account's id) and returns what it
/// returns.
pub(crate) async fn run<T: Send + 'static>(
    owner: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Lost> {
    let turn = TURNS.take(owner).await;
    let (done, result) = oneshot::channel();
    spawn(Box::new(move || {
        let result = work();
        drop(turn);
        let _ = done.send(result);
    }));
    result.await.map_err(|_| Lost("it panicked"))
}

/// Runs `write` on the heavy pool in `owner`'s turn (an account's id), and returns the
/// stream of what it writes into its [`Sink`], chunk by chunk as it goes. Writing fails
/// with `BrokenPipe` once the stream is dropped (the client went away), which ends the
/// work early; an error of `write` ends the stream with it.
pub(crate) async fn stream(
    owner: &str,
    write: impl FnOnce(&mut Sink) -> io::Result<()> + Send + 'static,
) -> impl Stream<Item = Result<Bytes, io::Error>> + 'static {
    let turn = TURNS.take(owner).await;
    let (sender, mut receiver) = mpsc::channel(CHUNKS);
    spawn(Box::new(move || {
        let _turn = turn;
        let mut sink = Sink {
            sender,
            buffer: BytesMut::with_capacity(CHUNK_BYTES),
        };
        let written = write(&mut sink).and_then(|()| io::Write::flush(&mut sink));
        if let Err(e) = written {
            if e.kind() != io::ErrorKind::BrokenPipe {
                let _ = sink.sender.blocking_send(Err(e));
            }
        }
    }));
    futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}

/// Where a [`stream`]'s work writes its answer: chunks of [`CHUNK_BYTES`] handed to the
/// answer as they fill, waiting while [`CHUNKS`] of them wait for the client.
pub(crate) struct Sink {
    sender: mpsc::Sender<Result<Bytes, io::Error>>,
    buffer: BytesMut,
}

impl Sink {
    /// Hands the gathered bytes to the answer.
    fn send(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = self.buffer.split().freeze();
        self.sender
            .blocking_send(Ok(chunk))
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl io::Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use std::io::Write;

    #[actix_web::test]
    async fn a_stream_hands_over_what_is_written_in_chunks() {
        let chunks: Vec<Bytes> = stream("u", |sink| {
            for _ in 0..10 {
                sink.write_all(&[b'x'; 10_000])?;
            }
            Ok(())
        })
        .await
        .map(|chunk| chunk.expect("no error"))
        .collect()
        .await;
        assert_eq!(chunks.iter().map(Bytes::len).sum::<usize>(), 100_000);
        assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    }

    #[actix_web::test]
    async fn dropping_the_stream_stops_the_work() {
        let (done, finished) = tokio::sync::oneshot::channel();
        let mut answer = Box::pin(
            stream("u", move |sink| {
                let mut written = 0usize;
                let result = loop {
                    if let Err(e) = sink.write_all(&[0; 1024]) {
                        break Err(e);
                    }
                    written += 1024;
                    if written > 1 << 30 {
                        break Ok(());
                    }
                };
                let _ = done.send((written, result.is_err()));
                Ok(())
            })
            .await,
        );
        let _ = answer.next().await;
        drop(answer);
        let (written, stopped) = finished.await.expect("the work ends");
        assert!(stopped, "the work ran on to the end");
        assert!(written < 1 << 20, "wrote {written} bytes");
    }

    #[actix_web::test]
    async fn an_owners_second_piece_waits_for_its_first_and_others_do_not() {
        let (release, released) = std::sync::mpsc::channel::<()>();
        let first = actix_web::rt::spawn(run("a", move || released.recv().is_ok()));
        // The first piece holds a's turn until it is released.
        let second = actix_web::rt::spawn(run("a", || "second"));
        let other = run("b", || "other").await.unwrap();
        assert_eq!(other, "other", "b's work does not wait for a's");
        actix_web::rt::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(
            !second.is_finished(),
            "a's second piece waits for its first"
        );
        release.send(()).unwrap();
        assert!(first.await.unwrap().unwrap());
        assert_eq!(second.await.unwrap().unwrap(), "second");
        assert!(!TURNS.busy("a"), "a is forgotten");
    }
}
