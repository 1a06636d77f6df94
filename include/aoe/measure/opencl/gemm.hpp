// A tiled SGEMM of this project's own, with parameters in the style of CLBlast's Xgemm
// (work-group tile, work-items per group, vector width, local-memory caching of A and B,
// unrolling): its kernel, its tuning space and its reference.
#ifndef AOE_MEASURE_OPENCL_GEMM_HPP
#define AOE_MEASURE_OPENCL_GEMM_HPP

#include "aoe/measure/kernel/gemm_problem.hpp"
#include "aoe/measure/opencl/device.hpp"
#include "aoe/measure/opencl/kernel.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace aoe::opencl {

using kernel::gemm_flops;    // 2 M N K
using kernel::gemm_problem;  // inputs and the host reference
using kernel::GemmProblem;

/// C = A * B, row-major, A M x K, B K x N, C M x N. A work-group computes an MWG x NWG tile of
/// C with MDIMC x NDIMC work-items (dimension 0 runs along N: NDIMC; dimension 1 along M:
/// MDIMC); each work-item an (MWG/MDIMC) x (NWG/NDIMC) block, its columns VWN at a time
/// (floatVWN). K advances KWG at a time; SA / SB stage the tile of A / B in __local memory;
/// the inner loop is unrolled KWI times. M, N, K must be multiples of the tiles (the space's
/// constraints say so).
inline constexpr const char* gemm_source = R"CLC(
#define WPTM (MWG / MDIMC)
#define WPTN (NWG / NDIMC)
#define VPTN (WPTN / VWN)
#if VWN == 1
  #define realN float
  #define LOADN(i, p) ((p)[i])
  #define STOREN(x, i, p) ((p)[i] = (x))
#elif VWN == 2
  #define realN float2
  #define LOADN vload2
  #define STOREN vstore2
#elif VWN == 4
  #define realN float4
  #define LOADN vload4
  #define STOREN vstore4
#elif VWN == 8
  #define realN float8
  #define LOADN vload8
  #define STOREN vstore8
#elif VWN == 16
  #define realN float16
  #define LOADN vload16
  #define STOREN vstore16
#endif

__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1)))
void aoe_gemm(const int M, const int N, const int K, const __global float* restrict A,
              const __global float* restrict B, __global float* C) {
  const int tn = get_local_id(0);
  const int tm = get_local_id(1);
  const int m0 = get_group_id(1) * MWG + tm * WPTM;  // this work-item's first row
  const int n0 = get_group_id(0) * NWG + tn * WPTN;  // and first column
  realN acc[WPTM][VPTN];
  for (int i = 0; i < WPTM; ++i)
    for (int j = 0; j < VPTN; ++j) acc[i][j] = (realN)(0.0f);
#if SA
  __local float Als[KWG][MWG];
#endif
#if SB
  __local float Bls[KWG][NWG];
#endif
  for (int k0 = 0; k0 < K; k0 += KWG) {
#if SA || SB
    const int tid = tm * NDIMC + tn;
#endif
#if SA
    for (int idx = tid; idx < MWG * KWG; idx += MDIMC * NDIMC) {
      const int m = idx / KWG, k = idx % KWG;
      Als[k][m] = A[(get_group_id(1) * MWG + m) * K + k0 + k];
    }
#endif
#if SB
    for (int idx = tid; idx < KWG * NWG; idx += MDIMC * NDIMC) {
      const int k = idx / NWG, n = idx % NWG;
      Bls[k][n] = B[(k0 + k) * N + get_group_id(0) * NWG + n];
    }
#endif
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (int k = 0; k < KWG; k += KWI) {
      for (int u = 0; u < KWI; ++u) {
        float a[WPTM];
        for (int i = 0; i < WPTM; ++i) {
#if SA
          a[i] = Als[k + u][tm * WPTM + i];
#else
          a[i] = A[(m0 + i) * K + k0 + k + u];
#endif
        }
#if SB
        const __local float* brow = &Bls[k + u][tn * WPTN];
#else
        const __global float* brow = &B[(k0 + k + u) * N + n0];
#endif
        for (int j = 0; j < VPTN; ++j) {
          const realN b = LOADN(j, brow);
          for (int i = 0; i < WPTM; ++i) acc[i][j] = mad((realN)(a[i]), b, acc[i][j]);
        }
      }
    }
#if SA || SB
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
  for (int i = 0; i < WPTM; ++i)
    for (int j = 0; j < VPTN; ++j) STOREN(acc[i][j], j, &C[(m0 + i) * N + n0]);
}
)CLC";

