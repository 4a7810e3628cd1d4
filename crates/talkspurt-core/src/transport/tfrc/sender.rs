//! The rate-paced sender of DCCP CCID 3/4 and plain TFRC: handshake
//! (DCCP), a bounded send buffer, packets spaced s/X apart (RFC 5348 §4.6),
//! CCVal (RFC 4342 §8.1), and feedback handed to the TFRC rate rules.

use super::{RateConfig, RateStats, Wire};
use crate::cc::tfrc::{Feedback, RateController, TfrcSender};
use crate::net::wire::{DccpHeader, DccpType, Header, TfrcHeader, IPV4_HEADER, UDP_HEADER};
use crate::net::{Ecn, Packet, NO_APP};
use crate::time::{SimDuration, SimTime};
use crate::transport::dccp_conn::{Client, ClientStep, Closer, Teardown};
use crate::transport::send_buffer::SendBuffer;
use crate::transport::{AppEvent, AppUnit, Endpoint, FlowAddr, Sample, SenderEndpoint, SeriesBuf};
use std::collections::VecDeque;

/// Send times kept for RTT samples from DCCP acknowledgements.
const SENT_LOG: usize = 4096;

/// Transport payload s of a unit: the unit less the IP and UDP headers its
/// overhead counts (what remains, e.g. RTP, rides in the payload).
fn segment(u: &AppUnit) -> u32 {
    u.payload + u.overhead.saturating_sub(IPV4_HEADER + UDP_HEADER)
}

/// The segment size the rate equation sees: the segment less its RTP
/// padding. An application that pads up to the allowed rate X (seed 000
/// §3.6, `tfrc-codec`'s `pad`) makes its segment size follow X; with s
/// following it too, X_calc = s/(R·f(p)) becomes proportional to X and
/// every round scales X by ptime/(R·f(p)) — below one under any loss, so X
/// collapses. RFC 5348 §4.1 keeps s for segments whose size is not coupled
/// to the rate; the padding is exactly what is coupled, so it is left out.
fn equation_segment(u: &AppUnit) -> u32 {
    segment(u) - u.rtp.map_or(0, |h| h.pad as u32).min(segment(u))
}

#[derive(Debug)]
pub struct RateSender {
    addr: FlowAddr,
    cfg: RateConfig,
    cc: TfrcSender,
    buf: SendBuffer,
    conn: Client,
    greedy: bool,
    /// The application closed: tear down once the buffer is empty.
    app_closed: bool,
    /// Greatest sequence number the receiver sent (the Close's ack).
    peer_seq: u64,
    seq: u64,
    /// Nominal send time of the next packet (RFC 5348 §4.6 t_nom).
    t_nom: SimTime,
    t_last_send: SimTime,
    /// Window counter and when it last advanced (RFC 4342 §8.1).
    /// Window counter, unwrapped (CCVal is it modulo 16), and the counter
    /// of the last data packet the receiver acknowledged.
    wc: u64,
    acked_wc: Option<u64>,
    t_last_wc: SimTime,
    /// (first seq, send times from it on) for DCCP acknowledgements.
    sent_log: (u64, VecDeque<(SimTime, u64)>),
    last_rate: f64,
    /// The padding's share of the segments sent (the cc's EWMA of s, gain
    /// 1/4, over the padding alone): pacing spaces whole packets, so it
    /// adds it back to the equation's s.
    pad_s: f64,
    series: SeriesBuf,
    events: VecDeque<AppEvent>,
    pub stats: RateStats,
}

