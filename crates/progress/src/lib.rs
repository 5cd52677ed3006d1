//! Progress of a long-running tool on stderr: what is done so far, the rate, and the time
//! left when the total is known. taskd's `backup`, `export` and `import` draw it, and
//! `taskd bench` its run; anything that counts records or bytes can.
//!
//! It is drawn only when stderr is a terminal that can move its cursor (`TERM` set and not
//! `dumb`): redirected or piped, as in scripts, cron jobs and the tests, a tool prints
//! nothing but its summary line, never escape codes into a log. The line is cleared when
//! the work ends, or fails, so what stays on the screen is the summary or the error.

use std::io::{self, IsTerminal};
use std::time::Duration;

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// How often the line is redrawn even when nothing advanced, so the rate and the time left
/// stay true while one big step (a large file, a sync) runs.
const TICK: Duration = Duration::from_millis(200);

/// What a progress line counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// Records (lines, tasks): shown as a count with thousands separators.
    Records,
    /// Bytes: shown in KiB, MiB, GiB.
    Bytes,
}

/// One progress line on stderr, cleared when dropped (or [`finish`](Progress::finish)ed).
///
/// Cheap to advance from a tight loop: an advance is an atomic add; drawing is rate limited.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    unit: Unit,
    /// What the line counts, shown first; a [`stage`](Progress::stage) shows its own.
    label: String,
}

impl Progress {
    /// A line counting records, `label` first (`"exporting"`); a bar and the time left once
    /// the total is known.
    pub fn records(label: &str, total: Option<u64>) -> Progress {
        Progress::drawn_to(stderr_target(), Unit::Records, label, total).ticking()
    }

    /// A line counting bytes, `label` first (`"copying"`); a bar and the time left once the
    /// total is known.
    pub fn bytes(label: &str, total: Option<u64>) -> Progress {
        Progress::drawn_to(stderr_target(), Unit::Bytes, label, total).ticking()
    }

    /// A line that shows `label` and the time since, after a spinner: for a step that counts
    /// nothing (loading a data directory).
    pub fn step(label: &str) -> Progress {
        let progress = Progress::drawn_to(stderr_target(), Unit::Records, label, None);
        progress.stage(label);
        progress.ticking()
    }

