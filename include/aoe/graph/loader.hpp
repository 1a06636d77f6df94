// Reads a model graph from its JSON file (docs/model_format.md, docs/schema/model.schema.json).
// Errors name the file, the JSON pointer and what was expected; dynamic shapes are rejected as
// AOE rejects them (AOE_ERROR_DYNAMIC_GRAPH, docs/aoe-facts.md#dynamic-shapes).
#ifndef AOE_GRAPH_LOADER_HPP
#define AOE_GRAPH_LOADER_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/name_table.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// The model format version this build reads.
inline constexpr std::int64_t model_format_version = 1;

namespace detail {

class GraphReader {
 public:
  explicit GraphReader(std::string source) : source_(std::move(source)) {}

  ErrorInfo fail(Errc e, const std::string& pointer, const std::string& what) const {
    return make_error(
        e, source_ + ": " + (pointer.empty() ? std::string("/") : pointer) + ": " + what);
  }

  Result<Graph> read(const boost::json::value& root) {
    const auto* obj = root.if_object();
    if (obj == nullptr) return fail(Errc::schema_error, "", "expected a JSON object");
    if (auto ok = check_version(*obj); !ok) return ok.error();
    Graph g;
    const auto* name = obj->if_contains("name");
    if (name == nullptr || !name->is_string() || name->as_string().empty()) {
      return fail(Errc::schema_error, "/name", "expected a non-empty string (the model name)");
    }
    g.name = std::string(name->as_string());
    if (auto ok = read_tensors(*obj); !ok) return ok.error();

    const auto* nodes = obj->if_contains("nodes");
    if (nodes == nullptr || !nodes->is_array() || nodes->as_array().empty()) {
      return fail(Errc::schema_error, "/nodes", "expected a non-empty array of nodes");
    }
    const auto& arr = nodes->as_array();
    names_.reserve(arr.size());
    produced_.assign(descs_.size(), none);
    first_use_.assign(descs_.size(), none);
    g.nodes.reserve(arr.size());
    g.tensor_ids.reserve(2 * arr.size());
    g.tensor_count = descs_.size();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (auto ok = read_node(arr[i], i, g); !ok) return ok.error();
    }
    return g;
  }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  static std::string node_pointer(std::size_t i) { return "/nodes/" + std::to_string(i); }

  Result<void> check_version(const boost::json::object& obj) const {
    const auto* version = obj.if_contains("format_version");
    if (version == nullptr || !version->is_int64()) {
      return fail(Errc::schema_error, "/format_version", "expected the integer 1");
    }
    if (version->as_int64() != model_format_version) {
      return fail(Errc::unsupported_version, "/format_version",
                  "expected 1, found " + std::to_string(version->as_int64()) +
                      " (this build reads model format version 1)");
    }
    return {};
  }

  /// Numbers the tensors of /tensors and reads their descriptions.
  Result<void> read_tensors(const boost::json::object& obj) {
    const auto* tensors = obj.if_contains("tensors");
    if (tensors == nullptr || !tensors->is_object()) {
      return fail(Errc::schema_error, "/tensors", "expected an object of tensor descriptions");
    }
    const auto& tensor_obj = tensors->as_object();
    tensor_ids_.reserve(tensor_obj.size());
    descs_.reserve(tensor_obj.size());
    for (const auto& [key, tv] : tensor_obj) {
      auto d = read_tensor(tv, std::string_view(key.data(), key.size()));
      if (!d) return d.error();
      tensor_ids_.insert(std::string_view(key.data(), key.size()));
      descs_.push_back(std::move(*d));
    }
    return {};
  }

  /// Node `i` of /nodes, appended to `g`.
  Result<void> read_node(const boost::json::value& v, std::size_t i, Graph& g) {
    const auto* n = v.if_object();
    if (n == nullptr) return fail(Errc::schema_error, node_pointer(i), "expected a node object");
    Node node;
    const auto* node_name = read_string(*n, "name");
    if (node_name == nullptr) {
      return fail(Errc::schema_error, node_pointer(i) + "/name", "expected a non-empty string");
    }
    node.name.assign(node_name->data(), node_name->size());
    if (!names_.insert(std::string_view(node_name->data(), node_name->size())).second) {
      return fail(Errc::schema_error, node_pointer(i) + "/name",
                  "expected a unique node name; '" + node.name + "' is used twice");
    }
    const auto* type = read_string(*n, "type");
    if (type == nullptr) {
      return fail(Errc::schema_error, node_pointer(i) + "/type", "expected a non-empty string");
    }
    node.type.assign(type->data(), type->size());
    for (const char* side : {"inputs", "outputs"}) {
      if (auto ok = read_tensor_list(*n, side, i, node, g); !ok) return ok.error();
    }
    if (auto ok = read_attributes(*n, i, node); !ok) return ok.error();
    g.nodes.push_back(std::move(node));
    return {};
  }

