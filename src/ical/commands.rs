//! VTODOs as writes of a space: the commands the `.ics` import and a CalDAV `PUT` send.

use std::collections::{HashMap, HashSet};

use super::read::{ChangesError, Todo};
use crate::model::record::Id;
use crate::model::validate::is_id;
use crate::model::vtodo::CalendarTasks;
use crate::model::{Command, FieldError, Kind, Op, ValidationError, Value};

/// A refusal of the VTODO of `uid`: `message`.
fn invalid(uid: &str, message: String) -> ValidationError {
    ValidationError {
        errors: vec![FieldError {
            field: uid.into(),
            message,
        }],
    }
}

/// The commands that write `todos` into the space whose tasks are `tasks`, and how many
/// tasks they create and update; with `list`, every task is put in that list (`Some(None)`:
/// in none). A VTODO whose predecessors or parent are made by the same import follows
/// them, so the space sees each before it is named. A deleted task is restored, then
/// written. The CalDAV front's `PUT` writes its one VTODO through here too.
pub(crate) fn commands(
    todos: &[Todo],
    tasks: &CalendarTasks,
    list: Option<Option<Box<str>>>,
) -> Result<(Vec<Command>, usize, usize), ValidationError> {
    // The todoId of each VTODO: its task's, or a new one.
    let mut taken: HashSet<&str> = HashSet::new();
    let mut ids: HashMap<&str, Id> = HashMap::new();
    for todo in todos {
        let uid = todo.uid.as_str();
        let id: Id = match tasks.with_uid(uid) {
            Some(task) => task.id.clone(),
            None if is_id(uid) && !taken.contains(uid) && !tasks.records().contains_key(uid) => {
                Id::from(uid)
            }
            None => Id::from(uuid::Uuid::new_v4().to_string()),
        };
        taken.insert(uid);
        ids.insert(uid, id);
    }
    // A related task's todoId: the one this import gives its UID, else its task's.
    let known = |uid: &str| match ids.get(uid) {
        Some(id) => Some(id.to_string()),
        None => tasks.with_uid(uid).map(|t| t.id.to_string()),
    };
    let resolve = |uid: &str| known(uid).unwrap_or_else(|| uid.to_owned());
    let list_at = Kind::Task
        .field_index("listId")
        .expect("tasks have a listId");
    let mut commands = Vec::with_capacity(todos.len());
    let (mut created, mut updated) = (0, 0);
    for todo in in_dependency_order(todos, tasks) {
        let existing = tasks.with_uid(&todo.uid);
        let mut changes = todo
            .changes(existing.map(|r| &**r), resolve, known)
            .map_err(|e| match e {
                ChangesError::Ical(e) => invalid(&todo.uid, e.to_string()),
                ChangesError::Invalid(v) => ValidationError {
                    errors: v
                        .errors
                        .into_iter()
                        .map(|f| FieldError {
                            field: format!("{}.{}", todo.uid, f.field),
                            message: f.message,
                        })
                        .collect(),
                },
            })?;
        if let Some(list) = &list {
            let value = list.clone().map_or(Value::Null, Value::Text);
            changes.fields.push((list_at, value));
        }
        let id: Box<str> = (*ids[todo.uid.as_str()]).into();
        let op = match existing {
            Some(task) => {
                if task.is_deleted() {
                    commands.push(Command {
                        kind: Kind::Task,
                        id: id.clone(),
                        op: Op::SetDeleted(false),
                        if_match: None,
                    });
                }
                updated += 1;
                Op::Update(changes)
            }
            None => {
                created += 1;
                Op::Create(changes)
            }
        };
        commands.push(Command {
            kind: Kind::Task,
            id,
            op,
            if_match: None,
        });
    }
    Ok((commands, created, updated))
}

/// `todos` reordered so that each comes after the VTODOs of the same import it depends on
/// or is a child of (a cycle keeps the body's order, and the space refuses it). A walk with a
/// stack of its own: a chain of thousands of VTODOs must not overflow the thread's.
fn in_dependency_order<'a>(todos: &'a [Todo], tasks: &CalendarTasks) -> Vec<&'a Todo> {
    let at: HashMap<&str, usize> = todos
        .iter()
        .enumerate()
        .map(|(i, t)| (t.uid.as_str(), i))
        .collect();
    let mut seen = vec![false; todos.len()];
    let mut order = Vec::with_capacity(todos.len());
    for first in 0..todos.len() {
        // (VTODO, whether its predecessors were pushed already)
        let mut stack = vec![(first, false)];
        while let Some((i, expanded)) = stack.pop() {
            if expanded {
                order.push(&todos[i]);
                continue;
            }
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            stack.push((i, true));
            for uid in todos[i].predecessors().chain(todos[i].parent()) {
                if let (Some(&j), None) = (at.get(uid), tasks.with_uid(uid)) {
                    if !seen[j] {
                        stack.push((j, false));
                    }
                }
            }
        }
    }
    order
}
