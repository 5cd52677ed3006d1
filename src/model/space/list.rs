//! Listing a kind's records a page at a time: the query, the page, and the cursor binding.

use std::sync::Arc;

use crate::model::cursor::Cursor;
use crate::model::error::SpaceError;
use crate::model::kind::Kind;
use crate::model::limits::LIVE_VIEW_MAX;
use crate::model::query::{Filter, FilterContext, OrderBy, Search};
use crate::model::record::Record;
use crate::model::views::Definition;

use super::find::{self, Plan, Scope};
use super::Space;

/// What a listing asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    /// Page size, 1 to 100.
    pub limit: usize,
    /// Whether soft-deleted records are listed too.
    pub include_deleted: bool,
    /// Exact-match filters by field position, in field-table order.
    pub filters: Vec<(usize, String)>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// The `filter`, `q`, `orderBy` and `tz` of a task listing (docs §17); `None` for
    /// the other kinds, whose listings take none of them.
    pub find: Option<TaskQuery>,
    /// Whether the planner may use the §17 indexes.
    pub plan: Plan,
    /// The view whose definition gives `find` (docs §24: `?viewId=`): the listing reads it
    /// and its cursors belong to it.
    pub view: Option<Box<str>>,
}

/// The §17 parameters of a task listing.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskQuery {
    /// The decoded `filter=`, parsed by the listing against the walk's `now` (an empty
    /// text matches every task).
    pub filter: String,
    /// The `q=`.
    pub search: Search,
    /// The `orderBy=`.
    pub order: OrderBy,
    /// The `tz=` (UTC by default).
    pub tz: chrono_tz::Tz,
    /// The request's time, in milliseconds since the Unix epoch: `now` of a walk's first
    /// page (later pages take theirs from the cursor).
    pub now: i64,
}

/// What a live view starts from (docs §24).
#[derive(Debug, Clone)]
pub struct Reset {
    /// The query the view stands for.
    pub query: TaskQuery,
    /// Every task it shows, in its order.
    pub tasks: Vec<Arc<Record>>,
    /// The space version they were read at.
    pub version: u64,
}

/// One page of a listing.
#[derive(Debug, Clone)]
pub struct Page {
    /// The records, in listing order.
    pub records: Vec<Arc<Record>>,
    /// The current space version.
    pub version: u64,
    /// The cursor of the next page, if any record is left.
    pub next_cursor: Option<String>,
}

impl Space {
    /// One page of the records of `kind` that match `query`, in its order (`sortOrder`,
    /// then id, unless a task listing's `orderBy` says otherwise). A task listing's filter
    /// is parsed here, against the `now` its walk began with; the indexes that find the
    /// page are chosen by `find` (see [`Plan`]).
    pub fn list(&self, kind: Kind, query: &ListQuery) -> Result<Page, SpaceError> {
        let resolved;
        let query = match &query.view {
            Some(view) => {
                let now = query.find.as_ref().map_or(0, |f| f.now);
                resolved = ListQuery {
                    find: Some(self.view_definition(view)?.task_query(now)),
                    ..query.clone()
                };
                &resolved
            }
            None => query,
        };
        let binding = self.query_binding(kind, query);
        let now = query.find.as_ref().map_or(0, |f| f.now);
        let (walk_version, now, after) = match &query.cursor {
            Some(token) => {
                let cursor = Cursor::decode(token, &binding)
                    .filter(|c| c.version <= self.version)
                    .ok_or(SpaceError::InvalidCursor)?;
                (cursor.version, cursor.now, Some(cursor.position))
            }
            None => (self.version, now, None),
        };
        let default_order = OrderBy::default();
        let order = query.find.as_ref().map_or(&default_order, |f| &f.order);
        if after.as_ref().is_some_and(|p| !order.fits(p)) {
            return Err(SpaceError::InvalidCursor);
        }
        let filter = match &query.find {
            Some(find) => Filter::parse(
                &find.filter,
                FilterContext {
                    space_id: &self.id,
                    tz: find.tz,
                    now_ms: now,
                },
            )
            .map_err(SpaceError::InvalidFilter)?,
            None => Filter::default(),
        };
        let scope = Scope {
            walk_version,
            query,
            filter: &filter,
            search: query
                .find
                .as_ref()
                .map(|f| &f.search)
                .filter(|s| !s.is_empty()),
        };
        let collection = self.collection(kind);
        let mut records: Vec<Arc<Record>> =
            find::select(collection, &scope, order, after.as_ref(), query.limit + 1)
                .into_iter()
                .cloned()
                .collect();
        let next_cursor = if records.len() > query.limit {
            records.truncate(query.limit);
            records.last().map(|last| {
                Cursor {
                    version: walk_version,
                    now,
                    position: order.position(last),
                }
                .encode(&binding)
            })
        } else {
            None
        };
        Ok(Page {
            records,
            version: self.version,
            next_cursor,
        })
    }

    /// A live view's `reset` (docs §24): every task that the view `view`, or else `query`,
    /// matches (deleted tasks never), in its order, with the query it was read by and the
    /// space version; more than [`LIVE_VIEW_MAX`] is refused.
    pub fn reset(
        &self,
        view: Option<&str>,
        query: TaskQuery,
        plan: Plan,
    ) -> Result<Reset, SpaceError> {
        let query = match view {
            Some(id) => self.view_definition(id)?.task_query(query.now),
            None => query,
        };
        let listing = ListQuery {
            limit: LIVE_VIEW_MAX,
            include_deleted: false,
            filters: Vec::new(),
            cursor: None,
            find: Some(query.clone()),
            plan,
            view: None,
        };
        let page = self.list(Kind::Task, &listing)?;
        if page.next_cursor.is_some() {
            return Err(SpaceError::ViewTooLarge);
        }
        Ok(Reset {
            query,
            tasks: page.records,
            version: page.version,
        })
    }

    /// Every task that is not deleted: what a live view whose filter names `now` or
    /// `today` watches for time boundaries (docs §24).
    pub fn all_tasks(&self) -> Vec<Arc<Record>> {
        let tasks = self.collection(Kind::Task).records.values();
        tasks.filter(|t| !t.is_deleted()).cloned().collect()
    }

    /// The definition of the view `id` (docs §24); `404` when it is deleted or was never
    /// made.
    pub fn view_definition(&self, id: &str) -> Result<Definition, SpaceError> {
        let view = self.collection(Kind::View).get(id)?;
        if view.is_deleted() {
            return Err(SpaceError::NotFound {
                kind: Kind::View,
                id: id.to_string(),
            });
        }
        Ok(Definition::of(view))
    }

    /// Bytes that tie a cursor to this space, kind, exact filters, `includeDeleted` and a
    /// task listing's filter, order, time zone and search words.
    fn query_binding(&self, kind: Kind, query: &ListQuery) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(64);
        for part in [self.id.as_bytes(), kind.collection().as_bytes()] {
            bytes.extend_from_slice(&(part.len() as u32).to_le_bytes());
            bytes.extend_from_slice(part);
        }
        bytes.push(query.include_deleted as u8);
        let mut part = |text: &[u8]| {
            bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
            bytes.extend_from_slice(text);
        };
        for (field, value) in &query.filters {
            part(&(*field as u32).to_le_bytes());
            part(value.as_bytes());
        }
        if let Some(view) = &query.view {
            part(b"view");
            part(view.as_bytes());
        }
        if let Some(find) = &query.find {
            part(b"find");
            part(find.filter.as_bytes());
            part(find.order.to_string().as_bytes());
            part(find.tz.name().as_bytes());
            for word in find.search.words() {
                part(word.as_bytes());
            }
        }
        bytes
    }
}
