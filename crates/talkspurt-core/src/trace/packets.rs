//! The per-packet table: one row per voice packet with its times and fate.

use super::table::{secs, Column, Table};
use crate::net::Topology;
use crate::sim::record::{CallRecord, NetFate, NEVER, NO_WHERE};

/// Packet fates, in the order of the categorical codes.
pub const FATES: [&str; 6] = ["played", "late", "sender_drop", "queue_drop", "link_loss", "in_flight"];

/// Fate code of packet `i` given its playout time.
pub fn fate_code(fate: NetFate, played_at: u64) -> u32 {
    match fate {
        NetFate::Arrived if played_at != NEVER => 0,
        NetFate::Arrived => 1,
        NetFate::SenderDrop => 2,
        NetFate::QueueDrop => 3,
        NetFate::LinkLoss => 4,
        NetFate::InFlight => 5,
    }
}

/// Build the table for all calls; `played[c]` is call c's playout column.
pub fn packets_table(records: &[&CallRecord], played: &[Vec<u64>], topo: &Topology) -> Table {
    let n: usize = records.iter().map(|r| r.len()).sum();
    let mut call = Vec::with_capacity(n);
    let mut seq = Vec::with_capacity(n);
    let mut spurt = Vec::with_capacity(n);
    let mut payload = Vec::with_capacity(n);
    let mut wire = Vec::with_capacity(n);
    let (mut tg, mut ts, mut ta, mut tp) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut fate = Vec::with_capacity(n);
    let mut where_ = Vec::with_capacity(n);
    // Where codes: 0 = none, 1 = sender, 2.. = channels.
    let mut where_cats = vec![String::new(), "sender".to_string()];
    where_cats.extend(topo.channels.iter().map(|c| c.name.clone()));
    for (c, (r, p)) in records.iter().zip(played).enumerate() {
        for i in 0..r.len() {
            call.push(c as u32);
            seq.push(i as u32);
            spurt.push(r.talkspurt[i]);
            tg.push(secs(r.t_gen[i]));
            ta.push(secs(r.t_arr[i]));
            tp.push(secs(p[i]));
            fate.push(fate_code(r.fate[i], p[i]));
            if r.full {
                payload.push(r.payload[i]);
                wire.push(r.wire[i]);
                ts.push(secs(r.t_sent[i]));
                where_.push(match (r.fate[i], r.where_[i]) {
                    (NetFate::SenderDrop, _) => 1,
                    (_, NO_WHERE) => 0,
                    (_, ch) => ch + 2,
                });
            }
        }
    }
    let mut t = Table::default();
    t.push("call", Column::U32(call));
    t.push("seq", Column::U32(seq));
    t.push("talkspurt", Column::U32(spurt));
    if records.iter().all(|r| r.full) {
        t.push("payload_bytes", Column::U32(payload));
        t.push("wire_bytes", Column::U32(wire));
    }
    t.push("t_generated", Column::F64(tg));
    if records.iter().all(|r| r.full) {
        t.push("t_sent", Column::F64(ts));
    }
    t.push("t_arrived", Column::F64(ta));
    t.push("t_played", Column::F64(tp));
    t.push("fate", Column::Cat { codes: fate, cats: FATES.iter().map(|s| s.to_string()).collect() });
    if records.iter().all(|r| r.full) {
        t.push("where", Column::Cat { codes: where_, cats: where_cats });
    }
    t
}
