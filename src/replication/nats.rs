//! The NATS side of replication: the stream `taskd_<cluster>` that holds the journal, the
//! lease bucket `taskd_leases`, the bucket `taskd_positions` where each node says which
//! stream message it needs from (for the trimming of the stream), and one fenced append. Everything here runs on the
//! replication thread's own tokio runtime (see [`super::Replicator`]).
//!
//! Written against the NATS server Debian ships (2.9): `async-nats` without its 2.10+
//! features, and the lease bucket's stream made by hand, since the client's
//! `create_key_value` first asks for account fields a 2.9 server does not send.

use std::ops::RangeInclusive;
use std::time::Duration;

use async_nats::jetstream::context::{CreateStreamErrorKind, PublishErrorKind};
use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};
use async_nats::jetstream::{self, kv};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};

use super::fence::{self, Appended, Verdict};

/// The lease bucket.
pub(super) const LEASES: &str = "taskd_leases";
/// The bucket of the nodes' positions: key `<cluster>.<node>`, value the last stream
/// sequence the node's data dir holds (a restart reads the stream after it).
const POSITIONS: &str = "taskd_positions";
/// A node that has not said where it is for this long is no longer waited for.
const POSITION_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
/// A lease not renewed for this long is gone.
pub(super) const LEASE_TTL: Duration = Duration::from_secs(5);
/// How long an append may wait for its acknowledgement.
const ACK_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest stream message (the NATS server's default payload limit).
pub(super) const MAX_MESSAGE: usize = 1 << 20;
/// How many stream messages [`Nats::read_range`] asks for at once.
const READ_AHEAD: usize = 64;

/// Why NATS could not be used.
pub(super) type NatsError = Box<dyn std::error::Error + Send + Sync>;

/// The stream and buckets of one cluster, on one connection.
pub(super) struct Nats {
    js: jetstream::Context,
    stream: jetstream::stream::Stream,
    leases: kv::Store,
    positions: kv::Store,
    subject: String,
}

impl Nats {
    /// Connects to any of `urls` (the client fails over between them), then creates the
    /// stream of `cluster` and the lease bucket if absent (with `replicas` replicas) or
    /// checks them if present.
    pub(super) async fn connect(
        urls: &[String],
        node: &str,
        cluster: &str,
        replicas: usize,
    ) -> Result<Nats, NatsError> {
        let addresses = urls
            .iter()
            .map(|u| u.parse::<async_nats::ServerAddr>())
            .collect::<Result<Vec<_>, _>>()?;
        let client = async_nats::ConnectOptions::new()
            .name(format!("taskd {node}"))
            .connection_timeout(Duration::from_secs(2))
            .connect(addresses)
            .await?;
        let js = jetstream::ContextBuilder::new()
            .timeout(ACK_TIMEOUT)
            .build(client);
        let subject = format!("taskd.{cluster}.log");
        let stream = ensure_stream(&js, cluster, &subject, replicas).await?;
        let leases = ensure_bucket(&js, LEASES, LEASE_TTL, replicas).await?;
        let positions = ensure_bucket(&js, POSITIONS, POSITION_TTL, replicas).await?;
        Ok(Nats {
            js,
            stream,
            leases,
            positions,
            subject,
        })
    }

    /// The stream's last sequence (0 when empty), asked of the server.
    pub(super) async fn last(&self) -> Result<u64, NatsError> {
        Ok(self.stream.get_info().await?.state.last_sequence)
    }

    /// The sequence of the stream's first message still kept (its limits trim the oldest).
    pub(super) async fn first(&self) -> Result<u64, NatsError> {
        Ok(self.stream.get_info().await?.state.first_sequence)
    }

    /// Appends `payload` if and only if the stream ends at `tail`, as message
    /// `<epoch>.<tail + 1>`, and judges the answer; a lost answer is resolved from the
    /// stream before this returns.
    pub(super) async fn append(&mut self, epoch: u64, tail: u64, payload: Bytes) -> Verdict {
        let id = fence::message_id(epoch, tail);
        let publish = PublishMessage::build()
            .payload(payload)
            .expected_last_sequence(tail)
            .message_id(id.clone());
        let ack = match self.js.send_publish(self.subject.clone(), publish).await {
            Ok(pending) => pending.await,
            Err(e) => Err(e),
        };
        let appended = match ack {
            Ok(ack) => Appended::Stored {
                seq: ack.sequence,
                duplicate: ack.duplicate,
            },
            Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => {
                Appended::WrongLastSequence
            }
            Err(e) => {
                log::warn!("stream append at {tail} has no answer: {e}");
                Appended::Unknown
            }
        };
        match fence::judge(tail, &appended) {
            Verdict::Resolve => self.resolve(tail, &id).await,
            verdict => verdict,
        }
    }

    /// Reads the stream at `tail + 1` to learn whether an append with id `ours` is there.
    /// While the stream cannot answer either, the append counts as not stored only once the
    /// stream says so: this waits (the journal's stall bound answers the requests meanwhile).
    async fn resolve(&mut self, tail: u64, ours: &str) -> Verdict {
        loop {
            let found = async {
                let last = self.last().await?;
                let id = if last > tail {
                    let message = self.stream.get_raw_message(tail + 1).await?;
                    message
                        .headers
                        .get("Nats-Msg-Id")
                        .map(|v| v.as_str().to_string())
                } else {
                    None
                };
                Ok::<_, NatsError>((last, id))
            };
            match found.await {
                Ok((last, id)) => return fence::resolve(tail, last, id.as_deref(), ours),
                Err(e) => {
                    log::warn!("cannot read the stream to resolve the append at {tail}: {e}");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    }

    /// Takes the lease of `cluster` for `node` if nobody holds it; its revision, which is
    /// also this node's epoch.
    pub(super) async fn take_lease(
        &self,
        cluster: &str,
        node: &str,
    ) -> Result<Option<u64>, NatsError> {
        match self.leases.create(cluster, node.to_string().into()).await {
            Ok(revision) => Ok(Some(revision)),
            Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Gives up the lease held at `revision` (a planned stop), so a standby takes it at once.
    /// (Two standbys that `create` it at the same moment can both be told they won, as the
    /// key then holds a delete marker; the epoch entry's fenced append still lets only one
    /// of them lead.)
    pub(super) async fn release_lease(&self, cluster: &str, revision: u64) {
        if let Err(e) = self
            .leases
            .delete_expect_revision(cluster, Some(revision))
            .await
        {
            log::warn!("lease not given up: {e}; it lapses");
        }
    }

    /// Whether nobody holds the lease of `cluster`.
    pub(super) async fn lease_free(&self, cluster: &str) -> Result<bool, NatsError> {
        Ok(self.leases.get(cluster).await?.is_none())
    }

    /// Renews the lease held at `revision`; its new revision, or `None` once it is lost.
    pub(super) async fn renew_lease(
        &self,
        cluster: &str,
        node: &str,
        revision: u64,
    ) -> Result<Option<u64>, NatsError> {
        match self
            .leases
            .update(cluster, node.to_string().into(), revision)
            .await
        {
            Ok(revision) => Ok(Some(revision)),
            Err(e) if e.kind() == kv::UpdateErrorKind::WrongLastRevision => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Says that this node's data dir holds the stream up to `seq`.
    pub(super) async fn publish_position(
        &self,
        cluster: &str,
        node: &str,
        seq: u64,
    ) -> Result<(), NatsError> {
        self.positions
            .put(format!("{cluster}.{node}"), seq.to_string().into())
            .await?;
        Ok(())
    }

    /// The lowest position a node of `cluster` said it holds, if any did.
    pub(super) async fn lowest_position(&self, cluster: &str) -> Result<Option<u64>, NatsError> {
        use futures_util::TryStreamExt;
        let prefix = format!("{cluster}.");
        let keys: Vec<String> = self.positions.keys().await?.try_collect().await?;
        let mut lowest = None;
        for key in keys.iter().filter(|k| k.starts_with(&prefix)) {
            let held = self.positions.get(key).await?;
            if let Some(seq) = held.and_then(|v| std::str::from_utf8(&v).ok()?.parse::<u64>().ok())
            {
                lowest = Some(lowest.map_or(seq, |l: u64| l.min(seq)));
            }
        }
        Ok(lowest)
    }

    /// Trims the stream by `max_age` and `max_bytes`, but keeps every message after
    /// `needed` (the lowest position of a node); how many messages went.
    pub(super) async fn trim(
        &mut self,
        max_age: Duration,
        max_bytes: u64,
        needed: u64,
    ) -> Result<u64, NatsError> {
        let state = self.stream.get_info().await?.state.clone();
        if state.messages == 0 {
            return Ok(0);
        }
        let (first, last) = (state.first_sequence, state.last_sequence);
        // By size: keep as many of the newest messages as fit, at their average size.
        let mut keep_from = first;
        if state.bytes > max_bytes {
            let fit = (max_bytes as u128 * state.messages as u128 / state.bytes as u128) as u64;
            keep_from = keep_from.max(last + 1 - fit.min(last + 1 - first));
        }
        // By age: the first message not older than `max_age` (a binary search on times).
        let cutoff = chrono::Utc::now().timestamp() - max_age.as_secs() as i64;
        let (mut low, mut high) = (keep_from, last + 1);
        while low < high {
            let middle = low + (high - low) / 2;
            if self
                .stream
                .get_raw_message(middle)
                .await?
                .time
                .unix_timestamp()
                < cutoff
            {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        let keep_from = low.min(needed + 1);
        if keep_from <= first {
            return Ok(0);
        }
        self.stream.purge().sequence(keep_from).await?;
        Ok(keep_from - first)
    }

    /// The payload of stream message `seq`.
    pub(super) async fn read(&self, seq: u64) -> Result<Bytes, NatsError> {
        Ok(self.stream.get_raw_message(seq).await?.payload)
    }

    /// The payloads of stream messages `seqs`, in order, with [`READ_AHEAD`] requests under
    /// way at a time: one request at a time waits a round trip a message, and a standby
    /// reading so fell behind a loaded primary (about 600 messages a second against 1,100).
    pub(super) fn read_range(
        &self,
        seqs: RangeInclusive<u64>,
    ) -> impl Stream<Item = Result<(u64, Bytes), NatsError>> + '_ {
        futures_util::stream::iter(seqs)
            .map(move |seq| async move {
                match self.read(seq).await {
                    Ok(payload) => Ok((seq, payload)),
                    Err(e) => Err(format!("stream message {seq} not read: {e}").into()),
                }
            })
            .buffered(READ_AHEAD)
    }
}

/// The stream's configuration: the journal's subject, file storage, `replicas` copies, no
/// limits of its own: the primary trims it ([`Nats::trim`]), never past what a node needs.
fn stream_config(cluster: &str, subject: &str, replicas: usize) -> stream::Config {
    stream::Config {
        name: format!("taskd_{cluster}"),
        subjects: vec![subject.to_string()],
        storage: StorageType::File,
        num_replicas: replicas,
        retention: RetentionPolicy::Limits,
        discard: DiscardPolicy::Old,
        max_message_size: MAX_MESSAGE as i32,
        duplicate_window: Duration::from_secs(120),
        ..Default::default()
    }
}

/// Creates the stream, or checks the one there: file storage, its replicas and subject.
async fn ensure_stream(
    js: &jetstream::Context,
    cluster: &str,
    subject: &str,
    replicas: usize,
) -> Result<jetstream::stream::Stream, NatsError> {
    let want = stream_config(cluster, subject, replicas);
    match js.create_stream(want.clone()).await {
        Ok(stream) => Ok(stream),
        Err(e) => match e.kind() {
            CreateStreamErrorKind::JetStream(je)
                if je.error_code() == jetstream::ErrorCode::STREAM_NAME_EXIST =>
            {
                let stream = js.get_stream(&want.name).await?;
                let have = &stream.cached_info().config;
                if have.storage != StorageType::File
                    || have.num_replicas != want.num_replicas
                    || have.subjects != want.subjects
                {
                    return Err(format!(
                        "stream {} exists with storage {:?}, {} replicas, subjects {:?}",
                        want.name, have.storage, have.num_replicas, have.subjects
                    )
                    .into());
                }
                Ok(stream)
            }
            _ => Err(e.into()),
        },
    }
}

/// Creates the stream of key-value bucket `name` (history 1, entries expire after `ttl`)
/// if absent, and opens the bucket. By hand: the client's `create_key_value` fails on 2.9.
async fn ensure_bucket(
    js: &jetstream::Context,
    name: &str,
    ttl: Duration,
    replicas: usize,
) -> Result<kv::Store, NatsError> {
    let config = stream::Config {
        name: format!("KV_{name}"),
        description: Some(String::new()),
        subjects: vec![format!("$KV.{name}.>")],
        max_messages_per_subject: 1,
        max_age: ttl,
        max_bytes: -1,
        max_message_size: -1,
        storage: StorageType::File,
        allow_rollup: true,
        deny_delete: true,
        deny_purge: false,
        allow_direct: true,
        num_replicas: replicas,
        discard: DiscardPolicy::New,
        ..Default::default()
    };
    if let Err(e) = js.create_stream(config).await {
        let exists = matches!(e.kind(), CreateStreamErrorKind::JetStream(je)
            if je.error_code() == jetstream::ErrorCode::STREAM_NAME_EXIST);
        if !exists {
            return Err(e.into());
        }
    }
    Ok(js.get_key_value(name).await?)
}
