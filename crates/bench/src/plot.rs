//! The percentile plot of `taskd bench --report`: latency against percentile, as
//! HdrHistogram draws it, one line per operation and run, as an SVG document.
//!
//! The x axis is the percentile on a log scale of `1 / (1 - p)`, so each tick is a "nine"
//! further into the tail: 0%, 90%, 99%, 99.9%, 99.99%, 99.999%; percentiles beyond the last
//! tick (100% included, where the scale is infinite) are drawn at it. The y axis is the
//! latency in milliseconds from 0, linear, with round ticks. An operation keeps its colour
//! across runs; the first run drawn is solid and each compared run has its own dash, so
//! "new" against "old" of one operation reads as one colour, two strokes.
//!
//! Self-contained: the caller hands in the points; this draws them and nothing else.

use std::fmt::Write as _;

/// One operation's latency percentile curve in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The run it was measured in ("new", "old", a commit).
    pub run: String,
    /// The operation measured ("create task", "list tasks").
    pub operation: String,
    /// `(percentile, latency)`: the percentile from 0 to 100 inclusive, the latency in
    /// milliseconds; in increasing percentile.
    pub points: Vec<(f64, f64)>,
}

/// Width of the document, in pixels.
const WIDTH: f64 = 960.0;
/// Height of the document, in pixels.
const HEIGHT: f64 = 560.0;
/// The plot area: left, top, right and bottom edges. The legend sits right of it.
const LEFT: f64 = 80.0;
const TOP: f64 = 60.0;
const RIGHT: f64 = 700.0;
const BOTTOM: f64 = 490.0;
/// The longest legend text that fits right of the plot, in characters.
const LEGEND_CHARS: usize = 28;
/// How many nines the x axis shows: 99.999% is the last tick.
const NINES: u32 = 5;
/// One colour per operation, in order of first appearance (then again from the start).
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
/// One stroke per run, in order of first appearance: the first solid, the others dashed.
const DASHES: [&str; 4] = ["", "8 5", "2 4", "10 4 2 4"];

/// An SVG document drawing every curve, with axes, a legend and a title.
pub fn svg(curves: &[Curve]) -> String {
    let runs = distinct(curves.iter().map(|c| c.run.as_str()));
    let operations = distinct(curves.iter().map(|c| c.operation.as_str()));
    let ticks = latency_ticks(max_latency(curves));
    let top = ticks.last().copied().unwrap_or(1.0);

    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="13">"#
    );
    out.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = write!(
        out,
        r#"<text x="{}" y="32" text-anchor="middle" font-size="18" font-weight="bold">Latency by percentile</text>"#,
        (LEFT + RIGHT) / 2.0
    );
    axes(&mut out, &ticks, top);
    if curves.iter().all(|c| c.points.is_empty()) {
        let _ = write!(
            out,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#666">no data</text>"##,
            (LEFT + RIGHT) / 2.0,
            (TOP + BOTTOM) / 2.0
        );
    }
    for (i, curve) in curves.iter().enumerate() {
        let colour = COLOURS[position(&operations, &curve.operation) % COLOURS.len()];
        let dash = DASHES[position(&runs, &curve.run) % DASHES.len()];
        line(&mut out, curve, colour, dash, top);
        legend_entry(&mut out, i, curve, colour, dash);
    }
    out.push_str("</svg>\n");
    out
}

/// The horizontal position of percentile `p` (0 to 100): `log10(1 / (1 - p/100))` of the
/// axis' [`NINES`], clamped to the axis (so 100% lands on the last tick).
fn x_of(p: f64) -> f64 {
    let remaining = (1.0 - p.clamp(0.0, 100.0) / 100.0).max(10f64.powi(-(NINES as i32)));
    let nines = -remaining.log10();
    LEFT + (RIGHT - LEFT) * (nines / f64::from(NINES)).clamp(0.0, 1.0)
}

/// The vertical position of `ms` on an axis from 0 to `top` milliseconds.
fn y_of(ms: f64, top: f64) -> f64 {
    BOTTOM - (BOTTOM - TOP) * (ms.max(0.0) / top).min(1.0)
}

