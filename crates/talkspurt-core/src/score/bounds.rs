//! The offline bounds of one call (seed 000 §4.3): the best any playout
//! buffer could do on this call's packet trace.
//!
//! - `bound_*`: Moon–Kurose–Towsley per-talkspurt optimum under the reduced
//!   E-model, `R = 94.2 − mean_p Id(d_p) − Ie(λ, e)` (codecs with λ only);
//! - `bound_g107_*`: the same under the full G.107 E-model, `R(offset +
//!   D(0,i), e(i))`;
//! - `fixed_*`, `fixed_g107_*`: one delay for the whole call, argmax R(d)
//!   (Tao–Guérin).
//!
//! Readings (docs/models/playout.md): the G.107 bound scores loss as random
//! (BurstR = 1) because the loss pattern of an optimum is not fixed in
//! advance; the online buffer's R uses the call's measured BurstR ≥ 1, so
//! the bound stays an upper bound. Schedules whose mouth-to-ear delay is
//! beyond the E-model's extended range (2 s) score `OUT_OF_MODEL`; a bound
//! with nothing better is reported as NaN.

use super::row::{CallInfo, CallSummary};
use std::cell::Cell;
use crate::playout::{
    fixed_delay_bound_generic_prepared, fixed_delay_bound_prepared, optimal_playout_generic_prepared,
    optimal_playout_prepared, CallTrace, FixedDelayBound, OptimalPlayout, Prepared,
};
use crate::quality::{self, delay_impairment_simplified, KeptCurve, loss_impairment_simplified, mos_from_r, R0_SIMPLIFIED};

/// R given to a schedule the E-model cannot score; finite, so the DP's
/// arithmetic stays exact, and far below any real R.
const OUT_OF_MODEL: f64 = -1.0e6;

pub struct Bounds {
    /// Reduced E-model (None without Cole–Rosenbluth λ for the codec).
    pub reduced: Option<OptimalPlayout>,
    /// Full G.107 (None without Ie/Bpl for the codec).
    pub g107: Option<OptimalPlayout>,
    pub fixed: Option<FixedDelayBound>,
    pub fixed_g107: Option<FixedDelayBound>,
}

/// All four bounds of one call. The trace must satisfy `CallTrace::validate`.
pub fn bounds(trace: &CallTrace<'_>, info: &CallInfo) -> Bounds {
    bounds_with(trace, info, &KeptCurve::new(info.g107_params(0.0, 0.0, 1.0)))
}

/// [`bounds`] with the call's G.107 curve already built
/// (`KeptCurve::new(info.g107_params(0.0, 0.0, 1.0))`).
pub fn bounds_with(trace: &CallTrace<'_>, info: &CallInfo, curve: &KeptCurve) -> Bounds {
    // The per-packet playout columns are not reported, so they are never
    // built; the sorted delays are built once for all four (issue 14).
    bounds_prepared(&Prepared::new(trace), info, curve)
}

