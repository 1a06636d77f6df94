// The named workloads carry the published ResNet-50 v1.5 and BERT-base shapes.
#include "aoe/measure/simulator/workloads.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace simulator_workloads_test {  // apart from this area's other files in a unity build

namespace {
const aoe::OperatorDesc& find(const std::vector<aoe::OperatorDesc>& ops, const std::string& name) {
  const auto it =
      std::find_if(ops.begin(), ops.end(), [&](const auto& op) { return op.name == name; });
  REQUIRE(it != ops.end());
  return *it;
}
}  // namespace

TEST_CASE("ResNet-50 v1.5 convolutions") {
  const auto ops = aoe::sim::workloads::resnet50_convolutions(32);
  CHECK(ops.size() == 24);
  const auto& stem = find(ops, "conv1");
  CHECK(stem.inputs[0].shape == std::vector<std::int64_t>{32, 3, 224, 224});
  CHECK(stem.inputs[1].shape == std::vector<std::int64_t>{64, 3, 7, 7});
  CHECK(stem.outputs[0].shape == std::vector<std::int64_t>{32, 64, 112, 112});
  // v1.5: the stride is in the 3x3 convolution of the first block of stages 3-5
  const auto& b = find(ops, "res3a_branch2b");
  CHECK(b.inputs[0].shape == std::vector<std::int64_t>{32, 128, 56, 56});
  CHECK(b.outputs[0].shape == std::vector<std::int64_t>{32, 128, 28, 28});
  const auto& proj = find(ops, "res5a_branch1");
  CHECK(proj.inputs[0].shape == std::vector<std::int64_t>{32, 1024, 14, 14});
  CHECK(proj.outputs[0].shape == std::vector<std::int64_t>{32, 2048, 7, 7});
  const auto& reduce = find(ops, "res4b_branch2a");
  CHECK(reduce.inputs[1].shape == std::vector<std::int64_t>{256, 1024, 1, 1});
  const auto fc = aoe::sim::workloads::resnet50_fc(8);
  CHECK(fc.inputs[1].shape == std::vector<std::int64_t>{2048, 1000});
  CHECK(fc.members == std::vector<std::string>{"MatMul", "BiasAdd"});
}

TEST_CASE("BERT-base MatMuls") {
  const auto ops = aoe::sim::workloads::bert_base_matmuls(16, 128);
  CHECK(ops.size() == 9);
  CHECK(find(ops, "attention/self/query").inputs[0].shape == std::vector<std::int64_t>{2048, 768});
  CHECK(find(ops, "attention/self/query").inputs[1].shape == std::vector<std::int64_t>{768, 768});
  const auto& ffn = find(ops, "intermediate/dense");
  CHECK(ffn.type == "MatMul+BiasAdd+Gelu");
  CHECK(ffn.inputs[1].shape == std::vector<std::int64_t>{768, 3072});
  CHECK(find(ops, "output/dense").inputs[1].shape == std::vector<std::int64_t>{3072, 768});
  const auto& scores = find(ops, "attention/self/MatMul");
  CHECK(scores.type == "BatchMatMul");
  CHECK(scores.inputs[0].shape == std::vector<std::int64_t>{16, 12, 128, 64});
  CHECK(scores.outputs[0].shape == std::vector<std::int64_t>{16, 12, 128, 128});
  CHECK(find(ops, "pooler/dense").inputs[0].shape == std::vector<std::int64_t>{16, 768});
}

}  // namespace simulator_workloads_test
