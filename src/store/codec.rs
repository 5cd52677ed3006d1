//! Every byte taskd writes to disk is laid out here; the only module that uses bincode.
//!
//! # Snapshot files
//!
//! A snapshot file (`users.bin`, `keys.bin`, `spaces/<id>.bin`) is a 20-byte header and a bincode
//! payload:
//!
//! | bytes | content |
//! | --- | --- |
//! | 0..4 | magic `TSKD` |
//! | 4..6 | format version, little-endian |
//! | 6 | file kind: 1 users, 2 space, 3 idempotency keys |
//! | 7 | reserved, 0 |
//! | 8..16 | payload length, little-endian |
//! | 16..20 | CRC-32 of the payload, little-endian |
//!
//! # Journal segments
//!
//! A segment (`journal/<seq>.log`) is a run of frames, one per entry, and nothing else:
//!
//! | bytes | content |
//! | --- | --- |
//! | 0..4 | payload length `n`, little-endian |
//! | 4..8 | `!n`: a corrupt length is told from a torn one |
//! | 8..12 | CRC-32 of bytes 12.. of the frame, little-endian |
//! | 12..14 | format version, little-endian |
//! | 14..14+n | bincode of the [`Entry`] |
//!
//! # Versions
//!
//! Payloads are bincode under one pinned configuration ([`options`]) of types that derive
//! serde without `flatten`, `untagged`, internal tagging or `skip_serializing_if` (bincode
//! cannot read those back). The order of enum variants is part of the format: `Kind`
//! (task, list, schedule, category, context, view), `Value`, and [`Entry`]; new variants go last.
//! Any change to a stored type's shape needs a new [`FORMAT_VERSION`] and a decoder for
//! every older one, so that every release reads the files of every earlier release.
//! `tests/fixtures/` holds a data directory of each format version, and a test loads each.
//!
//! | version | what changed |
//! | --- | --- |
//! | 1 | snapshot files only: users, and spaces without a reservation |
//! | 2 | space snapshots carry `reserved`; the journal; the idempotency keys file |
//! | 3 | the users file holds the directory ([`DirectorySnapshot`]: users, spaces, members, tokens); journal entry [`Entry::Directory`]; a task record has two more fields, last: `predecessorIds` (`Value::Ids`) and `isBlocked` (`Value::Bool`). Task records of formats 1 and 2 (space files, journal `Write` entries) are read with `[]` and `false` appended ([`upgrade_record`]): right, since those formats had no predecessors |
//! | 4 | the directory holds pending invitations ([`DirectorySnapshot::invitations`], last); directory changes [`Change::RoleSet`] and [`Change::Accepted`] (new variants, last). A format 3 users file is read without invitations, and format 3 memberships are active |
//! | 5 | a task record has eight more fields, last (docs §18): `timeZone`, `isAllDay`, `recurrence`, `recurFrom`, `reminders` (the new `Value::Reminders`, last), `remindedAt`, `completedCount`, `lastCompletedAt`. Task records of formats 1 to 4 are read with them at their defaults appended ([`upgrade_record`]): right, since those formats had no time fields |
//! | 6 | the directory holds webhooks with their secrets and positions ([`DirectorySnapshot::webhooks`], last); directory changes [`Change::WebhookCreated`], [`Change::WebhookSet`], [`Change::WebhookDeleted`], [`Change::WebhookPositions`] and [`Change::WebhookGone`] (new variants, last). A users file of formats 3 to 5 is read without webhooks |
//! | 7 | a task record has two more fields, last (docs §20): `completedAt` (`Value::Time` or `Value::Null`) and the hidden `calendar` (the new `Value::Calendar`, last, holding a [`Calendar`](crate::model::vtodo::Calendar), or `Value::Null`). Task records of formats 1 to 6 are read with both null ([`upgrade_record`]): a task finished before format 7 shows `completedAt` null until its status next becomes finished, since those formats did not record when |
//! | 8 | a task record has one more field, last (docs §22): `parentId` (`Value::Text` or `Value::Null`). Task records of formats 1 to 7 are read with it null ([`upgrade_record`]): right, since those formats had no subtasks, so every task is a root |
//! | 9 | a task's hidden `calendar` field may hold the new `Value::Sent` (last; a [`Sent`](crate::model::vtodo::Sent): the calendar object a CalDAV client `PUT`, as sent, and the version that stored it, docs §27), which files of formats 1 to 8 hold none of; and the directory holds the budgets of scoped tokens that have one of their own ([`DirectorySnapshot::token_limits`], last; docs §25); directory change [`Change::TokenCreatedLimited`] (a new variant, last). A users file of formats 6 to 8 is read without them; and a sixth kind, `Kind::View` (docs §24), last: a space file holds its views after its contexts, and journal entries may touch views. Files of formats 1 to 8 hold no view and read as they did; and journal entry [`Entry::Written`] (new variant, last) replaces [`Entry::Write`]: a write's outcome with its [`Meta`] (its time, its actor with the door it came through, the version it reverts; docs §23). A `Write` entry of formats 2 to 8 is read with no actor and time 0 (the activity derived from it shows `actor` null and the record's `updatedAt`). The activity logs (`activity/<space>/<first>.act`, [`encode_activity`]): frames of this layout around a [`Logged`] write |
//! | 10 | a space file holds each collection's records in chunks of up to 8,192 ([`Chunks`]: a sequence of length-prefixed byte runs, each the bincode of a sequence of records), so that a large collection decodes on several threads; the records themselves are as in format 9. Space files of formats 1 to 9 hold one sequence a collection and read as they did |
//! | 11 | an activity entry ([`ActivityEntry`]) has one more field, last: `prev` (a [`Prev`], docs §23), the version of the record's entry before it, so that one record's activity is read by following its entries rather than scanning the space's (`store::activity`). Activity frames of formats 9 and 10 are read with `prev` [`Prev::Unknown`] ([`read_activity_frame`]), and a reader walks the log where a record's entries reach one. Closed activity segments get an index beside them (`activity/<space>/<first>.idx`, [`encode_activity_index`]: magic `TSKA`, format version, 2 zero bytes, the segment's length, then per frame its last version and offset, 12 bytes), derived data that is rebuilt from its segment when it is missing or does not match it. Journal entries, snapshot files and the keys file are as in format 10: only their header's or frame's version number differs |
//! | 12 | a space file holds, after its collections, the task posting lists ([`Postings`], derived data, `None` when the writer had none): each task's handle in the order of its task records, then the lists of [`TaskImage::LISTS`] (the exact-match fields, the tags, the folded words), each term with its handles as one byte run of varints (the first handle, then the gaps). A load takes them instead of folding every task's words again, when they fit the records ([`crate::model::Space::load`]); lists that do not decode are ignored with a warning, and built. The words are folded as this build folds them (`model::query::search`): a change to the folding needs a new format version, whose reader drops older lists. Space files of formats 10 and 11 read without lists, and everything else is as in format 11 |

