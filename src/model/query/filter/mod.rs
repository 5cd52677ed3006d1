//! The `filter=` language of docs §17: parsed with `winnow`, checked against the task
//! fields, and evaluated on records.
//!
//! ```text
//! expr       := or
//! or         := and ( "||" and )*
//! and        := unary ( "&&" unary )*
//! unary      := "!" unary | "(" expr ")" | comparison
//! comparison := FIELD OP value | FIELD ["not"] "in" "(" value ("," value)* ")" | FIELD "has" value
//! OP         := "=" | "!=" | "<" | "<=" | ">" | ">=" | "~"
//! value      := STRING | NUMBER | "true" | "false" | "null" | DATE | DATETIME | RELATIVE
//! ```
//!
//! Parsing binds every literal: `now` and `today` are read against the `now` the caller gives
//! (a walk's first page fixes it and its cursor carries it), dates against the query's time
//! zone, and comparisons of `spaceId` (the same for every task of a space) are settled then.
//! The grammar is LL(1): each rule commits once it has seen its first token, so the first
//! error found is the one reported, at the token where it was found.
//!
//! Tokens: whitespace (space, tab, CR, LF) is free between them. FIELD and the keywords are
//! runs of ASCII letters, digits and `_` that start with a letter; an amount with its unit
//! (`7d`) is one token; a DATETIME has no whitespace inside.
//!
//! This file holds the parsed filter and its evaluation; `grammar` the parser's rules.

use std::cmp::Ordering;
use std::ops::Bound;

use winnow::error::ErrMode;
use winnow::LocatingSlice;

use chrono_tz::Tz;

use crate::model::limits::{thousands, FILTER_MAX_CHARS};
use crate::model::query::{Scalar, TaskField, Type};
use crate::model::record::Record;
use crate::model::wall_clock;

mod grammar;
#[cfg(test)]
mod tests;

use grammar::{whole, In, State, Syntax};

/// A filter the listing refuses (`400 invalid_filter`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail} (at character {position})")]
pub struct FilterError {
    /// What is wrong, for the problem's `detail`.
    pub detail: String,
    /// The 0-based offset, in Unicode code points, of the first character of the token
    /// where the error was found: for a type misfit the value's token, at the end of the
    /// input the filter's length.
    pub position: usize,
}

/// What a filter's literals are read against; the same for every page of a walk.
#[derive(Debug, Clone, Copy)]
pub struct FilterContext<'a> {
    /// The space listed: the value of `spaceId` for every task.
    pub space_id: &'a str,
    /// The query's time zone (`tz`), for `today`, dates and calendar days.
    pub tz: Tz,
    /// `now`, in milliseconds since the Unix epoch.
    pub now_ms: i64,
}

/// A literal of a filter, bound: dates and relative times are instants.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A JSON number.
    Number(f64),
    /// A JSON string, decoded.
    Text(Box<str>),
    /// A DATE, DATETIME or RELATIVE, in milliseconds since the Unix epoch (a DATETIME with
    /// more precision is cut to milliseconds, as stored date-times are).
    Time(i64),
}

impl Literal {
    fn ty(&self) -> Option<Type> {
        match self {
            Literal::Null => None,
            Literal::Bool(_) => Some(Type::Bool),
            Literal::Number(_) => Some(Type::Number),
            Literal::Text(_) => Some(Type::Text),
            Literal::Time(_) => Some(Type::Time),
        }
    }

    fn noun(&self) -> &'static str {
        self.ty().map_or("null", Type::noun)
    }

    /// Whether `value` equals the literal; `null` equals only a null value.
    fn equals(&self, value: Scalar<'_>) -> bool {
        match (self, value) {
            (Literal::Null, Scalar::Null) => true,
            (Literal::Bool(a), Scalar::Bool(b)) => *a == b,
            (Literal::Number(a), Scalar::Number(b)) => *a == b,
            (Literal::Text(a), Scalar::Text(b)) => **a == *b,
            (Literal::Time(a), Scalar::Time(b)) => *a == b,
            _ => false,
        }
    }

    /// How `value` compares with the literal; `None` for null and for values of another
    /// type. Strings compare by code points (UTF-8 byte order is code point order).
    fn order_of(&self, value: Scalar<'_>) -> Option<Ordering> {
        match (value, self) {
            (Scalar::Number(v), Literal::Number(l)) => v.partial_cmp(l),
            (Scalar::Text(v), Literal::Text(l)) => Some((*v).cmp(&**l)),
            (Scalar::Time(v), Literal::Time(l)) => Some(v.cmp(l)),
            _ => None,
        }
    }
}

