//! Goodput and Jain's fairness index (seed 002 §III.B; seed 003 §8).
//!
//! Goodput = application bytes delivered × 8 / active time (bit/s). Seed 002
//! uses it as "system goodput … overall system efficiency in bandwidth
//! utilization" without a formula; here "delivered" is a caller's choice of
//! column (`t_arr`: reached the receiving application; `played`: also in time)
//! and the bytes are payload bytes (no headers), each packet counted once.
//!
//! Jain's index (Chiu & Jain 1989, as written in seed 002):
//! J = (Σ xᵢ)² / (n · Σ xᵢ²), 1/n ≤ J ≤ 1, J = 1 when all xᵢ are equal.

use crate::playout::NOT_ARRIVED;

/// Σ `bytes[i]` over packets with `delivered_at[i] ≠ NOT_ARRIVED`.
/// Panics if the columns differ in length.
pub fn delivered_bytes(bytes: &[u32], delivered_at: &[u64]) -> u64 {
    assert_eq!(
        bytes.len(),
        delivered_at.len(),
        "bytes and delivery columns differ in length"
    );
    bytes
        .iter()
        .zip(delivered_at)
        .filter(|(_, &t)| t != NOT_ARRIVED)
        .map(|(&b, _)| b as u64)
        .sum()
}

/// Goodput in bit/s: `delivered_bytes` × 8 / (`active_ns` · 10⁻⁹). `None`
/// when `active_ns == 0`.
pub fn goodput_bps(delivered_bytes: u64, active_ns: u64) -> Option<f64> {
    if active_ns == 0 {
        None
    } else {
        Some(delivered_bytes as f64 * 8.0 / (active_ns as f64 * 1e-9))
    }
}

/// Jain's fairness index of `xs` (throughputs or goodputs, one per flow).
///
/// Errors on an empty slice, and on a negative or non-finite value (naming
/// its index). **All zeros → 1.0**: every flow got the same (nothing), and
/// 1 is the index's value for equal shares; the formula itself is 0/0 there.
pub fn jain_index(xs: &[f64]) -> Result<f64, String> {
    if xs.is_empty() {
        return Err("Jain index of an empty set of flows".to_string());
    }
    if let Some(i) = xs.iter().position(|x| !x.is_finite() || *x < 0.0) {
        return Err(format!(
            "Jain index: flow {i} has value {} (need finite, ≥ 0)",
            xs[i]
        ));
    }
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        return Ok(1.0);
    }
    Ok(s * s / (xs.len() as f64 * s2))
}

#[cfg(test)]
mod tests {
    use super::super::close;
    use super::*;

    const X: u64 = NOT_ARRIVED;

    #[test]
    fn goodput_hand_computed() {
        // 4 × 160 B, one lost → 480 B = 3840 bit; over 1 s → 3840 bit/s,
        // over 0.5 s → 7680 bit/s.
        let b = delivered_bytes(&[160, 160, 160, 160], &[1, X, 3, 4]);
        assert_eq!(b, 480);
        close(goodput_bps(b, 1_000_000_000).unwrap(), 3840.0, 1e-9);
        close(goodput_bps(b, 500_000_000).unwrap(), 7680.0, 1e-9);
        assert_eq!(goodput_bps(b, 0), None);
        assert_eq!(delivered_bytes(&[], &[]), 0);
        assert_eq!(delivered_bytes(&[10, 20], &[X, X]), 0);
        close(goodput_bps(0, 7).unwrap(), 0.0, 0.0);
    }

    #[test]
    fn jain_hand_computed() {
        // [1 2 3]: (6)² / (3 · 14) = 36/42 = 6/7; scale-invariant.
        close(jain_index(&[1.0, 2.0, 3.0]).unwrap(), 6.0 / 7.0, 1e-12);
        close(jain_index(&[2.0, 4.0, 6.0]).unwrap(), 6.0 / 7.0, 1e-12);
        // Equal shares → 1; one flow takes all of 4 → 1/4.
        close(jain_index(&[5.0, 5.0, 5.0, 5.0]).unwrap(), 1.0, 1e-12);
        close(jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap(), 0.25, 1e-12);
        close(jain_index(&[3.0]).unwrap(), 1.0, 0.0);
    }

    #[test]
    fn jain_edge_cases() {
        assert_eq!(jain_index(&[0.0, 0.0, 0.0]), Ok(1.0));
        assert!(jain_index(&[]).unwrap_err().contains("empty"));
        assert!(jain_index(&[1.0, -1.0]).unwrap_err().contains("flow 1"));
        assert!(jain_index(&[f64::NAN]).is_err());
        assert!(jain_index(&[f64::INFINITY, 1.0]).is_err());
    }
}
