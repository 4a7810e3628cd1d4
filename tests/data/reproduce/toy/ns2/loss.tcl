# ns-2 twin of the toy bundle: one 10 Mb/s, 10 ms link that drops each
# packet with probability P (ErrorModel, uniform, per packet), four CBR
# flows at G.711's 20 ms packets (160 B payload + 40 B headers).
# Usage: ns loss.tcl P SEED QUICK   -> prints "loss_pct X"
set p [lindex $argv 0]
set seed [lindex $argv 1]
set quick [lindex $argv 2]
set duration [expr {$quick ? 10.0 : 20.0}]
set ns [new Simulator]
set a [$ns node]
set b [$ns node]
$ns duplex-link $a $b 10Mb 10ms DropTail
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
set rv [new RandomVariable/Uniform]
set rng [new RNG]
$rng seed $seed
$rv use-rng $rng
$em ranvar $rv
$ns lossmodel $em $a $b
set sinks {}
for {set i 0} {$i < 4} {incr i} {
    set u [new Agent/UDP]
    $ns attach-agent $a $u
    set m [new Agent/LossMonitor]
    $ns attach-agent $b $m
    $ns connect $u $m
    set c [new Application/Traffic/CBR]
    $c attach-agent $u
    $c set packetSize_ 200
    $c set interval_ 0.02
    $ns at [expr {0.001 * $i}] "$c start"
    lappend sinks $m
}
proc finish {} {
    global sinks duration
    set got 0
    set lost 0
    foreach m $sinks {
        set got [expr {$got + [$m set npkts_]}]
        set lost [expr {$lost + [$m set nlost_]}]
    }
    puts "loss_pct [expr {100.0 * $lost / ($got + $lost)}]"
    puts "received $got"
}
$ns at $duration "finish; $ns halt"
$ns run
