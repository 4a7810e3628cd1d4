//! The network: nodes, link directions (channels) with queues (drop-tail,
//! RED, CoDel, FQ-CoDel, PIE) and loss, and
//! static routing. Knows nothing of transports beyond packet sizes.

pub mod background;
pub mod capacity;
pub mod channel;
pub mod codel;
pub mod fq_codel;
mod held;
pub mod jitter;
pub mod loss;
pub mod packet;
pub mod pcap;
pub mod pie;
pub mod queue;
pub mod red;
pub mod topology;
pub mod wire;

pub use channel::{Channel, ChannelStats, Offer};
pub use packet::{AppHeader, Dir, Ecn, FlowId, Header, NodeId, Packet, NO_APP};
pub use topology::Topology;
