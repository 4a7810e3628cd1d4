//! Assemble a finished world into tables: calls, packets, groups, bursts,
//! talkspurts (from the scored calls), links, traffic, time series.

use crate::score::packets::Packets;
use crate::score::{call_tables_until, AnalysisCfg, CallInfo};
use std::sync::atomic::{AtomicBool, Ordering};
use crate::metrics::adaptation::{adapt_stats, AdaptStats};
use crate::sim::world::{Call, Side, World};
use crate::voice::adapt::Cause;
use crate::transport::tcp::TcpCounters;
use crate::trace::{Column, Table};

#[derive(Default)]
pub struct Report {
    pub calls: Table,
    /// Built a column at a time when read (`Packets::column`, `table`).
    pub packets: Option<Packets>,
    pub links: Table,
    pub traffic: Table,
    pub series: Table,
    /// One row per call group and one for the whole run.
    pub groups: Table,
    /// Back-to-back run histograms per call.
    pub bursts: Table,
    /// The bounds' per-talkspurt playout points (None without bounds).
    pub talkspurts: Option<Table>,
}

impl Report {
    /// A fingerprint of every table (FNV-1a, `trace::table::digest`): the
    /// guard that speed work leaves results bit-identical.
    pub fn digest(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let opt = |t: &Option<Table>| t.clone().unwrap_or_default();
        crate::trace::table::digest(&self.calls, &mut h);
        if let Some(p) = &self.packets {
            p.digest(&mut h);
        }
        for t in [&self.links, &self.traffic, &self.series, &self.groups, &self.bursts, &opt(&self.talkspurts)] {
            crate::trace::table::digest(t, &mut h);
        }
        h
    }
}

fn links_table(w: &World) -> Table {
    let ch = &w.topo.channels;
    let end_ns = w.q.now().0.max(1) as f64;
    let mut t = Table::default();
    t.push("link", Column::Str(ch.iter().map(|c| c.name.clone()).collect()));
    t.push("rate_bps", Column::F64(ch.iter().map(|c| c.rate_bps as f64).collect()));
    t.push("delay_ms", Column::F64(ch.iter().map(|c| c.delay.as_millis_f64()).collect()));
    t.push("offered", Column::I64(ch.iter().map(|c| c.stats.offered as i64).collect()));
    t.push("queue_drops", Column::I64(ch.iter().map(|c| c.stats.queue_drops as i64).collect()));
    t.push("link_losses", Column::I64(ch.iter().map(|c| c.stats.link_losses as i64).collect()));
    t.push("delivered", Column::I64(ch.iter().map(|c| c.stats.delivered as i64).collect()));
    // The share of the run [0, end] the transmitter was busy (not counting
    // what it still had to send after the end: `Channel::busy_within`).
    t.push("utilization", Column::F64(ch.iter().map(|c| c.busy_within(w.q.now()) as f64 / end_ns).collect()));
    // Per packet, not per unit of time: the queueing wait of each packet
    // the queue accepted (a lazy FIFO fixes it on acceptance, so a packet
    // still waiting at the end counts its whole wait, in the sum and in
    // `served` alike; a holding queue counts a packet when it leaves the
    // queue). Nothing here is divided by the run's length, so the time a
    // wait runs past the end is no over-count, unlike `queue_mean`'s
    // integral; clipping such waits at the end would understate them.
    t.push(
        "wait_mean_ms",
        Column::F64(ch.iter().map(|c| if c.stats.served == 0 { 0.0 } else { c.stats.wait_sum_ns as f64 / c.stats.served as f64 * 1e-6 }).collect()),
    );
    t.push("wait_max_ms", Column::F64(ch.iter().map(|c| c.stats.wait_max_ns as f64 * 1e-6).collect()));
    // Sampled at arrivals, all within the run: no end-of-run part.
    t.push("max_queue", Column::I64(ch.iter().map(|c| c.stats.max_queue_len as i64).collect()));
    t.push("aqm_drops", Column::I64(ch.iter().map(|c| c.stats.aqm_drops as i64).collect()));
    t.push("ecn_marks", Column::I64(ch.iter().map(|c| c.stats.ecn_marks as i64).collect()));
    // Time-average packets waiting over [0, end]: ∫ queue length dt within
    // the run / its length. The raw integral also held the waits' parts
    // after the end (packets still queued then), as `busy_ns` did for
    // utilization: `Channel::queue_integral_within` clips it.
    t.push("queue_mean", Column::F64(ch.iter().map(|c| c.queue_integral_within(w.q.now()) as f64 / end_ns).collect()));
    t
}

