// The gradient-fusion bank: the split tuned for a model on a cluster, kept on disk so that the
// next job reuses it (docs/gdat.md#the-gradient-fusion-bank; AOE's:
// docs/aoe-facts.md#gradient-fusion-bank). One file per SoC, beside SGAT's graph bank,
//     <graph bank root>/<soc_version>_gradient_fusion.json
// (the root: TUNE_BANK_PATH, else ${ASCEND_CACHE_PATH}/aoe_data, else
// ${HOME}/Ascend/latest/data/aoe/custom/graph; aoe::Environment::graph_bank_root()), holding,
// as AOE's does, a JSON array of {"modelhash", "modelvalue": {"gradientTime", "gradientSize"}}
// entries, with our split under "openaoe":
//     {"modelhash": "<decimal>", "modelvalue": {"gradientTime": [us...], "gradientSize": [B...]},
//      "openaoe": {"schema_version": 1, "model_name", "cluster": "<Cluster::signature>;
//                  segments=<K>", "split_strategy": {"by_idx": [...], "by_size": [...]},
//                  "iteration_time(ms)", "default_iteration_time(ms)",
//                  "provenance": {"policy", "evaluations", "timestamp", "tool",
//                                 "timing": {"kind", "source"}}}}
// An entry is found by model hash and cluster text. Entries without "openaoe" (written by AOE)
// are kept as they are and never used. Stores take a file lock, re-read the file, merge and
// write it atomically (temporary file, fsync, rename), like the operator bank; a corrupt file
// or an entry of an unknown schema version is an error and the file is never overwritten.
#ifndef AOE_JOBS_GDAT_GRADIENT_FUSION_BANK_HPP
#define AOE_JOBS_GDAT_GRADIENT_FUSION_BANK_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/parse_json.hpp"
#include "aoe/io/read_input.hpp"
#include "aoe/io/write_json.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/repo/bank_access.hpp"
#include "aoe/repo/bank_file.hpp"
#include "aoe/repo/bank_store.hpp"
#include "aoe/version.hpp"
#include "aoe/vocab/record.hpp"

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
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <system_error>
#include <type_traits>
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

/// A split as the bank and the result file write it: {"by_idx": [the last gradient of each
/// segment], "by_size": [each segment's percent of the bytes]}.
[[nodiscard]] inline boost::json::object split_json(const SplitStrategy& split,
                                                    const std::vector<double>& by_size) {
  boost::json::object o;
  boost::json::array idx;
  for (const auto end : split.ends) idx.push_back(static_cast<std::int64_t>(end));
  boost::json::array size;
  for (const auto p : by_size) size.push_back(p);
  o["by_idx"] = std::move(idx);
  o["by_size"] = std::move(size);
  return o;
}

/// The contents of a gradient-fusion bank file (the entries skipped for their time are the
/// store core's, aoe::detail::SkippedRecord).
struct GradientFusionContents {
  boost::json::array raw;                     ///< every other entry, ours and AOE's
  std::vector<GradientFusionRecord> records;  ///< ours
  std::vector<std::size_t> positions;         ///< of each record in `raw`
};

/// The gradient-fusion bank file format (aoe::detail::BankStore's Format): a JSON array of
/// entries, AOE's kept as they are.
struct GradientFusionFile : aoe::detail::BankFormat<GradientFusionContents, GradientFusionRecord> {
  static constexpr std::string_view bank = "gradient-fusion bank";
  static constexpr std::string_view quantity = "iteration time";

