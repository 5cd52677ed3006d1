//! A journal whose writer is a test: what a space actor queues waits until the test
//! answers it, so the actor's group commit and take-back can be driven step by step.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;

/// The test's end of a fake journal.
pub(crate) struct Writer {
    requests: Receiver<Request>,
    /// Appends queued and not answered yet, oldest first.
    queued: VecDeque<Done>,
}

impl Writer {
    /// A journal of `durability` whose requests come to the returned writer.
    pub(crate) fn start(durability: Durability) -> (Journal, Writer) {
        let (requests, receiver) = mpsc::channel();
        let journal = Journal {
            requests,
            health: Arc::new(Health::new(Duration::from_secs(60))),
            durability,
        };
        let writer = Writer {
            requests: receiver,
            queued: VecDeque::new(),
        };
        (journal, writer)
    }

    /// Waits (yielding to the test's runtime, up to 5 s) until `count` appends are
    /// queued and not yet answered; flushes are answered at once.
    pub(crate) async fn queued(&mut self, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.queued.len() < count {
            assert!(Instant::now() < deadline, "{count} appends never came");
            match self.requests.try_recv() {
                Ok(Request::Append { done, .. }) => self.queued.push_back(done),
                Ok(Request::Flush(done)) => done(Ok(())),
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
            }
        }
    }

    /// How many appends were queued and not answered, once nothing new comes within
    /// 50 ms.
    pub(crate) async fn settled(&mut self) -> usize {
        let mut seen = self.queued.len();
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            while let Ok(request) = self.requests.try_recv() {
                match request {
                    Request::Append { done, .. } => self.queued.push_back(done),
                    Request::Flush(done) => done(Ok(())),
                    _ => {}
                }
            }
            if self.queued.len() == seen {
                return seen;
            }
            seen = self.queued.len();
        }
    }

    /// Answers the oldest queued append with `result`.
    pub(crate) fn answer(&mut self, result: Result<(), StorageError>) {
        let done = self.queued.pop_front().expect("an append is queued");
        done(result);
    }
}