fn traffic_table(w: &World, labels: &[String]) -> Table {
    let tr = &w.traffic;
    let mut t = Table::default();
    t.push("source", Column::U32((0..tr.len() as u32).collect()));
    t.push("group", Column::Str(tr.iter().map(|a| labels[a.group as usize].clone()).collect()));
    t.push("sent_packets", Column::I64(tr.iter().map(|a| a.counters.sent_pkts as i64).collect()));
    t.push("sent_bytes", Column::I64(tr.iter().map(|a| a.counters.sent_bytes as i64).collect()));
    t.push("received_packets", Column::I64(tr.iter().map(|a| a.counters.recv_pkts as i64).collect()));
    t.push("received_bytes", Column::I64(tr.iter().map(|a| a.counters.recv_bytes as i64).collect()));
    // Over the measurement interval ([analysis] interval, default the
    // generation period): goodput (payload delivered in order), sent rate
    // (IP bytes the sender transmitted, retransmissions included), and
    // TCP's counters and mean RTT/RTO.
    let (t0, t1) = w.interval;
    let dur = t1.saturating_since(t0).as_secs_f64().max(1e-12);
    t.push("goodput_bps", Column::F64(tr.iter().map(|a| a.counters.recv_bytes_interval as f64 * 8.0 / dur).collect()));
    t.push("sent_bps", Column::F64(tr.iter().map(|a| a.counters.wire_bytes_interval as f64 * 8.0 / dur).collect()));
    let tcp: Vec<Option<&TcpCounters>> =
        tr.iter().map(|a| w.flows[a.flow as usize].sender.tcp().map(|s| &s.stats.interval)).collect();
    let stat = |f: fn(&TcpCounters) -> i64| Column::I64(tcp.iter().map(|s| s.map_or(0, f)).collect());
    t.push("segments_sent", stat(|s| s.segments_sent as i64));
    t.push("retransmits", stat(|s| s.retransmits as i64));
    t.push("fast_retransmits", stat(|s| s.fast_retransmits as i64));
    t.push("timeouts", stat(|s| s.timeouts as i64));
    // Per-sample means in ms; NaN without samples (not TCP, or none).
    let per_sample = |sum: fn(&TcpCounters) -> u128| {
        let mean = |s: &&TcpCounters| (s.rtt_samples > 0).then(|| sum(s) as f64 / s.rtt_samples as f64 * 1e-6);
        Column::F64(tcp.iter().map(|s| s.as_ref().and_then(mean).unwrap_or(f64::NAN)).collect())
    };
    t.push("rtt_mean_ms", per_sample(|s| s.rtt_sum_ns));
    t.push("rto_mean_ms", per_sample(|s| s.rto_sum_ns));
    rate_columns(w, &mut t, tr.iter().map(|a| a.flow));
    teardown_columns(w, &mut t, tr.iter().map(|a| a.flow));
    t
}

/// Columns of the calls table that describe the call's transport and
/// sender rather than its scoring: rescoring (other playout, same packets)
/// keeps them.
pub const TRANSPORT_CALL_COLUMNS: [&str; 24] = [
    "allowed_rate_mean_bps",
    "loss_event_rate_mean",
    "dccp_close_sent",
    "dccp_closereq_sent",
    "dccp_reset_sent",
    "adapt",
    "adapt_changes",
    "adapt_changes_per_min",
    "adapt_reversals",
    "adapt_halvings",
    "adapt_decrements",
    "adapt_increments",
    "adapt_no_report",
    "ptime_mean_ms",
    "bitrate_mean_bps",
    "congestion_onset_s",
    "reaction_s",
    "rtcp_sender_bps",
    "rtcp_receiver_bps",
    "feedback_bps",
    "nack_events",
    "nack_suppressed",
    "cleared",
    "probe_s",
];

