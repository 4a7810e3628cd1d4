//! IAX2 trunking: several calls' voice frames in one transport packet.
//!
//! IAX2 (RFC 5456) multiplexes the media of all calls between two peers
//! into one *trunk*: a Meta Trunk Frame (meta command 0x01 in the IANA
//! registry RFC 5457 set up) carries one trunk header — two zero octets
//! (the meta indicator), the meta command, its command data (whose low
//! bit says whether entries carry their own time-stamps) and a 32-bit
//! time-stamp: 8 octets — followed by one entry per call, each a small
//! header and the call's frame. Without per-entry time-stamps an entry's
//! header is the source call number and the data length (4 octets); with
//! them it is the data length and a mini frame header, call number and
//! 16-bit time-stamp (6 octets). Both sizes are parameters (`TrunkConfig`).
//!
//! The sender queues frames and sends them on a timer, as Asterisk's
//! `trunkfreq` does (default 20 ms: "the trunk will send all the data
//! queued to it in the past 20ms", Asterisk configs/samples/iax.conf.sample).
//! Here the timer is free-running from time zero: the tick at T carries
//! every frame completed in [T − interval, T); a frame completed exactly
//! at a tick waits a whole interval, for the next one. The tie rule is the
//! trunk's own, not the event queue's: each queued frame carries the tick
//! it is due at (`next_tick` of its completion time, strictly after it),
//! and a tick takes only the frames due at or before it, so a frame queued
//! at T before the tick's event at T runs stays for T + interval, exactly
//! as one queued after it does. (Asterisk's `send_trunk` sends whatever
//! `iax2_trunk_queue` has appended when the timer takes the trunk's lock,
//! so there a frame and the timer at one instant race; a frame cannot be
//! queued at the instant its last sample is taken, and this rule is the
//! limit of that race as the encoding and queueing work tends to zero:
//! docs/models/trunk.md, "The trunk timer".) A tick with nothing
//! queued sends nothing (a call in silence, or with DTX, simply has no
//! entry; Asterisk sends a trunk frame only when data is queued). So
//! every non-empty tick gives one packet of
//! `header + Σ (entry + frame)` bytes above the transport.
//!
//! Sans-IO: `push` takes a frame and says when the next tick is due if it
//! was idle, `tick` takes the frames due out as one bundle (or several,
//! with an mtu) and says when the next tick is due if frames stay, `members`
//! says which calls' frames a bundle (the transport's application unit)
//! carried, so a bundle's fate — sent, dropped by the sender, lost,
//! arrived — becomes each of its frames' fate.

use crate::time::{SimDuration, SimTime};

/// Bytes of the Meta Trunk Frame header (meta indicator 2, meta command 1,
/// command data 1, time-stamp 4; RFC 5456).
pub const TRUNK_HEADER: u32 = 8;
/// Bytes of a trunk entry's header with per-entry time-stamps (data
/// length 2 + mini frame header: call number 2, time-stamp 2; RFC 5456).
pub const ENTRY_WITH_TIMESTAMP: u32 = 6;
/// Bytes of a trunk entry's header without them (call number 2, data
/// length 2; RFC 5456).
pub const ENTRY_WITHOUT_TIMESTAMP: u32 = 4;
/// Asterisk's default trunk timer (`trunkfreq`, iax.conf.sample).
pub const DEFAULT_INTERVAL: SimDuration = SimDuration(20_000_000);

/// A trunk's framing and timer. Defaults: `TRUNK_HEADER`,
/// `ENTRY_WITH_TIMESTAMP` (each call's frame keeps its own time-stamp),
/// `DEFAULT_INTERVAL`, no size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrunkConfig {
    pub interval: SimDuration,
    /// Trunk header bytes, once per packet.
    pub header: u32,
    /// Per-call entry header bytes, once per frame.
    pub entry: u32,
    /// Largest trunk payload (header + entries) per packet: a tick whose
    /// frames exceed it sends several packets, each filled up to it
    /// (Asterisk's `trunkmtu`). None: one packet per tick, any size.
    pub mtu: Option<u32>,
}

