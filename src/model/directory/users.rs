//! The users of the directory: their accounts and their primary tokens.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::user::{TokenHash, User};

use super::callers::Credential;
use super::DirectoryState;

/// A user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// The user's id (a UUID).
    pub id: Box<str>,
    /// The name given at creation.
    pub name: Box<str>,
    /// Hash of the primary token.
    pub primary: TokenHash,
    /// The space used when a request names none; private to the user.
    pub default_space: Box<str>,
    /// Creation time, milliseconds since the epoch.
    pub created_at: i64,
}

impl Account {
    /// A new user named `name`, reached with `token`, with a new default space, created at
    /// `now`.
    pub fn new(name: &str, token: &str, now: i64) -> Account {
        Account {
            id: uuid::Uuid::new_v4().to_string().into(),
            name: name.into(),
            primary: crate::model::user::hash_token(token),
            default_space: uuid::Uuid::new_v4().to_string().into(),
            created_at: now,
        }
    }

    /// A user as formats 1 and 2 stored it, created at `now` as far as anyone can tell.
    pub fn from_legacy(user: User, now: i64) -> Account {
        Account {
            id: user.id.into(),
            name: user.name.into(),
            primary: user.token_hash,
            default_space: user.default_space.into(),
            created_at: now,
        }
    }
}

impl DirectoryState {
    /// The user with id `id`.
    pub fn account(&self, id: &str) -> Option<&Arc<Account>> {
        self.accounts.get(id)
    }

    /// Every user, in no order.
    pub fn accounts(&self) -> impl Iterator<Item = &Arc<Account>> {
        self.accounts.values()
    }

    pub(super) fn add_account(&mut self, account: Account) {
        self.credentials
            .insert(account.primary, Credential::Primary(account.id.clone()));
        self.accounts.insert(account.id.clone(), Arc::new(account));
    }
}
