// Private: values of small constant tensors and the evaluation of the operators that compute
// shapes in exported models (Shape -> Cast -> Slice -> Concat -> Reshape ...), so that shape
// inference sees every Reshape/Expand/Resize/Tile target as a constant. Only what exporters
// emit for shape arithmetic is evaluated; results larger than `max_folded_elements` are left
// to the graph (their shapes still come from shape inference).
#ifndef AOE_GRAPH_ONNX_DETAIL_CONSTANT_FOLDING_HPP
#define AOE_GRAPH_ONNX_DETAIL_CONSTANT_FOLDING_HPP

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::onnx_import::detail {

/// Constant tensors up to this many elements are evaluated (shape arithmetic is tiny).
inline constexpr std::int64_t max_folded_elements = 1 << 16;

/// A constant tensor's value: integers (and booleans) in `ints`, floating point in `reals`.
struct ConstTensor {
  std::int32_t elem_type = onnx::TensorProto_DataType_INT64;
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;

  [[nodiscard]] bool is_real() const noexcept {
    return elem_type == onnx::TensorProto_DataType_FLOAT ||
           elem_type == onnx::TensorProto_DataType_DOUBLE;
  }
  [[nodiscard]] std::size_t size() const noexcept { return is_real() ? reals.size() : ints.size(); }
  [[nodiscard]] double real(std::size_t i) const {
    return is_real() ? reals[i] : static_cast<double>(ints[i]);
  }
  [[nodiscard]] std::int64_t integer(std::size_t i) const {
    return is_real() ? static_cast<std::int64_t>(reals[i]) : ints[i];
  }
};

/// Element count of `dims`, or nullopt when a dimension is negative or the count overflows.
[[nodiscard]] inline std::optional<std::int64_t> element_count(
    const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (const auto d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

[[nodiscard]] inline bool is_integer_type(std::int32_t t) noexcept {
  using T = onnx::TensorProto_DataType;
  return t == T::TensorProto_DataType_INT64 || t == T::TensorProto_DataType_INT32 ||
         t == T::TensorProto_DataType_INT16 || t == T::TensorProto_DataType_INT8 ||
         t == T::TensorProto_DataType_UINT8 || t == T::TensorProto_DataType_UINT16 ||
         t == T::TensorProto_DataType_UINT32 || t == T::TensorProto_DataType_BOOL;
}

/// The value of `t` when it is small, stored in the model (not external) and of a type
/// evaluated here (integers, bool, float, double); nullopt otherwise.
[[nodiscard]] inline std::optional<ConstTensor> read_constant(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) return std::nullopt;
  ConstTensor c;
  c.elem_type = t.data_type();
  c.dims.assign(t.dims().begin(), t.dims().end());
  const auto n = element_count(c.dims);
  if (!n || *n > max_folded_elements) return std::nullopt;
  const auto count = static_cast<std::size_t>(*n);
  const std::string& raw = t.raw_data();
  const bool has_raw = t.has_raw_data();
  const auto from_raw = [&](auto tag, auto& into) {
    using V = decltype(tag);
    if (raw.size() != count * sizeof(V)) return false;
    for (std::size_t i = 0; i < count; ++i) {
      V v{};
      std::memcpy(&v, raw.data() + i * sizeof(V), sizeof(V));
      into.push_back(static_cast<std::remove_reference_t<decltype(into[0])>>(v));
    }
    return true;
  };
  using T = onnx::TensorProto_DataType;
  bool ok = false;
  switch (c.elem_type) {
    case T::TensorProto_DataType_FLOAT:
      if (has_raw) {
        ok = from_raw(float{}, c.reals);
      } else {
        c.reals.assign(t.float_data().begin(), t.float_data().end());
        ok = c.reals.size() == count;
      }
      break;
    case T::TensorProto_DataType_DOUBLE:
      if (has_raw) {
        ok = from_raw(double{}, c.reals);
      } else {
        c.reals.assign(t.double_data().begin(), t.double_data().end());
        ok = c.reals.size() == count;
      }
      break;
    case T::TensorProto_DataType_INT64:
      if (has_raw) {
        ok = from_raw(std::int64_t{}, c.ints);
      } else {
        c.ints.assign(t.int64_data().begin(), t.int64_data().end());
        ok = c.ints.size() == count;
      }
      break;
    case T::TensorProto_DataType_INT32:
    case T::TensorProto_DataType_INT16:
    case T::TensorProto_DataType_INT8:
    case T::TensorProto_DataType_UINT8:
    case T::TensorProto_DataType_UINT16:
    case T::TensorProto_DataType_BOOL:
      if (has_raw) {
        if (c.elem_type == T::TensorProto_DataType_INT32) ok = from_raw(std::int32_t{}, c.ints);
        if (c.elem_type == T::TensorProto_DataType_INT16) ok = from_raw(std::int16_t{}, c.ints);
        if (c.elem_type == T::TensorProto_DataType_INT8) ok = from_raw(std::int8_t{}, c.ints);
        if (c.elem_type == T::TensorProto_DataType_UINT8 ||
            c.elem_type == T::TensorProto_DataType_BOOL) {
          ok = from_raw(std::uint8_t{}, c.ints);
        }
        if (c.elem_type == T::TensorProto_DataType_UINT16) ok = from_raw(std::uint16_t{}, c.ints);
      } else {
        c.ints.assign(t.int32_data().begin(), t.int32_data().end());
        ok = c.ints.size() == count;
      }
      break;
    default: return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return c;
}

/// `c` as a TensorProto named `name` (for the model's initializers, so that shape inference
/// reads it).
[[nodiscard]] inline onnx::TensorProto to_tensor_proto(const ConstTensor& c,
                                                       const std::string& name) {
  onnx::TensorProto t;
  t.set_name(name);
  for (const auto d : c.dims) t.add_dims(d);
  using T = onnx::TensorProto_DataType;
  if (c.is_real()) {
    t.set_data_type(c.elem_type);
    for (const auto v : c.reals) {
      if (c.elem_type == T::TensorProto_DataType_FLOAT) {
        t.add_float_data(static_cast<float>(v));
      } else {
        t.add_double_data(v);
      }
    }
  } else if (c.elem_type == T::TensorProto_DataType_INT64) {
    t.set_data_type(c.elem_type);
    for (const auto v : c.ints) t.add_int64_data(v);
  } else {
    t.set_data_type(c.elem_type);
    for (const auto v : c.ints) t.add_int32_data(static_cast<std::int32_t>(v));
  }
  return t;
}

namespace fold {

[[nodiscard]] inline std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> s(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

/// Numpy broadcasting of shapes; nullopt when they do not broadcast.
[[nodiscard]] inline std::optional<std::vector<std::int64_t>> broadcast(
    const std::vector<std::vector<std::int64_t>>& shapes) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<std::int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto& o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) return std::nullopt;
      o = s[i];
    }
  }
  return out;
}

/// Index into `in` (of shape `dims`, broadcast to `out`) of the flat output index `k`.
[[nodiscard]] inline std::size_t broadcast_index(const std::vector<std::int64_t>& dims,
                                                 const std::vector<std::int64_t>& out,
                                                 std::int64_t k) {
  const auto os = strides_of(out);
  const auto is = strides_of(dims);
  std::int64_t idx = 0;
  const std::size_t off = out.size() - dims.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t coord = (k / os[i]) % out[i];
    if (i >= off && dims[i - off] != 1) idx += coord * is[i - off];
  }
  return static_cast<std::size_t>(idx);
}

