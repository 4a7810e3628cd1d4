//! Quantities with units, as written in scenario files: durations (`"20ms"`),
//! bit rates (`"64kbps"`), sizes (`"1500B"`) and packet counts (`"50p"`).
//!
//! A quantity is a non-negative decimal number (`12`, `1.5`; no sign, no
//! exponent) followed by a unit, optionally separated by spaces. Parsing is
//! exact: the decimal is scaled in integer arithmetic and must land on a whole
//! nanosecond, bit per second, byte or packet. Every parser returns, on error,
//! the `allowed` text of a [`ScenarioError`](super::ScenarioError); the caller
//! adds the key path and the value. `format_*` write the canonical form that
//! the parsers read back exactly (`to_json` relies on it).

use super::model::QueueLimit;
use crate::time::SimDuration;

/// Longest duration anywhere in a scenario: 30 days.
pub const MAX_DURATION: SimDuration = SimDuration(30 * 86_400 * 1_000_000_000);
/// Highest link or source rate: 1 Tb/s.
pub const MAX_RATE_BPS: u64 = 1_000_000_000_000;
/// Largest IP packet (and header overhead, ack size): 65535 B (RFC 791).
pub const MAX_PACKET_BYTES: u64 = 65_535;
/// Largest queue or send buffer in packets.
pub const MAX_QUEUE_PACKETS: u64 = 10_000_000;
/// Largest queue in bytes.
pub const MAX_QUEUE_BYTES: u64 = 10_000_000_000;

pub const DURATION_ALLOWED: &str = "a duration with a unit, e.g. \"20ms\" (units: ns, us, ms, s, min)";
pub const RATE_ALLOWED: &str =
    "a rate with a unit, e.g. \"64kbps\" (units: bps, kbps, Mbps, Gbps or b/s, kb/s, Mb/s, Gb/s)";
pub const SIZE_ALLOWED: &str = "a size with a unit, e.g. \"1500B\" (units: B, kB, KiB, MB, MiB)";
pub const PACKETS_ALLOWED: &str = "a packet count with the unit p, e.g. \"5p\"";
pub const QUEUE_LIMIT_ALLOWED: &str =
    "a queue limit in packets or bytes, e.g. \"50p\" or \"64000B\" (units: p, B, kB, KiB, MB, MiB)";

const DURATION_UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("min", 60_000_000_000),
];
const RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("b/s", 1),
    ("kbps", 1_000),
    ("kb/s", 1_000),
    ("Mbps", 1_000_000),
    ("Mb/s", 1_000_000),
    ("Gbps", 1_000_000_000),
    ("Gb/s", 1_000_000_000),
];
const SIZE_UNITS: &[(&str, u128)] =
    &[("B", 1), ("kB", 1_000), ("KiB", 1_024), ("MB", 1_000_000), ("MiB", 1_048_576)];
const PACKET_UNITS: &[(&str, u128)] = &[("p", 1)];

/// `allowed`, and when `s`'s unit is a known one in the wrong case
/// (`"16KB"`, `"64Kbps"`), the spelling meant: units are case-sensitive
/// (`MB` is 10^6 bytes, `mB` nothing).
fn with_case_hint(allowed: &str, s: &str, units: &[&[(&str, u128)]]) -> String {
    let Ok((_, _, unit)) = split(s) else { return allowed.into() };
    let number = s.trim()[..s.trim().len() - unit.len()].trim_end();
    let meant: Vec<&str> =
        units.iter().flat_map(|us| us.iter()).map(|(u, _)| *u).filter(|u| u.eq_ignore_ascii_case(unit)).collect();
    match meant.as_slice() {
        [] => allowed.into(),
        ms => {
            let list = ms.iter().map(|u| format!("\"{number}{u}\"")).collect::<Vec<_>>().join(" or ");
            format!("{allowed}; units are case-sensitive: did you mean {list}?")
        }
    }
}

