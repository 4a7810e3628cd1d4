//! Simplified E-model of Cole and Rosenbluth, as used by seed 000 §4.2:
//!
//! R = 94.2 − Ie − Id,
//! Ie = λ1 + λ2·ln(1 + λ3·e)               (e = packet-loss fraction, 0…1),
//! Id = 0.024·d + 0.11·(d − 177.3)·H(d − 177.3)   (d = one-way delay, ms).
//!
//! H is the unit step; at d = 177.3 ms exactly both forms agree (the second
//! term is 0), so the choice H(0) = 0 or 1 does not matter.

/// λ of seed 000 Table 4.1: G.711, 1 frame per packet.
pub const LAMBDA_G711: [f64; 3] = [0.0, 30.0, 15.0];
/// λ of seed 000 Table 4.1: G.729, 1 frame per packet.
pub const LAMBDA_G729: [f64; 3] = [10.0, 47.82, 18.0];
/// λ of seed 000 Table 4.1: G.729A + VAD, 2 frames per packet.
pub const LAMBDA_G729A_VAD: [f64; 3] = [11.0, 30.0, 16.0];

/// Delay knee of the Cole–Rosenbluth Id, ms.
pub const DELAY_KNEE_MS: f64 = 177.3;

/// R0 of the reduced model: 94.2 (Cole & Rosenbluth 2001, seed 000 §4.2).
pub const R0_SIMPLIFIED: f64 = 94.2;

/// Id for a one-way mouth-to-ear delay `d_ms` (ms). Inputs are not
/// validated here (see [`r_simplified`]).
pub fn delay_impairment_simplified(d_ms: f64) -> f64 {
    let excess = if d_ms > DELAY_KNEE_MS {
        d_ms - DELAY_KNEE_MS
    } else {
        0.0
    };
    0.024 * d_ms + 0.11 * excess
}

/// Ie for loss fraction `e` (0…1, **not** percent) with codec coefficients
/// `lambda` = [λ1, λ2, λ3]. Inputs are not validated here.
pub fn loss_impairment_simplified(lambda: [f64; 3], e: f64) -> f64 {
    lambda[0] + lambda[1] * (1.0 + lambda[2] * e).ln()
}

/// R = 94.2 − Ie(λ, e) − Id(d). Checks that `e` is in [0, 1] and `d_ms` is
/// finite and ≥ 0; the error names the argument, its value and the range.
/// R is not clamped (it can be negative).
pub fn r_simplified(lambda: [f64; 3], e: f64, d_ms: f64) -> Result<f64, String> {
    if !(0.0..=1.0).contains(&e) {
        return Err(format!("loss fraction e = {e} is outside [0, 1]"));
    }
    if !(d_ms.is_finite() && d_ms >= 0.0) {
        return Err(format!("delay d = {d_ms} ms is outside [0, ∞)"));
    }
    if lambda.iter().any(|l| !l.is_finite()) {
        return Err(format!("lambda = {lambda:?} has a non-finite coefficient"));
    }
    Ok(R0_SIMPLIFIED - loss_impairment_simplified(lambda, e) - delay_impairment_simplified(d_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }

    #[test]
    fn delay_impairment_points() {
        // Hand: 0.024·d below the knee; above it + 0.11·(d − 177.3). Tol 1e-9.
        close(delay_impairment_simplified(0.0), 0.0, 1e-9);
        close(delay_impairment_simplified(100.0), 2.4, 1e-9);
        close(delay_impairment_simplified(177.3), 4.2552, 1e-9);
        close(delay_impairment_simplified(200.0), 7.297, 1e-9);
        close(delay_impairment_simplified(300.0), 20.697, 1e-9);
        close(delay_impairment_simplified(400.0), 34.097, 1e-9);
    }

    #[test]
    fn loss_impairment_table_4_1() {
        // ref.py (docs/models/emodel.md appendix) figures, tolerance 1e-5.
        close(loss_impairment_simplified(LAMBDA_G711, 0.0), 0.0, 1e-9);
        close(
            loss_impairment_simplified(LAMBDA_G711, 0.01),
            4.192858,
            1e-5,
        );
        close(
            loss_impairment_simplified(LAMBDA_G711, 0.1),
            27.488722,
            1e-5,
        );
        close(loss_impairment_simplified(LAMBDA_G729, 0.0), 10.0, 1e-9);
        close(
            loss_impairment_simplified(LAMBDA_G729, 0.05),
            40.693453,
            1e-5,
        );
        close(
            loss_impairment_simplified(LAMBDA_G729, 0.2),
            82.976012,
            1e-5,
        );
        close(
            loss_impairment_simplified(LAMBDA_G729A_VAD, 0.01),
            15.4526,
            1e-5,
        );
        close(
            loss_impairment_simplified(LAMBDA_G729A_VAD, 0.2),
            54.052536,
            1e-5,
        );
    }

    #[test]
    fn r_simplified_points_and_errors() {
        close(r_simplified(LAMBDA_G711, 0.0, 0.0).unwrap(), 94.2, 1e-9);
        close(
            r_simplified(LAMBDA_G711, 0.02, 150.0).unwrap(),
            82.729072,
            1e-5,
        );
        close(
            r_simplified(LAMBDA_G729, 0.05, 250.0).unwrap(),
            39.509547,
            1e-5,
        );
        assert!(r_simplified(LAMBDA_G711, 2.0, 0.0)
            .unwrap_err()
            .contains("e = 2"));
        assert!(r_simplified(LAMBDA_G711, -0.1, 0.0).is_err());
        assert!(r_simplified(LAMBDA_G711, 0.0, -1.0)
            .unwrap_err()
            .contains("d = -1"));
        assert!(r_simplified(LAMBDA_G711, 0.0, f64::NAN).is_err());
        assert!(r_simplified([f64::NAN, 0.0, 0.0], 0.0, 0.0).is_err());
    }
}
