//! Windowed delay-quantile buffer, in the style of current softphones.
//!
//! Keeps the network delays of the last `window` received packets. At the
//! first arrival of each talkspurt (after adding that packet) it sets
//!
//! ```text
//! base     = min(window)
//! target   = q-quantile(window)            (nearest rank: sorted[ceil(q·n) - 1])
//! offset_k = base + clamp(target - base, min_depth, max_depth)
//! ```
//!
//! Defaults follow WebRTC NetEq's `DelayManager` (quantile 0.95 of the
//! relative arrival delay, delay measured against the fastest packet of a
//! ~2 s history, base minimum delay 0, at most 200 packets buffered): q =
//! 0.95, `window` = 100 packets (2 s at 20 ms; NetEq's histogram forgets with
//! factor 0.983 per packet, a memory of ≈ 60 packets), `min_depth` = 0,
//! `max_depth` = 4 s (200 × 20 ms). Unlike NetEq, which stretches and
//! compresses audio at any time, the offset only changes at talkspurt
//! starts, as every other buffer here.

use std::collections::VecDeque;

use super::online::{replay, OffsetPolicy};
use super::CallTrace;

/// Quantile-tracking adaptive buffer (`"quantile"`).
#[derive(Debug, Clone, PartialEq)]
pub struct QuantileBuffer {
    /// Target quantile of the windowed network delay, in (0, 1]. Default 0.95.
    pub quantile: f64,
    /// Number of most recent received packets in the window (≥ 1). Default 100.
    pub window: usize,
    /// Lower clamp on `target - min(window)`, ns. Default 0.
    pub min_depth: u64,
    /// Upper clamp on `target - min(window)`, ns. Default 4 s.
    pub max_depth: u64,
}

impl Default for QuantileBuffer {
    fn default() -> Self {
        QuantileBuffer { quantile: 0.95, window: 100, min_depth: 0, max_depth: 4_000_000_000 }
    }
}

struct Policy<'c> {
    cfg: &'c QuantileBuffer,
    recent: VecDeque<u64>,
    scratch: Vec<u64>,
}

impl OffsetPolicy for Policy<'_> {
    fn on_arrival(&mut self, _k: usize, delay_ns: u64) {
        if self.recent.len() == self.cfg.window.max(1) {
            self.recent.pop_front();
        }
        self.recent.push_back(delay_ns);
    }

    fn talkspurt_offset(&mut self, _k: usize, _first_delay_ns: u64) -> u64 {
        self.scratch.clear();
        self.scratch.extend(self.recent.iter().copied());
        self.scratch.sort_unstable();
        let n = self.scratch.len();
        let q = self.cfg.quantile.clamp(0.0, 1.0);
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        let base = self.scratch[0];
        let target = self.scratch[rank - 1];
        let depth = (target - base).clamp(self.cfg.min_depth, self.cfg.max_depth.max(self.cfg.min_depth));
        base.saturating_add(depth)
    }
}

impl QuantileBuffer {
    /// Playout time per packet, `NOT_ARRIVED` where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        let mut policy = Policy { cfg: self, recent: VecDeque::new(), scratch: Vec::new() };
        replay(trace, &mut policy)
    }
}

#[cfg(test)]
mod tests {
    use super::super::online::replay_offsets;
    use super::super::testutil::MS;
    use super::*;

    #[test]
    fn quantile_of_window_with_clamps() {
        // Talkspurt 0: 10 packets, delays 10..=100 ms (arrival order = generation order).
        // Talkspurt 1 starts with a 50 ms packet: window (W = 100) holds 11 delays
        // {10,20,...,100,50}; q = 0.95 -> rank ceil(10.45) = 11 -> 100 ms; base 10.
        let mut ts = vec![0u32; 10];
        ts.push(1);
        let tg: Vec<u64> = (0..10).map(|i| i * 20 * MS).chain([10_000 * MS]).collect();
        let delays: Vec<u64> = (1..=10).map(|d| d * 10 * MS).chain([50 * MS]).collect();
        let ta: Vec<u64> = tg.iter().zip(&delays).map(|(g, d)| g + d).collect();
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        let cfg = QuantileBuffer::default();
        let mut p = Policy { cfg: &cfg, recent: VecDeque::new(), scratch: vec![] };
        // Talkspurt 0 starts on its first packet alone: offset = its delay.
        assert_eq!(replay_offsets(&t, &mut p), vec![Some(10 * MS), Some(100 * MS)]);
        // Median, window of 4: talkspurt 1 sees {80, 90, 100, 50} -> sorted
        // {50, 80, 90, 100}, rank 2 -> 80; depth 30 clamped to max 20 -> 70.
        let cfg = QuantileBuffer { quantile: 0.5, window: 4, min_depth: 0, max_depth: 20 * MS };
        let mut p = Policy { cfg: &cfg, recent: VecDeque::new(), scratch: vec![] };
        assert_eq!(replay_offsets(&t, &mut p)[1], Some(70 * MS));
        // min_depth lifts talkspurt 0 above its first delay.
        let cfg = QuantileBuffer { min_depth: 15 * MS, ..QuantileBuffer::default() };
        let mut p = Policy { cfg: &cfg, recent: VecDeque::new(), scratch: vec![] };
        assert_eq!(replay_offsets(&t, &mut p)[0], Some(25 * MS));
    }
}
