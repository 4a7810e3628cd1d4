//! The world: topology, flows (sender/receiver endpoint pairs), the
//! applications driving them, and the event loop. Only `run` moves time.
//! By concern: voice packets `voice.rs`, RTCP `rtcp.rs`, traffic
//! applications `apps.rs`, trunks `trunk.rs`, paths `path.rs` and
//! `flow_path.rs`, endpoint timers `timer.rs`.

use super::capture::Capture;
use super::arena::PacketArena;
use super::path::CutThrough;
use super::timer::{Popped, TimerSlot};
use crate::net::{Dir, NodeId, Packet, Topology, NO_APP};
use crate::rtp::{RtpReceiver, RtpSender};
use crate::voice::adapt::{AdaptPoint, Adapter, Change, ReportView};
use crate::sched::EventQueue;
use crate::time::SimTime;
use crate::transport::framing::StreamFramer;
use crate::transport::{AppEvent, Endpoint, Receiver, ReceiverEndpoint, Sample, Sender, SenderEndpoint};
use crate::trace::record::CallRecord;
pub use super::apps::{TrafficApp, TrafficCounters, TrafficFeed};
use crate::voice::{Codec, VoiceSource};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender = 0,
    Receiver = 1,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// A packet reached the far end of a channel (`pkt`: its slot in
    /// `World::in_flight`).
    Arrive { ch: u32, pkt: u32 },
    /// A holding queue's transmitter is free (CoDel, FQ-CoDel, PIE).
    Dequeue { ch: u32 },
    /// An endpoint timer; stale unless `gen` is the endpoint's current one.
    Timer { flow: u32, side: Side, gen: u32 },
    /// A voice source has a packet ready.
    Voice { call: u32 },
    /// A traffic source has a packet due.
    Traffic { src: u32 },
    /// A call whose media waits for its connection opens it (its start).
    Connect { call: u32 },
    /// An IAX2 trunk's timer: send the frames queued since the last tick.
    Trunk { trunk: u32 },
}

/// Who feeds a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Call(u32),
    Traffic(u32),
    /// The RTCP "port" of a call (RFC 3550 §11): compound packets both
    /// ways; its timers are the call's RTP sessions' (sender side: the RTP
    /// sender's SRs, receiver side: the receiver's RRs and feedback).
    Rtcp(u32),
    /// An IAX2 trunk (`sim/trunk.rs`): its packets carry several calls'
    /// frames.
    Trunk(u32),
}

/// A call's RTP sessions and the RTCP flow between them. `repr(C)`: the
/// fields a voice packet reads come first (see `Call`).
#[derive(Debug)]
#[repr(C)]
pub struct RtpCall {
    pub tx: RtpSender,
    /// Payload clock rate (Hz) for the timestamps (also `tx.clock_rate()`).
    pub clock_rate: u32,
    pub rtcp_flow: Option<u32>,
    /// Boxed: read per packet only with RTCP, and 448 bytes that would
    /// otherwise spread 10 000 calls over three times the pages.
    pub rx: Box<RtpReceiver>,
}

#[derive(Debug)]
pub struct Flow {
    pub src: NodeId,
    pub dst: NodeId,
    pub sender: Sender,
    pub receiver: Receiver,
    pub owner: Owner,
    /// The timer of each side (`timer.rs`).
    pub(super) timers: [TimerSlot; 2],
    /// The largest packets and application units the sender side handled
    /// (`World::largest_by_group`).
    pub(super) largest: Largest,
}

/// Bytes of the largest IP packet a flow's sender put on the network
/// (`packet`: headers, options and retransmissions included) and of the
/// largest application unit handed to its transport (`message`: the
/// transport's payload, e.g. an RTP packet or an IAX2 trunk frame, before
/// a byte stream's framing). 0: none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Largest {
    pub packet: u32,
    pub message: u32,
}

impl Flow {
    pub fn new(src: NodeId, dst: NodeId, sender: Sender, receiver: Receiver, owner: Owner) -> Self {
        Flow { src, dst, sender, receiver, owner, timers: [TimerSlot::default(); 2], largest: Largest::default() }
    }
}

