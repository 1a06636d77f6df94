// The tuned model OPAT leaves behind: the input graph with each fused operator's chosen policy
// attached, at ${WORK_PATH}/aoe_workspace/${model_name}_${timestamp}/tunespace/result/
// ${model_name}_${timestamp}_tune.json (AOE writes a .om there; ours is the JSON graph).
#ifndef AOE_JOBS_TUNED_MODEL_WRITER_HPP
#define AOE_JOBS_TUNED_MODEL_WRITER_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/loader.hpp"
#include "aoe/graph/name_table.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/write_json.hpp"
#include "aoe/jobs/chosen_knowledge.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/space/value.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/serializer.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace aoe {

/// The policies chosen for one fused operator (what the tuned model records).
struct TunedOperator {
  std::vector<std::size_t> nodes;  ///< graph nodes the fused operator covers
  std::string name;
  std::string type;
  /// Per knowledge kind ("Schedule", ...): the parameters in use after the job.
  ChosenKnowledge knowledge;
  double default_us = 0;
  double result_us = 0;
};

/// A model name as one file name component (docs/cli.md#output-files): every byte that is not
/// an ASCII letter, digit, '-', '_' or '.' becomes '_', a leading '.' becomes '_' (so neither
/// ".", ".." nor a hidden file), at most 64 bytes are kept, and an empty name is "model".
/// "/" gives "_", "../../x" gives "_._.._x", "a b/c" gives "a_b_c".
[[nodiscard]] inline std::string model_file_stem(std::string_view model) {
  std::string out;
  for (const char c : model.substr(0, 64)) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    out.push_back(keep ? c : '_');
  }
  if (out.empty()) return "model";
  if (out.front() == '.') out.front() = '_';
  return out;
}

/// ${work}/aoe_workspace/${model}_${timestamp}/tunespace/result/${model}_${timestamp}_tune.json,
/// the model name made a file name by model_file_stem (so the path stays under `work`).
[[nodiscard]] inline std::filesystem::path default_tuned_model_path(
    const std::filesystem::path& work, const std::string& model, const std::string& timestamp) {
  const std::string stem = model_file_stem(model) + "_" + timestamp;
  return work / "aoe_workspace" / stem / "tunespace" / "result" / (stem + "_tune.json");
}

namespace detail {

inline boost::json::value attribute_to_json(const Attribute& a) {
  return std::visit(
      [](const auto& v) -> boost::json::value {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          boost::json::array arr;
          for (const auto x : v) arr.push_back(x);
          return arr;
        } else {
          return boost::json::value(v);
        }
      },
      a);
}

/// A tensor's description in the model format: {"shape", "dtype", "format"}.
[[nodiscard]] inline boost::json::object tensor_json(const TensorDesc& desc) {
  boost::json::object d;
  boost::json::array shape;
  for (const auto x : desc.shape) shape.push_back(x);
  d["shape"] = std::move(shape);
  d["dtype"] = std::string(to_string(desc.dtype));
  d["format"] = std::string(to_string(desc.format));
  return d;
}

/// The "opat" member of the nodes of a tuned operator.
[[nodiscard]] inline boost::json::object tuned_operator_json(const TunedOperator& t) {
  boost::json::object opat;
  opat["fused_op"] = t.name;
  opat["fused_type"] = t.type;
  boost::json::object knowledge;
  for (const auto& [kind, values] : t.knowledge) {
    boost::json::object k;
    for (const auto& nv : values) k[nv.name] = value_to_json(nv.value);
    knowledge[kind] = std::move(k);
  }
  opat["knowledge"] = std::move(knowledge);
  opat["performance_before(us)"] = t.default_us;
  opat["performance_after(us)"] = t.result_us;
  return opat;
}

}  // namespace detail

