//! Tests of the streaming scorer (score/stream.rs).

use super::*;
use crate::playout::PlayoutKind;
use crate::quality::sketch::SKETCH_RELATIVE_ERROR;
use crate::score::summary::calls_table;
use crate::score::{score_call, AnalysisCfg};
use crate::time::{SimDuration, SimTime};
use crate::trace::record::CallRecord;
use crate::trace::Column;
use crate::playout::testutil::SplitMix64 as Rng;

enum Ev {
    Gen { talkspurt: u32, frames: u32, payload: u32 },
    Sent,
    Drop(NetFate),
    Arrive,
}

/// A random call's events in time order (generation, send, drop or
/// arrival; equal times in a random order, causality kept per packet):
/// reordering, ties, sender drops, queue and link losses, packets left
/// in flight and, when `reliable`, dropped copies that arrive later.
fn events(seed: u64, reliable: bool) -> Vec<(u64, u8, u64, u32, Ev)> {
    let mut r = Rng::new(seed);
    let n = 1 + r.below(400) as u32;
    let (mut t, mut spurt) = (1_000_000_000u64, 0u32);
    let grid = r.below(2) == 0; // delays on a coarse grid: many equal arrival times
    let mut ev = Vec::new();
    for seq in 0..n {
        if r.below(20) == 0 {
            spurt += 1 + r.below(2) as u32;
            t += 300_000_000 + r.below(2_000_000_000);
        }
        t += 20_000_000;
        let frames = if r.below(10) == 0 { 1 } else { 2 };
        ev.push((t, 0, r.below(1000), seq, Ev::Gen { talkspurt: spurt, frames, payload: 80 * frames }));
        if r.below(20) == 0 {
            ev.push((t, 1, r.below(1000), seq, Ev::Drop(NetFate::SenderDrop)));
            continue;
        }
        let sent = t + if r.below(3) == 0 { r.below(30_000_000) } else { 0 };
        ev.push((sent, 1, r.below(1000), seq, Ev::Sent));
        let delay = if grid { 20_000_000 * (1 + r.below(8)) } else { 10_000_000 + r.below(200_000_000) };
        match r.below(20) {
            0 => ev.push((sent + delay / 2, 2, r.below(1000), seq, Ev::Drop(NetFate::QueueDrop))),
            1 => ev.push((sent + delay / 2, 2, r.below(1000), seq, Ev::Drop(NetFate::LinkLoss))),
            2 => {} // in flight at the end
            3 if reliable => {
                ev.push((sent + delay / 2, 2, r.below(1000), seq, Ev::Drop(NetFate::QueueDrop)));
                ev.push((sent + 3 * delay, 2, r.below(1000), seq, Ev::Arrive));
            }
            _ => ev.push((sent + delay, 2, r.below(1000), seq, Ev::Arrive)),
        }
    }
    ev.sort_by_key(|e| (e.0, e.1, e.2));
    ev
}

fn info(playout: PlayoutKind, reliable: bool) -> CallInfo {
    CallInfo {
        group: "g".into(),
        codec: *crate::voice::codec::lookup("G.711").unwrap(),
        ptime: SimDuration::from_millis(20),
        frame: SimDuration::from_millis(10),
        transport: if reliable { "tcp" } else { "udp" },
        playout,
        advantage: 0.0,
        start_s: 1.0,
        stop_s: 40.0,
    }
}

/// The call of `events(seed, reliable)` through a `CallStream` with
/// exact scoring (as `run::folds_as_it_runs` routes it without the trace).
fn folded_exactly(_rec: &CallRecord, info: &CallInfo, a: &AnalysisCfg, seed: u64, reliable: bool) -> Scored {
    let a = AnalysisCfg { scoring: crate::score::Scoring::Exact, ..a.clone() };
    let mut st = CallStream::new(info.clone(), &a);
    for (t, _, _, seq, e) in events(seed, reliable) {
        match e {
            Ev::Gen { talkspurt, frames, payload } => assert_eq!(st.push(t, talkspurt, frames, payload), seq),
            Ev::Sent => st.sent(seq, t),
            Ev::Drop(f) => st.set_fate(seq, f),
            Ev::Arrive => st.arrived(seq, t),
        }
    }
    st.score()
}

