//! The data-sending TCP endpoint: handshake, segmentation, Nagle, the
//! window, the retransmission timer and restart after idle. ACK processing
//! and loss recovery are in `recovery.rs`.
//!
//! Sequence numbers are stream offsets of data bytes from 0; SYN and FIN
//! are control segments outside that space (docs/models/tcp.md).

use super::config::{IdleRestart, SendLimit, TcpConfig};
use super::scoreboard::Sums;
use crate::cc::{CcAlgorithm, Controller, Recovery, WindowController};
use crate::net::wire::{Header, TcpFlags, TcpHeader, IPV4_HEADER, TCP_HEADER};
use crate::net::{Ecn, Packet, NO_APP};
use crate::time::SimTime;
use crate::transport::rtt::{RttConfig, RttEstimator};
use crate::transport::seq::RangeSet;
use crate::transport::{AppEvent, AppUnit, Endpoint, FlowAddr, Sample, SenderEndpoint, SeriesBuf};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Conn {
    /// Nothing sent yet (handshake pending).
    Closed,
    SynSent { sent: SimTime, retried: bool },
    Established,
}

/// One transmitted segment awaiting acknowledgement (the retransmission
/// queue): for Karn's rule and the SACK scoreboard.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seg {
    pub start: u64,
    pub end: u64,
    pub sent: SimTime,
    /// Retransmitted at least once: gives no RTT sample (RFC 6298 §3).
    pub rexmit: bool,
    /// Wholly SACKed (scoreboard.rs).
    pub sacked: bool,
}

/// Counters for the traffic table: over the whole connection and over the
/// measurement interval (`[analysis] interval`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpStats {
    pub total: TcpCounters,
    pub interval: TcpCounters,
    pub window: (SimTime, SimTime),
}

