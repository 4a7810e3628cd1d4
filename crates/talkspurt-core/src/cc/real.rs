//! TCP-Real: receiver-oriented congestion control (V. Tsaoussidis and
//! C. Zhang, "TCP-Real: receiver-oriented congestion control", Computer
//! Networks 40(4), 2002; C. Zhang and V. Tsaoussidis, "TCP-Real: Improving
//! Real-time Capabilities of TCP over Heterogeneous Networks", NOSSDAV
//! 2001).
//!
//! The sender controls congestion as standard TCP does (here: Reno's
//! window, RFC 5681, with the transport's NewReno recovery), and the
//! receiver, measuring the *data receiving rate* of "waves" of segments,
//! adds two mechanisms: congestion avoidance (shrink the window when the
//! receiving rate falls, before a loss forces it) and error classification
//! (a loss while the rate holds is not congestion: retransmit, keep the
//! window). "Slow Start and timeout adjustments are used whenever
//! congestion avoidance fails; however, rate and timeout adjustments are
//! cancelled whenever the receiving rate indicates sufficient availability
//! of bandwidth" (NOSSDAV 2001 abstract).
//!
//! The published text we could reach is the two abstracts and seed 002's
//! summary, so the concrete rules below are ours; docs/models/tcp-cc.md
//! lists each with its reasoning. Sans-IO, in two halves:
//! - [`RealReceiver`], at the data receiver: fed every arriving data
//!   segment, it keeps the latest [`RealFeedback`] for the transport to
//!   put on every ACK (repeated until superseded, so lost ACKs lose
//!   nothing);
//! - [`Real`], the sender's [`WindowController`], told each feedback
//!   through [`WindowController::on_receiver_verdict`].

use super::classic::Classic;
use super::reno::Aimd;
use super::{AckSample, RealParams, WindowController};
use crate::time::{SimDuration, SimTime};

/// What the receiver concluded, carried on ACKs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// A wave completed and its receiving rate did not fall.
    Clear,
    /// A wave completed without loss at `ratio` (< 1 − threshold) of the
    /// previous wave's receiving rate: contention is growing.
    RateDecrease { ratio: f64 },
    /// A segment is missing while the receiving rate holds: random
    /// (e.g. wireless) loss.
    NonCongestiveLoss,
    /// A segment is missing and the receiving rate had fallen (or there is
    /// no measurement yet to say otherwise).
    Congestion,
}

/// One receiver report. `seq` grows by one per new report; the sender acts
/// once per `seq`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealFeedback {
    pub seq: u32,
    pub verdict: Verdict,
}

impl RealFeedback {
    /// The report as (code, value) for the wire's report option.
    pub fn encode(&self) -> (u8, f32) {
        match self.verdict {
            Verdict::Clear => (0, 0.0),
            Verdict::RateDecrease { ratio } => (1, ratio as f32),
            Verdict::NonCongestiveLoss => (2, 0.0),
            Verdict::Congestion => (3, 0.0),
        }
    }
    pub fn decode(seq: u32, code: u8, value: f32) -> Option<RealFeedback> {
        let verdict = match code {
            0 => Verdict::Clear,
            1 => Verdict::RateDecrease { ratio: value as f64 },
            2 => Verdict::NonCongestiveLoss,
            3 => Verdict::Congestion,
            _ => return None,
        };
        Some(RealFeedback { seq, verdict })
    }
}

/// The wave being measured: new-data arrivals only.
#[derive(Clone, Copy, Debug, Default)]
struct Wave {
    count: u32,
    first_at: SimTime,
    first_end: u64,
    last_at: SimTime,
    last_end: u64,
}

/// The receiver half: measures the data receiving rate of each wave and
/// classifies losses.
#[derive(Clone, Debug)]
pub struct RealReceiver {
    params: RealParams,
    /// Highest sequence number (end of segment) received so far.
    high: Option<u64>,
    wave: Wave,
    /// Receiving rate of the last completed wave, bytes per second.
    last_rate: Option<f64>,
    /// The last completed wave's rate fell below (1 − threshold) of the one
    /// before.
    falling: bool,
    feedback: Option<RealFeedback>,
}

