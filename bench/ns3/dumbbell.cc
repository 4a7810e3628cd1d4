// talkspurt benchmark peer: the headline dumbbell (bench/dumbbell.toml,
// bench/ns2/dumbbell.tcl) in ns-3 (Debian libns3-dev 3.37).
//
//   bench/ns3/build/dumbbell [--calls=1000] [--duration=60]
//
// Build with bench/ns3/build.sh; bench/dumbbell.py runs it beside ns-2 and
// talkspurt. The scenario:
//
//   a --1Gb/s,1ms, 1000p-- r1 --100Mb/s,30ms, DropTail 50p-- r2 --1Gb/s,1ms, 1000p-- b
//
// One UdpClient per call at a, a 200-byte IP packet (172 B UDP payload + 8
// UDP + 20 IP) every 20 ms, call i starting at i x 20 us and stopping 1 ns
// before the horizon (as the ns-2 script: a packet due exactly at T is not
// sent); one UdpServer per call at b. Offered load 80 Mb/s, so with the
// stagger nothing queues and nothing is dropped.
//
// Matching notes (the same as bench/ns3/tcp_mix.cc):
//  * The traffic-control layer's default queue disc (FqCoDel) is removed,
//    so the only queue is the PointToPointNetDevice's DropTailQueue, whose
//    MaxSize counts waiting packets like talkspurt's "50p" (ns-2 needs 51).
//  * PointToPointNetDevice adds a 2-byte PPP header that cannot be turned
//    off: frames are 202 B, so each packet takes 16.16 us on the bottleneck
//    (16 us in ns-2 and talkspurt) and the one-way delay is 32.019392 ms
//    instead of 32.0192 ms. bench/dumbbell.py's closed form accounts for it.
//  * UdpClient writes its 12-byte SeqTsHeader inside the 172-byte payload,
//    so the IP datagram stays 200 B.
//
// Lean on purpose: no pcap, no ascii trace, no FlowMonitor, no logging;
// static global routing; one JSON line on stdout. run_wall_s is
// std::chrono::steady_clock around Simulator::Run().

#include "dumbbell.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const auto t_setup0 = std::chrono::steady_clock::now();

    double duration = 60.0;
    uint32_t calls = 1000;
    CommandLine cmd;
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("calls", "one-way G.711 calls a -> b", calls);
    cmd.Parse(argc, argv);
    if (duration <= 0)
    {
        std::fprintf(stderr, "need duration > 0\n");
        return 2;
    }

    // --- scenario constants (keep in sync with bench/dumbbell.toml) ----------
    const uint32_t voiceIpBytes = 200;
    const uint32_t voicePayload = voiceIpBytes - 20 - 8; // UdpClient's size is the UDP payload
    const Time ptime = MilliSeconds(20);
    const Time stagger = MicroSeconds(20);

    // --- topology --------------------------------------------------------------
    Dumbbell net = BuildDumbbell("100Mbps", "30ms", "50p");
    NodeContainer& nodes = net.nodes;
    Ptr<Node> a = net.a, r1 = net.r1, r2 = net.r2, b = net.b;
    NetDeviceContainer &dA = net.dA, &dB = net.dB, &dC = net.dC;
    const Ipv4Address bAddr = net.bAddr;

    // Drops anywhere: device queues ("Drop") and the traffic-control layer
    // ("TcDrop": with no queue disc, a packet that finds the device queue
    // full is discarded there).
    uint64_t drops = 0;
    auto count = +[](uint64_t* n, Ptr<const Packet>) { ++*n; };
    for (NetDeviceContainer* c : {&dA, &dB, &dC})
    {
        for (uint32_t k = 0; k < c->GetN(); ++k)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(c->Get(k));
            NS_ABORT_UNLESS(dev->GetQueue()->TraceConnectWithoutContext(
                "Drop", MakeBoundCallback(count, &drops)));
        }
    }
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        NS_ABORT_UNLESS(nodes.Get(n)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", MakeBoundCallback(count, &drops)));
    }

    // --- voice -------------------------------------------------------------------
    const Time stopAt = Seconds(duration) - NanoSeconds(1);
    std::vector<Ptr<UdpClient>> tx;
    std::vector<Ptr<UdpServer>> rx;
    tx.reserve(calls);
    rx.reserve(calls);
    for (uint32_t i = 0; i < calls; ++i)
    {
        const uint16_t port = 10000 + i;
        UdpServerHelper server(port);
        ApplicationContainer s = server.Install(b);
        s.Start(Seconds(0));
        rx.push_back(DynamicCast<UdpServer>(s.Get(0)));

        UdpClientHelper client(bAddr, port);
        client.SetAttribute("MaxPackets", UintegerValue(0xffffffffu));
        client.SetAttribute("Interval", TimeValue(ptime));
        client.SetAttribute("PacketSize", UintegerValue(voicePayload));
        ApplicationContainer c = client.Install(a);
        c.Start(stagger * i);
        c.Stop(stopAt);
        tx.push_back(DynamicCast<UdpClient>(c.Get(0)));
    }
    Simulator::Stop(Seconds(duration));

    const auto t_run0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const auto t_run1 = std::chrono::steady_clock::now();
    const uint64_t events = Simulator::GetEventCount();

    uint64_t sentBytes = 0, received = 0;
    for (uint32_t i = 0; i < calls; ++i)
    {
        sentBytes += tx[i]->GetTotalTx();
        received += rx[i]->GetReceived();
    }
    const double setup_s = std::chrono::duration<double>(t_run0 - t_setup0).count();
    const double run_s = std::chrono::duration<double>(t_run1 - t_run0).count();
    std::printf("{\"simulator\": \"ns-3\", \"program\": \"dumbbell.cc\", \"ns3_version\": \"3.37\", "
                "\"duration_s\": %g, \"calls\": %u, \"sent\": %llu, \"sent_bytes\": %llu, "
                "\"received\": %llu, \"dropped\": %llu, \"events_executed\": %llu, "
                "\"setup_wall_s\": %.3f, \"run_wall_s\": %.3f}\n",
                duration, calls, (unsigned long long)(sentBytes / voicePayload),
                (unsigned long long)((sentBytes / voicePayload) * voiceIpBytes),
                (unsigned long long)received, (unsigned long long)drops,
                (unsigned long long)events, setup_s, run_s);
    Simulator::Destroy();
    return 0;
}
