//! The CCID 2 sender (RFC 4341 §5): sends while the packets in flight
//! (`pipe`) are fewer than cwnd, learns from Ack Vectors which packets
//! arrived, declares a packet lost when three packets sent after it were
//! acknowledged, halves the window at most once per window of data, and
//! falls back to one packet on a retransmission timeout. Nothing is
//! retransmitted: DCCP is unreliable. The Ack Ratio follows the reverse
//! path's congestion (RFC 4341 §6.1.2), and the sender acknowledges the
//! receiver's Acks once per window so that it can trim its Ack Vector
//! (RFC 4341 §6.1.4, RFC 4340 §11.4.2).

use super::{Ccid2Config, PKT};
use crate::cc::classic::Classic;
use crate::cc::reno::Aimd;
use crate::cc::{AckSample, WindowController};
use crate::net::wire::{DccpHeader, DccpType, Header, IPV4_HEADER, UDP_HEADER};
use crate::net::{Ecn, Packet, NO_APP};
use crate::time::{SimDuration, SimTime};
use crate::transport::dccp_conn::{Client, ClientStep, Closer, Teardown};
use crate::transport::rtt::RttEstimator;
use crate::transport::send_buffer::SendBuffer;
use crate::transport::{AppEvent, AppUnit, Endpoint, FlowAddr, Sample, SenderEndpoint, SeriesBuf};
use std::collections::VecDeque;

/// Packets acknowledged after a packet before it counts as lost (RFC 4341
/// §5, NUMDUPACK).
pub const NUMDUPACK: usize = 3;

/// RFC 4341 §5 / RFC 3390: an initial window of min(4, max(2, 4380/s))
/// packets of `s` bytes; 4 for voice-sized packets.
pub fn initial_window(s: u32) -> u64 {
    (4380 / s.max(1) as u64).clamp(2, 4)
}

/// One packet sent and not yet acknowledged or declared lost.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    at: SimTime,
    acked: bool,
}

/// Counters for the tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ccid2Stats {
    pub packets_sent: u64,
    pub sender_drops: u64,
    pub losses: u64,
    /// Packets acknowledged ECN-marked.
    pub marks: u64,
    pub congestion_events: u64,
    pub timeouts: u64,
    pub acks: u64,
    /// The receiver's Acks found missing from its sequence numbers.
    pub acks_lost: u64,
    /// Data packets sent as DataAck, acknowledging the receiver's Acks.
    pub acks_of_acks: u64,
    /// Largest Ack Ratio told to the receiver.
    pub ack_ratio_max: u16,
    /// DCCP teardown: Resets received (RFC 4340 §8.3, §8.5 step 9). The
    /// teardown packets sent are counted by the connection (`teardown`).
    pub resets: u64,
}

#[derive(Debug)]
pub struct Ccid2Sender {
    addr: FlowAddr,
    cfg: Ccid2Config,
    conn: Client,
    cc: Classic<Aimd>,
    rtt: RttEstimator,
    buf: SendBuffer,
    greedy: bool,
    /// The application closed: tear down once the buffer is empty.
    app_closed: bool,
    seq: u64,
    /// Outstanding packets in sequence order.
    out: VecDeque<Sent>,
    /// Packets in flight: sent, not acknowledged, not lost.
    pipe: u64,
    /// No new congestion event for losses at or below this sequence number
    /// (one window reduction per window of data, RFC 4341 §5).
    recover: Option<u64>,
    rto_at: SimTime,
    last_send: SimTime,
    /// Segment bytes of the last packet (the restart window's s).
    last_seg: u32,
    /// The Ack Ratio the receiver was last told.
    ack_ratio_told: u16,
    /// The Ack Ratio R the sender wants (RFC 4341 §6.1.2), before the
    /// ⌈cwnd/2⌉ cap: doubled for a window with lost Acks, lowered by one
    /// after cwnd/(R² − R) windows without.
    ack_ratio: u16,
    /// Lost Acks for data sent before this sequence number belong to the
    /// window already answered.
    ack_loss_window: u64,
    /// Packets acknowledged in the current window, and whole windows
    /// acknowledged without a lost Ack.
    acked_in_window: u64,
    clean_windows: u64,
    /// Highest sequence number seen on the receiver's packets, whether it
    /// still needs acknowledging, and the data sequence number of the last
    /// acknowledgement of it.
    peer_seq: Option<u64>,
    peer_unacked: bool,
    last_ack_of_ack: Option<u64>,
    series: SeriesBuf,
    pub stats: Ccid2Stats,
}

