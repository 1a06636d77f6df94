// Reads an ONNX model into a static-shape aoe::Graph (docs/model_format.md#onnx-models), with
// the ONNX project's own library: the protobuf messages, the checker, and shape inference with
// data propagation. Constant shape arithmetic is folded so that every tensor gets a static
// shape; `--input_shape` fixes dynamic input dimensions. Part of the optional component
// aoe::onnx (libonnx-dev, protobuf): include <aoe/onnx.hpp> and link aoe::onnx.
#ifndef AOE_GRAPH_ONNX_ONNX_LOADER_HPP
#define AOE_GRAPH_ONNX_ONNX_LOADER_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/input_shape.hpp"
#include "aoe/graph/model_format.hpp"
#include "aoe/graph/onnx/detail/constant_folding.hpp"
#include "aoe/graph/onnx/detail/operator_mapping.hpp"
#include "aoe/graph/onnx/detail/patterns.hpp"
#include "aoe/io/child_process.hpp"
#include "aoe/io/read_input.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// The ONNX opsets of the default domain this build reads (Debian 12's libonnx 1.12).
inline constexpr std::int64_t onnx_min_opset = 7;
inline constexpr std::int64_t onnx_max_opset = 17;

/// How an ONNX model is read.
struct OnnxOptions {
  InputShapes input_shapes{};  ///< `--input_shape`: static sizes of the model's inputs
  std::string name{};          ///< the graph's name; empty: the file's stem (or the graph's name)
  /// How long the guarded shape inference (run in a child process where libonnx might crash)
  /// may take before the child is killed and the load fails.
  std::chrono::milliseconds inference_limit{std::chrono::minutes(5)};
};

namespace onnx_import::detail {

[[nodiscard]] inline std::optional<DataType> data_type(std::int32_t t) {
  using T = onnx::TensorProto_DataType;
  switch (t) {
    case T::TensorProto_DataType_FLOAT: return DataType::float32;
    case T::TensorProto_DataType_FLOAT16: return DataType::float16;
    case T::TensorProto_DataType_BFLOAT16: return DataType::bfloat16;
    case T::TensorProto_DataType_INT8: return DataType::int8;
    case T::TensorProto_DataType_UINT8: return DataType::uint8;
    case T::TensorProto_DataType_INT32: return DataType::int32;
    case T::TensorProto_DataType_INT64: return DataType::int64;
    case T::TensorProto_DataType_BOOL: return DataType::boolean;
    default: return std::nullopt;
  }
}

[[nodiscard]] inline std::string data_type_name(std::int32_t t) {
  return onnx::TensorProto_DataType_IsValid(t)
             ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t))
             : "type " + std::to_string(t);
}

/// A tensor as shape inference left it: element type and dimensions (nullopt: unknown).
struct TensorInfo {
  std::int32_t elem_type = 0;
  std::vector<std::optional<std::int64_t>> dims;
  bool rank_known = false;
  [[nodiscard]] std::optional<std::vector<std::int64_t>> static_dims() const {
    if (!rank_known) return std::nullopt;
    std::vector<std::int64_t> out;
    for (const auto& d : dims) {
      if (!d || *d < 0) return std::nullopt;
      out.push_back(*d);
    }
    return out;
  }
};

[[nodiscard]] inline TensorInfo info_of(const onnx::TypeProto& type) {
  TensorInfo t;
  if (!type.has_tensor_type()) return t;
  t.elem_type = type.tensor_type().elem_type();
  if (!type.tensor_type().has_shape()) return t;
  t.rank_known = true;
  for (const auto& d : type.tensor_type().shape().dim()) {
    t.dims.push_back(d.has_dim_value() ? std::optional<std::int64_t>(d.dim_value()) : std::nullopt);
  }
  return t;
}

/// Whether `bytes` starts, after white space and a UTF-8 byte-order mark, with '[': JSON text
/// that is not a graph (a graph is an object). Only asked once the protobuf failed to parse: it
/// changes the message, not what is accepted.
[[nodiscard]] inline bool starts_as_json_array(std::string_view bytes) noexcept {
  std::size_t i = bytes.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < bytes.size() &&
         (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r')) {
    ++i;
  }
  return i < bytes.size() && bytes[i] == '[';
}

