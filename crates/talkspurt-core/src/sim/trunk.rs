//! IAX2 trunks in the world: a call group's calls share one flow, their
//! frames multiplexed by `voice::trunk::Trunk` (RFC 5456's Meta Trunk
//! Frames on a timer). Each call keeps its own source and record: a frame
//! is recorded when it is complete (its own generation time), joins the
//! trunk's queue, and leaves in the next tick's packet; whatever happens
//! to that packet — dropped by the sender's buffer, lost or dropped on a
//! link, delivered — happens to every frame in it, in every call's record.

use super::world::{Call, Event, Side, World};
use crate::net::NO_APP;
use crate::time::SimTime;
use crate::trace::record::{NetFate, NO_WHERE};
use crate::transport::framing::StreamFramer;
use crate::transport::{AppUnit, Delivery, SenderEndpoint};
use crate::voice::trunk::{Bundle, Entry, Trunk};

/// `Call::trunk` of a call that is not trunked.
pub const NO_TRUNK: u32 = u32::MAX;

/// A trunk and the flow it drives.
#[derive(Debug)]
pub struct TrunkApp {
    pub flow: u32,
    pub trunk: Trunk,
    /// Bytes below the trunk frame on every packet (IP + UDP: what
    /// `AppUnit::overhead` counts besides the application's header).
    pub overhead: u32,
    /// Member calls still generating; the connection closes once the last
    /// has stopped and its frames have left.
    pub live: u32,
    /// Over a byte stream: the trunk frames' ends (None over datagrams).
    pub framer: Option<StreamFramer>,
}

impl World {
    /// Call `ci`'s frame `seq` of `payload` bytes is complete at `now`:
    /// queue it on its trunk (arming the tick if the trunk was idle).
    /// `last`: the call generates nothing more.
    pub(super) fn trunk_push(&mut self, now: SimTime, ci: u32, seq: u32, payload: u32, last: bool) {
        let t = self.calls[ci as usize].trunk;
        let app = &mut self.trunks[t as usize];
        if let Some(at) = app.trunk.push(now, Entry { call: ci, seq, payload }) {
            self.q.schedule(at, Event::Trunk { trunk: t });
        }
        if last {
            app.live -= 1;
        }
    }

    /// Trunk `t`'s tick: its frames due now leave as one packet (or
    /// several, with an mtu), through the transport like any application
    /// unit. Frames completed at this very instant are due at the next tick
    /// (the trunk's tie rule, voice/trunk.rs), which is armed for them.
    pub(super) fn on_trunk(&mut self, now: SimTime, t: u32) {
        let mut out: Vec<Bundle> = Vec::new();
        let app = &mut self.trunks[t as usize];
        if let Some(at) = app.trunk.tick(now, &mut out) {
            self.q.schedule(at, Event::Trunk { trunk: t });
        }
        let app = &mut self.trunks[t as usize];
        let (flow, overhead) = (app.flow, app.overhead);
        for b in out {
            let unit = AppUnit { app_seq: b.id, payload: b.bytes, overhead, rtp: None };
            let f = &mut self.flows[flow as usize];
            f.largest.message = f.largest.message.max(unit.segment_bytes());
            let before = self.flows[flow as usize].sender.queued_bytes();
            if self.flows[flow as usize].sender.send(now, unit).is_err() {
                let (trunks, calls) = (&self.trunks, &mut self.calls);
                for &(c, seq) in trunks[t as usize].trunk.members(b.id) {
                    calls[c as usize].rec.set_fate(seq, NetFate::SenderDrop, NO_WHERE);
                }
            } else if let Some(fr) = &mut self.trunks[t as usize].framer {
                let after = self.flows[flow as usize].sender.queued_bytes();
                fr.wrote(after - before, b.id, None);
            }
        }
        let app = &self.trunks[t as usize];
        if app.live == 0 && app.trunk.queued() == 0 {
            // The last member's last frame has left: the connection tears
            // down (DCCP Close, RFC 4340 §8.3), as a call's own does.
            self.end_flow(now, flow);
        }
        self.service(now, flow, Side::Sender);
    }

    /// Trunk `t`'s packet `id` left the sender at `now`.
    pub(super) fn trunk_sent(&mut self, t: u32, id: u32, now: SimTime) {
        let (trunks, calls) = (&self.trunks, &mut self.calls);
        for &(c, seq) in trunks[t as usize].trunk.members(id) {
            calls[c as usize].rec.sent(seq, now);
        }
    }

    /// Trunk `t`'s packet `id` was lost (or dropped) at channel `ch`.
    pub(super) fn trunk_lost(&mut self, t: u32, id: u32, fate: NetFate, ch: u32) {
        let (trunks, calls) = (&self.trunks, &mut self.calls);
        for &(c, seq) in trunks[t as usize].trunk.members(id) {
            calls[c as usize].rec.set_fate(seq, fate, ch);
        }
    }

    /// Trunk `t`'s packet `id` reached the receiver at `now`.
    pub(super) fn trunk_arrived(&mut self, t: u32, id: u32, now: SimTime) {
        trunk_arrived(&self.trunks, &mut self.calls, t, id, now);
    }
}

fn trunk_arrived(trunks: &[TrunkApp], calls: &mut [Call], t: u32, id: u32, now: SimTime) {
    for &(c, seq) in trunks[t as usize].trunk.members(id) {
        calls[c as usize].rec.arrived(seq, now);
    }
}

/// The receiving transport handed `d` up on trunk `t`'s flow: a datagram
/// (its bundle), or bytes of the stream completing bundles.
pub(super) fn trunk_delivered(trunks: &mut [TrunkApp], calls: &mut [Call], t: u32, d: &Delivery) {
    if d.app_seq != NO_APP {
        return trunk_arrived(trunks, calls, t, d.app_seq, d.at);
    }
    let mut done = Vec::new();
    if let Some(fr) = &mut trunks[t as usize].framer {
        fr.delivered(d.bytes as u64, |id, _| done.push(id));
    }
    for id in done {
        trunk_arrived(trunks, calls, t, id, d.at);
    }
}
