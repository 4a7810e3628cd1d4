//! Congestion control as its own layer. It knows nothing of packets' bytes
//! or headers: a transport reports what was acknowledged, lost or marked,
//! and asks for the window. Two families:
//!
//! - window controllers (TCP family, DCCP CCID 2): [`WindowController`],
//!   hooks with no-op defaults, in the manner of Linux's
//!   `tcp_congestion_ops` and quinn's `Controller`. Loss *recovery*
//!   (fast retransmit / fast recovery, NewReno partial ACKs, SACK pipe) is
//!   the transport's; the controller decides the window and ssthresh.
//!   Classic controllers are composed: [`classic::Classic`] (slow start,
//!   RFC 5681 §3.1) × a [`classic::WindowAdjustment`] (the congestion
//!   avoidance increase and the decrease), as neqo does.
//! - rate controllers (TFRC family): [`tfrc::RateController`], split into
//!   equation, loss history, sender and receiver (RFC 5348's own split).
//!
//! One algorithm per file; variants are selected by name
//! ([`CcAlgorithm`]); dispatch is by enum ([`Controller`]), not boxed
//! traits, on the hot path. Windows are in bytes.

pub mod classic;
pub mod cubic;
pub mod equation;
pub mod real;
pub mod reno;
pub mod tfrc;
pub mod vegas;
pub mod westwood;
pub mod westwood2001;

use crate::time::{SimDuration, SimTime};

/// What one acknowledgement told the sender (RFC 5681 terms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked: u64,
    /// Bytes in flight before this ACK was processed (FlightSize).
    pub flight: u64,
    /// RTT sample taken from this ACK (Karn's rule applied), if any.
    pub rtt: Option<SimDuration>,
    /// Smoothed RTT and the minimum RTT seen so far (RFC 6298 state).
    pub srtt: SimDuration,
    pub min_rtt: SimDuration,
    /// Bytes acknowledged cumulatively since the connection began.
    pub delivered: u64,
    /// The sender is in loss recovery: the window is the recovery
    /// machinery's, and controllers only observe.
    pub recovery: bool,
}

/// The window-based congestion controller interface. The transport calls
/// `on_ack` for new data acknowledged outside loss recovery, and the
/// congestion hooks once per congestion event; during recovery it moves
/// the window itself through `set_cwnd` (RFC 5681 §3.2, RFC 6582,
/// RFC 6675) and hands it back with `on_recovery_exit`.
pub trait WindowController {
    /// Congestion window in bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold in bytes (`u64::MAX` before the first event).
    fn ssthresh(&self) -> u64;
    /// The loss-recovery machinery sets the window directly (inflation,
    /// deflation, RFC 5681 §3.2 steps 3–6).
    fn set_cwnd(&mut self, cwnd: u64);
    fn in_slow_start(&self) -> bool {
        self.cwnd() < self.ssthresh()
    }
    /// New data acknowledged: slow start or congestion avoidance
    /// (RFC 5681 §3.1) unless `ack.recovery`.
    fn on_ack(&mut self, _ack: &AckSample) {}
    /// Every RTT sample, in or out of recovery (Vegas, Westwood+).
    fn on_rtt_sample(&mut self, _now: SimTime, _rtt: SimDuration) {}
    /// A congestion event detected by duplicate ACKs, SACK or an ECN echo
    /// (at most once per window, RFC 5681 §3.2 step 2, RFC 3168 §6.1.2):
    /// set ssthresh. `flight` is FlightSize.
    fn on_congestion_event(&mut self, now: SimTime, flight: u64);
    /// Loss recovery ended with a full acknowledgement.
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// Retransmission timeout (RFC 5681 §3.1 eq. 4, RFC 6298 §5.5): set
    /// ssthresh as for a congestion event and the window to the loss window.
    fn on_rto(&mut self, now: SimTime, flight: u64);
    /// TCP-Real only: a receiver report carried on an ACK
    /// ([`real::RealReceiver::feedback`]). Call it for every ACK carrying
    /// one, before that ACK's `on_ack` / `on_congestion_event`; repeats of
    /// a report already seen are ignored.
    fn on_receiver_verdict(&mut self, _now: SimTime, _feedback: &real::RealFeedback) {}
    /// A duplicate ACK arrived (in or out of recovery). Westwood counts it
    /// as one delivered segment (Mascolo et al. 2001); others ignore it.
    fn on_dup_ack(&mut self, _now: SimTime) {}
    /// Restart after an idle period longer than the RTO (RFC 5681 §4.1):
    /// the window becomes `min(rw, cwnd)`.
    fn on_idle_restart(&mut self, _now: SimTime, rw: u64) {
        let c = self.cwnd().min(rw);
        self.set_cwnd(c);
    }
}