use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::sync::Arc;

use bincode::Options;
use integer_encoding::VarInt;
use serde::ser::{SerializeSeq, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::model::activity::{
    Action, Actor, Entry as ActivityEntry, FieldChange, Logged, Meta, Prev,
};
pub use crate::model::kept::{KeptAnswer, KeyUse};
use crate::model::record::Id;
use crate::model::webhook::Webhook;
use crate::model::{
    Account, Change, DirectorySnapshot, Invited, Kind, ListOut, Outcome, PostingsOut, Record,
    Records, SpaceInfo, SpaceSnapshot, SpaceView, TaskImage, TermsImage, Token, User, Value,
};
use crate::threads::{beside, joined, Beside};

/// The format version this build writes.
pub const FORMAT_VERSION: u16 = 12;
/// The oldest format version this build reads.
const OLDEST_VERSION: u16 = 1;
/// Format 2 is the first with a journal: there is no older entry to read.
const FIRST_JOURNAL_VERSION: u16 = 2;
const MAGIC: &[u8; 4] = b"TSKD";
const HEADER_LEN: usize = 20;
/// The buffer a file's payload is encoded into before it is checksummed and written.
const WRITE_BUFFER: usize = 64 << 10;
/// Bytes of a journal frame before its payload.
pub const FRAME_HEADER_LEN: usize = 14;
/// The largest journal entry accepted, written or read.
pub const MAX_ENTRY_BYTES: usize = 64 << 20;

/// Which snapshot a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// The users file (the directory, from format 3 on).
    Users = 1,
    /// One space.
    Space = 2,
    /// The idempotency keys.
    Keys = 3,
}

/// Why bytes could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// No valid header: not a taskd file.
    #[error("not a taskd file (bad or missing header)")]
    BadHeader,
    /// A format version this build does not read.
    #[error("unknown format version {0} (this build reads {OLDEST_VERSION} to {FORMAT_VERSION})")]
    UnknownVersion(u16),
    /// A file of another kind than expected.
    #[error("holds file kind {found} where {expected} was expected")]
    WrongKind {
        /// The kind byte found.
        found: u8,
        /// The kind byte expected.
        expected: u8,
    },
    /// The payload is shorter or longer than the header says.
    #[error("truncated or padded: header says {declared} payload bytes, there are {actual}")]
    Length {
        /// The length the header declares.
        declared: u64,
        /// The bytes there are.
        actual: u64,
    },
    /// The checksum does not match: the bytes are corrupt.
    #[error("checksum mismatch: the bytes are corrupt")]
    Checksum,
    /// The payload does not decode (or encode) as the expected type.
    #[error("cannot decode payload: {0}")]
    Payload(String),
}

/// A key's use and its answer.
pub type Kept = Box<(KeyUse, KeptAnswer)>;

/// One journal entry: a write's outcome, a version reservation, a change to the directory
/// (a new user is one), or an answer kept for an idempotency key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Entry {
    /// A write to a space, as its outcome, with the answer kept for its key if it had one.
    Write {
        /// The space written.
        space: Box<str>,
        /// What the write did.
        outcome: Arc<Outcome>,
        /// The idempotency key it came with, and its answer.
        key: Option<Kept>,
    },
    /// The space may hand out versions up to `up_to` (`write` and `snapshot` durability).
    Reserve {
        /// The space.
        space: Box<str>,
        /// The highest version reserved.
        up_to: u64,
    },
    /// A user was created (formats 1 and 2; format 3 writes [`Change::UserCreated`]);
    /// `seq` is its position in creation order, which was the order of directory changes.
    User {
        /// Users created before this one.
        seq: u64,
        /// The user.
        user: User,
        /// The idempotency key it came with, and its answer.
        key: Option<Kept>,
    },
    /// An answer kept for an idempotency key whose request wrote nothing (a 4xx).
    Answer(Kept),
    /// A change to the directory: users, spaces, members, tokens.
    Directory {
        /// Its position in the order of directory changes.
        seq: u64,
        /// The change.
        change: Change,
        /// The idempotency key it came with, and its answer.
        key: Option<Kept>,
    },
    /// A write to a space (format 9 on): [`Entry::Write`] with the write's [`Meta`],
    /// which the outcome carries in memory. Decoded, it is an [`Entry::Write`] whose
    /// outcome holds the meta ([`upgrade_entry`]), so readers see one variant.
    Written {
        /// The space written.
        space: Box<str>,
        /// What the write did.
        outcome: Arc<Outcome>,
        /// The idempotency key it came with, and its answer.
        key: Option<Kept>,
        /// Its time, actor and revert.
        meta: Meta,
    },
}

impl Entry {
    /// The entry a write is journaled as: [`Entry::Written`], with the outcome's meta.
    pub fn write(space: Box<str>, outcome: Arc<Outcome>, key: Option<Kept>) -> Entry {
        let meta = outcome.meta.clone();
        Entry::Written {
            space,
            outcome,
            key,
            meta,
        }
    }
}

/// The idempotency keys file's contents: every key used in the last 24 hours.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeysSnapshot {
    /// Every key use numbered below this is in the file (or expired).
    pub covers: u64,
    /// The keys and their answers, shared with the table they were taken from.
    pub keys: Vec<Arc<(KeyUse, KeptAnswer)>>,
}

/// The one bincode configuration for reading: little-endian, variable-length integers, no
/// trailing bytes, and reads limited to the payload's length so that a bad length prefix
/// cannot ask for an absurd allocation.
fn options(limit: u64) -> impl Options {
    write_options().with_limit(limit)
}

/// [`options`] for writing: the same bytes, without a limit. (With one, bincode encodes
/// every value twice, first only to count its bytes: half of a snapshot's time.)
fn write_options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_little_endian()
        .with_varint_encoding()
        .reject_trailing_bytes()
}

fn serialize<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CodecError> {
    // `serialize_into` a vector: bincode's `serialize` counts the bytes first to size it.
    let mut bytes = Vec::new();
    write_options()
        .serialize_into(&mut bytes, value)
        .map_err(|e| CodecError::Payload(e.to_string()))?;
    Ok(bytes)
}

fn deserialize<'a, T: Deserialize<'a>>(payload: &'a [u8]) -> Result<T, CodecError> {
    options(payload.len() as u64)
        .deserialize(payload)
        .map_err(|e| CodecError::Payload(e.to_string()))
}

/// A space file's payload as this build writes it, borrowing a [`SpaceView`].
#[derive(Serialize)]
struct SpaceOut<'a> {
    id: &'a str,
    version: u64,
    reserved: u64,
    collections: Vec<(Kind, Chunks<'a>)>,
    tasks: Option<Postings<'a>>,
}

/// The task posting lists of a space file (format 12): each task's handle, in the order
/// of the file's task records, then [`TaskImage::LISTS`] lists, each a sequence of terms
/// with their handles as a byte run: the first handle, then the gap from each to the next,
/// as varints (`integer-encoding`).
struct Postings<'a>(PostingsOut<'a>);

