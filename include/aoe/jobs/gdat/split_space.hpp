// The tuning space of a gradient split, for the framework's search policies: K − 1 cut
// parameters cut_1 .. cut_{K−1} (K = the most segments allowed), each a gradient index in
// 0..n−1, where c > 0 cuts before gradient c (a segment ends at c − 1) and 0 means no cut.
// Every configuration is valid: the distinct non-zero cuts, sorted, give the split, so the
// order of the cuts and repeated cuts do not matter. One level up or down moves a cut by one
// gradient, the neighbourhood local searches use.
#ifndef AOE_JOBS_GDAT_SPLIT_SPACE_HPP
#define AOE_JOBS_GDAT_SPLIT_SPACE_HPP

#include "aoe/core/assert.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aoe::gdat {

/// The space of splits of `gradients` gradients into at most `max_segments` segments, and the
/// mapping between its configurations and splits.
class SplitSpace {
 public:
  /// Precondition: gradients >= 1 and 1 <= max_segments (values above 8 are the caller's bug:
  /// the job checks its option first).
  SplitSpace(std::size_t gradients, std::size_t max_segments)
      : gradients_(gradients), max_segments_(max_segments) {
    AOE_ASSERT(gradients >= 1 && max_segments >= 1, "a split space needs gradients and segments");
    std::vector<Parameter> cuts;
    const std::size_t dims = gradients > 1 ? max_segments - 1 : 0;
    for (std::size_t d = 0; d < dims; ++d) {
      cuts.push_back(
          range("cut_" + std::to_string(d + 1), 0, static_cast<std::int64_t>(gradients) - 1));
    }
    space_ = Space(std::move(cuts));
  }

  [[nodiscard]] const Space& space() const noexcept { return space_; }
  [[nodiscard]] std::size_t gradients() const noexcept { return gradients_; }
  [[nodiscard]] std::size_t max_segments() const noexcept { return max_segments_; }

  /// The split of a configuration (every in-bounds configuration has one).
  [[nodiscard]] SplitStrategy decode(const Configuration& c) const {
    SplitStrategy s;
    s.ends.reserve(c.size() + 1);
    for (const auto cut : c) {
      if (cut > 0) s.ends.push_back(static_cast<std::size_t>(cut) - 1);
    }
    std::sort(s.ends.begin(), s.ends.end());
    s.ends.erase(std::unique(s.ends.begin(), s.ends.end()), s.ends.end());
    s.ends.push_back(gradients_ - 1);
    return s;
  }

  /// The configuration of a split (cuts in ascending order, unused parameters 0).
  /// Precondition: split.valid_for(gradients(), max_segments()).
  [[nodiscard]] Configuration encode(const SplitStrategy& split) const {
    Configuration c(space_.dimensions(), 0);
    for (std::size_t k = 0; k + 1 < split.ends.size() && k < c.size(); ++k) {
      c[k] = static_cast<std::uint32_t>(split.ends[k] + 1);
    }
    return c;
  }

 private:
  std::size_t gradients_;
  std::size_t max_segments_;
  Space space_;
};

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_SPLIT_SPACE_HPP
