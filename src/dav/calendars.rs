//! The calendars of a caller and the tasks each holds: one calendar collection per list
//! of each space the caller reaches (`<spaceId>.<listId>`) and one per space for its tasks
//! without a list (`<spaceId>`), under the caller's calendar home.

use crate::core::{reach, Core};
use crate::model::access::Action;
use crate::model::calendar::CalendarTasks;
use crate::model::record::{Record, Records};
use crate::model::{Caller, Kind};

use super::DavError;

/// The path of `user`'s principal.
pub(super) fn principal(user: &str) -> String {
    format!("/dav/principals/{user}/")
}

/// The path of `user`'s calendar home.
pub(super) fn calendar_home(user: &str) -> String {
    format!("/dav/calendars/{user}/")
}

/// One calendar collection as `PROPFIND` shows it.
pub(super) struct CalendarInfo {
    /// Its space.
    pub(super) space: String,
    /// Its path.
    pub(super) path: String,
    /// Its display name: the list's name (its id when it has none), or the space's.
    pub(super) name: String,
    /// The space version, its `getctag`.
    pub(super) version: u64,
    /// Whether the caller may write in its space.
    pub(super) writable: bool,
}

/// The calendars of `caller` (see the module doc), in space and list id order.
pub(super) async fn calendars(core: &Core, caller: &Caller) -> Vec<CalendarInfo> {
    let user = &*caller.account.id;
    let spaces: Vec<(String, String)> = {
        let directory = core.directory();
        caller
            .reached()
            .filter_map(|(id, _)| {
                directory
                    .space(id)
                    .map(|s| (id.to_owned(), s.name.to_string()))
            })
            .collect()
    };
    let name_at = Kind::List.field_index("name").expect("lists have a name");
    let mut calendars = Vec::new();
    for (space, space_name) in spaces {
        let writable = reach(caller, Some(&space), Action::Write).is_ok();
        let read = core
            .read(&space, |s| {
                let view = s.view();
                (view.collections[Kind::List.index()].clone(), view.version)
            })
            .await;
        // A space deleted since the directory was read has no calendars.
        let Ok((lists, version)) = read else {
            continue;
        };
        calendars.push(CalendarInfo {
            space: space.clone(),
            path: format!("{}{space}/", calendar_home(user)),
            name: space_name,
            version,
            writable,
        });
        for list in lists.values().filter(|l| !l.is_deleted()) {
            calendars.push(CalendarInfo {
                space: space.clone(),
                path: format!("{}{space}.{}/", calendar_home(user), list.id),
                name: list.fields[name_at]
                    .as_text()
                    .map_or_else(|| list.id.to_string(), str::to_owned),
                version,
                writable,
            });
        }
    }
    calendars
}

/// The prefix of a calendar's `sync-token`; the space version follows it.
pub(super) const SYNC_TOKEN: &str = "urn:taskd:sync:";

/// The `sync-token` of a calendar of a space at `version`.
pub(super) fn sync_token(version: u64) -> String {
    format!("{SYNC_TOKEN}{version}")
}

/// The calendar a path segment names (`<spaceId>` or `<spaceId>.<listId>`) as the caller
/// may read it, with its members; `404` for one it does not reach, a list that does not
/// exist or is deleted.
pub(super) async fn calendar_of(
    core: &Core,
    caller: &Caller,
    user: &str,
    segment: &str,
) -> Result<(CalendarInfo, Members), DavError> {
    if user != &*caller.account.id {
        return Err(DavError::NotFound);
    }
    let (space, list) = match segment.split_once('.') {
        Some((space, list)) => (space, Some(Box::<str>::from(list))),
        None => (segment, None),
    };
    reach(caller, Some(space), Action::Read).map_err(|_| DavError::NotFound)?;
    let writable = reach(caller, Some(space), Action::Write).is_ok();
    let space_name = core
        .directory()
        .space(space)
        .map(|s| s.name.to_string())
        .ok_or(DavError::NotFound)?;
    let wanted = list.clone();
    let (tasks, version, name) = core
        .read(space, move |s| {
            let name_at = Kind::List.field_index("name").expect("lists have a name");
            let name = match &wanted {
                None => Some(space_name),
                Some(list) => s
                    .get(Kind::List, list)
                    .ok()
                    .map(|item| item.record)
                    .filter(|l| !l.is_deleted())
                    .map(|l| {
                        l.fields[name_at]
                            .as_text()
                            .map_or_else(|| l.id.to_string(), str::to_owned)
                    }),
            };
            (s.calendar_tasks(), s.version(), name)
        })
        .await
        .map_err(|_| DavError::NotFound)?;
    let name = name.ok_or(DavError::NotFound)?;
    let calendar = CalendarInfo {
        space: space.to_owned(),
        path: format!("{}{segment}/", calendar_home(user)),
        name,
        version,
        writable,
    };
    Ok((calendar, Members { tasks, list }))
}

/// The tasks of a calendar: those of list `list` (`None`: those without a list) that are
/// not deleted, among the space's `tasks`.
pub(super) struct Members {
    pub(super) tasks: CalendarTasks,
    pub(super) list: Option<Box<str>>,
}

impl Members {
    /// Whether `task` is one of them.
    pub(super) fn contains(&self, task: &Record) -> bool {
        let list_at = Kind::Task
            .field_index("listId")
            .expect("tasks have a listId");
        !task.is_deleted() && task.fields[list_at].as_text() == self.list.as_deref()
    }

    /// Each of them, by `todoId`.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Record> {
        self.tasks
            .records()
            .values()
            .filter(|t| self.contains(t))
            .map(|t| &**t)
    }

    /// The one that is the object `name` (compared percent-decoded).
    pub(super) fn named(&self, name: &str) -> Option<&Record> {
        self.tasks.named(name, |t| self.contains(t)).map(|t| &**t)
    }

    /// The space's tasks, deleted ones and those of other calendars too.
    pub(super) fn records(&self) -> &Records {
        self.tasks.records()
    }
}
