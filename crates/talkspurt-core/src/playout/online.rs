//! The causal replay driver shared by all online buffers, and the two
//! non-adaptive buffers: fixed delay and fixed depth.
//!
//! Replay: arrived packets are visited in arrival order (ties by generation
//! order). Every arrival is shown to the policy (`OffsetPolicy::on_arrival`);
//! the first arrival of a talkspurt additionally asks the policy for that
//! talkspurt's offset, which then holds for all of its packets. A packet is
//! played at `t_gen + offset` if it arrived by then, otherwise it is late.

use super::{CallTrace, NOT_ARRIVED};
use std::ops::Range;

/// How an online buffer picks a talkspurt's offset. `k` is the talkspurt's
/// index among the trace's talkspurts (runs of equal id), delays are ns.
pub(crate) trait OffsetPolicy {
    /// Called once before the replay with the number of talkspurts.
    fn begin(&mut self, _talkspurts: usize) {}
    /// Every arriving packet, in arrival order.
    fn on_arrival(&mut self, k: usize, delay_ns: u64);
    /// The first arrival of talkspurt `k` (called right after its
    /// `on_arrival`): returns the offset `playout - t_gen` in ns.
    fn talkspurt_offset(&mut self, k: usize, first_delay_ns: u64) -> u64;
}

/// Offsets chosen per talkspurt (`None`: nothing of it arrived).
pub(crate) fn replay_offsets(trace: &CallTrace<'_>, policy: &mut (impl OffsetPolicy + ?Sized)) -> Vec<Option<u64>> {
    let runs = trace.runs();
    let mut run_of = vec![0usize; trace.len()];
    for (k, r) in runs.iter().enumerate() {
        run_of[r.start..r.end].fill(k);
    }
    let mut order: Vec<usize> = (0..trace.len()).filter(|&i| trace.t_arr[i] != NOT_ARRIVED).collect();
    order.sort_by_key(|&i| (trace.t_arr[i], i));
    policy.begin(runs.len());
    let mut offsets = vec![None; runs.len()];
    for i in order {
        let k = run_of[i];
        let delay = trace.t_arr[i] - trace.t_gen[i];
        policy.on_arrival(k, delay);
        if offsets[k].is_none() {
            offsets[k] = Some(policy.talkspurt_offset(k, delay));
        }
    }
    offsets
}

/// Playout times from per-talkspurt offsets: `t_gen + offset` when the packet
/// arrived no later than that, else [`NOT_ARRIVED`].
pub(crate) fn playout_from_offsets(trace: &CallTrace<'_>, offsets: &[Option<u64>]) -> Vec<u64> {
    let mut out = vec![NOT_ARRIVED; trace.len()];
    for (k, r) in trace.runs().iter().enumerate() {
        let Some(off) = offsets[k] else { continue };
        for (i, slot) in out.iter_mut().enumerate().take(r.end).skip(r.start) {
            let p = trace.t_gen[i].saturating_add(off);
            if trace.t_arr[i] != NOT_ARRIVED && trace.t_arr[i] <= p {
                *slot = p;
            }
        }
    }
    out
}

/// The same causal replay fed one arrival at a time, for scoring that
/// streams (score::stream, issue 14): the caller hands arrivals in arrival
/// order (ties by generation order) with each packet's talkspurt index.
/// Only the offsets of talkspurts that may still receive packets are held.
pub struct OnlinePlayout {
    policy: Box<dyn OffsetPolicy + Send + Sync>,
    offsets: std::collections::BTreeMap<usize, u64>,
}

impl std::fmt::Debug for OnlinePlayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlinePlayout").field("open_talkspurts", &self.offsets.len()).finish()
    }
}

impl OnlinePlayout {
    pub(crate) fn new(mut policy: Box<dyn OffsetPolicy + Send + Sync>) -> Self {
        policy.begin(0);
        OnlinePlayout { policy, offsets: Default::default() }
    }

    /// A packet of talkspurt `k` arrives `delay_ns` after generation:
    /// returns the talkspurt's offset (fixed at its first arrival).
    pub fn arrive(&mut self, k: usize, delay_ns: u64) -> u64 {
        self.policy.on_arrival(k, delay_ns);
        match self.offsets.get(&k) {
            Some(&o) => o,
            None => {
                let o = self.policy.talkspurt_offset(k, delay_ns);
                self.offsets.insert(k, o);
                o
            }
        }
    }

