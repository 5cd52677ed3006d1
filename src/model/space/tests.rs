//! Tests of the space: writes, listings, the feed, snapshots and replay.

use super::*;
use crate::model::query::{Filter, FilterContext, OrderBy, Search};
use crate::model::record::Value;
use crate::model::validate::{parse_changes, Mode};
use crate::model::vtodo::CalendarFields;
use itertools::Itertools;
use serde_json::json;

/// Writes of one command each, as these tests make them.
trait Writes {
    fn create(&mut self, kind: Kind, changes: Changes, now: i64) -> Result<Item, SpaceError>;
    fn update(
        &mut self,
        kind: Kind,
        id: &str,
        changes: Changes,
        now: i64,
    ) -> Result<Item, SpaceError>;
    fn set_deleted(
        &mut self,
        kind: Kind,
        id: &str,
        deleted: bool,
        now: i64,
    ) -> Result<Item, SpaceError>;
    fn snapshot(&self) -> SpaceSnapshot;
}

impl Writes for Space {
    fn create(&mut self, kind: Kind, changes: Changes, now: i64) -> Result<Item, SpaceError> {
        let id = changes
            .id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string().into());
        run(self, kind, &id, Op::Create(changes), now)
    }

    fn update(
        &mut self,
        kind: Kind,
        id: &str,
        changes: Changes,
        now: i64,
    ) -> Result<Item, SpaceError> {
        run(self, kind, id, Op::Update(changes), now)
    }

    fn set_deleted(
        &mut self,
        kind: Kind,
        id: &str,
        deleted: bool,
        now: i64,
    ) -> Result<Item, SpaceError> {
        run(self, kind, id, Op::SetDeleted(deleted), now)
    }

    fn snapshot(&self) -> SpaceSnapshot {
        self.view().into()
    }
}

fn run(space: &mut Space, kind: Kind, id: &str, op: Op, now: i64) -> Result<Item, SpaceError> {
    let command = Command {
        kind,
        id: id.into(),
        op,
        if_match: None,
    };
    space
        .apply(&[command], now)
        .map(|(outcome, _)| outcome.item())
        .map_err(|(_, e)| e)
}

fn changes(kind: Kind, mode: Mode, body: serde_json::Value) -> Changes {
    parse_changes(kind, mode, body.as_object().unwrap().clone()).unwrap()
}

fn create(space: &mut Space, kind: Kind, body: serde_json::Value) -> Item {
    space
        .create(kind, changes(kind, Mode::Create, body), 1_000)
        .unwrap()
}

/// Calendar clients' names for tasks (docs §20) are found by `UID` and by object
/// name, percent-decoded, whether the client chose them or they are the `todoId`'s; the
/// index follows renames, moves and deletes, and a loaded snapshot finds the same.
#[test]
fn tasks_are_found_by_the_uids_and_object_names_clients_gave_them() {
    use super::super::vtodo::Calendar;
    let fields = CalendarFields::of(Kind::Task).unwrap();
    let kept = |uid: &str, object: &str| {
        let mut changes = Changes::default();
        let calendar = Calendar {
            uid: Some(uid.into()),
            object: Some(object.into()),
            ..Calendar::default()
        };
        changes
            .fields
            .push((fields.calendar(), Value::Calendar(Box::new(calendar))));
        changes
    };
    let mut space = Space::new("s");
    create(&mut space, Kind::Task, json!({"todoId": "plain"}));
    let mut a = kept("a@host", "a%40host.ics");
    a.id = Some("a".into());
    space.create(Kind::Task, a, 1_000).unwrap();
    let mut b = kept("b", "b.ics");
    b.id = Some("b".into());
    space.create(Kind::Task, b, 1_000).unwrap();
    let everyone = |_: &Record| true;
    let found = |space: &Space, uid: &str, name: &str| {
        let tasks = space.calendar_tasks();
        (
            tasks.with_uid(uid).map(|t| t.id.to_string()),
            tasks.named(name, everyone).map(|t| t.id.to_string()),
        )
    };
    let some = |id: &str| Some(id.to_owned());
    assert_eq!(
        found(&space, "plain", "plain.ics"),
        (some("plain"), some("plain"))
    );
    assert_eq!(
        found(&space, "a@host", "a@host.ics"),
        (some("a"), some("a"))
    );
    assert_eq!(
        found(&space, "a", "a.ics"),
        (None, None),
        "a has the client's names"
    );
    assert_eq!(found(&space, "b", "b.ics"), (some("b"), some("b")));
    // A rename and a new UID leave the old ones free.
    space
        .update(Kind::Task, "a", kept("new@host", "renamed.ics"), 2_000)
        .unwrap();
    assert_eq!(found(&space, "a@host", "a@host.ics"), (None, None));
    assert_eq!(
        found(&space, "new@host", "renamed.ics"),
        (some("a"), some("a"))
    );
    // Deleted tasks keep their UID (a PUT restores them); callers choose members.
    space.set_deleted(Kind::Task, "a", true, 3_000).unwrap();
    let tasks = space.calendar_tasks();
    assert!(tasks.named("renamed.ics", |t| !t.is_deleted()).is_none());
    assert_eq!(&*tasks.with_uid("new@host").unwrap().id, "a");
    let loaded = Space::from_snapshot(space.snapshot()).unwrap();
    assert_eq!(
        found(&loaded, "new@host", "renamed.ics"),
        (some("a"), some("a"))
    );
    assert_eq!(
        found(&loaded, "plain", "plain.ics"),
        (some("plain"), some("plain"))
    );
    // The only entries are the client-chosen names that are not the todoId's.
    let objects = &loaded.collection(Kind::Task).objects;
    assert_eq!(objects.len(), (1, 1));
}

