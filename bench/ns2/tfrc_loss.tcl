# talkspurt TFRC peer: one greedy ns-2 Agent/TFRC flow through the dumbbell
# of tcp_loss.tcl with Bernoulli random loss on the bottleneck.
#
#   ns tfrc_loss.tcl MODE P ?DURATION_S? ?SEED? ?START_S? ?SIZE_B?
#
#   MODE        plain | voip   (voip: Agent/TFRC voip_ 1, ns-2's TFRC-SP
#               precursor: the equation with fsize_ 1460 B and the header
#               correction size/(size + headersize_), at most
#               voip_max_pkt_rate_ = 100 packets/s)
#   P           per-packet loss probability on r1 -> r2, 0 <= P < 1
#   DURATION_S  simulated seconds                                (default 200)
#   SEED        >= 0, the loss process's RNG substream (tcp_common.tcl) (1)
#   START_S     start of the measurement window [START, DURATION]     (50)
#   SIZE_B      packetSize_ (bytes on the wire, headers included) (1000 plain,
#               200 voip)
#
# Topology (talkspurt twin: tests/data/tfrc/loss.toml):
#
#   s --100Mb/s,1ms-- r1 --10Mb/s,50ms, DropTail 1000p-- r2 --100Mb/s,1ms-- d
#
# ns-2 conventions relied on (ns-2.35; read from tcp/tfrc.cc, tcp/tfrc-sink.cc
# and the installed defaults, `Agent/TFRC set VAR`):
#  * With useHeaders_ true (default) a data packet is packetSize_ +
#    headersize_ (32) bytes on the wire, and the equation's s is packetSize_
#    (fsize_ = size_ unless voip_): the twin sends SIZE_B-byte segments under
#    a 32-byte header.
#  * TFRCSink feedback packets are packetSize_ 40 B, once per RTT
#    (NumFeedback_ 1).
#  * Loss after the wire (link-lossmodel), as in tcp_loss.tcl.
#  * Defaults kept: rate_init_option_ 2 (RFC 3390 initial rate), ssmult_ 2,
#    bval_ 1, ca_ 1, slow_increase_ 1, df_ 0.95 (RTT EWMA), tcp_tick_ 0.1
#    (t_RTO from its fixed-point TCP estimator on a 100 ms clock: twin
#    rto = "ns2"), minrto_ 0,
#    discount_ 1 with minDiscountRatio_ 0.5, algo_ 1 (WALI), ShortIntervals_ 0.
#
# Reported (last stdout line, JSON): over the window, data packets delivered
# at d, their wire bytes per second (wire_Bps) and segment bytes per second
# (packets x SIZE_B / window: segment_Bps, talkspurt's goodput_bps / 8).

proc usage {} {
    puts stderr "usage: ns tfrc_loss.tcl plain|voip P ?DURATION_S? ?SEED? ?START_S? ?SIZE_B?"
    exit 2
}
if {$argc < 2 || $argc > 6} { usage }
set opt(mode)     [lindex $argv 0]
set opt(p)        [lindex $argv 1]
set opt(duration) 200.0
set opt(seed)     1
set opt(start)    50.0
if {$argc >= 3} { set opt(duration) [lindex $argv 2] }
if {$argc >= 4} { set opt(seed)     [lindex $argv 3] }
if {$argc >= 5} { set opt(start)    [lindex $argv 4] }
if {$opt(mode) ni {plain voip}} { usage }
set opt(size) [expr {$opt(mode) eq "voip" ? 200 : 1000}]
if {$argc >= 6} { set opt(size) [lindex $argv 5] }
if {![string is double -strict $opt(p)] || $opt(p) < 0 || $opt(p) >= 1} {
    puts stderr "P must be a number in \[0, 1)"; exit 2
}
if {![string is double -strict $opt(duration)] || $opt(duration) <= 0} {
    puts stderr "DURATION_S must be > 0"; exit 2
}
if {![string is double -strict $opt(start)] || $opt(start) < 0 || $opt(start) >= $opt(duration)} {
    puts stderr "START_S must be in \[0, DURATION_S)"; exit 2
}

source [file join [file dirname [info script]] tcp_common.tcl]

set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
set loss_rng [seeded_rng]

set s  [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d  [$ns node]
$ns duplex-link $s  $r1 100Mb 1ms  DropTail
$ns duplex-link $r1 $r2 10Mb  50ms DropTail
$ns duplex-link $r2 $d  100Mb 1ms  DropTail
# talkspurt "1000p" waiting packets = ns-2 limit 1001 (tcp_loss.tcl).
foreach {a b} [list $s $r1 $r1 $s $r1 $r2 $r2 $r1 $r2 $d $d $r2] {
    $ns queue-limit $a $b 1001
}

bernoulli_loss $ns $r1 $r2 $opt(p) $loss_rng

set tfrc [new Agent/TFRC]
$tfrc set packetSize_ $opt(size)
if {$opt(mode) eq "voip"} { $tfrc set voip_ 1 }
$ns attach-agent $s $tfrc
set sink [new Agent/TFRCSink]
$ns attach-agent $d $sink
$ns connect $tfrc $sink

# Delivered data at d: departures of r2 -> d (the access link never drops).
set qm [attach_counter $ns $r2 $d]
proc snapshot {} { global qm; return [list [$qm set bdepartures_] [$qm set pdepartures_]] }
set snap0 {}
$ns at 0.0 "$tfrc start"
$ns at $opt(start) {set snap0 [snapshot]}
$ns at $opt(duration) {set snap1 [snapshot]; $ns halt}
$ns run

lassign $snap0 b0 p0
lassign $snap1 b1 p1
set w [expr {$opt(duration) - $opt(start)}]
# Feedback packets travel d -> s, not through r2 -> d: every byte counted is data.
puts [format {{"mode": "%s", "p": %s, "seed": %d, "size_b": %d, "window_s": %g, "wire_Bps": %.3f, "segment_Bps": %.3f, "packets": %d}} \
    $opt(mode) $opt(p) $opt(seed) $opt(size) $w [expr {($b1 - $b0) / $w}] \
    [expr {($p1 - $p0) * $opt(size) / $w}] [expr {$p1 - $p0}]]
