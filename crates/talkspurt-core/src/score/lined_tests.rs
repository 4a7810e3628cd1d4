//! A call scored from its blocks stored uniform (`score_call`: the blocks'
//! descriptions taken as steady runs and fixed-delay playout decisions,
//! issue 26) gives the bits of the same call scored from its decoded
//! columns alone (`score_columns` without lines).

use super::calls::{score_call, score_call_keeping, score_columns};
use super::row::CallInfo;
use super::summary::calls_table;
use super::AnalysisCfg;
use crate::metrics::rtpi::MissingPredecessor;
use crate::playout::PlayoutKind;
use crate::time::{SimDuration, SimTime};
use crate::trace::record::{CallRecord, NetFate};
use crate::trace::Column;
use crate::playout::testutil::SplitMix64 as Rng;

/// A constant-rate call, mostly steady: a delay that holds for a while
/// and sometimes changes (some changes beyond the fixed buffer's 150 ms:
/// late packets), rare losses, sender drops, send waits, talkspurts and
/// frame counts, and occasional per-packet jitter; events in time order,
/// as a run records them.
fn record(seed: u64) -> CallRecord {
    let mut r = Rng::new(seed);
    let n = 64 + r.below(1500);
    let odd = 1 + r.below(400); // one odd packet in about `odd`
    let mut ev: Vec<(u64, u8, u32, Option<NetFate>)> = Vec::new();
    let (mut t, mut spurt, mut delay, mut wait) = (1_000_000_000u64, 0u32, 32_019_200u64, 0u64);
    let mut gens = Vec::new();
    for seq in 0..n as u32 {
        if r.below(odd * 20) == 0 {
            spurt += 1;
            t += 400_000_000;
        }
        if r.below(odd * 10) == 0 {
            delay = [32_019_200, 40_000_000, 90_000_000, 200_000_000][r.below(4) as usize];
        }
        if r.below(odd * 10) == 0 {
            wait = [0, 700_000][r.below(2) as usize];
        }
        t += 20_000_000;
        let frames = if r.below(odd * 4) == 0 { 1 } else { 2 };
        gens.push((t, spurt, frames));
        ev.push((t, 0, seq, None));
        match r.below(odd * 8) {
            0 => ev.push((t, 1, seq, Some(NetFate::SenderDrop))),
            1 => {
                ev.push((t + wait, 1, seq, None));
                ev.push((t + wait + delay / 2, 2, seq, Some(NetFate::LinkLoss)));
            }
            2 => ev.push((t + wait, 1, seq, None)), // in flight at the end
            x => {
                let jitter = if x == 3 { r.below(30_000_000) } else { 0 };
                ev.push((t + wait, 1, seq, None));
                ev.push((t + wait + delay + jitter, 2, seq, None));
            }
        }
    }
    ev.sort_by_key(|e| (e.0, e.1, e.2));
    let mut rec = CallRecord::new(false, 0);
    for (t, kind, seq, fate) in ev {
        match (kind, fate) {
            (0, _) => {
                let (_, spurt, frames) = gens[seq as usize];
                assert_eq!(rec.push(SimTime(t), spurt, frames, 80 * frames, 0), seq);
            }
            (_, Some(f)) => rec.set_fate(seq, f, 0),
            (1, None) => rec.sent(seq, SimTime(t)),
            _ => rec.arrived(seq, SimTime(t)),
        }
    }
    rec
}

fn info(playout: &str) -> CallInfo {
    CallInfo {
        group: "g".into(),
        codec: *crate::voice::codec::lookup("G.711").unwrap(),
        ptime: SimDuration::from_millis(20),
        frame: SimDuration::from_millis(10),
        transport: "udp",
        playout: PlayoutKind::from_name(playout).unwrap(),
        advantage: 0.0,
        start_s: 1.0,
        stop_s: 40.0,
    }
}

/// Every column of the row, the playout column and the bins: the same
/// bits (`==` on f64 bits, NaN as NaN) from the uniform blocks as from
/// the decoded columns; most calls have uniform blocks to take.
#[test]
fn uniform_blocks_score_as_decoded_columns() {
    let (mut calls, mut lined) = (0, 0);
    for seed in 1..160u64 {
        let rec = record(seed);
        let playout = ["fixed", "fixed-depth", "ramjee-1", "quantile"][seed as usize % 4];
        let info = info(playout);
        let missing = if seed % 5 == 0 { MissingPredecessor::PreviousArrival } else { MissingPredecessor::Delayed };
        let a = AnalysisCfg { bounds: seed % 7 != 0, rtpi_missing: missing, ..AnalysisCfg::default() };
        let mut lines = Vec::new();
        let cols = rec.columns_lined(false, &mut lines);
        assert_eq!(cols, rec.columns(false), "seed {seed}: the fast decoding's columns");
        (calls, lined) = (calls + 1, lined + !lines.is_empty() as usize);
        let (x, y) = (score_call_keeping(&rec, &info, &a, true), score_columns(rec.columns(false), &[], &info, &a, false));
        assert_eq!((&x.played, &x.bins), (&y.played, &y.bins), "seed {seed} {playout}");
        // The trace's playout offsets as computed from the record's own
        // generation times, packet by packet.
        let want = crate::score::packets::played_offsets(&rec, &y.played);
        assert!((0..rec.len()).all(|i| x.offsets.get(i) == want.get(i)) && x.offsets.len() == rec.len(), "seed {seed}");
        let (tx, ty) = (calls_table(std::slice::from_ref(&info), &[x]), calls_table(std::slice::from_ref(&info), &[y]));
        for ((name, e), (_, f)) in tx.columns.iter().zip(&ty.columns) {
            let same = match (e, f) {
                (Column::F64(e), Column::F64(f)) => e[0].to_bits() == f[0].to_bits() || (e[0].is_nan() && f[0].is_nan()),
                _ => e == f,
            };
            assert!(same, "seed {seed} {playout}: {name} from uniform blocks {e:?}, from columns {f:?}");
        }
    }
    assert!(lined * 2 >= calls, "{lined} of {calls} calls had uniform blocks");
}

/// A call that generated nothing (a connection that never opened) has no
/// offline bound, as it has no R: before 2026-11-29 its "play nothing"
/// point scored no loss, R_opt 92.5 for G.711.
#[test]
fn a_call_with_no_packets_has_no_bound() {
    let s = score_call(&CallRecord::new(false, 0), &info("fixed"), &AnalysisCfg::default()).summary;
    assert!(s.r.is_nan(), "no R: {}", s.r);
    for (name, v) in [("bound_r", s.bound_r), ("bound_g107_r", s.bound_g107_r), ("fixed_r", s.fixed_r), ("fixed_g107_r", s.fixed_g107_r)] {
        assert!(v.is_nan(), "{name} = {v}");
    }
}
