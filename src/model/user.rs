//! Bearer tokens, shown once and kept only as SHA-256 hashes; and users as formats 1 and 2
//! stored them (format 3 stores [`super::directory::Account`]s).

use rand::rngs::OsRng;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The SHA-256 of a bearer token.
pub type TokenHash = [u8; 32];

/// A user as formats 1 and 2 stored it (in the users file and the journal), when each user
/// had one space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    /// The user's id (a UUID).
    pub id: String,
    /// The name given when the user was created.
    pub name: String,
    /// Hash of the user's bearer token.
    pub token_hash: TokenHash,
    /// The space used when a request names none.
    pub default_space: String,
    /// Every space the user may reach, the default one first.
    pub spaces: Vec<String>,
}

#[cfg(test)]
impl User {
    /// A new user with a new default space, reached with `token`.
    pub fn new(name: &str, token: &str) -> User {
        let space = uuid::Uuid::new_v4().to_string();
        User {
            id: uuid::Uuid::new_v4().to_string(),
            name: name.to_string(),
            token_hash: hash_token(token),
            default_space: space.clone(),
            spaces: vec![space],
        }
    }

    /// Whether the user may reach space `id`.
    pub fn owns(&self, id: &str) -> bool {
        self.spaces.iter().any(|s| s == id)
    }
}

/// The users file's contents in formats 1 and 2.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsersSnapshot {
    /// Every user, in creation order.
    pub users: Vec<User>,
}

/// A new bearer token: 256 bits from the operating system's CSPRNG, hex-encoded.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The hash under which a token is stored and looked up.
pub fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_distinct_and_hashed() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let user = User::new("alice", &a);
        assert_eq!(user.token_hash, hash_token(&a));
        assert_ne!(user.token_hash, hash_token(&b));
        assert!(user.owns(&user.default_space));
        assert!(!user.owns("elsewhere"));
    }
}
