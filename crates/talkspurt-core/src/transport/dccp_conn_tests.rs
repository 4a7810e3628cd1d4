//! One test per transition of the DCCP connection state machine (RFC 4340
//! §8.1, §8.3, §8.5).

use super::*;

fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}
fn at(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}
const TW: SimDuration = SimDuration::from_secs(240);

/// Poll until nothing more is due; the control packets sent.
fn drain(c: &mut Client, t: u64) -> Vec<Control> {
    std::iter::from_fn(|| c.poll(at(t), ms(3000))).collect()
}

/// RFC 4340 §8.3 on both sides: Close, Reset (Closed), TIMEWAIT of the
/// configured length on the closer, nothing sent afterwards.
#[test]
fn close_reset_timewait() {
    let (mut c, mut s) = (Client::new(false), Server::new(false));
    c.close(ms(200)); // 2 RTT with R = 100 ms
    assert_eq!(drain(&mut c, 0), vec![(DccpType::Close, 0)]);
    assert_eq!(c.timeout(), Some(at(200)));
    assert_eq!(s.on_packet(at(50), DccpType::Close), ServerStep::Reset(RESET_CLOSED));
    assert!(s.is_closed());
    assert_eq!(c.on_packet(at(100), DccpType::Reset, TW), ClientStep::Reset);
    assert_eq!(c.state, State::TimeWait { until: at(240_100) });
    assert_eq!(drain(&mut c, 150), vec![]);
    c.on_timeout(at(240_099));
    assert!(matches!(c.state, State::TimeWait { .. }));
    c.on_timeout(at(240_100));
    assert_eq!(c.state, State::Ended);
    assert_eq!((drain(&mut c, 240_200), c.timeout()), (vec![], None));
    // a second Reset is never answered (§8.5 step 2)
    assert_eq!(c.on_packet(at(240_300), DccpType::Reset, TW), ClientStep::Nothing);
    assert_eq!(drain(&mut c, 240_300), vec![]);
    assert_eq!((c.sent, s.sent), (Teardown { close: 1, close_req: 0, reset: 0 }, Teardown { close: 0, close_req: 0, reset: 1 }));
}

/// A lost Close is resent after 2 RTT, then 4, 8 … RTT, never more than
/// 64 s apart (RFC 4340 §8.3); the server, already closed because its
/// Reset was the one lost, answers No Connection (§8.5 step 2, §5.6).
#[test]
fn lost_close_is_retransmitted_with_backoff() {
    let mut c = Client::new(false);
    c.close(ms(200));
    let mut t = 0;
    let mut sends = vec![];
    while sends.len() < 12 {
        for p in drain(&mut c, t) {
            assert_eq!(p, (DccpType::Close, 0));
            sends.push(t);
        }
        t = c.timeout().unwrap().saturating_since(SimTime::ZERO).as_millis_f64().round() as u64;
        c.on_timeout(at(t));
    }
    let gaps: Vec<u64> = sends.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(&gaps[..9], &[200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 51_200]);
    assert_eq!(&gaps[9..], &[64_000, 64_000]);
    assert_eq!(c.sent.close, 12);
    let mut s = Server::new(false);
    assert_eq!(s.on_packet(at(0), DccpType::Close), ServerStep::Reset(RESET_CLOSED));
    assert_eq!(s.on_packet(at(200), DccpType::Close), ServerStep::Reset(RESET_NO_CONNECTION));
    assert_eq!(s.sent.reset, 2);
    assert_eq!(c.on_packet(at(t), DccpType::Reset, ms(1000)), ClientStep::Reset);
}

/// Closing before any Request sends nothing (there is no connection);
/// closing twice sends one Close.
#[test]
fn close_before_request_and_twice() {
    let mut c = Client::new(true);
    c.close(ms(200));
    assert_eq!(c.state, State::Ended);
    assert_eq!((drain(&mut c, 1), c.timeout()), (vec![], None));
    let mut c = Client::new(false);
    c.close(ms(200));
    assert_eq!(drain(&mut c, 0), vec![(DccpType::Close, 0)]);
    c.close(ms(200));
    assert_eq!(drain(&mut c, 0), vec![]);
    assert_eq!(c.timeout(), Some(at(200)));
}

