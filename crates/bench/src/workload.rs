//! What a bench sends: the operations, the named workloads as weighted mixes of them, the
//! request each operation makes, and the check of each answer.
//!
//! An answer counts as an error unless its status is the one the operation expects and,
//! where the body carries `spaceVersion`, the version is consistent with the writes
//! already answered in that space: a write's version must be above every version answered
//! to a write before it was sent (each write is a new version), and a read's at least that
//! high (a read sees the writes answered before it). A server that answers fast but wrong
//! so shows errors, not throughput.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// The records a page asks for.
pub const PAGE_LIMIT: u32 = 50;
/// The changes one poll of the feed asks for.
pub const FEED_LIMIT: u32 = 100;

/// One kind of request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `GET /api/v1/tasks/{id}` of a prefilled task.
    Get,
    /// `PATCH /api/v1/tasks/{id}` of a prefilled task, flipping its status.
    Patch,
    /// `POST /api/v1/tasks`: a new task.
    Post,
    /// `GET /api/v1/tasks?status=open&limit=50`, following `nextCursor` to the end and
    /// then starting over.
    Page,
    /// `GET /api/v1/changes?since=N&limit=100`, polling from the last `nextSince`.
    Changes,
}

impl Op {
    /// Every operation, in table order.
    pub const ALL: [Op; 5] = [Op::Get, Op::Patch, Op::Post, Op::Page, Op::Changes];

    /// Its name in `--mix`, the table and the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::Patch => "patch",
            Op::Post => "post",
            Op::Page => "page",
            Op::Changes => "changes",
        }
    }

    /// Whether it writes (a new version per answer).
    pub fn writes(self) -> bool {
        matches!(self, Op::Patch | Op::Post)
    }

    /// Whether it needs prefilled tasks to work on.
    pub fn needs_tasks(self) -> bool {
        matches!(self, Op::Get | Op::Patch)
    }

    /// The status a right answer has.
    fn expected_status(self) -> u16 {
        match self {
            Op::Post => 201,
            _ => 200,
        }
    }

    /// Its position in [`Op::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The named workloads of `--workload`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// Item GETs: get=100.
    Read,
    /// New tasks: post=100.
    Write,
    /// An app's day: get=70,patch=20,post=10.
    Mixed,
    /// Collection pages with a filter: page=100.
    Page,
    /// Sync clients: changes=50,post=40,patch=10, with a change stream held open per space.
    Sync,
}

impl Workload {
    /// The mix it stands for.
    pub fn mix(self) -> Mix {
        let text = match self {
            Workload::Read => "get=100",
            Workload::Write => "post=100",
            Workload::Mixed => "get=70,patch=20,post=10",
            Workload::Page => "page=100",
            Workload::Sync => "changes=50,post=40,patch=10",
        };
        text.parse().expect("the named mixes parse")
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Read => "read",
            Workload::Write => "write",
            Workload::Mixed => "mixed",
            Workload::Page => "page",
            Workload::Sync => "sync",
        }
    }
}

/// Operations with weights, as `get=70,patch=20,post=10`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix {
    weights: Vec<(Op, u32)>,
}

impl Mix {
    /// The operations with a weight above 0.
    pub fn ops(&self) -> impl Iterator<Item = Op> + '_ {
        self.weights.iter().map(|(op, _)| *op)
    }

    /// A deck of operations holding each as often as its weight (weights divided by their
    /// greatest common divisor first), shuffled: connection `c` deals from position `c`
    /// on, so every connection keeps the exact proportions without a random draw per
    /// request.
    pub fn deck(&self) -> Vec<Op> {
        let divisor = self.weights.iter().fold(0, |g, (_, w)| gcd(g, *w)).max(1);
        let mut deck: Vec<Op> = self
            .weights
            .iter()
            .flat_map(|(op, w)| std::iter::repeat_n(*op, (w / divisor) as usize))
            .collect();
        deck.shuffle(&mut rand::thread_rng());
        deck
    }
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl fmt::Display for Mix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .weights
            .iter()
            .map(|(op, w)| format!("{}={w}", op.name()))
            .collect();
        write!(f, "{}", parts.join(","))
    }
}

impl FromStr for Mix {
    type Err = String;

    /// `OP=WEIGHT[,OP=WEIGHT...]`, OP one of get, patch, post, page, changes; weights are
    /// relative (they need not add up to 100).
    fn from_str(text: &str) -> Result<Mix, String> {
        let mut weights: Vec<(Op, u32)> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, weight) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}': expected OP=WEIGHT, e.g. get=70"))?;
            let op = Op::ALL
                .into_iter()
                .find(|op| op.name() == name.trim())
                .ok_or_else(|| {
                    format!("'{name}': the operations are get, patch, post, page and changes")
                })?;
            let weight: u32 = weight
                .trim()
                .parse()
                .ok()
                .filter(|w| *w <= 1000)
                .ok_or_else(|| format!("'{part}': a weight is a whole number 0 to 1000"))?;
            if weights.iter().any(|(o, _)| *o == op) {
                return Err(format!("'{name}' is given twice"));
            }
            if weight > 0 {
                weights.push((op, weight));
            }
        }
        if weights.is_empty() {
            return Err("the mix has no operation with a weight above 0".into());
        }
        weights.sort();
        Ok(Mix { weights })
    }
}

