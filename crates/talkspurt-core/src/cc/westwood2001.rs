//! TCP Westwood as first published (S. Mascolo, C. Casetti, M. Gerla,
//! M. Y. Sanadidi, R. Wang, "TCP Westwood: Bandwidth Estimation for
//! Enhanced Transport over Wireless Links", ACM MobiCom 2001, §2), the
//! algorithm seed 002 cites as its reference [11]. Westwood+ (2004, one
//! sample per RTT) is `westwood.rs`.
//!
//! Reno's probing; the bandwidth estimate is built from every ACK:
//! - the sample of ACK k is `b_k = d_k / Δ_k`, the bytes it acknowledges
//!   over the time since the previous ACK;
//! - the low-pass filter is the Tustin discretisation of a first-order
//!   filter of cut-off frequency 1/τ, with time-varying coefficients:
//!   `BWE_k = α_k·BWE_{k−1} + (1 − α_k)·(b_k + b_{k−1})/2`,
//!   `α_k = (2τ − Δ_k)/(2τ + Δ_k)`;
//! - when no ACK arrives for longer than τ/m (m = 2), the filter is fed a
//!   virtual sample of 0 every τ/m, so the estimate decays through a
//!   silence instead of α_k turning negative (Δ_k > 2τ);
//! - three duplicate ACKs: `ssthresh = max(2·SMSS, BWE·RTTmin)`, and
//!   `cwnd = ssthresh` if `cwnd > ssthresh`; a timeout: the same ssthresh
//!   and `cwnd = 1 SMSS` (§2.1).
//!
//! A steady stream of d-byte ACKs every Δ has `b_k = d/Δ` for every k, the
//! filter's fixed point, so BWE converges to d/Δ with the error shrinking
//! by `Π α_k ≈ exp(−t/τ)` after time t.
//!
//! Duplicate ACKs are samples too (§2: each announces one segment that
//! left the network): one SMSS each, and the cumulative ACK that follows
//! counts only the bytes the duplicates did not already announce — at
//! least one SMSS (the rule of the authors' ns-2 agent and of Linux's
//! `westwood_acked_count`). Without it the ACK that ends a recovery
//! (a whole window acknowledged at once, a few ms after the last
//! duplicate) is one huge sample, and the estimate after each loss is too
//! high. RTTmin is the smallest RTT sample, never reset.

use super::classic::WindowAdjustment;
use super::reno::Aimd;
use super::{AckSample, WestwoodParams};
use crate::time::{SimDuration, SimTime};

/// Virtual samples per τ during an ACK gap (the paper's m).
const VIRTUAL_PER_TAU: u64 = 2;

#[derive(Clone, Debug)]
pub struct Westwood2001 {
    tau: SimDuration,
    aimd: Aimd,
    /// Filtered estimate and the previous sample, bytes per second.
    bwe: Option<f64>,
    last_sample: f64,
    last_ack: Option<SimTime>,
    rtt_min: Option<SimDuration>,
    cwnd_at_event: Option<u64>,
    /// Bytes announced by duplicate ACKs, not yet covered by a cumulative ACK.
    accounted: u64,
    /// SMSS, learnt from the first duplicate ACK.
    smss_hint: u64,
    /// Bytes of ACKs that arrived at the same instant as the previous one.
    pending: u64,
}

