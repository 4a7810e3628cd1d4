//! Inputs of the G.107 E-model: `EModelParams`, its Table 3 defaults and the
//! permitted-range checks (ITU-T G.107 (12/2011) §7.7 Table 3, §7.6 Table 2).

/// Every input of the E-model (G.107 §7.7, Table 3). `Default` gives the
/// Table 3 default values; with them R = 93.2 (93.206…).
///
/// Loudness ratings follow ITU-T P.79; delays are in milliseconds; noise
/// levels as stated per field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EModelParams {
    /// Send Loudness Rating, dB. Default +8, range 0…+18.
    pub slr: f64,
    /// Receive Loudness Rating, dB. Default +2, range −5…+14.
    pub rlr: f64,
    /// Sidetone Masking Rating, dB. Default 15, range 10…20.
    pub stmr: f64,
    /// Listener Sidetone Rating, dB. Default 18 (= STMR + Dr), range 13…23.
    pub lstr: f64,
    /// D-value of the telephone, send side (dimensionless). Default 3, range −3…+3.
    pub ds: f64,
    /// D-value of the telephone, receive side (dimensionless). Default 3, range −3…+3.
    /// Dr only enters the model through LSTR = STMR + Dr (§7.2); since LSTR is
    /// an explicit input here, Dr is validated but not otherwise used.
    pub dr: f64,
    /// Talker Echo Loudness Rating, dB. Default 65, range 5…65.
    pub telr: f64,
    /// Weighted Echo Path Loss, dB. Default 110, range 5…110.
    pub wepl: f64,
    /// Mean one-way delay of the echo path, ms. Default 0, range 0…500.
    pub t: f64,
    /// Absolute delay in echo-free connections, ms. Default 0, range 0…500.
    pub ta: f64,
    /// Round-trip delay in a 4-wire loop, ms. Default 0, range 0…1000.
    pub tr: f64,
    /// Number of quantizing distortion units (dimensionless). Default 1, range 1…14.
    pub qdu: f64,
    /// Equipment impairment factor (dimensionless). Default 0, range 0…40.
    pub ie: f64,
    /// Packet-loss robustness factor (dimensionless). Default 1, range 1…40.
    pub bpl: f64,
    /// Packet-loss probability, **percent**. Default 0, range 0…20.
    pub ppl: f64,
    /// Burst ratio (dimensionless; 1 = random loss). Default 1, range 1…8.
    pub burst_r: f64,
    /// Circuit noise referred to the 0 dBr point, dBm0p. Default −70, range −80…−40.
    pub nc: f64,
    /// Noise floor at the receive side, dBmp. Default −64 (Table 3 gives no range;
    /// any finite value is accepted).
    pub nfor: f64,
    /// Room noise at the send side, dB(A). Default 35, range 35…85.
    pub ps: f64,
    /// Room noise at the receive side, dB(A). Default 35, range 35…85.
    pub pr: f64,
    /// Advantage factor (dimensionless). Default 0, range 0…20 (§7.6, Table 2).
    pub a: f64,
}

impl Default for EModelParams {
    /// G.107 §7.7 Table 3 default values.
    fn default() -> Self {
        EModelParams {
            slr: 8.0,
            rlr: 2.0,
            stmr: 15.0,
            lstr: 18.0,
            ds: 3.0,
            dr: 3.0,
            telr: 65.0,
            wepl: 110.0,
            t: 0.0,
            ta: 0.0,
            tr: 0.0,
            qdu: 1.0,
            ie: 0.0,
            bpl: 1.0,
            ppl: 0.0,
            burst_r: 1.0,
            nc: -70.0,
            nfor: -64.0,
            ps: 35.0,
            pr: 35.0,
            a: 0.0,
        }
    }
}

