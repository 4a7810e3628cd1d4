# talkspurt benchmark peer: always-on G.711 calls sharing a drop-tail
# bottleneck with greedy NewReno TCP flows, in ns-2.
#
#   ns tcp_mix.tcl ?DURATION_S? ?CALLS? ?FLOWS? ?START_S? ?RATE DELAY QLIM MSS WINDOW?
#
#   DURATION_S  simulated seconds                                  (default 60)
#   CALLS       one-way voice calls a -> b                         (default 100)
#   FLOWS       greedy TCP NewReno flows a -> b                    (default 4)
#   START_S     start of the TCP goodput window [START, DURATION]  (default 10)
#   RATE DELAY QLIM MSS WINDOW   bottleneck rate and delay (ns-2 syntax),
#               its queue limit (waiting packets), TCP payload bytes per
#               segment and window_ (packets); all five or none
#               (default 20Mb 20ms 100 1460 10000). bench/tcp_mix.py
#               --preset mixed uses 100Mb 30ms 50 1000 1000 (issue 26's
#               "Mixed" run; talkspurt twin bench/tcp_mix_big.toml).
#
# Topology (talkspurt twin: bench/tcp_mix.toml; ns-3 twin: bench/ns3/tcp_mix.cc):
#
#   a --1Gb/s,1ms-- r1 --20Mb/s,20ms, DropTail 100p-- r2 --1Gb/s,1ms-- b
#
# Voice: as bench/ns2/dumbbell.tcl -- Agent/UDP + CBR, one 200-byte IP packet
# every 20 ms per call (G.711: 160 B payload + 40 B IP/UDP/RTP; Agent/UDP adds
# no header bytes), call i starting at i x 20 us, a LossMonitor per call.
# 100 calls offer 8 Mb/s.
# TCP: FTP over Agent/TCP/Newreno, flow j starting at j x 100 ms, to a
# TCPSink; 1500-byte packets and every other setting from tcp_common.tcl
# (see tcp_loss.tcl for the conventions). They take the remaining ~12 Mb/s.
#
# No random loss and no trace files: all counters are plain C++ (a
# QueueMonitor per link direction that matters, the agents' own counters).
# The last line on stdout is one JSON object with the run-phase wall time
# (Tcl clock around `$ns run`), voice packets sent/received, TCP goodput per
# flow and the number of scheduler events.

if {$argc > 9 || ($argc > 4 && $argc != 9)} {
    puts stderr "usage: ns tcp_mix.tcl ?DURATION_S? ?CALLS? ?FLOWS? ?START_S? ?RATE DELAY QLIM MSS WINDOW?"
    exit 2
}
set opt(duration) 60.0
set opt(calls)    100
set opt(flows)    4
set opt(start)    10.0
if {$argc >= 1} { set opt(duration) [lindex $argv 0] }
if {$argc >= 2} { set opt(calls)    [lindex $argv 1] }
if {$argc >= 3} { set opt(flows)    [lindex $argv 2] }
if {$argc >= 4} { set opt(start)    [lindex $argv 3] }
if {![string is double -strict $opt(duration)] || $opt(duration) <= 0 \
        || ![string is integer -strict $opt(calls)] || $opt(calls) < 0 \
        || ![string is integer -strict $opt(flows)] || $opt(flows) < 0 \
        || ![string is double -strict $opt(start)] || $opt(start) < 0 \
        || $opt(start) >= $opt(duration)} {
    puts stderr "bad arguments: DURATION_S > 0, CALLS >= 0, FLOWS >= 0, 0 <= START_S < DURATION_S"
    exit 2
}

source [file join [file dirname [info script]] tcp_common.tcl]
set tcp_window 10000

# --- scenario constants (keep in sync with bench/tcp_mix.toml, ns3/tcp_mix.cc)
set voice_bytes    200       ;# whole IP datagram
set ptime          0.020
set stagger        20e-6     ;# s between call starts
set flow_stagger   0.1       ;# s between TCP flow starts
set access_rate    1Gb
set access_delay   1ms
set access_qlim    1000      ;# talkspurt "1000p" (waiting packets)
set bneck_rate     20Mb
set bneck_delay    20ms
set bneck_qlim     100       ;# talkspurt "100p" (waiting packets)
set ns2_qlim_extra 1         ;# ns-2 limit counts the packet in service too
if {$argc == 9} {
    lassign [lrange $argv 4 8] bneck_rate bneck_delay bneck_qlim tcp_mss tcp_window
    if {![string is integer -strict $bneck_qlim] || ![string is integer -strict $tcp_mss]
            || ![string is integer -strict $tcp_window]} {
        puts stderr "bad arguments: QLIM, MSS and WINDOW are integers"
        exit 2
    }
}

set t_setup0 [clock milliseconds]
set ns [new Simulator]
# Nothing here draws random numbers except each TCP agent's clock phase
# (boot_time_); fixing the substream keeps the run reproducible.
seed_rngs 1

