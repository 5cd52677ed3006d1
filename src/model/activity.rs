//! Activity and undo (docs §23): who changed which fields of a record, from what to what,
//! through which door, and how a write is undone.
//!
//! A write carries its [`Meta`] (its time, its [`Actor`], the version it reverts) in its
//! outcome, which the journal stores. Its activity is derived from that outcome and the
//! touched records' former states ([`Logged::derive`]), the same way on the node that made
//! the write, at start-up (from the journal) and on a standby (from the replicated
//! journal); `store::activity` keeps it on disk. [`Logged::revert`] turns one logged write
//! back into commands, refusing (unless forced) when a record was written since.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::kind::Kind;
use super::record::{Id, Record, Value};
use super::space::{Changes, Command, Op, Outcome};

/// The door a write came through (docs §23, `actor.via`). The order of the variants is
/// part of the on-disk format (`store::codec`): new ones go last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Via {
    /// The JSON API, one record.
    Api,
    /// A JSON batch.
    Batch,
    /// CalDAV.
    Caldav,
    /// An `.ics` import.
    Import,
    /// A reminder firing (no user).
    Reminder,
}

impl Via {
    /// Every door, in their on-disk order.
    pub const ALL: [Via; 5] = [
        Via::Api,
        Via::Batch,
        Via::Caldav,
        Via::Import,
        Via::Reminder,
    ];

    /// The name docs §23 gives it.
    pub fn name(self) -> &'static str {
        match self {
            Via::Api => "api",
            Via::Batch => "batch",
            Via::Caldav => "caldav",
            Via::Import => "import",
            Via::Reminder => "reminder",
        }
    }
}

/// Who made a write: the user (none for a firing), the scoped token (none for a primary
/// token) and the door.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    /// The user's id.
    pub user_id: Option<Box<str>>,
    /// The scoped token's id.
    pub token_id: Option<Box<str>>,
    /// The door.
    pub via: Via,
}

impl Actor {
    /// `caller` writing through door `via`.
    pub fn of(caller: &super::Caller, via: Via) -> Actor {
        Actor {
            user_id: Some(caller.account.id.clone()),
            token_id: match &caller.scope {
                super::Scope::Primary => None,
                super::Scope::Scoped(live) => Some(live.token.id.clone()),
            },
            via,
        }
    }
}

/// What a write carries besides its commands' outcome: kept in its journal entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The write's time, milliseconds since the epoch (0: unknown, an entry of format 8
    /// or older; the named record's `updatedAt` stands in).
    pub at: i64,
    /// Who made it; `None` for entries of format 8 or older.
    pub actor: Option<Actor>,
    /// The version it reverts (docs §23), if it is a revert.
    pub revert_of: Option<u64>,
    /// A revert's one step names this many records first; the rest are cascades. 0 means
    /// one (the command's record), as in every other write.
    pub named: u32,
}

/// What an activity entry says happened to its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// `created`.
    Created,
    /// `updated`.
    Updated,
    /// `deleted`.
    Deleted,
    /// `restored`.
    Restored,
    /// `reminded`: a firing (docs §18).
    Reminded,
    /// `rolled`: a completion of a repeating task (docs §18).
    Rolled,
}

impl Action {
    /// Every action.
    pub const ALL: [Action; 6] = [
        Action::Created,
        Action::Updated,
        Action::Deleted,
        Action::Restored,
        Action::Reminded,
        Action::Rolled,
    ];

    /// The name docs §23 gives it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Updated => "updated",
            Action::Deleted => "deleted",
            Action::Restored => "restored",
            Action::Reminded => "reminded",
            Action::Rolled => "rolled",
        }
    }
}

/// The field of a change: `sortOrder` or a field of the kind's table, by position.
pub const SORT_ORDER: u16 = u16::MAX;

/// One field a change altered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    /// Its position in [`Kind::fields`], or [`SORT_ORDER`].
    pub field: u16,
    /// The value before.
    pub from: Value,
    /// The value after.
    pub to: Value,
}

impl FieldChange {
    /// The field's JSON name.
    pub fn name(&self, kind: Kind) -> &'static str {
        match self.field {
            SORT_ORDER => "sortOrder",
            at => kind.fields()[at as usize].name,
        }
    }

    /// Whether the space derives the field (`isBlocked`, `completedAt`, `remindedAt`, the
    /// counters): a revert never sets it.
    pub fn is_derived(&self, kind: Kind) -> bool {
        self.field != SORT_ORDER && !kind.fields()[self.field as usize].ty.is_writable()
    }
}

