//! TCP Vegas (L. Brakmo and L. Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995, §3.2–§3.3).
//!
//! Once per round trip Vegas compares the rate it expects with the rate it
//! gets. With BaseRTT the smallest RTT seen and W the data in flight,
//! `Expected = W / BaseRTT`, `Actual = W / RTT` and
//! `Diff = (Expected − Actual) · BaseRTT = W · (1 − BaseRTT / RTT)`,
//! in segments: the data this connection keeps queued in the network.
//! Congestion avoidance adds one segment per RTT when `Diff < α`, removes
//! one when `Diff > β`, holds otherwise. Slow start doubles the window only
//! every other RTT, holding it in between so that the comparison is valid,
//! and ends when `Diff > γ`.
//!
//! Choices where the descriptions differ (docs/models/tcp-cc.md):
//! - RTT is the minimum RTT sample of the last round, as Linux's
//!   tcp_vegas.c: with delayed ACKs (on by default here) a mean or a single
//!   distinguished segment counts ACK delay as queueing. Brakmo times one
//!   distinguished segment; ns-2's tcp-vegas.cc averages the round.
//! - W is min(cwnd, FlightSize) when the round began (ns-2 uses the data
//!   outstanding for Expected too): for a window-limited sender it is
//!   `cwnd` (Brakmo, Linux), and an application-limited sender (voice) is
//!   not mistaken for a congested one.
//! - The ±1 segment is applied once at the round's end (Linux); the window
//!   grows only while the sender uses it: `flight + 2·SMSS ≥ cwnd` (ns-2).
//! - Leaving slow start: `cwnd −= cwnd/8` (ns-2, after Arizona's code).
//! - Loss (ns-2's Vegas): a congestion event sets ssthresh to ¾ of the
//!   window (2 segments if the window is 3 or less); loss *recovery* is the
//!   transport's (Reno by default). A timeout halves the window into
//!   ssthresh and restarts slow start from 2 segments (`v_slowstart_`).
//!   Vegas's fine-grained retransmission (§3.1) is the transport's
//!   (`transport/tcp/recovery.rs`).
//! - BaseRTT is the smallest RTT ever measured (§3.2). ns-2's
//!   tcp-vegas.cc also resets it to the round's RTT whenever at most one
//!   segment was sent in the round (`rttLen <= 1`), queueing included; we
//!   do not (docs/models/tcp-cc.md: that rule makes seed 002's voice flows
//!   unfair in ns-2).

use super::{AckSample, VegasParams, WindowController};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct Vegas {
    params: VegasParams,
    smss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Smallest RTT ever seen (BaseRTT).
    base_rtt: Option<SimDuration>,
    /// Smallest RTT sample in the current round.
    round_min_rtt: Option<SimDuration>,
    /// Bytes acknowledged since the connection began (our own count).
    acked_total: u64,
    /// The round ends when `acked_total` reaches this (snd_nxt at its start).
    round_end: Option<u64>,
    /// W: min(cwnd, FlightSize) when the round began.
    round_flight: u64,
    /// Slow start grows the window in this round (every other round).
    ss_grow: bool,
    rounds: u64,
    last_diff: Option<f64>,
}