/// RFC 4340 §8.1.1: a client that gives up while requesting sends Reset
/// "Aborted" and is done; the server that had answered the Request is torn
/// down by it (§8.5 step 9) and answers a late Request with No
/// Connection (step 2).
#[test]
fn close_while_requesting_aborts() {
    let (mut c, mut s) = (Client::new(true), Server::new(true));
    assert_eq!(drain(&mut c, 0), vec![(DccpType::Request, 0)]);
    assert_eq!(s.on_packet(at(50), DccpType::Request), ServerStep::Respond);
    c.close(ms(200));
    assert_eq!(drain(&mut c, 60), vec![(DccpType::Reset, RESET_ABORTED)]);
    assert_eq!((c.state, c.timeout()), (State::Ended, None));
    // the Response that crosses the Reset finds nothing to complete
    assert_eq!(c.on_response(at(100)), None);
    assert_eq!(s.on_packet(at(110), DccpType::Reset), ServerStep::Nothing);
    assert!(s.is_closed());
    assert_eq!(s.on_packet(at(120), DccpType::Request), ServerStep::Reset(RESET_NO_CONNECTION));
    assert_eq!(c.sent, Teardown { close: 0, close_req: 0, reset: 1 });
}

/// Closing in PARTOPEN (Response in, Ack not yet sent) sends Close instead
/// of the Ack; the server in RESPOND takes it as the handshake's end and
/// answers Reset "Closed" (§8.5 steps 11, 14).
#[test]
fn close_in_partopen_ends_respond() {
    let (mut c, mut s) = (Client::new(true), Server::new(true));
    assert_eq!(drain(&mut c, 0), vec![(DccpType::Request, 0)]);
    assert_eq!(s.on_packet(at(50), DccpType::Request), ServerStep::Respond);
    assert_eq!(c.on_response(at(100)), Some(ms(100)));
    c.close(ms(200));
    assert_eq!(drain(&mut c, 100), vec![(DccpType::Close, 0)]);
    assert_eq!(s.on_packet(at(150), DccpType::Close), ServerStep::Reset(RESET_CLOSED));
    assert_eq!(c.on_packet(at(200), DccpType::Reset, TW), ClientStep::Reset);
    assert!(matches!(c.state, State::TimeWait { .. }));
}

/// A Close reaching a server still in LISTEN (its Request was lost) gets
/// No Connection, and the server keeps listening (§8.5 step 3); a Reset
/// there is dropped.
#[test]
fn close_in_listen_gets_no_connection() {
    let mut s = Server::new(true);
    assert_eq!(s.on_packet(at(0), DccpType::Close), ServerStep::Reset(RESET_NO_CONNECTION));
    assert_eq!(s.on_packet(at(1), DccpType::Reset), ServerStep::Nothing);
    assert_eq!(s.state, ServerState::Listen);
    assert_eq!(s.on_packet(at(2), DccpType::Request), ServerStep::Respond);
}

/// In REQUEST only Response and Reset are valid: a Close or CloseReq gets
/// Reset "Packet Error" and the client keeps requesting (§8.5 step 4).
#[test]
fn close_in_request_gets_packet_error() {
    let mut c = Client::new(true);
    assert_eq!(drain(&mut c, 0), vec![(DccpType::Request, 0)]);
    for t in [DccpType::Close, DccpType::CloseReq] {
        assert_eq!(c.on_packet(at(10), t, TW), ClientStep::Nothing);
        assert_eq!(drain(&mut c, 10), vec![(DccpType::Reset, RESET_PACKET_ERROR)]);
        assert!(matches!(c.state, State::Requesting { .. }));
    }
    assert_eq!(c.on_response(at(20)), Some(ms(20)));
}

/// A Close from the server to an open client is answered with Reset
/// "Closed" and ends the connection without TIMEWAIT on the client
/// (§8.5 step 14).
#[test]
fn close_to_open_client() {
    let mut c = Client::new(false);
    assert_eq!(c.on_packet(at(0), DccpType::Close, TW), ClientStep::Nothing);
    assert_eq!(drain(&mut c, 0), vec![(DccpType::Reset, RESET_CLOSED)]);
    assert_eq!((c.state, c.timeout()), (State::Ended, None));
}

