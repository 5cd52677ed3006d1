//! The load loop: one tokio task per connection sending the mix, closed loop (the next
//! request when the answer came) or open loop (each request at its scheduled time), each
//! recording into its own histograms; the change streams of the `sync` workload; and the
//! live progress line.
//!
//! Why per-connection recorders: a request costs a few microseconds, and one shared
//! histogram would have every connection fight over one cache line. Each connection locks
//! only its own mutex (never contended but by the progress line, twice a second), and the
//! recorders are merged once at the end.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hdrhistogram::Histogram;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::client::{Connection, Target};
use super::workload::{check, Cursors, Failure, Ids, Maker, Op, Space};
use taskd_progress::Progress;

/// The longest latency the histograms hold, in microseconds (an hour); longer ones are
/// recorded as this.
const MAX_MICROS: u64 = 3_600_000_000;
/// How long the change streams get to catch up with the last write after the run.
const STREAM_GRACE: Duration = Duration::from_secs(2);

/// When the measured part of a run ends.
#[derive(Debug, Clone, Copy)]
pub enum Stop {
    /// After this long.
    After(Duration),
    /// After this many answers.
    Requests(u64),
}

/// Everything the connections need to run.
pub struct Plan {
    /// The server.
    pub target: Target,
    /// How long one exchange may take.
    pub timeout: Duration,
    /// Connections sending requests.
    pub connections: usize,
    /// The mix, dealt in order (see [`super::workload::Mix::deck`]).
    pub deck: Vec<Op>,
    /// The spaces, with their tokens and versions.
    pub spaces: Arc<Vec<Space>>,
    /// The run's task ids.
    pub ids: Ids,
    /// Requests before the measured part, not recorded.
    pub warmup: Duration,
    /// When the measured part ends.
    pub stop: Stop,
    /// Requests per second over all connections (open loop), or `None` (closed loop).
    pub rate: Option<f64>,
    /// Change streams held open per space.
    pub streams: usize,
    /// The query of every page request, when they ask for one first page.
    pub page_query: Option<Arc<str>>,
}

/// One operation's answers.
#[derive(Debug, Clone)]
pub struct OpRecord {
    /// Latencies of the right answers, in microseconds.
    pub latency: Histogram<u64>,
    /// Errors, by status and code.
    pub errors: BTreeMap<Failure, u64>,
}

impl OpRecord {
    fn new() -> OpRecord {
        OpRecord {
            latency: Histogram::new_with_bounds(1, MAX_MICROS, 3).expect("valid bounds"),
            errors: BTreeMap::new(),
        }
    }

    /// Right answers.
    pub fn ok(&self) -> u64 {
        self.latency.len()
    }

    /// Wrong answers and failed exchanges.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    fn merge(&mut self, other: &OpRecord) {
        self.latency.add(&other.latency).expect("same bounds");
        for (failure, n) in &other.errors {
            *self.errors.entry(failure.clone()).or_default() += n;
        }
    }
}

/// What connections recorded: per operation (indexed as [`Op::ALL`]), and the warm-up.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Per operation.
    pub ops: Vec<OpRecord>,
    /// Requests answered during the warm-up (right or wrong).
    pub warmup: u64,
}

impl Recorder {
    fn new() -> Recorder {
        Recorder {
            ops: Op::ALL.iter().map(|_| OpRecord::new()).collect(),
            warmup: 0,
        }
    }

    fn merge(&mut self, other: &Recorder) {
        for (mine, theirs) in self.ops.iter_mut().zip(&other.ops) {
            mine.merge(theirs);
        }
        self.warmup += other.warmup;
    }

    /// Every operation's latencies together.
    pub fn all_latencies(&self) -> Histogram<u64> {
        let mut all = OpRecord::new().latency;
        for op in &self.ops {
            all.add(&op.latency).expect("same bounds");
        }
        all
    }
}

/// What the change streams saw.
#[derive(Debug, Clone, Default)]
pub struct StreamOutcome {
    /// Streams that opened (200).
    pub opened: u64,
    /// Change events received over all streams.
    pub events: u64,
    /// Versions the streams were still behind their space's last answered write, summed,
    /// after [`STREAM_GRACE`].
    pub behind: u64,
    /// Streams that failed to open or broke, by status (0: no answer) and code.
    pub errors: BTreeMap<Failure, u64>,
}

/// What a run measured.
pub struct Outcome {
    /// All connections' records merged.
    pub recorder: Recorder,
    /// Seconds from the end of the warm-up to the last answer.
    pub seconds: f64,
    /// Open loop: requests scheduled before the end that were not sent by then (the
    /// connections were that far behind).
    pub unsent: u64,
    /// The streams, when any were held open.
    pub streams: Option<StreamOutcome>,
}

