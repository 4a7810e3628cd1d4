//! RTCP XR VoIP Metrics (RFC 3611 §4.7) as a receiver measures them: the
//! loss rate since reception began (§4.7.1) and the burst/gap figures
//! (§4.7.2) with Gmin = 16, the RFC's recommended minimum gap.
//!
//! A burst is a stretch that begins and ends with a lost packet, holds no
//! run of Gmin or more received packets, and has at least two losses; the
//! packets outside bursts are gaps, whose isolated losses are gap losses.
//! Losses are the sequence numbers skipped when a packet arrives (a packet
//! that arrives after it was counted lost stays lost here: the block
//! reports what the receiver saw in order).
//!
//! Readings (docs/models/rtp.md, "RTCP XR"): the discard rate is 0 (the
//! playout buffer is scored after the run, not inside the receiver); the
//! round trip delay is 0 (a receiver that sends no SR cannot measure it;
//! RFC 3611 leaves it unset then), as are the end system delay and the
//! jitter buffer sizes; durations are packet counts times the packet's
//! duration (RTP timestamp units per sequence number).

use crate::net::wire::VoipMetrics;

/// RFC 3611 §4.7.2's recommended Gmin.
pub const GMIN: u32 = 16;

#[derive(Clone, Debug, Default)]
pub struct BurstGap {
    /// Packets received since the last loss.
    run: u32,
    /// A cluster of losses closer than Gmin is open: its packets (first
    /// loss to last loss) and losses.
    open: bool,
    c_pkts: u64,
    c_lost: u64,
    burst_pkts: u64,
    burst_lost: u64,
    bursts: u64,
    total: u64,
    lost: u64,
}

impl BurstGap {
    pub fn received(&mut self) {
        self.total += 1;
        self.run += 1;
        if self.open && self.run >= GMIN {
            self.close();
        }
    }

    pub fn lost(&mut self) {
        self.total += 1;
        self.lost += 1;
        if self.open {
            self.c_pkts += self.run as u64 + 1;
            self.c_lost += 1;
        } else {
            (self.open, self.c_pkts, self.c_lost) = (true, 1, 1);
        }
        self.run = 0;
    }

    fn close(&mut self) {
        if self.c_lost >= 2 {
            self.burst_pkts += self.c_pkts;
            self.burst_lost += self.c_lost;
            self.bursts += 1;
        }
        self.open = false;
    }

    /// (packets in bursts, their losses, bursts), the open cluster counted
    /// as a burst if it already is one.
    fn bursts(&self) -> (u64, u64, u64) {
        let extra = self.open && self.c_lost >= 2;
        if extra {
            (self.burst_pkts + self.c_pkts, self.burst_lost + self.c_lost, self.bursts + 1)
        } else {
            (self.burst_pkts, self.burst_lost, self.bursts)
        }
    }

    /// The VoIP Metrics block; `packet_ms` is one packet's duration and
    /// `loss` the loss since reception began (RFC 3550 A.3: cumulative
    /// lost / expected).
    pub fn metrics(&self, loss: f64, packet_ms: f64) -> VoipMetrics {
        let frac = |x: f64| (256.0 * x).floor().clamp(0.0, 255.0) as u8;
        let ms = |pkts: f64| (pkts * packet_ms).round().clamp(0.0, 65_535.0) as u16;
        let (bp, bl, nb) = self.bursts();
        let (gp, gl) = (self.total - bp, self.lost - bl);
        // Gaps lie between and around the bursts.
        let ng = if gp == 0 { 0 } else { nb + 1 };
        VoipMetrics {
            loss_rate: frac(loss),
            discard_rate: 0,
            burst_density: if bp == 0 { 0 } else { frac(bl as f64 / bp as f64) },
            gap_density: if gp == 0 { 0 } else { frac(gl as f64 / gp as f64) },
            burst_duration: if nb == 0 { 0 } else { ms(bp as f64 / nb as f64) },
            gap_duration: if ng == 0 { 0 } else { ms(gp as f64 / ng as f64) },
            round_trip_delay: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(b: &mut BurstGap, pattern: &[(bool, u32)]) {
        for &(got, n) in pattern {
            for _ in 0..n {
                if got {
                    b.received()
                } else {
                    b.lost()
                }
            }
        }
    }

    /// By hand, Gmin 16, 20 ms packets: 20 received, 1 lost, 3 received,
    /// 2 lost, 20 received, 1 lost, 30 received. The first three losses lie
    /// within fewer than 16 received packets of each other: one burst of
    /// 1 + 3 + 2 = 6 packets, 3 lost (density ⌊256·3/6⌋ = 128, 120 ms);
    /// the last loss is isolated: a gap loss. Gaps: 77 − 6 = 71 packets, 1
    /// lost (⌊256/71⌋ = 3), two gaps around the burst: 35.5 packets = 710
    /// ms. Loss rate 4/77: ⌊256·4/77⌋ = 13.
    #[test]
    fn hand_worked_bursts_and_gaps() {
        let mut b = BurstGap::default();
        feed(&mut b, &[(true, 20), (false, 1), (true, 3), (false, 2), (true, 20), (false, 1), (true, 30)]);
        let m = b.metrics(4.0 / 77.0, 20.0);
        assert_eq!((m.loss_rate, m.burst_density, m.gap_density, m.burst_duration, m.gap_duration), (13, 128, 3, 120, 710));
        // A burst still open at report time counts: 2 lost, 5 received, 1 lost.
        let mut b = BurstGap::default();
        feed(&mut b, &[(false, 2), (true, 5), (false, 1)]);
        let m = b.metrics(3.0 / 8.0, 20.0);
        assert_eq!((m.burst_density, m.burst_duration, m.gap_density, m.gap_duration), (96, 160, 0, 0));
        // No loss: one gap, no bursts.
        let mut b = BurstGap::default();
        feed(&mut b, &[(true, 50)]);
        let m = b.metrics(0.0, 30.0);
        assert_eq!((m.loss_rate, m.burst_density, m.burst_duration, m.gap_density, m.gap_duration), (0, 0, 0, 0, 1500));
    }
}