/// The space knows which tasks have a reminder due and when the next one is; a firing
/// sets `remindedAt`, takes the task off until a change re-arms it, and is refused
/// when nothing is due. Deleted and finished tasks are not listed; a loaded snapshot
/// lists the same.
#[test]
fn reminders_are_listed_by_when_they_are_due_and_fire_once() {
    const MIN: i64 = 60_000;
    let mut space = Space::new("s");
    // dateDue 2030-01-01T10:00Z, reminders at 09:30 (relative) and 09:50 (absolute).
    let due = 1_893_492_000_000;
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "a", "dateDue": "2030-01-01T10:00:00Z",
               "reminders": [{"minutesBefore": 30}, {"at": "2030-01-01T09:50:00Z"}]}),
    );
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "b", "reminders": [{"at": "2030-01-01T09:00:00Z"}]}),
    );
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "c", "status": "done",
               "reminders": [{"at": "2030-01-01T08:00:00Z"}]}),
    );
    create(&mut space, Kind::Task, json!({"todoId": "none"}));
    assert_eq!(space.next_reminder(), Some(due - 60 * MIN));
    assert!(space.reminders_due(due - 61 * MIN, 10).is_empty());
    let ids = |v: Vec<Id>| v.iter().map(|id| id.to_string()).collect::<Vec<_>>();
    assert_eq!(ids(space.reminders_due(due, 10)), ["b", "a"]);
    assert_eq!(ids(space.reminders_due(due, 1)), ["b"]);
    let remind =
        |space: &mut Space, id: &str, now: i64| run(space, Kind::Task, id, Op::Remind, now);
    let fired = remind(&mut space, "a", due - 30 * MIN).unwrap();
    let field = |r: &Record, name: &str| r.fields[Kind::Task.field_index(name).unwrap()].clone();
    assert_eq!(
        field(&fired.record, "remindedAt"),
        Value::Time(due - 30 * MIN)
    );
    assert_eq!(fired.record.updated_at, due - 30 * MIN);
    // Its 09:50 reminder is left; firing again before it is refused.
    assert!(matches!(
        remind(&mut space, "a", due - 20 * MIN),
        Err(SpaceError::NothingDue { .. })
    ));
    assert!(
        remind(&mut space, "c", due).is_err(),
        "finished tasks do not fire"
    );
    assert!(remind(&mut space, "none", due).is_err());
    assert_eq!(ids(space.reminders_due(due, 10)), ["b", "a"]);
    remind(&mut space, "a", due - 10 * MIN).unwrap();
    assert_eq!(ids(space.reminders_due(i64::MAX, 10)), ["b"]);
    // A moved dateDue re-arms the relative reminder.
    space
        .update(
            Kind::Task,
            "a",
            changes(
                Kind::Task,
                Mode::Update,
                json!({"dateDue": "2030-01-02T10:00:00Z"}),
            ),
            due,
        )
        .unwrap();
    assert_eq!(space.reminders_due(i64::MAX, 10).len(), 2);
    space.set_deleted(Kind::Task, "b", true, due).unwrap();
    let rebuilt = Space::from_snapshot(space.snapshot()).unwrap();
    for s in [&space, &rebuilt] {
        assert_eq!(ids(s.reminders_due(i64::MAX, 10)), ["a"]);
        assert_eq!(s.next_reminder(), Some(due + 1_440 * MIN - 30 * MIN));
    }
}

/// A completion's roll is decided by the write at its time and kept in the outcome:
/// replaying the outcome later gives the same record, and an undo takes it back.
#[test]
fn a_completion_is_decided_once_and_replays_to_the_same_dates() {
    let mut space = Space::new("s");
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "t", "dateDue": "2030-01-01T09:00:00Z", "timeZone": "Europe/Paris",
               "recurrence": "FREQ=DAILY;INTERVAL=3;COUNT=4", "recurFrom": "completion"}),
    );
    let before = space.clone();
    let done = Command {
        kind: Kind::Task,
        id: "t".into(),
        op: Op::Update(changes(Kind::Task, Mode::Update, json!({"status": "done"}))),
        if_match: None,
    };
    // 2026-11-27T12:00:00Z: the series starts again that day at 10:00 in Paris (09:00Z).
    let now = 1_795_780_800_000;
    let (outcome, undo) = space.apply(std::slice::from_ref(&done), now).unwrap();
    let rolled = outcome.item().record;
    let field = |name: &str| rolled.fields[Kind::Task.field_index(name).unwrap()].clone();
    assert_eq!(
        field("dateDue"),
        Value::Time(now - 3 * 3_600_000 + 3 * 86_400_000)
    );
    assert_eq!(
        field("recurrence"),
        Value::Text("FREQ=DAILY;INTERVAL=3;COUNT=3".into())
    );
    assert_eq!(field("status"), Value::Null);
    assert_eq!(field("completedCount"), Value::Integer(1));
    assert_eq!(field("lastCompletedAt"), Value::Time(now));
    let mut replayed = before.clone();
    replayed.replay(&outcome).unwrap();
    assert_eq!(replayed.get(Kind::Task, "t").unwrap().record, rolled);
    space.undo(undo);
    assert_eq!(
        space.get(Kind::Task, "t").unwrap().record,
        before.get(Kind::Task, "t").unwrap().record
    );
}

