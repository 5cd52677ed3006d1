//! `orderBy=` of docs §17: up to three sort keys, each ascending or descending, then
//! `todoId` ascending; nulls last in either direction.
//!
//! A page of a walk ends at a record; its [`Position`] (the record's values of the keys and
//! its id) goes into the cursor, and the next page starts at the first record that
//! [`OrderBy::compare_to`] puts after it.
//!
//! Numbers order by `f64::total_cmp`, as the listing's index of `sortOrder` does (so `-0`
//! comes before `0`); strings by code points; `false` before `true`.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};
use winnow::combinator::{opt, separated};
use winnow::error::ContextError;
use winnow::token::take_while;
use winnow::Parser;

use super::super::limits::ORDER_BY_MAX_KEYS;
use super::super::record::Record;
use super::{ParameterError, Scalar, TaskField};

/// A field `orderBy` may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortKey {
    /// `sortOrder`.
    SortOrder,
    /// `dateDue`.
    DateDue,
    /// `dateStart`.
    DateStart,
    /// `createdAt`.
    CreatedAt,
    /// `updatedAt`.
    UpdatedAt,
    /// `name`.
    Name,
    /// `status`.
    Status,
    /// `durationEstimate`.
    DurationEstimate,
    /// `isImportant`.
    IsImportant,
    /// `versionUpdatedAt`.
    VersionUpdatedAt,
    /// `parentId` (docs §22): a task's siblings together, roots last.
    ParentId,
}

impl SortKey {
    /// Every key, in the order the contract lists them.
    pub const ALL: [SortKey; 11] = [
        SortKey::SortOrder,
        SortKey::DateDue,
        SortKey::DateStart,
        SortKey::CreatedAt,
        SortKey::UpdatedAt,
        SortKey::Name,
        SortKey::Status,
        SortKey::DurationEstimate,
        SortKey::IsImportant,
        SortKey::VersionUpdatedAt,
        SortKey::ParentId,
    ];

    /// The field's name in a task response.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::SortOrder => "sortOrder",
            SortKey::DateDue => "dateDue",
            SortKey::DateStart => "dateStart",
            SortKey::CreatedAt => "createdAt",
            SortKey::UpdatedAt => "updatedAt",
            SortKey::Name => "name",
            SortKey::Status => "status",
            SortKey::DurationEstimate => "durationEstimate",
            SortKey::IsImportant => "isImportant",
            SortKey::VersionUpdatedAt => "versionUpdatedAt",
            SortKey::ParentId => "parentId",
        }
    }

    /// The task field the key reads.
    pub fn field(self) -> TaskField {
        match self {
            SortKey::SortOrder => TaskField::SortOrder,
            SortKey::CreatedAt => TaskField::CreatedAt,
            SortKey::UpdatedAt => TaskField::UpdatedAt,
            SortKey::VersionUpdatedAt => TaskField::VersionUpdatedAt,
            // Every other key is an entry of the task field table.
            key => TaskField::by_name(key.name()).unwrap_or(TaskField::SortOrder),
        }
    }
}

/// One key of an order and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderKey {
    /// The field.
    pub key: SortKey,
    /// Whether it is written with `-`: largest first (nulls still last).
    pub descending: bool,
}

/// A parsed `orderBy`: one to three keys; the default is `sortOrder` ascending, the order of
/// §6. Its text form ([`fmt::Display`]) is canonical, fit for binding a cursor to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderBy {
    keys: Vec<OrderKey>,
    /// The field of each key, looked up once.
    fields: Vec<TaskField>,
}

impl Default for OrderBy {
    fn default() -> Self {
        OrderBy::new(vec![OrderKey {
            key: SortKey::SortOrder,
            descending: false,
        }])
    }
}

impl fmt::Display for OrderBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, k) in self.keys.iter().enumerate() {
            let comma = if i == 0 { "" } else { "," };
            let minus = if k.descending { "-" } else { "" };
            write!(f, "{comma}{minus}{}", k.key.name())?;
        }
        Ok(())
    }
}