impl Ccid2Sender {
    pub fn new(addr: FlowAddr, cfg: Ccid2Config, series: bool) -> Self {
        let iw = initial_window(cfg.packet);
        Ccid2Sender {
            addr,
            conn: Client::new(cfg.handshake),
            cc: Classic::new(Aimd::default(), PKT, iw * PKT),
            rtt: RttEstimator::new(cfg.rtt),
            buf: SendBuffer::new(cfg.send_buffer),
            greedy: false,
            app_closed: false,
            seq: 0,
            out: VecDeque::new(),
            pipe: 0,
            recover: None,
            rto_at: SimTime::NEVER,
            last_send: SimTime::ZERO,
            last_seg: cfg.packet,
            ack_ratio_told: cfg.ack_ratio,
            ack_ratio: cfg.ack_ratio,
            ack_loss_window: 0,
            acked_in_window: 0,
            clean_windows: 0,
            peer_seq: None,
            peer_unacked: false,
            last_ack_of_ack: None,
            series: SeriesBuf::new(series),
            stats: Ccid2Stats { ack_ratio_max: cfg.ack_ratio, ..Ccid2Stats::default() },
            cfg,
        }
    }

    /// Congestion window in packets.
    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd() / PKT
    }
    pub fn pipe(&self) -> u64 {
        self.pipe
    }

    /// Close, CloseReq and Reset packets sent (RFC 4340 §8.3).
    pub fn teardown(&self) -> Teardown {
        self.conn.sent
    }

    fn packet(&self, size: u32, app_seq: u32, hdr: DccpHeader) -> Packet {
        Packet {
            flow: self.addr.flow,
            dir: self.addr.dir,
            ecn: if self.cfg.ecn { Ecn::Ect0 } else { Ecn::NotEct },
            dst: self.addr.peer,
            size,
            app_seq,
            hdr: Header::Dccp(Box::new(hdr)),
            app: Default::default(),
        }
    }

    /// RFC 4341 §6.1.2: Ack Ratio at most ⌈cwnd/2⌉, so a small window still
    /// gets two acknowledgements per round trip.
    fn wanted_ack_ratio(&self) -> u16 {
        let half = self.cwnd().div_ceil(2).max(1);
        (self.ack_ratio as u64).min(half) as u16
    }

    /// The Ack Ratio in force (what the receiver was last told).
    pub fn ack_ratio(&self) -> u16 {
        self.ack_ratio_told
    }

    /// A packet from the receiver with sequence number `seq` (every DCCP
    /// packet has one, RFC 4340 §7.1): a gap means its Acks were lost. RFC
    /// 4341 §6.1.2: for a window of data with lost Acks, double R (at most
    /// ⌈cwnd/2⌉); losses reported for data of a window already answered
    /// (acknowledging data sent before `ack_loss_window`) do not count
    /// again.
    fn on_peer_seq(&mut self, seq: u64, acks_data: u64) {
        let lost = self.peer_seq.map_or(0, |p| seq.saturating_sub(p + 1));
        self.peer_seq = Some(self.peer_seq.map_or(seq, |p| p.max(seq)));
        self.peer_unacked = true;
        if lost == 0 {
            return;
        }
        self.stats.acks_lost += lost;
        if acks_data < self.ack_loss_window {
            return;
        }
        let half = self.cwnd().div_ceil(2).max(1);
        self.ack_ratio = (self.ack_ratio as u64 * 2).min(half).max(self.ack_ratio as u64) as u16;
        self.ack_loss_window = self.seq;
        self.acked_in_window = 0;
        self.clean_windows = 0;
    }

    /// RFC 4341 §6.1.2: for each cwnd/(R² − R) consecutive windows of data
    /// without lost Acks, R falls by one, here down to the configured Ack
    /// Ratio (2 by default, RFC 4341 §6.1.1).
    fn on_window_acked(&mut self, newly: u64) {
        if self.ack_ratio <= self.cfg.ack_ratio {
            self.acked_in_window = 0;
            self.clean_windows = 0;
            return;
        }
        let cwnd = self.cwnd().max(1);
        self.acked_in_window += newly;
        while self.acked_in_window >= cwnd {
            self.acked_in_window -= cwnd;
            self.clean_windows += 1;
            let r = self.ack_ratio as f64;
            if self.clean_windows as f64 >= cwnd as f64 / (r * r - r) {
                self.ack_ratio -= 1;
                self.clean_windows = 0;
                if self.ack_ratio <= self.cfg.ack_ratio {
                    break;
                }
            }
        }
    }

    fn record(&mut self, now: SimTime) {
        self.series.record(now, "cwnd", self.cwnd() as f64);
        let ss = self.cc.ssthresh();
        self.series.record(now, "ssthresh", if ss == u64::MAX { f64::NAN } else { (ss / PKT) as f64 });
        self.series.record(now, "pipe", self.pipe as f64);
        self.series.record(now, "ack_ratio", self.ack_ratio_told as f64);
    }

    /// The first Close retransmission: two RTTs (RFC 4340 §8.3), or the
    /// Request timeout while no RTT is known.
    fn close_rto(&self) -> SimDuration {
        self.rtt.srtt().map_or(self.cfg.request_timeout, |r| r.mul(2))
    }

    fn has_data(&self) -> bool {
        self.greedy || !self.buf.is_empty()
    }

    fn on_ack(&mut self, now: SimTime, h: &DccpHeader) {
        self.stats.acks += 1;
        let received = |s: u64| h.received.iter().any(|&(a, b)| s >= a && s < b);
        let mut newly = 0u64;
        let mut marked = None;
        for p in self.out.iter_mut().filter(|p| !p.acked && received(p.seq)) {
            p.acked = true;
            newly += 1;
            if h.marked.binary_search(&p.seq).is_ok() {
                marked = Some(p.seq);
            }
            if p.seq == h.ack {
                // No retransmissions, so every sample is unambiguous.
                let r = self.rtt.on_sample(p.at, now);
                self.cc.on_rtt_sample(now, r);
            }
        }
        self.pipe -= newly.min(self.pipe);
        self.on_window_acked(newly);
        if let Some(seq) = marked {
            // RFC 4341 §5: an ECN mark is answered as a loss (it arrived, so
            // pipe already counts it out).
            self.stats.marks += 1;
            self.congestion(now, seq);
        }
        // RFC 4341 §5: lost once NUMDUPACK later packets are acknowledged.
        let mut later_acked = 0usize;
        let mut lost = Vec::new();
        for p in self.out.iter().rev() {
            if p.acked {
                later_acked += 1;
            } else if later_acked >= NUMDUPACK {
                lost.push(p.seq);
            }
        }
        for seq in &lost {
            self.on_lost(now, *seq);
        }
        while self.out.front().is_some_and(|p| p.acked || lost.contains(&p.seq)) {
            self.out.pop_front();
        }
        if newly > 0 {
            let ack = AckSample {
                now,
                acked: PKT,
                flight: self.pipe * PKT,
                rtt: None,
                srtt: self.rtt.srtt_or_initial(),
                min_rtt: self.rtt.min_rtt(),
                delivered: 0,
                recovery: false,
            };
            // The window grows per acknowledged packet, not per Ack (RFC
            // 4341 §5: one packet per window of data acknowledged in
            // congestion avoidance), as in ns-2's Agent/DCCP/TCPlike
            // (`updateCwnd`); in slow start by at most the Ack Ratio per
            // Ack (appropriate byte counting with L = R, RFC 3465). Reno's
            // per-ACK rule fed once per Ack would grow half as fast at
            // R = 2, like TCP with delayed ACKs.
            let slow = self.cc.cwnd() < self.cc.ssthresh();
            let n = if slow { newly.min(self.ack_ratio_told.max(1) as u64) } else { newly };
            for _ in 0..n {
                self.cc.on_ack(&ack);
            }
            self.rto_at = if self.out.is_empty() { SimTime::NEVER } else { now + self.rtt.rto() };
        }
        self.record(now);
    }

    /// A loss (or ECN mark) halves cwnd once per window (RFC 4341 §5).
    fn on_lost(&mut self, now: SimTime, seq: u64) {
        self.stats.losses += 1;
        self.pipe = self.pipe.saturating_sub(1);
        self.congestion(now, seq);
    }

    /// Halve once per window: events for packets sent before the last
    /// halving's highest sequence number are part of it.
    fn congestion(&mut self, now: SimTime, seq: u64) {
        if self.recover.is_some_and(|r| seq <= r) {
            return;
        }
        self.stats.congestion_events += 1;
        // Halve cwnd: ssthresh from the window itself, not FlightSize.
        self.cc.on_congestion_event(now, self.cc.cwnd());
        self.cc.set_cwnd(self.cc.ssthresh());
        self.recover = Some(self.seq.saturating_sub(1));
    }
}

