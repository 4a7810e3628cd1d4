//! DCCP headers (RFC 4340 §5) with the options CCID 2/3/4 exchange, and the
//! header of the plain TFRC transport (RFC 5348 §3.2). Each knows its size
//! on the wire; the values of rates and times are kept as numbers rather
//! than their encoded integers (their encodings only decide the sizes).

use crate::time::{SimDuration, SimTime};

/// Generic header with 48-bit sequence numbers, X = 1 (RFC 4340 §5.1).
pub const DCCP_GENERIC: u32 = 16;
/// Acknowledgement Number subheader with X = 1 (RFC 4340 §5.3).
pub const DCCP_ACK_SUBHEADER: u32 = 8;
/// Service Code of Request and Response (RFC 4340 §5.4, §5.5).
pub const DCCP_SERVICE_CODE: u32 = 4;
/// Reset Code and data bytes (RFC 4340 §5.6).
pub const DCCP_RESET_CODE: u32 = 4;
/// Receive Rate option (RFC 4342 §8.3): type, length, 4 bytes.
pub const OPT_RECEIVE_RATE: u32 = 6;
/// Loss Event Rate option (RFC 4342 §8.5).
pub const OPT_LOSS_EVENT_RATE: u32 = 6;
/// Change R option carrying the Ack Ratio feature (RFC 4340 §6.1, §11.3):
/// type, length, feature number, 2-byte value.
pub const OPT_CHANGE_ACK_RATIO: u32 = 5;
/// Ack Vector bytes for `cells` run-length cells (RFC 4340 §11.4): type,
/// length, then one byte per cell.
pub const fn opt_ack_vector(cells: u32) -> u32 {
    2 + cells
}
/// Packets one Ack Vector cell can describe (6-bit run length + 1).
pub const ACK_VECTOR_RUN: u64 = 64;
/// Loss Intervals option (RFC 4342 §8.6): type, length, skip length, then
/// 9 bytes per interval.
pub const fn opt_loss_intervals(n: u32) -> u32 {
    3 + 9 * n
}
/// Elapsed Time option (RFC 4340 §13.2): 4 bytes for values below
/// 0.65536 s (2-byte field in units of 10 µs), 6 bytes otherwise.
pub fn opt_elapsed(t: SimDuration) -> u32 {
    if t.as_nanos() < 655_360_000 {
        4
    } else {
        6
    }
}

/// DCCP packet types (RFC 4340 §5.1, Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DccpType {
    Request,
    Response,
    Data,
    Ack,
    DataAck,
    CloseReq,
    Close,
    Reset,
}

impl DccpType {
    /// Types with an Acknowledgement Number subheader (RFC 4340 §5.3).
    pub fn has_ack(self) -> bool {
        !matches!(self, DccpType::Request | DccpType::Data)
    }
    pub fn carries_data(self) -> bool {
        matches!(self, DccpType::Data | DccpType::DataAck)
    }
}

/// CCID 3/4 receiver feedback options (RFC 4342 §8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcOptions {
    /// Elapsed Time since the acknowledged packet arrived.
    pub elapsed: SimDuration,
    /// Receive Rate, bytes/s.
    pub x_recv: f64,
    /// Loss Event Rate.
    pub p: f64,
    /// Loss intervals listed in the Loss Intervals option (0: none sent).
    pub intervals: u8,
}

/// A DCCP header and its options.
#[derive(Clone, Debug, PartialEq)]
pub struct DccpHeader {
    pub ptype: DccpType,
    /// Every packet has a sequence number (RFC 4340 §7.1).
    pub seq: u64,
    /// Greatest sequence number received (types with the ack subheader).
    pub ack: u64,
    /// CCID 3 window counter, 4 bits (RFC 4342 §8.1).
    pub ccval: u8,
    pub tfrc: Option<TfrcOptions>,
    /// Bytes of Ack Vector option (type, length and run-length cells,
    /// RFC 4340 §11.4), 0 when absent.
    pub ack_vector: u16,
    /// The received sequence ranges `[start, end)` the Ack Vector encodes
    /// (CCID 2), most recent last; empty when absent.
    pub received: Vec<(u64, u64)>,
    /// Of those, the ones received ECN-marked (Ack Vector state 1, RFC 4340
    /// §11.4), ascending.
    pub marked: Vec<u64>,
    /// A Change R option for the Ack Ratio feature (RFC 4340 §6, §11.3),
    /// 0 when absent.
    pub ack_ratio: u16,
    /// Reset Code of a Reset (RFC 4340 §5.6): 1 "Closed", 3 "No
    /// Connection"; 0 on other types.
    pub reset_code: u8,
}

