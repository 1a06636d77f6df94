// aoe-bench's experiment: same seed, same numbers, whatever the thread count; the JSON
// contract's fields; random search scores about 0; simulator inputs start from their default
// when asked.
#include "record.hpp"
#include "replay/replay_cache.hpp"
#include "report.hpp"
#include "support/skip.hpp"
#include "support/temp_dir.hpp"
#include <aoe/experiment.hpp>
#include <aoe/measure/rapl.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tools_aoe_bench_test {  // apart from this area's other files in a unity build

namespace {

// The experiment with our policies by name, as aoe-bench runs it; an unknown name is the error.
aoe::Result<std::vector<aoe::experiment::ProblemResult>> run_experiment(
    const std::vector<aoe::experiment::Problem>& problems, const std::vector<std::string>& names,
    const aoe::experiment::Settings& settings) {
  auto strategies = aoe::experiment::named(names);
  if (!strategies) return strategies.error();
  return aoe::experiment::run(problems, *strategies, settings);
}

std::vector<aoe::experiment::Problem> tiny_problem(const aoe::test::TempDir& dir) {
  auto p = aoe::experiment::load_problem(
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries())));
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().what()));
  std::vector<aoe::experiment::Problem> out;
  out.push_back(std::move(*p));
  return out;
}

}  // namespace

TEST_CASE("aoe-bench: same seed, same numbers, on one thread or several") {
  aoe::test::TempDir dir("aoe_bench_determinism");
  const auto problems = tiny_problem(dir);
  aoe::experiment::Settings settings{
      .budget = 6, .budget_seconds = {}, .repeats = 16, .seed = 11, .threads = 1};
  auto one = run_experiment(problems, {"random", "grid"}, settings);
  settings.threads = 4;
  auto four = run_experiment(problems, {"random", "grid"}, settings);
  REQUIRE(one.has_value());
  REQUIRE(four.has_value());
  const auto a = boost::json::serialize(aoe::experiment::to_json(*one, settings));
  const auto b = boost::json::serialize(aoe::experiment::to_json(*four, settings));
  CHECK(a == b);
  settings.seed = 12;
  auto other = run_experiment(problems, {"random"}, settings);
  REQUIRE(other.has_value());
  CHECK((*other)[0].strategies[0].best_mean != (*one)[0].strategies[0].best_mean);
}

TEST_CASE("aoe-bench: the JSON has the contract's fields") {
  aoe::test::TempDir dir("aoe_bench_json");
  const auto problems = tiny_problem(dir);
  const aoe::experiment::Settings settings{
      .budget = 7, .budget_seconds = {}, .repeats = 4, .seed = 1};
  auto results = run_experiment(problems, {"random"}, settings);
  REQUIRE(results.has_value());
  const auto json = aoe::experiment::to_json(*results, settings);
  const auto& in = json.at("inputs").at(0);
  CHECK(in.at("name").as_string() == "tiny");
  CHECK(in.at("optimum").as_double() == doctest::Approx(1e-3));
  CHECK(in.at("configurations").to_number<int>() == 9);
  CHECK(in.at("valid_configurations").to_number<int>() == 7);
  const auto& s = in.at("strategies").at(0);
  CHECK(s.at("name").as_string() == "random");
  CHECK(s.at("repeats").to_number<int>() == 4);
  CHECK(s.at("budget").to_number<int>() == 7);
  const auto& f = s.at("fraction_of_optimum").as_object();
  for (const char* k : {"25", "50", "100", "200", "7"}) CHECK(f.contains(k));
  CHECK(f.at("25").is_null());  // beyond the run
  CHECK(f.at("7").as_double() > 0);
  CHECK(s.at("evaluations_to").as_object().contains("0.95"));
  CHECK(s.at("evaluations_to").as_object().contains("0.99"));
  CHECK(s.at("score").is_number());
  CHECK(s.at("best_so_far_median").as_array().size() == 7);
  // 9 configurations: after all of them every repetition has the optimum.
  const auto svg = aoe::experiment::to_svg(*results, settings);
  CHECK(svg.find("<svg") == 0);
  CHECK(svg.find("random (exact)") != std::string::npos);
  // --report: the same in HTML, the score shown as in the JSON.
  const auto page = aoe_bench::to_html(*results, settings);
  CHECK(page.find("<!DOCTYPE html>") == 0);
  CHECK(page.find("id=\"scores\"") != std::string::npos);
  CHECK(page.find("random (exact)") != std::string::npos);
  char score[32];
  std::snprintf(score, sizeof score, "%.3f", s.at("score").to_number<double>());
  CHECK(page.find(std::string(">") + score) != std::string::npos);
  CHECK(page.find("http") == std::string::npos);  // nothing from the network
}

