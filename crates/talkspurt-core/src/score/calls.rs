//! Per-call summaries: losses by cause, delay and jitter (RFC 3550 and
//! seed 003's), the Real-Time Performance Index, back-to-back runs, clips,
//! goodput, the playout buffer's outcome, quality in both E-model forms,
//! and the offline bounds (`bounds.rs`).
//!
//! Readings (docs/results.md, docs/models/metrics.md): delays are measured
//! from packet generation (packetization complete) to arrival, so
//! sender-buffer waiting counts; mouth-to-ear = ptime + look-ahead +
//! mean(playout − generation) over played packets; the E-model's T and Ta
//! are the mouth-to-ear delay and Tr = 2·Ta; the loss fed to both E-model
//! forms is every generated packet not played (sender drops, network loss,
//! late, still in flight).

use super::bounds::{bounds_with, Bounds};
use super::row::{CallInfo, CallSummary};
use crate::metrics::adaptation::congestion_onset;
use crate::metrics::rtpi::real_time_performance_spurts;
use crate::metrics::{clips_by, histogram_bins, run_moments, delivered_bytes, gap_jitter, goodput_bps, loss_counts, loss_decomposition};
use crate::metrics::{gap_jitter_over, not_played, BackToBack, LossCounts};
use crate::playout::{self, CallTrace};
use crate::quality::{self, burst_stats_of_runs, KeptCurve};
use crate::score::{AnalysisCfg, DelayModel};
use crate::trace::record::{CallRecord, Columns};

/// A scored call: its row, its playout column (`NEVER` where not played),
/// its run statistics and histograms and its bounds.
pub struct Scored {
    pub summary: CallSummary,
    pub played: Vec<u64>,
    /// The lost and received runs' statistics; their histograms are in
    /// `bins`, so `histogram` is empty here.
    pub b2b: BackToBack,
    /// The non-empty bins of the call's histograms, as the bursts table
    /// lists them: lost runs, received runs, then clips (by length in
    /// packets, seed 001 Figs 11, 17), each by ascending length; the last
    /// bin (`run_cap`) holds those of `run_cap` or more. A few bins rather
    /// than three dense histograms of `run_cap + 1` counts: 4.8 KB a call at
    /// the default cap, 480 MB at 100 000 calls (issue 14).
    pub bins: Box<[Bin]>,
    pub bounds: Option<Bounds>,
    /// When the first queue-dropped packet was sent, ns
    /// (`metrics::adaptation::congestion_onset`): the report's adaptation
    /// columns read it here, from columns scoring decodes anyway, rather
    /// than scan every call's records again on one thread (issue 14).
    pub congestion_onset: Option<u64>,
}

impl Scored {
    /// A placeholder that scoring overwrites (`score_all`).
    pub(super) fn empty() -> Self {
        let none = run_moments(&[]);
        Scored {
            summary: CallSummary::default(),
            played: Vec::new(),
            b2b: BackToBack { lost: none.clone(), received: none },
            bins: Box::default(),
            bounds: None,
            congestion_onset: None,
        }
    }
}

/// One non-empty histogram bin of a call: a row of the bursts table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// 0 lost runs, 1 received runs, 2 clips (the table's `kind` codes).
    pub kind: u8,
    pub length: u32,
    pub runs: u64,
}

/// A call's bins from the (bin, count) lists of its lost runs, received
/// runs and clips.
pub(super) fn bins(lists: [Vec<(u32, u64)>; 3]) -> Box<[Bin]> {
    let mut v = Vec::with_capacity(lists.iter().map(Vec::len).sum());
    for (kind, list) in lists.into_iter().enumerate() {
        v.extend(list.into_iter().map(|(length, runs)| Bin { kind: kind as u8, length, runs }));
    }
    v.into_boxed_slice()
}

pub(super) const NAN: f64 = f64::NAN;

pub(super) fn ms(ns: f64) -> f64 {
    ns * 1e-6
}

pub(super) fn or_nan(x: Option<f64>) -> f64 {
    x.unwrap_or(NAN)
}

