//! What no single value can check, run after the document is read: the
//! link graph (distinct ends, one link per pair, a rate per direction,
//! RED thresholds in order),
//! endpoints (named nodes, distinct, connected), codecs and ptime, playout
//! depths, start windows, traffic kinds against their transport, the TCP
//! table (controller tables, SACK, rto ordering, window ≥ one segment),
//! unique group labels and the analysis interval. It also fills in the
//! defaults that depend on other keys (`ptime` from the codec, a
//! fixed-depth buffer's `ptime` from the call, TCP `recovery`/`sack` from
//! `cc`), so the model states everything `to_json` writes.
//!
//! Errors name a key path; the value is looked up in the document as
//! written. When two keys conflict, the one the user wrote is blamed.

use serde_json::Value;

use super::de::{lookup, parse_path};
use super::doc::{DistDoc, LinkDoc, ScenarioDoc, SpeechDoc, TrafficDoc};
use super::error::ScenarioError;
use super::fields::LINKS;
use super::model::*;
use super::tcp::{table_owners, CC_TABLES};
use super::tfrc::{RateDoc, CCID2_KEYS, CCID2_ONLY, DCCP_ONLY, TFRC_ONLY};
use crate::cc::tfrc::{FasterRestart, TfrcSpec, Variant};
use super::units::format_duration;
use crate::cc::Recovery;
use crate::time::SimDuration;
use crate::voice::codec;

mod call;
mod traffic;
mod transport;
use call::call;
use traffic::traffic;
use transport::{rate, tcp};

type R<T> = Result<T, ScenarioError>;

pub const RATE_MISSING: &str =
    "a rate with a unit, e.g. \"10Mbps\", at the link level or in both forward and reverse";

/// The document, for values as written and whether a key was given.
pub(super) struct Ctx<'a> {
    raw: &'a Value,
}

impl Ctx<'_> {
    pub(super) fn given(&self, path: &str) -> bool {
        lookup(self.raw, &parse_path(path)).is_some_and(|v| !v.is_null())
    }

    /// The keys given (non-null) in the table at `path`, in document order.
    fn keys_of(&self, path: &str) -> Vec<String> {
        match lookup(self.raw, &parse_path(path)) {
            Some(Value::Object(m)) => m.iter().filter(|(_, v)| !v.is_null()).map(|(k, _)| k.clone()).collect(),
            _ => Vec::new(),
        }
    }

    pub(super) fn err(&self, path: &str, allowed: impl Into<String>) -> ScenarioError {
        let value = match lookup(self.raw, &parse_path(path)) {
            Some(v) if !v.is_null() => super::parse::render(v),
            _ => "(missing)".into(),
        };
        ScenarioError::new(path, value, allowed)
    }

    /// `lo <= hi` for two keys of one table; on failure blame the key the
    /// user wrote (`hi` first when `hi_first`), naming the other's value.
    fn order<T: PartialOrd>(
        &self,
        table: &str,
        (lo_key, lo): (&str, T),
        (hi_key, hi): (&str, T),
        hi_first: bool,
        (noun, show): (&str, impl Fn(T) -> String),
    ) -> R<()> {
        if lo <= hi {
            return Ok(());
        }
        let (lo_path, hi_path) = (format!("{table}.{lo_key}"), format!("{table}.{hi_key}"));
        let (lo_given, hi_given) = (self.given(&lo_path), self.given(&hi_path));
        let dflt = |given: bool| if given { "" } else { ", the default" };
        if hi_given && (hi_first || !lo_given) {
            Err(self.err(&hi_path, format!("{noun} at least {lo_key} ({}{})", show(lo), dflt(lo_given))))
        } else if lo_given {
            Err(self.err(&lo_path, format!("{noun} at most {hi_key} ({}{})", show(hi), dflt(hi_given))))
        } else {
            // Both defaults: consistent by construction.
            Ok(())
        }
    }
}

fn dur(d: SimDuration) -> String {
    format_duration(d)
}