/// CloseReq or Close reaching a client in TIMEWAIT or CLOSED gets No
/// Connection and changes nothing (§8.5 step 2).
#[test]
fn late_closereq_gets_no_connection() {
    let mut c = Client::new(false);
    c.close(ms(200));
    drain(&mut c, 0);
    c.on_packet(at(100), DccpType::Reset, TW);
    for t in [DccpType::CloseReq, DccpType::Close] {
        assert_eq!(c.on_packet(at(150), t, TW), ClientStep::Nothing);
        assert_eq!(drain(&mut c, 150), vec![(DccpType::Reset, RESET_NO_CONNECTION)]);
        assert_eq!(c.state, State::TimeWait { until: at(240_100) });
    }
}

/// Server-initiated close (RFC 4340 §8.3): CloseReq, resent after 2 RTT of
/// the handshake and doubling; the open client answers Close (§8.5 step
/// 13) and ignores further CloseReqs while closing; the server Resets on
/// the Close; the client holds TIMEWAIT.
#[test]
fn server_closereq_close_reset_timewait() {
    let (mut c, mut s) = (Client::new(true), Server::new(true));
    drain(&mut c, 0);
    s.on_packet(at(50), DccpType::Request);
    c.on_response(at(100));
    assert_eq!(drain(&mut c, 100), vec![(DccpType::Ack, 0)]);
    assert_eq!(s.on_packet(at(150), DccpType::Ack), ServerStep::Opened(Some(ms(100))));
    s.close(None, ms(3000));
    assert_eq!(s.poll(at(1000)), Some(DccpType::CloseReq));
    assert_eq!(s.poll(at(1000)), None);
    // the first CloseReq is lost: resent after 200 ms, then 400 ms
    assert_eq!(s.timeout(), Some(at(1200)));
    s.on_timeout(at(1200));
    assert_eq!(s.poll(at(1200)), Some(DccpType::CloseReq));
    assert_eq!(s.timeout(), Some(at(1600)));
    // data still arriving in CLOSEREQ is processed (§8.5 step 16)
    assert_eq!(s.on_packet(at(1210), DccpType::Data), ServerStep::Nothing);
    assert!(!s.is_closed());
    assert_eq!(c.on_packet(at(1250), DccpType::CloseReq, TW), ClientStep::CloseRequested);
    c.close(ms(200));
    assert_eq!(drain(&mut c, 1260), vec![(DccpType::Close, 0)]);
    // a CloseReq resent meanwhile is ignored in CLOSING
    assert_eq!(c.on_packet(at(1270), DccpType::CloseReq, TW), ClientStep::Nothing);
    assert_eq!(drain(&mut c, 1270), vec![]);
    assert_eq!(s.on_packet(at(1310), DccpType::Close), ServerStep::Reset(RESET_CLOSED));
    assert_eq!((s.is_closed(), s.timeout(), s.poll(at(1600))), (true, None, None));
    assert_eq!(c.on_packet(at(1360), DccpType::Reset, TW), ClientStep::Reset);
    assert_eq!(c.state, State::TimeWait { until: at(241_360) });
    assert_eq!(s.sent, Teardown { close: 0, close_req: 2, reset: 1 });
    assert_eq!(c.sent, Teardown { close: 1, close_req: 0, reset: 0 });
}

/// The CloseReq backs off to 64 s; without a handshake RTT the first
/// interval is the fallback. A server closed while listening sends nothing.
#[test]
fn closereq_backoff_and_listen() {
    let mut s = Server::new(false);
    s.close(None, ms(3000));
    let mut t = 0;
    let mut sends = vec![];
    while sends.len() < 8 {
        if s.poll(at(t)).is_some() {
            sends.push(t);
        }
        t = s.timeout().unwrap().saturating_since(SimTime::ZERO).as_millis_f64().round() as u64;
        s.on_timeout(at(t));
    }
    let gaps: Vec<u64> = sends.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, vec![3000, 6000, 12_000, 24_000, 48_000, 64_000, 64_000]);
    let mut s = Server::new(true);
    s.close(None, ms(3000));
    assert_eq!((s.state, s.poll(at(0)), s.timeout()), (ServerState::Closed, None, None));
}