/// Permitted ranges of G.107 §7.7 Table 3 (A: §7.6 Table 2 maximum 20).
/// `None` = Table 3 gives no range (any finite value).
const G107_RANGES: [(&str, Option<(f64, f64)>); 21] = [
    ("SLR", Some((0.0, 18.0))),
    ("RLR", Some((-5.0, 14.0))),
    ("STMR", Some((10.0, 20.0))),
    ("LSTR", Some((13.0, 23.0))),
    ("Ds", Some((-3.0, 3.0))),
    ("Dr", Some((-3.0, 3.0))),
    ("TELR", Some((5.0, 65.0))),
    ("WEPL", Some((5.0, 110.0))),
    ("T", Some((0.0, 500.0))),
    ("Ta", Some((0.0, 500.0))),
    ("Tr", Some((0.0, 1000.0))),
    ("qdu", Some((1.0, 14.0))),
    ("Ie", Some((0.0, 40.0))),
    ("Bpl", Some((1.0, 40.0))),
    ("Ppl", Some((0.0, 20.0))),
    ("BurstR", Some((1.0, 8.0))),
    ("Nc", Some((-80.0, -40.0))),
    ("Nfor", None),
    ("Ps", Some((35.0, 85.0))),
    ("Pr", Some((35.0, 85.0))),
    ("A", Some((0.0, 20.0))),
];

/// Wider limits used by [`super::emodel::emodel_extended`]: delays and A beyond G.107's
/// validated range (satellite paths, seed 003's A = 40), and the loss terms
/// of a congested call: Ppl up to 100 % and any BurstR ≥ 1 that a real
/// loss pattern gives (Ie,eff's formula, §7.5 eq. 7-29, is defined there).
const EXTENDED: [(&str, f64, f64); 6] = [
    ("T", 0.0, 2000.0),
    ("Ta", 0.0, 2000.0),
    ("Tr", 0.0, 4000.0),
    ("A", 0.0, 100.0),
    ("Ppl", 0.0, 100.0),
    ("BurstR", 1.0, 1.0e6),
];

fn values(p: &EModelParams) -> [f64; 21] {
    [
        p.slr, p.rlr, p.stmr, p.lstr, p.ds, p.dr, p.telr, p.wepl, p.t, p.ta, p.tr, p.qdu, p.ie,
        p.bpl, p.ppl, p.burst_r, p.nc, p.nfor, p.ps, p.pr, p.a,
    ]
}

/// `(lo, hi)` per value of [`values`] for [`check`], infinite where Table 3
/// gives no range: built once, so a check in range is 21 comparisons
/// instead of a name lookup per value (issue 14).
const fn limits(extended: bool) -> [(f64, f64); 21] {
    let mut out = [(f64::NEG_INFINITY, f64::INFINITY); 21];
    let mut i = 0;
    while i < 21 {
        if let Some(r) = G107_RANGES[i].1 {
            out[i] = r;
        }
        i += 1;
    }
    if extended {
        // Indices of T, Ta, Tr, Ppl, BurstR and A in `values`, in EXTENDED's order.
        let at = [8, 9, 10, 20, 14, 15];
        let mut k = 0;
        while k < EXTENDED.len() {
            out[at[k]] = (EXTENDED[k].1, EXTENDED[k].2);
            k += 1;
        }
    }
    out
}

const LIMITS: [[(f64, f64); 21]; 2] = [limits(false), limits(true)];

/// Every value finite and inside its (Table 3 or extended) range: the
/// common case, without building a message.
#[inline]
fn in_range(p: &EModelParams, extended: bool) -> bool {
    values(p).iter().zip(&LIMITS[extended as usize]).all(|(&v, &(lo, hi))| v.is_finite() && lo <= v && v <= hi)
}

/// The values of T, Ta, Tr, Ppl and BurstR (indices 8, 9, 10, 14, 15 of
/// [`values`]) inside the extended ranges: with every other value of `p`
/// known in range, this is `check(p, true).is_ok()` (`EModelCurve`).
pub(super) fn delay_loss_in_extended_range(p: &EModelParams) -> bool {
    let l = &LIMITS[1];
    [(p.t, l[8]), (p.ta, l[9]), (p.tr, l[10]), (p.ppl, l[14]), (p.burst_r, l[15])]
        .iter()
        .all(|&(v, (lo, hi))| v.is_finite() && lo <= v && v <= hi)
}

/// [`check`] without its message: true when G.107's own (not extended)
/// ranges hold.
pub fn in_g107_range(p: &EModelParams) -> bool {
    in_range(p, false)
}

pub(super) fn check(p: &EModelParams, extended: bool) -> Result<(), String> {
    if in_range(p, extended) {
        Ok(())
    } else {
        check_named(p, extended)
    }
}

