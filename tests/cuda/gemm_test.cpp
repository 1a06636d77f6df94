// The CUDA SGEMM and convolution kernels without a GPU: their tuning spaces on an H100's
// properties, and NVRTC compiling a spread of their configurations for sm_90 (both the
// templated kernels and the defines-only entry Kernel Tuner uses).
#include <aoe/measure/cuda/convolution.hpp>
#include <aoe/measure/cuda/device.hpp>
#include <aoe/measure/cuda/gemm.hpp>
#include <aoe/measure/cuda/kernel.hpp>
#include <aoe/measure/cuda/known_devices.hpp>
#include <aoe/measure/cuda/nvrtc_compiler.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace cuda_gemm_test {  // apart from this area's other files in a unity build

namespace {

aoe::cuda::DeviceInfo h100() { return aoe::cuda::h100_sxm(); }

// The configuration of `space` with these values; fails the test when it is not valid.
aoe::Configuration valid(const aoe::Space& space, const std::vector<aoe::NamedValue>& values) {
  const auto c = space.find(values);
  REQUIRE(c.has_value());
  REQUIRE_MESSAGE(space.is_valid(*c), space.to_string(*c));
  return *c;
}

// Compiles configuration `c` of `kernel` for sm_90 as the runner would and checks the result.
void compiles(const aoe::cuda::Kernel& kernel, const aoe::Space& space,
              const aoe::Configuration& c) {
  const std::string expression = aoe::cuda::name_expression(kernel, space, c);
  const auto compiled = aoe::cuda::compile(kernel.source, expression,
                                           aoe::cuda::compile_options(kernel, space, c), "sm_90");
  INFO(space.to_string(c));
  REQUIRE_MESSAGE(compiled.ok, compiled.message);
  CHECK(compiled.lowered_name.rfind("_Z", 0) == 0);
  CHECK(compiled.lowered_name.find(kernel.name) != std::string::npos);
  CHECK(!compiled.image.empty());
  std::printf("  %-80s %5.2f s\n", expression.c_str(), compiled.seconds);
}

}  // namespace

TEST_CASE("the SGEMM space at 4096^3 on an H100 holds the known-good shapes") {
  const aoe::Space space = aoe::cuda::gemm_space(4096, 4096, 4096, h100());
  const auto size = space.size();
  CHECK(size.exact);
  CHECK(size.raw == 6912);
  CHECK(size.valid == 1940);
  for (const int bk : {8, 16}) {
    for (const int db : {0, 1}) {
      (void)valid(space, {{"BM", 128},
                          {"BN", 128},
                          {"BK", bk},
                          {"TX", 16},
                          {"TY", 16},
                          {"VEC", 4},
                          {"DB", db},
                          {"PAD", 4},
                          {"UNROLL", 8}});
    }
  }
  // 128 x 128 x 32 double-buffered needs 66 KiB of static shared memory: out.
  const auto big = space.find(std::vector<aoe::NamedValue>{{"BM", 128},
                                                           {"BN", 128},
                                                           {"BK", 32},
                                                           {"TX", 16},
                                                           {"TY", 16},
                                                           {"VEC", 4},
                                                           {"DB", 1},
                                                           {"PAD", 0},
                                                           {"UNROLL", 8}});
  REQUIRE(big.has_value());
  CHECK_FALSE(space.is_valid(*big));
}

TEST_CASE("the SGEMM space respects the device's limits") {
  aoe::cuda::DeviceInfo small = h100();
  small.max_threads_per_block = 256;
  small.shared_memory_per_block = 16 * 1024;
  const aoe::Space space = aoe::cuda::gemm_space(4096, 4096, 4096, small);
  std::size_t count = 0;
  space.for_each_valid([&](const aoe::Configuration& c) {
    const aoe::kernel::Params p(space, c);
    ++count;
    CHECK(p["TX"] * p["TY"] <= 256);
    CHECK(aoe::cuda::gemm_shared_bytes(p.real("BM"), p.real("BN"), p.real("BK"), p.real("DB"),
                                       p.real("PAD")) <= 16 * 1024);
    CHECK(p["BM"] / p["TY"] * (p["BN"] / p["TX"]) <= 128);
  });
  CHECK(count > 0);
  CHECK(count < 1940);
}

