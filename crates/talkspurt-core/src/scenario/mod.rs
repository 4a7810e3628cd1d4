//! Scenario files: the typed model, the parser with key-path errors, and
//! unit parsing. See docs/scenario.md for the reference.

pub mod build;
pub mod error;
pub mod model;
pub mod parse;
pub mod units;

pub use build::build;
pub use error::ScenarioError;
pub use model::*;
pub use parse::{from_json_str, from_toml_str, from_value};
