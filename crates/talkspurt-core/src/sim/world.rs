//! The world: topology, flows (sender/receiver endpoint pairs), the
//! applications driving them, and the event loop. Only `run` moves time.

use crate::net::{Dir, NodeId, Offer, Packet, Topology, NO_APP};
use crate::sched::EventQueue;
use crate::time::SimTime;
use crate::trace::record::{CallRecord, NetFate, NO_WHERE};
use crate::traffic::TrafficSource;
use crate::transport::{Endpoint, Receiver, ReceiverEndpoint, AppUnit, Sample, Sender, SenderEndpoint};
use crate::voice::{Codec, VoiceSource};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender = 0,
    Receiver = 1,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// A packet reached the far end of a channel.
    Arrive { ch: u32, pkt: Packet },
    /// An endpoint timer; stale unless `gen` is the endpoint's current one.
    Timer { flow: u32, side: Side, gen: u32 },
    /// A voice source has a packet ready.
    Voice { call: u32 },
    /// A traffic source has a packet due.
    Traffic { src: u32 },
}

/// Who feeds a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Call(u32),
    Traffic(u32),
}

#[derive(Debug)]
pub struct Flow {
    pub src: NodeId,
    pub dst: NodeId,
    pub sender: Sender,
    pub receiver: Receiver,
    pub owner: Owner,
    /// Armed deadline and generation per side.
    timers: [(SimTime, u32); 2],
}

impl Flow {
    pub fn new(src: NodeId, dst: NodeId, sender: Sender, receiver: Receiver, owner: Owner) -> Self {
        Flow { src, dst, sender, receiver, owner, timers: [(SimTime::NEVER, 0); 2] }
    }
}

#[derive(Debug)]
pub struct Call {
    pub flow: u32,
    pub group: u32,
    pub codec: &'static Codec,
    pub overhead: u32,
    pub source: VoiceSource,
    pub rec: CallRecord,
    pub start: SimTime,
    /// End of the call's generation period (its length, or the run's end).
    pub stop: SimTime,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct TrafficCounters {
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub recv_pkts: u64,
    pub recv_bytes: u64,
}

#[derive(Debug)]
pub struct TrafficApp {
    pub flow: u32,
    pub group: u32,
    pub source: TrafficSource,
    pub counters: TrafficCounters,
}

pub struct World {
    pub q: EventQueue<Event>,
    pub topo: Topology,
    pub flows: Vec<Flow>,
    pub calls: Vec<Call>,
    pub traffic: Vec<TrafficApp>,
    /// Sources generate until `gen_end`; the run stops by `end`.
    pub gen_end: SimTime,
    pub end: SimTime,
    /// Series drained from endpoints at the end: (flow, side, sample).
    pub series: Vec<(u32, Side, Sample)>,
}

impl World {
    /// Schedule every source's first event. Call once before `run`.
    pub fn prime(&mut self) {
        for (i, c) in self.calls.iter().enumerate() {
            if let Some(t) = c.source.next_ready() {
                self.q.schedule(t, Event::Voice { call: i as u32 });
            }
        }
        for (i, t) in self.traffic.iter().enumerate() {
            if let Some(at) = t.source.next_time() {
                self.q.schedule(at, Event::Traffic { src: i as u32 });
            }
        }
    }

    /// Run to the end. `progress(fraction)` is called now and then; it
    /// returns false to abort (the run is then incomplete).
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) -> bool {
        let mut countdown = 1u32 << 16;
        while let Some((now, ev)) = self.q.pop_until(self.end) {
            self.handle(now, ev);
            countdown -= 1;
            if countdown == 0 {
                countdown = 1 << 16;
                if !progress(now.0 as f64 / self.end.0.max(1) as f64) {
                    return false;
                }
            }
        }
        progress(1.0);
        for (i, f) in self.flows.iter_mut().enumerate() {
            for s in f.sender.take_series() {
                self.series.push((i as u32, Side::Sender, s));
            }
            for s in f.receiver.take_series() {
                self.series.push((i as u32, Side::Receiver, s));
            }
        }
        true
    }

