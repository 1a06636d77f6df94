// What a job wrote, made comparable between two runs of the same job: every file under a
// directory (lock files left out), by its path with timestamps and pids replaced, its JSON (or
// JSON lines) with the run's own fields removed (timestamps, the tuning time, the timestamp and
// pid in the result file's report name; SGAT's checkpoint's tid, time and file names). Used to show
// that the thread count and the rank count change nothing in a job's outputs.
#ifndef AOE_TESTS_SUPPORT_JOB_OUTPUTS_HPP
#define AOE_TESTS_SUPPORT_JOB_OUTPUTS_HPP

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace aoe::test {

/// `v` without what differs between two runs of the same job.
inline void strip_run_fields(boost::json::value& v) {
  if (v.is_array()) {
    for (auto& e : v.as_array()) strip_run_fields(e);
    return;
  }
  if (!v.is_object()) return;
  auto& o = v.as_object();
  for (const char* key : {"timestamp", "tuning_time(s)"}) o.erase(key);
  boost::json::object renamed;
  for (auto& [k, e] : o) {
    strip_run_fields(e);
    const std::string key(k);
    renamed[key.starts_with("report_") ? "report" : key] = e;
  }
  o = std::move(renamed);
}

/// A JSON file (or a file of JSON lines, the graph bank) as text with the run fields stripped.
inline std::string normalised_json(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  boost::system::error_code ec;
  auto whole = boost::json::parse(text, ec);
  if (!ec) {
    strip_run_fields(whole);
    if (p.filename().string().starts_with("aoe_sgat_reload_") && whole.is_object()) {
      // SGAT's checkpoint (--reload) names the run's files and holds its tid and time.
      auto& cp = whole.as_object();
      for (const char* key : {"tid", "result_file", "tuning_seconds"}) cp.erase(key);
      if (auto* job = cp.if_contains("job"); job != nullptr && job->is_object()) {
        for (const char* key : {"graph_bank", "tuned_model"}) job->as_object().erase(key);
      }
    }
    return boost::json::serialize(whole);
  }
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    auto v = boost::json::parse(line, ec);
    REQUIRE_MESSAGE(!ec, p.string() << ": not JSON: " << line.substr(0, 80));
    strip_run_fields(v);
    out += boost::json::serialize(v) + "\n";
  }
  return out;
}

/// Every file under `dir` (lock files left out), by its path with timestamps and pids replaced.
inline std::map<std::string, std::string> job_outputs(const std::filesystem::path& dir) {
  static const std::regex stamp(R"(\d{8}_\d{9}(_\d+)?)");
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() == ".lock") continue;
    const std::string rel = std::filesystem::relative(e.path(), dir).string();
    out[std::regex_replace(rel, stamp, "STAMP")] = normalised_json(e.path());
  }
  return out;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_JOB_OUTPUTS_HPP
