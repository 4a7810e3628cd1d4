//! Random loss on a link direction, drawn from the channel's own stream.
//! Each model answers one question per packet: is this one lost? Models
//! and their closed forms: docs/models/network.md.
//!
//! Where the question is asked is the channel's choice ([`LossAt`]): as the
//! packet leaves the wire (it used the link; dummynet `plr`, ns-2's
//! `link-lossmodel`), or as it arrives at the link, before the queue (ns-2's
//! `lossmodel`, which inserts the error module ahead of the queue).

mod markov;
mod trace;

pub use markov::{stationary, GilbertElliott, MarkovLoss};
pub use trace::{LossTrace, TraceFormat, TraceLoss};

use crate::rng::Rng;
use crate::time::SimTime;

/// Where a channel applies its loss model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossAt {
    /// Before the queue: a lost packet never occupies the queue or the link.
    Enqueue,
    /// After serialization: a lost packet used the link (the default).
    #[default]
    Wire,
}

#[derive(Debug)]
pub enum LossModel {
    None,
    /// Independent per-packet loss (ns-2 ErrorModel with unit "pkt" and a
    /// uniform random variable; dummynet `plr`).
    Bernoulli { p: f64, rng: Rng },
    /// Independent bit errors at rate `ber`: a packet of `b` bits survives
    /// with probability (1 − ber)^b (ns-2 ErrorModel with unit "bit").
    /// `ln_ok` is ln(1 − ber), kept to make that one `exp`.
    Ber { ln_ok: f64, rng: Rng },
    /// Two-state Markov (Gilbert–Elliott) loss.
    GilbertElliott(GilbertElliott),
    /// k-state Markov chain with a loss probability per state.
    Markov(MarkovLoss),
    /// Replay of a loss trace.
    Trace(TraceLoss),
}

impl LossModel {
    pub fn ber(ber: f64, rng: Rng) -> LossModel {
        LossModel::Ber { ln_ok: (-ber).ln_1p(), rng }
    }

    /// Whether the next packet (`bytes` long, the question asked at `now`)
    /// is lost.
    #[inline(always)]
    pub fn lose(&mut self, now: SimTime, bytes: u32) -> bool {
        // The loss-free link (most of them) costs one compare.
        if let LossModel::None = self {
            return false;
        }
        self.lose_model(now, bytes)
    }

    fn lose_model(&mut self, now: SimTime, bytes: u32) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::Ber { ln_ok, rng } => !rng.bernoulli((*ln_ok * 8.0 * bytes as f64).exp()),
            LossModel::GilbertElliott(g) => g.lose(),
            LossModel::Markov(m) => m.lose(),
            LossModel::Trace(t) => t.lose(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    #[test]
    fn ber_survival_is_per_bit() {
        // 1e-5 per bit on 1250-byte packets: P(loss) = 1 − (1 − 1e-5)^10000
        // = 0.09516; 2e5 packets give a standard error of 0.00066, so 0.003
        // is over 4 of them.
        let seed = 11;
        let mut m = LossModel::ber(1e-5, Rng::stream(seed, 0, StreamId::new(99, 0)));
        let n = 200_000;
        let lost = (0..n).filter(|_| m.lose(SimTime::ZERO, 1250)).count();
        let want = 1.0 - (1.0f64 - 1e-5).powi(10_000);
        let got = lost as f64 / n as f64;
        assert!((got - want).abs() < 0.003, "seed {seed}: loss {got} vs {want}");
    }
}
