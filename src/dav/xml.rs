//! WebDAV XML (RFC 4918) with `quick-xml`: the properties a `PROPFIND` asks for, and the
//! `207 Multi-Status` body that answers it.

use std::io;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::name::ResolveResult;
use quick_xml::{NsReader, Writer};

use super::filter::{parse_time, CompFilter, PropFilter, TextMatch, TimeRange};
use crate::model::limits::{DAV_XML_DEPTH_MAX, MULTIGET_HREFS_MAX};

/// The WebDAV namespace.
pub(super) const DAV: &str = "DAV:";
/// The CalDAV namespace (RFC 4791).
pub(super) const CALDAV: &str = "urn:ietf:params:xml:ns:caldav";
/// The Calendar Server namespace, of `getctag`.
pub(super) const CALENDARSERVER: &str = "http://calendarserver.org/ns/";

/// A property by its namespace and local name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Prop {
    /// Its namespace (empty when it has none).
    pub(super) namespace: String,
    /// Its local name.
    pub(super) name: String,
}

impl Prop {
    pub(super) fn new(namespace: &str, name: &str) -> Prop {
        Prop {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

/// The properties asked of one resource, each with its value, or `None` where the
/// resource does not have it.
pub(super) type Found = Vec<(Prop, Option<PropValue>)>;

/// What a `PROPFIND` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Requested {
    /// Every property (an empty body, `allprop`, or `propname`).
    All,
    /// These properties.
    Props(Vec<Prop>),
}

/// The value of a property found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PropValue {
    /// One `href`.
    Href(String),
    /// Text.
    Text(String),
    /// Empty elements by namespace and name (a `resourcetype`).
    Elements(Vec<(&'static str, &'static str)>),
    /// CalDAV `comp` elements with these names (`supported-calendar-component-set`).
    Components(Vec<&'static str>),
    /// DAV `privilege` elements with these privileges (`current-user-privilege-set`).
    Privileges(Vec<&'static str>),
    /// DAV `supported-report` elements with these reports, by namespace and name
    /// (`supported-report-set`).
    Reports(Vec<(&'static str, &'static str)>),
}

/// The properties a `PROPFIND` body asks for: the children of `propfind/prop`; an empty
/// body is `allprop` (RFC 4918 §9.1). A body that is not XML is an error.
pub(super) fn requested(body: &[u8]) -> Result<Requested, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Requested::All);
    }
    let text = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8".to_string())?;
    let mut reader = NsReader::from_str(text);
    // Elements open from the root down, by namespace and name.
    let mut open: Vec<(String, String)> = Vec::new();
    let mut props = Vec::new();
    let mut all = false;
    loop {
        let (ns, event) = reader
            .read_resolved_event()
            .map_err(|e| format!("the body is not XML: {e}"))?;
        let namespace = match ns {
            ResolveResult::Bound(ns) => ns.into_inner().to_owned(),
            _ => String::new(),
        };
        let (element, empty) = match &event {
            Event::Start(e) => (e.local_name().as_ref().to_owned(), false),
            Event::Empty(e) => (e.local_name().as_ref().to_owned(), true),
            Event::End(_) => {
                open.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        within_depth(&open)?;
        let parent = |depth: usize, name: &str| {
            open.get(depth)
                .is_some_and(|(ns, n)| ns == DAV && n == name)
        };
        let in_propfind = open.len() == 1 && parent(0, "propfind");
        if in_propfind && namespace == DAV && (element == "allprop" || element == "propname") {
            all = true;
        }
        if open.len() == 2 && parent(0, "propfind") && parent(1, "prop") {
            props.push(Prop {
                namespace: namespace.clone(),
                name: element.clone(),
            });
        }
        if !empty {
            open.push((namespace, element));
        }
    }
    Ok(match all {
        true => Requested::All,
        false => Requested::Props(props),
    })
}

/// Which `REPORT` a body asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ReportKind {
    /// CalDAV `calendar-multiget`: the objects at `hrefs`.
    Multiget,
    /// CalDAV `calendar-query`.
    Query,
    /// WebDAV `sync-collection` (RFC 6578).
    SyncCollection,
    /// Another report, by its root element's namespace and name.
    Other(String, String),
}

/// A `REPORT` body as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Report {
    /// Which report.
    pub(super) kind: ReportKind,
    /// The properties asked for (the children of its `prop`).
    pub(super) props: Vec<Prop>,
    /// The `href`s it names (a multiget's objects).
    pub(super) hrefs: Vec<String>,
    /// The text of its `sync-token` (a `sync-collection`'s; empty for the first sync).
    pub(super) sync_token: String,
    /// The `comp-filter` of a `calendar-query`'s `filter` (none: every object).
    pub(super) filter: Option<CompFilter>,
    /// A `sync-collection`'s `DAV:limit` (`nresults`), when it sets one.
    pub(super) limit: Option<usize>,
}

