//! Per-source reception statistics of an RTP receiver: sequence number
//! validation and extension (RFC 3550 A.1), the report block's loss fields
//! (A.3) and the interarrival jitter estimate (A.8).

use crate::net::wire::ReportBlock;

/// A.1 constants.
const MAX_DROPOUT: u16 = 3000;
const MAX_MISORDER: u16 = 100;
const MIN_SEQUENTIAL: u16 = 2;
const RTP_SEQ_MOD: u32 = 1 << 16;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceStats {
    max_seq: u16,
    /// Shifted count of sequence number cycles.
    cycles: u32,
    base_seq: u32,
    bad_seq: u32,
    probation: u16,
    received: u32,
    expected_prior: u32,
    received_prior: u32,
    /// Relative transit time of the previous packet (A.8), timestamp units.
    transit: Option<u32>,
    /// Jitter scaled by 16 (A.8's integer form).
    jitter16: u32,
    started: bool,
}

impl SourceStats {
    fn init_seq(&mut self, seq: u16) {
        self.base_seq = seq as u32;
        self.max_seq = seq;
        self.bad_seq = RTP_SEQ_MOD + 1;
        self.cycles = 0;
        self.received = 0;
        self.received_prior = 0;
        self.expected_prior = 0;
    }

    /// A.1 `update_seq`: false when the packet is not (yet) valid — during
    /// probation, or a large jump awaiting confirmation. The first packet
    /// puts the source on probation (A.1: `max_seq = seq - 1`).
    pub fn update_seq(&mut self, seq: u16) -> bool {
        if !self.started {
            self.started = true;
            self.init_seq(seq);
            self.max_seq = seq.wrapping_sub(1);
            self.probation = MIN_SEQUENTIAL;
        }
        let udelta = seq.wrapping_sub(self.max_seq);
        if self.probation > 0 {
            // Sequential packets are needed to validate a source.
            if seq == self.max_seq.wrapping_add(1) {
                self.probation -= 1;
                self.max_seq = seq;
                if self.probation == 0 {
                    self.init_seq(seq);
                    self.received += 1;
                    return true;
                }
            } else {
                self.probation = MIN_SEQUENTIAL - 1;
                self.max_seq = seq;
            }
            return false;
        } else if udelta < MAX_DROPOUT {
            // In order, with permissible gap.
            if seq < self.max_seq {
                self.cycles += RTP_SEQ_MOD;
            }
            self.max_seq = seq;
        } else if udelta as u32 <= RTP_SEQ_MOD - MAX_MISORDER as u32 {
            // A very large jump: accept it only if the next packet follows.
            if seq as u32 == self.bad_seq {
                self.init_seq(seq);
            } else {
                self.bad_seq = (seq as u32 + 1) & (RTP_SEQ_MOD - 1);
                return false;
            }
        } else {
            // Duplicate or reordered packet.
        }
        self.received += 1;
        true
    }

    /// A.8: `arrival` and `ts` in the payload's clock units.
    pub fn update_jitter(&mut self, arrival: u32, ts: u32) {
        let transit = arrival.wrapping_sub(ts);
        if let Some(prev) = self.transit {
            let d = (transit.wrapping_sub(prev) as i32).unsigned_abs();
            // J += (|D| - J) / 16, kept scaled by 16 (A.8's integer form).
            self.jitter16 = self.jitter16.wrapping_add(d).wrapping_sub((self.jitter16 + 8) >> 4);
        }
        self.transit = Some(transit);
    }

    pub fn extended_max(&self) -> u32 {
        self.cycles + self.max_seq as u32
    }
    pub fn expected(&self) -> u32 {
        self.extended_max().wrapping_sub(self.base_seq).wrapping_add(1)
    }
    pub fn received(&self) -> u32 {
        self.received
    }
    /// Jitter in timestamp units (the report's field).
    pub fn jitter(&self) -> u32 {
        self.jitter16 >> 4
    }
    /// Cumulative lost (A.3), clamped to the field's 24-bit signed range.
    pub fn cum_lost(&self) -> i32 {
        let lost = self.expected() as i64 - self.received as i64;
        lost.clamp(-0x80_0000, 0x7f_ffff) as i32
    }
    pub fn valid(&self) -> bool {
        self.started && self.probation == 0
    }

