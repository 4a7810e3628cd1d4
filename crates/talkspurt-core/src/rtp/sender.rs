//! The RTP sender of a call: writes each voice packet's RTP header (RFC
//! 3550 §5.1), sends Sender Reports on its schedule (§6.4.1), and turns
//! the receiver's reports and NACKs into `RtcpEvent`s, with the round-trip
//! time from LSR/DLSR (§6.4.1: A − LSR − DLSR).

use super::timing::{Expire, Timing};
use super::{clock_units, ntp, ntp_middle, RtcpConfig, RtcpCounters, RtcpEvent};
use crate::net::wire::{Rtcp, RtpHeader, SenderInfo, IPV4_HEADER, UDP_HEADER};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

/// `RtpSender::owed` when no header is owed (no packet starts at the end
/// of time).
const NONE_OWED: (u64, u64) = (u64::MAX, 0);

#[derive(Debug)]
#[repr(C)]
pub struct RtpSender {
    // What a voice packet on a planned route writes (`skip`, `sent`)
    // first, with the rest of `packetize`'s fields after them: the first
    // `HOT_BYTES` lie in the call's third cache line, `repr(C)` keeps them
    // so (issue 14).
    /// The last packet's first sample time and span (ns) when its header
    /// was not written (`skip`), `NONE_OWED` otherwise: `next_ts` follows
    /// from them only if a later header needs it (issue 26 target 3).
    owed: (u64, u64),
    packets: u32,
    octets: u32,
    /// Next sequence number and the random offsets (§5.1).
    seq: u16,
    pt: u8,
    cname_len: u8,
    clock_rate: u32,
    ts0: u32,
    /// Timestamp just past the previous packet's samples (marker rule).
    next_ts: Option<u32>,
    pub ssrc: u32,
    timing: Option<Timing>,
    out: VecDeque<Rtcp>,
    events: VecDeque<RtcpEvent>,
    pub counters: RtcpCounters,
}

impl RtpSender {
    /// Bytes of the fields a voice packet on a planned route touches, from
    /// the start (the call's layout test, `sim::world`); a packet that
    /// writes its header reads on to `ssrc`.
    pub const HOT_BYTES: usize = std::mem::offset_of!(RtpSender, ts0);

    /// `rtcp`: None sends RTP only. Initial sequence number, timestamp and
    /// SSRC are random (§5.1) from `rng`.
    pub fn new(pt: u8, clock_rate: u32, rtcp: Option<&RtcpConfig>, start: SimTime, mut rng: Rng) -> Self {
        let ssrc = rng.next_u64() as u32;
        let seq = rng.next_u64() as u16;
        let ts0 = rng.next_u64() as u32;
        let cname_len = rtcp.map_or(0, |c| c.cname_len);
        let mut s = RtpSender {
            ssrc,
            pt,
            clock_rate,
            seq,
            ts0,
            next_ts: None,
            owed: NONE_OWED,
            packets: 0,
            octets: 0,
            cname_len,
            timing: None,
            out: VecDeque::new(),
            events: VecDeque::new(),
            counters: RtcpCounters::default(),
        };
        if let Some(c) = rtcp {
            let size = s.report(start).wire_len();
            s.timing = Some(Timing::new(c, true, start, size, rng));
        }
        s
    }

    /// The header of the next packet: `first_sample` is when its first
    /// sample was taken, `samples` how many it carries. The marker is set
    /// when the timestamps are not contiguous: the first packet after a
    /// silence (RFC 3551 §4.1).
    pub fn packetize(&mut self, first_sample: SimTime, samples: u32) -> RtpHeader {
        if self.owed != NONE_OWED {
            self.settle();
        }
        let ts = self.ts0.wrapping_add(clock_units(first_sample, self.clock_rate) as u32);
        let marker = self.next_ts != Some(ts);
        self.next_ts = Some(ts.wrapping_add(samples));
        let h = RtpHeader { pt: self.pt, marker, seq: self.seq, ts, ssrc: self.ssrc, pad: 0 };
        self.seq = self.seq.wrapping_add(1);
        h
    }

