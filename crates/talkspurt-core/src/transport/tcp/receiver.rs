//! The data-receiving TCP endpoint: reassembly, cumulative and selective
//! acknowledgements (RFC 2018 §4), delayed ACKs (RFC 1122 §4.2.3.2,
//! RFC 5681 §4.2), the advertised window and ECN echo (RFC 3168 §6.1.3).

use super::config::TcpConfig;
use crate::cc::real::RealReceiver;
use crate::cc::CcAlgorithm;
use crate::net::wire::{
    sack_room, CcReport, Header, SackBlocks, TcpFlags, TcpHeader, TcpOptions, CC_REPORT_OPTION, IPV4_HEADER,
    MAX_SACK_BLOCKS, TIMESTAMPS_OPTION,
};
use crate::net::{Ecn, Packet, NO_APP};
use crate::time::SimTime;
use crate::transport::seq::RangeSet;
use crate::transport::{Delivery, Endpoint, FlowAddr, ReceiverEndpoint};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct TcpReceiver {
    addr: FlowAddr,
    cfg: TcpConfig,
    /// Next in-order byte expected.
    rcv_nxt: u64,
    /// Out-of-order data above `rcv_nxt`.
    ooo: RangeSet,
    /// Offsets identifying SACK blocks, most recently reported first.
    recent: Vec<u64>,
    /// Full-sized segments received since the last ACK.
    unacked_segs: u32,
    delack_at: SimTime,
    /// ACKs (and the SYN-ACK) waiting to be sent.
    out: VecDeque<Packet>,
    /// RFC 3168 §6.1.3: echo ECE until a CWR arrives.
    ece: bool,
    delivered: VecDeque<Delivery>,
    /// TCP-Real's receiver half (cc = "real").
    real: Option<RealReceiver>,
    /// Highest byte received so far (a segment below it fills a gap).
    high: u64,
}

impl TcpReceiver {
    pub fn new(addr: FlowAddr, cfg: TcpConfig) -> Self {
        TcpReceiver {
            addr,
            cfg: cfg.clone(),
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            recent: Vec::new(),
            unacked_segs: 0,
            delack_at: SimTime::NEVER,
            out: VecDeque::new(),
            ece: false,
            delivered: VecDeque::new(),
            real: (cfg.cc == CcAlgorithm::Real).then(|| RealReceiver::new(cfg.params.real)),
            high: 0,
        }
    }

    fn window(&self) -> u32 {
        let held = self.ooo.covered(self.rcv_nxt, u64::MAX);
        self.cfg.rcv_window.saturating_sub(held).min(u32::MAX as u64) as u32
    }

    /// RFC 2018 §4: the first block holds the segment that triggered the
    /// ACK; the others repeat the most recently reported blocks, as many
    /// as fit in the 40 option bytes (RFC 2018 §3, RFC 9293 §3.1) beside
    /// `other` bytes of other options (timestamps, TCP-Real's report).
    fn sack_blocks(&self, other: u32) -> Option<SackBlocks> {
        if !self.cfg.sack() || self.ooo.is_empty() {
            return None;
        }
        let max = sack_room(other);
        let mut blocks = SackBlocks::default();
        for &p in &self.recent {
            if let Some(&(s, e)) = self.ooo.ranges().iter().find(|&&(s, e)| s <= p && p < e) {
                if !blocks.blocks().contains(&(s, e)) {
                    blocks.push((s, e));
                    if blocks.len() == max {
                        break;
                    }
                }
            }
        }
        Some(blocks)
    }

