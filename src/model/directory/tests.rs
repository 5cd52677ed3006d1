//! Tests of the directory: users, spaces, members, invitations, tokens and webhooks.

use super::*;
use crate::model::user::hash_token;
use crate::model::webhook::{Position, Webhook, MAX_WEBHOOKS_PER_SPACE};

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
