//! taskd: a self-hosted server for the Task Management Service Interface v1.
//!
//! # Layout
//! - [`config`]: command-line flags and their environment twins.
//! - [`logging`]: the `fern` logger, set up once.
//! - [`startup`]: loads the data directory, starts the actors and the HTTP server, and runs
//!   the shutdown sequence.
//! - [`http`]: routes, extractors, rendering and the one mapping of errors to problem+json.
//! - `dav`: the CalDAV front beside [`http`], sharing its application state: discovery,
//!   Basic auth with a token, `PROPFIND`, `REPORT` (multiget, query, sync-collection),
//!   `GET` and `DELETE` of objects (no `PUT` yet).
//! - `ical`: tasks as iCalendar VTODOs and back (CONTRACT §20), pure: the mapping the
//!   `.ics` routes of [`http`] call.
//! - [`service`]: the boundary the fronts call for storage health, kept answers and
//!   backups (actors for the rest); no front reaches into [`store`].
//! - [`actors`]: one actor per space, the directory of users and spaces, the snapshot actor.
//! - [`model`]: record kinds, validation and the pure `Space` with its indexes and version.
//! - [`store`]: the snapshot file format and atomic file writes, used by the actors only
//!   (and by the backup copy).
//! - [`replication`]: with `--nats`, the journal appended to a NATS JetStream stream,
//!   fenced, and the lease that makes one node the primary.
//! - [`webhooks`]: the webhook sender (§19), a front beside [`http`]: it reads each space's
//!   change feed through the registry and POSTs the events, signed, to the webhooks'
//!   receivers.
//! - [`tools`]: the subcommands `backup`, `export`, `import`, `healthcheck` and `bench`
//!   (the load generator of the `taskd-bench` crate, `crates/bench`); the progress line
//!   they draw on a terminal is the `taskd-progress` crate's (`crates/progress`).

#![deny(unreachable_pub)]

mod actors;
pub mod config;
mod core;
mod dav;
mod edge;
mod http;
mod ical;
pub mod logging;
mod metrics;
pub mod model;
mod replication;
pub mod startup;
pub mod store;
pub mod tools;
mod webhooks;
mod wire;
