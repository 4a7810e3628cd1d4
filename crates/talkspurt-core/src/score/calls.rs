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

use super::bounds::{bounds_prepared, Bounds};
use super::row::{CallInfo, CallSummary};
use super::pass::{pass, Pass};
use crate::metrics::rtpi::real_time_performance_spurts;
use crate::metrics::{clips_by, goodput_bps, histogram_bins, loss_decomposition, ratio, run_moments, BackToBack, LossCounts};
use crate::playout::{self, CallTrace, Prepared};
use crate::quality::{self, burst_stats_of_runs, KeptCurve};
use crate::score::{AnalysisCfg, DelayModel};
use crate::trace::record::{CallRecord, Columns, Wide};

/// A scored call: its row, its playout column (`NEVER` where not played),
/// its run statistics and histograms and its bounds.
pub struct Scored {
    pub summary: CallSummary,
    pub played: Vec<u64>,
    /// `played` as offsets from generation, when asked for (the packets
    /// table's playout column; `score_call_keeping`): from the generation
    /// times scoring decodes anyway, not decoded a second time.
    pub offsets: Wide,
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
            offsets: Wide::default(),
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
    score_call_keeping(rec, info, a, false)
}

/// [`score_call`], with `keep_played` its playout column as offsets from
/// generation too (`Scored::offsets`: the trace's).
pub fn score_call_keeping(rec: &CallRecord, info: &CallInfo, a: &AnalysisCfg, keep_played: bool) -> Scored {
    // Expanded one call at a time: only the compact records stay for the
    // run; columns are dropped after their last use, so that a long call's
    // peak is not every column at once (issue 14).
    let mut lines = Vec::with_capacity(rec.len().div_ceil(64));
    let rec = rec.columns_lined(false, &mut lines);
    score_columns(rec, &lines, info, a, keep_played)
}

