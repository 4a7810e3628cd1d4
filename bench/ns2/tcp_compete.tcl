# talkspurt TCP peer: two bulk TCP flows of the same variant competing for a
# drop-tail bottleneck, in ns-2.
#
#   ns tcp_compete.tcl VARIANT ?DURATION_S? ?SEED? ?START_S? ?FLOW2_START?
#
#   VARIANT      Tahoe | Reno | Newreno | Sack1 | Vegas  (case-insensitive)
#   DURATION_S   simulated seconds                                  (default 100)
#   SEED         >= 0; RNG substream (tcp_common.tcl, seed_rngs)   (default 1)
#   START_S      start of the goodput measurement window [START, DURATION]
#                                                                   (default 10)
#   FLOW2_START  "random" (default): flow 2 starts at U[0, 1) s drawn from the
#                seeded RNG; or a fixed start time in s (e.g. 0.5)
#
# Topology (talkspurt twin: tests/data/tcp/compete.toml):
#
#   s1 --100Mb/s,1ms--+                                 +--100Mb/s,1ms-- d1
#                     r1 --2Mb/s,20ms, DropTail 50p-- r2
#   s2 --100Mb/s,1ms--+                                 +--100Mb/s,1ms-- d2
#
# Flow i: FTP over Agent/TCP/<VARIANT> from si to a TCPSink at di. Flow 1
# starts at 0 s, flow 2 at FLOW2_START. No random loss: every loss is a
# bottleneck overflow.
#
# Why flow 2's start is random by default: with fixed starts (0 and 0.5 s)
# this ns-2 experiment is deterministic -- seeds 1, 2, ... give bit-identical
# results. The only other randomness is each TCP agent's clock phase
# boot_time_ ~ U[0, tcpTick_) (tcp/tcp.cc reset()), which only shifts the
# tick-quantised RTT samples and so, at most, an RTO by a tick. Measured
# (ns-2.35, all five variants, seeds 1-3, starts 0 / 0.5 s): bit-identical
# results, including the one timeout per flow in the initial slow-start
# overshoot. Three "seeds" would be one experiment three times. A start offset ~ U[0, 1) is the randomness
# that actually changes the outcome (drop-tail phase effects between the
# two flows), and talkspurt can mirror it in distribution with
# `start = { kind = "uniform", from = "0s", to = "1s" }` on flow 2. A fixed
# FLOW2_START (e.g. 0.5) is the exactly mirrorable, deterministic variant.
#
# The TCP settings, packet sizes and ns-2 conventions (40-byte headers added
# by the sender, pseudo-SYN, no delayed ACKs, Vegas exception, DropTail limit
# + 1) are those of tcp_loss.tcl; see its header and tcp_common.tcl.
#
# The last line on stdout is one JSON object: per-flow goodput (payload bits
# delivered in order over the window), the Jain fairness index
# (x1 + x2)^2 / (2 (x1^2 + x2^2)), and the bottleneck's drops.

proc usage {} {
    puts stderr "usage: ns tcp_compete.tcl Tahoe|Reno|Newreno|Sack1|Vegas ?DURATION_S? ?SEED? ?START_S? ?FLOW2_START|random?"
    exit 2
}
if {$argc < 1 || $argc > 5} { usage }

set opt(variant)  [lindex $argv 0]
set opt(duration) 100.0
set opt(seed)     1
set opt(start)    10.0
set opt(start2)   random
if {$argc >= 2} { set opt(duration) [lindex $argv 1] }
if {$argc >= 3} { set opt(seed)     [lindex $argv 2] }
if {$argc >= 4} { set opt(start)    [lindex $argv 3] }
if {$argc >= 5} { set opt(start2)   [lindex $argv 4] }

source [file join [file dirname [info script]] tcp_common.tcl]

if {[catch {tcp_classes $opt(variant)} classes]} { puts stderr $classes; usage }
set variant [lindex $classes 0]
if {![string is double -strict $opt(duration)] || $opt(duration) <= 0} {
    puts stderr "DURATION_S must be > 0"; exit 2
}
if {![string is double -strict $opt(start)] || $opt(start) < 0 || $opt(start) >= $opt(duration)} {
    puts stderr "START_S must be in \[0, DURATION_S)"; exit 2
}
if {$opt(start2) ne "random" && (![string is double -strict $opt(start2)] || $opt(start2) < 0)} {
    puts stderr "FLOW2_START must be a time >= 0 or 'random'"; exit 2
}

# --- scenario constants (keep in sync with tests/data/tcp/compete.toml) ----
set access_rate    100Mb
set access_delay   1ms
set access_qlim    1000      ;# talkspurt "1000p": the access links never drop
set bneck_rate     2Mb
set bneck_delay    20ms
set bneck_qlim     50        ;# talkspurt "50p" (waiting packets)
set ns2_qlim_extra 1         ;# ns-2 limit counts the packet in service too
set nflows         2

