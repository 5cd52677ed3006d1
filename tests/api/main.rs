//! End-to-end tests: each test starts the real `taskd` binary on port 0 with a temporary
//! data directory (see `helpers::spawn_app`) and checks the contract over HTTP.

mod helpers;

mod activity;
mod attacks;
mod auth;
mod backup;
mod bench;
mod bench_plot;
mod bounds;
mod budgets;
mod calendar;
mod concurrency;
mod crash_safety;
mod dav;
mod dependencies;
mod durability;
mod ecosystem;
mod errors;
mod fronts;
mod health_and_routing;
mod invitations;
mod limits;
mod listing;
mod page;
mod persistence;
mod queries;
mod records;
mod reminders;
mod replication;
mod spaces;
mod subtasks;
mod sync;
mod time;
mod tokens;
mod views;
mod webhooks;
mod writes;
