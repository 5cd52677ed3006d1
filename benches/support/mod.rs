//! What the benches share: raw HTTP/1.1 keep-alive exchanges, a load driver, latencies
//! gathered from its threads, percentiles, and a taskd process to measure from outside.

// Each bench uses a part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The default user's token of a [`Server`].
pub const TOKEN: &str = "bench-token-0123456789abcdef0123456789";
/// The admin token of a [`Server`].
pub const ADMIN: &str = "bench-admin-token-0123456789abcdef012345";

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

/// Reads a response's status line; its status (0 when it is not one).
pub fn read_status(reader: &mut impl BufRead) -> u16 {
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    line.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Sends one request on a keep-alive connection and reads the whole response: its status
/// and body.
pub fn exchange(reader: &mut BufReader<TcpStream>, bytes: &[u8]) -> (u16, Vec<u8>) {
    reader.get_mut().write_all(bytes).expect("send");
    let status = read_status(reader);
    let mut line = String::new();
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

/// The taskd binary the process benches run: `TASKD_BENCH_BIN` when set (to compare with
/// another build in the same session), else the release binary built with the bench.
pub fn binary() -> PathBuf {
    std::env::var_os("TASKD_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_taskd")))
}

/// Runs `taskd bench` (of the [`binary`]) against `addr` as the user of `token` with more
/// `args`, every answer right; its `--json` result (`total.throughput`,
/// `total.latencyMs.p50`, ...).
pub fn bench(addr: SocketAddr, token: &str, args: &[&str]) -> Value {
    let result = tempfile::NamedTempFile::new().expect("a temporary file");
    let status = Command::new(binary())
        .arg("bench")
        .arg("--url")
        .arg(format!("http://{addr}"))
        .arg("--token")
        .arg(token)
        .args(args)
        .arg("--json")
        .arg(result.path())
        .stdout(Stdio::null())
        .status()
        .expect("taskd bench runs");
    assert!(status.success(), "taskd bench {args:?}: {status}");
    serde_json::from_slice(&std::fs::read(result.path()).expect("its result")).expect("JSON")
}

/// A user made by [`Server::account`].
pub struct Account {
    pub token: String,
    pub user_id: String,
    /// Its default space.
    pub space_id: String,
}