  /// The file's entries; ours whose iteration time is not a positive finite number are left out
  /// and kept in `skipped`.
  [[nodiscard]] Result<Contents> parse(std::string bytes, const std::filesystem::path& file,
                                       std::vector<aoe::detail::SkippedRecord>& skipped) const;
  [[nodiscard]] static std::optional<double> stored(const Contents& c, const Record& r) {
    for (const auto& s : c.records) {
      if (s.model_hash == r.model_hash && s.cluster == r.cluster) return s.iteration_seconds;
    }
    return std::nullopt;
  }
  /// Faster beyond rounding.
  [[nodiscard]] static bool faster(double candidate, double stored) {
    return gdat::faster(candidate, stored);
  }
  /// Replaces the record of `record`'s key (in `records` and in `raw`) or adds it.
  void put(Contents& c, const Record& record) const {
    for (std::size_t i = 0; i < c.records.size(); ++i) {
      auto& r = c.records[i];
      if (r.model_hash == record.model_hash && r.cluster == record.cluster) {
        c.raw[c.positions[i]] = to_json(record);
        r = record;
        return;
      }
    }
    c.positions.push_back(c.raw.size());
    c.raw.push_back(to_json(record));
    c.records.push_back(record);
  }
  [[nodiscard]] static double time(const Record& r) { return r.iteration_seconds; }
  [[nodiscard]] static std::string name(const Record& r) { return r.model_hash; }
  [[nodiscard]] static std::string key(const Record& r) { return r.model_hash + "\n" + r.cluster; }
  /// The file's text: `raw` with the `skipped` entries in their places.
  [[nodiscard]] static Result<std::string> text(const Contents& c,
                                                std::span<const aoe::detail::SkippedRecord> skipped,
                                                const std::filesystem::path& file) {
    boost::json::array all;
    all.reserve(c.raw.size() + skipped.size());
    aoe::detail::in_file_order(
        c.raw.size(), skipped, [&](std::size_t i) { all.push_back(c.raw[i]); },
        [&](const aoe::detail::SkippedRecord& s) { all.push_back(s.json); });
    auto text = aoe::detail::serialize_json(all, file.string());
    if (!text) return text.error();
    return *text + "\n";
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
    ours["split_strategy"] = split_json(r.split, r.by_size);
    ours["iteration_time(ms)"] = r.iteration_seconds * 1e3;
    ours["default_iteration_time(ms)"] = r.default_seconds * 1e3;
    ours["provenance"] = aoe::detail::provenance_json(r.provenance, tool);
    e["openaoe"] = std::move(ours);
    return e;
  }

 private:
  /// The error of a corrupt file: `in` is "<file>: ", `pointer` the JSON pointer of the field.
  [[nodiscard]] static ErrorInfo corrupt(const std::string& in, const std::string& pointer,
                                         const std::string& what) {
    return aoe::detail::corrupt_bank_file(bank, in + pointer, what);
  }

  /// The array `obj[key]` (`obj` at `at`) into `into`: numbers, or integers of at least `min`.
  template <class T>
  [[nodiscard]] static Result<void> read_array(const boost::json::object& obj, const char* key,
                                               const std::string& in, const std::string& at,
                                               const std::string& expected,
                                               const std::string& element, std::vector<T>& into,
                                               std::int64_t min) {
    const auto* a = obj.if_contains(key);
    if (a == nullptr || !a->is_array()) return corrupt(in, at + "/" + key, expected);
    for (std::size_t k = 0; k < a->as_array().size(); ++k) {
      const auto& v = a->as_array()[k];
      if (std::is_floating_point_v<T> ? !v.is_number() : (!v.is_int64() || v.as_int64() < min)) {
        return corrupt(in, at + "/" + key + "/" + std::to_string(k), element);
      }
      if constexpr (std::is_floating_point_v<T>) {
        into.push_back(v.to_number<double>());
      } else {
        into.push_back(static_cast<T>(v.as_int64()));
      }
    }
    return {};
  }

  /// `obj[key]` (`obj` at `at`) as a number.
  [[nodiscard]] static Result<double> read_number(const boost::json::object& obj, const char* key,
                                                  const std::string& in, const std::string& at) {
    const auto* v = obj.if_contains(key);
    if (v == nullptr || !v->is_number()) return corrupt(in, at + "/" + key, "expected a number");
    return v->to_number<double>();
  }

  /// `obj[key]` (`obj` at `at`) as a string, into `into`.
  [[nodiscard]] static Result<void> read_text(const boost::json::object& obj, const char* key,
                                              const std::string& in, const std::string& at,
                                              std::string& into) {
    const auto* v = obj.if_contains(key);
    if (v == nullptr || !v->is_string()) return corrupt(in, at + "/" + key, "expected a string");
    into = std::string(v->as_string());
    return {};
  }

