//! Random loss on a link direction, drawn from the channel's own stream.

use crate::rng::Rng;

#[derive(Debug)]
pub enum LossModel {
    None,
    /// Independent per-packet loss (ns-2 ErrorModel with unit "pkt" and a
    /// uniform random variable; dummynet `plr`).
    Bernoulli { p: f64, rng: Rng },
}

impl LossModel {
    /// Whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
        }
    }
}