/// A `filter` element being read.
enum Node {
    Comp(CompFilter),
    Prop(PropFilter),
    Text(TextMatch),
}

/// The attribute `name` of an element, unescaped.
fn attribute(e: &quick_xml::events::BytesStart<'_>, name: &str) -> Option<String> {
    e.try_get_attribute(name).ok().flatten().and_then(|a| {
        a.normalized_value(quick_xml::XmlVersion::default())
            .ok()
            .map(|v| v.into_owned())
    })
}

/// Closes the innermost `filter` node into its parent (or into `root`).
fn close(nodes: &mut Vec<Node>, root: &mut Option<CompFilter>) {
    let Some(node) = nodes.pop() else {
        return;
    };
    match (node, nodes.last_mut()) {
        (Node::Comp(c), Some(Node::Comp(parent))) => parent.comps.push(c),
        (Node::Comp(c), None) => *root = Some(c),
        (Node::Prop(p), Some(Node::Comp(parent))) => parent.props.push(p),
        (Node::Text(t), Some(Node::Prop(parent))) => parent.text_match = Some(t),
        _ => {}
    }
}

/// Reads a `REPORT` body: its root element, the children of its `DAV:prop`, and the text
/// of its `DAV:href`s (with their character and entity references resolved).
pub(super) fn report(body: &[u8]) -> Result<Report, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8".to_string())?;
    let mut reader = NsReader::from_str(text);
    let mut open: Vec<(String, String)> = Vec::new();
    let mut report = Report {
        kind: ReportKind::Other(String::new(), String::new()),
        props: Vec::new(),
        hrefs: Vec::new(),
        sync_token: String::new(),
        filter: None,
        limit: None,
    };
    let mut nodes: Vec<Node> = Vec::new();
    // Where `filter` stands in `open`, while it is open: what is inside it is the filter's.
    let mut filter_at: Option<usize> = None;
    let mut nresults = String::new();
    let in_nresults = |open: &[(String, String)]| {
        open.len() == 3
            && open[1].0 == DAV
            && open[1].1 == "limit"
            && open[2].0 == DAV
            && open[2].1 == "nresults"
    };
    let in_href =
        |open: &[(String, String)]| open.len() == 2 && open[1].0 == DAV && open[1].1 == "href";
    let in_sync_token = |open: &[(String, String)]| {
        open.len() == 2 && open[1].0 == DAV && open[1].1 == "sync-token"
    };
    loop {
        let (ns, event) = reader
            .read_resolved_event()
            .map_err(|e| format!("the body is not XML: {e}"))?;
        let namespace = match ns {
            ResolveResult::Bound(ns) => ns.into_inner().to_owned(),
            _ => String::new(),
        };
        let (element, empty) = match &event {
            Event::Start(e) => (e.local_name().as_ref().to_owned(), false),
            Event::Empty(e) => (e.local_name().as_ref().to_owned(), true),
            Event::Text(t) if in_nresults(&open) => {
                nresults.push_str(t.xml10_content().trim());
                continue;
            }
            Event::Text(t) if matches!(nodes.last(), Some(Node::Text(_))) => {
                if let Some(Node::Text(m)) = nodes.last_mut() {
                    m.text.push_str(&t.xml10_content());
                }
                continue;
            }
            Event::Text(t) if in_sync_token(&open) => {
                report.sync_token.push_str(t.xml10_content().trim());
                continue;
            }
            Event::Text(t) if in_href(&open) => {
                if let Some(href) = report.hrefs.last_mut() {
                    href.push_str(t.xml10_content().trim());
                }
                continue;
            }
            Event::GeneralRef(r) if in_href(&open) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                        .ok_or_else(|| format!("unknown entity &{};", r.xml10_content()))?
                        .to_owned(),
                };
                if let Some(href) = report.hrefs.last_mut() {
                    href.push_str(&resolved);
                }
                continue;
            }
            Event::End(_) => {
                if filter_at.is_some_and(|at| open.len() <= at + 1) {
                    filter_at = None;
                }
                if let Some((ns, name)) = open.pop() {
                    if ns == CALDAV
                        && matches!(name.as_str(), "comp-filter" | "prop-filter" | "text-match")
                    {
                        close(&mut nodes, &mut report.filter);
                    }
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        within_depth(&open)?;
        if namespace == CALDAV && filter_at.is_some() {
            if let Event::Start(e) | Event::Empty(e) = &event {
                filter_element(&mut nodes, &mut report.filter, &element, e, empty);
            }
        }
        place(&mut report, &open, &namespace, &element);
        if !empty {
            if namespace == CALDAV && element == "filter" && filter_at.is_none() {
                filter_at = Some(open.len());
            }
            open.push((namespace, element));
        }
    }
    report.limit = nresults.parse().ok();
    dedupe(&mut report.hrefs)?;
    Ok(report)
}

