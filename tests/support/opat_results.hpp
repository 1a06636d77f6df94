// What an OPAT job of `aoe` wrote, as the tools' tests read it: its result files, the report
// entries of one (docs/cli.md#output-files) and the keys of an operator bank file
// (docs/cli.md#the-knowledge-bank).
#ifndef AOE_TESTS_SUPPORT_OPAT_RESULTS_HPP
#define AOE_TESTS_SUPPORT_OPAT_RESULTS_HPP

#include "support/temp_dir.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace aoe::test {

/// The result files `aoe_result_opat_*.json` in `dir`, sorted.
inline std::vector<std::filesystem::path> opat_result_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with("aoe_result_opat_")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// One report entry of a result file: its tuning_name and its "OPAT" object.
struct ReportEntry {
  std::string key;   ///< "report_${timestamp}_${tid}"
  std::string name;  ///< basic.tuning_name
  boost::json::object opat;

  /// A field of repo_summary ("total_num", "repo_hit_num", ...).
  [[nodiscard]] std::int64_t summary(const char* field) const {
    return opat.at("repo_summary").as_object().at(field).as_int64();
  }
};

/// The report entries of result file `file`, in the order of the file.
inline std::vector<ReportEntry> report_entries(const std::filesystem::path& file) {
  const auto root = boost::json::parse(read_text(file)).as_object();
  std::vector<ReportEntry> out;
  for (const auto& entry : root) {
    const auto& parts = entry.value().as_array();
    out.push_back(
        {.key = std::string(entry.key()),
         .name = std::string(
             parts.at(0).as_object().at("basic").as_object().at("tuning_name").as_string()),
         .opat = parts.at(1).as_object().at("OPAT").as_object()});
  }
  return out;
}

/// The entries' tuning names, in order.
inline std::vector<std::string> entry_names(const std::vector<ReportEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.name);
  return out;
}

/// The keys of the Schedule bank of `soc` with all its AI Cores under `bank_root`.
inline std::vector<std::string> schedule_bank_keys(const std::filesystem::path& bank_root,
                                                   const std::string& soc = "Ascend910A",
                                                   int cores = 32) {
  const auto file = bank_root / soc / "unified_bank" /
                    (soc + "_" + std::to_string(cores) + "_AiCore_schedule.json");
  REQUIRE_MESSAGE(std::filesystem::exists(file), file.string());
  const boost::json::value root = boost::json::parse(read_text(file));
  std::vector<std::string> out;
  for (const auto& e : root.as_object().at("entries").as_object()) out.emplace_back(e.key());
  return out;
}

/// Whether one of `keys` starts with `prefix` (an operator's type, inputs and outputs).
inline bool has_key(const std::vector<std::string>& keys, const std::string& prefix) {
  return std::any_of(keys.begin(), keys.end(),
                     [&](const std::string& k) { return k.starts_with(prefix); });
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_OPAT_RESULTS_HPP
