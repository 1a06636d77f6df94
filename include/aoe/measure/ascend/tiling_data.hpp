// The bytes of an Ascend C kernel's tiling struct, built field by field from a configuration:
// what a Schedule candidate changes without recompiling the kernel
// (docs/ascend.md#mode-2-ascend-c-kernels; sources: docs/ascend.md#public-sources).
#ifndef AOE_MEASURE_ASCEND_TILING_DATA_HPP
#define AOE_MEASURE_ASCEND_TILING_DATA_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/value.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::ascend {

/// The type of one tiling field.
enum class TilingType : std::uint8_t {
  int8,
  uint8,
  int16,
  uint16,
  int32,
  uint32,
  int64,
  uint64,
  float32
};

inline constexpr std::array<std::string_view, 9> tiling_type_names{
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32"};

[[nodiscard]] constexpr std::string_view to_string(TilingType t) noexcept {
  return tiling_type_names[static_cast<std::size_t>(t)];
}

/// Also accepts the C names int32_t, uint32_t, ..., float.
[[nodiscard]] inline std::optional<TilingType> tiling_type_from_string(std::string_view s) {
  if (s == "float") return TilingType::float32;
  if (s.size() > 2 && s.substr(s.size() - 2) == "_t") s.remove_suffix(2);
  for (std::size_t i = 0; i < tiling_type_names.size(); ++i) {
    if (tiling_type_names[i] == s) return static_cast<TilingType>(i);
  }
  return std::nullopt;
}

[[nodiscard]] constexpr std::size_t size_of(TilingType t) noexcept {
  switch (t) {
    case TilingType::int8:
    case TilingType::uint8: return 1;
    case TilingType::int16:
    case TilingType::uint16: return 2;
    case TilingType::int32:
    case TilingType::uint32:
    case TilingType::float32: return 4;
    case TilingType::int64:
    case TilingType::uint64: return 8;
  }
  return 1;
}

/// Lays fields out as a C compiler lays out a plain struct of them, in order: each at an offset
/// that is a multiple of its size, the whole padded to a multiple of the largest (natural
/// alignment). Declare the kernel's tiling struct with the same fields in the same order.
class TilingData {
 public:
  /// Appends `value` as a field of type `type`. Errors (naming `field`) for a text, a
  /// fraction in an integer field, or a value the type cannot hold.
  Result<void> append(std::string_view field, TilingType type, const Value& value) {
    const auto bad = [&](const std::string& what) {
      return make_error(Errc::invalid_argument, "tiling field '" + std::string(field) + "' (" +
                                                    std::string(to_string(type)) + "): " + what);
    };
    if (value.is_text()) return bad("expected a number, got '" + value.as_text() + "'");
    if (type == TilingType::float32) {
      const double d = value.as_real();
      if (std::isfinite(d) &&
          std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())) {
        return bad(value.to_string() + " does not fit a float");
      }
      put(static_cast<float>(d));
      return {};
    }
    if (!value.is_integer() && value.as_real() != std::floor(value.as_real())) {
      return bad("expected an integer, got " + value.to_string());
    }
    const std::int64_t v = value.as_integer();
    const auto range = [&](std::int64_t lo, std::int64_t hi) -> Result<void> {
      if (v < lo || v > hi) return bad(std::to_string(v) + " is out of the type's range");
      return {};
    };
    Result<void> fits;
    switch (type) {
      case TilingType::int8: fits = range(INT8_MIN, INT8_MAX); break;
      case TilingType::uint8: fits = range(0, UINT8_MAX); break;
      case TilingType::int16: fits = range(INT16_MIN, INT16_MAX); break;
      case TilingType::uint16: fits = range(0, UINT16_MAX); break;
      case TilingType::int32: fits = range(INT32_MIN, INT32_MAX); break;
      case TilingType::uint32: fits = range(0, UINT32_MAX); break;
      case TilingType::uint64: fits = range(0, INT64_MAX); break;
      case TilingType::int64:
      case TilingType::float32: break;
    }
    if (!fits) return fits.error();
    switch (type) {
      case TilingType::int8: put(static_cast<std::int8_t>(v)); break;
      case TilingType::uint8: put(static_cast<std::uint8_t>(v)); break;
      case TilingType::int16: put(static_cast<std::int16_t>(v)); break;
      case TilingType::uint16: put(static_cast<std::uint16_t>(v)); break;
      case TilingType::int32: put(static_cast<std::int32_t>(v)); break;
      case TilingType::uint32: put(static_cast<std::uint32_t>(v)); break;
      case TilingType::int64: put(v); break;
      case TilingType::uint64: put(static_cast<std::uint64_t>(v)); break;
      case TilingType::float32: break;
    }
    return {};
  }

  /// The struct's bytes, padded to its alignment.
  [[nodiscard]] std::vector<std::byte> bytes() const {
    std::vector<std::byte> out = bytes_;
    out.resize((out.size() + align_ - 1) / align_ * align_);
    return out;
  }

 private:
  template <class T>
  void put(T v) {
    const std::size_t at = (bytes_.size() + sizeof v - 1) / sizeof v * sizeof v;  // aligned
    align_ = std::max(align_, sizeof v);
    bytes_.resize(at + sizeof v);
    std::memcpy(bytes_.data() + at, &v, sizeof v);
  }

  std::vector<std::byte> bytes_;
  std::size_t align_ = 1;
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_TILING_DATA_HPP
