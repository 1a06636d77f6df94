// The gradient-fusion bank: the split tuned for a model on a cluster, kept on disk so that the
// next job reuses it (ascend-aoe-facts.md §2.5(d)). One file per SoC, beside SGAT's graph bank,
//     <graph bank root>/<soc_version>_gradient_fusion.json
// (the root: TUNE_BANK_PATH, else ${ASCEND_CACHE_PATH}/aoe_data, else
// ${HOME}/Ascend/latest/data/aoe/custom/graph; aoe::Environment::graph_bank_root()), holding,
// as AOE's does, a JSON array of {"modelhash", "modelvalue": {"gradientTime", "gradientSize"}}
// entries, with our split under "openaoe":
//     {"modelhash": "<decimal>", "modelvalue": {"gradientTime": [us...], "gradientSize": [B...]},
//      "openaoe": {"schema_version": 1, "model_name", "cluster": "<Cluster::signature>;
//                  segments=<K>", "split_strategy": {"by_idx": [...], "by_size": [...]},
//                  "iteration_time(ms)", "default_iteration_time(ms)",
//                  "provenance": {"policy", "evaluations", "timestamp", "tool"}}}
// An entry is found by model hash and cluster text. Entries without "openaoe" (written by AOE)
// are kept as they are and never used. Stores take a file lock, re-read the file, merge and
// write it atomically (temporary file, fsync, rename), like the operator bank; a corrupt file
// or an entry of an unknown schema version is an error and the file is never overwritten.
#ifndef AOE_JOBS_GDAT_GRADIENT_FUSION_BANK_HPP
#define AOE_JOBS_GDAT_GRADIENT_FUSION_BANK_HPP

#include "aoe/core/error.hpp"
#include "aoe/detail/parse_json.hpp"
#include "aoe/detail/read_input.hpp"
#include "aoe/detail/write_json.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/repo/bank_access.hpp"
#include "aoe/repo/detail/bank_file.hpp"
#include "aoe/repo/record.hpp"
#include "aoe/version.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe::gdat {

/// The schema version of the "openaoe" part of an entry this build reads and writes.
inline constexpr std::int64_t gradient_bank_schema_version = 1;

/// One model's split on one cluster.
struct GradientFusionRecord {
  std::string model_hash;  ///< GradientProfile::hash()
  std::string cluster;     ///< Cluster::signature() + ";segments=<K>"
  std::string model_name;
  std::vector<double> gradient_time_us;     ///< AOE's gradientTime: backward time per gradient
  std::vector<std::int64_t> gradient_size;  ///< AOE's gradientSize: bytes per gradient
  SplitStrategy split;
  std::vector<double> by_size;  ///< the split in percent of the bytes
  double iteration_seconds = 0;
  double default_seconds = 0;  ///< the iteration time of AOE's default split
  Provenance provenance;
};

/// The gradient-fusion bank of one SoC.
class GradientFusionBank {
 public:
  /// The bank under `root` (Environment::graph_bank_root()) for `soc_version`.
  GradientFusionBank(std::filesystem::path root, std::string soc_version,
                     std::string tool = "openaoe " AOE_VERSION_STRING, BankAccess access = {})
      : file_(file_for(root, soc_version)),
        tool_(std::move(tool)),
        access_(std::move(access)),
        mutex_(std::make_unique<std::mutex>()),
        warned_(std::make_unique<std::set<std::string>>()) {}

