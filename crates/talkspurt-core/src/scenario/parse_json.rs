//! The scenario as run: a validated [`Scenario`] written back in the file
//! format with every default filled in and units written out.

use serde_json::{json, Map, Value};

use super::super::model::*;
use super::super::units;
use crate::time::SimDuration;

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
        "analysis": super::playout::analysis_json(&s.analysis),
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

fn transport_json(t: &TransportCfg) -> Value {
    match *t {
        TransportCfg::Udp { send_buffer } => {
            json!({ "kind": "udp", "send_buffer": units::format_packets(send_buffer as u64) })
        }
        TransportCfg::Tcp(ref c) => super::tcp::tcp_json(c),
        TransportCfg::Echo { send_buffer, ack_bytes } => json!({
            "kind": "echo",
            "send_buffer": units::format_packets(send_buffer as u64),
            "ack": units::format_bytes(ack_bytes as u64),
        }),
    }
}

fn call_json(c: &CallGroupCfg) -> Value {
    let d = units::format_duration;
    let transport = transport_json(&c.transport);
    let mut v = json!({
        "count": c.count,
        "from": c.from,
        "to": c.to,
        "codec": c.codec,
        "overhead": units::format_bytes(c.overhead_bytes as u64),
        "speech": speech_json(&c.speech),
        "vad": c.vad,
        "transport": transport,
        "playout": super::playout::to_json(&c.playout),
        "advantage": c.advantage,
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
        TrafficKind::Bulk { .. } => ("bulk", 0),
        TrafficKind::Transfer { .. } => ("transfer", 0),
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
        "transport": transport_json(&t.transport),
        "start": start_json(&t.start),
        "stagger": d(t.stagger),
    });
    match &t.kind {
        TrafficKind::Bulk { on_off } => {
            if let Some((on, off)) = on_off {
                v["on"] = dist_json(on);
                v["off"] = dist_json(off);
            }
        }
        TrafficKind::Transfer { size_bytes } => v["size"] = json!(units::format_bytes(*size_bytes)),
        k => {
            v["rate"] = json!(units::format_rate(rate));
            v["packet"] = packet;
            if let TrafficKind::OnOff { on, off, .. } = k {
                v["on"] = dist_json(on);
                v["off"] = dist_json(off);
            }
        }
    }
    if let Some(s) = t.stop {
        v["stop"] = json!(d(s));
    }
    if let Some(l) = &t.label {
        v["label"] = json!(l);
    }
    v
}
