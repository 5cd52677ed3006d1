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

use std::cmp::Ordering;
use std::ops::Bound;

use chrono::{DateTime, NaiveDate};
use winnow::ascii::{digit0, digit1, multispace0};
use winnow::combinator::{alt, not, opt, peek, repeat, separated};
use winnow::error::{ErrMode, ModalResult, ParserError};
use winnow::stream::{Location, Stateful, Stream};
use winnow::token::{any, none_of, one_of, take_while};
use winnow::{LocatingSlice, Parser};

use chrono_tz::Tz;

use super::super::limits::{thousands, FILTER_MAX_CHARS, FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH};
use super::super::record::Record;
use super::{Scalar, TaskField, Type};
use crate::model::wall_clock;

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
        Ok(Filter { root: Some(root) })
    }

    /// Whether `task` (a record of the task kind) passes the filter.
    pub fn matches(&self, task: &Record) -> bool {
        self.root.as_ref().is_none_or(|n| n.eval(task))
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

// ---- the grammar -------------------------------------------------------------------------

/// What a parse carries beside the text.
#[derive(Debug)]
struct State<'a> {
    context: FilterContext<'a>,
    comparisons: usize,
}

type In<'a> = Stateful<LocatingSlice<&'a str>, State<'a>>;

/// A parse error at a byte offset of the text.
#[derive(Debug)]
struct Syntax {
    at: usize,
    /// Empty for winnow's own errors, which the rules replace before they escape.
    detail: String,
}

impl ParserError<In<'_>> for Syntax {
    type Inner = Self;

    fn from_input(input: &In<'_>) -> Self {
        Syntax {
            at: input.current_token_start(),
            detail: String::new(),
        }
    }

    fn into_inner(self) -> Result<Self, Self> {
        Ok(self)
    }
}

type Parsed<O> = ModalResult<O, Syntax>;

/// The error reported: at byte `at`, final (no rule backtracks past it).
fn fail<O>(at: usize, detail: impl Into<String>) -> Parsed<O> {
    Err(ErrMode::Cut(Syntax {
        at,
        detail: detail.into(),
    }))
}

/// Skips whitespace; the byte offset where the next token starts.
fn token_start(input: &mut In<'_>) -> usize {
    // `multispace0` cannot fail.
    let _: Parsed<&str> = multispace0.parse_next(input);
    input.current_token_start()
}

/// How an error names what it found at the current token.
fn found(input: &In<'_>) -> String {
    let rest: &str = input;
    let mut chars = rest.chars();
    match chars.next() {
        None => "the end of the filter".into(),
        Some(first) => {
            let more = chars.take_while(|c| !c.is_whitespace()).take(19);
            format!(
                "`{}`",
                std::iter::once(first).chain(more).collect::<String>()
            )
        }
    }
}

/// The next token read by `lexeme`, with its start; if `lexeme` does not read it, the error
/// is at its start and says `expected`.
fn expect<'a, O>(
    input: &mut In<'a>,
    expected: &str,
    mut lexeme: impl Parser<In<'a>, O, ErrMode<Syntax>>,
) -> Parsed<(usize, O)> {
    let at = token_start(input);
    let start = input.checkpoint();
    match lexeme.parse_next(input) {
        Ok(o) => Ok((at, o)),
        Err(ErrMode::Cut(e)) => Err(ErrMode::Cut(e)),
        Err(_) => {
            input.reset(&start);
            fail(at, format!("expected {expected}, found {}", found(input)))
        }
    }
}

/// A word: an ASCII letter, then ASCII letters, digits and `_`.
fn word<'a>(input: &mut In<'a>) -> Parsed<&'a str> {
    (
        one_of(|c: char| c.is_ascii_alphabetic()),
        take_while(0.., |c: char| c.is_ascii_alphanumeric() || c == '_'),
    )
        .take()
        .parse_next(input)
}

/// The keyword `k`, not followed by more word characters.
fn keyword<'a>(k: &'static str) -> impl Parser<In<'a>, &'a str, ErrMode<Syntax>> {
    word.verify(move |w: &str| w == k)
}

/// The filter and nothing after it.
fn whole(input: &mut In<'_>) -> Parsed<Node> {
    let root = or(input, 0)?;
    let at = token_start(input);
    if !input.is_empty() {
        return fail(
            at,
            format!(
                "expected `&&`, `||` or the end of the filter, found {}",
                found(input)
            ),
        );
    }
    Ok(root)
}

