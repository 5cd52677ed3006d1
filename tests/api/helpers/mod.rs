//! Everything the end-to-end tests need to drive the real server, by concern:
//! - [`server`]: starting, stopping, crashing and restarting the `taskd` binary;
//! - [`client`]: requests as one user or another, replies read as JSON;
//! - [`assert`]: problem+json and format checks;
//! - [`events`]: server-sent events read from a stream;
//! - [`records`]: the contract's tables of collections and fields.

pub mod assert;
pub mod client;
pub mod events;
pub mod records;
pub mod server;

pub use assert::*;
pub use client::*;
pub use events::*;
pub use records::*;
pub use server::*;
