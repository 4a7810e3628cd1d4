//! The TFRC sender's rate rules: RFC 5348 §4 (or RFC 3448 §4 when
//! `spec = Rfc3448`), with the variants of `TfrcConfig` layered on the
//! points where they differ. Section numbers refer to RFC 5348 unless
//! stated.

use super::ns2::Ns2Rto;
use super::{Feedback, FasterRestart, RateController, RtoRule, TfrcConfig, TfrcSpec, Variant};
use crate::cc::equation::tfrc_rate;
use crate::time::{SimDuration, SimTime};

/// RFC 3390's initial window in bytes, min(4s, max(2s, 4380)) (§4.2 W_init).
pub fn w_init(s: f64) -> f64 {
    (4.0 * s).min((2.0 * s).max(4380.0))
}

/// The rate before any feedback (RFC 5348 §4.2, RFC 3448 §4.2: one packet
/// per second, s bytes/s); seed 003 §6.1's CCID4-N/N100 keep one packet per
/// second "with the packet size modified", the nominal size with header
/// correction.
fn one_packet_per_second(cfg: &TfrcConfig, s: f64) -> f64 {
    match cfg.variant {
        Variant::N | Variant::N100 => cfg.nominal_s as f64 * s / (s + cfg.header as f64),
        _ => s,
    }
}

#[derive(Clone, Debug)]
pub struct TfrcSender {
    cfg: TfrcConfig,
    /// Allowed sending rate X.
    x: f64,
    /// X_Bps, the equation's rate (∞ while p = 0).
    x_calc: f64,
    /// X_recv_set (§4.3): recent receive rates with their arrival times.
    /// RFC 3448 keeps one X_recv; its entry is the last element.
    x_recv_set: Vec<(SimTime, f64)>,
    /// Smoothed RTT R and its variation (for `RtoRule::Rfc6298`), seconds.
    r: Option<f64>,
    rttvar: f64,
    /// `RtoRule::Ns2`'s fixed-point estimator.
    ns2_rto: Ns2Rto,
    p: f64,
    /// Time last doubled in slow start (tld).
    tld: Option<SimTime>,
    /// Mean segment size s (§4.1), bytes.
    s: f64,
    got_feedback: bool,
    nofeedback_at: SimTime,
    /// Nothing was sent since the nofeedback timer was last set (§4.4).
    idle_since_timer: bool,
    /// §8.2.1 data-limited interval state.
    not_limited1: SimTime,
    not_limited2: SimTime,
    t_new: SimTime,
    t_next: SimTime,
    data_limited: bool,
    /// Faster Restart's X_fast_max.
    x_fast_max: f64,
    /// Data packets sent so far, and when the last one went.
    sent: u64,
    t_last_sent: SimTime,
    /// `Linux2008`: the nofeedback timer expired since the last feedback
    /// (Linux's NO_FBACK state); the next feedback, while p = 0, leaves X.
    expired: bool,
    /// §4.5: R_sqmean (0 until the first sample) and the latest √R_sample.
    r_sqmean: f64,
    sqrt_sample: f64,
}

impl TfrcSender {
    /// A sender whose first packets will be `s0` bytes. Until feedback the
    /// rate is one packet per second and the nofeedback timer 2 s (§4.2).
    pub fn new(cfg: TfrcConfig, s0: u32, now: SimTime) -> Self {
        let s = s0.max(1) as f64;
        let x = one_packet_per_second(&cfg, s);
        TfrcSender {
            x,
            x_calc: f64::INFINITY,
            x_recv_set: vec![(SimTime::ZERO, f64::INFINITY)],
            r: None,
            rttvar: 0.0,
            ns2_rto: Ns2Rto::default(),
            p: 0.0,
            tld: None,
            s,
            got_feedback: false,
            nofeedback_at: now + SimDuration::from_secs(2),
            idle_since_timer: true,
            not_limited1: SimTime::ZERO,
            not_limited2: SimTime::ZERO,
            t_new: SimTime::ZERO,
            t_next: SimTime::ZERO,
            data_limited: false,
            x_fast_max: 0.0,
            sent: 0,
            t_last_sent: SimTime::ZERO,
            expired: false,
            r_sqmean: 0.0,
            sqrt_sample: 0.0,
            cfg,
        }
    }

