# talkspurt sweep-benchmark peer: 4 on/off G.711 calls over a 300 kb/s
# bottleneck, in ns-2 (the scenario of bench/sweep.toml).
#
#   ns voice_onoff.tcl DELAY_MS SEED ?DURATION_S?
#
#   phones --100Mb/s,1ms-- router --300kb/s,DELAY_MS,DropTail 50p-- far
#
# Each call: Agent/UDP + Application/Traffic/Exponential, 200-byte IP
# packets (160 B G.711 payload + 40 B IP/UDP/RTP, see dumbbell.tcl on
# ns-2's UDP sizes) every 20 ms while on (rate 80 kb/s), exponential on
# and off periods of mean 1 s and 1.5 s; a LossMonitor per call at `far`.
# The ns-2 DropTail limit is talkspurt's waiting-packet limit + 1 (see
# dumbbell.tcl). Prints one JSON line: sent, received.

if {$argc < 2} {
    puts stderr "usage: ns voice_onoff.tcl DELAY_MS SEED ?DURATION_S?"
    exit 2
}
set delay_ms [lindex $argv 0]
set seed     [lindex $argv 1]
set duration 60.0
if {$argc >= 3} { set duration [lindex $argv 2] }

set ns [new Simulator]
$defaultRNG seed $seed

set a [$ns node]
set r [$ns node]
set b [$ns node]
$ns duplex-link $a $r 100Mb 1ms DropTail
$ns duplex-link $r $b 300kb ${delay_ms}ms DropTail
$ns queue-limit $a $r 1001
$ns queue-limit $r $b 51

set sinks {}
set srcs {}
for {set i 0} {$i < 4} {incr i} {
    set udp [new Agent/UDP]
    $udp set packetSize_ 1000
    $ns attach-agent $a $udp
    set sink [new Agent/LossMonitor]
    $ns attach-agent $b $sink
    $ns connect $udp $sink
    set src [new Application/Traffic/Exponential]
    $src set packetSize_ 200
    $src set burst_time_ 1.0
    $src set idle_time_ 1.5
    $src set rate_ 80k
    $src attach-agent $udp
    $ns at [expr {$i * 5.0 / 4}] "$src start"
    $ns at $duration "$src stop"
    lappend sinks $sink
    lappend srcs $udp
}

proc finish {} {
    global sinks
    set rx 0
    foreach s $sinks { incr rx [$s set npkts_] }
    puts "{\"received\": $rx}"
    exit 0
}
$ns at [expr {$duration + 5.0}] "finish"
$ns run
