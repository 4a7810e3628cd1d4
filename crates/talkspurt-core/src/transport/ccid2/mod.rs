//! DCCP with CCID 2 (RFC 4341): TCP-like congestion control over
//! unreliable datagrams. The window is the TCP family's (`cc::Controller`
//! with Reno's adjustment, counted in packets); acknowledgements are Ack
//! Vectors sent every Ack Ratio data packets; there is no retransmission.

pub mod receiver;
pub mod sender;

pub use receiver::Ccid2Receiver;
pub use sender::Ccid2Sender;

use crate::time::SimDuration;
use crate::transport::dccp_conn::Closer;
use crate::transport::rtt::RttConfig;

/// CCID 2's configuration. Defaults and sources per field.
#[derive(Clone, Debug, PartialEq)]
pub struct Ccid2Config {
    /// Send buffer in packets: 5 (seeds 000 and 003).
    pub send_buffer: u32,
    /// The RFC 4340 §8.1 handshake before data.
    pub handshake: bool,
    pub request_timeout: SimDuration,
    /// Segment bytes of a greedy sender: 1460 B.
    pub packet: u32,
    /// Ack Ratio: data packets per acknowledgement, 2 (RFC 4341 §6.1.1,
    /// RFC 4340 §11.3 default); the sender lowers it to ⌈cwnd/2⌉ when the
    /// window is small (RFC 4341 §6.1.2).
    pub ack_ratio: u16,
    /// The receiver acknowledges data left unacknowledged this long: 200 ms
    /// (TCP's delayed-ACK bound of RFC 5681 §4.2; RFC 4341 leaves it open).
    pub ack_delay: SimDuration,
    /// RTO (RFC 4341 §5 follows TCP's RFC 6298: 1 s initial and minimum,
    /// 60 s maximum).
    pub rtt: RttConfig,
    /// ECN: data packets ECT(0), marks reported in the Ack Vector (state 1)
    /// and answered as losses (RFC 4341 §5, RFC 4340 §12). Off.
    pub ecn: bool,
    /// TIMEWAIT after the teardown: 2 MSL = 4 min (RFC 4340 §8.3).
    pub timewait: SimDuration,
    /// Which side ends the connection (RFC 4340 §8.3): the client (Close).
    pub closer: Closer,
}

impl Default for Ccid2Config {
    fn default() -> Self {
        Ccid2Config {
            send_buffer: 5,
            handshake: true,
            request_timeout: SimDuration::from_secs(3),
            packet: 1460,
            ack_ratio: 2,
            ack_delay: SimDuration::from_millis(200),
            rtt: RttConfig {
                initial_rto: SimDuration::from_secs(1),
                min_rto: SimDuration::from_secs(1),
                max_rto: SimDuration::from_secs(60),
                granularity: SimDuration::ZERO,
            },
            ecn: false,
            timewait: crate::transport::tfrc::TIMEWAIT,
            closer: Closer::Client,
        }
    }
}

/// Units of window per packet: the window controller counts bytes, CCID 2
/// counts packets (RFC 4341 §5), so one packet is this many units, enough
/// for Reno's per-ACK increase cwnd += 1/cwnd to keep its remainder.
pub const PKT: u64 = 1000;

