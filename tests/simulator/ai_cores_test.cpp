// Soc::with_ai_cores (`aoe --aicore_num`, docs/cli.md#--aicore_num): fewer AI Cores make the
// timing model slower and the best tiling another one.
#include "aoe/measure/simulator/oracle.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"

#include <doctest/doctest.h>

#include <cstdint>

namespace simulator_ai_cores_test {  // apart from this area's other files in a unity build

namespace {

using Sim = aoe::Runner<aoe::device::Simulator>;

aoe::OperatorDesc matmul(std::int64_t m, std::int64_t k, std::int64_t n) {
  aoe::OperatorDesc op;
  op.type = "MatMul";
  op.name = "mm";
  const auto f = aoe::Format::FRACTAL_NZ;
  op.inputs = {{{m, k}, aoe::DataType::float16, f}, {{k, n}, aoe::DataType::float16, f}};
  op.outputs = {{{m, n}, aoe::DataType::float16, f}};
  return op;
}

}  // namespace

TEST_CASE("with_ai_cores: the core count changes, the name and the chip's caps stay") {
  const auto a = aoe::sim::Soc::builtin("Ascend910A").value();
  const auto eight = a.with_ai_cores(8);
  CHECK(eight.cube_cores == 8);
  CHECK(eight.name == "Ascend910A");
  CHECK(eight.gm_bandwidth == a.gm_bandwidth);
  CHECK(eight.vector_op_cores() == 8);
  CHECK(eight.peak_flops_fp16() == doctest::Approx(a.peak_flops_fp16() / 4));
  const auto b = aoe::sim::Soc::builtin("Ascend910B1").value();  // split: 24 cube, 48 vector
  const auto twelve = b.with_ai_cores(12);
  CHECK(twelve.cube_cores == 12);
  CHECK(twelve.vector_cores == 24);
  CHECK(a.with_ai_cores(32).cube_cores == 32);
}

TEST_CASE("with_ai_cores: a 2048^3 MatMul on 8 of 32 cores is slower, its best tiling another") {
  const auto all = aoe::sim::Soc::builtin("Ascend910A").value();
  const auto r32 = Sim::create(all, matmul(2048, 2048, 2048)).value();
  const auto r8 = Sim::create(all.with_ai_cores(8), matmul(2048, 2048, 2048)).value();
  const auto best32 = aoe::sim::oracle(r32);
  const auto best8 = aoe::sim::oracle(r8);
  REQUIRE(best32.valid > 0);
  REQUIRE(best8.valid > 0);
  MESSAGE("32 cores: ", best32.value * 1e6, " us, ", r32.space().to_string(best32.best),
          "; 8 cores: ", best8.value * 1e6, " us, ", r8.space().to_string(best8.best));
  CHECK(best8.value > 2.5 * best32.value);  // compute-bound: about 4 times
  CHECK(r8.evaluate(r8.default_configuration()).value >
        2.5 * r32.evaluate(r32.default_configuration()).value);
  CHECK(r8.space().to_string(best8.best) != r32.space().to_string(best32.best));
}

}  // namespace simulator_ai_cores_test
