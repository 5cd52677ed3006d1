//! Tests of the space actor over a fake journal: group commit, take-back and reloads.

use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;

use tokio::sync::oneshot;

use crate::actors::snapshot::SnapshotActor;
use crate::actors::Failure;
use crate::model::{Command, Kind, Op, Space, SpaceError};
use crate::store::journal::StorageError;
use crate::store::Pace;

use super::*;
use crate::model::validate::{parse_changes, Mode};
use crate::model::Item;
use crate::store::journal::fake;
use crate::store::journal::Durability;
use crate::store::{Compaction, Store};
use serde_json::json;

/// A space actor over a fake journal (see [`fake::Writer`]) and a snapshot actor that
/// writes into `dir` once an hour.
fn start(dir: &std::path::Path) -> (Addr<SpaceActor>, fake::Writer) {
    let store = Store::open(dir).unwrap();
    let activity = Arc::clone(store.activity());
    let (journal, writer) = fake::Writer::start(Durability::Fsync);
    let for_snapshots = journal.clone();
    let snapshots = SyncArbiter::start(1, move || {
        SnapshotActor::new(store.clone(), for_snapshots.clone())
    });
    let hourly = Compaction {
        interval: Duration::from_secs(3600),
        percent: 100,
        min_bytes: 1 << 20,
    };
    let space = Space::new("s");
    let shown = Arc::new(Shown::new(Arc::new(space.clone())));
    let timer = super::super::reminders::Timer::new().0;
    let actor = SpaceActor::new(
        space,
        shown,
        journal,
        snapshots,
        Pace::new(hourly, 0),
        timer,
        activity,
    );
    (actor.start(), writer)
}

/// Sends `op` to `actor`; its answer comes on the returned channel.
fn send<O: Operation>(
    actor: &Addr<SpaceActor>,
    op: O,
) -> oneshot::Receiver<Result<O::Output, Failure>> {
    let (reply, answer) = oneshot::channel();
    actor.do_send(Bounded { op, reply });
    answer
}

/// Creates task `id`.
fn create(actor: &Addr<SpaceActor>, id: &str) -> oneshot::Receiver<Result<WriteResult, Failure>> {
    let body = json!({ "todoId": id }).as_object().unwrap().clone();
    let command = Command {
        kind: Kind::Task,
        id: id.into(),
        op: Op::Create(parse_changes(Kind::Task, Mode::Create, body).unwrap()),
        if_match: None,
    };
    send(
        actor,
        Write {
            commands: vec![command],
            key: None,
            actor: None,
            revert: None,
        },
    )
}

/// Reads task `id` on the actor.
fn get(
    actor: &Addr<SpaceActor>,
    id: &str,
) -> oneshot::Receiver<Result<Result<Item, SpaceError>, Failure>> {
    let id = id.to_string();
    send(
        actor,
        Read(Box::new(move |s: &Space| s.get(Kind::Task, &id))),
    )
}

fn unanswered<T>(answer: &mut oneshot::Receiver<T>) -> bool {
    matches!(answer.try_recv(), Err(oneshot::error::TryRecvError::Empty))
}

/// The version a write answered with.
async fn written(answer: oneshot::Receiver<Result<WriteResult, Failure>>) -> u64 {
    answer.await.unwrap().unwrap().unwrap().version
}

#[actix_web::test]
async fn writes_share_the_journal_and_are_answered_once_stored_with_reads_behind_them() {
    let dir = tempfile::tempdir().unwrap();
    let (actor, mut journal) = start(dir.path());
    let mut first = create(&actor, "t1");
    let mut second = create(&actor, "t2");
    let mut third = create(&actor, "t3");
    journal.queued(3).await;
    // Applied and queued, all three, before any is stored; a read waits behind them.
    let mut read = get(&actor, "t3");
    assert_eq!(journal.settled().await, 3);
    for answer in [&mut first, &mut second, &mut third] {
        assert!(unanswered(answer));
    }
    assert!(unanswered(&mut read));

    journal.answer(Ok(()));
    assert_eq!(written(first).await, 1);
    assert_eq!(journal.settled().await, 2);
    assert!(unanswered(&mut second) && unanswered(&mut read));

    journal.answer(Ok(()));
    journal.answer(Ok(()));
    assert_eq!(written(second).await, 2);
    assert_eq!(written(third).await, 3);
    let item = read.await.unwrap().unwrap().unwrap();
    assert_eq!((&*item.record.id, item.version), ("t3", 3));
}

#[actix_web::test]
async fn a_write_the_journal_refuses_is_taken_back_with_every_write_built_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let (actor, mut journal) = start(dir.path());
    let first = create(&actor, "t1");
    let second = create(&actor, "t2");
    let third = create(&actor, "t3");
    journal.queued(3).await;
    journal.answer(Ok(()));
    journal.answer(Err(StorageError::Io("disk full".into())));
    assert_eq!(written(first).await, 1);
    for refused in [second, third] {
        assert!(matches!(
            refused.await.unwrap(),
            Err(Failure::Storage(StorageError::Io(_)))
        ));
    }
    // The third entry's late answer changes nothing: its write was taken back.
    journal.answer(Ok(()));

    assert!(get(&actor, "t1").await.unwrap().unwrap().is_ok());
    for gone in ["t2", "t3"] {
        assert!(matches!(
            get(&actor, gone).await.unwrap(),
            Ok(Err(SpaceError::NotFound { .. }))
        ));
    }
    let next = create(&actor, "t4");
    journal.queued(1).await;
    journal.answer(Ok(()));
    assert_eq!(
        written(next).await,
        2,
        "the space goes on from the stored write"
    );
    assert_eq!(send(&actor, Version).await.unwrap().unwrap(), 2);
}
