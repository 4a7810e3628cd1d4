//! Tables whose file shape is not their meaning, as written in the file:
//! the document root, links (link level plus per-direction overrides),
//! speech models, distribution tables, traffic sources; and the serde
//! shapes of configs defined in other layers (playout buffers, packet
//! sizes), derived here with `#[serde(remote = …)]` so those layers stay
//! free of file-format concerns. validate/ turns these into the model;
//! `Scenario` → `ScenarioDoc` is the way back (`to_json`).

use serde::{Deserialize, Serialize};

use super::fields::{self, Int};
use super::model::defaults::{self, ON_OFF, SILENCE, TALK};
use super::model::*;
use crate::playout::{
    FixedDelay, FixedDepth, PlayoutKind, QuantileBuffer, RamjeeAsymmetric, RamjeeEwma, RamjeeMinDelay,
    RamjeeSpike,
};
use crate::time::SimDuration;

mod defs;
pub use defs::*;

/// The whole file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a scenario table with [run], [[links]] and [[calls]] or [[traffic]]"
)]
pub struct ScenarioDoc {
    pub run: RunCfg,
    #[serde(deserialize_with = "fields::links")]
    pub links: Vec<LinkDoc>,
    #[serde(default, deserialize_with = "fields::calls")]
    pub calls: Vec<CallGroupCfg>,
    #[serde(default, deserialize_with = "fields::traffic")]
    pub traffic: Vec<TrafficDoc>,
    #[serde(default)]
    pub analysis: AnalysisCfg,
}

impl From<&Scenario> for ScenarioDoc {
    fn from(s: &Scenario) -> Self {
        ScenarioDoc {
            run: s.run.clone(),
            links: s.links.iter().map(LinkDoc::from).collect(),
            calls: s.calls.clone(),
            traffic: s.traffic.iter().map(TrafficDoc::from).collect(),
            analysis: s.analysis.clone(),
        }
    }
}

// ---------------------------------------------------------------------------
// Links

/// `rate`, `delay`, `queue`, `loss` as given in one table.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a table of rate, delay, queue, loss, jitter, schedule, background overriding the link level")]
pub struct ChannelDoc {
    #[serde(default, with = "fields::rate_opt", skip_serializing_if = "Option::is_none")]
    pub rate: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<BackgroundCfg>,
}

impl From<&ChannelCfg> for ChannelDoc {
    fn from(c: &ChannelCfg) -> Self {
        // A mahimahi trace sets the rate: it is not written back.
        let traced = c.schedule.as_ref().is_some_and(|s| s.file.is_some() && s.format == ScheduleFormat::Mahimahi);
        ChannelDoc {
            rate: (!traced).then_some(c.rate_bps),
            delay: Some(c.delay),
            queue: Some(c.queue.clone()),
            loss: Some(c.loss.clone()),
            jitter: Some(c.jitter.clone()),
            schedule: c.schedule.clone(),
            // Absent when none, so that scenarios without it keep their hash.
            background: (c.background != BackgroundCfg::None).then(|| c.background.clone()),
        }
    }
}

