//! Queue disciplines. Drop-tail FIFO: a packet that finds the queue full is
//! dropped on arrival. The limit counts packets (or bytes) waiting, not the
//! one on the wire — the convention of ns-2's DropTail, so the two
//! simulators agree on identical scenarios.

use super::packet::Packet;
use crate::time::SimTime;
use std::collections::VecDeque;

/// A queue's capacity: packets waiting, or bytes waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

#[derive(Debug)]
pub struct DropTail {
    limit: QueueLimit,
    /// Packets waiting with the time each was enqueued (for waiting-time stats).
    q: VecDeque<(SimTime, Packet)>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail { limit, q: VecDeque::new(), bytes: 0 }
    }

    /// Enqueue, or hand the packet back if the queue is full.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet> {
        let full = match self.limit {
            QueueLimit::Packets(n) => self.q.len() >= n as usize,
            QueueLimit::Bytes(b) => self.bytes + pkt.size as u64 > b,
        };
        if full {
            return Err(pkt);
        }
        self.bytes += pkt.size as u64;
        self.q.push_back((now, pkt));
        Ok(())
    }

    pub fn dequeue(&mut self) -> Option<(SimTime, Packet)> {
        let e = self.q.pop_front()?;
        self.bytes -= e.1.size as u64;
        Some(e)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Dir, Header, NO_APP};

    fn pkt(size: u32) -> Packet {
        Packet { flow: 0, dir: Dir::Forward, dst: 0, size, app_seq: NO_APP, hdr: Header::Datagram }
    }

    #[test]
    fn packet_limit() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.enqueue(SimTime(0), pkt(100)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(100)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(100)).is_err());
        q.dequeue();
        assert!(q.enqueue(SimTime(0), pkt(100)).is_ok());
    }

    #[test]
    fn byte_limit() {
        let mut q = DropTail::new(QueueLimit::Bytes(250));
        assert!(q.enqueue(SimTime(0), pkt(200)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(60)).is_err());
        assert!(q.enqueue(SimTime(0), pkt(50)).is_ok());
        assert_eq!(q.bytes(), 250);
    }
}
