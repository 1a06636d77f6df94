// Why a configuration has no valid measurement: the T4 invalidity set.
#ifndef AOE_VOCAB_STATUS_HPP
#define AOE_VOCAB_STATUS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace aoe {

/// A measurement's status. Names and meanings are those of the T4 results schema's
/// "invalidity" field (Kernel Tuner, schema/T4/1.0.0/results-schema.json).
enum class Status : std::uint8_t {
  correct,      ///< measured, and the output (if checked) was right
  constraints,  ///< the configuration violates a constraint; never run
  compile,      ///< it could not be built (e.g. a tile does not fit a buffer)
  runtime,      ///< it failed while running (exception, launch error, out of memory)
  timeout,      ///< it ran longer than the timeout allowed
  correctness,  ///< it ran, but its output was wrong
};

inline constexpr std::size_t status_count = 6;

inline constexpr std::array<std::string_view, status_count> status_names{
    "correct", "constraints", "compile", "runtime", "timeout", "correctness"};

[[nodiscard]] constexpr std::string_view to_string(Status s) noexcept {
  return status_names[static_cast<std::size_t>(s)];
}

[[nodiscard]] constexpr std::optional<Status> status_from_string(std::string_view name) noexcept {
  for (std::size_t i = 0; i < status_count; ++i) {
    if (status_names[i] == name) return static_cast<Status>(i);
  }
  return std::nullopt;
}

}  // namespace aoe

#endif  // AOE_VOCAB_STATUS_HPP
