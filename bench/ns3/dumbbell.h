// The 4-node dumbbell both ns-3 peer programs build (dumbbell.cc and
// tcp_mix.cc):
//
//   a --1 Gb/s, 1 ms, 1000 p-- r1 --bottleneck-- r2 --1 Gb/s, 1 ms, 1000 p-- b
//
// Point-to-point links with a device DropTail queue and no queue disc:
// Assign() installs the default one, which is removed so the device's
// queue is the only queue (talkspurt's and ns-2's drop-tail counts waiting
// packets). Global routing; the caller reads b's address from `bAddr`.
#pragma once

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <string>

struct Dumbbell
{
    ns3::NodeContainer nodes;
    ns3::Ptr<ns3::Node> a, r1, r2, b;
    ns3::NetDeviceContainer dA, dB, dC; // a-r1, r1-r2 (bottleneck), r2-b
    ns3::Ipv4Address bAddr;
};

inline Dumbbell
BuildDumbbell(const std::string& bneckRate, const std::string& bneckDelay, const std::string& bneckQueue)
{
    using namespace ns3;
    Dumbbell d;
    d.nodes.Create(4);
    d.a = d.nodes.Get(0);
    d.r1 = d.nodes.Get(1);
    d.r2 = d.nodes.Get(2);
    d.b = d.nodes.Get(3);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1000p")));
    PointToPointHelper bneck;
    bneck.SetDeviceAttribute("DataRate", StringValue(bneckRate));
    bneck.SetChannelAttribute("Delay", StringValue(bneckDelay));
    bneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(bneckQueue)));

    d.dA = access.Install(d.a, d.r1);
    d.dB = bneck.Install(d.r1, d.r2);
    d.dC = access.Install(d.r2, d.b);

    InternetStackHelper stack;
    stack.Install(d.nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.1.0", "255.255.255.0");
    addr.Assign(d.dA);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    addr.Assign(d.dB);
    addr.SetBase("10.0.3.0", "255.255.255.0");
    Ipv4InterfaceContainer iC = addr.Assign(d.dC);
    TrafficControlHelper tch;
    for (NetDeviceContainer* c : {&d.dA, &d.dB, &d.dC})
    {
        tch.Uninstall(*c);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    d.bAddr = iC.GetAddress(1);
    return d;
}
