//! The one way taskd lowers a thread's priority: the threads that do work which grows with
//! a space (snapshots, long writes, heavy answers) run at [`BACKGROUND_NICE`], so that
//! when the cores are contended the HTTP workers and the space actors get them first
//! (docs §21). A thread that has slept is still run soon after it wakes, whatever its
//! nice value; only one that keeps a core gets the smaller share.
//!
//! Below every layer that uses them: the heavy pool ([`heavy`]), which the fronts, the
//! core and the space actors all run their long work on, and the keyed turns ([`turns`]).

pub(crate) mod heavy;
pub(crate) mod turns;

/// The nice value of background threads: the kernel gives a thread at nice 0 about ten
/// times the CPU of one at nice 10 when both want it.
pub(crate) const BACKGROUND_NICE: i32 = 10;

/// Lowers the calling thread's priority to [`BACKGROUND_NICE`] (on Linux,
/// `setpriority(PRIO_PROCESS, 0)` sets the calling thread's nice value only); `what`
/// names the thread in the warning logged when it cannot.
pub(crate) fn run_in_background(what: &str) {
    if let Err(e) = rustix::process::setpriority_process(None, BACKGROUND_NICE) {
        log::warn!("cannot lower the priority of {what}: {e}");
    }
}
