//! The core: the one boundary every front calls. The JSON API ([`crate::http`]), CalDAV
//! ([`crate::dav`]), the `.ics` routes and the webhook sender ([`crate::webhooks`]) read
//! and write through [`Core`], so what a request may do, how a write is made and how much
//! work one request may hold are decided here once, whatever protocol it came in by:
//!
//! - access: [`reach`] is the one check of a caller against a space (§13, §14);
//! - records: [`Core::read`] over the state a space published, [`Core::write`] the one
//!   path of a write of records (commands in, an outcome out, the idempotency key with it);
//! - the directory: [`Core::directory`] to read it, [`Core::change`] to change it;
//! - conditional requests: [`conditional`], the one `ETag` / `If-Match` / `If-None-Match`
//!   rule (RFC 9110) of every front;
//! - heavy work: [`heavy`], the one mechanism that runs it off the HTTP workers and the
//!   space actors' threads, its answer written as it is made;
//! - health, kept answers and backups ([`service`]); what the webhook sender and the JSON
//!   API share of deliveries ([`deliveries`]).
//!
//! # The rule of the house
//! Imports point inward: the edge ([`crate::edge`]) wraps the fronts; fronts (`http`,
//! `dav`, `webhooks`) call the core and render with [`crate::wire`] and [`crate::ical`];
//! the core calls the actors ([`crate::actors`]), which own the model
//! ([`crate::model`], pure); the store and replication sit behind the actors. No front
//! imports another, and no front reaches `Spaces`, `Directory` or `access::decide` but
//! through here.

pub(crate) mod conditional;
pub(crate) mod deliveries;
mod gate;
pub(crate) mod service;

use std::path::PathBuf;
use std::sync::{Arc, RwLockReadGuard};

use actix_web::web::Data;

use crate::actors::directory::{Answer, Changed};
use crate::actors::reminders::Alarm;
use crate::actors::space::{Operation, Render, Revert, Write, WriteResult};
use crate::actors::{Directory, Failure, Keys, Spaces};
use crate::model::access::{self, Action, Denied};
use crate::model::activity::Actor;
use crate::model::kept::KeyUse;
use crate::model::{Caller, Change, Command, DirectoryError, DirectoryState, Plan, Role, Space};
use crate::store::activity::{Activity, Page as ActivityPage, Query as ActivityQuery};
use crate::store::journal::Journal;
use crate::store::StoreError;
use crate::threads::heavy;
use crate::threads::turns::{Turn, Turns};
use deliveries::Deliveries;
pub(crate) use gate::Gate;

/// Whether `caller` may do `action` in `space` (`None`: on its own account), and its role
/// there when it may: the one access check of every front (§13, §14). A front answers
/// [`Denied`] in its protocol's words.
pub(crate) fn reach(
    caller: &Caller,
    space: Option<&str>,
    action: Action,
) -> Result<Option<Role>, Denied> {
    access::decide(caller, space, action)
}

/// The actors the core sends its work to.
pub(crate) struct Actors {
    /// Users, spaces, members, tokens and webhooks.
    pub directory: Data<Directory>,
    /// The space actors.
    pub spaces: Data<Spaces>,
    /// The answers kept for idempotency keys.
    pub keys: Data<Keys>,
}

/// The core's handles; cheap to share (`web::Data<Core>`), built once by start-up.
pub(crate) struct Core {
    directory: Data<Directory>,
    spaces: Data<Spaces>,
    keys: Data<Keys>,
    deliveries: Data<Deliveries>,
    gate: Data<Gate>,
    journal: Journal,
    data_dir: PathBuf,
    plan: Plan,
    /// One edit of a webhook at a time (see [`Core::editing`]).
    edits: Turns,
    /// The spaces' activity logs (docs §23).
    activity: Arc<Activity>,
}

impl Core {
    /// The core over the `actors`, the journal of the data directory `data_dir`, listing
    /// tasks as `plan` says.
    pub(crate) fn new(
        actors: Actors,
        deliveries: Data<Deliveries>,
        gate: Data<Gate>,
        journal: Journal,
        data_dir: PathBuf,
        plan: Plan,
        activity: Arc<Activity>,
    ) -> Core {
        let Actors {
            directory,
            spaces,
            keys,
        } = actors;
        Core {
            directory,
            spaces,
            keys,
            deliveries,
            gate,
            journal,
            data_dir,
            plan,
            edits: Turns::new(1),
            activity,
        }
    }