    fn handle(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::Voice { call } => self.on_voice(now, call),
            Event::Traffic { src } => self.on_traffic(now, src),
            Event::Arrive { ch, pkt } => {
                let node = self.topo.channels[ch as usize].to;
                if node == pkt.dst {
                    self.deliver(now, pkt);
                } else {
                    self.forward(now, node, pkt);
                }
            }
            Event::Timer { flow, side, gen } => {
                let f = &mut self.flows[flow as usize];
                let (deadline, g) = f.timers[side as usize];
                if g != gen || deadline > now {
                    return; // superseded
                }
                f.timers[side as usize].0 = SimTime::NEVER;
                match side {
                    Side::Sender => f.sender.handle_timeout(now),
                    Side::Receiver => f.receiver.handle_timeout(now),
                }
                self.service(now, flow, side);
            }
        }
    }

    fn on_voice(&mut self, now: SimTime, ci: u32) {
        let call = &mut self.calls[ci as usize];
        let vp = call.source.emit();
        debug_assert_eq!(vp.t_gen, now);
        let wire = vp.payload + call.overhead;
        let seq = call.rec.push(now, vp.talkspurt, vp.frames, vp.payload, wire);
        let unit = AppUnit { app_seq: seq, payload: vp.payload, overhead: call.overhead };
        let flow = call.flow;
        if let Some(t) = call.source.next_ready() {
            self.q.schedule(t, Event::Voice { call: ci });
        }
        if self.flows[flow as usize].sender.send(now, unit).is_err() {
            self.calls[ci as usize].rec.set_fate(seq, NetFate::SenderDrop, NO_WHERE);
        }
        self.service(now, flow, Side::Sender);
    }

    fn on_traffic(&mut self, now: SimTime, si: u32) {
        let app = &mut self.traffic[si as usize];
        let bytes = app.source.emit();
        app.counters.sent_pkts += 1;
        app.counters.sent_bytes += bytes as u64;
        let flow = app.flow;
        if let Some(t) = app.source.next_time() {
            self.q.schedule(t, Event::Traffic { src: si });
        }
        let unit = AppUnit { app_seq: NO_APP, payload: bytes, overhead: 0 };
        let _ = self.flows[flow as usize].sender.send(now, unit);
        self.service(now, flow, Side::Sender);
    }

    /// Drain an endpoint's transmissions and re-arm its timer.
    fn service(&mut self, now: SimTime, flow: u32, side: Side) {
        loop {
            let f = &mut self.flows[flow as usize];
            let (pkt, node) = match side {
                Side::Sender => (f.sender.poll_transmit(now), f.src),
                Side::Receiver => (f.receiver.poll_transmit(now), f.dst),
            };
            let Some(pkt) = pkt else { break };
            if let (Side::Sender, Owner::Call(c), true) = (side, f.owner, pkt.app_seq != NO_APP) {
                self.calls[c as usize].rec.sent(pkt.app_seq, now);
            }
            self.forward(now, node, pkt);
        }
        let f = &mut self.flows[flow as usize];
        let want = match side {
            Side::Sender => f.sender.poll_timeout(),
            Side::Receiver => f.receiver.poll_timeout(),
        }
        .unwrap_or(SimTime::NEVER);
        let slot = &mut f.timers[side as usize];
        if want != slot.0 {
            slot.0 = want;
            slot.1 = slot.1.wrapping_add(1);
            if want != SimTime::NEVER {
                let gen = slot.1;
                self.q.schedule(want.max(now), Event::Timer { flow, side, gen });
            }
        }
    }

    /// Put a packet on the next channel from `node` towards its destination.
    fn forward(&mut self, now: SimTime, node: NodeId, pkt: Packet) {
        if node == pkt.dst {
            // Same-node endpoints: deliver without crossing a link.
            self.deliver(now, pkt);
            return;
        }
        let ch = self.topo.next_channel(node, pkt.dst);
        debug_assert!(ch != crate::net::topology::NO_ROUTE, "builder checks reachability");
        match self.topo.channels[ch as usize].offer(now, &pkt) {
            Offer::Accepted { arrive, lost: false } => self.q.schedule(arrive, Event::Arrive { ch, pkt }),
            // Lost on the wire: it used the link, and its fate is known now.
            Offer::Accepted { lost: true, .. } => self.lost(pkt, NetFate::LinkLoss, ch),
            Offer::Dropped => self.lost(pkt, NetFate::QueueDrop, ch),
        }
    }

    fn lost(&mut self, pkt: Packet, fate: NetFate, ch: u32) {
        if pkt.app_seq == NO_APP || pkt.dir != Dir::Forward {
            return;
        }
        if let Owner::Call(c) = self.flows[pkt.flow as usize].owner {
            self.calls[c as usize].rec.set_fate(pkt.app_seq, fate, ch);
        }
    }

    fn deliver(&mut self, now: SimTime, pkt: Packet) {
        let fi = pkt.flow;
        let side = match pkt.dir {
            Dir::Forward => Side::Receiver,
            Dir::Reverse => Side::Sender,
        };
        let f = &mut self.flows[fi as usize];
        match side {
            Side::Sender => f.sender.handle_packet(now, &pkt),
            Side::Receiver => {
                f.receiver.handle_packet(now, &pkt);
                while let Some(d) = f.receiver.poll_deliver() {
                    match f.owner {
                        Owner::Call(c) => {
                            if d.app_seq != NO_APP {
                                self.calls[c as usize].rec.arrived(d.app_seq, d.at);
                            }
                        }
                        Owner::Traffic(t) => {
                            let k = &mut self.traffic[t as usize].counters;
                            k.recv_pkts += 1;
                            k.recv_bytes += d.bytes as u64;
                        }
                    }
                }
            }
        }
        self.service(now, fi, side);
    }
}
