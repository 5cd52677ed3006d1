//! The replication thread and its handle ([`Replicator`]): the NATS connection, the
//! lease, appends of the journal's batches, the position file, the start-up catch-up and a
//! standby's following (see the module docs of [`super`]).

use std::fs;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use tokio::sync::{mpsc as channel, oneshot, Notify};

use super::fence::Verdict;
use super::nats::{Nats, NatsError, LEASE_TTL, MAX_MESSAGE};
use super::{Apply, NodeRole, Options, ReplicationError};
use crate::metrics::METRICS;
use crate::store::codec;
use crate::store::journal::{Journal, Marked, StorageError};
use crate::store::mirror::{Mirror, Mirrored, Pending};
use crate::store::POSITION_FILE;

/// A request to the replication thread.
enum Request {
    /// Append one batch; the verdict goes back on a blocking channel (the journal writer is
    /// a plain thread).
    Append {
        payload: Vec<u8>,
        verdict: mpsc::SyncSender<Mirrored>,
    },
    /// Read stream messages after `from`, about `max_bytes` of them (for the catch-up).
    Read {
        from: u64,
        max_bytes: usize,
        reply: mpsc::Sender<Result<Vec<(u64, Bytes)>, ReplicationError>>,
    },
    /// Take the lease if it is free and this node holds the whole stream; then append the
    /// epoch entry and serve.
    Contend,
    /// A planned stop: give the lease up.
    Release(oneshot::Sender<()>),
    /// While a standby, append what the stream gets to this journal and apply it.
    Follow(Journal, Apply),
}

/// What the replication thread changes of this node's role.
impl NodeRole {
    /// A node named `node`, standby until it takes the lease.
    fn new(node: &str) -> NodeRole {
        NodeRole {
            node: node.to_string(),
            primary: AtomicBool::new(false),
            applied: AtomicU64::new(0),
            last: AtomicU64::new(0),
            stale: AtomicBool::new(false),
        }
    }

    fn held(&self, seq: u64) {
        self.applied.store(seq, Ordering::SeqCst);
        self.last.fetch_max(seq, Ordering::SeqCst);
        METRICS.replication_applied.set(seq as i64);
    }

    /// Stops answering writes, from this instant: another node appended, or the lease is lost.
    fn fence(&self, why: &str) {
        if self.primary.swap(false, Ordering::SeqCst) {
            self.stale.store(true, Ordering::SeqCst);
            log::error!("fenced: {why}; this node answers no write from now on");
            METRICS.replication_fenced.inc();
            METRICS.replication_primary.set(0);
        }
    }

    fn promote(&self, epoch: u64) {
        self.primary.store(true, Ordering::SeqCst);
        METRICS.replication_primary.set(1);
        METRICS.replication_lease_changes.inc();
        log::info!("node {} is primary (epoch {epoch})", self.node);
    }
}

/// The handle to the replication thread: its own tokio runtime, the NATS connection, the
/// lease keeper. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Replicator {
    requests: channel::UnboundedSender<Request>,
    role: Arc<NodeRole>,
    position: Arc<PositionFile>,
    /// Notified when this node should restart (see [`NodeRole::fence`]).
    restart: Arc<Notify>,
}

