//! The published state of a space at one version ([`SpaceView`]), for readers and the
//! snapshot actor.

use std::sync::Arc;

use crate::model::kind::Kind;
use crate::model::record::Records;

use super::commands::Undo;
use super::{Space, SpaceSnapshot};

/// A space's state at one version, sharing records and map nodes with the space: what the
/// snapshot actor encodes while the space goes on serving.
#[derive(Debug, Clone, PartialEq)]
pub struct SpaceView {
    /// The space id.
    pub id: Box<str>,
    /// The space version.
    pub version: u64,
    /// The highest version durably reserved (see [`SpaceSnapshot::reserved`]).
    pub reserved: u64,
    /// The records of each kind, in [`Kind::ALL`] order.
    pub collections: [Records; Kind::ALL.len()],
}

impl SpaceView {
    /// Takes back the write `undo` came from (the newest one not yet taken back).
    pub fn revert(&mut self, undo: &Undo) {
        for (kind, id, before) in undo.before.iter().rev() {
            let records = &mut self.collections[kind.index()];
            match before {
                Some(record) => records.insert(id.clone(), Arc::clone(record)),
                None => records.remove(id),
            };
        }
        self.version = undo.base;
    }
}

impl From<SpaceView> for SpaceSnapshot {
    /// The snapshot file's contents of `view`: its records of each kind.
    fn from(view: SpaceView) -> SpaceSnapshot {
        SpaceSnapshot {
            id: view.id,
            version: view.version,
            reserved: view.reserved,
            collections: Kind::ALL
                .into_iter()
                .zip(view.collections)
                .map(|(kind, records)| (kind, records.values().cloned().collect()))
                .collect(),
        }
    }
}

impl Space {
    /// The whole state at the current version, in O(1): see [`SpaceView`]. Its
    /// reservation is the version; the actor raises it to what it has reserved.
    pub fn view(&self) -> SpaceView {
        SpaceView {
            id: self.id.clone(),
            version: self.version,
            reserved: self.version,
            collections: self.collections.each_ref().map(|c| c.records.clone()),
        }
    }
}
