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
use super::tcp::{table_owner, CC_TABLES};
use super::tfrc::{RateDoc, CCID2_KEYS, CCID2_ONLY, DCCP_ONLY, TFRC_ONLY};
use crate::cc::tfrc::{FasterRestart, Variant};
use super::units::format_duration;
use crate::cc::Recovery;
use crate::time::SimDuration;
use crate::voice::codec;

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
            Ok(ChannelCfg {
                rate_bps,
                delay: d.delay.or(both.delay).unwrap_or(SimDuration::ZERO),
                queue,
                loss: d.loss.or_else(|| both.loss.clone()).unwrap_or_default(),
                jitter,
                schedule,
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

/// `bitrate`: one of packet and interval, a payload left after the headers,
/// and ptime (if written) equal to the interval. Returns the interval.
fn bitrate(cx: &Ctx, p: &str, c: &CallGroupCfg, b: &BitrateCfg) -> R<SimDuration> {
    let bp = format!("{p}.bitrate");
    match (b.packet, b.interval) {
        (Some(_), Some(_)) => {
            return Err(cx.err(&format!("{bp}.interval"), "no interval with packet: a fixed packet size or a fixed interval, not both"))
        }
        (None, None) => return Err(cx.err(&bp, "a packet or an interval, e.g. { rate = \"32kbps\", packet = \"512B\" }")),
        _ => {}
    }
    let key = if b.packet.is_some() { "packet" } else { "interval" };
    let (iv, bytes) = b.resolve();
    if bytes <= c.overhead_bytes {
        return Err(cx.err(
            &format!("{bp}.{key}"),
            format!("IP packets larger than the call's {} B of headers (overhead); this gives {bytes} B", c.overhead_bytes),
        ));
    }
    if iv < SimDuration::from_millis(1) {
        return Err(cx.err(&format!("{bp}.{key}"), format!("a packet interval of at least 1ms (this gives {})", dur(iv))));
    }
    if let Some(pt) = c.ptime.filter(|pt| *pt != iv) {
        return Err(cx.err(&format!("{p}.ptime"), format!("no ptime with bitrate (its interval, {}, is the ptime; {} given)", dur(iv), dur(pt))));
    }
    Ok(iv)
}

fn call(cx: &Ctx, p: &str, c: &mut CallGroupCfg, net: &Net, run: SimDuration) -> R<()> {
    net.endpoints(cx, p, &c.from, &c.to)?;
    let codecs = super::fields::codecs_text();
    let Some(k) = codec::lookup(&c.codec) else {
        let name = c.codec.to_ascii_lowercase();
        let close = codec::names().into_iter().find(|k| {
            k.eq_ignore_ascii_case(&name) || super::de::edit_distance(&k.to_ascii_lowercase(), &name) <= 1
        });
        let hint = close.map(|k| format!(" (did you mean \"{k}\"?)")).unwrap_or_default();
        return Err(cx.err(&format!("{p}.codec"), format!("{codecs}{hint}")));
    };
    c.codec = k.name.to_string();
    let ptime = match c.ptime {
        _ if c.bitrate.is_some() => bitrate(cx, p, c, c.bitrate.as_ref().unwrap())?,
        Some(pt) => {
            codec::check_ptime(k, pt).map_err(|a| cx.err(&format!("{p}.ptime"), a))?;
            pt
        }
        None => codec::default_ptime(k),
    };
    c.ptime = Some(ptime);
    match &mut c.playout {
        // The call's own ptime rather than inferring it from the trace, so
        // the scenario as run states the hold explicitly.
        PlayoutCfg::FixedDepth(d) => {
            d.ptime.get_or_insert(ptime.as_nanos());
        }
        PlayoutCfg::Quantile(q) => {
            q.ptime.get_or_insert(ptime.as_nanos());
            cx.order(
                &format!("{p}.playout"),
                ("min_depth", q.min_depth),
                ("max_depth", q.max_depth),
                true,
                ("a duration", |x| dur(SimDuration(x))),
            )?
        }
        _ => {}
    }
    start(cx, p, &c.start)?;
    starts_before(cx, p, latest_start(&c.start), c.stagger, c.count, run, "the end of the run")?;
    match &c.speech {
        SpeechCfg::Schedule(s) => {
            // The source's frame clock: a bit-rate call's interval, else the codec's frame.
            let frame = c.adapt.interval().unwrap_or(if c.bitrate.is_some() { ptime } else { k.frame });
            let limit = c.length.map_or(run, |l| l.min(run));
            super::speech::check(&format!("{p}.speech"), s, c.count, frame, limit).map_err(|(path, a)| cx.err(&path, a))?;
        }
        _ => {
            if let SpeechDoc::OnOff(o) = SpeechDoc::from(c.speech.clone()) {
                pareto(cx, &format!("{p}.speech.talk"), o.talk.as_ref())?;
                pareto(cx, &format!("{p}.speech.silence"), o.silence.as_ref())?;
            }
        }
    }
    rtp(cx, p, c, k, ptime)?;
    match &mut c.transport {
        TransportCfg::Tcp(t) => tcp(cx, &format!("{p}.transport"), t)?,
        TransportCfg::Dccp(d) => rate(cx, &format!("{p}.transport"), d, true)?,
        TransportCfg::Tfrc(d) => rate(cx, &format!("{p}.transport"), d, false)?,
        _ => {}
    }
    Ok(())
}

fn traffic(cx: &Ctx, p: &str, doc: &TrafficDoc, net: &Net, run: SimDuration) -> R<TrafficCfg> {
    let mut t = doc.cfg();
    net.endpoints(cx, p, &t.from, &t.to)?;
    let kind = t.kind.name();
    // Bulk sources need a congestion-controlled sender; a finite transfer
    // needs a byte stream (TCP).
    let cc_only = matches!(t.kind, TrafficKind::Bulk { .. });
    let tcp_only = matches!(t.kind, TrafficKind::Transfer { .. });
    match &mut t.transport {
        TransportCfg::Echo { .. } => {
            return Err(cx.err(
                &format!("{p}.transport.kind"),
                "\"udp\", \"tcp\", \"dccp\" or \"tfrc\" (echo is a test transport for calls)",
            ))
        }
        TransportCfg::Udp { .. } if tcp_only || cc_only => {
            return Err(cx.err(
                &format!("{p}.transport"),
                format!(
                    "a {} transport, e.g. {{ kind = \"tcp\" }} (kind = \"{kind}\" {})",
                    if tcp_only { "tcp" } else { "tcp, dccp or tfrc" },
                    if tcp_only { "is a TCP source" } else { "needs congestion control" }
                ),
            ))
        }
        TransportCfg::Dccp(_) | TransportCfg::Tfrc(_) if tcp_only => {
            return Err(cx.err(
                &format!("{p}.transport"),
                format!("a tcp transport, e.g. {{ kind = \"tcp\" }} (kind = \"{kind}\" is a finite byte stream)"),
            ))
        }
        TransportCfg::Udp { .. } => {}
        TransportCfg::Tcp(c) => tcp(cx, &format!("{p}.transport"), c)?,
        TransportCfg::Dccp(d) => rate(cx, &format!("{p}.transport"), d, true)?,
        TransportCfg::Tfrc(d) => rate(cx, &format!("{p}.transport"), d, false)?,
    }
    if let TrafficDoc::Bulk(b) = doc {
        match (&b.on, &b.off) {
            (Some(_), None) => {
                return Err(cx.err(&format!("{p}.off"), "an off table with the on table (both or neither)"))
            }
            (None, Some(_)) => {
                return Err(cx.err(&format!("{p}.on"), "an on table with the off table (both or neither)"))
            }
            _ => {}
        }
    }
    start(cx, p, &t.start)?;
    if let (Some(stop), StartCfg::Fixed(at)) = (t.stop, &t.start) {
        if stop <= *at {
            return Err(cx.err(&format!("{p}.stop"), format!("a stop time after start ({})", dur(*at))));
        }
    }
    let (stop, what) = match t.stop {
        Some(s) if s < run => (s, "stop"),
        _ => (run, "the end of the run"),
    };
    let [on, off] = doc.periods();
    pareto(cx, &format!("{p}.on"), on)?;
    pareto(cx, &format!("{p}.off"), off)?;
    if t.random && !matches!(t.kind, TrafficKind::Cbr { .. }) {
        return Err(cx.err(&format!("{p}.random"), format!("no random key: ns-2's send jitter is a kind = \"cbr\" option, and kind is \"{kind}\"")));
    }
    if t.active.is_empty() {
        starts_before(cx, p, latest_start(&t.start), t.stagger, t.count, stop, what)?;
        return Ok(t);
    }
    if cx.given(&format!("{p}.start")) {
        return Err(cx.err(&format!("{p}.start"), "no start with active: the activation windows set when the source is on"));
    }
    if matches!(t.kind, TrafficKind::Transfer { .. }) {
        return Err(cx.err(&format!("{p}.active"), "no activation schedule for a transfer (it writes once); use start"));
    }
    let mut prev_end = SimDuration::ZERO;
    for (j, w) in t.active.iter().enumerate() {
        let wp = format!("{p}.active[{j}]");
        if j > 0 && w.from < prev_end {
            return Err(cx.err(&format!("{wp}.from"), format!("a time at or after the previous window's end ({})", dur(prev_end))));
        }
        let open_end = w.to.is_none();
        if open_end && j + 1 < t.active.len() {
            return Err(cx.err(&format!("{wp}.to"), "an end: only the last window may run to stop"));
        }
        if let Some(to) = w.to {
            if to <= w.from {
                return Err(cx.err(&format!("{wp}.to"), format!("a time after from ({})", dur(w.from))));
            }
            prev_end = to;
        }
    }
    starts_before(cx, p, (t.active[0].from, "active[0].from"), t.stagger, t.count, stop, what)?;
    Ok(t)
}

// ---------------------------------------------------------------------------
// DCCP and TFRC

/// Checks keys that span the table and resolves it (every key written).
fn rate(cx: &Ctx, p: &str, d: &mut RateDoc, dccp: bool) -> R<()> {
    let (kind, other) = if dccp { ("dccp", "tfrc") } else { ("tfrc", "dccp") };
    let foreign: &[&str] = if dccp { &TFRC_ONLY } else { &DCCP_ONLY };
    for key in foreign {
        if cx.given(&format!("{p}.{key}")) {
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key: it is a kind = \"{other}\" option, and kind is \"{kind}\"")));
        }
    }
    if d.ccid.is_some_and(|c| !matches!(c, 2..=4)) {
        return Err(cx.err(
            &format!("{p}.ccid"),
            "2 (CCID 2, TCP-like, RFC 4341), 3 (CCID 3, TFRC, RFC 4342) or 4 (CCID 4, TFRC-SP, RFC 5622)",
        ));
    }
    if dccp && d.ccid == Some(2) {
        for key in cx.keys_of(p) {
            if !CCID2_KEYS.contains(&key.as_str()) {
                return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key with ccid = 2: it is a CCID 3/4 (TFRC) option; CCID 2 takes {}", CCID2_KEYS[1..].join(", "))));
            }
        }
        *d = RateDoc::from_ccid2(&d.ccid2_config());
        return Ok(());
    }
    for key in CCID2_ONLY {
        if cx.given(&format!("{p}.{key}")) {
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key: it is a CCID 2 option (ccid = 2)")));
        }
    }
    let c = d.config(dccp);
    let sp = c.tfrc.small_packets;
    let sp_what = if dccp { "ccid = 4" } else { "small_packets = true" };
    if matches!(c.tfrc.variant, Variant::N | Variant::N100) && !sp {
        return Err(cx.err(
            &format!("{p}.variant"),
            format!(
                "\"standard\" or \"fr-md\" here: \"{}\" is seed 003's CCID 4 variant (TFRC-SP), which needs {sp_what}",
                c.tfrc.variant.name()
            ),
        ));
    }
    if c.tfrc.variant == Variant::FrMd && c.tfrc.faster_restart == FasterRestart::Off {
        return Err(cx.err(
            &format!("{p}.variant"),
            "\"fr-md\" only with Faster Restart: seed 000's FR-MD is Faster Restart with an 8-packet floor; set faster_restart = \"emulated\" (as seed 000) or true, or choose another variant",
        ));
    }
    for key in ["sp_header", "min_interval", "short_intervals"] {
        if !sp && cx.given(&format!("{p}.{key}")) {
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key without TFRC-SP ({sp_what})")));
        }
    }
    *d = RateDoc::from_config(&c);
    Ok(())
}