/// The unit of a RELATIVE literal's amount: `m` and `h` are elapsed time, `d` and `w`
/// calendar days and weeks in the query's time zone (same wall time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `m`.
    Minute,
    /// `h`.
    Hour,
    /// `d`.
    Day,
    /// `w`.
    Week,
}

/// A RELATIVE literal as written, before it is bound: `now` or `today` (00:00 of the
/// current day in the query's zone), shifted by `amount` of `unit` (`now-90m`: `now`,
/// -90, minutes). A live view reads it again as the clock moves (docs §24).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relative {
    /// `today` rather than `now`.
    pub today: bool,
    /// The signed amount (0 for a bare `now` or `today`).
    pub amount: i64,
    /// The amount's unit.
    pub unit: Unit,
}

impl Relative {
    /// The instant the literal stands for when the clock reads `now` in `tz`; `None`
    /// beyond what the calendar represents.
    pub fn at(&self, tz: Tz, now: i64) -> Option<i64> {
        let base = if self.today {
            wall_clock::day_of(tz, now)?
        } else {
            now
        };
        self.shift(tz, base, self.amount)
    }

    /// `base` moved by `amount` of the literal's unit.
    fn shift(&self, tz: Tz, base: i64, amount: i64) -> Option<i64> {
        match self.unit {
            Unit::Minute => base.checked_add(amount.checked_mul(60_000)?),
            Unit::Hour => base.checked_add(amount.checked_mul(3_600_000)?),
            Unit::Day => wall_clock::add_days(tz, base, amount),
            Unit::Week => wall_clock::add_days(tz, base, amount.checked_mul(7)?),
        }
    }

    /// The instants at which the literal, read as the clock moves, reaches `value` and
    /// passes it: a comparison of a field holding `value` with the literal can change
    /// only there (`<`, `<=`, `>`, `>=` and `=` all turn at one or the other). As `now`
    /// grows the literal never goes back, so these are its only two crossings.
    pub fn crossings(&self, tz: Tz, value: i64) -> [Option<i64>; 2] {
        // The value the base must reach: the literal's shift taken back off `value`.
        let Some(base) = self.shift(tz, value, -self.amount) else {
            return [None, None];
        };
        if self.today {
            // `today` steps at each midnight: the first whose day reaches the base, and
            // the first past it.
            [
                midnight_from(tz, base),
                base.checked_add(1).and_then(|b| midnight_from(tz, b)),
            ]
        } else {
            [Some(base), base.checked_add(1)]
        }
    }
}

/// The first midnight in `tz` at or after `at`.
fn midnight_from(tz: Tz, at: i64) -> Option<i64> {
    let day = wall_clock::day_of(tz, at)?;
    if day >= at {
        Some(day)
    } else {
        wall_clock::add_days(tz, day, 1)
    }
}

/// A conjunct of a filter's top-level AND that bounds one field: every task the filter
/// matches satisfies it, so a planner may draw candidates from an index of that field (and
/// still test each with [`Filter::matches`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Constraint<'f> {
    /// The field equals one of the values (`=` or `in`); [`Literal::Null`] (only from
    /// `= null`) stands for a null field.
    OneOf(TaskField, &'f [Literal]),
    /// The field is within the bounds (`<`, `<=`, `>`, `>=`); a null field never is.
    Range(TaskField, Bound<&'f Literal>, Bound<&'f Literal>),
    /// The array field holds the id (`has`).
    Has(TaskField, &'f str),
}

/// A parsed and bound filter; the default (an empty `filter=`) matches every task.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filter {
    root: Option<Node>,
    /// The comparisons of a task field with a RELATIVE literal, as written.
    clock: Vec<(TaskField, Relative)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// Settled when parsed (a comparison of `spaceId`).
    Const(bool),
    Test(TaskField, Test),
    Not(Box<Node>),
    And(Vec<Node>),
    Or(Vec<Node>),
}

