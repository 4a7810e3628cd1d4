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
fn mixed_with_tcp_cuts_the_same_results() {
    // TCP shares every link: the links after the first are closed all the
    // same; the TCP segments arrive at their endpoints with an event, the
    // UDP call's packets are recorded at once.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/voice_tcp_vs_udp.toml")).expect("scenario");
    assert!(text.contains("duration = \"120s\""));
    let ((d0, _), (d1, _)) = both(&text.replace("duration = \"120s\"", "duration = \"30s\""));
    assert_eq!(d0, d1);
}

/// (report, events) of `text` without and with a capture (which keeps an
/// event per hop).
fn reports(text: &str) -> ((talkspurt_core::run::report::Report, u64), (talkspurt_core::run::report::Report, u64)) {
    let mut s = from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
    s.run.trace = false;
    let go = |capture: Vec<String>| {
        let opts = RunOptions { capture, capture_key: "capture".into(), ..Default::default() };
        let out = run_with(&s, &opts, &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
        (out.report, out.events)
    };
    (go(vec![]), go(vec!["call:0".into()]))
}

/// Sum of a numeric column (counts or floats).
fn sum(t: &talkspurt_core::trace::table::Table, col: &str) -> f64 {
    use talkspurt_core::trace::table::Column;
    match t.get(col) {
        Some(Column::F64(v)) => v.iter().sum(),
        Some(Column::U32(v)) => v.iter().map(|&x| x as f64).sum(),
        Some(Column::I64(v)) => v.iter().map(|&x| x as f64).sum(),
        _ => panic!("no numeric column {col}"),
    }
}

#[test]
fn dccp_hops_are_cut_and_only_ties_move() {
    // DCCP's feedback timers tie with arrivals at the same nanosecond. Its
    // packets now cross the closed hops without events and arrive at the
    // endpoint with one, scheduled from the first hop: an earlier insertion
    // sequence than an event per hop gave it (`sim/path.rs`). Every
    // channel sees the same offers; only such ties fall otherwise, so the
    // run's aggregates must agree with the capture run's (an event per
    // hop) to within what a reordered tie can move. Measured on 60 s
    // (2026-11-28): arrivals identical, mean delay -0.01 %, mean allowed
    // rate -0.09 %; the tolerances below are 0.5 % (arrivals) and 1 %.
    // The whole 60 s: a 10 s cut is mostly slow start since media waits for
    // the connection (issue 23), and there one reordered tie moved the
    // allowed rate 1.04 % (measured at the merge).
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/tfrc_voice.toml")).expect("scenario");
    assert!(text.contains("duration = \"60s\""));
    let ((r0, e0), (r1, e1)) = reports(&text);
    // Data and feedback cross three links: one event where three were.
    assert!((e0 as f64) < 0.7 * e1 as f64, "{e0} events cut, {e1} with a capture");
    let (c0, c1) = (&r0.calls, &r1.calls);
    let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs().max(1e-9);
    assert_eq!(sum(c0, "generated"), sum(c1, "generated"));
    assert!(close(sum(c0, "arrived"), sum(c1, "arrived"), 0.005), "arrived {} vs {}", sum(c0, "arrived"), sum(c1, "arrived"));
    for col in ["delay_mean_ms", "allowed_rate_mean_bps"] {
        let (a, b) = (sum(c0, col), sum(c1, col));
        assert!(close(a, b, 0.01), "{col}: {a} vs {b}");
    }
}

#[test]
fn tcp_segments_and_acks_take_one_event() {
    // bench/tcp_mix.toml (100 UDP calls, 4 NewReno flows, one dumbbell):
    // every link after the first of each direction is closed, so a segment
    // or an ACK is one event (its arrival at the endpoint) instead of
    // three, and the voice calls take their planned routes again. No tie
    // falls otherwise on this scenario: the tables are bit-identical to
    // the capture run's (checked: `digest`).
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/tcp_mix.toml")).expect("scenario");
    assert!(text.contains("duration = \"60s\""));
    let text = text.replace("duration = \"60s\"", "duration = \"10s\"").replace("[\"10s\", \"60s\"]", "[\"2s\", \"10s\"]");
    let ((d0, e0), (d1, e1)) = both(&text);
    assert_eq!(d0, d1);
    assert!((e0 as f64) < 0.4 * e1 as f64, "{e0} events cut, {e1} with a capture");
}
