//! Which codec mode each packet of a mode-switching call carried, and the
//! call's shares per mode for `quality::mode_mix` (docs/models/emodel.md,
//! "Calls that switch modes").
//!
//! The mode of a packet is read from its record: within a family every
//! mode has its own octets per frame (voice::codec), so payload / frames
//! names it (padding is not in the record's payload). Modes with the same
//! G.113 figures (all Speex-NB modes share one entry) form one stretch.

use crate::quality::{codec_impairment, ModeShare};
use crate::voice::{codec, Codec};

/// The call's shares by G.113 figures, or None when G.107's single-codec
/// form applies as is: a codec without modes, one set of figures used, a
/// packet no mode of the family explains, or a mode without figures.
pub fn mode_shares(call_codec: &Codec, frames: &[u16], payload: &[u32], lost: &[bool]) -> Option<Vec<ModeShare>> {
    let mut t = ModeTally::new(call_codec);
    if t.ladder.is_empty() {
        return None;
    }
    for ((&f, &bytes), &gone) in frames.iter().zip(payload).zip(lost) {
        t.add(f as u32, bytes, gone);
        if t.unexplained {
            return None;
        }
    }
    t.shares()
}

/// `mode_shares` one packet at a time, in sequence order (score::stream).
#[derive(Debug, Clone)]
pub struct ModeTally {
    ladder: Vec<&'static Codec>,
    /// (emodel key, frames carried, packets, packets lost)
    acc: Vec<(&'static str, u64, u64, u64)>,
    /// A packet no mode of the family explains was seen.
    unexplained: bool,
}

impl ModeTally {
    pub fn new(call_codec: &Codec) -> Self {
        ModeTally { ladder: codec::modes(call_codec), acc: Vec::new(), unexplained: false }
    }

    /// A packet of `frames` frames and `bytes` payload, lost (not played) or not.
    pub fn add(&mut self, frames: u32, bytes: u32, lost: bool) {
        if frames == 0 || self.ladder.is_empty() || self.unexplained {
            return;
        }
        let Some(m) = self.ladder.iter().find(|m| bytes.is_multiple_of(frames) && bytes / frames == m.frame_bytes) else {
            self.unexplained = true;
            return;
        };
        let i = match self.acc.iter().position(|a| a.0 == m.emodel_key) {
            Some(i) => i,
            None => {
                self.acc.push((m.emodel_key, 0, 0, 0));
                self.acc.len() - 1
            }
        };
        self.acc[i].1 += frames as u64;
        self.acc[i].2 += 1;
        self.acc[i].3 += lost as u64;
    }

    pub fn shares(&self) -> Option<Vec<ModeShare>> {
        if self.ladder.is_empty() || self.unexplained || self.acc.len() < 2 {
            return None;
        }
        self.acc
            .iter()
            .map(|&(key, w, n, l)| {
                let (ie, bpl) = codec_impairment(key)?;
                Some(ModeShare { ie, bpl, weight: w as f64, ppl: 100.0 * l as f64 / n as f64 })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::codec::lookup;

    /// Four AMR packets of one frame: 12.2 (31 B), 12.2, 4.75 (12 B) lost,
    /// 4.75; a 2-frame 4.75 packet (24 B) counts twice the speech.
    #[test]
    fn shares_by_mode() {
        let c = lookup("AMR-NB-12.2").unwrap();
        let s = mode_shares(c, &[1, 1, 1, 1, 2], &[31, 31, 12, 12, 24], &[false, false, true, false, false]).unwrap();
        assert_eq!(s, vec![ModeShare { ie: 5.0, bpl: 10.0, weight: 2.0, ppl: 0.0 }, ModeShare { ie: 21.0, bpl: 10.0, weight: 4.0, ppl: 100.0 / 3.0 }]);
        // One mode throughout, or a codec without modes: G.107 as is.
        assert_eq!(mode_shares(c, &[1, 1], &[31, 31], &[false, true]), None);
        assert_eq!(mode_shares(lookup("G.711").unwrap(), &[2, 2], &[160, 80], &[false, false]), None);
        // A size no mode has: G.107 as is.
        assert_eq!(mode_shares(c, &[1, 1], &[31, 30], &[false, false]), None);
        // Speex modes share one entry: one stretch.
        let sp = lookup("Speex-NB-8").unwrap();
        let (lo, hi) = (codec::modes(sp)[0].frame_bytes, sp.frame_bytes);
        assert_eq!(mode_shares(sp, &[1, 1], &[lo, hi], &[false, false]), None);
    }
}