/// Refuses an element that would stand deeper than [`DAV_XML_DEPTH_MAX`], the elements
/// `open` being above it (docs §27: bodies are read in time linear in their length).
fn within_depth(open: &[(String, String)]) -> Result<(), String> {
    match open.len() < DAV_XML_DEPTH_MAX {
        true => Ok(()),
        false => Err(format!(
            "the XML nests deeper than {DAV_XML_DEPTH_MAX} elements"
        )),
    }
}

/// Answers each href of a multiget once, in the order first named; more than
/// [`MULTIGET_HREFS_MAX`] distinct ones are refused (docs §27).
fn dedupe(hrefs: &mut Vec<String>) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    hrefs.retain(|href| seen.insert(href.clone()));
    match hrefs.len() <= MULTIGET_HREFS_MAX {
        true => Ok(()),
        false => Err(format!(
            "a calendar-multiget names at most {MULTIGET_HREFS_MAX} distinct hrefs, not {}",
            hrefs.len()
        )),
    }
}

/// What an element of a report body (in namespace `namespace`, inside the elements
/// `open`) says of it outside its filter: the report's kind (the root), an `href`, or a
/// property asked for.
fn place(report: &mut Report, open: &[(String, String)], namespace: &str, element: &str) {
    if open.is_empty() {
        report.kind = match (namespace, element) {
            (CALDAV, "calendar-multiget") => ReportKind::Multiget,
            (CALDAV, "calendar-query") => ReportKind::Query,
            (DAV, "sync-collection") => ReportKind::SyncCollection,
            _ => ReportKind::Other(namespace.into(), element.into()),
        };
    } else if open.len() == 1 && namespace == DAV && element == "href" {
        report.hrefs.push(String::new());
    } else if open.len() == 2 && open[1].0 == DAV && open[1].1 == "prop" {
        report.props.push(Prop {
            namespace: namespace.into(),
            name: element.into(),
        });
    }
}

