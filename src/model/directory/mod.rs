//! Who reaches what (docs §13, §14): the users, the spaces they belong to with their
//! roles, and their scoped tokens; with no web or actor types.
//!
//! A change to any of it is a value, a [`Change`], as a record write is an outcome: it is
//! checked against the directory ([`DirectoryState::check`]), journaled, then applied
//! ([`DirectoryState::apply`]); recovery applies the same values again. Changes are numbered in
//! the order they were made (`seq`), so the directory file (`users.bin`) says how many it
//! holds and recovery skips those the journal still has.
//!
//! Whether a caller may do something is decided in one place, [`super::access`]; this module
//! keeps the facts it decides on: a [`Caller`] carries its user's memberships as of its
//! request, taken without a lock held across any wait.
//!
//! The files: this one holds [`DirectoryState`] and its snapshot; `changes` what a change
//! is and how it is checked, applied and replayed; `callers` roles, scopes and who a
//! bearer token stands for; `users`, `spaces`, `tokens` and `webhooks` what the directory
//! keeps of each.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::user::{TokenHash, UsersSnapshot};
use crate::model::webhook::Webhook;

mod callers;
mod changes;
mod spaces;
#[cfg(test)]
mod tests;
mod tokens;
mod users;
mod webhooks;

pub use super::limits::{
    MAX_INVITATIONS_PER_INVITEE, MAX_INVITATIONS_SENT, MAX_MEMBERS, MAX_SPACES_PER_USER,
    MAX_TOKENS, MAX_TOKEN_SPACES,
};
use callers::Credential;
pub use callers::{Access, Caller, Role, Scope};
pub use changes::{Change, DirectoryError};
pub use spaces::{Invitation, Invited, Member, SpaceInfo};
pub use tokens::{LiveToken, RateLimit, Token, LAST_USED_PRECISION_MS};
pub use users::Account;

/// The directory file's contents (format 6 on; format 3 lacks `invitations`, formats 3 to 5
/// lack `webhooks`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectorySnapshot {
    /// How many changes it holds: the next change is number `applied`.
    pub applied: u64,
    /// Every user, by id.
    pub accounts: Vec<Account>,
    /// Every space, by id.
    pub spaces: Vec<SpaceInfo>,
    /// Every scoped token not revoked, by id.
    pub tokens: Vec<Token>,
    /// Deleted spaces, by id.
    pub deleted: Vec<Box<str>>,
    /// Pending invitations, by space, then user.
    pub invitations: Vec<Invited>,
    /// Webhooks, by id, with their secrets.
    pub webhooks: Vec<Webhook>,
    /// The budgets of the scoped tokens that have one of their own (docs §25), by token id.
    pub token_limits: Vec<(Box<str>, RateLimit)>,
}

impl DirectorySnapshot {
    /// The directory that a users file of format 1 or 2 describes: each user and its
    /// default space (in those formats the only one), stamped as created at `now`. Each
    /// user was one change, so the count carries over.
    pub fn from_legacy(users: UsersSnapshot, now: i64) -> DirectorySnapshot {
        let mut directory = DirectoryState::default();
        for user in users.users {
            directory.apply(&Change::UserCreated(Account::from_legacy(user, now)));
        }
        directory.snapshot()
    }
}

/// The whole directory in memory.
#[derive(Debug, Default)]
pub struct DirectoryState {
    accounts: HashMap<Box<str>, Arc<Account>>,
    /// Each user's role in each of its spaces; copied on change, shared by callers.
    memberships: HashMap<Box<str>, Arc<BTreeMap<Box<str>, Role>>>,
    spaces: HashMap<Box<str>, SpaceInfo>,
    tokens: HashMap<Box<str>, Arc<LiveToken>>,
    credentials: HashMap<TokenHash, Credential>,
    deleted: HashSet<Box<str>>,
    /// Pending invitations by space, then user.
    invitations: HashMap<Box<str>, BTreeMap<Box<str>, Invitation>>,
    /// The spaces each user is invited to; copied on change, shared by callers.
    invited: HashMap<Box<str>, Arc<BTreeSet<Box<str>>>>,
    /// How many pending invitations each user has sent, and has sent to each other user.
    sent: HashMap<Box<str>, usize>,
    sent_to: HashMap<(Box<str>, Box<str>), usize>,
    /// Webhooks by id.
    webhooks: BTreeMap<Box<str>, Webhook>,
    applied: u64,
    /// Memberships of all spaces, summed.
    members: usize,
}

impl DirectoryState {
    /// The directory a snapshot holds.
    pub fn from_snapshot(snapshot: DirectorySnapshot) -> DirectoryState {
        let mut directory = DirectoryState {
            applied: snapshot.applied,
            deleted: snapshot.deleted.into_iter().collect(),
            ..DirectoryState::default()
        };
        for account in snapshot.accounts {
            directory.add_account(account);
        }
        for space in snapshot.spaces {
            directory.add_space(space);
        }
        let limits: HashMap<Box<str>, RateLimit> = snapshot.token_limits.into_iter().collect();
        for token in snapshot.tokens {
            let limit = limits.get(&token.id).copied();
            directory.add_token(token, limit);
        }
        for Invited {
            space,
            user,
            invitation,
        } in snapshot.invitations
        {
            directory.add_invitation(&space, &user, invitation);
        }
        directory.webhooks = snapshot
            .webhooks
            .into_iter()
            .map(|w| (w.id.clone(), w))
            .collect();
        directory
    }

    /// Everything, in id order, for the directory file.
    pub fn snapshot(&self) -> DirectorySnapshot {
        fn sorted<T, K: Ord>(mut items: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
            items.sort_by_key(key);
            items
        }
        DirectorySnapshot {
            applied: self.applied,
            accounts: sorted(
                self.accounts.values().map(|a| Account::clone(a)).collect(),
                |a| a.id.clone(),
            ),
            spaces: sorted(self.spaces.values().cloned().collect(), |s| s.id.clone()),
            tokens: sorted(self.tokens.values().map(|t| t.current()).collect(), |t| {
                t.id.clone()
            }),
            deleted: sorted(self.deleted.iter().cloned().collect(), |d| d.clone()),
            invitations: sorted(
                self.invitations
                    .iter()
                    .flat_map(|(space, invited)| {
                        invited.iter().map(|(user, invitation)| Invited {
                            space: space.clone(),
                            user: user.clone(),
                            invitation: invitation.clone(),
                        })
                    })
                    .collect(),
                |i| (i.space.clone(), i.user.clone()),
            ),
            webhooks: self.webhooks.values().cloned().collect(),
            token_limits: sorted(
                self.tokens
                    .values()
                    .filter_map(|t| Some((t.token.id.clone(), t.rate_limit?)))
                    .collect(),
                |(id, _)| id.clone(),
            ),
        }
    }

    /// How many changes the directory holds.
    pub fn applied(&self) -> u64 {
        self.applied
    }

    /// How many users there are.
    pub fn user_count(&self) -> usize {
        self.accounts.len()
    }

    /// How many spaces, memberships and scoped tokens there are.
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.spaces.len(), self.members, self.tokens.len())
    }
}
