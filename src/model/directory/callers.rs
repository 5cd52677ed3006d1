//! Who is calling: roles and access levels, the token scope a request carries, the
//! [`Caller`] it is made by, and telling a bearer token's caller ([`DirectoryState::authenticate`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::user::TokenHash;

use super::tokens::LiveToken;
use super::users::Account;
use super::DirectoryState;

/// A member's role in a space; each may do what the ones before it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Reads records, the feed, the stream, the space and its members.
    Viewer,
    /// And writes records.
    Editor,
    /// And renames or deletes the space and manages its members.
    Owner,
}

impl Role {
    /// The role's JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Owner => "owner",
        }
    }

    /// The role with JSON name `s`.
    pub fn parse(s: &str) -> Option<Role> {
        [Role::Viewer, Role::Editor, Role::Owner]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// What a scoped token may do at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Access {
    /// Reads only.
    Read,
    /// Reads and record writes.
    Write,
}

impl Access {
    /// The access's JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }

    /// The access with JSON name `s`.
    pub fn parse(s: &str) -> Option<Access> {
        [Access::Read, Access::Write]
            .into_iter()
            .find(|a| a.as_str() == s)
    }
}

/// Which token authenticated a request.
#[derive(Debug, Clone)]
pub enum Scope {
    /// The user's primary token: everything its roles allow.
    Primary,
    /// A scoped token.
    Scoped(Arc<LiveToken>),
}

/// Who made a request, as of the request: the user, its memberships and its token.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The user.
    pub account: Arc<Account>,
    /// Its role in each space it belongs to (actively), by space id.
    pub spaces: Arc<BTreeMap<Box<str>, Role>>,
    /// The spaces it is invited to and has not answered.
    pub invited: Arc<BTreeSet<Box<str>>>,
    /// The token it used.
    pub scope: Scope,
}

impl Caller {
    /// The spaces the caller's token reaches, ordered by id.
    pub fn reached(&self) -> impl Iterator<Item = (&str, Role)> {
        self.spaces
            .iter()
            .filter(|(id, _)| self.scope.reaches(id))
            .map(|(id, role)| (&**id, *role))
    }
}

impl Scope {
    /// Whether the token reaches space `id` (its user's membership aside).
    pub fn reaches(&self, id: &str) -> bool {
        match self {
            Scope::Primary => true,
            Scope::Scoped(token) => token.token.reaches(id),
        }
    }
}

/// What a bearer token's hash stands for.
#[derive(Debug, Clone)]
pub(super) enum Credential {
    Primary(Box<str>),
    Scoped(Arc<LiveToken>),
}

impl DirectoryState {
    /// The caller a token's hash stands for at `now` (read only for a scoped token: a
    /// primary token, the common case, needs no clock); `None` for an unknown, revoked or
    /// expired token. A scoped token's `lastUsedAt` moves; the flag says whether it did.
    pub fn authenticate(
        &self,
        hash: &TokenHash,
        now: impl FnOnce() -> i64,
    ) -> Option<(Caller, bool)> {
        let (user, scope, used) = match self.credentials.get(hash)? {
            Credential::Primary(user) => (user, Scope::Primary, false),
            Credential::Scoped(token) => {
                let now = now();
                if token.token.expired(now) {
                    return None;
                }
                let used = token.used(now);
                (&token.token.user, Scope::Scoped(Arc::clone(token)), used)
            }
        };
        let caller = Caller {
            account: Arc::clone(self.accounts.get(user)?),
            spaces: self.memberships.get(user).cloned().unwrap_or_default(),
            invited: self.invited.get(user).cloned().unwrap_or_default(),
            scope,
        };
        Some((caller, used))
    }
}