/// One space the bench works in, shared by the connections.
pub struct Space {
    /// The token that reaches it (its user's).
    pub token: String,
    /// Its index in the run, part of its task ids.
    pub index: usize,
    /// The tasks prefilled in it: ids `{prefix}-{index}-{0..tasks}`.
    pub tasks: u64,
    /// The highest version answered to a write (or read at setup).
    pub version: AtomicU64,
}

/// The ids of a run's tasks, unique per run so runs against the same server never collide.
#[derive(Debug, Clone)]
pub struct Ids {
    /// A random prefix for this run.
    pub prefix: String,
}

impl Ids {
    /// A new random prefix.
    pub fn new() -> Ids {
        Ids {
            prefix: format!("b{:08x}", rand::random::<u32>()),
        }
    }

    /// The id of prefilled task `n` of space `space`.
    pub fn prefilled(&self, space: usize, n: u64) -> String {
        format!("{}-{space}-{n}", self.prefix)
    }
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::new()
    }
}

/// A request ready to send, and what its answer is checked against.
pub struct Request {
    /// `GET`, `POST` or `PATCH`.
    pub method: &'static str,
    /// The path and query below the URL.
    pub path: String,
    /// The JSON body of a write.
    pub body: Option<Vec<u8>>,
    /// The space's write version when the request was made.
    pub floor: u64,
}

/// Why an answer counts as an error.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Failure {
    /// The status (0 when no answer came).
    pub status: u16,
    /// The problem+json `code`, or the bench's own name of what was wrong.
    pub code: String,
}

/// What one connection knows per space: where its page walk and its feed poll are.
#[derive(Default, Clone)]
pub struct Cursors {
    page: Option<String>,
    since: u64,
}

impl Cursors {
    /// A connection's start in a space whose version is `since`: first page, feed from
    /// there.
    pub fn at(since: u64) -> Cursors {
        Cursors { page: None, since }
    }
}

/// Builds the requests of one connection.
pub struct Maker {
    ids: Ids,
    connection: usize,
    page_query: Option<Arc<str>>,
    posts: u64,
    patches: u64,
}

impl Maker {
    /// The maker of connection `connection`; with `page_query`, its pages are each the
    /// first page of that query.
    pub fn new(ids: Ids, connection: usize, page_query: Option<Arc<str>>) -> Maker {
        Maker {
            ids,
            connection,
            page_query,
            posts: 0,
            patches: 0,
        }
    }

