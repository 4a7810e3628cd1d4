//! The TCP header (RFC 9293 §3.1) with the options the model uses: SACK
//! (RFC 2018), timestamps (RFC 7323 §3), and the ECN flags (RFC 3168
//! §6.1). Sequence numbers are 64-bit stream offsets rather than 32-bit
//! wrapping ones: the simulator never needs wrap-around arithmetic, and an
//! exported trace takes them modulo 2³².

/// Header bytes without options (RFC 9293 §3.1).
pub const TCP_HEADER: u32 = 20;
/// Timestamps option, padded (RFC 7323 §3: 10 bytes + 2 NOPs).
pub const TIMESTAMPS_OPTION: u32 = 12;
/// Most SACK blocks one ACK carries: 4 without timestamps, 3 with
/// (RFC 2018 §3, 40 option bytes).
pub const MAX_SACK_BLOCKS: usize = 4;
/// Option space of a TCP header: the 4-bit data offset allows 60 bytes,
/// 20 of them fixed (RFC 9293 §3.1).
pub const MAX_TCP_OPTIONS: u32 = 40;

/// SACK blocks that fit beside `other` option bytes (RFC 2018 §3: the
/// option is 2 + 8n bytes): 4 alone, 3 beside timestamps (12 B), 2 beside
/// timestamps and a controller's 8 B report.
pub fn sack_room(other: u32) -> usize {
    ((MAX_TCP_OPTIONS.saturating_sub(other + 2) / 8) as usize).min(MAX_SACK_BLOCKS)
}

/// TCP control bits used by the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    pub const FIN: u8 = 4;
    /// ECN-Echo (RFC 3168 §6.1.3).
    pub const ECE: u8 = 8;
    /// Congestion Window Reduced (RFC 3168 §6.1.2).
    pub const CWR: u8 = 16;
    /// First segment of a TCP-Real wave (cc/real.rs), in one of the
    /// header's reserved bits (RFC 9293 §3.1): no option bytes.
    pub const WAVE: u8 = 32;

    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// SACK blocks `[start, end)`, most recent first (RFC 2018 §4), at most
/// [`MAX_SACK_BLOCKS`], held inline: an ACK carrying them costs no
/// allocation beyond its boxed options (`TcpOptions`; measured on bench/tcp_recovery.toml
/// at p = 0.01, where most ACKs carry blocks: a `Vec` behind a `Box` was
/// two more allocations and frees per ACK).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    len: u8,
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
}

impl SackBlocks {
    /// Blocks from a slice; panics past [`MAX_SACK_BLOCKS`] (RFC 2018 §3).
    pub fn from_slice(b: &[(u64, u64)]) -> Self {
        let mut s = SackBlocks::default();
        for &x in b {
            s.push(x);
        }
        s
    }

    /// Appends a block; panics past [`MAX_SACK_BLOCKS`].
    pub fn push(&mut self, b: (u64, u64)) {
        self.blocks[self.len as usize] = b;
        self.len += 1;
    }

    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Bytes of the receiver report option: kind, length, a 16-bit report
/// number, a code and a 24-bit value.
pub const CC_REPORT_OPTION: u32 = 8;

/// A receiver-side congestion controller's report on the wire; the
/// controller defines what `code` and `value` mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcReport {
    pub seq: u32,
    pub code: u8,
    pub value: f32,
}

/// A TCP header. The options a segment rarely carries (SACK blocks, a
/// controller's report) sit behind one pointer, empty on most segments:
/// the header is then 40 bytes, held inline in the packet with no
/// allocation. Measured on bench/tcp_mix_big.toml (no SACK), boxing the
/// whole 128-byte header cost an allocation and a free per segment and
/// ACK, ~185 instructions of the ~1,450 each costs (callgrind); an ACK
/// with SACK blocks costs one allocation, as before.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpHeader {
    /// Stream offset of the first payload byte (SYN and FIN take one).
    pub seq: u64,
    /// Next byte expected by the sender of this segment (valid with ACK).
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// Receive window advertised, bytes (window scaling assumed).
    pub wnd: u32,
    pub flags: TcpFlags,
    /// Timestamps option in use (its bytes count in the header).
    pub timestamps: bool,
    /// SACK blocks and the controller's report; `None` when neither is
    /// present (`TcpOptions::boxed` never boxes an empty pair).
    pub opts: Option<Box<TcpOptions>>,
}

