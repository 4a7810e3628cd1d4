//! Packets along their path: onto a channel, and, where no event is
//! needed, across the remaining hops and into the receiver at once.
//!
//! Cut-through. A lazy FIFO channel (drop-tail, RED) changes state only
//! when a packet is offered to it, and its decision depends only on the
//! offer's time and the packets offered before. If every packet a channel
//! `c` is ever offered comes out of one upstream channel `u` (its *sole
//! feeder*: no endpoint at `c`'s head sends on it, no other channel leads
//! into it), `u` delivers in the order it transmits, and every one of those
//! packets is offered to `c` the moment `u` accepts it (at its arrival
//! time), then `c` sees the same offers at the same times in the same order
//! as when each offer waits for its arrival event. A *passive* receiver
//! (UDP with no RTCP and no framing) only records what arrives: it sends
//! nothing and arms no timer, so it too can take a packet at its arrival
//! time straight away.
//!
//! Such a channel is *closed*: arrivals into it are never events, so all
//! its offers are made early, each when its feeder accepts the packet
//! (none waits for an event while a later packet overtakes it), and a
//! packet is carried across every closed channel on its way with no event.
//! Where its next step needs one — an endpoint that answers (TCP, DCCP,
//! RTCP), a channel that is not closed, an arrival after the run's end —
//! its arrival at the end of the last channel crossed is scheduled then.
//! A packet to a passive receiver is recorded there with no event at all.
//!
//! Until 2026-11-28 a channel was closed only if, besides, every flow
//! crossing it ended at a passive receiver and every later channel was
//! closed too: results were then bit-identical to an event per hop. With
//! TCP or DCCP on the way, the arrival scheduled from the first hop takes
//! an earlier insertion sequence than the one an event per hop scheduled,
//! so it may fall before or after other events of the same nanosecond (a
//! DCCP feedback timer, another flow's arrival) in a different order: the
//! offers every channel sees, their times and order are the same, only
//! ties between endpoints' events fall otherwise. Aggregates agree within
//! the noise of such ties (bench/README.md "Mixed", tests/cut_through.rs);
//! the results hash was re-blessed once for it. A packet capture watches
//! every hop and turns the cut-through off, so with TCP or DCCP a run with
//! a capture breaks ties as before, not as without it.
//!
//! Only arrivals at or before the run's end are taken this way (a later
//! one is scheduled and never popped). On the headline dumbbell a voice
//! packet costs one event instead of four, on the mixed one a TCP segment
//! or ACK one instead of three (bench/README.md). `late` keeps the latest
//! arrival handled this way, so that the clock ends where the popped
//! events would have left it.

use super::flow_path::FlowPaths;
use super::voice::VoiceRoute;
use super::world::{Event, Owner, World};
use crate::net::topology::NO_ROUTE;
use crate::net::{Dir, NodeId, Offer, Packet, NO_APP};
use crate::transport::Receiver;
use crate::time::SimTime;
use crate::trace::record::NetFate;

/// Which hops and deliveries need no event (see the module comment).
#[derive(Debug, Default)]
pub struct CutThrough {
    /// Per channel: closed (arrivals into it are handled at once: a
    /// lazy FIFO channel fed only by one order-keeping channel).
    pub closed: Vec<bool>,
    /// Per flow: its forward packets reach a passive receiver.
    pub passive: Vec<bool>,
    /// Latest time of an arrival handled without an event.
    pub late: SimTime,
    /// Voice routes planned for the direct way (`voice.rs`).
    pub routes: Vec<VoiceRoute>,
    /// Endpoints' planned paths (`flow_path.rs`).
    pub paths: FlowPaths,
}

/// Where a packet goes from the far end of a channel.
enum Next {
    /// Offered to this (closed) channel at its arrival time, now.
    Hop(u32),
    /// Recorded at a passive receiver.
    Delivered,
    /// Its arrival needs an event.
    Event,
}

