//! What the benches share: latencies gathered from worker threads, and percentiles.

use std::thread::JoinHandle;
use std::time::Duration;

/// Every latency the `threads` measured, sorted.
pub fn gather(threads: Vec<JoinHandle<Vec<Duration>>>) -> Vec<Duration> {
    let mut latencies: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a bench thread panicked"))
        .collect();
    latencies.sort();
    latencies
}

/// The `p` percentile (0 to 1) of `sorted`, in milliseconds.
pub fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    sorted[i].as_secs_f64() * 1e3
}
