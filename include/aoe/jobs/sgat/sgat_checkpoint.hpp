// SGAT's checkpoint, for --reload (AOE: "resume an interrupted subgraph tuning job";
// docs/sgat.md#reload): <work>/aoe_sgat_reload_<model>.json, one JSON object rewritten
// atomically and durably at the start of every wave (before the wave writes the bank) and once
// more when the job has ended. It holds what the job has done (the subgraphs accounted, each
// with the strategy it uses), what the job carries from one subgraph to the next, and, for the
// wave about to run, the bank record of each of its subgraphs' keys as it was before the wave
// (`undo`). A reload puts those records back, so that the writes of a wave cut short are
// undone, takes the rest and runs the job on from that wave. The waves are deterministic
// (job_skeleton.hpp), so a job killed at any point and reloaded ends with the bank, the result
// file and the tuned model of a job that was never killed (their time stamps apart).
#ifndef AOE_JOBS_SGAT_SGAT_CHECKPOINT_HPP
#define AOE_JOBS_SGAT_SGAT_CHECKPOINT_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"
#include "aoe/io/write_json.hpp"
#include "aoe/jobs/sgat/graph_bank.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/jobs/sgat/subgraph_key.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"
#include "aoe/repo/knowledge_bank.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe {

/// The checkpoint format this build reads and writes.
inline constexpr std::int64_t sgat_checkpoint_version = 1;

/// What an SGAT job has done, as its checkpoint holds it (see the header).
struct SgatCheckpoint {
  /// What decides the job's outputs (the model's subgraphs, the SoC, the search, its budget and
  /// seed, the flags, the bank and tuned model files): a reload of another job is refused.
  boost::json::object job;
  std::string timestamp;  ///< the job's stamp: its result file and report keep it
  long tid = 0;           ///< of the report's key
  std::filesystem::path result_file;
  double tuning_seconds = 0;  ///< tuned so far, over every run of the job
  std::size_t next = 0;       ///< the first subgraph not accounted (the first of a wave)
  bool finished = false;      ///< the job ended (every subgraph accounted)
  std::vector<SgatSubgraphReport> subgraphs;  ///< the `next` subgraphs accounted, in order
  std::vector<std::uint64_t> tuned_keys;      ///< the job's SgatJobState
  std::vector<std::uint64_t> unsatisfied_in_job;
  /// A key of the wave about to run and its bank record before the wave (none: no record).
  struct Undo {
    SubgraphKey key;
    std::optional<GraphBankRecord> before;
  };
  std::vector<Undo> undo;
};

/// <work>/aoe_sgat_reload_<model>.json, the model name made a file name (model_file_stem).
[[nodiscard]] inline std::filesystem::path sgat_checkpoint_file(const std::filesystem::path& work,
                                                                const std::string& model) {
  return work / ("aoe_sgat_reload_" + model_file_stem(model) + ".json");
}

namespace detail {

[[nodiscard]] inline boost::json::array sgat_keys_json(const std::vector<std::uint64_t>& keys) {
  boost::json::array a;
  for (const auto k : keys) a.push_back(boost::json::value(std::to_string(k)));
  return a;
}

[[nodiscard]] inline boost::json::object sgat_subgraph_json(const SgatSubgraphReport& s) {
  boost::json::object o;
  o["index"] = static_cast<std::int64_t>(s.index);
  o["name"] = s.name;
  o["repo_key"] = s.repo_key;
  o["outcome"] = to_string(s.outcome);
  o["default_ms"] = s.default_ms;
  o["before_ms"] = s.before_ms;
  o["after_ms"] = s.after_ms;
  o["evaluations"] = static_cast<std::int64_t>(s.evaluations);
  o["strategy"] = s.strategy;
  o["error"] = s.error;
  boost::json::object values;
  for (const auto& nv : s.values) values[nv.name] = value_to_json(nv.value);
  o["values"] = std::move(values);
  return o;
}

/// Reads the fields of one checkpoint object; an error names the file and the JSON pointer of
/// the field.
class CheckpointReader {
 public:
  explicit CheckpointReader(std::string file) : file_(std::move(file)) {}

  [[nodiscard]] ErrorInfo bad(const std::string& pointer, std::string_view what) const {
    return make_error(Errc::schema_error, file_ + ": " + pointer + ": expected " +
                                              std::string(what) +
                                              " (an SGAT checkpoint, docs/sgat.md#reload)");
  }