impl Serialize for Postings<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut fields = s.serialize_tuple(2)?;
        fields.serialize_element(&Handles(self.0))?;
        let lists: Vec<List<'_>> = self.0.lists().map(List).collect();
        fields.serialize_element(&lists)?;
        fields.end()
    }
}

/// One list of [`Postings`].
struct List<'a>(ListOut<'a>);

impl Serialize for List<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut terms = s.serialize_seq(Some(self.0.len()))?;
        let mut run = Vec::new();
        for (term, handles) in self.0.terms() {
            run.clear();
            let mut last = 0;
            for handle in handles {
                push_varint(&mut run, handle - last);
                last = handle;
            }
            terms.serialize_element(&(term, Bytes(&run)))?;
        }
        terms.end()
    }
}

/// Appends `n` to `out` as a varint.
fn push_varint(out: &mut Vec<u8>, n: u32) {
    let mut bytes = [0; 5];
    let used = n.encode_var(&mut bytes);
    out.extend_from_slice(&bytes[..used]);
}

/// The tasks' handles of [`Postings`], as a sequence.
struct Handles<'a>(PostingsOut<'a>);

impl Serialize for Handles<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.task_count()))?;
        for handle in self.0.handles() {
            seq.serialize_element(&handle)?;
        }
        seq.end()
    }
}

/// [`Postings`] as read, borrowing the file's bytes.
#[derive(Deserialize)]
struct PostingsIn<'a>(Vec<u32>, #[serde(borrow)] Vec<Vec<(&'a str, &'a [u8])>>);

impl PostingsIn<'_> {
    /// The image the lists describe; `None` (after a warning) when a run does not decode
    /// or its handles are not ascending: the space loads without it.
    fn image(self) -> Option<TaskImage> {
        self.decode()
            .inspect_err(|e| log::warn!("a space file's task posting lists are ignored: {e}"))
            .ok()
    }

    fn decode(self) -> Result<TaskImage, String> {
        let mut lists = Vec::with_capacity(self.1.len());
        for terms in self.1 {
            let mut list = TermsImage::default();
            for (term, run) in terms {
                list.push(term, run)?;
            }
            lists.push(list);
        }
        Ok(TaskImage::new(self.0, lists))
    }
}

/// Records a chunk of a space file holds at most (format 10).
const CHUNK_RECORDS: usize = 8_192;

/// The records of a persistent map in id order, as a sequence of chunks: each the bincode
/// bytes of a sequence of up to [`CHUNK_RECORDS`] records, so that a reader decodes the
/// chunks of a large collection on several threads ([`decode_chunks`]).
struct Chunks<'a>(&'a Records);

impl Serialize for Chunks<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len().div_ceil(CHUNK_RECORDS)))?;
        let mut records = self.0.values();
        let mut chunk: Vec<&Arc<Record>> = Vec::with_capacity(CHUNK_RECORDS);
        let mut bytes = Vec::new();
        loop {
            chunk.clear();
            chunk.extend(records.by_ref().take(CHUNK_RECORDS));
            if chunk.is_empty() {
                break;
            }
            bytes.clear();
            write_options()
                .serialize_into(&mut bytes, &chunk)
                .map_err(serde::ser::Error::custom)?;
            seq.serialize_element(&Bytes(&bytes))?;
        }
        seq.end()
    }
}

/// Bytes written as one length-prefixed run (bincode's `serialize_bytes`), which a reader
/// borrows as a `&[u8]`.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// A space file's payload in formats 10 and 11: each collection's records in chunks.
#[derive(Deserialize)]
struct SpaceV10<'a> {
    id: Box<str>,
    version: u64,
    reserved: u64,
    #[serde(borrow)]
    collections: Vec<(Kind, Vec<&'a [u8]>)>,
}

/// A space file's payload from format 12: format 10's, then the task posting lists.
#[derive(Deserialize)]
struct SpaceV12<'a> {
    id: Box<str>,
    version: u64,
    reserved: u64,
    #[serde(borrow)]
    collections: Vec<(Kind, Vec<&'a [u8]>)>,
    #[serde(borrow)]
    tasks: Option<PostingsIn<'a>>,
}

/// The records of a collection's `chunks`, in order; the chunks of a large collection are
/// decoded on as many threads as the machine has cores.
fn decode_chunks(chunks: &[&[u8]]) -> Result<Vec<Arc<Record>>, CodecError> {
    let decode = |part: &[&[u8]]| -> Result<Vec<Vec<Arc<Record>>>, CodecError> {
        part.iter().map(|chunk| deserialize(chunk)).collect()
    };
    let threads = crate::threads::cores().min(chunks.len());
    let parts: Vec<Vec<Vec<Arc<Record>>>> = if threads <= 1 {
        vec![decode(chunks)?]
    } else {
        std::thread::scope(|scope| {
            let decoding: Vec<_> = chunks
                .chunks(chunks.len().div_ceil(threads))
                .map(|part| scope.spawn(move || decode(part)))
                .collect();
            decoding.into_iter().map(joined).collect::<Result<_, _>>()
        })?
    };
    Ok(parts.into_iter().flatten().flatten().collect())
}

/// A space file's payload in formats 2 to 9 (they differ only in the records' fields and
/// kinds).
#[derive(Deserialize)]
struct SpaceV2 {
    id: Box<str>,
    version: u64,
    reserved: u64,
    collections: Vec<(Kind, Vec<Arc<Record>>)>,
}

/// A space file's payload in format 1: no reservation.
#[derive(Deserialize)]
struct SpaceV1 {
    id: Box<str>,
    version: u64,
    collections: Vec<(Kind, Vec<Arc<Record>>)>,
}

/// Writes a space snapshot file to `out`; its length.
pub fn write_space<W: Write + Seek>(view: &SpaceView, out: &mut W) -> io::Result<u64> {
    let payload = SpaceOut {
        id: &view.id,
        version: view.version,
        reserved: view.reserved,
        collections: Kind::ALL
            .into_iter()
            .zip(&view.collections)
            .map(|(kind, records)| (kind, Chunks(records)))
            .collect(),
        tasks: view.postings().map(Postings),
    };
    write_file(FileKind::Space, &payload, out)
}

/// A space snapshot file, whole in memory (for small ones).
pub fn encode_space(view: &SpaceView) -> io::Result<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    write_space(view, &mut out)?;
    Ok(out.into_inner())
}

/// The fields of a task record before format 3 added `predecessorIds` and `isBlocked`.
const TASK_FIELDS_BEFORE_3: usize = 18;
/// The fields of a task record before format 5 added the time fields (docs §18).
const TASK_FIELDS_BEFORE_5: usize = 20;
/// The fields of a task record before format 7 added `completedAt` and `calendar`
/// (docs §20).
const TASK_FIELDS_BEFORE_7: usize = 28;
/// The fields of a task record before format 8 added `parentId` (docs §22).
const TASK_FIELDS_BEFORE_8: usize = 30;

