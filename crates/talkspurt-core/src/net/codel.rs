//! CoDel, Controlled Delay (RFC 8289): a dequeue-time AQM that drops (or
//! ECN-marks) when the sojourn time of dequeued packets has stayed above
//! `target` for at least `interval`, then at intervals `interval/√count`
//! (the control law, §4.3) until the sojourn falls below target again.
//! The state machine follows the pseudocode of RFC 8289 §5; ECN marking
//! (§4.4 leaves it to the implementation) follows Linux's codel: a marked
//! packet is delivered, so one dequeue marks at most one packet.

use super::packet::{Ecn, Packet};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct CoDelParams {
    /// Acceptable standing sojourn time: 5 ms (RFC 8289 §4.4).
    pub target: SimDuration,
    /// Sliding window, about a worst-case RTT: 100 ms (§4.5).
    pub interval: SimDuration,
    /// Below this many bytes queued CoDel never drops: one MTU (§5.3's
    /// maxpacket), 1514 B as Linux.
    pub mtu: u32,
    /// Mark ECN-capable packets instead of dropping (Linux codel `ecn`,
    /// default off).
    pub ecn: bool,
}

impl Default for CoDelParams {
    fn default() -> Self {
        CoDelParams {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            mtu: 1514,
            ecn: false,
        }
    }
}

/// A FIFO of packets with their enqueue times.
pub trait Fifo {
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// Bytes still queued (after the pop).
    fn bytes(&self) -> u64;
}

/// A plain FIFO tracking its bytes.
#[derive(Debug, Default)]
pub struct TimedFifo {
    pub q: VecDeque<(Packet, SimTime)>,
    pub bytes: u64,
}

