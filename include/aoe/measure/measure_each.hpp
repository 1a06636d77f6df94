// The batch measure of a policy whose configurations are measured independently: each one by
// the policy's `evaluate`, in batch order.
#ifndef AOE_MEASURE_MEASURE_EACH_HPP
#define AOE_MEASURE_MEASURE_EACH_HPP

#include "aoe/space/configuration.hpp"
#include "aoe/vocab/measurement.hpp"

#include <span>
#include <vector>

namespace aoe {

/// `policy.evaluate(c)` for every configuration of `batch`, in order: the `measure` of a
/// policy with nothing to share between the configurations of a batch.
template <class Policy>
[[nodiscard]] std::vector<Measurement> measure_each(const Policy& policy,
                                                    std::span<const Configuration> batch) {
  std::vector<Measurement> out;
  out.reserve(batch.size());
  for (const auto& c : batch) out.push_back(policy.evaluate(c));
  return out;
}

}  // namespace aoe

#endif  // AOE_MEASURE_MEASURE_EACH_HPP