/// How many fields a task record of format `version` has.
fn task_fields_of(version: u16) -> usize {
    match version {
        ..3 => TASK_FIELDS_BEFORE_3,
        3 | 4 => TASK_FIELDS_BEFORE_5,
        5 | 6 => TASK_FIELDS_BEFORE_7,
        7 => TASK_FIELDS_BEFORE_8,
        _ => Kind::Task.fields().len(),
    }
}

/// Brings a record of `kind` written in format `version` to this build's shape: a task of
/// an older format gets the fields later formats added, at their defaults (no task of
/// formats 1 and 2 has predecessors, so `isBlocked` is false; no task before format 5 has
/// time fields, none before format 7 calendar data, none before format 8 a parent). A record of any other length is left
/// alone for the space's own check to refuse.
fn upgrade_record(version: u16, kind: Kind, record: &mut Arc<Record>) {
    let had = task_fields_of(version);
    if kind == Kind::Task && had < kind.fields().len() && record.fields.len() == had {
        let added = kind.fields()[had..]
            .iter()
            .map(|f| Value::default_for(f.ty));
        let record = Arc::make_mut(record);
        let fields = std::mem::take(&mut record.fields).into_vec();
        record.fields = fields.into_iter().chain(added).collect();
    }
}

/// Brings every record of a decoded space or entry of format `version` to this build's
/// shape (see [`upgrade_record`]).
fn upgrade_collections(version: u16, collections: &mut [(Kind, Vec<Arc<Record>>)]) {
    for (kind, records) in collections {
        for record in records {
            upgrade_record(version, *kind, record);
        }
    }
}

fn upgrade_entry(version: u16, entry: &mut Entry) {
    if let Entry::Written {
        space,
        outcome,
        key,
        meta,
    } = entry
    {
        Arc::make_mut(outcome).meta = std::mem::take(meta);
        *entry = Entry::Write {
            space: std::mem::take(space),
            outcome: Arc::clone(outcome),
            key: key.take(),
        };
    }
    if let Entry::Write { outcome, .. } = entry {
        for step in &mut Arc::make_mut(outcome).steps {
            for touched in &mut step.touched {
                upgrade_record(version, touched.kind, &mut touched.record);
            }
        }
    }
}

/// Decodes a space snapshot file of any format version this build reads.
pub fn decode_space(bytes: &[u8]) -> Result<SpaceSnapshot, CodecError> {
    let (version, payload) = open_file(FileKind::Space, bytes)?;
    let mut snapshot = match version {
        1 => {
            let v1: SpaceV1 = deserialize(payload)?;
            SpaceSnapshot {
                id: v1.id,
                version: v1.version,
                reserved: v1.version,
                collections: v1.collections,
                tasks: None,
            }
        }
        2..=9 => {
            let v2: SpaceV2 = deserialize(payload)?;
            SpaceSnapshot {
                id: v2.id,
                version: v2.version,
                reserved: v2.reserved,
                collections: v2.collections,
                tasks: None,
            }
        }
        10 | 11 => {
            let v10: SpaceV10<'_> = deserialize(payload)?;
            let v12 = SpaceV12 {
                id: v10.id,
                version: v10.version,
                reserved: v10.reserved,
                collections: v10.collections,
                tasks: None,
            };
            decode_v12(v12)?
        }
        _ => decode_v12(deserialize(payload)?)?,
    };
    upgrade_collections(version, &mut snapshot.collections);
    Ok(snapshot)
}

/// The snapshot of a payload of format 10 on: the records' chunks decode on every core,
/// and the task posting lists beside them when the records are more than one chunk.
fn decode_v12(v12: SpaceV12<'_>) -> Result<SpaceSnapshot, CodecError> {
    let SpaceV12 {
        id,
        version,
        reserved,
        collections,
        tasks,
    } = v12;
    // A thread costs more than a small space's whole decoding: a start-up of 100,000
    // small spaces spent a third of its time starting and joining one a space.
    let apart = collections
        .iter()
        .map(|(_, chunks)| chunks.len())
        .sum::<usize>()
        > 1;
    let (collections, tasks) = std::thread::scope(|scope| {
        let tasks = tasks.map(|postings| beside(scope, apart, || postings.image()));
        let collections = (collections.into_iter())
            .map(|(kind, chunks)| Ok((kind, decode_chunks(&chunks)?)))
            .collect::<Result<_, CodecError>>();
        let tasks = tasks.and_then(Beside::value);
        (collections, tasks)
    });
    Ok(SpaceSnapshot {
        id,
        version,
        reserved,
        collections: collections?,
        tasks,
    })
}

/// Writes the users file, the directory, to `out`; its length.
pub fn write_directory<W: Write + Seek>(
    directory: &DirectorySnapshot,
    out: &mut W,
) -> io::Result<u64> {
    write_file(FileKind::Users, directory, out)
}

/// Decodes the users file of any format version this build reads. Formats 1 and 2 hold
/// users only ([`crate::model::UsersSnapshot`]); they become the directory they describe, stamped as
/// created at `now`.
pub fn decode_directory(bytes: &[u8], now: i64) -> Result<DirectorySnapshot, CodecError> {
    let (version, payload) = open_file(FileKind::Users, bytes)?;
    match version {
        1 | 2 => Ok(DirectorySnapshot::from_legacy(deserialize(payload)?, now)),
        3 => {
            let v3: DirectoryV3 = deserialize(payload)?;
            Ok(DirectorySnapshot {
                applied: v3.applied,
                accounts: v3.accounts,
                spaces: v3.spaces,
                tokens: v3.tokens,
                deleted: v3.deleted,
                invitations: Vec::new(),
                webhooks: Vec::new(),
                token_limits: Vec::new(),
            })
        }
        4 | 5 => {
            let v4: DirectoryV4 = deserialize(payload)?;
            Ok(DirectorySnapshot {
                applied: v4.applied,
                accounts: v4.accounts,
                spaces: v4.spaces,
                tokens: v4.tokens,
                deleted: v4.deleted,
                invitations: v4.invitations,
                webhooks: Vec::new(),
                token_limits: Vec::new(),
            })
        }
        6..=8 => {
            let v6: DirectoryV6 = deserialize(payload)?;
            Ok(DirectorySnapshot {
                applied: v6.applied,
                accounts: v6.accounts,
                spaces: v6.spaces,
                tokens: v6.tokens,
                deleted: v6.deleted,
                invitations: v6.invitations,
                webhooks: v6.webhooks,
                token_limits: Vec::new(),
            })
        }
        _ => deserialize(payload),
    }
}

/// The users file's payload in format 3: the directory without invitations.
#[derive(Deserialize)]
struct DirectoryV3 {
    applied: u64,
    accounts: Vec<Account>,
    spaces: Vec<SpaceInfo>,
    tokens: Vec<Token>,
    deleted: Vec<Box<str>>,
}

