//! The subcommands besides serving: `backup`, `export`, `import` and `healthcheck`.
//!
//! They sit beside [`startup`](crate::startup), above the layers: the copy of a data
//! directory is [`store::backup`](crate::store::backup); a record is written as the API
//! renders it ([`RecordJson`]) and read back through the same validation as a `POST` body
//! ([`parse_changes`]); the records go into a space as one [`Space::apply`], like a batch.
//!
//! Export line format (NDJSON, one record a line):
//! `{"kind":"task","spaceId":"...","record":{...}}`, `kind` being the singular noun.
//! Per space, every kind but tasks comes first and tasks last, deleted records included, so
//! a replay in file order creates each record after those it references.

use std::borrow::Cow;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use crate::config::Tool;
use crate::ical::kept_calendar;
use crate::model::calendar::Calendar;
use crate::model::limits::CALENDAR_KEPT_MAX_BYTES;
use crate::model::validate::{parse_changes, parse_kept, READ_ONLY};
use crate::model::{Changes, Command, FieldType, Kind, Mode, Op, Space, SpaceError, Value};
use crate::store::backup::{self, BackupError};
use crate::store::{replace_file, Problem, Store, StoreError};
use crate::wire::RecordJson;
use taskd_bench::BenchError;
use taskd_progress::Progress;

/// How long the health check waits to connect, and then for the answer.
const HEALTHCHECK_TIMEOUT: Duration = Duration::from_secs(3);

/// Why a subcommand failed; printed as `taskd: <error>` with exit code 1 (2 for a bench
/// whose answers were wrong: see [`ToolError::exit_code`]).
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// `taskd bench` could not run.
    #[error("{0}")]
    Bench(#[source] BenchError),
    /// `taskd bench` ran, and some answers were errors (its table says which).
    #[error("bench: some answers were errors (see the table)")]
    WrongAnswers,
    /// The copy of the data directory failed.
    #[error("backup failed: {0}")]
    Backup(#[from] BackupError),
    /// The data directory could not be read or written.
    #[error("data file {0}")]
    Store(#[from] StoreError),
    /// The data directory does not exist.
    #[error("{}: no such data directory", .0.display())]
    NoDataDir(PathBuf),
    /// A server holds the data directory's lock.
    #[error("{} is in use by a running taskd (its LOCK is held); stop the server, then \
             import again", .0.display())]
    InUse(PathBuf),
    /// No user has this name or id.
    #[error("no user named '{0}'")]
    NoSuchUser(String),
    /// Several users have this name; their ids.
    #[error("several users are named '{0}'; pass one of their ids: {ids}", ids = .1.join(", "))]
    AmbiguousUser(String, Vec<String>),
    /// No user of the data directory owns this space.
    #[error("no user owns a space '{0}'")]
    NoSuchSpace(String),
    /// A line of the import file is refused.
    #[error("line {line}: {message}; nothing was imported")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// Why.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {1}", path = .0.display())]
    Io(PathBuf, #[source] io::Error),
    /// The health check did not get `200`.
    #[error("unhealthy: {0}")]
    Unhealthy(String),
}

impl ToolError {
    /// The process's exit code: 2 when a bench's answers were wrong, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            ToolError::WrongAnswers => 2,
            _ => 1,
        }
    }
}

/// Runs `tool` on the data directory `data_dir`; the one-line summary goes to stdout (to
/// stderr for an export to stdout, which holds the records).
pub fn run(data_dir: &Path, tool: &Tool) -> Result<(), ToolError> {
    let stdout = PathBuf::from("<stdout>");
    let say = |line: String| {
        writeln!(io::stdout(), "{line}").map_err(|e| ToolError::Io(stdout.clone(), e))
    };
    match tool {
        Tool::Backup { to } => {
            let progress = Progress::bytes("backing up", None);
            let (summary, _) = backup::backup_with(data_dir, to, &progress)?;
            progress.finish();
            say(format!(
                "backed up {} to {}: {} space(s), {} user(s), {} bytes",
                data_dir.display(),
                to.display(),
                summary.spaces,
                summary.users,
                summary.bytes
            ))
        }
        Tool::Export { user, to } => {
            let summary = match to {
                // Replaced whole or not at all: a crash never leaves half an export there.
                Some(path) => {
                    replace_file(path, |out| export(data_dir, user.as_deref(), out, path))?
                }
                None => export(data_dir, user.as_deref(), io::stdout().lock(), &stdout)?,
            };
            let line = format!(
                "exported {} record(s) of {} space(s)",
                summary.records, summary.spaces
            );
            match to {
                Some(_) => say(line),
                None => writeln!(io::stderr(), "{line}").map_err(|e| ToolError::Io(stdout, e)),
            }
        }
        Tool::Import { space, file } => {
            let input = File::open(file).map_err(|e| ToolError::Io(file.clone(), e))?;
            // A pipe's length says nothing of what will come through it.
            let size = input
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            let summary = import(data_dir, space, BufReader::new(input), size, file)?;
            say(format!(
                "imported {} record(s) ({} deleted) into space {space}, now at version {}",
                summary.records, summary.deleted, summary.version
            ))
        }
        Tool::Healthcheck { url } => healthcheck(url),
        Tool::Bench(options) => match taskd_bench::run(options) {
            Ok(true) => Ok(()),
            Ok(false) => Err(ToolError::WrongAnswers),
            Err(e) => Err(ToolError::Bench(e)),
        },
    }
}

/// What an export wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportSummary {
    /// Records written.
    pub records: usize,
    /// Spaces they came from.
    pub spaces: usize,
}

