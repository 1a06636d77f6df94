// A tiled SGEMM of this project's own in CUDA C++, written for FP32 on CUDA cores (no tensor
// cores): block tile, register tile per thread, vectorised global loads, A transposed in
// shared memory, double buffering, unrolling. Its kernel, its tuning space and its checks.
#ifndef AOE_MEASURE_CUDA_GEMM_HPP
#define AOE_MEASURE_CUDA_GEMM_HPP

#include "aoe/measure/cuda/device.hpp"
#include "aoe/measure/cuda/kernel.hpp"
#include "aoe/measure/kernel/gemm_problem.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace aoe::cuda {

using kernel::gemm_flops;    // 2 M N K
using kernel::gemm_problem;  // inputs and the host reference
using kernel::GemmProblem;

/// C = A * B, row-major, A M x K, B K x N, C M x N. A block of TX x TY threads (x along N)
/// computes a BM x BN tile of C; each thread a (BM/TY) x (BN/TX) tile in registers. K advances
/// BK at a time: the threads load the BM x BK tile of A and the BK x BN tile of B with VEC-wide
/// loads (float4, float2, float), every thread the same number, and store A transposed in
/// shared memory (As[k][m]: a thread then reads its rows of A for one k as vectors, as it reads
/// its columns of B), its rows padded by PAD floats against bank conflicts of the transposing
/// stores. A thread's rows and columns come in groups of VEC, the groups strided by TY*VEC
/// (TX*VEC), so that a warp's vector reads of shared memory are conflict-free and its stores
/// of C coalesced. With DB the tiles are double-buffered: the next tile's global loads are in
/// flight (in registers) while the current one is multiplied, with one barrier per step. The
/// k loop over a tile runs UNROLL steps per iteration, unrolled. M, N, K must be multiples of
/// the tiles (the space's constraints say so). The launch bounds ask the compiler for as many
/// blocks per multiprocessor as an estimate of the registers a thread needs allows (two blocks
/// of 256 threads with 8 x 8 thread tiles and BK 8: 128 registers a thread), without spilling.
///
/// BM, BN, BK, TX, TY are the template arguments of `aoe_gemm` (in that order), VEC, DB, PAD
/// and UNROLL macros. The same body is also the `extern "C"` kernel `aoe_gemm_defines` under
/// -DAOE_GEMM_DEFINES_ENTRY, with BM..TY macros too: how Kernel Tuner passes every tunable
/// parameter. Launch: block (TX, TY), grid (N / BN, M / BM).
inline constexpr const char* gemm_source = R"CUDA(
#if !defined(VEC) || !defined(DB) || !defined(PAD) || !defined(UNROLL)
#error "aoe_gemm needs -DVEC, -DDB, -DPAD and -DUNROLL"
#endif

// N consecutive floats at p (aligned to N floats) into or out of registers, one access.
template <int N>
__device__ __forceinline__ void aoe_load(float* dst, const float* p) {
  if constexpr (N == 4) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
  } else if constexpr (N == 2) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    dst[0] = v.x; dst[1] = v.y;
  } else {
    dst[0] = *p;
  }
}

template <int N>
__device__ __forceinline__ void aoe_store(float* p, const float* src) {
  if constexpr (N == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(src[0], src[1], src[2], src[3]);
  } else if constexpr (N == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(src[0], src[1]);
  } else {
    *p = src[0];
  }
}