    pub fn config(&self) -> &TfrcConfig {
        &self.cfg
    }
    /// X_Bps (∞ before the first loss).
    pub fn x_calc(&self) -> f64 {
        self.x_calc
    }
    /// The receive rate the rate is limited by (max of X_recv_set).
    pub fn x_recv(&self) -> f64 {
        self.max_recv()
    }
    pub fn p(&self) -> f64 {
        self.p
    }
    pub fn rtt(&self) -> Option<f64> {
        self.r
    }
    pub fn s(&self) -> f64 {
        self.s
    }

    /// The application's first unit is `bytes` long: before any packet went
    /// out, s is this size rather than the configured default, and so is
    /// every rate derived from s so far. RFC 5348 §4.2 (RFC 3448 §4.2)
    /// starts at "one packet per second" and W_init/R of the *segment
    /// size s* the sender will use; a G.711 call (172 B segments) starts at
    /// 1 376 b/s, not the 11 680 b/s of a 1460 B default (RFC 5622 §5
    /// keeps s the real packet size outside the equation). The rate in
    /// force (one packet per second, or W_init/R after a handshake RTT, or
    /// the seed 003 variants' eqs. 7/13) is rescaled by the new start over
    /// the old, so nofeedback halvings already applied are kept.
    pub fn hint_segment(&mut self, bytes: u32) {
        if self.sent > 0 {
            return;
        }
        let old = self.start_rate();
        self.s = bytes.max(1) as f64;
        if !self.got_feedback && old > 0.0 {
            self.x *= self.start_rate() / old;
        }
    }

    /// The rate a sender with no feedback yet starts from: W_init/R once a
    /// handshake measured R under RFC 5348 (§4.2) or Linux 2008, one packet
    /// per second otherwise; FR-MD's floor of 8 packets per RTT once R is
    /// known (`floor`).
    fn start_rate(&self) -> f64 {
        match (self.r, self.cfg.spec) {
            (Some(r), TfrcSpec::Rfc5348 | TfrcSpec::Linux2008) => self.floor(self.initial_rate(r)),
            _ => self.floor(one_packet_per_second(&self.cfg, self.s)),
        }
    }

    /// An RTT measured before data flows (DCCP handshake, §4.2): RFC 5348
    /// and Linux 2008 start at W_init/R at once; RFC 3448 keeps one packet
    /// per second. Seed 000's FR-MD never sends below 8(s + H)/R once R is
    /// known, the handshake's R included: its "minimal sending rate" holds
    /// "at all times" (§5.1, l. 703, 727), and the thesis compares it, as
    /// FR-MD's *initial* send rate, with TCP's RFC 3390 initial window, "one
    /// order of magnitude" larger (§5.2, l. 829–833: 4·1460 B against
    /// 8·(32 + 40) B per RTT for G.729). Under RFC 3448 one packet per
    /// second (32 B/s for G.729) would make TCP's ~900 times larger.
    pub fn on_handshake_rtt(&mut self, now: SimTime, rtt: SimDuration) {
        let r = rtt.as_secs_f64().max(1e-6);
        self.r = Some(r);
        self.rttvar = r / 2.0;
        // Linux 2008 did the same with the handshake's RTT ("use initial
        // RTT sample when available", the RFC 4342 erratum; rfc3448bis-00
        // §4.2).
        if self.cfg.spec != TfrcSpec::Rfc3448 {
            self.x = self.initial_rate(r);
            self.tld = Some(now);
        }
        self.x = self.floor(self.x);
    }

