//! Fetching a call's state ahead of its packet. Voice events of a call
//! group wait in one FIFO lane of the event queue (`sched`), so the calls
//! whose packets come next are known several events ahead. At 10 000 calls
//! nothing of a call's state survives in cache between two of its packets
//! (20 ms, 10 000 other calls apart): each line it touches was a miss paid
//! in full. Asking for those lines some events early overlaps the misses
//! with the work of the packets in between (bench/README.md, issue 14).
//! A prefetch is only a hint: it reads nothing and changes no result.
//! Below `FROM_CALLS` calls the state stays cached and nothing is fetched.

use super::voice::NO_VOICE_ROUTE;
use super::world::{Call, Event, World};

/// Events ahead at which a call's own lines are fetched, and at which the
/// lines found through them (its record's next row, its flow) are: by
/// then the call's lines have arrived.
const FAR: usize = 8;
const NEAR: usize = 4;

/// Ask for the cache line holding `p` (x86-64; elsewhere nothing).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint; it never faults and reads no value,
    // whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Calls from which fetching ahead pays. Below, the calls' hot state
/// stays in cache between two of a call's packets, and the peeks and hints
/// are only work: ~53 instructions of a headline packet's ~570 (1000
/// calls). On the scaled dumbbell (`bench/scale.sh`'s links, 2026-11-28,
/// alternated runs, median event-loop time with / without): 1000 calls
/// 0.155 / 0.142 s, 2000 0.024 / 0.022 s, 3000 0.034 / 0.029 s, 4000
/// 0.030 / 0.031 s, 10 000 0.050 / 0.054 s (bench/README.md, Profiles).
const FROM_CALLS: usize = 4000;

/// Whether a run of `calls` calls fetches ahead (`World::prime`).
pub(super) fn worth_it(calls: usize) -> bool {
    calls >= FROM_CALLS
}

impl World {
    /// Before handling a voice packet of lane `lane`: fetch the state of
    /// the calls whose voice packets are `FAR` and `NEAR` events later.
    #[inline(always)]
    pub(super) fn prefetch_voice(&self, lane: u32) {
        if let Some(&Event::Voice { call }) = self.q.peek_lane(lane, FAR) {
            // The hot lines `Call` keeps first (see its layout).
            let c = &self.calls[call as usize] as *const _ as *const u8;
            for line in 0..Call::HOT_LINES {
                prefetch(c.wrapping_add(64 * line));
            }
        }
        if let Some(&Event::Voice { call }) = self.q.peek_lane(lane, NEAR) {
            let c = &self.calls[call as usize];
            if let Some(row) = c.rec.next_row() {
                prefetch(row.as_ptr());
                prefetch(row.as_ptr().wrapping_add(row.len() - 1));
            }
            // A packet that writes its RTP header reads the sender's line
            // past the hot ones (`RtpSender::HOT_BYTES`).
            if !c.direct {
                prefetch((c as *const Call as *const u8).wrapping_add(64 * Call::HOT_LINES));
            }
            // A call on a planned route does not read its flow (`voice.rs`).
            if c.route == NO_VOICE_ROUTE {
                let f = &self.flows[c.flow as usize];
                prefetch(&f.src);
                prefetch(&f.sender);
                prefetch(&f.owner);
            }
        }
    }
}
