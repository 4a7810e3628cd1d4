# talkspurt benchmark peer: always-on G.711 calls through a dumbbell, in ns-2.
#
#   ns dumbbell.tcl ?CALLS? ?DURATION_S? ?TRACE? ?STAGGER_US?
#
#   CALLS       number of one-way voice calls a -> b              (default 1000)
#   DURATION_S  simulated seconds                                  (default 60)
#   TRACE       off | on | PATH   per-packet trace-all file         (default off)
#               ("on" writes dumbbell.tr in the current directory)
#   STAGGER_US  start offset between consecutive calls, in us      (default 20)
#
# Topology (same as bench/dumbbell.toml):
#
#   a --1Gb/s,1ms-- r1 --100Mb/s,30ms, DropTail-- r2 --1Gb/s,1ms-- b
#
# Each call: Agent/UDP + Application/Traffic/CBR, one 200-byte IP packet every
# 20 ms (G.711, 160 B payload + 40 B IP/UDP/RTP), continuous, call i starting
# at i*STAGGER_US; a LossMonitor per call at b.
#
# Two ns-2 conventions this script has to compensate for:
#
#  * Packet size. Agent/UDP does NOT add any header bytes: the size on the
#    wire (hdr_cmn::size) is exactly what the application hands to sendmsg(),
#    cut into pieces of at most the agent's packetSize_ (apps/udp.cc,
#    UdpAgent::sendmsg). So CBR packetSize_ = 200 is already the full IP
#    datagram (40 B of IP/UDP/RTP are *inside* the 200), and the agent's
#    packetSize_ (default 1000) must stay >= 200 or the message would be split
#    into several packets. (TCP agents, by contrast, add 40 B of headers.)
#
#  * Queue limit. DropTail::enque drops when q_->length() + 1 >= qlim_
#    (queue/drop-tail.cc). The packet being serialised has already been
#    dequeued (the queue is "blocked" while LinkDelay transmits it), so a
#    limit of L admits at most L-1 *waiting* packets, i.e. L packets in the
#    system counting the one on the wire. talkspurt's "50p" counts waiting
#    packets only, so the ns-2 limit is talkspurt's + 1 (51 on the
#    bottleneck). A limit of 1 drops everything, even on an idle link.
#
# At the end the script prints one line of JSON (prefixed by nothing, the last
# line on stdout) with the traffic counters and the number of scheduler events.

set opt(calls)     1000
set opt(duration)  60.0
set opt(trace)     off
set opt(stagger)   20.0

if {$argc >= 1} { set opt(calls)    [lindex $argv 0] }
if {$argc >= 2} { set opt(duration) [lindex $argv 1] }
if {$argc >= 3} { set opt(trace)    [lindex $argv 2] }
if {$argc >= 4} { set opt(stagger)  [lindex $argv 3] }
if {$argc > 4} {
    puts stderr "usage: ns dumbbell.tcl ?CALLS? ?DURATION_S? ?off|on|TRACEFILE? ?STAGGER_US?"
    exit 2
}

# --- scenario constants (keep in sync with bench/dumbbell.toml) -------------
set pkt_bytes     200        ;# IP datagram: 160 B G.711 payload + 12 RTP + 8 UDP + 20 IP
set ptime         0.020      ;# s between packets of one call
set access_rate   1Gb
set access_delay  1ms
set access_qlim   1000       ;# talkspurt "1000p" (waiting packets)
set bneck_rate    100Mb
set bneck_delay   30ms
set bneck_qlim    50         ;# talkspurt "50p" (waiting packets)
set ns2_qlim_extra 1         ;# ns-2 limit counts the packet in service too (see above)

set t_setup0 [clock milliseconds]

set ns [new Simulator]

set tracefd ""
if {$opt(trace) ne "off" && $opt(trace) ne "0"} {
    set path $opt(trace)
    if {$path eq "on" || $path eq "1"} { set path dumbbell.tr }
    set tracefd [open $path w]
    $ns trace-all $tracefd
}

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

