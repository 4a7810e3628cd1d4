//! The TFRC receiver's loss history (RFC 5348 §5): which packets are lost,
//! how losses group into loss events, the loss intervals between events and
//! the loss event rate p = 1 / I_mean (§5.4) with history discounting
//! (§5.5). TFRC-SP's rule for short intervals (RFC 4828 §4.4) is an option.
//!
//! Sequence numbers are the transport's (every data packet has one); send
//! times are the sender's timestamps (TFRC header, RFC 5348 §3.2.1) or, for
//! DCCP, arrival-time estimates — either way in the sender's clock frame,
//! which is all the loss-event grouping needs.

use crate::time::SimTime;
use std::collections::VecDeque;

/// The eight weights of RFC 5348 §5.4 (n = 8).
pub const WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];
/// Packets received after a missing one before it counts as lost
/// (RFC 5348 §5.1, NDUPACK).
pub const NDUPACK: u64 = 3;
/// Lower bound of the history discount factor (RFC 5348 §5.5).
pub const DF_MIN: f64 = 0.5;

/// One closed loss interval.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Interval {
    /// Length in packets (RFC 5348 §5.3), after TFRC-SP's short-interval rule.
    len: f64,
    /// History discount factor DF_i accumulated so far (§5.5).
    df: f64,
}

/// The loss event currently open (the start of I_0).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Event {
    seq: u64,
    sent: SimTime,
    /// Packets lost or marked since this event began (TFRC-SP).
    losses: u32,
}

#[derive(Clone, Debug)]
pub struct LossHistory {
    /// Closed intervals, most recent first (I_1, I_2, …, at most 8 kept).
    closed: VecDeque<Interval>,
    current: Option<Event>,
    /// Reception state of sequence numbers from `base` upwards.
    base: u64,
    seen: VecDeque<Option<SimTime>>,
    highest: Option<u64>,
    /// TFRC-SP (RFC 4828 §4.4): in intervals shorter than two RTTs every
    /// lost packet counts.
    small_packets: bool,
    /// History discounting on (RFC 5348 §5.5, SHOULD).
    discounting: bool,
}

/// What one arriving packet changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossUpdate {
    /// A new loss event began (the receiver sends feedback at once, §6.1).
    pub new_event: bool,
    /// It was the first loss event of the connection (§6.3.1 applies).
    pub first_event: bool,
}

impl LossHistory {
    pub fn new(small_packets: bool, discounting: bool) -> Self {
        LossHistory {
            closed: VecDeque::with_capacity(9),
            current: None,
            base: 0,
            seen: VecDeque::new(),
            highest: None,
            small_packets,
            discounting,
        }
    }

    /// Any loss event so far?
    pub fn has_loss(&self) -> bool {
        self.current.is_some()
    }

    /// A data packet `seq` sent at `sent` arrived (`ce`: with an ECN
    /// congestion mark, which counts as a loss, RFC 5348 §5). `rtt` groups
    /// losses into events (§5.2): a loss more than one RTT after the start
    /// of the current event starts a new one.
    pub fn on_packet(&mut self, seq: u64, sent: SimTime, ce: bool, rtt_s: f64) -> LossUpdate {
        let mut up = LossUpdate::default();
        if self.highest.is_none() {
            self.base = seq;
        }
        if seq < self.base {
            return up; // older than anything still tracked: a late duplicate
        }
        let idx = (seq - self.base) as usize;
        if idx >= self.seen.len() {
            self.seen.resize(idx + 1, None);
        }
        if self.seen[idx].is_some() {
            return up; // duplicate
        }
        self.seen[idx] = Some(sent);
        if ce {
            self.lost(seq, sent, rtt_s, &mut up);
        }
        if self.highest.is_none_or(|h| seq > h) {
            self.highest = Some(seq);
        }
        self.detect(rtt_s, &mut up);
        up
    }

    /// RFC 5348 §5.1: a packet is lost once NDUPACK packets with higher
    /// sequence numbers have arrived. Its send time is interpolated between
    /// the packets received around it (§5.2).
    fn detect(&mut self, rtt_s: f64, up: &mut LossUpdate) {
        let Some(high) = self.highest else { return };
        while self.base + NDUPACK <= high {
            // Enough packets above `base` arrived iff at least NDUPACK of the
            // entries after it are filled; with in-order arrival that is the
            // same as high ≥ base + NDUPACK, and reordered packets within
            // three positions are still in time.
            let after = self.seen.iter().skip(1).filter(|s| s.is_some()).count() as u64;
            if after < NDUPACK {
                break;
            }
            let front = self.seen.pop_front().unwrap_or(None);
            let seq = self.base;
            self.base += 1;
            if front.is_none() {
                let sent = self.next_received_sent();
                self.lost(seq, sent, rtt_s, up);
            }
        }
    }

