//! TFRC, the rate-based family (RFC 5348, with RFC 3448 selectable), split
//! as RFC 5348 is: the throughput equation (`cc::equation`), the receiver's
//! loss history (`loss_history`), the sender's rate rules (`sender`) and the
//! receiver's feedback rules (`receiver`). The variants the seeds study are
//! options of one controller rather than copies of it:
//!
//! - TFRC-SP (RFC 4828; CCID 4, RFC 5622): nominal segment size with header
//!   correction, a 10 ms minimum interval, short loss intervals;
//! - Faster Restart (draft-ietf-dccp-tfrc-faster-restart-06, seeds 000 and
//!   003), and seed 000's emulation of it;
//! - seed 000's FR-MD floor, seed 003's CCID4-N and CCID4-N100 initial
//!   rates (eqs. 7 and 13) and dynamic feedback count (eq. 8).
//!
//! Rates are bytes of segment (transport payload) per second, as in RFC 5348;
//! times inside the rate rules are seconds (f64), timestamps `SimTime`.

pub mod loss_history;
pub mod ns2;
pub mod receiver;
pub mod sender;

pub use loss_history::LossHistory;
pub use receiver::{FeedbackMode, TfrcReceiver};
pub use sender::TfrcSender;

use crate::time::{SimDuration, SimTime};

/// The rate-controller interface, beside [`super::WindowController`]: the
/// transport reports what it sent and what came back, and asks for the
/// allowed rate.
pub trait RateController {
    /// Allowed sending rate X, bytes per second.
    fn rate(&self) -> f64;
    /// A data packet of `bytes` (segment size) went out.
    fn on_packet_sent(&mut self, now: SimTime, bytes: u32);
    /// The sender had data waiting that the rate held back (RFC 5348
    /// §8.2.1: it was not data-limited at `now`).
    fn on_rate_limited(&mut self, now: SimTime);
    /// A feedback report arrived.
    fn on_feedback(&mut self, now: SimTime, fb: &Feedback);
    /// When the nofeedback timer expires.
    fn nofeedback_at(&self) -> SimTime;
    /// The nofeedback timer expired (RFC 5348 §4.4).
    fn on_nofeedback(&mut self, now: SimTime);
}

/// What a TFRC receiver reports (RFC 5348 §3.2.2; RFC 4342 §8.3–8.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Feedback {
    /// Send time of the last data packet received (echoed timestamp, or the
    /// send time the sender recorded for the acknowledged sequence number).
    pub t_recvdata: SimTime,
    /// Time between that packet's arrival and this report (Elapsed Time).
    pub t_delay: SimDuration,
    /// Receive rate since the previous report, bytes/s.
    pub x_recv: f64,
    /// Loss event rate.
    pub p: f64,
}

/// Which TFRC specification the rate rules follow (seed 003 Table 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TfrcSpec {
    /// RFC 3448: 1 packet/s until feedback, slow start floor s/R, rate
    /// limited by 2·X_recv, idle floor of 2 packets per RTT.
    Rfc3448,
    /// RFC 5348: initial rate W_init/R, X_recv_set and data-limited
    /// intervals, recover rate W_init/R after idle.
    Rfc5348,
    /// The Linux CCID 3/4 sender of 2008 (kernels 2.6.25–2.6.28, which
    /// tracked draft rfc3448bis-00; seed 003 measured "the experimental
    /// version of Linux kernel implementation", §4): RFC 3448 with
    /// W_init/R from the handshake's RTT or the first feedback (whose X_recv
    /// it ignores), a floor of
    /// W_init/R on the receive limit once the sender has sent nothing for
    /// two RTTs (RFC 4342 §5.1's "do not reduce below the initial rate when
    /// idle"), nofeedback expiries that halve X directly while p = 0 (no
    /// idle exception), and the first feedback after an expiry, while
    /// p = 0, left without effect on X. docs/models/tfrc.md, "Linux 2008".
    Linux2008,
}

