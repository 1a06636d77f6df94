// A gradient split: the gradients, in backward order, cut into at most 8 contiguous segments,
// one all-reduce each. Written both ways HCCL takes it
// (docs/aoe-facts.md#gradient-tuning-and-hccls-split):
// `set_split_strategy_by_idx(idxList)` — the last gradient index of each segment, ascending, the
// last one the gradient count − 1 (HCCL's example: [20, 100, 159] for 160 gradients) — and
// `set_split_strategy_by_size(dataSizeList)` — each segment's share of the gradient bytes in
// percent, summing to 100 (AOE's default: [96.54, 3.46]).
#ifndef AOE_JOBS_GDAT_SPLIT_STRATEGY_HPP
#define AOE_JOBS_GDAT_SPLIT_STRATEGY_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aoe::gdat {

/// HCCL splits the gradients into at most 8 segments.
inline constexpr std::size_t max_split_segments = 8;

/// AOE's split without tuning: two segments, the first holding 96.54% of the gradient bytes.
inline constexpr double default_first_segment_share = 0.9654;

/// The segments as the last gradient index of each (`set_split_strategy_by_idx`'s list).
struct SplitStrategy {
  std::vector<std::size_t> ends;

  [[nodiscard]] std::size_t segments() const noexcept { return ends.size(); }

  /// The strategy covers `gradients` gradients: non-empty, strictly ascending, the last end
  /// `gradients − 1`, at most `max_segments` segments.
  [[nodiscard]] bool valid_for(std::size_t gradients,
                               std::size_t max_segments = max_split_segments) const {
    if (ends.empty() || ends.size() > max_segments || gradients == 0) return false;
    if (ends.back() != gradients - 1) return false;
    for (std::size_t k = 1; k < ends.size(); ++k) {
      if (ends[k] <= ends[k - 1]) return false;
    }
    return true;
  }

  /// Each segment's share of the bytes in percent, rounded to 0.01 and summing to exactly 100
  /// (the rounding remainder goes to the largest segment): `set_split_strategy_by_size`'s list.
  /// Precondition: valid_for(profile.gradients.size()).
  [[nodiscard]] std::vector<double> size_percentages(const GradientProfile& profile) const {
    const double total = static_cast<double>(profile.total_bytes());
    std::vector<std::int64_t> hundredths;
    std::size_t first = 0;
    for (const auto end : ends) {
      std::int64_t bytes = 0;
      for (std::size_t i = first; i <= end; ++i) bytes += profile.gradients[i].bytes;
      hundredths.push_back(std::llround(static_cast<double>(bytes) / total * 10000.0));
      first = end + 1;
    }
    std::int64_t sum = 0;
    for (const auto h : hundredths) sum += h;
    const auto largest = std::max_element(hundredths.begin(), hundredths.end());
    *largest += 10000 - sum;
    std::vector<double> out;
    out.reserve(hundredths.size());
    for (const auto h : hundredths) out.push_back(static_cast<double>(h) / 100.0);
    return out;
  }

  /// "[0, 107] [108, 159]", as HCCL logs its "segment result".
  [[nodiscard]] std::string to_string() const {
    std::string out;
    std::size_t first = 0;
    for (const auto end : ends) {
      if (!out.empty()) out += ' ';
      out += "[" + std::to_string(first) + ", " + std::to_string(end) + "]";
      first = end + 1;
    }
    return out;
  }

  friend bool operator==(const SplitStrategy&, const SplitStrategy&) = default;
};

/// AOE's default split of `profile`: the first segment ends at the first gradient where the
/// running share of bytes reaches 96.54%, the rest is the second segment. When that gradient is
/// the last, one segment (HCCL: "in some cases there is one segment"). HCCL's exact boundary
/// rule is not public; this is the nearest reading of "96.54% / 3.46% of the bytes".
[[nodiscard]] inline SplitStrategy default_split(const GradientProfile& profile) {
  const std::size_t n = profile.gradients.size();
  if (n == 0) return {};
  const double total = static_cast<double>(profile.total_bytes());
  std::int64_t running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running += profile.gradients[i].bytes;
    if (static_cast<double>(running) >= default_first_segment_share * total) {
      if (i + 1 == n) break;
      return SplitStrategy{{i, n - 1}};
    }
  }
  return SplitStrategy{{n - 1}};
}

/// Checks an index list given for `gradients` gradients (e.g. from a bank or a user); the
/// message says what is wrong.
[[nodiscard]] inline Result<SplitStrategy> split_from_indices(const std::vector<std::size_t>& ends,
                                                              std::size_t gradients) {
  SplitStrategy s{ends};
  if (s.valid_for(gradients)) return s;
  std::string list;
  for (const auto e : ends) list += (list.empty() ? "" : ", ") + std::to_string(e);
  return make_error(Errc::invalid_argument, "split index list [" + list + "]: expected 1 to " +
                                                std::to_string(max_split_segments) +
                                                " ascending gradient indices ending at " +
                                                std::to_string(gradients == 0 ? 0 : gradients - 1));
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_SPLIT_STRATEGY_HPP
