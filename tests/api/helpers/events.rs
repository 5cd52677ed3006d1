//! Server-sent events read from a running stream, as the change stream (docs §12) and live
//! views (§24) send them: one reader for every test of a stream.

use std::pin::Pin;
use std::time::Duration;

use actix_web::http::Method;
use actix_web::web::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::Value;

use super::server::TestApp;

/// How long [`Events::next`] waits for more bytes before it gives up.
const PATIENCE: Duration = Duration::from_secs(10);

/// One event: its `event:` name (`message` when it has none), its `id:` (0 when it has
/// none) and its `data:` as JSON.
#[derive(Debug, Clone)]
pub struct Event {
    pub name: String,
    pub id: u64,
    pub data: Value,
}

/// An open `text/event-stream` response, read as events; keep-alive comments skipped.
pub struct Events {
    stream: Pin<Box<dyn Stream<Item = Result<Bytes, awc::error::PayloadError>>>>,
    buffer: String,
}

impl Events {
    /// Opens `path` (with its query) with `token` and `headers`; the answer must be `200
    /// text/event-stream`.
    pub async fn open(app: &TestApp, token: &str, path: &str, headers: &[(&str, &str)]) -> Events {
        let mut request = app
            .request(Method::GET, path)
            .insert_header(("Authorization", format!("Bearer {token}")))
            .timeout(Duration::from_secs(120));
        for (name, value) in headers {
            request = request.insert_header((*name, *value));
        }
        let mut response = request.send().await.expect("stream opens");
        assert_eq!(response.status().as_u16(), 200, "{path} did not open");
        let content_type = response.headers().get("content-type").unwrap();
        assert_eq!(content_type, "text/event-stream");
        Events {
            stream: Box::pin(actix_web::HttpMessage::take_payload(&mut response)),
            buffer: String::new(),
        }
    }

    /// The next `n` events, or fewer if the stream ends or nothing comes for 10 s.
    pub async fn next(&mut self, n: usize) -> Vec<Event> {
        self.next_within(n, PATIENCE).await
    }

    /// The next `n` events, or fewer if the stream ends or nothing comes for `patience`.
    pub async fn next_within(&mut self, n: usize, patience: Duration) -> Vec<Event> {
        let mut events = Vec::new();
        while events.len() < n {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if !block.starts_with(':') {
                    events.push(parse(&block));
                }
                continue;
            }
            match actix_web::rt::time::timeout(patience, self.stream.next()).await {
                Ok(Some(Ok(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                _ => break,
            }
        }
        events
    }

    /// Whether the stream ends within 10 s with no event before its end.
    pub async fn ends(&mut self) -> bool {
        self.next(1).await.is_empty()
    }
}

fn parse(block: &str) -> Event {
    let field = |name: &str| block.lines().find_map(|l| l.strip_prefix(name));
    let data = field("data: ").unwrap_or_else(|| panic!("no data in {block:?}"));
    Event {
        name: field("event: ").unwrap_or("message").to_string(),
        id: field("id: ").map_or(0, |id| id.parse().expect("a numeric id")),
        data: serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}")),
    }
}

/// The names of `events`, in order.
pub fn names(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.name.as_str()).collect()
}
