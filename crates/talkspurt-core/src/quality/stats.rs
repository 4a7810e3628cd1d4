//! Per-call statistics: RFC 3550 interarrival jitter, mean, percentiles.

/// Interarrival jitter of RFC 3550 §6.4.1 (the estimator of Appendix A.8),
/// computed in floating point on nanosecond timestamps.
///
/// `packets` holds `(send_ts_ns, arrival_ns)` pairs **in arrival order**
/// (RFC 3550 computes J for each packet as it is received, so a reordered
/// packet is compared with the packet received just before it). For each
/// consecutive pair i, j:
///
/// D(i, j) = (Rj − Ri) − (Sj − Si),   J ← J + (|D(i, j)| − J)/16,
///
/// starting from J = 0. Returns the final J in ns (0 for fewer than two
/// packets). The send timestamp plays the role of the RTP timestamp; with
/// nanoseconds there is no clock-rate conversion.
pub fn interarrival_jitter_ns(packets: &[(u64, u64)]) -> f64 {
    let mut j = 0.0f64;
    for w in packets.windows(2) {
        let d = transit_difference(w[0], w[1]);
        j += (d.abs() - j) / 16.0;
    }
    j
}

/// `(r_j − r_i) − (s_j − s_i)` as f64, exact before the one rounding. With
/// every time below 2^62 ns each partial result stays inside i64, and an
/// i64 and an i128 holding the same integer convert to the same f64, so the
/// software i128 conversion is only needed beyond that (issue 14).
#[inline]
pub(crate) fn transit_difference((s_i, r_i): (u64, u64), (s_j, r_j): (u64, u64)) -> f64 {
    const SAFE: u64 = 1 << 62;
    if (s_i | r_i | s_j | r_j) < SAFE {
        ((r_j as i64 - r_i as i64) - (s_j as i64 - s_i as i64)) as f64
    } else {
        ((r_j as i128 - r_i as i128) - (s_j as i128 - s_i as i128)) as f64
    }
}

/// Arithmetic mean; `None` for an empty slice. NaN in the data gives NaN.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// The `p`-th percentile (0 ≤ p ≤ 100) by linear interpolation between
/// closest ranks — numpy's default (`method="linear"`): sort the n values
/// ascending as x[0..n], take h = (n − 1)·p/100, then
/// x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋]).
/// So p = 0 is the minimum, p = 100 the maximum, p = 50 the usual median.
///
/// Errors (naming the problem) on an empty slice, NaN in the data, or `p`
/// outside [0, 100]. The input is not modified (a sorted copy is made).
pub fn percentile(xs: &[f64], p: f64) -> Result<f64, String> {
    if !(0.0..=100.0).contains(&p) {
        return Err(format!("percentile p = {p} is outside [0, 100]"));
    }
    if xs.is_empty() {
        return Err("percentile of an empty sample".to_string());
    }
    if let Some(i) = xs.iter().position(|x| x.is_nan()) {
        return Err(format!("percentile sample has NaN at index {i}"));
    }
    let mut v = xs.to_vec();
    // Values equal under total_cmp are bit-identical: unstable is exact.
    v.sort_unstable_by(f64::total_cmp);
    Ok(percentile_of_sorted(&v, p))
}

/// [`percentile`] of a sample already sorted ascending, without NaN, not
/// empty, and `p` in [0, 100]: one sort serves several percentiles.
pub fn percentile_of_sorted(v: &[f64], p: f64) -> f64 {
    percentile_of_sorted_by(v.len(), p, |i| v[i])
}

