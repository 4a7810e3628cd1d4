//! Queueing closed forms: Poisson arrivals through one link at load
//! ρ = 0.8. Pollaczek–Khinchine mean wait W = λ·E[S²] / (2(1 − ρ)):
//! fixed sizes (M/D/1) W = ρ·S / (2(1 − ρ)); exponential sizes (M/M/1)
//! W = ρ·S / (1 − ρ).

mod common;
use common::*;
use talkspurt_core::net::queue::QueueLimit;
use talkspurt_core::run::run;
use talkspurt_core::scenario::{LossCfg, StartCfg, TrafficCfg, TrafficKind, TransportCfg};
use talkspurt_core::time::SimDuration;
use talkspurt_core::traffic::SizeDist;

/// Mean queueing wait (ms) on the a→b channel, 10 Mb/s, Poisson 8 Mb/s.
fn mean_wait_ms(packet: SizeDist, seed: u64) -> f64 {
    let mut rc = run_cfg(secs(4000), seed);
    rc.trace = false;
    let s = scenario(
        rc,
        vec![link("a", "b", chan(10_000_000, SimDuration::ZERO, QueueLimit::Packets(10_000_000), LossCfg::None))],
        vec![],
        vec![TrafficCfg {
            active: vec![],
            random: false,
            idle_first: false,
            spread: false,
            count: 1,
            from: "a".into(),
            to: "b".into(),
            kind: TrafficKind::Poisson { rate_bps: 8_000_000, packet },
            transport: TransportCfg::Udp { send_buffer: 5 },
            start: StartCfg::Fixed(SimDuration::ZERO),
            stagger: SimDuration::ZERO,
            stop: None,
            label: None,
        }],
    );
    let out = run(&s, &mut no_progress()).unwrap();
    let links = &out.report.links;
    let Some(talkspurt_core::trace::Column::Str(names)) = links.get("link") else { panic!() };
    let i = names.iter().position(|n| n == "a->b").unwrap();
    eprintln!("mean wait {:.5} ms", links.f64("wait_mean_ms")[i]);
    links.f64("wait_mean_ms")[i]
}

#[test]
fn md1_mean_wait_within_3_percent_of_pollaczek_khinchine() {
    // S = 1000 B · 8 / 10 Mb/s = 0.8 ms; W = 0.8 · 0.8 / (2 · 0.2) = 1.6 ms.
    for seed in [1, 2] {
        let w = mean_wait_ms(SizeDist::Fixed { bytes: 1000 }, seed);
        assert!((w - 1.6).abs() / 1.6 < 0.03, "seed {seed}: M/D/1 wait {w} ms, expected 1.6");
    }
}

#[test]
fn mm1_mean_wait_within_3_percent() {
    // Mean S = 0.8 ms; W = 0.8 · 0.8 / 0.2 = 3.2 ms. Sizes are rounded to
    // whole bytes, which changes E[S²] by under 1e-6 relative.
    for seed in [1, 2] {
        let w = mean_wait_ms(SizeDist::Exponential { mean_bytes: 1000.0 }, seed);
        assert!((w - 3.2).abs() / 3.2 < 0.03, "seed {seed}: M/M/1 wait {w} ms, expected 3.2");
    }
}
