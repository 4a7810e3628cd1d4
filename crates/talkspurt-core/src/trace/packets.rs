//! The per-packet table's fate codes: one row per voice packet with its
//! times and fate (built by `score::packets` from the records).

use super::record::{NetFate, NEVER};

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