/// [`score_call`] from the call's columns and the packets of its blocks
/// stored uniform (`lines`, from `CallRecord::columns_lined`; empty: every
/// packet read from the columns, the same bits, `lined_tests`).
pub(super) fn score_columns(mut rec: Columns, lines: &[std::ops::Range<usize>], info: &CallInfo, a: &AnalysisCfg, keep_played: bool) -> Scored {
    let trace = CallTrace { talkspurt: &rec.talkspurt, t_gen: &rec.t_gen, t_arr: &rec.t_arr };
    let played = info.playout.playout_lined(&trace, lines);
    let offsets = if keep_played { Wide::offsets(&played, &rec.t_gen) } else { Wide::default() };
    let frame = info.frame.as_nanos();
    // Everything read packet by packet, in one pass (issue 26).
    let lambda = info.codec.lambda;
    let mut p = pass(&rec, &played, lines, a, frame, info.codec.lookahead.as_nanos(), info.offset_ms(), lambda.is_some(), quality::delay_impairment_simplified);
    let mut s = CallSummary::default();
    losses_of(&mut s, &p.counts);
    delays(&mut s, &rec, &mut p, frame);
    let congestion_onset = p.onset;
    rec.t_sent = Vec::new();
    let (received, delayed) = match p.rtpi {
        Some(c) => c,
        None => {
            let rt = real_time_performance_spurts(&rec.t_arr, &rec.talkspurt, a.rtpi_threshold.as_nanos(), a.rtpi_missing, a.rtpi_silence)
                .expect("the scenario parser keeps the RTPI threshold > 0, and talkspurt is a column of the record");
            (rt.received, rt.delayed)
        }
    };
    // Seed 002 Algorithm 1's index and delayed rate over the packets sent
    // (metrics::rtpi's `RealTimePerformance`).
    let sent = rec.len() as u64;
    (s.rtpi, s.dpr, s.delayed) = (or_nan(ratio(received - delayed, sent)), or_nan(ratio(delayed, sent)), delayed);
    let lost = p.lost;
    // One split into runs for the back-to-back runs and BurstR (issue 14).
    let runs = quality::run_lengths(&lost);
    let cap = a.run_cap as usize;
    let b2b = BackToBack { lost: run_moments(&runs.lost), received: run_moments(&runs.received) };
    let (lost_bins, received_bins) = (histogram_bins(runs.lost.iter().copied(), cap), histogram_bins(runs.received.iter().copied(), cap));
    let measured = burst_stats_of_runs(&runs, lost.first().copied()).burst_r;
    let not_played_runs = runs.lost.len();
    drop(runs);
    (s.lost_runs, s.lost_run_mean, s.lost_run_var) = (b2b.lost.runs as u64, or_nan(b2b.lost.mean), or_nan(b2b.lost.variance));
    s.lost_run_max = b2b.lost.max.map_or(NAN, |m| m as f64);
    (s.received_runs, s.received_run_mean) = (b2b.received.runs as u64, or_nan(b2b.received.mean));
    s.received_run_var = or_nan(b2b.received.variance);
    s.received_run_max = b2b.received.max.map_or(NAN, |m| m as f64);
    // Speech per packet, frames × frame duration, computed where read.
    let speech = |i: usize| rec.frames[i] as u64 * frame;
    let c = clips_by(&rec.talkspurt, &played, speech, not_played_runs);
    let bins = bins([lost_bins, received_bins, histogram_bins(c.clip_packets.iter().copied(), cap)]);
    (s.clips, s.lost_speech_s) = (c.clips as u64, c.lost_speech_s());
    s.clip_mean_ms = c.mean_clip_ns.map_or(NAN, ms);
    s.clip_max_ms = c.max_clip_ns.map_or(NAN, |x| ms(x as f64));
    let active = ((info.stop_s - info.start_s).max(0.0) * 1e9).round() as u64;
    s.goodput_bps = or_nan(goodput_bps(p.delivered, active));
    s.goodput_played_bps = or_nan(goodput_bps(p.delivered_played, active));
    // Seed 001 §3: D = T_f + l + T_n + 2·T_f per arrived packet (T_f its
    // speech; T_n generation to arrival), the mean in ms; NaN if none
    // arrived (the sum as `quality::mean` sums: same values and order).
    s.delay_budget_ms = if p.arrived == 0 { NAN } else { ms(p.budget_sum / p.arrived as f64) };
    let mix = super::modes::mode_shares(&info.codec, &rec.frames, &rec.payload, &lost);
    (rec.frames, rec.payload) = (Vec::new(), Vec::new());
    // One G.107 curve for the call's own scores and its bounds: the fixed
    // terms are computed once (issue 14).
    let curve = KeptCurve::new(info.g107_params(0.0, 0.0, 1.0));
    // Seed 000 §4.3's reduced form averages the delay impairment over the
    // played packets (not Id of the mean delay), the objective the MKT
    // bound optimises, so buffer and bound compare like for like:
    // `playout::score` of the buffer's schedule, from the pass's sums.
    let r_simple = lambda.map(|l| {
        let mean_id = if p.played == 0 { 0.0 } else { p.id_sum / p.played as f64 };
        quality::R0_SIMPLIFIED - mean_id - quality::loss_impairment_simplified(l, playout::loss_fraction(rec.len(), p.played))
    });
    quality_of(&mut s, p.buffer_sum, measured, r_simple, info, a.delay, mix.as_deref(), &curve);
    drop(lost);
    // The offline bounds from each talkspurt's distinct delays, gathered
    // by the pass: what `Prepared::new` would read of the trace again.
    let bounds = p.spurts.take().map(|sps| bounds_prepared(&Prepared::from_spurt_delays(sps, rec.len()), info, &curve));
    if let Some(b) = &bounds {
        b.summarize(&mut s);
    } else {
        s.clear_bounds();
    }
    Scored { summary: s, played, offsets, b2b, bins, bounds, congestion_onset }
}

/// The loss columns from the counts by fate and seed 003's decomposition
/// (metrics::decomposition).
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

