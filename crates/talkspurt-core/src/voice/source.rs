//! A voice source: codec frames on the call's frame clock, grouped into
//! packets of `ptime`; with silence suppression (VAD) no frames are sent in
//! silence and the last packet of a talkspurt carries only the frames left.
//! Every packet carries its talkspurt id. The application may change ptime
//! or the bytes per frame (rate) mid-call; the change applies from the next
//! packet.

use super::codec::Codec;
use super::speech::SpeechProcess;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VoicePacket {
    /// When the packet was complete (its last frame captured).
    pub t_gen: SimTime,
    pub payload: u32,
    pub frames: u32,
    pub talkspurt: u32,
}

/// Fields in the order a packet reads them (`repr(C)`): the frame clock
/// and counters first, in two cache lines at most, the speech process and
/// the send jitter's generator boxed (touched once a talkspurt, or only
/// with `send_jitter`). At 10 000 calls every line of a call's state is a
/// cache miss per packet (issue 14, bench/README.md).
#[derive(Debug)]
#[repr(C)]
pub struct VoiceSource {
    /// First frame of the next packet.
    next_frame: u64,
    /// Frames from this index on are not generated (call over).
    stop_frame: u64,
    /// Exclusive end of the current talkspurt.
    spurt_end: u64,
    /// `emit` looks at the talkspurts and the jitter only for a packet
    /// ending at or after this frame: the talkspurt's end with
    /// suppression, the next one's first frame without, 0 with
    /// `send_jitter` (every packet). One compare per packet instead of
    /// both cases' (issue 26 target 3).
    turn: u64,
    /// The frame clock's origin: the call's start moved by the drift
    /// (`send_jitter`), modulo 2^64 (one field instead of two keeps the
    /// call's per-packet state in three cache lines; `at`).
    origin: u64,
    frame: SimDuration,
    frame_bytes: u32,
    frames_per_pkt: u32,
    talkspurt: u32,
    vad: bool,
    /// ns-2's CBR `random_` (cbr_traffic.cc): each gap is the interval ×
    /// (½ + U[0, 1)), so packets drift off the frame clock (`origin`)
    /// while keeping the mean rate. None: exactly periodic.
    send_jitter: Option<Box<Rng>>,
    speech: Box<Spurts>,
}

/// The speech process and the first frame of the next talkspurt: read
/// once a talkspurt.
#[derive(Debug)]
struct Spurts {
    process: SpeechProcess,
    next_begin: u64,
}

impl VoiceSource {
    /// A call generating from `start` until `stop`: a packet is sent only if
    /// its last frame ends by `stop`.
    pub fn new(codec: &Codec, frames_per_pkt: u32, start: SimTime, stop: SimTime, vad: bool, speech: SpeechProcess) -> Self {
        Self::with_frame(codec.frame, codec.frame_bytes, frames_per_pkt, start, stop, vad, speech)
    }

    /// A source on a frame clock of its own (a bit-rate adaptation's packet
    /// interval, `frame_bytes` following its rate).
    pub fn with_frame(frame: SimDuration, frame_bytes: u32, frames_per_pkt: u32, start: SimTime, stop: SimTime, vad: bool, mut speech: SpeechProcess) -> Self {
        let stop_frame = stop.saturating_since(start).as_nanos() / frame.as_nanos();
        // A schedule may begin in silence: with suppression nothing is sent
        // before its first talkspurt.
        let lead = speech.lead_frames();
        let spurt_end = lead.saturating_add(speech.talk_frames());
        let next_begin = spurt_end.saturating_add(speech.silence_frames());
        let vad = vad && !speech.is_continuous();
        let mut s = VoiceSource {
            frame,
            frame_bytes,
            frames_per_pkt,
            origin: start.0,
            stop_frame,
            vad,
            speech: Box::new(Spurts { process: speech, next_begin }),
            next_frame: if vad { lead } else { 0 },
            spurt_end,
            turn: 0,
            talkspurt: 0,
            send_jitter: None,
        };
        s.set_turn();
        s
    }

    fn set_turn(&mut self) {
        self.turn = match (&self.send_jitter, self.vad) {
            (Some(_), _) => 0,
            (None, true) => self.spurt_end,
            (None, false) => self.speech.next_begin,
        };
    }

    /// Jitter each gap as ns-2's CBR `random_` does (seed 004's sources),
    /// drawing from `rng`. For one-frame packets (bit-rate calls).
    pub fn with_send_jitter(mut self, rng: Rng) -> Self {
        self.send_jitter = Some(Box::new(rng));
        self.set_turn();
        self
    }

    /// The frame clock's instant `e` frames in, moved by the drift: start
    /// + frame·e + drift modulo 2^64, the low 64 bits of the exact sum, as
    /// the 128-bit sum this replaced gave (drift may be negative).
    #[inline]
    fn at(&self, e: u64) -> SimTime {
        SimTime(self.origin.wrapping_add(self.frame.as_nanos() * e))
    }

