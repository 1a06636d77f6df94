// `aoe --objective` (docs/energy.md#operator-tuning-for-energy-aoe---objective): operator tuning
// for energy, the energy-delay product or the time-energy front, in-process through aoe_tool::run.
#include "cli.hpp"
#include "run_aoe.hpp"
#include "support/opat_results.hpp"
#include "support/small_model.hpp"
#include "support/temp_dir.hpp"
#include <aoe/vocab/objective.hpp>

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace tools_aoe_objective_test {  // apart from this area's other files in a unity build

namespace fs = std::filesystem;

namespace {

using aoe::test::read_text;
using aoe::test::run_aoe;

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

/// The OPAT part of the one result file in `work`.
boost::json::object opat_part(const fs::path& work) {
  const auto files = aoe::test::opat_result_files(work);
  REQUIRE(files.size() == 1);
  return aoe::test::report_entries(files.front()).at(0).opat;
}

/// The small model in a temporary directory, with a bank beside it: `tune` runs one OPAT job
/// of it on the 310P3 (a real time-energy trade-off) with `flags`, in the work directory `work`
/// of the directory, on `bank` (default: the directory's "bank").
struct ObjectiveJobs {
  aoe::test::TempDir dir;
  fs::path model;
  fs::path bank;
  explicit ObjectiveJobs(const std::string& tag)
      : dir(tag),
        model(aoe::test::write_text(dir.path() / "small.json", aoe::test::small_model)),
        bank(dir.path() / "bank") {}

  [[nodiscard]] fs::path work(const std::string& name) const { return dir.path() / name; }

  aoe::test::AoeRun tune(const std::string& work_name, const std::vector<std::string>& flags,
                         const fs::path& on_bank = {}) const {
    std::vector<std::string> args{"--model=" + model.string(), "--job_type=2",
                                  "--soc_version=Ascend310P3", "--progress_bar=off"};
    args.insert(args.end(), flags.begin(), flags.end());
    const fs::path b = on_bank.empty() ? bank : on_bank;
    fs::create_directories(b);
    return run_aoe(
        args, {{"TUNE_BANK_PATH", b.string()}, {"ASCEND_WORK_PATH", work(work_name).string()}});
  }

  /// The entries of the 310P3's Schedule bank file.
  [[nodiscard]] boost::json::object schedule_entries() const {
    const auto file = bank / "Ascend310P3" / "unified_bank" / "Ascend310P3_8_AiCore_schedule.json";
    REQUIRE(fs::exists(file));
    return boost::json::parse(read_text(file)).as_object().at("entries").as_object();
  }
};

double num(const boost::json::value& v) { return v.to_number<double>(); }

}  // namespace

TEST_CASE("aoe --objective=pareto: the front per operator, its knee in use, keyed apart") {
  const ObjectiveJobs jobs("objective_pareto");
  const auto first = jobs.tune("w1", {"--objective=pareto"});
  INFO(first.err);
  REQUIRE(first.code == aoe_tool::exit_success);
  CHECK(first.out.find("objective pareto (knee): model energy") != std::string::npos);
  const auto opat = opat_part(jobs.work("w1"));
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
  const std::string html = read_text(only_file(jobs.work("w1"), "small_", "_report.html"));
  CHECK(html.find("id=\"energy\"") != std::string::npos);
  CHECK(html.find("class=\"chosen\"") != std::string::npos);
  std::size_t drawn = 0;
  for (auto at = html.find("class=\"front-point\""); at != std::string::npos;
       at = html.find("class=\"front-point\"", at + 1)) {
    ++drawn;
  }
  CHECK(drawn == points.size());
  // The bank entry: the objective's key, the rule's score (joules x seconds), no time.
  const auto entries = jobs.schedule_entries();
  REQUIRE(entries.size() == 1);
  const std::string key(entries.begin()->key());
  CHECK(key.ends_with("#objective=pareto:knee"));
  const auto& e = entries.begin()->value().as_object();
  CHECK_FALSE(e.contains("cost_time(us)"));
  CHECK(num(e.at("value")) == doctest::Approx(knee.seconds * 1e-6 * knee.joules * 1e-3));
  // ... and the front it was picked from, the result file's, with each point's configuration.
  const auto& stored = e.at("front").as_array();
  REQUIRE(stored.size() == points.size());
  bool in_use_found = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    CHECK(num(stored[i].at("time(us)")) == doctest::Approx(points[i].seconds));
    CHECK(num(stored[i].at("energy(mJ)")) == doctest::Approx(points[i].joules));
    in_use_found = in_use_found || stored[i].at("knowledge") == e.at("knowledge");
  }
  CHECK(in_use_found);
  // The next job hits it and uses the same point.
  const auto second = jobs.tune("w2", {"--objective=pareto"});
  REQUIRE(second.code == aoe_tool::exit_success);
  const auto again = opat_part(jobs.work("w2"));
  CHECK(again.at("repo_summary").at("repo_hit_num").as_int64() == 1);
  CHECK(num(again.at("model_result_energy(mJ)")) == doctest::Approx(after));
}

