//! The TFRC receiver (RFC 5348 §6): measures the receive rate X_recv, keeps
//! the loss history, and decides when to send feedback: once per RTT by a
//! timer (RFC 5348 §6.2, plain TFRC), or DCCP CCID 3's rule on the window
//! counter (RFC 4342 §10.3); at once on a new loss event (RFC 5348 §6.1);
//! optionally N_Fb times per RTT (seed 003 eq. 8).

use super::loss_history::LossHistory;
use super::TfrcConfig;
use crate::cc::equation::tfrc_p_for_rate;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// When the receiver sends feedback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedbackMode {
    /// A feedback timer of one RTT, R taken from the data packets' header
    /// (RFC 5348 §3.2.1, §6.2).
    Timer,
    /// DCCP CCID 3/4: when a packet's CCVal is at least 4 past that of the
    /// packet last fed back (RFC 4342 §10.3); R is estimated from the
    /// window counter's quarter-RTT steps (RFC 4342 §8.1).
    WindowCounter,
}

/// One data packet as the receiver sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataInfo {
    pub seq: u64,
    /// The sender's timestamp (TFRC), or the arrival time when the header
    /// has none (DCCP without the Timestamp option).
    pub sent: SimTime,
    /// Segment bytes (payload of the transport).
    pub bytes: u32,
    pub ce: bool,
    /// CCID 3 window counter (RFC 4342 §8.1).
    pub ccval: u8,
    /// The sender's RTT estimate carried in a TFRC header, if any.
    pub rtt: Option<SimDuration>,
}

/// A feedback report's contents (RFC 5348 §3.2.2, RFC 4342 §8.3–8.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Report {
    /// The last data packet received, and its send timestamp.
    pub ack_seq: u64,
    pub t_recvdata: SimTime,
    pub t_delay: SimDuration,
    pub x_recv: f64,
    pub p: f64,
    /// Loss intervals held (open + closed), for the option's size.
    pub intervals: u8,
}

#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    cfg: TfrcConfig,
    mode: FeedbackMode,
    hist: LossHistory,
    /// RTT estimate, seconds (0 while unknown).
    r: f64,
    s: f64,
    bytes_since_fb: u64,
    t_last_fb: Option<SimTime>,
    /// Arrivals within the last RTT (time, bytes): the receive rate just
    /// before the first loss (RFC 5348 §6.3.1).
    recent: VecDeque<(SimTime, u32)>,
    /// The last data packet: seq, send timestamp, arrival, CCVal.
    last: Option<(u64, SimTime, SimTime)>,
    last_fb_ccval: Option<u8>,
    /// First arrival of each window-counter value, and the last value seen.
    ccval_seen: [Option<SimTime>; 16],
    last_ccval: Option<u8>,
    /// Feedback timer.
    timer: SimTime,
    /// Feedback messages per RTT (1 unless `dynamic_feedback`).
    n_fb: u32,
    pub reports: u64,
}

impl TfrcReceiver {
    pub fn new(cfg: TfrcConfig, mode: FeedbackMode) -> Self {
        TfrcReceiver {
            hist: LossHistory::new(cfg.small_packets && cfg.short_intervals, cfg.discounting),
            cfg,
            mode,
            r: 0.0,
            s: 0.0,
            bytes_since_fb: 0,
            t_last_fb: None,
            recent: VecDeque::new(),
            last: None,
            last_fb_ccval: None,
            ccval_seen: [None; 16],
            last_ccval: None,
            timer: SimTime::NEVER,
            n_fb: 1,
            reports: 0,
        }
    }

    /// An RTT measured by the handshake (DCCP server side).
    pub fn set_rtt(&mut self, rtt: SimDuration) {
        self.r = rtt.as_secs_f64();
    }
    pub fn rtt(&self) -> f64 {
        self.r
    }
    pub fn p(&self) -> f64 {
        self.hist.p()
    }
    pub fn n_fb(&self) -> u32 {
        self.n_fb
    }
    pub fn history(&self) -> &LossHistory {
        &self.hist
    }

    /// When the receiver next wants `on_timeout`.
    pub fn timeout(&self) -> SimTime {
        self.timer
    }

