// GDAT's cost model: all-reduce formulas against hand-computed values, the iteration model's
// timeline, AOE's default split, the split encodings, and the dynamic programme against brute
// force on small random instances.
#include <aoe/core/random.hpp>
#include <aoe/jobs/gdat/allreduce_cost.hpp>
#include <aoe/jobs/gdat/iteration_model.hpp>
#include <aoe/jobs/gdat/optimal_split.hpp>
#include <aoe/jobs/gdat/split_space.hpp>
#include <aoe/jobs/gdat/split_strategy.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace jobs_gdat_cost_model_test {  // apart from this area's other files in a unity build

using aoe::gdat::Cluster;
using aoe::gdat::GradientProfile;
using aoe::gdat::IterationModel;
using aoe::gdat::SplitStrategy;
using aoe::gdat::Topology;

namespace {

// 4 gradients ready at 1, 3, 3.5 and 5 ms (backward ends at 5.5 ms), of 4, 2, 1 and 1 MB; a
// forward pass of 3 ms. On 2 devices at 1 GB/s without latency an all-reduce of n bytes takes
// 2 (2 − 1)/2 · n / 1e9 s: 1 ms per MB.
GradientProfile small_profile() {
  GradientProfile p;
  p.name = "small";
  p.forward_seconds = 3e-3;
  p.backward_tail_seconds = 0.5e-3;
  p.gradients = {{"g0", 1e-3, 4'000'000},
                 {"g1", 2e-3, 2'000'000},
                 {"g2", 0.5e-3, 1'000'000},
                 {"g3", 1.5e-3, 1'000'000}};
  return p;
}

Cluster one_ms_per_mb() {
  return Cluster{.devices = 2,
                 .devices_per_server = 8,
                 .intra_server = {.bandwidth = 1e9, .latency = 0},
                 .allreduce_overhead = 0};
}

}  // namespace

TEST_CASE("gdat ring all-reduce: 2 (p-1) alpha + 2 (p-1)/p n beta") {
  const Cluster c{.devices = 8,
                  .devices_per_server = 8,
                  .intra_server = {.bandwidth = 10e9, .latency = 5e-6},
                  .allreduce_overhead = 0};
  // 2·7·5 us + 2·7/8 · 80 MB / 10 GB/s = 70 us + 14 ms.
  const auto cost = aoe::gdat::allreduce_cost(c, 80e6);
  CHECK(cost.latency == doctest::Approx(70e-6).epsilon(1e-12));
  CHECK(cost.bandwidth == doctest::Approx(14e-3).epsilon(1e-12));
  CHECK(aoe::gdat::allreduce_seconds(c, 80e6) == doctest::Approx(14.07e-3).epsilon(1e-12));
  // One device: no all-reduce at all, not even the overhead.
  CHECK(aoe::gdat::allreduce_seconds(Cluster{.devices = 1}, 80e6) == 0.0);
  // Fewer devices than a server holds: one server of 4.
  const Cluster four{.devices = 4,
                     .devices_per_server = 8,
                     .intra_server = {.bandwidth = 10e9, .latency = 5e-6},
                     .allreduce_overhead = 0};
  CHECK(aoe::gdat::allreduce_seconds(four, 80e6) ==
        doctest::Approx(2 * 3 * 5e-6 + 2.0 * 3 / 4 * 80e6 / 10e9).epsilon(1e-12));
}

TEST_CASE("gdat two-level and flat ring all-reduce across servers") {
  Cluster c{.devices = 64,
            .devices_per_server = 8,
            .topology = Topology::two_level,
            .intra_server = {.bandwidth = 10e9, .latency = 5e-6},
            .inter_server = {.bandwidth = 5e9, .latency = 20e-6},
            .allreduce_overhead = 10e-6};
  // Inside: 2·7·5 us + 2·7/8 · 64 MB / 10 GB/s = 70 us + 11.2 ms.
  // Across 8 servers on 64/8 = 8 MB: 2·7·20 us + 2·7/8 · 8 MB / 5 GB/s = 280 us + 2.8 ms.
  // Plus 10 us: 14.36 ms.
  CHECK(aoe::gdat::allreduce_seconds(c, 64e6) == doctest::Approx(14.36e-3).epsilon(1e-12));
  const auto parts = aoe::gdat::allreduce_cost(c, 64e6);
  CHECK(parts.latency == doctest::Approx(350e-6).epsilon(1e-12));
  CHECK(parts.bandwidth == doctest::Approx(14e-3).epsilon(1e-12));
  CHECK(parts.overhead == doctest::Approx(10e-6));
  // A flat ring over the 64 devices runs at the slower links: 2·63·20 us + 2·63/64 · 64 MB / 5 GB/s
  // + 10 us = 2.52 ms + 25.2 ms + 0.01 ms.
  c.topology = Topology::ring;
  CHECK(aoe::gdat::allreduce_seconds(c, 64e6) == doctest::Approx(27.73e-3).epsilon(1e-12));
  // On one server both topologies are the ring inside it.
  Cluster one = c;
  one.devices = 8;
  const double ring = aoe::gdat::allreduce_seconds(one, 64e6);
  one.topology = Topology::two_level;
  CHECK(aoe::gdat::allreduce_seconds(one, 64e6) == doctest::Approx(ring).epsilon(1e-15));
}

