//! Who reaches what (CONTRACT §13, §14): the users, the spaces they belong to with their
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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::user::{TokenHash, User, UsersSnapshot};
use super::webhook::{Position, Webhook, MAX_WEBHOOKS_PER_SPACE};

pub use super::limits::{
    MAX_INVITATIONS_PER_INVITEE, MAX_INVITATIONS_SENT, MAX_MEMBERS, MAX_SPACES_PER_USER,
    MAX_TOKENS, MAX_TOKEN_SPACES,
};
/// `lastUsedAt` is moved on only once it is this much older than a use.
pub const LAST_USED_PRECISION_MS: i64 = 60_000;

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
            primary: super::user::hash_token(token),
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

/// A user's place in a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// What it may do there.
    pub role: Role,
    /// When it was added, milliseconds since the epoch.
    pub added_at: i64,
}

/// An invitation to a space that its user has not answered yet (CONTRACT §21): the user
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

/// One change to the directory, as journaled and replayed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Change {
    /// A user was created, with its default space (named after it, owned by it).
    UserCreated(Account),
    /// A space was created with its one owner.
    SpaceCreated(SpaceInfo),
    /// A space was renamed.
    SpaceRenamed {
        /// The space.
        space: Box<str>,
        /// Its new name.
        name: Box<str>,
    },
    /// A space was deleted with its records; its id is never used again.
    SpaceDeleted {
        /// The space.
        space: Box<str>,
    },
    /// A user was added to a space as an active member (at `member.added_at`), or its
    /// role changed (its time of adding stays). Written by formats up to 3, which had no
    /// invitations; format 4 writes [`Change::RoleSet`].
    MemberSet {
        /// The space.
        space: Box<str>,
        /// The user.
        user: Box<str>,
        /// Its role and when it was first added.
        member: Member,
    },
    /// A member was removed from a space (or left it); or, for a user who is invited, the
    /// invitation was withdrawn (or declined).
    MemberRemoved {
        /// The space.
        space: Box<str>,
        /// The user.
        user: Box<str>,
    },
    /// A scoped token was made.
    TokenCreated(Token),
    /// A scoped token was revoked.
    TokenRevoked {
        /// The token id.
        token: Box<str>,
    },
    /// A user's primary token was replaced.
    PrimaryReset {
        /// The user.
        user: Box<str>,
        /// Hash of the new token.
        hash: TokenHash,
    },
    /// An owner set a user's role in a space: an active member's role changes, a pending
    /// invitation's role changes, and anyone else is invited (by `by`, at `at`).
    RoleSet {
        /// The space.
        space: Box<str>,
        /// The user.
        user: Box<str>,
        /// The role.
        role: Role,
        /// The owner who set it.
        by: Box<str>,
        /// When.
        at: i64,
    },
    /// An invited user accepted at `at`: from then on it is an active member with the
    /// invitation's role, added at `at`.
    Accepted {
        /// The space.
        space: Box<str>,
        /// The user.
        user: Box<str>,
        /// When.
        at: i64,
    },
    /// A webhook was created (CONTRACT §19).
    WebhookCreated(Box<Webhook>),
    /// A webhook was changed (its settings or its secrets): it is now this one, except that
    /// its position never moves back (the sender may have moved it meanwhile).
    WebhookSet(Box<Webhook>),
    /// A webhook was deleted.
    WebhookDeleted {
        /// The webhook id.
        webhook: Box<str>,
    },
    /// Webhooks' deliveries went this far (webhooks deleted meanwhile are skipped; a
    /// position never moves back).
    WebhookPositions(Vec<(Box<str>, Position)>),
    /// A webhook's receiver answered `410 Gone`: the webhook is turned off, with
    /// `disabledReason` `gone`.
    WebhookGone {
        /// The webhook id.
        webhook: Box<str>,
    },
}

/// Why a directory change was refused; it changed nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectoryError {
    /// What the change names does not exist (for the caller).
    #[error("{0} not found")]
    NotFound(String),
    /// A default space cannot be shared, left or deleted.
    #[error("a default space cannot be shared, left or deleted")]
    DefaultSpace,
    /// A space must keep an owner.
    #[error("a space must keep an owner")]
    LastOwner,
    /// A limit of §13 or §14.
    #[error("{0}")]
    LimitReached(String),
}

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

