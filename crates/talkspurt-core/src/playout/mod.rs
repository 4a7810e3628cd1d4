//! Receiver playout buffers, applied offline to one call's packet trace.
//!
//! Everything here is a pure function of a [`CallTrace`]: the online buffers
//! replay the receiver's decisions causally (packets are processed in arrival
//! order, a talkspurt's playout offset is fixed when its first packet
//! arrives), the offline bounds look at the whole trace at once.
//!
//! Playout model (Ramjee et al. 1994, §2; Moon, Kurose & Towsley 1998, §2):
//! packet `i` of talkspurt `k` is played at `t_gen[i] + offset_k`; one offset
//! per talkspurt, so the talkspurt keeps its original timing. A packet that
//! arrives after its playout time (`t_arr > t_gen + offset_k`) is *late* and
//! discarded; arriving exactly at the playout time is in time. Like the MKT
//! bound, nothing here models two talkspurts overlapping at playout.
//!
//! | module | what |
//! |---|---|
//! | [`online`] | fixed delay, fixed depth, the causal replay driver |
//! | [`ramjee`] | Ramjee–Kurose–Towsley–Schulzrinne 1994 algorithms 1–4 |
//! | [`quantile`] | windowed delay-quantile buffer (softphone style) |
//! | [`optimal`] | Moon–Kurose–Towsley per-talkspurt optimum, E-model scored |
//! | [`tao_guerin`] | best single fixed delay for the whole call |
//! | [`spurt_delays`], `prepared` | what the bounds read: each talkspurt's distinct delays with counts |
//!
//! Formulas, constants, sources and readings: `docs/models/playout.md`.

pub mod online;
pub mod optimal;
mod prepared;
pub mod quantile;
pub mod ramjee;
pub mod spurt_delays;
pub mod tao_guerin;

#[cfg(test)]
pub(crate) mod testutil;

use std::fmt;

pub use online::{FixedDelay, FixedDepth, OnlinePlayout};
pub use optimal::{
    min_average_delay_curve, min_average_impairment_curve, optimal_playout,
    optimal_playout_generic, optimal_playout_generic_prepared, optimal_playout_prepared, OptimalPlayout, Prepared,
    TalkspurtChoice,
};
pub use quantile::QuantileBuffer;
pub use spurt_delays::SpurtDelays;
pub use ramjee::{RamjeeAsymmetric, RamjeeEwma, RamjeeMinDelay, RamjeeSpike};
pub use tao_guerin::{
    fixed_delay_bound, fixed_delay_bound_generic, fixed_delay_bound_generic_prepared, fixed_delay_bound_prepared,
    FixedDelayBound,
};

/// Sentinel for a packet that never arrived (sender drop, queue drop, link loss).
pub const NOT_ARRIVED: u64 = u64::MAX;

/// Nanoseconds per millisecond.
pub(crate) const NS_PER_MS: f64 = 1e6;

/// One call's voice packets in generation order. Times are integer nanoseconds of simulated time.
pub struct CallTrace<'a> {
    pub talkspurt: &'a [u32], // non-decreasing talkspurt id per packet
    pub t_gen: &'a [u64],     // time the packet was generated (packetization complete), strictly increasing
    pub t_arr: &'a [u64],     // arrival time at the receiver, or NOT_ARRIVED
}

/// Why a trace was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayoutError {
    /// The three columns differ in length.
    LengthMismatch { talkspurt: usize, t_gen: usize, t_arr: usize },
    /// `talkspurt[index] < talkspurt[index - 1]`.
    TalkspurtDecreasing { index: usize },
    /// `t_gen[index] <= t_gen[index - 1]`.
    GenerationNotIncreasing { index: usize },
    /// `t_arr[index] < t_gen[index]`: arrived before it was generated.
    ArrivalBeforeGeneration { index: usize },
}