/// One line of an export.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LineOut<'a> {
    kind: &'static str,
    space_id: &'a str,
    record: RecordJson<'a>,
    /// What a task keeps for calendar clients (docs §20), which the API's rendering
    /// of the record does not show. An object kept as a client sent it (docs §27) is
    /// exported as what it keeps, like any other: the import renders it anew.
    #[serde(skip_serializing_if = "Option::is_none")]
    calendar: Option<Cow<'a, Calendar>>,
}

/// Writes the records of every space of `data_dir` (of `user`'s spaces only, when given: a
/// name or a user id) to `out` as NDJSON. Reads a backup taken into a temporary directory,
/// so a server may be running on `data_dir`; `name` names `out` in errors. Draws its
/// progress on stderr when that is a terminal: the bytes of the copy, then the records.
pub fn export(
    data_dir: &Path,
    user: Option<&str>,
    mut out: impl Write,
    name: &Path,
) -> Result<ExportSummary, ToolError> {
    let temp = TempDir::new()?;
    let copying = Progress::bytes("copying", None);
    let (_, recovered) = backup::backup_with(data_dir, &temp.0, &copying)?;
    copying.finish();
    let mut ids: Vec<&str> = match user {
        None => recovered.spaces.keys().map(|id| &**id).collect(),
        Some(wanted) => {
            let directory = &recovered.directory;
            let by_id: Vec<_> = directory.accounts().filter(|u| *u.id == *wanted).collect();
            let by_name: Vec<_> = directory
                .accounts()
                .filter(|u| *u.name == *wanted)
                .collect();
            let found = match (by_id.as_slice(), by_name.as_slice()) {
                ([user], _) | ([], [user]) => user,
                ([], []) => return Err(ToolError::NoSuchUser(wanted.into())),
                (_, several) => {
                    let mut ids: Vec<String> = several.iter().map(|u| u.id.to_string()).collect();
                    ids.sort();
                    return Err(ToolError::AmbiguousUser(wanted.into(), ids));
                }
            };
            directory
                .spaces()
                .filter(|s| s.members.contains_key(&found.id))
                .map(|s| &*s.id)
                .collect()
        }
    };
    ids.sort_unstable();
    let order = Kind::ALL
        .into_iter()
        .filter(|k| *k != Kind::Task)
        .chain([Kind::Task]);
    let total = ids
        .iter()
        .filter_map(|id| recovered.spaces.get(*id))
        .map(|space| {
            space
                .view()
                .collections
                .iter()
                .map(|c| c.len() as u64)
                .sum::<u64>()
        })
        .sum();
    let progress = Progress::records("exporting", Some(total));
    let mut records = 0;
    let io = |e| ToolError::Io(name.to_path_buf(), e);
    for id in &ids {
        // A user's space without a snapshot or an entry has no records.
        let Some(space) = recovered.spaces.get(*id) else {
            continue;
        };
        let view = space.view();
        for kind in order.clone() {
            for record in view.collections[kind.index()].values() {
                let line = LineOut {
                    kind: kind.noun(),
                    space_id: id,
                    record: RecordJson {
                        kind,
                        space: id,
                        record,
                    },
                    calendar: (kind == Kind::Task)
                        .then(|| kept_calendar(record))
                        .flatten(),
                };
                serde_json::to_writer(&mut out, &line).map_err(|e| io(e.into()))?;
                out.write_all(b"\n").map_err(io)?;
                records += 1;
                progress.advance(1);
            }
        }
    }
    out.flush().map_err(io)?;
    progress.finish();
    Ok(ExportSummary {
        records,
        spaces: ids.len(),
    })
}