/// Where the entry before an entry of the same record is: the back-pointer that lets a
/// record's activity be read without scanning the space's (`store::activity`). The order
/// of the variants is part of the on-disk format (`store::codec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Prev {
    /// There is none: the entry is the record's creation.
    First,
    /// The record's previous entry has this version: its former state's `version`.
    /// Every write that gives a record a new version touches it, and every record a
    /// write touches has an entry (`Logged::derive`), so this is the version of the
    /// last entry logged for it, unless the log missed that write.
    At(u64),
    /// Not recorded: an entry of format 9 or 10, logged before entries carried it.
    Unknown,
}

/// One activity entry: one record's change at one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The version of the write's step that made it.
    pub version: u64,
    /// The record's kind.
    pub kind: Kind,
    /// The record's id.
    pub id: Id,
    /// What happened.
    pub action: Action,
    /// Caused by another change of the same write (`via: cascade`).
    pub cascade: bool,
    /// Whether the record is deleted after the change.
    pub deleted: bool,
    /// The fields it altered.
    pub changes: Vec<FieldChange>,
    /// The record's entry before this one.
    pub prev: Prev,
}

/// One write's activity: its entries by version (newest last), then kind, then id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logged {
    /// The space version before the write.
    pub base: u64,
    /// The space version after it.
    pub version: u64,
    /// Entries the space's log held before this write, the dropped ones included (set
    /// when it is logged: `store::activity`).
    pub seq: u64,
    /// Its time.
    pub at: i64,
    /// Who made it.
    pub actor: Option<Actor>,
    /// The version it reverted.
    pub revert_of: Option<u64>,
    /// Its entries.
    pub entries: Vec<Entry>,
}

/// A field a revert would set back that was changed since (docs §23: `409 conflict`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The record's kind.
    pub kind: Kind,
    /// The record's id.
    pub id: String,
    /// The field.
    pub field: &'static str,
}

/// What the log says of a write's created, deleted and restored records since it: the
/// ones a later write deleted or restored (docs §23: a conflict on `isDeleted` even when
/// the record is back as the write left it), as far as the log was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Since {
    /// The records a later write deleted or restored.
    pub toggled: HashSet<(Kind, Id)>,
    /// The last version of the log when it was read: a record written above it may have
    /// been deleted or restored, so it counts as such.
    pub read_to: u64,
}

impl Since {
    /// Whether record `id` of `kind`, now at `version`, was (or may have been) deleted or
    /// restored since.
    fn toggled(&self, kind: Kind, id: &Id, version: u64) -> bool {
        version > self.read_to || self.toggled.contains(&(kind, id.clone()))
    }
}

/// A record a step touched: where it first appears, its former state, its last state.
type Seen<'a> = (usize, Option<Arc<Record>>, &'a Arc<Record>);

impl Logged {
    /// The activity of `outcome`, whose touched records were `formers` before it (one per
    /// touched record, in the outcome's order, as [`Space::apply`](super::Space::apply)
    /// and [`Space::replay`](super::Space::replay) note them).
    pub fn derive(outcome: &Outcome, formers: &[Option<Arc<Record>>]) -> Logged {
        let meta = &outcome.meta;
        let mut formers = formers.iter();
        let mut entries = Vec::new();
        for (index, step) in outcome.steps.iter().enumerate() {
            let version = outcome.base + 1 + index as u64;
            let named = (meta.named as usize).max(1);
            // A record touched twice in one step (a revert) counts once: from its first
            // former state to its last state.
            let mut seen: BTreeMap<(Kind, Id), Seen<'_>> = BTreeMap::new();
            for (at, touched) in step.touched.iter().enumerate() {
                let former = formers.next().cloned().flatten();
                seen.entry((touched.kind, touched.record.id.clone()))
                    .and_modify(|e| e.2 = &touched.record)
                    .or_insert((at, former, &touched.record));
            }
            for ((kind, id), (at, before, after)) in seen {
                let cascade = at >= named;
                entries.push(entry(
                    version,
                    kind,
                    id,
                    before.as_deref(),
                    after,
                    cascade,
                    meta,
                ));
            }
        }
        let at = match meta.at {
            0 => outcome.touched().next().map_or(0, |t| t.record.updated_at),
            at => at,
        };
        Logged {
            base: outcome.base,
            version: outcome.version,
            seq: 0,
            at,
            actor: meta.actor.clone(),
            revert_of: meta.revert_of,
            entries,
        }
    }