TEST_CASE("aoe-bench: 95% bootstrap intervals per input and for the mean over inputs") {
  aoe::test::TempDir dir("aoe_bench_ci");
  auto problems = tiny_problem(dir);
  auto second = aoe::experiment::load_problem(
      dir.write("tiny2.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries())));
  REQUIRE(second.has_value());
  problems.push_back(std::move(*second));
  const aoe::experiment::Settings settings{
      .budget = 7, .budget_seconds = {}, .repeats = 12, .seed = 3};
  auto results = run_experiment(problems, {"random"}, settings);
  REQUIRE(results.has_value());
  const auto json = aoe::experiment::to_json(*results, settings);
  double sum7 = 0;
  for (const auto& in : json.at("inputs").as_array()) {
    const auto& s = in.at("strategies").at(0);
    const double f7 = s.at("fraction_of_optimum").at("7").to_number<double>();
    sum7 += f7;
    const auto& ci = s.at("ci95").at("fraction_of_optimum");
    CHECK(ci.at("25").is_null());  // beyond the run: no figure, no interval
    // After 7 the repetitions differ: the interval holds the mean and has a width.
    const double lo = ci.at("7").at(0).to_number<double>();
    const double hi = ci.at("7").at(1).to_number<double>();
    CHECK(lo <= f7);
    CHECK(f7 <= hi);
    CHECK(hi - lo > 0.01);
    const double score = s.at("score").to_number<double>();
    CHECK(s.at("ci95").at("score").at(0).to_number<double>() <= score + 1e-12);
    CHECK(score - 1e-12 <= s.at("ci95").at("score").at(1).to_number<double>());
  }
  const auto& summary = json.at("summary").at(0);
  CHECK(summary.at("name").as_string() == "random");
  CHECK(summary.at("inputs").to_number<int>() == 2);
  const double mean7 = summary.at("fraction_of_optimum").at("7").to_number<double>();
  CHECK(mean7 == doctest::Approx(sum7 / 2));
  const auto& mci = summary.at("ci95").at("fraction_of_optimum").at("7");
  CHECK(mci.at(0).to_number<double>() <= mean7);
  CHECK(mean7 <= mci.at(1).to_number<double>());
  CHECK(json.at("settings").at("bootstrap").at("resamples").to_number<int>() == 2000);
  // After all 9 configurations every repetition holds the optimum: a zero-width interval at 1.
  const aoe::experiment::Settings all{.budget = 9, .budget_seconds = {}, .repeats = 12, .seed = 3};
  auto full = run_experiment(problems, {"random"}, all);
  REQUIRE(full.has_value());
  const auto full_json = aoe::experiment::to_json(*full, all);
  const auto& nine = full_json.at("summary").at(0).at("ci95").at("fraction_of_optimum").at("9");
  CHECK(nine.at(0).to_number<double>() == doctest::Approx(1.0));
  CHECK(nine.at(1).to_number<double>() == doctest::Approx(1.0));
  // The same data give the same intervals (a fixed seed).
  auto again = run_experiment(problems, {"random"}, settings);
  REQUIRE(again.has_value());
  CHECK(boost::json::serialize(aoe::experiment::to_json(*again, settings)) ==
        boost::json::serialize(json));
}

TEST_CASE("aoe-bench: the median run's evaluations to a fraction have a bootstrap interval") {
  aoe::test::TempDir dir("aoe_bench_ci_runs");
  const auto problems = tiny_problem(dir);
  // tiny's optimum is 1.0 and its next best 2.0: each fraction is reached with the optimum.
  const aoe::experiment::Settings settings{
      .budget = 9, .budget_seconds = {}, .repeats = 12, .seed = 3};
  auto results = run_experiment(problems, {"random", "grid"}, settings);
  REQUIRE(results.has_value());
  const auto json = aoe::experiment::to_json(*results, settings);
  const auto& strategies = json.at("inputs").at(0).at("strategies");
  for (const char* fraction : {"0.95", "0.98", "0.99"}) {
    CAPTURE(fraction);
    // Random search: the repetitions find the optimum at different evaluations; the interval
    // holds the median run's figure and has a width.
    const auto& random = strategies.at(0);
    const double k = random.at("evaluations_to").at(fraction).to_number<double>();
    const auto& ci = random.at("ci95").at("evaluations_to").at(fraction);
    CHECK(ci.at(0).to_number<double>() <= k);
    CHECK(k <= ci.at(1).to_number<double>());
    CHECK(ci.at(1).to_number<double>() - ci.at(0).to_number<double>() >= 1);
    // Grid search is deterministic: every repetition agrees, the interval is the figure.
    const auto& grid = strategies.at(1);
    const double g = grid.at("evaluations_to").at(fraction).to_number<double>();
    const auto& gci = grid.at("ci95").at("evaluations_to").at(fraction);
    CHECK(gci.at(0).to_number<double>() == g);
    CHECK(gci.at(1).to_number<double>() == g);
  }
  // The console's and the report's text: the figure, then its interval.
  const auto& grid = (*results)[0].strategies[1];
  const std::string g = aoe::experiment::evaluations_to_text(grid, 0.98, settings.bootstrap.level);
  const std::string k = g.substr(0, g.find(' '));
  CHECK(g == k + " [" + k + ", " + k + "]");
  CHECK(aoe_bench::to_html(*results, settings).find(">to 98%<") != std::string::npos);
  // Deterministic for a seed: the same run gives the same interval; another bootstrap seed
  // draws other resamples.
  auto again = run_experiment(problems, {"random"}, settings);
  REQUIRE(again.has_value());
  const auto& first = (*results)[0].strategies[0].evaluations_to_replicates;
  CHECK((*again)[0].strategies[0].evaluations_to_replicates == first);
  auto other_seed = settings;
  other_seed.bootstrap.seed = 7;
  auto other = run_experiment(problems, {"random"}, other_seed);
  REQUIRE(other.has_value());
  CHECK((*other)[0].strategies[0].evaluations_to_replicates != first);
  // A run too short to reach the optimum in most repetitions: no figure, and an interval whose
  // upper end (at least) lies beyond the run; the text says so.
  const aoe::experiment::Settings short_run{
      .budget = 2, .budget_seconds = {}, .repeats = 12, .seed = 3, .max_score_evaluations = 2};
  auto cut = run_experiment(problems, {"random"}, short_run);
  REQUIRE(cut.has_value());
  const auto cut_json = aoe::experiment::to_json(*cut, short_run);
  const auto& s = cut_json.at("inputs").at(0).at("strategies").at(0);
  CHECK(s.at("evaluations_to").at("0.98").is_null());
  const auto& cut_ci = s.at("ci95").at("evaluations_to").at("0.98");
  CHECK((cut_ci.is_null() || cut_ci.at(1).is_null()));
  CHECK(aoe::experiment::evaluations_to_text((*cut)[0].strategies[0], 0.98, 0.95).find(">2") == 0);
}

TEST_CASE("aoe-bench: random search scores about 0 and reaches its expected fraction") {
  aoe::test::TempDir dir("aoe_bench_random");
  const auto problems = tiny_problem(dir);
  const aoe::experiment::Settings settings{
      .budget = 9, .budget_seconds = {}, .repeats = 8000, .seed = 5, .threads = 2};
  auto results = run_experiment(problems, {"random"}, settings);
  REQUIRE(results.has_value());
  const auto& s = (*results)[0].strategies[0];
  CHECK(std::fabs(s.score) < 0.05);
  for (const std::size_t k : {1, 3, 5}) {
    CAPTURE(k);
    CHECK(std::fabs(s.fraction_mean[k - 1] - problems[0].baseline.expected_fraction(k)) < 0.03);
  }
  CHECK(s.fraction_mean[8] == doctest::Approx(1.0));
}

TEST_CASE("aoe-bench: --start-from-default measures a simulator operator's default first") {
  auto problems = aoe::experiment::load_simulator_problems("sim:pooler/dense");
  REQUIRE(problems.has_value());
  REQUIRE(problems->size() == 1);
  const auto& p = (*problems)[0];
  REQUIRE(p.defaults.size() == 1);
  const std::vector<aoe::Configuration> one{p.defaults[0]};
  const double def = p.measure(*p.space, one)[0].value;
  aoe::experiment::Settings settings{.budget = 3, .budget_seconds = {}, .repeats = 2, .seed = 3};
  settings.max_score_evaluations = 3;
  settings.start_from_default = true;
  auto results = run_experiment(*problems, {"annealing", "random"}, settings);
  REQUIRE(results.has_value());
  const auto& annealing = (*results)[0].strategies[0];
  CHECK(annealing.best_q1[0] == def);  // every repetition's first evaluation
  CHECK(annealing.best_q3[0] == def);
  const auto json = aoe::experiment::to_json(*results, settings);
  CHECK(json.at("settings").at("start_from_default").as_bool());
  CHECK(json.at("settings").at("methodology_count_failures").as_bool());
}

TEST_CASE("aoe-bench: an unknown strategy is an error, not a crash") {
  aoe::test::TempDir dir("aoe_bench_unknown");
  const auto problems = tiny_problem(dir);
  auto results = run_experiment(problems, {"nope"}, aoe::experiment::Settings{});
  REQUIRE_FALSE(results.has_value());
  CHECK(results.error().message.find("nope") != std::string::npos);
}

TEST_CASE("aoe-bench: a policy with settings runs beside its defaults, named by its spec") {
  aoe::test::TempDir dir("aoe_bench_settings");
  const auto problems = tiny_problem(dir);
  const aoe::experiment::Settings settings{
      .budget = 6, .budget_seconds = {}, .repeats = 4, .seed = 5};
  auto results = run_experiment(problems, {"evolutionary", "evolutionary:max_trials=3"}, settings);
  REQUIRE(results.has_value());
  const auto& s = (*results)[0].strategies;
  REQUIRE(s.size() == 2);
  CHECK(s[0].name == "evolutionary");
  CHECK(s[1].name == "evolutionary:max_trials=3");
  for (const auto e : s[0].evaluations_run) CHECK(e == 6);
  for (const auto e : s[1].evaluations_run) CHECK(e == 3);  // the setting is in force
  auto bad = run_experiment(problems, {"bayesian:initial_samples=0"}, settings);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("setting 'initial_samples' = '0': expected at least 2") !=
        std::string::npos);
}

TEST_CASE("aoe-bench: a budget in seconds is spent in recorded device time") {
  aoe::test::TempDir dir("aoe_bench_seconds");
  const auto problems = tiny_problem(dir);
  // Every tiny configuration charges 0.11 s (compile 100 ms + benchmark 10 ms): the third
  // evaluation crosses 0.3 s and is the last.
  const aoe::experiment::Settings settings{
      .budget = 9, .budget_seconds = 0.3, .repeats = 5, .seed = 2};
  auto results = run_experiment(problems, {"random"}, settings);
  REQUIRE(results.has_value());
  for (const auto e : (*results)[0].strategies[0].evaluations_run) CHECK(e == 3);
}

TEST_CASE("aoe-bench: progress is reported once per repetition, in order") {
  aoe::test::TempDir dir("aoe_bench_progress");
  const auto problems = tiny_problem(dir);
  std::vector<std::size_t> done;
  std::size_t total = 0;
  aoe::experiment::Settings settings{
      .budget = 5, .budget_seconds = {}, .repeats = 6, .seed = 3, .threads = 2};
  settings.on_progress = [&](std::size_t d, std::size_t t) {
    done.push_back(d);
    total = t;
  };
  REQUIRE(run_experiment(problems, {"random", "grid"}, settings).has_value());
  CHECK(total == 12);
  REQUIRE(done.size() == 12);
  for (std::size_t i = 0; i < done.size(); ++i) CHECK(done[i] == i + 1);
}

#ifdef AOE_TOOL_AOE_BENCH_PATH
TEST_CASE("aoe-bench --strategy: a setting the policy does not take is exit 2, named") {
  aoe::test::TempDir dir("aoe_bench_bad_setting");
  const std::string input =
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  const std::string out = dir.file("out.txt");
  const std::string cmd = std::string(AOE_TOOL_AOE_BENCH_PATH) + " --input " + input +
                          " --strategy random,annealing:restart_after=x --budget 2 --repeats 1 "
                          "--seed 1 --json " +
                          dir.file("r.json") + " > " + out + " 2>&1";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("search policy 'annealing': setting 'restart_after' = 'x': expected a whole "
                  "number") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("r.json")));
}