impl Vegas {
    pub fn new(params: VegasParams, smss: u64, iw: u64) -> Self {
        Vegas {
            params,
            smss,
            cwnd: iw.max(smss),
            ssthresh: u64::MAX,
            base_rtt: None,
            round_min_rtt: None,
            acked_total: 0,
            round_end: None,
            round_flight: 0,
            ss_grow: true,
            rounds: 0,
            last_diff: None,
        }
    }
    /// Rounds completed (for traces and tests).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }
    /// Diff of the last completed round, in segments.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt
    }

    fn note_rtt(&mut self, rtt: SimDuration) {
        if rtt == SimDuration::ZERO {
            return;
        }
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// Forget the round in progress: after recovery, a timeout or idle the
    /// measurements straddle a window change (Linux's `vegas_enable`).
    fn restart_round(&mut self) {
        self.round_end = None;
        self.round_min_rtt = None;
    }

    fn begin_round(&mut self, snd_nxt: u64, flight: u64) {
        self.round_end = Some(snd_nxt);
        // A window just cut at this boundary is what the round will carry.
        self.round_flight = flight.min(self.cwnd);
        self.round_min_rtt = None;
    }

    /// The once-per-RTT decision (§3.2, §3.3).
    fn end_round(&mut self, cwnd_limited: bool) {
        self.rounds += 1;
        let (Some(base), Some(rtt)) = (self.base_rtt, self.round_min_rtt) else {
            return; // no sample this round: nothing to compare
        };
        let w = self.round_flight as f64 / self.smss as f64;
        let diff = w * (1.0 - base.as_secs_f64() / rtt.as_secs_f64());
        self.last_diff = Some(diff);
        let floor = 2 * self.smss;
        if self.cwnd < self.ssthresh {
            // Compare only after a round with the window held (§3.3).
            if !self.ss_grow && diff > self.params.gamma {
                self.cwnd = (self.cwnd - self.cwnd / 8).max(floor);
                self.ssthresh = self.cwnd;
                return;
            }
            self.ss_grow = !self.ss_grow;
        } else if diff > self.params.beta {
            self.cwnd = (self.cwnd - self.smss).max(floor);
            self.ssthresh = self.ssthresh.min(self.cwnd);
        } else if diff < self.params.alpha && cwnd_limited {
            self.cwnd += self.smss;
        }
    }
}

