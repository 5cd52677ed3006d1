//! The grammar of `filter=` (see the module above for it and its tokens): a `winnow`
//! parser per rule, each binding its literals and checking them against the task fields
//! as it goes.

use chrono::{DateTime, NaiveDate};
use winnow::ascii::{digit0, digit1, multispace0};
use winnow::combinator::{alt, not, opt, peek, repeat, separated};
use winnow::error::{ErrMode, ModalResult, ParserError};
use winnow::stream::{Location, Stateful, Stream};
use winnow::token::{any, none_of, one_of, take_while};
use winnow::{LocatingSlice, Parser};

use crate::model::limits::{FILTER_MAX_COMPARISONS, FILTER_MAX_DEPTH};
use crate::model::query::{Scalar, TaskField, Type};
use crate::model::wall_clock;

use super::{Cmp, FilterContext, Literal, Node, Relative, Test, Unit};

/// What a parse carries beside the text.
#[derive(Debug)]
pub(super) struct State<'a> {
    pub(super) context: FilterContext<'a>,
    pub(super) comparisons: usize,
    /// The RELATIVE literals of the comparison being read.
    pub(super) relatives: Vec<Relative>,
    /// Each comparison's field with each of its RELATIVE literals, so far.
    pub(super) clock: Vec<(TaskField, Relative)>,
}

pub(super) type In<'a> = Stateful<LocatingSlice<&'a str>, State<'a>>;

/// A parse error at a byte offset of the text.
#[derive(Debug)]
pub(super) struct Syntax {
    pub(super) at: usize,
    /// Empty for winnow's own errors, which the rules replace before they escape.
    pub(super) detail: String,
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
pub(super) fn whole(input: &mut In<'_>) -> Parsed<Node> {
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
    let relatives = std::mem::take(&mut input.state.relatives);
    let node = match subject {
        Subject::Task(field) => {
            let clock = relatives.into_iter().map(|r| (field, r));
            input.state.clock.extend(clock);
            Node::Test(field, test)
        }
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
        Op::Cmp(_) | Op::In | Op::NotIn if ty == Type::Bool => {
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

/// `true`, `false`, `null`, or a RELATIVE (bound to the context's `now`, and noted in
/// the state for [`super::Filter::clock`]).
fn named(input: &mut In<'_>, at: usize) -> Parsed<Literal> {
    let name = word.parse_next(input)?;
    let today = match name {
        "true" => return Ok(Literal::Bool(true)),
        "false" => return Ok(Literal::Bool(false)),
        "null" => return Ok(Literal::Null),
        "now" => false,
        "today" => true,
        _ => {
            return fail(
                at,
                format!("expected a value, found `{name}` (keywords are lowercase)"),
            )
        }
    };
    let context = input.state.context;
    if today && wall_clock::day_of(context.tz, context.now_ms).is_none() {
        return fail(at, "`today` is out of range");
    }
    let sign = opt((multispace0, one_of(['+', '-'])).map(|(_, s)| s)).parse_next(input)?;
    let (amount_at, amount) = match sign {
        None => (at, None),
        Some(sign) => {
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
            let n = digits
                .parse::<i64>()
                .ok()
                .map(|n| if sign == '-' { -n } else { n });
            (amount_at, Some((n, format!("{digits}{unit}"), unit)))
        }
    };
    let relative = match &amount {
        None => Some(Relative {
            today,
            amount: 0,
            unit: Unit::Minute,
        }),
        Some((n, _, unit)) => n.map(|amount| Relative {
            today,
            amount,
            unit: match unit {
                'm' => Unit::Minute,
                'h' => Unit::Hour,
                'd' => Unit::Day,
                _ => Unit::Week,
            },
        }),
    };
    match relative.and_then(|r| Some((r, r.at(context.tz, context.now_ms)?))) {
        Some((relative, ms)) => {
            input.state.relatives.push(relative);
            Ok(Literal::Time(ms))
        }
        None => match amount {
            Some((_, written, _)) => fail(amount_at, format!("`{written}` is out of range")),
            None => fail(at, "`today` is out of range"),
        },
    }
}