  /// The tensor list `side` ("inputs" or "outputs") of node `i`, each tensor checked against
  /// the nodes before it (one producer, produced before it is read).
  Result<void> read_tensor_list(const boost::json::object& n, const char* side, std::size_t i,
                                Node& node, Graph& g) {
    const auto* list = n.if_contains(side);
    const auto lptr = [&] { return node_pointer(i) + "/" + side; };
    if (list == nullptr || !list->is_array()) {
      return fail(Errc::schema_error, lptr(), "expected an array of tensor names");
    }
    const bool is_out = std::string_view(side) == "outputs";
    const auto& refs = list->as_array();
    if (is_out && refs.empty()) {
      return fail(Errc::schema_error, lptr(), "expected at least one output tensor");
    }
    (is_out ? node.outputs : node.inputs).reserve(refs.size());
    for (std::size_t k = 0; k < refs.size(); ++k) {
      const auto& tv = refs[k];
      const auto tptr = [&] { return lptr() + "/" + std::to_string(k); };
      if (!tv.is_string()) return fail(Errc::schema_error, tptr(), "expected a tensor name");
      const std::string_view tname(tv.as_string().data(), tv.as_string().size());
      const std::size_t id = tensor_ids_.find(tname);
      if (id == NameTable::npos) {
        return fail(Errc::schema_error, tptr(),
                    "expected the name of a tensor in /tensors; '" + std::string(tname) +
                        "' is not described there");
      }
      if (is_out) {
        if (auto why = output_problem(id, tname, i, node, g)) {
          return fail(Errc::schema_error, tptr(), *why);
        }
        produced_[id] = i;
        node.outputs.push_back({std::string(tname), descs_[id]});
      } else {
        if (first_use_[id] == none) first_use_[id] = i;
        node.inputs.push_back({std::string(tname), descs_[id]});
      }
      g.tensor_ids.push_back(static_cast<std::uint32_t>(id));
    }
    return {};
  }

  /// Why node `i` cannot produce tensor `id` (`tname`), or nothing when it can.
  std::optional<std::string> output_problem(std::size_t id, std::string_view tname, std::size_t i,
                                            const Node& node, const Graph& g) const {
    if (produced_[id] != none) {
      return "tensor '" + std::string(tname) + "' is already produced by node '" +
             g.nodes[produced_[id]].name + "'";
    }
    if (first_use_[id] == i) {
      return "node '" + node.name + "' reads its own output '" + std::string(tname) +
             "' (a cycle: the graph must be acyclic)";
    }
    if (first_use_[id] != none) {
      return "tensor '" + std::string(tname) + "' is read by node '" +
             g.nodes[first_use_[id]].name +
             "' before it is produced: nodes must be in topological order (and the graph "
             "acyclic)";
    }
    return std::nullopt;
  }

  /// The attributes of node `i`, when it has any.
  Result<void> read_attributes(const boost::json::object& n, std::size_t i, Node& node) const {
    const auto* attrs = n.if_contains("attributes");
    if (attrs == nullptr) return {};
    if (!attrs->is_object()) {
      return fail(Errc::schema_error, node_pointer(i) + "/attributes", "expected an object");
    }
    for (const auto& [k, v] : attrs->as_object()) {
      const std::string aptr = node_pointer(i) + "/attributes/" + pointer_token(k);
      auto a = read_attribute(v, aptr);
      if (!a) return a.error();
      node.attributes.emplace(std::string(k), std::move(*a));
    }
    return {};
  }

  /// The non-empty string `key` of `o`, or null.
  static const boost::json::string* read_string(const boost::json::object& o, const char* key) {
    const auto* v = o.if_contains(key);
    if (v == nullptr || !v->is_string() || v->as_string().empty()) return nullptr;
    return &v->as_string();
  }

  /// The description of tensor `key` (its JSON pointer made only for an error).
  Result<TensorDesc> read_tensor(const boost::json::value& v, std::string_view key) const {
    const auto* o = v.if_object();
    if (o != nullptr) {  // the usual case first, with no pointer made
      const auto* shape = o->if_contains("shape");
      const auto* dtype = o->if_contains("dtype");
      const auto* format = o->if_contains("format");
      if (shape != nullptr && shape->is_array() && dtype != nullptr && dtype->is_string() &&
          (format == nullptr || format->is_string())) {
        TensorDesc d;
        bool ok = true;
        d.shape.reserve(shape->as_array().size());
        for (const auto& dv : shape->as_array()) {
          ok = ok && dv.is_int64() && dv.as_int64() > 0;
          if (ok) d.shape.push_back(dv.as_int64());
        }
        const auto t = data_type_from_string(std::string_view(dtype->as_string()));
        const auto f = format == nullptr
                           ? std::optional<Format>(d.format)
                           : format_from_string(std::string_view(format->as_string()));
        if (ok && t && f) {
          d.dtype = *t;
          d.format = *f;
          if (!d.size_problem()) return d;
        }
      }
    }
    return read_tensor(v, "/tensors/" + pointer_token(key));
  }

