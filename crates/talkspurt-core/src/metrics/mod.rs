//! Per-call and per-run metrics of the seed studies, as pure functions over
//! one call's columns (generation order, index = sequence number in the call).
//! No I/O, no external crates; reuses [`crate::quality`] (run lengths, the
//! simplified E-model) instead of reimplementing it.
//!
//! Column conventions (all times integer nanoseconds of simulated time):
//! `talkspurt` non-decreasing talkspurt id; `t_gen` generation time;
//! `t_sent` time handed to the network, [`NOT_ARRIVED`] (`u64::MAX`) for a
//! sender drop; `t_arr` arrival at the receiving application, `u64::MAX` if
//! it never arrived; `played` playout time, `u64::MAX` if not played (lost
//! or late).
//!
//! | file | metric | seed |
//! |---|---|---|
//! | [`rtpi`] | Real-Time Performance Index, Delayed Packets Rate (Algorithm 1) | 002 §III.B |
//! | [`jitter`] | jitter as the difference of successive inter-packet gaps, avg/max, sender and receiver | 003 §5, Tables 4, 6 |
//! | [`decomposition`] | loss by cause: sender P_TP, queue, link, late P_J, total | 003 §5.1, §7.2 |
//! | [`runs`] | back-to-back lost / received runs: mean, variance, capped histogram | 004 §5.1, Tables 4–5, Figs 7–8, 11–12 |
//! | [`mod@clips`] | clips, lost-speech seconds | 001 §5, §7, §7.55 |
//! | [`oscillation`] | direction changes of a series (ptime oscillations) | 001 §5, §7.2 |
//! | [`fairness`] | goodput, Jain's fairness index | 002 §III.B, 003 §8 |
//! | [`adaptation`] | adaptation changes per minute, mean ptime / bit rate, reaction time | 001 §7, 004 §5 |
//! | [`window`] | per-packet delay impairment and running-window loss impairment | 000 §5, Fig. 5.7 |
//!
//! Formulas, sources and the readings chosen where a seed is vague:
//! `docs/models/metrics.md`.

pub mod adaptation;
pub mod clips;
pub mod decomposition;
pub mod fairness;
pub mod jitter;
pub mod oscillation;
pub mod rtpi;
pub mod runs;
pub mod window;

pub use crate::playout::NOT_ARRIVED;

pub use clips::{clips, clips_by, ClipStats};
pub use decomposition::{loss_counts, loss_decomposition, LossCounts, LossDecomposition};
pub use fairness::{delivered_bytes, goodput_bps, jain_index};
pub use jitter::{gap_jitter, gap_jitter_over, gap_jitter_samples, jitter_exceedance, GapJitter, GapJitterStream};
pub use oscillation::{oscillations, Oscillations};
pub use rtpi::{
    real_time_performance, real_time_performance_spurts, MissingPredecessor, RealTimePerformance, RtpiSilence, DEFAULT_RTPI_THRESHOLD_NS,
};
pub use runs::{back_to_back, back_to_back_of_runs, histogram_bins, nonzero_bins, not_played, run_moments, run_stats, BackToBack, RunStats, DEFAULT_RUN_CAP};
pub use window::{windowed_impairments, WindowedPoint, DEFAULT_WINDOW_PACKETS};

/// `x / n` as f64, `None` when `n == 0`.
pub(crate) fn ratio(x: u64, n: u64) -> Option<f64> {
    if n == 0 {
        None
    } else {
        Some(x as f64 / n as f64)
    }
}

/// Test shorthand: one millisecond in nanoseconds.
#[cfg(test)]
pub(crate) const MS: u64 = 1_000_000;

/// Test shorthand: "not arrived / not played".
#[cfg(test)]
pub(crate) const X: u64 = crate::playout::NOT_ARRIVED;

/// Test shorthand: milliseconds to nanoseconds, keeping `X` as is.
#[cfg(test)]
pub(crate) fn ms(v: &[u64]) -> Vec<u64> {
    v.iter().map(|&t| if t == X { X } else { t * MS }).collect()
}

#[cfg(test)]
pub(crate) fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
}
