#include "support/fake_powercap.hpp"
#include <aoe/measure/host_runner.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/space/typed_space.hpp>
#include <aoe/tuner/tuner.hpp>

#include <boost/hana/define_struct.hpp>
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
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
  // Energy off: where RAPL is readable, untimed runs would fill its window (counted below).
  aoe::Runner<aoe::device::Host> runner(
      [&](const Params& p) { calls.push_back(p.n); },
      aoe::HostOptions{.warmup = 2, .repetitions = 3, .energy = false});
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

namespace host_energy {

using aoe::test::FakePowercap;

TEST_CASE("with RAPL readable, each measurement carries the packages' energy per run") {
  for (const std::uint64_t start : {std::uint64_t{0}, std::uint64_t{999000}}) {  // and a wrap
    CAPTURE(start);
    const FakePowercap rapl("readable", start);
    const aoe::Rapl counters(rapl.root);
    REQUIRE(counters.available());
    CHECK(counters.packages() == 2);
    aoe::HostRunner runner(
        [&](const aoe::Configuration&) {
          rapl.add("intel-rapl:0", 1000);  // 1 mJ per run on package 0
          rapl.add("intel-rapl:1", 500);
          rapl.add("intel-rapl:0:0", 900);  // inside package 0's figure: not added again
          rapl.add("intel-rapl:2", 7000);   // the platform: not a package
          busy_wait(std::chrono::microseconds(200));
        },
        aoe::HostOptions{.repetitions = 3, .powercap = rapl.root.string()});
    REQUIRE(runner.measures_energy());
    const aoe::Space space({aoe::range("n", 1, 2)});
    const std::vector<aoe::Configuration> batch{{0}};
    const auto m = runner.measure(aoe::SpaceView(space), batch).front();
    REQUIRE(m.ok());
    REQUIRE(m.energy.has_value());
    CHECK(m.energy->kind == aoe::TimingKind::measured);
    // The window ran until 10 ms had passed: the untimed runs are counted too.
    CHECK(m.energy->joules == doctest::Approx(1.5e-3));
    CHECK(m.energy->watts > 0);
    CHECK(m.energy->watts < 1.5e-3 / 200e-6 * 1.01);  // at most one run's energy per its time
  }
}

TEST_CASE("without RAPL, or with energy off, a measurement has no energy, and says why") {
  const aoe::Space space({aoe::range("n", 1, 2)});
  const std::vector<aoe::Configuration> batch{{0}};
  const auto kernel = [](const aoe::Configuration&) {};
  {
    const FakePowercap rapl("unreadable");
    std::filesystem::remove(rapl.root / "intel-rapl:1" / "energy_uj");  // root only, say
    aoe::HostRunner runner(kernel, aoe::HostOptions{.powercap = rapl.root.string()});
    CHECK_FALSE(runner.measures_energy());
    CHECK(runner.energy_unavailable().find("intel-rapl:1/energy_uj is not readable") !=
          std::string::npos);
    CHECK_FALSE(runner.measure(aoe::SpaceView(space), batch).front().energy.has_value());
  }
  {
    aoe::HostRunner runner(kernel, aoe::HostOptions{.powercap = "/nonexistent/powercap"});
    CHECK_FALSE(runner.measures_energy());
    CHECK(runner.energy_unavailable().find("/nonexistent/powercap") != std::string::npos);
  }
  {
    const FakePowercap rapl("off");
    aoe::HostRunner runner(kernel,
                           aoe::HostOptions{.energy = false, .powercap = rapl.root.string()});
    CHECK_FALSE(runner.measures_energy());
    CHECK(runner.energy_unavailable() == "HostOptions::energy is off");
    CHECK_FALSE(runner.measure(aoe::SpaceView(space), batch).front().energy.has_value());
  }
}

TEST_CASE("RAPL as one running total of joules, across a wrap, for the OpenCL runner's meter") {
  const FakePowercap rapl("meter", 999'000);
  const aoe::RaplMeter meter(std::make_shared<const aoe::Rapl>(rapl.root));
  const auto copy = meter;  // copies share the total
  CHECK(meter() == doctest::Approx(0.0));
  rapl.add("intel-rapl:0", 2'000);  // wraps past the range of 1 J
  rapl.add("intel-rapl:1", 500);
  rapl.add("intel-rapl:0:0", 9'000);  // a sub-domain: inside package 0's figure
  CHECK(copy() == doctest::Approx(2.5e-3));
  rapl.add("intel-rapl:1", 1'500);
  CHECK(meter() == doctest::Approx(4e-3));
  std::filesystem::remove(rapl.root / "intel-rapl:1" / "energy_uj");
  CHECK_FALSE(meter().has_value());
}

}  // namespace host_energy