// The kernel's body. Its template parameters are not named BM..TY: under
// AOE_GEMM_DEFINES_ENTRY those names are macros.
template <int TileM, int TileN, int TileK, int ThreadsX, int ThreadsY>
__device__ __forceinline__ void aoe_gemm_body(int M, int N, int K, const float* __restrict__ A,
                                              const float* __restrict__ B,
                                              float* __restrict__ C) {
  constexpr int kThreads = ThreadsX * ThreadsY;
  constexpr int kRows = TileM / ThreadsY;  // of C per thread
  constexpr int kCols = TileN / ThreadsX;
  constexpr int kLda = TileM + PAD;        // a row of As (one k)
  constexpr int kAVectors = TileM * TileK / VEC / kThreads;  // loads per thread and tile
  constexpr int kBVectors = TileK * TileN / VEC / kThreads;
  constexpr int kBuffers = DB ? 2 : 1;
  static_assert(kRows * ThreadsY == TileM && kCols * ThreadsX == TileN, "threads divide tiles");
  static_assert(kRows % VEC == 0 && kCols % VEC == 0, "VEC divides the thread tile");
  static_assert(kAVectors * VEC * kThreads == TileM * TileK, "A's tile splits evenly");
  static_assert(kBVectors * VEC * kThreads == TileK * TileN, "B's tile splits evenly");
  static_assert(TileK % UNROLL == 0, "UNROLL divides BK");
  (void)M;

  __shared__ __align__(16) float As[kBuffers][TileK][kLda];
  __shared__ __align__(16) float Bs[kBuffers][TileK][TileN];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = ty * ThreadsX + tx;
  const float* a_block = A + static_cast<size_t>(blockIdx.y) * TileM * K;
  const float* b_block = B + static_cast<size_t>(blockIdx.x) * TileN;

  float acc[kRows][kCols];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
#pragma unroll
    for (int j = 0; j < kCols; ++j) acc[i][j] = 0.0f;
  }
  float ra[kAVectors][VEC];
  float rb[kBVectors][VEC];

  // Global tile at k0 -> registers: consecutive threads read consecutive vectors of a row.
  const auto load_tiles = [&](int k0) {
#pragma unroll
    for (int v = 0; v < kAVectors; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (TileK / VEC);
      const int col = (idx % (TileK / VEC)) * VEC;
      aoe_load<VEC>(ra[v], a_block + static_cast<size_t>(row) * K + k0 + col);
    }
#pragma unroll
    for (int v = 0; v < kBVectors; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (TileN / VEC);
      const int col = (idx % (TileN / VEC)) * VEC;
      aoe_load<VEC>(rb[v], b_block + static_cast<size_t>(k0 + row) * N + col);
    }
  };
  // Registers -> shared buffer `buf`, A transposed.
  const auto store_tiles = [&](int buf) {
#pragma unroll
    for (int v = 0; v < kAVectors; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (TileK / VEC);
      const int col = (idx % (TileK / VEC)) * VEC;
#pragma unroll
      for (int w = 0; w < VEC; ++w) As[buf][col + w][row] = ra[v][w];
    }
#pragma unroll
    for (int v = 0; v < kBVectors; ++v) {
      const int idx = tid + v * kThreads;
      const int row = idx / (TileN / VEC);
      const int col = (idx % (TileN / VEC)) * VEC;
      aoe_store<VEC>(&Bs[buf][row][col], rb[v]);
    }
  };
  // acc += the tiles in buffer `buf`: an outer product of a column of A and a row of B per k.
  const auto multiply = [&](int buf) {
#pragma unroll 1
    for (int k0 = 0; k0 < TileK; k0 += UNROLL) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        float a[kRows];
        float b[kCols];
#pragma unroll
        for (int g = 0; g < kRows / VEC; ++g) {
          aoe_load<VEC>(&a[g * VEC], &As[buf][k0 + u][g * ThreadsY * VEC + ty * VEC]);
        }
#pragma unroll
        for (int g = 0; g < kCols / VEC; ++g) {
          aoe_load<VEC>(&b[g * VEC], &Bs[buf][k0 + u][g * ThreadsX * VEC + tx * VEC]);
        }
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
#pragma unroll
          for (int j = 0; j < kCols; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
      }
    }
  };

  const int tiles = K / TileK;
#if DB
  load_tiles(0);
  store_tiles(0);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    const bool more = t + 1 < tiles;
    if (more) load_tiles((t + 1) * TileK);  // in flight during the multiply
    multiply(buf);
    if (more) store_tiles(buf ^ 1);  // last read before the previous barrier
    __syncthreads();
  }