TEST_CASE("NVRTC compiles a spread of SGEMM configurations for sm_90") {
  const auto problem = aoe::cuda::gemm_problem(256, 256, 256);
  const aoe::cuda::Kernel kernel = aoe::cuda::gemm_kernel(problem);
  const aoe::Space space = aoe::cuda::gemm_space(4096, 4096, 4096, h100());
  using V = std::vector<aoe::NamedValue>;
  const std::vector<V> picks = {
      {{"BM", 128},
       {"BN", 128},
       {"BK", 8},
       {"TX", 16},
       {"TY", 16},
       {"VEC", 4},
       {"DB", 1},
       {"PAD", 4},
       {"UNROLL", 8}},
      {{"BM", 128},
       {"BN", 128},
       {"BK", 16},
       {"TX", 16},
       {"TY", 16},
       {"VEC", 4},
       {"DB", 0},
       {"PAD", 0},
       {"UNROLL", 2}},
      {{"BM", 256},
       {"BN", 128},
       {"BK", 8},
       {"TX", 16},
       {"TY", 16},
       {"VEC", 4},
       {"DB", 1},
       {"PAD", 4},
       {"UNROLL", 8}},  // the largest tiles: 16 x 8 per thread
      {{"BM", 128},
       {"BN", 256},
       {"BK", 8},
       {"TX", 32},
       {"TY", 8},
       {"VEC", 2},
       {"DB", 1},
       {"PAD", 0},
       {"UNROLL", 2}},
      {{"BM", 64},
       {"BN", 64},
       {"BK", 16},
       {"TX", 8},
       {"TY", 8},
       {"VEC", 4},
       {"DB", 1},
       {"PAD", 4},
       {"UNROLL", 8}},
      {{"BM", 128},
       {"BN", 64},
       {"BK", 32},
       {"TX", 8},
       {"TY", 16},
       {"VEC", 2},
       {"DB", 0},
       {"PAD", 4},
       {"UNROLL", 8}},
      {{"BM", 32},
       {"BN", 32},
       {"BK", 8},
       {"TX", 8},
       {"TY", 8},
       {"VEC", 2},
       {"DB", 0},
       {"PAD", 0},
       {"UNROLL", 2}},  // the smallest
      {{"BM", 128},
       {"BN", 128},
       {"BK", 16},
       {"TX", 32},
       {"TY", 32},
       {"VEC", 2},
       {"DB", 0},
       {"PAD", 4},
       {"UNROLL", 8}},  // 1024 threads
  };
  for (const auto& pick : picks) compiles(kernel, space, valid(space, pick));
}

TEST_CASE("the SGEMM's defines-only entry compiles with every parameter as a macro") {
  const char* expression = "aoe_gemm_defines";
  const auto compiled =
      aoe::cuda::compile(aoe::cuda::gemm_source, expression,
                         {"-DAOE_GEMM_DEFINES_ENTRY=1", "-DBM=128", "-DBN=128", "-DBK=8", "-DTX=16",
                          "-DTY=16", "-DVEC=4", "-DDB=1", "-DPAD=4", "-DUNROLL=8"},
                         "sm_90");
  REQUIRE_MESSAGE(compiled.ok, compiled.message);
  CHECK(compiled.lowered_name == "aoe_gemm_defines");  // extern "C": not mangled
  CHECK(!compiled.image.empty());
  std::printf("  %-80s %5.2f s\n", expression, compiled.seconds);
}

TEST_CASE("NVRTC compiles convolution configurations for sm_90") {
  const auto problem = aoe::cuda::convolution_problem(256, 256, 5, 5);
  const aoe::cuda::Kernel kernel = aoe::cuda::convolution_kernel(problem);
  const aoe::Space space = aoe::cuda::convolution_space(problem, h100());
  CHECK(space.size().valid > 100);
  using V = std::vector<aoe::NamedValue>;
  for (const V& pick :
       {V{{"BLOCK_X", 32}, {"BLOCK_Y", 8}, {"TILE_X", 2}, {"TILE_Y", 4}, {"USE_SHARED", 1}},
        V{{"BLOCK_X", 64}, {"BLOCK_Y", 4}, {"TILE_X", 1}, {"TILE_Y", 2}, {"USE_SHARED", 0}},
        V{{"BLOCK_X", 128}, {"BLOCK_Y", 8}, {"TILE_X", 1}, {"TILE_Y", 4}, {"USE_SHARED", 1}}}) {
    compiles(kernel, space, valid(space, pick));
  }
}

}  // namespace cuda_gemm_test
