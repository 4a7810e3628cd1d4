//! Scenario files: the typed model (derives its parsing), the reader with
//! key-path errors, validation across keys, and unit parsing. See
//! docs/scenario.md for the reference.
//!
//! | file | what |
//! |---|---|
//! | `model/` | the scenario types and their defaults (`link.rs`: links; `traffic.rs`: cross traffic) |
//! | `doc/` | tables whose file shape differs from the model; serde shapes of other layers' configs (`defs.rs`) |
//! | `tcp.rs` | the TCP transport table |
//! | `tfrc.rs` | the DCCP (CCID 3/4) and TFRC transport tables |
//! | `queue.rs` | the AQM queue tables (RED, CoDel, FQ-CoDel, PIE) |
//! | `fields.rs` | single values: units, ranges, names |
//! | `units.rs` | quantities with units (parse and format) |
//! | `de.rs`, `ser.rs` | the document reader (paths, tagged tables) and writer |
//! | `validate/` | checks across keys; defaults that depend on other keys (`call.rs`, `traffic.rs`, `transport.rs`) |
//! | `topology.rs` | `[topology]` and `both_ways`, expanded into links and groups before reading |
//! | `links.rs` | link models' checks: loss, jitter, schedules, trace files |
//! | `parse.rs` | `from_toml_str`, `from_json_str`, `from_value`, `to_json` |
//! | `toml_doc.rs` | a TOML document as JSON (one-line syntax errors; dates, `nan`, `inf` refused) |
//! | `build.rs` | `Scenario` → `World` |
//! | `calls.rs` | the calls as scoring sees them (`score::CallInfo`) |

pub mod build;
pub mod calls;
mod de;
mod doc;
pub mod error;
mod fields;
mod links;
pub mod model;
pub mod parse;
pub mod queue;
pub mod rtp;
pub mod toml_doc;
mod ser;
mod speech;
mod tcp;
pub mod tfrc;
mod topology;
pub mod trunk;
pub mod units;
mod validate;

pub use build::build;
pub(crate) use calls::call_info;
pub use calls::group_codec;
pub use calls::transport_name;
pub use error::ScenarioError;
pub use rtp::{AdaptCfg, FeedbackCfg, RtcpCfg};
pub use model::*;
pub use parse::{from_json_str, from_toml_str, from_value, to_json};
