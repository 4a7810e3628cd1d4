//! TCP throughput models: the Padhye–Firoiu–Towsley–Kurose approximation
//! (SIGCOMM 1998 / ToN 2000, eq. (33) of the ToN paper, also seed 000
//! §2.2.1), which TFRC's throughput equation (RFC 5348 §3.1) specialises
//! with b = 1 and t_RTO = 4R.

/// Steady-state send rate in bytes/s of a TCP Reno flow with segments of
/// `s` bytes, round-trip time `rtt_s`, loss event rate `p`, base timeout
/// `t0_s`, `b` packets acknowledged per ACK, and an optional maximum
/// window `wmax` (segments):
///
/// `X = min(Wmax/RTT, 1 / (RTT·√(2bp/3) + T0·min(1, 3√(3bp/8))·p·(1 + 32p²)))`
/// packets per second, times `s`.
pub fn padhye_rate(s: f64, rtt_s: f64, p: f64, t0_s: f64, b: f64, wmax: Option<f64>) -> f64 {
    if p <= 0.0 {
        return wmax.map_or(f64::INFINITY, |w| w * s / rtt_s);
    }
    let denom = rtt_s * (2.0 * b * p / 3.0).sqrt() + t0_s * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p);
    let x = s / denom;
    wmax.map_or(x, |w| x.min(w * s / rtt_s))
}

/// TFRC's throughput equation (RFC 5348 §3.1) in bytes/s, for segments of
/// `s` bytes, round-trip time `rtt_s`, loss event rate `p` and
/// retransmission timeout `t_rto_s`, with b = 1:
///
/// `X = s / (R·√(2p/3) + t_RTO·(3·√(3p/8))·p·(1 + 32p²))`
///
/// Unlike Padhye's model the timeout term is not capped at 1 (§3.1 writes
/// it without the min). Infinite for p = 0.
pub fn tfrc_rate(s: f64, rtt_s: f64, p: f64, t_rto_s: f64) -> f64 {
    if p <= 0.0 {
        return f64::INFINITY;
    }
    s / (rtt_s * (2.0 * p / 3.0).sqrt() + t_rto_s * (3.0 * (3.0 * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p))
}

/// The loss event rate at which [`tfrc_rate`] gives `x` bytes/s (RFC 5348
/// §6.3.1, the first loss interval): the equation falls monotonically in
/// p, so bisection on log p over [1e-10, 1] finds it to 1e-9 relative.
pub fn tfrc_p_for_rate(s: f64, rtt_s: f64, x: f64, t_rto_s: f64) -> f64 {
    let (mut lo, mut hi) = (1e-10f64.ln(), 0.0f64);
    if tfrc_rate(s, rtt_s, 1.0, t_rto_s) >= x {
        return 1.0;
    }
    if tfrc_rate(s, rtt_s, 1e-10, t_rto_s) <= x {
        return 1e-10;
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if tfrc_rate(s, rtt_s, mid.exp(), t_rto_s) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: s = 1460, R = 0.1 s, p = 0.01, T0 = 0.4 s, b = 1:
    /// √(0.02/3) = 0.0816497, 3·√(0.03/8) = 0.1837117, 1 + 32·10⁻⁴ = 1.0032;
    /// denominator = 0.00816497 + 0.4·0.1837117·0.01·1.0032 = 0.00890216;
    /// X = 1460 / 0.00890216 = 164,005 B/s.
    #[test]
    fn hand_value() {
        let x = padhye_rate(1460.0, 0.1, 0.01, 0.4, 1.0, None);
        assert!((x - 164_005.0).abs() < 5.0, "{x}");
        // The window limit binds: 10 segments per 100 ms = 146,000 B/s.
        assert_eq!(padhye_rate(1460.0, 0.1, 0.01, 0.4, 1.0, Some(10.0)), 146_000.0);
    }
    /// RFC 5348 §3.1 by hand (b = 1, t_RTO = 4R), s = 1460 B:
    /// R = 0.1 s, p = 0.01: √(0.02/3) = 0.08164966, 3·√(0.03/8) = 0.18371173;
    ///   denominator = 0.008164966 + 0.4·0.18371173·0.01·1.0032 = 0.008902168,
    ///   X = 164,005.1 B/s (the same as Padhye's model: the cap is inactive).
    /// R = 0.2 s, p = 0.1: √(0.2/3) = 0.25819889, 3·√(0.3/8) = 0.58094750;
    ///   0.2·0.25819889 = 0.05163978, 0.8·0.58094750·0.1·1.32 = 0.06134806,
    ///   X = 1460 / 0.11298784 = 12,921.7 B/s.
    /// R = 0.05 s, p = 0.5 (the cap of Padhye's model would bind):
    ///   √(1/3) = 0.57735027, 3·√(1.5/8) = 1.29903811, 1 + 32·0.25 = 9;
    ///   0.05·0.57735027 = 0.02886751, 0.2·1.29903811·0.5·9 = 1.16913430,
    ///   X = 160 / 1.19800181 = 133.56 B/s for s = 160.
    #[test]
    fn tfrc_hand_values() {
        let cases = [(1460.0, 0.1, 0.01, 164_005.1), (1460.0, 0.2, 0.1, 12_921.7), (160.0, 0.05, 0.5, 133.56)];
        for (s, r, p, want) in cases {
            let x = tfrc_rate(s, r, p, 4.0 * r);
            assert!((x - want).abs() / want < 1e-4, "s={s} R={r} p={p}: {x} vs {want}");
            // The inverse recovers p.
            let back = tfrc_p_for_rate(s, r, x, 4.0 * r);
            assert!((back - p).abs() / p < 1e-6, "inverse: {back} vs {p}");
        }
        assert_eq!(tfrc_rate(1460.0, 0.1, 0.0, 0.4), f64::INFINITY);
    }
}