/// One element of a `calendar-query`'s `filter` (`e`, named `element`; `empty` when it has
/// no content): opens its node on `nodes`, or sets what it says on the node open; a node
/// closed here ([`close`]) goes into its parent or becomes `filter`.
fn filter_element(
    nodes: &mut Vec<Node>,
    filter: &mut Option<CompFilter>,
    element: &str,
    e: &BytesStart<'_>,
    empty: bool,
) {
    let name = attribute(e, "name").unwrap_or_default();
    match element {
        "comp-filter" => nodes.push(Node::Comp(CompFilter {
            name,
            ..CompFilter::default()
        })),
        "prop-filter" => nodes.push(Node::Prop(PropFilter {
            name,
            ..PropFilter::default()
        })),
        "text-match" => nodes.push(Node::Text(TextMatch {
            text: String::new(),
            negate: attribute(e, "negate-condition").as_deref() == Some("yes"),
            octet: attribute(e, "collation").as_deref() == Some("i;octet"),
        })),
        "is-not-defined" => match nodes.last_mut() {
            Some(Node::Comp(c)) => c.is_not_defined = true,
            Some(Node::Prop(p)) => p.is_not_defined = true,
            _ => {}
        },
        "time-range" => {
            let range = TimeRange {
                start: attribute(e, "start").as_deref().and_then(parse_time),
                end: attribute(e, "end").as_deref().and_then(parse_time),
            };
            match nodes.last_mut() {
                Some(Node::Comp(c)) => c.time_range = Some(range),
                Some(Node::Prop(p)) => p.time_range = Some(range),
                _ => {}
            }
        }
        _ => {}
    }
    if empty && matches!(element, "comp-filter" | "prop-filter" | "text-match") {
        close(nodes, filter);
    }
}

/// The prefix a namespace is written with.
fn prefix(namespace: &str) -> Option<&'static str> {
    match namespace {
        DAV => Some("d"),
        CALDAV => Some("c"),
        CALENDARSERVER => Some("cs"),
        _ => None,
    }
}

/// Writes the empty element `prop` (a property's name, as a `404` shows it, or the start
/// of a found one).
fn write_prop(
    w: &mut Writer<impl io::Write>,
    prop: &Prop,
    value: Option<&PropValue>,
) -> io::Result<()> {
    let (name, attribute) = match prefix(&prop.namespace) {
        Some(p) => (format!("{p}:{}", prop.name), None),
        None if prop.namespace.is_empty() => (prop.name.clone(), None),
        None => (
            format!("x:{}", prop.name),
            Some(("xmlns:x", prop.namespace.as_str())),
        ),
    };
    let element = w.create_element(name.as_str());
    let element = match attribute {
        Some(attribute) => element.with_attribute(attribute),
        None => element,
    };
    match value {
        None => element.write_empty()?,
        Some(PropValue::Text(text)) => element.write_text_content(BytesText::new(text))?,
        Some(PropValue::Href(href)) => element.write_inner_content(|w| {
            w.create_element("d:href")
                .write_text_content(BytesText::new(href))?;
            Ok(())
        })?,
        Some(PropValue::Elements(children)) => element.write_inner_content(|w| {
            for (namespace, child) in children {
                let p = prefix(namespace).unwrap_or("d");
                w.create_element(format!("{p}:{child}")).write_empty()?;
            }
            Ok(())
        })?,
        Some(PropValue::Components(names)) => element.write_inner_content(|w| {
            for name in names {
                w.create_element("c:comp")
                    .with_attribute(("name", *name))
                    .write_empty()?;
            }
            Ok(())
        })?,
        Some(PropValue::Reports(reports)) => element.write_inner_content(|w| {
            for (namespace, report) in reports {
                let p = prefix(namespace).unwrap_or("d");
                w.create_element("d:supported-report")
                    .write_inner_content(|w| {
                        w.create_element("d:report").write_inner_content(|w| {
                            w.create_element(format!("{p}:{report}")).write_empty()?;
                            Ok(())
                        })?;
                        Ok(())
                    })?;
            }
            Ok(())
        })?,
        Some(PropValue::Privileges(privileges)) => element.write_inner_content(|w| {
            for privilege in privileges {
                w.create_element("d:privilege").write_inner_content(|w| {
                    w.create_element(format!("d:{privilege}")).write_empty()?;
                    Ok(())
                })?;
            }
            Ok(())
        })?,
    };
    Ok(())
}

