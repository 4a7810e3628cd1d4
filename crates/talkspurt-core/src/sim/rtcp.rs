//! A call's RTCP (RFC 3550 §6): what its RTP session queued goes out on
//! the call's RTCP flow (UDP), and reports that arrive feed the session
//! (and, at the sender, the rate adaptation).

use super::world::{Event, Side, World};
use crate::net::wire::{IPV4_HEADER, UDP_HEADER};
use crate::net::{AppHeader, Dir, Ecn, Header, Packet, NO_APP};
use crate::time::SimTime;

impl World {
    /// Send what a call's RTP session queued on its RTCP flow (UDP) and
    /// re-arm the session's timer.
    pub(super) fn rtcp_service(&mut self, now: SimTime, c: u32, side: Side) {
        let call = &mut self.calls[c as usize];
        let Some(flow) = call.rtp.rtcp_flow else { return };
        let f = &self.flows[flow as usize];
        let (src, dst) = (f.src, f.dst);
        let mut out = Vec::new();
        let want = match side {
            Side::Sender => {
                while let Some(r) = call.rtp.tx.poll_transmit() {
                    out.push((r, Dir::Forward, dst, src));
                }
                // The adaptation's own timer (a report that did not come)
                // shares the sender side's slot.
                let adapt = if now > call.stop { None } else { call.adapt.poll_timeout() };
                match (call.rtp.tx.poll_timeout(), adapt) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
            Side::Receiver => {
                while let Some(r) = call.rtp.rx.poll_transmit() {
                    out.push((r, Dir::Reverse, src, dst));
                }
                call.rtp.rx.poll_timeout()
            }
        }
        .unwrap_or(SimTime::NEVER);
        for (r, dir, to, from) in out {
            let size = IPV4_HEADER + UDP_HEADER + r.wire_len();
            let pkt = Packet { flow, dir, ecn: Ecn::NotEct, dst: to, size, app_seq: NO_APP, hdr: Header::Datagram, app: AppHeader::Rtcp(Box::new(r)) };
            self.forward(now, from, pkt);
        }
        let make = |gen| Event::Timer { flow, side, gen };
        let slot = &mut self.flows[flow as usize].timers[side as usize];
        slot.arm(&mut self.q, now, want, self.end, &mut self.timer_late, make);
    }

    pub(super) fn deliver_rtcp(&mut self, now: SimTime, c: u32, pkt: &Packet) {
        let AppHeader::Rtcp(r) = &pkt.app else { return };
        let call = &mut self.calls[c as usize];
        match pkt.dir {
            Dir::Forward => {
                call.rtp.rx.handle_rtcp(now, r);
                self.rtcp_service(now, c, Side::Receiver);
            }
            Dir::Reverse => {
                call.rtp.tx.handle_rtcp(now, r);
                while let Some(ev) = call.rtp.tx.poll_event() {
                    let ch = call.adapt.on_event(now, &ev);
                    if let Some(log) = &mut call.reports {
                        log.extend(call.adapt.report_view(now, &ev));
                    }
                    if let Some(ch) = ch {
                        call.change(now, ch);
                    }
                }
                self.rtcp_service(now, c, Side::Sender);
            }
        }
    }
}