# Counters without trace files: a QueueMonitor (plain C++ counters, no
# events, no I/O) on the access link counts every packet the sources emit and
# on the bottleneck counts its drops.
proc attach_counter {ns n1 n2} {
    set link [$ns link $n1 $n2]
    set qm [new QueueMonitor]
    $link attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] \
        [new SnoopQueue/Drop] $qm
    return $qm
}
set qm_access [attach_counter $ns $a $r1]
set qm_bneck  [attach_counter $ns $r1 $r2]
set qm_egress [attach_counter $ns $r2 $b]

# Sources stop just before the horizon: a packet due at exactly DURATION is
# outside the run [0, DURATION). ns-2 accumulates the CBR clock in doubles
# (drift ~1e-11 s over 3000 packets), so 1 ns of margin decides the tie.
set rate_bps [expr {$pkt_bytes * 8.0 / $ptime}]
set stop_at  [expr {$opt(duration) - 1e-9}]

for {set i 0} {$i < $opt(calls)} {incr i} {
    set udp [new Agent/UDP]
    $udp set packetSize_ 1000      ;# max datagram before UDP splits; >= 200
    $udp set fid_ $i
    $ns attach-agent $a $udp

    set sink [new Agent/LossMonitor]
    $ns attach-agent $b $sink
    $ns connect $udp $sink
    set sinks($i) $sink

    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ $pkt_bytes
    $cbr set rate_ $rate_bps       ;# interval = packetSize_*8/rate_ = 20 ms
    $cbr set random_ 0
    $cbr attach-agent $udp

    set start [expr {$i * $opt(stagger) * 1e-6}]
    if {$start < $stop_at} {
        $ns at $start   "$cbr start"
        $ns at $stop_at "$cbr stop"
    }
}

proc finish {} {
    global ns
    $ns halt
}
$ns at $opt(duration) "finish"

set t_run0 [clock milliseconds]
$ns run
set t_run1 [clock milliseconds]

# Scheduler event ids are a global counter incremented by every schedule()
# (common/scheduler.cc); the id of one more dummy event is therefore the
# number of events scheduled so far + 1. This includes our own ~2*CALLS+1
# "at" events and the few events still pending at the horizon.
set next_uid [$ns at [expr {$opt(duration) + 1.0}] "set _unused 0"]
set events [expr {$next_uid - 1}]

set received 0
set rx_bytes 0
set seq_gaps 0
for {set i 0} {$i < $opt(calls)} {incr i} {
    incr received [$sinks($i) set npkts_]
    incr rx_bytes [$sinks($i) set bytes_]
    incr seq_gaps [$sinks($i) set nlost_]
}

set sent       [$qm_access set parrivals_]
set sent_bytes [$qm_access set barrivals_]
set drops      [expr {[$qm_access set pdrops_] + [$qm_bneck set pdrops_] + [$qm_egress set pdrops_]}]

if {$tracefd ne ""} {
    $ns flush-trace
    close $tracefd
}

puts [format {{"simulator": "ns-2", "calls": %d, "duration_s": %s, "stagger_us": %s, "trace": %s, "packet_bytes": %d, "sent": %d, "sent_bytes": %s, "received": %d, "received_bytes": %d, "dropped": %d, "dropped_bottleneck": %d, "seq_gaps": %d, "bottleneck_departures": %d, "events_scheduled": %d, "ns2_queue_limit_bottleneck": %d, "setup_wall_s": %.3f, "run_wall_s": %.3f}} \
    $opt(calls) $opt(duration) $opt(stagger) \
    [expr {$tracefd ne "" ? "true" : "false"}] $pkt_bytes \
    $sent $sent_bytes $received $rx_bytes $drops [$qm_bneck set pdrops_] $seq_gaps \
    [$qm_bneck set pdepartures_] $events [expr {$bneck_qlim + $ns2_qlim_extra}] \
    [expr {($t_run0 - $t_setup0) / 1000.0}] [expr {($t_run1 - $t_run0) / 1000.0}]]
exit 0
