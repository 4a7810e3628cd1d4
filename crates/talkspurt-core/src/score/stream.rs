//! Streaming scoring (`[analysis] scoring = "streaming"`, issue 14): a
//! call's packets are folded into accumulators as they happen instead of
//! being recorded, so a call's memory does not grow with its length.
//!
//! - Arrivals go through the call's playout buffer as a receiver sees
//!   them (playout::OnlinePlayout: arrival order, ties by sequence
//!   number, the order of the offline replay), which decides played or
//!   late; the RFC 3550 jitter and the RTPI's previous arrival are taken
//!   there too.
//! - A packet *settles* when its fate is final: arrived (and decided),
//!   dropped by the sender, or dropped in the network on a transport that
//!   does not retransmit (on TCP a lost copy may be sent again, so it
//!   waits). Settled packets are folded in sequence order, as the exact
//!   scorer reads its columns; only the packets not yet settled (those in
//!   flight, and those behind them) are held.
//! - Every sum is taken over the same values in the same order as
//!   `calls::score_call`, so those columns are bit-identical. Percentiles
//!   come from `quality::sketch` (relative error ≤ 1/256), or with exact
//!   scoring (trace and bounds off, `run::folds_as_it_runs`, issue 26)
//!   from exact counts of the distinct values (`quality::counts`: the
//!   same bits as sorting every delay); run-length variances from the
//!   integer moments the exact scorer uses too. The offline bounds are NaN
//!   when streaming; folded exactly they are solved when the call ends
//!   from each talkspurt's distinct delays and counts (playout::SpurtDelays),
//!   the same bits (docs/results.md, "Streaming scoring", "Exact scoring
//!   in flat memory").

use std::collections::VecDeque;

use super::calls::{losses_of, ms, or_nan, quality_of, Scored, NAN};
use super::bounds::bounds_prepared;
use super::modes::ModeTally;
use crate::playout::{Prepared, SpurtDelays};
use super::row::{CallInfo, CallSummary};
use super::{AnalysisCfg, Scoring};
use crate::metrics::rtpi::{MissingPredecessor, RtpiSilence};
use crate::metrics::{goodput_bps, BackToBack, GapJitterStream, LossCounts, RunStats};
use crate::playout::OnlinePlayout;
use crate::quality::counts::ExactCounts;
use crate::quality::sketch::LogHistogram;
use crate::quality::stats::transit_difference;
use crate::quality::{self, BurstStats, Transitions};
use crate::trace::record::{NetFate, RecordSink, NEVER};

/// A percentile accumulator: the log histogram (streaming scoring,
/// relative error ≤ 1/256) or exact counts of distinct values (exact
/// scoring folded as the call runs: the sorted sample's bits).
#[derive(Debug)]
enum Quantiles {
    Sketch(LogHistogram),
    Exact(ExactCounts),
}

impl Quantiles {
    fn new(exact: bool) -> Self {
        if exact {
            Quantiles::Exact(ExactCounts::default())
        } else {
            Quantiles::Sketch(LogHistogram::default())
        }
    }

    fn record(&mut self, v: u64) {
        match self {
            Quantiles::Sketch(h) => h.record(v),
            Quantiles::Exact(c) => c.record(v),
        }
    }

    /// The percentile in ms (NaN without values), as `calls::delays` reads it.
    fn pct_ms(&mut self, p: f64) -> f64 {
        match self {
            Quantiles::Sketch(h) => h.percentile(p).map_or(NAN, ms),
            Quantiles::Exact(c) => c.percentile_by(p, |v| ms(v as f64)).unwrap_or(NAN),
        }
    }

    fn retained(&self) -> usize {
        match self {
            Quantiles::Sketch(_) => 0,
            Quantiles::Exact(c) => c.retained().0 + c.retained().1,
        }
    }
}

/// One packet not yet folded.
#[derive(Debug, Clone)]
struct Pkt {
    t_gen: u64,
    t_sent: u64,
    t_arr: u64,
    played: u64,
    /// Arrival time of the packet received just before it (RTPI's
    /// `previous-arrival` reading).
    prev_arr: Option<u64>,
    talkspurt: u32,
    /// Index of its talkspurt among the call's (runs of equal id).
    run: u32,
    frames: u32,
    payload: u32,
    fate: NetFate,
    /// Its arrival went through the playout buffer.
    decided: bool,
}

