//! Call groups: codec and ptime, bitrate, playout, speech, start window,
//! RTP/RTCP keys and codec-mode lists.

use super::*;


/// `bitrate`: one of packet and interval, a payload left after the headers,
/// and ptime (if written) equal to the interval. Returns the interval.
pub(super) fn bitrate(cx: &Ctx, p: &str, c: &CallGroupCfg, b: &BitrateCfg) -> R<SimDuration> {
    let bp = format!("{p}.bitrate");
    match (b.packet, b.interval) {
        (Some(_), Some(_)) => {
            return Err(cx.err(&format!("{bp}.interval"), "no interval with packet: a fixed packet size or a fixed interval, not both"))
        }
        (None, None) => return Err(cx.err(&bp, "a packet or an interval, e.g. { rate = \"32kbps\", packet = \"512B\" }")),
        _ => {}
    }
    let key = if b.packet.is_some() { "packet" } else { "interval" };
    let (iv, bytes) = b.resolve(c.overhead_bytes);
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

pub(super) fn call(cx: &Ctx, p: &str, c: &mut CallGroupCfg, net: &Net, run: SimDuration) -> R<()> {
    net.group_endpoints(cx, p, &c.from, &c.to, c.spread, c.count)?;
    let codecs = crate::scenario::fields::codecs_text();
    let Some(k) = codec::lookup(&c.codec) else {
        let name = c.codec.to_ascii_lowercase();
        let close = codec::names().into_iter().find(|k| {
            k.eq_ignore_ascii_case(&name) || crate::scenario::de::edit_distance(&k.to_ascii_lowercase(), &name) <= 1
        });
        let hint = close.map(|k| format!(" (did you mean \"{k}\"?)")).unwrap_or_default();
        return Err(cx.err(&format!("{p}.codec"), format!("{codecs}{hint}")));
    };
    c.codec = k.name.to_string();
    if matches!(c.adapt, crate::scenario::rtp::AdaptCfg::Avoip { .. }) {
        // Before the codec's ptime rules: an avoip call has no ptime at all,
        // whatever its value (`125ms` would otherwise be blamed on G.711's frame).
        if cx.given(&format!("{p}.ptime")) {
            return Err(cx.err(&format!("{p}.ptime"), "no ptime with adapt = { kind = \"avoip\" }: it sends a packet every adapt.interval (default 125ms)"));
        }
        if c.bitrate.is_some() {
            return Err(cx.err(&format!("{p}.bitrate"), "no bitrate with adapt = { kind = \"avoip\" }: the adaptation sets the rate (adapt.start_rate, adapt.interval)"));
        }
    }
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
            crate::scenario::speech::check(&format!("{p}.speech"), s, c.count, frame, limit).map_err(|(path, a)| cx.err(&path, a))?;
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
        TransportCfg::Dccp(d) => call_rate(cx, &format!("{p}.transport"), d, true)?,
        TransportCfg::Tfrc(d) => call_rate(cx, &format!("{p}.transport"), d, false)?,
        _ => {}
    }
    trunk(cx, p, c, ptime)
}

/// A call's DCCP or TFRC table. `packet` is the segment size of a bulk
/// sender (`RateConfig::packet`, for `[[traffic]] kind = "bulk"`): a
/// call's segments are its voice packets, whose size TFRC takes as s from
/// the first one (RFC 5348 §4.1, build.rs `hint_segment`), and TFRC-SP
/// computes with the nominal 1460 B segment (RFC 4828 §4.1), so on a call
/// it would do nothing and is refused. CCID 2 (RFC 4341 §5) sizes its
/// initial window from it, so there it stays. Written back without it.
fn call_rate(cx: &Ctx, p: &str, d: &mut RateDoc, dccp: bool) -> R<()> {
    let ccid2 = dccp && d.ccid == Some(2);
    if !ccid2 && cx.given(&format!("{p}.packet")) {
        let sp = if dccp { "ccid = 4" } else { "small_packets = true" };
        return Err(cx.err(
            &format!("{p}.packet"),
            format!("no packet key on a call's transport: it sets a bulk sender's segment size ([[traffic]] kind = \"bulk\"); a call sends its voice packets, TFRC's s is their size (RFC 5348 §4.1), and TFRC-SP ({sp}) computes its rate with the nominal 1460 B segment fixed by RFC 4828 §4.1"),
        ));
    }
    rate(cx, p, d, dccp)?;
    if !ccid2 {
        d.packet = None;
    }
    Ok(())
}

