//! PIE, Proportional Integral controller Enhanced (RFC 8033): packets are
//! dropped (or ECN-marked) on arrival with a probability that a PI
//! controller updates every `t_update` from the queueing delay:
//!
//!   p ← p + α·(qdelay − target) + β·(qdelay − qdelay_old)      (§4.2)
//!
//! with α, β scaled down while p is small (the auto-tuning table of §4.2),
//! the step capped at 0.02 once p ≥ 0.1, +0.02 when qdelay > 250 ms, and
//! exponential decay (×0.98) while the queue stays empty. A burst
//! allowance (§4.4) lets bursts of up to `max_burst` through after an idle
//! period. Arrivals are not dropped while the delay is low (qdelay_old <
//! target/2 and p < 0.2) or fewer than two MTUs are queued (§4.1).
//!
//! Reading chosen: qdelay is the sojourn time of the last dequeued packet
//! (the timestamp method RFC 8033 §5.2 allows and Linux uses by default)
//! and 0 while the queue is empty. The controller runs at multiples of
//! `t_update`; as the queue only changes at packet events, the updates due
//! since the last event are run when the next event happens, which gives
//! the same values as a timer. De-randomization (§5.1) is not applied.

use super::codel::{Fifo, TimedFifo};
use super::packet::{Ecn, Packet};
use super::queue::QueueLimit;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct PieParams {
    /// QDELAY_REF: 15 ms (§4.2).
    pub target: SimDuration,
    /// T_UPDATE: 15 ms (§4.2).
    pub t_update: SimDuration,
    /// α: 0.125 Hz (§4.2).
    pub alpha: f64,
    /// β: 1.25 Hz (§4.2).
    pub beta: f64,
    /// MAX_BURST: 150 ms (§4.4).
    pub max_burst: SimDuration,
    /// Mark ECN-capable packets while p ≤ `mark_ecnth` (§5.1: 0.1).
    pub ecn: bool,
    pub mark_ecnth: f64,
    /// MTU for the "two packets queued" rule: 1514 B.
    pub mtu: u32,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: SimDuration::from_millis(15),
            t_update: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            ecn: false,
            mark_ecnth: 0.1,
            mtu: 1514,
        }
    }
}

/// The controller (RFC 8033 §4.2–4.4), separate from the queue so tests
/// can drive it with chosen delays.
#[derive(Clone, Debug)]
pub struct PieController {
    p: PieParams,
    pub drop_prob: f64,
    /// Seconds.
    pub qdelay_old: f64,
    pub burst_allowance: SimDuration,
}

impl PieController {
    pub fn new(p: &PieParams) -> Self {
        PieController { p: p.clone(), drop_prob: 0.0, qdelay_old: 0.0, burst_allowance: p.max_burst }
    }

    /// One periodic update with the current queueing delay (seconds).
    pub fn update(&mut self, qdelay: f64) {
        let target = self.p.target.as_secs_f64();
        let mut delta = self.p.alpha * (qdelay - target) + self.p.beta * (qdelay - self.qdelay_old);
        // Auto-tuning (§4.2): small p, small steps.
        let p = self.drop_prob;
        let scale = if p < 1e-6 {
            1.0 / 2048.0
        } else if p < 1e-5 {
            1.0 / 512.0
        } else if p < 1e-4 {
            1.0 / 128.0
        } else if p < 1e-3 {
            1.0 / 32.0
        } else if p < 1e-2 {
            1.0 / 8.0
        } else if p < 0.1 {
            1.0 / 2.0
        } else {
            1.0
        };
        delta *= scale;
        if p >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        if qdelay > 0.25 {
            delta += 0.02;
        }
        self.drop_prob += delta;
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.burst_allowance = SimDuration(self.burst_allowance.0.saturating_sub(self.p.t_update.0));
        let half = target / 2.0;
        if self.drop_prob == 0.0 && qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.p.max_burst;
        }
        self.qdelay_old = qdelay;
    }
}

/// What PIE decides for an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieVerdict {
    Enqueue,
    Mark,
    /// An early drop by the controller.
    Drop,
    /// The hard limit.
    Overflow,
}

#[derive(Debug)]
pub struct PieQueue {
    pub fifo: TimedFifo,
    pub ctl: PieController,
    limit: QueueLimit,
    next_update: SimTime,
    /// Sojourn of the last dequeued packet, seconds.
    last_sojourn: f64,
    rng: Rng,
}

