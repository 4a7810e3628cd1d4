//! The network: nodes, link directions (channels) with queues and loss, and
//! static routing. Knows nothing of transports beyond packet sizes.

pub mod capacity;
pub mod channel;
pub mod jitter;
pub mod loss;
pub mod packet;
pub mod queue;
pub mod topology;
pub mod wire;

pub use channel::{Channel, ChannelStats, Offer};
pub use packet::{Dir, Ecn, FlowId, Header, NodeId, Packet, NO_APP};
pub use topology::Topology;
