//! How calls are played out and scored: the `playout` table and `advantage`
//! of a `[[calls]]` group, and the top-level `[analysis]` table, read with
//! parse.rs's path-tracking `Node`/`Table` and written back for `to_json`.
//!
//! Defaults live in the config structs' `Default` impls (playout module,
//! `AnalysisCfg`): a table starts from them and overrides the keys given, so
//! each default has one home. docs/scenario.md is the reference.

use serde_json::{json, Value};

use super::{Node, ScenarioError, Table, R};
use crate::playout::{FixedDelay, PlayoutKind};
use crate::scenario::model::{AnalysisCfg, MissingPredecessor};
use crate::scenario::units;
use crate::time::SimDuration;

/// Largest packet count of a buffer depth or window (playout and analysis).
const MAX_WINDOW_PACKETS: u64 = 1_000_000;
/// Largest `[analysis] run_cap`.
const MAX_RUN_CAP: u64 = 100_000;
/// Largest advantage factor A: G.107 Table 3 stops at 20, seed 003 uses 40.
const MAX_ADVANTAGE: f64 = 40.0;

const PLAYOUT: &str = "a playout table, e.g. { kind = \"fixed\", delay = \"150ms\" }";
const WEIGHT: &str = "an EWMA weight w with 0 <= w < 1, e.g. 0.998002";
const BETA: &str = "a finite multiplier beta > 0, e.g. 4";
const QUANTILE: &str = "a quantile q with 0 < q <= 1, e.g. 0.95";

fn weight(n: &Node) -> R<f64> {
    n.num(|w| (0.0..1.0).contains(&w), WEIGHT)
}

fn multiplier(n: &Node) -> R<f64> {
    n.num(|b| b > 0.0, BETA)
}

/// Config durations are `u64` ns.
fn ns(n: &Node) -> R<u64> {
    Ok(n.duration()?.as_nanos())
}

fn positive_ns(n: &Node) -> R<u64> {
    Ok(n.positive_duration()?.as_nanos())
}

fn packets(n: &Node) -> R<u64> {
    n.int(1, MAX_WINDOW_PACKETS, &format!("an integer number of packets between 1 and {MAX_WINDOW_PACKETS}"))
}

/// The `playout` table of a call group whose packetization time is `ptime`.
pub(super) fn parse(n: &Node, ptime: SimDuration) -> R<PlayoutKind> {
    let t = n.table(PLAYOUT)?;
    let kind = t.kind("kind", &PlayoutKind::NAMES, Some("fixed"))?;
    // `kind` only returns one of NAMES, each of which has a default config.
    let mut p = PlayoutKind::from_name(kind)
        .ok_or_else(|| ScenarioError::new(super::join(&t.path, "kind"), kind, "a known playout kind"))?;
    let only = |keys: &[&str]| t.only(keys, &format!(" (for kind = \"{kind}\")"));
    match &mut p {
        PlayoutKind::Fixed(c) => {
            only(&["kind", "delay"])?;
            t.set("delay", &mut c.delay, ns)?;
        }
        PlayoutKind::FixedDepth(c) => {
            only(&["kind", "depth", "ptime"])?;
            t.set("depth", &mut c.depth_packets, |n| Ok(packets(n)? as u32))?;
            // The call's own ptime rather than inferring it from the trace,
            // so the scenario as run states the hold explicitly.
            c.ptime = Some(ptime.as_nanos());
            t.set("ptime", &mut c.ptime, |n| Ok(Some(positive_ns(n)?)))?;
        }
        PlayoutKind::RamjeeEwma(c) => {
            only(RAMJEE)?;
            ramjee(&t, &mut c.alpha, &mut c.beta, &mut c.initial_variation)?;
        }
        PlayoutKind::RamjeeAsymmetric(c) => {
            only(&[RAMJEE, &["alpha_increase"]].concat())?;
            ramjee(&t, &mut c.alpha, &mut c.beta, &mut c.initial_variation)?;
            t.set("alpha_increase", &mut c.alpha_increase, weight)?;
        }
        PlayoutKind::RamjeeMinDelay(c) => {
            only(RAMJEE)?;
            ramjee(&t, &mut c.alpha, &mut c.beta, &mut c.initial_variation)?;
        }
        PlayoutKind::RamjeeSpike(c) => {
            only(&[RAMJEE, &["spike_threshold", "spike_end"]].concat())?;
            ramjee(&t, &mut c.alpha, &mut c.beta, &mut c.initial_variation)?;
            t.set("spike_threshold", &mut c.spike_threshold, positive_ns)?;
            t.set("spike_end", &mut c.spike_end, positive_ns)?;
        }
        PlayoutKind::Quantile(c) => {
            only(&["kind", "quantile", "window", "min_depth", "max_depth"])?;
            t.set("quantile", &mut c.quantile, |n| n.num(|q| q > 0.0 && q <= 1.0, QUANTILE))?;
            t.set("window", &mut c.window, |n| Ok(packets(n)? as usize))?;
            t.set("min_depth", &mut c.min_depth, ns)?;
            t.set("max_depth", &mut c.max_depth, ns)?;
            check_depths(&t, c.min_depth, c.max_depth)?;
        }
    }
    Ok(p)
}