/// The users file's payload in formats 4 and 5: the directory without webhooks.
#[derive(Deserialize)]
struct DirectoryV4 {
    applied: u64,
    accounts: Vec<Account>,
    spaces: Vec<SpaceInfo>,
    tokens: Vec<Token>,
    deleted: Vec<Box<str>>,
    invitations: Vec<Invited>,
}

/// The users file's payload in formats 6 to 8: the directory without the tokens' own
/// budgets.
#[derive(Deserialize)]
struct DirectoryV6 {
    applied: u64,
    accounts: Vec<Account>,
    spaces: Vec<SpaceInfo>,
    tokens: Vec<Token>,
    deleted: Vec<Box<str>>,
    invitations: Vec<Invited>,
    webhooks: Vec<Webhook>,
}

/// Writes the idempotency keys file to `out`; its length.
pub fn write_keys<W: Write + Seek>(keys: &KeysSnapshot, out: &mut W) -> io::Result<u64> {
    write_file(FileKind::Keys, keys, out)
}

/// Decodes the idempotency keys file (format 2 and later).
pub fn decode_keys(bytes: &[u8]) -> Result<KeysSnapshot, CodecError> {
    let (_, payload) = open_file(FileKind::Keys, bytes)?;
    deserialize(payload)
}

/// Writes a whole file to `out`: the header, then `payload` encoded straight into `out`
/// (no copy of it in memory, one pass over it), then its length and checksum into the
/// header; the file's length.
fn write_file<W, T>(kind: FileKind, payload: &T, out: &mut W) -> io::Result<u64>
where
    W: Write + Seek,
    T: Serialize + ?Sized,
{
    let to_io = |e: bincode::Error| match *e {
        bincode::ErrorKind::Io(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
    };
    let start = out.stream_position()?;
    out.write_all(MAGIC)?;
    out.write_all(&FORMAT_VERSION.to_le_bytes())?;
    out.write_all(&[kind as u8, 0])?;
    out.write_all(&[0; 12])?; // length and checksum, once the payload is written
                              // bincode writes field by field: buffered here, the checksum runs a block at a time.
    let mut checked = io::BufWriter::with_capacity(
        WRITE_BUFFER,
        Checksummed {
            out: &mut *out,
            crc: crc32fast::Hasher::new(),
            len: 0,
        },
    );
    write_options()
        .serialize_into(&mut checked, payload)
        .map_err(to_io)?;
    let Checksummed { crc, len, .. } = checked.into_inner().map_err(|e| e.into_error())?;
    out.seek(SeekFrom::Start(start + 8))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(&crc.finalize().to_le_bytes())?;
    out.seek(SeekFrom::Start(start + HEADER_LEN as u64 + len))?;
    Ok(HEADER_LEN as u64 + len)
}

/// A writer that checksums and counts what passes through it.
struct Checksummed<'a, W> {
    out: &'a mut W,
    crc: crc32fast::Hasher,
    len: u64,
}

impl<W: Write> Write for Checksummed<'_, W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.out.write(bytes)?;
        self.crc.update(&bytes[..written]);
        self.len += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Checks a file's header and checksum; returns its format version and payload.
fn open_file(kind: FileKind, bytes: &[u8]) -> Result<(u16, &[u8]), CodecError> {
    if bytes.len() < HEADER_LEN || &bytes[..4] != MAGIC || bytes[7] != 0 {
        return Err(CodecError::BadHeader);
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if !(OLDEST_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(CodecError::UnknownVersion(version));
    }
    if bytes[6] != kind as u8 {
        return Err(CodecError::WrongKind {
            found: bytes[6],
            expected: kind as u8,
        });
    }
    let declared = u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != declared {
        return Err(CodecError::Length {
            declared,
            actual: payload.len() as u64,
        });
    }
    let crc = u32::from_le_bytes(bytes[16..20].try_into().expect("4 bytes"));
    if crc32fast::hash(payload) != crc {
        return Err(CodecError::Checksum);
    }
    Ok((version, payload))
}

/// Appends `entry` as one journal frame to `out`.
pub fn encode_entry(entry: &Entry, out: &mut Vec<u8>) -> Result<(), CodecError> {
    let payload = match entry {
        // This build writes a write with its meta (format 9).
        Entry::Write {
            space,
            outcome,
            key,
        } => serialize(&Entry::write(
            space.clone(),
            Arc::clone(outcome),
            key.clone(),
        ))?,
        _ => serialize(entry)?,
    };
    encode_frame(payload, out)
}

/// Appends one activity frame, a [`Logged`] write in the journal's frame layout, to `out`.
pub fn encode_activity(logged: &Logged, out: &mut Vec<u8>) -> Result<(), CodecError> {
    encode_frame(serialize(logged)?, out)
}

/// The whole activity frames at the start of a segment's `bytes`, and where they end: a
/// torn or damaged frame ends them.
pub fn read_activity(bytes: &[u8]) -> (Vec<Logged>, usize) {
    let mut frames = Vec::new();
    let mut at = 0;
    while let Some((logged, len)) = read_activity_frame(&bytes[at..]) {
        frames.push(logged);
        at += len;
    }
    (frames, at)
}

/// The activity frame at the start of `bytes` and its length, if it is whole and sound.
/// A frame of format 9 or 10 reads with every entry's `prev` [`Prev::Unknown`].
pub fn read_activity_frame(bytes: &[u8]) -> Option<(Logged, usize)> {
    let (version, payload) = activity_payload(bytes)?;
    let logged = match version {
        9 | 10 => deserialize::<LoggedV9>(payload).ok()?.into(),
        _ => deserialize(payload).ok()?,
    };
    Some((logged, FRAME_HEADER_LEN + payload.len()))
}

/// The bytes an activity frame starting with `header` (at least [`FRAME_HEADER_LEN`]
/// bytes) takes, by its length field; `None` when that field is damaged.
pub fn activity_frame_len(header: &[u8]) -> Option<usize> {
    let word = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().expect("4 bytes"));
    let (len, check) = (word(0), word(4));
    (len == !check && len as usize <= MAX_ENTRY_BYTES).then_some(FRAME_HEADER_LEN + len as usize)
}

/// The format version and payload of the activity frame at the start of `bytes`, if it is
/// whole, its checksum holds and this build reads its format.
fn activity_payload(bytes: &[u8]) -> Option<(u16, &[u8])> {
    if bytes.len() < FRAME_HEADER_LEN {
        return None;
    }
    let end = activity_frame_len(bytes).filter(|end| *end <= bytes.len())?;
    let crc = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if crc32fast::hash(&bytes[12..end]) != crc {
        return None;
    }
    let version = u16::from_le_bytes([bytes[12], bytes[13]]);
    (9..=FORMAT_VERSION)
        .contains(&version)
        .then(|| (version, &bytes[FRAME_HEADER_LEN..end]))
}

