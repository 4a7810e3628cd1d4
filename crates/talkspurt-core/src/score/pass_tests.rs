//! `pass` against each metric's own function (`==` on f64).

use super::*;
use crate::metrics::rtpi::real_time_performance_spurts;
use crate::metrics::{delivered_bytes, gap_jitter, gap_jitter_over, loss_counts};
use crate::playout::{self, CallTrace};
use crate::quality::{delay_impairment_simplified, interarrival_jitter_ns};

/// A call of `n` packets from a xorshift stream: talkspurts, sender
/// drops, losses, reordering (a packet may arrive up to 60 ms late),
/// send waits and a playout that drops the late ones.
/// With `steady`, mostly steady runs (`steady.rs`): a fixed delay,
/// wait and frame count, rare losses, reordering and talkspurts. With
/// `loaded`, a queue's path: every delay its own, rare losses, late
/// packets and talkspurts (the pass's stretches).
fn call_of(seed: u64, n: usize, app_same: bool, steady: bool, loaded: bool) -> (Columns, Vec<u64>) {
    let mut x = seed | 1;
    let mut r = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let mut c = Columns::default();
    // From 100 ms: a packet completes no earlier than its frames'
    // speech after the call's start (up to 3 × 10 ms here), as in a
    // run; RFC 3550's timestamp (completion less speech) stays ≥ 0.
    let (mut spurt, mut t) = (0u32, 100_000_000u64);
    let mut played = Vec::new();
    let odd = if steady { 150 } else if loaded { 6 } else { 1 };
    for _ in 0..n {
        if r(20 * odd) == 0 {
            spurt += 1;
            t += 500_000_000;
        }
        t += 20_000_000;
        let frames = if steady || loaded { 2 + (r(odd) == 0) as u16 } else { 1 + r(3) as u16 };
        let fate = match r(10 * odd) {
            0 => NetFate::SenderDrop,
            1 => NetFate::QueueDrop,
            2 => NetFate::LinkLoss,
            3 if r(4) == 0 => NetFate::InFlight,
            _ => NetFate::Arrived,
        };
        let sent = match fate {
            NetFate::SenderDrop => NOT_ARRIVED,
            _ if app_same => t,
            _ if steady => t + 700_000 + 1_000_000 * (r(odd) == 0) as u64,
            _ => t + r(5_000_000),
        };
        let arr = if fate != NetFate::Arrived {
            NOT_ARRIVED
        } else if steady {
            sent + 30_000_000 + (r(odd) == 0) as u64 * r(40_000_000)
        } else if loaded {
            sent + 30_000_000 + r(4_000_000) + (r(30) == 0) as u64 * 25_000_000
        } else {
            t + 30_000_000 + r(4) * r(20_000_000)
        };
        let pl = if arr != NOT_ARRIVED && arr <= t + 60_000_000 { t + 60_000_000 } else { NOT_ARRIVED };
        c.talkspurt.push(spurt);
        c.t_gen.push(t);
        c.t_sent.push(if app_same && fate != NetFate::SenderDrop { t } else { sent });
        c.t_arr.push(arr);
        c.fate.push(fate);
        c.frames.push(frames);
        c.payload.push(80 * frames as u32);
        played.push(pl);
    }
    if app_same {
        // Without sender drops the send column equals the generation one.
        c.t_sent = c.t_gen.clone();
        for f in c.fate.iter_mut().filter(|f| **f == NetFate::SenderDrop) {
            *f = NetFate::QueueDrop;
        }
    }
    (c, played)
}

/// The pass gives the bits of each metric's own function (module
/// documentation): compared with `==` on f64, not within a tolerance.
#[test]
fn pass_equals_the_metrics_functions() {
    for seed in 1..40u64 {
        check(seed, false, false);
    }
}

/// The same on calls made mostly of steady runs, folded at once
/// (`steady.rs`), with rare losses, delays, waits and talkspurts.
#[test]
fn steady_runs_equal_the_metrics_functions() {
    for seed in 1..120u64 {
        check(seed, true, false);
    }
}

/// The same on calls through a queue (every delay its own, so no steady
/// run), mostly taken in stretches of arrived packets (`pass.rs`).
#[test]
fn stretches_equal_the_metrics_functions() {
    for seed in 1..120u64 {
        check(seed, false, true);
    }
}