/// A directory under the system's temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, ToolError> {
        let path = std::env::temp_dir().join(format!("taskd-export-{}", uuid::Uuid::new_v4()));
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| ToolError::Io(path.clone(), e))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.0) {
            log::warn!("cannot remove {}: {e}", self.0.display());
        }
    }
}

/// What an import did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportSummary {
    /// Records created.
    pub records: usize,
    /// How many of them were then deleted.
    pub deleted: usize,
    /// The space version after the import.
    pub version: u64,
}

/// One line of an import file; `spaceId` is read and ignored (the target space is given).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineIn {
    kind: String,
    #[serde(rename = "spaceId")]
    _space_id: Option<Json>,
    record: Map<String, Json>,
    calendar: Option<Calendar>,
}

/// Loads the records of an export (`input`, named `name` in errors) into `space`, an
/// existing space of `data_dir`, all or nothing; the server must not be running. Draws
/// its progress on stderr when that is a terminal: the bytes read of `input` (of `size`,
/// when known), then what it is doing.
///
/// Every record is created with its own id and field values, checked as a `POST` body is
/// (read-only fields such as `isBlocked` are the space's to work out); task predecessors
/// are set by an update once every record is created, since an export lists tasks by id,
/// not in dependency order; records marked deleted are soft-deleted last, so references
/// to them resolve. All of it is one write of the space (one version per record and per
/// deletion), so `createdAt`, `updatedAt`, `deletedAt` and `versionUpdatedAt` are the
/// import's, and the space's version only goes up. The space's snapshot is then replaced;
/// the journal's older entries of the space stay, covered by it, and are skipped on replay.
pub fn import(
    data_dir: &Path,
    space_id: &str,
    mut input: impl BufRead,
    size: Option<u64>,
    name: &Path,
) -> Result<ImportSummary, ToolError> {
    if !data_dir.is_dir() {
        return Err(ToolError::NoDataDir(data_dir.to_path_buf()));
    }
    let store = Store::open(data_dir)?;
    let _lock = store.lock().map_err(|e| match e.problem {
        Problem::Locked => ToolError::InUse(data_dir.to_path_buf()),
        _ => ToolError::Store(e),
    })?;
    let loading = Progress::step("loading the data directory");
    let mut recovered = store.recover()?;
    loading.finish();
    if recovered.directory.space(space_id).is_none() {
        return Err(ToolError::NoSuchSpace(space_id.into()));
    }
    let mut space = recovered
        .spaces
        .remove(space_id)
        .unwrap_or_else(|| Space::new(space_id));

    let mut creates = Vec::new();
    let mut links = Vec::new();
    let mut deletes = Vec::new();
    let progress = Progress::bytes("importing", size);
    let mut line = String::new();
    let mut line_no = 0;
    loop {
        line.clear();
        let read = input
            .read_line(&mut line)
            .map_err(|e| ToolError::Io(name.to_path_buf(), e))?;
        if read == 0 {
            break;
        }
        progress.advance(read as u64);
        line_no += 1;
        if line.trim().is_empty() {
            continue;
        }
        let (command, link, deleted) =
            command_of(line.trim_end()).map_err(|message| ToolError::Line {
                line: line_no,
                message,
            })?;
        if let Some(link) = link {
            links.push((line_no, link));
        }
        if deleted {
            let delete = Command {
                kind: command.kind,
                id: command.id.clone(),
                op: Op::SetDeleted(true),
                if_match: None,
            };
            deletes.push((line_no, delete));
        }
        creates.push((line_no, command));
    }
    let records = creates.len();
    let deleted = deletes.len();
    let (lines, commands): (Vec<usize>, Vec<Command>) =
        creates.into_iter().chain(links).chain(deletes).unzip();
    if commands.is_empty() {
        return Ok(ImportSummary {
            records,
            deleted,
            version: space.version(),
        });
    }
    progress.stage(&format!("applying {} change(s)", commands.len()));
    let now = chrono::Utc::now().timestamp_millis();
    space
        .apply(&commands, now)
        .map_err(|(index, e): (usize, SpaceError)| ToolError::Line {
            line: lines[index],
            message: e.to_string(),
        })?;
    progress.stage("saving the space");
    store.save_space(&space.view())?;
    progress.finish();
    Ok(ImportSummary {
        records,
        deleted,
        version: space.version(),
    })
}

