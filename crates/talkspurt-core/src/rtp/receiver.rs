//! The RTP receiver of a call: reception statistics (RFC 3550 A.1, A.3,
//! A.8), Receiver Reports with LSR/DLSR on the regular schedule, and RTCP
//! feedback (RFC 4585): a gap in the sequence numbers is a loss event
//! reported by a Generic NACK in an early compound packet (an empty RR,
//! SDES CNAME, the FB message; §3.1's minimal compound packet), limited by
//! `allow_early` (§3.5.2) or by seed 001's NACK budget, with T_rr_interval
//! suppressing regular reports (§3.5.3). With `xr_voip` every regular
//! report also carries an RTCP XR VoIP Metrics block (RFC 3611 §4.7,
//! `xr.rs`). With `owd` every regular report also carries the mean
//! one-way delay of the packets received since the previous one (an APP
//! packet, `Owd`), what seed 004's AVoIP source reads.

use super::stats::SourceStats;
use super::timing::{Expire, Timing};
use super::xr::BurstGap;
use super::{clock_units, to_q16, AvpfConfig, FbLimit, FbMode, RtcpConfig, RtcpCounters};
use crate::net::wire::{Nack, Rtcp, RtpHeader, SenderInfo, IPV4_HEADER, UDP_HEADER};
use crate::rng::Rng;
use crate::time::SimTime;
use std::collections::VecDeque;

#[derive(Debug)]
struct Avpf {
    cfg: AvpfConfig,
    session_bps: f64,
    allow_early: bool,
    /// Lost sequence numbers waiting for the next packet that can carry them.
    pending: Vec<u16>,
    t_rr_last: SimTime,
    /// Budget: NACK events left in this regular interval.
    tokens: u64,
}

#[derive(Debug)]
pub struct RtpReceiver {
    pub ssrc: u32,
    cname_len: u8,
    clock_rate: u32,
    pub stats: SourceStats,
    /// The sender's SSRC, learnt from its first packet.
    source: Option<u32>,
    /// Middle NTP bits of the last SR and when it arrived.
    last_sr: Option<(u32, SimTime)>,
    timing: Option<Timing>,
    avpf: Option<Avpf>,
    out: VecDeque<Rtcp>,
    pub counters: RtcpCounters,
    /// XR VoIP Metrics state, when configured; with the (extended
    /// sequence, timestamp) of the first and last packets it counted (a
    /// packet's duration for the block's durations).
    xr: Option<BurstGap>,
    xr_span: Option<((u32, u32), (u32, u32))>,
    owd: Option<Owd>,
}

/// One-way delay measured at the receiver (seed 004 §2.1: "single delay
/// estimates can be made on the reception of every RTP packet"), under
/// the clock assumption §2.1 item 1 asks for: sender and receiver clocks
/// aligned (here both read simulated time; the skew is zero). A packet's
/// send time is its RTP timestamp mapped to the sender's clock through the
/// last SR's (NTP, RTP timestamp) pair (RFC 3550 §6.4.1), plus the
/// packet's duration (a packet leaves once its last sample is taken): the
/// timestamp step between consecutive packets of a talkspurt. Before the
/// first SR, or before a duration is known, nothing is measured.
#[derive(Debug, Default)]
struct Owd {
    /// Seconds at the SR's NTP timestamp, and its RTP timestamp.
    sr: Option<(f64, u32)>,
    /// The previous packet's (sequence number, timestamp) and the duration
    /// (timestamp units) of one packet.
    last: Option<(u16, u32)>,
    duration: Option<u32>,
    sum_s: f64,
    n: u32,
}

impl Owd {
    fn on_rtp(&mut self, now: SimTime, h: &RtpHeader, clock_rate: u32) {
        if let Some((seq, ts)) = self.last {
            if h.seq == seq.wrapping_add(1) && !h.marker {
                self.duration = Some(h.ts.wrapping_sub(ts));
            }
        }
        self.last = Some((h.seq, h.ts));
        if let (Some((t_sr, ts_sr)), Some(d)) = (self.sr, self.duration) {
            let sent = t_sr + (h.ts.wrapping_sub(ts_sr) as i32 as f64 + d as f64) / clock_rate as f64;
            self.sum_s += now.as_secs_f64() - sent;
            self.n += 1;
        }
    }

    /// The interval's mean (1/65536 s) for a report, and a new interval.
    fn take(&mut self) -> Option<u32> {
        let mean = (self.n > 0).then(|| (self.sum_s / self.n as f64).max(0.0) * 65536.0);
        (self.sum_s, self.n) = (0.0, 0);
        mean.map(|m| m.round() as u32)
    }
}

