# ns-2 twin of seed 002's set-up (scenarios/seeds/002/voip.toml, with the
# same readings): a parking lot of two 2 Mb/s, 10 ms drop-tail hops
# (50-packet queues, ns-2's default), N VoIP flows a_i -> b_i over both
# hops, F FTP/Reno flows x_i -> y_i over the second, Bernoulli loss 1 % on
# the sinks' access links in both directions, 60 s.
# Voice: Application/Traffic/Pareto (rate 64 kb/s while on, 160-byte
# packets, on/off means 500 ms, shape 1.5: ns-2's defaults but the packet
# size) over UDP, or over a TCP variant with 160-byte segments and ns-2's
# window_ of 20 packets.
# Usage: ns voip.tcl PROTO N F THRESHOLD_MS SEED QUICK
#   PROTO: udp | reno | newreno | vegas | westwood (Agent/TCP/Linux, westwood)
# Prints key value lines: voice_goodput_kbps, rtpi, dpr_pct, plr_pct, jain,
# ftp_goodput_kbps. RTPI/DPR/PLR follow seed 002's Algorithm 1 with the
# bundle's default reading: predecessor by sequence number, a missing one
# counts as delayed, silences are compared (docs/models/metrics.md §1).
# For TCP, segment k arrives (for Algorithm 1) with the sink's first
# cumulative ACK >= k (in-order delivery to the application); "sent" is the
# highest sequence number the agent sent + 1.

set proto [lindex $argv 0]
set nv [lindex $argv 1]
set nf [lindex $argv 2]
set thr [expr {[lindex $argv 3] / 1000.0}]
set seed [lindex $argv 4]
set quick [lindex $argv 5]
set duration [expr {$quick ? 5.0 : 60.0}]

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed
Queue set limit_ 50
Agent/TCP set window_ 20
Agent/TCP set tcpTick_ 0.01
Agent/TCP set minrto_ 0.2

set r1 [$ns node]
set r2 [$ns node]
set r3 [$ns node]
$ns duplex-link $r1 $r2 2Mb 10ms DropTail
$ns duplex-link $r2 $r3 2Mb 10ms DropTail

set tf [open "|cat > /dev/null" w]
set tracefile "/tmp/ns2_002_[pid]_$seed.tr"
set tr [open $tracefile w]

proc lossy {from to} {
    global ns
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ 0.01
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $from $to
}

# Voice flows
set vsrc {}
set vdst {}
set vagents {}
for {set i 0} {$i < $nv} {incr i} {
    set a [$ns node]
    set b [$ns node]
    $ns duplex-link $a $r1 10Mb 2ms DropTail
    $ns duplex-link $r3 $b 10Mb 2ms DropTail
    $ns queue-limit $a $r1 10000
    lossy $r3 $b
    lossy $b $r3
    $ns trace-queue $r3 $b $tr
    $ns trace-queue $a $r1 $tr
    $ns trace-queue $b $r3 $tr
    if {$proto == "udp"} {
        set s [new Agent/UDP]
        set d [new Agent/Null]
    } elseif {$proto == "westwood"} {
        set s [new Agent/TCP/Linux]
        $s set timestamps_ true
        $ns at 0 "$s select_ca westwood"
        set d [new Agent/TCPSink/Sack1]
        $d set ts_echo_rfc1323_ true
    } else {
        switch $proto {
            reno { set s [new Agent/TCP/Reno] }
            newreno { set s [new Agent/TCP/Newreno] }
            vegas { set s [new Agent/TCP/Vegas] }
            default { puts stderr "unknown protocol $proto"; exit 2 }
        }
        set d [new Agent/TCPSink]
    }
    $s set packetSize_ 160
    $s set fid_ [expr {$i + 1}]
    $ns attach-agent $a $s
    $ns attach-agent $b $d
    $ns connect $s $d
    set p [new Application/Traffic/Pareto]
    $p set packetSize_ 160
    $p set rate_ 64k
    $p set burst_time_ 500ms
    $p set idle_time_ 500ms
    $p set shape_ 1.5
    $p attach-agent $s
    $ns at [expr {0.01 * $i}] "$p start"
    $ns at $duration "$p stop"
    lappend vagents $s
    lappend vdst [$b id]
}

# FTP cross traffic (not traced at the source: only "r" at the sinks counts) on the second hop
set fdst {}
for {set i 0} {$i < $nf} {incr i} {
    set x [$ns node]
    set y [$ns node]
    $ns duplex-link $x $r2 10Mb 2ms DropTail
    $ns duplex-link $r3 $y 10Mb 2ms DropTail
    $ns trace-queue $r3 $y $tr
    set s [new Agent/TCP/Reno]
    $s set packetSize_ 1000
    $s set fid_ [expr {1000 + $i}]
    set d [new Agent/TCPSink]
    $ns attach-agent $x $s
    $ns attach-agent $y $d
    $ns connect $s $d
    set f [new Application/FTP]
    $f attach-agent $s
    $ns at [expr {0.01 * $i}] "$f start"
    $ns at $duration "$f stop"
}

