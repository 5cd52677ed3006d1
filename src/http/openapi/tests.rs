//! Tests of the document: the generated schemas and routes, and the limits it states.

use super::*;
use crate::model::Kind;
use serde_json::Value;

fn json() -> Value {
    serde_json::to_value(&*DOCUMENT).unwrap()
}

/// `Record` is a `oneOf` with no discriminator, so a record of each kind must match
/// exactly one alternative: it lacks some field that every other kind requires.
#[test]
fn a_record_of_one_kind_never_matches_another_kinds_schema() {
    let document = json();
    let schemas = &document["components"]["schemas"];
    for a in Kind::ALL {
        let has = schemas[schema_name(a, "")]["properties"]
            .as_object()
            .unwrap();
        for b in Kind::ALL.into_iter().filter(|b| *b != a) {
            let required = schemas[schema_name(b, "")]["required"].as_array().unwrap();
            assert!(
                required
                    .iter()
                    .any(|r| !has.contains_key(r.as_str().unwrap())),
                "a {a:?} record would also match the {b:?} schema"
            );
        }
    }
}

/// The routes of spaces, members and tokens (docs §13, §14), each with the
/// statuses its handler answers: 403 for the admin token (or a user's on the admin
/// route), and on writes the idempotency key's and the directory's refusals.
#[test]
fn the_directory_routes_list_their_statuses() {
    let document = json();
    let paths = &document["paths"];
    let reads = ["400", "401", "403", "404", "429", "500", "503"];
    let sorted = |more: &[&'static str]| {
        let mut all = [&reads[..], more].concat();
        all.sort_unstable();
        all
    };
    let writes = sorted(&["408", "409", "413", "422"]);
    let with_body = sorted(&["408", "409", "413", "415", "422"]);
    for (path, method, success, statuses) in [
        ("/api/v1/spaces", "get", "200", &reads[..]),
        ("/api/v1/spaces", "post", "201", &with_body),
        ("/api/v1/spaces/{spaceId}", "get", "200", &reads),
        ("/api/v1/spaces/{spaceId}", "patch", "200", &with_body),
        ("/api/v1/spaces/{spaceId}", "delete", "200", &writes),
        ("/api/v1/spaces/{spaceId}/members", "get", "200", &reads),
        (
            "/api/v1/spaces/{spaceId}/members/{userId}",
            "put",
            "201",
            &with_body,
        ),
        (
            "/api/v1/spaces/{spaceId}/members/{userId}",
            "delete",
            "200",
            &writes,
        ),
        ("/api/v1/spaces/{spaceId}/accept", "post", "200", &writes),
        ("/api/v1/invitations", "get", "200", &reads),
        ("/api/v1/tokens", "get", "200", &reads),
        ("/api/v1/tokens", "post", "201", &with_body),
        ("/api/v1/tokens/{tokenId}", "get", "200", &reads),
        ("/api/v1/tokens/{tokenId}", "delete", "200", &writes),
        ("/api/v1/admin/users/{userId}/token", "post", "200", &writes),
    ] {
        let operation = &paths[path][method];
        let mut listed: Vec<&str> = operation["responses"]
            .as_object()
            .unwrap_or_else(|| panic!("{method} {path} missing"))
            .keys()
            .map(String::as_str)
            .filter(|s| *s != success && *s != "200")
            .collect();
        listed.sort_unstable();
        assert_eq!(listed, statuses, "{method} {path}");
        assert!(
            operation["responses"][success].is_object(),
            "{method} {path}"
        );
        let keyed = operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["name"] == "Idempotency-Key");
        assert_eq!(keyed, method != "get", "{method} {path}");
    }
    let schemas = &document["components"]["schemas"];
    assert_eq!(schemas["SpaceCreate"]["additionalProperties"], false);
    assert_eq!(
        schemas["SpaceCreate"]["required"],
        serde_json::json!(["name"])
    );
    assert_eq!(
        schemas["TokenCreate"]["properties"]["spaceIds"]["maxItems"],
        100
    );
    let token = &schemas["Token"];
    assert!(token["properties"]["token"].is_object());
    assert!(!token["required"]
        .as_array()
        .unwrap()
        .contains(&"token".into()));
}

