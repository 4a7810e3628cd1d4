//! Time-varying link directions: a serialization rate and a propagation
//! delay that follow a schedule, or a mahimahi packet-delivery trace
//! (Netravali et al., "Mahimahi: Accurate Record-and-Replay for HTTP",
//! USENIX ATC 2015, §3: each line of a trace is a millisecond at which one
//! MTU-sized packet may leave; the trace loops).
//!
//! The channel asks one question per packet: starting to serialize
//! `bytes` at `start`, when does the last bit leave? Starts never
//! decrease (FIFO), which the delivery-trace model relies on.

use crate::time::{SimDuration, SimTime};

const NS: u128 = 1_000_000_000;

/// Bytes one mahimahi delivery opportunity carries (mahimahi's
/// `LinkQueue::PACKET_SIZE`, the TUN MTU of 1500 B plus its 4-byte header).
pub const MAHIMAHI_BYTES: u32 = 1504;

#[derive(Clone, Debug, PartialEq)]
pub enum Capacity {
    /// A fixed rate in b/s (the common case: one division, no lookup).
    Constant(u64),
    /// A piecewise-constant rate.
    Steps(Steps),
    /// A packet-delivery trace.
    Deliveries(Deliveries),
}

impl Capacity {
    /// When a packet of `bytes` that starts serializing at `start` has
    /// left: ns-exact for `Constant` (rounded up), and across the steps of
    /// a schedule the bits are counted exactly (bit·ns), rounding up once.
    #[inline]
    pub fn finish(&mut self, start: SimTime, bytes: u32) -> SimTime {
        match self {
            Capacity::Constant(r) => start + SimDuration::transmission(bytes, *r),
            Capacity::Steps(s) => s.finish(start, bytes),
            Capacity::Deliveries(d) => d.finish(start, bytes),
        }
    }
}

/// Values that change at given times: `at[0] == 0`, strictly increasing;
/// with `period`, the pattern repeats every `period` ns (all `at` <
/// `period`).
#[derive(Clone, Debug, PartialEq)]
pub struct Steps {
    pub at: Vec<u64>,
    pub value: Vec<u64>,
    pub period: Option<u64>,
}

impl Steps {
    /// The value in force at `t` and when it next changes (absolute ns).
    pub fn segment(&self, t: u64) -> (u64, u64) {
        let (base, off) = match self.period {
            Some(p) => (t - t % p, t % p),
            None => (0, t),
        };
        let i = self.at.partition_point(|&a| a <= off) - 1;
        let end = match (self.at.get(i + 1), self.period) {
            (Some(&next), _) => base + next,
            (None, Some(p)) => base + p,
            (None, None) => u64::MAX,
        };
        (self.value[i], end)
    }

    fn finish(&self, start: SimTime, bytes: u32) -> SimTime {
        // Work left in bit·ns: `rate · Δt` of it is done in Δt.
        let mut rem = bytes as u128 * 8 * NS;
        let mut t = start.0;
        loop {
            let (rate, end) = self.segment(t);
            let cap = rate as u128 * (end - t) as u128;
            if cap >= rem {
                return SimTime(t + rem.div_ceil(rate as u128) as u64);
            }
            // The scenario guarantees a positive rate ahead (never stuck).
            rem -= cap;
            t = end;
        }
    }

    /// Bits the schedule can carry in [from, to) (for tests and docs).
    pub fn bits_between(&self, from: u64, to: u64) -> u128 {
        let (mut t, mut bits) = (from, 0u128);
        while t < to {
            let (rate, end) = self.segment(t);
            let e = end.min(to);
            bits += rate as u128 * (e - t) as u128;
            t = e;
        }
        bits / NS
    }
}

