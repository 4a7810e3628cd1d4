//! `transport = { kind = "tcp", ... }`: every key of `TcpConfig`
//! (transport/tcp/config.rs documents each default and its source), with
//! the cross-key rules: RTO bounds in order, a receive window of at least
//! one segment, SACK recovery needs SACK, and a controller's own table
//! only with that controller.

use super::*;
use crate::cc::{CcAlgorithm, Recovery};
use crate::transport::tcp::{IdleRestart, InitialWindow, SendLimit, TcpConfig};

const KEYS: &[&str] = &[
    "kind", "cc", "recovery", "sack", "mss", "initial_window", "nodelay", "delayed_ack", "delack_timeout",
    "initial_rto", "min_rto", "max_rto", "granularity", "rcv_window", "send_buffer", "idle_restart", "ecn",
    "timestamps", "handshake", "framing", "vegas", "cubic", "westwood", "real",
];

fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> String {
    format!("one of {}", all.iter().map(|a| format!("\"{}\"", name(*a))).collect::<Vec<_>>().join(", "))
}

pub(super) fn tcp(t: &Table) -> R<TcpConfig> {
    t.only(KEYS, " (for kind = \"tcp\")")?;
    let mut c = TcpConfig::default();
    if let Some(n) = t.opt("cc") {
        let allowed = format!("{} (or \"westwood+\")", names(&CcAlgorithm::ALL, CcAlgorithm::name));
        c.cc = CcAlgorithm::from_name(n.str(&allowed)?).ok_or_else(|| n.err(allowed))?;
    }
    if let Some(n) = t.opt("recovery") {
        let allowed = names(&Recovery::ALL, Recovery::name);
        c.recovery = Some(Recovery::from_name(n.str(&allowed)?).ok_or_else(|| n.err(allowed))?);
    }
    t.set("sack", &mut c.sack, |n| n.bool().map(Some))?;
    t.set("mss", &mut c.mss, |n| Ok(n.bytes(1, 65_495, "a maximum segment size")? as u32))?;
    if let Some(n) = t.opt("initial_window") {
        const IW: &str = "a number of segments from 1 to 1000, or \"rfc2581\", \"rfc3390\", \"rfc6928\"";
        c.initial_window = match (n.v.as_u64(), n.v.as_str()) {
            (Some(k), _) if (1..=1000).contains(&k) => InitialWindow::Segments(k as u32),
            (_, Some("rfc2581")) => InitialWindow::Rfc2581,
            (_, Some("rfc3390")) => InitialWindow::Rfc3390,
            (_, Some("rfc6928")) => InitialWindow::Rfc6928,
            _ => return Err(n.err(IW)),
        };
    }
    for (key, slot) in [
        ("nodelay", &mut c.nodelay),
        ("delayed_ack", &mut c.delayed_ack),
        ("ecn", &mut c.ecn),
        ("timestamps", &mut c.timestamps),
        ("handshake", &mut c.handshake),
    ] {
        t.set(key, slot, |n| n.bool())?;
    }
    if let Some(n) = t.opt("delack_timeout") {
        let d = n.positive_duration()?;
        if d > SimDuration::from_millis(500) {
            return Err(n.err("a positive duration of at most 500ms (RFC 5681 §4.2)"));
        }
        c.delack_timeout = d;
    }
    t.set("initial_rto", &mut c.initial_rto, |n| n.positive_duration())?;
    t.set("min_rto", &mut c.min_rto, |n| n.duration())?;
    t.set("max_rto", &mut c.max_rto, |n| n.positive_duration())?;
    t.set("granularity", &mut c.granularity, |n| n.duration())?;
    if c.min_rto > c.max_rto {
        let n = t.opt("min_rto").or_else(|| t.opt("max_rto")).unwrap();
        return Err(n.err(format!("min_rto ≤ max_rto (here {} and {})", units::format_duration(c.min_rto), units::format_duration(c.max_rto))));
    }
    if c.initial_rto < c.min_rto || c.initial_rto > c.max_rto {
        let n = t.opt("initial_rto").or_else(|| t.opt("min_rto")).or_else(|| t.opt("max_rto")).unwrap();
        return Err(n.err(format!("an initial_rto between min_rto ({}) and max_rto ({})", units::format_duration(c.min_rto), units::format_duration(c.max_rto))));
    }
    if let Some(n) = t.opt("rcv_window") {
        let w = n.bytes(1, u32::MAX as u64, "a receive window")?;
        if w < c.mss as u64 {
            return Err(n.err(format!("a window of at least one segment (mss = {} B)", c.mss)));
        }
        c.rcv_window = w;
    } else if c.rcv_window < c.mss as u64 {
        c.rcv_window = c.mss as u64;
    }
    if let Some(n) = t.opt("send_buffer") {
        const SB: &str = "a send buffer in application writes (\"5p\") or bytes (\"64kB\")";
        c.send_buffer = match n.v.as_str() {
            Some(s) if s.trim_end().ends_with('p') => SendLimit::Writes(n.packets(1, MAX_QUEUE_PACKETS, "a send buffer")? as u32),
            Some(_) => SendLimit::Bytes(n.bytes(1, 1 << 40, "a send buffer")?),
            None => return Err(n.err(SB)),
        };
    }
    if let Some(n) = t.opt("idle_restart") {
        let allowed = names(&IdleRestart::ALL, IdleRestart::name);
        c.idle_restart = IdleRestart::from_name(n.str(&allowed)?).ok_or_else(|| n.err(allowed))?;
    }
    t.set("framing", &mut c.framing, |n| Ok(n.bytes(0, 8, "a length prefix")? as u32))?;
    if c.recovery() == Recovery::Sack && c.sack == Some(false) {
        return Err(t.opt("sack").unwrap().err("true, or a recovery other than \"sack\" (SACK recovery needs SACK blocks)"));
    }
    params(t, &mut c)?;
    // Normalized: the defaults that depend on `cc` are resolved here, so a
    // scenario and its written-out form are equal.
    c.recovery = Some(c.recovery());
    c.sack = Some(c.sack());
    Ok(c)
}