/// Elementwise op over broadcast inputs; `real` says whether the result is floating point.
inline std::optional<ConstTensor> elementwise(
    const std::vector<const ConstTensor*>& in, std::int32_t out_type,
    const std::function<double(const std::vector<double>&)>& real_op,
    const std::function<std::int64_t(const std::vector<std::int64_t>&)>& int_op) {
  std::vector<std::vector<std::int64_t>> shapes;
  for (const auto* t : in) shapes.push_back(t->dims);
  const auto out = broadcast(shapes);
  if (!out) return std::nullopt;
  const auto n = element_count(*out);
  if (!n || *n > max_folded_elements) return std::nullopt;
  ConstTensor r;
  r.elem_type = out_type;
  r.dims = *out;
  bool any_real = false;
  for (const auto* t : in) any_real = any_real || t->is_real();
  for (std::int64_t k = 0; k < *n; ++k) {
    if (any_real || r.is_real()) {
      std::vector<double> args;
      for (const auto* t : in) args.push_back(t->real(broadcast_index(t->dims, *out, k)));
      const double v = real_op(args);
      if (r.is_real()) {
        r.reals.push_back(v);
      } else {
        r.ints.push_back(static_cast<std::int64_t>(v));
      }
    } else {
      std::vector<std::int64_t> args;
      for (const auto* t : in) args.push_back(t->integer(broadcast_index(t->dims, *out, k)));
      r.ints.push_back(int_op(args));
    }
  }
  return r;
}

