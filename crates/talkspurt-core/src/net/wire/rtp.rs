//! RTP and RTCP headers (RFC 3550 §5.1, §6.4; RFC 4585 §6.2.1; RFC 3611
//! §4.7) as the application layer writes them into a transport's payload.
//! The network never reads them; the RTP session at the other end does.
//! Fields keep their wire meaning and width (16-bit sequence numbers,
//! 32-bit timestamps, 8-bit fixed-point fraction lost, 24-bit cumulative
//! loss, NTP-format middle 32 bits), so the receiver's arithmetic is the
//! RFC's, wrap-around included.

/// Fixed RTP header without CSRCs (RFC 3550 §5.1).
pub const RTP_HEADER: u32 = 12;
/// RTCP common header (RFC 3550 §6.4.1: V/P/RC, PT, length).
pub const RTCP_COMMON: u32 = 4;
/// SR: common header, SSRC, 20-byte sender info (RFC 3550 §6.4.1).
pub const RTCP_SR_BASE: u32 = 28;
/// RR: common header and SSRC (RFC 3550 §6.4.2).
pub const RTCP_RR_BASE: u32 = 8;
/// One reception report block (RFC 3550 §6.4.1).
pub const RTCP_REPORT_BLOCK: u32 = 24;
/// Transport-layer FB message header: common header, sender SSRC, media
/// SSRC (RFC 4585 §6.1); each Generic NACK FCI adds 4 (§6.2.1).
pub const RTCP_FB_BASE: u32 = 12;
pub const RTCP_NACK_FCI: u32 = 4;
/// XR header (4 + SSRC) and the VoIP Metrics block (RFC 3611 §2, §4.7).
pub const RTCP_XR_BASE: u32 = 8;
pub const RTCP_XR_VOIP: u32 = 36;
/// An APP packet (RFC 3550 §6.7) with 4 bytes of data: common header,
/// SSRC, name, data.
pub const RTCP_APP_OWD: u32 = 16;

/// The fixed RTP header fields a receiver uses. Version 2, no extension or
/// CSRCs; padding only where `pad` says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RtpHeader {
    /// Payload type (RFC 3551 Table 4: PCMU 0, G729 18; dynamic ≥ 96).
    pub pt: u8,
    /// First packet of a talkspurt (RFC 3551 §4.1).
    pub marker: bool,
    pub seq: u16,
    /// Sampling instant of the first octet, in the payload's clock.
    pub ts: u32,
    pub ssrc: u32,
    /// Octets of RTP padding ending the payload (RFC 3550 §5.1: the P bit
    /// is set and the last octet counts the padding, itself included, so
    /// at most 255); 0: none. Padding is not media: a transport that sizes
    /// its rate equation by the segment leaves it out (`tfrc-codec`'s
    /// `pad`).
    pub pad: u8,
}

/// Sender info of an SR (RFC 3550 §6.4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderInfo {
    /// NTP timestamp, 32.32 fixed point (seconds since the session's
    /// epoch: simulated time 0).
    pub ntp: u64,
    pub rtp_ts: u32,
    pub packets: u32,
    pub octets: u32,
}

impl SenderInfo {
    /// The middle 32 bits, which an RR echoes as LSR.
    pub fn ntp_middle(&self) -> u32 {
        (self.ntp >> 16) as u32
    }
}

/// A reception report block (RFC 3550 §6.4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReportBlock {
    pub ssrc: u32,
    /// Fraction lost since the previous report, 8-bit fixed point (/256).
    pub fraction_lost: u8,
    /// Cumulative number lost, 24-bit signed (duplicates can make it < 0).
    pub cum_lost: i32,
    pub ext_high_seq: u32,
    /// Interarrival jitter in timestamp units.
    pub jitter: u32,
    /// Middle 32 bits of the last SR's NTP timestamp (0: none yet).
    pub lsr: u32,
    /// Delay since that SR, units of 1/65536 s.
    pub dlsr: u32,
}

/// A Generic NACK FCI (RFC 4585 §6.2.1): packet `pid` and a bitmask of the
/// 16 following (bit i set: pid + i + 1 lost too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nack {
    pub pid: u16,
    pub blp: u16,
}

impl Nack {
    /// The sequence numbers this FCI reports lost.
    pub fn lost(&self) -> impl Iterator<Item = u16> + '_ {
        std::iter::once(self.pid)
            .chain((0..16).filter(move |i| self.blp & (1 << i) != 0).map(move |i| self.pid.wrapping_add(i + 1)))
    }

    /// Pack ascending sequence numbers into FCIs (RFC 4585 §6.2.1).
    pub fn pack(seqs: &[u16]) -> Vec<Nack> {
        let mut out: Vec<Nack> = Vec::new();
        for &s in seqs {
            if let Some(n) = out.last_mut() {
                let d = s.wrapping_sub(n.pid);
                if (1..=16).contains(&d) {
                    n.blp |= 1 << (d - 1);
                    continue;
                }
            }
            out.push(Nack { pid: s, blp: 0 });
        }
        out
    }
}