/// Score one call under its playout buffer.
pub fn score_call(rec: &CallRecord, info: &CallInfo, a: &AnalysisCfg) -> Scored {
    // Expanded one call at a time: only the compact records stay for the
    // run; columns are dropped after their last use, so that a long call's
    // peak is not every column at once (issue 14).
    let mut rec = rec.columns(false);
    let trace = CallTrace { talkspurt: &rec.talkspurt, t_gen: &rec.t_gen, t_arr: &rec.t_arr };
    let played = info.playout.playout(&trace);
    let mut s = CallSummary::default();
    losses(&mut s, &rec, &played);
    delays(&mut s, &rec, a, info.frame.as_nanos());
    let congestion_onset = congestion_onset(&rec.fate, &rec.t_sent);
    rec.t_sent = Vec::new();
    let rt = real_time_performance_spurts(&rec.t_arr, &rec.talkspurt, a.rtpi_threshold.as_nanos(), a.rtpi_missing, a.rtpi_silence)
        .expect("the scenario parser keeps the RTPI threshold > 0, and talkspurt is a column of the record");
    (s.rtpi, s.dpr, s.delayed) = (or_nan(rt.index), or_nan(rt.delayed_rate), rt.delayed);
    let lost = not_played(&played);
    // One split into runs for the back-to-back runs and BurstR (issue 14).
    let runs = quality::run_lengths(&lost);
    let cap = a.run_cap as usize;
    let b2b = BackToBack { lost: run_moments(&runs.lost), received: run_moments(&runs.received) };
    let (lost_bins, received_bins) = (histogram_bins(runs.lost.iter().copied(), cap), histogram_bins(runs.received.iter().copied(), cap));
    let measured = burst_stats_of_runs(&runs, lost.first().copied()).burst_r;
    drop(runs);
    (s.lost_runs, s.lost_run_mean, s.lost_run_var) = (b2b.lost.runs as u64, or_nan(b2b.lost.mean), or_nan(b2b.lost.variance));
    s.lost_run_max = b2b.lost.max.map_or(NAN, |m| m as f64);
    (s.received_runs, s.received_run_mean) = (b2b.received.runs as u64, or_nan(b2b.received.mean));
    s.received_run_var = or_nan(b2b.received.variance);
    s.received_run_max = b2b.received.max.map_or(NAN, |m| m as f64);
    let frame = info.frame.as_nanos();
    // Speech per packet, frames × frame duration, computed where read.
    let speech = |i: usize| rec.frames[i] as u64 * frame;
    let c = clips_by(&rec.talkspurt, &played, speech);
    let bins = bins([lost_bins, received_bins, histogram_bins(c.clip_packets.iter().copied(), cap)]);
    (s.clips, s.lost_speech_s) = (c.clips as u64, c.lost_speech_s());
    s.clip_mean_ms = c.mean_clip_ns.map_or(NAN, ms);
    s.clip_max_ms = c.max_clip_ns.map_or(NAN, |x| ms(x as f64));
    let active = ((info.stop_s - info.start_s).max(0.0) * 1e9).round() as u64;
    s.goodput_bps = or_nan(goodput_bps(delivered_bytes(&rec.payload, &rec.t_arr), active));
    s.goodput_played_bps = or_nan(goodput_bps(delivered_bytes(&rec.payload, &played), active));
    s.delay_budget_ms = delay_budget_ms(&rec.frames, frame, &rec.t_gen, &rec.t_arr, info.codec.lookahead.as_nanos());
    let mix = super::modes::mode_shares(&info.codec, &rec.frames, &rec.payload, &lost);
    (rec.frames, rec.payload) = (Vec::new(), Vec::new());
    // One G.107 curve for the call's own scores and its bounds: the fixed
    // terms are computed once (issue 14).
    let curve = KeptCurve::new(info.g107_params(0.0, 0.0, 1.0));
    buffer_and_quality(&mut s, &trace, &played, measured, info, a.delay, mix.as_deref(), &curve);
    drop(lost);
    let bounds = a.bounds.then(|| bounds_with(&trace, info, &curve));
    if let Some(b) = &bounds {
        b.summarize(&mut s);
    } else {
        s.clear_bounds();
    }
    Scored { summary: s, played, b2b, bins, bounds, congestion_onset }
}

