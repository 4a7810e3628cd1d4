//! ACK processing and loss recovery of the TCP sender: RTT sampling
//! (Karn), duplicate ACKs, fast retransmit and the recovery variants —
//! Tahoe, Reno (RFC 5681 §3.2), NewReno (RFC 6582 §3.2) and SACK-based
//! (RFC 6675) — the retransmission timeout (RFC 6298 §5) and ECN
//! (RFC 3168 §6.1.2).

use super::scoreboard::Board;
use super::sender::TcpSender;
use crate::cc::real::RealFeedback;
use crate::cc::{AckSample, CcAlgorithm, Recovery, WindowController};
use crate::net::wire::{TcpFlags, TcpHeader};
use crate::net::Packet;
use crate::time::SimTime;

/// RFC 5681 §3.2 / RFC 6675 §2: DupThresh.
const DUP_THRESH: u32 = 3;

/// Sends in SACK recovery whose running sums were checked against the
/// walk (builds with debug assertions; tests/tcp.rs asserts the check ran).
#[cfg(debug_assertions)]
pub(super) static WALK_CHECKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl TcpSender {
    pub(super) fn on_ack(&mut self, now: SimTime, h: &TcpHeader) {
        if !h.flags.has(TcpFlags::ACK) {
            return;
        }
        self.rwnd = h.wnd as u64;
        self.last_activity = now;
        // A receiver-side controller's report comes first: the duplicate
        // ACK that triggers a fast retransmit carries the loss verdict.
        if let Some(r) = h.cc_report() {
            if let Some(fb) = RealFeedback::decode(r.seq, r.code, r.value) {
                self.cc.on_receiver_verdict(now, &fb);
            }
        }
        if let Some(s) = h.sack() {
            let mut new = std::mem::take(&mut self.sack_new);
            for &(a, b) in s.blocks() {
                if b > self.snd_una {
                    self.sacked.insert_new(a.max(self.snd_una), b.min(self.snd_max), |x, y| new.push((x, y)));
                }
            }
            for &(x, y) in &new {
                self.sums.newly_sacked(&mut self.segs, &self.sacked, x, y);
            }
            new.clear();
            self.sack_new = new;
        }
        let ack = h.ack.min(self.snd_max);
        if ack > self.snd_una {
            self.on_new_ack(now, ack);
        } else if ack == self.snd_una && self.flight() > 0 && h.len == 0 {
            self.on_dupack(now);
        }
        // RFC 3168 §6.1.2: react to ECN-Echo at most once per window of
        // data, without retransmitting.
        if h.flags.has(TcpFlags::ECE) && self.cfg.ecn && ack > self.ecn_recover && !self.in_recovery {
            self.cc.on_congestion_event(now, self.flight());
            let ss = self.cc.ssthresh();
            self.cc.set_cwnd(ss);
            self.ecn_recover = self.snd_max;
            self.send_cwr = true;
        }
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64) {
        let acked = ack - self.snd_una;
        let flight = self.flight();
        // Karn's algorithm (RFC 6298 §3): the newest fully acknowledged
        // segment never retransmitted gives the sample — unless the ACK
        // also acknowledges a retransmitted one. Such an ACK was sent for
        // the retransmission (the ambiguity Karn's rule avoids), and the
        // segments it covers behind the hole waited at the receiver for
        // the repair: their "sample" is a round trip plus the repair, the
        // RTO and its backoff after a timeout. Linux takes no sample from
        // it (tcp_clean_rtx_queue: FLAG_RETRANS_DATA_ACKED); ns-2 and BSD
        // stop timing on any retransmission. And after a timeout only a
        // segment sent since may be measured (RFC 6298 §5, the note after
        // (5.7): a new measurement "can only happen when new data has
        // been sent and acknowledged"). The backoff of (5.5) ends only with
        // a sample (rtt.rs), so it lasts until then. No timestamps-based
        // sample (the exception of §3): the option adds only its bytes.
        let mut sample = None;
        let mut rexmit_acked = false;
        while let Some(s) = self.segs.front() {
            if s.end > ack {
                break;
            }
            rexmit_acked |= s.rexmit;
            if !s.rexmit && s.sent >= self.last_rto {
                sample = Some(s.sent);
            }
            self.sums.popped(s);
            self.segs.pop_front();
        }
        self.sums.trim_front(&mut self.segs, &self.sacked, ack);
        if rexmit_acked {
            sample = None;
        }
        let rtt = sample.map(|sent| self.rtt.on_sample(sent, now));
        if let Some(r) = rtt {
            let rto = self.rtt.rto().as_nanos() as u128;
            self.stats.count(now, |c| {
                c.rtt_sum_ns += r.as_nanos() as u128;
                c.rtt_samples += 1;
                c.rto_sum_ns += rto;
            });
            self.cc.on_rtt_sample(now, r);
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.sacked.remove_below(ack);
        self.high_rxt = self.high_rxt.max(ack);
        let was_recovering = self.in_recovery;
        if self.in_recovery {
            self.on_recovery_ack(now, ack, acked);
        }
        self.dupacks = 0;
        self.lt_sent = 0;
        // Vegas §3.1 (2): the first two new ACKs after a retransmission
        // check the next segment's fine-grained timeout too, so a second
        // loss in the window is repaired without a coarse timeout. The
        // duplicates that follow count as past the threshold (ns-2 sets
        // `dupacks_ = numdupacks_`): the third must not resend it again.
        if self.vegas_checks > 0 {
            self.vegas_checks -= 1;
            if self.rexmit_at.is_none() && self.vegas_timed_out(now) {
                self.rexmit_at = Some(self.snd_una);
                self.dupacks = DUP_THRESH;
            }
        }
        let sample_ack = AckSample {
            now,
            acked,
            flight,
            rtt,
            srtt: self.rtt.srtt_or_initial(),
            min_rtt: self.rtt.min_rtt(),
            delivered: ack,
            recovery: was_recovering,
        };
        self.cc.on_ack(&sample_ack);
        // RFC 6298 §5.2–5.3: restart the timer for outstanding data —
        // except on NewReno's later partial ACKs: the Impatient variant
        // (RFC 6582 §4) resets it on the first one only, so a recovery
        // with many holes ends in a timeout rather than one RTT per hole.
        let impatient = self.in_recovery && self.recovery_kind == Recovery::NewReno;
        if self.flight() == 0 {
            self.rto_at = SimTime::NEVER;
        } else if !impatient {
            self.arm_rto(now);
        }
    }

    /// A cumulative ACK during recovery.
    fn on_recovery_ack(&mut self, now: SimTime, ack: u64, acked: u64) {
        let smss = self.smss;
        match self.recovery_kind {
            Recovery::Tahoe => self.in_recovery = false,
            // RFC 5681 §3.2 step 6: the first new ACK deflates the window.
            Recovery::Reno => self.exit_recovery(now, self.cc.ssthresh()),
            Recovery::NewReno | Recovery::Sack if ack >= self.recover => {
                // RFC 6582 §3.2 step 3 option (1); RFC 6675 ends recovery
                // at RecoveryPoint the same way.
                let w = self.cc.ssthresh().min(self.flight().max(smss) + smss);
                self.exit_recovery(now, w);
            }
            Recovery::NewReno => {
                // Partial ACK (RFC 6582 §3.2 step 4): retransmit the next
                // hole, deflate by the amount acknowledged, add back one
                // SMSS if that was at least one SMSS.
                self.rexmit_at = Some(ack);
                let mut w = self.cc.cwnd().saturating_sub(acked);
                if acked >= smss {
                    w += smss;
                }
                self.cc.set_cwnd(w);
                // "Impatient": the first partial ACK resets the timer.
                if !self.partial_seen {
                    self.partial_seen = true;
                    self.arm_rto(now);
                }
            }
            Recovery::Sack => {}
        }
    }

    fn exit_recovery(&mut self, now: SimTime, cwnd: u64) {
        self.in_recovery = false;
        self.cc.set_cwnd(cwnd);
        self.cc.on_recovery_exit(now);
    }

    fn on_dupack(&mut self, now: SimTime) {
        self.dupacks += 1;
        self.cc.on_dup_ack(now);
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: inflate by one segment per dupack.
            if matches!(self.recovery_kind, Recovery::Reno | Recovery::NewReno) {
                let w = self.cc.cwnd() + self.smss;
                self.cc.set_cwnd(w);
            }
            // Vegas: a lost retransmission is resent once its fine-grained
            // timeout has passed, not after a coarse RTO.
            if self.vegas_timed_out(now) {
                self.rexmit_at = Some(self.snd_una);
            }
            return;
        }
        let lost = match self.recovery_kind {
            // RFC 6675 §5: enter on DupThresh dupacks or when IsLost.
            Recovery::Sack => self.dupacks >= DUP_THRESH || self.is_lost(self.snd_una),
            _ => self.dupacks == DUP_THRESH || self.vegas_timed_out(now),
        };
        // RFC 6582 §3.2 step 1: no second reduction for losses of the
        // window already being repaired (after a timeout). Vegas still
        // retransmits a segment past its fine-grained timeout (§3.1), but
        // reduces the window only for losses at the current rate.
        if !lost || self.snd_una < self.recover {
            if lost && self.cfg.cc == CcAlgorithm::Vegas && !self.recover_after_rto {
                // Vegas after a fast retransmit (Brakmo & Peterson §3.1,
                // ns-2 tcp-vegas.cc): a second loss in the window is
                // retransmitted on its third duplicate ACK (or past its
                // fine-grained timeout) like the first — only the window,
                // already decreased for this window's data, is not
                // decreased again. Waiting for the fine-grained timeout
                // alone left small windows without enough duplicates to
                // reach it, and they ended in coarse timeouts.
                self.enter_recovery_as(now, false);
            } else if lost && self.vegas_timed_out(now) {
                self.rexmit_at = Some(self.snd_una);
            }
            return;
        }
        self.enter_recovery(now);
    }

    /// TCP Vegas' retransmission mechanism (Brakmo & Peterson 1995 §3.1):
    /// on a duplicate ACK, the oldest segment is retransmitted at once if it
    /// has been out (since its last transmission) longer than the
    /// fine-grained timeout, without waiting for the third duplicate.
    fn vegas_timed_out(&self, now: SimTime) -> bool {
        self.cfg.cc == CcAlgorithm::Vegas
            && self.segs.front().is_some_and(|s| now.saturating_since(s.sent) > self.rtt.fine_rto())
    }

    fn enter_recovery(&mut self, now: SimTime) {
        self.enter_recovery_as(now, true);
    }

    /// Fast retransmit and recovery; `reduce` false for a loss in data
    /// sent before the window's last decrease (Vegas).
    fn enter_recovery_as(&mut self, now: SimTime, reduce: bool) {
        // RFC 5681 §3.2 step 2: data sent by limited transmit is not part
        // of the FlightSize that sets ssthresh (RFC 6675 §5 and RFC 9438
        // §4.6 take their FlightSize from there).
        let flight = self.flight().saturating_sub(self.lt_sent);
        self.recover_after_rto = false;
        // RFC 3168 §6.1.2: ssthresh is not lowered again for a loss in the
        // window an ECN-Echo already answered (data sent before that
        // reduction); the segment is still retransmitted.
        let answered = self.cfg.ecn && self.snd_una < self.ecn_recover;
        if reduce && !answered {
            self.cc.on_congestion_event(now, flight);
        }
        let ssthresh = self.cc.ssthresh();
        self.stats.count(now, |c| c.fast_retransmits += 1);
        // `recover` marks the last window decrease: a recovery without one
        // (Vegas) leaves it, so later losses in newer data still reduce.
        if reduce {
            self.recover = self.snd_max;
        }
        self.partial_seen = false;
        self.ecn_recover = self.snd_max;
        match self.recovery_kind {
            // Tahoe: retransmit, slow start from one segment, go back N.
            Recovery::Tahoe => {
                self.cc.set_cwnd(self.smss);
                self.snd_nxt = self.snd_una;
                self.in_recovery = true;
            }
            // RFC 5681 §3.2 steps 2–3.
            Recovery::Reno | Recovery::NewReno => {
                self.cc.set_cwnd(ssthresh + DUP_THRESH as u64 * self.smss);
                self.rexmit_at = Some(self.snd_una);
                self.in_recovery = true;
            }
            // RFC 6675 §5 steps 1–4: cwnd = ssthresh, HighRxt below the
            // first hole; NextSeg retransmits it.
            Recovery::Sack => {
                self.cc.set_cwnd(ssthresh);
                self.high_rxt = self.snd_una;
                self.in_recovery = true;
                self.rexmit_at = Some(self.snd_una);
                self.high_rxt = self.segment_end(self.snd_una);
            }
        }
        self.arm_rto(now);
    }

    fn segment_end(&self, seq: u64) -> u64 {
        self.seg_index(seq).map_or(seq + self.smss, |i| self.segs[i].end)
    }

    /// RFC 6675 §4 IsLost: more than (DupThresh − 1)·SMSS bytes SACKed
    /// above the segment.
    fn is_lost(&self, seq: u64) -> bool {
        let end = self.segment_end(seq);
        self.lost_above(self.sacked.covered(end, u64::MAX))
    }

    fn lost_above(&self, sacked_above: u64) -> bool {
        sacked_above > (DUP_THRESH as u64 - 1) * self.smss
    }

    /// RFC 6675 §4 SetPipe and NextSeg's candidates from the running sums
    /// (scoreboard.rs); with debug assertions on, checked against a walk
    /// of the whole scoreboard.
    fn scoreboard(&mut self) -> Board {
        let board = self.sums.board(&self.segs, &self.sacked, self.high_rxt, (DUP_THRESH as u64 - 1) * self.smss);
        #[cfg(any(test, debug_assertions))]
        {
            assert_eq!(board, self.scoreboard_walk(), "scoreboard sums vs walk");
            #[cfg(debug_assertions)]
            WALK_CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        board
    }

    /// One walk of the scoreboard, newest segment first (the SACKed bytes
    /// above a segment accumulate downwards): RFC 6675 §4 SetPipe —
    /// outstanding segments not SACKed and not lost, plus those
    /// retransmitted — and NextSeg's candidates at or above HighRxt, the
    /// lowest lost one (rule 1) and the lowest unSACKed one (rule 3).
    /// The reference the running sums are checked against.
    #[cfg(any(test, debug_assertions))]
    fn scoreboard_walk(&self) -> Board {
        let mut board = Board::default();
        let mut above = SackedAbove::new(self.sacked.ranges());
        for s in self.segs.iter().rev() {
            let len = s.end - s.start;
            let after = above.at(s.end);
            if above.at(s.start) - after == len {
                continue;
            }
            let lost = self.lost_above(after);
            if !lost {
                board.pipe += len;
            }
            if s.start < self.high_rxt {
                board.pipe += len;
                continue;
            }
            if lost {
                board.lost = Some((s.start, s.end));
            }
            board.unsacked = Some((s.start, s.end));
        }
        board
    }

    /// RFC 6675 §5 step (C): send while cwnd − pipe ≥ 1 SMSS, choosing
    /// with NextSeg (§4): a lost hole above HighRxt, else new data, else
    /// any unSACKed segment above HighRxt (rule 3).
    pub(super) fn poll_sack_recovery(&mut self, now: SimTime) -> Option<Packet> {
        let board = self.scoreboard();
        if self.cc.cwnd() < board.pipe + self.smss {
            return None;
        }
        if let Some((a, b)) = board.lost {
            self.high_rxt = b;
            return Some(self.emit(now, a, b));
        }
        let avail = if self.greedy { u64::MAX } else { self.written.saturating_sub(self.snd_max) };
        if avail > 0 && self.snd_max + avail.min(self.smss) <= self.snd_una + self.rwnd {
            let (a, b) = (self.snd_max, self.snd_max + avail.min(self.smss));
            self.snd_nxt = b;
            return Some(self.emit(now, a, b));
        }
        let (a, b) = board.unsacked?;
        self.high_rxt = b;
        Some(self.emit(now, a, b))
    }

    /// RFC 6298 §5.4–5.7 and RFC 5681 §3.1: retransmit the earliest
    /// unacknowledged segment, back off, collapse the window, and resend
    /// the rest as the window reopens (go-back-N).
    pub(super) fn on_rto(&mut self, now: SimTime) {
        self.stats.count(now, |c| c.timeouts += 1);
        self.last_rto = now;
        let flight = self.flight();
        self.cc.on_rto(now, flight);
        self.rtt.back_off();
        self.in_recovery = false;
        self.dupacks = 0;
        self.lt_sent = 0;
        // RFC 6582 §3.2 step 1's guard after a timeout.
        self.recover = self.snd_max;
        self.recover_after_rto = true;
        // RFC 6675 §5.1: SACK information is not trusted after a timeout.
        self.sacked.clear();
        self.sums.reset(&mut self.segs);
        self.high_rxt = self.snd_una;
        self.snd_nxt = self.snd_una;
        self.arm_rto(now);
    }
}

/// Bytes of a sorted, disjoint range list at or above a point, for points
/// visited in non-increasing order: each range is added once, so a walk
/// down the whole window costs one pass over the ranges.
#[cfg(any(test, debug_assertions))]
struct SackedAbove<'a> {
    ranges: &'a [(u64, u64)],
    /// Ranges `ranges[next..]` start at or above the last point.
    next: usize,
    /// Their total length.
    whole: u64,
}

