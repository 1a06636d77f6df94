// A 2D convolution in CUDA C++ with block, tile and shared-memory parameters: the classic
// Kernel Tuner benchmark kernel (block_size_x/y, tile_size_x/y, shared-memory staging), written
// here, on the same problem and reference as the OpenCL one.
#ifndef AOE_MEASURE_CUDA_CONVOLUTION_HPP
#define AOE_MEASURE_CUDA_CONVOLUTION_HPP

#include "aoe/measure/cuda/device.hpp"
#include "aoe/measure/cuda/kernel.hpp"
#include "aoe/measure/kernel/convolution_problem.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace aoe::cuda {

using kernel::convolution_flops;    // 2 H W FH FW
using kernel::convolution_problem;  // input, filter and the host reference
using kernel::ConvolutionProblem;

/// out[y][x] = sum over the FH x FW filter of in[y + i][x + j] * filter[i][j], for an output
/// of H x W; the input is (H + FH - 1) x (W + FW - 1). A block of BLOCK_X x BLOCK_Y threads
/// computes a tile of (BLOCK_X * TILE_X) x (BLOCK_Y * TILE_Y) outputs, each thread TILE_X x
/// TILE_Y of them, strided by the block (so that a warp's reads and writes are coalesced);
/// with USE_SHARED the input tile and its halo are staged in shared memory first. The filter,
/// read by every thread alike, goes through the read-only cache. BLOCK_X, BLOCK_Y, TILE_X,
/// TILE_Y are the template arguments of `aoe_convolution` (in that order); USE_SHARED and the
/// sizes H, W, FH, FW are macros. Launch: block (BLOCK_X, BLOCK_Y), grid
/// (W / (BLOCK_X * TILE_X), H / (BLOCK_Y * TILE_Y)).
inline constexpr const char* convolution_source = R"CUDA(
#if !defined(USE_SHARED) || !defined(H) || !defined(W) || !defined(FH) || !defined(FW)
#error "aoe_convolution needs -DUSE_SHARED, -DH, -DW, -DFH and -DFW"
#endif

template <int BlockX, int BlockY, int TileX, int TileY>
__global__ void __launch_bounds__(BlockX * BlockY)
    aoe_convolution(float* __restrict__ out, const float* __restrict__ in,
                    const float* __restrict__ filter) {
  constexpr int kTileW = BlockX * TileX;  // outputs of the block
  constexpr int kTileH = BlockY * TileY;
  constexpr int kInputW = W + FW - 1;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int x0 = blockIdx.x * kTileW;
  const int y0 = blockIdx.y * kTileH;
#if USE_SHARED
  __shared__ float tile[kTileH + FH - 1][kTileW + FW - 1];
  for (int i = ty; i < kTileH + FH - 1; i += BlockY) {
    for (int j = tx; j < kTileW + FW - 1; j += BlockX) {
      tile[i][j] = in[(y0 + i) * kInputW + x0 + j];
    }
  }
  __syncthreads();
#endif
  float sum[TileY][TileX];
#pragma unroll
  for (int ti = 0; ti < TileY; ++ti) {
#pragma unroll
    for (int tj = 0; tj < TileX; ++tj) sum[ti][tj] = 0.0f;
  }
  for (int i = 0; i < FH; ++i) {
#pragma unroll 4
    for (int j = 0; j < FW; ++j) {
      const float f = __ldg(&filter[i * FW + j]);
#pragma unroll
      for (int ti = 0; ti < TileY; ++ti) {
#pragma unroll
        for (int tj = 0; tj < TileX; ++tj) {
          const int ly = ty + ti * BlockY + i;
          const int lx = tx + tj * BlockX + j;
#if USE_SHARED
          sum[ti][tj] = fmaf(tile[ly][lx], f, sum[ti][tj]);
#else
          sum[ti][tj] = fmaf(__ldg(&in[(y0 + ly) * kInputW + x0 + lx]), f, sum[ti][tj]);
#endif
        }
      }
    }
  }
#pragma unroll
  for (int ti = 0; ti < TileY; ++ti) {
#pragma unroll
    for (int tj = 0; tj < TileX; ++tj) {
      out[(y0 + ty + ti * BlockY) * W + x0 + tx + tj * BlockX] = sum[ti][tj];
    }
  }
}
)CUDA";

/// The parameters of Kernel Tuner's convolution example (block sizes, tiles, shared memory),
/// constrained to tiles that divide the output, blocks the device allows and shared tiles that
/// fit its static shared memory per block.
[[nodiscard]] inline Space convolution_space(const ConvolutionProblem& p,
                                             const DeviceInfo& device) {
  const double shared_bytes = static_cast<double>(device.shared_memory_per_block);
  const auto fh = static_cast<double>(p.filter_height);
  const auto fw = static_cast<double>(p.filter_width);
  const auto h = static_cast<double>(p.height);
  const auto w = static_cast<double>(p.width);
  return Space(
      {values("BLOCK_X", {16, 32, 48, 64, 80, 96, 112, 128}), values("BLOCK_Y", {1, 2, 4, 8, 16}),
       range("TILE_X", 1, 8), range("TILE_Y", 1, 8), values("USE_SHARED", {0, 1})},
      {predicate(
           {"BLOCK_X", "TILE_X"},
           [w](std::span<const double> v) { return std::fmod(w, v[0] * v[1]) == 0; },
           "BLOCK_X * TILE_X divides W"),
       predicate(
           {"BLOCK_Y", "TILE_Y"},
           [h](std::span<const double> v) { return std::fmod(h, v[0] * v[1]) == 0; },
           "BLOCK_Y * TILE_Y divides H"),
       product_at_most({"BLOCK_X", "BLOCK_Y"}, static_cast<double>(device.max_threads_per_block)),
       predicate(
           {"BLOCK_X", "BLOCK_Y", "TILE_X", "TILE_Y", "USE_SHARED"},
           [=](std::span<const double> v) {
             return v[4] == 0 ||
                    4 * (v[1] * v[3] + fh - 1) * (v[0] * v[2] + fw - 1) <= shared_bytes;
           },
           "the shared tile fits the device's shared memory per block")});
}

/// The kernel for `p` (the templated `aoe_convolution`), checked against its host reference.
[[nodiscard]] inline Kernel convolution_kernel(const ConvolutionProblem& p) {
  const auto h = static_cast<std::size_t>(p.height);
  const auto w = static_cast<std::size_t>(p.width);
  return Kernel{
      .source = convolution_source,
      .name = "aoe_convolution",
      .template_arguments = {"BLOCK_X", "BLOCK_Y", "TILE_X", "TILE_Y"},
      .arguments = {std::vector<float>(h * w), p.input, p.filter},
      .grid =
          [h, w](const Params& q) {
            return Range(w / static_cast<std::size_t>(q["BLOCK_X"] * q["TILE_X"]),
                         h / static_cast<std::size_t>(q["BLOCK_Y"] * q["TILE_Y"]));
          },
      .block =
          [](const Params& q) {
            return Range(static_cast<std::size_t>(q["BLOCK_X"]),
                         static_cast<std::size_t>(q["BLOCK_Y"]));
          },
      .shared_memory_bytes = {},
      .defines = {{"H", std::to_string(p.height)},
                  {"W", std::to_string(p.width)},
                  {"FH", std::to_string(p.filter_height)},
                  {"FW", std::to_string(p.filter_width)}},
      .compiler_options = {},
      .checks = {{.argument = 0,
                  .expected = p.output,
                  .absolute = 1e-4 * static_cast<double>(p.filter_height * p.filter_width),
                  .relative = 1e-4}}};
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_CONVOLUTION_HPP