    /// The slow-start floor and first rate: W_init/R (RFC 5348 §4.2,
    /// "4 packets per RTT" for small packets), s/R for RFC 3448 (§4.3 step
    /// 4 of RFC 3448, seed 003 Table 9: 1 packet per RTT), or the seed 003
    /// variants' eqs. (7) and (13).
    fn initial_rate(&self, r: f64) -> f64 {
        let corr = self.s / (self.s + self.cfg.header as f64);
        match self.cfg.variant {
            Variant::N => 4380.0 / r * corr,
            Variant::N100 => 4380.0 / self.cfg.nominal_rtt.as_secs_f64() * corr,
            _ => match self.cfg.spec {
                TfrcSpec::Rfc5348 | TfrcSpec::Linux2008 => w_init(self.s) / r,
                TfrcSpec::Rfc3448 => self.s / r,
            },
        }
    }

    /// The slow-start floor of §4.3 step 4: the initial rate, except that
    /// `Linux2008` keeps RFC 3448's s/R there (its W_init/R is the first
    /// rate and the idle floor only).
    fn ss_floor(&self, r: f64) -> f64 {
        match (self.cfg.spec, self.cfg.variant) {
            (TfrcSpec::Linux2008, Variant::Standard | Variant::FrMd) => self.s / r,
            _ => self.initial_rate(r),
        }
    }

    /// Seed 003 eq. (8) at the sender: N_Fb = min(max(round(R/RTT_ref), 1),
    /// R·X_recv/s), from the sender's own R, X_recv and s.
    fn n_fb(&self, r: f64) -> f64 {
        let by_rtt = (r / self.cfg.nominal_rtt.as_secs_f64()).round().max(1.0);
        let recv = self.max_recv();
        let by_rate = if recv.is_finite() { (r * recv / self.s).floor().max(1.0) } else { by_rtt };
        by_rtt.min(by_rate)
    }

    /// Faster Restart's growth in slow start: "quadruples the sending rate
    /// after idle periods (instead of doubling as in both RFCs)" (seed 003
    /// §9 on [42]; the draft's rule is X_fast_max-bounded): the limit may
    /// reach 4·X_recv while below X_fast_max (`fr_slow_start`).
    fn ss_limit(&self, recv: f64) -> f64 {
        if self.fr_slow_start() {
            (2.0 * recv).max((4.0 * recv).min(self.x_fast_max))
        } else {
            2.0 * recv
        }
    }

    /// Whether Faster Restart's slow-start quadrupling applies: the draft,
    /// under the RFC 3448-based rule sets, whose only restart mechanism is
    /// slow start from the rate idleness left. Under RFC 5348 the draft's
    /// recover rate and congestion-avoidance limit carry Faster Restart
    /// (seed 003 §9: FR "does not bring substantial performance
    /// improvement to RFC 5348").
    fn fr_slow_start(&self) -> bool {
        self.cfg.faster_restart == FasterRestart::Draft && self.cfg.spec != TfrcSpec::Rfc5348
    }

    /// The rate an idle sender keeps (RFC 5348 §4.4 recover_rate = W_init/R);
    /// Faster Restart's 8 packets per RTT for small packets, i.e.
    /// min(8s, max(2s, 4380))/R (seed 003 §8: "8 packets/RTT for small
    /// packet size, … 4 packets for standard TFRC packet size").
    fn recover_rate(&self, r: f64) -> f64 {
        let base = self.initial_rate(r);
        match self.cfg.faster_restart {
            FasterRestart::Off => base,
            _ => base.max((8.0 * self.s).min((2.0 * self.s).max(4380.0)) / r),
        }
    }

