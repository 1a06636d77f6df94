// A training model as gradient tuning (GDAT) sees it: its gradients in the order backward
// computation makes them ready, each with the backward compute time that precedes it and its
// size. AOE's GDAT measures the same two lists (gradientTime, gradientSize) from profiling
// (docs/aoe-facts.md#gradient-tuning-and-hccls-split); docs/gdat.md.
#ifndef AOE_JOBS_GDAT_GRADIENT_PROFILE_HPP
#define AOE_JOBS_GDAT_GRADIENT_PROFILE_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::gdat {

/// One gradient (one trainable parameter tensor).
struct Gradient {
  std::string name;             ///< the parameter's name (the weight tensor in a graph)
  double backward_seconds = 0;  ///< backward compute between the previous gradient and this one
  std::int64_t bytes = 0;       ///< the gradient's size, what its all-reduce carries
};

/// The gradients of a model in backward (ready) order: index 0 is ready first, as HCCL numbers
/// them for `set_split_strategy_by_idx` (its default split of ResNet-50 is [0, 107] [108, 159],
/// the first segment holding 96.54% of the bytes: the last layers, whose gradients come first).
struct GradientProfile {
  std::string name;            ///< the model name: the tuning name in the result file
  double forward_seconds = 0;  ///< the forward pass, before backward starts
  /// Backward compute after the last gradient is ready (layers without weights below it).
  double backward_tail_seconds = 0;
  std::vector<Gradient> gradients;

  /// Ready time of each gradient, from the start of backward: the running sum of
  /// `backward_seconds`.
  [[nodiscard]] std::vector<double> ready_seconds() const {
    std::vector<double> out;
    out.reserve(gradients.size());
    double t = 0;
    for (const auto& g : gradients) {
      t += g.backward_seconds;
      out.push_back(t);
    }
    return out;
  }

  /// All backward compute: the last gradient's ready time plus the tail.
  [[nodiscard]] double backward_seconds() const {
    double t = backward_tail_seconds;
    for (const auto& g : gradients) t += g.backward_seconds;
    return t;
  }

  [[nodiscard]] std::int64_t total_bytes() const noexcept {
    std::int64_t n = 0;
    for (const auto& g : gradients) n += g.bytes;
    return n;
  }

  /// The model hash of the gradient-fusion bank: FNV-1a (64 bit) over the names, sizes and
  /// times (to the nanosecond) of the gradients and the forward and tail times, as a decimal
  /// string (AOE writes bank keys as decimal strings). Two profiles with one hash are the same
  /// tuning problem on a given cluster.
  [[nodiscard]] std::string hash() const {
    std::uint64_t h = 1469598103934665603ULL;
    const auto mix = [&h](std::string_view s) {
      for (const char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
      }
      h ^= 0xFFU;  // field separator
      h *= 1099511628211ULL;
    };
    const auto ns = [](double s) { return std::to_string(std::llround(s * 1e9)); };
    mix(ns(forward_seconds));
    mix(ns(backward_tail_seconds));
    for (const auto& g : gradients) {
      mix(g.name);
      mix(std::to_string(g.bytes));
      mix(ns(g.backward_seconds));
    }
    return std::to_string(h);
  }
};

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_GRADIENT_PROFILE_HPP