set a  [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set b  [$ns node]
$ns duplex-link $a  $r1 $access_rate $access_delay DropTail
$ns duplex-link $r1 $r2 $bneck_rate  $bneck_delay  DropTail
$ns duplex-link $r2 $b  $access_rate $access_delay DropTail
foreach {n1 n2 lim} [list $a $r1 $access_qlim  $r1 $a $access_qlim \
                          $r1 $r2 $bneck_qlim  $r2 $r1 $bneck_qlim \
                          $r2 $b $access_qlim  $b $r2 $access_qlim] {
    $ns queue-limit $n1 $n2 [expr {$lim + $ns2_qlim_extra}]
}
set qm_access [attach_counter $ns $a $r1]   ;# everything a sends
set qm_bneck  [attach_counter $ns $r1 $r2]

# Voice (see bench/ns2/dumbbell.tcl for why packetSize_ 200 is the whole
# datagram and why sources stop 1 ns before the horizon).
set stop_at [expr {$opt(duration) - 1e-9}]
for {set i 0} {$i < $opt(calls)} {incr i} {
    set udp [new Agent/UDP]
    $udp set packetSize_ 1000
    $udp set fid_ [expr {1000 + $i}]
    $ns attach-agent $a $udp
    set lm [new Agent/LossMonitor]
    $ns attach-agent $b $lm
    $ns connect $udp $lm
    set voice_sink($i) $lm
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ $voice_bytes
    $cbr set rate_ [expr {$voice_bytes * 8.0 / $ptime}]
    $cbr set random_ 0
    $cbr attach-agent $udp
    set t0 [expr {$i * $stagger}]
    if {$t0 < $stop_at} {
        $ns at $t0      "$cbr start"
        $ns at $stop_at "$cbr stop"
    }
}

# TCP
for {set j 0} {$j < $opt(flows)} {incr j} {
    lassign [tcp_flow $ns $a $b Newreno [expr {$j + 1}]] tcp($j) tsink($j) ftp($j)
    $tcp($j) set packetSize_ $tcp_mss
    $tcp($j) set window_     $tcp_window
    $ns at [expr {$j * $flow_stagger}] "$ftp($j) start"
}

proc tcp_delivered {} {
    global opt tsink
    set out {}
    for {set j 0} {$j < $opt(flows)} {incr j} { lappend out [delivered_packets $tsink($j)] }
    return $out
}
proc window_start {} { global del0; set del0 [tcp_delivered] }
proc finish {} { global ns del1; set del1 [tcp_delivered]; $ns halt }
$ns at $opt(start)    "window_start"
$ns at $opt(duration) "finish"

set t_run0 [clock milliseconds]
$ns run
set t_run1 [clock milliseconds]

# Events scheduled so far = uid of one more event - 1 (common/scheduler.cc;
# see dumbbell.tcl).
set events [expr {[$ns at [expr {$opt(duration) + 1.0}] "set _unused 0"] - 1}]

set voice_rx 0
for {set i 0} {$i < $opt(calls)} {incr i} { incr voice_rx [$voice_sink($i) set npkts_] }
set tcp_sent 0
set window_s [expr {$opt(duration) - $opt(start)}]
set flows_json {}
for {set j 0} {$j < $opt(flows)} {incr j} {
    incr tcp_sent [$tcp($j) set ndatapack_]
    set pk [expr {[lindex $del1 $j] - [lindex $del0 $j]}]
    lappend flows_json [format {{"flow": %d, "start_s": %g, "goodput_bps": %.3f, "delivered_packets": %d, "retransmitted_packets_total": %d, "timeouts_total": %d}} \
        [expr {$j + 1}] [expr {$j * $flow_stagger}] [expr {$pk * $tcp_mss * 8.0 / $window_s}] $pk \
        [$tcp($j) set nrexmitpack_] [$tcp($j) set nrexmit_]]
}
# The a -> r1 link carries voice and TCP data (ACKs go the other way), and
# nothing is dropped there, so voice sent = arrivals - TCP data packets.
set voice_sent [expr {[$qm_access set parrivals_] - $tcp_sent}]

puts [format {{"simulator": "ns-2", "script": "tcp_mix.tcl", "duration_s": %s, "calls": %d, "flows": %d, "window_start_s": %s, "voice_sent": %d, "voice_received": %d, "tcp": [%s], "tcp_goodput_bps_total": %.3f, "bottleneck_drops": %d, "bottleneck_departures": %d, "access_drops": %d, "events_scheduled": %d, "setup_wall_s": %.3f, "run_wall_s": %.3f}} \
    $opt(duration) $opt(calls) $opt(flows) $opt(start) $voice_sent $voice_rx \
    [join $flows_json ", "] \
    [expr {([::tcl::mathop::+ 0 {*}$del1] - [::tcl::mathop::+ 0 {*}$del0]) * $tcp_mss * 8.0 / $window_s}] \
    [$qm_bneck set pdrops_] [$qm_bneck set pdepartures_] [$qm_access set pdrops_] $events \
    [expr {($t_run0 - $t_setup0) / 1000.0}] [expr {($t_run1 - $t_run0) / 1000.0}]]
exit 0