/// A long call folded exactly holds a bounded number of elements:
/// 2,000,000 packets (11 h at 20 ms) on a path whose delays take a few
/// values (3 queueing depths), 1 % network loss, talkspurts of 50
/// packets: what it holds after 20,000 packets and after 2,000,000 is
/// the same bound (issue 26 target 4), and the percentiles are exact.
#[test]
fn a_long_call_folded_exactly_holds_bounded_state() {
    let a = AnalysisCfg { bounds: false, scoring: crate::score::Scoring::Exact, ..AnalysisCfg::default() };
    let mut st = CallStream::new(info(PlayoutKind::from_name("ramjee-1").unwrap(), false), &a);
    let mut r = Rng::new(26);
    let (mut most_early, mut most) = (0usize, 0usize);
    let n = 2_000_000u32;
    for seq in 0..n {
        let t = 1_000_000_000 + seq as u64 * 20_000_000;
        st.push(t, seq / 50, 2, 160);
        st.sent(seq, t);
        if r.below(100) == 0 {
            st.set_fate(seq, NetFate::LinkLoss);
        } else {
            st.arrived(seq, t + 40_000_000 + 1_600_000 * r.below(3));
        }
        most = most.max(st.retained());
        if seq == 20_000 {
            most_early = most;
        }
    }
    // Held: packets in flight (at most the 40–43.2 ms delay's worth,
    // 3), the batch of one arrival time, 3 + 1 distinct delays (the
    // waits are all 0), pending values until a merge (< 1024 each),
    // run-length bins (≤ 2 × 200 + clips).
    assert!(most <= 2 * 1024 + 3 * 200 + 16, "held {most}");
    assert!(most <= most_early.max(1) * 2, "held {most_early} after 20,000 packets, {most} after {n}");
    let s = st.score().summary;
    assert_eq!(s.generated, n as u64);
    assert_eq!((s.delay_p50_ms, s.delay_max_ms), (ms(41_600_000.0), ms(43_200_000.0)));
}

/// With the offline bounds, a long call folded exactly holds what the
/// bounds read: each talkspurt's distinct delays (issue 26 target 4).
/// One talkspurt of 2,000,000 packets on three delays holds three
/// groups however long it runs; the bounds are computed (the optimum
/// plays every arrived packet: a 3.2 ms spread is not worth a loss).
#[test]
fn a_long_continuous_call_with_bounds_holds_bounded_state() {
    let a = AnalysisCfg { bounds: true, scoring: crate::score::Scoring::Exact, ..AnalysisCfg::default() };
    let mut st = CallStream::new(info(PlayoutKind::from_name("fixed").unwrap(), false), &a);
    let mut r = Rng::new(27);
    let (mut most_early, mut most) = (0usize, 0usize);
    let (n, mut arrived) = (2_000_000u32, 0u64);
    for seq in 0..n {
        let t = 1_000_000_000 + seq as u64 * 20_000_000;
        st.push(t, 0, 2, 160);
        st.sent(seq, t);
        if r.below(100) == 0 {
            st.set_fate(seq, NetFate::LinkLoss);
        } else {
            st.arrived(seq, t + 40_000_000 + 1_600_000 * r.below(3));
            arrived += 1;
        }
        most = most.max(st.retained());
        if seq == 20_000 {
            most_early = most;
        }
    }
    assert!(most <= most_early.max(1) * 2, "held {most_early} after 20,000 packets, {most} after {n}");
    let sps = st.fold.spurts.as_mut().expect("bounds on");
    sps.finish();
    assert_eq!(sps.retained(), (1, 3));
    let s = st.score().summary;
    assert_eq!(s.bound_played, arrived as f64);
    assert!(s.bound_r.is_finite() && s.fixed_r.is_finite());
}

/// Seed 003's gap jitter at both sender boundaries on a constructed
/// paced call: five packets handed to the transport every 20 ms (20,
/// 40, …, 100 ms) and sent at 20, 45, 60, 80, 100 ms (the second held
/// 5 ms by a pacer). At the application boundary every gap is 20 ms:
/// jitter 0. On the wire the gaps are 25, 15, 20, 20 ms, so the samples
/// |g_{i+1} − g_i| are 10, 5, 0 ms: mean 5 ms, max 10 ms. Exact, scored
/// from the records and streaming alike.
#[test]
fn sender_jitter_at_both_boundaries_of_a_paced_call() {
    let a = AnalysisCfg { bounds: false, ..AnalysisCfg::default() };
    let info = info(PlayoutKind::from_name("fixed").unwrap(), false);
    let mut rec = CallRecord::new(false, 0);
    let mut stream = CallStream::new(info.clone(), &a);
    let ms = 1_000_000u64;
    for (k, sent) in [20, 45, 60, 80, 100].into_iter().enumerate() {
        let gen = 20 * (k as u64 + 1) * ms;
        let seq = rec.push(SimTime(gen), 0, 2, 160, 200);
        assert_eq!(stream.push(gen, 0, 2, 160), seq);
        rec.sent(seq, SimTime(sent * ms));
        stream.sent(seq, sent * ms);
        rec.arrived(seq, SimTime(sent * ms + 30 * ms));
        stream.arrived(seq, sent * ms + 30 * ms);
    }
    for s in [score_call(&rec, &info, &a).summary, stream.score().summary] {
        assert_eq!((s.jitter_app_mean_ms, s.jitter_app_max_ms), (0.0, 0.0));
        assert_eq!((s.jitter_sender_mean_ms, s.jitter_sender_max_ms), (5.0, 10.0));
        // A constant network delay: the receiver sees the wire's gaps.
        assert_eq!((s.jitter_receiver_mean_ms, s.jitter_receiver_max_ms), (5.0, 10.0));
    }
}