#else
  for (int t = 0; t < tiles; ++t) {
    load_tiles(t * TileK);
    store_tiles(0);
    __syncthreads();
    multiply(0);
    __syncthreads();
  }
#endif

#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = blockIdx.y * TileM + (i / VEC) * ThreadsY * VEC + ty * VEC + i % VEC;
#pragma unroll
    for (int g = 0; g < kCols / VEC; ++g) {
      const int col = blockIdx.x * TileN + g * ThreadsX * VEC + tx * VEC;
      aoe_store<VEC>(C + static_cast<size_t>(row) * N + col, &acc[i][g * VEC]);
    }
  }
}

// Blocks per multiprocessor the register budget is cut for: 64 K registers shared by blocks of
// `threads` threads that need about their accumulators, their prefetched floats and 56 more
// (fragments, addresses) each; at least one block.
__host__ __device__ constexpr int aoe_gemm_min_blocks(int tile_m, int tile_n, int tile_k,
                                                      int threads) {
  const int registers = tile_m * tile_n / threads + (tile_m + tile_n) * tile_k / threads + 56;
  return 65536 / (threads * registers) > 1 ? 65536 / (threads * registers) : 1;
}

template <int TileM, int TileN, int TileK, int ThreadsX, int ThreadsY>
__global__ void __launch_bounds__(
    ThreadsX * ThreadsY, aoe_gemm_min_blocks(TileM, TileN, TileK, ThreadsX * ThreadsY))
    aoe_gemm(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
             float* __restrict__ C) {
  aoe_gemm_body<TileM, TileN, TileK, ThreadsX, ThreadsY>(M, N, K, A, B, C);
}

#ifdef AOE_GEMM_DEFINES_ENTRY
extern "C" __global__ void __launch_bounds__(TX * TY, aoe_gemm_min_blocks(BM, BN, BK, TX * TY))
    aoe_gemm_defines(int M, int N, int K, const float* __restrict__ A,
                     const float* __restrict__ B, float* __restrict__ C) {
  aoe_gemm_body<BM, BN, BK, TX, TY>(M, N, K, A, B, C);
}
#endif
)CUDA";

/// Static shared memory of a configuration in bytes: (1 + DB) buffers of the transposed,
/// padded A tile and the B tile.
[[nodiscard]] inline double gemm_shared_bytes(double bm, double bn, double bk, double db,
                                              double pad) {
  return 4 * (1 + db) * bk * (bm + pad + bn);
}

