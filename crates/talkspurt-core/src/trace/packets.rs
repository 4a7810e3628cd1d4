//! The per-packet table: one row per voice packet with its times and fate.

use super::calls::{CallInfo, Scored};
use super::table::{secs, Column, Table};
use crate::metrics::windowed_impairments;
use crate::trace::record::{CallRecord, NetFate, NEVER, NO_WHERE};

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

/// Build the table for all calls. `where_cats` names the channels (the
/// `where` column, trace only); `window` is the running window in packets of
/// the windowed impairments (seed 000 Fig. 5.7), computed under each call's
/// playout buffer with the reduced E-model (NaN for codecs without λ).
pub fn packets_table(records: &[&CallRecord], scored: &[Scored], infos: &[CallInfo], window: usize, where_cats: &[String]) -> Table {
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
    let (mut id, mut win_loss, mut win_ie) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    // Where codes: 0 = none, 1 = sender, 2.. = channels.
    let mut cats = vec![String::new(), "sender".to_string()];
    cats.extend(where_cats.iter().cloned());
    for (c, (r, sc)) in records.iter().zip(scored).enumerate() {
        let p = &sc.played;
        let lambda = infos[c].codec.lambda.unwrap_or([f64::NAN; 3]);
        let win = windowed_impairments(&r.t_gen, p, infos[c].offset_ms(), lambda, window);
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
            id.push(win[i].id.unwrap_or(f64::NAN));
            win_loss.push(win[i].loss_fraction);
            win_ie.push(win[i].ie);
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
    t.push("id", Column::F64(id));
    t.push("window_loss", Column::F64(win_loss));
    t.push("window_ie", Column::F64(win_ie));
    t
}