/// A mahimahi delivery trace: opportunity times (ns, non-decreasing,
/// from the trace's milliseconds), looping every `period` ns (the last
/// timestamp, as mahimahi loops). Each opportunity carries up to
/// [`MAHIMAHI_BYTES`]; a packet may span several, and the rest of an
/// opportunity serves the next packet only if it is already waiting
/// (an opportunity nobody uses is lost, as in mahimahi).
#[derive(Clone, Debug, PartialEq)]
pub struct Deliveries {
    times: std::sync::Arc<Vec<u64>>,
    period: u64,
    /// Index (counting across loops) of the first unused opportunity.
    next: u64,
    /// Bytes left in the last used opportunity, and its time.
    left: u32,
    left_at: u64,
}

impl Deliveries {
    /// `times` non-empty and non-decreasing, `period` ≥ the last time and > 0.
    pub fn new(times: std::sync::Arc<Vec<u64>>, period: u64) -> Self {
        Deliveries { times, period, next: 0, left: 0, left_at: 0 }
    }

    fn time(&self, k: u64) -> u64 {
        let n = self.times.len() as u64;
        (k / n) * self.period + self.times[(k % n) as usize]
    }

    /// First opportunity at or after `t`.
    fn first_at(&self, t: u64) -> u64 {
        let n = self.times.len() as u64;
        let (cycle, off) = (t / self.period, t % self.period);
        let i = self.times.partition_point(|&x| x < off) as u64;
        cycle * n + i
    }

    fn finish(&mut self, start: SimTime, bytes: u32) -> SimTime {
        let mut need = bytes;
        if self.left > 0 && self.left_at == start.0 {
            let take = need.min(self.left);
            self.left -= take;
            need -= take;
            if need == 0 {
                return start;
            }
        }
        let mut k = self.first_at(start.0).max(self.next);
        loop {
            let t = self.time(k);
            let take = need.min(MAHIMAHI_BYTES);
            need -= take;
            k += 1;
            if need == 0 {
                self.next = k;
                self.left = MAHIMAHI_BYTES - take;
                self.left_at = t;
                return SimTime(t);
            }
        }
    }

    /// Mean rate of the trace in b/s (the links table's nominal rate).
    pub fn mean_rate_bps(times: &[u64], period: u64) -> u64 {
        (times.len() as u128 * MAHIMAHI_BYTES as u128 * 8 * NS / period.max(1) as u128) as u64
    }
}

/// A propagation delay, fixed or following a schedule of `Steps` (ns).
/// The delay in force when the packet's last bit leaves applies to it.
#[derive(Clone, Debug, PartialEq)]
pub enum Propagation {
    Constant(SimDuration),
    Steps(Steps),
}

impl Propagation {
    #[inline]
    pub fn at(&self, t: SimTime) -> SimDuration {
        match self {
            Propagation::Constant(d) => *d,
            Propagation::Steps(s) => SimDuration(s.segment(t.0).0),
        }
    }
}

