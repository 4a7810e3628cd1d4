//! Windowed delay-quantile buffer, in the style of current softphones.
//!
//! Keeps the network delays of the last `window` received packets. At the
//! first arrival of each talkspurt (after adding that packet) it sets
//!
//! ```text
//! base     = min(window)
//! target   = q-quantile(window)            (nearest rank: sorted[ceil(q·n) - 1])
//! floor    = max(min_depth, min_packets · ptime)
//! offset_k = base + clamp(target - base, floor, max_depth)
//! ```
//!
//! The floor keeps at least one packet interval of headroom above the
//! fastest packet, as NetEq does: its `DelayManager` raises a computed target
//! level below one packet to one packet ("target_level_ must be strictly
//! positive", `std::max(target_level_, 1 << 8)` in Q8 packets, WebRTC
//! `modules/audio_coding/neteq/delay_manager.cc`, 2019). Without it, a
//! window of equal delays gives depth 0 and any packet a microsecond slower
//! than the fastest is late.
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
    /// Lower clamp on `target - min(window)` in packet intervals (`ptime`).
    /// Default 1, NetEq's minimum target level of one packet.
    pub min_packets: u32,
    /// Packet interval for `min_packets`, ns; the scenario fills in the
    /// call's ptime. `None`: no packet floor, only `min_depth`.
    pub ptime: Option<u64>,
}

impl Default for QuantileBuffer {
    fn default() -> Self {
        QuantileBuffer { quantile: 0.95, window: 100, min_depth: 0, max_depth: 4_000_000_000, min_packets: 1, ptime: None }
    }
}

impl QuantileBuffer {
    /// Lower clamp on the depth: `max(min_depth, min_packets · ptime)`, ns.
    pub fn floor(&self) -> u64 {
        let packets = self.ptime.map_or(0, |p| p.saturating_mul(self.min_packets as u64));
        self.min_depth.max(packets)
    }
}

struct Policy {
    cfg: QuantileBuffer,
    recent: VecDeque<u64>,
    scratch: Vec<u64>,
}

impl OffsetPolicy for Policy {
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
        let floor = self.cfg.floor();
        let depth = (target - base).clamp(floor, self.cfg.max_depth.max(floor));
        base.saturating_add(depth)
    }
}

impl QuantileBuffer {
    /// Playout time per packet, `NOT_ARRIVED` where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        replay(trace, &mut *self.policy())
    }

    /// Its policy, for the causal replay or the streaming one.
    pub(crate) fn policy(&self) -> Box<dyn OffsetPolicy + Send + Sync> {
        Box::new(Policy { cfg: self.clone(), recent: VecDeque::new(), scratch: Vec::new() })
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
        let mut p = Policy { cfg: cfg.clone(), recent: VecDeque::new(), scratch: vec![] };
        // Talkspurt 0 starts on its first packet alone: offset = its delay.
        assert_eq!(replay_offsets(&t, &mut p), vec![Some(10 * MS), Some(100 * MS)]);
        // Median, window of 4: talkspurt 1 sees {80, 90, 100, 50} -> sorted
        // {50, 80, 90, 100}, rank 2 -> 80; depth 30 clamped to max 20 -> 70.
        let cfg = QuantileBuffer { quantile: 0.5, window: 4, min_depth: 0, max_depth: 20 * MS, ..QuantileBuffer::default() };
        let mut p = Policy { cfg: cfg.clone(), recent: VecDeque::new(), scratch: vec![] };
        assert_eq!(replay_offsets(&t, &mut p)[1], Some(70 * MS));
        // min_depth lifts talkspurt 0 above its first delay.
        let cfg = QuantileBuffer { min_depth: 15 * MS, ..QuantileBuffer::default() };
        let mut p = Policy { cfg: cfg.clone(), recent: VecDeque::new(), scratch: vec![] };
        assert_eq!(replay_offsets(&t, &mut p)[0], Some(25 * MS));
    }

    #[test]
    fn one_packet_minimum_target() {
        // Talkspurt 0 (first packet 10 ms) then talkspurt 1 whose window holds
        // equal delays: target − base = 0, so without the floor the offset is
        // the bare minimum delay and a packet 1 ms slower is late. NetEq's
        // minimum of one packet lifts the depth to one ptime (20 ms).
        let ts = [0u32, 0, 0, 1, 1];
        let tg = [0, 20 * MS, 40 * MS, 1000 * MS, 1020 * MS];
        let ta = [10 * MS, 30 * MS, 50 * MS, 1010 * MS, 1031 * MS];
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        let off = |cfg: &QuantileBuffer| {
            let mut p = Policy { cfg: cfg.clone(), recent: VecDeque::new(), scratch: vec![] };
            replay_offsets(&t, &mut p)
        };
        let none = QuantileBuffer { min_packets: 0, ptime: Some(20 * MS), ..QuantileBuffer::default() };
        assert_eq!(off(&none), vec![Some(10 * MS), Some(10 * MS)]);
        assert_eq!(none.playout(&t)[4], crate::playout::NOT_ARRIVED, "11 ms against a 10 ms offset is late");
        let one = QuantileBuffer { ptime: Some(20 * MS), ..QuantileBuffer::default() };
        assert_eq!(off(&one), vec![Some(30 * MS), Some(30 * MS)]);
        assert_eq!(one.playout(&t)[4], 1020 * MS + 30 * MS);
        // min_depth above one packet wins; no ptime means no packet floor.
        let deep = QuantileBuffer { min_depth: 25 * MS, ..one.clone() };
        assert_eq!(off(&deep)[1], Some(35 * MS));
        assert_eq!(off(&QuantileBuffer::default())[1], Some(10 * MS));
    }
}
