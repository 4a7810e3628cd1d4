//! The calls, groups, bursts and talkspurts tables of a real run: fate
//! accounting, the bounds dominating every online buffer, histograms and
//! pooled rows consistent with the per-call columns, and closed forms on a
//! clean path.

mod common;
use common::*;
use talkspurt_core::net::queue::QueueLimit;
use talkspurt_core::playout::PlayoutKind;
use talkspurt_core::metrics::adaptation::congestion_onset_by;
use talkspurt_core::trace::NetFate;
use talkspurt_core::run::run;
use talkspurt_core::scenario::build;
use talkspurt_core::scenario::LossAt;
use talkspurt_core::scenario::{LossCfg, Scenario, StartCfg, TrafficCfg, TrafficKind, TransportCfg};
use talkspurt_core::time::SimDuration;
use talkspurt_core::trace::{Column, Table};
use talkspurt_core::traffic::SizeDist;

/// Three codec groups over a congested 1 Mb/s bottleneck with link loss and
/// Poisson cross traffic; on/off speech.
fn congested(seed: u64, playout: &str) -> Scenario {
    let mut groups = Vec::new();
    for (codec, n) in [("G.711", 4), ("G.729", 6), ("AMR-NB-12.2", 3)] {
        let mut g = calls(n, "a", "b", codec, 20);
        g.speech = exp_speech(1000, 1500);
        g.start = StartCfg::Uniform { from: SimDuration::ZERO, to: secs(2) };
        g.playout = PlayoutKind::from_name(playout).unwrap();
        g.label = Some(codec.to_string());
        groups.push(g);
    }
    let cross = TrafficCfg {
        active: vec![],
        random: false,
        idle_first: false,
        spread: false,
        count: 1,
        from: "a".into(),
        to: "b".into(),
        kind: TrafficKind::Poisson { rate_bps: 500_000, packet: SizeDist::Exponential { mean_bytes: 500.0 } },
        transport: TransportCfg::Udp { send_buffer: 5 },
        start: StartCfg::Fixed(SimDuration::ZERO),
        stagger: SimDuration::ZERO,
        stop: None,
        label: None,
    };
    let bottleneck = chan(1_000_000, ms(40), QueueLimit::Packets(30), LossCfg::Bernoulli { p: 0.01, at: LossAt::Wire });
    scenario(run_cfg(secs(40), seed), vec![link("a", "b", bottleneck)], groups, vec![cross])
}

fn f(t: &Table, c: &str) -> Vec<f64> {
    t.f64(c).to_vec()
}
fn i(t: &Table, c: &str) -> Vec<i64> {
    t.i64(c).to_vec()
}
fn u32s(t: &Table, c: &str) -> Vec<u32> {
    match t.get(c) {
        Some(Column::U32(v)) => v.clone(),
        Some(Column::Cat { codes, .. }) => codes.clone(),
        _ => panic!("no u32/cat column {c}"),
    }
}

/// `a >= b` up to rounding, or `b` undefined.
fn ge(a: f64, b: f64, what: &str, seed: u64, call: usize) {
    assert!(b.is_nan() || a >= b - 1e-9, "seed {seed} call {call}: {what}: {a} < {b}");
}

#[test]
fn fates_and_loss_decomposition_add_up() {
    for seed in [1, 2] {
        let out = run(&congested(seed, "fixed"), &mut no_progress()).unwrap();
        let c = &out.report.calls;
        let g = i(c, "generated");
        let parts = ["sender_drop", "queue_drop", "link_loss", "in_flight", "late", "played"];
        let (lt, comb, played) = (f(c, "loss_total"), f(c, "loss_combined"), i(c, "played"));
        let mut any_queue_drop = false;
        for k in 0..g.len() {
            let sum: i64 = parts.iter().map(|p| i(c, p)[k]).sum();
            assert_eq!(sum, g[k], "seed {seed} call {k}: fates must partition the generated packets");
            assert!((lt[k] - (1.0 - played[k] as f64 / g[k] as f64)).abs() < 1e-12);
            // seed 003: 1 − (1 − P_TP)(1 − PER)(1 − P_J) is the total loss.
            assert!((comb[k] - lt[k]).abs() < 1e-12, "seed {seed} call {k}: {} vs {}", comb[k], lt[k]);
            let (snd, net, bp, late) = (f(c, "loss_sender")[k], f(c, "loss_network")[k], f(c, "loss_before_playout")[k], f(c, "loss_late")[k]);
            assert!((snd + net - bp).abs() < 1e-12 && (bp + late - lt[k]).abs() < 1e-12, "seed {seed} call {k}");
            let pj = f(c, "p_j_jitter")[k];
            assert!((0.0..=1.0).contains(&pj), "seed {seed} call {k}: P_J {pj}");
            any_queue_drop |= i(c, "queue_drop")[k] > 0;
            // RTPI + DPR + loss rate = 1 (seed 002 Algorithm 1's counts).
            let arrived = i(c, "arrived")[k] as f64;
            let sum = f(c, "rtpi")[k] + f(c, "dpr")[k] + (1.0 - arrived / g[k] as f64);
            assert!((sum - 1.0).abs() < 1e-12);
        }
        assert!(any_queue_drop, "seed {seed}: the scenario is meant to congest the bottleneck");
    }
}

