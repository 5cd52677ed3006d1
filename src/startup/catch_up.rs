//! The first step of a graceful shutdown: taking in the requests that reached the server
//! before the signal, so that they are in flight when the gate closes.
//!
//! # The window (issue 14)
//!
//! A request whose head (and part of its body) the client sent before SIGTERM can still be
//! on its way *inside* the server when the signal is handled: its connection in the listen
//! queue (completed by the kernel, not yet accepted), accepted but not yet handed to a
//! worker, or handed over with the head in the socket buffer but not yet read by its HTTP/1
//! dispatcher. Closing the gate and calling `ServerHandle::stop(true)` at once, as the
//! shutdown did, lost every such request:
//! - actix-http's graceful drain (the dispatcher's `DRAINING`, notified by `stop(true)`)
//!   never starts a request it has not decoded yet: the connection is closed without any
//!   response (the common case, as soon as the workers lag a little behind the socket);
//! - a head decoded after the gate closed but before the drain reached it got a 503;
//! - a worker that gets `Stop` drops the connections still in its channel, and an idle one
//!   exits at once, so the acceptor's last connection meets "No workers" and is dropped;
//! - the acceptor stops and closes its listener: connections still queued are reset.
//!
//! Only a request whose head was already decoded (its body being read) was in flight. The
//! end-to-end test `a_request_half_sent_when_sigterm_arrives_is_still_answered` (head and
//! half a body, SIGTERM 0 to 5 ms later, the rest of the body 300 ms after that) lost 27 to
//! 30 of its 120 tries this way on a busy two-core machine: no answer, or a 503.
//!
//! # The fix
//!
//! A request the client sent before the signal is in flight: the contract's "give in-flight
//! requests up to 10 s (body reads included)" cannot depend on how far the server's own
//! threads had got with the bytes. So before the gate closes and the actix shutdown starts,
//! [`catch_up`]:
//! 1. waits [`SETTLE`]: the acceptor hands a connection to a worker right after taking it
//!    from the queue, a step nothing outside it can see, and the kernel may still be
//!    completing a connection whose client already wrote to it (without this step, 3 of
//!    about 840 tries were still lost: the acceptor had taken the connection before the
//!    queue was looked at and handed it over about 2 ms after the rounds);
//! 2. waits until the listening sockets have no connection queued: the acceptor takes them
//!    in order, so every one queued at the signal has then been taken;
//! 3. has every worker let its I/O driver and its queued tasks run a few rounds: that
//!    dispatches the connections it was sent, and their dispatchers read and start the
//!    requests whose heads have arrived.
//!
//! Those requests pass the still-open gate and are in flight when the drain begins; their
//! bodies are read, cut off by the body timeout as before. A request whose head completes
//! after the catch-up is a new one: 503 (or, once the drain reached its connection, the
//! connection closes unanswered, as HTTP/1.1 allows for a request the server has not
//! started). The catch-up takes [`SETTLE`] and a fraction of a millisecond more on an idle
//! server, never more than [`CATCH_UP_LIMIT`] (so the exit stays within 15 s); requests
//! that arrive while it runs are served like those just before the signal.

use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix::{Arbiter, ArbiterHandle};
use futures_util::future::join_all;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use tokio::sync::oneshot;

/// The longest a catch-up may take; what has not arrived by then is not waited for.
const CATCH_UP_LIMIT: Duration = Duration::from_millis(250);

/// How long the acceptor (and the kernel) get to hand over what they took in before the
/// signal: the one step of the catch-up that cannot be observed, only waited for.
const SETTLE: Duration = Duration::from_millis(20);

/// How many times each worker lets its I/O driver and queued tasks run: a connection in its
/// channel needs one round to get a dispatcher, one for the dispatcher's socket to be
/// reported readable, one to read and start the request; one more for good measure.
const WORKER_ROUNDS: usize = 4;

/// How often the listen queues are looked at while they hold connections.
const QUEUE_POLL: Duration = Duration::from_millis(1);

/// The HTTP server's worker threads, each registered by the app factory that runs on it.
#[derive(Clone, Default)]
pub(super) struct Workers(Arc<Mutex<Vec<ArbiterHandle>>>);

impl Workers {
    /// Registers the thread this runs on (the app factory runs once on every worker).
    pub(super) fn register_current(&self) {
        if let Some(arbiter) = Arbiter::try_current() {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(arbiter);
        }
    }

