//! TCP through simulated networks: link utilisation, fairness, the
//! Padhye et al. throughput model under random loss, and voice over TCP.

mod common;
use common::*;
use talkspurt_core::cc::CcAlgorithm;
use talkspurt_core::net::queue::QueueLimit;
use talkspurt_core::run::run;
use talkspurt_core::scenario::*;

/// s —100 Mb/s, 1 ms— r1 —`rate`, `delay`, 100 p, loss p— r2 —100 Mb/s, 1 ms— d
fn dumbbell(rate: u64, delay_ms: u64, limit: u32, p: f64) -> Vec<LinkCfg> {
    let loss = if p > 0.0 { LossCfg::Bernoulli { p } } else { LossCfg::None };
    let mut bottleneck = link("r1", "r2", chan(rate, ms(delay_ms), QueueLimit::Packets(limit), LossCfg::None));
    bottleneck.forward.loss = loss;
    vec![
        link("s", "r1", chan(100_000_000, ms(1), QueueLimit::Packets(1000), LossCfg::None)),
        bottleneck,
        link("r2", "d", chan(100_000_000, ms(1), QueueLimit::Packets(1000), LossCfg::None)),
    ]
}

fn goodputs(s: &Scenario) -> Vec<f64> {
    let out = run(s, &mut no_progress()).unwrap();
    out.report.traffic.f64("goodput_bps").to_vec()
}

/// One greedy flow on a clean 10 Mb/s path fills it: goodput is the link
/// rate times payload/packet (1460/1500) after slow start, within 3 %.
#[test]
fn one_flow_fills_a_clean_link() {
    for cc in [CcAlgorithm::Reno, CcAlgorithm::NewReno, CcAlgorithm::Sack, CcAlgorithm::Tahoe] {
        let mut s = scenario(run_cfg(secs(60), 1), dumbbell(10_000_000, 20, 100, 0.0), vec![], vec![bulk(1, "s", "d", tcp_ns2(cc))]);
        s.analysis.interval = Some((secs(10), secs(60)));
        s.run.trace = false;
        let g = goodputs(&s)[0];
        let ideal = 10e6 * 1460.0 / 1500.0;
        eprintln!("{}: {g:.0} b/s ({:.3} of ideal)", cc.name(), g / ideal);
        assert!(g > 0.97 * ideal && g <= ideal * 1.0001, "{}: goodput {g}", cc.name());
    }
}
