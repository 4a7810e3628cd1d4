//! R ↔ MOS (ITU-T G.107 (12/2011) Annex B) and the R-factor quality bands of
//! seed 000 Table 4.2.

/// Largest R at which the Annex B polynomial equals 1 again after its dip
/// below 1 near R ≈ 3: the root of R² − 160R + 1000 = 0, (160 − √21600)/2.
/// On [R_MOS1, 100] the polynomial is strictly increasing.
pub const R_MOS1: f64 = 6.515_307_716_504_651;

/// MOS_CQE from the rating factor R, G.107 Annex B:
/// R < 0 → 1; R > 100 → 4.5; otherwise
/// MOS = 1 + 0.035·R + R·(R − 60)·(100 − R)·7·10⁻⁶.
///
/// The polynomial is taken literally: for 0 < R < 6.515 it dips slightly
/// below 1 (minimum ≈ 0.9889 at R ≈ 3.1). NaN maps to NaN.
pub fn mos_from_r(r: f64) -> f64 {
    if r < 0.0 {
        1.0
    } else if r > 100.0 {
        4.5
    } else {
        1.0 + 0.035 * r + r * (r - 60.0) * (100.0 - r) * 7.0e-6
    }
}

/// Inverse of [`mos_from_r`] by bisection.
///
/// The Annex B polynomial is strictly increasing on [R_MOS1, 100] (its
/// derivative 0.035 + 7·10⁻⁶(−3R² + 320R − 6000) is concave in R and
/// positive at both ends), mapping it onto [1, 4.5]. So for MOS in [1, 4.5]
/// there is exactly one R in that interval; we bisect it to 1e-10 (at most
/// 100 halvings). MOS = 1 returns R_MOS1 (not 0: the smallest R above the
/// dip); MOS = 4.5 returns 100. Values within 1e-9 outside [1, 4.5]
/// (floating-point rounding, e.g. `mos_from_r(R_MOS1)`) are treated as the
/// bound; anything further out, or NaN, is an error.
/// (G.107 Appendix I gives a closed-form inverse; bisection is used here so
/// that the round trip with `mos_from_r` is exact to tolerance.)
pub fn r_from_mos(mos: f64) -> Result<f64, String> {
    if !((1.0 - 1e-9)..=(4.5 + 1e-9)).contains(&mos) {
        return Err(format!("MOS = {mos} is outside the Annex B range [1, 4.5]"));
    }
    let mos = mos.clamp(1.0, 4.5);
    let (mut lo, mut hi) = (R_MOS1, 100.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mos_from_r(mid) < mos {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-10 {
            break;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// Quality band of an R factor, seed 000 Table 4.2 (after Cole–Rosenbluth):
/// R ≥ 90 "Best", 80 ≤ R < 90 "High", 70 ≤ R < 80 "Medium",
/// 60 ≤ R < 70 "Low", 50 ≤ R < 60 "Poor", below 50 (or NaN) "Not recommended".
/// Each band includes its lower bound; R above 100 is "Best".
pub fn quality_band(r: f64) -> &'static str {
    QUALITY_BANDS[quality_band_index(r)]
}

/// The bands of [`quality_band`], best first.
pub const QUALITY_BANDS: [&str; 6] = ["Best", "High", "Medium", "Low", "Poor", "Not recommended"];

/// The same bands as ITU-T G.107 Annex B / G.109 user satisfaction (seed 003
/// Table 2), best first; below R = 50 "Not recommended".
pub const USER_SATISFACTION: [&str; 6] = [
    "Very satisfied",
    "Satisfied",
    "Some users dissatisfied",
    "Many users dissatisfied",
    "Nearly all users dissatisfied",
    "Not recommended",
];

/// Index into [`QUALITY_BANDS`] (and [`USER_SATISFACTION`]) of `r`'s band.
pub fn quality_band_index(r: f64) -> usize {
    if r >= 90.0 {
        0
    } else if r >= 80.0 {
        1
    } else if r >= 70.0 {
        2
    } else if r >= 60.0 {
        3
    } else if r >= 50.0 {
        4
    } else {
        5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }

    #[test]
    fn annex_b_points() {
        // Hand/ref.py (docs/models/emodel.md appendix) figures; tolerance 1e-6.
        close(mos_from_r(-5.0), 1.0, 1e-12);
        close(mos_from_r(0.0), 1.0, 1e-12);
        close(mos_from_r(3.0), 0.988891, 1e-6); // the dip below 1
        close(mos_from_r(50.0), 2.575, 1e-6);
        close(mos_from_r(60.0), 3.1, 1e-6);
        close(mos_from_r(70.0), 3.597, 1e-6);
        close(mos_from_r(80.0), 4.024, 1e-6);
        close(mos_from_r(90.0), 4.339, 1e-6);
        close(mos_from_r(93.2), 4.409286, 1e-6);
        close(mos_from_r(100.0), 4.5, 1e-12);
        close(mos_from_r(120.0), 4.5, 1e-12);
        assert!(mos_from_r(f64::NAN).is_nan());
    }

    #[test]
    fn r_mos1_is_the_root() {
        close(mos_from_r(R_MOS1), 1.0, 1e-12);
        close(R_MOS1, (160.0 - 21600f64.sqrt()) / 2.0, 1e-12);
    }

    #[test]
    fn inverse_round_trips_and_edges() {
        for r in [
            R_MOS1, 10.0, 30.0, 50.0, 60.0, 70.0, 80.0, 90.0, 93.2, 99.0, 100.0,
        ] {
            close(r_from_mos(mos_from_r(r)).unwrap(), r, 1e-6);
        }
        close(r_from_mos(4.024).unwrap(), 80.0, 1e-6); // MOS 4.024 ↔ R 80 (hand)
        close(r_from_mos(1.0).unwrap(), R_MOS1, 1e-6);
        close(r_from_mos(4.5).unwrap(), 100.0, 1e-6);
        assert!(r_from_mos(0.99).unwrap_err().contains("0.99"));
        assert!(r_from_mos(4.6).is_err());
        assert!(r_from_mos(f64::NAN).is_err());
    }

    #[test]
    fn bands_of_table_4_2() {
        assert_eq!(quality_band(100.5), "Best");
        assert_eq!(quality_band(90.0), "Best");
        assert_eq!(quality_band(89.99), "High");
        assert_eq!(quality_band(80.0), "High");
        assert_eq!(quality_band(79.9), "Medium");
        assert_eq!(quality_band(70.0), "Medium");
        assert_eq!(quality_band(65.0), "Low");
        assert_eq!(quality_band(60.0), "Low");
        assert_eq!(quality_band(55.0), "Poor");
        assert_eq!(quality_band(50.0), "Poor");
        assert_eq!(quality_band(49.99), "Not recommended");
        assert_eq!(quality_band(f64::NAN), "Not recommended");
    }
}
