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

/// One AVoIP call (G.711, 125 ms packets from 0 s) over 10 Mb/s, 50 ms
/// each way, receiver reports every 1 s (fixed interval); `loss` on the
/// forward (voice) direction, none on the reverse (reports).
fn one_call(series: bool, loss: &str, secs: u64) -> talkspurt_core::run::RunOutput {
    let src = format!(
        "[run]\nduration = \"{secs}s\"\nseed = 1\nseries = {series}\n\n\
         [[links]]\nbetween = [\"s\", \"d\"]\nrate = \"10Mbps\"\ndelay = \"50ms\"\nforward = {{ loss = {loss} }}\n\n\
         [[calls]]\nfrom = \"s\"\nto = \"d\"\ncodec = \"G.711\"\nspeech = {{ model = \"continuous\" }}\nstart = \"0s\"\n\
         rtcp = {{ interval = \"fixed\", min_interval = \"1s\" }}\nadapt = {{ kind = \"avoip\" }}\n\
         playout = {{ kind = \"fixed\", delay = \"1s\" }}\n"
    );
    talkspurt_core::run::run(&from_toml_str(&src).expect("scenario"), &mut |_| true).expect("run")
}

/// The sender's `name` rows of flow 0 as (t, value).
fn rows(out: &talkspurt_core::run::RunOutput, name: &str) -> Vec<(f64, f64)> {
    let s = &out.report.series;
    let (n, t, v) = (s.str("name"), s.f64("t"), s.f64("value"));
    (0..n.len()).filter(|&i| n[i] == name).map(|i| (t[i], v[i])).collect()
}

const REPORT_ROWS: [&str; 4] = ["report_loss", "report_slr", "report_delay_ms", "avg_delay_ms"];

/// The `report_*` rows (docs/results.md, series): one row of each per
/// receiver report the AVoIP source acted on, at its arrival, with Fig. 2's
/// smoothing (seed 004 §2.2) worked by hand as in `avoip.rs::fig2_script`.
///
/// Forward loss alternates packet by packet (a two-state Markov chain that
/// always switches). The forward direction also carries the sender's SRs,
/// so the voice packets' pattern shifts each second; the receiver reports
/// every 1 s (8 s run: RRs at 1, 2, …, 8 s, the last one due at the stop
/// still goes). The 1 s RR carries no report block (the source is not yet
/// valid, RFC 3550 A.1: no two sequential packets received), so the source
/// acts on 7 reports, arriving 50 ms (plus the RR's transmission, under
/// 0.1 ms) after 2, …, 8 s.
/// Their fractions lost (RFC 3550 §6.4.1, ⌊256·lost/expected⌋/256) as
/// measured alternate 109/256 (3 of 7) and 142/256 (5 of 9); peer_SLR from
/// 0 with α = 0.2 on the previous value:
///   1. 0.8·109/256                       = 0.340625
///   2. 0.2·0.340625  + 0.8·142/256       = 0.068125  + 0.44375  = 0.511875
///   3. 0.2·0.511875  + 0.8·109/256       = 0.102375  + 0.340625 = 0.443
///   4. 0.2·0.443     + 0.44375           = 0.0886    + 0.44375  = 0.53235
///   5. 0.2·0.53235   + 0.340625          = 0.10647   + 0.340625 = 0.447095
///   6. 0.2·0.447095  + 0.44375           = 0.089419  + 0.44375  = 0.533169
///   7. 0.2·0.533169  + 0.340625          = 0.1066338 + 0.340625 = 0.4472588
/// The one-way delay (the default signal) needs the receiver's first SR:
/// the first two reports carry none (NaN, the delay test skipped); the
/// third starts avg_delay, later ones join it as 0.2·avg + 0.8·sample.
#[test]
fn report_rows_follow_fig2_per_report() {
    let alternate = "{ kind = \"markov\", transition = [[0.0, 1.0], [1.0, 0.0]], loss = [0.0, 1.0] }";
    let out = one_call(true, alternate, 8);
    let loss = rows(&out, "report_loss");
    let t: Vec<f64> = loss.iter().map(|r| r.0).collect();
    assert_eq!(t.len(), 7, "{t:?}");
    for (k, &tk) in t.iter().enumerate() {
        let due = (k + 2) as f64 + 0.050;
        assert!((due..due + 1e-4).contains(&tk), "report {k} at {tk} s, due {due} s");
    }
    for name in REPORT_ROWS {
        let ts: Vec<f64> = rows(&out, name).iter().map(|r| r.0).collect();
        assert_eq!(ts, t, "{name}: one row per report, at its arrival");
    }
    let (a, b) = (109.0 / 256.0, 142.0 / 256.0);
    let want_loss = [a, b, a, b, a, b, a];
    let want_slr = [0.340625, 0.511875, 0.443, 0.53235, 0.447095, 0.533169, 0.4472588];
    let slr = rows(&out, "report_slr");
    for k in 0..7 {
        assert_eq!(loss[k].1, want_loss[k], "report {k}'s fraction lost");
        assert!((slr[k].1 - want_slr[k]).abs() < 1e-12, "report {k}: peer_SLR {} vs {}", slr[k].1, want_slr[k]);
    }
    let d: Vec<f64> = rows(&out, "report_delay_ms").iter().map(|r| r.1).collect();
    let avg: Vec<f64> = rows(&out, "avg_delay_ms").iter().map(|r| r.1).collect();
    assert!(d[..2].iter().chain(&avg[..2]).all(|x| x.is_nan()), "{d:?} {avg:?}");
    // 50 ms of propagation, a 165 B packet's 0.132 ms at 10 Mb/s, RTCP's
    // 1/65536 s units.
    assert!(d[2..].iter().all(|&x| (50.0..50.2).contains(&x)), "{d:?}");
    assert_eq!(avg[2], d[2]);
    for k in 3..7 {
        assert!((avg[k] - (0.2 * avg[k - 1] + 0.8 * d[k])).abs() < 1e-9, "avg_delay {k}: {avg:?} from {d:?}");
    }
    // No loss: every RR from 1 s on carries a block, 8 reports, all zero.
    let clean = one_call(true, "{ kind = \"none\" }", 8);
    let loss = rows(&clean, "report_loss");
    assert_eq!(loss.len(), 8, "{loss:?}");
    assert!((1.05..1.0501).contains(&loss[0].0), "{loss:?}");
    assert!(loss.iter().chain(&rows(&clean, "report_slr")).all(|r| r.1 == 0.0));
    // Series off: nothing kept.
    let off = one_call(false, alternate, 8);
    assert_eq!(off.report.series.str("name").len(), 0);
    assert!(REPORT_ROWS.iter().all(|n| rows(&off, n).is_empty()));
}