/// The graph in the model format (docs/model_format.md), each node of a tuned operator carrying
/// "opat": {"fused_op", "fused_type", "knowledge": {"Schedule": {...}}, "performance_before(us)",
/// "performance_after(us)"}. It loads back with load_graph.
[[nodiscard]] inline boost::json::object tuned_model_json(const Graph& g,
                                                          const std::vector<TunedOperator>& ops) {
  boost::json::object tensors;
  const auto names = [&tensors](const std::vector<TensorRef>& ts) {
    boost::json::array out;
    for (const auto& t : ts) {
      if (!tensors.contains(t.name)) tensors[t.name] = detail::tensor_json(t.desc);
      out.push_back(boost::json::string(t.name));
    }
    return out;
  };
  std::vector<const TunedOperator*> by_node(g.nodes.size(), nullptr);
  for (const auto& op : ops) {
    for (const auto n : op.nodes) {
      if (n < by_node.size()) by_node[n] = &op;
    }
  }
  boost::json::array nodes;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    boost::json::object o;
    o["name"] = n.name;
    o["type"] = n.type;
    o["inputs"] = names(n.inputs);
    o["outputs"] = names(n.outputs);
    if (!n.attributes.empty()) {
      boost::json::object attrs;
      for (const auto& [k, v] : n.attributes) attrs[k] = detail::attribute_to_json(v);
      o["attributes"] = std::move(attrs);
    }
    if (by_node[i] != nullptr) o["opat"] = detail::tuned_operator_json(*by_node[i]);
    nodes.push_back(std::move(o));
  }
  boost::json::object root;
  root["format_version"] = model_format_version;
  root["name"] = g.name;
  root["tensors"] = std::move(tensors);
  root["nodes"] = std::move(nodes);
  return root;
}

namespace detail {

/// Appends JSON tokens to `Out` (a std::string, an AtomicFileSink: `append(std::string_view)`
/// and `push_back(char)`) exactly as boost::json::serialize writes them: strings of plain
/// printable ASCII and integers directly, everything else (escapes, doubles) through Boost's own
/// serializer, so the text is byte for byte Boost's.
template <class Out>
class JsonAppender {
 public:
  explicit JsonAppender(Out& out) : out_(&out) {}

  void raw(std::string_view s) { out_->append(s); }
  void string(std::string_view s) {
    bool plain = true;
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      plain = plain && u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
    }
    if (!plain) {
      serializer_.reset(s);
      drain();
      return;
    }
    out_->push_back('"');
    out_->append(s);
    out_->push_back('"');
  }
  void integer(std::int64_t v) {
    std::array<char, 24> b{};
    const auto r = std::to_chars(b.data(), b.data() + b.size(), v);
    out_->append(std::string_view(b.data(), static_cast<std::size_t>(r.ptr - b.data())));
  }
  /// False (nothing written) when `v` is not finite.
  [[nodiscard]] bool number(double v) {
    if (!std::isfinite(v)) return false;
    value(boost::json::value(v));
    return true;
  }
  /// A scalar or a small value; the caller checks that its numbers are finite.
  void value(const boost::json::value& v) {
    serializer_.reset(&v);
    drain();
  }
  /// An attribute as attribute_to_json makes it; false when a number is not finite.
  [[nodiscard]] bool attribute(const Attribute& a) {
    if (const auto* d = std::get_if<double>(&a)) return number(*d);
    if (const auto* s = std::get_if<std::string>(&a)) {
      string(*s);
    } else if (const auto* i = std::get_if<std::int64_t>(&a)) {
      integer(*i);
    } else if (const auto* b = std::get_if<bool>(&a)) {
      raw(*b ? "true" : "false");
    } else {
      const auto& v = std::get<std::vector<std::int64_t>>(a);
      out_->push_back('[');
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (k > 0) out_->push_back(',');
        integer(v[k]);
      }
      out_->push_back(']');
    }
    return true;
  }

 private:
  void drain() {
    std::array<char, 256> buf{};
    while (!serializer_.done()) out_->append(serializer_.read(buf.data(), buf.size()));
  }

  Out* out_;
  boost::json::serializer serializer_;
};