proc finish {} {
    global ns tr tracefile vagents vdst nv nf thr duration proto
    $ns flush-trace
    close $tr
    # First arrival of each (flow, seqno) at its sink: "r" events on the
    # last links.
    set fh [open $tracefile r]
    while {[gets $fh line] >= 0} {
        set f [split $line " "]
        set ev [lindex $f 0]
        set fid [lindex $f 7]
        set seq [lindex $f 10]
        if {$fid >= 1000} {
            # FTP: first arrival of each segment at its sink.
            if {$ev == "r" && ![info exists fseen($fid,$seq)]} {
                set fseen($fid,$seq) 1
                if {[lindex $f 1] <= $duration} {
                    set fbytes($fid) [expr {[info exists fbytes($fid)] ? $fbytes($fid) + 1000 : 1000}]
                }
            }
            continue
        }
        if {$proto == "udp"} {
            # UDP numbers its packets (RTP header) from 0.
            if {$ev == "+" && [lindex $f 4] != "ack"} {
                if {![info exists maxsent($fid)] || $seq > $maxsent($fid)} { set maxsent($fid) $seq }
            } elseif {$ev == "r" && [lindex $f 3] == [lindex $vdst [expr {$fid - 1}]] && ![info exists arr($fid,$seq)]} {
                set arr($fid,$seq) [lindex $f 1]
            }
        } elseif {$ev == "+" && [lindex $f 4] == "ack"} {
            # TCP: the trace shows the application's packet type, so data
            # segments carry no sequence number; the sink's cumulative ACKs
            # do. Segment k reaches the application with the first ACK >= k.
            set t [lindex $f 1]
            set from [expr {[info exists acked($fid)] ? $acked($fid) + 1 : 0}]
            for {set k $from} {$k <= $seq} {incr k} { set arr($fid,$k) $t }
            if {$seq >= $from} { set acked($fid) $seq }
        }
    }
    close $fh
    file delete $tracefile
    set sum_rtpi 0.0
    set sum_dpr 0.0
    set sum_plr 0.0
    set gp {}
    for {set i 0} {$i < $nv} {incr i} {
        set fid [expr {$i + 1}]
        set s [lindex $vagents $i]
        if {$proto == "udp"} {
            set sent [expr {[info exists maxsent($fid)] ? $maxsent($fid) + 1 : 0}]
        } else {
            # Segments the agent sent: the highest sequence number + 1.
            set sent [expr {[$s set maxseq_] + 1}]
        }
        set recv 0
        set delayed 0
        for {set k 0} {$k < $sent} {incr k} {
            if {![info exists arr($fid,$k)]} continue
            incr recv
            if {$k == 0} continue
            if {[info exists arr($fid,[expr {$k - 1}])]} {
                set prev $arr($fid,[expr {$k - 1}])
                if {$prev <= $arr($fid,$k)} {
                    if {$arr($fid,$k) - $prev > $thr} { incr delayed }
                    continue
                }
            }
            # predecessor missing or later: Algorithm 1 as written (delayed)
            if {$arr($fid,$k) > $thr} { incr delayed }
        }
        if {$sent > 0} {
            set sum_rtpi [expr {$sum_rtpi + double($recv - $delayed) / $sent}]
            set sum_dpr [expr {$sum_dpr + double($delayed) / $sent}]
            set sum_plr [expr {$sum_plr + double($sent - $recv) / $sent}]
        }
        lappend gp [expr {$recv * 160 * 8.0 / $duration}]
    }
    set tot 0.0
    set sq 0.0
    foreach g $gp { set tot [expr {$tot + $g}]; set sq [expr {$sq + $g * $g}] }
    puts "voice_goodput_kbps [expr {$tot / 1000.0}]"
    puts "rtpi [expr {$sum_rtpi / $nv}]"
    puts "dpr_pct [expr {100.0 * $sum_dpr / $nv}]"
    puts "plr_pct [expr {100.0 * $sum_plr / $nv}]"
    puts "jain [expr {$sq > 0 ? $tot * $tot / ($nv * $sq) : 1.0}]"
    set ft 0.0
    foreach {k v} [array get fbytes] { set ft [expr {$ft + $v}] }
    puts "ftp_goodput_kbps [expr {$ft * 8.0 / $duration / 1000.0}]"
    exit 0
}
$ns at [expr {$duration + 5.0}] "finish"
$ns run
