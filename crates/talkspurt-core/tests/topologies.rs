//! Ready topologies (`[topology]`) and two-way groups in whole runs: the
//! traffic goes where the documented node names say.

use talkspurt_core::run::run;
use talkspurt_core::scenario::from_toml_str;
use talkspurt_core::trace::Table;

fn link_col(l: &Table, name: &str, col: &str) -> i64 {
    let i = l.str("link").iter().position(|n| n == name).unwrap_or_else(|| panic!("no link {name}: {:?}", l.str("link")));
    l.i64(col)[i]
}

/// Seed 004's bottleneck (256 kb/s, 3 ms, access 1 ms, 16 kB buffer) as a
/// dumbbell with 2 pairs and a G.729 call each way on each pair: every
/// call is delivered, the forward and reverse calls cross the bottleneck
/// in opposite directions, and a call's mean one-way delay is its path's
/// propagation and serialization, plus at most one packet's wait.
#[test]
fn dumbbell_carries_calls_both_ways() {
    let src = r#"
[run]
duration = "20s"
seed = 4

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "256kbps", delay = "3ms", queue = { limit = "16384B" } }

[[calls]]
from = "a1"
to = "b1"
codec = "G.729"
speech = { model = "continuous" }
both_ways = true

[[calls]]
from = "a2"
to = "b2"
codec = "G.729"
speech = { model = "continuous" }
both_ways = true
"#;
    let s = from_toml_str(src).unwrap();
    let out = run(&s, &mut |_| true).unwrap();
    let c = &out.report.calls;
    let groups = c.str("group");
    assert_eq!(groups, ["calls[0]", "calls[0]:reverse", "calls[1]", "calls[1]:reverse"]);
    let (sent, lost, delay) = (c.i64("generated"), c.f64("loss_network"), c.f64("delay_mean_ms"));
    assert!(c.i64("sender_drop").iter().all(|&d| d == 0));
    // 60 B packets every 20 ms: 24 kb/s per call, 48 kb/s each way on
    // 256 kb/s. Path: 5 ms propagation, one 256 kb/s and two 100 Mb/s
    // serializations; at most one packet of the other call ahead.
    let bottleneck_ms = 60.0 * 8.0 / 256e3 * 1e3;
    let path_ms = 5.0 + bottleneck_ms + 2.0 * 60.0 * 8.0 / 100e6 * 1e3;
    for i in 0..4 {
        eprintln!("{}: sent {} loss {} delay {:.2} ms", groups[i], sent[i], lost[i], delay[i]);
        assert!(sent[i] >= 990, "{}: sent {}", groups[i], sent[i]);
        assert_eq!(lost[i], 0.0, "{}", groups[i]);
        assert!(delay[i] >= path_ms - 1e-6 && delay[i] <= path_ms + bottleneck_ms + 1e-6, "{}: {} ms vs {path_ms}", groups[i], delay[i]);
    }
    let l = &out.report.links;
    // Voice one way, nothing else (no RTCP): each direction of the
    // bottleneck carries the two calls going that way.
    let (fwd, rev) = (link_col(l, "r1->r2", "delivered"), link_col(l, "r2->r1", "delivered"));
    assert_eq!(fwd, sent[0] + sent[2]);
    assert_eq!(rev, sent[1] + sent[3]);
    assert_eq!(link_col(l, "a2->r1", "delivered"), sent[2]);
    assert_eq!(link_col(l, "b1->r2", "delivered"), sent[1]);
}

/// Seed 002 Fig. 1's reading: main calls cross both bottlenecks, cross
/// traffic only the second (entering at r2, leaving at r3). The first hop
/// carries the calls alone; the second carries calls and cross traffic,
/// so only there does the 900 kb/s CBR on a 1 Mb/s hop (with 4 × 80 kb/s
/// of G.711) overflow the queue; the calls' delay holds every
/// propagation delay on the path (1 + 10 + 20 + 1 ms).
#[test]
fn parking_lot_cross_traffic_meets_calls_at_the_second_hop() {
    let src = r#"
[run]
duration = "20s"
seed = 2

[topology]
kind = "parking-lot"
pairs = 2
cross_pairs = 1
bottlenecks = [{ rate = "2Mbps", delay = "10ms" }, { rate = "1Mbps", delay = "20ms" }]

[[calls]]
count = 2
from = "a1"
to = "b1"
codec = "G.711"
speech = { model = "continuous" }

[[calls]]
count = 2
from = "a2"
to = "b2"
codec = "G.711"
speech = { model = "continuous" }

[[traffic]]
from = "x2_1"
to = "y2_1"
kind = "cbr"
rate = "900kbps"
packet = "1000B"
"#;
    let s = from_toml_str(src).unwrap();
    let out = run(&s, &mut |_| true).unwrap();
    let c = &out.report.calls;
    let sent: i64 = c.i64("generated").iter().sum();
    assert!(c.i64("sender_drop").iter().all(|&d| d == 0));
    let l = &out.report.links;
    let cross = out.report.traffic.i64("sent_packets")[0];
    eprintln!(
        "calls sent {sent}, cross sent {cross}; r1->r2 {} r2->r3 {} drops r2->r3 {}",
        link_col(l, "r1->r2", "delivered"),
        link_col(l, "r2->r3", "offered"),
        link_col(l, "r2->r3", "queue_drops")
    );
    assert_eq!(link_col(l, "r1->r2", "offered"), sent);
    assert_eq!(link_col(l, "r1->r2", "queue_drops"), 0);
    assert_eq!(link_col(l, "r2->r3", "offered"), sent + cross);
    assert!(link_col(l, "r2->r3", "queue_drops") > 0);
    assert_eq!(link_col(l, "x1_1->r1", "offered"), 0);
    for (i, d) in c.f64("delay_mean_ms").iter().enumerate() {
        assert!(*d > 32.0, "call {i}: {d} ms");
    }
}
