//! Results as columns: per-packet trace, per-call summaries, link and
//! traffic counters, endpoint time series.

pub mod calls;
pub mod packets;
pub mod report;
pub mod table;

pub use report::{report, Report};
pub use table::{Column, Table};
