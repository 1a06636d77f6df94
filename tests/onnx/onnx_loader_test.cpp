// ONNX import (aoe::onnx): each mapped operator, broadcasting, constant folding, naming,
// --input_shape, every error, the Gelu/LayerNorm patterns, external weights, Debian's
// libonnx-testdata node models and the real models of ../shared/models.
#include "support/skip.hpp"
#include <aoe/graph/input_shape.hpp>
#include <aoe/graph/model_format.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

TEST_CASE("input_shape: AOE's --input_shape syntax") {
  const auto s = aoe::parse_input_shape("x:1,3,640,640;mask:1,128");
  REQUIRE(s.has_value());
  REQUIRE(s->size() == 2);
  CHECK((*s)[0].first == "x");
  CHECK((*s)[0].second == std::vector<std::int64_t>{1, 3, 640, 640});
  CHECK((*s)[1].first == "mask");
  // A TensorFlow name keeps its ':0'; a trailing ';' is fine; "name:" is a scalar.
  const auto tf = aoe::parse_input_shape("input:0:8,224;");
  REQUIRE(tf.has_value());
  CHECK(tf->at(0).first == "input:0");
  CHECK(tf->at(0).second == std::vector<std::int64_t>{8, 224});
  CHECK(aoe::parse_input_shape("s:")->at(0).second.empty());
  for (const char* bad : {"", "x", ":1,2", "x:1,,2", "x:1,2,", "x:-1,3", "x:0", "x:a", "x:1;x:2",
                          "x:1;;y:2", "x:99999999999999999999"}) {
    INFO(bad);
    const auto r = aoe::parse_input_shape(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
    CHECK(r.error().message.find("--input_shape") != std::string::npos);
  }
}

TEST_CASE("model format: --framework and the file's content") {
  using aoe::ModelFormat;
  CHECK(*aoe::model_format_from_framework("5", ModelFormat::json) == ModelFormat::onnx);
  CHECK(*aoe::model_format_from_framework("onnx", ModelFormat::json) == ModelFormat::onnx);
  CHECK(*aoe::model_format_from_framework("json", ModelFormat::onnx) == ModelFormat::json);
  CHECK(*aoe::model_format_from_framework("", ModelFormat::onnx) == ModelFormat::onnx);
  for (const char* f : {"0", "1", "3"}) {
    const auto r = aoe::model_format_from_framework(f, ModelFormat::json);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::unsupported));
    CHECK(r.error().message.find("--framework=5") != std::string::npos);
  }
  CHECK_FALSE(aoe::model_format_from_framework("7", ModelFormat::json).has_value());
  CHECK(aoe::sniff_model_format("  \n{\"format_version\": 1}") == ModelFormat::json);
  CHECK(aoe::sniff_model_format("\xEF\xBB\xBF{}") == ModelFormat::json);
  CHECK(aoe::sniff_model_format(std::string("\x08\x08\x12", 3)) == ModelFormat::onnx);
}

#if defined(AOE_WITH_ONNX)

#include "onnx/onnx_model_builder.hpp"
#include <aoe/graph/fusion.hpp>
#include <aoe/measure/simulator/simulator_runner.hpp>
#include <aoe/onnx.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

namespace fs = std::filesystem;
using aoe::test::OnnxModel;

namespace {

aoe::Result<aoe::Graph> load(const OnnxModel& m, const std::string& shapes = "") {
  aoe::OnnxOptions o;
  if (!shapes.empty()) o.input_shapes = *aoe::parse_input_shape(shapes);
  return aoe::parse_onnx(m.bytes(), "test.onnx", o);
}

const aoe::Node& only_node(const aoe::Graph& g) {
  REQUIRE(g.nodes.size() == 1);
  return g.nodes[0];
}

/// The simulator prices the node (as OPAT would: one fused operator per node here).
void check_priced(const aoe::Graph& g) {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A");
  REQUIRE(soc.has_value());
  for (const auto& f : aoe::fuse(g)) {
    const auto r = aoe::Runner<aoe::device::Simulator>::create(*soc, f.op);
    INFO(f.op.type << " " << f.op.name << ": " << (r ? std::string("ok") : r.error().message));
    CHECK(r.has_value());
  }
}

template <class T>
T attr(const aoe::Node& n, const std::string& name) {
  const auto it = n.attributes.find(name);
  REQUIRE_MESSAGE(it != n.attributes.end(), "attribute " << name);
  REQUIRE(std::holds_alternative<T>(it->second));
  return std::get<T>(it->second);
}

fs::path shared_models() {
  if (const char* p = std::getenv("AOE_SHARED_MODELS")) return p;
  return fs::path(AOE_TESTS_SOURCE_DIR) / ".." / ".." / "shared" / "models";
}

}  // namespace

