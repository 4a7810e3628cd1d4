//! Tables built from scored calls: calls, groups (per group and the whole
//! run), bursts (back-to-back run histograms), talkspurts (the bound's
//! per-talkspurt playout points); the packets table is `packets.rs`.

use super::calls::Scored;
use super::row::{CallInfo, CallSummary};
use crate::metrics::{jain_index, RunStats};
use crate::playout::{OptimalPlayout, NOT_ARRIVED};
use crate::quality::{mos_from_r, quality_band_index, QUALITY_BANDS, USER_SATISFACTION};
use crate::trace::{Column, Table};

/// Columns of `CallSummary` fields, filled a block of rows at a time: a
/// block of summaries stays in cache while every column reads it, where a
/// column at a time read each summary's line once per column (100 000
/// calls' summaries are ~100 MB, issue 14).
macro_rules! summary_columns {
    ($t:ident, $rows:ident; $($name:ident: $kind:ident),* $(,)?) => {{
        $( let mut $name: Vec<elem!($kind)> = Vec::with_capacity($rows.len()); )*
        for block in $rows.chunks(ROW_BLOCK) {
            $( $name.extend(block.iter().map(|s| s.$name as elem!($kind))); )*
        }
        $( $t.push(stringify!($name), Column::$kind($name)); )*
    }};
}

/// A column kind's element type.
macro_rules! elem {
    (I64) => { i64 };
    (F64) => { f64 };
}

/// Rows per block of `summary_columns!`: 256 summaries (~170 KB) fit the L2.
const ROW_BLOCK: usize = 256;

/// An R column's band as a categorical; NaN R has no band (code `u32::MAX`,
/// a missing value in pandas).
fn band(sums: &[&CallSummary], r: fn(&CallSummary) -> f64, cats: &[&str]) -> Column {
    let codes = sums.iter().map(|s| if r(s).is_nan() { u32::MAX } else { quality_band_index(r(s)) as u32 }).collect();
    Column::Cat { codes, cats: cats.iter().map(|c| c.to_string()).collect() }
}

pub fn calls_table(infos: &[CallInfo], scored: &[Scored]) -> Table {
    let sums: Vec<&CallSummary> = scored.iter().map(|s| &s.summary).collect();
    let mut t = Table::default();
    t.push("call", Column::U32((0..sums.len() as u32).collect()));
    t.push("group", Column::Str(infos.iter().map(|i| i.group.clone()).collect()));
    t.push("codec", Column::Str(infos.iter().map(|i| i.codec.name.to_string()).collect()));
    t.push("ptime_ms", Column::F64(infos.iter().map(|i| i.ptime.as_millis_f64()).collect()));
    t.push("transport", Column::Str(infos.iter().map(|i| i.transport.to_string()).collect()));
    t.push("playout", Column::Str(infos.iter().map(|i| i.playout.name().to_string()).collect()));
    t.push("advantage", Column::F64(infos.iter().map(|i| i.advantage).collect()));
    t.push("start_s", Column::F64(infos.iter().map(|i| i.start_s).collect()));
    t.push("stop_s", Column::F64(infos.iter().map(|i| i.stop_s).collect()));
    summary_columns!(t, sums;
        generated: I64, sender_drop: I64, queue_drop: I64, link_loss: I64, in_flight: I64,
        arrived: I64, late: I64, played: I64,
        loss_sender: F64, loss_queue: F64, loss_link: F64, loss_in_flight: F64, loss_late: F64,
        loss_network: F64, loss_before_playout: F64, loss_total: F64, p_tp: F64, per: F64, p_j: F64, loss_combined: F64,
        delay_mean_ms: F64, delay_p50_ms: F64, delay_p95_ms: F64, delay_p99_ms: F64, delay_max_ms: F64,
        sender_wait_mean_ms: F64, sender_wait_p95_ms: F64,
        jitter_ms: F64, jitter_sender_mean_ms: F64, jitter_sender_max_ms: F64, jitter_app_mean_ms: F64, jitter_app_max_ms: F64,
        jitter_receiver_mean_ms: F64, jitter_receiver_max_ms: F64, p_j_jitter: F64,
        rtpi: F64, dpr: F64, delayed: I64,
        lost_runs: I64, lost_run_mean: F64, lost_run_var: F64, lost_run_max: F64,
        received_runs: I64, received_run_mean: F64, received_run_var: F64, received_run_max: F64,
        clips: I64, lost_speech_s: F64, clip_mean_ms: F64, clip_max_ms: F64,
        goodput_bps: F64, goodput_played_bps: F64,
        buffer_ms: F64, mouth_to_ear_ms: F64, delay_budget_ms: F64, burst_r: F64, burst_r_measured: F64, ie_eff: F64, r: F64, mos: F64,
        r_random: F64);
    t.push("band", band(&sums, |s| s.r, &QUALITY_BANDS));
    t.push("satisfaction", band(&sums, |s| s.r, &USER_SATISFACTION));
    summary_columns!(t, sums; r_simple: F64, mos_simple: F64);
    t.push("band_simple", band(&sums, |s| s.r_simple, &QUALITY_BANDS));
    t.push("emodel_extrapolated", Column::Bool(sums.iter().map(|s| s.emodel_extrapolated).collect()));
    summary_columns!(t, sums;
        bound_r: F64, bound_mos: F64, bound_played: F64, bound_loss: F64, bound_delay_ms: F64,
        bound_g107_r: F64, bound_g107_mos: F64, bound_g107_played: F64, bound_g107_loss: F64,
        bound_g107_delay_ms: F64,
        fixed_r: F64, fixed_delay_ms: F64, fixed_loss: F64,
        fixed_g107_r: F64, fixed_g107_delay_ms: F64, fixed_g107_loss: F64);
    t
}