/// A mahimahi trace's text as opportunity times in ns, and its loop
/// period. Blank lines and `#` comments are skipped; errors carry their
/// line number (from 1; 0 for a whole-file problem).
pub fn parse_mahimahi(text: &str) -> Result<(Vec<u64>, u64), (usize, String)> {
    let mut out: Vec<u64> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let w = line.split('#').next().unwrap_or("").trim();
        if w.is_empty() {
            continue;
        }
        let ms: u64 = w.parse().map_err(|_| (i + 1, format!("\"{w}\" is not a whole number of milliseconds")))?;
        if out.last().is_some_and(|&l| ms * 1_000_000 < l) {
            return Err((i + 1, "a time no earlier than the previous line's".into()));
        }
        out.push(ms.checked_mul(1_000_000).ok_or((i + 1, "a time below 2^64 ns".to_string()))?);
    }
    match out.last() {
        None => Err((0, "no delivery opportunities (a millisecond per line)".into())),
        Some(0) => Err((0, "a last timestamp > 0 ms (it is the loop period)".into())),
        Some(&p) => Ok((out, p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A backlogged link (packets always waiting) on a rate schedule
    /// delivers exactly the bits the schedule allows: by the end of each
    /// packet, the bits sent equal ∫ rate dt from 0 to then, to the
    /// nanosecond's rounding (< rate·1 ns per packet, i.e. < 1 bit here).
    #[test]
    fn schedule_delivers_exactly_its_integral() {
        // RFC 8867 §5.1-style steps: 1 Mb/s, 2.5 Mb/s at 40 ms, 0.6 Mb/s at
        // 60 ms, an outage at 80 ms, 1 Mb/s again at 90 ms; repeating at 100 ms.
        let s = Steps { at: vec![0, 40 * MS, 60 * MS, 80 * MS, 90 * MS], value: vec![1_000_000, 2_500_000, 600_000, 0, 1_000_000], period: Some(100 * MS) };
        let mut c = Capacity::Steps(s.clone());
        let (mut t, mut sent_bits) = (SimTime::ZERO, 0u128);
        for i in 0..2000u32 {
            let bytes = 200 + (i * 37) % 1300;
            t = c.finish(t, bytes);
            sent_bits += bytes as u128 * 8;
            let allowed = s.bits_between(0, t.0);
            // Rounded up to the next ns: allowed ≥ sent, by < 3 bits (the
            // largest rate is 2.5 bits per ns).
            assert!(allowed >= sent_bits && allowed - sent_bits < 3, "packet {i}: allowed {allowed} sent {sent_bits}");
        }
        assert!(t.0 > 300 * MS, "ran across several periods: {t:?}");
        // Non-repeating: after the last step the last rate holds.
        let s = Steps { at: vec![0, 10 * MS], value: vec![8_000_000, 800_000], period: None };
        let mut c = Capacity::Steps(s);
        // 1000 B at 8 Mb/s is 1 ms; starting at 9.5 ms: 0.5 ms at 8 Mb/s
        // (500 B) then 500 B at 0.8 Mb/s (5 ms): done at 15 ms.
        assert_eq!(c.finish(SimTime(9 * MS + MS / 2), 1000), SimTime(15 * MS));
    }

    /// mahimahi: a backlogged link sends exactly 1504 B per opportunity,
    /// packets spanning and sharing opportunities; idle opportunities are lost.
    #[test]
    fn mahimahi_delivers_one_mtu_per_opportunity() {
        let (times, period) = parse_mahimahi("# test\n1\n1\n3\n7\n10\n").unwrap();
        assert_eq!((times.len(), period), (5, 10 * MS));
        let mut d = Capacity::Deliveries(Deliveries::new(std::sync::Arc::new(times.clone()), period));
        let mut t = SimTime::ZERO;
        let mut sent = 0u64;
        let mut finishes = Vec::new();
        for _ in 0..50 {
            t = d.finish(t, 1000);
            sent += 1000;
            finishes.push(t);
            // Opportunities up to t carry at least what was sent, and the
            // packet could not have finished an opportunity earlier.
            let ops = |x: u64| (x / period) * 5 + times.iter().filter(|&&o| o <= x % period).count() as u64;
            assert!(ops(t.0) * 1504 >= sent && ops(t.0 - 1) * 1504 < sent, "at {t:?}: sent {sent}");
        }
        // Two opportunities at 1 ms carry 3008 B: three packets, and 8 B of the fourth.
        assert_eq!(&finishes[..4], &[SimTime(MS), SimTime(MS), SimTime(MS), SimTime(3 * MS)]);
        // Idle: a packet arriving at 25 ms waits for 27 ms; the rest of that
        // opportunity is lost to a packet arriving later at 28 ms.
        let mut d = Capacity::Deliveries(Deliveries::new(std::sync::Arc::new(times), period));
        assert_eq!(d.finish(SimTime(25 * MS), 100), SimTime(27 * MS));
        assert_eq!(d.finish(SimTime(28 * MS), 100), SimTime(30 * MS));
        assert_eq!(parse_mahimahi("1\nx\n").unwrap_err().0, 2);
        assert_eq!(parse_mahimahi("5\n3\n").unwrap_err().0, 2);
        assert_eq!(parse_mahimahi("\n").unwrap_err().0, 0);
    }
}
