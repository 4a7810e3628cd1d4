# talkspurt benchmark peer (issue 26 target 5): one greedy TCP flow through a
# 1 Gb/s, 100 ms-RTT dumbbell with Bernoulli loss on the data direction.
#
#   ns tcp_recovery.tcl VARIANT P ?DURATION_S? ?SEED? ?START_S?
#
#   VARIANT     cubic (Agent/TCP/Linux, select_ca cubic, TCPSink/Sack1)
#               | Sack1 (Agent/TCP/Sack1, TCPSink/Sack1)
#   P           per-packet loss probability on r1 -> r2, 0 <= P < 1
#   DURATION_S  simulated seconds (default 60); SEED (default 1);
#   START_S     goodput window start (default 10)
#
# Topology (talkspurt twin: bench/tcp_recovery.toml):
#
#   s --10Gb/s,1ms-- r1 --1Gb/s,48ms, DropTail 1000p-- r2 --10Gb/s,1ms-- d
#
# Conventions (loss after the wire, queue limit + 1, 1500-byte packets,
# substream seeding) as bench/ns2/tcp_loss.tcl explains. Agent/TCP/Linux
# (ns-2.35 tcp/linux/, the Linux 2.6 congestion-control modules run inside
# ns-2) needs its sink to echo timestamps (ns-2 TCP-Linux documentation);
# its packets carry no timestamp bytes in ns-2's size accounting.
# The last line on stdout is one JSON object.

proc usage {} {
    puts stderr "usage: ns tcp_recovery.tcl cubic|Sack1 P ?DURATION_S? ?SEED? ?START_S?"
    exit 2
}
if {$argc < 2 || $argc > 5} { usage }
set opt(variant)  [string tolower [lindex $argv 0]]
set opt(p)        [lindex $argv 1]
set opt(duration) 60.0
set opt(seed)     1
set opt(start)    10.0
if {$argc >= 3} { set opt(duration) [lindex $argv 2] }
if {$argc >= 4} { set opt(seed)     [lindex $argv 3] }
if {$argc >= 5} { set opt(start)    [lindex $argv 4] }
if {$opt(variant) ni {cubic sack1 sack}} { usage }
if {![string is double -strict $opt(p)] || $opt(p) < 0 || $opt(p) >= 1} {
    puts stderr "P must be a number in \[0, 1)"; exit 2
}

source [file join [file dirname [info script]] tcp_common.tcl]

set ns [new Simulator]
if {[catch {seed_rngs $opt(seed)} err]} { puts stderr $err; exit 2 }
set loss_rng [seeded_rng]

set s  [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d  [$ns node]
$ns duplex-link $s  $r1 10Gb 1ms  DropTail
$ns duplex-link $r1 $r2 1Gb  48ms DropTail
$ns duplex-link $r2 $d  10Gb 1ms  DropTail
foreach {n1 n2 lim} [list $s $r1 10000  $r1 $s 10000  $r1 $r2 1000  $r2 $r1 1000 \
                          $r2 $d 10000  $d $r2 10000] {
    $ns queue-limit $n1 $n2 [expr {$lim + 1}]
}
set qm_bneck [attach_counter $ns $r1 $r2]
bernoulli_loss $ns $r1 $r2 $opt(p) $loss_rng

if {$opt(variant) eq "cubic"} {
    set tcp [new Agent/TCP/Linux]
    $tcp set timestamps_ true
    set sink [new Agent/TCPSink/Sack1]
    $sink set ts_echo_rfc1323_ true
    $ns at 0.0 "$tcp select_ca cubic"
    set name "Linux/cubic"
} else {
    set tcp [new Agent/TCP/Sack1]
    set sink [new Agent/TCPSink/Sack1]
    set name "Sack1"
}
$tcp set packetSize_ $tcp_mss
$tcp set window_     100000
$tcp set windowInit_ 2
$tcp set tcpTick_    0.01
$tcp set minrto_     0.2
$tcp set fid_        1
$ns attach-agent $s $tcp
$ns attach-agent $d $sink
$ns connect $tcp $sink
# Optional trace (docs/models/tcp-cc.md "CUBIC against ns-2's
# Agent/TCP/Linux"): with TCP_RECOVERY_TRACE=FILE in the environment,
# every change of cwnd_ and ssthresh_ (the agent's traced variables) and,
# every 10 ms, a line "S time cwnd_ ssthresh_ t_seqno_ ack_ nrexmit_
# nrexmitpack_ ncwndcuts_ sink-bytes_ srtt_" go to FILE.
if {[info exists env(TCP_RECOVERY_TRACE)]} {
    set trf [open $env(TCP_RECOVERY_TRACE) w]
    $tcp attach $trf
    $tcp trace cwnd_
    $tcp trace ssthresh_
    proc sampler {} {
        global ns tcp sink trf
        puts $trf [format "S %.4f %s %s %s %s %s %s %s %s %s" [$ns now] \
            [$tcp set cwnd_] [$tcp set ssthresh_] [$tcp set t_seqno_] [$tcp set ack_] \
            [$tcp set nrexmit_] [$tcp set nrexmitpack_] [$tcp set ncwndcuts_] \
            [$sink set bytes_] [$tcp set srtt_]]
        $ns at [expr {[$ns now] + 0.01}] sampler
    }
    $ns at 0.0 sampler
}
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc snapshot {} {
    global tcp sink qm_bneck
    return [list [$sink set bytes_] [$tcp set ndatapack_] [$tcp set nrexmitpack_] \
                 [$tcp set nrexmit_] [$qm_bneck set pdepartures_]]
}
set snap0 {}
proc window_start {} { global snap0; set snap0 [snapshot] }
proc finish {} { global ns snap1; set snap1 [snapshot]; $ns halt }
$ns at $opt(start)    "window_start"
$ns at $opt(duration) "finish"

set t_run0 [clock milliseconds]
$ns run
set t_run1 [clock milliseconds]

lassign $snap0 b0 sent0 rx0 to0 dep0
lassign $snap1 b1 sent1 rx1 to1 dep1
set wire [expr {$tcp_mss + $tcp_hdr}]
set window_s [expr {$opt(duration) - $opt(start)}]
set dpkts [expr {$b1 / $wire - $b0 / $wire}]
puts [format {{"simulator": "ns-2", "script": "tcp_recovery.tcl", "variant": "%s", "p": %s, "duration_s": %s, "seed": %d, "goodput_bps": %.3f, "delivered_packets": %d, "sent_packets_total": %d, "retransmitted_packets_total": %d, "timeouts_total": %d, "bottleneck_departures": %d, "run_wall_s": %.3f}} \
    $name $opt(p) $opt(duration) $opt(seed) [expr {$dpkts * $tcp_mss * 8.0 / $window_s}] \
    $dpkts $sent1 $rx1 $to1 [expr {$dep1 - $dep0}] [expr {($t_run1 - $t_run0) / 1000.0}]]
exit 0
