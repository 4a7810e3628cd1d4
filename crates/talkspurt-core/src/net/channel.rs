//! One direction of a link: a FIFO transmitter with a drop-tail queue, a
//! serialization rate, a propagation delay and an optional random loss.
//!
//! For a FIFO, when each packet starts and finishes serializing is fixed
//! the moment it is accepted: it starts at `max(now, busy_until)`. So the
//! channel needs no "transmission done" event: it keeps the start times of
//! accepted packets, and the number still waiting at any instant is the
//! number whose start lies in the future. This is exact (not an
//! approximation) for drop-tail FIFO and halves the events per hop.
//! Serialization time is exact to the nanosecond, rounded up.

use super::capacity::{Capacity, Propagation};
use super::jitter::Jitter;
use super::loss::{LossAt, LossModel};
use super::packet::{NodeId, Packet};
#[cfg(test)]
use super::packet::Ecn;
use super::queue::QueueLimit;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChannelStats {
    /// Packets offered to the channel.
    pub offered: u64,
    pub queue_drops: u64,
    pub link_losses: u64,
    /// Packets that left the wire intact.
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Packets accepted for transmission, and their total queueing wait.
    pub served: u64,
    pub wait_sum_ns: u128,
    pub wait_max_ns: u64,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
    /// Most packets ever waiting (excluding the one on the wire).
    pub max_queue_len: u64,
}

#[derive(Debug)]
pub struct Channel {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    limit: QueueLimit,
    loss: LossModel,
    loss_at: LossAt,
    /// Serialization and propagation; constant unless the link has a
    /// schedule (`rate_bps` and `delay` are then the nominal values).
    capacity: Capacity,
    propagation: Propagation,
    jitter: Jitter,
    /// Latest arrival so far: a link whose delay changes stays FIFO.
    last_arrive: SimTime,
    /// End of the last accepted packet's serialization.
    busy_until: SimTime,
    /// (start of serialization, bytes) of accepted packets, oldest first;
    /// entries whose start has passed are purged lazily.
    pending: VecDeque<(SimTime, u32)>,
    /// Bytes of packets in `pending` (waiting, after purge).
    pending_bytes: u64,
    pub stats: ChannelStats,
}

/// What happened to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Accepted: it reaches the far end at `arrive` — unless `lost` on the
    /// wire, in which case it used the link but never arrives.
    Accepted { arrive: SimTime, lost: bool },
    /// Tail drop: the queue was full.
    Dropped,
    /// Lost on arrival, before the queue (`LossAt::Enqueue`).
    Lost,
}