impl RealReceiver {
    pub fn new(params: RealParams) -> Self {
        RealReceiver { params, high: None, wave: Wave::default(), last_rate: None, falling: false, feedback: None }
    }

    /// The report to carry on the next ACK (`None` before the first).
    pub fn feedback(&self) -> Option<RealFeedback> {
        self.feedback
    }
    /// Receiving rate of the last completed wave, bytes per second.
    pub fn last_rate(&self) -> Option<f64> {
        self.last_rate
    }

    fn report(&mut self, verdict: Verdict) {
        let seq = self.feedback.map_or(0, |f| f.seq.wrapping_add(1));
        self.feedback = Some(RealFeedback { seq, verdict });
    }

    /// A data segment `[seq, seq + len)` arrived at `now`; `filled_gap` if
    /// it fills a hole (a retransmission or a reordered segment). Returns
    /// the report to put on the ACK it triggers.
    pub fn on_segment(&mut self, now: SimTime, seq: u64, len: u32, filled_gap: bool) -> Option<RealFeedback> {
        let end = seq + len as u64;
        // Retransmissions and duplicates were not sent with the wave.
        if filled_gap || self.high.is_some_and(|h| end <= h) {
            return self.feedback;
        }
        let hole = self.high.is_some_and(|h| seq > h);
        self.high = Some(self.high.map_or(end, |h| h.max(end)));
        // A pause longer than max_gap is the sender's (silence, idle, a
        // timeout), not the network's: measure afresh.
        if self.wave.count > 0 && now.saturating_since(self.wave.last_at) > self.params.max_gap {
            self.wave = Wave::default();
        }
        if self.wave.count == 0 {
            self.wave.first_at = now;
            self.wave.first_end = end;
        }
        self.wave.count += 1;
        self.wave.last_at = now;
        self.wave.last_end = end;
        let wave_verdict = if self.wave.count >= self.params.wave { self.complete_wave() } else { None };
        if hole {
            // Classify by the rate trend up to now; no measurement yet is
            // no evidence against congestion.
            let v =
                if self.last_rate.is_none() || self.falling { Verdict::Congestion } else { Verdict::NonCongestiveLoss };
            self.report(v);
        } else if let Some(v) = wave_verdict {
            self.report(v);
        }
        self.feedback
    }

    /// Rate = sequence space covered after the first segment / time from
    /// the first arrival to the last. Lost segments inside the wave count:
    /// they held their slot at the bottleneck before a later link lost
    /// them, so random loss does not read as a rate drop.
    fn complete_wave(&mut self) -> Option<Verdict> {
        let w = std::mem::take(&mut self.wave);
        let span = w.last_at.saturating_since(w.first_at).as_secs_f64();
        if span <= 0.0 {
            return None;
        }
        let rate = (w.last_end - w.first_end) as f64 / span;
        let verdict = match self.last_rate {
            Some(prev) if prev > 0.0 => {
                let ratio = rate / prev;
                self.falling = ratio < 1.0 - self.params.congestion_threshold;
                Some(if self.falling { Verdict::RateDecrease { ratio } } else { Verdict::Clear })
            }
            _ => Some(Verdict::Clear),
        };
        self.last_rate = Some(rate);
        verdict
    }
}

/// Largest single cut a rate decrease may make: Reno's halving.

/// The sender half: Reno's window steered by the receiver's reports.
#[derive(Clone, Debug)]
pub struct Real {
    inner: Classic<Aimd>,
    last_seq: Option<u32>,
    /// The last loss verdict not yet applied to a congestion event.
    pending_loss: Option<(Verdict, SimTime)>,
    srtt: SimDuration,
    recovery: bool,
    /// No rate-decrease cut before this (one per RTT).
    hold_until: SimTime,
    /// (cwnd, ssthresh) before a timeout, until a report confirms or
    /// cancels the timeout's reduction.
    undo: Option<(u64, u64)>,
}

