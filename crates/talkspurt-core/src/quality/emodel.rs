//! The full ITU-T G.107 E-model (narrowband), edition **G.107 (12/2011)**.
//!
//! Section numbers below are those of the 12/2011 edition (§7.1–§7.7,
//! Annex B). The equations are unchanged from the 03/2005 edition, where the
//! same sections are numbered §3.1–§3.7. Written from the Recommendation's
//! equations; no code or text was copied.
//!
//! R = Ro − Is − Id − Ie,eff + A                                   (§7.1)

use super::mos::mos_from_r;
use std::cell::{Cell, RefCell};
use super::params::{check, delay_loss_in_extended_range};
pub use super::params::EModelParams;

/// Output of [`emodel`]: R, MOS and every intermediate term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EModelResult {
    /// Total noise power No, dBm0p (§7.2).
    pub no: f64,
    /// Basic signal-to-noise ratio Ro (§7.2).
    pub ro: f64,
    /// Simultaneous impairment Is = Iolr + Ist + Iq (§7.3).
    pub is: f64,
    /// Impairment from a too-low overall loudness rating (§7.3).
    pub iolr: f64,
    /// Impairment from non-optimum sidetone (§7.3).
    pub ist: f64,
    /// Impairment from quantizing distortion (§7.3).
    pub iq: f64,
    /// Delay impairment Id = Idte + Idle + Idd (§7.4).
    pub id: f64,
    /// Talker-echo impairment (§7.4).
    pub idte: f64,
    /// Listener-echo impairment (§7.4).
    pub idle: f64,
    /// Impairment from too-long absolute delay Ta (§7.4).
    pub idd: f64,
    /// Effective equipment impairment Ie,eff (§7.5).
    pub ie_eff: f64,
    /// Transmission rating factor R (§7.1). Not clamped.
    pub r: f64,
    /// MOS_CQE from R per Annex B (see [`mos_from_r`]).
    pub mos: f64,
}

/// Computes the E-model of ITU-T G.107 (12/2011) §7 for `p`.
///
/// Every input is first checked against the permitted ranges of Table 3
/// (A against §7.6's maximum of 20); the error names the parameter, its value
/// and the allowed range.
pub fn emodel(p: &EModelParams) -> Result<EModelResult, String> {
    check(p, false)?;
    Ok(compute(p))
}

/// Same equations as [`emodel`], but accepts T and Ta up to 2000 ms, Tr up to
/// 4000 ms, A up to 100, Ppl up to 100 % and any BurstR ≥ 1. **Outside
/// G.107's validated range**: the terms are extrapolated. Provided for
/// satellite studies (seed 003 uses A = 40 with one-way delays near 800 ms)
/// and congested calls. All other parameters keep the Table 3 limits.
pub fn emodel_extended(p: &EModelParams) -> Result<EModelResult, String> {
    check(p, true)?;
    Ok(compute(p))
}

/// The extended E-model as a function of mouth-to-ear delay, loss and
/// BurstR for otherwise fixed parameters, for scoring many schedules of one
/// call (the offline bounds). Identical, bit for bit, to
/// [`emodel_extended`] on the same inputs; it only computes the terms that
/// depend on neither delay nor loss once. `Sync`; [`KeptCurve`] adds a
/// per-thread cache of delay terms.
#[derive(Debug, Clone)]
pub struct EModelCurve {
    base: EModelParams,
    st: Static,
    /// Every parameter but T, Ta, Tr, Ppl and BurstR in its extended range.
    fixed_ok: bool,
}

thread_local! {
    /// The last curve built on this thread: every call of a group has the
    /// same parameters, so scoring 100 000 calls built the same curve
    /// 100 000 times (issue 14).
    static LAST_CURVE: RefCell<Option<EModelCurve>> = const { RefCell::new(None) };
}