TEST_CASE("onnx: Conv maps to Conv2D, depthwise and grouped convolutions, with explicit pads") {
  struct Case {
    std::int64_t group;
    std::int64_t cin, cout, wcin;
    const char* type;
  };
  for (const Case c : {Case{1, 16, 32, 16, "Conv2D"}, Case{16, 16, 16, 1, "DepthwiseConv2D"},
                       Case{4, 16, 32, 4, "Conv2D"}}) {
    INFO(c.type << " group " << c.group);
    OnnxModel m;
    m.input("x", {2, c.cin, 17, 17}).weight("w", {c.cout, c.wcin, 3, 3}).weight("b", {c.cout});
    auto& n = m.node("Conv", {"x", "w", "b"}, {"y"}, "conv");
    aoe::test::set_int(n, "group", c.group);
    aoe::test::set_ints(n, "strides", {2, 2});
    aoe::test::set_string(n, "auto_pad", "SAME_UPPER");
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    const auto& node = only_node(*g);
    CHECK(node.type == c.type);
    CHECK(node.inputs.size() == 3);
    CHECK(node.outputs[0].desc.shape == std::vector<std::int64_t>{2, c.cout, 9, 9});
    CHECK(node.outputs[0].desc.format == aoe::Format::NCHW);
    CHECK(node.outputs[0].desc.dtype == aoe::DataType::float32);
    // SAME_UPPER on 17 with k=3, s=2: total padding 2, split 1/1 ([top, bottom, left, right]).
    CHECK(attr<std::vector<std::int64_t>>(node, "pads") == std::vector<std::int64_t>{1, 1, 1, 1});
    check_priced(*g);
  }
}

TEST_CASE("onnx: ConvTranspose, Gemm, MatMul (2-D, batched, vector) and BatchNormalization") {
  {
    OnnxModel m;
    m.input("x", {1, 8, 10, 10}).weight("w", {8, 4, 2, 2});
    auto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    aoe::test::set_ints(n, "strides", {2, 2});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "Conv2DTranspose");
    CHECK(only_node(*g).outputs[0].desc.shape == std::vector<std::int64_t>{1, 4, 20, 20});
    check_priced(*g);
  }
  {
    OnnxModel m;
    m.input("a", {64, 32}).weight("b", {128, 32}).weight("c", {128});
    auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"});
    aoe::test::set_int(n, "transB", 1);
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "MatMulV2");
    CHECK(attr<bool>(only_node(*g), "transpose_x2"));
    check_priced(*g);
  }
  {
    OnnxModel m;
    m.input("a", {4, 64, 32}).weight("b", {32, 16});
    m.node("MatMul", {"a", "b"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "BatchMatMul");
    check_priced(*g);
  }
  {
    OnnxModel m;
    m.input("v", {32}).weight("b", {32, 16});
    m.node("MatMul", {"v", "b"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "MatMul");
    CHECK(only_node(*g).inputs[0].desc.shape == std::vector<std::int64_t>{1, 32});
    check_priced(*g);
  }
  {
    OnnxModel m;
    m.input("x", {2, 8, 4, 4});
    m.weight("s", {8}).weight("b", {8}).weight("mean", {8}).weight("var", {8});
    m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "BatchNorm");
    check_priced(*g);
  }
}