impl TimedFifo {
    pub fn push(&mut self, pkt: Packet, now: SimTime) {
        self.bytes += pkt.size as u64;
        self.q.push_back((pkt, now));
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

impl Fifo for TimedFifo {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let e = self.q.pop_front()?;
        self.bytes -= e.0.size as u64;
        Some(e)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// What one CoDel dequeue did besides returning a packet.
#[derive(Debug, Default)]
pub struct CoDelOut {
    pub marks: u64,
    /// Packets dropped at the head, with their enqueue times.
    pub dropped: Vec<(Packet, SimTime)>,
}

/// CoDel's state (RFC 8289 §5.1 variables).
#[derive(Clone, Debug)]
pub struct CoDel {
    pub target: SimDuration,
    pub interval: SimDuration,
    mtu: u64,
    ecn: bool,
    /// When the sojourn will have been above target for an interval
    /// (None: below target).
    first_above_time: Option<SimTime>,
    pub drop_next: SimTime,
    /// Drops (and marks) since entering the dropping state.
    pub count: u32,
    lastcount: u32,
    pub dropping: bool,
}

impl CoDel {
    pub fn new(p: &CoDelParams) -> Self {
        CoDel {
            target: p.target,
            interval: p.interval,
            mtu: p.mtu as u64,
            ecn: p.ecn,
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    /// §4.3: t + interval/√count.
    fn control_law(&self, t: SimTime) -> SimTime {
        let dt = self.interval.as_nanos() as f64 / (self.count.max(1) as f64).sqrt();
        SimTime(t.0 + dt as u64)
    }

    /// §5.4 `dodequeue`: the head packet and whether it may be dropped.
    fn dodequeue<Q: Fifo>(&mut self, now: SimTime, q: &mut Q) -> Option<((Packet, SimTime), bool)> {
        let Some((pkt, enq)) = q.pop() else {
            self.first_above_time = None;
            return None;
        };
        let sojourn = now.saturating_since(enq);
        let mut ok_to_drop = false;
        if sojourn < self.target || q.bytes() <= self.mtu {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + self.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        Some(((pkt, enq), ok_to_drop))
    }

    /// Mark `p` if allowed; true if it was marked (and is to be sent).
    fn mark(&self, p: &mut Packet) -> bool {
        if self.ecn && p.ecn != Ecn::NotEct {
            p.ecn = Ecn::Ce;
            true
        } else {
            false
        }
    }

    /// §5.5 `dequeue`: the packet to send, if any.
    pub fn dequeue<Q: Fifo>(&mut self, now: SimTime, q: &mut Q, out: &mut CoDelOut) -> Option<(Packet, SimTime)> {
        let Some((mut head, ok_to_drop)) = self.dodequeue(now, q) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            // Drop (or mark) every packet whose drop time has come.
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if self.mark(&mut head.0) {
                    out.marks += 1;
                    self.drop_next = self.control_law(self.drop_next);
                    return Some(head);
                }
                out.dropped.push(head);
                match self.dodequeue(now, q) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some((next, ok)) => {
                        head = next;
                        if !ok {
                            self.dropping = false;
                        } else {
                            self.drop_next = self.control_law(self.drop_next);
                        }
                    }
                }
            }
        } else if ok_to_drop {
            // Enter the dropping state; restart near the previous drop
            // rate if it ended recently (§5.5: delta, 16 intervals).
            let marked = self.mark(&mut head.0);
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now.saturating_since(self.drop_next).as_nanos() < 16 * self.interval.as_nanos();
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = self.control_law(now);
            self.lastcount = self.count;
            if marked {
                out.marks += 1;
                return Some(head);
            }
            out.dropped.push(head);
            match self.dodequeue(now, q) {
                Some((next, _)) => head = next,
                None => return None,
            }
        }
        Some(head)
    }
}

/// A CoDel queue: one FIFO and its CoDel state.
#[derive(Debug)]
pub struct CoDelQueue {
    pub fifo: TimedFifo,
    pub codel: CoDel,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Dir, Header, NO_APP};

    fn pkt(ecn: Ecn) -> Packet {
        Packet { flow: 0, dir: Dir::Forward, ecn, dst: 1, size: 1500, app_seq: NO_APP, hdr: Header::Datagram, app: Default::default() }
    }

    /// A standing queue (every packet has waited 50 ms) served one packet
    /// per ms: the first drop comes one interval after the sojourn first
    /// exceeds target, and the k-th drop after it `interval/√k` later
    /// (§4.3), to within the 1 ms dequeue spacing.
    #[test]
    fn drop_spacing_follows_the_control_law() {
        let mut c = CoDel::new(&CoDelParams::default());
        let mut q = TimedFifo::default();
        let ms = |x: u64| SimTime(x * 1_000_000);
        let mut drops = Vec::new();
        for t in 50..3050u64 {
            // Keep the queue long: refill with packets stamped 50 ms ago.
            while q.len() < 60 {
                q.push(pkt(Ecn::NotEct), SimTime((t * 1_000_000).saturating_sub(50_000_000)));
            }
            let mut out = CoDelOut::default();
            c.dequeue(ms(t), &mut q, &mut out);
            drops.extend(out.dropped.iter().map(|_| t));
        }
        assert_eq!(drops[0], 150, "first drop one interval after the first dequeue above target");
        for k in 1..drops.len().min(200) {
            let gap = (drops[k] - drops[k - 1]) as f64;
            let law = 100.0 / (k as f64).sqrt();
            assert!((gap - law).abs() <= 1.0, "gap {k}: {gap} ms vs {law:.2} ms");
        }
        assert!(drops.len() > 200, "{} drops", drops.len());
    }

    /// With ECN on, an ECN-capable packet is marked and sent instead.
    #[test]
    fn ecn_marks_instead_of_dropping() {
        let mut c = CoDel::new(&CoDelParams { ecn: true, ..Default::default() });
        let mut q = TimedFifo::default();
        let (mut marks, mut drops) = (0, 0);
        for t in 0..1000u64 {
            while q.len() < 60 {
                q.push(pkt(Ecn::Ect0), SimTime((t * 1_000_000).saturating_sub(50_000_000)));
            }
            let mut out = CoDelOut::default();
            let p = c.dequeue(SimTime(t * 1_000_000), &mut q, &mut out).unwrap();
            if out.marks > 0 {
                assert_eq!(p.0.ecn, Ecn::Ce);
            }
            marks += out.marks;
            drops += out.dropped.len();
        }
        assert_eq!(drops, 0);
        assert!(marks > 10, "{marks} marks");
    }

    /// Sojourn below target: nothing is dropped.
    #[test]
    fn short_queue_is_left_alone() {
        let mut c = CoDel::new(&CoDelParams::default());
        for t in 10..1000u64 {
            // Ten packets queued, each 4 ms old when served.
            let mut q = TimedFifo::default();
            for _ in 0..10 {
                q.push(pkt(Ecn::NotEct), SimTime((t - 4) * 1_000_000));
            }
            let mut out = CoDelOut::default();
            c.dequeue(SimTime(t * 1_000_000), &mut q, &mut out);
            assert!(out.dropped.is_empty());
        }
    }
}
