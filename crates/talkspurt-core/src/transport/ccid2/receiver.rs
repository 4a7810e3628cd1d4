//! The CCID 2 receiver: delivers every data packet at once and
//! acknowledges every Ack Ratio data packets (RFC 4341 §6.1; RFC 4340
//! §11.3), or when data has waited `ack_delay`, with an Ack Vector of the
//! sequence numbers received (RFC 4340 §11.4).

use super::Ccid2Config;
use crate::net::wire::dccp::{opt_ack_vector, ACK_VECTOR_RUN};
use crate::net::wire::{DccpHeader, DccpType, Header, IPV4_HEADER};
use crate::net::{Ecn, Packet, NO_APP};
use crate::time::{SimDuration, SimTime};
use crate::transport::dccp_conn::{Closer, Server, ServerStep, Teardown};
use crate::transport::seq::RangeSet;
use crate::transport::{Delivery, Endpoint, FlowAddr, ReceiverEndpoint};
use std::collections::VecDeque;

/// Sequence numbers an Ack Vector reaches back from the highest received at
/// most: 256. The sender's acknowledgements of Acks (RFC 4341 §6.1.4)
/// normally trim it sooner (RFC 4340 §11.4.2); this bound only holds the
/// option's size when they stop coming.
pub const ACK_VECTOR_SPAN: u64 = 256;
/// Sent Acks remembered for the sender's acknowledgements of them.
const ACKS_HELD: usize = 1 << 16;

#[derive(Debug)]
pub struct Ccid2Receiver {
    addr: FlowAddr,
    cfg: Ccid2Config,
    conn: Server,
    seq: u64,
    received: RangeSet,
    /// Sequence numbers received CE-marked, ascending, within the span.
    marked: Vec<u64>,
    highest: Option<u64>,
    ack_ratio: u16,
    /// Data packets since the last acknowledgement, and when the oldest of
    /// them arrived.
    unacked: u16,
    ack_timer: SimTime,
    /// Acks sent and not yet known to the sender: (our sequence number,
    /// the Acknowledgement Number it carried, when it was sent).
    acks_sent: VecDeque<(u64, u64, SimTime)>,
    /// Smoothed RTT from the sender's acknowledgements of our Acks (RFC
    /// 6298 §2's gain 1/8), for the CloseReq timer: the handshake's RTT
    /// knows no queueing.
    srtt: Option<SimDuration>,
    /// Ack Vector state below this is known to the sender and not reported
    /// again (RFC 4340 §11.4.2).
    known_below: u64,
    out: VecDeque<Packet>,
    delivered: VecDeque<Delivery>,
    /// Greatest sequence number the sender sent (a CloseReq's ack).
    peer_seq: u64,
}

impl Ccid2Receiver {
    pub fn new(addr: FlowAddr, cfg: Ccid2Config) -> Self {
        Ccid2Receiver {
            addr,
            conn: Server::new(cfg.handshake),
            seq: 0,
            received: RangeSet::new(),
            marked: Vec::new(),
            highest: None,
            ack_ratio: cfg.ack_ratio.max(1),
            unacked: 0,
            ack_timer: SimTime::NEVER,
            acks_sent: VecDeque::new(),
            srtt: None,
            known_below: 0,
            out: VecDeque::new(),
            delivered: VecDeque::new(),
            peer_seq: 0,
            cfg,
        }
    }

    fn send(&mut self, mut h: DccpHeader) {
        h.seq = self.seq;
        self.seq += 1;
        let size = IPV4_HEADER + h.wire_len();
        let p = Packet { flow: self.addr.flow, dir: self.addr.dir, ecn: Ecn::NotEct, dst: self.addr.peer, size, app_seq: NO_APP, hdr: Header::Dccp(Box::new(h)), app: Default::default() };
        self.out.push_back(p);
    }

    /// An Ack with the Ack Vector of the last ACK_VECTOR_SPAN sequence
    /// numbers: one cell per run of received or missing packets, runs of at
    /// most 64 (RFC 4340 §11.4).
    fn acknowledge(&mut self, now: SimTime) {
        let Some(high) = self.highest else { return };
        let low = (high + 1).saturating_sub(ACK_VECTOR_SPAN).max(self.known_below);
        self.received.remove_below(low);
        self.marked.retain(|&s| s >= low);
        let ranges: Vec<(u64, u64)> = self.received.ranges().to_vec();
        let mut cells = 0u64;
        let mut at = low;
        for &(a, b) in &ranges {
            cells += (a - at).div_ceil(ACK_VECTOR_RUN) + received_cells(a, b, &self.marked);
            at = b;
        }
        let mut h = DccpHeader::new(DccpType::Ack, 0);
        h.ack = high;
        h.ack_vector = opt_ack_vector(cells as u32) as u16;
        h.received = ranges;
        h.marked = self.marked.clone();
        // Held until the sender acknowledges them, once per window; the
        // bound only matters if it stops (a window of 2^16 Acks).
        self.acks_sent.push_back((self.seq, high, now));
        if self.acks_sent.len() > ACKS_HELD {
            self.acks_sent.pop_front();
        }
        self.send(h);
        self.unacked = 0;
        self.ack_timer = SimTime::NEVER;
    }
}