TEST_CASE("onnx: activations, Clip as Relu6, elementwise arithmetic with broadcasting") {
  const std::map<std::string, std::string> unary{{"Relu", "Relu"},
                                                 {"LeakyRelu", "LeakyRelu"},
                                                 {"Sigmoid", "Sigmoid"},
                                                 {"Tanh", "Tanh"},
                                                 {"HardSigmoid", "HardSigmoid"},
                                                 {"HardSwish", "HardSwish"},
                                                 {"Erf", "Erf"},
                                                 {"Sqrt", "Sqrt"},
                                                 {"Exp", "Exp"},
                                                 {"Abs", "Abs"},
                                                 {"Neg", "Neg"},
                                                 {"Reciprocal", "Reciprocal"},
                                                 {"Softplus", "Softplus"}};
  for (const auto& [op, type] : unary) {
    INFO(op);
    OnnxModel m(14);
    m.input("x", {2, 8, 4, 4});
    m.node(op, {"x"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == type);
    check_priced(*g);
  }
  const std::map<std::string, std::string> binary{
      {"Add", "Add"}, {"Sub", "Sub"},     {"Mul", "Mul"},    {"Div", "RealDiv"},
      {"Pow", "Pow"}, {"Max", "Maximum"}, {"Min", "Minimum"}};
  for (const auto& [op, type] : binary) {
    INFO(op);
    OnnxModel m;
    m.input("x", {2, 8, 4, 4}).input("c", {1, 8, 1, 1});  // per-channel operand, broadcast
    m.node(op, {"x", "c"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == type);
    CHECK(only_node(*g).outputs[0].desc.shape == std::vector<std::int64_t>{2, 8, 4, 4});
    check_priced(*g);
  }
  // Clip(0, 6): bounds as inputs from opset 11, as attributes before.
  {
    OnnxModel m(11);
    m.input("x", {1, 4, 8, 8}).scalar("lo", 0).scalar("hi", 6);
    m.node("Clip", {"x", "lo", "hi"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "Relu6");
    CHECK(only_node(*g).inputs.size() == 1);  // the bounds are parameters, not inputs
  }
  {
    OnnxModel m(9);
    m.input("x", {1, 4, 8, 8});
    auto& n = m.node("Clip", {"x"}, {"y"});
    aoe::test::set_float(n, "min", -1);
    aoe::test::set_float(n, "max", 1);
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "ClipByValue");
    check_priced(*g);
  }
}

TEST_CASE("onnx: pools, reductions, Softmax, LayerNormalization") {
  {
    OnnxModel m;
    m.input("x", {1, 8, 15, 15});
    auto& n = m.node("MaxPool", {"x"}, {"y"});
    aoe::test::set_ints(n, "kernel_shape", {3, 3});
    aoe::test::set_ints(n, "strides", {2, 2});
    aoe::test::set_int(n, "ceil_mode", 1);
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    const auto& node = only_node(*g);
    CHECK(node.type == "MaxPool");
    CHECK(node.outputs[0].desc.shape == std::vector<std::int64_t>{1, 8, 7, 7});
    check_priced(*g);  // ceil_mode became end padding that gives the same 7x7
  }
  {
    OnnxModel m;
    m.input("x", {1, 8, 16, 16});
    auto& n = m.node("AveragePool", {"x"}, {"y"});
    aoe::test::set_ints(n, "kernel_shape", {2, 2});
    aoe::test::set_ints(n, "strides", {2, 2});
    m.node("GlobalAveragePool", {"y"}, {"z"});
    m.output("z");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    REQUIRE(g->nodes.size() == 2);
    CHECK(g->nodes[0].type == "AvgPool");
    CHECK(g->nodes[1].type == "ReduceMean");
    CHECK(attr<std::vector<std::int64_t>>(g->nodes[1], "axes") == std::vector<std::int64_t>{2, 3});
    check_priced(*g);
  }
  {
    OnnxModel m(11);  // opset < 13: Softmax coerces to 2-D from `axis` (default 1)
    m.input("x", {2, 3, 8});
    m.node("Softmax", {"x"}, {"y"});
    m.output("y");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(only_node(*g).type == "SoftmaxV2");
    CHECK(attr<std::vector<std::int64_t>>(only_node(*g), "axes") ==
          std::vector<std::int64_t>{1, 2});
    check_priced(*g);
  }
  {
    OnnxModel m(17);
    m.input("x", {2, 16, 64}).weight("s", {64}).weight("b", {64});
    m.node("LayerNormalization", {"x", "s", "b"}, {"y"});
    m.node("ReduceSum", {"y"}, {"z"});
    m.output("z");
    const auto g = load(m);
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    REQUIRE(g->nodes.size() == 2);
    CHECK(g->nodes[0].type == "LayerNorm");
    CHECK(g->nodes[1].type == "ReduceSum");
    check_priced(*g);
  }
}

TEST_CASE("onnx: data movement (Resize, Concat, Split, Slice, Transpose, Gather) is priced") {
  OnnxModel m(13);
  m.input("x", {1, 8, 16, 16}).input("idx", {4}, onnx::TensorProto_DataType_INT64);
  m.weight("roi", {0}).weight("scales", {4});
  m.proto().mutable_graph()->mutable_initializer(1)->clear_float_data();
  for (const float s : {1.0F, 1.0F, 2.0F, 2.0F}) {
    m.proto().mutable_graph()->mutable_initializer(1)->add_float_data(s);
  }
  m.node("Resize", {"x", "roi", "scales"}, {"r"});
  aoe::test::set_int(m.node("Concat", {"r", "r"}, {"c"}), "axis", 1);
  m.ints("split", {8, 8});
  auto& split = m.node("Split", {"c", "split"}, {"s0", "s1"});
  aoe::test::set_int(split, "axis", 1);
  m.ints("starts", {0}).ints("ends", {4}).ints("axes", {1});
  m.node("Slice", {"s0", "starts", "ends", "axes"}, {"sl"});
  auto& t = m.node("Transpose", {"sl"}, {"t"});
  aoe::test::set_ints(t, "perm", {0, 2, 3, 1});
  m.node("Gather", {"t", "idx"}, {"ga"});
  m.output("ga").output("s1");
  const auto g = load(m);
  REQUIRE_MESSAGE(g.has_value(), g.error().message);
  std::vector<std::string> types;
  for (const auto& n : g->nodes) types.push_back(n.type);
  CHECK(types == std::vector<std::string>{"ResizeNearestNeighborV2", "ConcatD", "SplitD",
                                          "StridedSliceD", "TransposeD", "GatherV2"});
  CHECK(g->nodes[0].outputs[0].desc.shape == std::vector<std::int64_t>{1, 8, 32, 32});
  CHECK(g->nodes[0].inputs.size() == 1);  // roi and scales are parameters
  CHECK(g->nodes[3].outputs[0].desc.shape == std::vector<std::int64_t>{1, 4, 32, 32});
  check_priced(*g);
}

TEST_CASE("onnx: a Reshape target computed with Shape -> Cast -> Slice -> Concat is folded") {
  // The shape arithmetic of the PaddleOCR classifier: Reshape(x, Concat(Cast(Slice(Cast(
  // Shape(x)))), [-1])). Shape inference alone leaves the Reshape's output unknown.
  OnnxModel m(9);
  m.input("x", {"N", 64, 1, 1});
  m.node("Shape", {"x"}, {"shape"});
  auto& c1 = m.node("Cast", {"shape"}, {"shape32"});
  aoe::test::set_int(c1, "to", onnx::TensorProto_DataType_INT32);
  auto& sl = m.node("Slice", {"shape32"}, {"batch"});
  aoe::test::set_ints(sl, "starts", {0});
  aoe::test::set_ints(sl, "ends", {1});
  aoe::test::set_ints(sl, "axes", {0});
  auto& c2 = m.node("Cast", {"batch"}, {"batch64"});
  aoe::test::set_int(c2, "to", onnx::TensorProto_DataType_INT64);
  auto& k = m.node("Constant", {}, {"minus_one"});
  auto* value = k.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(-1);
  auto& cat = m.node("Concat", {"batch64", "minus_one"}, {"target"});
  aoe::test::set_int(cat, "axis", 0);
  m.node("Reshape", {"x", "target"}, {"flat"});
  m.weight("w", {64, 10});
  m.node("MatMul", {"flat", "w"}, {"y"});
  m.output("y");

  const auto g = load(m, "x:3,64,1,1");
  REQUIRE_MESSAGE(g.has_value(), g.error().message);
  REQUIRE(g->nodes.size() == 2);  // the shape arithmetic and the Constant are not operators
  CHECK(g->nodes[0].type == "Reshape");
  CHECK(g->nodes[0].outputs[0].desc.shape == std::vector<std::int64_t>{3, 64});
  CHECK(g->nodes[0].inputs.size() == 1);
  CHECK(g->nodes[1].type == "MatMul");
  CHECK(g->nodes[1].outputs[0].desc.shape == std::vector<std::int64_t>{3, 10});
  CHECK(aoe::fuse(*g).size() == 1);  // the Reshape is layout only
}

TEST_CASE("onnx: unnamed nodes get stable names <OpType>_<index>") {
  OnnxModel m;
  m.input("x", {4, 4});
  m.node("Relu", {"x"}, {"a"});
  m.node("Sigmoid", {"a"}, {"b"}, "Relu_1");  // a name that the generator would give
  m.node("Relu", {"b"}, {"c"});
  m.output("c");
  const auto g = load(m);
  REQUIRE_MESSAGE(g.has_value(), g.error().message);
  REQUIRE(g->nodes.size() == 3);
  CHECK(g->nodes[0].name == "Relu_0");
  CHECK(g->nodes[1].name == "Relu_1");
  CHECK(g->nodes[2].name == "Relu_2");
  std::set<std::string> names;
  for (const auto& n : g->nodes) names.insert(n.name);
  CHECK(names.size() == 3);
  // The same file gives the same names.
  const auto again = load(m);
  REQUIRE(again.has_value());
  for (std::size_t i = 0; i < 3; ++i) CHECK(again->nodes[i].name == g->nodes[i].name);
}

TEST_CASE("onnx: the Erf form of Gelu and a decomposed LayerNorm become one operator each") {
  OnnxModel m(13);
  m.input("x", {8, 128, 768}).scalar("sqrt2", 1.4142135F).scalar("one", 1).scalar("half", 0.5F);
  m.node("Div", {"x", "sqrt2"}, {"d"});
  m.node("Erf", {"d"}, {"e"});
  m.node("Add", {"e", "one"}, {"a"});
  m.node("Mul", {"x", "a"}, {"m"});
  m.node("Mul", {"m", "half"}, {"gelu"});
  // LayerNorm over the last axis, with gamma and beta.
  m.ints("axes", {-1});
  auto& mean = m.node("ReduceMean", {"gelu"}, {"mean"}, "ln/mean");
  aoe::test::set_ints(mean, "axes", {-1});
  m.node("Sub", {"gelu", "mean"}, {"dev"});
  m.scalar("two", 2).scalar("eps", 1e-5F).weight("gamma", {768}).weight("beta", {768});
  m.node("Pow", {"dev", "two"}, {"sq"});
  auto& var = m.node("ReduceMean", {"sq"}, {"var"});
  aoe::test::set_ints(var, "axes", {-1});
  m.node("Add", {"var", "eps"}, {"ve"});
  m.node("Sqrt", {"ve"}, {"std"});
  m.node("Div", {"dev", "std"}, {"norm"});
  m.node("Mul", {"norm", "gamma"}, {"scaled"});
  m.node("Add", {"scaled", "beta"}, {"y"});
  m.output("y");
  const auto g = load(m);
  REQUIRE_MESSAGE(g.has_value(), g.error().message);
  REQUIRE(g->nodes.size() == 2);
  CHECK(g->nodes[0].type == "Gelu");
  CHECK(g->nodes[0].inputs.size() == 1);
  CHECK(g->nodes[0].inputs[0].name == "x");
  CHECK(g->nodes[0].outputs[0].name == "gelu");
  CHECK(g->nodes[1].type == "LayerNorm");
  CHECK(g->nodes[1].name == "ln/mean");
  CHECK(g->nodes[1].inputs.size() == 3);  // x, gamma, beta
  CHECK(g->nodes[1].outputs[0].name == "y");
  CHECK(attr<std::int64_t>(g->nodes[1], "begin_norm_axis") == 2);
  check_priced(*g);
}

TEST_CASE("onnx: weights stored as external data load without their file") {
  OnnxModel m;
  m.input("x", {16, 64}).external_weight("w", {64, 32});
  m.node("MatMul", {"x", "w"}, {"y"});
  m.output("y");
  const auto g = load(m);
  REQUIRE_MESSAGE(g.has_value(), g.error().message);
  CHECK(only_node(*g).inputs[1].desc.shape == std::vector<std::int64_t>{64, 32});
}

TEST_CASE("onnx: --input_shape fixes dynamic inputs; errors name the input, dimension and flag") {
  OnnxModel m;
  m.input("x", {"batch", 3, "h", "w"});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  const auto g = load(m, "x:2,3,32,48");
  REQUIRE_MESSAGE(g.has_value(), g.error().message);
  CHECK(only_node(*g).outputs[0].desc.shape == std::vector<std::int64_t>{2, 3, 32, 48});

  const auto missing = load(m);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == aoe::make_error_code(aoe::Errc::unsupported));
  CHECK(missing.error().message.find("input 'x', dimension 0 ('batch')") != std::string::npos);
  CHECK(missing.error().message.find("--input_shape=\"x:<size>,3,<size>,<size>\"") !=
        std::string::npos);

  const auto unknown = load(m, "image:1,3,32,32");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  CHECK(unknown.error().message.find("'image'") != std::string::npos);
  CHECK(unknown.error().message.find("inputs are: x") != std::string::npos);

  const auto rank = load(m, "x:1,3,32");
  REQUIRE_FALSE(rank.has_value());
  CHECK(rank.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));

  const auto fixed = load(m, "x:1,4,32,32");  // dimension 1 is fixed at 3 by the model
  REQUIRE_FALSE(fixed.has_value());
  CHECK(fixed.error().message.find("fixes it at 3") != std::string::npos);
}