/// [`bounds_with`] on the call's delays already [`Prepared`] (from its
/// trace, or from the talkspurts' delays of a call folded as it ran:
/// `Prepared::from_spurt_delays`, score::stream).
pub fn bounds_prepared(p: &Prepared<'_, '_>, info: &CallInfo, curve: &KeptCurve) -> Bounds {
    if p.total() == 0 {
        // A call that generated nothing (a connection that never opened)
        // has no bound, as it has no R: the objective's "play nothing"
        // point of a 0-packet call would score no loss (R_opt 92.5 for a
        // silent G.711 call before 2026-11-29).
        return Bounds { reduced: None, g107: None, fixed: None, fixed_g107: None };
    }
    let off = info.offset_ms();
    let id = delay_impairment_simplified;
    let (reduced, fixed) = match info.codec.lambda {
        Some(l) => {
            let il = move |e: f64| loss_impairment_simplified(l, e);
            let o = optimal_playout_prepared(p, off, R0_SIMPLIFIED, id, il, false);
            (Some(o), Some(fixed_delay_bound_prepared(p, off, R0_SIMPLIFIED, id, il, false)))
        }
        None => (None, None),
    };
    let (g107, fixed_g107) = if quality::codec_impairment(info.codec.emodel_key).is_some() {
        // The two G.107 bounds ask for the same (delay, loss) points (the
        // optimum's candidates and the fixed delay's are the call's
        // delays): each point's R is kept and read again, the same bits
        // (`KeptCurve::at` is a pure function; issue 26: 12 evaluations a
        // call of ~250 instructions each on the headline).
        // One cell a point: the whole array through one `Cell` was copied
        // twice a lookup.
        let seen: [Cell<(u64, u64, f64)>; SEEN] = std::array::from_fn(|_| Cell::new((u64::MAX, u64::MAX, 0.0)));
        let next = Cell::new(0);
        let r = |d: f64, e: f64| {
            let key = (d.to_bits(), e.to_bits());
            if let Some(x) = seen.iter().map(Cell::get).find(|x| (x.0, x.1) == key) {
                return x.2;
            }
            let r = curve.at(d, e, 1.0).map_or(OUT_OF_MODEL, |x| x.r);
            seen[next.get()].set((key.0, key.1, r));
            next.set((next.get() + 1) % SEEN);
            r
        };
        let o = optimal_playout_generic_prepared(p, off, r, false);
        (Some(o), Some(fixed_delay_bound_generic_prepared(p, off, r, false)))
    } else {
        (None, None)
    };
    Bounds { reduced, g107, fixed, fixed_g107 }
}

const NAN: f64 = f64::NAN;

/// (delay, loss) points whose G.107 R `bounds_prepared` keeps. (Issue 26:
/// 16 took the mixed preset's evaluations from ~8 to ~5 a call, −0.5 M
/// instructions on its 10 s, but the longer scans cost the headline more.)
const SEEN: usize = 4;

/// (R, MOS, played, loss, mean mouth-to-ear ms) of an optimum; NaN where
/// undefined (nothing played has no delay; an out-of-model optimum no R).
fn optimum_row(o: &Option<OptimalPlayout>) -> (f64, f64, f64, f64, f64) {
    match o {
        Some(o) if o.r > OUT_OF_MODEL => {
            let d = if o.played == 0 { NAN } else { o.mean_delay_ms };
            (o.r, mos_from_r(o.r), o.played as f64, o.loss_fraction, d)
        }
        _ => (NAN, NAN, NAN, NAN, NAN),
    }
}

/// (R, mouth-to-ear ms, loss) of a fixed-delay optimum.
fn fixed_row(f: &Option<FixedDelayBound>) -> (f64, f64, f64) {
    match f {
        Some(f) if f.r > OUT_OF_MODEL => (f.r, if f.played == 0 { NAN } else { f.mean_delay_ms }, f.loss_fraction),
        _ => (NAN, NAN, NAN),
    }
}

impl Bounds {
    /// Fill the `bound_*` and `fixed_*` columns of a call's row.
    pub fn summarize(&self, s: &mut CallSummary) {
        (s.bound_r, s.bound_mos, s.bound_played, s.bound_loss, s.bound_delay_ms) = optimum_row(&self.reduced);
        (s.bound_g107_r, s.bound_g107_mos, s.bound_g107_played, s.bound_g107_loss, s.bound_g107_delay_ms) =
            optimum_row(&self.g107);
        (s.fixed_r, s.fixed_delay_ms, s.fixed_loss) = fixed_row(&self.fixed);
        (s.fixed_g107_r, s.fixed_g107_delay_ms, s.fixed_g107_loss) = fixed_row(&self.fixed_g107);
    }
}

impl CallSummary {
    /// The bound columns when bounds are not computed.
    pub fn clear_bounds(&mut self) {
        Bounds { reduced: None, g107: None, fixed: None, fixed_g107: None }.summarize(self);
    }
}
