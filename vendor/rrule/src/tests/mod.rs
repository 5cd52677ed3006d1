#![cfg(test)]

mod common;
mod datetime;
mod daylight_saving;
mod regression;
mod rfc_tests;
mod rrule;
mod rruleset;
mod serde;
