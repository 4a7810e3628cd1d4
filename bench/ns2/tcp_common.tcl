# Shared by the TCP peer scripts (tcp_loss.tcl, tcp_compete.tcl, tcp_mix.tcl):
# one place for the sender/sink classes and the TCP settings every talkspurt
# TCP scenario has to mirror. Sourced, not run.
#
# The conventions behind these settings (where ns-2 adds header bytes, why
# Vegas is special, what the pseudo-SYN is, which defaults are relied on) are
# documented at the top of tcp_loss.tcl and in bench/README.md "TCP peers".

set tcp_mss 1460   ;# payload bytes per packet
set tcp_hdr 40     ;# ns-2 tcpip_base_hdr_size_: 20 IP + 20 TCP, no options

# tcp_classes VARIANT -> {Name SenderClass SinkClass}, or an error.
# Sack1 needs the SACK-generating sink; every sink is the non-delayed one
# (one ACK per packet, ns manual §35.2).
proc tcp_classes {name} {
    switch -- [string tolower $name] {
        tahoe        { return {Tahoe   Agent/TCP         Agent/TCPSink} }
        reno         { return {Reno    Agent/TCP/Reno    Agent/TCPSink} }
        newreno      { return {Newreno Agent/TCP/Newreno Agent/TCPSink} }
        sack - sack1 { return {Sack1   Agent/TCP/Sack1   Agent/TCPSink/Sack1} }
        vegas        { return {Vegas   Agent/TCP/Vegas   Agent/TCPSink} }
        default      { error "unknown TCP variant '$name' (Tahoe, Reno, Newreno, Sack1, Vegas)" }
    }
}

# tcp_flow NS SRC DST VARIANT FID -> {sender sink ftp}: a greedy FTP over a
# one-way TCP from node SRC to node DST, configured as every peer needs it.
# The FTP is not started.
proc tcp_flow {ns src dst variant fid} {
    global tcp_mss tcp_hdr
    lassign [tcp_classes $variant] name tcp_class sink_class
    set tcp [new $tcp_class]
    # 1500-byte packets on the wire. TcpAgent::output adds tcp_hdr to
    # packetSize_; VegasTcpAgent::output adds nothing, so Vegas gets the
    # whole 1500 (its payload is still counted as 1460 by the scripts).
    if {$name eq "Vegas"} {
        $tcp set packetSize_ [expr {$tcp_mss + $tcp_hdr}]
    } else {
        $tcp set packetSize_ $tcp_mss
    }
    $tcp set window_     10000   ;# receiver window (packets): never the limit
    $tcp set windowInit_ 2       ;# ns-2.35 default, set so it is explicit
    $tcp set tcpTick_    0.01    ;# ns-2.35 default
    $tcp set minrto_     0.2     ;# ns-2.35 default
    $tcp set fid_        $fid
    $ns attach-agent $src $tcp
    set sink [new $sink_class]
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    return [list $tcp $sink $ftp]
}

# attach_counter NS N1 N2 -> a QueueMonitor on link N1 -> N2 (plain C++
# counters: arrivals, departures, drops, in packets and bytes).
proc attach_counter {ns n1 n2} {
    set qm [new QueueMonitor]
    [$ns link $n1 $n2] attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] \
        [new SnoopQueue/Drop] $qm
    return $qm
}

# delivered_packets SINK -> data packets the sink has delivered in order.
# TCPSink's bytes_ sums hdr_cmn::size of every packet it hands to the
# application in order (tcp/tcp-sink.cc, TcpSink::recv / Acker::update),
# i.e. what it has acknowledged cumulatively: 40 for the pseudo-SYN (none for
# Vegas), then 1500 per data packet. Integer division drops the SYN.
proc delivered_packets {sink} {
    global tcp_mss tcp_hdr
    return [expr {[$sink set bytes_] / ($tcp_mss + $tcp_hdr)}]
}

# Seeding (ns manual ch. 25 "Mathematical Support", RNG: streams and
# substreams of L'Ecuyer's MRG32k3a). Each `new RNG` is the next *stream* of
# the package (2^127 draws apart); each stream has 2^51 *substreams* 2^76
# draws apart, reached with `$rng next-substream`. A run with seed SEED uses
# substream SEED of every stream it draws from: defaultRNG (ns-2's own
# Random::uniform, e.g. each TCP agent's clock phase boot_time_) and every
# RNG made by seeded_rng (loss, start times), in creation order. That gives
# independent sequences across seeds and across uses, as the manual
# recommends for independent replications.
#
# Not `$rng seed SEED`: that sets the package seed to (SEED, ..., SEED)
# (tools/rng.cc, RNG::set_seed), and since MRG32k3a is linear the k-th draw
# of seed N is then ~ frac(N x u_k): for seeds 1..5 the first U[0,1) draws
# are 0.00034, 0.00067, 0.00101, 0.00134, 0.00168 and the second ones
# 0.556, 0.112, 0.668, 0.224, 0.779 (= frac(N x 0.556)). Replications seeded
# 1, 2, 3 that way are strongly correlated.
proc seed_rngs {seed} {
    global defaultRNG rng_substream
    if {![string is integer -strict $seed] || $seed < 0} {
        error "SEED must be an integer >= 0"
    }
    set rng_substream $seed
    for {set i 0} {$i < $seed} {incr i} { $defaultRNG next-substream }
}