/// `and ( "||" and )*`, inside `depth` levels of nesting.
fn or(input: &mut In<'_>, depth: usize) -> Parsed<Node> {
    let mut terms: Vec<Node> =
        separated(1.., |i: &mut In<'_>| and(i, depth), (multispace0, "||")).parse_next(input)?;
    Ok(if terms.len() == 1 {
        terms.remove(0)
    } else {
        Node::Or(terms)
    })
}

/// `unary ( "&&" unary )*`.
fn and(input: &mut In<'_>, depth: usize) -> Parsed<Node> {
    let mut terms: Vec<Node> =
        separated(1.., |i: &mut In<'_>| unary(i, depth), (multispace0, "&&")).parse_next(input)?;
    Ok(if terms.len() == 1 {
        terms.remove(0)
    } else {
        Node::And(terms)
    })
}

/// `"!" unary | "(" expr ")" | comparison`; each `!` and `(` is one level deeper.
fn unary(input: &mut In<'_>, depth: usize) -> Parsed<Node> {
    let at = token_start(input);
    let opener = opt(alt(('!', '('))).parse_next(input)?;
    let Some(opener) = opener else {
        return comparison(input);
    };
    if depth == FILTER_MAX_DEPTH {
        return fail(
            at,
            format!("a filter nests at most {FILTER_MAX_DEPTH} levels (each `(` and `!` is one)"),
        );
    }
    if opener == '!' {
        return Ok(Node::Not(Box::new(unary(input, depth + 1)?)));
    }
    let inner = or(input, depth + 1)?;
    expect(input, "`&&`, `||` or `)`", ')')?;
    Ok(inner)
}

/// An operator as written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Cmp(Cmp),
    Tilde,
    In,
    NotIn,
    Has,
}

fn operator(input: &mut In<'_>) -> Parsed<Op> {
    alt((
        "!=".value(Op::Ne),
        "<=".value(Op::Cmp(Cmp::Le)),
        ">=".value(Op::Cmp(Cmp::Ge)),
        "=".value(Op::Eq),
        "<".value(Op::Cmp(Cmp::Lt)),
        ">".value(Op::Cmp(Cmp::Gt)),
        "~".value(Op::Tilde),
        keyword("in").value(Op::In),
        keyword("has").value(Op::Has),
        keyword("not").value(Op::NotIn),
    ))
    .parse_next(input)
}

/// What a comparison names: a task field, or `spaceId`.
#[derive(Debug, Clone, Copy)]
enum Subject {
    Task(TaskField),
    Space,
}

/// `FIELD OP value | FIELD ["not"] "in" "(" value ("," value)* ")" | FIELD "has" value`.
fn comparison(input: &mut In<'_>) -> Parsed<Node> {
    let (at, name) = expect(input, "a field name, `(` or `!`", word)?;
    input.state.comparisons += 1;
    if input.state.comparisons > FILTER_MAX_COMPARISONS {
        return fail(
            at,
            format!("a filter has at most {FILTER_MAX_COMPARISONS} comparisons"),
        );
    }
    let subject = match (name, TaskField::by_name(name)) {
        (_, Some(field)) => Subject::Task(field),
        ("spaceId", None) => Subject::Space,
        (_, None) => return fail(at, format!("unknown field `{name}`")),
    };
    let ty = match subject {
        Subject::Task(field) => field.ty(),
        Subject::Space => Type::Text,
    };
    let (_, op) = expect(
        input,
        "an operator (=, !=, <, <=, >, >=, ~, in, not in or has)",
        operator,
    )?;
    if op == Op::NotIn {
        expect(input, "`in` after `not`", keyword("in"))?;
    }
    let mut checked = |input: &mut In<'_>| -> Parsed<(usize, Literal)> {
        let (at, literal) = value(input)?;
        match misfit(ty, name, op, &literal) {
            Some(detail) => fail(at, detail),
            None => Ok((at, literal)),
        }
    };
    let (test, negated) = match op {
        Op::In | Op::NotIn => {
            expect(input, "`(`", '(')?;
            let values: Vec<Literal> =
                separated(1.., checked.by_ref().map(|(_, l)| l), (multispace0, ','))
                    .parse_next(input)?;
            expect(input, "`,` or `)`", ')')?;
            (Test::OneOf(values), op == Op::NotIn)
        }
        Op::Eq | Op::Ne => (Test::OneOf(vec![checked(input)?.1]), op == Op::Ne),
        Op::Cmp(cmp) => (Test::Compare(cmp, checked(input)?.1), false),
        // `misfit` lets only strings through `~` and `has`.
        Op::Tilde | Op::Has => match (op, checked(input)?) {
            (Op::Tilde, (_, Literal::Text(needle))) => {
                (Test::Contains(needle.to_lowercase()), false)
            }
            (_, (_, Literal::Text(id))) => (Test::Has(id), false),
            (_, (at, _)) => return fail(at, "expected a string"),
        },
    };
    let node = match subject {
        Subject::Task(field) => Node::Test(field, test),
        Subject::Space => Node::Const(test.holds(Scalar::Text(input.state.context.space_id))),
    };
    Ok(match (negated, node) {
        (false, node) => node,
        (true, Node::Const(b)) => Node::Const(!b),
        (true, node) => Node::Not(Box::new(node)),
    })
}