/// A call. `repr(C)`, cache-line aligned, fields in the order a voice
/// packet reads them: the source's clock, the record's head, the flow and
/// route, the pending changes and the RTP sender's counters lie in the
/// first three cache lines (`HOT_LINES`, checked by a test; a packet off
/// the planned route, which writes its RTP header, reads one more); the rest
/// (codec, adaptation, RTP receiver, log) is read per report or per
/// talkspurt. At 10 000 calls each line of a call's state touched per
/// packet is a cache miss (issue 14, bench/README.md);
/// `World::prefetch_voice` fetches those lines ahead.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Call {
    pub source: VoiceSource,
    pub rec: CallRecord,
    pub flow: u32,
    pub group: u32,
    pub overhead: u32,
    /// Index of the call's planned route in `World::cut.routes`, or
    /// `NO_VOICE_ROUTE` (`voice.rs`; set by `World::prime`).
    pub route: u32,
    /// The IAX2 trunk carrying the call's frames, or `NO_TRUNK`
    /// (`sim/trunk.rs`; `flow` is then the trunk's).
    pub trunk: u32,
    /// The adaptation can hold packets back (`Adapter::gates`), set by
    /// `World::prime`; otherwise `Adapter::gate` is not asked.
    pub gated: bool,
    /// The packets take `voice_routed` straight away: a planned route, no
    /// trunk, no adaptation (so no gate and no pending change), set by
    /// `World::plan_voice_routes`; cleared by `run` if a capture watches.
    pub direct: bool,
    /// Frames per packet and bytes per frame the adaptation chose, applied
    /// once the packet being filled is out (its completion event is
    /// already scheduled).
    pub pending_fpp: Option<u32>,
    pub pending_bytes: Option<u32>,
    pub rtp: RtpCall,
    pub codec: Codec,
    pub start: SimTime,
    /// End of the call's generation period (its length, or the run's end).
    pub stop: SimTime,
    /// Over a byte stream: the frames' ends, as the reader's framing sees
    /// them (None over datagrams).
    pub framer: Option<StreamFramer>,
    /// The sender's adaptation, fed every `RtcpEvent` (boxed: not read
    /// per packet unless `gated`).
    pub adapt: Box<Adapter>,
    /// The sender's state at the start and after every change.
    pub log: Vec<AdaptPoint>,
    /// `media_start = "connection"` and the connection not yet open: the
    /// source starts its frame clock when the transport reports
    /// `AppEvent::Connected` (`World::prime`, `World::service`).
    pub await_open: bool,
    /// `[run] series` and an adaptation with a report view (`avoip`):
    /// what each report it acted on showed it, appended at the report's
    /// arrival (`rtcp.rs`); None otherwise, so nothing is kept.
    pub reports: Option<Vec<ReportView>>,
}

impl Call {
    /// Cache lines from the start that hold what a voice packet touches.
    pub const HOT_LINES: usize = 3;

    /// Record an adaptation's decision and queue it for the next packet.
    pub fn change(&mut self, now: SimTime, ch: Change) {
        let last = *self.log.last().expect("the starting point is logged");
        let frame = self.source.frame();
        let (ptime, bitrate) = match ch {
            Change::Ptime(ms) => {
                let k = (ms as u64 * 1_000_000 / frame.as_nanos()) as u32;
                self.pending_fpp = Some(k);
                (frame.mul(k as u64), last.bitrate_bps)
            }
            Change::Rate(bps) => {
                let b = crate::voice::adapt::rate_bytes(bps as u64, frame);
                self.pending_bytes = Some(b);
                (last.ptime, b as f64 * 8.0 / frame.as_secs_f64())
            }
            Change::Mode(m) => {
                self.pending_bytes = Some(m.frame_bytes);
                (last.ptime, m.bitrate_bps())
            }
        };
        let mut p = AdaptPoint::new(now, ptime, bitrate, self.overhead);
        p.cause = self.adapt.cause();
        self.log.push(p);
    }
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
    /// Measurement interval of the traffic counters `*_interval`.
    pub interval: (SimTime, SimTime),
    /// Scratch: packets a holding queue dropped during one dequeue.
    pub dropped: Vec<Packet>,
    /// `[run] series`: add each call's ptime and bit rate to `series`.
    pub call_series: bool,
    /// Packet capture (pcap export), off unless asked for.
    pub capture: Option<Box<Capture>>,
    /// Hops and deliveries that need no event (`path.rs`), set by `prime`.
    pub cut: CutThrough,
    /// Packets whose arrival is an event.
    pub in_flight: PacketArena,
    /// The latest time up to `end` an endpoint timer was armed for
    /// (`timer.rs`): the run's clock ends no earlier.
    pub timer_late: SimTime,
    /// IAX2 trunks (`sim/trunk.rs`), each one flow carrying its calls.
    pub trunks: Vec<super::trunk::TrunkApp>,
    /// Fetch calls' state ahead of their packets (`prefetch.rs`), set by `prime`.
    pub(crate) prefetch: bool,
    /// Who writes the calls' records while the loop runs (`records.rs`).
    pub records: super::records::Records,
}