/// Counts by fate and seed 003's decomposition (metrics::decomposition).
fn losses(s: &mut CallSummary, rec: &Columns, played: &[u64]) {
    losses_of(s, &loss_counts(&rec.fate, played));
}

/// The loss columns from the counts by fate.
pub(super) fn losses_of(s: &mut CallSummary, c: &LossCounts) {
    (s.generated, s.sender_drop, s.queue_drop, s.link_loss) = (c.generated, c.sender_drop, c.queue_drop, c.link_loss);
    (s.in_flight, s.arrived, s.late, s.played) = (c.in_flight, c.arrived(), c.late, c.played);
    match loss_decomposition(c) {
        Some(d) => {
            (s.loss_sender, s.loss_queue, s.loss_link, s.loss_in_flight) = (d.sender, d.queue, d.link, d.in_flight);
            (s.loss_late, s.loss_before_playout, s.loss_total) = (d.late, d.before_playout, d.total);
            s.loss_network = d.queue + d.link + d.in_flight;
            (s.p_tp, s.per, s.p_j, s.loss_combined) = (d.p_tp, or_nan(d.per), or_nan(d.p_j), d.combined);
        }
        None => {
            (s.loss_sender, s.loss_queue, s.loss_link, s.loss_in_flight) = (NAN, NAN, NAN, NAN);
            (s.loss_late, s.loss_network, s.loss_before_playout, s.loss_total) = (NAN, NAN, NAN, NAN);
            (s.p_tp, s.per, s.p_j, s.loss_combined) = (NAN, NAN, NAN, NAN);
        }
    }
}

fn delays(s: &mut CallSummary, rec: &Columns, a: &AnalysisCfg, frame_ns: u64) {
    // Network delays (ns) of the arrived packets in generation order. The
    // ms values are a monotone map of them (u64 → f64 → × 1e-6), so the
    // maximum and the percentiles are read from the sorted integers and
    // mapped: the same values as sorting the ms column (issue 14).
    let mut delays: Vec<u64> = Vec::with_capacity(rec.len());
    let mut arrivals: Vec<(u64, u64)> = Vec::with_capacity(rec.len());
    let mut sum = 0.0f64;
    for i in 0..rec.len() {
        if rec.t_arr[i] != crate::playout::NOT_ARRIVED {
            let d = rec.t_arr[i] - rec.t_gen[i];
            delays.push(d);
            // `quality::mean`'s sum: same values in the same order, from
            // +0.0 (the values are ≥ +0.0, so `Sum`'s start cannot matter).
            sum += ms(d as f64);
            // RFC 3550 §5.1: the RTP timestamp is the sampling instant of
            // the packet's first sample, its completion less its speech.
            arrivals.push((rec.t_gen[i] - rec.frames[i] as u64 * frame_ns, rec.t_arr[i]));
        }
    }
    s.delay_mean_ms = if delays.is_empty() { NAN } else { sum / delays.len() as f64 };
    sort_u64(&mut delays);
    // A sorted column mapped through a monotone map stays sorted: these
    // are the percentiles of the ms column.
    let pct = |v: &[u64], p: f64| if v.is_empty() { NAN } else { quality::percentile_of_sorted_by(v.len(), p, |i| ms(v[i] as f64)) };
    s.delay_max_ms = delays.last().map_or(NAN, |&d| ms(d as f64));
    (s.delay_p50_ms, s.delay_p95_ms, s.delay_p99_ms) = (pct(&delays, 50.0), pct(&delays, 95.0), pct(&delays, 99.0));
    drop(delays);
    let mut waits: Vec<u64> = Vec::with_capacity(rec.len());
    let mut sum = 0.0f64;
    for (&t, &g) in rec.t_sent.iter().zip(&rec.t_gen) {
        if t != crate::trace::record::NEVER {
            let w = t.saturating_sub(g);
            waits.push(w);
            sum += ms(w as f64);
        }
    }
    s.sender_wait_mean_ms = if waits.is_empty() { NAN } else { sum / waits.len() as f64 };
    sort_u64(&mut waits);
    s.sender_wait_p95_ms = pct(&waits, 95.0);
    drop(waits);
    // RFC 3550 §6.4.1 and A.8: jitter over packets in arrival order, on the
    // RTP timestamps (first-sample instants) a receiver sees. Usually
    // already in arrival order: the stable sort then only checks.
    if !arrivals.is_sorted_by_key(|&(_, a)| a) {
        arrivals.sort_by_key(|&(_, a)| a);
    }
    s.jitter_ms = if arrivals.is_empty() { NAN } else { quality::interarrival_jitter_ns(&arrivals) * 1e-6 };
    let sender = gap_jitter(&rec.talkspurt, &rec.t_sent);
    (s.jitter_sender_mean_ms, s.jitter_sender_max_ms) = (sender.mean_ns.map_or(NAN, ms), sender.max_ns.map_or(NAN, ms));
    // The same at the application→transport boundary: every generated
    // packet was handed to the transport, sender drops included.
    // Sent as generated (UDP, no sender buffer): the same column, so the
    // same samples; one pass instead of two (issue 26, ~27 instructions a
    // packet).
    let app = if rec.t_sent == rec.t_gen { sender } else { gap_jitter(&rec.talkspurt, &rec.t_gen) };
    (s.jitter_app_mean_ms, s.jitter_app_max_ms) = (app.mean_ns.map_or(NAN, ms), app.max_ns.map_or(NAN, ms));
    // Seed 003 §7.2: P_J as the probability of a jitter above the buffer.
    let (receiver, p_j) = gap_jitter_over(&rec.talkspurt, &rec.t_arr, a.jitter_threshold.as_nanos() as f64);
    (s.jitter_receiver_mean_ms, s.jitter_receiver_max_ms) = (receiver.mean_ns.map_or(NAN, ms), receiver.max_ns.map_or(NAN, ms));
    s.p_j_jitter = or_nan(p_j);
}

