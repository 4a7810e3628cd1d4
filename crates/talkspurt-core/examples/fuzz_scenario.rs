//! Fuzzes the scenario reader: generates valid scenario documents (random
//! subsets of keys, TCP tables included), mutates most of them (wrong types,
//! unknown keys, deleted keys, nulls, out-of-range numbers, bad units), sends
//! some through TOML text (with byte-level corruption now and then), and
//! checks every verdict:
//!
//! - no panic;
//! - an accepted scenario reads back identical from its `to_json`;
//! - a rejection names a well-formed key path whose first key is one of the
//!   document's (or the root, for syntax errors), and says what is allowed;
//! - an unmutated document is accepted.
//!
//! Long budgets: `cargo run --release --example fuzz_scenario -- 1000000 [seed]`;
//! CI runs a short budget of the same code (`tests/fuzz_scenario.rs`).

use std::collections::BTreeMap;
use std::panic;
use std::time::Instant;

use serde_json::{json, Map, Value};
use talkspurt_core::scenario::{from_toml_str, from_value, to_json, ScenarioError};

/// Xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn coin(&mut self) -> bool {
        self.below(2) == 0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn ms(&mut self, lo: u64, hi: u64) -> Value {
        json!(format!("{}ms", self.range(lo, hi)))
    }
}