[[nodiscard]] inline std::int64_t normalise_axis(std::int64_t axis, std::int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// The elements of `c` as integers.
[[nodiscard]] inline std::vector<std::int64_t> ints_of(const ConstTensor& c) {
  std::vector<std::int64_t> v;
  for (std::size_t i = 0; i < c.size(); ++i) v.push_back(c.integer(i));
  return v;
}

}  // namespace fold

/// Attribute lookups of a node.
[[nodiscard]] inline const onnx::AttributeProto* find_attribute(const onnx::NodeProto& n,
                                                                const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
[[nodiscard]] inline std::int64_t int_attribute(const onnx::NodeProto& n, const std::string& name,
                                                std::int64_t fallback) {
  const auto* a = find_attribute(n, name);
  return a != nullptr && a->type() == onnx::AttributeProto_AttributeType_INT ? a->i() : fallback;
}
[[nodiscard]] inline double float_attribute(const onnx::NodeProto& n, const std::string& name,
                                            double fallback) {
  const auto* a = find_attribute(n, name);
  return a != nullptr && a->type() == onnx::AttributeProto_AttributeType_FLOAT ? a->f() : fallback;
}
[[nodiscard]] inline std::optional<std::vector<std::int64_t>> ints_attribute(
    const onnx::NodeProto& n, const std::string& name) {
  const auto* a = find_attribute(n, name);
  if (a == nullptr || a->type() != onnx::AttributeProto_AttributeType_INTS) return std::nullopt;
  return std::vector<std::int64_t>(a->ints().begin(), a->ints().end());
}
[[nodiscard]] inline std::string string_attribute(const onnx::NodeProto& n, const std::string& name,
                                                  std::string fallback) {
  const auto* a = find_attribute(n, name);
  return a != nullptr && a->type() == onnx::AttributeProto_AttributeType_STRING ? a->s() : fallback;
}

/// What the evaluator knows of the node's inputs: the value of a constant input, the static
/// shape of any input.
struct FoldInputs {
  std::vector<const ConstTensor*> values;  ///< nullptr where not a known constant ("" too)
  std::vector<std::optional<std::vector<std::int64_t>>> shapes;
};

/// A node under evaluation, what is known of its inputs and the lookups its evaluator reads.
struct FoldNode {
  const onnx::NodeProto& node;
  const FoldInputs& in;

  /// The value of input `i`; nullptr when it is not a known constant or not given.
  [[nodiscard]] const ConstTensor* value(std::size_t i) const {
    return i < in.values.size() ? in.values[i] : nullptr;
  }
  /// The value of the first input (known whenever an evaluator that reads values runs).
  [[nodiscard]] const ConstTensor& x() const { return *value(0); }
  /// Whether the first input and every other input given have known values.
  [[nodiscard]] bool values_known() const {
    for (int i = 0; i < node.input_size(); ++i) {
      if (!node.input(i).empty() && value(static_cast<std::size_t>(i)) == nullptr) return false;
    }
    return node.input_size() != 0 && value(0) != nullptr;
  }
  /// The values of all inputs, in order (nullptr for one not given).
  [[nodiscard]] std::vector<const ConstTensor*> args() const {
    std::vector<const ConstTensor*> v;
    for (int i = 0; i < node.input_size(); ++i) v.push_back(value(static_cast<std::size_t>(i)));
    return v;
  }
  /// A list of integers given as an attribute (older opsets) or as input `index` (newer).
  [[nodiscard]] std::optional<std::vector<std::int64_t>> int_list(const char* attribute,
                                                                  std::size_t index) const {
    if (auto a = ints_attribute(node, attribute)) return a;
    if (index < static_cast<std::size_t>(node.input_size()) &&
        !node.input(static_cast<int>(index)).empty()) {
      if (const auto* v = value(index)) return fold::ints_of(*v);
      return std::nullopt;
    }
    return std::vector<std::int64_t>{};
  }
};

/// The evaluators, one per operator or family of operators (the table in `evaluator_of`).
namespace fold {

using Reals = std::vector<double>;
using Ints = std::vector<std::int64_t>;

/// Constant: its `value` tensor, or one of its value_int(s)/value_float(s) attributes.
[[nodiscard]] inline std::optional<ConstTensor> constant(const FoldNode& f) {
  using T = onnx::TensorProto_DataType;
  const auto& n = f.node;
  if (const auto* a = find_attribute(n, "value")) return read_constant(a->t());
  ConstTensor c;
  if (const auto* a = find_attribute(n, "value_int")) {
    c.ints = {a->i()};
  } else if (const auto* b = find_attribute(n, "value_ints")) {
    c.ints.assign(b->ints().begin(), b->ints().end());
    c.dims = {static_cast<std::int64_t>(c.ints.size())};
  } else if (const auto* v = find_attribute(n, "value_float")) {
    c.elem_type = T::TensorProto_DataType_FLOAT;
    c.reals = {v->f()};
  } else if (const auto* fs = find_attribute(n, "value_floats")) {
    c.elem_type = T::TensorProto_DataType_FLOAT;
    c.reals.assign(fs->floats().begin(), fs->floats().end());
    c.dims = {static_cast<std::int64_t>(c.reals.size())};
  } else {
    return std::nullopt;
  }
  return c;
}

/// Shape (dimensions start to end) of an input whose shape is static.
[[nodiscard]] inline std::optional<ConstTensor> shape(const FoldNode& f) {
  if (f.in.shapes.empty() || !f.in.shapes[0]) return std::nullopt;
  const auto& dims = *f.in.shapes[0];
  ConstTensor c;
  const auto rank = static_cast<std::int64_t>(dims.size());
  std::int64_t start =
      std::clamp(normalise_axis(int_attribute(f.node, "start", 0), rank), std::int64_t{0}, rank);
  std::int64_t end =
      std::clamp(normalise_axis(int_attribute(f.node, "end", rank), rank), std::int64_t{0}, rank);
  for (std::int64_t i = start; i < end; ++i) c.ints.push_back(dims[static_cast<std::size_t>(i)]);
  c.dims = {static_cast<std::int64_t>(c.ints.size())};
  return c;
}

/// Size: the element count of an input whose shape is static.
[[nodiscard]] inline std::optional<ConstTensor> size(const FoldNode& f) {
  if (f.in.shapes.empty() || !f.in.shapes[0]) return std::nullopt;
  const auto count = element_count(*f.in.shapes[0]);
  if (!count) return std::nullopt;
  ConstTensor c;
  c.ints = {*count};
  return c;
}

[[nodiscard]] inline std::optional<ConstTensor> identity(const FoldNode& f) { return f.x(); }

/// Cast to a floating-point or integer type (booleans become 0 or 1); nullopt for other types.
[[nodiscard]] inline std::optional<ConstTensor> cast(const FoldNode& f) {
  using T = onnx::TensorProto_DataType;
  const ConstTensor& x = f.x();
  ConstTensor c;
  c.elem_type =
      static_cast<std::int32_t>(int_attribute(f.node, "to", T::TensorProto_DataType_FLOAT));
  c.dims = x.dims;
  if (c.is_real()) {
    for (std::size_t i = 0; i < x.size(); ++i) c.reals.push_back(x.real(i));
  } else if (is_integer_type(c.elem_type)) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::int64_t v = x.integer(i);
      c.ints.push_back(c.elem_type == T::TensorProto_DataType_BOOL ? (v != 0 ? 1 : 0) : v);
    }
  } else {
    return std::nullopt;
  }
  return c;
}