/// The first value out of range, named with its range and source.
fn check_named(p: &EModelParams, extended: bool) -> Result<(), String> {
    for ((name, range), v) in G107_RANGES.iter().zip(values(p)) {
        let mut range = *range;
        let mut src = "ITU-T G.107 Table 3 range";
        if extended {
            if let Some(&(_, lo, hi)) = EXTENDED.iter().find(|e| e.0 == *name) {
                range = Some((lo, hi));
                src = "extended (beyond G.107) range";
            }
        }
        if !v.is_finite() {
            return Err(format!(
                "E-model parameter {name} = {v} is not a finite number"
            ));
        }
        if let Some((lo, hi)) = range {
            if v < lo || v > hi {
                return Err(format!(
                    "E-model parameter {name} = {v} is outside the {src} [{lo}, {hi}]"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table the fast path reads gives every value the range the
    /// message path names.
    #[test]
    fn limits_match_the_named_ranges() {
        for extended in [false, true] {
            for (i, (name, range)) in G107_RANGES.iter().enumerate() {
                let want = EXTENDED
                    .iter()
                    .find(|e| extended && e.0 == *name)
                    .map(|e| (e.1, e.2))
                    .or(*range)
                    .unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
                assert_eq!(LIMITS[extended as usize][i], want, "{name} extended={extended}");
            }
        }
    }

    /// In range exactly when `check` passes, at and across every limit.
    #[test]
    fn fast_path_agrees_with_check() {
        for extended in [false, true] {
            for i in 0..21 {
                let (lo, hi) = LIMITS[extended as usize][i];
                let probes = [lo, hi, lo - 1e-9, hi + 1e-9, f64::NAN, f64::INFINITY, (lo.max(-1e3) + hi.min(1e3)) / 2.0];
                for x in probes {
                    let mut v = values(&EModelParams::default());
                    v[i] = x;
                    let p = from_values(v);
                    let slow = check_named(&p, extended).is_ok();
                    assert_eq!(in_range(&p, extended), slow, "value {i} = {x} extended={extended}");
                    assert_eq!(check(&p, extended).is_ok(), slow);
                    if extended && [8, 9, 10, 14, 15].contains(&i) {
                        assert_eq!(delay_loss_in_extended_range(&p), slow, "value {i} = {x}");
                    }
                }
            }
        }
    }

    fn from_values(v: [f64; 21]) -> EModelParams {
        let [slr, rlr, stmr, lstr, ds, dr, telr, wepl, t, ta, tr, qdu, ie, bpl, ppl, burst_r, nc, nfor, ps, pr, a] = v;
        EModelParams { slr, rlr, stmr, lstr, ds, dr, telr, wepl, t, ta, tr, qdu, ie, bpl, ppl, burst_r, nc, nfor, ps, pr, a }
    }

    #[test]
    fn defaults_are_table_3_and_in_range() {
        let d = EModelParams::default();
        let want = [
            8.0, 2.0, 15.0, 18.0, 3.0, 3.0, 65.0, 110.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0,
            -70.0, -64.0, 35.0, 35.0, 0.0,
        ];
        assert_eq!(values(&d), want);
        assert_eq!(check(&d, false), Ok(()));
    }

    #[test]
    fn bounds_are_inclusive_and_labelled() {
        let p = EModelParams {
            ta: 500.0,
            tr: 1000.0,
            a: 20.0,
            ie: 40.0,
            ..Default::default()
        };
        assert_eq!(check(&p, false), Ok(()));
        let p = EModelParams {
            rlr: -5.01,
            ..Default::default()
        };
        let e = check(&p, false).unwrap_err();
        assert!(
            e.contains("RLR = -5.01") && e.contains("G.107 Table 3 range [-5, 14]"),
            "{e}"
        );
        let p = EModelParams {
            slr: 19.0,
            ..Default::default()
        };
        assert!(check(&p, true)
            .unwrap_err()
            .contains("G.107 Table 3 range [0, 18]"));
        let p = EModelParams {
            tr: 4000.5,
            ..Default::default()
        };
        assert!(check(&p, true)
            .unwrap_err()
            .contains("extended (beyond G.107) range [0, 4000]"));
        let p = EModelParams {
            a: 40.0,
            ta: 900.0,
            ..Default::default()
        };
        assert_eq!(check(&p, true), Ok(()));
    }
}
