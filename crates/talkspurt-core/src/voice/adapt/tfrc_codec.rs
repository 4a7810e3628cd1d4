//! `tfrc-codec`: seed 000 §3.1 (Strategy 3 of the DCCP VoIP draft it
//! cites) and §3.6. Over DCCP CCID 3/4 (or plain TFRC) the sender hears
//! the transport's allowed rate X (`AppEvent::RateChanged`) and:
//!
//! - **codec choice**: uses the highest mode of its multi-rate codec whose
//!   rate is not above X (the lowest mode when none fits); "rate" in
//!   TFRC's unit, segment bits per second: (payload + the call's overhead
//!   less IP and UDP) × 8 / ptime (RFC 5348 §4.1's s counts the transport
//!   payload, which here includes the RTP header);
//! - **padding** (optional, `pad`): "the application should pad its
//!   transmission to the allowed TFRC rate" so X does not decay to twice
//!   the receive rate (RFC 5348 §4.3's data-limited rule) and a
//!   higher-rate mode can come back. Each packet is padded up to X·ptime/8
//!   segment bytes (RTP padding, RFC 3550 §5.1 P bit, so at most 255
//!   octets); padding is not speech (the call's records keep the speech
//!   payload) and the transport's rate equation leaves it out of s (see
//!   `transport::tfrc::sender`: a padded s would make X_calc follow X
//!   down);
//! - **start-up probe** (optional, `probe`): "an initial rate increase
//!   phase in which no actual voice communication takes place … If this
//!   rate is not achieved within a reasonable amount of time, the
//!   connection is interrupted and the call is cleared". From the call's
//!   start the sender sends idle packets of its starting mode's size on
//!   the voice clock; once X reaches that mode's rate speech begins (in
//!   the highest mode X allows); if it has not by `start + probe`, the
//!   call is cleared and sends nothing more. Packets of the probe are not
//!   speech: they are not in the call's records.
//!
//! Readings (docs/models/rtp.md): the seed gives no numbers; the probe's
//! limit defaults to 3 s (configurable); the probe's target is the
//! starting mode (the `codec`), the "appropriate rate for beginning voice
//! transmission". Mode switches apply from the next packet, like every
//! adaptation.

use crate::time::{SimDuration, SimTime};
use crate::voice::Codec;

/// RTP padding's limit: its last octet counts it (RFC 3550 §5.1).
pub const MAX_PAD: u64 = 255;

#[derive(Clone, Debug, PartialEq)]
pub struct TfrcCodecCfg {
    /// The allowed modes in ascending rate (same frame).
    pub modes: Vec<&'static Codec>,
    /// Frames per packet (fixed ptime).
    pub frames: u32,
    /// Header bytes inside TFRC's segment (the call's overhead less IP
    /// and UDP: the RTP header).
    pub seg_overhead: u32,
    pub pad: bool,
    /// Start-up probe limit; None: no probe (speech from the start).
    pub probe: Option<SimDuration>,
}

/// What the sender does with the packet the voice clock produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Send speech (padded by this many bytes).
    Speech { pad: u32 },
    /// Still probing: send an idle packet of this many payload bytes.
    Idle(u32),
    /// The call was cleared: send nothing.
    Cleared,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Probing { until: SimTime },
    Talking,
    Cleared { at: SimTime },
}

#[derive(Debug)]
pub struct TfrcCodec {
    cfg: TfrcCodecCfg,
    idx: usize,
    start_idx: usize,
    start: SimTime,
    phase: Phase,
    /// The transport's latest allowed rate, segment bit/s (None: not
    /// heard yet).
    pub allowed_bps: Option<f64>,
    /// When the probe succeeded (speech began).
    pub talking_at: Option<SimTime>,
}

