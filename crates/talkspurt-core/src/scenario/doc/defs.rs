//! Serde shapes of configs that other layers define (packet sizes, delay
//! models, scoring modes, RTPI's missing-predecessor rule, playout
//! buffers), derived with `#[serde(remote = …)]` so those layers stay free
//! of file-format concerns.

use super::*;


/// `packet = "1000B"` or `{ kind = "exponential", mean = "500B" }`.
#[derive(Deserialize, Serialize)]
#[serde(
    remote = "SizeDist",
    rename = "@kind scalar=fixed",
    deny_unknown_fields,
    expecting = "a packet size such as \"1000B\", or { kind = \"exponential\", mean = \"500B\" }"
)]
pub enum SizeDistDef {
    #[serde(rename = "fixed")]
    Fixed {
        #[serde(with = "fields::packet_size")]
        bytes: u32,
    },
    /// Mean 1–65535 B, may be fractional; draws are rounded, at least 1.
    #[serde(rename = "exponential")]
    Exponential {
        #[serde(rename = "mean", with = "fields::mean_bytes")]
        mean_bytes: f64,
    },
}

/// `[analysis] delay`: which mouth-to-ear delay the E-model scores.
#[derive(Deserialize, Serialize)]
#[serde(remote = "DelayModel")]
pub enum DelayDef {
    #[serde(rename = "playout")]
    Playout,
    #[serde(rename = "avella")]
    Avella,
}

/// `[analysis] scoring`: exact over stored records, or streaming.
#[derive(Deserialize, Serialize)]
#[serde(remote = "Scoring")]
pub enum ScoringDef {
    #[serde(rename = "exact")]
    Exact,
    #[serde(rename = "streaming")]
    Streaming,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "MissingPredecessor")]
pub enum MissingDef {
    #[serde(rename = "timely")]
    Timely,
    #[serde(rename = "delayed")]
    Delayed,
    #[serde(rename = "previous-arrival")]
    PreviousArrival,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "RtpiSilence")]
pub enum SilenceDef {
    #[serde(rename = "count")]
    Count,
    #[serde(rename = "exclude")]
    Exclude,
}

/// Playout buffers by `kind`; each accepts only its own keys, all
/// optional, defaults from the playout module's `Default`s.
#[derive(Deserialize, Serialize)]
#[serde(
    remote = "PlayoutKind",
    rename = "@kind default=fixed",
    deny_unknown_fields,
    expecting = "a playout table, e.g. { kind = \"fixed\", delay = \"150ms\" }"
)]
pub enum PlayoutDef {
    #[serde(rename = "fixed")]
    Fixed(#[serde(with = "FixedDelayDef")] FixedDelay),
    #[serde(rename = "fixed-depth")]
    FixedDepth(#[serde(with = "FixedDepthDef")] FixedDepth),
    #[serde(rename = "ramjee-1")]
    RamjeeEwma(#[serde(with = "RamjeeEwmaDef")] RamjeeEwma),
    #[serde(rename = "ramjee-2")]
    RamjeeAsymmetric(#[serde(with = "RamjeeAsymmetricDef")] RamjeeAsymmetric),
    #[serde(rename = "ramjee-3")]
    RamjeeMinDelay(#[serde(with = "RamjeeMinDelayDef")] RamjeeMinDelay),
    #[serde(rename = "ramjee-4")]
    RamjeeSpike(#[serde(with = "RamjeeSpikeDef")] RamjeeSpike),
    #[serde(rename = "quantile")]
    Quantile(#[serde(with = "QuantileBufferDef")] QuantileBuffer),
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "FixedDelay", default = "FixedDelay::default", deny_unknown_fields)]
struct FixedDelayDef {
    #[serde(with = "fields::ns")]
    delay: u64,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "FixedDepth", default = "FixedDepth::default", deny_unknown_fields)]
struct FixedDepthDef {
    #[serde(rename = "depth", with = "fields::PacketInt::<1, 1000000>")]
    depth_packets: u32,
    /// Filled in with the call's ptime by validate/ when not given.
    #[serde(with = "fields::ns_positive_opt", skip_serializing_if = "Option::is_none")]
    ptime: Option<u64>,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "RamjeeEwma", default = "RamjeeEwma::default", deny_unknown_fields)]
struct RamjeeEwmaDef {
    #[serde(deserialize_with = "fields::weight")]
    alpha: f64,
    #[serde(deserialize_with = "fields::multiplier")]
    beta: f64,
    /// Absent: half the first packet's delay (playout::ramjee).
    #[serde(with = "fields::ns_opt", skip_serializing_if = "Option::is_none")]
    initial_variation: Option<u64>,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "RamjeeAsymmetric", default = "RamjeeAsymmetric::default", deny_unknown_fields)]
struct RamjeeAsymmetricDef {
    #[serde(deserialize_with = "fields::weight")]
    alpha: f64,
    #[serde(deserialize_with = "fields::multiplier")]
    beta: f64,
    /// Absent: half the first packet's delay (playout::ramjee).
    #[serde(with = "fields::ns_opt", skip_serializing_if = "Option::is_none")]
    initial_variation: Option<u64>,
    #[serde(deserialize_with = "fields::weight")]
    alpha_increase: f64,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "RamjeeMinDelay", default = "RamjeeMinDelay::default", deny_unknown_fields)]
struct RamjeeMinDelayDef {
    #[serde(deserialize_with = "fields::weight")]
    alpha: f64,
    #[serde(deserialize_with = "fields::multiplier")]
    beta: f64,
    /// Absent: half the first packet's delay (playout::ramjee).
    #[serde(with = "fields::ns_opt", skip_serializing_if = "Option::is_none")]
    initial_variation: Option<u64>,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "RamjeeSpike", default = "RamjeeSpike::default", deny_unknown_fields)]
struct RamjeeSpikeDef {
    #[serde(deserialize_with = "fields::weight")]
    alpha: f64,
    #[serde(deserialize_with = "fields::multiplier")]
    beta: f64,
    /// Absent: half the first packet's delay (playout::ramjee).
    #[serde(with = "fields::ns_opt", skip_serializing_if = "Option::is_none")]
    initial_variation: Option<u64>,
    #[serde(with = "fields::ns_positive")]
    spike_threshold: u64,
    #[serde(with = "fields::ns_positive")]
    spike_end: u64,
}

#[derive(Deserialize, Serialize)]
#[serde(remote = "QuantileBuffer", default = "QuantileBuffer::default", deny_unknown_fields)]
struct QuantileBufferDef {
    #[serde(deserialize_with = "fields::quantile")]
    quantile: f64,
    #[serde(with = "fields::PacketInt::<1, 1000000>")]
    window: usize,
    #[serde(with = "fields::ns")]
    min_depth: u64,
    #[serde(with = "fields::ns")]
    max_depth: u64,
    #[serde(with = "fields::PacketInt::<0, 1000000>")]
    min_packets: u32,
    /// Filled in with the call's ptime by validate/ when not given.
    #[serde(with = "fields::ns_positive_opt", skip_serializing_if = "Option::is_none")]
    ptime: Option<u64>,
}
