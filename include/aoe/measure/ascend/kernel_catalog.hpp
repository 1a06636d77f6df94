// The Ascend C kernels OPAT may tune on a real NPU, from a JSON file: per operator type, the
// kernel binary, its Schedule parameters, and how a configuration becomes the launch (block
// dim and tiling struct). Format in docs/ascend.md ("Kernel catalogue").
#ifndef AOE_MEASURE_ASCEND_KERNEL_CATALOG_HPP
#define AOE_MEASURE_ASCEND_KERNEL_CATALOG_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"
#include "aoe/measure/ascend/kernel_call.hpp"
#include "aoe/measure/ascend/tiling_data.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/value.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::ascend {

/// Where a number of a launch comes from: a constant, a Schedule parameter, or the operator's
/// tensors ("input0.dim1", "output0.elements").
struct ValueSource {
  enum class Kind : std::uint8_t { constant, parameter, dimension, elements };
  Kind kind = Kind::constant;
  Value constant{};
  std::string parameter{};
  bool output = false;  ///< dimension, elements: of an output (else an input)
  std::size_t tensor = 0;
  std::size_t dim = 0;
  std::string text{};  ///< as written, for messages

  /// The value for `op` and configuration `c` of `space`.
  [[nodiscard]] Result<Value> resolve(const OperatorDesc& op, const Space& space,
                                      const Configuration& c) const {
    switch (kind) {
      case Kind::constant: return constant;
      case Kind::parameter: {
        const auto d = space.index_of(parameter);
        if (!d) return make_error(Errc::not_found, "'" + text + "': no such parameter");
        return space.value(c, *d);
      }
      case Kind::dimension:
      case Kind::elements: {
        const auto& list = output ? op.outputs : op.inputs;
        if (tensor >= list.size()) {
          return make_error(Errc::invalid_argument, "'" + text + "': operator '" + op.name + "' (" +
                                                        op.type + ") has " +
                                                        std::to_string(list.size()) +
                                                        (output ? " output(s)" : " input(s)"));
        }
        const TensorDesc& t = list[tensor];
        if (kind == Kind::elements) return Value(t.elements());
        if (dim >= t.shape.size()) {
          return make_error(Errc::invalid_argument, "'" + text + "': that tensor of operator '" +
                                                        op.name + "' has rank " +
                                                        std::to_string(t.shape.size()));
        }
        return Value(t.shape[dim]);
      }
    }
    return constant;
  }
};

/// One field of the tiling struct.
struct TilingField {
  std::string name;
  TilingType type = TilingType::int32;
  ValueSource value;
};

/// One Ascend C kernel and its Schedule space.
struct KernelEntry {
  std::string op_type;           ///< the operator type it implements (exact, fused types too)
  std::filesystem::path binary;  ///< absolute
  std::string kernel;            ///< the kernel function's name in the binary
  std::vector<Parameter> parameters;
  std::vector<NamedValue> defaults;  ///< the untuned configuration; missing: first values
  ValueSource block_dim;
  std::vector<TilingField> tiling;
  std::int64_t workspace_bytes = 0;
  bool workspace_argument = true;
  std::string pointer;  ///< "/kernels/<i>", for messages

  /// The Schedule space (the parameters, no constraints).
  [[nodiscard]] Space space() const { return Space(parameters); }

  /// The default configuration of `space()`.
  [[nodiscard]] Configuration default_configuration(const Space& s) const {
    Configuration c(s.dimensions(), 0);
    for (const auto& nv : defaults) {
      const auto d = s.index_of(nv.name);
      if (!d) continue;
      if (const auto i = s.parameter(*d).find(nv.value)) c[*d] = *i;
    }
    return c;
  }

  /// The launch configuration `c` gives for `op` (without the kernel handle).
  [[nodiscard]] Result<KernelCall> launch(const OperatorDesc& op, const Space& s,
                                          const Configuration& c) const {
    KernelCall call;
    auto blocks = block_dim.resolve(op, s, c);
    if (!blocks) return blocks.error();
    if (blocks->is_text() || blocks->as_integer() < 1 || blocks->as_integer() > 65535) {
      return make_error(
          Errc::invalid_argument,
          pointer + "/block_dim: expected an integer in [1, 65535], got " + blocks->to_string());
    }
    call.block_dim = static_cast<std::uint32_t>(blocks->as_integer());
    for (const auto& t : op.inputs) call.inputs.push_back(static_cast<std::size_t>(t.bytes()));
    for (const auto& t : op.outputs) call.outputs.push_back(static_cast<std::size_t>(t.bytes()));
    call.workspace_bytes = static_cast<std::size_t>(workspace_bytes);
    call.workspace_argument = workspace_argument;
    TilingData data;
    for (std::size_t i = 0; i < tiling.size(); ++i) {
      const auto& f = tiling[i];
      auto v = f.value.resolve(op, s, c);
      if (!v) {
        return make_error(Errc::invalid_argument, pointer + "/tiling/" + std::to_string(i) +
                                                      "/value: " + v.error().message);
      }
      if (auto ok = data.append(f.name, f.type, *v); !ok) return ok.error();
    }
    call.tiling = data.bytes();
    return call;
  }
};