    #[inline]
    fn next_span(&self) -> Option<(u64, u64)> {
        self.span_from(self.next_frame)
    }

    /// The frames of a packet whose first frame is `b`.
    #[inline(always)]
    fn span_from(&self, b: u64) -> Option<(u64, u64)> {
        if b >= self.stop_frame {
            return None;
        }
        let mut end = b + self.frames_per_pkt as u64;
        if self.vad {
            end = end.min(self.spurt_end);
        }
        // The call ends mid-packet: that packet is never completed, so it
        // is not sent (no truncated packet at hang-up).
        (end <= self.stop_frame).then_some((b, end))
    }

    /// When the next packet will be complete; `None` once the call is over.
    #[inline]
    pub fn next_ready(&self) -> Option<SimTime> {
        self.next_span().map(|(_, e)| self.at(e))
    }

    #[inline(never)]
    fn advance_spurt(&mut self) {
        let sp = &mut *self.speech;
        let begin = sp.next_begin;
        self.spurt_end = begin.saturating_add(sp.process.talk_frames());
        sp.next_begin = self.spurt_end.saturating_add(sp.process.silence_frames());
        self.talkspurt += 1;
        if self.vad {
            self.next_frame = begin;
        }
    }

    /// Emit the packet that is complete now (at `next_ready()`). Always
    /// inlined: once per voice packet, and out of line it costs the call's
    /// register saves (callgrind, bench/README.md).
    #[inline(always)]
    pub fn emit(&mut self) -> VoicePacket {
        self.emit_frames().0
    }

    /// `emit`, then `next_ready`: unless `emit` looked at the talkspurts,
    /// the next packet's frames follow from the counters just read
    /// (issue 26 target 3).
    #[inline(always)]
    pub fn emit_next(&mut self) -> (VoicePacket, Option<SimTime>) {
        let (pkt, e, rare) = self.emit_frames();
        let next = if rare { self.next_ready() } else { self.span_from(e).map(|(_, end)| self.at(end)) };
        (pkt, next)
    }

    /// `emit`, with the packet's end frame and whether the talkspurts or
    /// the jitter were looked at (out of line, so the frame counters stay
    /// in registers).
    #[inline(always)]
    fn emit_frames(&mut self) -> (VoicePacket, u64, bool) {
        let (b, e) = self.next_span().expect("emit after the call ended");
        let pkt = VoicePacket {
            t_gen: self.at(e),
            payload: (e - b) as u32 * self.frame_bytes,
            frames: (e - b) as u32,
            talkspurt: self.talkspurt,
        };
        self.next_frame = e;
        let rare = e >= self.turn;
        if rare {
            self.emitted_rare(e);
        }
        (pkt, e, rare)
    }

    /// The rest of `emit` for a packet ending at frame `e` that ends a
    /// talkspurt or has a jittered gap after it.
    #[cold]
    #[inline(never)]
    fn emitted_rare(&mut self, e: u64) {
        if let Some(rng) = &mut self.send_jitter {
            // Next gap = one interval × (½ + U): the drift moves by (U − ½)
            // of one, so times stay strictly increasing (gap ≥ ½ interval).
            let iv = (self.frame.as_nanos() * self.frames_per_pkt as u64) as f64;
            self.origin = self.origin.wrapping_add((iv * (rng.uniform() - 0.5)).round() as i64 as u64);
        }
        // With suppression a talkspurt ends with its last frame (`e` is
        // not past it); without, frames flow on and a talkspurt's label
        // covers its speech and the silence after it.
        if self.vad {
            if e == self.spurt_end {
                self.advance_spurt();
            }
        } else {
            while self.next_frame >= self.speech.next_begin {
                self.advance_spurt();
            }
        }
        self.set_turn();
    }

    /// Move the frame clock's origin to `at`, before any packet was
    /// emitted: the call's speech (its talkspurt schedule, in frames from
    /// the origin) starts at `at` and frames end by `stop` as before
    /// (`media_start = "connection"`).
    pub fn restart(&mut self, at: SimTime, stop: SimTime) {
        self.origin = at.0;
        self.stop_frame = stop.saturating_since(at).as_nanos() / self.frame.as_nanos();
    }

    /// Change packetization (frames per packet) from the next packet on.
    pub fn set_frames_per_packet(&mut self, k: u32) {
        self.frames_per_pkt = k.max(1);
    }

    /// Change the bytes per frame (the codec rate) from the next packet on.
    pub fn set_frame_bytes(&mut self, b: u32) {
        self.frame_bytes = b.max(1);
    }

    /// The source's frame clock.
    pub fn frame(&self) -> SimDuration {
        self.frame
    }

    /// Payload bytes per frame now (the codec rate).
    pub fn frame_bytes(&self) -> u32 {
        self.frame_bytes
    }

