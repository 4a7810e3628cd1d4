//! Scenario files (TOML, or JSON from the Python front end) → [`Scenario`].
//!
//! A small path-tracking reader over `serde_json::Value` rather than serde
//! derive, so that every error names the full key path
//! (`calls[1].transport.send_buffer`), the value as written, and what is
//! allowed. Each table first checks its keys (a typo is reported as an
//! unknown key, with a suggestion, before any "missing" error), then reads
//! them. `to_json` writes the normalized scenario back in the same format;
//! `from_value(&to_json(s)) == s`. docs/scenario.md is the reference.

use serde_json::{json, Map, Value};

use super::error::ScenarioError;
use super::model::*;
use super::units::{self, MAX_PACKET_BYTES, MAX_QUEUE_PACKETS};
use crate::time::SimDuration;
use crate::voice::codec;

type R<T> = Result<T, ScenarioError>;

/// Largest `count` of one call or traffic group.
pub const MAX_GROUP_COUNT: u64 = 100_000;

/// Parses and validates a TOML scenario file.
pub fn from_toml_str(s: &str) -> R<Scenario> {
    let v: Value = toml::from_str(s).map_err(|e| {
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
    from_value(&v)
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
    root.only(&["run", "links", "calls", "traffic"], "")?;
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
    let calls = groups("calls")?.iter().map(|n| call(n, &nodes)).collect::<R<Vec<_>>>()?;
    let traffic = groups("traffic")?.iter().map(|n| traffic(n, &nodes)).collect::<R<Vec<_>>>()?;
    if calls.is_empty() && traffic.is_empty() {
        let value = root.opt("calls").map_or("(missing)".into(), |n| render(n.v));
        return Err(ScenarioError::new("calls", value, "at least one [[calls]] or [[traffic]] group"));
    }
    Ok(Scenario { run, links, calls, traffic })
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
        playout: t.opt("playout").map_or(Ok(PlayoutCfg::Fixed { delay: PLAYOUT_DELAY }), |n| playout(&n))?,
        start: t.opt("start").map_or(Ok(StartCfg::Fixed(SimDuration::ZERO)), |n| start(&n))?,
        stagger: t.opt("stagger").map_or(Ok(SimDuration::ZERO), |n| n.duration())?,
        length: t.opt("length").map(|n| n.positive_duration()).transpose()?,
        label: label(&t)?,
    })
}

const PLAYOUT_DELAY: SimDuration = SimDuration(150_000_000);
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
    let kind = t.kind("kind", &["udp", "echo"], Some("udp"))?;
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

fn playout(n: &Node) -> R<PlayoutCfg> {
    let t = n.table("a playout table, e.g. { kind = \"fixed\", delay = \"150ms\" }")?;
    t.kind("kind", &["fixed"], Some("fixed"))?;
    t.only(&["kind", "delay"], " (for kind = \"fixed\")")?;
    let delay = t.opt("delay").map_or(Ok(PLAYOUT_DELAY), |n| n.duration())?;
    Ok(PlayoutCfg::Fixed { delay })
}

// ---------------------------------------------------------------------------
// [[traffic]]

const ON_OFF: SimDuration = SimDuration(2_000_000_000);