/// The report's `congestion_onset_s`, which scoring now reads from its
/// decoded columns (`Scored::congestion_onset`), is the literal definition
/// over the records' accessors that the report used to scan per call,
/// `congestion_onset_by(fates, t_sent(i))`, bit for bit: on the congested
/// UDP calls (sent as generated) and on DCCP CCID 3 calls, whose rate
/// holds packets in the send buffer (sent later than generated).
#[test]
fn congestion_onset_is_the_records_definition() {
    let tfrc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/tfrc_voice.toml")).unwrap();
    // A 2 Mb/s, 20-packet bottleneck: the calls' rates start above it.
    let tfrc = tfrc.replace(r#"rate = "10Mbps""#, r#"rate = "2Mbps""#).replace(r#"limit = "100p""#, r#"limit = "20p""#);
    let mut dccp = shipped_text("bench/tfrc_voice.toml", &tfrc);
    dccp.run.duration = secs(10);
    let cases = [("congested 1", congested(1, "fixed")), ("congested 2", congested(2, "fixed")), ("tfrc_voice at 2 Mb/s, 10 s", dccp)];
    let mut held = false;
    for (name, s) in cases {
        let got = f(&run(&s, &mut no_progress()).unwrap().report.calls, "congestion_onset_s");
        let mut w = build(&s).unwrap();
        w.run(&mut no_progress());
        let literal: Vec<Option<u64>> = w.calls.iter().map(|c| congestion_onset_by(&c.rec.fates(), |i| c.rec.t_sent(i))).collect();
        let want: Vec<u64> = literal.iter().map(|o| o.map_or(f64::NAN, |o| o as f64 * 1e-9).to_bits()).collect();
        assert_eq!(got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want, "{name}");
        assert!(literal.iter().any(Option::is_some), "{name}: the scenario is meant to drop at the queue");
        held |= w.calls.iter().any(|c| c.rec.fates().iter().enumerate().any(|(i, &f)| f == NetFate::QueueDrop && c.rec.t_sent(i) != c.rec.t_gen(i)));
    }
    assert!(held, "some queue-dropped packet was sent after it was generated");
}

#[test]
fn bounds_dominate_every_online_buffer() {
    for seed in [3, 4] {
        for name in PlayoutKind::NAMES {
            let out = run(&congested(seed, name), &mut no_progress()).unwrap();
            let c = &out.report.calls;
            let codec = match c.get("codec") {
                Some(Column::Str(v)) => v.clone(),
                _ => unreachable!(),
            };
            for k in 0..codec.len() {
                let (br, bg) = (f(c, "bound_r")[k], f(c, "bound_g107_r")[k]);
                if codec[k] == "AMR-NB-12.2" {
                    assert!(br.is_nan(), "AMR has no Cole–Rosenbluth λ: reduced bound undefined");
                } else {
                    ge(br, f(c, "r_simple")[k], &format!("{name}: MKT bound vs buffer (reduced)"), seed, k);
                    ge(br, f(c, "fixed_r")[k], "MKT bound vs Tao–Guérin (reduced)", seed, k);
                }
                assert!(bg.is_finite(), "seed {seed} call {k}: G.107 bound defined for {}", codec[k]);
                ge(bg, f(c, "r")[k], &format!("{name}: MKT bound vs buffer (G.107)"), seed, k);
                ge(bg, f(c, "fixed_g107_r")[k], "MKT bound vs Tao–Guérin (G.107)", seed, k);
                if name == "fixed" {
                    ge(f(c, "fixed_g107_r")[k], f(c, "r")[k], "Tao–Guérin vs the 150 ms buffer", seed, k);
                    ge(f(c, "fixed_r")[k], f(c, "r_simple")[k], "Tao–Guérin vs the 150 ms buffer", seed, k);
                }
                // The chosen i never plays more than arrived.
                assert!(f(c, "bound_g107_played")[k] <= i(c, "arrived")[k] as f64);
            }
        }
    }
}

#[test]
fn bursts_and_talkspurts_tables_match_the_calls() {
    let out = run(&congested(5, "ramjee-4"), &mut no_progress()).unwrap();
    let r = &out.report;
    let (c, b) = (&r.calls, &r.bursts);
    let ts = r.talkspurts.as_ref().expect("bounds are on by default");
    let n = c.rows();
    let (bc, bk, bl, bn) = (u32s(b, "call"), u32s(b, "kind"), u32s(b, "length"), i(b, "runs"));
    let (tc, tp) = (u32s(ts, "call"), f(ts, "bound_g107_played"));
    for k in 0..n {
        for (kind, col) in [(0, "lost_runs"), (1, "received_runs")] {
            let runs: i64 = (0..bc.len()).filter(|&j| bc[j] == k as u32 && bk[j] == kind).map(|j| bn[j]).sum();
            assert_eq!(runs, i(c, col)[k], "call {k}: histogram of {col}");
        }
        // Without a cap hit, Σ length·runs over lost runs is every unplayed packet.
        let lost_pkts: i64 = (0..bc.len()).filter(|&j| bc[j] == k as u32 && bk[j] == 0).map(|j| bl[j] as i64 * bn[j]).sum();
        if f(c, "lost_run_max")[k] < 200.0 || f(c, "lost_run_max")[k].is_nan() {
            assert_eq!(lost_pkts, i(c, "generated")[k] - i(c, "played")[k], "call {k}");
        }
        let played: f64 = (0..tc.len()).filter(|&j| tc[j] == k as u32).map(|j| tp[j]).sum();
        assert_eq!(played, f(c, "bound_g107_played")[k], "call {k}: per-talkspurt plays sum to i");
    }
    // The (all) row pools every call.
    let g = &r.groups;
    let last = g.rows() - 1;
    assert_eq!(i(g, "generated")[last], i(c, "generated").iter().sum::<i64>());
    let pooled = 1.0 - i(c, "played").iter().sum::<i64>() as f64 / i(c, "generated").iter().sum::<i64>() as f64;
    assert!((f(g, "loss_total")[last] - pooled).abs() < 1e-12);
    let jain = f(g, "jain_goodput")[last];
    assert!(jain >= 1.0 / n as f64 && jain <= 1.0, "Jain's index {jain} outside [1/n, 1]");
    // Pooled run mean = Σ lost packets in runs / Σ runs.
    let runs: i64 = i(c, "lost_runs").iter().sum();
    let pkts: f64 = (0..n).map(|k| f(c, "lost_run_mean")[k] * i(c, "lost_runs")[k] as f64).filter(|x| !x.is_nan()).sum();
    assert!((f(g, "lost_run_mean")[last] - pkts / runs as f64).abs() < 1e-9);
}

/// One continuous G.711 call on an idle 10 Mb/s link: constant delay, so
/// seed 003's jitter is exactly 0 at both ends, nothing is lost, and the
/// goodput is the codec's payload rate.
#[test]
fn clean_path_closed_forms() {
    let g = calls(1, "a", "b", "G.711", 20);
    let l = link("a", "b", chan(10_000_000, ms(25), QueueLimit::Packets(50), LossCfg::None));
    let out = run(&scenario(run_cfg(secs(60), 9), vec![l], vec![g], vec![]), &mut no_progress()).unwrap();
    let c = &out.report.calls;
    for col in ["jitter_sender_mean_ms", "jitter_sender_max_ms", "jitter_receiver_mean_ms", "jitter_receiver_max_ms"] {
        assert_eq!(f(c, col)[0], 0.0, "{col}");
    }
    assert_eq!((i(c, "clips")[0], f(c, "lost_speech_s")[0]), (0, 0.0));
    assert_eq!(f(c, "p_j_jitter")[0], 0.0);
    assert_eq!((i(c, "lost_runs")[0], i(c, "received_runs")[0]), (0, 1));
    // 160-byte payloads completed at 20, 40, …, 60 000 ms: 3000 packets,
    // 64 000 b/s of payload.
    assert_eq!(i(c, "generated")[0], 60_000 / 20);
    assert!((f(c, "goodput_bps")[0] - 64_000.0).abs() < 1e-6);
    // Delay: 25 ms propagation + 200 B at 10 Mb/s = 25.16 ms; the bound
    // plays everything at that delay: mouth-to-ear 20 + 0 + 25.16 ms.
    assert!((f(c, "bound_g107_delay_ms")[0] - 45.16).abs() < 1e-9);
    assert_eq!(f(c, "bound_g107_loss")[0], 0.0);
    assert!((f(c, "fixed_delay_ms")[0] - 45.16).abs() < 1e-9);
    // Reduced model at d = 45.16 ms, no loss: 94.2 − 0.024·45.16 − λ1 (0 for G.711).
    assert!((f(c, "bound_r")[0] - (94.2 - 0.024 * 45.16)).abs() < 1e-9);
}