TEST_CASE("aoe-bench: the console table is labelled and states the cutoff extension") {
  aoe::test::TempDir dir("aoe_bench_console");
  const std::string input =
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  const std::string out = dir.file("out.txt");
  const std::string cmd = std::string(AOE_TOOL_AOE_BENCH_PATH) + " --input " + input +
                          " --strategy random --budget 2 --repeats 3 --seed 1 --json " +
                          dir.file("r.json") + " > " + out + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("mean fraction @2") != std::string::npos);
  CHECK(text.find("median") != std::string::npos);
  CHECK(text.find("median run to 0.98 [95% CI]") != std::string::npos);
  CHECK(text.find("score") != std::string::npos);
  CHECK(text.find("fraction@") == std::string::npos);  // the old unlabelled, repeated columns
  // tiny has 9 configurations: random search's cutoff is past 2 evaluations.
  CHECK(text.find("note: tiny: each repetition ran ") != std::string::npos);
  CHECK(text.find("not 2") != std::string::npos);
  CHECK(text.find("repetitions,") == std::string::npos);  // no progress when not a terminal
}
#endif

TEST_CASE("aoe-bench record writes a Kernel Tuner cache that replays (needs an OpenCL device)") {
  if (!aoe_bench::record_available()) {
    aoe::test::skip("aoe-bench was built without OpenCL");
    return;
  }
  aoe::test::TempDir dir("aoe_bench_record");
  const std::string path = (dir.path() / "gemm32.json").string();
  const auto summary = aoe_bench::record({.kernel = "gemm",
                                          .size = 32,
                                          .sample = 3,
                                          .seed = 1,
                                          .batch = 3,
                                          .repetitions = 2,
                                          .output = path});
  if (!summary && summary.error().code == aoe::make_error_code(aoe::Errc::not_found)) {
    aoe::test::skip("no OpenCL device: " + summary.error().message);
    return;
  }
  REQUIRE_MESSAGE(summary.has_value(), summary.error().message);
  CHECK(summary->configurations == 3);
  CHECK(summary->valid == 3);
  auto problem = aoe::experiment::load_problem(path);
  REQUIRE(problem.has_value());
  CHECK(problem->recording->configurations() == 3);
  CHECK(problem->recording->optimum() == doctest::Approx(summary->optimum_seconds));

  const auto bad = aoe_bench::record({.kernel = "fft", .output = path});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("--kernel 'fft'") != std::string::npos);

  // --energy: RAPL's joules on a CPU device where they are readable; else an error saying why,
  // never a recording without the energy asked for.
  const std::string energy_path = (dir.path() / "gemm32_energy.json").string();
  const auto energy = aoe_bench::record(
      {.kernel = "gemm", .energy = true, .size = 32, .sample = 2, .output = energy_path});
  if (aoe::Rapl().available()) {
    REQUIRE_MESSAGE(energy.has_value(), energy.error().message);
    CHECK(aoe::test::read_text(energy_path).find("\"energy_kind\":\"measured\"") !=
          std::string::npos);
  } else {
    REQUIRE_FALSE(energy.has_value());
    CHECK(energy.error().code == aoe::make_error_code(aoe::Errc::unsupported));
    CHECK(energy.error().message.find("--energy: no energy counter for ") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(energy_path));
  }
}