TEST_CASE("gdat cluster validation names the field and its flag") {
  CHECK(Cluster{}.validate().has_value());
  const auto devices = Cluster{.devices = 0}.validate();
  REQUIRE_FALSE(devices.has_value());
  CHECK(devices.error().message.find("devices (--devices) = 0") != std::string::npos);
  const auto whole = Cluster{.devices = 12, .devices_per_server = 8}.validate();
  REQUIRE_FALSE(whole.has_value());
  CHECK(whole.error().message.find("not a multiple") != std::string::npos);
  Cluster bw;
  bw.inter_server.bandwidth = 0;
  REQUIRE_FALSE(bw.validate().has_value());
  CHECK(bw.validate().error().message.find("--inter_bandwidth") != std::string::npos);
  Cluster lat;
  lat.intra_server.latency = -1e-6;
  REQUIRE_FALSE(lat.validate().has_value());
  CHECK(lat.validate().error().message.find("--intra_latency") != std::string::npos);
}

TEST_CASE("gdat iteration model: the timeline of a split by hand") {
  const IterationModel m(small_profile(), one_ms_per_mb());
  CHECK(m.backward_seconds() == doctest::Approx(5.5e-3));
  // One segment per gradient: E = 1+4 = 5, max(3,5)+2 = 7, max(3.5,7)+1 = 8, max(5,8)+1 = 9;
  // T = 3 + max(5.5, 9) = 12 ms.
  const auto t = m.timeline(SplitStrategy{{0, 1, 2, 3}});
  REQUIRE(t.segments.size() == 4);
  CHECK(t.segments[0].start == doctest::Approx(1e-3));
  CHECK(t.segments[0].end == doctest::Approx(5e-3));
  CHECK(t.segments[1].start == doctest::Approx(5e-3));
  CHECK(t.segments[2].ready == doctest::Approx(3.5e-3));
  CHECK(t.segments[2].start == doctest::Approx(7e-3));
  CHECK(t.segments[3].end == doctest::Approx(9e-3));
  CHECK(t.iteration == doctest::Approx(12e-3));
  CHECK(t.exposed_communication() == doctest::Approx(3.5e-3));
  // One segment: ready at 5, 8 MB: ends at 13; T = 16 ms.
  CHECK(m.seconds(SplitStrategy{{3}}) == doctest::Approx(16e-3));
  // [0, 1] [2, 3]: 3 + 6 = 9, then max(5, 9) + 2 = 11; T = 14 ms.
  CHECK(m.seconds(SplitStrategy{{1, 3}}) == doctest::Approx(14e-3));
  // [0] [1, 3]: 1 + 4 = 5, then max(5, 5) + 4 = 9; T = 12 ms.
  CHECK(m.seconds(SplitStrategy{{0, 3}}) == doctest::Approx(12e-3));
  CHECK(m.bytes(1, 3) == 4'000'000);
}

TEST_CASE("gdat default split: 96.54% / 3.46% of the bytes") {
  GradientProfile p;
  p.gradients = {{"a", 0, 96}, {"b", 0, 3}, {"c", 0, 1}};
  // Running share 96% < 96.54%, then 99%: the first segment ends at gradient 1.
  CHECK(aoe::gdat::default_split(p) == SplitStrategy{{1, 2}});
  // The share is reached only at the last gradient: one segment.
  CHECK(aoe::gdat::default_split(small_profile()) == SplitStrategy{{3}});
  p.gradients = {{"a", 0, 9654}, {"b", 0, 346}};
  CHECK(aoe::gdat::default_split(p) == SplitStrategy{{0, 1}});
  CHECK(aoe::gdat::default_split(p).size_percentages(p) == std::vector<double>{96.54, 3.46});
}

