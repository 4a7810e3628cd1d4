//! Call scoring: turns a call's per-packet records (`trace::record`) into
//! its row — the playout buffer's outcome, the metrics, the E-model in both
//! forms and the offline bounds — and builds the tables of scored calls.
//! It reads records; `trace` does not own it.

pub mod config;

pub use config::AnalysisCfg;