TEST_CASE("aoe-bench record --device cuda: a Kernel Tuner cache on a GPU, a clear error without") {
  const auto bad = aoe_bench::record({.device = "vulkan", .output = "unused.json"});
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("--device 'vulkan': expected opencl, cuda or simulator") !=
        std::string::npos);
  if (!aoe_bench::record_available("cuda")) {
    aoe::test::skip("aoe-bench was built without CUDA");
    return;
  }
  aoe::test::TempDir dir("aoe_bench_record_cuda");
  const std::string path = (dir.path() / "gemm256.json").string();
  const auto summary = aoe_bench::record(
      {.device = "cuda", .size = 256, .sample = 3, .seed = 1, .batch = 3, .output = path});
  if (!summary && summary.error().code == aoe::make_error_code(aoe::Errc::not_found)) {
    // No driver or no GPU: the message says which, and nothing is written.
    CHECK(summary.error().message.find("CUDA") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(path));
    aoe::test::skip("no CUDA device: " + summary.error().message);
    return;
  }
  REQUIRE_MESSAGE(summary.has_value(), summary.error().message);
  CHECK(summary->configurations == 3);
  auto problem = aoe::experiment::load_problem(path);
  REQUIRE(problem.has_value());
  CHECK(problem->recording->configurations() == 3);
}

TEST_CASE("aoe-bench: --cartesian fills the product with failures; the optimum is unchanged") {
  aoe::test::TempDir dir("aoe_bench_cartesian");
  const auto path =
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  auto recorded = aoe::experiment::load_problem(path);
  auto cartesian = aoe::experiment::load_problem(path, true);
  REQUIRE(recorded.has_value());
  REQUIRE(cartesian.has_value());
  CHECK(recorded->configurations == 9);
  CHECK(cartesian->configurations == 12);  // 3 x 2 x 2
  CHECK(cartesian->valid_configurations == recorded->valid_configurations);
  CHECK(cartesian->optimum() == recorded->optimum());
  CHECK(cartesian->name == recorded->name + "@cartesian");
  // A configuration the file does not hold (a=4, b=1, c=x) is part of the space and fails.
  const aoe::Configuration absent{2, 1, 0};
  CHECK(cartesian->space->is_valid(absent));
  CHECK_FALSE(recorded->space->is_valid(absent));
  const std::vector<aoe::Configuration> batch{absent};
  const auto m = cartesian->measure(*cartesian->space, batch);
  REQUIRE(m.size() == 1);
  CHECK_FALSE(m[0].ok());
  CHECK(m[0].status == aoe::Status::constraints);
  // Random search's expectation counts the absent ones as draws that find nothing.
  CHECK(cartesian->baseline.expected_fraction(1) < recorded->baseline.expected_fraction(1));
}