[[nodiscard]] inline std::optional<ConstTensor> unsqueeze(const FoldNode& f) {
  const auto axes = f.int_list("axes", 1);
  if (!axes) return std::nullopt;
  const ConstTensor& x = f.x();
  ConstTensor c = x;
  const auto rank = static_cast<std::int64_t>(x.dims.size() + axes->size());
  std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
  for (const auto a : *axes) {
    const auto k = normalise_axis(a, rank);
    // An axis out of range, or given twice (ONNX requires them unique): not folded.
    if (k < 0 || k >= rank || inserted[static_cast<std::size_t>(k)]) return std::nullopt;
    inserted[static_cast<std::size_t>(k)] = true;
  }
  c.dims.clear();
  std::size_t src = 0;
  for (std::int64_t i = 0; i < rank; ++i) {
    c.dims.push_back(inserted[static_cast<std::size_t>(i)] ? 1 : x.dims[src++]);
  }
  return c;
}

/// Squeeze of the listed axes, or of every axis of size 1 when none is listed.
[[nodiscard]] inline std::optional<ConstTensor> squeeze(const FoldNode& f) {
  const auto axes = f.int_list("axes", 1);
  if (!axes) return std::nullopt;
  const ConstTensor& x = f.x();
  ConstTensor c = x;
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  c.dims.clear();
  for (std::int64_t i = 0; i < rank; ++i) {
    bool drop = false;
    for (const auto a : *axes) drop = drop || normalise_axis(a, rank) == i;
    if (axes->empty()) drop = x.dims[static_cast<std::size_t>(i)] == 1;
    if (!drop) c.dims.push_back(x.dims[static_cast<std::size_t>(i)]);
  }
  return c;
}