impl Replicator {
    /// Connects to NATS (creating or checking the stream and the lease bucket) on a thread
    /// of its own; `data_dir` holds the position file.
    pub(crate) fn start(
        options: &Options,
        data_dir: &Path,
    ) -> Result<Replicator, ReplicationError> {
        let role = Arc::new(NodeRole::new(&options.node));
        let restart = Arc::new(Notify::new());
        let (requests, receiver) = channel::unbounded_channel();
        let (started, connected) = mpsc::channel();
        let thread_role = Arc::clone(&role);
        let thread_restart = Arc::clone(&restart);
        let options = options.clone();
        let position = Arc::new(PositionFile::new(data_dir.join(POSITION_FILE)));
        let thread_position = Arc::clone(&position);
        std::thread::Builder::new()
            .name("taskd-nats".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = started.send(Err(ReplicationError::Thread(e)));
                        return;
                    }
                };
                let thread = Thread {
                    options,
                    role: thread_role,
                    restart: thread_restart,
                    position: thread_position,
                    lease: None,
                    contending: false,
                    following: None,
                    restarting: false,
                    groups: Groups::new(FOLLOW_GROUP_BYTES),
                };
                runtime.block_on(run(thread, receiver, started));
            })
            .map_err(ReplicationError::Thread)?;
        connected.recv().map_err(|_| ReplicationError::Stopped)??;
        Ok(Replicator {
            requests,
            role,
            position,
            restart,
        })
    }

    /// This node's role.
    pub(crate) fn role(&self) -> &Arc<NodeRole> {
        &self.role
    }

    /// The position file's `(seq, segment, offset)`, if there is one.
    pub(crate) fn position(&self) -> Option<(u64, u64, u64)> {
        self.position.read()
    }

    /// The stream's messages after `from`, in order, as `(seq, payload)`: the first, and
    /// then as many as fit in `max_bytes`.
    pub(crate) fn read_after(
        &self,
        from: u64,
        max_bytes: usize,
    ) -> Result<Vec<(u64, Bytes)>, ReplicationError> {
        let (reply, answer) = mpsc::channel();
        self.requests
            .send(Request::Read {
                from,
                max_bytes,
                reply,
            })
            .map_err(|_| ReplicationError::Stopped)?;
        answer.recv().map_err(|_| ReplicationError::Stopped)?
    }

    /// Brings the journal in `journal_dir` to the stream, before recovery: cuts it back to
    /// the last batch the stream acknowledged (a warning line per space whose versions go:
    /// they were never answered), then appends every later stream message, in parts of
    /// about [`CATCH_UP_BYTES`], each a new segment. Without a position file a data dir is
    /// either the stream's origin (the stream is empty) or takes the whole stream.
    pub(crate) fn catch_up(&self, journal_dir: &Path) -> Result<(), ReplicationError> {
        let last = self.role.last.load(Ordering::SeqCst);
        let (seq, segment, offset) = match self.position() {
            Some(position) => position,
            None if last == 0 => return Ok(()),
            None => (0, 0, 0),
        };
        if seq > last {
            return Err(ReplicationError::Ahead { held: seq, last });
        }
        let dropped = crate::store::journal::cut_back(journal_dir, segment, offset)?;
        warn_dropped(&dropped);
        // Part by part, each a segment of its own and a position, so memory holds one
        // part and a crash keeps the parts before. The first parts of a split batch at the
        // stream's end stay out of the journal: following reads them again, and the rest
        // of the batch or the next epoch entry decides.
        self.role.held(seq);
        let (mut upto, mut groups) = (seq, Groups::new(CATCH_UP_BYTES));
        loop {
            let messages = self.read_after(upto, CATCH_UP_BYTES)?;
            if messages.is_empty() {
                break;
            }
            for (seq, payload) in messages {
                upto = seq;
                if let Some((frames, end)) = groups.push(seq, &payload) {
                    self.hold_part(journal_dir, frames, end)?;
                }
            }
        }
        match groups.take() {
            Some((frames, end)) => self.hold_part(journal_dir, frames, end),
            None => Ok(()),
        }
    }

    /// Appends `frames`, the stream's messages up to `upto`, to the journal in
    /// `journal_dir` as a new segment, and holds them.
    fn hold_part(
        &self,
        journal_dir: &Path,
        frames: Vec<u8>,
        upto: u64,
    ) -> Result<(), ReplicationError> {
        if frames.is_empty() {
            self.role.held(upto);
        } else {
            let (segment, len) = crate::store::journal::append_segment(journal_dir, &frames)?;
            self.held(upto, segment, len);
        }
        Ok(())
    }

    /// Follows the stream into `journal`, and into memory with `apply`, while this node is
    /// a standby.
    pub(crate) fn follow_into(&self, journal: Journal, apply: Apply) {
        let _ = self.requests.send(Request::Follow(journal, apply));
    }

    /// Resolves when this node was fenced and reaches the stream again: it should restart,
    /// to come back a standby from its data dir (its memory may not hold what that holds).
    pub(crate) async fn restart_wanted(&self) {
        self.restart.notified().await;
    }

    /// Starts contending for the lease (taken once the node holds the whole stream).
    pub(crate) fn contend(&self) {
        let _ = self.requests.send(Request::Contend);
    }

    /// Whether the stream was empty when this node connected: it is the stream's origin.
    pub(crate) fn origin(&self) -> bool {
        self.role.last.load(Ordering::SeqCst) == 0
    }

    /// Waits (blocking) until this node is the primary, at most `limit`.
    pub(crate) fn wait_primary(&self, limit: Duration) -> Result<(), ReplicationError> {
        let started = Instant::now();
        while !self.role.is_primary() {
            if started.elapsed() > limit {
                return Err(ReplicationError::NoLease);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Writes the position file if it is behind, and gives the lease up, for a planned stop
    /// (after the journal's last batch is in the stream); waits at most a second.
    pub(crate) async fn release(&self) {
        self.position.flush();
        let (done, released) = oneshot::channel();
        if self.requests.send(Request::Release(done)).is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(1), released).await;
        }
    }
}

