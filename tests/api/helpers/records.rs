//! The contract's tables (docs §3): collections with their own id fields, the base
//! fields, and each kind's defaults. They are written out here independently of the
//! server's own field tables on purpose, so the tests check the server against the
//! contract rather than against itself.

use serde_json::{json, Value};

/// Every collection with its own id field (docs §3). Tests loop over this table instead
/// of repeating themselves per kind.
pub const KINDS: [(&str, &str); 5] = [
    ("tasks", "todoId"),
    ("lists", "listId"),
    ("schedules", "scheduleId"),
    ("categories", "categoryId"),
    ("contexts", "contextId"),
];

/// The base fields every record has (interface-v1 "Base record").
pub const BASE_FIELDS: [&str; 7] = [
    "id",
    "createdAt",
    "deletedAt",
    "isDeleted",
    "spaceId",
    "updatedAt",
    "versionUpdatedAt",
];

/// The updatable fields of a collection's records with the value each has when a create
/// leaves it out (docs §3, §15, §18, §22), `sortOrder` excepted, and a task's read-only
/// `isBlocked`, `remindedAt`, `completedCount` and `lastCompletedAt`.
pub fn default_fields(collection: &str) -> serde_json::Map<String, Value> {
    let value = match collection {
        "tasks" => json!({
            "name": null, "notesMarkdown": null, "status": null, "complexity": null,
            "listId": null, "contextId": null, "goalId": null,
            "categoryIds": [], "scheduleIds": [], "tagIds": [],
            "dateDue": null, "dateStart": null, "durationEstimate": null, "durationMs": null,
            "isImportant": false, "isTimeSensitive": false,
            "TodoPredecessorsAllAny": "ALL", "TodoPredecessorsView": false,
            "predecessorIds": [], "isBlocked": false,
            "timeZone": null, "isAllDay": false, "recurrence": null, "recurFrom": "due",
            "reminders": [], "remindedAt": null, "completedCount": 0, "lastCompletedAt": null,
            "parentId": null,
        }),
        "lists" => json!({
            "name": null, "color": null, "emoji": null, "icon": null,
            "isDefault": false, "keyboardShortcut": null,
        }),
        "schedules" | "categories" | "contexts" => json!({
            "name": null, "color": null, "emoji": null, "icon": null,
        }),
        other => panic!("no collection {other}"),
    };
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

/// The id of a record, read from its own id field.
pub fn id_of(record: &Value, id_field: &str) -> String {
    record[id_field]
        .as_str()
        .unwrap_or_else(|| panic!("no {id_field} in {record:#}"))
        .to_string()
}