impl PieQueue {
    pub fn new(p: &PieParams, limit: QueueLimit, rng: Rng) -> Self {
        PieQueue {
            fifo: TimedFifo::default(),
            ctl: PieController::new(p),
            limit,
            next_update: SimTime::ZERO + p.t_update,
            last_sojourn: 0.0,
            rng,
        }
    }

    /// Run the updates due by `now` (see the module note).
    fn catch_up(&mut self, now: SimTime) {
        let q = if self.fifo.is_empty() { 0.0 } else { self.last_sojourn };
        while self.next_update <= now {
            self.ctl.update(q);
            self.next_update = self.next_update + self.ctl.p.t_update;
            // Idle long enough that nothing changes any more: skip ahead.
            if q == 0.0 && self.ctl.drop_prob == 0.0 && self.ctl.qdelay_old == 0.0 && self.ctl.burst_allowance == self.ctl.p.max_burst {
                let step = self.ctl.p.t_update.0;
                let missed = now.0.saturating_sub(self.next_update.0) / step;
                self.next_update = SimTime(self.next_update.0 + missed * step);
            }
        }
    }

    /// Arrival (§4.1 drop_early, then the hard limit). Returns the packet
    /// if it is dropped.
    pub fn enqueue(&mut self, now: SimTime, mut pkt: Packet) -> (PieVerdict, Option<Packet>) {
        self.catch_up(now);
        if self.limit.full(self.fifo.len(), self.fifo.bytes(), pkt.size) {
            return (PieVerdict::Overflow, Some(pkt));
        }
        let c = &self.ctl;
        let target = c.p.target.as_secs_f64();
        let safe = c.burst_allowance > SimDuration::ZERO
            || (c.qdelay_old < target / 2.0 && c.drop_prob < 0.2)
            || self.fifo.bytes() <= 2 * c.p.mtu as u64;
        let mut verdict = PieVerdict::Enqueue;
        if !safe && self.rng.uniform() < c.drop_prob {
            if c.p.ecn && pkt.ecn != Ecn::NotEct && c.drop_prob <= c.p.mark_ecnth {
                pkt.ecn = Ecn::Ce;
                verdict = PieVerdict::Mark;
            } else {
                return (PieVerdict::Drop, Some(pkt));
            }
        }
        self.fifo.push(pkt, now);
        (verdict, None)
    }

    pub fn dequeue(&mut self, now: SimTime) -> Option<(Packet, SimTime)> {
        self.catch_up(now);
        let (p, enq) = self.fifo.pop()?;
        self.last_sojourn = now.saturating_since(enq).as_secs_f64();
        Some((p, enq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8033 §4.2 step by step: from p = 0 with qdelay 30 ms (target
    /// 15 ms) the first step is (α·0.015 + β·0.03)/2048; once p ≥ 0.1
    /// steps are capped at 0.02; with an empty queue p decays by 2 % per
    /// update; and the burst allowance falls by T_UPDATE per update.
    #[test]
    fn controller_follows_rfc8033() {
        let d = PieParams::default();
        let mut c = PieController::new(&d);
        c.update(0.030);
        let first = (0.125 * 0.015 + 1.25 * 0.030) / 2048.0;
        assert!((c.drop_prob - first).abs() < 1e-15, "{}", c.drop_prob);
        assert_eq!(c.burst_allowance, SimDuration::from_millis(135));
        // Steady 30 ms: the proportional term alone, 0.125·0.015 per update
        // once p ≥ 0.1 (≤ 0.02 cap not reached); p rises monotonically.
        let mut prev = c.drop_prob;
        for _ in 0..2000 {
            c.update(0.030);
            assert!(c.drop_prob >= prev);
            prev = c.drop_prob;
        }
        assert!(c.drop_prob > 0.1);
        let before = c.drop_prob;
        c.update(0.030);
        assert!((c.drop_prob - (before + 0.125 * 0.015).min(1.0)).abs() < 1e-12);
        // A jump to 300 ms: the step is capped at 0.02, plus 0.02 above 250 ms.
        let before = c.drop_prob;
        c.update(0.300);
        assert!((c.drop_prob - (before + 0.04).min(1.0)).abs() < 1e-12, "{before} -> {}", c.drop_prob);
        // Empty queue: first update still sees qdelay_old > 0 (negative
        // step), then p decays by 2 % per update.
        c.update(0.0);
        let before = c.drop_prob;
        c.update(0.0);
        let step = (0.125 * -0.015) * if before < 0.1 { 0.5 } else { 1.0 };
        assert!((c.drop_prob - ((before + step) * 0.98)).abs() < 1e-12);
    }
}
