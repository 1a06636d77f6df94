// Measuring on a real NPU (needs CANN: built only with -DAOE_WITH_ASCEND=ON, not run by ctest).
//   aoe_example_ascend_matmul                    a MatMul as a single operator, ND vs FRACTAL_NZ
//   aoe_example_ascend_matmul <kernel.o> <name>  ... then tunes an Ascend C add kernel
// ASCEND_DEVICE_ID selects the NPU (default 0). The kernel of the second part is CANN's
// AddCustom sample built with ascendc_fatbin_library: add_custom(x, y, z, workspace, tiling)
// on fp16 vectors, with the tiling struct {uint32_t totalLength; uint32_t tileNum;}.
#include <aoe/measure/ascend/ascend_runner.hpp>
#include <aoe/measure/ascend/real_acl_api.hpp>
#include <aoe/measure/ascend/tiling_data.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/space/constraint.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace {

// C = A * B, fp16, with each tensor stored as `storage` (the origin view is ND).
aoe::Result<aoe::ascend::OpCall> matmul(std::int64_t m, std::int64_t n, std::int64_t k,
                                        aoe::Format storage) {
  aoe::ascend::OpCall call{.type = "MatMul",
                           .attributes = {{"transpose_x1", false}, {"transpose_x2", false}},
                           .impl_mode = "high_performance"};
  for (const auto& [rows, cols, output] :
       {std::tuple{m, k, false}, std::tuple{k, n, false}, std::tuple{m, n, true}}) {
    auto t =
        aoe::ascend::stored_as({{rows, cols}, aoe::DataType::float16, aoe::Format::ND}, storage);
    if (!t) return t.error();
    (output ? call.outputs : call.inputs).push_back(*t);
  }
  return call;
}

}  // namespace

int main(int argc, char** argv) {
  auto npu = aoe::AscendRunner::open(aoe::ascend::real_acl_api(), {.warmup = 2, .repetitions = 20});
  if (!npu) {
    std::fprintf(stderr, "%s\n", npu.error().what().c_str());
    return 1;
  }
  std::printf("Ascend device %d: %s, %d AI Cores\n", npu->device_id(), npu->soc_name().c_str(),
              npu->ai_core_count());

  // 1. A single operator: compiled with aclopCompile, timed with events around aclopExecuteV2.
  for (const aoe::Format storage : {aoe::Format::ND, aoe::Format::FRACTAL_NZ}) {
    auto call = matmul(1024, 1024, 1024, storage);
    if (!call) {
      std::fprintf(stderr, "%s\n", call.error().what().c_str());
      return 1;
    }
    const aoe::Measurement m = npu->run(*call);
    std::printf("MatMul 1024^3 fp16, %-10s: %s\n", aoe::to_string(storage).data(),
                m.ok() ? (std::to_string(m.value * 1e6) + " us").c_str()
                       : (std::string(aoe::to_string(m.status)) + ": " + m.message).c_str());
  }
  if (argc < 3) {
    std::printf("pass <kernel.o> <kernel name> to tune an Ascend C add kernel\n");
    return 0;
  }

  // 2. An Ascend C kernel: the block dim and the tile count are tuned; each candidate is the
  // same binary launched with another tiling struct.
  auto kernel = npu->load_kernel(argv[1], argv[2]);
  if (!kernel) {
    std::fprintf(stderr, "%s\n", kernel.error().what().c_str());
    return 1;
  }
  constexpr std::int64_t total = 8 * 2048;  // fp16 elements
  const aoe::Space space(
      {aoe::values("block_dim", {1, 2, 4, 8, 16}), aoe::values("tile_num", {1, 2, 4, 8, 16})},
      {aoe::predicate(
          {"block_dim", "tile_num"},
          [](std::span<const double> x) {
            // each core's share splits into tile_num double-buffered tiles of 32-byte blocks
            const auto per_tile = total / static_cast<std::int64_t>(x[0] * x[1] * 2);
            return per_tile > 0 && per_tile % 16 == 0;
          },
          "tiles of whole 32-byte blocks")});
  const auto tuned = npu->bind(
      space,
      [&](const aoe::Configuration& c) -> aoe::Result<aoe::AscendRunner::Call> {
        aoe::ascend::TilingData tiling;
        if (auto ok = tiling.append("totalLength", aoe::ascend::TilingType::uint32, total); !ok) {
          return ok.error();
        }
        if (auto ok = tiling.append("tileNum", aoe::ascend::TilingType::uint32, space.value(c, 1));
            !ok) {
          return ok.error();
        }
        const std::size_t bytes = total * 2;
        return aoe::AscendRunner::Call{aoe::ascend::KernelCall{
            .kernel = *kernel,
            .block_dim = static_cast<std::uint32_t>(space.value(c, 0).as_integer()),
            .inputs = {bytes, bytes},
            .outputs = {bytes},
            .tiling = tiling.bytes()}};
      },
      {0, 0});
  aoe::Tuner<aoe::GridSearch, aoe::AscendRunner> tuner(aoe::GridSearch{}, tuned,
                                                       aoe::TunerOptions{});
  const aoe::TuningResult result = tuner.tune(space, aoe::MaxEvaluations{25});
  if (!result.found()) {
    std::fprintf(stderr, "no candidate ran\n");
    return 1;
  }
  const aoe::Measurement before = tuned.evaluate(tuned.default_configuration());
  std::printf("%s: default (1 core, 1 tile) %.2f us, best %s %.2f us\n", argv[2],
              before.value * 1e6, space.to_string(*result.best_configuration).c_str(),
              result.best_value * 1e6);
  return 0;
}
