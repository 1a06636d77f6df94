// Speed of Runner<device::Simulator>: MatMul evaluations per second (single thread) and the
// exhaustive oracle's time on a ResNet-50 convolution's space. Prints one JSON object.
#include "aoe/measure/simulator/oracle.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/workloads.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

int main() {
  using Clock = std::chrono::steady_clock;
  using Sim = aoe::Runner<aoe::device::Simulator>;
  const auto soc = aoe::sim::Soc::builtin("Ascend910A").value();

  aoe::OperatorDesc mm;
  mm.type = "MatMul";
  mm.name = "matmul_8192";
  const aoe::TensorDesc t{{8192, 8192}, aoe::DataType::float16, aoe::Format::FRACTAL_NZ};
  mm.inputs = {t, t};
  mm.outputs = {t};
  const auto runner = Sim::create(soc, mm).value();
  std::vector<aoe::Configuration> configs;
  aoe::Rng rng(1);
  for (int i = 0; i < 4096; ++i) configs.push_back(*runner.space().sample(rng));

  // evaluate() on pre-drawn configurations for about half a second.
  double sink = 0;
  std::size_t evaluations = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < 0.5) {
    for (const auto& c : configs) {
      const auto m = runner.evaluate(c);
      sink += m.ok() ? m.value : 0;
    }
    evaluations += configs.size();
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }

  const auto conv = aoe::sim::workloads::resnet50_convolutions(32)[7];  // res3a_branch2b
  const auto conv_runner = Sim::create(soc, conv).value();
  const auto o0 = Clock::now();
  const auto best = aoe::sim::oracle(conv_runner);
  const double oracle_seconds = std::chrono::duration<double>(Clock::now() - o0).count();

  const auto m0 = Clock::now();
  const auto mm_best = aoe::sim::oracle(runner);
  const double mm_oracle_seconds = std::chrono::duration<double>(Clock::now() - m0).count();

  std::printf(
      "{\n  \"soc\": \"%s\",\n  \"matmul_evaluations_per_second\": %.0f,\n"
      "  \"matmul_space_evaluated\": %zu,\n  \"matmul_oracle_seconds\": %.4f,\n"
      "  \"matmul_oracle_tflops\": %.1f,\n"
      "  \"resnet50_conv\": \"%s\",\n  \"resnet50_conv_oracle_seconds\": %.4f,\n"
      "  \"resnet50_conv_space_evaluated\": %zu,\n  \"resnet50_conv_space_valid\": %zu,\n"
      "  \"resnet50_conv_best_seconds\": %.6g,\n  \"checksum\": %.6g\n}\n",
      soc.name.c_str(), static_cast<double>(evaluations) / elapsed, mm_best.evaluated,
      mm_oracle_seconds, 2.0 * 8192.0 * 8192.0 * 8192.0 / mm_best.value / 1e12, conv.name.c_str(),
      oracle_seconds, best.evaluated, best.valid, best.value, sink);
  return 0;
}