    /// A.3: the report block's loss fields; starts the next interval.
    pub fn report(&mut self, ssrc: u32, lsr: u32, dlsr: u32) -> ReportBlock {
        let expected = self.expected();
        let expected_interval = expected.wrapping_sub(self.expected_prior);
        self.expected_prior = expected;
        let received_interval = self.received.wrapping_sub(self.received_prior);
        self.received_prior = self.received;
        let lost_interval = expected_interval as i64 - received_interval as i64;
        let fraction_lost =
            if expected_interval == 0 || lost_interval <= 0 { 0 } else { ((lost_interval << 8) / expected_interval as i64) as u8 };
        ReportBlock {
            ssrc,
            fraction_lost,
            cum_lost: self.cum_lost(),
            ext_high_seq: self.extended_max(),
            jitter: self.jitter(),
            lsr,
            dlsr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(s: &mut SourceStats, seqs: &[u16]) {
        for &q in seqs {
            s.update_seq(q);
        }
    }

    /// A.1 probation then A.3 by hand. Packets 100, 101 validate the source
    /// (base = 101, counted from the second). Then 102, 104, 103 (reorder),
    /// 103 (duplicate), 107: ext max 107, expected 107-101+1 = 7, received
    /// 101,102,104,103,103,107 = 6, cumulative lost 1 (the duplicate hides
    /// one of the two lost, 105 and 106, as A.3 notes). Interval fraction:
    /// lost 1 of 7 → ⌊256/7⌋ = 36.
    #[test]
    fn a3_with_loss_reorder_duplicate() {
        let mut s = SourceStats::default();
        assert!(!s.update_seq(100));
        assert!(s.update_seq(101));
        feed(&mut s, &[102, 104, 103, 103, 107]);
        let b = s.report(7, 0, 0);
        assert_eq!((b.ext_high_seq, b.cum_lost, b.fraction_lost), (107, 1, 36));
        // Next interval: 108..=115 minus 110 and 111 → expected 8, received
        // 6, lost 2: ⌊512/8⌋ = 64; cumulative 3.
        feed(&mut s, &[108, 109, 112, 113, 114, 115]);
        let b = s.report(7, 0, 0);
        assert_eq!((b.ext_high_seq, b.cum_lost, b.fraction_lost), (115, 3, 64));
        // An interval of duplicates only: more received than expected,
        // fraction 0 and cumulative lost falls (may go negative).
        feed(&mut s, &[115, 115, 115, 115]);
        let b = s.report(7, 0, 0);
        assert_eq!((b.cum_lost, b.fraction_lost), (-1, 0));
    }

    /// Wrap-around: 65534, 65535, 0, 1 is in order and adds a cycle.
    #[test]
    fn a1_wraps() {
        let mut s = SourceStats::default();
        feed(&mut s, &[65533, 65534, 65535, 0, 2]);
        assert_eq!(s.extended_max(), 65536 + 2);
        let b = s.report(1, 0, 0);
        // Base 65534: expected 65538 - 65534 + 1 = 5, received 4.
        assert_eq!((b.cum_lost, b.fraction_lost), (1, 51));
    }

    /// A large jump is accepted only when the packet after it follows.
    #[test]
    fn a1_large_jump_needs_confirmation() {
        let mut s = SourceStats::default();
        feed(&mut s, &[10, 11, 12]);
        assert!(!s.update_seq(20000));
        assert!(s.update_seq(20001));
        assert_eq!((s.extended_max(), s.expected(), s.received()), (20001, 1, 1));
    }

    /// A.8 by hand: transits 100, 120, 110, 110 (ts units): |D| = 20, 10, 0.
    /// J16: 0 → 20 → 10+19 = 29... computed with J += |D| - (J+8)/16 on J16:
    /// 0 + 20 - 0 = 20; 20 + 10 - 1 = 29; 29 + 0 - 2 = 27 → J = 1.
    /// The float form gives 20/16 = 1.25, then 1.25 + (10-1.25)/16 = 1.797,
    /// then 1.797 - 1.797/16 = 1.685: the integer form truncates to 1.
    #[test]
    fn a8_jitter() {
        let mut s = SourceStats::default();
        for (arr, ts) in [(1100u32, 1000u32), (1280, 1160), (1430, 1320), (1590, 1480)] {
            s.update_jitter(arr, ts);
        }
        assert_eq!(s.jitter16, 27);
        assert_eq!(s.jitter(), 1);
        // Constant transit over wrap-around: no jitter added.
        let mut s = SourceStats::default();
        for k in 0..100u32 {
            s.update_jitter(k.wrapping_mul(160).wrapping_add(u32::MAX - 5000), k.wrapping_mul(160));
        }
        assert_eq!(s.jitter(), 0);
    }
}
