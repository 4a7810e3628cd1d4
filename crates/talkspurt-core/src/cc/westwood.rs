//! TCP Westwood+ (S. Mascolo, C. Casetti, M. Gerla, M. Sanadidi, R. Wang,
//! "TCP Westwood: Bandwidth Estimation for Enhanced Transport over Wireless
//! Links", ACM MobiCom 2001; Westwood+ per L. A. Grieco and S. Mascolo,
//! "Performance evaluation and comparison of Westwood+, New Reno, and Vegas
//! TCP congestion control", ACM CCR 34(2), 2004).
//!
//! Reno's probing (slow start, one segment per RTT), but the window after a
//! loss follows an end-to-end bandwidth estimate instead of halving:
//! - every RTT, the sample `b_k = d_k / Δ_k` (bytes acknowledged over the
//!   interval Δ_k ≥ RTT) feeds the low-pass filter
//!   `BWE_k = g·BWE_{k−1} + (1 − g)·b_k` (Westwood+ samples once per RTT
//!   so ACK compression cannot alias the estimate, unlike Westwood's
//!   per-ACK samples);
//! - after three duplicate ACKs: `ssthresh = max(2·SMSS, BWE·RTTmin)`,
//!   and `cwnd = ssthresh` only if `cwnd > ssthresh`;
//! - after a timeout: `ssthresh` as above and `cwnd = 1 SMSS`.
//!
//! Simplifications (docs/models/tcp-cc.md): only ACKs of new data are
//! counted (the controller does not see duplicate ACKs, which Linux and
//! ns-2 count as one segment each; the cumulative ACK ending recovery
//! counts those bytes then); the filter is one stage (Linux cascades two
//! 7/8 stages); it starts from its first sample (Linux since 2.6.18).

use super::classic::WindowAdjustment;
use super::reno::Aimd;
use super::{AckSample, WestwoodParams};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct Westwood {
    params: WestwoodParams,
    /// Congestion avoidance is Reno's.
    aimd: Aimd,
    /// Filtered bandwidth estimate, bytes per second.
    bwe: Option<f64>,
    /// Start of the current sampling interval and the bytes acked since.
    window_start: Option<SimTime>,
    window_bytes: u64,
    rtt_min: Option<SimDuration>,
    /// cwnd when the last congestion event set ssthresh.
    cwnd_at_event: Option<u64>,
}

impl Westwood {
    pub fn new(params: WestwoodParams) -> Self {
        Westwood {
            params,
            aimd: Aimd::default(),
            bwe: None,
            window_start: None,
            window_bytes: 0,
            rtt_min: None,
            cwnd_at_event: None,
        }
    }
    /// Bandwidth estimate in bytes per second (0 before the first sample).
    pub fn bwe(&self) -> f64 {
        self.bwe.unwrap_or(0.0)
    }
    pub fn rtt_min(&self) -> Option<SimDuration> {
        self.rtt_min
    }
    /// `max(2·SMSS, BWE·RTTmin)` in bytes.
    pub fn bwe_window(&self, smss: u64) -> u64 {
        let rtt_min = self.rtt_min.map_or(0.0, |r| r.as_secs_f64());
        ((self.bwe() * rtt_min) as u64).max(2 * smss)
    }
    fn note_rtt(&mut self, rtt: SimDuration) {
        if rtt > SimDuration::ZERO {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
        }
    }
}

