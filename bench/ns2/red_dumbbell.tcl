# talkspurt peer: greedy TCP flows through a RED bottleneck with ns-2.35's
# Queue/RED defaults, for the side-by-side test of talkspurt's RED
# (crates/talkspurt-core/tests/red_ns2.rs builds the twin scenario).
#
#   ns red_dumbbell.tcl ?NFLOWS? ?DURATION_S? ?SEED? ?START_S? ?MODE?
#
#   NFLOWS      greedy Newreno flows                              (default 5)
#   DURATION_S  simulated seconds                                 (default 100)
#   SEED        >= 0; RNG substream (tcp_common.tcl, seed_rngs)   (default 1)
#   START_S     start of the measurement window [START, DURATION] (default 10)
#   MODE        bytes (ns-2.35 default: bytes_ and queue_in_bytes_ true) or
#               packets                                           (default bytes)
#
# Topology (flow i from s_i to d_i, starting at (i-1) x 0.2 s):
#
#   s_i --100Mb/s,1ms-- r1 --10Mb/s,20ms, RED-- r2 --100Mb/s,1ms-- d_i
#
# RED on r1 -> r2 with every Queue/RED default of ns-2.35 (thresh_ 0 and
# maxthresh_ 0: automatic thresholds; q_weight_ -1: automatic weight; gentle_,
# wait_, mean_pktsize_ 500, linterm_ 10), except limit_: 100, which in byte
# mode is 100 x mean_pktsize_ = 50000 bytes (talkspurt twin: "50000B"). The
# reverse direction is DropTail. TCP settings are tcp_common.tcl's.
#
# Last line on stdout: JSON with the bottleneck's arrivals and drops in the
# window, the time-average queue in packets and bytes over the window (the
# QueueMonitor's integrators: packets waiting, not the one on the wire), and
# the drop fraction.

set opt(n)        5
set opt(duration) 100.0
set opt(seed)     1
set opt(start)    10.0
set opt(mode)     bytes
if {$argc >= 1} { set opt(n)        [lindex $argv 0] }
if {$argc >= 2} { set opt(duration) [lindex $argv 1] }
if {$argc >= 3} { set opt(seed)     [lindex $argv 2] }
if {$argc >= 4} { set opt(start)    [lindex $argv 3] }
if {$argc >= 5} { set opt(mode)     [lindex $argv 4] }
if {$opt(mode) ne "bytes" && $opt(mode) ne "packets"} {
    puts stderr "MODE must be bytes or packets"; exit 2
}

source [file join [file dirname [info script]] tcp_common.tcl]

set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }

set inbytes [expr {$opt(mode) eq "bytes" ? "true" : "false"}]
Queue/RED set bytes_ $inbytes
Queue/RED set queue_in_bytes_ $inbytes

set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 10Mb 20ms RED
$ns simplex-link $r2 $r1 10Mb 20ms DropTail
$ns queue-limit $r1 $r2 100
$ns queue-limit $r2 $r1 1001
for {set i 1} {$i <= $opt(n)} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
    $ns duplex-link $src($i) $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $dst($i) 100Mb 1ms DropTail
    foreach {n1 n2} [list $src($i) $r1 $r1 $src($i) $r2 $dst($i) $dst($i) $r2] {
        $ns queue-limit $n1 $n2 1001
    }
}
set qm [attach_counter $ns $r1 $r2]
set pint [new Integrator]
set bint [new Integrator]
$qm set-pkts-integrator $pint
$qm set-bytes-integrator $bint

for {set i 1} {$i <= $opt(n)} {incr i} {
    lassign [tcp_flow $ns $src($i) $dst($i) Newreno $i] tcp($i) sink($i) ftp($i)
    $ns at [expr {($i - 1) * 0.2}] "$ftp($i) start"
}

proc snapshot {} {
    global qm pint bint
    return [list [$qm set parrivals_] [$qm set pdrops_] [$pint set sum_] [$bint set sum_]]
}
proc window_start {} { global snap0; set snap0 [snapshot] }
proc finish {} { global ns snap1; set snap1 [snapshot]; $ns halt }
$ns at $opt(start)    "window_start"
$ns at $opt(duration) "finish"
$ns run

# The integrators advance at queue changes (ns-2 Integrator::newPoint).
lassign $snap0 a0 d0 p0 b0
lassign $snap1 a1 d1 p1 b1
set w [expr {$opt(duration) - $opt(start)}]
set arrivals [expr {$a1 - $a0}]
set drops [expr {$d1 - $d0}]
puts [format {{"arrivals": %d, "drops": %d, "drop_fraction": %.6f, "mean_queue_pkts": %.4f, "mean_queue_bytes": %.1f, "window_s": %g}} \
    $arrivals $drops [expr {double($drops) / $arrivals}] [expr {($p1 - $p0) / $w}] [expr {($b1 - $b0) / $w}] $w]
