//! What a call was (`CallInfo`, the scorer's input beside the records) and
//! its row (`CallSummary`, the scorer's output): shared by the scorer
//! (`calls.rs`), the bounds (`bounds.rs`) and the tables (`summary.rs`).

use crate::playout::PlayoutKind;
use crate::quality::{self, EModelParams};
use crate::time::SimDuration;
use crate::voice::Codec;

/// What a call was, for scoring and for its row.
#[derive(Clone, Debug)]
pub struct CallInfo {
    pub group: String,
    pub codec: Codec,
    pub ptime: SimDuration,
    /// The source's frame: the codec's, or a bit-rate adaptation's packet
    /// interval (`avoip`); a packet carries `frames` × `frame` of speech.
    pub frame: SimDuration,
    pub transport: &'static str,
    pub playout: PlayoutKind,
    /// E-model advantage factor A (G.107 §7.6), default 0.
    pub advantage: f64,
    pub start_s: f64,
    /// End of the call's generation period (goodput's denominator).
    pub stop_s: f64,
}

impl CallInfo {
    /// The constant part of mouth-to-ear delay, ms: packetization (the
    /// first sample waits a whole ptime) plus the codec's look-ahead.
    pub fn offset_ms(&self) -> f64 {
        self.ptime.as_millis_f64() + self.codec.lookahead.as_millis_f64()
    }

    /// G.107 inputs for a mouth-to-ear delay `d_ms`, a loss fraction and
    /// BurstR (the codec's Ie/Bpl; NaN when the codec has none).
    pub fn g107_params(&self, d_ms: f64, loss: f64, burst_r: f64) -> EModelParams {
        let (ie, bpl) = quality::codec_impairment(self.codec.emodel_key).unwrap_or((f64::NAN, f64::NAN));
        EModelParams { t: d_ms, ta: d_ms, tr: 2.0 * d_ms, ie, bpl, ppl: loss * 100.0, burst_r, a: self.advantage, ..EModelParams::default() }
    }
}

/// One row of the calls table. NaN where a value is undefined (nothing
/// arrived, no runs, codec without coefficients…).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallSummary {
    pub generated: u64,
    pub sender_drop: u64,
    pub queue_drop: u64,
    pub link_loss: u64,
    pub in_flight: u64,
    pub arrived: u64,
    pub late: u64,
    pub played: u64,
    // Loss fractions of generated packets and seed 003's stage rates.
    pub loss_sender: f64,
    pub loss_queue: f64,
    pub loss_link: f64,
    pub loss_in_flight: f64,
    pub loss_late: f64,
    pub loss_network: f64,
    pub loss_before_playout: f64,
    pub loss_total: f64,
    pub p_tp: f64,
    pub per: f64,
    pub p_j: f64,
    pub loss_combined: f64,
    // One-way delay (generation → arrival) and jitter.
    pub delay_mean_ms: f64,
    pub delay_p50_ms: f64,
    pub delay_p95_ms: f64,
    pub delay_p99_ms: f64,
    pub delay_max_ms: f64,
    /// Time from generation to first transmission (the send buffer's
    /// wait, seed 000 §5.2) over packets sent: mean and 95th percentile.
    pub sender_wait_mean_ms: f64,
    pub sender_wait_p95_ms: f64,
    pub jitter_ms: f64,
    /// Seed 003's gap jitter where the packet leaves the sending host
    /// (`t_sent`, after the transport's send buffer and pacer).
    pub jitter_sender_mean_ms: f64,
    pub jitter_sender_max_ms: f64,
    /// The same at the application→transport boundary (`t_generated`,
    /// the instant the codec hands the packet to the transport): the
    /// source's own timing, before any send buffer or pacer.
    pub jitter_app_mean_ms: f64,
    pub jitter_app_max_ms: f64,
    pub jitter_receiver_mean_ms: f64,
    pub jitter_receiver_max_ms: f64,
    pub p_j_jitter: f64,
    // Seed 002 Algorithm 1.
    pub rtpi: f64,
    pub dpr: f64,
    pub delayed: u64,
    // Seed 004 back-to-back runs (lengths in packets).
    pub lost_runs: u64,
    pub lost_run_mean: f64,
    pub lost_run_var: f64,
    pub lost_run_max: f64,
    pub received_runs: u64,
    pub received_run_mean: f64,
    pub received_run_var: f64,
    pub received_run_max: f64,
    // Seed 001 clips.
    pub clips: u64,
    pub lost_speech_s: f64,
    pub clip_mean_ms: f64,
    pub clip_max_ms: f64,
    // Payload goodput, bit/s over the call's generation period.
    pub goodput_bps: f64,
    pub goodput_played_bps: f64,
    // The playout buffer and quality.
    pub buffer_ms: f64,
    pub mouth_to_ear_ms: f64,
    /// Seed 001 §3's budget delay D = 3·T_f + l + T_n, mean over arrived
    /// packets (ms).
    pub delay_budget_ms: f64,
    /// BurstR fed to G.107: the estimate clamped to Table 3's [1, 8].
    pub burst_r: f64,
    /// The BurstR estimate of the not-played sequence (NaN: undefined).
    pub burst_r_measured: f64,
    pub ie_eff: f64,
    pub r: f64,
    pub mos: f64,
    /// G.107 R of this buffer's delay and loss with BurstR = 1, as the
    /// G.107 bound scores: `bound_g107_r − r_random` is the buffer's gap.
    pub r_random: f64,
    pub r_simple: f64,
    pub mos_simple: f64,
    pub emodel_extrapolated: bool,
    // Offline bounds (NaN when `[analysis] bounds = false`).
    pub bound_r: f64,
    pub bound_mos: f64,
    pub bound_played: f64,
    pub bound_loss: f64,
    pub bound_delay_ms: f64,
    pub bound_g107_r: f64,
    pub bound_g107_mos: f64,
    pub bound_g107_played: f64,
    pub bound_g107_loss: f64,
    pub bound_g107_delay_ms: f64,
    pub fixed_r: f64,
    pub fixed_delay_ms: f64,
    pub fixed_loss: f64,
    pub fixed_g107_r: f64,
    pub fixed_g107_delay_ms: f64,
    pub fixed_g107_loss: f64,
}
