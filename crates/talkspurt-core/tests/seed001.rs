//! Seed 001 (Avella & Kakani): 4 G.711 calls over a 30 ms WAN, 300 s, for
//! the 3 algorithms (none, patent, busse1996) × 2 RTCP modes (RFC 3550 at a
//! fixed 5 s; "Quick" = the same plus immediate NACKs within the 2.5 %
//! budget), at the ample (500 kb/s) and the middle (300 kb/s) rate of
//! Table 2. Checks the paper's qualitative results (§7, §8, Table 4):
//! - ample bandwidth: no loss, and busse1996 goes to the minimum ptime
//!   (10 ms) while patent stays at the optimal 20 ms (§7.3, §7.21);
//! - middle rate: busse1996 oscillates (ptime changes back and forth, §7.2);
//! - middle rate: adaptation loses less speech than none, and patent with
//!   immediate feedback loses the least of the six (Table 4, 6 s vs 25 s).

use talkspurt_core::scenario::{from_toml_str, AdaptCfg, Scenario};
use talkspurt_core::sim::World;

const G711: &str = include_str!("../../../scenarios/seeds/001/g711.toml");

const G729: &str = include_str!("../../../scenarios/seeds/001/g729.toml");

const MIXED: &str = include_str!("../../../scenarios/seeds/001/mixed.toml");

fn scenario(rate_bps: u64, adapt: &str, quick: bool) -> Scenario {
    scenario_of(G711, rate_bps, adapt, quick)
}

fn scenario_of(text: &str, rate_bps: u64, adapt: &str, quick: bool) -> Scenario {
    let mut s = from_toml_str(text).expect("seed 001 scenario");
    s.links[1].forward.rate_bps = rate_bps;
    s.links[1].reverse.rate_bps = rate_bps;
    // Every group alike (the mixed row has one group per codec).
    for c in &mut s.calls {
        c.adapt = match adapt {
            "none" => AdaptCfg::None,
            "patent" => AdaptCfg::Patent { thresholds: None, ptimes: None },
            _ => AdaptCfg::Busse1996 { alpha: 0.3, lambda_u: 2.0, lambda_c: 4.0, min_ptime: None, max_ptime: None },
        };
        if !quick {
            c.feedback = None;
        }
    }
    s
}

struct Out {
    /// Lost speech, seconds, summed over the calls (Table 4's measure).
    lost_s: f64,
    /// ptime changes per call and the direction reversals among them.
    changes: Vec<usize>,
    reversals: Vec<usize>,
    final_ptimes: Vec<u32>,
    nacks: u64,
}

fn run(s: &Scenario) -> Out {
    let mut w: World = talkspurt_core::scenario::build(s).expect("build");
    assert!(w.run(&mut |_| true));
    let mut lost_s = 0.0;
    let (mut changes, mut reversals, mut final_ptimes) = (vec![], vec![], vec![]);
    let mut nacks = 0;
    for c in &w.calls {
        let frame = c.codec.frame.as_secs_f64();
        let r = c.rec.columns(false);
        for i in 0..r.len() {
            if r.t_arr[i] == u64::MAX {
                lost_s += r.frames[i] as f64 * frame;
            }
        }
        let p: Vec<u32> = c.log.iter().map(|x| (x.ptime.as_nanos() / 1_000_000) as u32).collect();
        changes.push(p.len() - 1);
        let dirs: Vec<bool> = p.windows(2).map(|w| w[1] > w[0]).collect();
        reversals.push(dirs.windows(2).filter(|d| d[0] != d[1]).count());
        final_ptimes.push(*p.last().unwrap());
        nacks += c.rtp.rx.counters.early_packets;
    }
    Out { lost_s, changes, reversals, final_ptimes, nacks }
}

#[test]
fn ample_bandwidth_no_loss_and_minimum_ptime() {
    for quick in [false, true] {
        let b = run(&scenario(500_000, "busse1996", quick));
        assert_eq!(b.lost_s, 0.0, "busse1996 quick={quick}");
        assert!(b.final_ptimes.iter().all(|&p| p == 10), "busse1996 quick={quick}: {:?}", b.final_ptimes);
        let p = run(&scenario(500_000, "patent", quick));
        assert_eq!(p.lost_s, 0.0, "patent quick={quick}");
        assert!(p.changes.iter().all(|&n| n == 0), "patent quick={quick}: {:?}", p.changes);
        assert_eq!(p.nacks, 0);
    }
}