/// Why `literal` cannot stand after `op` against a field of type `ty`, if it cannot.
fn misfit(ty: Type, field: &str, op: Op, literal: &Literal) -> Option<String> {
    let noun = literal.noun();
    let text = matches!(literal, Literal::Text(_));
    if *literal == Literal::Null && !matches!(op, Op::Eq | Op::Ne) {
        return Some("null is compared with = and != only".into());
    }
    Some(match op {
        _ if ty == Type::Objects => {
            format!("`{field}` holds an array of objects, which no comparison tests")
        }
        _ if ty == Type::Ids && op != Op::Has => {
            format!("`{field}` is an array: it is compared with `has` only")
        }
        Op::Has if ty != Type::Ids => {
            format!("`has` tests an array field; `{field}` holds {}", ty.noun())
        }
        Op::Has if !text => format!("`has` takes an id string, not {noun}"),
        Op::Tilde if ty != Type::Text => {
            format!("`~` tests strings only; `{field}` holds {}", ty.noun())
        }
        Op::Tilde if !text => format!("`~` takes a string, not {noun}"),
        Op::Has => return None,
        Op::Cmp(_) if ty == Type::Bool => {
            format!("`{field}` is a boolean: it is compared with = and != only")
        }
        _ if literal.ty().is_some_and(|t| t != ty) => format!(
            "`{field}` holds {}, which cannot be compared with {noun}",
            ty.noun()
        ),
        _ => return None,
    })
}

/// A value and where its token starts.
fn value(input: &mut In<'_>) -> Parsed<(usize, Literal)> {
    let at = token_start(input);
    let first = peek(opt(any)).parse_next(input)?;
    match first {
        Some('"') => string(input, at),
        Some(c) if c == '-' || c.is_ascii_digit() => number_or_time(input, at),
        Some(c) if c.is_ascii_alphabetic() => named(input, at),
        _ => fail(at, format!("expected a value, found {}", found(input))),
    }
    .map(|literal| (at, literal))
}

/// STRING: a JSON string literal, decoded by serde_json.
fn string(input: &mut In<'_>, at: usize) -> Parsed<Literal> {
    let token: Parsed<&str> = (
        '"',
        repeat::<_, _, (), _, _>(0.., alt((('\\', any).void(), none_of(['"', '\\']).void()))),
        '"',
    )
        .take()
        .parse_next(input);
    let Ok(token) = token else {
        return fail(at, "the string is not closed by `\"`");
    };
    match serde_json::from_str::<String>(token) {
        Ok(s) => Ok(Literal::Text(s.into())),
        Err(e) => fail(at, format!("bad string literal: {e}")),
    }
}

/// NUMBER, DATE or DATETIME: they all start with a digit (a NUMBER also with `-`).
fn number_or_time(input: &mut In<'_>, at: usize) -> Parsed<Literal> {
    let start = input.checkpoint();
    let Some((year, month, day)) = opt(date).parse_next(input)? else {
        return number(input, at);
    };
    if opt(peek(one_of(['T', 't']))).parse_next(input)?.is_some() {
        input.reset(&start);
        return date_time(input, at);
    }
    let context = input.state.context;
    match NaiveDate::from_ymd_opt(year, month, day)
        .and_then(|date| wall_clock::start_of_day(context.tz, date))
    {
        Some(ms) => Ok(Literal::Time(ms)),
        None => fail(at, "no such date"),
    }
}

/// `n` ASCII digits.
fn digits<'a>(n: usize) -> impl Parser<In<'a>, &'a str, ErrMode<Syntax>> {
    take_while(n, |c: char| c.is_ascii_digit())
}

/// `YYYY-MM-DD`, as numbers.
fn date(input: &mut In<'_>) -> Parsed<(i32, u32, u32)> {
    (
        digits(4).parse_to::<i32>(),
        '-',
        digits(2).parse_to::<u32>(),
        '-',
        digits(2).parse_to::<u32>(),
    )
        .map(|(year, _, month, _, day)| (year, month, day))
        .parse_next(input)
}

/// DATETIME: the shape of an RFC 3339 date-time read by winnow, its fields checked by
/// chrono.
fn date_time(input: &mut In<'_>, at: usize) -> Parsed<Literal> {
    let token: Parsed<&str> = (
        date,
        one_of(['T', 't']),
        (digits(2), ':', digits(2), ':', digits(2)),
        opt(('.', digit1)),
        alt((
            one_of(['Z', 'z']).void(),
            (one_of(['+', '-']), digits(2), ':', digits(2)).void(),
        )),
    )
        .take()
        .parse_next(input);
    match token
        .ok()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
    {
        Some(t) => Ok(Literal::Time(t.timestamp_millis())),
        None => fail(
            at,
            "bad date-time: write RFC 3339, like 2026-11-22T09:15:00Z or 2026-11-22T10:15:00+01:00",
        ),
    }
}