  /// <root>/<soc_version>_gradient_fusion.json (AOE: "<soc>_gradient_fusion.json in
  /// TUNE_BANK_PATH").
  [[nodiscard]] static std::filesystem::path file_for(const std::filesystem::path& root,
                                                      const std::string& soc_version) {
    return root / (soc_version + "_gradient_fusion.json");
  }

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }

  /// The record of a model on a cluster, if the bank holds one.
  [[nodiscard]] Result<std::optional<GradientFusionRecord>> lookup(
      const std::string& model_hash, const std::string& cluster) const {
    std::lock_guard guard(*mutex_);
    auto file = read();
    if (!file) return file.error();
    for (auto& r : file->records) {
      if (r.model_hash == model_hash && r.cluster == cluster) {
        return std::optional<GradientFusionRecord>(std::move(r));
      }
    }
    return std::optional<GradientFusionRecord>();
  }

  /// Every record of the file (for tools and tests).
  [[nodiscard]] Result<std::vector<GradientFusionRecord>> records() const {
    std::lock_guard guard(*mutex_);
    auto file = read();
    if (!file) return file.error();
    return std::move(file->records);
  }

  /// Stores `record` if its key is new (`added`) or it is faster than the stored record
  /// (`updated`; `faster`, beyond rounding), or when `replace` (a stored record that no longer fits
  /// the model); otherwise `kept` and nothing is written. An iteration time that is not a
  /// positive finite number is refused (`invalid_argument`).
  Result<StoreOutcome> store(const GradientFusionRecord& record, bool replace = false) {
    if (!aoe::detail::storable_time(record.iteration_seconds)) {
      return aoe::detail::unstorable_time("gradient-fusion bank", record.model_hash,
                                          record.iteration_seconds);
    }
    std::lock_guard guard(*mutex_);
    auto lock = lock_file();
    if (!lock) return lock.error();
    auto file = read();
    if (!file) return file.error();
    StoreOutcome outcome = StoreOutcome::added;
    std::optional<std::size_t> at;
    for (std::size_t i = 0; i < file->records.size(); ++i) {
      const auto& r = file->records[i];
      if (r.model_hash == record.model_hash && r.cluster == record.cluster) {
        if (!replace && !faster(record.iteration_seconds, r.iteration_seconds)) {
          return StoreOutcome::kept;
        }
        outcome = StoreOutcome::updated;
        at = file->positions[i];
        break;
      }
    }
    for (const auto& [key, position] : file->unusable) {
      if (!at && key == record.model_hash + "\n" + record.cluster) at = position;
    }
    boost::json::value entry = to_json(record);
    if (at) {
      file->raw[*at] = std::move(entry);
    } else {
      file->raw.push_back(std::move(entry));
    }
    auto text = aoe::detail::serialize_json(file->raw, file_.string());
    if (!text) return text.error();
    if (auto ok = write_file_atomically(file_, *text + "\n"); !ok) return ok.error();
    return outcome;
  }

  /// Checks, before a job, that the bank can be written: creates its directory, takes (then
  /// releases) its lock and reads the file.
  [[nodiscard]] Result<void> check_writable() const {
    std::lock_guard guard(*mutex_);
    auto lock = lock_file();
    if (!lock) return lock.error();
    auto file = read();
    if (!file) return file.error();
    return {};
  }

 private:
  struct File {
    boost::json::array raw;                     ///< every entry, ours and others'
    std::vector<GradientFusionRecord> records;  ///< ours
    std::vector<std::size_t> positions;         ///< of each record in `raw`
    /// "<hash>\n<cluster>" and position of our entries skipped for their time (a store of the
    /// same key replaces them).
    std::vector<std::pair<std::string, std::size_t>> unusable;
  };

  [[nodiscard]] Result<std::unique_ptr<aoe::detail::FileDescriptor>> lock_file() const {
    return aoe::detail::lock_bank_file(file_, "gradient-fusion bank", access_);
  }

  /// Warns once about the record of `hash` on `cluster` skipped for its time.
  void warn_skipped(const std::string& hash, const std::string& cluster) const {
    if (!warned_->insert(hash + "\n" + cluster).second) return;
    if (access_.on_warning) {
      access_.on_warning("gradient-fusion bank: " + file_.string() + ": skipping the record of '" +
                         hash + "' on '" + cluster +
                         "': its iteration time is not a positive finite time (it will be tuned "
                         "again)");
    }
  }

  /// The file's entries (none when it does not exist); ours whose iteration time is not a
  /// positive finite number are kept in `raw` but not in `records`, with a warning. Called under
  /// `mutex_`.
  [[nodiscard]] Result<File> read() const {
    File out;
    std::error_code ec;
    if (!std::filesystem::exists(file_, ec)) {
      if (!ec) return out;
      return make_error(Errc::io_error, "gradient-fusion bank: cannot read " + file_.string() +
                                            ": " + ec.message());
    }
    auto bytes = aoe::detail::read_input_file(file_, "a gradient-fusion bank file, docs/gdat.md");
    if (!bytes) {
      return ErrorInfo(bytes.error().code, "gradient-fusion bank: " + bytes.error().message);
    }
    const auto corrupt = [&](const std::string& where, const std::string& what) {
      return make_error(Errc::parse_error,
                        "gradient-fusion bank: " + file_.string() + ": " + where + ": " + what +
                            "; the file is corrupt and was left as it is (repair it or move it "
                            "away to start a new bank)");
    };
    auto parsed = aoe::detail::parse_json(*bytes, file_.string());
    if (!parsed) {
      return make_error(Errc::parse_error, "gradient-fusion bank: " + parsed.error().message +
                                               "; the file is corrupt and was left as it is "
                                               "(repair it or move it away to start a new bank)");
    }
    boost::json::value root = std::move(*parsed);
    if (!root.is_array()) return corrupt("/", "expected a JSON array of entries");
    out.raw = std::move(root.as_array());
    for (std::size_t i = 0; i < out.raw.size(); ++i) {
      const std::string ptr = "/" + std::to_string(i);
      const auto* e = out.raw[i].if_object();
      if (e == nullptr) return corrupt(ptr, "expected an entry object");
      const auto* hash = e->if_contains("modelhash");
      if (hash == nullptr || !hash->is_string()) {
        return corrupt(ptr + "/modelhash", "expected the model hash as a string");
      }
      const auto* ours = e->if_contains("openaoe");
      if (ours == nullptr) continue;  // AOE's own entry: kept, not used
      const auto* o = ours->if_object();
      if (o == nullptr) return corrupt(ptr + "/openaoe", "expected an object");
      const auto* version = o->if_contains("schema_version");
      if (version == nullptr || !version->is_int64()) {
        return corrupt(ptr + "/openaoe/schema_version", "expected an integer");
      }
      if (version->as_int64() != gradient_bank_schema_version) {
        return make_error(Errc::unsupported_version,
                          "gradient-fusion bank: " + file_.string() + ": " + ptr +
                              "/openaoe/schema_version: expected " +
                              std::to_string(gradient_bank_schema_version) + ", found " +
                              std::to_string(version->as_int64()) +
                              "; written by another version, left as it is");
      }
      GradientFusionRecord r;
      r.model_hash = std::string(hash->as_string());
      const auto text = [&](const char* key, std::string& into) -> Result<void> {
        const auto* v = o->if_contains(key);
        if (v == nullptr || !v->is_string()) {
          return corrupt(ptr + "/openaoe/" + key, "expected a string");
        }
        into = std::string(v->as_string());
        return {};
      };
      if (auto ok = text("cluster", r.cluster); !ok) return ok.error();
      if (auto ok = text("model_name", r.model_name); !ok) return ok.error();
      const auto number = [&](const boost::json::object& obj, const char* key,
                              const std::string& p) -> Result<double> {
        const auto* v = obj.if_contains(key);
        if (v == nullptr || !v->is_number()) return corrupt(p + "/" + key, "expected a number");
        return v->to_number<double>();
      };
      auto it = number(*o, "iteration_time(ms)", ptr + "/openaoe");
      if (!it) return it.error();
      r.iteration_seconds = *it / 1e3;
      if (!aoe::detail::storable_time(r.iteration_seconds)) {
        warn_skipped(r.model_hash, r.cluster);
        out.unusable.emplace_back(r.model_hash + "\n" + r.cluster, i);
        continue;
      }
      auto dt = number(*o, "default_iteration_time(ms)", ptr + "/openaoe");
      if (!dt) return dt.error();
      r.default_seconds = *dt / 1e3;
      const auto* split = o->if_contains("split_strategy");
      const std::string sptr = ptr + "/openaoe/split_strategy";
      if (split == nullptr || !split->is_object()) return corrupt(sptr, "expected an object");
      const auto* idx = split->as_object().if_contains("by_idx");
      if (idx == nullptr || !idx->is_array() || idx->as_array().empty()) {
        return corrupt(sptr + "/by_idx", "expected a non-empty array of gradient indices");
      }
      for (std::size_t k = 0; k < idx->as_array().size(); ++k) {
        const auto& v = idx->as_array()[k];
        if (!v.is_int64() || v.as_int64() < 0) {
          return corrupt(sptr + "/by_idx/" + std::to_string(k), "expected a gradient index");
        }
        r.split.ends.push_back(static_cast<std::size_t>(v.as_int64()));
      }
      const auto* size = split->as_object().if_contains("by_size");
      if (size == nullptr || !size->is_array()) {
        return corrupt(sptr + "/by_size", "expected an array of percentages");
      }
      for (std::size_t k = 0; k < size->as_array().size(); ++k) {
        const auto& v = size->as_array()[k];
        if (!v.is_number()) {
          return corrupt(sptr + "/by_size/" + std::to_string(k), "expected a percentage");
        }
        r.by_size.push_back(v.to_number<double>());
      }
      const auto* value = e->if_contains("modelvalue");
      const std::string vptr = ptr + "/modelvalue";
      if (value == nullptr || !value->is_object()) {
        return corrupt(vptr, "expected {\"gradientTime\": [...], \"gradientSize\": [...]}");
      }
      const auto* times = value->as_object().if_contains("gradientTime");
      const auto* sizes = value->as_object().if_contains("gradientSize");
      if (times == nullptr || !times->is_array()) {
        return corrupt(vptr + "/gradientTime", "expected an array of times");
      }
      if (sizes == nullptr || !sizes->is_array()) {
        return corrupt(vptr + "/gradientSize", "expected an array of sizes");
      }
      for (std::size_t k = 0; k < times->as_array().size(); ++k) {
        const auto& v = times->as_array()[k];
        if (!v.is_number()) {
          return corrupt(vptr + "/gradientTime/" + std::to_string(k), "expected a number");
        }
        r.gradient_time_us.push_back(v.to_number<double>());
      }
      for (std::size_t k = 0; k < sizes->as_array().size(); ++k) {
        const auto& v = sizes->as_array()[k];
        if (!v.is_int64()) {
          return corrupt(vptr + "/gradientSize/" + std::to_string(k), "expected an integer");
        }
        r.gradient_size.push_back(v.as_int64());
      }
      if (const auto* p = o->if_contains("provenance"); p != nullptr && p->is_object()) {
        const auto& po = p->as_object();
        if (const auto* s = po.if_contains("policy"); s && s->is_string()) {
          r.provenance.policy = std::string(s->as_string());
        }
        if (const auto* s = po.if_contains("evaluations"); s && s->is_int64()) {
          r.provenance.evaluations = static_cast<std::size_t>(s->as_int64());
        }
        if (const auto* s = po.if_contains("timestamp"); s && s->is_string()) {
          r.provenance.timestamp = std::string(s->as_string());
        }
      }
      out.records.push_back(std::move(r));
      out.positions.push_back(i);
    }
    return out;
  }

  [[nodiscard]] boost::json::value to_json(const GradientFusionRecord& r) const {
    boost::json::object e;
    e["modelhash"] = r.model_hash;
    boost::json::object value;
    boost::json::array times;
    for (const auto t : r.gradient_time_us) times.push_back(t);
    boost::json::array sizes;
    for (const auto s : r.gradient_size) sizes.push_back(s);
    value["gradientTime"] = std::move(times);
    value["gradientSize"] = std::move(sizes);
    e["modelvalue"] = std::move(value);
    boost::json::object ours;
    ours["schema_version"] = gradient_bank_schema_version;
    ours["model_name"] = r.model_name;
    ours["cluster"] = r.cluster;
    boost::json::object split;
    boost::json::array idx;
    for (const auto end : r.split.ends) idx.push_back(static_cast<std::int64_t>(end));
    boost::json::array size;
    for (const auto p : r.by_size) size.push_back(p);
    split["by_idx"] = std::move(idx);
    split["by_size"] = std::move(size);
    ours["split_strategy"] = std::move(split);
    ours["iteration_time(ms)"] = r.iteration_seconds * 1e3;
    ours["default_iteration_time(ms)"] = r.default_seconds * 1e3;
    boost::json::object p;
    p["policy"] = r.provenance.policy;
    p["evaluations"] = static_cast<std::int64_t>(r.provenance.evaluations);
    p["timestamp"] = r.provenance.timestamp;
    p["tool"] = tool_;
    ours["provenance"] = std::move(p);
    e["openaoe"] = std::move(ours);
    return e;
  }

  std::filesystem::path file_;
  std::string tool_;
  BankAccess access_;
  std::unique_ptr<std::mutex> mutex_;
  std::unique_ptr<std::set<std::string>> warned_;  ///< records warned about, under `mutex_`
};

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_GRADIENT_FUSION_BANK_HPP
