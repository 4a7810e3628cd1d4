//! DCCP connection setup (RFC 4340 §8.1), reduced to what moves time and
//! bytes: the client's Request (retransmitted with exponential backoff,
//! §8.1.1), the server's Response, the client's Ack, and the RTT each side
//! measures from it. Shared by CCID 2 and CCID 3/4. Close is not modelled.

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
}

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
            Client::Requesting { sent, rto, .. } if sent != SimTime::NEVER => Some(sent + rto),
            _ => None,
        }
    }

    /// The Request timer fired: back off and resend (RFC 4340 §8.1.1).
    pub fn on_timeout(&mut self, now: SimTime) {
        if let Client::Requesting { sent, rto, .. } = *self {
            if sent != SimTime::NEVER && now >= sent + rto {
                let rto = rto.mul(2).min(SimDuration::from_secs(64));
                *self = Client::Requesting { sent: SimTime::NEVER, rto, retried: true };
            }
        }
    }
}

/// The server (receiver) side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Server {
    Listen,
    /// Response sent at this time (`NEVER`: after a repeated Request, so
    /// its RTT sample is ambiguous).
    Responded(SimTime),
    Open,
}

/// What a packet means to the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServerStep {
    /// Send a Response (to a Request, first or repeated, §8.1.2).
    Respond,
    /// The handshake completed; an RTT sample if unambiguous.
    Opened(Option<SimDuration>),
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
}