#[test]
fn a_write_is_heavy_when_it_may_search_flip_roll_or_carry_much() {
    let mut space = Space::new("s");
    create(&mut space, Kind::Task, json!({"todoId": "hub"}));
    create(&mut space, Kind::Task, json!({"todoId": "lone"}));
    for i in 0..=LIGHT_DEPENDENTS {
        let body = json!({"todoId": format!("d{i}"), "predecessorIds": ["hub"]});
        create(&mut space, Kind::Task, body);
    }
    let update = |id: &str, body: serde_json::Value| Command {
        kind: Kind::Task,
        id: id.into(),
        op: Op::Update(changes(Kind::Task, Mode::Update, body)),
        if_match: None,
    };
    let delete = |id: &str| Command {
        kind: Kind::Task,
        id: id.into(),
        op: Op::SetDeleted(true),
        if_match: None,
    };
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "weekly", "dateDue": "2030-01-01T09:00:00Z",
               "recurrence": "FREQ=WEEKLY"}),
    );
    let light = |commands: &[Command]| !space.is_heavy(commands);
    assert!(light(&[update("lone", json!({"status": "done"}))]));
    assert!(light(&[update("weekly", json!({"name": "renamed"}))]));
    // A roll expands the rule.
    assert!(!light(&[update("weekly", json!({"status": "done"}))]));
    assert!(light(&[update("d0", json!({"status": "done"}))]));
    assert!(light(&[delete("d0")]));
    assert!(light(&[update("lone", json!({"predecessorIds": ["hub"]}))]));
    assert!(light(&[update("hub", json!({"name": "renamed"}))]));
    // Flips of more than LIGHT_DEPENDENTS tasks.
    assert!(!light(&[update("hub", json!({"status": "done"}))]));
    assert!(!light(&[delete("hub")]));
    // A cycle search: something names the task.
    assert!(!light(&[update(
        "hub",
        json!({"predecessorIds": ["lone"]})
    )]));
    // Many commands, much text.
    let many: Vec<Command> = (0..=LIGHT_COMMANDS)
        .map(|_| update("lone", json!({"name": "x"})))
        .collect();
    assert!(!light(&many));
    let notes = "n".repeat(LIGHT_TEXT_BYTES / 2 + 1);
    let twice = [
        update("lone", json!({"notesMarkdown": notes})),
        update("d0", json!({"notesMarkdown": notes})),
    ];
    assert!(light(&twice[..1]));
    assert!(!light(&twice));
}

fn field<'a>(record: &'a Record, kind: Kind, name: &str) -> &'a Value {
    &record.fields[kind.field_index(name).unwrap()]
}

fn query(limit: usize) -> ListQuery {
    ListQuery {
        limit,
        include_deleted: false,
        filters: Vec::new(),
        cursor: None,
        find: None,
        plan: Plan::Indexes,
        view: None,
    }
}

/// Walks every page, returning the ids in order.
fn walk(space: &Space, kind: Kind, mut q: ListQuery) -> Vec<String> {
    let mut ids = Vec::new();
    loop {
        let page = space.list(kind, &q).unwrap();
        ids.extend(page.records.iter().map(|r| r.id.to_string()));
        match page.next_cursor {
            Some(c) => q.cursor = Some(c),
            None => return ids,
        }
    }
}

#[test]
fn every_successful_write_adds_exactly_one_to_the_version() {
    let mut space = Space::new("s");
    assert_eq!(space.version(), 0);
    let item = create(&mut space, Kind::List, json!({"listId": "a"}));
    assert_eq!((item.version, item.record.version), (1, 1));
    space
        .update(Kind::List, "a", Changes::default(), 2_000)
        .unwrap();
    space.set_deleted(Kind::List, "a", true, 3_000).unwrap();
    space.set_deleted(Kind::List, "a", true, 4_000).unwrap();
    let item = space.set_deleted(Kind::List, "a", false, 5_000).unwrap();
    let item2 = space.set_deleted(Kind::List, "a", false, 6_000).unwrap();
    assert_eq!(item.version, 5);
    assert_eq!(item2.version, 6);
    assert_eq!(item2.record.updated_at, 6_000);
    assert_eq!(space.get(Kind::List, "a").unwrap().version, 6);
}

#[test]
fn failed_writes_change_nothing() {
    let mut space = Space::new("s");
    create(&mut space, Kind::Task, json!({"todoId": "t", "name": "n"}));
    let before = space.snapshot();
    let dup = space.create(
        Kind::Task,
        changes(Kind::Task, Mode::Create, json!({"todoId": "t"})),
        9,
    );
    assert!(matches!(dup, Err(SpaceError::AlreadyExists { .. })));
    let bad_ref = space.update(
        Kind::Task,
        "t",
        changes(
            Kind::Task,
            Mode::Update,
            json!({"name": "x", "listId": "nope"}),
        ),
        9,
    );
    assert_eq!(
        bad_ref.unwrap_err(),
        SpaceError::InvalidReference {
            field: "listId",
            id: "nope".into()
        }
    );
    assert!(matches!(
        space.set_deleted(Kind::Task, "missing", true, 9),
        Err(SpaceError::NotFound { .. })
    ));
    assert_eq!(space.version(), before.version);
    assert_eq!(space.snapshot().collections, before.collections);
}

#[test]
fn a_deleted_record_cannot_be_patched_and_keeps_its_first_deletion_time() {
    let mut space = Space::new("s");
    create(&mut space, Kind::Context, json!({"contextId": "c"}));
    space.set_deleted(Kind::Context, "c", true, 2_000).unwrap();
    let again = space.set_deleted(Kind::Context, "c", true, 3_000).unwrap();
    assert_eq!(again.record.deleted_at(), Some(2_000));
    let patch = space.update(Kind::Context, "c", Changes::default(), 4_000);
    assert!(matches!(patch, Err(SpaceError::RecordDeleted { .. })));
    let restored = space.set_deleted(Kind::Context, "c", false, 5_000).unwrap();
    assert_eq!(restored.record.deleted_at(), None);
}

#[test]
fn sort_order_defaults_to_one_more_than_the_largest_including_deleted() {
    let mut space = Space::new("s");
    let first = create(&mut space, Kind::Category, json!({}));
    assert_eq!(first.record.sort_order, 1.0);
    create(
        &mut space,
        Kind::Category,
        json!({"categoryId": "big", "sortOrder": 7.5}),
    );
    space.set_deleted(Kind::Category, "big", true, 2).unwrap();
    let next = create(&mut space, Kind::Category, json!({}));
    assert_eq!(next.record.sort_order, 8.5);
    let other_kind = create(&mut space, Kind::Schedule, json!({}));
    assert_eq!(other_kind.record.sort_order, 1.0);
}