impl Default for TrunkConfig {
    fn default() -> Self {
        TrunkConfig { interval: DEFAULT_INTERVAL, header: TRUNK_HEADER, entry: ENTRY_WITH_TIMESTAMP, mtu: None }
    }
}

/// One call's frame waiting for the tick: its call, its index in the
/// call's record, its payload bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub call: u32,
    pub seq: u32,
    pub payload: u32,
}

/// One trunk packet's content: `id` is the transport's application unit
/// (`members(id)`), `bytes` the trunk frame (header + entries + frames).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub id: u32,
    pub bytes: u32,
    pub frames: u32,
}

#[derive(Debug, Default)]
pub struct Trunk {
    pub cfg: TrunkConfig,
    /// Queued frames, in the order queued, each with the tick it is due at.
    pending: Vec<(SimTime, Entry)>,
    /// Every bundle's members, flat: bundle i is `members[start[i]..start[i+1]]`.
    members: Vec<(u32, u32)>,
    start: Vec<u32>,
}

impl Trunk {
    pub fn new(cfg: TrunkConfig) -> Self {
        Trunk { cfg, pending: Vec::new(), members: Vec::new(), start: vec![0] }
    }

    /// The first tick strictly after `t` (the timer runs from time zero).
    pub fn next_tick(&self, t: SimTime) -> SimTime {
        let iv = self.cfg.interval.as_nanos().max(1);
        SimTime((t.0 / iv + 1) * iv)
    }

    /// Queue a frame completed at `now`, due at the first tick strictly
    /// after `now`. Returns the tick to schedule when the trunk was idle
    /// (nothing queued), else None (a tick is scheduled: `tick` returns the
    /// next one while frames remain).
    pub fn push(&mut self, now: SimTime, e: Entry) -> Option<SimTime> {
        let idle = self.pending.is_empty();
        let due = self.next_tick(now);
        self.pending.push((due, e));
        idle.then_some(due)
    }

    /// Frames waiting for the next tick.
    pub fn queued(&self) -> usize {
        self.pending.len()
    }

