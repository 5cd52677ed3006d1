//! The spaces of the directory: their members, pending invitations and deleted ids, and
//! the bookkeeping of who belongs where and who invited whom.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::limits::{MAX_INVITATIONS_PER_INVITEE, MAX_INVITATIONS_SENT, MAX_MEMBERS};

use super::callers::Role;
use super::changes::DirectoryError;
use super::DirectoryState;

/// A user's place in a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// What it may do there.
    pub role: Role,
    /// When it was added, milliseconds since the epoch.
    pub added_at: i64,
}

/// An invitation to a space that its user has not answered yet (docs §21): the user
/// does not reach the space until it accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invitation {
    /// The role it will have.
    pub role: Role,
    /// Who invited it.
    pub by: Box<str>,
    /// When, milliseconds since the epoch.
    pub at: i64,
}

/// A pending invitation as the directory file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invited {
    /// The space.
    pub space: Box<str>,
    /// The invited user.
    pub user: Box<str>,
    /// The invitation.
    pub invitation: Invitation,
}

/// A space as the directory knows it (its records are the space actor's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpaceInfo {
    /// The space id.
    pub id: Box<str>,
    /// Its name.
    pub name: Box<str>,
    /// Creation time, milliseconds since the epoch.
    pub created_at: i64,
    /// The user whose default space it is, if it is one.
    pub default_of: Option<Box<str>>,
    /// Its active members by user id (invitations are kept apart).
    pub members: BTreeMap<Box<str>, Member>,
}

impl DirectoryState {
    /// The space with id `id`, unless deleted.
    pub fn space(&self, id: &str) -> Option<&SpaceInfo> {
        self.spaces.get(id)
    }

    /// Every space, in no order.
    pub fn spaces(&self) -> impl Iterator<Item = &SpaceInfo> {
        self.spaces.values()
    }

    /// The pending invitations to space `id`, by user.
    pub fn invitations(&self, id: &str) -> Option<&BTreeMap<Box<str>, Invitation>> {
        self.invitations.get(id)
    }

    /// The pending invitations of user `user`: each space and its invitation, in no order.
    pub fn invitations_of<'a>(
        &'a self,
        user: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a Invitation)> + 'a {
        self.invited.get(user).into_iter().flat_map(move |spaces| {
            spaces.iter().filter_map(move |space| {
                let invitation = self.invitations.get(space)?.get(user)?;
                Some((&**space, invitation))
            })
        })
    }

    /// The pending invitation of `user` to `space`.
    pub fn invitation(&self, space: &str, user: &str) -> Option<&Invitation> {
        self.invitations.get(space)?.get(user)
    }

    /// Whether space `id` was deleted.
    pub fn is_deleted(&self, id: &str) -> bool {
        self.deleted.contains(id)
    }

    /// Deleted spaces' ids.
    pub fn deleted(&self) -> impl Iterator<Item = &str> {
        self.deleted.iter().map(|d| &**d)
    }

    /// Whether `by` may invite `user` to `info`: the space's members and invitations, the
    /// invitations `by` has pending, and those it has pending to `user` are below their
    /// limits.
    pub(super) fn may_invite(
        &self,
        info: &SpaceInfo,
        user: &str,
        by: &str,
    ) -> Result<(), DirectoryError> {
        let pending = self.invitations.get(&info.id).map_or(0, BTreeMap::len);
        let sent = self.sent.get(by).copied().unwrap_or(0);
        let sent_to = self
            .sent_to
            .get(&(by.into(), user.into()))
            .copied()
            .unwrap_or(0);
        let refused = if info.members.len() + pending >= MAX_MEMBERS {
            format!("a space has at most {MAX_MEMBERS} members and invitations")
        } else if sent >= MAX_INVITATIONS_SENT {
            format!("a user has at most {MAX_INVITATIONS_SENT} pending invitations it sent")
        } else if sent_to >= MAX_INVITATIONS_PER_INVITEE {
            format!(
                "a user has at most {MAX_INVITATIONS_PER_INVITEE} pending invitations to one user"
            )
        } else {
            return Ok(());
        };
        Err(DirectoryError::LimitReached(refused))
    }

    pub(super) fn add_space(&mut self, info: SpaceInfo) {
        for (user, member) in &info.members {
            self.set_membership(user, &info.id, Some(member.role));
        }
        self.spaces.insert(info.id.clone(), info);
    }

    pub(super) fn add_invitation(&mut self, space: &str, user: &str, invitation: Invitation) {
        *self.sent.entry(invitation.by.clone()).or_default() += 1;
        *self
            .sent_to
            .entry((invitation.by.clone(), user.into()))
            .or_default() += 1;
        Arc::make_mut(self.invited.entry(user.into()).or_default()).insert(space.into());
        self.invitations
            .entry(space.into())
            .or_default()
            .insert(user.into(), invitation);
    }

    /// Drops the pending invitation of `user` to `space`; it, if there was one.
    pub(super) fn remove_invitation(&mut self, space: &str, user: &str) -> Option<Invitation> {
        let invited = self.invitations.get_mut(space)?;
        let invitation = invited.remove(user)?;
        if invited.is_empty() {
            self.invitations.remove(space);
        }
        if let Some(spaces) = self.invited.get_mut(user) {
            Arc::make_mut(spaces).remove(space);
        }
        let by = invitation.by.clone();
        decrement(&mut self.sent, by.clone());
        decrement(&mut self.sent_to, (by, user.into()));
        Some(invitation)
    }

    pub(super) fn set_membership(&mut self, user: &str, space: &str, role: Option<Role>) {
        let spaces = Arc::make_mut(self.memberships.entry(user.into()).or_default());
        let had = match role {
            Some(role) => spaces.insert(space.into(), role).is_some(),
            None => spaces.remove(space).is_some(),
        };
        match (had, role) {
            (false, Some(_)) => self.members += 1,
            (true, None) => self.members -= 1,
            _ => {}
        }
    }
}

/// Counts one less of `key`, forgetting it at zero.
fn decrement<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, usize>, key: K) {
    if let std::collections::hash_map::Entry::Occupied(mut count) = counts.entry(key) {
        *count.get_mut() -= 1;
        if *count.get() == 0 {
            count.remove();
        }
    }
}

/// Whether `leaving` may stop being an owner of `info`: only if another owner stays.
pub(super) fn last_owner(info: &SpaceInfo, leaving: &str) -> Result<(), DirectoryError> {
    let others = info
        .members
        .iter()
        .any(|(user, m)| m.role == Role::Owner && **user != *leaving);
    if others {
        Ok(())
    } else {
        Err(DirectoryError::LastOwner)
    }
}
