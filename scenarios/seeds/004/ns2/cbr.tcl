# ns-2.35 twin of seed 004's CBR rows (Barberis et al., Tables 1-5):
# N CBR voice sources each way across the section 4 dumbbell
# (256 kb/s, 3 ms bottleneck, 16 kB drop-tail; 100 Mb/s, 1 ms access
# links), every source reported on by RTCP.
#
#   ns cbr.tcl COUNT RATE_KBPS SEED [READING] [QUICK] [DURATION_S]
#
# QUICK 1 runs 60 s (the bundle's --quick), 0 (default) 300 s, the
# bundle's run length; DURATION_S overrides both.
#
# READING (how many bytes a packet is, whether RTCP runs):
#   plain         512 B packets, the rate counting them; no RTCP
#   headers       512 B payload + 40 B IP/UDP/RTP = 552 B, the interval
#                 set by the payload (512*8/rate); no RTCP
#   rtcp          512 B packets and RTCP
#   headers-rtcp  both (default)
# and with "-jitter" appended (e.g. headers-rtcp-jitter) the data sources
# jitter each gap as Application/Traffic/CBR's random_ 1 does; without it
# they are exactly periodic, as Session/RTP's data agent (Agent/CBR/RTP,
# random_ 0 by default) sends.
# RTCP as ns-2.35's own Session/RTP schedules it: Agent/RTCP's interval_
# is set by RTCPTimer (tcl/rtp/session-rtp.tcl): half of min_rpt_time_
# (1 s) for the first report, then max(8 * avg_size * members / bw,
# min_rpt_time_) = 1 s at these rates, with Agent/RTCP random_ 0
# (exactly periodic). Report sizes are RTPSession::build_report's: 8 +
# 20 (SR) + 20 (SDES) = 48 B from a sender, 8 + 48 (one RR block) + 20 =
# 76 B from a receiver, plus 28 B of IP/UDP under the `headers` readings.
# The reports are sent as their own CBR flows here (a unicast
# equivalent of the multicast Session/RTP: same sizes, same instants),
# senders' SRs along the data, receivers' RRs against it.
#
# Sources start at random within their first interval. The queue is ns-2's
# DropTail in byte mode (queue_in_bytes_, limit 32 x mean_pktsize_ 512 =
# 16 384 B).
#
# Prints `key value` lines for the forward direction: loss_pct (data
# packets dropped / offered at the bottleneck), delay_s (mean one-way
# delay of received data packets: the bottleneck's enqueue-to-receive
# time plus both 1 ms access links and their transmission times),
# loss_run_mean / loss_run_var and recv_run_mean / recv_run_var
# (back-to-back lost and received data packets per source, pooled over
# the forward sources, Tables 4-5's statistics), rtcp_loss_pct,
# data_pkts.

if {$argc < 3} {
    puts stderr "usage: ns cbr.tcl COUNT RATE_KBPS SEED \[plain|headers|rtcp|headers-rtcp\] \[QUICK 0|1\] \[DURATION_S\]"
    exit 2
}
set count [lindex $argv 0]
set rate_kbps [lindex $argv 1]
set seed [lindex $argv 2]
set reading [expr {$argc > 3 ? [lindex $argv 3] : "headers-rtcp"}]
set jitter 0
if {[string match "*-jitter" $reading]} {
    set jitter 1
    set reading [string range $reading 0 end-7]
}
set quick [expr {$argc > 4 ? [lindex $argv 4] : 0}]
set duration [expr {$argc > 5 ? [lindex $argv 5] : ($quick ? 60.0 : 300.0)}]
switch -- $reading {
    plain        { set hdr 0;  set rtcp 0 }
    headers      { set hdr 40; set rtcp 0 }
    rtcp         { set hdr 0;  set rtcp 1 }
    headers-rtcp { set hdr 40; set rtcp 1 }
    default {
        puts stderr "READING: plain, headers, rtcp or headers-rtcp (got $reading)"
        exit 2
    }
}
set ipudp [expr {$hdr > 0 ? 28 : 0}]

global defaultRNG
$defaultRNG seed $seed
set rng [new RNG]
$rng seed $seed

set ns [new Simulator]
set trfile "/tmp/ns2_seed004_cbr_[pid].tr"
set tr [open $trfile w]

