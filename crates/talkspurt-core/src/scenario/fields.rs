//! How single values of a scenario are read and written: quantities with
//! units (units.rs does the arithmetic), ranged integers and numbers,
//! non-empty names. Each reader's failure text is the `allowed` part of the
//! error; its `expecting` text is what a value of the wrong type gets. Used
//! by the types' serde attributes (`with = "fields::Bytes::<1, 65535>"`,
//! `deserialize_with = "fields::probability"`).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::model::QueueLimit;
use super::units::{
    self, DURATION_ALLOWED, PACKETS_ALLOWED, QUEUE_LIMIT_ALLOWED, RATE_ALLOWED, SIZE_ALLOWED,
};
use crate::time::SimDuration;

/// A string read by `parse`; `form` is what a non-string gets.
struct Quantity<T, F> {
    form: &'static str,
    parse: F,
    out: PhantomData<T>,
}

impl<'de, T, F: Fn(&str) -> Result<T, String>> Visitor<'de> for Quantity<T, F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.form)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        (self.parse)(s).map_err(E::custom)
    }
}

fn quantity<'de, D: Deserializer<'de>, T>(
    d: D,
    form: &'static str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, D::Error> {
    d.deserialize_str(Quantity { form, parse, out: PhantomData })
}

// ---------------------------------------------------------------------------
// Durations

impl<'de> Deserialize<'de> for SimDuration {
    /// `"20ms"`: any duration from 0 to 30 days.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        quantity(d, DURATION_ALLOWED, units::parse_duration)
    }
}

impl Serialize for SimDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_duration(*self))
    }
}

pub const POSITIVE_DURATION: &str = "a positive duration, e.g. \"20ms\"";

fn positive_duration(s: &str) -> Result<SimDuration, String> {
    match units::parse_duration(s)? {
        SimDuration::ZERO => Err(POSITIVE_DURATION.into()),
        d => Ok(d),
    }
}

/// A duration > 0.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
    quantity(d, DURATION_ALLOWED, positive_duration)
}

/// An optional duration > 0 (absent is `None`).
pub fn positive_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SimDuration>, D::Error> {
    positive(d).map(Some)
}

/// `[run] duration`: > 0, ≤ 30 days.
pub fn run_duration<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
    quantity(d, DURATION_ALLOWED, |s| match units::parse_duration(s)? {
        SimDuration::ZERO => Err("a positive duration of at most 30 days, e.g. \"60s\"".into()),
        d => Ok(d),
    })
}

/// The delayed-ACK timer: > 0, ≤ 500 ms (RFC 5681 §4.2: "MUST be less than 0.5 seconds").
pub fn delack<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
    quantity(d, DURATION_ALLOWED, |s| match positive_duration(s) {
        Ok(v) if v <= SimDuration::from_millis(500) => Ok(v),
        _ => Err("a positive duration of at most 500ms (RFC 5681 §4.2)".into()),
    })
}

/// Durations kept as `u64` nanoseconds (the playout configs).
pub mod ns {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        SimDuration::deserialize(d).map(|v| v.0)
    }
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        SimDuration(*v).serialize(s)
    }
}

/// As [`ns`], > 0.
pub mod ns_positive {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        positive(d).map(|v| v.0)
    }
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        SimDuration(*v).serialize(s)
    }
}

/// As [`ns`], optional (absent = a default that depends on the run).
pub mod ns_opt {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        SimDuration::deserialize(d).map(|v| Some(v.0))
    }
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(SimDuration).serialize(s)
    }
}

/// As [`ns_positive`], optional.
pub mod ns_positive_opt {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        positive(d).map(|v| Some(v.0))
    }
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(SimDuration).serialize(s)
    }
}

/// `[analysis] interval = ["50s", "200s"]`.
pub mod interval {
    use super::*;
    pub const ALLOWED: &str = "an interval [start, end] of two durations, e.g. [\"50s\", \"200s\"]";

