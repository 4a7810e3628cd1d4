//! The patent's packet-size adaptation as seed 001 simulated it (Fitzgerald,
//! US 6,421,720; seed 001 §4.5.2 and Table 3). Each reported loss maps to a
//! target ptime; above the target-for-no-loss range the ptime grows by one
//! step (10 ms) per report until it reaches the target. Reading: when the
//! loss falls the ptime goes straight to the lower target (the seed: "in
//! the 0–2 % range the optimal packet size is in use"; scenario 19's
//! channel returns to 20 ms as soon as a report shows no loss). A NACK adds
//! one step up to the largest ptime of the table (§4.5.2 rtcpHandleNack).

use super::step_up;
use crate::rtp::RtcpEvent;

#[derive(Clone, Debug, PartialEq)]
pub struct PatentCfg {
    /// Upper loss bounds (fractions, ascending) of the table's ranges; the
    /// last range is open-ended.
    pub thresholds: Vec<f64>,
    /// Target ptime (ms) per range: one more than `thresholds`.
    pub ptimes: Vec<u32>,
    /// Step per report and per NACK, ms.
    pub step: u32,
}

impl PatentCfg {
    /// Seed 001 Table 3, G.711: 0–2 % → 20 ms, above → 30 ms.
    pub fn g711() -> Self {
        PatentCfg { thresholds: vec![0.02], ptimes: vec![20, 30], step: 10 }
    }
    /// Seed 001 Table 3, G.729: 0–2 → 30, 2–4 → 40, 4–6 → 50, 6–8 → 60,
    /// 8–10 → 70, above 10 % → 80 ms.
    pub fn g729() -> Self {
        PatentCfg { thresholds: vec![0.02, 0.04, 0.06, 0.08, 0.10], ptimes: vec![30, 40, 50, 60, 70, 80], step: 10 }
    }
    /// The table's target for a loss fraction. A loss exactly on a bound
    /// belongs to the lower range ("0–2 %" includes 2 %).
    pub fn target(&self, loss: f64) -> u32 {
        let i = self.thresholds.iter().take_while(|&&t| loss > t).count();
        self.ptimes[i]
    }
    /// The optimal ptime (no loss), where calls start.
    pub fn optimal(&self) -> u32 {
        self.ptimes[0]
    }
}

#[derive(Debug)]
pub struct Patent {
    cfg: PatentCfg,
    ptime: u32,
}

impl Patent {
    pub fn new(cfg: PatentCfg, ptime_ms: u32) -> Self {
        Patent { cfg, ptime: ptime_ms }
    }

    pub fn on_event(&mut self, ev: &RtcpEvent) -> Option<u32> {
        let max = *self.cfg.ptimes.last().expect("a table");
        let next = match *ev {
            RtcpEvent::Report { fraction_lost, .. } => {
                let target = self.cfg.target(fraction_lost);
                if target > self.ptime {
                    step_up(self.ptime, self.cfg.step, target)
                } else {
                    target
                }
            }
            RtcpEvent::Nack { .. } => step_up(self.ptime, self.cfg.step, max),
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

    /// G.729 (Table 3): from 30 ms, reports of 9 % loss climb 40, 50, 60,
    /// 70 and stop at 70 (the 8–10 % target); 12 % takes it to 80; 3 %
    /// drops straight to 40; 0 % to 30; a NACK adds 10 (40); NACKs stop at
    /// 80.
    #[test]
    fn g729_script() {
        let mut a = Patent::new(PatentCfg::g729(), 30);
        let script = [(0.09, Some(40)), (0.09, Some(50)), (0.09, Some(60)), (0.09, Some(70)), (0.09, None), (0.12, Some(80)), (0.03, Some(40)), (0.0, Some(30)), (0.02, None)];
        for (i, (loss, want)) in script.iter().enumerate() {
            assert_eq!(a.on_event(&rep(*loss)), *want, "step {i}: loss {loss}");
        }
        assert_eq!(a.on_event(&RtcpEvent::Nack { lost: 1 }), Some(40));
        for _ in 0..10 {
            a.on_event(&RtcpEvent::Nack { lost: 2 });
        }
        assert_eq!(a.on_event(&RtcpEvent::Nack { lost: 1 }), None);
        assert_eq!(a.ptime, 80);
    }

    /// G.711: 20 ↔ 30 ms only; the 8-bit field's 5/256 ≈ 1.95 % is below 2 %.
    #[test]
    fn g711_script() {
        let mut a = Patent::new(PatentCfg::g711(), 20);
        assert_eq!(a.on_event(&rep(5.0 / 256.0)), None);
        assert_eq!(a.on_event(&rep(6.0 / 256.0)), Some(30));
        assert_eq!(a.on_event(&rep(0.5)), None);
        assert_eq!(a.on_event(&rep(0.0)), Some(20));
    }
}