/// Congestion controllers by name (`transport = { cc = "..." }`). The
/// first four share Reno's window adjustment and differ in loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CcAlgorithm {
    /// 4.3BSD-Tahoe: fast retransmit, then slow start from one segment.
    Tahoe,
    /// RFC 5681 Reno: fast retransmit and fast recovery.
    Reno,
    /// RFC 6582 NewReno: partial acknowledgements keep recovery going.
    NewReno,
    /// Reno's window with RFC 6675 SACK-based loss recovery.
    Sack,
    /// Brakmo & Peterson 1995 TCP Vegas (α, β, γ).
    Vegas,
    /// TCP Westwood as first published (Mascolo et al., MobiCom 2001):
    /// per-ACK bandwidth samples, time-varying Tustin filter.
    Westwood,
    /// Westwood+ (Grieco & Mascolo 2004): one bandwidth sample per RTT.
    WestwoodPlus,
    /// TCP-Real (Tsaoussidis & Zhang): receiver-oriented, wave-based.
    Real,
    /// RFC 9438 CUBIC.
    Cubic,
}

impl CcAlgorithm {
    pub const ALL: [CcAlgorithm; 9] = [
        CcAlgorithm::Tahoe,
        CcAlgorithm::Reno,
        CcAlgorithm::NewReno,
        CcAlgorithm::Sack,
        CcAlgorithm::Vegas,
        CcAlgorithm::Westwood,
        CcAlgorithm::WestwoodPlus,
        CcAlgorithm::Real,
        CcAlgorithm::Cubic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CcAlgorithm::Tahoe => "tahoe",
            CcAlgorithm::Reno => "reno",
            CcAlgorithm::NewReno => "newreno",
            CcAlgorithm::Sack => "sack",
            CcAlgorithm::Vegas => "vegas",
            CcAlgorithm::Westwood => "westwood",
            CcAlgorithm::WestwoodPlus => "westwood+",
            CcAlgorithm::Real => "real",
            CcAlgorithm::Cubic => "cubic",
        }
    }

    /// Accepts the names above. "westwood" is the 2001 algorithm (until
    /// this change it named Westwood+, now "westwood+").
    pub fn from_name(s: &str) -> Option<CcAlgorithm> {
        Self::ALL.into_iter().find(|a| a.name() == s)
    }

    /// The loss recovery each algorithm is defined with (overridable by
    /// `recovery = "..."`): Vegas as Brakmo's, on Reno; Westwood+ as
    /// ns-2's and Linux's, on NewReno; CUBIC as Linux, on SACK; TCP-Real
    /// on NewReno (docs/models/tcp.md).
    pub fn default_recovery(self) -> Recovery {
        match self {
            CcAlgorithm::Tahoe => Recovery::Tahoe,
            CcAlgorithm::Reno | CcAlgorithm::Vegas => Recovery::Reno,
            CcAlgorithm::NewReno | CcAlgorithm::Westwood | CcAlgorithm::WestwoodPlus | CcAlgorithm::Real => Recovery::NewReno,
            CcAlgorithm::Sack | CcAlgorithm::Cubic => Recovery::Sack,
        }
    }
}

/// How lost segments are detected and repaired after three duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Recovery {
    /// Retransmit, window to one segment, slow start (go-back-N).
    Tahoe,
    /// RFC 5681 §3.2 fast recovery; the first new ACK ends it.
    Reno,
    /// RFC 6582: recovery lasts until `recover` is acknowledged.
    NewReno,
    /// RFC 6675 conservative SACK-based recovery (needs SACK).
    Sack,
}

impl Recovery {
    pub const ALL: [Recovery; 4] = [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno, Recovery::Sack];
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
    pub fn from_name(s: &str) -> Option<Recovery> {
        Self::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// Per-algorithm parameters; only the chosen algorithm's are meaningful.
/// Each struct documents its defaults and their source.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcParams {
    pub vegas: VegasParams,
    pub cubic: CubicParams,
    pub westwood: WestwoodParams,
    pub real: RealParams,
}

/// TCP Vegas thresholds in segments queued in the network (Brakmo & Peterson
/// 1995 §3.2; their experiments run "Vegas-1,3" and "Vegas-2,4"). Defaults
/// are ns-2's Agent/TCP/Vegas, the seed-002 simulator: v_alpha_ = 1,
/// v_beta_ = 3, v_gamma_ = 1. Linux's tcp_vegas uses α = 2, β = 4, γ = 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasParams {
    /// Below α extra segments queued, grow the window by one per RTT.
    pub alpha: f64,
    /// Above β, shrink it by one per RTT.
    pub beta: f64,
    /// Leave slow start when more than γ segments are queued.
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams { alpha: 1.0, beta: 3.0, gamma: 1.0 }
    }
}

