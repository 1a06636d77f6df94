// The iteration time of a data-parallel training step under a gradient split (docs/gdat.md
// #cost-model). Backward runs on the compute stream and makes gradient i ready at r_i (the
// profile's running sum); the all-reduces run one after another on the communication stream,
// overlapping compute. Segment k (gradients a_k..b_k, n_k bytes) starts its all-reduce when its
// last gradient is ready and the previous all-reduce is done, and takes C(n_k) (allreduce_cost):
//     S_k = max(r_{b_k}, E_{k−1}),  E_k = S_k + C(n_k),  E_0 = 0
// The step ends when both the backward compute B and the last all-reduce are done, after the
// forward pass F (the optimiser update is not modelled):
//     T = F + max(B, E_K)
// Compute and communication are assumed not to slow each other (separate engines and streams).
#ifndef AOE_JOBS_GDAT_ITERATION_MODEL_HPP
#define AOE_JOBS_GDAT_ITERATION_MODEL_HPP

#include "aoe/core/assert.hpp"
#include "aoe/jobs/gdat/allreduce_cost.hpp"
#include "aoe/jobs/gdat/cluster.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace aoe::gdat {

/// Whether iteration time `a` beats `b` by more than rounding (a relative 1e-9): what "better"
/// means when a job compares splits and when the bank decides to update.
[[nodiscard]] constexpr bool faster(double a, double b) noexcept { return a < b - 1e-9 * b; }

/// One segment's place in the step, in seconds from the start of backward.
struct SegmentTiming {
  std::size_t first = 0;  ///< first gradient index
  std::size_t last = 0;   ///< last gradient index
  std::int64_t bytes = 0;
  double ready = 0;  ///< its last gradient is ready
  double start = 0;  ///< its all-reduce starts
  double end = 0;    ///< its all-reduce ends
};

/// A step under one split.
struct IterationTimeline {
  std::vector<SegmentTiming> segments;
  double forward = 0;
  double backward = 0;   ///< B: all backward compute
  double iteration = 0;  ///< T = F + max(B, E_K)
  /// Communication not hidden behind backward: max(0, E_K − B).
  [[nodiscard]] double exposed_communication() const noexcept {
    return segments.empty() ? 0.0 : std::max(0.0, segments.back().end - backward);
  }
};

/// The iteration-time model of one profile on one cluster; cheap to evaluate (O(segments) after
/// an O(gradients) set-up) and immutable, so one model serves a search, the dynamic programme
/// and reports alike.
class IterationModel {
 public:
  IterationModel(GradientProfile profile, Cluster cluster)
      : profile_(std::move(profile)), cluster_(cluster), ready_(profile_.ready_seconds()) {
    prefix_bytes_.reserve(profile_.gradients.size() + 1);
    prefix_bytes_.push_back(0);
    for (const auto& g : profile_.gradients)
      prefix_bytes_.push_back(prefix_bytes_.back() + g.bytes);
    backward_ = profile_.backward_seconds();
  }

  [[nodiscard]] const GradientProfile& profile() const noexcept { return profile_; }
  [[nodiscard]] const Cluster& cluster() const noexcept { return cluster_; }
  [[nodiscard]] std::size_t gradients() const noexcept { return profile_.gradients.size(); }
  /// r_i, from the start of backward.
  [[nodiscard]] double ready(std::size_t i) const { return ready_[i]; }
  [[nodiscard]] double forward_seconds() const noexcept { return profile_.forward_seconds; }
  [[nodiscard]] double backward_seconds() const noexcept { return backward_; }

  /// Bytes of gradients first..last (inclusive).
  [[nodiscard]] std::int64_t bytes(std::size_t first, std::size_t last) const {
    return prefix_bytes_[last + 1] - prefix_bytes_[first];
  }
  /// C(n) of the segment first..last.
  [[nodiscard]] double allreduce_seconds(std::size_t first, std::size_t last) const {
    return gdat::allreduce_seconds(cluster_, static_cast<double>(bytes(first, last)));
  }

  /// T = F + max(B, E) for an end of the last all-reduce E.
  [[nodiscard]] double iteration_seconds(double last_allreduce_end) const noexcept {
    return profile_.forward_seconds + std::max(backward_, last_allreduce_end);
  }

  /// E_K of the segments ending at `ends` (ascending, the last `gradients() − 1`).
  [[nodiscard]] double last_allreduce_end(std::span<const std::size_t> ends) const {
    double end = 0;
    std::size_t first = 0;
    for (const auto last : ends) {
      end = std::max(ready_[last], end) + allreduce_seconds(first, last);
      first = last + 1;
    }
    return end;
  }

  /// The iteration time T of a split. Precondition: split.valid_for(gradients()).
  [[nodiscard]] double seconds(const SplitStrategy& split) const {
    AOE_ASSERT(split.valid_for(gradients(), split.segments()), "a split of these gradients");
    return iteration_seconds(last_allreduce_end(split.ends));
  }

  /// The step in detail, for reports.
  [[nodiscard]] IterationTimeline timeline(const SplitStrategy& split) const {
    IterationTimeline t;
    t.forward = profile_.forward_seconds;
    t.backward = backward_;
    double end = 0;
    std::size_t first = 0;
    for (const auto last : split.ends) {
      SegmentTiming s;
      s.first = first;
      s.last = last;
      s.bytes = bytes(first, last);
      s.ready = ready_[last];
      s.start = std::max(s.ready, end);
      s.end = s.start + allreduce_seconds(first, last);
      end = s.end;
      t.segments.push_back(s);
      first = last + 1;
    }
    t.iteration = iteration_seconds(end);
    return t;
  }

 private:
  GradientProfile profile_;
  Cluster cluster_;
  std::vector<double> ready_;
  std::vector<std::int64_t> prefix_bytes_;
  double backward_ = 0;
};

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_ITERATION_MODEL_HPP