    struct Pair;
    impl<'de> Visitor<'de> for Pair {
        type Value = Option<(SimDuration, SimDuration)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(ALLOWED)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let (Some(a), Some(b)) = (seq.next_element()?, seq.next_element()?) else {
                return Err(de::Error::custom(ALLOWED));
            };
            if seq.next_element::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom(ALLOWED));
            }
            Ok(Some((a, b)))
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<(SimDuration, SimDuration)>, D::Error> {
        d.deserialize_seq(Pair)
    }
    pub fn serialize<S: Serializer>(v: &Option<(SimDuration, SimDuration)>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|(a, b)| [a, b]).serialize(s)
    }
}

// ---------------------------------------------------------------------------
// Rates, sizes, packet counts

/// Bit rates in b/s (`"64kbps"`), > 0, ≤ 1 Tb/s.
pub mod rate {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        quantity(d, RATE_ALLOWED, units::parse_rate)
    }
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_rate(*v))
    }
}

/// Whole bytes in `[MIN, MAX]` (`"1500B"`, `"1.5kB"`), into any integer field.
pub struct Bytes<const MIN: u64, const MAX: u64>;

impl<const MIN: u64, const MAX: u64> Bytes<MIN, MAX> {
    pub fn deserialize<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
        let b = quantity(d, SIZE_ALLOWED, |s| units::parse_bytes(s, MIN, MAX, "a size"))?;
        T::try_from(b).map_err(|_| de::Error::custom(format!("a size between {MIN}B and {MAX}B")))
    }
    pub fn serialize<S: Serializer, T: Copy + Into<u64>>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_bytes((*v).into()))
    }
}

/// Packet counts in `[MIN, MAX]` (`"5p"`).
pub struct Packets<const MIN: u64, const MAX: u64>;

impl<const MIN: u64, const MAX: u64> Packets<MIN, MAX> {
    pub fn deserialize<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
        let p = quantity(d, PACKETS_ALLOWED, |s| units::parse_packets(s, MIN, MAX, "a packet count"))?;
        T::try_from(p).map_err(|_| de::Error::custom(format!("a packet count between {MIN}p and {MAX}p")))
    }
    pub fn serialize<S: Serializer, T: Copy + Into<u64>>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_packets((*v).into()))
    }
}

impl<'de> Deserialize<'de> for QueueLimit {
    /// `"50p"` or `"64kB"`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        quantity(d, QUEUE_LIMIT_ALLOWED, units::parse_queue_limit)
    }
}

impl Serialize for QueueLimit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_queue_limit(*self))
    }
}

/// An optional rate (link level, or one direction of a link).
pub mod rate_opt {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        rate::deserialize(d).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(units::format_rate).serialize(s)
    }
}

/// A schedule step's rate: 0 (an outage) allowed.
pub mod step_rate_opt {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        quantity(d, "a rate with a unit, e.g. \"2.5Mbps\", or \"0bps\" for an outage", units::parse_step_rate).map(Some)
    }
    pub use super::rate_opt::serialize;
}

pub const PACKET: &str = "a packet size such as \"1000B\", or { kind = \"exponential\", mean = \"500B\" }";

/// A fixed IP packet size, 1–65535 B (`packet = "1000B"`).
pub mod packet_size {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        quantity(d, PACKET, |s| {
            units::parse_bytes(s, 1, units::MAX_PACKET_BYTES, "a packet size").map(|b| b as u32)
        })
    }
    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_bytes(*v as u64))
    }
}

pub mod packet_size_opt {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        packet_size::deserialize(d).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|b| units::format_bytes(b as u64)).serialize(s)
    }
}

/// The size of a finite transfer: 1 B to 1 TB.
pub mod transfer_size {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        quantity(d, SIZE_ALLOWED, |s| units::parse_bytes(s, 1, 1_000_000_000_000, "a transfer size"))
    }
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_bytes(*v))
    }
}

/// A fixed start time (`start = "2s"`).
pub fn start_time<'de, D: Deserializer<'de>>(d: D) -> Result<SimDuration, D::Error> {
    quantity(
        d,
        "a start time such as \"0s\", or { kind = \"uniform\", from = \"0s\", to = \"10s\" }",
        units::parse_duration,
    )
}

/// A mean packet size, which may be fractional (`"500.5B"`), 1–65535 B.
pub mod mean_bytes {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        quantity(d, SIZE_ALLOWED, |s| {
            units::parse_bytes_f64(s, 1.0, units::MAX_PACKET_BYTES as f64, "a mean packet size")
        })
    }
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&units::format_bytes_f64(*v))
    }
}