/// Delay, sender-wait and jitter columns from the pass (`pass.rs`).
fn delays(s: &mut CallSummary, rec: &Columns, p: &mut Pass, frame_ns: u64) {
    // Network delays (ns) of the arrived packets in generation order. The
    // ms values are a monotone map of them (u64 → f64 → × 1e-6), so the
    // maximum and the percentiles are read from the sorted integers and
    // mapped: the same values as sorting the ms column (issue 14).
    let pct = |v: &[u64], p: f64| if v.is_empty() { NAN } else { quality::percentile_of_sorted_by(v.len(), p, |i| ms(v[i] as f64)) };
    s.delay_mean_ms = if p.arrived == 0 { NAN } else { p.delay_sum / p.arrived as f64 };
    // A sorted column mapped through a monotone map stays sorted: these
    // are the percentiles of the ms column. Usually already in order (the
    // pass saw it): then nothing is sorted.
    if !p.delays_sorted {
        p.delays.sort_unstable();
    }
    let d = &p.delays;
    s.delay_max_ms = d.last().map_or(NAN, |&d| ms(d as f64));
    (s.delay_p50_ms, s.delay_p95_ms, s.delay_p99_ms) = (pct(d, 50.0), pct(d, 95.0), pct(d, 99.0));
    p.delays = Vec::new();
    s.sender_wait_mean_ms = if p.waits.is_empty() { NAN } else { p.wait_sum / p.waits.len() as f64 };
    if !p.waits_sorted {
        p.waits.sort_unstable();
    }
    s.sender_wait_p95_ms = pct(&p.waits, 95.0);
    p.waits = Vec::new();
    // RFC 3550 §6.4.1 and A.8: jitter over packets in arrival order, on the
    // RTP timestamps (first-sample instants) a receiver sees. The pass ran
    // the estimator in sequence order, which is arrival order (ties kept in
    // sequence, as a stable sort keeps them) unless something overtook.
    s.jitter_ms = if p.arrived == 0 {
        NAN
    } else if p.arrivals_sorted {
        p.rfc_jitter * 1e-6
    } else {
        let mut arrivals: Vec<(u64, u64)> = (0..rec.len())
            .filter(|&i| rec.t_arr[i] != crate::playout::NOT_ARRIVED)
            .map(|i| (rec.t_gen[i] - rec.frames[i] as u64 * frame_ns, rec.t_arr[i]))
            .collect();
        arrivals.sort_by_key(|&(_, a)| a);
        quality::interarrival_jitter_ns(&arrivals) * 1e-6
    };
    let sender = p.sender.jitter();
    (s.jitter_sender_mean_ms, s.jitter_sender_max_ms) = (sender.mean_ns.map_or(NAN, ms), sender.max_ns.map_or(NAN, ms));
    // The same at the application→transport boundary: every generated
    // packet was handed to the transport, sender drops included.
    // Sent as generated (UDP, no sender buffer): the same column, so the
    // same samples (issue 26).
    let app = p.app.as_ref().map_or(sender, |a| a.jitter());
    (s.jitter_app_mean_ms, s.jitter_app_max_ms) = (app.mean_ns.map_or(NAN, ms), app.max_ns.map_or(NAN, ms));
    // Seed 003 §7.2: P_J as the probability of a jitter above the buffer.
    let receiver = p.receiver.jitter();
    (s.jitter_receiver_mean_ms, s.jitter_receiver_max_ms) = (receiver.mean_ns.map_or(NAN, ms), receiver.max_ns.map_or(NAN, ms));
    s.p_j_jitter = or_nan(p.receiver.exceedance());
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
    let at = curve.at(s.mouth_to_ear_ms, s.loss_total, s.burst_r);
    match &at {
        Ok(res) => (s.ie_eff, s.r, s.mos) = swap(*res, mixed(p.burst_r)),
        Err(_) => (s.ie_eff, s.r, s.mos) = (NAN, NAN, NAN),
    }
    // The same buffer scored as the G.107 bound is (BurstR = 1), so
    // `bound_g107_r − r_random` is buffer inefficiency alone and
    // `r_random − r` the burst penalty (score::bounds). With BurstR
    // already 1 (random loss, or none) that is the result above: the
    // same arguments (issue 26).
    let at = if s.burst_r.to_bits() == 1.0f64.to_bits() { at } else { curve.at(s.mouth_to_ear_ms, s.loss_total, 1.0) };
    s.r_random = at.map_or(NAN, |r| swap(r, mixed(1.0)).1);
    match r_simple {
        Some(r) => (s.r_simple, s.mos_simple) = (r, quality::mos_from_r(r)),
        None => (s.r_simple, s.mos_simple) = (NAN, NAN),
    }
}