    /// The feedback interval: R, or R/N_Fb (seed 003's observation interval).
    fn interval(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.r / self.n_fb as f64)
    }

    /// A data packet arrived; true if feedback must be sent now.
    pub fn on_data(&mut self, now: SimTime, d: &DataInfo) -> bool {
        let first = self.last.is_none();
        self.s = if self.s == 0.0 { d.bytes as f64 } else { 0.75 * self.s + 0.25 * d.bytes as f64 };
        if let Some(r) = d.rtt.filter(|r| r.0 > 0) {
            self.r = r.as_secs_f64();
        }
        if self.mode == FeedbackMode::WindowCounter {
            self.sample_rtt(now, d.ccval);
        }
        self.bytes_since_fb += d.bytes as u64;
        self.recent.push_back((now, d.bytes));
        let window = SimDuration::from_secs_f64(self.r.max(1e-3));
        while self.recent.front().is_some_and(|e| e.0 + window < now) {
            self.recent.pop_front();
        }
        if first {
            self.t_last_fb = Some(now);
        }
        self.last = Some((d.seq, d.sent, now));
        let up = self.hist.on_packet(d.seq, d.sent, d.ce, self.r);
        if up.first_event {
            self.first_interval();
        }
        if self.timer == SimTime::NEVER && self.r > 0.0 {
            self.timer = now + self.interval();
        }
        let counter_due = self.mode == FeedbackMode::WindowCounter
            && self.n_fb == 1
            && self.last_fb_ccval.is_none_or(|c| d.ccval.wrapping_sub(c) & 15 >= 4);
        // Until R is known there is no timer: report every packet.
        first || up.new_event || counter_due || self.r == 0.0
    }

    /// RFC 4342 §8.1: the window counter advances once per quarter RTT, so
    /// the arrival of the first packet with value c, less that of c − 4
    /// (four consecutive single steps), samples one RTT.
    fn sample_rtt(&mut self, now: SimTime, c: u8) {
        let c = c & 15;
        if self.last_ccval == Some(c) {
            return;
        }
        let step_ok = self.last_ccval.is_some_and(|l| c.wrapping_sub(l) & 15 == 1);
        if !step_ok {
            // A jump (idle, loss): older first-arrivals no longer line up.
            self.ccval_seen = [None; 16];
        }
        self.ccval_seen[c as usize] = Some(now);
        self.last_ccval = Some(c);
        if let Some(t4) = self.ccval_seen[(c.wrapping_sub(4) & 15) as usize] {
            let sample = now.saturating_since(t4).as_secs_f64();
            if sample > 0.0 {
                self.r = if self.r == 0.0 { sample } else { 0.9 * self.r + 0.1 * sample };
            }
        }
    }

    /// RFC 5348 §6.3.1: the first loss interval is the one that, through
    /// the throughput equation, gives the receive rate of the last RTT.
    fn first_interval(&mut self) {
        let r = self.r.max(1e-3);
        let bytes: u64 = self.recent.iter().map(|e| e.1 as u64).sum();
        let x_target = bytes as f64 / r;
        let s = self.cfg.equation_s(self.s.max(1.0));
        let p = tfrc_p_for_rate(s, r, x_target.max(1e-9), self.cfg.t_rto(r, r / 2.0));
        self.hist.set_first_interval(1.0 / p);
    }

    /// The feedback timer fired; true if feedback must be sent now.
    pub fn on_timeout(&mut self, now: SimTime) -> bool {
        if now < self.timer {
            return false;
        }
        // RFC 5348 §6.2: no data since the last report, no report; the
        // timer restarts with the next packet.
        self.timer = SimTime::NEVER;
        let timed = self.mode == FeedbackMode::Timer || self.n_fb > 1;
        timed && self.bytes_since_fb > 0
    }

    /// Build the report and reset the measurement (call when sending it).
    pub fn report(&mut self, now: SimTime) -> Report {
        let (seq, sent, arrived) = self.last.unwrap_or((0, now, now));
        let since = self.t_last_fb.map_or(0.0, |t| now.saturating_since(t).as_secs_f64());
        // RFC 4342 §8.3 (errata 610): the rate since the last report, over
        // no less than one RTT — or, with seed 003's N_Fb reports per RTT,
        // no less than its observation interval O = R/N_Fb (§6.2): bytes of
        // one O over a whole R would report X_recv N_Fb times too low.
        let span = since.max(self.r / self.n_fb as f64).max(1e-3);
        // Errata 610 asks for the rate "over the last round-trip time":
        // when this report comes sooner than that (a new loss event, the
        // window counter's rule at low packet rates, a stale R), the bytes
        // of the last `span` — not only those since the last report —
        // are divided by it. Dividing the bytes of a shorter interval by
        // R under-reports X_recv by since/R, and with X ≤ 2·X_recv a
        // sparse CCID 3 flow then ratchets X down and never recovers
        // (tests/tfrc_codec.rs).
        let x_recv = if since >= span {
            self.bytes_since_fb as f64 / span
        } else {
            let w = SimDuration::from_secs_f64(span);
            let b: u64 = self.recent.iter().filter(|e| e.0 + w >= now).map(|e| e.1 as u64).sum();
            b as f64 / span
        };
        if self.cfg.dynamic_feedback && self.r > 0.0 && self.s > 0.0 {
            // Seed 003 eq. (8): N_Fb = min(max(round(R/RTT_ref), 1), R·X_recv/s).
            let by_rtt = (self.r / self.cfg.nominal_rtt.as_secs_f64()).round().max(1.0);
            let by_rate = (self.r * x_recv / self.s).floor().max(1.0);
            self.n_fb = by_rtt.min(by_rate) as u32;
        }
        self.bytes_since_fb = 0;
        self.t_last_fb = Some(now);
        self.last_fb_ccval = self.last_ccval.or(Some(0));
        self.reports += 1;
        self.timer = if self.r > 0.0 { now + self.interval() } else { SimTime::NEVER };
        Report {
            ack_seq: seq,
            t_recvdata: sent,
            t_delay: now.saturating_since(arrived),
            x_recv,
            p: self.hist.p(),
            intervals: self.hist.intervals().min(9) as u8,
        }
    }
}
