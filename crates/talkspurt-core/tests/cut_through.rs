//! The world carries a packet across hops and into a passive receiver
//! without events where that cannot change the results (`sim/path.rs`).
//! A packet capture turns that off (it watches every hop), so the same
//! scenario run with and without a capture must give identical report
//! tables (`Report::digest`); the event counts show that the cut-through
//! was actually taken where it should be and not where it must not be.

use talkspurt_core::run::{run_with, RunOptions};
use talkspurt_core::scenario::from_toml_str;

/// (report digest, events processed) without and with a capture.
fn both(text: &str) -> ((u64, u64), (u64, u64)) {
    let mut s = from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
    s.run.trace = true;
    let go = |capture: Vec<String>| {
        let opts = RunOptions { capture, capture_key: "capture".into(), ..Default::default() };
        let out = run_with(&s, &opts, &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
        (out.report.digest(), out.events)
    };
    (go(vec![]), go(vec!["call:0".into()]))
}

fn dumbbell(calls: u32, secs: u32, edit: (&str, &str)) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/dumbbell.toml")).expect("bench/dumbbell.toml");
    assert!(edit.0.is_empty() || text.contains(edit.0), "no {}", edit.0);
    let text = if edit.0.is_empty() { text } else { text.replacen(edit.0, edit.1, 1) };
    text.replace("duration = \"60s\"", &format!("duration = \"{secs}s\"")).replace("count = 1000", &format!("count = {calls}"))
}

#[test]
fn dumbbell_voice_takes_one_event_per_packet() {
    // 50 UDP calls, no RTCP, 2 s: every hop after the first and the
    // delivery are cut through; the capture run needs an event per hop.
    let ((d0, e0), (d1, e1)) = both(&dumbbell(50, 2, ("", "")));
    assert_eq!(d0, d1, "results differ with and without cut-through");
    let packets = 50 * 100 - 49; // each call's 100th packet is completed after 2 s but one
    assert!(e0 <= packets as u64 + 50, "{e0} events for {packets} packets");
    assert!(e1 >= 4 * (packets as u64 - 50 * 2), "capture run: {e1} events");
}

#[test]
fn overloaded_bottleneck_drops_the_same_packets() {
    // 1500 calls on 100 Mb/s: the bottleneck (a closed channel) drops.
    let ((d0, e0), (d1, e1)) = both(&dumbbell(1500, 1, ("", "")));
    assert_eq!(d0, d1);
    assert!(e0 < e1 / 2, "{e0} vs {e1}");
}

#[test]
fn reordering_jitter_upstream_keeps_the_next_hop_on_events() {
    // Jitter with reordering on a→r1: r1→r2 sees arrivals out of the order
    // they were sent, so its offers need events; r2→b still cuts through.
    let edit = (r#"delay = "1ms""#, r#"delay = "1ms"
jitter = { kind = "uniform", max = "2ms", reorder = true }"#);
    let ((d0, e0), (d1, e1)) = both(&dumbbell(20, 2, edit));
    assert_eq!(d0, d1);
    let packets = 20 * 100 - 19;
    // Voice + arrival at r1 + arrival at r2 per packet; b is cut.
    assert!(e0 >= 2 * packets as u64 && e0 <= 2 * packets as u64 + 40, "{e0}");
    assert!(e1 > e0);
}

#[test]
fn red_with_loss_on_the_bottleneck() {
    let edit = (
        r#"queue = { kind = "droptail", limit = "50p" }"#,
        r#"queue = { kind = "red", limit = "50p" }
loss = { kind = "gilbert-elliott", mean_loss = 0.02, mean_burst = 3 }"#,
    );
    let ((d0, _), (d1, _)) = both(&dumbbell(1200, 1, edit));
    assert_eq!(d0, d1);
}

#[test]
fn mixed_with_tcp_nothing_is_closed() {
    // TCP shares every link: no channel is closed, only the UDP call's
    // deliveries are taken at once.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/voice_tcp_vs_udp.toml")).expect("scenario");
    assert!(text.contains("duration = \"120s\""));
    let ((d0, _), (d1, _)) = both(&text.replace("duration = \"120s\"", "duration = \"30s\""));
    assert_eq!(d0, d1);
}

#[test]
fn dccp_feedback_ties_keep_their_order() {
    // DCCP's feedback timers tie with arrivals at the same nanosecond: a
    // packet carried part of the way and then scheduled would reorder them
    // (`sim/path.rs`); here nothing may be cut.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/tfrc_voice.toml")).expect("scenario");
    assert!(text.contains("duration = \"60s\""));
    let ((d0, e0), (d1, e1)) = both(&text.replace("duration = \"60s\"", "duration = \"10s\""));
    assert_eq!(d0, d1);
    assert_eq!(e0, e1, "a DCCP call has no passive receiver");
}