/// Ascending; a column already in order (the common case) is only checked.
fn sort_u64(v: &mut [u64]) {
    if !v.is_sorted() {
        v.sort_unstable();
    }
}

/// Seed 001 §3: D = T_f + l + T_n + 2·T_f per arrived packet (T_f its
/// speech, frames × `frame_ns`; T_n generation to arrival), the mean in
/// ms; NaN if none arrived.
/// The mean is summed as `quality::mean` sums (same values, order and
/// `Sum`), without collecting the values first (issue 14).
fn delay_budget_ms(frames: &[u16], frame_ns: u64, t_gen: &[u64], t_arr: &[u64], lookahead: u64) -> f64 {
    let mut n = 0usize;
    let sum: f64 = (0..t_gen.len())
        .filter(|&i| t_arr[i] != crate::playout::NOT_ARRIVED)
        .map(|i| (3 * (frames[i] as u64 * frame_ns) + lookahead + (t_arr[i] - t_gen[i])) as f64)
        .inspect(|_| n += 1)
        .sum();
    if n == 0 {
        NAN
    } else {
        ms(sum / n as f64)
    }
}

/// `curve`: `info.g107_params` as a [`KeptCurve`]; its `at` is
/// `emodel_extended` of the same inputs, bit for bit. `measured`: the
/// call's BurstR estimate (`burst_stats`) over its not-played flags.
#[allow(clippy::too_many_arguments)]
fn buffer_and_quality(s: &mut CallSummary, trace: &CallTrace<'_>, played: &[u64], measured: Option<f64>, info: &CallInfo, delay: DelayModel, mix: Option<&[quality::ModeShare]>, curve: &KeptCurve) {
    let buffer_sum: u64 = played
        .iter()
        .zip(trace.t_gen)
        .filter(|(&p, _)| p != crate::playout::NOT_ARRIVED)
        .map(|(&p, &g)| p - g)
        .sum();
    // Seed 000 §4.3's reduced form averages the delay impairment over the
    // played packets (not Id of the mean delay), the objective the MKT
    // bound optimises, so buffer and bound compare like for like.
    let r_simple = info.codec.lambda.map(|l| {
        let il = |e: f64| quality::loss_impairment_simplified(l, e);
        playout::score(trace, played, info.offset_ms(), quality::R0_SIMPLIFIED, quality::delay_impairment_simplified, il).r
    });
    quality_of(s, buffer_sum, measured, r_simple, info, delay, mix, curve);
}