pub(super) fn scenario(doc: ScenarioDoc, raw: &Value) -> R<Scenario> {
    let cx = Ctx { raw };
    let links = links(&cx, &doc.links)?;
    let net = Net::new(&links);
    let mut calls = doc.calls;
    for (g, c) in calls.iter_mut().enumerate() {
        call(&cx, &format!("calls[{g}]"), c, &net, doc.run.duration)?;
    }
    // Results name a call's group by its label, and rescoring finds the
    // group by it: two groups must not share one (explicit or "calls[i]").
    let labels: Vec<String> =
        calls.iter().enumerate().map(|(g, c)| group_label(&c.label, "calls", g)).collect();
    for (g, l) in labels.iter().enumerate() {
        if labels[..g].contains(l) {
            let at =
                if calls[g].label.is_some() { format!("calls[{g}].label") } else { format!("calls[{g}]") };
            return Err(cx.err(&at, "a label no other [[calls]] group has (results name groups by label)"));
        }
    }
    let traffic = doc
        .traffic
        .iter()
        .enumerate()
        .map(|(g, t)| traffic(&cx, &format!("traffic[{g}]"), t, &net, doc.run.duration))
        .collect::<R<Vec<_>>>()?;
    if calls.is_empty() && traffic.is_empty() {
        return Err(cx.err("calls", "at least one [[calls]] or [[traffic]] group"));
    }
    if let Some((from, to)) = doc.analysis.interval {
        if to <= from {
            return Err(cx.err("analysis.interval[1]", format!("an end after the start ({})", dur(from))));
        }
        if to > doc.run.duration {
            return Err(cx.err(
                "analysis.interval[1]",
                format!("an end at most the run's duration ({}), while sources send", dur(doc.run.duration)),
            ));
        }
    }
    Ok(Scenario { run: doc.run, links, calls, traffic, analysis: doc.analysis })
}

// ---------------------------------------------------------------------------
// Links and the graph

fn links(cx: &Ctx, docs: &[LinkDoc]) -> R<Vec<LinkCfg>> {
    if docs.is_empty() {
        return Err(cx.err("links", LINKS));
    }
    let mut out: Vec<LinkCfg> = Vec::new();
    for (i, l) in docs.iter().enumerate() {
        let p = format!("links[{i}]");
        let [a, b] = l.between.clone();
        if a == b {
            return Err(cx.err(
                &format!("{p}.between[1]"),
                format!("a node other than between[0] (\"{a}\"); a link joins two distinct nodes"),
            ));
        }
        if let Some(j) = out.iter().position(|o| (o.a == a && o.b == b) || (o.a == b && o.b == a)) {
            return Err(cx.err(
                &format!("{p}.between"),
                format!(
                    "a pair of nodes not already joined by links[{j}] (one [[links]] table per pair; \
                     use forward/reverse for asymmetric directions)"
                ),
            ));
        }
        let both = l.both();
        let (prof_fwd, prof_rev) = match &l.profile {
            Some(name) => super::links::profile(name).ok_or_else(|| cx.err(&format!("{p}.profile"), super::links::PROFILES))?,
            None => Default::default(),
        };
        let (fwd, rev) = (l.forward.clone().unwrap_or_default(), l.reverse.clone().unwrap_or_default());
        let channel = |d: super::doc::ChannelDoc, name: &str, other_has_rate: bool, prof: super::doc::ChannelDoc| -> R<ChannelCfg> {
            // Direction keys, then link keys, then the profile's.
            let both = super::doc::ChannelDoc {
                rate: both.rate.or(prof.rate),
                delay: both.delay.or(prof.delay),
                queue: both.queue.clone().or(prof.queue),
                loss: both.loss.clone().or(prof.loss),
                jitter: both.jitter.clone().or(prof.jitter),
                schedule: both.schedule.clone().or(prof.schedule),
                background: both.background.clone().or(prof.background),
            };
            let own_schedule = d.schedule.is_some();
            let mut schedule = d.schedule.or_else(|| both.schedule.clone());
            let at = if own_schedule { format!("{p}.{name}.schedule") } else { format!("{p}.schedule") };
            // A mahimahi trace sets the capacity: its mean rate is the nominal one.
            let traced = match &mut schedule {
                Some(s) => super::links::schedule(cx, &at, s)?,
                None => None,
            };
            let rate_key = if d.rate.is_some() { format!("{p}.{name}.rate") } else { format!("{p}.rate") };
            let rate_bps = match (d.rate.or(both.rate), traced) {
                (Some(_), Some(_)) => {
                    return Err(cx.err(&rate_key, "no rate: the link's schedule file is a mahimahi trace, which sets the capacity"))
                }
                (None, Some(mean)) => mean,
                (Some(r), None) => r,
                (None, None) if other_has_rate => return Err(cx.err(&format!("{p}.{name}.rate"), RATE_MISSING)),
                (None, None) => return Err(cx.err(&format!("{p}.rate"), RATE_MISSING)),
            };
            let own_jitter = d.jitter.is_some();
            let jitter = d.jitter.or_else(|| both.jitter.clone()).unwrap_or_default();
            let at = if own_jitter { format!("{p}.{name}.jitter") } else { format!("{p}.jitter") };
            super::links::jitter(cx, &at, &jitter)?;
            let qpath = if d.queue.is_some() { format!("{p}.{name}.queue") } else { format!("{p}.queue") };
            let queue = d.queue.or_else(|| both.queue.clone()).unwrap_or_default();
            if let QueueCfg::Red(r) = &queue {
                r.check(rate_bps, &qpath, |path, allowed| cx.err(path, allowed))?;
            }
            let own_bg = d.background.is_some();
            let background = d.background.or_else(|| both.background.clone()).unwrap_or_default();
            if background != BackgroundCfg::None && !matches!(queue, QueueCfg::DropTail { .. }) {
                let at = if own_bg { format!("{p}.{name}.background") } else { format!("{p}.background") };
                return Err(cx.err(
                    &at,
                    format!("no background load with this queue ({qpath}): background packets share drop-tail queues only"),
                ));
            }
            Ok(ChannelCfg {
                rate_bps,
                delay: d.delay.or(both.delay).unwrap_or(SimDuration::ZERO),
                queue,
                loss: d.loss.or_else(|| both.loss.clone()).unwrap_or_default(),
                jitter,
                schedule,
                background,
            })
        };
        let (fwd_rate, rev_rate) = (fwd.rate.is_some(), rev.rate.is_some());
        let (fwd_loss, rev_loss) = (fwd.loss.is_some(), rev.loss.is_some());
        let mut forward = channel(fwd, "forward", rev_rate, prof_fwd)?;
        let mut reverse = channel(rev, "reverse", fwd_rate, prof_rev)?;
        let at = |own: bool, name: &str| if own { format!("{p}.{name}") } else { p.clone() };
        super::links::loss(cx, &format!("{}.loss", at(fwd_loss, "forward")), &mut forward.loss)?;
        super::links::loss(cx, &format!("{}.loss", at(rev_loss, "reverse")), &mut reverse.loss)?;
        out.push(LinkCfg { a, b, forward, reverse, cost: l.cost });
    }
    Ok(out)
}