/// The GEMM's tuning space for an M x N x K problem on a device. Parameters: block tile
/// BM x BN x BK (32 to 256, 8 to 32), threads TX x TY (8 to 32 each: 64 to 1024 threads),
/// vector width VEC (float2, float4), double buffering DB, padding PAD (0 or 4 floats: A's
/// rows stay 16-byte aligned), unrolled k steps UNROLL (2, 8). Constraints: tiles divide the
/// problem and threads the tiles; each load of a tile split evenly over the threads, VEC floats
/// each; VEC divides the thread tile's rows and columns; at most max_threads_per_block threads;
/// a thread tile of 4 to 16 rows and columns with at most 128 accumulators (smaller tiles
/// starve the FMA units on shared-memory bandwidth; the rest of 255 registers holds fragments,
/// prefetched tiles and addresses) and the block's registers (about accumulators + 32 per
/// thread) within registers_per_block; the static shared memory within shared_memory_per_block
/// (48 KiB: static shared memory cannot opt in beyond it). 4096^3 on an H100 gives 1 940 valid
/// configurations of 6 912, among them the known-good 128 x 128 x 8 and x 16 tiles of
/// 16 x 16 threads with 8 x 8 thread tiles and float4.
[[nodiscard]] inline Space gemm_space(std::int64_t m, std::int64_t n, std::int64_t k,
                                      const DeviceInfo& device) {
  const double shared_bytes = static_cast<double>(device.shared_memory_per_block);
  const double registers = static_cast<double>(device.registers_per_block);
  return Space(
      {pow2("BM", 32, 256), pow2("BN", 32, 256), pow2("BK", 8, 32), pow2("TX", 8, 32),
       pow2("TY", 8, 32), values("VEC", {2, 4}), values("DB", {0, 1}), values("PAD", {0, 4}),
       values("UNROLL", {2, 8})},
      {divides("BM", static_cast<double>(m)), divides("BN", static_cast<double>(n)),
       divides("BK", static_cast<double>(k)), multiple_of("BM", "TY"), multiple_of("BN", "TX"),
       divides("UNROLL", "BK"),
       product_at_most({"TX", "TY"}, static_cast<double>(device.max_threads_per_block)),
       predicate(
           {"BM", "BN", "TX", "TY", "VEC"},
           [](std::span<const double> v) {
             const auto rows = static_cast<std::int64_t>(v[0] / v[3]);
             const auto cols = static_cast<std::int64_t>(v[1] / v[2]);
             const auto vec = static_cast<std::int64_t>(v[4]);
             return rows % vec == 0 && cols % vec == 0;
           },
           "VEC divides the thread tile (BM/TY) x (BN/TX)"),
       predicate(
           {"BM", "BN", "BK", "TX", "TY", "VEC"},
           [](std::span<const double> v) {
             const auto per_load = static_cast<std::int64_t>(v[3] * v[4] * v[5]);
             return static_cast<std::int64_t>(v[0] * v[2]) % per_load == 0 &&
                    static_cast<std::int64_t>(v[2] * v[1]) % per_load == 0;
           },
           "the A and B tiles split evenly over TX * TY threads, VEC floats each"),
       predicate(
           {"BM", "BN", "TX", "TY"},
           [registers](std::span<const double> v) {
             const double rows = v[0] / v[3];
             const double cols = v[1] / v[2];
             return rows >= 4 && rows <= 16 && cols >= 4 && cols <= 16 && rows * cols <= 128 &&
                    v[2] * v[3] * (rows * cols + 32) <= registers;
           },
           "thread tile of 4 to 16 rows and columns, at most 128 accumulators, the block's "
           "registers within the device's"),
       predicate(
           {"BM", "BN", "BK", "DB", "PAD"},
           [shared_bytes](std::span<const double> v) {
             return gemm_shared_bytes(v[0], v[1], v[2], v[3], v[4]) <= shared_bytes;
           },
           "the shared tiles fit the device's shared memory per block")});
}

/// The kernel for `problem` (the templated `aoe_gemm`), checked against its host reference
/// (tolerance for single-precision sums of K products of values in [-1, 1)). No fast-math
/// options: the products are fused multiply-adds either way.
[[nodiscard]] inline Kernel gemm_kernel(const GemmProblem& problem) {
  const auto m = static_cast<std::size_t>(problem.m);
  const auto n = static_cast<std::size_t>(problem.n);
  return Kernel{
      .source = gemm_source,
      .name = "aoe_gemm",
      .template_arguments = {"BM", "BN", "BK", "TX", "TY"},
      .arguments = {static_cast<std::int32_t>(problem.m), static_cast<std::int32_t>(problem.n),
                    static_cast<std::int32_t>(problem.k), problem.a, problem.b,
                    std::vector<float>(m * n)},
      .grid =
          [m, n](const Params& p) {
            return Range(n / static_cast<std::size_t>(p["BN"]),
                         m / static_cast<std::size_t>(p["BM"]));
          },
      .block =
          [](const Params& p) {
            return Range(static_cast<std::size_t>(p["TX"]), static_cast<std::size_t>(p["TY"]));
          },
      .shared_memory_bytes = {},
      .defines = {},
      .compiler_options = {},
      .checks = {{.argument = 5,
                  .expected = problem.c,
                  .absolute = 1e-3 * static_cast<double>(problem.k) / 64,
                  .relative = 1e-3}}};
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_GEMM_HPP
