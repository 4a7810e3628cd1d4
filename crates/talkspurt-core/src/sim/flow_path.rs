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

impl World {
    /// Plan each flow's paths (at the end of `plan_cut_through`).
    pub(super) fn plan_flow_paths(&mut self) {
        let mut fp = FlowPaths::default();
        for (i, f) in self.flows.iter().enumerate() {
            let mut pair = [Planned::default(); 2];
            for (side, from, to) in [(Side::Sender, f.src, f.dst), (Side::Receiver, f.dst, f.src)] {
                // A passive receiver's packets end in `deliver_passive`,
                // with no event: the general way handles them.
                if side == Side::Sender && self.cut.passive[i] {
                    continue;
                }
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
            let offer = if chan.is_plain() {
                match chan.offer_uncounted(t, pkt.size) {
                    Some(arrive) => {
                        chan.count_through(1, pkt.size as u64);
                        Offer::Accepted { arrive, lost: false }
                    }
                    None => Offer::Dropped,
                }
            } else {
                chan.offer(t, &mut pkt)
            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{build, from_toml_str};

    /// What a run leaves behind: events popped, the clock, every channel's
    /// and TCP sender's counters and the traffic counters.
    type Outcome = (u64, SimTime, SimTime, Vec<crate::net::ChannelStats>, Vec<Option<crate::transport::tcp::TcpStats>>, Vec<super::super::world::TrafficCounters>);

    fn run(text: &str, planned: bool) -> Outcome {
        let mut s = from_toml_str(text).unwrap_or_else(|e| panic!("{e}"));
        s.run.trace = false;
        let mut w = build(&s).unwrap_or_else(|e| panic!("{e}"));
        // Every TCP flow has both paths planned (the first channel of
        // each direction lazy, the later ones closed).
        let tcp = w.flows.iter().zip(&w.cut.paths.paths).filter(|(f, _)| f.sender.tcp().is_some());
        assert!(tcp.clone().count() > 0 && tcp.into_iter().all(|(_, p)| p[0].len == 3 && p[1].len == 3));
        if !planned {
            w.cut.paths = FlowPaths::default();
        }
        assert!(w.run(&mut |_| true));
        let tcp = w.flows.iter().map(|f| f.sender.tcp().map(|t| t.stats.clone())).collect();
        let chans = w.topo.channels.iter().map(|c| c.stats.clone()).collect();
        let traffic = w.traffic.iter().map(|t| t.counters.clone()).collect();
        (w.q.events_processed(), w.q.now(), w.cut.late, chans, tcp, traffic)
    }

    /// Planned paths change nothing a run computes: tests/data/tcp/loss.toml
    /// (random loss on the bottleneck: not a plain channel) and
    /// bench/tcp_mix.toml (UDP calls and NewReno flows, tail drops), cut
    /// short, give the same events, clock and counters as the general way.
    #[test]
    fn planned_paths_change_no_result() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
        let loss = std::fs::read_to_string(format!("{dir}tests/data/tcp/loss.toml")).expect("scenario");
        assert!(loss.contains("duration = \"100s\""));
        let loss = loss.replace("duration = \"100s\"", "duration = \"20s\"").replace("[\"10s\", \"100s\"]", "[\"2s\", \"20s\"]");
        let mix = std::fs::read_to_string(format!("{dir}bench/tcp_mix.toml")).expect("scenario");
        assert!(mix.contains("duration = \"60s\""));
        let mix = mix.replace("duration = \"60s\"", "duration = \"5s\"").replace("[\"10s\", \"60s\"]", "[\"1s\", \"5s\"]");
        for text in [loss, mix] {
            let (a, b) = (run(&text, true), run(&text, false));
            assert!(a.4.iter().flatten().all(|t| t.total.segments_sent > 100), "{:?}", a.4);
            assert!(a.3.iter().any(|c| c.queue_drops + c.link_losses > 0), "{:?}", a.3);
            assert_eq!(a, b);
        }
    }
}