#[test]
fn references_must_name_active_records_and_survive_later_deletion() {
    let mut space = Space::new("s");
    create(&mut space, Kind::List, json!({"listId": "l"}));
    create(&mut space, Kind::Category, json!({"categoryId": "c"}));
    let task = create(
        &mut space,
        Kind::Task,
        json!({"todoId": "t", "listId": "l", "categoryIds": ["c", "c"]}),
    );
    assert_eq!(
        *field(&task.record, Kind::Task, "categoryIds"),
        Value::Ids(vec!["c".into()].into_boxed_slice())
    );
    space.set_deleted(Kind::List, "l", true, 2).unwrap();
    let kept = space.get(Kind::Task, "t").unwrap();
    assert_eq!(
        field(&kept.record, Kind::Task, "listId").as_text(),
        Some("l")
    );
    let err = space
        .create(
            Kind::Task,
            changes(Kind::Task, Mode::Create, json!({"listId": "l"})),
            3,
        )
        .unwrap_err();
    assert!(matches!(
        err,
        SpaceError::InvalidReference {
            field: "listId",
            ..
        }
    ));
    let err = space
        .create(
            Kind::Task,
            changes(Kind::Task, Mode::Create, json!({"scheduleIds": ["c"]})),
            3,
        )
        .unwrap_err();
    assert!(matches!(
        err,
        SpaceError::InvalidReference {
            field: "scheduleIds",
            ..
        }
    ));
}

#[test]
fn setting_is_default_clears_it_on_every_other_list_and_touches_them() {
    let mut space = Space::new("s");
    create(
        &mut space,
        Kind::List,
        json!({"listId": "a", "isDefault": true}),
    );
    create(&mut space, Kind::List, json!({"listId": "b"}));
    let item = space
        .update(
            Kind::List,
            "b",
            changes(Kind::List, Mode::Update, json!({"isDefault": true})),
            5_000,
        )
        .unwrap();
    let a = space.get(Kind::List, "a").unwrap().record;
    assert_eq!(*field(&a, Kind::List, "isDefault"), Value::Bool(false));
    assert_eq!((a.version, a.updated_at), (item.version, 5_000));
    assert_eq!(
        *field(&item.record, Kind::List, "isDefault"),
        Value::Bool(true)
    );
    let created = create(
        &mut space,
        Kind::List,
        json!({"listId": "c", "isDefault": true}),
    );
    let b = space.get(Kind::List, "b").unwrap().record;
    assert_eq!(*field(&b, Kind::List, "isDefault"), Value::Bool(false));
    assert_eq!(b.version, created.version);
}

#[test]
fn listing_orders_by_sort_order_then_id_and_pages_without_gaps() {
    let mut space = Space::new("s");
    for (id, sort) in [("b", 2.0), ("a", 2.0), ("c", -1.0), ("B", 2.0), ("d", 10.0)] {
        create(
            &mut space,
            Kind::Task,
            json!({"todoId": id, "sortOrder": sort}),
        );
    }
    assert_eq!(
        walk(&space, Kind::Task, query(2)),
        ["c", "B", "a", "b", "d"]
    );
    assert_eq!(walk(&space, Kind::Task, query(100)).len(), 5);
    let full = space.list(Kind::Task, &query(5)).unwrap();
    assert_eq!(full.records.len(), 5);
    assert_eq!(
        full.next_cursor, None,
        "an exactly full last page has no cursor"
    );
}

#[test]
fn deleted_records_are_listed_only_when_asked() {
    let mut space = Space::new("s");
    create(&mut space, Kind::Task, json!({"todoId": "a"}));
    create(&mut space, Kind::Task, json!({"todoId": "b"}));
    space.set_deleted(Kind::Task, "a", true, 2).unwrap();
    assert_eq!(walk(&space, Kind::Task, query(10)), ["b"]);
    let all = ListQuery {
        include_deleted: true,
        ..query(1)
    };
    assert_eq!(walk(&space, Kind::Task, all), ["a", "b"]);
}

#[test]
fn filters_combine_with_and_and_use_exact_matches() {
    let mut space = Space::new("s");
    create(&mut space, Kind::List, json!({"listId": "l"}));
    create(&mut space, Kind::Context, json!({"contextId": "x"}));
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "1", "listId": "l", "status": "open"}),
    );
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "2", "listId": "l", "status": "done"}),
    );
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "3", "listId": "l", "status": "open", "contextId": "x"}),
    );
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "4", "status": "open"}),
    );
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "5", "listId": "l", "status": "Open"}),
    );
    let index = |name| Kind::Task.field_index(name).unwrap();
    let filtered = |filters: Vec<(usize, String)>| {
        walk(
            &space,
            Kind::Task,
            ListQuery {
                filters,
                ..query(1)
            },
        )
    };
    assert_eq!(
        filtered(vec![
            (index("status"), "open".into()),
            (index("listId"), "l".into())
        ]),
        ["1", "3"]
    );
    assert_eq!(
        filtered(vec![
            (index("listId"), "l".into()),
            (index("contextId"), "x".into())
        ]),
        ["3"]
    );
    assert!(filtered(vec![(index("status"), "gone".into())]).is_empty());
}

#[test]
fn a_filter_value_no_record_has_any_more_leaves_no_index_entry() {
    let mut space = Space::new("s");
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "t", "status": "open"}),
    );
    let done = changes(Kind::Task, Mode::Update, json!({"status": "done"}));
    space.update(Kind::Task, "t", done, 2).unwrap();
    let status = Kind::Task.field_index("status").unwrap();
    let tasks = space.collection(Kind::Task).indexes.tasks.as_ref().unwrap();
    let terms = tasks.field_terms(status).unwrap();
    assert!(terms.get("open").is_none());
    assert_eq!(terms.get("done").map(|p| p.iter().count()), Some(1));
}

#[test]
fn a_walk_skips_records_written_after_it_began_and_nothing_else() {
    let mut space = Space::new("s");
    for i in 0..10 {
        create(&mut space, Kind::Task, json!({"todoId": format!("t{i}")}));
    }
    let first = space.list(Kind::Task, &query(3)).unwrap();
    let ids: Vec<&str> = first.records.iter().map(|r| &*r.id).collect();
    assert_eq!(ids, ["t0", "t1", "t2"]);
    // Move an unseen record to the front, edit another, delete one, add a new one.
    space
        .update(
            Kind::Task,
            "t5",
            changes(Kind::Task, Mode::Update, json!({"sortOrder": -5})),
            9,
        )
        .unwrap();
    space
        .update(
            Kind::Task,
            "t6",
            changes(Kind::Task, Mode::Update, json!({"name": "x"})),
            9,
        )
        .unwrap();
    space.set_deleted(Kind::Task, "t7", true, 9).unwrap();
    create(&mut space, Kind::Task, json!({"todoId": "t99"}));
    let rest = walk(
        &space,
        Kind::Task,
        ListQuery {
            cursor: first.next_cursor,
            find: None,
            plan: Plan::Indexes,
            view: None,
            ..query(2)
        },
    );
    assert_eq!(rest, ["t3", "t4", "t8", "t9"]);
}

