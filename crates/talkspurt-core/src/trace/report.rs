//! Assemble a finished world into tables: calls, packets, links, traffic,
//! time series.

use super::calls::{score_call, CallInfo, CallSummary};
use super::packets::packets_table;
use super::table::{Column, Table};
use crate::sim::world::{Side, World};

pub struct Report {
    pub calls: Table,
    pub packets: Option<Table>,
    pub links: Table,
    pub traffic: Table,
    pub series: Table,
}

macro_rules! summary_columns {
    ($t:ident, $rows:ident; $($name:ident: $kind:ident),* $(,)?) => {
        $( $t.push(stringify!($name), Column::$kind($rows.iter().map(|s| s.$name as _).collect())); )*
    };
}

fn calls_table(infos: &[CallInfo], sums: &[CallSummary]) -> Table {
    let mut t = Table::default();
    t.push("call", Column::U32((0..sums.len() as u32).collect()));
    t.push("group", Column::Str(infos.iter().map(|i| i.group.clone()).collect()));
    t.push("codec", Column::Str(infos.iter().map(|i| i.codec.name.to_string()).collect()));
    t.push("ptime_ms", Column::F64(infos.iter().map(|i| i.ptime.as_millis_f64()).collect()));
    t.push("transport", Column::Str(infos.iter().map(|i| i.transport.to_string()).collect()));
    t.push("playout", Column::Str(infos.iter().map(|i| i.playout.name().to_string()).collect()));
    t.push("start_s", Column::F64(infos.iter().map(|i| i.start_s).collect()));
    summary_columns!(t, sums;
        generated: I64, sender_drop: I64, queue_drop: I64, link_loss: I64, in_flight: I64,
        arrived: I64, late: I64, played: I64);
    let frac = |f: fn(&CallSummary) -> u64| -> Vec<f64> {
        sums.iter().map(|s| if s.generated == 0 { f64::NAN } else { f(s) as f64 / s.generated as f64 }).collect()
    };
    t.push("loss_sender", Column::F64(frac(|s| s.sender_drop)));
    t.push("loss_queue", Column::F64(frac(|s| s.queue_drop)));
    t.push("loss_link", Column::F64(frac(|s| s.link_loss)));
    t.push("loss_late", Column::F64(frac(|s| s.late)));
    summary_columns!(t, sums;
        loss_total: F64, delay_mean_ms: F64, delay_p50_ms: F64, delay_p95_ms: F64, delay_p99_ms: F64,
        delay_max_ms: F64, jitter_ms: F64, buffer_ms: F64, mouth_to_ear_ms: F64, burst_r: F64,
        ie_eff: F64, r: F64, mos: F64, r_simple: F64, mos_simple: F64);
    t.push("emodel_extrapolated", Column::Bool(sums.iter().map(|s| s.emodel_extrapolated).collect()));
    t
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
    t.push("utilization", Column::F64(ch.iter().map(|c| c.stats.busy_ns as f64 / end_ns).collect()));
    t.push(
        "wait_mean_ms",
        Column::F64(ch.iter().map(|c| if c.stats.served == 0 { 0.0 } else { c.stats.wait_sum_ns as f64 / c.stats.served as f64 * 1e-6 }).collect()),
    );
    t.push("wait_max_ms", Column::F64(ch.iter().map(|c| c.stats.wait_max_ns as f64 * 1e-6).collect()));
    t.push("max_queue", Column::I64(ch.iter().map(|c| c.stats.max_queue_len as i64).collect()));
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
    // Goodput over the generation period of the run.
    let dur = w.gen_end.as_secs_f64().max(1e-12);
    t.push("goodput_bps", Column::F64(tr.iter().map(|a| a.counters.recv_bytes as f64 * 8.0 / dur).collect()));
    t
}

fn series_table(w: &World) -> Table {
    let s = &w.series;
    let mut t = Table::default();
    t.push("flow", Column::U32(s.iter().map(|x| x.0).collect()));
    t.push("side", Column::Str(s.iter().map(|x| if x.1 == Side::Sender { "sender" } else { "receiver" }.to_string()).collect()));
    t.push("t", Column::F64(s.iter().map(|x| x.2.t.as_secs_f64()).collect()));
    t.push("name", Column::Str(s.iter().map(|x| x.2.name.to_string()).collect()));
    t.push("value", Column::F64(s.iter().map(|x| x.2.value).collect()));
    t
}

/// Score every call and build the tables. `trace` adds the packets table.
pub fn report(w: &World, infos: &[CallInfo], traffic_labels: &[String], trace: bool) -> Report {
    let mut sums = Vec::with_capacity(w.calls.len());
    let mut played = Vec::with_capacity(if trace { w.calls.len() } else { 0 });
    for (c, info) in w.calls.iter().zip(infos) {
        let (s, p) = score_call(&c.rec, info);
        sums.push(s);
        if trace {
            played.push(p);
        }
    }
    let packets = trace.then(|| {
        let recs: Vec<_> = w.calls.iter().map(|c| &c.rec).collect();
        packets_table(&recs, &played, &w.topo)
    });
    Report {
        calls: calls_table(infos, &sums),
        packets,
        links: links_table(w),
        traffic: traffic_table(w, traffic_labels),
        series: series_table(w),
    }
}
