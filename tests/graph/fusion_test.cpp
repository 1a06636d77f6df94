#include <aoe/graph/fusion.hpp>
#include <aoe/graph/loader.hpp>

#include <doctest/doctest.h>

TEST_CASE("fusion: Conv+BN+ReLU, MatMul+BiasAdd+Gelu and elementwise chains") {
  const char* const text = R"({"format_version": 1, "name": "f",
    "tensors": {
      "x": {"shape": [2, 8, 4, 4], "dtype": "float16", "format": "NCHW"},
      "w": {"shape": [8, 8, 1, 1], "dtype": "float16", "format": "NCHW"},
      "c": {"shape": [2, 8, 4, 4], "dtype": "float16", "format": "NCHW"},
      "bn_scale": {"shape": [8], "dtype": "float32"},
      "b": {"shape": [2, 8, 4, 4], "dtype": "float16", "format": "NCHW"},
      "r": {"shape": [2, 8, 4, 4], "dtype": "float16", "format": "NCHW"},
      "a": {"shape": [2, 8, 4, 4], "dtype": "float16", "format": "NCHW"},
      "s": {"shape": [2, 8, 4, 4], "dtype": "float16", "format": "NCHW"},
      "m": {"shape": [32, 16], "dtype": "float16"},
      "mw": {"shape": [16, 64], "dtype": "float16"},
      "mb": {"shape": [64], "dtype": "float16"},
      "mo": {"shape": [32, 64], "dtype": "float16"},
      "mbo": {"shape": [32, 64], "dtype": "float16"},
      "g": {"shape": [32, 64], "dtype": "float16"}
    },
    "nodes": [
      {"name": "conv1", "type": "Conv2D", "inputs": ["x", "w"], "outputs": ["c"]},
      {"name": "bn1", "type": "BatchNorm", "inputs": ["c", "bn_scale"], "outputs": ["b"],
       "attributes": {"epsilon": 0.001}},
      {"name": "relu1", "type": "Relu", "inputs": ["b"], "outputs": ["r"]},
      {"name": "add1", "type": "Add", "inputs": ["r", "x"], "outputs": ["a"]},
      {"name": "sig1", "type": "Sigmoid", "inputs": ["a"], "outputs": ["s"]},
      {"name": "dense/MatMul", "type": "MatMul", "inputs": ["m", "mw"], "outputs": ["mo"]},
      {"name": "dense/BiasAdd", "type": "BiasAdd", "inputs": ["mo", "mb"], "outputs": ["mbo"]},
      {"name": "dense/Gelu", "type": "Gelu", "inputs": ["mbo"], "outputs": ["g"]}
    ]})";
  const auto g = aoe::parse_graph(text, "f.json");
  REQUIRE(g.has_value());
  const auto ops = aoe::fuse(*g);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0].op.type == "Conv2D+BatchNorm+Relu");
  CHECK(ops[0].op.name == "conv1bn1relu1");
  CHECK(ops[0].op.members == std::vector<std::string>{"Conv2D", "BatchNorm", "Relu"});
  CHECK(ops[0].op.inputs.size() == 3);  // x, w, bn_scale
  CHECK(ops[0].op.attributes.contains("BatchNorm.epsilon"));
  CHECK(ops[1].op.type == "Add+Sigmoid");
  CHECK(ops[1].nodes == std::vector<std::size_t>{3, 4});
  CHECK(ops[2].op.type == "MatMul+BiasAdd+Gelu");
  CHECK(ops[2].op.name == "dense/MatMuldense/BiasAdddense/Gelu");
  REQUIRE(ops[2].op.outputs.size() == 1);
  CHECK(ops[2].op.outputs[0].shape == std::vector<std::int64_t>{32, 64});

  SUBCASE("fusion off: one operator per node, members empty") {
    const auto single =
        aoe::fuse(*g, {.conv_bn_act = false, .matmul_bias_act = false, .elementwise = false});
    CHECK(single.size() == 8);
    CHECK(single[0].op.members.empty());
    CHECK(single[0].op.name == "conv1");
  }
}

TEST_CASE("fusion: a tensor with two consumers ends a group") {
  const char* const text = R"({"format_version": 1, "name": "b",
    "tensors": {"x": {"shape": [4], "dtype": "float16"}, "y": {"shape": [4], "dtype": "float16"},
                "p": {"shape": [4], "dtype": "float16"}, "q": {"shape": [4], "dtype": "float16"}},
    "nodes": [{"name": "r", "type": "Relu", "inputs": ["x"], "outputs": ["y"]},
              {"name": "e1", "type": "Exp", "inputs": ["y"], "outputs": ["p"]},
              {"name": "e2", "type": "Neg", "inputs": ["y"], "outputs": ["q"]}]})";
  const auto g = aoe::parse_graph(text, "b.json");
  REQUIRE(g.has_value());
  CHECK(aoe::fuse(*g).size() == 3);
}
