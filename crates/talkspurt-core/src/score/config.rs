//! How calls are scored: the `[analysis]` settings, one set for every call
//! of a run.

use crate::metrics::rtpi::{MissingPredecessor, RtpiSilence};
use crate::metrics::{DEFAULT_RTPI_THRESHOLD_NS, DEFAULT_RUN_CAP, DEFAULT_WINDOW_PACKETS};
use crate::time::SimDuration;

/// How calls are scored (`[analysis]`); applies to every call of the run.
/// Docs: docs/scenario.md, docs/models/metrics.md.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisCfg {
    /// Seed 002 Algorithm 1 inter-arrival threshold for the Real-Time
    /// Performance Index and Delayed Packets Rate. Default 300 ms (the
    /// seed's value); must be > 0.
    pub rtpi_threshold: SimDuration,
    /// What Algorithm 1 does when a packet's predecessor has not arrived
    /// before it. Default `delayed`, Algorithm 1 as written (see
    /// metrics::rtpi).
    pub rtpi_missing: MissingPredecessor,
    /// What Algorithm 1 does with a talkspurt's first packet. Default
    /// `count` (as written: compared like any other).
    pub rtpi_silence: RtpiSilence,
    /// Running window, in packets, of the per-packet windowed impairments
    /// in the packets table (seed 000 Fig. 5.7: 100). ≥ 1.
    pub window: u32,
    /// Compute the offline bounds per call: Moon–Kurose–Towsley per
    /// talkspurt (reduced and full E-model) and the best fixed delay
    /// (Tao–Guérin). Default true.
    pub bounds: bool,
    /// Seed 003 §7.2's P_J: the fraction of jitter samples (difference of
    /// successive inter-packet gaps at the receiver) above this "buffer
    /// value". Default 400 ms, the seed's buffer. > 0.
    pub jitter_threshold: SimDuration,
    /// Back-to-back run histograms fold runs of `run_cap` packets or more
    /// into the last bin (seed 004's figures: 200). ≥ 1.
    pub run_cap: u32,
    /// Measurement interval of the traffic table's goodput, sent rate and
    /// TCP counters (default: the whole generation period).
    pub interval: Option<(SimDuration, SimDuration)>,
    /// The mouth-to-ear delay the E-model scores. Default `Playout`.
    pub delay: DelayModel,
    /// Exact scoring over stored records, or streaming in flat memory.
    pub scoring: Scoring,
}

/// How a call's packets reach scoring (issue 14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scoring {
    /// Every packet is recorded and the call scored at the end: exact
    /// percentiles and the offline bounds. Memory grows with the packets.
    #[default]
    Exact,
    /// Packets are folded into per-call accumulators as they settle
    /// (score::stream): flat memory; percentiles from a log histogram
    /// (relative error ≤ 1/256), no offline bounds, no packets table.
    Streaming,
}

/// Which delay the E-model takes as the call's mouth-to-ear delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DelayModel {
    /// Packetization + look-ahead + the playout buffer's mean playout delay
    /// (from generation) over played packets: what the call's buffer did.
    #[default]
    Playout,
    /// Seed 001 §3 (Avella & Kakani, after Karam & Tobagi): D = T_f + l +
    /// T_n + T_j with a jitter buffer of T_j = 2·T_f, per arrived packet
    /// (T_f its formation time, l the codec's look-ahead, T_n its delay
    /// from generation to arrival), averaged. Loss still comes from the
    /// call's playout buffer.
    Avella,
}

impl Default for AnalysisCfg {
    fn default() -> Self {
        AnalysisCfg {
            rtpi_threshold: SimDuration(DEFAULT_RTPI_THRESHOLD_NS),
            rtpi_missing: MissingPredecessor::Delayed,
            rtpi_silence: RtpiSilence::Count,
            window: DEFAULT_WINDOW_PACKETS as u32,
            bounds: true,
            jitter_threshold: SimDuration(400_000_000),
            run_cap: DEFAULT_RUN_CAP as u32,
            interval: None,
            delay: DelayModel::Playout,
            scoring: Scoring::Exact,
        }
    }
}