TEST_CASE("aoe-bench: --transfer starts from the other devices' best, never the input's own") {
  aoe::test::TempDir dir("aoe_bench_transfer");
  auto other = aoe::test::tiny_entries();
  for (auto& e : other) {
    if (e.a == 4 && e.b == 0 && e.c[0] == 'y') e.time_ms = 0.5;  // another device's best
  }
  std::vector<aoe::experiment::Problem> problems;
  for (const auto& [name, entries] :
       {std::pair{"one.json", aoe::test::tiny_entries()}, std::pair{"two.json", other}}) {
    auto p = aoe::experiment::load_problem(dir.write(name, aoe::test::kernel_tuner_cache(entries)));
    REQUIRE(p.has_value());
    problems.push_back(std::move(*p));
  }
  aoe::experiment::add_transfer(problems, 2);
  // one.json gets two.json's best two: (4,0,y) at 0.5 ms, then (2,1,x) at 1 ms.
  REQUIRE(problems[0].transfer.size() == 2);
  CHECK(problems[0].transfer[0] == aoe::Configuration{2, 0, 1});
  CHECK(problems[0].transfer[1] == aoe::Configuration{1, 1, 0});
  REQUIRE(problems[0].transfer_sources.size() == 1);
  CHECK(problems[0].transfer_sources[0] == "two");
  // two.json gets one.json's best two: (2,1,x) at 1 ms, then (4,0,y) at 2 ms.
  REQUIRE(problems[1].transfer.size() == 2);
  CHECK(problems[1].transfer[0] == aoe::Configuration{1, 1, 0});
  // With transfer on, annealing measures them first.
  aoe::experiment::Settings settings{.budget = 2, .budget_seconds = {}, .repeats = 1, .seed = 3};
  settings.transfer = true;
  auto results = run_experiment(problems, {"annealing"}, settings);
  REQUIRE(results.has_value());
  // one.json's optimum (1 ms at (2,1,x)) is two.json's second best: found within 2.
  CHECK((*results)[0].strategies[0].fraction_of_optimum.at(2) == doctest::Approx(1.0));
  const auto json = boost::json::serialize(aoe::experiment::to_json(*results, settings));
  CHECK(json.find("\"transfer_sources\":[\"two\"]") != std::string::npos);
}

#ifdef AOE_TOOL_AOE_BENCH_PATH
TEST_CASE("aoe-bench: an output that cannot be written is exit 4 before the experiment starts") {
  aoe::test::TempDir dir("aoe_bench_outputs");
  const std::string input =
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  const std::string err = dir.file("err.txt");
  const auto bench = [&](const std::string& in, const std::string& outputs) {
    const std::string cmd = std::string(AOE_TOOL_AOE_BENCH_PATH) + " --input " + in +
                            " --strategy random --budget 2 --repeats 3 --seed 1 " + outputs +
                            " 2> " + err;
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  const std::string missing_dir = dir.file("no_such_dir") + "/r.json";
  CHECK(bench(input, "--json " + missing_dir) == 4);
  std::string text = aoe::test::read_text(err);
  CHECK(text.find("--json=" + missing_dir) != std::string::npos);
  CHECK(text.find("does not exist") != std::string::npos);
  // Checked before the inputs are read: a missing input (exit 3) is not reached.
  CHECK(bench(dir.file("missing.json"), "--json " + missing_dir) == 4);
  // --plot and --report are checked too: a directory is not a file.
  CHECK(bench(input, "--json " + dir.file("r.json") + " --plot " + dir.path().string()) == 4);
  text = aoe::test::read_text(err);
  CHECK(text.find("--plot=") != std::string::npos);
  CHECK(text.find("is a directory") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("r.json")));  // nothing was run
  CHECK(bench(input, "--json " + dir.file("r.json") + " --report " + missing_dir) == 4);
  CHECK(aoe::test::read_text(err).find("--report=") != std::string::npos);
  // The check leaves nothing behind; a writable set of outputs runs.
  CHECK(bench(input, "--json " + dir.file("r.json") + " --plot " + dir.file("p.svg")) == 0);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().find("write-check") == std::string::npos);
    ++files;
  }
  CHECK(files == 4);  // tiny.json, err.txt, r.json, p.svg
}
#endif

