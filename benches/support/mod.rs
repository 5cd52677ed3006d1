//! What the benches share: raw HTTP/1.1 keep-alive exchanges, a load driver, latencies
//! gathered from its threads, and percentiles.

// Each bench uses a part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One request as raw HTTP/1.1 bytes, with `token` as its bearer token.
pub fn request(token: &str, method: &str, path: &str, body: Option<&str>) -> Vec<u8> {
    let mut text =
        format!("{method} {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n");
    if let Some(body) = body {
        text.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    text.push_str("\r\n");
    text.push_str(body.unwrap_or(""));
    text.into_bytes()
}

/// A keep-alive connection to `addr`.
pub fn connect(addr: SocketAddr) -> BufReader<TcpStream> {
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).unwrap();
    BufReader::new(stream)
}

/// Sends one request on a keep-alive connection and reads the whole response: its status
/// and body.
pub fn exchange(reader: &mut BufReader<TcpStream>, bytes: &[u8]) -> (u16, Vec<u8>) {
    reader.get_mut().write_all(bytes).expect("send");
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut length = 0;
    loop {
        line.clear();
        reader.read_line(&mut line).expect("header");
        if line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("body");
    (status, body)
}

/// Drives `addr` with `connections` keep-alive connections for `seconds`, connection `c`
/// sending `make(c)`, `make(c + connections)`, ...; returns requests per second and the
/// sorted latencies. Every answer must be a 2xx.
pub fn drive(
    addr: SocketAddr,
    connections: usize,
    seconds: f64,
    make: impl Fn(usize) -> Vec<u8> + Send + Sync + Copy + 'static,
) -> (f64, Vec<Duration>) {
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(seconds);
    let threads: Vec<_> = (0..connections)
        .map(|c| {
            std::thread::spawn(move || {
                let mut reader = connect(addr);
                let mut latencies = Vec::new();
                let mut i = c;
                while Instant::now() < until {
                    let bytes = make(i);
                    let sent = Instant::now();
                    let (status, _) = exchange(&mut reader, &bytes);
                    assert!((200..300).contains(&status), "status {status}");
                    latencies.push(sent.elapsed());
                    i += connections;
                }
                latencies
            })
        })
        .collect();
    let latencies = gather(threads);
    let elapsed = started.elapsed().as_secs_f64();
    (latencies.len() as f64 / elapsed, latencies)
}

/// Every latency the `threads` measured, sorted.
pub fn gather(threads: Vec<JoinHandle<Vec<Duration>>>) -> Vec<Duration> {
    let mut latencies: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a bench thread panicked"))
        .collect();
    latencies.sort();
    latencies
}

/// The `p` percentile (0 to 1) of `sorted`, in milliseconds.
pub fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1e3
}
