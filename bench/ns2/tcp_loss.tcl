# talkspurt TCP peer: one bulk TCP flow through a dumbbell with Bernoulli
# random loss on the bottleneck, in ns-2.
#
#   ns tcp_loss.tcl VARIANT P ?DURATION_S? ?SEED? ?START_S?
#
#   VARIANT     Tahoe | Reno | Newreno | Sack1 | Vegas  (case-insensitive;
#               "sack" = Sack1)
#   P           per-packet loss probability on r1 -> r2, 0 <= P < 1
#   DURATION_S  simulated seconds                                  (default 100)
#   SEED        >= 0; selects the RNG substream of the loss process and of
#               ns-2's defaultRNG (tcp_common.tcl, seed_rngs)     (default 1)
#   START_S     start of the goodput measurement window [START, DURATION]
#                                                                   (default 10)
#
# Topology (talkspurt twin: tests/data/tcp/loss.toml):
#
#   s --100Mb/s,1ms-- r1 --10Mb/s,50ms, DropTail 100p-- r2 --100Mb/s,1ms-- d
#
# FTP (greedy) over Agent/TCP/<VARIANT> from s to a TCPSink at d. Loss applies
# to r1 -> r2 only (data direction); the ACK path r2 -> r1 is lossless.
#
# The last line on stdout is one JSON object (see the end of the file).
#
# ---------------------------------------------------------------------------
# ns-2 conventions this script relies on (ns-2.35, Debian 2.35+dfsg-5; "ns
# manual" = The ns Manual, K. Fall & K. Varadhan eds., 2011-11-05 edition):
#
#  * Where the loss happens. `$ns lossmodel EM a b` calls SimpleLink
#    errormodule, which splices EM in right after the link's head_, i.e. BEFORE
#    the queue: a lost packet never queues and never uses the link. `$ns
#    link-lossmodel EM a b` calls SimpleLink insert-linkloss, which does
#        $em target [$link_ target]; $link_ target $em
#    i.e. it puts EM AFTER link_ (the LinkDelay), between it and the TTL
#    checker / receiving node. LinkDelay hands a packet to its target
#    txtime + delay after it starts serialising it (link/delay.cc), so with
#    link-lossmodel the packet is dropped at the instant it would have
#    arrived at r2: it took its place in the queue, consumed its 1.2 ms of
#    link capacity and its propagation delay, and only then vanished. That is
#    what talkspurt does ("loss is applied as the packet leaves the wire",
#    docs/scenario.md), so this script uses link-lossmodel.
#    (Read from the installed ns with `SimpleLink info instbody
#    insert-linkloss`, and checked with a trace: the 'd' event of a lost
#    packet comes exactly tx + prop after its '-' event.) NB: the ns manual
#    (ch. 13 "Error Model", §13.4) says insert-linkloss puts the module
#    "after the queue, but right before the delay link_ element"; the 2.35
#    code puts it after link_, not before.
#  * The error model. ErrorModel with unit pkt drops a packet iff u < rate_,
#    u drawn from its ranvar (queue/errmodel.cc, ErrorModel::CorruptPkt;
#    ns manual §13.1): Bernoulli(P) per packet. The ranvar uses its own RNG
#    object (below), so the loss sequence depends on SEED only.
#    Seeding: substream SEED of a dedicated stream, NOT `$rng seed SEED`,
#    which gives strongly correlated sequences for seeds 1, 2, 3 (see
#    tcp_common.tcl, seed_rngs).
#  * Packet sizes. A one-way TCP sender adds tcpip_base_hdr_size_ = 40 bytes
#    to packetSize_ (tcp/tcp.cc, TcpAgent::output and headersize(); no
#    timestamp option here), so packetSize_ 1460 puts 1500-byte packets on
#    the wire. TCPSink ACKs are packetSize_ = 40 bytes (ns manual §35.2.1);
#    TCPSink/Sack1 adds 8 bytes per SACK block carried (tcp/tcp-sink.cc,
#    Sacker::append_ack), up to maxSackBlocks_ = 3.
#  * Vegas is the exception: VegasTcpAgent::output (tcp/tcp-vegas.cc) neither
#    adds the 40 header bytes nor sends a pseudo-SYN (seqno 0 is a data
#    packet). So for Vegas this script sets packetSize_ 1500 to keep 1500-byte
#    packets on the wire, and still counts 1460 payload bytes per packet.
#  * No delayed ACKs: Agent/TCPSink and Agent/TCPSink/Sack1 send one ACK per
#    packet received; only the .../DelAck sinks delay (ns manual §35.2.1-3).
#  * No real handshake. One-way ns-2 TCP has no SYN/SYN-ACK exchange, but
#    with the defaults syn_ = true and delay_growth_ = true the first packet
#    (seqno 0) is a 40-byte, data-less "SYN" sent with cwnd = 1; when its ACK
#    comes back cwnd becomes windowInit_ and data (seqno 1, 2, ...) starts.
#    So data starts one RTT after t = 0, as after a real handshake.
#  * Queue limit. DropTail::enque drops when q_->length() + 1 >= qlim_
#    (queue/drop-tail.cc); the packet being serialised is no longer in q_.
#    So ns-2 limit L = L - 1 waiting + 1 in service, and talkspurt's "100p"
#    (waiting packets, docs/scenario.md) needs an ns-2 limit of 101. See
#    bench/README.md "two ns-2 conventions".
#  * RTT and RTO. ns-2 samples one RTT per window (Karn), in ticks of
#    tcpTick_ = 10 ms, smooths it BSD-style (srtt gain 1/8, rttvar 1/4,
#    fixed-point with 3 / 2 fraction bits) and sets
#    rto = max(minrto_, srtt + 4 rttvar) (tcp/tcp.cc, rtt_update and
#    rtt_timeout; rfc2988_ = true clamps minrto_ before the backoff).
#
# Defaults of ns-2.35 this script relies on and does not change (read from the
# installed ns with `Agent/TCP set VAR`):
#   windowInit_ 2 (windowInitOption_ 1: a fixed initial window of 2 packets,
#   used after the pseudo-SYN), maxburst_ 0 (no burst limit), syn_ true,
#   delay_growth_ true, timestamps_ false, numdupacks_ 3, singledup_ 1
#   (limited transmit: one new packet on each of the first two dupacks),
#   rfc2988_ true, maxrto_ 60, rtxcur_init_ 3.0 (initial RTO), srtt_init_ 0,
#   rttvar_init_ 12, rttvar_exp_ 2 (rto = srtt + 4 rttvar), bugFix_ true,
#   ecn_ 0, overhead_ 0, decrease_num_ 0.5, increase_num_ 1.0,
#   Vegas: v_alpha_ 1, v_beta_ 3, v_gamma_ 1. windowInit_, tcpTick_ 0.01 and
#   minrto_ 0.2 are nevertheless set explicitly (tcp_common.tcl, tcp_flow),
#   so a different ns-2 build cannot silently change what talkspurt must
#   mirror.
#
# Counters reported: retransmissions = nrexmitpack_ (packets sent with a
# seqno already sent); timeouts = nrexmit_, which TcpAgent::timeout bumps on
# each RTO expiry that cuts the window (not on one with nothing outstanding;
# ns-2 has no separate ntimeouts counter); packets sent = ndatapack_.
# ---------------------------------------------------------------------------

