//! The TFRC-based transports: DCCP with CCID 3 (RFC 4342) or CCID 4
//! (RFC 5622), and plain TFRC over a datagram header (RFC 5348 §3.2, as
//! ns-2's Agent/TFRC), sharing one rate-paced sender and one receiver. The
//! rate rules are `cc::tfrc`'s; this module owns the wire: handshake,
//! sequence numbers, CCVal, feedback packets, the send buffer and pacing.

pub mod receiver;
pub mod sender;
pub mod stats;

pub use receiver::RateReceiver;
pub use sender::RateSender;
pub use stats::RateStats;

use crate::cc::tfrc::TfrcConfig;
use crate::net::wire::{IPV4_HEADER, UDP_HEADER};
use crate::time::SimDuration;
use crate::transport::dccp_conn::Closer;

/// The wire format under the TFRC rate rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// DCCP (RFC 4340) with CCID 3 or 4: DCCP-Data packets with CCVal,
    /// feedback in DCCP-Ack options, the window-counter feedback rule.
    Dccp { ccid: u8 },
    /// A datagram header of `header` bytes (IP + UDP + TFRC, RFC 5348
    /// §3.2.1) and feedback packets of `ack` bytes, feedback once per RTT.
    Plain { header: u32, ack: u32 },
}

/// A TFRC-family transport's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct RateConfig {
    pub wire: Wire,
    pub tfrc: TfrcConfig,
    /// Send buffer in packets: 5 (seeds 000 and 003).
    pub send_buffer: u32,
    /// DCCP's Request/Response/Ack handshake before data (RFC 4340 §8.1.1).
    pub handshake: bool,
    /// ECN-capable: data packets carry ECT(0); a CE mark is a loss event
    /// (RFC 4342 §9, RFC 5348 §5).
    pub ecn: bool,
    /// Segment bytes of a greedy (bulk) sender's packets: 1460 B.
    pub packet: u32,
    /// DCCP: send the Loss Intervals option with feedback (RFC 4342 §8.6).
    pub loss_intervals: bool,
    /// First retransmission of an unanswered DCCP-Request: 3 s, Linux's
    /// DCCP_TIMEOUT_INIT. RFC 4340 §8.1.1 suggests "about one second",
    /// which on seed 003's 1 s satellite RTTs would retransmit every
    /// Request and lose the handshake's RTT sample (Karn).
    pub request_timeout: SimDuration,
    /// DCCP: TIMEWAIT after the teardown, 2 MSL = 4 min (RFC 4340 §8.3,
    /// MSL 2 min as TCP's RFC 793).
    pub timewait: SimDuration,
    /// DCCP: which side ends the connection (RFC 4340 §8.3): the client,
    /// with Close (default), or the server, with CloseReq.
    pub closer: Closer,
}

/// RFC 4340 §8.3: TIMEWAIT lasts 2 MSL, 4 minutes.
pub const TIMEWAIT: SimDuration = SimDuration::from_secs(240);

impl RateConfig {
    /// Defaults for DCCP CCID 3 (RFC 4342 over RFC 5348) or CCID 4
    /// (RFC 5622: TFRC-SP with H = 36 bytes, §5).
    pub fn dccp(ccid: u8) -> Self {
        let tfrc = if ccid == 4 { TfrcConfig::default().small_packets(36) } else { TfrcConfig::default() };
        RateConfig { wire: Wire::Dccp { ccid }, tfrc, send_buffer: 5, handshake: true, ecn: false, packet: 1460, loss_intervals: true, request_timeout: SimDuration::from_secs(3), timewait: TIMEWAIT, closer: Closer::Client }
    }

    /// Defaults for plain TFRC: 40-byte data header (20 IP + 8 UDP + 12
    /// TFRC: sequence number, timestamp, RTT), 44-byte feedback (20 + 8 +
    /// 16: echo, delay, X_recv, p), no handshake.
    pub fn plain() -> Self {
        RateConfig {
            wire: Wire::Plain { header: IPV4_HEADER + UDP_HEADER + 12, ack: IPV4_HEADER + UDP_HEADER + 16 },
            tfrc: TfrcConfig::default(),
            send_buffer: 5,
            handshake: false,
            ecn: false,
            packet: 1460,
            loss_intervals: false,
            request_timeout: SimDuration::from_secs(3),
            timewait: TIMEWAIT,
            closer: Closer::Client,
        }
    }
}

#[cfg(test)]
mod tests;