/// Nodes in order of appearance, and which are connected. Every link
/// carries both directions, so reachability is connectivity.
struct Net {
    nodes: Vec<String>,
    component: Vec<usize>,
}

impl Net {
    fn new(links: &[LinkCfg]) -> Net {
        let mut nodes: Vec<String> = Vec::new();
        for l in links {
            for n in [&l.a, &l.b] {
                if !nodes.contains(n) {
                    nodes.push(n.clone());
                }
            }
        }
        let id = |n: &str| nodes.iter().position(|m| m == n).unwrap_or(0);
        let mut component: Vec<usize> = (0..nodes.len()).collect();
        fn root(c: &mut [usize], mut i: usize) -> usize {
            while c[i] != i {
                c[i] = c[c[i]];
                i = c[i];
            }
            i
        }
        for l in links {
            let (a, b) = (root(&mut component, id(&l.a)), root(&mut component, id(&l.b)));
            component[a] = b;
        }
        for i in 0..component.len() {
            component[i] = root(&mut component, i);
        }
        Net { nodes, component }
    }

    fn known(&self) -> String {
        format!("a node named in [[links]]: {}", self.nodes.join(", "))
    }

    /// `from` and `to` of a group: named nodes, distinct, connected.
    /// A group's endpoints; with `spread`, every pair `{from}{i}` →
    /// `{to}{i}`, i = 1…count, must be hosts of the links.
    fn group_endpoints(&self, cx: &Ctx, p: &str, from: &str, to: &str, spread: bool, count: u32) -> R<()> {
        if !spread {
            return self.endpoints(cx, p, from, to);
        }
        for (key, prefix) in [("from", from), ("to", to)] {
            let have = (1..).take_while(|i| self.nodes.iter().any(|n| *n == format!("{prefix}{i}"))).count() as u32;
            if have == 0 {
                let allowed = format!("with spread = true, a host-name prefix: nodes {prefix}1…{prefix}{count} (one per flow); there is no {prefix}1");
                return Err(cx.err(&format!("{p}.{key}"), allowed));
            }
            if have < count {
                // The prefix names hosts; it is the count that asks for more of them.
                // parse.rs adds "or raise topology.pairs" when a [topology] made the hosts.
                let allowed = format!("a count of at most {have}: with spread = true each flow has its own hosts ({key} = \"{prefix}\": {prefix}1…{prefix}{count}), and the links have {prefix}1…{prefix}{have}; {LOWER_THE_COUNT}");
                return Err(cx.err(&format!("{p}.count"), allowed));
            }
        }
        for i in 0..count {
            let (a, b) = crate::scenario::model::flow_endpoints(from, to, true, i);
            self.endpoints(cx, p, &a, &b)?;
        }
        Ok(())
    }