/// Appends the "opat" member of the nodes of `t` (the object tuned_model_json gives them); false
/// when a number in it is not finite or a knowledge kind or parameter name repeats (cases
/// tuned_model_json's object handles: the caller falls back to it).
template <class Out>
[[nodiscard]] bool append_tuned_operator(JsonAppender<Out>& w, const TunedOperator& t) {
  w.raw("{\"fused_op\":");
  w.string(t.name);
  w.raw(",\"fused_type\":");
  w.string(t.type);
  w.raw(",\"knowledge\":{");
  for (std::size_t k = 0; k < t.knowledge.size(); ++k) {
    const auto& [kind, values] = t.knowledge[k];
    for (std::size_t j = 0; j < k; ++j) {
      if (t.knowledge[j].first == kind) return false;
    }
    if (k > 0) w.raw(",");
    w.string(kind);
    w.raw(":{");
    for (std::size_t v = 0; v < values.size(); ++v) {
      for (std::size_t j = 0; j < v; ++j) {
        if (values[j].name == values[v].name) return false;
      }
      if (v > 0) w.raw(",");
      w.string(values[v].name);
      w.raw(":");
      const Value& x = values[v].value;
      if (x.is_real()) {
        if (!w.number(x.as_real())) return false;
      } else if (x.is_integer()) {
        w.integer(x.as_integer());
      } else {
        w.string(x.as_text());
      }
    }
    w.raw("}");
  }
  w.raw("},\"performance_before(us)\":");
  if (!w.number(t.default_us)) return false;
  w.raw(",\"performance_after(us)\":");
  if (!w.number(t.result_us)) return false;
  w.raw("}");
  return true;
}

/// Each node's tuned operator: an index into `ops` (the last operator that covers the node),
/// `ops.size()` for none.
[[nodiscard]] inline std::vector<std::size_t> tuned_operator_of_nodes(
    const Graph& g, const std::vector<TunedOperator>& ops) {
  std::vector<std::size_t> by_node(g.nodes.size(), ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    for (const auto n : ops[k].nodes) {
      if (n < by_node.size()) by_node[n] = k;
    }
  }
  return by_node;
}

/// The tensor references of `g`'s nodes.
[[nodiscard]] inline std::size_t tensor_references(const Graph& g) {
  std::size_t references = 0;
  for (const auto& n : g.nodes) references += n.inputs.size() + n.outputs.size();
  return references;
}

/// By the loader's tensor number (Graph::tensor_ids), the name of its first reference, when the
/// numbers hold for `g` as GraphIndex takes them: one per reference, each below tensor_count,
/// every reference of a number named as its first. Empty otherwise (a graph built or edited in
/// code): the names are then hashed.
[[nodiscard]] inline std::vector<std::string_view> names_by_loader_number(const Graph& g,
                                                                          std::size_t references) {
  if (g.tensor_ids.size() != references || g.tensor_count == 0) return {};
  std::vector<std::string_view> first(g.tensor_count);  // a null view: not referenced yet
  std::size_t at = 0;
  for (const auto& n : g.nodes) {
    for (const auto* side : {&n.inputs, &n.outputs}) {
      for (const auto& t : *side) {
        const std::uint32_t number = g.tensor_ids[at++];
        if (number >= first.size()) return {};
        std::string_view& name = first[number];
        if (name.data() == nullptr) {
          name = t.name;
        } else if (name != t.name) {
          return {};
        }
      }
    }
  }
  return first;
}

