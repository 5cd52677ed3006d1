//! The NATS side of replication: the stream `taskd_<cluster>` that holds the journal, the
//! lease bucket `taskd_leases`, and one fenced append. Everything here runs on the
//! replication thread's own tokio runtime (see [`super::Replicator`]).
//!
//! Written against the NATS server Debian ships (2.9): `async-nats` without its 2.10+
//! features, and the lease bucket's stream made by hand, since the client's
//! `create_key_value` first asks for account fields a 2.9 server does not send.

use std::time::Duration;

use async_nats::jetstream::context::{CreateStreamErrorKind, PublishErrorKind};
use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};
use async_nats::jetstream::{self, kv};
use bytes::Bytes;

use super::fence::{self, Appended, Verdict};

/// The lease bucket.
pub const LEASES: &str = "taskd_leases";
/// A lease not renewed for this long is gone.
pub const LEASE_TTL: Duration = Duration::from_secs(5);
/// How long an append may wait for its acknowledgement.
const ACK_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest stream message (the NATS server's default payload limit).
pub const MAX_MESSAGE: usize = 1 << 20;
/// Stream retention, by age and size (README "Running more than one node").
const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);
const MAX_BYTES: i64 = 1 << 30;

/// Why NATS could not be used.
pub type NatsError = Box<dyn std::error::Error + Send + Sync>;

/// The stream and lease bucket of one cluster, on one connection.
pub struct Nats {
    js: jetstream::Context,
    stream: jetstream::stream::Stream,
    leases: kv::Store,
    subject: String,
}

impl Nats {
    /// Connects to any of `urls` (the client fails over between them), then creates the
    /// stream of `cluster` and the lease bucket if absent (with `replicas` replicas) or
    /// checks them if present.
    pub async fn connect(
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
        let leases = ensure_leases(&js, replicas).await?;
        Ok(Nats {
            js,
            stream,
            leases,
            subject,
        })
    }

    /// The stream's last sequence (0 when empty), asked of the server.
    pub async fn last(&self) -> Result<u64, NatsError> {
        Ok(self.stream.get_info().await?.state.last_sequence)
    }

    /// The sequence of the stream's first message still kept (its limits trim the oldest).
    pub async fn first(&self) -> Result<u64, NatsError> {
        Ok(self.stream.get_info().await?.state.first_sequence)
    }

    /// Appends `payload` if and only if the stream ends at `tail`, as message
    /// `<epoch>.<tail + 1>`, and judges the answer; a lost answer is resolved from the
    /// stream before this returns.
    pub async fn append(&mut self, epoch: u64, tail: u64, payload: Bytes) -> Verdict {
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
    pub async fn take_lease(&self, cluster: &str, node: &str) -> Result<Option<u64>, NatsError> {
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
    pub async fn release_lease(&self, cluster: &str, revision: u64) {
        if let Err(e) = self
            .leases
            .delete_expect_revision(cluster, Some(revision))
            .await
        {
            log::warn!("lease not given up: {e}; it lapses");
        }
    }

    /// Whether nobody holds the lease of `cluster`.
    pub async fn lease_free(&self, cluster: &str) -> Result<bool, NatsError> {
        Ok(self.leases.get(cluster).await?.is_none())
    }

    /// Renews the lease held at `revision`; its new revision, or `None` once it is lost.
    pub async fn renew_lease(
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

    /// The payload of stream message `seq`.
    pub async fn read(&self, seq: u64) -> Result<Bytes, NatsError> {
        Ok(self.stream.get_raw_message(seq).await?.payload)
    }
}

/// The stream's configuration: the journal's subject, file storage, `replicas` copies,
/// trimmed by age and size.
fn stream_config(cluster: &str, subject: &str, replicas: usize) -> stream::Config {
    stream::Config {
        name: format!("taskd_{cluster}"),
        subjects: vec![subject.to_string()],
        storage: StorageType::File,
        num_replicas: replicas,
        retention: RetentionPolicy::Limits,
        discard: DiscardPolicy::Old,
        max_message_size: MAX_MESSAGE as i32,
        max_age: MAX_AGE,
        max_bytes: MAX_BYTES,
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

/// Creates the lease bucket's stream (history 1, entries expire after [`LEASE_TTL`]) if
/// absent, and opens the bucket.
async fn ensure_leases(js: &jetstream::Context, replicas: usize) -> Result<kv::Store, NatsError> {
    let config = stream::Config {
        name: format!("KV_{LEASES}"),
        description: Some(String::new()),
        subjects: vec![format!("$KV.{LEASES}.>")],
        max_messages_per_subject: 1,
        max_age: LEASE_TTL,
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
    Ok(js.get_key_value(LEASES).await?)
}