impl DccpHeader {
    pub fn new(ptype: DccpType, seq: u64) -> Self {
        DccpHeader { ptype, seq, ack: 0, ccval: 0, tfrc: None, ack_vector: 0, received: Vec::new(), marked: Vec::new(), ack_ratio: 0, reset_code: 0 }
    }

    /// Header bytes including options, padded to a multiple of 4
    /// (RFC 4340 §5.8: Data Offset counts 32-bit words).
    pub fn wire_len(&self) -> u32 {
        let mut n = DCCP_GENERIC;
        if self.ptype.has_ack() {
            n += DCCP_ACK_SUBHEADER;
        }
        n += match self.ptype {
            DccpType::Request | DccpType::Response => DCCP_SERVICE_CODE,
            DccpType::Reset => DCCP_RESET_CODE,
            _ => 0,
        };
        let mut opts = self.ack_vector as u32;
        if self.ack_ratio > 0 {
            opts += OPT_CHANGE_ACK_RATIO;
        }
        if let Some(t) = &self.tfrc {
            opts += opt_elapsed(t.elapsed) + OPT_RECEIVE_RATE + OPT_LOSS_EVENT_RATE;
            if t.intervals > 0 {
                opts += opt_loss_intervals(t.intervals as u32);
            }
        }
        n + opts.div_ceil(4) * 4
    }
}

/// The plain TFRC transport's header (RFC 5348 §3.2): data packets carry a
/// sequence number, a timestamp and the sender's RTT estimate; feedback
/// packets echo the timestamp with the delay since, the receive rate and
/// the loss event rate. Sizes are the transport's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TfrcHeader {
    Data { seq: u64, sent: SimTime, rtt: SimDuration },
    Feedback { t_recvdata: SimTime, t_delay: SimDuration, x_recv: f64, p: f64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4340 §5: Request 16 + 4 = 20; Response 16 + 8 + 4 = 28; Data 16;
    /// Ack 24. A CCID 3 feedback Ack with Elapsed Time (4), Receive Rate
    /// (6), Loss Event Rate (6) = 16 option bytes → 40; with a Loss
    /// Intervals option of 2 intervals (3 + 18 = 21) → 37 option bytes,
    /// padded to 40 → 64.
    #[test]
    fn sizes() {
        assert_eq!(DccpHeader::new(DccpType::Request, 0).wire_len(), 20);
        assert_eq!(DccpHeader::new(DccpType::Response, 0).wire_len(), 28);
        assert_eq!(DccpHeader::new(DccpType::Data, 0).wire_len(), 16);
        assert_eq!(DccpHeader::new(DccpType::Ack, 0).wire_len(), 24);
        // RFC 4340 §5.5, §5.6: Close is the generic header and the ack
        // subheader; Reset adds Reset Code and three data bytes.
        assert_eq!(DccpHeader::new(DccpType::Close, 0).wire_len(), 24);
        assert_eq!(DccpHeader::new(DccpType::CloseReq, 0).wire_len(), 24);
        assert_eq!(DccpHeader::new(DccpType::Reset, 0).wire_len(), 28);
        let mut h = DccpHeader::new(DccpType::Ack, 0);
        h.tfrc = Some(TfrcOptions { elapsed: SimDuration::from_millis(1), x_recv: 1.0, p: 0.0, intervals: 0 });
        assert_eq!(h.wire_len(), 40);
        h.tfrc = Some(TfrcOptions { elapsed: SimDuration::from_millis(1), x_recv: 1.0, p: 0.1, intervals: 2 });
        assert_eq!(h.wire_len(), 64);
        // An elapsed time of 1 s needs the 4-byte field: 6 + 6 + 6 = 18 → 20.
        h.tfrc = Some(TfrcOptions { elapsed: SimDuration::from_secs(1), x_recv: 1.0, p: 0.0, intervals: 0 });
        assert_eq!(h.wire_len(), 44);
    }
}