/// Keys of every Ramjee algorithm (ramjee-2 and -4 add their own).
const RAMJEE: &[&str] = &["kind", "alpha", "beta", "initial_variation"];

fn ramjee(t: &Table, alpha: &mut f64, beta: &mut f64, initial_variation: &mut u64) -> R<()> {
    t.set("alpha", alpha, weight)?;
    t.set("beta", beta, multiplier)?;
    t.set("initial_variation", initial_variation, ns)
}

/// `max_depth >= min_depth`, blamed on the key the user wrote: `max_depth`
/// if given, else `min_depth` (above the default maximum).
fn check_depths(t: &Table, min: u64, max: u64) -> R<()> {
    if max >= min {
        return Ok(());
    }
    let d = |x| units::format_duration(SimDuration(x));
    match (t.opt("max_depth"), t.opt("min_depth")) {
        (Some(n), _) => Err(n.err(format!("a duration at least min_depth ({})", d(min)))),
        (None, Some(n)) => Err(n.err(format!("a duration at most max_depth ({}, the default)", d(max)))),
        // Both defaults: consistent by construction of `QuantileBuffer::default`.
        (None, None) => Ok(()),
    }
}

/// The default when a call group has no `playout` table.
pub(super) fn default_playout() -> PlayoutKind {
    PlayoutKind::Fixed(FixedDelay::default())
}

/// A call group's `advantage`.
pub(super) fn advantage(n: &Node) -> R<f64> {
    let allowed = format!(
        "an advantage factor A with 0 <= A <= {MAX_ADVANTAGE} (G.107 Table 3 allows 0–20; \
         values up to {MAX_ADVANTAGE} are accepted and flagged as extrapolated)"
    );
    n.num(|a| (0.0..=MAX_ADVANTAGE).contains(&a), &allowed)
}

/// Every `rtpi_missing` choice; names from `missing_name`.
const MISSING: [MissingPredecessor; 3] =
    [MissingPredecessor::Timely, MissingPredecessor::Delayed, MissingPredecessor::PreviousArrival];

fn missing_name(m: MissingPredecessor) -> &'static str {
    match m {
        MissingPredecessor::Timely => "timely",
        MissingPredecessor::Delayed => "delayed",
        MissingPredecessor::PreviousArrival => "previous-arrival",
    }
}