    fn endpoints(&self, cx: &Ctx, p: &str, from: &str, to: &str) -> R<()> {
        let find = |key: &str, name: &str| {
            self.nodes
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| cx.err(&format!("{p}.{key}"), self.known()))
        };
        let (a, b) = (find("from", from)?, find("to", to)?);
        if a == b {
            return Err(cx.err(&format!("{p}.to"), format!("a node other than from (\"{from}\")")));
        }
        if self.component[a] != self.component[b] {
            return Err(cx.err(
                &format!("{p}.to"),
                format!("a node reachable from \"{from}\" in both directions over the links"),
            ));
        }
        Ok(())
    }
}

/// The end of the message for a spread group larger than its hosts.
pub(super) const LOWER_THE_COUNT: &str = "lower the count";

// ---------------------------------------------------------------------------
// Calls and traffic

fn start(cx: &Ctx, p: &str, s: &StartCfg) -> R<()> {
    match *s {
        StartCfg::Uniform { from, to } if to <= from => {
            Err(cx.err(&format!("{p}.start.to"), format!("a duration after from ({})", dur(from))))
        }
        _ => Ok(()),
    }
}

/// The latest start a start table can give, and its key.
fn latest_start(s: &StartCfg) -> (SimDuration, &'static str) {
    match *s {
        StartCfg::Fixed(at) => (at, "start"),
        // Draws are in [from, to): all are before stop iff to ≤ stop.
        StartCfg::Uniform { to, .. } => (SimDuration(to.as_nanos().saturating_sub(1)), "start.to"),
    }
}

/// A group whose last source would begin at or after `stop` is an error
/// naming the key that puts it there (no silently empty source).
#[allow(clippy::too_many_arguments)]
fn starts_before(cx: &Ctx, p: &str, (first, key): (SimDuration, &str), stagger: SimDuration, count: u32, stop: SimDuration, what: &str) -> R<()> {
    if first >= stop {
        return Err(cx.err(&format!("{p}.{key}"), format!("a start before {what} ({})", dur(stop))));
    }
    if first + stagger.mul(count.saturating_sub(1) as u64) >= stop {
        let most = SimDuration((stop.as_nanos() - first.as_nanos()).saturating_sub(1) / (count as u64 - 1).max(1));
        return Err(cx.err(
            &format!("{p}.stagger"),
            format!("a stagger that starts all {count} sources before {what} ({}): at most {}", dur(stop), dur(most)),
        ));
    }
    Ok(())
}

/// A Pareto table: by mean the shape must exceed 1; scale and mean exclude
/// each other.
fn pareto(cx: &Ctx, p: &str, d: Option<&DistDoc>) -> R<()> {
    match d.and_then(|d| d.pareto()) {
        Some((_, true, true)) => {
            Err(cx.err(&format!("{p}.scale"), "no scale with mean: a Pareto is given by mean (shape > 1) or by scale"))
        }
        Some((k, _, false)) if k <= 1.0 => Err(cx.err(
            &format!("{p}.shape"),
            "a shape > 1 when the Pareto is given by mean (shape <= 1 has no finite mean); for such shapes give scale = the smallest period, e.g. { dist = \"pareto\", scale = \"2s\", shape = 0.5 }",
        )),
        _ => Ok(()),
    }
}
