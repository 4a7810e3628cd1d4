//! TCP (RFC 9293) as a sans-IO pair of endpoints carrying data one way.
//! Model and what is simplified: docs/models/tcp.md.

pub mod config;
pub mod receiver;
mod recovery;
mod scoreboard;
pub mod sender;

pub use config::{IdleRestart, InitialWindow, SendLimit, TcpConfig};
pub use receiver::TcpReceiver;
pub use sender::{TcpCounters, TcpSender, TcpStats};
#[cfg(test)]
mod tests;