#[test]
fn middle_rate_oscillations_and_losses() {
    let mut lost = Vec::new();
    for adapt in ["none", "patent", "busse1996"] {
        for quick in [false, true] {
            let o = run(&scenario(300_000, adapt, quick));
            eprintln!("{adapt:9} quick={quick:5}: lost {:6.2} s, changes {:?}, reversals {:?}, NACK packets {}", o.lost_s, o.changes, o.reversals, o.nacks);
            if adapt == "busse1996" {
                assert!(o.reversals.iter().sum::<usize>() >= 4, "busse1996 quick={quick} should oscillate: {:?}", o.reversals);
            }
            if adapt == "none" {
                assert!(o.changes.iter().all(|&n| n == 0));
                assert!(o.lost_s > 0.0, "4 × 80 kb/s over 300 kb/s must lose");
            }
            lost.push(((adapt, quick), o.lost_s));
        }
    }
    let get = |a: &str, q: bool| lost.iter().find(|x| x.0 == (a, q)).unwrap().1;
    for q in [false, true] {
        assert!(get("patent", q) < get("none", q), "patent loses less than none (quick={q})");
        assert!(get("busse1996", q) < get("none", q), "busse1996 loses less than none (quick={q})");
    }
    let best = lost.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(best.0, ("patent", true), "patent + immediate feedback loses the least: {lost:?}");
}

/// Bad RTP keys name their path.
#[test]
fn bad_rtp_keys_name_the_key() {
    let cases = [
        ("adapt = { kind = \"patent\" }", "rtcp = { interval = \"fixed\", min_interval = \"5s\" }\n", "adapt = { kind = \"none\" }", "calls[0].feedback"),
        ("", "rtcp = { interval = \"fixed\", min_interval = \"5s\" }\nfeedback = { mode = \"immediate\", limit = \"budget\", budget = 0.025 }\n", "", "calls[0].adapt"),
        ("adapt = { kind = \"patent\" }", "", "adapt = { kind = \"busse1996\", lambda_u = 5, lambda_c = 4 }", "calls[0].adapt.lambda_c"),
        ("adapt = { kind = \"patent\" }", "", "adapt = { kind = \"busse1996\", max_ptime = \"25ms\" }", "calls[0].adapt.max_ptime"),
        ("adapt = { kind = \"patent\" }", "", "adapt = { kind = \"patent\", thresholds = [2, 4], ptimes = [\"20ms\", \"30ms\", \"90ms\"] }", "calls[0].adapt.ptimes[2]"),
        ("adapt = { kind = \"patent\" }", "", "adapt = { kind = \"patent\", thresholds = [4, 2], ptimes = [\"20ms\", \"30ms\", \"40ms\"] }", "calls[0].adapt.thresholds[1]"),
        ("min_interval = \"5s\" }", "", "min_interval = \"5s\", xr = \"loss-rle\" }", "calls[0].rtcp.xr"),
    ];
    for (from, drop, to, path) in cases {
        let text = G711.replace(drop, "").replace(from, to);
        let e = from_toml_str(&text).expect_err(path);
        assert_eq!(e.path, path, "{e}");
    }
}

/// QA 001: `fraction`, `reconsideration` and `reduced_min` shape RFC
/// 3550's randomised interval only; with `interval = "fixed"` they were
/// accepted and did nothing. Now each is an error there, and the scenario
/// as run leaves them out (it validates again); under "rfc3550" they stay.
#[test]
fn fixed_rtcp_refuses_the_randomised_schedules_keys() {
    let fixed = "rtcp = { interval = \"fixed\", min_interval = \"5s\" }";
    assert!(G711.contains(fixed));
    for (key, v) in [("fraction", "0.9"), ("reconsideration", "false"), ("reduced_min", "true")] {
        let text = G711.replace(fixed, &format!("rtcp = {{ interval = \"fixed\", min_interval = \"5s\", {key} = {v} }}"));
        let e = from_toml_str(&text).expect_err(key);
        assert_eq!(e.path, format!("calls[0].rtcp.{key}"), "{e}");
        assert_eq!(
            e.allowed,
            format!("no {key} key with interval = \"fixed\": it shapes RFC 3550's randomised interval (§6.2–6.3), and a fixed schedule sends a report every min_interval (5s); drop it, or set interval = \"rfc3550\"")
        );
        from_toml_str(&text.replace("interval = \"fixed\", ", "")).expect("under rfc3550 the key applies");
    }
    let s = from_toml_str(G711).unwrap();
    let j = talkspurt_core::scenario::to_json(&s);
    let r = &j["calls"][0]["rtcp"];
    assert!(r.get("fraction").is_none() && r.get("reconsideration").is_none() && r.get("reduced_min").is_none(), "{r}");
    assert_eq!(talkspurt_core::scenario::from_value(&j).unwrap(), s);
}

