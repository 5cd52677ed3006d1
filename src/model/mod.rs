//! The domain: record kinds, validation, spaces and users, and the time rules of tasks
//! ([`wall_clock`]: zones, dates, all-day days; [`recurrence`]: recurrence, reminders;
//! [`time_fields`]: how a write of a task applies them; [`vtodo`]: what a task keeps for
//! calendar clients), with no web or actor types.
//!
//! Request flow: `http` validates a body with [`validate::parse_changes`], an actor calls a
//! [`Space`] method, and `http` renders the returned records.

pub mod access;
pub mod activity;
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
pub mod rfc3339;
pub mod space;
pub mod time_fields;
pub mod tree;
pub mod user;
pub mod validate;
pub mod views;
pub mod vtodo;
pub mod wall_clock;
pub mod webhook;

// The old paths of modules renamed to say what they hold, which files outside the model
// still name: `calendar` (dav, tools), `time` (logging, wire), `times` (http).
pub use rfc3339 as time;
pub use time_fields as times;
pub use vtodo as calendar;

pub use directory::{
    Access, Account, Caller, Change, DirectoryError, DirectorySnapshot, DirectoryState, Invitation,
    Invited, Member, RateLimit, Role, Scope, SpaceInfo, Token,
};
pub use error::{FieldError, SpaceError, ValidationError};
pub use kind::{Field, FieldType, Kind};
pub use record::{Record, Records, Value};
pub use space::{
    Changes, Command, FeedPage, IfMatch, Item, ListOut, ListQuery, Op, Outcome, Page, Plan,
    PostingsOut, Reset, Space, SpaceSnapshot, SpaceView, Step, TaskImage, TaskQuery, TermsImage,
    Touched, Undo,
};
pub use user::{User, UsersSnapshot};
pub use validate::Mode;