TEST_CASE("aoe-bench --traces: each repetition's unique evaluations, failures included") {
  aoe::test::TempDir dir("aoe_bench_traces");
  const auto problems = tiny_problem(dir);
  aoe::experiment::Settings settings{.budget = 9, .budget_seconds = {}, .repeats = 3, .seed = 5};
  {
    auto plain = run_experiment(problems, {"random"}, settings);
    REQUIRE(plain.has_value());
    CHECK((*plain)[0].strategies[0].traces.empty());
    CHECK_FALSE(aoe::experiment::to_json(*plain, settings)
                    .at("inputs")
                    .at(0)
                    .at("strategies")
                    .at(0)
                    .as_object()
                    .contains("traces"));
  }
  settings.traces = true;
  auto results = run_experiment(problems, {"random", "annealing"}, settings);
  REQUIRE(results.has_value());
  const auto json = aoe::experiment::to_json(*results, settings);
  for (const auto& s : json.at("inputs").at(0).at("strategies").as_array()) {
    const auto& traces = s.at("traces").as_array();
    REQUIRE(traces.size() == 3);
    for (const auto& t : traces) {
      // A budget of 9 on a space of 9 configurations: each measured once, the two recorded
      // failures as null, in seconds (the cache holds milliseconds).
      std::vector<double> valid;
      int failed = 0;
      for (const auto& v : t.at("values").as_array()) {
        if (v.is_null()) {
          ++failed;
        } else {
          valid.push_back(v.to_number<double>() * 1e3);
        }
      }
      std::sort(valid.begin(), valid.end());
      CHECK(failed == 2);
      REQUIRE(valid.size() == 7);
      const std::vector<double> expected{1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0};
      for (std::size_t i = 0; i < 7; ++i) CHECK(valid[i] == doctest::Approx(expected[i]));
      const auto& costs = t.at("costs").as_array();
      REQUIRE(costs.size() == 9);
      for (const auto& c : costs) CHECK(c.to_number<double>() > 0);
      CHECK(t.at("seconds").to_number<double>() >= 0);
    }
  }
}

namespace {

// Whether every row of a table of aoe::experiment (table, fraction_table) starts its third
// column where the first row does, and the header's "strategy" where the first row's strategy
// name starts (rows: the lines up to the first empty one or "note:").
bool columns_in_line(const std::string& text, const std::string& first_strategy) {
  const auto third = [](const std::string& line) {
    const auto a = line.find_first_not_of(' ', line.find(' '));
    return line.find_first_not_of(' ', line.find(' ', a));
  };
  std::istringstream lines(text);
  std::string header, first, row;
  if (!std::getline(lines, header) || !std::getline(lines, first)) return false;
  std::size_t rows = 1;
  while (std::getline(lines, row) && !row.empty() && row.rfind("note:", 0) != 0) {
    if (third(row) != third(first)) return false;
    ++rows;
  }
  return rows >= 2 && header.find("strategy") == first.find(first_strategy);
}

}  // namespace

TEST_CASE("experiment: a user's policy runs beside ours, on the same seeds and figures") {
  aoe::test::TempDir dir("experiment_user_policy");
  const auto problems = tiny_problem(dir);
  const aoe::experiment::Settings settings{
      .budget = 6, .budget_seconds = {}, .repeats = 8, .seed = 4, .threads = 2};
  // A user's type (here RandomSearch under another name) and ours by name: the same policy on
  // the same derived seeds gives the same numbers, whichever way it came in.
  auto ours = aoe::experiment::named("random");
  REQUIRE(ours.has_value());
  const std::vector<aoe::experiment::Strategy> strategies{
      aoe::experiment::policy<aoe::RandomSearch>("mine"), std::move(*ours),
      aoe::experiment::policy<aoe::RandomSearch>("a-name-past-the-column")};
  auto results = aoe::experiment::run(problems, strategies, settings);
  REQUIRE(results.has_value());
  REQUIRE((*results)[0].strategies.size() == 3);
  const auto& mine = (*results)[0].strategies[0];
  const auto& random = (*results)[0].strategies[1];
  CHECK(mine.name == "mine");
  CHECK(mine.best_mean == random.best_mean);
  CHECK(mine.score == random.score);
  CHECK(mine.score_replicates.size() == random.score_replicates.size());
  const auto json = aoe::experiment::to_json(*results, settings);
  CHECK(json.at("inputs").at(0).at("strategies").at(0).at("name").as_string() == "mine");
  CHECK(aoe::experiment::table(*results, settings).find(" mine ") != std::string::npos);
  // A name longer than the strategy column (14) widens it: the rows stay in line.
  CHECK(columns_in_line(aoe::experiment::table(*results, settings), "mine"));
  CHECK(columns_in_line(aoe::experiment::fraction_table(*results, settings), "mine"));
}

TEST_CASE("experiment: a user's factory gets the configurations to start from") {
  auto problems = aoe::experiment::load_simulator_problems("sim:pooler/dense");
  REQUIRE(problems.has_value());
  aoe::experiment::Settings settings{.budget = 3, .budget_seconds = {}, .repeats = 2, .seed = 3};
  settings.start_from_default = true;
  // The factory builds annealing from the start it is given, as `named("annealing")` does.
  const auto from_start = [](const aoe::SearchStart& start) {
    aoe::SimulatedAnnealingOptions o;
    o.initial = start.initial;
    return aoe::SimulatedAnnealing<>(std::move(o));
  };
  auto ours = aoe::experiment::named("annealing");
  REQUIRE(ours.has_value());
  const std::vector<aoe::experiment::Strategy> strategies{
      aoe::experiment::policy("mine", from_start), std::move(*ours)};
  auto results = aoe::experiment::run(*problems, strategies, settings);
  REQUIRE(results.has_value());
  const auto& mine = (*results)[0].strategies[0];
  CHECK(mine.best_median == (*results)[0].strategies[1].best_median);
  // A factory without arguments is taken too.
  const std::vector<aoe::experiment::Strategy> plain{
      aoe::experiment::policy("plain", [] { return aoe::RandomSearch{}; })};
  CHECK(aoe::experiment::run(*problems, plain, settings).has_value());
}