impl RateSender {
    pub fn new(addr: FlowAddr, cfg: RateConfig, series: bool) -> Self {
        let cc = TfrcSender::new(cfg.tfrc.clone(), cfg.packet, SimTime::ZERO);
        let conn = Client::new(cfg.handshake);
        RateSender {
            addr,
            buf: SendBuffer::new(cfg.send_buffer),
            cc,
            conn,
            greedy: false,
            app_closed: false,
            peer_seq: 0,
            seq: 0,
            t_nom: SimTime::ZERO,
            t_last_send: SimTime::ZERO,
            wc: 0,
            acked_wc: None,
            t_last_wc: SimTime::ZERO,
            sent_log: (0, VecDeque::new()),
            last_rate: 0.0,
            pad_s: 0.0,
            series: SeriesBuf::new(series),
            events: VecDeque::new(),
            stats: RateStats::default(),
            cfg,
        }
    }

    /// The application's segment size, known before its first unit (a
    /// call's codec and packetization): the start rates use it rather than
    /// the bulk `packet` default (RFC 5348 §4.2; `TfrcSender::hint_segment`).
    pub fn hint_segment(&mut self, bytes: u32) {
        if self.stats.packets_sent == 0 {
            self.cc.hint_segment(bytes);
        }
    }

    pub fn controller(&self) -> &TfrcSender {
        &self.cc
    }

    /// Close, CloseReq and Reset packets sent (RFC 4340 §8.3).
    pub fn teardown(&self) -> Teardown {
        self.conn.sent
    }

    /// The server's CloseReq (RFC 4340 §8.3, §8.5 step 13): the
    /// application stops, the buffer drains, then Close.
    fn close_requested(&mut self) {
        self.app_closed = true;
        self.greedy = false;
    }


    fn packet(&self, size: u32, app_seq: u32, hdr: Header, ecn: bool) -> Packet {
        Packet {
            flow: self.addr.flow,
            dir: self.addr.dir,
            ecn: if ecn && self.cfg.ecn { Ecn::Ect0 } else { Ecn::NotEct },
            dst: self.addr.peer,
            size,
            app_seq,
            hdr,
            app: Default::default(),
        }
    }

    fn control(&mut self, ptype: DccpType, ack: u64, reset_code: u8) -> Packet {
        let mut h = DccpHeader::new(ptype, self.seq);
        h.ack = ack;
        h.reset_code = reset_code;
        self.seq += 1;
        let size = IPV4_HEADER + h.wire_len();
        self.packet(size, NO_APP, Header::Dccp(Box::new(h)), false)
    }

    /// RFC 4342 §8.1: the counter advances by the quarter-RTTs elapsed since
    /// it last did, at most 5 at a time, modulo 16.
    fn advance_ccval(&mut self, now: SimTime) {
        let Some(r) = self.cc.rtt() else { return };
        let quarter = (r / 4.0).max(1e-9);
        let k = (now.saturating_since(self.t_last_wc).as_secs_f64() / quarter).floor() as u64;
        if k > 0 {
            self.wc += k.min(5);
            // One step per quarter RTT on average: the reference moves by
            // the quarters counted, not to `now` (which would stretch each
            // step by up to one packet interval); after a capped jump
            // (idle) it restarts from now.
            self.t_last_wc = if k <= 5 { self.t_last_wc + SimDuration::from_secs_f64(k as f64 * quarter) } else { now };
        }
        // RFC 4342 §8.1: a packet sent after an acknowledgement of counter C
        // carries at least C + 4, so the receiver's "4 past the last packet
        // fed back" rule fires again within an RTT even at low rates (as
        // ns-2's Agent/DCCP/TFRC does too).
        if let Some(c) = self.acked_wc {
            self.wc = self.wc.max(c + 4);
        }
    }