impl Westwood2001 {
    pub fn new(params: WestwoodParams) -> Self {
        Westwood2001 { tau: params.tau, aimd: Aimd::default(), bwe: None, last_sample: 0.0, last_ack: None, rtt_min: None, cwnd_at_event: None, accounted: 0, smss_hint: 0, pending: 0 }
    }
    /// Bandwidth estimate in bytes per second (0 before the first sample).
    pub fn bwe(&self) -> f64 {
        self.bwe.unwrap_or(0.0)
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
    /// Feed `bytes` acknowledged at `now` to the filter: the sample is
    /// bytes over the time since the previous ACK.
    fn sample(&mut self, now: SimTime, bytes: u64) {
        let Some(last) = self.last_ack.replace(now) else {
            return; // the first ACK opens the first interval
        };
        if bytes == 0 {
            return;
        }
        let mut dt = now.saturating_since(last);
        // Virtual zero samples through a gap longer than τ/m.
        let slot = SimDuration(self.tau.as_nanos() / VIRTUAL_PER_TAU);
        if slot > SimDuration::ZERO && self.bwe.is_some() {
            while dt > slot {
                self.step(0.0, slot.as_secs_f64());
                dt = SimDuration(dt.0 - slot.0);
            }
        }
        if dt == SimDuration::ZERO {
            // Two ACKs at one instant: fold the bytes into the next sample.
            self.last_ack = Some(last);
            self.pending += bytes;
            return;
        }
        let bytes = bytes + std::mem::take(&mut self.pending);
        let secs = dt.as_secs_f64();
        if self.bwe.is_none() {
            self.last_sample = bytes as f64 / secs;
        }
        self.step(bytes as f64 / secs, secs);
    }
    /// One filter step with sample `b` over interval `dt` seconds.
    fn step(&mut self, b: f64, dt: f64) {
        let two_tau = 2.0 * self.tau.as_secs_f64();
        let alpha = (two_tau - dt) / (two_tau + dt);
        let prev = self.bwe.unwrap_or(b);
        self.bwe = Some(alpha * prev + (1.0 - alpha) * (b + self.last_sample) / 2.0);
        self.last_sample = b;
    }
}

impl WindowAdjustment for Westwood2001 {
    fn ca_increase(&mut self, cwnd: u64, smss: u64, ack: &AckSample) -> u64 {
        self.aimd.ca_increase(cwnd, smss, ack)
    }
    fn ssthresh_after_loss(&mut self, now: SimTime, cwnd: u64, flight: u64, smss: u64) -> u64 {
        self.aimd.ssthresh_after_loss(now, cwnd, flight, smss);
        self.cwnd_at_event = Some(cwnd);
        self.bwe_window(smss)
    }
    /// Every ACK of new data is a sample (in recovery too), of the bytes
    /// duplicates did not already announce.
    fn on_ack_any(&mut self, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.note_rtt(rtt);
        }
        let mut bytes = ack.acked;
        if self.accounted > 0 && bytes > 0 {
            let smss = self.smss_hint.max(1);
            if self.accounted >= bytes {
                self.accounted -= bytes;
                bytes = smss.min(ack.acked);
            } else {
                bytes -= self.accounted;
                self.accounted = 0;
            }
        }
        self.sample(ack.now, bytes);
    }
    /// A duplicate ACK: one segment delivered (§2).
    fn on_dup_ack(&mut self, now: SimTime, smss: u64) {
        self.smss_hint = smss;
        self.accounted += smss;
        self.sample(now, smss);
    }
    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDuration) {
        self.note_rtt(rtt);
    }
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

    fn ack(c: &mut Classic<Westwood2001>, now: SimTime, acked: u64, rtt: SimDuration) {
        c.on_ack(&AckSample { now, acked, flight: c.cwnd(), rtt: Some(rtt), srtt: rtt, min_rtt: rtt, delivered: 0, recovery: false });
    }

    fn new() -> Classic<Westwood2001> {
        Classic::new(Westwood2001::new(WestwoodParams::default()), MSS, 10 * MSS)
    }

    /// A steady ACK stream of 1000 B every 2 ms (500 kB/s) is the filter's
    /// fixed point: after 5 s (10 τ) BWE is 500 000 B/s to within
    /// 500 000·e⁻¹⁰ ≈ 23 B/s (it starts there, so it stays exact); with
    /// RTTmin = 60 ms three duplicate ACKs set ssthresh = BWE·RTTmin =
    /// 30 000 B (MobiCom 2001 §2.1: ssthresh = BWE·RTTmin/seg_size segments).
    #[test]
    fn steady_stream_and_ssthresh() {
        let mut c = new();
        let rtt = SimDuration::from_millis(60);
        for k in 0..=2500u64 {
            ack(&mut c, SimTime(k * 2_000_000), MSS, rtt);
        }
        assert!((c.adj.bwe() - 500_000.0).abs() < 23.0, "BWE {}", c.adj.bwe());
        c.set_cwnd(50 * MSS);
        c.on_congestion_event(SimTime(5_000_000_000), 50 * MSS);
        assert_eq!(c.ssthresh(), 30_000);
        c.on_rto(SimTime(5_000_000_000), 50 * MSS);
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 30_000));
    }

    /// A step from 500 kB/s to 250 kB/s: the first-order filter with τ =
    /// 0.5 s has covered 1 − e^(−t/τ) of the step after t; at t = τ the
    /// estimate is 250 000 + 250 000·e⁻¹ ≈ 341 970 B/s (± 1 % for the
    /// discretisation and the half-sample average).
    #[test]
    fn step_response_time_constant_tau() {
        let mut c = new();
        let rtt = SimDuration::from_millis(60);
        let mut t = 0u64;
        for _ in 0..=2500 {
            ack(&mut c, SimTime(t), MSS, rtt);
            t += 2_000_000;
        }
        t -= 2_000_000;
        for _ in 0..125 {
            t += 4_000_000;
            ack(&mut c, SimTime(t), MSS, rtt);
        }
        let want = 250_000.0 + 250_000.0 * (-1.0f64).exp();
        assert!((c.adj.bwe() - want).abs() < 0.01 * want, "BWE {} want {want}", c.adj.bwe());
    }

    /// A 2 s silence (4 τ) decays the estimate through virtual zero samples
    /// (to about e⁻⁴ ≈ 1.8 % of it) instead of letting α_k go negative
    /// (α = (1 − 2)/(1 + 2) = −⅓ without them).
    #[test]
    fn silence_decays_through_virtual_samples() {
        let mut c = new();
        let rtt = SimDuration::from_millis(60);
        for k in 0..=1000u64 {
            ack(&mut c, SimTime(k * 2_000_000), MSS, rtt);
        }
        ack(&mut c, SimTime(4_000_000_000), MSS, rtt);
        let bwe = c.adj.bwe();
        assert!(bwe > 0.0 && bwe < 0.05 * 500_000.0, "BWE {bwe}");
    }

    /// Duplicate ACKs are samples of one segment, and the cumulative ACK
    /// after them counts only what they did not announce (Mascolo et al.
    /// 2001 §2; the authors' ns-2 agent and Linux's `westwood_acked_count`
    /// do the same). At the 500 kB/s fixed point (1000 B every 2 ms), 9
    /// duplicates every 2 ms then an ACK of 10 segments 2 ms later: the
    /// duplicates are samples of 500 kB/s and the ACK one of
    /// (10 − 9)·1000 B / 2 ms = 500 kB/s, so BWE stays 500 000 B/s (within
    /// 1 B/s). Counted whole, that ACK would be a 5 MB/s sample and lift BWE
    /// to about 508 960 B/s (α = 0.998/1.002): the overestimate after every
    /// recovery that the rule prevents.
    #[test]
    fn duplicate_acks_are_samples_and_accounted() {
        let mut c = new();
        let rtt = SimDuration::from_millis(60);
        let mut t = 0u64;
        for _ in 0..=2500 {
            ack(&mut c, SimTime(t), MSS, rtt);
            t += 2_000_000;
        }
        t -= 2_000_000;
        for _ in 0..9 {
            t += 2_000_000;
            c.on_dup_ack(SimTime(t));
        }
        assert!((c.adj.bwe() - 500_000.0).abs() < 1.0, "BWE after dupacks {}", c.adj.bwe());
        t += 2_000_000;
        ack(&mut c, SimTime(t), 10 * MSS, rtt);
        assert!((c.adj.bwe() - 500_000.0).abs() < 1.0, "BWE after the cumulative ACK {}", c.adj.bwe());
        // The next ACK of one segment counts whole again.
        t += 2_000_000;
        ack(&mut c, SimTime(t), MSS, rtt);
        assert!((c.adj.bwe() - 500_000.0).abs() < 1.0, "BWE {}", c.adj.bwe());
    }

    /// Recovery never hands back a window above the pre-loss one; without
    /// an estimate ssthresh is 2·SMSS.
    #[test]
    fn recovery_and_floor() {
        let mut c = new();
        c.on_congestion_event(SimTime(0), 10 * MSS);
        assert_eq!(c.ssthresh(), 2 * MSS);
        let mut c = new();
        let rtt = SimDuration::from_millis(60);
        for k in 0..=2500u64 {
            ack(&mut c, SimTime(k * 1_000_000), MSS, rtt);
        }
        // BWE 1 MB/s · 60 ms = 60 000 B: a 20-segment window stays 20.
        c.set_cwnd(20 * MSS);
        c.on_congestion_event(SimTime(3_000_000_000), 20 * MSS);
        c.set_cwnd(c.ssthresh() + 3 * MSS);
        c.on_recovery_exit(SimTime(3_000_000_000));
        assert_eq!(c.cwnd(), 20 * MSS);
    }
}
