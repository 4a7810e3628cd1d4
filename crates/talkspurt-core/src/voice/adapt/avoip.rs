//! AVoIP, the RTCP-driven AIMD bit-rate control of Barberis et al. (seed
//! 004 §2.2, Fig. 2). On every receiver report the source smooths the loss
//! ratio (peer_SLR) and compares it and the latest delay with thresholds:
//!
//! - loss above Max_Loss, and more than dec_int since the last change:
//!   halve the rate; below Min_Loss and more than inc_int since: increment;
//! - delay above avg_delay·(1 + latency_thresh) and more than dec_int since:
//!   decrement; below it and more than inc_int since: increment;
//! - halve before decrement before increment; each firing branch sets
//!   var_time = now, so the delay test sees a change the loss test made in
//!   the same report (the pseudo-code's order, kept literally);
//! - no report for `no_report` (5 s): one step down on the source's own.
//!
//! Rates between 8 and 64 kb/s in steps of 8 kb/s; dec_int 1 s, inc_int
//! 3 s, Max_Loss 3 %, Min_Loss 7 %, latency_thresh 0.1, α = 0.2 in
//! x̄(n) = α·x̄(n−1) + (1−α)·x(n) (§2.2, as printed: the new sample weighs
//! 0.8).
//!
//! Readings (docs/models/rtp.md): with the printed Max_Loss < Min_Loss the
//! increment-on-loss branch fires whenever the halve branch does not (SLR ≤
//! 3 % < 7 %); both values are kept and configurable. The delay
//! (`DelaySignal`) is by default the paper's: peer_delay is the one-way
//! delay the receiver measured (§2.1: "single delay estimates can be made
//! on the reception of every RTP packet", clocks aligned as §2.1 item 1
//! requires), relayed down-sampled in its report as the mean over the
//! packets received since its previous report; `Rtt` reads the report's
//! round-trip time (RFC 3550 §6.4.1 A − LSR − DLSR) instead, which also
//! carries the reverse path's queue. The comparison is against
//! the average before the new sample joins it ("the mean so far computed");
//! the first sample only starts the average; a report without the delay
//! skips the delay test. peer_SLR starts at 0. var_time starts at the call's
//! start. Halving rounds down to a whole step, not below the minimum. The
//! no-report step also sets var_time and re-arms the 5 s timer. Each change
//! records its cause (`last_cause`): the halve, decrement or increment
//! branch that won, or the no-report step.

use super::{Cause, Change, ReportView};
use crate::rtp::RtcpEvent;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq)]
pub struct AvoipCfg {
    pub min_bps: u32,
    pub max_bps: u32,
    pub step_bps: u32,
    pub start_bps: u32,
    pub dec_int: SimDuration,
    pub inc_int: SimDuration,
    /// Fractions (seed: 3 % and 7 %).
    pub max_loss: f64,
    pub min_loss: f64,
    pub latency_thresh: f64,
    /// Weight of the previous average (seed: 0.2).
    pub alpha: f64,
    pub no_report: SimDuration,
    pub delay: DelaySignal,
}

/// Which delay Fig. 2's delay test reads from a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DelaySignal {
    /// The receiver's mean one-way delay since its previous report (§2.1–2.2).
    #[default]
    OneWay,
    /// The RTCP round-trip time (RFC 3550 §6.4.1).
    Rtt,
}

impl Default for AvoipCfg {
    fn default() -> Self {
        AvoipCfg {
            min_bps: 8_000,
            max_bps: 64_000,
            step_bps: 8_000,
            start_bps: 8_000,
            dec_int: SimDuration::from_secs(1),
            inc_int: SimDuration::from_secs(3),
            max_loss: 0.03,
            min_loss: 0.07,
            latency_thresh: 0.1,
            alpha: 0.2,
            no_report: SimDuration::from_secs(5),
            delay: DelaySignal::OneWay,
        }
    }
}

