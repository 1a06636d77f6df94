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

/// Evaluates `n` when it is one of the shape-arithmetic operators and its inputs are known;
/// nullopt otherwise (the node then stays in the graph, or is a constant of unknown value).
[[nodiscard]] inline std::optional<ConstTensor> evaluate(const onnx::NodeProto& n,
                                                         const FoldInputs& in) {
  using T = onnx::TensorProto_DataType;
  const std::string& op = n.op_type();
  const auto value = [&](std::size_t i) -> const ConstTensor* {
    return i < in.values.size() ? in.values[i] : nullptr;
  };
  const auto all_known = [&] {
    for (int i = 0; i < n.input_size(); ++i) {
      if (!n.input(i).empty() && value(static_cast<std::size_t>(i)) == nullptr) return false;
    }
    return true;
  };
  const auto ints_of = [](const ConstTensor& c) {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < c.size(); ++i) v.push_back(c.integer(i));
    return v;
  };
  // A list of integers given as an attribute (older opsets) or as input `index` (newer).
  const auto int_list = [&](const char* attribute,
                            std::size_t index) -> std::optional<std::vector<std::int64_t>> {
    if (auto a = ints_attribute(n, attribute)) return a;
    if (index < static_cast<std::size_t>(n.input_size()) &&
        !n.input(static_cast<int>(index)).empty()) {
      if (const auto* v = value(index)) return ints_of(*v);
      return std::nullopt;
    }
    return std::vector<std::int64_t>{};
  };

  if (op == "Constant") {
    if (const auto* a = find_attribute(n, "value")) return read_constant(a->t());
    ConstTensor c;
    if (const auto* a = find_attribute(n, "value_int")) {
      c.ints = {a->i()};
    } else if (const auto* b = find_attribute(n, "value_ints")) {
      c.ints.assign(b->ints().begin(), b->ints().end());
      c.dims = {static_cast<std::int64_t>(c.ints.size())};
    } else if (const auto* f = find_attribute(n, "value_float")) {
      c.elem_type = T::TensorProto_DataType_FLOAT;
      c.reals = {f->f()};
    } else if (const auto* fs = find_attribute(n, "value_floats")) {
      c.elem_type = T::TensorProto_DataType_FLOAT;
      c.reals.assign(fs->floats().begin(), fs->floats().end());
      c.dims = {static_cast<std::int64_t>(c.reals.size())};
    } else {
      return std::nullopt;
    }
    return c;
  }
  if (op == "Shape" || op == "Size") {
    if (in.shapes.empty() || !in.shapes[0]) return std::nullopt;
    const auto& dims = *in.shapes[0];
    ConstTensor c;
    if (op == "Size") {
      const auto count = element_count(dims);
      if (!count) return std::nullopt;
      c.ints = {*count};
      return c;
    }
    const auto rank = static_cast<std::int64_t>(dims.size());
    std::int64_t start =
        std::clamp(fold::normalise_axis(int_attribute(n, "start", 0), rank), std::int64_t{0}, rank);
    std::int64_t end = std::clamp(fold::normalise_axis(int_attribute(n, "end", rank), rank),
                                  std::int64_t{0}, rank);
    for (std::int64_t i = start; i < end; ++i) c.ints.push_back(dims[static_cast<std::size_t>(i)]);
    c.dims = {static_cast<std::int64_t>(c.ints.size())};
    return c;
  }
  if (!all_known() || n.input_size() == 0 || value(0) == nullptr) return std::nullopt;
  const ConstTensor& x = *value(0);

  if (op == "Identity") return x;
  if (op == "Cast") {
    ConstTensor c;
    c.elem_type = static_cast<std::int32_t>(int_attribute(n, "to", T::TensorProto_DataType_FLOAT));
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
  if (op == "Unsqueeze" || op == "Squeeze") {
    const auto axes = int_list("axes", 1);
    if (!axes) return std::nullopt;
    ConstTensor c = x;
    if (op == "Unsqueeze") {
      const auto rank = static_cast<std::int64_t>(x.dims.size() + axes->size());
      std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
      for (const auto a : *axes) {
        const auto k = fold::normalise_axis(a, rank);
        if (k < 0 || k >= rank) return std::nullopt;
        inserted[static_cast<std::size_t>(k)] = true;
      }
      c.dims.clear();
      std::size_t src = 0;
      for (std::int64_t i = 0; i < rank; ++i) {
        c.dims.push_back(inserted[static_cast<std::size_t>(i)] ? 1 : x.dims[src++]);
      }
    } else {
      const auto rank = static_cast<std::int64_t>(x.dims.size());
      c.dims.clear();
      for (std::int64_t i = 0; i < rank; ++i) {
        bool drop = false;
        for (const auto a : *axes) drop = drop || fold::normalise_axis(a, rank) == i;
        if (axes->empty()) drop = x.dims[static_cast<std::size_t>(i)] == 1;
        if (!drop) c.dims.push_back(x.dims[static_cast<std::size_t>(i)]);
      }
    }
    return c;
  }
  if (op == "Reshape" || op == "Flatten") {
    ConstTensor c = x;
    if (op == "Flatten") {
      const auto rank = static_cast<std::int64_t>(x.dims.size());
      const auto axis = fold::normalise_axis(int_attribute(n, "axis", 1), rank);
      std::int64_t outer = 1;
      for (std::int64_t i = 0; i < axis && i < rank; ++i)
        outer *= x.dims[static_cast<std::size_t>(i)];
      c.dims = {outer, static_cast<std::int64_t>(x.size()) / std::max<std::int64_t>(outer, 1)};
      return c;
    }
    if (value(1) == nullptr) return std::nullopt;
    auto target = ints_of(*value(1));
    std::int64_t known = 1;
    std::int64_t infer = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && int_attribute(n, "allowzero", 0) == 0 && i < x.dims.size()) {
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
  if (op == "Concat") {
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    const auto axis = fold::normalise_axis(int_attribute(n, "axis", 0), rank);
    if (axis < 0 || axis >= rank) return std::nullopt;
    ConstTensor c;
    c.elem_type = x.elem_type;
    c.dims = x.dims;
    c.dims[static_cast<std::size_t>(axis)] = 0;
    for (int i = 0; i < n.input_size(); ++i) {
      const auto& t = *value(static_cast<std::size_t>(i));
      if (t.dims.size() != x.dims.size() || t.is_real() != x.is_real()) return std::nullopt;
      c.dims[static_cast<std::size_t>(axis)] += t.dims[static_cast<std::size_t>(axis)];
    }
    std::int64_t outer = 1;
    for (std::int64_t i = 0; i < axis; ++i) outer *= x.dims[static_cast<std::size_t>(i)];
    for (std::int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < n.input_size(); ++i) {
        const auto& t = *value(static_cast<std::size_t>(i));
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
  if (op == "Gather") {
    if (value(1) == nullptr) return std::nullopt;
    const ConstTensor& idx = *value(1);
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    const auto axis = fold::normalise_axis(int_attribute(n, "axis", 0), rank);
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
    for (std::int64_t i = axis + 1; i < rank; ++i)
      c.dims.push_back(x.dims[static_cast<std::size_t>(i)]);
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
  if (op == "Slice") {
    const auto starts = int_list("starts", 1);
    const auto ends = int_list("ends", 2);
    auto axes = int_list("axes", 3);
    auto steps = int_list("steps", 4);
    if (!starts || !ends || !axes || !steps || starts->size() != ends->size()) return std::nullopt;
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    if (axes->empty()) {
      for (std::size_t i = 0; i < starts->size(); ++i)
        axes->push_back(static_cast<std::int64_t>(i));
    }
    if (steps->empty()) steps->assign(starts->size(), 1);
    if (axes->size() != starts->size() || steps->size() != starts->size()) return std::nullopt;
    std::vector<std::int64_t> lo(static_cast<std::size_t>(rank), 0);
    std::vector<std::int64_t> step(static_cast<std::size_t>(rank), 1);
    std::vector<std::int64_t> count = x.dims;
    for (std::size_t i = 0; i < axes->size(); ++i) {
      const auto a = fold::normalise_axis((*axes)[i], rank);
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
      lo[static_cast<std::size_t>(a)] = b;
      step[static_cast<std::size_t>(a)] = s;
      count[static_cast<std::size_t>(a)] = len;
    }
    const auto total = element_count(count);
    if (!total) return std::nullopt;
    ConstTensor c;
    c.elem_type = x.elem_type;
    c.dims = count;
    const auto xs = fold::strides_of(x.dims);
    const auto cs = fold::strides_of(count);
    for (std::int64_t k = 0; k < *total; ++k) {
      std::int64_t at = 0;
      for (std::size_t d = 0; d < count.size(); ++d) {
        const auto coord = (k / cs[d]) % count[d];
        at += (lo[d] + coord * step[d]) * xs[d];
      }
      if (c.is_real()) {
        c.reals.push_back(x.reals[static_cast<std::size_t>(at)]);
      } else {
        c.ints.push_back(x.ints[static_cast<std::size_t>(at)]);
      }
    }
    return c;
  }
  if (op == "ConstantOfShape") {
    ConstTensor c;
    c.dims = ints_of(x);
    const auto total = element_count(c.dims);
    if (!total || *total > max_folded_elements) return std::nullopt;
    std::optional<ConstTensor> fill;
    if (const auto* a = find_attribute(n, "value")) fill = read_constant(a->t());
    if (fill && fill->size() != 1) return std::nullopt;
    c.elem_type = fill ? fill->elem_type : T::TensorProto_DataType_FLOAT;
    if (c.is_real()) {
      c.reals.assign(static_cast<std::size_t>(*total), fill ? fill->real(0) : 0.0);
    } else {
      c.ints.assign(static_cast<std::size_t>(*total), fill ? fill->integer(0) : 0);
    }
    return c;
  }
  if (op == "Range") {
    if (value(1) == nullptr || value(2) == nullptr) return std::nullopt;
    ConstTensor c;
    c.elem_type = x.elem_type;
    const double start = x.real(0);
    const double limit = value(1)->real(0);
    const double delta = value(2)->real(0);
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
  if (op == "Expand") {
    if (value(1) == nullptr) return std::nullopt;
    const auto target = fold::broadcast({x.dims, ints_of(*value(1))});
    if (!target) return std::nullopt;
    ConstTensor shape_only;
    shape_only.dims = *target;
    shape_only.ints.assign(static_cast<std::size_t>(element_count(*target).value_or(0)), 0);
    return fold::elementwise(
        {&x, &shape_only}, x.elem_type, [](const std::vector<double>& a) { return a[0]; },
        [](const std::vector<std::int64_t>& a) { return a[0]; });
  }

  std::vector<const ConstTensor*> args;
  for (int i = 0; i < n.input_size(); ++i) args.push_back(value(static_cast<std::size_t>(i)));
  using R = std::vector<double>;
  using I = std::vector<std::int64_t>;
  const auto same = x.elem_type;
  const auto boolean = T::TensorProto_DataType_BOOL;
  if (op == "Add") {
    return fold::elementwise(
        args, same, [](const R& a) { return a[0] + a[1]; }, [](const I& a) { return a[0] + a[1]; });
  }
  if (op == "Sub") {
    return fold::elementwise(
        args, same, [](const R& a) { return a[0] - a[1]; }, [](const I& a) { return a[0] - a[1]; });
  }
  if (op == "Mul") {
    return fold::elementwise(
        args, same, [](const R& a) { return a[0] * a[1]; }, [](const I& a) { return a[0] * a[1]; });
  }
  if (op == "Div") {
    for (std::size_t i = 0; !x.is_real() && i < args[1]->size(); ++i) {
      if (args[1]->integer(i) == 0) return std::nullopt;
    }
    return fold::elementwise(
        args, same, [](const R& a) { return a[0] / a[1]; }, [](const I& a) { return a[0] / a[1]; });
  }
  if (op == "Max" || op == "Min") {
    const bool max = op == "Max";
    return fold::elementwise(
        args, same,
        [max](const R& a) {
          return max ? *std::max_element(a.begin(), a.end())
                     : *std::min_element(a.begin(), a.end());
        },
        [max](const I& a) {
          return max ? *std::max_element(a.begin(), a.end())
                     : *std::min_element(a.begin(), a.end());
        });
  }
  if (op == "Neg") {
    return fold::elementwise(
        args, same, [](const R& a) { return -a[0]; }, [](const I& a) { return -a[0]; });
  }
  if (op == "Abs") {
    return fold::elementwise(
        args, same, [](const R& a) { return std::abs(a[0]); },
        [](const I& a) { return a[0] < 0 ? -a[0] : a[0]; });
  }
  if (op == "Floor" || op == "Ceil" || op == "Sqrt") {
    if (!x.is_real()) return std::nullopt;
    return fold::elementwise(
        args, same,
        [&op](const R& a) {
          return op == "Floor"  ? std::floor(a[0])
                 : op == "Ceil" ? std::ceil(a[0])
                                : std::sqrt(a[0]);
        },
        [](const I& a) { return a[0]; });
  }
  if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual") {
    const auto cmp = [&op](double a, double b) {
      if (op == "Equal") return a == b;
      if (op == "Less") return a < b;
      if (op == "Greater") return a > b;
      if (op == "LessOrEqual") return a <= b;
      return a >= b;
    };
    return fold::elementwise(
        args, boolean, [&](const R& a) { return cmp(a[0], a[1]) ? 1.0 : 0.0; },
        [&](const I& a) -> std::int64_t {
          if (op == "Equal") return a[0] == a[1];
          if (op == "Less") return a[0] < a[1];
          if (op == "Greater") return a[0] > a[1];
          if (op == "LessOrEqual") return a[0] <= a[1];
          return a[0] >= a[1];
        });
  }
  if (op == "Not") {
    return fold::elementwise(
        args, boolean, [](const R& a) { return a[0] == 0 ? 1.0 : 0.0; },
        [](const I& a) -> std::int64_t { return a[0] == 0; });
  }
  if (op == "And" || op == "Or") {
    const bool conj = op == "And";
    return fold::elementwise(
        args, boolean,
        [conj](const R& a) {
          return (conj ? (a[0] != 0 && a[1] != 0) : (a[0] != 0 || a[1] != 0)) ? 1.0 : 0.0;
        },
        [conj](const I& a) -> std::int64_t {
          return conj ? (a[0] != 0 && a[1] != 0) : (a[0] != 0 || a[1] != 0);
        });
  }
  if (op == "Where" && args.size() == 3) {
    return fold::elementwise(
        args, args[1]->elem_type, [](const R& a) { return a[0] != 0 ? a[1] : a[2]; },
        [](const I& a) { return a[0] != 0 ? a[1] : a[2]; });
  }
  return std::nullopt;
}

}  // namespace aoe::onnx_import::detail

#endif  // AOE_GRAPH_ONNX_DETAIL_CONSTANT_FOLDING_HPP