/// Runs `plan`, showing its figures on `progress` (drawn only on a terminal).
pub async fn drive(plan: Plan, progress: &Arc<Progress>) -> Outcome {
    let plan = Arc::new(plan);
    let streams = open_streams(&plan).await;
    let start = Instant::now();
    let measure_from = start + plan.warmup;
    let tickets = Arc::new(AtomicI64::new(match plan.stop {
        Stop::Requests(n) => i64::try_from(n).unwrap_or(i64::MAX),
        Stop::After(_) => i64::MAX,
    }));
    let recorders: Vec<Arc<Mutex<Recorder>>> = (0..plan.connections)
        .map(|_| Arc::new(Mutex::new(Recorder::new())))
        .collect();
    let tasks: Vec<_> = recorders
        .iter()
        .enumerate()
        .map(|(c, recorder)| {
            let clock = Clock {
                start,
                measure_from,
            };
            tokio::spawn(connection(
                c,
                Arc::clone(&plan),
                clock,
                Arc::clone(&tickets),
                Arc::clone(recorder),
            ))
        })
        .collect();
    let shown = progress.is_drawn().then(|| {
        let recorders = recorders.clone();
        let progress = Arc::clone(progress);
        tokio::spawn(show_progress(recorders, progress, measure_from))
    });
    let mut unsent = 0;
    for task in tasks {
        unsent += task.await.expect("a connection task panicked");
    }
    let seconds = Instant::now()
        .saturating_duration_since(measure_from)
        .as_secs_f64();
    if let Some(shown) = shown {
        shown.abort();
    }
    let mut recorder = Recorder::new();
    for r in &recorders {
        recorder.merge(&r.lock().unwrap_or_else(PoisonError::into_inner));
    }
    let streams = match streams {
        Some(streams) => Some(close_streams(&plan, streams).await),
        None => None,
    };
    Outcome {
        recorder,
        seconds,
        unsent,
        streams,
    }
}

/// When a run started and when its measured part starts.
#[derive(Clone, Copy)]
struct Clock {
    start: Instant,
    measure_from: Instant,
}

/// Connection `c`: sends its share of the mix until the plan stops it; returns the
/// requests it was scheduled to send but had not sent by the end (open loop).
async fn connection(
    c: usize,
    plan: Arc<Plan>,
    clock: Clock,
    tickets: Arc<AtomicI64>,
    recorder: Arc<Mutex<Recorder>>,
) -> u64 {
    let mut conn = Connection::new(plan.target.clone(), plan.timeout);
    let mut maker = Maker::new(plan.ids.clone(), c, plan.page_query.clone());
    let mut cursors: Vec<Cursors> = plan
        .spaces
        .iter()
        .map(|s| Cursors::at(s.version.load(Ordering::Acquire)))
        .collect();
    let schedule = plan
        .rate
        .map(|rate| Schedule::new(rate, c, plan.connections, clock.start));
    let end = match plan.stop {
        Stop::After(d) => Some(clock.measure_from + d),
        Stop::Requests(_) => None,
    };
    let deck = &plan.deck;
    let mut exact = ExactClient::new(clock.start);
    for n in 0u64.. {
        let intended = schedule.as_ref().map(|s| s.due(n));
        let now = Instant::now();
        if let Some(end) = end {
            match intended {
                Some(at) if at >= end => return 0,
                // Behind schedule at the end: the rest of the schedule was never sent.
                Some(at) if now >= end => {
                    return schedule.as_ref().map_or(0, |s| s.between(at, end));
                }
                None if now >= end => return 0,
                _ => {}
            }
        }
        if let Some(at) = intended {
            if at > now {
                tokio::time::sleep_until(at).await;
            }
        }
        let measured = Instant::now() >= clock.measure_from;
        if measured
            && matches!(plan.stop, Stop::Requests(_))
            && tickets.fetch_sub(1, Ordering::AcqRel) <= 0
        {
            return 0;
        }
        let step = n as usize;
        let op = deck[(c + step) % deck.len()];
        // The space moves on once per pass through the deck, so every operation of the
        // mix reaches every space.
        let s = (c + step / deck.len()) % plan.spaces.len();
        let space = &plan.spaces[s];
        // A spread-out pick of the task to read or change, without a random draw.
        let pick = n.wrapping_mul(2_654_435_761).wrapping_add(c as u64 * 7919);
        let request = maker.make(op, space, &cursors[s], pick);
        let sent = Instant::now();
        let answer = conn
            .send(
                request.method,
                &request.path,
                Some(&space.token),
                request.body.as_deref(),
            )
            .await;
        let done = Instant::now();
        let result = match answer {
            Ok(answer) => check(
                op,
                &request,
                answer.status,
                answer.body,
                space,
                &mut cursors[s],
            ),
            Err(e) => Err(Failure {
                status: 0,
                code: e.code().to_string(),
            }),
        };
        let latency = match intended {
            Some(at) => exact.latency(at, done - sent),
            None => done - sent,
        };
        let mut r = recorder.lock().unwrap_or_else(PoisonError::into_inner);
        if !measured {
            r.warmup += 1;
            continue;
        }
        let record = &mut r.ops[op.index()];
        match result {
            Ok(()) => {
                let micros = latency.as_micros() as u64;
                record
                    .latency
                    .saturating_record(micros.clamp(1, MAX_MICROS));
            }
            Err(failure) => *record.errors.entry(failure).or_default() += 1,
        }
    }
    0
}