/// [`percentile_of_sorted`] of a sorted column of `n` values given by
/// `x(i)`, read only at the two ranks it interpolates between: e.g. a
/// monotone map of a sorted integer column, which is sorted too, without
/// building it (issue 14).
#[inline]
pub fn percentile_of_sorted_by(n: usize, p: f64, x: impl Fn(usize) -> f64) -> f64 {
    debug_assert!(n > 0 && (0.0..=100.0).contains(&p));
    let h = (n - 1) as f64 * p / 100.0;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let (a, b) = (x(lo), x(hi));
    a + (h - lo as f64) * (b - a)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
    }

    #[test]
    fn jitter_hand_computed() {
        // Transits 50, 52, 50, 55, 50, 50 ms → |D| = 2, 2, 5, 5, 0 ms →
        // J = 0.125, 0.2421875, 0.5395508, 0.8183289, 0.7671833 ms (by hand).
        let p = [
            (0, 50 * MS),
            (20 * MS, 72 * MS),
            (40 * MS, 90 * MS),
            (60 * MS, 115 * MS),
            (80 * MS, 130 * MS),
            (100 * MS, 150 * MS),
        ];
        close(interarrival_jitter_ns(&p), 767_183.303_833, 1e-3);
        // Constant transit → 0; a single 16 ms step → 1, 0.9375, 0.87890625 ms.
        let step: Vec<(u64, u64)> = (0..6u64)
            .map(|i| {
                (
                    i * 20 * MS,
                    i * 20 * MS + 40 * MS + if i >= 3 { 16 * MS } else { 0 },
                )
            })
            .collect();
        close(interarrival_jitter_ns(&step), 878_906.25, 1e-6);
        let flat: Vec<(u64, u64)> = (0..50u64)
            .map(|i| (i * 20 * MS, i * 20 * MS + 7 * MS))
            .collect();
        close(interarrival_jitter_ns(&flat), 0.0, 0.0);
        close(interarrival_jitter_ns(&[]), 0.0, 0.0);
        close(interarrival_jitter_ns(&[(5, 9)]), 0.0, 0.0);
    }

    #[test]
    fn jitter_in_arrival_order_with_reordering() {
        // Sent at 0, 40, 20, 60 ms, arriving in that order: |D| = 5, 30, 35 ms
        // → J = 0.3125, 2.1679688, 3.5949707 ms (stats_ref.py in docs/models/statistics.md: 3594970.703125 ns).
        let p = [
            (0, 50 * MS),
            (40 * MS, 85 * MS),
            (20 * MS, 95 * MS),
            (60 * MS, 110 * MS),
        ];
        close(interarrival_jitter_ns(&p), 3_594_970.703_125, 1e-3);
    }

    #[test]
    fn transit_difference_matches_i128_across_the_limit() {
        let wide = |(s_i, r_i): (u64, u64), (s_j, r_j): (u64, u64)| {
            ((r_j as i128 - r_i as i128) - (s_j as i128 - s_i as i128)) as f64
        };
        let edges = [0u64, 3, (1 << 53) + 1, (1 << 62) - 1, 1 << 62, u64::MAX - 1];
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        assert_eq!(transit_difference((a, b), (c, d)).to_bits(), wide((a, b), (c, d)).to_bits());
                    }
                }
            }
        }
    }

    #[test]
    fn mean_values() {
        assert_eq!(mean(&[]), None);
        close(
            mean(&[3.5, -1.0, 7.25, 0.0, 12.0, 2.0, 2.0, 9.5]).unwrap(),
            4.40625,
            1e-12,
        );
    }

    #[test]
    fn percentile_matches_numpy_linear() {
        // numpy.percentile([15, 20, 35, 40, 50], p) (stats_ref.py, docs/models/statistics.md).
        let xs = [50.0, 15.0, 40.0, 20.0, 35.0]; // unsorted on purpose
        for (p, want) in [
            (0.0, 15.0),
            (5.0, 16.0),
            (30.0, 23.0),
            (40.0, 29.0),
            (50.0, 35.0),
            (95.0, 48.0),
            (100.0, 50.0),
        ] {
            close(percentile(&xs, p).unwrap(), want, 1e-12);
        }
        let ys = [3.5, -1.0, 7.25, 0.0, 12.0, 2.0, 2.0, 9.5];
        for (p, want) in [
            (10.0, -0.3),
            (25.0, 1.5),
            (50.0, 2.75),
            (75.0, 7.8125),
            (90.0, 10.25),
            (99.0, 11.825),
        ] {
            close(percentile(&ys, p).unwrap(), want, 1e-9);
        }
        close(percentile(&[4.0], 73.0).unwrap(), 4.0, 0.0);
    }

    #[test]
    fn percentile_errors() {
        assert!(percentile(&[], 50.0).unwrap_err().contains("empty"));
        assert!(percentile(&[1.0], 101.0).unwrap_err().contains("p = 101"));
        assert!(percentile(&[1.0], -1.0).is_err());
        assert!(percentile(&[1.0, f64::NAN], 50.0)
            .unwrap_err()
            .contains("index 1"));
    }
}
