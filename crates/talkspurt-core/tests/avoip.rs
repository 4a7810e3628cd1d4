//! Seed 004's AVoIP sources (Barberis et al. §2.2, Fig. 2) on the seed's
//! dumbbell (scenarios/seeds/004/avoip.toml: 10 sources, 256 kb/s, 16 kB
//! drop-tail). Checks, per the reading of the seed (§5, Tables 1–3):
//! - the sources share the bottleneck: their mean rates sit between the
//!   8 kb/s steps around the fair share (256 kb/s / 10 less headers);
//! - AVoIP loses less than fixed-rate sources at the step just above its
//!   average rate (the same 125 ms packets, min = max = that rate);
//! - the link's payload share matches the fluid limit.

use talkspurt_core::scenario::{from_toml_str, AdaptCfg, Scenario};

const AVOIP: &str = include_str!("../../../scenarios/seeds/004/avoip.toml");

fn fixed(rate: u64) -> Scenario {
    let mut s = from_toml_str(AVOIP).expect("seed 004 scenario");
    if let AdaptCfg::Avoip { min_rate, max_rate, start_rate, .. } = &mut s.calls[0].adapt {
        (*min_rate, *max_rate, *start_rate) = (rate, rate, Some(rate));
    }
    s
}

#[test]
fn avoip_shares_the_bottleneck_and_loses_less_than_cbr_above() {
    let s = from_toml_str(AVOIP).expect("seed 004 scenario");
    let out = talkspurt_core::run::run(&s, &mut |_| true).expect("run");
    let t = &out.report.calls;
    let rates = t.f64("bitrate_mean_bps");
    let n = rates.len() as f64;
    let mean = rates.iter().sum::<f64>() / n;
    let loss: f64 = t.f64("loss_network").iter().sum::<f64>() / n;
    let changes: Vec<i64> = t.i64("adapt_changes").to_vec();
    eprintln!("avoip: mean rates {rates:?} (mean {mean:.0} b/s), network loss {loss:.4}, changes {changes:?}");
    eprintln!("reaction_s {:?}", t.f64("reaction_s"));
    assert!(t.str("adapt").iter().all(|a| a == "avoip"));
    assert!(changes.iter().all(|&c| c > 10), "AVoIP keeps adapting: {changes:?}");
    // Fair share: 256 kb/s / 10 = 25.6 kb/s of IP, of which 40 B per 125 ms
    // (2.56 kb/s) are headers: 23.04 kb/s of payload, between the 16 and
    // 32 kb/s steps.
    assert!(mean > 16_000.0 && mean < 32_000.0, "mean rate {mean}");
    // Fluid limit: the payload the receivers got cannot exceed the link's
    // payload capacity, and AVoIP uses most of it (losses are a few %).
    let goodput: f64 = t.f64("goodput_bps").iter().sum();
    let cap = 256_000.0 * (1.0 - 40.0 / (40.0 + mean * 0.125 / 8.0));
    eprintln!("goodput {goodput:.0} b/s, payload capacity at the mean rate {cap:.0} b/s");
    assert!(goodput <= cap * 1.01, "goodput {goodput} above the fluid limit {cap}");
    assert!(goodput > 0.7 * cap, "AVoIP leaves the link idle: {goodput} of {cap}");
    // Fixed rate at the step above the mean.
    let above = ((mean / 8_000.0).floor() as u64 + 1) * 8_000;
    let cbr = talkspurt_core::run::run(&fixed(above), &mut |_| true).expect("run");
    let cbr_loss: f64 = cbr.report.calls.f64("loss_network").iter().sum::<f64>() / n;
    eprintln!("fixed {above} b/s: network loss {cbr_loss:.4}");
    assert!(cbr.report.calls.i64("adapt_changes").iter().all(|&c| c == 0));
    assert!(loss < cbr_loss, "AVoIP {loss} vs fixed {above} b/s {cbr_loss}");
}

/// Bad avoip keys name their path.
#[test]
fn bad_avoip_keys_name_the_key() {
    let cases = [
        ("adapt = { kind = \"avoip\" }", "adapt = { kind = \"avoip\" }\nptime = \"20ms\"", "calls[0].ptime"),
        ("adapt = { kind = \"avoip\" }", "adapt = { kind = \"avoip\", min_rate = \"32kbps\", max_rate = \"16kbps\" }", "calls[0].adapt.max_rate"),
        ("adapt = { kind = \"avoip\" }", "adapt = { kind = \"avoip\", start_rate = \"72kbps\" }", "calls[0].adapt.start_rate"),
        ("adapt = { kind = \"avoip\" }", "adapt = { kind = \"avoip\", max_loss = 130 }", "calls[0].adapt.max_loss"),
        ("adapt = { kind = \"avoip\" }", "adapt = { kind = \"avoip\", alpha = 1.5 }", "calls[0].adapt.alpha"),
        ("adapt = { kind = \"avoip\" }", "adapt = { kind = \"avoip\" }\nbitrate = { rate = \"16kbps\", interval = \"125ms\" }", "calls[0].bitrate"),
        ("rtcp = { interval = \"fixed\", min_interval = \"1s\" }", "", "calls[0].adapt"),
    ];
    for (from, to, path) in cases {
        let e = from_toml_str(&AVOIP.replace(from, to)).expect_err(path);
        assert_eq!(e.path, path, "{e}");
    }
}

/// QA 004: a ptime that is no multiple of the codec's frame got the frame
/// rule's message; the avoip rule (no ptime at all) comes first.
#[test]
fn avoip_ptime_is_refused_whatever_its_value() {
    for pt in ["20ms", "120ms", "125ms"] {
        let e = from_toml_str(&AVOIP.replace("adapt = { kind = \"avoip\" }", &format!("adapt = {{ kind = \"avoip\" }}\nptime = \"{pt}\""))).unwrap_err();
        assert_eq!(e.path, "calls[0].ptime", "{e}");
        assert!(e.allowed.starts_with("no ptime with adapt = { kind = \"avoip\" }"), "{pt}: {e}");
    }
}

/// QA 004: a start rate between the ladder's rungs (8–64 kb/s in 8 kb/s
/// steps, seed 004 §2.2) ran the source off the ladder (12.03, 20.03 kb/s).
#[test]
fn avoip_start_rate_is_a_rung_of_the_ladder() {
    let with = |t: &str| AVOIP.replace("adapt = { kind = \"avoip\" }", t);
    let e = from_toml_str(&with("adapt = { kind = \"avoip\", start_rate = \"12kbps\" }")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "calls[0].adapt.start_rate: got \"12kbps\"; expected a rate on the adaptation's ladder, min_rate + k·step: \
         8kbps, 16kbps, 24kbps, 32kbps, 40kbps, 48kbps, 56kbps, 64kbps"
    );
    from_toml_str(&with("adapt = { kind = \"avoip\", start_rate = \"24kbps\" }")).unwrap();
    from_toml_str(&with("adapt = { kind = \"avoip\", min_rate = \"12kbps\", start_rate = \"20kbps\" }")).unwrap();
    let e = from_toml_str(&with("adapt = { kind = \"avoip\", step = \"1kbps\", start_rate = \"12.5kbps\" }")).unwrap_err();
    assert!(e.allowed.ends_with("8kbps, 9kbps, …, 64kbps"), "{e}");
}
