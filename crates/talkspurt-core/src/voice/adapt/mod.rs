//! Sender adaptation: algorithms that change the voice source's ptime (or
//! rate) from what RTCP reports (`rtp::RtcpEvent`). One algorithm per
//! file, chosen by name; parameters default to their papers' values.
//! Each returns the ptime to use from the next packet on, in ms, when it
//! changes. Models and readings: docs/models/rtp.md.

pub mod busse;
pub mod patent;

pub use busse::{Busse1996, BusseCfg};
pub use patent::{Patent, PatentCfg};

use crate::rtp::RtcpEvent;

#[derive(Debug)]
pub enum Adapter {
    /// Fixed ptime: reports are heard and ignored (seed 001's "None").
    None,
    Patent(Patent),
    Busse1996(Busse1996),
}

impl Adapter {
    /// A report or NACK arrived; `Some(ms)` is the new ptime.
    pub fn on_event(&mut self, ev: &RtcpEvent) -> Option<u32> {
        match self {
            Adapter::None => None,
            Adapter::Patent(a) => a.on_event(ev),
            Adapter::Busse1996(a) => a.on_event(ev),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Adapter::None => "none",
            Adapter::Patent(_) => "patent",
            Adapter::Busse1996(_) => "busse1996",
        }
    }
}

/// One step up, bounded (seed 001 §4.5.2: a NACK adds `step` up to the
/// codec's maximum).
fn step_up(cur: u32, step: u32, max: u32) -> u32 {
    (cur + step).min(max)
}