/// The adaptation and RTCP columns of the calls table (docs/results.md,
/// "Adaptation and RTCP") at the middle rate, patent with and without
/// immediate feedback:
/// - the receiver's regular RTCP is one RR compound (RR with one block +
///   SDES CNAME of 16 B, + 28 B of IP/UDP) every 5 s of the fixed schedule,
///   so its rate is that size × 8 / 5 s within one report over the call;
/// - changes per minute is the changes over the call's minutes;
/// - with immediate NACKs the first decrease follows the congestion onset
///   within a round trip or so (< 1 s), while regular reports every 5 s
///   react later on average (seed 001 §7.1: "RTCP reports are sent every
///   5 seconds … making it slower to react").
#[test]
fn adaptation_and_rtcp_columns() {
    use talkspurt_core::net::wire::{ReportBlock, Rtcp};
    let rr = Rtcp { ssrc: 1, sender: None, blocks: vec![ReportBlock::default()], cname_len: 16, nacks: vec![], xr: None, owd: None, early: false };
    let rr_bytes = (rr.wire_len() + 28) as f64;
    let mut mean_reaction = Vec::new();
    for quick in [false, true] {
        let s = scenario(300_000, "patent", quick);
        let out = talkspurt_core::run::run(&s, &mut |_| true).expect("run");
        let t = &out.report.calls;
        assert!(t.str("adapt").iter().all(|a| a == "patent"));
        let (start, stop) = (t.f64("start_s"), t.f64("stop_s"));
        let mut reactions = Vec::new();
        for c in 0..t.rows() {
            let dur = stop[c] - start[c];
            let want = (dur / 5.0).floor() * rr_bytes * 8.0 / dur;
            let got = t.f64("rtcp_receiver_bps")[c];
            assert!((got - want).abs() <= rr_bytes * 8.0 / dur + 1e-9, "call {c}: RR rate {got} vs {want}");
            let changes = t.i64("adapt_changes")[c] as f64;
            assert!((t.f64("adapt_changes_per_min")[c] - changes * 60.0 / dur).abs() < 1e-9);
            assert!(t.f64("ptime_mean_ms")[c] >= 20.0 && t.f64("ptime_mean_ms")[c] <= 30.0);
            assert_eq!(t.f64("bitrate_mean_bps")[c], 64_000.0);
            assert_eq!(t.i64("nack_events")[c] > 0, quick, "call {c}");
            assert_eq!(t.f64("feedback_bps")[c] > 0.0, quick, "call {c}");
            let r = t.f64("reaction_s")[c];
            if r.is_finite() {
                assert!(r >= 0.0);
                reactions.push(r);
            }
        }
        assert!(!reactions.is_empty(), "quick={quick}: some call must meet congestion and react");
        let m = reactions.iter().sum::<f64>() / reactions.len() as f64;
        eprintln!("patent quick={quick}: reactions {reactions:?}, mean {m:.3} s");
        mean_reaction.push(m);
    }
    assert!(mean_reaction[1] < 1.0, "immediate NACKs react within a second: {mean_reaction:?}");
    assert!(mean_reaction[0] > mean_reaction[1], "5 s reports react later: {mean_reaction:?}");
}