/// Runs of one kind (lost or received): count, packets, Σ length², max and
/// the capped histogram (metrics::runs::run_stats, one run at a time).
#[derive(Debug, Clone)]
struct RunAcc {
    runs: usize,
    packets: usize,
    squares: u128,
    max: Option<usize>,
    hist: SparseHist,
}

/// A run-length histogram folded at `cap` (0 taken as 1), kept as its
/// non-empty bins in ascending order: a call has a few, where a dense
/// histogram held `cap + 1` counts (4.8 KB a call for the three at the
/// default cap of 200; 480 MB of live state at 100 000 streaming calls,
/// issue 14).
#[derive(Debug, Clone)]
struct SparseHist {
    cap: usize,
    bins: Vec<(u32, u64)>,
}

impl SparseHist {
    fn new(cap: usize) -> Self {
        SparseHist { cap: cap.max(1), bins: Vec::new() }
    }

    fn add(&mut self, len: usize) {
        let b = len.min(self.cap) as u32;
        match self.bins.binary_search_by_key(&b, |&(k, _)| k) {
            Ok(i) => self.bins[i].1 += 1,
            Err(i) => self.bins.insert(i, (b, 1)),
        }
    }
}

impl RunAcc {
    fn new(cap: usize) -> Self {
        RunAcc { runs: 0, packets: 0, squares: 0, max: None, hist: SparseHist::new(cap) }
    }

    fn add(&mut self, len: usize) {
        self.runs += 1;
        self.packets += len;
        self.squares += (len as u128) * (len as u128);
        self.max = Some(self.max.map_or(len, |m| m.max(len)));
        self.hist.add(len);
    }

    /// As `run_stats`, from the same integer moments: the same bits.
    fn stats(&self) -> RunStats {
        crate::metrics::runs::moments_of(self.runs, self.packets, self.squares, self.max)
    }
}

/// What the exact scorer computes from the columns, folded one packet at a
/// time in sequence order.
#[derive(Debug)]
struct Fold {
    seq: u64,
    counts: LossCounts,
    delay_sum: f64,
    delay_n: usize,
    delay_max: Option<u64>,
    delays: Quantiles,
    wait_sum: f64,
    wait_n: usize,
    waits: Quantiles,
    budget_sum: f64,
    buffer_sum: u64,
    id_sum: f64,
    delivered: u64,
    delivered_played: u64,
    prev_t_arr: u64,
    /// Talkspurt of the previous packet (RTPI `silence = exclude`).
    prev_spurt: u32,
    rtpi_delayed: u64,
    sender_jitter: GapJitterStream,
    app_jitter: GapJitterStream,
    receiver_jitter: GapJitterStream,
    prev_lost: Option<bool>,
    run_len: usize,
    transitions: Transitions,
    lost_runs: RunAcc,
    received_runs: RunAcc,
    /// The open clip: its talkspurt, packets and speech (ns).
    clip: Option<(u32, usize, u64)>,
    clips: usize,
    clip_ns: u64,
    clip_max: Option<u64>,
    clip_hist: SparseHist,
    modes: ModeTally,
    onset: Option<u64>,
    /// What the offline bounds read (exact scoring with bounds, issue 26):
    /// per talkspurt (run of equal ids) its id and its arrived packets'
    /// distinct delays with their counts (playout::SpurtDelays: 8 bytes a
    /// talkspurt, 12 a distinct delay in it); and the run index of the
    /// last one.
    spurts: Option<SpurtDelays>,
    spurt_run: Option<u32>,
}

/// One call's streaming scorer: a `RecordSink` in the call's records.
#[derive(Debug)]
pub struct CallStream {
    info: CallInfo,
    a: AnalysisCfg,
    /// Lost copies may be sent again (TCP): a network drop is not final.
    reliable: bool,
    frame_ns: u64,
    playout: OnlinePlayout,
    window: VecDeque<Pkt>,
    /// Sequence number of `window[0]`.
    base: u32,
    generated: u32,
    last_spurt: Option<u32>,
    run: u32,
    /// Arrivals at `batch_t` not yet shown to the buffer: they are taken in
    /// sequence order once time moves on, as the offline replay breaks ties.
    batch_t: u64,
    batch: Vec<u32>,
    last_arrival: Option<u64>,
    rfc_prev: Option<(u64, u64)>,
    rfc_j: f64,
    fold: Fold,
}