/// `[[links]]`: the channel keys at the link level apply to both
/// directions; `forward`/`reverse` override them key by key.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a [[links]] table, e.g. between = [\"a\", \"b\"], rate = \"10Mbps\""
)]
pub struct LinkDoc {
    #[serde(deserialize_with = "fields::between")]
    pub between: [String; 2],
    #[serde(default = "defaults::cost", with = "Int::<1, 1000000>")]
    pub cost: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<ChannelDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<ChannelDoc>,
    #[serde(default, with = "fields::rate_opt", skip_serializing_if = "Option::is_none")]
    pub rate: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ScheduleCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<BackgroundCfg>,
    /// A named link profile (scenario/links.rs `profile`): per-direction
    /// defaults under the keys written here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

impl LinkDoc {
    pub fn both(&self) -> ChannelDoc {
        ChannelDoc {
            rate: self.rate,
            delay: self.delay,
            queue: self.queue.clone(),
            loss: self.loss.clone(),
            jitter: self.jitter.clone(),
            schedule: self.schedule.clone(),
            background: self.background.clone(),
        }
    }
}

/// Symmetric links are written at the link level, others per direction.
impl From<&LinkCfg> for LinkDoc {
    fn from(l: &LinkCfg) -> Self {
        let (both, forward, reverse) = if l.forward == l.reverse {
            (ChannelDoc::from(&l.forward), None, None)
        } else {
            (ChannelDoc::default(), Some((&l.forward).into()), Some((&l.reverse).into()))
        };
        LinkDoc {
            between: [l.a.clone(), l.b.clone()],
            cost: l.cost,
            profile: None,
            forward,
            reverse,
            rate: both.rate,
            delay: both.delay,
            queue: both.queue,
            loss: both.loss,
            jitter: both.jitter,
            schedule: both.schedule,
            background: both.background,
        }
    }
}

// ---------------------------------------------------------------------------
// Distributions and speech

/// A duration distribution table `{ dist, mean, shape }`; the default mean
/// depends on where it is used (speech talk/silence, traffic on/off).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    rename = "@dist default=exponential",
    deny_unknown_fields,
    expecting = "a distribution table, e.g. { dist = \"exponential\", mean = \"2s\" }"
)]
pub enum DistDoc {
    #[serde(rename = "exponential")]
    Exponential {
        #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
        mean: Option<SimDuration>,
    },
    /// By `mean` (shape > 1) or by `scale`, the smallest value (any shape
    /// > 0; seed 004's 0.5 has no finite mean). validate/ checks the pair.
    #[serde(rename = "pareto")]
    Pareto {
        #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
        mean: Option<SimDuration>,
        #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
        scale: Option<SimDuration>,
        /// Default 1.5.
        #[serde(default = "pareto_shape", deserialize_with = "fields::pareto_shape_any")]
        shape: f64,
    },
    #[serde(rename = "weibull")]
    Weibull {
        #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
        mean: Option<SimDuration>,
        /// Default 1.0 (exponential).
        #[serde(default = "weibull_shape", deserialize_with = "fields::weibull_shape")]
        shape: f64,
    },
    #[serde(rename = "constant")]
    Constant {
        #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
        mean: Option<SimDuration>,
    },
}

fn pareto_shape() -> f64 {
    1.5
}
fn weibull_shape() -> f64 {
    1.0
}

impl DistDoc {
    pub fn resolve(self, default_mean: SimDuration) -> DurationDist {
        let m = |mean: Option<SimDuration>| mean.unwrap_or(default_mean);
        match self {
            DistDoc::Exponential { mean } => DurationDist::Exponential { mean: m(mean) },
            DistDoc::Constant { mean } => DurationDist::Constant { mean: m(mean) },
            DistDoc::Pareto { scale: Some(scale), shape, .. } => DurationDist::ParetoScale { shape, scale },
            DistDoc::Pareto { mean, shape, .. } => DurationDist::Pareto { shape, mean: m(mean) },
            DistDoc::Weibull { mean, shape } => DurationDist::Weibull { shape, mean: m(mean) },
        }
    }

    /// A Pareto table's shape and whether it gives a mean and a scale.
    pub fn pareto(&self) -> Option<(f64, bool, bool)> {
        match *self {
            DistDoc::Pareto { mean, scale, shape } => Some((shape, mean.is_some(), scale.is_some())),
            _ => None,
        }
    }

    fn or_default(d: Option<DistDoc>, default_mean: SimDuration) -> DurationDist {
        d.map_or(DurationDist::Exponential { mean: default_mean }, |d| d.resolve(default_mean))
    }
}

impl From<&DurationDist> for DistDoc {
    fn from(d: &DurationDist) -> Self {
        match *d {
            DurationDist::Exponential { mean } => DistDoc::Exponential { mean: Some(mean) },
            DurationDist::Constant { mean } => DistDoc::Constant { mean: Some(mean) },
            DurationDist::Pareto { shape, mean } => DistDoc::Pareto { mean: Some(mean), scale: None, shape },
            DurationDist::ParetoScale { shape, scale } => DistDoc::Pareto { mean: None, scale: Some(scale), shape },
            DurationDist::Weibull { shape, mean } => DistDoc::Weibull { mean: Some(mean), shape },
        }
    }
}

/// Talk and silence means of the single-family speech models.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Means {
    #[serde(default = "talk", deserialize_with = "fields::positive")]
    talk: SimDuration,
    #[serde(default = "silence", deserialize_with = "fields::positive")]
    silence: SimDuration,
}