/// Sets `key` half the time: random subsets of keys.
fn maybe(m: &mut Map<String, Value>, g: &mut Rng, key: &str, v: impl FnOnce(&mut Rng) -> Value) {
    if g.coin() {
        let v = v(g);
        m.insert(key.into(), v);
    }
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

const CODECS: &[(&str, &[u64])] = &[
    ("G.711", &[10, 20, 30, 40, 50, 60, 70, 80]),
    ("G.729", &[10, 20, 40, 80]),
    ("G.723.1-6.3", &[30, 60]),
    ("GSM-FR", &[20, 40, 60, 80]),
    ("AMR-NB-12.2", &[20, 40]),
    ("Speex-NB-8", &[20, 60]),
];
const CC: &[&str] = &["tahoe", "reno", "newreno", "sack", "vegas", "westwood", "westwood+", "real", "cubic"];

fn dist(g: &mut Rng) -> Value {
    let mut d = Map::new();
    let kind = *g.pick(&["", "exponential", "constant", "pareto", "weibull"]);
    if !kind.is_empty() {
        d.insert("dist".into(), json!(kind));
    }
    maybe(&mut d, g, "mean", |g| g.ms(1, 10_000));
    if kind == "pareto" {
        maybe(&mut d, g, "shape", |g| json!(1.01 + 3.0 * g.unit()));
    }
    if kind == "weibull" {
        maybe(&mut d, g, "shape", |g| json!(0.1 + 3.0 * g.unit()));
    }
    Value::Object(d)
}

fn speech(g: &mut Rng) -> Value {
    let model = *g.pick(&["", "continuous", "exponential", "constant", "pareto", "weibull", "onoff"]);
    let mut d = Map::new();
    if !model.is_empty() {
        d.insert("model".into(), json!(model));
    }
    match model {
        "continuous" => {}
        "onoff" => {
            maybe(&mut d, g, "talk", dist);
            maybe(&mut d, g, "silence", dist);
        }
        m => {
            maybe(&mut d, g, "talk", |g| g.ms(1, 5000));
            maybe(&mut d, g, "silence", |g| g.ms(1, 5000));
            if m == "pareto" || m == "weibull" {
                let lo = if m == "pareto" { 1.01 } else { 0.1 };
                for k in ["shape", "talk_shape", "silence_shape"] {
                    maybe(&mut d, g, k, |g| json!(lo + 3.0 * g.unit()));
                }
            }
        }
    }
    Value::Object(d)
}

fn playout(g: &mut Rng) -> Value {
    let kind = *g.pick(&["fixed", "fixed-depth", "ramjee-1", "ramjee-2", "ramjee-3", "ramjee-4", "quantile"]);
    let mut d = obj(json!({ "kind": kind }));
    match kind {
        "fixed" => maybe(&mut d, g, "delay", |g| g.ms(0, 1000)),
        "fixed-depth" => {
            maybe(&mut d, g, "depth", |g| json!(g.range(1, 1000)));
            maybe(&mut d, g, "ptime", |g| g.ms(1, 100));
        }
        "quantile" => {
            maybe(&mut d, g, "quantile", |g| json!(1.0 - g.unit()));
            maybe(&mut d, g, "window", |g| json!(g.range(1, 10_000)));
            if g.coin() {
                let lo = g.below(1000);
                d.insert("min_depth".into(), json!(format!("{lo}ms")));
                d.insert("max_depth".into(), json!(format!("{}ms", lo + g.below(1000))));
            }
        }
        k => {
            maybe(&mut d, g, "alpha", |g| json!(g.unit()));
            maybe(&mut d, g, "beta", |g| json!(0.1 + 10.0 * g.unit()));
            maybe(&mut d, g, "initial_variation", |g| g.ms(0, 100));
            if k == "ramjee-2" {
                maybe(&mut d, g, "alpha_increase", |g| json!(g.unit()));
            }
            if k == "ramjee-4" {
                maybe(&mut d, g, "spike_threshold", |g| g.ms(1, 500));
                maybe(&mut d, g, "spike_end", |g| g.ms(1, 50));
            }
        }
    }
    Value::Object(d)
}

fn tcp(g: &mut Rng) -> Value {
    let mut d = obj(json!({ "kind": "tcp" }));
    let cc = *g.pick(CC);
    if g.coin() {
        d.insert("cc".into(), json!(cc));
    }
    let cc = d.get("cc").and_then(Value::as_str).unwrap_or("newreno").to_string();
    let recovery = g.coin().then(|| *g.pick(&["tahoe", "reno", "newreno", "sack"]));
    if let Some(r) = recovery {
        d.insert("recovery".into(), json!(r));
    }
    let default_sack = matches!(cc.as_str(), "sack" | "cubic");
    let sack_recovery = recovery.map_or(default_sack, |r| r == "sack");
    maybe(&mut d, g, "sack", |g| json!(sack_recovery || g.coin()));
    let mss = if g.coin() { g.range(1, 65_495) } else { 1460 };
    if mss != 1460 || g.coin() {
        d.insert("mss".into(), json!(format!("{mss}B")));
    }
    maybe(&mut d, g, "rcv_window", |g| json!(format!("{}B", mss + g.below(1 << 24))));
    maybe(&mut d, g, "initial_window", |g| {
        if g.coin() {
            json!(g.range(1, 1000))
        } else {
            json!(g.pick(&["rfc2581", "rfc3390", "rfc6928"]))
        }
    });
    for k in ["nodelay", "delayed_ack", "ecn", "timestamps", "handshake"] {
        maybe(&mut d, g, k, |g| json!(g.coin()));
    }
    maybe(&mut d, g, "delack_timeout", |g| g.ms(1, 500));
    if g.coin() {
        let lo = g.below(5000);
        let init = lo + g.range(1, 10_000);
        d.insert("min_rto".into(), json!(format!("{lo}ms")));
        d.insert("initial_rto".into(), json!(format!("{init}ms")));
        d.insert("max_rto".into(), json!(format!("{}ms", init + g.below(100_000))));
    }
    maybe(&mut d, g, "granularity", |g| g.ms(0, 100));
    maybe(&mut d, g, "send_buffer", |g| {
        if g.coin() {
            json!(format!("{}p", g.range(1, 1000)))
        } else {
            json!(format!("{}B", g.range(1, 1_000_000_000)))
        }
    });
    maybe(&mut d, g, "idle_restart", |g| json!(g.pick(&["off", "rfc5681", "rfc7661"])));
    maybe(&mut d, g, "framing", |g| json!(format!("{}B", g.below(9))));
    if g.coin() {
        let (key, table) = match cc.as_str() {
            "vegas" => {
                let a = 3.0 * g.unit();
                ("vegas", json!({ "alpha": a, "beta": a + 3.0 * g.unit(), "gamma": g.unit() }))
            }
            "cubic" => (
                "cubic",
                json!({ "c": 0.01 + g.unit(), "beta": 0.01 + 0.98 * g.unit(), "fast_convergence": g.coin() }),
            ),
            "westwood" | "westwood+" => ("westwood", json!({ "gain": 0.01 + 0.98 * g.unit() })),
            "real" => {
                ("real", json!({ "wave": g.range(1, 1000), "congestion_threshold": 0.01 + 0.98 * g.unit() }))
            }
            _ => ("", Value::Null),
        };
        if !key.is_empty() {
            d.insert(key.into(), table);
        }
    }
    Value::Object(d)
}

fn transport(g: &mut Rng, echo: bool) -> Value {
    match g.below(if echo { 4 } else { 3 }) {
        0 => json!({}),
        1 => json!({ "kind": "udp", "send_buffer": format!("{}p", g.range(1, 100)) }),
        2 => tcp(g),
        _ => json!({ "kind": "echo", "ack": format!("{}B", g.range(1, 1500)) }),
    }
}

/// `count`, `start` and `stagger` of a group whose sources must all begin
/// before `stop_ms` (the validator's rule, `validate::starts_before`: the
/// latest start plus `stagger × (count − 1)` is before the stop; a uniform
/// start's draws are below `to`, so `to` may equal the stop). Each key is
/// set half the time, as `maybe` does; when a key is left out its default
/// (count 1, start 0, stagger 0) is what the bound is computed with.
fn start_group(m: &mut Map<String, Value>, g: &mut Rng, stop_ms: u64, max_count: u64) {
    let count = if g.coin() { g.range(1, max_count) } else { 1 };
    if count > 1 || g.coin() {
        m.insert("count".into(), json!(count));
    }
    // Room for the start and the stagger: latest + stagger·(count−1) < stop.
    let latest = if g.coin() {
        let at = g.below(stop_ms);
        m.insert("start".into(), json!(format!("{at}ms")));
        at
    } else if g.coin() {
        let to = g.range(1, stop_ms);
        let from = g.below(to);
        m.insert("start".into(), json!({ "kind": "uniform", "from": format!("{from}ms"), "to": format!("{to}ms") }));
        to - 1
    } else {
        0
    };
    if g.coin() {
        let room = (stop_ms - 1 - latest) / (count - 1).max(1);
        m.insert("stagger".into(), json!(format!("{}ms", g.below(room.min(1000) + 1))));
    }
}

/// A valid document; `toml` keeps integers within TOML's i64.
fn scenario(g: &mut Rng, toml: bool) -> Value {
    let duration_s = g.range(1, 600);
    let mut run = obj(json!({ "duration": format!("{duration_s}s") }));
    maybe(&mut run, g, "seed", |g| json!(if toml { g.next() >> 1 } else { g.next() }));
    maybe(&mut run, g, "run_index", |g| json!(g.below(100)));
    maybe(&mut run, g, "drain", |g| g.ms(0, 20_000));
    maybe(&mut run, g, "trace", |g| json!(g.coin()));
    maybe(&mut run, g, "series", |g| json!(g.coin()));
    maybe(&mut run, g, "name", |g| json!(format!("run {}", g.below(100))));
    let mut nodes = vec!["a".to_string()];
    nodes.extend((0..g.below(4)).map(|i| format!("r{i}")));
    nodes.push("b".into());
    let links: Vec<Value> = nodes
        .windows(2)
        .map(|w| {
            let mut l =
                obj(json!({ "between": [w[0], w[1]], "rate": format!("{}kbps", g.range(1, 1_000_000)) }));
            maybe(&mut l, g, "delay", |g| g.ms(0, 500));
            maybe(&mut l, g, "queue", |g| {
                if g.coin() {
                    json!({ "limit": format!("{}p", g.below(1000)) })
                } else {
                    json!({ "kind": "droptail", "limit": format!("{}B", g.below(1_000_000)) })
                }
            });
            maybe(&mut l, g, "loss", |g| {
                if g.coin() {
                    json!({ "kind": "none" })
                } else {
                    json!({ "kind": "bernoulli", "p": 0.5 * g.unit() })
                }
            });
            maybe(&mut l, g, "cost", |g| json!(g.range(1, 100)));
            for side in ["forward", "reverse"] {
                if g.below(4) == 0 {
                    l.insert(
                        side.into(),
                        json!({ "rate": format!("{}kbps", g.range(1, 1_000_000)), "delay": g.ms(0, 100) }),
                    );
                }
            }
            Value::Object(l)
        })
        .collect();
    let (first, last) = (nodes[0].clone(), nodes[nodes.len() - 1].clone());
    let calls: Vec<Value> = (0..g.below(4))
        .map(|i| {
            let &(codec, ptimes) = g.pick(CODECS);
            let (from, to) = if g.coin() { (&first, &last) } else { (&last, &first) };
            let mut c = obj(json!({ "from": from, "to": to, "codec": codec }));
            start_group(&mut c, g, duration_s * 1000, 5);
            maybe(&mut c, g, "ptime", |g| json!(format!("{}ms", g.pick(ptimes))));
            maybe(&mut c, g, "overhead", |g| json!(format!("{}B", g.below(100))));
            maybe(&mut c, g, "speech", speech);
            maybe(&mut c, g, "vad", |g| json!(g.coin()));
            maybe(&mut c, g, "transport", |g| transport(g, true));
            maybe(&mut c, g, "playout", playout);
            maybe(&mut c, g, "advantage", |g| json!(40.0 * g.unit()));
            maybe(&mut c, g, "length", |g| g.ms(1, 60_000));
            maybe(&mut c, g, "label", |_| json!(format!("voice {i}")));
            Value::Object(c)
        })
        .collect();
    let n_traffic = g.range(if calls.is_empty() { 1 } else { 0 }, 2);
    let traffic: Vec<Value> = (0..n_traffic)
        .map(|_| {
            let kind = *g.pick(&["cbr", "poisson", "onoff", "bulk", "transfer"]);
            let mut t = obj(json!({ "from": last, "to": first, "kind": kind }));
            match kind {
                "bulk" | "transfer" => {
                    t.insert("transport".into(), tcp(g));
                }
                _ => {
                    t.insert("rate".into(), json!(format!("{}kbps", g.range(1, 10_000))));
                    let packet = if g.coin() {
                        json!(format!("{}B", g.range(1, 65_535)))
                    } else {
                        json!({ "kind": "exponential", "mean": format!("{:.3}B", 1.0 + 65_000.0 * g.unit()) })
                    };
                    t.insert("packet".into(), packet);
                    maybe(&mut t, g, "transport", |g| transport(g, false));
                }
            }
            if kind == "onoff" {
                maybe(&mut t, g, "on", dist);
                maybe(&mut t, g, "off", dist);
            }
            if kind == "bulk" && g.coin() {
                t.insert("on".into(), dist(g));
                t.insert("off".into(), dist(g));
            }
            if kind == "transfer" {
                t.insert("size".into(), json!(format!("{}kB", g.range(1, 1_000_000))));
            }
            // A stop before the run's end bounds the starts (whole seconds,
            // after a fixed start).
            let mut stop_ms = duration_s * 1000;
            if g.coin() {
                let s = g.below(duration_s);
                let stop = g.range(s + 1, duration_s + 10);
                t.insert("stop".into(), json!(format!("{stop}s")));
                stop_ms = stop_ms.min(stop * 1000);
                t.insert("start".into(), json!(format!("{s}s")));
                let count = if g.coin() { g.range(1, 3) } else { 1 };
                t.insert("count".into(), json!(count));
                if g.coin() {
                    let room = (stop_ms - 1 - s * 1000) / (count - 1).max(1);
                    t.insert("stagger".into(), json!(format!("{}ms", g.below(room.min(1000) + 1))));
                }
            } else {
                start_group(&mut t, g, stop_ms, 3);
            }
            Value::Object(t)
        })
        .collect();
    let mut s = obj(json!({ "run": run, "links": links }));
    if !calls.is_empty() || g.coin() {
        s.insert("calls".into(), json!(calls));
    }
    if !traffic.is_empty() {
        s.insert("traffic".into(), json!(traffic));
    }
    let mut a = Map::new();
    maybe(&mut a, g, "rtpi_threshold", |g| g.ms(1, 1000));
    maybe(&mut a, g, "rtpi_missing", |g| json!(g.pick(&["timely", "delayed", "previous-arrival"])));
    maybe(&mut a, g, "window", |g| json!(g.range(1, 1000)));
    maybe(&mut a, g, "bounds", |g| json!(g.coin()));
    maybe(&mut a, g, "jitter_threshold", |g| g.ms(1, 1000));
    maybe(&mut a, g, "run_cap", |g| json!(g.range(1, 1000)));
    if g.coin() {
        let end = g.range(1, duration_s);
        a.insert("interval".into(), json!([format!("{}s", g.below(end)), format!("{end}s")]));
    }
    if !a.is_empty() || g.coin() {
        s.insert("analysis".into(), Value::Object(a));
    }
    Value::Object(s)
}

// ---------------------------------------------------------------------------
// Mutations

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(Step::Key(k.clone()));
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(Step::Index(i));
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

fn wrong(g: &mut Rng) -> Value {
    let pool = [
        json!(0),
        json!(-1),
        json!(1.5),
        json!(-1e300),
        json!(1e300),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(""),
        json!("x"),
        json!("5"),
        json!("5 parsecs"),
        json!("-1ms"),
        json!("0B"),
        json!("0p"),
        json!("1e3ms"),
        json!("20MS"),
        json!("99999999999999999999999999999999999999999s"),
        json!("0.0000000000000000000000000000001s"),
        json!("1.5µs"),
        json!("   "),
        json!(true),
        json!([]),
        json!([1, "a"]),
        json!({}),
        json!({ "kind": "nonesuch" }),
        json!({ "zz": 1 }),
        json!(["1s", "2s"]),
        json!({ "kind": "tcp", "cc": "vegas", "vegas": { "alpha": 9 } }),
    ];
    g.pick(&pool).clone()
}

fn mangle_unit(s: &str, g: &mut Rng) -> Value {
    let num_len = s.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count();
    let (num, unit) = s.split_at(num_len);
    let forms = [
        num.to_string(),
        format!("{num} parsecs"),
        format!("-{num}{unit}"),
        format!("{num}{}", unit.to_uppercase()),
        format!("{num}e3{unit}"),
        format!("0{unit}"),
        format!("{num}{unit}{unit}"),
        format!("{num}.{unit}"),
        format!("99999999999999999999{unit}"),
        format!("0.0000000001{unit}"),
        format!("{num} {unit}"),
        format!("{num}{unit} "),
        String::new(),
    ];
    json!(g.pick(&forms))
}

fn mutate(doc: &mut Value, g: &mut Rng) {
    for _ in 0..g.range(1, 3) {
        let mut all = Vec::new();
        paths(doc, &mut Vec::new(), &mut all);
        let target = g.pick(&all).clone();
        let op = g.below(8);
        let v = at_mut(doc, &target);
        match op {
            0 if v.is_object() => {
                let name = *g
                    .pick(&["zz", "colour", "rate_", "kindd", "cc", "sack", "vegas", "packet", "on", "size"]);
                let x = wrong(g);
                v.as_object_mut().map(|m| m.insert(name.into(), x));
            }
            1 if !target.is_empty() => {
                let (parent, last) = target.split_at(target.len() - 1);
                match (at_mut(doc, parent), &last[0]) {
                    (Value::Object(m), Step::Key(k)) => {
                        m.remove(k);
                    }
                    (Value::Array(a), Step::Index(i)) => {
                        a.remove(*i);
                    }
                    _ => {}
                }
            }
            2 => *v = Value::Null,
            3 => *v = if v.is_object() { json!({}) } else { json!([]) },
            4 if v.is_number() => {
                let x = v.as_f64().unwrap_or(0.0);
                *v = g
                    .pick(&[
                        json!(-1),
                        json!(0),
                        json!(1.5),
                        json!(1e19),
                        json!(1e9),
                        json!(-0.5),
                        json!(x * 1000.0 + 7.0),
                    ])
                    .clone();
            }
            5 if v.is_string() => {
                let s = v.as_str().unwrap_or("").to_string();
                *v = mangle_unit(&s, g);
            }
            _ => *v = wrong(g),
        }
    }
}

// ---------------------------------------------------------------------------
// TOML text

fn toml_key(k: &str) -> String {
    if !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-') {
        k.to_string()
    } else {
        Value::String(k.into()).to_string()
    }
}