set left [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set right [$ns node]
$ns duplex-link $left $r1 100Mb 1ms DropTail
$ns duplex-link $r1 $r2 256Kb 3ms DropTail
$ns duplex-link $r2 $right 100Mb 1ms DropTail
foreach {a b} [list $r1 $r2 $r2 $r1] {
    set q [[$ns link $a $b] queue]
    $q set queue_in_bytes_ true
    $q set mean_pktsize_ 512
    $q set limit_ 32
}
foreach {a b} [list $left $r1 $r1 $left $r2 $right $right $r2] {
    [[$ns link $a $b] queue] set limit_ 100000
}
$ns trace-queue $r1 $r2 $tr

set payload 512
set pkt [expr {$payload + $hdr}]
set interval [expr {$payload * 8.0 / ($rate_kbps * 1000.0)}]

# One CBR flow of `size` bytes every `iv` s from node a to node b.
proc flow {a b fid size iv start random} {
    global ns duration
    set u [new Agent/UDP]
    $u set fid_ $fid
    $ns attach-agent $a $u
    set sink [new Agent/Null]
    $ns attach-agent $b $sink
    $ns connect $u $sink
    set c [new Application/Traffic/CBR]
    $c set packetSize_ $size
    $c set interval_ $iv
    $c set random_ $random
    $c attach-agent $u
    $ns at $start "$c start"
    $ns at $duration "$c stop"
}

# fids: forward data 1..N, reverse data 1001.., forward SRs 2001..,
# reverse streams' RRs (travelling forward) 3001.., and the rest.
for {set i 0} {$i < $count} {incr i} {
    set s0 [$rng uniform 0 $interval]
    set s1 [$rng uniform 0 $interval]
    flow $left $right [expr {1 + $i}] $pkt $interval $s0 $jitter
    flow $right $left [expr {1001 + $i}] $pkt $interval $s1 $jitter
    if {$rtcp} {
        set sr [expr {48 + $ipudp}]
        set rr [expr {76 + $ipudp}]
        # Forward call i: SR from the left, RR from the right.
        flow $left $right [expr {2001 + $i}] $sr 1.0 [expr {$s0 + 0.5}] 0
        flow $right $left [expr {4001 + $i}] $rr 1.0 [expr {$s0 + 0.5}] 0
        # Reverse call i: SR from the right, RR from the left (forward).
        flow $right $left [expr {5001 + $i}] $sr 1.0 [expr {$s1 + 0.5}] 0
        flow $left $right [expr {3001 + $i}] $rr 1.0 [expr {$s1 + 0.5}] 0
    }
}

proc finish {} {
    global ns tr trfile count duration
    $ns flush-trace
    close $tr
    set f [open $trfile r]
    set offered 0; set dropped 0; set recv 0; set dsum 0.0
    set roff 0; set rdrop 0
    while {[gets $f line] >= 0} {
        set ev [lindex $line 0]
        set t [lindex $line 1]
        set size [lindex $line 5]
        set fid [lindex $line 7]
        set seq [lindex $line 10]
        set uid [lindex $line 11]
        if {$fid >= 1 && $fid <= 1000} {
            switch -- $ev {
                + { incr offered; set enq($uid) $t }
                d { incr dropped; set fate($fid,$seq) 0 }
                r {
                    incr recv
                    set dsum [expr {$dsum + $t - $enq($uid)}]
                    set fate($fid,$seq) 1
                }
            }
        } elseif {$fid > 2000} {
            switch -- $ev {
                + { incr roff }
                d { incr rdrop }
                r {}
            }
        }
    }
    close $f
    file delete $trfile
    # Access links: 1 ms each plus a packet's transmission at 100 Mb/s.
    set access [expr {0.002 + 2 * 8.0 * 552 / 100e6}]
    # Runs of lost and received packets per source, in sending order.
    set lruns {}; set rruns {}
    for {set i 1} {$i <= $count} {incr i} {
        set seqs [lsort -integer [lmap k [array names fate "$i,*"] {lindex [split $k ,] 1}]]
        set cur -1; set n 0
        foreach s $seqs {
            set x $fate($i,$s)
            if {$x == $cur} { incr n } else {
                if {$cur == 0} { lappend lruns $n } elseif {$cur == 1} { lappend rruns $n }
                set cur $x; set n 1
            }
        }
        if {$cur == 0} { lappend lruns $n } elseif {$cur == 1} { lappend rruns $n }
    }
    proc mv {l} {
        set n [llength $l]
        if {$n == 0} { return {nan nan} }
        set m [expr {double([tcl::mathop::+ {*}$l]) / $n}]
        set v 0.0
        foreach x $l { set v [expr {$v + ($x - $m) * ($x - $m)}] }
        return [list $m [expr {$n > 1 ? $v / ($n - 1) : 0.0}]]
    }
    lassign [mv $lruns] lm lv
    lassign [mv $rruns] rm rv
    puts "loss_pct [format %.4f [expr {$offered ? 100.0 * $dropped / $offered : 0}]]"
    puts "delay_s [format %.5f [expr {$recv ? $dsum / $recv + $access : 0}]]"
    puts "loss_run_mean $lm"
    puts "loss_run_var $lv"
    puts "recv_run_mean $rm"
    puts "recv_run_var $rv"
    puts "rtcp_loss_pct [format %.4f [expr {$roff ? 100.0 * $rdrop / $roff : 0}]]"
    puts "data_pkts $offered"
    exit 0
}
$ns at [expr {$duration + 1.0}] "finish"
$ns run
