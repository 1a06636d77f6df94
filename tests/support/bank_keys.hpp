// The operator the bank tests key their records by (tests/repo).
#ifndef AOE_TESTS_SUPPORT_BANK_KEYS_HPP
#define AOE_TESTS_SUPPORT_BANK_KEYS_HPP

#include <aoe/op/operator_desc.hpp>

#include <cstdint>

namespace aoe::test {

/// MatMul "mm": [m, 64] x [64, 128] -> [m, 128], float16, ND; `m` makes distinct keys.
inline aoe::OperatorDesc matmul_desc(std::int64_t m) {
  aoe::OperatorDesc op;
  op.type = "MatMul";
  op.name = "mm";
  op.inputs = {{{m, 64}, aoe::DataType::float16, aoe::Format::ND},
               {{64, 128}, aoe::DataType::float16, aoe::Format::ND}};
  op.outputs = {{{m, 128}, aoe::DataType::float16, aoe::Format::ND}};
  return op;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_BANK_KEYS_HPP