    /// A line that is never drawn, for callers that report no progress (the server's own
    /// backup route).
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
            unit: Unit::Records,
            label: String::new(),
        }
    }

    /// Counts `n` more records or bytes done.
    pub fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Adds `n` to the work expected, and shows the bar and the time left (again, after a
    /// [`stage`](Progress::stage)). Adding, not setting, lets a caller count work it
    /// discovers in parts, or again (a backup that takes a second copy).
    pub fn add_to_total(&self, n: u64) {
        self.bar.set_length(self.bar.length().unwrap_or(0) + n);
        self.bar.set_style(style(self.unit, true));
        self.bar.set_message(self.label.clone());
    }

    /// Shows `label` and the time since, after a spinner, instead of the counts: for a step
    /// that counts nothing (checking a copy, applying, saving), so the line does not sit at
    /// 100% with its rate falling. [`add_to_total`](Progress::add_to_total) brings the
    /// counts back.
    pub fn stage(&self, label: &str) {
        self.bar.reset_elapsed();
        self.bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}, {elapsed}")
                .expect("a valid progress template"),
        );
        self.bar.set_message(label.to_string());
    }

    /// Whether the line is drawn at all (stderr is a terminal).
    pub fn is_drawn(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// Replaces the words after a [`step`](Progress::step)'s spinner, its time going on: for
    /// a line that shows figures of its own (`taskd bench`'s rate, errors and p99 so far).
    pub fn say(&self, text: String) {
        self.bar.set_message(text);
    }

    /// Ends the line and clears it; the same as dropping it, said where the work ends.
    pub fn finish(self) {}

    /// A line of `unit`s to be drawn to `target`, not yet [`ticking`](Progress::ticking).
    fn drawn_to(
        target: ProgressDrawTarget,
        unit: Unit,
        label: &str,
        total: Option<u64>,
    ) -> Progress {
        let bar = ProgressBar::with_draw_target(total, target)
            .with_style(style(unit, total.is_some()))
            .with_message(label.to_string());
        Progress {
            bar,
            unit,
            label: label.to_string(),
        }
    }

    /// Starts redrawing the line every [`TICK`] (the first draw at once), once its style is
    /// set. The ticker is a thread: only worth it when something is drawn.
    fn ticking(self) -> Progress {
        if !self.bar.is_hidden() {
            self.bar.enable_steady_tick(TICK);
        }
        self
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Stderr when it is a terminal, else nothing. indicatif hides a bar on a stderr that is
/// not a terminal by itself too; this says so where it matters.
fn stderr_target() -> ProgressDrawTarget {
    if io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// The line's layout: `label [bar] done/total unit, rate, time left` with a total, else
/// `label done unit, rate, time so far` after a spinner.
fn style(unit: Unit, total: bool) -> ProgressStyle {
    // The bar takes the width the figures leave, so the line never wraps.
    let template = match (unit, total) {
        (Unit::Records, true) => {
            "{msg} [{wide_bar}] {human_pos}/{human_len} records, {rate}, {eta} left"
        }
        (Unit::Bytes, true) => "{msg} [{wide_bar}] {bytes}/{total_bytes}, {rate}, {eta} left",
        (Unit::Records, false) => "{spinner} {msg} {human_pos} records, {rate}, {elapsed}",
        (Unit::Bytes, false) => "{spinner} {msg} {bytes}, {rate}, {elapsed}",
    };
    ProgressStyle::with_template(template)
        .expect("a valid progress template")
        .progress_chars("=> ")
        .with_key(
            "rate",
            move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                // Whole records a second: indicatif's `per_sec` shows four decimals.
                let per_sec = state.per_sec();
                let _ = match unit {
                    Unit::Records => write!(out, "{}/s", HumanCount(per_sec as u64)),
                    Unit::Bytes => write!(out, "{}/s", indicatif::HumanBytes(per_sec as u64)),
                };
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A terminal 100 columns wide that keeps every line drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<Vec<String>>>);

    impl Screen {
        /// The lines drawn so far, without the blanks that pad over a longer line before.
        fn lines(&self) -> Vec<String> {
            let drawn = self.0.lock().unwrap();
            drawn
                .iter()
                .filter(|l| !l.trim().is_empty())
                .cloned()
                .collect()
        }
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.0.lock().unwrap().push(s.to_string());
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// How full the bar of `line` is drawn, from 0 to 1.
    fn fill(line: &str) -> f64 {
        let bar = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
        bar.matches('=').count() as f64 / bar.chars().count() as f64
    }

    fn on(screen: &Screen, unit: Unit, label: &str, total: Option<u64>) -> Progress {
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        Progress::drawn_to(target, unit, label, total).ticking()
    }

    #[test]
    fn a_record_count_with_a_total_shows_done_of_total_a_rate_and_the_time_left() {
        let screen = Screen::default();
        let progress = on(&screen, Unit::Records, "exporting", Some(12_000));
        progress.advance(3_000);
        std::thread::sleep(Duration::from_millis(300));
        progress.advance(1_000);
        // Drawn by the steady tick, not by the advance itself.
        std::thread::sleep(Duration::from_millis(300));
        let lines = screen.lines();
        let last = lines.last().expect("a line drawn");
        assert!(
            last.starts_with("exporting [")
                && (fill(last) - 1.0 / 3.0).abs() < 0.05
                && last.contains("] 4,000/12,000 records, ")
                && last.contains("/s, ")
                && last.ends_with(" left"),
            "{lines:?}"
        );
        progress.finish();
    }

    #[test]
    fn a_byte_count_learns_its_total_later_and_then_shows_a_bar() {
        let screen = Screen::default();
        let progress = on(&screen, Unit::Bytes, "copying", None);
        progress.advance(2048);
        std::thread::sleep(Duration::from_millis(300));
        let before = screen.lines();
        assert!(
            before
                .iter()
                .any(|l| l.contains("copying 2.00 KiB, ") && l.contains("/s, ")),
            "{before:?}"
        );
        progress.add_to_total(4096);
        progress.add_to_total(4096);
        progress.advance(2048);
        std::thread::sleep(Duration::from_millis(300));
        let after = screen.lines();
        let last = after.last().unwrap();
        assert!(
            last.starts_with("copying [")
                && (fill(last) - 0.5).abs() < 0.05
                && last.contains("] 4.00 KiB/8.00 KiB, "),
            "{after:?}"
        );
    }

    #[test]
    fn a_stage_shows_its_label_and_time_instead_of_the_counts_until_more_work_comes() {
        let screen = Screen::default();
        let progress = on(&screen, Unit::Bytes, "copying", Some(100));
        progress.advance(100);
        progress.stage("checking the copy");
        std::thread::sleep(Duration::from_millis(300));
        let lines = screen.lines();
        let last = lines.last().unwrap();
        assert!(last.ends_with(" checking the copy, 0s"), "{lines:?}");
        progress.add_to_total(100);
        std::thread::sleep(Duration::from_millis(300));
        let lines = screen.lines();
        let last = lines.last().unwrap();
        assert!(
            last.starts_with("copying [") && last.contains("] 100 B/200 B, "),
            "{lines:?}"
        );
    }

    #[test]
    fn a_hidden_line_draws_nothing_and_still_counts() {
        let progress = Progress::hidden();
        progress.advance(5);
        assert_eq!(progress.bar.position(), 5);
        assert!(progress.bar.is_hidden());
    }
}