/// The `[analysis]` table.
pub(super) fn analysis(n: &Node) -> R<AnalysisCfg> {
    let t = n.table("an [analysis] table, e.g. rtpi_threshold = \"300ms\"")?;
    t.only(&["rtpi_threshold", "rtpi_missing", "window", "bounds", "jitter_threshold", "run_cap", "interval"], "")?;
    let mut a = AnalysisCfg::default();
    t.set("rtpi_threshold", &mut a.rtpi_threshold, |n| n.positive_duration())?;
    let names = MISSING.map(missing_name);
    let name = t.kind("rtpi_missing", &names, Some(missing_name(a.rtpi_missing)))?;
    a.rtpi_missing = MISSING.into_iter().find(|&m| missing_name(m) == name).unwrap_or(a.rtpi_missing);
    t.set("window", &mut a.window, |n| Ok(packets(n)? as u32))?;
    t.set("bounds", &mut a.bounds, |n| n.bool())?;
    t.set("jitter_threshold", &mut a.jitter_threshold, |n| n.positive_duration())?;
    let cap = format!("an integer between 1 and {MAX_RUN_CAP}");
    t.set("run_cap", &mut a.run_cap, |n| Ok(n.int(1, MAX_RUN_CAP, &cap)? as u32))?;
    if let Some(n) = t.opt("interval") {
        const IV: &str = "[start, end], two durations with start < end, e.g. [\"50s\", \"200s\"]";
        let items = n.array(IV)?;
        if items.len() != 2 {
            return Err(n.err(IV));
        }
        let (a0, a1) = (items[0].duration()?, items[1].duration()?);
        if a0 >= a1 {
            return Err(n.err(IV));
        }
        a.interval = Some((a0, a1));
    }
    Ok(a)
}

// ---------------------------------------------------------------------------
// Normalized output: every parameter written, durations with units.

pub(super) fn to_json(p: &PlayoutKind) -> Value {
    let d = |ns: u64| units::format_duration(SimDuration(ns));
    let mut v = match p {
        PlayoutKind::Fixed(c) => json!({ "delay": d(c.delay) }),
        PlayoutKind::FixedDepth(c) => {
            let mut v = json!({ "depth": c.depth_packets });
            // `None` (trace-inferred) only arises outside the parser.
            if let Some(pt) = c.ptime {
                v["ptime"] = json!(d(pt));
            }
            v
        }
        PlayoutKind::RamjeeEwma(c) => ramjee_json(c.alpha, c.beta, c.initial_variation),
        PlayoutKind::RamjeeAsymmetric(c) => {
            let mut v = ramjee_json(c.alpha, c.beta, c.initial_variation);
            v["alpha_increase"] = json!(c.alpha_increase);
            v
        }
        PlayoutKind::RamjeeMinDelay(c) => ramjee_json(c.alpha, c.beta, c.initial_variation),
        PlayoutKind::RamjeeSpike(c) => {
            let mut v = ramjee_json(c.alpha, c.beta, c.initial_variation);
            v["spike_threshold"] = json!(d(c.spike_threshold));
            v["spike_end"] = json!(d(c.spike_end));
            v
        }
        PlayoutKind::Quantile(c) => json!({
            "quantile": c.quantile,
            "window": c.window,
            "min_depth": d(c.min_depth),
            "max_depth": d(c.max_depth),
        }),
    };
    v["kind"] = json!(p.name());
    v
}

fn ramjee_json(alpha: f64, beta: f64, initial_variation: u64) -> Value {
    let iv = units::format_duration(SimDuration(initial_variation));
    json!({ "alpha": alpha, "beta": beta, "initial_variation": iv })
}

pub(super) fn analysis_json(a: &AnalysisCfg) -> Value {
    let mut v = json!({
        "rtpi_threshold": units::format_duration(a.rtpi_threshold),
        "rtpi_missing": missing_name(a.rtpi_missing),
        "window": a.window,
        "bounds": a.bounds,
        "jitter_threshold": units::format_duration(a.jitter_threshold),
        "run_cap": a.run_cap,
    });
    if let Some((a0, a1)) = a.interval {
        v["interval"] = json!([units::format_duration(a0), units::format_duration(a1)]);
    }
    v
}
