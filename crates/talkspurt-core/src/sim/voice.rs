//! A voice packet from its source onto the network (`World::on_voice`),
//! and the direct way most of them take from there.
//!
//! A call whose packets go over UDP to a passive receiver (`path.rs`),
//! through lazy FIFO channels of which every one after the first is
//! closed, sends each packet the same way: the UDP sender hands it to the
//! first channel at once (`UdpSender::send_now`), `forward` finds that
//! channel, and `offer`/`onward` carry it hop by hop into the receiver's
//! record with no event. Which channels, and that nothing on the way needs
//! an event, depends only on the topology and the flow, so it is planned
//! once (`VoiceRoute`, in `World::prime`) and each packet then crosses its
//! route in a loop over the channels: the same offers at the same times in
//! the same order, the same records, the same end-of-run clock (`late`),
//! the same packet scheduled if an arrival falls after the run's end. What
//! it skips is, per packet, the flow (its sender, nodes and owner: two or
//! three cache lines per packet at 10 000 calls) and, per hop, the routing
//! table and the closed/passive look-ups (issue 14, bench/README.md).

use super::path::CutThrough;
use super::world::{Owner, Side, World};
use crate::net::{AppHeader, Dir, Ecn, Header, NodeId, Offer, Packet, NO_APP};
use crate::time::SimTime;
use crate::trace::record::{NetFate, NO_WHERE};
use crate::transport::{AppUnit, FlowAddr, Receiver, Sender, SenderEndpoint};
use crate::voice::adapt::{Adapter, Gate};
use std::collections::HashMap;

/// `Call::route` of a call whose packets take the general way.
pub const NO_VOICE_ROUTE: u32 = u32::MAX;

/// The channels a call's packets cross to its passive receiver at `dst`:
/// `hops[0]` lazy (not a holding queue), every later one closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceRoute {
    pub hops: Vec<u32>,
    pub dst: NodeId,
    /// Every hop is a plain channel (`Channel::is_plain`): the crossing
    /// counts the packets that reached `dst` here, `through` of them with
    /// `bytes` in all, and each hop's counters take them at the run's end
    /// (`World::settle_routes`) instead of four additions a hop a packet.
    pub plain: bool,
    pub through: u64,
    pub bytes: u64,
}

impl World {
    /// Give every call that can take the direct way its route (after
    /// `plan_cut_through`; calls sharing a route share its entry).
    pub(super) fn plan_voice_routes(&mut self) {
        let mut index: HashMap<(NodeId, NodeId), u32> = HashMap::new();
        let mut routes = Vec::new();
        for ci in 0..self.calls.len() {
            let flow = self.calls[ci].flow;
            let f = &self.flows[flow as usize];
            let direct = f.owner == Owner::Call(ci as u32)
                && self.cut.passive[flow as usize]
                && matches!(f.receiver, Receiver::Udp(_))
                && matches!(&f.sender, Sender::Udp(u) if u.addr() == FlowAddr { flow, peer: f.dst, dir: Dir::Forward });
            let hops = if direct { self.topo.path(f.src, f.dst) } else { Vec::new() };
            let ch = &self.topo.channels;
            let ok = !hops.is_empty() && !ch[hops[0] as usize].holds_packets() && hops[1..].iter().all(|&c| self.cut.closed[c as usize]);
            self.calls[ci].route = if ok {
                *index.entry((f.src, f.dst)).or_insert_with(|| {
                    let plain = hops.iter().all(|&c| ch[c as usize].is_plain());
                    routes.push(VoiceRoute { hops, dst: f.dst, plain, through: 0, bytes: 0 });
                    routes.len() as u32 - 1
                })
            } else {
                NO_VOICE_ROUTE
            };
        }
        self.cut.routes = routes;
        for c in &mut self.calls {
            c.direct = c.route != NO_VOICE_ROUTE && c.trunk == super::NO_TRUNK && matches!(*c.adapt, Adapter::None);
        }
    }