/// The x ticks: each percentile with its label.
fn percentile_ticks() -> Vec<(f64, String)> {
    (0..=NINES)
        .map(|nines| {
            let p = 100.0 * (1.0 - 10f64.powi(-(nines as i32)));
            let label = match nines {
                0 => "0%".to_string(),
                n => format!("{:.*}%", n.saturating_sub(2) as usize, p),
            };
            (p, label)
        })
        .collect()
}

/// Round y ticks from 0 to at least `max` milliseconds: a step of 1, 2, 2.5 or 5 times a
/// power of ten giving about five intervals. A max of 0 (or none) gives an axis to 1 ms.
fn latency_ticks(max: f64) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let rough = max / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|step| *step >= rough)
        .unwrap_or(10.0 * power);
    let count = (max / step - 1e-9).ceil().max(1.0) as u32;
    (0..=count).map(|i| f64::from(i) * step).collect()
}

/// The largest finite latency of any curve; 0 when there is none.
fn max_latency(curves: &[Curve]) -> f64 {
    curves
        .iter()
        .flat_map(|c| &c.points)
        .map(|(_, ms)| *ms)
        .filter(|ms| ms.is_finite())
        .fold(0.0, f64::max)
}

/// The grid, tick labels and axis titles.
fn axes(out: &mut String, ticks: &[f64], top: f64) {
    for (p, label) in percentile_ticks() {
        let x = x_of(p);
        let _ = write!(
            out,
            r##"<line x1="{x:.2}" y1="{TOP}" x2="{x:.2}" y2="{BOTTOM}" stroke="#ddd"/><text x="{x:.2}" y="{}" text-anchor="middle">{label}</text>"##,
            BOTTOM + 20.0
        );
    }
    for ms in ticks {
        let y = y_of(*ms, top);
        let _ = write!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.2}" x2="{RIGHT}" y2="{y:.2}" stroke="#ddd"/><text x="{}" y="{:.2}" text-anchor="end">{}</text>"##,
            LEFT - 8.0,
            y + 4.0,
            number(*ms)
        );
    }
    let _ = write!(
        out,
        r##"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="none" stroke="#333"/>"##,
        RIGHT - LEFT,
        BOTTOM - TOP
    );
    let _ = write!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">percentile</text>"#,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 48.0
    );
    let _ = write!(
        out,
        r#"<text x="22" y="{0}" text-anchor="middle" transform="rotate(-90 22 {0})">latency (ms)</text>"#,
        (TOP + BOTTOM) / 2.0
    );
}

/// One curve: a polyline, or a dot when it has a single point. Points that are not
/// numbers are left out.
fn line(out: &mut String, curve: &Curve, colour: &str, dash: &str, top: f64) {
    let points: Vec<(f64, f64)> = curve
        .points
        .iter()
        .filter(|(p, ms)| !p.is_nan() && !ms.is_nan())
        .map(|(p, ms)| (x_of(*p), y_of(*ms, top)))
        .collect();
    let dash = dash_attribute(dash);
    match points.as_slice() {
        [] => {}
        [(x, y)] => {
            let _ = write!(
                out,
                r#"<circle cx="{x:.2}" cy="{y:.2}" r="4" fill="{colour}"/>"#
            );
        }
        points => {
            let list: Vec<String> = points
                .iter()
                .map(|(x, y)| format!("{x:.2},{y:.2}"))
                .collect();
            let _ = write!(
                out,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>"#,
                list.join(" ")
            );
        }
    }
}

/// The legend line of the `index`th curve: a stroke sample, then `run: operation`, cut to
/// what fits beside the plot (the whole name is the entry's tooltip).
fn legend_entry(out: &mut String, index: usize, curve: &Curve, colour: &str, dash: &str) {
    let y = TOP + 10.0 + 22.0 * index as f64;
    let x = RIGHT + 20.0;
    let name = format!("{}: {}", curve.run, curve.operation);
    let shown = if name.chars().count() > LEGEND_CHARS {
        let cut: String = name.chars().take(LEGEND_CHARS - 1).collect();
        format!("{cut}\u{2026}")
    } else {
        name.clone()
    };
    let _ = write!(
        out,
        r#"<g><title>{}</title><line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="2"{}/><text x="{}" y="{}">{}</text></g>"#,
        escape(&name),
        x + 30.0,
        dash_attribute(dash),
        x + 38.0,
        y + 4.0,
        escape(&shown)
    );
}

