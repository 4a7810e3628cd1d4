//! CUBIC (RFC 9438) as a window adjustment for [`Classic`]: RFC 5681 slow
//! start (HyStart++, RFC 9406, which §4.10 recommends, is not modelled),
//! and in congestion avoidance the cubic window function of the time since
//! the stage began, never below Reno's estimate.
//!
//! RFC 9438 counts windows in segments and time in seconds; this file does
//! its arithmetic in those units (`cwnd / SMSS`, [`SimTime::as_secs_f64`])
//! and hands bytes back to [`Classic`].
//!
//! - §4.2: `W_cubic(t) = C·(t − K)³ + W_max` (Fig. 1), t since the start
//!   of the congestion avoidance stage (t_epoch), with
//!   `K = cbrt((W_max − cwnd_epoch)/C)` (Fig. 2); the target is
//!   `W_cubic(t + RTT)` clamped to `[cwnd, 1.5·cwnd]` (Fig. 3).
//! - §4.3: Reno-friendly estimate `W_est += α_cubic·segments_acked/cwnd`
//!   (Fig. 4), `α_cubic = 3(1 − β)/(1 + β)` until `W_est ≥ cwnd_prior`,
//!   then 1; while `W_cubic(t) < W_est`, cwnd = W_est.
//! - §4.4/§4.5: otherwise (concave below W_max, convex above) cwnd grows by
//!   `(target − cwnd)/cwnd` per segment acknowledged.
//! - §4.6: on congestion `ssthresh = max(flight_size·β, 2·SMSS)`; the
//!   recovery window is the transport's.
//! - §4.7: fast convergence: `W_max = cwnd·(1 + β)/2` if cwnd < W_max.
//! - §4.8: after a timeout the next stage starts with K = 0 and
//!   W_max = cwnd_epoch.
//!
//! Not modelled: §4.9 spurious-event undo, §5.8 application-limited epoch
//! reset (docs/models/tcp-cc.md).
//!
//! [`Classic`]: super::classic::Classic

use super::classic::WindowAdjustment;
use super::{AckSample, CubicParams};
use crate::time::{SimDuration, SimTime};

/// Which rule set the window on the last ACK of congestion avoidance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// §4.3: W_cubic(t) < W_est, cwnd follows Reno's estimate.
    RenoFriendly,
    /// §4.4: cwnd < W_max.
    Concave,
    /// §4.5: cwnd ≥ W_max.
    Convex,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    params: CubicParams,
    smss: u64,
    /// Segments; `None` before the first congestion event.
    w_max: Option<f64>,
    /// cwnd in segments when ssthresh was last set.
    cwnd_prior: f64,
    /// Seconds.
    k: f64,
    t_epoch: Option<SimTime>,
    cwnd_epoch: f64,
    /// Segments.
    w_est: f64,
    /// The next stage is the first after a timeout (§4.8).
    after_timeout: bool,
    /// Fraction of a byte of increase carried to the next ACK.
    acc: f64,
    region: Option<Region>,
}

impl Cubic {
    pub fn new(params: CubicParams, smss: u64) -> Self {
        Cubic {
            params,
            smss,
            w_max: None,
            cwnd_prior: 0.0,
            k: 0.0,
            t_epoch: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            after_timeout: false,
            acc: 0.0,
            region: None,
        }
    }
    /// §4.2 Fig. 1, segments, `t` in seconds since t_epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.params.c * (t - self.k).powi(3) + self.w_max.unwrap_or(self.cwnd_epoch)
    }
    /// K in seconds (§4.2 Fig. 2).
    pub fn k(&self) -> f64 {
        self.k
    }
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    pub fn region(&self) -> Option<Region> {
        self.region
    }
    /// α_cubic (§4.3): 3(1 − β)/(1 + β), or 1 once W_est ≥ cwnd_prior.
    pub fn alpha(&self) -> f64 {
        let b = self.params.beta;
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - b) / (1.0 + b)
        }
    }

    fn start_epoch(&mut self, now: SimTime, cwnd: u64) {
        self.t_epoch = Some(now);
        self.cwnd_epoch = cwnd as f64 / self.smss as f64;
        self.w_est = self.cwnd_epoch;
        self.acc = 0.0;
        match self.w_max {
            // §4.8, and a stage entered at or above W_max (no loss yet).
            Some(w) if !self.after_timeout && w > self.cwnd_epoch => {
                self.k = ((w - self.cwnd_epoch) / self.params.c).cbrt();
            }
            _ => {
                self.w_max = Some(self.cwnd_epoch);
                self.k = 0.0;
            }
        }
        self.after_timeout = false;
    }
}

