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

/// How many sends in SACK recovery had their running sums checked against
/// a walk of the scoreboard so far (0 without debug assertions, where the
/// check is off): lets tests/tcp.rs show that its loss runs exercised it.
#[doc(hidden)]
pub fn scoreboard_walk_checks() -> u64 {
    #[cfg(debug_assertions)]
    return recovery::WALK_CHECKS.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(debug_assertions))]
    0
}
