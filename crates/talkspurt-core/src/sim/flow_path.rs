//! An endpoint's packets onto the network along a planned path.
//!
//! What `forward`, `offer` and `onward` (`path.rs`) decide for a packet an
//! endpoint sends — which channel next, whether the one after is closed,
//! whether the far end is its destination — depends only on the topology
//! and the flow, not on the packet: a TCP segment or ACK on the mixed
//! dumbbell asks the routing table and the cut-through plan the same
//! questions at each of its three hops, every time. So, as for voice
//! (`voice.rs`), each flow's path in each direction is planned once
//! (`World::plan_flow_paths`, from `plan_cut_through` in `World::prime`): its first channel lazy
//! (not a holding queue), every later one closed, ending at an endpoint
//! that answers (not a passive receiver). `send` then offers the packet to
//! those channels in turn, each at its arrival from the one before, and
//! schedules its arrival at the last — or at the first whose arrival falls
//! after the run's end, or records its loss — exactly as the general way
//! does: the same offers at the same times in the same order, the same
//! `late`, the same events in the same order, so the same results
//! (results_hash, and the digests of bench/ and tests/data/tcp/). A capture
//! watches every hop: with one, packets take the general way.

use super::world::{Side, World};
use crate::net::topology::NO_ROUTE;
use crate::net::{Dir, NodeId, Offer, Packet};
use crate::time::SimTime;
use crate::trace::record::NetFate;

/// A flow's planned path in one direction: `hops[start..start + len]` of
/// `FlowPaths::hops`, from `from` to the endpoint at `to`. `len == 0`: the
/// packets take the general way.
#[derive(Clone, Copy, Debug, Default)]
struct Planned {
    start: u32,
    len: u32,
    from: NodeId,
    to: NodeId,
}

/// Every flow's planned paths (module note), set by `World::prime`.
#[derive(Debug, Default)]
pub struct FlowPaths {
    /// Per flow, the sender's path (to the receiver) and the receiver's.
    paths: Vec<[Planned; 2]>,
    hops: Vec<u32>,
}

impl FlowPaths {
    /// How many flow directions have a planned path (tests/flow_paths.rs).
    pub fn planned(&self) -> usize {
        self.paths.iter().flatten().filter(|p| p.len > 0).count()
    }
}

impl World {
    /// Plan each flow's paths (at the end of `plan_cut_through`).
    pub(super) fn plan_flow_paths(&mut self) {
        let mut fp = FlowPaths::default();
        for (i, f) in self.flows.iter().enumerate() {
            let mut pair = [Planned::default(); 2];
            // A passive receiver's packets end in `deliver_passive`, with
            // no event: the general way handles them (and it sends none).
            let sides = if self.cut.passive[i] { &[][..] } else { &[(Side::Sender, f.src, f.dst), (Side::Receiver, f.dst, f.src)][..] };
            for &(side, from, to) in sides {
                let hops = self.topo.path(from, to);
                let ch = &self.topo.channels;
                let ok = !hops.is_empty() && !ch[hops[0] as usize].holds_packets() && hops[1..].iter().all(|&c| self.cut.closed[c as usize]);
                if ok {
                    pair[side as usize] = Planned { start: fp.hops.len() as u32, len: hops.len() as u32, from, to };
                    fp.hops.extend_from_slice(&hops);
                }
            }
            fp.paths.push(pair);
        }
        self.cut.paths = fp;
    }

    /// Put a packet the endpoint on `side` of `flow` sent from `node` on
    /// the network: along its planned path if it has one, else `forward`.
    #[inline]
    pub(super) fn send(&mut self, now: SimTime, flow: u32, side: Side, node: NodeId, pkt: Packet) {
        let p = match self.cut.paths.paths.get(flow as usize) {
            Some(pair) => pair[side as usize],
            None => Planned::default(),
        };
        if p.len == 0 || p.from != node || p.to != pkt.dst || self.capture.is_some() {
            return self.forward(now, node, pkt);
        }
        debug_assert!(p.to != NO_ROUTE && pkt.dir == if side == Side::Sender { Dir::Forward } else { Dir::Reverse });
        self.send_planned(now, p, pkt);
    }

    /// `forward`, then `offer` and `onward` hop by hop, on a planned path.
    fn send_planned(&mut self, now: SimTime, p: Planned, mut pkt: Packet) {
        let mut t = now;
        let last = p.start + p.len - 1;
        for k in p.start..=last {
            let ch = self.cut.paths.hops[k as usize];
            let chan = &mut self.topo.channels[ch as usize];
            // `Channel::offer` on a plain channel, inlined (as a call, its
            // register saves and the branch to the general model cost ~20
            // instructions a hop).
            let offer = if chan.is_plain() { chan.offer_plain(t, pkt.size) } else { chan.offer(t, &mut pkt) };
            let arrive = match offer {
                Offer::Accepted { arrive, lost: false } => arrive,
                // Lost on the wire: it used the link, and its fate is known now.
                Offer::Accepted { lost: true, .. } | Offer::Lost => return self.lost(pkt, NetFate::LinkLoss, ch),
                Offer::Dropped => return self.lost(pkt, NetFate::QueueDrop, ch),
            };
            // The endpoint at the end answers: its arrival is an event, as
            // is one after the run's end (`onward`).
            if k == last || arrive > self.end {
                return self.arrive_later(ch, arrive, pkt);
            }
            self.cut.late = self.cut.late.max(arrive);
            t = arrive;
        }
    }
}