/// The create command of one export line, the update that sets its predecessors (when it
/// has some), and whether the record is to be deleted.
fn command_of(line: &str) -> Result<(Command, Option<Command>, bool), String> {
    let LineIn {
        kind,
        mut record,
        calendar,
        ..
    } = serde_json::from_str(line).map_err(|e| format!("not an export line: {e}"))?;
    let kind = Kind::ALL
        .into_iter()
        .find(|k| k.noun() == kind)
        .ok_or_else(|| format!("unknown kind '{kind}'"))?;
    let deleted = match record.get("isDeleted") {
        None => false,
        Some(Json::Bool(deleted)) => *deleted,
        Some(_) => return Err("isDeleted must be a boolean".into()),
    };
    // `id` repeats the own id field; the other base fields are the space's to set.
    match (record.remove("id"), record.get(kind.id_field())) {
        (Some(id), Some(own)) if id != *own => {
            return Err(format!("id and {} differ", kind.id_field()));
        }
        (Some(id), None) => {
            record.insert(kind.id_field().into(), id);
        }
        _ => {}
    }
    // What the space counted (`completedCount`, `lastCompletedAt`, `remindedAt`) is kept;
    // what it derives from other records (`isBlocked`) is worked out again.
    let mut kept = Vec::new();
    for (at, field) in kind.fields().iter().enumerate() {
        if let Some(json) = record.get(field.name) {
            if let Some(value) = parse_kept(field.ty, json) {
                kept.push((at, value.map_err(|e| format!("{} {e}", field.name))?));
            }
        }
    }
    if let Some(calendar) = calendar {
        let at = kind
            .field_of_type(FieldType::Calendar)
            .ok_or_else(|| format!("a {} keeps no calendar data", kind.noun()))?;
        if calendar.kept.len() > CALENDAR_KEPT_MAX_BYTES {
            return Err(format!(
                "calendar.kept has more than {CALENDAR_KEPT_MAX_BYTES} bytes"
            ));
        }
        kept.push((at, Value::Calendar(Box::new(calendar))));
    }
    let derived = kind.fields().iter().filter(|f| !f.ty.is_writable());
    for field in READ_ONLY
        .iter()
        .chain(&["spaceId"])
        .chain(derived.map(|f| &f.name))
    {
        record.remove(*field);
    }
    let mut changes = parse_changes(kind, Mode::Create, record).map_err(|e| {
        let fields: Vec<String> = e
            .errors
            .iter()
            .map(|f| format!("{} {}", f.field, f.message))
            .collect();
        format!("invalid {}: {}", kind.noun(), fields.join("; "))
    })?;
    let id = changes
        .id
        .take()
        .ok_or_else(|| format!("the {} has no {}", kind.noun(), kind.id_field()))?;
    let (predecessors, fields): (Vec<_>, Vec<_>) =
        changes.fields.into_iter().partition(|(field, value)| {
            kind.fields()[*field].ty == FieldType::Predecessors && !value.as_ids().is_empty()
        });
    changes.fields = fields;
    changes.fields.extend(kept);
    let link = (!predecessors.is_empty()).then(|| Command {
        kind,
        id: id.clone(),
        op: Op::Update(Changes {
            fields: predecessors,
            ..Changes::default()
        }),
        if_match: None,
    });
    let command = Command {
        kind,
        id,
        op: Op::Create(changes),
        if_match: None,
    };
    Ok((command, link, deleted))
}

