//! One keep-alive HTTP/1.1 connection to the server, spoken by hand over a tokio
//! `TcpStream`: a request is written in one `write_all`, the answer's head is parsed with
//! `httparse` and its body read by `Content-Length` or chunks. Nothing more is needed to
//! talk to taskd, and it costs about what wrk's C loop costs per request.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The most response headers read; taskd sends about ten.
const MAX_HEADERS: usize = 32;
/// The biggest response head accepted.
const MAX_HEAD: usize = 64 << 10;

/// Where the server is: `--url` taken apart.
#[derive(Debug, Clone)]
pub struct Target {
    /// The address connected to.
    pub addr: SocketAddr,
    /// The `Host` header: the URL's authority.
    pub host: String,
    /// The path prefix before `/api/v1` and `/healthz` (empty at the root).
    pub base: String,
}

impl Target {
    /// Reads `http://HOST:PORT[/PREFIX]`.
    pub fn parse(url: &str) -> Result<Target, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url}: only http:// URLs are supported"))?;
        let (authority, base) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let with_port = if authority.rsplit(':').next().is_some_and(|p| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && !authority.ends_with(']')
        }) {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        let addr = std::net::ToSocketAddrs::to_socket_addrs(&with_port)
            .map_err(|e| format!("{url}: {e}"))?
            .next()
            .ok_or_else(|| format!("{url}: the host has no address"))?;
        Ok(Target {
            addr,
            host: authority.to_string(),
            base: base.trim_end_matches('/').to_string(),
        })
    }
}

/// Why an exchange failed before a whole answer came.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Connecting, writing or reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The server closed the connection before the whole answer.
    #[error("the server closed the connection")]
    Closed,
    /// The answer is not HTTP/1.1 as this client reads it.
    #[error("malformed answer: {0}")]
    Malformed(&'static str),
    /// No whole answer within the timeout.
    #[error("no answer in time")]
    Timeout,
}

impl ClientError {
    /// Whether this is how a connection the server closed while idle fails: the end of
    /// the stream, or a reset or broken pipe.
    fn is_idle_close(&self) -> bool {
        match self {
            ClientError::Closed => true,
            ClientError::Io(e) => matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe
            ),
            _ => false,
        }
    }

    /// A short name for the error table: `io`, `closed`, `malformed` or `timeout`.
    pub fn code(&self) -> &'static str {
        match self {
            ClientError::Io(_) => "io",
            ClientError::Closed => "closed",
            ClientError::Malformed(_) => "malformed",
            ClientError::Timeout => "timeout",
        }
    }
}

/// A whole answer: its status and body (the body is valid until the next exchange).
#[derive(Debug)]
pub struct Answer<'a> {
    /// The status code.
    pub status: u16,
    /// The body, de-chunked.
    pub body: &'a [u8],
}

/// A keep-alive connection; reconnects by itself after the server closed it.
pub struct Connection {
    target: Target,
    timeout: Duration,
    stream: Option<TcpStream>,
    /// The request being written, reused.
    out: Vec<u8>,
    /// Bytes read: the current answer from `start`, maybe part of the next after it.
    buf: Vec<u8>,
    /// The body of a chunked answer, de-chunked.
    body: Vec<u8>,
    start: usize,
}

impl Connection {
    /// A connection to `target` (opened on the first request) whose exchanges time out
    /// after `timeout`.
    pub fn new(target: Target, timeout: Duration) -> Connection {
        Connection {
            target,
            timeout,
            stream: None,
            out: Vec::with_capacity(1024),
            buf: Vec::with_capacity(16 << 10),
            body: Vec::new(),
            start: 0,
        }
    }