/// When an open-loop connection's requests are due: connection `c` of `connections` at
/// start + c/rate + n·connections/rate, so the connections together keep the rate with
/// evenly spaced requests.
struct Schedule {
    first: Instant,
    every_nanos: u64,
}

impl Schedule {
    fn new(rate: f64, c: usize, connections: usize, start: Instant) -> Schedule {
        Schedule {
            first: start + Duration::from_secs_f64(c as f64 / rate),
            every_nanos: (connections as f64 / rate * 1e9).max(1.0) as u64,
        }
    }

    /// When request `n` is due.
    fn due(&self, n: u64) -> Instant {
        self.first + Duration::from_nanos(self.every_nanos.saturating_mul(n))
    }

    /// How many requests are due from `from` (included) to `to` (excluded).
    fn between(&self, from: Instant, to: Instant) -> u64 {
        let span = to.saturating_duration_since(from).as_nanos() as u64;
        span.div_ceil(self.every_nanos)
    }
}

/// The latencies of an open-loop connection as a client with an exact clock would see
/// them: a request starts when it is due or when the previous answer came, whichever is
/// later (so waiting behind a slow answer counts: the coordinated-omission correction),
/// and takes as long as the server took to answer it. The connection's real clock is so
/// left out: tokio's timer wakes up to 1 ms late, and with a request due every few hundred
/// microseconds that lateness would be billed to the server.
struct ExactClient {
    /// When the previous answer came, on the exact client's clock.
    answered: Instant,
}

impl ExactClient {
    fn new(start: Instant) -> ExactClient {
        ExactClient { answered: start }
    }

    /// The latency of a request due at `due` that the server answered in `service`.
    fn latency(&mut self, due: Instant, service: Duration) -> Duration {
        self.answered = due.max(self.answered) + service;
        self.answered - due
    }
}

/// Updates the progress line twice a second: requests per second over the last half
/// second, errors and p99 so far.
async fn show_progress(
    recorders: Vec<Arc<Mutex<Recorder>>>,
    progress: Arc<Progress>,
    measure_from: Instant,
) {
    let mut last = (Instant::now(), 0u64);
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut all = Recorder::new();
        for r in &recorders {
            all.merge(&r.lock().unwrap_or_else(PoisonError::into_inner));
        }
        let errors: u64 = all.ops.iter().map(OpRecord::error_count).sum();
        let answered = all.ops.iter().map(OpRecord::ok).sum::<u64>() + errors + all.warmup;
        let now = Instant::now();
        let rate = (answered - last.1) as f64 / (now - last.0).as_secs_f64();
        last = (now, answered);
        let p99 = all.all_latencies().value_at_quantile(0.99) as f64 / 1e3;
        let phase = if now < measure_from { "warm-up " } else { "" };
        progress.say(format!(
            "{phase}{rate:>9.0} req/s  {errors} errors  p99 {p99:.3} ms"
        ));
    }
}

/// One open change stream: its task, events received and the last event id.
struct Stream {
    space: usize,
    task: tokio::task::JoinHandle<()>,
    events: Arc<AtomicU64>,
    last_id: Arc<AtomicU64>,
}

/// The streams that opened, and the failures of those that did not; `None` when the plan
/// holds none open.
async fn open_streams(plan: &Arc<Plan>) -> Option<(Vec<Stream>, BTreeMap<Failure, u64>)> {
    if plan.streams == 0 {
        return None;
    }
    let mut streams = Vec::new();
    let mut errors = BTreeMap::new();
    for (s, space) in plan.spaces.iter().enumerate() {
        for _ in 0..plan.streams {
            let since = space.version.load(Ordering::Acquire);
            match subscribe(&plan.target, &space.token, since).await {
                Ok((socket, rest)) => {
                    let events = Arc::new(AtomicU64::new(0));
                    let last_id = Arc::new(AtomicU64::new(since));
                    let task = tokio::spawn(follow(
                        socket,
                        rest,
                        Arc::clone(&events),
                        Arc::clone(&last_id),
                    ));
                    streams.push(Stream {
                        space: s,
                        task,
                        events,
                        last_id,
                    });
                }
                Err(failure) => *errors.entry(failure).or_default() += 1,
            }
        }
    }
    Some((streams, errors))
}