/// Where each whole activity frame at the start of a segment's `bytes` starts, with the
/// last version its write made, and where they end: what [`read_activity`] reads,
/// checked the same way, without decoding more of each write than its versions.
pub fn activity_offsets(bytes: &[u8]) -> (Vec<(u64, u32)>, usize) {
    let mut offsets = Vec::new();
    let mut at = 0;
    while let Some((_, payload)) = activity_payload(&bytes[at..]) {
        // A write's `base` and `version` lead its payload in every format ([`Logged`]).
        let head = options(payload.len() as u64).allow_trailing_bytes();
        let Ok((_base, version)) = head.deserialize::<(u64, u64)>(payload) else {
            break;
        };
        offsets.push((version, at as u32));
        at += FRAME_HEADER_LEN + payload.len();
    }
    (offsets, at)
}

/// A [`Logged`] write of formats 9 and 10: its entries carry no `prev`.
#[derive(Deserialize)]
struct LoggedV9 {
    base: u64,
    version: u64,
    seq: u64,
    at: i64,
    actor: Option<Actor>,
    revert_of: Option<u64>,
    entries: Vec<EntryV9>,
}

/// An activity [`ActivityEntry`] of formats 9 and 10.
#[derive(Deserialize)]
struct EntryV9 {
    version: u64,
    kind: Kind,
    id: Id,
    action: Action,
    cascade: bool,
    deleted: bool,
    changes: Vec<FieldChange>,
}

impl From<LoggedV9> for Logged {
    fn from(v9: LoggedV9) -> Logged {
        let entry = |e: EntryV9| ActivityEntry {
            version: e.version,
            kind: e.kind,
            id: e.id,
            action: e.action,
            cascade: e.cascade,
            deleted: e.deleted,
            changes: e.changes,
            prev: Prev::Unknown,
        };
        Logged {
            base: v9.base,
            version: v9.version,
            seq: v9.seq,
            at: v9.at,
            actor: v9.actor,
            revert_of: v9.revert_of,
            entries: v9.entries.into_iter().map(entry).collect(),
        }
    }
}

/// Bytes of an activity index before its rows.
pub const INDEX_HEADER_LEN: usize = 16;
/// Bytes of one row of an activity index.
pub const INDEX_ROW_LEN: usize = 12;
const INDEX_MAGIC: &[u8; 4] = b"TSKA";