/// Why a quantity did not parse; turned into an `allowed` text by the caller.
#[derive(Debug, PartialEq)]
enum Bad {
    /// Not `number unit` with a known unit (includes a bare number).
    Form,
    Negative,
    /// Not a whole number of the base unit.
    Inexact,
    /// Larger than any u128 computation can hold (clearly absurd).
    Huge,
}

/// `"1.5ms"` → 1_500_000 with `units` = DURATION_UNITS. Exact or an error.
fn quantity(s: &str, units: &[(&str, u128)]) -> Result<u128, Bad> {
    let (mantissa, scale, unit) = split(s)?;
    let &(_, mult) = units.iter().find(|(u, _)| *u == unit).ok_or(Bad::Form)?;
    let num = mantissa.checked_mul(mult).ok_or(Bad::Huge)?;
    if num % scale != 0 {
        return Err(Bad::Inexact);
    }
    Ok(num / scale)
}

/// Splits `"1.25 ms"` into (125, 100, "ms"): value = mantissa / scale.
fn split(s: &str) -> Result<(u128, u128, &str), Bad> {
    let s = s.trim();
    if s.starts_with('-') {
        return Err(Bad::Negative);
    }
    let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
    if int_len == 0 {
        return Err(Bad::Form);
    }
    let mut rest = &s[int_len..];
    let mut digits = String::from(&s[..int_len]);
    let mut scale: u128 = 1;
    if let Some(r) = rest.strip_prefix('.') {
        let frac_len = r.bytes().take_while(u8::is_ascii_digit).count();
        if frac_len == 0 {
            return Err(Bad::Form);
        }
        if frac_len > 30 {
            return Err(Bad::Inexact);
        }
        digits.push_str(&r[..frac_len]);
        scale = 10u128.pow(frac_len as u32);
        rest = &r[frac_len..];
    }
    let digits = digits.trim_start_matches('0');
    if digits.len() > 36 {
        return Err(Bad::Huge);
    }
    let mantissa = if digits.is_empty() { 0 } else { digits.parse::<u128>().map_err(|_| Bad::Huge)? };
    let unit = rest.trim_start();
    if unit.is_empty() || unit.contains(char::is_whitespace) {
        return Err(Bad::Form);
    }
    Ok((mantissa, scale, unit))
}

/// Parses a duration in [0, 30 days].
pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    let too_long = || "a duration of at most 30 days (\"43200min\")".to_string();
    match quantity(s, DURATION_UNITS) {
        Ok(ns) if ns <= MAX_DURATION.0 as u128 => Ok(SimDuration(ns as u64)),
        Ok(_) | Err(Bad::Huge) => Err(too_long()),
        Err(Bad::Form) => Err(with_case_hint(DURATION_ALLOWED, s, &[DURATION_UNITS])),
        Err(Bad::Negative) => Err(format!("a non-negative {}", &DURATION_ALLOWED[2..])),
        Err(Bad::Inexact) => Err("a whole number of nanoseconds, e.g. \"1.5us\" (not \"0.1ns\")".into()),
    }
}

/// Parses a bit rate in (0, 1 Tb/s], in bits per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let range = || "a rate above 0 and at most 1 Tb/s (\"1000Gbps\")".to_string();
    match quantity(s, RATE_UNITS) {
        Ok(0) => Err(range()),
        Ok(bps) if bps <= MAX_RATE_BPS as u128 => Ok(bps as u64),
        Ok(_) | Err(Bad::Huge) => Err(range()),
        Err(Bad::Form) => Err(with_case_hint(RATE_ALLOWED, s, &[RATE_UNITS])),
        Err(Bad::Negative) => Err(format!("a positive {}", &RATE_ALLOWED[2..])),
        Err(Bad::Inexact) => {
            Err("a whole number of bits per second, e.g. \"1.5kbps\" (not \"0.5bps\")".into())
        }
    }
}

/// A schedule step's rate: as [`parse_rate`], or zero (`"0bps"`, an
/// outage: nothing leaves until a later step's positive rate).
pub fn parse_step_rate(s: &str) -> Result<u64, String> {
    match quantity(s, RATE_UNITS) {
        Ok(0) => Ok(0),
        _ => parse_rate(s).map_err(|e| if e.starts_with("a rate above 0") { format!("0 (an outage) or {e}") } else { e }),
    }
}

