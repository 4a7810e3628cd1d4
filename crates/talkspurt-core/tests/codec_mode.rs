//! `codec-mode` on a bottleneck too narrow for AMR-NB 12.2
//! (scenarios/adapt/codec-mode.toml): four calls at 28.4 kb/s of IP each
//! into 100 kb/s. The adaptation must step the modes down on reported loss
//! (busse1996's rule on the mode ladder), the packets' payload must follow
//! the mode (whole AMR frames of the mode's octets), and the calls must
//! lose less than the same calls held at 12.2.

use talkspurt_core::scenario::{build, from_toml_str, AdaptCfg};
use talkspurt_core::voice::codec::{lookup, modes};

const SCN: &str = include_str!("../../../scenarios/adapt/codec-mode.toml");

#[test]
fn modes_follow_loss_and_payload_follows_mode() {
    let s = from_toml_str(SCN).expect("scenario");
    let mut w = build(&s).expect("build");
    assert!(w.run(&mut |_| true));
    let ladder = modes(lookup("AMR-NB-12.2").unwrap());
    let bytes: Vec<u32> = ladder.iter().map(|m| m.frame_bytes).collect();
    for (i, c) in w.calls.iter().enumerate() {
        let rates: Vec<f64> = c.log.iter().map(|p| p.bitrate_bps).collect();
        eprintln!("call {i}: {} changes, rates {:?}", c.log.len() - 1, &rates[..rates.len().min(12)]);
        // Starts at 12.2 (31 octets per frame → 12.4 kb/s) and the first
        // change is one mode down (10.2: 26 octets → 10.4 kb/s).
        assert_eq!(rates[0], 12_400.0);
        assert_eq!(rates.get(1), Some(&10_400.0), "call {i}: first change one mode down");
        // Every rate is a mode of the ladder, and changes move one mode.
        for w2 in rates.windows(2) {
            let k = |r: f64| ladder.iter().position(|m| m.bitrate_bps() == r).expect("a mode's rate");
            assert_eq!(k(w2[0]).abs_diff(k(w2[1])), 1, "one mode per change: {w2:?}");
        }
        // Payload per packet is a whole number of one mode's frames.
        let r = c.rec.columns(false);
        for (&p, &f) in r.payload.iter().zip(&r.frames) {
            assert!(p % f as u32 == 0 && bytes.contains(&(p / f as u32)), "call {i}: payload {p} for {f} frames");
        }
    }
}

#[test]
fn codec_mode_loses_less_than_fixed_12k2() {
    let s = from_toml_str(SCN).expect("scenario");
    let out = talkspurt_core::run::run(&s, &mut |_| true).expect("run");
    let t = &out.report.calls;
    let n = t.f64("loss_network").len() as f64;
    let loss = t.f64("loss_network").iter().sum::<f64>() / n;
    let rate = t.f64("bitrate_mean_bps").iter().sum::<f64>() / n;
    let mut fixed = s.clone();
    fixed.calls[0].adapt = AdaptCfg::None;
    let f = talkspurt_core::run::run(&fixed, &mut |_| true).expect("run");
    let floss = f.report.calls.f64("loss_network").iter().sum::<f64>() / n;
    eprintln!("codec-mode: mean rate {rate:.0} b/s, loss {loss:.4}; fixed 12.2: loss {floss:.4}");
    eprintln!("loss {:?} vs fixed {:?}", t.f64("loss_network"), f.report.calls.f64("loss_network"));
    eprintln!("codec {:?} mos {:?} vs fixed mos {:?}", t.str("codec"), t.f64("mos"), f.report.calls.f64("mos"));
    assert!(t.str("adapt").iter().all(|a| a == "codec-mode"));
    // Fixed 12.2: 113.6 kb/s offered into 100 kb/s loses at least the
    // fluid limit 1 − 100/113.6 = 12.0 % (RED's early drops add a little:
    // 13.8 % at seed 1).
    assert!(floss > 1.0 - 100.0 / 113.6 - 0.005, "fixed loss {floss}");
    assert!(loss < floss / 2.0, "codec-mode {loss} vs fixed {floss}");
    // The mean mode sits where four calls fit: below 10.2's 10.4 kb/s
    // payload (105.6 kb/s of IP for four), above the lowest mode.
    assert!(rate < 10_400.0 && rate > 4_800.0, "mean rate {rate}");
}

/// Bad codec-mode keys name their path.
#[test]
fn bad_codec_mode_keys_name_the_key() {
    let a = "adapt = { kind = \"codec-mode\" }";
    let cases = [
        (a, "adapt = { kind = \"codec-mode\", modes = [\"AMR-NB-12.2\", \"G.729\"] }", "calls[0].adapt.modes[1]"),
        (a, "adapt = { kind = \"codec-mode\", modes = [\"AMR-NB-4.75\", \"AMR-NB-5.9\"] }", "calls[0].adapt.modes"),
        (a, "adapt = { kind = \"codec-mode\", lambda_u = 5 }", "calls[0].adapt.lambda_u"),
        ("codec = \"AMR-NB-12.2\"", "codec = \"G.711\"", "calls[0].codec"),
        (a, "adapt = { kind = \"codec-mode\" }\nbitrate = { rate = \"16kbps\", packet = \"100B\" }", "calls[0].bitrate"),
        ("rtcp = { interval = \"fixed\", min_interval = \"1s\" }", "", "calls[0].adapt"),
    ];
    for (from, to, path) in cases {
        let e = from_toml_str(&SCN.replace(from, to)).expect_err(path);
        assert_eq!(e.path, path, "{e}");
    }
}