#[test]
fn a_cursor_only_fits_its_own_query() {
    let mut space = Space::new("s");
    for i in 0..3 {
        create(&mut space, Kind::Task, json!({"todoId": format!("t{i}")}));
        create(&mut space, Kind::List, json!({"listId": format!("l{i}")}));
    }
    let cursor = space.list(Kind::Task, &query(1)).unwrap().next_cursor;
    assert!(cursor.is_some());
    let reuse = |kind, include_deleted| {
        space.list(
            kind,
            &ListQuery {
                include_deleted,
                cursor: cursor.clone(),
                find: None,
                plan: Plan::Indexes,
                view: None,
                ..query(1)
            },
        )
    };
    assert!(reuse(Kind::Task, false).is_ok());
    assert_eq!(
        reuse(Kind::List, false).unwrap_err(),
        SpaceError::InvalidCursor
    );
    assert_eq!(
        reuse(Kind::Task, true).unwrap_err(),
        SpaceError::InvalidCursor
    );
    let mut other = Space::new("other");
    create(&mut other, Kind::Task, json!({}));
    let foreign = other.list(
        Kind::Task,
        &ListQuery {
            cursor: cursor.clone(),
            find: None,
            plan: Plan::Indexes,
            view: None,
            ..query(1)
        },
    );
    assert_eq!(foreign.unwrap_err(), SpaceError::InvalidCursor);
}

/// Every id of a walk of `query`, page by page.
fn walk_ids(space: &Space, mut query: ListQuery) -> Result<Vec<String>, SpaceError> {
    let mut ids = Vec::new();
    loop {
        let page = space.list(Kind::Task, &query)?;
        ids.extend(page.records.iter().map(|r| r.id.to_string()));
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => return Ok(ids),
        }
    }
}

#[test]
fn the_planner_finds_what_a_scan_finds_in_the_same_order() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    let mut space = Space::new("s");
    let day = 86_400_000_i64;
    let now = 1_800_000_000_000_i64;
    let words = [
        "milk", "mild", "bread", "Café", "crème", "Ölbild", "tax", "call",
    ];
    let time = |rng: &mut rand::rngs::StdRng| {
        let ms = now + rng.gen_range(-20..20) * day / 2;
        chrono::DateTime::from_timestamp_millis(ms)
            .unwrap()
            .to_rfc3339()
    };
    for i in 0..(SCAN_BELOW + 500) {
        let name: Vec<&str> = (0..rng.gen_range(0..3))
            .map(|_| words[rng.gen_range(0..words.len())])
            .collect();
        let status = ["open", "done", "waiting"][rng.gen_range(0..3)];
        let mut body = json!({
            "todoId": format!("t{i:05}"),
            "name": name.join(" "),
            "status": status,
            "sortOrder": rng.gen_range(0..50),
            "tagIds": if rng.gen_bool(0.3) { json!(["home"]) } else { json!(["work", "x"]) },
            "isImportant": rng.gen_bool(0.5),
        });
        if rng.gen_bool(0.6) {
            body["dateDue"] = json!(time(&mut rng));
        }
        if rng.gen_bool(0.2) {
            body["dateStart"] = json!(time(&mut rng));
        }
        create(&mut space, Kind::Task, body);
        if rng.gen_bool(0.05) {
            let id = format!("t{i:05}");
            space.set_deleted(Kind::Task, &id, true, 2_000).unwrap();
        }
    }
    // Rewritten tasks leave their old index entries.
    for i in (0..SCAN_BELOW).step_by(7) {
        let body = match i % 3 {
            0 => json!({"name": words[i % words.len()], "dateDue": time(&mut rng)}),
            1 => json!({"tagIds": ["home", "new"]}),
            _ => json!({"sortOrder": rng.gen_range(0..50), "status": "open"}),
        };
        let changes = changes(Kind::Task, Mode::Update, body);
        // A deleted task is refused, and stays as it was.
        let _ = space.update(Kind::Task, &format!("t{i:05}"), changes, 3_000);
    }
    let loaded = Space::from_snapshot(space.snapshot()).unwrap();
    let queries = [
        ("", "", "sortOrder"),
        ("dateDue < now+2d && status != \"done\"", "", "sortOrder"),
        ("dateDue >= today && dateDue <= today+1w", "", "-dateDue"),
        ("dateDue = null", "", "dateDue"),
        ("", "mil", "sortOrder"),
        ("", "cafe creme", "name,-dateStart"),
        ("tagIds has \"home\"", "", "dateStart,-sortOrder"),
        (
            "status in (\"open\", \"waiting\") && updatedAt > 1970-01-02",
            "",
            "updatedAt",
        ),
        ("isImportant = true || dateStart != null", "", "-sortOrder"),
        ("", "", "-dateDue,name"),
        ("status = \"done\"", "tax", "isImportant,-dateDue"),
    ];
    let status = Kind::Task.field_index("status").unwrap();
    let exact = [None, Some("done"), Some("waiting")];
    for ((filter, q, order), exact) in queries.into_iter().cartesian_product(exact) {
        for include_deleted in [false, true] {
            let query = |plan| ListQuery {
                limit: 7,
                include_deleted,
                filters: exact
                    .map(|value| (status, value.into()))
                    .into_iter()
                    .collect(),
                cursor: None,
                find: Some(TaskQuery {
                    filter: filter.into(),
                    search: Search::parse(q).unwrap(),
                    order: OrderBy::parse(order).unwrap(),
                    tz: chrono_tz::UTC,
                    now,
                }),
                plan,
                view: None,
            };
            let planned = walk_ids(&space, query(Plan::Indexes)).unwrap();
            let loaded = walk_ids(&loaded, query(Plan::Indexes)).unwrap();
            assert_eq!(planned, loaded, "{filter} / {q} / {order}");
            let scanned = walk_ids(&space, query(Plan::Scan)).unwrap();
            assert_eq!(planned, scanned, "{filter} / {q} / {order}");
            let find = query(Plan::Scan).find.unwrap();
            let parsed = Filter::parse(
                filter,
                FilterContext {
                    space_id: "s",
                    tz: chrono_tz::UTC,
                    now_ms: now,
                },
            )
            .unwrap();
            let tasks = &space.collection(Kind::Task).records;
            let mut expected: Vec<&Arc<Record>> = tasks
                .values()
                .filter(|r| include_deleted || !r.is_deleted())
                .filter(|r| exact.is_none_or(|v| r.fields[status].as_text() == Some(v)))
                .filter(|r| parsed.matches(r) && find.search.matches_task(r))
                .collect();
            expected.sort_by(|a, b| find.order.compare(a, b));
            let expected: Vec<String> = expected.iter().map(|r| r.id.to_string()).collect();
            assert_eq!(planned, expected, "{filter} / {q} / {order}");
        }
    }
}

