// The statistic a measurement reduces its samples to.
#ifndef AOE_MEASURE_STATISTICS_HPP
#define AOE_MEASURE_STATISTICS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string_view>
#include <vector>

namespace aoe {

/// How repeated samples become one value. Median by default: robust to the outliers that
/// interrupts and frequency changes produce.
enum class Statistic : std::uint8_t { median, min, mean };

[[nodiscard]] constexpr std::string_view to_string(Statistic s) noexcept {
  switch (s) {
    case Statistic::median: return "median";
    case Statistic::min: return "min";
    case Statistic::mean: return "mean";
  }
  return "median";
}

[[nodiscard]] inline double median(std::span<const double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v(samples.begin(), samples.end());
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

[[nodiscard]] inline double mean(std::span<const double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  return std::accumulate(samples.begin(), samples.end(), 0.0) /
         static_cast<double>(samples.size());
}

/// Sample standard deviation (n - 1); 0 for fewer than two samples.
[[nodiscard]] inline double stddev(std::span<const double> samples) {
  if (samples.size() < 2) return 0;
  const double m = mean(samples);
  double ss = 0;
  for (const double x : samples) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(samples.size() - 1));
}

[[nodiscard]] inline double reduce(Statistic s, std::span<const double> samples) {
  switch (s) {
    case Statistic::median: return median(samples);
    case Statistic::min:
      return samples.empty() ? std::numeric_limits<double>::quiet_NaN()
                             : *std::min_element(samples.begin(), samples.end());
    case Statistic::mean: return mean(samples);
  }
  return median(samples);
}

}  // namespace aoe

#endif  // AOE_MEASURE_STATISTICS_HPP