fn check(seed: u64, steady: bool, loaded: bool) {
    let frame = 10_000_000u64;
    {
        for (missing, silence) in [(MissingPredecessor::Delayed, RtpiSilence::Count), (MissingPredecessor::Timely, RtpiSilence::Exclude)] {
            let n = if steady { 20 + seed as usize * 41 } else { 50 + seed as usize * 13 };
            let (c, played) = call_of(seed * 7919, n, seed % 3 == 0, steady, loaded);
            println!("seed {seed}, steady {steady}, loaded {loaded}, {n} packets");
            let a = AnalysisCfg { rtpi_missing: missing, rtpi_silence: silence, ..AnalysisCfg::default() };
            let p = pass(&c, &played, &[], &a, frame, 5_000_000, 25.0, true, delay_impairment_simplified);
            // Steady calls are mostly folded.
            assert!(!steady || n < 100 || p.folded * 2 >= n, "seed {seed}: {} of {n} folded", p.folded);
            assert!(!loaded || n < 100 || p.stretched * 2 >= n, "seed {seed}: {} of {n} in stretches", p.stretched);
            assert_eq!(p.counts, loss_counts(&c.fate, &played));
            let arrived: Vec<usize> = (0..c.len()).filter(|&i| c.t_arr[i] != NOT_ARRIVED).collect();
            let delays: Vec<u64> = arrived.iter().map(|&i| c.t_arr[i] - c.t_gen[i]).collect();
            // The flag says `p.delays` is ascending (sorted per talkspurt
            // for the bounds: one talkspurt, all of it); set whenever they
            // arrived in order.
            assert_eq!(p.arrived, delays.len());
            assert!(!p.delays_sorted || p.delays.is_sorted(), "seed {seed}");
            assert!(p.delays_sorted || !delays.is_sorted(), "seed {seed}");
            let (mut got, mut want) = (p.delays.clone(), delays.clone());
            (got.sort_unstable(), want.sort_unstable());
            assert_eq!(got, want);
            assert_eq!(p.delay_sum, delays.iter().map(|&d| d as f64 * 1e-6).sum::<f64>());
            let budget: f64 = arrived.iter().map(|&i| (3 * (c.frames[i] as u64 * frame) + 5_000_000 + c.t_arr[i] - c.t_gen[i]) as f64).sum();
            assert_eq!(p.budget_sum, budget);
            let waits: Vec<u64> = (0..c.len()).filter(|&i| c.t_sent[i] != NOT_ARRIVED).map(|i| c.t_sent[i].saturating_sub(c.t_gen[i])).collect();
            assert_eq!((&p.waits, p.wait_sum), (&waits, waits.iter().map(|&w| w as f64 * 1e-6).sum::<f64>()));
            let mut arrivals: Vec<(u64, u64)> = arrived.iter().map(|&i| (c.t_gen[i] - c.frames[i] as u64 * frame, c.t_arr[i])).collect();
            assert_eq!(p.arrivals_sorted, arrivals.is_sorted_by_key(|&(_, a)| a));
            if p.arrivals_sorted {
                assert_eq!(p.rfc_jitter, interarrival_jitter_ns(&arrivals));
            }
            arrivals.sort_by_key(|&(_, a)| a);
            assert_eq!(p.sender.jitter(), gap_jitter(&c.talkspurt, &c.t_sent));
            assert_eq!(p.app.as_ref().map_or(p.sender.jitter(), |g| g.jitter()), gap_jitter(&c.talkspurt, &c.t_gen));
            let (rj, pj) = gap_jitter_over(&c.talkspurt, &c.t_arr, a.jitter_threshold.as_nanos() as f64);
            assert_eq!((p.receiver.jitter(), p.receiver.exceedance()), (rj, pj));
            let rt = real_time_performance_spurts(&c.t_arr, &c.talkspurt, a.rtpi_threshold.as_nanos(), missing, silence).unwrap();
            assert_eq!(p.rtpi, Some((rt.received, rt.delayed)));
            assert_eq!((p.delivered, p.delivered_played), (delivered_bytes(&c.payload, &c.t_arr), delivered_bytes(&c.payload, &played)));
            let buffer: u64 = (0..c.len()).filter(|&i| played[i] != NOT_ARRIVED).map(|i| played[i] - c.t_gen[i]).sum();
            assert_eq!(p.buffer_sum, buffer);
            let trace = CallTrace { talkspurt: &c.talkspurt, t_gen: &c.t_gen, t_arr: &c.t_arr };
            assert_eq!(p.spurts.as_ref(), Some(crate::playout::Prepared::new(&trace).spurts()));
            let sc = playout::score(&trace, &played, 25.0, 0.0, delay_impairment_simplified, |_| 0.0);
            assert_eq!((p.played, p.id_sum / p.played.max(1) as f64), (sc.played, sc.mean_id));
            assert_eq!(p.lost, crate::metrics::not_played(&played));
            assert_eq!(p.onset, crate::metrics::adaptation::congestion_onset(&c.fate, &c.t_sent));
        }
    }
}
