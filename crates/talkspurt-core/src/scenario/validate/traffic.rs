//! Cross-traffic groups: endpoints, start and stop, on/off distributions,
//! active windows, and the traffic kind against its transport.

use super::*;

pub(super) fn traffic(cx: &Ctx, p: &str, doc: &TrafficDoc, net: &Net, run: SimDuration) -> R<TrafficCfg> {
    let mut t = doc.cfg();
    net.group_endpoints(cx, p, &t.from, &t.to, t.spread, t.count)?;
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
