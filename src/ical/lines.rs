//! The `RRULE` of each `VTODO` as sent (docs §27: a rule is stored as sent, and refused at
//! every door as the JSON API refuses it). The iCalendar parser reads a rule into its parts
//! and drops what it cannot keep (`COUNT=0`, `INTERVAL=0`, a part given twice), so the text
//! of the rule is read here from the content lines themselves (RFC 5545 §3.1): unfolded,
//! then each line as `name *(";" param) ":" value`.

use winnow::combinator::{alt, eof, repeat, separated};
use winnow::prelude::*;
use winnow::token::{take_till, take_while};

/// The first `RRULE` value of each `VTODO` right inside the `VCALENDAR` of `text`, in the
/// order the `VTODO`s come; `None` for one without.
pub(super) fn rrules_of_vtodos(text: &str) -> Vec<Option<String>> {
    let unfolded = unfold(text);
    let mut open: Vec<String> = Vec::new();
    let mut rules: Vec<Option<String>> = Vec::new();
    let mut rest = unfolded.as_str();
    while !rest.is_empty() {
        let Some((name, value)) = line(&mut rest) else {
            continue;
        };
        match name.to_ascii_uppercase().as_str() {
            "BEGIN" => {
                let component = value.trim().to_ascii_uppercase();
                if open.len() == 1 && component == "VTODO" {
                    rules.push(None);
                }
                open.push(component);
            }
            "END" => {
                open.pop();
            }
            "RRULE" if open.len() == 2 && open[1] == "VTODO" => {
                if let Some(rule @ None) = rules.last_mut() {
                    *rule = Some(value.to_owned());
                }
            }
            _ => {}
        }
    }
    rules
}

/// `text` with every line break followed by a space or a tab removed with that character
/// (RFC 5545 §3.1; a bare LF is taken as CRLF, as the parser takes it).
fn unfold(text: &str) -> String {
    let mut unfolded = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let fold = match c {
            '\r' if chars.peek() == Some(&'\n') => {
                let mut ahead = chars.clone();
                ahead.next();
                matches!(ahead.peek(), Some(' ' | '\t')).then(|| {
                    chars.next();
                })
            }
            '\n' => matches!(chars.peek(), Some(' ' | '\t')).then_some(()),
            _ => None,
        };
        match fold {
            Some(()) => {
                chars.next();
            }
            None => unfolded.push(c),
        }
    }
    unfolded
}

/// One content line of `rest`, which moves past it (and its line break): its name and its
/// value; `None` for a line that is no content line (it is passed over).
fn line<'a>(rest: &mut &'a str) -> Option<(&'a str, &'a str)> {
    let parsed = content_line.parse_next(rest).ok();
    if parsed.is_none() {
        let _ = (take_till(0.., ['\r', '\n']), line_end)
            .void()
            .parse_next(rest);
    }
    parsed
}

/// `name *(";" param) ":" value` and its line break.
fn content_line<'a>(input: &mut &'a str) -> ModalResult<(&'a str, &'a str)> {
    let name = take_while(1.., is_name).parse_next(input)?;
    repeat::<_, _, (), _, _>(0.., param).parse_next(input)?;
    ':'.parse_next(input)?;
    let value = take_till(0.., ['\r', '\n']).parse_next(input)?;
    line_end.parse_next(input)?;
    Ok((name, value))
}

/// A character of a property or parameter name (RFC 5545 `iana-token` / `x-name`).
fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

/// `";" name "=" param-value *("," param-value)`.
fn param(input: &mut &str) -> ModalResult<()> {
    (
        ';',
        take_while(1.., is_name),
        '=',
        separated::<_, _, (), _, _, _, _>(1.., param_value, ','),
    )
        .void()
        .parse_next(input)
}

/// A quoted string, or the characters up to the next `"`, `;`, `:`, `,` or line break.
fn param_value(input: &mut &str) -> ModalResult<()> {
    alt((
        ('"', take_till(0.., '"'), '"').void(),
        take_till(0.., |c: char| {
            matches!(c, '"' | ';' | ':' | ',' | '\r' | '\n')
        })
        .void(),
    ))
    .parse_next(input)
}

/// A line break (CRLF, or a bare LF or CR), or the end of the text.
fn line_end(input: &mut &str) -> ModalResult<()> {
    alt(("\r\n".void(), "\n".void(), "\r".void(), eof.void())).parse_next(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vtodo_has_its_rule_as_sent_unfolded() {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nRRULE:FREQ=DAILY\r\n\
                    END:VEVENT\r\nBEGIN:VTODO\r\nUID:a\r\nRRULE;X-P=\"a;b:c\":FREQ=DAILY;CO\r\n \
                    UNT=0\r\nBEGIN:VALARM\r\nRRULE:FREQ=HOURLY\r\nEND:VALARM\r\nEND:VTODO\r\n\
                    BEGIN:VTODO\r\nUID:b\r\nEND:VTODO\r\nbegin:vtodo\nUID:c\nrrule:FREQ=WEEKLY;\
                    BYDAY=MO;BYDAY=TU\nend:vtodo\nEND:VCALENDAR\r\n";
        assert_eq!(
            rrules_of_vtodos(text),
            vec![
                Some("FREQ=DAILY;COUNT=0".to_string()),
                None,
                Some("FREQ=WEEKLY;BYDAY=MO;BYDAY=TU".to_string()),
            ]
        );
    }
}
