// Recorded spaces with two objectives: Kernel Tuner caches with energy fields read and written,
// replayed with their energy, and the simulator's spaces recorded with both.
#include <aoe/measure/replay/kernel_tuner_cache.hpp>
#include <aoe/measure/replay/kernel_tuner_writer.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/measure/simulator/simulator_runner.hpp>
#include <aoe/measure/simulator/workloads.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace replay_energy_test {  // apart from this area's other files in a unity build

namespace {

/// A cache of one parameter `x` in {1, 2, 3, 4}: x = 1 with NVML's fields, x = 2 with
/// PowerSensor's energy and no power, x = 3 without energy, x = 4 failed (its energy ignored).
std::string cache_text(const std::string& top_extra = "", const std::string& first = "") {
  return R"({"device_name": "A100", "kernel_name": "k", "objective": "time",)" + top_extra +
         R"( "tune_params_keys": ["x"], "tune_params": {"x": [1, 2, 3, 4]}, "cache": {
  "1": {"x": 1, "time": 2.0, "times": [2.0], )" +
         (first.empty() ? R"("nvml_energy": 0.5, "nvml_power": 250.0)" : first) + R"(},
  "2": {"x": 2, "time": 4.0, "times": [4.0], "ps_energy": 0.4},
  "3": {"x": 3, "time": 1.0, "times": [1.0]},
  "4": {"x": 4, "time": "RuntimeFailedConfig", "nvml_energy": 9.0}}})";
}

aoe::Result<aoe::replay::Recording> load(const std::string& text) {
  return aoe::replay::load_kernel_tuner_cache(boost::json::parse(text), "energy.json");
}

}  // namespace

TEST_CASE("a cache's energy fields are read: NVML's and PowerSensor's, power or joules/time") {
  auto rec = load(cache_text());
  REQUIRE_MESSAGE(rec.has_value(), (rec ? std::string() : rec.error().message));
  const aoe::ReplayRunner runner(std::make_shared<const aoe::replay::Recording>(std::move(*rec)));
  const auto& space = runner.space();
  const auto at = [&](int x) {
    return runner.measure_one(*space.find(std::vector<aoe::NamedValue>{{"x", aoe::Value(x)}}));
  };
  const auto one = at(1);
  REQUIRE(one.energy.has_value());
  CHECK(one.energy->joules == 0.5);
  CHECK(one.energy->watts == 250.0);
  CHECK(one.energy->kind == aoe::TimingKind::measured);
  const auto two = at(2);
  REQUIRE(two.energy.has_value());
  CHECK(two.energy->watts == doctest::Approx(0.4 / 4e-3));
  CHECK_FALSE(at(3).energy.has_value());
  CHECK_FALSE(at(4).ok());
  CHECK_FALSE(at(4).energy.has_value());
}

TEST_CASE("wrong energy fields are errors that name the file and the place") {
  const auto bad = load(cache_text("", R"("nvml_energy": "lots")"));
  REQUIRE(bad.has_error());
  CHECK(bad.error().message.find("energy.json") != std::string::npos);
  CHECK(bad.error().message.find("/cache/1/nvml_energy") != std::string::npos);
  const auto power = load(cache_text("", R"("energy": 1.0, "power": -3)"));
  REQUIRE(power.has_error());
  CHECK(power.error().message.find("/cache/1/power") != std::string::npos);
  const auto kind = load(cache_text(R"( "energy_kind": "guessed",)"));
  REQUIRE(kind.has_error());
  CHECK(kind.error().message.find("/energy_kind") != std::string::npos);
}

TEST_CASE("the simulator's spaces are recorded with both objectives and read back as made") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A").value();
  const auto sim =
      aoe::SimulatorRunner::create(soc, aoe::sim::workloads::bert_base_vector_operators()[0])
          .value();
  const auto configurations = aoe::replay::configurations_to_record(sim.space(), {});
  auto recorded = aoe::replay::record(sim, sim.space(), configurations, {.name = "softmax"});
  const std::string text =
      boost::json::serialize(aoe::replay::kernel_tuner_cache_json(recorded)) + "\n";
  CHECK(text.find(R"("energy_kind":"simulated")") != std::string::npos);
  auto back = load(text);
  REQUIRE_MESSAGE(back.has_value(), (back ? std::string() : back.error().message));
  CHECK(back->energy_kind == aoe::TimingKind::simulated);
  const aoe::ReplayRunner replay(std::make_shared<const aoe::replay::Recording>(std::move(*back)));
  std::size_t with_energy = 0;
  for (const auto& c : configurations) {
    const auto made = sim.evaluate(c);
    const auto again = replay.measure_one(*replay.space().find(sim.space().named_values(c)));
    REQUIRE(made.ok() == again.ok());
    if (!made.ok()) continue;
    REQUIRE(again.energy.has_value());
    ++with_energy;
    CHECK(again.energy->joules == doctest::Approx(made.energy->joules).epsilon(1e-12));
    CHECK(again.energy->watts == doctest::Approx(made.energy->watts).epsilon(1e-12));
    CHECK(again.energy->kind == aoe::TimingKind::simulated);
  }
  CHECK(with_energy > 10);
}

TEST_CASE("a recording without energy is written as before: no energy field at all") {
  const auto rec = load(R"({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "cache": {
    "1": {"x": 1, "time": 2.0}, "2": {"x": 2, "time": 3.0}}})");
  REQUIRE(rec.has_value());
  const std::string text = boost::json::serialize(aoe::replay::kernel_tuner_cache_json(*rec));
  CHECK(text.find("energy") == std::string::npos);
  CHECK(text.find("power") == std::string::npos);
}

}  // namespace replay_energy_test