/// Reshape to a constant target (0 copies the input's dimension unless allowzero, -1 is
/// inferred); nullopt when the element counts differ.
[[nodiscard]] inline std::optional<ConstTensor> reshape(const FoldNode& f) {
  const ConstTensor& x = f.x();
  ConstTensor c = x;
  if (f.value(1) == nullptr) return std::nullopt;
  auto target = ints_of(*f.value(1));
  std::int64_t known = 1;
  std::int64_t infer = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && int_attribute(f.node, "allowzero", 0) == 0 && i < x.dims.size()) {
      target[i] = x.dims[i];
    }
    if (target[i] == -1) {
      infer = static_cast<std::int64_t>(i);
    } else {
      known *= target[i];
    }
  }
  if (infer >= 0 && known > 0) {
    target[static_cast<std::size_t>(infer)] = static_cast<std::int64_t>(x.size()) / known;
  }
  const auto count = element_count(target);
  if (!count || *count != static_cast<std::int64_t>(x.size())) return std::nullopt;
  c.dims = target;
  return c;
}

[[nodiscard]] inline std::optional<ConstTensor> flatten(const FoldNode& f) {
  const ConstTensor& x = f.x();
  ConstTensor c = x;
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  const auto axis = normalise_axis(int_attribute(f.node, "axis", 1), rank);
  std::int64_t outer = 1;
  for (std::int64_t i = 0; i < axis && i < rank; ++i) outer *= x.dims[static_cast<std::size_t>(i)];
  c.dims = {outer, static_cast<std::int64_t>(x.size()) / std::max<std::int64_t>(outer, 1)};
  return c;
}