#[test]
fn a_snapshot_rebuilds_the_same_space() {
    let mut space = Space::new("s");
    create(&mut space, Kind::List, json!({"listId": "l"}));
    create(
        &mut space,
        Kind::Task,
        json!({"todoId": "t", "listId": "l", "status": "s"}),
    );
    space.set_deleted(Kind::List, "l", true, 7).unwrap();
    let rebuilt = Space::from_snapshot(space.snapshot()).unwrap();
    assert_eq!(rebuilt.version(), 3);
    assert_eq!(rebuilt.snapshot().collections, space.snapshot().collections);
    let status = ListQuery {
        filters: vec![(Kind::Task.field_index("status").unwrap(), "s".into())],
        ..query(5)
    };
    assert_eq!(walk(&rebuilt, Kind::Task, status), ["t"]);
    assert!(rebuilt
        .list(Kind::List, &query(5))
        .unwrap()
        .records
        .is_empty());
}

#[test]
fn an_inconsistent_snapshot_is_refused() {
    let mut space = Space::new("s");
    create(&mut space, Kind::Task, json!({"todoId": "t"}));
    let mut snapshot = space.snapshot();
    snapshot.version = 0;
    assert!(Space::from_snapshot(snapshot)
        .unwrap_err()
        .contains("above the space version"));
    let mut snapshot = space.snapshot();
    let dup = snapshot.collections[0].1[0].clone();
    snapshot.collections[0].1.push(dup);
    assert!(Space::from_snapshot(snapshot)
        .unwrap_err()
        .contains("twice"));
}

fn command(kind: Kind, id: &str, op: Op) -> Command {
    Command {
        kind,
        id: id.into(),
        op,
        if_match: None,
    }
}

fn feed_ids(space: &Space, since: u64) -> Vec<(u64, String)> {
    let page = space.changes(since, usize::MAX).unwrap();
    page.changes
        .iter()
        .map(|c| (c.record.version, c.record.id.to_string()))
        .collect()
}

#[test]
fn a_batch_applies_in_order_or_not_at_all() {
    let mut space = Space::new("s");
    let list = changes(Kind::List, Mode::Create, json!({"listId": "l"}));
    let task = changes(Kind::Task, Mode::Create, json!({"listId": "l"}));
    let ok = [
        command(Kind::List, "l", Op::Create(list.clone())),
        command(Kind::Task, "t", Op::Create(task.clone())),
        command(Kind::Task, "t", Op::SetDeleted(true)),
    ];
    let (outcome, _) = space.apply(&ok, 5).unwrap();
    assert_eq!(
        (outcome.base, outcome.version, outcome.steps.len()),
        (0, 3, 3)
    );
    assert!(outcome.steps[1].created && !outcome.steps[2].created);
    assert_eq!(feed_ids(&space, 0), [(1, "l".into()), (3, "t".into())]);

    let before = space.view();
    let failing = [
        command(Kind::List, "m", Op::Create(list)),
        command(Kind::Task, "u", Op::Create(task)),
        command(Kind::Task, "t", Op::Update(Changes::default())),
    ];
    let (index, error) = space.apply(&failing, 6).unwrap_err();
    assert_eq!(index, 2);
    assert!(matches!(error, SpaceError::RecordDeleted { .. }));
    assert_eq!(space.view(), before, "nothing of the batch is left");
    assert_eq!(feed_ids(&space, 0), [(1, "l".into()), (3, "t".into())]);
}

#[test]
fn if_match_is_checked_after_existence_and_against_the_current_version() {
    let mut space = Space::new("s");
    create(&mut space, Kind::Task, json!({"todoId": "t"}));
    let guarded = |versions: Vec<u64>| Command {
        if_match: Some(IfMatch::Versions(versions)),
        ..command(Kind::Task, "t", Op::Update(Changes::default()))
    };
    let stale = space.apply(&[guarded(vec![7])], 2).unwrap_err().1;
    assert!(matches!(stale, SpaceError::PreconditionFailed { .. }));
    assert_eq!(space.version(), 1);
    space.apply(&[guarded(vec![7, 1])], 2).unwrap();
    let missing = Command {
        if_match: Some(IfMatch::Any),
        ..command(Kind::Task, "nope", Op::SetDeleted(true))
    };
    let error = space.apply(&[missing], 3).unwrap_err().1;
    assert!(matches!(error, SpaceError::NotFound { .. }));
}

