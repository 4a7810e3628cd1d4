//! Fluid limit of a drop-tail bottleneck: N always-on CBR calls offering
//! more than the link carries lose, in steady state, exactly the excess:
//! loss = 1 − C / (N · r).

mod common;
use common::*;
use talkspurt_core::net::queue::QueueLimit;
use talkspurt_core::run::run;
use talkspurt_core::scenario::LossCfg;
use talkspurt_core::trace::Column;

/// Loss fraction over packets generated after `warmup_s`.
fn steady_loss(bottleneck_bps: u64) -> f64 {
    let s = scenario(
        run_cfg(secs(300), 1),
        vec![
            link("a", "r", chan(100_000_000, ms(1), QueueLimit::Packets(1000), LossCfg::None)),
            link("r", "b", chan(bottleneck_bps, ms(20), QueueLimit::Packets(50), LossCfg::None)),
        ],
        // G.711, 20 ms: 160 B payload + 40 B headers = 200 B every 20 ms = 80 kb/s.
        vec![calls(4, "a", "b", "G.711", 20)],
        vec![],
    );
    let out = run(&s, &mut no_progress()).unwrap();
    let p = out.report.packets.unwrap();
    let t_gen = p.f64("t_generated");
    let Some(Column::Cat { codes, cats }) = p.get("fate") else { panic!() };
    let qd = cats.iter().position(|c| c == "queue_drop").unwrap() as u32;
    let (mut n, mut lost) = (0u64, 0u64);
    for (t, c) in t_gen.iter().zip(codes) {
        if *t > 10.0 {
            n += 1;
            lost += (*c == qd) as u64;
        }
    }
    eprintln!("bottleneck {bottleneck_bps}: steady loss {:.5} over {n} packets", lost as f64 / n as f64);
    lost as f64 / n as f64
}

#[test]
fn four_g711_calls_into_300kbps_lose_6_25_percent() {
    // 320 kb/s offered, 300 kb/s served: 1 − 300/320 = 6.25 % (± 0.3 %).
    let loss = steady_loss(300_000);
    assert!((loss - 0.0625).abs() < 0.003, "loss {loss}");
}

#[test]
fn four_g711_calls_into_200kbps_lose_37_5_percent() {
    // 1 − 200/320 = 37.5 % (± 0.3 %).
    let loss = steady_loss(200_000);
    assert!((loss - 0.375).abs() < 0.003, "loss {loss}");
}
