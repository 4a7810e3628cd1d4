//! Test-only transport proving the endpoint interface: the receiver returns
//! an acknowledgement per data packet over the reverse path, and the sender
//! measures the round-trip time from it (no congestion control).

use super::send_buffer::SendBuffer;
use super::{AppUnit, Delivery, Endpoint, FlowAddr, ReceiverEndpoint, SenderEndpoint, Sample, SeriesBuf};
use crate::net::{Dir, Ecn, Header, Packet, NO_APP};
use crate::time::SimTime;
use std::collections::VecDeque;

#[derive(Debug)]
pub struct EchoSender {
    addr: FlowAddr,
    buf: SendBuffer,
    next_seq: u64,
    /// RTT samples in nanoseconds, in the order the echoes came back.
    pub rtt_ns: Vec<u64>,
    series: SeriesBuf,
}

impl EchoSender {
    pub fn new(addr: FlowAddr, send_buffer: u32, series: bool) -> Self {
        EchoSender { addr, buf: SendBuffer::new(send_buffer), next_seq: 0, rtt_ns: Vec::new(), series: SeriesBuf::new(series) }
    }
}

impl Endpoint for EchoSender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        if let Header::EchoAck { echo_sent, .. } = pkt.hdr {
            let rtt = now - echo_sent;
            self.rtt_ns.push(rtt.as_nanos());
            self.series.record(now, "rtt_ms", rtt.as_millis_f64());
        }
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        let u = self.buf.pop()?;
        let seq = self.next_seq;
        self.next_seq += 1;
        Some(Packet {
            flow: self.addr.flow,
            dir: self.addr.dir,
            ecn: Ecn::NotEct,
            dst: self.addr.peer,
            size: u.payload + u.overhead,
            app_seq: u.app_seq,
            hdr: Header::Echo { seq, sent: now },
            app: u.rtp.into(),
        })
    }
    fn take_series(&mut self) -> Vec<Sample> {
        self.series.take()
    }
}

impl SenderEndpoint for EchoSender {
    fn send(&mut self, _now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        self.buf.push(unit)
    }
}

#[derive(Debug)]
pub struct EchoReceiver {
    addr: FlowAddr,
    ack_bytes: u32,
    acks: VecDeque<Packet>,
    delivered: VecDeque<Delivery>,
}

impl EchoReceiver {
    pub fn new(addr: FlowAddr, ack_bytes: u32) -> Self {
        debug_assert_eq!(addr.dir, Dir::Reverse);
        EchoReceiver { addr, ack_bytes, acks: VecDeque::new(), delivered: VecDeque::new() }
    }
}

impl Endpoint for EchoReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        if let Header::Echo { seq, sent } = pkt.hdr {
            self.delivered.push_back(Delivery { app_seq: pkt.app_seq, bytes: pkt.size, at: now, rtp: pkt.app.rtp() });
            self.acks.push_back(Packet {
                flow: self.addr.flow,
                dir: self.addr.dir,
                ecn: Ecn::NotEct,
                dst: self.addr.peer,
                size: self.ack_bytes,
                app_seq: NO_APP,
                hdr: Header::EchoAck { seq, echo_sent: sent },
                app: Default::default(),
            });
        }
    }
    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        self.acks.pop_front()
    }
}

impl ReceiverEndpoint for EchoReceiver {
    fn poll_deliver(&mut self) -> Option<Delivery> {
        self.delivered.pop_front()
    }
}
