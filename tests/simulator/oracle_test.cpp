// The exhaustive oracle agrees with the space and is never beaten by a sample of it.
#include "aoe/measure/simulator/oracle.hpp"

#include "aoe/measure/simulator/workloads.hpp"

#include <doctest/doctest.h>

#include <cstddef>

namespace simulator_oracle_test {  // apart from this area's other files in a unity build

namespace {
using Sim = aoe::Runner<aoe::device::Simulator>;
}  // namespace

TEST_CASE("the oracle enumerates the valid configurations and finds the minimum") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910B3").value();
  const auto op = aoe::sim::workloads::bert_base_matmuls(4, 128)[6];  // attention Q K^T
  const auto r = Sim::create(soc, op).value();
  const auto result = aoe::sim::oracle(r);
  const auto size = r.space().size();
  REQUIRE(size.exact);
  CHECK(static_cast<double>(result.evaluated) == size.valid);
  CHECK(result.valid <= result.evaluated);
  CHECK(result.valid > 0);
  REQUIRE(r.space().is_valid(result.best));
  const auto best = r.evaluate(result.best);
  REQUIRE(best.ok());
  CHECK(best.value == result.value);
  // no configuration is faster, and the compile failures are exactly the invalid ones
  std::size_t ok = 0;
  r.space().for_each_valid([&](const aoe::Configuration& c) {
    const auto m = r.evaluate(c);
    if (m.ok()) {
      ++ok;
      CHECK(m.value >= result.value);
    } else {
      CHECK(m.status == aoe::Status::compile);
    }
  });
  CHECK(ok == result.valid);
}

TEST_CASE("the oracle of a vector operator with every knowledge kind") {
  const auto soc = aoe::sim::Soc::builtin("Ascend910A").value();
  auto softmax = aoe::sim::workloads::bert_base_vector_operators(16, 128)[0];
  softmax.inputs[0].format = aoe::Format::FRACTAL_NZ;  // produced by an NZ BatchMatMul
  const auto r =
      Sim::create(soc, softmax,
                  {.knowledge = {aoe::sim::Knowledge::schedule, aoe::sim::Knowledge::format,
                                 aoe::sim::Knowledge::impl}})
          .value();
  const auto result = aoe::sim::oracle(r);
  REQUIRE(!result.best.empty());
  // With NZ data the NZ kernel avoids two TransData passes; high_performance is faster.
  CHECK(r.space().value(result.best, *r.space().index_of("format")).as_text() == "FRACTAL_NZ");
  CHECK(r.space().value(result.best, *r.space().index_of("impl_mode")).as_text() ==
        "high_performance");
  CHECK(result.value <= r.evaluate(r.default_configuration()).value);
}

}  // namespace simulator_oracle_test