impl fmt::Display for PlayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayoutError::LengthMismatch { talkspurt, t_gen, t_arr } => write!(
                f,
                "trace columns differ in length: talkspurt {talkspurt}, t_gen {t_gen}, t_arr {t_arr}"
            ),
            PlayoutError::TalkspurtDecreasing { index } => {
                write!(f, "talkspurt id decreases at packet {index}")
            }
            PlayoutError::GenerationNotIncreasing { index } => {
                write!(f, "t_gen is not strictly increasing at packet {index}")
            }
            PlayoutError::ArrivalBeforeGeneration { index } => {
                write!(f, "packet {index} arrives before it is generated")
            }
        }
    }
}

impl std::error::Error for PlayoutError {}

/// A maximal run of packets sharing one talkspurt id: `start..end` in the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    pub id: u32,
    pub start: usize,
    pub end: usize,
}

impl<'a> CallTrace<'a> {
    /// Number of packets (generated, whatever their fate).
    pub fn len(&self) -> usize {
        self.t_gen.len()
    }

    /// True when the trace has no packets.
    pub fn is_empty(&self) -> bool {
        self.t_gen.is_empty()
    }

    /// Checks the invariants documented on the fields.
    pub fn validate(&self) -> Result<(), PlayoutError> {
        let n = self.t_gen.len();
        if self.talkspurt.len() != n || self.t_arr.len() != n {
            return Err(PlayoutError::LengthMismatch {
                talkspurt: self.talkspurt.len(),
                t_gen: n,
                t_arr: self.t_arr.len(),
            });
        }
        for i in 0..n {
            if i > 0 && self.talkspurt[i] < self.talkspurt[i - 1] {
                return Err(PlayoutError::TalkspurtDecreasing { index: i });
            }
            if i > 0 && self.t_gen[i] <= self.t_gen[i - 1] {
                return Err(PlayoutError::GenerationNotIncreasing { index: i });
            }
            if self.t_arr[i] != NOT_ARRIVED && self.t_arr[i] < self.t_gen[i] {
                return Err(PlayoutError::ArrivalBeforeGeneration { index: i });
            }
        }
        Ok(())
    }

    /// Network delay of packet `i` in ns, `None` if it never arrived.
    #[inline]
    pub fn network_delay(&self, i: usize) -> Option<u64> {
        match self.t_arr[i] {
            NOT_ARRIVED => None,
            a => Some(a - self.t_gen[i]),
        }
    }

    /// Number of packets that arrived.
    pub fn arrived(&self) -> usize {
        self.t_arr.iter().filter(|&&a| a != NOT_ARRIVED).count()
    }

    /// Talkspurts as maximal runs of equal id, in trace order.
    pub(crate) fn runs(&self) -> Vec<Run> {
        let ts = self.talkspurt;
        let mut runs = Vec::new();
        let mut start = 0;
        while start < ts.len() {
            // Each run's end by a scan of its own ids (issue 14: an index
            // loop comparing with the run's first id cost 16 instructions
            // a packet).
            let id = ts[start];
            let end = start + ts[start..].iter().position(|&s| s != id).unwrap_or(ts.len() - start);
            runs.push(Run { id, start, end });
            start = end;
        }
        runs
    }
}

/// Online playout buffers, selected by name (`PlayoutKind::from_name`).
#[derive(Debug, Clone, PartialEq)]
pub enum PlayoutKind {
    /// `"fixed"`: constant offset for the whole call.
    Fixed(FixedDelay),
    /// `"fixed-depth"`: first arrival of each talkspurt plus k packetization times.
    FixedDepth(FixedDepth),
    /// `"ramjee-1"`: EWMA of delay and variation.
    RamjeeEwma(RamjeeEwma),
    /// `"ramjee-2"`: EWMA with a faster weight for increasing delays.
    RamjeeAsymmetric(RamjeeAsymmetric),
    /// `"ramjee-3"`: minimum delay of the previous talkspurt.
    RamjeeMinDelay(RamjeeMinDelay),
    /// `"ramjee-4"`: EWMA with delay-spike detection.
    RamjeeSpike(RamjeeSpike),
    /// `"quantile"`: windowed delay quantile, clamped buffer depth.
    Quantile(QuantileBuffer),
}

impl PlayoutKind {
    /// Every name accepted by [`PlayoutKind::from_name`].
    pub const NAMES: [&'static str; 7] = [
        "fixed",
        "fixed-depth",
        "ramjee-1",
        "ramjee-2",
        "ramjee-3",
        "ramjee-4",
        "quantile",
    ];

