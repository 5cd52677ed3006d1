//! The one place that decides access (docs §13, §14): from the caller (its roles and
//! its token), a space and an action to allow, `403` or `404`. Every route asks
//! [`decide`]; none checks a role or a token by itself.
//!
//! The order: a space the caller does not belong to, or that its token does not reach,
//! does not exist for it (`404`, whatever the action, so nobody learns which spaces exist);
//! then the action must be within both the member's role and the token's scope (`403`).

use super::directory::{Access, Caller, Role, Scope};

/// What a request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Reads records, the feed, the stream, the space or its members.
    Read,
    /// Writes records: POST, PATCH, DELETE, restore, batch.
    Write,
    /// Renames or deletes the space, or adds, changes or removes a member.
    Manage,
    /// Leaves the space (removes the caller's own membership), or declines an invitation
    /// to it.
    Leave,
    /// Accepts an invitation to the space.
    Accept,
    /// Creates a space or manages the caller's tokens (no space named).
    Account,
    /// Reads or manages the space's webhooks (§19): owners only, through the primary token
    /// or a `write` token that reaches the space.
    Webhooks,
}

/// Why a caller was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denied {
    /// The space does not exist for the caller: `404`.
    Hidden,
    /// `403`, for this reason.
    Forbidden(Reason),
}

/// Why an action was forbidden (a label of the `/metrics` count of 403s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The member's role is below the action.
    Role,
    /// The token only reads.
    ReadOnlyToken,
    /// Only the primary token may do it.
    PrimaryTokenOnly,
    /// The admin token is no user.
    Admin,
    /// Only the admin token may do it.
    AdminOnly,
}

impl Reason {
    /// The metrics label.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Role => "role",
            Reason::ReadOnlyToken => "read_only_token",
            Reason::PrimaryTokenOnly => "primary_token_only",
            Reason::Admin => "admin_token",
            Reason::AdminOnly => "admin_only",
        }
    }
}

