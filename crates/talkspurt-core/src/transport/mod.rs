//! Transports as sans-IO state machines. An endpoint never sees a clock or a
//! socket: the scheduler calls `handle_packet` / `handle_timeout` with the
//! current time, then drains `poll_transmit` and re-arms `poll_timeout`.
//! Packets an endpoint emits in either direction (data, ACKs, feedback,
//! reports) cross the simulated network like any other: queued, delayed,
//! lost.
//!
//! Between the application and a sender sits a bounded send buffer: `send`
//! hands the unit back when the buffer is full, and the application counts a
//! sender drop. Variants are chosen by name from `TransportCfg`; dispatch is
//! by enum (`Sender`, `Receiver`), not boxed traits, on the hot path.

pub mod ccid2;
pub mod dccp_conn;
pub mod echo;
pub mod framing;
pub mod rtt;
pub mod send_buffer;
pub mod seq;
pub mod tcp;
pub mod series;
pub mod tfrc;
pub mod udp;

use crate::net::wire::RtpHeader;
use crate::net::{Dir, FlowId, NodeId, Packet};
use crate::time::SimTime;
pub use series::{Sample, SeriesBuf};

/// Where an endpoint sends: its flow and the node of its peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowAddr {
    pub flow: FlowId,
    /// Node of the peer endpoint.
    pub peer: NodeId,
    /// Direction of packets this endpoint emits.
    pub dir: Dir,
}

/// A unit of application data (one voice packet's payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppUnit {
    /// Index in the flow's application record.
    pub app_seq: u32,
    /// Payload bytes (transport adds its headers to reach the wire size).
    pub payload: u32,
    /// Bytes of headers below the application (e.g. IP+UDP+RTP = 40).
    pub overhead: u32,
    /// The RTP header the application wrote (its bytes are in `overhead`);
    /// datagram transports carry it in the packet, byte streams in the
    /// framing (`framing.rs`).
    pub rtp: Option<RtpHeader>,
}

impl AppUnit {
    /// The transport's payload: the unit with the headers above IP and
    /// UDP that `overhead` counts (an RTP header), as a datagram transport
    /// carries it and a byte stream writes it before its framing.
    pub fn segment_bytes(&self) -> u32 {
        segment_bytes(self.payload, self.overhead)
    }
}

/// [`AppUnit::segment_bytes`] of a unit of `payload` bytes whose
/// application counts `overhead` bytes of headers from IP up.
pub fn segment_bytes(payload: u32, overhead: u32) -> u32 {
    payload + overhead.saturating_sub(crate::net::wire::IPV4_HEADER + crate::net::wire::UDP_HEADER)
}

/// A unit delivered to the receiving application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub app_seq: u32,
    /// Bytes on the wire of the packet that carried the unit.
    pub bytes: u32,
    pub at: SimTime,
    /// The unit's RTP header as the packet carried it.
    pub rtp: Option<RtpHeader>,
}

/// What a transport tells the application above it (polled after every
/// call into the endpoint). Adaptive senders react to these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AppEvent {
    /// The last byte of application unit `app_seq` was first handed to
    /// the network (byte-stream transports; datagram transports report it
    /// through the packet itself), with `wire`, its share of the IP
    /// bytes of the segments that first carried it (`TcpSender`'s
    /// `writes_sent`): the packets table's `wire_bytes`.
    Sent { app_seq: u32, wire: u32 },
    /// The sender's allowed rate changed (bit/s).
    RateChanged { bps: f64 },
    /// The connection's handshake completed: it can carry data now (DCCP's
    /// Response arrived, RFC 4340 §8.1.5; TCP's SYN-ACK, RFC 9293 §3.5).
    /// Not sent by a connection open from the start.
    Connected,
}

/// The sans-IO interface every endpoint implements.
pub trait Endpoint {
    /// A packet addressed to this endpoint arrived.
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet);
    /// The deadline from `poll_timeout` passed.
    fn handle_timeout(&mut self, _now: SimTime) {}
    /// The next packet to put on the network now, if any.
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet>;
    /// The earliest time this endpoint wants `handle_timeout`.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    /// Time series recorded so far (drained once at the end of a run).
    fn take_series(&mut self) -> Vec<Sample> {
        Vec::new()
    }
    /// The next event for the application, if any.
    fn poll_event(&mut self) -> Option<AppEvent> {
        None
    }
}

pub trait SenderEndpoint: Endpoint {
    /// The application hands over a unit; it comes back if the send buffer
    /// is full (a sender drop).
    fn send(&mut self, now: SimTime, unit: AppUnit) -> Result<(), AppUnit>;
    /// Byte-stream senders: the application always has data (greedy bulk
    /// transfer) while `on`.
    fn set_greedy(&mut self, _on: bool) {}
    /// Byte-stream senders: write `bytes` of bulk data; false if refused.
    fn write_bytes(&mut self, _bytes: u64) -> bool {
        false
    }
    /// The connection can carry data now: connectionless transports and
    /// connections without a handshake always, DCCP and TCP once their
    /// handshake has completed (until they close).
    fn connected(&self) -> bool {
        true
    }
    /// The application opens the connection without data to send yet (a
    /// softphone's `connect()` before its media starts): the handshake
    /// starts at the next poll. Connectionless transports ignore it.
    fn connect(&mut self, _now: SimTime) {}
    /// The application has nothing more to send: connection-oriented
    /// transports tear down once what is queued has left (DCCP's Close,
    /// RFC 4340 §8.3); the rest ignore it.
    fn close(&mut self, _now: SimTime) {}
}