/// A value of a sort key, owned, as a [`Position`] holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SortValue {
    /// Null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    Text(Box<str>),
    /// A date-time, in milliseconds since the Unix epoch.
    Time(i64),
}

impl SortValue {
    fn of(value: Scalar<'_>) -> SortValue {
        match value {
            Scalar::Bool(b) => SortValue::Bool(b),
            Scalar::Number(n) => SortValue::Number(n),
            Scalar::Text(s) => SortValue::Text(s.into()),
            Scalar::Time(ms) => SortValue::Time(ms),
            // No sort key is an array.
            Scalar::Null | Scalar::Ids(_) => SortValue::Null,
        }
    }

    fn scalar(&self) -> Scalar<'_> {
        match self {
            SortValue::Null => Scalar::Null,
            SortValue::Bool(b) => Scalar::Bool(*b),
            SortValue::Number(n) => Scalar::Number(*n),
            SortValue::Text(s) => Scalar::Text(s),
            SortValue::Time(ms) => Scalar::Time(*ms),
        }
    }
}

/// Where a record stands in an order: its values of the order's keys, then its id. What a
/// cursor carries to resume a walk after that record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Position {
    /// The record's value of each key, in the order's key order.
    pub values: Vec<SortValue>,
    /// The record's id: the final tie-break.
    pub id: Box<str>,
}

/// How `a` compares with `b` under one key: nulls last in either direction.
fn compare_values(a: Scalar<'_>, b: Scalar<'_>, descending: bool) -> Ordering {
    let ascending = match (a, b) {
        (Scalar::Null, Scalar::Null) => return Ordering::Equal,
        (Scalar::Null, _) => return Ordering::Greater,
        (_, Scalar::Null) => return Ordering::Less,
        (Scalar::Bool(a), Scalar::Bool(b)) => a.cmp(&b),
        (Scalar::Number(a), Scalar::Number(b)) => a.total_cmp(&b),
        (Scalar::Text(a), Scalar::Text(b)) => a.cmp(b),
        (Scalar::Time(a), Scalar::Time(b)) => a.cmp(&b),
        // A key has one type; a position from another order is refused by `fits`.
        _ => Ordering::Equal,
    };
    if descending {
        ascending.reverse()
    } else {
        ascending
    }
}

