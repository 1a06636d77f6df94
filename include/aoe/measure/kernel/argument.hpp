// A device kernel's argument as a user writes it, shared by the OpenCL and CUDA runners: a host
// vector (a device buffer) or a scalar passed by value.
#ifndef AOE_MEASURE_KERNEL_ARGUMENT_HPP
#define AOE_MEASURE_KERNEL_ARGUMENT_HPP

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

namespace aoe::kernel {

/// A kernel argument. A host vector becomes a device buffer (uploaded again before each
/// configuration, so that no configuration sees another's output); a scalar is passed by value.
using Argument =
    std::variant<std::vector<float>, std::vector<double>, std::vector<std::int32_t>,
                 std::vector<std::uint32_t>, float, double, std::int32_t, std::uint32_t>;

/// Whether an argument is a buffer (a host vector).
[[nodiscard]] inline bool is_buffer(const Argument& a) noexcept { return a.index() < 4; }

/// Elements of a buffer argument (1 for a scalar).
[[nodiscard]] inline std::size_t element_count(const Argument& a) noexcept {
  return std::visit(
      [](const auto& v) -> std::size_t {
        if constexpr (requires { v.size(); }) {
          return v.size();
        } else {
          return 1;
        }
      },
      a);
}

/// Bytes of a buffer argument's data; of a scalar, its size.
[[nodiscard]] inline std::size_t byte_size(const Argument& a) noexcept {
  return std::visit(
      [](const auto& v) -> std::size_t {
        if constexpr (requires { v.data(); }) {
          return v.size() * sizeof(typename std::decay_t<decltype(v)>::value_type);
        } else {
          return sizeof(v);
        }
      },
      a);
}

/// Address of the argument's data: a buffer's first element, or the scalar itself.
[[nodiscard]] inline const void* data(const Argument& a) noexcept {
  return std::visit(
      [](const auto& v) -> const void* {
        if constexpr (requires { v.data(); }) {
          return v.data();
        } else {
          return &v;
        }
      },
      a);
}

/// A buffer's contents converted to doubles, from raw device bytes of the argument's element
/// type (`bytes` holds byte_size(a) bytes). Empty for a scalar.
[[nodiscard]] inline std::vector<double> to_doubles(const Argument& a, const void* bytes) {
  return std::visit(
      [bytes](const auto& v) -> std::vector<double> {
        if constexpr (requires { v.data(); }) {
          using T = typename std::decay_t<decltype(v)>::value_type;
          const T* p = static_cast<const T*>(bytes);
          return std::vector<double>(p, p + v.size());
        } else {
          return {};
        }
      },
      a);
}

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_ARGUMENT_HPP
