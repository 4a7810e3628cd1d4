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

/// The wave being received: new-data arrivals since the sender's last
/// wave mark.
#[derive(Clone, Copy, Debug)]
struct Wave {
    first_seq: u64,
    first_at: SimTime,
    last_at: SimTime,
    /// An inter-arrival gap inside the wave exceeded `max_gap`.
    paused: bool,
    /// A hole opened or a retransmission arrived during the wave: the
    /// sender's loss recovery, not the path, shaped it.
    disturbed: bool,
}

/// The last measured wave.
#[derive(Clone, Copy, Debug)]
struct Measured {
    /// Data receiving rate, bytes per second.
    rate: f64,
    /// Wave duration at the receiver (first arrival to the next wave's).
    duration: SimDuration,
}

/// The receiver half: measures the data receiving rate of each wave and
/// classifies losses.
#[derive(Clone, Debug)]
pub struct RealReceiver {
    params: RealParams,
    /// Highest sequence number (end of segment) received so far.
    high: Option<u64>,
    wave: Option<Wave>,
    last: Option<Measured>,
    /// Shortest wave duration seen: the round trip without queueing.
    min_duration: Option<SimDuration>,
    /// The last wave showed contention: its rate fell, or its duration
    /// exceeded the shortest by more than the threshold (a queue built).
    contention: bool,
    feedback: Option<RealFeedback>,
}

impl RealReceiver {
    pub fn new(params: RealParams) -> Self {
        RealReceiver {
            params,
            high: None,
            wave: None,
            last: None,
            min_duration: None,
            contention: false,
            feedback: None,
        }
    }

    /// The report to carry on the next ACK (`None` before the first).
    pub fn feedback(&self) -> Option<RealFeedback> {
        self.feedback
    }
    /// Receiving rate of the last measured wave, bytes per second.
    pub fn last_rate(&self) -> Option<f64> {
        self.last.map(|m| m.rate)
    }

    fn report(&mut self, verdict: Verdict) {
        let seq = self.feedback.map_or(0, |f| f.seq.wrapping_add(1));
        self.feedback = Some(RealFeedback { seq, verdict });
    }

    /// A data segment `[seq, seq + len)` arrived at `now`; `filled_gap` if
    /// it fills a hole (a retransmission or a reordered segment),
    /// `wave_start` if the sender marked it as the first of a wave.
    /// Returns the report to put on the ACK it triggers.
    pub fn on_segment(&mut self, now: SimTime, seq: u64, len: u32, filled_gap: bool, wave_start: bool) -> Option<RealFeedback> {
        let end = seq + len as u64;
        // Retransmissions and duplicates do not belong to a wave.
        if filled_gap || self.high.is_some_and(|h| end <= h) {
            if let Some(w) = &mut self.wave {
                w.disturbed = true;
            }
            return self.feedback;
        }
        let hole = self.high.is_some_and(|h| seq > h);
        self.high = Some(self.high.map_or(end, |h| h.max(end)));
        let mut verdict = None;
        if wave_start {
            verdict = self.wave.take().and_then(|w| self.complete(w, now, seq));
            self.wave = Some(Wave { first_seq: seq, first_at: now, last_at: now, paused: false, disturbed: hole });
        } else if let Some(w) = &mut self.wave {
            w.paused |= now.saturating_since(w.last_at) > self.params.max_gap;
            w.disturbed |= hole;
            w.last_at = now;
        }
        if hole {
            // Classify by the measurements up to now; no measurement yet
            // is no evidence against congestion.
            let v = if self.last.is_none() || self.contention { Verdict::Congestion } else { Verdict::NonCongestiveLoss };
            self.report(v);
        } else if let Some(v) = verdict {
            self.report(v);
        }
        self.feedback
    }