/// Concat of inputs of the same rank and kind (real or integer) along `axis`.
[[nodiscard]] inline std::optional<ConstTensor> concat(const FoldNode& f) {
  const ConstTensor& x = f.x();
  const int inputs = f.node.input_size();
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  const auto axis = normalise_axis(int_attribute(f.node, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return std::nullopt;
  ConstTensor c;
  c.elem_type = x.elem_type;
  c.dims = x.dims;
  c.dims[static_cast<std::size_t>(axis)] = 0;
  for (int i = 0; i < inputs; ++i) {
    const auto& t = *f.value(static_cast<std::size_t>(i));
    if (t.dims.size() != x.dims.size() || t.is_real() != x.is_real()) return std::nullopt;
    c.dims[static_cast<std::size_t>(axis)] += t.dims[static_cast<std::size_t>(axis)];
  }
  std::int64_t outer = 1;
  for (std::int64_t i = 0; i < axis; ++i) outer *= x.dims[static_cast<std::size_t>(i)];
  for (std::int64_t o = 0; o < outer; ++o) {
    for (int i = 0; i < inputs; ++i) {
      const auto& t = *f.value(static_cast<std::size_t>(i));
      const auto block = static_cast<std::int64_t>(t.size()) / std::max<std::int64_t>(outer, 1);
      for (std::int64_t k = 0; k < block; ++k) {
        const auto at = static_cast<std::size_t>(o * block + k);
        if (c.is_real()) {
          c.reals.push_back(t.reals[at]);
        } else {
          c.ints.push_back(t.ints[at]);
        }
      }
    }
  }
  return c;
}

/// Gather along `axis` with constant indices (negative ones count from the end).
[[nodiscard]] inline std::optional<ConstTensor> gather(const FoldNode& f) {
  if (f.value(1) == nullptr) return std::nullopt;
  const ConstTensor& x = f.x();
  const ConstTensor& idx = *f.value(1);
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  const auto axis = normalise_axis(int_attribute(f.node, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return std::nullopt;
  const std::int64_t axis_dim = x.dims[static_cast<std::size_t>(axis)];
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::int64_t i = 0; i < axis; ++i) outer *= x.dims[static_cast<std::size_t>(i)];
  for (std::int64_t i = axis + 1; i < rank; ++i) inner *= x.dims[static_cast<std::size_t>(i)];
  ConstTensor c;
  c.elem_type = x.elem_type;
  for (std::int64_t i = 0; i < axis; ++i) c.dims.push_back(x.dims[static_cast<std::size_t>(i)]);
  for (const auto d : idx.dims) c.dims.push_back(d);
  for (std::int64_t i = axis + 1; i < rank; ++i) {
    c.dims.push_back(x.dims[static_cast<std::size_t>(i)]);
  }
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::size_t j = 0; j < idx.size(); ++j) {
      std::int64_t k = idx.integer(j);
      if (k < 0) k += axis_dim;
      if (k < 0 || k >= axis_dim) return std::nullopt;
      for (std::int64_t e = 0; e < inner; ++e) {
        const auto at = static_cast<std::size_t>((o * axis_dim + k) * inner + e);
        if (c.is_real()) {
          c.reals.push_back(x.reals[at]);
        } else {
          c.ints.push_back(x.ints[at]);
        }
      }
    }
  }
  return c;
}

/// The elements of a Slice along every axis of `x`: first index, step and count.
struct SliceWindow {
  std::vector<std::int64_t> lo;
  std::vector<std::int64_t> step;
  std::vector<std::int64_t> count;
};

/// The window of Slice's starts, ends, axes and steps over `x`; nullopt when they disagree in
/// length, name an axis outside `x` or a step of 0.
[[nodiscard]] inline std::optional<SliceWindow> slice_window(const FoldNode& f,
                                                             const ConstTensor& x) {
  const auto starts = f.int_list("starts", 1);
  const auto ends = f.int_list("ends", 2);
  auto axes = f.int_list("axes", 3);
  auto steps = f.int_list("steps", 4);
  if (!starts || !ends || !axes || !steps || starts->size() != ends->size()) return std::nullopt;
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  if (axes->empty()) {
    for (std::size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<std::int64_t>(i));
  }
  if (steps->empty()) steps->assign(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size()) return std::nullopt;
  SliceWindow w{std::vector<std::int64_t>(static_cast<std::size_t>(rank), 0),
                std::vector<std::int64_t>(static_cast<std::size_t>(rank), 1), x.dims};
  for (std::size_t i = 0; i < axes->size(); ++i) {
    const auto a = normalise_axis((*axes)[i], rank);
    if (a < 0 || a >= rank || (*steps)[i] == 0) return std::nullopt;
    // ONNX's Slice: negative indices count from the end, then clamp to the axis.
    const auto dim = x.dims[static_cast<std::size_t>(a)];
    const auto s = (*steps)[i];
    std::int64_t b = (*starts)[i] < 0 ? (*starts)[i] + dim : (*starts)[i];
    std::int64_t e = (*ends)[i] < 0 ? (*ends)[i] + dim : (*ends)[i];
    if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
    } else {
      b = std::clamp<std::int64_t>(b, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
    }
    const std::int64_t len = s > 0 ? std::max<std::int64_t>(0, (e - b + s - 1) / s)
                                   : std::max<std::int64_t>(0, (b - e - s - 1) / (-s));
    w.lo[static_cast<std::size_t>(a)] = b;
    w.step[static_cast<std::size_t>(a)] = s;
    w.count[static_cast<std::size_t>(a)] = len;
  }
  return w;
}

[[nodiscard]] inline std::optional<ConstTensor> slice(const FoldNode& f) {
  const ConstTensor& x = f.x();
  const auto w = slice_window(f, x);
  if (!w) return std::nullopt;
  const auto total = element_count(w->count);
  if (!total) return std::nullopt;
  ConstTensor c;
  c.elem_type = x.elem_type;
  c.dims = w->count;
  const auto xs = strides_of(x.dims);
  const auto cs = strides_of(w->count);
  for (std::int64_t k = 0; k < *total; ++k) {
    std::int64_t at = 0;
    for (std::size_t d = 0; d < w->count.size(); ++d) {
      const auto coord = (k / cs[d]) % w->count[d];
      at += (w->lo[d] + coord * w->step[d]) * xs[d];
    }
    if (c.is_real()) {
      c.reals.push_back(x.reals[static_cast<std::size_t>(at)]);
    } else {
      c.ints.push_back(x.ints[static_cast<std::size_t>(at)]);
    }
  }
  return c;
}

/// ConstantOfShape: the `value` attribute's single element (float 0 without one) repeated.
[[nodiscard]] inline std::optional<ConstTensor> constant_of_shape(const FoldNode& f) {
  using T = onnx::TensorProto_DataType;
  ConstTensor c;
  c.dims = ints_of(f.x());
  const auto total = element_count(c.dims);
  if (!total || *total > max_folded_elements) return std::nullopt;
  std::optional<ConstTensor> fill;
  if (const auto* a = find_attribute(f.node, "value")) fill = read_constant(a->t());
  if (fill && fill->size() != 1) return std::nullopt;
  c.elem_type = fill ? fill->elem_type : T::TensorProto_DataType_FLOAT;
  if (c.is_real()) {
    c.reals.assign(static_cast<std::size_t>(*total), fill ? fill->real(0) : 0.0);
  } else {
    c.ints.assign(static_cast<std::size_t>(*total), fill ? fill->integer(0) : 0);
  }
  return c;
}

[[nodiscard]] inline std::optional<ConstTensor> range(const FoldNode& f) {
  if (f.value(1) == nullptr || f.value(2) == nullptr) return std::nullopt;
  const ConstTensor& x = f.x();
  ConstTensor c;
  c.elem_type = x.elem_type;
  const double start = x.real(0);
  const double limit = f.value(1)->real(0);
  const double delta = f.value(2)->real(0);
  if (delta == 0) return std::nullopt;
  const double len = std::max(0.0, std::ceil((limit - start) / delta));
  if (len > static_cast<double>(max_folded_elements)) return std::nullopt;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(len); ++i) {
    const double v = start + static_cast<double>(i) * delta;
    if (c.is_real()) {
      c.reals.push_back(v);
    } else {
      c.ints.push_back(static_cast<std::int64_t>(v));
    }
  }
  c.dims = {static_cast<std::int64_t>(c.size())};
  return c;
}