fn talk() -> SimDuration {
    TALK
}
fn silence() -> SimDuration {
    SILENCE
}

/// Pareto or Weibull speech: means, a shape for both sides, and
/// per-side overrides.
macro_rules! shaped_speech {
    ($name:ident, $default:literal, $shape:literal, $some:literal) => {
        #[derive(Clone, Debug, Deserialize, Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[serde(default = "talk", deserialize_with = "fields::positive")]
            talk: SimDuration,
            #[serde(default = "silence", deserialize_with = "fields::positive")]
            silence: SimDuration,
            #[serde(default = $default, deserialize_with = $shape)]
            shape: f64,
            /// Overrides `shape` for talkspurts.
            #[serde(default, deserialize_with = $some, skip_serializing_if = "Option::is_none")]
            talk_shape: Option<f64>,
            #[serde(default, deserialize_with = $some, skip_serializing_if = "Option::is_none")]
            silence_shape: Option<f64>,
        }
    };
}

shaped_speech!(WeibullSpeech, "weibull_shape", "fields::weibull_shape", "some_weibull_shape");
shaped_speech!(ParetoSpeech, "pareto_shape", "fields::pareto_shape", "some_pareto_shape");

fn some_weibull_shape<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::weibull_shape(d).map(Some)
}
fn some_pareto_shape<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::pareto_shape(d).map(Some)
}

/// `model = "onoff"`: talk and silence as distribution tables.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpeech {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub talk: Option<DistDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence: Option<DistDoc>,
}

/// The talk/silence model of a call (`speech = { model = … }`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    rename = "@model default=exponential",
    deny_unknown_fields,
    expecting = "a speech table, e.g. { model = \"exponential\", talk = \"1s\", silence = \"1.5s\" }"
)]
pub enum SpeechDoc {
    #[serde(rename = "continuous")]
    Continuous,
    #[serde(rename = "exponential")]
    Exponential(Means),
    #[serde(rename = "weibull")]
    Weibull(WeibullSpeech),
    #[serde(rename = "pareto")]
    Pareto(ParetoSpeech),
    #[serde(rename = "constant")]
    Constant(Means),
    /// Talk and silence as distribution tables of any family.
    #[serde(rename = "onoff")]
    OnOff(OnOffSpeech),
    /// Talkspurts at given times (a VAD's, or a user's).
    #[serde(rename = "schedule")]
    Schedule(SpurtsCfg),
}

impl From<SpeechDoc> for SpeechCfg {
    fn from(d: SpeechDoc) -> Self {
        let pair = |talk, silence| SpeechCfg::OnOff { talk, silence };
        match d {
            SpeechDoc::Continuous => SpeechCfg::Continuous,
            SpeechDoc::Schedule(s) => SpeechCfg::Schedule(s),
            SpeechDoc::Exponential(m) => pair(
                DurationDist::Exponential { mean: m.talk },
                DurationDist::Exponential { mean: m.silence },
            ),
            SpeechDoc::Constant(m) => {
                pair(DurationDist::Constant { mean: m.talk }, DurationDist::Constant { mean: m.silence })
            }
            SpeechDoc::Weibull(w) => pair(
                DurationDist::Weibull { shape: w.talk_shape.unwrap_or(w.shape), mean: w.talk },
                DurationDist::Weibull { shape: w.silence_shape.unwrap_or(w.shape), mean: w.silence },
            ),
            SpeechDoc::Pareto(p) => pair(
                DurationDist::Pareto { shape: p.talk_shape.unwrap_or(p.shape), mean: p.talk },
                DurationDist::Pareto { shape: p.silence_shape.unwrap_or(p.shape), mean: p.silence },
            ),
            SpeechDoc::OnOff(o) => {
                pair(DistDoc::or_default(o.talk, TALK), DistDoc::or_default(o.silence, SILENCE))
            }
        }
    }
}