/// The GEMM's tuning space for an M x N x K problem on a device: the parameters above with
/// the values CLBlast's Xgemm tuner uses for most of them, and constraints for the tiles, the
/// device's work-group size and local memory, and registers (at most 256 accumulators per
/// work-item). 61 440 raw configurations; 32 640 valid at 256^3 on PoCL (4096 work-items,
/// 512 KiB of local memory). VWN goes to 16: on an AVX2 CPU a float16 is two 8-wide registers,
/// and the fastest kernels on PoCL use it (docs/opencl.md).
[[nodiscard]] inline Space gemm_space(std::int64_t m, std::int64_t n, std::int64_t k,
                                      const DeviceInfo& device) {
  const double local_bytes = static_cast<double>(device.local_memory_bytes);
  return Space(
      {pow2("MWG", 16, 128), pow2("NWG", 16, 128), pow2("KWG", 8, 32), pow2("MDIMC", 4, 32),
       pow2("NDIMC", 4, 32), pow2("VWN", 1, 16), values("SA", {0, 1}), values("SB", {0, 1}),
       pow2("KWI", 1, 8)},
      {divides("MWG", static_cast<double>(m)), divides("NWG", static_cast<double>(n)),
       divides("KWG", static_cast<double>(k)), multiple_of("MWG", "MDIMC"),
       multiple_of("NWG", "NDIMC"), multiple_of("KWG", "KWI"),
       predicate(
           {"NWG", "NDIMC", "VWN"},
           [](std::span<const double> v) {
             return static_cast<std::int64_t>(v[0] / v[1]) % static_cast<std::int64_t>(v[2]) == 0;
           },
           "VWN divides NWG / NDIMC"),
       product_at_most({"MDIMC", "NDIMC"}, static_cast<double>(device.max_work_group_size)),
       predicate(
           {"MWG", "NWG", "MDIMC", "NDIMC"},
           [](std::span<const double> v) { return (v[0] / v[2]) * (v[1] / v[3]) <= 256; },
           "at most 256 accumulators per work-item"),
       predicate(
           {"MWG", "NWG", "KWG", "SA", "SB"},
           [local_bytes](std::span<const double> v) {
             return 4 * v[2] * (v[3] * v[0] + v[4] * v[1]) <= local_bytes;
           },
           "the local tiles fit the device's local memory")});
}

/// The kernel for `problem`, checked against its host reference (tolerance for single
/// precision sums of K products of values in [-1, 1)).
[[nodiscard]] inline Kernel gemm_kernel(const GemmProblem& problem) {
  const auto m = static_cast<std::size_t>(problem.m);
  const auto n = static_cast<std::size_t>(problem.n);
  return Kernel{
      .source = gemm_source,
      .name = "aoe_gemm",
      .arguments = {static_cast<std::int32_t>(problem.m), static_cast<std::int32_t>(problem.n),
                    static_cast<std::int32_t>(problem.k), problem.a, problem.b,
                    std::vector<float>(m * n)},
      .global =
          [m, n](const Params& p) {
            return Range(n / static_cast<std::size_t>(p["NWG"] / p["NDIMC"]),
                         m / static_cast<std::size_t>(p["MWG"] / p["MDIMC"]));
          },
      .local =
          [](const Params& p) {
            return Range(static_cast<std::size_t>(p["NDIMC"]),
                         static_cast<std::size_t>(p["MDIMC"]));
          },
      .defines = {},
      .build_options = "-cl-mad-enable",
      .checks = {{.argument = 5,
                  .expected = problem.c,
                  .absolute = 1e-3 * static_cast<double>(problem.k) / 64,
                  .relative = 1e-3}}};
}

}  // namespace aoe::opencl

#endif  // AOE_MEASURE_OPENCL_GEMM_HPP
