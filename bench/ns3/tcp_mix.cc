// talkspurt benchmark peer: always-on G.711 calls sharing a drop-tail
// bottleneck with greedy NewReno TCP flows, in ns-3 (Debian libns3-dev 3.37).
//
//   bench/ns3/build/tcp_mix [--duration=60] [--calls=100] [--flows=4] [--start=10] [--sack=1]
//                           [--rate=20Mbps --delay=20ms --qlim=100 --mss=1460 --window=0]
//
// Build with bench/ns3/build.sh. Same scenario as bench/ns2/tcp_mix.tcl and
// bench/tcp_mix.toml:
//
//   a --1Gb/s,1ms-- r1 --20Mb/s,20ms, DropTail 100p-- r2 --1Gb/s,1ms-- b
//
// The last five options are the bottleneck and TCP settings ns-2's script
// takes as its last five arguments: bottleneck rate and delay, its queue
// limit (waiting packets), TCP payload bytes per segment, and the window in
// segments (0: the 4 MiB buffers below, i.e. never limiting, as ns-2's
// window_ 10000). bench/tcp_mix.py --preset mixed passes --rate=100Mbps
// --delay=30ms --qlim=50 --mss=1000 --window=1000 (issue 26's "Mixed" run;
// talkspurt twin bench/tcp_mix_big.toml): 1000-byte segments make 1040-byte
// IP packets in all three, and the window becomes the receive buffer
// (RcvBufSize = window x mss = 1,000,000 B, talkspurt's rcv_window
// "1000kB"; ns-2's window_ 1000 caps the send window at 1000 segments, ns-3
// advertises at most the free receive buffer, which PacketSink keeps empty).
//
// Voice: one UdpClient per call, a 200-byte IP packet (172 B UDP payload +
// 8 UDP + 20 IP) every 20 ms, call i starting at i x 20 us and stopping 1 ns
// before the horizon (as the ns-2 script), one UdpServer per call at b.
// TCP: one BulkSendApplication per flow (flow j starts at j x 100 ms) to a
// PacketSink at b; goodput = bytes the sink received (in order, payload only)
// over [start, duration].
//
// Kept lean on purpose: no pcap, no ascii trace, no FlowMonitor, no logging;
// static global routing; one JSON line on stdout. The run-phase wall time is
// std::chrono::steady_clock around Simulator::Run().
//
// Settings chosen to match the ns-2 peer (bench/ns2/tcp_common.tcl), and what
// cannot be matched:
//  * TCP: NewReno congestion control with classic recovery (ns-3's
//    defaults are Cubic and PRR); one ACK per segment (DelAckCount 1, as
//    ns-2's TCPSink; ns-3 default 2); initial window 2 segments (ns-2
//    windowInit_ 2; ns-3 default 10); 1460-byte segments (ns-3 default 536);
//    minimum RTO 200 ms and a 10 ms RTO clock granularity (ns-2 minrto_,
//    tcpTick_; ns-3 defaults 1 s, 1 ms); timestamps off (ns-3 default on),
//    so data packets are 1460 + 20 TCP + 20 IP = 1500 B; buffers of 4 MiB
//    (ns-3 default 128 KiB) so neither the send nor the receive window ever
//    limits (window scaling on, ns-3's default). Limited transmit is on in
//    both (ns-2 singledup_ 1).
//  * SACK is ON (ns-3's default; --sack=0 turns it off), so the ns-3 flows
//    recover like ns-2's Sack1 rather than its Newreno, and ACKs carrying
//    SACK blocks are 40 + 4 + 8 n bytes. Reason: with SACK off, ns-3.37's
//    NewReno (classic recovery, DelAckCount 1, large windows) collapses. A
//    single flow alone on this path (--calls=0 --flows=1) gets 6.6 Mb/s of
//    the 20 Mb/s; about 30 % of the data segments reaching b are duplicates.
//    Every RTO is followed by go-back-N retransmission of segments b already
//    holds, each duplicate draws a duplicate ACK, and those dupacks start
//    new fast retransmits and limited-transmit sends. In the full mix that
//    costs the voice calls ~16 % of their packets (1.3 % in ns-2). Turning
//    SACK on or going back to DelAckCount 2 each removes the collapse (mix:
//    ~1.2 % voice loss, 10.6 Mb/s of TCP); a 128 KiB receive buffer hides
//    it for a lone flow only. SACK changes less of what is compared.
//    The mixed preset (500 calls, 100 flows, 100 Mb/s, 30 ms, 50 p, 1000 B
//    segments, 1000-segment window) runs with SACK on for the same reason;
//    measured 2026-11-28: voice delivered 1,291,570 of 1,500,000 (ns-2
//    1,287,588, +0.3 %), TCP goodput 39.86 Mb/s (ns-2 41.04, -2.9 %),
//    13.9 M events, 100 s of CPU.
//  * ns-3 TCP does a real three-way handshake (SYN, SYN-ACK, ACK); ns-2's
//    one-way TCP sends one 40-byte pseudo-SYN and waits for its ACK. Both
//    cost one RTT before data flows.
//  * Queues: ns-3 puts a traffic-control queue disc (FqCoDel by default)
//    in front of every device when addresses are assigned; it is removed
//    here, so the only queue is the PointToPointNetDevice's DropTailQueue.
//    Its MaxSize counts waiting packets -- the packet on the wire has
//    already been dequeued (PointToPointNetDevice::Send / TransmitStart) --
//    like talkspurt's "100p" (ns-2 needs limit 101 for the same).
//  * PPP framing: PointToPointNetDevice adds a 2-byte PPP header, so frames
//    are 202 B (voice) and 1502 B (TCP) on the wire, 0.13-1 % more
//    serialisation time than ns-2 / talkspurt. There is no attribute to turn
//    that off.