proc usage {} {
    puts stderr "usage: ns tcp_loss.tcl Tahoe|Reno|Newreno|Sack1|Vegas P ?DURATION_S? ?SEED? ?START_S?"
    exit 2
}
if {$argc < 2 || $argc > 5} { usage }

set opt(variant)  [lindex $argv 0]
set opt(p)        [lindex $argv 1]
set opt(duration) 100.0
set opt(seed)     1
set opt(start)    10.0
if {$argc >= 3} { set opt(duration) [lindex $argv 2] }
if {$argc >= 4} { set opt(seed)     [lindex $argv 3] }
if {$argc >= 5} { set opt(start)    [lindex $argv 4] }

source [file join [file dirname [info script]] tcp_common.tcl]

if {[catch {tcp_classes $opt(variant)} classes]} { puts stderr $classes; usage }
set variant [lindex $classes 0]
if {![string is double -strict $opt(p)] || $opt(p) < 0 || $opt(p) >= 1} {
    puts stderr "P must be a number in \[0, 1)"; exit 2
}
if {![string is double -strict $opt(duration)] || $opt(duration) <= 0} {
    puts stderr "DURATION_S must be > 0"; exit 2
}
if {![string is double -strict $opt(start)] || $opt(start) < 0 || $opt(start) >= $opt(duration)} {
    puts stderr "START_S must be in \[0, DURATION_S)"; exit 2
}

# --- scenario constants (keep in sync with tests/data/tcp/loss.toml) -------
set mss            $tcp_mss  ;# 1460 B payload; +40 B TCP/IP header = 1500 B packets
set hdr            $tcp_hdr  ;# 40, ns-2 tcpip_base_hdr_size_
set access_rate    100Mb
set access_delay   1ms
set access_qlim    1000      ;# talkspurt "1000p": large, so the access links never drop
set bneck_rate     10Mb
set bneck_delay    50ms
set bneck_qlim     100       ;# talkspurt "100p" (waiting packets)
set ns2_qlim_extra 1         ;# ns-2 limit counts the packet in service too
set sample_dt      0.1       ;# s between RTT/RTO samples in the window