    /// The next request of `op` in `space`; `n` picks the task of a GET or PATCH.
    pub fn make(&mut self, op: Op, space: &Space, cursors: &Cursors, n: u64) -> Request {
        let floor = space.version.load(Ordering::Acquire);
        let (method, path, body) = match op {
            Op::Get => (
                "GET",
                format!(
                    "/api/v1/tasks/{}",
                    self.ids.prefilled(space.index, n % space.tasks)
                ),
                None,
            ),
            Op::Patch => {
                self.patches += 1;
                let status = if self.patches.is_multiple_of(2) {
                    "open"
                } else {
                    "done"
                };
                (
                    "PATCH",
                    format!(
                        "/api/v1/tasks/{}",
                        self.ids.prefilled(space.index, n % space.tasks)
                    ),
                    Some(format!(r#"{{"status":"{status}"}}"#).into_bytes()),
                )
            }
            Op::Post => {
                self.posts += 1;
                let id = format!("{}-c{}-{}", self.ids.prefix, self.connection, self.posts);
                (
                    "POST",
                    "/api/v1/tasks".to_string(),
                    Some(task_body(&id).into_bytes()),
                )
            }
            Op::Page => match &self.page_query {
                Some(query) => ("GET", format!("/api/v1/tasks?{query}"), None),
                None => {
                    let mut path = format!("/api/v1/tasks?status=open&limit={PAGE_LIMIT}");
                    if let Some(cursor) = &cursors.page {
                        path.push_str("&cursor=");
                        path.push_str(cursor);
                    }
                    ("GET", path, None)
                }
            },
            Op::Changes => (
                "GET",
                format!("/api/v1/changes?since={}&limit={FEED_LIMIT}", cursors.since),
                None,
            ),
        };
        Request {
            method,
            path,
            body,
            floor,
        }
    }
}

/// The body of a new task `id`: open, so pages filtered on `status=open` find it.
pub fn task_body(id: &str) -> String {
    format!(r#"{{"todoId":"{id}","name":"bench task {id}","status":"open"}}"#)
}

/// Checks the answer `status`/`body` to `request` of `op` in `space`, and moves the
/// connection's `cursors` on.
pub fn check(
    op: Op,
    request: &Request,
    status: u16,
    body: &[u8],
    space: &Space,
    cursors: &mut Cursors,
) -> Result<(), Failure> {
    if status != op.expected_status() {
        return Err(Failure {
            status,
            code: problem_code(body),
        });
    }
    let fail = |code: &str| Failure {
        status,
        code: code.to_string(),
    };
    let version =
        number_after(body, b"\"spaceVersion\":").ok_or_else(|| fail("bench_no_version"))?;
    if op.writes() {
        if version <= request.floor {
            return Err(fail("bench_version_not_increasing"));
        }
        space.version.fetch_max(version, Ordering::AcqRel);
    } else if version < request.floor {
        return Err(fail("bench_stale_version"));
    }
    match op {
        Op::Page => {
            cursors.page = string_after(body, b"\"nextCursor\":\"").map(str::to_string);
        }
        Op::Changes => {
            let next =
                number_after(body, b"\"nextSince\":").ok_or_else(|| fail("bench_no_next_since"))?;
            if next < cursors.since || next > version {
                return Err(fail("bench_bad_next_since"));
            }
            cursors.since = next;
        }
        _ => {}
    }
    Ok(())
}

/// The `code` of a problem+json body, else `-`.
pub fn problem_code(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Problem {
        code: String,
    }
    serde_json::from_slice::<Problem>(body).map_or_else(|_| "-".to_string(), |p| p.code)
}

/// The number after the last `key` in `body`. The envelope's own fields come after the
/// records in every answer taskd gives, so the last occurrence is the envelope's even when
/// a record's text holds the key.
pub fn number_after(body: &[u8], key: &[u8]) -> Option<u64> {
    let at = rfind(body, key)? + key.len();
    let digits = body[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&body[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

/// The string after the last `key` (which ends with the opening quote) in `body`; cursors
/// are base64url, so they hold no escapes.
fn string_after<'a>(body: &'a [u8], key: &[u8]) -> Option<&'a str> {
    let at = rfind(body, key)? + key.len();
    let len = body[at..].iter().position(|b| *b == b'"')?;
    std::str::from_utf8(&body[at..at + len]).ok()
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mix_reads_operations_with_relative_weights() {
        let mix: Mix = "post=10, get=70,patch=20".parse().unwrap();
        assert_eq!(mix.to_string(), "get=70,patch=20,post=10");
        let deck = mix.deck();
        assert_eq!(deck.len(), 10);
        assert_eq!(deck.iter().filter(|op| **op == Op::Get).count(), 7);
        assert_eq!(
            "page=1,changes=0".parse::<Mix>().unwrap().deck(),
            [Op::Page]
        );
        for bad in [
            "",
            "get",
            "get=x",
            "put=1",
            "get=1,get=2",
            "get=0",
            "get=1001",
        ] {
            assert!(bad.parse::<Mix>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn the_envelope_fields_are_read_from_the_end_of_the_body() {
        let body =
            br#"{"data":{"name":"\"spaceVersion\":9"},"spaceVersion":12,"nextCursor":"abc_-"}"#;
        assert_eq!(number_after(body, b"\"spaceVersion\":"), Some(12));
        assert_eq!(string_after(body, b"\"nextCursor\":\""), Some("abc_-"));
        assert_eq!(
            string_after(br#"{"nextCursor":null}"#, b"\"nextCursor\":\""),
            None
        );
        assert_eq!(
            problem_code(br#"{"code":"not_found","status":404}"#),
            "not_found"
        );
        assert_eq!(problem_code(b"<html>"), "-");
    }

    #[test]
    fn a_write_must_answer_a_version_above_every_write_answered_before_it_was_sent() {
        let space = Space {
            token: String::new(),
            index: 0,
            tasks: 1,
            version: AtomicU64::new(5),
        };
        let mut maker = Maker::new(Ids::new(), 0, None);
        let mut cursors = Cursors::default();
        let post = maker.make(Op::Post, &space, &cursors, 0);
        let answer = |v: u64| format!(r#"{{"data":{{}},"spaceVersion":{v}}}"#).into_bytes();
        let stale = check(Op::Post, &post, 201, &answer(5), &space, &mut cursors);
        assert_eq!(stale.unwrap_err().code, "bench_version_not_increasing");
        check(Op::Post, &post, 201, &answer(6), &space, &mut cursors).unwrap();
        let get = maker.make(Op::Get, &space, &cursors, 0);
        assert_eq!(get.floor, 6);
        let old = check(Op::Get, &get, 200, &answer(5), &space, &mut cursors);
        assert_eq!(old.unwrap_err().code, "bench_stale_version");
        let missing = check(
            Op::Get,
            &get,
            404,
            br#"{"code":"not_found"}"#,
            &space,
            &mut cursors,
        );
        assert_eq!(
            missing.unwrap_err(),
            Failure {
                status: 404,
                code: "not_found".into()
            }
        );
    }
}