    /// RFC 3448 §4.4: idleness never takes X below 2 packets per RTT;
    /// the Faster Restart draft raises that to its recover rate, 8 packets
    /// per RTT for small packets (seed 003 §9: "increases the idle period
    /// recovery rate to 8 packets/RTT for small packet size"). Seed 000's
    /// emulation (§2.2.4) changed only the congestion-avoidance limit, and
    /// the thesis finds TFRC SP FR identical to TFRC SP without loss (§5.1,
    /// "both may only double per RTT in slow start"): no floor there.
    fn idle_floor_3448(&self, r: f64) -> f64 {
        match self.cfg.faster_restart {
            FasterRestart::Draft => (2.0 * self.s / r).max((8.0 * self.s).min((2.0 * self.s).max(4380.0)) / r),
            FasterRestart::Off | FasterRestart::Emulated => 2.0 * self.s / r,
        }
    }

    fn min_rate(&self) -> f64 {
        self.s / self.cfg.t_mbi.as_secs_f64()
    }

    fn max_recv(&self) -> f64 {
        self.x_recv_set.iter().map(|e| e.1).fold(0.0, f64::max)
    }

    /// The floor of seed 000's FR-MD: eight packets per RTT.
    fn floor(&self, x: f64) -> f64 {
        match (self.cfg.variant, self.r) {
            (Variant::FrMd, Some(r)) => x.max(8.0 * self.s / r),
            _ => x,
        }
    }

    fn t_rto(&self, r: f64) -> f64 {
        match self.cfg.rto {
            RtoRule::Ns2 if self.ns2_rto != Ns2Rto::default() => self.ns2_rto.rto(self.cfg.ns2_tick()),
            _ => self.cfg.t_rto(r, self.rttvar),
        }
    }

    /// The multiple of the receive rate the rate may reach in congestion
    /// avoidance: 2 (§4.3), or Faster Restart's 4 (below X_fast_max for
    /// the draft, always for seed 000's emulation).
    fn ca_limit(&self, recv: f64) -> f64 {
        match self.cfg.faster_restart {
            FasterRestart::Off => 2.0 * recv,
            FasterRestart::Emulated => 4.0 * recv,
            FasterRestart::Draft => (2.0 * recv).max((4.0 * recv).min(self.x_fast_max)),
        }
    }

    fn rearm(&mut self, now: SimTime) {
        let r = self.r.unwrap_or(0.0);
        let t = (4.0 * r).max(2.0 * self.s / self.x.max(1e-9));
        let t = if self.r.is_none() { t.max(2.0) } else { t };
        self.nofeedback_at = now + SimDuration::from_secs_f64(t.min(1e6));
        self.idle_since_timer = true;
    }

    /// §4.3 step 4, the X update once recv_limit is known.
    fn update_x(&mut self, now: SimTime, recv_limit: f64, r: f64) {
        if self.p > 0.0 {
            self.x_calc = tfrc_rate(self.cfg.equation_s(self.s), r, self.p, self.t_rto(r));
            self.x = self.x_calc.min(recv_limit).max(self.min_rate());
        } else {
            // §4.3: at most one increase per R (tld), or per observation
            // interval R/N_Fb with seed 003's dynamic feedback.
            let gate = if self.cfg.dynamic_feedback { r / self.n_fb(r) } else { r };
            if self.tld.is_none_or(|t| now.saturating_since(t).as_secs_f64() >= gate) {
                let k = if self.fr_slow_start() && self.x < self.x_fast_max { 4.0 } else { 2.0 };
                self.x = (k * self.x).min(recv_limit).max(self.ss_floor(r));
                self.tld = Some(now);
            }
        }
        self.x = self.floor(self.x);
    }