/// A running taskd process ([`binary`]), its default user's token [`TOKEN`], its admin's
/// [`ADMIN`], logging at `warn`.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Server {
    /// Starts the binary on `dir`; returns it once it accepts connections, with the time
    /// that took.
    pub fn start(dir: &Path) -> (Server, Duration) {
        Server::start_with(dir, &[])
    }

    /// [`Server::start`] with more command-line arguments.
    pub fn start_with(dir: &Path, args: &[&str]) -> (Server, Duration) {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        let mut child = Command::new(binary())
            .args(["--bind", &addr.to_string(), "--data-dir"])
            .arg(dir)
            .args(["--log-level", "warn"])
            .args(args)
            .env("TASKD_DEFAULT_TOKEN", TOKEN)
            .env("TASKD_ADMIN_TOKEN", ADMIN)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("taskd starts");
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("taskd: {line}");
            }
        });
        while TcpStream::connect(addr).is_err() {
            assert!(child.try_wait().unwrap().is_none(), "taskd exited");
            std::thread::sleep(Duration::from_millis(5));
        }
        (Server { child, addr }, started.elapsed())
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory of the process (`VmRSS`), in bytes.
    pub fn rss(&self) -> u64 {
        self.status("VmRSS:")
    }

    /// The most resident memory of the process (`VmHWM`) since it started or since the last
    /// [`Server::reset_peak`], in bytes.
    pub fn peak(&self) -> u64 {
        self.status("VmHWM:")
    }

    /// Starts [`Server::peak`] again from the current RSS (Linux's `clear_refs`, 5).
    pub fn reset_peak(&self) {
        std::fs::write(format!("/proc/{}/clear_refs", self.pid()), "5").expect("clear_refs");
    }

    /// A size in kB of `/proc/PID/status`, in bytes.
    fn status(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect(field);
        kb * 1024
    }

    /// CPU time the process has used so far, user and system (`utime + stime` of
    /// `/proc/PID/stat`, in clock ticks of 10 ms).
    pub fn cpu(&self) -> Duration {
        cpu_of(self.pid())
    }

    /// Waits until the RSS has moved less than 1 MiB for a second (at most `limit`);
    /// returns it.
    pub fn settled_rss(&self, limit: Duration) -> u64 {
        let until = Instant::now() + limit;
        let mut last = self.rss();
        let mut steady = 0;
        while steady < 4 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(250));
            let now = self.rss();
            steady = if now.abs_diff(last) < 1 << 20 {
                steady + 1
            } else {
                0
            };
            last = now;
        }
        last
    }

    /// Sends SIGKILL, as a crash would, and waits for the process to end.
    pub fn crash(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends SIGTERM and waits for the exit; the time that took.
    pub fn stop(mut self) -> Duration {
        let started = Instant::now();
        let term = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(term.success());
        assert!(self.child.wait().unwrap().success(), "taskd exit status");
        started.elapsed()
    }

    /// One request on a new connection; its status and JSON body.
    pub fn call(&self, token: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let body = body.map(|b| b.to_string());
        let (status, bytes) = exchange(
            &mut connect(self.addr),
            &request(token, method, path, body.as_deref()),
        );
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Creates a user named `name`; its token.
    pub fn user(&self, name: &str) -> String {
        self.account(name).token
    }

    /// Creates a user named `name`; its token and ids.
    pub fn account(&self, name: &str) -> Account {
        let (status, user) = self.call(
            ADMIN,
            "POST",
            "/api/v1/admin/users",
            Some(serde_json::json!({ "name": name })),
        );
        assert_eq!(status, 201, "{user}");
        let field = |name: &str| user["data"][name].as_str().unwrap().to_string();
        Account {
            token: field("token"),
            user_id: field("userId"),
            space_id: field("defaultSpaceId"),
        }
    }

    /// The version of `token`'s default space.
    pub fn version(&self, token: &str) -> u64 {
        let (status, page) = self.call(token, "GET", "/api/v1/tasks?limit=1", None);
        assert_eq!(status, 200, "{page}");
        page["spaceVersion"].as_u64().unwrap()
    }
}

impl Drop for Server {
    /// A bench that panics leaves no server behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU time process `pid` has used so far, user and system (`utime + stime` of
/// `/proc/PID/stat`, in clock ticks of 10 ms).
pub fn cpu_of(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses: state is field 3, utime
    // field 14 and stime field 15.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64)
}

/// Clock ticks per second of `/proc/PID/stat`.
fn clock_ticks() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

/// `bytes` in MiB.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The value of the environment variable `name`, or `default`.
pub fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The 1-minute load average of the machine (Linux), or `?`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// Runs `taskd bench -w mixed` at `addr` for `count` new users (one default space each) at `rate`
/// requests per second in all for `seconds` after a 2 s warm-up; its `--json` result.
pub fn mixed_users(addr: SocketAddr, count: usize, seconds: usize, rate: usize) -> Value {
    try_mixed_users(addr, count, seconds, rate).unwrap_or_else(|e| panic!("{e}"))
}

/// [`mixed_users`], or why `taskd bench` failed (a server that stalls past its checks).
pub fn try_mixed_users(
    addr: SocketAddr,
    count: usize,
    seconds: usize,
    rate: usize,
) -> Result<Value, String> {
    let result = tempfile::NamedTempFile::new().unwrap();
    let status = Command::new(binary())
        .args(["bench", "--url", &format!("http://{addr}")])
        .args(["--admin-token", ADMIN, "--spaces", &count.to_string()])
        .args(["-w", "mixed", "-c", "20", "--prefill", "1000"])
        .args(["-r", &rate.to_string(), "--warmup", "2s"])
        .args(["-d", &format!("{seconds}s"), "--threads", "1"])
        .arg("--json")
        .arg(result.path())
        .stdout(Stdio::null())
        .status()
        .expect("taskd bench runs");
    if !status.success() {
        return Err(format!("taskd bench: {status}"));
    }
    Ok(serde_json::from_slice(&std::fs::read(result.path()).unwrap()).unwrap())
}

/// p50 and p99 in ms of operation `op` of a `taskd bench` result.
pub fn latency(run: &Value, op: &str) -> (f64, f64) {
    let result = run["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["operation"] == op)
        .unwrap_or_else(|| panic!("no {op} in the result"));
    let latency = &result["latencyMs"];
    (
        latency["p50"].as_f64().unwrap(),
        latency["p99"].as_f64().unwrap(),
    )
}

/// Prints what [`mixed_users`] measured for `users` other users at `rate` for `seconds`,
/// alone and while a neighbour attacked (`runs`): each operation's p50 and p99 and their
/// differences, answers, and the machine's `loads` (1-minute load averages before the
/// baseline, before the attack and after it: a shared machine's other work shows in the
/// baseline's own tail, and they say when the figures are not worth comparing).
pub fn print_neighbours(
    users: usize,
    rate: usize,
    seconds: usize,
    runs: [&Value; 2],
    loads: &[String; 3],
) {
    let [baseline, attacked] = runs;
    println!(
        "\n{users} other users, taskd bench -w mixed, {rate} requests/s in all (open loop), \
         {seconds} s measured; latencies in ms"
    );
    println!(
        "{:<6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "op", "alone p50", "alone p99", "A p50", "A p99", "Δ p50", "Δ p99"
    );
    for op in ["get", "patch", "post"] {
        let (b, a) = (latency(baseline, op), latency(attacked, op));
        println!(
            "{op:<6} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>+10.2} {:>+10.2}",
            b.0,
            b.1,
            a.0,
            a.1,
            a.0 - b.0,
            a.1 - b.1
        );
    }
    for (name, run) in [("alone", baseline), ("attacked", attacked)] {
        println!(
            "{name}: {} answers ok, {} errors, {:.0} answers/s",
            run["total"]["ok"], run["total"]["errors"], run["total"]["throughput"]
        );
    }
    // The machine is shared: other work on it shows in the baseline's own tail, and the
    // load averages say when the figures are not worth comparing.
    println!(
        "load average (1 min) before the baseline {}, before the attack {}, after it {}",
        loads[0], loads[1], loads[2]
    );
}

/// Words of the bench's names and notes: 1,000 made of two syllables each.
const SYLLABLES: [&str; 40] = [
    "ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu", "na", "pe", "qui", "ro", "su",
    "ta", "ve", "wi", "xo", "yu", "zan", "bel", "cor", "dun", "fes", "gal", "hin", "jor", "kem",
    "lun", "mar", "nov", "pol", "ras", "sil", "tor", "ven", "wol", "yar", "zet",
];

/// The `n`th word of the bench's vocabulary, picked by a multiplicative hash of `n` so
/// that words repeat as in a real text (the 1,000 words unevenly).
fn word(n: usize) -> String {
    let h = n.wrapping_mul(0x9E37_79B9) >> 7;
    let (a, b) = (h % 40, (h / 40) % 25);
    format!("{}{}", SYLLABLES[a], SYLLABLES[b])
}

/// The load tests' task (issue 38): a three-word name, a line of notes of 20 words, a
/// status, two tags, `isImportant` on one in ten, a due date within a week on one in
/// a hundred, and a rare word (seen once) in the notes of one in a thousand: about 250
/// bytes of data.
pub fn load_task(i: usize) -> Value {
    let words =
        |from: usize, count: usize| (from..from + count).map(word).collect::<Vec<_>>().join(" ");
    let mut notes = words(i * 31 + 7, 20);
    if i.is_multiple_of(1000) {
        notes.push_str(&format!(" rare{i}"));
    }
    let mut task = json!({
        "todoId": format!("t{i}"),
        "name": words(i * 7, 3),
        "notesMarkdown": notes,
        "status": "open",
        "tagIds": [format!("tag{}", i % 20), format!("tag{}", i % 7 + 20)],
        "isImportant": i.is_multiple_of(10),
    });
    if i.is_multiple_of(100) {
        let day = 1 + i / 100 % 7;
        task["dateDue"] = json!(format!("2030-01-0{day}T09:00:00Z"));
    }
    task
}

/// Decodes an HTTP/1.1 response with a chunked body into server-sent events, each handed
/// on as its block of lines (without the blank line that ends it).
#[derive(Default)]
pub struct SseDecoder {
    /// Bytes not decoded yet.
    raw: Vec<u8>,
    /// Whether the response head has been read.
    body: bool,
    /// Decoded body not yet split into events.
    data: Vec<u8>,
    /// Whether the decoder is inside a chunk, and how much of it is still to come (then
    /// its CRLF).
    in_chunk: bool,
    left: usize,
}

impl SseDecoder {
    /// Takes in `bytes` read from the socket; calls `each` with every event now whole.
    pub fn push(&mut self, bytes: &[u8], mut each: impl FnMut(&[u8])) {
        self.raw.extend_from_slice(bytes);
        let mut at = 0;
        if !self.body {
            let Some(end) = find(&self.raw, b"\r\n\r\n") else {
                return;
            };
            assert!(self.raw.starts_with(b"HTTP/1.1 200"), "stream refused");
            self.body = true;
            at = end + 4;
        }
        loop {
            if self.in_chunk {
                let take = self.left.min(self.raw.len() - at);
                self.data.extend_from_slice(&self.raw[at..at + take]);
                at += take;
                self.left -= take;
                if self.left > 0 || self.raw.len() - at < 2 {
                    break;
                }
                at += 2;
                self.in_chunk = false;
            } else {
                let Some(end) = find(&self.raw[at..], b"\r\n") else {
                    break;
                };
                let line = std::str::from_utf8(&self.raw[at..at + end]).unwrap();
                let size = line.split(';').next().unwrap().trim();
                self.left = usize::from_str_radix(size, 16).expect("chunk size");
                self.in_chunk = true;
                at += end + 2;
            }
        }
        self.raw.drain(..at);
        let mut start = 0;
        while let Some(end) = find(&self.data[start..], b"\n\n") {
            each(&self.data[start..start + end]);
            start += end + 2;
        }
        self.data.drain(..start);
    }
}

/// Where `needle` first occurs in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
