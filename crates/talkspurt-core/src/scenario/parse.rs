//! Scenario files (TOML, or JSON from the Python front end) → [`Scenario`].
//!
//! A small path-tracking reader over `serde_json::Value` rather than serde
//! derive, so that every error names the full key path
//! (`calls[1].transport.send_buffer`), the value as written, and what is
//! allowed. Each table first checks its keys (a typo is reported as an
//! unknown key, with a suggestion, before any "missing" error), then reads
//! them. `to_json` writes the normalized scenario back in the same format;
//! `from_value(&to_json(s)) == s`. docs/scenario.md is the reference.
//! `playout`, `advantage` and `[analysis]` are read in parse_playout.rs.

use serde_json::{Map, Value};

use super::error::ScenarioError;
use super::model::*;
use super::units::{self, MAX_PACKET_BYTES, MAX_QUEUE_PACKETS};
use crate::time::SimDuration;
use crate::voice::codec;

#[path = "parse_json.rs"]
mod json_out;
#[path = "parse_playout.rs"]
mod playout;
#[path = "parse_tcp.rs"]
mod tcp;

pub use json_out::to_json;

type R<T> = Result<T, ScenarioError>;

/// Largest `count` of one call or traffic group.
pub const MAX_GROUP_COUNT: u64 = 100_000;

/// Parses and validates a TOML scenario file.
pub fn from_toml_str(s: &str) -> R<Scenario> {
    let t: toml::Value = toml::from_str(s).map_err(|e| {
        let at = e.span().map(|sp| {
            let before = &s[..sp.start.min(s.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let text = s.lines().nth(line - 1).unwrap_or("").trim();
            format!(" at line {line}, column {col} (`{text}`)")
        });
        let msg = e.message().trim().replace('\n', " ");
        ScenarioError::new(
            "",
            format!("invalid TOML{}: {msg}", at.unwrap_or_default()),
            "a valid TOML document",
        )
    })?;
    finite_floats(&t, "")?;
    let v = serde_json::to_value(&t)
        .map_err(|e| ScenarioError::new("", format!("unreadable TOML: {e}"), "a valid TOML document"))?;
    from_value(&v)
}

/// Rejects TOML's `nan` and `inf`, as the Python front end does: JSON has no
/// such numbers; converted, they would become null, i.e. "not given", and an
/// optional key would silently take its default.
fn finite_floats(v: &toml::Value, path: &str) -> R<()> {
    match v {
        toml::Value::Float(x) if !x.is_finite() => {
            let text = if x.is_nan() { "nan" } else if *x > 0.0 { "inf" } else { "-inf" };
            Err(ScenarioError::new(path, text, "a finite number"))
        }
        toml::Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, x)| finite_floats(x, &format!("{path}[{i}]")))
        }
        toml::Value::Table(t) => t.iter().try_for_each(|(k, x)| finite_floats(x, &join(path, k))),
        _ => Ok(()),
    }
}

/// Parses and validates a scenario given as JSON (the Python front end's dicts).
pub fn from_json_str(s: &str) -> R<Scenario> {
    let v: Value = serde_json::from_str(s)
        .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}"), "a valid JSON object"))?;
    from_value(&v)
}

