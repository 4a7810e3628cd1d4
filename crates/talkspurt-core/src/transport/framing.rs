//! Message framing over a byte stream (RFC 4571 style length prefixes):
//! the receiving application finds each message's end in the in-order
//! bytes the transport delivers. The simulator carries no payload bytes,
//! so the framer keeps the ends the sending application wrote — what the
//! length prefixes would have told the reader.

use crate::net::wire::RtpHeader;
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct StreamFramer {
    /// (stream offset just past the message, application unit, the RTP
    /// header at the message's start).
    ends: VecDeque<(u64, u32, Option<RtpHeader>)>,
    written: u64,
    delivered: u64,
}

impl StreamFramer {
    /// The sender wrote a message of `bytes` (prefix included).
    pub fn wrote(&mut self, bytes: u64, app_seq: u32, rtp: Option<RtpHeader>) {
        self.written += bytes;
        self.ends.push_back((self.written, app_seq, rtp));
    }

    /// `bytes` more in-order bytes reached the reader; calls `complete`
    /// for every message now whole, in order.
    pub fn delivered(&mut self, bytes: u64, mut complete: impl FnMut(u32, Option<RtpHeader>)) {
        self.delivered += bytes;
        while let Some(&(end, seq, rtp)) = self.ends.front() {
            if end > self.delivered {
                break;
            }
            self.ends.pop_front();
            complete(seq, rtp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_complete_when_their_last_byte_arrives() {
        let mut f = StreamFramer::default();
        for (i, n) in [100u64, 50, 200].iter().enumerate() {
            f.wrote(*n, i as u32, None);
        }
        let mut got = Vec::new();
        f.delivered(120, |s, _| got.push(s));
        assert_eq!(got, vec![0]);
        f.delivered(30, |s, _| got.push(s));
        assert_eq!(got, vec![0, 1]);
        f.delivered(199, |s, _| got.push(s));
        assert_eq!(got, vec![0, 1]);
        f.delivered(1, |s, _| got.push(s));
        assert_eq!(got, vec![0, 1, 2]);
    }
}