impl TcpStats {
    /// Applies `f` to the totals, and to the interval's counters when `now`
    /// lies in the measurement interval.
    pub fn count(&mut self, now: SimTime, f: impl Fn(&mut TcpCounters)) {
        f(&mut self.total);
        if now >= self.window.0 && now < self.window.1 {
            f(&mut self.interval);
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpCounters {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub rtt_sum_ns: u128,
    pub rtt_samples: u64,
    /// Sum of the (unbacked-off) RTO after each sample: its mean is the
    /// base timeout T0 of throughput models.
    pub rto_sum_ns: u128,
}

#[derive(Debug)]
pub struct TcpSender {
    pub(super) addr: FlowAddr,
    pub(super) cfg: TcpConfig,
    /// Data bytes of a full segment, `TcpConfig::smss` (RFC 6691 §2, RFC
    /// 5681 §2): mss less the timestamps option when it is on.
    pub(super) smss: u64,
    pub(super) recovery_kind: Recovery,
    pub(super) conn: Conn,
    /// Bytes the application has written (the stream's end), unless greedy.
    pub(super) written: u64,
    pub(super) greedy: bool,
    /// Ends of writes and their application units, oldest first, until
    /// their last byte is first sent.
    pub(super) writes: VecDeque<(u64, u32)>,
    pub(super) snd_una: u64,
    pub(super) snd_nxt: u64,
    pub(super) snd_max: u64,
    /// Peer's advertised window.
    pub(super) rwnd: u64,
    pub(super) cc: Controller,
    pub(super) rtt: RttEstimator,
    pub(super) segs: VecDeque<Seg>,
    pub(super) rto_at: SimTime,
    // Loss recovery (recovery.rs).
    pub(super) dupacks: u32,
    /// New data sent beyond cwnd by limited transmit (RFC 3042) since
    /// snd_una last advanced: left out of FlightSize when ssthresh is set
    /// (RFC 5681 §3.2 step 2).
    pub(super) lt_sent: u64,
    pub(super) in_recovery: bool,
    /// RFC 6582 `recover`: highest sequence sent when recovery began.
    pub(super) recover: u64,
    /// `recover` was set by a timeout, not a fast retransmit.
    pub(super) recover_after_rto: bool,
    /// When the retransmission timer last expired (ZERO: never). Only a
    /// segment sent at or after it may give an RTT sample (RFC 6298 §5).
    pub(super) last_rto: SimTime,
    pub(super) partial_seen: bool,
    /// Retransmit the segment at this offset next.
    pub(super) rexmit_at: Option<u64>,
    /// SACK scoreboard (RFC 6675 §2) and HighRxt.
    pub(super) sacked: RangeSet,
    pub(super) high_rxt: u64,
    /// The scoreboard's running sums over `segs` (scoreboard.rs).
    pub(super) sums: Sums,
    /// Parts of the SACK blocks of one ACK new to `sacked` (reused).
    pub(super) sack_new: Vec<(u64, u64)>,
    // ECN (RFC 3168 §6.1.2).
    pub(super) ecn_recover: u64,
    /// New ACKs left that check Vegas' fine-grained timeout (recovery.rs).
    pub(super) vegas_checks: u8,
    pub(super) send_cwr: bool,
    /// TCP-Real's waves: the first offset of the current sender round
    /// (it ends when that segment is acknowledged) and rounds so far.
    wave_round: Option<u64>,
    wave_rounds: u32,
    pub(super) last_activity: SimTime,
    pub(super) events: VecDeque<AppEvent>,
    /// Where the oldest write in `writes` starts in the stream, and the
    /// header bytes of first transmissions not yet given to a write
    /// (`writes_sent`).
    write_start: u64,
    wire_owed: u64,
    pub stats: TcpStats,
    syn_retries: u32,
    /// The application opened the connection before writing (`connect`).
    connect_asked: bool,
    pub(super) series: SeriesBuf,
}

impl TcpSender {
    pub fn new(addr: FlowAddr, cfg: TcpConfig, cc: Controller, series: bool) -> Self {
        let smss = cfg.smss();
        let rtt = RttEstimator::new(RttConfig {
            initial_rto: cfg.initial_rto,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            granularity: cfg.granularity,
        });
        let conn = if cfg.handshake { Conn::Closed } else { Conn::Established };
        TcpSender {
            addr,
            recovery_kind: cfg.recovery(),
            rwnd: cfg.rcv_window,
            cfg,
            smss,
            conn,
            written: 0,
            greedy: false,
            writes: VecDeque::new(),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cc,
            rtt,
            segs: VecDeque::new(),
            rto_at: SimTime::NEVER,
            dupacks: 0,
            lt_sent: 0,
            in_recovery: false,
            recover: 0,
            recover_after_rto: false,
            last_rto: SimTime::ZERO,
            partial_seen: false,
            rexmit_at: None,
            sacked: RangeSet::new(),
            high_rxt: 0,
            sums: Sums::default(),
            sack_new: Vec::new(),
            ecn_recover: 0,
            vegas_checks: 0,
            send_cwr: false,
            wave_round: None,
            wave_rounds: 0,
            last_activity: SimTime::ZERO,
            events: VecDeque::new(),
            write_start: 0,
            wire_owed: 0,
            connect_asked: false,
            stats: TcpStats {
                total: TcpCounters::default(),
                interval: TcpCounters::default(),
                window: (SimTime::ZERO, SimTime::NEVER),
            },
            syn_retries: 0,
            series: SeriesBuf::new(series),
        }
    }

    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn srtt(&self) -> Option<crate::time::SimDuration> {
        self.rtt.srtt()
    }
    /// Bytes written by the application so far.
    pub fn written(&self) -> u64 {
        self.written
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// A greedy application (FTP-like bulk transfer) always has data.
    fn set_greedy(&mut self, on: bool) {
        if !on && self.greedy {
            // The application stops supplying: what was not sent is gone.
            self.written = self.snd_max;
        }
        self.greedy = on;
    }

    /// Data not yet acknowledged plus unsent data.
    fn buffered(&self) -> u64 {
        self.written.saturating_sub(self.snd_una)
    }

    /// Writes `bytes` of stream; false when the send buffer refuses them
    /// (whole writes only: an application frame is never split).
    pub fn write(&mut self, bytes: u64, app_seq: u32) -> bool {
        let fits = match self.cfg.send_buffer {
            SendLimit::Bytes(b) => self.buffered() + bytes <= b,
            SendLimit::Writes(n) => self.writes.len() < n as usize,
        };
        if !fits {
            return false;
        }
        if self.writes.is_empty() {
            self.write_start = self.written;
        }
        self.written += bytes;
        self.writes.push_back((self.written, app_seq));
        true
    }

    fn stream_end(&self) -> u64 {
        if self.greedy { u64::MAX } else { self.written }
    }

    pub(super) fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    fn wire_size(&self, hdr: &TcpHeader) -> u32 {
        IPV4_HEADER + hdr.wire_len() + hdr.len
    }

    pub(super) fn packet(&self, hdr: TcpHeader, ecn: Ecn) -> Packet {
        Packet {
            flow: self.addr.flow,
            dir: self.addr.dir,
            ecn,
            dst: self.addr.peer,
            size: self.wire_size(&hdr),
            app_seq: NO_APP,
            hdr: Header::Tcp(hdr),
            app: Default::default(),
        }
    }

    pub(super) fn arm_rto(&mut self, now: SimTime) {
        self.rto_at = now + self.rtt.rto();
    }

    /// RFC 5681 §4.1 / RFC 7661: after an idle period longer than the RTO
    /// the window restarts from RW = min(IW, cwnd).
    fn idle_check(&mut self, now: SimTime) {
        if self.flight() > 0 || self.snd_max == 0 {
            return;
        }
        let idle = now.saturating_since(self.last_activity);
        if idle <= self.rtt.rto() {
            return;
        }
        match self.cfg.idle_restart {
            IdleRestart::Off => {}
            IdleRestart::Rfc5681 => {
                let rw = self.cfg.initial_window.bytes(self.smss).min(self.cc.cwnd());
                self.cc.on_idle_restart(now, rw);
            }
            // RFC 7661 §4.3: after the non-validated period (5 min) the
            // window is reduced: cwnd = max(cwnd/2, RW) per NVP elapsed.
            IdleRestart::Rfc7661 => {
                const NVP_NS: u64 = 300_000_000_000;
                let periods = idle.as_nanos() / NVP_NS;
                let rw = self.cfg.initial_window.bytes(self.smss).min(self.cc.cwnd());
                let mut c = self.cc.cwnd();
                for _ in 0..periods.min(64) {
                    c = (c / 2).max(rw);
                }
                self.cc.set_cwnd(c);
            }
        }
    }

    /// Next segment to send at `seq`, reusing the original boundaries for
    /// retransmissions.
    fn segment_at(&self, seq: u64) -> (u64, u64) {
        if seq < self.snd_max {
            if let Some(i) = self.seg_index(seq) {
                return (seq, self.segs[i].end);
            }
        }
        (seq, (seq + self.smss).min(self.stream_end()))
    }

    /// The retransmission-queue entry holding `seq`. The queue is sorted
    /// and disjoint (segments are appended at `snd_max` and only the front
    /// is trimmed), so a binary search finds it.
    pub(super) fn seg_index(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    pub(super) fn emit(&mut self, now: SimTime, start: u64, end: u64) -> Packet {
        let retransmission = start < self.snd_max;
        if retransmission {
            self.stats.count(now, |c| c.retransmits += 1);
            self.vegas_checks = 2;
            let first = self.segs.partition_point(|s| s.end <= start);
            for s in self.segs.range_mut(first..).take_while(|s| s.start < end) {
                s.rexmit = true;
                s.sent = now;
            }
        } else {
            let seg = Seg { start, end, sent: now, rexmit: false, sacked: false };
            self.sums.pushed(&seg);
            self.segs.push_back(seg);
            self.snd_max = end;
        }
        self.stats.count(now, |c| {
            c.segments_sent += 1;
            c.bytes_sent += end - start;
        });
        self.last_activity = now;
        if self.rto_at == SimTime::NEVER {
            self.arm_rto(now);
        }
        let mut flags: u8 = TcpFlags::ACK;
        if self.send_cwr && !retransmission {
            flags |= TcpFlags::CWR;
            self.send_cwr = false;
        }
        if !retransmission && self.starts_wave(start) {
            flags |= TcpFlags::WAVE;
        }
        let hdr = TcpHeader {
            seq: start,
            ack: 0,
            len: (end - start) as u32,
            wnd: 0,
            flags: TcpFlags(flags),
            timestamps: self.cfg.timestamps,
            ..Default::default()
        };
        // SMSS left these options out of the mss (RFC 6691 §2): a data
        // segment carries no other (`TcpConfig::data_segment_options`).
        debug_assert_eq!(hdr.wire_len(), TCP_HEADER + self.cfg.data_segment_options());
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        let ecn = if self.cfg.ecn && !retransmission { Ecn::Ect0 } else { Ecn::NotEct };
        let pkt = self.packet(hdr, ecn);
        if !retransmission {
            self.writes_sent(end, pkt.size - (end - start) as u32);
        }
        pkt
    }

    /// A first transmission carrying stream bytes up to `end` left with
    /// `headers` bytes of IP and TCP header (RFC 791; RFC 9293 §3.1, 20 B
    /// plus options): every write whose last byte it carries is sent
    /// (`AppEvent::Sent`), with its share of the wire. A write's share is
    /// its own stream bytes (length prefix, RTP header, payload) plus, for
    /// the first write the segment completes, the segment's headers and
    /// those of earlier segments that completed none (the middle of a
    /// write longer than a segment). So the shares of the writes sent sum
    /// to the bytes of the first transmissions that carried them, which is
    /// what the first link carries for them when nothing is retransmitted
    /// (retransmissions are the same bytes again, counted by the
    /// `segments_sent`/`retransmits` counters, not here).
    fn writes_sent(&mut self, end: u64, headers: u32) {
        if self.writes.is_empty() {
            // Greedy bulk data: no writes to give a share to.
            return;
        }
        self.wire_owed += headers as u64;
        while let Some(&(e, app_seq)) = self.writes.front() {
            if e > end {
                break;
            }
            self.writes.pop_front();
            let wire = e - self.write_start + std::mem::take(&mut self.wire_owed);
            self.write_start = e;
            if app_seq != NO_APP {
                // A unit is a voice packet: far below u32::MAX bytes.
                self.events.push_back(AppEvent::Sent { app_seq, wire: wire.min(u32::MAX as u64) as u32 });
            }
        }
    }

    /// TCP-Real sends in waves (Tsaoussidis & Zhang 2002): a wave is
    /// `real.wave` sender rounds, a round one window's worth of new data —
    /// it ends when its first segment is acknowledged, so at the receiver
    /// a wave lasts about a round trip. The first new segment of each wave
    /// carries the WAVE mark.
    fn starts_wave(&mut self, start: u64) -> bool {
        if self.cfg.cc != CcAlgorithm::Real || self.wave_round.is_some_and(|first| self.snd_una <= first) {
            return false;
        }
        self.wave_round = Some(start);
        self.wave_rounds += 1;
        (self.wave_rounds - 1) % self.cfg.params.real.wave == 0
    }

    /// The usable window for new data (RFC 5681 §3.2 with the inflated
    /// window during Reno/NewReno recovery).
    fn can_send_new(&self, len: u64) -> bool {
        self.fits(len, self.cc.cwnd() + self.limited_transmit_allowance())
    }

    /// RFC 3042 §2: up to cwnd + 2·SMSS outstanding on the first two
    /// duplicate ACKs; cwnd itself is unchanged.
    fn limited_transmit_allowance(&self) -> u64 {
        if self.cfg.limited_transmit && !self.in_recovery && (1..=2).contains(&self.dupacks) {
            self.dupacks as u64 * self.smss
        } else {
            0
        }
    }

    fn fits(&self, len: u64, wnd: u64) -> bool {
        let wnd = wnd.min(self.rwnd);
        self.snd_nxt + len <= self.snd_una + wnd || (self.flight() == 0 && len > 0 && wnd >= 1)
    }

    fn poll_data(&mut self, now: SimTime) -> Option<Packet> {
        // Retransmission requested by recovery or the timer.
        if let Some(at) = self.rexmit_at.take() {
            if at >= self.snd_una && at < self.snd_max {
                let (s, e) = self.segment_at(at);
                return Some(self.emit(now, s, e));
            }
        }
        if self.in_recovery && self.recovery_kind == Recovery::Sack {
            return self.poll_sack_recovery(now);
        }
        // Go-back-N after a timeout (and Tahoe): resend below snd_max.
        if self.snd_nxt < self.snd_max {
            let (s, e) = self.segment_at(self.snd_nxt);
            if !self.can_send_new(e - s) {
                return None;
            }
            self.snd_nxt = e;
            return Some(self.emit(now, s, e));
        }
        self.idle_check(now);
        let avail = self.stream_end().saturating_sub(self.snd_nxt);
        if avail == 0 {
            return None;
        }
        let len = avail.min(self.smss);
        // Nagle (RFC 1122 §4.2.3.4): hold a small segment while data is
        // unacknowledged.
        if !self.cfg.nodelay && len < self.smss && self.flight() > 0 {
            return None;
        }
        if !self.can_send_new(len) {
            return None;
        }
        if self.limited_transmit_allowance() > 0 && !self.fits(len, self.cc.cwnd()) {
            self.lt_sent += len;
        }
        let (s, e) = (self.snd_nxt, self.snd_nxt + len);
        self.snd_nxt = e;
        Some(self.emit(now, s, e))
    }

    pub(super) fn record_series(&mut self, now: SimTime) {
        self.series.record(now, "cwnd", self.cc.cwnd() as f64);
        let ss = self.cc.ssthresh();
        self.series.record(now, "ssthresh", if ss == u64::MAX { f64::NAN } else { ss as f64 });
        if let Some(s) = self.rtt.srtt() {
            self.series.record(now, "rtt_ms", s.as_millis_f64());
        }
        self.series.record(now, "rto_ms", self.rtt.rto().as_millis_f64());
    }
}

impl Endpoint for TcpSender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let Header::Tcp(h) = &pkt.hdr else { return };
        if h.flags.has(TcpFlags::SYN) {
            if let Conn::SynSent { sent, retried } = self.conn {
                self.conn = Conn::Established;
                self.events.push_back(AppEvent::Connected);
                if !retried {
                    self.rtt.on_sample(sent, now);
                }
                self.rto_at = SimTime::NEVER;
                self.last_activity = now;
            }
            return;
        }
        self.on_ack(now, h);
        self.record_series(now);
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if now < self.rto_at {
            return;
        }
        self.rto_at = SimTime::NEVER;
        match self.conn {
            Conn::SynSent { .. } => {
                self.rtt.back_off();
                self.syn_retries += 1;
                self.conn = Conn::Closed;
            }
            Conn::Established => {
                if self.flight() > 0 {
                    self.on_rto(now);
                    self.record_series(now);
                }
            }
            Conn::Closed => {}
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        match self.conn {
            Conn::Closed => {
                // The SYN goes with the first data, or when the
                // application opened the connection before it had any.
                if self.stream_end() == 0 && !self.connect_asked {
                    return None;
                }
                let retried = self.syn_retries > 0;
                self.conn = Conn::SynSent { sent: now, retried };
                self.arm_rto(now);
                let hdr = TcpHeader {
                    flags: TcpFlags(TcpFlags::SYN),
                    wnd: self.cfg.rcv_window.min(u32::MAX as u64) as u32,
                    timestamps: self.cfg.timestamps,
                    ..Default::default()
                };
                Some(self.packet(hdr, Ecn::NotEct))
            }
            Conn::SynSent { .. } => None,
            Conn::Established => self.poll_data(now),
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        (self.rto_at != SimTime::NEVER).then_some(self.rto_at)
    }

    fn poll_event(&mut self) -> Option<AppEvent> {
        self.events.pop_front()
    }

    fn take_series(&mut self) -> Vec<Sample> {
        self.series.take()
    }
}

impl SenderEndpoint for TcpSender {
    /// One application frame written into the stream with its length
    /// prefix; `overhead` counts the IP and UDP headers a datagram would
    /// have had, which TCP replaces by its own (docs/models/tcp.md).
    fn send(&mut self, _now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        let app_header = unit.overhead.saturating_sub(IPV4_HEADER + crate::net::wire::UDP_HEADER);
        let bytes = (unit.payload + app_header + self.cfg.framing) as u64;
        if self.write(bytes, unit.app_seq) { Ok(()) } else { Err(unit) }
    }
    fn set_greedy(&mut self, on: bool) {
        TcpSender::set_greedy(self, on)
    }
    fn connected(&self) -> bool {
        self.conn == Conn::Established
    }
    fn connect(&mut self, _now: SimTime) {
        self.connect_asked = true;
    }
    fn write_bytes(&mut self, bytes: u64) -> bool {
        self.write(bytes, NO_APP)
    }
}
