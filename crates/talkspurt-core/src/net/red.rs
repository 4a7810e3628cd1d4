//! Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the
//! "gentle" extension (Floyd 2000) and byte mode, following ns-2.35's
//! Queue/RED where the paper leaves a choice (cited per branch below):
//!
//! - On every arrival the average is updated from the queue the packet
//!   finds, `avg ← (1−w)·avg + w·q` (§4); after an idle period of length
//!   `t`, as if `m = ⌊t·ptc⌋` packets had arrived to an empty queue,
//!   `avg ← (1−w)^(m+1)·avg + w·q`, with `ptc` the link's rate in
//!   `mean_packet`-byte packets per second (ns-2's `estimator`).
//! - `p_b = max_p·(avg−min_th)/(max_th−min_th)` for `min_th ≤ avg <
//!   max_th`; gentle: `p_b = max_p + (1−max_p)·(avg−max_th)/max_th` up to
//!   `2·max_th`; beyond, `p_b = 1` (§4, ns-2 `calculate_p_new`).
//! - The final probability spreads drops evenly: `p_a = p_b/(1−count·p_b)`
//!   (§4, inter-drop gap uniform on 1…1/p_b−1), or with `wait` (ns-2's
//!   default) `p_a = 0` while `count·p_b < 1`, then `p_b/(2−count·p_b)`
//!   (gap uniform on 1/p_b…2/p_b−1). In byte mode `count` counts
//!   `mean_packet`-sized units and `p_a` scales by `size/mean_packet` (§4's
//!   byte-mode remark).
//! - ECN (RFC 3168 §7): an ECN-capable packet chosen while `p_b < max_p`
//!   (avg below `max_th`) is marked CE instead of dropped; beyond it is
//!   dropped (ns-2 `setbit_` with `use_mark_p_`, `mark_p_ = 0.1`).

use super::queue::Verdict;
use crate::rng::Rng;
use crate::time::SimDuration;

/// RED's parameters as configured; `None` picks ns-2.35's automatic value.
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Minimum threshold in packets (of `mean_packet` bytes in byte mode).
    /// ns-2: max(5, half the packets the link sends in 5 ms).
    pub min_th: Option<f64>,
    /// Maximum threshold in packets; ns-2: 3·min_th.
    pub max_th: Option<f64>,
    /// Probability at max_th (ns-2 1/linterm_ = 0.1).
    pub max_p: f64,
    /// EWMA weight w_q; ns-2 (q_weight_ = −1): 1 − exp(−1/(10·RTT·ptc)),
    /// RTT = max(0.1 s, 3·(delay + 1/ptc)).
    pub weight: Option<f64>,
    pub gentle: bool,
    pub wait: bool,
    /// Byte mode: the average, thresholds and probabilities in bytes
    /// (ns-2 bytes_ and queue_in_bytes_, both true by default).
    pub bytes: bool,
    /// ns-2 mean_pktsize_: 500 B.
    pub mean_packet: u32,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: None,
            max_th: None,
            max_p: 0.1,
            weight: None,
            gentle: true,
            wait: true,
            bytes: true,
            mean_packet: 500,
            ecn: false,
        }
    }
}

/// ns-2's "targetdelay_" from which the default min_th follows: 5 ms.
const TARGET_DELAY_S: f64 = 0.005;

/// The state of one RED queue.
#[derive(Debug)]
pub struct Red {
    /// Thresholds in queue units (packets, or bytes in byte mode).
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w: f64,
    gentle: bool,
    wait: bool,
    bytes: bool,
    mean_packet: u32,
    ecn: bool,
    /// Link rate in mean-sized packets per second.
    ptc: f64,
    /// The average queue, in queue units.
    pub avg: f64,
    count: i64,
    count_bytes: u64,
    /// avg was at or above min_th at the previous arrival (ns-2 `old`).
    old: bool,
    rng: Rng,
}