#[test]
fn the_feed_pages_by_version_without_splitting_one() {
    let mut space = Space::new("s");
    create(
        &mut space,
        Kind::List,
        json!({"listId": "a", "isDefault": true}),
    );
    create(&mut space, Kind::Context, json!({"contextId": "c"}));
    create(
        &mut space,
        Kind::List,
        json!({"listId": "b", "isDefault": true}),
    );
    let page = space.changes(0, 1).unwrap();
    assert_eq!(
        (page.changes.len(), page.next_since, page.has_more),
        (1, 2, true)
    );
    let page = space.changes(2, 1).unwrap();
    let ids: Vec<&str> = page.changes.iter().map(|c| &*c.record.id).collect();
    assert_eq!(ids, ["a", "b"], "version 3 touched both lists");
    assert!(!page.has_more);
    assert!(matches!(
        space.changes(4, 1),
        Err(SpaceError::SinceAhead {
            since: 4,
            version: 3
        })
    ));
    let rebuilt = Space::from_snapshot(space.snapshot()).unwrap();
    assert_eq!(feed_ids(&rebuilt, 0), feed_ids(&space, 0));
}

/// A space loading (`Space::load`) puts the journal's records only and builds its indexes
/// once (`Space::finish_load`): it must answer as the space that made the writes, words
/// and tags included (more than [`SCAN_BELOW`] tasks, so that pages come from the
/// indexes), after creates, renames, retags and a delete.
#[test]
fn a_space_replayed_while_loading_answers_as_the_one_that_wrote() {
    let mut space = Space::new("s");
    let mut outcomes = Vec::new();
    let mut write = |space: &mut Space, id: &str, op: Op| {
        let command = Command {
            kind: Kind::Task,
            id: id.into(),
            op,
            if_match: None,
        };
        outcomes.push(
            space
                .apply(std::slice::from_ref(&command), 1_000)
                .unwrap()
                .0,
        );
    };
    for i in 0..(SCAN_BELOW + 100) {
        let body = json!({"todoId": format!("t{i:04}"), "name": format!("milk run {i}"),
            "notesMarkdown": "café", "tagIds": ["home"]});
        write(
            &mut space,
            &format!("t{i:04}"),
            Op::Create(changes(Kind::Task, Mode::Create, body)),
        );
    }
    for i in (0..SCAN_BELOW).step_by(3) {
        let body = json!({"name": "bread", "tagIds": ["work"]});
        write(
            &mut space,
            &format!("t{i:04}"),
            Op::Update(changes(Kind::Task, Mode::Update, body)),
        );
    }
    write(&mut space, "t0001", Op::SetDeleted(true));
    let mut loaded = Space::load(SpaceSnapshot {
        id: "s".into(),
        version: 0,
        reserved: 0,
        collections: Vec::new(),
        tasks: None,
    })
    .unwrap();
    for outcome in &outcomes {
        loaded.replay(outcome).unwrap();
    }
    loaded.finish_load();
    assert_eq!(loaded.snapshot(), space.snapshot());
    for (q, filter) in [("mil", ""), ("bread caf", ""), ("", "tagIds has \"work\"")] {
        assert_same_page(&space, &loaded, q, filter, None);
    }
}

/// Asserts that `loaded` gives the first page of search `q` and `filter` as `space` does,
/// and that it is not empty; with a `status`, deleted tasks included and only those of it.
fn assert_same_page(space: &Space, loaded: &Space, q: &str, filter: &str, status: Option<&str>) {
    let query = || ListQuery {
        limit: 100,
        include_deleted: status.is_some(),
        filters: (status.into_iter())
            .map(|s| (Kind::Task.field_index("status").unwrap(), s.into()))
            .collect(),
        cursor: None,
        find: Some(TaskQuery {
            filter: filter.into(),
            search: Search::parse(q).unwrap(),
            order: OrderBy::default(),
            tz: chrono_tz::UTC,
            now: 1_000,
        }),
        plan: Plan::Indexes,
        view: None,
    };
    let wrote = walk_ids(space, query()).unwrap();
    assert!(!wrote.is_empty(), "{q} / {filter}");
    assert_eq!(walk_ids(loaded, query()).unwrap(), wrote, "{q} / {filter}");
}

/// The posting lists of `space`'s tasks by id, and each task's handle.
fn postings(space: &Space) -> find::ListsById {
    let tasks = space.collection(Kind::Task).indexes.tasks.as_ref();
    tasks.expect("task indexes").lists_by_id()
}

/// Writes that touch every posting list: tasks with words, tags, lists, contexts and
/// statuses; renames, retags, moves, completions, deletes and restores. `round` makes
/// each call's writes differ. Each task comes before the ones made before it in the
/// default order, so a build hands out handles in the reverse of the writer's order.
fn touch_every_list(space: &mut Space, round: usize, tasks: usize) -> Vec<Outcome> {
    if round == 0 {
        for list in ["l0", "l1", "l2", "l9"] {
            create(space, Kind::List, json!({ "listId": list }));
        }
        for context in ["c0", "c1", "c2", "c3"] {
            create(space, Kind::Context, json!({ "contextId": context }));
        }
    }
    let mut outcomes = Vec::new();
    let mut write = |space: &mut Space, id: String, op: Op| {
        let done = space.apply(&[command(Kind::Task, &id, op)], 1_000).unwrap();
        outcomes.push(done.0);
    };
    for i in 0..tasks {
        let id = format!("r{round}t{i:05}");
        let status = ["open", "waiting"][i % 2];
        let body = json!({"todoId": id, "name": format!("milk {} run{round}", i % 50),
            "notesMarkdown": format!("café n{}", i % 7), "tagIds": [format!("tag{}", i % 5)],
            "listId": format!("l{}", i % 3), "contextId": format!("c{}", i % 4),
            "status": status, "sortOrder": -((round * 100_000 + i) as f64)});
        write(
            space,
            id,
            Op::Create(changes(Kind::Task, Mode::Create, body)),
        );
    }
    for i in (0..tasks).step_by(4) {
        let body = json!({"name": format!("bread {i}"), "tagIds": ["tag1", "new"],
            "listId": "l9", "status": "done"});
        let op = Op::Update(changes(Kind::Task, Mode::Update, body));
        write(space, format!("r{round}t{i:05}"), op);
    }
    for i in (1..tasks).step_by(9) {
        write(space, format!("r{round}t{i:05}"), Op::SetDeleted(true));
    }
    for i in (1..tasks).step_by(27) {
        write(space, format!("r{round}t{i:05}"), Op::SetDeleted(false));
    }
    outcomes
}