impl CallStream {
    pub fn new(info: CallInfo, a: &AnalysisCfg) -> Self {
        let cap = a.run_cap.max(1) as usize;
        let fold = Fold {
            seq: 0,
            counts: LossCounts::default(),
            delay_sum: 0.0,
            delay_n: 0,
            delay_max: None,
            delays: Quantiles::new(a.scoring == Scoring::Exact),
            wait_sum: 0.0,
            wait_n: 0,
            waits: Quantiles::new(a.scoring == Scoring::Exact),
            budget_sum: 0.0,
            buffer_sum: 0,
            id_sum: 0.0,
            delivered: 0,
            delivered_played: 0,
            prev_t_arr: NEVER,
            prev_spurt: 0,
            rtpi_delayed: 0,
            sender_jitter: GapJitterStream::default(),
            app_jitter: GapJitterStream::default(),
            receiver_jitter: GapJitterStream::default(),
            prev_lost: None,
            run_len: 0,
            transitions: Transitions::default(),
            lost_runs: RunAcc::new(a.run_cap as usize),
            received_runs: RunAcc::new(a.run_cap as usize),
            clip: None,
            clips: 0,
            clip_ns: 0,
            clip_max: None,
            clip_hist: SparseHist::new(cap),
            modes: ModeTally::new(&info.codec),
            onset: None,
            spurts: (a.scoring == Scoring::Exact && a.bounds).then(SpurtDelays::default),
            spurt_run: None,
        };
        CallStream {
            reliable: info.transport == "tcp",
            frame_ns: info.frame.as_nanos(),
            playout: info.playout.online(),
            info,
            a: a.clone(),
            window: VecDeque::new(),
            base: 0,
            generated: 0,
            last_spurt: None,
            run: 0,
            batch_t: 0,
            batch: Vec::new(),
            last_arrival: None,
            rfc_prev: None,
            rfc_j: 0.0,
            fold,
        }
    }

    /// Packets held (not yet folded): what the call's memory is.
    pub fn open_packets(&self) -> usize {
        self.window.len()
    }

    /// Elements the call holds beyond fixed-size state: packets not yet
    /// folded, the exact percentiles' distinct and pending values, the run
    /// histograms' bins (memory bounded by what repeats, not by the call's
    /// length: issue 26 target 4).
    pub fn retained(&self) -> usize {
        let f = &self.fold;
        self.window.len()
            + f.delays.retained()
            + f.waits.retained()
            + f.lost_runs.hist.bins.len()
            + f.received_runs.hist.bins.len()
            + f.clip_hist.bins.len()
            + f.spurts.as_ref().map_or(0, |v| v.retained().0 + v.retained().1)
    }

    fn get(&mut self, seq: u32) -> Option<&mut Pkt> {
        // A packet folded already has a final fate: nothing can change it.
        let i = seq.checked_sub(self.base)? as usize;
        self.window.get_mut(i)
    }

    /// Time has moved past the batch's arrivals: decide them.
    fn flush_before(&mut self, now: u64) {
        if !self.batch.is_empty() && now > self.batch_t {
            self.decide();
        }
    }

    fn decide(&mut self) {
        let mut batch = std::mem::take(&mut self.batch);
        batch.sort_unstable();
        for &seq in &batch {
            let i = (seq - self.base) as usize;
            let p = &mut self.window[i];
            let delay = p.t_arr - p.t_gen;
            let off = self.playout.arrive(p.run as usize, delay);
            let at = p.t_gen.saturating_add(off);
            p.played = if p.t_arr <= at { at } else { NEVER };
            p.prev_arr = self.last_arrival;
            self.last_arrival = Some(p.t_arr);
            // RFC 3550 §6.4.1, A.8, on the first sample's instant, in
            // arrival order (as calls::delays).
            let cur = (p.t_gen - p.frames.min(u16::MAX as u32) as u64 * self.frame_ns, p.t_arr);
            if let Some(prev) = self.rfc_prev {
                let d = transit_difference(prev, cur);
                self.rfc_j += (d.abs() - self.rfc_j) / 16.0;
            }
            self.rfc_prev = Some(cur);
            p.decided = true;
        }
        batch.clear();
        self.batch = batch;
        self.fold_settled();
    }