/// The G.729 row of Table 2 (scenarios/seeds/001/g729.toml): at the ample
/// rate (200 kb/s) nothing is lost, patent stays at the optimal 30 ms and
/// busse1996 goes to its 10 ms minimum; at the middle rate (70 kb/s, 4 ×
/// 18.7 kb/s offered) both algorithms lose less speech than none, with
/// either RTCP mode, and patent with immediate feedback loses the least
/// (Table 4's G.729 70 kb/s column: 25/6/7/2 s against 23/24 s for none;
/// talkspurt, seed 1: 59.7/9.9/26.3/5.9 s against 73.4 s).
#[test]
fn g729_ample_and_middle_rates() {
    for quick in [false, true] {
        let b = run(&scenario_of(G729, 200_000, "busse1996", quick));
        assert_eq!(b.lost_s, 0.0, "busse1996 quick={quick}");
        assert!(b.final_ptimes.iter().all(|&p| p == 10), "busse1996 quick={quick}: {:?}", b.final_ptimes);
        let p = run(&scenario_of(G729, 200_000, "patent", quick));
        assert_eq!(p.lost_s, 0.0, "patent quick={quick}");
        assert!(p.changes.iter().all(|&n| n == 0) && p.final_ptimes.iter().all(|&x| x == 30), "patent quick={quick}: {:?}", p.final_ptimes);
    }
    let mut lost = Vec::new();
    for adapt in ["none", "patent", "busse1996"] {
        for quick in [false, true] {
            let o = run(&scenario_of(G729, 70_000, adapt, quick));
            eprintln!("G.729 {adapt:9} quick={quick:5}: lost {:6.2} s, changes {:?}, final ptimes {:?}", o.lost_s, o.changes, o.final_ptimes);
            lost.push(((adapt, quick), o.lost_s));
        }
    }
    let get = |a: &str, q: bool| lost.iter().find(|x| x.0 == (a, q)).unwrap().1;
    assert!(get("none", false) > 0.0, "4 × 18.7 kb/s over 70 kb/s must lose");
    for q in [false, true] {
        assert!(get("patent", q) < get("none", q), "patent loses less than none (quick={q}): {lost:?}");
        assert!(get("busse1996", q) < get("none", q), "busse1996 loses less than none (quick={q}): {lost:?}");
    }
    let best = lost.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(best.0, ("patent", true), "patent + immediate feedback loses the least (Table 4: 2 s): {lost:?}");
}

/// The mixed row of Table 2 (scenarios/seeds/001/mixed.toml: 2 G.711 at
/// 20 ms + 2 G.729 at 30 ms): at the ample rate (300 kb/s) nothing is lost
/// and no algorithm leaves its starting ptime upwards; at the middle rate
/// (180 kb/s; 2 × 87.2 + 2 × 18.7 kb/s offered) both algorithms lose less
/// speech than none with either RTCP mode, and immediate feedback ("Quick")
/// loses less than RFC 3550's 5 s reports for each algorithm (Table 4's
/// "Both" 180 kb/s column: 1996+3550 21 s, 1996+Quick 8, Patent+3550 17,
/// Patent+Quick 5, none 59 / 86 s). talkspurt, seed 1: 48.2 / 14.2 / 38.0 /
/// 19.9 s, none 63.2 s. Not asserted, because it differs: the paper's
/// least-loss pair is Patent+Quick (5 s), ours busse1996+Quick (14.2 s
/// against 19.9 s); the G.711 and G.729 rows agree with the paper there
/// (docs/sweeps.md).
#[test]
fn mixed_ample_and_middle_rates() {
    for adapt in ["none", "patent", "busse1996"] {
        for quick in [false, true] {
            let o = run(&scenario_of(MIXED, 300_000, adapt, quick));
            assert_eq!(o.lost_s, 0.0, "mixed 300 kb/s {adapt} quick={quick}");
        }
    }
    let mut lost = Vec::new();
    for adapt in ["none", "patent", "busse1996"] {
        for quick in [false, true] {
            let o = run(&scenario_of(MIXED, 180_000, adapt, quick));
            eprintln!("mixed {adapt:9} quick={quick:5}: lost {:6.2} s, changes {:?}, final ptimes {:?}", o.lost_s, o.changes, o.final_ptimes);
            lost.push(((adapt, quick), o.lost_s));
        }
    }
    let get = |a: &str, q: bool| lost.iter().find(|x| x.0 == (a, q)).unwrap().1;
    assert!(get("none", false) > 0.0, "2 × 87.2 + 2 × 18.7 kb/s over 180 kb/s must lose");
    for q in [false, true] {
        assert!(get("patent", q) < get("none", q), "patent loses less than none (quick={q}): {lost:?}");
        assert!(get("busse1996", q) < get("none", q), "busse1996 loses less than none (quick={q}): {lost:?}");
    }
    for a in ["patent", "busse1996"] {
        assert!(get(a, true) < get(a, false), "{a}: Quick loses less than 3550 (Table 4): {lost:?}");
    }
}