#include "dumbbell.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const auto t_setup0 = std::chrono::steady_clock::now();

    double duration = 60.0;
    uint32_t calls = 100;
    uint32_t flows = 4;
    double start = 10.0; // TCP goodput window [start, duration]
    bool sack = true;    // see the header
    std::string rate = "20Mbps";
    std::string delay = "20ms";
    uint32_t qlim = 100;
    uint32_t mss = 1460;
    uint32_t wnd = 0; // segments; 0 = 4 MiB buffers
    CommandLine cmd;
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("calls", "one-way voice calls a -> b", calls);
    cmd.AddValue("flows", "greedy TCP NewReno flows a -> b", flows);
    cmd.AddValue("start", "start of the TCP goodput window, s", start);
    cmd.AddValue("sack", "TCP SACK option (see the source's header)", sack);
    cmd.AddValue("rate", "bottleneck rate (ns-3 DataRate)", rate);
    cmd.AddValue("delay", "bottleneck one-way delay (ns-3 Time)", delay);
    cmd.AddValue("qlim", "bottleneck drop-tail limit, waiting packets", qlim);
    cmd.AddValue("mss", "TCP payload bytes per segment", mss);
    cmd.AddValue("window", "receive window in segments (0: 4 MiB buffers)", wnd);
    cmd.Parse(argc, argv);
    if (duration <= 0 || start < 0 || start >= duration || qlim == 0 || mss == 0)
    {
        std::fprintf(stderr, "need duration > 0, 0 <= start < duration, qlim > 0, mss > 0\n");
        return 2;
    }

    // --- scenario constants (keep in sync with bench/tcp_mix.toml, ns2/tcp_mix.tcl)
    const uint32_t voiceIpBytes = 200;
    const uint32_t voicePayload = voiceIpBytes - 20 - 8; // UdpClient's size is the UDP payload
    const Time ptime = MilliSeconds(20);
    const Time stagger = MicroSeconds(20);
    const Time flowStagger = MilliSeconds(100);
    const uint32_t rcvBuf = wnd ? wnd * mss : (1u << 22);

    // --- TCP, matched to ns-2 (see the header) --------------------------------
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 22));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvBuf));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(10)));

    // --- topology ---------------------------------------------------------------
    Dumbbell net = BuildDumbbell(rate, delay, std::to_string(qlim) + "p");
    NodeContainer& nodes = net.nodes;
    Ptr<Node> a = net.a, r1 = net.r1, r2 = net.r2, b = net.b;
    NetDeviceContainer &dA = net.dA, &dB = net.dB, &dC = net.dC;
    const Ipv4Address bAddr = net.bAddr;

    // Drops, per sending node: the device queue's "Drop" trace, plus the
    // traffic-control layer's "TcDrop" -- with no queue disc, a packet that
    // finds the device queue stopped (full) is discarded there and never
    // reaches the device queue. r1's count is the bottleneck's (r1 -> a
    // carries only ACKs).
    std::vector<uint64_t> drops(nodes.GetN(), 0);
    auto count = +[](uint64_t* n, Ptr<const Packet>) { ++*n; };
    for (NetDeviceContainer* c : {&dA, &dB, &dC})
    {
        for (uint32_t k = 0; k < c->GetN(); ++k)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(c->Get(k));
            uint64_t* slot = &drops[dev->GetNode()->GetId()];
            NS_ABORT_UNLESS(dev->GetQueue()->TraceConnectWithoutContext(
                "Drop", MakeBoundCallback(count, slot)));
        }
    }
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        NS_ABORT_UNLESS(nodes.Get(n)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", MakeBoundCallback(count, &drops[n])));
    }

    // --- voice --------------------------------------------------------------------
    const Time stopAt = Seconds(duration) - NanoSeconds(1);
    std::vector<Ptr<UdpClient>> voiceTx;
    std::vector<Ptr<UdpServer>> voiceRx;
    voiceTx.reserve(calls);
    voiceRx.reserve(calls);
    for (uint32_t i = 0; i < calls; ++i)
    {
        const uint16_t port = 10000 + i;
        UdpServerHelper server(port);
        ApplicationContainer s = server.Install(b);
        s.Start(Seconds(0));
        voiceRx.push_back(DynamicCast<UdpServer>(s.Get(0)));

        UdpClientHelper client(bAddr, port);
        client.SetAttribute("MaxPackets", UintegerValue(0xffffffffu));
        client.SetAttribute("Interval", TimeValue(ptime));
        client.SetAttribute("PacketSize", UintegerValue(voicePayload));
        ApplicationContainer c = client.Install(a);
        const Time t0 = stagger * i;
        c.Start(t0);
        c.Stop(stopAt);
        voiceTx.push_back(DynamicCast<UdpClient>(c.Get(0)));
    }

    // --- TCP --------------------------------------------------------------------------
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t j = 0; j < flows; ++j)
    {
        const uint16_t port = 9000 + j;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(b);
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(bAddr, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer c = bulk.Install(a);
        c.Start(flowStagger * j);
        c.Stop(Seconds(duration));
    }

    std::vector<uint64_t> rx0(flows, 0);
    Simulator::Schedule(Seconds(start), [&]() {
        for (uint32_t j = 0; j < flows; ++j)
        {
            rx0[j] = sinks[j]->GetTotalRx();
        }
    });
    std::vector<uint64_t> rx1(flows, 0);
    Simulator::Schedule(Seconds(duration), [&]() {
        for (uint32_t j = 0; j < flows; ++j)
        {
            rx1[j] = sinks[j]->GetTotalRx();
        }
        Simulator::Stop();
    });

    const auto t_run0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto t_run1 = std::chrono::steady_clock::now();
    const uint64_t events = Simulator::GetEventCount();

    uint64_t voiceSentBytes = 0, voiceRecv = 0;
    for (uint32_t i = 0; i < calls; ++i)
    {
        voiceSentBytes += voiceTx[i]->GetTotalTx();
        voiceRecv += voiceRx[i]->GetReceived();
    }
    const double window = duration - start;
    std::string tcpJson;
    double total = 0;
    for (uint32_t j = 0; j < flows; ++j)
    {
        const double gp = (rx1[j] - rx0[j]) * 8.0 / window;
        total += gp;
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "%s{\"flow\": %u, \"start_s\": %g, \"goodput_bps\": %.3f, "
                      "\"delivered_bytes\": %llu}",
                      j ? ", " : "", j + 1, (flowStagger * j).GetSeconds(), gp,
                      (unsigned long long)(rx1[j] - rx0[j]));
        tcpJson += buf;
    }
    const double setup_s = std::chrono::duration<double>(t_run0 - t_setup0).count();
    const double run_s = std::chrono::duration<double>(t_run1 - t_run0).count();
    std::printf("{\"simulator\": \"ns-3\", \"program\": \"tcp_mix.cc\", \"ns3_version\": \"3.37\", "
                "\"duration_s\": %g, \"calls\": %u, \"flows\": %u, \"window_start_s\": %g, \"sack\": %s, "
                "\"bottleneck\": \"%s %s %up\", \"mss\": %u, \"rcv_buf_bytes\": %u, "
                "\"voice_sent\": %llu, \"voice_received\": %llu, \"tcp\": [%s], "
                "\"tcp_goodput_bps_total\": %.3f, \"bottleneck_drops\": %llu, "
                "\"drops_by_node\": {\"a\": %llu, \"r1\": %llu, \"r2\": %llu, \"b\": %llu}, "
                "\"events_executed\": %llu, \"setup_wall_s\": %.3f, \"run_wall_s\": %.3f}\n",
                duration, calls, flows, start, sack ? "true" : "false", rate.c_str(), delay.c_str(),
                qlim, mss, rcvBuf,
                (unsigned long long)(voiceSentBytes / voicePayload),
                (unsigned long long)voiceRecv, tcpJson.c_str(), total,
                (unsigned long long)drops[1], (unsigned long long)drops[0],
                (unsigned long long)drops[1], (unsigned long long)drops[2],
                (unsigned long long)drops[3], (unsigned long long)events, setup_s, run_s);
    Simulator::Destroy();
    return 0;
}