/// The sender's adaptation (metrics::adaptation) and the RTCP each side
/// sent, in IP bit/s over the call's generation period. `onsets`: each
/// call's congestion onset, found by its scoring (`Scored::congestion_onset`).
fn adapt_columns(w: &World, onsets: &[Option<u64>], t: &mut Table) {
    let calls = &w.calls;
    let stats: Vec<AdaptStats> = calls
        .iter()
        .zip(onsets)
        .map(|(c, &onset)| adapt_stats(&c.log, c.start.as_nanos(), c.stop.as_nanos(), onset))
        .collect();
    t.push("adapt", Column::Str(calls.iter().map(|c| c.adapt.name().to_string()).collect()));
    t.push("adapt_changes", Column::I64(stats.iter().map(|s| s.changes as i64).collect()));
    t.push("adapt_changes_per_min", Column::F64(stats.iter().map(|s| s.changes_per_min).collect()));
    t.push("adapt_reversals", Column::I64(stats.iter().map(|s| s.reversals as i64).collect()));
    // Changes by cause (seed 004 Fig. 2; zero for adaptations that do not
    // say, whose changes are all `Other`).
    for (name, cause) in [("adapt_halvings", Cause::Halve), ("adapt_decrements", Cause::Decrement), ("adapt_increments", Cause::Increment), ("adapt_no_report", Cause::NoReport)] {
        t.push(name, Column::I64(calls.iter().map(|c| c.log.iter().filter(|p| p.cause == cause).count() as i64).collect()));
    }
    t.push("ptime_mean_ms", Column::F64(stats.iter().map(|s| s.ptime_mean_ms).collect()));
    t.push("bitrate_mean_bps", Column::F64(stats.iter().map(|s| s.bitrate_mean_bps).collect()));
    t.push("congestion_onset_s", Column::F64(stats.iter().map(|s| s.onset_s).collect()));
    t.push("reaction_s", Column::F64(stats.iter().map(|s| s.reaction_s).collect()));
    let bps = |bytes: fn(&Call) -> u64| {
        Column::F64(
            calls
                .iter()
                .map(|c| {
                    let d = c.stop.saturating_since(c.start).as_secs_f64();
                    if d > 0.0 { bytes(c) as f64 * 8.0 / d } else { f64::NAN }
                })
                .collect(),
        )
    };
    t.push("rtcp_sender_bps", bps(|c| c.rtp.tx.counters.regular_bytes));
    t.push("rtcp_receiver_bps", bps(|c| c.rtp.rx.counters.regular_bytes));
    t.push("feedback_bps", bps(|c| c.rtp.rx.counters.early_bytes));
    t.push("nack_events", Column::I64(calls.iter().map(|c| c.rtp.rx.counters.nack_events as i64).collect()));
    t.push("nack_suppressed", Column::I64(calls.iter().map(|c| c.rtp.rx.counters.nack_suppressed as i64).collect()));
    // tfrc-codec's start-up probe: cleared calls, and how long speech waited.
    t.push("cleared", Column::Bool(calls.iter().map(|c| c.adapt.cleared_at().is_some()).collect()));
    t.push("probe_s", Column::F64(calls.iter().map(|c| c.adapt.probe_time().map_or(f64::NAN, |d| d.as_secs_f64())).collect()));
}

/// TFRC-family flows (DCCP CCID 3/4, TFRC): the time-weighted mean allowed
/// rate X (bit/s of segment bytes) and loss event rate p over the
/// measurement interval; NaN for other transports.
fn rate_columns(w: &World, t: &mut Table, flows: impl Iterator<Item = u32>) {
    let end = w.q.now();
    let stats: Vec<_> = flows.map(|f| w.flows[f as usize].sender.rate().map(|r| &r.stats)).collect();
    let mean = |f: fn(&crate::transport::tfrc::RateStats) -> &crate::transport::tfrc::stats::TimeMean, k: f64| {
        Column::F64(stats.iter().map(|s| s.map_or(f64::NAN, |s| f(s).mean(end, s.window) * k)).collect())
    };
    t.push("allowed_rate_mean_bps", mean(|s| &s.x, 8.0));
    t.push("loss_event_rate_mean", mean(|s| &s.p, 1.0));
}

