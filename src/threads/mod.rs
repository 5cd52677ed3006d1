//! The one way taskd lowers a thread's priority: the threads that do work which grows with
//! a space (snapshots, long writes, heavy answers) run at [`BACKGROUND_NICE`], so that
//! when the cores are contended the HTTP workers and the space actors get them first
//! (docs §21). A thread that has slept is still run soon after it wakes, whatever its
//! nice value; only one that keeps a core gets the smaller share.
//!
//! Below every layer that uses them: the heavy pool ([`heavy`]), which the fronts, the
//! core and the space actors all run their long work on, the keyed turns ([`turns`]), and
//! the one way a load does parts of its work side by side on scoped threads ([`beside`],
//! [`joined`]: a thread's panic goes on in its caller).

pub(crate) mod heavy;
pub(crate) mod turns;

/// The cores this process may use ([`std::thread::available_parallelism`], 1 when it cannot
/// tell), asked once: the standard library reads the cgroup's files each time it is asked,
/// and a start-up asked once a collection of every space (600,000 times for 100,000
/// spaces, about 14 of a restart's 33 seconds).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

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

/// Work begun on a thread of a [`std::thread::scope`], or left to be done where its value
/// is asked for ([`beside`]).
pub(crate) enum Beside<'scope, T, F> {
    Here(F),
    Apart(std::thread::ScopedJoinHandle<'scope, T>),
}

/// `work` begun on a thread of `scope` when `apart`, or left to be done here when its
/// value is asked for: the way a large load builds its parts side by side and a small one
/// in turn.
pub(crate) fn beside<'scope, T, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    apart: bool,
    work: F,
) -> Beside<'scope, T, F>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    match apart {
        true => Beside::Apart(scope.spawn(work)),
        false => Beside::Here(work),
    }
}

impl<T, F: FnOnce() -> T> Beside<'_, T, F> {
    /// The work's value: done now, or its thread's, joined.
    pub(crate) fn value(self) -> T {
        match self {
            Beside::Here(work) => work(),
            Beside::Apart(thread) => joined(thread),
        }
    }
}

/// The value a scoped thread's work returned; when the thread panicked, the panic goes on
/// in the caller.
pub(crate) fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