#[derive(Debug)]
pub struct Avoip {
    cfg: AvoipCfg,
    pub rate_bps: u32,
    /// Smoothed loss ratio (peer_SLR) and delay (avg_delay, seconds).
    pub peer_slr: f64,
    pub avg_delay: Option<f64>,
    var_time: SimTime,
    /// When the source steps down unless a report arrives first.
    deadline: SimTime,
    /// Why the last change was made.
    pub last_cause: Cause,
}

impl Avoip {
    pub fn new(cfg: AvoipCfg, start: SimTime) -> Self {
        let deadline = start + cfg.no_report;
        Avoip { rate_bps: cfg.start_bps, peer_slr: 0.0, avg_delay: None, var_time: start, deadline, last_cause: Cause::Start, cfg }
    }

    fn smooth(&self, avg: f64, x: f64) -> f64 {
        self.cfg.alpha * avg + (1.0 - self.cfg.alpha) * x
    }

    pub fn on_event(&mut self, now: SimTime, ev: &RtcpEvent) -> Option<Change> {
        let RtcpEvent::Report { fraction_lost, rtt_s, owd_s, .. } = *ev else { return None };
        let delay = match self.cfg.delay {
            DelaySignal::OneWay => owd_s,
            DelaySignal::Rtt => rtt_s,
        };
        self.deadline = now + self.cfg.no_report;
        let c = self.cfg.clone();
        let (mut halve, mut decrement, mut increment) = (false, false, false);
        self.peer_slr = self.smooth(self.peer_slr, fraction_lost);
        // Fig. 2, "compare loss rates".
        if self.peer_slr > c.max_loss {
            if now > self.var_time + c.dec_int {
                halve = true;
                self.var_time = now;
            }
        } else if self.peer_slr < c.min_loss && now > self.var_time + c.inc_int {
            increment = true;
            self.var_time = now;
        }
        // "Compare delay estimates".
        if let Some(d) = delay {
            if let Some(avg) = self.avg_delay {
                let mark = avg + avg * c.latency_thresh;
                if d > mark {
                    if now > self.var_time + c.dec_int {
                        decrement = true;
                        self.var_time = now;
                    }
                } else if d < mark && now > self.var_time + c.inc_int {
                    increment = true;
                    self.var_time = now;
                }
                self.avg_delay = Some(self.smooth(avg, d));
            } else {
                self.avg_delay = Some(d);
            }
        }
        let (next, cause) = if halve {
            ((self.rate_bps / 2 / c.step_bps * c.step_bps).max(c.min_bps), Cause::Halve)
        } else if decrement {
            (self.rate_bps.saturating_sub(c.step_bps).max(c.min_bps), Cause::Decrement)
        } else if increment {
            ((self.rate_bps + c.step_bps).min(c.max_bps), Cause::Increment)
        } else {
            (self.rate_bps, Cause::Other)
        };
        self.set(next, cause)
    }

    /// What the report `ev`, just handled by `on_event` at `now`, showed
    /// the algorithm (the `report_*` series, docs/results.md): its fraction
    /// lost, peer_SLR and avg_delay after the update, and the delay sample
    /// the delay test read (per `DelaySignal`). None for other events.
    pub fn view(&self, now: SimTime, ev: &RtcpEvent) -> Option<ReportView> {
        let RtcpEvent::Report { fraction_lost, rtt_s, owd_s, .. } = *ev else { return None };
        let delay_s = match self.cfg.delay {
            DelaySignal::OneWay => owd_s,
            DelaySignal::Rtt => rtt_s,
        };
        Some(ReportView { t: now, loss: fraction_lost, slr: self.peer_slr, delay_s, avg_delay_s: self.avg_delay })
    }

    fn set(&mut self, next: u32, cause: Cause) -> Option<Change> {
        (next != self.rate_bps).then(|| {
            self.rate_bps = next;
            self.last_cause = cause;
            Change::Rate(next)
        })
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        Some(self.deadline)
    }