/// Validates a scenario document (TOML or JSON already parsed to a `Value`).
pub fn from_value(v: &Value) -> R<Scenario> {
    let root = Node { v, path: String::new() }
        .table("a scenario table with [run], [[links]] and [[calls]] or [[traffic]]")?;
    root.only(&["run", "links", "calls", "traffic", "analysis"], "")?;
    let run = run(&root.req("run", "a [run] table, e.g. duration = \"60s\"")?)?;

    const LINKS: &str = "an array of [[links]] tables (at least one)";
    let link_nodes = root.req("links", LINKS)?.array(LINKS)?;
    if link_nodes.is_empty() {
        return Err(root.req("links", LINKS)?.err(LINKS));
    }
    let mut links = Vec::new();
    for n in &link_nodes {
        let l = link(n, &links)?;
        links.push(l);
    }
    let mut nodes: Vec<&str> = Vec::new();
    for l in &links {
        for name in [&l.a, &l.b] {
            if !nodes.contains(&name.as_str()) {
                nodes.push(name);
            }
        }
    }

    let groups = |key: &str| -> R<Vec<Node<'_>>> {
        let allowed = format!("an array of [[{key}]] tables");
        root.opt(key).map_or(Ok(Vec::new()), |n| n.array(&allowed))
    };
    let call_nodes = groups("calls")?;
    let calls = call_nodes.iter().map(|n| call(n, &nodes)).collect::<R<Vec<_>>>()?;
    // Results name a call's group by its label, and rescoring finds the
    // group by it: two groups must not share one (explicit or "calls[i]").
    let labels: Vec<String> =
        calls.iter().enumerate().map(|(g, c)| group_label(&c.label, "calls", g)).collect();
    for (g, l) in labels.iter().enumerate() {
        if labels[..g].contains(l) {
            let label_node = call_nodes[g].table("").ok().and_then(|t| t.node("label"));
            let n = label_node.unwrap_or_else(|| call_nodes[g].clone());
            return Err(n.err("a label no other [[calls]] group has (results name groups by label)"));
        }
    }
    let traffic = groups("traffic")?.iter().map(|n| traffic(n, &nodes)).collect::<R<Vec<_>>>()?;
    if calls.is_empty() && traffic.is_empty() {
        let value = root.opt("calls").map_or("(missing)".into(), |n| render(n.v));
        return Err(ScenarioError::new("calls", value, "at least one [[calls]] or [[traffic]] group"));
    }
    let analysis = root.opt("analysis").map_or(Ok(AnalysisCfg::default()), |n| playout::analysis(&n))?;
    Ok(Scenario { run, links, calls, traffic, analysis })
}

// ---------------------------------------------------------------------------
// The reader: a value and its key path.

#[derive(Clone)]
struct Node<'a> {
    v: &'a Value,
    path: String,
}

/// A table whose keys have been (or will be) checked with `only`.
struct Table<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

fn render(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(77).collect::<String>())
    } else {
        s
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'a> Node<'a> {
    fn err(&self, allowed: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.path.clone(), render(self.v), allowed)
    }

    fn table(&self, allowed: &str) -> R<Table<'a>> {
        match self.v {
            Value::Object(map) => Ok(Table { map, path: self.path.clone() }),
            _ => Err(self.err(allowed)),
        }
    }

    fn array(&self, allowed: &str) -> R<Vec<Node<'a>>> {
        match self.v {
            Value::Array(items) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, v)| Node { v, path: format!("{}[{i}]", self.path) })
                .collect()),
            _ => Err(self.err(allowed)),
        }
    }

    fn str(&self, allowed: &str) -> R<&'a str> {
        self.v.as_str().ok_or_else(|| self.err(allowed))
    }

    /// A non-empty string (names, labels).
    fn name(&self, allowed: &str) -> R<String> {
        match self.v.as_str() {
            Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
            _ => Err(self.err(allowed)),
        }
    }

    fn bool(&self) -> R<bool> {
        self.v.as_bool().ok_or_else(|| self.err("true or false"))
    }

    /// An integer in `[lo, hi]`; floats (even `2.0`) and strings are errors.
    fn int(&self, lo: u64, hi: u64, allowed: &str) -> R<u64> {
        match self.v.as_u64() {
            Some(n) if (lo..=hi).contains(&n) => Ok(n),
            _ => Err(self.err(allowed)),
        }
    }

    /// A finite number accepted by `ok`.
    fn num(&self, ok: impl Fn(f64) -> bool, allowed: &str) -> R<f64> {
        match self.v.as_f64() {
            Some(x) if x.is_finite() && ok(x) => Ok(x),
            _ => Err(self.err(allowed)),
        }
    }

    fn unit<T>(&self, form: &str, parse: impl Fn(&str) -> Result<T, String>) -> R<T> {
        match self.v {
            Value::String(s) => parse(s).map_err(|a| self.err(a)),
            _ => Err(self.err(form)),
        }
    }

    fn duration(&self) -> R<SimDuration> {
        self.unit(units::DURATION_ALLOWED, units::parse_duration)
    }

    fn positive_duration(&self) -> R<SimDuration> {
        let d = self.duration()?;
        if d == SimDuration::ZERO {
            return Err(self.err("a positive duration, e.g. \"20ms\""));
        }
        Ok(d)
    }

    fn rate(&self) -> R<u64> {
        self.unit(units::RATE_ALLOWED, units::parse_rate)
    }

    fn bytes(&self, min: u64, max: u64, what: &str) -> R<u64> {
        self.unit(units::SIZE_ALLOWED, |s| units::parse_bytes(s, min, max, what))
    }

    fn packets(&self, min: u64, max: u64, what: &str) -> R<u64> {
        self.unit(units::PACKETS_ALLOWED, |s| units::parse_packets(s, min, max, what))
    }
}

