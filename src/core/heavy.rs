//! The one mechanism for heavy work (§21, §27): work that grows with what a space holds or
//! with a request's body (rendering a big answer, parsing an iCalendar body, a CalDAV
//! report over a whole calendar) runs on the blocking pool, never on an HTTP worker, whose
//! other connections (other users' among them) would wait, nor on a space actor's thread.
//!
//! - [`run`] runs a closure there and hands back its result;
//! - [`stream`] runs a closure that writes an answer there and streams what it writes as
//!   it is written: the answer is never held whole, and a client that stops reading stops
//!   the work (the channel between them holds [`CHUNKS`] chunks of [`CHUNK_BYTES`]).

use std::io;

use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use tokio::sync::mpsc;

/// How many bytes the writer gathers before it hands a chunk to the answer.
pub(crate) const CHUNK_BYTES: usize = 32 * 1024;
/// How many chunks may wait for the client before the writer waits too.
pub(crate) const CHUNKS: usize = 4;

/// Why heavy work gave no result.
#[derive(Debug, thiserror::Error)]
#[error("the blocking pool could not run the work: {0}")]
pub(crate) struct Lost(String);

/// Runs `work` on the blocking pool and returns what it returns.
pub(crate) async fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Lost> {
    actix_web::web::block(work)
        .await
        .map_err(|e| Lost(e.to_string()))
}

/// Runs `write` on the blocking pool, and returns the stream of what it writes into its
/// [`Sink`], chunk by chunk as it goes. Writing fails with `BrokenPipe` once the stream is
/// dropped (the client went away), which ends the work early; an error of `write` ends
/// the stream with it.
pub(crate) fn stream(
    write: impl FnOnce(&mut Sink) -> io::Result<()> + Send + 'static,
) -> impl Stream<Item = Result<Bytes, io::Error>> + 'static {
    let (sender, mut receiver) = mpsc::channel(CHUNKS);
    actix_web::rt::task::spawn_blocking(move || {
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
    });
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
        let chunks: Vec<Bytes> = stream(|sink| {
            for _ in 0..10 {
                sink.write_all(&[b'x'; 10_000])?;
            }
            Ok(())
        })
        .map(|chunk| chunk.expect("no error"))
        .collect()
        .await;
        assert_eq!(chunks.iter().map(Bytes::len).sum::<usize>(), 100_000);
        assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    }

    #[actix_web::test]
    async fn dropping_the_stream_stops_the_work() {
        let (done, finished) = tokio::sync::oneshot::channel();
        let mut answer = Box::pin(stream(move |sink| {
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
        }));
        let _ = answer.next().await;
        drop(answer);
        let (written, stopped) = finished.await.expect("the work ends");
        assert!(stopped, "the work ran on to the end");
        assert!(written < 1 << 20, "wrote {written} bytes");
    }
}
