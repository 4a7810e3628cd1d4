# talkspurt TFRC peer: one on/off voice-like flow (exponential talkspurts
# and silences, one 172-byte packet every 20 ms while on) over ns-2's
# Agent/TFRC as a data-driven sender (SndrType_ 1), with a 5-packet send
# buffer, on a loss-free path. Same source, path and buffer as
# dccp_onoff.tcl; here the transport is plain TFRC with Agent/TFRC's own
# idle rules (idleFix_, see below).
#
#   ns tfrc_onoff.tcl MODE DELAY_MS ?DURATION_S? ?SEED? ?TALK_S? ?SILENCE_S?
#
#   MODE        plain | voip   (voip: Agent/TFRC voip_ 1: at most
#               voip_max_pkt_rate_ = 100 packets/s; its other changes, the
#               equation with fsize_ 1460 and the header correction, act
#               only once p > 0, and this path is loss-free)
#   DELAY_MS    one-way delay of the 10 Mb/s bottleneck (25, 100, 200 …)
#   DURATION_S  simulated seconds (default 120); SEED (1); TALK_S mean
#               talkspurt (1.0); SILENCE_S mean silence (1.5)
#
# Topology (talkspurt twin: tests/data/tfrc/onoff_tfrc.toml):
#   s --100Mb/s,1ms-- r1 --10Mb/s,DELAY-- r2 --100Mb/s,1ms-- d
#
# ns-2 conventions relied on (ns-2.35 tcp/tfrc.cc, tcp/tfrc-sink.cc and the
# installed defaults, `Agent/TFRC set VAR`; the reading is written up in
# docs/models/tfrc.md "Agent/TFRC on/off"):
#  * SndrType_ 1: `advanceby N` adds N packets of packetSize_ (172 B =
#    G.711 20 ms + 12 B RTP); with SndrType_ 0 the agent is greedy.
#    useHeaders_: 172 + headersize_ 32 B on the wire (twin header = "32B");
#    TFRCSink feedback packetSize_ 40 (twin ack = "40B").
#  * InitRate_ 172 B/s: one packet per second before the first feedback,
#    as RFC 3448 §4.2 / RFC 5348 §4.2 (ns-2's default is 300 B/s).
#  * The rest at ns-2's defaults: idleFix_ 1, rate_init_option_ 2 (4
#    packets per RTT for 172 B, RFC 3390), slow_increase_ 1, ca_ 1,
#    ssmult_ 2, oldCode_ 0, tcp_tick_ 0.1.
#  * The source and its 5-packet buffer are Tcl (below): a packet finding
#    5 accepted-but-unsent packets is dropped.
#
# Reported (JSON, last line): packets generated, accepted, dropped by the
# full buffer, sent; per-packet sender wait (send time - acceptance time,
# FIFO; send times from the s -> r1 queue trace) as mean and 95th
# percentile (linear interpolation, as talkspurt's calls table); sent_pps
# (packets sent / duration) and the time-mean allowed rate rate_ (sampled
# every 1 ms from the first packet, bytes of packetSize_ per second).

proc usage {} {
    puts stderr "usage: ns tfrc_onoff.tcl plain|voip DELAY_MS ?DURATION_S? ?SEED? ?TALK_S? ?SILENCE_S?"
    exit 2
}
if {$argc < 2 || $argc > 6} { usage }
set opt(mode)     [lindex $argv 0]
set opt(delay)    [lindex $argv 1]
set opt(duration) 120.0
set opt(seed)     1
set opt(talk)     1.0
set opt(silence)  1.5
if {$argc >= 3} { set opt(duration) [lindex $argv 2] }
if {$argc >= 4} { set opt(seed)     [lindex $argv 3] }
if {$argc >= 5} { set opt(talk)     [lindex $argv 4] }
if {$argc >= 6} { set opt(silence)  [lindex $argv 5] }
if {$opt(mode) ni {plain voip}} { usage }
foreach k {delay duration talk silence} {
    if {![string is double -strict $opt($k)] || $opt($k) <= 0} { puts stderr "$k must be > 0"; exit 2 }
}

source [file join [file dirname [info script]] tcp_common.tcl]
set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
set app_rng [seeded_rng]

lassign [voice_path $ns $opt(delay)] s r1 r2 d

# Send times: every "+" on s -> r1 is a data packet leaving the agent
# (feedback travels d -> s).
set trace [send_trace $ns $s $r1]

set seg 172
set tfrc [new Agent/TFRC]
$tfrc set SndrType_ 1
$tfrc set packetSize_ $seg
$tfrc set InitRate_ $seg
if {$opt(mode) eq "voip"} { $tfrc set voip_ 1 }
$ns attach-agent $s $tfrc
set sink [new Agent/TFRCSink]
$ns attach-agent $d $sink
$ns connect $tfrc $sink

# The voice source, in Tcl: exponential talkspurts and silences (own RNG
# stream), one packet every 20 ms while on, handed to the agent with
# `advanceby 1` (onoff_voice, tcp_common.tcl); the 5-packet buffer is
# kept here.
set accepted 0
set dropped 0
set generated 0
set accept_times {}
proc frame {} {
    global ns tfrc accepted dropped generated accept_times
    incr generated
    if {$accepted > 0 && $accepted - [$tfrc set ndatapack_] >= 5} { incr dropped; return }
    incr accepted
    lappend accept_times [$ns now]
    $tfrc advanceby 1
}

# Time mean of rate_ from the first packet on (1 ms samples).
set n 0
set rate_sum 0.0
proc sample {} {
    global ns tfrc n rate_sum opt accepted
    if {$accepted > 0} {
        set rate_sum [expr {$rate_sum + [$tfrc set rate_]}]
        incr n
    }
    set t [expr {[$ns now] + 0.001}]
    if {$t < $opt(duration)} { $ns at $t sample }
}
onoff_voice $ns $app_rng $opt(talk) $opt(silence) frame
$ns at 0.0005 sample
$ns at $opt(duration) {$ns halt}
$ns run

set send_times [send_times $trace {}]
set sent [llength $send_times]
lassign [mean_p95 [sender_waits $accept_times $send_times]] mean p95
puts [format {{"mode": "%s", "delay_ms": %s, "seed": %d, "generated": %d, "accepted": %d, "dropped": %d, "sent": %d, "wait_mean_ms": %.3f, "wait_p95_ms": %.3f, "sent_pps": %.4f, "rate_mean_Bps": %.3f, "sender_loss": %.5f}} \
    $opt(mode) $opt(delay) $opt(seed) $generated $accepted $dropped $sent $mean $p95 \
    [expr {double($sent) / $opt(duration)}] [expr {$n > 0 ? $rate_sum / $n : 0}] \
    [expr {$generated > 0 ? double($dropped) / $generated : 0}]]
