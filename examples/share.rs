//! Shares a space between two users and follows it from both.
//!
//! With the admin token it makes users `alice` and `bob`; alice makes a space and adds bob
//! as an editor; each follows the space (change feed, then change stream, as the `mirror`
//! example does) while each adds a task; it ends once both copies hold both tasks.
//!
//! ```sh
//! TASKD_URL=http://127.0.0.1:8080 TASKD_ADMIN_TOKEN=$(cat data/admin.token) \
//!     cargo run --example share
//! ```

use serde_json::{json, Value};

#[path = "support/follow.rs"]
mod follow;

/// Sends `body` with `method` to `path` as `token`; the answer's `data`.
async fn call(
    base: &str,
    method: awc::http::Method,
    path: &str,
    token: &str,
    body: Value,
) -> Result<Value, Box<dyn std::error::Error>> {
    let mut response = awc::Client::default()
        .request(method, format!("{base}{path}"))
        .insert_header(("Authorization", format!("Bearer {token}")))
        .send_json(&body)
        .await?;
    let answer: Value = response.json().await?;
    if !response.status().is_success() {
        return Err(format!("{path}: {} {answer}", response.status()).into());
    }
    Ok(answer["data"].clone())
}

#[actix_web::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    use awc::http::Method;
    let base = std::env::var("TASKD_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let admin = std::env::var("TASKD_ADMIN_TOKEN").map_err(|_| "set TASKD_ADMIN_TOKEN")?;
    let user = |name: &'static str| {
        call(
            &base,
            Method::POST,
            "/api/v1/admin/users",
            &admin,
            json!({"name": name}),
        )
    };
    let (alice, bob) = (user("alice").await?, user("bob").await?);
    let token = |u: &Value| u["token"].as_str().unwrap_or_default().to_string();
    let (alice_token, bob_token) = (token(&alice), token(&bob));

    let space = call(
        &base,
        Method::POST,
        "/api/v1/spaces",
        &alice_token,
        json!({"name": "Trip"}),
    )
    .await?["spaceId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let member = format!(
        "/api/v1/spaces/{space}/members/{}",
        bob["userId"].as_str().unwrap_or_default()
    );
    call(
        &base,
        Method::PUT,
        &member,
        &alice_token,
        json!({"role": "editor"}),
    )
    .await?;
    println!("alice shared space {space} with bob as an editor");

    let both_tasks = |m: &follow::Mirror| m.keys().filter(|(kind, _)| kind == "task").count() >= 2;
    let tasks = format!("/api/v1/tasks?spaceId={space}");
    let (alice_copy, bob_copy, _, _) = futures_util::future::try_join4(
        follow::follow(&base, &alice_token, Some(&space), "[alice] ", both_tasks),
        follow::follow(&base, &bob_token, Some(&space), "[bob]   ", both_tasks),
        call(
            &base,
            Method::POST,
            &tasks,
            &alice_token,
            json!({"todoId": "tickets", "name": "Book tickets"}),
        ),
        call(
            &base,
            Method::POST,
            &tasks,
            &bob_token,
            json!({"todoId": "bags", "name": "Pack bags"}),
        ),
    )
    .await?;
    println!(
        "both copies hold {} and {} records",
        alice_copy.len(),
        bob_copy.len()
    );
    Ok(())
}