/// Parses a size in whole bytes within `[min, max]`; `what` names the range
/// in the error ("a packet size", …).
pub fn parse_bytes(s: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let range = || format!("{what} between {min}B and {max}B");
    match quantity(s, SIZE_UNITS) {
        Ok(b) if b >= min as u128 && b <= max as u128 => Ok(b as u64),
        Ok(_) | Err(Bad::Huge) | Err(Bad::Negative) => Err(range()),
        Err(Bad::Form) => Err(with_case_hint(SIZE_ALLOWED, s, &[SIZE_UNITS])),
        Err(Bad::Inexact) => Err(format!("{what} in whole bytes, e.g. \"1.5kB\" (not \"0.5B\")")),
    }
}

/// Parses a mean size, which may be fractional, within `[min, max]` bytes.
pub fn parse_bytes_f64(s: &str, min: f64, max: f64, what: &str) -> Result<f64, String> {
    let range = || format!("{what} between {min}B and {max}B");
    let t = s.trim();
    let num_len = t.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count();
    match split(s) {
        Err(Bad::Form) => Err(SIZE_ALLOWED.into()),
        Err(Bad::Negative) => Err(range()),
        Err(_) => Err(range()),
        Ok((_, _, unit)) => {
            let Some(&(_, mult)) = SIZE_UNITS.iter().find(|(u, _)| *u == unit) else {
                return Err(SIZE_ALLOWED.into());
            };
            let v: f64 = t[..num_len].parse().map_err(|_| SIZE_ALLOWED.to_string())?;
            let b = v * mult as f64;
            if b.is_finite() && b >= min && b <= max {
                Ok(b)
            } else {
                Err(range())
            }
        }
    }
}

/// Parses a packet count (`"5p"`) within `[min, max]`.
pub fn parse_packets(s: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let range = || format!("{what} between {min}p and {max}p");
    match quantity(s, PACKET_UNITS) {
        Ok(p) if p >= min as u128 && p <= max as u128 => Ok(p as u64),
        Ok(_) | Err(Bad::Huge) | Err(Bad::Negative) => Err(range()),
        Err(Bad::Form) => Err(with_case_hint(PACKETS_ALLOWED, s, &[PACKET_UNITS])),
        Err(Bad::Inexact) => Err(format!("{what} in whole packets, e.g. \"5p\"")),
    }
}

/// Parses a drop-tail limit: packets (`"50p"`, ≤ 10^7) or bytes
/// (`"64000B"`, `"64kB"`, ≤ 10^10).
pub fn parse_queue_limit(s: &str) -> Result<QueueLimit, String> {
    let range = "a queue limit of at most 10000000p or 10000000000B (10GB)";
    let packets = quantity(s, PACKET_UNITS);
    let r = if packets != Err(Bad::Form) {
        packets.map(|p| (p, true))
    } else {
        quantity(s, SIZE_UNITS).map(|b| (b, false))
    };
    match r {
        Ok((p, true)) if p <= MAX_QUEUE_PACKETS as u128 => Ok(QueueLimit::Packets(p as u32)),
        Ok((b, false)) if b <= MAX_QUEUE_BYTES as u128 => Ok(QueueLimit::Bytes(b as u64)),
        Ok(_) | Err(Bad::Huge) | Err(Bad::Negative) => Err(range.into()),
        Err(Bad::Form) => Err(with_case_hint(QUEUE_LIMIT_ALLOWED, s, &[PACKET_UNITS, SIZE_UNITS])),
        Err(Bad::Inexact) => Err("a queue limit in whole packets or bytes, e.g. \"50p\"".into()),
    }
}

/// Exact decimal `n / 10^decimals` with trailing zeros removed.
fn decimal(n: u64, unit: u64) -> String {
    let (int, frac) = (n / unit, n % unit);
    if frac == 0 {
        return int.to_string();
    }
    let width = unit.ilog10() as usize;
    let f = format!("{frac:0width$}");
    format!("{int}.{}", f.trim_end_matches('0'))
}

