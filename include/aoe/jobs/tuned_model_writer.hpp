// The tuned model OPAT leaves behind: the input graph with each fused operator's chosen policy
// attached, at ${WORK_PATH}/aoe_workspace/${model_name}_${timestamp}/tunespace/result/
// ${model_name}_${timestamp}_tune.json (AOE writes a .om there; ours is the JSON graph).
#ifndef AOE_JOBS_TUNED_MODEL_WRITER_HPP
#define AOE_JOBS_TUNED_MODEL_WRITER_HPP

#include "aoe/core/error.hpp"
#include "aoe/detail/write_json.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/loader.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/space/value.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <filesystem>
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
  std::vector<std::pair<std::string, std::vector<NamedValue>>> knowledge;
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

}  // namespace detail

/// The graph in the model format (docs/model_format.md), each node of a tuned operator carrying
/// "opat": {"fused_op", "fused_type", "knowledge": {"Schedule": {...}}, "performance_before(us)",
/// "performance_after(us)"}. It loads back with load_graph.
[[nodiscard]] inline boost::json::object tuned_model_json(const Graph& g,
                                                          const std::vector<TunedOperator>& ops) {
  boost::json::object root;
  root["format_version"] = model_format_version;
  root["name"] = g.name;
  boost::json::object tensors;
  const auto put = [&tensors](const TensorRef& t) {
    if (tensors.contains(t.name)) return;
    boost::json::object d;
    boost::json::array shape;
    for (const auto x : t.desc.shape) shape.push_back(x);
    d["shape"] = std::move(shape);
    d["dtype"] = std::string(to_string(t.desc.dtype));
    d["format"] = std::string(to_string(t.desc.format));
    tensors[t.name] = std::move(d);
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
    boost::json::array in;
    boost::json::array out;
    for (const auto& t : n.inputs) {
      put(t);
      in.push_back(boost::json::string(t.name));
    }
    for (const auto& t : n.outputs) {
      put(t);
      out.push_back(boost::json::string(t.name));
    }
    o["inputs"] = std::move(in);
    o["outputs"] = std::move(out);
    if (!n.attributes.empty()) {
      boost::json::object attrs;
      for (const auto& [k, v] : n.attributes) attrs[k] = detail::attribute_to_json(v);
      o["attributes"] = std::move(attrs);
    }
    if (const TunedOperator* t = by_node[i]) {
      boost::json::object opat;
      opat["fused_op"] = t->name;
      opat["fused_type"] = t->type;
      boost::json::object knowledge;
      for (const auto& [kind, values] : t->knowledge) {
        boost::json::object k;
        for (const auto& nv : values) k[nv.name] = detail::value_to_json(nv.value);
        knowledge[kind] = std::move(k);
      }
      opat["knowledge"] = std::move(knowledge);
      opat["performance_before(us)"] = t->default_us;
      opat["performance_after(us)"] = t->result_us;
      o["opat"] = std::move(opat);
    }
    nodes.push_back(std::move(o));
  }
  root["tensors"] = std::move(tensors);
  root["nodes"] = std::move(nodes);
  return root;
}

namespace detail {

/// Writes a tuned model's `text` to `file` atomically (rename, no fsync), creating its
/// directories. Each job's default place is a new directory, so the temporary files a killed
/// job left in an earlier workspace (.../aoe_workspace/<run>/tunespace/result/) are removed
/// here, once per process, by the first job that writes beside them.
[[nodiscard]] inline Result<void> write_tuned_model_text(const std::filesystem::path& file,
                                                         const std::string& text) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
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
  return write_file_atomically(file, text, false);
}

}  // namespace detail

/// Writes the tuned model atomically (rename, no fsync), creating its directories.
[[nodiscard]] inline Result<void> write_tuned_model(const Graph& g,
                                                    const std::vector<TunedOperator>& ops,
                                                    const std::filesystem::path& file) {
  auto text = detail::serialize_json(tuned_model_json(g, ops), file.string());
  if (!text) return text.error();
  return detail::write_tuned_model_text(file, *text);
}

}  // namespace aoe

#endif  // AOE_JOBS_TUNED_MODEL_WRITER_HPP