impl WindowAdjustment for Westwood {
    fn ca_increase(&mut self, cwnd: u64, smss: u64, ack: &AckSample) -> u64 {
        self.aimd.ca_increase(cwnd, smss, ack)
    }
    fn ssthresh_after_loss(&mut self, now: SimTime, cwnd: u64, flight: u64, smss: u64) -> u64 {
        self.aimd.ssthresh_after_loss(now, cwnd, flight, smss);
        self.cwnd_at_event = Some(cwnd);
        self.bwe_window(smss)
    }
    /// Every ACK of new data, in recovery too: the bytes delivered.
    fn on_ack_any(&mut self, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.note_rtt(rtt);
        }
        let Some(start) = self.window_start else {
            // Bytes acknowledged now were delivered before the interval.
            self.window_start = Some(ack.now);
            return;
        };
        self.window_bytes += ack.acked;
        let dt = ack.now.saturating_since(start);
        // One sample per RTT (SRTT; RTTmin before the first smoothed value).
        let rtt = if ack.srtt > SimDuration::ZERO { Some(ack.srtt) } else { self.rtt_min };
        let Some(rtt) = rtt else { return };
        if dt >= rtt && dt > SimDuration::ZERO {
            let sample = self.window_bytes as f64 / dt.as_secs_f64();
            let g = self.params.gain;
            self.bwe = Some(self.bwe.map_or(sample, |b| g * b + (1.0 - g) * sample));
            self.window_start = Some(ack.now);
            self.window_bytes = 0;
        }
    }
    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDuration) {
        self.note_rtt(rtt);
    }
    /// "cwnd = ssthresh if cwnd > ssthresh": recovery never leaves a window
    /// larger than the one the loss found.
    fn window_after_recovery(&mut self, cwnd: u64, _smss: u64) -> u64 {
        match self.cwnd_at_event.take() {
            Some(before) => cwnd.min(before),
            None => cwnd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::classic::Classic;
    use crate::cc::WindowController;

    const MSS: u64 = 1000;

    /// One 1000-byte ACK every `gap`: a delivery rate of 1000 B / gap.
    fn stream(c: &mut Classic<Westwood>, now: &mut SimTime, gap: SimDuration, n: u64, rtt: SimDuration) {
        for _ in 0..n {
            *now += gap;
            c.on_ack(&AckSample {
                now: *now,
                acked: MSS,
                flight: c.cwnd(),
                rtt: Some(rtt),
                srtt: SimDuration::from_millis(50),
                min_rtt: rtt,
                delivered: 0,
                recovery: false,
            });
        }
    }

    /// 1000 B every 1 ms is 10⁶ B/s (8 Mb/s); with RTTmin = 40 ms the
    /// Westwood+ window is BWE·RTTmin = 40 000 bytes, which three duplicate
    /// ACKs make ssthresh (exact: every 50-ms interval holds 50 ACKs).
    #[test]
    fn ssthresh_is_bwe_times_rtt_min() {
        let mut c = Classic::new(Westwood::new(WestwoodParams::default()), MSS, 10 * MSS);
        let mut now = SimTime(0);
        stream(&mut c, &mut now, SimDuration::from_millis(1), 1001, SimDuration::from_millis(40));
        assert!((c.adj.bwe() - 1e6).abs() < 1e-6, "BWE {}", c.adj.bwe());
        c.set_cwnd(60 * MSS);
        c.on_congestion_event(now, 60 * MSS);
        assert_eq!(c.ssthresh(), 40_000);
        // Reno would have said 30 000.
    }

    /// The per-RTT filter with gain g = 0.9 (Grieco & Mascolo 2004): after
    /// the rate halves, k samples leave BWE = 0.5 + 0.5·0.9^k MB/s.
    #[test]
    fn filter_tracks_a_rate_change() {
        let mut c = Classic::new(Westwood::new(WestwoodParams::default()), MSS, 10 * MSS);
        let mut now = SimTime(0);
        let rtt = SimDuration::from_millis(40);
        stream(&mut c, &mut now, SimDuration::from_millis(1), 501, rtt); // 10 samples at 1 MB/s
        stream(&mut c, &mut now, SimDuration::from_millis(2), 250, rtt); // 10 samples at 0.5 MB/s
        let want = 0.5e6 + 0.5e6 * 0.9f64.powi(10);
        assert!((c.adj.bwe() - want).abs() < 1.0, "BWE {} want {want}", c.adj.bwe());
    }

    /// Timeout: cwnd = 1 SMSS, ssthresh = BWE·RTTmin.
    #[test]
    fn timeout_response() {
        let mut c = Classic::new(Westwood::new(WestwoodParams::default()), MSS, 10 * MSS);
        let mut now = SimTime(0);
        stream(&mut c, &mut now, SimDuration::from_millis(1), 1001, SimDuration::from_millis(40));
        c.on_rto(now, 10 * MSS);
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 40_000));
    }

    /// After three duplicate ACKs cwnd becomes ssthresh only if it was
    /// larger: with cwnd = 20 segments and BWE·RTTmin = 40 segments the
    /// window recovery hands back is clamped to 20; with cwnd = 60 it is 40.
    #[test]
    fn recovery_never_raises_the_window() {
        for (before, after) in [(20 * MSS, 20 * MSS), (60 * MSS, 40 * MSS)] {
            let mut c = Classic::new(Westwood::new(WestwoodParams::default()), MSS, 10 * MSS);
            let mut now = SimTime(0);
            stream(&mut c, &mut now, SimDuration::from_millis(1), 1001, SimDuration::from_millis(40));
            c.set_cwnd(before);
            c.on_congestion_event(now, before);
            // The transport's recovery: cwnd = ssthresh + 3·SMSS, then ssthresh.
            c.set_cwnd(c.ssthresh() + 3 * MSS);
            c.set_cwnd(c.ssthresh());
            c.on_recovery_exit(now);
            assert_eq!(c.cwnd(), after);
        }
    }

    /// Without an estimate (a loss in the first RTT) ssthresh is 2·SMSS.
    #[test]
    fn floor_of_two_segments() {
        let mut c = Classic::new(Westwood::new(WestwoodParams::default()), MSS, 10 * MSS);
        c.on_congestion_event(SimTime(0), 10 * MSS);
        assert_eq!(c.ssthresh(), 2 * MSS);
    }
}