impl World {
    /// Find the passive receivers and the closed channels, then plan the
    /// endpoints' paths (`flow_path.rs`).
    pub(super) fn plan_cut_through(&mut self) {
        const MANY: u32 = u32::MAX - 1;
        let passive: Vec<bool> = self
            .flows
            .iter()
            .map(|f| {
                matches!(f.receiver, Receiver::Udp(_))
                    && match f.owner {
                        // No RTCP: the RTP receiver's statistics feed only
                        // reports, so `on_rtp` has nothing to do.
                        Owner::Call(c) => {
                            let call = &self.calls[c as usize];
                            call.rtp.rtcp_flow.is_none() && call.framer.is_none()
                        }
                        Owner::Traffic(_) => true,
                        Owner::Rtcp(_) => false,
                        Owner::Trunk(t) => self.trunks[t as usize].framer.is_none(),
                    }
            })
            .collect();
        let ch = &self.topo.channels;
        let n = ch.len();
        // Who feeds each channel (NO_ROUTE: nobody yet, MANY: an endpoint
        // or several channels), and whether only passive flows cross it.
        let mut feeder = vec![NO_ROUTE; n];
        let ok: Vec<bool> = ch.iter().map(|c| !c.holds_packets()).collect();
        for (i, f) in self.flows.iter().enumerate() {
            // A passive receiver sends nothing back; any other may.
            let back = !passive[i];
            for (a, b, fwd) in [(f.src, f.dst, true), (f.dst, f.src, false)] {
                if !fwd && !back {
                    continue;
                }
                let p = self.topo.path(a, b);
                for (k, &c) in p.iter().enumerate() {
                    let from = if k == 0 { MANY } else { p[k - 1] };
                    let e = &mut feeder[c as usize];
                    *e = if *e == NO_ROUTE || *e == from { from } else { MANY };
                }
            }
        }
        let closed: Vec<bool> = (0..n).map(|c| ok[c] && feeder[c] < MANY && ch[feeder[c] as usize].keeps_order()).collect();
        self.cut = CutThrough { closed, passive, late: SimTime::ZERO, routes: Vec::new(), paths: FlowPaths::default() };
        self.plan_flow_paths();
    }

    /// Put a packet on the next channel from `node` towards its destination.
    pub(super) fn forward(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        if let Some(cap) = &mut self.capture {
            cap.on_forward(now, node, &pkt, &self.flows);
        }
        if node == pkt.dst {
            // Same-node endpoints: deliver without crossing a link.
            self.deliver(now, pkt);
            return;
        }
        let ch = self.topo.next_channel(node, pkt.dst);
        debug_assert!(ch != NO_ROUTE, "builder checks reachability");
        let chan = &mut self.topo.channels[ch as usize];
        if chan.holds_packets() {
            let e = chan.enqueue(now, pkt);
            if let Some(p) = e.lost {
                self.lost(p, NetFate::LinkLoss, ch);
                return;
            }
            if let Some(t) = e.wake {
                self.q.schedule(t, Event::Dequeue { ch });
            }
            if let Some(p) = e.dropped {
                self.lost(p, NetFate::QueueDrop, ch);
            }
            return;
        }
        self.offer(now, ch, pkt);
    }

    /// Offer a packet to lazy FIFO channel `ch` at `now`, then follow it
    /// through every hop and delivery that needs no event.
    fn offer(&mut self, mut now: SimTime, mut ch: u32, mut pkt: Packet) {
        loop {
            let arrive = match self.topo.channels[ch as usize].offer(now, &mut pkt) {
                Offer::Accepted { arrive, lost: false } => arrive,
                // Lost on the wire: it used the link, and its fate is known now.
                Offer::Accepted { lost: true, .. } | Offer::Lost => return self.lost(pkt, NetFate::LinkLoss, ch),
                Offer::Dropped => return self.lost(pkt, NetFate::QueueDrop, ch),
            };
            match self.onward(ch, arrive, &pkt) {
                Next::Hop(c) => (ch, now) = (c, arrive),
                Next::Delivered => return,
                Next::Event => return self.arrive_later(ch, arrive, pkt),
            }
        }
    }

