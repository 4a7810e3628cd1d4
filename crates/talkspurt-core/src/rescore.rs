//! Score a finished run again, under other playout buffers or analysis
//! settings, without simulating: the per-packet table holds everything the
//! scorer reads (talkspurt, frames, payload, generation, send and arrival
//! times, network fate).
//!
//! Times come back from the table's f64 seconds as `round(t · 10⁹)` ns,
//! which restores the simulator's integer nanoseconds exactly for times
//! below about 10⁶ s (the product's rounding error stays under 0.5 ns).

use crate::scenario::{call_info, group_codec, group_label, Scenario};
use crate::trace::record::{CallRecord, NetFate, NEVER};
use crate::time::{SimDuration, SimTime};
use crate::score::{call_tables, CallInfo, CallTables};
use crate::trace::packets::FATES;
use crate::voice::codec;

/// The calls table's columns that identify each call.
pub struct CallColumns<'a> {
    pub group: &'a [String],
    pub codec: &'a [String],
    pub ptime_ms: &'a [f64],
    pub start_s: &'a [f64],
    pub stop_s: &'a [f64],
}

/// The packets table's columns the scorer reads; `fate` holds the codes
/// of `trace::packets::FATES`.
pub struct PacketColumns<'a> {
    pub call: &'a [u32],
    pub talkspurt: &'a [u32],
    pub frames: &'a [u32],
    pub payload_bytes: &'a [u32],
    pub t_generated: &'a [f64],
    pub t_sent: &'a [f64],
    pub t_arrived: &'a [f64],
    pub fate: &'a [u32],
}

/// Seconds (NaN = never) back to integer ns.
fn ns(col: &str, row: usize, t: f64) -> Result<u64, String> {
    if t.is_nan() {
        return Ok(NEVER);
    }
    if !(0.0..1.0e6).contains(&t) {
        return Err(format!("packets.{col}[{row}]: got {t}; expected seconds in [0, 1e6) or NaN"));
    }
    Ok((t * 1e9).round() as u64)
}

/// The records of `n_calls` calls from a packets table in (call, seq) order.
pub fn records_from_packets(p: &PacketColumns, n_calls: usize) -> Result<Vec<CallRecord>, String> {
    let n = p.call.len();
    let lens = [p.talkspurt.len(), p.frames.len(), p.payload_bytes.len(), p.t_generated.len(), p.t_sent.len(), p.t_arrived.len(), p.fate.len()];
    if lens.iter().any(|&l| l != n) {
        return Err(format!("packets: columns differ in length ({n} calls entries, others {lens:?})"));
    }
    let mut recs: Vec<CallRecord> = (0..n_calls).map(|_| CallRecord::new(false, 0)).collect();
    for i in 0..n {
        let c = p.call[i] as usize;
        if c >= n_calls {
            return Err(format!("packets.call[{i}]: got {c}; expected a call of the calls table (0..{n_calls})"));
        }
        if i > 0 && (p.call[i] as usize) < p.call[i - 1] as usize {
            return Err(format!("packets.call[{i}]: rows must be ordered by call, then sequence number"));
        }
        let r = &mut recs[c];
        let t_gen = ns("t_generated", i, p.t_generated[i])?;
        let last = r.len().checked_sub(1);
        if t_gen == NEVER || last.is_some_and(|l| t_gen <= r.t_gen(l)) {
            return Err(format!("packets.t_generated[{i}]: got {}; expected times increasing within the call", p.t_generated[i]));
        }
        if i > 0 && last.is_some() && p.talkspurt[i] < p.talkspurt[i - 1] {
            return Err(format!("packets.talkspurt[{i}]: got {}; expected non-decreasing talkspurt ids within the call", p.talkspurt[i]));
        }
        let t_arr = ns("t_arrived", i, p.t_arrived[i])?;
        let fate = match FATES.get(p.fate[i] as usize).copied() {
            Some("played") | Some("late") => NetFate::Arrived,
            Some("sender_drop") => NetFate::SenderDrop,
            Some("queue_drop") => NetFate::QueueDrop,
            Some("link_loss") => NetFate::LinkLoss,
            Some("in_flight") => NetFate::InFlight,
            _ => return Err(format!("packets.fate[{i}]: got code {}; expected one of {}", p.fate[i], FATES.join(", "))),
        };
        if (fate == NetFate::Arrived) != (t_arr != NEVER) || (t_arr != NEVER && t_arr < t_gen) {
            return Err(format!("packets.t_arrived[{i}]: got {}; inconsistent with fate {} and t_generated", p.t_arrived[i], FATES[p.fate[i] as usize]));
        }
        let t_sent = ns("t_sent", i, p.t_sent[i])?;
        if t_sent != NEVER && t_sent < t_gen {
            return Err(format!("packets.t_sent[{i}]: got {}; expected NaN or a time not before t_generated", p.t_sent[i]));
        }
        let seq = r.push(SimTime(t_gen), p.talkspurt[i], p.frames[i], p.payload_bytes[i], 0);
        if t_sent != NEVER {
            r.sent(seq, SimTime(t_sent));
        }
        if fate == NetFate::Arrived {
            r.arrived(seq, SimTime(t_arr));
        } else {
            r.set_fate(seq, fate, crate::trace::record::NO_WHERE);
        }
    }
    Ok(recs)
}

/// Score the calls of a run again under `s` (the scenario as run, with the
/// playout buffers, advantage factors and `[analysis]` to use now). Each
/// call's group is found by its label; codec and ptime must match the
/// scenario's group.
pub fn rescore(s: &Scenario, calls: &CallColumns, packets: &PacketColumns, trace: bool) -> Result<CallTables, String> {
    let n = calls.group.len();
    if [calls.codec.len(), calls.ptime_ms.len(), calls.start_s.len(), calls.stop_s.len()].iter().any(|&l| l != n) {
        return Err("calls: columns differ in length".to_string());
    }
    let labels: Vec<String> = s.calls.iter().enumerate().map(|(g, c)| group_label(&c.label, "calls", g)).collect();
    let mut infos: Vec<CallInfo> = Vec::with_capacity(n);
    for k in 0..n {
        let g = labels.iter().position(|l| *l == calls.group[k]).ok_or_else(|| {
            format!("calls.group[{k}]: got {:?}; expected a group of the scenario ({})", calls.group[k], labels.join(", "))
        })?;
        let c = group_codec(&s.calls[g]).expect("validated scenario");
        let ptime = s.calls[g].ptime.unwrap_or_else(|| codec::default_ptime(&c));
        let ptime_ns = (calls.ptime_ms[k] * 1e6).round();
        if calls.codec[k] != c.name || ptime_ns != ptime.as_nanos() as f64 {
            return Err(format!(
                "calls[{k}]: codec {} at {} ms does not match group {:?} of the scenario ({} at {} ms)",
                calls.codec[k], calls.ptime_ms[k], calls.group[k], c.name, ptime.as_millis_f64()
            ));
        }
        infos.push(call_info(s, g, c, SimDuration(ptime.as_nanos()), calls.start_s[k], calls.stop_s[k]));
    }
    let recs = records_from_packets(packets, n)?;
    Ok(call_tables(recs, &infos, &s.analysis.score(), trace, &[]))
}