    /// Call `ci`'s voice packet is complete at `now`: record it, write its
    /// RTP header, schedule the next one and send it.
    pub(super) fn on_voice(&mut self, now: SimTime, ci: u32) {
        let lane = self.voice_lane(ci);
        if self.prefetch {
            self.prefetch_voice(lane);
        }
        let call = &mut self.calls[ci as usize];
        if call.direct {
            return self.voice_routed(now, ci, lane);
        }
        let vp = call.source.emit();
        debug_assert_eq!(vp.t_gen, now);
        if let Some(k) = call.pending_fpp.take() {
            call.source.set_frames_per_packet(k);
        }
        if let Some(b) = call.pending_bytes.take() {
            call.source.set_frame_bytes(b);
        }
        let span = call.source.frame().mul(vp.frames as u64);
        let gate = if call.gated { call.adapt.gate(now, vp.payload, span) } else { Gate::Speech { pad: 0 } };
        let pad = match gate {
            Gate::Speech { pad } => pad,
            // Cleared (tfrc-codec's probe failed): the call sends nothing
            // more, and its connection closes.
            Gate::Cleared => {
                let flow = call.flow;
                self.end_flow(now, flow);
                return self.service(now, flow, Side::Sender);
            }
            // Probing: idle data on the voice clock, not speech, not RTP.
            Gate::Idle(bytes) => {
                let unit = AppUnit { app_seq: NO_APP, payload: bytes, overhead: call.overhead, rtp: None };
                let flow = call.flow;
                let last = call.source.next_ready().inspect(|&t| self.q.schedule(t, super::world::Event::Voice { call: ci })).is_none();
                let _ = self.flows[flow as usize].sender.send(now, unit);
                if last {
                    self.end_flow(now, flow);
                }
                self.service(now, flow, Side::Sender);
                return;
            }
        };
        if call.trunk != super::NO_TRUNK {
            // IAX2 trunk (`trunk.rs`): the frame waits for the trunk's
            // tick; the call's own bytes are its entry (no RTP, no adaptation).
            let entry = self.trunks[call.trunk as usize].trunk.cfg.entry;
            let seq = call.rec.push(now, vp.talkspurt, vp.frames, vp.payload, vp.payload + entry);
            let last = call.source.next_ready().inspect(|&t| self.q.schedule_in(lane, t, super::world::Event::Voice { call: ci })).is_none();
            return self.trunk_push(now, ci, seq, vp.payload, last);
        }
        // `wire_bytes` is set when the packet leaves the sender, to the
        // size its transport gives it (`CallRecord::set_wire`); 0 if it
        // never does.
        let seq = call.rec.push(now, vp.talkspurt, vp.frames, vp.payload, 0);
        let samples = crate::rtp::clock_units(SimTime(span.as_nanos()), call.rtp.tx.clock_rate()) as u32;
        let mut hdr = call.rtp.tx.packetize(SimTime(now.0 - span.as_nanos()), samples);
        hdr.pad = pad as u8; // `gate` keeps it within RTP's 255 octets
        // Padding (RFC 3550 §5.1's P bit) rides in the payload on the wire.
        let unit = AppUnit { app_seq: seq, payload: vp.payload + pad, overhead: call.overhead, rtp: Some(hdr) };
        let flow = call.flow;
        let last = call.source.next_ready().inspect(|&t| self.q.schedule_in(lane, t, super::world::Event::Voice { call: ci })).is_none();
        let f = &mut self.flows[flow as usize];
        f.largest.message = f.largest.message.max(unit.segment_bytes());
        // UDP: the datagram leaves at once; nothing else to poll (no
        // timers, no events), so `service` would only forward it.
        if let Sender::Udp(u) = &mut f.sender {
            if let Some(pkt) = u.send_now(unit) {
                f.largest.packet = f.largest.packet.max(pkt.size);
                let call = &mut self.calls[ci as usize];
                call.rtp.tx.sent(vp.payload);
                call.rec.sent(seq, now);
                call.rec.set_wire(seq, pkt.size);
                let src = self.flows[flow as usize].src;
                return self.forward(now, src, pkt);
            }
        }
        let before = self.flows[flow as usize].sender.queued_bytes();
        let call = &mut self.calls[ci as usize];
        if self.flows[flow as usize].sender.send(now, unit).is_err() {
            call.rec.set_fate(seq, NetFate::SenderDrop, NO_WHERE);
        } else {
            call.rtp.tx.sent(vp.payload);
            if let Some(fr) = &mut call.framer {
                let after = self.flows[flow as usize].sender.queued_bytes();
                fr.wrote(after - before, seq, Some(hdr));
            }
        }
        if last {
            // The call's last packet: the connection tears down once it
            // has left (DCCP Close, RFC 4340 §8.3).
            self.end_flow(now, flow);
        }
        self.service(now, flow, Side::Sender);
    }

