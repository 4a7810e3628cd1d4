# talkspurt CCID 2 peer: one greedy ns-2 Agent/DCCP/TCPlike flow (RFC 4341,
# N.-E. Mattsson's implementation in ns-2.35 dccp/dccp_tcplike.cc) through
# the dumbbell of tfrc_loss.tcl with Bernoulli loss on the bottleneck.
#
#   ns dccp_tcplike_loss.tcl P ?DURATION_S? ?SEED? ?START_S? ?SIZE_B?
#
#   P           per-packet loss probability on r1 -> r2, 0 <= P < 1
#   DURATION_S  simulated seconds (default 200); SEED (1); START_S start
#               of the measurement window (50); SIZE_B packetSize_ (1000)
#
# Topology (talkspurt twin: tests/tfrc.rs, ccid2_* tests' path):
#   s --100Mb/s,1ms-- r1 --10Mb/s,50ms-- r2 --100Mb/s,1ms-- d
#
# An FTP hands the agent an infinite backlog (DCCPAgent::sendmsg(-1)).
# Defaults kept (ns-2.35 `Agent/DCCP/TCPlike`): initial Ack Ratio 2, its
# RFC 4341 §6.1.2 Ack Ratio rules, RTO per RFC 2988 with 1 s minimum.
#
# Reported (JSON, last line): data packets the sender sent over the window
# (num_data_pkt_ + num_dataack_pkt_) per second, and the receiver's Acks.
proc usage {} {
    puts stderr "usage: ns dccp_tcplike_loss.tcl P ?DURATION_S? ?SEED? ?START_S? ?SIZE_B?"
    exit 2
}
if {$argc < 1 || $argc > 5} { usage }
set opt(p)        [lindex $argv 0]
set opt(duration) 200.0
set opt(seed)     1
set opt(start)    50.0
set opt(size)     1000
if {$argc >= 2} { set opt(duration) [lindex $argv 1] }
if {$argc >= 3} { set opt(seed)     [lindex $argv 2] }
if {$argc >= 4} { set opt(start)    [lindex $argv 3] }
if {$argc >= 5} { set opt(size)     [lindex $argv 4] }
if {![string is double -strict $opt(p)] || $opt(p) < 0 || $opt(p) >= 1} { puts stderr "P must be in \[0, 1)"; exit 2 }

source [file join [file dirname [info script]] tcp_common.tcl]
set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
set loss_rng [seeded_rng]

set s  [$ns node]; set r1 [$ns node]; set r2 [$ns node]; set d [$ns node]
$ns duplex-link $s  $r1 100Mb 1ms  DropTail
$ns duplex-link $r1 $r2 10Mb  50ms DropTail
$ns duplex-link $r2 $d  100Mb 1ms  DropTail
foreach {a b} [list $s $r1 $r1 $s $r1 $r2 $r2 $r1 $r2 $d $d $r2] { $ns queue-limit $a $b 1001 }

bernoulli_loss $ns $r1 $r2 $opt(p) $loss_rng

set snd [new Agent/DCCP/TCPlike]
$snd set packetSize_ $opt(size)
set rcv [new Agent/DCCP/TCPlike]
$ns attach-agent $s $snd
$ns attach-agent $d $rcv
$ns connect $snd $rcv
$rcv listen
set ftp [new Application/FTP]
$ftp attach-agent $snd

proc sent {} { global snd; return [expr {[$snd set num_data_pkt_] + [$snd set num_dataack_pkt_]}] }
proc acks {} { global rcv; return [expr {[$rcv set num_ack_pkt_] + [$rcv set num_dataack_pkt_]}] }
$ns at 0.0 "$ftp start"
$ns at $opt(start) {set s0 [sent]; set a0 [acks]}
$ns at $opt(duration) {set s1 [sent]; set a1 [acks]; $ns halt}
$ns run
set w [expr {double($opt(duration)) - $opt(start)}]
puts [format {{"p": %s, "seed": %d, "window_s": %g, "sent_pps": %.3f, "acks_ps": %.3f}} \
    $opt(p) $opt(seed) $w [expr {($s1 - $s0) / $w}] [expr {($a1 - $a0) / $w}]]
