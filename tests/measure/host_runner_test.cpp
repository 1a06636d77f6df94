#include <aoe/measure/host_runner.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/space/typed_space.hpp>
#include <aoe/tuner/tuner.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {
struct Params {
  BOOST_HANA_DEFINE_STRUCT(Params, (int, n), (bool, fail));
};

aoe::TypedSpace<Params> params_space() {
  return aoe::make_space<Params>(aoe::range("n", 1, 4), aoe::flag("fail"));
}

void busy_wait(std::chrono::microseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
  }
}
}  // namespace

TEST_CASE("the host runner times the callable on the typed configuration") {
  const auto space = params_space();
  std::vector<int> calls;
  aoe::Runner<aoe::device::Host> runner([&](const Params& p) { calls.push_back(p.n); },
                                        aoe::HostOptions{.warmup = 2, .repetitions = 3});
  const std::vector<aoe::Configuration> batch{{2, 0}, {0, 0}};
  const auto ms = runner.measure(space, batch);
  REQUIRE(ms.size() == 2);
  CHECK(calls == std::vector<int>{3, 3, 3, 3, 3, 1, 1, 1, 1, 1});
  for (const auto& m : ms) {
    CHECK(m.ok());
    CHECK(m.samples.size() == 3);
    CHECK(m.value >= 0);
    CHECK(m.cost >= m.value);
  }
}

TEST_CASE("the statistic reduces the samples: median by default, min and mean on request") {
  const auto space = params_space();
  const std::vector<aoe::Configuration> one{{0, 0}};
  for (const auto stat : {aoe::Statistic::median, aoe::Statistic::min, aoe::Statistic::mean}) {
    aoe::Runner<aoe::device::Host> runner(
        [](const Params&) { busy_wait(std::chrono::microseconds(100)); },
        aoe::HostOptions{.warmup = 0, .repetitions = 5, .statistic = stat});
    const auto m = runner.measure(space, one).front();
    REQUIRE(m.ok());
    REQUIRE(m.samples.size() == 5);
    auto sorted = m.samples;
    std::sort(sorted.begin(), sorted.end());
    const double expected = stat == aoe::Statistic::median ? sorted[2]
                            : stat == aoe::Statistic::min  ? sorted[0]
                                                           : aoe::mean(m.samples);
    CHECK(m.value == expected);
    CHECK(m.value >= 100e-6);
  }
}

TEST_CASE("an exception becomes status runtime with its message; a failed check correctness") {
  const auto space = params_space();
  aoe::Runner<aoe::device::Host> runner(
      [](const Params& p) {
        if (p.fail) throw std::runtime_error("tile too large for n=" + std::to_string(p.n));
      },
      [](const Params& p) { return p.n != 2; }, aoe::HostOptions{.warmup = 0, .repetitions = 2});
  const std::vector<aoe::Configuration> batch{{3, 1}, {1, 0}, {0, 0}};
  const auto ms = runner.measure(space, batch);
  CHECK(ms[0].status == aoe::Status::runtime);
  CHECK(ms[0].message == "tile too large for n=4");
  CHECK(ms[1].status == aoe::Status::correctness);
  CHECK(ms[1].samples.size() == 2);
  CHECK(ms[2].ok());
}

TEST_CASE("a run over the adaptive timeout becomes status timeout and stops repeating") {
  const auto space = params_space();
  int calls = 0;
  aoe::Runner<aoe::device::Host> runner(
      [&](const Params& p) {
        ++calls;
        busy_wait(std::chrono::microseconds(p.n == 1 ? 200 : 150000));
      },
      aoe::HostOptions{.warmup = 0, .repetitions = 3, .timeout_factor = 5, .min_timeout = 0.002});
  const std::vector<aoe::Configuration> fast{{0, 0}};
  const std::vector<aoe::Configuration> slow{{3, 0}};
  CHECK(runner.measure(space, fast).front().ok());
  calls = 0;
  const auto m = runner.measure(space, slow).front();
  CHECK(m.status == aoe::Status::timeout);
  CHECK(calls == 1);
  CHECK(m.message.find("over the timeout") != std::string::npos);
}

TEST_CASE("the host runner takes a raw aoe::Configuration too, and tunes in a Tuner") {
  const aoe::Space space({aoe::range("spin", 1, 5)});
  aoe::Tuner tuner(aoe::GridSearch{},
                   aoe::Runner<aoe::device::Host>(
                       [&](const aoe::Configuration& c) {
                         busy_wait(std::chrono::microseconds(500 * (6 - c[0]) * (6 - c[0])));
                       },
                       aoe::HostOptions{.warmup = 0, .repetitions = 3}));
  const auto result = tuner.tune(space, aoe::MaxEvaluations{5});
  REQUIRE(result.found());
  CHECK(space.to_string(*result.best_configuration) == "spin=5");
}
