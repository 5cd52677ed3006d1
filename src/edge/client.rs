//! The client address of a request (docs §9a), for the failed-authentication
//! [`throttle`](super::throttle) and the access log line, both in the middleware [`front`](super::front).
//!
//! Without `--trusted-proxy` it is the peer address. When the peer is in one of the
//! trusted blocks, `X-Forwarded-For` is read right to left, from the entry the peer itself
//! wrote: each trusted address is a hop to step over, and the first address that is not
//! trusted is the client. Everything left of that was written by the client (or by hops no
//! one vouches for) and is never believed, so a client cannot pick its own address to dodge
//! a lockout; and a lockout shuts out that client, not everyone behind the proxy.
//!
//! Where the walk stops early, the answer is the last address it accepted: the left-most
//! trusted hop it stepped over, or the peer when it stepped over none. That happens
//!
//! - at an entry that is not an address (`unknown`, an obfuscated RFC 7239 name, garbage):
//!   going on past it would read entries a client may have written, and picking one of
//!   those would let a client choose its lockout bucket at will. Every address the walk has
//!   accepted was written by a trusted hop (or is the peer itself), so it is genuine, and it
//!   is the hop nearest the client that anyone vouches for. Falling back to the peer instead
//!   would be as safe against dodging but coarser: one client inside a trusted block could
//!   then lock out everyone behind the front proxy;
//! - at the left end of the list, when every entry is trusted (a request from inside a
//!   trusted block): the left-most entry is the client, for the same reason.
//!
//! Several `X-Forwarded-For` headers are one list, in the order they came (RFC 9110 §5.3);
//! empty list elements are ignored (RFC 9110 §5.6.1). An entry may carry a port
//! (`192.0.2.1:4711`, `[2001:db8::1]:4711`), as some proxies write it. IPv4 addresses
//! mapped into IPv6 (`::ffff:192.0.2.1`, a dual-stack listener's peers) count as the IPv4
//! address, so `127.0.0.1/32` also trusts a proxy that reaches a `[::]` listener over
//! IPv4.
//!
//! The address is worked out once per request, by [`client_addr`]: with no proxy trusted,
//! or a peer that is not one, it is the peer (nothing to parse, nothing kept); otherwise it
//! is kept in the request's extensions, so the throttle and the log agree and the header is
//! parsed once.

use std::net::{IpAddr, SocketAddr};

use actix_web::dev::ServiceRequest;
use actix_web::http::header::{HeaderValue, X_FORWARDED_FOR};
use actix_web::HttpMessage;
use ipnet::IpNet;

/// The address blocks whose `X-Forwarded-For` is believed (`--trusted-proxy`); empty by
/// default, when the client address is always the peer.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Trusts the proxies in `blocks`.
    pub(crate) fn new(blocks: Vec<IpNet>) -> TrustedProxies {
        TrustedProxies(blocks)
    }

    /// Whether `ip` is in one of the trusted blocks.
    pub(crate) fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|block| block.contains(&ip))
    }
}

/// The client address, once worked out from a proxy's `X-Forwarded-For`.
#[derive(Debug, Clone, Copy)]
struct ClientAddr(IpAddr);

/// The client address of `req` (see the module doc); `None` only for a request with no
/// peer address (an in-process test request).
pub(crate) fn client_addr(req: &ServiceRequest) -> Option<IpAddr> {
    let peer = req.peer_addr()?.ip().to_canonical();
    let trusted = match super::edge(req.request()).map(|edge| &edge.trusted_proxies) {
        Some(trusted) if trusted.contains(peer) => trusted,
        _ => return Some(peer),
    };
    if let Some(ClientAddr(client)) = req.extensions().get::<ClientAddr>() {
        return Some(*client);
    }
    let headers = req.headers().get_all(X_FORWARDED_FOR);
    let client = client_address(peer, trusted, headers.map(HeaderValue::as_bytes));
    req.extensions_mut().insert(ClientAddr(client));
    Some(client)
}