impl Endpoint for Ccid2Sender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let Header::Dccp(h) = &pkt.hdr else { return };
        match h.ptype {
            DccpType::Reset | DccpType::CloseReq | DccpType::Close => {
                self.peer_seq = Some(self.peer_seq.map_or(h.seq, |p| p.max(h.seq)));
                match self.conn.on_packet(now, h.ptype, self.cfg.timewait) {
                    ClientStep::Reset => self.stats.resets += 1,
                    // RFC 4340 §8.5 step 13: the buffer drains, then Close.
                    ClientStep::CloseRequested => {
                        self.app_closed = true;
                        self.greedy = false;
                    }
                    ClientStep::Nothing => {}
                }
            }
            DccpType::Response => {
                if let Some(r) = self.conn.on_response(now) {
                    self.rtt.on_sample(SimTime(now.0.saturating_sub(r.0)), now);
                    self.peer_seq = Some(h.seq);
                }
            }
            DccpType::Ack | DccpType::DataAck if !h.received.is_empty() => {
                self.on_peer_seq(h.seq, h.ack);
                self.on_ack(now, h);
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if !self.conn.is_open() {
            self.conn.on_timeout(now);
            return;
        }
        if now >= self.rto_at {
            // RFC 4341 §5 (TCP's RFC 6298 §5): every outstanding packet is
            // presumed lost, the window falls to one packet.
            self.stats.timeouts += 1;
            self.cc.on_rto(now, self.cc.cwnd());
            self.out.clear();
            self.pipe = 0;
            self.recover = Some(self.seq.saturating_sub(1));
            self.rtt.back_off();
            self.rto_at = SimTime::NEVER;
            self.record(now);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if self.app_closed && !self.has_data() && !self.conn.is_closing() {
            self.conn.close(self.close_rto());
        }
        if let Some((t, code)) = self.conn.poll(now, self.cfg.request_timeout) {
            let mut h = DccpHeader::new(t, self.seq);
            self.seq += 1;
            let size = IPV4_HEADER + h.wire_len();
            h.ack = if matches!(t, DccpType::Close | DccpType::Reset) { self.peer_seq.unwrap_or(0) } else { 0 };
            h.reset_code = code;
            return Some(self.packet(size, NO_APP, h));
        }
        // RFC 4341 §5 counts cwnd in whole packets (it grows by one packet
        // per window): a packet goes only if it fits whole, pipe + 1 <= cwnd,
        // as RFC 5681 §3.1's FlightSize + SMSS <= cwnd in bytes. The window
        // keeps fractions of a packet for its growth, but a fraction never
        // buys a packet: `pipe < cwnd` on the fractional window let ⌈cwnd⌉
        // packets fly, one more than ns-2's and Linux's integer cwnd.
        if !self.conn.is_open() || !self.has_data() || (self.pipe + 1) * PKT > self.cc.cwnd() {
            return None;
        }
        // RFC 5681 §4.1 via RFC 4341 §5: after an idle period longer than
        // the RTO the window restarts from the initial window.
        if self.out.is_empty() && self.stats.packets_sent > 0 && now.saturating_since(self.last_send) > self.rtt.rto() {
            let iw = initial_window(self.last_seg) * PKT;
            self.cc.on_idle_restart(now, iw);
        }
        let u = match self.buf.pop() {
            Some(u) => u,
            None => AppUnit { app_seq: NO_APP, payload: self.cfg.packet, overhead: 0, rtp: None },
        };
        let seg = u.payload + u.overhead.saturating_sub(IPV4_HEADER + UDP_HEADER);
        if self.stats.packets_sent == 0 {
            // The initial window from the first packet's real size.
            self.cc.set_cwnd(initial_window(seg) * PKT);
        }
        // RFC 4341 §6.1.4: acknowledge the receiver's Acks at least once
        // per window of data, with a DataAck naming the latest of them.
        let aoa_due = self.peer_unacked && self.last_ack_of_ack.is_none_or(|s| self.seq >= s + self.cwnd().max(1));
        let mut h = DccpHeader::new(if aoa_due { DccpType::DataAck } else { DccpType::Data }, self.seq);
        if aoa_due {
            h.ack = self.peer_seq.unwrap_or(0);
            self.peer_unacked = false;
            self.last_ack_of_ack = Some(self.seq);
            self.stats.acks_of_acks += 1;
        }
        let want = self.wanted_ack_ratio();
        if want != self.ack_ratio_told {
            h.ack_ratio = want;
            self.ack_ratio_told = want;
            self.stats.ack_ratio_max = self.stats.ack_ratio_max.max(want);
        }
        self.out.push_back(Sent { seq: self.seq, at: now, acked: false });
        self.seq += 1;
        self.pipe += 1;
        self.last_send = now;
        self.last_seg = seg;
        self.stats.packets_sent += 1;
        if self.rto_at == SimTime::NEVER {
            self.rto_at = now + self.rtt.rto();
        }
        self.series.record(now, "send_buffer", self.buf.len() as f64);
        let size = IPV4_HEADER + h.wire_len() + seg;
        let mut p = self.packet(size, u.app_seq, h);
        p.app = u.rtp.into();
        Some(p)
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if !self.conn.is_open() {
            return self.conn.timeout();
        }
        (self.rto_at != SimTime::NEVER).then_some(self.rto_at)
    }

    fn take_series(&mut self) -> Vec<Sample> {
        self.series.take()
    }

    fn poll_event(&mut self) -> Option<AppEvent> {
        self.conn.take_opened().then_some(AppEvent::Connected)
    }
}

impl SenderEndpoint for Ccid2Sender {
    fn send(&mut self, now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        let r = self.buf.push(unit);
        if r.is_err() {
            self.stats.sender_drops += 1;
            self.series.record(now, "dropped", self.stats.sender_drops as f64);
        }
        r
    }

    fn set_greedy(&mut self, on: bool) {
        self.greedy = on;
    }

    fn connected(&self) -> bool {
        self.conn.is_open()
    }

    fn close(&mut self, _now: SimTime) {
        // With the server as closer the application only stops: Close
        // waits for its CloseReq (RFC 4340 §8.3).
        self.app_closed |= self.cfg.closer == Closer::Client;
        self.greedy = false;
    }
}
