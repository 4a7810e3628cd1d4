//! Packets as the network sees them: a size, a destination, the flow they
//! belong to, and a transport header the network never reads.

use crate::time::SimTime;

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

/// "No application unit": the packet carries no voice packet (ACKs etc.).
pub const NO_APP: u32 = u32::MAX;

/// Transport headers. Each transport adds its own variants; the network
/// treats them as opaque. Kept small: packets are copied through queues.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Header {
    /// A datagram with no transport state (UDP, RFC 768).
    Datagram,
    /// Test transport: numbered data and its echo carrying the send time.
    Echo { seq: u64, sent: SimTime },
    EchoAck { seq: u64, echo_sent: SimTime },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: FlowId,
    pub dir: Dir,
    pub dst: NodeId,
    /// Bytes on the wire at the IP layer (headers included).
    pub size: u32,
    /// Index of the application unit carried in its flow's record, or NO_APP.
    pub app_seq: u32,
    pub hdr: Header,
}
