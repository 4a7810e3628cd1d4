//! Results as columns: per-packet trace, per-call summaries, link and
//! traffic counters, endpoint time series.

pub mod packets;
pub mod record;
pub mod report;
pub mod table;

pub use record::{CallRecord, NetFate};
pub use report::{report, Report};
pub use table::{Column, Table};