impl TfrcSpec {
    pub const ALL: [TfrcSpec; 3] = [TfrcSpec::Rfc3448, TfrcSpec::Rfc5348, TfrcSpec::Linux2008];
    pub fn name(self) -> &'static str {
        match self {
            TfrcSpec::Rfc3448 => "rfc3448",
            TfrcSpec::Rfc5348 => "rfc5348",
            TfrcSpec::Linux2008 => "linux2008",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// Faster Restart (draft-ietf-dccp-tfrc-faster-restart-06).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FasterRestart {
    Off,
    /// The draft: the rate may quadruple per feedback while below
    /// X_fast_max (the highest receive rate of the last loss-free period,
    /// halved at each loss event), double above it; the rate after idle is
    /// 8 packets per RTT for small packets.
    Draft,
    /// Seed 000 §2.2.4's emulation: quadruple at all times in congestion
    /// avoidance (X_fast_max assumed to settle at the codec's rate).
    Emulated,
}

impl FasterRestart {
    pub const ALL: [FasterRestart; 3] = [FasterRestart::Off, FasterRestart::Draft, FasterRestart::Emulated];
    pub fn name(self) -> &'static str {
        match self {
            FasterRestart::Off => "off",
            FasterRestart::Draft => "draft",
            FasterRestart::Emulated => "emulated",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// The seeds' own variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Standard,
    /// Seed 000 "TFRC SP FR MD": never below eight packets per RTT,
    /// 8(s + H)/R in wire bytes (8s/R in segment bytes).
    FrMd,
    /// Seed 003 CCID4-N: initial and restart rate 4380/R · s/(s + H) (eq. 7).
    N,
    /// Seed 003 CCID4-N100: the same with a nominal RTT of 100 ms,
    /// 43800 · s/(s + H) bytes/s (eq. 13).
    N100,
}

impl Variant {
    pub const ALL: [Variant; 4] = [Variant::Standard, Variant::FrMd, Variant::N, Variant::N100];
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::FrMd => "fr-md",
            Variant::N => "n",
            Variant::N100 => "n100",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// How t_RTO in the equation is estimated (RFC 5348 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtoRule {
    /// t_RTO = 4R (RFC 5348 §3.1: SHOULD).
    FourR,
    /// t_RTO = max(4R, 1 s) (§3.1: MAY, to match TCP's minimum RTO).
    FourRMin1s,
    /// SRTT + max(G, 4·RTTVAR) over the feedback RTT samples (§3.1: "a
    /// more accurate calculation" MAY be used; RFC 6298 §2.3 form with the
    /// clock granularity G = `granularity`, no 1 s minimum). ns-2's
    /// Agent/TFRC's estimator is close to this, but see `Ns2`.
    Rfc6298,
    /// ns-2's Agent/TFRC (ns-2.35 `tcp/tfrc.cc`, `update_rtt`): the same
    /// form in 4.4BSD fixed point on a clock of `granularity` (its
    /// `tcp_tick_`, 100 ms when `granularity` is 0), see `ns2::Ns2Rto`.
    /// A compatibility option for comparisons with ns-2.
    Ns2,
}

impl RtoRule {
    pub const ALL: [RtoRule; 4] = [RtoRule::FourR, RtoRule::FourRMin1s, RtoRule::Rfc6298, RtoRule::Ns2];
    pub fn name(self) -> &'static str {
        match self {
            RtoRule::FourR => "4r",
            RtoRule::FourRMin1s => "4r-min1s",
            RtoRule::Rfc6298 => "rfc6298",
            RtoRule::Ns2 => "ns2",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// TFRC sender and receiver parameters. Defaults are RFC 5348's; the
/// transport sets the TFRC-SP ones for CCID 4.
#[derive(Clone, Debug, PartialEq)]
pub struct TfrcConfig {
    pub spec: TfrcSpec,
    /// TFRC-SP (RFC 4828): the equation uses `nominal_s` corrected by
    /// s/(s + H), intervals < 2 RTT count every loss, and packets are at
    /// least `min_interval` apart.
    pub small_packets: bool,
    /// Nominal segment size of TFRC-SP: 1460 B (RFC 4828 §4.1).
    pub nominal_s: u32,
    /// Header size H of TFRC-SP's correction: 40 B (RFC 4828 §4.1), 36 B
    /// for CCID 4 (RFC 5622 §5).
    pub header: u32,
    /// Minimum interval between packets: 10 ms for TFRC-SP (RFC 4828 §4.1),
    /// none otherwise.
    pub min_interval: SimDuration,
    /// TFRC-SP's short-interval rule (RFC 4828 §4.4): in a loss interval
    /// shorter than two RTTs every lost packet counts. On with TFRC-SP;
    /// off reproduces ns-2's `voip_` mode, whose TFRCSink keeps standard
    /// loss intervals (its `ShortIntervals_` 0).
    pub short_intervals: bool,
    pub faster_restart: FasterRestart,
    pub variant: Variant,
    /// Nominal RTT of CCID4-N100 and of the dynamic feedback count's
    /// RTT_ref: 100 ms (seed 003 §6.2–6.3).
    pub nominal_rtt: SimDuration,
    /// Seed 003 §6.2's dynamic feedback: the receiver sends N_Fb feedback
    /// messages per RTT (eq. 8) instead of one, and the sender applies the
    /// slow-start increase X = min(2X, 2·X_recv) once per observation
    /// interval R/N_Fb (its own eq. 8 from R, X_recv and s) instead of once
    /// per R (RFC 3448/5348 §4.3's `tld` rule), as the paper's "rate
    /// adjusted on receiving every feedback" (eqs. 10–12). Off.
    pub dynamic_feedback: bool,
    /// t_mbi, the longest interval between packets under backoff: 64 s
    /// (RFC 5348 §4.3).
    pub t_mbi: SimDuration,
    pub rto: RtoRule,
    /// Clock granularity G of `RtoRule::Rfc6298`: 0.
    pub granularity: SimDuration,
    /// Receiver history discounting (RFC 5348 §5.5, SHOULD): on.
    pub discounting: bool,
    /// RTT filter constant q (RFC 5348 §4.3: 0.9).
    pub q: f64,
    /// Oscillation reduction (RFC 5348 §4.5, RFC 3448 §4.5; optional):
    /// pace at X_inst = X·R_sqmean/√R_sample, so a growing queue slows the
    /// sender at once. Off, as the RFCs leave it to the implementation.
    pub oscillation_reduction: bool,
    /// Filter constant q2 of R_sqmean (RFC 5348 §4.5: 0.9).
    pub q2: f64,
    /// RFC 3448 verified erratum 1458 (§4.4 item 2): under `Rfc3448`, a
    /// nofeedback expiry while p = 0 halves X itself. On. Off is RFC 3448
    /// as published (item 1 halves X_recv, which leaves an X at or below
    /// the old X_recv uncut), as ns-2.35's Agent/DCCP/TFRC does
    /// (`tfrc_time_no_feedback`); a compatibility option for
    /// tests/test_tfrc_peers.py. The other rule sets ignore it.
    pub erratum_1458: bool,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            spec: TfrcSpec::Rfc5348,
            small_packets: false,
            nominal_s: 1460,
            header: 40,
            min_interval: SimDuration::ZERO,
            short_intervals: true,
            faster_restart: FasterRestart::Off,
            variant: Variant::Standard,
            nominal_rtt: SimDuration::from_millis(100),
            dynamic_feedback: false,
            t_mbi: SimDuration::from_secs(64),
            rto: RtoRule::FourR,
            granularity: SimDuration::ZERO,
            discounting: true,
            q: 0.9,
            oscillation_reduction: false,
            q2: 0.9,
            erratum_1458: true,
        }
    }
}

impl TfrcConfig {
    /// TFRC-SP's parameters (RFC 4828 §4.1) with header size `h`.
    pub fn small_packets(mut self, h: u32) -> Self {
        self.small_packets = true;
        self.header = h;
        self.min_interval = SimDuration::from_millis(10);
        self
    }