[[nodiscard]] inline std::optional<ConstTensor> expand(const FoldNode& f) {
  if (f.value(1) == nullptr) return std::nullopt;
  const ConstTensor& x = f.x();
  const auto target = broadcast({x.dims, ints_of(*f.value(1))});
  if (!target) return std::nullopt;
  ConstTensor shape_only;
  shape_only.dims = *target;
  shape_only.ints.assign(static_cast<std::size_t>(element_count(*target).value_or(0)), 0);
  return elementwise(
      {&x, &shape_only}, x.elem_type, [](const Reals& a) { return a[0]; },
      [](const Ints& a) { return a[0]; });
}

/// Add, Sub, Mul and Div: `Op` of two inputs, of the first input's type.
template <class Op>
[[nodiscard]] std::optional<ConstTensor> arithmetic(const FoldNode& f) {
  return elementwise(
      f.args(), f.x().elem_type, [](const Reals& a) { return Op{}(a[0], a[1]); },
      [](const Ints& a) { return Op{}(a[0], a[1]); });
}

/// Div, left to the graph when an integer divisor is 0.
[[nodiscard]] inline std::optional<ConstTensor> divide(const FoldNode& f) {
  const auto args = f.args();
  for (std::size_t i = 0; !f.x().is_real() && i < args[1]->size(); ++i) {
    if (args[1]->integer(i) == 0) return std::nullopt;
  }
  return arithmetic<std::divides<>>(f);
}

/// Max (`Max` true) or Min of any number of inputs.
template <bool Max>
[[nodiscard]] std::optional<ConstTensor> extremum(const FoldNode& f) {
  const auto pick = [](const auto& a) {
    return Max ? *std::max_element(a.begin(), a.end()) : *std::min_element(a.begin(), a.end());
  };
  return elementwise(f.args(), f.x().elem_type, pick, pick);
}

[[nodiscard]] inline std::optional<ConstTensor> negate(const FoldNode& f) {
  return elementwise(
      f.args(), f.x().elem_type, [](const Reals& a) { return -a[0]; },
      [](const Ints& a) { return -a[0]; });
}

[[nodiscard]] inline std::optional<ConstTensor> absolute(const FoldNode& f) {
  return elementwise(
      f.args(), f.x().elem_type, [](const Reals& a) { return std::abs(a[0]); },
      [](const Ints& a) { return a[0] < 0 ? -a[0] : a[0]; });
}

/// Floor, Ceil and Sqrt: `op` of a floating-point input (integer inputs are left to the graph).
[[nodiscard]] inline std::optional<ConstTensor> real_function(const FoldNode& f,
                                                              double (*op)(double)) {
  if (!f.x().is_real()) return std::nullopt;
  return elementwise(
      f.args(), f.x().elem_type, [op](const Reals& a) { return op(a[0]); },
      [](const Ints& a) { return a[0]; });
}
[[nodiscard]] inline std::optional<ConstTensor> round_down(const FoldNode& f) {
  return real_function(f, [](double v) { return std::floor(v); });
}
[[nodiscard]] inline std::optional<ConstTensor> round_up(const FoldNode& f) {
  return real_function(f, [](double v) { return std::ceil(v); });
}
[[nodiscard]] inline std::optional<ConstTensor> square_root(const FoldNode& f) {
  return real_function(f, [](double v) { return std::sqrt(v); });
}