class OnnxReader {
 public:
  OnnxReader(std::string source, const OnnxOptions& options)
      : source_(std::move(source)), options_(options) {}

  Result<Graph> read(std::string_view bytes) {
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      return fail(Errc::unsupported,
                  "the file is larger than 2 GiB: ONNX keeps such weights as "
                  "external data (only the model file is needed here)");
    }
    if (!model_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      if (sniff_model_format(bytes) == ModelFormat::json) {
        return fail(Errc::parse_error,
                    "this is JSON text, not an ONNX model: an OpenAOE JSON graph is read with "
                    "--framework=json or without --framework (the content decides)");
      }
      if (starts_as_json_array(bytes)) {
        return fail(Errc::parse_error,
                    "this looks like JSON (it starts with '['), not an ONNX model: an OpenAOE "
                    "JSON graph is one object, starting with '{' and holding \"format_version\" "
                    "and \"nodes\" (docs/model_format.md)");
      }
      return fail(Errc::parse_error,
                  "not a valid ONNX model: the protobuf cannot be parsed (a truncated or "
                  "damaged file, or not ONNX)");
    }
    if (!model_.has_graph() || model_.graph().node_size() == 0) {
      return fail(Errc::parse_error,
                  "not an ONNX model: no graph with nodes in it (an empty, truncated or "
                  "foreign protobuf file)");
    }
    if (auto r = check_opset(); !r) return r.error();
    name_nodes();
    if (auto r = check_nodes(); !r) return r.error();
    externals_to_inputs();
    if (auto r = check_tensor_sizes(); !r) return r.error();
    try {
      onnx::checker::check_model(model_);
    } catch (const std::exception& e) {
      return fail(Errc::schema_error,
                  std::string("the ONNX checker rejects the model: ") + e.what());
    }
    if (auto r = fix_inputs(); !r) return r.error();
    if (auto r = fold_and_infer(); !r) return r.error();
    return build();
  }

 private:
  ErrorInfo fail(Errc e, const std::string& what) const {
    return make_error(e, source_ + ": " + what);
  }

  std::string node_label(const onnx::NodeProto& n) const {
    return "node '" + n.name() + "' (" + n.op_type() + ")";
  }

  Result<void> check_opset() {
    bool found = false;
    for (const auto& o : model_.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") {
        opset_ = o.version();
        found = true;
      }
    }
    if (!found) {
      return fail(Errc::schema_error,
                  "the model imports no opset of the default ONNX domain (opset_import)");
    }
    if (opset_ < onnx_min_opset || opset_ > onnx_max_opset) {
      return fail(Errc::unsupported, "opset " + std::to_string(opset_) +
                                         " of the default domain: this build reads "
                                         "ONNX opsets " +
                                         std::to_string(onnx_min_opset) + " to " +
                                         std::to_string(onnx_max_opset) +
                                         " (libonnx 1.12); convert the model with "
                                         "onnx.version_converter");
    }
    return {};
  }

  /// Nodes without a name get "<OpType>_<index>" (index in the file's node list), made unique.
  void name_nodes() {
    std::set<std::string> taken;
    for (const auto& n : model_.graph().node()) {
      if (!n.name().empty()) taken.insert(n.name());
    }
    auto& nodes = *model_.mutable_graph()->mutable_node();
    for (int i = 0; i < nodes.size(); ++i) {
      auto& n = nodes[i];
      if (!n.name().empty()) continue;
      std::string name = n.op_type() + "_" + std::to_string(i);
      for (int k = 1; taken.contains(name); ++k) {
        name = n.op_type() + "_" + std::to_string(i) + "_" + std::to_string(k);
      }
      taken.insert(name);
      n.set_name(name);
    }
  }

  /// The graph must be a DAG with its nodes in topological order (ONNX requires both): a node
  /// reading its own output, or a tensor that a later node produces, is refused here, before
  /// anything indexes the graph.
  Result<void> check_acyclic() const {
    const auto& g = model_.graph();
    std::map<std::string, int> producer;
    for (int i = 0; i < g.node_size(); ++i) {
      for (const auto& o : g.node(i).output()) {
        if (!o.empty()) producer.try_emplace(o, i);
      }
    }
    std::set<std::string> defined;
    for (const auto& in : g.input()) defined.insert(in.name());
    for (const auto& t : g.initializer()) defined.insert(t.name());
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& n = g.node(i);
      for (const auto& in : n.input()) {
        if (in.empty() || defined.contains(in)) continue;
        const auto p = producer.find(in);
        if (p == producer.end()) continue;  // undefined: the checker names it
        if (p->second == i) {
          return fail(Errc::schema_error, node_label(n) + " reads its own output '" + in +
                                              "' (a cycle: the graph must be acyclic)");
        }
        if (p->second > i) {
          return fail(Errc::schema_error,
                      node_label(n) + " reads '" + in + "' before " +
                          node_label(g.node(p->second)) +
                          " produces it: a cycle, or nodes not in topological order");
        }
      }
      for (const auto& o : n.output()) defined.insert(o);
    }
    return {};
  }

  Result<void> check_nodes() const {
    if (auto r = check_acyclic(); !r) return r.error();
    for (const auto& n : model_.graph().node()) {
      if (!n.domain().empty() && n.domain() != "ai.onnx") {
        return fail(Errc::unsupported,
                    node_label(n) + " is of domain '" + n.domain() +
                        "': only operators of the default ONNX domain are read (export without "
                        "custom or contrib operators)");
      }
      if (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan") {
        return fail(Errc::unsupported, node_label(n) +
                                           ": control flow is not tuned (AOE tunes static graphs); "
                                           "export the model with the branch or loop unrolled");
      }
    }
    return {};
  }

  /// Weights stored as external data are not needed, only their dimensions: each becomes a
  /// graph input of its type, so the checker and shape inference never look for the file.
  void externals_to_inputs() {
    auto* g = model_.mutable_graph();
    std::set<std::string> inputs;
    for (const auto& in : g->input()) inputs.insert(in.name());
    auto& inits = *g->mutable_initializer();
    for (int i = inits.size(); i-- > 0;) {
      const auto& t = inits[i];
      if (t.data_location() != onnx::TensorProto_DataLocation_EXTERNAL) continue;
      weights_.insert(t.name());
      if (!inputs.contains(t.name())) {
        auto* vi = g->add_input();
        vi->set_name(t.name());
        auto* tt = vi->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(t.data_type());
        auto* shape = tt->mutable_shape();
        for (const auto d : t.dims()) shape->add_dim()->set_dim_value(d);
      }
      inits.DeleteSubrange(i, 1);
    }
  }

  /// Every tensor stored in the model (initializers, sparse initializers, node attributes) must
  /// hold exactly as many values as its dims say, as ONNX requires: libonnx 1.12 copies raw_data
  /// by its length into a vector sized by the element count, so a short or ragged raw_data
  /// corrupts memory in shape inference (fuzz finding), and the checker does not look.
  Result<void> check_tensor_sizes() const {
    const auto& g = model_.graph();
    for (const auto& t : g.initializer()) {
      if (auto r = check_tensor_size(t, "initializer '" + t.name() + "'"); !r) return r;
    }
    for (const auto& s : g.sparse_initializer()) {
      const std::string where = "sparse initializer '" + s.values().name() + "'";
      if (auto r = check_tensor_size(s.values(), where + " values"); !r) return r;
      if (auto r = check_tensor_size(s.indices(), where + " indices"); !r) return r;
    }
    for (const auto& n : g.node()) {
      for (const auto& a : n.attribute()) {
        const std::string where = node_label(n) + " attribute '" + a.name() + "'";
        if (a.has_t()) {
          if (auto r = check_tensor_size(a.t(), where); !r) return r;
        }
        for (const auto& t : a.tensors()) {
          if (auto r = check_tensor_size(t, where); !r) return r;
        }
        if (a.has_sparse_tensor()) {
          if (auto r = check_tensor_size(a.sparse_tensor().values(), where + " values"); !r) {
            return r;
          }
          if (auto r = check_tensor_size(a.sparse_tensor().indices(), where + " indices"); !r) {
            return r;
          }
        }
      }
    }
    return {};
  }

  Result<void> check_tensor_size(const onnx::TensorProto& t, const std::string& where) const {
    if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) return {};
    using T = onnx::TensorProto_DataType;
    const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
    const auto count = onnx_import::detail::element_count(dims);
    std::string shape;
    for (const auto d : dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    const std::string described =
        where + " (" + data_type_name(t.data_type()) + ", dims [" + shape + "])";
    if (!count) {
      return fail(Errc::schema_error,
                  described + ": a negative dimension, or an element count over 2^63");
    }
    // Bytes per element in raw_data, and values per element in the typed field, per type.
    std::size_t bytes = 0;
    std::int64_t typed = 0;
    int per_element = 1;
    switch (t.data_type()) {
      case T::TensorProto_DataType_FLOAT: bytes = 4, typed = t.float_data_size(); break;
      case T::TensorProto_DataType_COMPLEX64:
        bytes = 8, typed = t.float_data_size(), per_element = 2;
        break;
      case T::TensorProto_DataType_DOUBLE: bytes = 8, typed = t.double_data_size(); break;
      case T::TensorProto_DataType_COMPLEX128:
        bytes = 16, typed = t.double_data_size(), per_element = 2;
        break;
      case T::TensorProto_DataType_INT64: bytes = 8, typed = t.int64_data_size(); break;
      case T::TensorProto_DataType_UINT64: bytes = 8, typed = t.uint64_data_size(); break;
      case T::TensorProto_DataType_UINT32: bytes = 4, typed = t.uint64_data_size(); break;
      case T::TensorProto_DataType_INT32: bytes = 4, typed = t.int32_data_size(); break;
      case T::TensorProto_DataType_INT16:
      case T::TensorProto_DataType_UINT16:
      case T::TensorProto_DataType_FLOAT16:
      case T::TensorProto_DataType_BFLOAT16: bytes = 2, typed = t.int32_data_size(); break;
      case T::TensorProto_DataType_INT8:
      case T::TensorProto_DataType_UINT8:
      case T::TensorProto_DataType_BOOL: bytes = 1, typed = t.int32_data_size(); break;
      case T::TensorProto_DataType_STRING:
        if (!t.has_raw_data() && t.string_data_size() != *count) {
          return fail(Errc::schema_error, described + " holds " +
                                              std::to_string(t.string_data_size()) +
                                              " strings, not " + std::to_string(*count));
        }
        return {};
      default: return {};  // an undefined type: the checker names it
    }
    if (t.has_raw_data()) {
      const auto size = t.raw_data().size();
      if (static_cast<std::uint64_t>(*count) > std::numeric_limits<std::size_t>::max() / bytes ||
          size != static_cast<std::size_t>(*count) * bytes) {
        return fail(Errc::schema_error, described + ": raw_data holds " + std::to_string(size) +
                                            " bytes, not the " + std::to_string(*count) + " x " +
                                            std::to_string(bytes) + " its dims and type need");
      }
      return {};
    }
    if (typed % per_element != 0 || typed / per_element != *count) {
      return fail(Errc::schema_error, described + " holds " + std::to_string(typed) +
                                          " values, not the " + std::to_string(*count) + " x " +
                                          std::to_string(per_element) + " its dims need");
    }
    return {};
  }

  /// Applies --input_shape to the model's inputs and checks that every input dimension is now
  /// static.
  Result<void> fix_inputs() {
    std::string listing;
    const std::vector<onnx::ValueInfoProto*> real = real_inputs(listing);
    for (const auto& [name, dims] : options_.input_shapes) {
      onnx::ValueInfoProto* vi = nullptr;
      for (auto* r : real) {
        if (r->name() == name) vi = r;
      }
      if (vi == nullptr) {
        return fail(Errc::invalid_argument,
                    "--input_shape names '" + name +
                        "', which is not an input of the model; its "
                        "inputs are: " +
                        (listing.empty() ? std::string("(none)") : listing));
      }
      if (auto ok = apply_input_shape(*vi, name, dims); !ok) return ok;
    }
    for (auto* vi : real) {
      if (auto ok = check_static(*vi); !ok) return ok;
    }
    return {};
  }

  /// The graph's inputs that are not weights (initializers), and their names in `listing`.
  std::vector<onnx::ValueInfoProto*> real_inputs(std::string& listing) {
    auto* g = model_.mutable_graph();
    std::set<std::string> initializers;
    for (const auto& t : g->initializer()) initializers.insert(t.name());
    std::vector<onnx::ValueInfoProto*> real;
    for (auto& in : *g->mutable_input()) {
      if (initializers.contains(in.name()) || weights_.contains(in.name())) continue;
      real.push_back(&in);
      listing += (listing.empty() ? "" : ", ") + in.name();
    }
    return real;
  }

  /// Gives input `vi` the sizes `dims` of --input_shape: an error when the model declares
  /// another rank, or fixes a dimension at another size.
  Result<void> apply_input_shape(onnx::ValueInfoProto& vi, const std::string& name,
                                 const std::vector<std::int64_t>& dims) {
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    auto* shape = tt->mutable_shape();
    if (tt->has_shape() && shape->dim_size() != static_cast<int>(dims.size()) &&
        shape->dim_size() > 0) {
      return fail(Errc::invalid_argument,
                  "--input_shape gives input '" + name + "' " + std::to_string(dims.size()) +
                      " dimensions; the model declares " + std::to_string(shape->dim_size()));
    }
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) < shape->dim_size()) {
        auto* d = shape->mutable_dim(static_cast<int>(i));
        if (d->has_dim_value() && d->dim_value() > 0 && d->dim_value() != dims[i]) {
          return fail(Errc::invalid_argument,
                      "--input_shape gives dimension " + std::to_string(i) + " of input '" + name +
                          "' as " + std::to_string(dims[i]) + ", but the model fixes it at " +
                          std::to_string(d->dim_value()));
        }
        d->clear_dim_param();
        d->set_dim_value(dims[i]);
      } else {
        shape->add_dim()->set_dim_value(dims[i]);
      }
    }
    return {};
  }

  /// An error, naming the input and the --input_shape that would fix it, unless input `vi` is
  /// a tensor whose every dimension has a size.
  Result<void> check_static(const onnx::ValueInfoProto& vi) {
    const auto& type = vi.type();
    if (!type.has_tensor_type()) {
      return fail(Errc::unsupported, "input '" + vi.name() +
                                         "' is not a tensor (sequences, "
                                         "maps and optionals are not tuned)");
    }
    const auto& shape = type.tensor_type().shape();
    if (!type.tensor_type().has_shape()) {
      return fail(Errc::unsupported, "input '" + vi.name() +
                                         "' has no shape in the model: give it with "
                                         "--input_shape=\"" +
                                         vi.name() + ":d0,d1,...\"");
    }
    for (int i = 0; i < shape.dim_size(); ++i) {
      const auto& d = shape.dim(i);
      if (d.has_dim_value() && d.dim_value() > 0) continue;
      std::string example;
      for (int k = 0; k < shape.dim_size(); ++k) {
        const auto& dk = shape.dim(k);
        example += (k ? "," : "") + (dk.has_dim_value() && dk.dim_value() > 0
                                         ? std::to_string(dk.dim_value())
                                         : std::string("<size>"));
      }
      return fail(Errc::unsupported,
                  "input '" + vi.name() + "', dimension " + std::to_string(i) +
                      (d.has_dim_param() ? " ('" + d.dim_param() + "')" : std::string()) +
                      " is dynamic: AOE tunes static shapes; give its size with --input_shape=\"" +
                      vi.name() + ":" + example + "\"");
    }
    return {};
  }

  /// Convolutions and pools whose data rank is known must agree with their weight's rank and
  /// their attributes' lengths: libonnx 1.12's shape inference reads out of bounds otherwise
  /// (fuzzing found it: a rank-2 input to a Conv with a 4-D weight is a SIGSEGV in
  /// onnx::convPoolShapeInference).
  /// `unchecked` is set when a convolution or pool's input (or weight) rank is not known yet:
  /// the output of an earlier node, before the first inference.
  Result<void> check_conv_ranks(bool& unchecked) const {
    const auto& g = model_.graph();
    std::map<std::string, int> rank;
    const auto note = [&](const onnx::ValueInfoProto& vi) {
      if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape()) {
        rank[vi.name()] = vi.type().tensor_type().shape().dim_size();
      }
    };
    for (const auto& vi : g.input()) note(vi);
    for (const auto& vi : g.value_info()) note(vi);
    for (const auto& t : g.initializer()) rank[t.name()] = t.dims_size();
    for (const auto& n : g.node()) {
      const std::string& op = n.op_type();
      const bool conv = op == "Conv" || op == "ConvTranspose" || op == "ConvInteger";
      const bool pool = op == "MaxPool" || op == "AveragePool" || op == "LpPool";
      if ((!conv && !pool) || n.input_size() == 0) continue;
      const auto x = rank.find(n.input(0));
      if (x == rank.end()) {
        unchecked = true;
        continue;
      }
      const int r = x->second;
      if (r < 3) {
        return fail(Errc::schema_error, node_label(n) + ": input '" + n.input(0) + "' has rank " +
                                            std::to_string(r) +
                                            " (expected at least 3: N, C and a spatial axis)");
      }
      if (conv && n.input_size() > 1) {
        const auto w = rank.find(n.input(1));
        if (w == rank.end()) unchecked = true;
        if (w != rank.end() && w->second != r) {
          return fail(Errc::schema_error, node_label(n) + ": input '" + n.input(0) + "' has rank " +
                                              std::to_string(r) + " and weight '" + n.input(1) +
                                              "' rank " + std::to_string(w->second) +
                                              " (expected the same rank)");
        }
      }
      for (const auto& a : n.attribute()) {
        const std::size_t spatial = static_cast<std::size_t>(r - 2);
        const std::size_t expected = a.name() == "pads" ? 2 * spatial : spatial;
        const bool sized = a.name() == "pads" || a.name() == "strides" || a.name() == "dilations" ||
                           a.name() == "kernel_shape" || a.name() == "output_padding";
        if (sized && static_cast<std::size_t>(a.ints_size()) != expected) {
          return fail(Errc::schema_error, node_label(n) + ": attribute '" + a.name() + "' has " +
                                              std::to_string(a.ints_size()) + " values (expected " +
                                              std::to_string(expected) + " for a rank-" +
                                              std::to_string(r) + " input)");
        }
      }
    }
    return {};
  }

  /// libonnx 1.12's shape inference can crash (read out of bounds) on a convolution or pool
  /// whose input rank does not fit its weight or attributes; check_conv_ranks catches that only
  /// where the rank is known before inference. Where it is not, inference runs first in a child
  /// process (a copy of this one): its crash becomes a named error here, never a crash of the
  /// caller. The child only computes and exits.
  Result<void> inference_survives(const onnx::ShapeInferenceOptions& options) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      return fail(Errc::io_error, std::string("cannot start the guarded shape inference (fork: ") +
                                      std::strerror(errno) + ")");
    }
    if (pid == 0) {
      for (const int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(s, SIG_DFL);
      try {
        onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), options);
      } catch (...) {  // NOLINT(bugprone-empty-catch): the parent reports inference errors
      }
      ::_exit(0);
    }
    auto end = aoe::detail::wait_child(pid, options_.inference_limit);
    if (!end) return fail(Errc::io_error, "the guarded shape inference: " + end.error().message);
    if (end->succeeded()) return {};
    if (end->how == aoe::detail::ChildEnd::How::timed_out) {
      return fail(Errc::schema_error,
                  "the ONNX library's shape inference did not finish on this model (" +
                      end->describe(options_.inference_limit) +
                      ", in a child process; nothing else was affected)");
    }
    return fail(Errc::schema_error,
                "the ONNX library's shape inference crashed on this model (" +
                    end->describe(options_.inference_limit) +
                    ", in a child process; nothing else was affected): the known cause is a "
                    "Conv, ConvTranspose or pool whose input rank does not fit its weight's rank "
                    "or its pads/strides/dilations/kernel_shape; check those nodes");
  }

  Result<void> infer() {
    bool unchecked = false;
    if (auto r = check_conv_ranks(unchecked); !r) return r.error();
    try {
      onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/1,
                                          /*enable_data_propagation=*/true);
      if (unchecked) {
        if (auto r = inference_survives(options); !r) return r.error();
      }
      onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      return fail(Errc::schema_error, std::string("shape inference failed: ") + e.what());
    }
    infos_.clear();
    const auto& g = model_.graph();
    for (const auto& vi : g.input()) infos_[vi.name()] = info_of(vi.type());
    for (const auto& vi : g.value_info()) infos_[vi.name()] = info_of(vi.type());
    for (const auto& vi : g.output()) infos_[vi.name()] = info_of(vi.type());
    for (const auto& t : g.initializer()) {
      TensorInfo info;
      info.elem_type = t.data_type();
      info.rank_known = true;
      for (const auto d : t.dims()) info.dims.emplace_back(d);
      infos_[t.name()] = info;
    }
    return {};
  }

  /// Folds constant computations and re-runs shape inference until nothing more folds.
  Result<void> fold_and_infer() {
    auto* g = model_.mutable_graph();
    // Inferred, not declared: declared output shapes often keep the exporter's symbols.
    g->clear_value_info();
    for (auto& o : *g->mutable_output()) {
      if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
    }
    for (const auto& t : g->initializer()) {
      constants_.insert(t.name());
      if (auto v = onnx_import::detail::read_constant(t)) values_[t.name()] = std::move(*v);
    }
    constants_.insert(weights_.begin(), weights_.end());
    for (int round = 0; round < 64; ++round) {
      if (auto r = infer(); !r) return r.error();
      bool changed = false;
      google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
      for (auto& n : *g->mutable_node()) {
        if (const auto folded = try_fold(n)) {
          changed = true;
          *g->add_initializer() = to_tensor_proto(*folded, n.output(0));
          if (model_.ir_version() < 4) {
            auto* vi = g->add_input();
            vi->set_name(n.output(0));
            auto* tt = vi->mutable_type()->mutable_tensor_type();
            tt->set_elem_type(folded->elem_type);
            for (const auto d : folded->dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
          }
          continue;
        }
        kept.Add()->Swap(&n);
      }
      g->mutable_node()->Swap(&kept);
      if (!changed) return {};
    }
    return {};
  }

  /// The value of `n`'s single output when it computes a constant that can be evaluated;
  /// marks the outputs of other constant computations as constants of unknown value.
  std::optional<ConstTensor> try_fold(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    if (op.starts_with("Random") || op == "Multinomial" || op == "Bernoulli") return std::nullopt;
    bool all_constant = true;
    for (const auto& in : n.input()) {
      if (!in.empty() && !constants_.contains(in)) all_constant = false;
    }
    const bool shape_of_static = (op == "Shape" || op == "Size") && n.input_size() == 1 &&
                                 infos_.contains(n.input(0)) &&
                                 infos_[n.input(0)].static_dims().has_value();
    if (!all_constant && !shape_of_static) return std::nullopt;
    FoldInputs in;
    for (const auto& name : n.input()) {
      const auto it = values_.find(name);
      in.values.push_back(it == values_.end() ? nullptr : &it->second);
      const auto info = infos_.find(name);
      in.shapes.push_back(info == infos_.end() ? std::nullopt : info->second.static_dims());
    }
    std::optional<ConstTensor> v;
    if (n.output_size() == 1) v = evaluate(n, in);
    if (v) {
      constants_.insert(n.output(0));
      values_[n.output(0)] = *v;
      return v;
    }
    for (const auto& o : n.output()) constants_.insert(o);
    return std::nullopt;
  }

  Result<TensorDesc> desc_of(const std::string& tensor, const onnx::NodeProto& n) {
    const auto it = infos_.find(tensor);
    const std::string where = "tensor '" + tensor + "' of " + node_label(n);
    if (it == infos_.end() || !it->second.rank_known) {
      return fail(Errc::unsupported,
                  where +
                      " has no shape after shape inference with constant folding: AOE tunes "
                      "static graphs (is an input dimension missing from --input_shape?)");
    }
    const auto dims = it->second.static_dims();
    if (!dims) {
      return fail(Errc::unsupported,
                  where +
                      " has a dynamic dimension after shape inference with constant folding "
                      "(a data-dependent shape): AOE tunes static graphs");
    }
    const auto t = data_type(it->second.elem_type);
    if (!t) {
      return fail(Errc::unsupported,
                  where + " is of element type " + data_type_name(it->second.elem_type) +
                      ": the Ascend types read are float16, bfloat16, float32, int8, uint8, "
                      "int32, int64 and bool");
    }
    TensorDesc d;
    d.shape = *dims;
    d.dtype = *t;
    d.format = d.shape.size() == 4 ? Format::NCHW : Format::ND;
    if (auto problem = d.size_problem()) return fail(Errc::unsupported, where + ": " + *problem);
    return d;
  }

  Result<Graph> build() {
    Graph graph;
    graph.name = options_.name.empty() ? model_.graph().name() : options_.name;
    if (graph.name.empty()) graph.name = "onnx_model";
    MappingContext ctx;
    ctx.values = values_;
    ctx.constants = constants_;
    ctx.opset = opset_;
    for (const auto& n : model_.graph().node()) {
      bool all_constant = n.output_size() > 0;
      for (const auto& o : n.output())
        all_constant = all_constant && (o.empty() || constants_.contains(o));
      if (all_constant) continue;  // a constant computation (weights, shapes): not an operator
      for (const auto& name : n.input()) {
        if (name.empty() || ctx.descs.contains(name)) continue;
        if (constants_.contains(name)) {
          // A constant's description is needed only when a kept input reads it.
          if (auto d = desc_of(name, n)) ctx.descs.emplace(name, *d);
          continue;
        }
        auto d = desc_of(name, n);
        if (!d) return d.error();
        ctx.descs.emplace(name, *d);
      }
      for (const auto& name : n.output()) {
        if (name.empty()) continue;
        auto d = desc_of(name, n);
        if (!d) return d.error();
        ctx.descs.emplace(name, *d);
      }
      const Mapped m = map_node(n, ctx);
      if (!m.error.empty()) return fail(Errc::schema_error, node_label(n) + ": " + m.error);
      Node node;
      node.name = n.name();
      node.type = m.type;
      node.attributes = m.attributes;
      for (std::size_t k = 0; k < m.inputs.size(); ++k) {
        const int i = m.inputs[k];
        const std::string& name = n.input(i);
        if (name.empty()) continue;
        const auto it = ctx.descs.find(name);
        if (it == ctx.descs.end()) {
          auto d = desc_of(name, n);
          if (!d) return d.error();
          ctx.descs.emplace(name, *d);
        }
        TensorRef ref{name, ctx.descs.at(name)};
        if (k < m.input_shapes.size() && m.input_shapes[k]) ref.desc.shape = *m.input_shapes[k];
        node.inputs.push_back(std::move(ref));
      }
      for (const auto& name : n.output()) {
        if (!name.empty()) node.outputs.push_back({name, ctx.descs.at(name)});
      }
      graph.nodes.push_back(std::move(node));
    }
    if (graph.nodes.empty()) {
      return fail(Errc::unsupported,
                  "every node of the model computes a constant: nothing to tune");
    }
    fuse_patterns(graph, constants_);
    return graph;
  }

  std::string source_;
  const OnnxOptions& options_;
  onnx::ModelProto model_;
  std::int64_t opset_ = 0;
  std::set<std::string> weights_;    ///< initializers stored as external data
  std::set<std::string> constants_;  ///< initializers, Constant outputs, folded computations
  std::map<std::string, ConstTensor> values_;
  std::map<std::string, TensorInfo> infos_;
};

}  // namespace onnx_import::detail

/// Reads an ONNX model from its bytes; `source` names it in messages (usually the file path).
/// Errors: parse_error (not ONNX, truncated), schema_error (the checker or shape inference
/// rejects it), unsupported (opset, control flow, other domains, a dynamic dimension left),
/// invalid_argument (an --input_shape entry that does not fit the model).
[[nodiscard]] inline Result<Graph> parse_onnx(std::string_view bytes, std::string_view source,
                                              const OnnxOptions& options = {}) {
  return onnx_import::detail::OnnxReader(std::string(source), options).read(bytes);
}

/// Loads an ONNX model file; the graph is named after the file's stem unless
/// `options.name` says otherwise.
[[nodiscard]] inline Result<Graph> load_onnx(const std::filesystem::path& file,
                                             OnnxOptions options = {}) {
  auto bytes = aoe::detail::read_input_file(file, "an ONNX model");
  if (!bytes) return bytes.error();
  if (options.name.empty()) options.name = file.stem().string();
  return parse_onnx(*bytes, file.string(), options);
}

}  // namespace aoe

#endif  // AOE_GRAPH_ONNX_ONNX_LOADER_HPP