/// The same events scored exactly (records, `score_call`) and
/// streaming: every column equal, percentiles within the sketch's
/// bound (bit for bit when the fold is exact).
#[test]
fn random_calls_score_as_exactly() {
    let a = AnalysisCfg { bounds: false, run_cap: 5, rtpi_threshold: SimDuration::from_millis(60), ..AnalysisCfg::default() };
    for case in 0..120u64 {
        let seed = 0x5717_0000 + case;
        let reliable = case % 3 == 0;
        let name = PlayoutKind::NAMES[case as usize % PlayoutKind::NAMES.len()];
        let mut playout = PlayoutKind::from_name(name).unwrap();
        if let PlayoutKind::FixedDepth(d) = &mut playout {
            d.ptime = Some(20_000_000);
        }
        let info = info(playout, reliable);
        let mut a = a.clone();
        a.rtpi_missing = [MissingPredecessor::Timely, MissingPredecessor::Delayed, MissingPredecessor::PreviousArrival][case as usize % 3];
        let mut rec = CallRecord::new(false, 0);
        let mut stream = CallStream::new(info.clone(), &a);
        for (t, _, _, seq, e) in events(seed, reliable) {
            match e {
                Ev::Gen { talkspurt, frames, payload } => {
                    assert_eq!(rec.push(SimTime(t), talkspurt, frames, payload, 0), seq);
                    assert_eq!(stream.push(t, talkspurt, frames, payload), seq);
                }
                Ev::Sent => {
                    rec.sent(seq, SimTime(t));
                    stream.sent(seq, t);
                }
                Ev::Drop(f) => {
                    rec.set_fate(seq, f, 0);
                    stream.set_fate(seq, f);
                }
                Ev::Arrive => {
                    rec.arrived(seq, SimTime(t));
                    stream.arrived(seq, t);
                }
            }
        }
        let exact = calls_table(std::slice::from_ref(&info), &[score_call(&rec, &info, &a)]);
        let streamed = calls_table(std::slice::from_ref(&info), &[stream.score()]);
        // Exact scoring with the offline bounds, from the records and
        // folded as the call ran: the same bits.
        let ab = AnalysisCfg { bounds: true, ..a.clone() };
        let exact_b = calls_table(std::slice::from_ref(&info), &[score_call(&rec, &info, &ab)]);
        let exact_fold = calls_table(std::slice::from_ref(&info), &[folded_exactly(&rec, &info, &ab, seed, reliable)]);
        for ((n, e), (_, f)) in exact_b.columns.iter().zip(&exact_fold.columns) {
            let same = match (e, f) {
                (Column::F64(e), Column::F64(f)) => e[0].to_bits() == f[0].to_bits() || (e[0].is_nan() && f[0].is_nan()),
                _ => e == f,
            };
            assert!(same, "seed {seed} {name}: {n} exact {e:?} folded exactly {f:?}");
        }
        for ((n, e), (_, s)) in exact.columns.iter().zip(&streamed.columns) {
            let (Column::F64(e), Column::F64(s)) = (e, s) else {
                assert_eq!(e, s, "seed {seed} {name}: {n}");
                continue;
            };
            let (x, y) = (e[0], s[0]);
            let bound = match *n {
                "delay_p50_ms" | "delay_p95_ms" | "delay_p99_ms" | "sender_wait_p95_ms" => SKETCH_RELATIVE_ERROR * (1.0 + 1e-9),
                _ => 0.0,
            };
            let ok = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) || (x - y).abs() <= x.abs() * bound + 1e-12 * (bound > 0.0) as u8 as f64;
            assert!(ok, "seed {seed} {name} reliable {reliable}: {n} exact {x} streaming {y}");
        }
    }
}