#[test]
fn tasks_document_their_dependencies() {
    let document = json();
    let schemas = &document["components"]["schemas"];
    let task = &schemas["Task"]["properties"];
    assert_eq!(task["predecessorIds"]["type"], "array");
    assert_eq!(task["predecessorIds"]["items"]["type"], "string");
    assert_eq!(task["isBlocked"]["type"], "boolean");
    assert_eq!(task["isBlocked"]["readOnly"], true);
    for body in ["TaskCreate", "TaskUpdate"] {
        let properties = &schemas[body]["properties"];
        assert!(properties["predecessorIds"].is_object(), "{body}");
        assert!(properties.get("isBlocked").is_none(), "{body}");
    }
    let list = &document["paths"]["/api/v1/tasks"]["get"];
    let parameter = list["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "isBlocked")
        .expect("an isBlocked parameter");
    assert_eq!(
        parameter["schema"]["enum"],
        serde_json::json!(["true", "false"])
    );
    for name in ["filter", "q", "orderBy", "tz"] {
        let described = list["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .and_then(|p| p["description"].as_str())
            .unwrap_or_else(|| panic!("a {name} parameter"));
        assert!(!described.is_empty());
        let lists = &document["paths"]["/api/v1/lists"]["get"]["parameters"];
        assert!(lists.as_array().unwrap().iter().all(|p| p["name"] != name));
    }
    let bad_request = document["components"]["responses"]["Problem400"]["description"]
        .as_str()
        .unwrap();
    assert!(bad_request.contains("invalid_filter"));
    let problem = document["components"]["responses"]["Problem422"]["description"]
        .as_str()
        .unwrap();
    assert!(problem.contains("dependency_cycle"));
    assert!(problem.contains("dependency_too_complex"));
    for code in ["parent_cycle", "too_deep"] {
        assert!(problem.contains(code), "{code}");
    }
    let conflict = document["components"]["responses"]["Problem409"]["description"]
        .as_str()
        .unwrap();
    assert!(conflict.contains("parent_deleted") && conflict.contains("children"));
    let parent = &schemas["Task"]["properties"]["parentId"];
    assert!(parent["description"]
        .as_str()
        .unwrap()
        .contains("parent_cycle"));
    assert!(list["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "parentId"));
    for method in ["post", "patch"] {
        let path = if method == "post" {
            "/api/v1/tasks"
        } else {
            "/api/v1/tasks/{todoId}"
        };
        assert!(document["paths"][path][method]["responses"]["422"].is_object());
    }
}

#[test]
fn every_reference_names_a_component() {
    fn walk(value: &Value, document: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(to)) = map.get("$ref") {
                    let path = to.strip_prefix("#/").expect("a local reference");
                    let target = path.split('/').fold(document, |v, part| &v[part]);
                    assert!(target.is_object(), "{to} names nothing");
                }
                map.values().for_each(|v| walk(v, document));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, document)),
            _ => {}
        }
    }
    let document = json();
    walk(&document, &document);
    let mapping = &document["components"]["schemas"]["Change"]["discriminator"]["mapping"];
    for kind in Kind::ALL {
        let to = mapping[kind.noun()].as_str().unwrap();
        walk(&serde_json::json!({ "$ref": to }), &document);
    }
}

