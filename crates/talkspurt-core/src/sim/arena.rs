//! Packets in flight between a channel and its far end. An arrival event
//! names its packet by a slot here instead of carrying it: events are then
//! 12 bytes, not 72, and the queue's lanes move 32-byte entries (the event
//! queue copied each event in and out of its lane; bench/README.md). Slots
//! are reused last-freed first, so the few in use stay in cache.

use crate::net::Packet;

#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
}

impl PacketArena {
    /// Keep `p` until `take`; returns its slot.
    #[inline]
    pub fn put(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(p);
                i
            }
            None => {
                self.slots.push(Some(p));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The packet in slot `i`, which becomes free.
    #[inline]
    pub fn take(&mut self, i: u32) -> Packet {
        self.free.push(i);
        self.slots[i as usize].take().expect("a packet in flight")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Dir, Ecn, Header, NO_APP};

    #[test]
    fn slots_are_reused_last_freed_first() {
        let p = |size| Packet { flow: 0, dir: Dir::Forward, ecn: Ecn::NotEct, dst: 1, size, app_seq: NO_APP, hdr: Header::Datagram, app: Default::default() };
        let mut a = PacketArena::default();
        let (i, j) = (a.put(p(1)), a.put(p(2)));
        assert_eq!((i, j), (0, 1));
        assert_eq!(a.take(i).size, 1);
        assert_eq!(a.put(p(3)), 0);
        assert_eq!((a.take(j).size, a.take(0).size), (2, 3));
        assert_eq!(std::mem::size_of::<crate::sim::world::Event>(), 12);
    }
}
