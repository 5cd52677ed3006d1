//! Follows one space of a taskd server from one token: catches up with the change feed,
//! then follows the change stream, reconnecting with `Last-Event-ID`, so it sees every
//! change at least once and in order. Shared by the `mirror` and `share` examples.

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

/// The local copy: every record by (kind, id), deleted ones included.
pub type Mirror = BTreeMap<(String, String), Value>;

/// Applies one change (`{"kind", "record"}`) to the copy and prints it after `label`;
/// returns its version.
fn apply(mirror: &mut Mirror, change: &Value, label: &str) -> u64 {
    let kind = change["kind"].as_str().unwrap_or("?").to_string();
    let record = &change["record"];
    let id = record["id"].as_str().unwrap_or("?").to_string();
    let version = record["versionUpdatedAt"].as_u64().unwrap_or(0);
    let verb = match (
        mirror.contains_key(&(kind.clone(), id.clone())),
        record["isDeleted"].as_bool(),
    ) {
        (_, Some(true)) => "deleted",
        (true, _) => "changed",
        (false, _) => "new",
    };
    println!("{label}v{version:<6} {verb:<8} {kind} {id}");
    mirror.insert((kind, id), record.clone());
    version
}

/// Keeps a copy of space `space` (the token's default one when `None`) of the server at
/// `base`, printing each change after `label`, until `done` says the copy is complete
/// (for ever if it never does).
pub async fn follow(
    base: &str,
    token: &str,
    space: Option<&str>,
    label: &str,
    done: impl Fn(&Mirror) -> bool,
) -> Result<Mirror, Box<dyn std::error::Error>> {
    let auth = ("Authorization", format!("Bearer {token}"));
    let query = space.map_or(String::new(), |s| format!("spaceId={s}&"));
    let client = awc::Client::default();
    let mut mirror = Mirror::new();

    // 1. Catch up with the feed, page by page.
    let mut since = 0;
    loop {
        let url = format!("{base}/api/v1/changes?{query}since={since}&limit=1000");
        let page: Value = client
            .get(url)
            .insert_header(auth.clone())
            .send()
            .await?
            .json()
            .limit(64 << 20)
            .await?;
        for change in page["data"].as_array().into_iter().flatten() {
            apply(&mut mirror, change, label);
        }
        since = page["nextSince"]
            .as_u64()
            .ok_or("no nextSince in the feed")?;
        if page["hasMore"] != true {
            break;
        }
    }
    println!(
        "{label}caught up at version {since}: {} records",
        mirror.len()
    );

    // 2. Follow the stream; resume from the last event after a drop.
    while !done(&mirror) {
        let request = client
            .get(format!("{base}/api/v1/changes/stream?{query}"))
            .insert_header(auth.clone())
            .insert_header(("Last-Event-ID", since.to_string()))
            .timeout(Duration::from_secs(3600));
        let mut response = match request.send().await {
            Ok(response) if response.status().is_success() => response,
            Ok(response) => return Err(format!("stream refused: {}", response.status()).into()),
            Err(e) => {
                eprintln!("{label}stream unavailable ({e}); retrying");
                actix_web::rt::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let mut buffer = String::new();
        while let Some(Ok(chunk)) = response.next().await {
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let event: String = buffer.drain(..end + 2).collect();
                if let Some(data) = event.lines().find_map(|l| l.strip_prefix("data: ")) {
                    since = since.max(apply(&mut mirror, &serde_json::from_str(data)?, label));
                }
            }
            if done(&mirror) {
                return Ok(mirror);
            }
        }
        eprintln!("{label}stream ended at version {since}; reconnecting");
        actix_web::rt::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(mirror)
}