/// One `propstat` of the properties `props` with `status`.
fn write_propstat(
    w: &mut Writer<impl io::Write>,
    props: &[(&Prop, Option<&PropValue>)],
    status: &str,
) -> io::Result<()> {
    if props.is_empty() {
        return Ok(());
    }
    w.create_element("d:propstat").write_inner_content(|w| {
        w.create_element("d:prop").write_inner_content(|w| {
            for (prop, value) in props {
                write_prop(w, prop, *value)?;
            }
            Ok(())
        })?;
        w.create_element("d:status")
            .write_text_content(BytesText::new(status))?;
        Ok(())
    })?;
    Ok(())
}

/// A `207 Multi-Status` body, written into `W` as it is made (RFC 4918 §13): [`start`]
/// writes its head, [`response`] one resource, [`finish`] its end. An answer over a
/// whole calendar is never held whole (see [`crate::threads::heavy::stream`]).
///
/// [`start`]: Multistatus::start
/// [`response`]: Multistatus::response
/// [`finish`]: Multistatus::finish
pub(super) struct Multistatus<W: io::Write> {
    w: Writer<W>,
}

impl<W: io::Write> Multistatus<W> {
    /// Writes the XML declaration and opens `multistatus`.
    pub(super) fn start(out: W) -> io::Result<Multistatus<W>> {
        let mut w = Writer::new(out);
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)))?;
        w.write_event(Event::Start(
            BytesStart::new("d:multistatus").with_attributes([
                ("xmlns:d", DAV),
                ("xmlns:c", CALDAV),
                ("xmlns:cs", CALENDARSERVER),
            ]),
        ))?;
        Ok(Multistatus { w })
    }

    /// One resource (by path): the properties found (`200`) and those it does not have
    /// (`404`), or with `None`, a resource that is not there (a `404` of its own).
    pub(super) fn response(&mut self, href: &str, props: Option<&Found>) -> io::Result<()> {
        self.w
            .create_element("d:response")
            .write_inner_content(|w| {
                w.create_element("d:href")
                    .write_text_content(BytesText::new(href))?;
                let Some(props) = props else {
                    w.create_element("d:status")
                        .write_text_content(BytesText::new("HTTP/1.1 404 Not Found"))?;
                    return Ok(());
                };
                let found: Vec<_> = props
                    .iter()
                    .filter_map(|(p, v)| v.as_ref().map(|v| (p, Some(v))))
                    .collect();
                let missing: Vec<_> = props
                    .iter()
                    .filter(|(_, v)| v.is_none())
                    .map(|(p, _)| (p, None))
                    .collect();
                write_propstat(w, &found, "HTTP/1.1 200 OK")?;
                write_propstat(w, &missing, "HTTP/1.1 404 Not Found")
            })?;
        Ok(())
    }

    /// Ends the body: for a `sync-collection` cut at its `limit`, a `507` response for the
    /// collection at `truncated` (RFC 6578 §3.6); then the collection's new `sync_token`.
    pub(super) fn finish(
        mut self,
        truncated: Option<&str>,
        sync_token: Option<&str>,
    ) -> io::Result<()> {
        if let Some(href) = truncated {
            self.w
                .create_element("d:response")
                .write_inner_content(|w| {
                    w.create_element("d:href")
                        .write_text_content(BytesText::new(href))?;
                    w.create_element("d:status")
                        .write_text_content(BytesText::new("HTTP/1.1 507 Insufficient Storage"))?;
                    w.create_element("d:error").write_inner_content(|w| {
                        w.create_element("d:number-of-matches-within-limits")
                            .write_empty()?;
                        Ok(())
                    })?;
                    Ok(())
                })?;
        }
        if let Some(token) = sync_token {
            self.w
                .create_element("d:sync-token")
                .write_text_content(BytesText::new(token))?;
        }
        self.w
            .write_event(Event::End(BytesEnd::new("d:multistatus")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_propfind_names_its_properties_by_namespace() {
        let body = br#"<?xml version="1.0"?>
            <D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop><D:current-user-principal/><C:calendar-home-set/>
                <X:odd xmlns:X="urn:x"><X:inner/></X:odd></D:prop>
            </D:propfind>"#;
        assert_eq!(
            requested(body).unwrap(),
            Requested::Props(vec![
                Prop::new(DAV, "current-user-principal"),
                Prop::new(CALDAV, "calendar-home-set"),
                Prop::new("urn:x", "odd"),
            ])
        );
        assert_eq!(requested(b"").unwrap(), Requested::All);
        let all = br#"<propfind xmlns="DAV:"><allprop/></propfind>"#;
        assert_eq!(requested(all).unwrap(), Requested::All);
        assert!(requested(b"<a><b></a>").is_err());
    }

    #[test]
    fn a_multistatus_splits_found_and_missing_properties() {
        let found = vec![
            (
                Prop::new(DAV, "current-user-principal"),
                Some(PropValue::Href("/dav/principals/u/".into())),
            ),
            (Prop::new("urn:x", "odd"), None),
        ];
        let mut body = Vec::new();
        let mut answer = Multistatus::start(&mut body).unwrap();
        answer.response("/dav/", Some(&found)).unwrap();
        answer.response("/gone", None).unwrap();
        answer.finish(None, None).unwrap();
        let text = String::from_utf8(body).unwrap();
        assert!(
            text.contains(
                "<d:propstat><d:prop><d:current-user-principal><d:href>/dav/principals/u/</d:href>\
             </d:current-user-principal></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>"
            ),
            "{text}"
        );
        assert!(text.contains(
            "<d:prop><x:odd xmlns:x=\"urn:x\"/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status>"
        ), "{text}");
        assert!(text.contains(
            "<d:response><d:href>/gone</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>"
        ), "{text}");
    }

    #[test]
    fn a_multiget_names_its_properties_and_hrefs() {
        let body = br#"<?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop><D:getetag/><C:calendar-data/></D:prop>
              <D:href>/dav/calendars/u/s/a.ics</D:href>
              <D:href>/dav/calendars/u/s/b&amp;c%40host.ics</D:href>
            </C:calendar-multiget>"#;
        let multiget = report(body).unwrap();
        assert_eq!(multiget.kind, ReportKind::Multiget);
        assert_eq!(
            multiget.props,
            vec![
                Prop::new(DAV, "getetag"),
                Prop::new(CALDAV, "calendar-data")
            ]
        );
        assert_eq!(
            multiget.hrefs,
            vec![
                "/dav/calendars/u/s/a.ics",
                "/dav/calendars/u/s/b&c%40host.ics"
            ]
        );
        let sync =
            br#"<d:sync-collection xmlns:d="DAV:"><d:sync-token>urn:taskd:sync:4</d:sync-token>
            <d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"#;
        let sync = report(sync).unwrap();
        assert_eq!(sync.kind, ReportKind::SyncCollection);
        assert_eq!(sync.sync_token, "urn:taskd:sync:4");
        assert_eq!(sync.props, vec![Prop::new(DAV, "getetag")]);
        let query = br#"<c:calendar-query xmlns:c="urn:ietf:params:xml:ns:caldav"/>"#;
        assert_eq!(report(query).unwrap().kind, ReportKind::Query);
    }

    #[test]
    fn a_calendar_query_filter_and_a_sync_limit_are_read() {
        let body = br#"<?xml version="1.0"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/></d:prop>
  <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO">
    <c:time-range start="20260101T000000Z" end="20260201"/>
    <c:prop-filter name="COMPLETED"><c:is-not-defined/></c:prop-filter>
    <c:prop-filter name="UID"><c:text-match negate-condition="yes" collation="i;octet">a@b</c:text-match></c:prop-filter>
  </c:comp-filter></c:comp-filter></c:filter>
</c:calendar-query>"#;
        let root = report(body).unwrap().filter.unwrap();
        assert_eq!(root.name, "VCALENDAR");
        let todo = &root.comps[0];
        assert_eq!(todo.name, "VTODO");
        assert_eq!(
            todo.time_range,
            Some(TimeRange {
                start: Some(1_767_225_600_000),
                end: Some(1_769_904_000_000)
            })
        );
        assert!(todo.props[0].is_not_defined);
        assert_eq!(
            todo.props[1].text_match,
            Some(TextMatch {
                text: "a@b".into(),
                negate: true,
                octet: true
            })
        );
        let sync = br#"<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:limit><d:nresults>5</d:nresults></d:limit><d:prop><d:getetag/></d:prop></d:sync-collection>"#;
        assert_eq!(report(sync).unwrap().limit, Some(5));
    }

    /// `depth` elements, each inside the one before, in the CalDAV namespace.
    fn nested(root: &str, depth: usize) -> String {
        let mut body = format!(r#"<c:{root} xmlns:c="{CALDAV}">"#);
        body.push_str(&"<c:a>".repeat(depth - 1));
        body.push_str(&"</c:a>".repeat(depth - 1));
        body.push_str(&format!("</c:{root}>"));
        body
    }

    #[test]
    fn a_body_nests_at_most_64_elements_deep_and_is_read_in_linear_time() {
        assert!(report(nested("calendar-query", 64).as_bytes()).is_ok());
        let deeper = report(nested("calendar-query", 65).as_bytes()).unwrap_err();
        assert!(deeper.contains("deeper than 64"), "{deeper}");
        assert!(requested(nested("propfind", 65).as_bytes()).is_err());
        // 52,000 levels inside a filter (unclosed): refused at the 65th, not at the end.
        let mut deep =
            String::from(r#"<c:calendar-query xmlns:c="urn:ietf:params:xml:ns:caldav"><c:filter>"#);
        deep.push_str(&"<c:a>".repeat(52_000));
        let refused = report(deep.as_bytes()).unwrap_err();
        assert!(refused.contains("deeper than 64"), "{refused}");
    }

    #[test]
    fn a_multiget_answers_each_href_once_and_names_at_most_1000() {
        let multiget = |hrefs: &[String]| {
            let hrefs: String = hrefs
                .iter()
                .map(|h| format!("<d:href>{h}</d:href>"))
                .collect();
            format!(
                r#"<c:calendar-multiget xmlns:d="DAV:" xmlns:c="{CALDAV}"><d:prop><d:getetag/></d:prop>{hrefs}</c:calendar-multiget>"#
            )
        };
        let same = vec!["/dav/calendars/u/s/a.ics".to_string(); 1_500];
        let once = report(multiget(&same).as_bytes()).unwrap();
        assert_eq!(once.hrefs, vec!["/dav/calendars/u/s/a.ics"]);
        let distinct: Vec<String> = (0..1_000)
            .map(|i| format!("/dav/calendars/u/s/{i}.ics"))
            .collect();
        assert_eq!(
            report(multiget(&distinct).as_bytes()).unwrap().hrefs.len(),
            1_000
        );
        let more: Vec<String> = (0..1_001)
            .map(|i| format!("/dav/calendars/u/s/{i}.ics"))
            .collect();
        let refused = report(multiget(&more).as_bytes()).unwrap_err();
        assert!(refused.contains("at most 1000 distinct hrefs"), "{refused}");
    }
}
