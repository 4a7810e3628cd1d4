//! The simulation engine: building a world from a scenario and running it.

pub mod record;
pub mod world;

pub use record::{CallRecord, NetFate};
pub use world::World;