/// Same-family talk/silence use the named model (one `shape` when equal);
/// mixed ones `model = "onoff"`.
impl From<SpeechCfg> for SpeechDoc {
    fn from(s: SpeechCfg) -> Self {
        let (talk, silence) = match s {
            SpeechCfg::Continuous => return SpeechDoc::Continuous,
            SpeechCfg::Schedule(s) => return SpeechDoc::Schedule(s),
            SpeechCfg::OnOff { talk, silence } => (talk, silence),
        };
        let shapes = |a: f64, b: f64| if a == b { (a, None, None) } else { (a, Some(a), Some(b)) };
        use DurationDist::*;
        match (talk, silence) {
            (Exponential { mean: t }, Exponential { mean: s }) => {
                SpeechDoc::Exponential(Means { talk: t, silence: s })
            }
            (Constant { mean: t }, Constant { mean: s }) => {
                SpeechDoc::Constant(Means { talk: t, silence: s })
            }
            (Weibull { shape: a, mean: t }, Weibull { shape: b, mean: s }) => {
                let (shape, talk_shape, silence_shape) = shapes(a, b);
                SpeechDoc::Weibull(WeibullSpeech { talk: t, silence: s, shape, talk_shape, silence_shape })
            }
            (Pareto { shape: a, mean: t }, Pareto { shape: b, mean: s }) => {
                let (shape, talk_shape, silence_shape) = shapes(a, b);
                SpeechDoc::Pareto(ParetoSpeech { talk: t, silence: s, shape, talk_shape, silence_shape })
            }
            (t, s) => SpeechDoc::OnOff(OnOffSpeech { talk: Some((&t).into()), silence: Some((&s).into()) }),
        }
    }
}

// ---------------------------------------------------------------------------
// Traffic

/// Keys of every traffic source, around the kind's own (`$f`).
macro_rules! source {
    ($(#[$doc:meta])* $name:ident { $($(#[$m:meta])* $f:ident: $t:ty,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Deserialize, Serialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[serde(default = "defaults::count", with = "Int::<1, 100000>")]
            pub count: u32,
            #[serde(deserialize_with = "fields::node")]
            pub from: String,
            #[serde(deserialize_with = "fields::node")]
            pub to: String,
            $($(#[$m])* pub $f: $t,)*
            #[serde(default = "defaults::transport")]
            pub transport: TransportCfg,
            #[serde(default)]
            pub start: StartCfg,
            #[serde(default)]
            pub stagger: SimDuration,
            #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
            pub stop: Option<SimDuration>,
            #[serde(default, deserialize_with = "fields::label", skip_serializing_if = "Option::is_none")]
            pub label: Option<String>,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub active: Vec<ActiveCfg>,
            /// One host pair per source: `from`/`to` are host-name
            /// prefixes, source i runs `{from}{i}` → `{to}{i}`.
            #[serde(default, skip_serializing_if = "std::ops::Not::not")]
            pub spread: bool,
        }

        impl $name {
            /// The model with every key of the source but the kind's own.
            pub fn cfg(&self, kind: TrafficKind) -> TrafficCfg {
                TrafficCfg {
                    count: self.count,
                    from: self.from.clone(),
                    to: self.to.clone(),
                    kind,
                    transport: self.transport.clone(),
                    start: self.start.clone(),
                    stagger: self.stagger,
                    stop: self.stop,
                    label: self.label.clone(),
                    active: self.active.clone(),
                    random: false,
                    idle_first: false,
                    spread: self.spread,
                }
            }
            fn new(t: &TrafficCfg, $($f: $t),*) -> Self {
                $name {
                    count: t.count,
                    from: t.from.clone(),
                    to: t.to.clone(),
                    $($f,)*
                    transport: t.transport.clone(),
                    start: t.start.clone(),
                    stagger: t.stagger,
                    stop: t.stop,
                    label: t.label.clone(),
                    active: t.active.clone(),
                    spread: t.spread,
                }
            }
        }
    };
}

source!(
    /// `cbr` and `poisson`: an application writing at `rate`.
    RateSource {
        #[serde(with = "fields::rate")]
        rate: u64,
        #[serde(with = "SizeDistDef")]
        packet: SizeDist,
        /// `cbr` only: ns-2's `random_` send jitter.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        random: bool,
    }
);

source!(
    /// `onoff`: CBR at `rate` while on.
    OnOffSource {
        #[serde(with = "fields::rate")]
        rate: u64,
        #[serde(with = "SizeDistDef")]
        packet: SizeDist,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on: Option<DistDoc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        off: Option<DistDoc>,
        #[serde(default, skip_serializing_if = "FirstPeriod::is_on")]
        first: FirstPeriod,
    }
);

source!(
    /// `bulk`: a greedy TCP sender, optionally on/off (both tables or neither).
    BulkSource {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on: Option<DistDoc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        off: Option<DistDoc>,
        #[serde(default, skip_serializing_if = "FirstPeriod::is_on")]
        first: FirstPeriod,
    }
);

source!(
    /// `transfer`: `size` bytes over TCP, then done.
    TransferSource {
        #[serde(with = "fields::transfer_size")]
        size: u64,
    }
);

/// `[[traffic]]`, tagged by `kind`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    rename = "@kind",
    deny_unknown_fields,
    expecting = "a [[traffic]] table, e.g. from = \"a\", to = \"b\", kind = \"cbr\", rate = \"1Mbps\", packet = \"1000B\""
)]
pub enum TrafficDoc {
    #[serde(rename = "cbr")]
    Cbr(RateSource),
    #[serde(rename = "poisson")]
    Poisson(RateSource),
    #[serde(rename = "onoff")]
    OnOff(OnOffSource),
    #[serde(rename = "bulk")]
    Bulk(BulkSource),
    #[serde(rename = "transfer")]
    Transfer(TransferSource),
}