    pub fn ptime(&self) -> SimDuration {
        self.frame.mul(self.frames_per_pkt as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{DurationDist, Rng, StreamId};
    use crate::voice::codec::lookup;
    use crate::voice::speech::SpeechModel;

    fn constant_speech(talk_ms: u64, sil_ms: u64) -> SpeechProcess {
        let m = SpeechModel::OnOff {
            talk: DurationDist::Constant { mean: SimDuration::from_millis(talk_ms) },
            silence: DurationDist::Constant { mean: SimDuration::from_millis(sil_ms) },
        };
        SpeechProcess::new(m, SimDuration::from_millis(10), Rng::stream(1, 0, StreamId::new(1, 0)))
    }

    fn drain(s: &mut VoiceSource) -> Vec<VoicePacket> {
        std::iter::from_fn(|| s.next_ready().map(|_| s.emit())).collect()
    }

    #[test]
    fn continuous_g711_20ms() {
        let c = lookup("G.711").unwrap();
        let sp = SpeechProcess::new(SpeechModel::Continuous, c.frame, Rng::stream(1, 0, StreamId::new(1, 0)));
        let mut s = VoiceSource::new(c, 2, SimTime(0), SimTime(1_000_000_000), true, sp);
        let p = drain(&mut s);
        // 1 s of 20 ms packets: 50 packets of 160 B, the first complete at 20 ms.
        assert_eq!(p.len(), 50);
        assert!(p.iter().all(|x| x.payload == 160 && x.talkspurt == 0));
        assert_eq!(p[0].t_gen, SimTime(20_000_000));
        assert_eq!(p[49].t_gen, SimTime(1_000_000_000));
    }

    #[test]
    fn talkspurts_with_partial_last_packet() {
        // Talk 50 ms, silence 30 ms, G.711 10 ms frames, ptime 20 ms:
        // each talkspurt has packets of 2, 2, 1 frames; the next talkspurt
        // starts 80 ms after the previous one.
        let c = lookup("G.711").unwrap();
        let mut s = VoiceSource::new(c, 2, SimTime(0), SimTime(160_000_000), true, constant_speech(50, 30));
        let p = drain(&mut s);
        let frames: Vec<u32> = p.iter().map(|x| x.frames).collect();
        assert_eq!(frames, vec![2, 2, 1, 2, 2, 1]);
        let spurts: Vec<u32> = p.iter().map(|x| x.talkspurt).collect();
        assert_eq!(spurts, vec![0, 0, 0, 1, 1, 1]);
        let t: Vec<u64> = p.iter().map(|x| x.t_gen.0 / 1_000_000).collect();
        assert_eq!(t, vec![20, 40, 50, 100, 120, 130]);
    }

    #[test]
    fn without_vad_silence_is_sent_and_labelled() {
        let c = lookup("G.711").unwrap();
        let mut s = VoiceSource::new(c, 2, SimTime(0), SimTime(160_000_000), false, constant_speech(50, 30));
        let p = drain(&mut s);
        assert_eq!(p.len(), 8);
        assert!(p.iter().all(|x| x.frames == 2));
        // Packets starting at frames 0,2,4,6 belong to spurt 0; 8,10,12,14 to spurt 1.
        let spurts: Vec<u32> = p.iter().map(|x| x.talkspurt).collect();
        assert_eq!(spurts, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn emit_next_is_emit_then_next_ready() {
        // With and without suppression, with send jitter, talkspurts that
        // end mid-packet and a call that ends mid-packet.
        let c = lookup("G.711").unwrap();
        let make = |vad: bool, jitter: bool| {
            let s = VoiceSource::new(c, 3, SimTime(5), SimTime(1_000_000_000), vad, constant_speech(50, 30));
            if jitter {
                s.with_send_jitter(Rng::stream(3, 0, StreamId::new(1, 1)))
            } else {
                s
            }
        };
        for (vad, jitter) in [(true, false), (false, false), (false, true), (true, true)] {
            let (mut a, mut b) = (make(vad, jitter), make(vad, jitter));
            let mut n = 0;
            while a.next_ready().is_some() {
                let (p, next) = b.emit_next();
                assert_eq!((a.emit(), a.next_ready()), (p, next), "vad {vad} jitter {jitter} packet {n}");
                n += 1;
            }
            assert!(n > 10 && b.next_ready().is_none());
        }
    }

    #[test]
    fn ptime_change_applies_to_next_packet() {
        let c = lookup("G.711").unwrap();
        let sp = SpeechProcess::new(SpeechModel::Continuous, c.frame, Rng::stream(1, 0, StreamId::new(1, 0)));
        let mut s = VoiceSource::new(c, 2, SimTime(0), SimTime(200_000_000), true, sp);
        let a = s.emit();
        s.set_frames_per_packet(4);
        let b = s.emit();
        assert_eq!((a.payload, b.payload), (160, 320));
        assert_eq!(b.t_gen, SimTime(60_000_000));
        assert_eq!(s.ptime(), SimDuration::from_millis(40));
    }
}
