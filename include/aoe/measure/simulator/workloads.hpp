// Named workloads: the operator shapes of ResNet-50 v1.5 and BERT-base, shared by tests,
// benchmarks and the research harness.
#ifndef AOE_MEASURE_SIMULATOR_WORKLOADS_HPP
#define AOE_MEASURE_SIMULATOR_WORKLOADS_HPP

#include "aoe/op/operator_desc.hpp"
#include "aoe/op/tensor.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aoe::sim::workloads {

namespace detail {

inline TensorDesc fp16(std::vector<std::int64_t> shape, Format f = Format::ND) {
  return {std::move(shape), DataType::float16, f};
}

/// A 2-D convolution (NCHW input, OIHW filter), `pad` on every side.
inline OperatorDesc conv(std::string name, std::string type, std::int64_t n, std::int64_t cin,
                         std::int64_t hw, std::int64_t cout, std::int64_t k, std::int64_t stride,
                         std::int64_t pad) {
  OperatorDesc op;
  op.type = std::move(type);
  op.name = std::move(name);
  const std::int64_t out = (hw + 2 * pad - k) / stride + 1;
  op.inputs = {fp16({n, cin, hw, hw}, Format::NCHW), fp16({cout, cin, k, k}, Format::NCHW)};
  op.outputs = {fp16({n, cout, out, out}, Format::NCHW)};
  op.attributes["strides"] = std::vector<std::int64_t>{1, 1, stride, stride};
  op.attributes["pads"] = std::vector<std::int64_t>{pad, pad, pad, pad};
  op.attributes["dilations"] = std::vector<std::int64_t>{1, 1, 1, 1};
  op.attributes["data_format"] = std::string("NCHW");
  if (op.type.find('+') != std::string::npos) {
    std::size_t start = 0;
    while (true) {
      const auto plus = op.type.find('+', start);
      op.members.push_back(op.type.substr(start, plus == std::string::npos ? plus : plus - start));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  }
  return op;
}

inline OperatorDesc matmul(std::string name, std::string type, std::int64_t m, std::int64_t k,
                           std::int64_t n, bool bias) {
  OperatorDesc op;
  op.type = std::move(type);
  op.name = std::move(name);
  op.inputs = {fp16({m, k}), fp16({k, n})};
  if (bias) op.inputs.push_back(fp16({n}));
  op.outputs = {fp16({m, n})};
  op.attributes["transpose_a"] = false;
  op.attributes["transpose_b"] = false;
  if (op.type.find('+') != std::string::npos) {
    std::size_t start = 0;
    while (true) {
      const auto plus = op.type.find('+', start);
      op.members.push_back(op.type.substr(start, plus == std::string::npos ? plus : plus - start));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  }
  return op;
}

}  // namespace detail

/// The distinct convolutions of ResNet-50 v1.5 (He et al., CVPR 2016; v1.5 puts the stride in
/// the 3x3 conv as in torchvision), fp16, NCHW, 224x224 input: the 7x7/2 stem, and per stage
/// (56/28/14/7, widths 64/128/256/512) the first block's 1x1 reduce, 3x3 (stride 2 from stage
/// 3), 1x1 expand and 1x1 projection, and the later blocks' 1x1 reduce and (from stage 3) their
/// stride-1 3x3: 24 layers (res2a_branch2c and res2a_branch1 share a shape but are two layers),
/// named after the layers (res2a_branch2a ...).
[[nodiscard]] inline std::vector<OperatorDesc> resnet50_convolutions(int batch = 32) {
  const std::int64_t n = batch;
  std::vector<OperatorDesc> ops;
  ops.push_back(detail::conv("conv1", "Conv2D", n, 3, 224, 64, 7, 2, 3));
  const std::int64_t widths[4] = {64, 128, 256, 512};
  const std::int64_t sizes[4] = {56, 28, 14, 7};
  std::int64_t in_channels = 64;
  for (int s = 0; s < 4; ++s) {
    const std::string stage = "res" + std::to_string(s + 2);
    const std::int64_t w = widths[s];
    const std::int64_t out = sizes[s];
    const std::int64_t stride = s == 0 ? 1 : 2;
    const std::int64_t in_size = out * stride;
    ops.push_back(
        detail::conv(stage + "a_branch2a", "Conv2D", n, in_channels, in_size, w, 1, 1, 0));
    ops.push_back(detail::conv(stage + "a_branch2b", "Conv2D", n, w, in_size, w, 3, stride, 1));
    ops.push_back(detail::conv(stage + "a_branch2c", "Conv2D", n, w, out, 4 * w, 1, 1, 0));
    ops.push_back(
        detail::conv(stage + "a_branch1", "Conv2D", n, in_channels, in_size, 4 * w, 1, stride, 0));
    ops.push_back(detail::conv(stage + "b_branch2a", "Conv2D", n, 4 * w, out, w, 1, 1, 0));
    if (stride != 1) {
      ops.push_back(detail::conv(stage + "b_branch2b", "Conv2D", n, w, out, w, 3, 1, 1));
    }
    in_channels = 4 * w;
  }
  return ops;
}

/// The fully connected layer of ResNet-50: [batch, 2048] x [2048, 1000] + bias.
[[nodiscard]] inline OperatorDesc resnet50_fc(int batch = 32) {
  return detail::matmul("fc1000", "MatMul+BiasAdd", batch, 2048, 1000, true);
}

/// Other ResNet-50 operators as an inference graph fuses them: Conv+BN+ReLU for the stem, the
/// 3x3/2 max pool, a residual Add+Relu per stage, the 7x7 global average pool and the fc.
[[nodiscard]] inline std::vector<OperatorDesc> resnet50_other_operators(int batch = 32) {
  const std::int64_t n = batch;
  std::vector<OperatorDesc> ops;
  ops.push_back(
      detail::conv("conv1_bn_conv1_conv1_relu", "Conv2D+BatchNorm+Relu", n, 3, 224, 64, 7, 2, 3));
  OperatorDesc pool;
  pool.type = "MaxPool";
  pool.name = "pool1";
  pool.inputs = {detail::fp16({n, 64, 112, 112}, Format::NCHW)};
  pool.outputs = {detail::fp16({n, 64, 56, 56}, Format::NCHW)};
  pool.attributes["ksize"] = std::vector<std::int64_t>{3, 3};
  pool.attributes["strides"] = std::vector<std::int64_t>{2, 2};
  pool.attributes["pads"] = std::vector<std::int64_t>{1, 1, 1, 1};
  ops.push_back(pool);
  const std::int64_t channels[4] = {256, 512, 1024, 2048};
  const std::int64_t sizes[4] = {56, 28, 14, 7};
  for (int s = 0; s < 4; ++s) {
    OperatorDesc add;
    add.type = "Add+Relu";
    add.members = {"Add", "Relu"};
    add.name = "res" + std::to_string(s + 2) + "a_add_relu";
    const auto t = detail::fp16({n, channels[s], sizes[s], sizes[s]}, Format::NCHW);
    add.inputs = {t, t};
    add.outputs = {t};
    ops.push_back(add);
  }
  OperatorDesc avg;
  avg.type = "AvgPool";
  avg.name = "pool5";
  avg.inputs = {detail::fp16({n, 2048, 7, 7}, Format::NCHW)};
  avg.outputs = {detail::fp16({n, 2048, 1, 1}, Format::NCHW)};
  avg.attributes["ksize"] = std::vector<std::int64_t>{7, 7};
  avg.attributes["strides"] = std::vector<std::int64_t>{1, 1};
  ops.push_back(avg);
  ops.push_back(resnet50_fc(batch));
  return ops;
}

/// The MatMuls of one BERT-base encoder layer and the pooler (Devlin et al., NAACL 2019:
/// hidden 768, 12 heads of 64, FFN 3072), fp16, tokens = batch * seq: the Q/K/V and output
/// projections (768x768 + bias), FFN up (768x3072 + bias + Gelu) and down (3072x768 + bias),
/// the attention BatchMatMuls over batch*12 heads (Q K^T: [S,64]x[64,S]; P V: [S,S]x[S,64]),
/// and the pooler ([batch,768]x[768,768] + bias + Tanh).
[[nodiscard]] inline std::vector<OperatorDesc> bert_base_matmuls(int batch = 16, int seq = 128) {
  const std::int64_t tokens = static_cast<std::int64_t>(batch) * seq;
  std::vector<OperatorDesc> ops;
  ops.push_back(detail::matmul("attention/self/query", "MatMul+BiasAdd", tokens, 768, 768, true));
  ops.push_back(detail::matmul("attention/self/key", "MatMul+BiasAdd", tokens, 768, 768, true));
  ops.push_back(detail::matmul("attention/self/value", "MatMul+BiasAdd", tokens, 768, 768, true));
  ops.push_back(detail::matmul("attention/output/dense", "MatMul+BiasAdd", tokens, 768, 768, true));
  ops.push_back(
      detail::matmul("intermediate/dense", "MatMul+BiasAdd+Gelu", tokens, 768, 3072, true));
  ops.push_back(detail::matmul("output/dense", "MatMul+BiasAdd", tokens, 3072, 768, true));
  for (int i = 0; i < 2; ++i) {
    OperatorDesc bmm;
    bmm.type = "BatchMatMul";
    bmm.name = i == 0 ? "attention/self/MatMul" : "attention/self/MatMul_1";
    const std::int64_t b = batch, h = 12, s = seq;
    if (i == 0) {
      bmm.inputs = {detail::fp16({b, h, s, 64}), detail::fp16({b, h, s, 64})};
      bmm.attributes["adj_x1"] = false;
      bmm.attributes["adj_x2"] = true;
      bmm.outputs = {detail::fp16({b, h, s, s})};
    } else {
      bmm.inputs = {detail::fp16({b, h, s, s}), detail::fp16({b, h, s, 64})};
      bmm.attributes["adj_x1"] = false;
      bmm.attributes["adj_x2"] = false;
      bmm.outputs = {detail::fp16({b, h, s, 64})};
    }
    ops.push_back(bmm);
  }
  ops.push_back(detail::matmul("pooler/dense", "MatMul+BiasAdd+Tanh", batch, 768, 768, true));
  return ops;
}

/// The vector operators of a BERT-base layer: the attention SoftmaxV2 over [batch, 12, S, S],
/// the two residual Add + LayerNorm over [tokens, 768].
[[nodiscard]] inline std::vector<OperatorDesc> bert_base_vector_operators(int batch = 16,
                                                                          int seq = 128) {
  const std::int64_t b = batch, s = seq, tokens = b * s;
  std::vector<OperatorDesc> ops;
  OperatorDesc softmax;
  softmax.type = "SoftmaxV2";
  softmax.name = "attention/self/Softmax";
  softmax.inputs = {detail::fp16({b, 12, s, s})};
  softmax.outputs = {detail::fp16({b, 12, s, s})};
  softmax.attributes["axes"] = std::vector<std::int64_t>{-1};
  ops.push_back(softmax);
  OperatorDesc add;
  add.type = "Add";
  add.name = "attention/output/add";
  add.inputs = {detail::fp16({tokens, 768}), detail::fp16({tokens, 768})};
  add.outputs = {detail::fp16({tokens, 768})};
  ops.push_back(add);
  OperatorDesc ln;
  ln.type = "LayerNorm";
  ln.name = "attention/output/LayerNorm";
  ln.inputs = {detail::fp16({tokens, 768}), detail::fp16({768}), detail::fp16({768})};
  ln.outputs = {detail::fp16({tokens, 768})};
  ln.attributes["begin_norm_axis"] = std::int64_t{-1};
  ops.push_back(ln);
  return ops;
}

}  // namespace aoe::sim::workloads

#endif  // AOE_MEASURE_SIMULATOR_WORKLOADS_HPP