    fn data(&mut self, now: SimTime, u: AppUnit) -> Packet {
        let seg = segment(&u);
        let eq_seg = equation_segment(&u);
        let seq = self.seq;
        self.seq += 1;
        let (hdr, hlen) = match self.cfg.wire {
            Wire::Dccp { .. } => {
                self.advance_ccval(now);
                let mut h = DccpHeader::new(DccpType::Data, seq);
                h.ccval = (self.wc % 16) as u8;
                let n = IPV4_HEADER + h.wire_len();
                let log = &mut self.sent_log;
                if log.1.is_empty() {
                    log.0 = seq;
                }
                log.1.push_back((now, self.wc));
                if log.1.len() > SENT_LOG {
                    log.1.pop_front();
                    log.0 += 1;
                }
                (Header::Dccp(Box::new(h)), n)
            }
            Wire::Plain { header, .. } => {
                let rtt = SimDuration::from_secs_f64(self.cc.rtt().unwrap_or(0.0));
                (Header::Tfrc(Box::new(TfrcHeader::Data { seq, sent: now, rtt })), header)
            }
        };
        self.cc.on_packet_sent(now, eq_seg);
        let pad = (seg - eq_seg) as f64;
        self.pad_s = if self.stats.packets_sent == 0 { pad } else { 0.75 * self.pad_s + 0.25 * pad };
        if self.stats.packets_sent == 0 {
            self.rate_changed(now);
        }
        self.stats.packets_sent += 1;
        self.series.record(now, "sent", self.stats.packets_sent as f64);
        let mut p = self.packet(hlen + seg, u.app_seq, hdr, true);
        p.app = u.rtp.into();
        p
    }

    /// The inter-packet interval s/X, at least TFRC-SP's minimum (s of
    /// whole segments, padding included).
    fn t_ipi(&self) -> SimDuration {
        let t = (self.cc.s() + self.pad_s) / self.cc.rate().max(1e-9);
        SimDuration::from_secs_f64(t.min(1e6)).max(self.cfg.tfrc.min_interval)
    }

    fn next_unit(&mut self) -> Option<AppUnit> {
        let u = self.buf.pop();
        if u.is_some() || !self.greedy {
            return u;
        }
        Some(AppUnit { app_seq: NO_APP, payload: self.cfg.packet, overhead: 0, rtp: None })
    }

    fn has_data(&self) -> bool {
        self.greedy || !self.buf.is_empty()
    }

    /// Record the rate state and tell the application when X changed.
    /// The first Close retransmission: two RTTs (RFC 4340 §8.3), or the
    /// Request timeout while no RTT is known.
    fn close_rto(&self) -> SimDuration {
        self.cc.rtt().map_or(self.cfg.request_timeout, |r| SimDuration::from_secs_f64(2.0 * r))
    }

    fn rate_changed(&mut self, now: SimTime) {
        let x = self.cc.rate();
        let w = self.stats.window;
        self.stats.x.set(now, x, w);
        self.stats.p.set(now, self.cc.p(), w);
        self.series.record(now, "x_bps", x * 8.0);
        self.series.record(now, "x_calc_bps", self.cc.x_calc() * 8.0);
        self.series.record(now, "x_recv_bps", self.cc.x_recv() * 8.0);
        self.series.record(now, "p", self.cc.p());
        if let Some(r) = self.cc.rtt() {
            self.series.record(now, "rtt_ms", r * 1e3);
        }
        if x != self.last_rate {
            self.last_rate = x;
            // The next packet is due one new t_ipi after the last one, not
            // after the old, possibly much longer, interval.
            if self.stats.packets_sent > 0 {
                self.t_nom = self.t_nom.min(self.t_last_send + self.t_ipi());
            }
            self.events.push_back(AppEvent::RateChanged { bps: x * 8.0 });
        }
    }

    fn on_feedback(&mut self, now: SimTime, fb: Feedback) {
        self.stats.feedback += 1;
        self.cc.on_feedback(now, &fb);
        self.rate_changed(now);
    }
}