/// A batch operation's body is typed (`anyOf` the kinds' create and update bodies, not
/// a bare object a generated client reads as `Record<string, never>`), and a result
/// names its record's kind.
#[test]
fn a_batch_is_typed_for_generated_clients() {
    let document = json();
    let schemas = &document["components"]["schemas"];
    let body = &schemas["BatchOperation"]["properties"]["body"]["anyOf"];
    let names: Vec<&str> = body
        .as_array()
        .expect("anyOf")
        .iter()
        .map(|b| b["$ref"].as_str().unwrap())
        .collect();
    for kind in Kind::ALL {
        for suffix in ["Create", "Update"] {
            let name = format!("#/components/schemas/{}", schema_name(kind, suffix));
            assert!(names.contains(&name.as_str()), "{name}");
        }
    }
    assert_eq!(names.len(), 2 * Kind::ALL.len());
    let request = &document["paths"]["/api/v1/batch"]["post"]["requestBody"];
    assert_eq!(
        request["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/BatchRequest"
    );
    assert_eq!(request["required"], true);
    let kind = &schemas["BatchResult"]["properties"]["kind"];
    assert_eq!(kind["enum"], serde_json::json!(Kind::ALL.map(Kind::noun)));
    assert!(schemas["BatchResult"]["required"]
        .as_array()
        .unwrap()
        .contains(&"kind".into()));
}

/// The document states the limits the server checks, from the same constants.
#[test]
fn the_document_states_the_limits_of_the_limits_module() {
    use crate::model::limits::*;
    let document = json();
    let schemas = &document["components"]["schemas"];
    let parameter = |path: &str, name: &str| {
        document["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{path} {name}"))["schema"]
            .clone()
    };
    let page = parameter("/api/v1/tasks", "limit");
    assert_eq!(page["maximum"], PAGE_LIMIT_MAX);
    assert_eq!(page["default"], PAGE_LIMIT_DEFAULT);
    let feed = parameter("/api/v1/changes", "limit");
    assert_eq!(feed["maximum"], FEED_LIMIT_MAX);
    assert_eq!(feed["default"], FEED_LIMIT_DEFAULT);
    assert_eq!(
        parameter("/api/v1/changes", "since")["maximum"],
        MAX_SAFE_INTEGER
    );
    assert_eq!(
        schemas["BatchRequest"]["properties"]["operations"]["maxItems"],
        MAX_OPERATIONS
    );
    assert_eq!(
        schemas["TokenCreate"]["properties"]["spaceIds"]["maxItems"],
        MAX_TOKEN_SPACES
    );
    for body in ["SpaceCreate", "SpaceUpdate", "TokenCreate", "UserCreate"] {
        assert_eq!(
            schemas[body]["properties"]["name"]["maxLength"], NAME_MAX_CHARS,
            "{body}"
        );
    }
    let task = &schemas["Task"]["properties"];
    assert_eq!(task["name"]["maxLength"], NAME_MAX_CHARS);
    assert_eq!(task["notesMarkdown"]["maxLength"], NOTES_MAX_CHARS);
    assert_eq!(task["durationMs"]["maximum"], MAX_SAFE_INTEGER);
    assert_eq!(task["tagIds"]["maxItems"], MAX_IDS);
    assert_eq!(
        task["todoId"]["pattern"],
        format!("^[A-Za-z0-9_-]{{{ID_MIN_CHARS},{ID_MAX_CHARS}}}$")
    );
    let problems = &document["components"]["responses"];
    assert!(problems["Problem413"]["description"]
        .as_str()
        .unwrap()
        .contains(&format!("{} MiB", MAX_BODY_BYTES >> 20)));
    assert!(problems["Problem409"]["description"]
        .as_str()
        .unwrap()
        .contains(&format!(
            "{} spaces per user",
            thousands(MAX_SPACES_PER_USER)
        )));
}

/// The time fields of a task (docs §18): the counters read-only and absent from the
/// bodies, dates as date-times or days in the bodies, and the occurrences operation.
#[test]
fn a_task_has_its_time_fields_and_its_occurrences() {
    let document = json();
    let schemas = &document["components"]["schemas"];
    let task = &schemas["Task"]["properties"];
    for field in ["remindedAt", "completedCount", "lastCompletedAt"] {
        assert_eq!(task[field]["readOnly"], true, "{field}");
        for body in ["TaskCreate", "TaskUpdate"] {
            assert!(
                schemas[body]["properties"].get(field).is_none(),
                "{body}.{field}"
            );
        }
    }
    assert_eq!(task["reminders"]["maxItems"], 10);
    assert_eq!(task["dateDue"]["format"], "date-time");
    let due = schemas["TaskUpdate"]["properties"]["dateDue"].to_string();
    assert!(
        due.contains("\"date\"") && due.contains("date-time"),
        "{due}"
    );
    let occurrences = &document["paths"]["/api/v1/tasks/{todoId}/occurrences"]["get"];
    assert!(occurrences["responses"]["200"].is_object(), "{occurrences}");
}

/// Webhooks (docs §19): the routes, the object with its secret only when shown,
/// and the 422 of a refused address.
#[test]
fn webhooks_have_their_routes_and_objects() {
    let document = json();
    let paths = &document["paths"];
    let create = &paths["/api/v1/webhooks"]["post"];
    assert!(create["responses"]["201"].is_object(), "{create}");
    assert!(create["responses"]["422"].is_object(), "{create}");
    for (path, method) in [
        ("/api/v1/webhooks", "get"),
        ("/api/v1/webhooks/{webhookId}", "patch"),
        ("/api/v1/webhooks/{webhookId}", "delete"),
        ("/api/v1/webhooks/{webhookId}/secret", "post"),
        ("/api/v1/webhooks/{webhookId}/deliveries", "get"),
    ] {
        assert!(
            paths[path][method]["responses"]["200"].is_object(),
            "{method} {path}"
        );
    }
    let webhook = &document["components"]["schemas"]["Webhook"];
    let required = webhook["required"].to_string();
    for field in [
        "webhookId",
        "lastDeliveredVersion",
        "pending",
        "disabledReason",
    ] {
        assert!(required.contains(field), "{field} in {required}");
    }
    assert!(!required.contains("secret"), "{required}");
}