// ---------------------------------------------------------------------------
// Plain numbers

/// A TOML/JSON integer in `[MIN, MAX]`; floats (even `2.0`) and strings are errors.
pub struct Int<const MIN: u64, const MAX: u64>;

/// As [`Int`], counting packets (playout depths and windows): the text says so.
pub struct PacketInt<const MIN: u64, const MAX: u64>;

struct IntVisitor {
    min: u64,
    max: u64,
    text: String,
}

impl IntVisitor {
    fn new(min: u64, max: u64, noun: &str) -> Self {
        let text = if min == 0 && max == u64::MAX {
            format!("a non-negative {noun}")
        } else {
            format!("an {noun} between {min} and {max}")
        };
        IntVisitor { min, max, text }
    }

    fn read<'de, D: Deserializer<'de>, T: TryFrom<u64>>(self, d: D) -> Result<T, D::Error> {
        let text = self.text.clone();
        let v = d.deserialize_any(self)?;
        T::try_from(v).map_err(|_| de::Error::custom(text))
    }
}

impl<'de> Visitor<'de> for IntVisitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.text)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        if (self.min..=self.max).contains(&v) {
            Ok(v)
        } else {
            Err(E::custom(self.text))
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(self.text)),
        }
    }
}

impl<const MIN: u64, const MAX: u64> Int<MIN, MAX> {
    pub fn deserialize<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
        IntVisitor::new(MIN, MAX, "integer").read(d)
    }
    pub fn serialize<S: Serializer, T: Copy + TryInto<u64>>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64((*v).try_into().unwrap_or(u64::MAX))
    }
}

impl<const MIN: u64, const MAX: u64> PacketInt<MIN, MAX> {
    pub fn deserialize<'de, D: Deserializer<'de>, T: TryFrom<u64>>(d: D) -> Result<T, D::Error> {
        IntVisitor::new(MIN, MAX, "integer number of packets").read(d)
    }
    pub fn serialize<S: Serializer, T: Copy + TryInto<u64>>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        Int::<MIN, MAX>::serialize(v, s)
    }
}

/// Seeds and run indices: any u64.
pub type NonNegative = Int<0, { u64::MAX }>;

/// A finite number accepted by `ok`, else `allowed`.
struct Number<F> {
    allowed: &'static str,
    ok: F,
}

impl<'de, F: Fn(f64) -> bool> Visitor<'de> for Number<F> {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.allowed)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        if v.is_finite() && (self.ok)(v) {
            Ok(v)
        } else {
            Err(E::custom(self.allowed))
        }
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
}

macro_rules! numbers {
    ($($(#[$doc:meta])* $name:ident: $allowed:expr, |$x:ident| $ok:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
            d.deserialize_any(Number { allowed: $allowed, ok: |$x: f64| $ok })
        }
    )*};
}

numbers! {
    /// A probability that may be 1 (Markov chains, state loss rates).
    unit_interval: "a probability with 0 <= p <= 1, e.g. 0.5", |p| (0.0..=1.0).contains(&p);
    /// Mean loss burst length, in packets.
    burst_length: "a mean burst length in packets >= 1, e.g. 2.5", |b| b >= 1.0;
    /// Loss probability.
    probability: "a probability p with 0 <= p < 1, e.g. 0.01", |p| (0.0..1.0).contains(&p);
    /// Pareto shape: > 1 for a finite mean.
    pareto_shape: "a Pareto shape > 1 (finite mean), e.g. 1.5", |k| k > 1.0;
    weibull_shape: "a Weibull shape > 0, e.g. 1.0", |k| k > 0.0;
    /// Pareto shape given with a scale: any > 0.
    pareto_shape_any: "a Pareto shape > 0, e.g. 1.5 (> 1 when given by mean; with scale any shape)", |k| k > 0.0;
    /// EWMA weight of the old estimate.
    weight: "an EWMA weight w with 0 <= w < 1, e.g. 0.998002", |w| (0.0..1.0).contains(&w);
    multiplier: "a finite multiplier beta > 0, e.g. 4", |b| b > 0.0;
    quantile: "a quantile q with 0 < q <= 1, e.g. 0.95", |q| q > 0.0 && q <= 1.0;
    /// E-model advantage factor A (G.107 Table 3: 0–20; seed 003 uses 40).
    advantage: "an advantage factor A with 0 <= A <= 40 (G.107 Table 3 allows 0–20; \
                values up to 40 are accepted and flagged as extrapolated)", |a| (0.0..=40.0).contains(&a);
    non_negative: "a number >= 0", |x| x >= 0.0;
    positive_number: "a number > 0", |x| x > 0.0;
    /// A fraction strictly between 0 and 1.
    open_fraction: "a number strictly between 0 and 1", |x| x > 0.0 && x < 1.0;
}

