//! DCCP connection setup (RFC 4340 §8.1), reduced to what moves time and
//! bytes: the client's Request (retransmitted with exponential backoff,
//! §8.1.1), the server's Response, the client's Ack, and the RTT each side
//! measures from it. Shared by CCID 2 and CCID 3/4.
//!
//! Teardown (RFC 4340 §8.3): the client (the sending side, the one whose
//! application stops) sends Close and retransmits it, first after two RTTs
//! and doubling up to 64 s, until a Reset arrives; the server answers a
//! Close with Reset (code 1, "Closed") and is closed; a Close that finds
//! the server already closed (its Reset was lost) is answered with Reset
//! code 3, "No Connection" (§8.5 step 1, §5.6). The client then holds
//! TIMEWAIT for 2 MSL (§8.3), in which nothing is sent. A CloseReq from
//! the server makes an open client close the same way (§8.3); the server
//! side of the model never sends one, since only senders stop.

use crate::net::wire::DccpType;
use crate::time::{SimDuration, SimTime};

/// The client (sender) side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Client {
    Closed,
    /// Request sent at `sent` (`NEVER`: a retransmission is due); resent
    /// after `rto`, doubling up to 64 s. `retried`: the RTT sample would be
    /// ambiguous (Karn).
    Requesting { sent: SimTime, rto: SimDuration, retried: bool },
    /// Response received: the handshake's Ack is due.
    AckDue,
    Open,
    /// The application closed: Close sent at `sent` (`NEVER`: a
    /// (re)transmission is due), resent after `rto` (RFC 4340 §8.3).
    Closing { sent: SimTime, rto: SimDuration },
    /// Reset received: TIMEWAIT until `until` (RFC 4340 §8.3).
    TimeWait { until: SimTime },
    /// After TIMEWAIT, or closed before the handshake completed: nothing
    /// more is sent (§8.3's CLOSED, as opposed to the initial `Closed`).
    Ended,
}

/// Longest Close retransmission interval (RFC 4340 §8.3: "not less than
/// once every 64 seconds").
const MAX_CLOSE_RTO: SimDuration = SimDuration::from_secs(64);

impl Client {
    pub fn new(handshake: bool) -> Self {
        if handshake {
            Client::Closed
        } else {
            Client::Open
        }
    }

    pub fn is_open(&self) -> bool {
        *self == Client::Open
    }

    /// The control packet to send now, if any (Request or Ack).
    pub fn poll(&mut self, now: SimTime, request_timeout: SimDuration) -> Option<DccpType> {
        match *self {
            Client::Closed => {
                *self = Client::Requesting { sent: now, rto: request_timeout, retried: false };
                Some(DccpType::Request)
            }
            Client::Requesting { sent: SimTime::NEVER, rto, retried } => {
                *self = Client::Requesting { sent: now, rto, retried };
                Some(DccpType::Request)
            }
            Client::AckDue => {
                *self = Client::Open;
                Some(DccpType::Ack)
            }
            Client::Closing { sent: SimTime::NEVER, rto } => {
                *self = Client::Closing { sent: now, rto };
                Some(DccpType::Close)
            }
            _ => None,
        }
    }

    /// A Response arrived: the RTT it measures, unless a retransmission
    /// made it ambiguous.
    pub fn on_response(&mut self, now: SimTime) -> Option<SimDuration> {
        let Client::Requesting { sent, retried, .. } = *self else { return None };
        *self = Client::AckDue;
        (!retried && sent != SimTime::NEVER).then(|| now.saturating_since(sent))
    }

    /// When the Request is to be retransmitted.
    pub fn timeout(&self) -> Option<SimTime> {
        match *self {
            Client::Requesting { sent, rto, .. } | Client::Closing { sent, rto } if sent != SimTime::NEVER => Some(sent + rto),
            Client::TimeWait { until } => Some(until),
            _ => None,
        }
    }

    /// The Request or Close timer fired: back off and resend (RFC 4340
    /// §8.1.1, §8.3); or TIMEWAIT ended.
    pub fn on_timeout(&mut self, now: SimTime) {
        match *self {
            Client::Requesting { sent, rto, .. } if sent != SimTime::NEVER && now >= sent + rto => {
                let rto = rto.mul(2).min(SimDuration::from_secs(64));
                *self = Client::Requesting { sent: SimTime::NEVER, rto, retried: true };
            }
            Client::Closing { sent, rto } if sent != SimTime::NEVER && now >= sent + rto => {
                *self = Client::Closing { sent: SimTime::NEVER, rto: rto.mul(2).min(MAX_CLOSE_RTO) };
            }
            Client::TimeWait { until } if now >= until => *self = Client::Ended,
            _ => {}
        }
    }

    /// The application closed (or the server sent CloseReq). An open
    /// connection sends Close, first retransmitted after `rto` (RFC 4340
    /// §8.3: two RTTs); one still in its handshake is abandoned silently.
    pub fn close(&mut self, rto: SimDuration) {
        *self = match *self {
            Client::Open => Client::Closing { sent: SimTime::NEVER, rto: rto.min(MAX_CLOSE_RTO) },
            Client::Closed | Client::Requesting { .. } | Client::AckDue => Client::Ended,
            other => other,
        };
    }

    /// A Reset arrived. While closing it completes the teardown: TIMEWAIT
    /// for `timewait` (2 MSL, RFC 4340 §8.3). True if it did.
    pub fn on_reset(&mut self, now: SimTime, timewait: SimDuration) -> bool {
        if let Client::Closing { .. } = *self {
            *self = Client::TimeWait { until: now + timewait };
            return true;
        }
        false
    }

    /// The connection is being or has been torn down.
    pub fn is_closing(&self) -> bool {
        matches!(self, Client::Closing { .. } | Client::TimeWait { .. } | Client::Ended)
    }
}

