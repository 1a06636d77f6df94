// Tensors as operators see them: shape, data type and data format.
#ifndef AOE_OP_TENSOR_HPP
#define AOE_OP_TENSOR_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// Element types of Ascend operators. Names as AOE and the model files write them.
enum class DataType : std::uint8_t {
  float16,
  bfloat16,
  float32,
  int8,
  int32,
  int64,
  uint8,
  boolean
};

inline constexpr std::array<std::string_view, 8> data_type_names{
    "float16", "bfloat16", "float32", "int8", "int32", "int64", "uint8", "bool"};

[[nodiscard]] constexpr std::string_view to_string(DataType t) noexcept {
  return data_type_names[static_cast<std::size_t>(t)];
}

/// Also accepts the short names fp16, bf16, fp32 and the DT_ names of GE (DT_FLOAT16 ...).
[[nodiscard]] inline std::optional<DataType> data_type_from_string(std::string_view s) {
  for (std::size_t i = 0; i < data_type_names.size(); ++i) {
    if (data_type_names[i] == s) return static_cast<DataType>(i);
  }
  if (s == "fp16" || s == "DT_FLOAT16" || s == "half") return DataType::float16;
  if (s == "bf16" || s == "DT_BF16") return DataType::bfloat16;
  if (s == "fp32" || s == "DT_FLOAT" || s == "float") return DataType::float32;
  if (s == "DT_INT8") return DataType::int8;
  if (s == "DT_INT32") return DataType::int32;
  if (s == "DT_INT64") return DataType::int64;
  if (s == "DT_UINT8") return DataType::uint8;
  if (s == "DT_BOOL") return DataType::boolean;
  return std::nullopt;
}

[[nodiscard]] constexpr std::size_t size_of(DataType t) noexcept {
  switch (t) {
    case DataType::float16:
    case DataType::bfloat16: return 2;
    case DataType::float32:
    case DataType::int32: return 4;
    case DataType::int64: return 8;
    case DataType::int8:
    case DataType::uint8:
    case DataType::boolean: return 1;
  }
  return 1;
}

/// Data formats (layouts) of Ascend tensors. NC1HWC0, FRACTAL_Z and FRACTAL_NZ are the cube
/// unit's native formats; ND is a plain row-major array.
enum class Format : std::uint8_t { ND, NCHW, NHWC, HWCN, NC1HWC0, FRACTAL_Z, FRACTAL_NZ };

inline constexpr std::array<std::string_view, 7> format_names{
    "ND", "NCHW", "NHWC", "HWCN", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ"};

[[nodiscard]] constexpr std::string_view to_string(Format f) noexcept {
  return format_names[static_cast<std::size_t>(f)];
}

[[nodiscard]] inline std::optional<Format> format_from_string(std::string_view s) {
  for (std::size_t i = 0; i < format_names.size(); ++i) {
    if (format_names[i] == s) return static_cast<Format>(i);
  }
  return std::nullopt;
}

/// The largest tensor the loaders accept: 2^40 bytes (1 TiB, sixteen times the HBM of the
/// largest Ascend device). Below it every size, and every sum of sizes over a model of up to
/// 2^20 tensors, fits a signed 64-bit integer and is exact as a double
/// (docs/reliability.md#input-limits).
inline constexpr std::int64_t max_tensor_bytes = std::int64_t{1} << 40;

/// A tensor's static description. Dynamic dimensions (-1) are not allowed in tuning (AOE
/// rejects dynamic shapes); loaders reject them with a message.
struct TensorDesc {
  std::vector<std::int64_t> shape;
  DataType dtype = DataType::float16;
  Format format = Format::ND;

  /// Why this tensor cannot be tuned as it is (a dimension <= 0, an element or byte count that
  /// overflows 64 bits or is over max_tensor_bytes), or nullopt when every size is in range:
  /// then elements() and bytes() are exact. Loaders call it on every tensor they read.
  [[nodiscard]] std::optional<std::string> size_problem() const {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] <= 0) {
        return "dimension " + std::to_string(i) + " is " + std::to_string(shape[i]) +
               " (expected a positive size)";
      }
      if (__builtin_mul_overflow(n, shape[i], &n)) {
        return "the element count overflows a 64-bit integer";
      }
    }
    std::int64_t b = 0;
    if (__builtin_mul_overflow(n, static_cast<std::int64_t>(size_of(dtype)), &b) ||
        b > max_tensor_bytes) {
      return "the tensor is over the size limit of 2^40 bytes (1 TiB): " +
             (b > 0 ? std::to_string(b) + " bytes" : std::string("its byte count overflows"));
    }
    return std::nullopt;
  }

  /// The element count; exact when size_problem() is nullopt (the loaders check it).
  [[nodiscard]] std::int64_t elements() const noexcept {
    std::int64_t n = 1;
    for (const auto d : shape) n *= d;
    return n;
  }
  [[nodiscard]] std::int64_t bytes() const noexcept {
    return elements() * static_cast<std::int64_t>(size_of(dtype));
  }
  friend bool operator==(const TensorDesc&, const TensorDesc&) = default;
};

}  // namespace aoe

#endif  // AOE_OP_TENSOR_HPP
