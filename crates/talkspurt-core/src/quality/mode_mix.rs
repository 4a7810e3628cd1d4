//! Ie,eff of a call whose codec mode changes (`codec-mode`, `tfrc-codec`).
//!
//! G.107 §7.5 gives Ie,eff for one codec: Ie + (95 − Ie)·Ppl/(Ppl/BurstR +
//! Bpl), with Ie and Bpl from G.113 Appendix I for that codec. A call that
//! switches AMR modes spends parts of its length under different (Ie, Bpl)
//! pairs, and G.107 has no term for that. talkspurt's reading
//! (docs/models/emodel.md, "Calls that switch modes"):
//!
//! - the call is cut into the stretches each mode was in use; over mode m's
//!   stretch the impairment is G.107's own, Ie,eff,m = Ie_m + (95 − Ie_m)·
//!   Ppl_m/(Ppl_m/BurstR + Bpl_m), Ppl_m the loss of the packets sent in
//!   that mode, BurstR the call's (one estimate: a mode's stretches are
//!   often too short to estimate burstiness on their own);
//! - the call's Ie,eff is their mean weighted by the speech time w_m each
//!   mode carried: Σ w_m·Ie,eff,m. G.107 §7.1 adds impairments on the R
//!   scale (the additivity G.113 §7 relies on for planning), so this is the
//!   time-average of R over the stretches, the other terms being the
//!   call's.
//!
//! A call in one mode gets exactly G.107's value.

use super::emodel::ie_eff;

/// One mode's part of a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeShare {
    /// G.113 figures of the mode.
    pub ie: f64,
    pub bpl: f64,
    /// Speech time the mode carried (any unit; the shares are normalised).
    pub weight: f64,
    /// Loss of the mode's packets, percent (G.107's Ppl).
    pub ppl: f64,
}

/// Σ w_m·Ie,eff,m over `shares` (weights normalised), and whether any
/// mode's Ie,eff reached the cap of 95. None without weight.
pub fn ie_eff_mixed(shares: &[ModeShare], burst_r: f64) -> Option<(f64, bool)> {
    let total: f64 = shares.iter().map(|m| m.weight).sum();
    if total <= 0.0 {
        return None;
    }
    let mut sum = 0.0;
    let mut capped = false;
    for m in shares.iter().filter(|m| m.weight > 0.0) {
        let (x, c) = ie_eff(m.ie, m.bpl, m.ppl, burst_r);
        sum += m.weight / total * x;
        capped |= c;
    }
    Some((sum, capped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    /// By hand: AMR 12.2 (Ie 5, Bpl 10) for 60 % of the speech with 1 %
    /// of its packets lost, AMR 4.75 (Ie 21, Bpl 10) for 40 % with 10 %
    /// lost, random loss (BurstR 1):
    ///   Ie,eff,12.2 = 5 + 90·1/(1 + 10) = 13.181818…
    ///   Ie,eff,4.75 = 21 + 74·10/(10 + 10) = 58
    ///   mixed = 0.6·13.181818 + 0.4·58 = 7.909091 + 23.2 = 31.109091.
    /// With BurstR 2: 5 + 90·1/(0.5 + 10) = 13.571429 and 21 + 74·10/(5 +
    /// 10) = 70.333333: 0.6·13.571429 + 0.4·70.333333 = 36.276190.
    #[test]
    fn hand_worked_two_modes() {
        let shares = [ModeShare { ie: 5.0, bpl: 10.0, weight: 0.6, ppl: 1.0 }, ModeShare { ie: 21.0, bpl: 10.0, weight: 0.4, ppl: 10.0 }];
        let (x, capped) = ie_eff_mixed(&shares, 1.0).unwrap();
        close(x, 31.109091, 1e-6);
        assert!(!capped);
        close(ie_eff_mixed(&shares, 2.0).unwrap().0, 36.276190, 1e-6);
        // Weights in speech seconds, not fractions: the same answer.
        let secs = [ModeShare { weight: 36.0, ..shares[0] }, ModeShare { weight: 24.0, ..shares[1] }];
        close(ie_eff_mixed(&secs, 1.0).unwrap().0, 31.109091, 1e-6);
    }

    /// One mode: exactly G.107 §7.5; no weight: undefined.
    #[test]
    fn one_mode_is_g107() {
        let one = [ModeShare { ie: 11.0, bpl: 19.0, weight: 3.0, ppl: 2.5 }];
        assert_eq!(ie_eff_mixed(&one, 1.7).unwrap(), ie_eff(11.0, 19.0, 2.5, 1.7));
        assert_eq!(ie_eff_mixed(&[], 1.0), None);
        assert_eq!(ie_eff_mixed(&[ModeShare { weight: 0.0, ..one[0] }], 1.0), None);
    }
}