    /// RFC 5348 §4.3 step 4's receive limit, including the data-limited
    /// branches; RFC 3448 §4.3 uses 2·X_recv.
    fn recv_limit(&mut self, now: SimTime, x_recv: f64, loss_up: bool) -> f64 {
        if self.cfg.spec != TfrcSpec::Rfc5348 {
            self.x_recv_set = vec![(now, x_recv)];
            let limit = if self.p > 0.0 { self.ca_limit(x_recv) } else { self.ss_limit(x_recv) };
            return self.linux_idle_floor(now, limit);
        }
        if self.data_limited {
            if loss_up {
                for e in &mut self.x_recv_set {
                    e.1 /= 2.0;
                }
                self.maximize(now, 0.85 * x_recv);
                return self.max_recv();
            }
            self.maximize(now, x_recv);
        } else {
            self.x_recv_set.push((now, x_recv));
            let keep = SimDuration::from_secs_f64(2.0 * self.r.unwrap_or(0.0));
            self.x_recv_set.retain(|e| e.0 + keep > now || e.0 == now);
            let n = self.x_recv_set.len();
            if n > 3 {
                self.x_recv_set.drain(..n - 3);
            }
        }
        let m = self.max_recv();
        if self.p > 0.0 {
            self.ca_limit(m)
        } else {
            self.ss_limit(m)
        }
    }

    /// `Linux2008`: a sender that has sent nothing for two RTTs is "idle"
    /// (rfc3448bis-00's definition) and its receive limit is at least the
    /// initial rate (RFC 4342 §5.1); the seed 003 variants' initial rate
    /// (eqs. 7, 13) is that floor for CCID4-N/N100.
    fn linux_idle_floor(&self, now: SimTime, limit: f64) -> f64 {
        match (self.cfg.spec, self.r) {
            (TfrcSpec::Linux2008, Some(r)) if now.saturating_since(self.t_last_sent).as_secs_f64() >= 2.0 * r => {
                limit.max(self.initial_rate(r))
            }
            _ => limit,
        }
    }

    /// "Maximize X_recv_set" (§4.3): keep only the largest, stamped now.
    fn maximize(&mut self, now: SimTime, x_recv: f64) {
        self.x_recv_set.push((now, x_recv));
        let m = self.x_recv_set.iter().map(|e| e.1).filter(|v| v.is_finite()).fold(0.0, f64::max);
        self.x_recv_set = vec![(now, m)];
    }

    /// §8.2.1: was the interval this feedback covers data-limited?
    fn classify_interval(&mut self, now: SimTime, t_recvdata: SimTime, r: f64) {
        self.t_new = t_recvdata;
        let t_old = SimTime(t_recvdata.0.saturating_sub(SimDuration::from_secs_f64(r).0));
        self.t_next = now;
        let inside = |t: SimTime| t > t_old && t <= t_recvdata;
        self.data_limited = !(inside(self.not_limited1) || inside(self.not_limited2));
        if self.not_limited1 <= self.t_new && self.not_limited2 > self.t_new {
            self.not_limited1 = self.not_limited2;
        }
    }

    /// Update_Limits of §4.4.
    fn update_limits(&mut self, now: SimTime, limit: f64) {
        let limit = limit.max(self.min_rate());
        self.x_recv_set = vec![(now, limit / 2.0)];
        let r = self.r.unwrap_or(1.0);
        self.x_calc = tfrc_rate(self.cfg.equation_s(self.s), r, self.p, self.t_rto(r));
        self.x = self.floor(self.x_calc.min(limit).max(self.min_rate()));
    }
}

impl RateController for TfrcSender {
    fn rate(&self) -> f64 {
        if self.cfg.oscillation_reduction && self.r_sqmean > 0.0 {
            // RFC 5348 §4.5: X_inst = X·R_sqmean/√R_sample.
            return self.x * self.r_sqmean / self.sqrt_sample;
        }
        self.x
    }

    fn on_packet_sent(&mut self, now: SimTime, bytes: u32) {
        self.t_last_sent = now;
        // §4.1: s is the mean segment size; an EWMA with gain 1/4 follows
        // codec changes within a few packets and is exact for CBR.
        let b = bytes.max(1) as f64;
        self.s = if self.sent == 0 { b } else { 0.75 * self.s + 0.25 * b };
        self.sent += 1;
        self.idle_since_timer = false;
    }

