//! Traffic applications beside the calls (`[[traffic]]`): what drives
//! each flow (a packet source or a byte-stream application), its
//! counters, and the event that fires it (`World::on_traffic`).

use super::world::{Event, Side, World};
use crate::net::NO_APP;
use crate::time::SimTime;
use crate::traffic::{StreamAction, StreamApp, TrafficSource};
use crate::transport::{AppUnit, SenderEndpoint};

#[derive(Debug, Default, Clone, PartialEq)]
pub struct TrafficCounters {
    /// Application units handed to the transport (packets of a packet
    /// source; bytes written by a stream application count in sent_bytes).
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    pub recv_pkts: u64,
    pub recv_bytes: u64,
    /// Within the measurement interval: payload bytes delivered in order
    /// to the receiving application, and IP bytes the sender transmitted
    /// (retransmissions included).
    pub recv_bytes_interval: u64,
    pub wire_bytes_interval: u64,
}

/// What drives a traffic flow.
#[derive(Debug)]
pub enum TrafficFeed {
    /// Packets at times of their own (CBR, Poisson, on/off).
    Packets(TrafficSource),
    /// A byte-stream application (bulk or finite transfer).
    Stream(StreamApp),
}

impl TrafficFeed {
    pub(super) fn next_time(&self) -> Option<SimTime> {
        match self {
            TrafficFeed::Packets(s) => s.next_time(),
            TrafficFeed::Stream(a) => a.next_time(),
        }
    }
}

#[derive(Debug)]
pub struct TrafficApp {
    pub flow: u32,
    pub group: u32,
    pub source: TrafficFeed,
    pub counters: TrafficCounters,
}

impl World {
    /// A traffic flow's packet or stream action is due: hand it to the
    /// transport, schedule the next one, or end the flow when it stops.
    pub(super) fn on_traffic(&mut self, now: SimTime, si: u32) {
        let app = &mut self.traffic[si as usize];
        let flow = app.flow;
        let sender = &mut self.flows[flow as usize].sender;
        match &mut app.source {
            TrafficFeed::Packets(src) => {
                let bytes = src.emit();
                app.counters.sent_pkts += 1;
                app.counters.sent_bytes += bytes as u64;
                // A stream transport carries the packet's bytes as payload.
                let unit = AppUnit { app_seq: NO_APP, payload: bytes, overhead: 0, rtp: None };
                let _ = sender.send(now, unit);
            }
            TrafficFeed::Stream(a) => match a.fire(now) {
                StreamAction::Greedy(on) => sender.set_greedy(on),
                StreamAction::Write(bytes) => {
                    if sender.write_bytes(bytes) {
                        app.counters.sent_bytes += bytes;
                    }
                }
            },
        }
        match app.source.next_time() {
            Some(t) => self.q.schedule_in(self.traffic_lane(si), t, Event::Traffic { src: si }),
            // The flow stopped: its connection tears down (DCCP Close).
            None => self.end_flow(now, flow),
        }
        self.service(now, flow, Side::Sender);
    }
}
