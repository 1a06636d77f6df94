// The three kinds of knowledge AOE's operator tuning produces.
#ifndef AOE_MEASURE_SIMULATOR_KNOWLEDGE_HPP
#define AOE_MEASURE_SIMULATOR_KNOWLEDGE_HPP

#include <cstdint>
#include <string_view>

namespace aoe::sim {

/// Which parameters a simulator runner's space holds. AOE's OPAT writes three kinds of
/// knowledge (result keys "Schedule", "Format", "Impl";
/// docs/aoe-facts.md#operator-tuning-schedule-format-impl); parameters of kinds not requested
/// stay at the built-in heuristic's choice.
enum class Knowledge : std::uint8_t {
  schedule,  ///< tiling: core split, L1 tiles, L0 base blocks, double buffering, loop order
  format,    ///< the data format the kernel consumes (ND or FRACTAL_NZ), with TransData cost
  impl,      ///< implementation variant: high_performance or high_precision
};

[[nodiscard]] constexpr std::string_view to_string(Knowledge k) noexcept {
  switch (k) {
    case Knowledge::schedule: return "schedule";
    case Knowledge::format: return "format";
    case Knowledge::impl: return "impl";
  }
  return "schedule";
}

}  // namespace aoe::sim

#endif  // AOE_MEASURE_SIMULATOR_KNOWLEDGE_HPP