/// Whether `caller` may do `action` in `space` (`None` for an action on its account);
/// the caller's role there when it may.
pub fn decide(
    caller: &Caller,
    space: Option<&str>,
    action: Action,
) -> Result<Option<Role>, Denied> {
    if action == Action::Accept {
        // Only the primary token answers invitations, whether there is one or not.
        if let Scope::Scoped(_) = caller.scope {
            return Err(Denied::Forbidden(Reason::PrimaryTokenOnly));
        }
        return match space {
            Some(id) if caller.invited.contains(id) => Ok(None),
            _ => Err(Denied::Hidden),
        };
    }
    let role = match space {
        Some(id) => match caller.spaces.get(id) {
            Some(role) if caller.scope.reaches(id) => Some(*role),
            // An invitee reaches nothing of the space, but may decline.
            None if action == Action::Leave && caller.invited.contains(id) => None,
            _ => return Err(Denied::Hidden),
        },
        None => None,
    };
    let needs = match action {
        Action::Read => Role::Viewer,
        Action::Write => Role::Editor,
        Action::Manage | Action::Webhooks => Role::Owner,
        Action::Leave | Action::Accept | Action::Account => Role::Viewer,
    };
    match (&caller.scope, action) {
        (Scope::Scoped(_), Action::Manage | Action::Leave | Action::Account) => {
            return Err(Denied::Forbidden(Reason::PrimaryTokenOnly))
        }
        (Scope::Scoped(token), Action::Write | Action::Webhooks)
            if token.token.access == Access::Read =>
        {
            return Err(Denied::Forbidden(Reason::ReadOnlyToken))
        }
        _ => {}
    }
    match role {
        Some(role) if role < needs => Err(Denied::Forbidden(Reason::Role)),
        _ => Ok(role),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::model::directory::{Account, Change, DirectoryState, Token};
    use crate::model::user::hash_token;

    const SPACE: &str = "s";
    const OTHER: &str = "o";

    /// A caller with `role` in [`SPACE`] (and owner of [`OTHER`]) using `token`.
    fn caller(role: Option<Role>, token: &str) -> Caller {
        let mut spaces = BTreeMap::from([(OTHER.into(), Role::Owner)]);
        if let Some(role) = role {
            spaces.insert(SPACE.into(), role);
        }
        let scoped = |access, spaces: Option<&[&str]>| {
            let token = Token {
                id: "t".into(),
                user: "u".into(),
                name: "t".into(),
                access,
                spaces: spaces.map(|s| s.iter().map(|s| (*s).into()).collect()),
                expires_at: None,
                created_at: 0,
                last_used_at: None,
                hash: hash_token("t"),
            };
            let mut d = DirectoryState::default();
            d.apply(&Change::UserCreated(Account {
                id: "u".into(),
                name: "u".into(),
                primary: hash_token("u"),
                default_space: "home".into(),
                created_at: 0,
            }));
            d.apply(&Change::TokenCreated(token));
            let (caller, _) = d.authenticate(&hash_token("t"), || 0).unwrap();
            caller.scope
        };
        let scope = match token {
            "primary" => Scope::Primary,
            "read" => scoped(Access::Read, None),
            "write" => scoped(Access::Write, None),
            "write-here" => scoped(Access::Write, Some(&[SPACE])),
            "write-elsewhere" => scoped(Access::Write, Some(&[OTHER])),
            _ => unreachable!(),
        };
        Caller {
            account: Arc::new(Account {
                id: "u".into(),
                name: "u".into(),
                primary: hash_token("u"),
                default_space: OTHER.into(),
                created_at: 0,
            }),
            spaces: Arc::new(spaces),
            invited: Arc::default(),
            scope,
        }
    }

    /// Every role × token × action in [`SPACE`]: `A` allowed, `F` 403, `H` 404.
    #[test]
    fn the_whole_table() {
        let roles = [
            None,
            Some(Role::Viewer),
            Some(Role::Editor),
            Some(Role::Owner),
        ];
        let tokens = ["primary", "read", "write", "write-here", "write-elsewhere"];
        let actions = [
            Action::Read,
            Action::Write,
            Action::Manage,
            Action::Leave,
            Action::Webhooks,
        ];
        // Rows: roles; within a row, per token: the five actions.
        let expected = [
            // no member: hidden whatever the token
            ["HHHHH", "HHHHH", "HHHHH", "HHHHH", "HHHHH"],
            // viewer
            ["AFFAF", "AFFFF", "AFFFF", "AFFFF", "HHHHH"],
            // editor
            ["AAFAF", "AFFFF", "AAFFF", "AAFFF", "HHHHH"],
            // owner: webhooks through the primary token or a write token reaching it
            ["AAAAA", "AFFFF", "AAFFA", "AAFFA", "HHHHH"],
        ];
        for (role, row) in roles.iter().zip(expected) {
            for (token, cells) in tokens.iter().zip(row) {
                let caller = caller(*role, token);
                for (action, cell) in actions.iter().zip(cells.chars()) {
                    let got = match decide(&caller, Some(SPACE), *action) {
                        Ok(_) => 'A',
                        Err(Denied::Forbidden(_)) => 'F',
                        Err(Denied::Hidden) => 'H',
                    };
                    assert_eq!(got, cell, "{role:?} {token} {action:?}");
                }
            }
        }
    }

    #[test]
    fn account_actions_need_the_primary_token() {
        for token in ["read", "write", "write-here"] {
            assert_eq!(
                decide(&caller(None, token), None, Action::Account),
                Err(Denied::Forbidden(Reason::PrimaryTokenOnly))
            );
        }
        assert_eq!(
            decide(&caller(None, "primary"), None, Action::Account),
            Ok(None)
        );
        assert_eq!(
            decide(
                &caller(Some(Role::Editor), "write"),
                Some(SPACE),
                Action::Write
            ),
            Ok(Some(Role::Editor))
        );
        assert_eq!(
            decide(
                &caller(Some(Role::Viewer), "write"),
                Some(SPACE),
                Action::Write
            ),
            Err(Denied::Forbidden(Reason::Role))
        );
        assert_eq!(
            decide(
                &caller(Some(Role::Owner), "read"),
                Some(SPACE),
                Action::Write
            ),
            Err(Denied::Forbidden(Reason::ReadOnlyToken))
        );
    }
}