  [[nodiscard]] Result<const boost::json::value*> field(const boost::json::object& o,
                                                        const std::string& at, std::string_view key,
                                                        std::string_view what) const {
    const auto* v = o.if_contains(key);
    if (v == nullptr) return bad(at + "/" + std::string(key), what);
    return v;
  }
  [[nodiscard]] Result<std::string> text(const boost::json::object& o, const std::string& at,
                                         std::string_view key) const {
    auto v = field(o, at, key, "a string");
    if (!v) return v.error();
    if (!(*v)->is_string()) return bad(at + "/" + std::string(key), "a string");
    return std::string((*v)->as_string());
  }
  [[nodiscard]] Result<double> number(const boost::json::object& o, const std::string& at,
                                      std::string_view key) const {
    auto v = field(o, at, key, "a number");
    if (!v) return v.error();
    if (!(*v)->is_number()) return bad(at + "/" + std::string(key), "a number");
    return (*v)->to_number<double>();
  }
  [[nodiscard]] Result<std::size_t> count(const boost::json::object& o, const std::string& at,
                                          std::string_view key) const {
    auto v = field(o, at, key, "a count");
    if (!v) return v.error();
    if (!(*v)->is_int64() || (*v)->as_int64() < 0) {
      return bad(at + "/" + std::string(key), "a non-negative integer");
    }
    return static_cast<std::size_t>((*v)->as_int64());
  }
  [[nodiscard]] Result<const boost::json::array*> array(const boost::json::object& o,
                                                        const std::string& at,
                                                        std::string_view key) const {
    auto v = field(o, at, key, "an array");
    if (!v) return v.error();
    if (!(*v)->is_array()) return bad(at + "/" + std::string(key), "an array");
    return &(*v)->as_array();
  }
  [[nodiscard]] Result<std::vector<std::uint64_t>> keys(const boost::json::object& o,
                                                        std::string_view key) const {
    auto a = array(o, "", key);
    if (!a) return a.error();
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < (*a)->size(); ++i) {
      const auto& e = (**a)[i];
      const std::string at = "/" + std::string(key) + "/" + std::to_string(i);
      if (!e.is_string()) return bad(at, "a decimal key in a string");
      const std::string s(e.as_string());
      if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) {
        return bad(at, "a decimal key in a string");
      }
      std::size_t used = 0;
      try {
        out.push_back(std::stoull(s, &used));
      } catch (const std::out_of_range&) {
        return bad(at, "a 64-bit key");
      }
    }
    return out;
  }
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  std::string file_;
};

/// One subgraph report of the checkpoint, at `at` ("/subgraphs/3").
[[nodiscard]] inline Result<SgatSubgraphReport> read_sgat_subgraph(const CheckpointReader& r,
                                                                   const boost::json::value& v,
                                                                   const std::string& at) {
  if (!v.is_object()) return r.bad(at, "an object");
  const auto& o = v.as_object();
  SgatSubgraphReport s;
  for (auto [key, to] : {std::pair{"index", &s.index}, std::pair{"evaluations", &s.evaluations}}) {
    auto n = r.count(o, at, key);
    if (!n) return n.error();
    *to = *n;
  }
  for (auto [key, to] : {std::pair{"name", &s.name}, std::pair{"repo_key", &s.repo_key},
                         std::pair{"strategy", &s.strategy}, std::pair{"error", &s.error}}) {
    auto t = r.text(o, at, key);
    if (!t) return t.error();
    *to = std::move(*t);
  }
  for (auto [key, to] :
       {std::pair{"default_ms", &s.default_ms}, std::pair{"before_ms", &s.before_ms},
        std::pair{"after_ms", &s.after_ms}}) {
    auto n = r.number(o, at, key);
    if (!n) return n.error();
    *to = *n;
  }
  auto outcome = r.text(o, at, "outcome");
  if (!outcome) return outcome.error();
  const auto parsed = job_outcome_from(*outcome);
  if (!parsed) return r.bad(at + "/outcome", "hit, add, update, reserved, unsatisfied or failed");
  s.outcome = *parsed;
  auto values = r.field(o, at, "values", "an object of parameter values");
  if (!values) return values.error();
  if (!(*values)->is_object()) return r.bad(at + "/values", "an object of parameter values");
  for (const auto& [name, value] : (*values)->as_object()) {
    auto val = value_from_json(value);
    if (!val) return r.bad(at + "/values/" + pointer_token(name), "a scalar");
    s.values.push_back({std::string(name), std::move(*val)});
  }
  return s;
}

