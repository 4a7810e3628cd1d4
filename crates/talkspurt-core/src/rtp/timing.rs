//! When a participant sends its regular RTCP reports: A.7's `OnExpire`
//! with timer reconsideration (RFC 3550 §6.3.6), the running average
//! packet size (§6.3.3), the fixed variant, and AVPF's Tmin = 0 after the
//! first regular report (RFC 4585 §3.4).

use super::interval::{reduced_min, IntervalInputs, Schedule};
use super::RtcpConfig;
use crate::net::wire::{IPV4_HEADER, UDP_HEADER};
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

#[derive(Debug)]
pub struct Timing {
    schedule: Schedule,
    rtcp_bw: f64,
    session_bps: f64,
    avpf: bool,
    we_sent: bool,
    pub avg_rtcp_size: f64,
    pub initial: bool,
    /// Last regular transmission and the next scheduled one.
    pub tp: SimTime,
    pub tn: SimTime,
    /// The last interval drawn (AVPF's T_rr).
    pub t_rr: SimDuration,
    rng: Rng,
}

/// What to do when `tn` is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expire {
    Send,
    /// Reconsideration moved the report later (to the new `tn`).
    Later,
}

impl Timing {
    /// `first_size`: the size of the first compound packet, octets above
    /// UDP (§6.3.2 initialises avg_rtcp_size with it).
    pub fn new(cfg: &RtcpConfig, we_sent: bool, start: SimTime, first_size: u32, rng: Rng) -> Self {
        let mut t = Timing {
            schedule: cfg.schedule,
            rtcp_bw: cfg.fraction * cfg.session_bps / 8.0,
            session_bps: cfg.session_bps,
            avpf: cfg.feedback.is_some(),
            we_sent,
            avg_rtcp_size: (first_size + IPV4_HEADER + UDP_HEADER) as f64,
            initial: true,
            tp: start,
            tn: SimTime::NEVER,
            t_rr: SimDuration::ZERO,
            rng,
        };
        let first = t.draw();
        t.tn = start + first;
        t
    }

    fn inputs(&self) -> Option<IntervalInputs> {
        let Schedule::Rfc3550 { min, reduced_min: reduced, .. } = self.schedule else { return None };
        let mut tmin = if reduced { reduced_min(self.session_bps) } else { min.as_secs_f64() };
        if self.avpf && !self.initial {
            tmin = 0.0;
        }
        Some(IntervalInputs {
            members: 2,
            senders: 1,
            rtcp_bw: self.rtcp_bw,
            we_sent: self.we_sent,
            avg_rtcp_size: self.avg_rtcp_size,
            initial: self.initial,
            tmin,
        })
    }

    /// The next interval: A.7 randomised, or the fixed period.
    pub fn draw(&mut self) -> SimDuration {
        let t = match (self.schedule, self.inputs()) {
            (Schedule::Fixed(p), _) => p,
            (_, Some(i)) => i.draw(&mut self.rng),
            (_, None) => unreachable!("an RFC 3550 schedule has inputs"),
        };
        self.t_rr = t;
        t
    }

    /// `tn` reached (A.7 OnExpire for a participant that stays).
    pub fn on_expire(&mut self, now: SimTime) -> Expire {
        if let Schedule::Rfc3550 { reconsideration: true, .. } = self.schedule {
            let t = self.draw();
            if self.tp + t > now {
                self.tn = self.tp + t;
                return Expire::Later;
            }
        }
        Expire::Send
    }

    /// A regular report of `size` octets (above UDP) left now.
    pub fn sent_regular(&mut self, now: SimTime, size: u32) {
        self.count_packet(size);
        self.tp = now;
        self.initial = false;
        let t = self.draw();
        self.tn = now + t;
    }

    /// Every compound packet sent or received updates the average size
    /// (§6.3.3).
    pub fn count_packet(&mut self, size: u32) {
        let s = (size + IPV4_HEADER + UDP_HEADER) as f64;
        self.avg_rtcp_size = s / 16.0 + self.avg_rtcp_size * 15.0 / 16.0;
    }
}