impl WindowController for Vegas {
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
        if let Some(rtt) = ack.rtt {
            self.note_rtt(rtt);
        }
        let before = self.acked_total;
        self.acked_total += ack.acked;
        if ack.recovery {
            self.restart_round();
            return;
        }
        if ack.acked == 0 {
            return;
        }
        // ns-2: grow only while the window is (nearly) used.
        let cwnd_limited = ack.flight + 2 * self.smss >= self.cwnd;
        // snd_nxt before this ACK releases new data. A round ends with the
        // first ACK for data sent after it began (Linux: `after(ack,
        // beg_snd_nxt)`); that ACK opens the next round.
        let snd_nxt = before + ack.flight;
        match self.round_end {
            None => self.begin_round(snd_nxt, ack.flight),
            Some(end) if self.acked_total > end => {
                self.end_round(cwnd_limited);
                self.begin_round(snd_nxt, ack.flight);
            }
            Some(_) => {}
        }
        if self.cwnd < self.ssthresh && self.ss_grow && cwnd_limited {
            // RFC 5681 §3.1 within a growth round, never past ssthresh.
            self.cwnd = (self.cwnd + ack.acked.min(self.smss)).min(self.ssthresh);
        }
    }
    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDuration) {
        self.note_rtt(rtt);
    }
    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64) {
        // ns-2 tcp-vegas.cc: the window less a quarter; 2 segments if ≤ 3.
        let win = self.cwnd;
        let reduced = if win <= 3 * self.smss { 2 * self.smss } else { win - win / 4 };
        self.ssthresh = reduced.max(2 * self.smss);
        self.restart_round();
    }
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.restart_round();
    }
    fn on_rto(&mut self, _now: SimTime, _flight: u64) {
        // ns-2: ssthresh = window/2 (CLOSE_SSTHRESH_HALF), cwnd = 2 segments.
        self.ssthresh = (self.cwnd / 2).max(2 * self.smss);
        self.cwnd = 2 * self.smss;
        self.ss_grow = true;
        self.restart_round();
    }
    fn on_idle_restart(&mut self, _now: SimTime, rw: u64) {
        self.cwnd = self.cwnd.min(rw).max(self.smss);
        self.restart_round();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const BASE: SimDuration = SimDuration::from_millis(100);

    /// A window-limited sender over one bottleneck: segments leave as the
    /// window allows; each is acknowledged `base` after it was sent, but no
    /// sooner than `service` after the previous ACK (the bottleneck's
    /// serialization, so a window above BDP queues). One ACK per segment.
    struct Path {
        base: SimDuration,
        service: SimDuration,
        now: SimTime,
        snd_nxt: u64,
        delivered: u64,
        /// (send time, ACK time) of segments in flight, oldest first.
        flight: std::collections::VecDeque<(SimTime, SimTime)>,
    }

    impl Path {
        fn new(base: SimDuration, service: SimDuration) -> Self {
            Path { base, service, now: SimTime(0), snd_nxt: 0, delivered: 0, flight: Default::default() }
        }
        fn fill(&mut self, v: &Vegas) {
            while self.snd_nxt - self.delivered + MSS <= v.cwnd() {
                let last = self.flight.back().map_or(SimTime(0), |f| f.1);
                let at = (self.now + self.base).max(last + self.service);
                self.flight.push_back((self.now, at));
                self.snd_nxt += MSS;
            }
        }
        fn ack(&mut self, v: &mut Vegas) {
            self.fill(v);
            let (sent, at) = self.flight.pop_front().unwrap();
            self.now = at;
            let flight = self.snd_nxt - self.delivered;
            self.delivered += MSS;
            v.on_ack(&AckSample {
                now: at,
                acked: MSS,
                flight,
                rtt: Some(at - sent),
                srtt: at - sent,
                min_rtt: self.base,
                delivered: self.delivered,
                recovery: false,
            });
            self.fill(v);
        }
        /// cwnd as each of `n` rounds closed, before the closing ACK (which
        /// is also the first ACK of the next round).
        fn round_ends(&mut self, v: &mut Vegas, n: usize) -> Vec<u64> {
            let mut ends = Vec::new();
            while ends.len() < n {
                let (r, c) = (v.rounds(), v.cwnd());
                self.ack(v);
                if v.rounds() > r {
                    ends.push(c / MSS);
                }
            }
            ends
        }
        /// ACKs until `rounds` more rounds have completed.
        fn rounds(&mut self, v: &mut Vegas, rounds: u64) {
            let target = v.rounds() + rounds;
            while v.rounds() < target {
                self.ack(v);
            }
        }
    }

    /// In congestion avoidance with cwnd = 20 segments.
    fn in_ca(segments: u64) -> Vegas {
        let mut v = Vegas::new(VegasParams::default(), MSS, segments * MSS);
        v.ssthresh = segments * MSS;
        v.on_rtt_sample(SimTime(0), BASE);
        v
    }

    /// Diff = W·(1 − BaseRTT/RTT) < α = 1 when RTT = BaseRTT: one segment
    /// more per round (§3.2): ten rounds from 20 segments give 30.
    #[test]
    fn below_alpha_grows_one_segment_per_rtt() {
        let mut v = in_ca(20);
        let mut p = Path::new(BASE, SimDuration::ZERO);
        p.rounds(&mut v, 10);
        assert_eq!(v.cwnd(), 30 * MSS);
        assert_eq!(v.last_diff(), Some(0.0));
    }

    /// RTT = 100/0.9 ms at W = 20 gives Diff = 20·0.1 = 2, between α = 1 and
    /// β = 3: the window holds.
    #[test]
    fn between_alpha_and_beta_holds() {
        let mut v = in_ca(20);
        let mut p = Path::new(SimDuration::from_secs_f64(0.1 / 0.9), SimDuration::ZERO);
        p.rounds(&mut v, 10);
        assert_eq!(v.cwnd(), 20 * MSS);
        let diff = v.last_diff().unwrap();
        assert!((diff - 2.0).abs() < 1e-6, "Diff {diff}");
    }

    /// RTT = 400/3 ms: Diff = W/4, above β = 3 while W > 12. The window loses
    /// one segment per round, 20 → 12, then holds (Diff = 3 is not > β).
    #[test]
    fn above_beta_shrinks_one_segment_per_rtt_to_equilibrium() {
        let mut v = in_ca(20);
        let mut p = Path::new(SimDuration::from_secs_f64(0.4 / 3.0), SimDuration::ZERO);
        p.rounds(&mut v, 1);
        assert_eq!(v.cwnd(), 19 * MSS, "one decrement per round");
        p.rounds(&mut v, 1);
        assert_eq!(v.cwnd(), 18 * MSS, "one decrement per round");
        p.rounds(&mut v, 20);
        assert_eq!(v.cwnd(), 12 * MSS);
        assert!(v.ssthresh() <= v.cwnd(), "stays in congestion avoidance");
    }

    /// Modified slow start (§3.3) over a bottleneck whose BDP is 10 segments
    /// (100 ms base RTT, 10 ms per segment): the window doubles in one round
    /// and holds in the next, so rounds close at 4, 4, 8, 8, 16, 16 segments.
    /// In the hold round at 16 the queue holds 1 to 6 segments; the round's
    /// minimum RTT is 110 ms, so Diff = 16·(1 − 100/110) = 16/11 > γ = 1 and
    /// slow start ends at 16 − 16/8 = 14. (At 8 segments nothing queues.)
    #[test]
    fn slow_start_every_other_round_and_gamma_exit() {
        let mut v = Vegas::new(VegasParams::default(), MSS, 2 * MSS);
        v.on_rtt_sample(SimTime(0), BASE);
        let mut p = Path::new(BASE, SimDuration::from_millis(10));
        assert_eq!(p.round_ends(&mut v, 6), vec![4, 4, 8, 8, 16, 16]);
        assert!(!v.in_slow_start());
        assert_eq!((v.cwnd(), v.ssthresh()), (14 * MSS, 14 * MSS));
        let diff = v.last_diff().unwrap();
        assert!((diff - 16.0 / 11.0).abs() < 1e-9, "Diff {diff}");
    }

    /// Below γ throughout (no queue), slow start still holds every other
    /// round: 2 → 4, 4, 8, 8, 16.
    #[test]
    fn slow_start_holds_in_alternate_rounds() {
        let mut v = Vegas::new(VegasParams::default(), MSS, 2 * MSS);
        v.on_rtt_sample(SimTime(0), BASE);
        let mut p = Path::new(BASE, SimDuration::ZERO);
        assert_eq!(p.round_ends(&mut v, 5), vec![4, 4, 8, 8, 16]);
        assert!(v.in_slow_start());
    }

    /// ns-2 Vegas loss response: ¾ of the window on a congestion event
    /// (2 segments when the window is 3 or less); a timeout halves it into
    /// ssthresh and restarts from 2 segments.
    #[test]
    fn loss_response() {
        let mut v = in_ca(20);
        v.on_congestion_event(SimTime(0), 20 * MSS);
        assert_eq!(v.ssthresh(), 15 * MSS);
        let mut small = in_ca(3);
        small.on_congestion_event(SimTime(0), 3 * MSS);
        assert_eq!(small.ssthresh(), 2 * MSS);
        let mut t = in_ca(20);
        t.on_rto(SimTime(0), 20 * MSS);
        assert_eq!((t.cwnd(), t.ssthresh()), (2 * MSS, 10 * MSS));
    }

    /// An application-limited sender (flight far below cwnd) does not grow
    /// the window however empty the path (ns-2's check).
    #[test]
    fn no_growth_when_not_window_limited() {
        let mut v = in_ca(20);
        let mut now = SimTime(0);
        for i in 1..=200u64 {
            now += SimDuration::from_millis(20);
            v.on_ack(&AckSample {
                now,
                acked: 200,
                flight: 1000,
                rtt: Some(BASE),
                srtt: BASE,
                min_rtt: BASE,
                delivered: 200 * i,
                recovery: false,
            });
        }
        assert!(v.rounds() > 10);
        assert_eq!(v.cwnd(), 20 * MSS);
    }
}