/// The kernels, by operator type.
struct KernelCatalog {
  std::vector<KernelEntry> kernels;
  std::filesystem::path file;  ///< where it was read from (empty: none)

  /// The entry for `op_type`, if any.
  [[nodiscard]] const KernelEntry* find(std::string_view op_type) const {
    for (const auto& k : kernels) {
      if (k.op_type == op_type) return &k;
    }
    return nullptr;
  }

  /// Reads `file`. Binaries are relative to the file's directory. Errors name the file and the
  /// JSON pointer of the bad field.
  [[nodiscard]] static Result<KernelCatalog> load(const std::filesystem::path& file) {
    auto text = aoe::detail::read_input_file(file, "a kernel catalogue, docs/ascend.md");
    if (!text) return text.error();
    return parse(*text, file);
  }

  /// Parses a catalogue; `file` names it in errors and anchors relative binary paths.
  [[nodiscard]] static Result<KernelCatalog> parse(std::string_view text,
                                                   const std::filesystem::path& file) {
    const std::string where = file.string();
    auto parsed = aoe::detail::parse_json(text, where);
    if (!parsed) return parsed.error();
    const boost::json::value& doc = *parsed;
    const auto bad = [&](const std::string& pointer, const std::string& expected) {
      return make_error(Errc::schema_error, where + ": " + pointer + ": expected " + expected);
    };
    if (!doc.is_object()) return bad("/", "an object {\"kernels\": [...]}");
    const auto* list = doc.as_object().if_contains("kernels");
    if (list == nullptr || !list->is_array()) {
      return bad("/kernels", "an array of kernel descriptions");
    }
    KernelCatalog cat;
    cat.file = file;
    const std::filesystem::path base = file.parent_path();
    for (std::size_t i = 0; i < list->as_array().size(); ++i) {
      auto entry = parse_entry(list->as_array()[i], "/kernels/" + std::to_string(i), base, bad);
      if (!entry) return entry.error();
      if (cat.find(entry->op_type) != nullptr) {
        return bad(entry->pointer + "/op_type",
                   "one kernel per operator type ('" + entry->op_type + "' comes twice)");
      }
      cat.kernels.push_back(std::move(*entry));
    }
    return cat;
  }

 private:
  template <class Bad>
  static Result<KernelEntry> parse_entry(const boost::json::value& v, const std::string& at,
                                         const std::filesystem::path& base, const Bad& bad) {
    if (!v.is_object()) return bad(at, "an object");
    const auto& o = v.as_object();
    KernelEntry e;
    e.pointer = at;
    if (auto r = parse_names(o, at, base, bad, e); !r) return r.error();
    if (auto r = parse_parameters(o, at, bad, e); !r) return r.error();
    if (auto r = parse_defaults(o, at, bad, e); !r) return r.error();
    const auto* blocks = o.if_contains("block_dim");
    if (blocks == nullptr) {
      return bad(at + "/block_dim", "a number or a parameter name (the cores to run on)");
    }
    auto bsrc = source(*blocks, at + "/block_dim", e.parameters, bad);
    if (!bsrc) return bsrc.error();
    e.block_dim = std::move(*bsrc);
    if (auto r = parse_tiling(o, at, bad, e); !r) return r.error();
    if (auto r = parse_workspace(o, at, bad, e); !r) return r.error();
    return e;
  }

  /// The non-empty string `o[key]` into `out`; `what` says what was expected.
  template <class Bad>
  static Result<void> required_text(const boost::json::object& o, const std::string& at,
                                    const char* key, std::string& out, const char* what,
                                    const Bad& bad) {
    const auto* x = o.if_contains(key);
    if (x == nullptr || !x->is_string() || x->as_string().empty()) {
      return bad(at + "/" + key, what);
    }
    out = std::string(x->as_string());
    return {};
  }

