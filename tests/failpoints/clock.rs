//! Live views across a midnight of their zone (docs §24), with the clock of live views
//! moved by failpoint `live::clock` (see `taskd::http::failpoints`).

use chrono::{Duration, TimeZone, Utc};
use serde_json::json;

use crate::helpers::{names, spawn_app, Events};
use crate::set_failpoint;

/// A `today` boundary is a midnight of the view's zone, and no real one is near when a
/// test runs: the next midnight of any zone can be half an hour away. So the test moves
/// the clock that live views read (and only that clock) to 3 s before the next midnight
/// of Pacific/Chatham (UTC+12:45 or +13:45: a midnight on no whole UTC hour, so a view
/// read in UTC would turn at another instant), makes a task due that evening and one due
/// the next morning, and watches the evening task leave `dateDue >= today` and enter
/// `dateDue < today` as the clock really crosses that midnight: with no write, through the
/// server's timer, within 1 s.
#[actix_web::test]
async fn a_today_boundary_moves_tasks_at_midnight_in_the_views_named_zone() {
    let app = spawn_app();
    let zone = chrono_tz::Pacific::Chatham;
    let real = Utc::now();
    let tomorrow = real.with_timezone(&zone).date_naive().succ_opt().unwrap();
    let midnight = zone
        .from_local_datetime(&tomorrow.and_hms_opt(0, 0, 0).unwrap())
        .earliest()
        .unwrap()
        .with_timezone(&Utc);
    let skew = (midnight - real).num_milliseconds() - 3_000;
    set_failpoint(&app, "live::clock", &format!("return({skew})")).await;
    let due = |at: chrono::DateTime<Utc>| at.to_rfc3339();
    let evening = due(midnight - Duration::hours(2));
    let morning = due(midnight + Duration::hours(2));
    app.create("tasks", json!({"todoId": "evening", "dateDue": evening}))
        .await;
    app.create("tasks", json!({"todoId": "morning", "dateDue": morning}))
        .await;
    let open = |filter: &'static str| {
        let path = format!("/api/v1/live?filter={filter}&tz=Pacific%2FChatham");
        let token = app.default_token.clone();
        let app = &app;
        async move { Events::open(app, &token, &path, &[]).await }
    };
    let mut today = open("dateDue%20%3E%3D%20today").await;
    let mut past = open("dateDue%20%3C%20today").await;
    let reset = today.next(1).await;
    let shown: Vec<&str> = reset[0].data["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["todoId"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["evening", "morning"]);
    assert_eq!(past.next(1).await[0].data["tasks"], json!([]));

    let entered = past.next(1).await;
    let crossed = Utc::now() + Duration::milliseconds(skew) - midnight;
    assert_eq!(names(&entered), ["enter"]);
    assert_eq!(entered[0].data["record"]["todoId"], "evening");
    assert_eq!(entered[0].data["spaceVersion"], 2);
    assert!(
        crossed >= Duration::zero() && crossed < Duration::seconds(1),
        "entered {crossed:?} after the midnight"
    );
    let left = today.next(1).await;
    assert_eq!(names(&left), ["leave"]);
    assert_eq!(
        left[0].data,
        json!({"todoId": "evening", "spaceVersion": 2})
    );
}