/// Every parameter's bits: equal bits, equal curve (`==` would take −0
/// for +0). The pattern names every field, so a field added to
/// `EModelParams` fails to compile here rather than go missing from the
/// curve caches' key.
fn param_bits(p: &EModelParams) -> [u64; 21] {
    let EModelParams { slr, rlr, stmr, lstr, ds, dr, telr, wepl, t, ta, tr, qdu, ie, bpl, ppl, burst_r, nc, nfor, ps, pr, a } = *p;
    [slr, rlr, stmr, lstr, ds, dr, telr, wepl, t, ta, tr, qdu, ie, bpl, ppl, burst_r, nc, nfor, ps, pr, a].map(f64::to_bits)
}

impl EModelCurve {
    /// The curve of `base`; a copy of the last one built on this thread
    /// when `base` is the same, bit for bit.
    pub fn new(base: EModelParams) -> Self {
        LAST_CURVE.with(|last| {
            let mut last = last.borrow_mut();
            match &*last {
                Some(c) if param_bits(&c.base) == param_bits(&base) => c.clone(),
                _ => {
                    let c = Self::build(base);
                    *last = Some(c.clone());
                    c
                }
            }
        })
    }

    fn build(base: EModelParams) -> Self {
        let neutral = EModelParams { t: 0.0, ta: 0.0, tr: 0.0, ppl: 0.0, burst_r: 1.0, ..base };
        EModelCurve { st: static_part(&base), base, fixed_ok: check(&neutral, true).is_ok() }
    }

    /// [`emodel_extended`] with T = Ta = `d_ms`, Tr = 2·`d_ms`,
    /// Ppl = 100·`loss`, BurstR = `burst_r`.
    pub fn at(&self, d_ms: f64, loss: f64, burst_r: f64) -> Result<EModelResult, String> {
        let p = self.params(d_ms, loss, burst_r)?;
        Ok(compute_with(&p, &self.st))
    }

    /// The inputs of [`EModelCurve::at`], checked as `emodel_extended`
    /// checks them.
    fn params(&self, d_ms: f64, loss: f64, burst_r: f64) -> Result<EModelParams, String> {
        let p = EModelParams { t: d_ms, ta: d_ms, tr: 2.0 * d_ms, ppl: loss * 100.0, burst_r, ..self.base };
        // With the fixed parameters in range, only the five that vary can
        // fail; otherwise the full check gives the message.
        if !(self.fixed_ok && delay_loss_in_extended_range(&p)) {
            check(&p, true)?;
        }
        Ok(p)
    }
}

/// An [`EModelCurve`] that keeps the delay terms of the last few delays
/// asked for: a call's scoring asks for the same mouth-to-ear delays at
/// several losses (issue 14). Bit for bit [`EModelCurve::at`]: equal delay
/// bits give equal terms. Not `Sync` (the cache is a `Cell`): one per
/// thread, e.g. one per call scored.
#[derive(Debug, Clone)]
pub struct KeptCurve {
    curve: EModelCurve,
    kept: Cell<[Option<(u64, DelayTerms)>; KEPT]>,
    next: Cell<usize>,
}

/// Delays whose terms a [`KeptCurve`] keeps.
const KEPT: usize = 4;

/// A [`KeptCurve`]'s kept delay terms, by the bits of its parameters.
type KeptState = ([u64; 21], [Option<(u64, DelayTerms)>; KEPT], usize);

thread_local! {
    /// The kept delay terms of the last [`KeptCurve`] dropped on this
    /// thread: the next call of the group starts with them, so calls that
    /// see the same delays (a path without queueing) do not compute their
    /// terms again (issue 14).
    static LAST_KEPT: Cell<Option<KeptState>> = const { Cell::new(None) };
}

impl KeptCurve {
    /// The curve of `base`, starting with the delay terms kept by the last
    /// one dropped on this thread when its parameters are the same bits.
    pub fn new(base: EModelParams) -> Self {
        let (kept, next) = match LAST_KEPT.with(Cell::get) {
            Some((bits, kept, next)) if bits == param_bits(&base) => (kept, next),
            _ => ([None; KEPT], 0),
        };
        KeptCurve { curve: EModelCurve::new(base), kept: Cell::new(kept), next: Cell::new(next) }
    }