/// Canonical duration: seconds from 1 s up, else ms, us or ns (`"1.5s"`,
/// `"20ms"`, `"0s"`); exact.
pub fn format_duration(d: SimDuration) -> String {
    let ns = d.0;
    let (unit, name) = match ns {
        0 => return "0s".into(),
        n if n >= 1_000_000_000 => (1_000_000_000, "s"),
        n if n >= 1_000_000 => (1_000_000, "ms"),
        n if n >= 1_000 => (1_000, "us"),
        _ => (1, "ns"),
    };
    format!("{}{name}", decimal(ns, unit))
}

/// Canonical rate: the largest SI unit not above the value (`"64kbps"`,
/// `"1.5Mbps"`); exact.
pub fn format_rate(bps: u64) -> String {
    let (unit, name) = match bps {
        n if n >= 1_000_000_000 => (1_000_000_000, "Gbps"),
        n if n >= 1_000_000 => (1_000_000, "Mbps"),
        n if n >= 1_000 => (1_000, "kbps"),
        _ => (1, "bps"),
    };
    format!("{}{name}", decimal(bps, unit))
}

pub fn format_bytes(b: u64) -> String {
    format!("{b}B")
}

/// Shortest decimal that reads back as the same f64 (Rust's `Display`).
pub fn format_bytes_f64(b: f64) -> String {
    format!("{b}B")
}

pub fn format_packets(p: u64) -> String {
    format!("{p}p")
}