    /// Sends `method path` (path below the URL's prefix) with `token` as bearer token and
    /// `body` as JSON when given, and reads the answer. After an error the connection is
    /// closed and the next request opens a new one.
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<Answer<'_>, ClientError> {
        self.out.clear();
        self.out.extend_from_slice(method.as_bytes());
        self.out.push(b' ');
        self.out.extend_from_slice(self.target.base.as_bytes());
        self.out.extend_from_slice(path.as_bytes());
        self.out.extend_from_slice(b" HTTP/1.1\r\nHost: ");
        self.out.extend_from_slice(self.target.host.as_bytes());
        self.out.extend_from_slice(b"\r\n");
        if let Some(token) = token {
            self.out.extend_from_slice(b"Authorization: Bearer ");
            self.out.extend_from_slice(token.as_bytes());
            self.out.extend_from_slice(b"\r\n");
        }
        if let Some(body) = body {
            self.out
                .extend_from_slice(b"Content-Type: application/json\r\nContent-Length: ");
            self.out
                .extend_from_slice(body.len().to_string().as_bytes());
            self.out.extend_from_slice(b"\r\n\r\n");
            self.out.extend_from_slice(body);
        } else {
            self.out.extend_from_slice(b"\r\n");
        }
        let timeout = self.timeout;
        match tokio::time::timeout(timeout, self.exchange()).await {
            Ok(Ok((status, chunked, range))) => Ok(Answer {
                status,
                body: if chunked {
                    &self.body
                } else {
                    &self.buf[range.0..range.1]
                },
            }),
            Ok(Err(e)) => {
                self.stream = None;
                Err(e)
            }
            Err(_) => {
                self.stream = None;
                Err(ClientError::Timeout)
            }
        }
    }

    /// Writes `out` and reads one answer: its status, whether the body is in `body`
    /// (chunked) or else where it is in `buf`. A kept-alive connection that the server
    /// closed while it was idle (taskd closes them after 5 s) ends without a byte of
    /// answer: the request is then sent once more on a new connection, as browsers and
    /// HTTP client libraries do, since the server never read it.
    async fn exchange(&mut self) -> Result<(u16, bool, (usize, usize)), ClientError> {
        let reused = self.stream.is_some();
        match self.exchange_once().await {
            Err(e) if reused && self.buf.is_empty() && e.is_idle_close() => {
                self.stream = None;
                self.exchange_once().await
            }
            result => result,
        }
    }

    /// One try of [`Connection::exchange`].
    async fn exchange_once(&mut self) -> Result<(u16, bool, (usize, usize)), ClientError> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(self.target.addr).await?;
            stream.set_nodelay(true)?;
            self.stream = Some(stream);
            self.buf.clear();
            self.start = 0;
        }
        let stream = self.stream.as_mut().expect("connected above");
        stream.write_all(&self.out).await?;
        // Drop the previous answer; keep what followed it.
        self.buf.drain(..self.start);
        self.start = 0;
        let (status, head, length, chunked, close) = loop {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut response = httparse::Response::new(&mut headers);
            match response.parse(&self.buf) {
                Ok(httparse::Status::Complete(head)) => {
                    let status = response.code.unwrap_or(0);
                    let mut length = None;
                    let mut chunked = false;
                    let mut close = false;
                    for h in response.headers.iter() {
                        if h.name.eq_ignore_ascii_case("content-length") {
                            length = std::str::from_utf8(h.value)
                                .ok()
                                .and_then(|v| v.trim().parse::<usize>().ok());
                        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                            chunked = h.value.eq_ignore_ascii_case(b"chunked");
                        } else if h.name.eq_ignore_ascii_case("connection") {
                            close = h.value.eq_ignore_ascii_case(b"close");
                        }
                    }
                    break (status, head, length, chunked, close);
                }
                Ok(httparse::Status::Partial) if self.buf.len() < MAX_HEAD => {
                    read_more(stream, &mut self.buf).await?
                }
                Ok(httparse::Status::Partial) => {
                    return Err(ClientError::Malformed("response head too long"))
                }
                Err(_) => return Err(ClientError::Malformed("bad response head")),
            }
        };
        let result = if chunked {
            let end = read_chunked(stream, &mut self.buf, head, &mut self.body).await?;
            self.start = end;
            (status, true, (0, 0))
        } else {
            // 204 and 304 have no body; taskd always sends a length otherwise.
            let length = match (status, length) {
                (204 | 304, _) | (100..=199, _) => 0,
                (_, Some(length)) => length,
                (_, None) => return Err(ClientError::Malformed("no Content-Length")),
            };
            while self.buf.len() < head + length {
                read_more(stream, &mut self.buf).await?;
            }
            self.start = head + length;
            (status, false, (head, head + length))
        };
        if close {
            self.stream = None;
        }
        Ok(result)
    }
}

/// Appends what the socket has to `buf`; `Closed` at the end of the stream.
async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Result<(), ClientError> {
    buf.reserve(16 << 10);
    match stream.read_buf(buf).await? {
        0 => Err(ClientError::Closed),
        _ => Ok(()),
    }
}

/// Reads a chunked body that starts at `at` in `buf` into `body`; where it ends in `buf`.
async fn read_chunked(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    mut at: usize,
    body: &mut Vec<u8>,
) -> Result<usize, ClientError> {
    body.clear();
    loop {
        let (size, line_end) = loop {
            match httparse::parse_chunk_size(&buf[at..]) {
                Ok(httparse::Status::Complete((used, size))) => break (size as usize, at + used),
                Ok(httparse::Status::Partial) => read_more(stream, buf).await?,
                Err(_) => return Err(ClientError::Malformed("bad chunk size")),
            }
        };
        // The chunk and its CRLF (after the last, empty chunk: the final CRLF, taskd sends
        // no trailers).
        while buf.len() < line_end + size + 2 {
            read_more(stream, buf).await?;
        }
        body.extend_from_slice(&buf[line_end..line_end + size]);
        at = line_end + size + 2;
        if size == 0 {
            return Ok(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gives_the_address_the_host_header_and_the_path_prefix() {
        let t = Target::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(t.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!((t.host.as_str(), t.base.as_str()), ("127.0.0.1:8080", ""));
        let t = Target::parse("http://127.0.0.1:9/taskd/").unwrap();
        assert_eq!(t.base, "/taskd");
        assert_eq!(Target::parse("http://[::1]").unwrap().addr.port(), 80);
        assert!(Target::parse("https://127.0.0.1").is_err());
    }

    #[tokio::test]
    async fn a_request_on_a_connection_the_server_closed_while_idle_is_sent_again() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        // Answers one request per connection, then closes it.
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                use std::io::{Read, Write};
                let mut stream = stream.unwrap();
                let mut head = [0; 1024];
                let _ = stream.read(&mut head).unwrap();
                let body = format!("{n}");
                let answer = format!("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n{body}");
                stream.write_all(answer.as_bytes()).unwrap();
            }
        });
        let target = Target::parse(&format!("http://{addr}")).unwrap();
        let mut conn = Connection::new(target, Duration::from_secs(5));
        for n in ["0", "1", "2"] {
            let answer = conn.send("GET", "/", None, None).await.unwrap();
            assert_eq!((answer.status, answer.body), (200, n.as_bytes()));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
