//! Transport headers as they travel: what a receiving endpoint reads. The
//! network treats them as opaque; each carries what its wire format holds
//! and knows its own size in bytes, options included (the transport adds
//! it to the payload to get the IP packet size). Variable-length options
//! live behind a pointer that is empty in the common case, so a packet
//! without options stays a few dozen bytes and owns no heap memory.

pub mod dccp;
pub mod rtp;
pub mod tcp;

pub use dccp::{DccpHeader, DccpType, TfrcHeader, TfrcOptions};
pub use rtp::{Nack, ReportBlock, Rtcp, RtpHeader, SenderInfo, VoipMetrics};
pub use tcp::{CcReport, SackBlocks, TcpFlags, TcpHeader, TcpOptions, MAX_SACK_BLOCKS, TCP_HEADER, TIMESTAMPS_OPTION, CC_REPORT_OPTION, sack_room};

use crate::time::SimTime;

/// Bytes of an IPv4 header without options (RFC 791).
pub const IPV4_HEADER: u32 = 20;
/// Bytes of a UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;

/// Transport headers. Each transport adds its own variant.
#[derive(Clone, Debug, PartialEq)]
pub enum Header {
    /// A datagram with no transport state (UDP, RFC 768).
    Datagram,
    /// Test transport: numbered data and its echo carrying the send time.
    Echo { seq: u64, sent: SimTime },
    EchoAck { seq: u64, echo_sent: SimTime },
    /// A TCP segment (RFC 9293 §3.1), inline: 40 bytes with its rarely
    /// used options behind a pointer (`TcpHeader::opts`). The whole header
    /// inline (128 bytes) made the UDP dumbbell 4 % slower (callgrind
    /// instructions), boxed it cost an allocation per segment and ACK.
    Tcp(TcpHeader),
    /// A DCCP packet (RFC 4340 §5), boxed like TCP's.
    Dccp(Box<DccpHeader>),
    /// The plain TFRC transport (RFC 5348 §3.2).
    Tfrc(Box<TfrcHeader>),
}

/// What the application wrote above the transport header: nothing the
/// receiver reads (bulk data, control packets), an RTP header (RFC 3550
/// §5.1) on a voice packet, or a compound RTCP packet (§6.1), which the
/// world carries over UDP on the session's control "port" (§11: RTCP on
/// the port after RTP's). RTP headers are inline (12 bytes, `Copy`); RTCP
/// is boxed as its report lists are.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AppHeader {
    #[default]
    None,
    Rtp(RtpHeader),
    Rtcp(Box<Rtcp>),
}

impl AppHeader {
    pub fn rtp(&self) -> Option<RtpHeader> {
        match self {
            AppHeader::Rtp(h) => Some(*h),
            _ => None,
        }
    }
}

impl From<Option<RtpHeader>> for AppHeader {
    fn from(h: Option<RtpHeader>) -> Self {
        h.map_or(AppHeader::None, AppHeader::Rtp)
    }
}
