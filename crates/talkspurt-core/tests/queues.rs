//! AQM queues and ECN through simulated networks: RED against the
//! Floyd–Jacobson formulas, CoDel's sojourn target, FQ-CoDel's isolation
//! of a sparse voice flow, PIE's delay target, and ECN-capable TCP and
//! TFRC reacting to marks. Figures and tolerances are in each test.

mod common;
use common::*;
use talkspurt_core::cc::CcAlgorithm;
use talkspurt_core::run::{run, RunOutput};
use talkspurt_core::scenario::queue::*;
use talkspurt_core::scenario::*;
use talkspurt_core::traffic::SizeDist;

const ACCESS: QueueLimit = QueueLimit::Packets(1000);

/// s —100 Mb/s, 1 ms— r1 —`rate`, `delay`, `queue`— r2 —100 Mb/s, 1 ms— d.
/// The bottleneck r1→r2 is channel 2.
fn dumbbell(rate: u64, delay_ms: u64, queue: QueueCfg) -> Vec<LinkCfg> {
    let mut b = link("r1", "r2", chan(rate, ms(delay_ms), ACCESS, LossCfg::None));
    b.forward.queue = queue;
    vec![
        link("s", "r1", chan(100_000_000, ms(1), ACCESS, LossCfg::None)),
        b,
        link("r2", "d", chan(100_000_000, ms(1), ACCESS, LossCfg::None)),
    ]
}

const BOTTLENECK: usize = 2;

fn cbr(rate_bps: u64, bytes: u32) -> TrafficCfg {
    TrafficCfg {
        kind: TrafficKind::Cbr { rate_bps, packet: SizeDist::Fixed { bytes } },
        transport: TransportCfg::Udp { send_buffer: 5 },
        ..bulk(1, "s", "d", TransportCfg::Udp { send_buffer: 5 })
    }
}

fn red(min: f64, max: f64, wait: bool) -> RedCfg {
    RedCfg {
        limit: QueueLimit::Packets(100),
        min_th: Some(min),
        max_th: Some(max),
        max_p: 0.1,
        weight: Some(0.002),
        gentle: false,
        wait,
        mode: RedMode::Packets,
        mean_packet: 1000,
        ecn: false,
        series: true,
    }
}