/// Σx, Σx² of a call's runs, from its mean and population variance.
fn run_moments(r: &RunStats) -> (f64, f64, f64) {
    match (r.mean, r.variance) {
        (Some(m), Some(v)) => (r.runs as f64, r.packets as f64, r.runs as f64 * (v + m * m)),
        _ => (0.0, 0.0, 0.0),
    }
}

/// One row per call group (in order of first appearance) and a last row
/// `(all)` for the whole run. Fractions are pooled over packets (Σ / Σ);
/// run-length means and variances pool every run of every call; Jain's
/// index is over the calls' goodputs; R and MOS are means over calls.
pub fn groups_table(infos: &[CallInfo], scored: &[Scored]) -> Table {
    // The calls of each group, then of the whole run.
    let mut names: Vec<String> = Vec::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut last = usize::MAX;
    for (c, info) in infos.iter().enumerate() {
        // A group's calls are usually consecutive: the last call's group
        // first, then a scan of the names.
        let g = match names.get(last) {
            Some(n) if *n == info.group => last,
            _ => match names.iter().position(|n| *n == info.group) {
                Some(g) => g,
                None => {
                    names.push(info.group.clone());
                    groups.push(Vec::new());
                    names.len() - 1
                }
            },
        };
        last = g;
        groups[g].push(c);
    }
    // The fields read here, copied once into dense rows: every column
    // below walks its groups' calls, and read ~1.2 KB `Scored`s (one cache
    // line a call a column) where it now reads ~200-byte rows (issue 14).
    let rows: Vec<GroupRow> = scored.iter().map(GroupRow::of).collect();
    names.push("(all)".to_string());
    groups.push((0..scored.len()).collect());
    let mut t = Table::default();
    t.push("group", Column::Str(names));
    let col = |f: &dyn Fn(&[usize]) -> f64| Column::F64(groups.iter().map(|g| f(g)).collect());
    let sum = |cs: &[usize], f: fn(&GroupRow) -> u64| cs.iter().map(|&c| f(&rows[c])).sum::<u64>() as f64;
    let mean = |cs: &[usize], f: fn(&GroupRow) -> f64| {
        let v: Vec<f64> = cs.iter().map(|&c| f(&rows[c])).filter(|x| !x.is_nan()).collect();
        if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
    };
    t.push("calls", Column::I64(groups.iter().map(|g| g.len() as i64).collect()));
    for (name, f) in [
        ("generated", (|s: &GroupRow| s.generated) as fn(&GroupRow) -> u64),
        ("played", |s| s.played),
    ] {
        t.push(name, Column::I64(groups.iter().map(|g| sum(g, f) as i64).collect()));
    }
    let frac = |cs: &[usize], f: fn(&GroupRow) -> u64| sum(cs, f) / sum(cs, |s| s.generated);
    t.push("loss_sender", col(&|cs| frac(cs, |s| s.sender_drop)));
    t.push("loss_network", col(&|cs| frac(cs, |s| s.queue_drop + s.link_loss + s.in_flight)));
    t.push("loss_before_playout", col(&|cs| frac(cs, |s| s.sender_drop + s.queue_drop + s.link_loss + s.in_flight)));
    t.push("loss_late", col(&|cs| frac(cs, |s| s.late)));
    t.push("loss_total", col(&|cs| 1.0 - frac(cs, |s| s.played)));
    t.push("delay_mean_ms", col(&|cs| {
        let w: f64 = cs.iter().map(|&c| rows[c].arrived as f64).sum();
        cs.iter().map(|&c| &rows[c]).filter(|s| s.arrived > 0).map(|s| s.delay_mean_ms * s.arrived as f64).sum::<f64>() / w
    }));
    // Seed 002 reports the index per flow; the group value is their mean,
    // `rtpi_pooled` the index of all the group's packets together.
    t.push("rtpi", col(&|cs| mean(cs, |s| s.rtpi)));
    t.push("dpr", col(&|cs| mean(cs, |s| s.dpr)));
    t.push("rtpi_pooled", col(&|cs| sum(cs, |s| s.arrived - s.delayed) / sum(cs, |s| s.generated)));
    type Pick = fn(&GroupRow) -> (f64, f64, f64);
    for (mean_name, var_name, pick) in [
        ("lost_run_mean", "lost_run_var", (|x: &GroupRow| x.lost) as Pick),
        ("received_run_mean", "received_run_var", |x| x.received),
    ] {
        let pooled = |cs: &[usize]| {
            let (n, s1, s2) = cs.iter().map(|&c| pick(&rows[c])).fold((0.0, 0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
            if n == 0.0 {
                return (f64::NAN, f64::NAN);
            }
            let m = s1 / n;
            (m, (s2 / n - m * m).max(0.0))
        };
        t.push(mean_name, col(&|cs| pooled(cs).0));
        t.push(var_name, col(&|cs| pooled(cs).1));
    }
    t.push("goodput_bps", col(&|cs| mean(cs, |s| s.goodput_bps)));
    t.push("jain_goodput", col(&|cs| {
        let xs: Vec<f64> = cs.iter().map(|&c| rows[c].goodput_bps).filter(|x| !x.is_nan()).collect();
        jain_index(&xs).unwrap_or(f64::NAN)
    }));
    t.push("lost_speech_s", col(&|cs| mean(cs, |s| s.lost_speech_s)));
    for (name, f) in [
        ("r", (|s: &GroupRow| s.r) as fn(&GroupRow) -> f64),
        ("mos", |s| s.mos),
        ("r_simple", |s| s.r_simple),
        ("bound_r", |s| s.bound_r),
        ("bound_g107_r", |s| s.bound_g107_r),
        ("fixed_r", |s| s.fixed_r),
    ] {
        t.push(name, col(&|cs| mean(cs, f)));
    }
    t.push("mos_of_mean_r", col(&|cs| mos_from_r(mean(cs, |s| s.r))));
    t
}

/// What `groups_table` reads of a scored call.
struct GroupRow {
    generated: u64,
    played: u64,
    sender_drop: u64,
    queue_drop: u64,
    link_loss: u64,
    in_flight: u64,
    late: u64,
    arrived: u64,
    delayed: u64,
    delay_mean_ms: f64,
    rtpi: f64,
    dpr: f64,
    goodput_bps: f64,
    lost_speech_s: f64,
    r: f64,
    mos: f64,
    r_simple: f64,
    bound_r: f64,
    bound_g107_r: f64,
    fixed_r: f64,
    /// `run_moments` of the lost and received runs.
    lost: (f64, f64, f64),
    received: (f64, f64, f64),
}

impl GroupRow {
    fn of(x: &Scored) -> Self {
        let s = &x.summary;
        GroupRow {
            generated: s.generated,
            played: s.played,
            sender_drop: s.sender_drop,
            queue_drop: s.queue_drop,
            link_loss: s.link_loss,
            in_flight: s.in_flight,
            late: s.late,
            arrived: s.arrived,
            delayed: s.delayed,
            delay_mean_ms: s.delay_mean_ms,
            rtpi: s.rtpi,
            dpr: s.dpr,
            goodput_bps: s.goodput_bps,
            lost_speech_s: s.lost_speech_s,
            r: s.r,
            mos: s.mos,
            r_simple: s.r_simple,
            bound_r: s.bound_r,
            bound_g107_r: s.bound_g107_r,
            fixed_r: s.fixed_r,
            lost: run_moments(&x.b2b.lost),
            received: run_moments(&x.b2b.received),
        }
    }
}

/// Non-empty bins of every call's back-to-back run histograms: `length` is
/// the run length in packets, the last bin (`length == run_cap`) holding
/// every run of `run_cap` packets or more (seed 004 Figs 7–8, 11–12).
pub fn bursts_table(scored: &[Scored]) -> Table {
    let (mut call, mut kind, mut length, mut runs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let n: usize = scored.iter().map(|s| s.bins.len()).sum();
    call.reserve_exact(n);
    kind.reserve_exact(n);
    length.reserve_exact(n);
    runs.reserve_exact(n);
    for (c, s) in scored.iter().enumerate() {
        for b in s.bins.iter() {
            call.push(c as u32);
            kind.push(b.kind as u32);
            length.push(b.length);
            runs.push(b.runs as i64);
        }
    }
    let mut t = Table::default();
    t.push("call", Column::U32(call));
    t.push("kind", Column::Cat { codes: kind, cats: vec!["lost".into(), "received".into(), "clip".into()] });
    t.push("length", Column::U32(length));
    t.push("runs", Column::I64(runs));
    t
}

/// The bounds' playout point per talkspurt: `*_offset_ms` is playout minus
/// generation (NaN when the bound plays nothing of the talkspurt).
/// `None` when no call has a bound.
pub fn talkspurts_table(scored: &[Scored]) -> Option<Table> {
    if scored.iter().all(|s| s.bounds.is_none()) {
        return None;
    }
    let (mut call, mut spurt, mut arrived) = (Vec::new(), Vec::new(), Vec::new());
    let (mut r_off, mut r_played, mut g_off, mut g_played) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let choice = |o: &Option<OptimalPlayout>, k: usize| -> (f64, f64) {
        match o.as_ref().map(|o| &o.talkspurts[k]) {
            Some(c) if c.delay != NOT_ARRIVED => (c.delay as f64 * 1e-6, c.played as f64),
            Some(_) => (f64::NAN, 0.0),
            None => (f64::NAN, f64::NAN),
        }
    };
    for (c, s) in scored.iter().enumerate() {
        let Some(b) = &s.bounds else { continue };
        let Some(base) = b.reduced.as_ref().or(b.g107.as_ref()) else { continue };
        for (k, ts) in base.talkspurts.iter().enumerate() {
            call.push(c as u32);
            spurt.push(ts.talkspurt);
            arrived.push(ts.arrived as i64);
            let (o, p) = choice(&b.reduced, k);
            r_off.push(o);
            r_played.push(p);
            let (o, p) = choice(&b.g107, k);
            g_off.push(o);
            g_played.push(p);
        }
    }
    let mut t = Table::default();
    t.push("call", Column::U32(call));
    t.push("talkspurt", Column::U32(spurt));
    t.push("arrived", Column::I64(arrived));
    t.push("bound_offset_ms", Column::F64(r_off));
    t.push("bound_played", Column::F64(r_played));
    t.push("bound_g107_offset_ms", Column::F64(g_off));
    t.push("bound_g107_played", Column::F64(g_played));
    Some(t)
}
