//! Where the calls' records are written while the loop runs: by the loop,
//! or by a second thread the loop hands its writes to
//! (`trace::record::RecordLog`). Results are the same bits either way;
//! only the time differs.
//!
//! The hand-off pays where recording is dear: blocks whose packets did
//! not all arrive alike are copied and packed field by field (a call
//! behind a busy queue; bench/tcp_mix_big.toml: the loop −13 %), while a
//! block of packets on one steady path is packed in one pass as it fills,
//! cheaper than logging its writes (bench/dumbbell.toml: the loop's
//! instructions −7 % but no faster, and its best runs 5 % slower, with
//! the writes logged). So `Auto` looks at the blocks filled so far, at
//! the loop's first progress check (50 ms of wall time): the second
//! thread takes over if at least half of them were kept to be packed
//! later. (bench/README.md, Profiles, "Mixed, session 20".)

use super::World;
use crate::trace::record::RecordLog;

/// Who writes the records (`run::RunOptions::defer_records`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Deferral {
    /// The loop, throughout.
    #[default]
    Never,
    /// A second thread, from the loop's start.
    Always,
    /// The loop, and a second thread once recording proves dear (see the
    /// module note).
    Auto,
}

/// Blocks filled before `Auto` decides: fewer say little.
const DECIDE_AFTER_BLOCKS: usize = 64;

/// Whether blocks so far (`filled`, of which `kept` as rows to be packed
/// later) make recording dear enough to hand off; None: too few yet.
pub fn dear(filled: usize, kept: u64) -> Option<bool> {
    (filled >= DECIDE_AFTER_BLOCKS).then_some(2 * kept >= filled as u64)
}

/// The world's record writer: the policy and, once started, the log.
#[derive(Default)]
pub struct Records {
    pub mode: Deferral,
    log: Option<RecordLog>,
    decided: bool,
}

impl World {
    /// At the loop's start: hand off at once with `Always`.
    pub(super) fn records_start(&mut self) {
        self.records.decided = self.records.mode != Deferral::Auto;
        if self.records.mode == Deferral::Always {
            self.hand_off_records();
        }
    }

    /// At a progress check: with `Auto`, decide once enough blocks filled.
    pub(super) fn records_check(&mut self) {
        if self.records.decided {
            return;
        }
        let (filled, kept) = self.calls.iter().fold((0, 0u64), |(f, k), c| {
            let (bf, bk) = c.rec.block_counts();
            (f + bf, k + bk as u64)
        });
        if let Some(go) = dear(filled, kept) {
            self.records.decided = true;
            if go {
                self.hand_off_records();
            }
        }
    }

    fn hand_off_records(&mut self) {
        // Records folded as they run (streaming scoring) read every write:
        // they stay with the loop.
        if self.records.log.is_none() && !self.calls.is_empty() && self.calls.iter().all(|c| c.rec.sink().is_none()) {
            self.records.log = Some(RecordLog::start(self.calls.iter_mut().map(|c| &mut c.rec)));
        }
    }

    /// After the loop: the records back in the calls (applied to the
    /// end), if a second thread had them. True if it had.
    pub fn records_finish(&mut self) -> bool {
        match self.records.log.take() {
            Some(log) => {
                log.finish(self.calls.iter_mut().map(|c| &mut c.rec));
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_off_when_half_the_blocks_were_kept() {
        assert_eq!(dear(63, 63), None);
        assert_eq!(dear(64, 32), Some(true));
        assert_eq!(dear(64, 31), Some(false));
        assert_eq!(dear(1000, 0), Some(false));
    }
}
