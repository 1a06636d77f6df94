// A launch extent of one to three dimensions, shared by the OpenCL runner (NDRange: global
// work-items, work-group shape) and the CUDA runner (grid in blocks, block in threads).
#ifndef AOE_MEASURE_KERNEL_RANGE_HPP
#define AOE_MEASURE_KERNEL_RANGE_HPP

#include <array>
#include <cstddef>

namespace aoe::kernel {

/// One to three dimensions; unused ones are 1.
struct Range {
  std::array<std::size_t, 3> size{1, 1, 1};
  std::size_t dimensions = 1;

  Range() = default;
  Range(std::size_t x) : size{x, 1, 1}, dimensions(1) {}  // NOLINT(google-explicit-constructor)
  Range(std::size_t x, std::size_t y) : size{x, y, 1}, dimensions(2) {}
  Range(std::size_t x, std::size_t y, std::size_t z) : size{x, y, z}, dimensions(3) {}

  /// Elements in the range (work-items, threads or blocks).
  [[nodiscard]] std::size_t items() const noexcept { return size[0] * size[1] * size[2]; }
};

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_RANGE_HPP