    /// [`EModelCurve::at`].
    pub fn at(&self, d_ms: f64, loss: f64, burst_r: f64) -> Result<EModelResult, String> {
        let p = self.curve.params(d_ms, loss, burst_r)?;
        // The delay terms read T, Ta, Tr and the fixed parameters only.
        let bits = d_ms.to_bits();
        let mut kept = self.kept.get();
        let dt = match kept.iter().flatten().find(|(b, _)| *b == bits) {
            Some(&(_, dt)) => dt,
            None => {
                let dt = delay_terms(&p, &self.curve.st);
                let k = self.next.get();
                kept[k] = Some((bits, dt));
                self.kept.set(kept);
                self.next.set((k + 1) % KEPT);
                dt
            }
        };
        Ok(finish(&p, &self.curve.st, &dt))
    }
}

impl Drop for KeptCurve {
    fn drop(&mut self) {
        LAST_KEPT.with(|l| l.set(Some((param_bits(&self.curve.base), self.kept.get(), self.next.get()))));
    }
}

/// Upper limit of Ie,eff: 95 is where §7.5's formula tends for random loss
/// (BurstR = 1) as Ppl grows, the impairment of a signal entirely lost.
pub const IE_EFF_MAX: f64 = 95.0;

/// G.107 §7.5 eq. 7-29, `Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl)`, capped at
/// [`IE_EFF_MAX`]; the flag says the cap applied. With BurstR > 1 the
/// formula exceeds 95 once Ppl·(1 − 1/BurstR) > Bpl, e.g. 189.5 at 99.9 %
/// loss, BurstR 4 and G.711's Bpl; R then falls far below 0 and a single
/// call dominates any average. No impairment can be worse than losing
/// everything, so talkspurt caps it (docs/models/emodel.md, "Readings").
pub fn ie_eff(ie: f64, bpl: f64, ppl: f64, burst_r: f64) -> (f64, bool) {
    let x = ie + (95.0 - ie) * ppl / (ppl / burst_r + bpl);
    if x > IE_EFF_MAX {
        (IE_EFF_MAX, true)
    } else {
        (x, false)
    }
}

fn lg(x: f64) -> f64 {
    x.log10()
}

/// Power sum in dB: 10·lg(Σ 10^(xᵢ/10)).
fn db_sum(xs: &[f64]) -> f64 {
    10.0 * lg(xs.iter().map(|x| 10f64.powf(x / 10.0)).sum())
}

/// The terms that depend neither on the delays (T, Ta, Tr) nor on the
/// loss (Ppl, BurstR): No, Ro, Iolr, Iq.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Static {
    no: f64,
    ro: f64,
    iolr: f64,
    iq: f64,
}

fn static_part(p: &EModelParams) -> Static {
    // §7.2 Basic signal-to-noise ratio.
    let olr = p.slr + p.rlr;
    let nfo = p.nfor + p.rlr;
    let pre = p.pr + 10.0 * lg(1.0 + 10f64.powf((10.0 - p.lstr) / 10.0));
    let nor = p.rlr - 121.0 + pre + 0.008 * (pre - 35.0).powi(2);
    let nos = p.ps - p.slr - p.ds - 100.0 + 0.004 * (p.ps - olr - p.ds - 14.0).powi(2);
    let no = db_sum(&[p.nc, nos, nor, nfo]);
    let ro = 15.0 - 1.5 * (p.slr + no);

    // §7.3 Simultaneous impairment factor.
    let xolr = olr + 0.2 * (64.0 + no - p.rlr);
    let iolr = 20.0 * ((1.0 + (xolr / 8.0).powi(8)).powf(1.0 / 8.0) - xolr / 8.0);
    let q = 37.0 - 15.0 * lg(p.qdu);
    let g = 1.07 + 0.258 * q + 0.0602 * q * q;
    let y = (ro - 100.0) / 15.0 + 46.0 / 8.4 - g / 9.0;
    let z = 46.0 / 30.0 - g / 40.0;
    let iq = 15.0 * lg(1.0 + 10f64.powf(y) + 10f64.powf(z));
    Static { no, ro, iolr, iq }
}