/// NUMBER: a JSON number.
fn number(input: &mut In<'_>, at: usize) -> Parsed<Literal> {
    let start = input.checkpoint();
    let token: Parsed<&str> = (
        opt('-'),
        alt(("0".void(), (one_of('1'..='9'), digit0).void())),
        opt(('.', digit1)),
        opt((one_of(['e', 'E']), opt(one_of(['+', '-'])), digit1)),
    )
        .take()
        .parse_next(input);
    match token.ok().map(str::parse::<f64>) {
        Some(Ok(n)) => Ok(Literal::Number(n)),
        _ => {
            input.reset(&start);
            fail(at, format!("expected a value, found {}", found(input)))
        }
    }
}

/// `true`, `false`, `null`, or a RELATIVE.
fn named(input: &mut In<'_>, at: usize) -> Parsed<Literal> {
    let name = word.parse_next(input)?;
    let context = input.state.context;
    let base = match name {
        "true" => return Ok(Literal::Bool(true)),
        "false" => return Ok(Literal::Bool(false)),
        "null" => return Ok(Literal::Null),
        "now" => Some(context.now_ms),
        "today" => wall_clock::day_of(context.tz, context.now_ms),
        _ => {
            return fail(
                at,
                format!("expected a value, found `{name}` (keywords are lowercase)"),
            )
        }
    };
    let Some(base) = base else {
        return fail(at, "`today` is out of range");
    };
    let sign = opt((multispace0, one_of(['+', '-'])).map(|(_, s)| s)).parse_next(input)?;
    let Some(sign) = sign else {
        return Ok(Literal::Time(base));
    };
    let (amount_at, (digits, unit)) = expect(
        input,
        "an integer with a unit m, h, d or w (like 7d)",
        (
            digit1,
            one_of(['m', 'h', 'd', 'w']),
            not(one_of(|c: char| c.is_ascii_alphanumeric() || c == '_')),
        )
            .map(|(digits, unit, ())| (digits, unit)),
    )?;
    let shifted = digits.parse::<i64>().ok().and_then(|n| {
        let n = if sign == '-' { -n } else { n };
        match unit {
            'm' => base.checked_add(n.checked_mul(60_000)?),
            'h' => base.checked_add(n.checked_mul(3_600_000)?),
            'd' => wall_clock::add_days(context.tz, base, n),
            _ => wall_clock::add_days(context.tz, base, n.checked_mul(7)?),
        }
    });
    match shifted {
        Some(ms) => Ok(Literal::Time(ms)),
        None => fail(amount_at, format!("`{digits}{unit}` is out of range")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kind::Kind;
    use crate::model::record::Value;
    use chrono_tz::Europe::Paris;
    use chrono_tz::UTC;

    const NOW: &str = "2026-11-27T10:30:00Z";

    fn ms(rfc3339: &str) -> i64 {
        DateTime::parse_from_rfc3339(rfc3339)
            .unwrap()
            .timestamp_millis()
    }

    fn context(tz: Tz, now: &str) -> FilterContext<'static> {
        FilterContext {
            space_id: "home",
            tz,
            now_ms: ms(now),
        }
    }

    fn parse(text: &str) -> Filter {
        Filter::parse(text, context(UTC, NOW)).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn error(text: &str) -> FilterError {
        match Filter::parse(text, context(UTC, NOW)) {
            Ok(f) => panic!("{text} parsed: {f:?}"),
            Err(e) => e,
        }
    }

    /// The position of the error of `text`, checking that the detail contains `words`.
    fn position(text: &str, words: &str) -> usize {
        let e = error(text);
        assert!(e.detail.contains(words), "{text}: {}", e.detail);
        e.position
    }

    fn set(task: &mut Record, name: &str, value: Value) {
        let i = Kind::Task.field_index(name).unwrap();
        task.fields[i] = value;
    }

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    /// A task `t1` created at NOW − 1 day, named "Buy milk", status "open", important,
    /// due at NOW + 1 hour, tagged `home` and `shop`.
    fn task() -> Record {
        let mut t = Record::new(Kind::Task, "t1".into(), 3.0, ms(NOW) - 86_400_000, 7);
        set(&mut t, "name", text("Buy milk"));
        set(&mut t, "status", text("open"));
        set(&mut t, "isImportant", Value::Bool(true));
        set(&mut t, "dateDue", Value::Time(ms(NOW) + 3_600_000));
        set(&mut t, "durationMs", Value::Integer(90_000));
        set(
            &mut t,
            "tagIds",
            Value::Ids(vec!["home".into(), "shop".into()].into_boxed_slice()),
        );
        t
    }

    fn matches(text: &str, task: &Record) -> bool {
        parse(text).matches(task)
    }

    #[test]
    fn an_empty_filter_matches_every_task() {
        let f = Filter::parse("", context(UTC, NOW)).unwrap();
        assert!(f.matches(&task()));
        assert_eq!(f, Filter::default());
        assert!(f.constraints().is_empty());
    }

    #[test]
    fn each_operator_compares_as_its_type_says() {
        let t = task();
        for (text, expected) in [
            (r#"name = "Buy milk""#, true),
            (r#"name != "Buy milk""#, false),
            (r#"name < "C""#, true),
            (r#"name <= "Buy milk""#, true),
            (r#"name > "Buy milk""#, false),
            (r#"name >= "Buy""#, true),
            (r#"name ~ "MILK""#, true),
            (r#"name ~ "bread""#, false),
            ("sortOrder = 3", true),
            ("sortOrder > 2.5", true),
            ("sortOrder < 3e0", false),
            ("sortOrder >= -1", true),
            ("durationMs = 90000", true),
            ("durationMs <= 9e4", true),
            ("versionUpdatedAt = 7", true),
            ("isImportant = true", true),
            ("isImportant != false", true),
            ("isTimeSensitive = false", true),
            ("isDeleted = false", true),
            ("dateDue > now", true),
            ("dateDue > now + 2h", false),
            ("createdAt < today", true),
            ("createdAt >= 2026-11-26", true),
            ("createdAt = 2026-11-26T10:30:00Z", true),
            ("createdAt = 2026-11-26T11:30:00+01:00", true),
            ("updatedAt < 2026-11-26t10:30:00.001z", true),
            (r#"tagIds has "shop""#, true),
            (r#"tagIds has "work""#, false),
            (r#"status in ("done", "open")"#, true),
            (r#"status not in ("done", "open")"#, false),
            (r#"id = "t1""#, true),
            (r#"todoId in ("t1")"#, true),
            (r#"TodoPredecessorsAllAny = "ALL""#, true),
        ] {
            assert_eq!(matches(text, &t), expected, "{text}");
        }
    }

    #[test]
    fn and_binds_tighter_than_or_and_not_and_parentheses_group() {
        let t = task();
        for (text, expected) in [
            (
                r#"status = "done" && isImportant = true || sortOrder = 3"#,
                true,
            ),
            (
                r#"status = "done" && (isImportant = true || sortOrder = 3)"#,
                false,
            ),
            (r#"!status = "done""#, true),
            (r#"!(status = "open" && sortOrder = 3)"#, false),
            (r#"!!(status = "open")"#, true),
            (r#"(((name ~ "milk")))"#, true),
            ("isImportant=true&&sortOrder=3||sortOrder=4", true),
        ] {
            assert_eq!(matches(text, &t), expected, "{text}");
        }
    }

    #[test]
    fn whitespace_is_free_between_tokens_and_inside_a_relative() {
        let t = task();
        assert_eq!(
            parse("dateDue<now+7d"),
            parse(" \t dateDue \n< now + 7d \r\n")
        );
        assert_eq!(parse("dateDue<today-1w"), parse("dateDue < today -  1w"));
        assert!(matches(r#"status not   in("open")||tagIds has"home""#, &t));
    }

    #[test]
    fn null_rules_follow_the_contract() {
        let mut t = task();
        set(&mut t, "status", Value::Null);
        for (text, expected) in [
            ("status = null", true),
            ("status != null", false),
            (r#"status != "done""#, true),
            (r#"status = "done""#, false),
            (r#"status < "z""#, false),
            (r#"status <= "z""#, false),
            (r#"status > """#, false),
            (r#"status >= """#, false),
            (r#"status ~ """#, false),
            (r#"status in ("open", "done")"#, false),
            (r#"status not in ("open", "done")"#, true),
            ("dateStart = null", true),
            ("dateStart < now", false),
            ("deletedAt = null", true),
            ("isImportant = null", false),
            ("isImportant != null", true),
        ] {
            assert_eq!(matches(text, &t), expected, "{text}");
        }
    }

    #[test]
    fn tilde_lowercases_both_sides_by_unicode_rules() {
        let mut t = task();
        set(&mut t, "notesMarkdown", text("ÉTÉ À PARIS"));
        assert!(matches(r#"notesMarkdown ~ "été à""#, &t));
        assert!(matches(r#"notesMarkdown ~ "\u00c9t\u00c9""#, &t));
        assert!(!matches(r#"notesMarkdown ~ "ete""#, &t));
    }

    #[test]
    fn strings_are_json_literals_with_their_escapes() {
        let mut t = task();
        set(&mut t, "name", text("a \"quoted\"\tname é 😀"));
        assert!(matches(
            r#"name = "a \"quoted\"\tname \u00e9 \ud83d\ude00""#,
            &t
        ));
        assert!(matches(r#"name < "a \\""#, &t));
    }

    #[test]
    fn strings_compare_by_code_points() {
        let mut t = task();
        // U+FF21 (fullwidth A) is above U+00E9 (é), which is above "z".
        set(&mut t, "name", text("é"));
        assert!(matches(r#"name > "z""#, &t));
        assert!(matches(r#"name < "Ａ""#, &t));
        // UTF-16 would put U+1F600 (a surrogate pair, D83D DE00) before U+FF71.
        set(&mut t, "name", text("😀"));
        assert!(matches(r#"name > "\uff71""#, &t));
    }

    #[test]
    fn space_id_is_settled_when_parsed() {
        let t = task();
        assert!(matches(r#"spaceId = "home""#, &t));
        assert!(!matches(r#"spaceId != "home""#, &t));
        assert!(matches(r#"spaceId not in ("work")"#, &t));
        assert!(matches(r#"spaceId ~ "OM""#, &t));
        assert_eq!(
            parse(r#"spaceId = "work""#),
            Filter {
                root: Some(Node::Const(false))
            }
        );
    }

    #[test]
    fn dates_are_midnight_in_the_time_zone() {
        let f = |text: &str, tz: Tz| Filter::parse(text, context(tz, NOW)).unwrap();
        let mut t = task();
        set(
            &mut t,
            "dateDue",
            Value::Time(ms("2026-07-01T00:00:00+02:00")),
        );
        assert!(f("dateDue = 2026-07-01", Paris).matches(&t));
        assert!(!f("dateDue = 2026-07-01", UTC).matches(&t));
        assert!(f("dateDue < 2026-07-01", UTC).matches(&t));
    }

    #[test]
    fn relative_times_are_bound_to_the_given_now_and_zone() {
        // 23:30 UTC on 2026-11-27 is already the 28th in Paris.
        let late = context(Paris, "2026-11-27T23:30:00Z");
        let at = |text: &str| {
            let f = Filter::parse(&format!("dateDue = {text}"), late).unwrap();
            match f.root {
                Some(Node::Test(_, Test::OneOf(values))) => match values[..] {
                    [Literal::Time(ms)] => ms,
                    _ => panic!("{values:?}"),
                },
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(at("now"), ms("2026-11-27T23:30:00Z"));
        assert_eq!(at("now-90m"), ms("2026-11-27T22:00:00Z"));
        assert_eq!(at("now+2h"), ms("2026-11-28T01:30:00Z"));
        assert_eq!(at("today"), ms("2026-11-28T00:00:00+01:00"));
        assert_eq!(at("today+1d"), ms("2026-11-29T00:00:00+01:00"));
        assert_eq!(at("today - 2w"), ms("2026-11-14T00:00:00+01:00"));
        assert_eq!(at("today+0d"), at("today"));
    }

    #[test]
    fn calendar_days_keep_the_wall_time_across_dst_and_hours_do_not() {
        // Paris goes to summer time on 2026-03-29 at 02:00.
        let eve = context(Paris, "2026-03-28T09:00:00+01:00");
        let bound = |text: &str| {
            let f = Filter::parse(&format!("dateDue >= {text}"), eve).unwrap();
            match f.constraints()[..] {
                [Constraint::Range(_, Bound::Included(Literal::Time(ms)), _)] => *ms,
                ref other => panic!("{other:?}"),
            }
        };
        assert_eq!(bound("today+1d"), ms("2026-03-29T00:00:00+01:00"));
        assert_eq!(bound("today+2d"), ms("2026-03-30T00:00:00+02:00"));
        assert_eq!(bound("now+1d"), ms("2026-03-29T09:00:00+02:00"));
        assert_eq!(bound("now+1w"), ms("2026-04-04T09:00:00+02:00"));
        assert_eq!(bound("now+24h"), ms("2026-03-29T10:00:00+02:00"));
        assert_eq!(bound("now+1440m"), bound("now+24h"));
        assert_eq!(bound("today+48h"), ms("2026-03-30T01:00:00+02:00"));
    }

    #[test]
    fn calendar_days_keep_the_wall_time_when_clocks_go_back_too() {
        // Paris returns to winter time on 2026-10-25 at 03:00.
        let eve = context(Paris, "2026-10-24T09:00:00+02:00");
        let at = |text: &str| match Filter::parse(&format!("dateDue < {text}"), eve)
            .unwrap()
            .constraints()[..]
        {
            [Constraint::Range(_, _, Bound::Excluded(Literal::Time(ms)))] => *ms,
            ref other => panic!("{other:?}"),
        };
        assert_eq!(at("now+1d"), ms("2026-10-25T09:00:00+01:00"));
        assert_eq!(at("now+24h"), ms("2026-10-25T08:00:00+01:00"));
        assert_eq!(at("today+2d"), ms("2026-10-26T00:00:00+01:00"));
        assert_eq!(at("now-1w"), ms("2026-10-17T09:00:00+02:00"));
    }

    #[test]
    fn constraints_are_the_top_level_conjuncts_on_one_field() {
        let f = parse(
            r#"dateDue >= 2026-11-01 && (dateDue < 2026-12-01 && status in ("a", "b")) && tagIds has "x" && name ~ "y" && (isImportant = true || sortOrder = 1) && !(status = "c") && id = null"#,
        );
        let due = TaskField::by_name("dateDue").unwrap();
        let status = TaskField::by_name("status").unwrap();
        let tags = TaskField::by_name("tagIds").unwrap();
        let (nov, dec) = (
            Literal::Time(ms("2026-11-01T00:00:00Z")),
            Literal::Time(ms("2026-12-01T00:00:00Z")),
        );
        let (a, b) = (Literal::Text("a".into()), Literal::Text("b".into()));
        let values = [a, b];
        assert_eq!(
            f.constraints(),
            vec![
                Constraint::Range(due, Bound::Included(&nov), Bound::Unbounded),
                Constraint::Range(due, Bound::Unbounded, Bound::Excluded(&dec)),
                Constraint::OneOf(status, &values),
                Constraint::Has(tags, "x"),
                Constraint::OneOf(TaskField::Id, &[Literal::Null]),
            ]
        );
        assert!(parse(r#"status = "a" || status = "b""#)
            .constraints()
            .is_empty());
        assert_eq!(parse(r#"status != "a""#).constraints(), vec![]);
    }

    #[test]
    fn syntax_errors_name_the_token_where_they_were_found() {
        for (text, words, at) in [
            ("name", "expected an operator", 4),
            ("name ", "found the end of the filter", 5),
            (r#"name == "a""#, "expected a value, found `=", 6),
            (r#"name = "a" &"#, "expected `&&`, `||` or the end", 11),
            (r#"name = "a" && "#, "expected a field name", 14),
            (r#"(name = "a""#, "expected `&&`, `||` or `)`", 11),
            (r#"name = "a")"#, "found `)`", 10),
            (r#"= "a""#, "expected a field name", 0),
            (r#"   ) "#, "expected a field name", 3),
            ("name = ", "expected a value, found the end", 7),
            ("name = TRUE", "keywords are lowercase", 7),
            (r#"status NOT IN ("a")"#, "expected an operator", 7),
            (r#"status not ("a")"#, "`in` after `not`", 11),
            (r#"status in "a""#, "expected `(`", 10),
            (r#"status in ()"#, "expected a value, found `)`", 11),
            (r#"status in ("a" "b")"#, "expected `,` or `)`", 15),
            (r#"status in ("a",)"#, "expected a value", 15),
            ("dateDue < now +", "integer with a unit", 15),
            ("dateDue < now + 7", "integer with a unit", 16),
            ("dateDue < now + 7days", "integer with a unit", 16),
            ("dateDue < now + 7 d", "integer with a unit", 16),
            ("dateDue < now + -7d", "integer with a unit", 16),
            ("dateDue < yesterday", "found `yesterday`", 10),
            ("dateDue < now 7d", "expected `&&`", 14),
            ("sortOrder < -", "expected a value, found `-`", 12),
            ("sortOrder < 01", "expected `&&`", 13),
            ("sortOrder < 1.", "expected `&&`", 13),
            ("name ! = null", "expected an operator", 5),
        ] {
            assert_eq!(position(text, words), at, "{text}");
        }
    }

    #[test]
    fn bad_literals_are_reported_at_their_first_character() {
        for (text, words, at) in [
            (r#"name = "abc"#, "not closed", 7),
            (r#"name = "a\qb""#, "bad string literal", 7),
            ("name = \"tab\there\"", "bad string literal", 7),
            (r#"name = "\ud800""#, "bad string literal", 7),
            ("dateDue < 2026-02-30", "no such date", 10),
            ("dateDue < 2026-13-01", "no such date", 10),
            ("dateDue < 2026-01-01T25:00:00Z", "bad date-time", 10),
            ("dateDue < 2026-01-01T10:00Z", "bad date-time", 10),
            ("dateDue < 2026-01-01T10:00:00", "bad date-time", 10),
            ("dateDue < now + 99999999999999999999d", "out of range", 16),
            ("dateDue < now + 9999999999999999m", "out of range", 16),
            ("dateDue < today + 999999999w", "out of range", 18),
        ] {
            assert_eq!(position(text, words), at, "{text}");
        }
    }

    #[test]
    fn type_misfits_are_reported_at_the_value() {
        for (text, words, at) in [
            (
                r#"dateDue < "2026-01-01""#,
                "holds a date-time, which cannot be compared with a string",
                10,
            ),
            (r#"sortOrder = "1""#, "holds a number", 12),
            (r#"isImportant = "true""#, "holds a boolean", 14),
            (
                "name = 1",
                "holds a string, which cannot be compared with a number",
                7,
            ),
            ("name = now", "with a date-time", 7),
            ("name = true", "with a boolean", 7),
            ("dateDue = 5", "with a number", 10),
            ("isImportant < true", "compared with = and != only", 14),
            ("isDeleted >= false", "compared with = and != only", 13),
            (r#"sortOrder ~ "1""#, "`~` tests strings only", 12),
            ("name ~ 1", "`~` takes a string, not a number", 7),
            (r#"name has "x""#, "`has` tests an array field", 9),
            ("tagIds has 1", "takes an id string, not a number", 11),
            (r#"tagIds = "x""#, "compared with `has` only", 9),
            (r#"tagIds in ("x")"#, "compared with `has` only", 11),
            ("categoryIds = null", "compared with `has` only", 14),
            ("predecessorIds ~ \"x\"", "compared with `has` only", 17),
            ("dateDue < null", "null is compared with = and != only", 10),
            ("name ~ null", "null is compared with = and != only", 7),
            ("tagIds has null", "null is compared with = and != only", 11),
            (
                r#"status in ("a", null)"#,
                "null is compared with = and != only",
                16,
            ),
            (
                r#"status not in (1)"#,
                "cannot be compared with a number",
                15,
            ),
            (r#"spaceId = 1"#, "cannot be compared with a number", 10),
        ] {
            assert_eq!(position(text, words), at, "{text}");
        }
    }

    #[test]
    fn an_unknown_field_is_reported_at_its_name() {
        assert_eq!(position(r#"title = "a""#, "unknown field `title`"), 0);
        assert_eq!(
            position(r#"name = "a" && Status = "b""#, "unknown field `Status`"),
            14
        );
        // A list's field is no task's field.
        assert_eq!(position("isDefault = true", "unknown field"), 0);
    }

    #[test]
    fn positions_count_code_points_not_bytes() {
        // "é" is 2 bytes, "😀" 4 bytes (and 2 UTF-16 units): one code point each.
        assert_eq!(position(r#"name = "é😀" && bad = 1"#, "unknown field"), 15);
        assert_eq!(
            position(r#"name ~ "ÉTÉ" || dateDue < "x""#, "cannot be compared"),
            26
        );
        assert_eq!(position(r#"name = "😀😀" &&"#, "end of the filter"), 14);
        assert_eq!(position(r#"name = "😀" ×"#, "found `×`"), 11);
    }

    #[test]
    fn any_garble_is_refused_with_a_detail_and_a_position_within_the_text() {
        let pieces = [
            "name",
            "status",
            "dateDue",
            "tagIds",
            "isImportant",
            "=",
            "!=",
            "<",
            ">=",
            "~",
            "in",
            "not",
            "has",
            "(",
            ")",
            "!",
            ",",
            "&&",
            "||",
            "&",
            "\"a\"",
            "\"",
            "1",
            "-",
            "2026-03-29",
            "T10:00:00Z",
            "now",
            "today",
            "+",
            "7d",
            "null",
            "true",
            " ",
            "é",
            "😀",
        ];
        // A fixed linear congruential sequence: the same garbles on every run.
        let mut seed: u64 = 0x5eed;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        for _ in 0..20_000 {
            let len = 1 + next(12);
            let text: String = (0..len).map(|_| pieces[next(pieces.len())]).collect();
            if let Err(e) = Filter::parse(&text, context(Paris, NOW)) {
                assert!(e.position <= text.chars().count(), "{text}: {e}");
                assert!(
                    !e.detail.is_empty() && e.detail != "syntax error",
                    "{text}: {e}"
                );
            }
        }
    }

    #[test]
    fn at_most_2000_characters() {
        let pad = |n: usize, c: char| format!(r#"name = "{}""#, String::from(c).repeat(n - 9));
        let at_limit = pad(FILTER_MAX_CHARS, 'é');
        assert_eq!(at_limit.chars().count(), 2_000);
        assert!(at_limit.len() > 2_000);
        parse(&at_limit);
        let e = error(&pad(FILTER_MAX_CHARS + 1, 'a'));
        assert_eq!(e.position, 2_000);
        assert!(
            e.detail.contains("at most 2,000 characters"),
            "{}",
            e.detail
        );
    }

    #[test]
    fn at_most_50_comparisons_and_in_counts_as_one() {
        let n = |count: usize| vec![r#"status in ("a", "b", "c")"#; count].join(" || ");
        parse(&n(50));
        let fifty_one = n(51);
        let at = fifty_one.rfind("status").unwrap();
        assert_eq!(position(&fifty_one, "at most 50 comparisons"), at);
    }

    #[test]
    fn at_most_16_levels_each_paren_and_bang_one() {
        let nest = |levels: usize| {
            let opens: String = (0..levels)
                .map(|i| if i % 2 == 0 { "(" } else { "!" })
                .collect();
            let closes = ")".repeat(levels.div_ceil(2));
            format!("{opens}sortOrder = 3{closes}")
        };
        // Eight `!`: the comparison itself.
        assert!(parse(&nest(16)).matches(&task()));
        assert_eq!(position(&nest(17), "at most 16 levels"), 16);
        assert_eq!(position(&"!".repeat(17), "at most 16 levels"), 16);
        assert_eq!(
            position(&format!("{}x", "(".repeat(20)), "at most 16 levels"),
            16
        );
        // Siblings do not add up: only nesting counts.
        let siblings = ["(!(sortOrder = 1))"; 10].join(" && ");
        parse(&siblings);
    }
}
