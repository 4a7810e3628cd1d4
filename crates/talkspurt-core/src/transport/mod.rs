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

pub mod echo;
pub mod rtt;
pub mod send_buffer;
pub mod seq;
pub mod tcp;
pub mod series;
pub mod udp;

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
}

/// A unit delivered to the receiving application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub app_seq: u32,
    /// Bytes on the wire of the packet that carried the unit.
    pub bytes: u32,
    pub at: SimTime,
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
}

pub trait SenderEndpoint: Endpoint {
    /// The application hands over a unit; it comes back if the send buffer
    /// is full (a sender drop).
    fn send(&mut self, now: SimTime, unit: AppUnit) -> Result<(), AppUnit>;
}

pub trait ReceiverEndpoint: Endpoint {
    /// Units that reached the application, in delivery order.
    fn poll_deliver(&mut self) -> Option<Delivery>;
}

macro_rules! dispatch {
    ($self:ident, $inner:ident => $e:expr) => {
        match $self {
            Self::Udp($inner) => $e,
            Self::Echo($inner) => $e,
        }
    };
}

/// Sender endpoint, one variant per transport.
#[derive(Debug)]
pub enum Sender {
    Udp(udp::UdpSender),
    Echo(echo::EchoSender),
}

/// Receiver endpoint, one variant per transport.
#[derive(Debug)]
pub enum Receiver {
    Udp(udp::UdpReceiver),
    Echo(echo::EchoReceiver),
}

impl Endpoint for Sender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        dispatch!(self, s => s.handle_packet(now, pkt))
    }
    fn handle_timeout(&mut self, now: SimTime) {
        dispatch!(self, s => s.handle_timeout(now))
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        dispatch!(self, s => s.poll_transmit(now))
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, s => s.poll_timeout())
    }
    fn take_series(&mut self) -> Vec<Sample> {
        dispatch!(self, s => s.take_series())
    }
}

impl SenderEndpoint for Sender {
    fn send(&mut self, now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        dispatch!(self, s => s.send(now, unit))
    }
}

impl Endpoint for Receiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        dispatch!(self, r => r.handle_packet(now, pkt))
    }
    fn handle_timeout(&mut self, now: SimTime) {
        dispatch!(self, r => r.handle_timeout(now))
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        dispatch!(self, r => r.poll_transmit(now))
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        dispatch!(self, r => r.poll_timeout())
    }
    fn take_series(&mut self) -> Vec<Sample> {
        dispatch!(self, r => r.take_series())
    }
}

impl ReceiverEndpoint for Receiver {
    fn poll_deliver(&mut self) -> Option<Delivery> {
        dispatch!(self, r => r.poll_deliver())
    }
}
