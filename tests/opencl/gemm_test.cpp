// The project's SGEMM tuned on a real device, and a recorded space replayed: the same best
// configuration offline as on the device.
#include "opencl_device.hpp"
#include "support/temp_dir.hpp"
#include <aoe/measure/opencl/gemm.hpp>
#include <aoe/measure/opencl/opencl_runner.hpp>
#include <aoe/measure/replay/kernel_tuner_writer.hpp>
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/search/random_search.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

// Four valid configurations of the GEMM at 64^3: a few seconds of builds on PoCL.
aoe::Space tiny_gemm_space() {
  return aoe::Space({aoe::values("MWG", {16, 32}), aoe::values("NWG", {16, 32}),
                     aoe::values("KWG", {16}), aoe::values("MDIMC", {8}), aoe::values("NDIMC", {8}),
                     aoe::values("VWN", {2}), aoe::values("SA", {0}), aoe::values("SB", {1}),
                     aoe::values("KWI", {2})});
}

}  // namespace

TEST_CASE("a tuned SGEMM verifies against the host reference") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  const auto problem = aoe::opencl::gemm_problem(64, 64, 64);
  auto runner =
      aoe::OpenCLRunner::open(aoe::opencl::gemm_kernel(problem), {.repetitions = 3}, *selection);
  REQUIRE_MESSAGE(runner.has_value(), runner.error().message);
  aoe::Tuner<aoe::RandomSearch, aoe::OpenCLRunner> tuner(
      aoe::RandomSearch{}, std::move(*runner), aoe::TunerOptions{.seed = 5, .batch_size = 2});
  const auto result = tuner.tune(tiny_gemm_space(), aoe::MaxEvaluations{4});
  CHECK(result.history.size() == 4);
  CHECK(result.count(aoe::Status::correct) == 4);  // each one checked against the reference
  REQUIRE(result.found());
  CHECK(result.best_value > 0);
}

TEST_CASE("every vector width of the GEMM's space builds and verifies, float16 included") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  const auto problem = aoe::opencl::gemm_problem(64, 64, 64);
  auto runner =
      aoe::OpenCLRunner::open(aoe::opencl::gemm_kernel(problem), {.repetitions = 1}, *selection);
  REQUIRE_MESSAGE(runner.has_value(), runner.error().message);
  // One work-item per 16 columns: VWN 1, 2, 4, 8 and 16 all divide NWG / NDIMC.
  const aoe::Space space({aoe::values("MWG", {16}), aoe::values("NWG", {64}),
                          aoe::values("KWG", {16}), aoe::values("MDIMC", {8}),
                          aoe::values("NDIMC", {4}), aoe::values("VWN", {1, 2, 4, 8, 16}),
                          aoe::values("SA", {0}), aoe::values("SB", {1}), aoe::values("KWI", {2})});
  aoe::Tuner<aoe::GridSearch, aoe::OpenCLRunner> tuner({}, std::move(*runner),
                                                       aoe::TunerOptions{.batch_size = 5});
  const auto result = tuner.tune(space, aoe::MaxEvaluations{5});
  REQUIRE(result.history.size() == 5);
  for (const auto& t : result.history) {
    INFO(space.to_string(t.configuration), ": ", t.measurement.message);
    CHECK(t.measurement.status == aoe::Status::correct);  // checked against the host reference
  }
  // The space offers the widths up to float16.
  const auto full = aoe::opencl::gemm_space(
      256, 256, 256, aoe::opencl::describe(*aoe::opencl::find_device(*selection)));
  const auto vwn = full.index_of("VWN");
  REQUIRE(vwn.has_value());
  CHECK(full.parameters()[*vwn].size() == 5);
}

TEST_CASE("a space recorded on the device replays to the same best configuration") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  aoe::test::TempDir dir("opencl_record");
  const auto problem = aoe::opencl::gemm_problem(64, 64, 64);
  auto runner =
      aoe::OpenCLRunner::open(aoe::opencl::gemm_kernel(problem), {.repetitions = 3}, *selection);
  REQUIRE_MESSAGE(runner.has_value(), runner.error().message);
  const aoe::Space space = tiny_gemm_space();
  const auto configurations = aoe::replay::configurations_to_record(space, {});
  REQUIRE(configurations.size() == 4);
  const auto recorded = aoe::replay::record(
      *runner, space, configurations,
      {.batch = 2, .name = "gemm64", .device = runner->device().name, .kernel = "aoe_gemm"});
  REQUIRE(recorded.valid_configurations() == 4);
  const auto best = recorded.optimum_configuration();
  REQUIRE(best.has_value());

  const std::string path = (dir.path() / "gemm64.json").string();
  const auto written = aoe::replay::write_kernel_tuner_cache(recorded, path);
  REQUIRE_MESSAGE(written.has_value(), written.error().message);
  auto loaded = aoe::replay::load(path);
  REQUIRE_MESSAGE(loaded.has_value(), loaded.error().message);
  CHECK(loaded->device == runner->device().name);
  CHECK(loaded->kernel == "aoe_gemm");
  REQUIRE(loaded->configurations() == 4);
  for (std::size_t i = 0; i < recorded.configurations(); ++i) {
    const auto* e = loaded->find(recorded.recorded()[i]);
    REQUIRE(e != nullptr);
    CHECK(e->value == doctest::Approx(recorded.entries()[i].value).epsilon(1e-9));
    CHECK(e->samples.size() == 3);
    CHECK(e->compile_seconds > 0);
  }

  const auto shared = std::make_shared<const aoe::replay::Recording>(std::move(*loaded));
  aoe::Tuner<aoe::GridSearch, aoe::ReplayRunner> tuner({}, aoe::ReplayRunner(shared));
  const auto result = tuner.tune(shared->space(), aoe::MaxEvaluations{100});
  REQUIRE(result.found());
  CHECK(result.history.size() == 4);
  CHECK(*result.best_configuration == *best);
  CHECK(result.best_value == doctest::Approx(recorded.optimum()).epsilon(1e-9));
}

TEST_CASE("failed configurations are written with Kernel Tuner's markers and read back") {
  aoe::test::TempDir dir("opencl_markers");
  aoe::replay::Recording rec("r", "r", {aoe::values("X", {1, 2, 3})});
  rec.objective = "time";
  aoe::replay::RecordedEntry ok;
  ok.value = 0.002;
  ok.samples = {0.002, 0.0021};
  aoe::replay::RecordedEntry compile;
  compile.status = aoe::Status::compile;
  aoe::replay::RecordedEntry wrong;
  wrong.status = aoe::Status::correctness;
  rec.add({0}, ok);
  rec.add({1}, compile);
  rec.add({2}, wrong);
  const auto json = aoe::replay::kernel_tuner_cache_json(rec);
  CHECK(json.at("cache").at("2").at("time").as_string() == "CompilationFailedConfig");
  CHECK(json.at("cache").at("3").at("time").as_string() == "RuntimeFailedConfig");
  CHECK(json.at("cache").at("3").at("aoe_status").as_string() == "correctness");
  CHECK(json.at("cache").at("1").at("time").as_double() == doctest::Approx(2.0));
  const std::string path = (dir.path() / "markers.json").string();
  REQUIRE(aoe::replay::write_kernel_tuner_cache(rec, path).has_value());
  const auto back = aoe::replay::load(path);
  REQUIRE_MESSAGE(back.has_value(), back.error().message);
  CHECK(back->find({1})->status == aoe::Status::compile);
  CHECK(back->find({2})->status == aoe::Status::runtime);  // Kernel Tuner has no marker for it
  CHECK(back->find({0})->value == doctest::Approx(0.002));
}
