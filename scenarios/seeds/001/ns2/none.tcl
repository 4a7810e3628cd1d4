# Seed 001 (Avella & Kakani) twin in ns-2.35: the no-adaptation rows of
# Table 4 (scenarios 37-45 and 46-54). Four one-way voice calls San Jose ->
# New York, each a CBR source over UDP at its codec's optimal ptime with the
# 40 B IP/UDP/RTP header counted on the wire (seed Table 1, Eq. 3.3):
#   G.711: 160 B payload + 40 B every 20 ms (80 kb/s)
#   G.729:  30 B payload + 40 B every 30 ms (18.67 kb/s)
# Phones reach their router over 100 Mb/s links; the routers share a PPP
# WAN of RATE kb/s and 30 ms with ns-2's default drop-tail queue (50
# packets; the seed gives none). Call 0 starts in [0, 5) s, call i in
# 5i + [0, 5) s (seed §4.5.4: "5 sec intervals (randomized)"), all stop at
# 300 s (§4.5.4). Without adaptation the RTCP version changes nothing on
# the forward path (reports and NACKs travel New York -> San Jose), so one
# twin serves both rows.
#
# Usage: ns none.tcl MIX RATE_KBPS SEED [QUICK]
#   MIX: g711 | g729 | both (2 G.711 then 2 G.729)
#   QUICK: 1 runs 60 s instead of 300 s (the bundle's --quick scale)
# Prints `key value` lines (scenarios/seeds/001/published.toml reads them):
#   loss_pct_<i>    call i's network loss, % of its packets
#   loss_sum_pct    the sum of the four (Table 4's "Total Packet Loss" read
#                   as a sum of per-call loss percentages)
#   loss_max_pct    the largest per-call loss
#   loss_min_pct    the smallest per-call loss
#   lost_s          speech lost, seconds, summed over the calls
#   clips           runs of consecutive lost packets, summed over the calls
#   clip_mean_ms    lost_s / clips, in ms (Table 4's "Average Clip")

if {$argc < 3} {
    puts stderr "usage: ns none.tcl g711|g729|both RATE_KBPS SEED \[QUICK\]"
    exit 2
}
set mix [lindex $argv 0]
set rate [lindex $argv 1]
set seed [lindex $argv 2]
set duration 300.0
if {$argc > 3 && [lindex $argv 3] eq "1"} { set duration 60.0 }

switch -- $mix {
    g711 { set codecs {g711 g711 g711 g711} }
    g729 { set codecs {g729 g729 g729 g729} }
    both { set codecs {g711 g711 g729 g729} }
    default { puts stderr "MIX: got $mix; expected g711, g729 or both"; exit 2 }
}
# bytes on the wire, interval (s)
set size(g711) 200
set ival(g711) 0.020
set size(g729) 70
set ival(g729) 0.030

set ns [new Simulator]
set rng [new RNG]
$rng seed $seed
set startvar [new RandomVariable/Uniform]
$startvar set min_ 0.0
$startvar set max_ 5.0
$startvar use-rng $rng

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 [expr {$rate}]kb 30ms DropTail
$ns queue-limit $r1 $r2 50
$ns queue-limit $r2 $r1 50

set tracefile /tmp/seed001_ns2_[pid].tr
set tf [open $tracefile w]
# Only the WAN queue's drops are traced (what `finish` reads): a Drop
# trace spliced after the link's drop head, as `trace-queue` does for its
# four traces (enqueue, dequeue, drop, receive), whose other three lines
# were most of the run's time.
set wan [$ns link $r1 $r2]
set drophead [$wan set drophead_]
set drpT [$ns create-trace Drop $tf $r1 $r2]
$drpT target [$drophead target]
$drophead target $drpT

for {set i 0} {$i < 4} {incr i} {
    set c [lindex $codecs $i]
    set a($i) [$ns node]
    set b($i) [$ns node]
    $ns duplex-link $a($i) $r1 100Mb 0ms DropTail
    $ns duplex-link $r2 $b($i) 100Mb 0ms DropTail
    set udp($i) [new Agent/UDP]
    $udp($i) set fid_ $i
    $udp($i) set packetSize_ 1000
    $ns attach-agent $a($i) $udp($i)
    set sink($i) [new Agent/LossMonitor]
    $ns attach-agent $b($i) $sink($i)
    $ns connect $udp($i) $sink($i)
    set cbr($i) [new Application/Traffic/CBR]
    $cbr($i) set packetSize_ $size($c)
    $cbr($i) set interval_ $ival($c)
    $cbr($i) set random_ 0
    $cbr($i) attach-agent $udp($i)
    set start($i) [expr {5.0 * $i + [$startvar value]}]
    $ns at $start($i) "$cbr($i) start"
    $ns at $duration "$cbr($i) stop"
}

proc finish {} {
    global ns tf tracefile codecs ival start duration
    $ns flush-trace
    close $tf
    # Drops on the WAN queue, per flow, by sequence number.
    set f [open $tracefile r]
    for {set i 0} {$i < 4} {incr i} { set drops($i) {} }
    while {[gets $f line] >= 0} {
        if {[string index $line 0] ne "d"} { continue }
        set fid [lindex $line 7]
        lappend drops($fid) [lindex $line 10]
    }
    close $f
    file delete $tracefile
    set sum 0.0
    set max 0.0
    set min 100.0
    set lost_s 0.0
    set clips 0
    for {set i 0} {$i < 4} {incr i} {
        set c [lindex $codecs $i]
        set sent [expr {int(ceil(($duration - $start($i)) / $ival($c) - 1e-9))}]
        set d [lsort -integer $drops($i)]
        set n [llength $d]
        set runs 0
        set prev -2
        foreach s $d {
            if {$s != $prev + 1} { incr runs }
            set prev $s
        }
        set pct [expr {$sent > 0 ? 100.0 * $n / $sent : 0.0}]
        puts [format "loss_pct_%d %.4f" $i $pct]
        set sum [expr {$sum + $pct}]
        if {$pct > $max} { set max $pct }
        if {$pct < $min} { set min $pct }
        set lost_s [expr {$lost_s + $n * $ival($c)}]
        incr clips $runs
    }
    puts [format "loss_sum_pct %.4f" $sum]
    puts [format "loss_max_pct %.4f" $max]
    puts [format "loss_min_pct %.4f" $min]
    puts [format "lost_s %.4f" $lost_s]
    puts "clips $clips"
    puts [format "clip_mean_ms %.4f" [expr {$clips > 0 ? 1000.0 * $lost_s / $clips : 0.0}]]
    exit 0
}
# Packets in flight at the end: the queue holds at most 50 (< 0.3 s of
# drops at 300 s), so the run goes on 2 s after the sources stop.
$ns at [expr {$duration + 2.0}] "finish"
$ns run