impl RtpReceiver {
    pub fn new(clock_rate: u32, rtcp: Option<&RtcpConfig>, start: SimTime, mut rng: Rng) -> Self {
        let ssrc = rng.next_u64() as u32;
        let mut r = RtpReceiver {
            ssrc,
            cname_len: rtcp.map_or(0, |c| c.cname_len),
            clock_rate,
            stats: SourceStats::default(),
            source: None,
            last_sr: None,
            timing: None,
            avpf: None,
            out: VecDeque::new(),
            counters: RtcpCounters::default(),
            xr: rtcp.is_some_and(|c| c.xr_voip).then(BurstGap::default),
            xr_span: None,
            owd: rtcp.is_some_and(|c| c.owd).then(Owd::default),
        };
        if let Some(c) = rtcp {
            // The first report will carry one block (and the XR block).
            let mut first = r.rr(start, false);
            first.blocks.push(Default::default());
            if r.xr.is_some() {
                first.xr = Some(Default::default());
            }
            if r.owd.is_some() {
                first.owd = Some(0);
            }
            r.timing = Some(Timing::new(c, false, start, first.wire_len(), rng));
            r.avpf = c.feedback.map(|cfg| Avpf {
                cfg,
                session_bps: c.session_bps,
                allow_early: true,
                pending: Vec::new(),
                t_rr_last: SimTime::ZERO,
                tokens: 0,
            });
            r.refill();
        }
        r
    }

    /// An RTP packet arrived now. The statistics feed only the reports
    /// and the feedback: with neither (no RTCP, or stopped without
    /// feedback) nothing reads them, and nothing is computed.
    pub fn on_rtp(&mut self, now: SimTime, h: &RtpHeader) {
        if self.timing.is_none() && self.avpf.is_none() {
            return;
        }
        if *self.source.get_or_insert(h.ssrc) != h.ssrc {
            return;
        }
        let before = self.stats.valid().then(|| self.stats.extended_max());
        if !self.stats.update_seq(h.seq) {
            return;
        }
        self.stats.update_jitter(clock_units(now, self.clock_rate) as u32, h.ts);
        if let Some(o) = &mut self.owd {
            o.on_rtp(now, h, self.clock_rate);
        }
        let after = self.stats.extended_max();
        if let Some(x) = &mut self.xr {
            // In order: the skipped numbers are lost, this one received; a
            // late or duplicate packet changes nothing (xr.rs).
            match before {
                Some(b) if after <= b => {}
                Some(b) if after - b < 1 << 15 => {
                    (b + 1..after).for_each(|_| x.lost());
                    x.received();
                }
                _ => x.received(),
            }
            if before.is_none_or(|b| after > b) {
                let first = self.xr_span.map_or((after, h.ts), |s| s.0);
                self.xr_span = Some((first, (after, h.ts)));
            }
        }
        if let (Some(b), Some(_)) = (before, &self.avpf) {
            if after > b.wrapping_add(1) && after - b < 1 << 15 {
                let missing: Vec<u16> = (b + 1..after).map(|s| s as u16).collect();
                self.loss_event(now, missing);
            }
        }
    }

    /// RFC 4585 §3.5.2 for one loss event detected at `now`.
    fn loss_event(&mut self, now: SimTime, missing: Vec<u16>) {
        let a = self.avpf.as_mut().expect("feedback configured");
        self.counters.nack_events += 1;
        let tn = self.timing.as_ref().map_or(SimTime::NEVER, |t| t.tn);
        // T_dither_max is 0 for two members (§3.4) in either mode.
        let te = match a.cfg.mode {
            FbMode::Immediate | FbMode::Early => now,
        };
        match a.cfg.limit {
            FbLimit::Budget { .. } => {
                if a.tokens == 0 {
                    self.counters.nack_suppressed += 1;
                    return;
                }
                a.tokens -= 1;
                a.pending.extend(missing);
                self.send_early(now);
            }
            FbLimit::Rfc4585 => {
                a.pending.extend(missing);
                if !a.allow_early || te >= tn {
                    // Rides on the next regular report.
                    self.counters.nack_suppressed += 1;
                    return;
                }
                self.send_early(now);
                let a = self.avpf.as_mut().expect("feedback configured");
                a.allow_early = false;
                let t = self.timing.as_mut().expect("RTCP configured");
                // tn = tp + 2·T_rr, and tp becomes the previous tn.
                let old_tn = t.tn;
                t.tn = t.tp + t.t_rr.mul(2);
                t.tp = old_tn;
            }
        }
    }

    fn send_early(&mut self, now: SimTime) {
        let mut r = self.rr(now, false);
        let a = self.avpf.as_mut().expect("feedback configured");
        r.nacks = Nack::pack(&std::mem::take(&mut a.pending));
        r.early = true;
        let size = r.wire_len();
        if let Some(t) = &mut self.timing {
            t.count_packet(size);
        }
        self.counters.early_packets += 1;
        self.counters.early_bytes += (size + IPV4_HEADER + UDP_HEADER) as u64;
        self.out.push_back(r);
    }

