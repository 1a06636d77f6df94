// An operator instance as the graph hands it to tuning and the simulator measures it.
#ifndef AOE_OP_OPERATOR_DESC_HPP
#define AOE_OP_OPERATOR_DESC_HPP

#include "aoe/op/tensor.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace aoe {

/// An operator attribute: what model files carry (strides, pads, transpose flags, axes ...).
using Attribute = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>>;

/// One (possibly fused) operator with static shapes.
///
/// Types are Ascend's operator types ("MatMul", "BatchMatMul", "Conv2D", "DepthwiseConv2D",
/// "MaxPool", "AvgPool", "Add", "Mul", "Relu", "Gelu", "Sigmoid", "Cast", "ReduceSum",
/// "ReduceMean", "SoftmaxV2", "LayerNorm", "TransData", ...). A fused operator's type is its
/// members' types joined with '+' in data-flow order ("Conv2D+BatchNorm+Relu",
/// "MatMul+BiasAdd+Gelu", "Add+Relu"); its name is its members' names joined as AOE joins them
/// (see graph/fusion.hpp); `members` lists the member types. Inputs and outputs are those of the
/// fused whole.
struct OperatorDesc {
  std::string type;
  std::string name;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::map<std::string, Attribute> attributes;
  std::vector<std::string> members;  ///< member op types of a fused operator; empty otherwise
};

/// The integer list attribute `name` of `op` (a single integer is a list of one); `fallback`
/// when it is absent or of another type.
[[nodiscard]] inline std::vector<std::int64_t> attribute_ints(const OperatorDesc& op,
                                                              const std::string& name,
                                                              std::vector<std::int64_t> fallback) {
  const auto it = op.attributes.find(name);
  if (it == op.attributes.end()) return fallback;
  if (const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second)) return *v;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return {*i};
  return fallback;
}

}  // namespace aoe

#endif  // AOE_OP_OPERATOR_DESC_HPP