/// docs §20: `completedAt` is read-only, the hidden calendar data is in no schema,
/// and the calendar path has its export and import.
#[test]
fn a_task_has_completed_at_and_the_calendar_routes_are_documented() {
    let document = json();
    let schemas = &document["components"]["schemas"];
    assert_eq!(
        schemas["Task"]["properties"]["completedAt"]["readOnly"],
        true
    );
    for schema in ["Task", "TaskCreate", "TaskUpdate"] {
        assert!(
            schemas[schema]["properties"].get("calendar").is_none(),
            "{schema}"
        );
    }
    let calendar = &document["paths"]["/api/v1/calendar.ics"];
    assert_eq!(calendar["get"]["operationId"], "exportCalendar");
    assert_eq!(calendar["post"]["operationId"], "importCalendar");
}

/// Every operation derived from a handler lists its statuses and is found in the
/// document; none is lost between the handlers and the generated routes.
#[test]
fn every_route_has_its_operations() {
    let document = json();
    let paths = document["paths"].as_object().unwrap();
    // 6 collections × 3 paths, a task's occurrences, 4 of webhooks, the calendar, the
    // activity (its page, its revert, each kind's item route), and the other routes (the
    // live view among them).
    assert_eq!(paths.len(), 18 + 1 + 4 + 1 + 2 + 6 + 20);
    for (path, item) in paths {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            assert!(
                responses.keys().any(|s| s.starts_with('2')),
                "{method} {path} has no success"
            );
            assert!(operation["operationId"].is_string(), "{method} {path}");
        }
    }
}

/// docs §23: the activity's page, each kind's item route with the page's parameters but
/// `kind` and `id`, the entry with its changes and actor, and the revert's answer and
/// problems (409 `conflict` with its `fields`).
#[test]
fn the_activity_and_its_revert_are_documented() {
    let document = json();
    let paths = &document["paths"];
    let list = &paths["/api/v1/activity"]["get"];
    assert_eq!(
        list["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/ActivityPage"
    );
    let names = |operation: &Value| -> Vec<String> {
        let parameters = operation["parameters"].as_array().unwrap();
        parameters
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(list),
        ["spaceId", "before", "since", "limit", "kind", "id", "userId"]
    );
    let limit = &list["parameters"][3]["schema"];
    assert_eq!(
        (limit["maximum"].as_u64(), limit["default"].as_u64()),
        (Some(1000), Some(100))
    );
    for kind in Kind::ALL {
        let path = format!(
            "/api/v1/{}/{{{}}}/activity",
            kind.collection(),
            kind.id_field()
        );
        let item = &paths[&path]["get"];
        assert_eq!(
            names(item),
            [
                kind.id_field(),
                "spaceId",
                "before",
                "since",
                "limit",
                "userId"
            ],
            "{path}"
        );
        assert!(item["responses"]["404"].is_object(), "{path}");
    }
    let revert = &paths["/api/v1/activity/{version}/revert"]["post"];
    assert_eq!(names(revert), ["version", "spaceId", "force"]);
    assert_eq!(
        revert["parameters"][2]["schema"]["enum"],
        serde_json::json!(["true"])
    );
    for status in ["200", "400", "403", "404", "409"] {
        assert!(revert["responses"][status].is_object(), "{status}");
    }
    let conflict = document["components"]["responses"]["Problem409"]["description"].to_string();
    assert!(conflict.contains("conflict (a revert"), "{conflict}");
    let schemas = &document["components"]["schemas"];
    let entry = &schemas["ActivityEntry"];
    let required = entry["required"].to_string();
    for field in [
        "version", "at", "kind", "id", "action", "changes", "actor", "revertOf",
    ] {
        assert!(required.contains(field), "{field} in {required}");
    }
    let change = &entry["properties"]["changes"]["additionalProperties"];
    assert_eq!(change["required"], serde_json::json!(["from", "to"]));
    let via = schemas["ActivityActor"]["properties"]["via"]["enum"].to_string();
    for door in ["api", "batch", "caldav", "import", "reminder", "cascade"] {
        assert!(via.contains(door), "{door} in {via}");
    }
    let problem = &schemas["Problem"]["properties"]["fields"];
    assert!(problem.is_object(), "{problem}");
}