/// `trunk`: a timer within Asterisk's range, one host pair, no RTP
/// machinery (IAX2 trunks carry no RTP), and an mtu a frame fits in.
fn trunk(cx: &Ctx, p: &str, c: &CallGroupCfg, ptime: SimDuration) -> R<()> {
    use crate::scenario::trunk::{MAX_INTERVAL, MIN_INTERVAL};
    let Some(t) = &c.trunk else { return Ok(()) };
    if t.interval < MIN_INTERVAL || t.interval > MAX_INTERVAL {
        return Err(cx.err(&format!("{p}.trunk.interval"), "a trunk timer from 1ms to 1s (Asterisk's trunkfreq: 10ms to 1s)"));
    }
    let why = "with trunk (one IAX2 connection carries the group's calls)";
    if c.spread {
        return Err(cx.err(&format!("{p}.spread"), format!("false {why}: a trunk joins one pair of hosts")));
    }
    if c.rtcp.is_some() {
        return Err(cx.err(&format!("{p}.rtcp"), format!("no rtcp {why}: IAX2 trunk frames carry no RTP")));
    }
    if c.feedback.is_some() {
        return Err(cx.err(&format!("{p}.feedback"), format!("no feedback {why}")));
    }
    if !matches!(c.adapt, crate::scenario::rtp::AdaptCfg::None) {
        return Err(cx.err(&format!("{p}.adapt"), format!("no adaptation {why}")));
    }
    if let (Some(m), Some(k)) = (t.mtu, crate::scenario::group_codec(c)) {
        let payload = (ptime.as_nanos() / k.frame.as_nanos().max(1)).max(1) as u64 * k.frame_bytes as u64;
        let least = t.header as u64 + t.entry as u64 + payload;
        if (m as u64) < least {
            return Err(cx.err(&format!("{p}.trunk.mtu"), format!("at least {least}B: the trunk header, one entry and one packet's frames")));
        }
    }
    Ok(())
}