pub fn format_queue_limit(l: QueueLimit) -> String {
    match l {
        QueueLimit::Packets(p) => format_packets(p as u64),
        QueueLimit::Bytes(b) => format_bytes(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Result<u64, String> {
        parse_duration(s).map(|d| d.0)
    }

    #[test]
    fn durations() {
        assert_eq!(d("20ms"), Ok(20_000_000));
        assert_eq!(d("1.5s"), Ok(1_500_000_000));
        assert_eq!(d("0s"), Ok(0));
        assert_eq!(d("0.5us"), Ok(500));
        assert_eq!(d("7ns"), Ok(7));
        assert_eq!(d("2min"), Ok(120_000_000_000));
        assert_eq!(d("20 ms"), Ok(20_000_000));
        assert_eq!(d("1.000000001s"), Ok(1_000_000_001));
        assert_eq!(d("43200min"), Ok(MAX_DURATION.0));
        assert!(d("43200.001min").unwrap_err().contains("at most 30 days"));
        assert!(d("99999999999999999999999999999999999999999s").unwrap_err().contains("at most 30 days"));
        assert!(d("0.1ns").unwrap_err().contains("whole number of nanoseconds"));
        assert!(d("-5ms").unwrap_err().contains("non-negative"));
        for bad in ["20", "20 sec", "ms", "1.ms", ".5s", "NaN s", "1e3ms", "20ms 5", ""] {
            assert_eq!(d(bad), Err(DURATION_ALLOWED.to_string()), "{bad}");
        }
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("64kbps"), Ok(64_000));
        assert_eq!(parse_rate("1.5Mb/s"), Ok(1_500_000));
        assert_eq!(parse_rate("10Gbps"), Ok(10_000_000_000));
        assert_eq!(parse_rate("300 bps"), Ok(300));
        assert_eq!(parse_rate("1000Gbps"), Ok(MAX_RATE_BPS));
        assert!(parse_rate("1001Gbps").unwrap_err().contains("at most 1 Tb/s"));
        assert!(parse_rate("0kbps").unwrap_err().contains("above 0"));
        assert!(parse_rate("-1kbps").unwrap_err().contains("positive"));
        assert!(parse_rate("0.5bps").unwrap_err().contains("whole number of bits"));
        assert_eq!(parse_rate("64"), Err(RATE_ALLOWED.to_string()));
        assert_eq!(
            parse_rate("64mbps"),
            Err(format!("{RATE_ALLOWED}; units are case-sensitive: did you mean \"64Mbps\"?"))
        );
    }

    #[test]
    fn sizes_and_counts() {
        assert_eq!(parse_bytes("1500B", 1, 65_535, "a packet size"), Ok(1500));
        assert_eq!(parse_bytes("1.5kB", 1, 65_535, "a packet size"), Ok(1500));
        assert_eq!(parse_bytes("2KiB", 1, 65_535, "a packet size"), Ok(2048));
        assert!(parse_bytes("70000B", 1, 65_535, "a packet size")
            .unwrap_err()
            .contains("between 1B and 65535B"));
        assert!(parse_bytes("0B", 1, 65_535, "a packet size").unwrap_err().contains("between 1B"));
        assert_eq!(parse_bytes("1500", 1, 65_535, "x"), Err(SIZE_ALLOWED.to_string()));
        assert_eq!(parse_bytes_f64("500.5B", 1.0, 65_535.0, "a mean"), Ok(500.5));
        assert_eq!(parse_bytes_f64("0.5kB", 1.0, 65_535.0, "a mean"), Ok(500.0));
        assert!(parse_bytes_f64("0.5B", 1.0, 65_535.0, "a mean").is_err());
        assert_eq!(parse_packets("5p", 1, 10, "a send buffer"), Ok(5));
        assert!(parse_packets("0p", 1, 10, "a send buffer").unwrap_err().contains("between 1p and 10p"));
        assert_eq!(parse_queue_limit("50p"), Ok(QueueLimit::Packets(50)));
        assert_eq!(parse_queue_limit("64kB"), Ok(QueueLimit::Bytes(64_000)));
        // QA 004: "16KB" named no unit; the wrong case is named, with the spelling meant.
        assert_eq!(
            parse_queue_limit("16KB"),
            Err("a queue limit in packets or bytes, e.g. \"50p\" or \"64000B\" (units: p, B, kB, KiB, MB, MiB); \
                 units are case-sensitive: did you mean \"16kB\"?"
                .into())
        );
        assert!(parse_queue_limit("16kb").unwrap_err().ends_with("did you mean \"16kB\"?"));
        assert!(parse_queue_limit("50P").unwrap_err().ends_with("did you mean \"50p\"?"));
        assert_eq!(parse_queue_limit("16 parsecs"), Err(QUEUE_LIMIT_ALLOWED.into()));
        assert!(parse_rate("64Kbps").unwrap_err().ends_with("did you mean \"64kbps\"?"));
        assert!(parse_bytes("1.5KIB", 1, 65_535, "a size").unwrap_err().ends_with("did you mean \"1.5KiB\"?"));
        assert!(parse_duration("20MS").unwrap_err().ends_with("did you mean \"20ms\"?"));
        assert!(parse_queue_limit("10000001p").unwrap_err().contains("at most 10000000p"));
        assert_eq!(parse_queue_limit("50"), Err(QUEUE_LIMIT_ALLOWED.to_string()));
    }

    #[test]
    fn formats_read_back_exactly() {
        for ns in [0, 1, 999, 1_000, 1_500, 20_000_000, 1_000_000_001, 1_500_000_000, 86_400_000_000_000] {
            let s = format_duration(SimDuration(ns));
            assert_eq!(d(&s), Ok(ns), "{s}");
        }
        assert_eq!(format_duration(SimDuration::from_millis(20)), "20ms");
        assert_eq!(format_duration(SimDuration(1_500_000_000)), "1.5s");
        assert_eq!(format_duration(SimDuration(2_500)), "2.5us");
        for bps in [1, 999, 64_000, 1_500_000, 1_234_567, 100_000_000_000] {
            assert_eq!(parse_rate(&format_rate(bps)), Ok(bps));
        }
        assert_eq!(format_rate(64_000), "64kbps");
        assert_eq!(format_rate(1_500_000), "1.5Mbps");
        assert_eq!(format_bytes_f64(500.0), "500B");
        for m in [1.0, 500.5, 333.3333333333333, 65_535.0] {
            assert_eq!(parse_bytes_f64(&format_bytes_f64(m), 1.0, 65_535.0, "m"), Ok(m));
        }
    }
}