/// The controller's own table; one given for another controller is an
/// error naming the one it belongs to.
fn params(t: &Table, c: &mut TcpConfig) -> R<()> {
    for (key, owner) in [("vegas", CcAlgorithm::Vegas), ("cubic", CcAlgorithm::Cubic), ("westwood", CcAlgorithm::Westwood), ("real", CcAlgorithm::Real)] {
        let Some(n) = t.opt(key) else { continue };
        if c.cc != owner {
            return Err(n.err(format!("no {key} table: it applies to cc = \"{}\" only (here cc = \"{}\")", owner.name(), c.cc.name())));
        }
        let p = n.table(&format!("a {key} parameter table"))?;
        let num = |k: &str, slot: &mut f64, ok: fn(f64) -> bool, allowed: &str| p.set(k, slot, |n| n.num(ok, allowed));
        let ctx = format!(" (for {key})");
        match owner {
            CcAlgorithm::Vegas => {
                p.only(&["alpha", "beta", "gamma"], &ctx)?;
                let v = &mut c.params.vegas;
                num("alpha", &mut v.alpha, |x| x >= 0.0, "a number of segments ≥ 0")?;
                num("beta", &mut v.beta, |x| x >= 0.0, "a number of segments ≥ 0")?;
                num("gamma", &mut v.gamma, |x| x >= 0.0, "a number of segments ≥ 0")?;
                if v.alpha > v.beta {
                    return Err(p.opt("alpha").or_else(|| p.opt("beta")).unwrap().err(format!("alpha ≤ beta (here {} and {})", v.alpha, v.beta)));
                }
            }
            CcAlgorithm::Cubic => {
                p.only(&["c", "beta", "fast_convergence", "tcp_friendliness"], &ctx)?;
                let v = &mut c.params.cubic;
                num("c", &mut v.c, |x| x > 0.0, "a positive number (RFC 9438: 0.4)")?;
                num("beta", &mut v.beta, |x| x > 0.0 && x < 1.0, "a number in (0, 1) (RFC 9438: 0.7)")?;
                p.set("fast_convergence", &mut v.fast_convergence, |n| n.bool())?;
                p.set("tcp_friendliness", &mut v.tcp_friendliness, |n| n.bool())?;
            }
            CcAlgorithm::Westwood => {
                p.only(&["gain"], &ctx)?;
                num("gain", &mut c.params.westwood.gain, |x| x > 0.0 && x < 1.0, "a number in (0, 1)")?;
            }
            _ => {
                p.only(&["wave", "congestion_threshold", "max_gap"], &ctx)?;
                let v = &mut c.params.real;
                p.set("wave", &mut v.wave, |n| Ok(n.int(2, 1000, "a wave of 2 to 1000 segments")? as u32))?;
                num("congestion_threshold", &mut v.congestion_threshold, |x| x > 0.0 && x < 1.0, "a fraction in (0, 1)")?;
                p.set("max_gap", &mut v.max_gap, |n| n.positive_duration())?;
            }
        }
    }
    Ok(())
}

/// The normalized table: every key written, so a manifest's scenario reads
/// back identical.
pub(super) fn tcp_json(c: &TcpConfig) -> serde_json::Value {
    use serde_json::json;
    let d = units::format_duration;
    let mut v = json!({
        "kind": "tcp",
        "cc": c.cc.name(),
        "recovery": c.recovery().name(),
        "sack": c.sack(),
        "mss": format!("{}B", c.mss),
        "nodelay": c.nodelay,
        "delayed_ack": c.delayed_ack,
        "delack_timeout": d(c.delack_timeout),
        "initial_rto": d(c.initial_rto),
        "min_rto": d(c.min_rto),
        "max_rto": d(c.max_rto),
        "granularity": d(c.granularity),
        "rcv_window": format!("{}B", c.rcv_window),
        "send_buffer": match c.send_buffer {
            SendLimit::Bytes(b) => format!("{b}B"),
            SendLimit::Writes(n) => format!("{n}p"),
        },
        "idle_restart": c.idle_restart.name(),
        "ecn": c.ecn,
        "timestamps": c.timestamps,
        "handshake": c.handshake,
        "framing": format!("{}B", c.framing),
    });
    v["initial_window"] = match c.initial_window {
        InitialWindow::Segments(k) => json!(k),
        w => json!(w.name()),
    };
    let p = &c.params;
    match c.cc {
        CcAlgorithm::Vegas => v["vegas"] = json!({ "alpha": p.vegas.alpha, "beta": p.vegas.beta, "gamma": p.vegas.gamma }),
        CcAlgorithm::Cubic => {
            v["cubic"] = json!({ "c": p.cubic.c, "beta": p.cubic.beta, "fast_convergence": p.cubic.fast_convergence, "tcp_friendliness": p.cubic.tcp_friendliness })
        }
        CcAlgorithm::Westwood => v["westwood"] = json!({ "gain": p.westwood.gain }),
        CcAlgorithm::Real => {
            v["real"] = json!({ "wave": p.real.wave, "congestion_threshold": p.real.congestion_threshold, "max_gap": d(p.real.max_gap) })
        }
        _ => {}
    }
    v
}