fn compute(p: &EModelParams) -> EModelResult {
    compute_with(p, &static_part(p))
}

/// The terms that depend on the delays (T, Ta, Tr) and the fixed
/// parameters, not on the loss.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DelayTerms {
    ist: f64,
    is: f64,
    id: f64,
    idte: f64,
    idle: f64,
    idd: f64,
}

fn compute_with(p: &EModelParams, st: &Static) -> EModelResult {
    finish(p, st, &delay_terms(p, st))
}

fn delay_terms(p: &EModelParams, st: &Static) -> DelayTerms {
    let Static { no, ro, iolr, iq } = *st;
    // §7.3 sidetone term, which depends on T.
    let stmr_o =
        -10.0 * lg(10f64.powf(-p.stmr / 10.0) + (-p.t / 4.0).exp() * 10f64.powf(-p.telr / 10.0));
    let ist = 12.0 * (1.0 + ((stmr_o - 13.0) / 6.0).powi(8)).powf(1.0 / 8.0)
        - 28.0 * (1.0 + ((stmr_o + 1.0) / 19.4).powi(35)).powf(1.0 / 35.0)
        - 13.0 * (1.0 + ((stmr_o - 3.0) / 33.0).powi(13)).powf(1.0 / 13.0)
        + 29.0;
    let is = iolr + ist + iq;

    // §7.4 Delay impairment factor.
    // Talker echo. The (1 − e^−T) factor makes Idte vanish as T → 0, where
    // the echo is heard as sidetone. The low-sidetone corrections for
    // STMR < 9 dB and STMR > 20 dB cannot apply: STMR is limited to 10…20 dB.
    let roe = -1.5 * (no - p.rlr);
    let terv = p.telr - 40.0 * lg((1.0 + p.t / 10.0) / (1.0 + p.t / 150.0))
        + 6.0 * (-0.3 * p.t * p.t).exp();
    let re = 80.0 + 2.5 * (terv - 14.0);
    let idte =
        ((roe - re) / 2.0 + ((roe - re).powi(2) / 4.0 + 100.0).sqrt() - 1.0) * (1.0 - (-p.t).exp());
    // Listener echo.
    let rle = 10.5 * (p.wepl + 7.0) * (p.tr + 1.0).powf(-0.25);
    let idle = (ro - rle) / 2.0 + ((ro - rle).powi(2) / 4.0 + 169.0).sqrt();
    // Absolute delay: zero up to 100 ms.
    let idd = if p.ta <= 100.0 {
        0.0
    } else {
        let x = lg(p.ta / 100.0) / lg(2.0);
        25.0 * ((1.0 + x.powi(6)).powf(1.0 / 6.0) - 3.0 * (1.0 + (x / 3.0).powi(6)).powf(1.0 / 6.0)
            + 2.0)
    };
    let id = idte + idle + idd;
    DelayTerms { ist, is, id, idte, idle, idd }
}

fn finish(p: &EModelParams, st: &Static, dt: &DelayTerms) -> EModelResult {
    let Static { no, ro, iolr, iq } = *st;
    let DelayTerms { ist, is, id, idte, idle, idd } = *dt;

    // §7.5 Effective equipment impairment (Ppl in percent), at most 95.
    let ie_eff = ie_eff(p.ie, p.bpl, p.ppl, p.burst_r).0;

    // §7.1 (A: §7.6).
    let r = ro - is - id - ie_eff + p.a;
    EModelResult {
        no,
        ro,
        is,
        iolr,
        ist,
        iq,
        id,
        idte,
        idle,
        idd,
        ie_eff,
        r,
        mos: mos_from_r(r),
    }
}

#[cfg(test)]
#[path = "emodel_tests.rs"]
mod tests;