    /// The user (and token) behind `token`, if it is a known, live one.
    pub(crate) fn authenticate(&self, token: &str) -> Option<Caller> {
        self.directory.authenticate(token)
    }

    /// Whether `token` is the admin token.
    pub(crate) fn is_admin(&self, token: &str) -> bool {
        self.directory.is_admin(token)
    }

    /// The directory as it is now (users, spaces, members, tokens, webhooks); hold it only
    /// while reading.
    pub(crate) fn directory(&self) -> RwLockReadGuard<'_, DirectoryState> {
        self.directory.read()
    }

    /// Makes one directory change (see [`Directory::change`]).
    pub(crate) async fn change(
        &self,
        change: Change,
        key: Option<KeyUse>,
        answer: impl FnOnce(&DirectoryState) -> Answer + 'static,
        then: impl FnOnce(&Change) + 'static,
        late: impl FnOnce(Result<Changed, Failure>) + 'static,
    ) -> Result<Changed, Failure> {
        self.directory
            .clone()
            .into_inner()
            .change(change, key, answer, then, late)
            .await
    }

    /// Waits until nobody else edits webhook `id`, and keeps others from it until the
    /// [`Turn`] drops: a change made of a webhook as read (a PATCH, a secret rotation) is
    /// made while holding it, so two at the same moment both take effect (docs §27).
    pub(crate) async fn editing(&self, id: &str) -> Turn<'_> {
        self.edits.take(id).await
    }

    /// Makes a directory change no request asked for (see [`Directory::note`]).
    pub(crate) async fn note(&self, change: Change) -> Result<Result<(), DirectoryError>, Failure> {
        self.directory.note(change).await
    }

    /// Journals the webhook positions acknowledged since the last time (see
    /// [`Deliveries::flush`]).
    pub(crate) async fn flush_deliveries(&self) {
        self.deliveries.flush(&self.directory).await
    }

    /// Runs `read` over space `space` as every client may see it (§8; see
    /// [`Spaces::read`]). The caller checked access first ([`reach`]).
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        space: &str,
        read: impl FnOnce(&Space) -> T + Send + 'static,
    ) -> Result<T, Failure> {
        self.spaces.read(space, read).await
    }

    /// Runs `read` over the durable state of space `space` once it holds `version`, a
    /// version the caller was told is durable, never waiting for the sync of later writes
    /// (see [`Spaces::read_durable`]): for the webhook sender, whose scans would otherwise
    /// wait a sync behind each write that follows the one it delivers.
    pub(crate) async fn read_durable<T: Send + 'static>(
        &self,
        space: &str,
        version: u64,
        read: impl FnOnce(&Space) -> T + Send + 'static,
    ) -> Result<T, Failure> {
        self.spaces.read_durable(space, version, read).await
    }

    /// [`Core::read`] for a read whose work grows with a request's parameters or the
    /// space (the occurrences of a rule: up to 100,000 candidate instances, docs §27; a
    /// live view's start, docs §24): it runs on the heavy pool in `owner`'s turn (an
    /// account's id), off the HTTP workers.
    pub(crate) async fn read_heavy<T: Send + 'static>(
        &self,
        owner: &str,
        space: &str,
        read: impl FnOnce(&Space) -> T + Send + 'static,
    ) -> Result<T, Failure> {
        let view = self.spaces.view(space).await?;
        heavy::run(owner, move || read(&view))
            .await
            .map_err(|_| Failure::Panicked)
    }

    /// The version of space `space`.
    pub(crate) async fn version(&self, space: &str) -> Result<u64, Failure> {
        self.spaces.version(space).await
    }

    /// The one write path of records, whatever the front: `commands` as one write of space
    /// `space`, all or nothing, with the idempotency key `key` and the answer `render` makes
    /// for it journaled in the same entry. When the storage stalls the request is answered
    /// [`Failure::Stalled`] and `late` gets the outcome once the journal decides it. The
    /// caller checked access first ([`reach`]).
    pub(crate) async fn write(
        &self,
        space: &str,
        commands: Vec<Command>,
        actor: Actor,
        key: Option<(KeyUse, Render)>,
        late: impl FnOnce(Result<WriteResult, Failure>) + 'static,
    ) -> Result<WriteResult, Failure> {
        let write = Write {
            commands,
            key,
            actor: Some(actor),
            revert: None,
        };
        self.spaces.call_or_later(space, write, late).await
    }

    /// A page of space `space`'s activity (docs §23), read from its log on the heavy pool
    /// in `owner`'s turn: a filtered page may walk many segments. A query naming one
    /// record (`kind` and `id`) starts from the version of that record's last write, from
    /// the space's state, to follow the record's own entries (`store::activity`).
    pub(crate) async fn activity(
        &self,
        owner: &str,
        space: &str,
        mut query: ActivityQuery,
    ) -> Result<ActivityPage, Failure> {
        if let (Some(kind), Some(id)) = (query.kind, query.id.clone()) {
            let head = move |s: &Space| s.get(kind, &id).ok().map(|item| item.record.version);
            query.head = self.spaces.read(space, head).await?;
        }
        let (activity, space) = (Arc::clone(&self.activity), space.to_string());
        let now = chrono::Utc::now().timestamp_millis();
        let read = move || activity.log(&space)?.page(&query, now);
        heavy::run(owner, read)
            .await
            .map_err(|_| Failure::Panicked)?
            .map_err(|e| {
                log::error!("reading activity: {e}");
                Failure::Panicked
            })
    }

    /// Undoes the write of space `space` that made `version` (docs §23) as a new write by
    /// `actor`, all or nothing; `None` when no kept write made that version. Unless
    /// `force`, a record written since is a [`SpaceError::RevertConflict`].
    pub(crate) async fn revert(
        &self,
        owner: &str,
        space: &str,
        version: u64,
        force: bool,
        actor: Actor,
    ) -> Result<Option<WriteResult>, Failure> {
        let (activity, id) = (Arc::clone(&self.activity), space.to_string());
        let now = chrono::Utc::now().timestamp_millis();
        // The write, and which of its records were deleted or restored since: a walk over
        // the writes since it.
        let read = move || {
            let log = activity.log(&id)?;
            let Some(logged) = log.write_of(version, now)? else {
                return Ok(None);
            };
            let since = log.since(&logged, now)?;
            Ok::<_, StoreError>(Some((logged, since)))
        };
        let found = heavy::run(owner, read)
            .await
            .map_err(|_| Failure::Panicked)?
            .map_err(|e| {
                log::error!("reading activity: {e}");
                Failure::Panicked
            })?;
        let Some((logged, since)) = found else {
            return Ok(None);
        };
        let write = Write {
            commands: Vec::new(),
            key: None,
            actor: Some(actor),
            revert: Some(Revert {
                logged,
                since,
                of: version,
                force,
            }),
        };
        self.spaces
            .call_or_later(space, write, drop)
            .await
            .map(Some)
    }

    /// Sends a space's actor an operation that writes nothing (a subscription to its
    /// durable writes); writes go through [`Core::write`].
    pub(crate) async fn ask<O: Operation>(&self, space: &str, op: O) -> Result<O::Output, Failure> {
        self.spaces.call(space, op).await
    }

    /// Starts serving space `id`, just created.
    pub(crate) fn add_space(&self, id: &str) {
        self.spaces.add(id);
    }

    /// Stops serving space `id`, just deleted, and removes its file.
    pub(crate) async fn remove_space(&self, id: &str) {
        self.spaces.delete(id).await
    }

    /// The answers kept for idempotency keys.
    pub(crate) fn keys(&self) -> &Keys {
        &self.keys
    }

    /// What the webhook sender shares: delivery logs, positions, the address rule.
    pub(crate) fn deliveries(&self) -> &Deliveries {
        &self.deliveries
    }

    /// Shutdown, and with `--nats` this node's role.
    pub(crate) fn gate(&self) -> &Gate {
        &self.gate
    }

    /// A new alarm on the server's one timer, which a live view sets to its next time
    /// boundary (docs §24).
    pub(crate) fn alarm(&self) -> Alarm {
        self.spaces.alarm()
    }

    /// How task listings find their records (`--scan-queries`).
    pub(crate) fn plan(&self) -> Plan {
        self.plan
    }
}