/// Equal, Less, Greater, LessOrEqual and GreaterOrEqual: `Cmp` of two inputs, a boolean.
template <class Cmp>
[[nodiscard]] std::optional<ConstTensor> compare(const FoldNode& f) {
  return elementwise(
      f.args(), onnx::TensorProto_DataType_BOOL,
      [](const Reals& a) { return Cmp{}(a[0], a[1]) ? 1.0 : 0.0; },
      [](const Ints& a) -> std::int64_t { return Cmp{}(a[0], a[1]); });
}

/// And and Or: `Op` of two inputs read as booleans (non-zero is true), a boolean.
template <class Op>
[[nodiscard]] std::optional<ConstTensor> logical(const FoldNode& f) {
  return elementwise(
      f.args(), onnx::TensorProto_DataType_BOOL,
      [](const Reals& a) { return Op{}(a[0] != 0, a[1] != 0) ? 1.0 : 0.0; },
      [](const Ints& a) -> std::int64_t { return Op{}(a[0] != 0, a[1] != 0); });
}

[[nodiscard]] inline std::optional<ConstTensor> logical_not(const FoldNode& f) {
  return elementwise(
      f.args(), onnx::TensorProto_DataType_BOOL,
      [](const Reals& a) { return a[0] == 0 ? 1.0 : 0.0; },
      [](const Ints& a) -> std::int64_t { return a[0] == 0; });
}

/// Where of a condition and two inputs, of the second input's type.
[[nodiscard]] inline std::optional<ConstTensor> where(const FoldNode& f) {
  const auto args = f.args();
  if (args.size() != 3) return std::nullopt;
  return elementwise(
      args, args[1]->elem_type, [](const Reals& a) { return a[0] != 0 ? a[1] : a[2]; },
      [](const Ints& a) { return a[0] != 0 ? a[1] : a[2]; });
}

/// How one ONNX operator is evaluated.
struct Evaluator {
  std::string_view op;
  std::optional<ConstTensor> (*evaluate)(const FoldNode&);
  /// Whether it needs the values of all its inputs (not so Constant, Shape and Size).
  bool reads_values = true;
};

/// The evaluator of ONNX operator `op`; nullptr for one not evaluated here.
[[nodiscard]] inline const Evaluator* evaluator_of(std::string_view op) {
  static constexpr Evaluator table[] = {
      {"Constant", constant, false},
      {"Shape", shape, false},
      {"Size", size, false},
      {"Identity", identity},
      {"Cast", cast},
      {"Unsqueeze", unsqueeze},
      {"Squeeze", squeeze},
      {"Reshape", reshape},
      {"Flatten", flatten},
      {"Concat", concat},
      {"Gather", gather},
      {"Slice", slice},
      {"ConstantOfShape", constant_of_shape},
      {"Range", range},
      {"Expand", expand},
      {"Add", arithmetic<std::plus<>>},
      {"Sub", arithmetic<std::minus<>>},
      {"Mul", arithmetic<std::multiplies<>>},
      {"Div", divide},
      {"Max", extremum<true>},
      {"Min", extremum<false>},
      {"Neg", negate},
      {"Abs", absolute},
      {"Floor", round_down},
      {"Ceil", round_up},
      {"Sqrt", square_root},
      {"Equal", compare<std::equal_to<>>},
      {"Less", compare<std::less<>>},
      {"Greater", compare<std::greater<>>},
      {"LessOrEqual", compare<std::less_equal<>>},
      {"GreaterOrEqual", compare<std::greater_equal<>>},
      {"Not", logical_not},
      {"And", logical<std::logical_and<>>},
      {"Or", logical<std::logical_or<>>},
      {"Where", where},
  };
  for (const auto& e : table) {
    if (e.op == op) return &e;
  }
  return nullptr;
}

}  // namespace fold

/// Evaluates `n` when it is one of the shape-arithmetic operators and its inputs are known;
/// nullopt otherwise (the node then stays in the graph, or is a constant of unknown value).
[[nodiscard]] inline std::optional<ConstTensor> evaluate(const onnx::NodeProto& n,
                                                         const FoldInputs& in) {
  const fold::Evaluator* e = fold::evaluator_of(n.op_type());
  const FoldNode node{n, in};
  if (e == nullptr || (e->reads_values && !node.values_known())) return std::nullopt;
  return e->evaluate(node);
}

}  // namespace aoe::onnx_import::detail

#endif  // AOE_GRAPH_ONNX_DETAIL_CONSTANT_FOLDING_HPP