/// The TCP options that carry data, other than timestamps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TcpOptions {
    /// SACK option; `None` on segments without it.
    pub sack: Option<SackBlocks>,
    /// A congestion controller's receiver-to-sender report (TCP-Real's
    /// verdict), as an 8-byte experimental option (RFC 6994 style).
    pub cc_report: Option<CcReport>,
}

impl TcpOptions {
    /// The options to attach to a header: `None` when there are none.
    pub fn boxed(sack: Option<SackBlocks>, cc_report: Option<CcReport>) -> Option<Box<TcpOptions>> {
        (sack.is_some() || cc_report.is_some()).then(|| Box::new(TcpOptions { sack, cc_report }))
    }
}

impl TcpHeader {
    /// The SACK option, if the segment carries one.
    #[inline]
    pub fn sack(&self) -> Option<&SackBlocks> {
        self.opts.as_ref().and_then(|o| o.sack.as_ref())
    }

    /// The controller's report, if the segment carries one.
    #[inline]
    pub fn cc_report(&self) -> Option<CcReport> {
        self.opts.as_ref().and_then(|o| o.cc_report)
    }

    /// Replaces the SACK option (`None`: none), keeping the report.
    pub fn set_sack(&mut self, sack: Option<SackBlocks>) {
        self.opts = TcpOptions::boxed(sack, self.cc_report());
    }

    /// Header bytes on the wire, options padded to 4 bytes (RFC 9293
    /// §3.1): SACK is 2 + 8n bytes (RFC 2018 §3).
    pub fn wire_len(&self) -> u32 {
        let mut opt = if self.timestamps { TIMESTAMPS_OPTION } else { 0 };
        if let Some(s) = self.sack() {
            if !s.is_empty() {
                opt += 2 + 8 * s.len() as u32;
            }
        }
        if self.cc_report().is_some() {
            opt += CC_REPORT_OPTION;
        }
        TCP_HEADER + opt.div_ceil(4) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 2018 §3: three SACK blocks with timestamps fill the 40 option
    /// bytes (12 + 26 → 38, padded to 40).
    #[test]
    fn option_sizes() {
        let mut h = TcpHeader::default();
        assert_eq!(h.wire_len(), 20);
        h.timestamps = true;
        assert_eq!(h.wire_len(), 32);
        h.set_sack(Some(SackBlocks::from_slice(&[(1, 2), (3, 4), (5, 6)])));
        assert_eq!(h.wire_len(), 60);
        h.timestamps = false;
        h.set_sack(Some(SackBlocks::from_slice(&[(1, 2)])));
        assert_eq!(h.wire_len(), 32); // 10 bytes padded to 12
    }

    /// The blocks that fit in 40 option bytes (RFC 2018 §3, RFC 9293 §3.1).
    #[test]
    fn sack_room_fills_the_option_space() {
        assert_eq!(sack_room(0), 4); // 34 B
        assert_eq!(sack_room(TIMESTAMPS_OPTION), 3); // 12 + 26 = 38 B
        assert_eq!(sack_room(CC_REPORT_OPTION), 3); // 8 + 26 = 34 B
        assert_eq!(sack_room(TIMESTAMPS_OPTION + CC_REPORT_OPTION), 2); // 12 + 8 + 18 = 38 B
        let mut h = TcpHeader { timestamps: true, ..Default::default() };
        h.opts = TcpOptions::boxed(
            Some(SackBlocks::from_slice(&[(1, 2), (3, 4)])),
            Some(CcReport { seq: 0, code: 0, value: 0.0 }),
        );
        assert_eq!(h.wire_len(), 20 + MAX_TCP_OPTIONS);
    }
}
