//! Scenario files: the typed model, the parser with key-path errors, unit
//! parsing, the builder (scenario → `sim::World`) and the calls as scoring
//! sees them (scenario → `score::CallInfo`). See docs/scenario.md for the
//! reference.

pub mod build;
pub mod calls;
pub mod error;
pub mod model;
pub mod parse;
pub mod units;

pub use build::build;
pub(crate) use calls::call_info;
pub use calls::transport_name;
pub use error::ScenarioError;
pub use model::*;
pub use parse::{from_json_str, from_toml_str, from_value};