/// The journal's batches go to the stream as well: a batch is stored once both hold it.
impl Mirror for Replicator {
    /// Hands a batch (whole journal frames) to the stream; a standby's append is fenced.
    fn append(&self, batch: &[u8]) -> Pending {
        if !self.role.is_primary() {
            return Pending::fenced();
        }
        let (verdict, receiver) = mpsc::sync_channel(1);
        let sent = self.requests.send(Request::Append {
            payload: batch.to_vec(),
            verdict,
        });
        match sent {
            Ok(()) => Pending::new(receiver),
            Err(_) => Pending::fenced(),
        }
    }

    /// Notes that both the stream (at sequence `seq`) and the disk hold the batch that
    /// ends at `offset` of segment `segment`.
    fn held(&self, seq: u64, segment: u64, offset: u64) {
        self.role.held(seq);
        self.position.note((seq, segment, offset));
    }

    /// Fences this node (an append that was not stored locally after the stream took it).
    fn fence(&self, why: &str) {
        self.role.fence(why);
    }
}

/// A position: `(stream seq, segment, offset)`.
type Position = (u64, u64, u64);

/// The position file: where the journal and the stream last agreed. Replaced at most every
/// [`POSITION_EVERY`] as batches are held, and by [`PositionFile::flush`] (every second)
/// when it is behind: a replacing rename costs about 0.2 ms on ext4 (it flushes the new
/// file), a fifth of a batch's time, and a position some batches behind only makes the
/// next start's catch-up take those batches from the stream again.
struct PositionFile {
    path: PathBuf,
    state: Mutex<Positions>,
}

/// The newest position held, the one on disk, and when that was written.
#[derive(Default)]
struct Positions {
    newest: Option<Position>,
    on_disk: Option<Position>,
    written_at: Option<Instant>,
}

impl PositionFile {
    fn new(path: PathBuf) -> PositionFile {
        PositionFile {
            path,
            state: Mutex::default(),
        }
    }

    /// Notes the newest position; replaces the file if it was not replaced recently.
    fn note(&self, position: Position) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.newest = Some(position);
        if state
            .written_at
            .is_none_or(|at| at.elapsed() >= POSITION_EVERY)
        {
            self.write(&mut state);
        }
    }

    /// Replaces the file if it is behind the newest position.
    fn flush(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.newest != state.on_disk {
            self.write(&mut state);
        }
    }

    fn write(&self, state: &mut Positions) {
        let Some((seq, segment, offset)) = state.newest else {
            return;
        };
        // `.stream.pos.tmp`: a temporary file start-up removes (`Store::lock`).
        let temp = self.path.with_file_name(format!(".{POSITION_FILE}.tmp"));
        let written = fs::write(&temp, format!("{seq} {segment} {offset}\n"))
            .and_then(|()| fs::rename(&temp, &self.path));
        match written {
            Ok(()) => {
                state.on_disk = state.newest;
                state.written_at = Some(Instant::now());
            }
            Err(e) => log::warn!("{}: {e}", self.path.display()),
        }
    }

    /// The file's position, if there is a whole one.
    fn read(&self) -> Option<Position> {
        let text = fs::read_to_string(&self.path).ok()?;
        let mut parts = text.split_whitespace().map(str::parse::<u64>);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(Ok(seq)), Some(Ok(segment)), Some(Ok(offset))) => Some((seq, segment, offset)),
            _ => None,
        }
    }
}

