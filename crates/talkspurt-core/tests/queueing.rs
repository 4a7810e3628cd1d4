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

/// `links.queue_mean` is ∫ packets waiting dt over the run [0, end] / end,
/// with the waits that run past the end clipped (they were counted whole).
#[test]
fn queue_mean_counts_only_the_run() {
    // One G.711 call, 20 ms, continuous speech, 1 s, no drain: 200 B packets
    // (160 + 40) generated at 20k ms, k = 1, 2, …, into a 64 kb/s link,
    // where each takes 25 ms. Packet k starts at s_k = 25k − 5 ms and waits
    // 5(k − 1) ms. Packets 1–40 start by the end (s_40 = 995 ms) and wait
    // Σ 5(k − 1) = 5 · 39 · 40 / 2 = 3900 ms; packets 41–50 are still
    // waiting at 1000 ms, having waited 1000 − 20k within the run:
    // Σ = 10 · 1000 − 20 · (41 + … + 50) = 10000 − 9100 = 900 ms.
    // queue_mean = (3900 + 900) / 1000 = 4.8 packets. The old figure
    // counted the whole waits, Σ over k ≤ 50 of 5(k − 1) = 6125 ms: 6.125
    // (6.0 to 5.88 if the source's last packet is not at 1000 ms).
    let mut rc = run_cfg(secs(1), 1);
    rc.drain = SimDuration::ZERO;
    let s = scenario(
        rc,
        vec![link("a", "b", chan(64_000, SimDuration::ZERO, QueueLimit::Packets(1000), LossCfg::None))],
        vec![calls(1, "a", "b", "G.711", 20)],
        vec![],
    );
    let out = run(&s, &mut no_progress()).unwrap();
    assert_eq!(out.sim_end_s, 1.0);
    let links = &out.report.links;
    let Some(talkspurt_core::trace::Column::Str(names)) = links.get("link") else { panic!() };
    let i = names.iter().position(|n| n == "a->b").unwrap();
    let q = links.f64("queue_mean")[i];
    assert!((q - 4.8).abs() < 1e-9, "queue_mean {q}, expected 4.8");
    // Every packet's wait counts whole (per packet, not per unit of time):
    // packets 1–50 accepted, mean 5 · 49 / 2 = 122.5 ms, the last 245 ms;
    // the source's last packet is at 1000 ms (50 packets generated).
    assert_eq!(out.voice_packets, 50);
    assert!((links.f64("wait_mean_ms")[i] - 122.5).abs() < 1e-9, "{}", links.f64("wait_mean_ms")[i]);
    assert!((links.f64("wait_max_ms")[i] - 245.0).abs() < 1e-9);
    assert_eq!(links.i64("max_queue")[i], 10);
}
