//! Results as columns: per-packet trace, per-call summaries, link and
//! traffic counters, endpoint time series.

pub mod bounds;
pub mod calls;
pub mod packets;
pub mod record;
pub mod report;
pub mod summary;
pub mod table;

pub use record::{CallRecord, NetFate};
pub use report::{call_tables, report, score_all, CallTables, Report};
pub use table::{Column, Table};