TEST_CASE("onnx: bad files get a named error") {
  OnnxModel good;
  good.input("x", {4, 4});
  good.node("Relu", {"x"}, {"y"}, "relu");
  good.output("y");
  const std::string bytes = good.bytes();

  SUBCASE("truncated protobuf") {
    const auto r = aoe::parse_onnx(bytes.substr(0, bytes.size() / 2), "cut.onnx");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
    CHECK(r.error().message.starts_with("cut.onnx: "));
  }
  SUBCASE("JSON text") {
    const auto r = aoe::parse_onnx(R"({"format_version": 1, "name": "m"})", "m.json");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
    CHECK(r.error().message.find("JSON") != std::string::npos);
  }
  SUBCASE("JSON text that starts with '['") {
    const auto r = aoe::parse_onnx("\xEF\xBB\xBF \n[{\"name\": \"m\"}]", "list.json");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
    CHECK(r.error().message.starts_with("list.json: "));
    CHECK(r.error().message.find("looks like JSON (it starts with '[')") != std::string::npos);
    CHECK(r.error().message.find("starting with '{'") != std::string::npos);
    CHECK(r.error().message.find("protobuf cannot be parsed") == std::string::npos);
  }
  SUBCASE("empty file") {
    const auto r = aoe::parse_onnx("", "empty.onnx");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::parse_error));
  }
  SUBCASE("opsets outside 7..17") {
    for (const std::int64_t opset : {6, 18}) {
      OnnxModel m(opset);
      m.input("x", {4});
      m.node("Relu", {"x"}, {"y"});
      m.output("y");
      const auto r = load(m);
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().code == aoe::make_error_code(aoe::Errc::unsupported));
      CHECK(r.error().message.find("opset " + std::to_string(opset)) != std::string::npos);
    }
  }
  SUBCASE("an operator its opset does not have") {
    OnnxModel m(11);
    m.input("x", {2, 8}).weight("s", {8}).weight("b", {8});
    m.node("LayerNormalization", {"x", "s", "b"}, {"y"}, "ln");
    m.output("y");
    const auto r = load(m);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::schema_error));
    CHECK(r.error().message.find("LayerNormalization") != std::string::npos);
  }
  SUBCASE("control flow") {
    OnnxModel m;
    m.input("c", {1}, onnx::TensorProto_DataType_BOOL);
    m.node("If", {"c"}, {"y"}, "branch");
    m.output("y");
    const auto r = load(m);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::unsupported));
    CHECK(r.error().message.find("node 'branch' (If)") != std::string::npos);
  }
  SUBCASE("another domain") {
    OnnxModel m;
    m.input("x", {4});
    m.node("FusedGelu", {"x"}, {"y"}, "custom").set_domain("com.microsoft");
    m.output("y");
    const auto r = load(m);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("node 'custom' (FusedGelu) is of domain 'com.microsoft'") !=
          std::string::npos);
  }
  SUBCASE("an element type Ascend does not have") {
    OnnxModel m;
    m.input("x", {4}, onnx::TensorProto_DataType_DOUBLE);
    m.node("Relu", {"x"}, {"y"}, "r");
    m.output("y", onnx::TensorProto_DataType_DOUBLE);
    const auto r = load(m);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("DOUBLE") != std::string::npos);
    CHECK(r.error().message.find("node 'r' (Relu)") != std::string::npos);
  }
  SUBCASE("a missing file") {
    const auto r = aoe::load_onnx("/nonexistent/model.onnx");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::not_found));
  }
}

