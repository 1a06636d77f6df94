// A whole OPAT job (aoe::run_opat) on the AscendCL test double through AscendBackend: Schedule,
// Format and Impl tuned, the bank scoped by the device. Compiled only with AOE_WITH_ASCEND=ON
// (the fake toolkit of tests/ascend/fake_cann is enough): run_opat's instantiation is a heavy
// translation unit, and the default CI build already checks every piece it uses.
#include <doctest/doctest.h>

#if defined(AOE_WITH_ASCEND)

#include "ascend/device_fixture.hpp"
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/measure/ascend/ascend_backend.hpp>

#include <filesystem>

namespace {
using aoe::KnowledgeKind;
using aoe::test::Device;
using aoe::test::int32_at;
}  // namespace

TEST_CASE("ascend backend: an OPAT job on the device tunes Schedule, Format and Impl") {
  Device d("ascend_opat", 1);
  // The "device": the kernel is fastest with block_dim 4 and base_m 32; NZ is faster than ND;
  // high_precision is slower.
  d.acl.duration_ms = [](const aoe::test::AclDouble::Launch& l) {
    if (l.kernel) {
      const double blocks = l.block_dim;
      const double base_m = int32_at(l.arguments.back(), 12);
      return 1.0 + (blocks - 4) * (blocks - 4) * 0.1 + (base_m - 32) * (base_m - 32) * 0.001;
    }
    const bool nz = !l.storage_formats.empty() && l.storage_formats[0] == ACL_FORMAT_FRACTAL_NZ;
    return (nz ? 1.0 : 2.0) * (l.impl_mode == "high_precision" ? 1.5 : 1.0);
  };
  aoe::AscendBackend backend(d.runner, d.catalogue());
  aoe::Graph graph{.name = "device_model",
                   .nodes = {{.name = "mm",
                              .type = "MatMul",
                              .inputs = {{"x", {{64, 48}, aoe::DataType::float16}},
                                         {"w", {{48, 32}, aoe::DataType::float16}}},
                              .outputs = {{"y", {{64, 32}, aoe::DataType::float16}}},
                              .attributes = {}}}};
  aoe::KnowledgeBank bank({.custom_root = d.dir.path() / "bank"});
  aoe::OpatOptions o{.scope = backend.scope(),
                     .search = "random",
                     .budget = {.evaluations = 16, .patience = 16},
                     .seed = 1,
                     .format_tuning = true,
                     .impl_tuning = true,
                     .parallel = 2,
                     .batch_size = 4,
                     .run = {.result_dir = d.dir.path() / "work"}};
  auto job = aoe::run_opat(graph, backend, bank, o);
  REQUIRE_MESSAGE(job.has_value(), (job ? "" : job.error().message));
  REQUIRE(job->report.operators.size() == 1);
  const auto& op = job->report.operators[0];
  CHECK(op.error.empty());
  REQUIRE(op.kinds.size() == 3);
  CHECK(op.kinds[0].kind == KnowledgeKind::schedule);
  CHECK(op.kinds[0].outcome == aoe::OpatOutcome::add);  // the default (block_dim 2) is slower
  CHECK(op.kinds[0].after_us == doctest::Approx(1000.0));
  CHECK(op.kinds[1].outcome == aoe::OpatOutcome::add);  // FRACTAL_NZ beats ND
  CHECK(op.kinds[1].after_us == doctest::Approx(1000.0));
  CHECK(op.kinds[2].outcome == aoe::OpatOutcome::unsatisfied);  // high_performance is best
  CHECK(std::filesystem::exists(d.dir.path() / "bank" / "Ascend910B1" / "unified_bank"));
  CHECK_FALSE(d.acl.overlapped());
}

TEST_CASE("ascend backend: a simulator's bank entry is a hint on the device, measured, replaced") {
  Device d("ascend_hint", 1);
  d.acl.duration_ms = [](const aoe::test::AclDouble::Launch& l) {
    if (!l.kernel) return 1.0;
    const double blocks = l.block_dim;
    const double base_m = int32_at(l.arguments.back(), 12);
    return 1.0 + (blocks - 4) * (blocks - 4) * 0.1 + (base_m - 32) * (base_m - 32) * 0.001;
  };
  aoe::AscendBackend backend(d.runner, d.catalogue());
  CHECK(backend.timing().measured());
  CHECK(backend.timing().source == "Ascend910B1, device 0, 24 AI Cores, AscendCL events");
  aoe::Graph graph{.name = "device_model",
                   .nodes = {{.name = "mm",
                              .type = "MatMul",
                              .inputs = {{"x", {{64, 48}, aoe::DataType::float16}},
                                         {"w", {{48, 32}, aoe::DataType::float16}}},
                              .outputs = {{"y", {{64, 32}, aoe::DataType::float16}}},
                              .attributes = {}}}};
  // The simulator's winner, with the simulator's (far too good) time: block_dim 4, base_m 32.
  aoe::KnowledgeBank bank({.custom_root = d.dir.path() / "bank"});
  const auto key = aoe::make_bank_key(aoe::fuse(graph).at(0).op, KnowledgeKind::schedule,
                                      backend.scope(), "high_performance");
  REQUIRE(bank.store(aoe::Record{key,
                                 {{"block_dim", aoe::Value(4)}, {"base_m", aoe::Value(32)}},
                                 1e-9,
                                 {"analytic", 100, "2026-01-01T00:00:00Z",
                                  aoe::Timing{aoe::TimingKind::simulated, "a timing model"}}})
              .has_value());
  aoe::OpatOptions o{.scope = backend.scope(),
                     .search = "random",
                     .budget = {.evaluations = 8, .patience = 8},
                     .seed = 1,
                     .parallel = 1,
                     .batch_size = 4,
                     .run = {.result_dir = d.dir.path() / "work"}};
  auto job = aoe::run_opat(graph, backend, bank, o);
  REQUIRE_MESSAGE(job.has_value(), (job ? "" : job.error().message));
  REQUIRE(job->report.operators.size() == 1);
  const auto& schedule = job->report.operators[0].kinds.at(0);
  CHECK(schedule.outcome != aoe::OpatOutcome::hit);      // never a hit on the device
  CHECK(job->report.operators[0].evaluations > 2);       // measured again and searched from
  CHECK(schedule.before_us == doctest::Approx(1000.0));  // the hint, as the device measured it
  // The entry is now the device's: its configuration (nothing faster was found) with the
  // measured time, and says so.
  const auto now = bank.lookup(key);
  REQUIRE(now.has_value());
  REQUIRE(now->has_value());
  CHECK((*now)->value == doctest::Approx(1e-3));
  REQUIRE((*now)->provenance.timing.has_value());
  CHECK((*now)->provenance.timing->measured());
  CHECK((*now)->provenance.timing->source == backend.timing().source);
  // The next job on the device: a hit.
  auto again = aoe::run_opat(graph, backend, bank, o);
  REQUIRE(again.has_value());
  CHECK(again->report.operators.at(0).kinds.at(0).outcome == aoe::OpatOutcome::hit);
  CHECK(again->report.operators[0].evaluations == 0);
}

#endif  // AOE_WITH_ASCEND