set ns [new Simulator]

# Seeding (tcp_common.tcl). defaultRNG drives ns-2's own randomness (here:
# each TCP agent's random clock phase boot_time_ ~ U[0, tcpTick_),
# tcp/tcp.cc reset()). The loss process gets its own MRG32k3a stream, at
# substream SEED: a per-run sequence determined by SEED alone, independent
# of the one the TCP agents draw from and of other seeds' sequences.
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
set loss_rng [seeded_rng]

set s  [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d  [$ns node]

$ns duplex-link $s  $r1 $access_rate $access_delay DropTail
$ns duplex-link $r1 $r2 $bneck_rate  $bneck_delay  DropTail
$ns duplex-link $r2 $d  $access_rate $access_delay DropTail
foreach {n1 n2 lim} [list $s $r1 $access_qlim  $r1 $s $access_qlim \
                          $r1 $r2 $bneck_qlim  $r2 $r1 $bneck_qlim \
                          $r2 $d $access_qlim  $d $r2 $access_qlim] {
    $ns queue-limit $n1 $n2 [expr {$lim + $ns2_qlim_extra}]
}

# Bottleneck counters: arrivals, departures (= packets that went onto the
# wire) and queue drops.
set qm_bneck [attach_counter $ns $r1 $r2]

# Random loss after the wire (see the header). The error model's drop target
# is a drop-snoop feeding its own QueueMonitor, so random losses are counted
# apart from queue overflows, then freed by the null agent.
set em [new ErrorModel]
$em unit pkt
$em set rate_ $opt(p)
set loss_rv [new RandomVariable/Uniform]   ;# U[0, 1)
$loss_rv use-rng $loss_rng
$em ranvar $loss_rv
$ns link-lossmodel $em $r1 $r2
set qm_loss [new QueueMonitor]
set loss_snoop [new SnoopQueue/Drop]
$loss_snoop set-monitor $qm_loss
$loss_snoop target [$ns set nullAgent_]
$em drop-target $loss_snoop

# The flow (settings in tcp_common.tcl).
lassign [tcp_flow $ns $s $d $variant 1] tcp sink ftp
$ns at 0.0 "$ftp start"

# Goodput: TCPSink's bytes_ counts what the sink has delivered in order, i.e.
# acknowledged cumulatively: 40 for the pseudo-SYN (not for Vegas), then 1500
# per data packet (tcp_common.tcl, delivered_packets). Differences of bytes_
# over the window are whole data packets; payload = packets x 1460.
proc snapshot {} {
    global tcp sink qm_bneck qm_loss
    return [list [$sink set bytes_] [$tcp set ndatapack_] [$tcp set nrexmitpack_] \
                 [$tcp set nrexmit_] [$qm_bneck set pdepartures_] [$qm_loss set pdrops_] \
                 [$qm_bneck set pdrops_] [$qm_bneck set bdepartures_]]
}

# RTT / RTO sampling. The Tcl-visible srtt_ is ns-2's fixed-point t_srtt_
# (8 x srtt in ticks) and rttvar_ is t_rttvar_ (4 x rttvar in ticks); the RTO
# the timer uses (before backoff) is
#   max(minrto_, ((t_rttvar_ << 3) + t_srtt_) >> 3 ticks)    (tcp/tcp.cc).
# Sampling these every 100 ms over the window gives a time average of the
# sender's own estimates (srtt is quantised to 1/8 tick = 1.25 ms). Mind
# that the BSD fixed point biases srtt upwards: srtt += m - (t_srtt_ >> 3)
# settles anywhere in [m, m + 7/8 tick], so mean_srtt_s reads ~4 ms above
# the true mean RTT here; base_rtt_s is the exact queue-free RTT.
set n_samples 0
set sum_srtt 0.0
set sum_rto 0.0
proc sample {} {
    global ns tcp n_samples sum_srtt sum_rto sample_dt opt
    set tick [$tcp set tcpTick_]
    set srtt8 [$tcp set srtt_]
    set rttvar4 [$tcp set rttvar_]
    if {$srtt8 > 0} {
        set rto [expr {((($rttvar4 << 3) + $srtt8) >> 3) * $tick}]
        if {$rto < [$tcp set minrto_]} { set rto [$tcp set minrto_] }
        set sum_srtt [expr {$sum_srtt + $srtt8 / 8.0 * $tick}]
        set sum_rto  [expr {$sum_rto + $rto}]
        incr n_samples
    }
    set next [expr {[$ns now] + $sample_dt}]
    if {$next < $opt(duration)} { $ns at $next "sample" }
}

set snap0 {}
proc window_start {} {
    global snap0
    set snap0 [snapshot]
    sample
}
proc finish {} {
    global ns snap1
    set snap1 [snapshot]
    $ns halt
}
$ns at $opt(start)    "window_start"
$ns at $opt(duration) "finish"

set t_run0 [clock milliseconds]
$ns run
set t_run1 [clock milliseconds]

lassign $snap0 b0 sent0 rx0 to0 dep0 loss0 qdrop0 bdep0
lassign $snap1 b1 sent1 rx1 to1 dep1 loss1 qdrop1 bdep1
set wire [expr {$mss + $hdr}]
set window_s [expr {$opt(duration) - $opt(start)}]
# In-order bytes are 40 (the pseudo-SYN, absent for Vegas) + 1500 per data
# packet; a window starting at 0 contains the SYN.
set dpkts [expr {$b1 / $wire - $b0 / $wire}]
foreach b [list $b0 $b1] {
    if {$b % $wire != 0 && $b % $wire != $hdr} {
        puts stderr "internal: sink bytes_ $b is not 1500 k or 1500 k + 40"
        exit 1
    }
}
# Every packet that crossed the bottleneck is 1500 B, or a 40-B pseudo-SYN.
if {($wire * ($dep1 - $dep0) - ($bdep1 - $bdep0)) % ($wire - $hdr) != 0} {
    puts stderr "internal: bottleneck packets in the window are not all $wire B"
    exit 1
}
set goodput_bps [expr {$dpkts * $mss * 8.0 / $window_s}]
set ws_total [expr {$b1 / $wire}]   ;# drops the 40-B pseudo-SYN, if any

set mean_srtt [expr {$n_samples > 0 ? $sum_srtt / $n_samples : -1}]
set mean_rto  [expr {$n_samples > 0 ? $sum_rto / $n_samples : -1}]
set dep_w [expr {$dep1 - $dep0}]
set loss_w [expr {$loss1 - $loss0}]
set loss_rate [expr {$dep_w > 0 ? double($loss_w) / $dep_w : 0.0}]

# Fixed path RTT without queueing: data 1500 B out, ACK 40 B back.
proc txs {bytes rate_bps} { return [expr {$bytes * 8.0 / $rate_bps}] }
set base_rtt [expr {2*[txs $wire 100e6] + [txs $wire 10e6] + 2*[txs $hdr 100e6] + [txs $hdr 10e6] \
                    + 2 * (0.001 + 0.050 + 0.001)}]

puts [format {{"simulator": "ns-2", "script": "tcp_loss.tcl", "variant": "%s", "p": %s, "duration_s": %s, "seed": %d, "window_start_s": %s, "window_s": %s, "goodput_bps": %.3f, "delivered_packets": %d, "delivered_payload_bytes": %d, "delivered_packets_total": %d, "sent_packets": %d, "retransmitted_packets": %d, "timeouts": %d, "sent_packets_total": %d, "retransmitted_packets_total": %d, "timeouts_total": %d, "random_losses": %d, "bottleneck_departures": %d, "measured_loss_rate": %.6f, "queue_drops": %d, "queue_drops_total": %d, "mean_srtt_s": %.6f, "mean_rto_s": %.6f, "rtt_samples": %d, "base_rtt_s": %.6f, "mss_bytes": %d, "packet_bytes": %d, "ack_bytes": %d, "window_init": %s, "min_rto_s": %g, "tcp_tick_s": %g, "maxburst": %s, "ns2_queue_limit_bottleneck": %d, "run_wall_s": %.3f}} \
    $variant $opt(p) $opt(duration) $opt(seed) $opt(start) $window_s \
    $goodput_bps $dpkts [expr {$dpkts * $mss}] $ws_total \
    [expr {$sent1 - $sent0}] [expr {$rx1 - $rx0}] [expr {$to1 - $to0}] $sent1 $rx1 $to1 \
    $loss_w $dep_w $loss_rate [expr {$qdrop1 - $qdrop0}] $qdrop1 \
    $mean_srtt $mean_rto $n_samples $base_rtt $mss $wire [$sink set packetSize_] \
    [$tcp set windowInit_] [$tcp set minrto_] [$tcp set tcpTick_] [$tcp set maxburst_] \
    [expr {$bneck_qlim + $ns2_qlim_extra}] [expr {($t_run1 - $t_run0) / 1000.0}]]
exit 0
