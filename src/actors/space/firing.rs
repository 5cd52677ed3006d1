//! Firing the space's due reminders (docs §18) by writes of its own.

use actix::prelude::*;

use tokio::sync::oneshot;

use crate::actors::reminders::{FIRE_BATCH, FIRE_WRITES};
use crate::model::activity::{Actor, Via};
use crate::model::record::Id;
use crate::model::space::LIGHT_COMMANDS;
use crate::model::{Command, Kind, Op};

use super::messages::Write;
use super::SpaceActor;

impl SpaceActor {
    /// Tells the timer when the space's next reminder is due, if that changed.
    pub(super) fn note_reminder(&mut self) {
        let next = self.space.next_reminder();
        if next != self.reported {
            self.reported = next;
            self.timer.note(self.space.id(), next);
        }
    }

    /// Fires the reminders due now (docs §18): each due task, up to [`FIRE_BATCH`] of
    /// them, by a command of its own (its own version and change), [`LIGHT_COMMANDS`] to
    /// a write, so a write stays light and a burst costs a journal entry per
    /// [`LIGHT_COMMANDS`] firings; journaled and answered to nobody. Should a write be
    /// refused, its tasks are fired one a write, so one task the space refuses holds no
    /// other back. When more are due, the space goes on by itself, a batch a message,
    /// while fewer than [`FIRE_WRITES`] of its writes wait for their sync
    /// ([`SpaceActor::fire_more`]): a burst of firings is clocked by the journal, and the
    /// mailbox never holds more than a few hundred of their journal answers, leaving room
    /// for requests.
    pub(super) fn fire(&mut self, ctx: &mut Context<Self>) {
        if self.pending.len() >= FIRE_WRITES {
            self.refire = true;
            return;
        }
        let now = chrono::Utc::now().timestamp_millis();
        let mut due = self.space.reminders_due(now, FIRE_BATCH + 1);
        self.refire = due.len() > FIRE_BATCH;
        due.truncate(FIRE_BATCH);
        for ids in due.chunks(LIGHT_COMMANDS) {
            self.fire_write(ids.to_vec(), ctx);
        }
        self.fire_more(ctx);
    }

    /// Fires the reminders of tasks `ids` by one write; if it is refused, by one write
    /// each. A write whose journal entry fails is taken back, and its tasks fire again
    /// after the timer's respite.
    fn fire_write(&mut self, ids: Vec<Id>, ctx: &mut Context<Self>) {
        let commands = ids
            .iter()
            .map(|id| Command {
                kind: Kind::Task,
                id: id.as_str().into(),
                op: Op::Remind,
                if_match: None,
            })
            .collect();
        let write = Write {
            commands,
            key: None,
            actor: Some(Actor {
                user_id: None,
                token_id: None,
                via: Via::Reminder,
            }),
            revert: None,
        };
        let (reply, answer) = oneshot::channel();
        self.write(write, reply, std::convert::identity, ctx);
        if ids.len() > 1 {
            ctx.spawn(answer.into_actor(self).map(move |answer, act, ctx| {
                if let Ok(Ok(Err((at, e)))) = answer {
                    log::warn!(
                        "space {}: firing the reminders of task {} was refused ({e}); \
                         firing the other {} tasks one by one",
                        act.space.id(),
                        ids[at],
                        ids.len() - 1
                    );
                    for id in ids {
                        act.fire_write(vec![id], ctx);
                    }
                }
            }));
        }
    }

    /// Fires the next batch of due reminders (after the other messages waiting) if the
    /// last firing left more due and few of its writes wait for their sync.
    pub(super) fn fire_more(&mut self, ctx: &mut Context<Self>) {
        if self.refire && self.pending.len() < FIRE_WRITES {
            self.refire = false;
            ctx.notify(FireMore);
        }
    }
}

/// Start a change stream: the durable changes after `since` now, then each durable write.
/// The next batch of a firing (see [`SpaceActor::fire_more`]).
#[derive(Message)]
#[rtype(result = "()")]
struct FireMore;

impl Handler<FireMore> for SpaceActor {
    type Result = ();

    fn handle(&mut self, _: FireMore, ctx: &mut Context<Self>) {
        self.fire(ctx);
    }
}