  /// The entry at `ptr`, as far as its key and iteration time: no record for AOE's own entry
  /// (no "openaoe" object), an error for an entry of another schema version.
  [[nodiscard]] static Result<std::optional<GradientFusionRecord>> read_key(
      const boost::json::value& entry, const std::string& in, const std::string& ptr) {
    const auto* e = entry.if_object();
    if (e == nullptr) return corrupt(in, ptr, "expected an entry object");
    const auto* hash = e->if_contains("modelhash");
    if (hash == nullptr || !hash->is_string()) {
      return corrupt(in, ptr + "/modelhash", "expected the model hash as a string");
    }
    const auto* ours = e->if_contains("openaoe");
    if (ours == nullptr) return std::optional<GradientFusionRecord>();
    const auto* o = ours->if_object();
    if (o == nullptr) return corrupt(in, ptr + "/openaoe", "expected an object");
    const auto* version = o->if_contains("schema_version");
    if (version == nullptr || !version->is_int64()) {
      return corrupt(in, ptr + "/openaoe/schema_version", "expected an integer");
    }
    if (version->as_int64() != gradient_bank_schema_version) {
      return aoe::detail::bank_file_of_another_version(bank, in + ptr + "/openaoe/schema_version",
                                                       std::to_string(gradient_bank_schema_version),
                                                       std::to_string(version->as_int64()));
    }
    GradientFusionRecord r;
    r.model_hash = std::string(hash->as_string());
    if (auto ok = read_text(*o, "cluster", in, ptr + "/openaoe", r.cluster); !ok) {
      return ok.error();
    }
    if (auto ok = read_text(*o, "model_name", in, ptr + "/openaoe", r.model_name); !ok) {
      return ok.error();
    }
    auto it = read_number(*o, "iteration_time(ms)", in, ptr + "/openaoe");
    if (!it) return it.error();
    r.iteration_seconds = *it / 1e3;
    return std::optional<GradientFusionRecord>(std::move(r));
  }

  /// The default iteration time and the split of our entry (`ours` at `ptr`/openaoe).
  [[nodiscard]] static Result<void> read_split(const boost::json::object& ours,
                                               const std::string& in, const std::string& ptr,
                                               GradientFusionRecord& r) {
    auto dt = read_number(ours, "default_iteration_time(ms)", in, ptr + "/openaoe");
    if (!dt) return dt.error();
    r.default_seconds = *dt / 1e3;
    const auto* split = ours.if_contains("split_strategy");
    const std::string sptr = ptr + "/openaoe/split_strategy";
    if (split == nullptr || !split->is_object()) return corrupt(in, sptr, "expected an object");
    const auto& so = split->as_object();
    const auto* idx = so.if_contains("by_idx");
    const std::string indices = "expected a non-empty array of gradient indices";
    if (idx != nullptr && idx->is_array() && idx->as_array().empty()) {
      return corrupt(in, sptr + "/by_idx", indices);
    }
    if (auto ok = read_array(so, "by_idx", in, sptr, indices, "expected a gradient index",
                             r.split.ends, 0);
        !ok) {
      return ok.error();
    }
    return read_array(so, "by_size", in, sptr, "expected an array of percentages",
                      "expected a percentage", r.by_size, any_integer);
  }

  /// The gradients' times and sizes of entry `e` (at `ptr`).
  [[nodiscard]] static Result<void> read_gradients(const boost::json::object& e,
                                                   const std::string& in, const std::string& ptr,
                                                   GradientFusionRecord& r) {
    const auto* value = e.if_contains("modelvalue");
    const std::string vptr = ptr + "/modelvalue";
    if (value == nullptr || !value->is_object()) {
      return corrupt(in, vptr, "expected {\"gradientTime\": [...], \"gradientSize\": [...]}");
    }
    if (auto ok =
            read_array(value->as_object(), "gradientTime", in, vptr, "expected an array of times",
                       "expected a number", r.gradient_time_us, any_integer);
        !ok) {
      return ok.error();
    }
    return read_array(value->as_object(), "gradientSize", in, vptr, "expected an array of sizes",
                      "expected an integer", r.gradient_size, any_integer);
  }