impl OrderBy {
    /// Reads `text`, the decoded value of `orderBy`: keys separated by `,`, each optionally
    /// prefixed by `-`, no spaces. An unknown key, an empty key and more than three keys are
    /// refused.
    pub fn parse(text: &str) -> Result<OrderBy, ParameterError> {
        let refuse = |detail: String| ParameterError {
            parameter: "orderBy",
            detail,
        };
        let key = (opt('-'), take_while(0.., |c: char| c != ','));
        let items: Vec<(Option<char>, &str)> =
            separated::<_, _, _, _, ContextError, _, _>(1.., key, ',')
                .parse(text)
                .map_err(|_| refuse("expected keys separated by commas".into()))?;
        if items.len() > ORDER_BY_MAX_KEYS {
            return Err(refuse(format!(
                "at most {ORDER_BY_MAX_KEYS} keys, not {}",
                items.len()
            )));
        }
        let keys = items
            .into_iter()
            .map(|(minus, name)| {
                let key = SortKey::ALL.into_iter().find(|k| k.name() == name);
                key.map(|key| OrderKey {
                    key,
                    descending: minus.is_some(),
                })
                .ok_or_else(|| {
                    let known: Vec<&str> = SortKey::ALL.iter().map(|k| k.name()).collect();
                    refuse(format!(
                        "cannot order by {name:?}; the keys are {}, each optionally prefixed by -",
                        known.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(OrderBy::new(keys))
    }

    fn new(keys: Vec<OrderKey>) -> OrderBy {
        let fields = keys.iter().map(|k| k.key.field()).collect();
        OrderBy { keys, fields }
    }

    /// Each key with its field.
    fn keyed(&self) -> impl Iterator<Item = (&OrderKey, TaskField)> {
        self.keys.iter().zip(self.fields.iter().copied())
    }

    /// The keys, first to last (the final tie-break on `todoId` is not among them).
    pub fn keys(&self) -> &[OrderKey] {
        &self.keys
    }

    /// How task `a` compares with task `b`: by each key in turn, then by id ascending. A
    /// total order: only a record compares equal to itself (ids are unique).
    pub fn compare(&self, a: &Record, b: &Record) -> Ordering {
        self.keyed()
            .map(|(k, field)| compare_values(field.value(a), field.value(b), k.descending))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.id.cmp(&b.id))
    }

    /// Where `task` stands in this order.
    pub fn position(&self, task: &Record) -> Position {
        Position {
            values: self
                .fields
                .iter()
                .map(|field| SortValue::of(field.value(task)))
                .collect(),
            id: (*task.id).into(),
        }
    }

    /// How `task` compares with the record at `position`, as [`OrderBy::compare`] would:
    /// `Greater` exactly when it comes after it, so a walk resumes with the first task
    /// that compares `Greater`.
    pub fn compare_to(&self, task: &Record, position: &Position) -> Ordering {
        self.keyed()
            .zip(&position.values)
            .map(|((k, field), v)| compare_values(field.value(task), v.scalar(), k.descending))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| (*task.id).cmp(&*position.id))
    }

    /// Whether `position` can be a position in this order: one value per key, each null or
    /// of the key's type. A decoded cursor whose position does not fit is refused.
    pub fn fits(&self, position: &Position) -> bool {
        position.values.len() == self.keys.len()
            && self.keys.iter().zip(&position.values).all(|(k, v)| {
                matches!(
                    (k.key, v),
                    (_, SortValue::Null)
                        | (
                            SortKey::SortOrder
                                | SortKey::DurationEstimate
                                | SortKey::VersionUpdatedAt,
                            SortValue::Number(_)
                        )
                        | (
                            SortKey::DateDue
                                | SortKey::DateStart
                                | SortKey::CreatedAt
                                | SortKey::UpdatedAt,
                            SortValue::Time(_)
                        )
                        | (
                            SortKey::Name | SortKey::Status | SortKey::ParentId,
                            SortValue::Text(_)
                        )
                        | (SortKey::IsImportant, SortValue::Bool(_))
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kind::Kind;
    use crate::model::record::Value;

    fn order(text: &str) -> OrderBy {
        OrderBy::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn task(id: &str, due: Option<i64>, name: Option<&str>, important: bool) -> Record {
        let mut t = Record::new(Kind::Task, id.into(), 1.0, 0, 1);
        let set = |t: &mut Record, field: &str, v: Value| {
            t.fields[Kind::Task.field_index(field).unwrap()] = v;
        };
        set(&mut t, "dateDue", due.map_or(Value::Null, Value::Time));
        set(
            &mut t,
            "name",
            name.map_or(Value::Null, |n| Value::Text(n.into())),
        );
        set(&mut t, "isImportant", Value::Bool(important));
        t
    }

    fn sorted(order: &OrderBy, mut tasks: Vec<Record>) -> Vec<String> {
        tasks.sort_by(|a, b| order.compare(a, b));
        tasks.iter().map(|t| t.id.to_string()).collect()
    }

    fn tasks() -> Vec<Record> {
        vec![
            task("e", None, Some("b"), false),
            task("b", Some(20), None, true),
            task("d", Some(10), Some("a"), false),
            task("a", None, None, true),
            task("c", Some(20), Some("é"), false),
        ]
    }

    #[test]
    fn keys_parse_with_their_direction() {
        let o = order("-dateDue,name,isImportant");
        assert_eq!(
            o.keys(),
            [
                OrderKey {
                    key: SortKey::DateDue,
                    descending: true
                },
                OrderKey {
                    key: SortKey::Name,
                    descending: false
                },
                OrderKey {
                    key: SortKey::IsImportant,
                    descending: false
                },
            ]
        );
        assert_eq!(o.to_string(), "-dateDue,name,isImportant");
        for key in SortKey::ALL {
            assert_eq!(order(key.name()).keys()[0].key, key);
            assert_eq!(TaskField::by_name(key.name()), Some(key.field()));
        }
        assert_eq!(OrderBy::default(), order("sortOrder"));
    }

    #[test]
    fn another_key_or_more_than_three_are_refused() {
        for text in [
            "",
            "title",
            "id",
            "todoId",
            "tagIds",
            "durationMs",
            "DateDue",
            "+name",
            "--name",
            "name,",
            ",name",
            "name, status",
            "name,status,dateDue,createdAt",
        ] {
            let e = OrderBy::parse(text).expect_err(text);
            assert_eq!(e.parameter, "orderBy");
        }
        assert!(OrderBy::parse("a,b,c,d")
            .unwrap_err()
            .detail
            .contains("at most 3"));
        assert!(OrderBy::parse("title")
            .unwrap_err()
            .detail
            .contains("sortOrder, dateDue"));
    }

    #[test]
    fn nulls_come_last_in_either_direction() {
        assert_eq!(
            sorted(&order("dateDue"), tasks()),
            ["d", "b", "c", "a", "e"]
        );
        assert_eq!(
            sorted(&order("-dateDue"), tasks()),
            ["b", "c", "d", "a", "e"]
        );
        assert_eq!(sorted(&order("name"), tasks()), ["d", "e", "c", "a", "b"]);
        assert_eq!(sorted(&order("-name"), tasks()), ["c", "e", "d", "a", "b"]);
    }

    #[test]
    fn false_comes_before_true_and_later_keys_break_ties() {
        assert_eq!(
            sorted(&order("isImportant"), tasks()),
            ["c", "d", "e", "a", "b"]
        );
        assert_eq!(
            sorted(&order("-isImportant"), tasks()),
            ["a", "b", "c", "d", "e"]
        );
        assert_eq!(
            sorted(&order("-isImportant,-dateDue"), tasks()),
            ["b", "a", "c", "d", "e"]
        );
        assert_eq!(
            sorted(&order("dateDue,-name"), tasks()),
            ["d", "c", "b", "e", "a"]
        );
    }

    #[test]
    fn the_final_tie_break_is_the_id_ascending_whatever_the_direction() {
        assert_eq!(
            sorted(&order("-sortOrder"), tasks()),
            ["a", "b", "c", "d", "e"]
        );
    }

    #[test]
    fn a_walk_resumes_after_a_position() {
        for text in [
            "dateDue",
            "-dateDue,name",
            "-name,-isImportant",
            "isImportant",
        ] {
            let o = order(text);
            let all = sorted(&o, tasks());
            for (i, after) in all.iter().enumerate() {
                let at = tasks().into_iter().find(|t| &*t.id == after).unwrap();
                let position = o.position(&at);
                assert!(o.fits(&position));
                assert_eq!(o.compare_to(&at, &position), Ordering::Equal);
                // Through bincode, as a cursor would carry it.
                let bytes = bincode::serialize(&position).unwrap();
                let position: Position = bincode::deserialize(&bytes).unwrap();
                let rest: Vec<String> = {
                    let mut later: Vec<Record> = tasks()
                        .into_iter()
                        .filter(|t| o.compare_to(t, &position).is_gt())
                        .collect();
                    later.sort_by(|a, b| o.compare(a, b));
                    later.iter().map(|t| t.id.to_string()).collect()
                };
                assert_eq!(rest, all[i + 1..], "{text} after {after}");
            }
        }
    }

    #[test]
    fn a_position_of_another_order_does_not_fit() {
        let at = task("x", Some(5), Some("n"), true);
        let by_name = order("name").position(&at);
        assert!(!order("dateDue").fits(&by_name));
        assert!(!order("name,dateDue").fits(&by_name));
        assert!(order("status").fits(&by_name));
        let nulls = Position {
            values: vec![SortValue::Null, SortValue::Null],
            id: "x".into(),
        };
        assert!(order("-dateDue,isImportant").fits(&nulls));
    }
}