    fn settled(&self, p: &Pkt) -> bool {
        match p.fate {
            NetFate::Arrived => p.decided,
            NetFate::SenderDrop => true,
            NetFate::QueueDrop | NetFate::LinkLoss => !self.reliable,
            NetFate::InFlight => false,
        }
    }

    fn fold_settled(&mut self) {
        while self.window.front().is_some_and(|p| self.settled(p)) {
            let p = self.window.pop_front().expect("a front");
            self.base += 1;
            self.fold_one(&p);
        }
        // Talkspurts before the oldest open packet's get no more arrivals.
        let k = self.window.front().map_or(self.run, |p| p.run);
        self.playout.forget_before(k as usize);
    }

    /// One packet, in sequence order: what `score_call` reads of it.
    fn fold_one(&mut self, p: &Pkt) {
        let a = &self.a;
        let f = &mut self.fold;
        let played = if p.fate == NetFate::Arrived { p.played } else { NEVER };
        let lost = played == NEVER;
        let c = &mut f.counts;
        c.generated += 1;
        match p.fate {
            NetFate::SenderDrop => c.sender_drop += 1,
            NetFate::QueueDrop => c.queue_drop += 1,
            NetFate::LinkLoss => c.link_loss += 1,
            NetFate::InFlight => c.in_flight += 1,
            NetFate::Arrived if lost => c.late += 1,
            NetFate::Arrived => c.played += 1,
        }
        let frames = p.frames.min(u16::MAX as u32);
        let speech = frames as u64 * self.frame_ns;
        if p.t_arr != NEVER {
            let d = p.t_arr - p.t_gen;
            f.delay_sum += ms(d as f64);
            f.delay_n += 1;
            f.delay_max = Some(f.delay_max.map_or(d, |m| m.max(d)));
            f.delays.record(d);
            f.budget_sum += (3 * speech + self.info.codec.lookahead.as_nanos() + d) as f64;
            f.delivered += p.payload as u64;
        }
        if p.t_sent != NEVER {
            let w = p.t_sent.saturating_sub(p.t_gen);
            f.wait_sum += ms(w as f64);
            f.wait_n += 1;
            f.waits.record(w);
        }
        if !lost {
            f.delivered_played += p.payload as u64;
            f.buffer_sum += played - p.t_gen;
            if self.info.codec.lambda.is_some() {
                let d = self.info.offset_ms() + (played - p.t_gen) as f64 / 1e6;
                f.id_sum += quality::delay_impairment_simplified(d);
            }
        }
        // Seed 002 Algorithm 1 (metrics::rtpi), predecessor in sequence.
        let spurt_start = a.rtpi_silence == RtpiSilence::Exclude && f.seq > 0 && p.talkspurt != f.prev_spurt;
        if p.t_arr != NEVER && f.seq > 0 && !spurt_start {
            let (q, t) = (f.prev_t_arr, p.t_arr);
            let threshold = a.rtpi_threshold.as_nanos();
            let late = if q != NEVER && q <= t {
                t - q > threshold
            } else {
                match a.rtpi_missing {
                    MissingPredecessor::Timely => false,
                    MissingPredecessor::Delayed => true,
                    MissingPredecessor::PreviousArrival => p.prev_arr.is_some_and(|q| t - q > threshold),
                }
            };
            f.rtpi_delayed += late as u64;
        }
        f.prev_t_arr = p.t_arr;
        f.prev_spurt = p.talkspurt;
        let threshold = a.jitter_threshold.as_nanos() as f64;
        f.sender_jitter.push(p.talkspurt, p.t_sent, threshold);
        f.app_jitter.push(p.talkspurt, p.t_gen, threshold);
        f.receiver_jitter.push(p.talkspurt, p.t_arr, threshold);
        // Back-to-back runs and the Gilbert transitions of "not played".
        match f.prev_lost {
            None => f.run_len = 1,
            Some(was) => {
                f.transitions.add(was, lost);
                if was == lost {
                    f.run_len += 1;
                } else {
                    close_run(f, was);
                    f.run_len = 1;
                }
            }
        }
        f.prev_lost = Some(lost);
        // Seed 001 clips: runs of not played within one talkspurt.
        match (&mut f.clip, lost) {
            (Some((spurt, n, ns)), true) if *spurt == p.talkspurt => {
                *n += 1;
                *ns += speech;
            }
            (_, true) => {
                close_clip(f);
                f.clip = Some((p.talkspurt, 1, speech));
            }
            (_, false) => close_clip(f),
        }
        f.modes.add(frames, p.payload, lost);
        if let Some(sps) = &mut f.spurts {
            if f.spurt_run != Some(p.run) {
                f.spurt_run = Some(p.run);
                sps.open(p.talkspurt);
            }
            if p.t_arr != NEVER {
                sps.add(p.t_arr - p.t_gen);
            }
        }
        if f.onset.is_none() && p.fate == NetFate::QueueDrop && p.t_sent != NEVER {
            f.onset = Some(p.t_sent);
        }
        f.seq += 1;
    }

