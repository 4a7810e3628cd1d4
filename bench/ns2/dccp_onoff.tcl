# talkspurt DCCP peer: one on/off voice-like flow (exponential talkspurts
# and silences, one 172-byte packet every 20 ms while on) over ns-2's DCCP
# CCID 3 (Agent/DCCP/TFRC, N.-E. Mattsson's implementation of RFC 4340 /
# RFC 4342 over RFC 3448) with a 5-packet send buffer, on a loss-free path:
# the seed 000 §5.2 case of the time frames wait in the sender after silence.
#
#   ns dccp_onoff.tcl DELAY_MS ?DURATION_S? ?SEED? ?TALK_S? ?SILENCE_S?
#
#   DELAY_MS    one-way delay of the 10 Mb/s bottleneck (25, 100, 200 …)
#   DURATION_S  simulated seconds (default 120); SEED (1); TALK_S mean
#               talkspurt (1.0); SILENCE_S mean silence (1.5)
#
# Topology (talkspurt twin: tests/data/tfrc/onoff.toml):
#   s --100Mb/s,1ms-- r1 --10Mb/s,DELAY-- r2 --100Mb/s,1ms-- d
#
# ns-2 conventions relied on (ns-2.35 dccp/dccp.cc, dccp/dccp_tfrc.cc and
# the installed defaults, `Agent/DCCP/TFRC set VAR`):
#  * The agent sends what `advanceby N` hands it: N packets of packetSize_
#    (DCCPAgent::command). packetSize_ 172 = G.711 20 ms + 12 B RTP.
#  * Packets sent = num_data_pkt_ + num_dataack_pkt_ (a data packet goes
#    out as DCCP-DataAck when an acknowledgement is pending).
#  * The TFRC segment size used in the rate rules is s_s_ / r_s_, not the
#    packet size, and the initial rate s_initial_x_ is in bytes/s: all set to
#    172 so "one packet per second" means one of these packets.
#  * s_use_osc_prev_ 0: RFC 3448 §4.5 oscillation reduction off (talkspurt
#    does not implement it).
#  * The source and its 5-packet buffer are Tcl (below): a packet finding
#    5 accepted-but-unsent packets is dropped.
#
# Reported (JSON, last line): packets generated, accepted, dropped by the
# full buffer, sent; the time-average number waiting (accepted - sent,
# sampled every 1 ms) and, by Little's law, the mean wait of an accepted
# packet in ms (wait_mean_ms); per packet (send time - acceptance time,
# FIFO, send times of DCCP-Data/DataAck from the s -> r1 queue trace) the
# mean, the 95th percentile (linear interpolation, as talkspurt's calls
# table) and the mean over the first packet of each talkspurt
# (first_wait_mean_ms: the wait for the sender's next send slot after a
# silence, docs/models/tfrc.md "Against ns-2").

proc usage {} {
    puts stderr "usage: ns dccp_onoff.tcl DELAY_MS ?DURATION_S? ?SEED? ?TALK_S? ?SILENCE_S?"
    exit 2
}
if {$argc < 1 || $argc > 5} { usage }
set opt(delay)    [lindex $argv 0]
set opt(duration) 120.0
set opt(seed)     1
set opt(talk)     1.0
set opt(silence)  1.5
if {$argc >= 2} { set opt(duration) [lindex $argv 1] }
if {$argc >= 3} { set opt(seed)     [lindex $argv 2] }
if {$argc >= 4} { set opt(talk)     [lindex $argv 3] }
if {$argc >= 5} { set opt(silence)  [lindex $argv 4] }
foreach k {delay duration talk silence} {
    if {![string is double -strict $opt($k)] || $opt($k) <= 0} { puts stderr "$k must be > 0"; exit 2 }
}

source [file join [file dirname [info script]] tcp_common.tcl]
set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
set app_rng [seeded_rng]

lassign [voice_path $ns $opt(delay)] s r1 r2 d

set trace [send_trace $ns $s $r1]

set seg 172
set tfrc [new Agent/DCCP/TFRC]
$tfrc set s_use_osc_prev_ 0

$tfrc set packetSize_ $seg
$tfrc set s_s_ $seg
$tfrc set s_initial_x_ $seg


$ns attach-agent $s $tfrc
set sink [new Agent/DCCP/TFRC]
$sink set s_use_osc_prev_ 0
$sink set r_s_ $seg
$ns attach-agent $d $sink
$ns connect $tfrc $sink
$sink listen

# The voice source, in Tcl: exponential talkspurts and silences (own RNG
# stream), one packet every 20 ms while on, handed to the agent with
# `advanceby 1` (onoff_voice, tcp_common.tcl); the 5-packet buffer is
# kept here.
set accepted 0
set dropped 0
set generated 0
set accept_times {}
set first_index {}
set spurt_start 0
proc frame {} {
    global ns tfrc accepted dropped generated seg accept_times first_index spurt_start
    incr generated
    set first $spurt_start
    set spurt_start 0
    if {$accepted - ([$tfrc set num_data_pkt_] + [$tfrc set num_dataack_pkt_]) >= 5} { incr dropped; return }
    if {$first} { lappend first_index $accepted }
    incr accepted
    lappend accept_times [$ns now]
    $tfrc advanceby 1
}

set n 0
set sum 0
proc sample {} {
    global ns tfrc n sum opt accepted
    set sum [expr {$sum + $accepted - ([$tfrc set num_data_pkt_] + [$tfrc set num_dataack_pkt_])}]
    incr n
    set t [expr {[$ns now] + 0.001}]
    if {$t < $opt(duration)} { $ns at $t sample }
}
onoff_voice $ns $app_rng $opt(talk) $opt(silence) frame {set spurt_start 1}
$ns at 0.0005 sample
$ns at $opt(duration) {$ns halt}
$ns run

set sent [expr {[$tfrc set num_data_pkt_] + [$tfrc set num_dataack_pkt_]}]
set waits [sender_waits $accept_times [send_times $trace {DCCP_Data DCCP_DataAck}]]
lassign [mean_p95 $waits] pp_mean p95
set first_waits {}
foreach i $first_index { if {$i < [llength $waits]} { lappend first_waits [lindex $waits $i] } }
lassign [mean_p95 $first_waits] first_mean
set lbar [expr {double($sum) / $n}]
set lambda [expr {$accepted / $opt(duration)}]
puts [format {{"delay_ms": %s, "seed": %d, "generated": %d, "accepted": %d, "dropped": %d, "sent": %d, "mean_waiting": %.5f, "wait_mean_ms": %.3f, "sender_loss": %.5f, "wait_pp_mean_ms": %.3f, "wait_p95_ms": %.3f, "first_wait_mean_ms": %.3f, "talkspurts": %d}} \
    $opt(delay) $opt(seed) $generated $accepted $dropped $sent $lbar [expr {$lambda > 0 ? 1000.0 * $lbar / $lambda : 0}] \
    [expr {$generated > 0 ? double($dropped) / $generated : 0}] $pp_mean $p95 $first_mean [llength $first_waits]]