/// The positive comparisons; `!=` and `not in` are the negation of `=` and `in`.
#[derive(Debug, Clone, PartialEq)]
enum Test {
    /// `=` (one value) or `in`.
    OneOf(Vec<Literal>),
    Compare(Cmp, Literal),
    /// `~`, with the needle lowercased.
    Contains(String),
    Has(Box<str>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Test {
    fn holds(&self, value: Scalar<'_>) -> bool {
        match self {
            Test::OneOf(values) => values.iter().any(|l| l.equals(value)),
            Test::Compare(cmp, literal) => literal.order_of(value).is_some_and(|o| match cmp {
                Cmp::Lt => o.is_lt(),
                Cmp::Le => o.is_le(),
                Cmp::Gt => o.is_gt(),
                Cmp::Ge => o.is_ge(),
            }),
            Test::Contains(needle) => {
                matches!(value, Scalar::Text(s) if s.to_lowercase().contains(needle.as_str()))
            }
            Test::Has(id) => matches!(value, Scalar::Ids(ids) if ids.iter().any(|i| i == id)),
        }
    }

    fn constraint(&self, field: TaskField) -> Option<Constraint<'_>> {
        use Bound::{Excluded, Included, Unbounded};
        Some(match self {
            Test::OneOf(values) => Constraint::OneOf(field, values),
            Test::Compare(cmp, l) => match cmp {
                Cmp::Lt => Constraint::Range(field, Unbounded, Excluded(l)),
                Cmp::Le => Constraint::Range(field, Unbounded, Included(l)),
                Cmp::Gt => Constraint::Range(field, Excluded(l), Unbounded),
                Cmp::Ge => Constraint::Range(field, Included(l), Unbounded),
            },
            Test::Has(id) => Constraint::Has(field, id),
            Test::Contains(_) => return None,
        })
    }
}

impl Node {
    fn eval(&self, task: &Record) -> bool {
        match self {
            Node::Const(b) => *b,
            Node::Test(field, test) => test.holds(field.value(task)),
            Node::Not(inner) => !inner.eval(task),
            Node::And(nodes) => nodes.iter().all(|n| n.eval(task)),
            Node::Or(nodes) => nodes.iter().any(|n| n.eval(task)),
        }
    }

    fn collect<'f>(&'f self, out: &mut Vec<Constraint<'f>>) {
        match self {
            Node::And(nodes) => nodes.iter().for_each(|n| n.collect(out)),
            Node::Test(field, test) => out.extend(test.constraint(*field)),
            Node::Const(_) | Node::Not(_) | Node::Or(_) => {}
        }
    }
}

impl Filter {
    /// Parses `text`, the decoded value of `filter=`, binding its literals to `context`.
    /// An empty text is the filter that matches every task.
    pub fn parse(text: &str, context: FilterContext<'_>) -> Result<Filter, FilterError> {
        if text.is_empty() {
            return Ok(Filter::default());
        }
        if text.chars().nth(FILTER_MAX_CHARS).is_some() {
            return Err(FilterError {
                detail: format!(
                    "a filter has at most {} characters",
                    thousands(FILTER_MAX_CHARS)
                ),
                position: FILTER_MAX_CHARS,
            });
        }
        let mut input = In {
            input: LocatingSlice::new(text),
            state: State {
                context,
                comparisons: 0,
                relatives: Vec::new(),
                clock: Vec::new(),
            },
        };
        let root = whole(&mut input).map_err(|e| {
            let e = match e {
                ErrMode::Backtrack(e) | ErrMode::Cut(e) => e,
                ErrMode::Incomplete(_) => Syntax {
                    at: text.len(),
                    detail: String::new(),
                },
            };
            FilterError {
                detail: if e.detail.is_empty() {
                    "syntax error".into()
                } else {
                    e.detail
                },
                position: text.get(..e.at).map_or(0, |t| t.chars().count()),
            }
        })?;
        Ok(Filter {
            root: Some(root),
            clock: input.state.clock,
        })
    }

    /// Whether `task` (a record of the task kind) passes the filter.
    pub fn matches(&self, task: &Record) -> bool {
        self.root.as_ref().is_none_or(|n| n.eval(task))
    }

    /// Every comparison of a task field with `now` or `today`, shifted or not, in the
    /// order written: where the clock alone can change what the filter matches (a live
    /// view's boundaries, docs §24). Empty for a filter that names neither.
    pub fn clock(&self) -> &[(TaskField, Relative)] {
        &self.clock
    }

    /// The conjuncts of the top-level AND (through parentheses) that bound one field, in
    /// the order they are written; none for a filter whose top is `||` or `!`.
    pub fn constraints(&self) -> Vec<Constraint<'_>> {
        let mut out = Vec::new();
        if let Some(root) = &self.root {
            root.collect(&mut out);
        }
        out
    }
}
