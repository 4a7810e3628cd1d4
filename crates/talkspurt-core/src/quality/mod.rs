//! Call quality: the ITU-T G.107 E-model, the simplified Cole–Rosenbluth
//! model of seed 000, and per-call statistics (jitter, percentiles, loss
//! bursts). Pure functions, no I/O, no external crates.
//!
//! - [`mod@emodel`]: full G.107 (12/2011) E-model, R and its terms;
//!   [`params`]: its inputs, Table 3 defaults and range checks.
//! - [`mos`]: R ↔ MOS (G.107 Annex B) and quality bands (seed 000 Table 4.2).
//! - [`simplified`]: R = 94.2 − Ie − Id of Cole and Rosenbluth.
//! - [`stats`]: RFC 3550 interarrival jitter, mean, percentiles.
//! - [`sketch`]: percentiles in bounded memory (log-bucket histogram).
//! - [`burst`]: Gilbert p, q, BurstR and run lengths from a loss sequence.
//! - [`codec_impairments`]: Ie and Bpl per codec (G.113 Appendix I).
//! - [`mode_mix`]: Ie,eff of a call that switches codec modes.
//!
//! Formulas and sources: `docs/models/emodel.md`, `docs/models/statistics.md`.

pub mod burst;
pub mod counts;
pub mod sketch;
pub mod codec_impairments;
pub mod emodel;
pub mod mode_mix;
pub mod mos;
pub mod params;
pub mod simplified;
pub mod stats;

pub use burst::{burst_stats, burst_stats_of_runs, run_lengths, BurstStats, RunLengths, Transitions};
pub use codec_impairments::{bpl_packet_ms, codec_impairment, CODEC_IMPAIRMENTS};
pub use mode_mix::{ie_eff_mixed, ModeShare};
pub use emodel::{emodel, emodel_extended, ie_eff, EModelCurve, EModelParams, EModelResult, KeptCurve, IE_EFF_MAX};
pub use params::in_g107_range;
pub use mos::{mos_from_r, quality_band, quality_band_index, r_from_mos, QUALITY_BANDS, R_MOS1, USER_SATISFACTION};
pub use simplified::{
    delay_impairment_simplified, R0_SIMPLIFIED, loss_impairment_simplified, r_simplified, LAMBDA_G711,
    LAMBDA_G729, LAMBDA_G729A_VAD,
};
pub use stats::{interarrival_jitter_ns, mean, percentile, percentile_of_sorted, percentile_of_sorted_by};