/// Logs, per space, the versions of `dropped` entries: local writes the stream never
/// acknowledged, so never answered.
fn warn_dropped(dropped: &[crate::store::codec::Entry]) {
    let mut spaces: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
    for entry in dropped {
        if let crate::store::codec::Entry::Write { space, outcome, .. } = entry {
            let range = spaces.entry(space).or_insert((u64::MAX, 0));
            range.0 = range.0.min(outcome.base + 1);
            range.1 = range.1.max(outcome.version);
        }
    }
    for (space, (from, to)) in spaces {
        log::warn!(
            "space {space}: versions {from} to {to} were never acknowledged by the stream \
             (never answered); dropped"
        );
    }
    if !dropped.is_empty() {
        log::warn!(
            "cut {} journal entries the stream does not hold",
            dropped.len()
        );
    }
}

/// The position file is replaced at most this often.
const POSITION_EVERY: Duration = Duration::from_millis(100);

/// How often a standby looks for new stream messages.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);
/// The most stream messages a standby reads in one look.
const FOLLOW_BATCH: u64 = 1000;
/// A standby stores what it follows in groups of about this many bytes.
const FOLLOW_GROUP_BYTES: usize = 4 << 20;
/// The catch-up at start reads the stream in parts of about this many bytes.
const CATCH_UP_BYTES: usize = 64 << 20;
/// How often a node says where its data dir is, and the primary trims the stream.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// How long the first connection to NATS is tried before the start fails.
const CONNECT_PATIENCE: Duration = Duration::from_secs(30);

/// Connects to NATS as `options` say (creating or checking the stream and buckets); the
/// connection and the stream's last sequence.
async fn connect(options: &Options) -> Result<(Nats, u64), NatsError> {
    let replicas = options.urls.len().clamp(1, 3);
    let nats = Nats::connect(&options.urls, &options.node, &options.cluster, replicas).await?;
    let last = nats.last().await?;
    Ok((nats, last))
}

/// What the replication thread keeps between requests.
struct Thread {
    options: Options,
    role: Arc<NodeRole>,
    restart: Arc<Notify>,
    /// The position file: where this node's data dir and the stream last agreed.
    position: Arc<PositionFile>,
    /// (epoch, revision, last renewal) while holding the lease.
    lease: Option<(u64, u64, Instant)>,
    contending: bool,
    /// The journal a standby follows the stream into, and how it applies it to memory.
    following: Option<(Journal, Apply)>,
    /// A restart was asked for.
    restarting: bool,
    /// What a standby read and has not stored yet: a split batch waits here for its last
    /// message.
    groups: Groups,
}

/// Stream messages gathered into groups of whole batches, one journal write each. A batch
/// split over several messages waits for its last one.
struct Groups {
    /// A group is handed out once it holds this many bytes.
    limit: usize,
    /// Whole batches gathered.
    group: Vec<u8>,
    /// The stream message the gathered batches end with (an epoch entry, empty, moves it
    /// too).
    end: Option<u64>,
    /// The messages of a split batch so far, and how many they are.
    partial: Vec<u8>,
    parts: u64,
}

impl Groups {
    fn new(limit: usize) -> Groups {
        Groups {
            limit,
            group: Vec::new(),
            end: None,
            partial: Vec::new(),
            parts: 0,
        }
    }

    /// Takes stream message `seq`; hands the group out if it is now full.
    fn push(&mut self, seq: u64, payload: &[u8]) -> Option<(Vec<u8>, u64)> {
        if payload.is_empty() {
            // An epoch entry: a new primary appended it after the stream's end, so a split
            // batch still waiting will never get its last part.
            self.abandon();
        }
        self.partial.extend_from_slice(payload);
        if codec::complete_frames(&self.partial) != self.partial.len() {
            self.parts += 1;
        } else {
            self.parts = 0;
            self.group.append(&mut self.partial);
            self.end = Some(seq);
            if self.group.len() >= self.limit {
                return self.take();
            }
        }
        None
    }