    /// The call's row and run histograms (`Scored` without playout column
    /// or bounds). Call after `finish`.
    pub fn score(&mut self) -> Scored {
        self.finish();
        let f = &mut self.fold;
        if let Some(was) = f.prev_lost.take() {
            close_run(f, was);
        }
        close_clip(f);
        let (info, a) = (&self.info, &self.a);
        let mut s = CallSummary::default();
        losses_of(&mut s, &f.counts);
        let mean = |sum: f64, n: usize| if n == 0 { NAN } else { sum / n as f64 };
        s.delay_mean_ms = mean(f.delay_sum, f.delay_n);
        s.delay_max_ms = f.delay_max.map_or(NAN, |d| ms(d as f64));
        (s.delay_p50_ms, s.delay_p95_ms, s.delay_p99_ms) = (f.delays.pct_ms(50.0), f.delays.pct_ms(95.0), f.delays.pct_ms(99.0));
        s.sender_wait_mean_ms = mean(f.wait_sum, f.wait_n);
        s.sender_wait_p95_ms = f.waits.pct_ms(95.0);
        s.jitter_ms = if self.rfc_prev.is_none() { NAN } else { self.rfc_j * 1e-6 };
        let sender = f.sender_jitter.jitter();
        (s.jitter_sender_mean_ms, s.jitter_sender_max_ms) = (sender.mean_ns.map_or(NAN, ms), sender.max_ns.map_or(NAN, ms));
        let app = f.app_jitter.jitter();
        (s.jitter_app_mean_ms, s.jitter_app_max_ms) = (app.mean_ns.map_or(NAN, ms), app.max_ns.map_or(NAN, ms));
        let receiver = f.receiver_jitter.jitter();
        (s.jitter_receiver_mean_ms, s.jitter_receiver_max_ms) = (receiver.mean_ns.map_or(NAN, ms), receiver.max_ns.map_or(NAN, ms));
        s.p_j_jitter = or_nan(f.receiver_jitter.exceedance());
        let sent = f.counts.generated;
        let received = f.counts.arrived();
        let ratio = |x: u64| if sent == 0 { NAN } else { x as f64 / sent as f64 };
        (s.rtpi, s.dpr, s.delayed) = (ratio(received - f.rtpi_delayed), ratio(f.rtpi_delayed), f.rtpi_delayed);
        let b2b = BackToBack { lost: f.lost_runs.stats(), received: f.received_runs.stats() };
        (s.lost_runs, s.lost_run_mean, s.lost_run_var) = (b2b.lost.runs as u64, or_nan(b2b.lost.mean), or_nan(b2b.lost.variance));
        s.lost_run_max = b2b.lost.max.map_or(NAN, |m| m as f64);
        (s.received_runs, s.received_run_mean) = (b2b.received.runs as u64, or_nan(b2b.received.mean));
        s.received_run_var = or_nan(b2b.received.variance);
        s.received_run_max = b2b.received.max.map_or(NAN, |m| m as f64);
        s.clips = f.clips as u64;
        s.lost_speech_s = f.clip_ns as f64 * 1e-9;
        s.clip_mean_ms = if f.clips == 0 { NAN } else { ms(f.clip_ns as f64 / f.clips as f64) };
        s.clip_max_ms = f.clip_max.map_or(NAN, |x| ms(x as f64));
        let active = ((info.stop_s - info.start_s).max(0.0) * 1e9).round() as u64;
        s.goodput_bps = or_nan(goodput_bps(f.delivered, active));
        s.goodput_played_bps = or_nan(goodput_bps(f.delivered_played, active));
        s.delay_budget_ms = if f.delay_n == 0 { NAN } else { ms(f.budget_sum / f.delay_n as f64) };
        let (n, played) = (f.counts.generated as usize, f.counts.played as usize);
        let burst = BurstStats::from_counts(
            n,
            n - played,
            &f.transitions,
            (b2b.lost.packets, b2b.lost.runs),
            (b2b.received.packets, b2b.received.runs),
        );
        // playout::score's reduced-form R of the buffer's schedule.
        let r_simple = info.codec.lambda.map(|l| {
            let loss = if n == 0 { 0.0 } else { (n - played) as f64 / n as f64 };
            let mean_id = if played == 0 { 0.0 } else { f.id_sum / played as f64 };
            quality::R0_SIMPLIFIED - mean_id - quality::loss_impairment_simplified(l, loss)
        });
        let mix = f.modes.shares();
        let curve = quality::KeptCurve::new(info.g107_params(0.0, 0.0, 1.0));
        quality_of(&mut s, f.buffer_sum, burst.burst_r, r_simple, info, a.delay, mix.as_deref(), &curve);
        // The offline bounds from the talkspurts' distinct delays and
        // counts: what `Prepared::new` derives from the records.
        let bounds = f.spurts.take().map(|sps| {
            let p = Prepared::from_spurt_delays(sps, n);
            bounds_prepared(&p, info, &curve)
        });
        match &bounds {
            Some(b) => b.summarize(&mut s),
            None => s.clear_bounds(),
        }
        let bins = super::calls::bins([f.lost_runs.hist.bins.clone(), f.received_runs.hist.bins.clone(), f.clip_hist.bins.clone()]);
        Scored { summary: s, played: Vec::new(), offsets: Default::default(), b2b, bins, bounds, congestion_onset: f.onset }
    }
}