/// A scoped token as the directory holds it: `lastUsedAt` moves without a write lock.
#[derive(Debug)]
pub struct LiveToken {
    /// The token; its `last_used_at` is the one at load.
    pub token: Token,
    /// The last use, milliseconds since the epoch; `i64::MIN` for never.
    last_used: AtomicI64,
}

impl LiveToken {
    fn new(token: Token) -> LiveToken {
        let last_used = AtomicI64::new(token.last_used_at.unwrap_or(i64::MIN));
        LiveToken { token, last_used }
    }

    /// The last time the token was accepted.
    pub fn last_used_at(&self) -> Option<i64> {
        Some(self.last_used.load(Ordering::Relaxed)).filter(|at| *at != i64::MIN)
    }

    /// Notes a use at `now`; whether `lastUsedAt` moved.
    fn used(&self, now: i64) -> bool {
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
enum Credential {
    Primary(Box<str>),
    Scoped(Arc<LiveToken>),
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
        for token in snapshot.tokens {
            directory.add_token(token);
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
        }
    }

    /// Webhook `id`.
    pub fn webhook(&self, id: &str) -> Option<&Webhook> {
        self.webhooks.get(id)
    }

    /// Every webhook, by id.
    pub fn webhooks(&self) -> impl Iterator<Item = &Webhook> {
        self.webhooks.values()
    }

    /// Space `space`'s webhooks, by id.
    pub fn webhooks_of<'a>(&'a self, space: &'a str) -> impl Iterator<Item = &'a Webhook> + 'a {
        self.webhooks.values().filter(move |w| *w.space == *space)
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

    /// The user with id `id`.
    pub fn account(&self, id: &str) -> Option<&Arc<Account>> {
        self.accounts.get(id)
    }

    /// Every user, in no order.
    pub fn accounts(&self) -> impl Iterator<Item = &Arc<Account>> {
        self.accounts.values()
    }

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

    /// Whether `change` may be applied now: what it names exists, and no rule of §13–§14
    /// is broken. `now` tells live tokens from expired ones.
    pub fn check(&self, change: &Change, now: i64) -> Result<(), DirectoryError> {
        let space = |id: &str| {
            self.spaces
                .get(id)
                .ok_or_else(|| DirectoryError::NotFound(format!("space '{id}'")))
        };
        let user = |id: &str| {
            self.accounts
                .get(id)
                .ok_or_else(|| DirectoryError::NotFound(format!("user '{id}'")))
        };
        let spaces_of = |id: &str| self.memberships.get(id).map_or(0, |m| m.len());
        let full = |id: &str| {
            if spaces_of(id) >= MAX_SPACES_PER_USER {
                Err(DirectoryError::LimitReached(format!(
                    "a user belongs to at most {MAX_SPACES_PER_USER} spaces"
                )))
            } else {
                Ok(())
            }
        };
        match change {
            Change::UserCreated(_) => Ok(()),
            Change::SpaceCreated(info) => {
                let owner = info.members.keys().next().map_or("", |u| &**u);
                user(owner)?;
                full(owner)
            }
            Change::SpaceRenamed { space: id, .. } => space(id).map(drop),
            Change::SpaceDeleted { space: id } => match space(id)?.default_of {
                Some(_) => Err(DirectoryError::DefaultSpace),
                None => Ok(()),
            },
            Change::MemberSet {
                space: id,
                user: member,
                member: Member { role, .. },
            } => {
                let info = space(id)?;
                user(member)?;
                match info.members.get(member) {
                    None if info.default_of.is_some() => Err(DirectoryError::DefaultSpace),
                    None if info.members.len() >= MAX_MEMBERS => Err(DirectoryError::LimitReached(
                        format!("a space has at most {MAX_MEMBERS} members"),
                    )),
                    None => full(member),
                    Some(m) if m.role == Role::Owner && *role != Role::Owner => {
                        last_owner(info, member)
                    }
                    Some(_) => Ok(()),
                }
            }
            Change::MemberRemoved {
                space: id,
                user: member,
            } => {
                let info = space(id)?;
                let Some(m) = info.members.get(member) else {
                    return match self.invitation(id, member) {
                        Some(_) => Ok(()),
                        None => Err(DirectoryError::NotFound(format!("member '{member}'"))),
                    };
                };
                if info.default_of.is_some() {
                    Err(DirectoryError::DefaultSpace)
                } else if m.role == Role::Owner {
                    last_owner(info, member)
                } else {
                    Ok(())
                }
            }
            Change::TokenCreated(token) => {
                user(&token.user)?;
                let live = self
                    .tokens
                    .values()
                    .filter(|t| t.token.user == token.user && !t.token.expired(now))
                    .count();
                if live >= MAX_TOKENS {
                    return Err(DirectoryError::LimitReached(format!(
                        "a user has at most {MAX_TOKENS} live scoped tokens"
                    )));
                }
                let theirs = self.memberships.get(&token.user);
                match token
                    .spaces
                    .iter()
                    .flatten()
                    .find(|s| !theirs.is_some_and(|m| m.contains_key(&**s)))
                {
                    Some(s) => Err(DirectoryError::NotFound(format!("space '{s}'"))),
                    None => Ok(()),
                }
            }
            Change::TokenRevoked { token } => self
                .tokens
                .get(token)
                .map(drop)
                .ok_or_else(|| DirectoryError::NotFound(format!("token '{token}'"))),
            Change::PrimaryReset { user: id, .. } => user(id).map(drop),
            Change::RoleSet {
                space: id,
                user: member,
                role,
                by,
                ..
            } => {
                let info = space(id)?;
                user(member)?;
                match info.members.get(member) {
                    Some(m) if m.role == Role::Owner && *role != Role::Owner => {
                        last_owner(info, member)
                    }
                    Some(_) => Ok(()),
                    None if self.invitation(id, member).is_some() => Ok(()),
                    None if info.default_of.is_some() => Err(DirectoryError::DefaultSpace),
                    None => self.may_invite(info, member, by),
                }
            }
            Change::Accepted {
                space: id,
                user: member,
                ..
            } => {
                space(id)?;
                if self.invitation(id, member).is_none() {
                    return Err(DirectoryError::NotFound(format!(
                        "invitation to space '{id}'"
                    )));
                }
                full(member)
            }
            Change::WebhookCreated(webhook) => {
                space(&webhook.space)?;
                if self.webhooks_of(&webhook.space).count() >= MAX_WEBHOOKS_PER_SPACE {
                    return Err(DirectoryError::LimitReached(format!(
                        "a space has at most {MAX_WEBHOOKS_PER_SPACE} webhooks"
                    )));
                }
                Ok(())
            }
            Change::WebhookSet(webhook) => self.has_webhook(&webhook.id),
            Change::WebhookDeleted { webhook } | Change::WebhookGone { webhook } => {
                self.has_webhook(webhook)
            }
            Change::WebhookPositions(_) => Ok(()),
        }
    }

    /// Whether webhook `id` exists.
    fn has_webhook(&self, id: &str) -> Result<(), DirectoryError> {
        match self.webhooks.contains_key(id) {
            true => Ok(()),
            false => Err(DirectoryError::NotFound(format!("webhook '{id}'"))),
        }
    }

    /// Whether `by` may invite `user` to `info`: the space's members and invitations, the
    /// invitations `by` has pending, and those it has pending to `user` are below their
    /// limits.
    fn may_invite(&self, info: &SpaceInfo, user: &str, by: &str) -> Result<(), DirectoryError> {
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

    /// Applies a change that [`DirectoryState::check`] allowed (or that the journal holds), and
    /// counts it.
    pub fn apply(&mut self, change: &Change) {
        self.applied += 1;
        match change {
            Change::UserCreated(account) => {
                let space = SpaceInfo {
                    id: account.default_space.clone(),
                    name: account.name.clone(),
                    created_at: account.created_at,
                    default_of: Some(account.id.clone()),
                    members: BTreeMap::from([(
                        account.id.clone(),
                        Member {
                            role: Role::Owner,
                            added_at: account.created_at,
                        },
                    )]),
                };
                self.add_account(account.clone());
                self.add_space(space);
            }
            Change::SpaceCreated(info) => self.add_space(info.clone()),
            Change::SpaceRenamed { space, name } => {
                if let Some(info) = self.spaces.get_mut(space) {
                    info.name = name.clone();
                }
            }
            Change::SpaceDeleted { space } => {
                if let Some(info) = self.spaces.remove(space) {
                    for user in info.members.keys() {
                        self.set_membership(user, space, None);
                    }
                }
                let invited = self.invitations.get(space).cloned().unwrap_or_default();
                for user in invited.keys() {
                    self.remove_invitation(space, user);
                }
                self.deleted.insert(space.clone());
                self.webhooks.retain(|_, w| w.space != *space);
            }
            Change::MemberSet {
                space,
                user,
                member,
            } => {
                if let Some(info) = self.spaces.get_mut(space) {
                    // A role change keeps the time the member was first added.
                    info.members
                        .entry(user.clone())
                        .and_modify(|m| m.role = member.role)
                        .or_insert(*member);
                    self.set_membership(user, space, Some(member.role));
                }
            }
            Change::MemberRemoved { space, user } => {
                if let Some(info) = self.spaces.get_mut(space) {
                    if info.members.remove(user).is_some() {
                        self.set_membership(user, space, None);
                    } else {
                        self.remove_invitation(space, user);
                    }
                }
            }
            Change::TokenCreated(token) => self.add_token(token.clone()),
            Change::TokenRevoked { token } => {
                if let Some(live) = self.tokens.remove(token) {
                    self.credentials.remove(&live.token.hash);
                }
            }
            Change::PrimaryReset { user, hash } => {
                if let Some(account) = self.accounts.get_mut(user) {
                    self.credentials.remove(&account.primary);
                    Arc::make_mut(account).primary = *hash;
                    self.credentials
                        .insert(*hash, Credential::Primary(user.clone()));
                }
            }
            Change::RoleSet {
                space,
                user,
                role,
                by,
                at,
            } => {
                let Some(info) = self.spaces.get_mut(space) else {
                    return;
                };
                if let Some(member) = info.members.get_mut(user) {
                    member.role = *role;
                    self.set_membership(user, space, Some(*role));
                } else if let Some(invitation) = self
                    .invitations
                    .get_mut(space)
                    .and_then(|invited| invited.get_mut(user))
                {
                    invitation.role = *role;
                } else {
                    let invitation = Invitation {
                        role: *role,
                        by: by.clone(),
                        at: *at,
                    };
                    self.add_invitation(space, user, invitation);
                }
            }
            Change::Accepted { space, user, at } => {
                let Some(invitation) = self.remove_invitation(space, user) else {
                    return;
                };
                if let Some(info) = self.spaces.get_mut(space) {
                    let member = Member {
                        role: invitation.role,
                        added_at: *at,
                    };
                    info.members.insert(user.clone(), member);
                    self.set_membership(user, space, Some(invitation.role));
                }
            }
            Change::WebhookCreated(webhook) => {
                self.webhooks
                    .insert(webhook.id.clone(), Webhook::clone(webhook));
            }
            Change::WebhookSet(webhook) => {
                if let Some(old) = self.webhooks.get_mut(&webhook.id) {
                    let position = old.position.clone();
                    *old = Webhook::clone(webhook);
                    if position.at_or_past(&old.position) {
                        old.position = position;
                    }
                }
            }
            Change::WebhookGone { webhook } => {
                if let Some(webhook) = self.webhooks.get_mut(webhook) {
                    webhook.active = false;
                    webhook.disabled_reason = Some("gone".into());
                }
            }
            Change::WebhookDeleted { webhook } => {
                self.webhooks.remove(webhook);
            }
            Change::WebhookPositions(positions) => {
                for (id, position) in positions {
                    if let Some(webhook) = self.webhooks.get_mut(id) {
                        if !webhook.position.at_or_past(position) {
                            webhook.position = position.clone();
                        }
                    }
                }
            }
        }
    }

    /// Applies change number `seq` from the journal: skipped when the directory already
    /// holds it, refused when changes before it are missing.
    pub fn replay(&mut self, seq: u64, change: &Change) -> Result<(), String> {
        if seq > self.applied {
            return Err(format!(
                "directory change number {seq} follows only {} changes",
                self.applied
            ));
        }
        if seq == self.applied {
            self.apply(change);
        }
        Ok(())
    }

    fn add_account(&mut self, account: Account) {
        self.credentials
            .insert(account.primary, Credential::Primary(account.id.clone()));
        self.accounts.insert(account.id.clone(), Arc::new(account));
    }

    fn add_space(&mut self, info: SpaceInfo) {
        for (user, member) in &info.members {
            self.set_membership(user, &info.id, Some(member.role));
        }
        self.spaces.insert(info.id.clone(), info);
    }

    fn add_token(&mut self, token: Token) {
        let live = Arc::new(LiveToken::new(token));
        self.credentials
            .insert(live.token.hash, Credential::Scoped(Arc::clone(&live)));
        self.tokens.insert(live.token.id.clone(), live);
    }

    fn add_invitation(&mut self, space: &str, user: &str, invitation: Invitation) {
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
    fn remove_invitation(&mut self, space: &str, user: &str) -> Option<Invitation> {
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

    fn set_membership(&mut self, user: &str, space: &str, role: Option<Role>) {
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
fn last_owner(info: &SpaceInfo, leaving: &str) -> Result<(), DirectoryError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::user::hash_token;

    fn account(id: &str) -> Account {
        Account {
            id: id.into(),
            name: id.into(),
            primary: hash_token(id),
            default_space: format!("{id}-home").into(),
            created_at: 1,
        }
    }

    fn directory(users: &[&str]) -> DirectoryState {
        let mut d = DirectoryState::default();
        for u in users {
            d.apply(&Change::UserCreated(account(u)));
        }
        d
    }

    fn shared(owner: &str) -> Change {
        Change::SpaceCreated(SpaceInfo {
            id: "s".into(),
            name: "S".into(),
            created_at: 2,
            default_of: None,
            members: BTreeMap::from([(
                owner.into(),
                Member {
                    role: Role::Owner,
                    added_at: 2,
                },
            )]),
        })
    }

    fn webhook(id: &str, space: &str) -> Webhook {
        Webhook {
            id: id.into(),
            space: space.into(),
            url: "https://example.com/".into(),
            events: vec!["*".into()],
            description: None,
            active: true,
            disabled_reason: None,
            created_at: 3,
            start: 0,
            position: Position {
                version: 0,
                key: None,
            },
            secrets: Vec::new(),
        }
    }

    #[test]
    fn webhooks_are_limited_per_space_keep_their_positions_and_go_with_their_space() {
        let mut d = directory(&["u"]);
        d.apply(&shared("u"));
        for n in 0..MAX_WEBHOOKS_PER_SPACE {
            let created = Change::WebhookCreated(Box::new(webhook(&format!("w{n}"), "s")));
            assert_eq!(d.check(&created, 0), Ok(()));
            d.apply(&created);
        }
        let over = Change::WebhookCreated(Box::new(webhook("over", "s")));
        assert!(matches!(
            d.check(&over, 0),
            Err(DirectoryError::LimitReached(_))
        ));
        let elsewhere = Change::WebhookCreated(Box::new(webhook("x", "nowhere")));
        assert!(matches!(
            d.check(&elsewhere, 0),
            Err(DirectoryError::NotFound(_))
        ));
        assert!(matches!(
            d.check(&Change::WebhookSet(Box::new(webhook("x", "s"))), 0),
            Err(DirectoryError::NotFound(_))
        ));

        let at = |version| Position { version, key: None };
        d.apply(&Change::WebhookPositions(vec![
            ("w0".into(), at(7)),
            ("gone".into(), at(9)),
        ]));
        assert_eq!(d.webhook("w0").unwrap().position, at(7));
        d.apply(&Change::WebhookPositions(vec![("w0".into(), at(5))]));
        assert_eq!(d.webhook("w0").unwrap().position, at(7), "never back");
        // A change made from a copy taken before the position moved keeps the position.
        let mut patched = webhook("w0", "s");
        patched.description = Some("d".into());
        d.apply(&Change::WebhookSet(Box::new(patched)));
        let w0 = d.webhook("w0").unwrap();
        assert_eq!(
            (w0.description.as_deref(), &w0.position),
            (Some("d"), &at(7))
        );
        d.apply(&Change::WebhookGone {
            webhook: "w0".into(),
        });
        let w0 = d.webhook("w0").unwrap();
        assert_eq!(
            (w0.active, w0.disabled_reason.as_deref()),
            (false, Some("gone"))
        );

        let snapshot = d.snapshot();
        assert_eq!(snapshot.webhooks.len(), MAX_WEBHOOKS_PER_SPACE);
        assert_eq!(
            DirectoryState::from_snapshot(snapshot.clone()).snapshot(),
            snapshot
        );
        d.apply(&Change::WebhookDeleted {
            webhook: "w1".into(),
        });
        assert!(d.webhook("w1").is_none());
        d.apply(&Change::SpaceDeleted { space: "s".into() });
        assert_eq!(d.webhooks().count(), 0);
    }

    fn set(user: &str, role: Role) -> Change {
        Change::MemberSet {
            space: "s".into(),
            user: user.into(),
            member: Member { role, added_at: 3 },
        }
    }

    fn remove(user: &str) -> Change {
        Change::MemberRemoved {
            space: "s".into(),
            user: user.into(),
        }
    }

    fn role_of(d: &DirectoryState, user: &str, space: &str) -> Option<Role> {
        let (caller, _) = d.authenticate(&hash_token(user), || 0).unwrap();
        caller.spaces.get(space).copied()
    }

    #[test]
    fn a_new_user_owns_its_private_default_space() {
        let mut d = directory(&["a", "b"]);
        assert_eq!(role_of(&d, "a", "a-home"), Some(Role::Owner));
        assert_eq!(
            d.check(&set_in("a-home", "b"), 0),
            Err(DirectoryError::DefaultSpace)
        );
        let leave = Change::MemberRemoved {
            space: "a-home".into(),
            user: "a".into(),
        };
        assert_eq!(d.check(&leave, 0), Err(DirectoryError::DefaultSpace));
        let delete = Change::SpaceDeleted {
            space: "a-home".into(),
        };
        assert_eq!(d.check(&delete, 0), Err(DirectoryError::DefaultSpace));
        let demote = Change::MemberSet {
            space: "a-home".into(),
            user: "a".into(),
            member: Member {
                role: Role::Viewer,
                added_at: 1,
            },
        };
        assert_eq!(d.check(&demote, 0), Err(DirectoryError::LastOwner));
        d.apply(&shared("a"));
        assert_eq!(d.applied(), 3);
    }

    fn set_in(space: &str, user: &str) -> Change {
        Change::MemberSet {
            space: space.into(),
            user: user.into(),
            member: Member {
                role: Role::Editor,
                added_at: 3,
            },
        }
    }

    #[test]
    fn members_come_and_go_and_a_space_keeps_an_owner() {
        let mut d = directory(&["a", "b"]);
        d.apply(&shared("a"));
        assert_eq!(
            d.check(&set("nobody", Role::Viewer), 0),
            Err(DirectoryError::NotFound("user 'nobody'".into()))
        );
        d.apply(&set("b", Role::Viewer));
        assert_eq!(role_of(&d, "b", "s"), Some(Role::Viewer));
        assert_eq!(d.check(&remove("a"), 0), Err(DirectoryError::LastOwner));
        assert_eq!(
            d.check(&set("a", Role::Editor), 0),
            Err(DirectoryError::LastOwner)
        );
        d.apply(&set("b", Role::Owner));
        assert_eq!(d.check(&remove("a"), 0), Ok(()));
        d.apply(&remove("a"));
        assert_eq!(role_of(&d, "a", "s"), None);
        assert!(matches!(
            d.check(&remove("a"), 0),
            Err(DirectoryError::NotFound(_))
        ));
        d.apply(&Change::SpaceDeleted { space: "s".into() });
        assert_eq!(role_of(&d, "b", "s"), None);
        assert!(d.is_deleted("s"));
        assert!(d.space("s").is_none());
    }

    #[test]
    fn limits_are_checked_before_a_change() {
        let mut d = directory(&["a", "b"]);
        for i in 0..MAX_SPACES_PER_USER - 1 {
            let Change::SpaceCreated(mut info) = shared("a") else {
                unreachable!()
            };
            info.id = format!("s{i}").into();
            d.apply(&Change::SpaceCreated(info));
        }
        assert!(matches!(
            d.check(&shared("a"), 0),
            Err(DirectoryError::LimitReached(_))
        ));
        assert_eq!(d.check(&shared("b"), 0), Ok(()));
        let again = Change::MemberSet {
            space: "s0".into(),
            user: "a".into(),
            member: Member {
                role: Role::Owner,
                added_at: 3,
            },
        };
        assert_eq!(d.check(&again, 0), Ok(()), "already a member: no new place");
        d.apply(&shared("b"));
        assert!(matches!(
            d.check(&set("a", Role::Viewer), 0),
            Err(DirectoryError::LimitReached(_))
        ));
    }

    fn token(id: &str, expires_at: Option<i64>, spaces: Option<Vec<Box<str>>>) -> Token {
        Token {
            id: id.into(),
            user: "a".into(),
            name: "t".into(),
            access: Access::Read,
            spaces,
            expires_at,
            created_at: 5,
            last_used_at: None,
            hash: hash_token(id),
        }
    }

    #[test]
    fn scoped_tokens_expire_are_revoked_and_are_limited() {
        let mut d = directory(&["a"]);
        let t = token("t1", Some(100), None);
        d.apply(&Change::TokenCreated(t));
        let (caller, moved) = d.authenticate(&hash_token("t1"), || 50).unwrap();
        assert!(moved);
        assert!(matches!(caller.scope, Scope::Scoped(_)));
        assert!(
            !d.authenticate(&hash_token("t1"), || 60).unwrap().1,
            "within a minute"
        );
        assert!(
            d.authenticate(&hash_token("t1"), || 100).is_none(),
            "expired"
        );
        assert!(matches!(
            d.check(
                &Change::TokenCreated(token("t2", None, Some(vec!["b-home".into()]))),
                0
            ),
            Err(DirectoryError::NotFound(_))
        ));
        for i in 0..MAX_TOKENS - 1 {
            d.apply(&Change::TokenCreated(token(&format!("x{i}"), None, None)));
        }
        let next = Change::TokenCreated(token("y", None, None));
        assert!(matches!(
            d.check(&next, 0),
            Err(DirectoryError::LimitReached(_))
        ));
        assert_eq!(
            d.check(&next, 100),
            Ok(()),
            "the expired one does not count"
        );
        d.apply(&Change::TokenRevoked { token: "x0".into() });
        assert_eq!(d.check(&next, 0), Ok(()));
        assert!(d.authenticate(&hash_token("x0"), || 0).is_none());
    }

    #[test]
    fn a_reset_primary_token_replaces_the_old_one() {
        let mut d = directory(&["a"]);
        d.apply(&Change::PrimaryReset {
            user: "a".into(),
            hash: hash_token("new"),
        });
        assert!(d.authenticate(&hash_token("a"), || 0).is_none());
        assert_eq!(
            &*d.authenticate(&hash_token("new"), || 0)
                .unwrap()
                .0
                .account
                .id,
            "a"
        );
    }

    fn invite(user: &str, role: Role, by: &str) -> Change {
        Change::RoleSet {
            space: "s".into(),
            user: user.into(),
            role,
            by: by.into(),
            at: 4,
        }
    }

    fn accept(user: &str) -> Change {
        Change::Accepted {
            space: "s".into(),
            user: user.into(),
            at: 9,
        }
    }

    fn invited_to(d: &DirectoryState, user: &str) -> Vec<String> {
        let (caller, _) = d.authenticate(&hash_token(user), || 0).unwrap();
        caller.invited.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_invitation_is_no_membership_until_accepted() {
        let mut d = directory(&["a", "b"]);
        d.apply(&shared("a"));
        d.apply(&invite("b", Role::Viewer, "a"));
        assert_eq!(role_of(&d, "b", "s"), None);
        assert_eq!(invited_to(&d, "b"), ["s"]);
        assert_eq!(d.space("s").unwrap().members.len(), 1);
        d.apply(&invite("b", Role::Owner, "a"));
        let invitation = d.invitation("s", "b").unwrap();
        assert_eq!((invitation.role, invitation.at), (Role::Owner, 4));
        // An invited owner is no owner yet.
        assert_eq!(d.check(&remove("a"), 0), Err(DirectoryError::LastOwner));
        assert_eq!(d.check(&accept("a"), 0).map_err(|_| ()), Err(()));
        d.apply(&accept("b"));
        assert_eq!(role_of(&d, "b", "s"), Some(Role::Owner));
        assert_eq!(d.space("s").unwrap().members["b"].added_at, 9);
        assert!(invited_to(&d, "b").is_empty());
        assert!(d.invitation("s", "b").is_none());
        assert_eq!(d.check(&remove("a"), 0), Ok(()));
        // A role set on a member changes its role; removing an invitation drops it.
        d.apply(&invite("a", Role::Viewer, "b"));
        assert_eq!(role_of(&d, "a", "s"), Some(Role::Viewer));
        d.apply(&remove("a"));
        d.apply(&invite("a", Role::Editor, "b"));
        assert_eq!(d.check(&remove("a"), 0), Ok(()));
        d.apply(&remove("a"));
        assert!(d.invitation("s", "a").is_none());
        assert!(invited_to(&d, "a").is_empty());
        // Deleting the space drops its invitations.
        d.apply(&invite("a", Role::Editor, "b"));
        d.apply(&Change::SpaceDeleted { space: "s".into() });
        assert!(invited_to(&d, "a").is_empty());
        assert_eq!(d.snapshot().invitations, []);
    }

    #[test]
    fn invitations_are_limited_per_inviter_and_per_invitee() {
        let mut d = directory(&["a", "b"]);
        for i in 0..=MAX_INVITATIONS_PER_INVITEE {
            let Change::SpaceCreated(mut info) = shared("a") else {
                unreachable!()
            };
            info.id = format!("s{i}").into();
            d.apply(&Change::SpaceCreated(info));
        }
        let to = |i: usize| Change::RoleSet {
            space: format!("s{i}").into(),
            user: "b".into(),
            role: Role::Viewer,
            by: "a".into(),
            at: 4,
        };
        for i in 0..MAX_INVITATIONS_PER_INVITEE {
            assert_eq!(d.check(&to(i), 0), Ok(()));
            d.apply(&to(i));
        }
        let over = to(MAX_INVITATIONS_PER_INVITEE);
        assert!(matches!(
            d.check(&over, 0),
            Err(DirectoryError::LimitReached(_))
        ));
        assert_eq!(d.check(&to(0), 0), Ok(()), "a role change is no new one");
        d.sent.insert("a".into(), MAX_INVITATIONS_SENT);
        let c = Change::RoleSet {
            space: "s0".into(),
            user: "c".into(),
            role: Role::Viewer,
            by: "a".into(),
            at: 4,
        };
        d.apply(&Change::UserCreated(account("c")));
        assert!(matches!(
            d.check(&c, 0),
            Err(DirectoryError::LimitReached(_))
        ));
    }

    #[test]
    fn a_snapshot_and_a_replay_give_the_same_directory() {
        let mut d = directory(&["a", "b"]);
        d.apply(&Change::UserCreated(account("c")));
        let changes = [
            shared("a"),
            set("b", Role::Editor),
            Change::TokenCreated(token("t", None, None)),
            invite("c", Role::Viewer, "a"),
        ];
        let before = d.snapshot();
        for c in &changes {
            d.apply(c);
        }
        let mut replayed = DirectoryState::from_snapshot(before);
        for (seq, c) in changes.iter().enumerate() {
            replayed.replay(seq as u64 + 3, c).unwrap();
            replayed.replay(seq as u64, c).unwrap(); // already held: skipped
        }
        assert_eq!(replayed.snapshot(), d.snapshot());
        assert_eq!(d.snapshot().invitations.len(), 1);
        assert!(replayed.replay(99, &changes[0]).is_err());
        assert_eq!(
            DirectoryState::from_snapshot(d.snapshot()).snapshot(),
            d.snapshot()
        );
    }
}
