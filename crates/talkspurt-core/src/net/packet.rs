//! Packets as the network sees them: a size, a destination, the flow they
//! belong to, the IP ECN field, and a transport header the network never
//! reads (`wire`).

pub use super::wire::{AppHeader, Header, SackBlocks, TcpFlags, TcpHeader};

pub type NodeId = u32;
pub type FlowId = u32;

/// Which endpoint of a flow a packet is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Sender → receiver (data).
    Forward,
    /// Receiver → sender (acknowledgements, feedback, reports).
    Reverse,
}

/// "No application unit": the packet carries no voice packet (ACKs,
/// byte-stream segments, etc.).
pub const NO_APP: u32 = u32::MAX;

/// The IP header's ECN field (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct = 0,
    /// ECN-capable transport, ECT(0).
    Ect0 = 2,
    /// Congestion experienced, set by an AQM instead of dropping.
    Ce = 3,
}

/// A packet in the network. Not `Copy`: a transport header may own option
/// blocks (SACK, Ack Vectors, report lists) on the heap; the common headers
/// (datagram, TCP without SACK) own nothing, so moving a packet through a
/// queue stays a plain copy of its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    pub flow: FlowId,
    pub dir: Dir,
    pub ecn: Ecn,
    pub dst: NodeId,
    /// Bytes on the wire at the IP layer (headers included).
    pub size: u32,
    /// Index of the application unit carried in its flow's record, or NO_APP.
    pub app_seq: u32,
    pub hdr: Header,
    /// The application's header inside the payload (RTP, RTCP).
    pub app: AppHeader,
}
