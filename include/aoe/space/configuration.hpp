// A configuration as search policies see it: one level index per parameter.
#ifndef AOE_SPACE_CONFIGURATION_HPP
#define AOE_SPACE_CONFIGURATION_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aoe {

/// Index vector: element d is the index of the chosen level of parameter d. Search policies work
/// on these only; the space maps them to values and to the user's parameter struct.
using Configuration = std::vector<std::uint32_t>;

/// Hash for unordered containers of configurations.
struct ConfigurationHash {
  [[nodiscard]] std::size_t operator()(const Configuration& c) const noexcept {
    static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "64-bit size_t expected");
    std::size_t h = 0xCBF29CE484222325ULL ^ c.size();
    for (const std::uint32_t x : c) {
      h ^= x + 0x9E3779B97F4A7C15ULL + (h << 6U) + (h >> 2U);
      h *= 0x100000001B3ULL;
    }
    return h;
  }
};

}  // namespace aoe

#endif  // AOE_SPACE_CONFIGURATION_HPP