/// CUBIC constants (RFC 9438 §4.1.1, §5: C = 0.4, β_cubic = 0.7; fast
/// convergence §4.7 and the Reno-friendly region §4.3 on, as the RFC's
/// SHOULDs). α_cubic follows from β (§4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c: 0.4, beta: 0.7, fast_convergence: true, tcp_friendliness: true }
    }
}

/// Westwood bandwidth estimation. Westwood+ (`cc = "westwood+"`): one
/// sample per RTT into `BWE_k = gain·BWE_{k−1} + (1 − gain)·b_k`.
/// Westwood (`cc = "westwood"`, MobiCom 2001): a sample per ACK into the
/// Tustin filter of time constant `tau`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodParams {
    /// Weight of the old estimate in the per-RTT filter. Default 0.9, the
    /// Westwood+ filter of Grieco & Mascolo (ACM CCR 34(2), 2004), also
    /// ns-3's TcpWestwoodPlus (`ALPHA = 0.9`). Linux's tcp_westwood is not
    /// this: it cascades two stages of gain 7/8 (`westwood_do_filter`), so
    /// 0.875 here approximates only its first stage.
    pub gain: f64,
    /// Westwood (2001) only: τ, the filter's time constant (cut-off
    /// frequency 1/τ). Default 0.5 s: the value used with the MobiCom 2001
    /// filter (τ = 0.5 s, m = 2 virtual samples per τ) as far as we could
    /// establish it; the paper's text was not available to us (see
    /// docs/models/tcp-cc.md).
    pub tau: SimDuration,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        WestwoodParams { gain: 0.9, tau: SimDuration::from_millis(500) }
    }
}

/// TCP-Real (Tsaoussidis & Zhang, Computer Networks 40(4), 2002; NOSSDAV
/// 2001). The papers' parameter values were not available to us: these
/// defaults are our assumptions, argued in docs/models/tcp-cc.md.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RealParams {
    /// Sender rounds per wave. A wave is what the sender transmits in
    /// `wave` rounds (one round: one window's worth of new data, ending
    /// when its first segment is acknowledged); its first segment carries
    /// a mark, so the receiver knows where waves begin. Default 1: the
    /// papers' wave is the window, one receiving-rate sample per RTT.
    pub wave: u32,
    /// θ: a wave whose receiving rate is below (1 − θ) of the previous
    /// wave's while it took longer shows contention (a rate decrease);
    /// one that took more than 1/(1 − θ) times the shortest wave ran
    /// through a queue (the pipe is full, a loss now is congestion).
    /// Smaller changes are noise. Default 0.1.
    pub congestion_threshold: f64,
    /// An inter-arrival gap longer than this inside a wave, or before the
    /// next wave when also longer than the shortest wave, is the sender
    /// pausing (silence, idle, timeout), not the network: the wave is not
    /// measured. Default 200 ms, above voice frame spacings (10–60 ms) and
    /// below typical silences.
    pub max_gap: SimDuration,
}

impl Default for RealParams {
    fn default() -> Self {
        RealParams { wave: 1, congestion_threshold: 0.1, max_gap: SimDuration::from_millis(200) }
    }
}

/// The controller of one connection: enum dispatch over the algorithms.
#[derive(Clone, Debug)]
pub enum Controller {
    /// Tahoe, Reno, NewReno and SACK share RFC 5681's window.
    Reno(classic::Classic<reno::Aimd>),
    Vegas(vegas::Vegas),
    Westwood(classic::Classic<westwood2001::Westwood2001>),
    WestwoodPlus(classic::Classic<westwood::Westwood>),
    Cubic(classic::Classic<cubic::Cubic>),
    Real(real::Real),
}