    /// The tick at `now`: the queued frames due at or before it as bundles,
    /// in the order they were queued (one bundle, or several of at most
    /// `mtu` trunk bytes each). A frame completed at `now` itself is due at
    /// the next tick and stays, whether it was queued before this tick ran
    /// or after. Returns the tick to schedule for the frames that stay (the
    /// earliest due), or None when nothing is left queued.
    pub fn tick(&mut self, now: SimTime, out: &mut Vec<Bundle>) -> Option<SimTime> {
        let (h, e) = (self.cfg.header, self.cfg.entry);
        let mut bytes = h;
        let mut frames = 0;
        let (ready, stay): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending).into_iter().partition(|&(due, _)| due <= now);
        self.pending = stay;
        for (_, x) in ready {
            let add = e + x.payload;
            if frames > 0 && self.cfg.mtu.is_some_and(|m| bytes + add > m) {
                out.push(self.close(bytes, frames));
                (bytes, frames) = (h, 0);
            }
            self.members.push((x.call, x.seq));
            bytes += add;
            frames += 1;
        }
        if frames > 0 {
            out.push(self.close(bytes, frames));
        }
        self.pending.iter().map(|&(due, _)| due).min()
    }

    fn close(&mut self, bytes: u32, frames: u32) -> Bundle {
        let id = self.start.len() as u32 - 1;
        self.start.push(self.members.len() as u32);
        Bundle { id, bytes, frames }
    }

    /// The (call, record index) of every frame bundle `id` carried.
    pub fn members(&self, id: u32) -> &[(u32, u32)] {
        match (self.start.get(id as usize), self.start.get(id as usize + 1)) {
            (Some(&a), Some(&b)) => &self.members[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Bundles sent so far.
    pub fn bundles(&self) -> u32 {
        self.start.len() as u32 - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    #[test]
    fn ticks_carry_the_frames_of_the_interval_before() {
        let mut t = Trunk::new(TrunkConfig::default());
        // Frames at 3 ms and 19.9 ms go at 20 ms; one at exactly 20 ms at 40 ms.
        assert_eq!(t.push(ms(3), Entry { call: 0, seq: 0, payload: 160 }), Some(ms(20)));
        assert_eq!(t.push(SimTime(19_900_000), Entry { call: 1, seq: 0, payload: 160 }), None);
        let mut out = Vec::new();
        assert_eq!(t.tick(ms(20), &mut out), None);
        // RFC 5456 framing: 8 + 2 × (6 + 160).
        assert_eq!(out, vec![Bundle { id: 0, bytes: 8 + 2 * 166, frames: 2 }]);
        assert_eq!(t.members(0), &[(0, 0), (1, 0)]);
        assert_eq!(t.push(ms(20), Entry { call: 0, seq: 1, payload: 160 }), Some(ms(40)));
        out.clear();
        assert_eq!(t.tick(ms(40), &mut out), None);
        assert_eq!(out, vec![Bundle { id: 1, bytes: 8 + 166, frames: 1 }]);
        assert_eq!(t.members(1), &[(0, 1)]);
        assert!(t.members(2).is_empty());
    }

    #[test]
    fn a_frame_completed_at_a_tick_waits_for_the_next_whatever_runs_first() {
        // Two calls' frames complete exactly at the 20 ms tick, one queued
        // before the tick's event runs and one after; a third was complete
        // at 5 ms. The tick at 20 ms carries only the 5 ms frame (due at
        // 20 ms); both frames of 20 ms are due at 40 ms, so the tick keeps
        // the first queued, asks for 40 ms, and the second (queued into a
        // non-empty trunk) asks for nothing: one tick at 40 ms carries both.
        let mut t = Trunk::new(TrunkConfig::default());
        assert_eq!(t.push(ms(5), Entry { call: 2, seq: 0, payload: 160 }), Some(ms(20)));
        assert_eq!(t.push(ms(20), Entry { call: 0, seq: 1, payload: 160 }), None);
        let mut out = Vec::new();
        assert_eq!(t.tick(ms(20), &mut out), Some(ms(40)));
        assert_eq!(out, vec![Bundle { id: 0, bytes: 8 + 166, frames: 1 }]);
        assert_eq!(t.members(0), &[(2, 0)]);
        assert_eq!(t.push(ms(20), Entry { call: 1, seq: 1, payload: 160 }), None);
        out.clear();
        assert_eq!(t.tick(ms(40), &mut out), None);
        assert_eq!(out, vec![Bundle { id: 1, bytes: 8 + 2 * 166, frames: 2 }]);
        assert_eq!(t.members(1), &[(0, 1), (1, 1)]);
    }

    #[test]
    fn an_mtu_splits_a_tick_into_packets_of_at_most_mtu_bytes() {
        // Asterisk's trunkmtu 1240: 12 G.711 frames (12 × 164 + 8 = 1976 B
        // without time-stamps) go as 7 (8 + 7·164 = 1156 B) and 5 (828 B).
        let cfg = TrunkConfig { entry: ENTRY_WITHOUT_TIMESTAMP, mtu: Some(1240), ..Default::default() };
        let mut t = Trunk::new(cfg);
        for c in 0..12 {
            t.push(ms(1), Entry { call: c, seq: 0, payload: 160 });
        }
        let mut out = Vec::new();
        assert_eq!(t.tick(ms(20), &mut out), None);
        assert_eq!(out, vec![Bundle { id: 0, bytes: 1156, frames: 7 }, Bundle { id: 1, bytes: 828, frames: 5 }]);
        assert_eq!(t.members(1).len(), 5);
        assert_eq!(t.members(1)[0], (7, 0));
    }
}
