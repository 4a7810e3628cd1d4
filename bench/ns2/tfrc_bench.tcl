# talkspurt TFRC benchmark peer (bench/tfrc.py): N flows through one
# 10 Mb/s, 20 ms, 100-packet drop-tail bottleneck.
#
#   ns tfrc_bench.tcl voice|bulk N DURATION_S ?SEED? ?RATE?
#
#   voice  N on/off G.711-like calls over DCCP CCID 3 (Agent/DCCP/TFRC),
#          exponential talkspurts 1 s / silences 1.5 s, one 172-byte packet
#          every 20 ms while on, a 5-packet send buffer kept in Tcl
#          (dccp_onoff.tcl explains the conventions); twin bench/tfrc_voice.toml
#   bulk   N greedy Agent/TFRC flows of 1000-byte packets (+ 32 B header);
#          twin bench/tfrc_bulk.toml
#
# Topology: a --1Gb/s,1ms-- r1 --RATE,20ms,100p-- r2 --1Gb/s,1ms-- b, RATE
# an ns-2 bandwidth (default 10Mb; bench/tfrc.py's voice1000 case runs
# 1000 calls with 100Mb, twin bench/tfrc_voice1000.toml, so the calls offer
# the bottleneck the same ~32 % load as 100 calls offer 10 Mb/s).
# Flow i starts at i x 1 ms. Prints one JSON line: packets delivered at b
# (data direction), the run's own wall time.

if {$argc < 3 || $argc > 5} {
    puts stderr "usage: ns tfrc_bench.tcl voice|bulk N DURATION_S ?SEED? ?RATE?"; exit 2
}
lassign $argv mode n duration
set seed [expr {$argc >= 4 ? [lindex $argv 3] : 1}]
set rate [expr {$argc == 5 ? [lindex $argv 4] : "10Mb"}]
if {$mode ni {voice bulk} || ![string is integer -strict $n] || $n < 1} {
    puts stderr "MODE must be voice or bulk, N >= 1"; exit 2
}
source [file join [file dirname [info script]] tcp_common.tcl]
set ns [new Simulator]
seed_rngs $seed
set app_rng [seeded_rng]

set a  [$ns node]; set r1 [$ns node]; set r2 [$ns node]; set b [$ns node]
$ns duplex-link $a  $r1 1Gb  1ms  DropTail
$ns duplex-link $r1 $r2 $rate 20ms DropTail
$ns duplex-link $r2 $b  1Gb  1ms  DropTail
foreach {x y l} [list $a $r1 1001 $r1 $a 1001 $r1 $r2 101 $r2 $r1 101 $r2 $b 1001 $b $r2 1001] {
    $ns queue-limit $x $y $l
}
set qm [attach_counter $ns $r2 $b]

set on_rv [new RandomVariable/Exponential]
$on_rv set avg_ 1.0
$on_rv use-rng $app_rng
set off_rv [new RandomVariable/Exponential]
$off_rv set avg_ 1.5
$off_rv use-rng $app_rng
set seg 172

proc talkspurt {i} {
    global ns on_rv off_rv duration
    set now [$ns now]
    set end [expr {$now + [$on_rv value]}]
    for {set t $now} {$t < $end && $t < $duration} {set t [expr {$t + 0.020}]} { $ns at $t "frame $i" }
    set next [expr {$end + [$off_rv value]}]
    if {$next < $duration} { $ns at $next "talkspurt $i" }
}
proc frame {i} {
    global snd accepted
    set sent [expr {[$snd($i) set num_data_pkt_] + [$snd($i) set num_dataack_pkt_]}]
    if {$accepted($i) - $sent >= 5} { return }
    incr accepted($i)
    $snd($i) advanceby 1
}

for {set i 0} {$i < $n} {incr i} {
    if {$mode eq "voice"} {
        set snd($i) [new Agent/DCCP/TFRC]
        set rcv [new Agent/DCCP/TFRC]
        foreach ag [list $snd($i) $rcv] {
            $ag set s_use_osc_prev_ 0
            $ag set packetSize_ $seg
            $ag set s_s_ $seg
            $ag set s_initial_x_ $seg
            $ag set r_s_ $seg
        }
        $ns attach-agent $a $snd($i)
        $ns attach-agent $b $rcv
        $ns connect $snd($i) $rcv
        $rcv listen
        set accepted($i) 0
        $ns at [expr {$i * 0.001}] "talkspurt $i"
    } else {
        set snd($i) [new Agent/TFRC]
        $snd($i) set packetSize_ 1000
        set rcv [new Agent/TFRCSink]
        $ns attach-agent $a $snd($i)
        $ns attach-agent $b $rcv
        $ns connect $snd($i) $rcv
        $ns at [expr {$i * 0.001}] "$snd($i) start"
    }
}
$ns at $duration {$ns halt}
set t0 [clock milliseconds]
$ns run
set t1 [clock milliseconds]
puts [format {{"mode": "%s", "flows": %d, "duration_s": %s, "delivered_packets": %d, "delivered_bytes": %d, "run_wall_s": %.3f}} \
    $mode $n $duration [$qm set pdepartures_] [$qm set bdepartures_] [expr {($t1 - $t0) / 1000.0}]]
