//! The bounded FIFO of application units between an application and a
//! datagram transport (UDP, DCCP): a unit that finds it full comes back to
//! the application, which counts a sender drop (seed 000's five-packet
//! buffer, seed 003's P_TP).

use super::AppUnit;
use std::collections::VecDeque;

/// Bounded FIFO between the application and a transport: the shared piece
/// every sender uses for its send buffer.
#[derive(Debug)]
pub struct SendBuffer {
    cap: usize,
    q: VecDeque<AppUnit>,
}

impl SendBuffer {
    pub fn new(cap: u32) -> Self {
        SendBuffer { cap: cap.max(1) as usize, q: VecDeque::new() }
    }
    pub fn push(&mut self, u: AppUnit) -> Result<(), AppUnit> {
        if self.q.len() >= self.cap {
            return Err(u);
        }
        self.q.push_back(u);
        Ok(())
    }
    pub fn pop(&mut self) -> Option<AppUnit> {
        self.q.pop_front()
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