impl Real {
    pub fn new(smss: u64, iw: u64) -> Self {
        Real {
            inner: Classic::new(Aimd::default(), smss, iw),
            last_seq: None,
            pending_loss: None,
            srtt: SimDuration::ZERO,
            recovery: false,
            hold_until: SimTime::ZERO,
            undo: None,
        }
    }
}

impl WindowController for Real {
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn set_cwnd(&mut self, cwnd: u64) {
        self.inner.set_cwnd(cwnd);
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if ack.srtt > SimDuration::ZERO {
            self.srtt = ack.srtt;
        }
        self.recovery = ack.recovery;
        if ack.now < self.hold_until && !self.inner.in_slow_start() {
            return; // holding after a rate decrease
        }
        self.inner.on_ack(ack);
    }
    fn on_rtt_sample(&mut self, now: SimTime, rtt: SimDuration) {
        self.inner.on_rtt_sample(now, rtt);
    }
    fn on_receiver_verdict(&mut self, now: SimTime, fb: &RealFeedback) {
        if self.last_seq.is_some_and(|s| fb.seq.wrapping_sub(s) as i32 <= 0) {
            return; // a repeat on a later ACK
        }
        self.last_seq = Some(fb.seq);
        if let Some((cwnd, ssthresh)) = self.undo.take() {
            // The first report after a timeout decides whether it stands.
            // Cancelled, the sender slow-starts back to the window it had
            // (ssthresh restored) instead of jumping to it: restoring cwnd
            // itself released a go-back-N burst of a whole (possibly
            // recovery-inflated) window and collapsed into back-to-back
            // timeouts on a clean path.
            if matches!(fb.verdict, Verdict::Clear | Verdict::NonCongestiveLoss) {
                self.inner.set_ssthresh(ssthresh.min(cwnd));
            }
            return;
        }
        match fb.verdict {
            Verdict::Clear => {}
            // A falling receiving rate in congestion avoidance: the path is
            // filling, so the window stops growing for one SRTT. A cut here
            // (tried first) fired on the burstiness of slow start and of
            // ACK-clocked windows below the BDP and held a lone flow on a
            // clean 10 Mb/s path to 13 % of the link (docs/models/tcp-cc.md).
            Verdict::RateDecrease { .. } => {
                if !self.recovery && !self.inner.in_slow_start() {
                    self.hold_until = now + self.srtt;
                }
            }
            Verdict::NonCongestiveLoss | Verdict::Congestion => self.pending_loss = Some((fb.verdict, now)),
        }
    }
    fn on_congestion_event(&mut self, now: SimTime, flight: u64) {
        let fresh = |t: SimTime| self.srtt == SimDuration::ZERO || now.saturating_since(t) <= self.srtt;
        match self.pending_loss.take() {
            Some((Verdict::NonCongestiveLoss, t)) if fresh(t) => {
                // Keep the window: recovery deflates back to it.
                let cwnd = self.cwnd();
                self.inner.set_ssthresh(cwnd);
            }
            _ => self.inner.on_congestion_event(now, flight),
        }
        self.hold_until = now + self.srtt;
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.recovery = false;
        self.inner.on_recovery_exit(now);
    }
    fn on_rto(&mut self, now: SimTime, flight: u64) {
        // Back-to-back timeouts keep the state before the first.
        if self.undo.is_none() {
            self.undo = Some((self.cwnd(), self.ssthresh()));
        }
        self.pending_loss = None;
        self.inner.on_rto(now, flight);
    }
    fn on_idle_restart(&mut self, now: SimTime, rw: u64) {
        self.inner.on_idle_restart(now, rw);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    /// Feeds segments `[first, first + n)` (segment numbers) arriving every
    /// `gap_ns`, skipping those in `lost`; returns the last report.
    fn arrivals(
        r: &mut RealReceiver,
        now: &mut SimTime,
        first: u64,
        n: u64,
        gap_ns: u64,
        lost: &[u64],
    ) -> Option<RealFeedback> {
        let mut fb = None;
        for s in first..first + n {
            *now += SimDuration(gap_ns);
            if !lost.contains(&s) {
                fb = r.on_segment(*now, s * MSS, MSS as u32, false);
            }
        }
        fb
    }

    fn sender(cwnd_segments: u64) -> Real {
        let mut s = Real::new(MSS, cwnd_segments * MSS);
        s.inner.set_ssthresh(cwnd_segments * MSS); // congestion avoidance
        s.on_ack(&AckSample {
            now: SimTime(0),
            acked: 0,
            flight: 0,
            rtt: None,
            srtt: SimDuration::from_millis(100),
            min_rtt: SimDuration::from_millis(100),
            delivered: 0,
            recovery: false,
        });
        s
    }

    /// The transport's NewReno recovery after the controller set ssthresh:
    /// cwnd = ssthresh + 3·SMSS, deflated to ssthresh at the full ACK.
    fn recover(s: &mut Real, now: SimTime, flight: u64) {
        s.on_congestion_event(now, flight);
        s.set_cwnd(s.ssthresh() + 3 * MSS);
        s.set_cwnd(s.ssthresh());
        s.on_recovery_exit(now);
    }

    /// Steady 100 kB/s (a segment every 10 ms) with segment 21 lost on a
    /// link after the bottleneck (its slot stays empty): the receiver calls
    /// it non-congestive, and the sender retransmits without shrinking its
    /// 20-segment window.
    #[test]
    fn random_loss_at_steady_rate_keeps_the_window() {
        let mut r = RealReceiver::new(RealParams::default());
        let mut now = SimTime(0);
        let fb = arrivals(&mut r, &mut now, 0, 20, 10 * MS, &[]).unwrap();
        assert_eq!(fb.verdict, Verdict::Clear);
        assert!((r.last_rate().unwrap() - 100_000.0).abs() < 1e-6);
        let fb = arrivals(&mut r, &mut now, 20, 3, 10 * MS, &[21]).unwrap();
        assert_eq!(fb.verdict, Verdict::NonCongestiveLoss);
        let mut s = sender(20);
        s.on_receiver_verdict(now, &fb);
        recover(&mut s, now, 20 * MSS);
        assert_eq!((s.cwnd(), s.ssthresh()), (20 * MSS, 20 * MSS));
        // The wave with the hole still measures 100 kB/s.
        arrivals(&mut r, &mut now, 23, 2, 10 * MS, &[]);
        assert!((r.last_rate().unwrap() - 100_000.0).abs() < 1e-6);
    }

    /// The same loss after the receiving rate fell by a quarter (10 → 13.3
    /// ms spacing): congestion, and the sender halves (RFC 5681 eq. 4).
    #[test]
    fn loss_after_rate_drop_is_congestion() {
        let mut r = RealReceiver::new(RealParams::default());
        let mut now = SimTime(0);
        arrivals(&mut r, &mut now, 0, 20, 10 * MS, &[]);
        let fb = arrivals(&mut r, &mut now, 20, 4, 40 * MS / 3, &[]).unwrap();
        match fb.verdict {
            Verdict::RateDecrease { ratio } => assert!((ratio - 0.75).abs() < 1e-6, "ratio {ratio}"),
            v => panic!("{v:?}"),
        }
        let fb = arrivals(&mut r, &mut now, 24, 3, 40 * MS / 3, &[25]).unwrap();
        assert_eq!(fb.verdict, Verdict::Congestion);
        let mut s = sender(20);
        s.on_receiver_verdict(now, &fb);
        recover(&mut s, now, 20 * MSS);
        assert_eq!((s.cwnd(), s.ssthresh()), (10 * MSS, 10 * MSS));
    }

    /// A rate-decrease report in congestion avoidance holds the window for
    /// one SRTT (no growth, no cut); in slow start it is ignored; a repeated
    /// report (same seq) is ignored.
    #[test]
    fn rate_decrease_holds_growth_for_one_rtt() {
        let mut s = sender(20);
        s.inner.set_ssthresh(10 * MSS); // congestion avoidance
        s.srtt = SimDuration(100 * MS);
        let dec = |seq| RealFeedback { seq, verdict: Verdict::RateDecrease { ratio: 0.75 } };
        let ack = |t: u64| AckSample {
            now: SimTime(t * MS),
            acked: MSS,
            flight: 20 * MSS,
            rtt: None,
            srtt: SimDuration(100 * MS),
            min_rtt: SimDuration(100 * MS),
            delivered: 0,
            recovery: false,
        };
        s.on_receiver_verdict(SimTime(0), &dec(1));
        s.on_ack(&ack(50));
        assert_eq!(s.cwnd(), 20 * MSS, "held");
        s.on_ack(&ack(150));
        assert!(s.cwnd() > 20 * MSS, "grows again after one SRTT");
        let grown = s.cwnd();
        s.on_receiver_verdict(SimTime(200 * MS), &dec(1));
        s.on_ack(&ack(210));
        assert!(s.cwnd() > grown, "a repeated report is ignored");
        let mut ss = Real::new(MSS, 4 * MSS);
        ss.on_receiver_verdict(SimTime(0), &dec(1));
        ss.on_ack(&ack(10));
        assert_eq!(ss.cwnd(), 5 * MSS, "slow start goes on");
    }

    /// A timeout reduces as Reno; if the next report shows the rate held,
    /// ssthresh returns to the pre-timeout window (slow start climbs back),
    /// otherwise the reduction stands.
    #[test]
    fn timeout_cancelled_when_rate_holds() {
        for (verdict, want) in [(Verdict::Clear, (MSS, 20 * MSS)), (Verdict::Congestion, (MSS, 10 * MSS))] {
            let mut s = sender(20);
            s.on_rto(SimTime(0), 20 * MSS);
            assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 10 * MSS));
            s.on_receiver_verdict(SimTime(MS), &RealFeedback { seq: 7, verdict });
            assert_eq!((s.cwnd(), s.ssthresh()), want, "{verdict:?}");
        }
    }

    /// Without a measured wave there is no evidence against congestion; and
    /// a stale non-congestive verdict (older than an RTT) spares nothing.
    #[test]
    fn conservative_without_evidence() {
        let mut r = RealReceiver::new(RealParams::default());
        let mut now = SimTime(0);
        let fb = arrivals(&mut r, &mut now, 0, 3, 10 * MS, &[1]).unwrap();
        assert_eq!(fb.verdict, Verdict::Congestion);
        let mut s = sender(20);
        s.on_receiver_verdict(SimTime(0), &RealFeedback { seq: 0, verdict: Verdict::NonCongestiveLoss });
        recover(&mut s, SimTime(500 * MS), 20 * MSS);
        assert_eq!(s.cwnd(), 10 * MSS);
    }

    /// A silence longer than max_gap (talkspurt end) is not a rate drop: the
    /// wave restarts after it and compares with the rate before.
    #[test]
    fn sender_pause_is_not_a_rate_drop() {
        let mut r = RealReceiver::new(RealParams::default());
        let mut now = SimTime(0);
        arrivals(&mut r, &mut now, 0, 6, 20 * MS, &[]);
        now += SimDuration::from_millis(800);
        let fb = arrivals(&mut r, &mut now, 6, 8, 20 * MS, &[]).unwrap();
        assert_eq!(fb.verdict, Verdict::Clear);
        assert!((r.last_rate().unwrap() - 50_000.0).abs() < 1e-6);
    }
}
