//! Nodes, channels and static shortest-path routing (Dijkstra on link
//! cost; cost 1 everywhere is hop count, as ns-2's static routing).
//! Ties break towards the lower node index, then the earlier link, so
//! routes never depend on hash order.

use super::channel::Channel;
use super::packet::NodeId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const NO_ROUTE: u32 = u32::MAX;

#[derive(Debug, Default)]
pub struct Topology {
    pub nodes: Vec<String>,
    pub channels: Vec<Channel>,
    /// Routing cost per channel.
    pub cost: Vec<u32>,
    /// `next[src * n + dst]`: the channel to take from `src` towards `dst`.
    next: Vec<u32>,
}

impl Topology {
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n == name).map(|i| i as NodeId)
    }

    /// Intern a node name.
    pub fn add_node(&mut self, name: &str) -> NodeId {
        match self.node_id(name) {
            Some(id) => id,
            None => {
                self.nodes.push(name.to_string());
                (self.nodes.len() - 1) as NodeId
            }
        }
    }

    pub fn add_channel(&mut self, ch: Channel, cost: u32) -> u32 {
        self.channels.push(ch);
        self.cost.push(cost);
        (self.channels.len() - 1) as u32
    }

    /// Compute all-pairs next hops. O(N · E log N): fine for the hundreds
    /// of nodes scenarios use.
    pub fn compute_routes(&mut self) {
        let n = self.nodes.len();
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, ch) in self.channels.iter().enumerate() {
            out[ch.from as usize].push(i as u32);
        }
        self.next = vec![NO_ROUTE; n * n];
        for src in 0..n {
            let mut dist = vec![u64::MAX; n];
            let mut first = vec![NO_ROUTE; n];
            let mut heap = BinaryHeap::new();
            dist[src] = 0;
            heap.push(Reverse((0u64, src)));
            while let Some(Reverse((d, u))) = heap.pop() {
                if d > dist[u] {
                    continue;
                }
                for &c in &out[u] {
                    let v = self.channels[c as usize].to as usize;
                    let nd = d + self.cost[c as usize] as u64;
                    if nd < dist[v] {
                        dist[v] = nd;
                        first[v] = if u == src { c } else { first[u] };
                        heap.push(Reverse((nd, v)));
                    }
                }
            }
            self.next[src * n..(src + 1) * n].copy_from_slice(&first);
        }
    }

    #[inline]
    pub fn next_channel(&self, at: NodeId, dst: NodeId) -> u32 {
        self.next[at as usize * self.nodes.len() + dst as usize]
    }

    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || self.next_channel(src, dst) != NO_ROUTE
    }

    /// The channels a packet crosses from `src` to `dst` (empty if unreachable).
    pub fn path(&self, src: NodeId, dst: NodeId) -> Vec<u32> {
        let mut p = Vec::new();
        let mut at = src;
        while at != dst {
            let c = self.next_channel(at, dst);
            if c == NO_ROUTE || p.len() > self.nodes.len() {
                return Vec::new();
            }
            p.push(c);
            at = self.channels[c as usize].to;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::loss::LossModel;
        use crate::net::queue::QueueLimit;
    use crate::time::SimDuration;

    fn topo(edges: &[(&str, &str, u32)]) -> Topology {
        let mut t = Topology::default();
        for &(a, b, cost) in edges {
            let (ia, ib) = (t.add_node(a), t.add_node(b));
            for (x, y) in [(ia, ib), (ib, ia)] {
                let ch = Channel::new(format!("{x}->{y}"), x, y, 1_000_000, SimDuration::ZERO,
                    QueueLimit::Packets(10), LossModel::None);
                t.add_channel(ch, cost);
            }
        }
        t.compute_routes();
        t
    }

    #[test]
    fn shortest_path_by_cost() {
        // a-b-c costs 1+1; a-c direct costs 5: route goes through b.
        let t = topo(&[("a", "b", 1), ("b", "c", 1), ("a", "c", 5)]);
        let (a, c) = (t.node_id("a").unwrap(), t.node_id("c").unwrap());
        let names: Vec<_> = t.path(a, c).iter().map(|&i| t.channels[i as usize].to).collect();
        assert_eq!(names, vec![t.node_id("b").unwrap(), c]);
    }

    #[test]
    fn unreachable_nodes() {
        let t = topo(&[("a", "b", 1), ("c", "d", 1)]);
        assert!(!t.reachable(t.node_id("a").unwrap(), t.node_id("d").unwrap()));
        assert!(t.path(0, 3).is_empty());
    }
}