    /// No report for `no_report`: one step down (§2.2).
    pub fn handle_timeout(&mut self, now: SimTime) -> Option<Change> {
        if now < self.deadline {
            return None;
        }
        self.deadline = now + self.cfg.no_report;
        self.var_time = now;
        let next = self.rate_bps.saturating_sub(self.cfg.step_bps).max(self.cfg.min_bps);
        self.set(next, Cause::NoReport)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    fn rep(loss: f64, rtt_ms: Option<f64>) -> RtcpEvent {
        RtcpEvent::Report { fraction_lost: loss, cum_lost: 0, jitter_s: 0.0, rtt_s: rtt_ms.map(|r| r / 1e3), owd_s: None }
    }

    /// A scripted sequence, from 32 kb/s at t = 0 (each step worked by hand
    /// from Fig. 2 with the seed's parameters):
    ///  1. 1.0 s, loss 0, RTT 100: SLR 0; first RTT starts the average; 1 s
    ///     is not more than inc_int (3 s) after var_time 0: hold 32.
    ///  2. 3.5 s, loss 0, RTT 100: SLR < 7 % and 3.5 > 3: increment → 40
    ///     (var_time 3.5); the delay test (100 < 110) cannot fire again.
    ///     avg stays 100.
    ///  3. 4.0 s, loss 0.10: SLR 0.08 > 3 % but 4.0 ≤ 3.5 + 1: hold 40;
    ///     RTT 150 > 110, same gate: hold. avg = 0.2·100 + 0.8·150 = 140.
    ///  4. 5.0 s, loss 0.10: SLR 0.2·0.08 + 0.8·0.1 = 0.096 > 3 %, 5.0 > 4.5:
    ///     halve → 20 → rounded down to 16 kb/s (var_time 5.0); RTT 200 >
    ///     154 but gated. avg = 0.2·140 + 0.8·200 = 188.
    ///  5. 6.5 s, loss 0: SLR 0.0192 < 7 %, but 6.5 ≤ 5 + 3: no increment;
    ///     RTT 250 > 206.8 and 6.5 > 6.0: decrement → 8 (var_time 6.5).
    ///  6. 7.0 s, loss 0.5, no RTT: SLR 0.40384 > 3 %, 7.0 ≤ 7.5: hold at 8.
    ///  7. no report until 12.0 s (5 s after 7.0): one step down, already
    ///     at the minimum: no change; the timer re-arms for 17.0 s.
    ///  8. 12.5 s, loss 0, RTT 100: SLR 0.080768 > 3 %, 12.5 > 13.0? no —
    ///     var_time was set to 12.0 by the timer: hold. Delay 100 < 1.1·avg:
    ///     12.5 ≤ 15: hold.
    ///  9. 16.0 s, loss 0, RTT 100: SLR 0.0161536 < 7 % and 16 > 15:
    ///     increment → 16.
    #[test]
    fn fig2_script() {
        let mut cfg = AvoipCfg::default();
        cfg.start_bps = 32_000;
        cfg.delay = DelaySignal::Rtt;
        let mut a = Avoip::new(cfg, at(0));
        assert_eq!(a.poll_timeout(), Some(at(5_000)));
        assert_eq!(a.on_event(at(1_000), &rep(0.0, Some(100.0))), None);
        assert_eq!(a.on_event(at(3_500), &rep(0.0, Some(100.0))), Some(Change::Rate(40_000)));
        assert!((a.avg_delay.unwrap() - 0.1).abs() < 1e-12);
        assert_eq!(a.on_event(at(4_000), &rep(0.10, Some(150.0))), None);
        assert!((a.peer_slr - 0.08).abs() < 1e-12);
        assert!((a.avg_delay.unwrap() - 0.14).abs() < 1e-12);
        assert_eq!(a.on_event(at(5_000), &rep(0.10, Some(200.0))), Some(Change::Rate(16_000)));
        assert_eq!(a.last_cause, Cause::Halve);
        assert!((a.peer_slr - 0.096).abs() < 1e-12);
        assert!((a.avg_delay.unwrap() - 0.188).abs() < 1e-12);
        assert_eq!(a.on_event(at(6_500), &rep(0.0, Some(250.0))), Some(Change::Rate(8_000)));
        assert_eq!(a.last_cause, Cause::Decrement);
        assert_eq!(a.on_event(at(7_000), &rep(0.5, None)), None);
        assert!((a.peer_slr - 0.40384).abs() < 1e-12);
        assert_eq!(a.poll_timeout(), Some(at(12_000)));
        assert_eq!(a.handle_timeout(at(11_999)), None);
        assert_eq!(a.handle_timeout(at(12_000)), None);
        assert_eq!(a.poll_timeout(), Some(at(17_000)));
        assert_eq!(a.on_event(at(12_500), &rep(0.0, Some(100.0))), None);
        assert_eq!(a.on_event(at(16_000), &rep(0.0, Some(100.0))), Some(Change::Rate(16_000)));
        // Silence from 16 s: steps down at 21 s, then holds at the minimum.
        assert_eq!(a.handle_timeout(at(21_000)), Some(Change::Rate(8_000)));
        assert_eq!(a.last_cause, Cause::NoReport);
        assert_eq!(a.handle_timeout(at(26_000)), None);
    }

    /// The default signal is the one-way delay the report relays (§2.2's
    /// peer_delay): a report whose RTT rises but whose one-way delay does
    /// not (the reverse path queued) holds the rate; the one-way delay
    /// rising 20 % (> 10 %) steps it down. From 24 kb/s at t = 0:
    ///  1. 1.0 s: owd 50 ms starts the average; RTT 100.
    ///  2. 2.5 s: owd 50, RTT 200: loss 0 but 2.5 ≤ 3 (inc_int): hold; the
    ///     one-way test sees no rise (the RTT one would, but is not read).
    ///  3. 4.0 s: loss 0 and 4.0 > 3: the loss test increments → 32 and
    ///     sets var_time = 4.0, so (Fig. 2 literally) the delay test, owd
    ///     60 > 55, is gated by dec_int: the increment stands (Increment).
    ///  4. 5.5 s: owd 80 > 1.1·avg and 5.5 > 5.0: decrement → 24.
    #[test]
    fn one_way_delay_drives_the_delay_test() {
        let mut cfg = AvoipCfg::default();
        cfg.start_bps = 24_000;
        let mut a = Avoip::new(cfg, at(0));
        let r = |rtt: f64, owd: f64| RtcpEvent::Report { fraction_lost: 0.0, cum_lost: 0, jitter_s: 0.0, rtt_s: Some(rtt / 1e3), owd_s: Some(owd / 1e3) };
        assert_eq!(a.on_event(at(1_000), &r(100.0, 50.0)), None);
        assert!((a.avg_delay.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(a.on_event(at(2_500), &r(200.0, 50.0)), None);
        assert_eq!(a.on_event(at(4_000), &r(200.0, 60.0)), Some(Change::Rate(32_000)));
        assert_eq!(a.last_cause, Cause::Increment);
        // avg: 0.2·50 + 0.8·60 = 58 ms; 80 > 63.8 and 5.5 > 4.0 + 1.0.
        assert_eq!(a.on_event(at(5_500), &r(100.0, 80.0)), Some(Change::Rate(24_000)));
        assert_eq!(a.last_cause, Cause::Decrement);
    }

    /// Increments stop at 64 kb/s; halving 64 → 32 → 16 → 8 → 8.
    #[test]
    fn bounds() {
        let mut cfg = AvoipCfg::default();
        cfg.start_bps = 56_000;
        let mut a = Avoip::new(cfg, at(0));
        assert_eq!(a.on_event(at(3_001), &rep(0.0, None)), Some(Change::Rate(64_000)));
        assert_eq!(a.on_event(at(6_002), &rep(0.0, None)), None);
        let mut t = 6_002;
        for want in [Some(32_000), Some(16_000), Some(8_000), None] {
            t += 1_001;
            assert_eq!(a.on_event(at(t), &rep(1.0, None)).map(|c| match c {
                Change::Rate(r) => r,
                Change::Ptime(_) | Change::Mode(_) => 0,
            }), want);
        }
    }
}
