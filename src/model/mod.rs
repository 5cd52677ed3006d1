//! The domain: record kinds, validation, spaces and users, and the time rules of tasks
//! ([`recurrence`]: zones, all-day days, recurrence, reminders; [`times`]: how a write of a
//! task applies them), with no web or actor types.
//!
//! Request flow: `http` validates a body with [`validate::parse_changes`], an actor calls a
//! [`Space`] method, and `http` renders the returned records.

pub mod access;
pub mod calendar;
pub mod cursor;
pub mod deps;
pub mod directory;
pub mod error;
pub mod kept;
pub mod kind;
pub mod limits;
pub mod query;
pub mod record;
pub mod recurrence;
pub mod space;
pub mod time;
pub mod times;
pub mod user;
pub mod validate;
pub mod webhook;

pub use directory::{
    Access, Account, Caller, Change, DirectoryError, DirectorySnapshot, DirectoryState, Invitation,
    Invited, Member, Role, Scope, SpaceInfo, Token,
};
pub use error::{FieldError, SpaceError, ValidationError};
pub use kind::{Field, FieldType, Kind};
pub use record::{Record, Records, Value};
pub use space::{
    Changes, Command, FeedPage, IfMatch, Item, ListQuery, Op, Outcome, Page, Plan, Space,
    SpaceSnapshot, SpaceView, Step, TaskQuery, Touched, Undo,
};
pub use user::{User, UsersSnapshot};
pub use validate::Mode;
