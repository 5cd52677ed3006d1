//! The HTTP client of the webhook sender (docs §19): actix's own (`awc`), on the
//! sender's arbiter, with rustls over the system's roots, no redirects, a 10 s bound on the
//! status line (connect included) and answers read up to 64 KiB.
//!
//! The address check is made on the addresses the connection uses: the client's TCP
//! connector resolves names with [`Checked`], which refuses a name any of whose addresses
//! [`refused`](crate::model::webhook::refused) names, so a DNS answer that changes between a check and the connection
//! (rebinding) cannot slip through. A URL whose host is an address literal is never
//! resolved; [`Sender::post`] checks it before connecting.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use actix_service::ServiceExt;
use actix_tls::connect::{Connection, Connector as TcpConnector, Resolve, Resolver};
use actix_web::http::Uri;
use actix_web::web::Bytes;
use futures_util::future::LocalBoxFuture;
use tokio::net::TcpStream;

use crate::core::deliveries::checked;
use crate::model::webhook::{retry_after, url_host};

/// A delivery is acknowledged by a `2xx` status line within this long of its start.
pub(super) const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes of an answer's body read (a longer one is still an acknowledgement).
const MAX_ANSWER_BYTES: usize = 64 << 10;

/// What one POST came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Sent {
    /// The receiver answered with this status; for a `429` or `503`, the delay its
    /// `Retry-After` asked for.
    Status(u16, Option<Duration>),
    /// No answer: why (a refused address, a timeout, a connection error).
    Failed(String),
}

/// Resolves names for the client's connections, refusing those §19 refuses (unless private
/// addresses are allowed).
struct Checked {
    allow_private: bool,
}

impl Resolve for Checked {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> LocalBoxFuture<'a, Result<Vec<SocketAddr>, Box<dyn std::error::Error>>> {
        Box::pin(async move {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
                Ok(ip) => vec![SocketAddr::new(ip, port)],
                Err(_) => tokio::net::lookup_host((host, port)).await?.collect(),
            };
            match checked(addrs.iter().map(SocketAddr::ip), self.allow_private) {
                Some(why) => Err(why.into()),
                None => Ok(addrs),
            }
        })
    }
}

/// Sends deliveries; one per sender arbiter (the client is not `Send`).
pub(super) struct Sender {
    client: awc::Client,
    allow_private: bool,
}

impl Sender {
    /// A client that refuses the addresses §19 refuses unless `allow_private`.
    pub(super) fn new(allow_private: bool) -> Sender {
        let tcp = TcpConnector::new(Resolver::custom(Checked { allow_private }))
            .service()
            .map(no_delay);
        let connector = awc::Connector::new()
            .connector(tcp)
            .timeout(ANSWER_TIMEOUT)
            .rustls_0_23(Arc::new(tls_config()));
        let client = awc::Client::builder()
            .connector(connector)
            .disable_redirects()
            .timeout(ANSWER_TIMEOUT)
            .finish();
        Sender {
            client,
            allow_private,
        }
    }

    /// POSTs `body` to `url` with `headers`; what came of it within [`ANSWER_TIMEOUT`].
    pub(super) async fn post(&self, url: &str, headers: &[(&str, String)], body: Bytes) -> Sent {
        if let Some(ip) = url_host(url).and_then(|h| h.parse::<IpAddr>().ok()) {
            if let Some(why) = checked([ip], self.allow_private) {
                return Sent::Failed(why);
            }
        }
        let mut request = self
            .client
            .post(url)
            .insert_header(("content-type", "application/json"));
        for (name, value) in headers {
            request = request.insert_header((*name, value.as_str()));
        }
        let sent = tokio::time::timeout(ANSWER_TIMEOUT, request.send_body(body)).await;
        let mut answer = match sent {
            Err(_) => {
                return Sent::Failed(format!("no answer within {} s", ANSWER_TIMEOUT.as_secs()))
            }
            Ok(Err(e)) => return Sent::Failed(e.to_string()),
            Ok(Ok(answer)) => answer,
        };
        let status = answer.status().as_u16();
        let wait = match status {
            429 | 503 => answer
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry_after(v, SystemTime::now())),
            _ => None,
        };
        // The body is read (so the connection can be used again) but not waited for long.
        let _ = tokio::time::timeout(
            Duration::from_secs(1),
            answer.body().limit(MAX_ANSWER_BYTES),
        )
        .await;
        Sent::Status(status, wait)
    }
}

/// `connection` without Nagle's algorithm: awc writes a request's head and body apart, and
/// with Nagle the body would wait for the receiver's (delayed) acknowledgement of the head.
fn no_delay(connection: Connection<Uri, TcpStream>) -> Connection<Uri, TcpStream> {
    if let Err(e) = connection.io_ref().set_nodelay(true) {
        log::debug!("webhooks: TCP_NODELAY not set: {e}");
    }
    connection
}

/// rustls over the system's root certificates, HTTP/1.1 only.
fn tls_config() -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for error in &native.errors {
        log::warn!("webhooks: a system root certificate could not be read: {error}");
    }
    let (added, _) = roots.add_parsable_certificates(native.certs);
    if added == 0 {
        log::warn!("webhooks: no system root certificates; https deliveries will fail");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn a_delivery_to_a_refused_address_fails_before_connecting() {
        let sender = Sender::new(false);
        for url in ["http://127.0.0.1:9/", "http://localhost:9/"] {
            match sender.post(url, &[], Bytes::from_static(b"{}")).await {
                Sent::Failed(why) => assert!(why.contains("refused address"), "{url}: {why}"),
                other => panic!("{url}: {other:?}"),
            }
        }
    }
}
