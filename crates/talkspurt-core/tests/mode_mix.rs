//! A mode-switching call through the whole scorer, checked by hand
//! (docs/models/emodel.md, "Calls that switch modes"): 100 AMR-NB packets
//! of one 20 ms frame, the first 50 in 12.2 (31 octets) with 1 lost, the
//! last 50 in 4.75 (12 octets) with 5 lost; every other packet arrives
//! 20 ms after it was made and plays under a 150 ms fixed buffer.
//! Expected, with the call's BurstR B (as scored):
//!   Ie,eff(12.2) = 5 + 90·2/(2/B + 10), Ie,eff(4.75) = 21 + 74·10/(10/B + 10)
//!   (G.107 §7.5, G.113 figures Ie 5 / 21, Bpl 10 / 10; Ppl of each
//!   stretch's own packets), the call's Ie,eff their mean (equal speech
//!   time), and R = Ro − Is − Id + A − Ie,eff at the call's delay.

use talkspurt_core::playout::{FixedDelay, PlayoutKind};
use talkspurt_core::quality::{emodel_extended, EModelParams};
use talkspurt_core::score::{score_call, AnalysisCfg, CallInfo};
use talkspurt_core::time::{SimDuration, SimTime};
use talkspurt_core::trace::record::{CallRecord, NetFate};
use talkspurt_core::voice::codec::lookup;

const MS: u64 = 1_000_000;

fn record(sizes: impl Fn(usize) -> u32, lost: &[usize]) -> CallRecord {
    let mut r = CallRecord::new(false, 100);
    for i in 0..100 {
        let t = SimTime((i as u64 + 1) * 20 * MS);
        let seq = r.push(t, 0, 1, sizes(i), sizes(i) + 40);
        r.sent(seq, t);
        if lost.contains(&i) {
            r.set_fate(seq, NetFate::QueueDrop, 0);
        } else {
            r.arrived(seq, SimTime(t.0 + 20 * MS));
        }
    }
    r
}

fn info() -> CallInfo {
    let codec = *lookup("AMR-NB-12.2").unwrap();
    let ms20 = SimDuration::from_millis(20);
    CallInfo {
        group: "amr".into(),
        codec,
        ptime: ms20,
        frame: ms20,
        transport: "udp",
        playout: PlayoutKind::Fixed(FixedDelay { delay: 150 * MS }),
        advantage: 0.0,
        start_s: 0.0,
        stop_s: 2.0,
    }
}

/// R without Ie,eff at the call's delay, from the single-codec E-model.
fn r_without_ie(d_ms: f64, loss: f64, b: f64) -> f64 {
    let p = EModelParams { t: d_ms, ta: d_ms, tr: 2.0 * d_ms, ie: 5.0, bpl: 10.0, ppl: loss * 100.0, burst_r: b, ..EModelParams::default() };
    let res = emodel_extended(&p).unwrap();
    res.r + res.ie_eff
}

#[test]
fn switching_call_is_charged_each_mode() {
    let lost = [10, 55, 65, 75, 85, 95];
    let rec = record(|i| if i < 50 { 31 } else { 12 }, &lost);
    let s = score_call(&rec, &info(), &AnalysisCfg::default()).summary;
    let b = s.burst_r;
    let hi = 5.0 + 90.0 * 2.0 / (2.0 / b + 10.0);
    let lo = 21.0 + 74.0 * 10.0 / (10.0 / b + 10.0);
    let want = 0.5 * hi + 0.5 * lo;
    eprintln!("BurstR {b}, Ie,eff 12.2 {hi:.4}, 4.75 {lo:.4}, call {:.4} (want {want:.4}), R {:.4}", s.ie_eff, s.r);
    assert!((s.ie_eff - want).abs() < 1e-9, "{} vs {want}", s.ie_eff);
    assert!((s.loss_total - 0.06).abs() < 1e-12);
    let r = r_without_ie(s.mouth_to_ear_ms, s.loss_total, b) - want;
    assert!((s.r - r).abs() < 1e-9, "R {} vs {r}", s.r);
    // Isolated losses: BurstR 1 (G.107's random loss), so by hand
    // 5 + 90·2/12 = 20, 21 + 74·10/20 = 58, call 39 — where the old
    // reading (12.2's figures at the call's 6 %) gave 5 + 90·6/16 = 38.75.
    assert_eq!(b, 1.0);
    assert!((hi - 20.0).abs() < 1e-12 && (lo - 58.0).abs() < 1e-12 && (s.ie_eff - 39.0).abs() < 1e-9);
}

/// The same packets all in 12.2: G.107's single-codec value, unchanged.
#[test]
fn one_mode_call_is_plain_g107() {
    let lost = [10, 55, 65, 75, 85, 95];
    let rec = record(|_| 31, &lost);
    let s = score_call(&rec, &info(), &AnalysisCfg::default()).summary;
    let want = 5.0 + 90.0 * 6.0 / (6.0 / s.burst_r + 10.0);
    assert!((s.ie_eff - want).abs() < 1e-9, "{} vs {want}", s.ie_eff);
}