/// Waits up to [`STREAM_GRACE`] for every stream to reach its space's last answered
/// write, then closes them.
async fn close_streams(
    plan: &Plan,
    (streams, errors): (Vec<Stream>, BTreeMap<Failure, u64>),
) -> StreamOutcome {
    let behind = |stream: &Stream| {
        let target = plan.spaces[stream.space].version.load(Ordering::Acquire);
        target.saturating_sub(stream.last_id.load(Ordering::Acquire))
    };
    let until = Instant::now() + STREAM_GRACE;
    while Instant::now() < until && streams.iter().any(|s| behind(s) > 0) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let outcome = StreamOutcome {
        opened: streams.len() as u64,
        events: streams
            .iter()
            .map(|s| s.events.load(Ordering::Acquire))
            .sum(),
        behind: streams.iter().map(behind).sum(),
        errors,
    };
    for stream in streams {
        stream.task.abort();
    }
    outcome
}

/// Opens `GET /api/v1/changes/stream?since=N`; the socket and the bytes read past the
/// answer's head, or why it did not open.
async fn subscribe(
    target: &Target,
    token: &str,
    since: u64,
) -> Result<(TcpStream, Vec<u8>), Failure> {
    let fail = |status: u16, code: &str| Failure {
        status,
        code: code.to_string(),
    };
    let mut socket = TcpStream::connect(target.addr)
        .await
        .map_err(|_| fail(0, "stream_connect"))?;
    let request = format!(
        "GET {}/api/v1/changes/stream?since={since} HTTP/1.1\r\nHost: {}\r\n\
         Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n",
        target.base, target.host
    );
    socket
        .write_all(request.as_bytes())
        .await
        .map_err(|_| fail(0, "stream_io"))?;
    let mut buf = Vec::new();
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut headers);
        if let Ok(httparse::Status::Complete(head)) = response.parse(&buf) {
            let status = response.code.unwrap_or(0);
            if status != 200 {
                return Err(fail(status, "stream_refused"));
            }
            return Ok((socket, buf.split_off(head)));
        }
        if buf.len() > 64 << 10 {
            return Err(fail(0, "stream_malformed"));
        }
        match socket.read_buf(&mut buf).await {
            Ok(0) | Err(_) => return Err(fail(0, "stream_closed")),
            Ok(_) => {}
        }
    }
}

/// Reads a stream's chunked body, counting `id:` lines (one per change event) and keeping
/// the last id, until the socket ends or the task is aborted.
async fn follow(
    mut socket: TcpStream,
    mut raw: Vec<u8>,
    events: Arc<AtomicU64>,
    last: Arc<AtomicU64>,
) {
    let mut text: Vec<u8> = Vec::new();
    loop {
        // Move whole chunks from `raw` to `text`.
        while let Ok(httparse::Status::Complete((used, size))) = httparse::parse_chunk_size(&raw) {
            let size = size as usize;
            if raw.len() < used + size + 2 {
                break;
            }
            text.extend_from_slice(&raw[used..used + size]);
            raw.drain(..used + size + 2);
            if size == 0 {
                return;
            }
        }
        // Then whole lines from `text`.
        while let Some(end) = text.iter().position(|b| *b == b'\n') {
            if let Some(id) = text[..end].strip_prefix(b"id: ") {
                if let Some(id) = std::str::from_utf8(id)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
                {
                    events.fetch_add(1, Ordering::AcqRel);
                    last.fetch_max(id, Ordering::AcqRel);
                }
            }
            text.drain(..=end);
        }
        match socket.read_buf(&mut raw).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_loop_counts_the_wait_behind_a_slow_answer_and_not_the_timer() {
        let start = Instant::now();
        let ms = Duration::from_millis;
        let mut client = ExactClient::new(start);
        // Due every 1 ms, answered in 0.2 ms: 0.2 ms each, however late the timer woke.
        assert_eq!(client.latency(start, ms(1) / 5), ms(1) / 5);
        assert_eq!(client.latency(start + ms(1), ms(1) / 5), ms(1) / 5);
        // A 10 ms stall: the requests due meanwhile wait for it, one ms less each.
        assert_eq!(client.latency(start + ms(2), ms(10)), ms(10));
        assert_eq!(client.latency(start + ms(3), ms(1) / 5), ms(9) + ms(1) / 5);
        assert_eq!(client.latency(start + ms(4), ms(1) / 5), ms(8) + ms(2) / 5);
        let schedule = Schedule::new(1000.0, 1, 4, start);
        assert_eq!(schedule.due(0), start + ms(1));
        assert_eq!(schedule.due(2), start + ms(9));
        assert_eq!(schedule.between(start, start + ms(10)), 3);
    }
}