TEST_CASE("experiment: a user's policy that throws is an error naming it, not a crash") {
  aoe::test::TempDir dir("experiment_user_throws");
  const auto problems = tiny_problem(dir);
  const std::vector<aoe::experiment::Strategy> strategies{aoe::experiment::policy(
      "broken", []() -> aoe::RandomSearch { throw std::runtime_error("no such thing"); })};
  const aoe::experiment::Settings settings{.budget = 3, .budget_seconds = {}, .repeats = 2};
  auto results = aoe::experiment::run(problems, strategies, settings);
  REQUIRE_FALSE(results.has_value());
  CHECK(results.error().message.find("'broken'") != std::string::npos);
  CHECK(results.error().message.find("no such thing") != std::string::npos);
  CHECK(results.error().message.find("repetition 0") != std::string::npos);
}

TEST_CASE("experiment: the autotuning-methodology files hold every repetition and the space") {
  aoe::test::TempDir dir("experiment_methodology");
  const auto problems = tiny_problem(dir);
  aoe::experiment::Settings settings{.budget = 5, .budget_seconds = {}, .repeats = 3, .seed = 2};
  auto without = run_experiment(problems, {"random"}, settings);
  REQUIRE(without.has_value());
  CHECK_FALSE(
      aoe::experiment::write_methodology_files(*without, settings, dir.path() / "m").has_value());
  settings.traces = true;
  auto results = run_experiment(problems, {"random", "annealing"}, settings);
  REQUIRE(results.has_value());
  REQUIRE(
      aoe::experiment::write_methodology_files(*results, settings, dir.path() / "m").has_value());
  const auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return boost::json::parse(text);
  };
  const auto& problem = problems[0];
  const auto input = dir.path() / "m" / problem.name;
  const auto full = read(input / "search_space_T4.json");
  CHECK(full.at("schema_version").as_string() == "1.0.0");
  CHECK(full.at("results").as_array().size() == problem.configurations);
  for (const auto& s : (*results)[0].strategies) {
    REQUIRE(s.traces.size() == 3);
    for (std::size_t r = 0; r < 3; ++r) {
      const auto doc = read(input / s.name / ("repetition_" + std::to_string(r) + "_T4.json"));
      const auto& entries = doc.at("results").as_array();
      REQUIRE(entries.size() == s.traces[r].values.size());
      for (std::size_t k = 0; k < entries.size(); ++k) {
        const auto& e = entries[k].as_object();
        const double v = s.traces[r].values[k];
        CHECK(e.at("invalidity").as_string() == (std::isnan(v) ? "runtime" : "correct"));
        if (!std::isnan(v)) {
          CHECK(e.at("measurements").at(0).at("value").to_number<double>() == v);
        }
        CHECK(e.at("times").at("runtimes").to_number<double>() == s.traces[r].costs[k]);
        CHECK(e.at("configuration").as_object().size() == problem.space->dimensions());
      }
    }
  }
}

TEST_CASE("aoe-bench --objective pareto: each front's hypervolume over the recorded front's") {
  auto problems = aoe::experiment::load_simulator_problems("sim:res2a_branch2c@Ascend310P3");
  REQUIRE_MESSAGE(problems.has_value(), (problems ? "" : problems.error().what()));
  const auto& p = problems->front();
  REQUIRE(p.front.size() > 3);  // the simulated energies give a front of several tilings
  aoe::experiment::Settings settings{.budget = 50, .budget_seconds = {}, .repeats = 4, .seed = 3};
  settings.objective.kind = aoe::ObjectiveKind::pareto;
  settings.traces = true;
  auto results = run_experiment(*problems, {"random", "evolutionary"}, settings);
  REQUIRE_MESSAGE(results.has_value(), (results ? "" : results.error().what()));
  for (const auto& s : (*results)[0].strategies) {
    CAPTURE(s.name);
    REQUIRE(s.hypervolume.size() == 2);  // 25 and 50 (the budget: the same key)
    CHECK(s.hypervolume.at(25) > 0);
    CHECK(s.hypervolume.at(25) <= s.hypervolume.at(50));  // a front only grows
    CHECK(s.hypervolume.at(50) <= 1.0 + 1e-12);
    MESSAGE(s.name << ": hypervolume @25 " << s.hypervolume.at(25) << ", @50 "
                   << s.hypervolume.at(50));
    // The traces carry each evaluation's energy, so that a tool scoring the runs itself
    // (bench/peers/run) finds the same hypervolume from them.
    REQUIRE(s.traces.size() == 4);
    double sum = 0;
    for (const auto& t : s.traces) {
      REQUIRE(t.energies.size() == t.values.size());
      std::vector<aoe::FrontPoint> front;
      for (std::size_t k = 0; k < t.values.size(); ++k) {
        CHECK(std::isnan(t.values[k]) == std::isnan(t.energies[k]));
        if (!std::isnan(t.values[k])) {
          (void)aoe::add_to_front(front, {t.values[k], t.energies[k], k});
        }
      }
      const auto reference = p.front_reference();
      sum += aoe::front_hypervolume(front, reference) / aoe::front_hypervolume(p.front, reference);
    }
    CHECK(sum / 4 == doctest::Approx(s.hypervolume.at(50)).epsilon(1e-12));
  }
  const auto json = boost::json::serialize(aoe::experiment::to_json(*results, settings));
  CHECK(json.find("\"hypervolume\":{\"25\":{\"mean\":") != std::string::npos);
  CHECK(json.find("\"energies\":[") != std::string::npos);
  CHECK(json.find("\"objective\":\"pareto (knee)\"") != std::string::npos);
  // Without recorded energy there is nothing to score against: an error naming the input.
  aoe::test::TempDir dir("aoe_bench_pareto");
  auto plain = run_experiment(tiny_problem(dir), {"random"}, settings);
  REQUIRE_FALSE(plain.has_value());
  CHECK(plain.error().message.find("tiny") != std::string::npos);
  CHECK(plain.error().message.find("no recorded energy") != std::string::npos);
  // A time run's JSON has no objective and no hypervolume.
  settings.objective = {};
  auto time = run_experiment(*problems, {"random"}, settings);
  REQUIRE(time.has_value());
  const auto time_json = boost::json::serialize(aoe::experiment::to_json(*time, settings));
  CHECK(time_json.find("hypervolume") == std::string::npos);
  CHECK(time_json.find("energies") == std::string::npos);
  CHECK(time_json.find("\"objective\"") == std::string::npos);
}