/// ` stroke-dasharray="…"`, or nothing for a solid stroke.
fn dash_attribute(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    }
}

/// A tick value without trailing zeros: `0`, `2.5`, `0.02`, `1500`.
fn number(value: f64) -> String {
    let text = format!("{value:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `text` safe inside an XML element or attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0 at all.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The distinct values of `items`, in order of first appearance.
fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// Where `item` is in `items` (it is there: `items` came from the same curves).
fn position(items: &[&str], item: &str) -> usize {
    items.iter().position(|i| *i == item).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(run: &str, operation: &str, points: &[(f64, f64)]) -> Curve {
        Curve {
            run: run.into(),
            operation: operation.into(),
            points: points.to_vec(),
        }
    }

    /// Checks that every element is closed in order and that `<` and `&` only start tags
    /// and entities: the document parses as XML as far as this plot uses it.
    fn assert_well_formed(svg: &str) {
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{svg}"
        );
        assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
        let mut open: Vec<&str> = Vec::new();
        let mut rest = svg;
        while let Some(at) = rest.find('<') {
            let text = &rest[..at];
            for (i, _) in text.match_indices('&') {
                let entity = &text[i..text[i..].find(';').map_or(text.len(), |e| i + e + 1)];
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity),
                    "a bare & in {text:?}"
                );
            }
            let end = rest[at..].find('>').expect("a tag ends") + at;
            let tag = &rest[at + 1..end];
            assert!(!tag.contains('<'), "a < inside a tag: {tag}");
            let quotes = tag.matches('"').count();
            assert_eq!(quotes % 2, 0, "unbalanced quotes in {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name), "closing {name} out of order");
            } else if !tag.ends_with('/') {
                open.push(tag.split_whitespace().next().unwrap());
            }
            rest = &rest[end + 1..];
        }
        assert!(open.is_empty(), "left open: {open:?}");
    }

    /// The points of each polyline, as numbers.
    fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
        svg.match_indices("<polyline points=\"")
            .map(|(at, prefix)| {
                let from = at + prefix.len();
                let list = &svg[from..from + svg[from..].find('"').unwrap()];
                list.split(' ')
                    .map(|pair| {
                        let (x, y) = pair.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }

    /// The x of the grid line of the tick labelled `label`.
    fn tick_x(svg: &str, label: &str) -> f64 {
        let text = format!(">{label}</text>");
        let at = svg.find(&text).unwrap_or_else(|| panic!("no tick {label}"));
        let line = &svg[..at].rfind("<line x1=\"").unwrap();
        let from = line + "<line x1=\"".len();
        svg[from..from + svg[from..].find('"').unwrap()]
            .parse()
            .unwrap()
    }

    #[test]
    fn the_document_is_well_formed_with_a_title_ticks_and_a_legend_per_curve() {
        let curves = [
            curve("new", "create", &[(0.0, 1.0), (50.0, 2.0), (99.0, 7.5)]),
            curve("old", "create", &[(0.0, 1.5), (50.0, 3.0), (99.0, 9.0)]),
            curve("new", "list", &[(0.0, 0.4), (99.9, 30.0)]),
        ];
        let svg = svg(&curves);
        assert_well_formed(&svg);
        assert!(svg.contains(">Latency by percentile</text>"));
        for label in ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"] {
            assert!(svg.contains(&format!(">{label}</text>")), "{label}");
        }
        for entry in ["new: create", "old: create", "new: list"] {
            assert!(svg.contains(&format!(">{entry}</text>")), "{entry}");
        }
        assert_eq!(polylines(&svg).len(), 3);
        // y ticks are round and reach the largest latency: 0, 10, 20, 30.
        assert!(
            svg.contains(">30</text>") && svg.contains(">10</text>"),
            "{svg}"
        );
    }

    #[test]
    fn a_point_lands_on_its_percentiles_tick_and_100_percent_on_the_last_one() {
        let svg = svg(&[curve(
            "r",
            "op",
            &[
                (0.0, 1.0),
                (90.0, 2.0),
                (99.0, 3.0),
                (99.9, 4.0),
                (100.0, 5.0),
            ],
        )]);
        let xs: Vec<f64> = polylines(&svg)[0].iter().map(|(x, _)| *x).collect();
        for (x, label) in xs.iter().zip(["0%", "90%", "99%", "99.9%", "99.999%"]) {
            assert!((x - tick_x(&svg, label)).abs() < 0.01, "{label}: {x}");
        }
        // 99% sits two fifths along: two of the five nines.
        assert!((xs[2] - (LEFT + 0.4 * (RIGHT - LEFT))).abs() < 0.01);
    }

    #[test]
    fn an_operation_keeps_its_colour_across_runs_and_a_compared_run_is_dashed() {
        let svg = svg(&[
            curve("new", "create", &[(0.0, 1.0), (99.0, 2.0)]),
            curve("old", "create", &[(0.0, 1.0), (99.0, 3.0)]),
            curve("new", "list", &[(0.0, 1.0), (99.0, 4.0)]),
        ]);
        let strokes: Vec<&str> = svg
            .split("<polyline ")
            .skip(1)
            .map(|l| &l[..l.find("/>").unwrap()])
            .collect();
        let colour = |l: &str| l.split("stroke=\"").nth(1).unwrap()[..7].to_string();
        assert_eq!(colour(strokes[0]), colour(strokes[1]));
        assert_ne!(colour(strokes[0]), colour(strokes[2]));
        assert!(!strokes[0].contains("dasharray") && !strokes[2].contains("dasharray"));
        assert!(strokes[1].contains("stroke-dasharray"));
    }

    #[test]
    fn a_long_legend_name_is_cut_to_fit_and_kept_whole_in_its_tooltip() {
        let operation = "list tasks of a very long named list";
        let svg = svg(&[curve("new", operation, &[(0.0, 1.0), (50.0, 2.0)])]);
        assert_well_formed(&svg);
        assert!(
            svg.contains(&format!("<title>new: {operation}</title>")),
            "{svg}"
        );
        assert!(
            svg.contains(">new: list tasks of a very l\u{2026}</text>"),
            "{svg}"
        );
    }

    #[test]
    fn names_are_escaped_for_xml() {
        let svg = svg(&[curve(
            "a<b & \"c\"",
            "it's > \u{1}",
            &[(0.0, 1.0), (50.0, 2.0)],
        )]);
        assert_well_formed(&svg);
        assert!(
            svg.contains(">a&lt;b &amp; &quot;c&quot;: it&apos;s &gt; \u{FFFD}</text>"),
            "{svg}"
        );
        assert!(!svg.contains("a<b"));
    }

    #[test]
    fn no_curves_a_single_point_and_zero_latencies_still_draw_a_valid_plot() {
        let empty = svg(&[]);
        assert_well_formed(&empty);
        assert!(empty.contains(">no data</text>") && empty.contains(">99.999%</text>"));

        let single = svg(&[curve("r", "op", &[(50.0, 3.0)])]);
        assert_well_formed(&single);
        assert!(single.contains("<circle ") && !single.contains("no data"));

        let zeros = svg(&[curve("r", "op", &[(0.0, 0.0), (100.0, 0.0)])]);
        assert_well_formed(&zeros);
        assert!(!zeros.contains("NaN") && !zeros.contains("inf"));
        let line = &polylines(&zeros)[0];
        assert!(line.iter().all(|(_, y)| *y == BOTTOM), "{line:?}");
        assert!(zeros.contains(">1</text>"), "an axis to 1 ms: {zeros}");
    }

    #[test]
    fn latency_ticks_are_round_and_cover_the_maximum() {
        assert_eq!(latency_ticks(9.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(latency_ticks(10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(
            latency_ticks(0.0),
            [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(latency_ticks(12.0), [0.0, 2.5, 5.0, 7.5, 10.0, 12.5]);
        assert_eq!(number(0.6000000000000001), "0.6");
        assert_eq!(number(1500.0), "1500");
        assert_eq!(number(0.025), "0.025");
    }
}