pub trait ReceiverEndpoint: Endpoint {
    /// Units that reached the application, in delivery order.
    fn poll_deliver(&mut self) -> Option<Delivery>;
    /// The application ends the connection from this side: DCCP's
    /// CloseReq when the server is the closer (RFC 4340 §8.3); the rest
    /// ignore it.
    fn close(&mut self, _now: SimTime) {}
}

macro_rules! dispatch {
    ($self:ident, $inner:ident => $e:expr) => {
        match $self {
            Self::Udp($inner) => $e,
            Self::Echo($inner) => $e,
            Self::Tcp($inner) => $e,
            Self::Rate($inner) => $e,
            Self::Ccid2($inner) => $e,
        }
    };
}

/// Sender endpoint, one variant per transport.
#[derive(Debug)]
pub enum Sender {
    Udp(udp::UdpSender),
    Echo(echo::EchoSender),
    Tcp(Box<tcp::TcpSender>),
    /// DCCP CCID 3/4 and plain TFRC.
    Rate(Box<tfrc::RateSender>),
    /// DCCP CCID 2.
    Ccid2(Box<ccid2::Ccid2Sender>),
}

impl Sender {
    /// Bytes the application has written into a byte stream so far (0 for
    /// datagram transports): the framer learns a write's size from it.
    pub fn queued_bytes(&self) -> u64 {
        match self {
            Sender::Tcp(t) => t.written(),
            _ => 0,
        }
    }
    /// TCP's counters, for the traffic table.
    pub fn tcp(&self) -> Option<&tcp::TcpSender> {
        match self {
            Sender::Tcp(t) => Some(t),
            _ => None,
        }
    }
    /// A TFRC-family sender (allowed rate, loss event rate).
    pub fn rate(&self) -> Option<&tfrc::RateSender> {
        match self {
            Sender::Rate(r) => Some(r),
            _ => None,
        }
    }
    /// DCCP teardown packets sent (zero for other transports).
    pub fn teardown(&self) -> dccp_conn::Teardown {
        match self {
            Sender::Rate(r) => r.teardown(),
            Sender::Ccid2(c) => c.teardown(),
            _ => dccp_conn::Teardown::default(),
        }
    }
}

impl Receiver {
    /// DCCP teardown packets sent (zero for other transports).
    pub fn teardown(&self) -> dccp_conn::Teardown {
        match self {
            Receiver::Rate(r) => r.teardown(),
            Receiver::Ccid2(c) => c.teardown(),
            _ => dccp_conn::Teardown::default(),
        }
    }
}

/// Receiver endpoint, one variant per transport.
#[derive(Debug)]
pub enum Receiver {
    Udp(udp::UdpReceiver),
    Echo(echo::EchoReceiver),
    Tcp(Box<tcp::TcpReceiver>),
    Rate(Box<tfrc::RateReceiver>),
    Ccid2(Box<ccid2::Ccid2Receiver>),
}

impl Endpoint for Sender {
    #[inline]
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        dispatch!(self, s => s.handle_packet(now, pkt))
    }
    #[inline]
    fn handle_timeout(&mut self, now: SimTime) {
        dispatch!(self, s => s.handle_timeout(now))
    }
    #[inline]
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        dispatch!(self, s => s.poll_transmit(now))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, s => s.poll_timeout())
    }
    #[inline]
    fn take_series(&mut self) -> Vec<Sample> {
        dispatch!(self, s => s.take_series())
    }
    #[inline]
    fn poll_event(&mut self) -> Option<AppEvent> {
        dispatch!(self, s => s.poll_event())
    }
}

impl SenderEndpoint for Sender {
    #[inline]
    fn send(&mut self, now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        dispatch!(self, s => s.send(now, unit))
    }
    #[inline]
    fn set_greedy(&mut self, on: bool) {
        dispatch!(self, s => s.set_greedy(on))
    }
    #[inline]
    fn write_bytes(&mut self, bytes: u64) -> bool {
        dispatch!(self, s => s.write_bytes(bytes))
    }
    #[inline]
    fn close(&mut self, now: SimTime) {
        dispatch!(self, s => s.close(now))
    }
    #[inline]
    fn connected(&self) -> bool {
        dispatch!(self, s => s.connected())
    }
    #[inline]
    fn connect(&mut self, now: SimTime) {
        dispatch!(self, s => s.connect(now))
    }
}

impl Endpoint for Receiver {
    #[inline]
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        dispatch!(self, r => r.handle_packet(now, pkt))
    }
    #[inline]
    fn handle_timeout(&mut self, now: SimTime) {
        dispatch!(self, r => r.handle_timeout(now))
    }
    #[inline]
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        dispatch!(self, r => r.poll_transmit(now))
    }
    #[inline]
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, r => r.poll_timeout())
    }
    #[inline]
    fn take_series(&mut self) -> Vec<Sample> {
        dispatch!(self, r => r.take_series())
    }
}

impl ReceiverEndpoint for Receiver {
    #[inline]
    fn poll_deliver(&mut self) -> Option<Delivery> {
        dispatch!(self, r => r.poll_deliver())
    }
    #[inline]
    fn close(&mut self, now: SimTime) {
        dispatch!(self, r => r.close(now))
    }
}
