//! talkspurt core: a deterministic, packet-level simulator of voice calls
//! over transport protocols. Layers, bottom up (nothing reaches upward):
//! `time`, `rng`, `sched`, `net`, `transport`, `voice`/`traffic`, `sim`,
//! `scenario`. See DESIGN.md.

pub mod net;
pub mod rng;
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
