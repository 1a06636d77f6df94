// Runner<device::Replay>: recorded statuses and values, device time charged, budgets honoured.
#include "replay_cache.hpp"
#include "support/temp_dir.hpp"
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

std::shared_ptr<const aoe::replay::Recording> tiny(const aoe::test::TempDir& dir) {
  auto r = aoe::replay::load(
      dir.write("tiny.json", aoe::test::kernel_tuner_cache(aoe::test::tiny_entries())));
  REQUIRE(r.has_value());
  return std::make_shared<const aoe::replay::Recording>(std::move(*r));
}

}  // namespace

TEST_CASE("the replay runner returns what was recorded and charges compile + benchmark time") {
  aoe::test::TempDir dir("replay_runner");
  const auto rec = tiny(dir);
  aoe::ReplayRunner runner(rec);
  static_assert(aoe::ReplayRunner::reports_device_time);
  const std::vector<aoe::Configuration> batch{{1, 1, 0}, {1, 1, 1}, {2, 1, 0}};
  const auto m = runner.measure(runner.space(), batch);
  REQUIRE(m.size() == 3);
  CHECK(m[0].ok());
  CHECK(m[0].value == doctest::Approx(1e-3));
  CHECK(m[0].samples.size() == 2);
  CHECK(m[0].cost == doctest::Approx(0.1 + 0.01));  // compile_time + benchmark_time
  CHECK(m[1].status == aoe::Status::runtime);
  CHECK(m[1].message.find("RuntimeFailedConfig") != std::string::npos);
  CHECK(m[1].cost == doctest::Approx(0.11));       // a failure still costs its recorded time
  CHECK(m[2].status == aoe::Status::constraints);  // not recorded
  CHECK(m[2].cost == 0);

  aoe::ReplayRunner no_compile(rec, {.charge_compile = false});
  CHECK(no_compile.measure_one({1, 1, 0}).cost == doctest::Approx(0.01));

  // Without benchmark_time: the sum of the runs; without runs: value x iterations.
  aoe::replay::RecordedEntry e;
  e.value = 0.002;
  e.samples = {0.002, 0.003};
  CHECK(runner.cost(e) == doctest::Approx(0.005));
  e.samples.clear();
  CHECK(aoe::ReplayRunner(rec, {.iterations = 10}).cost(e) == doctest::Approx(0.02));
}

TEST_CASE("a tuner on a replayed space finds its optimum and never proposes absent points") {
  aoe::test::TempDir dir("replay_tuner");
  const auto rec = tiny(dir);
  aoe::Tuner<aoe::GridSearch, aoe::ReplayRunner> tuner({}, aoe::ReplayRunner(rec));
  const auto result = tuner.tune(rec->space(), aoe::MaxEvaluations{100});
  CHECK(result.history.size() == 9);  // only the recorded configurations
  CHECK(result.count(aoe::Status::constraints) == 0);
  CHECK(result.count(aoe::Status::compile) == 1);
  CHECK(result.count(aoe::Status::runtime) == 1);
  REQUIRE(result.found());
  CHECK(result.best_value == doctest::Approx(1e-3));
  // Device time: 9 evaluations x 0.11 s, whatever the wall clock did.
  CHECK(result.measure_seconds == doctest::Approx(9 * 0.11));
}

TEST_CASE("a MaxDuration budget is spent in recorded device seconds") {
  aoe::test::TempDir dir("replay_duration");
  const auto rec = tiny(dir);
  aoe::Tuner<aoe::RandomSearch, aoe::ReplayRunner> tuner(
      aoe::RandomSearch{}, aoe::ReplayRunner(rec), aoe::TunerOptions{.seed = 3});
  using namespace std::chrono_literals;
  // 0.11 s per evaluation: the clock passes 0.3 s during the third evaluation.
  const auto result = tuner.tune(rec->space(), aoe::MaxDuration{0.3s});
  CHECK(result.history.size() == 3);
  CHECK(result.measure_seconds == doctest::Approx(0.33));
}

TEST_CASE("sleep_scale: each evaluation sleeps its recorded device time times the factor") {
  aoe::test::TempDir dir("replay_sleep");
  const auto rec = tiny(dir);
  std::vector<double> slept;
  const auto counting = [&slept](double seconds) { slept.push_back(seconds); };
  // charge_compile off: the sleep still covers the compile, as the device spent it.
  auto runner = aoe::ReplayRunner::create(
                    rec, {.charge_compile = false, .sleep_scale = 0.5, .sleep = counting})
                    .value();
  const std::vector<aoe::Configuration> batch{{1, 1, 0}, {1, 1, 1}, {2, 1, 0}};
  const auto m = runner.measure(runner.space(), batch);
  REQUIRE(m.size() == 3);
  // Two recorded entries (0.1 s compile + 0.01 s benchmark each); the absent one cost nothing.
  REQUIRE(slept.size() == 2);
  CHECK(slept[0] == doctest::Approx(0.5 * 0.11));
  CHECK(slept[1] == doctest::Approx(0.5 * 0.11));
  CHECK(m[0].cost == doctest::Approx(0.01));  // the sleep is not charged
  // Off by default: no sleep at all.
  slept.clear();
  aoe::ReplayRunner quiet(rec, {.sleep = counting});
  static_cast<void>(quiet.measure(quiet.space(), batch));
  CHECK(slept.empty());
  // The real sleep: at least the scaled time passed (a lower bound cannot flake).
  auto real = aoe::ReplayRunner::create(rec, {.sleep_scale = 0.2}).value();
  const auto t0 = std::chrono::steady_clock::now();
  static_cast<void>(real.measure_one({1, 1, 0}));
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >= 0.2 * 0.11);
  // Bad factors are named errors.
  for (const double bad : {-1.0, 1001.0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
    CAPTURE(bad);
    const auto r = aoe::ReplayRunner::create(rec, {.sleep_scale = bad});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == aoe::make_error_code(aoe::Errc::invalid_argument));
    CHECK(r.error().message.find("sleep_scale") != std::string::npos);
  }
  CHECK_FALSE(aoe::ReplayRunner::create(nullptr).has_value());
}