    /// `on_voice` for a call on its planned route (`Call::direct`) with no
    /// capture watching: what the general way does for the packet
    /// (`send_now`, `forward`, `offer` and `onward` hop by hop,
    /// `deliver_passive`), in the same order for the channels and the
    /// event queue. The record is written after the crossing instead of
    /// before and between: nothing on the way reads it, and a packet that
    /// arrived (the usual case) is recorded in one write, sent at
    /// generation and arrived, instead of three (`CallRecord::push_arrived`);
    /// its RTP header is written only if it is still on the way at the
    /// run's end, the one case that reads it (`RtpSender::skip`; issue 26
    /// target 3).
    #[inline(always)]
    fn voice_routed(&mut self, now: SimTime, ci: u32, lane: u32) {
        let call = &mut self.calls[ci as usize];
        let (vp, next) = call.source.emit_next();
        debug_assert_eq!(vp.t_gen, now);
        let span = call.source.frame().mul(vp.frames as u64).as_nanos();
        call.rtp.tx.sent(vp.payload);
        let (size, route, flow) = (crate::transport::udp::datagram_size(vp.payload, call.overhead), call.route, call.flow);
        // The last packet does not end the flow here, as on this way
        // before: closing a UDP sender or receiver does nothing (the
        // `Endpoint::close` default).
        if let Some(t) = next {
            self.q.schedule_in(lane, t, super::world::Event::Voice { call: ci });
        }
        let crossed = self.cross(now, route, size);
        let call = &mut self.calls[ci as usize];
        let first = SimTime(now.0 - span);
        let (ch, fate) = match crossed {
            Crossed::Arrived(at) => {
                call.rtp.tx.skip(first, span);
                return call.rec.push_arrived(now, vp.talkspurt, vp.frames, vp.payload, size, at);
            }
            Crossed::Lost(ch, fate) => {
                call.rtp.tx.skip(first, span);
                (ch, fate)
            }
            Crossed::Later(ch, ..) => (ch, NetFate::InFlight),
        };
        let rec = &mut call.rec;
        let seq = rec.push(now, vp.talkspurt, vp.frames, vp.payload, size);
        rec.sent(seq, now);
        match crossed {
            Crossed::Later(_, at, ecn) => {
                // The `Packet` `UdpSender::send_now` would have built: forward
                // on the call's flow to the route's end.
                let samples = crate::rtp::clock_units(SimTime(span), call.rtp.tx.clock_rate()) as u32;
                let hdr = call.rtp.tx.packetize(first, samples);
                let dst = self.cut.routes[route as usize].dst;
                let app = AppHeader::Rtp(hdr);
                let pkt = Packet { flow, dir: Dir::Forward, ecn, dst, size, app_seq: seq, hdr: Header::Datagram, app };
                self.arrive_later(ch, at, pkt)
            }
            _ if seq != NO_APP => rec.set_fate(seq, fate, ch),
            _ => {}
        }
    }

    /// Offer a datagram of `size` bytes sent at `now` to the channels of
    /// route `r` in turn, each at the packet's arrival from the one before.
    #[inline(always)]
    fn cross(&mut self, now: SimTime, r: u32, size: u32) -> Crossed {
        let (mut t, mut ecn) = (now, Ecn::NotEct);
        let (CutThrough { routes, late, .. }, channels) = (&mut self.cut, &mut self.topo.channels[..]);
        let route = &mut routes[r as usize];
        if route.plain {
            // A hop's arrival is at least the one before (it is offered
            // then, and adds its service and delay): the latest arrival
            // handled is the last, noted once on the way out.
            let (hops, end) = (&route.hops[..], self.end);
            for i in 0..hops.len() {
                let ch = hops[i];
                let Some(arrive) = channels[ch as usize].offer_uncounted(t, size) else {
                    count_through(channels, &hops[..i], size);
                    if i > 0 {
                        *late = (*late).max(t);
                    }
                    return Crossed::Lost(ch, NetFate::QueueDrop);
                };
                if arrive > end {
                    count_through(channels, &hops[..=i], size);
                    if i > 0 {
                        *late = (*late).max(t);
                    }
                    return Crossed::Later(ch, arrive, ecn);
                }
                t = arrive;
            }
            if !hops.is_empty() {
                *late = (*late).max(t);
            }
            route.through += 1;
            route.bytes += size as u64;
            return Crossed::Arrived(t);
        }
        for &ch in &route.hops {
            let arrive = match channels[ch as usize].offer_parts(t, size, &mut ecn) {
                Offer::Accepted { arrive, lost: false } => arrive,
                // Lost on the wire: it used the link, and its fate is known now.
                Offer::Accepted { lost: true, .. } | Offer::Lost => return Crossed::Lost(ch, NetFate::LinkLoss),
                Offer::Dropped => return Crossed::Lost(ch, NetFate::QueueDrop),
            };
            if arrive > self.end {
                return Crossed::Later(ch, arrive, ecn);
            }
            *late = (*late).max(arrive);
            t = arrive;
        }
        Crossed::Arrived(t)
    }

    /// Give each plain route's hops the packets that crossed them
    /// (`VoiceRoute::plain`); at the end of `run`, before anything reads
    /// the channels' counters.
    pub(super) fn settle_routes(&mut self) {
        for route in &mut self.cut.routes {
            for &ch in &route.hops {
                self.topo.channels[ch as usize].count_through(route.through, route.bytes);
            }
            (route.through, route.bytes) = (0, 0);
        }
    }
}

/// A packet of `size` bytes crossed `hops` (plain) and stopped after them.
#[cold]
fn count_through(channels: &mut [crate::net::Channel], hops: &[u32], size: u32) {
    for &ch in hops {
        channels[ch as usize].count_through(1, size as u64);
    }
}

/// How a voice datagram's crossing of its planned route ended.
#[derive(Clone, Copy)]
enum Crossed {
    /// At the receiver at this time.
    Arrived(SimTime),
    /// Lost or dropped at this channel.
    Lost(u32, NetFate),
    /// Arriving from this channel after the run's end, at this time, with
    /// this ECN field: an event.
    Later(u32, SimTime, Ecn),
}