impl Channel {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimDuration,
        limit: QueueLimit,
        loss: LossModel,
    ) -> Self {
        Channel {
            name,
            from,
            to,
            rate_bps,
            delay,
            limit,
            loss,
            loss_at: LossAt::Wire,
            capacity: Capacity::Constant(rate_bps),
            propagation: Propagation::Constant(delay),
            jitter: Jitter::None,
            last_arrive: SimTime::ZERO,
            busy_until: SimTime::ZERO,
            pending: VecDeque::new(),
            pending_bytes: 0,
            stats: ChannelStats::default(),
        }
    }

    /// Apply the loss model before the queue instead of on the wire.
    pub fn with_loss_at(mut self, at: LossAt) -> Self {
        self.loss_at = at;
        self
    }

    /// A time-varying rate and delay (net::capacity).
    pub fn with_timing(mut self, capacity: Capacity, propagation: Propagation) -> Self {
        self.capacity = capacity;
        self.propagation = propagation;
        self
    }

    /// Extra per-packet delay after propagation (net::jitter).
    pub fn with_jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self
    }

    /// Forget packets that have started serializing by `now`: they are on
    /// the wire or gone, no longer waiting.
    fn purge(&mut self, now: SimTime) {
        while let Some(&(start, bytes)) = self.pending.front() {
            if start > now {
                break;
            }
            self.pending.pop_front();
            self.pending_bytes -= bytes as u64;
        }
    }

    /// Packets waiting at `now`, excluding the one on the wire.
    pub fn queue_len(&mut self, now: SimTime) -> usize {
        self.purge(now);
        self.pending.len()
    }

    pub fn offer(&mut self, now: SimTime, pkt: &Packet) -> Offer {
        self.stats.offered += 1;
        if self.loss_at == LossAt::Enqueue && self.loss.lose(now, pkt.size) {
            self.stats.link_losses += 1;
            return Offer::Lost;
        }
        self.purge(now);
        let start = self.busy_until.max(now);
        if start > now {
            // It would wait: the drop-tail limit applies (ns-2 DropTail
            // semantics: the limit counts waiting packets).
            let full = match self.limit {
                QueueLimit::Packets(n) => self.pending.len() >= n as usize,
                QueueLimit::Bytes(b) => self.pending_bytes + pkt.size as u64 > b,
            };
            if full {
                self.stats.queue_drops += 1;
                return Offer::Dropped;
            }
            self.pending.push_back((start, pkt.size));
            self.pending_bytes += pkt.size as u64;
            self.stats.max_queue_len = self.stats.max_queue_len.max(self.pending.len() as u64);
        }
        let done = self.capacity.finish(start, pkt.size);
        let tx = done - start;
        self.busy_until = done;
        let wait = (start - now).as_nanos();
        self.stats.served += 1;
        self.stats.wait_sum_ns += wait as u128;
        self.stats.wait_max_ns = self.stats.wait_max_ns.max(wait);
        self.stats.busy_ns += tx.as_nanos();
        let lost = self.loss_at == LossAt::Wire && self.loss.lose(done, pkt.size);
        if lost {
            self.stats.link_losses += 1;
            return Offer::Accepted { arrive: done + self.propagation.at(done), lost };
        }
        self.stats.delivered += 1;
        self.stats.bytes_delivered += pkt.size as u64;
        let mut arrive = done + self.propagation.at(done);
        if let Propagation::Steps(_) = self.propagation {
            // A delay that drops must not let a packet overtake the one before.
            arrive = arrive.max(self.last_arrive);
            self.last_arrive = arrive;
        }
        Offer::Accepted { arrive: self.jitter.apply(arrive), lost }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Dir, Header, NO_APP};

    fn pkt(size: u32) -> Packet {
        Packet { flow: 0, dir: Dir::Forward, ecn: Ecn::NotEct, dst: 1, size, app_seq: NO_APP, hdr: Header::Datagram }
    }

    fn ch(limit: QueueLimit) -> Channel {
        // 1 Mb/s: 125 B take 1 ms; 10 ms propagation.
        Channel::new("a->b".into(), 0, 1, 1_000_000, SimDuration::from_millis(10), limit, LossModel::None)
    }

    #[test]
    fn back_to_back_packets_serialize_in_order() {
        let mut c = ch(QueueLimit::Packets(10));
        let t0 = SimTime::ZERO;
        let ms = |x: u64| SimTime(x * 1_000_000);
        assert_eq!(c.offer(t0, &pkt(125)), Offer::Accepted { arrive: ms(11), lost: false });
        assert_eq!(c.offer(t0, &pkt(125)), Offer::Accepted { arrive: ms(12), lost: false });
        assert_eq!(c.offer(t0, &pkt(250)), Offer::Accepted { arrive: ms(14), lost: false });
        assert_eq!(c.queue_len(t0), 2);
        // At 1 ms the second packet starts: one left waiting.
        assert_eq!(c.queue_len(ms(1)), 1);
        // Idle again after 4 ms: a new packet goes straight on the wire.
        assert_eq!(c.offer(ms(5), &pkt(125)), Offer::Accepted { arrive: ms(16), lost: false });
        assert_eq!(c.stats.wait_sum_ns, 3_000_000);
    }

    #[test]
    fn drop_tail_limit_counts_waiting_packets_only() {
        // Limit 2: one on the wire plus two waiting are accepted; the 4th drops.
        let mut c = ch(QueueLimit::Packets(2));
        let r: Vec<_> = (0..4).map(|_| c.offer(SimTime::ZERO, &pkt(125))).collect();
        assert!(matches!(r[2], Offer::Accepted { .. }));
        assert_eq!(r[3], Offer::Dropped);
        // Byte limit 300: waiting bytes 250 + 125 > 300 drops.
        let mut c = ch(QueueLimit::Bytes(300));
        c.offer(SimTime::ZERO, &pkt(125));
        assert!(matches!(c.offer(SimTime::ZERO, &pkt(250)), Offer::Accepted { .. }));
        assert_eq!(c.offer(SimTime::ZERO, &pkt(125)), Offer::Dropped);
    }

    #[test]
    fn enqueue_loss_skips_the_queue_wire_loss_uses_the_link() {
        use crate::net::loss::{LossTrace, TraceLoss};
        use std::sync::Arc;
        // Every other packet lost; three offered back to back at t = 0.
        let trace = || LossModel::Trace(TraceLoss::new(Arc::new(LossTrace::Packets(vec![false, true]))));
        let ms = |x: u64| SimTime(x * 1_000_000);
        let mut c = Channel::new("a->b".into(), 0, 1, 1_000_000, SimDuration::from_millis(10), QueueLimit::Packets(10), trace())
            .with_loss_at(LossAt::Enqueue);
        let r: Vec<_> = (0..3).map(|_| c.offer(SimTime::ZERO, &pkt(125))).collect();
        // The lost one takes no link time: the third finishes at 2 ms.
        assert_eq!(r, [Offer::Accepted { arrive: ms(11), lost: false }, Offer::Lost, Offer::Accepted { arrive: ms(12), lost: false }]);
        assert_eq!((c.stats.served, c.stats.link_losses), (2, 1));
        let mut c = Channel::new("a->b".into(), 0, 1, 1_000_000, SimDuration::from_millis(10), QueueLimit::Packets(10), trace());
        let r: Vec<_> = (0..3).map(|_| c.offer(SimTime::ZERO, &pkt(125))).collect();
        assert_eq!(r[1], Offer::Accepted { arrive: ms(12), lost: true });
        assert_eq!(r[2], Offer::Accepted { arrive: ms(13), lost: false });
    }
}