    /// `packetize` for a packet whose header nobody reads (a voice packet
    /// that crossed its planned route, `sim/voice.rs`): the sequence
    /// number moves on, and the timestamp arithmetic (two divisions) waits
    /// until a later header needs `next_ts`. `span_ns` is the packet's
    /// length in time, whose clock units are its `samples`.
    #[inline]
    pub fn skip(&mut self, first_sample: SimTime, span_ns: u64) {
        self.owed = (first_sample.0, span_ns);
        self.seq = self.seq.wrapping_add(1);
    }

    /// The `next_ts` the skipped packet's `packetize` would have left.
    #[cold]
    fn settle(&mut self) {
        let (first, span) = self.owed;
        let ts = self.ts0.wrapping_add(clock_units(SimTime(first), self.clock_rate) as u32);
        self.next_ts = Some(ts.wrapping_add(clock_units(SimTime(span), self.clock_rate) as u32));
        self.owed = NONE_OWED;
    }

    /// Payload clock rate (Hz).
    #[inline]
    pub fn clock_rate(&self) -> u32 {
        self.clock_rate
    }

    /// A packet with `payload` octets was handed to the transport (the
    /// SR's counts, §6.4.1).
    pub fn sent(&mut self, payload: u32) {
        self.packets = self.packets.wrapping_add(1);
        self.octets = self.octets.wrapping_add(payload);
    }

    fn report(&self, now: SimTime) -> Rtcp {
        let info = SenderInfo {
            ntp: ntp(now),
            rtp_ts: self.ts0.wrapping_add(clock_units(now, self.clock_rate) as u32),
            packets: self.packets,
            octets: self.octets,
        };
        Rtcp { ssrc: self.ssrc, sender: Some(info), blocks: vec![], cname_len: self.cname_len, nacks: vec![], xr: None, owd: None, early: false }
    }

    /// An RTCP compound packet from the receiver arrived.
    pub fn handle_rtcp(&mut self, now: SimTime, r: &Rtcp) {
        if let Some(t) = &mut self.timing {
            t.count_packet(r.wire_len());
        }
        for b in r.blocks.iter().filter(|b| b.ssrc == self.ssrc) {
            // §6.4.1: RTT = A − LSR − DLSR in units of 1/65536 s.
            let rtt_s = (b.lsr != 0).then(|| ntp_middle(now).wrapping_sub(b.lsr).wrapping_sub(b.dlsr) as f64 / 65536.0);
            self.events.push_back(RtcpEvent::Report {
                fraction_lost: b.fraction_lost as f64 / 256.0,
                cum_lost: b.cum_lost,
                jitter_s: b.jitter as f64 / self.clock_rate as f64,
                rtt_s,
                owd_s: r.owd.map(|d| d as f64 / 65536.0),
            });
        }
        let lost: u32 = r.nacks.iter().map(|n| n.lost().count() as u32).sum();
        if lost > 0 {
            self.events.push_back(RtcpEvent::Nack { lost });
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime) {
        let Some(t) = &mut self.timing else { return };
        if now < t.tn || t.on_expire(now) == Expire::Later {
            return;
        }
        let r = self.report(now);
        let size = r.wire_len();
        self.timing.as_mut().expect("timing").sent_regular(now, size);
        self.counters.regular_packets += 1;
        self.counters.regular_bytes += (size + IPV4_HEADER + UDP_HEADER) as u64;
        self.out.push_back(r);
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.timing.as_ref().map(|t| t.tn)
    }

    pub fn poll_transmit(&mut self) -> Option<Rtcp> {
        self.out.pop_front()
    }

    pub fn poll_event(&mut self) -> Option<RtcpEvent> {
        self.events.pop_front()
    }

    /// Stop reporting (the call is over).
    pub fn stop(&mut self) {
        self.timing = None;
    }
}
