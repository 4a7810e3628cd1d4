//! talkspurt core: a deterministic, packet-level simulator of voice calls
//! over transport protocols.
//!
//! Layers, bottom up; a module uses only those below it (nothing reaches
//! upward, checked by `tests/layers.rs`):
//! `time`, `rng`, `sched`, `net`, `transport`, `voice`, `traffic`,
//! `playout`, `quality`, `trace` (per-packet records, columnar tables),
//! `metrics`, `score` (a call's records → its row), `sim` (the world),
//! `scenario` (model, parser, builder), `rescore`, `run` (top: one
//! scenario start to finish, the `Report`). What each owns:
//! docs/models/engine.md, "Layers"; see also DESIGN.md.

pub mod cc;
pub mod net;
pub mod rng;
pub mod rtp;
pub mod scenario;
pub mod sched;
pub mod sim;
pub mod time;
pub mod traffic;
pub mod transport;
pub mod voice;
pub mod playout;
pub mod quality;
pub mod rescore;
pub mod run;
pub mod score;
pub mod trace;
pub mod metrics;