/// DCCP teardown packets the flow's two ends sent over the whole run
/// (RFC 4340 §8.3), retransmissions included: Close (client), CloseReq
/// (server), Reset (either: Closed, Aborted, No Connection, Packet
/// Error); 0 for other transports.
fn teardown_columns(w: &World, t: &mut Table, flows: impl Iterator<Item = u32>) {
    let sent: Vec<_> = flows.map(|f| w.flows[f as usize].sender.teardown() + w.flows[f as usize].receiver.teardown()).collect();
    t.push("dccp_close_sent", Column::I64(sent.iter().map(|s| s.close as i64).collect()));
    t.push("dccp_closereq_sent", Column::I64(sent.iter().map(|s| s.close_req as i64).collect()));
    t.push("dccp_reset_sent", Column::I64(sent.iter().map(|s| s.reset as i64).collect()));
}

/// Endpoint series, then queue series (side "link", `flow` = the row of
/// the link direction in the links table).
fn series_table(w: &World) -> Table {
    let s = &w.series;
    let links = w.topo.channels.iter().enumerate().flat_map(|(i, c)| c.series.iter().flatten().map(move |x| (i as u32, x)));
    let mut t = Table::default();
    let flow = s.iter().map(|x| x.0).chain(links.clone().map(|x| x.0));
    t.push("flow", Column::U32(flow.collect()));
    let side = s.iter().map(|x| if x.1 == Side::Sender { "sender" } else { "receiver" }).chain(links.clone().map(|_| "link"));
    t.push("side", Column::Str(side.map(str::to_string).collect()));
    t.push("t", Column::F64(s.iter().map(|x| x.2.t.as_secs_f64()).chain(links.clone().map(|x| x.1 .0.as_secs_f64())).collect()));
    t.push("name", Column::Str(s.iter().map(|x| x.2.name.to_string()).chain(links.clone().map(|x| x.1 .1.to_string())).collect()));
    t.push("value", Column::F64(s.iter().map(|x| x.2.value).chain(links.map(|x| x.1 .2)).collect()));
    t
}

/// Score every call and build all tables. `trace` adds the packets table.
/// The calls' records move out of the world into scoring (and, with the
/// trace, into the packets table), so they are never held twice.
pub fn report(w: &mut World, infos: &[CallInfo], traffic_labels: &[String], a: &AnalysisCfg, trace: bool) -> Report {
    report_until(w, infos, traffic_labels, a, trace, &AtomicBool::new(false)).expect("never stopped")
}

/// [`report`] that gives up (None) once `stop` is set: an interrupted
/// run's scoring stops between calls instead of finishing (issue 25).
pub fn report_until(w: &mut World, infos: &[CallInfo], traffic_labels: &[String], a: &AnalysisCfg, trace: bool, stop: &AtomicBool) -> Option<Report> {
    let where_cats: Vec<String> = w.topo.channels.iter().map(|c| c.name.clone()).collect();
    // Streaming calls fold what is still in flight (before the onset below).
    for c in &mut w.calls {
        if let Some(s) = c.rec.sink_mut() {
            s.finish();
        }
    }
    let recs = w.calls.iter_mut().map(|c| std::mem::take(&mut c.rec)).collect();
    let mut ct = call_tables_until(recs, infos, a, trace, &where_cats, stop);
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    // The calls table's transport columns (they need no records).
    let mut transport = Table::default();
    rate_columns(w, &mut transport, w.calls.iter().map(|c| c.flow));
    teardown_columns(w, &mut transport, w.calls.iter().map(|c| c.flow));
    adapt_columns(w, &ct.congestion_onsets, &mut transport);
    for (name, col) in transport.columns {
        ct.calls.push(name, col);
    }
    Some(Report {
        calls: ct.calls,
        packets: ct.packets,
        links: links_table(w),
        traffic: traffic_table(w, traffic_labels),
        series: series_table(w),
        groups: ct.groups,
        bursts: ct.bursts,
        talkspurts: ct.talkspurts,
    })
}