  /// "op_type", "binary" (relative to `base`) and "kernel".
  template <class Bad>
  static Result<void> parse_names(const boost::json::object& o, const std::string& at,
                                  const std::filesystem::path& base, const Bad& bad,
                                  KernelEntry& e) {
    if (auto r = required_text(o, at, "op_type", e.op_type,
                               "a string (the operator type, e.g. \"MatMul\")", bad);
        !r) {
      return r.error();
    }
    std::string binary;
    if (auto r = required_text(o, at, "binary", binary, "a string (the kernel binary's path)", bad);
        !r) {
      return r.error();
    }
    e.binary =
        std::filesystem::path(binary).is_absolute() ? std::filesystem::path(binary) : base / binary;
    if (auto r =
            required_text(o, at, "kernel", e.kernel, "a string (the kernel function's name)", bad);
        !r) {
      return r.error();
    }
    return {};
  }

  /// "parameters": the Schedule parameters, with distinct names.
  template <class Bad>
  static Result<void> parse_parameters(const boost::json::object& o, const std::string& at,
                                       const Bad& bad, KernelEntry& e) {
    const auto* params = o.if_contains("parameters");
    if (params == nullptr || !params->is_array()) {
      return bad(at + "/parameters", "an array of {\"name\": ..., \"values\": [...]}");
    }
    for (std::size_t j = 0; j < params->as_array().size(); ++j) {
      auto parameter =
          parse_parameter(params->as_array()[j], at + "/parameters/" + std::to_string(j), bad);
      if (!parameter) return parameter.error();
      e.parameters.push_back(std::move(*parameter));
    }
    try {
      static_cast<void>(Space(e.parameters));
    } catch (const Error& err) {
      return bad(at + "/parameters", std::string("distinct names (") + err.what() + ")");
    }
    return {};
  }

  /// One parameter {"name": ..., "values": [...]} at `pp`.
  template <class Bad>
  static Result<Parameter> parse_parameter(const boost::json::value& p, const std::string& pp,
                                           const Bad& bad) {
    const auto* name = p.is_object() ? p.as_object().if_contains("name") : nullptr;
    const auto* vals = p.is_object() ? p.as_object().if_contains("values") : nullptr;
    if (name == nullptr || !name->is_string() || name->as_string().empty()) {
      return bad(pp + "/name", "a string");
    }
    if (vals == nullptr || !vals->is_array() || vals->as_array().empty()) {
      return bad(pp + "/values", "a non-empty array of numbers or strings");
    }
    std::vector<Value> levels;
    for (std::size_t k = 0; k < vals->as_array().size(); ++k) {
      auto level = scalar(vals->as_array()[k]);
      if (!level) {
        return bad(pp + "/values/" + std::to_string(k), "a number or a string");
      }
      levels.push_back(std::move(*level));
    }
    try {
      return values(std::string(name->as_string()), std::move(levels));
    } catch (const Error& err) {
      return bad(pp, std::string("a valid parameter (") + err.what() + ")");
    }
  }

  /// "default", if given: a value of each parameter it names.
  template <class Bad>
  static Result<void> parse_defaults(const boost::json::object& o, const std::string& at,
                                     const Bad& bad, KernelEntry& e) {
    const auto* d = o.if_contains("default");
    if (d == nullptr) return {};
    if (!d->is_object()) return bad(at + "/default", "an object {\"<parameter>\": <value>}");
    const Space s(e.parameters);
    for (const auto& [key, value] : d->as_object()) {
      const std::string dp = at + "/default/" + std::string(key);
      const auto dim = s.index_of(key);
      auto level = scalar(value);
      if (!dim) return bad(dp, "the name of one of the kernel's parameters");
      if (!level || !s.parameter(*dim).find(*level)) {
        return bad(dp, "one of the values of parameter '" + std::string(key) + "'");
      }
      e.defaults.push_back({std::string(key), *level});
    }
    return {};
  }

  /// "tiling", if given: the fields of the tiling struct.
  template <class Bad>
  static Result<void> parse_tiling(const boost::json::object& o, const std::string& at,
                                   const Bad& bad, KernelEntry& e) {
    const auto* fields = o.if_contains("tiling");
    if (fields == nullptr) return {};
    if (!fields->is_array()) {
      return bad(at + "/tiling", "an array of {\"name\", \"type\", \"value\"}");
    }
    for (std::size_t j = 0; j < fields->as_array().size(); ++j) {
      auto field = parse_tiling_field(fields->as_array()[j], at + "/tiling/" + std::to_string(j),
                                      e.parameters, bad);
      if (!field) return field.error();
      e.tiling.push_back(std::move(*field));
    }
    return {};
  }