#[cfg(any(test, debug_assertions))]
impl<'a> SackedAbove<'a> {
    fn new(ranges: &'a [(u64, u64)]) -> Self {
        SackedAbove { ranges, next: ranges.len(), whole: 0 }
    }

    /// `covered(x, u64::MAX)`; `x` must not exceed the previous call's.
    fn at(&mut self, x: u64) -> u64 {
        while self.next > 0 && self.ranges[self.next - 1].0 >= x {
            self.next -= 1;
            let (s, e) = self.ranges[self.next];
            self.whole += e - s;
        }
        // At most one range straddles x: the highest one starting below it.
        let straddle = self.next.checked_sub(1).map_or(0, |i| self.ranges[i].1.saturating_sub(x));
        self.whole + straddle
    }
}

#[cfg(test)]
mod tests {
    use super::SackedAbove;
    use crate::transport::seq::RangeSet;

    /// The incremental walk equals `RangeSet::covered(x, MAX)` at every
    /// point of a descending sweep, on random scoreboards (seed 17).
    #[test]
    fn sacked_above_matches_covered() {
        let mut rng = crate::rng::Rng::stream(17, 0, crate::rng::StreamId::new(0, 0));
        for case in 0..200 {
            let mut set = RangeSet::new();
            for _ in 0..rng.below(12) {
                let a = rng.below(200);
                set.insert(a, a + 1 + rng.below(15));
            }
            let mut above = SackedAbove::new(set.ranges());
            let mut x = 230;
            loop {
                assert_eq!(above.at(x), set.covered(x, u64::MAX), "case {case} x {x} (seed 17)");
                if x == 0 {
                    break;
                }
                x = x.saturating_sub(rng.below(7));
            }
        }
    }
}
