//! talkspurt's CCID 2 side by side with ns-2.35's Agent/DCCP/TCPlike (peer
//! script bench/ns2/dccp_tcplike_loss.tcl, twin tests/data/tfrc/ccid2_loss.toml):
//! one greedy flow, 1000-byte packets, 10 Mb/s 50 ms bottleneck with
//! Bernoulli loss after the wire, data packets sent per second over
//! [50, 200] s, seeds 1–3 averaged on both sides (talkspurt's from its
//! goodput: delivered / (1 − p)). The tolerance for long-run rates
//! is 10 %.
//!
//! Measured when written (talkspurt / ns-2 packets/s): p = 0.003
//! 228.9 / 225.6 (+1.5 %), p = 0.01 125.5 / 124.5 (+0.8 %), p = 0.03
//! 71.3 / 68.5 (+4.1 %), all asserted.
//!
//! p = 0.03 was +20.6 % (+9.7 % at 0.01, +6.9 % at 0.003) until talkspurt
//! sent while `pipe < cwnd` on its fractional window, i.e. ⌈cwnd⌉ packets
//! in flight; RFC 4341 §5 counts the window in whole packets, and ns-2
//! (`cwnd_` an integer, `send_askPermToSend`: `pipe_ < cwnd_`,
//! dccp/dccp_tcplike.cc l. 604) and Linux's ccid2 keep an integer window
//! too. One packet more matters most where windows are small (about 8
//! packets at p = 0.03). Measured before the fix, by reading the pcap of
//! the twin: 45 % of sends left with as many packets unacknowledged as
//! the window's integer part. An earlier guess blamed ns-2's `pipe_`
//! accounting; sampled every 1 ms over [50, 200] s (seed 1) its mean is
//! 7.79 against a mean `cwnd_` of 7.71, as RFC 4341's pipe should be
//! (incremented per data packet sent, l. 667; decremented when the Ack
//! Vector first shows a packet received or it is lost with
//! `num_dup_acks_` received above it, l. 821–913; reset only on a
//! timeout, l. 1195). What remains is ns-2's integer halving (5 → 2,
//! `lostOrMarkedData`, l. 403–410) and its per-window credit
//! `cwnd_frac_` cleared at each halving. Before the window grew per
//! packet (Reno's per-ACK rule at Ack Ratio 2) talkspurt was −26 % and
//! −22 % at p = 0.003 and 0.01.
//!
//! The test needs `ns` on PATH (bench/setup.sh); without it, it says so
//! and passes only outside CI (CI sets `CI`).

use std::process::Command;
use talkspurt_core::run::run;
use talkspurt_core::scenario::from_toml_str;

fn ns2(p: f64, seed: u64) -> Option<f64> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/ns2/dccp_tcplike_loss.tcl");
    let out = Command::new("ns").args([script, &p.to_string(), "200", &seed.to_string(), "50"]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rev().find(|l| l.trim_start().starts_with('{'))?;
    let j: serde_json::Value = serde_json::from_str(line).ok()?;
    j["sent_pps"].as_f64()
}

fn talkspurt(p: f64, seed: u64) -> f64 {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/tfrc/ccid2_loss.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.replacen("p = 0.01", &format!("p = {p}"), 1).replacen("seed = 1", &format!("seed = {seed}"), 1);
    let out = run(&from_toml_str(&text).unwrap(), &mut |_| true).unwrap();
    out.report.traffic.f64("goodput_bps")[0] / 8.0 / 1000.0 / (1.0 - p)
}

#[test]
fn ccid2_rate_under_loss_matches_ns2_tcplike() {
    if ns2(0.01, 1).is_none() {
        assert!(std::env::var_os("CI").is_none(), "ns-2 (`ns`) missing in CI");
        eprintln!("ns-2 (`ns`) not installed: skipped (bench/setup.sh installs it)");
        return;
    }
    for p in [0.003, 0.01, 0.03] {
        let (mut ours, mut theirs) = (0.0, 0.0);
        for seed in 1..=3 {
            let (a, b) = (talkspurt(p, seed), ns2(p, seed).unwrap());
            eprintln!("p={p} seed {seed}: talkspurt {a:.1} packets/s, ns-2 {b:.1}");
            ours += a / 3.0;
            theirs += b / 3.0;
        }
        let r = ours / theirs - 1.0;
        eprintln!("p={p}: talkspurt {ours:.1}, ns-2 {theirs:.1} packets/s ({:+.1}%)", r * 100.0);
        assert!(r.abs() <= 0.10, "p={p}: {ours} vs ns-2 {theirs} packets/s, seeds 1-3");
    }
}