    /// The whole batches gathered, with the message they end with; none if no message
    /// was taken since the last group.
    fn take(&mut self) -> Option<(Vec<u8>, u64)> {
        let end = self.end.take()?;
        Some((std::mem::take(&mut self.group), end))
    }

    /// Drops the parts of a split batch whose primary never appended the rest: its writes
    /// were never answered (a primary answers a batch once every part is in the stream).
    fn abandon(&mut self) {
        if !self.partial.is_empty() {
            log::warn!(
                "dropped {} bytes of a batch its primary never finished appending",
                self.partial.len()
            );
            self.partial.clear();
            self.parts = 0;
        }
    }

    /// How many messages of a split batch wait for the rest.
    fn waiting(&self) -> u64 {
        self.parts
    }
}

/// The replication thread: connects, then serves requests, keeps the lease, and follows the
/// stream while a standby.
async fn run(
    mut thread: Thread,
    mut requests: channel::UnboundedReceiver<Request>,
    started: mpsc::Sender<Result<(), ReplicationError>>,
) {
    // NATS may be electing leaders (a node restarting after it was fenced often meets it
    // so): the first connection is tried for a while before the start fails.
    let patience = Instant::now() + CONNECT_PATIENCE;
    let mut nats = loop {
        match connect(&thread.options).await {
            Ok((nats, last)) => {
                thread.role.last.store(last, Ordering::SeqCst);
                break nats;
            }
            Err(e) if Instant::now() < patience => {
                log::warn!("NATS not ready ({e}); trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => {
                let _ = started.send(Err(ReplicationError::Connect(e)));
                return;
            }
        }
    };
    let _ = started.send(Ok(()));
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut follow = tokio::time::interval(FOLLOW_EVERY);
    let mut upkeep = tokio::time::interval(UPKEEP_EVERY);
    loop {
        tokio::select! {
            request = requests.recv() => match request {
                None => return,
                Some(request) => thread.serve(&mut nats, request, &mut tick).await,
            },
            _ = tick.tick() => {
                thread.position.flush();
                thread.keep_lease(&mut nats).await;
            }
            _ = upkeep.tick() => thread.upkeep(&mut nats).await,
            _ = follow.tick(), if thread.following.is_some() && !thread.role.is_primary() => {
                thread.follow(&mut nats).await;
            }
        }
    }
}

impl Thread {
    async fn serve(&mut self, nats: &mut Nats, request: Request, tick: &mut tokio::time::Interval) {
        match request {
            Request::Append { payload, verdict } => {
                let answer = match self.lease {
                    Some((epoch, ..)) if self.role.is_primary() => {
                        append(nats, &self.role, epoch, &payload).await
                    }
                    _ => Verdict::Fenced,
                };
                if answer == Verdict::Fenced {
                    // Not renewed any more: the lease lapses for the node that moved on.
                    self.lease = None;
                }
                let _ = verdict.send(match answer {
                    Verdict::Stored(seq) => Mirrored::Stored(seq),
                    Verdict::Fenced => Mirrored::Fenced,
                    Verdict::Resolve | Verdict::NotStored => Mirrored::NotStored,
                });
            }
            Request::Read {
                from,
                max_bytes,
                reply,
            } => {
                let _ = reply.send(read_after(nats, from, max_bytes).await);
            }
            Request::Contend => {
                self.contending = true;
                tick.reset_immediately();
            }
            Request::Release(done) => {
                if let Some((_, revision, _)) = self.lease.take() {
                    self.role.fence("the node stops");
                    nats.release_lease(&self.options.cluster, revision).await;
                }
                self.contending = false;
                let _ = done.send(());
            }
            Request::Follow(journal, apply) => self.following = Some((journal, apply)),
        }
    }

    /// Renews the lease held; else, when the lease is free and this node holds the whole
    /// stream in memory, takes it.
    async fn keep_lease(&mut self, nats: &mut Nats) {
        let (cluster, node) = (&self.options.cluster, &self.options.node);
        if let Some((epoch, revision, renewed)) = self.lease {
            match nats.renew_lease(cluster, node, revision).await {
                Ok(Some(next)) => self.lease = Some((epoch, next, Instant::now())),
                Ok(None) => {
                    self.role.fence("the lease was taken over");
                    self.lease = None;
                }
                Err(e) if renewed.elapsed() + Duration::from_secs(1) >= LEASE_TTL => {
                    self.role
                        .fence(&format!("the lease could not be renewed: {e}"));
                    self.lease = None;
                }
                Err(e) => log::warn!("lease not renewed yet: {e}"),
            }
            return;
        }
        if !self.contending || self.role.stale.load(Ordering::SeqCst) {
            return;
        }
        let last = match nats.last().await {
            Ok(last) => last,
            Err(e) => return log::warn!("stream unavailable: {e}"),
        };
        self.role.last.store(last, Ordering::SeqCst);
        METRICS
            .replication_lag
            .set((last - self.applied().min(last)) as i64);
        if self.holds_all(last) {
            self.take_lease(nats, last).await;
        }
    }

    /// Whether this node holds the stream up to `last`: stored, or the first parts of a split
    /// batch. A primary that died between the parts of a batch leaves them at the stream's
    /// end for good; they were never answered, and a new primary's epoch entry after them
    /// drops them ([`Groups::abandon`]).
    fn holds_all(&self, last: u64) -> bool {
        self.applied() + self.groups.waiting() == last
    }

    /// Takes the lease if it is free and appends the epoch entry after `last`, the stream's
    /// end, which this node holds; then serves.
    async fn take_lease(&mut self, nats: &mut Nats, last: u64) {
        match nats
            .take_lease(&self.options.cluster, &self.options.node)
            .await
        {
            Ok(Some(epoch)) => {
                // The epoch entry: an empty message in the new epoch, fenced like any append.
                match nats.append(epoch, last, Bytes::new()).await {
                    Verdict::Stored(seq) => {
                        self.groups.abandon();
                        self.role.held(seq);
                        self.lease = Some((epoch, epoch, Instant::now()));
                        self.role.promote(epoch);
                    }
                    verdict => {
                        // The stream moved on since `last` was read: give the lease back
                        // at once rather than let it lapse, and catch up first.
                        log::warn!("epoch entry not appended ({verdict:?}); lease given back");
                        nats.release_lease(&self.options.cluster, epoch).await;
                    }
                }
            }
            Ok(None) => {}
            Err(e) => log::warn!("lease not taken: {e}"),
        }
    }

    /// Says where this node's data dir is (a node without a position file needs the whole
    /// stream); on the primary, then trims the stream by its limits, keeping every message
    /// after the lowest position any node said.
    async fn upkeep(&mut self, nats: &mut Nats) {
        let (cluster, node) = (&self.options.cluster, &self.options.node);
        let held = self.position.read().map_or(0, |(seq, ..)| seq);
        if let Err(e) = nats.publish_position(cluster, node, held).await {
            return log::debug!("position not published: {e}");
        }
        if !self.role.is_primary() {
            return;
        }
        let needed = match nats.lowest_position(cluster).await {
            Ok(Some(needed)) => needed,
            Ok(None) => return,
            Err(e) => return log::warn!("positions not read: {e}"),
        };
        let (max_age, max_bytes) = (self.options.max_age, self.options.max_bytes);
        match nats.trim(max_age, max_bytes, needed).await {
            Ok(0) => {}
            Ok(trimmed) => log::info!(
                "trimmed {trimmed} stream message(s); every node holds the stream up to {needed} at least"
            ),
            Err(e) => log::warn!("stream not trimmed: {e}"),
        }
    }

    fn applied(&self) -> u64 {
        self.role.applied.load(Ordering::SeqCst)
    }

    /// A standby's look at the stream: writes each new message's entries to the journal
    /// and applies them to memory, in order, a split batch once it is whole; takes the
    /// lease when it is free and this node holds the whole stream. A stale node only looks
    /// whether the stream answers, and then asks to restart.
    async fn follow(&mut self, nats: &mut Nats) {
        let last = match nats.last().await {
            Ok(last) => last,
            Err(e) => return log::debug!("stream unavailable: {e}"),
        };
        self.role.last.store(last, Ordering::SeqCst);
        if self.role.stale.load(Ordering::SeqCst) {
            // The lease bucket answers too (its own leader may still be elected).
            let answers = nats.lease_free(&self.options.cluster).await.is_ok();
            if answers && !self.restarting {
                log::warn!("fenced, and the stream answers: restarting as a standby");
                self.restarting = true;
                self.restart.notify_one();
            }
            return;
        }
        let next = self.applied() + self.groups.waiting() + 1;
        let end = last.min(self.applied() + FOLLOW_BATCH);
        if next <= end && !self.follow_range(nats, next..=end).await {
            return;
        }
        let caught_up = self.holds_all(last);
        if self.contending
            && caught_up
            && nats
                .lease_free(&self.options.cluster)
                .await
                .unwrap_or(false)
        {
            // A primary gives the lease up after its last append: the end read before may
            // be behind by then.
            match nats.last().await {
                Ok(now) if now == last => self.take_lease(nats, last).await,
                Ok(_) => {}
                Err(e) => log::debug!("stream unavailable: {e}"),
            }
        }
    }

    /// Reads stream messages `seqs` and stores them in [`Groups`] of about
    /// [`FOLLOW_GROUP_BYTES`]: one journal sync and one apply a group, not a message (a
    /// standby that synced every message fell behind a loaded primary). False when a group
    /// could not be stored: this node is then stale and will restart.
    async fn follow_range(&mut self, nats: &Nats, seqs: RangeInclusive<u64>) -> bool {
        let mut messages = std::pin::pin!(nats.read_range(seqs));
        while let Some(read) = messages.next().await {
            match read {
                Ok((seq, payload)) => {
                    if let Some((bytes, end)) = self.groups.push(seq, &payload) {
                        if !self.store_group(bytes, end).await {
                            return false;
                        }
                    }
                }
                Err(e) => {
                    log::warn!("{e}");
                    break;
                }
            }
        }
        match self.groups.take() {
            Some((bytes, end)) => self.store_group(bytes, end).await,
            None => true,
        }
    }

    /// [`Thread::store`]s a group ending at stream message `seq`; if it cannot be stored,
    /// marks this node stale (it will restart) and says false.
    async fn store_group(&mut self, bytes: Vec<u8>, seq: u64) -> bool {
        match self.store(bytes, seq).await {
            Ok(()) => true,
            Err(e) => {
                self.role.stale.store(true, Ordering::SeqCst);
                log::error!("stream messages up to {seq}: {e}; this node will restart");
                false
            }
        }
    }

    /// Writes the whole frames `bytes` of the stream messages up to `seq` to the journal,
    /// then applies their entries to memory.
    async fn store(&mut self, bytes: Vec<u8>, seq: u64) -> Result<(), String> {
        if bytes.is_empty() {
            self.role.held(seq); // an epoch entry
            return Ok(());
        }
        let Some((journal, apply)) = &self.following else {
            return Ok(());
        };
        let entries = codec::read_frames(&bytes).ok_or("a damaged entry")?;
        let marks = entries.iter().map(|(entry, _)| Marked::of(entry)).collect();
        let (done, stored) = oneshot::channel();
        journal.follow(
            bytes,
            marks,
            seq,
            Box::new(move |result| {
                let _ = done.send(result);
            }),
        );
        stored
            .await
            .unwrap_or(Err(StorageError::Closed))
            .map_err(|e| format!("not stored: {e}"))?;
        apply(entries)
            .await
            .unwrap_or_else(|_| Err("the actors stopped".into()))
            .map_err(|e| format!("not applied: {e}"))
    }
}

/// Appends one batch (split at [`MAX_MESSAGE`] bytes when bigger), fenced at the node's
/// tail; counts its latency.
async fn append(nats: &mut Nats, role: &NodeRole, epoch: u64, payload: &[u8]) -> Verdict {
    let started = Instant::now();
    let mut verdict = Verdict::NotStored;
    for (index, part) in payload.chunks(MAX_MESSAGE - 1024).enumerate() {
        let tail = role.applied.load(Ordering::SeqCst);
        verdict = nats.append(epoch, tail, Bytes::copy_from_slice(part)).await;
        match verdict {
            Verdict::Stored(seq) => role.held(seq),
            Verdict::Fenced => {
                role.fence("the stream does not end where this node's last append did");
                break;
            }
            _ if index > 0 => {
                // The stream holds the first parts of a batch that will never be whole:
                // only a new epoch entry after them tells the nodes to drop them.
                role.fence("a batch split over several messages was cut short in the stream");
                verdict = Verdict::Fenced;
                break;
            }
            _ => break,
        }
    }
    METRICS
        .replication_append_seconds
        .observe(started.elapsed().as_secs_f64());
    verdict
}

/// The stream messages after `from`, in order: the first, then as many as fit in
/// `max_bytes` (epoch entries are empty: they append nothing to a journal).
async fn read_after(
    nats: &mut Nats,
    from: u64,
    max_bytes: usize,
) -> Result<Vec<(u64, Bytes)>, ReplicationError> {
    let last = nats.last().await?;
    let first = nats.first().await?;
    if from < last && first > from + 1 {
        return Err(ReplicationError::Trimmed {
            first,
            last,
            held: from,
        });
    }
    let (mut messages, mut bytes) = (Vec::new(), 0);
    let mut read = std::pin::pin!(nats.read_range(from + 1..=last));
    while bytes < max_bytes {
        let Some(message) = read.next().await else {
            break;
        };
        let (seq, payload) = message?;
        bytes += payload.len();
        messages.push((seq, payload));
    }
    Ok(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::codec::Entry;

    /// A batch of `entries` journal frames, as the primary appends it.
    fn batch(space: &str, entries: u64) -> Vec<u8> {
        let mut out = Vec::new();
        for up_to in 1..=entries {
            let entry = Entry::Reserve {
                space: space.into(),
                up_to,
            };
            codec::encode_entry(&entry, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn whole_batches_are_handed_out_once_a_group_is_full_and_the_rest_on_take() {
        let (one, two, three) = (batch("a", 2), batch("b", 3), batch("c", 1));
        let mut groups = Groups::new(one.len() + two.len());
        assert_eq!(groups.push(7, &one), None);
        let full = groups.push(8, &two).expect("a full group");
        assert_eq!(full, ([one.clone(), two.clone()].concat(), 8));
        assert_eq!(groups.take(), None, "nothing was taken since");
        assert_eq!(groups.push(9, &three), None);
        assert_eq!(groups.push(10, &[]), None, "an epoch entry");
        assert_eq!(groups.take(), Some((three, 10)));
        assert_eq!(groups.waiting(), 0);
    }

    #[test]
    fn a_split_batch_waits_for_its_last_message_and_counts_its_parts() {
        let whole = batch("a", 1);
        let split = batch("b", 40);
        // Cut inside a frame (a part may also end on a frame's end: then it is whole
        // frames and goes as they are, each entry being a whole write).
        let (first, rest) = split.split_at(split.len() / 2 + 3);
        let mut groups = Groups::new(usize::MAX);
        assert_eq!(groups.push(1, &whole), None);
        assert_eq!(groups.push(2, first), None);
        assert_eq!(groups.waiting(), 1);
        // Only the whole batch before the split one can go now.
        assert_eq!(groups.take(), Some((whole.clone(), 1)));
        assert_eq!(groups.take(), None);
        assert_eq!(groups.push(3, rest), None);
        assert_eq!(groups.waiting(), 0);
        assert_eq!(groups.take(), Some((split, 3)));
    }

    #[test]
    fn an_epoch_entry_drops_the_parts_of_a_batch_its_primary_never_finished() {
        let split = batch("a", 40);
        let whole = batch("b", 2);
        let mut groups = Groups::new(usize::MAX);
        assert_eq!(groups.push(5, &split[..split.len() / 2 + 3]), None);
        assert_eq!(groups.waiting(), 1);
        assert_eq!(
            groups.push(6, &split[split.len() / 2 + 3..split.len() - 5]),
            None
        );
        assert_eq!(groups.waiting(), 2);
        // A new primary's epoch entry, then its first batch: whole, not glued to the parts.
        assert_eq!(groups.push(7, &[]), None);
        assert_eq!(groups.waiting(), 0);
        assert_eq!(groups.push(8, &whole), None);
        assert_eq!(groups.take(), Some((whole, 8)));
    }
}