# seeded_rng -> a new RNG (the package's next stream) at substream SEED.
# Call seed_rngs first.
proc seeded_rng {} {
    global rng_substream
    set rng [new RNG]
    for {set i 0} {$i < $rng_substream} {incr i} { $rng next-substream }
    return $rng
}

# bernoulli_loss NS FROM TO P RNG: per-packet Bernoulli(P) loss after the
# wire of link FROM -> TO (ErrorModel, unit pkt, its uniform ranvar on RNG;
# ns manual §13.1), dropped packets freed by the null agent.
proc bernoulli_loss {ns from to p rng} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $p
    set rv [new RandomVariable/Uniform]
    $rv use-rng $rng
    $em ranvar $rv
    $ns link-lossmodel $em $from $to
    $em drop-target [$ns set nullAgent_]
    return $em
}

# send_trace NS FROM TO -> an open temporary file receiving the queue trace
# of link FROM -> TO; its "+" lines are the times packets left the sender.
proc send_trace {ns from to} {
    set ch [file tempfile path /tmp/talkspurt_send.tr]
    $ns trace-queue $from $to $ch
    return [list $ch $path]
}

# send_times TRACE TYPES -> the "+" times of packets whose type is in TYPES
# ({} for all), in order; closes and deletes the trace file.
proc send_times {trace types} {
    lassign $trace ch path
    flush $ch
    seek $ch 0
    set times {}
    while {[gets $ch line] >= 0} {
        if {[string index $line 0] eq "+" && ($types eq {} || [lindex $line 4] in $types)} {
            lappend times [lindex $line 1]
        }
    }
    close $ch
    file delete $path
    return $times
}

# sender_waits ACCEPTED SENT -> per-packet waits in ms, FIFO: the i-th
# packet accepted leaves as the i-th sent.
proc sender_waits {accepted sent} {
    set waits {}
    foreach ta $accepted ts $sent {
        if {$ta eq "" || $ts eq ""} break
        lappend waits [expr {1000.0 * ($ts - $ta)}]
    }
    return $waits
}

# mean_p95 VALUES -> {mean p95}; the 95th percentile by linear
# interpolation between order statistics (as talkspurt's calls table).
proc mean_p95 {values} {
    set n [llength $values]
    if {$n == 0} { return {0 0} }
    set sorted [lsort -real $values]
    set pos [expr {0.95 * ($n - 1)}]
    set lo [expr {int(floor($pos))}]
    set hi [expr {min($lo + 1, $n - 1)}]
    set p95 [expr {[lindex $sorted $lo] + ($pos - $lo) * ([lindex $sorted $hi] - [lindex $sorted $lo])}]
    return [list [expr {[tcl::mathop::+ {*}$values] / double($n)}] $p95]
}

# voice_path NS DELAY_MS -> {s r1 r2 d}: the on/off peers' path,
# s --100Mb/s,1ms-- r1 --10Mb/s,DELAY-- r2 --100Mb/s,1ms-- d, DropTail,
# every queue 1001 packets (talkspurt's "1000p" waiting, tcp_loss.tcl).
proc voice_path {ns delay_ms} {
    set s  [$ns node]; set r1 [$ns node]; set r2 [$ns node]; set d [$ns node]
    $ns duplex-link $s  $r1 100Mb 1ms DropTail
    $ns duplex-link $r1 $r2 10Mb  [expr {$delay_ms}]ms DropTail
    $ns duplex-link $r2 $d  100Mb 1ms DropTail
    foreach {a b} [list $s $r1 $r1 $s $r1 $r2 $r2 $r1 $r2 $d $d $r2] { $ns queue-limit $a $b 1001 }
    return [list $s $r1 $r2 $d]
}

# onoff_voice NS RNG TALK_S SILENCE_S FRAME ?SPURT?: from t = 0, exponential
# talkspurts (mean TALK_S) and silences (SILENCE_S), both drawn from RNG
# (talkspurt, then silence); the global command FRAME runs every 20 ms
# while on, SPURT (if given) at the start of each talkspurt.
proc onoff_voice {ns rng talk silence frame {spurt {}}} {
    global onoff
    array set onoff [list ns $ns frame $frame spurt $spurt]
    set onoff(on) [new RandomVariable/Exponential]
    $onoff(on) set avg_ $talk
    $onoff(on) use-rng $rng
    set onoff(off) [new RandomVariable/Exponential]
    $onoff(off) set avg_ $silence
    $onoff(off) use-rng $rng
    $ns at 0.0 onoff_talkspurt
}
proc onoff_talkspurt {} {
    global onoff
    if {$onoff(spurt) ne {}} { uplevel #0 $onoff(spurt) }
    set ns $onoff(ns)
    set now [$ns now]
    set end [expr {$now + [$onoff(on) value]}]
    for {set t $now} {$t < $end} {set t [expr {$t + 0.020}]} { $ns at $t $onoff(frame) }
    $ns at [expr {$end + [$onoff(off) value]}] onoff_talkspurt
}
