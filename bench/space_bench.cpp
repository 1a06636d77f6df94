// Space throughput: valid configurations enumerated per second on a constrained space of about
// 10^7 raw points (Space::Enumerator), random valid samples per second on a 10^9-point space
// (Space::sample), and what Space::size() reports for each and how long it takes. Prints JSON;
// figures depend on the machine and are never asserted.
#include <aoe/core/random.hpp>
#include <aoe/space/constraint.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A GEMM-like tiling space: 12 * 12 * 12 * 16 * 8 * 4 * 6 * 2 = 10,616,832 raw points.
aoe::Space tiling_space() {
  return aoe::Space(
      {aoe::pow2("tile_m", 1, 2048), aoe::pow2("tile_n", 1, 2048), aoe::pow2("tile_k", 1, 2048),
       aoe::range("unroll", 1, 16), aoe::range("stages", 1, 8), aoe::values("vector", {1, 2, 4, 8}),
       aoe::enumeration("order", {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"}),
       aoe::flag("double_buffer")},
      {aoe::product_at_most({"tile_m", "tile_n"}, 65536),
       aoe::product_at_most({"tile_m", "tile_k"}, 65536), aoe::divides("unroll", "tile_k"),
       aoe::multiple_of("tile_n", "vector"),
       aoe::predicate(
           {"stages", "double_buffer"},
           [](std::span<const double> v) { return v[1] == 0 || v[0] >= 2; },
           "double_buffer needs stages >= 2")});
}

// 1000^3 = 10^9 raw points; about 16% of them valid, so rejection sampling applies.
aoe::Space huge_space() {
  return aoe::Space(
      {aoe::range("a", 1, 1000), aoe::range("b", 1, 1000), aoe::range("c", 1, 1000)},
      {aoe::product_at_most({"a", "b", "c"}, 1e7), aoe::sum_at_most({"a", "b"}, 1500)});
}

void print_size(const aoe::Space& space) {
  const auto t0 = Clock::now();
  const aoe::SpaceSize size = space.size();
  const double seconds = seconds_since(t0);
  std::printf("\"size\": {\"raw\": %.0f, \"valid\": %.0f, \"exact\": %s, \"seconds\": %.6f}",
              size.raw, size.valid, size.exact ? "true" : "false", seconds);
}

}  // namespace

int main() {
  const aoe::Space tiling = tiling_space();
  std::uint64_t valid = 0;
  std::uint64_t checksum = 0;  // keeps the loop from being optimised away
  auto t0 = Clock::now();
  aoe::Space::Enumerator enumerator(tiling);
  aoe::Configuration c;
  while (enumerator.next(c)) {
    ++valid;
    checksum += c[0] ^ c[7];
  }
  const double enumeration_seconds = seconds_since(t0);
  std::printf(
      "{\"enumeration\": {\"raw\": %.0f, \"valid\": %llu, \"seconds\": %.6f, "
      "\"valid_per_second\": %.0f, ",
      tiling.raw_size(), static_cast<unsigned long long>(valid), enumeration_seconds,
      static_cast<double>(valid) / enumeration_seconds);
  print_size(tiling);

  const aoe::Space huge = huge_space();
  constexpr std::size_t samples = 1'000'000;
  aoe::Rng rng(1);
  std::size_t found = 0;
  t0 = Clock::now();
  for (std::size_t i = 0; i < samples; ++i) {
    if (auto s = huge.sample(rng)) {
      ++found;
      checksum += (*s)[0];
    }
  }
  const double sampling_seconds = seconds_since(t0);
  std::printf(
      "},\n \"sampling\": {\"raw\": %.0f, \"samples\": %zu, \"valid_samples\": %zu, "
      "\"seconds\": %.6f, \"samples_per_second\": %.0f, ",
      huge.raw_size(), samples, found, sampling_seconds,
      static_cast<double>(samples) / sampling_seconds);
  print_size(huge);
  std::printf("},\n \"checksum\": %llu}\n", static_cast<unsigned long long>(checksum));
  return 0;
}
