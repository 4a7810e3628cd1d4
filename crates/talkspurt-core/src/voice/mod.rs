//! Voice: codecs as traffic sources, speech activity, packetization.

pub mod adapt;
pub mod codec;
pub mod source;
pub mod speech;
pub mod trunk;

pub use codec::Codec;
pub use source::{VoicePacket, VoiceSource};
pub use speech::{SpeechModel, SpeechProcess};