    /// The buffer with that name and its documented default configuration.
    pub fn from_name(name: &str) -> Option<PlayoutKind> {
        Some(match name {
            "fixed" => PlayoutKind::Fixed(FixedDelay::default()),
            "fixed-depth" => PlayoutKind::FixedDepth(FixedDepth::default()),
            "ramjee-1" => PlayoutKind::RamjeeEwma(RamjeeEwma::default()),
            "ramjee-2" => PlayoutKind::RamjeeAsymmetric(RamjeeAsymmetric::default()),
            "ramjee-3" => PlayoutKind::RamjeeMinDelay(RamjeeMinDelay::default()),
            "ramjee-4" => PlayoutKind::RamjeeSpike(RamjeeSpike::default()),
            "quantile" => PlayoutKind::Quantile(QuantileBuffer::default()),
            _ => return None,
        })
    }

    /// The name this kind is selected by.
    pub fn name(&self) -> &'static str {
        match self {
            PlayoutKind::Fixed(_) => "fixed",
            PlayoutKind::FixedDepth(_) => "fixed-depth",
            PlayoutKind::RamjeeEwma(_) => "ramjee-1",
            PlayoutKind::RamjeeAsymmetric(_) => "ramjee-2",
            PlayoutKind::RamjeeMinDelay(_) => "ramjee-3",
            PlayoutKind::RamjeeSpike(_) => "ramjee-4",
            PlayoutKind::Quantile(_) => "quantile",
        }
    }

    /// [`playout`](Self::playout), told the packets of `lines`: ranges in
    /// which every packet arrived a fixed time after its generation
    /// (`CallRecord::columns_lined`: blocks stored uniform), in order. A
    /// fixed delay decides such a range at once (issue 26); the others
    /// play packet by packet.
    pub fn playout_lined(&self, trace: &CallTrace<'_>, lines: &[std::ops::Range<usize>]) -> Vec<u64> {
        match self {
            PlayoutKind::Fixed(c) => c.playout_lined(trace, lines),
            _ => self.playout(trace),
        }
    }

    /// Playout time per packet, [`NOT_ARRIVED`] where not played (lost or late).
    /// The trace must satisfy [`CallTrace::validate`].
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        match self {
            PlayoutKind::Fixed(c) => c.playout(trace),
            PlayoutKind::FixedDepth(c) => c.playout(trace),
            PlayoutKind::RamjeeEwma(c) => c.playout(trace),
            PlayoutKind::RamjeeAsymmetric(c) => c.playout(trace),
            PlayoutKind::RamjeeMinDelay(c) => c.playout(trace),
            PlayoutKind::RamjeeSpike(c) => c.playout(trace),
            PlayoutKind::Quantile(c) => c.playout(trace),
        }
    }
}

impl PlayoutKind {
    /// The buffer as a streaming replay (score::stream): the decisions of
    /// `playout` when fed the same arrivals in the same order. A fixed
    /// depth without its `ptime` takes 20 ms, the fallback of its
    /// inference (the scenario always fills it in).
    pub fn online(&self) -> OnlinePlayout {
        let policy: Box<dyn online::OffsetPolicy + Send + Sync> = match self {
            PlayoutKind::Fixed(c) => Box::new(online::FixedPolicy { delay: c.delay }),
            PlayoutKind::FixedDepth(c) => Box::new(c.policy(c.ptime.unwrap_or(20_000_000))),
            PlayoutKind::RamjeeEwma(c) => ramjee::policy(c.rule(), c.beta, c.initial_variation),
            PlayoutKind::RamjeeAsymmetric(c) => ramjee::policy(c.rule(), c.beta, c.initial_variation),
            PlayoutKind::RamjeeMinDelay(c) => ramjee::policy(c.rule(), c.beta, c.initial_variation),
            PlayoutKind::RamjeeSpike(c) => ramjee::policy(c.rule(), c.beta, c.initial_variation),
            PlayoutKind::Quantile(c) => c.policy(),
        };
        OnlinePlayout::new(policy)
    }
}