impl TfrcCodec {
    pub fn new(cfg: TfrcCodecCfg, start_mode: &Codec, start: SimTime) -> Self {
        let idx = cfg.modes.iter().position(|m| m.name == start_mode.name).expect("the call's codec is one of its modes");
        let phase = match cfg.probe {
            Some(p) => Phase::Probing { until: start + p },
            None => Phase::Talking,
        };
        let talking_at = cfg.probe.is_none().then_some(start);
        TfrcCodec { cfg, idx, start_idx: idx, start, phase, allowed_bps: None, talking_at }
    }

    /// Segment bytes of one packet of mode `i`.
    fn seg_bytes(&self, i: usize) -> u32 {
        self.cfg.frames * self.cfg.modes[i].frame_bytes + self.cfg.seg_overhead
    }

    /// Mode `i`'s rate in TFRC's unit (segment bit/s).
    pub fn need_bps(&self, i: usize) -> f64 {
        let ptime = self.cfg.modes[i].frame.mul(self.cfg.frames as u64).as_secs_f64();
        self.seg_bytes(i) as f64 * 8.0 / ptime
    }

    pub fn mode(&self) -> &'static Codec {
        self.cfg.modes[self.idx]
    }

    /// The highest mode not above `bps` (the lowest when none is).
    fn fit(&self, bps: f64) -> usize {
        (0..self.cfg.modes.len()).rev().find(|&i| self.need_bps(i) <= bps).unwrap_or(0)
    }

    /// The transport's allowed rate changed (`AppEvent::RateChanged`).
    pub fn on_rate(&mut self, now: SimTime, bps: f64) -> Option<&'static Codec> {
        self.allowed_bps = Some(bps);
        if let Phase::Probing { until } = self.phase {
            if now > until {
                return None; // cleared at the next packet
            }
            if bps < self.need_bps(self.start_idx) {
                return None;
            }
            self.phase = Phase::Talking;
            self.talking_at = Some(now);
        }
        if matches!(self.phase, Phase::Cleared { .. }) {
            return None;
        }
        let next = self.fit(bps);
        (next != self.idx).then(|| {
            self.idx = next;
            self.mode()
        })
    }

    /// The voice clock produced a packet of `payload` speech bytes at `now`.
    pub fn gate(&mut self, now: SimTime, payload: u32, ptime: SimDuration) -> Gate {
        match self.phase {
            Phase::Cleared { .. } => Gate::Cleared,
            Phase::Probing { until } if now >= until => {
                self.phase = Phase::Cleared { at: until };
                Gate::Cleared
            }
            Phase::Probing { .. } => Gate::Idle(self.seg_bytes(self.start_idx) - self.cfg.seg_overhead),
            Phase::Talking => {
                let pad = match (self.cfg.pad, self.allowed_bps) {
                    (true, Some(x)) => {
                        let room = (x * ptime.as_secs_f64() / 8.0).floor() as u64;
                        room.saturating_sub((payload + self.cfg.seg_overhead) as u64).min(MAX_PAD) as u32
                    }
                    _ => 0,
                };
                Gate::Speech { pad }
            }
        }
    }

    /// Whether the call starts with a probe.
    pub fn probes(&self) -> bool {
        self.cfg.probe.is_some()
    }

    /// When the call was cleared, if it was.
    pub fn cleared_at(&self) -> Option<SimTime> {
        match self.phase {
            Phase::Cleared { at } => Some(at),
            _ => None,
        }
    }

    /// How long the probe took (None: cleared or still probing).
    pub fn probe_time(&self) -> Option<SimDuration> {
        self.talking_at.map(|t| t.saturating_since(self.start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::codec::{lookup, modes};

    fn at(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000)
    }

    fn amr(pad: bool, probe: Option<u64>) -> TfrcCodec {
        // AMR-NB at ptime 20 ms (1 frame), 12 B RTP header in the segment:
        // mode rates (12 + bytes)·8/0.02 = 9.6, 10.0, 10.8, 11.6, 12.4,
        // 12.8, 15.2 and 17.2 kb/s for 4.75 … 12.2.
        let c = lookup("AMR-NB-12.2").unwrap();
        let cfg = TfrcCodecCfg { modes: modes(c), frames: 1, seg_overhead: 12, pad, probe: probe.map(SimDuration::from_millis) };
        TfrcCodec::new(cfg, c, at(0))
    }

    /// Codec choice follows X step by step: 17.2 kb/s keeps 12.2; 15.0
    /// → 7.95 (12.8 ≤ 15.0 < 15.2); 15.2 → 10.2 (equal is allowed); 5
    /// kb/s (below every mode) → 4.75; 11.9 → 6.7 (11.6); 100 kb/s → 12.2.
    #[test]
    fn follows_allowed_rate() {
        let mut a = amr(false, None);
        assert_eq!(a.need_bps(7), 17_200.0);
        assert_eq!(a.need_bps(0), 9_600.0);
        let script = [(17_200.0, None), (15_000.0, Some("AMR-NB-7.95")), (15_200.0, Some("AMR-NB-10.2")), (5_000.0, Some("AMR-NB-4.75")), (11_900.0, Some("AMR-NB-6.7")), (100_000.0, Some("AMR-NB-12.2"))];
        for (i, (x, want)) in script.iter().enumerate() {
            assert_eq!(a.on_rate(at(100 * i as u64), *x).map(|c| c.name), *want, "step {i}: X {x}");
        }
        assert_eq!(a.gate(at(1_000), 31, SimDuration::from_millis(20)), Gate::Speech { pad: 0 });
    }

    /// Padding fills the packet to X·ptime/8 segment bytes: X = 40 kb/s,
    /// 20 ms → 100 B; a 12.2 packet is 31 + 12 = 43 B: 57 B of padding.
    /// Before any X is heard, no padding.
    #[test]
    fn pads_to_allowed_rate() {
        let mut a = amr(true, None);
        let p = SimDuration::from_millis(20);
        assert_eq!(a.gate(at(10), 31, p), Gate::Speech { pad: 0 });
        a.on_rate(at(20), 40_000.0);
        assert_eq!(a.gate(at(40), 31, p), Gate::Speech { pad: 57 });
        // X below the packet: nothing to pad (and the mode drops).
        assert_eq!(a.on_rate(at(60), 10_000.0).map(|c| c.name), Some("AMR-NB-5.15"));
        assert_eq!(a.gate(at(80), 13, p), Gate::Speech { pad: 0 });
    }

    /// The probe: idle packets of the starting mode (31 B) until X reaches
    /// its 17.2 kb/s; 16 kb/s at 0.5 s is not enough; 20 kb/s at 1.2 s
    /// starts speech in the highest mode X allows (12.2, no change);
    /// probe time 1.2 s. A second call never reaches it and is cleared at
    /// its 3 s limit; later rates do not revive it.
    #[test]
    fn probe_then_talk_or_clear() {
        let p = SimDuration::from_millis(20);
        let mut a = amr(false, Some(3_000));
        assert_eq!(a.gate(at(20), 31, p), Gate::Idle(31));
        assert_eq!(a.on_rate(at(500), 16_000.0), None);
        assert_eq!(a.gate(at(520), 31, p), Gate::Idle(31));
        assert_eq!(a.on_rate(at(1_200), 20_000.0), None);
        assert_eq!(a.gate(at(1_220), 31, p), Gate::Speech { pad: 0 });
        assert_eq!(a.probe_time(), Some(SimDuration::from_millis(1_200)));
        assert_eq!(a.cleared_at(), None);

        let mut b = amr(false, Some(3_000));
        b.on_rate(at(800), 12_000.0);
        assert_eq!(b.gate(at(2_980), 31, p), Gate::Idle(31));
        assert_eq!(b.gate(at(3_000), 31, p), Gate::Cleared);
        assert_eq!(b.on_rate(at(3_100), 50_000.0), None);
        assert_eq!(b.gate(at(3_120), 31, p), Gate::Cleared);
        assert_eq!((b.cleared_at(), b.probe_time()), (Some(at(3_000)), None));
    }
}
