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
}