/// Reset Codes (RFC 4340 §5.6) the model sends.
pub const RESET_CLOSED: u8 = 1;
pub const RESET_NO_CONNECTION: u8 = 3;

/// The server (receiver) side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Server {
    Listen,
    /// Response sent at this time (`NEVER`: after a repeated Request, so
    /// its RTT sample is ambiguous).
    Responded(SimTime),
    Open,
    /// A Close was answered with Reset (RFC 4340 §8.3).
    Closed,
}

/// What a packet means to the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServerStep {
    /// Send a Response (to a Request, first or repeated, §8.1.2).
    Respond,
    /// The handshake completed; an RTT sample if unambiguous.
    Opened(Option<SimDuration>),
    /// Send a Reset with this code (RFC 4340 §5.6) in answer to a Close.
    Reset(u8),
    Nothing,
}

impl Server {
    pub fn new(handshake: bool) -> Self {
        if handshake {
            Server::Listen
        } else {
            Server::Open
        }
    }

    pub fn on_packet(&mut self, now: SimTime, ptype: DccpType) -> ServerStep {
        match (ptype, *self) {
            (DccpType::Close, Server::Closed) => ServerStep::Reset(RESET_NO_CONNECTION),
            (DccpType::Close, _) => {
                *self = Server::Closed;
                ServerStep::Reset(RESET_CLOSED)
            }
            (_, Server::Closed) => ServerStep::Nothing,
            (DccpType::Request, Server::Listen) => {
                *self = Server::Responded(now);
                ServerStep::Respond
            }
            (DccpType::Request, Server::Responded(_)) => {
                *self = Server::Responded(SimTime::NEVER);
                ServerStep::Respond
            }
            (_, Server::Responded(sent)) => {
                *self = Server::Open;
                ServerStep::Opened((sent != SimTime::NEVER).then(|| now.saturating_since(sent)))
            }
            _ => ServerStep::Nothing,
        }
    }

    pub fn is_closed(&self) -> bool {
        *self == Server::Closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimDuration {
        SimDuration::from_millis(n)
    }
    fn at(n: u64) -> SimTime {
        SimTime::ZERO + ms(n)
    }

    /// RFC 4340 §8.3 on both sides: Close, Reset (Closed), TIMEWAIT of the
    /// configured length on the closer, nothing sent afterwards.
    #[test]
    fn close_reset_timewait() {
        let (mut c, mut s) = (Client::new(false), Server::new(false));
        c.close(ms(200)); // 2 RTT with R = 100 ms
        assert_eq!(c.poll(at(0), ms(3000)), Some(DccpType::Close));
        assert_eq!(c.poll(at(0), ms(3000)), None);
        assert_eq!(c.timeout(), Some(at(200)));
        assert_eq!(s.on_packet(at(50), DccpType::Close), ServerStep::Reset(RESET_CLOSED));
        assert!(s.is_closed());
        // data still in flight after the Close is ignored by the server
        assert_eq!(s.on_packet(at(51), DccpType::Data), ServerStep::Nothing);
        assert!(c.on_reset(at(100), ms(240_000)));
        assert_eq!(c, Client::TimeWait { until: at(240_100) });
        assert_eq!(c.poll(at(150), ms(3000)), None);
        c.on_timeout(at(240_099));
        assert!(matches!(c, Client::TimeWait { .. }));
        c.on_timeout(at(240_100));
        assert_eq!(c, Client::Ended);
        assert_eq!((c.poll(at(240_200), ms(3000)), c.timeout()), (None, None));
        // a second Reset changes nothing
        assert!(!c.on_reset(at(240_300), ms(1)));
    }

    /// A lost Close is resent after 2 RTT, then 4, 8 … RTT, never more
    /// than 64 s apart (RFC 4340 §8.3); the server, already closed because
    /// its Reset was the one lost, answers No Connection (§8.5, §5.6).
    #[test]
    fn lost_close_is_retransmitted_with_backoff() {
        let mut c = Client::new(false);
        c.close(ms(200));
        let mut t = 0;
        let mut sends = vec![];
        while sends.len() < 12 {
            if let Some(p) = c.poll(at(t), ms(3000)) {
                assert_eq!(p, DccpType::Close);
                sends.push(t);
            }
            t = c.timeout().unwrap().saturating_since(SimTime::ZERO).as_millis_f64().round() as u64;
            c.on_timeout(at(t));
        }
        let gaps: Vec<u64> = sends.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(&gaps[..9], &[200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 51_200]);
        assert_eq!(&gaps[9..], &[64_000, 64_000]);
        let mut s = Server::new(false);
        assert_eq!(s.on_packet(at(0), DccpType::Close), ServerStep::Reset(RESET_CLOSED));
        assert_eq!(s.on_packet(at(200), DccpType::Close), ServerStep::Reset(RESET_NO_CONNECTION));
        assert!(c.on_reset(at(t), ms(1000)));
    }

    /// Closing before the handshake completed sends nothing (the
    /// connection never opened); closing twice sends one Close.
    #[test]
    fn close_before_open_and_twice() {
        let mut c = Client::new(true);
        assert_eq!(c.poll(at(0), ms(1000)), Some(DccpType::Request));
        c.close(ms(200));
        assert_eq!(c, Client::Ended);
        assert_eq!((c.poll(at(1), ms(1000)), c.timeout()), (None, None));
        let mut c = Client::new(false);
        c.close(ms(200));
        assert_eq!(c.poll(at(0), ms(1000)), Some(DccpType::Close));
        c.close(ms(200));
        assert_eq!(c.poll(at(0), ms(1000)), None);
        assert_eq!(c.timeout(), Some(at(200)));
    }
}
