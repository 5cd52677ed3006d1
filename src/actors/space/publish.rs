//! Publishing the space to readers: the durable state in a [`Shown`], and each stored
//! write as a [`Committed`] to the change stream's subscribers.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;

use actix_web::web::Bytes;
use tokio::sync::mpsc;

use crate::model::{Space, Touched};

use super::SpaceActor;

/// Where a change stream gets the changes of its space: every durable change, each
/// version's records together.
pub(crate) type Changes = mpsc::Sender<Arc<Committed>>;

/// Durable changes as every change stream of the space gets them: the records, and their
/// events, rendered once by the first stream that sends them and shared by all.
pub(crate) struct Committed {
    /// The records, in feed order.
    pub touched: Vec<Touched>,
    /// Their server-sent events.
    pub events: OnceLock<Bytes>,
}

impl Committed {
    pub(super) fn new(touched: Vec<Touched>) -> Arc<Committed> {
        Arc::new(Committed {
            touched,
            events: OnceLock::new(),
        })
    }
}

/// What the readers of a space see without a message to its actor: the state the actor
/// last published, holding durable writes only (docs §8), and the highest version an
/// answer of the space may have shown. Shared by the actor and the registry.
///
/// A reader may use the published state while it holds every version an answer may have
/// shown: then whatever it reads is at least as new as what any client was told, and writes
/// applied but not yet durable (no client was told of them) do not hold it up. So a space
/// that writes all the time (a burst of reminder firings, a writer that never pauses) still
/// serves its reads on the readers' threads.
///
/// A publication is not free: the next write copies the tree nodes on its paths that the
/// published copy still shares. So the actor publishes only when a reader came since it
/// last did (`wanted`); a space that is only written never pays, and the first read after
/// a quiet spell goes through the actor, which publishes then.
pub(crate) struct Shown {
    published: ArcSwap<Space>,
    answered: AtomicU64,
    wanted: AtomicBool,
}

impl Shown {
    /// `space` published, every write of which is durable.
    pub(crate) fn new(space: Arc<Space>) -> Shown {
        Shown {
            answered: AtomicU64::new(space.version()),
            published: ArcSwap::new(space),
            wanted: AtomicBool::new(false),
        }
    }

    /// The published space, unless an answer may have shown a version beyond it: a read
    /// that arrives then goes to the actor, which publishes again (§8).
    pub(crate) fn current(&self) -> Option<Arc<Space>> {
        if !self.wanted.load(Ordering::Relaxed) {
            self.wanted.store(true, Ordering::Relaxed);
        }
        let answered = self.answered.load(Ordering::Acquire);
        let space = self.published.load_full();
        (answered <= space.version()).then_some(space)
    }

    /// The published space if it holds version `version`, whatever answers have shown
    /// since (see [`super::messages::ReadDurable`]).
    pub(crate) fn at_least(&self, version: u64) -> Option<Arc<Space>> {
        if !self.wanted.load(Ordering::Relaxed) {
            self.wanted.store(true, Ordering::Relaxed);
        }
        let space = self.published.load_full();
        (space.version() >= version).then_some(space)
    }

    /// The published space: every write of it is durable.
    pub(super) fn durable(&self) -> Arc<Space> {
        self.published.load_full()
    }

    /// Whether a reader came since the last call, or `always`; clears the mark.
    fn wanted(&self, always: bool) -> bool {
        self.wanted.swap(false, Ordering::Relaxed) || always
    }

    /// The version of the published space.
    fn version(&self) -> u64 {
        self.published.load().version()
    }

    /// Publishes `space`, every write of which is durable.
    fn store(&self, space: Space) {
        self.published.store(Arc::new(space));
    }

    /// From now on, answers may show versions up to `version`. A space reloaded after a
    /// lost write (`snapshot` durability) moves it back.
    fn answers_up_to(&self, version: u64) {
        self.answered.store(version, Ordering::Release);
    }
}

impl SpaceActor {
    /// Publishes the space's durable state for readers (see [`Shown`]) when a reader asked
    /// since the last publication, or `always`, or while a durable copy is kept, and lets
    /// answers show it.
    ///
    /// With no write waiting for its sync that is the space itself (an O(1) clone). Else
    /// it is a copy kept beside the space while writes keep coming: made once by taking
    /// the waiting writes back in a clone, then moved on by replaying each write as it
    /// becomes durable ([`SpaceActor::release`]), and dropped once none waits. So a space
    /// written without pause (a burst of reminder firings) pays one replay a write while
    /// readers look, not a rebuild per publication.
    pub(super) fn publish(&mut self, always: bool) {
        if self.applying {
            return;
        }
        let visible = self.visible().min(self.space.version());
        // While a durable copy is kept (readers looked during this run of writes), every
        // durable write is published at once, so that readers never find the copy behind
        // what answers may show and go to the actor.
        let wanted = self.shown.wanted(always) || self.durable.is_some();
        if wanted && self.shown.version() != visible {
            let waiting = self
                .pending
                .iter()
                .rev()
                .take_while(|p| p.version > visible);
            if waiting.clone().next().is_none() {
                self.shown.store(self.space.clone());
            } else {
                let durable = self.durable.get_or_insert_with(|| {
                    let mut durable = self.space.clone();
                    for pending in waiting {
                        durable.undo(pending.undo.clone());
                    }
                    durable
                });
                self.shown.store(durable.clone());
            }
        }
        self.shown.answers_up_to(visible);
    }
}
