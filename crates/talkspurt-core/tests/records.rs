//! Who writes the calls' records while the loop runs (`sim::records`):
//! the signal `Deferral::Auto` reads, on the two benchmarks it was tuned
//! between. On a steady path every full block is packed as it fills;
//! behind a busy queue most are kept to be packed later, which is what
//! makes handing recording to a second thread pay (bench/README.md,
//! Profiles, "Mixed, session 20").

mod common;

use std::path::Path;
use talkspurt_core::run::{run_with, RunOptions};
use talkspurt_core::scenario::build;
use talkspurt_core::sim::records::{dear, Deferral};
use talkspurt_core::time::SimDuration;

fn blocks_after(file: &str, cap_s: u64) -> (usize, u64) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut s = common::shipped_text(file, &text);
    s.run.duration = SimDuration::from_secs(cap_s);
    s.run.trace = false;
    let mut w = build(&s).unwrap_or_else(|e| panic!("{file}: {e}"));
    w.records.mode = Deferral::Never;
    assert!(w.run(&mut |_| true));
    assert!(!w.records_finish(), "{file}: never means never");
    w.calls.iter().fold((0, 0), |(f, k), c| {
        let (bf, bk) = c.rec.block_counts();
        (f + bf, k + bk as u64)
    })
}

#[test]
fn a_steady_path_keeps_recording_in_the_loop() {
    // The headline: 1000 calls on an idle 100 Mb/s path, every packet
    // arrives 32.02 ms after it is sent. In 8 s a call generates 400
    // packets: six full blocks of 64 stored, the seventh being filled.
    let (filled, kept) = blocks_after("bench/dumbbell.toml", 8);
    assert_eq!(filled, 1000 * 6);
    assert_eq!(kept, 0, "{kept} of {filled} blocks kept as rows");
    assert_eq!(dear(filled, kept), Some(false));
}

#[test]
fn a_busy_queue_hands_recording_off() {
    // The mixed preset: 500 calls behind 100 TCP flows' 50-packet queue;
    // queueing delays differ packet to packet.
    let (filled, kept) = blocks_after("bench/tcp_mix_big.toml", 8);
    assert_eq!(filled, 500 * 6);
    assert!(kept * 10 >= filled as u64 * 9, "{kept} of {filled} blocks kept as rows");
    assert_eq!(dear(filled, kept), Some(true));
}

#[test]
fn the_runs_report_who_recorded() {
    // Forced either way, a run says so (`RunOutput::records_deferred`);
    // its results are the same bits (tests/results_hash.rs).
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
    let s = common::shipped_text("scenarios/quickstart.toml", &std::fs::read_to_string(path).unwrap());
    for (defer, want) in [(Some(true), true), (Some(false), false)] {
        let out = run_with(&s, &RunOptions { defer_records: defer, ..Default::default() }, &mut |_| true).unwrap();
        assert_eq!(out.records_deferred, want);
    }
}