#ifdef AOE_TOOL_AOE_BENCH_PATH
TEST_CASE("aoe-bench --objective: pareto runs; energy, edp and unknown names are usage errors") {
  aoe::test::TempDir dir("aoe_bench_objective");
  const std::string err = dir.file("err.txt");
  const auto bench = [&](const std::string& input, const std::string& flags) {
    const std::string cmd = std::string(AOE_TOOL_AOE_BENCH_PATH) + " --input " + input +
                            " --strategy random --budget 5 --repeats 2 --seed 1 --json " +
                            dir.file("r.json") + " " + flags + " > /dev/null 2> " + err;
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(bench("sim:res2a_branch2c@Ascend310P3", "--objective pareto --pareto-pick fastest") == 0);
  CHECK(aoe::test::read_text(dir.file("r.json")).find("\"hypervolume\"") != std::string::npos);
  const std::string table = dir.file("table.txt");
  REQUIRE(std::system((std::string(AOE_TOOL_AOE_BENCH_PATH) +
                       " --input sim:res2a_branch2c@Ascend310P3 --strategy random --budget 5 "
                       "--repeats 2 --seed 1 --objective pareto --json " +
                       dir.file("t.json") + " > " + table)
                          .c_str()) == 0);
  CHECK(aoe::test::read_text(table).find("hypervolume of the fronts found over the recorded "
                                         "front's (pareto (knee)):") != std::string::npos);
  CHECK(aoe::test::read_text(table).find("  @5 ") != std::string::npos);
  CHECK(bench("sim:res2a_branch2c@Ascend310P3", "--objective energy") == 2);
  CHECK(aoe::test::read_text(err).find("expected time or pareto") != std::string::npos);
  CHECK(bench("sim:res2a_branch2c@Ascend310P3", "--objective speed") == 2);
  CHECK(aoe::test::read_text(err).find("'speed' is not an objective") != std::string::npos);
  CHECK(bench("sim:res2a_branch2c@Ascend310P3", "--objective pareto --pareto-pick middle") == 2);
  const std::string tiny =
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries()));
  CHECK(bench(tiny, "--objective pareto") == 3);
  CHECK(aoe::test::read_text(err).find("no recorded energy") != std::string::npos);
}
#endif

TEST_CASE("aoe-bench record --device simulator: an operator's space with both objectives") {
  aoe::test::TempDir dir("aoe_bench_record_sim");
  const std::string out = dir.file("res2a.json");
  aoe_bench::RecordSettings settings;
  settings.device = "simulator";
  settings.kernel = "res2a_branch2c@Ascend310P3";
  settings.sample = 400;
  settings.seed = 2;
  settings.output = out;
  const auto summary = aoe_bench::record(settings);
  REQUIRE_MESSAGE(summary.has_value(), (summary ? "" : summary.error().message));
  CHECK(summary->device == "Ascend310P3");
  CHECK(summary->configurations == 400);
  const std::string text = aoe::test::read_text(out);
  CHECK(text.find("\"energy_kind\":\"simulated\"") != std::string::npos);
  CHECK(text.find("\"kernel_name\":\"res2a_branch2c@Ascend310P3\"") != std::string::npos);
  // Each configuration is charged what the simulator charges: its one simulated run, as
  // `benchmark_time` (ms), so that a replay (ours, Kernel Tuner's) charges more than nothing.
  const auto cache = boost::json::parse(text).as_object().at("cache").as_object();
  std::size_t timed = 0;
  for (const auto& [key, entry] : cache) {
    const auto& e = entry.as_object();
    REQUIRE_MESSAGE(e.contains("benchmark_time"), std::string(key));
    if (!e.at("time").is_double()) continue;
    ++timed;
    CHECK(e.at("benchmark_time").as_double() == doctest::Approx(e.at("time").as_double()));
    CHECK(e.at("benchmark_time").as_double() > 0);
  }
  CHECK(timed > 0);
  auto problem = aoe::experiment::load_problem(out);
  REQUIRE_MESSAGE(problem.has_value(), (problem ? "" : problem.error().what()));
  CHECK(problem->front.size() > 1);
  // The recording replays with the pareto objective.
  std::vector<aoe::experiment::Problem> problems;
  problems.push_back(std::move(*problem));
  aoe::experiment::Settings run{.budget = 20, .budget_seconds = {}, .repeats = 2, .seed = 1};
  run.objective.kind = aoe::ObjectiveKind::pareto;
  const auto results = run_experiment(problems, {"random"}, run);
  REQUIRE(results.has_value());
  CHECK((*results)[0].strategies[0].hypervolume.at(20) > 0);
  // Two operators, or none: a usage error naming the kernel.
  settings.kernel = "resnet50-conv";
  const auto many = aoe_bench::record(settings);
  REQUIRE_FALSE(many.has_value());
  CHECK(many.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
  CHECK(many.error().message.find("records one") != std::string::npos);
  settings.kernel = "no_such_operator";
  CHECK(aoe_bench::record(settings).error().message.find("no_such_operator") != std::string::npos);
}

}  // namespace tools_aoe_bench_test