// ---------------------------------------------------------------------------
// TCP

fn tcp(cx: &Ctx, p: &str, t: &mut TcpConfig) -> R<()> {
    let cc = t.cc.name();
    for key in CC_TABLES {
        let owner = table_owner(key).map_or("", |o| o.name());
        if cx.given(&format!("{p}.{key}")) && table_owner(key) != Some(t.cc) {
            return Err(cx.err(
                &format!("{p}.{key}"),
                format!("no {key} table: it configures cc = \"{owner}\", and cc is \"{cc}\""),
            ));
        }
    }
    let recovery = t.recovery();
    if recovery == Recovery::Sack && t.sack == Some(false) {
        let why =
            if t.recovery.is_some() { String::new() } else { format!(", the default for cc = \"{cc}\"") };
        return Err(cx.err(
            &format!("{p}.sack"),
            format!("true: recovery is \"sack\"{why}, which needs SACK blocks (RFC 6675)"),
        ));
    }
    t.recovery = Some(recovery);
    t.sack = Some(t.sack());
    // RFC 6298 §2: the RTO starts at initial_rto and stays within [min_rto, max_rto].
    cx.order(p, ("min_rto", t.min_rto), ("max_rto", t.max_rto), true, ("a duration", dur))?;
    cx.order(p, ("min_rto", t.min_rto), ("initial_rto", t.initial_rto), true, ("a duration", dur))?;
    cx.order(p, ("initial_rto", t.initial_rto), ("max_rto", t.max_rto), false, ("a duration", dur))?;
    // A window below one segment could never send a full segment.
    if t.rcv_window < t.mss as u64 {
        let mss = format!("{}B", t.mss);
        return Err(if cx.given(&format!("{p}.rcv_window")) {
            cx.err(&format!("{p}.rcv_window"), format!("a window of at least one segment (mss = {mss}); a window below one segment cannot carry a full segment"))
        } else {
            cx.err(
                &format!("{p}.mss"),
                format!("an mss of at most rcv_window ({}B, the default)", t.rcv_window),
            )
        });
    }
    if t.cc == crate::cc::CcAlgorithm::Vegas {
        let v = t.params.vegas;
        // Brakmo & Peterson: grow below α, shrink above β, so α ≤ β.
        cx.order(
            &format!("{p}.vegas"),
            ("alpha", v.alpha),
            ("beta", v.beta),
            true,
            ("a number", |x: f64| x.to_string()),
        )?;
    }
    Ok(())
}

