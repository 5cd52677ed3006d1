//! Scoped tokens (docs §14): as stored, and as held live with their last use.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::user::TokenHash;

use super::callers::{Access, Credential};
use super::DirectoryState;

/// `lastUsedAt` is moved on only once it is this much older than a use.
pub const LAST_USED_PRECISION_MS: i64 = 60_000;

/// A budget of requests (docs §25): a bucket of `burst` requests refilled at `per_second`
/// requests a second; both at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimit {
    pub per_second: u32,
    pub burst: u32,
}

impl RateLimit {
    /// The server's budget of `--token-rate` and `--token-burst`: none when the rate is 0;
    /// a burst of 0 is the rate. A burst without a rate is an error.
    pub fn of_flags(rate: u32, burst: u32) -> Result<Option<RateLimit>, String> {
        match (rate, burst) {
            (0, 0) => Ok(None),
            (0, _) => Err("--token-burst needs --token-rate".into()),
            (rate, 0) => Ok(Some(RateLimit {
                per_second: rate,
                burst: rate,
            })),
            (rate, burst) => Ok(Some(RateLimit {
                per_second: rate,
                burst,
            })),
        }
    }
}

/// A scoped token (its secret is kept only as a hash).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    /// The token id (a UUID).
    pub id: Box<str>,
    /// The user it acts for.
    pub user: Box<str>,
    /// Its name.
    pub name: Box<str>,
    /// What it may do at most.
    pub access: Access,
    /// The spaces it reaches, or `None` for every space of its user, now and later.
    pub spaces: Option<Vec<Box<str>>>,
    /// When it stops working, milliseconds since the epoch.
    pub expires_at: Option<i64>,
    /// Creation time.
    pub created_at: i64,
    /// The last time it was accepted (within [`LAST_USED_PRECISION_MS`]).
    pub last_used_at: Option<i64>,
    /// Hash of the secret.
    pub hash: TokenHash,
}

impl Token {
    /// Whether the token no longer works at `now`.
    pub fn expired(&self, now: i64) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }

    /// Whether the token reaches space `id` (its user's membership aside).
    pub fn reaches(&self, id: &str) -> bool {
        self.spaces
            .as_ref()
            .is_none_or(|spaces| spaces.iter().any(|s| **s == *id))
    }
}

/// A scoped token as the directory holds it: `lastUsedAt` moves without a write lock.
#[derive(Debug)]
pub struct LiveToken {
    /// The token; its `last_used_at` is the one at load.
    pub token: Token,
    /// Its own budget of requests (docs §25), if it was given one.
    pub rate_limit: Option<RateLimit>,
    /// The last use, milliseconds since the epoch; `i64::MIN` for never.
    last_used: AtomicI64,
}

impl LiveToken {
    pub(super) fn new(token: Token, rate_limit: Option<RateLimit>) -> LiveToken {
        let last_used = AtomicI64::new(token.last_used_at.unwrap_or(i64::MIN));
        LiveToken {
            token,
            rate_limit,
            last_used,
        }
    }

    /// The last time the token was accepted.
    pub fn last_used_at(&self) -> Option<i64> {
        Some(self.last_used.load(Ordering::Relaxed)).filter(|at| *at != i64::MIN)
    }

    /// Notes a use at `now`; whether `lastUsedAt` moved.
    pub(super) fn used(&self, now: i64) -> bool {
        let last = self.last_used.load(Ordering::Relaxed);
        if last != i64::MIN && now - last < LAST_USED_PRECISION_MS {
            return false;
        }
        self.last_used.fetch_max(now, Ordering::Relaxed);
        true
    }

    /// The token with its current `lastUsedAt`.
    pub fn current(&self) -> Token {
        Token {
            last_used_at: self.last_used_at(),
            ..self.token.clone()
        }
    }
}

impl DirectoryState {
    /// User `user`'s scoped token `id`.
    pub fn token(&self, user: &str, id: &str) -> Option<&Arc<LiveToken>> {
        self.tokens.get(id).filter(|t| *t.token.user == *user)
    }

    /// User `user`'s scoped tokens, ordered by creation time, then id.
    pub fn tokens_of(&self, user: &str) -> Vec<&Arc<LiveToken>> {
        let mut tokens: Vec<_> = self
            .tokens
            .values()
            .filter(|t| *t.token.user == *user)
            .collect();
        tokens.sort_by(|a, b| {
            (a.token.created_at, &a.token.id).cmp(&(b.token.created_at, &b.token.id))
        });
        tokens
    }

    pub(super) fn add_token(&mut self, token: Token, rate_limit: Option<RateLimit>) {
        let live = Arc::new(LiveToken::new(token, rate_limit));
        self.credentials
            .insert(live.token.hash, Credential::Scoped(Arc::clone(&live)));
        self.tokens.insert(live.token.id.clone(), live);
    }
}
