//! The per-packet table: one row per voice packet with its times and fate.

use super::record::{CallRecord, NetFate, NEVER, NO_WHERE};
use super::table::{secs, Column, Table};

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

/// Build the table for all calls: `played[c]` is call `c`'s playout time
/// per packet (`NEVER` where not played), from its playout buffer;
/// `where_cats` names the channels (the `where` column, trace only). The
/// scorer appends its per-packet columns (`score::summary::packets_table`).
pub fn packets_table(records: &[&CallRecord], played: &[&[u64]], where_cats: &[String]) -> Table {
    let n: usize = records.iter().map(|r| r.len()).sum();
    let full = records.iter().all(|r| r.full);
    let mut call = Vec::with_capacity(n);
    let mut seq = Vec::with_capacity(n);
    let mut spurt = Vec::with_capacity(n);
    let (mut frames, mut payload, mut wire) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::new());
    let (mut tg, mut ts, mut ta, mut tp) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let mut fate = Vec::with_capacity(n);
    let mut where_ = Vec::new();
    // Where codes: 0 = none, 1 = sender, 2.. = channels.
    let mut cats = vec![String::new(), "sender".to_string()];
    cats.extend(where_cats.iter().cloned());
    for (c, (r, p)) in records.iter().zip(played).enumerate() {
        let r = r.columns(full);
        for i in 0..r.len() {
            call.push(c as u32);
            seq.push(i as u32);
            spurt.push(r.talkspurt[i]);
            frames.push(r.frames[i] as u32);
            payload.push(r.payload[i]);
            tg.push(secs(r.t_gen[i]));
            ts.push(secs(r.t_sent[i]));
            ta.push(secs(r.t_arr[i]));
            tp.push(secs(p[i]));
            fate.push(fate_code(r.fate[i], p[i]));
            if full {
                wire.push(r.wire[i]);
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
    t.push("frames", Column::U32(frames));
    t.push("payload_bytes", Column::U32(payload));
    if full {
        t.push("wire_bytes", Column::U32(wire));
    }
    t.push("t_generated", Column::F64(tg));
    t.push("t_sent", Column::F64(ts));
    t.push("t_arrived", Column::F64(ta));
    t.push("t_played", Column::F64(tp));
    t.push("fate", Column::Cat { codes: fate, cats: FATES.iter().map(|s| s.to_string()).collect() });
    if full {
        t.push("where", Column::Cat { codes: where_, cats });
    }
    t
}
