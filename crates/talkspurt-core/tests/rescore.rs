//! Rescoring from the packets table equals simulating again: the network
//! does not depend on the playout buffer, so a run under buffer B must
//! score exactly like a run under buffer A rescored with B.

mod common;
use common::*;
use talkspurt_core::net::queue::QueueLimit;
use talkspurt_core::playout::PlayoutKind;
use talkspurt_core::rescore::{rescore, CallColumns, PacketColumns};
use talkspurt_core::run::run;
use talkspurt_core::scenario::LossAt;
use talkspurt_core::scenario::{LossCfg, Scenario, StartCfg};
use talkspurt_core::time::SimDuration;
use talkspurt_core::trace::{Column, Table};

fn lossy(seed: u64, playout: &str) -> Scenario {
    let mut g = calls(5, "a", "b", "G.729", 20);
    g.speech = exp_speech(800, 1200);
    g.start = StartCfg::Uniform { from: SimDuration::ZERO, to: secs(1) };
    g.playout = PlayoutKind::from_name(playout).unwrap();
    let mut h = calls(2, "a", "b", "G.711", 30);
    h.label = Some("wide".into());
    h.advantage = 5.0;
    let l = link("a", "b", chan(400_000, ms(30), QueueLimit::Packets(10), LossCfg::Bernoulli { p: 0.02, at: LossAt::Wire }));
    let mut s = scenario(run_cfg(secs(30), seed), vec![l], vec![g, h], vec![]);
    s.calls[1].playout = s.calls[0].playout.clone();
    s
}

fn strs(t: &Table, c: &str) -> Vec<String> {
    match t.get(c) {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no str column {c}"),
    }
}
fn u32s(t: &Table, c: &str) -> Vec<u32> {
    match t.get(c) {
        Some(Column::U32(v)) => v.clone(),
        Some(Column::Cat { codes, .. }) => codes.clone(),
        _ => panic!("no u32 column {c}"),
    }
}

/// Column-by-column equality, NaN equal to NaN (bit patterns of floats).
fn same(a: &Table, b: &Table, what: &str) {
    assert_eq!(a.rows(), b.rows(), "{what}: rows");
    for (name, col) in &b.columns {
        if talkspurt_core::run::report::TRANSPORT_CALL_COLUMNS.contains(name) {
            continue; // not scored: the front end carries them over (rescore.py)
        }
        let other = a.get(name).unwrap_or_else(|| panic!("{what}: no column {name}"));
        match (col, other) {
            (Column::F64(x), Column::F64(y)) => {
                for (k, (p, q)) in x.iter().zip(y).enumerate() {
                    assert!(p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()), "{what}.{name}[{k}]: {p} vs {q}");
                }
            }
            _ => assert_eq!(col, other, "{what}.{name}"),
        }
    }
}

/// The columns `rescore` reads, owned, taken from a run's report.
struct Owned {
    group: Vec<String>,
    codec: Vec<String>,
    ptime_ms: Vec<f64>,
    start_s: Vec<f64>,
    stop_s: Vec<f64>,
    call: Vec<u32>,
    talkspurt: Vec<u32>,
    frames: Vec<u32>,
    payload: Vec<u32>,
    fate: Vec<u32>,
    t_generated: Vec<f64>,
    t_sent: Vec<f64>,
    t_arrived: Vec<f64>,
}

impl Owned {
    fn of(r: &talkspurt_core::run::Report) -> Owned {
        let (c, p) = (&r.calls, &r.packets.as_ref().unwrap().table());
        Owned {
            group: strs(c, "group"),
            codec: strs(c, "codec"),
            ptime_ms: c.f64("ptime_ms").to_vec(),
            start_s: c.f64("start_s").to_vec(),
            stop_s: c.f64("stop_s").to_vec(),
            call: u32s(p, "call"),
            talkspurt: u32s(p, "talkspurt"),
            frames: u32s(p, "frames"),
            payload: u32s(p, "payload_bytes"),
            fate: u32s(p, "fate"),
            t_generated: p.f64("t_generated").to_vec(),
            t_sent: p.f64("t_sent").to_vec(),
            t_arrived: p.f64("t_arrived").to_vec(),
        }
    }
    fn calls(&self) -> CallColumns<'_> {
        CallColumns { group: &self.group, codec: &self.codec, ptime_ms: &self.ptime_ms, start_s: &self.start_s, stop_s: &self.stop_s }
    }
    fn packets(&self) -> PacketColumns<'_> {
        PacketColumns {
            call: &self.call,
            talkspurt: &self.talkspurt,
            frames: &self.frames,
            payload_bytes: &self.payload,
            t_generated: &self.t_generated,
            t_sent: &self.t_sent,
            t_arrived: &self.t_arrived,
            fate: &self.fate,
        }
    }
}

#[test]
fn rescoring_equals_simulating_under_the_other_buffer() {
    for seed in [11, 12] {
        let base = Owned::of(&run(&lossy(seed, "fixed"), &mut no_progress()).unwrap().report);
        for name in PlayoutKind::NAMES {
            let s = lossy(seed, name);
            let direct = run(&s, &mut no_progress()).unwrap().report;
            let again = rescore(&s, &base.calls(), &base.packets(), true).unwrap();
            let what = format!("seed {seed} {name}");
            same(&again.calls, &direct.calls, &format!("{what} calls"));
            same(&again.groups, &direct.groups, &format!("{what} groups"));
            same(&again.bursts, &direct.bursts, &format!("{what} bursts"));
            same(again.talkspurts.as_ref().unwrap(), direct.talkspurts.as_ref().unwrap(), &what);
            let (pa, pd) = (&again.packets.as_ref().unwrap().table(), &direct.packets.as_ref().unwrap().table());
            for col in ["t_played", "id", "window_loss", "window_ie"] {
                let (x, y) = (pa.f64(col), pd.f64(col));
                assert!(x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())), "{what} packets.{col}");
            }
            assert_eq!(u32s(pa, "fate"), u32s(pd, "fate"), "{what} packets.fate");
        }
    }
}

#[test]
fn rescore_rejects_inconsistent_tables() {
    let s = lossy(13, "fixed");
    let mut o = Owned::of(&run(&s, &mut no_progress()).unwrap().report);
    let err = |o: &Owned| rescore(&s, &o.calls(), &o.packets(), false).err().unwrap_or_default();
    assert_eq!(err(&o), "");
    o.fate[3] = 17;
    assert!(err(&o).contains("packets.fate[3]"));
    o.fate[3] = 4; // link_loss for a packet that arrived
    assert!(err(&o).contains("packets.t_arrived[3]"));
    o.fate[3] = 0;
    let last = o.call.len() - 1;
    let keep = o.call[last];
    o.call[last] = 0;
    assert!(err(&o).contains("ordered by call"));
    o.call[last] = keep;
    o.group[0] = "nope".into();
    assert!(err(&o).contains("calls.group[0]"));
}