fn close_run(f: &mut Fold, lost: bool) {
    if f.run_len > 0 {
        if lost { &mut f.lost_runs } else { &mut f.received_runs }.add(f.run_len);
        f.run_len = 0;
    }
}

fn close_clip(f: &mut Fold) {
    if let Some((_, n, ns)) = f.clip.take() {
        f.clips += 1;
        f.clip_hist.add(n);
        f.clip_ns += ns;
        f.clip_max = Some(f.clip_max.map_or(ns, |m| m.max(ns)));
    }
}

impl RecordSink for CallStream {
    fn push(&mut self, t_gen: u64, talkspurt: u32, frames: u32, payload: u32) -> u32 {
        self.flush_before(t_gen);
        if self.last_spurt.is_some_and(|s| s != talkspurt) {
            self.run += 1;
        }
        self.last_spurt = Some(talkspurt);
        let seq = self.generated;
        self.generated += 1;
        self.window.push_back(Pkt {
            t_gen,
            t_sent: NEVER,
            t_arr: NEVER,
            played: NEVER,
            prev_arr: None,
            talkspurt,
            run: self.run,
            frames,
            payload,
            fate: NetFate::InFlight,
            decided: false,
        });
        seq
    }

    fn sent(&mut self, seq: u32, now: u64) {
        self.flush_before(now);
        if let Some(p) = self.get(seq) {
            if p.t_sent == NEVER {
                p.t_sent = now;
            }
        }
    }

    fn arrived(&mut self, seq: u32, now: u64) {
        self.flush_before(now);
        if let Some(p) = self.get(seq) {
            if p.t_arr == NEVER {
                assert!(now >= p.t_gen, "packet {seq} handled before it was generated");
                (p.t_arr, p.fate) = (now, NetFate::Arrived);
                self.batch_t = now;
                self.batch.push(seq);
            }
        }
    }

    fn set_fate(&mut self, seq: u32, fate: NetFate) {
        if let Some(p) = self.get(seq) {
            // A unit already delivered keeps its fate (as CallRecord).
            if p.fate != NetFate::Arrived {
                p.fate = fate;
                self.fold_settled();
            }
        }
    }

    fn len(&self) -> usize {
        self.generated as usize
    }

    fn finish(&mut self) {
        if !self.batch.is_empty() {
            self.decide();
        }
        while let Some(p) = self.window.pop_front() {
            self.base += 1;
            self.fold_one(&p);
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// The row of a call scored by a `CallStream` (its records' sink).
pub fn scored(sink: Box<dyn RecordSink>) -> Scored {
    let mut s = sink.into_any().downcast::<CallStream>().expect("a streaming call's sink is a CallStream");
    s.score()
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
