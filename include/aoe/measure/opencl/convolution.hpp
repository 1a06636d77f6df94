// A 2D convolution with tiling and block parameters: the classic Kernel Tuner benchmark
// kernel (block_size_x/y, tile_size_x/y, shared-memory staging), written here.
#ifndef AOE_MEASURE_OPENCL_CONVOLUTION_HPP
#define AOE_MEASURE_OPENCL_CONVOLUTION_HPP

#include "aoe/measure/kernel/convolution_problem.hpp"
#include "aoe/measure/opencl/device.hpp"
#include "aoe/measure/opencl/kernel.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace aoe::opencl {

using kernel::convolution_problem;  // input, filter and the host reference
using kernel::ConvolutionProblem;

/// out[y][x] = sum over the FH x FW filter of in[y + i][x + j] * filter[i][j], for an output
/// of H x W; the input is (H + FH - 1) x (W + FW - 1). A work-group of BLOCK_X x BLOCK_Y
/// work-items computes a tile of (BLOCK_X * TILE_X) x (BLOCK_Y * TILE_Y) outputs, each
/// work-item TILE_X x TILE_Y of them, strided by the block; with USE_LOCAL the input tile and
/// its halo are staged in __local memory first. The filter is __constant.
inline constexpr const char* convolution_source = R"CLC(
#define TW (BLOCK_X * TILE_X)
#define TH (BLOCK_Y * TILE_Y)
#define IW (W + FW - 1)

__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1)))
void aoe_convolution(__global float* out, const __global float* in,
                     __constant float* filter) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int x0 = get_group_id(0) * TW, y0 = get_group_id(1) * TH;
#if USE_LOCAL
  __local float tile[TH + FH - 1][TW + FW - 1];
  for (int i = ty; i < TH + FH - 1; i += BLOCK_Y)
    for (int j = tx; j < TW + FW - 1; j += BLOCK_X) tile[i][j] = in[(y0 + i) * IW + x0 + j];
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  float sum[TILE_Y][TILE_X];
  for (int ti = 0; ti < TILE_Y; ++ti)
    for (int tj = 0; tj < TILE_X; ++tj) sum[ti][tj] = 0.0f;
  for (int i = 0; i < FH; ++i) {
    for (int j = 0; j < FW; ++j) {
      const float f = filter[i * FW + j];
      for (int ti = 0; ti < TILE_Y; ++ti) {
        for (int tj = 0; tj < TILE_X; ++tj) {
          const int ly = ty + ti * BLOCK_Y + i, lx = tx + tj * BLOCK_X + j;
#if USE_LOCAL
          sum[ti][tj] += tile[ly][lx] * f;
#else
          sum[ti][tj] += in[(y0 + ly) * IW + x0 + lx] * f;
#endif
        }
      }
    }
  }
  for (int ti = 0; ti < TILE_Y; ++ti)
    for (int tj = 0; tj < TILE_X; ++tj)
      out[(y0 + ty + ti * BLOCK_Y) * W + x0 + tx + tj * BLOCK_X] = sum[ti][tj];
}
)CLC";

/// The parameters of Kernel Tuner's convolution example (block sizes, tiles, shared memory),
/// constrained to tiles that divide the output, work-groups the device allows and local tiles
/// that fit its local memory.
[[nodiscard]] inline Space convolution_space(const ConvolutionProblem& p,
                                             const DeviceInfo& device) {
  const double local_bytes = static_cast<double>(device.local_memory_bytes);
  const auto fh = static_cast<double>(p.filter_height);
  const auto fw = static_cast<double>(p.filter_width);
  const auto h = static_cast<double>(p.height);
  const auto w = static_cast<double>(p.width);
  return Space(
      {values("BLOCK_X", {16, 32, 48, 64, 80, 96, 112, 128}), values("BLOCK_Y", {1, 2, 4, 8, 16}),
       range("TILE_X", 1, 8), range("TILE_Y", 1, 8), values("USE_LOCAL", {0, 1})},
      {predicate(
           {"BLOCK_X", "TILE_X"},
           [w](std::span<const double> v) { return std::fmod(w, v[0] * v[1]) == 0; },
           "BLOCK_X * TILE_X divides W"),
       predicate(
           {"BLOCK_Y", "TILE_Y"},
           [h](std::span<const double> v) { return std::fmod(h, v[0] * v[1]) == 0; },
           "BLOCK_Y * TILE_Y divides H"),
       product_at_most({"BLOCK_X", "BLOCK_Y"}, static_cast<double>(device.max_work_group_size)),
       predicate(
           {"BLOCK_X", "BLOCK_Y", "TILE_X", "TILE_Y", "USE_LOCAL"},
           [=](std::span<const double> v) {
             return v[4] == 0 || 4 * (v[1] * v[3] + fh - 1) * (v[0] * v[2] + fw - 1) <= local_bytes;
           },
           "the local tile fits the device's local memory")});
}

/// The kernel for `p`, checked against its host reference.
[[nodiscard]] inline Kernel convolution_kernel(const ConvolutionProblem& p) {
  const auto h = static_cast<std::size_t>(p.height);
  const auto w = static_cast<std::size_t>(p.width);
  return Kernel{
      .source = convolution_source,
      .name = "aoe_convolution",
      .arguments = {std::vector<float>(h * w), p.input, p.filter},
      .global =
          [h, w](const Params& q) {
            return Range(w / static_cast<std::size_t>(q["TILE_X"]),
                         h / static_cast<std::size_t>(q["TILE_Y"]));
          },
      .local =
          [](const Params& q) {
            return Range(static_cast<std::size_t>(q["BLOCK_X"]),
                         static_cast<std::size_t>(q["BLOCK_Y"]));
          },
      .defines = {{"H", std::to_string(p.height)},
                  {"W", std::to_string(p.width)},
                  {"FH", std::to_string(p.filter_height)},
                  {"FW", std::to_string(p.filter_width)}},
      .build_options = "-cl-mad-enable",
      .checks = {{.argument = 0,
                  .expected = p.output,
                  .absolute = 1e-4 * static_cast<double>(p.filter_height * p.filter_width),
                  .relative = 1e-4}}};
}

}  // namespace aoe::opencl

#endif  // AOE_MEASURE_OPENCL_CONVOLUTION_HPP
