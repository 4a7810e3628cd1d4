//! RTP (RFC 3550) above a transport: the sender's packetizer and the
//! reception statistics, compound RTCP reports (SR/RR with SDES CNAME) on
//! the reverse path, their timing (§6.2–6.3 or a fixed period), RTCP
//! feedback (RFC 4585 AVPF: Generic NACKs, immediate/early modes,
//! T_rr_interval, a feedback budget), optionally RTCP XR VoIP Metrics
//! (RFC 3611 §4.7) on the receiver's reports, and the events an adaptive sender
//! hears (`RtcpEvent`). Sans-IO like the transports: sessions take `now`,
//! queue what they send (`poll_transmit`) and name their next deadline
//! (`poll_timeout`). Models and readings: docs/models/rtp.md.

pub mod interval;
pub mod receiver;
pub mod sender;
pub mod stats;
pub mod timing;
pub mod xr;

pub use interval::Schedule;
pub use receiver::RtpReceiver;
pub use sender::RtpSender;

use crate::time::{SimDuration, SimTime};

/// AVPF feedback timing (RFC 4585 §3.2, §3.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FbMode {
    /// Immediate Feedback mode: every event may be reported at once.
    Immediate,
    /// Early RTCP mode: early packets are dithered by T_dither_max, which
    /// is 0 in a point-to-point session (§3.4), so for one call the two
    /// modes send at the same instants.
    Early,
}

/// What bounds early feedback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FbLimit {
    /// RFC 4585 §3.5.2: one early packet, then none until the next
    /// regular report (allow_early); held feedback rides on that report.
    Rfc4585,
    /// Seed 001 (§4.5.2): NACK events cost one average RTCP packet each
    /// out of `fraction` of the session bandwidth per regular interval;
    /// when none are left the event is not reported (the regular reports
    /// carry the loss).
    Budget { fraction: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvpfConfig {
    pub mode: FbMode,
    /// Minimal spacing of regular reports (RFC 4585 §3.5.3); 0: none.
    pub t_rr_interval: SimDuration,
    pub limit: FbLimit,
}

/// RTCP for one call.
#[derive(Clone, Debug, PartialEq)]
pub struct RtcpConfig {
    pub schedule: Schedule,
    /// RTCP's share of the session bandwidth (RFC 3550 §6.2: 5 %).
    pub fraction: f64,
    /// Session bandwidth, bit/s, IP/UDP/RTP headers included (§6.2).
    pub session_bps: f64,
    /// Bytes of the SDES CNAME text.
    pub cname_len: u8,
    pub feedback: Option<AvpfConfig>,
    /// Receiver Reports carry an XR VoIP Metrics block (RFC 3611 §4.7).
    pub xr_voip: bool,
    /// Receiver Reports carry the mean one-way delay of the packets
    /// received since the previous report (an APP packet, `Rtcp::owd`):
    /// what seed 004's AVoIP source reads (§2.1–2.2).
    pub owd: bool,
}

/// What the RTP sender hears from the receiver's RTCP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RtcpEvent {
    /// A reception report block about our stream (RFC 3550 §6.4.1).
    Report {
        /// Fraction lost since the previous report, 0–1 (the 8-bit field / 256).
        fraction_lost: f64,
        cum_lost: i32,
        /// Interarrival jitter, seconds.
        jitter_s: f64,
        /// Round-trip time from LSR/DLSR (§6.4.1), once an SR was echoed.
        rtt_s: Option<f64>,
        /// Mean one-way delay the receiver measured over the interval
        /// (seconds), when its report carries one (`RtcpConfig::owd`).
        owd_s: Option<f64>,
    },
    /// A Generic NACK (RFC 4585 §6.2.1) listing `lost` packets.
    Nack { lost: u32 },
}

/// RTCP bytes a session sent, for the overhead columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RtcpCounters {
    pub regular_packets: u64,
    /// IP bytes of regular compound packets.
    pub regular_bytes: u64,
    pub early_packets: u64,
    pub early_bytes: u64,
    /// Loss events reported by NACK, and those the limit suppressed.
    pub nack_events: u64,
    pub nack_suppressed: u64,
}

/// NTP 32.32 timestamp of a simulated instant (epoch: simulated time 0).
pub fn ntp(t: SimTime) -> u64 {
    let ns = t.as_nanos() as u128;
    (((ns / 1_000_000_000) << 32) | (((ns % 1_000_000_000) << 32) / 1_000_000_000)) as u64
}

/// The middle 32 bits of the NTP timestamp (units of 1/65536 s).
pub fn ntp_middle(t: SimTime) -> u32 {
    (ntp(t) >> 16) as u32
}

/// A duration in units of 1/65536 s (DLSR), truncated.
pub fn to_q16(d: SimDuration) -> u32 {
    ((d.as_nanos() as u128 * 65536) / 1_000_000_000) as u32
}

/// An instant in a payload clock of `rate` Hz (RTP timestamp units from
/// simulated time 0), truncated; the arithmetic of A.8's arrival clock.
#[inline]
pub fn clock_units(t: SimTime, rate: u32) -> u64 {
    // In u64 while the product fits (26 days at 8 kHz): a hardware
    // division instead of the 128-bit library call, the same integer.
    match t.as_nanos().checked_mul(rate as u64) {
        Some(p) => p / 1_000_000_000,
        None => ((t.as_nanos() as u128 * rate as u128) / 1_000_000_000) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NTP's middle 32 bits: 1.5 s = 0x0001_8000; DLSR of 0.25 s = 16384.
    #[test]
    fn ntp_fields() {
        assert_eq!(ntp(SimTime(1_500_000_000)), (1u64 << 32) | (1u64 << 31));
        assert_eq!(ntp_middle(SimTime(1_500_000_000)), 0x0001_8000);
        assert_eq!(to_q16(SimDuration::from_millis(250)), 16384);
        assert_eq!(clock_units(SimTime(20_000_000), 8000), 160);
    }

    #[test]
    fn clock_units_agree_across_the_u64_limit() {
        // Either side of the product's u64 overflow, against 128-bit math.
        for rate in [8000u32, 16_000, 48_000, 90_000, u32::MAX] {
            let edge = u64::MAX / rate as u64;
            for t in [0, 1, 999_999_999, edge - 1, edge, edge + 1, u64::MAX / 2, u64::MAX] {
                let want = (t as u128 * rate as u128 / 1_000_000_000) as u64;
                assert_eq!(clock_units(SimTime(t), rate), want, "t {t}, rate {rate}");
            }
        }
    }
}
