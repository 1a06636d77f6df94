// The simulator's energy model: its calibration against the 910A's published power, its terms
// adding up, and the trade of energy and time between memory-bound and compute-bound tilings.
#include "aoe/measure/simulator/oracle.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/workloads.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace simulator_energy_test {  // apart from this area's other files in a unity build

namespace {

using aoe::Configuration;
using aoe::OperatorDesc;
using aoe::sim::Soc;
using Sim = aoe::Runner<aoe::device::Simulator>;
using aoe::sim::detail::Bound;

Soc soc(const char* name = "Ascend910A") { return Soc::builtin(name).value(); }

/// An fp16 MatMul whose tensors are FRACTAL_NZ already (no TransData in its time).
OperatorDesc matmul(std::int64_t m, std::int64_t k, std::int64_t n) {
  OperatorDesc op;
  op.type = "MatMul";
  op.name = "mm";
  const auto nz = aoe::Format::FRACTAL_NZ;
  op.inputs = {{{m, k}, aoe::DataType::float16, nz}, {{k, n}, aoe::DataType::float16, nz}};
  op.outputs = {{{m, n}, aoe::DataType::float16, nz}};
  return op;
}

const std::vector<std::string> energy_fields{
    "mac_pj_int8",    "mac_pj_fp16",    "mac_pj_fp32",       "vector_repeat_pj",
    "gm_pj_per_byte", "l2_pj_per_byte", "local_pj_per_byte", "static_watts"};

/// A SoC whose energy constants are all zero but the one `keep` names.
Soc only(const Soc& base, const std::string& keep) {
  Soc s = base;
  s.visit_fields([&](std::string_view name, auto& member) {
    if constexpr (std::is_same_v<std::remove_reference_t<decltype(member)>, double>) {
      const bool energy =
          std::find(energy_fields.begin(), energy_fields.end(), name) != energy_fields.end();
      if (energy && name != keep) member = 0;
    }
  });
  return s;
}

double joules(const Sim& r, const Configuration& c) {
  const auto m = r.evaluate(c);
  REQUIRE(m.ok());
  REQUIRE(m.energy.has_value());
  return m.energy->joules;
}

/// About `most` valid configurations spread evenly over the runner's space.
std::vector<Configuration> sample(const Sim& r, std::size_t most) {
  std::size_t total = 0;
  Configuration c;
  for (auto e = r.space().enumerate(); e.next(c);) ++total;
  const std::size_t stride = std::max<std::size_t>(1, total / most);
  std::vector<Configuration> out;
  std::size_t i = 0;
  for (auto e = r.space().enumerate(); e.next(c);) {
    if (i++ % stride != 0) continue;
    if (r.time(c).buffer == aoe::sim::detail::Buffer::none) out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("every configuration that fits carries simulated energy and its average power") {
  const auto r = Sim::create(soc(), matmul(1024, 1024, 1024)).value();
  const auto m = r.evaluate(r.default_configuration());
  REQUIRE(m.ok());
  REQUIRE(m.energy.has_value());
  CHECK(m.energy->kind == aoe::TimingKind::simulated);
  CHECK(m.energy->joules > 0);
  CHECK(m.energy->watts == doctest::Approx(m.energy->joules / m.value).epsilon(1e-12));
  // Never below the static power, never above a sane bound for a 310 W part.
  CHECK(m.energy->watts >= soc().static_watts);
  CHECK(m.energy->watts < 400);
  // A tile that does not fit has no energy: nothing ran.
  auto e = r.space().enumerate();
  Configuration c;
  while (e.next(c)) {
    if (r.time(c).buffer != aoe::sim::detail::Buffer::none) break;
  }
  const auto failed = r.evaluate(c);
  REQUIRE_FALSE(failed.ok());
  CHECK_FALSE(failed.energy.has_value());
}

TEST_CASE("noise stretches the run: the static power runs longer, the dynamic energy stays") {
  aoe::SimulatorOptions noisy;
  noisy.noise.jitter = 0.05;
  noisy.noise.repetitions = 5;
  noisy.noise.seed = 3;
  const auto exact = Sim::create(soc(), matmul(1024, 1024, 1024)).value();
  const auto r = Sim::create(soc(), matmul(1024, 1024, 1024), noisy).value();
  const auto c = exact.default_configuration();
  const auto e = exact.evaluate(c);
  const auto n = r.evaluate(c);
  REQUIRE(n.energy.has_value());
  CHECK(n.energy->joules ==
        doctest::Approx(e.energy->joules + soc().static_watts * (n.value - e.value)));
  CHECK(n.energy->watts == doctest::Approx(n.energy->joules / n.value));
}

TEST_CASE("a busy Ascend910A draws near its published 310 W (Hot Chips 31)") {
  // 8192^3 fp16 (NZ): the fastest tiling keeps the cube busy (91 % of its 256 TFLOPS).
  const auto r = Sim::create(soc(), matmul(8192, 8192, 8192)).value();
  const auto best = aoe::sim::oracle(r).best;
  REQUIRE_FALSE(best.empty());
  const auto m = r.evaluate(best);
  const double tflops = 2.0 * 8192.0 * 8192.0 * 8192.0 / m.value / 1e12;
  MESSAGE("8192^3 fastest: " << tflops << " TFLOP/s, " << m.energy->watts << " W");
  CHECK(tflops > 200);
  CHECK(m.energy->watts > 280);
  CHECK(m.energy->watts < 330);
  // A small operator that leaves most of the chip idle draws far less.
  const auto small = Sim::create(soc(), matmul(256, 256, 256)).value();
  const auto s = small.evaluate(aoe::sim::oracle(small).best);
  CHECK(s.energy->watts < m.energy->watts - 60);
}

TEST_CASE("the energy is the sum of the model's terms, each over the same run") {
  const auto conv = aoe::sim::workloads::resnet50_convolutions()[6];
  const auto vector = aoe::sim::workloads::bert_base_vector_operators()[0];
  for (const char* name : {"Ascend910A", "Ascend910B1", "Ascend310P3"}) {
    for (const auto& op : {conv, vector}) {
      CAPTURE(name);
      CAPTURE(op.name);
      const auto full = Sim::create(soc(name), op).value();
      std::vector<Sim> parts;
      for (const auto& f : energy_fields)
        parts.push_back(Sim::create(only(soc(name), f), op).value());
      const auto configurations = sample(full, 40);
      REQUIRE(configurations.size() > 5);
      for (const auto& c : configurations) {
        double sum = 0;
        for (const auto& p : parts) sum += joules(p, c);
        CHECK(joules(full, c) == doctest::Approx(sum).epsilon(1e-9));
        // Static power alone is static power times the run's time.
        const auto st = parts.back().evaluate(c);
        CHECK(st.energy->joules == doctest::Approx(soc(name).static_watts * st.value));
      }
    }
  }
}

TEST_CASE("a memory-bound and a compute-bound tiling trade energy and time as the model says") {
  // 4096^3 fp16 on the 910A, over 3,000 tilings spread across its space: the fastest
  // compute-bound one against the slowest memory-bound one on as many cores, which re-reads its
  // operands from GM many times.
  const auto op = matmul(4096, 4096, 4096);
  const auto r = Sim::create(soc(), op).value();
  Configuration compute;
  Configuration memory;
  double fastest = 1e30;
  double slowest = 0;
  const auto tilings = sample(r, 3000);
  for (const auto& c : tilings) {
    aoe::sim::detail::Profile q;
    const auto o = r.profile(c, q);
    if (q.bound == Bound::compute && q.cores == 32 && o.seconds < fastest) {
      fastest = o.seconds;
      compute = c;
    }
  }
  for (const auto& c : tilings) {
    aoe::sim::detail::Profile q;
    const auto o = r.profile(c, q);
    if (q.bound == Bound::memory && q.cores == 32 && o.seconds > slowest) {
      slowest = o.seconds;
      memory = c;
    }
  }
  REQUIRE_FALSE(compute.empty());
  REQUIRE_FALSE(memory.empty());
  const auto mc = r.evaluate(compute);
  const auto mm = r.evaluate(memory);
  MESSAGE("4096^3 compute-bound: "
          << mc.value * 1e6 << " us, " << mc.energy->joules * 1e3 << " mJ, " << mc.energy->watts
          << " W; memory-bound: " << mm.value * 1e6 << " us, " << mm.energy->joules * 1e3 << " mJ, "
          << mm.energy->watts << " W");
  // The memory-bound tiling is slower and draws less power (its cube waits on MTE2) ...
  CHECK(mm.value > 1.5 * mc.value);
  CHECK(mm.energy->watts < mc.energy->watts);
  // ... but it moves more bytes for the same MACs, so it costs more energy, and the terms say
  // why: the MACs cost the same (4096 is a multiple of every block), the data movement more,
  // and the static power runs for longer.
  CHECK(mm.energy->joules > mc.energy->joules);
  const auto with = [&](const std::string& field) {
    return Sim::create(only(soc(), field), op).value();
  };
  const auto macs = with("mac_pj_fp16");
  CHECK(joules(macs, memory) == doctest::Approx(joules(macs, compute)));
  CHECK(joules(macs, compute) == doctest::Approx(4096.0 * 4096 * 4096 * 1.3e-12));
  for (const char* moved : {"gm_pj_per_byte", "l2_pj_per_byte"}) {
    CAPTURE(moved);
    const auto bytes = with(moved);
    CHECK(joules(bytes, memory) > joules(bytes, compute));
  }
  const auto idle = with("static_watts");
  CHECK(joules(idle, memory) / joules(idle, compute) == doctest::Approx(mm.value / mc.value));
}

}  // namespace simulator_energy_test