/// The client behind `peer`, given the `X-Forwarded-For` header values in the order they
/// came (see the module doc for the rules).
pub(crate) fn client_address<'a>(
    peer: IpAddr,
    trusted: &TrustedProxies,
    forwarded_for: impl DoubleEndedIterator<Item = &'a [u8]>,
) -> IpAddr {
    let mut client = peer.to_canonical();
    if !trusted.contains(client) {
        return client;
    }
    let entries = forwarded_for
        .rev()
        .flat_map(|value| value.rsplit(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .filter(|entry| !entry.is_empty());
    for entry in entries {
        let Some(hop) = parse_entry(entry) else {
            break;
        };
        client = hop;
        if !trusted.contains(hop) {
            break;
        }
    }
    client
}

/// One `X-Forwarded-For` entry: an address, perhaps with a port; `None` if it is neither.
fn parse_entry(entry: &[u8]) -> Option<IpAddr> {
    let text = std::str::from_utf8(entry).ok()?;
    let ip = match text.parse::<IpAddr>() {
        Ok(ip) => ip,
        Err(_) => text.parse::<SocketAddr>().ok()?.ip(),
    };
    Some(ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trusted(blocks: &[&str]) -> TrustedProxies {
        TrustedProxies::new(blocks.iter().map(|b| b.parse().unwrap()).collect())
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// The client behind `peer` with these `X-Forwarded-For` header values.
    fn client(trust: &TrustedProxies, peer: &str, headers: &[&str]) -> IpAddr {
        client_address(ip(peer), trust, headers.iter().map(|h| h.as_bytes()))
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_address_of_a_trusted_chain() {
        let trust = trusted(&["10.0.0.0/8", "127.0.0.1/32"]);
        let chain = ["198.51.100.9, 203.0.113.7, 10.1.1.1, 10.2.2.2"];
        assert_eq!(client(&trust, "127.0.0.1", &chain), ip("203.0.113.7"));
        // The proxy's own entry is all there is.
        assert_eq!(
            client(&trust, "127.0.0.1", &["203.0.113.7"]),
            ip("203.0.113.7")
        );
        // Several headers are one list, in order: the last header holds the right end.
        let split = ["198.51.100.9", "203.0.113.7, 10.1.1.1", "10.2.2.2"];
        assert_eq!(client(&trust, "127.0.0.1", &split), ip("203.0.113.7"));
        // Empty list elements are skipped, whitespace is not part of an address.
        let sparse = [" 203.0.113.7 ,, 10.1.1.1,", ""];
        assert_eq!(client(&trust, "127.0.0.1", &sparse), ip("203.0.113.7"));
        // A port on an entry is not part of the address.
        let ported = ["203.0.113.7:4711, 10.1.1.1"];
        assert_eq!(client(&trust, "127.0.0.1", &ported), ip("203.0.113.7"));
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let trust = trusted(&["10.0.0.0/8"]);
        assert_eq!(
            client(&trust, "192.0.2.50", &["203.0.113.7"]),
            ip("192.0.2.50")
        );
        let nobody = TrustedProxies::default();
        assert_eq!(
            client(&nobody, "127.0.0.1", &["203.0.113.7"]),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn a_trusted_peer_without_the_header_is_the_client() {
        let trust = trusted(&["127.0.0.1/32"]);
        assert_eq!(client(&trust, "127.0.0.1", &[]), ip("127.0.0.1"));
        assert_eq!(client(&trust, "127.0.0.1", &[" , "]), ip("127.0.0.1"));
    }

    #[test]
    fn a_malformed_entry_stops_the_walk_at_the_last_address_it_accepted() {
        let trust = trusted(&["10.0.0.0/8", "127.0.0.1/32"]);
        // Right of the garbage is a trusted hop: that hop, never what the client wrote.
        let chain = ["198.51.100.1, nonsense, 10.1.1.1"];
        assert_eq!(client(&trust, "127.0.0.1", &chain), ip("10.1.1.1"));
        // The peer's own entry is garbage: the peer.
        for garbage in [
            "unknown",
            "_hidden",
            "203.0.113.7/24",
            "999.1.1.1",
            "a\u{e9}",
        ] {
            let chain = format!("198.51.100.1, {garbage}");
            assert_eq!(
                client(&trust, "127.0.0.1", &[&chain]),
                ip("127.0.0.1"),
                "{garbage:?}"
            );
        }
        // Garbage left of the client is never reached.
        let chain = ["nonsense, 203.0.113.7, 10.1.1.1"];
        assert_eq!(client(&trust, "127.0.0.1", &chain), ip("203.0.113.7"));
        // Bytes that are not UTF-8 are one malformed entry.
        let bytes: [&[u8]; 1] = [b"198.51.100.1, \xff\xfe, 10.1.1.1"];
        assert_eq!(
            client_address(ip("127.0.0.1"), &trust, bytes.into_iter()),
            ip("10.1.1.1")
        );
    }

    #[test]
    fn an_all_trusted_chain_ends_at_its_leftmost_hop() {
        let trust = trusted(&["10.0.0.0/8", "127.0.0.1/32"]);
        let chain = ["10.9.9.9, 10.1.1.1"];
        assert_eq!(client(&trust, "127.0.0.1", &chain), ip("10.9.9.9"));
    }

    #[test]
    fn ipv6_peers_and_entries_are_matched_and_mapped_ipv4_counts_as_ipv4() {
        let trust = trusted(&["2001:db8:1::/48", "127.0.0.1/32"]);
        let chain = ["2001:db8:ff::7, 2001:db8:1::2"];
        assert_eq!(
            client(&trust, "2001:db8:1::1", &chain),
            ip("2001:db8:ff::7")
        );
        let bracketed = ["[2001:db8:ff::7]:4711"];
        assert_eq!(
            client(&trust, "2001:db8:1::1", &bracketed),
            ip("2001:db8:ff::7")
        );
        // A dual-stack listener sees an IPv4 proxy as ::ffff:127.0.0.1.
        assert_eq!(
            client(&trust, "::ffff:127.0.0.1", &["203.0.113.7"]),
            ip("203.0.113.7")
        );
        assert_eq!(
            client(&trust, "::ffff:127.0.0.1", &["::ffff:203.0.113.7"]),
            ip("203.0.113.7")
        );
        // An untrusted IPv6 peer is the client.
        assert_eq!(
            client(&trust, "2001:db8:2::1", &["203.0.113.7"]),
            ip("2001:db8:2::1")
        );
    }
}
