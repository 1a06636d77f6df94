// The tools' tests' smallest model: one MatMul (256x256 by 256x512, float16) and its BiasAdd,
// in the JSON graph format (docs/model_format.md).
#ifndef AOE_TESTS_SUPPORT_SMALL_MODEL_HPP
#define AOE_TESTS_SUPPORT_SMALL_MODEL_HPP

namespace aoe::test {

inline const char* const small_model = R"({"format_version": 1, "name": "small",
  "tensors": {"x": {"shape": [256, 256], "dtype": "float16"}, "w": {"shape": [256, 512], "dtype": "float16"},
              "b": {"shape": [512], "dtype": "float16"}, "y": {"shape": [256, 512], "dtype": "float16"},
              "z": {"shape": [256, 512], "dtype": "float16"}},
  "nodes": [{"name": "fc/MatMul", "type": "MatMul", "inputs": ["x", "w"], "outputs": ["y"]},
            {"name": "fc/BiasAdd", "type": "BiasAdd", "inputs": ["y", "b"], "outputs": ["z"]}]})";

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_SMALL_MODEL_HPP