    fn ack(&mut self, flags: u8) {
        let mut f = TcpFlags::ACK | flags;
        if self.ece {
            f |= TcpFlags::ECE;
        }
        let report = self.real.as_ref().and_then(|r| r.feedback()).map(|fb| {
            let (code, value) = fb.encode();
            CcReport { seq: fb.seq, code, value }
        });
        let ts = if self.cfg.timestamps { TIMESTAMPS_OPTION } else { 0 };
        let other = ts + if report.is_some() { CC_REPORT_OPTION } else { 0 };
        let hdr = TcpHeader {
            ack: self.rcv_nxt,
            wnd: self.window(),
            flags: TcpFlags(f),
            timestamps: self.cfg.timestamps,
            opts: TcpOptions::boxed(self.sack_blocks(other), report),
            ..Default::default()
        };
        let size = IPV4_HEADER + hdr.wire_len();
        self.out.push_back(Packet {
            flow: self.addr.flow,
            dir: self.addr.dir,
            ecn: Ecn::NotEct,
            dst: self.addr.peer,
            size,
            app_seq: NO_APP,
            hdr: Header::Tcp(hdr),
            app: Default::default(),
        });
        self.unacked_segs = 0;
        self.delack_at = SimTime::NEVER;
    }

    fn on_data(&mut self, now: SimTime, h: &TcpHeader, ce: bool) {
        if ce && self.cfg.ecn {
            self.ece = true;
        }
        if h.flags.has(TcpFlags::CWR) {
            self.ece = false;
        }
        let (start, end) = (h.seq, h.seq + h.len as u64);
        if let Some(r) = &mut self.real {
            r.on_segment(now, start, h.len, start < self.high, h.flags.has(TcpFlags::WAVE));
        }
        self.high = self.high.max(end);
        let in_order = start <= self.rcv_nxt && end > self.rcv_nxt;
        let filled_gap = in_order && !self.ooo.is_empty();
        if end <= self.rcv_nxt {
            // A duplicate: ACK at once (RFC 5681 §4.2 / RFC 9293 §3.10.7.4).
            self.ack(0);
            return;
        }
        if in_order {
            let mut new_nxt = end;
            if let Some(e) = self.ooo.contiguous_from(end) {
                new_nxt = e;
            }
            self.ooo.remove_below(new_nxt);
            let bytes = new_nxt - self.rcv_nxt;
            self.rcv_nxt = new_nxt;
            self.delivered.push_back(Delivery { app_seq: NO_APP, bytes: bytes as u32, at: now, rtp: None });
        } else {
            let (s, _) = self.ooo.insert(start, end);
            self.recent.retain(|&p| p != s && p >= self.rcv_nxt);
            self.recent.insert(0, start);
            self.recent.truncate(MAX_SACK_BLOCKS * 2);
        }
        self.recent.retain(|&p| p >= self.rcv_nxt);
        // RFC 5681 §4.2: out-of-order data and data filling a gap are
        // acknowledged at once; otherwise every second full-sized segment,
        // or when the delayed-ACK timer fires.
        if !in_order || filled_gap || !self.cfg.delayed_ack {
            self.ack(0);
            return;
        }
        // "Every second full-sized segment" (RFC 5681 §4.2); small
        // segments (voice frames) count too, as Linux and BSD do, so a
        // voice stream is not held to the timer.
        self.unacked_segs += 1;
        if self.unacked_segs >= 2 {
            self.ack(0);
        } else if self.delack_at == SimTime::NEVER {
            self.delack_at = now + self.cfg.delack_timeout;
        }
    }
}

impl Endpoint for TcpReceiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let Header::Tcp(h) = &pkt.hdr else { return };
        if h.flags.has(TcpFlags::SYN) {
            self.ack(TcpFlags::SYN);
            return;
        }
        if h.len > 0 {
            self.on_data(now, h, pkt.ecn == Ecn::Ce);
        }
    }
    fn handle_timeout(&mut self, now: SimTime) {
        if now >= self.delack_at {
            self.ack(0);
        }
    }
    fn poll_transmit(&mut self, _now: SimTime) -> Option<Packet> {
        self.out.pop_front()
    }
    fn poll_timeout(&self) -> Option<SimTime> {
        (self.delack_at != SimTime::NEVER).then_some(self.delack_at)
    }
}

impl ReceiverEndpoint for TcpReceiver {
    fn poll_deliver(&mut self) -> Option<Delivery> {
        self.delivered.pop_front()
    }
}