TEST_CASE("onnx: every single-operator model of libonnx-testdata loads or gets a named error") {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  if (!fs::is_directory(root)) {
    aoe::test::skip("Debian's libonnx-testdata is not installed (" + root.string() + ")");
    return;
  }
  int loaded = 0;
  std::map<std::string, int> errors;
  for (const auto& d : fs::directory_iterator(root)) {
    const fs::path f = d.path() / "model.onnx";
    if (!fs::exists(f)) continue;
    const auto g = aoe::load_onnx(f);
    if (g) {
      ++loaded;
      CHECK_FALSE(g->nodes.empty());
      continue;
    }
    // Named: the file, and for operator errors the node.
    CHECK(g.error().message.starts_with(f.string() + ": "));
    ++errors[g.error().code.message()];
  }
  std::string summary;
  for (const auto& [kind, count] : errors)
    summary += " " + kind + " " + std::to_string(count) + ";";
  MESSAGE("libonnx-testdata node models: " << loaded << " loaded," << summary);
  CHECK(loaded > 500);
}

TEST_CASE("onnx: the real PaddleOCR models load with every operator priced") {
  struct Case {
    const char* file;
    const char* shape;
    std::size_t nodes;
    std::size_t fused;
  };
  const fs::path dir = shared_models();
  for (const Case c : {Case{"ch_PP-OCRv4_det_infer.onnx", "x:1,3,640,640", 330, 157},
                       Case{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "x:1,3,48,192", 215, 109}}) {
    const fs::path f = dir / c.file;
    if (!fs::exists(f)) {
      aoe::test::skip("the shared models are not beside this clone (" + f.string() +
                      "; set AOE_SHARED_MODELS)");
      return;
    }
    INFO(c.file);
    const auto g = aoe::load_onnx(f, {.input_shapes = *aoe::parse_input_shape(c.shape)});
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(g->name == fs::path(c.file).stem().string());
    CHECK(g->nodes.size() == c.nodes);
    CHECK(aoe::fuse(*g).size() == c.fused);
    check_priced(*g);
  }
}