    /// Send time of a lost packet, taken as that of the next packet received
    /// after it (`seen` now starts just after the lost one). RFC 5348 §5.2
    /// interpolates between the neighbours; the later bound errs by at most
    /// one inter-packet gap and gives every packet of one burst the same
    /// time, keeping the burst in one loss event as §5.2 intends.
    fn next_received_sent(&self) -> SimTime {
        self.seen.iter().flatten().next().copied().unwrap_or(SimTime::ZERO)
    }

    fn lost(&mut self, seq: u64, sent: SimTime, rtt_s: f64, up: &mut LossUpdate) {
        let rtt = crate::time::SimDuration::from_secs_f64(rtt_s.max(0.0));
        match self.current {
            Some(ref mut ev) if sent <= ev.sent + rtt => ev.losses += 1,
            Some(ev) => {
                let len = seq.saturating_sub(ev.seq).max(1) as f64;
                // RFC 4828 §4.4: an interval shorter than two RTTs counts
                // each of its lost packets as a loss event.
                let short = sent < ev.sent + rtt + rtt;
                let len = if self.small_packets && short { (len / ev.losses as f64).max(1.0) } else { len };
                // §5.5: the discount in force when the interval closes
                // stays with the older intervals.
                let df_now = self.discount();
                for c in self.closed.iter_mut() {
                    c.df *= df_now;
                }
                self.closed.push_front(Interval { len, df: 1.0 });
                self.closed.truncate(WEIGHTS.len());
                self.current = Some(Event { seq, sent, losses: 1 });
                up.new_event = true;
            }
            None => {
                up.first_event = true;
                self.current = Some(Event { seq, sent, losses: 1 });
                up.new_event = true;
            }
        }
    }

    /// The open interval I_0: packets from the start of the current loss
    /// event to the highest received, inclusive (RFC 5348 §5.3).
    fn open_len(&self) -> f64 {
        match (self.current, self.highest) {
            (Some(ev), Some(h)) => (h.saturating_sub(ev.seq) + 1) as f64,
            _ => 0.0,
        }
    }

    /// Replace the history before the first loss event with one synthetic
    /// interval (RFC 5348 §6.3.1: from the receive rate before the loss).
    pub fn set_first_interval(&mut self, len: f64) {
        self.closed.clear();
        self.closed.push_front(Interval { len: len.max(1.0), df: 1.0 });
    }

    /// Mean of the closed intervals alone, undiscounted (I_tot1 / W_tot1).
    fn closed_mean(&self) -> Option<f64> {
        let (mut tot, mut w) = (0.0, 0.0);
        for (c, wi) in self.closed.iter().zip(WEIGHTS) {
            tot += c.len * wi;
            w += wi;
        }
        (w > 0.0).then(|| tot / w)
    }

    /// The current discount factor DF (RFC 5348 §5.5): when the open
    /// interval is more than twice the mean, older intervals weigh less,
    /// down to DF_MIN.
    fn discount(&self) -> f64 {
        if !self.discounting {
            return 1.0;
        }
        match self.closed_mean() {
            Some(m) if self.open_len() > 2.0 * m => (2.0 * m / self.open_len()).max(DF_MIN),
            _ => 1.0,
        }
    }

    /// Average loss interval I_mean (RFC 5348 §5.4): the weighted mean with
    /// and without the open interval, whichever is larger, so I_0 counts
    /// only when it raises the mean. None before the first loss event.
    pub fn i_mean(&self) -> Option<f64> {
        self.current?;
        if self.closed.is_empty() {
            return Some(self.open_len());
        }
        let df = self.discount();
        let i0 = self.open_len();
        let n = WEIGHTS.len();
        // With I_0: I_0·w_0 + Σ_{i=1}^{n-1} I_i·w_i·DF_i·DF.
        let (mut tot0, mut w0) = (i0 * WEIGHTS[0], WEIGHTS[0]);
        // Without: Σ_{i=1}^{n} I_i·w_{i-1}·DF_i·DF.
        let (mut tot1, mut w1) = (0.0, 0.0);
        for (k, c) in self.closed.iter().enumerate() {
            let d = c.df * df;
            if k + 1 < n {
                tot0 += c.len * WEIGHTS[k + 1] * d;
                w0 += WEIGHTS[k + 1] * d;
            }
            tot1 += c.len * WEIGHTS[k] * d;
            w1 += WEIGHTS[k] * d;
        }
        Some((tot0 / w0).max(tot1 / w1))
    }

    /// Loss event rate p = 1 / I_mean, 0 before any loss.
    pub fn p(&self) -> f64 {
        self.i_mean().map_or(0.0, |m| 1.0 / m.max(1.0))
    }

    /// Closed intervals held, plus the open one (for the Loss Intervals
    /// option's size, RFC 4342 §8.6).
    pub fn intervals(&self) -> usize {
        self.closed.len() + usize::from(self.current.is_some())
    }
}