fn toml_value(v: &Value) -> String {
    match v {
        Value::Null => "\"\"".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        Value::String(s) => Value::String(s.clone()).to_string(),
        Value::Array(a) => {
            format!("[{}]", a.iter().filter(|x| !x.is_null()).map(toml_value).collect::<Vec<_>>().join(", "))
        }
        Value::Object(m) => format!(
            "{{ {} }}",
            m.iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| format!("{} = {}", toml_key(k), toml_value(x)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn to_toml(doc: &Value) -> String {
    let Value::Object(m) = doc else { return toml_value(doc) };
    let (mut head, mut body) = (Vec::new(), Vec::new());
    let lines = |t: &Map<String, Value>| -> Vec<String> {
        t.iter()
            .filter(|(_, x)| !x.is_null())
            .map(|(k, x)| format!("{} = {}", toml_key(k), toml_value(x)))
            .collect()
    };
    for (k, v) in m {
        match v {
            Value::Object(t) => {
                body.push(format!("[{}]", toml_key(k)));
                body.extend(lines(t));
            }
            Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
                for t in a {
                    body.push(format!("[[{}]]", toml_key(k)));
                    body.extend(lines(t.as_object().unwrap_or(&Map::new())));
                }
            }
            Value::Null => {}
            _ => head.push(format!("{} = {}", toml_key(k), toml_value(v))),
        }
    }
    head.extend(body);
    head.join("\n") + "\n"
}

fn corrupt(text: &str, g: &mut Rng) -> String {
    let mut b = text.as_bytes().to_vec();
    let i = g.below(b.len() as u64 + 1) as usize;
    const JUNK: &[&[u8]] =
        &[b"=", b"[", b"\"", b"}", b"\n=\n", b"x y", b"[[", b"\\", b"\xff", b"nan", b"inf", b"1979-05-27"];
    let junk = *g.pick(JUNK);
    b.splice(i..(i + 1).min(b.len()), junk.iter().copied());
    String::from_utf8_lossy(&b).into_owned()
}

// ---------------------------------------------------------------------------
// The contract

const TOP: &[&str] = &["run", "links", "calls", "traffic", "analysis"];

fn well_formed(path: &str) -> bool {
    let mut rest = path;
    loop {
        let key_len = rest.find(['.', '[']).unwrap_or(rest.len());
        if key_len == 0 {
            return false;
        }
        rest = &rest[key_len..];
        while let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else { return false };
            if end == 0 || !r[..end].bytes().all(|c| c.is_ascii_digit()) {
                return false;
            }
            rest = &r[end + 1..];
        }
        match rest.strip_prefix('.') {
            None => return rest.is_empty(),
            Some(r) => rest = r,
        }
    }
}

fn check_rejection(e: &ScenarioError, doc: Option<&Value>) -> Result<(), String> {
    if e.allowed.is_empty() || e.value.is_empty() {
        return Err(format!("empty message part: {e:?}"));
    }
    if e.path.is_empty() {
        return Ok(());
    }
    if !well_formed(&e.path) {
        return Err(format!("malformed path: {e}"));
    }
    let first = &e.path[..e.path.find(['.', '[']).unwrap_or(e.path.len())];
    let known = doc.and_then(Value::as_object).is_some_and(|m| m.contains_key(first));
    if !known && !TOP.contains(&first) {
        return Err(format!("path outside the document: {e}"));
    }
    Ok(())
}

/// What a fuzz session saw: counts by verdict, and the first problems.
pub struct Outcome {
    pub counts: BTreeMap<&'static str, u64>,
    pub problems: Vec<String>,
    pub secs: f64,
}

/// Fuzz `n` cases from `seed`. `tests/fuzz_scenario.rs` runs a short budget
/// of this in CI, so a generator that drifts from the validator fails the
/// build (issue 25); this example runs long budgets.
pub fn fuzz(n: u64, seed: u64) -> Outcome {
    let t0 = Instant::now();
    let mut counts: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut problems: Vec<String> = Vec::new();
    for case in 0..n {
        let mut g = Rng(seed ^ (case + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let via_toml = g.below(8) == 0;
        let mut doc = scenario(&mut g, via_toml);
        let pristine = g.below(8) == 0;
        if !pristine {
            mutate(&mut doc, &mut g);
        }
        let corrupted = via_toml && !pristine && g.coin();
        let text = via_toml.then(|| if corrupted { corrupt(&to_toml(&doc), &mut g) } else { to_toml(&doc) });
        let verdict = panic::catch_unwind(|| match &text {
            Some(t) => from_toml_str(t),
            None => from_value(&doc),
        });
        *counts.entry(if via_toml { "via TOML" } else { "via JSON value" }).or_default() += 1;
        let problem = match verdict {
            Err(p) => {
                *counts.entry("panics").or_default() += 1;
                let msg =
                    p.downcast_ref::<String>().cloned().or(p.downcast_ref::<&str>().map(|s| s.to_string()));
                Some(format!("panic {msg:?}"))
            }
            Ok(Ok(s)) => {
                *counts.entry("accepted").or_default() += 1;
                let j = to_json(&s);
                match panic::catch_unwind(|| from_value(&j)) {
                    Ok(Ok(back)) if back == s => None,
                    other => Some(format!(
                        "round trip failed: {:?}",
                        other.map(|r| r.map(|_| "different scenario"))
                    )),
                }
            }
            Ok(Err(e)) => {
                *counts.entry("rejected").or_default() += 1;
                if pristine {
                    *counts.entry("valid rejected").or_default() += 1;
                    Some(format!("valid document rejected: {e}"))
                } else {
                    // A file's keys are those TOML reads in it (`["a"]` is a table header).
                    let read = text.as_deref().and_then(|t| {
                        toml::from_str::<toml::Value>(t).ok().and_then(|v| serde_json::to_value(v).ok())
                    });
                    check_rejection(&e, if via_toml { read.as_ref() } else { Some(&doc) }).err()
                }
            }
        };
        if pristine {
            *counts.entry("pristine").or_default() += 1;
        }
        if let Some(p) = problem {
            *counts.entry("problems").or_default() += 1;
            if problems.len() < 10 {
                let input: String =
                    text.clone().unwrap_or_else(|| doc.to_string()).chars().take(800).collect();
                problems.push(format!("case {case} (seed {seed}): {p}\n  input: {input}"));
            }
        }
    }
    Outcome { counts, problems, secs: t0.elapsed().as_secs_f64() }
}

#[allow(dead_code)] // a module of tests/fuzz_scenario.rs too
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0x5EED);
    panic::set_hook(Box::new(|_| {}));
    let o = fuzz(n, seed);
    println!("{n} cases in {:.1} s ({:.1} µs/case), seed {seed}", o.secs, o.secs * 1e6 / n as f64);
    for (k, v) in &o.counts {
        println!("  {k}: {v}");
    }
    for p in &o.problems {
        println!("{p}");
    }
    if !o.problems.is_empty() {
        std::process::exit(1);
    }
}
