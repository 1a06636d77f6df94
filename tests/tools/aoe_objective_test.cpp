// `aoe --objective` (docs/energy.md#operator-tuning-for-energy-aoe---objective): operator tuning
// for energy, the energy-delay product or the time-energy front, in-process through aoe_tool::run.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/small_model.hpp"
#include "support/temp_dir.hpp"
#include <aoe/vocab/objective.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tools_aoe_objective_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::run_aoe;
using aoe::test::small_model;
using aoe::test::TempDir;
using aoe::test::write_text;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The one file of `dir` whose name starts with `prefix` and ends with `suffix`; empty when
/// there is not exactly one.
fs::path only_file(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(suffix)) found.push_back(e.path());
  }
  return found.size() == 1 ? found.front() : fs::path{};
}

/// The OPAT part of the result file in `work`.
boost::json::object opat_part(const fs::path& work) {
  const auto file = only_file(work, "aoe_result_opat_", ".json");
  REQUIRE(!file.empty());
  const auto v = boost::json::parse(read_file(file));
  const auto& report = v.as_object().begin()->value().as_array();
  return report.at(1).as_object().at("OPAT").as_object();
}

/// One OPAT job of the small model on the 310P3 (a real time-energy trade-off) with `flags`,
/// its work directory `work` and the bank `bank`.
aoe::test::AoeRun tune(const fs::path& model, const fs::path& work, const fs::path& bank,
                       const std::vector<std::string>& flags) {
  std::vector<std::string> args{"--model=" + model.string(), "--job_type=2",
                                "--soc_version=Ascend310P3", "--progress_bar=off"};
  args.insert(args.end(), flags.begin(), flags.end());
  fs::create_directories(bank);
  return run_aoe(args, {{"TUNE_BANK_PATH", bank.string()}, {"ASCEND_WORK_PATH", work.string()}});
}

/// The entries of the 310P3's Schedule bank file.
boost::json::object schedule_entries(const fs::path& bank) {
  const auto file = bank / "Ascend310P3" / "unified_bank" / "Ascend310P3_8_AiCore_schedule.json";
  REQUIRE(fs::exists(file));
  return boost::json::parse(read_file(file)).as_object().at("entries").as_object();
}

double num(const boost::json::value& v) { return v.to_number<double>(); }

}  // namespace

TEST_CASE("aoe --objective=pareto: the front per operator, its knee in use, keyed apart") {
  TempDir dir("objective_pareto");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const auto bank = dir.path() / "bank";
  const auto first = tune(model, dir.path() / "w1", bank, {"--objective=pareto"});
  INFO(first.err);
  REQUIRE(first.code == aoe_tool::exit_success);
  CHECK(first.out.find("objective pareto (knee): model energy") != std::string::npos);
  const auto opat = opat_part(dir.path() / "w1");
  CHECK(opat.at("objective").as_string() == "pareto (knee)");
  const double before = num(opat.at("model_baseline_energy(mJ)"));
  const double after = num(opat.at("model_result_energy(mJ)"));
  CHECK(before > 0);
  CHECK(after > 0);
  const auto& fronts = opat.at("pareto_fronts").as_array();
  REQUIRE(fronts.size() == 1);
  const auto& f = fronts[0].as_object();
  CHECK(f.at("knowledge").as_string() == "Schedule");
  std::vector<aoe::FrontPoint> points;
  for (const auto& p : f.at("front").as_array()) {
    points.push_back({num(p.at("time(us)")), num(p.at("energy(mJ)")), points.size()});
  }
  REQUIRE(!points.empty());
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < points.size(); ++j) {
      CHECK_FALSE(
          aoe::dominates(points[i].seconds, points[i].joules, points[j].seconds, points[j].joules));
    }
    if (i > 0) CHECK(points[i - 1].seconds < points[i].seconds);
  }
  // The configuration in use is the knee of the front, and the model's energy after is its.
  const auto& knee = points[aoe::pick_from_front(points, aoe::FrontPick::knee)];
  const auto& in_use = f.at("in_use").as_object();
  CHECK(num(in_use.at("time(us)")) == doctest::Approx(knee.seconds));
  CHECK(num(in_use.at("energy(mJ)")) == doctest::Approx(knee.joules));
  CHECK(after == doctest::Approx(knee.joules));
  // The HTML report draws it: the front's points and the one in use.
  const std::string html = read_file(only_file(dir.path() / "w1", "small_", "_report.html"));
  CHECK(html.find("id=\"energy\"") != std::string::npos);
  CHECK(html.find("class=\"chosen\"") != std::string::npos);
  std::size_t drawn = 0;
  for (auto at = html.find("class=\"front-point\""); at != std::string::npos;
       at = html.find("class=\"front-point\"", at + 1)) {
    ++drawn;
  }
  CHECK(drawn == points.size());
  // The bank entry: the objective's key, the rule's score (joules x seconds), no time.
  const auto entries = schedule_entries(bank);
  REQUIRE(entries.size() == 1);
  const std::string key(entries.begin()->key());
  CHECK(key.ends_with("#objective=pareto:knee"));
  const auto& e = entries.begin()->value().as_object();
  CHECK_FALSE(e.contains("cost_time(us)"));
  CHECK(num(e.at("value")) == doctest::Approx(knee.seconds * 1e-6 * knee.joules * 1e-3));
  // The next job hits it and uses the same point.
  const auto second = tune(model, dir.path() / "w2", bank, {"--objective=pareto"});
  REQUIRE(second.code == aoe_tool::exit_success);
  const auto again = opat_part(dir.path() / "w2");
  CHECK(again.at("repo_summary").at("repo_hit_num").as_int64() == 1);
  CHECK(num(again.at("model_result_energy(mJ)")) == doctest::Approx(after));
}