/// Quality of one playout schedule under the Cole–Rosenbluth reduced E-model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// `R = R0 - mean(Id) - Il(loss)`.
    pub r: f64,
    /// Packets played.
    pub played: usize,
    /// Fraction of all generated packets not played (lost in the network or late).
    pub loss_fraction: f64,
    /// Mean mouth-to-ear delay of the played packets, ms (`offset_ms` included).
    pub mean_delay_ms: f64,
    /// Mean delay impairment over the played packets.
    pub mean_id: f64,
}

/// Scores a playout schedule: every played packet `i` contributes
/// `id(offset_ms + (playout[i] - t_gen[i]) in ms)`, the mean of those is the
/// delay impairment, and `il` gets the fraction of generated packets not
/// played. With nothing played, `mean_id = 0` and the loss fraction is 1.
///
/// This is the scoring under which [`optimal_playout`] is optimal.
pub fn score(
    trace: &CallTrace<'_>,
    playout: &[u64],
    offset_ms: f64,
    r0: f64,
    id: impl Fn(f64) -> f64,
    il: impl Fn(f64) -> f64,
) -> Score {
    let (played, sum_delay, sum_id) = sums(trace, playout, offset_ms, &id);
    let loss_fraction = loss_fraction(trace.len(), played);
    let (mean_delay_ms, mean_id) = if played == 0 {
        (0.0, 0.0)
    } else {
        (sum_delay / played as f64, sum_id / played as f64)
    };
    Score { r: r0 - mean_id - il(loss_fraction), played, loss_fraction, mean_delay_ms, mean_id }
}

/// Scores a playout schedule with a caller's `r(mean mouth-to-ear delay ms,
/// loss fraction)`, e.g. the full G.107 E-model. `mean_id` is reported as 0.
pub fn score_generic(
    trace: &CallTrace<'_>,
    playout: &[u64],
    offset_ms: f64,
    r: impl Fn(f64, f64) -> f64,
) -> Score {
    let (played, sum_delay, _) = sums(trace, playout, offset_ms, &|_| 0.0);
    let loss_fraction = loss_fraction(trace.len(), played);
    let mean_delay_ms = if played == 0 { offset_ms } else { sum_delay / played as f64 };
    Score { r: r(mean_delay_ms, loss_fraction), played, loss_fraction, mean_delay_ms, mean_id: 0.0 }
}

fn sums(
    trace: &CallTrace<'_>,
    playout: &[u64],
    offset_ms: f64,
    id: &dyn Fn(f64) -> f64,
) -> (usize, f64, f64) {
    assert_eq!(playout.len(), trace.len(), "playout column length");
    let mut played = 0usize;
    let (mut sum_delay, mut sum_id) = (0.0, 0.0);
    // The playout delay repeats (one offset per talkspurt, often one per
    // call): equal delays share one evaluation of `id`, a pure function
    // (issue 14).
    let mut last: Option<(u64, f64, f64)> = None;
    for (i, &p) in playout.iter().enumerate() {
        if p == NOT_ARRIVED {
            continue;
        }
        debug_assert!(trace.t_arr[i] != NOT_ARRIVED && trace.t_arr[i] <= p);
        let wait = p - trace.t_gen[i];
        let (d, x) = match last {
            Some((w, d, x)) if w == wait => (d, x),
            _ => {
                let d = offset_ms + wait as f64 / NS_PER_MS;
                let x = id(d);
                last = Some((wait, d, x));
                (d, x)
            }
        };
        played += 1;
        sum_delay += d;
        sum_id += x;
    }
    (played, sum_delay, sum_id)
}

pub(crate) fn loss_fraction(total: usize, played: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        (total - played) as f64 / total as f64
    }
}

/// Converts a delay estimate in ms to whole ns, rounding, clamped at 0.
#[inline]
pub(crate) fn ms_to_ns(ms: f64) -> u64 {
    if ms.is_nan() || ms <= 0.0 {
        0
    } else {
        (ms * NS_PER_MS).round().min(u64::MAX as f64 / 2.0) as u64
    }
}

#[cfg(test)]
mod tests;