    /// No packet of a talkspurt before `k` will arrive any more.
    pub fn forget_before(&mut self, k: usize) {
        while self.offsets.first_key_value().is_some_and(|(&j, _)| j < k) {
            self.offsets.pop_first();
        }
    }
}

pub(crate) fn replay(trace: &CallTrace<'_>, policy: &mut (impl OffsetPolicy + ?Sized)) -> Vec<u64> {
    let offsets = replay_offsets(trace, policy);
    playout_from_offsets(trace, &offsets)
}

/// Fixed playout delay: every packet is played `delay` after generation.
///
/// The classical non-adaptive buffer (e.g. the fixed-delay baseline of
/// Ramjee et al. 1994 and the single-delay bound of Tao & Guérin, here as an
/// online buffer with a given rather than an optimised delay).
#[derive(Debug, Clone, PartialEq)]
pub struct FixedDelay {
    /// Offset `playout - t_gen`, ns (network delay budget; packetization is
    /// not included). Default 150 ms, as in scenario files: ITU-T G.114's
    /// one-way budget for network and buffer.
    pub delay: u64,
}

impl Default for FixedDelay {
    fn default() -> Self {
        FixedDelay { delay: 150_000_000 }
    }
}

impl FixedDelay {
    /// Playout time per packet, [`NOT_ARRIVED`] where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        self.playout_lined(trace, &[])
    }

    /// [`playout`](Self::playout) with `lines`: ranges of packets each
    /// arrived the same time after its generation, in order
    /// (`PlayoutKind::playout_lined`).
    pub fn playout_lined(&self, trace: &CallTrace<'_>, lines: &[Range<usize>]) -> Vec<u64> {
        let (t_gen, t_arr, d) = (trace.t_gen, trace.t_arr, self.delay);
        let mut out = Vec::with_capacity(t_gen.len());
        // `playout_from_offsets` with one offset for every talkspurt, so
        // without finding the talkspurts (issue 14). `a <= p` for a =
        // NOT_ARRIVED (u64::MAX) only when p saturated to it too:
        // NOT_ARRIVED either way, so one compare says played or not.
        let each = |out: &mut Vec<u64>, r: Range<usize>| {
            out.extend(t_gen[r.clone()].iter().zip(&t_arr[r]).map(|(&g, &a)| {
                let p = g.saturating_add(d);
                if a <= p {
                    p
                } else {
                    NOT_ARRIVED
                }
            }))
        };
        let mut at = 0;
        for r in lines {
            each(&mut out, at..r.start);
            at = r.end;
            // Arrived `a − g` after generation throughout, and no playout
            // time saturates (the last is the latest): played iff that
            // delay is at most the buffer's, for every packet alike, and
            // the values are the ones above (issue 26).
            let (g, a) = (&t_gen[r.clone()], t_arr[r.start].wrapping_sub(t_gen[r.start]));
            match g.last() {
                Some(&last) if last.checked_add(d).is_some() && a <= d => out.extend(g.iter().map(|&g| g + d)),
                Some(&last) if last.checked_add(d).is_some() => out.resize(r.end, NOT_ARRIVED),
                _ => each(&mut out, r.clone()),
            }
        }
        each(&mut out, at..t_gen.len());
        out
    }
}

/// Fixed depth: at each talkspurt the buffer re-anchors on the first packet
/// to arrive and holds `depth_packets` packetization times on top of that
/// packet's network delay: `offset_k = n_first(k) + depth_packets * ptime`.
///
/// Reading: this is the "start playing once k frames are queued" buffer of
/// simple softphones, stated on the delay axis. The first packet to *arrive*
/// anchors (a receiver cannot wait for a packet it does not know is lost);
/// its own delay is used, not a running minimum.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedDepth {
    /// Packetization times held in the buffer. Default 2.
    pub depth_packets: u32,
    /// Packetization time in ns; `None` (default) infers it from the trace
    /// as the smallest gap between consecutive packets of one talkspurt
    /// (20 ms if no talkspurt has two packets).
    pub ptime: Option<u64>,
}

impl Default for FixedDepth {
    fn default() -> Self {
        FixedDepth { depth_packets: 2, ptime: None }
    }
}