TEST_CASE("aoe --objective=energy: never more energy than the default; time jobs unaffected") {
  TempDir dir("objective_energy");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const auto bank = dir.path() / "bank";
  const auto energy = tune(model, dir.path() / "we", bank, {"--objective=energy"});
  INFO(energy.err);
  REQUIRE(energy.code == aoe_tool::exit_success);
  const auto opat = opat_part(dir.path() / "we");
  CHECK(opat.at("objective").as_string() == "energy");
  CHECK(num(opat.at("model_result_energy(mJ)")) <= num(opat.at("model_baseline_energy(mJ)")));
  CHECK_FALSE(opat.contains("pareto_fronts"));
  const auto& perf =
      opat.at("repo_modified_operators").at(0).at("tune_performance").at("Schedule").as_object();
  CHECK(num(perf.at("energy_after_tune(mJ)")) < num(perf.at("energy_before_tune(mJ)")));
  const auto entry = schedule_entries(bank).begin()->value().as_object();
  CHECK(num(entry.at("value")) * 1e3 == doctest::Approx(num(perf.at("energy_after_tune(mJ)"))));
  // A time job beside it tunes as on a bank without it: same result, keys without a suffix,
  // and a result file without the energy fields.
  const auto time = tune(model, dir.path() / "wt", bank, {});
  REQUIRE(time.code == aoe_tool::exit_success);
  const auto fresh = tune(model, dir.path() / "wf", dir.path() / "fresh", {});
  REQUIRE(fresh.code == aoe_tool::exit_success);
  const auto t = opat_part(dir.path() / "wt");
  CHECK(t.at("repo_summary").at("repo_add_num").as_int64() == 1);
  CHECK(t.at("model_result_performance(ms)") ==
        opat_part(dir.path() / "wf").at("model_result_performance(ms)"));
  CHECK_FALSE(t.contains("objective"));
  CHECK_FALSE(t.contains("model_baseline_energy(mJ)"));
  const auto both = schedule_entries(bank);
  CHECK(both.size() == 2);
  for (const auto& [k, v] : both) {
    CHECK(v.as_object().contains("cost_time(us)") ==
          !std::string(k).ends_with("#objective=energy"));
  }
}

TEST_CASE("aoe --objective=pareto --power_cap: nothing over the cap is on the front or in use") {
  TempDir dir("objective_cap");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const double cap = 19.8;  // watts; the fastest configurations draw 19.9 W and more
  const auto run = tune(model, dir.path() / "w", dir.path() / "bank",
                        {"--objective=pareto", "--power_cap=19.8", "--pareto_pick=fastest"});
  INFO(run.err);
  REQUIRE(run.code == aoe_tool::exit_success);
  const auto opat = opat_part(dir.path() / "w");
  CHECK(opat.at("objective").as_string() == "pareto (fastest), power cap 19.8 W");
  const auto& f = opat.at("pareto_fronts").at(0).as_object();
  for (const auto& p : f.at("front").as_array()) {
    // mJ / us = kW
    CHECK(num(p.at("energy(mJ)")) / num(p.at("time(us)")) * 1e3 <= cap);
  }
  const auto& in_use = f.at("in_use").as_object();
  CHECK(num(in_use.at("energy(mJ)")) / num(in_use.at("time(us)")) * 1e3 <= cap);
  CHECK(num(in_use.at("time(us)")) == num(f.at("front").at(0).at("time(us)")));  // fastest
}

TEST_CASE("aoe --objective: bad names, caps and jobs are usage errors naming the flag") {
  TempDir dir("objective_flags");
  const auto model = write_text(dir.path() / "small.json", small_model);
  const auto bank = dir.path() / "bank";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--objective=speed"}, "--objective: 'speed' is not an objective; expected one of time"},
      {{"--objective=pareto", "--pareto_pick=middle"}, "--pareto_pick: 'middle' is not a front"},
      {{"--objective=energy", "--pareto_pick=fastest"}, "--pareto_pick: picks from a front"},
      {{"--objective=pareto", "--power_cap=-3"}, "--power_cap=-3"},
      {{"--objective=edp", "--power_cap=10"}, "--power_cap: with --objective=time or pareto"},
  };
  for (const auto& [flags, message] : cases) {
    const auto r = tune(model, dir.path() / "w", bank, flags);
    INFO(flags.front(), " ", r.err);
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.find(message) != std::string::npos);
  }
  const auto sgat = run_aoe({"--model=" + model.string(), "--job_type=1", "--objective=energy"},
                            {{"TUNE_BANK_PATH", bank.string()}});
  CHECK(sgat.code == aoe_tool::exit_usage);
  CHECK(sgat.err.find("--objective=energy: operator tuning (--job_type=2) only") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "w"));  // nothing was written
}

}  // namespace tools_aoe_objective_test
