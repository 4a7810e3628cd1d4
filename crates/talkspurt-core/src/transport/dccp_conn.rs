//! DCCP connection setup (RFC 4340 §8.1), reduced to what moves time and
//! bytes: the client's Request (retransmitted with exponential backoff,
//! §8.1.1), the server's Response, the client's Ack, and the RTT each side
//! measures from it. Shared by CCID 2 and CCID 3/4.
//!
//! Teardown (RFC 4340 §8.3). The side that ends the connection is chosen
//! by `Closer`:
//! - client (the sending side, whose application stops): it sends Close
//!   and retransmits it, first after two RTTs and doubling up to 64 s,
//!   until a Reset arrives; the server answers with Reset (code 1,
//!   "Closed") and is closed; the client holds TIMEWAIT (2 MSL by default),
//!   in which nothing is sent.
//! - server (the receiving side): it sends CloseReq, retransmitted the same
//!   way until a Close arrives; the client answers with Close once its send
//!   buffer has drained, then as above: the server Resets, the client
//!   holds TIMEWAIT. So TIMEWAIT stays with the client either way, which is
//!   what CloseReq is for (§8.3).
//!
//! Packets that find the other side in a state where they are not
//! expected follow RFC 4340 §8.5's packet processing (steps cited below);
//! Sync (§7.5) is not modelled, so the branches that send one do nothing.

use crate::net::wire::DccpType;
use crate::time::{SimDuration, SimTime};

/// Which side ends the connection (RFC 4340 §8.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Closer {
    /// The client (data sender) sends Close when its application stops.
    #[default]
    Client,
    /// The server (data receiver) sends CloseReq when the application
    /// stops, and the client answers Close.
    Server,
}

impl Closer {
    pub const ALL: [Closer; 2] = [Closer::Client, Closer::Server];
    pub fn name(self) -> &'static str {
        match self {
            Closer::Client => "client",
            Closer::Server => "server",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Closer::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// Teardown packets one endpoint sent, retransmissions included (the
/// results' `dccp_*_sent` columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Teardown {
    pub close: u64,
    pub close_req: u64,
    pub reset: u64,
}

impl std::ops::Add for Teardown {
    type Output = Teardown;
    fn add(self, o: Teardown) -> Teardown {
        Teardown { close: self.close + o.close, close_req: self.close_req + o.close_req, reset: self.reset + o.reset }
    }
}

/// Reset Codes (RFC 4340 §5.6) the model sends.
pub const RESET_CLOSED: u8 = 1;
pub const RESET_ABORTED: u8 = 2;
pub const RESET_NO_CONNECTION: u8 = 3;
pub const RESET_PACKET_ERROR: u8 = 4;

/// Longest Close and CloseReq retransmission interval (RFC 4340 §8.3:
/// "not less than once every 64 seconds").
const MAX_CLOSE_RTO: SimDuration = SimDuration::from_secs(64);

/// A control packet to send: its type and, for a Reset, its code.
pub type Control = (DccpType, u8);

/// The client's states (RFC 4340 §8, the client's half of its diagram).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum State {
    Closed,
    /// REQUEST: Request sent at `sent` (`NEVER`: a retransmission is
    /// due); resent after `rto`, doubling up to 64 s. `retried`: the RTT
    /// sample would be ambiguous (Karn).
    Requesting { sent: SimTime, rto: SimDuration, retried: bool },
    /// PARTOPEN: the Response arrived, the handshake's Ack is due.
    AckDue,
    Open,
    /// CLOSING: Close sent at `sent` (`NEVER`: a (re)transmission is due),
    /// resent after `rto` (RFC 4340 §8.3).
    Closing { sent: SimTime, rto: SimDuration },
    /// Reset received: TIMEWAIT until `until` (RFC 4340 §8.3, §8.5 step 9).
    TimeWait { until: SimTime },
    /// After TIMEWAIT, after answering a Close, or abandoned before the
    /// handshake completed: §8's CLOSED, as opposed to the initial
    /// `Closed` (no connection attempted yet).
    Ended,
}

