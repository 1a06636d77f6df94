// The all-reduce cost model of gradient tuning: α–β (Hockney) costs of the ring and the
// two-level (hierarchical) all-reduce, from the data size, the device count and the links.
//
// Ring all-reduce of n bytes over p devices = reduce-scatter + all-gather, each p − 1 steps
// moving n/p bytes per device per step (Patarasuk and Yuan, "Bandwidth optimal all-reduce
// algorithms for clusters of workstations", JPDC 69(2), 2009; the α–β analysis of Thakur,
// Rabenseifner and Gropp, "Optimization of collective communication operations in MPICH",
// IJHPCA 19(1), 2005, without the reduction term γ):
//     T_ring(n, p) = 2 (p − 1) α + 2 (p − 1)/p · n β
// A ring through several servers crosses the slower links, and every step waits for its slowest
// transfer: α = max(α_intra, α_inter), β = max(β_intra, β_inter).
//
// Two-level all-reduce over m servers of g devices (p = m g): reduce-scatter inside each server,
// then g concurrent ring all-reduces across the servers, each over the n/g bytes one device
// holds, then all-gather inside each server (the hierarchical all-reduce of Jia et al., "Highly
// scalable deep learning training system with mixed-precision", arXiv:1807.11205, 2018; the
// scheme of HCCL's level-1 / level-2 model, docs/aoe-facts.md#gradient-tuning-and-hccls-split):
//     T_2L(n) = 2 (g − 1) α₁ + 2 (g − 1)/g · n β₁ + 2 (m − 1) α₂ + 2 (m − 1)/m · (n/g) β₂
// With one server (m = 1) both give the ring inside it. Each all-reduce also pays a fixed
// overhead (launch and synchronisation); one device needs no all-reduce and costs 0.
#ifndef AOE_JOBS_GDAT_ALLREDUCE_COST_HPP
#define AOE_JOBS_GDAT_ALLREDUCE_COST_HPP

#include "aoe/jobs/gdat/cluster.hpp"

#include <algorithm>

namespace aoe::gdat {

/// The parts of one all-reduce's time, in seconds.
struct AllReduceCost {
  double latency = 0;    ///< the α terms
  double bandwidth = 0;  ///< the β terms
  double overhead = 0;   ///< the fixed cost
  [[nodiscard]] double total() const noexcept { return latency + bandwidth + overhead; }
};

/// T_ring(n, p) over one kind of link: 2 (p − 1) α + 2 (p − 1)/p · n / bandwidth.
[[nodiscard]] inline AllReduceCost ring_allreduce(double bytes, int p, const Link& link) noexcept {
  if (p <= 1) return {};
  const double steps = 2.0 * (p - 1);
  return {.latency = steps * link.latency,
          .bandwidth = steps / p * bytes / link.bandwidth,
          .overhead = 0};
}

/// One all-reduce of `bytes` on `cluster`, by its topology, with the fixed overhead.
[[nodiscard]] inline AllReduceCost allreduce_cost(const Cluster& cluster, double bytes) noexcept {
  const int p = cluster.devices;
  if (p <= 1) return {};
  const int g = cluster.server_size();
  const int m = cluster.servers();
  AllReduceCost c;
  if (cluster.topology == Topology::ring || m == 1) {
    const Link link =
        m == 1
            ? cluster.intra_server
            : Link{.bandwidth =
                       std::min(cluster.intra_server.bandwidth, cluster.inter_server.bandwidth),
                   .latency = std::max(cluster.intra_server.latency, cluster.inter_server.latency)};
    c = ring_allreduce(bytes, p, link);
  } else {
    const AllReduceCost inside = ring_allreduce(bytes, g, cluster.intra_server);
    const AllReduceCost across = ring_allreduce(bytes / g, m, cluster.inter_server);
    c.latency = inside.latency + across.latency;
    c.bandwidth = inside.bandwidth + across.bandwidth;
  }
  c.overhead = cluster.allreduce_overhead;
  return c;
}

/// Seconds of one all-reduce of `bytes` on `cluster`.
[[nodiscard]] inline double allreduce_seconds(const Cluster& cluster, double bytes) noexcept {
  return allreduce_cost(cluster, bytes).total();
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_ALLREDUCE_COST_HPP
