//! The receiving end of DCCP CCID 3/4 and plain TFRC: answers the DCCP
//! handshake, delivers every data packet to the application at once (DCCP
//! is unreliable and unordered, RFC 4340 §1), and sends the feedback the
//! TFRC receiver asks for.

use super::{RateConfig, Wire};
use crate::cc::tfrc::receiver::{DataInfo, FeedbackMode, Report};
use crate::cc::tfrc::TfrcReceiver;
use crate::net::wire::{DccpHeader, DccpType, Header, TfrcHeader, TfrcOptions, IPV4_HEADER, UDP_HEADER};
use crate::net::{Ecn, Packet, NO_APP};
use crate::time::{SimDuration, SimTime};
use crate::transport::dccp_conn::{Closer, Server, ServerStep, Teardown};
use crate::transport::{Delivery, Endpoint, FlowAddr, ReceiverEndpoint, Sample, SeriesBuf};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct RateReceiver {
    addr: FlowAddr,
    cfg: RateConfig,
    rx: TfrcReceiver,
    conn: Server,
    seq: u64,
    /// Control packets and feedback waiting to go out.
    out: VecDeque<Packet>,
    delivered: VecDeque<Delivery>,
    series: SeriesBuf,
    /// Greatest sequence number the sender sent (a CloseReq's ack).
    peer_seq: u64,
}

impl RateReceiver {
    pub fn new(addr: FlowAddr, cfg: RateConfig, series: bool) -> Self {
        let mode = match cfg.wire {
            Wire::Dccp { .. } => FeedbackMode::WindowCounter,
            Wire::Plain { .. } => FeedbackMode::Timer,
        };
        let conn = Server::new(cfg.handshake);
        RateReceiver {
            addr,
            rx: TfrcReceiver::new(cfg.tfrc.clone(), mode),
            cfg,
            conn,
            seq: 0,
            out: VecDeque::new(),
            delivered: VecDeque::new(),
            series: SeriesBuf::new(series),
            peer_seq: 0,
        }
    }

    pub fn tfrc(&self) -> &TfrcReceiver {
        &self.rx
    }

    /// CloseReq and Reset packets sent (RFC 4340 §8.3).
    pub fn teardown(&self) -> Teardown {
        self.conn.sent
    }

    fn packet(&self, size: u32, hdr: Header) -> Packet {
        Packet { flow: self.addr.flow, dir: self.addr.dir, ecn: Ecn::NotEct, dst: self.addr.peer, size, app_seq: NO_APP, hdr, app: Default::default() }
    }

    fn dccp(&mut self, mut h: DccpHeader) -> Packet {
        h.seq = self.seq;
        self.seq += 1;
        let size = IPV4_HEADER + h.wire_len();
        self.packet(size, Header::Dccp(Box::new(h)))
    }

    fn send_feedback(&mut self, now: SimTime) {
        let r: Report = self.rx.report(now);
        self.series.record(now, "p", r.p);
        self.series.record(now, "x_recv_bps", r.x_recv * 8.0);
        self.series.record(now, "n_fb", self.rx.n_fb() as f64);
        let pkt = match self.cfg.wire {
            Wire::Dccp { .. } => {
                let mut h = DccpHeader::new(DccpType::Ack, 0);
                h.ack = r.ack_seq;
                let intervals = if self.cfg.loss_intervals && r.p > 0.0 { r.intervals } else { 0 };
                h.tfrc = Some(TfrcOptions { elapsed: r.t_delay, x_recv: r.x_recv, p: r.p, intervals });
                self.dccp(h)
            }
            Wire::Plain { ack, .. } => {
                let h = TfrcHeader::Feedback { t_recvdata: r.t_recvdata, t_delay: r.t_delay, x_recv: r.x_recv, p: r.p };
                self.packet(ack, Header::Tfrc(Box::new(h)))
            }
        };
        self.out.push_back(pkt);
    }

    fn on_data(&mut self, now: SimTime, pkt: &Packet, d: DataInfo) {
        self.delivered.push_back(Delivery { app_seq: pkt.app_seq, bytes: d.bytes, at: now, rtp: pkt.app.rtp() });
        if self.rx.on_data(now, &d) {
            self.send_feedback(now);
        }
    }
}

impl Endpoint for RateReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let ce = pkt.ecn == Ecn::Ce;
        match &pkt.hdr {
            Header::Dccp(h) => {
                self.peer_seq = self.peer_seq.max(h.seq);
                match self.conn.on_packet(now, h.ptype) {
                    ServerStep::Respond => {
                        let mut r = DccpHeader::new(DccpType::Response, 0);
                        r.ack = h.seq;
                        let p = self.dccp(r);
                        self.out.push_back(p);
                        return;
                    }
                    ServerStep::Opened(Some(rtt)) => self.rx.set_rtt(rtt),
                    ServerStep::Reset(code) => {
                        let mut r = DccpHeader::new(DccpType::Reset, 0);
                        r.ack = h.seq;
                        r.reset_code = code;
                        let p = self.dccp(r);
                        self.out.push_back(p);
                        return;
                    }
                    _ if self.conn.is_closed() => return,
                    _ => {}
                }
                if h.ptype.carries_data() {
                    let seg = pkt.size - IPV4_HEADER - h.wire_len();
                    let d = DataInfo { seq: h.seq, sent: now, bytes: seg, ce, ccval: h.ccval, rtt: None };
                    self.on_data(now, pkt, d);
                }
            }
            Header::Tfrc(h) => {
                if let TfrcHeader::Data { seq, sent, rtt } = **h {
                    let hdr = match self.cfg.wire {
                        Wire::Plain { header, .. } => header,
                        Wire::Dccp { .. } => IPV4_HEADER + UDP_HEADER,
                    };
                    let seg = pkt.size.saturating_sub(hdr);
                    let d = DataInfo { seq, sent, bytes: seg, ce, ccval: 0, rtt: Some(rtt) };
                    self.on_data(now, pkt, d);
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        self.conn.on_timeout(now);
        if self.conn.is_closed() {
            return;
        }
        if self.rx.on_timeout(now) {
            self.send_feedback(now);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if let Some(p) = self.out.pop_front() {
            return Some(p);
        }
        let t = self.conn.poll(now)?;
        let mut h = DccpHeader::new(t, 0);
        h.ack = self.peer_seq;
        Some(self.dccp(h))
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        if self.conn.is_closed() {
            return None;
        }
        let t = self.rx.timeout().min(self.conn.timeout().unwrap_or(SimTime::NEVER));
        (t != SimTime::NEVER).then_some(t)
    }

    fn take_series(&mut self) -> Vec<Sample> {
        self.series.take()
    }
}

impl ReceiverEndpoint for RateReceiver {
    fn poll_deliver(&mut self) -> Option<Delivery> {
        self.delivered.pop_front()
    }

    fn close(&mut self, _now: SimTime) {
        if matches!(self.cfg.wire, Wire::Dccp { .. }) && self.cfg.closer == Closer::Server {
            // The CCVal-sampled RTT (RFC 4342 §8.1), current under queueing.
            let r = self.rx.rtt();
            self.conn.close((r > 0.0).then(|| SimDuration::from_secs_f64(r)), self.cfg.request_timeout);
        }
    }
}
