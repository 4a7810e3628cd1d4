//! One pass over a call's columns (issue 26, target 3): what `calls.rs`
//! reads of each packet, folded in sequence order in a single loop where
//! it took ~15 passes (counts by fate, delays, sender waits, the delay
//! budget, goodput, the playout buffer's sum, the reduced-form delay
//! impairment, seed 002's RTPI, seed 003's three gap jitters, RFC 3550
//! jitter, the not-played flags and the congestion onset).
//!
//! Every floating-point sum adds the same values in the same order as the
//! pass it replaces (sequence order, from +0.0; each accumulator its own
//! chain), so every column is bit-identical: the per-metric functions
//! stay the specification (`metrics`, `quality`, `playout::score`) and
//! `tests` checks this pass against them. Percentiles still sort (the
//! columns are collected here, with whether they came in order); the run
//! statistics, clips and the offline bounds read the flags and columns
//! as before. Steady runs (`steady.rs`: packets on one line in every
//! column, nearly all of a constant-rate call on an unloaded path) are
//! folded at once, each float sum still added once a packet in order;
//! on a loaded path (every delay its own), stretches of arrived, played
//! packets of one talkspurt are taken a chain at a time without the
//! per-packet tests (`tests`: `stretches_equal_the_metrics_functions`).

use crate::metrics::rtpi::{MissingPredecessor, RtpiSilence};
use crate::metrics::{GapJitterStream, LossCounts};
use super::gaps::{gaps, Gaps};
use crate::playout::{SpurtDelays, NOT_ARRIVED};
use crate::quality::stats::transit_difference;
use crate::score::AnalysisCfg;
use crate::trace::record::{Columns, NetFate};
use super::steady::steady_run;
use std::ops::Range;

/// A steady run is folded at once from this many packets (`steady.rs`).
/// After a try finds none the next waits `backoff` packets, from 3 (past
/// one odd packet: it must not be either of the two a run continues)
/// doubling to `MAX_BACKOFF` while tries fail (a call whose delays all
/// differ pays a try per 64 packets).
const MIN_RUN: usize = 4;
const MAX_BACKOFF: usize = 64;
/// A stretch of arrived packets is taken at once from this many.
const MIN_STRETCH: usize = 4;

/// What one pass over a call's columns gives `score_call`.
pub(super) struct Pass {
    pub counts: LossCounts,
    /// Packets arrived (`delays.len()` before `calls.rs` frees them).
    pub arrived: usize,
    /// Network delays (ns) of the arrived packets in sequence order, and
    /// whether they are already ascending.
    pub delays: Vec<u64>,
    pub delays_sorted: bool,
    /// Σ ms(delay) over `delays`, in their order (`quality::mean`'s sum).
    pub delay_sum: f64,
    /// Generation → first send (ns) of the sent packets, as `delays`.
    pub waits: Vec<u64>,
    pub waits_sorted: bool,
    pub wait_sum: f64,
    /// Seed 001 §3's D per arrived packet, summed (ns, as f64).
    pub budget_sum: f64,
    /// RFC 3550 §6.4.1 / A.8 jitter (ns) over the arrivals in sequence
    /// order; the estimator's order is arrival order, so it holds only when
    /// `arrivals_sorted` (else `calls.rs` sorts them and runs it again).
    pub rfc_jitter: f64,
    pub arrivals_sorted: bool,
    pub sender: GapJitterStream,
    /// `None` when the send column equals the generation column (UDP
    /// without a sender buffer): the same samples as `sender`.
    pub app: Option<GapJitterStream>,
    pub receiver: GapJitterStream,
    /// Seed 002 Algorithm 1's received and delayed counts; `None` for
    /// `MissingPredecessor::PreviousArrival`, which needs arrival order
    /// (`calls.rs` runs `metrics::rtpi` then).
    pub rtpi: Option<(u64, u64)>,
    /// Payload bytes of the arrived packets, and of the played ones.
    pub delivered: u64,
    pub delivered_played: u64,
    /// Σ (playout − generation) over played packets (ns).
    pub buffer_sum: u64,
    /// Packets played, and Σ Id(offset + playout delay) over them in
    /// sequence order (`playout::score`'s sum; 0 without λ).
    pub played: usize,
    pub id_sum: f64,
    /// Per packet: not played (lost, late or in flight).
    pub lost: Vec<bool>,
    /// `metrics::adaptation::congestion_onset`.
    pub onset: Option<u64>,
    /// With `[analysis] bounds`: each talkspurt's distinct delays and
    /// counts, what `playout::Prepared::new` reads of the trace for the
    /// offline bounds, from the delays collected here (`delays` is then
    /// sorted within each talkspurt; the percentiles do not see its order).
    pub spurts: Option<SpurtDelays>,
    /// Packets folded in steady runs (`steady.rs`) and taken in stretches
    /// (the tests read them).
    #[allow(dead_code)]
    pub folded: usize,
    #[allow(dead_code)]
    pub stretched: usize,
}