    /// An RR (with a block once the source is valid when `block`).
    fn rr(&mut self, now: SimTime, block: bool) -> Rtcp {
        let mut blocks = Vec::new();
        if block && self.stats.valid() {
            let (lsr, dlsr) = self.last_sr.map_or((0, 0), |(lsr, at)| (lsr, to_q16(now.saturating_since(at))));
            blocks.push(self.stats.report(self.source.unwrap_or(0), lsr, dlsr));
        }
        let xr = match (&self.xr, block && self.stats.valid()) {
            (Some(x), true) => {
                let loss = self.stats.cum_lost().max(0) as f64 / self.stats.expected().max(1) as f64;
                let ms = self.xr_span.map_or(0.0, |((s0, t0), (s1, t1))| {
                    if s1 > s0 {
                        t1.wrapping_sub(t0) as f64 / (s1 - s0) as f64 * 1e3 / self.clock_rate as f64
                    } else {
                        0.0
                    }
                });
                Some(x.metrics(loss, ms))
            }
            _ => None,
        };
        let owd = match (&mut self.owd, block && self.stats.valid()) {
            (Some(o), true) => o.take(),
            _ => None,
        };
        Rtcp { ssrc: self.ssrc, sender: None, blocks, cname_len: self.cname_len, nacks: vec![], xr, owd, early: false }
    }

    /// Seed 001's budget for the interval that starts now: the events the
    /// fraction of the session bandwidth pays for, one average RTCP packet
    /// each, over the interval until the next regular report.
    fn refill(&mut self) {
        let (Some(a), Some(t)) = (&mut self.avpf, &self.timing) else { return };
        if let FbLimit::Budget { fraction } = a.cfg.limit {
            let bits = fraction * a.session_bps * t.t_rr.as_secs_f64();
            a.tokens = (bits / (8.0 * t.avg_rtcp_size)).floor() as u64;
        }
    }

    /// An SR arrived: remember it for LSR/DLSR.
    pub fn handle_rtcp(&mut self, now: SimTime, r: &Rtcp) {
        if let Some(t) = &mut self.timing {
            t.count_packet(r.wire_len());
        }
        if let Some(SenderInfo { ntp, rtp_ts, .. }) = r.sender {
            self.last_sr = Some(((ntp >> 16) as u32, now));
            if let Some(o) = &mut self.owd {
                o.sr = Some(((ntp >> 32) as f64 + (ntp & 0xffff_ffff) as f64 / 4_294_967_296.0, rtp_ts));
            }
        }
    }

    pub fn handle_timeout(&mut self, now: SimTime) {
        let Some(t) = &mut self.timing else { return };
        if now < t.tn || t.on_expire(now) == Expire::Later {
            return;
        }
        // RFC 4585 §3.5.3: with T_rr_interval, a regular report closer than
        // that to the last one sent is skipped unless feedback waits.
        let skip = self.avpf.as_ref().is_some_and(|a| {
            a.cfg.t_rr_interval.as_nanos() > 0 && a.pending.is_empty() && now.saturating_since(a.t_rr_last) < a.cfg.t_rr_interval
        });
        if skip {
            let t = self.timing.as_mut().expect("timing");
            t.tp = now;
            let d = t.draw();
            t.tn = now + d;
        } else {
            let mut r = self.rr(now, true);
            if let Some(a) = &mut self.avpf {
                r.nacks = Nack::pack(&std::mem::take(&mut a.pending));
                a.t_rr_last = now;
            }
            let size = r.wire_len();
            self.timing.as_mut().expect("timing").sent_regular(now, size);
            self.counters.regular_packets += 1;
            self.counters.regular_bytes += (size + IPV4_HEADER + UDP_HEADER) as u64;
            self.out.push_back(r);
        }
        if let Some(a) = &mut self.avpf {
            a.allow_early = true;
        }
        self.refill();
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.timing.as_ref().map(|t| t.tn)
    }

    pub fn poll_transmit(&mut self) -> Option<Rtcp> {
        self.out.pop_front()
    }

