//! taskd: a self-hosted server for the Task Management Service Interface v1.
//!
//! # Layout
//! Layers point inward: the edge wraps the fronts, the fronts call the core, the core sends
//! work to the actors, the actors own the pure model; the store and replication sit behind
//! the actors. No front imports another.
//!
//! ```text
//!   edge ──▶ http (JSON API, .ics) · dav (CalDAV) · webhooks (sender)
//!                        │
//!                        ▼
//!                      core ──▶ actors ──▶ model
//!                                  │
//!                                  ▼
//!                        store · replication
//! ```
//!
//! - [`config`]: command-line flags and their environment twins.
//! - [`logging`]: the `fern` logger, set up once.
//! - [`startup`]: loads the data directory, starts the actors, builds the core and the
//!   edge, mounts the fronts side by side, and runs the shutdown sequence.
//! - `edge`: what wraps every front: the one middleware (shutdown gate, standby refusal,
//!   failed-authentication throttle, request id, request log and metrics), client
//!   addresses behind trusted proxies, and every request body read within
//!   `--body-timeout-ms` and a bound.
//! - `http`: the JSON API front, with the `.ics` routes: routes, extractors, rendering and
//!   the one mapping of errors to problem+json.
//! - `dav`: the CalDAV front: discovery, Basic auth with a token, `PROPFIND`, `REPORT`
//!   (multiget, query, sync-collection), `GET`, `PUT` and `DELETE` of objects.
//! - `webhooks`: the webhook sender (§19), a front of its own: it reads each space's
//!   change feed through the core and POSTs the events, signed, to the receivers.
//! - `core`: the boundary every front calls: access ([`model::access`] once), reads, the
//!   one write path of records, directory changes, the one conditional rule (RFC 9110),
//!   heavy work off the HTTP workers, health, kept answers and backups.
//! - `ical`: tasks as iCalendar VTODOs and back (§20), pure: the mapping the `.ics` routes
//!   and CalDAV share. `wire`: the one JSON rendering of records that the JSON API, the
//!   feed, the stream, webhooks and export share.
//! - `actors`: one actor per space, the directory of users and spaces, the snapshot actor.
//! - [`model`]: record kinds, validation and the pure `Space` with its indexes and version.
//! - [`store`]: the journal, snapshots and their one codec (format version, golden files),
//!   used by the actors only (and by the backup copy).
//! - `replication`: with `--nats`, the journal appended to a NATS JetStream stream,
//!   fenced, and the lease that makes one node the primary.
//! - `threads`: the one way a thread of work that grows with a space (snapshots, long
//!   writes, heavy answers) yields the cores to the HTTP workers.
//! - [`tools`]: the subcommands `backup`, `export`, `import`, `healthcheck` and `bench`
//!   (the load generator of the `taskd-bench` crate, `crates/bench`); the progress line
//!   they draw on a terminal is the `taskd-progress` crate's (`crates/progress`).
//!
//! The documentation for users and operators is in `docs/` (start at `docs/README.md`);
//! "§n" in the code names a row of its section table.

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
mod threads;
pub mod tools;
mod webhooks;
mod wire;
