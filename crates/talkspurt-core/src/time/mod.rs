//! Simulated time: integer nanoseconds, never floats and never `std::time`.
//!
//! `SimTime` is an instant since the start of the run, `SimDuration` a span.
//! Arithmetic is checked in debug builds and saturating where a deadline may
//! legitimately be "never" (`SimTime::NEVER`).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, nanoseconds since the run began.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// A deadline that never comes (an unarmed timer).
    pub const NEVER: SimTime = SimTime(u64::MAX);

    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Span since `earlier`; zero if `earlier` is later (never negative).
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * NS_PER_US)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * NS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NS_PER_S)
    }
    /// Rounds to the nearest nanosecond; only for configuration input, never
    /// inside the event loop.
    pub fn from_secs_f64(s: f64) -> Self {
        debug_assert!(s.is_finite() && s >= 0.0);
        SimDuration((s * NS_PER_S as f64).round() as u64)
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }
    /// Time to serialize `bytes` at `rate_bps`, rounded up to whole
    /// nanoseconds so that a link never exceeds its configured rate.
    #[inline]
    pub fn transmission(bytes: u32, rate_bps: u64) -> Self {
        // bit·ns fit in u64 below 2^31 bytes: one hardware division instead
        // of a 128-bit library call (the same exact, rounded-up result).
        if bytes < 1 << 31 {
            return SimDuration((bytes as u64 * 8 * NS_PER_S).div_ceil(rate_bps));
        }
        let bits = bytes as u128 * 8 * NS_PER_S as u128;
        let r = rate_bps as u128;
        SimDuration(bits.div_ceil(r) as u64)
    }
    pub fn mul(self, k: u64) -> Self {
        SimDuration(self.0.checked_mul(k).expect("SimDuration overflow"))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.checked_add(d.0).expect("SimTime overflow"))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.checked_sub(earlier.0).expect("negative SimDuration"))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.checked_add(o.0).expect("SimDuration overflow"))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}ms", self.as_millis_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_is_exact_or_rounded_up() {
        // 200 B at 100 Mb/s = 1600 bits / 1e8 = 16 µs exactly.
        assert_eq!(SimDuration::transmission(200, 100_000_000).0, 16_000);
        // 200 B at 300 kb/s = 5.3333… ms, rounded up to 5_333_334 ns.
        assert_eq!(SimDuration::transmission(200, 300_000).0, 5_333_334);
    }

    #[test]
    fn since_saturates() {
        assert_eq!(SimTime(5).saturating_since(SimTime(9)), SimDuration::ZERO);
        assert_eq!(SimTime(9) - SimTime(5), SimDuration(4));
    }
}