/// `GET`s `url` (`http://host:port/path`) and succeeds on a `200`: the container health
/// check, without curl in the image.
pub fn healthcheck(url: &str) -> Result<(), ToolError> {
    let unhealthy = |why: String| ToolError::Unhealthy(format!("{url}: {why}"));
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| unhealthy("only http:// URLs are supported".into()))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, "/"),
    };
    let addr = authority
        .to_socket_addrs()
        .map_err(|e| unhealthy(e.to_string()))?
        .next()
        .ok_or_else(|| unhealthy("no address".into()))?;
    let mut stream = TcpStream::connect_timeout(&addr, HEALTHCHECK_TIMEOUT)
        .map_err(|e| unhealthy(e.to_string()))?;
    let mut status = String::new();
    stream
        .set_read_timeout(Some(HEALTHCHECK_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(HEALTHCHECK_TIMEOUT)))
        .and_then(|()| {
            write!(
                stream,
                "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
            )
        })
        .and_then(|()| BufReader::new(stream.take(1024)).read_line(&mut status))
        .map_err(|e| unhealthy(e.to_string()))?;
    match status.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        _ => Err(unhealthy(format!("answered '{}'", status.trim()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_line_becomes_a_create_with_its_own_id_and_its_deleted_state() {
        let line = r#"{"kind":"list","spaceId":"s","record":{"id":"L","listId":"L",
            "spaceId":"s","sortOrder":2.0,"name":"N","color":null,"emoji":null,"icon":null,
            "isDefault":true,"keyboardShortcut":null,"createdAt":"2024-01-01T00:00:00.000Z",
            "updatedAt":"2024-01-01T00:00:00.000Z","deletedAt":"2024-01-02T00:00:00.000Z",
            "isDeleted":true,"versionUpdatedAt":3}}"#
            .replace('\n', "");
        let (command, link, deleted) = command_of(&line).unwrap();
        assert!(deleted && link.is_none());
        assert_eq!((command.kind, &*command.id), (Kind::List, "L"));
        let Op::Create(changes) = command.op else {
            panic!("not a create: {command:?}");
        };
        assert_eq!(changes.sort_order, Some(2.0));
        assert_eq!(changes.fields.len(), Kind::List.fields().len());
    }

    /// A task's predecessors may be listed after it: they are set by an update once every
    /// record exists; its `isBlocked` is the space's to work out, not an error.
    #[test]
    fn a_tasks_predecessors_come_as_an_update_and_its_is_blocked_is_dropped() {
        let line = r#"{"kind":"task","record":{"todoId":"a","name":"n",
            "predecessorIds":["z"],"isBlocked":true}}"#
            .replace('\n', "");
        let (command, link, deleted) = command_of(&line).unwrap();
        assert!(!deleted);
        let Op::Create(changes) = command.op else {
            panic!("not a create: {command:?}");
        };
        let predecessors = Kind::Task.field_index("predecessorIds").unwrap();
        assert_eq!(changes.fields.len(), 1, "only the name: {changes:?}");
        let link = link.expect("an update setting the predecessors");
        assert_eq!((link.kind, &*link.id), (Kind::Task, "a"));
        let Op::Update(update) = link.op else {
            panic!("not an update: {link:?}");
        };
        assert_eq!(
            update.fields,
            [(
                predecessors,
                crate::model::Value::Ids(vec!["z".into()].into_boxed_slice())
            )]
        );
        let none = r#"{"kind":"task","record":{"todoId":"b","predecessorIds":[]}}"#;
        assert!(command_of(none).unwrap().1.is_none());
    }

    #[test]
    fn a_tasks_completion_counters_are_kept_and_its_time_fields_read_as_sent() {
        let line = r#"{"kind":"task","record":{"todoId":"r","dateDue":"2030-01-07T09:00:00.000Z",
            "timeZone":"Europe/Paris","recurrence":"FREQ=WEEKLY;COUNT=2","recurFrom":"due",
            "reminders":[{"minutesBefore":30}],"completedCount":3,
            "lastCompletedAt":"2030-01-01T09:00:00.000Z","remindedAt":null}}"#
            .replace('\n', "");
        let (command, _, _) = command_of(&line).unwrap();
        let mut space = Space::new("s");
        space.apply(&[command], 0).unwrap();
        let task = space.get(Kind::Task, "r").unwrap().record;
        let value = |name: &str| &task.fields[Kind::Task.field_index(name).unwrap()];
        assert_eq!(*value("completedCount"), crate::model::Value::Integer(3));
        assert_eq!(
            *value("lastCompletedAt"),
            crate::model::Value::Time(1_893_488_400_000)
        );
        assert_eq!(*value("remindedAt"), crate::model::Value::Null);
        assert_eq!(value("recurrence").as_text(), Some("FREQ=WEEKLY;COUNT=2"));
        let bad = r#"{"kind":"task","record":{"todoId":"t","completedCount":-1}}"#;
        assert!(command_of(bad).unwrap_err().contains("completedCount"));
    }

    #[test]
    fn a_tasks_completion_time_and_calendar_data_are_kept() {
        let line = r#"{"kind":"task","record":{"todoId":"c","status":"done",
            "completedAt":"2030-01-01T09:00:00.000Z"},"calendar":{"uid":"c@host",
            "object":"c.ics","priority":7,"categories":["Home work"],
            "kept":"X-A:1\r\n"}}"#
            .replace('\n', "");
        let (command, _, _) = command_of(&line).unwrap();
        let mut space = Space::new("s");
        space.apply(&[command], 5).unwrap();
        let task = space.get(Kind::Task, "c").unwrap().record;
        let completed = Kind::Task.field_index("completedAt").unwrap();
        assert_eq!(task.fields[completed], Value::Time(1_893_488_400_000));
        let kept = task.fields.iter().find_map(Value::as_calendar).unwrap();
        assert_eq!(kept.uid.as_deref(), Some("c@host"));
        assert_eq!(kept.priority, Some(7));
        assert_eq!(&*kept.kept, "X-A:1\r\n");
        let line = serde_json::to_string(&LineOut {
            kind: "task",
            space_id: "s",
            record: RecordJson {
                kind: Kind::Task,
                space: "s",
                record: &task,
            },
            calendar: Some(Cow::Borrowed(kept)),
        })
        .unwrap();
        let (again, _, _) = command_of(&line).unwrap();
        let mut copy = Space::new("s");
        copy.apply(&[again], 5).unwrap();
        assert_eq!(
            copy.get(Kind::Task, "c").unwrap().record.fields,
            task.fields
        );
    }

    #[test]
    fn an_object_kept_as_sent_is_exported_as_what_it_keeps_and_imported_so() {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:s@host\r\n\
                    SUMMARY:Sent\r\nCATEGORIES:Home work\r\nX-A:1\r\nEND:VTODO\r\n\
                    END:VCALENDAR\r\n";
        let at = Kind::Task.field_of_type(FieldType::Calendar).unwrap();
        let calendar = Calendar {
            uid: Some("s@host".into()),
            ..Calendar::default()
        };
        let sent = Value::Sent(Box::new(calendar.into_sent(text)));
        let mut changes = Changes::default();
        changes.fields.push((at, sent));
        let command = Command {
            kind: Kind::Task,
            id: "s".into(),
            op: Op::Create(changes),
            if_match: None,
        };
        let mut space = Space::new("s");
        space.apply(&[command], 5).unwrap();
        let task = space.get(Kind::Task, "s").unwrap().record;
        let line = serde_json::to_string(&LineOut {
            kind: "task",
            space_id: "s",
            record: RecordJson {
                kind: Kind::Task,
                space: "s",
                record: &task,
            },
            calendar: kept_calendar(&task),
        })
        .unwrap();
        let (again, _, _) = command_of(&line).unwrap();
        let mut copy = Space::new("s");
        copy.apply(&[again], 5).unwrap();
        let imported = copy.get(Kind::Task, "s").unwrap().record;
        let kept = imported.fields[at].as_calendar().unwrap();
        assert_eq!(kept.uid.as_deref(), Some("s@host"));
        assert_eq!(&*kept.categories, [Box::from("Home work")]);
        assert_eq!(&*kept.kept, "X-A:1\r\n");
    }

    #[test]
    fn an_export_line_with_a_bad_field_or_kind_is_refused_with_the_field_named() {
        let bad = r#"{"kind":"task","record":{"todoId":"t","durationMs":-1}}"#;
        assert!(command_of(bad).unwrap_err().contains("durationMs"));
        let kind = r#"{"kind":"goal","record":{"id":"g"}}"#;
        assert!(command_of(kind).unwrap_err().contains("goal"));
        let no_id = r#"{"kind":"task","record":{"name":"x"}}"#;
        assert!(command_of(no_id).unwrap_err().contains("todoId"));
    }
}
