//! TCP options and their defaults, each with its source. The scenario's
//! `transport = { kind = "tcp", ... }` table maps onto this struct one key
//! per field (docs/scenario.md); docs/models/tcp.md explains the model.

use crate::cc::{CcAlgorithm, CcParams, Recovery};
use crate::net::wire::TIMESTAMPS_OPTION;
use crate::time::SimDuration;

/// The initial congestion window (`initial_window`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// A fixed number of segments (`initial_window = 4`).
    Segments(u32),
    /// RFC 2581 §3.1: IW ≤ 2·SMSS; we take 2 segments.
    Rfc2581,
    /// RFC 3390 §1: min(4·SMSS, max(2·SMSS, 4380 bytes)).
    Rfc3390,
    /// RFC 6928 §2: min(10·MSS, max(2·MSS, 14600 bytes)).
    Rfc6928,
}

impl InitialWindow {
    /// The window in bytes for a sender MSS of `smss`.
    pub fn bytes(self, smss: u64) -> u64 {
        match self {
            InitialWindow::Segments(n) => n as u64 * smss,
            InitialWindow::Rfc2581 => 2 * smss,
            InitialWindow::Rfc3390 => (4 * smss).min((2 * smss).max(4380)),
            InitialWindow::Rfc6928 => (10 * smss).min((2 * smss).max(14600)),
        }
    }
    pub fn name(self) -> String {
        match self {
            InitialWindow::Segments(n) => n.to_string(),
            InitialWindow::Rfc2581 => "rfc2581".into(),
            InitialWindow::Rfc3390 => "rfc3390".into(),
            InitialWindow::Rfc6928 => "rfc6928".into(),
        }
    }
}

/// What the sender does with its window after an idle period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleRestart {
    /// Keep the window (the behaviour RFC 5681 §4.1 warns against; ns-2's
    /// default agents).
    Off,
    /// RFC 5681 §4.1: after more than one RTO idle, cwnd = min(RW, cwnd)
    /// with RW = min(IW, cwnd).
    Rfc5681,
    /// RFC 7661 congestion window validation: the window is kept through a
    /// non-validated period and decays after it (Linux-like).
    Rfc7661,
}

impl IdleRestart {
    pub const ALL: [IdleRestart; 3] = [IdleRestart::Off, IdleRestart::Rfc5681, IdleRestart::Rfc7661];
    pub fn name(self) -> &'static str {
        match self {
            IdleRestart::Off => "off",
            IdleRestart::Rfc5681 => "rfc5681",
            IdleRestart::Rfc7661 => "rfc7661",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == s)
    }
}

/// Bound on what the application may hand to the socket (`send_buffer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendLimit {
    /// Unsent plus unacknowledged bytes, like SO_SNDBUF (`"64kB"`).
    Bytes(u64),
    /// Application writes not yet handed to the network (`"5p"`): seed
    /// 000's five-packet buffer between codec and transport.
    Writes(u32),
}

/// One TCP connection's configuration (RFC 9293 and the RFCs cited per
/// field). Defaults are the RFCs' where they give one.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Congestion controller (default NewReno, RFC 6582).
    pub cc: CcAlgorithm,
    /// Loss recovery; default per `cc` (`CcAlgorithm::default_recovery`).
    pub recovery: Option<Recovery>,
    /// Receiver sends SACK blocks (RFC 2018). Default: on iff recovery is
    /// SACK; SACK recovery requires it.
    pub sack: Option<bool>,
    /// Maximum segment size (default 1460: a 1500-byte Ethernet MTU less
    /// 40 bytes of IPv4 and TCP headers, RFC 9293 §3.7.1). As on the wire
    /// (RFC 6691 §2) it counts no options: a segment carries at most
    /// [`TcpConfig::smss`] bytes of data, the mss less the options every
    /// data segment carries.
    pub mss: u32,
    /// Initial window (default RFC 3390, as seed 000's "TCP").
    pub initial_window: InitialWindow,
    /// Disable Nagle's algorithm (RFC 896, RFC 1122 §4.2.3.4); seed 000
    /// sets TCP_NODELAY. Default false (Nagle on).
    pub nodelay: bool,
    /// Limited transmit (RFC 3042; RFC 5681 §3.2: a sender SHOULD use
    /// it): each of the first two duplicate ACKs releases one new segment
    /// beyond cwnd, and those segments stay out of the FlightSize that
    /// sets ssthresh, so a small window still gets its third duplicate ACK.
    /// Default on, as RFC 5681 asks and as the stacks most seeds used run
    /// (ns-2's `singledup_ 1` since 2001, FreeBSD, Linux); with it
    /// talkspurt agrees with ns-2 within 0.4–6.6 % on single-flow goodput
    /// (docs/models/tcp.md).
    pub limited_transmit: bool,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2): ACK at least every
    /// second full-sized segment, else within `delack_timeout`. Default on.
    pub delayed_ack: bool,
    /// Delayed-ACK timer; RFC 5681 §4.2 caps it at 500 ms. Default 200 ms
    /// (the BSD value).
    pub delack_timeout: SimDuration,
    /// Initial RTO (RFC 6298 §2.1: 1 s).
    pub initial_rto: SimDuration,
    /// Lower bound of the RTO (RFC 6298 §2.4: 1 s; ns-2 uses 200 ms).
    pub min_rto: SimDuration,
    /// Upper bound of the RTO (RFC 6298 §2.5: at least 60 s; default 60 s).
    pub max_rto: SimDuration,
    /// Clock granularity G (RFC 6298 §2): the RTO is SRTT + max(G,
    /// 4·RTTVAR), and RTT samples are taken in ticks of G when G > 0
    /// (ns-2's tcpTick_ = 10 ms). Default 1 ms.
    pub granularity: SimDuration,
    /// Receiver's advertised window in bytes (default 1 MiB; window
    /// scaling, RFC 7323, is assumed so it may exceed 64 KiB).
    pub rcv_window: u64,
    /// Socket send buffer (default 1 MiB of bytes).
    pub send_buffer: SendLimit,
    /// Restart after idle / congestion window validation (default
    /// RFC 5681 §4.1).
    pub idle_restart: IdleRestart,
    /// ECN (RFC 3168): data is sent ECT(0); a CE mark is echoed with ECE
    /// and is a congestion event. Default off.
    pub ecn: bool,
    /// Timestamps option (RFC 7323 §3): 12 bytes in every segment's header,
    /// taken out of the mss on data segments (RFC 6691 §2): 1448 B of data
    /// with the default mss, as Linux. Default off.
    pub timestamps: bool,
    /// Three-way handshake before data (RFC 9293 §3.5). Default on; ns-2's
    /// agents do none, so comparisons with ns-2 turn it off.
    pub handshake: bool,
    /// Bytes of length prefix framing each application message in the
    /// byte stream (RFC 4571: 2). Default 2.
    pub framing: u32,
    /// Parameters of the chosen controller (only its table may be given).
    pub params: CcParams,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcAlgorithm::NewReno,
            recovery: None,
            sack: None,
            mss: 1460,
            initial_window: InitialWindow::Rfc3390,
            nodelay: false,
            limited_transmit: true,
            delayed_ack: true,
            delack_timeout: SimDuration::from_millis(200),
            initial_rto: SimDuration::from_secs(1),
            min_rto: SimDuration::from_secs(1),
            max_rto: SimDuration::from_secs(60),
            granularity: SimDuration::from_millis(1),
            rcv_window: 1 << 20,
            send_buffer: SendLimit::Bytes(1 << 20),
            idle_restart: IdleRestart::Rfc5681,
            ecn: false,
            timestamps: false,
            handshake: true,
            framing: 2,
            params: CcParams::default(),
        }
    }
}

