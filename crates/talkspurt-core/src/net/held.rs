//! Holding queues (CoDel, FQ-CoDel, PIE): unlike the lazy FIFO of
//! `channel.rs`, these keep their packets, and the discipline picks, drops
//! or marks when the transmitter frees (`Channel::dequeue`, at the `wake`
//! times `enqueue` and `dequeue` return). RFC 8289 (CoDel), RFC 8290
//! (FQ-CoDel), RFC 8033 (PIE).

use super::channel::{Channel, Offer};
use super::codel::{CoDelOut, CoDelQueue};
use super::fq_codel::FqCoDel;
use super::packet::Packet;
use super::pie::{PieQueue, PieVerdict};
use crate::time::SimTime;

/// A queue that holds its packets (CoDel, FQ-CoDel, PIE).
#[derive(Debug)]
pub(super) enum Held {
    CoDel(CoDelQueue),
    FqCoDel(FqCoDel),
    Pie(PieQueue),
}

impl Held {
    pub(super) fn len(&self) -> usize {
        match self {
            Held::CoDel(q) => q.fifo.len(),
            Held::FqCoDel(q) => q.len(),
            Held::Pie(q) => q.fifo.len(),
        }
    }

    /// When each packet still held was enqueued.
    pub(super) fn enqueued_at(&self) -> Box<dyn Iterator<Item = SimTime> + '_> {
        match self {
            Held::CoDel(q) => Box::new(q.fifo.q.iter().map(|e| e.1)),
            Held::FqCoDel(q) => Box::new(q.enqueued_at()),
            Held::Pie(q) => Box::new(q.fifo.q.iter().map(|e| e.1)),
        }
    }
}

/// The outcome of `enqueue` on a holding queue.
#[derive(Debug, PartialEq)]
pub struct Enqueued {
    /// The arrival, lost before the queue (`LossAt::Enqueue`).
    pub lost: Option<Packet>,
    /// A packet dropped (the arrival, or another one on FQ-CoDel overflow).
    pub dropped: Option<Packet>,
    /// Schedule a `dequeue` at this time (the transmitter had no pending one).
    pub wake: Option<SimTime>,
}

/// The outcome of `dequeue`.
#[derive(Debug, PartialEq)]
pub struct Dequeued {
    /// The packet put on the wire, when it reaches the far end, and
    /// whether it is lost on the wire.
    pub sent: Option<(Packet, SimTime, bool)>,
    /// Call `dequeue` again at this time.
    pub wake: Option<SimTime>,
}

impl Channel {
    /// Hand a packet to a holding queue (CoDel, FQ-CoDel, PIE).
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Enqueued {
        self.stats.offered += 1;
        if self.lost_on_arrival(now, pkt.size) {
            return Enqueued { lost: Some(pkt), dropped: None, wake: None };
        }
        let limit = self.limit;
        let held = self.held.as_mut().expect("enqueue on a holding queue");
        let before = held.len();
        let dropped = match held.as_mut() {
            Held::CoDel(q) => {
                if limit.full(q.fifo.len(), q.fifo.bytes, pkt.size) {
                    self.stats.queue_drops += 1;
                    Some(pkt)
                } else {
                    q.fifo.push(pkt, now);
                    None
                }
            }
            Held::FqCoDel(q) => q.enqueue(now, pkt).map(|(p, enq)| {
                self.stats.queue_drops += 1;
                self.stats.queue_integral_ns += now.saturating_since(enq).as_nanos() as u128;
                p
            }),
            Held::Pie(q) => match q.enqueue(now, pkt) {
                (PieVerdict::Overflow, p) => {
                    self.stats.queue_drops += 1;
                    p
                }
                (PieVerdict::Drop, p) => {
                    self.stats.aqm_drops += 1;
                    p
                }
                (PieVerdict::Mark, _) => {
                    self.stats.ecn_marks += 1;
                    None
                }
                (PieVerdict::Enqueue, _) => None,
            },
        };
        let len = held.len();
        self.stats.max_queue_len = self.stats.max_queue_len.max(len as u64);
        self.record(now, "queue", before as f64);
        let wake = (len > 0 && !self.wake_pending).then(|| {
            self.wake_pending = true;
            self.busy_until.max(now)
        });
        Enqueued { lost: None, dropped, wake }
    }

    /// The transmitter is free at `now`: the discipline picks the next
    /// packet; packets it drops on the way are appended to `dropped`.
    pub fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Dequeued {
        debug_assert!(now >= self.busy_until);
        let held = self.held.as_mut().expect("dequeue on a holding queue");
        let mut out = CoDelOut::default();
        let got = match held.as_mut() {
            Held::CoDel(q) => q.codel.dequeue(now, &mut q.fifo, &mut out),
            Held::FqCoDel(q) => q.dequeue(now, &mut out),
            Held::Pie(q) => q.dequeue(now),
        };
        let more = held.len() > 0;
        self.stats.ecn_marks += out.marks;
        self.stats.aqm_drops += out.dropped.len() as u64;
        for (p, enq) in out.dropped {
            self.stats.queue_integral_ns += now.saturating_since(enq).as_nanos() as u128;
            dropped.push(p);
        }
        let sent = got.map(|(p, enq)| {
            let wait = now.saturating_since(enq).as_nanos();
            self.stats.queue_integral_ns += wait as u128;
            self.record(now, "sojourn_ms", wait as f64 * 1e-6);
            let Offer::Accepted { arrive, lost } = self.transmit(now, wait, p.size) else { unreachable!() };
            (p, arrive, lost)
        });
        self.wake_pending = more;
        Dequeued { sent, wake: more.then_some(self.busy_until) }
    }
}
