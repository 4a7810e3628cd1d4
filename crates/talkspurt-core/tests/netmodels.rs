//! Link models in whole runs: seed 003's satellite profile against the
//! paper's figures, and a time-varying link's delivered bytes.

use talkspurt_core::run::run;
use talkspurt_core::scenario::from_toml_str;

/// Seed 003 (Sarwar, Boreli & Lochin), IPSTAR: one G.711 UDP call each
/// way over `satellite-ipstar` for one hour (the paper's runs are 10 min;
/// an hour gives ≈ 9 stalls, so the max is not left to chance).
///
/// Figures and tolerances:
/// - RTT ("average RTT of greater than 1 s", §4): the two directions' mean
///   one-way delays sum to 1.0–1.1 s.
/// - receiver jitter (Table 4, UDP: mean 30.6 ms, max 862 ms; Tables 4/6
///   over all protocols: max 798–963 ms): downlink mean within 10 % of
///   30.6 ms, max within 0.75–1.0 s.
/// - P_J (§7.2: 0.01 % of jitter samples above the 400 ms buffer): between
///   0.002 % and 0.05 % (a count of ~20 samples in an hour; Poisson noise).
#[test]
fn ipstar_profile_shows_the_papers_rtt_and_jitter() {
    let src = r#"
[run]
duration = "3600s"
seed = 3
trace = false

[analysis]
bounds = false

[[links]]
between = ["gw", "term"]
profile = "satellite-ipstar"

[[calls]]
from = "gw"
to = "term"
codec = "G.711"
speech = { model = "continuous" }
label = "down"

[[calls]]
from = "term"
to = "gw"
codec = "G.711"
speech = { model = "continuous" }
label = "up"
"#;
    let s = from_toml_str(src).unwrap();
    let out = run(&s, &mut |_| true).unwrap();
    let c = &out.report.calls;
    let delay = c.f64("delay_mean_ms");
    let (jmean, jmax) = (c.f64("jitter_receiver_mean_ms"), c.f64("jitter_receiver_max_ms"));
    let pj = c.f64("p_j_jitter");
    let rtt = delay[0] + delay[1];
    eprintln!("seed 3: rtt {rtt:.1} ms, jitter down {:.2}/{:.0} ms up {:.2}/{:.0} ms, P_J {:?}", jmean[0], jmax[0], jmean[1], jmax[1], pj);
    assert!((1000.0..=1100.0).contains(&rtt), "RTT {rtt} ms");
    assert!((jmean[0] - 30.6).abs() / 30.6 < 0.10, "mean jitter {} ms vs 30.6", jmean[0]);
    assert!((750.0..=1000.0).contains(&jmax[0]), "max jitter {} ms", jmax[0]);
    assert!((2e-5..=5e-4).contains(&pj[0]), "P_J {}", pj[0]);
}

/// A backlogged link on a rate schedule (RFC 8867 §5.1's capacity steps,
/// scaled: 1 Mb/s, 2.5 Mb/s at 4 s, 0.6 Mb/s at 6 s, 1 Mb/s at 8 s)
/// delivers exactly the bytes ∫ rate dt allows: 10 s carry 0.5 + 0.625 +
/// 0.15 + 0.25 = 1.525 MB; the receiver gets them to within one
/// 1000-byte packet (the one on the wire at the end).
#[test]
fn time_varying_link_delivers_its_schedule() {
    let src = r#"
[run]
duration = "10s"
drain = "0s"
trace = false

[analysis]
bounds = false

[[links]]
between = ["a", "b"]
rate = "1Mbps"
queue = { limit = "1000p" }
schedule = { steps = [{ at = "4s", rate = "2.5Mbps" }, { at = "6s", rate = "600kbps" }, { at = "8s", rate = "1Mbps" }] }

[[traffic]]
from = "a"
to = "b"
kind = "cbr"
rate = "3Mbps"
packet = "1000B"
"#;
    let s = from_toml_str(src).unwrap();
    let out = run(&s, &mut |_| true).unwrap();
    let bytes = out.report.traffic.i64("received_bytes")[0];
    let want = 1_525_000i64;
    let l = &out.report.links;
    eprintln!("delivered {bytes} B of {want} B allowed; offered {:?} drops {:?} delivered {:?} util {:?}", l.i64("offered"), l.i64("queue_drops"), l.i64("delivered"), l.f64("utilization"));
    assert!(bytes <= want && want - bytes <= 1000, "delivered {bytes} B, schedule allows {want} B");
}

/// An outage (a zero-rate step): 1 Mb/s, nothing from 3 s to 5 s, 1 Mb/s
/// again; a backlogged link (3 Mb/s offered into a 1000-packet queue)
/// delivers ∫ rate dt = 8 s × 125 000 B/s = 1 000 000 B in 10 s, to within
/// the one 1000-byte packet on the wire at the end, and the queue holds
/// the packets through the outage (no packet is lost to it: the drops are
/// the overload's, counted by the queue).
#[test]
fn outage_step_stops_the_link_and_it_resumes() {
    let src = r#"
[run]
duration = "10s"
drain = "0s"
trace = false

[analysis]
bounds = false

[[links]]
between = ["a", "b"]
rate = "1Mbps"
queue = { limit = "1000p" }
schedule = { steps = [{ at = "3s", rate = "0bps" }, { at = "5s", rate = "1Mbps" }] }

[[traffic]]
from = "a"
to = "b"
kind = "cbr"
rate = "3Mbps"
packet = "1000B"
"#;
    let s = from_toml_str(src).unwrap();
    let out = run(&s, &mut |_| true).unwrap();
    let bytes = out.report.traffic.i64("received_bytes")[0];
    let want = 1_000_000i64;
    let l = &out.report.links;
    eprintln!("delivered {bytes} B of {want} B allowed; drops {:?} losses {:?}", l.i64("queue_drops"), l.i64("link_losses"));
    assert!(bytes <= want && want - bytes <= 1000, "delivered {bytes} B, schedule allows {want} B");
    assert_eq!(l.i64("link_losses")[0], 0);
}