/// Smallest generation gap inside a talkspurt, or 20 ms.
pub(crate) fn infer_ptime(trace: &CallTrace<'_>) -> u64 {
    (1..trace.len())
        .filter(|&i| trace.talkspurt[i] == trace.talkspurt[i - 1])
        .map(|i| trace.t_gen[i] - trace.t_gen[i - 1])
        .min()
        .unwrap_or(20_000_000)
}

/// A fixed delay as a per-talkspurt policy (streaming replay only).
pub(crate) struct FixedPolicy {
    pub delay: u64,
}

impl OffsetPolicy for FixedPolicy {
    fn on_arrival(&mut self, _k: usize, _delay_ns: u64) {}
    fn talkspurt_offset(&mut self, _k: usize, _first_delay_ns: u64) -> u64 {
        self.delay
    }
}

pub(crate) struct DepthPolicy {
    hold: u64,
}

impl OffsetPolicy for DepthPolicy {
    fn on_arrival(&mut self, _k: usize, _delay_ns: u64) {}
    fn talkspurt_offset(&mut self, _k: usize, first_delay_ns: u64) -> u64 {
        first_delay_ns.saturating_add(self.hold)
    }
}

impl FixedDepth {
    /// Playout time per packet, [`NOT_ARRIVED`] where lost or late.
    pub fn playout(&self, trace: &CallTrace<'_>) -> Vec<u64> {
        let ptime = self.ptime.unwrap_or_else(|| infer_ptime(trace));
        replay(trace, &mut self.policy(ptime))
    }

    /// Its policy for packetization time `ptime` (ns).
    pub(crate) fn policy(&self, ptime: u64) -> DepthPolicy {
        DepthPolicy { hold: ptime.saturating_mul(self.depth_packets as u64) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::MS;
    use super::*;

    /// Hand-built trace, two talkspurts, 20 ms packetization:
    ///
    /// ```text
    /// pkt ts t_gen  delay   fixed 60 ms: late if delay > 60
    ///  0  0    0     40     played at  60
    ///  1  0   20     61     late (61 > 60)
    ///  2  0   40     60     played at 100 (equal is in time)
    ///  3  0   60     lost   -
    ///  4  1 1000     90     late
    ///  5  1 1020     10     played at 1080
    /// ```
    fn hand_trace() -> (Vec<u32>, Vec<u64>, Vec<u64>) {
        let ts = vec![0, 0, 0, 0, 1, 1];
        let tg: Vec<u64> = [0, 20, 40, 60, 1000, 1020].iter().map(|t| t * MS).collect();
        let d = [Some(40), Some(61), Some(60), None, Some(90), Some(10)];
        let ta = tg
            .iter()
            .zip(d)
            .map(|(&g, d)| d.map_or(NOT_ARRIVED, |d: u64| g + d * MS))
            .collect();
        (ts, tg, ta)
    }

    #[test]
    fn fixed_delay_counts_late_packets() {
        let (ts, tg, ta) = hand_trace();
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        let p = FixedDelay { delay: 60 * MS }.playout(&t);
        let n = NOT_ARRIVED;
        assert_eq!(p, vec![60 * MS, n, 100 * MS, n, n, 1080 * MS]);
        let late = (0..6).filter(|&i| ta[i] != n && p[i] == n).count();
        assert_eq!(late, 2);
    }

    #[test]
    fn fixed_depth_anchors_on_first_arrival() {
        let (ts, tg, ta) = hand_trace();
        let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
        assert_eq!(infer_ptime(&t), 20 * MS);
        // Talkspurt 0: first arrival is pkt 0 (arrives at 40): offset 40 + 2*20 = 80;
        //   pkt 1 delay 61 <= 80 played at 100, pkt 2 played at 120.
        // Talkspurt 1: arrivals pkt 4 at 1090, pkt 5 at 1030 -> pkt 5 first:
        //   offset 10 + 40 = 50; pkt 4 (delay 90) late, pkt 5 played at 1070.
        let p = FixedDepth::default().playout(&t);
        let n = NOT_ARRIVED;
        assert_eq!(p, vec![80 * MS, 100 * MS, 120 * MS, n, n, 1070 * MS]);
        let p1 = FixedDepth { depth_packets: 0, ptime: Some(20 * MS) }.playout(&t);
        assert_eq!(p1, vec![40 * MS, n, n, n, n, 1030 * MS]);
    }
}