impl WindowAdjustment for Cubic {
    fn ca_increase(&mut self, cwnd: u64, smss: u64, ack: &AckSample) -> u64 {
        let t_epoch = match self.t_epoch {
            Some(t) => t,
            None => {
                self.start_epoch(ack.now, cwnd);
                ack.now
            }
        };
        let t = ack.now.saturating_since(t_epoch).as_secs_f64();
        let rtt = if ack.srtt > SimDuration::ZERO { ack.srtt } else { ack.min_rtt };
        let cwnd_seg = cwnd as f64 / smss as f64;
        let segments_acked = ack.acked as f64 / smss as f64;
        // §4.3 Fig. 4.
        self.w_est += self.alpha() * segments_acked / cwnd_seg;
        let w_max = self.w_max.unwrap_or(cwnd_seg);
        if self.params.tcp_friendliness && self.w_cubic(t) < self.w_est {
            self.region = Some(Region::RenoFriendly);
            let target = (self.w_est * smss as f64) as u64;
            self.acc = 0.0;
            return target.saturating_sub(cwnd);
        }
        self.region = Some(if cwnd_seg < w_max { Region::Concave } else { Region::Convex });
        // §4.2 Fig. 3, then §4.4/§4.5 per segment acknowledged.
        let target = self.w_cubic(t + rtt.as_secs_f64()).clamp(cwnd_seg, 1.5 * cwnd_seg);
        self.acc += (target - cwnd_seg) / cwnd_seg * ack.acked as f64;
        let inc = self.acc.floor();
        self.acc -= inc;
        inc as u64
    }
    fn ssthresh_after_loss(&mut self, _now: SimTime, cwnd: u64, flight: u64, smss: u64) -> u64 {
        let cwnd_seg = cwnd as f64 / smss as f64;
        let beta = self.params.beta;
        // §4.7 fast convergence.
        self.w_max = Some(match self.w_max {
            Some(w) if self.params.fast_convergence && cwnd_seg < w => cwnd_seg * (1.0 + beta) / 2.0,
            _ => cwnd_seg,
        });
        self.cwnd_prior = cwnd_seg;
        self.t_epoch = None;
        // §4.6: ssthresh = flight_size·β_cubic, at least 2 segments.
        ((flight as f64 * beta) as u64).max(2 * smss)
    }
    fn on_enter_ca(&mut self, now: SimTime, cwnd: u64) {
        self.start_epoch(now, cwnd);
    }
    fn on_timeout(&mut self, _now: SimTime) {
        self.after_timeout = true;
        self.t_epoch = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::classic::Classic;
    use crate::cc::WindowController;

    const MSS: u64 = 1000;

    fn cubic(params: CubicParams, cwnd_segments: u64) -> Classic<Cubic> {
        Classic::new(Cubic::new(params, MSS), MSS, cwnd_segments * MSS)
    }

    /// A loss at cwnd = FlightSize = W segments, the transport's recovery
    /// (cwnd = ssthresh), and its exit at `now`.
    fn loss(c: &mut Classic<Cubic>, now: SimTime) {
        let w = c.cwnd();
        c.on_congestion_event(now, w);
        c.set_cwnd(c.ssthresh());
        c.on_recovery_exit(now);
    }

    /// Window-limited ACK clock: one ACK per segment, a window per `rtt`,
    /// until `until`.
    fn run(c: &mut Classic<Cubic>, now: &mut SimTime, rtt: SimDuration, until: SimTime) {
        while *now < until {
            *now += SimDuration(rtt.0 * MSS / c.cwnd());
            c.on_ack(&AckSample {
                now: *now,
                acked: MSS,
                flight: c.cwnd(),
                rtt: Some(rtt),
                srtt: rtt,
                min_rtt: rtt,
                delivered: 0,
                recovery: false,
            });
        }
    }

    /// RFC 9438 §4.2 with C = 0.4, β = 0.7 after a loss at 100 segments:
    /// cwnd_epoch = 70, K = cbrt((100 − 70)/0.4) = cbrt(75) = 4.217163 s,
    /// and W_cubic(t) = 0.4(t − K)³ + 100 (values from the formula).
    #[test]
    fn w_cubic_and_k_match_rfc_9438_equations() {
        let mut c = cubic(CubicParams::default(), 100);
        loss(&mut c, SimTime(0));
        assert_eq!(c.ssthresh(), 70 * MSS);
        assert!((c.adj.k() - 4.217163326508746).abs() < 1e-12, "K {}", c.adj.k());
        for (t, w) in [
            (0.0, 70.0),
            (1.0, 86.68076383512988),
            (2.0, 95.64033568663878),
            (4.217163326508746, 100.0),
            (6.0, 102.26670325646442),
            (10.0, 177.35399908835427),
        ] {
            assert!((c.adj.w_cubic(t) - w).abs() < 1e-9, "W_cubic({t}) = {}", c.adj.w_cubic(t));
        }
    }

    /// With a 100-ms RTT the window follows W_cubic(t + RTT) from below
    /// (the per-ACK increase closes the gap within an RTT): at t = 2 s it is
    /// within a segment of W_cubic(2.1) = 96.8, concave; it plateaus at
    /// W_max = 100 around t = K and is convex after (at 5 s).
    #[test]
    fn concave_then_convex_growth_follows_w_cubic() {
        let mut c = cubic(CubicParams::default(), 100);
        loss(&mut c, SimTime(0));
        let rtt = SimDuration::from_millis(100);
        let mut now = SimTime(0);
        run(&mut c, &mut now, rtt, SimTime(2_000_000_000));
        let w = c.cwnd() as f64 / MSS as f64;
        let want = c.adj.w_cubic(2.1);
        assert!((w - want).abs() < 1.0 && w <= want, "cwnd {w} W_cubic(t+RTT) {want}");
        assert_eq!(c.adj.region(), Some(Region::Concave));
        run(&mut c, &mut now, rtt, SimTime(4_200_000_000));
        let w = c.cwnd() as f64 / MSS as f64;
        assert!((99.0..=100.5).contains(&w), "cwnd at K {w}");
        run(&mut c, &mut now, rtt, SimTime(5_000_000_000));
        assert_eq!(c.adj.region(), Some(Region::Convex));
        let w = c.cwnd() as f64 / MSS as f64;
        assert!((w - c.adj.w_cubic(5.1)).abs() < 1.0, "cwnd {w}");
        // By 6 s Reno's estimate (α = 0.53 per RTT from 70) passes the
        // flat cubic (W_cubic(6) = 102.3) and the Reno-friendly region rules.
        run(&mut c, &mut now, rtt, SimTime(6_000_000_000));
        assert_eq!(c.adj.region(), Some(Region::RenoFriendly));
    }

    /// Small BDP (W_max = 10 segments, RTT = 10 ms): W_cubic stays near 10
    /// for seconds (K = cbrt(7.5) = 1.957 s) while Reno's estimate grows α
    /// per RTT, then 1 per RTT once past cwnd_prior = 10 (§4.3). After 1 s
    /// (≈100 RTTs) CUBIC is in the Reno-friendly region with cwnd = W_est ≈
    /// 7 + 3 + (100 − 6) ≈ 100 segments, far above W_cubic(1 s) = 9.65.
    #[test]
    fn reno_friendly_region_takes_over_at_small_bdp() {
        let mut c = cubic(CubicParams::default(), 10);
        loss(&mut c, SimTime(0));
        assert!((c.adj.k() - 1.9574338205844317).abs() < 1e-12);
        let mut now = SimTime(0);
        run(&mut c, &mut now, SimDuration::from_millis(10), SimTime(1_000_000_000));
        assert_eq!(c.adj.region(), Some(Region::RenoFriendly));
        let w = c.cwnd() as f64 / MSS as f64;
        assert!((85.0..=105.0).contains(&w), "cwnd {w}");
        assert!((w - c.adj.w_est()).abs() < 1.0);
        assert!(c.adj.w_cubic(1.0) < 10.0);
        assert_eq!(c.adj.alpha(), 1.0);
        // Without the Reno-friendly region the window stays on the cubic.
        let mut d = cubic(CubicParams { tcp_friendliness: false, ..CubicParams::default() }, 10);
        loss(&mut d, SimTime(0));
        let mut now = SimTime(0);
        run(&mut d, &mut now, SimDuration::from_millis(10), SimTime(1_000_000_000));
        assert!(d.cwnd() <= 10 * MSS, "cwnd {}", d.cwnd());
    }

    /// §4.7: a second loss below W_max = 100 lowers W_max to
    /// 80·(1 + 0.7)/2 = 68 rather than 80; without fast convergence, 80.
    #[test]
    fn fast_convergence_lowers_w_max() {
        for (fc, want) in [(true, 68.0), (false, 80.0)] {
            let mut c = cubic(CubicParams { fast_convergence: fc, ..CubicParams::default() }, 100);
            loss(&mut c, SimTime(0));
            assert_eq!(c.adj.w_max(), Some(100.0));
            c.set_cwnd(80 * MSS);
            loss(&mut c, SimTime(1_000_000_000));
            assert!((c.adj.w_max().unwrap() - want).abs() < 1e-9);
            assert_eq!(c.ssthresh(), 56 * MSS); // §4.6: 0.7·80
        }
    }

    /// §4.6: ssthresh from FlightSize (not cwnd), at least 2 segments.
    #[test]
    fn multiplicative_decrease_uses_flight_size() {
        let mut c = cubic(CubicParams::default(), 100);
        c.on_congestion_event(SimTime(0), 40 * MSS);
        assert_eq!(c.ssthresh(), 28 * MSS);
        c.on_congestion_event(SimTime(0), 2 * MSS);
        assert_eq!(c.ssthresh(), 2 * MSS);
    }

    /// §4.8: a timeout sets ssthresh = 0.7·flight and cwnd = 1 SMSS; the
    /// first congestion avoidance stage after it has K = 0 and W_max =
    /// cwnd_epoch.
    #[test]
    fn timeout_restarts_with_k_zero() {
        let mut c = cubic(CubicParams::default(), 100);
        loss(&mut c, SimTime(0));
        c.on_rto(SimTime(1_000_000_000), 50 * MSS);
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 35 * MSS));
        let mut now = SimTime(1_000_000_000);
        run(&mut c, &mut now, SimDuration::from_millis(100), SimTime(3_000_000_000));
        assert!(!c.in_slow_start());
        assert_eq!(c.adj.k(), 0.0);
        assert_eq!(c.adj.w_max(), Some(35.0));
    }

    /// §4.2: the target is at most 1.5·cwnd. After a loss at 10 segments
    /// (K = 1.957 s), far into the convex region (W_cubic(10.1 s) ≈ 226 ≫
    /// 15) an ACK of one segment at cwnd = 10 adds (1.5·10 − 10)/10 segment
    /// = 500 bytes.
    #[test]
    fn target_clamped_to_one_and_a_half_cwnd() {
        let params = CubicParams { tcp_friendliness: false, ..CubicParams::default() };
        let mut c = cubic(params, 10);
        loss(&mut c, SimTime(0));
        c.set_cwnd(10 * MSS);
        let rtt = SimDuration::from_millis(100);
        c.on_ack(&AckSample {
            now: SimTime(10_000_000_000),
            acked: MSS,
            flight: 10 * MSS,
            rtt: Some(rtt),
            srtt: rtt,
            min_rtt: rtt,
            delivered: 0,
            recovery: false,
        });
        assert_eq!(c.cwnd(), 10 * MSS + 500);
    }
}