/// RTP keys: feedback and adaptation need RTCP; adaptation parameters in
/// order and within the codec's ptimes.
fn rtp(cx: &Ctx, p: &str, c: &CallGroupCfg, k: &codec::Codec, ptime: SimDuration) -> R<()> {
    use super::rtp::AdaptCfg;
    if c.rtcp.is_none() {
        if c.feedback.is_some() {
            return Err(cx.err(&format!("{p}.feedback"), "no feedback without RTCP: add rtcp = { interval = \"rfc3550\" } (or \"fixed\") to the call"));
        }
        if !matches!(c.adapt, AdaptCfg::None | AdaptCfg::TfrcCodec { .. }) {
            return Err(cx.err(&format!("{p}.adapt"), "kind = \"none\" without RTCP: an adaptive sender needs rtcp = { … } to hear reports"));
        }
    }
    let check = |key: &str, d: SimDuration| {
        codec::check_ptime_within(k, d, codec::PTIME_MAX).map(|_| ()).map_err(|a| cx.err(&format!("{p}.adapt.{key}"), a))
    };
    match &c.adapt {
        AdaptCfg::None => {}
        AdaptCfg::Patent { thresholds, ptimes } => {
            let t = thresholds.clone().unwrap_or_default();
            if let Some(pt) = ptimes {
                for (i, d) in pt.iter().enumerate() {
                    check(&format!("ptimes[{i}]"), *d)?;
                }
                if pt.len() != t.len() + 1 {
                    return Err(cx.err(&format!("{p}.adapt.ptimes"), format!("one ptime more than thresholds ({} ptimes for {} thresholds)", t.len() + 1, t.len())));
                }
                if pt.windows(2).any(|w| w[0] > w[1]) {
                    return Err(cx.err(&format!("{p}.adapt.ptimes"), "ptimes in ascending order"));
                }
            } else if thresholds.is_some() || super::build::patent_table(k).is_none() {
                return Err(cx.err(&format!("{p}.adapt.ptimes"), format!("a ptime table: seed 001 Table 3 covers G.711 and G.729 only, {} needs ptimes = [...] and thresholds = [...]", k.name)));
            }
            for (i, w) in t.windows(2).enumerate() {
                if w[0] >= w[1] {
                    return Err(cx.err(&format!("{p}.adapt.thresholds[{}]", i + 1), format!("thresholds in increasing order (more than {})", w[0])));
                }
            }
            if let Some(i) = t.iter().position(|x| !(0.0..=100.0).contains(x)) {
                return Err(cx.err(&format!("{p}.adapt.thresholds[{i}]"), "a loss percentage between 0 and 100"));
            }
        }
        AdaptCfg::Busse1996 { lambda_u, lambda_c, min_ptime, max_ptime, .. } => {
            cx.order(&format!("{p}.adapt"), ("lambda_u", *lambda_u), ("lambda_c", *lambda_c), true, ("a loss percentage", |x: f64| format!("{x}")))?;
            let (lo, hi) = super::build::busse_range(k, *min_ptime, *max_ptime);
            if min_ptime.is_some() {
                check("min_ptime", lo)?;
            }
            if max_ptime.is_some() {
                check("max_ptime", hi)?;
            }
            cx.order(&format!("{p}.adapt"), ("min_ptime", lo), ("max_ptime", hi), true, ("a duration", dur))?;
            if ptime < lo || ptime > hi {
                return Err(cx.err(&format!("{p}.ptime"), format!("a ptime within adapt's range {} to {}", dur(lo), dur(hi))));
            }
        }
        AdaptCfg::Avoip { min_rate, max_rate, start_rate, max_loss, min_loss, .. } => {
            if cx.given(&format!("{p}.ptime")) {
                return Err(cx.err(&format!("{p}.ptime"), "no ptime with adapt = { kind = \"avoip\" }: it sends a packet every adapt.interval (default 125ms)"));
            }
            if c.bitrate.is_some() {
                return Err(cx.err(&format!("{p}.bitrate"), "no bitrate with adapt = { kind = \"avoip\" }: the adaptation sets the rate (adapt.start_rate, adapt.interval)"));
            }
            let kbps = |x: u64| format!("{}kbps", x as f64 / 1e3);
            cx.order(&format!("{p}.adapt"), ("min_rate", *min_rate), ("max_rate", *max_rate), true, ("a rate", kbps))?;
            if let Some(r) = start_rate {
                if r < min_rate || r > max_rate {
                    return Err(cx.err(&format!("{p}.adapt.start_rate"), format!("a rate from min_rate to max_rate ({} to {})", kbps(*min_rate), kbps(*max_rate))));
                }
            }
            for (key, x) in [("max_loss", max_loss), ("min_loss", min_loss)] {
                if *x > 100.0 {
                    return Err(cx.err(&format!("{p}.adapt.{key}"), "a loss percentage between 0 and 100"));
                }
            }
        }
        AdaptCfg::TfrcCodec { modes, .. } => {
            use super::TransportCfg;
            let rate_based = match &c.transport {
                TransportCfg::Dccp(d) => d.ccid != Some(2),
                TransportCfg::Tfrc(_) => true,
                _ => false,
            };
            if !rate_based {
                return Err(cx.err(&format!("{p}.transport"), "a TFRC transport for adapt = { kind = \"tfrc-codec\" }: { kind = \"dccp\", ccid = 3 } (or 4), or { kind = \"tfrc\" }"));
            }
            mode_list(cx, p, c, k, modes, "tfrc-codec")?;
        }
        AdaptCfg::CodecMode { modes, lambda_u, lambda_c, .. } => {
            mode_list(cx, p, c, k, modes, "codec-mode")?;
            cx.order(&format!("{p}.adapt"), ("lambda_u", *lambda_u), ("lambda_c", *lambda_c), true, ("a loss percentage", |x: f64| format!("{x}")))?;
        }
    }
    Ok(())
}