TEST_CASE("aoe --objective=energy: never more energy than the default; time jobs unaffected") {
  const ObjectiveJobs jobs("objective_energy");
  const auto energy = jobs.tune("we", {"--objective=energy"});
  INFO(energy.err);
  REQUIRE(energy.code == aoe_tool::exit_success);
  const auto opat = opat_part(jobs.work("we"));
  CHECK(opat.at("objective").as_string() == "energy");
  CHECK(num(opat.at("model_result_energy(mJ)")) <= num(opat.at("model_baseline_energy(mJ)")));
  CHECK_FALSE(opat.contains("pareto_fronts"));
  const auto& perf =
      opat.at("repo_modified_operators").at(0).at("tune_performance").at("Schedule").as_object();
  CHECK(num(perf.at("energy_after_tune(mJ)")) < num(perf.at("energy_before_tune(mJ)")));
  const auto entry = jobs.schedule_entries().begin()->value().as_object();
  CHECK_FALSE(entry.contains("front"));  // only a pareto entry has one
  CHECK(num(entry.at("value")) * 1e3 == doctest::Approx(num(perf.at("energy_after_tune(mJ)"))));
  // A time job beside it tunes as on a bank without it: same result, keys without a suffix,
  // and a result file without the energy fields.
  const auto time = jobs.tune("wt", {});
  REQUIRE(time.code == aoe_tool::exit_success);
  const auto fresh = jobs.tune("wf", {}, jobs.work("fresh"));
  REQUIRE(fresh.code == aoe_tool::exit_success);
  const auto t = opat_part(jobs.work("wt"));
  CHECK(t.at("repo_summary").at("repo_add_num").as_int64() == 1);
  CHECK(t.at("model_result_performance(ms)") ==
        opat_part(jobs.work("wf")).at("model_result_performance(ms)"));
  CHECK_FALSE(t.contains("objective"));
  CHECK_FALSE(t.contains("model_baseline_energy(mJ)"));
  const auto both = jobs.schedule_entries();
  CHECK(both.size() == 2);
  for (const auto& [k, v] : both) {
    CHECK(v.as_object().contains("cost_time(us)") ==
          !std::string(k).ends_with("#objective=energy"));
  }
}

TEST_CASE("aoe --objective=pareto --power_cap: nothing over the cap is on the front or in use") {
  const ObjectiveJobs jobs("objective_cap");
  const double cap = 19.8;  // watts; the fastest configurations draw 19.9 W and more
  const auto run =
      jobs.tune("w", {"--objective=pareto", "--power_cap=19.8", "--pareto_pick=fastest"});
  INFO(run.err);
  REQUIRE(run.code == aoe_tool::exit_success);
  const auto opat = opat_part(jobs.work("w"));
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
  const ObjectiveJobs jobs("objective_flags");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--objective=speed"}, "--objective: 'speed' is not an objective; expected one of time"},
      {{"--objective=pareto", "--pareto_pick=middle"}, "--pareto_pick: 'middle' is not a front"},
      {{"--objective=energy", "--pareto_pick=fastest"}, "--pareto_pick: picks from a front"},
      {{"--objective=pareto", "--power_cap=-3"}, "--power_cap=-3"},
      {{"--objective=edp", "--power_cap=10"}, "--power_cap: with --objective=time or pareto"},
  };
  for (const auto& [flags, message] : cases) {
    const auto r = jobs.tune("w", flags);
    INFO(flags.front(), " ", r.err);
    CHECK(r.code == aoe_tool::exit_usage);
    CHECK(r.err.find(message) != std::string::npos);
  }
  const auto sgat =
      run_aoe({"--model=" + jobs.model.string(), "--job_type=1", "--objective=energy"},
              {{"TUNE_BANK_PATH", jobs.bank.string()}});
  CHECK(sgat.code == aoe_tool::exit_usage);
  CHECK(sgat.err.find("--objective=energy: operator tuning (--job_type=2) only") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(jobs.work("w")));  // nothing was written
}

}  // namespace tools_aoe_objective_test