/// RTCP XR VoIP Metrics (RFC 3611 §4.7): the fields a sender can act on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VoipMetrics {
    /// Loss and discard rates, 8-bit fixed point (/256).
    pub loss_rate: u8,
    pub discard_rate: u8,
    /// Burst/gap densities (/256) and durations (ms).
    pub burst_density: u8,
    pub gap_density: u8,
    pub burst_duration: u16,
    pub gap_duration: u16,
    /// Round-trip delay (ms) as the reporter last measured it.
    pub round_trip_delay: u16,
}

/// One compound RTCP packet (RFC 3550 §6.1): an SR or RR first, SDES with
/// CNAME, then optional feedback (RFC 4585) and XR (RFC 3611) parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Rtcp {
    pub ssrc: u32,
    /// Present: an SR; absent: an RR.
    pub sender: Option<SenderInfo>,
    pub blocks: Vec<ReportBlock>,
    /// Bytes of the CNAME item's text.
    pub cname_len: u8,
    /// Generic NACK FCIs (one FB message), empty when absent.
    pub nacks: Vec<Nack>,
    pub xr: Option<VoipMetrics>,
    /// Mean one-way delay of the packets received since the previous
    /// report, in 1/65536 s, carried in an APP packet named "OWDM" (RFC
    /// 3550 §6.7): seed 004's receivers relay their delay measurements to
    /// the AVoIP source (§2.1–2.2). None: no APP packet.
    pub owd: Option<u32>,
    /// Sent outside the regular schedule (RFC 4585 §3.5.2 early packet).
    pub early: bool,
}

impl Rtcp {
    /// Bytes of the compound packet above UDP.
    pub fn wire_len(&self) -> u32 {
        let head = if self.sender.is_some() { RTCP_SR_BASE } else { RTCP_RR_BASE };
        let blocks = RTCP_REPORT_BLOCK * self.blocks.len() as u32;
        // SDES: common header, one chunk: SSRC, CNAME item (type, length,
        // text), a null terminator, padded to 32 bits (RFC 3550 §6.5).
        let sdes = RTCP_COMMON + (4 + 2 + self.cname_len as u32 + 1).div_ceil(4) * 4;
        let fb = if self.nacks.is_empty() { 0 } else { RTCP_FB_BASE + RTCP_NACK_FCI * self.nacks.len() as u32 };
        let xr = if self.xr.is_some() { RTCP_XR_BASE + RTCP_XR_VOIP } else { 0 };
        let app = if self.owd.is_some() { RTCP_APP_OWD } else { 0 };
        head + blocks + sdes + fb + xr + app
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3550 §6.4: an RR with one block is 8 + 24 = 32 bytes; SDES with
    /// a 17-byte CNAME is 4 + (4 + 2 + 17 + 1 = 24) = 28; an SR with one
    /// block is 28 + 24 = 52. RFC 4585 §6.2.1: one NACK FCI makes a 16-byte
    /// FB message.
    #[test]
    fn sizes() {
        let mut r = Rtcp { ssrc: 1, sender: None, blocks: vec![ReportBlock::default()], cname_len: 17, nacks: vec![], xr: None, owd: None, early: false };
        assert_eq!(r.wire_len(), 32 + 28);
        r.sender = Some(SenderInfo::default());
        assert_eq!(r.wire_len(), 52 + 28);
        r.nacks = vec![Nack { pid: 1, blp: 0 }];
        assert_eq!(r.wire_len(), 52 + 28 + 16);
        r.xr = Some(VoipMetrics::default());
        assert_eq!(r.wire_len(), 52 + 28 + 16 + 44);
        // RFC 3550 §6.7: an APP packet with one word of data is 16 bytes.
        r.owd = Some(1 << 16);
        assert_eq!(r.wire_len(), 52 + 28 + 16 + 44 + 16);
    }

    #[test]
    fn nack_packing_and_wrap() {
        let n = Nack::pack(&[10, 11, 13, 26, 27, 65535, 0, 2]);
        assert_eq!(n, vec![Nack { pid: 10, blp: 0x8005 }, Nack { pid: 27, blp: 0 }, Nack { pid: 65535, blp: 0b101 }]);
        let all: Vec<u16> = n.iter().flat_map(|x| x.lost().collect::<Vec<_>>()).collect();
        assert_eq!(all, vec![10, 11, 13, 26, 27, 65535, 0, 2]);
    }
}