    /// Wave `w` ended where the next one begins (`now`, `next_seq`). Its
    /// receiving rate is the data the sender put in it — the sequence
    /// space up to the next wave, lost segments included (they held their
    /// slot at the bottleneck before a later link lost them) — over its
    /// duration at the receiver, from its first arrival to the next
    /// wave's. A wave is one sender round, so that duration is the round
    /// trip its first segment saw, queueing included.
    fn complete(&mut self, w: Wave, now: SimTime, next_seq: u64) -> Option<Verdict> {
        let duration = now.saturating_since(w.first_at);
        let bytes = next_seq.saturating_sub(w.first_seq);
        // A sender pause (silence, idle, a timeout) inside the wave or
        // before the next one is not the network slowing down.
        let gap = now.saturating_since(w.last_at);
        let pause_limit = self.min_duration.map_or(self.params.max_gap, |d| d.max(self.params.max_gap));
        if w.paused || w.disturbed || gap > pause_limit || duration == SimDuration::ZERO || bytes == 0 {
            return None;
        }
        let rate = bytes as f64 / duration.as_secs_f64();
        let min = self.min_duration.map_or(duration, |d| d.min(duration));
        self.min_duration = Some(min);
        let keep = 1.0 - self.params.congestion_threshold;
        // A rate decrease is contention only if the wave also took longer:
        // a wave that is smaller because the sender cut its window is not.
        let verdict = match self.last {
            Some(prev) if rate < keep * prev.rate && duration > prev.duration => {
                Verdict::RateDecrease { ratio: rate / prev.rate }
            }
            _ => Verdict::Clear,
        };
        let queued = duration.as_secs_f64() * keep > min.as_secs_f64();
        self.contention = queued || matches!(verdict, Verdict::RateDecrease { .. });
        self.last = Some(Measured { rate, duration });
        Some(verdict)
    }
}

/// Largest single cut a rate decrease may make: Reno's halving.
const MAX_CUT: f64 = 0.5;

/// The sender half: Reno's window steered by the receiver's reports.
#[derive(Clone, Debug)]
pub struct Real {
    inner: Classic<Aimd>,
    last_seq: Option<u32>,
    /// The last loss verdict not yet applied to a congestion event.
    pending_loss: Option<(Verdict, SimTime)>,
    srtt: SimDuration,
    recovery: bool,
    /// No rate-decrease cut before this (one per RTT, and none within an
    /// RTT of any other reduction).
    hold_until: SimTime,
    /// The last loss verdict received (what the next timeout follows).
    last_loss: Option<Verdict>,
    /// Between a timeout and the first report after it.
    timed_out: bool,
    /// (cwnd, ssthresh) before a timeout that followed a non-congestive
    /// loss, until a report confirms or cancels the timeout's reduction.
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
            last_loss: None,
            timed_out: false,
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
        if std::mem::take(&mut self.timed_out) {
            // The first report after a timeout decides whether it stands,
            // and only a timeout that followed a non-congestive loss (the
            // retransmission lost again, an ACK path outage) can be
            // cancelled: after an overflow the queue drains during the
            // timeout, so the next wave always looks unhindered, and
            // cancelling there slow-started straight back into the
            // overflow (a clean path collapsed to 25 % of the link).
            // Cancelled, the sender slow-starts back to the window it had
            // (ssthresh restored) instead of jumping to it: restoring cwnd
            // released a go-back-N burst of a whole window.
            if let Some((cwnd, ssthresh)) = self.undo.take() {
                if matches!(fb.verdict, Verdict::Clear | Verdict::NonCongestiveLoss) {
                    self.inner.set_ssthresh(ssthresh.min(cwnd));
                }
            }
            return;
        }
        match fb.verdict {
            Verdict::Clear => {}
            // Congestion avoidance (the papers' first mechanism): the
            // receiving rate fell while the wave took longer, so the path
            // carries less of this flow; the window follows the rate down
            // before a loss forces a halving, at most once per RTT.
            Verdict::RateDecrease { ratio } => {
                if !self.recovery && now >= self.hold_until {
                    let smss = self.inner.smss;
                    let cwnd = ((self.cwnd() as f64 * ratio.max(MAX_CUT)) as u64).max(2 * smss);
                    self.inner.set_cwnd(cwnd);
                    self.inner.set_ssthresh(cwnd);
                    self.hold_until = now + self.srtt;
                }
            }
            Verdict::NonCongestiveLoss | Verdict::Congestion => {
                self.pending_loss = Some((fb.verdict, now));
                self.last_loss = Some(fb.verdict);
            }
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
        if !self.timed_out {
            self.timed_out = true;
            self.undo = (self.last_loss == Some(Verdict::NonCongestiveLoss)).then(|| (self.cwnd(), self.ssthresh()));
        }
        self.pending_loss = None;
        self.inner.on_rto(now, flight);
    }
    fn on_idle_restart(&mut self, now: SimTime, rw: u64) {
        self.inner.on_idle_restart(now, rw);
    }
}

#[cfg(test)]
#[path = "real_tests.rs"]
mod tests;
