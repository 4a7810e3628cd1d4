//! The simulation engine: the world (topology, flows, applications) and its
//! event loop. Each call writes its per-packet records (`trace::record`).

mod arena;
pub mod capture;
mod path;
mod prefetch;
pub mod world;

pub use world::World;