impl<'a> Table<'a> {
    fn node(&self, key: &str) -> Option<Node<'a>> {
        // JSON null (Python `None`) means "not given".
        self.map.get(key).filter(|v| !v.is_null()).map(|v| Node { v, path: join(&self.path, key) })
    }

    fn opt(&self, key: &str) -> Option<Node<'a>> {
        self.node(key)
    }

    fn req(&self, key: &str, allowed: &str) -> R<Node<'a>> {
        self.node(key).ok_or_else(|| ScenarioError::missing(join(&self.path, key), allowed))
    }

    /// Overwrites `slot` with `key`'s value when given: tables that start
    /// from a config struct's `Default` override only what is written.
    fn set<T>(&self, key: &str, slot: &mut T, read: impl Fn(&Node<'a>) -> R<T>) -> R<()> {
        if let Some(n) = self.opt(key) {
            *slot = read(&n)?;
        }
        Ok(())
    }

    /// Rejects keys outside `keys`, naming the allowed ones; `context` (e.g.
    /// ` (for kind = "udp")`) says why the set is what it is.
    fn only(&self, keys: &[&str], context: &str) -> R<()> {
        for (k, v) in self.map {
            if !keys.contains(&k.as_str()) {
                let hint = keys
                    .iter()
                    .find(|a| edit_distance(a, k) <= if a.len() > 4 { 2 } else { 1 })
                    .map(|a| format!(" (did you mean \"{a}\"?)"))
                    .unwrap_or_default();
                return Err(ScenarioError::new(
                    join(&self.path, k),
                    format!("unknown key with value {}", render(v)),
                    format!("one of the keys {}{context}{hint}", keys.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// Reads a kind selector (`kind`, `model`, `dist`) from `allowed`.
    fn kind(&self, key: &str, allowed: &[&'static str], default: Option<&'static str>) -> R<&'static str> {
        let text =
            format!("one of {}", allowed.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", "));
        let n = match (self.opt(key), default) {
            (Some(n), _) => n,
            (None, Some(d)) => return Ok(d),
            (None, None) => return Err(ScenarioError::missing(join(&self.path, key), text)),
        };
        let s = n.str(&text)?;
        allowed.iter().copied().find(|k| *k == s).ok_or_else(|| n.err(text))
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

// ---------------------------------------------------------------------------
// [run]

fn run(n: &Node) -> R<RunCfg> {
    let t = n.table("a [run] table, e.g. duration = \"60s\"")?;
    t.only(&["duration", "seed", "run_index", "drain", "trace", "series", "name"], "")?;
    let dn = t.req("duration", "a positive duration of at most 30 days, e.g. \"60s\"")?;
    let duration = dn.duration()?;
    if duration == SimDuration::ZERO {
        return Err(dn.err("a positive duration of at most 30 days, e.g. \"60s\""));
    }
    let nonneg = "a non-negative integer";
    Ok(RunCfg {
        duration,
        seed: t.opt("seed").map_or(Ok(1), |n| n.int(0, u64::MAX, nonneg))?,
        run_index: t.opt("run_index").map_or(Ok(0), |n| n.int(0, u64::MAX, nonneg))?,
        drain: t.opt("drain").map_or(Ok(SimDuration::from_secs(10)), |n| n.duration())?,
        trace: t.opt("trace").map_or(Ok(true), |n| n.bool())?,
        series: t.opt("series").map_or(Ok(false), |n| n.bool())?,
        name: t.opt("name").map(|n| n.name("a non-empty string")).transpose()?,
    })
}

// ---------------------------------------------------------------------------
// [[links]]

const CHANNEL_KEYS: &[&str] = &["rate", "delay", "queue", "loss"];
const RATE_MISSING: &str =
    "a rate with a unit, e.g. \"10Mbps\", at the link level or in both forward and reverse";

/// Channel keys as given in one table (link level or one direction).
#[derive(Default)]
struct ChannelParts {
    rate_bps: Option<u64>,
    delay: Option<SimDuration>,
    queue: Option<QueueCfg>,
    loss: Option<LossCfg>,
}

fn channel_parts(t: &Table) -> R<ChannelParts> {
    Ok(ChannelParts {
        rate_bps: t.opt("rate").map(|n| n.rate()).transpose()?,
        delay: t.opt("delay").map(|n| n.duration()).transpose()?,
        queue: t.opt("queue").map(|n| queue(&n)).transpose()?,
        loss: t.opt("loss").map(|n| loss(&n)).transpose()?,
    })
}

fn link(n: &Node, prev: &[LinkCfg]) -> R<LinkCfg> {
    let t = n.table("a [[links]] table, e.g. between = [\"a\", \"b\"], rate = \"10Mbps\"")?;
    let mut keys = vec!["between", "cost", "forward", "reverse"];
    keys.extend_from_slice(CHANNEL_KEYS);
    t.only(&keys, "")?;

    const BETWEEN: &str = "two distinct node names, e.g. [\"a\", \"b\"]";
    let bn = t.req("between", BETWEEN)?;
    let ends = bn.array(BETWEEN)?;
    if ends.len() != 2 {
        return Err(bn.err(BETWEEN));
    }
    let a = ends[0].name("a node name (a non-empty string)")?;
    let b = ends[1].name("a node name (a non-empty string)")?;
    if a == b {
        return Err(
            ends[1].err(format!("a node other than between[0] (\"{a}\"); a link joins two distinct nodes"))
        );
    }
    if let Some(i) = prev.iter().position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a)) {
        return Err(bn.err(format!(
            "a pair of nodes not already joined by links[{i}] (one [[links]] table per pair; \
             use forward/reverse for asymmetric directions)"
        )));
    }

    let both = channel_parts(&t)?;
    let dir = |key: &str| -> R<ChannelParts> {
        let Some(n) = t.opt(key) else {
            return Ok(ChannelParts::default());
        };
        let d = n.table("a table of rate, delay, queue, loss overriding the link level")?;
        d.only(CHANNEL_KEYS, "")?;
        channel_parts(&d)
    };
    let (fwd, rev) = (dir("forward")?, dir("reverse")?);
    let merge = |d: ChannelParts, name: &str, other_has_rate: bool| -> R<ChannelCfg> {
        let rate_bps = match d.rate_bps.or(both.rate_bps) {
            Some(r) => r,
            None if other_has_rate => {
                return Err(ScenarioError::missing(join(&t.path, &format!("{name}.rate")), RATE_MISSING))
            }
            None => return Err(ScenarioError::missing(join(&t.path, "rate"), RATE_MISSING)),
        };
        Ok(ChannelCfg {
            rate_bps,
            delay: d.delay.or(both.delay).unwrap_or(SimDuration::ZERO),
            queue: d.queue.or_else(|| both.queue.clone()).unwrap_or(DEFAULT_QUEUE),
            loss: d.loss.or_else(|| both.loss.clone()).unwrap_or(LossCfg::None),
        })
    };
    let (fwd_rate, rev_rate) = (fwd.rate_bps.is_some(), rev.rate_bps.is_some());
    let forward = merge(fwd, "forward", rev_rate)?;
    let reverse = merge(rev, "reverse", fwd_rate)?;
    let cost =
        t.opt("cost").map_or(Ok(1), |n| n.int(1, 1_000_000, "an integer between 1 and 1000000"))? as u32;
    Ok(LinkCfg { a, b, forward, reverse, cost })
}

const DEFAULT_QUEUE: QueueCfg = QueueCfg::DropTail { limit: QueueLimit::Packets(50) };

fn queue(n: &Node) -> R<QueueCfg> {
    let t = n.table("a queue table, e.g. { kind = \"droptail\", limit = \"50p\" }")?;
    t.kind("kind", &["droptail"], Some("droptail"))?;
    t.only(&["kind", "limit"], " (for kind = \"droptail\")")?;
    let limit = match t.opt("limit") {
        Some(n) => n.unit(units::QUEUE_LIMIT_ALLOWED, units::parse_queue_limit)?,
        None => QueueLimit::Packets(50),
    };
    Ok(QueueCfg::DropTail { limit })
}

fn loss(n: &Node) -> R<LossCfg> {
    let t = n.table("a loss table, e.g. { kind = \"bernoulli\", p = 0.01 }")?;
    match t.kind("kind", &["none", "bernoulli"], None)? {
        "none" => {
            t.only(&["kind"], " (for kind = \"none\")")?;
            Ok(LossCfg::None)
        }
        _ => {
            t.only(&["kind", "p"], " (for kind = \"bernoulli\")")?;
            const P: &str = "a probability p with 0 <= p < 1, e.g. 0.01";
            let p = t.req("p", P)?.num(|p| (0.0..1.0).contains(&p), P)?;
            Ok(LossCfg::Bernoulli { p })
        }
    }
}

// ---------------------------------------------------------------------------
// [[calls]] and [[traffic]]: shared parts

fn count(t: &Table) -> R<u32> {
    let allowed = format!("an integer between 1 and {MAX_GROUP_COUNT}");
    Ok(t.opt("count").map_or(Ok(1), |n| n.int(1, MAX_GROUP_COUNT, &allowed))? as u32)
}

/// `from` and `to`: nodes named by some link, and different.
fn endpoints(t: &Table, nodes: &[&str]) -> R<(String, String)> {
    let known = format!("a node named in [[links]]: {}", nodes.join(", "));
    let end = |key: &str| -> R<String> {
        let n = t.req(key, &known)?;
        let s = n.str(&known)?;
        if !nodes.contains(&s) {
            return Err(n.err(known.clone()));
        }
        Ok(s.to_string())
    };
    let (from, to) = (end("from")?, end("to")?);
    if from == to {
        let n = t.req("to", "")?;
        return Err(n.err(format!("a node other than from (\"{from}\")")));
    }
    Ok((from, to))
}

const START: &str = "a start time such as \"0s\", or { kind = \"uniform\", from = \"0s\", to = \"10s\" }";

fn start(n: &Node) -> R<StartCfg> {
    match n.v {
        Value::String(_) => Ok(StartCfg::Fixed(n.duration()?)),
        Value::Object(_) => {
            let t = n.table(START)?;
            t.kind("kind", &["uniform"], None)?;
            t.only(&["kind", "from", "to"], " (for kind = \"uniform\")")?;
            let from = t.opt("from").map_or(Ok(SimDuration::ZERO), |n| n.duration())?;
            let tn = t.req("to", "a duration after from, e.g. \"10s\"")?;
            let to = tn.duration()?;
            if to <= from {
                return Err(tn.err(format!("a duration after from ({})", units::format_duration(from))));
            }
            Ok(StartCfg::Uniform { from, to })
        }
        _ => Err(n.err(START)),
    }
}

fn label(t: &Table) -> R<Option<String>> {
    t.opt("label").map(|n| n.name("a non-empty string")).transpose()
}

/// A duration distribution given as a table `{ dist, mean, shape }`.
fn dist_table(n: &Node, default_mean: SimDuration) -> R<DurationDist> {
    let t = n.table("a distribution table, e.g. { dist = \"exponential\", mean = \"2s\" }")?;
    let d = t.kind("dist", &["exponential", "pareto", "weibull", "constant"], Some("exponential"))?;
    let with_shape = matches!(d, "pareto" | "weibull");
    let keys: &[&str] = if with_shape { &["dist", "mean", "shape"] } else { &["dist", "mean"] };
    t.only(keys, &format!(" (for dist = \"{d}\")"))?;
    let mean = t.opt("mean").map_or(Ok(default_mean), |n| n.positive_duration())?;
    let shape = match t.opt("shape") {
        Some(n) => shape(&n, d)?,
        None => default_shape(d),
    };
    Ok(make_dist(d, mean, shape))
}

fn default_shape(dist: &str) -> f64 {
    if dist == "pareto" {
        1.5
    } else {
        1.0
    }
}

fn shape(n: &Node, dist: &str) -> R<f64> {
    if dist == "pareto" {
        n.num(|k| k > 1.0, "a Pareto shape > 1 (finite mean), e.g. 1.5")
    } else {
        n.num(|k| k > 0.0, "a Weibull shape > 0, e.g. 1.0")
    }
}

fn make_dist(dist: &str, mean: SimDuration, shape: f64) -> DurationDist {
    match dist {
        "constant" => DurationDist::Constant { mean },
        "pareto" => DurationDist::Pareto { shape, mean },
        "weibull" => DurationDist::Weibull { shape, mean },
        _ => DurationDist::Exponential { mean },
    }
}

// ---------------------------------------------------------------------------
// [[calls]]

const CALL_KEYS: &[&str] = &[
    "count",
    "from",
    "to",
    "codec",
    "ptime",
    "overhead",
    "speech",
    "vad",
    "transport",
    "playout",
    "advantage",
    "start",
    "stagger",
    "length",
    "label",
];
const TALK: SimDuration = SimDuration(1_000_000_000);
const SILENCE: SimDuration = SimDuration(1_500_000_000);

fn call(n: &Node, nodes: &[&str]) -> R<CallGroupCfg> {
    let t = n.table("a [[calls]] table, e.g. from = \"a\", to = \"b\", codec = \"G.711\"")?;
    t.only(CALL_KEYS, "")?;
    let count = count(&t)?;
    let (from, to) = endpoints(&t, nodes)?;
    let codecs = format!("one of the codecs {}", codec::names().join(", "));
    let cn = t.req("codec", &codecs)?;
    let name = cn.str(&codecs)?;
    let c = codec::lookup(name).ok_or_else(|| {
        let close = codec::names().into_iter().find(|k| {
            k.eq_ignore_ascii_case(name)
                || edit_distance(&k.to_ascii_lowercase(), &name.to_ascii_lowercase()) <= 1
        });
        cn.err(match close {
            Some(k) => format!("{codecs} (did you mean \"{k}\"?)"),
            None => codecs.clone(),
        })
    })?;
    let ptime = match t.opt("ptime") {
        Some(n) => {
            let p = n.duration()?;
            codec::check_ptime(c, p).map_err(|a| n.err(a))?;
            p
        }
        None => codec::default_ptime(c),
    };
    let overhead_bytes = match t.opt("overhead") {
        Some(n) => n.bytes(0, MAX_PACKET_BYTES, "a header overhead")? as u32,
        None => 40,
    };
    let speech = match t.opt("speech") {
        Some(n) => speech(&n)?,
        None => SpeechCfg::OnOff {
            talk: DurationDist::Exponential { mean: TALK },
            silence: DurationDist::Exponential { mean: SILENCE },
        },
    };
    Ok(CallGroupCfg {
        count,
        from,
        to,
        codec: c.name.to_string(),
        ptime: Some(ptime),
        overhead_bytes,
        speech,
        vad: t.opt("vad").map_or(Ok(true), |n| n.bool())?,
        transport: t.opt("transport").map_or(Ok(TransportCfg::Udp { send_buffer: 5 }), |n| transport(&n))?,
        playout: t.opt("playout").map_or(Ok(playout::default_playout()), |n| playout::parse(&n, ptime))?,
        advantage: t.opt("advantage").map_or(Ok(0.0), |n| playout::advantage(&n))?,
        start: t.opt("start").map_or(Ok(StartCfg::Fixed(SimDuration::ZERO)), |n| start(&n))?,
        stagger: t.opt("stagger").map_or(Ok(SimDuration::ZERO), |n| n.duration())?,
        length: t.opt("length").map(|n| n.positive_duration()).transpose()?,
        label: label(&t)?,
    })
}

const SPEECH_MODELS: &[&str] = &["continuous", "exponential", "weibull", "pareto", "constant", "onoff"];

fn speech(n: &Node) -> R<SpeechCfg> {
    let t = n.table("a speech table, e.g. { model = \"exponential\", talk = \"1s\", silence = \"1.5s\" }")?;
    let model = t.kind("model", SPEECH_MODELS, Some("exponential"))?;
    let context = format!(" (for model = \"{model}\")");
    match model {
        "continuous" => {
            t.only(&["model"], &context)?;
            Ok(SpeechCfg::Continuous)
        }
        "onoff" => {
            t.only(&["model", "talk", "silence"], &context)?;
            let side = |key, mean| {
                t.opt(key).map_or(Ok(DurationDist::Exponential { mean }), |n| dist_table(&n, mean))
            };
            Ok(SpeechCfg::OnOff { talk: side("talk", TALK)?, silence: side("silence", SILENCE)? })
        }
        m => {
            let with_shape = matches!(m, "weibull" | "pareto");
            let keys: &[&str] = if with_shape {
                &["model", "talk", "silence", "shape", "talk_shape", "silence_shape"]
            } else {
                &["model", "talk", "silence"]
            };
            t.only(keys, &context)?;
            let talk = t.opt("talk").map_or(Ok(TALK), |n| n.positive_duration())?;
            let silence = t.opt("silence").map_or(Ok(SILENCE), |n| n.positive_duration())?;
            let shape_of = |key: &str, default: f64| t.opt(key).map_or(Ok(default), |n| shape(&n, m));
            let k = shape_of("shape", default_shape(m))?;
            let (tk, sk) = (shape_of("talk_shape", k)?, shape_of("silence_shape", k)?);
            Ok(SpeechCfg::OnOff { talk: make_dist(m, talk, tk), silence: make_dist(m, silence, sk) })
        }
    }
}

fn transport(n: &Node) -> R<TransportCfg> {
    let t = n.table("a transport table, e.g. { kind = \"udp\", send_buffer = \"5p\" }")?;
    let kind = t.kind("kind", &["udp", "echo", "tcp"], Some("udp"))?;
    if kind == "tcp" {
        return Ok(TransportCfg::Tcp(tcp::tcp(&t)?));
    }
    let buffer = || -> R<u32> {
        Ok(t.opt("send_buffer").map_or(Ok(5), |n| n.packets(1, MAX_QUEUE_PACKETS, "a send buffer"))? as u32)
    };
    if kind == "udp" {
        t.only(&["kind", "send_buffer"], " (for kind = \"udp\")")?;
        return Ok(TransportCfg::Udp { send_buffer: buffer()? });
    }
    t.only(&["kind", "send_buffer", "ack"], " (for kind = \"echo\")")?;
    let ack_bytes = t.opt("ack").map_or(Ok(40), |n| n.bytes(1, MAX_PACKET_BYTES, "an ack size"))? as u32;
    Ok(TransportCfg::Echo { send_buffer: buffer()?, ack_bytes })
}

// ---------------------------------------------------------------------------
// [[traffic]]

const ON_OFF: SimDuration = SimDuration(2_000_000_000);

fn traffic(n: &Node, nodes: &[&str]) -> R<TrafficCfg> {
    let t = n.table("a [[traffic]] table, e.g. from = \"a\", to = \"b\", kind = \"cbr\", rate = \"1Mbps\", packet = \"1000B\"")?;
    let kind = t.kind("kind", &["cbr", "poisson", "onoff", "bulk", "transfer"], None)?;
    let stream = matches!(kind, "bulk" | "transfer");
    let mut keys = vec!["count", "from", "to", "kind", "transport", "start", "stagger", "stop", "label"];
    match kind {
        "onoff" => keys.extend(["rate", "packet", "on", "off"]),
        "bulk" => keys.extend(["on", "off"]),
        "transfer" => keys.push("size"),
        _ => keys.extend(["rate", "packet"]),
    }
    t.only(&keys, &format!(" (for kind = \"{kind}\")"))?;
    let count = count(&t)?;
    let (from, to) = endpoints(&t, nodes)?;
    let transport = t.opt("transport").map_or(Ok(TransportCfg::Udp { send_buffer: 1 }), |n| transport(&n))?;
    if stream && !matches!(transport, TransportCfg::Tcp(_)) {
        let n = t.opt("transport").unwrap_or_else(|| t.req("kind", "").unwrap());
        return Err(n.err(format!("a byte-stream transport for kind = \"{kind}\": {{ kind = \"tcp\", ... }}")));
    }
    let side = |key| t.opt(key).map_or(Ok(DurationDist::Exponential { mean: ON_OFF }), |n| dist_table(&n, ON_OFF));
    let rate_bps = if stream { 0 } else { t.req("rate", units::RATE_ALLOWED)?.rate()? };
    let kind = match kind {
        "cbr" => TrafficKind::Cbr { rate_bps },
        "poisson" => TrafficKind::Poisson { rate_bps },
        "bulk" => match (t.opt("on"), t.opt("off")) {
            (None, None) => TrafficKind::Bulk { on_off: None },
            (Some(_), Some(_)) => TrafficKind::Bulk { on_off: Some((side("on")?, side("off")?)) },
            (Some(n), None) | (None, Some(n)) => return Err(n.err("both on and off, or neither (an always-greedy source)")),
        },
        "transfer" => TrafficKind::Transfer { size_bytes: t.req("size", "a transfer size, e.g. \"10MB\"")?.bytes(1, 1 << 50, "a transfer size")? },
        _ => {
            let side = |key| {
                t.opt(key).map_or(Ok(DurationDist::Exponential { mean: ON_OFF }), |n| dist_table(&n, ON_OFF))
            };
            TrafficKind::OnOff { rate_bps, on: side("on")?, off: side("off")? }
        }
    };
    const PACKET: &str = "a packet size such as \"1000B\", or { kind = \"exponential\", mean = \"500B\" }";
    // A byte stream segments by its MSS; its packet field is unused.
    let packet = if stream { SizeDist::Fixed { bytes: 1500 } } else { packet(&t.req("packet", PACKET)?, PACKET)? };
    let start = t.opt("start").map_or(Ok(StartCfg::Fixed(SimDuration::ZERO)), |n| start(&n))?;
    let stop = match t.opt("stop") {
        None => None,
        Some(n) => {
            let s = n.positive_duration()?;
            if let StartCfg::Fixed(at) = start {
                if s <= at {
                    return Err(n.err(format!("a stop time after start ({})", units::format_duration(at))));
                }
            }
            Some(s)
        }
    };
    Ok(TrafficCfg {
        transport,
        count,
        from,
        to,
        kind,
        packet,
        start,
        stagger: t.opt("stagger").map_or(Ok(SimDuration::ZERO), |n| n.duration())?,
        stop,
        label: label(&t)?,
    })
}


/// A packet source's IP packet size: fixed or exponential.
fn packet(pn: &Node, allowed: &str) -> R<SizeDist> {
    Ok(match pn.v {
        Value::String(_) => SizeDist::Fixed { bytes: pn.bytes(1, MAX_PACKET_BYTES, "a packet size")? as u32 },
        Value::Object(_) => {
            let p = pn.table(allowed)?;
            p.kind("kind", &["exponential"], None)?;
            p.only(&["kind", "mean"], " (for kind = \"exponential\")")?;
            let mn = p.req("mean", "a mean packet size, e.g. \"500B\"")?;
            let mean_bytes = mn.unit(units::SIZE_ALLOWED, |s| {
                units::parse_bytes_f64(s, 1.0, MAX_PACKET_BYTES as f64, "a mean packet size")
            })?;
            SizeDist::Exponential { mean_bytes }
        }
        _ => return Err(pn.err(allowed)),
    })
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "parse_playout_tests.rs"]
mod playout_tests;