TEST_CASE("gdat split strategy: index lists, size percentages, validity") {
  const auto p = small_profile();
  CHECK(SplitStrategy{{0, 3}}.size_percentages(p) == std::vector<double>{50.0, 50.0});
  CHECK(SplitStrategy{{1, 3}}.size_percentages(p) == std::vector<double>{75.0, 25.0});
  GradientProfile thirds;
  thirds.gradients = {{"a", 0, 1}, {"b", 0, 1}, {"c", 0, 1}};
  // 33.33 × 3 = 99.99: the remainder goes to the (first) largest segment.
  CHECK(SplitStrategy{{0, 1, 2}}.size_percentages(thirds) ==
        std::vector<double>{33.34, 33.33, 33.33});
  CHECK(SplitStrategy{{0, 1, 2}}.to_string() == "[0, 0] [1, 1] [2, 2]");
  CHECK(SplitStrategy{{1, 3}}.valid_for(4));
  CHECK_FALSE(SplitStrategy{{1, 2}}.valid_for(4));     // does not end at the last gradient
  CHECK_FALSE(SplitStrategy{{2, 1, 3}}.valid_for(4));  // not ascending
  CHECK_FALSE(SplitStrategy{{}}.valid_for(4));
  CHECK_FALSE(SplitStrategy{{0, 1, 2, 3}}.valid_for(4, 3));
  CHECK(aoe::gdat::split_from_indices({20, 100, 159}, 160).has_value());
  const auto bad = aoe::gdat::split_from_indices({1, 0, 159}, 160);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("ending at 159") != std::string::npos);
}

TEST_CASE("gdat split space: cuts decode to splits, order and repeats do not matter") {
  const aoe::gdat::SplitSpace s(10, 4);
  CHECK(s.space().dimensions() == 3);
  CHECK(s.space().cardinality(0) == 10);
  CHECK(s.decode({0, 0, 0}) == SplitStrategy{{9}});
  CHECK(s.decode({0, 5, 5}) == SplitStrategy{{4, 9}});
  CHECK(s.decode({7, 0, 2}) == SplitStrategy{{1, 6, 9}});
  CHECK(s.encode(SplitStrategy{{1, 6, 9}}) == aoe::Configuration{2, 7, 0});
  CHECK(s.decode(s.encode(SplitStrategy{{0, 1, 2, 9}})) == SplitStrategy{{0, 1, 2, 9}});
  CHECK(aoe::gdat::SplitSpace(1, 8).space().dimensions() == 0);
  CHECK(aoe::gdat::SplitSpace(5, 1).space().dimensions() == 0);
}

TEST_CASE("gdat dynamic programme: the hand-computed optimum") {
  const IterationModel m(small_profile(), one_ms_per_mb());
  // 8 MB of all-reduce cannot start before 1 ms: E >= 9 ms, T >= 12 ms; [0] [1, 3] reaches it
  // with the fewest segments.
  const auto o = aoe::gdat::optimal_split(m);
  CHECK(o.seconds == doctest::Approx(12e-3));
  CHECK(o.split == SplitStrategy{{0, 3}});
  const auto one = aoe::gdat::optimal_split(m, 1);
  CHECK(one.split == SplitStrategy{{3}});
  CHECK(one.seconds == doctest::Approx(16e-3));
}

TEST_CASE("gdat dynamic programme equals brute force on small random instances") {
  aoe::Rng rng(20240601);
  int checked = 0;
  for (int instance = 0; instance < 400; ++instance) {
    const std::size_t n = 1 + rng.below(9);
    const std::size_t k = 1 + rng.below(instance % 5 == 0 ? 8 : 4);
    GradientProfile p;
    p.name = "random";
    p.forward_seconds = rng.uniform() * 5e-3;
    p.backward_tail_seconds = rng.bernoulli(0.5) ? rng.uniform() * 2e-3 : 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = rng.bernoulli(0.2) ? 0.0 : rng.uniform() * 3e-3;
      const auto bytes = static_cast<std::int64_t>(1 + rng.below(50'000'000));
      p.gradients.push_back({"g" + std::to_string(i), t, bytes});
    }
    const int per_server = 1 + static_cast<int>(rng.below(8));
    Cluster c{.devices = per_server * static_cast<int>(1 + rng.below(8)),
              .devices_per_server = per_server,
              .topology = rng.bernoulli(0.5) ? Topology::ring : Topology::two_level,
              .intra_server = {.bandwidth = (5 + rng.uniform() * 50) * 1e9,
                               .latency = rng.uniform() * 1e-5},
              .inter_server = {.bandwidth = (1 + rng.uniform() * 20) * 1e9,
                               .latency = rng.uniform() * 5e-5},
              .allreduce_overhead = rng.uniform() * 1e-4};
    const IterationModel m(p, c);
    // Every split: a subset of the n − 1 boundaries with at most k − 1 cuts.
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t mask = 0; mask < (1U << (n - 1)); ++mask) {
      if (static_cast<std::size_t>(std::popcount(mask)) + 1 > k) continue;
      SplitStrategy s;
      for (std::size_t b = 0; b + 1 < n; ++b) {
        if ((mask >> b) & 1U) s.ends.push_back(b);
      }
      s.ends.push_back(n - 1);
      best = std::min(best, m.seconds(s));
    }
    const auto o = aoe::gdat::optimal_split(m, k);
    CHECK(o.split.valid_for(n, k));
    CHECK(o.seconds == doctest::Approx(best).epsilon(1e-12));
    CHECK(m.seconds(o.split) == doctest::Approx(o.seconds).epsilon(1e-12));
    ++checked;
  }
  CHECK(checked == 400);
}

