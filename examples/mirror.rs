//! Keeps an in-memory copy of a taskd space in sync and prints what changes.
//!
//! It reads the change feed from version 0 until it has caught up, then follows the
//! change stream from there, and when the stream drops it reconnects with
//! `Last-Event-ID`, so it sees every change at least once and in order. `TASKD_SPACE`
//! names a space other than the token's default one (a shared one, say).
//!
//! ```sh
//! TASKD_URL=http://127.0.0.1:8080 TASKD_TOKEN=$(cat data/default.token) \
//!     cargo run --example mirror
//! ```

#[path = "support/follow.rs"]
mod follow;

#[actix_web::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = std::env::var("TASKD_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let token = std::env::var("TASKD_TOKEN").map_err(|_| "set TASKD_TOKEN")?;
    let space = std::env::var("TASKD_SPACE").ok();
    follow::follow(&base, &token, space.as_deref(), "", |_| false).await?;
    Ok(())
}
