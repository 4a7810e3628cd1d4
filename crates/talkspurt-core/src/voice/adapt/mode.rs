//! `codec-mode`: a multi-rate codec (AMR-NB 4.75–12.2 kb/s, Speex
//! narrowband modes 1–8) switches mode on reported loss. The issue names
//! no algorithm; the reading here is busse1996's loss rule (seed 001
//! §4.5.2, Busse et al. 1996) applied to the mode ladder instead of the
//! ptime: λ ← (1−α)λ + αb with α = 0.3; λ > λ_c = 4 % steps one mode down
//! (fewer octets per frame), λ < λ_u = 2 % one mode up, in between holds.
//! One step per report, within the configured modes; NACKs are ignored
//! (a lost packet is not a rate signal of its own here). The frame stays
//! the family's 20 ms, so a switch changes the octets per frame only.

use crate::rtp::RtcpEvent;
use crate::voice::Codec;

#[derive(Clone, Debug, PartialEq)]
pub struct ModeCfg {
    /// The allowed modes in ascending bit rate (same frame).
    pub modes: Vec<&'static Codec>,
    /// Weight of the new report (0.3).
    pub alpha: f64,
    /// Up below λ_u, down above λ_c (fractions, λ_u ≤ λ_c).
    pub lambda_u: f64,
    pub lambda_c: f64,
}

#[derive(Debug)]
pub struct CodecMode {
    cfg: ModeCfg,
    /// Smoothed loss λ.
    pub lambda: f64,
    /// Index of the current mode in `cfg.modes`.
    idx: usize,
}

impl CodecMode {
    /// Start in `start` (one of `cfg.modes`, validated).
    pub fn new(cfg: ModeCfg, start: &Codec) -> Self {
        let idx = cfg.modes.iter().position(|m| m.name == start.name).expect("the call's codec is one of its modes");
        CodecMode { cfg, lambda: 0.0, idx }
    }

    pub fn mode(&self) -> &'static Codec {
        self.cfg.modes[self.idx]
    }

    pub fn on_event(&mut self, ev: &RtcpEvent) -> Option<&'static Codec> {
        let RtcpEvent::Report { fraction_lost, .. } = *ev else { return None };
        let c = &self.cfg;
        self.lambda = (1.0 - c.alpha) * self.lambda + c.alpha * fraction_lost;
        let next = if self.lambda > c.lambda_c {
            self.idx.saturating_sub(1)
        } else if self.lambda < c.lambda_u {
            (self.idx + 1).min(c.modes.len() - 1)
        } else {
            self.idx
        };
        (next != self.idx).then(|| {
            self.idx = next;
            self.mode()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::codec::{lookup, modes};

    fn rep(loss: f64) -> RtcpEvent {
        RtcpEvent::Report { fraction_lost: loss, cum_lost: 0, jitter_s: 0.0, rtt_s: None, owd_s: None }
    }

    /// AMR-NB from 12.2 kb/s, all eight modes. Reports b and λ by hand:
    ///  1. 0.20: λ = 0.06 > 4 %: down to 10.2 (26 octets per frame);
    ///  2. 0.20: λ = 0.7·0.06 + 0.06 = 0.102: down to 7.95 (20 octets);
    ///  3. 0.00: λ = 0.0714: still > 4 %: down to 7.4 (19 octets);
    ///  4. 0.00: λ = 0.04998: down to 6.7;
    ///  5. 0.00: λ = 0.034986: between 2 and 4 %: hold at 6.7;
    ///  6. 0.00: λ = 0.0244902: hold;
    ///  7. 0.00: λ = 0.01714314 < 2 %: up to 7.4;
    ///  8. 0.00: λ = 0.0120002: up to 7.95;
    ///  9. a NACK: ignored.
    #[test]
    fn amr_script() {
        let amr = lookup("AMR-NB-12.2").unwrap();
        let cfg = ModeCfg { modes: modes(amr), alpha: 0.3, lambda_u: 0.02, lambda_c: 0.04 };
        let mut a = CodecMode::new(cfg, amr);
        let script = [
            (0.20, Some(("AMR-NB-10.2", 26)), 0.06),
            (0.20, Some(("AMR-NB-7.95", 20)), 0.102),
            (0.0, Some(("AMR-NB-7.4", 19)), 0.0714),
            (0.0, Some(("AMR-NB-6.7", 17)), 0.04998),
            (0.0, None, 0.034986),
            (0.0, None, 0.0244902),
            (0.0, Some(("AMR-NB-7.4", 19)), 0.01714314),
            (0.0, Some(("AMR-NB-7.95", 20)), 0.012000198),
        ];
        for (i, (b, want, lambda)) in script.iter().enumerate() {
            let got = a.on_event(&rep(*b)).map(|c| (c.name, c.frame_bytes));
            assert_eq!(got, *want, "step {i}");
            assert!((a.lambda - lambda).abs() < 1e-9, "step {i}: λ {}", a.lambda);
        }
        assert_eq!(a.on_event(&RtcpEvent::Nack { lost: 4 }), None);
        assert_eq!(a.mode().name, "AMR-NB-7.95");
    }

    /// Bounds: a restricted Speex ladder (8, 11, 15 kb/s) from 11: heavy
    /// loss stops at 8, no loss stops at 15.
    #[test]
    fn speex_bounds() {
        let m: Vec<&'static Codec> = ["Speex-NB-8", "Speex-NB-11", "Speex-NB-15"].iter().map(|n| lookup(n).unwrap()).collect();
        let mut a = CodecMode::new(ModeCfg { modes: m, alpha: 0.3, lambda_u: 0.02, lambda_c: 0.04 }, lookup("Speex-NB-11").unwrap());
        assert_eq!(a.on_event(&rep(0.5)).map(|c| c.name), Some("Speex-NB-8"));
        assert_eq!(a.on_event(&rep(0.5)), None);
        for _ in 0..20 {
            a.on_event(&rep(0.0));
        }
        assert_eq!(a.mode().name, "Speex-NB-15");
        assert_eq!(a.on_event(&rep(0.0)), None);
    }
}