#else

TEST_CASE("onnx: the ONNX tests need the aoe::onnx component") {
  aoe::test::skip(
      "this build has no ONNX import (apt-get install libonnx-dev libprotobuf-dev "
      "protobuf-compiler, then reconfigure)");
}

#endif

TEST_CASE("onnx: a node reading its own output, or a later node's, is refused before indexing") {
  OnnxModel self;
  self.input("x", {1, 8});
  self.node("Add", {"x", "y"}, {"y"}, "loop");
  self.output("y");
  const auto a = aoe::parse_onnx(self.bytes(), "self.onnx");
  REQUIRE_FALSE(a.has_value());
  CHECK(a.error().message.find("node 'loop' (Add) reads its own output 'y' (a cycle") !=
        std::string::npos);
  OnnxModel cycle;
  cycle.input("x", {1, 8});
  cycle.node("Add", {"x", "b"}, {"a"}, "first");
  cycle.node("Relu", {"a"}, {"b"}, "second");
  cycle.output("b");
  const auto b = aoe::parse_onnx(cycle.bytes(), "cycle.onnx");
  REQUIRE_FALSE(b.has_value());
  CHECK(b.error().message.find("node 'first' (Add) reads 'b' before node 'second' (Relu) "
                               "produces it") != std::string::npos);
}

TEST_CASE("onnx: a tensor whose byte count overflows is an error, not a crash") {
  OnnxModel m;
  m.input("x", {4294967296, 4294967296});
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.output("y");
  const auto g = aoe::parse_onnx(m.bytes(), "big.onnx");
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().message.find("the element count overflows a 64-bit integer") !=
        std::string::npos);
}

TEST_CASE(
    "onnx: a Conv whose input rank differs from its weight's is an error (fuzzing: SIGSEGV)") {
  // Found by fuzz/aoe_fuzz_onnx: libonnx 1.12's Conv shape inference reads out of bounds.
  OnnxModel m;
  m.input("x", {3, 8}).weight("w", {4, 3, 3, 7});
  auto& n = m.node("Conv", {"x", "w"}, {"c"}, "conv");
  aoe::test::set_ints(n, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.output("y");
  const auto g = aoe::parse_onnx(m.bytes(), "rank.onnx");
  REQUIRE_FALSE(g.has_value());
  CHECK(g.error().message.find("node 'conv' (Conv): input 'x' has rank 2 (expected at least 3") !=
        std::string::npos);
  OnnxModel w;
  w.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3});
  w.node("Conv", {"x", "w"}, {"y"}, "conv");
  w.output("y");
  const auto gw = aoe::parse_onnx(w.bytes(), "rank.onnx");
  REQUIRE_FALSE(gw.has_value());
  CHECK(gw.error().message.find("has rank 4 and weight 'w' rank 3") != std::string::npos);
}

