//! Scenario builders shared by the scenario tests.
#![allow(dead_code)]

use talkspurt_core::rng::DurationDist;
use talkspurt_core::scenario::*;
use talkspurt_core::time::SimDuration;

pub fn ms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}

pub fn secs(x: u64) -> SimDuration {
    SimDuration::from_secs(x)
}

pub fn run_cfg(duration: SimDuration, seed: u64) -> RunCfg {
    RunCfg { duration, seed, run_index: 0, drain: secs(10), trace: true, series: true, name: None }
}

pub fn chan(rate_bps: u64, delay: SimDuration, limit: QueueLimit, loss: LossCfg) -> ChannelCfg {
    ChannelCfg { rate_bps, delay, queue: QueueCfg::DropTail { limit, series: false }, loss, jitter: Default::default(), schedule: None, background: BackgroundCfg::None }
}

pub fn link(a: &str, b: &str, c: ChannelCfg) -> LinkCfg {
    LinkCfg { a: a.into(), b: b.into(), forward: c.clone(), reverse: c, cost: 1 }
}

pub fn calls(count: u32, from: &str, to: &str, codec: &str, ptime_ms: u64) -> CallGroupCfg {
    CallGroupCfg {
        bitrate: None,
        count,
        from: from.into(),
        to: to.into(),
        spread: false,
        codec: codec.into(),
        ptime: Some(ms(ptime_ms)),
        overhead_bytes: 40,
        speech: SpeechCfg::Continuous,
        vad: true,
        transport: TransportCfg::Udp { send_buffer: 5 },
        playout: PlayoutCfg::Fixed(talkspurt_core::playout::FixedDelay { delay: ms(150).as_nanos() }),
        rtcp: None,
        feedback: None,
        adapt: Default::default(),
        trunk: None,
        advantage: 0.0,
        start: StartCfg::Fixed(SimDuration::ZERO),
        stagger: SimDuration::ZERO,
        length: None,
        label: None,
        media_start: Default::default(),
    }
}

pub fn exp_speech(talk_ms: u64, silence_ms: u64) -> SpeechCfg {
    SpeechCfg::OnOff {
        talk: DurationDist::Exponential { mean: ms(talk_ms) },
        silence: DurationDist::Exponential { mean: ms(silence_ms) },
    }
}

pub fn scenario(run: RunCfg, links: Vec<LinkCfg>, calls: Vec<CallGroupCfg>, traffic: Vec<TrafficCfg>) -> Scenario {
    Scenario { run, links, calls, traffic, analysis: AnalysisCfg::default() }
}

pub fn no_progress() -> impl FnMut(f64) -> bool {
    |_| true
}

/// A TCP transport with ns-2-compatible settings (no handshake, no
/// delayed ACKs, IW 1, 200 ms minimum RTO on a 10 ms clock).
pub fn tcp_ns2(cc: talkspurt_core::cc::CcAlgorithm) -> TransportCfg {
    use talkspurt_core::transport::tcp::{InitialWindow, TcpConfig};
    TransportCfg::Tcp(TcpConfig {
        cc,
        initial_window: InitialWindow::Segments(1),
        delayed_ack: false,
        min_rto: ms(200),
        granularity: ms(10),
        handshake: false,
        rcv_window: 10_000 * 1460,
        ..TcpConfig::default()
    })
}

/// `count` greedy bulk flows from `from` to `to` over `transport`.
pub fn bulk(count: u32, from: &str, to: &str, transport: TransportCfg) -> TrafficCfg {
    TrafficCfg {
        active: vec![],
        random: false,
        idle_first: false,
        spread: false,
        count,
        from: from.into(),
        to: to.into(),
        kind: TrafficKind::Bulk { on_off: None },
        transport,
        start: StartCfg::Fixed(SimDuration::ZERO),
        stagger: SimDuration::ZERO,
        stop: None,
        label: None,
    }
}

/// A scenario file of the repository (path relative to its root) as the
/// core reads it: a `[sweep]` section is the Python front end's, so only
/// the base scenario is kept.
pub fn shipped(file: &str) -> Scenario {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    shipped_text(file, &text)
}

/// `shipped` of a file's text (after any edits).
pub fn shipped_text(file: &str, text: &str) -> Scenario {
    let mut skip = false;
    let text: String = text
        .lines()
        .filter(|l| {
            if l.starts_with('[') {
                skip = l.starts_with("[sweep");
            }
            !skip
        })
        .map(|l| format!("{l}\n"))
        .collect();
    from_toml_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}
