//! Queue disciplines. Drop-tail FIFO (implemented in `channel.rs`): a
//! packet that finds the queue full is dropped on arrival. The limit counts
//! packets (or bytes) waiting, not the one on the wire — ns-2's DropTail
//! convention (verified against ns-2 in bench/README.md).

/// A queue's capacity: packets waiting, or bytes waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}
