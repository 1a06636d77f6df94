// `aoe --singleop`: see single_op.hpp.
#include "single_op.hpp"

#include "model_path.hpp"
#include "shape_profiles.hpp"
#include <aoe/io/parse_json.hpp>
#include <aoe/io/read_input.hpp>
#include <aoe/op/tensor.hpp>

#include <CLI/App.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <utility>

namespace aoe_tool {

namespace {

/// Reads ATC's single-operator description file (the ATC page "Description File Parameters",
/// docs/cli.md#--singleop): OpDesc objects with `op`, an optional `name`, `input_desc` and
/// `output_desc` (TensorDesc: `format`, `shape`, `type`; ATC's other fields are not read) and
/// an optional `attr` (Attr: `name`, `type`, `value`).
class SingleOpReader {
 public:
  explicit SingleOpReader(std::string source) : source_(std::move(source)) {}

  aoe::Result<std::vector<aoe::Graph>> read(const boost::json::value& root) {
    const auto* ops = root.if_array();
    if (ops == nullptr || ops->empty()) {
      return fail("",
                  "expected a non-empty JSON array of operator descriptions [{\"op\", "
                  "\"input_desc\", \"output_desc\", \"attr\"}, ...] (ATC's single-operator "
                  "description file)");
    }
    std::vector<aoe::Graph> out;
    std::set<std::string> names;
    for (std::size_t i = 0; i < ops->size(); ++i) {
      auto node = read_op((*ops)[i], "/" + std::to_string(i));
      if (!node) return node.error();
      if (node->name.empty()) node->name = std::to_string(i) + "_" + node->type;
      if (!names.insert(node->name).second) {
        return fail("/" + std::to_string(i),
                    "expected a unique name; operator '" + node->name + "' is described twice");
      }
      aoe::Graph g;
      g.name = node->name;
      g.nodes.push_back(std::move(*node));
      out.push_back(std::move(g));
    }
    return out;
  }

 private:
  [[nodiscard]] aoe::ErrorInfo fail(const std::string& pointer, const std::string& what,
                                    aoe::Errc e = aoe::Errc::schema_error) const {
    return aoe::make_error(e, source_ + ": " + (pointer.empty() ? "/" : pointer) + ": " + what);
  }

  /// The non-empty string `key` of `o` (nothing when it is absent), or an error at `ptr/key`.
  aoe::Result<std::optional<std::string>> string_field(const boost::json::object& o,
                                                       const char* key, const std::string& ptr,
                                                       bool required) const {
    const auto* v = o.if_contains(key);
    if (v == nullptr && !required) return std::optional<std::string>();
    if (v == nullptr || !v->is_string() || v->as_string().empty()) {
      return fail(ptr + "/" + key, "expected a non-empty string");
    }
    return std::optional<std::string>(std::string(v->as_string()));
  }

  /// OpDesc `v` (at `ptr`) as a node; its name is empty when the description has none.
  aoe::Result<aoe::Node> read_op(const boost::json::value& v, const std::string& ptr) const {
    const auto* o = v.if_object();
    if (o == nullptr) {
      return fail(ptr,
                  "expected an operator description {\"op\", \"input_desc\", "
                  "\"output_desc\", \"attr\"}");
    }
    aoe::Node node;
    auto type = string_field(*o, "op", ptr, true);
    if (!type) return type.error();
    node.type = std::move(**type);
    auto name = string_field(*o, "name", ptr, false);
    if (!name) return name.error();
    node.name = name->value_or("");
    for (const bool output : {false, true}) {
      if (auto ok = read_tensors(*o, output, ptr, node); !ok) return ok.error();
    }
    if (auto ok = read_attrs(*o, ptr, node); !ok) return ok.error();
    return node;
  }

  /// `input_desc` or `output_desc` (`output`) of OpDesc `o`, as the node's tensors "x<k>" or
  /// "y<k>".
  aoe::Result<void> read_tensors(const boost::json::object& o, bool output, const std::string& ptr,
                                 aoe::Node& node) const {
    const char* key = output ? "output_desc" : "input_desc";
    const auto* list = o.if_contains(key);
    const std::string lptr = ptr + "/" + key;
    if (list == nullptr || !list->is_array() || (output && list->as_array().empty())) {
      return fail(lptr, std::string("expected an array of tensor descriptions {\"format\", "
                                    "\"shape\", \"type\"}") +
                            (output ? ", at least one" : ""));
    }
    for (std::size_t k = 0; k < list->as_array().size(); ++k) {
      auto desc = read_tensor(list->as_array()[k], lptr + "/" + std::to_string(k));
      if (!desc) return desc.error();
      auto& side = output ? node.outputs : node.inputs;
      side.push_back({(output ? "y" : "x") + std::to_string(k), std::move(*desc)});
    }
    return {};
  }