/// The pass. `played`: the playout column (`NOT_ARRIVED` where not played);
/// `frame_ns`: a frame's speech; `offset_ms` and `id`: the reduced-form
/// delay impairment of the playout delay (`id` is only called when
/// `with_id`; it must be pure: equal consecutive delays share one call,
/// as in `playout::score`). `lines`: the packets of the blocks stored
/// uniform (`CallRecord::columns_lined`; may be empty), which the steady
/// runs take without testing them again.
#[allow(clippy::too_many_arguments)]
pub(super) fn pass(rec: &Columns, played: &[u64], lines: &[Range<usize>], a: &AnalysisCfg, frame_ns: u64, lookahead_ns: u64, offset_ms: f64, with_id: bool, id: impl Fn(f64) -> f64) -> Pass {
    let n = rec.len();
    assert!(
        [rec.talkspurt.len(), rec.t_sent.len(), rec.t_arr.len(), rec.fate.len(), rec.frames.len(), rec.payload.len(), played.len()].iter().all(|&l| l == n),
        "a call's columns differ in length"
    );
    // Within a uniform block the send offset is one value: its first
    // packet decides it (issue 26: the whole columns compared were ~1.3
    // instructions a packet).
    let app_same = {
        let (mut at, mut same) = (0, true);
        for r in lines {
            same &= rec.t_sent[at..r.start] == rec.t_gen[at..r.start] && rec.t_sent[r.start] == rec.t_gen[r.start];
            at = r.end;
        }
        same && rec.t_sent[at..] == rec.t_gen[at..]
    };
    let exclude = a.rtpi_silence == RtpiSilence::Exclude;
    let rtpi_missing = match a.rtpi_missing {
        MissingPredecessor::Timely => Some(false),
        MissingPredecessor::Delayed => Some(true),
        MissingPredecessor::PreviousArrival => None,
    };
    let rtpi_threshold = a.rtpi_threshold.as_nanos();
    let jitter_threshold = a.jitter_threshold.as_nanos() as f64;
    // Accumulators are locals, not fields of `Pass`, so that they can stay
    // in registers (issue 26: ~280 instructions a packet as fields). The
    // delays and waits are pushed into vectors of the call's length: with
    // steady runs extended at once, this no longer costs more than
    // indexed writes into zeroed buffers (callgrind: −8 % of scoring on
    // the headline, −0.4 % on a call with every delay distinct).
    let (t_gen, t_sent, t_arr, ids) = (&rec.t_gen[..n], &rec.t_sent[..n], &rec.t_arr[..n], &rec.talkspurt[..n]);
    let (fates, frames, payloads, played) = (&rec.fate[..n], &rec.frames[..n], &rec.payload[..n], &played[..n]);
    let mut counts = LossCounts { generated: n as u64, ..Default::default() };
    let (mut delays, mut waits) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut delays_sorted, mut waits_sorted, mut arrivals_sorted) = (true, true, true);
    let (mut delay_sum, mut wait_sum, mut budget_sum, mut rfc_jitter) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut delivered, mut delivered_played, mut buffer_sum) = (0u64, 0u64, 0u64);
    let (mut n_played, mut id_sum) = (0usize, 0.0f64);
    let mut onset: Option<u64> = None;
    let (mut rtpi_received, mut rtpi_delayed) = (0u64, 0u64);
    // The previous packet's arrival and talkspurt (RTPI), the previous
    // arrival's RTP timestamp and time (RFC 3550; `NOT_ARRIVED` before the
    // first), the last delay, wait and playout delay seen with its Id.
    let (mut prev_arr, mut prev_spurt) = (NOT_ARRIVED, 0u32);
    let mut rfc_prev = (0u64, NOT_ARRIVED);
    let (mut last_delay, mut last_wait) = (0u64, 0u64);
    let (mut id_wait, mut id_x) = (NOT_ARRIVED, 0.0f64);
    // Each talkspurt (run of equal ids, as `CallTrace::runs`): its id and
    // where its arrived packets' delays start in `delays`.
    let mut runs: Vec<(u32, usize)> = Vec::new();
    // Steady runs folded at once (`steady.rs`): (start, k, true), in
    // order, and the stretches of arrived packets (below), `(start, k,
    // false)`. Room for one every 16 packets: on a loaded path a stretch
    // ends at each loss or overtaking (the mixed preset: ~28 a 500-packet
    // call), and pushed one at a time they were regrown ~6 times a call
    // (issue 26).
    let mut folds: Vec<(usize, usize, bool)> = Vec::with_capacity(n / 16 + 8);
    let mut scan_from = 0;
    let (mut next_try, mut backoff) = (2, 3);
    let mut lines = lines;
    let mut i = 0;
    while i < n {
        if i >= next_try {
            while lines.first().is_some_and(|r| r.end <= i) {
                lines = &lines[1..];
            }
            match steady_run(rec, played, i, lines) {
                Some(s) if s.k >= MIN_RUN => {
                    let k = s.k;
                    let last = i + k - 1;
                    let (speech, payload) = (frames[i] as u64 * frame_ns, payloads[i] as u64);
                    counts.played += k as u64;
                    // Arrived: delays, their sum, the budget, goodput.
                    delays_sorted &= s.delay >= last_delay;
                    last_delay = s.delay;
                    delays.resize(delays.len() + k, s.delay);
                    let x_delay = super::calls::ms(to_f64(s.delay));
                    let x_budget = to_f64(3 * speech + lookahead_ns + s.delay);
                    delivered += k as u64 * payload;
                    // RFC 3550: the same transit difference for every
                    // packet (packet i − 1 arrived: it is `rfc_prev`).
                    let cur = (t_gen[i] - speech, t_arr[i]);
                    let dd = transit_difference(rfc_prev, cur).abs();
                    rfc_prev = (t_gen[last] - speech, t_arr[last]);
                    rtpi_received += k as u64;
                    rtpi_delayed += k as u64 * (s.step > rtpi_threshold) as u64;
                    (prev_arr, prev_spurt) = (t_arr[last], ids[last]);
                    // Sent: waits and their sum.
                    waits_sorted &= s.wait >= last_wait;
                    last_wait = s.wait;
                    waits.resize(waits.len() + k, s.wait);
                    let x_wait = super::calls::ms(to_f64(s.wait));
                    // Played.
                    delivered_played += k as u64 * payload;
                    buffer_sum += k as u64 * s.played;
                    n_played += k;
                    let x_id = if with_id {
                        if s.played != id_wait {
                            (id_wait, id_x) = (s.played, id(offset_ms + s.played as f64 / 1e6));
                        }
                        id_x
                    } else {
                        0.0
                    };
                    // The float sums, each in its own order as above.
                    // (Without λ, `id_sum` is not read: adding 0.0 there
                    // costs nothing against a second loop.)
                    for _ in 0..k {
                        delay_sum += x_delay;
                        budget_sum += x_budget;
                        wait_sum += x_wait;
                        id_sum += x_id;
                    }
                    // RFC 3550's estimator with one D is a function of J
                    // alone: once a step leaves J's bits unchanged, so do
                    // all the rest (on a steady path D = 0 and J is 0 from
                    // the start; issue 26).
                    for _ in 0..k {
                        let next = rfc_jitter + (dd - rfc_jitter) / 16.0;
                        if next.to_bits() == rfc_jitter.to_bits() {
                            break;
                        }
                        rfc_jitter = next;
                    }
                    folds.push((i, k, true));
                    i += k;
                    backoff = 3;
                    continue;
                }
                _ => {
                    next_try = i + backoff;
                    backoff = (2 * backoff).min(MAX_BACKOFF);
                }
            }
        }
        // A stretch of packets arrived, sent and played, in the talkspurt of
        // an arrival before them (a loaded path: every delay its own, so no
        // steady run): the loop below without its per-packet tests of fate,
        // absence and talkspurt (issue 26: pass.rs 43.9 → 25.2 M
        // instructions on the mixed preset's 10 s, ~175 → ~100 a packet).
        // The same values added in the same order. It ends at the next
        // steady try, so the tries are where they were; where tries keep
        // failing (backoff at its most), it runs on and a try follows it
        // (a steady run and a stretch add the same values: same bits).
        if i >= scan_from && rfc_prev.1 != NOT_ARRIVED && ids[i] == prev_spurt {
            let end = if backoff == MAX_BACKOFF { n } else { next_try.min(n) };
            let mut e = i;
            while e < end
                && fates[e] == NetFate::Arrived
                && ids[e] == prev_spurt
                && played[e].max(t_sent[e]).max(t_arr[e]) != NOT_ARRIVED
            {
                e += 1;
            }
            if e - i >= MIN_STRETCH {
                // One short loop per chain over zipped slices (one bound a
                // loop, no check a packet; each loop's state in registers).
                let r = i..e;
                let (g, sent, arr, pl) = (&t_gen[r.clone()], &t_sent[r.clone()], &t_arr[r.clone()], &played[r.clone()]);
                let (fr, pay) = (&frames[r.clone()], &payloads[r]);
                let mut payload = 0u64;
                for ((&g, &a), (&f, &p)) in g.iter().zip(arr).zip(fr.iter().zip(pay)) {
                    let d = a - g;
                    delays_sorted &= d >= last_delay;
                    last_delay = d;
                    delays.push(d);
                    delay_sum += super::calls::ms(to_f64(d));
                    budget_sum += to_f64(3 * (f as u64 * frame_ns) + lookahead_ns + d);
                    payload += p as u64;
                }
                let missing = rtpi_missing.unwrap_or(false);
                for ((&g, &a), &f) in g.iter().zip(arr).zip(fr) {
                    let cur = (g - f as u64 * frame_ns, a);
                    arrivals_sorted &= rfc_prev.1 <= a;
                    let dd = transit_difference(rfc_prev, cur);
                    rfc_jitter += (dd.abs() - rfc_jitter) / 16.0;
                    rfc_prev = cur;
                    // Without a branch: reordering makes it unpredictable.
                    let on_time = prev_arr <= a;
                    rtpi_delayed += ((on_time & (a.wrapping_sub(prev_arr) > rtpi_threshold)) | (!on_time & missing)) as u64;
                    prev_arr = a;
                }
                for (&g, &s) in g.iter().zip(sent) {
                    let w = s.saturating_sub(g);
                    waits_sorted &= w >= last_wait;
                    last_wait = w;
                    waits.push(w);
                    wait_sum += super::calls::ms(to_f64(w));
                }
                let mut buffer = 0u64;
                for (&g, &p) in g.iter().zip(pl) {
                    let wait = p - g;
                    buffer += wait;
                    if with_id {
                        if wait != id_wait {
                            (id_wait, id_x) = (wait, id(offset_ms + wait as f64 / 1e6));
                        }
                        id_sum += id_x;
                    }
                }
                let k = e - i;
                counts.played += k as u64;
                (rtpi_received, n_played) = (rtpi_received + k as u64, n_played + k);
                (delivered, delivered_played, buffer_sum) = (delivered + payload, delivered_played + payload, buffer_sum + buffer);
                folds.push((i, k, false));
                i = e;
                continue;
            }
            // Too short: these packets one at a time, without scanning again.
            scan_from = e + 1;
        }
        let (g, sent, arr, pl, spurt) = (t_gen[i], t_sent[i], t_arr[i], played[i], ids[i]);
        if i == 0 || spurt != prev_spurt {
            runs.push((spurt, delays.len()));
        }
        let speech = frames[i] as u64 * frame_ns;
        let payload = payloads[i] as u64;
        match fates[i] {
            NetFate::SenderDrop => counts.sender_drop += 1,
            NetFate::QueueDrop => {
                counts.queue_drop += 1;
                if onset.is_none() && sent != NOT_ARRIVED {
                    onset = Some(sent);
                }
            }
            NetFate::LinkLoss => counts.link_loss += 1,
            NetFate::InFlight => counts.in_flight += 1,
            NetFate::Arrived if pl == NOT_ARRIVED => counts.late += 1,
            NetFate::Arrived => counts.played += 1,
        }
        if arr != NOT_ARRIVED {
            let d = arr - g;
            delays_sorted &= d >= last_delay;
            last_delay = d;
            delays.push(d);
            delay_sum += super::calls::ms(to_f64(d));
            budget_sum += to_f64(3 * speech + lookahead_ns + d);
            delivered += payload;
            // RFC 3550 §5.1: the RTP timestamp is the sampling instant of
            // the packet's first sample, its completion less its speech.
            let cur = (g - speech, arr);
            if rfc_prev.1 != NOT_ARRIVED {
                arrivals_sorted &= rfc_prev.1 <= arr;
                let d = transit_difference(rfc_prev, cur);
                rfc_jitter += (d.abs() - rfc_jitter) / 16.0;
            }
            rfc_prev = cur;
            // Seed 002 Algorithm 1 (metrics::rtpi): packet i against i − 1.
            rtpi_received += 1;
            if i > 0 && !(exclude && spurt != prev_spurt) {
                // `prev_arr <= arr` means the predecessor arrived
                // (NOT_ARRIVED is the largest u64).
                let late = if prev_arr <= arr { arr - prev_arr > rtpi_threshold } else { rtpi_missing.unwrap_or(false) };
                rtpi_delayed += late as u64;
            }
        }
        (prev_arr, prev_spurt) = (arr, spurt);
        if sent != NOT_ARRIVED {
            let w = sent.saturating_sub(g);
            waits_sorted &= w >= last_wait;
            last_wait = w;
            waits.push(w);
            wait_sum += super::calls::ms(to_f64(w));
        }
        if pl != NOT_ARRIVED {
            delivered_played += payload;
            let wait = pl - g;
            buffer_sum += wait;
            n_played += 1;
            if with_id {
                if wait != id_wait {
                    (id_wait, id_x) = (wait, id(offset_ms + wait as f64 / 1e6));
                }
                id_sum += id_x;
            }
        }
        i += 1;
    }
    let spurts = a.bounds.then(|| {
        let mut sps = SpurtDelays::with_talkspurts(runs.len());
        for (k, &(id, start)) in runs.iter().enumerate() {
            let end = runs.get(k + 1).map_or(delays.len(), |r| r.1);
            sps.push_spurt(id, &mut delays[start..end]);
        }
        // Each talkspurt's delays are sorted now: one talkspurt, all of
        // them (the percentiles then skip the sort's check).
        delays_sorted |= runs.len() <= 1;
        sps
    });
    // Seed 003's gap jitters and the not-played flags in a second loop
    // (`gaps.rs`): with them in the first, its ~25 accumulators spill
    // from registers.
    let Gaps { sender, app, receiver, lost } = gaps(rec, played, &folds, app_same, jitter_threshold);
    Pass {
        counts,
        arrived: delays.len(),
        delays,
        delays_sorted,
        delay_sum,
        waits,
        waits_sorted,
        wait_sum,
        budget_sum,
        rfc_jitter,
        arrivals_sorted,
        sender,
        app,
        receiver,
        rtpi: rtpi_missing.map(|_| (rtpi_received, rtpi_delayed)),
        delivered,
        delivered_played,
        buffer_sum,
        played: n_played,
        id_sum,
        lost,
        onset,
        spurts,
        folded: folds.iter().filter(|f| f.2).map(|f| f.1).sum(),
        stretched: folds.iter().filter(|f| !f.2).map(|f| f.1).sum(),
    }
}

/// `x as f64`: the same value (an integer below 2^63 rounds alike from
/// i64 and from u64), through the one-instruction signed conversion where
/// it fits; x86-64 has no unsigned one before AVX-512 (~10 instructions).
#[inline(always)]
fn to_f64(x: u64) -> f64 {
    if x < 1 << 63 {
        x as i64 as f64
    } else {
        x as f64
    }
}

#[cfg(test)]
#[path = "pass_tests.rs"]
mod tests;