impl Controller {
    /// A controller for `alg` with a sender maximum segment size `smss` and
    /// initial window `iw` (bytes). Every [`CcAlgorithm`] is implemented, so
    /// this is always `Ok`; the `Result` stays for algorithms a future build
    /// may name before it has them. TCP-Real's receiver half is built by the
    /// data receiver from `params.real` ([`real::RealReceiver::new`]).
    pub fn new(alg: CcAlgorithm, params: &CcParams, smss: u64, iw: u64) -> Result<Controller, &'static str> {
        match alg {
            CcAlgorithm::Tahoe | CcAlgorithm::Reno | CcAlgorithm::NewReno | CcAlgorithm::Sack => {
                Ok(Controller::Reno(classic::Classic::new(reno::Aimd::default(), smss, iw)))
            }
            CcAlgorithm::Vegas => Ok(Controller::Vegas(vegas::Vegas::new(params.vegas, smss, iw))),
            CcAlgorithm::Cubic => {
                Ok(Controller::Cubic(classic::Classic::new(cubic::Cubic::new(params.cubic, smss), smss, iw)))
            }
            CcAlgorithm::Real => Ok(Controller::Real(real::Real::new(smss, iw))),
            CcAlgorithm::Westwood => {
                Ok(Controller::Westwood(classic::Classic::new(westwood2001::Westwood2001::new(params.westwood), smss, iw)))
            }
            CcAlgorithm::WestwoodPlus => {
                Ok(Controller::WestwoodPlus(classic::Classic::new(westwood::Westwood::new(params.westwood), smss, iw)))
            }
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Controller::Reno($c) => $e,
            Controller::Vegas($c) => $e,
            Controller::Westwood($c) => $e,
            Controller::WestwoodPlus($c) => $e,
            Controller::Cubic($c) => $e,
            Controller::Real($c) => $e,
        }
    };
}

impl WindowController for Controller {
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    fn set_cwnd(&mut self, cwnd: u64) {
        dispatch!(self, c => c.set_cwnd(cwnd))
    }
    fn in_slow_start(&self) -> bool {
        dispatch!(self, c => c.in_slow_start())
    }
    fn on_ack(&mut self, ack: &AckSample) {
        dispatch!(self, c => c.on_ack(ack))
    }
    fn on_rtt_sample(&mut self, now: SimTime, rtt: SimDuration) {
        dispatch!(self, c => c.on_rtt_sample(now, rtt))
    }
    fn on_congestion_event(&mut self, now: SimTime, flight: u64) {
        dispatch!(self, c => c.on_congestion_event(now, flight))
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_recovery_exit(now))
    }
    fn on_rto(&mut self, now: SimTime, flight: u64) {
        dispatch!(self, c => c.on_rto(now, flight))
    }
    fn on_receiver_verdict(&mut self, now: SimTime, feedback: &real::RealFeedback) {
        dispatch!(self, c => c.on_receiver_verdict(now, feedback))
    }
    fn on_dup_ack(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_dup_ack(now))
    }
    fn on_idle_restart(&mut self, now: SimTime, rw: u64) {
        dispatch!(self, c => c.on_idle_restart(now, rw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every algorithm name builds a controller with the initial window,
    /// and the names round-trip.
    #[test]
    fn every_algorithm_builds() {
        for alg in CcAlgorithm::ALL {
            let c = Controller::new(alg, &CcParams::default(), 1460, 4380).unwrap();
            assert_eq!(c.cwnd(), 4380, "{}", alg.name());
            assert!(c.in_slow_start());
            assert_eq!(CcAlgorithm::from_name(alg.name()), Some(alg));
        }
        assert_eq!(CcAlgorithm::from_name("westwood+"), Some(CcAlgorithm::WestwoodPlus));
        assert_eq!(CcAlgorithm::from_name("westwood"), Some(CcAlgorithm::Westwood));
    }

    /// The receiver-verdict hook reaches TCP-Real through the enum and is a
    /// no-op for the others: after a timeout that followed a
    /// non-congestive loss report, a `Clear` report gives TCP-Real its
    /// pre-timeout window back as ssthresh.
    #[test]
    fn receiver_verdict_dispatch() {
        let random = real::RealFeedback { seq: 0, verdict: real::Verdict::NonCongestiveLoss };
        let fb = real::RealFeedback { seq: 1, verdict: real::Verdict::Clear };
        for alg in CcAlgorithm::ALL {
            let mut c = Controller::new(alg, &CcParams::default(), 1000, 20_000).unwrap();
            c.on_receiver_verdict(SimTime(0), &random);
            c.on_rto(SimTime(0), 20_000);
            let after_rto = c.ssthresh();
            c.on_receiver_verdict(SimTime(1), &fb);
            let want = if alg == CcAlgorithm::Real { 20_000 } else { after_rto };
            assert_eq!(c.ssthresh(), want, "{}", alg.name());
        }
    }
}