impl Endpoint for RateSender {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        match &pkt.hdr {
            Header::Dccp(h) => match h.ptype {
                DccpType::Reset | DccpType::CloseReq | DccpType::Close => {
                    self.peer_seq = self.peer_seq.max(h.seq);
                    match self.conn.on_packet(now, h.ptype, self.cfg.timewait) {
                        ClientStep::Reset => self.stats.resets += 1,
                        ClientStep::CloseRequested => self.close_requested(),
                        ClientStep::Nothing => {}
                    }
                }
                DccpType::Response => {
                    if let Some(rtt) = self.conn.on_response(now) {
                        self.cc.on_handshake_rtt(now, rtt);
                        self.t_last_wc = now;
                        self.rate_changed(now);
                    }
                }
                DccpType::Ack | DccpType::DataAck => {
                    self.peer_seq = self.peer_seq.max(h.seq);
                    let Some(opt) = h.tfrc else { return };
                    let (first, log) = (&self.sent_log.0, &self.sent_log.1);
                    let Some(&(sent, wc)) = h.ack.checked_sub(*first).and_then(|i| log.get(i as usize)) else { return };
                    self.acked_wc = Some(self.acked_wc.map_or(wc, |a| a.max(wc)));
                    self.on_feedback(now, Feedback { t_recvdata: sent, t_delay: opt.elapsed, x_recv: opt.x_recv, p: opt.p });
                }
                _ => {}
            },
            Header::Tfrc(h) => {
                if let TfrcHeader::Feedback { t_recvdata, t_delay, x_recv, p } = **h {
                    self.on_feedback(now, Feedback { t_recvdata, t_delay, x_recv, p });
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        if !self.conn.is_open() {
            self.conn.on_timeout(now);
            return;
        }
        if now >= self.cc.nofeedback_at() {
            self.stats.nofeedback_expiries += 1;
            self.cc.on_nofeedback(now);
            self.rate_changed(now);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if self.app_closed && self.buf.is_empty() && !self.conn.is_closing() {
            self.conn.close(self.close_rto());
        }
        if let Some((t, code)) = self.conn.poll(now, self.cfg.request_timeout) {
            let ack = if t.has_ack() { self.peer_seq } else { 0 };
            return Some(self.control(t, ack, code));
        }
        if !self.conn.is_open() {
            return None;
        }
        if !self.has_data() {
            return None;
        }
        if now < self.t_nom {
            self.cc.on_rate_limited(now);
            return None;
        }
        let u = self.next_unit()?;
        self.series.record(now, "send_buffer", self.buf.len() as f64);
        // §4.6: the next packet is due t_ipi after this one; an idle sender
        // earns no credit for the time it had nothing (no back-to-back pair
        // after silence).
        let ipi = self.t_ipi();
        self.t_nom = self.t_nom.max(now) + ipi;
        self.t_last_send = now;
        if self.has_data() {
            self.cc.on_rate_limited(now);
        }
        Some(self.data(now, u))
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if !self.conn.is_open() {
            return self.conn.timeout();
        }
        let pace = if self.has_data() { self.t_nom } else { SimTime::NEVER };
        Some(pace.min(self.cc.nofeedback_at()))
    }

    fn take_series(&mut self) -> Vec<Sample> {
        self.series.take()
    }

    fn poll_event(&mut self) -> Option<AppEvent> {
        if self.conn.take_opened() {
            return Some(AppEvent::Connected);
        }
        self.events.pop_front()
    }
}

impl SenderEndpoint for RateSender {
    fn send(&mut self, now: SimTime, unit: AppUnit) -> Result<(), AppUnit> {
        if self.stats.packets_sent == 0 && self.buf.is_empty() {
            self.cc.hint_segment(equation_segment(&unit));
        }
        let r = self.buf.push(unit);
        if r.is_err() {
            self.stats.sender_drops += 1;
            self.series.record(now, "dropped", self.stats.sender_drops as f64);
        } else {
            self.series.record(now, "send_buffer", self.buf.len() as f64);
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
        // Plain TFRC has no connection to tear down. With the server as
        // closer the application only stops: Close waits for its CloseReq.
        if let Wire::Dccp { .. } = self.cfg.wire {
            self.greedy = false;
            self.app_closed |= self.cfg.closer == Closer::Client;
        }
    }
}
