//! Streaming scoring's side of a call's records: a consumer that takes
//! the packet events in place of stored records.

use super::NetFate;

/// A consumer of one call's packet events in place of stored records: the
/// world's calls below (`push`, `sent`, `arrived`, `set_fate`) are handed
/// to it as they happen (score::stream folds them into per-call
/// accumulators, issue 14). Times are ns.
pub trait RecordSink: Send + Sync + std::fmt::Debug {
    /// A packet generated at `t_gen`; returns its sequence number.
    fn push(&mut self, t_gen: u64, talkspurt: u32, frames: u32, payload: u32) -> u32;
    fn sent(&mut self, seq: u32, now: u64);
    fn arrived(&mut self, seq: u32, now: u64);
    fn set_fate(&mut self, seq: u32, fate: NetFate);
    /// Packets generated.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The run is over: fold what is still open (in flight).
    fn finish(&mut self);
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}