/// An activity index (`activity/<space>/<first>.idx`): a header naming the length of the
/// segment it indexes, then one row per frame of it, as [`activity_offsets`] gives them.
pub fn encode_activity_index(segment_len: u64, rows: &[(u64, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(INDEX_HEADER_LEN + rows.len() * INDEX_ROW_LEN);
    out.extend_from_slice(INDEX_MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&segment_len.to_le_bytes());
    for (version, offset) in rows {
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
    }
    out
}

/// The segment length an activity index's header names; `None` for a header that is not
/// one this build writes.
pub fn read_index_header(header: &[u8; INDEX_HEADER_LEN]) -> Option<u64> {
    let version = u16::from_le_bytes([header[4], header[5]]);
    (&header[..4] == INDEX_MAGIC && version == FORMAT_VERSION && header[6..8] == [0, 0])
        .then(|| u64::from_le_bytes(header[8..].try_into().expect("8 bytes")))
}

/// One row of an activity index: a frame's last version and its offset.
pub fn read_index_row(row: &[u8; INDEX_ROW_LEN]) -> (u64, u32) {
    (
        u64::from_le_bytes(row[..8].try_into().expect("8 bytes")),
        u32::from_le_bytes(row[8..].try_into().expect("4 bytes")),
    )
}

/// Frames `payload` (the journal's layout) onto `out`.
fn encode_frame(payload: Vec<u8>, out: &mut Vec<u8>) -> Result<(), CodecError> {
    if payload.len() > MAX_ENTRY_BYTES {
        return Err(CodecError::Payload(format!(
            "entry of {} bytes is over the limit of {MAX_ENTRY_BYTES}",
            payload.len()
        )));
    }
    let len = payload.len() as u32;
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&FORMAT_VERSION.to_le_bytes());
    hasher.update(&payload);
    out.reserve(FRAME_HEADER_LEN + payload.len());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(&hasher.finalize().to_le_bytes());
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(())
}

/// How many leading bytes of `bytes` are whole frames (by their length fields; checksums
/// are checked when the frames are read).
pub fn complete_frames(bytes: &[u8]) -> usize {
    let mut at = 0;
    while bytes.len() - at >= FRAME_HEADER_LEN {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        if bytes.len() - at < FRAME_HEADER_LEN + len {
            break;
        }
        at += FRAME_HEADER_LEN + len;
    }
    at
}

/// What is at one offset of a journal segment.
#[derive(Debug)]
pub enum Frame {
    /// A whole, verified entry; the next frame starts at `end`.
    Entry {
        /// The entry.
        entry: Entry,
        /// Offset just past this frame.
        end: usize,
    },
    /// The bytes stop inside a frame, or the last frame's checksum fails, or only zero
    /// bytes are left: what a crash in the middle of an append leaves.
    Torn,
    /// A frame that is damaged with more bytes after it: not a crash, corruption.
    Corrupt(CodecError),
}

/// Reads the frame at `offset` of a segment's `bytes` (`offset` < `bytes.len()`).
pub fn read_frame(bytes: &[u8], offset: usize) -> Frame {
    let rest = &bytes[offset..];
    if rest.iter().all(|b| *b == 0) || rest.len() < FRAME_HEADER_LEN {
        return Frame::Torn;
    }
    let word = |at: usize| u32::from_le_bytes(rest[at..at + 4].try_into().expect("4 bytes"));
    let (len, check, crc) = (word(0), word(4), word(8));
    if len != !check || len as usize > MAX_ENTRY_BYTES {
        return Frame::Corrupt(CodecError::BadHeader);
    }
    let end = FRAME_HEADER_LEN + len as usize;
    if end > rest.len() {
        return Frame::Torn;
    }
    if crc32fast::hash(&rest[12..end]) != crc {
        return if end == rest.len() {
            Frame::Torn
        } else {
            Frame::Corrupt(CodecError::Checksum)
        };
    }
    let version = u16::from_le_bytes([rest[12], rest[13]]);
    if !(FIRST_JOURNAL_VERSION..=FORMAT_VERSION).contains(&version) {
        return Frame::Corrupt(CodecError::UnknownVersion(version));
    }
    // A segment may hold entries of several formats: those an older build wrote before an
    // upgrade, then this build's. Entry variants are only ever appended, so an older
    // entry decodes as this build's `Entry`; only its records need the new fields.
    match deserialize(&rest[FRAME_HEADER_LEN..end]) {
        Ok(mut entry) => {
            upgrade_entry(version, &mut entry);
            Frame::Entry {
                entry,
                end: offset + end,
            }
        }
        Err(e) => Frame::Corrupt(e),
    }
}

/// Every entry of `bytes`, which must be whole frames (a stream message), with the length
/// of its frame; `None` when a frame is damaged or cut short.
pub fn read_frames(bytes: &[u8]) -> Option<Vec<(Entry, u64)>> {
    let mut entries = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match read_frame(bytes, at) {
            Frame::Entry { entry, end } => {
                entries.push((entry, (end - at) as u64));
                at = end;
            }
            Frame::Torn | Frame::Corrupt(_) => return None,
        }
    }
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users() -> DirectorySnapshot {
        let alice = crate::model::Account {
            id: "alice".into(),
            name: "alice".into(),
            primary: crate::model::user::hash_token("token"),
            default_space: "home".into(),
            created_at: 7,
        };
        let mut directory = crate::model::DirectoryState::default();
        directory.apply(&Change::UserCreated(alice));
        directory.snapshot()
    }

    fn decode_users(bytes: &[u8]) -> Result<DirectorySnapshot, CodecError> {
        decode_directory(bytes, 0)
    }

    fn encode_users(users: &DirectorySnapshot) -> io::Result<Vec<u8>> {
        let mut out = Cursor::new(Vec::new());
        let len = write_directory(users, &mut out)?;
        assert_eq!(len, out.get_ref().len() as u64);
        Ok(out.into_inner())
    }

    #[test]
    fn a_file_round_trips() {
        let users = users();
        let bytes = encode_users(&users).unwrap();
        assert_eq!(decode_users(&bytes).unwrap(), users);
    }

    /// A collection larger than a chunk is written in several and read back whole, in
    /// order, whichever thread decoded each chunk.
    #[test]
    fn a_space_of_several_chunks_round_trips() {
        let name = Kind::Task.field_index("name").unwrap();
        let tasks: Vec<Arc<Record>> = (0..2 * CHUNK_RECORDS + 5)
            .map(|i| {
                let mut record = Record::new(Kind::Task, format!("t{i:06}").into(), i as f64, 7, 1);
                record.fields[name] = Value::Text(format!("task {i}").into());
                Arc::new(record)
            })
            .collect();
        let snapshot = SpaceSnapshot {
            id: "big".into(),
            version: 1,
            reserved: 1,
            collections: vec![(Kind::Task, tasks)],
            tasks: None,
        };
        let space = crate::model::Space::from_snapshot(snapshot.clone()).unwrap();
        let bytes = encode_space(&space.view()).unwrap();
        let read = decode_space(&bytes).unwrap();
        assert_eq!(read.collections[0], snapshot.collections[0]);
        assert!(read.collections[1..].iter().all(|(_, r)| r.is_empty()));
        assert_eq!((&*read.id, read.version, read.reserved), ("big", 1, 1));
        // The task posting lists come along, and a space loaded with them writes the same.
        assert!(read.tasks.is_some());
        let loaded = crate::model::Space::from_snapshot(read).unwrap();
        assert_eq!(encode_space(&loaded.view()).unwrap(), bytes);
    }

    /// Posting lists whose handles do not decode or are not ascending are left out: the
    /// space loads without them, and builds them.
    #[test]
    fn posting_lists_that_do_not_decode_are_left_out() {
        let lists = |run: &'static [u8]| {
            let list = vec![("a", &[1u8, 1][..]), ("b", run)];
            PostingsIn(vec![0, 1, 2], vec![list])
        };
        assert!(lists(&[0, 2]).image().is_some());
        assert!(lists(&[2, 0]).image().is_none(), "a handle twice");
        assert!(lists(&[0x80]).image().is_none(), "a varint cut short");
        assert!(
            lists(&[0xff, 0xff, 0xff, 0xff, 0x0f, 1]).image().is_none(),
            "past u32"
        );
        let unordered = vec![("b", &[1u8][..]), ("a", &[1u8][..])];
        assert!(PostingsIn(vec![0, 1], vec![unordered]).image().is_none());
    }

    /// Every flip is refused, except one that turns the format version into another this
    /// build reads with the same payload (3 into 2 for the users file): the header's
    /// version is outside the checksum, and such a flip reads back the very same data.
    #[test]
    fn every_single_byte_flip_is_refused() {
        let users = users();
        let bytes = encode_users(&users).unwrap();
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            match decode_users(&bad) {
                Err(_) => {}
                Ok(read) if (4..6).contains(&i) => assert_eq!(read, users, "flip at byte {i}"),
                Ok(_) => panic!("flip at byte {i} was accepted"),
            }
        }
    }

    /// The files of the current format's golden data directory come out byte for byte the
    /// same when read and written again: the writer still writes that format.
    #[test]
    fn the_golden_files_of_the_current_format_are_written_back_identically() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/v{FORMAT_VERSION}"));
        let written = |write: &dyn Fn(&mut Cursor<Vec<u8>>) -> io::Result<u64>| {
            let mut out = Cursor::new(Vec::new());
            write(&mut out).unwrap();
            out.into_inner()
        };
        let users = std::fs::read(dir.join("users.bin")).unwrap();
        let decoded = decode_users(&users).unwrap();
        assert_eq!(written(&|out| write_directory(&decoded, out)), users);
        let keys = std::fs::read(dir.join("keys.bin")).unwrap();
        let decoded = decode_keys(&keys).unwrap();
        assert_eq!(written(&|out| write_keys(&decoded, out)), keys);
        for entry in std::fs::read_dir(dir.join("spaces")).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            let space = crate::model::Space::from_snapshot(decode_space(&bytes).unwrap()).unwrap();
            assert_eq!(written(&|out| write_space(&space.view(), out)), bytes);
        }
    }

    /// Tasks of formats 1 and 2, in space files and in journal entries, come out with the
    /// fields format 3 added at their defaults; other kinds as they were.
    #[test]
    fn older_golden_files_read_with_the_format_3_task_fields_at_their_defaults() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let added = [Value::Ids(Box::default()), Value::Bool(false)];
        let check = |kind: Kind, record: &Record| {
            assert_eq!(record.fields.len(), kind.fields().len(), "{kind:?}");
            if kind == Kind::Task {
                let values: Vec<&Value> = record.fields.iter().collect();
                assert_eq!(
                    values[TASK_FIELDS_BEFORE_3..TASK_FIELDS_BEFORE_5],
                    added.each_ref()
                );
            }
        };
        let mut tasks = 0;
        for version in ["v1", "v2"] {
            for entry in std::fs::read_dir(fixtures.join(version).join("spaces")).unwrap() {
                let bytes = std::fs::read(entry.unwrap().path()).unwrap();
                let snapshot = decode_space(&bytes).unwrap();
                for (kind, records) in &snapshot.collections {
                    records.iter().for_each(|r| check(*kind, r));
                    tasks += records.len() * usize::from(*kind == Kind::Task);
                }
                crate::model::Space::from_snapshot(snapshot).unwrap();
            }
        }
        let segment = fixtures.join("v2/journal/00000000000000000001.log");
        let bytes = std::fs::read(segment).unwrap();
        let mut offset = 0;
        while offset < bytes.len() {
            let Frame::Entry { entry, end } = read_frame(&bytes, offset) else {
                panic!("the v2 journal does not read at {offset}");
            };
            if let Entry::Write { outcome, .. } = entry {
                for touched in outcome.touched() {
                    check(touched.kind, &touched.record);
                    tasks += usize::from(touched.kind == Kind::Task);
                }
            }
            offset = end;
        }
        assert!(tasks >= 3, "the fixtures hold tasks in files and entries");
    }

    /// The task records of golden directory `version`, in space files and in journal
    /// entries, come out with every field from position `had` on at its default; how many
    /// tasks there were.
    fn golden_tasks_read_with_later_fields_at_their_defaults(version: u16, had: usize) -> usize {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/v{version}"));
        let defaults: Vec<Value> = Kind::Task.fields()[had..]
            .iter()
            .map(|f| Value::default_for(f.ty))
            .collect();
        let mut tasks = 0;
        let mut check = |kind: Kind, record: &Record| {
            assert_eq!(record.fields.len(), kind.fields().len(), "{kind:?}");
            if kind == Kind::Task {
                let values: Vec<&Value> = record.fields.iter().skip(had).collect();
                assert_eq!(values, defaults.iter().collect::<Vec<_>>());
                tasks += 1;
            }
        };
        for entry in std::fs::read_dir(fixture.join("spaces")).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            let snapshot = decode_space(&bytes).unwrap();
            for (kind, records) in &snapshot.collections {
                records.iter().for_each(|r| check(*kind, r));
            }
            crate::model::Space::from_snapshot(snapshot).unwrap();
        }
        let bytes = std::fs::read(fixture.join("journal/00000000000000000001.log")).unwrap();
        let mut offset = 0;
        while offset < bytes.len() {
            let Frame::Entry { entry, end } = read_frame(&bytes, offset) else {
                panic!("the v{version} journal does not read at {offset}");
            };
            if let Entry::Write { outcome, .. } = entry {
                outcome.touched().for_each(|t| check(t.kind, &t.record));
            }
            offset = end;
        }
        tasks
    }

    /// Tasks of format 4 come out with the time fields format 5 added (and the calendar
    /// fields of format 7) at their defaults.
    #[test]
    fn format_4_golden_files_read_with_the_time_fields_at_their_defaults() {
        let tasks = golden_tasks_read_with_later_fields_at_their_defaults(4, TASK_FIELDS_BEFORE_5);
        assert!(tasks >= 6, "the fixture holds tasks in files and entries");
    }

    /// Tasks of formats 5 and 6 come out with `completedAt` and `calendar` null.
    #[test]
    fn format_5_and_6_golden_files_read_with_the_calendar_fields_at_their_defaults() {
        for version in [5, 6] {
            let tasks = golden_tasks_read_with_later_fields_at_their_defaults(
                version,
                TASK_FIELDS_BEFORE_7,
            );
            assert!(
                tasks >= 6,
                "the fixture of format {version} holds tasks in files and entries"
            );
        }
    }

    /// Tasks of format 7 come out with `parentId` null: every one a root.
    #[test]
    fn format_7_golden_files_read_with_every_task_a_root() {
        let tasks = golden_tasks_read_with_later_fields_at_their_defaults(7, TASK_FIELDS_BEFORE_8);
        assert!(tasks >= 6, "the fixture holds tasks in files and entries");
    }

    /// The format 9 golden directory holds objects kept as sent (`Value::Sent`) both in a
    /// space file and in a journal entry, so the golden test covers both readers.
    #[test]
    fn format_9_golden_files_hold_objects_as_sent_in_a_file_and_in_the_journal() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v9");
        let sent = |r: &Record| r.fields.iter().any(|v| v.as_sent().is_some());
        let mut in_files = 0;
        for entry in std::fs::read_dir(fixture.join("spaces")).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            for (_, records) in decode_space(&bytes).unwrap().collections {
                in_files += records.iter().filter(|r| sent(r)).count();
            }
        }
        let bytes = std::fs::read(fixture.join("journal/00000000000000000001.log")).unwrap();
        let (mut offset, mut in_entries) = (0, 0);
        while offset < bytes.len() {
            let Frame::Entry { entry, end } = read_frame(&bytes, offset) else {
                panic!("the v9 journal does not read at {offset}");
            };
            if let Entry::Write { outcome, .. } | Entry::Written { outcome, .. } = entry {
                in_entries += outcome.touched().filter(|t| sent(&t.record)).count();
            }
            offset = end;
        }
        assert!(in_files >= 2 && in_entries >= 2, "{in_files} {in_entries}");
    }

    #[test]
    fn truncation_other_kinds_and_versions_are_refused() {
        let bytes = encode_users(&users()).unwrap();
        for len in 0..bytes.len() {
            assert!(decode_users(&bytes[..len]).is_err());
        }
        assert!(matches!(
            decode_space(&bytes),
            Err(CodecError::WrongKind {
                found: 1,
                expected: 2
            })
        ));
        let mut future = bytes.clone();
        future[4] = FORMAT_VERSION as u8 + 1;
        assert_eq!(
            decode_users(&future),
            Err(CodecError::UnknownVersion(FORMAT_VERSION + 1))
        );
    }

    fn entry(n: u64) -> Entry {
        Entry::Reserve {
            space: "s".into(),
            up_to: n,
        }
    }

    fn frames(entries: &[Entry]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for e in entries {
            encode_entry(e, &mut bytes).unwrap();
        }
        bytes
    }

    #[test]
    fn frames_read_back_in_order() {
        let bytes = frames(&[entry(1), entry(2)]);
        let Frame::Entry { entry: first, end } = read_frame(&bytes, 0) else {
            panic!("no first entry")
        };
        assert_eq!(first, entry(1));
        let Frame::Entry { entry: second, end } = read_frame(&bytes, end) else {
            panic!("no second entry")
        };
        assert_eq!((second, end), (entry(2), bytes.len()));
    }

    #[test]
    fn a_cut_last_frame_is_torn_and_damage_before_more_bytes_is_corrupt() {
        let bytes = frames(&[entry(1), entry(2)]);
        let Frame::Entry { end: second, .. } = read_frame(&bytes, 0) else {
            panic!("no first entry")
        };
        for cut in second + 1..bytes.len() {
            assert!(
                matches!(read_frame(&bytes[..cut], second), Frame::Torn),
                "{cut}"
            );
        }
        let mut zeroed = bytes[..second].to_vec();
        zeroed.extend_from_slice(&[0; 40]);
        assert!(matches!(read_frame(&zeroed, second), Frame::Torn));
        for i in 0..second {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert!(
                matches!(read_frame(&bad, 0), Frame::Corrupt(_)),
                "flip at {i} of a frame with more after it"
            );
        }
        let mut last = bytes.clone();
        *last.last_mut().unwrap() ^= 0x10;
        assert!(matches!(read_frame(&last, second), Frame::Torn));
    }
}