/// The "tensors" object: tensors in order of first reference (a node's inputs, then its
/// outputs), each described as where it is first referenced. A loaded graph's tensors are
/// told apart by the loader's numbers (names_by_loader_number), others by name in a flat table:
/// hashing every reference's name into a table of 10^6 tensors misses the caches.
template <class Out>
void append_tensors(JsonAppender<Out>& w, const Graph& g, std::size_t references) {
  w.raw("{");
  std::size_t written = 0;
  const auto tensor = [&](const TensorRef& t) {
    if (written++ > 0) w.raw(",");
    w.string(t.name);
    w.raw(":{\"shape\":[");
    for (std::size_t k = 0; k < t.desc.shape.size(); ++k) {
      if (k > 0) w.raw(",");
      w.integer(t.desc.shape[k]);
    }
    w.raw("],\"dtype\":");
    w.string(to_string(t.desc.dtype));
    w.raw(",\"format\":");
    w.string(to_string(t.desc.format));
    w.raw("}");
  };
  if (const auto numbered = names_by_loader_number(g, references); !numbered.empty()) {
    std::vector<bool> seen(numbered.size(), false);
    std::size_t at = 0;
    for (const auto& n : g.nodes) {
      for (const auto* side : {&n.inputs, &n.outputs}) {
        for (const auto& t : *side) {
          const std::uint32_t number = g.tensor_ids[at++];
          if (seen[number]) continue;
          seen[number] = true;
          tensor(t);
        }
      }
    }
  } else {
    NameTable seen;
    seen.reserve(references / 2 + 1);
    for (const auto& n : g.nodes) {
      for (const auto* side : {&n.inputs, &n.outputs}) {
        for (const auto& t : *side) {
          if (seen.insert(t.name).second) tensor(t);
        }
      }
    }
  }
  w.raw("}");
}

/// A node's object, with its operator's "opat" text when it is tuned (`opat` not null); false
/// when an attribute's number is not finite.
template <class Out>
[[nodiscard]] bool append_node(JsonAppender<Out>& w, const Node& n, const std::string* opat) {
  const auto names = [&w](const std::vector<TensorRef>& ts) {
    w.raw("[");
    for (std::size_t k = 0; k < ts.size(); ++k) {
      if (k > 0) w.raw(",");
      w.string(ts[k].name);
    }
    w.raw("]");
  };
  w.raw("{\"name\":");
  w.string(n.name);
  w.raw(",\"type\":");
  w.string(n.type);
  w.raw(",\"inputs\":");
  names(n.inputs);
  w.raw(",\"outputs\":");
  names(n.outputs);
  if (!n.attributes.empty()) {
    w.raw(",\"attributes\":{");
    bool first = true;
    for (const auto& [key, value] : n.attributes) {
      w.raw(first ? "" : ",");
      first = false;
      w.string(key);
      w.raw(":");
      if (!w.attribute(value)) return false;
    }
    w.raw("}");
  }
  if (opat != nullptr) {
    w.raw(",\"opat\":");
    w.raw(*opat);
  }
  w.raw("}");
  return true;
}

/// Appends boost::json::serialize(tuned_model_json(g, ops)) to `out` (a std::string, an
/// AtomicFileSink), node by node: no JSON tree of the whole graph (tens of allocations per
/// node), tensors numbered in a flat table, and a tuned operator's "opat" text made once for
/// the nodes that follow one another in it (made again, the same bytes, for a node apart from
/// the others). False, with part of the text appended, when a number is not finite or a tuned
/// operator of a node repeats a name (write_tuned_model then takes tuned_model_json's way, which
/// names the number's JSON pointer in its error).
template <class Out>
[[nodiscard]] bool append_tuned_model(Out& out, const Graph& g,
                                      const std::vector<TunedOperator>& ops) {
  const std::vector<std::size_t> by_node = tuned_operator_of_nodes(g, ops);
  JsonAppender w(out);
  w.raw("{\"format_version\":");
  w.integer(model_format_version);
  w.raw(",\"name\":");
  w.string(g.name);
  w.raw(",\"tensors\":");
  append_tensors(w, g, tensor_references(g));
  w.raw(",\"nodes\":[");
  std::string opat;
  JsonAppender opat_writer(opat);
  std::size_t opat_of = ops.size();  // the operator whose text `opat` holds
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (i > 0) w.raw(",");
    const std::size_t k = by_node[i];
    if (k < ops.size() && k != opat_of) {
      opat.clear();
      if (!append_tuned_operator(opat_writer, ops[k])) return false;
      opat_of = k;
    }
    if (!append_node(w, g.nodes[i], k < ops.size() ? &opat : nullptr)) return false;
  }
  w.raw("]}");
  return true;
}