/// A mode-switching adaptation's codec and `modes`: a multi-rate codec,
/// modes of its family including the codec itself, and no `bitrate`.
fn mode_list(cx: &Ctx, p: &str, c: &CallGroupCfg, k: &codec::Codec, modes: &Option<Vec<String>>, kind: &str) -> R<()> {
    if c.bitrate.is_some() {
        return Err(cx.err(&format!("{p}.bitrate"), format!("no bitrate with adapt = {{ kind = \"{kind}\" }}: the codec's modes set the rate")));
    }
    let fams = codec::MODE_FAMILIES.map(|f| format!("{f}-…")).join(", ");
    match super::build::mode_ladder(k, modes.as_deref()) {
        Err(usize::MAX) => Err(cx.err(&format!("{p}.codec"), format!("a multi-rate codec for adapt = {{ kind = \"{kind}\" }}: {fams}"))),
        Err(i) => {
            let all: Vec<&str> = codec::modes(k).iter().map(|m| m.name).collect();
            Err(cx.err(&format!("{p}.adapt.modes[{i}]"), format!("a mode of the call's codec family: {}", all.join(", "))))
        }
        Ok(v) if !v.iter().any(|m| m.name == k.name) => {
            Err(cx.err(&format!("{p}.adapt.modes"), format!("a list including the call's codec {} (calls start in it)", k.name)))
        }
        Ok(_) => Ok(()),
    }
}