  /// TensorDesc `v` (at `ptr`): `format`, `shape` and `type`, each required as ATC requires it.
  aoe::Result<aoe::TensorDesc> read_tensor(const boost::json::value& v,
                                           const std::string& ptr) const {
    const auto* o = v.if_object();
    if (o == nullptr) return fail(ptr, "expected {\"format\", \"shape\", \"type\"}");
    aoe::TensorDesc d;
    const auto* format = o->if_contains("format");
    const auto f = format != nullptr && format->is_string()
                       ? aoe::format_from_string(std::string_view(format->as_string()))
                       : std::nullopt;
    if (!f) {
      return fail(ptr + "/format",
                  "expected a format (ND, NCHW, NHWC, HWCN, NC1HWC0, FRACTAL_Z, FRACTAL_NZ)");
    }
    d.format = *f;
    const auto* type = o->if_contains("type");
    const auto t = type != nullptr && type->is_string()
                       ? aoe::data_type_from_string(std::string_view(type->as_string()))
                       : std::nullopt;
    if (!t) {
      return fail(ptr + "/type",
                  "expected a data type (float16, float, float32, bfloat16, int8, uint8, int32, "
                  "int64, bool)");
    }
    d.dtype = *t;
    if (auto ok = read_shape(*o, ptr, d); !ok) return ok.error();
    return d;
  }

  /// The `shape` of TensorDesc `o` into `d`: static, positive dimensions ([] is a scalar).
  aoe::Result<void> read_shape(const boost::json::object& o, const std::string& ptr,
                               aoe::TensorDesc& d) const {
    const auto* shape = o.if_contains("shape");
    if (shape == nullptr || !shape->is_array()) {
      return fail(ptr + "/shape", "expected an array of integers");
    }
    for (std::size_t k = 0; k < shape->as_array().size(); ++k) {
      const auto& dv = shape->as_array()[k];
      const std::string dptr = ptr + "/shape/" + std::to_string(k);
      if (!dv.is_int64()) return fail(dptr, "expected an integer dimension");
      if (dv.as_int64() < 0) {
        return fail(dptr,
                    "dynamic shape (dimension " + std::to_string(dv.as_int64()) +
                        "): AOE tunes static shapes only; give every dimension a positive size",
                    aoe::Errc::unsupported);
      }
      if (dv.as_int64() == 0) return fail(dptr, "expected a positive dimension");
      d.shape.push_back(dv.as_int64());
    }
    if (auto problem = d.size_problem()) return fail(ptr + "/shape", *problem);
    return {};
  }

  /// The `attr` array of OpDesc `o`, when it has one, as the node's attributes.
  aoe::Result<void> read_attrs(const boost::json::object& o, const std::string& ptr,
                               aoe::Node& node) const {
    const auto* attrs = o.if_contains("attr");
    if (attrs == nullptr) return {};
    if (!attrs->is_array()) {
      return fail(ptr + "/attr", "expected an array of {\"name\", \"type\", \"value\"}");
    }
    for (std::size_t k = 0; k < attrs->as_array().size(); ++k) {
      const std::string aptr = ptr + "/attr/" + std::to_string(k);
      const auto* a = attrs->as_array()[k].if_object();
      if (a == nullptr) return fail(aptr, "expected {\"name\", \"type\", \"value\"}");
      auto name = string_field(*a, "name", aptr, true);
      if (!name) return name.error();
      auto type = string_field(*a, "type", aptr, true);
      if (!type) return type.error();
      const auto* value = a->if_contains("value");
      if (value == nullptr) return fail(aptr + "/value", "expected the attribute's value");
      auto attribute = read_attr_value(**type, *value, aptr);
      if (!attribute) return attribute.error();
      if (!node.attributes.emplace(**name, std::move(*attribute)).second) {
        return fail(aptr + "/name",
                    "expected a unique attribute name; '" + **name + "' is given twice");
      }
    }
    return {};
  }

