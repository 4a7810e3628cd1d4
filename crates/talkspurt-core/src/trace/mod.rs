//! Per-packet records and results as columns: the records a call writes
//! while the world runs (`record/`), the typed columnar tables handed to
//! Python (`table.rs`) and the per-packet table built from the records
//! (`packets.rs`), and the huge-page region holding every call's current
//! record block (`slab.rs`). Cheap when off: without the trace only the columns
//! scoring needs are kept.

pub mod packets;
mod pack;
pub mod record;
pub(crate) mod slab;
mod slots;
pub mod table;

pub use record::{CallRecord, Columns, NetFate};
pub use table::{Column, Table};