/// The client (sender) side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Client {
    pub state: State,
    /// A Reset to send at the next poll, with its code.
    reset_due: Option<u8>,
    pub sent: Teardown,
    /// The Response moved the client out of REQUEST and the application
    /// has not yet been told (`take_opened`).
    opened: bool,
}

/// What a packet from the server asks of the client's sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClientStep {
    /// CloseReq in PARTOPEN or OPEN (RFC 4340 §8.5 step 13): close, after
    /// the send buffer drains (as Linux's passive close lets the
    /// application finish; §8.5 step 16 lets CLOSING data be processed).
    CloseRequested,
    /// A Reset tore the connection down (§8.5 step 9).
    Reset,
    Nothing,
}

impl Client {
    pub fn new(handshake: bool) -> Self {
        Client { state: if handshake { State::Closed } else { State::Open }, reset_due: None, sent: Teardown::default(), opened: false }
    }

    pub fn is_open(&self) -> bool {
        self.state == State::Open
    }

    /// Once, after the Response arrived: the connection can carry data
    /// (RFC 4340 §8.1.5: the client may send data from PARTOPEN on; a
    /// blocking `connect()` returns here). False for a connection that
    /// was open from the start (no handshake).
    pub fn take_opened(&mut self) -> bool {
        std::mem::take(&mut self.opened)
    }

    /// The control packet to send now, if any (Request, Ack, Close or
    /// Reset).
    pub fn poll(&mut self, now: SimTime, request_timeout: SimDuration) -> Option<Control> {
        if let Some(code) = self.reset_due.take() {
            self.sent.reset += 1;
            return Some((DccpType::Reset, code));
        }
        let t = match self.state {
            State::Closed => {
                self.state = State::Requesting { sent: now, rto: request_timeout, retried: false };
                DccpType::Request
            }
            State::Requesting { sent: SimTime::NEVER, rto, retried } => {
                self.state = State::Requesting { sent: now, rto, retried };
                DccpType::Request
            }
            State::AckDue => {
                self.state = State::Open;
                DccpType::Ack
            }
            State::Closing { sent: SimTime::NEVER, rto } => {
                self.state = State::Closing { sent: now, rto };
                self.sent.close += 1;
                DccpType::Close
            }
            _ => return None,
        };
        Some((t, 0))
    }

    /// A Response arrived: the RTT it measures, unless a retransmission
    /// made it ambiguous.
    pub fn on_response(&mut self, now: SimTime) -> Option<SimDuration> {
        let State::Requesting { sent, retried, .. } = self.state else { return None };
        self.state = State::AckDue;
        self.opened = true;
        (!retried && sent != SimTime::NEVER).then(|| now.saturating_since(sent))
    }

    /// When the Request or Close is to be retransmitted, or TIMEWAIT ends.
    pub fn timeout(&self) -> Option<SimTime> {
        match self.state {
            State::Requesting { sent, rto, .. } | State::Closing { sent, rto } if sent != SimTime::NEVER => Some(sent + rto),
            State::TimeWait { until } => Some(until),
            _ => None,
        }
    }

    /// The Request or Close timer fired: back off and resend (RFC 4340
    /// §8.1.1, §8.3); or TIMEWAIT ended.
    pub fn on_timeout(&mut self, now: SimTime) {
        match self.state {
            State::Requesting { sent, rto, .. } if sent != SimTime::NEVER && now >= sent + rto => {
                let rto = rto.mul(2).min(SimDuration::from_secs(64));
                self.state = State::Requesting { sent: SimTime::NEVER, rto, retried: true };
            }
            State::Closing { sent, rto } if sent != SimTime::NEVER && now >= sent + rto => {
                self.state = State::Closing { sent: SimTime::NEVER, rto: rto.mul(2).min(MAX_CLOSE_RTO) };
            }
            State::TimeWait { until } if now >= until => self.state = State::Ended,
            _ => {}
        }
    }