impl TcpConfig {
    pub fn recovery(&self) -> Recovery {
        self.recovery.unwrap_or_else(|| self.cc.default_recovery())
    }
    pub fn sack(&self) -> bool {
        self.sack.unwrap_or(self.recovery() == Recovery::Sack)
    }

    /// Option bytes every data segment carries: the timestamps option when
    /// on (RFC 7323 §3: 10 B + 2 B of NOP padding). A data segment carries
    /// no SACK blocks (RFC 2018 §3: the data receiver reports them, on its
    /// pure ACKs, which carry no data) and no TCP-Real report (also on
    /// ACKs): the sender's segments have only the timestamps option.
    pub fn data_segment_options(&self) -> u32 {
        if self.timestamps { TIMESTAMPS_OPTION } else { 0 }
    }

    /// SMSS, the data bytes of a full segment: the one size every path that
    /// sizes segments uses (new data, retransmissions, limited transmit,
    /// Nagle's full-segment test, the initial window and every cwnd and
    /// ssthresh step counted in SMSS). RFC 6691 §2 (and RFC 9293 §3.7.1:
    /// Eff.snd.MSS = min(SendMSS + 20, MMS_S) − TCPhdrsize − IPoptionsize,
    /// TCPhdrsize counting options): the MSS counts no options, and "the
    /// sender MUST reduce the TCP data length to account for any IP or TCP
    /// options that it is including in the packets that it sends". RFC 5681
    /// §2 defines SMSS the same way, without headers and options. So with
    /// timestamps a full segment is mss − 12 bytes of data (1448 B for the
    /// default 1460 B: a 1500 B packet, as Linux's mss_cache), and the IW of
    /// RFC 3390 §1 / RFC 6928 §2 counts these segments. Validation keeps
    /// mss above the options (validate/transport.rs).
    pub fn smss(&self) -> u64 {
        (self.mss.saturating_sub(self.data_segment_options()) as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 3390 §1 and RFC 6928 §2 worked values.
    #[test]
    fn initial_windows() {
        assert_eq!(InitialWindow::Rfc3390.bytes(1460), 4380); // 3 segments
        assert_eq!(InitialWindow::Rfc3390.bytes(536), 2144); // 4 segments
        assert_eq!(InitialWindow::Rfc3390.bytes(2190), 4380); // 2 segments
        assert_eq!(InitialWindow::Rfc6928.bytes(1460), 14600);
        assert_eq!(InitialWindow::Rfc2581.bytes(1460), 2920);
        assert_eq!(InitialWindow::Segments(1).bytes(1000), 1000);
    }

    /// RFC 6691 §2: the timestamps option's 12 B come out of the mss, so
    /// with the default 1460 B a full segment holds 1448 B of data; SACK
    /// blocks are never on data segments.
    #[test]
    fn smss_excludes_the_options_of_data_segments() {
        let mut c = TcpConfig::default();
        assert_eq!((c.data_segment_options(), c.smss()), (0, 1460));
        c.timestamps = true;
        assert_eq!((c.data_segment_options(), c.smss()), (12, 1448));
        c.sack = Some(true);
        assert_eq!(c.smss(), 1448);
        // RFC 3390 §1 counts SMSS: min(4·1448, max(2·1448, 4380)) = 4380,
        // three segments; RFC 6928 §2: 10·1448 = 14480.
        assert_eq!(InitialWindow::Rfc3390.bytes(c.smss()), 4380);
        assert_eq!(InitialWindow::Rfc6928.bytes(c.smss()), 14480);
    }
}