  Result<TensorDesc> read_tensor(const boost::json::value& v, const std::string& ptr) const {
    const auto* o = v.if_object();
    if (o == nullptr) {
      return fail(Errc::schema_error, ptr, "expected an object with shape, dtype and format");
    }
    TensorDesc d;
    const auto* shape = o->if_contains("shape");
    if (shape == nullptr || !shape->is_array()) {
      return fail(Errc::schema_error, ptr + "/shape", "expected an array of dimensions");
    }
    for (std::size_t i = 0; i < shape->as_array().size(); ++i) {
      const auto& dv = shape->as_array()[i];
      const std::string dptr = ptr + "/shape/" + std::to_string(i);
      if (!dv.is_int64()) return fail(Errc::schema_error, dptr, "expected an integer dimension");
      const auto dim = dv.as_int64();
      if (dim < 0) {
        return fail(Errc::unsupported, dptr,
                    "dynamic shape (dimension " + std::to_string(dim) +
                        "): AOE tunes static shapes only; give every dimension a positive size");
      }
      if (dim == 0) return fail(Errc::schema_error, dptr, "expected a positive dimension");
      d.shape.push_back(dim);
    }
    const auto* dtype = o->if_contains("dtype");
    if (dtype == nullptr || !dtype->is_string()) {
      return fail(Errc::schema_error, ptr + "/dtype", "expected a data type name (float16 ...)");
    }
    const auto t = data_type_from_string(std::string_view(dtype->as_string()));
    if (!t) {
      return fail(Errc::schema_error, ptr + "/dtype",
                  "expected a data type (float16, bfloat16, float32, int8, int32, int64, uint8, "
                  "bool); found '" +
                      std::string(dtype->as_string()) + "'");
    }
    d.dtype = *t;
    if (const auto* format = o->if_contains("format")) {
      if (!format->is_string()) {
        return fail(Errc::schema_error, ptr + "/format", "expected a format name");
      }
      const auto f = format_from_string(std::string_view(format->as_string()));
      if (!f) {
        return fail(Errc::schema_error, ptr + "/format",
                    "expected a format (ND, NCHW, NHWC, HWCN, NC1HWC0, FRACTAL_Z, FRACTAL_NZ); "
                    "found '" +
                        std::string(format->as_string()) + "'");
      }
      d.format = *f;
    }
    if (auto problem = d.size_problem()) return fail(Errc::schema_error, ptr + "/shape", *problem);
    return d;
  }

  Result<Attribute> read_attribute(const boost::json::value& v, const std::string& ptr) const {
    if (v.is_bool()) return Attribute(v.as_bool());
    if (v.is_int64()) return Attribute(v.as_int64());
    if (v.is_uint64()) return Attribute(static_cast<std::int64_t>(v.as_uint64()));
    if (v.is_double()) return Attribute(v.as_double());
    if (v.is_string()) return Attribute(std::string(v.as_string()));
    if (v.is_array()) {
      std::vector<std::int64_t> out;
      for (std::size_t i = 0; i < v.as_array().size(); ++i) {
        const auto& e = v.as_array()[i];
        if (!e.is_int64()) {
          return fail(Errc::schema_error, ptr + "/" + std::to_string(i),
                      "expected an integer (list attributes are integer lists)");
        }
        out.push_back(e.as_int64());
      }
      return Attribute(std::move(out));
    }
    return fail(Errc::schema_error, ptr, "expected a boolean, number, string or list of integers");
  }

  std::string source_;
  // Tensors and node names numbered in flat tables of views into the root being read (no tree
  // node, no copied name per tensor), what is known of each tensor in arrays by its id (its
  // description, the node that produces it, the first that reads it); the JSON pointers of
  // messages are made only for an error (docs/reliability.md#model-size).
  NameTable tensor_ids_;
  std::vector<TensorDesc> descs_;
  std::vector<std::size_t> produced_;
  std::vector<std::size_t> first_use_;
  NameTable names_;
};

}  // namespace detail

/// Parses a model from JSON text; `source` names it in messages (usually the file path).
[[nodiscard]] inline Result<Graph> parse_graph(std::string_view text, std::string_view source) {
  auto value = detail::parse_json(text, source);
  if (!value) return value.error();
  return detail::GraphReader(std::string(source)).read(*value);
}

/// Loads a model file.
[[nodiscard]] inline Result<Graph> load_graph(const std::filesystem::path& file) {
  auto text = detail::read_input_file(file, "a JSON model, docs/model_format.md");
  if (!text) return text.error();
  return parse_graph(*text, file.string());
}

}  // namespace aoe

#endif  // AOE_GRAPH_LOADER_HPP