impl Red {
    /// Resolve the automatic parameters for a link of `rate_bps` and
    /// one-way `delay` (ns-2 `initialize_params`).
    pub fn new(p: &RedParams, rate_bps: u64, delay: SimDuration, rng: Rng) -> Red {
        let ptc = rate_bps as f64 / (8.0 * p.mean_packet as f64);
        let min_pkts = p.min_th.unwrap_or_else(|| (TARGET_DELAY_S * ptc / 2.0).max(5.0));
        let max_pkts = p.max_th.unwrap_or(3.0 * min_pkts);
        let w = p.weight.unwrap_or_else(|| {
            let rtt = (3.0 * (delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        });
        let unit = if p.bytes { p.mean_packet as f64 } else { 1.0 };
        Red {
            min_th: min_pkts * unit,
            max_th: max_pkts * unit,
            max_p: p.max_p,
            w,
            gentle: p.gentle,
            wait: p.wait,
            bytes: p.bytes,
            mean_packet: p.mean_packet,
            ecn: p.ecn,
            ptc,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            rng,
        }
    }

    /// Whether the queue counts bytes.
    pub fn in_bytes(&self) -> bool {
        self.bytes
    }

    /// p_b for the current average (§4; gentle beyond max_th).
    pub fn p_b(&self) -> f64 {
        let p = if self.avg >= self.max_th {
            if self.gentle {
                self.max_p + (1.0 - self.max_p) * (self.avg - self.max_th) / self.max_th
            } else {
                1.0
            }
        } else {
            self.max_p * (self.avg - self.min_th) / (self.max_th - self.min_th)
        };
        p.min(1.0)
    }

    /// p_a from p_b and the count since the last drop (ns-2 `modify_p`).
    fn p_a(&self, pb: f64, size: u32) -> f64 {
        let count = if self.bytes { (self.count_bytes / self.mean_packet as u64) as f64 } else { self.count as f64 };
        let cp = count * pb;
        let mut p = if self.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                pb / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            pb / (1.0 - cp)
        } else {
            1.0
        };
        if self.bytes && p < 1.0 {
            p = p * size as f64 / self.mean_packet as f64;
        }
        p.min(1.0)
    }

    /// A packet of `size` bytes arrives and finds `q` (queue units)
    /// waiting; `idle` is how long the transmitter has been idle, if it is.
    /// `ect`: the packet is ECN-capable. The caller applies the hard limit
    /// afterwards and calls `forced_drop` if it overflows.
    pub fn arrive(&mut self, q: u64, idle: Option<SimDuration>, size: u32, ect: bool) -> Verdict {
        let m = idle.map_or(0, |t| (self.ptc * t.as_secs_f64()) as i32);
        self.avg = self.avg * (1.0 - self.w).powi(m + 1) + self.w * q as f64;
        self.count += 1;
        self.count_bytes += size as u64;
        // ns-2: no early drop while the queue holds at most one unit.
        if self.avg < self.min_th || q <= 1 {
            self.old = false;
            return Verdict::Enqueue;
        }
        if !self.old {
            // avg just crossed min_th: start counting afresh.
            self.old = true;
            self.count = 1;
            self.count_bytes = size as u64;
            return Verdict::Enqueue;
        }
        let pb = self.p_b();
        let pa = self.p_a(pb, size);
        if self.rng.uniform() > pa {
            return Verdict::Enqueue;
        }
        self.count = 0;
        self.count_bytes = 0;
        if self.ecn && ect && pb < self.max_p {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// The hard limit dropped the arrival: the count restarts (ns-2's
    /// forced drop, without ns1_compat_).
    pub fn forced_drop(&mut self) {
        self.count = 0;
        self.count_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Rng, StreamId};

    fn red(p: RedParams) -> Red {
        Red::new(&p, 10_000_000, SimDuration::from_millis(10), Rng::stream(1, 0, StreamId::new(99, 0)))
    }

    /// ns-2.35's automatic parameters on a 10 Mb/s, 10 ms link with
    /// 500-byte mean packets: ptc = 2500 pkt/s, min_th = max(5, 6.25) =
    /// 6.25 pkts, max_th = 18.75, RTT = max(0.1, 3·(0.01+0.0004)) = 0.1 s,
    /// w = 1 − exp(−1/2500).
    #[test]
    fn ns2_automatic_parameters() {
        let r = red(RedParams { bytes: false, ..Default::default() });
        assert!((r.min_th - 6.25).abs() < 1e-12 && (r.max_th - 18.75).abs() < 1e-12);
        assert!((r.w - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        let b = red(RedParams::default());
        assert!((b.min_th - 6.25 * 500.0).abs() < 1e-9);
    }

    /// p_b is linear between the thresholds and, gentle, rises to 1 at 2·max_th.
    #[test]
    fn drop_probability_curve() {
        let mut r = red(RedParams { min_th: Some(5.0), max_th: Some(15.0), bytes: false, ..Default::default() });
        for (avg, pb) in [(10.0, 0.05), (15.0, 0.1), (22.5, 0.55), (30.0, 1.0), (40.0, 1.0)] {
            r.avg = avg;
            assert!((r.p_b() - pb).abs() < 1e-12, "avg {avg}: {} vs {pb}", r.p_b());
        }
        r.gentle = false;
        r.avg = 15.0;
        assert_eq!(r.p_b(), 1.0);
    }

    /// With a fixed p_b = 1/20 the hazard p_b/(1−n·p_b) makes the gap
    /// between drops uniform on 1…1/p_b−1 (§4: "X is uniform"), and with
    /// `wait` the hazard p_b/(1−k·p_b), k = n−1/p_b, uniform on 1/p_b…2/p_b−1.
    #[test]
    fn inter_drop_gaps_are_uniform() {
        for (wait, lo, hi) in [(false, 1, 19), (true, 20, 39)] {
            let mut r = red(RedParams { min_th: Some(5.0), max_th: Some(15.0), wait, bytes: false, weight: Some(1.0), ..Default::default() });
            // w = 1: avg is the queue seen, 10 → p_b = 0.05.
            let (mut gaps, mut since) = (Vec::new(), 0);
            for _ in 0..200_000 {
                since += 1;
                if r.arrive(10, None, 500, false) == Verdict::Drop {
                    gaps.push(since);
                    since = 0;
                }
            }
            let gaps = &gaps[1..];
            assert!(gaps.iter().all(|&g| g >= lo && g <= hi), "wait {wait}: {:?}", &gaps[..10]);
            let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
            let expect = (lo + hi) as f64 / 2.0;
            assert!((mean - expect).abs() < 0.02 * expect, "wait {wait}: mean gap {mean} vs {expect}");
        }
    }
}