/// RTP keys: feedback and adaptation need RTCP; adaptation parameters in
/// order and within the codec's ptimes.
pub(super) fn rtp(cx: &Ctx, p: &str, c: &CallGroupCfg, k: &codec::Codec, ptime: SimDuration) -> R<()> {
    use crate::scenario::rtp::AdaptCfg;
    if c.rtcp.is_none() {
        if c.feedback.is_some() {
            return Err(cx.err(&format!("{p}.feedback"), "no feedback without RTCP: add rtcp = { interval = \"rfc3550\" } (or \"fixed\") to the call"));
        }
        if !matches!(c.adapt, AdaptCfg::None | AdaptCfg::TfrcCodec { .. }) {
            return Err(cx.err(&format!("{p}.adapt"), "kind = \"none\" without RTCP: an adaptive sender needs rtcp = { … } to hear reports"));
        }
    }
    if let Some(r) = c.rtcp.as_ref().filter(|r| r.interval == crate::scenario::rtp::IntervalKind::Fixed) {
        // These shape RFC 3550's randomised interval (§6.2–6.3, rtp/timing.rs
        // reads them only there); a fixed schedule sends every min_interval.
        for key in crate::scenario::rtp::RFC3550_ONLY {
            if cx.given(&format!("{p}.rtcp.{key}")) {
                return Err(cx.err(&format!("{p}.rtcp.{key}"), format!("no {key} key with interval = \"fixed\": it shapes RFC 3550's randomised interval (§6.2–6.3), and a fixed schedule sends a report every min_interval ({}); drop it, or set interval = \"rfc3550\"", dur(r.min_interval))));
            }
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
            } else if thresholds.is_some() || crate::scenario::build::patent_table(k).is_none() {
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
            let (lo, hi) = crate::scenario::build::busse_range(k, *min_ptime, *max_ptime);
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
        AdaptCfg::Avoip { min_rate, max_rate, step, start_rate, max_loss, min_loss, no_report, .. } => {
            // §2.2: the source steps down when no report came for
            // no_report (5 s). A schedule whose reports are never closer
            // than that always loses the race (the report also queues on
            // its way): every source would sit at the minimum rate.
            if let Some(r) = &c.rtcp {
                use crate::scenario::rtp::IntervalKind;
                // RFC 3550 §6.3.1: the shortest draw is Tmin·0.5/(e − 3/2).
                let shortest = match r.interval {
                    IntervalKind::Fixed => Some(r.min_interval),
                    IntervalKind::Rfc3550 if !r.reduced_min => {
                        Some(SimDuration::from_secs_f64(r.min_interval.as_secs_f64() * 0.5 / (std::f64::consts::E - 1.5)))
                    }
                    IntervalKind::Rfc3550 => None,
                };
                if let Some(t) = shortest.filter(|t| t >= no_report) {
                    return Err(cx.err(
                        &format!("{p}.adapt.no_report"),
                        format!(
                            "longer than the RTCP report interval (reports at least {} apart with this rtcp table, no_report {}): no report can arrive in time and the source would step down before every one; shorten rtcp.min_interval (ns-2's Session/RTP reports every 1s) or lengthen no_report",
                            dur(t),
                            dur(*no_report)
                        ),
                    ));
                }
            }
            let kbps = |x: u64| format!("{}kbps", x as f64 / 1e3);
            cx.order(&format!("{p}.adapt"), ("min_rate", *min_rate), ("max_rate", *max_rate), true, ("a rate", kbps))?;
            if let Some(r) = start_rate {
                if r < min_rate || r > max_rate {
                    return Err(cx.err(&format!("{p}.adapt.start_rate"), format!("a rate from min_rate to max_rate ({} to {})", kbps(*min_rate), kbps(*max_rate))));
                }
                // Seed 004 §2.2: rates move on a ladder, min_rate + k·step;
                // a start between rungs would keep the source off it (12 kb/s
                // steps to 20, 28, …, never to the table's rates).
                if (r - min_rate) % step.max(&1) != 0 {
                    let rungs: Vec<u64> = (0..).map(|k| min_rate + k * step).take_while(|x| x <= max_rate).collect();
                    let shown = if rungs.len() <= 12 {
                        rungs.iter().map(|x| kbps(*x)).collect::<Vec<_>>().join(", ")
                    } else {
                        format!("{}, {}, …, {}", kbps(rungs[0]), kbps(rungs[1]), kbps(*rungs.last().unwrap()))
                    };
                    return Err(cx.err(&format!("{p}.adapt.start_rate"), format!("a rate on the adaptation's ladder, min_rate + k·step: {shown}")));
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
pub(super) fn mode_list(cx: &Ctx, p: &str, c: &CallGroupCfg, k: &codec::Codec, modes: &Option<Vec<String>>, kind: &str) -> R<()> {
    if c.bitrate.is_some() {
        return Err(cx.err(&format!("{p}.bitrate"), format!("no bitrate with adapt = {{ kind = \"{kind}\" }}: the codec's modes set the rate")));
    }
    let fams = codec::MODE_FAMILIES.map(|f| format!("{f}-…")).join(", ");
    match crate::scenario::build::mode_ladder(k, modes.as_deref()) {
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
