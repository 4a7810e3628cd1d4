//! One direction of a link: a transmitter with a queue, a serialization rate,
//! a propagation delay and an optional random loss. Serialization time is
//! exact to the nanosecond (rounded up, `SimDuration::transmission`).

use super::loss::LossModel;
use super::packet::{NodeId, Packet};
use super::queue::DropTail;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChannelStats {
    /// Packets offered to the channel.
    pub offered: u64,
    pub queue_drops: u64,
    pub link_losses: u64,
    /// Packets that left the wire intact.
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Packets that started serialization, and their total queueing wait.
    pub served: u64,
    pub wait_sum_ns: u128,
    pub wait_max_ns: u64,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
    pub max_queue_len: u64,
}

#[derive(Debug)]
pub struct Channel {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    queue: DropTail,
    loss: LossModel,
    /// The packet being serialized, if any.
    on_wire: Option<Packet>,
    pub stats: ChannelStats,
}

/// What happened to an offered packet.
pub enum Offer {
    /// The transmitter was idle: serialization ends at this time.
    Transmitting(SimTime),
    Queued,
    /// Tail drop: the queue was full.
    Dropped(Packet),
}

/// Outcome of a finished serialization.
pub struct TxDone {
    /// The packet and whether the link lost it.
    pub pkt: Packet,
    pub lost: bool,
    /// When the next queued packet finishes serializing, if one started.
    pub next_done: Option<SimTime>,
}

impl Channel {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimDuration,
        queue: DropTail,
        loss: LossModel,
    ) -> Self {
        Channel { name, from, to, rate_bps, delay, queue, loss, on_wire: None, stats: ChannelStats::default() }
    }

    fn start(&mut self, now: SimTime, enqueued: SimTime, pkt: Packet) -> SimTime {
        let tx = SimDuration::transmission(pkt.size, self.rate_bps);
        let wait = (now - enqueued).as_nanos();
        self.stats.served += 1;
        self.stats.wait_sum_ns += wait as u128;
        self.stats.wait_max_ns = self.stats.wait_max_ns.max(wait);
        self.stats.busy_ns += tx.as_nanos();
        self.on_wire = Some(pkt);
        now + tx
    }

    pub fn offer(&mut self, now: SimTime, pkt: Packet) -> Offer {
        self.stats.offered += 1;
        if self.on_wire.is_none() {
            return Offer::Transmitting(self.start(now, now, pkt));
        }
        match self.queue.enqueue(now, pkt) {
            Ok(()) => {
                self.stats.max_queue_len = self.stats.max_queue_len.max(self.queue.len() as u64);
                Offer::Queued
            }
            Err(pkt) => {
                self.stats.queue_drops += 1;
                Offer::Dropped(pkt)
            }
        }
    }

    /// Serialization of the packet on the wire finished at `now`.
    pub fn finish(&mut self, now: SimTime) -> TxDone {
        let pkt = self.on_wire.take().expect("finish without a packet on the wire");
        let lost = self.loss.lose();
        if lost {
            self.stats.link_losses += 1;
        } else {
            self.stats.delivered += 1;
            self.stats.bytes_delivered += pkt.size as u64;
        }
        let next_done = self.queue.dequeue().map(|(enq, next)| self.start(now, enq, next));
        TxDone { pkt, lost, next_done }
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }
}