/// The undo list of the checkpoint: each key's record as a graph bank line (or null).
[[nodiscard]] inline Result<std::vector<SgatCheckpoint::Undo>> read_sgat_undo(
    const CheckpointReader& r, const boost::json::object& root, const GraphBank& bank) {
  auto list = r.array(root, "", "undo");
  if (!list) return list.error();
  std::vector<SgatCheckpoint::Undo> out;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const std::string at = "/undo/" + std::to_string(i);
    const auto& e = (**list)[i];
    if (!e.is_object()) return r.bad(at, "an object");
    auto signature = r.text(e.as_object(), at, "signature");
    if (!signature) return signature.error();
    SgatCheckpoint::Undo u{{*signature, subgraph_key_hash(*signature)}, std::nullopt};
    auto before = r.field(e.as_object(), at, "before", "a graph bank line or null");
    if (!before) return before.error();
    if ((*before)->is_string()) {
      auto record = bank.from_line((*before)->as_string(), r.file() + ": " + at + "/before");
      if (!record) return record.error();
      u.before = std::move(*record);
    } else if (!(*before)->is_null()) {
      return r.bad(at + "/before", "a graph bank line or null");
    }
    out.push_back(std::move(u));
  }
  return out;
}

/// The head of the checkpoint: its version, job, stamp, result file and progress.
[[nodiscard]] inline Result<void> read_sgat_checkpoint_head(const CheckpointReader& r,
                                                            const boost::json::object& root,
                                                            SgatCheckpoint& cp) {
  auto version = r.count(root, "", "version");
  if (!version) return version.error();
  if (static_cast<std::int64_t>(*version) != sgat_checkpoint_version) {
    return make_error(Errc::schema_error,
                      r.file() + ": /version: " + std::to_string(*version) +
                          ", and this build reads SGAT checkpoints of version " +
                          std::to_string(sgat_checkpoint_version) +
                          "; run the job again without --reload");
  }
  auto job = r.field(root, "", "job", "an object");
  if (!job) return job.error();
  if (!(*job)->is_object()) return r.bad("/job", "an object");
  cp.job = (*job)->as_object();
  auto timestamp = r.text(root, "", "timestamp");
  auto file = r.text(root, "", "result_file");
  auto tid = r.count(root, "", "tid");
  auto seconds = r.number(root, "", "tuning_seconds");
  auto next = r.count(root, "", "next");
  auto finished = r.field(root, "", "finished", "true or false");
  if (!timestamp) return timestamp.error();
  if (!file) return file.error();
  if (!tid) return tid.error();
  if (!seconds) return seconds.error();
  if (!next) return next.error();
  if (!finished) return finished.error();
  if (!(*finished)->is_bool()) return r.bad("/finished", "true or false");
  cp.timestamp = *timestamp;
  cp.result_file = *file;
  cp.tid = static_cast<long>(*tid);
  cp.tuning_seconds = *seconds;
  cp.next = *next;
  cp.finished = (*finished)->as_bool();
  return {};
}

}  // namespace detail

/// The checkpoint as its file's text; `bank` writes the undo records as its lines.
[[nodiscard]] inline Result<std::string> sgat_checkpoint_text(const SgatCheckpoint& cp,
                                                              const GraphBank& bank,
                                                              const std::filesystem::path& file) {
  boost::json::object o;
  o["version"] = sgat_checkpoint_version;
  o["job"] = cp.job;
  o["timestamp"] = cp.timestamp;
  o["tid"] = static_cast<std::int64_t>(cp.tid);
  o["result_file"] = cp.result_file.string();
  o["tuning_seconds"] = cp.tuning_seconds;
  o["next"] = static_cast<std::int64_t>(cp.next);
  o["finished"] = cp.finished;
  boost::json::array subgraphs;
  for (const auto& s : cp.subgraphs) subgraphs.push_back(detail::sgat_subgraph_json(s));
  o["subgraphs"] = std::move(subgraphs);
  o["tuned_keys"] = detail::sgat_keys_json(cp.tuned_keys);
  o["unsatisfied_in_job"] = detail::sgat_keys_json(cp.unsatisfied_in_job);
  boost::json::array undo;
  for (const auto& u : cp.undo) {
    boost::json::object e;
    e["signature"] = u.key.signature;
    if (u.before) {
      auto line = bank.to_line(*u.before);
      if (!line) return line.error();
      e["before"] = *line;
    } else {
      e["before"] = nullptr;
    }
    undo.push_back(std::move(e));
  }
  o["undo"] = std::move(undo);
  return detail::serialize_json(o, file.string());
}