impl World {
    /// Event-queue lanes (`sched`): channel `ch`'s arrivals in lane `ch`
    /// (FIFO, so in order), then per call group its voice packets and per
    /// traffic group its packets (sources of one period fire in order).
    #[inline]
    pub(super) fn voice_lane(&self, call: u32) -> u32 {
        self.topo.channels.len() as u32 + 2 * self.calls[call as usize].group
    }

    #[inline]
    pub(super) fn traffic_lane(&self, src: u32) -> u32 {
        self.topo.channels.len() as u32 + 2 * self.traffic[src as usize].group + 1
    }

    /// Schedule every source's first event. Call once before `run`.
    pub fn prime(&mut self) {
        self.plan_cut_through();
        self.plan_voice_routes();
        // Every call's current record block in one huge-page region
        // (`trace::slab`): at 10 000 calls a round of packets otherwise
        // walks the page tables for ~2700 small pages (issue 14).
        if let Some(slab) = CallRecord::block_slab(self.calls.len()) {
            for (i, c) in self.calls.iter_mut().enumerate() {
                c.rec.attach_slab(&slab, i);
            }
        }
        for c in &mut self.calls {
            c.gated = c.adapt.gates();
        }
        self.prefetch = super::prefetch::worth_it(self.calls.len());
        for i in 0..self.calls.len() as u32 {
            let c = &mut self.calls[i as usize];
            // A connection open from the start (or none) lets the media
            // start with the call.
            c.await_open &= !self.flows[c.flow as usize].sender.connected();
            if c.await_open {
                self.q.schedule(c.start, Event::Connect { call: i });
            } else if let Some(t) = c.source.next_ready() {
                self.q.schedule_in(self.voice_lane(i), t, Event::Voice { call: i });
            }
        }
        for c in 0..self.calls.len() as u32 {
            let now = self.calls[c as usize].start;
            self.rtcp_service(now, c, Side::Sender);
            self.rtcp_service(now, c, Side::Receiver);
        }
        for i in 0..self.traffic.len() as u32 {
            if let Some(at) = self.traffic[i as usize].source.next_time() {
                self.q.schedule_in(self.traffic_lane(i), at, Event::Traffic { src: i });
            }
        }
    }