    /// Has every registered worker run [`WORKER_ROUNDS`] rounds; resolves when all have (a
    /// worker that is gone counts as done).
    async fn run_rounds(&self) {
        let arbiters = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let rounds = arbiters.iter().filter_map(|arbiter| {
            let (done, finished) = oneshot::channel();
            // `yield_now` resumes only after the worker's I/O driver has been polled, and
            // behind the tasks that poll woke: each round lets every connection with data
            // take one step.
            let spawned = arbiter.spawn(async move {
                for _ in 0..WORKER_ROUNDS {
                    tokio::task::yield_now().await;
                }
                let _ = done.send(());
            });
            spawned.then_some(finished)
        });
        join_all(rounds).await;
    }
}

/// Duplicates of the server's listening sockets, to see whether connections wait in their
/// queues. They keep the sockets open: drop them before the server stops, or connections
/// made after it stopped would wait in a queue nobody takes from instead of being refused.
pub(super) struct ListenQueues(Vec<TcpListener>);

impl ListenQueues {
    /// Watches `listeners` (through duplicates).
    pub(super) fn watch(listeners: &[TcpListener]) -> std::io::Result<ListenQueues> {
        listeners
            .iter()
            .map(TcpListener::try_clone)
            .collect::<std::io::Result<_>>()
            .map(ListenQueues)
    }

    /// Whether a connection waits to be accepted (a listening socket is readable then).
    fn any_queued(&self) -> bool {
        let mut fds: Vec<PollFd<'_>> = self
            .0
            .iter()
            .map(|listener| PollFd::new(listener, PollFlags::IN))
            .collect();
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0)
            && fds.iter().any(|fd| fd.revents().contains(PollFlags::IN))
    }
}

/// Waits until the server has taken in what reached it before now (see the module docs):
/// [`SETTLE`], the listen queues drained by the acceptor, then [`WORKER_ROUNDS`] rounds on
/// every worker. Never longer than [`CATCH_UP_LIMIT`]. Returns how long it took.
pub(super) async fn catch_up(queues: ListenQueues, workers: &Workers) -> Duration {
    let started = Instant::now();
    let deadline = started + CATCH_UP_LIMIT;
    actix_web::rt::time::sleep(SETTLE).await;
    while queues.any_queued() {
        if Instant::now() >= deadline {
            log::warn!("connections still queued after {CATCH_UP_LIMIT:?}; shutting down anyway");
            return started.elapsed();
        }
        actix_web::rt::time::sleep(QUEUE_POLL).await;
    }
    drop(queues);
    let left = deadline.saturating_duration_since(Instant::now());
    if actix_web::rt::time::timeout(left, workers.run_rounds())
        .await
        .is_err()
    {
        log::warn!("workers did not catch up within {CATCH_UP_LIMIT:?}; shutting down anyway");
    }
    started.elapsed()
}

#[cfg(test)]
mod tests {
    use std::net::{TcpListener, TcpStream};

    use super::*;

    #[test]
    fn a_listen_queue_is_seen_until_its_connection_is_accepted() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let queues = ListenQueues::watch(std::slice::from_ref(&listener)).unwrap();
        assert!(!queues.any_queued());
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        assert!(queues.any_queued());
        let _accepted = listener.accept().unwrap();
        assert!(!queues.any_queued());
    }

    #[actix_web::test]
    async fn a_catch_up_runs_rounds_on_every_registered_worker() {
        let workers = Workers::default();
        let mut arbiters: Vec<actix::Arbiter> = (0..2).map(|_| actix::Arbiter::new()).collect();
        for arbiter in &arbiters {
            let workers = workers.clone();
            let (registered, done) = oneshot::channel();
            arbiter.spawn(async move {
                workers.register_current();
                let _ = registered.send(());
            });
            done.await.unwrap();
        }
        assert_eq!(workers.0.lock().unwrap().len(), 2);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let watch = || ListenQueues::watch(std::slice::from_ref(&listener)).unwrap();
        let took = catch_up(watch(), &workers).await;
        assert!(took < CATCH_UP_LIMIT, "{took:?}");

        // A worker that is gone does not hold the catch-up.
        let gone = arbiters.remove(0);
        gone.stop();
        gone.join().unwrap();
        let took = catch_up(watch(), &workers).await;
        assert!(took < CATCH_UP_LIMIT, "{took:?}");

        // A connection nobody accepts holds it to its limit, no longer.
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let took = catch_up(watch(), &workers).await;
        assert!(took >= CATCH_UP_LIMIT, "{took:?}");
        assert!(took < CATCH_UP_LIMIT * 2, "{took:?}");
    }
}