fn traffic(n: &Node, nodes: &[&str]) -> R<TrafficCfg> {
    let t = n.table("a [[traffic]] table, e.g. from = \"a\", to = \"b\", kind = \"cbr\", rate = \"1Mbps\", packet = \"1000B\"")?;
    let kind = t.kind("kind", &["cbr", "poisson", "onoff"], None)?;
    let mut keys = vec!["count", "from", "to", "kind", "rate", "packet", "start", "stagger", "stop", "label"];
    if kind == "onoff" {
        keys.extend(["on", "off"]);
    }
    t.only(&keys, &format!(" (for kind = \"{kind}\")"))?;
    let count = count(&t)?;
    let (from, to) = endpoints(&t, nodes)?;
    let rate_bps = t.req("rate", units::RATE_ALLOWED)?.rate()?;
    let kind = match kind {
        "cbr" => TrafficKind::Cbr { rate_bps },
        "poisson" => TrafficKind::Poisson { rate_bps },
        _ => {
            let side = |key| {
                t.opt(key).map_or(Ok(DurationDist::Exponential { mean: ON_OFF }), |n| dist_table(&n, ON_OFF))
            };
            TrafficKind::OnOff { rate_bps, on: side("on")?, off: side("off")? }
        }
    };
    const PACKET: &str = "a packet size such as \"1000B\", or { kind = \"exponential\", mean = \"500B\" }";
    let pn = t.req("packet", PACKET)?;
    let packet = match pn.v {
        Value::String(_) => SizeDist::Fixed { bytes: pn.bytes(1, MAX_PACKET_BYTES, "a packet size")? as u32 },
        Value::Object(_) => {
            let p = pn.table(PACKET)?;
            p.kind("kind", &["exponential"], None)?;
            p.only(&["kind", "mean"], " (for kind = \"exponential\")")?;
            let mn = p.req("mean", "a mean packet size, e.g. \"500B\"")?;
            let mean_bytes = mn.unit(units::SIZE_ALLOWED, |s| {
                units::parse_bytes_f64(s, 1.0, MAX_PACKET_BYTES as f64, "a mean packet size")
            })?;
            SizeDist::Exponential { mean_bytes }
        }
        _ => return Err(pn.err(PACKET)),
    };
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

// ---------------------------------------------------------------------------
// Normalized output ("scenario as run").

/// The scenario with every default filled in, in the file format (units
/// written out). `from_value(&to_json(s)) == s` for every parsed `s`.
pub fn to_json(s: &Scenario) -> Value {
    let d = units::format_duration;
    let mut run = json!({
        "duration": d(s.run.duration),
        "seed": s.run.seed,
        "run_index": s.run.run_index,
        "drain": d(s.run.drain),
        "trace": s.run.trace,
        "series": s.run.series,
    });
    if let Some(name) = &s.run.name {
        run["name"] = json!(name);
    }
    json!({
        "run": run,
        "links": s.links.iter().map(link_json).collect::<Vec<_>>(),
        "calls": s.calls.iter().map(call_json).collect::<Vec<_>>(),
        "traffic": s.traffic.iter().map(traffic_json).collect::<Vec<_>>(),
    })
}

fn channel_json(c: &ChannelCfg) -> Map<String, Value> {
    let QueueCfg::DropTail { limit } = c.queue;
    let loss = match c.loss {
        LossCfg::None => json!({ "kind": "none" }),
        LossCfg::Bernoulli { p } => json!({ "kind": "bernoulli", "p": p }),
    };
    let v = json!({
        "rate": units::format_rate(c.rate_bps),
        "delay": units::format_duration(c.delay),
        "queue": { "kind": "droptail", "limit": units::format_queue_limit(limit) },
        "loss": loss,
    });
    v.as_object().cloned().unwrap_or_default()
}

/// Symmetric links are written at the link level, others per direction.
fn link_json(l: &LinkCfg) -> Value {
    let mut m = Map::new();
    m.insert("between".into(), json!([l.a, l.b]));
    if l.forward == l.reverse {
        m.extend(channel_json(&l.forward));
    } else {
        m.insert("forward".into(), Value::Object(channel_json(&l.forward)));
        m.insert("reverse".into(), Value::Object(channel_json(&l.reverse)));
    }
    m.insert("cost".into(), json!(l.cost));
    Value::Object(m)
}

fn dist_name(d: &DurationDist) -> (&'static str, SimDuration, Option<f64>) {
    match *d {
        DurationDist::Constant { mean } => ("constant", mean, None),
        DurationDist::Exponential { mean } => ("exponential", mean, None),
        DurationDist::Weibull { shape, mean } => ("weibull", mean, Some(shape)),
        DurationDist::Pareto { shape, mean } => ("pareto", mean, Some(shape)),
    }
}

fn dist_json(d: &DurationDist) -> Value {
    let (name, mean, shape) = dist_name(d);
    let mut v = json!({ "dist": name, "mean": units::format_duration(mean) });
    if let Some(k) = shape {
        v["shape"] = json!(k);
    }
    v
}

/// Same-family talk/silence use the named model; mixed ones `model = "onoff"`.
fn speech_json(s: &SpeechCfg) -> Value {
    let SpeechCfg::OnOff { talk, silence } = s else {
        return json!({ "model": "continuous" });
    };
    let ((tn, tm, tk), (sn, sm, sk)) = (dist_name(talk), dist_name(silence));
    if tn != sn {
        return json!({ "model": "onoff", "talk": dist_json(talk), "silence": dist_json(silence) });
    }
    let d = units::format_duration;
    let mut v = json!({ "model": tn, "talk": d(tm), "silence": d(sm) });
    match (tk, sk) {
        (Some(a), Some(b)) if a == b => v["shape"] = json!(a),
        (Some(a), Some(b)) => {
            v["talk_shape"] = json!(a);
            v["silence_shape"] = json!(b);
        }
        _ => {}
    }
    v
}

fn start_json(s: &StartCfg) -> Value {
    match *s {
        StartCfg::Fixed(at) => json!(units::format_duration(at)),
        StartCfg::Uniform { from, to } => json!({
            "kind": "uniform",
            "from": units::format_duration(from),
            "to": units::format_duration(to),
        }),
    }
}

fn call_json(c: &CallGroupCfg) -> Value {
    let d = units::format_duration;
    let transport = match c.transport {
        TransportCfg::Udp { send_buffer } => {
            json!({ "kind": "udp", "send_buffer": units::format_packets(send_buffer as u64) })
        }
        TransportCfg::Echo { send_buffer, ack_bytes } => json!({
            "kind": "echo",
            "send_buffer": units::format_packets(send_buffer as u64),
            "ack": units::format_bytes(ack_bytes as u64),
        }),
    };
    let PlayoutCfg::Fixed { delay } = c.playout;
    let mut v = json!({
        "count": c.count,
        "from": c.from,
        "to": c.to,
        "codec": c.codec,
        "overhead": units::format_bytes(c.overhead_bytes as u64),
        "speech": speech_json(&c.speech),
        "vad": c.vad,
        "transport": transport,
        "playout": { "kind": "fixed", "delay": d(delay) },
        "start": start_json(&c.start),
        "stagger": d(c.stagger),
    });
    if let Some(p) = c.ptime {
        v["ptime"] = json!(d(p));
    }
    if let Some(l) = c.length {
        v["length"] = json!(d(l));
    }
    if let Some(l) = &c.label {
        v["label"] = json!(l);
    }
    v
}

fn traffic_json(t: &TrafficCfg) -> Value {
    let d = units::format_duration;
    let (kind, rate) = match t.kind {
        TrafficKind::Cbr { rate_bps } => ("cbr", rate_bps),
        TrafficKind::Poisson { rate_bps } => ("poisson", rate_bps),
        TrafficKind::OnOff { rate_bps, .. } => ("onoff", rate_bps),
    };
    let packet = match t.packet {
        SizeDist::Fixed { bytes } => json!(units::format_bytes(bytes as u64)),
        SizeDist::Exponential { mean_bytes } => {
            json!({ "kind": "exponential", "mean": units::format_bytes_f64(mean_bytes) })
        }
    };
    let mut v = json!({
        "count": t.count,
        "from": t.from,
        "to": t.to,
        "kind": kind,
        "rate": units::format_rate(rate),
        "packet": packet,
        "start": start_json(&t.start),
        "stagger": d(t.stagger),
    });
    if let TrafficKind::OnOff { on, off, .. } = &t.kind {
        v["on"] = dist_json(on);
        v["off"] = dist_json(off);
    }
    if let Some(s) = t.stop {
        v["stop"] = json!(d(s));
    }
    if let Some(l) = &t.label {
        v["label"] = json!(l);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimDuration {
        SimDuration::from_millis(n)
    }
    fn secs(n: u64) -> SimDuration {
        SimDuration::from_secs(n)
    }

    const FULL: &str = r#"
    [run]
    duration = "300s"
    seed = 7
    run_index = 3
    drain = "5s"
    trace = false
    series = true
    name = "dumbbell"

    [[links]]
    between = ["a", "r1"]
    rate = "100Mbps"
    delay = "1ms"

    [[links]]
    between = ["r1", "r2"]
    rate = "300kbps"
    delay = "30ms"
    queue = { kind = "droptail", limit = "50p" }
    loss = { kind = "bernoulli", p = 0.001 }
    cost = 2
    reverse = { rate = "64kb/s", queue = { limit = "64kB" }, loss = { kind = "none" } }

    [[links]]
    between = ["r2", "b"]
    rate = "1Gbps"

    [[calls]]
    count = 4
    from = "a"
    to = "b"
    codec = "G.729"
    ptime = "40ms"
    overhead = "12B"
    speech = { model = "pareto", talk = "1.2s", silence = "1.8s", shape = 1.8, silence_shape = 1.3 }
    vad = false
    transport = { kind = "echo", send_buffer = "10p", ack = "60B" }
    playout = { kind = "fixed", delay = "100ms" }
    start = { kind = "uniform", from = "1s", to = "10s" }
    stagger = "5s"
    length = "2min"
    label = "voice"

    [[traffic]]
    count = 2
    from = "b"
    to = "a"
    kind = "onoff"
    rate = "128kbps"
    packet = "1kB"
    on = { dist = "pareto", mean = "2s", shape = 1.4 }
    off = { dist = "constant", mean = "3s" }
    start = "1.5s"
    stagger = "250ms"
    stop = "200s"
    label = "cross"

    [[traffic]]
    from = "r1"
    to = "b"
    kind = "poisson"
    rate = "1.5Mbps"
    packet = { kind = "exponential", mean = "500B" }
    "#;

    fn droptail(p: u32) -> QueueCfg {
        QueueCfg::DropTail { limit: QueueLimit::Packets(p) }
    }

    fn sym(a: &str, b: &str, rate_bps: u64, delay: SimDuration) -> LinkCfg {
        let ch = ChannelCfg { rate_bps, delay, queue: droptail(50), loss: LossCfg::None };
        LinkCfg { a: a.into(), b: b.into(), forward: ch.clone(), reverse: ch, cost: 1 }
    }

    fn full_expected() -> Scenario {
        let bottleneck = ChannelCfg {
            rate_bps: 300_000,
            delay: ms(30),
            queue: droptail(50),
            loss: LossCfg::Bernoulli { p: 0.001 },
        };
        Scenario {
            run: RunCfg {
                duration: secs(300),
                seed: 7,
                run_index: 3,
                drain: secs(5),
                trace: false,
                series: true,
                name: Some("dumbbell".into()),
            },
            links: vec![
                sym("a", "r1", 100_000_000, ms(1)),
                LinkCfg {
                    a: "r1".into(),
                    b: "r2".into(),
                    forward: bottleneck.clone(),
                    reverse: ChannelCfg {
                        rate_bps: 64_000,
                        queue: QueueCfg::DropTail { limit: QueueLimit::Bytes(64_000) },
                        loss: LossCfg::None,
                        ..bottleneck
                    },
                    cost: 2,
                },
                sym("r2", "b", 1_000_000_000, SimDuration::ZERO),
            ],
            calls: vec![CallGroupCfg {
                count: 4,
                from: "a".into(),
                to: "b".into(),
                codec: "G.729".into(),
                ptime: Some(ms(40)),
                overhead_bytes: 12,
                speech: SpeechCfg::OnOff {
                    talk: DurationDist::Pareto { shape: 1.8, mean: ms(1200) },
                    silence: DurationDist::Pareto { shape: 1.3, mean: ms(1800) },
                },
                vad: false,
                transport: TransportCfg::Echo { send_buffer: 10, ack_bytes: 60 },
                playout: PlayoutCfg::Fixed { delay: ms(100) },
                start: StartCfg::Uniform { from: secs(1), to: secs(10) },
                stagger: secs(5),
                length: Some(secs(120)),
                label: Some("voice".into()),
            }],
            traffic: vec![
                TrafficCfg {
                    count: 2,
                    from: "b".into(),
                    to: "a".into(),
                    kind: TrafficKind::OnOff {
                        rate_bps: 128_000,
                        on: DurationDist::Pareto { shape: 1.4, mean: secs(2) },
                        off: DurationDist::Constant { mean: secs(3) },
                    },
                    packet: SizeDist::Fixed { bytes: 1000 },
                    start: StartCfg::Fixed(ms(1500)),
                    stagger: ms(250),
                    stop: Some(secs(200)),
                    label: Some("cross".into()),
                },
                TrafficCfg {
                    count: 1,
                    from: "r1".into(),
                    to: "b".into(),
                    kind: TrafficKind::Poisson { rate_bps: 1_500_000 },
                    packet: SizeDist::Exponential { mean_bytes: 500.0 },
                    start: StartCfg::Fixed(SimDuration::ZERO),
                    stagger: SimDuration::ZERO,
                    stop: None,
                    label: None,
                },
            ],
        }
    }

    #[test]
    fn full_scenario_parses_to_the_expected_model() {
        assert_eq!(from_toml_str(FULL).unwrap(), full_expected());
    }

    const MINIMAL: &str = r#"
    [run]
    duration = "60s"

    [[links]]
    between = ["a", "b"]
    rate = "1Mbps"

    [[calls]]
    from = "a"
    to = "b"
    codec = "G.711"
    "#;

    #[test]
    fn defaults_are_the_documented_ones() {
        let s = from_toml_str(MINIMAL).unwrap();
        assert_eq!(
            s.run,
            RunCfg {
                duration: secs(60),
                seed: 1,
                run_index: 0,
                drain: secs(10),
                trace: true,
                series: false,
                name: None
            }
        );
        assert_eq!(s.links, vec![sym("a", "b", 1_000_000, SimDuration::ZERO)]);
        assert_eq!(
            s.calls,
            vec![CallGroupCfg {
                count: 1,
                from: "a".into(),
                to: "b".into(),
                codec: "G.711".into(),
                ptime: Some(ms(20)),
                overhead_bytes: 40,
                speech: SpeechCfg::OnOff {
                    talk: DurationDist::Exponential { mean: secs(1) },
                    silence: DurationDist::Exponential { mean: ms(1500) },
                },
                vad: true,
                transport: TransportCfg::Udp { send_buffer: 5 },
                playout: PlayoutCfg::Fixed { delay: ms(150) },
                start: StartCfg::Fixed(SimDuration::ZERO),
                stagger: SimDuration::ZERO,
                length: None,
                label: None,
            }]
        );
        assert!(s.traffic.is_empty());

        // Codec-dependent ptime, per-model defaults, traffic on/off defaults.
        let s = from_toml_str(&MINIMAL.replace(
            "\"G.711\"",
            "\"G.723.1-6.3\"\nspeech = { model = \"weibull\" }\ntransport = { kind = \"echo\" }",
        ))
        .unwrap();
        assert_eq!(s.calls[0].ptime, Some(ms(30)));
        assert_eq!(
            s.calls[0].speech,
            SpeechCfg::OnOff {
                talk: DurationDist::Weibull { shape: 1.0, mean: secs(1) },
                silence: DurationDist::Weibull { shape: 1.0, mean: ms(1500) },
            }
        );
        assert_eq!(s.calls[0].transport, TransportCfg::Echo { send_buffer: 5, ack_bytes: 40 });
        let t = from_toml_str(&format!(
            "{}\n[[traffic]]\nfrom = \"b\"\nto = \"a\"\nkind = \"onoff\"\nrate = \"128kbps\"\npacket = \"1000B\"\noff = {{ dist = \"pareto\" }}\n",
            MINIMAL
        ))
        .unwrap();
        assert_eq!(
            t.traffic[0].kind,
            TrafficKind::OnOff {
                rate_bps: 128_000,
                on: DurationDist::Exponential { mean: secs(2) },
                off: DurationDist::Pareto { shape: 1.5, mean: secs(2) },
            }
        );
    }

    #[test]
    fn per_direction_overrides() {
        let s = from_toml_str(
            r#"
    [run]
    duration = "10s"
    [[links]]
    between = ["ap", "host"]
    delay = "5ms"
    queue = { limit = "20p" }
    forward = { rate = "2Mbps", loss = { kind = "bernoulli", p = 0.05 } }
    reverse = { rate = "256kbps", delay = "40ms" }
    [[traffic]]
    from = "ap"
    to = "host"
    kind = "cbr"
    rate = "1Mbps"
    packet = "1500B"
    "#,
        )
        .unwrap();
        let l = &s.links[0];
        assert_eq!(
            l.forward,
            ChannelCfg {
                rate_bps: 2_000_000,
                delay: ms(5),
                queue: droptail(20),
                loss: LossCfg::Bernoulli { p: 0.05 }
            }
        );
        assert_eq!(
            l.reverse,
            ChannelCfg { rate_bps: 256_000, delay: ms(40), queue: droptail(20), loss: LossCfg::None }
        );
    }

    #[test]
    fn json_input_and_null_as_absent() {
        let v = serde_json::json!({
            "run": { "duration": "60s", "name": null },
            "links": [{ "between": ["a", "b"], "rate": "1Mbps" }],
            "calls": [{ "from": "a", "to": "b", "codec": "G.711", "label": null }],
        });
        assert_eq!(from_json_str(&v.to_string()).unwrap(), from_toml_str(MINIMAL).unwrap());
    }

    #[test]
    fn to_json_round_trips() {
        for src in [FULL, MINIMAL] {
            let s = from_toml_str(src).unwrap();
            let j = to_json(&s);
            assert_eq!(from_value(&j).unwrap(), s, "{j:#}");
            // And through JSON text, as the manifest stores it.
            assert_eq!(from_json_str(&j.to_string()).unwrap(), s);
        }
        let j = to_json(&from_toml_str(FULL).unwrap());
        assert_eq!(j["links"][0]["rate"], "100Mbps");
        assert_eq!(j["links"][1]["reverse"]["queue"]["limit"], "64000B");
        assert_eq!(j["calls"][0]["length"], "120s");
        assert_eq!(j["calls"][0]["speech"]["talk_shape"], 1.8);
    }

    /// Xorshift64 for the round-trip property test (fixed seed: reproducible).
    struct Gen(u64);

    impl Gen {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
        fn coin(&mut self) -> bool {
            self.below(2) == 0
        }
        /// A duration of any magnitude from ns to 30 days, at least `min`.
        fn dur(&mut self, min: u64) -> SimDuration {
            let v = min + self.below(1000) * 10u64.pow(self.below(13) as u32);
            SimDuration(v.min(units::MAX_DURATION.0))
        }
        fn dist(&mut self, k: u64, shape: f64) -> DurationDist {
            let mean = self.dur(1);
            match k {
                0 => DurationDist::Constant { mean },
                1 => DurationDist::Exponential { mean },
                2 => DurationDist::Weibull { shape, mean },
                _ => DurationDist::Pareto { shape: shape + 1.0, mean },
            }
        }
        fn channel(&mut self) -> ChannelCfg {
            ChannelCfg {
                rate_bps: 1 + self.below(units::MAX_RATE_BPS),
                delay: self.dur(0),
                queue: QueueCfg::DropTail {
                    limit: if self.coin() {
                        QueueLimit::Packets(self.below(10_000_001) as u32)
                    } else {
                        QueueLimit::Bytes(self.below(10_000_000_001))
                    },
                },
                loss: if self.coin() {
                    LossCfg::None
                } else {
                    LossCfg::Bernoulli { p: self.below(1000) as f64 / 3000.0 }
                },
            }
        }
        fn start(&mut self) -> StartCfg {
            if self.coin() {
                StartCfg::Fixed(self.dur(0))
            } else {
                let from = self.dur(0);
                StartCfg::Uniform { from, to: SimDuration(from.0 + 1 + self.below(1_000_000)) }
            }
        }
        fn scenario(&mut self, case: u32) -> Scenario {
            let g = self;
            let run = RunCfg {
                duration: g.dur(1),
                seed: g.below(u64::MAX),
                run_index: g.below(10),
                drain: g.dur(0),
                trace: g.coin(),
                series: g.coin(),
                name: g.coin().then(|| format!("run {case}")),
            };
            let forward = g.channel();
            let reverse = if g.coin() { forward.clone() } else { g.channel() };
            let cost = 1 + g.below(1_000_000) as u32;
            let links = vec![LinkCfg { a: "n0".into(), b: "n1".into(), forward, reverse, cost }];
            let codec = &codec::CODECS[g.below(codec::CODECS.len() as u64) as usize];
            let speech = if g.below(4) == 0 {
                SpeechCfg::Continuous
            } else {
                let kt = g.below(4);
                let ks = if g.coin() { kt } else { g.below(4) };
                let shape = 0.1 + g.below(50) as f64 / 7.0;
                let talk = g.dist(kt, shape);
                let silence_shape = if g.coin() { shape } else { shape * 2.0 };
                let silence = g.dist(ks, silence_shape);
                SpeechCfg::OnOff { talk, silence }
            };
            let calls = vec![CallGroupCfg {
                count: 1 + g.below(MAX_GROUP_COUNT) as u32,
                from: "n1".into(),
                to: "n0".into(),
                codec: codec.name.into(),
                ptime: Some(codec::default_ptime(codec)),
                overhead_bytes: g.below(65_536) as u32,
                speech,
                vad: g.coin(),
                transport: if g.coin() {
                    TransportCfg::Udp { send_buffer: 1 + g.below(1000) as u32 }
                } else {
                    TransportCfg::Echo {
                        send_buffer: 1 + g.below(1000) as u32,
                        ack_bytes: 1 + g.below(65_535) as u32,
                    }
                },
                playout: PlayoutCfg::Fixed { delay: g.dur(0) },
                start: g.start(),
                stagger: g.dur(0),
                length: g.coin().then(|| g.dur(1)),
                label: g.coin().then(|| "g".into()),
            }];
            let rate_bps = 1 + g.below(1_000_000_000);
            let kind = match g.below(3) {
                0 => TrafficKind::Cbr { rate_bps },
                1 => TrafficKind::Poisson { rate_bps },
                _ => {
                    let (ko, kf) = (g.below(4), g.below(4));
                    TrafficKind::OnOff { rate_bps, on: g.dist(ko, 0.7), off: g.dist(kf, 2.5) }
                }
            };
            let traffic = vec![TrafficCfg {
                count: 1 + g.below(100) as u32,
                from: "n0".into(),
                to: "n1".into(),
                kind,
                packet: if g.coin() {
                    SizeDist::Fixed { bytes: 1 + g.below(65_535) as u32 }
                } else {
                    SizeDist::Exponential { mean_bytes: 1.0 + g.below(1_000_000) as f64 / 17.0 }
                },
                start: StartCfg::Uniform { from: SimDuration::ZERO, to: secs(1) },
                stagger: g.dur(0),
                stop: g.coin().then(|| g.dur(1)),
                label: None,
            }];
            Scenario { run, links, calls, traffic }
        }
    }

    /// Random well-formed models: `from_value(&to_json(s)) == s`.
    #[test]
    fn to_json_round_trips_random_models() {
        let mut g = Gen(0x9E37_79B9_7F4A_7C15);
        for case in 0..500 {
            let s = g.scenario(case);
            let j = to_json(&s);
            assert_eq!(from_value(&j).as_ref(), Ok(&s), "case {case}: {j:#}");
        }
    }

    // ---------------------------------------------------------------------------
    // Invalid scenarios: exact path, fragment of the allowed text.

    const RUN: &str = "[run]\nduration = \"10s\"\n";
    const LINK: &str = "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n";
    const CALL: &str = "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\n";
    const TRAFFIC: &str =
        "[[traffic]]\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\nrate = \"1Mbps\"\npacket = \"1000B\"\n";

    /// A scenario from RUN, LINK, CALL with `extra` lines appended to the
    /// section named by `at` ("run", "link", "call", "traffic" or "top").
    fn with(at: &str, extra: &str) -> String {
        match at {
            "run" => format!("{RUN}{extra}\n{LINK}{CALL}"),
            "link" => format!("{RUN}{LINK}{extra}\n{CALL}"),
            "call" => format!("{RUN}{LINK}{CALL}{extra}\n"),
            "traffic" => format!("{RUN}{LINK}{TRAFFIC}{extra}\n"),
            _ => format!("{extra}\n{RUN}{LINK}{CALL}"),
        }
    }

    fn check(src: &str, path: &str, fragment: &str) -> Result<(), String> {
        let e = match from_toml_str(src) {
            Ok(s) => return Err(format!("accepted, expected error at {path}:\n{src}\n→ {s:?}")),
            Err(e) => e,
        };
        if e.path != path {
            return Err(format!("path {:?}, expected {path:?}:\n{src}\n→ {e}", e.path));
        }
        if !e.allowed.contains(fragment) {
            return Err(format!("allowed lacks {fragment:?}:\n{src}\n→ {e}"));
        }
        Ok(())
    }

    #[test]
    fn invalid_scenarios_name_path_and_allowed() {
        let cases: &[(String, &str, &str)] = &[
            // Negative, zero, missing and mis-united rates.
            (LINK.replace("1Mbps", "-1Mbps"), "links[0].rate", "positive"),
            (LINK.replace("1Mbps", "0bps"), "links[0].rate", "above 0"),
            (LINK.replace("1Mbps", "2Tbps"), "links[0].rate", "kbps"),
            (LINK.replace("1Mbps", "1001Gbps"), "links[0].rate", "at most 1 Tb/s"),
            (LINK.replace("\"1Mbps\"", "1000000"), "links[0].rate", "e.g. \"64kbps\""),
            (LINK.replace("rate = \"1Mbps\"", ""), "links[0].rate", "at the link level"),
            (
                LINK.replace("rate = \"1Mbps\"", "forward = { rate = \"1Mbps\" }"),
                "links[0].reverse.rate",
                "in both forward and reverse",
            ),
            // Codec and ptime.
            (with("call", "").replace("G.711", "G.712"), "calls[0].codec", "G.711, G.711-noPLC, G.729"),
            (with("call", "").replace("G.711", "g.729"), "calls[0].codec", "did you mean \"G.729\""),
            (with("call", "ptime = \"25ms\""), "calls[0].ptime", "multiple of the G.711 frame"),
            (with("call", "ptime = \"0ms\""), "calls[0].ptime", "between 10 and 80 ms"),
            (with("call", "ptime = 20"), "calls[0].ptime", "a duration with a unit, e.g. \"20ms\""),
            (
                with("call", "codec2 = 1").replace("codec = \"G.711\"\n", ""),
                "calls[0].codec2",
                "did you mean \"codec\"",
            ),
            // Missing required keys.
            (format!("[run]\nseed = 1\n{LINK}{CALL}"), "run.duration", "positive duration"),
            (format!("\n{LINK}{CALL}"), "run", "[run] table"),
            (with("call", "").replace("codec = \"G.711\"\n", ""), "calls[0].codec", "one of the codecs"),
            (LINK.replace("between = [\"a\", \"b\"]", ""), "links[0].between", "two distinct node names"),
            (format!("{RUN}{CALL}"), "links", "at least one"),
            (format!("{RUN}{LINK}"), "calls", "at least one [[calls]] or [[traffic]]"),
            (TRAFFIC.replace("rate = \"1Mbps\"\n", ""), "traffic[0].rate", "a rate with a unit"),
            (TRAFFIC.replace("packet = \"1000B\"\n", ""), "traffic[0].packet", "\"1000B\""),
            (TRAFFIC.replace("kind = \"cbr\"\n", ""), "traffic[0].kind", "\"cbr\", \"poisson\", \"onoff\""),
            // Unknown keys at several depths.
            (with("top", "[runn]\nduration = \"1s\""), "runn", "run, links, calls, traffic"),
            (with("run", "durration = \"5s\""), "run.durration", "did you mean \"duration\""),
            (with("link", "bandwidth = \"1Mbps\""), "links[0].bandwidth", "between, cost, forward"),
            (
                with("link", "forward = { rate = \"1Mbps\", cost = 2 }"),
                "links[0].forward.cost",
                "rate, delay, queue, loss",
            ),
            (
                with("link", "queue = { kind = \"droptail\", size = \"5p\" }"),
                "links[0].queue.size",
                "kind, limit",
            ),
            (
                with("link", "reverse = { queue = { limt = \"5p\" } }"),
                "links[0].reverse.queue.limt",
                "did you mean \"limit\"",
            ),
            (
                with("call", "transport = { kind = \"udp\", ack = \"40B\" }"),
                "calls[0].transport.ack",
                "(for kind = \"udp\")",
            ),
            (
                with("call", "speech = { model = \"continuous\", talk = \"1s\" }"),
                "calls[0].speech.talk",
                "for model = \"continuous\"",
            ),
            (
                with("call", "speech = { model = \"exponential\", shape = 2.0 }"),
                "calls[0].speech.shape",
                "model, talk, silence",
            ),
            (with("traffic", "on = { mean = \"1s\" }"), "traffic[0].on", "for kind = \"cbr\""),
            (
                with("traffic", "").replace("kind = \"cbr\"", "kind = \"onoff\"")
                    + "on = { dist = \"exponential\", shape = 2 }\n",
                "traffic[0].on.shape",
                "dist, mean (for dist = \"exponential\")",
            ),
            // Wrong and missing units, inexact values.
            (with("link", "delay = \"30 sec\""), "links[0].delay", "units: ns, us, ms, s, min"),
            (with("link", "delay = \"0.1ns\""), "links[0].delay", "whole number of nanoseconds"),
            (with("link", "queue = { limit = \"50\" }"), "links[0].queue.limit", "\"50p\" or \"64000B\""),
            (with("link", "queue = { limit = 50 }"), "links[0].queue.limit", "\"50p\""),
            (with("call", "transport = { send_buffer = 5 }"), "calls[0].transport.send_buffer", "\"5p\""),
            (
                with("call", "transport = { send_buffer = \"5B\" }"),
                "calls[0].transport.send_buffer",
                "unit p",
            ),
            (with("call", "overhead = \"40b\""), "calls[0].overhead", "units: B, kB, KiB"),
            (TRAFFIC.replace("1000B", "1000"), "traffic[0].packet", "e.g. \"1500B\""),
            // Zero-length run, zero and absurd sizes.
            (format!("[run]\nduration = \"0s\"\n{LINK}{CALL}"), "run.duration", "positive duration"),
            (format!("[run]\nduration = \"31d\"\n{LINK}{CALL}"), "run.duration", "with a unit"),
            (format!("[run]\nduration = \"43201min\"\n{LINK}{CALL}"), "run.duration", "at most 30 days"),
            (TRAFFIC.replace("1000B", "70000B"), "traffic[0].packet", "between 1B and 65535B"),
            (TRAFFIC.replace("1000B", "0B"), "traffic[0].packet", "between 1B and 65535B"),
            (with("call", "count = 100001"), "calls[0].count", "between 1 and 100000"),
            (with("call", "count = 0"), "calls[0].count", "between 1 and 100000"),
            (with("link", "queue = { limit = \"20000000p\" }"), "links[0].queue.limit", "at most 10000000p"),
            (
                with("call", "transport = { send_buffer = \"0p\" }"),
                "calls[0].transport.send_buffer",
                "between 1p",
            ),
            (
                with("call", "speech = { model = \"exponential\", talk = \"0s\" }"),
                "calls[0].speech.talk",
                "positive duration",
            ),
            (with("call", "length = \"0s\""), "calls[0].length", "positive duration"),
            // Wrong types.
            (with("call", "count = 2.5"), "calls[0].count", "an integer"),
            (with("call", "count = \"2\""), "calls[0].count", "an integer"),
            (with("run", "seed = -1"), "run.seed", "non-negative integer"),
            (with("run", "trace = \"yes\""), "run.trace", "true or false"),
            (with("link", "loss = \"1%\""), "links[0].loss", "{ kind = \"bernoulli\", p = 0.01 }"),
            (with("link", "loss = { kind = \"bernoulli\" }"), "links[0].loss.p", "0 <= p < 1"),
            (with("link", "loss = { kind = \"bernoulli\", p = 1.0 }"), "links[0].loss.p", "0 <= p < 1"),
            (with("link", "loss = { kind = \"bernoulli\", p = -0.1 }"), "links[0].loss.p", "0 <= p < 1"),
            (with("link", "loss = { kind = \"bernoulli\", p = nan }"), "links[0].loss.p", "0 <= p < 1"),
            (with("link", "loss = { kind = \"gilbert\" }"), "links[0].loss.kind", "\"none\", \"bernoulli\""),
            (with("link", "loss = { p = 0.1 }"), "links[0].loss.kind", "\"none\", \"bernoulli\""),
            (with("call", "transport = { kind = \"tcp\" }"), "calls[0].transport.kind", "\"udp\", \"echo\""),
            (
                with("call", "speech = { model = \"pareto\", shape = 0.9 }"),
                "calls[0].speech.shape",
                "shape > 1",
            ),
            (
                with("call", "speech = { model = \"weibull\", talk_shape = 0 }"),
                "calls[0].speech.talk_shape",
                "shape > 0",
            ),
            (with("call", "speech = \"continuous\""), "calls[0].speech", "model = \"exponential\""),
            (with("call", "start = 5"), "calls[0].start", "\"0s\", or { kind = \"uniform\""),
            (
                with("call", "start = { kind = \"uniform\", from = \"5s\", to = \"5s\" }"),
                "calls[0].start.to",
                "after from (5s)",
            ),
            (format!("links = 3\n{RUN}{CALL}"), "links", "array of [[links]]"),
            (
                format!("{RUN}[links]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n{CALL}"),
                "links",
                "array of [[links]]",
            ),
            (LINK.replace("[\"a\", \"b\"]", "[\"a\", \"b\", \"c\"]"), "links[0].between", "two distinct"),
            (LINK.replace("[\"a\", \"b\"]", "[\"a\", 2]"), "links[0].between[1]", "node name"),
            (with("call", "label = 3"), "calls[0].label", "non-empty string"),
            (with("link", "cost = 0"), "links[0].cost", "between 1 and 1000000"),
            // Unknown node, duplicate link, from == to, self-link.
            (
                with("call", "").replace("to = \"b\"", "to = \"c\""),
                "calls[0].to",
                "a node named in [[links]]: a, b",
            ),
            (
                TRAFFIC.replace("from = \"a\"", "from = \"x\""),
                "traffic[0].from",
                "a node named in [[links]]: a, b",
            ),
            (
                format!("{RUN}{LINK}{}{CALL}", LINK.replace("[\"a\", \"b\"]", "[\"b\", \"a\"]")),
                "links[1].between",
                "not already joined by links[0]",
            ),
            (
                with("call", "").replace("to = \"b\"", "to = \"a\""),
                "calls[0].to",
                "a node other than from (\"a\")",
            ),
            (LINK.replace("[\"a\", \"b\"]", "[\"a\", \"a\"]"), "links[0].between[1]", "two distinct nodes"),
            (
                with("traffic", "stop = \"1s\"").replace("kind = \"cbr\"", "kind = \"cbr\"\nstart = \"2s\""),
                "traffic[0].stop",
                "after start (2s)",
            ),
            // Syntax errors.
            (format!("{RUN}rate = 300kbps\n"), "", "valid TOML"),
        ];
        let mut failures = Vec::new();
        for (src, path, fragment) in cases {
            // Cases written as a lone section get the rest of a valid scenario.
            let src = if src.starts_with("[[links]]") {
                format!("{RUN}{src}{CALL}")
            } else if src.starts_with("[[traffic]]") {
                format!("{RUN}{LINK}{src}")
            } else {
                src.clone()
            };
            if let Err(msg) = check(&src, path, fragment) {
                failures.push(msg);
            }
        }
        assert!(failures.is_empty(), "{} failing cases:\n\n{}", failures.len(), failures.join("\n\n"));
    }

    #[test]
    fn error_display_and_syntax_errors() {
        let e = from_toml_str(&with("link", "queue = { limit = \"50\" }")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "links[0].queue.limit: got \"50\"; expected a queue limit in packets or bytes, e.g. \"50p\" or \"64000B\""
        );
        let e = from_toml_str("[run]\nduration = \"1s\"\nrate = 300kbps\n").unwrap_err();
        assert_eq!(e.path, "");
        assert!(e.value.contains("line 3, column 11 (`rate = 300kbps`)"), "{e}");
        assert!(e.to_string().starts_with("(scenario): got invalid TOML at line 3"), "{e}");
        let e = from_json_str("{\"run\": ").unwrap_err();
        assert!(e.value.starts_with("invalid JSON"), "{e}");
        let e = from_json_str("[1]").unwrap_err();
        assert_eq!(e.path, "");
        let e = from_toml_str(&with("run", "durration = \"5s\"")).unwrap_err();
        assert_eq!(e.value, "unknown key with value \"5s\"");
    }
}
