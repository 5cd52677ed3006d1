//! Changes to the directory: what a [`Change`] is, checking it against the directory,
//! applying it, and replaying it from the journal.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::limits::{MAX_MEMBERS, MAX_SPACES_PER_USER, MAX_TOKENS};
use crate::model::user::TokenHash;
use crate::model::webhook::{Position, Webhook, MAX_WEBHOOKS_PER_SPACE};

use super::callers::{Credential, Role};
use super::spaces::{last_owner, Invitation, Member, SpaceInfo};
use super::tokens::{RateLimit, Token};
use super::users::Account;
use super::DirectoryState;

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
    /// A webhook was created (docs §19).
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
    /// A scoped token was made with a budget of its own (docs §25): as
    /// [`Change::TokenCreated`], and its `rateLimit`.
    TokenCreatedLimited(Token, RateLimit),
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

impl DirectoryState {
    /// Whether `change` may be applied now: what it names exists, and no rule of §13–§14
    /// is broken. `now` tells live tokens from expired ones.
    pub fn check(&self, change: &Change, now: i64) -> Result<(), DirectoryError> {
        match change {
            Change::UserCreated(_) | Change::WebhookPositions(_) => Ok(()),
            Change::SpaceCreated(info) => {
                let owner = info.members.keys().next().map_or("", |u| &**u);
                self.user_named(owner)?;
                self.may_join(owner)
            }
            Change::SpaceRenamed { space: id, .. } => self.space_named(id).map(drop),
            Change::SpaceDeleted { space: id } => match self.space_named(id)?.default_of {
                Some(_) => Err(DirectoryError::DefaultSpace),
                None => Ok(()),
            },
            Change::MemberSet {
                space: id,
                user: member,
                member: Member { role, .. },
            } => self.check_member_set(id, member, *role),
            Change::MemberRemoved {
                space: id,
                user: member,
            } => self.check_member_removed(id, member),
            Change::TokenCreated(token) | Change::TokenCreatedLimited(token, _) => {
                self.check_token_created(token, now)
            }
            Change::TokenRevoked { token } => self
                .tokens
                .get(token)
                .map(drop)
                .ok_or_else(|| DirectoryError::NotFound(format!("token '{token}'"))),
            Change::PrimaryReset { user: id, .. } => self.user_named(id).map(drop),
            Change::RoleSet {
                space: id,
                user: member,
                role,
                by,
                ..
            } => self.check_role_set(id, member, *role, by),
            Change::Accepted {
                space: id,
                user: member,
                ..
            } => {
                self.space_named(id)?;
                if self.invitation(id, member).is_none() {
                    return Err(DirectoryError::NotFound(format!(
                        "invitation to space '{id}'"
                    )));
                }
                self.may_join(member)
            }
            Change::WebhookCreated(webhook) => {
                self.space_named(&webhook.space)?;
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
        }
    }

    /// Space `id`, which a change names.
    fn space_named(&self, id: &str) -> Result<&SpaceInfo, DirectoryError> {
        self.spaces
            .get(id)
            .ok_or_else(|| DirectoryError::NotFound(format!("space '{id}'")))
    }

    /// User `id`, which a change names.
    fn user_named(&self, id: &str) -> Result<&Arc<Account>, DirectoryError> {
        self.accounts
            .get(id)
            .ok_or_else(|| DirectoryError::NotFound(format!("user '{id}'")))
    }

    /// Whether user `id` may join one more space.
    fn may_join(&self, id: &str) -> Result<(), DirectoryError> {
        if self.memberships.get(id).map_or(0, |m| m.len()) >= MAX_SPACES_PER_USER {
            Err(DirectoryError::LimitReached(format!(
                "a user belongs to at most {MAX_SPACES_PER_USER} spaces"
            )))
        } else {
            Ok(())
        }
    }

    /// Whether `member` may be made a member of space `id` with `role`, or have its role
    /// changed to it (a format 3 change).
    fn check_member_set(&self, id: &str, member: &str, role: Role) -> Result<(), DirectoryError> {
        let info = self.space_named(id)?;
        self.user_named(member)?;
        match info.members.get(member) {
            None if info.default_of.is_some() => Err(DirectoryError::DefaultSpace),
            None if info.members.len() >= MAX_MEMBERS => Err(DirectoryError::LimitReached(
                format!("a space has at most {MAX_MEMBERS} members"),
            )),
            None => self.may_join(member),
            Some(m) if m.role == Role::Owner && role != Role::Owner => last_owner(info, member),
            Some(_) => Ok(()),
        }
    }

    /// Whether `member` may leave space `id` (or its invitation be withdrawn).
    fn check_member_removed(&self, id: &str, member: &str) -> Result<(), DirectoryError> {
        let info = self.space_named(id)?;
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

    /// Whether `token` may be made: its user exists and has room for one more live token,
    /// and belongs to every space the token names.
    fn check_token_created(&self, token: &Token, now: i64) -> Result<(), DirectoryError> {
        self.user_named(&token.user)?;
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

    /// Whether owner `by` may set the role of `member` in space `id`, inviting it when it
    /// is neither a member nor invited.
    fn check_role_set(
        &self,
        id: &str,
        member: &str,
        role: Role,
        by: &str,
    ) -> Result<(), DirectoryError> {
        let info = self.space_named(id)?;
        self.user_named(member)?;
        match info.members.get(member) {
            Some(m) if m.role == Role::Owner && role != Role::Owner => last_owner(info, member),
            Some(_) => Ok(()),
            None if self.invitation(id, member).is_some() => Ok(()),
            None if info.default_of.is_some() => Err(DirectoryError::DefaultSpace),
            None => self.may_invite(info, member, by),
        }
    }

    /// Applies a change that [`DirectoryState::check`] allowed (or that the journal holds), and
    /// counts it.
    pub fn apply(&mut self, change: &Change) {
        self.applied += 1;
        match change {
            Change::UserCreated(account) => self.apply_user_created(account),
            Change::SpaceCreated(info) => self.add_space(info.clone()),
            Change::SpaceRenamed { space, name } => {
                if let Some(info) = self.spaces.get_mut(space) {
                    info.name = name.clone();
                }
            }
            Change::SpaceDeleted { space } => self.apply_space_deleted(space),
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
            Change::TokenCreated(token) => self.add_token(token.clone(), None),
            Change::TokenCreatedLimited(token, limit) => {
                self.add_token(token.clone(), Some(*limit))
            }
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
            } => self.apply_role_set(space, user, *role, by, *at),
            Change::Accepted { space, user, at } => self.apply_accepted(space, user, *at),
            Change::WebhookCreated(_)
            | Change::WebhookSet(_)
            | Change::WebhookGone { .. }
            | Change::WebhookDeleted { .. }
            | Change::WebhookPositions(_) => self.apply_webhook_change(change),
        }
    }

    /// A new user, with its default space (named after it, owned by it).
    fn apply_user_created(&mut self, account: &Account) {
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

    /// A deleted space: its members, invitations and webhooks go with it; its id is kept.
    fn apply_space_deleted(&mut self, space: &str) {
        if let Some(info) = self.spaces.remove(space) {
            for user in info.members.keys() {
                self.set_membership(user, space, None);
            }
        }
        let invited = self.invitations.get(space).cloned().unwrap_or_default();
        for user in invited.keys() {
            self.remove_invitation(space, user);
        }
        self.deleted.insert(space.into());
        self.webhooks.retain(|_, w| *w.space != *space);
    }

    /// An owner set the role of `user` in `space`: a member's or an invitation's role
    /// changes, anyone else is invited.
    fn apply_role_set(&mut self, space: &str, user: &str, role: Role, by: &str, at: i64) {
        let Some(info) = self.spaces.get_mut(space) else {
            return;
        };
        if let Some(member) = info.members.get_mut(user) {
            member.role = role;
            self.set_membership(user, space, Some(role));
        } else if let Some(invitation) = self
            .invitations
            .get_mut(space)
            .and_then(|invited| invited.get_mut(user))
        {
            invitation.role = role;
        } else {
            let invitation = Invitation {
                role,
                by: by.into(),
                at,
            };
            self.add_invitation(space, user, invitation);
        }
    }

    /// An invited user accepted: an active member with the invitation's role from `at`.
    fn apply_accepted(&mut self, space: &str, user: &str, at: i64) {
        let Some(invitation) = self.remove_invitation(space, user) else {
            return;
        };
        if let Some(info) = self.spaces.get_mut(space) {
            let member = Member {
                role: invitation.role,
                added_at: at,
            };
            info.members.insert(user.into(), member);
            self.set_membership(user, space, Some(invitation.role));
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
}