/// Link-series values named `name` of channel `ch` between t0 and t1 s.
fn link_series(out: &RunOutput, ch: usize, name: &str, t0: f64, t1: f64) -> Vec<f64> {
    let s = &out.report.series;
    let (flow, side, t, n, v) = (s.u32("flow"), s.str("side"), s.f64("t"), s.str("name"), s.f64("value"));
    (0..v.len())
        .filter(|&i| side[i] == "link" && flow[i] as usize == ch && n[i] == name && t[i] >= t0 && t[i] < t1)
        .map(|i| v[i])
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// RED on a steady overload: a 1000-byte CBR at 1.05× a 10 Mb/s
/// bottleneck must lose d = 1 − 1/1.05 of its packets, all by RED. With a
/// fixed p_b, RED's gap between drops is uniform on 1…1/p_b−1 (mean
/// 1/(2p_b), Floyd–Jacobson §4/§7), so the drop rate is 2p_b; with ns-2's
/// `wait` it is uniform on 1/p_b…2/p_b−1 (rate 2p_b/(3−p_b)). Solving for
/// p_b and inverting p_b = max_p·(avg−min_th)/(max_th−min_th) predicts the
/// average queue: 7.38 packets without wait, 11.98 with. Measured over
/// 20–100 s: the mean average queue within 5 % of that, the drop fraction
/// within 3 % of d, and the drop fraction within 5 % of the formula's rate
/// at the measured average.
#[test]
fn red_average_queue_and_drop_rate_match_floyd_jacobson() {
    let d = 1.0 - 1.0 / 1.05;
    for wait in [false, true] {
        let pb = if wait { 3.0 * d / (2.0 + d) } else { d / 2.0 };
        let predicted_avg = 5.0 + 10.0 * pb / 0.1;
        let links = dumbbell(10_000_000, 10, QueueCfg::Red(red(5.0, 15.0, wait)));
        let mut s = scenario(run_cfg(secs(100), 1), links, vec![], vec![cbr(10_500_000, 1000)]);
        s.run.trace = false;
        let out = run(&s, &mut no_progress()).unwrap();
        let l = &out.report.links;
        assert_eq!(l.str("link")[BOTTLENECK], "r1->r2");
        let avg = mean(&link_series(&out, BOTTLENECK, "red_avg", 20.0, 100.0));
        let (offered, early, tail) =
            (l.i64("offered")[BOTTLENECK] as f64, l.i64("aqm_drops")[BOTTLENECK] as f64, l.i64("queue_drops")[BOTTLENECK]);
        let frac = early / offered;
        let pb_meas = 0.1 * (avg - 5.0) / 10.0;
        let rate_at_avg = if wait { 2.0 * pb_meas / (3.0 - pb_meas) } else { 2.0 * pb_meas };
        eprintln!(
            "wait {wait}: avg {avg:.3} (FJ {predicted_avg:.3}), drops {frac:.5} (d {d:.5}, formula at avg {rate_at_avg:.5}), tail {tail}"
        );
        assert_eq!(tail, 0);
        assert!((avg / predicted_avg - 1.0).abs() < 0.05, "wait {wait}: avg {avg} vs {predicted_avg}");
        assert!((frac / d - 1.0).abs() < 0.03, "wait {wait}: drop fraction {frac} vs {d}");
        assert!((frac / rate_at_avg - 1.0).abs() < 0.05, "wait {wait}: {frac} vs {rate_at_avg}");
    }
}

fn tcp(ecn: bool) -> TransportCfg {
    let mut t = tcp_ns2(CcAlgorithm::NewReno);
    if let TransportCfg::Tcp(c) = &mut t {
        c.ecn = ecn;
    }
    t
}

/// Four ECN-capable NewReno flows over RED with ECN (packet mode, min_th
/// 20, max_th 80, gentle, 200-packet limit; 10 Mb/s, 20 ms): the
/// bottleneck marks instead of dropping: after slow start's overshoot
/// (whose drops the average queue is too slow to prevent) no segment is
/// retransmitted from 10 s to 60 s, yet every sender keeps cutting its
/// window (≥ 10 cuts after 10 s, all on echoed marks), at most once per
/// round trip (RFC 3168 §6.1.2): successive cwnd reductions are at least
/// the flow's smallest RTT sample apart. The same flows without ECN get
/// no marks and retransmit after 10 s.
#[test]
fn ecn_tcp_over_red_gets_marks_not_drops() {
    for ecn in [true, false] {
        let q = RedCfg { ecn: true, series: false, gentle: true, limit: QueueLimit::Packets(200), ..red(20.0, 80.0, true) };
        let mut s = scenario(run_cfg(secs(60), 3), dumbbell(10_000_000, 20, QueueCfg::Red(q)), vec![], vec![bulk(4, "s", "d", tcp(ecn))]);
        s.run.trace = false;
        s.analysis.interval = Some((secs(10), secs(60)));
        let out = run(&s, &mut no_progress()).unwrap();
        let l = &out.report.links;
        let (marks, early, tail) = (l.i64("ecn_marks")[BOTTLENECK], l.i64("aqm_drops")[BOTTLENECK], l.i64("queue_drops")[BOTTLENECK]);
        let rexmit: i64 = out.report.traffic.i64("retransmits").iter().sum();
        eprintln!("ecn {ecn}: marks {marks}, early drops {early}, tail drops {tail}, retransmits {rexmit}");
        if !ecn {
            assert_eq!(marks, 0);
            assert!(early > 0 && rexmit > 0);
            continue;
        }
        assert!(marks > 0);
        assert_eq!(rexmit, 0, "retransmits after 10 s");
        // cwnd reductions per flow vs its smallest RTT sample.
        let sr = &out.report.series;
        let (flow, side, t, n, v) = (sr.u32("flow"), sr.str("side"), sr.f64("t"), sr.str("name"), sr.f64("value"));
        for f in 0..4u32 {
            let pick = |name: &str| -> Vec<(f64, f64)> {
                (0..v.len()).filter(|&i| flow[i] == f && side[i] == "sender" && n[i] == name).map(|i| (t[i], v[i])).collect()
            };
            let min_rtt = pick("rtt_ms").iter().map(|x| x.1).fold(f64::INFINITY, f64::min) / 1e3;
            let cw = pick("cwnd");
            let cuts: Vec<f64> = cw.windows(2).filter(|w| w[1].1 < w[0].1).map(|w| w[1].0).collect();
            let gap = cuts.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
            eprintln!("flow {f}: {} reductions, min gap {:.1} ms, min RTT {:.1} ms", cuts.len(), gap * 1e3, min_rtt * 1e3);
            assert!(cuts.iter().filter(|&&c| c >= 10.0).count() >= 10, "flow {f}: {} reductions", cuts.len());
            assert!(gap >= min_rtt, "flow {f}: reductions {gap} s apart, RTT {min_rtt} s");
        }
    }
}

/// RED with ns-2.35's defaults (byte mode, automatic thresholds and weight).
fn red_ns2() -> RedCfg {
    RedCfg {
        limit: QueueLimit::Packets(100),
        min_th: None,
        max_th: None,
        max_p: 0.1,
        weight: None,
        gentle: true,
        wait: true,
        mode: RedMode::Bytes,
        mean_packet: 500,
        ecn: false,
        series: false,
    }
}