    /// A packet reaches the far end of channel `ch` at `t`: offer it to
    /// the next channel or record its delivery now if no event is needed.
    #[inline]
    fn onward(&mut self, ch: u32, t: SimTime, pkt: &Packet) -> Next {
        if t > self.end || self.capture.is_some() {
            return Next::Event;
        }
        let node = self.topo.channels[ch as usize].to;
        if node == pkt.dst {
            if pkt.dir == Dir::Forward && self.cut.passive[pkt.flow as usize] {
                self.cut.late = self.cut.late.max(t);
                self.deliver_passive(t, pkt);
                return Next::Delivered;
            }
            return Next::Event;
        }
        let next = self.topo.next_channel(node, pkt.dst);
        if !self.cut.closed[next as usize] {
            return Next::Event;
        }
        self.cut.late = self.cut.late.max(t);
        Next::Hop(next)
    }

    /// The packet's arrival at the far end of `ch` at `t` is an event.
    pub(super) fn arrive_later(&mut self, ch: u32, t: SimTime, pkt: Packet) {
        let pkt = self.in_flight.put(pkt);
        self.q.schedule_in(ch, t, Event::Arrive { ch, pkt });
    }

    /// A holding queue's transmitter is free: send its next packet.
    pub(super) fn dequeue(&mut self, now: SimTime, ch: u32) {
        let mut dropped = std::mem::take(&mut self.dropped);
        let d = self.topo.channels[ch as usize].dequeue(now, &mut dropped);
        for p in dropped.drain(..) {
            self.lost(p, NetFate::QueueDrop, ch);
        }
        self.dropped = dropped;
        match d.sent {
            Some((pkt, arrive, false)) => match self.onward(ch, arrive, &pkt) {
                Next::Hop(c) => self.offer(arrive, c, pkt),
                Next::Delivered => {}
                Next::Event => self.arrive_later(ch, arrive, pkt),
            },
            Some((pkt, _, true)) => self.lost(pkt, NetFate::LinkLoss, ch),
            None => {}
        }
        if let Some(t) = d.wake {
            self.q.schedule(t, Event::Dequeue { ch });
        }
    }

    pub(super) fn lost(&mut self, pkt: Packet, fate: NetFate, ch: u32) {
        if pkt.app_seq == NO_APP || pkt.dir != Dir::Forward {
            return;
        }
        match self.flows[pkt.flow as usize].owner {
            Owner::Call(c) => self.calls[c as usize].rec.set_fate(pkt.app_seq, fate, ch),
            Owner::Trunk(t) => self.trunk_lost(t, pkt.app_seq, fate, ch),
            _ => {}
        }
    }

    /// A forward packet reached a passive receiver at `now`: what the UDP
    /// receiver would hand up, applied directly (the same records and
    /// counters as `deliver`; the endpoint itself keeps no state).
    pub(super) fn deliver_passive(&mut self, now: SimTime, pkt: &Packet) {
        match self.flows[pkt.flow as usize].owner {
            Owner::Call(c) => {
                if pkt.app_seq != NO_APP {
                    self.calls[c as usize].rec.arrived(pkt.app_seq, now);
                }
            }
            Owner::Traffic(t) => {
                let k = &mut self.traffic[t as usize].counters;
                k.recv_pkts += 1;
                k.recv_bytes += pkt.size as u64;
                if now >= self.interval.0 && now < self.interval.1 {
                    k.recv_bytes_interval += pkt.size as u64;
                }
            }
            Owner::Trunk(t) => {
                if pkt.app_seq != NO_APP {
                    self.trunk_arrived(t, pkt.app_seq, now);
                }
            }
            Owner::Rtcp(_) => unreachable!("RTCP receivers are not passive"),
        }
    }
}
