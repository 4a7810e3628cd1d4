//! Packet capture: what crossed chosen link directions, or reached (and
//! left) a call's receiver, recorded as libpcap records (`net::pcap`) while
//! the world runs. Off by default: the world holds `Option<Box<Capture>>`
//! and pays one branch per hook when it is `None`.
//!
//! Addresses and ports (docs/pcap.md):
//! - node i (numbered in order of first appearance in `links`) is
//!   10.0.0.0 + i + 1 (10.0.0.1, 10.0.0.2, …);
//! - call c's RTP flow uses port 16384 + 2c at both ends and its RTCP flow
//!   the next port up (RFC 3550 §11); traffic flow t uses 49152 + t; both
//!   wrap within their ranges past 24575 calls or 16384 traffic flows.
//!
//! Timestamps are simulated time: a link capture stamps a packet when it
//! reaches the far end of the link (a packet lost on the link or dropped by
//! its queue is not in the file: the capture sits at the receiving
//! interface); a receiver capture stamps a packet when it is delivered to
//! the receiving endpoint or when the receiver sends it.

use super::world::{Flow, Owner};
use crate::net::pcap::{file_header, write_record, Endpoints};
use crate::net::{Dir, NodeId, Packet};
use crate::time::SimTime;

const NONE: u32 = u32::MAX;

/// Where to capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tap {
    /// One link direction (a channel index: link i forward is 2i, reverse
    /// 2i + 1).
    Channel(u32),
    /// The receiving host of call c: its RTP (or transport) flow and its
    /// RTCP flow, both ways.
    Receiver(u32),
}

/// One output file: its name and its bytes so far.
#[derive(Debug)]
pub struct CaptureFile {
    pub name: String,
    pub bytes: Vec<u8>,
    pub packets: u64,
    ip_id: u16,
}

#[derive(Debug)]
pub struct Capture {
    pub files: Vec<CaptureFile>,
    /// File of each channel (NONE: not captured).
    by_channel: Vec<u32>,
    /// File of each flow captured at its receiving host (NONE: not).
    by_flow: Vec<u32>,
    /// Ports of each flow (both ends use the same number).
    ports: Vec<u16>,
}

/// The IPv4 address of node `n`.
pub fn node_addr(n: NodeId) -> [u8; 4] {
    let v = n + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

fn flow_port(owner: Owner) -> u16 {
    match owner {
        Owner::Call(c) => 16384 + 2 * (c % 24_575) as u16,
        Owner::Rtcp(c) => 16385 + 2 * (c % 24_575) as u16,
        Owner::Traffic(t) => 49152 + (t % 16_384) as u16,
        // IAX2: one UDP port for all calls (RFC 5456), IANA 4569.
        Owner::Trunk(_) => 4569,
    }
}

impl Capture {
    /// Capture points over `channels` channels and `flows`; `taps` pairs
    /// each tap with its file name (taps naming one file share it).
    pub fn new(channels: usize, flows: &[Flow], rtcp_flow: impl Fn(u32) -> Option<u32>, taps: &[(Tap, String)]) -> Capture {
        let mut c = Capture {
            files: Vec::new(),
            by_channel: vec![NONE; channels],
            by_flow: vec![NONE; flows.len()],
            ports: flows.iter().map(|f| flow_port(f.owner)).collect(),
        };
        for (tap, name) in taps {
            let file = match c.files.iter().position(|f| &f.name == name) {
                Some(i) => i as u32,
                None => {
                    c.files.push(CaptureFile { name: name.clone(), bytes: file_header(), packets: 0, ip_id: 0 });
                    (c.files.len() - 1) as u32
                }
            };
            match *tap {
                Tap::Channel(ch) => c.by_channel[ch as usize] = file,
                Tap::Receiver(call) => {
                    for (i, f) in flows.iter().enumerate() {
                        if f.owner == Owner::Call(call) || Some(i as u32) == rtcp_flow(call) {
                            c.by_flow[i] = file;
                        }
                    }
                }
            }
        }
        c
    }

    fn record(&mut self, file: u32, now: SimTime, pkt: &Packet, flows: &[Flow]) {
        let f = &flows[pkt.flow as usize];
        let (from, to) = match pkt.dir {
            Dir::Forward => (f.src, f.dst),
            Dir::Reverse => (f.dst, f.src),
        };
        let port = self.ports[pkt.flow as usize];
        let ep = Endpoints { src: node_addr(from), dst: node_addr(to), sport: port, dport: port };
        let file = &mut self.files[file as usize];
        write_record(&mut file.bytes, now.as_nanos(), pkt, &ep, file.ip_id);
        file.ip_id = file.ip_id.wrapping_add(1);
        file.packets += 1;
    }

    /// A packet reached the far end of channel `ch`.
    pub fn on_arrive(&mut self, now: SimTime, ch: u32, pkt: &Packet, flows: &[Flow]) {
        let file = self.by_channel[ch as usize];
        if file != NONE {
            self.record(file, now, pkt, flows);
        }
    }

    /// A packet was delivered to its destination endpoint.
    pub fn on_deliver(&mut self, now: SimTime, pkt: &Packet, flows: &[Flow]) {
        let file = self.by_flow[pkt.flow as usize];
        if file != NONE && pkt.dir == Dir::Forward {
            self.record(file, now, pkt, flows);
        }
    }

    /// A packet leaves `node` (its origin or a hop on its way).
    pub fn on_forward(&mut self, now: SimTime, node: NodeId, pkt: &Packet, flows: &[Flow]) {
        let file = self.by_flow[pkt.flow as usize];
        if file != NONE && pkt.dir == Dir::Reverse && node == flows[pkt.flow as usize].dst {
            self.record(file, now, pkt, flows);
        }
    }
}
