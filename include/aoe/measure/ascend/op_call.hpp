// A single-operator call for Runner<device::Ascend>: an operator type, tensor descriptions
// (shape, dtype, origin and storage formats), attributes and compile options. The runner
// compiles it with aclopCompile and times aclopExecuteV2.
#ifndef AOE_MEASURE_ASCEND_OP_CALL_HPP
#define AOE_MEASURE_ASCEND_OP_CALL_HPP

#include "aoe/core/error.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/op/tensor.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aoe::ascend {

/// One input or output. `desc` is the origin view (what the graph says: shape, dtype, format);
/// `storage_format`, when set, is the layout the kernel reads and writes (the tensor
/// descriptor gets aclSetTensorFormat/aclSetTensorShape), with `storage_shape` its shape. The
/// device buffer holds the storage shape.
struct OpTensor {
  TensorDesc desc;
  std::optional<Format> storage_format = std::nullopt;
  std::vector<std::int64_t> storage_shape{};

  /// Bytes of the device buffer.
  [[nodiscard]] std::int64_t bytes() const noexcept {
    if (!storage_format) return desc.bytes();
    std::int64_t n = static_cast<std::int64_t>(size_of(desc.dtype));
    for (const auto d : storage_shape) n *= d;
    return n;
  }
};

/// The FRACTAL_NZ storage shape of an ND tensor [..., m, n]: [..., ceil(n/n0), ceil(m/16), 16,
/// n0], with n0 = 32 for one-byte types and 16 otherwise (the cube unit's fractals: 16 x 32
/// bytes; docs/ascend.md#public-sources). Errors for rank < 2 or a non-positive dimension.
[[nodiscard]] inline Result<std::vector<std::int64_t>> fractal_nz_shape(const TensorDesc& t) {
  if (t.shape.size() < 2) {
    return make_error(
        Errc::invalid_argument,
        "FRACTAL_NZ needs a tensor of rank 2 or more, got rank " + std::to_string(t.shape.size()));
  }
  for (const auto d : t.shape) {
    if (d <= 0) {
      return make_error(Errc::invalid_argument,
                        "FRACTAL_NZ needs positive dimensions, got " + std::to_string(d));
    }
  }
  const std::int64_t n0 = size_of(t.dtype) == 1 ? 32 : 16;
  const std::int64_t m0 = 16;
  const std::int64_t m = t.shape[t.shape.size() - 2];
  const std::int64_t n = t.shape.back();
  std::vector<std::int64_t> out(t.shape.begin(), t.shape.end() - 2);
  out.push_back((n + n0 - 1) / n0);
  out.push_back((m + m0 - 1) / m0);
  out.push_back(m0);
  out.push_back(n0);
  return out;
}

/// `t` stored as `storage`: itself when `storage` is its own format, FRACTAL_NZ through
/// fractal_nz_shape; other storage formats are not converted here (set the fields yourself).
[[nodiscard]] inline Result<OpTensor> stored_as(const TensorDesc& t, Format storage) {
  if (storage == t.format) return OpTensor{t};
  if (storage != Format::FRACTAL_NZ) {
    return make_error(Errc::unsupported, "cannot derive the " + std::string(to_string(storage)) +
                                             " storage shape of a " +
                                             std::string(to_string(t.format)) + " tensor");
  }
  auto shape = fractal_nz_shape(t);
  if (!shape) return shape.error();
  return OpTensor{t, storage, std::move(*shape)};
}

/// One single operator to compile and time.
struct OpCall {
  std::string type;  ///< the CANN operator type ("MatMul", "SoftmaxV2", ...)
  std::vector<OpTensor> inputs{};
  std::vector<OpTensor> outputs{};
  /// Set with aclopSetAttr*: bool -> Bool, integer -> Int, real -> Float, text -> String,
  /// integer list -> ListInt. Names are the operator's IR attribute names.
  std::map<std::string, Attribute> attributes{};
  /// ACL_OP_SELECT_IMPL_MODE for this compile ("high_performance", "high_precision"); empty
  /// leaves AscendCL's current setting (a process-wide compile option).
  std::string impl_mode{};
  /// ACL_PRECISION_MODE for this compile ("force_fp16", "must_keep_origin_dtype", ...); empty
  /// leaves the current setting.
  std::string precision_mode{};
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_OP_CALL_HPP