namespace {

/// The recurrence of optimal_split.hpp evaluated as written, O(K n²): the reference.
double recurrence_seconds(const IterationModel& m, std::size_t kmax) {
  const std::size_t n = m.gradients();
  kmax = std::min(kmax, n);
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> f(kmax + 1, std::vector<double>(n + 1, inf));
  for (std::size_t j = 1; j <= n; ++j) f[1][j] = m.ready(j - 1) + m.allreduce_seconds(0, j - 1);
  for (std::size_t k = 2; k <= kmax; ++k) {
    for (std::size_t j = k; j <= n; ++j) {
      for (std::size_t i = k - 1; i < j; ++i) {
        f[k][j] = std::min(f[k][j],
                           std::max(m.ready(j - 1), f[k - 1][i]) + m.allreduce_seconds(i, j - 1));
      }
    }
  }
  double best = inf;
  for (std::size_t k = 1; k <= kmax; ++k) best = std::min(best, m.iteration_seconds(f[k][n]));
  return best;
}

GradientProfile layers_profile(std::size_t n, bool identical) {
  GradientProfile p;
  p.name = "layers";
  p.forward_seconds = 0.05;
  const std::int64_t sizes[] = {4096, 262144, 1024, 2359296, 8192};
  const double times[] = {20e-6, 150e-6, 5e-6, 400e-6, 30e-6};
  for (std::size_t i = 0; i < n; ++i) {
    p.gradients.push_back({"g" + std::to_string(i), identical ? 100e-6 : times[i % 5],
                           identical ? 1'000'000 : sizes[i % 3]});
  }
  return p;
}

}  // namespace

TEST_CASE("gdat dynamic programme equals the recurrence evaluated as written") {
  aoe::Rng rng(20261124);
  for (int instance = 0; instance < 300; ++instance) {
    const std::size_t n = 1 + rng.below(instance % 10 == 0 ? 600 : 120);
    const std::size_t k = 1 + rng.below(8);
    GradientProfile p =
        instance % 3 == 0 ? layers_profile(n, instance % 2 == 0) : GradientProfile{};
    if (p.gradients.empty()) {
      p.name = "random";
      p.forward_seconds = rng.uniform() * 5e-3;
      for (std::size_t i = 0; i < n; ++i) {
        p.gradients.push_back({"g" + std::to_string(i), rng.uniform() * 3e-3,
                               static_cast<std::int64_t>(1 + rng.below(50'000'000))});
      }
    }
    const int per_server = 1 + static_cast<int>(rng.below(8));
    const Cluster c{.devices = per_server * static_cast<int>(1 + rng.below(8)),
                    .devices_per_server = per_server,
                    .topology = rng.bernoulli(0.5) ? Topology::ring : Topology::two_level,
                    .allreduce_overhead = rng.uniform() * 1e-4};
    const IterationModel m(p, c);
    const auto o = aoe::gdat::optimal_split(m, k);
    CAPTURE(instance);
    CHECK(o.split.valid_for(n, k));
    // Equal up to rounding: where several splits are optimal, another may be taken.
    CHECK(o.seconds == doctest::Approx(recurrence_seconds(m, k)).epsilon(1e-14));
    CHECK(m.seconds(o.split) == doctest::Approx(o.seconds).epsilon(1e-14));
  }
}

TEST_CASE("gdat dynamic programme: O(K n log n), at most 32 K n + n cost evaluations") {
  // Counted, not timed (docs/reliability.md#model-size): the recurrence evaluated as written
  // makes K n² / 2 evaluations, 67 million here.
  for (const bool identical : {false, true}) {
    CAPTURE(identical);
    const std::size_t n = 4096;
    const IterationModel m(layers_profile(n, identical), Cluster{.devices = 64});
    const auto o = aoe::gdat::optimal_split(m, 8);
    CHECK(o.split.valid_for(n, 8));
    CHECK(o.cost_evaluations <= 32 * 8 * n + n);
    CHECK(o.cost_evaluations >= 8 * n - 28);  // every cell costed at least once
  }
}

}  // namespace jobs_gdat_cost_model_test