TEST_CASE("onnx: a Conv fed a wrong rank by an earlier node is an error, never a crash") {
  // The rank of 'f' is known only after shape inference, so the loader cannot check it
  // beforehand; libonnx 1.12 reads out of bounds on it. The inference that could crash runs in
  // a child process first.
  OnnxModel m;
  m.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 7});
  m.node("Flatten", {"x"}, {"f"}, "flatten");
  auto& n = m.node("Conv", {"f", "w"}, {"c"}, "conv");
  aoe::test::set_ints(n, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.output("y");
  const auto g = aoe::parse_onnx(m.bytes(), "late_rank.onnx");
  REQUIRE_FALSE(g.has_value());
  INFO(g.error().message);
  CHECK(g.error().message.starts_with("late_rank.onnx: "));
  // libonnx's inference crashes on it (SIGSEGV in the child); the test process lives on.
  CHECK(g.error().message.find("shape inference crashed on this model (signal") !=
        std::string::npos);
  CHECK(g.error().message.find("in a child process") != std::string::npos);
}

TEST_CASE("onnx: a valid CNN whose Conv inputs come from earlier nodes loads (guarded inference)") {
  OnnxModel m;
  m.input("x", {1, 3, 8, 8}).weight("w1", {4, 3, 3, 3}).weight("w2", {4, 4, 3, 3});
  auto& c1 = m.node("Conv", {"x", "w1"}, {"a"}, "conv1");
  aoe::test::set_ints(c1, "pads", {1, 1, 1, 1});
  m.node("Relu", {"a"}, {"b"}, "relu");
  auto& c2 = m.node("Conv", {"b", "w2"}, {"y"}, "conv2");
  aoe::test::set_ints(c2, "pads", {1, 1, 1, 1});
  m.output("y");
  const auto g = aoe::parse_onnx(m.bytes(), "cnn.onnx");
  REQUIRE(g.has_value());
  CHECK(g->nodes.size() == 3);
}

TEST_CASE("onnx: a Conv whose weight has no usable shape is an error, never a crash") {
  // Found by fuzz/aoe_fuzz_onnx (UBSan: operator[] on an empty shape): a weight of a type the
  // loader does not describe (COMPLEX64) left the Conv mapping without a weight shape.
  OnnxModel m;
  m.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3});
  auto* w = m.proto().mutable_graph()->mutable_initializer(0);
  w->set_data_type(onnx::TensorProto_DataType_COMPLEX64);
  for (int i = 0; i < 108; ++i) w->add_float_data(0.0F);  // two floats an element
  auto& n = m.node("Conv", {"x", "w"}, {"c"}, "conv");
  aoe::test::set_ints(n, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.output("y");
  const auto g = aoe::parse_onnx(m.bytes(), "complex.onnx");
  REQUIRE_FALSE(g.has_value());
  INFO(g.error().message);
  CHECK(g.error().message.find("node 'conv' (Conv)") != std::string::npos);
}

TEST_CASE("onnx: window attributes whose pads overflow are an error, and 1-D pads are kept") {
  OnnxModel m;
  m.input("x", {1, 3, 8, 8}).weight("w", {4, 3, 3, 3});
  auto& n = m.node("MaxPool", {"x"}, {"y"}, "pool");
  aoe::test::set_ints(n, "kernel_shape", {2, 2});
  aoe::test::set_ints(n, "pads", {0, 0, 2147483648, 0});
  m.output("y");
  const auto g = aoe::parse_onnx(m.bytes(), "pads.onnx");
  REQUIRE_FALSE(g.has_value());
  INFO(g.error().message);
  CHECK(g.error().message.find("node 'pool' (MaxPool)") != std::string::npos);

  OnnxModel one;
  one.input("x", {1, 3, 16}).weight("w", {4, 3, 3});
  auto& c = one.node("Conv", {"x", "w"}, {"y"}, "conv1d");
  aoe::test::set_ints(c, "pads", {2, 0});
  one.output("y");
  const auto g1 = aoe::parse_onnx(one.bytes(), "conv1d.onnx");
  REQUIRE_MESSAGE(g1.has_value(), g1.error().message);
  const auto& pads = std::get<std::vector<std::int64_t>>(g1->nodes.at(0).attributes.at("pads"));
  CHECK(pads == std::vector<std::int64_t>{0, 0, 2, 0});
}