/// The buffer and quality columns from the summed playout delay (ns, over
/// played packets), the measured BurstR and the reduced-form R (None for a
/// codec without λ); `s` already holds the counts and delay columns.
/// `curve`: `info.g107_params` as a [`KeptCurve`].
#[allow(clippy::too_many_arguments)]
pub(super) fn quality_of(s: &mut CallSummary, buffer_sum: u64, measured: Option<f64>, r_simple: Option<f64>, info: &CallInfo, delay: DelayModel, mix: Option<&[quality::ModeShare]>, curve: &KeptCurve) {
    s.buffer_ms = if s.played == 0 { NAN } else { ms(buffer_sum as f64) / s.played as f64 };
    s.mouth_to_ear_ms = match delay {
        DelayModel::Playout => info.offset_ms() + s.buffer_ms,
        DelayModel::Avella => s.delay_budget_ms,
    };
    // G.107 Table 3 permits BurstR in [1, 8]: below 1 (losses more even
    // than random) is taken as 1, the random-loss value; above 8 is clamped
    // to 8 and the row flagged extrapolated. `burst_r_measured` keeps the
    // estimate (docs/models/playout.md, docs/models/emodel.md).
    s.burst_r_measured = or_nan(measured);
    s.burst_r = measured.map_or(1.0, |b| b.clamp(1.0, 8.0));
    if s.played == 0 {
        (s.ie_eff, s.r, s.mos, s.r_random, s.r_simple, s.mos_simple) = (NAN, NAN, NAN, NAN, NAN, NAN);
        return;
    }
    // G.107 Table 3 bounds T/Ta (500 ms), Tr (1000 ms), Ppl (20 %) and A
    // (20); real calls go beyond. There the equations are extrapolated and
    // the row says so (`emodel_extrapolated`), as it does when Ie,eff hits
    // its cap of 95 or BurstR its clamp of 8.
    let p = info.g107_params(s.mouth_to_ear_ms, s.loss_total, s.burst_r);
    // A call that switched codec modes: Ie,eff is the speech-time mean of
    // each mode's own (quality::mode_mix); R takes it in place of the
    // starting mode's (G.107 §7.1 adds impairments).
    let mixed = |burst_r: f64| mix.and_then(|m| quality::ie_eff_mixed(m, burst_r));
    let swap = |res: quality::EModelResult, m: Option<(f64, bool)>| match m {
        Some((x, _)) => {
            let r = res.r + res.ie_eff - x;
            (x, r, quality::mos_from_r(r))
        }
        None => (res.ie_eff, res.r, res.mos),
    };
    let capped = mixed(p.burst_r).map_or_else(|| quality::ie_eff(p.ie, p.bpl, p.ppl, p.burst_r).1, |m| m.1);
    s.emodel_extrapolated = !quality::in_g107_range(&p) || capped || measured.is_some_and(|b| b > 8.0);
    match curve.at(s.mouth_to_ear_ms, s.loss_total, s.burst_r) {
        Ok(res) => (s.ie_eff, s.r, s.mos) = swap(res, mixed(p.burst_r)),
        Err(_) => (s.ie_eff, s.r, s.mos) = (NAN, NAN, NAN),
    }
    // The same buffer scored as the G.107 bound is (BurstR = 1), so
    // `bound_g107_r − r_random` is buffer inefficiency alone and
    // `r_random − r` the burst penalty (score::bounds).
    s.r_random = curve.at(s.mouth_to_ear_ms, s.loss_total, 1.0).map_or(NAN, |r| swap(r, mixed(1.0)).1);
    match r_simple {
        Some(r) => (s.r_simple, s.mos_simple) = (r, quality::mos_from_r(r)),
        None => (s.r_simple, s.mos_simple) = (NAN, NAN),
    }
}