// ---------------------------------------------------------------------------
// Names

struct Name(&'static str);

impl<'de> Visitor<'de> for Name {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
        if s.trim().is_empty() {
            Err(E::custom(self.0))
        } else {
            Ok(s.to_string())
        }
    }
}

/// Labels and names: a non-empty string.
pub fn label<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    d.deserialize_str(Name("a non-empty string")).map(Some)
}

/// A node name (its existence is checked in validate/).
pub fn node<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    d.deserialize_str(Name("a node name (a non-empty string)"))
}

/// A file path (its existence and contents are checked in validate/;
/// the core takes a relative path from the working directory; the Python
/// loader first makes a scenario file's paths start at its folder).
pub fn file<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    d.deserialize_str(Name("a file path (a non-empty string)"))
}

pub fn file_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    file(d).map(Some)
}

/// The allowed text of `codec`.
pub fn codecs_text() -> String {
    format!("one of the codecs {}", crate::voice::codec::names().join(", "))
}

/// A codec name (looked up, with a did-you-mean, in validate/).
pub fn codec<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Codec;
    impl<'de> Visitor<'de> for Codec {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(&codecs_text())
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<String, E> {
            Ok(s.to_string())
        }
    }
    d.deserialize_str(Codec)
}

/// `between = ["a", "b"]`: two node names.
pub fn between<'de, D: Deserializer<'de>>(d: D) -> Result<[String; 2], D::Error> {
    const BETWEEN: &str = "two distinct node names, e.g. [\"a\", \"b\"]";
    struct NodeName(String);
    impl<'de> Deserialize<'de> for NodeName {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            node(d).map(NodeName)
        }
    }
    struct Pair;
    impl<'de> Visitor<'de> for Pair {
        type Value = [String; 2];
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(BETWEEN)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            if seq.size_hint() != Some(2) {
                return Err(de::Error::custom(BETWEEN));
            }
            let (Some(NodeName(a)), Some(NodeName(b))) = (seq.next_element()?, seq.next_element()?) else {
                return Err(de::Error::custom(BETWEEN));
            };
            Ok([a, b])
        }
    }
    d.deserialize_seq(Pair)
}

/// An array of tables with its own wrong-type text (`links`, `calls`, `traffic`).
fn tables<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    allowed: &'static str,
) -> Result<Vec<T>, D::Error> {
    struct Tables<T>(&'static str, PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Tables<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(t) = seq.next_element()? {
                out.push(t);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Tables(allowed, PhantomData))
}

pub const LINKS: &str = "an array of [[links]] tables (at least one), or a [topology] table";

pub fn links<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    tables(d, LINKS)
}

pub fn calls<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    tables(d, "an array of [[calls]] tables")
}

pub fn traffic<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    tables(d, "an array of [[traffic]] tables")
}

/// A name from a fixed list (`CcAlgorithm`, `Recovery`, `IdleRestart`):
/// read with `from_name`, written with `name`; errors list `names`.
pub fn named<'de, D: Deserializer<'de>, T>(
    d: D,
    names: &[&str],
    from_name: impl Fn(&str) -> Option<T>,
) -> Result<T, D::Error> {
    let allowed = super::de::one_of(names);
    let v = d
        .deserialize_str(Quantity {
            form: "a name",
            parse: |s: &str| Ok::<_, String>(s.to_string()),
            out: PhantomData,
        })
        .map_err(|_: D::Error| de::Error::custom(&allowed))?;
    from_name(&v).ok_or_else(|| de::Error::custom(allowed))
}