TEST_CASE("onnx: an axis outside [-rank, rank) is an error naming the node, never a huge loop") {
  // Found by the onnx fuzz target: Softmax (opset < 13) with axis -2^62 looped from the axis to
  // the rank, allocating until the process ran out of memory. libonnx 1.12's shape inference
  // checks the axis of Softmax only from opset 13 on; the mapping checks every axis it reads.
  const auto refused = [](OnnxModel& m, const std::string& what,
                          int type = onnx::TensorProto_DataType_FLOAT) {
    m.output("y", type);
    const auto g = aoe::parse_onnx(m.bytes(), "axis.onnx");
    REQUIRE_FALSE(g.has_value());
    INFO(g.error().message);
    CHECK(g.error().code == aoe::make_error_code(aoe::Errc::schema_error));
    CHECK(g.error().message.starts_with("axis.onnx: "));
    CHECK(g.error().message.find(what) != std::string::npos);
  };
  SUBCASE("Softmax, opset 11, axis -2^62") {
    OnnxModel m(11);
    m.input("x", {2, 3, 8});
    aoe::test::set_int(m.node("Softmax", {"x"}, {"y"}, "soft"), "axis", -(std::int64_t{1} << 62));
    refused(m,
            "node 'soft' (Softmax): axis -4611686018427387904 is outside [-rank, rank) of the "
            "rank-3 input");
  }
  SUBCASE("LogSoftmax, opset 11, axis -2^63") {
    OnnxModel m(11);
    m.input("x", {2, 3, 8});
    aoe::test::set_int(m.node("LogSoftmax", {"x"}, {"y"}, "logsoft"), "axis",
                       std::numeric_limits<std::int64_t>::min());
    refused(m,
            "node 'logsoft' (LogSoftmax): axis -9223372036854775808 is outside [-rank, rank) "
            "of the rank-3 input");
  }
  SUBCASE("ArgMax (shape inference names it)") {
    OnnxModel m(13);
    m.input("x", {2, 3, 8});
    aoe::test::set_int(m.node("ArgMax", {"x"}, {"y"}, "argmax"), "axis", -4);
    refused(m, "node name: argmax", onnx::TensorProto_DataType_INT64);
  }
  SUBCASE("ReduceSum's axes input (shape inference names it)") {
    OnnxModel m(13);
    m.input("x", {2, 3, 8}).ints("axes", {0, 100});
    m.node("ReduceSum", {"x", "axes"}, {"y"}, "sum");
    refused(m, "node name: sum");
  }
  SUBCASE("the edges -rank and rank - 1 are in range") {
    OnnxModel m(11);
    m.input("x", {2, 3, 8});
    aoe::test::set_int(m.node("Softmax", {"x"}, {"s"}, "soft"), "axis", -3);
    aoe::test::set_int(m.node("ArgMax", {"s"}, {"y"}, "argmax"), "axis", 2);
    m.output("y", onnx::TensorProto_DataType_INT64);
    const auto g = aoe::parse_onnx(m.bytes(), "axis.onnx");
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(attr<std::vector<std::int64_t>>(g->nodes.at(0), "axes") ==
          std::vector<std::int64_t>{0, 1, 2});
    CHECK(attr<std::vector<std::int64_t>>(g->nodes.at(1), "axes") == std::vector<std::int64_t>{2});
  }
}

TEST_CASE("onnx: a stored tensor whose data does not match its dims is an error naming it") {
  // Found by the onnx fuzz target: an INT64 initializer with dims [2] and 2 bytes of raw_data
  // crashed libonnx 1.12's shape inference (it copies raw_data by its length into a vector
  // sized by the element count).
  const auto refused = [](const OnnxModel& m, const std::string& what) {
    const auto g = aoe::parse_onnx(m.bytes(), "data.onnx");
    REQUIRE_FALSE(g.has_value());
    INFO(g.error().message);
    CHECK(g.error().code == aoe::make_error_code(aoe::Errc::schema_error));
    CHECK(g.error().message.find("data.onnx: " + what) != std::string::npos);
  };
  const auto reshape = [](OnnxModel& m) -> onnx::TensorProto& {
    m.input("x", {4, 6});
    m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
    m.output("y");
    auto& graph = *m.proto().mutable_graph();
    auto* t = graph.add_initializer();
    t->set_name("shape");
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(2);
    return *t;
  };
  SUBCASE("raw_data shorter than the dims say (the finding)") {
    OnnxModel m(13);
    reshape(m).set_raw_data(std::string("\x06\x04", 2));
    refused(m,
            "initializer 'shape' (INT64, dims [2]): raw_data holds 2 bytes, not the 2 x 8 "
            "its dims and type need");
  }
  SUBCASE("raw_data longer than the dims say") {
    OnnxModel m(13);
    reshape(m).set_raw_data(std::string(24, '\0'));
    refused(m, "initializer 'shape' (INT64, dims [2]): raw_data holds 24 bytes, not the 2 x 8");
  }
  SUBCASE("typed values fewer than the dims say") {
    OnnxModel m(13);
    reshape(m).add_int64_data(24);
    refused(m, "initializer 'shape' (INT64, dims [2]) holds 1 values, not the 2 x 1 its dims need");
  }
  SUBCASE("a Constant node's tensor") {
    OnnxModel m(13);
    m.input("x", {4, 6});
    auto& c = m.node("Constant", {}, {"shape"}, "const");
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto_AttributeType_TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
    a->mutable_t()->add_dims(2);
    a->mutable_t()->set_raw_data(std::string(12, '\0'));
    m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
    m.output("y");
    refused(m,
            "node 'const' (Constant) attribute 'value' (INT64, dims [2]): raw_data holds 12 "
            "bytes");
  }
  SUBCASE("matching raw and typed data load") {
    OnnxModel m(13);
    std::string raw(16, '\0');
    const std::int64_t dims[2] = {6, 4};
    std::memcpy(raw.data(), dims, sizeof dims);
    reshape(m).set_raw_data(raw);
    const auto g = aoe::parse_onnx(m.bytes(), "data.onnx");
    REQUIRE_MESSAGE(g.has_value(), g.error().message);
    CHECK(g->nodes.at(0).outputs.at(0).desc.shape == std::vector<std::int64_t>{6, 4});
  }
}
