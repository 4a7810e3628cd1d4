//! Endpoints' packets on planned paths (`sim/flow_path.rs`) change nothing
//! a run computes: the same run with the plans dropped (every packet then
//! takes `forward`, `offer` and `onward` hop by hop) pops the same events,
//! ends on the same clock and leaves the same counters on every channel,
//! TCP sender and traffic source.

use talkspurt_core::scenario::{build, from_toml_str};
use talkspurt_core::time::SimTime;

/// Events popped, the clock, the latest cut-through arrival, and every
/// channel's, TCP sender's and traffic source's counters, as `Debug` text.
fn run(text: &str, planned: bool) -> (u64, SimTime, SimTime, String) {
    let mut s = from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
    s.run.trace = false;
    let mut w = build(&s).unwrap_or_else(|e| panic!("{e}"));
    // Both directions of every TCP flow are planned: the first channel of
    // each is lazy, the later ones closed.
    let tcp = w.flows.iter().filter(|f| f.sender.tcp().is_some()).count();
    assert!(tcp > 0 && w.cut.paths.planned() == 2 * tcp, "{} planned, {tcp} TCP flows", w.cut.paths.planned());
    if !planned {
        w.cut.paths = Default::default();
    }
    assert!(w.run(&mut |_| true));
    let chans: Vec<_> = w.topo.channels.iter().map(|c| &c.stats).collect();
    let tcp: Vec<_> = w.flows.iter().filter_map(|f| f.sender.tcp()).map(|t| &t.stats).collect();
    assert!(tcp.iter().all(|t| t.total.segments_sent > 100), "{tcp:?}");
    assert!(chans.iter().any(|c| c.queue_drops + c.link_losses > 0), "{chans:?}");
    let traffic: Vec<_> = w.traffic.iter().map(|t| &t.counters).collect();
    (w.q.events_processed(), w.q.now(), w.cut.late, format!("{chans:?} {tcp:?} {traffic:?}"))
}

/// tests/data/tcp/loss.toml (random loss on the bottleneck: not a plain
/// channel) and bench/tcp_mix.toml (UDP calls and four NewReno flows, tail
/// drops), cut short.
#[test]
fn planned_paths_change_no_result() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let loss = std::fs::read_to_string(format!("{dir}tests/data/tcp/loss.toml")).expect("scenario");
    assert!(loss.contains("duration = \"100s\""));
    let loss = loss.replace("duration = \"100s\"", "duration = \"20s\"").replace("[\"10s\", \"100s\"]", "[\"2s\", \"20s\"]");
    let mix = std::fs::read_to_string(format!("{dir}bench/tcp_mix.toml")).expect("scenario");
    assert!(mix.contains("duration = \"60s\""));
    let mix = mix.replace("duration = \"60s\"", "duration = \"5s\"").replace("[\"10s\", \"60s\"]", "[\"1s\", \"5s\"]");
    for text in [loss, mix] {
        assert_eq!(run(&text, true), run(&text, false));
    }
}
