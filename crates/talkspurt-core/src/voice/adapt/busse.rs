//! Busse, Deffner & Schulzrinne (1996) as seed 001 applied it to ptime
//! (§4.5.2, Fig. 4): the reported loss b is smoothed, λ ← (1−α)λ + αb with
//! α = 0.3; below λ_u = 2 % the ptime shrinks by one step (lower delay),
//! above λ_c = 4 % it grows by one step, in between it holds; steps of
//! 10 ms within [min, max] (seed 001 §2: 10–30 ms for G.711, 10–80 ms for
//! G.729). A NACK adds one step (§4.5.2 rtcpHandleNack).

use super::step_up;
use crate::rtp::RtcpEvent;

#[derive(Clone, Debug, PartialEq)]
pub struct BusseCfg {
    /// Weight of the new report (seed 001: 0.3).
    pub alpha: f64,
    /// Unloaded and congested thresholds (fractions), λ_u < λ_c.
    pub lambda_u: f64,
    pub lambda_c: f64,
    pub step: u32,
    pub min: u32,
    pub max: u32,
}

impl BusseCfg {
    pub fn new(min: u32, max: u32) -> Self {
        BusseCfg { alpha: 0.3, lambda_u: 0.02, lambda_c: 0.04, step: 10, min, max }
    }
}

#[derive(Debug)]
pub struct Busse1996 {
    cfg: BusseCfg,
    /// Smoothed loss λ.
    pub lambda: f64,
    ptime: u32,
}

impl Busse1996 {
    pub fn new(cfg: BusseCfg, ptime_ms: u32) -> Self {
        Busse1996 { cfg, lambda: 0.0, ptime: ptime_ms }
    }

    pub fn on_event(&mut self, ev: &RtcpEvent) -> Option<u32> {
        let c = &self.cfg;
        let next = match *ev {
            RtcpEvent::Report { fraction_lost, .. } => {
                self.lambda = (1.0 - c.alpha) * self.lambda + c.alpha * fraction_lost;
                if self.lambda < c.lambda_u {
                    self.ptime.saturating_sub(c.step).max(c.min)
                } else if self.lambda > c.lambda_c {
                    step_up(self.ptime, c.step, c.max)
                } else {
                    self.ptime
                }
            }
            RtcpEvent::Nack { .. } => step_up(self.ptime, c.step, c.max),
        };
        (next != self.ptime).then(|| {
            self.ptime = next;
            next
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(loss: f64) -> RtcpEvent {
        RtcpEvent::Report { fraction_lost: loss, cum_lost: 0, jitter_s: 0.0, rtt_s: None, owd_s: None }
    }

    /// G.711 (10–30 ms) from 20 ms. Reports b = 0, 0.10, 0.10, 0, 0, 0, 0:
    /// λ = 0 (→10 ms), 0.03 (hold), 0.051 (→20), 0.0357 (hold), 0.02499
    /// (hold), 0.017493 (→10), 0.0122451 (stays at the 10 ms floor).
    #[test]
    fn g711_script() {
        let mut a = Busse1996::new(BusseCfg::new(10, 30), 20);
        let script = [(0.0, Some(10), 0.0), (0.10, None, 0.03), (0.10, Some(20), 0.051), (0.0, None, 0.0357), (0.0, None, 0.02499), (0.0, Some(10), 0.017493), (0.0, None, 0.0122451)];
        for (i, (b, want, lambda)) in script.iter().enumerate() {
            assert_eq!(a.on_event(&rep(*b)), *want, "step {i}");
            assert!((a.lambda - lambda).abs() < 1e-9, "step {i}: λ {}", a.lambda);
        }
        assert_eq!(a.on_event(&RtcpEvent::Nack { lost: 3 }), Some(20));
        assert_eq!(a.on_event(&RtcpEvent::Nack { lost: 3 }), Some(30));
        assert_eq!(a.on_event(&RtcpEvent::Nack { lost: 3 }), None);
    }
}