  /// The value `v` of an Attr of ATC type `type` (at `ptr`). ATC's types bool, int, float,
  /// string and list_int are read; its others (list_bool, list_float, list_string,
  /// list_list_int, data_type) are named as not read.
  aoe::Result<aoe::Attribute> read_attr_value(const std::string& type, const boost::json::value& v,
                                              const std::string& ptr) const {
    const auto wrong = [&](const char* expected) {
      return fail(ptr + "/value",
                  std::string("expected ") + expected + " (the type is '" + type + "')");
    };
    if (type == "bool" && v.is_bool()) return aoe::Attribute(v.as_bool());
    if (type == "int" && v.is_int64()) return aoe::Attribute(v.as_int64());
    if (type == "float" && v.is_number()) return aoe::Attribute(v.to_number<double>());
    if (type == "string" && v.is_string()) return aoe::Attribute(std::string(v.as_string()));
    if (type == "list_int" && v.is_array()) {
      std::vector<std::int64_t> out;
      for (const auto& e : v.as_array()) {
        if (!e.is_int64()) return wrong("an array of integers");
        out.push_back(e.as_int64());
      }
      return aoe::Attribute(std::move(out));
    }
    for (const auto& [name, expected] : std::initializer_list<std::pair<const char*, const char*>>{
             {"bool", "true or false"},
             {"int", "an integer"},
             {"float", "a number"},
             {"string", "a string"},
             {"list_int", "an array of integers"}}) {
      if (type == name) return wrong(expected);
    }
    for (const char* other : {"list_bool", "list_float", "list_string", "list_list_int",
                              "data_type", "list_data_type"}) {
      if (type == other) {
        return fail(ptr + "/type", "ATC's attribute type '" + type +
                                       "' is not read by OpenAOE (it reads bool, int, float, "
                                       "string and list_int)");
      }
    }
    return fail(
        ptr + "/type",
        "expected an attribute type (bool, int, float, string, list_int); found '" + type + "'");
  }

  std::string source_;
};

}  // namespace

void add_single_op_options(CLI::App& app, CommonOptions& opt) {
  add_option_rows(app, {{"--singleop", &opt.singleop,
                         "operator tuning of the operators of an ATC single-operator description "
                         "file (a JSON array of {op, input_desc, output_desc, attr}), instead of "
                         "--model; one bank, one result file"}});
}

aoe::Result<std::vector<aoe::Graph>> parse_single_ops(std::string_view text,
                                                      const std::string& source) {
  auto value = aoe::detail::parse_json(text, source);
  if (!value) return value.error();
  return SingleOpReader(source).read(*value);
}

int check_single_op_flags(const CommonOptions& common, long ranks, std::ostream& err) {
  if (common.singleop.empty()) return exit_success;
  const char* why =
      common.job_type != 2 ? "operator tuning (--job_type=2) only"
      : !common.model.empty() || !common.model_path.empty()
          ? "instead of --model or --model_path, not with them"
      : !common.output.empty()
          ? "each operator's tuned model goes to the workspace, --output names one"
      : !common.input_shape.empty() || !profile_flag(common).empty()
          ? "the operators' shapes are in the file; --input_shape and the shape profiles are "
            "for a model"
      : ranks > 1 ? "runs in one process, not as several MPI ranks (each rank reads --model)"
                  : nullptr;
  if (why == nullptr) return exit_success;
  err << "aoe: --singleop: " << why << "\n";
  return exit_usage;
}

int run_single_op_command(const CommonOptions& common, const OpatFlags& flags,
                          const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io) {
  auto text = aoe::detail::read_input_file(
      common.singleop, "ATC's single-operator description file, a JSON array, docs/cli.md");
  auto graphs = text ? parse_single_ops(*text, common.singleop)
                     : aoe::Result<std::vector<aoe::Graph>>(text.error());
  if (!graphs) {
    io.err << "aoe: " << (text ? "" : "--singleop=") << console_text(graphs.error().message, true)
           << "\n";
    return exit_input;
  }
  if (common.verbosity() >= 2) {
    io.out << "aoe: --singleop " << console_text(common.singleop) << ": " << graphs->size()
           << " operators, one bank\n";
  }
  return run_in_one_job(graphs->size(), [&](std::size_t i, SharedResultFile& shared) {
    CommonOptions one = common;
    one.model = common.singleop;  // the model argument of the profiling files
    one.singleop.clear();
    return run_opat_command(one, flags, env, soc, io, &shared, &(*graphs)[i]);
  });
}

}  // namespace aoe_tool