    /// The application closed (or answered a CloseReq). The Close is first
    /// retransmitted after `rto` (RFC 4340 §8.3: two RTTs).
    pub fn close(&mut self, rto: SimDuration) {
        self.state = match self.state {
            // No Request sent yet: there is no connection to end.
            State::Closed => State::Ended,
            // RFC 4340 §8.1.1: a client giving up on its Requests sends
            // Reset "Aborted", in case one of them arrived.
            State::Requesting { .. } => {
                self.reset_due = Some(RESET_ABORTED);
                State::Ended
            }
            // PARTOPEN closes like OPEN (§8.3); the Close acknowledges the
            // Response, which moves the server on to OPEN and then to its
            // Reset (§8.5 steps 11, 14).
            State::AckDue | State::Open => State::Closing { sent: SimTime::NEVER, rto: rto.min(MAX_CLOSE_RTO) },
            other => other,
        };
    }

    /// A Reset, CloseReq or Close from the server (RFC 4340 §8.5).
    /// Other types are not the teardown's business.
    pub fn on_packet(&mut self, now: SimTime, ptype: DccpType, timewait: SimDuration) -> ClientStep {
        match (ptype, self.state) {
            // Step 2: no connection (never opened, or over); a Reset is
            // never answered, anything else gets No Connection.
            (DccpType::Reset, State::Closed | State::Ended | State::TimeWait { .. }) => ClientStep::Nothing,
            (DccpType::CloseReq | DccpType::Close, State::Closed | State::Ended | State::TimeWait { .. }) => {
                self.reset_due = Some(RESET_NO_CONNECTION);
                ClientStep::Nothing
            }
            // Step 9: a Reset in any other state tears the connection
            // down into TIMEWAIT (§8.3: the closing client's normal end).
            (DccpType::Reset, _) => {
                self.state = State::TimeWait { until: now + timewait };
                ClientStep::Reset
            }
            // Step 4: in REQUEST only Response and Reset are valid; others
            // get Reset "Packet Error" and the client keeps requesting.
            (DccpType::CloseReq | DccpType::Close, State::Requesting { .. }) => {
                self.reset_due = Some(RESET_PACKET_ERROR);
                ClientStep::Nothing
            }
            // Step 13: CloseReq below CLOSEREQ (PARTOPEN, OPEN) → Close;
            // in CLOSING it is already under way.
            (DccpType::CloseReq, State::AckDue | State::Open) => ClientStep::CloseRequested,
            // Step 14: a Close is answered with Reset "Closed", and the
            // connection is torn down (CLOSED, no TIMEWAIT on this side).
            (DccpType::Close, _) => {
                self.reset_due = Some(RESET_CLOSED);
                self.state = State::Ended;
                ClientStep::Nothing
            }
            _ => ClientStep::Nothing,
        }
    }

    /// The connection is being or has been torn down.
    pub fn is_closing(&self) -> bool {
        matches!(self.state, State::Closing { .. } | State::TimeWait { .. } | State::Ended)
    }
}

/// The server's states (RFC 4340 §8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServerState {
    Listen,
    /// RESPOND: Response sent at this time (`NEVER`: after a repeated
    /// Request, so its RTT sample is ambiguous).
    Responded(SimTime),
    Open,
    /// CLOSEREQ: CloseReq sent at `sent` (`NEVER`: due), resent after
    /// `rto`, doubling up to 64 s, until a Close arrives (RFC 4340 §8.3).
    CloseReq { sent: SimTime, rto: SimDuration },
    /// A Close was answered with Reset, or a Reset arrived (§8.5 steps 9,
    /// 14). The server's TIMEWAIT after a Reset is the same to the model:
    /// it sends nothing but No Connection Resets.
    Closed,
}

/// The server (receiver) side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Server {
    pub state: ServerState,
    /// The handshake's RTT, for the CloseReq timer.
    rtt: Option<SimDuration>,
    pub sent: Teardown,
}

/// What a packet means to the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServerStep {
    /// Send a Response (to a Request, first or repeated, §8.1.2).
    Respond,
    /// The handshake completed; an RTT sample if unambiguous.
    Opened(Option<SimDuration>),
    /// Send a Reset with this code (RFC 4340 §5.6).
    Reset(u8),
    Nothing,
}

impl Server {
    pub fn new(handshake: bool) -> Self {
        Server { state: if handshake { ServerState::Listen } else { ServerState::Open }, rtt: None, sent: Teardown::default() }
    }