    pub fn stop(&mut self) {
        self.timing = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{kind, StreamId};
    use crate::rtp::Schedule;
    use crate::time::SimDuration;

    /// The one-way delay a regular report relays (`owd`, seed 004 §2.1):
    /// 125 ms packets (1000 timestamp units at 8 kHz) whose first sample is
    /// taken at k·125 ms leave at (k + 1)·125 ms and arrive 40 ms later,
    /// the last four (8–11) 20 ms later still; an SR heard at 0.505 s maps
    /// timestamps to the sender's clock. Before the SR nothing is measured;
    /// the report at 1.6 s carries the mean over packets 3–11: (5·40 +
    /// 4·60)/9 = 48.89 ms, 3204 in 1/65536 s (±1 for rounding). The APP
    /// packet adds 16 bytes.
    #[test]
    fn regular_report_carries_one_way_delay() {
        let cfg = RtcpConfig { schedule: Schedule::Fixed(SimDuration::from_millis(1600)), fraction: 0.05, session_bps: 80_000.0, cname_len: 16, feedback: None, xr_voip: false, owd: true };
        let mut rx = RtpReceiver::new(8_000, Some(&cfg), SimTime::ZERO, Rng::stream(1, 0, StreamId::new(kind::RTP, 1)));
        let ts0 = 12_345u32;
        let ms = |x: u64| SimTime(x * 1_000_000);
        for k in 0..12u64 {
            let arrive = ms((k + 1) * 125 + if k >= 8 { 60 } else { 40 });
            if k == 3 {
                // The SR sent at 0.5 s: NTP time and the RTP clock then.
                let info = SenderInfo { ntp: crate::rtp::ntp(ms(500)), rtp_ts: ts0 + 4_000, packets: 0, octets: 0 };
                let sr = Rtcp { ssrc: 7, sender: Some(info), blocks: vec![], cname_len: 16, nacks: vec![], xr: None, owd: None, early: false };
                rx.handle_rtcp(ms(505), &sr);
            }
            let h = RtpHeader { pt: 0, marker: k == 0, seq: k as u16, ts: ts0 + 1_000 * k as u32, ssrc: 7, pad: 0 };
            rx.on_rtp(arrive, &h);
        }
        rx.handle_timeout(ms(1_600));
        let r = rx.poll_transmit().expect("a regular report");
        let owd = r.owd.expect("the report carries the delay");
        assert!((owd as i64 - 3204).abs() <= 1, "owd {owd}");
        let mut bare = r.clone();
        bare.owd = None;
        assert_eq!(r.wire_len(), bare.wire_len() + 16);
        // The next interval starts empty: no packets, no delay.
        rx.handle_timeout(ms(3_200));
        assert_eq!(rx.poll_transmit().expect("a report").owd, None);
    }

    /// XR VoIP Metrics on a regular report (RFC 3611 §4.7): the loss
    /// pattern of `xr.rs`'s hand-worked case over 20 ms G.711 packets (160
    /// timestamp units each): 20 received, 1 lost, 3, 2 lost, 20, 1 lost,
    /// 30. RFC 3550 A.1's probation starts the counts at the second
    /// packet, for the RR and the XR alike: loss ⌊256·4/76⌋ = 13, burst
    /// density 128 over 120 ms, gap density ⌊256/70⌋ = 3 over 70/2 packets
    /// = 700 ms. Without `xr_voip`, no block;
    /// with it the compound is 44 bytes longer (RFC 3611 §2 header + §4.7
    /// block).
    #[test]
    fn regular_report_carries_voip_metrics() {
        let sizes: Vec<u32> = [false, true]
            .into_iter()
            .map(|xr| {
                let cfg = RtcpConfig { schedule: Schedule::Fixed(SimDuration::from_secs(5)), fraction: 0.05, session_bps: 80_000.0, cname_len: 16, feedback: None, xr_voip: xr, owd: false };
                let mut rx = RtpReceiver::new(8_000, Some(&cfg), SimTime::ZERO, Rng::stream(1, 0, StreamId::new(kind::RTP, 1)));
                let pattern = [(true, 20), (false, 1), (true, 3), (false, 2), (true, 20), (false, 1), (true, 30)];
                let mut seq = 0u16;
                for (got, n) in pattern {
                    for _ in 0..n {
                        if got {
                            let h = RtpHeader { pt: 0, marker: false, seq, ts: 160 * seq as u32, ssrc: 7, pad: 0 };
                            rx.on_rtp(SimTime((20 * seq as u64 + 30) * 1_000_000), &h);
                        }
                        seq += 1;
                    }
                }
                let t = rx.poll_timeout().unwrap().max(SimTime(2_000_000_000));
                rx.handle_timeout(t);
                let r = rx.poll_transmit().expect("a regular report");
                assert_eq!(r.blocks.len(), 1);
                match r.xr {
                    None => assert!(!xr),
                    Some(m) => {
                        assert!(xr);
                        assert_eq!((m.loss_rate, m.burst_density, m.gap_density, m.burst_duration, m.gap_duration), (13, 128, 3, 120, 700));
                    }
                }
                r.wire_len()
            })
            .collect();
        assert_eq!(sizes[1], sizes[0] + 44);
    }
}