/// boost::json::serialize(tuned_model_json(g, ops)) as one string (append_tuned_model); nullopt
/// when append_tuned_model fails.
[[nodiscard]] inline std::optional<std::string> tuned_model_text(
    const Graph& g, const std::vector<TunedOperator>& ops) {
  std::string text;
  // The nodes' text without their "opat" members (a reallocation copies the whole text).
  std::size_t bytes = 32 + g.name.size();
  for (const auto& n : g.nodes) {
    bytes += 64 + n.name.size() + n.type.size();
    for (const auto& t : n.inputs) bytes += t.name.size() + 3;
    for (const auto& t : n.outputs) bytes += t.name.size() + 3;
  }
  text.reserve(bytes + tensor_references(g) * 64);
  if (!append_tuned_model(text, g, ops)) return std::nullopt;
  return text;
}

/// Makes the tuned model's directory, `file`'s. Each job's default place is a new directory, so
/// the temporary files a killed job left in an earlier workspace
/// (.../aoe_workspace/<run>/tunespace/result/) are removed here, once per process, by the first
/// job that writes beside them.
[[nodiscard]] inline Result<void> prepare_tuned_model_directory(const std::filesystem::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) ec = make_directories(file.parent_path());
  if (ec) {
    return make_error(Errc::io_error, "cannot create " + file.parent_path().string() + ": " +
                                          ec.message() + " (the tuned model's directory)");
  }
  const auto result = file.parent_path();
  const auto workspace = result.parent_path().parent_path().parent_path();
  if (result.filename() == "result" && result.parent_path().filename() == "tunespace" &&
      workspace.filename() == "aoe_workspace") {
    for (const auto& run : std::filesystem::directory_iterator(workspace, ec)) {
      const auto dir = run.path() / "tunespace" / "result";
      if (dir != result) remove_stale_temporary_files_once(dir);
    }
  }
  return {};
}

/// Writes a tuned model's `text` to `file` atomically (rename, no fsync), creating its
/// directories (prepare_tuned_model_directory).
[[nodiscard]] inline Result<void> write_tuned_model_text(const std::filesystem::path& file,
                                                         const std::string& text) {
  if (auto ok = prepare_tuned_model_directory(file); !ok) return ok;
  return write_file_atomically(file, text, false);
}

}  // namespace detail

/// Writes the tuned model atomically (rename, no fsync), creating its directories: made node by
/// node into the file (detail::append_tuned_model), never held whole in memory. When its text
/// cannot be written that way (a number that is not finite, a name a tuned operator repeats),
/// the file begun is removed and the model is serialised from tuned_model_json instead, whose
/// error names the JSON pointer of a number that is not finite.
[[nodiscard]] inline Result<void> write_tuned_model(const Graph& g,
                                                    const std::vector<TunedOperator>& ops,
                                                    const std::filesystem::path& file) {
  if (auto ok = detail::prepare_tuned_model_directory(file); !ok) return ok;
  bool as_text = true;
  auto streamed = write_file_atomically(
      file,
      [&](AtomicFileSink& out) -> Result<void> {
        if (detail::append_tuned_model(out, g, ops)) return {};
        as_text = false;
        return make_error(Errc::invalid_argument,
                          "the tuned model's text cannot hold one of its numbers or names");
      },
      false);
  if (as_text) return streamed;
  auto text = detail::serialize_json(tuned_model_json(g, ops), file.string());
  if (!text) return text.error();
  return write_file_atomically(file, *text, false);
}

}  // namespace aoe

#endif  // AOE_JOBS_TUNED_MODEL_WRITER_HPP