    fn on_rate_limited(&mut self, now: SimTime) {
        if self.not_limited1 <= self.t_new {
            self.not_limited1 = now;
        } else if self.not_limited2 <= self.t_next {
            self.not_limited2 = now;
        }
    }

    fn on_feedback(&mut self, now: SimTime, fb: &Feedback) {
        // Steps 1–3: RTT sample, smoothed R, t_RTO.
        let sample = (now.saturating_since(fb.t_recvdata).as_secs_f64() - fb.t_delay.as_secs_f64()).max(1e-6);
        let first_rtt = self.r.is_none();
        let r = match self.r {
            None => {
                self.rttvar = sample / 2.0;
                sample
            }
            Some(r) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (r - sample).abs();
                self.cfg.q * r + (1.0 - self.cfg.q) * sample
            }
        };
        self.r = Some(r);
        if self.cfg.rto == RtoRule::Ns2 {
            self.ns2_rto.sample(sample, self.cfg.ns2_tick());
        }
        if self.cfg.oscillation_reduction {
            // §4.5: R_sqmean = q2·R_sqmean + (1 − q2)·√R_sample, seeded
            // with the first sample's root.
            self.sqrt_sample = sample.sqrt();
            self.r_sqmean = if self.r_sqmean == 0.0 {
                self.sqrt_sample
            } else {
                self.cfg.q2 * self.r_sqmean + (1.0 - self.cfg.q2) * self.sqrt_sample
            };
        }
        let loss_up = fb.p > self.p;
        self.p = fb.p;
        let first_fb = !self.got_feedback;
        self.got_feedback = true;
        let expired = std::mem::replace(&mut self.expired, false);
        // Faster Restart: X_fast_max tracks the loss-free receive rate and
        // halves at each loss event (seed 000 §2.2.4).
        if loss_up {
            self.x_fast_max /= 2.0;
        } else {
            self.x_fast_max = self.x_fast_max.max(fb.x_recv);
        }
        self.classify_interval(now, fb.t_recvdata, r);
        if first_rtt && self.cfg.spec == TfrcSpec::Rfc5348 {
            // §4.2: the first RTT measurement sets X = W_init/R.
            self.x = self.floor(self.initial_rate(r));
            self.tld = Some(now);
            self.x_recv_set = vec![(now, f64::INFINITY)];
        } else if self.cfg.spec == TfrcSpec::Linux2008 && first_fb {
            // Linux 2008: the first feedback sets X = W_init/R (or eq. 7/13)
            // and ignores its X_recv (its receiver reports 0 there).
            self.x = self.floor(self.initial_rate(r));
            self.tld = Some(now);
            self.x_recv_set = vec![(now, fb.x_recv)];
        } else if self.cfg.spec == TfrcSpec::Linux2008 && expired && self.p == 0.0 {
            // Linux 2008: the first feedback after a nofeedback expiry
            // while p = 0 leaves X as the expiry set it.
            self.x_recv_set = vec![(now, fb.x_recv)];
        } else {
            let limit = self.recv_limit(now, fb.x_recv, loss_up);
            self.update_x(now, limit, r);
        }
        self.rearm(now);
    }

    fn nofeedback_at(&self) -> SimTime {
        self.nofeedback_at
    }

    fn on_nofeedback(&mut self, now: SimTime) {
        let idle = self.idle_since_timer;
        match (self.cfg.spec, self.r) {
            (_, None) => self.x = (self.x / 2.0).max(self.min_rate()),
            (TfrcSpec::Rfc5348, Some(r)) => {
                // §4.4 step 1: an idle sender is not slowed further once
                // "(p > 0 and X_recv < recover_rate) or (p == 0 and X <
                // 2·recover_rate)". The test is on X_recv, the receive
                // limit each expiry halves (Update_Limits), not on X_Bps,
                // which idleness never moves: with X_Bps the test kept
                // failing and a silence halved X down to s/t_mbi (issue
                // 23: G.729 at 50 ms with 0.1 % loss lost 11-16 % of its
                // packets at the sender after each silence).
                let recover = self.recover_rate(r);
                let x_recv = self.max_recv();
                let keep = (self.p > 0.0 && x_recv < recover) || (self.p == 0.0 && self.x < 2.0 * recover);
                if keep && idle {
                    // Don't halve: an idle sender keeps the recover rate.
                } else if self.p == 0.0 {
                    self.x = self.floor((self.x / 2.0).max(self.min_rate()));
                } else if self.x_calc > 2.0 * x_recv {
                    self.update_limits(now, x_recv);
                } else {
                    self.update_limits(now, self.x_calc / 2.0);
                }
            }
            (TfrcSpec::Linux2008, Some(_)) => {
                // Linux 2008 (rfc3448bis-00 §4.4): before feedback or while
                // p = 0 X halves directly, idle or not; otherwise X_recv is
                // cut as RFC 3448's item (1) and X recomputed with the
                // idle floor. The next feedback, while p = 0, leaves X.
                if !self.got_feedback || self.p == 0.0 {
                    self.x = self.floor((self.x / 2.0).max(self.min_rate()));
                } else {
                    let x_recv = self.max_recv();
                    let nx = if self.x_calc > 2.0 * x_recv {
                        (x_recv / 2.0).max(self.s / (2.0 * self.cfg.t_mbi.as_secs_f64()))
                    } else {
                        self.x_calc / 4.0
                    };
                    self.x_recv_set = vec![(now, nx)];
                    let limit = self.linux_idle_floor(now, self.ca_limit(nx));
                    self.x = self.floor(self.x_calc.min(limit).max(self.min_rate()));
                }
                self.expired = true;
            }
            (TfrcSpec::Rfc3448, Some(r)) => {
                // RFC 3448 §4.4: halve the cached X_recv unless an idle
                // sender is already below 4 packets per RTT (so X never
                // falls under 2 packets per RTT from idleness). Item (2)
                // halves X itself, X = max(X/2, s/t_mbi), before any
                // feedback and, by verified erratum 1458, while p == 0:
                // there X_calc is undefined and halving X_recv would leave
                // X ≤ 2·X_recv/2 = the old X_recv, often no cut at all.
                // Without the erratum (`erratum_1458 = false`, RFC 3448 as
                // published, as ns-2.35's Agent/DCCP/TFRC) p == 0 takes
                // item (1): X_calc = ∞ > 2·X_recv halves X_recv; item (2)
                // then recomputes X by §4.3's p = 0 rule, X = max(min(2X,
                // 2·X_recv), s/R) once R has passed since tld.
                let x_recv = self.max_recv();
                if !self.got_feedback {
                    self.x = self.floor((self.x / 2.0).max(self.min_rate()));
                } else if idle && x_recv < 2.0 * self.idle_floor_3448(r) {
                    // idle below twice the floor (4 packets per RTT, or
                    // Faster Restart's 2 × 8): neither is reduced
                } else if self.p == 0.0 && self.cfg.erratum_1458 {
                    self.x = self.floor((self.x / 2.0).max(self.min_rate()));
                } else if self.p == 0.0 {
                    let nx = (x_recv / 2.0).max(self.s / (2.0 * self.cfg.t_mbi.as_secs_f64()));
                    self.x_recv_set = vec![(now, nx)];
                    let limit = self.ss_limit(nx);
                    self.update_x(now, limit, r);
                } else {
                    let nx = if self.x_calc > 2.0 * x_recv {
                        (x_recv / 2.0).max(self.s / (2.0 * self.cfg.t_mbi.as_secs_f64()))
                    } else {
                        self.x_calc / 4.0
                    };
                    self.x_recv_set = vec![(now, nx)];
                    self.x = self.floor(self.x_calc.min(self.ca_limit(nx)).max(self.min_rate()));
                }
            }
        }
        self.rearm(now);
    }
}