    /// The commands that undo this write in `current` (a function giving each record's
    /// current state), named records first; or, unless `force`, every field changed since
    /// (`since`: which of its records were deleted or restored since).
    pub fn revert(
        &self,
        current: impl Fn(Kind, &str) -> Option<Arc<Record>>,
        since: &Since,
        force: bool,
    ) -> Result<Vec<Command>, Vec<Conflict>> {
        let mut conflicts = Vec::new();
        let (mut named, mut cascades) = (Vec::new(), Vec::new());
        for entry in &self.entries {
            let Some(now) = current(entry.kind, &entry.id) else {
                continue; // taken back; nothing to undo
            };
            let conflict = |field: &'static str| Conflict {
                kind: entry.kind,
                id: entry.id.to_string(),
                field,
            };
            let written_since = now.version > entry.version;
            let op = match entry.action {
                Action::Created | Action::Deleted | Action::Restored => {
                    if written_since
                        && (entry.action == Action::Created
                            || now.is_deleted() != entry.deleted
                            || since.toggled(entry.kind, &entry.id, now.version))
                    {
                        conflicts.push(conflict("isDeleted"));
                    }
                    if entry.cascade && entry.action != Action::Created {
                        // The named record's restore or delete brings its subtree along.
                        continue;
                    }
                    Op::SetDeleted(entry.action != Action::Deleted)
                }
                Action::Updated | Action::Reminded | Action::Rolled => {
                    if now.is_deleted() && !entry.deleted {
                        conflicts.push(conflict("isDeleted"));
                    }
                    let mut changes = Changes::default();
                    for change in &entry.changes {
                        let firing = entry.action == Action::Reminded
                            && change.name(entry.kind) == "remindedAt";
                        if change.is_derived(entry.kind) && !firing {
                            continue;
                        }
                        let value = match change.field {
                            SORT_ORDER => Value::Number(now.sort_order),
                            at => now.fields[at as usize].clone(),
                        };
                        if value != change.to {
                            conflicts.push(conflict(change.name(entry.kind)));
                        }
                        match (change.field, &change.from) {
                            (SORT_ORDER, Value::Number(n)) => changes.sort_order = Some(*n),
                            (SORT_ORDER, _) => {}
                            (at, from) => changes.fields.push((at as usize, from.clone())),
                        }
                    }
                    if changes == Changes::default() {
                        continue;
                    }
                    Op::Update(changes)
                }
            };
            let command = Command {
                kind: entry.kind,
                id: Box::from(&*entry.id),
                op,
                if_match: None,
            };
            if entry.cascade {
                cascades.push(command);
            } else {
                named.push(command);
            }
        }
        if !conflicts.is_empty() && !force {
            return Err(conflicts);
        }
        named.extend(cascades);
        Ok(named)
    }
}

/// The entry of one record's change at `version` from `before` to `after`.
fn entry(
    version: u64,
    kind: Kind,
    id: Id,
    before: Option<&Record>,
    after: &Record,
    cascade: bool,
    meta: &Meta,
) -> Entry {
    let fields = kind.fields();
    let shown = |at: usize| !fields[at].ty.is_hidden();
    let mut changes = Vec::new();
    let action = match before {
        None => {
            changes.push(FieldChange {
                field: SORT_ORDER,
                from: Value::Null,
                to: Value::Number(after.sort_order),
            });
            for (at, value) in after.fields.iter().enumerate() {
                let empty = matches!(value, Value::Null)
                    || matches!(value, Value::Ids(ids) if ids.is_empty())
                    || matches!(value, Value::Reminders(r) if r.is_empty());
                if shown(at) && !empty {
                    changes.push(FieldChange {
                        field: at as u16,
                        from: Value::Null,
                        to: value.clone(),
                    });
                }
            }
            Action::Created
        }
        Some(before) if before.is_deleted() != after.is_deleted() => {
            if after.is_deleted() {
                Action::Deleted
            } else {
                Action::Restored
            }
        }
        Some(before) => {
            if before.sort_order != after.sort_order {
                changes.push(FieldChange {
                    field: SORT_ORDER,
                    from: Value::Number(before.sort_order),
                    to: Value::Number(after.sort_order),
                });
            }
            let mut rolled = false;
            for (at, (from, to)) in before.fields.iter().zip(after.fields.iter()).enumerate() {
                if shown(at) && from != to {
                    rolled |= fields[at].name == "completedCount";
                    changes.push(FieldChange {
                        field: at as u16,
                        from: from.clone(),
                        to: to.clone(),
                    });
                }
            }
            let firing = meta.actor.as_ref().is_some_and(|a| a.via == Via::Reminder);
            match () {
                _ if firing && !cascade => Action::Reminded,
                _ if rolled && !cascade => Action::Rolled,
                _ => Action::Updated,
            }
        }
    };
    Entry {
        version,
        kind,
        id,
        action,
        cascade,
        deleted: after.is_deleted(),
        changes,
        prev: before.map_or(Prev::First, |b| Prev::At(b.version)),
    }
}