impl TrafficDoc {
    /// The model; bulk's on/off pair is checked (both or neither) by validate/.
    pub fn cfg(&self) -> TrafficCfg {
        let side = |d: &Option<DistDoc>| DistDoc::or_default(d.clone(), ON_OFF);
        let mut t = match self {
            TrafficDoc::Cbr(s) => s.cfg(TrafficKind::Cbr { rate_bps: s.rate, packet: s.packet }),
            TrafficDoc::Poisson(s) => s.cfg(TrafficKind::Poisson { rate_bps: s.rate, packet: s.packet }),
            TrafficDoc::OnOff(s) => s.cfg(TrafficKind::OnOff {
                rate_bps: s.rate,
                packet: s.packet,
                on: side(&s.on),
                off: side(&s.off),
            }),
            TrafficDoc::Bulk(s) => {
                let on_off = (s.on.is_some() || s.off.is_some()).then(|| (side(&s.on), side(&s.off)));
                s.cfg(TrafficKind::Bulk { on_off })
            }
            TrafficDoc::Transfer(s) => s.cfg(TrafficKind::Transfer { size_bytes: s.size }),
        };
        match self {
            TrafficDoc::Cbr(s) | TrafficDoc::Poisson(s) => t.random = s.random,
            TrafficDoc::OnOff(s) => t.idle_first = !s.first.is_on(),
            TrafficDoc::Bulk(s) => t.idle_first = !s.first.is_on(),
            TrafficDoc::Transfer(_) => {}
        }
        t
    }

    /// The on and off tables as written (on/off and bulk sources).
    pub fn periods(&self) -> [Option<&DistDoc>; 2] {
        match self {
            TrafficDoc::OnOff(s) => [s.on.as_ref(), s.off.as_ref()],
            TrafficDoc::Bulk(s) => [s.on.as_ref(), s.off.as_ref()],
            _ => [None, None],
        }
    }
}

impl From<&TrafficCfg> for TrafficDoc {
    fn from(t: &TrafficCfg) -> Self {
        let dist = |d: &DurationDist| Some(DistDoc::from(d));
        let first = if t.idle_first { FirstPeriod::Off } else { FirstPeriod::On };
        match &t.kind {
            TrafficKind::Cbr { rate_bps, packet } => TrafficDoc::Cbr(RateSource::new(t, *rate_bps, *packet, t.random)),
            TrafficKind::Poisson { rate_bps, packet } => {
                TrafficDoc::Poisson(RateSource::new(t, *rate_bps, *packet, false))
            }
            TrafficKind::OnOff { rate_bps, packet, on, off } => {
                TrafficDoc::OnOff(OnOffSource::new(t, *rate_bps, *packet, dist(on), dist(off), first))
            }
            TrafficKind::Bulk { on_off } => {
                let (on, off) = on_off.as_ref().map_or((None, None), |(on, off)| (dist(on), dist(off)));
                TrafficDoc::Bulk(BulkSource::new(t, on, off, first))
            }
            TrafficKind::Transfer { size_bytes } => TrafficDoc::Transfer(TransferSource::new(t, *size_bytes)),
        }
    }
}