set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
# The start offset's own stream, at substream SEED (tcp_common.tcl).
set start_rng [seeded_rng]
if {$opt(start2) eq "random"} {
    set start2 [$start_rng uniform 0 1]
} else {
    set start2 $opt(start2)
}
if {$start2 >= $opt(duration)} { puts stderr "FLOW2_START must be < DURATION_S"; exit 2 }

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $bneck_rate $bneck_delay DropTail
$ns queue-limit $r1 $r2 [expr {$bneck_qlim + $ns2_qlim_extra}]
$ns queue-limit $r2 $r1 [expr {$bneck_qlim + $ns2_qlim_extra}]
for {set i 1} {$i <= $nflows} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
    $ns duplex-link $src($i) $r1 $access_rate $access_delay DropTail
    $ns duplex-link $r2 $dst($i) $access_rate $access_delay DropTail
    foreach {n1 n2} [list $src($i) $r1 $r1 $src($i) $r2 $dst($i) $dst($i) $r2] {
        $ns queue-limit $n1 $n2 [expr {$access_qlim + $ns2_qlim_extra}]
    }
}

set qm_bneck [attach_counter $ns $r1 $r2]

set starts [list 0.0 $start2]
for {set i 1} {$i <= $nflows} {incr i} {
    lassign [tcp_flow $ns $src($i) $dst($i) $variant $i] tcp($i) sink($i) ftp($i)
    $ns at [lindex $starts [expr {$i - 1}]] "$ftp($i) start"
}

proc snapshot {} {
    global nflows tcp sink qm_bneck
    set out {}
    for {set i 1} {$i <= $nflows} {incr i} {
        lappend out [delivered_packets $sink($i)] [$tcp($i) set ndatapack_] \
            [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_]
    }
    lappend out [$qm_bneck set pdrops_] [$qm_bneck set pdepartures_] [$qm_bneck set bdepartures_]
    return $out
}
proc window_start {} { global snap0; set snap0 [snapshot] }
proc finish {} { global ns snap1; set snap1 [snapshot]; $ns halt }
$ns at $opt(start)    "window_start"
$ns at $opt(duration) "finish"

set t_run0 [clock milliseconds]
$ns run
set t_run1 [clock milliseconds]

set window_s [expr {$opt(duration) - $opt(start)}]
set flows_json {}
set sum 0.0
set sumsq 0.0
for {set i 1} {$i <= $nflows} {incr i} {
    set k [expr {4 * ($i - 1)}]
    lassign [lrange $snap0 $k [expr {$k + 3}]] p0 s0 x0 t0
    lassign [lrange $snap1 $k [expr {$k + 3}]] p1 s1 x1 t1
    set pk [expr {$p1 - $p0}]
    set gp [expr {$pk * $tcp_mss * 8.0 / $window_s}]
    set sum [expr {$sum + $gp}]
    set sumsq [expr {$sumsq + $gp * $gp}]
    lappend flows_json [format {{"flow": %d, "start_s": %s, "goodput_bps": %.3f, "delivered_packets": %d, "sent_packets": %d, "retransmitted_packets": %d, "timeouts": %d, "delivered_packets_total": %d, "retransmitted_packets_total": %d, "timeouts_total": %d}} \
        $i [lindex $starts [expr {$i - 1}]] $gp $pk [expr {$s1 - $s0}] [expr {$x1 - $x0}] \
        [expr {$t1 - $t0}] $p1 $x1 $t1]
}
set jain [expr {$sumsq > 0 ? $sum * $sum / ($nflows * $sumsq) : 0.0}]
set n [expr {4 * $nflows}]
lassign [lrange $snap0 $n end] drop0 dep0 bdep0
lassign [lrange $snap1 $n end] drop1 dep1 bdep1
set util [expr {($bdep1 - $bdep0) * 8.0 / ($window_s * 2e6)}]

puts [format {{"simulator": "ns-2", "script": "tcp_compete.tcl", "variant": "%s", "duration_s": %s, "seed": %d, "window_start_s": %s, "window_s": %s, "flow2_start": "%s", "flows": [%s], "total_goodput_bps": %.3f, "jain_index": %.6f, "bottleneck_drops": %d, "bottleneck_drops_total": %d, "bottleneck_utilisation": %.6f, "mss_bytes": %d, "packet_bytes": %d, "ns2_queue_limit_bottleneck": %d, "run_wall_s": %.3f}} \
    $variant $opt(duration) $opt(seed) $opt(start) $window_s $opt(start2) \
    [join $flows_json ", "] $sum $jain [expr {$drop1 - $drop0}] $drop1 $util \
    $tcp_mss [expr {$tcp_mss + $tcp_hdr}] [expr {$bneck_qlim + $ns2_qlim_extra}] \
    [expr {($t_run1 - $t_run0) / 1000.0}]]
exit 0
