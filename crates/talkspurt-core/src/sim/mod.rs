//! The simulation engine: the world (topology, flows, applications) and its
//! event loop. Each call writes its per-packet records (`trace::record`).

mod apps;
mod arena;
pub mod capture;
mod flow_path;
mod path;
mod prefetch;
mod rtcp;
mod timer;
mod trunk;
mod voice;
pub mod records;
pub mod world;

pub use trunk::{TrunkApp, NO_TRUNK};
pub use voice::{VoiceRoute, NO_VOICE_ROUTE};
pub use world::World;