  static constexpr auto any_integer = std::numeric_limits<std::int64_t>::min();
};

/// The gradient-fusion bank of one SoC.
class GradientFusionBank {
 public:
  /// The bank under `root` (Environment::graph_bank_root()) for `soc_version`.
  GradientFusionBank(std::filesystem::path root, std::string soc_version,
                     std::string tool = "openaoe " AOE_VERSION_STRING, BankAccess access = {})
      : file_(file_for(root, soc_version)),
        format_{{std::move(tool)}},
        store_(std::move(access), true, "a gradient-fusion bank file, docs/gdat.md") {}

  /// <root>/<soc_version>_gradient_fusion.json (AOE: "<soc>_gradient_fusion.json in
  /// TUNE_BANK_PATH").
  [[nodiscard]] static std::filesystem::path file_for(const std::filesystem::path& root,
                                                      const std::string& soc_version) {
    return root / (soc_version + "_gradient_fusion.json");
  }

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }

  /// The record of a model on a cluster, if the bank holds one (the file is read each time).
  [[nodiscard]] Result<std::optional<GradientFusionRecord>> lookup(
      const std::string& model_hash, const std::string& cluster) const {
    auto file = store_.load(file_, format_);
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
    auto file = store_.load(file_, format_);
    if (!file) return file.error();
    return std::move(file->records);
  }

  /// Stores `record` if its key is new (`added`) or it is faster than the stored record
  /// (`updated`; `faster`, beyond rounding), or when `replace` (a stored record that no longer fits
  /// the model); otherwise `kept` and nothing is written. An iteration time that is not a
  /// positive finite number is refused (`invalid_argument`).
  Result<StoreOutcome> store(const GradientFusionRecord& record, bool replace = false) {
    return store_.store(file_, format_, record, replace);
  }

  /// Checks, before a job, that the bank can be written: creates its directory, takes (then
  /// releases) its lock and reads the file.
  [[nodiscard]] Result<void> check_writable() const {
    return store_.check_writable(file_, format_);
  }

 private:
  std::filesystem::path file_;
  GradientFusionFile format_;
  aoe::detail::BankStore<GradientFusionFile> store_;
};

inline Result<GradientFusionFile::Contents> GradientFusionFile::parse(
    std::string bytes, const std::filesystem::path& file,
    std::vector<aoe::detail::SkippedRecord>& skipped) const {
  Contents out;
  const std::string in = file.string() + ": ";
  auto parsed = aoe::detail::parse_bank_json(bank, bytes, file);
  if (!parsed) return parsed.error();
  boost::json::value root = std::move(*parsed);
  if (!root.is_array()) return corrupt(in, "/", "expected a JSON array of entries");
  const boost::json::array entries = std::move(root.as_array());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string ptr = "/" + std::to_string(i);
    auto entry = read_key(entries[i], in, ptr);
    if (!entry) return entry.error();
    if (!entry->has_value()) {  // AOE's own entry: kept, not used
      out.raw.push_back(entries[i]);
      continue;
    }
    GradientFusionRecord& r = **entry;
    if (!aoe::detail::storable_time(r.iteration_seconds)) {
      skipped.push_back({"'" + r.model_hash + "' on '" + r.cluster + "'", key(r), i, entries[i]});
      continue;
    }
    const auto& e = entries[i].as_object();
    const auto& ours = e.at("openaoe").as_object();
    if (auto ok = read_split(ours, in, ptr, r); !ok) return ok.error();
    if (auto ok = read_gradients(e, in, ptr, r); !ok) return ok.error();
    aoe::detail::read_provenance(ours, r.provenance);
    out.records.push_back(std::move(r));
    out.positions.push_back(out.raw.size());
    out.raw.push_back(entries[i]);
  }
  return out;
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_GRADIENT_FUSION_BANK_HPP
