//! Classic window control composed from parts: RFC 5681 slow start and
//! loss response here, the congestion-avoidance increase and the decrease
//! from a [`WindowAdjustment`] (Reno's AIMD, CUBIC, Westwood+, …), as neqo
//! composes `ClassicCongestionControl<T: WindowAdjustment>`.

use super::{AckSample, WindowController};
use crate::time::{SimDuration, SimTime};

/// The algorithm-specific half of a classic controller.
pub trait WindowAdjustment: Clone + std::fmt::Debug {
    /// Bytes to add to `cwnd` in congestion avoidance for this ACK.
    fn ca_increase(&mut self, cwnd: u64, smss: u64, ack: &AckSample) -> u64;
    /// ssthresh after a congestion event or timeout, given the window and
    /// FlightSize then.
    fn ssthresh_after_loss(&mut self, now: SimTime, cwnd: u64, flight: u64, smss: u64) -> u64;
    /// Every ACK of new data, in or out of recovery (bandwidth estimators).
    fn on_ack_any(&mut self, _ack: &AckSample) {}
    fn on_rtt_sample(&mut self, _now: SimTime, _rtt: SimDuration) {}
    /// A duplicate ACK (Westwood's bandwidth samples count it).
    fn on_dup_ack(&mut self, _now: SimTime, _smss: u64) {}
    /// Slow start ends early when this says so (e.g. delay-based exits).
    fn leave_slow_start(&mut self, _cwnd: u64, _smss: u64, _ack: &AckSample) -> bool {
        false
    }
    /// The controller left slow start or recovery into congestion avoidance.
    fn on_enter_ca(&mut self, _now: SimTime, _cwnd: u64) {}
    /// A retransmission timeout, after `ssthresh_after_loss` (CUBIC treats
    /// the next congestion avoidance stage specially, RFC 9438 §4.8).
    fn on_timeout(&mut self, _now: SimTime) {}
    /// The window to continue with when loss recovery hands the window back
    /// (the transport set `cwnd`); Westwood+ never lets recovery raise it.
    fn window_after_recovery(&mut self, cwnd: u64, _smss: u64) -> u64 {
        cwnd
    }
}

#[derive(Clone, Debug)]
pub struct Classic<A: WindowAdjustment> {
    pub adj: A,
    pub smss: u64,
    cwnd: u64,
    ssthresh: u64,
}

impl<A: WindowAdjustment> Classic<A> {
    pub fn new(adj: A, smss: u64, iw: u64) -> Self {
        Classic { adj, smss, cwnd: iw.max(smss), ssthresh: u64::MAX }
    }
    /// Loss window: one segment (RFC 5681 §3.1).
    pub fn loss_window(&self) -> u64 {
        self.smss
    }
    /// Controllers built on this one (TCP-Real) move ssthresh themselves.
    pub fn set_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh.max(2 * self.smss);
    }
}

impl<A: WindowAdjustment> WindowController for Classic<A> {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn set_cwnd(&mut self, cwnd: u64) {
        self.cwnd = cwnd.max(self.smss);
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.adj.on_ack_any(ack);
        if ack.recovery || ack.acked == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            if self.adj.leave_slow_start(self.cwnd, self.smss, ack) {
                self.ssthresh = self.cwnd;
                self.adj.on_enter_ca(ack.now, self.cwnd);
                return;
            }
            // RFC 5681 §3.1: cwnd += min(N, SMSS) per ACK of new data.
            self.cwnd += ack.acked.min(self.smss);
            if self.cwnd >= self.ssthresh {
                self.adj.on_enter_ca(ack.now, self.cwnd);
            }
        } else {
            self.cwnd += self.adj.ca_increase(self.cwnd, self.smss, ack);
        }
    }
    fn on_rtt_sample(&mut self, now: SimTime, rtt: SimDuration) {
        self.adj.on_rtt_sample(now, rtt);
    }
    fn on_dup_ack(&mut self, now: SimTime) {
        self.adj.on_dup_ack(now, self.smss);
    }
    fn on_congestion_event(&mut self, now: SimTime, flight: u64) {
        self.ssthresh = self.adj.ssthresh_after_loss(now, self.cwnd, flight, self.smss);
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.cwnd = self.adj.window_after_recovery(self.cwnd, self.smss).max(self.smss);
        self.adj.on_enter_ca(now, self.cwnd);
    }
    fn on_rto(&mut self, now: SimTime, flight: u64) {
        // RFC 5681 §3.1 eq. (4) and "cwnd = LW".
        self.ssthresh = self.adj.ssthresh_after_loss(now, self.cwnd, flight, self.smss);
        self.cwnd = self.loss_window();
        self.adj.on_timeout(now);
    }
}