/// A task collection's indexes hold as many posting lists as an image names.
#[test]
fn an_image_names_every_posting_list() {
    let mut indexes = find::TaskIndexes::new();
    assert_eq!(indexes.lists_mut().count(), TaskImage::LISTS);
}

/// A snapshot carries the task posting lists (format 12): a load keeps them, handles and
/// all, and they hold what a build from the records holds, through later writes too.
#[test]
fn a_snapshots_posting_lists_load_as_a_build_would() {
    let mut space = Space::new("s");
    touch_every_list(&mut space, 0, SCAN_BELOW + 300);
    let restored = Space::from_snapshot(space.snapshot()).unwrap();
    let rebuilt = Space::from_snapshot(SpaceSnapshot {
        tasks: None,
        ..space.snapshot()
    })
    .unwrap();
    let (lists, handles) = postings(&space);
    assert_eq!(
        postings(&restored),
        (lists.clone(), handles),
        "the writer's handles"
    );
    assert_eq!(postings(&rebuilt).0, lists);
    assert!(lists.iter().all(|list| !list.is_empty()));
    // Both go on as the writer does.
    let mut spaces = [space, restored, rebuilt];
    for space in &mut spaces {
        touch_every_list(space, 1, 500);
    }
    let lists = postings(&spaces[0]).0;
    assert_eq!(postings(&spaces[1]).0, lists);
    assert_eq!(postings(&spaces[2]).0, lists);
}

/// The journal's writes after a snapshot are applied to the snapshot's posting lists in
/// bulk while at most half the snapshot's tasks changed, and the lists are built again
/// when more did: either way they hold what the writer's hold,
/// and the pages agree.
#[test]
fn a_journal_over_a_snapshots_posting_lists_answers_as_the_writer() {
    let snapshot_tasks = SCAN_BELOW + 300;
    let cases = [
        (SCAN_BELOW + 400, 100, true),
        (100, snapshot_tasks / 5, true),
        (100, snapshot_tasks * 3 / 5, false),
    ];
    for (made, renamed, kept) in cases {
        let mut space = Space::new("s");
        touch_every_list(&mut space, 0, snapshot_tasks);
        let snapshot = space.snapshot();
        assert!(snapshot.tasks.is_some());
        let mut outcomes = touch_every_list(&mut space, 1, made);
        // Not the ones `touch_every_list` deleted.
        for i in (0..snapshot_tasks).filter(|i| i % 9 != 1).take(renamed) {
            let body = json!({"name": format!("bread {i}"), "tagIds": ["new"], "status": "done"});
            let op = Op::Update(changes(Kind::Task, Mode::Update, body));
            let renaming = command(Kind::Task, &format!("r0t{i:05}"), op);
            outcomes.push(space.apply(&[renaming], 1_000).unwrap().0);
        }
        let later = (made, renamed);
        let mut loaded = Space::load(snapshot).unwrap();
        outcomes.iter().for_each(|o| loaded.replay(o).unwrap());
        loaded.finish_load();
        assert_eq!(loaded.snapshot(), space.snapshot());
        let (lists, handles) = postings(&space);
        let loaded_postings = postings(&loaded);
        assert_eq!(loaded_postings.0, lists, "{later:?} tasks later");
        // Applied to the image, the writer's handles; built again, others.
        assert_eq!(loaded_postings.1 == handles, kept, "{later:?}");
        let cases = [
            ("mil", "", "waiting"),
            ("bread caf", "", "done"),
            ("", "tagIds has \"new\"", "done"),
        ];
        for (q, filter, status) in cases {
            assert_same_page(&space, &loaded, q, filter, Some(status));
        }
    }
}

/// A snapshot taken while writes are pending is of a view with those writes taken back
/// (`SpaceView::revert`): its posting lists are taken back with them, so the space it
/// loads into holds what the space held before the writes, and keeps the lists.
#[test]
fn a_view_taken_back_carries_the_posting_lists_of_its_version() {
    let mut space = Space::new("s");
    touch_every_list(&mut space, 0, 300);
    let before = postings(&space);
    let mut undos = Vec::new();
    // New tasks, and renames of tasks `touch_every_list` left undeleted (ids 6 apart).
    for i in 0..40 {
        let body = json!({"todoId": format!("new{i}"), "name": format!("kettle {i}"),
            "tagIds": ["later"], "status": "waiting"});
        let made = Op::Create(changes(Kind::Task, Mode::Create, body));
        undos.push(space.apply(&[command(Kind::Task, &format!("new{i}"), made)], 2_000));
        let body = json!({"name": format!("kettle {i}"), "tagIds": ["later"], "listId": "l9"});
        let renamed = Op::Update(changes(Kind::Task, Mode::Update, body));
        undos.push(space.apply(
            &[command(Kind::Task, &format!("r0t{:05}", i * 6), renamed)],
            2_000,
        ));
    }
    let mut view = space.view();
    for (_, undo) in undos.into_iter().map(Result::unwrap).rev() {
        view.revert(&undo);
    }
    let loaded = Space::from_snapshot(view.into()).unwrap();
    assert_eq!(postings(&loaded), before, "the writer's lists and handles");
}

/// An image that does not fit the snapshot's tasks is left, and the lists are built.
#[test]
fn posting_lists_that_do_not_fit_the_tasks_are_built_again() {
    let mut space = Space::new("s");
    touch_every_list(&mut space, 0, 300);
    let lists = postings(&space).0;
    let mut snapshot = space.snapshot();
    snapshot.collections[0].1.pop();
    let fewer = Space::from_snapshot(snapshot).unwrap();
    let (fewer_lists, _) = postings(&fewer);
    assert_ne!(fewer_lists, lists);
    let rebuilt = Space::from_snapshot(SpaceSnapshot {
        tasks: None,
        ..fewer.snapshot()
    })
    .unwrap();
    assert_eq!(fewer_lists, postings(&rebuilt).0);
}