impl Ccid2Receiver {
    /// The sender acknowledged our packets up to `ack` (RFC 4341 §6.1.4):
    /// it has seen the Ack Vector of the latest Ack at or below it, so the
    /// state up to that Ack's Acknowledgement Number need not be sent again
    /// (RFC 4340 §11.4.2).
    fn on_ack_of_ack(&mut self, now: SimTime, ack: u64) {
        let mut covered = None;
        while self.acks_sent.front().is_some_and(|&(s, ..)| s <= ack) {
            covered = self.acks_sent.pop_front();
        }
        if let Some((s, hi, sent)) = covered {
            self.known_below = self.known_below.max(hi + 1);
            // The sender names its latest Ack on its next data packet, so
            // this samples the RTT (plus at most one packet interval).
            if s == ack {
                let r = now.saturating_since(sent);
                self.srtt = Some(self.srtt.map_or(r, |x| SimDuration::from_secs_f64(0.875 * x.as_secs_f64() + 0.125 * r.as_secs_f64())));
            }
        }
    }

    /// Sequence numbers the next Ack Vector starts from.
    pub fn vector_start(&self) -> u64 {
        self.known_below
    }

    /// CloseReq and Reset packets sent (RFC 4340 §8.3).
    pub fn teardown(&self) -> Teardown {
        self.conn.sent
    }
}

/// Ack Vector cells for the received run [a, b): runs of one state (0
/// received, 1 received ECN-marked) of at most 64 packets each (RFC 4340
/// §11.4), so each mark splits the run.
fn received_cells(a: u64, b: u64, marked: &[u64]) -> u64 {
    let (mut cells, mut at) = (0, a);
    let mut i = marked.partition_point(|&s| s < a);
    while i < marked.len() && marked[i] < b {
        // A run of consecutive marked packets [start, end).
        let start = marked[i];
        let mut end = start + 1;
        i += 1;
        while i < marked.len() && marked[i] == end && end < b {
            end += 1;
            i += 1;
        }
        cells += (start - at).div_ceil(ACK_VECTOR_RUN) + (end - start).div_ceil(ACK_VECTOR_RUN);
        at = end;
    }
    cells + (b - at).div_ceil(ACK_VECTOR_RUN)
}

impl Endpoint for Ccid2Receiver {
    fn handle_packet(&mut self, now: SimTime, pkt: &Packet) {
        let Header::Dccp(h) = &pkt.hdr else { return };
        self.peer_seq = self.peer_seq.max(h.seq);
        match self.conn.on_packet(now, h.ptype) {
            ServerStep::Respond => {
                let mut r = DccpHeader::new(DccpType::Response, 0);
                r.ack = h.seq;
                self.send(r);
                return;
            }
            ServerStep::Reset(code) => {
                // RFC 4340 §8.5 step 14: the Close is answered with the
                // Reset and the connection is torn down at once, so a
                // delayed Ack still pending is not sent. Nothing asks for
                // it: RFC 4341 §6 acknowledges data for the sender's
                // congestion control, which stopped at its Close, and DCCP
                // retransmits nothing the Ack could recover (RFC 4340 §1).
                let mut r = DccpHeader::new(DccpType::Reset, 0);
                r.ack = h.seq;
                r.reset_code = code;
                self.send(r);
                self.ack_timer = SimTime::NEVER;
                return;
            }
            _ if self.conn.is_closed() => return,
            _ => {}
        }
        if !h.ptype.carries_data() {
            return;
        }
        if h.ack_ratio > 0 {
            self.ack_ratio = h.ack_ratio;
        }
        if h.ptype == DccpType::DataAck {
            self.on_ack_of_ack(now, h.ack);
        }
        let seg = pkt.size - IPV4_HEADER - h.wire_len();
        self.delivered.push_back(Delivery { app_seq: pkt.app_seq, bytes: seg, at: now, rtp: pkt.app.rtp() });
        self.received.insert(h.seq, h.seq + 1);
        if pkt.ecn == Ecn::Ce {
            let i = self.marked.partition_point(|&s| s < h.seq);
            if self.marked.get(i) != Some(&h.seq) {
                self.marked.insert(i, h.seq);
            }
        }
        self.highest = Some(self.highest.map_or(h.seq, |x| x.max(h.seq)));
        self.unacked += 1;
        if self.unacked >= self.ack_ratio {
            self.acknowledge(now);
        } else if self.ack_timer == SimTime::NEVER {
            self.ack_timer = now + self.cfg.ack_delay;
        }
    }

    fn handle_timeout(&mut self, now: SimTime) {
        self.conn.on_timeout(now);
        if now >= self.ack_timer && self.unacked > 0 {
            self.acknowledge(now);
        }
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<Packet> {
        if self.out.is_empty() {
            if let Some(t) = self.conn.poll(now) {
                let mut h = DccpHeader::new(t, 0);
                h.ack = self.peer_seq;
                self.send(h);
            }
        }
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        let t = self.ack_timer.min(self.conn.timeout().unwrap_or(SimTime::NEVER));
        (t != SimTime::NEVER).then_some(t)
    }
}

impl ReceiverEndpoint for Ccid2Receiver {
    fn poll_deliver(&mut self) -> Option<Delivery> {
        self.delivered.pop_front()
    }

    fn close(&mut self, _now: SimTime) {
        if self.cfg.closer == Closer::Server {
            self.conn.close(self.srtt, self.cfg.request_timeout);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::received_cells;

    /// RFC 4340 §11.4: a cell is one state for up to 64 packets, so a
    /// received run of 200 is 4 cells; marks at 10, 11 and 150 split it
    /// into [0,10) [10,12)ᴹ [12,150) [150]ᴹ [151,200): 1+1+3+1+1 = 7.
    #[test]
    fn marks_split_ack_vector_runs() {
        assert_eq!(received_cells(0, 200, &[]), 4);
        assert_eq!(received_cells(0, 200, &[10, 11, 150]), 7);
        // marks outside the run do not count
        assert_eq!(received_cells(100, 164, &[5, 300]), 1);
        // a run that is all marks
        assert_eq!(received_cells(0, 3, &[0, 1, 2]), 1);
    }
}