    pub fn on_packet(&mut self, now: SimTime, ptype: DccpType) -> ServerStep {
        let step = self.step(now, ptype);
        if let ServerStep::Opened(Some(r)) = step {
            self.rtt = Some(r);
        }
        if let ServerStep::Reset(_) = step {
            self.sent.reset += 1;
        }
        step
    }

    fn step(&mut self, now: SimTime, ptype: DccpType) -> ServerStep {
        use ServerState::*;
        match (ptype, self.state) {
            // Never answer a Reset, and in LISTEN drop it (§8.5 steps 2,
            // 3); otherwise it tears the connection down (step 9).
            (DccpType::Reset, Closed | Listen) => ServerStep::Nothing,
            (DccpType::Reset, _) => {
                self.state = Closed;
                ServerStep::Nothing
            }
            // Step 2: no connection any more: No Connection.
            (_, Closed) => ServerStep::Reset(RESET_NO_CONNECTION),
            // Step 3: in LISTEN only a Request is valid; the rest get No
            // Connection and the server keeps listening.
            (DccpType::Close, Listen) => ServerStep::Reset(RESET_NO_CONNECTION),
            // Steps 11 and 14: a Close in RESPOND (it acknowledges the
            // Response), OPEN or CLOSEREQ is answered with Reset
            // "Closed", and the connection is gone.
            (DccpType::Close, _) => {
                self.state = Closed;
                ServerStep::Reset(RESET_CLOSED)
            }
            (DccpType::Request, Listen) => {
                self.state = Responded(now);
                ServerStep::Respond
            }
            (DccpType::Request, Responded(_)) => {
                self.state = Responded(SimTime::NEVER);
                ServerStep::Respond
            }
            // Step 7: a CloseReq to a server is unexpected (Sync, not
            // modelled).
            (DccpType::CloseReq, _) => ServerStep::Nothing,
            (_, Responded(sent)) => {
                self.state = Open;
                ServerStep::Opened((sent != SimTime::NEVER).then(|| now.saturating_since(sent)))
            }
            _ => ServerStep::Nothing,
        }
    }

    /// The application closed (`Closer::Server`): CloseReq, first resent
    /// after two RTTs (RFC 4340 §8.3): of `rtt`, the receiver's current
    /// estimate, else of the handshake, else `fallback`. A server still
    /// listening has no connection to end.
    pub fn close(&mut self, rtt: Option<SimDuration>, fallback: SimDuration) {
        let rto = rtt.or(self.rtt).map_or(fallback, |r| r.mul(2)).min(MAX_CLOSE_RTO);
        self.state = match self.state {
            ServerState::Listen => ServerState::Closed,
            ServerState::Responded(_) | ServerState::Open => ServerState::CloseReq { sent: SimTime::NEVER, rto },
            other => other,
        };
    }

    /// A CloseReq to send now, if one is due.
    pub fn poll(&mut self, now: SimTime) -> Option<DccpType> {
        let ServerState::CloseReq { sent: SimTime::NEVER, rto } = self.state else { return None };
        self.state = ServerState::CloseReq { sent: now, rto };
        self.sent.close_req += 1;
        Some(DccpType::CloseReq)
    }

    /// When the CloseReq is to be retransmitted.
    pub fn timeout(&self) -> Option<SimTime> {
        match self.state {
            ServerState::CloseReq { sent, rto } if sent != SimTime::NEVER => Some(sent + rto),
            _ => None,
        }
    }

    /// The CloseReq timer fired: back off and resend (RFC 4340 §8.3).
    pub fn on_timeout(&mut self, now: SimTime) {
        if let ServerState::CloseReq { sent, rto } = self.state {
            if sent != SimTime::NEVER && now >= sent + rto {
                self.state = ServerState::CloseReq { sent: SimTime::NEVER, rto: rto.mul(2).min(MAX_CLOSE_RTO) };
            }
        }
    }

    pub fn is_closed(&self) -> bool {
        self.state == ServerState::Closed
    }
}

#[cfg(test)]
#[path = "dccp_conn_tests.rs"]
mod tests;
