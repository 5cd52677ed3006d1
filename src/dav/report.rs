//! `REPORT` on a calendar: `calendar-multiget`, `calendar-query` and `sync-collection`.

use actix_web::web::{self, Data};
use actix_web::HttpResponse;

use super::calendars::{calendar_of, sync_token, CalendarInfo, Members, SYNC_TOKEN};
use super::filter;
use super::objects::vtodo_text;
use super::propfind::{multi_status, object_prop, rendered_object_prop, Asked};
use super::request::{DavBody, DavCaller};
use super::xml;
use super::DavError;
use crate::core::Core;
use crate::ical::object_name;
use crate::model::calendar::same_name;
use crate::model::record::Record;
use crate::model::Kind;

/// `REPORT` on a calendar: `calendar-multiget` answers the objects at the `href`s it names
/// (`404` for a name no task of the calendar has), `calendar-query` the objects of the
/// calendar its `filter` matches ([`filter::matches`]), each with the properties asked for
/// (`getetag`, `calendar-data`); `sync-collection` is [`sync_collection`]. Another report
/// is `403` (RFC 3253 `supported-report`). `207 Multi-Status`.
pub(super) async fn report_calendar(
    DavCaller(caller): DavCaller,
    path: web::Path<(String, String)>,
    DavBody(body): DavBody,
    core: Data<Core>,
) -> Result<HttpResponse, DavError> {
    let (user, segment) = path.into_inner();
    let (calendar, members) = calendar_of(&core, &caller, &user, &segment).await?;
    let report = xml::report(&body).map_err(DavError::BadRequest)?;
    let asked = Asked {
        props: report.props,
        all: false,
    };
    match report.kind {
        xml::ReportKind::Multiget => {
            let hrefs = report.hrefs;
            let owner = caller.account.id.clone();
            Ok(multi_status(&owner, move |mut answer| {
                let tasks = members.records();
                for href in &hrefs {
                    let found = object_of(&calendar, href)
                        .and_then(|name| members.named(name))
                        .map(|task| asked.answer(|p| object_prop(task, tasks, p)));
                    answer.response(href, found.as_ref())?;
                }
                answer.finish(None, None)
            })
            .await)
        }
        // Each object is rendered once, for the filter and its `calendar-data`.
        xml::ReportKind::Query => {
            let filter = report.filter;
            let owner = caller.account.id.clone();
            Ok(multi_status(&owner, move |mut answer| {
                let tasks = members.records();
                for task in members.iter() {
                    let text = filter.as_ref().map(|_| vtodo_text(task, tasks));
                    if let (Some(filter), Some(text)) = (&filter, &text) {
                        if !filter::matches(filter, task, text) {
                            continue;
                        }
                    }
                    let href = format!("{}{}", calendar.path, object_name(task));
                    let found =
                        asked.answer(|p| rendered_object_prop(task, tasks, text.as_deref(), p));
                    answer.response(&href, Some(&found))?;
                }
                answer.finish(None, None)
            })
            .await)
        }
        xml::ReportKind::SyncCollection => {
            let token = &report.sync_token;
            sync_collection(
                &core,
                &caller.account.id,
                calendar,
                members,
                asked,
                token,
                report.limit,
            )
            .await
        }
        xml::ReportKind::Other(_, _) => Err(DavError::UnsupportedReport),
    }
}

/// The object name an `href` of a multiget names in `calendar`: its last segment, when
/// the rest is the calendar's path (compared percent-decoded).
fn object_of<'a>(calendar: &CalendarInfo, href: &'a str) -> Option<&'a str> {
    let (parent, name) = href.rsplit_once('/')?;
    same_name(&format!("{parent}/"), &calendar.path).then_some(name)
}

/// `sync-collection` (RFC 6578) on `calendar`: from an empty token, every object of it;
/// from the token of version `n`, every task changed after `n`, as an object with the
/// properties asked for while it is in the calendar, else (deleted, moved to another list,
/// or never here) a `404` member; then the token of the version read. A token taskd did
/// not give, or one of a version the space has not reached, is `403` with
/// `DAV:valid-sync-token`. With a `DAV:limit` of `n` and more changes than that, the
/// answer holds the first `n` changes in version order, a `507` member for the calendar
/// (RFC 6578 §3.6), and the token of the version of the last change it holds, so the
/// next sync from it reports the rest: no change is skipped. The answer is made in the
/// heavy turn of `owner`, the caller's account.
async fn sync_collection(
    core: &Core,
    owner: &str,
    calendar: CalendarInfo,
    members: Members,
    asked: Asked,
    token: &str,
    limit: Option<usize>,
) -> Result<HttpResponse, DavError> {
    let since = match token {
        "" => None,
        token => Some(
            token
                .strip_prefix(SYNC_TOKEN)
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or(DavError::InvalidSyncToken)?,
        ),
    };
    // From an empty token: the members, read with the calendar at `calendar.version`.
    // From a token: the tasks changed since, read with the space's tasks at one version.
    let (members, changed, version) = match since {
        None => (members, Vec::new(), calendar.version),
        Some(n) => {
            let (tasks, changed, version) = core
                .read(&calendar.space, move |s| {
                    let changed = s.changes(n, usize::MAX).ok().map(|page| {
                        page.changes
                            .into_iter()
                            .filter(|t| t.kind == Kind::Task)
                            .map(|t| t.record)
                            .collect::<Vec<_>>()
                    });
                    (s.calendar_tasks(), changed, s.version())
                })
                .await
                .map_err(|_| DavError::NotFound)?;
            let changed = changed.ok_or(DavError::InvalidSyncToken)?;
            let members = Members {
                tasks,
                list: members.list,
            };
            (members, changed, version)
        }
    };
    Ok(multi_status(owner, move |mut answer| {
        let mut shown: Vec<&Record> = match since {
            None => members.iter().collect(),
            Some(_) => changed.iter().map(|t| &**t).collect(),
        };
        let mut version = version;
        let mut truncated = None;
        if let Some(limit) = limit.filter(|&n| shown.len() > n) {
            // The changes in version order, cut after the limit: the token is the version
            // of the last one answered, so the next sync starts right after it.
            shown.sort_by_key(|t| t.version);
            shown.truncate(limit);
            version = shown.last().map_or(since.unwrap_or(0), |t| t.version);
            truncated = Some(calendar.path.as_str());
        }
        for task in shown {
            let href = format!("{}{}", calendar.path, object_name(task));
            let found = members
                .contains(task)
                .then(|| asked.answer(|p| object_prop(task, members.records(), p)));
            answer.response(&href, found.as_ref())?;
        }
        answer.finish(truncated, Some(&sync_token(version)))
    })
    .await)
}