    /// Run to the end. `progress(fraction)` is called now and then — at
    /// least every `PROGRESS_EVERY` of wall time, so an interrupt it checks
    /// (Ctrl-C) stops the run promptly whatever an event costs; it returns
    /// false to abort (the run is then incomplete).
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) -> bool {
        const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(50);
        const EVENTS_PER_CHECK: u32 = 1 << 10;
        let mut last = std::time::Instant::now();
        if self.capture.is_some() {
            // A capture sees every packet on the general way (`on_voice`).
            for c in &mut self.calls {
                c.direct = false;
            }
        }
        self.records_start();
        'events: loop {
            for _ in 0..EVENTS_PER_CHECK {
                let Some((now, ev)) = self.q.pop_until(self.end) else { break 'events };
                // Voice first: a compare instead of the match's jump table
                // for most events of a voice run (issue 26 target 3).
                match ev {
                    Event::Voice { call } => self.on_voice(now, call),
                    _ => self.handle(now, ev),
                }
            }
            if last.elapsed() >= PROGRESS_EVERY {
                last = std::time::Instant::now();
                self.records_check();
                if !progress(self.q.now().0 as f64 / self.end.0.max(1) as f64) {
                    self.settle_routes();
                    return false;
                }
            }
        }
        // A completed run lasted at least its duration, also when its last
        // event came earlier (DCCP flows that closed, calls that stopped):
        // per-run averages such as a link's utilization and queue_mean
        // divide by that span, not by the last event's time. Events of the
        // drain period extend it as before. Arrivals handled without an
        // event (cut-through) count as processed.
        self.q.advance_to(self.cut.late.max(self.gen_end).max(self.timer_late));
        self.settle_routes();
        progress(1.0);
        for (i, f) in self.flows.iter_mut().enumerate() {
            for s in f.sender.take_series() {
                self.series.push((i as u32, Side::Sender, s));
            }
            for s in f.receiver.take_series() {
                self.series.push((i as u32, Side::Receiver, s));
            }
        }
        if self.call_series {
            for c in &self.calls {
                for p in &c.log {
                    self.series.push((c.flow, Side::Sender, Sample { t: p.t, name: "ptime_ms", value: p.ptime.as_millis_f64() }));
                    self.series.push((c.flow, Side::Sender, Sample { t: p.t, name: "bitrate_bps", value: p.bitrate_bps }));
                    if matches!(*c.adapt, Adapter::Avoip(_)) {
                        self.series.push((c.flow, Side::Sender, Sample { t: p.t, name: "adapt_cause", value: p.cause.code() }));
                    }
                }
                for r in c.reports.iter().flatten() {
                    let ms = |d: Option<f64>| d.map_or(f64::NAN, |s| s * 1e3);
                    let rows = [
                        ("report_loss", r.loss),
                        ("report_slr", r.slr),
                        ("report_delay_ms", ms(r.delay_s)),
                        ("avg_delay_ms", ms(r.avg_delay_s)),
                    ];
                    for (name, value) in rows {
                        self.series.push((c.flow, Side::Sender, Sample { t: r.t, name, value }));
                    }
                }
            }
        }
        true
    }

    #[inline(always)] // as a call per event: ~16 instructions of a headline packet's ~600 (bench/README.md, Profiles)
    fn handle(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::Voice { call } => self.on_voice(now, call),
            Event::Traffic { src } => self.on_traffic(now, src),
            Event::Trunk { trunk } => self.on_trunk(now, trunk),
            Event::Arrive { ch, pkt } => {
                let pkt = self.in_flight.take(pkt);
                if let Some(cap) = &mut self.capture {
                    cap.on_arrive(now, ch, &pkt, &self.flows);
                }
                let node = self.topo.channels[ch as usize].to;
                if node == pkt.dst {
                    self.deliver(now, pkt);
                } else {
                    self.forward(now, node, pkt);
                }
            }
            Event::Dequeue { ch } => self.dequeue(now, ch),
            Event::Connect { call } => {
                let flow = self.calls[call as usize].flow;
                self.flows[flow as usize].sender.connect(now);
                self.service(now, flow, Side::Sender);
            }
            Event::Timer { flow, side, gen } => {
                let f = &mut self.flows[flow as usize];
                let make = |gen| Event::Timer { flow, side, gen };
                if f.timers[side as usize].popped(&mut self.q, now, gen, make) == Popped::Nothing {
                    return; // superseded, or moved on to its deadline
                }
                if let Owner::Rtcp(c) = f.owner {
                    let call = &mut self.calls[c as usize];
                    if now > call.stop {
                        // The call is over: its RTP sessions stop reporting
                        // (the report due exactly at the end still goes).
                        call.rtp.tx.stop();
                        call.rtp.rx.stop();
                    }
                    match side {
                        Side::Sender => {
                            call.rtp.tx.handle_timeout(now);
                            if call.adapt.poll_timeout().is_some_and(|t| t <= now) {
                                if let Some(ch) = call.adapt.handle_timeout(now) {
                                    call.change(now, ch);
                                }
                            }
                        }
                        Side::Receiver => call.rtp.rx.handle_timeout(now),
                    }
                    self.rtcp_service(now, c, side);
                    return;
                }
                match side {
                    Side::Sender => f.sender.handle_timeout(now),
                    Side::Receiver => f.receiver.handle_timeout(now),
                }
                self.service(now, flow, side);
            }
        }
    }

    /// The flow's application stopped: each endpoint ends the connection
    /// if it is the closer (DCCP Close from the sender or CloseReq from
    /// the receiver, RFC 4340 §8.3). The caller services the sender.
    pub(super) fn end_flow(&mut self, now: SimTime, flow: u32) {
        let f = &mut self.flows[flow as usize];
        f.sender.close(now);
        f.receiver.close(now);
        self.service(now, flow, Side::Receiver);
    }

    /// Per call group (`Call::group`, `groups` of them), the largest
    /// packet and unit of its calls' flows (a trunk's for trunked calls).
    /// A call on the direct way (`voice.rs`: UDP, no adaptation, so every
    /// full packet has the same size) never passes `service`: its packets
    /// are the source's full packet plus `overhead`, if it sent any.
    /// Computed once, after the run, for the notices of oversized packets
    /// (a 1500 B MTU) and of units split by a TCP `mss` (Python's
    /// `notices.py`, docs/scenario.md).
    pub fn largest_by_group(&self, groups: usize) -> Vec<Largest> {
        let mut out = vec![Largest::default(); groups];
        for c in &self.calls {
            let mut l = self.flows[c.flow as usize].largest;
            if c.direct && c.rec.len() > 0 {
                let per = (c.source.ptime().as_nanos() / c.source.frame().as_nanos().max(1)) as u32 * c.source.frame_bytes();
                l.packet = l.packet.max(crate::transport::udp::datagram_size(per, c.overhead));
                l.message = l.message.max(crate::transport::segment_bytes(per, c.overhead));
            }
            let g = &mut out[c.group as usize];
            g.packet = g.packet.max(l.packet);
            g.message = g.message.max(l.message);
        }
        out
    }

    /// Drain an endpoint's transmissions and re-arm its timer.
    pub(super) fn service(&mut self, now: SimTime, flow: u32, side: Side) {
        // A call whose media waited for this connection, now open (or a
        // trunk's, for all its members).
        let mut media = None;
        let mut trunk_open = None;
        loop {
            let f = &mut self.flows[flow as usize];
            let (pkt, node) = match side {
                Side::Sender => (f.sender.poll_transmit(now), f.src),
                Side::Receiver => (f.receiver.poll_transmit(now), f.dst),
            };
            let Some(pkt) = pkt else { break };
            if side == Side::Sender {
                f.largest.packet = f.largest.packet.max(pkt.size);
            }
            match (side, f.owner) {
                // A datagram transport's voice packet (UDP, DCCP, TFRC):
                // its size is what the first link carries (`wire_bytes`).
                // Each unit rides one packet, sent once.
                (Side::Sender, Owner::Call(c)) if pkt.app_seq != NO_APP => {
                    let rec = &mut self.calls[c as usize].rec;
                    rec.sent(pkt.app_seq, now);
                    rec.set_wire(pkt.app_seq, pkt.size);
                }
                (Side::Sender, Owner::Trunk(t)) if pkt.app_seq != NO_APP => self.trunk_sent(t, pkt.app_seq, now),
                (Side::Sender, Owner::Traffic(t)) if now >= self.interval.0 && now < self.interval.1 => {
                    self.traffic[t as usize].counters.wire_bytes_interval += pkt.size as u64;
                }
                _ => {}
            }
            self.send(now, flow, side, node, pkt);
        }
        let f = &mut self.flows[flow as usize];
        if side == Side::Sender {
            while let Some(ev) = f.sender.poll_event() {
                if let Owner::Trunk(t) = f.owner {
                    match ev {
                        AppEvent::Sent { app_seq, .. } => {
                            let tr = &self.trunks[t as usize].trunk;
                            for &(c, seq) in tr.members(app_seq) {
                                self.calls[c as usize].rec.sent(seq, now);
                            }
                        }
                        // The trunk's connection is every member's.
                        AppEvent::Connected => trunk_open = Some(t),
                        AppEvent::RateChanged { .. } => {}
                    }
                    continue;
                }
                let Owner::Call(c) = f.owner else { continue };
                let call = &mut self.calls[c as usize];
                match ev {
                    AppEvent::Sent { app_seq, wire } => {
                        call.rec.sent(app_seq, now);
                        call.rec.set_wire(app_seq, wire);
                    }
                    AppEvent::Connected => {
                        if call.await_open {
                            call.await_open = false;
                            media = Some(c);
                        }
                    }
                    // TFRC's allowed rate, for the adaptation (tfrc-codec).
                    AppEvent::RateChanged { bps } => {
                        if let Some(ch) = call.adapt.on_rate(now, bps) {
                            call.change(now, ch);
                        }
                    }
                }
            }
        }
        let want = match side {
            Side::Sender => f.sender.poll_timeout(),
            Side::Receiver => f.receiver.poll_timeout(),
        }
        .unwrap_or(SimTime::NEVER);
        let make = |gen| Event::Timer { flow, side, gen };
        f.timers[side as usize].arm(&mut self.q, now, want, self.end, &mut self.timer_late, make);
        if let Some(c) = media {
            self.start_media(now, now, c);
        }
        if let Some(t) = trunk_open {
            for c in 0..self.calls.len() as u32 {
                let call = &mut self.calls[c as usize];
                if call.trunk == t && call.await_open {
                    call.await_open = false;
                    // The members share one connection, so its opening
                    // must not line their frame clocks up: each keeps the
                    // phase of its own start (seed 003's calls at uniform
                    // phases, docs/models/trunk.md), its clock starting
                    // at the first instant from `now` on its ptime grid.
                    let (start, p) = (call.start.0, call.source.ptime().as_nanos().max(1));
                    let at = if start >= now.0 { start } else { now.0 + (p - (now.0 - start) % p) % p };
                    self.start_media(now, SimTime(at), c);
                }
            }
        }
    }

    /// Call `c`'s connection opened at `now`: its frame clock starts at
    /// `at` (`media_start = "connection"`: `now`, or for a trunk member
    /// the next instant in its own phase), the first packet complete one
    /// ptime later. A call whose generation period ended during the
    /// handshake sends nothing and closes its connection.
    fn start_media(&mut self, now: SimTime, at: SimTime, c: u32) {
        let call = &mut self.calls[c as usize];
        call.source.restart(at, call.stop);
        match call.source.next_ready() {
            Some(t) => self.q.schedule_in(self.voice_lane(c), t, Event::Voice { call: c }),
            // A trunk member that will send nothing: the trunk closes after
            // its last live member (`trunk.rs`).
            None if call.trunk != super::NO_TRUNK => {
                let t = call.trunk as usize;
                self.trunks[t].live -= 1;
                if self.trunks[t].live == 0 && self.trunks[t].trunk.queued() == 0 {
                    let flow = self.trunks[t].flow;
                    self.end_flow(now, flow);
                    self.service(now, flow, Side::Sender);
                }
            }
            None => {
                let flow = call.flow;
                self.end_flow(now, flow);
                self.service(now, flow, Side::Sender);
            }
        }
    }

    pub(super) fn deliver(&mut self, now: SimTime, pkt: Packet) {
        if let Some(cap) = &mut self.capture {
            cap.on_deliver(now, &pkt, &self.flows);
        }
        let fi = pkt.flow;
        if pkt.dir == Dir::Forward && self.cut.passive[fi as usize] {
            self.deliver_passive(now, &pkt);
            return;
        }
        if let Owner::Rtcp(c) = self.flows[fi as usize].owner {
            self.deliver_rtcp(now, c, &pkt);
            return;
        }
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
                            let call = &mut self.calls[c as usize];
                            if d.app_seq != NO_APP {
                                call.rec.arrived(d.app_seq, d.at);
                                if let Some(h) = d.rtp {
                                    call.rtp.rx.on_rtp(d.at, &h);
                                }
                            } else if let Some(fr) = &mut call.framer {
                                let (rec, rx) = (&mut call.rec, &mut call.rtp.rx);
                                fr.delivered(d.bytes as u64, |seq, h| {
                                    rec.arrived(seq, d.at);
                                    if let Some(h) = h {
                                        rx.on_rtp(d.at, &h);
                                    }
                                });
                            }
                        }
                        Owner::Rtcp(_) => {}
                        Owner::Trunk(t) => super::trunk::trunk_delivered(&mut self.trunks, &mut self.calls, t, &d),
                        Owner::Traffic(t) => {
                            let k = &mut self.traffic[t as usize].counters;
                            k.recv_pkts += 1;
                            k.recv_bytes += d.bytes as u64;
                            if d.at >= self.interval.0 && d.at < self.interval.1 {
                                k.recv_bytes_interval += d.bytes as u64;
                            }
                        }
                    }
                }
            }
        }
        self.service(now, fi, side);
        if let (Side::Receiver, Owner::Call(c)) = (side, self.flows[fi as usize].owner) {
            self.rtcp_service(now, c, Side::Receiver);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn a_voice_packet_touches_three_lines_of_its_call() {
        // The RTP sender's hot fields are the last a packet reads (the
        // source and record heads come first, whole).
        let end = offset_of!(Call, rtp) + offset_of!(RtpCall, tx) + RtpSender::HOT_BYTES;
        assert!(end <= Call::HOT_LINES * 64, "hot part ends at byte {end}");
        assert_eq!(std::mem::align_of::<Call>(), 64);
    }
}