/// Writes the checkpoint to `file`, atomically and durably.
[[nodiscard]] inline Result<void> write_sgat_checkpoint(const std::filesystem::path& file,
                                                        const SgatCheckpoint& cp,
                                                        const GraphBank& bank) {
  auto text = sgat_checkpoint_text(cp, bank, file);
  if (!text) return text.error();
  return write_file_atomically(file, *text, true);
}

/// The checkpoint of `text` (the file `file`'s); an error names the file and the field.
[[nodiscard]] inline Result<SgatCheckpoint> parse_sgat_checkpoint(std::string_view text,
                                                                  const std::filesystem::path& file,
                                                                  const GraphBank& bank) {
  auto parsed = detail::parse_json(text, file.string());
  if (!parsed) return parsed.error();
  const detail::CheckpointReader r(file.string());
  if (!parsed->is_object()) return r.bad("/", "an object");
  const auto& root = parsed->as_object();
  SgatCheckpoint cp;
  if (auto ok = detail::read_sgat_checkpoint_head(r, root, cp); !ok) return ok.error();
  auto subgraphs = r.array(root, "", "subgraphs");
  if (!subgraphs) return subgraphs.error();
  for (std::size_t i = 0; i < (*subgraphs)->size(); ++i) {
    auto s = detail::read_sgat_subgraph(r, (**subgraphs)[i], "/subgraphs/" + std::to_string(i));
    if (!s) return s.error();
    cp.subgraphs.push_back(std::move(*s));
  }
  if (cp.subgraphs.size() != cp.next) {
    return r.bad("/subgraphs", "one report for each of the " + std::to_string(cp.next) +
                                   " subgraphs accounted (/next)");
  }
  auto tuned = r.keys(root, "tuned_keys");
  if (!tuned) return tuned.error();
  auto unsatisfied = r.keys(root, "unsatisfied_in_job");
  if (!unsatisfied) return unsatisfied.error();
  cp.tuned_keys = std::move(*tuned);
  cp.unsatisfied_in_job = std::move(*unsatisfied);
  auto undo = detail::read_sgat_undo(r, root, bank);
  if (!undo) return undo.error();
  cp.undo = std::move(*undo);
  return cp;
}

/// The checkpoint in `file`; none when there is no such file. A file that cannot be read or
/// is not a checkpoint is an error naming it.
[[nodiscard]] inline Result<std::optional<SgatCheckpoint>> read_sgat_checkpoint(
    const std::filesystem::path& file, const GraphBank& bank) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    if (!ec) return std::optional<SgatCheckpoint>();
    return make_error(Errc::io_error, "cannot read " + file.string() + ": " + ec.message());
  }
  auto text = detail::read_input_file(file, "an SGAT checkpoint, docs/sgat.md#reload");
  if (!text) return text.error();
  auto cp = parse_sgat_checkpoint(*text, file, bank);
  if (!cp) return cp.error();
  return std::optional<SgatCheckpoint>(std::move(*cp));
}

/// Whether the checkpoint `cp` (of `file`) is of the job `job` (sgat_job_identity): the first
/// field that differs is an error (invalid_argument, exit 2) that names it.
[[nodiscard]] inline Result<void> check_sgat_checkpoint_job(const SgatCheckpoint& cp,
                                                            const boost::json::object& job,
                                                            const std::filesystem::path& file) {
  for (const auto& [key, value] : job) {
    const auto* theirs = cp.job.if_contains(key);
    if (theirs != nullptr && *theirs == value) continue;
    return make_error(
        Errc::invalid_argument,
        "--reload: " + file.string() + " is the checkpoint of another job: its " +
            std::string(key) + " is " +
            (theirs != nullptr ? boost::json::serialize(*theirs) : std::string("not set")) +
            ", this job's is " + boost::json::serialize(value) +
            "; run with the flags of that job, or without --reload to start afresh");
  }
  return {};
}

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SGAT_CHECKPOINT_HPP
