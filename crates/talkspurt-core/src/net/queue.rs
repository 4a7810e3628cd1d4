//! Queue disciplines of a link direction, and their configuration.
//!
//! - Drop-tail FIFO and RED decide when a packet arrives; for a FIFO the
//!   start of each packet's serialization is fixed on arrival, so the
//!   channel keeps no packets for them (`channel.rs`, lazy FIFO).
//! - CoDel, FQ-CoDel and PIE hold the packets themselves (`held.rs`): CoDel
//!   drops at dequeue, FQ-CoDel reorders, and PIE's controller reads the
//!   sojourn time of dequeued packets.
//!
//! Every limit counts packets (or bytes) waiting, not the one on the wire —
//! ns-2's DropTail convention (verified against ns-2 in bench/README.md).

pub use super::codel::CoDelParams;
pub use super::fq_codel::FqCoDelParams;
pub use super::pie::PieParams;
pub use super::red::RedParams;

/// A queue's capacity: packets waiting, or bytes waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether a packet of `size` bytes no longer fits behind `pkts`
    /// packets of `bytes` bytes.
    #[inline]
    pub fn full(self, pkts: usize, bytes: u64, size: u32) -> bool {
        match self {
            QueueLimit::Packets(n) => pkts >= n as usize,
            QueueLimit::Bytes(b) => bytes + size as u64 > b,
        }
    }
}

/// A link direction's discipline and its parameters (defaults and sources
/// in each module and in docs/models/network.md).
#[derive(Clone, Debug, PartialEq)]
pub enum Discipline {
    DropTail,
    Red(RedParams),
    CoDel(CoDelParams),
    FqCoDel(FqCoDelParams),
    Pie(PieParams),
}

/// What an arrival-time AQM decides for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with the IP ECN field set to CE (RFC 3168 §5).
    Mark,
    /// An early (AQM) drop.
    Drop,
}