    /// The segment size the equation uses for packets of `s` bytes:
    /// s itself, or TFRC-SP's 1460·s/(s + H) (RFC 4828 §4.1, seed 003 eq. 6).
    pub fn equation_s(&self, s: f64) -> f64 {
        if self.small_packets {
            self.nominal_s as f64 * s / (s + self.header as f64)
        } else {
            s
        }
    }

    /// t_RTO for RTT `r` (seconds) and, for RFC 6298 form, its variation.
    /// Under `RtoRule::Ns2` (whose state the sender keeps) this is the
    /// value after one sample of `r`.
    pub fn t_rto(&self, r: f64, rttvar: f64) -> f64 {
        match self.rto {
            RtoRule::FourR => 4.0 * r,
            RtoRule::FourRMin1s => (4.0 * r).max(1.0),
            RtoRule::Rfc6298 => r + (4.0 * rttvar).max(self.granularity.as_secs_f64()),
            RtoRule::Ns2 => ns2::Ns2Rto::first(r, self.ns2_tick()),
        }
    }

    /// The clock of `RtoRule::Ns2`: `granularity`, or Agent/TFRC's default
    /// `tcp_tick_` of 100 ms when that is 0.
    pub fn ns2_tick(&self) -> f64 {
        if self.granularity == SimDuration::ZERO {
            0.1
        } else {
            self.granularity.as_secs_f64()
        }
    }
}

#[cfg(test)]
mod tests;