  /// One tiling field {"name", "type", "value"} at `fp`.
  template <class Bad>
  static Result<TilingField> parse_tiling_field(const boost::json::value& f, const std::string& fp,
                                                const std::vector<Parameter>& parameters,
                                                const Bad& bad) {
    if (!f.is_object()) return bad(fp, "an object {\"name\", \"type\", \"value\"}");
    const auto& fo = f.as_object();
    TilingField field;
    const auto* name = fo.if_contains("name");
    if (name == nullptr || !name->is_string()) return bad(fp + "/name", "a string");
    field.name = std::string(name->as_string());
    const auto* type = fo.if_contains("type");
    const auto t = type != nullptr && type->is_string()
                       ? tiling_type_from_string(std::string(type->as_string()))
                       : std::nullopt;
    if (!t) {
      return bad(fp + "/type",
                 "one of int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32");
    }
    field.type = *t;
    const auto* value = fo.if_contains("value");
    if (value == nullptr) return bad(fp + "/value", "a number, a parameter or a shape");
    auto src = source(*value, fp + "/value", parameters, bad);
    if (!src) return src.error();
    field.value = std::move(*src);
    return field;
  }

  /// "workspace_bytes" and "workspace_argument", if given.
  template <class Bad>
  static Result<void> parse_workspace(const boost::json::object& o, const std::string& at,
                                      const Bad& bad, KernelEntry& e) {
    if (const auto* w = o.if_contains("workspace_bytes")) {
      if (!w->is_int64() || w->as_int64() < 0) {
        return bad(at + "/workspace_bytes", "a non-negative integer");
      }
      e.workspace_bytes = w->as_int64();
    }
    if (const auto* w = o.if_contains("workspace_argument")) {
      if (!w->is_bool()) return bad(at + "/workspace_argument", "true or false");
      e.workspace_argument = w->as_bool();
    }
    return {};
  }

  static std::optional<Value> scalar(const boost::json::value& v) {
    if (v.is_int64()) return Value(v.as_int64());
    if (v.is_uint64()) return Value(static_cast<std::int64_t>(v.as_uint64()));
    if (v.is_double()) return Value(v.as_double());
    if (v.is_string()) return Value(std::string(v.as_string()));
    return std::nullopt;
  }

  /// A number, a parameter name, "input<i>.dim<j>", "input<i>.elements", "output<i>...".
  template <class Bad>
  static Result<ValueSource> source(const boost::json::value& v, const std::string& at,
                                    const std::vector<Parameter>& parameters, const Bad& bad) {
    ValueSource s;
    if (!v.is_string()) {
      auto number = scalar(v);
      if (!number) return bad(at, "a number, a parameter name or a shape reference");
      s.constant = *number;
      s.text = number->to_string();
      return s;
    }
    s.text = std::string(v.as_string());
    for (const auto& p : parameters) {
      if (p.name() == s.text) {
        s.kind = ValueSource::Kind::parameter;
        s.parameter = s.text;
        return s;
      }
    }
    const std::string_view t = s.text;
    const auto tensor_ref = [&](std::string_view prefix) -> bool {
      if (t.substr(0, prefix.size()) != prefix) return false;
      std::size_t i = prefix.size();
      std::size_t n = 0, digits = 0;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        n = n * 10 + static_cast<std::size_t>(t[i++] - '0');
        ++digits;
      }
      if (digits == 0 || i >= t.size() || t[i] != '.') return false;
      const std::string_view rest = t.substr(i + 1);
      s.output = prefix == "output";
      s.tensor = n;
      if (rest == "elements") {
        s.kind = ValueSource::Kind::elements;
        return true;
      }
      if (rest.substr(0, 3) != "dim" || rest.size() == 3) return false;
      std::size_t d = 0;
      for (const char ch : rest.substr(3)) {
        if (ch < '0' || ch > '9') return false;
        d = d * 10 + static_cast<std::size_t>(ch - '0');
      }
      s.kind = ValueSource::Kind::dimension;
      s.dim = d;
      return true;
    };
    if (tensor_ref("input") || tensor_ref("output")) return s;
    return bad(at,
               "a parameter of this kernel or inputN.dimK, inputN.elements, outputN.dimK, "
               "outputN.elements; got '" +
                   s.text + "'");
  }
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_KERNEL_CATALOG_HPP
