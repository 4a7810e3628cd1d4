//! UDP (RFC 768): no congestion control, no retransmission. A datagram is
//! handed to the network the moment the application writes it, so the send
//! buffer never holds more than the packet being written.

use super::{AppUnit, Delivery, Endpoint, FlowAddr, ReceiverEndpoint, SenderEndpoint};
use super::send_buffer::SendBuffer;
use crate::net::{Ecn, Header, Packet};
use crate::time::SimTime;
use std::collections::VecDeque;

/// Bytes of the IP packet carrying a datagram of `payload` bytes when the
/// application counts `overhead` bytes of headers below it: the IPv4
/// header (20 B, RFC 791 §3.1), the UDP header (8 B, RFC 768) and the RTP
/// header (12 B, RFC 3550 §5.1) make the usual 40 B. UDP adds nothing
/// more, so the packet is the two together; the world's direct way for
/// voice (`sim/voice.rs`), which builds no packet, sizes its datagrams here
/// too.
#[inline(always)]
pub fn datagram_size(payload: u32, overhead: u32) -> u32 {
    payload + overhead
}

#[derive(Debug)]
pub struct UdpSender {
    addr: FlowAddr,
    buf: SendBuffer,
}

impl UdpSender {
    pub fn new(addr: FlowAddr, send_buffer: u32) -> Self {
        UdpSender { addr, buf: SendBuffer::new(send_buffer) }
    }

    /// Where the datagrams go (the world's direct voice way checks it).
    pub fn addr(&self) -> FlowAddr {
        self.addr
    }

    /// Send `unit` now, bypassing the buffer, when nothing waits in it
    /// (always, as the world drains it after every `send`): the packet
    /// `send` then `poll_transmit` would give, without the round trip
    /// through the queue. `None`: use `send`.
    #[inline]
    pub fn send_now(&mut self, unit: AppUnit) -> Option<Packet> {
        self.buf.is_empty().then(|| self.datagram(unit))
    }

    #[inline]
    fn datagram(&self, u: AppUnit) -> Packet {
        Packet {
            flow: self.addr.flow,
            dir: self.addr.dir,
            ecn: Ecn::NotEct,
            dst: self.addr.peer,
            size: datagram_size(u.payload, u.overhead),
            app_seq: u.app_seq,
            hdr: Header::Datagram,
            app: u.rtp.into(),
        }
    }
}

impl Endpoint for UdpSender {
    fn handle_packet(&mut self, _now: SimTime, _pkt: &Packet) {}
    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        let u = self.buf.pop()?;
        Some(self.datagram(u))
    }
}

impl SenderEndpoint for UdpSender {
    fn send(&mut self, _now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        self.buf.push(unit)
    }
}

#[derive(Debug, Default)]
pub struct UdpReceiver {
    delivered: VecDeque<Delivery>,
}

impl Endpoint for UdpReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        self.delivered.push_back(Delivery { app_seq: pkt.app_seq, bytes: pkt.size, at: now, rtp: pkt.app.rtp() });
    }
    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        None
    }
}

impl ReceiverEndpoint for UdpReceiver {
    fn poll_deliver(&mut self) -> Option<Delivery> {
        self.delivered.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Dir;

    #[test]
    fn sends_immediately_and_bounds_buffer() {
        let addr = FlowAddr { flow: 3, peer: 9, dir: Dir::Forward };
        let mut s = UdpSender::new(addr, 2);
        let u = |i| AppUnit { app_seq: i, payload: 160, overhead: 40, rtp: None };
        assert!(s.send(SimTime(0), u(0)).is_ok());
        assert!(s.send(SimTime(0), u(1)).is_ok());
        assert_eq!(s.send(SimTime(0), u(2)), Err(u(2)));
        let p = s.poll_transmit(SimTime(0)).unwrap();
        assert_eq!((p.flow, p.dst, p.size, p.app_seq), (3, 9, 200, 0));
        assert!(s.poll_transmit(SimTime(0)).is_some());
        assert!(s.poll_transmit(SimTime(0)).is_none());
    }
}
